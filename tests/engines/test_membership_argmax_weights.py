"""The argmax estimator with sample weights of 0 (issue 24, third review item 2).

A row of weight 0 adds nothing to any weighted figure, so the crisp weighted audit does not
count it as support (``n_positive_weight``). The argmax table is the crisp table of the most
likely group: it must carry ``n_positive_weight`` on every engine, and its report (support
flags, intervals) must equal the crisp audit of a column holding the argmax group.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]
MEMBERSHIP = {"g": {"a": "p_a", "b": "p_b"}}


def _rows() -> pl.DataFrame:
    """a (p_a = 0.9): 3 rows of weight 1 (tp, fp, tn) and 3 of weight 0; b (p_a = 0.1): 4 rows
    of weight 1 (tp, fn, tn, tn).

    By hand: a has n = 6 rows, weight_sum 3, n_positive_weight 3; b n = 4, weight_sum 4,
    n_positive_weight 4. min_support=4 flags a (3 rows of positive weight < 4), not b; with
    n = 6 counted as support (the old argmax table) a would not be flagged.
    """
    g = ["a"] * 6 + ["b"] * 4
    return pl.DataFrame({
        "g_argmax": g, "y_true": [1, 0, 0, 1, 1, 1, 1, 1, 0, 0],
        "y_pred": [1, 1, 0, 1, 1, 1, 1, 0, 0, 0],
        "w": [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
        "p_a": [0.9 if v == "a" else 0.1 for v in g],
        "p_b": [0.1 if v == "a" else 0.9 for v in g],
    })


HAND = [("a", 6, 1.0, 1.0, 0.0, 1.0, 3.0, 3), ("b", 4, 1.0, 0.0, 1.0, 2.0, 4.0, 4)]


def _on(route: str, df: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    if route == "spark":
        return request.getfixturevalue("spark").createDataFrame(df.to_arrow())
    if route == "duckdb":
        return request.getfixturevalue("duck").from_arrow(df.to_arrow())
    return df.lazy() if route == "lazy" else df


@pytest.mark.parametrize("route", ["eager", "lazy", "duckdb", "spark"])
def test_the_argmax_table_counts_the_rows_of_positive_weight(
        route: str, request: pytest.FixtureRequest) -> None:
    counts = polars_fair.counts(_on(route, _rows(), request), membership=MEMBERSHIP,
                                membership_estimator="argmax", sample_weight="w")
    table = counts.frame.collect()
    assert table.columns == ["g", "n", "tp", "fp", "fn", "tn", "weight_sum",
                             "n_positive_weight"]
    assert table.schema["n_positive_weight"] == pl.Int64
    assert table.rows() == HAND


def test_unweighted_argmax_has_no_such_column() -> None:
    table = _rows().fair.confusion(membership=MEMBERSHIP, membership_estimator="argmax")
    assert "n_positive_weight" not in table.columns


@pytest.mark.parametrize("method", ["report", "metrics", "impact_analysis", "disparity"])
def test_argmax_with_zero_weights_equals_the_crisp_audit_of_the_argmax_group(
        method: str) -> None:
    df = _rows()
    options: dict[str, Any] = {"min_support": 4} if method != "disparity" else {}
    want = getattr(df.with_columns(pl.col("g_argmax").alias("g")).fair, method)(
        "g", sample_weight="w", **options)
    got = getattr(df.fair, method)(membership=MEMBERSHIP, membership_estimator="argmax",
                                   sample_weight="w", **options)
    assert_frame_equal(got, want, check_exact=True)
    if method == "report":
        assert got["low_support"].to_list() == [True, False]  # 3 rows of positive weight < 4


def test_the_proxy_report_s_argmax_interval_counts_the_rows_of_positive_weight() -> None:
    # the proxy report's argmax column reads the same table: its Wilson interval of a's
    # selection rate (weight 2 of 3 selected) is on a's 3 rows of positive weight, the crisp
    # weighted audit's, not on its 6 rows
    df = _rows()
    proxy = df.drop("g_argmax").fair.proxy_report(membership=MEMBERSHIP, sample_weight="w",
                                                  reference="b")
    crisp = df.fair.metrics("g_argmax", sample_weight="w").filter(
        pl.col("metric") == "selection_rate").sort("g_argmax")
    for got, want in (("selection_rate_argmax_ci_low", "ci_low"),
                      ("selection_rate_argmax_ci_high", "ci_high")):
        assert proxy.sort("g")[got].to_list() == pytest.approx(crisp[want].to_list(),
                                                                rel=1e-12)
    assert proxy.sort("g")["n_argmax"].to_list() == [6, 4]  # the rows, as shown
