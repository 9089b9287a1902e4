"""Issue 19 kind 7, sixth review: the command line's guards are the library's.

A Decimal attribute read with ``--dtype m=decimal(10,3)`` is judged as the same values read as
Float64 are. A CSV row with fewer fields than the header is refused with its line, as a row
with more is (Polars read its missing fields as empty: a row of the missing group). A
``--reference`` value holding ``,<column>=`` for a column not audited names that column when no
group has the value, as Python's refusal of such a mapping names the attributes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app
from tests.cli.test_csv_extra_field import COMMANDS, file_name, refused

runner = CliRunner()


def _error(args: list[str]) -> dict[str, str]:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 2, result.output
    out: dict[str, str] = json.loads(result.stdout)
    return out


def test_a_decimal_dtype_attribute_is_judged_as_a_float(tmp_path: Path) -> None:
    # 60 values 0.0 ... 5.9 of two rows each: 60 > 50 values of a number in 120 rows
    path = tmp_path / "rows.csv"
    path.write_text("m,y_true,y_pred\n" + "".join(
        f"{i / 10:.1f},{y},1\n" for i in range(60) for y in (1, 0)))
    as_float = _error(["report", str(path), "--by", "m", "--dtype", "m=float64"])
    as_decimal = _error(["report", str(path), "--by", "m", "--dtype", "m=decimal(10,3)"])
    assert as_decimal["error"] == as_float["error"] == "TooManyLevelsError"
    assert as_decimal["message"].startswith(
        "attribute 'm' is a Decimal(precision=10, scale=3) column with 60 distinct values in "
        "120 rows: more than 50 values of a number")
    assert as_decimal["message"] == as_float["message"].replace(
        "Float64", "Decimal(precision=10, scale=3)")
    # the advice followed: the divergence of five quantile bins of 24 rows each
    result = runner.invoke(app, ["divergence", str(path), "--by", "m", "--dtype",
                                 "m=decimal(10,3)", "--bins", "m=5", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [row["n"] for row in json.loads(result.stdout)] == [24] * 5
    assert "--bins m=5" in as_decimal["message"]
    assert E.WHY_FLOAT_LEVELS.format(limit=50) in as_decimal["message"]


# ------------------------------------------------------------------ CSV rows cut short
@pytest.mark.parametrize(("content", "line", "found"), [
    # the review's example: header y_true,y_pred,g (3 fields), line 3 holds 2
    ("y_true,y_pred,g\n1,0,a\n1,0\n0,1,b\n", 3, 2),
    # a quoted field spanning lines 3-4 is one row of 3 fields; line 5 holds 1 field
    ('y_true,y_pred,g\n1,0,a\n1,0,"Jane\nMadeup"\n0\n', 5, 1),
    # the short row last, without a final line break, after a blank line (no row)
    ("y_true,y_pred,g\n1,0,a\n\n0,Jane", 4, 2),
    # tab-separated: a comma is no separator, so "1,0" is one field
    ("y_true\ty_pred\tg\n1\t0\ta\n1,0\n", 3, 1),
])
@pytest.mark.parametrize("command", COMMANDS)
def test_a_row_with_fewer_fields_is_refused_with_its_line(
        tmp_path: Path, content: str, line: int, found: int, command: list[str]) -> None:
    message, output = refused(tmp_path, content, command)
    # the example of an empty field uses the file's separator, a tab as --separator spells it
    empty = "a\\t\\tb" if "\t" in content else "a,,b"
    assert message == E.CSV_SHORT_FIELDS.format(path=file_name(content), line=line,
                                                found=found, expected=3, empty=empty)
    assert "Jane" not in output and "Madeup" not in output


def test_the_short_row_advice_works_when_followed(tmp_path: Path) -> None:
    # the advice: write the missing field (an empty one: 1,0,); the row is then the missing
    # group, n = 1 beside a (n = 1) and b (n = 1)
    path = tmp_path / "rows.csv"
    path.write_text("y_true,y_pred,g\n1,0,a\n1,0\n0,1,b\n")
    assert "write the missing fields at line 3" in _error(["report", str(path), "--by", "g"])[
        "message"]
    path.write_text("y_true,y_pred,g\n1,0,a\n1,0,\n0,1,b\n")
    result = runner.invoke(app, ["report", str(path), "--by", "g", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [(r["g"], r["n"]) for r in json.loads(result.stdout)] == [("a", 1), ("b", 1),
                                                                    (None, 1)]


@pytest.mark.parametrize("content", [
    "y_true,y_pred,g\n1,0,a\n0,1,b\n\n",  # a trailing empty line
    "y_true,y_pred,g\n1,0,a\n  \n0,1,b\n",  # a line of spaces
    "y_true,y_pred,g\n1,0,\n0,1,b\n",  # an empty last field: 3 fields
    'y_true,y_pred,g\n1,0,""\n0,1,"b\n"\n',  # a quoted empty field, a field with a line break
])
def test_a_blank_line_or_an_empty_field_is_no_short_row(tmp_path: Path, content: str) -> None:
    from polars_fair.cli.csv_read import short_field_fault

    path = tmp_path / "rows.csv"
    path.write_text(content)
    assert short_field_fault(path, ",") is None


def test_the_file_is_read_again_only_when_its_last_column_holds_a_null(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from polars_fair.cli import csv_read, io

    reads: list[Path] = []
    real = csv_read.short_field_fault
    monkeypatch.setattr(csv_read, "short_field_fault",
                        lambda path, sep: reads.append(path) or real(path, sep))
    full = tmp_path / "full.csv"
    full.write_text("y_true,y_pred,g\n1,0,a\n0,1,b\n")
    io.scan(full)
    assert reads == []  # no null in g: no row is short, the file is read once
    empty = tmp_path / "empty.csv"
    empty.write_text("y_true,y_pred,g\n1,0,a\n0,1,\n")
    io.scan(empty)
    assert reads == [empty]  # an empty g: read once more, and no row is short


# ------------------------------------------------------------------ --reference, not audited
# g audited; zz a column of the input that is not; one row's g is the text "a,zz=q"
REFERENCE_ROWS = "y_true,y_pred,g,zz\n1,0,a,q\n0,1,b,q\n1,1,a,r\n0,0,b,r\n1,1,\"a,zz=q\",r\n"


@pytest.mark.parametrize(("given", "shown"), [
    ("g=a,zz=r", "g=\"a,zz=r\""),  # the attribute's form
    ("a,zz=r", "\"a,zz=r\""),  # the bare value of one attribute
    ("g=a, zz =r", "g=\"a, zz =r\""),  # spaces around the name, as the split reads them
])
def test_a_column_not_audited_in_the_reference_is_named(tmp_path: Path, given: str,
                                                        shown: str) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(REFERENCE_ROWS)
    error = _error(["report", str(path), "--by", "g", "--reference", given])
    # by the quoting rule the value is "a,zz=r" (no such group); zz is a column, not audited,
    # as Python's refusal of {'g': 'a', 'zz': 'r'} says (the attributes are ['g'])
    assert error["error"] == "UnknownGroupError"
    assert error["message"].startswith(f"--reference '{shown}' names no group")
    assert error["message"].endswith(E.CLI_REFERENCE_NOT_AUDITED.format(
        names="'zz'", attributes="'g'"))


@pytest.mark.parametrize("given", ['g="a,zz=r"', "g=c,d"])
def test_a_quoted_value_or_a_word_that_is_no_column_gets_no_note(tmp_path: Path,
                                                                 given: str) -> None:
    # quoted, the value is taken as written; d is no column of the input
    path = tmp_path / "rows.csv"
    path.write_text(REFERENCE_ROWS)
    error = _error(["report", str(path), "--by", "g", "--reference", given])
    assert error["error"] == "UnknownGroupError"
    assert "not an audited attribute" not in error["message"]


def test_a_group_that_holds_the_text_is_still_the_reference(tmp_path: Path) -> None:
    # the group "a,zz=q" exists (one row): it is the reference, no error
    path = tmp_path / "rows.csv"
    path.write_text(REFERENCE_ROWS)
    result = runner.invoke(app, ["report", str(path), "--by", "g", "--reference", "g=a,zz=q",
                                 "--min-support", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["g"] for r in rows if r["is_reference"]] == ["a,zz=q"]


# ------------------------------------------------------------------ blank lines of a CSV
_ROWS = ["a,1,0", "b,0,1", "a,1,1", "b,0,0"]


def _report(path: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["report", str(path), "--by", "g", "--min-support", "1",
                                      "--format", "json"])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(("body", "warned"), [
    ("\n".join(_ROWS) + "\n\n", None),  # a trailing blank line: no row, nothing said
    ("\n".join(_ROWS) + "\n\n  \n", None),  # two at the end, one of spaces
    ("\n".join(_ROWS[:2]) + "\n\n\n" + "\n".join(_ROWS[2:]) + "\n", 2),  # two between rows
])
def test_blank_lines_are_no_rows(tmp_path: Path, body: str, warned: int | None) -> None:
    # issue 19: Polars read a blank line as a row of missing fields, so a file ending with an
    # empty line was refused for "1 missing value" of y_true. By hand, the four rows give
    # a: (1, 0) and (1, 1): tp 1, fn 1; b: (0, 1) and (0, 0): fp 1, tn 1
    path = tmp_path / "blank.csv"
    path.write_text("g,y_true,y_pred\n" + body)
    code, out, err = _report(path)
    assert code == 0, err
    got = {r["g"]: (r["n"], r["tp"], r["fp"], r["fn"], r["tn"]) for r in json.loads(out)}
    assert got == {"a": (2, 1, 0, 1, 0), "b": (2, 0, 1, 0, 1)}
    if warned is None:
        assert "blank line" not in err
    else:
        assert E.CSV_BLANK_LINES.format(path="blank.csv", count=warned) in err


def test_a_row_of_empty_fields_is_a_row(tmp_path: Path) -> None:
    # ",," is a row whose three fields are empty (missing), not a blank line: its missing
    # label is refused as before (1 missing value), with or without a blank line elsewhere
    # in the file (that one is no row: not counted among the missing)
    for extra in ("", "\n"):
        path = tmp_path / "empty.csv"
        path.write_text("g,y_true,y_pred\n" + "\n".join(_ROWS[:2]) + "\n,,\n" + extra
                        + "\n".join(_ROWS[2:]) + "\n")
        code, _, err = _report(path)
        assert code == 2
        assert "column 'y_true' (--y-true) holds 1 missing value(s)" in err, err
