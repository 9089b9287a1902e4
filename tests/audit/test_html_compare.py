"""The audit page's comparison with a baseline model (issue 25): verdict, section, chart, JSON.

Hand-worked rows: group a (100 rows) is selected 50 times by both models; in group b (100 rows)
the baseline selects the 40 positive labels and the candidate only 10 of them.
"""

from __future__ import annotations

import html
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.audit.change_gate import change_gate
from polars_fair.audit.html import audit_html, page_data
from polars_fair.cli.entry import app
from tests.audit.test_html_adverse_impact import text
from tests.audit.test_plot import require_plot_extra
from tests.ratio_reference import mover_r

pytestmark = pytest.mark.slow  # each page takes seconds (as test_html.py)

ROWS = ([("a", 1, 1, 1)] * 50 + [("a", 0, 0, 0)] * 50 + [("b", 1, 1, 1)] * 10
        + [("b", 1, 0, 1)] * 30 + [("b", 0, 0, 0)] * 60)
DATA = pl.DataFrame(ROWS, schema=["g", "y_true", "new", "old"], orient="row")
runner = CliRunner()


@pytest.fixture(scope="module")
def page() -> str:
    require_plot_extra()
    return audit_html(DATA, "g", y_pred="new", baseline_pred="old", reference="a")


def test_the_verdict_block_holds_the_change_gates_failures(page: str) -> None:
    words = text(page, "<h3>Against the baseline", "<h2>Headline")
    assert words.startswith("Against the baseline: FAIL 1 of 2 group(s) fail the change gate")
    # b's impact ratio: 40/50 = 0.8 under the baseline, 10/50 = 0.2 under the candidate; its
    # paired interval (each model's MOVER-R interval combined by MOVER-D, tests/ratio_reference
    # .py; the same table as tests/audit/test_change_gate.py): [-0.7744, -0.4046] (it was the
    # delta method's [-0.8028, -0.3737], which covered about 90 % at 30 rows)
    assert "b 100 impact ratio 0.800 0.200 −0.600 [−0.774, −0.405] drop <= 0.05" in words
    # OFI: B = (FP - FN)/n; b: 0 under the baseline, (0 - 30)/100 under the candidate; a: 0
    assert "b 100 OFI +0.000 −0.300 −0.300" in words
    # the gate on levels fails b too (0.2 < 0.8): the two verdicts stand side by side
    assert "Verdict: FAIL 1 of 2 group(s) fail the checks" in text(page, "<h2>Verdict",
                                                                      "<h3>Against")


def test_the_comparison_section_sets_the_models_side_by_side(page: str) -> None:
    words = text(page, "<h2>Against the baseline model</h2>", "<h2>Uncertainty")
    # b: 40% -> 10%; McNemar: 30 discordant pairs all one way, p = 2 / 2^30 < 0.001; the
    # four-fifths verdict turns from pass (0.8 is not below 0.8) to fail; errors: the
    # candidate alone is wrong on 30 rows, the baseline alone on none: p < 0.001
    low, high = polars_fair.analyses.compare.paired_difference_interval([10], [0], [30], [60])
    rate_ci = f"[{low[0]:.3f}, {high[0]:.3f}]".replace("-", "−")
    # each change is shown with its interval (the interval alone hid the change): b's
    # selection rate 0.1 - 0.4, impact ratio 0.2 - 0.8
    assert (f"b 100 40.0% → 10.0% −0.300 {rate_ci} < 0.001 0.800 → 0.200 −0.600 "
            "[−0.774, −0.405] passes → fails (changed) +0.000 → −0.300 −0.300") in words
    assert words.count("< 0.001") == 2 + 0  # b's two tests (the reading has none)
    # a, the reference: nothing changed, both p-values 1 (Newcombe's interval of no
    # discordant pair still has a width)
    low, high = polars_fair.analyses.compare.paired_difference_interval([50], [0], [0], [50])
    rate_ci = f"[{low[0]:.3f}, {high[0]:.3f}]".replace("-", "−")
    # a's impact ratio is 1 under both, but under the baseline a is the top by 50 against 40
    # of 100: its ratio to b, 1.25, has the MOVER-R interval [0.920, 1.705], capped at 1, so
    # its change of 0 reaches 1 - 0.920 above (the candidate's 5 has [2.74, 9.25]: 1 surely)
    low, high = mover_r(50, 100, 40, 100)
    assert mover_r(50, 100, 10, 100)[0] > 1 and low < 1 < high
    assert (f"a 100 50.0% → 50.0% +0.000 {rate_ci} 1.000 1.000 → 1.000 +0.000 "
            f"[0.000, {1 - low:.3f}] passes → passes +0.000 → +0.000 +0.000 [0.000, 0.000] "
            "1.000") in words
    figure = page[page.index("<h2>Against the baseline model"):page.index("<h2>Uncertainty")]
    assert "<figure><h3>Impact ratio: baseline and candidate</h3><svg" in figure
    assert "four-fifths verdict changed: b" in html.unescape(figure)


