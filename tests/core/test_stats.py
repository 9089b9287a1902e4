"""Tests for polars_fair.core.stats: oracles, hand computations, coverage, properties."""

from __future__ import annotations

import math
import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

import polars_fair.core.stats as fs

Z95 = 1.959963984540054  # Phi^{-1}(0.975)


# --------------------------------------------------------------------------------------------
# Wilson
# --------------------------------------------------------------------------------------------
def test_wilson_matches_hand_computation_for_8_of_10() -> None:
    x, n, z = 8.0, 10.0, Z95
    centre = (x + z**2 / 2) / (n + z**2)
    half = z / (n + z**2) * math.sqrt(x * (n - x) / n + z**2 / 4)
    low, high = fs.wilson_interval(8, 10)
    assert float(low) == pytest.approx(centre - half, abs=1e-12)
    assert float(high) == pytest.approx(centre + half, abs=1e-12)
    # The same numbers, written out: 0.4902 to 0.9433.
    assert (round(float(low), 4), round(float(high), 4)) == (0.4902, 0.9433)


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_wilson_matches_scipy_binomtest_oracle(level: float) -> None:
    cases = [(0, 1), (0, 7), (1, 7), (3, 30), (15, 30), (29, 30), (30, 30), (123, 1000)]
    x = np.array([c[0] for c in cases])
    n = np.array([c[1] for c in cases])
    low, high = fs.wilson_interval(x, n, level=level)
    for i, (k, m) in enumerate(cases):
        ci = sps.binomtest(k, m).proportion_ci(confidence_level=level, method="wilson")
        assert low[i] == pytest.approx(ci.low, abs=1e-12)
        assert high[i] == pytest.approx(ci.high, abs=1e-12)


def test_wilson_zero_trials_is_nan_and_nan_propagates() -> None:
    low, high = fs.wilson_interval([0, 3, np.nan], [0, 5, 5])
    assert np.isnan(low[0]) and np.isnan(high[0])
    assert np.isfinite(low[1]) and np.isfinite(high[1])
    assert np.isnan(low[2]) and np.isnan(high[2])


def test_wilson_accepts_float_weighted_counts() -> None:
    # Weighted counts: the formula is applied to the weight sums as they are.
    x, n, z = 2.5, 7.25, Z95
    centre = (x + z**2 / 2) / (n + z**2)
    half = z / (n + z**2) * math.sqrt(x * (n - x) / n + z**2 / 4)
    low, high = fs.wilson_interval(x, n)
    assert float(low) == pytest.approx(centre - half, abs=1e-12)
    assert float(high) == pytest.approx(centre + half, abs=1e-12)


def test_wilson_bad_inputs_raise_with_message_constants() -> None:
    with pytest.raises(ValueError, match=re.escape(fs.LEVEL_MESSAGE.format(level=1.5))):
        fs.wilson_interval(1, 2, level=1.5)
    with pytest.raises(
        ValueError,
        match=re.escape(fs.NEGATIVE_COUNT_MESSAGE.format(name="successes", values="[-1]")),
    ):
        fs.wilson_interval(-1, 2)
    with pytest.raises(
        ValueError,
        match=re.escape(
            fs.SUCCESSES_ABOVE_TRIALS_MESSAGE.format(
                successes="successes", trials="trials", pairs="[3/2]"
            )
        ),
    ):
        fs.wilson_interval([1, 3], [2, 2])


def test_wilson_exprs_match_numpy_and_give_null_for_zero_trials() -> None:
    rng = np.random.default_rng(7)
    n = rng.integers(0, 50, size=200)
    x = rng.integers(0, n + 1)
    low_np, high_np = fs.wilson_interval(x, n, level=0.9)
    low_e, high_e = fs.wilson_exprs("x", "n", level=0.9)
    out = pl.LazyFrame({"x": x, "n": n}).select(low_e.alias("low"), high_e.alias("high")).collect()
    assert out.schema == pl.Schema({"low": pl.Float64, "high": pl.Float64})
    got_low = out.get_column("low").to_numpy()
    got_high = out.get_column("high").to_numpy()
    assert np.array_equal(np.isnan(low_np), out.get_column("low").is_null().to_numpy())
    assert np.allclose(got_low, low_np, equal_nan=True, atol=1e-12)
    assert np.allclose(got_high, high_np, equal_nan=True, atol=1e-12)


