"""Issue 19, kind 2: every numeric option that sets an amount of work has a documented limit.

Each example of the issue used to allocate until the machine said no (or ran without end); each
is now a ``SizeLimitError`` raised before any work, stating the value, the limit and the option.
The limits are declared once (:data:`polars_fair.core.limits.LIMITS`) and the docs' list is
generated from them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.audit.plot import pairwise_heatmap, roc_chart, save
from polars_fair.cli.entry import app
from polars_fair.core.limits import LIMITS, check_size, limit, limits_markdown
from polars_fair.core.sql import check_sql
from polars_fair.datasets import make_hiring
from polars_fair.power import abroca_power, binormal_test_set, power_curve

ROOT = Path(__file__).resolve().parents[2]
SCORES = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0, 1, 0] * 2,
                       "y_score": [0.9, 0.1, 0.8, 0.2, 0.9, 0.8, 0.1, 0.2]})


def _says(option: str, size: int, cap: int) -> str:
    """The message names the option and states the size and the limit (thousands separated)."""
    return rf"{re.escape(option)}={size:,} is more than its limit {cap:,}"


# ------------------------------------------------------------------ the examples
@pytest.mark.parametrize("lazy", [False, True])
def test_abroca_test_with_a_billion_permutations_is_refused_before_any_draw(lazy: bool) -> None:
    frame = SCORES.lazy() if lazy else SCORES
    with pytest.raises(E.SizeLimitError, match=_says("n_permutations", 10**9, 1_000_000)):
        frame.fair.abroca_test("g", n_permutations=10**9)  # a plan: raised when it is made


@pytest.mark.parametrize("method", ["calibration", "reliability"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_with_a_billion_bins_is_refused(method: str, strategy: str) -> None:
    with pytest.raises(E.SizeLimitError, match=_says("n_bins", 10**9, 10_000)):
        getattr(SCORES.lazy().fair, method)("g", n_bins=10**9, strategy=strategy)


def test_calibration_at_its_limit_runs() -> None:
    # 10,000 bins over 8 rows: 2 groups x 10,000 bins = 20,000 rows of the reliability table
    out = SCORES.fair.reliability("g", n_bins=10_000)
    assert out.height == 2 * 10_000


def test_divergence_with_a_billion_quantile_bins_is_refused() -> None:
    df = make_hiring(200, seed=0).with_columns(age=pl.int_range(pl.len()) % 60 + 18)
    with pytest.raises(E.SizeLimitError, match=_says("bins['age']", 10**9, 10_000)):
        df.fair.divergence(["age"], bins={"age": 10**9})
    with pytest.raises(E.SizeLimitError, match=re.escape("bins['age'] (edges)=1,000,000,000")):
        df.fair.divergence(["age"], bins={"age": range(10**9)})  # never read into a list


def test_power_with_a_billion_rows_or_endless_draws_is_refused() -> None:
    with pytest.raises(E.SizeLimitError, match=_says("n", 10**9, 10_000_000)):
        abroca_power(auc_a=0.8, auc_b=0.7, n=10**9)
    with pytest.raises(E.SizeLimitError, match=_says("n_simulations", 10**7, 100_000)):
        abroca_power(auc_a=0.8, auc_b=0.7, n=100, n_simulations=10**7, n_permutations=10**6)
    # each option within its limit, their product not: 10^5 x 10^6 x 100 = 10^13 > 10^10
    with pytest.raises(E.SizeLimitError, match=re.escape(
            "n_simulations x n_permutations x n = 10,000,000,000,000 is more than its limit "
            "10,000,000,000")):
        abroca_power(auc_a=0.8, auc_b=0.7, n=100, n_simulations=10**5, n_permutations=10**6)
    with pytest.raises(E.SizeLimitError, match=_says("n", 10**9, 10_000_000)):
        binormal_test_set(auc_a=0.8, auc_b=0.7, n=10**9)
    # power_curve: 2 sizes of 10^6 rows x 200 x 200 = 8 x 10^10 over the cells
    with pytest.raises(E.SizeLimitError, match="summed over the cells"):
        power_curve(delta_aucs=[0.1], sizes=[10**6, 10**6])


def test_raisable_limits_have_a_ceiling() -> None:
    df = make_hiring(100, seed=0)
    with pytest.raises(E.SizeLimitError, match=_says("max_groups", 10**9, 10_000_000)):
        df.fair.report("race", max_groups=10**9)
    with pytest.raises(E.SizeLimitError, match=_says("max_pairs", 10**12, 100_000_000)):
        df.fair.pairwise("race", max_pairs=10**12)
    with pytest.raises(E.SizeLimitError, match=_says("max_patterns", 10**12, 100_000_000)):
        df.fair.divergence(["race"], max_patterns=10**12)
    with pytest.raises(E.SizeLimitError, match=_says("max_thresholds", 10**9, 1_000_000)):
        df.fair.sweep("race", y_score="y_score", thresholds=[0.5], max_thresholds=10**9)


def test_chart_options_are_bounded() -> None:
    pytest.importorskip("altair")
    scores = make_hiring(400, seed=0).fair.scores("race", y_score="y_score")
    with pytest.raises(E.SizeLimitError, match=_says("max_points", 10**9, 100_000)):
        roc_chart(scores, max_points=10**9)
    pairs = make_hiring(400, seed=0).fair.pairwise("race")
    with pytest.raises(E.SizeLimitError, match=_says("cell_size", 10**6, 1_000)):
        pairwise_heatmap(pairs, cell_size=10**6)
    with pytest.raises(E.SizeLimitError, match=r"scale=1,000\.0 is more than its limit 20"):
        save({}, "chart.png", scale=1000.0)


# ------------------------------------------------------------------ SQL options
def test_sql_lpad_to_a_hundred_million_is_refused() -> None:
    with pytest.raises(E.SizeLimitError, match="LPAD\\(\\) pads to 100000000"):
        check_sql("LPAD(g, 100000000, 'x')", ["g"], "--by")
    with pytest.raises(E.SQLRefusedError, match="RPAD\\(\\) pads to n"):  # a column: any size
        check_sql("RPAD(g, n, 'x')", ["g", "n"], "--by")
    check_sql("LPAD(g, 10000, 'x')", ["g"], "--by")  # at the limit


def test_sql_pad_counts_in_the_growth_product() -> None:
    # 10,000 padded characters, each 'x' replaced by 10 three times: 10,000 * 10**3 = 10**7
    bypass = ("LENGTH(REPLACE(REPLACE(REPLACE(LPAD(g, 10000, 'x'), 'x', 'xxxxxxxxxx'), "
              "'x', 'xxxxxxxxxx'), 'x', 'xxxxxxxxxx'))")
    with pytest.raises(E.SizeLimitError, match="padded cell can reach .* is 10,000,000, more "
                       "than its limit 10,000"):
        check_sql(bypass, ["g"], "--by")
    # three pads of 4,000 concatenated: 12,000 characters, above 10,000
    with pytest.raises(E.SizeLimitError, match="is 12,000, more than its limit 10,000"):
        check_sql("CONCAT(LPAD(g, 4000, 'x'), LPAD(g, 4000, 'x'), RPAD(g, 4000, 'x'))",
                  ["g"], "--by")
    # 1,000 padded characters grown 10 times: 10,000, at the limit
    check_sql("REPLACE(LPAD(g, 1000, 'x'), 'x', 'xxxxxxxxxx')", ["g"], "--by")


def test_sql_of_1500_or_terms_is_refused_and_in_says_the_same() -> None:
    terms = " OR ".join(f"g = 'v{i}'" for i in range(1500))
    # 1,500 "=" and 1,499 "OR": 2,999 operators
    with pytest.raises(E.SizeLimitError, match="the number of operators .* is 2,999, more than "
                       "its limit 256"):
        check_sql(terms, ["g"], "--where")
    check_sql("g IN (" + ", ".join(f"'v{i}'" for i in range(1500)) + ")", ["g"], "--where")


def test_sql_depth_replace_and_length_are_bounded() -> None:
    with pytest.raises(E.SizeLimitError, match="nesting of parentheses is 33"):
        check_sql("(" * 33 + "g" + ")" * 33 + " = 'a'", ["g"], "--where")
    nested = "g"
    for _ in range(5):
        nested = f"REPLACE({nested}, 'a', 'aa')"
    with pytest.raises(E.SizeLimitError, match="REGEXP_REPLACE calls is 5"):
        check_sql(nested, ["g"], "--by")
    with pytest.raises(E.SizeLimitError, match="length in characters is 100,001"):
        check_sql("g = '" + "x" * 99_995 + "'", ["g"], "--where")  # 5 + 99,995 + 1 characters


def test_the_cli_refuses_the_sql_examples_with_a_json_error(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    make_hiring(200, seed=0).write_csv(path)
    runner = CliRunner()
    for flag, text in (("--by", "LPAD(race, 100000000, 'x')"),
                       ("--where", " OR ".join(f"race = 'v{i}'" for i in range(1500)))):
        args = ["report", str(path), "--y-pred", "y_pred", "--format", "json", flag, text]
        if flag == "--where":
            args += ["--by", "race"]
        result = runner.invoke(app, args)
        assert result.exit_code != 0
        assert json.loads(result.stdout)["error"] == "SizeLimitError"


def test_the_cli_refuses_a_billion_permutations(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    make_hiring(200, seed=0).write_csv(path)
    result = CliRunner().invoke(app, ["abroca-test", str(path), "--by", "race", "--y-score",
                                      "y_score", "--n-permutations", "1000000000",
                                      "--format", "json"])
    assert result.exit_code != 0
    assert json.loads(result.stdout)["error"] == "SizeLimitError"


# ------------------------------------------------------------------ declared once
def test_check_size_passes_values_at_the_limit_and_leaves_types_to_their_checks() -> None:
    assert check_size(limit("n_bins"), "n_bins") == 10_000
    assert check_size("ten", "n_bins") == "ten"  # the option's own check names the type
    assert check_size(True, "n_bins") is True


def test_the_docs_list_the_generated_limits() -> None:
    import importlib.util

    page = (ROOT / "docs" / "guarantees.md").read_text()
    assert "<!-- generated: limits -->" in page.split("## Size limits", 1)[1]
    spec = importlib.util.spec_from_file_location("generated",
                                                  ROOT / "docs/hooks/generated.py")
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    text = hook.on_page_markdown(page)
    assert limits_markdown() in text and "<!-- generated: limits -->" not in text
    for name, entry in LIMITS.items():
        assert f"| `{name}` | {entry.limit:,} |" in text


def test_docstrings_show_the_declared_limits() -> None:
    assert "10,000,000,000" in (abroca_power.__doc__ or "")  # power_work
    assert "|limit:" not in (abroca_power.__doc__ or "")
    assert "above 10,000" in (SCORES.fair.calibration.__doc__ or "")


def test_synthetic_data_is_bounded_on_every_way_in() -> None:
    with pytest.raises(E.SizeLimitError, match=_says("n", 10**10, 10_000_000)):
        make_hiring(10**10)
    result = CliRunner().invoke(app, ["demo", "--n", str(10**10), "--format", "json"])
    assert result.exit_code != 0
    assert json.loads(result.stdout)["error"] == "SizeLimitError"
    assert limit("hiring_rows") == 10_000_000
