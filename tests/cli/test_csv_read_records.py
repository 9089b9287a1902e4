"""Issue 19 kind 7, re-review: the CSV rows Python's csv module counts are the rows Polars reads.

The command line reads a CSV once more with :mod:`csv` to find blank lines and rows cut short
(:mod:`polars_fair.cli.csv_read`). A field longer than the csv module's limit (131,072
characters) gave a raw ``field larger than field limit``; a line holding ``""`` was taken for a
blank line (it is a row of one empty quoted field, as pandas reads it); a lone ``\\r`` inside
a field ended a line (Polars keeps it in the field), so a row looked cut short; the advice of a
short row in a tab-separated file showed commas.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.csv_read import blank_lines, short_field_fault
from polars_fair.cli.entry import app

runner = CliRunner()


def _report(path: Path) -> dict[str, tuple[int, int]]:
    result = runner.invoke(app, ["report", str(path), "--by", "g", "--min-support", "1",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    return {r["g"]: (r["n"], r["tp"]) for r in json.loads(result.stdout)}


def test_a_field_longer_than_the_csv_module_limit_is_read(tmp_path: Path) -> None:
    # 200,000 > 131,072 characters in one note; the empty last note makes the command read
    # the file again for short rows, the trailing blank line for blank lines. By hand:
    # a (1, 1): n 1, tp 1; b (0, 1): n 1, tp 0
    path = tmp_path / "long.csv"
    path.write_text("y_true,y_pred,g,note\n1,1,a," + "x" * 200_000 + "\n0,1,b,\n\n")
    assert _report(path) == {"a": (1, 1), "b": (1, 0)}
    assert short_field_fault(path, ",") is None
    assert blank_lines(path, ",") == ([2], 1)  # the third line after the header, at the end


def test_a_line_holding_an_empty_quoted_field_is_a_row(tmp_path: Path) -> None:
    # after the header: row 0 'a,1', row 1 '""' (one field, not blank), row 2 '' (blank),
    # row 3 'b,0'; so one blank line at position 2, none at the end, and line 3 ('""') is a
    # row of 1 field, fewer than the header's 2
    path = tmp_path / "rows.csv"
    path.write_text('g,y\na,1\n""\n\nb,0\n')
    assert blank_lines(path, ",") == ([2], 0)
    assert short_field_fault(path, ",") == (3, 1, 2)
    # the command refuses that row with its line, as any row cut short
    path.write_text('y_true,y_pred,g\n1,0,a\n""\n0,1,b\n')
    result = runner.invoke(app, ["report", str(path), "--by", "g", "--format", "json"])
    assert result.exit_code == 2, result.output
    assert json.loads(result.stdout)["message"] == E.CSV_SHORT_FIELDS.format(
        path="rows.csv", line=3, found=1, expected=3, empty="a,,b")


def test_a_lone_carriage_return_stays_inside_its_field(tmp_path: Path) -> None:
    # 'b\rc' is one value (Polars reads it so); the empty g of the last row makes the command
    # look for short rows: none. By hand: 'b\rc' (1, 0): n 1, tp 0; a (1, 1): n 1, tp 1;
    # the missing group (0, 1): n 1, tp 0
    path = tmp_path / "cr.csv"
    path.write_bytes(b"y_true,y_pred,g\r\n1,0,b\rc\r\n1,1,a\n0,1,\n")
    assert short_field_fault(path, ",") is None
    assert blank_lines(path, ",") == ([], 0)
    assert _report(path) == {"b\rc": (1, 0), "a": (1, 1), None: (1, 0)}


def test_the_short_row_advice_of_a_tsv_shows_its_separator(tmp_path: Path) -> None:
    # line 3 has 2 fields, the header 3; the example of an empty field is a, two tabs, b,
    # written as --separator spells a tab
    path = tmp_path / "rows.tsv"
    path.write_text("y_true\ty_pred\tg\n1\t0\ta\n1\t0\n")
    result = runner.invoke(app, ["report", str(path), "--by", "g", "--format", "json"])
    assert result.exit_code == 2, result.output
    message = json.loads(result.stdout)["message"]
    assert message == E.CSV_SHORT_FIELDS.format(path="rows.tsv", line=3, found=2, expected=3,
                                                empty="a\\t\\tb")
    assert "a,,b" not in message and "(an empty field is nothing between two separators: " \
        "a\\t\\tb)" in message