def test_wilson_exprs_work_inside_group_by_agg() -> None:
    frame = pl.DataFrame({"g": ["a", "a", "b"], "tp": [3, 5, 0], "pos": [4, 6, 0]})
    low, high = fs.wilson_exprs(pl.col("tp").sum(), pl.col("pos").sum())
    out = frame.group_by("g").agg(low.alias("low"), high.alias("high")).sort("g")
    ref_low, ref_high = fs.wilson_interval(8, 10)
    assert out.get_column("low").to_list()[0] == pytest.approx(float(ref_low), abs=1e-12)
    assert out.get_column("high").to_list()[0] == pytest.approx(float(ref_high), abs=1e-12)
    assert out.get_column("low").to_list()[1] is None


# --------------------------------------------------------------------------------------------
# Newcombe difference
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x1", "n1", "x2", "n2", "low", "high"),
    [
        # Newcombe (1998) Stat. Med. 17:873, Table II, method 10, examples (a) and (b). The same
        # figures are asserted in the propint R package's tests (m-Py/propint).
        (56, 70, 48, 80, 0.0524, 0.3339),
        (9, 10, 3, 10, 0.1705, 0.8090),
    ],
)
def test_newcombe_matches_newcombe_1998_table_ii(
    x1: int, n1: int, x2: int, n2: int, low: float, high: float
) -> None:
    got_low, got_high = fs.newcombe_difference_interval(x1, n1, x2, n2)
    assert round(float(got_low), 4) == low
    assert round(float(got_high), 4) == high


def test_newcombe_matches_hand_composition_of_wilson_bounds() -> None:
    x1, n1, x2, n2 = 5, 56, 0, 29
    l1, u1 = fs.wilson_interval(x1, n1)
    l2, u2 = fs.wilson_interval(x2, n2)
    p1, p2 = x1 / n1, x2 / n2
    want_low = p1 - p2 - math.sqrt((p1 - float(l1)) ** 2 + (float(u2) - p2) ** 2)
    want_high = p1 - p2 + math.sqrt((float(u1) - p1) ** 2 + (p2 - float(l2)) ** 2)
    low, high = fs.newcombe_difference_interval(x1, n1, x2, n2)
    assert float(low) == pytest.approx(want_low, abs=1e-12)
    assert float(high) == pytest.approx(want_high, abs=1e-12)


def test_newcombe_zero_trials_is_nan() -> None:
    low, high = fs.newcombe_difference_interval([0, 1], [0, 2], [1, 0], [2, 0])
    assert np.all(np.isnan(low)) and np.all(np.isnan(high))


def test_newcombe_exprs_match_numpy() -> None:
    rng = np.random.default_rng(11)
    n1 = rng.integers(0, 40, size=100)
    n2 = rng.integers(0, 40, size=100)
    x1 = rng.integers(0, n1 + 1)
    x2 = rng.integers(0, n2 + 1)
    low_np, high_np = fs.newcombe_difference_interval(x1, n1, x2, n2)
    low_e, high_e = fs.newcombe_difference_exprs("x1", "n1", "x2", "n2")
    out = pl.DataFrame({"x1": x1, "n1": n1, "x2": x2, "n2": n2}).select(
        low_e.alias("low"), high_e.alias("high")
    )
    assert np.array_equal(np.isnan(low_np), out.get_column("low").is_null().to_numpy())
    assert np.allclose(out.get_column("low").to_numpy(), low_np, equal_nan=True, atol=1e-12)
    assert np.allclose(out.get_column("high").to_numpy(), high_np, equal_nan=True, atol=1e-12)


# --------------------------------------------------------------------------------------------
# Ratio (MOVER-R Wilson)
# --------------------------------------------------------------------------------------------
def _wilson_sm(x: float, n: float) -> tuple[float, float]:
    """statsmodels' Wilson interval: the oracle of the two rates' intervals."""
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(x, n, alpha=0.05, method="wilson")
    return float(low), float(high)


