"""Power of the ABROCA randomization test (Borchers et al.): the seed paper's findings.

Balanced groups and classes, n = test-set rows in total. Each check states the Monte Carlo
standard error (MC SE) of the estimate and keeps the threshold several MC SEs away from the
expected value, so a correct implementation fails with negligible probability for any seed.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy.stats import norm
from sklearn.metrics import roc_auc_score

from polars_fair import errors as E
from polars_fair.analyses.scores.power import (
    abroca_power,
    binormal_test_set,
    power_curve,
    split_counts,
)


def test_power_reaches_080_for_delta_auc_010_with_1000_rows() -> None:
    # Seed: "1,000 holdout test set observations ... 0.8 was only possible for an effect size of
    # 0.1 or greater". Measured ~0.89; with 400 simulations MC SE = sqrt(.89 * .11 / 400) ~ 0.016,
    # so 0.8 lies ~5.5 MC SE below the expectation.
    r = abroca_power(auc_a=0.8, auc_b=0.7, n=1000, n_simulations=400, n_permutations=200, seed=101)
    assert r["power"] >= 0.8
    assert r["mc_se"] == pytest.approx(math.sqrt(r["power"] * (1 - r["power"]) / 400))
    assert (r["n_a"], r["n_b"], r["positives_a"], r["positives_b"]) == (500, 500, 250, 250)


def test_power_stays_below_080_for_delta_auc_005_with_2000_rows() -> None:
    # Seed: "power remained well below this threshold for smaller effect sizes (e.g., 0.05 or
    # lower), even with 2,000 total samples". Measured ~0.64; with 200 simulations MC SE =
    # sqrt(.64 * .36 / 200) ~ 0.034, so 0.8 lies ~4.7 MC SE above the expectation.
    r = abroca_power(auc_a=0.75, auc_b=0.7, n=2000, n_simulations=200, n_permutations=200, seed=202)
    assert r["power"] < 0.8
    assert r["power"] > 0.3  # a real effect is still detected often (sanity, ~10 MC SE margin)


def test_type_one_error_is_close_to_alpha_under_equal_aucs() -> None:
    # H0: equal AUCs, same class balance: group labels are exchangeable, so the test is exact:
    # P(p <= 0.05) = P(K <= 9) = 10/201 ~ 0.0498 with B = 200. With 2000 simulations
    # MC SE = sqrt(.05 * .95 / 2000) ~ 0.0049: [0.03, 0.07] is +-4 MC SE.
    r = abroca_power(auc_a=0.7, auc_b=0.7, n=200, n_simulations=2000, n_permutations=200, seed=303)
    assert 0.03 <= r["power"] <= 0.07


def test_binormal_generator_gives_the_requested_auc() -> None:
    # One large test set from the generator every power simulation draws (binormal_test_set and
    # abroca_power share polars_fair.analyses.scores.power._binormal_design), its AUC computed by
    # polars_fair (the score table and abroca's Mann-Whitney AUC), must match the requested
    # population AUC. n = 500,000, group_ratio 0.4, positive_ratio 0.3 (split_counts): group a
    # 200,000 rows, P = 60,000, N = 140,000; group b 300,000 rows, P = 90,000, N = 210,000.
    # Monte Carlo tolerance: the variance of the Mann-Whitney AUC is at most A(1 - A)/min(P, N)
    # (Birnbaum & Klose 1957), so
    #   a, A = 0.9: SE <= sqrt(0.9 * 0.1 / 60,000) = 0.00122, 5 SE = 0.0061;
    #   b, A = 0.6: SE <= sqrt(0.6 * 0.4 / 90,000) = 0.00163, 5 SE = 0.0082.
    # A generator with mu = Phi^-1(AUC) (the sqrt(2) forgotten) would give a Phi(1.2816 / sqrt 2)
    # = 0.8176, b 0.5714; swapped groups would be 0.3 off: all far outside.
    requested = {"a": 0.9, "b": 0.6}
    rows = binormal_test_set(auc_a=requested["a"], auc_b=requested["b"], n=500_000,
                             group_ratio=0.4, positive_ratio=0.3, seed=2024)
    sizes = rows.group_by("group").agg(n=pl.len(), positives=pl.col("y_true").sum())
    assert sorted(sizes.rows()) == [("a", 200_000, 60_000), ("b", 300_000, 90_000)]
    got = rows.fair.abroca("group", reference="a")
    for r in got.iter_rows(named=True):
        auc, positives, negatives = requested[r["group"]], r["positives"], r["negatives"]
        se_bound = math.sqrt(auc * (1 - auc) / min(positives, negatives))
        assert abs(r["auc"] - auc) <= 5 * se_bound, (r, se_bound)
        # and the AUC polars_fair reports is the Mann-Whitney AUC of these rows (scikit-learn)
        one = rows.filter(pl.col("group") == r["group"])
        assert r["auc"] == pytest.approx(roc_auc_score(one["y_true"], one["y_score"]), abs=1e-12)
    # the mean scores follow the model: negatives N(0, 1), positives N(sqrt(2) Phi^-1(AUC), 1);
    # the mean of 60,000 unit normals has SE 1/sqrt(60,000) = 0.0041, 5 SE = 0.02
    for g, auc in requested.items():
        mean_pos = rows.filter((pl.col("group") == g) & (pl.col("y_true") == 1))["y_score"].mean()
        assert isinstance(mean_pos, float)
        assert abs(mean_pos - math.sqrt(2) * norm.ppf(auc)) <= 0.02


def test_split_counts_round_half_up_and_add_up() -> None:
    assert split_counts(1000) == ((250, 250), (250, 250))
    # 101 * 0.5 = 50.5 -> 51 rows in a (26 positives from 25.5), 50 in b (25 positives)
    assert split_counts(101) == ((26, 25), (25, 25))
    assert split_counts(1000, group_ratio=0.1, positive_ratio=0.25) == ((25, 75), (225, 675))
    with pytest.raises(E.InvalidArgumentError, match="each group needs both classes"):
        split_counts(10, group_ratio=0.05)


def test_abroca_power_is_reproducible_and_validates() -> None:
    a = abroca_power(auc_a=0.8, auc_b=0.6, n=120, n_simulations=15, n_permutations=30, seed=4,
                     progress=False)
    b = abroca_power(auc_a=0.8, auc_b=0.6, n=120, n_simulations=15, n_permutations=30, seed=4,
                     progress=True)
    assert a == b
    assert set(a) >= {"power", "mc_se", "auc_a", "auc_b", "n", "n_simulations", "n_permutations",
                      "alpha"}
    with pytest.raises(E.InvalidArgumentError, match="auc_a=1.0"):
        abroca_power(auc_a=1.0, auc_b=0.7, n=100)
    with pytest.raises(E.InvalidArgumentError, match="n_simulations=0"):
        abroca_power(auc_a=0.8, auc_b=0.7, n=100, n_simulations=0)


def test_power_curve_schema_order_and_monotone_trend() -> None:
    curve = power_curve(
        delta_aucs=[0.0, 0.2], sizes=[100, 400], n_simulations=60, n_permutations=60, seed=7,
        progress=False,
    )
    assert curve.columns == [
        "auc_a", "auc_b", "delta_auc", "n", "power", "mc_se", "n_simulations", "n_permutations",
    ]
    assert curve.dtypes == [pl.Float64] * 3 + [pl.Int64] + [pl.Float64] * 2 + [pl.Int64] * 2
    assert curve["n"].to_list() == [100, 400, 100, 400]
    assert curve["auc_a"].to_list() == pytest.approx([0.7, 0.7, 0.9, 0.9])
    assert curve["delta_auc"].to_list() == [0.0, 0.0, 0.2, 0.2]  # as given
    # delta 0.2 with 400 rows: power ~1 (MC SE ~0 at 60 sims); delta 0: ~0.05 (MC SE ~0.028)
    assert curve["power"][3] >= 0.9
    assert curve["power"][1] <= 0.2
    same = power_curve(
        auc_pairs=[(0.7, 0.7), (0.7 + 0.2, 0.7)], sizes=[100, 400], n_simulations=60,
        n_permutations=60, seed=7, progress=False,
    )
    assert same.drop("delta_auc").equals(curve.drop("delta_auc"))
    with pytest.raises(E.InvalidArgumentError, match="exactly one of"):
        power_curve(sizes=[100])
    assert np.all(curve["mc_se"].to_numpy() >= 0)


# ---------------------------------------------- issue 19, fourth review, item 3
def test_numpy_float32_arguments_are_read_as_the_decimal_they_print() -> None:
    from polars_fair.analyses.scores.power import abroca_power, power_curve, split_counts

    # n_a = round_half_up(10 * 0.45) = round_half_up(4.5) = 5; the binary float32 value
    # 0.449999988... would give 4.4999998... -> 4
    assert split_counts(10, group_ratio=np.float32(0.45)) == ((3, 2), (3, 2))
    r = abroca_power(auc_a=np.float32(0.7), auc_b=np.float32(0.6), n=100,
                     alpha=np.float32(0.05), group_ratio=np.float32(0.3),
                     positive_ratio=np.float32(0.5), n_simulations=2, n_permutations=5, seed=0)
    assert (r["auc_a"], r["auc_b"], r["alpha"], r["group_ratio"]) == (0.7, 0.6, 0.05, 0.3)
    assert r["delta_auc"] == 0.7 - 0.6  # the float difference of the decimals
    assert (r["n_a"], r["n_b"]) == (30, 70)
    curve = power_curve(auc_pairs=[(np.float32(0.7), np.float32(0.6))], sizes=[100],
                        n_simulations=2, n_permutations=5, seed=0)
    assert curve.select("auc_a", "auc_b").row(0) == (0.7, 0.6)
