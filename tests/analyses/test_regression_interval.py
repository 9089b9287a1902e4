"""The regression estimator's rate interval is never a point (fix 24b2).

Every residual is 0 where the probabilities are 0 or 1 and a group is all selected (or none):
the sandwich variance is 0 there and its Wald interval was the point [1, 1] (or [0, 0]). The
interval is now the hull of the Wald interval and Wilson's at the group's effective size
n_k = 1 / (G⁻¹HG⁻¹)_kk (:func:`polars_fair.analyses.membership_regression.rate_interval`).
Expected values are hand computations written here (Wilson's bounds at x = n are n / (n + z²)
and 1, at x = 0 they are 0 and z² / (n + z²)) or numpy on the rows.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers df.fair)
from polars_fair.analyses.membership_regression import rate_interval, regression_from_membership
from polars_fair.counting.proxy_table import proxy_table

Z = 1.959963984540054  # the 0.975 normal quantile
MEMBERSHIP = {"g": {"a": "pa", "b": "pb"}}


def _regression(rows: pl.DataFrame) -> pl.DataFrame:
    t = proxy_table(rows, membership=MEMBERSHIP, y_true=None).frame
    return regression_from_membership(t, [], "g", ["a", "b"])


def test_one_hot_three_of_three_and_none_of_five_are_the_crisp_wilson_intervals() -> None:
    rows = pl.DataFrame({"pa": [1.0] * 3 + [0.0] * 5, "pb": [0.0] * 3 + [1.0] * 5,
                         "y_pred": [1, 1, 1, 0, 0, 0, 0, 0]})
    out = _regression(rows)
    a, b = out.row(0, named=True), out.row(1, named=True)
    # every residual is 0: the sandwich is 0 (the old interval was [1, 1] and [0, 0])
    assert (a["selection_rate_regression"], a["selection_rate_regression_se"]) == (1.0, 0.0)
    assert (b["selection_rate_regression"], b["selection_rate_regression_se"]) == (0.0, 0.0)
    # Wilson at 3 of 3: [3 / (3 + z²), 1] = [0.4385, 1]; at 0 of 5: [0, z² / (5 + z²)]
    assert a["selection_rate_regression_ci_low"] == pytest.approx(3 / (3 + Z * Z), rel=1e-12)
    assert a["selection_rate_regression_ci_high"] == 1.0
    assert b["selection_rate_regression_ci_low"] == 0.0
    assert b["selection_rate_regression_ci_high"] == pytest.approx(Z * Z / (5 + Z * Z),
                                                                   rel=1e-12)
    assert round(3 / (3 + Z * Z), 4) == 0.4385 and round(Z * Z / (5 + Z * Z), 4) == 0.4345
    # the proxy report shows the same intervals, equal to the other two estimators' there
    report = rows.fair.proxy_report(None, membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                                    reference="a", min_support=0)
    for e in ("weighted", "argmax"):
        for s in ("_ci_low", "_ci_high"):
            assert report[f"selection_rate_regression{s}"].to_list() == pytest.approx(
                report[f"selection_rate_{e}{s}"].to_list(), rel=1e-12)


def test_uncertain_probabilities_all_selected_have_a_width() -> None:
    # everyone selected: every estimate is 1 (G⁻¹ Σ p = 1) and every residual 0, with
    # probabilities that are not 0 or 1. The floor is Wilson's at n_k = 1 / (G⁻¹HG⁻¹)_kk.
    pa = np.array([0.9, 0.8, 0.3, 0.1, 0.6, 0.2, 0.7])
    rows = pl.DataFrame({"pa": pa, "pb": 1 - pa, "y_pred": [1] * len(pa)})
    out = _regression(rows)
    p = np.c_[pa, 1 - pa]
    gi = np.linalg.inv(p.T @ p)
    n_k = 1.0 / np.diag(gi @ (p.T @ p) @ gi)  # H = G without sample weights
    assert out["selection_rate_regression"].to_list() == pytest.approx([1.0, 1.0], abs=1e-12)
    assert out["selection_rate_regression_ci_low"].to_list() == pytest.approx(
        (n_k / (n_k + Z * Z)).tolist(), rel=1e-9)
    assert out["selection_rate_regression_ci_high"].to_list() == pytest.approx([1.0, 1.0],
                                                                               abs=1e-12)


def test_rate_interval_keeps_the_wider_of_wald_and_wilson() -> None:
    # 0.5 with variance 0.01 at n_k = 100: Wald 0.5 ± 0.196 is wider than Wilson's
    # 0.5 ± z / (100 + z²) sqrt(25 + z² / 4) = 0.5 ± 0.0962: Wald kept, bound for bound
    low, high = rate_interval([0.5, 1.2], [0.01, 0.01], [100.0, 100.0])
    assert low.tolist() == pytest.approx([0.5 - Z * 0.1, 1.2 - Z * 0.1], rel=1e-12)
    assert high.tolist() == pytest.approx([0.5 + Z * 0.1, 1.2 + Z * 0.1], rel=1e-12)


def test_three_of_three_is_indeterminate_by_all_three_estimators() -> None:
    # a: 3 rows all selected; b: 1,000 rows, 770 selected, one-hot. The old regression
    # interval of a's rate was [1, 1] and its impact ratio a log interval of b's noise alone,
    # [1.255, 1.343], a sure pass; now each of the three spans 4/5.
    n_b = 1_000
    rows = pl.DataFrame({"pa": [1.0] * 3 + [0.0] * n_b, "pb": [0.0] * 3 + [1.0] * n_b,
                         "y_pred": [1] * 3 + [1] * 770 + [0] * (n_b - 770)})
    r = rows.fair.proxy_report(None, membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                               reference="b", min_support=0).row(0, named=True)
    assert r["g"] == "a"
    for e in ("weighted", "argmax", "regression"):
        assert r[f"impact_ratio_{e}"] == pytest.approx(1 / 0.77, rel=1e-12)
        assert r[f"impact_ratio_{e}_ci_low"] < 0.8 <= r[f"impact_ratio_{e}_ci_high"], e
    # MOVER-R of a's interval, Wilson(3, 3), over b's, independent (one-hot: no shared rows).
    # Lower bound: l1 (2 p1 - l1) / (B + sqrt(B² - l1 (2 p1 - l1) u2 (2 p2 - u2))), B = p1 p2
    l1 = 3 / (3 + Z * Z)
    c2 = (770 + Z * Z / 2) / (1000 + Z * Z)
    h2 = Z / (1000 + Z * Z) * np.sqrt(770 * 230 / 1000 + Z * Z / 4)
    # b's regression interval is the hull of Wilson's and the (here higher) Wald upper bound
    u2, p2 = max(c2 + h2, 0.77 + Z * np.sqrt(0.77 * 0.23 / 1000)), 0.77
    c_low = l1 * (2 - l1)
    low = c_low / (p2 + np.sqrt(p2 * p2 - c_low * u2 * (2 * p2 - u2)))
    assert r["impact_ratio_regression_ci_low"] == pytest.approx(low, rel=1e-9)
    assert round(low, 4) == 0.5692
    assert r["verdict"] == "indeterminate"


@pytest.mark.slow
def test_coverage_at_small_groups() -> None:
    # Seeded simulation: group a of 5 or 8 one-hot rows at a true rate of 0.9 or 0.95 beside
    # 20 rows of b; and small uncertain groups (probabilities p_a ~ Beta(0.4, 1.6), the true
    # group drawn from them). The old Wald interval collapsed to a point whenever a was all
    # selected and covered about 35 %; the new one covers at least the nominal 95 % minus
    # Monte-Carlo error, and never less often than the Wald interval on the same draws.
    rng = np.random.default_rng(2402)
    reps = 300
    for n_a, mu in ((5, 0.9), (8, 0.95)):
        new = wald = 0
        for _ in range(reps):
            g = np.r_[np.ones(n_a), np.zeros(20)]
            y = (rng.random(len(g)) < np.where(g == 1, mu, 0.5)).astype(np.int64)
            r = _regression(pl.DataFrame({"pa": g, "pb": 1 - g, "y_pred": y})).row(0, named=True)
            est, se = r["selection_rate_regression"], r["selection_rate_regression_se"]
            new += r["selection_rate_regression_ci_low"] <= mu <= r[
                "selection_rate_regression_ci_high"]
            wald += est - Z * se <= mu <= est + Z * se
        assert new / reps >= 0.93, (n_a, mu, new / reps)
        assert wald / reps < 0.75  # the collapse the fix removes
    new = wald = 0
    for _ in range(reps):
        pa = rng.beta(0.4, 1.6, 40)
        g = rng.random(40) < pa
        y = (rng.random(40) < np.where(g, 0.9, 0.5)).astype(np.int64)
        r = _regression(pl.DataFrame({"pa": pa, "pb": 1 - pa, "y_pred": y})).row(0, named=True)
        est, se = r["selection_rate_regression"], r["selection_rate_regression_se"]
        if est is None:
            continue
        new += r["selection_rate_regression_ci_low"] <= 0.9 <= r[
            "selection_rate_regression_ci_high"]
        wald += est - Z * se <= 0.9 <= est + Z * se
    assert new >= wald
