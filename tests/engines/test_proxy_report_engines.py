"""The proxy report on every way in: Polars eager, lazy, streaming, DuckDB and Spark.

The reference is ``polars_fair.proxy_report(df, ...)`` on the Polars frame, whose values
tests/analyses/test_proxy_report.py checks against SolasAI's and Jurity's figures, hand sums and
seeded simulations. Engines sum floats in their own order: figures agree to 1e-9 relative,
counts and flags exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from tests.engines.test_continuous_engines import _assert_same

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]
ROUTES = ["eager", "lazy", "streaming", "duckdb", "spark"]
MEMBERSHIP = {"race": {"A": "p_a", "B": "p_b", "C": "p_c"}}


@pytest.fixture(scope="module")
def people() -> pl.DataFrame:
    """2,000 people: three membership probabilities, a crisp attribute, labels, weights."""
    rng = np.random.default_rng(5)
    n = 2_000
    p = rng.dirichlet([0.6, 0.4, 0.3], size=n)
    truth = np.array([rng.choice(3, p=row) for row in p])
    y_true = (rng.random(n) < np.array([0.5, 0.4, 0.3])[truth]).astype(np.int64)
    y_pred = (rng.random(n) < np.where(y_true == 1, 0.7, 0.2)).astype(np.int64)
    return pl.DataFrame({"p_a": p[:, 0], "p_b": p[:, 1], "p_c": p[:, 2],
                         "sex": rng.choice(["F", "M"], n), "y_true": y_true, "y_pred": y_pred,
                         "w": rng.integers(1, 4, n).astype(np.float64)})


def _on(route: str, df: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    if route == "spark":
        return request.getfixturevalue("spark").createDataFrame(df.to_arrow())
    if route == "duckdb":  # DuckDB's default connection
        return pytest.importorskip("duckdb").from_arrow(df.to_arrow())
    return df


def _run(route: str, df: pl.DataFrame, by: Any, args: dict[str, Any],
         request: pytest.FixtureRequest) -> pl.DataFrame:
    if route == "eager":
        return df.fair.proxy_report(by, **args)
    if route in ("lazy", "streaming"):
        lf = df.lazy().fair.proxy_report(by, **args)
        return lf.collect(engine="streaming" if route == "streaming" else "auto")
    return polars_fair.proxy_report(_on(route, df, request), by, **args).collect()


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("by", "weight"), [([], None), (["sex"], "w")])
def test_proxy_report_on_every_route(people: pl.DataFrame, route: str, by: list[str],
                                     weight: str | None, request: pytest.FixtureRequest) -> None:
    args = {"membership": MEMBERSHIP, "sample_weight": weight,
            "reference": {"race": "A", **({"sex": "F"} if by else {})}}
    want = polars_fair.proxy_report(people, by, **args).collect()
    assert want.height == 3 * (2 if by else 1)
    assert want["tpr_regression"].null_count() == 0
    _assert_same(_run(route, people, by, args, request), want)


@pytest.mark.parametrize("route", ["duckdb", "spark"])
def test_bad_probabilities_raise_the_same_error(people: pl.DataFrame, route: str,
                                                request: pytest.FixtureRequest) -> None:
    bad = people.with_columns(p_c=pl.col("p_c") + 0.1)  # above 1 on some rows
    with pytest.raises(E.InvalidMembershipError) as polars_info:
        _run("eager", bad, [], {"membership": MEMBERSHIP}, request)
    outside = int((bad["p_c"] > 1).sum())
    assert str(polars_info.value) == E.MEMBERSHIP_RANGE.format(
        attribute="race", range="[0, 1]", count=outside, columns="['p_c']",
        advice=E.MEMBERSHIP_RANGE_ADVICE)
    with pytest.raises(E.InvalidMembershipError) as info:
        _run(route, bad, [], {"membership": MEMBERSHIP}, request)
    assert str(info.value) == str(polars_info.value)


def test_the_spark_shortcuts(people: pl.DataFrame, request: pytest.FixtureRequest) -> None:
    """polars_fair.spark.proxy_report is the Polars report, collected; membership_calibration
    is refused on Spark with its typed reason (issue 24 review item 8: there was no shortcut)."""
    import polars_fair.spark as pfs

    sdf = _on("spark", people.with_columns(known=pl.lit("A")), request)
    args = {"membership": MEMBERSHIP, "reference": "A"}
    _assert_same(pfs.proxy_report(sdf, **args), polars_fair.proxy_report(people, **args).collect())
    with pytest.raises(E.InvalidArgumentError) as info:
        pfs.membership_calibration(sdf, membership=MEMBERSHIP, known="known")
    # issue 24 third review: "got DataFrame" did not say it was a Spark DataFrame
    kind, advice = E.CALIBRATION_INPUTS["pyspark"], E.CALIBRATION_INPUT_ROWS["pyspark"]
    assert str(info.value) == E.CALIBRATION_POLARS_ONLY.format(type=kind, advice=advice)
    assert "got a Spark DataFrame (pyspark.sql.DataFrame); collect its rows first" in str(
        info.value)
