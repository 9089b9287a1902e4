"""The attenuation factor of a group without weight is null, never NaN or a silent 1 (issue 24).

attenuation = Var(p) / (μ(1 − μ)), μ = Σ w·p / Σ w: a group whose probabilities are all 0 in a
cell, or whose rows all weigh 0, has μ = 0 or 0/0 (NaN), and the factor is undefined. NaN
compares above 1 in Polars, so a cell whose rows all weigh 0 took the crisp branch (μ ≥ 1) and
read 1.0. Its rates are null too, and the report's finding states why: "insufficient support".
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair

MEMBERSHIP = {"g": {"a": "pa", "b": "pb", "c": "pc"}}


def _frame() -> pl.DataFrame:
    # cell s=x: (pa, pb, pc, w) = (0.5, 0.5, 0, 1), (1, 0, 0, 2); cell s=y: two rows of weight 0;
    # group c has probability 0 everywhere
    return pl.DataFrame({"s": ["x", "x", "y", "y"], "y_true": [1, 0, 1, 0],
                         "y_pred": [1, 1, 0, 0], "pa": [0.5, 1.0, 0.2, 0.5],
                         "pb": [0.5, 0.0, 0.8, 0.5], "pc": [0.0, 0.0, 0.0, 0.0],
                         "w": [1.0, 2.0, 0.0, 0.0]})


def _attenuation(frame: pl.DataFrame, key: list[str]) -> dict[tuple[object, ...], object]:
    return {tuple(r[k] for k in key): r["attenuation"] for r in frame.iter_rows(named=True)}


@pytest.mark.parametrize("route", ["eager", "duckdb"])
def test_attenuation_is_null_where_a_group_has_no_weight(route: str) -> None:
    df = _frame()
    frame = df
    if route == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        frame = duckdb.from_arrow(df.to_arrow())
    counts = polars_fair.counts(frame, "s", membership=MEMBERSHIP, sample_weight="w")
    got = _attenuation(counts.frame.collect(), ["g", "s"])
    # cell x, a: S = 0.5 + 2 = 2.5, W = 3, μ = 5/6, Σ w·p² = 0.25 + 2 = 2.25,
    # Var = 2.25 / 3 − 25/36 = 1/18, μ(1 − μ) = 5/36: 0.4; b: S = 0.5, μ = 1/6, Σ w·p² = 0.25,
    # Var = 1/12 − 1/36 = 1/18, μ(1 − μ) = 5/36: 0.4
    assert got[("a", "x")] == pytest.approx(0.4, rel=1e-12)
    assert got[("b", "x")] == pytest.approx(0.4, rel=1e-12)
    # cell y weighs 0 (μ = 0/0), group c has p = 0 (μ = 0): null, not 1.0, not NaN
    for key in [("a", "y"), ("b", "y"), ("c", "x"), ("c", "y")]:
        assert got[key] is None, key


def test_report_states_why_and_the_roll_up_agrees() -> None:
    df = _frame()
    counts = df.fair.counts("s", membership=MEMBERSHIP, sample_weight="w")
    report = counts.report(reference={"g": "a", "s": "x"}, min_support=0).collect()
    for r in report.iter_rows(named=True):
        if r["weight_sum"] == 0:
            assert r["attenuation"] is None
            assert r["selection_rate"] is None
            assert r["finding"] == "insufficient support"
    # rolled up to g (the y cell adds no weight): a and b 0.4 as in cell x, c null
    coarse = _attenuation(counts.report(by=["g"], reference="a", min_support=0).collect(),
                          ["g"])
    assert coarse[("a",)] == pytest.approx(0.4, rel=1e-12)
    assert coarse[("b",)] == pytest.approx(0.4, rel=1e-12)
    assert coarse[("c",)] is None
    # a table counted on the y rows only: every group weighs 0, every attenuation null
    only_y = df.filter(pl.col("s") == "y").fair.counts(membership=MEMBERSHIP,
                                                        sample_weight="w").frame.collect()
    assert only_y["attenuation"].null_count() == 3


def test_proxy_report_states_why_a_weightless_group_is_null() -> None:
    # group b's one row weighs 0 (its p = 1 there): Σ w·p = 0, so its attenuation, its rates
    # and its regression fit are null, and regression_reason says the group weighs nothing
    from polars_fair.analyses.membership_regression import REASON_EMPTY

    df = pl.DataFrame({"y_pred": [1, 1, 0, 0], "pa": [1.0, 1.0, 0.0, 0.5],
                       "pb": [0.0, 0.0, 1.0, 0.0], "pc": [0.0, 0.0, 0.0, 0.5],
                       "w": [1.0, 2.0, 0.0, 1.0]})
    got = polars_fair.proxy_report(df, membership=MEMBERSHIP, y_true=None, sample_weight="w",
                                   reference="a", min_support=0).collect()
    b = got.filter(pl.col("g") == "b").row(0, named=True)
    assert b["weight_sum"] == 0.0
    assert b["attenuation"] is None
    assert b["selection_rate_weighted"] is None
    assert b["regression_reason"] == REASON_EMPTY
    assert "every row with a positive probability weighs 0" in REASON_EMPTY
