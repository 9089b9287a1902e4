"""``--membership`` on the generated commands (issue 24): the count argument as
``ATTRIBUTE=GROUP:COLUMN,...``, the same result as the Python API."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


def test_membership_option_equals_the_python_api(tmp_path: Path) -> None:
    df = pl.DataFrame({"s": ["x", "x", "y", "y"], "y_true": [1, 0, 1, 0],
                       "y_pred": [1, 1, 0, 1], "p_a": [0.2, 1.0, 0.5, 0.0],
                       "p_b": [0.8, 0.0, 0.5, 1.0]})
    path = tmp_path / "people.csv"
    df.write_csv(path)
    for estimator in ("weighted", "argmax"):
        result = runner.invoke(app, ["rates", str(path), "--by", "s", "--membership",
                                     "g=a:p_a,b:p_b", "--membership-estimator", estimator,
                                     "--format", "json"])
        assert result.exit_code == 0, result.output
        got = pl.DataFrame(json.loads(result.stdout))
        want = df.fair.rates("s", membership={"g": {"a": "p_a", "b": "p_b"}},
                             membership_estimator=estimator)
        assert got.select("g", "s", "selection_rate").rows() == \
            want.select("g", "s", "selection_rate").rows()


# --- the fresh-user review of issue 24: --membership on every count command, --by optional ---
#: Four people, p_a the probability of group a (p_b = 1 - p_a); y_pred 1, 1, 0, 1.
PEOPLE = {"y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 1], "p_a": [0.2, 1.0, 0.5, 0.0],
          "p_b": [0.8, 0.0, 0.5, 1.0]}
#: By hand: a counts 0.2 + 1.0 + 0.5 = 1.7 people, 0.2 + 1.0 selected; b counts
#: 0.8 + 0.5 + 1.0 = 2.3, 0.8 + 1.0 selected.
RATE_A, RATE_B = 1.2 / 1.7, 1.8 / 2.3


def _people(tmp_path: Path) -> Path:
    path = tmp_path / "people.csv"
    pl.DataFrame(PEOPLE).write_csv(path)
    return path


def _json(args: list[str]) -> pl.DataFrame:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return pl.DataFrame(json.loads(result.stdout))


def test_every_count_command_takes_membership_without_by(tmp_path: Path) -> None:
    path = str(_people(tmp_path))
    member = ["--membership", "g=a:p_a,b:p_b"]
    rates = _json(["rates", path, *member])
    assert rates["g"].to_list() == ["a", "b"]
    assert rates["selection_rate"].to_list() == pytest.approx([RATE_A, RATE_B], abs=1e-12)
    report = _json(["report", path, *member, "--reference", "b"])
    assert report["impact_ratio"].to_list() == pytest.approx([RATE_A / RATE_B, 1.0], abs=1e-12)
    confusion = _json(["confusion", path, *member])
    assert confusion["weight_sum"].to_list() == pytest.approx([1.7, 2.3], abs=1e-12)
    # n_effective of a: (0.2 + 1.0 + 0.5)^2 / (0.04 + 1.0 + 0.25) = 2.89 / 1.29
    assert confusion["n_effective"][0] == pytest.approx(2.89 / 1.29, abs=1e-12)
    disparity = _json(["disparity", path, *member, "--metric", "selection_rate",
                       "--reference", "b"])
    assert disparity.filter(pl.col("g") == "a")["difference"].item() == \
        pytest.approx(RATE_A - RATE_B, abs=1e-12)
    impact = _json(["impact-analysis", path, *member, "--reference", "b"])
    assert impact.filter(pl.col("g") == "a")["impact_ratio"].item() == \
        pytest.approx(RATE_A / RATE_B, abs=1e-12)
    pairwise = _json(["pairwise", path, *member])
    assert pairwise.filter(pl.col("g_i") == "a")["disparate_impact"].item() == \
        pytest.approx(RATE_A / RATE_B, abs=1e-12)
    summary = _json(["summary", path, *member])
    row = summary.filter(pl.col("metric") == "min_impact_ratio")
    assert row["value"].item() == pytest.approx(RATE_A / RATE_B, abs=1e-12)


def test_report_membership_header_counts_rows_once(tmp_path: Path) -> None:
    # weighted, every row counts in both groups (n = 3 and 3), but there are 4 rows
    path = str(_people(tmp_path))
    result = runner.invoke(app, ["report", path, "--membership", "g=a:p_a,b:p_b"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("polars-fair report: 4 rows, 2 groups by ['g']")
    result = runner.invoke(app, ["rates", path, "--membership", "g=a:p_a,b:p_b"])
    assert "; 4 rows counted" in result.stdout.splitlines()[0]
    # argmax: a crisp table (ties to the group listed first: the 0.5 row is in a)
    argmax = _json(["report", path, "--membership", "g=a:p_a,b:p_b",
                    "--membership-estimator", "argmax"])
    assert argmax["n"].to_list() == [2, 2]


def test_by_or_membership_is_required(tmp_path: Path) -> None:
    from polars_fair import errors as E

    path = str(_people(tmp_path))
    for command in ("rates", "report", "disparity"):
        result = runner.invoke(app, [command, path])
        assert result.exit_code == 2
        assert E.CLI_BY_OR_MEMBERSHIP in result.output


def test_a_name_given_twice_is_named(tmp_path: Path) -> None:
    from polars_fair import errors as E

    path = str(_people(tmp_path))
    result = runner.invoke(app, ["rates", path, "--membership", "g=a:p_a,a:p_b"])
    assert result.exit_code == 2
    assert E.CLI_MEMBERSHIP_TWICE.format(what="group", name="a", given="g=a:p_a,a:p_b") \
        in result.output
    result = runner.invoke(app, ["proxy-report", path, "--membership", "g=a:p_a,b:p_b",
                                 "--membership", "g=a:p_b,b:p_a"])
    assert result.exit_code == 2
    assert E.CLI_MEMBERSHIP_TWICE.format(what="attribute", name="g", given="g=a:p_b,b:p_a") \
        in result.output


def test_membership_probabilities_may_be_sql(tmp_path: Path) -> None:
    # b's probability written as SQL over p_a: the same numbers as the column p_b
    path = str(_people(tmp_path))
    for command in ("rates", "report"):
        got = _json([command, path, "--membership", "g=a:p_a,b:1 - p_a"])
        assert got["selection_rate"].to_list() == pytest.approx([RATE_A, RATE_B], abs=1e-12)
    proxy = _json(["proxy-report", path, "--membership", "g=a:p_a,b:1 - p_a", "--reference",
                   "b", "--min-support", "0"])
    assert proxy["selection_rate_weighted"].to_list() == \
        pytest.approx([RATE_A, RATE_B], abs=1e-12)
    result = runner.invoke(app, ["rates", path, "--membership", "g=a:p_a,b:1 - p_x"])
    assert result.exit_code == 2
    assert "column 'p_x' (--membership) not found" in result.output


def test_membership_help_says_what_is_accepted() -> None:
    from polars_fair.api.objects import FairCounts
    from polars_fair.cli.commands import method_options, namespace_options, option_parameter

    for opt in (*method_options(FairCounts, "rates"), *namespace_options("proxy_report")):
        if opt.name == "membership":
            text = option_parameter(opt).annotation.__metadata__[0].help
            assert "a column or a SQL expression over the columns" in text
            assert "expression)" not in text.split("Takes")[0]  # no Python expression


def test_not_found_never_lists_internal_columns() -> None:
    from polars_fair import errors as E
    from polars_fair.cli.io import column_or_sql

    schema = pl.Schema({"p_a": pl.Float64, "__pf_argmax": pl.Int32})
    with pytest.raises(E.ColumnNotFoundError) as info:
        column_or_sql("p_x + 1", schema, "--membership")
    # p_a is close to p_x: suggested (issue 20 fix, item 7); the internal column never is
    assert str(info.value) == E.MISSING_COLUMN_NEAR.format(
        column="p_x", role="--membership", available="['p_a']",
        near=" (did you mean 'p_a'?)")


def test_disparity_largest_reads_n_effective(tmp_path: Path) -> None:
    # review 8, item 1: a has n = 400 rows but n_eff = (Σp)² / Σp² = (300·0.05 + 100)² /
    # (300·0.0025 + 100) = 115² / 100.75 = 131.27; b has n = n_eff = 300 (p 0.95 on 300 rows,
    # Σp = 285, Σp² = 270.75, 285² / 270.75 = 300): b is the largest, as report says
    path = tmp_path / "eff.csv"
    pl.DataFrame({"p_a": [0.05] * 300 + [1.0] * 100, "p_b": [0.95] * 300 + [0.0] * 100,
                  "y_true": [0, 1, 1, 0] * 100, "y_pred": [1, 0] * 200}).write_csv(path)
    member = ["--membership", "g=a:p_a,b:p_b", "--reference", "largest"]
    report = _json(["report", str(path), *member])
    disparity = _json(["disparity", str(path), *member])
    assert report["n_effective"].to_list() == pytest.approx([115**2 / 100.75, 300.0])
    assert report.filter(pl.col("is_reference"))["g"].to_list() == ["b"]
    assert disparity.filter(pl.col("is_reference"))["g"].unique().to_list() == ["b"]


def test_report_refuses_a_malformed_membership_in_one_line(tmp_path: Path) -> None:
    # review 8, item 2: report parsed --membership outside the error handler (a traceback)
    from polars_fair import errors as E

    path = str(_people(tmp_path))
    cases = [
        (["--membership", "g=a:p_a,a:p_b"],
         E.CLI_MEMBERSHIP_TWICE.format(what="group", name="a", given="g=a:p_a,a:p_b")),
        (["--membership", "g=a:p_a,b:p_b", "--membership", "g=a:p_b,b:p_a"],
         E.CLI_MEMBERSHIP_TWICE.format(what="attribute", name="g", given="g=a:p_b,b:p_a")),
        (["--membership", "garbage"], "got 'garbage'"),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["report", path, *args])
        assert result.exit_code == 2, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert "Traceback" not in result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("polars-fair: error: ")
        assert message in lines[0]
