"""One rule for an undefined impact ratio and for ABROCA's support (issue 20 fix, item 3).

An impact ratio of 0/0 (no group selected) is not a pass: ``check`` fails the group, and
``report`` now says "undefined impact ratio" instead of "none", on every path of the report
(exact counts, weighted counts, eager, lazy, streaming). ``check --max-abroca`` judges a
group's ABROCA only when it has ``min_support`` positives and negatives, the audit page's rule.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

import polars_fair
from polars_fair.analyses.report import FINDING_MEANINGS, FINDINGS
from polars_fair.audit import gate as G
from polars_fair.audit.gate import LOW_CLASS_SUPPORT, gate, verdict
from polars_fair.cli.entry import app
from tests.conftest import Runner

runner = CliRunner()

#: a and b: 40 rows each, half positive, nobody selected: every impact ratio is 0/0.
NOBODY = pl.DataFrame({"g": ["a"] * 40 + ["b"] * 40, "y_true": [1, 0] * 40, "y_pred": [0] * 80,
                       "w": [1.5] * 80})


def test_report_and_gate_say_the_same_of_an_undefined_impact_ratio(run: Runner) -> None:
    assert "undefined impact ratio" in FINDINGS and "undefined impact ratio" in FINDING_MEANINGS
    out = run(NOBODY, "report", "g")
    assert out["impact_ratio"].to_list() == [None, None]
    assert out["finding"].to_list() == ["undefined impact ratio"] * 2
    table = gate(polars_fair.counts(NOBODY, "g"))
    ir = table.filter(pl.col("metric") == "impact_ratio")
    assert ir.select("g", "passed", "reason").rows() == [("a", False, "0/0"), ("b", False, "0/0")]
    assert verdict(table) is False


def test_the_weighted_report_reads_the_same_rule() -> None:
    out = NOBODY.fair.report("g", sample_weight="w")
    assert out["finding"].to_list() == ["undefined impact ratio"] * 2


def test_a_defined_ratio_still_reads_none() -> None:
    some = NOBODY.with_columns(y_pred=pl.int_range(80) % 2)  # both groups select half
    assert some.fair.report("g")["finding"].to_list() == ["none", "none"]


def test_the_gate_judges_abroca_by_the_pages_rule(tmp_path: Path) -> None:
    # a: 40 rows, 30 positives and 10 negatives; b: 40 rows, 20 and 20; c: 40 rows, 20 and 20
    rows = pl.DataFrame({
        "g": ["a"] * 40 + ["b"] * 40 + ["c"] * 40,
        "y_true": [1] * 30 + [0] * 10 + [1, 0] * 40,
        "y_score": [0.9] * 30 + [0.1] * 10 + [0.8, 0.2] * 20 + [0.6, 0.4] * 20,
    }).with_columns(y_pred=(pl.col("y_score") >= 0.5).cast(pl.Int64))
    table = gate(polars_fair.counts(rows, "g"), polars_fair.scores(rows, "g"), reference="b",
                 max_abroca=0.05, min_support=20)
    ab = table.filter(pl.col("metric") == "abroca").select("g", "checked", "reason").rows()
    # a: 10 negatives < 20, not judged; b the reference; c: 20 and 20, judged
    assert ab == [("a", False, LOW_CLASS_SUPPORT.format(min_support=20.0)),
                  ("b", False, "reference group"), ("c", True, None)]
    counts = pl.DataFrame({"positives": [30, 20], "negatives": [10, 20]})
    assert counts.select(G.testable(20)).to_series().to_list() == [False, True]
    path = tmp_path / "rows.csv"
    rows.write_csv(path)
    result = runner.invoke(app, ["check", str(path), "--by", "g", "--reference", "b",
                                 "--y-score", "y_score", "--max-abroca", "0.05",
                                 "--min-support", "20", "--format", "json"])
    assert json.loads(result.stdout)["skipped_abroca"] == ["g=a"]
    text = runner.invoke(app, ["check", str(path), "--by", "g", "--reference", "b",
                               "--y-score", "y_score", "--max-abroca", "0.05",
                               "--min-support", "20"])
    assert "ABROCA not checked (fewer than 20 positives or negatives): g=a" in text.stdout
