"""A column named like an argument stays a column in messages (issue 20, fix item 8).

cli_message writes the library's argument names as flags (``min_support`` -> ``--min-support``);
a column of the input named ``y_score`` or ``min_support``, written bare in an unrelated
message, is a column and stays as it is. The advice that names it is followed.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.cli.io import cli_message, forget_sql_names, note_columns

runner = CliRunner()


def test_an_input_column_is_left_and_an_argument_is_written_as_a_flag() -> None:
    forget_sql_names()
    assert cli_message("min_support must be >= 0") == "--min-support must be >= 0"
    note_columns(["y_score", "g"])
    try:
        assert cli_message("the score itself as --y-score y_score with --threshold") == (
            "the score itself as --y-score y_score with --threshold")
        # an argument that is no column is still a flag
        assert cli_message("min_support must be >= 0") == "--min-support must be >= 0"
    finally:
        forget_sql_names()


def test_the_score_advice_names_the_column_and_works(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    pl.DataFrame({"g": ["a", "b", "a", "b"], "y_true": [1, 0, 0, 1],
                  "y_score": [0.2, 0.7, 0.4, 0.9]}).write_csv(path)
    result = runner.invoke(app, ["report", str(path), "--by", "g", "--y-pred", "y_score"])
    assert result.exit_code == 2
    assert "the score itself as --y-score y_score with --threshold" in result.stderr
    assert "--y-score --y-score" not in result.stderr
    ok = runner.invoke(app, ["report", str(path), "--by", "g", "--y-score", "y_score",
                             "--threshold", "0.5", "--min-support", "1", "--format", "csv"])
    assert ok.exit_code == 0, ok.stderr
    out = pl.read_csv(ok.stdout.encode())
    # a: 0.2, 0.4 -> none selected; b: 0.7, 0.9 -> both selected
    assert out["selection_rate"].to_list() == [0.0, 1.0]
