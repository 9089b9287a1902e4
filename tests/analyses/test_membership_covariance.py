"""The weighted estimator's rates over shared rows: covariance from the sums, and coverage.

Expected values come from the influence function of each rate computed on the rows in numpy,
from the known truth of a seeded simulation, and from the issue's third review (SE 0.0247 of a
difference treated as independent samples, 0.0157 linearised over the shared rows).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from polars_fair.analyses.membership_covariance import (
    selection_rate_correlation,
    selection_rate_covariance,
)
from polars_fair.analyses.proxy_report import proxy_report_from_membership
from polars_fair.core import stats
from polars_fair.counting.proxy_table import proxy_table
from tests.conftest import require

ORACLES = Path(__file__).resolve().parents[2].parent / "shared" / "oracles"
FIXTURE = ORACLES / "fixture_membership.csv"
MEMBERSHIP = {"g": {"a": "p_a", "b": "p_b", "c": "p_c"}}


def _influence_covariance(p: np.ndarray, w: np.ndarray, y: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Rates and covariance from the rows: row i adds w_i p_ik (y_i - r_k) / B_k to r_k."""
    b = (w[:, None] * p).sum(0)
    r = (w[:, None] * p * y[:, None]).sum(0) / b
    infl = w[:, None] * p * (y[:, None] - r) / b
    return r, infl.T @ infl


def test_covariance_from_the_sums_equals_the_influence_function_on_the_rows() -> None:
    rng = np.random.default_rng(7)
    n = 400
    p = rng.dirichlet([0.7, 1.0, 1.5], size=n)
    rows = pl.DataFrame({"y_pred": rng.integers(0, 2, n), "s": rng.choice(["f", "m"], n),
                         "w": rng.uniform(0.2, 3.0, n),
                         "p_a": p[:, 0], "p_b": p[:, 1], "p_c": 1 - p[:, 0] - p[:, 1]})
    table = proxy_table(rows, ["s"], membership=MEMBERSHIP, y_true=None,
                        sample_weight="w").frame.collect()
    got = selection_rate_covariance(table, ["s"], 3)
    assert sorted(got) == [("f",), ("m",)]
    for s in ("f", "m"):
        part = rows.filter(pl.col("s") == s)
        r, cov = _influence_covariance(part.select("p_a", "p_b", "p_c").to_numpy(),
                                       part["w"].to_numpy(), part["y_pred"].to_numpy())
        assert got[(s,)][0] == pytest.approx(r, rel=1e-12)
        assert got[(s,)][1] == pytest.approx(cov, rel=1e-9)
        assert np.all(cov[np.triu_indices(3, 1)] != 0)  # shared rows: not independent
    rho = selection_rate_correlation(got[("f",)][1], 1)
    cov = got[("f",)][1]
    assert rho[1] == 0.0
    assert rho[0] == pytest.approx(cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1]), rel=1e-12)


def test_the_reviews_figures_on_the_fixture() -> None:
    # Difference of the weighted rates of a and b on the shared fixture: as independent samples
    # of Kish's sizes SE 0.0247; linearised over the shared rows 0.0157 (issue 24, third review)
    rows = pl.read_csv(require(FIXTURE))
    table = proxy_table(rows, None, membership={"g": {"a": "p_a", "b": "p_b"}},
                        y_true=None).frame.collect()
    r, cov = selection_rate_covariance(table, [], 2)[()]
    p = rows.select("p_a", "p_b").to_numpy()
    n_eff = p.sum(0) ** 2 / (p**2).sum(0)
    independent = np.sqrt(np.sum(r * (1 - r) / n_eff))
    shared = np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    assert (round(independent, 4), round(shared, 4)) == (0.0248, 0.0157)
    # the report's weighted impact ratio reads the correlation of the two rates
    out = proxy_report_from_membership(
        proxy_table(rows, None, membership={"g": {"a": "p_a", "b": "p_b"}}, y_true=None),
        reference="b", min_support=0).collect().row(0, named=True)
    rho = cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1])
    x = r * n_eff
    low, high = stats.ratio_interval(x[0], n_eff[0], x[1], n_eff[1], correlation=rho)
    assert (out["impact_ratio_weighted_ci_low"], out["impact_ratio_weighted_ci_high"]) == (
        pytest.approx(float(low), rel=1e-9), pytest.approx(float(high), rel=1e-9))
    free = stats.ratio_interval(x[0], n_eff[0], x[1], n_eff[1])
    assert float(high - low) < 0.75 * float(free[1] - free[0])


def test_disjoint_cells_and_argmax_stay_independent() -> None:
    # one-hot probabilities: no row is shared, the correlation is 0 and the interval is the
    # crisp one (argmax too)
    rows = pl.DataFrame({"y_pred": [1, 0, 1, 1, 0, 0, 1, 0], "p_a": [1.0] * 4 + [0.0] * 4,
                         "p_b": [0.0] * 4 + [1.0] * 4})
    out = proxy_report_from_membership(
        proxy_table(rows, None, membership={"g": {"a": "p_a", "b": "p_b"}}, y_true=None),
        reference="b", min_support=0).collect().row(0, named=True)
    low, high = stats.ratio_interval(3, 4, 1, 4)
    for e in ("weighted", "argmax"):
        assert (out[f"impact_ratio_{e}_ci_low"], out[f"impact_ratio_{e}_ci_high"]) == (
            pytest.approx(float(low), rel=1e-12), pytest.approx(float(high), rel=1e-12))


# Calibrated probabilities from four profiles: a row of profile m is in a with probability
# Q[m, 0]; its outcome depends on its true group only. The weighted estimator targets
# R_k = E[p_k y] / E[p_k] (the attenuated rate it estimates, not the group's), exactly:
# E[p_k y] = mean over m of Q[m, k] (Q[m] . RATE).
Q = np.array([[0.9, 0.1], [0.7, 0.3], [0.4, 0.6], [0.2, 0.8]])
RATE = np.array([0.3, 0.5])


@pytest.mark.slow
def test_weighted_impact_ratio_covers_its_target_near_the_nominal_rate() -> None:
    target = (Q * (Q @ RATE)[:, None]).mean(0) / Q.mean(0)
    theta = target[0] / target[1]  # 0.8612
    rng = np.random.default_rng(20260124)
    replicates, n = 2000, 1000
    shared = independent = 0
    for _ in range(replicates):
        profile = rng.integers(0, 4, n)
        p = Q[profile]
        group = (rng.random(n) < p[:, 1]).astype(int)
        rows = pl.DataFrame({"y_pred": (rng.random(n) < RATE[group]).astype(int),
                             "p_a": p[:, 0], "p_b": p[:, 1]})
        table = proxy_table(rows, None, membership={"g": {"a": "p_a", "b": "p_b"}}, y_true=None)
        a, b = proxy_report_from_membership(table, reference="b", min_support=0).collect().rows(
            named=True)
        shared += a["impact_ratio_weighted_ci_low"] <= theta <= a["impact_ratio_weighted_ci_high"]
        x = [g["selection_rate_weighted"] * g["n_effective"] for g in (a, b)]
        low, high = stats.ratio_interval(x[0], a["n_effective"], x[1], b["n_effective"])
        independent += float(low) <= theta <= float(high)
    # Monte Carlo SE of a coverage near 0.95 over 2,000 replicates: 0.0049
    assert 0.935 <= shared / replicates <= 0.965, shared / replicates
    assert independent / replicates >= 0.98, independent / replicates  # conservative
