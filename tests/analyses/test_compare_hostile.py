"""Hostile inputs to compare and monitor (issue 25 review item 6): each gives a typed error
that names the baseline, or the right table."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app

ROWS = pl.DataFrame({"g": ["a", "b"] * 20, "new": [1, 0, 0, 1] * 10, "old": [1, 1, 0, 0] * 10})


def test_a_baseline_of_another_dtype_names_both_dtypes() -> None:
    rows = ROWS.with_columns(pl.col("old").cast(pl.String))
    with pytest.raises(E.InvalidLabelError) as info:
        rows.fair.compare("g", y_pred="new", baseline="old")
    assert str(info.value) == E.BASELINE_DTYPE.format(
        role="baseline", column="old", dtype=pl.String(), pred="new", pred_dtype=pl.Int64(),
        pos_label=1)
    # the same dtypes pass: the cast the message advises
    out = rows.fair.compare("g", y_pred="new", baseline=pl.col("old").cast(pl.Int64))
    assert out["selection_rate_baseline"].to_list() == [0.5, 0.5]


def test_the_command_line_advises_sql_for_a_baseline_of_another_dtype(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    ROWS.write_csv(path)
    args = ["compare", str(path), "--by", "g", "--y-pred", "new", "--dtype", "old=str",
            "--format", "json"]
    result = CliRunner().invoke(app, [*args, "--baseline-pred", "old"])
    assert result.exit_code != 0
    assert "--baseline-pred column 'old' is String while --y-pred 'new' is Int64" in \
        result.output
    # the advice, followed, works
    assert 'CAST(old AS INTEGER)' in result.output
    followed = CliRunner().invoke(app, [*args, "--baseline-pred", "CAST(old AS INTEGER)"])
    assert followed.exit_code == 0, followed.output
    assert [r["selection_rate_baseline"] for r in json.loads(followed.stdout)] == [0.5, 0.5]


def test_a_baseline_that_is_an_attribute_is_refused_first() -> None:
    # before: pos_label=1 could not be compared with the String column g (a misleading cause)
    with pytest.raises(E.InvalidArgumentError) as info:
        ROWS.fair.compare("g", y_pred="new", baseline="g")
    assert str(info.value) == E.BASELINE_IS_KEY.format(column="g")


def test_an_expression_baseline_on_duckdb_names_the_baseline() -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(ROWS.to_arrow())
    with pytest.raises(E.InvalidArgumentError, match="^baseline must name a column of the "
                                                     "DuckDB relation"):
        polars_fair.paired_counts(rel, "g", y_pred="new", baseline=pl.col("old"))


def _sparse() -> pl.DataFrame:
    # ten weeks, one decision per group a week: a period key with one row per level is no
    # identifier (it was refused as one, on Polars and, with one row a day, on DuckDB)
    weeks = [dt.date(2024, 1, 1) + dt.timedelta(weeks=i // 2) for i in range(20)]
    return pl.DataFrame({"g": ["a", "b"] * 10, "p": [1, 0, 1, 1] * 5, "t": weeks})


def test_monitor_takes_periods_with_one_row_each() -> None:
    out = _sparse().fair.monitor("g", time="t", every="1w", y_pred="p", min_support=1)
    assert out.height == 20
    # b is selected in every other week: 0, 1, 0, 1, ...; a (the reference) every week
    b = out.filter(pl.col("g") == "b")
    assert b["numerator"].to_list() == [0, 1] * 5
    assert b["denominator"].to_list() == [1] * 10


def test_monitor_on_duckdb_takes_one_row_a_day() -> None:
    duckdb = pytest.importorskip("duckdb")
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(40)]
    rows = pl.DataFrame({"g": ["a", "b"] * 20, "p": [1, 0, 0, 1] * 10, "t": days})
    want = rows.fair.monitor("g", time="t", every="1w", y_pred="p", min_support=1)
    rel = duckdb.from_arrow(rows.to_arrow())
    got = polars_fair.period_counts(rel, "g", time="t", every="1w", y_pred="p").monitor(
        min_support=1).collect()
    assert_frame_equal(got, want)
    # 40 days from Monday 2024-01-01: five full weeks and five days of a sixth
    assert got["period"].n_unique() == 6


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_monitor_on_spark_takes_one_row_a_day(spark: object) -> None:
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in range(40)]
    rows = pl.DataFrame({"g": ["a", "b"] * 20, "p": [1, 0, 0, 1] * 10, "t": days})
    want = rows.fair.monitor("g", time="t", every="1w", y_pred="p", min_support=1)
    sdf = spark.createDataFrame(rows.to_pandas())  # type: ignore[attr-defined]
    got = polars_fair.period_counts(sdf, "g", time="t", every="1w", y_pred="p").monitor(
        min_support=1).collect()
    assert_frame_equal(got, want)
