"""Fisher's exact test without scipy.stats (polars_fair.core.fisher), against hand counts,
exact fractions and scipy.stats.fisher_exact (the test-only oracle)."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import fisher_exact

from polars_fair.core import stats
from polars_fair.core.fisher import MAX_TABLES, fisher_exact_pvalue, fisher_tables


def exact_reference(a: int, b: int, c: int, d: int) -> float:
    """scipy's two-sided rule on exact fractions (math.comb), rounded once to a double."""
    n1, n2, n = a + b, c + d, a + c
    if 0 in (n1, n2, n, b + d):
        return 1.0
    lo, hi = max(0, n - n2), min(n, n1)
    w = {k: math.comb(n1, k) * math.comb(n2, n - k) for k in range(lo, hi + 1)}
    mode = min(max((n + 1) * (n1 + 1) // (n1 + n2 + 2), lo), hi)
    slack = Fraction(1, 10**14)
    if abs(w[a] - w[mode]) <= slack * max(w[a], w[mode]):
        return 1.0
    limit = w[a] * (1 + slack)
    if a < mode:
        tail = sum(w[k] for k in range(lo, a + 1)) + sum(
            w[k] for k in range(mode, hi + 1) if w[k] < limit)
    else:
        tail = sum(w[k] for k in range(a, hi + 1)) + sum(
            w[k] for k in range(lo, mode + 1) if w[k] <= limit)
    return min(1.0, float(Fraction(tail, math.comb(n1 + n2, n))))


def test_tea_tasting_by_hand() -> None:
    # 4 of 8 cups chosen: C(4, k) C(4, 4 - k) = 1, 16, 36, 16, 1 ways for k = 0..4 (total 70)
    assert fisher_exact_pvalue(3, 1, 1, 3) == (1 + 16 + 16 + 1) / 70
    assert fisher_exact_pvalue(4, 0, 0, 4) == 2 / 70
    assert fisher_exact_pvalue(2, 2, 2, 2) == 1.0  # the mode itself


def test_asymmetric_margins_by_hand() -> None:
    # [[2, 8], [9, 5]]: n1 = 10, n2 = 14, n = 11; P(k) = C(10, k) C(14, 11 - k) / C(24, 11)
    weights = [364, 10010, 90090, 360360, 720720, 756756, 420420, 120120, 16380, 910, 14]
    assert weights == [math.comb(10, k) * math.comb(14, 11 - k) for k in range(11)]
    assert math.comb(24, 11) == sum(weights) == 2496144
    # no more probable than the observed 90,090: k = 0, 1, 2 and, past the mode, 8, 9, 10
    expected = (364 + 10010 + 90090 + 16380 + 910 + 14) / 2496144
    assert fisher_exact_pvalue(2, 8, 9, 5) == expected
    assert fisher_exact_pvalue(2, 8, 9, 5) == pytest.approx(
        fisher_exact([[2, 8], [9, 5]]).pvalue, rel=1e-12)


def test_empty_margins_give_one() -> None:
    for table in [(0, 0, 3, 4), (3, 4, 0, 0), (0, 5, 0, 7), (5, 0, 7, 0)]:
        assert fisher_exact_pvalue(*table) == 1.0
        assert fisher_exact([[table[0], table[1]], [table[2], table[3]]]).pvalue == 1.0


def test_negative_cell_raises() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        fisher_exact_pvalue(-1, 2, 3, 4)


def _tables(seed: int) -> list[tuple[int, int, int, int]]:
    rng = np.random.default_rng(seed)
    out = [tuple(int(v) for v in rng.integers(0, 40, 4)) for _ in range(1500)]
    for s in range(1, 25):  # mirrored tables: exact ties on both sides of the mode
        out.extend((a, s - a, s - a, a) for a in range(s + 1))
    for _ in range(300):  # rare outcomes in groups of unequal size (the audit's tables)
        n1, n2 = (int(v) for v in rng.integers(1, 2500, 2))
        p = rng.uniform(0, 0.1)
        a, c = int(rng.binomial(n1, p)), int(rng.binomial(n2, p))
        out.append((a, n1 - a, c, n2 - c))
    return [(t[0], t[1], t[2], t[3]) for t in out]


def test_equals_the_exact_fraction_and_scipy_on_random_and_tied_tables() -> None:
    worst = 0.0
    for a, b, c, d in _tables(0):
        ours = fisher_exact_pvalue(a, b, c, d)
        assert ours == exact_reference(a, b, c, d), (a, b, c, d)
        theirs = float(fisher_exact([[a, b], [c, d]]).pvalue)
        worst = max(worst, abs(ours - theirs) / theirs)
    assert worst < 1e-12  # scipy's floating-point tails agree to their last bits


def test_ties_follow_scipys_slack() -> None:
    # a symmetric distribution: k and n - k are equally probable, so both tails count
    for a in range(0, 11):
        table = (a, 10 - a, 10 - a, a)
        assert fisher_exact_pvalue(*table) == pytest.approx(
            fisher_exact([[table[0], table[1]], [table[2], table[3]]]).pvalue, rel=1e-12)
    # mirrored: the same p-value from either tail
    assert fisher_exact_pvalue(2, 8, 8, 2) == fisher_exact_pvalue(8, 2, 2, 8)


def test_large_tables_go_to_scipy() -> None:
    table = (60_000, 60_000, 59_000, 61_000)
    assert fisher_tables(*table) > MAX_TABLES
    got = stats.two_proportion_test(60_000, 120_000, 59_000, 120_000, method="fisher")
    assert float(got) == fisher_exact([[60_000, 60_000], [59_000, 61_000]]).pvalue
    small = stats.two_proportion_test(7, 119, 5097, 19174, method="fisher")
    assert float(small) == fisher_exact_pvalue(7, 112, 5097, 14077)


def test_two_proportion_test_does_not_import_scipy_stats() -> None:
    code = ("import sys; from polars_fair.core import stats; "
            "p = stats.two_proportion_test([3, 7], [10, 119], [40, 5097], [50, 19174], "
            "method='fisher'); stats.wilson_interval(3, 10); "
            "stats.two_proportion_test(300, 1000, 400, 1000, method='z'); "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
