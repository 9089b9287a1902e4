"""SQL date functions on the command line (issue 19, fifth review, item 5).

``--by "DATE(dt)"`` was refused as "not a row-level expression" with a Polars expression in the
message. Polars' ``DATE(x)`` without a format guesses the format from the column's values (one
row's date depends on the others), so it stays refused, now in SQL words with SQL that works;
each suggested form is run here and gives the groups worked out by hand: the two days
2024-01-01 (2 rows) and 2024-01-02 (2 rows).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    # g (a, b, a, b) is read by tests/cli/test_sql_dates_nested.py, which shares the file
    path.write_text("dt,g,y_true,y_pred\n2024-01-01 10:00:00,a,1,1\n2024-01-01 11:00:00,b,0,1\n"
                    "2024-01-02 10:00:00,a,1,0\n2024-01-02 12:00:00,b,0,0\n")
    return path


def _groups(path: Path, by: str, *extra: str) -> list[str]:
    out = runner.invoke(app, ["report", str(path), "--by", by, "--min-support", "1",
                              "--format", "csv", "--columns", "n", *extra])
    assert out.exit_code == 0, out.output
    return out.stdout.splitlines()


def test_date_without_a_format_is_refused_in_sql_words(rows: Path) -> None:
    out = runner.invoke(app, ["report", str(rows), "--by", "DATE(dt)"])
    assert out.exit_code == 2
    message = out.stderr.strip()
    assert message == (
        "polars-fair: error: --by 'DATE(dt)' is not a row-level expression: DATE(dt) without a "
        "format guesses the format from the column's values, so one row's value depends on the "
        "others; give the format, DATE(dt, '%Y-%m-%d') (DATE(SUBSTR(dt, 1, 10), '%Y-%m-%d') "
        "for a date and time written as text), or CAST(dt AS DATE) for a column read as a "
        "date-time (--dtype dt=datetime)")
    assert "col(" not in message  # no Polars expression shown


def test_every_suggestion_runs(rows: Path) -> None:
    assert _groups(rows, "DATE(SUBSTR(dt, 1, 10), '%Y-%m-%d')") == ["n", "2", "2"]
    assert _groups(rows, "CAST(dt AS DATE)", "--dtype", "dt=datetime") == ["n", "2", "2"]
    # the full date-time format: DATE keeps the day of each row
    assert _groups(rows, "DATE(dt, '%Y-%m-%d %H:%M:%S')") == ["n", "2", "2"]


def test_a_cast_of_text_to_a_date_is_advised_in_sql(rows: Path) -> None:
    out = runner.invoke(app, ["report", str(rows), "--by", "CAST(dt AS DATE)"])
    assert out.exit_code == 2
    assert out.stderr.strip() == (
        # every one of the 4 values is text, which Polars never casts to a date: 4 of 4
        "polars-fair: error: --by 'CAST(dt AS DATE)': 4 of 4 values of column 'dt' cannot be "
        "cast from string to date: Polars does not cast string to date; write DATE(dt, "
        "'%Y-%m-%d') with the format of the text instead")
