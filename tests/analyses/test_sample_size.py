"""sample_size: statsmodels' NormalIndPower, direct enumeration and simulation of the tests."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy.stats import binom, fisher_exact, norm
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.sample_size import BAD_METHOD, NO_DIFFERENCE, exact_power


@pytest.mark.parametrize(("rate", "ratio_ir", "alpha", "power", "ratio"), [
    (0.6, 0.5, 0.05, 0.8, 1.0), (0.5, 0.8, 0.05, 0.8, 2.0), (0.3, 0.75, 0.01, 0.9, 0.5),
    (0.2, 1.5, 0.05, 0.8, 1.0)])
def test_normal_method_is_statsmodels_normalindpower_rounded_up(
        rate: float, ratio_ir: float, alpha: float, power: float, ratio: float) -> None:
    h = proportion_effectsize(rate * ratio_ir, rate)  # 2 asin sqrt(p1) - 2 asin sqrt(p2)
    n1 = NormalIndPower().solve_power(effect_size=h, alpha=alpha, power=power, ratio=ratio)
    got = polars_fair.sample_size(reference_rate=rate, impact_ratio=ratio_ir, alpha=alpha,
                                  power=power, ratio=ratio)
    assert got.group == math.ceil(n1)
    assert got.reference == math.ceil(ratio * got.group)
    assert got.power >= power
    assert NormalIndPower().power(effect_size=h, nobs1=got.group - 1, alpha=alpha,
                                  ratio=ratio) < power  # the smallest


def test_z_test_power_at_the_returned_size_by_simulation() -> None:
    # the EEOC's rates: 60 % against 30 %; the pooled z-test at n = 42 per group
    size = polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5)
    rng = np.random.default_rng(0)
    draws = 20_000
    x1 = rng.binomial(size.group, 0.3, draws)
    x2 = rng.binomial(size.reference, 0.6, draws)
    pooled = (x1 + x2) / (size.group + size.reference)
    se = np.sqrt(pooled * (1 - pooled) * (1 / size.group + 1 / size.reference))
    z = (x1 / size.group - x2 / size.reference) / se
    simulated = np.mean(2 * norm.sf(np.abs(z)) <= 0.05)
    # 20,000 draws: standard error 0.003. The size is enough for the z-test, and the arcsine
    # approximation is only slightly conservative for it (about 0.83 here)
    assert 0.8 - 0.01 <= simulated <= 0.86


def test_exact_power_equals_direct_enumeration_of_fisher_exact() -> None:
    n1, n2, p1, p2 = 12, 15, 0.3, 0.7
    want = sum(binom.pmf(a, n1, p1) * binom.pmf(b, n2, p2)
               for a in range(n1 + 1) for b in range(n2 + 1)
               if fisher_exact([[a, n1 - a], [b, n2 - b]]).pvalue <= 0.05)
    assert exact_power(n1, n2, p1, p2, 0.05) == pytest.approx(want, rel=1e-12)


def test_fisher_method_reaches_the_power_and_not_one_less() -> None:
    size = polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5, method="fisher")
    assert size.power >= 0.8 > exact_power(size.group - 1, size.group - 1, 0.3, 0.6, 0.05)
    assert size.group >= polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5).group


def test_fisher_methods_power_holds_by_simulation() -> None:
    size = polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5, method="fisher")
    rng = np.random.default_rng(1)
    draws = 3_000
    x1 = rng.binomial(size.group, 0.3, draws)
    x2 = rng.binomial(size.reference, 0.6, draws)
    rejected = [fisher_exact([[a, size.group - a], [b, size.reference - b]]).pvalue <= 0.05
                for a, b in zip(x1, x2, strict=True)]
    # 3,000 draws: standard error 0.0073
    assert abs(np.mean(rejected) - size.power) < 0.03


def test_bad_arguments_are_typed_errors() -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        polars_fair.sample_size(reference_rate=0.5, impact_ratio=1.0)
    assert str(err.value) == NO_DIFFERENCE.format(ratio=1.0, rate=0.5, p1=0.5)
    with pytest.raises(E.InvalidArgumentError):
        polars_fair.sample_size(reference_rate=0.8, impact_ratio=1.5)  # a rate of 1.2
    with pytest.raises(E.InvalidArgumentError) as err:
        polars_fair.sample_size(reference_rate=0.5, impact_ratio=0.5,
                                method="exact")  # type: ignore[arg-type]
    assert str(err.value) == BAD_METHOD.format(value="exact")
    with pytest.raises(E.InvalidArgumentError, match="power must lie in"):
        polars_fair.sample_size(reference_rate=0.5, impact_ratio=0.5, power=0.01)


# ------------------------------------------------------------------ issue 19, kind 2: bounds
def test_ratio_is_bounded_both_ways_before_any_work() -> None:
    rates = {"reference_rate": 0.6, "impact_ratio": 0.5}
    with pytest.raises(E.SizeLimitError, match=r"ratio=1,000,000,000\.0 is more than its limit "
                       "1,000"):
        polars_fair.sample_size(**rates, ratio=1e9, method="fisher")  # 1.41 TiB asked before
    with pytest.raises(E.SizeLimitError, match=r"ratio=1e-09 is less than its limit 1/1,000 "
                       r".*; pass ratio=0\.001 or more") as info:
        polars_fair.sample_size(**rates, ratio=1e-9)
    advised = float(re.search(r"pass ratio=(\S+) or more", str(info.value)).group(1))  # type: ignore[union-attr]
    # at both limits it runs (the smaller one as advised); the normal size is NormalIndPower's
    # (statsmodels' ratio is nobs2 / nobs1, ours reference / group)
    effect = proportion_effectsize(0.3, 0.6)
    for r in (1_000, advised):
        got = polars_fair.sample_size(**rates, ratio=r)
        want = NormalIndPower().solve_power(effect, alpha=0.05, power=0.8, ratio=r)
        assert got.group == math.ceil(want)


def test_fisher_refuses_an_enumeration_above_exact_cells_before_making_it() -> None:
    # impact ratio 0.95 at 0.5: the normal answer is 6,274 per group, so the first size tried
    # enumerates (6,274 + 1) x (6,274 + 6,274 + 1) = 78,744,975 tables > 5,000,000
    assert (6_274 + 1) * (2 * 6_274 + 1) == 78_744_975
    assert polars_fair.sample_size(reference_rate=0.5, impact_ratio=0.95).group == 6_274
    with pytest.raises(E.SizeLimitError, match="6,274 applicants in the group and 6,274 in the "
                       "reference enumerates 78,744,975 tables, more than its limit 5,000,000"):
        polars_fair.sample_size(reference_rate=0.5, impact_ratio=0.95, method="fisher")


def test_tiny_alpha_is_computed_or_refused_with_a_typed_error() -> None:
    # alpha 1e-300: z = norm.isf(5e-301), finite (ppf(1 - 5e-301) was ppf(1) = inf and
    # OverflowError); the size is the two-tail closed form stepped up, checked by its power
    got = polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5, alpha=1e-300)
    h = abs(2 * math.asin(math.sqrt(0.3)) - 2 * math.asin(math.sqrt(0.6)))
    z = norm.isf(5e-301)

    def reached(n: int) -> float:
        return norm.cdf(h * math.sqrt(n / 2) - z) + norm.cdf(-h * math.sqrt(n / 2) - z)
    assert reached(got.group) >= 0.8 > reached(got.group - 1)
    with pytest.raises(E.InvalidArgumentError, match=r"alpha=5e-324 is too close to 0 .*; "
                       r"pass alpha=1e-300") as info:
        polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5, alpha=5e-324)
    advised = float(str(info.value).rsplit("pass alpha=", 1)[1])  # the advice as written
    assert polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5, alpha=advised) == got


def test_a_difference_below_double_precision_is_no_difference() -> None:
    # 0.5 * (1 + 3e-16) = 0.5000000000000001, whose arcsine equals 0.5's: h = 0 (it divided
    # by zero)
    with pytest.raises(E.InvalidArgumentError, match="differ from the reference rate"):
        polars_fair.sample_size(reference_rate=0.5, impact_ratio=1 + 3e-16)
