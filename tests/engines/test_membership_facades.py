"""``membership=`` through the DuckDB and Spark ways in (issue 24, third review item 1): the
count analyses that take it give the Polars result; those whose table counts each row in one
group refuse it with the typed message, not a ``TypeError``."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair
from polars_fair import errors as E

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]
M = {"g": {"a": "p_a", "b": "p_b"}}


@pytest.fixture(scope="module")
def people() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    n = 300
    p_a = rng.uniform(0, 1, n).round(3)
    return pl.DataFrame({"s": rng.choice(["x", "y"], n), "y_true": rng.integers(0, 2, n),
                         "y_pred": rng.integers(0, 2, n), "base": rng.integers(0, 2, n),
                         "y_score": rng.random(n), "p_a": p_a, "p_b": 1 - p_a,
                         "day": [dt.date(2024, 1, 1) + dt.timedelta(days=int(d))
                                 for d in rng.integers(0, 60, n)]})


def _on(route: str, df: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    if route == "spark":
        return request.getfixturevalue("spark").createDataFrame(df.to_arrow())
    return request.getfixturevalue("duck").from_arrow(df.to_arrow())


@pytest.mark.parametrize("route", ["duckdb", "spark"])
def test_stratified_and_availability_match_polars(route: str, people: pl.DataFrame,
                                                  request: pytest.FixtureRequest) -> None:
    frame = _on(route, people, request)
    for estimator in ("weighted", "argmax"):
        args = {"membership": M, "membership_estimator": estimator}
        got = polars_fair.counts(frame, "s", **args).stratified(strata="s").collect()
        want = people.fair.stratified(None, "s", **args)
        assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12)
    args = {"membership": M, "membership_estimator": "argmax"}
    bench = {"g": {"a": 0.5, "b": 0.5}}
    got = polars_fair.counts(frame, **args).availability(benchmark=bench).collect()
    assert_frame_equal(got, people.fair.availability(benchmark=bench, **args))
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.counts(frame, membership=M).availability(benchmark=bench).collect()
    assert str(info.value).startswith("availability does not take a weighted membership")


def _refusals(route: str, frame: Any) -> dict[str, Any]:
    calls: dict[str, Any] = {
        "scores": lambda: polars_fair.scores(frame, membership=M),
        "moments": lambda: polars_fair.moments(frame, y_pred="y_score", membership=M),
        "compare": lambda: polars_fair.paired_counts(frame, y_pred="y_pred", baseline="base",
                                                     membership=M),
        "monitor": lambda: polars_fair.period_counts(frame, time="day", every="1mo",
                                                     y_pred="y_pred", membership=M),
        "class_counts": lambda: polars_fair.class_counts(frame, membership=M),
    }
    if route == "spark":
        import polars_fair.spark as pfs

        calls.update({
            "spark.abroca": lambda: pfs.abroca(frame, membership=M),
            "spark.continuous_report": lambda: pfs.continuous_report(frame, y_pred="y_score",
                                                                     membership=M),
            "spark.multiclass_report": lambda: pfs.multiclass_report(frame, membership=M),
            "spark.bias_audit": lambda: pfs.bias_audit(frame, ["s"], y_score="y_score",
                                                       membership=M),
            "spark.compare": lambda: pfs.compare(frame, y_pred="y_pred", baseline="base",
                                                 membership=M),
            "spark.monitor": lambda: pfs.monitor(frame, time="day", every="1mo",
                                                 y_pred="y_pred", membership=M),
        })
    return calls


@pytest.mark.parametrize("route", ["duckdb", "spark"])
def test_tables_of_crisp_groups_refuse_membership_saying_why(
        route: str, people: pl.DataFrame, request: pytest.FixtureRequest) -> None:
    frame = _on(route, people, request)
    for name, call in _refusals(route, frame).items():
        with pytest.raises(E.InvalidArgumentError) as info:
            call()
        message = str(info.value)
        assert "does not take membership= (estimated group membership)" in message, name
        assert message.endswith(E.MEMBERSHIP_ANALYSES), name
