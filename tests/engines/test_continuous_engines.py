"""The continuous report on every way in, and its input errors, on every engine.

Routes: Polars eager (``df.fair.continuous_report``), lazy, streaming, a moment table handed to
``from_moments``, DuckDB and Spark (``polars_fair.moments(frame, ...)`` and the Spark shortcut).
The reference is ``polars_fair.moments(df, ...).continuous_report()`` on the Polars frame, whose
values tests/analyses/test_continuous.py checks by hand, against fractions, statsmodels and the
peers. Engines sum floats in their own order: figures agree to 1e-9 relative, counts exactly.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair
import polars_fair.spark as pfs
from polars_fair import errors as E

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]
#: Spark starts a JVM (half a minute, then seconds a test): its routes are slow, as every test
#: that asks for the ``spark`` fixture by name (tests/conftest.py); CI runs them.
SPARK = pytest.mark.slow
ROUTES = ["eager", "lazy", "streaming", "table", "duckdb", pytest.param("spark", marks=SPARK),
          pytest.param("spark-shortcut", marks=SPARK)]
CONFIGS: dict[str, dict[str, Any]] = {
    "pred": {"y_pred": "rate"},
    "residual": {"y_pred": "rate", "y_true": "true_rate"},
}


@pytest.fixture(scope="module")
def rates() -> pl.DataFrame:
    """1,500 loans: an interest rate near 5 %, two attributes (one with nulls), an integer."""
    rng = np.random.default_rng(3)
    n = 1_500
    race = rng.choice(["A", "B", "C"], n, p=[0.6, 0.3, 0.1])
    true_rate = 5 + rng.normal(0, 1, n) + np.where(race == "B", 0.4, 0.0)
    return pl.DataFrame({
        "race": race, "sex": pl.Series(rng.choice(["F", "M", None], n, p=[0.45, 0.45, 0.1])),
        "rate": true_rate + rng.normal(0, 0.5, n), "true_rate": true_rate,
        "term": rng.integers(12, 360, n),
    })


def _on(engine: str, df: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    if engine.startswith("spark"):
        return request.getfixturevalue("spark").createDataFrame(df.to_arrow())
    if engine == "duckdb":
        return request.getfixturevalue("duck").from_arrow(df.to_arrow())
    return df


def _run(route: str, df: pl.DataFrame, by: Any, args: dict[str, Any],
         request: pytest.FixtureRequest) -> pl.DataFrame:
    options = {"min_support": 20}
    if route == "eager":
        return df.fair.continuous_report(by, **args, **options)
    if route in ("lazy", "streaming"):
        lf = df.lazy().fair.continuous_report(by, **args, **options)
        return lf.collect(engine="streaming" if route == "streaming" else "auto")
    if route == "table":
        table = polars_fair.moments(df, by, **args).frame.collect()
        return polars_fair.from_moments(table).continuous_report(**options).collect()
    if route == "spark-shortcut":
        return pfs.continuous_report(_on(route, df, request), by, **args, **options)
    out = polars_fair.moments(_on(route, df, request), by, **args).continuous_report(**options)
    return out.collect()


def _assert_same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.schema == want.schema
    assert got.height == want.height
    for c in want.columns:
        if want.schema[c] == pl.Float64:
            g, w = got[c].to_list(), want[c].to_list()
            assert [x is None for x in g] == [x is None for x in w], c
            assert [x for x in g if x is not None] == pytest.approx(
                [x for x in w if x is not None], rel=1e-9, abs=1e-12), c
        else:
            assert got[c].to_list() == want[c].to_list(), c


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("by", [["race"], ["race", "sex"], []])
def test_continuous_report_on_every_route(rates: pl.DataFrame, route: str, config: str,
                                          by: list[str], request: pytest.FixtureRequest) -> None:
    args = CONFIGS[config]
    want = polars_fair.moments(rates, by, **args).continuous_report(min_support=20).collect()
    assert want.height == {0: 1, 1: 3, 2: 9}[len(by)]
    _assert_same(_run(route, rates, by, args, request), want)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("by", [["race"], []])
def test_weighted_report_on_every_route(rates: pl.DataFrame, route: str, by: list[str],
                                        request: pytest.FixtureRequest) -> None:
    df = rates.with_columns(w=(pl.col("term") % 4 + 1) * 0.5)
    args = {"y_pred": "rate", "y_true": "true_rate", "sample_weight": "w"}
    want = polars_fair.moments(df, by, **args).continuous_report(min_support=20).collect()
    assert "weight_sum" in want.columns
    _assert_same(_run(route, df, by, args, request), want)


BAD = pl.DataFrame({"g": ["a", "a", "b", "b"], "x": [1.0, 2.0, 3.0, 4.0],
                    "nulls": [1.0, None, 3.0, None], "nans": [1.0, float("nan"), 3.0, 4.0],
                    "infs": [1.0, float("inf"), float("-inf"), 4.0], "text": ["1", "2", "3", "4"],
                    "huge": [1e200, -1e200, 2.0, 3.0],  # finite, group a's squares overflow
                    # 3 nonzero values below 2**-511 (~1.5e-154), whose squares underflow
                    "tiny": [1e-170, 2e-170, 0.0, -1e-160],
                    "big": [1, 2**53 + 1, 3, -(2**53) - 2],  # 2 integers a float cannot hold
                    # 2 decimals of more than 15 significant digits (17 and 19), 2 of at most 15
                    "dec": pl.Series([Decimal("12345678901234567.5"), Decimal("1.5"),
                                      Decimal("0.1000000000000000001"),
                                      Decimal("123456789012.345")], dtype=pl.Decimal(38, 19))})
CATALOGUE: dict[str, tuple[dict[str, Any], type[Exception], str]] = {
    "null values": ({"y_pred": "nulls"}, E.NullValuesError,
                    E.NULL_CONTINUOUS.format(column="nulls", role="y_pred", count=2)),
    "NaN values": ({"y_pred": "nans"}, E.InvalidScoreError,
                   E.BAD_CONTINUOUS.format(column="nans", role="y_pred", count=1)),
    "infinite labels": ({"y_pred": "x", "y_true": "infs"}, E.InvalidScoreError,
                        E.BAD_CONTINUOUS.format(column="infs", role="y_true", count=2)),
    "text values": ({"y_pred": "text"}, E.InvalidScoreError,
                    E.NOT_NUMERIC.format(column="text", role="y_pred", dtype=pl.String)),
    "no y_pred": ({}, E.InvalidArgumentError, E.CONTINUOUS_NEEDS_Y_PRED),
    # the advice (issue 20) is the Polars expression here; DuckDB and Spark get the SQL of
    # RELATION_CONTINUOUS_OFFSET (test_the_same_error_on_every_engine)
    "integers beyond 2**53": ({"y_pred": "big"}, E.InvalidScoreError,
                              E.CONTINUOUS_BEYOND_FLOAT.format(
                                  column="big", role="y_pred", dtype=pl.Int64, count=2,
                                  advice=E.CONTINUOUS_OFFSET.format(role="y_pred",
                                                                    column="big"))),
    # issue 22 review item 2: finite values whose sum of squares overflows were an infinite
    # m2 and a null std for group a, and on Polars group b (2.0, 3.0) came back with mean 0
    # and std 0 (aggregated about a shift of 1e200); now a typed error counting the groups
    "squares that overflow": ({"y_pred": "huge"}, E.InvalidScoreError,
                              E.CONTINUOUS_OVERFLOW.format(column="huge", role="y_pred",
                                                           moment="sum of squares", count=1)),
    # fix 22d item 2: nonzero values whose squares underflow (a: 1e-170, 2e-170; b: 0.0 and
    # -1e-160, the 0.0 not counted), so both groups' sums of squares are 0: std 0 and a null
    # smd, silently; now a typed error on every engine
    "squares that underflow": ({"y_pred": "tiny"}, E.InvalidScoreError,
                               E.CONTINUOUS_UNDERFLOW.format(column="tiny", role="y_pred",
                                                             count=3)),
    "residuals that overflow": ({"y_pred": "x", "y_true": "huge"}, E.InvalidScoreError,
                                E.CONTINUOUS_OVERFLOW.format(
                                    column="huge", role="y_true",
                                    moment="residual sum of squares", count=1)),
    # issue 22 re-review item 9: the rule of Decimal scores (SCORE_DECIMAL_DIGITS), for y_true
    # as for y_pred
    "decimals beyond 15 digits": ({"y_pred": "x", "y_true": "dec"}, E.InvalidScoreError,
                                  E.CONTINUOUS_DECIMAL_DIGITS.format(
                                      column="dec", role="y_true", dtype=pl.Decimal(38, 19),
                                      count=2)),
}


@pytest.mark.parametrize("engine", ["polars", "duckdb", pytest.param("spark", marks=SPARK)])
@pytest.mark.parametrize("case", sorted(CATALOGUE))
def test_the_same_error_on_every_engine(case: str, engine: str,
                                        request: pytest.FixtureRequest) -> None:
    args, error, message = CATALOGUE[case]
    frame = _on(engine, BAD, request)
    with pytest.raises(error) as info:
        polars_fair.moments(frame, "g", **args).continuous_report().collect()
    if engine != "polars" and case == "integers beyond 2**53":  # advice in the relation's SQL
        message = message.replace(E.CONTINUOUS_OFFSET.format(role="y_pred", column="big"),
                                  E.RELATION_CONTINUOUS_OFFSET.format(
                                      sql="big", shifted="big_offset", role="y_pred"))
    assert str(info.value) == message


def test_a_group_that_overflows_never_moves_another() -> None:
    # issue 22 review item 2, by hand: group b is (2, 3) whatever group a holds; a recount
    # about each group's own value keeps b's mean 2.5 and sd sqrt(0.5) when a's moments are
    # not finite (here a's values are finite and so are its moments: 1e150 squared is 1e300)
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "x": [1e150, -1e150, 2.0, 3.0]})
    got = df.fair.continuous_report("g", y_pred="x", min_support=1, reference="b")
    b = got.filter(pl.col("g") == "b").row(0, named=True)
    assert (b["mean"], b["std"]) == (2.5, pytest.approx(0.5**0.5, rel=1e-15))
    a = got.filter(pl.col("g") == "a").row(0, named=True)
    # a: mean 0, M2 = 2·1e300, std = sqrt(2e300 / 1)
    assert (a["mean"], a["std"]) == (0.0, pytest.approx(2**0.5 * 1e150, rel=1e-15))
