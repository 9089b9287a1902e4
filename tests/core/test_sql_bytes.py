"""Issue 19, kind 2: the bytes a SQL option can build over every row are bounded absolutely.

``sql_growth`` and ``sql_text`` bound one value relative to its longest input cell: on a 10 MB
CSV of 200-character notes, ``--y-pred "LENGTH(CONCAT(note, note, ... x999)) > 3"`` and
``REPLACE(note, 'z', '<999 z>')`` passed them and aborted the process. A text that grows a value
is now measured (rows, longest cell of the columns it reads) by one cheap query, and
``rows x (growth x longest + own characters)`` must stay under ``sql_bytes`` (1,000,000,000).
Every file here is 1.2 MB at most; each refusal comes before any row is evaluated.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.core.limits import LIMITS
from polars_fair.core.sql import check_built_bytes

ROWS, NOTE = 6_000, 200
CONCAT_999 = "LENGTH(CONCAT(" + ", ".join(["note"] * 999) + ")) > 3"
REPLACE_999 = "LENGTH(REPLACE(note, 'z', '" + "z" * 999 + "')) > 3"


def _notes(tmp_path: Path) -> Path:
    path = tmp_path / "notes.csv"
    pl.DataFrame({"g": ["a", "b"] * (ROWS // 2), "y": [0, 1] * (ROWS // 2),
                  "note": ["z" * NOTE] * ROWS}).write_csv(path)
    return path


def test_the_limit_is_declared() -> None:
    assert LIMITS["sql_bytes"].limit == 1_000_000_000


def test_the_reviewers_concat_is_refused_on_the_cli(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["confusion", str(_notes(tmp_path)), "--by", "g",
                                      "--y-true", "y", "--y-pred", CONCAT_999,
                                      "--format", "json"])
    assert result.exit_code == 2, result.stdout
    error = json.loads(result.stdout)
    assert error["error"] == "SizeLimitError"
    # by hand: 999 notes of 200 bytes, and the literal '3' (1 character) -> 199,801 bytes a
    # row; 6,000 rows -> 1,198,806,000 > 1,000,000,000
    assert "one of its values can hold 999 times the longest cell of 'note' (200 bytes) and 1 " \
        "characters of its own, 1,198,806,000 bytes over the 6,000 rows, more than its limit " \
        "sql_bytes 1,000,000,000" in error["message"]
    assert error["message"].startswith("--y-pred: ")


def test_the_reviewers_replace_is_refused(tmp_path: Path) -> None:
    lf = pl.scan_csv(_notes(tmp_path))
    with pytest.raises(E.SizeLimitError) as err:
        check_built_bytes(lf, [("--y-pred", REPLACE_999)])
    # by hand: 'z' -> 999 z grows a note ceil(999 / 1) = 999 times; the literal of 999
    # characters is a value of its own -> 6,000 x (999 x 200 + 999) = 1,204,794,000
    assert "999 times the longest cell of 'note' (200 bytes) and 999 characters of its own, " \
        "1,204,794,000 bytes over the 6,000 rows" in str(err.value)


def test_the_same_text_passes_over_fewer_rows() -> None:
    # 5,000 rows: 5,000 x (999 x 200 + 1) = 999,005,000 <= 1,000,000,000
    lf = pl.LazyFrame({"note": ["z" * NOTE] * 5_000})
    check_built_bytes(lf, [("--y-pred", CONCAT_999)])


def test_a_text_that_grows_nothing_reads_no_row() -> None:
    def boom(s: pl.Series) -> pl.Series:
        raise AssertionError("a row was read")

    lf = pl.LazyFrame({"note": ["a"]}).with_columns(
        pl.col("note").map_batches(boom, return_dtype=pl.String))
    # one cell and at most 64 characters of its own: not measured, so boom never runs
    check_built_bytes(lf, [("--where", "note = 'a' AND LENGTH(CONCAT(note, 'x')) > 1")])
    with pytest.raises(AssertionError, match="a row was read"):  # a growing one is measured
        check_built_bytes(lf, [("--where", "LENGTH(CONCAT(note, note)) > 1")])


def test_a_number_column_counts_64_bytes_a_cell() -> None:
    # 8,000 rows x (999 x 64 + 1) = 511,496,000: passes; 16,000 rows -> 1,022,992,000 refused
    check_built_bytes(pl.LazyFrame({"x": [1] * 8_000}),
                      [("--by", "LENGTH(CONCAT(" + ", ".join(["x"] * 999) + ")) > 3")])
    with pytest.raises(E.SizeLimitError, match="1,022,992,000 bytes over the 16,000 rows"):
        check_built_bytes(pl.LazyFrame({"x": [1] * 16_000}),
                          [("--by", "LENGTH(CONCAT(" + ", ".join(["x"] * 999) + ")) > 3")])


def test_the_html_audit_where_is_bounded(tmp_path: Path) -> None:
    pytest.importorskip("altair")
    from polars_fair.html import audit_html

    lf = pl.scan_csv(_notes(tmp_path))
    with pytest.raises(E.SizeLimitError, match="^where: .*1,198,806,000 bytes"):
        audit_html(lf, "g", y_true="y", y_pred="y", where=CONCAT_999)


def test_the_advice_fewer_concat_arguments_passes(tmp_path: Path) -> None:
    # the advice followed: repeat the column fewer times. 800 notes: 6,000 x (800 x 200 + 1)
    # = 960,006,000 <= 1,000,000,000, so the same rows pass (checked only: nothing is built)
    lf = pl.scan_csv(_notes(tmp_path))
    with pytest.raises(E.SizeLimitError, match="repeat the columns fewer times"):
        check_built_bytes(lf, [("--y-pred", CONCAT_999)])
    check_built_bytes(lf, [("--y-pred", "LENGTH(CONCAT(" + ", ".join(["note"] * 800)
                            + ")) > 3")])


@pytest.mark.parametrize("command", [
    ["multiclass-test", "--by", "g", "--y-pred", CONCAT_999.replace(" > 3", "")],
    ["report", "--by", CONCAT_999, "--y-true", "y", "--y-pred", "y"],
    ["calibration", "--by", "g", "--y-true", "y", "--y-score", "y", "--where", CONCAT_999],
])
def test_every_command_bounds_its_sql_flags(tmp_path: Path, command: list[str]) -> None:
    # the bound lives where every SQL flag is read (column_or_sql), over the scanned rows
    path = str(_notes(tmp_path))
    result = CliRunner().invoke(app, [command[0], path, *command[1:], "--format", "json"])
    assert result.exit_code == 2, result.stdout
    error = json.loads(result.stdout)
    assert error["error"] == "SizeLimitError"
    assert "bytes over the 6,000 rows" in error["message"]
