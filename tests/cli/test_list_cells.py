"""A list cell reads as its elements, whatever they hold (issue 19, fourth review, item 3).

Lists of groups (``undefined_groups``) were joined with ", " in CSV, Markdown and the text table,
so the groups "x, y", "x" and "y" read as four. One rule now writes every list cell
(:func:`polars_fair.core.labels.list_text`): an element holding ", " or starting with a double
quote is written in double quotes, ``\\`` and ``"`` escaped.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.core.labels import list_text

runner = CliRunner()


def _rows(tmp_path: Path) -> Path:
    # no positive label anywhere: every group's TPR is undefined, so all three are listed
    path = tmp_path / "rows.csv"
    path.write_text('g,y_true,y_pred\n"x, y",0,1\n"x, y",0,0\nx,0,1\nx,0,0\ny,0,1\ny,0,0\n')
    return path


def _split(cell: str) -> list[str]:
    """The elements of a list cell, read back by the documented rule."""
    out, i = [], 0
    while i < len(cell):
        if cell[i] == '"':
            j, text = i + 1, ""
            while cell[j] != '"':
                text += cell[j + 1] if cell[j] == "\\" else cell[j]
                j += 2 if cell[j] == "\\" else 1
            out.append(text)
            i = j + 1 + len(", ")
        else:
            j = cell.find(", ", i)
            j = len(cell) if j < 0 else j
            out.append(cell[i:j])
            i = j + len(", ")
    return out


def test_the_rule_reads_back_what_it_wrote() -> None:
    for values in (["x, y", "x", "y"], ['"q', "a\\b, c", 'e"'], ["", ", ", '"']):
        assert _split(list_text(values)) == values


@pytest.mark.parametrize("fmt", ["csv", "markdown", "table"])
def test_three_groups_read_as_three(tmp_path: Path, fmt: str) -> None:
    result = runner.invoke(app, ["summary", str(_rows(tmp_path)), "--by", "g",
                                 "--min-support", "1", "--format", fmt,
                                 "--columns", "metric,undefined_groups"])
    assert result.exit_code == 0, result.output
    expected = 'x, "x, y", y'  # sorted groups: x < "x, y" < y; the middle one quoted
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(result.stdout, newline="")))
        cells = {r["metric"]: r["undefined_groups"] for r in rows}
        assert cells["equal_opportunity_difference"] == expected
        assert sorted(_split(expected)) == ["x", "x, y", "y"]
    else:
        line = next(x for x in result.stdout.splitlines() if "equal_opportunity_diff" in x)
        assert expected in line, line