def test_the_json_block_holds_compare_and_the_change_gate(page: str) -> None:
    data = page_data(page)
    want = DATA.fair.compare("g", y_pred="new", baseline="old", y_true="y_true",
                             reference="a")
    assert pl.DataFrame(data["compare"]).equals(want)
    paired = polars_fair.paired_counts(DATA, "g", y_pred="new", baseline="old",
                                       y_true="y_true")
    gate = change_gate(paired, reference="a")
    assert pl.DataFrame(data["change_gate"], schema=gate.schema).equals(gate)
    assert data["provenance"]["parameters"]["baseline_pred"] == "old"


def test_without_a_baseline_the_page_has_no_comparison() -> None:
    require_plot_extra()
    plain = audit_html(DATA, "g", y_pred="new", reference="a")
    assert "Against the baseline" not in plain
    assert "compare" not in page_data(plain) and "change_gate" not in page_data(plain)


def test_the_limits_and_level_reach_the_gate_and_bad_ones_are_refused() -> None:
    require_plot_extra()
    loose = audit_html(DATA, "g", y_pred="new", baseline_pred="old", reference="a",
                       max_impact_ratio_drop=0.7, max_ofi_increase=0.35, level=0.9)
    words = text(loose, "<h3>Against the baseline", "<h2>Headline")
    assert words.startswith("Against the baseline: PASS all 2 group(s) pass")
    assert "the paired 90% interval of the change" in words
    with pytest.raises(E.InvalidArgumentError, match="max_impact_ratio_drop"):
        audit_html(DATA.lazy().select(pl.lit(1).truediv(0).alias("never read")), "g",
                   baseline_pred="old", max_impact_ratio_drop=1.5)


def test_report_html_baseline_pred(tmp_path: Path) -> None:
    require_plot_extra()
    path, out = tmp_path / "two.csv", tmp_path / "audit.html"
    DATA.write_csv(path)
    args = ["report", str(path), "--by", "g", "--y-pred", "new", "--reference", "a"]
    result = runner.invoke(app, [*args, "--html", str(out), "--baseline-pred", "old = 1",
                                 "--max-ofi-increase", "0.5"])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert page_data(page)["provenance"]["parameters"]["max_ofi_increase"] == 0.5
    words = text(page, "<h3>Against the baseline", "<h2>Headline")
    assert "b 100 impact ratio 0.800 0.200" in words and "OFI" not in words.split("limit")[-1]
    no_html = runner.invoke(app, [*args, "--baseline-pred", "old"])
    assert no_html.exit_code == 2
    assert E.CLI_PAGE_OPTION.format(flag="--baseline-pred") in no_html.stderr
    no_baseline = runner.invoke(app, [*args, "--html", str(out), "--max-ofi-increase", "0.5"])
    assert no_baseline.exit_code == 2
    assert E.CLI_CHANGE_LIMIT.format(flag="--max-ofi-increase") in no_baseline.stderr


def test_a_weighted_comparison_shows_its_rows_of_positive_weight() -> None:
    # every b row of the candidate's wrong rejections (b, 1, 0, 1) weighs 0: b's support is
    # 70 rows of positive weight of its 100, shown beside n in the comparison table
    require_plot_extra()
    weighted = DATA.with_columns(
        w=pl.when((pl.col("g") == "b") & (pl.col("new") == 0) & (pl.col("old") == 1))
        .then(0.0).otherwise(1.0))
    page = audit_html(weighted, "g", y_pred="new", baseline_pred="old", reference="a",
                      sample_weight="w")
    words = text(page, "<h2>Against the baseline model</h2>", "<h2>Uncertainty")
    assert "group n rows of weight > 0 selection rate (baseline → candidate)" in words
    assert "b 100 70 " in words and "a 100 100 " in words
