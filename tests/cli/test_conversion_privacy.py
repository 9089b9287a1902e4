"""A failed conversion names the option, the column, the count and the dtypes, never a value.

Issue 20 ("Errors that protect people"): Polars quotes the values it cannot convert, which on
COMPAS are people's names and dates of birth. The frames here hold made-up names.
"""
from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()
FAKE = ["Alice Fakename", "Bob Fakeperson", "Carl Nobody", "Dana Madeup"]
DOBS = ["1990-01-01", "1985-02-03", "1970-05-06", "1960-07-08"]
COMPAS = Path("../shared/data/compas/compas-scores-two-years.csv")


def _csv(tmp_path: Path) -> Path:
    path = tmp_path / "people.csv"
    rows = [f"{n},{d},{g},{y},{p}" for n, d, g, y, p in
            zip(FAKE, DOBS, "abab", [1, 0, 1, 1], [1, 1, 0, 1], strict=True)]
    path.write_text("name,dob,g,y_true,y_pred\n" + "\n".join(rows) + "\n")
    return path


def _no_values(text: str) -> None:
    for value in [*FAKE, *DOBS, "Alice", "1990"]:
        assert value not in text, text


@pytest.mark.parametrize("dtype", ["name=int", "dob=int", "dob=bool", "name=date",
                                   "name=float"])
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_dtype_that_cannot_hold_a_value_shows_no_value(tmp_path: Path, dtype: str,
                                                         fmt: str) -> None:
    result = runner.invoke(app, ["report", str(_csv(tmp_path)), "--by", "g", "--dtype", dtype,
                                 "--format", fmt])
    assert result.exit_code == 2
    text = result.output + result.stderr
    _no_values(text)
    column = dtype.split("=")[0]
    # checked when the file is scanned, counted over it: each of the 4 values (every row's
    # name or date of birth) fails each of these types
    assert f"--dtype: 4 of 4 values of column '{column}' could not be converted" in text, text
    assert "--dtype" in text and "may identify people" in text, text


@pytest.mark.parametrize(("flag", "sql", "count"), [
    ("--where", "CAST(name AS INTEGER) > 5", "4 of 4 values"),
    ("--by", "CAST(name AS INT)", "4 of 4 values"),
    ("--y-pred", "CAST(name AS INTEGER)", "4 of 4 values"),
])
def test_a_sql_option_failing_on_the_rows_shows_no_value(tmp_path: Path, flag: str, sql: str,
                                                         count: str) -> None:
    args = ["report", str(_csv(tmp_path)), flag, sql]
    if flag != "--by":
        args += ["--by", "g"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    text = result.stderr
    _no_values(text)
    # the option named with its text; 4 of the 4 rows failed, counted by hand
    assert f"{flag} {sql!r}: {count} of column 'name' could not be converted from str to i32" \
        in text, text


def test_a_sample_weight_cast_failing_shows_no_value(tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", str(_csv(tmp_path)), "--by", "g",
                                 "--sample-weight", "CAST(name AS DOUBLE)"])
    assert result.exit_code == 2
    _no_values(result.stderr)
    assert "--sample-weight 'CAST(name AS DOUBLE)': 4 of 4 values of column 'name' could not " \
        "be converted from str to f64" in result.stderr, result.stderr


@pytest.mark.parametrize("arg", ["y_pred", "sample_weight"])
def test_python_a_failed_cast_is_typed_and_names_the_argument(arg: str) -> None:
    df = pl.DataFrame({"name": FAKE, "g": list("abab"), "y_true": [1, 0, 1, 1],
                       "y_pred": [1, 1, 0, 1]})
    expr = pl.col("name").cast(pl.Int32 if arg == "y_pred" else pl.Float64)
    with pytest.raises(E.InvalidInputError) as info:
        df.fair.report("g", **{arg: expr})
    text = str(info.value)
    _no_values(text)
    # the four names fail, two per group ("a", "b"); Polars counts per chunk it converts
    assert text.startswith(f"{arg}: ") and "of column 'name' could not be converted" in text


def test_compas_names_never_appear_in_a_conversion_error() -> None:
    if not COMPAS.exists():
        if os.environ.get("POLARS_FAIR_REQUIRE_DATA"):
            pytest.fail(f"{COMPAS} is missing")
        pytest.skip("COMPAS data not present")
    for args in (["--by", "race", "--dtype", "name=int"],
                 ["--by", "race", "--where", "CAST(name AS INTEGER) > 5"]):
        result = runner.invoke(app, ["report", str(COMPAS), "--y-true", "two_year_recid",
                                     "--y-pred", "is_recid", *args])
        assert result.exit_code == 2
        text = result.output + result.stderr
        assert "could not be converted" in text
        names = pl.read_csv(COMPAS, columns=["name"], infer_schema_length=0)["name"]
        leaked = sum(1 for n in names.drop_nulls().unique() if n in text)
        assert leaked == 0  # a count only: the names themselves are never printed
