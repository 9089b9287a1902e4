"""reference="largest" on estimated membership reads the effective size (issue 24 review 7).

Kish's n_eff = (Σ p)² / Σ p², not ``n`` (every row with a positive probability) nor
``weight_sum`` (Σ p), decides which group is the largest; ties go to the first group.
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
#: so by n (or weight_sum) a is the largest, by n_eff b (tied with c, listed first).
PEOPLE = pl.DataFrame({
    "p_a": [1.0, 1.0, 0.1, 0.1, 0.1, 0.1],
    "p_b": [0.0, 0.0, 0.55, 0.55, 0.55, 0.55],
    "p_c": [0.0, 0.0, 0.35, 0.35, 0.35, 0.35],
    "y_pred": [1, 0, 1, 1, 0, 0],
})
MEMBERSHIP = {"g": {"a": "p_a", "b": "p_b", "c": "p_c"}}


def test_report_largest_is_the_largest_effective_size() -> None:
    report = PEOPLE.fair.report(membership=MEMBERSHIP, y_true=None, y_pred="y_pred")
    assert report["n"].to_list() == [6, 4, 4]
    assert report["n_effective"].to_list() == pytest.approx([2.4**2 / 2.04, 4.0, 4.0],
                                                            abs=1e-12)
    assert report["is_reference"].to_list() == [False, True, False]


def test_every_rule_reads_n_effective_for_support() -> None:
    # min_support 3: only b and c (n_eff 4) are supported although a has n = 6 rows
    summary = PEOPLE.fair.impact_analysis(membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                                          reference="max_selection_rate", min_support=3)
    # weighted selection rates: a (1 + 0.1 + 0.1) / 2.4 = 0.5, b 1.1 / 2.2 = 0.5,
    # c 0.7 / 1.4 = 0.5: a tie, so the first supported group, b, not a
    assert summary.filter(pl.col("is_reference"))["g"].to_list() == ["b"]


def test_proxy_report_largest_is_the_largest_effective_size() -> None:
    proxy = PEOPLE.fair.proxy_report(None, membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                                     min_support=0)
    assert proxy["weight_sum"].to_list() == pytest.approx([2.4, 2.2, 1.4], abs=1e-12)
    assert proxy["is_reference"].to_list() == [False, True, False]


def test_disparity_largest_is_the_largest_effective_size() -> None:
    # the same rule as report (review 8, item 1): by n a (6 rows), by n_eff b (4, tied with c)
    disparity = PEOPLE.fair.disparity(membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                                      reference="largest")
    assert disparity["g"].to_list() == ["a", "b", "c"]
    assert disparity["is_reference"].to_list() == [False, True, False]
    # b's selections: 2 · 0.55 = 1.1 of 2.2, the reference's counts on every row
    assert disparity["reference_numerator"].to_list() == pytest.approx([1.1] * 3, abs=1e-12)
    assert disparity["reference_denominator"].to_list() == pytest.approx([2.2] * 3, abs=1e-12)