def _mover_r_by_root(x1: float, n1: float, x2: float, n2: float, rho: float = 0.0
                     ) -> tuple[float, float]:
    """The MOVER-R bounds as roots of their defining equation, found numerically (brentq).

    L solves p1 - L p2 = sqrt(e1^2 + L^2 e2^2 - 2 rho L e1 e2) with e1 = p1 - l1,
    e2 = u2 - p2 (Zou & Donner 2008); U the same with e1 = u1 - p1, e2 = p2 - l2 and the sign
    of the left side reversed. Independent of the closed form in the code.
    """
    from scipy.optimize import brentq

    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = _wilson_sm(x1, n1)
    l2, u2 = _wilson_sm(x2, n2)
    r = p1 / p2

    def lower(t: float) -> float:
        e1, e2 = p1 - l1, u2 - p2
        return p1 - t * p2 - math.sqrt(max(e1**2 + t**2 * e2**2 - 2 * rho * t * e1 * e2, 0.0))

    def upper(t: float) -> float:
        e1, e2 = u1 - p1, p2 - l2
        return t * p2 - p1 - math.sqrt(max(e1**2 + t**2 * e2**2 - 2 * rho * t * e1 * e2, 0.0))

    low = 0.0 if x1 == 0 else brentq(lower, 1e-12, r)
    return low, brentq(upper, r, 1e6)


@pytest.mark.parametrize(("x1", "n1", "x2", "n2"), [
    (30, 100, 20, 100), (22, 100, 45, 100), (3, 3, 770, 1000), (2, 3, 50, 100),
    (45, 60, 300, 500), (30, 100, 1, 100), (7.3, 12.5, 40.2, 90.7),
])
def test_ratio_is_the_root_of_the_mover_equation_on_statsmodels_wilson(
    x1: float, n1: float, x2: float, n2: float,
) -> None:
    low, high = fs.ratio_interval(x1, n1, x2, n2)
    assert (float(low), float(high)) == pytest.approx(_mover_r_by_root(x1, n1, x2, n2),
                                                      rel=1e-9)


def test_ratio_matches_hand_computation() -> None:
    # 30/100 against 20/100: r = 1.5; Wilson (l1, u1) of 0.3 and (l2, u2) of 0.2, then
    # L = l1(2 p1 - l1) / (p1 p2 + sqrt((p1 p2)^2 - l1(2 p1 - l1) u2(2 p2 - u2))) and
    # U = (p1 p2 + sqrt((p1 p2)^2 - u1(2 p1 - u1) l2(2 p2 - l2))) / (l2(2 p2 - l2)).
    p1, p2 = 0.3, 0.2
    l1, u1 = _wilson_sm(30, 100)
    l2, u2 = _wilson_sm(20, 100)
    c = l1 * (2 * p1 - l1)
    low = c / (p1 * p2 + math.sqrt((p1 * p2) ** 2 - c * u2 * (2 * p2 - u2)))
    a = l2 * (2 * p2 - l2)
    high = (p1 * p2 + math.sqrt((p1 * p2) ** 2 - u1 * (2 * p1 - u1) * a)) / a
    got = fs.ratio_interval(30, 100, 20, 100)
    assert (float(got[0]), float(got[1])) == pytest.approx((low, high), abs=1e-12)
    # Katz's log interval gave [0.9160, 2.4564] here: for large groups the two agree closely
    assert (round(float(got[0]), 4), round(float(got[1]), 4)) == (0.9234, 2.4452)


def test_ratio_at_a_rate_of_one_does_not_collapse() -> None:
    # The third review's case: 3 of 3 selected against a reference at 770/1000. Katz's variance
    # 1/3 - 1/3 + 1/770 - 1/1000 left only the reference's term: [1.2554, 1.3434], a sure pass
    # of the four-fifths rule. With p1 = 1 the lower bound is C / (B + sqrt(B^2 - C A)) with
    # C = l1(2 - l1), B = p2, A = u2(2 p2 - u2): about l1 / p2, where the group's own Wilson
    # interval puts it.
    l1, _ = _wilson_sm(3, 3)
    l2, u2 = _wilson_sm(770, 1000)
    p2 = 0.77
    c, a = l1 * (2 - l1), u2 * (2 * p2 - u2)
    low = c / (p2 + math.sqrt(p2**2 - c * a))
    high = 1 / l2  # p1 = u1 = 1: U = (p2 + (p2 - l2)) / (l2 (2 p2 - l2)) = 1 / l2
    got = fs.ratio_interval(3, 3, 770, 1000)
    assert (float(got[0]), float(got[1])) == pytest.approx((low, high), abs=1e-12)
    assert (round(float(got[0]), 4), round(float(got[1]), 4)) == (0.5692, 1.3461)
    assert float(got[0]) < 0.8 < 1 / p2
    # against a reference at 1 too: [l1, 1 / l1], the group's own Wilson bound below
    got = fs.ratio_interval(3, 3, 3, 3)
    assert (float(got[0]), float(got[1])) == pytest.approx((l1, 1 / l1), abs=1e-12)
    # a reference at 1 (p2 = u2 = 1, A = 1) gives the group's own Wilson bound below:
    # L = l1(2 p1 - l1) / (p1 + |p1 - l1|) = l1
    l1, _ = _wilson_sm(4, 10)
    got = fs.ratio_interval(4, 10, 200, 200)
    assert float(got[0]) == pytest.approx(l1, abs=1e-12)


