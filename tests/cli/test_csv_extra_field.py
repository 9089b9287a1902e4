"""A CSV row with more fields than the header names the file and its line, no value.

Issue 19, fourth review, item 8: Polars' "found more fields than defined in 'Schema'" named
neither. The line is counted by reading the file as CSV (a quoted field may span lines).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()


#: Two commands that read the rows differently (every column; some columns).
COMMANDS = [["report", "--by", "g"], ["bias-audit", "--category", "g", "--y-pred", "y_pred"]]


def file_name(content: str) -> str:
    """A tab-separated content is a .tsv file, any other a .csv."""
    return "rows.tsv" if "\t" in content else "rows.csv"


def refused(tmp_path: Path, content: str, command: list[str]) -> tuple[str, str]:
    """The message of the InvalidInputError ``command`` gives on a file of ``content``."""
    path = tmp_path / file_name(content)
    path.write_text(content)
    result = runner.invoke(app, [command[0], str(path), *command[1:], "--format", "json"])
    assert result.exit_code == 2, result.output
    error = json.loads(result.stdout)
    assert error["error"] == "InvalidInputError"
    return str(error["message"]), result.output


@pytest.mark.parametrize(("content", "line", "found"), [
    # header is line 1; the fourth line holds a fourth field
    ("g,y_true,y_pred\na,1,1\nb,0,1\na,1,0,Ann Madeup\n", 4, 4),
    # a quoted field spanning lines 3-4 is one row: the extra field's row starts at line 5
    ('g,y_true,y_pred\na,1,1\n"b\nc",0,1\nd,1,0,Ann,Madeup\n', 5, 5),
    # tab-separated (.tsv): a comma is no separator, a tab is
    ("g\ty_true\ty_pred\na\t1\t1\nb,x\t0\t1\t\n", 3, 4),
])
@pytest.mark.parametrize("command", COMMANDS)
def test_the_file_and_the_line_are_named(tmp_path: Path, content: str, line: int, found: int,
                                         command: list[str]) -> None:
    message, output = refused(tmp_path, content, command)
    assert message == E.CSV_EXTRA_FIELDS.format(path=file_name(content), line=line,
                                                found=found, expected=3)
    assert "Ann" not in output and "Madeup" not in output
