"""The missing group and the text "null" never read alike (issue 19, fifth review, item 4).

Both printed ``null`` in the text table and in Markdown. A missing text value now reads
``(missing)`` there, as in every other place a group is named (docs/guarantees.md, "How a group
is named"), and a text that would read as it (``null``, ``(missing)``, or starting with ``"``)
is quoted. CSV writes a missing value as an empty field and the text as it is.

The rows, by hand: g missing on 2 rows, the text "null" on 2 rows, "(missing)" on 2 rows, a on 2
rows; every group has n = 2.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.parquet"  # parquet: a CSV reads "null" text as it is too, but
    # parquet keeps the missing value and the text apart without any reading rule
    pl.DataFrame({"g": [None, None, "null", "null", "(missing)", "(missing)", "a", "a"],
                  "h": ["x", "y"] * 4,
                  "y_true": [1, 0] * 4, "y_pred": [1, 0] * 4}).write_parquet(path)
    return path


def _run(path: Path, fmt: str) -> str:
    out = runner.invoke(app, ["report", str(path), "--by", "g", "--min-support", "1",
                              "--format", fmt, "--columns", "g,n"])
    assert out.exit_code == 0, out.output
    return out.stdout


def test_text_table(rows: Path) -> None:
    cells = re.findall(r"│ (.*?) +┆ 2 +│", _run(rows, "table"))
    assert cells == ['"(missing)"', "a", '"null"', "(missing)"]  # sorted, missing last


def test_markdown(rows: Path) -> None:
    lines = [x for x in _run(rows, "markdown").splitlines() if x.endswith("| 2 |")]
    assert lines == ['| "(missing)" | 2 |', "| a | 2 |", '| "null" | 2 |', "| (missing) | 2 |"]


def test_csv(rows: Path) -> None:
    cells = [r["g"] for r in csv.DictReader(io.StringIO(_run(rows, "csv")))]
    assert cells == ["(missing)", "a", "null", ""]  # the missing value: an empty field
    raw = _run(rows, "csv").splitlines()
    assert raw[-1] == ",2"  # no quotes: empty, not the quoted text ""


def test_a_list_cell_is_escaped_once_per_layer() -> None:
    """A list cell is written by list_text once: the element '"q' reads "\\"q" (its quote
    escaped once), never quoted again as a whole by the group rule; Markdown adds only its own
    backslash, CSV only its doubled quotes."""
    from polars_fair.cli.table import _table_text, to_csv, to_markdown

    df = pl.DataFrame({"l": [['"q', "a"]]})
    assert '│ "\\"q", a │' in _table_text(df)
    assert to_markdown(df).splitlines()[-1] == '| "\\\\"q", a |'
    rows = list(csv.reader(io.StringIO(to_csv(df))))
    assert rows == [["l"], ['"\\"q", a']]


def test_group_labels_are_not_quoted_twice(rows: Path) -> None:
    """summary's group_1/group_2 are labels already (the text "(missing)" reads '"(missing)"',
    the missing group '(missing)'): only the key columns get the group rule, so a label is
    never quoted again and a null label (no group) is not called the missing group."""
    out = runner.invoke(app, ["pairwise", str(rows), "--by", "g", "--format", "markdown",
                              "--columns", "g_i,g_j"])
    assert out.exit_code == 0, out.output
    pairs = {tuple(x.strip("| ").split(" | ")) for x in out.stdout.splitlines()[2:]}
    assert ('"(missing)"', "(missing)") in pairs and ("(missing)", '"null"') in pairs
    out = runner.invoke(app, ["summary", str(rows), "--by", "g", "--min-support", "1",
                              "--format", "table", "--columns", "metric,group_1,group_2"])
    assert out.exit_code == 0, out.output
    assert '\\"' not in out.stdout  # no label quoted a second time


# bias-audit and multiclass-report (issue 19, review of h-fix20c): the same rows. bias-audit of
# g over y_pred: every category holds 2 rows, one selected (y_pred [1, 0] per pair), so each has
# n = 2 and selected = 1; the missing category is the applicants of unknown category.


def _bias_audit(path: Path, fmt: str) -> str:
    out = runner.invoke(app, ["bias-audit", str(path), "--category", "g", "--y-pred", "y_pred",
                              "--format", fmt, "--columns", "g,n,selected"])
    assert out.exit_code == 0, out.output
    return out.stdout


def test_bias_audit_text_table(rows: Path) -> None:
    cells = re.findall(r"│ (.*?) +┆ 2 +┆ 1 +│", _bias_audit(rows, "table"))
    assert cells == ['"(missing)"', "a", '"null"', "(missing)"]  # sorted, missing last


def test_bias_audit_markdown(rows: Path) -> None:
    lines = [x for x in _bias_audit(rows, "markdown").splitlines() if x.endswith("| 2 | 1 |")]
    assert lines == ['| "(missing)" | 2 | 1 |', "| a | 2 | 1 |", '| "null" | 2 | 1 |',
                     "| (missing) | 2 | 1 |"]


def test_bias_audit_csv_and_json(rows: Path) -> None:
    text = _bias_audit(rows, "csv")
    body = [x for x in text.splitlines() if not x.startswith("#")]
    cells = [r["g"] for r in csv.DictReader(io.StringIO("\n".join(body)))]
    assert cells == ["(missing)", "a", "null", ""]  # the missing value: an empty field
    assert body[-1] == ",2,1"  # empty, not the quoted text ""
    import json

    results = json.loads(_bias_audit(rows, "json"))["results"]
    assert [r["g"] for r in results] == ["(missing)", "a", "null", None]


def test_multiclass_report_text_and_markdown(rows: Path) -> None:
    """multiclass-report over y_pred as two classes 0 and 1: two rows per group."""
    args = ["multiclass-report", str(rows), "--by", "g", "--y-true", "y_true", "--y-pred",
            "y_pred", "--columns", "g,class,n"]
    out = runner.invoke(app, [*args, "--format", "table"])
    assert out.exit_code == 0, out.output
    cells = re.findall(r"│ (.*?) +┆ 0 +┆ 2 +│", out.stdout)
    assert cells == ['"(missing)"', "a", '"null"', "(missing)"]
    out = runner.invoke(app, [*args, "--format", "markdown"])
    assert out.exit_code == 0, out.output
    lines = [x for x in out.stdout.splitlines() if x.endswith("| 1 | 2 |")]
    assert lines == ['| "(missing)" | 1 | 2 |', "| a | 1 | 2 |", '| "null" | 1 | 2 |',
                     "| (missing) | 1 | 2 |"]


def test_ll144_page_names_the_missing_category_as_every_way_out(rows: Path) -> None:
    """The LL 144 page spelled the missing category "(unknown)" and the text "(missing)" as it
    is: now the missing one reads (missing), the text "(missing)" quoted, "null" as it is (it
    reads like no missing value on the page). By hand, g alone: "(missing)", a, null, missing
    (sorted, missing last); g × h (h: x on the first row of each pair, y on the second) adds
    " × x" and " × y" to each."""
    out = runner.invoke(app, ["bias-audit", str(rows), "--category", "g", "--category", "h",
                              "--y-pred", "y_pred", "--format", "html"])
    assert out.exit_code == 0, out.output
    cells = re.findall(r"<tr><td>(.*?)</td>", out.stdout)
    one = ["&quot;(missing)&quot;", "a", "null", "(missing)"]
    assert cells == [*one, "x", "y", *(f"{c} × {h}" for c in one for h in ("x", "y"))]
    assert "(unknown)" not in out.stdout


def test_ll144_label_quotes_a_text_holding_the_intersection_separator() -> None:
    from polars_fair.cli.ll144 import _label

    # "a × b" in an intersection would read as two categories: quoted; alone it is kept
    assert _label({"g": "a × b", "h": "c"}, ["g", "h"]) == '"a × b" × c'
    assert _label({"g": "a × b"}, ["g"]) == "a × b"
    assert _label({"g": None, "h": '"q'}, ["g", "h"]) == '(missing) × "\\"q"'