def test_ratio_zero_numerator_has_lower_bound_zero() -> None:
    # 0/50 against 10/50: p1 = l1 = 0, so L = 0 and U = sqrt(u1^2 l2 (2 p2 - l2)) / (l2 (2 p2 -
    # l2)) = u1 / sqrt(l2 (2 p2 - l2)).
    _, u1 = _wilson_sm(0, 50)
    l2, _ = _wilson_sm(10, 50)
    low, high = fs.ratio_interval(0, 50, 10, 50)
    assert float(low) == 0.0
    assert float(high) == pytest.approx(u1 / math.sqrt(l2 * (0.4 - l2)), abs=1e-12)
    assert float(high) == pytest.approx(_mover_r_by_root(0, 50, 10, 50)[1], rel=1e-9)


def test_ratio_undefined_when_reference_rate_zero_or_no_trials() -> None:
    low, high = fs.ratio_interval([5, 0, 0, 3], [40, 40, 0, 10], [0, 0, 2, 0], [40, 40, 10, 0])
    assert np.all(np.isnan(low)) and np.all(np.isnan(high))


@pytest.mark.parametrize("rho", [0.3, 0.8, -0.5])
def test_ratio_with_a_correlation_is_the_root_of_the_correlated_equation(rho: float) -> None:
    low, high = fs.ratio_interval(40, 100, 55, 120, correlation=rho)
    assert (float(low), float(high)) == pytest.approx(
        _mover_r_by_root(40, 100, 55, 120, rho), rel=1e-9)
    # a positive correlation (shared rows) narrows the interval, a negative one widens it
    free = fs.ratio_interval(40, 100, 55, 120)
    width, free_width = float(high - low), float(free[1] - free[0])
    assert (width < free_width) if rho > 0 else (width > free_width)


def _exact_ratio_coverage(n1: int, p1: float, n2: int, p2: float) -> float:
    x1, x2 = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    w = np.outer(sps.binom.pmf(np.arange(n1 + 1), n1, p1), sps.binom.pmf(np.arange(n2 + 1), n2, p2))
    low, high = fs.ratio_interval(x1, n1, x2, n2)
    return float(np.sum(w * ((low <= p1 / p2) & (p1 / p2 <= high))))


@pytest.mark.parametrize(("n1", "p1", "katz"), [(3, 0.9, 0.337), (5, 0.9, 0.463), (5, 0.5, 0.846),
                                                (10, 0.9, 0.682), (30, 0.9, 0.924)])
def test_ratio_covers_a_small_group_against_a_large_reference(n1: int, p1: float,
                                                              katz: float) -> None:
    # Exact coverage (a sum over both binomial distributions) of a small group against 200 of a
    # reference at 0.8. Katz's log interval covered `katz` here (computed the same way when it
    # was replaced); its lower bound lay above the true ratio, a false pass of the rule.
    coverage = _exact_ratio_coverage(n1, p1, 200, 0.8)
    assert 0.93 <= coverage <= 0.99, coverage
    assert coverage > katz + 0.02


