"""Issue 19 kind 1/7, re-review: a ``--dtype`` its values do not fit, one error on every format.

A Parquet file was read silently when the command did not use the column, and with
``--where 'age > 30'`` the error blamed ``--where`` and counted one chunk ("1 of 500 values");
the CSV was refused "reading the rows". One policy now: every ``--dtype`` column is checked
when the file is scanned, counted over the file, and the error names ``--dtype``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    # 5,000 rows; ages 20..69 as text, 3 of them 'unknown' (rows 10, 2,500, 4,990)
    ages = [str(20 + i % 50) for i in range(5000)]
    for i in (10, 2500, 4990):
        ages[i] = "unknown"
    df = pl.DataFrame({"g": ["a", "b"] * 2500, "y_true": [1, 0, 0, 1] * 1250,
                       "y_pred": [1, 1, 0, 0] * 1250, "age": ages})
    folder = tmp_path_factory.mktemp("dtype")
    out = {"csv": folder / "rows.csv", "parquet": folder / "rows.parquet",
           "ndjson": folder / "rows.ndjson"}
    df.write_csv(out["csv"])
    df.write_parquet(out["parquet"])
    df.write_ndjson(out["ndjson"])
    return out


# by hand: 3 of the 5,000 values cannot be an Int64, counted over the whole file
WANT = E.CONVERSION_FAILED.format(role="--dtype", count="3 of 5,000 values", column="age",
                                  source="text", target=pl.Int64()) \
    + E.DTYPE_HINT


@pytest.mark.parametrize("fmt", ["csv", "parquet", "ndjson"])
@pytest.mark.parametrize("where", [[], ["--where", "age > 30"]])
def test_a_dtype_its_values_do_not_fit_is_one_error_on_every_format(
        files: dict[str, Path], fmt: str, where: list[str]) -> None:
    result = runner.invoke(app, ["report", str(files[fmt]), "--by", "g", "--dtype",
                                 "age=int64", *where])
    assert result.exit_code == 2, result.output
    assert WANT in " ".join(result.stderr.split()), result.stderr
    assert "unknown" not in result.output


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_the_dtype_advice_works_when_followed(files: dict[str, Path], fmt: str) -> None:
    # --dtype age=str reads the column as text: the report runs (a: 2,500 rows, b: 2,500)
    result = runner.invoke(app, ["report", str(files[fmt]), "--by", "g", "--dtype", "age=str",
                                 "--format", "csv"])
    assert result.exit_code == 0, result.output
    table = pl.read_csv(result.stdout.encode())
    assert table.select("g", "n").rows() == [("a", 2500), ("b", 2500)]
