"""monitor's time advice in each engine's words, for text yyyymmdd and for dates read as days
(issue 25's review, item 5). Each message is asserted and each piece of advice followed.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]
DAYS = [dt.date(2024, 1, 1), dt.date(2024, 1, 8), dt.date(2024, 1, 15)]
ARGS: dict[str, Any] = {"every": "1w", "y_pred": "y_pred", "min_support": 1}


def _rows() -> pl.DataFrame:
    """Three weeks; a selects 3 of 4 rows each week, b 1 of 4; the day as text and integer."""
    rows = [(day, g, int(i < k)) for day in DAYS for g, k in (("a", 3), ("b", 1))
            for i in range(4)]
    df = pl.DataFrame(rows, schema=["t", "g", "y_pred"], orient="row")
    return df.with_columns(s=pl.col("t").dt.strftime("%Y%m%d"), iso=pl.col("t").cast(pl.String),
                           d=pl.col("t").dt.strftime("%Y%m%d").cast(pl.Int64))


#: b's difference to a, every week, by hand: 1/4 - 3/4.
WANT = [-0.5, -0.5, -0.5]


def _b(out: pl.DataFrame) -> list[float]:
    return out.filter(pl.col("g") == "b")["difference"].to_list()


def test_text_yyyymmdd_is_advised_its_format() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        _rows().fair.monitor("g", time="s", **ARGS)
    assert str(info.value) == E.MONITOR_TIME_YYYYMMDD.format(column="s", dtype=pl.String)
    # followed: pl.col('s').str.to_date('%Y%m%d') (str.to_date() alone fails on 20240101)
    advice = re.search(r"for example (.*)$", str(info.value))
    assert advice is not None
    assert _b(_rows().fair.monitor("g", time=eval(advice.group(1)), **ARGS)) == WANT
    with pytest.raises(pl.exceptions.PolarsError):
        _rows().select(pl.col("s").str.to_date())


def test_an_integer_yyyymmdd_cast_to_a_date_is_refused_not_read_as_days() -> None:
    # pl.col("d").cast(pl.Date) reads 20240101 as days since 1970: the year 57,385
    assert _rows().select(pl.col("d").cast(pl.Date).dt.year()).item(0, 0) > 9999
    with pytest.raises(E.InvalidArgumentError) as info:
        _rows().fair.monitor("g", time=pl.col("d").cast(pl.Date), **ARGS)
    assert str(info.value) == E.MONITOR_TIME_FAR.format(count=24, time="d", column="d")
    advice = re.search(r"for example time=(.*)$", str(info.value))
    assert advice is not None
    assert _b(_rows().fair.monitor("g", time=eval(advice.group(1)), **ARGS)) == WANT


def _cli(path: Path, *time: str) -> Any:
    return CliRunner().invoke(app, ["monitor", str(path), "--by", "g", "--y-pred", "y_pred",
                                    "--every", "1w", "--min-support", "1", "--format", "json",
                                    "--dtype", "s=str", *time])


def _followed(path: Path, message: str) -> list[float]:
    advice = shlex.split(message.split("for example ")[-1])
    assert advice[0] == "--time", message
    result = _cli(path, *advice)
    assert result.exit_code == 0, (advice, result.output)
    return _b(pl.read_json(result.stdout.encode()))


def _message(result: Any) -> str:
    assert result.exit_code == 2, result.output
    return " ".join(result.stderr.split()).removeprefix("polars-fair: error: ")


def test_the_command_line_advice_for_days_text_and_casts_runs(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    _rows().write_csv(path)
    # CAST(d AS DATE) on an integer yyyymmdd: refused, naming --time, with SQL that runs
    message = _message(_cli(path, "--time", "CAST(d AS DATE)"))
    assert message == E.CLI_MONITOR_TIME_FAR.format(
        count=24, sql="\"DATE(CAST(d AS VARCHAR), '%Y%m%d')\"")
    assert _followed(path, message) == WANT
    # text yyyymmdd: --dtype s=date reads ISO dates only, so the advice is SQL with the format
    message = _message(_cli(path, "--time", "s"))
    assert message == E.CLI_MONITOR_TIME_YYYYMMDD.format(
        column="s", dtype=pl.String, sql="\"DATE(s, '%Y%m%d')\"")
    assert _followed(path, message) == WANT
    # CAST(text AS DATE), which Polars refuses, names --time
    message = _message(_cli(path, "--time", "CAST(iso AS DATE)"))
    assert message == E.CLI_MONITOR_TIME_CAST.format(
        reason="casting from string to date is not supported",
        sql="\"DATE(iso, '%Y-%m-%d')\"")
    assert _followed(path, message) == WANT


def _engine_advice(message: str) -> tuple[str, str]:
    """(the engine code advised, the new column's name) from a MONITOR_TIME_ENGINE message."""
    found = re.search(r"for example (.*?)(?: for a date written yyyymmdd.*)?; then time='(\w+)'$",
                      message)
    assert found is not None, message
    return found.group(1), found.group(2)


@pytest.mark.parametrize("column", ["d", "s", "iso"])
def test_duckdb_is_advised_a_projection_that_runs(column: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(_rows().drop("t").to_arrow())
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.period_counts(rel, "g", time=column, every="1w", y_pred="y_pred")
    assert "make a date column in DuckDB" in str(info.value)
    assert "pl.col" not in str(info.value)  # no Polars expression: DuckDB takes a name
    code, new = _engine_advice(str(info.value))
    scope: dict[str, Any] = {"rel": rel}
    exec(code, {}, scope)  # noqa: S102 - the advice, as printed
    out = polars_fair.period_counts(scope["rel"], "g", time=new, every="1w",
                                    y_pred="y_pred").monitor(min_support=1).collect()
    assert _b(out) == WANT


@pytest.mark.parametrize("column", ["d", "s", "iso"])
def test_spark_is_advised_a_column_that_runs(column: str, spark: Any) -> None:
    # slow: a Spark session (tests/conftest.py marks every test that takes it)
    from pyspark.sql import functions as F  # noqa: N812 - the advice's spelling

    df = spark.createDataFrame(_rows().drop("t").to_arrow())
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.period_counts(df, "g", time=column, every="1w", y_pred="y_pred")
    assert "make a date column in Spark" in str(info.value)
    code, new = _engine_advice(str(info.value))
    scope: dict[str, Any] = {"df": df, "F": F}
    exec(code, {"F": F}, scope)  # noqa: S102 - the advice, as printed
    out = polars_fair.period_counts(scope["df"], "g", time=new, every="1w",
                                    y_pred="y_pred").monitor(min_support=1).collect()
    assert _b(out) == WANT