# --------------------------------------------------------------------------------------------
# Two-proportion tests
# --------------------------------------------------------------------------------------------
def test_z_test_matches_hand_computation() -> None:
    x1, n1, x2, n2 = 56, 70, 48, 80
    pooled = (x1 + x2) / (n1 + n2)
    z = (x1 / n1 - x2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    want = math.erfc(abs(z) / math.sqrt(2))  # = 2 * (1 - Phi(|z|))
    got = fs.two_proportion_test(x1, n1, x2, n2, method="z")
    assert float(got) == pytest.approx(want, rel=1e-12)


def test_z_test_equals_uncorrected_chi_squared_oracle() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        n1, n2 = rng.integers(20, 200, size=2)
        x1, x2 = rng.integers(1, n1), rng.integers(1, n2)
        table = [[x1, n1 - x1], [x2, n2 - x2]]
        want = sps.chi2_contingency(table, correction=False).pvalue
        got = fs.two_proportion_test(x1, n1, x2, n2, method="z")
        assert float(got) == pytest.approx(want, rel=1e-9)


def test_z_test_pooled_rate_zero_or_one_gives_one_and_zero_trials_nan() -> None:
    got = fs.two_proportion_test([0, 5, 0], [5, 5, 0], [0, 9, 1], [9, 9, 3], method="z")
    assert got[0] == 1.0 and got[1] == 1.0 and np.isnan(got[2])


def test_fisher_matches_scipy_fisher_exact() -> None:
    cases = [(3, 10, 9, 10), (0, 5, 5, 5), (1, 2, 1, 3), (7, 12, 2, 15), (0, 4, 0, 6), (4, 4, 0, 6)]
    x1, n1, x2, n2 = (np.array(c) for c in zip(*cases, strict=True))
    got = fs.two_proportion_test(x1, n1, x2, n2, method="fisher")
    for i, (a, m, b, n) in enumerate(cases):
        want = sps.fisher_exact([[a, m - a], [b, n - b]]).pvalue
        assert got[i] == pytest.approx(want, rel=1e-12)


def test_fisher_above_a_billion_applicants_gives_the_z_tests_p_on_every_method() -> None:
    """At 10^10 applicants scipy's fisher_exact overflowed (p 0.98 at z = -2); above
    FISHER_MAX_TOTAL every method gives the z-test's p, at and below it Fisher's exact one
    (:func:`test_fisher_at_the_limit_is_still_fishers_exact_test`)."""
    half = 5 * 10**9
    a, b = half // 2 - 50_000, half // 2 + 50_000  # z = -2 by hand: 1e5/5e9 / sqrt(1/4 * 2/5e9)
    z_p = fs.two_proportion_test(a, half, b, half, method="z")
    assert float(z_p) == pytest.approx(2 * sps.norm.sf(2.0), rel=1e-6)
    for method in ("fisher", "auto"):
        assert float(fs.two_proportion_test(a, half, b, half, method=method)) == float(z_p)


def test_fisher_at_the_limit_is_still_fishers_exact_test() -> None:
    """Exactly at FISHER_MAX_TOTAL the test is Fisher's exact one, as scipy computes it (both
    sum a billion-applicant tail: slow, tests/conftest.py)."""
    edge = fs.FISHER_MAX_TOTAL // 2  # exactly at the limit: still Fisher's test
    got = fs.two_proportion_test(edge // 2, edge, edge // 2 + 10, edge, method="fisher")
    want = sps.fisher_exact([[edge // 2, edge - edge // 2], [edge // 2 + 10, edge - edge // 2
                                                              - 10]]).pvalue
    assert float(got) == pytest.approx(want, rel=1e-12)


def test_auto_uses_fisher_below_expected_five_and_z_otherwise() -> None:
    small = (3, 10, 9, 10)  # expected positives per group = 6, negatives = 4 < 5 -> Fisher
    large = (56, 70, 48, 80)  # every expected cell >= 5 -> z
    got = fs.two_proportion_test(*(np.array(v) for v in zip(small, large, strict=True)),
                                 method="auto")
    fisher = sps.fisher_exact([[3, 7], [9, 1]]).pvalue
    z = fs.two_proportion_test(*large, method="z")
    assert got[0] == pytest.approx(fisher, rel=1e-12)
    assert got[1] == pytest.approx(float(z), rel=1e-12)


def test_auto_with_weighted_counts_uses_z_and_fisher_refuses_them() -> None:
    got = fs.two_proportion_test(1.5, 4.0, 3.5, 4.5, method="auto")
    assert float(got) == pytest.approx(
        float(fs.two_proportion_test(1.5, 4.0, 3.5, 4.5, method="z"))
    )
    with pytest.raises(
        ValueError, match=re.escape(fs.FISHER_INTEGER_MESSAGE.format(name="x1", values="[1.5]"))
    ):
        fs.two_proportion_test(1.5, 4.0, 3.0, 4.0, method="fisher")


def test_unknown_test_method_raises() -> None:
    with pytest.raises(ValueError, match=re.escape(fs.TEST_METHOD_MESSAGE.format(method="t"))):
        fs.two_proportion_test(1, 2, 1, 2, method="t")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Multiplicity
# --------------------------------------------------------------------------------------------
def test_holm_matches_hand_computation() -> None:
    # Sorted: .005, .01, .03, .04 (m = 4) -> 4*.005=.02, 3*.01=.03, 2*.03=.06, 1*.04=.04,
    # running maximum .02, .03, .06, .06; back in input order:
    got = fs.adjust_pvalues([0.01, 0.04, 0.03, 0.005], method="holm")
    assert np.allclose(got, [0.03, 0.06, 0.06, 0.02], atol=1e-15)


def test_bh_matches_hand_computation() -> None:
    # Sorted: .005, .01, .03, .04 -> m p/i = .02, .02, .04, .04; running minimum from the top
    # leaves them unchanged; back in input order:
    got = fs.adjust_pvalues([0.01, 0.04, 0.03, 0.005], method="bh")
    assert np.allclose(got, [0.02, 0.04, 0.04, 0.02], atol=1e-15)


def test_bh_matches_scipy_false_discovery_control() -> None:
    rng = np.random.default_rng(5)
    for size in (1, 2, 7, 50):
        p = rng.uniform(size=size) ** 3
        assert np.allclose(
            fs.adjust_pvalues(p, method="bh"),
            sps.false_discovery_control(p, method="bh"),
            atol=1e-14,
        )


def test_nan_pvalues_stay_nan_and_are_not_counted() -> None:
    with_nan = fs.adjust_pvalues([0.01, np.nan, 0.04, 0.03, 0.005, np.nan], method="holm")
    without = fs.adjust_pvalues([0.01, 0.04, 0.03, 0.005], method="holm")
    assert np.isnan(with_nan[[1, 5]]).all()
    assert np.allclose(with_nan[[0, 2, 3, 4]], without)
    assert np.isnan(fs.adjust_pvalues([np.nan, np.nan], method="bh")).all()


def test_adjust_bad_inputs_raise() -> None:
    with pytest.raises(ValueError, match=re.escape(fs.ADJUST_METHOD_MESSAGE.format(method="x"))):
        fs.adjust_pvalues([0.1], method="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=re.escape(fs.PVALUE_RANGE_MESSAGE.format(values="[1.5]"))):
        fs.adjust_pvalues([0.1, 1.5])
    with pytest.raises(ValueError, match=re.escape(fs.PVALUE_SHAPE_MESSAGE.format(shape=(1, 2)))):
        fs.adjust_pvalues([[0.1, 0.2]])


# --------------------------------------------------------------------------------------------
# Coverage by simulation
# --------------------------------------------------------------------------------------------
# R replicates per grid point. At coverage 0.95 the Monte Carlo standard error of one point is
# sqrt(0.95 * 0.05 / R) = 0.00154 for R = 20_000. Each simulated figure is also checked against
# the exact coverage (a sum over the binomial distribution, no Monte Carlo error) to show the
# simulation itself is sound: within MC_TOL = 4.5 standard errors. About 75 points are checked;
# P(|Z| > 4.5) = 6.8e-6 per point, so a correct implementation trips the check with probability
# below 0.001 over the whole file (4 SE would be 0.005: it tripped once, at n = 50, p = 0.5 vs
# 0.1, z = 4.1, while five other seeds there gave |z| < 3.3).
R = 20_000
MC_SE = math.sqrt(0.95 * 0.05 / R)
MC_TOL = 4.5 * MC_SE
NS = (30, 50, 100, 200)
PS = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
PAIRS = ((0.1, 0.1), (0.1, 0.3), (0.3, 0.5), (0.5, 0.5), (0.2, 0.8), (0.9, 0.7), (0.5, 0.1))

# The bands asserted. Score intervals oscillate with n and p (Brown, Cai & DasGupta 2001,
# Stat. Sci. 16:101): the exact Wilson coverage is 0.9298 at n = 30, p = 0.3 and 0.9742 at
# n = 30, p = 0.1, so a 93-97 % band cannot hold point by point at n = 30. Asserted instead:
# every point in [0.92, 0.98]; every point with n >= 100 in [0.93, 0.97]; the grid mean in
# [0.94, 0.96].
WIDE, NARROW, MEAN = (0.92, 0.98), (0.93, 0.97), (0.94, 0.96)


def _exact_single(n: int, p: float) -> float:
    x = np.arange(n + 1)
    low, high = fs.wilson_interval(x, n)
    return float(np.sum(sps.binom.pmf(x, n, p) * ((low <= p) & (p <= high))))


def _exact_pair(kind: str, n: int, p1: float, p2: float) -> float:
    x = np.arange(n + 1)
    x1, x2 = np.meshgrid(x, x, indexing="ij")
    w = np.outer(sps.binom.pmf(x, n, p1), sps.binom.pmf(x, n, p2))
    if kind == "newcombe":
        low, high = fs.newcombe_difference_interval(x1, n, x2, n)
        target = p1 - p2
    else:
        low, high = fs.ratio_interval(x1, n, x2, n)
        target = p1 / p2
    return float(np.sum(w * ((low <= target) & (target <= high))))


def _check_band(coverage: dict[tuple[float, ...], float]) -> None:
    values = np.array(list(coverage.values()))
    assert WIDE[0] <= values.min() and values.max() <= WIDE[1], coverage
    big = np.array([c for key, c in coverage.items() if key[0] >= 100])
    assert NARROW[0] <= big.min() and big.max() <= NARROW[1], coverage
    assert MEAN[0] <= values.mean() <= MEAN[1], values.mean()


def test_wilson_coverage_by_simulation_is_near_nominal() -> None:
    rng = np.random.default_rng(20240601)
    coverage: dict[tuple[float, ...], float] = {}
    for n in NS:
        for p in PS:
            x = rng.binomial(n, p, size=R)
            low, high = fs.wilson_interval(x, n)
            cov = float(np.mean((low <= p) & (p <= high)))
            assert abs(cov - _exact_single(n, p)) <= MC_TOL, (n, p)
            coverage[(n, p)] = cov
    _check_band(coverage)


def test_newcombe_coverage_by_simulation_is_near_nominal() -> None:
    rng = np.random.default_rng(20240602)
    coverage: dict[tuple[float, ...], float] = {}
    for n in NS:
        for p1, p2 in PAIRS:
            x1 = rng.binomial(n, p1, size=R)
            x2 = rng.binomial(n, p2, size=R)
            low, high = fs.newcombe_difference_interval(x1, n, x2, n)
            cov = float(np.mean((low <= p1 - p2) & (p1 - p2 <= high)))
            assert abs(cov - _exact_pair("newcombe", n, p1, p2)) <= MC_TOL, (n, p1, p2)
            coverage[(n, p1, p2)] = cov
    _check_band(coverage)


def test_ratio_coverage_by_simulation_is_near_nominal() -> None:
    # An undefined interval (reference count 0, see ratio_interval) counts as a miss. Points
    # where the expected reference count n * p2 is below 5 are left out: there the reference
    # count is 0 with probability up to 0.9**30 = 4.2 % and the ratio itself is undefined.
    rng = np.random.default_rng(20240603)
    coverage: dict[tuple[float, ...], float] = {}
    for n in NS:
        for p1, p2 in PAIRS:
            if n * p2 < 5:
                continue
            x1 = rng.binomial(n, p1, size=R)
            x2 = rng.binomial(n, p2, size=R)
            low, high = fs.ratio_interval(x1, n, x2, n)
            r = p1 / p2
            cov = float(np.mean((low <= r) & (r <= high)))
            assert abs(cov - _exact_pair("ratio", n, p1, p2)) <= MC_TOL, (n, p1, p2)
            coverage[(n, p1, p2)] = cov
    _check_band(coverage)


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------
@st.composite
def counts(draw: st.DrawFn, *, weighted: bool = False) -> tuple[float, float]:
    if weighted:
        n = draw(st.floats(min_value=0.01, max_value=1e4, allow_nan=False))
        x = draw(st.floats(min_value=0.0, max_value=1.0)) * n
        return x, n
    n_int = draw(st.integers(min_value=1, max_value=5000))
    return float(draw(st.integers(min_value=0, max_value=n_int))), float(n_int)


LEVELS = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999])


@settings(deadline=None, max_examples=300)
@given(c=st.one_of(counts(), counts(weighted=True)), level=LEVELS)
def test_wilson_interval_lies_in_unit_interval_and_contains_rate(
    c: tuple[float, float], level: float
) -> None:
    x, n = c
    low, high = fs.wilson_interval(x, n, level=level)
    assert 0.0 <= float(low) <= x / n <= float(high) <= 1.0


@settings(deadline=None, max_examples=300)
@given(a=counts(), b=counts(), level=LEVELS)
def test_newcombe_interval_lies_in_minus_one_one_and_contains_difference(
    a: tuple[float, float], b: tuple[float, float], level: float
) -> None:
    low, high = fs.newcombe_difference_interval(a[0], a[1], b[0], b[1], level=level)
    d = a[0] / a[1] - b[0] / b[1]
    assert -1.0 <= float(low) <= d + 1e-12
    assert d - 1e-12 <= float(high) <= 1.0


@settings(deadline=None, max_examples=300)
@given(a=counts(), b=counts(), level=LEVELS)
def test_ratio_interval_contains_ratio_whenever_reference_rate_is_positive(
    a: tuple[float, float], b: tuple[float, float], level: float
) -> None:
    low, high = fs.ratio_interval(a[0], a[1], b[0], b[1], level=level)
    if b[0] == 0:
        assert np.isnan(low) and np.isnan(high)
        return
    r = (a[0] / a[1]) / (b[0] / b[1])
    assert 0.0 <= float(low) <= r * (1 + 1e-12)
    assert r * (1 - 1e-12) <= float(high) < math.inf


@settings(deadline=None, max_examples=300)
@given(a=counts(), b=counts(), method=st.sampled_from(["auto", "z", "fisher"]))
def test_two_proportion_pvalue_lies_in_unit_interval(
    a: tuple[float, float], b: tuple[float, float], method: str
) -> None:
    p = float(fs.two_proportion_test(a[0], a[1], b[0], b[1], method=method))  # type: ignore[arg-type]
    assert 0.0 <= p <= 1.0 + 1e-12


PVALUES = st.lists(
    st.one_of(st.floats(min_value=0.0, max_value=1.0), st.just(math.nan)), min_size=0, max_size=40
)


@settings(deadline=None, max_examples=300)
@given(p=PVALUES, method=st.sampled_from(["holm", "bh"]))
def test_adjusted_pvalues_are_at_least_raw_and_at_most_one(p: list[float], method: str) -> None:
    raw = np.array(p, dtype=np.float64)
    adj = fs.adjust_pvalues(raw, method=method)  # type: ignore[arg-type]
    assert np.array_equal(np.isnan(adj), np.isnan(raw))
    ok = ~np.isnan(raw)
    assert np.all(adj[ok] >= raw[ok]) and np.all(adj[ok] <= 1.0)


@settings(deadline=None, max_examples=300)
@given(p=PVALUES, method=st.sampled_from(["holm", "bh"]))
def test_adjusted_pvalues_are_monotone_in_sorted_raw_order(p: list[float], method: str) -> None:
    raw = np.array(p, dtype=np.float64)
    adj = fs.adjust_pvalues(raw, method=method)  # type: ignore[arg-type]
    ok = ~np.isnan(raw)
    order = np.argsort(raw[ok], kind="stable")
    assert np.all(np.diff(adj[ok][order]) >= 0)


@settings(deadline=None, max_examples=200)
@given(p=PVALUES.filter(lambda v: any(not math.isnan(x) for x in v)))
def test_holm_is_never_below_bh(p: list[float]) -> None:
    raw = np.array(p, dtype=np.float64)
    ok = ~np.isnan(raw)
    holm = fs.adjust_pvalues(raw, method="holm")[ok]
    bh = fs.adjust_pvalues(raw, method="bh")[ok]
    assert np.all(holm >= bh - 1e-15)


def test_fisher_or_z_is_decided_on_integers_at_an_expected_cell_of_exactly_five() -> None:
    """Issue 19 kind 6: 6 of 14 against 21 of 28. Selected 27 of 42, not selected 15; the
    smallest expected cell is 15 * 14 / 42 = 5 exactly (4.999999999999999 in floating point),
    which is not below 5, so test="auto" is the documented z-test. By hand: pooled 27/42,
    se = sqrt(27/42 * 15/42 * (1/14 + 1/28)), z = (6/14 - 21/28) / se = -2.0494,
    p = erfc(|z| / sqrt(2)) = 0.0404 (Fisher's would be 0.0854)."""
    from polars_fair.core.stats import small_expected_cell, two_proportion_test

    pooled = 27 / 42
    se = math.sqrt(pooled * (1 - pooled) * (1 / 14 + 1 / 28))
    z = (6 / 14 - 21 / 28) / se
    expected = math.erfc(abs(z) / math.sqrt(2))
    assert round(expected, 4) == 0.0404
    assert small_expected_cell([6], [14], [21], [28]).tolist() == [False]
    # 6 of 13 against 21 of 28: min(27, 14) * 13 = 182 < 5 * 41 = 205: Fisher
    assert small_expected_cell([6], [13], [21], [28]).tolist() == [True]
    p = two_proportion_test([6], [14], [21], [28], method="auto")
    assert p[0] == pytest.approx(expected, rel=1e-12)
    fisher = two_proportion_test([6], [14], [21], [28], method="fisher")
    assert round(float(fisher[0]), 4) == 0.0854
