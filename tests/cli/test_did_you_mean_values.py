"""Misspelled values get "did you mean" too (issue 20, fix item 7).

A column (``--by sxe``), a choice (``--format cvs``, ``--null-groups kep``, ``--dtype
sex=strng``) and a reference group (``--reference Mael``) are suggested their close match, as
misspelled flags and arguments already were. Each suggestion is followed and works.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

ROWS = pl.DataFrame({"sex": ["Female", "Male"] * 20, "race": ["a", "a", "b", "b"] * 10,
                     "y_true": [1, 0, 0, 1] * 10, "y_pred": [1, 1, 0, 0] * 10})


def _suggestion(message: str) -> str:
    """The value suggested: a choice is written as typed, ``--format csv`` (the value follows;
    a group as the shell word --reference takes, ``--reference 'Male'``, read as the shell
    reads it)."""
    m = re.search(r"\(did you mean (.+?)(?: or [^?]*)?\?\)", message)
    assert m, message
    return shlex.split(m.group(1))[-1]


def _run(path: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["report", str(path), *args])
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("wrong", "right", "flag", "base"), [
    (["--by", "sxe"], ["--by", "{}"], "--by", []),
    (["--format", "cvs"], ["--format", "{}"], "--format", ["--by", "sex"]),
    (["--null-groups", "kep"], ["--null-groups", "{}"], "--null-groups", ["--by", "sex"]),
    (["--reference", "Mael"], ["--reference", "{}"], "--reference", ["--by", "sex"]),
    (["--dtype", "sex=strng"], ["--dtype", "sex={}"], "--dtype", ["--by", "sex"]),
])
def test_the_close_value_is_suggested_and_works(tmp_path: Path, wrong: list[str],
                                                right: list[str], flag: str,
                                                base: list[str]) -> None:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    code, err = _run(path, *base, *wrong)
    assert code == 2, err
    fixed = [a.format(_suggestion(err)) for a in right]
    code, err = _run(path, *base, *fixed)
    assert code == 0, err


def test_python_names_the_close_column_and_group() -> None:
    with pytest.raises(E.ColumnNotFoundError, match=r"\(did you mean 'sex'\?\)"):
        ROWS.fair.report("sxe")
    with pytest.raises(E.UnknownGroupError, match=r"\(did you mean 'Male'\?\)"):
        ROWS.fair.report("sex", reference="Mael")
    with pytest.raises(E.ColumnNotFoundError) as info:  # nothing close: no suggestion
        ROWS.fair.report("zzzz")
    assert "did you mean" not in str(info.value)
