"""Which statistics of one-hot memberships with sample weights equal the crisp audit's (issue 24).

The membership guide lists them: with ``sample_weight=`` the weighted estimator's counts, rates,
``impact_ratio``, ``shortfall`` and the stratified ``gap`` are the crisp attribute's, while what
counts people reads Kish's ``n_effective`` of w·p instead of the rows of positive weight: the
tests, ``flip_impact_ratio`` (one more person of the group's mean weight, weight_sum / support
size) and ``mh_odds_ratio`` (each stratum weighted by its size). Hand values below.
"""

from __future__ import annotations

import polars as pl
import pytest

MEMBERSHIP = {"g": {"a": "pa", "b": "pb"}}


def _frame() -> pl.DataFrame:
    # stratum x: a weighs (1, 1), selects (1, 0); b weighs (1, 3), selects (1, 0)
    # stratum y: a weighs (1, 1, 1, 1), selects (1, 1, 1, 0); b weighs (1, 3), selects (1, 0)
    g = ["a", "a", "b", "b", "a", "a", "a", "a", "b", "b"]
    return pl.DataFrame({
        "g": pl.Series(g, dtype=pl.Enum(["a", "b"])),
        "dept": ["x"] * 4 + ["y"] * 6, "y_true": [1, 0] * 5,
        "y_pred": [1, 0, 1, 0, 1, 1, 1, 0, 1, 0],
        "w": [1.0, 1.0, 1.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 3.0],
    }).with_columns(pa=(pl.col("g") == "a").cast(pl.Float64),
                    pb=(pl.col("g") == "b").cast(pl.Float64))


def test_flip_impact_ratio_moves_one_person_of_the_support_size() -> None:
    df = _frame()
    crisp = df.fair.counts("g", sample_weight="w").impact_analysis(reference="a").collect()
    member = df.drop("g").fair.counts(membership=MEMBERSHIP, sample_weight="w").impact_analysis(
        reference="a").collect()
    b_crisp, b_member = crisp.row(1, named=True), member.row(1, named=True)
    # a: selected 1 + 3 = 4 of weight 6 (rate 2/3); b: 1 + 1 = 2 of 8 (rate 1/4)
    for b in (b_crisp, b_member):
        assert b["impact_ratio"] == pytest.approx((1 / 4) / (2 / 3), rel=1e-12)
        assert b["shortfall"] == pytest.approx(8 * 2 / 3 - 2, rel=1e-12)
    # crisp: one row of b's mean weight, 8 / 4 rows = 2: ((2 + 2) / 8) / (2/3) = 0.75
    assert b_crisp["flip_impact_ratio"] == pytest.approx(0.75, rel=1e-12)
    # membership: n_eff of b = 8² / (1 + 9 + 1 + 9) = 3.2 (< its 4 rows): the unit is
    # 8 / 3.2 = 2.5, ((2 + 2.5) / 8) / (2/3) = 0.84375
    assert b_member["flip_impact_ratio"] == pytest.approx(0.84375, rel=1e-12)
    assert b_member["z"] != pytest.approx(b_crisp["z"], rel=1e-6)  # the tests count n_eff


def test_mh_odds_ratio_weights_each_stratum_by_its_size() -> None:
    df = _frame()
    crisp = df.fair.counts(["g", "dept"], sample_weight="w").stratified(
        by="g", strata="dept", reference="a").collect()
    member = df.drop("g").fair.counts("dept", membership=MEMBERSHIP, sample_weight="w").stratified(
        by="g", strata="dept", reference="a").collect()
    b_crisp, b_member = crisp.row(1, named=True), member.row(1, named=True)
    assert b_member["impact_ratio"] == pytest.approx(b_crisp["impact_ratio"], rel=1e-12)
    assert b_member["gap"] == pytest.approx(b_crisp["gap"], rel=1e-12)
    # MH: Σ (s_b · f_a / N) / Σ (f_b · s_a / N), each side's weighted rate times its size
    # (s selected, f not). Crisp, sizes in rows: x: b 1/4 of 2 -> s 0.5, f 1.5; a 1/2 of 2
    # -> 1, 1; N 4. y: b 0.5, 1.5; a 3/4 of 4 -> 3, 1; N 6.
    # (0.5·1/4 + 0.5·1/6) / (1.5·1/4 + 1.5·3/6) = (5/24) / (9/8) = 5/27
    assert b_crisp["mh_odds_ratio"] == pytest.approx(5 / 27, rel=1e-12)
    # membership: b's size is n_eff = 4² / (1 + 9) = 1.6 in each stratum -> s 0.4, f 1.2;
    # x: N 3.6, y: N 5.6: (0.4/3.6 + 0.4/5.6) / (1.2/3.6 + 3.6/5.6) = (23/126) / (41/42) = 23/123
    assert b_member["mh_odds_ratio"] == pytest.approx(23 / 123, rel=1e-12)
