"""A --by named like a report output column gets the typed clash error with advice that runs.

The command line built its report from the count table directly and met Polars' duplicate-name
error (``report --by tpr``), while ``df.fair.report("tpr")`` raised the typed clash; the command
now asks the same check (:func:`polars_fair.analyses.runner.check_outputs`).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


def test_a_by_named_like_an_output_is_told_and_the_advice_runs(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    # tpr (the attribute) a, b alternate; a: rows 0, 2, ..., 18; b: the odd rows
    pl.DataFrame({"tpr": ["a", "b"] * 10, "y_true": [1] * 20,
                  "y_pred": [1, 1, 0, 1] * 5}).write_csv(path)
    result = runner.invoke(app, ["report", str(path), "--by", "tpr"])
    assert result.exit_code == 2
    text = " ".join(result.stderr.split())
    assert "attribute name(s) ['tpr'] clash with output column(s)" in text, text
    assert "duplicate" not in text
    advice = text.split("for example ")[1]
    words = shlex.split(advice)
    assert words[0] == "--by"
    result = runner.invoke(app, ["report", str(path), "--by", words[1], "--format", "csv",
                                 "--min-support", "1", "--columns", "tpr_attr,tp,fn"])
    assert result.exit_code == 0, result.stderr
    rows = pl.read_csv(result.stdout.encode(), comment_prefix="#").sort("tpr_attr").rows()
    # by hand: y_pred repeats 1, 1, 0, 1; a takes positions 0, 2 (1, 0) five times: tp 5, fn 5;
    # b takes positions 1, 3 (1, 1): tp 10, fn 0 (every label is 1)
    assert rows == [("a", 5, 5), ("b", 10, 0)]


def _advice(stderr: str) -> list[str]:
    text = " ".join(stderr.split())
    assert "duplicate" not in text and "table.rename" not in text, text
    return shlex.split(text.split("for example ")[1])


def test_check_and_bias_audit_advise_their_own_flag_and_it_runs(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    rows = pl.DataFrame({"tpr": ["a", "b"] * 10, "y_true": [1] * 20,
                         "y_pred": [1, 1, 0, 1] * 5})
    rows.write_csv(path)
    # check: the gate's table came from the rows, so the advice renames --by, not a table
    result = runner.invoke(app, ["check", str(path), "--by", "tpr", "--min-support", "1"])
    assert result.exit_code == 2
    flag, sql = _advice(result.stderr)
    assert flag == "--by"
    result = runner.invoke(app, ["check", str(path), "--by", sql, "--min-support", "1",
                                 "--format", "json"])
    # by hand: a selects 5 of 10, b 10 of 10: impact ratio 0.5 < 0.8, a failed check (exit 1)
    assert result.exit_code == 1, result.stderr
    assert '"tpr_attr"' in result.stdout
    # bias-audit: the attribute came from --category, which the advice names
    other = tmp_path / "s.csv"
    rows.rename({"tpr": "selection_rate"}).write_csv(other)
    result = runner.invoke(app, ["bias-audit", str(other), "--category", "selection_rate",
                                 "--y-pred", "y_pred"])
    assert result.exit_code == 2
    flag, sql = _advice(result.stderr)
    assert flag == "--category"
    result = runner.invoke(app, ["bias-audit", str(other), "--category", sql, "--y-pred",
                                 "y_pred", "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    table = pl.read_csv(result.stdout.encode(), comment_prefix="#").sort("selection_rate_attr")
    # by hand: a 5 of 10 selected (0.5), b 10 of 10 (1.0)
    assert table["selection_rate"].to_list() == [0.5, 1.0]
