"""sample_size: statsmodels' NormalIndPower, direct enumeration and simulation of the tests."""

from __future__ import annotations

import math

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
