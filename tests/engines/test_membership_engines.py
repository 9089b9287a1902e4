"""Estimated membership (issue 24) on every way in: Polars eager, lazy, streaming, DuckDB and
Spark give the same count tables and reports; ``from_counts`` reads the weighted table; every
membership error is the same on every engine. The reference is the Polars eager result, which
tests/counting/test_membership*.py check against the numpy reference, hand computations and the
peers' frozen figures. Engines sum floats in their own order: figures agree to 1e-12 relative.
"""

from __future__ import annotations

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
ROUTES = ["eager", "lazy", "streaming", "duckdb", "spark"]
MEMBERSHIP = {"race": {"A": "p_a", "B": "p_b", "C": "p_c"}}


@pytest.fixture(scope="module")
def people() -> pl.DataFrame:
    """1,200 people: three membership probabilities (a few null), a sex, labels and weights."""
    rng = np.random.default_rng(24)
    n = 1_200
    p = rng.dirichlet([2.0, 1.0, 0.5], n)
    p_a = pl.Series(p[:, 0]).scatter([5, 17], None)
    return pl.DataFrame({
        "sex": rng.choice(["F", "M"], n), "y_true": rng.integers(0, 2, n),
        "y_pred": rng.integers(0, 2, n), "p_a": p_a, "p_b": p[:, 1], "p_c": p[:, 2],
        "w": rng.uniform(0.5, 2.0, n),
    })


def _on(route: str, df: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    if route == "spark":
        return request.getfixturevalue("spark").createDataFrame(df.to_arrow())
    if route == "duckdb":
        return request.getfixturevalue("duck").from_arrow(df.to_arrow())
    return df


def _report(route: str, df: pl.DataFrame, request: pytest.FixtureRequest,
            **args: Any) -> pl.DataFrame:
    options = {"reference": {"race": "A", "sex": "F"}, "min_support": 20}
    if route == "eager":
        return df.fair.report("sex", **args, **options)
    if route in ("lazy", "streaming"):
        lf = df.lazy().fair.report("sex", **args, **options)
        return lf.collect(engine="streaming" if route == "streaming" else "auto")
    return polars_fair.counts(_on(route, df, request), "sex", **args).report(
        **options).collect()


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("estimator", ["weighted", "argmax"])
@pytest.mark.parametrize("weight", [None, "w"])
def test_every_engine_gives_the_same_report(route: str, estimator: str, weight: str | None,
                                            people: pl.DataFrame,
                                            request: pytest.FixtureRequest) -> None:
    args = {"membership": MEMBERSHIP, "membership_estimator": estimator,
            "sample_weight": weight}
    want = _report("eager", people, request, **args)
    got = _report(route, people, request, **args)
    assert want["race"].null_count() > 0  # the rows with a null probability: the missing group
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12)


def test_from_counts_reads_the_weighted_table(people: pl.DataFrame) -> None:
    table = polars_fair.counts(people, "sex", membership=MEMBERSHIP).frame.collect()
    counts = polars_fair.from_counts(table)
    assert counts.keys == ["race", "sex"]
    assert_frame_equal(counts.frame.collect(), table)
    want = people.fair.report("sex", membership=MEMBERSHIP, reference="largest")
    assert_frame_equal(counts.report(reference="largest").collect(), want)
    with pytest.raises(E.InvalidArgumentError) as info:  # a repeated group: sizes do not add
        polars_fair.from_counts(pl.concat([table, table])).frame.collect()
    assert str(info.value) == E.MEMBERSHIP_REPEATED


_BAD = {
    "sum": ({"p_b": [0.5, 0.2]}, E.MEMBERSHIP_SUM, {"count": 1, "tolerance": 1e-6,
                                                    "columns": "['p_a', 'p_b', 'p_c']"}),
    "range": ({"p_a": [1.5, 0.5], "p_b": [-0.5, 0.5]}, E.MEMBERSHIP_RANGE,
              {"range": "[0, 1]", "count": 1, "columns": "['p_a', 'p_b']",
               "advice": E.MEMBERSHIP_RANGE_ADVICE}),
    "nan": ({"p_c": [float("nan"), 0.0]}, E.MEMBERSHIP_NOT_FINITE,
            {"count": 1, "columns": "['p_c']"}),
}


@pytest.mark.parametrize("route", ["eager", "duckdb", "spark"])
@pytest.mark.parametrize("case", sorted(_BAD))
def test_each_membership_error_is_the_same_on_every_engine(
        route: str, case: str, request: pytest.FixtureRequest) -> None:
    change, template, facts = _BAD[case]
    base = {"y_true": [1, 0], "y_pred": [1, 1], "p_a": [0.5, 0.5], "p_b": [0.5, 0.5],
            "p_c": [0.0, 0.0]}
    df = pl.DataFrame({**base, **change})
    frame = _on(route, df, request)
    with pytest.raises(E.InvalidMembershipError) as info:
        polars_fair.counts(frame, membership=MEMBERSHIP).frame.collect()
    assert str(info.value) == template.format(attribute="race", **facts)


@pytest.mark.parametrize("route", ["duckdb", "spark"])
def test_an_expression_is_refused_where_it_cannot_run(route: str,
                                                      request: pytest.FixtureRequest) -> None:
    df = pl.DataFrame({"y_true": [1], "y_pred": [1], "p_a": [1.0], "p_b": [0.0]})
    with pytest.raises(E.InvalidArgumentError, match="must be column names"):
        polars_fair.counts(_on(route, df, request),
                           membership={"g": {"a": pl.col("p_a"), "b": 1 - pl.col("p_a")}}
                           ).frame.collect()


@pytest.mark.parametrize("route", ["eager", "duckdb", "spark"])
def test_a_thresholded_score_and_its_bad_values(route: str,
                                                request: pytest.FixtureRequest) -> None:
    df = pl.DataFrame({"y_true": [1, 0, 1], "s": [0.9, 0.2, 0.7], "p_a": [1.0, 0.5, 0.0],
                       "p_b": [0.0, 0.5, 1.0]})
    membership = {"g": {"a": "p_a", "b": "p_b"}}
    table = polars_fair.counts(_on(route, df, request), y_score="s", threshold=0.5,
                               membership=membership).frame.collect()
    assert table.select("g", "tp", "fp", "tn").rows() == [("a", 1.0, 0.0, 0.5),
                                                          ("b", 1.0, 0.0, 0.5)]
    bad = df.with_columns(s=pl.Series([0.9, float("nan"), None]))
    with pytest.raises(E.InvalidScoreError) as info:
        polars_fair.counts(_on(route, bad, request), y_score="s", threshold=0.5,
                           membership=membership).frame.collect()
    assert str(info.value) == E.BAD_SCORES.format(column="s", nulls=1, nans=1, infinite=0)
