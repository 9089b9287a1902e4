"""compare (and monitor) give the same table on every engine (issue 25, item 5).

The reference is the Polars eager result, which tests/analyses/test_compare.py checks against
hand computations and statsmodels; here the claim is that every engine counts the same paired
table. Spark tests are slow (a ``spark`` fixture) and skip without PySpark unless
``POLARS_FAIR_REQUIRE_SPARK=1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def _rows() -> pl.DataFrame:
    rng = np.random.default_rng(7)
    n = 600
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = rng.integers(0, 2, n)
    s = rng.random(n) + 0.2 * y - 0.1 * (g == "b")
    return pl.DataFrame({"g": g, "y_true": y, "new": (s > 0.5).astype(np.int64),
                         "old": (s > 0.6).astype(np.int64)})


ARGS: dict[str, Any] = dict(y_pred="new", baseline="old", y_true="y_true")


@pytest.fixture(scope="module")
def expected() -> pl.DataFrame:
    return _rows().fair.compare("g", **ARGS)


@pytest.mark.parametrize("route", ["lazy", "streaming", "paired table"])
def test_compare_is_the_same_on_every_polars_route(route: str, expected: pl.DataFrame) -> None:
    df = _rows()
    if route == "paired table":
        table = polars_fair.paired_counts(df, "g", **ARGS).frame.collect()
        got = polars_fair.from_paired_counts(table).compare().collect()
    else:
        lazy = df.lazy().fair.compare("g", **ARGS)
        got = lazy.collect(engine="streaming" if route == "streaming" else "auto")
    assert_frame_equal(got, expected)


def test_compare_on_duckdb_equals_polars(expected: pl.DataFrame) -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(_rows().to_arrow())
    got = polars_fair.paired_counts(rel, "g", **ARGS).compare().collect()
    assert_frame_equal(got, expected)


def test_compare_on_spark_equals_polars(spark: Any, expected: pl.DataFrame) -> None:
    sdf = spark.createDataFrame(_rows().to_pandas())
    got = polars_fair.paired_counts(sdf, "g", **ARGS).compare().collect()
    assert_frame_equal(got, expected)


def _timed() -> pl.DataFrame:
    rng = np.random.default_rng(8)
    days = np.datetime64("2024-01-01") + rng.integers(0, 120, 600).astype("timedelta64[D]")
    return _rows().with_columns(t=pl.Series(days).cast(pl.Date))


MONITOR: dict[str, Any] = dict(time="t", every="2w", y_pred="new", y_true="y_true")


@pytest.fixture(scope="module")
def expected_monitor() -> pl.DataFrame:
    return _timed().fair.monitor("g", metric="tpr", **MONITOR)


@pytest.mark.parametrize("route", ["lazy", "streaming", "period table"])
def test_monitor_is_the_same_on_every_polars_route(route: str,
                                                    expected_monitor: pl.DataFrame) -> None:
    df = _timed()
    if route == "period table":
        table = polars_fair.period_counts(df, "g", **MONITOR).frame.collect()
        got = polars_fair.from_period_counts(table, "g").monitor(metric="tpr").collect()
    else:
        lazy = df.lazy().fair.monitor("g", metric="tpr", **MONITOR)
        got = lazy.collect(engine="streaming" if route == "streaming" else "auto")
    assert_frame_equal(got, expected_monitor)


def test_monitor_on_duckdb_equals_polars(expected_monitor: pl.DataFrame) -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(_timed().to_arrow())
    got = polars_fair.period_counts(rel, "g", **MONITOR).monitor(metric="tpr").collect()
    assert_frame_equal(got, expected_monitor)


def test_monitor_on_spark_equals_polars(spark: Any, expected_monitor: pl.DataFrame) -> None:
    sdf = spark.createDataFrame(_timed().to_pandas())
    got = polars_fair.period_counts(sdf, "g", **MONITOR).monitor(metric="tpr").collect()
    assert_frame_equal(got, expected_monitor)


def test_the_spark_shortcuts_equal_polars(spark: Any, expected: pl.DataFrame,
                                          expected_monitor: pl.DataFrame) -> None:
    import polars_fair.spark as pfs

    assert_frame_equal(pfs.compare(spark.createDataFrame(_rows().to_pandas()), "g", **ARGS),
                       expected)
    sdf = spark.createDataFrame(_timed().to_pandas())
    assert_frame_equal(pfs.monitor(sdf, "g", metric="tpr", **MONITOR), expected_monitor)
