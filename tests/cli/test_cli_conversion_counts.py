"""A SQL option's failed conversion on the command line: counted over the whole input, named.

Issue 19 (review of kind 1). The command line checks its SQL options on the first
:data:`polars_fair.cli.io.SAMPLE_ROWS` rows; a failing value there was counted on those rows
only, and a failing value after them surfaced with the library's argument name (``y_pred:``)
instead of the flag. Both now count over every row of the input and name the flag.

The file, by hand: 4,000 rows; ``s`` is "1" except rows 1 ("x", inside the sample), 3,999
("x") and 4,000 ("y"): 3 failing values; in ``late`` only the last two fail (after the sample).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()
HIDDEN = "(the values are not shown: they may identify people)"


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    pl.DataFrame({"g": ["a", "b"] * 2000, "y_true": [1, 0] * 2000,
                  "s": ["x"] + ["1"] * 3997 + ["x", "y"],
                  "late": ["1"] * 3998 + ["x", "y"],
                  "ok": ["yes", "no"] * 2000}).write_csv(path)
    return path


def _error(*args: str) -> str:
    out = runner.invoke(app, ["report", *args, "--min-support", "1"])
    assert out.exit_code == 2, out.output
    return out.stderr.strip()


def test_a_failure_in_the_sample_is_counted_over_the_whole_file(rows: Path) -> None:
    assert _error(str(rows), "--by", "g", "--y-pred", "CAST(s AS INT)") == (
        "polars-fair: error: --y-pred 'CAST(s AS INT)': 3 of 4,000 values of column 's' could "
        f"not be converted from str to i32 {HIDDEN}")


def test_a_failure_after_the_sample_names_the_flag(rows: Path) -> None:
    assert _error(str(rows), "--by", "g", "--y-pred", "CAST(late AS INT)") == (
        "polars-fair: error: --y-pred: 2 of 4,000 values of column 'late' could not be "
        f"converted from str to i32 {HIDDEN}")


def test_text_cast_to_boolean_is_advised_in_sql_that_runs(rows: Path) -> None:
    message = _error(str(rows), "--by", "g", "--y-pred", "CAST(ok AS BOOLEAN)")
    assert message == (
        "polars-fair: error: --y-pred 'CAST(ok AS BOOLEAN)': 4,000 of 4,000 values of column "
        "'ok' cannot be cast from string to boolean: Polars does not cast string to boolean; "
        "compare the text with its true value instead, for example \"ok\" = 'true'")
    advice = message.rsplit("for example ", 1)[1]
    # as written: no row reads 'true', nothing is selected; with the column's own true value,
    # "yes" is every row of group a
    for value, rates in (("'true'", ["a,0.0", "b,0.0"]), ("'yes'", ["a,1.0", "b,0.0"])):
        out = runner.invoke(app, ["report", str(rows), "--by", "g", "--y-pred",
                                  advice.replace("'true'", value), "--min-support", "1",
                                  "--format", "csv", "--columns", "g,selection_rate"])
        assert out.exit_code == 0, out.output
        assert out.stdout.splitlines() == ["g,selection_rate", *rates]
