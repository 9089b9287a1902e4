"""reference="largest" and support on estimated membership read the support size.

The support size is the expected group size Σ p (``weight_sum``) bounded by Kish's
n_eff = (Σ p)² / Σ p² (:func:`polars_fair.core.reference.support_rows`), not ``n`` (every row
with a positive probability) nor n_eff alone, which does not change when every probability is
scaled (issue 24 re-review 2, item 1: the earlier rule, n_eff alone, made 1,000 rows at
p = 0.1 as large as 1,000 known members; these tests asserted it and now assert the fix).
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)

#: 2 rows surely in a; 4 rows split a 0.1, b 0.55, c 0.35.
#: By hand:  n:          a 6,                 b 4,   c 4
#:           weight_sum: a 2 + 0.4 = 2.4,     b 2.2, c 1.4
#:           Σ p²:       a 2 + 4·0.01 = 2.04, b 4·0.3025 = 1.21, c 4·0.1225 = 0.49
#:           n_eff:      a 2.4² / 2.04 = 2.8235..., b 2.2² / 1.21 = 4, c 1.4² / 0.49 = 4
#:           support:    min(Σp, n_eff): a 2.4, b 2.2, c 1.4
#: so by the support size a is the largest (by n_eff alone it was b).
PEOPLE = pl.DataFrame({
    "p_a": [1.0, 1.0, 0.1, 0.1, 0.1, 0.1],
    "p_b": [0.0, 0.0, 0.55, 0.55, 0.55, 0.55],
    "p_c": [0.0, 0.0, 0.35, 0.35, 0.35, 0.35],
    "y_pred": [1, 0, 1, 1, 0, 0],
})
MEMBERSHIP = {"g": {"a": "p_a", "b": "p_b", "c": "p_c"}}

#: The guide's case in small: ten groups g0..g9 each at p = 0.1 on the same 40 rows, and a
#: group k of 6 known members (p = 1).
#: By hand:  g_i: n 40, Σp = 40·0.1 = 4, Σp² = 40·0.01 = 0.4, n_eff = 4² / 0.4 = 40,
#:                support min(4, 40) = 4
#:           k:   n 6,  Σp = 6,          Σp² = 6,           n_eff = 6² / 6 = 6,
#:                support min(6, 6) = 6
#: Selection: 20 of the 40 uncertain rows (rate 10·0.1 / 40·0.1 = 0.5 for every g_i) and 2 of
#: the 6 known ones (k: 1/3).
_G = [f"g{i}" for i in range(10)]
UNCERTAIN = pl.DataFrame({
    **{f"p_{g}": [0.1] * 40 + [0.0] * 6 for g in _G},
    "p_k": [0.0] * 40 + [1.0] * 6,
    "y_pred": [1, 0] * 20 + [1, 1, 0, 0, 0, 0],
})
UNCERTAIN_MEMBERSHIP = {"g": {**{g: f"p_{g}" for g in _G}, "k": "p_k"}}


def test_report_largest_is_the_largest_support_size() -> None:
    report = PEOPLE.fair.report(membership=MEMBERSHIP, y_true=None, y_pred="y_pred")
    assert report["n"].to_list() == [6, 4, 4]
    assert report["n_effective"].to_list() == pytest.approx([2.4**2 / 2.04, 4.0, 4.0],
                                                            abs=1e-12)
    assert report["weight_sum"].to_list() == pytest.approx([2.4, 2.2, 1.4], abs=1e-12)
    assert report["is_reference"].to_list() == [True, False, False]


def test_ten_uncertain_rows_weigh_one_known_member() -> None:
    report = UNCERTAIN.fair.report(membership=UNCERTAIN_MEMBERSHIP, y_true=None,
                                   y_pred="y_pred", min_support=5)
    assert report["g"].to_list() == [*_G, "k"]
    assert report["n"].to_list() == [40] * 10 + [6]
    assert report["weight_sum"].to_list() == pytest.approx([4.0] * 10 + [6.0], abs=1e-12)
    assert report["n_effective"].to_list() == pytest.approx([40.0] * 10 + [6.0], abs=1e-9)
    # the largest support size is k (6 > 4), though every g_i has n = n_eff = 40
    assert report["is_reference"].to_list() == [False] * 10 + [True]
    # min_support 5: each g_i's support 4 < 5 is low (its n_eff 40 is not), k's 6 is not
    assert report["low_support"].to_list() == [True] * 10 + [False]
    # the highest selection rate among the supported groups is k's 1/3: g_i's 0.5 / (1/3)
    assert report["impact_ratio"].to_list() == pytest.approx([1.5] * 10 + [1.0], abs=1e-12)


def test_every_rule_reads_the_support_size() -> None:
    # max_selection_rate prefers a supported group: k (support 6 >= 5), not g0 (rate 0.5 but
    # support 4; by n_eff, 40, it was supported and chosen)
    impact = UNCERTAIN.fair.impact_analysis(membership=UNCERTAIN_MEMBERSHIP, y_true=None,
                                            y_pred="y_pred", reference="max_selection_rate",
                                            min_support=5)
    assert impact.filter(pl.col("is_reference"))["g"].to_list() == ["k"]
    assert impact["low_support"].to_list() == [True] * 10 + [False]
    for support, low in ((5, True), (3.5, False)):  # the g_i's support 4 is low only at 5
        summary = UNCERTAIN.fair.summary(membership=UNCERTAIN_MEMBERSHIP, y_true=None,
                                         y_pred="y_pred", min_support=support)
        row = summary.filter(pl.col("metric") == "demographic_parity_difference")
        assert row["low_support"].to_list() == [low]


def test_metrics_low_support_reads_the_support_size() -> None:
    # a rate's own denominator in support size: g0's selection rate has the denominator
    # Σp = 4 (support 4 / 4 = 1 per unit of weight), k's 6; min_support 5 flags g0 only
    tidy = UNCERTAIN.fair.metrics(membership=UNCERTAIN_MEMBERSHIP, y_true=None,
                                  y_pred="y_pred", min_support=5)
    low = dict(tidy.filter(pl.col("metric") == "selection_rate")
               .select("g", "low_support").iter_rows())
    assert low == {**{g: True for g in _G}, "k": False}


def test_proxy_report_largest_is_the_largest_support_size() -> None:
    proxy = PEOPLE.fair.proxy_report(None, membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                                     min_support=0)
    assert proxy["weight_sum"].to_list() == pytest.approx([2.4, 2.2, 1.4], abs=1e-12)
    assert proxy["is_reference"].to_list() == [True, False, False]
    proxy = UNCERTAIN.fair.proxy_report(None, membership=UNCERTAIN_MEMBERSHIP, y_true=None,
                                        y_pred="y_pred", min_support=5)
    assert proxy["is_reference"].to_list() == [False] * 10 + [True]
    assert proxy["low_support"].to_list() == [True] * 10 + [False]


def test_disparity_largest_is_the_largest_support_size() -> None:
    # the same rule as report: by n a (6 rows), by n_eff b (4), by the support size a (2.4)
    disparity = PEOPLE.fair.disparity(membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                                      reference="largest")
    assert disparity["g"].to_list() == ["a", "b", "c"]
    assert disparity["is_reference"].to_list() == [True, False, False]
    # a's selections: 1 + 2 · 0.1 = 1.2 of 2.4, the reference's counts on every row
    assert disparity["reference_numerator"].to_list() == pytest.approx([1.2] * 3, abs=1e-12)
    assert disparity["reference_denominator"].to_list() == pytest.approx([2.4] * 3, abs=1e-12)
    disparity = UNCERTAIN.fair.disparity(membership=UNCERTAIN_MEMBERSHIP, y_true=None,
                                         y_pred="y_pred", reference="largest")
    assert disparity.filter(pl.col("is_reference"))["g"].to_list() == ["k"]


def test_the_gate_decides_on_the_support_size() -> None:
    from polars_fair.audit.gate import gate

    counts = polars_fair.counts(UNCERTAIN, membership=UNCERTAIN_MEMBERSHIP, y_true=None,
                                y_pred="y_pred")
    table = gate(counts, min_support=5).filter(pl.col("metric") == "impact_ratio")
    assert table["checked"].to_list() == [False] * 10 + [True]
    assert table.filter(pl.col("is_reference"))["g"].to_list() == ["k"]
