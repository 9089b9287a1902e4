"""One reference, one OFI, one verdict when the only group of 30 rows is the missing group.

Issue 19, fifth review, item 1: `check` said "reference overall" and called the missing group's
OFI 0/0, the HTML gate failed it at -0.500, `report` showed -0.5, and the headers claimed "the
largest group with at least 30 rows" of a 5-row group. The missing group is never chosen by a
rule (docs/guarantees.md, "What counts as missing"); with no known group of `min_support` rows
the benchmarks are the largest known group and the highest known selection rate, flagged low
support, everywhere.

The rows, worked by hand:

- missing g: 30 rows, 15 labelled 1 (12 predicted 1: TP 12, FN 3), 15 labelled 0 (TN 15):
  selection 12/30 = 0.4, B = (FP - FN)/n = (0 - 3)/30 = -0.1;
- a: labels 1,1,0,0,0, predictions 1,1,1,1,0: TP 2, FP 2, TN 1: selection 4/5 = 0.8,
  B = 2/5 = 0.4;
- b: labels 1,0,0,0,0, predictions 1,0,0,0,0: TP 1, TN 4: selection 1/5 = 0.2, B = 0.

a and b tie at 5 rows; the first in key order, a, is the reference ("largest"), and a's 0.8 is
the highest known selection rate. So the missing group's impact ratio is 0.4 / 0.8 = 0.5 (fails
0.8) and its OFI -0.1 - 0.4 = -0.5 (fails |ofi| <= 0.3); b's are 0.25 and -0.4.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

import polars_fair
from polars_fair.audit.gate import NO_BENCHMARK, gate
from polars_fair.cli.entry import app
from tests.audit.test_plot import require_plot_extra

runner = CliRunner()


def _rows() -> pl.DataFrame:
    missing = pl.DataFrame({"g": [None] * 30, "y_true": [1] * 15 + [0] * 15,
                            "y_pred": [1] * 12 + [0] * 18}, schema={"g": pl.String,
                                                                   "y_true": pl.Int64,
                                                                   "y_pred": pl.Int64})
    a = pl.DataFrame({"g": ["a"] * 5, "y_true": [1, 1, 0, 0, 0], "y_pred": [1, 1, 1, 1, 0]})
    b = pl.DataFrame({"g": ["b"] * 5, "y_true": [1, 0, 0, 0, 0], "y_pred": [1, 0, 0, 0, 0]})
    return pl.concat([missing, a, b])


def _csv(tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    _rows().write_csv(path)  # the missing group: empty fields
    return path


def test_report_takes_the_largest_known_group_flagged_low_support() -> None:
    r = _rows().fair.report("g").select("g", "is_reference", "impact_ratio", "ofi",
                                        "reference_low_support", "finding")
    assert r.to_dicts() == [
        {"g": "a", "is_reference": True, "impact_ratio": 1.0, "ofi": 0.0,
         "reference_low_support": True, "finding": "insufficient support"},
        {"g": "b", "is_reference": False, "impact_ratio": 0.25, "ofi": -0.4,
         "reference_low_support": True, "finding": "insufficient support"},
        {"g": None, "is_reference": False, "impact_ratio": 0.5, "ofi": -0.5,
         "reference_low_support": True, "finding": "insufficient support"},
    ]


def test_the_gate_uses_the_same_reference_and_figures() -> None:
    table = gate(polars_fair.counts(_rows(), "g"))
    checked = table.filter(pl.col("checked")).select("group", "metric", "value", "passed")
    assert checked.to_dicts() == [
        {"group": "g=(missing)", "metric": "impact_ratio", "value": 0.5, "passed": False},
        {"group": "g=(missing)", "metric": "ofi", "value": -0.5, "passed": False},
    ]
    assert table.filter(pl.col("is_reference"))["group"].unique().to_list() == ["g=a"]


def test_check_text_and_json_say_the_same(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    text = runner.invoke(app, ["check", str(path), "--by", "g"])
    assert text.exit_code == 1, text.output
    lines = text.stdout.splitlines()
    assert "reference g=a (low support); 40 rows)" in lines[0]
    assert lines[1:4] == ["2 violation(s):",
                          "  g=(missing)  impact_ratio   0.5000  limit >= 0.8",
                          "  g=(missing)  ofi           -0.5000  limit |ofi| <= 0.3"]
    joined = " ".join(text.stdout.split())
    assert ("reference group: g=a (5 rows; the largest group, as no group that can be the "
            "reference has at least 30 rows (the missing group never is)) (low support)"
            ) in joined
    assert "with at least 30 rows (low support)" not in joined  # the old, false header
    js = runner.invoke(app, ["check", str(path), "--by", "g", "--format", "json"])
    result = json.loads(js.stdout)
    assert result["reference"] == "g=a"
    assert [(v["metric"], v["value"]) for v in result["violations"]] == [
        ("impact_ratio", 0.5), ("ofi", -0.5)]


def test_report_header_is_true(tmp_path: Path) -> None:
    out = runner.invoke(app, ["report", str(_csv(tmp_path)), "--by", "g"])
    assert out.exit_code == 0, out.output
    joined = " ".join(out.stdout.split())
    assert ("reference group: g=a (5 rows; the largest group, as no group that can be the "
            "reference has at least 30 rows (the missing group never is)) (low support)"
            ) in joined
    assert ("impact ratio against: g=a, the highest selection rate (0.8000) of a group, as no "
            "group that can be the reference has at least 30 rows") in joined


def test_the_html_gate_agrees(tmp_path: Path) -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    page = audit_html(_rows(), "g")
    verdict = page[page.index("<h2>Verdict"):page.index("<h2>Headline")]
    assert "the reference group is <b>a</b> (5 rows, low support)" in verdict
    assert "<td>0.500</td>" in verdict.replace('<td class="num">', "<td>")
    assert "<td>−0.500</td>" in verdict.replace('<td class="num">', "<td>")
    assert "(a, 80.0%, low support)" in verdict
    assert "(missing), 40.0%" not in verdict  # the missing group is no benchmark


def test_no_known_group_at_all_has_no_benchmark(tmp_path: Path) -> None:
    only = _rows().filter(pl.col("g").is_null())
    table = gate(polars_fair.counts(only, "g"))
    assert table["reason"].to_list() == [NO_BENCHMARK, NO_BENCHMARK]
    path = tmp_path / "only.csv"
    only.write_csv(path)
    out = runner.invoke(app, ["check", str(path), "--by", "g"])
    assert "reference none; 30 rows" in out.stdout.splitlines()[0]
