"""The regression estimator from membership sums, against row-level fits.

Every expected value is computed from the rows in the test: statsmodels' WLS with its HC0
covariance (an independent library, test-only) for the selection rate, and the row-level
influence functions of the two regressions for the delta-method ratios (tpr, fpr).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from polars_fair.analyses.membership_regression import (
    MAX_CONDITION,
    REASON_EMPTY,
    REASON_NEGLIGIBLE,
    REASON_SINGULAR,
    fit_cells,
    regression_from_membership,
)
from tests.membership_reference import membership_sums

sm = pytest.importorskip("statsmodels.api")


def _rows(n: int, k: int, seed: int, *, weighted: bool = False) -> pl.DataFrame:
    """Rows with K membership probabilities, a latent group, labels and predictions."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(k, 0.7), size=n)
    g = np.array([rng.choice(k, p=row) for row in p])
    base = np.linspace(0.3, 0.7, k)
    y_true = (rng.random(n) < base[g]).astype(np.int64)
    y_pred = (rng.random(n) < np.where(y_true == 1, 0.8, 0.2) * base[g] / 0.5).astype(np.int64)
    cols = {f"p{j}": p[:, j] for j in range(k)}
    out = pl.DataFrame({"cell": rng.choice(["x", "y"], size=n), **cols,
                        "y_true": y_true, "y_pred": y_pred})
    if weighted:
        out = out.with_columns(w=pl.Series(rng.uniform(0.5, 3.0, size=n)))
    return out


def _table(rows: pl.DataFrame, k: int, by: list[str], weight: str | None = None) -> pl.DataFrame:
    return membership_sums(rows, by, [f"g{j}" for j in range(k)], [f"p{j}" for j in range(k)],
                           "y_true", "y_pred", weight)


def _wls(p: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    fit = sm.WLS(y, p, weights=w).fit(cov_type="HC0")
    return np.asarray(fit.params), np.asarray(fit.cov_params())


@pytest.mark.parametrize("weighted", [False, True])
def test_selection_rate_equals_row_level_wls_with_hc0(weighted: bool) -> None:
    rows = _rows(600, 3, seed=1, weighted=weighted)
    table = _table(rows, 3, ["cell"], "w" if weighted else None)
    fits = fit_cells(table, ["cell"], 3)
    assert [f.key for f in fits] == [("x",), ("y",)]
    for fit in fits:
        part = rows.filter(pl.col("cell") == fit.key[0])
        p = part.select("p0", "p1", "p2").to_numpy()
        w = part["w"].to_numpy() if weighted else np.ones(part.height)
        beta, cov = _wls(p, part["y_pred"].to_numpy().astype(float), w)
        est, v = fit.rates["selection_rate"]
        assert not fit.singular
        np.testing.assert_allclose(est, beta, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(v, cov, rtol=1e-8, atol=1e-14)


@pytest.mark.parametrize("rate", ["tpr", "fpr"])
def test_ratio_rates_equal_row_level_delta_method(rate: str) -> None:
    rows = _rows(800, 2, seed=2, weighted=True)
    table = _table(rows, 2, [], "w")
    (fit,) = fit_cells(table, [], 2)
    p = rows.select("p0", "p1").to_numpy()
    w = rows["w"].to_numpy()
    y, yhat = rows["y_true"].to_numpy(), rows["y_pred"].to_numpy()
    positive = y if rate == "tpr" else 1 - y
    ya, yb = (positive * yhat).astype(float), positive.astype(float)
    gi = np.linalg.inv((p * w[:, None]).T @ p)
    a = gi @ (p * w[:, None]).T @ ya
    b = gi @ (p * w[:, None]).T @ yb
    # influence functions of each row on a and b; the covariances are their cross-products
    psi_a = (gi @ (p * (w * (ya - p @ a))[:, None]).T).T
    psi_b = (gi @ (p * (w * (yb - p @ b))[:, None]).T).T
    r = a / b
    grad_var = np.array([
        np.var(psi_a[:, k] / b[k] - r[k] * psi_b[:, k] / b[k], ddof=0) * len(w) for k in range(2)
    ])
    # the mean of each influence function is 0 at the estimate (normal equations), so
    # n * var(ddof=0) is the sum of squares
    est, cov = fit.rates[rate]
    np.testing.assert_allclose(est, r, rtol=1e-10)
    np.testing.assert_allclose(np.diag(cov), grad_var, rtol=1e-7)


def test_frame_has_wald_intervals_floored_by_wilson_and_is_sorted_by_group_value() -> None:
    # Formerly Wald intervals est ± z se alone, a point where every residual is 0 (fix 24b2):
    # now their hull with Wilson's at n_k = 1 / (G⁻¹HG⁻¹)_kk, which is 1 / (G⁻¹)_kk without
    # sample weights (H = G).
    rows = _rows(500, 2, seed=3)
    out = regression_from_membership(_table(rows, 2, []), [], "race", ["w", "b"], level=0.9)
    assert out["race"].to_list() == ["b", "w"]  # sorted by value, as count tables are
    z = 1.6448536269514722  # the 0.95 normal quantile (a 90% two-sided interval)
    est = out["selection_rate_regression"].to_numpy()
    se = out["selection_rate_regression_se"].to_numpy()
    p = rows.select("p0", "p1").to_numpy()
    n_k = 1.0 / np.diag(np.linalg.inv(p.T @ p))[::-1]  # groups g1 ("b") then g0 ("w")
    centre = (est + z * z / (2 * n_k)) / (1 + z * z / n_k)
    half = z / (1 + z * z / n_k) * np.sqrt(est * (1 - est) / n_k + z * z / (4 * n_k**2))
    low, high = out["selection_rate_regression_ci_low"], out["selection_rate_regression_ci_high"]
    np.testing.assert_allclose(low, np.minimum(est - z * se, centre - half), rtol=1e-10)
    np.testing.assert_allclose(high, np.maximum(est + z * se, centre + half), rtol=1e-10)
    # uncertain probabilities away from 0 and 1: the bounds move from the Wald interval's only
    # where Wilson's reaches further, here by 0.0009 and 0.0001 (one side of each group)
    moved = np.abs(np.r_[low - (est - z * se), high - (est + z * se)])
    assert 0.0 < moved.max() < 0.001 and np.sum(moved > 1e-12) == 2
    assert out.schema["tpr_regression"] == pl.Float64
    assert out["regression_singular"].to_list() == [False, False]


def test_group_nobody_is_in_is_left_out_of_the_fit_and_flagged() -> None:
    # Formerly a group of probability 0 made the Gram matrix singular and nulled every group's
    # estimate (issue 24 review): now only that group is null and flagged, the others are fitted
    # without its column.
    rows = _rows(300, 2, seed=4).with_columns(p2=pl.lit(0.0))  # a third group of probability 0
    table = membership_sums(rows, [], ["a", "b", "c"], ["p0", "p1", "p2"], "y_true", "y_pred",
                            None)
    out = regression_from_membership(table, [], "g", ["a", "b", "c"])
    assert out["regression_singular"].to_list() == [False, False, True]
    assert out["selection_rate_regression"].null_count() == 1
    assert out["tpr_regression_ci_high"].null_count() == 1
    p = rows.select("p0", "p1").to_numpy()
    beta, cov = _wls(p, rows["y_pred"].to_numpy().astype(float), np.ones(len(p)))
    got = out.filter(pl.col("g") != "c")
    assert np.allclose(got["selection_rate_regression"].to_numpy(), beta, atol=1e-10)
    assert np.allclose(got["selection_rate_regression_se"].to_numpy(), np.sqrt(np.diag(cov)),
                       atol=1e-10)


def test_group_nobody_is_in_hand_worked() -> None:
    # p = (1, 0, 0), (0, 1, 0), (.5, .5, 0), y_pred = 1, 0, 1. Without c: G = [[1.25, .25],
    # [.25, 1.25]], c = (1.5, .5), det G = 1.5, so a = (1.25*1.5 - .25*.5) / 1.5 = 7/6 and
    # b = (-.25*1.5 + 1.25*.5) / 1.5 = 1/6.
    rows = pl.DataFrame({"p0": [1.0, 0.0, 0.5], "p1": [0.0, 1.0, 0.5], "p2": [0.0] * 3,
                         "y_true": [1, 0, 1], "y_pred": [1, 0, 1]})
    table = membership_sums(rows, [], ["a", "b", "c"], ["p0", "p1", "p2"], "y_true", "y_pred",
                            None)
    out = regression_from_membership(table, [], "g", ["a", "b", "c"])
    est = out["selection_rate_regression"].to_list()
    assert est[0] == pytest.approx(7 / 6) and est[1] == pytest.approx(1 / 6) and est[2] is None
    assert out["regression_singular"].to_list() == [False, False, True]


def test_one_negligible_group_is_left_out_not_every_group() -> None:
    # Issue 24 re-review 2, item 2: a group c with p = 1e-9 on 3 rows made the Gram matrix
    # ill-conditioned (its diagonal 3e-18 against 5 or so: condition number > 1e10) and nulled
    # every group. Only c is inestimable: it is left out, the others are fitted without it.
    # Rows: 2 of group a, 3 of a with p_c = 1e-9 (p_a = 1 - 1e-9), 4 of group b.
    # Without c's column G is diagonal: a = Σ p_a·y / Σ p_a², b = Σ p_b·y / Σ p_b².
    # By hand (ε = 1e-9): a's y_pred 1, 1, 0, 1, 0 -> (1 + 1 + (1 - ε)) / (2 + 3(1 - ε)²)
    #          = (3 - ε) / (5 - 6ε + 3ε²) = 0.6 to 1e-9; b's y_pred 1, 0, 0, 0 -> 1/4.
    tiny = 1e-9
    rows = pl.DataFrame({
        "p0": [1.0, 1.0, 1 - tiny, 1 - tiny, 1 - tiny, 0.0, 0.0, 0.0, 0.0],
        "p1": [0.0] * 5 + [1.0] * 4,
        "p2": [0.0, 0.0, tiny, tiny, tiny, 0.0, 0.0, 0.0, 0.0],
        "y_true": [1, 0, 1, 0, 1, 1, 0, 1, 0],
        "y_pred": [1, 1, 0, 1, 0, 1, 0, 0, 0]})
    table = membership_sums(rows, [], ["a", "b", "c"], ["p0", "p1", "p2"], "y_true", "y_pred",
                            None)
    out = regression_from_membership(table, [], "g", ["a", "b", "c"])
    est = out["selection_rate_regression"].to_list()
    assert est[0] == pytest.approx(0.6, abs=1e-8) and est[1] == pytest.approx(0.25, abs=1e-12)
    assert est[2] is None
    assert out["regression_singular"].to_list() == [False, False, True]
    assert out["regression_reason"].to_list() == [None, None, REASON_NEGLIGIBLE]
    # b's tpr: y_true 1 on two of b's rows, one of them selected: 1/2
    assert out["tpr_regression"][1] == pytest.approx(0.5, abs=1e-12)
    # the same through the proxy report: c's regression columns null, a and b estimated
    import polars_fair  # noqa: F401  (registers .fair)

    proxy = rows.fair.proxy_report(None, membership={"g": {"a": "p0", "b": "p1", "c": "p2"}},
                                   min_support=0)
    assert proxy["selection_rate_regression"].to_list()[:2] == pytest.approx([0.6, 0.25],
                                                                               abs=1e-8)
    assert proxy["selection_rate_regression"][2] is None
    assert proxy["regression_reason"].to_list() == [None, None, REASON_NEGLIGIBLE]


def test_reasons_of_an_empty_group_and_a_singular_fit() -> None:
    rows = pl.DataFrame({"p0": [1.0, 0.0, 0.5], "p1": [0.0, 1.0, 0.5], "p2": [0.0] * 3,
                         "y_true": [1, 0, 1], "y_pred": [1, 0, 1]})
    table = membership_sums(rows, [], ["a", "b", "c"], ["p0", "p1", "p2"], "y_true", "y_pred",
                            None)
    out = regression_from_membership(table, [], "g", ["a", "b", "c"])
    assert out["regression_reason"].to_list() == [None, None, REASON_EMPTY]
    # two groups with the same probabilities on every row: collinear, the fit is singular
    rows = pl.DataFrame({"p0": [0.5, 0.5, 0.5], "p1": [0.5, 0.5, 0.5],
                         "y_true": [1, 0, 1], "y_pred": [1, 0, 1]})
    out = regression_from_membership(_table(rows, 2, []), [], "g", ["a", "b"])
    assert out["regression_reason"].to_list() == [REASON_SINGULAR, REASON_SINGULAR]


def test_near_constant_probabilities_are_ill_conditioned() -> None:
    rows = _rows(300, 2, seed=5).with_columns(
        p0=0.5 + pl.int_range(pl.len()).cast(pl.Float64) * 1e-9,
    ).with_columns(p1=1.0 - pl.col("p0"))
    p = rows.select("p0", "p1").to_numpy()
    assert np.linalg.cond(p.T @ p) > MAX_CONDITION  # the premise: the fit is unidentified
    out = regression_from_membership(_table(rows, 2, []), [], "g", ["a", "b"])
    assert out["regression_singular"].all()
    assert out["selection_rate_regression"].null_count() == 2


def test_estimate_outside_unit_interval_is_flagged_not_hidden() -> None:
    # two rows of two groups: selected with p = (0.6, 0.4), not with p = (0.4, 0.6): the exact
    # fit is beta = (3, -2) (0.6*3 - 0.4*2 = 1; 0.4*3 - 0.6*2 = 0)
    rows = pl.DataFrame({"p0": [0.6, 0.4], "p1": [0.4, 0.6], "y_true": [1, 0],
                         "y_pred": [1, 0]})
    out = regression_from_membership(_table(rows, 2, []), [], "g", ["a", "b"])
    assert out["selection_rate_regression"].to_list() == pytest.approx([3.0, -2.0])
    assert out["regression_out_of_range"].to_list() == [True, True]


def test_an_interval_wholly_outside_the_unit_interval_is_null_not_a_point() -> None:
    # Issue 24 re-review 2, item 5. The two rows above: G = [[.52, .48], [.48, .52]],
    # c = (.6, .4), det G = .52² - .48² = .04, so beta = ((.52·.6 - .48·.4) / .04,
    # (-.48·.6 + .52·.4) / .04) = (3, -2); both rows are fitted exactly (.6·3 - .4·2 = 1,
    # .4·3 - .6·2 = 0), so the HC0 variance is 0 and the Wald intervals are [3, 3] and [-2, -2].
    # Clipped they were [1, 1] and [0, 0]: a certainty the data do not give. The proxy report
    # shows the estimates clipped (1 and 0, regression_clipped) and the intervals null, and
    # says why in regression_reason.
    import polars_fair  # noqa: F401  (registers .fair)
    from polars_fair.analyses.proxy_report import REASON_OUTSIDE

    rows = pl.DataFrame({"p0": [0.6, 0.4], "p1": [0.4, 0.6], "y_true": [1, 0],
                         "y_pred": [1, 0]})
    proxy = rows.fair.proxy_report(None, membership={"g": {"a": "p0", "b": "p1"}},
                                   min_support=0)
    assert proxy["selection_rate_regression"].to_list() == [1.0, 0.0]
    assert proxy["selection_rate_regression_ci_low"].to_list() == [None, None]
    assert proxy["selection_rate_regression_ci_high"].to_list() == [None, None]
    assert proxy["regression_clipped"].to_list() == [True, True]
    reasons = proxy["regression_reason"].to_list()
    for reason, value in zip(reasons, (3.0, -2.0), strict=True):
        assert reason is not None
        assert REASON_OUTSIDE.format(rate="selection_rate", value=value, low=value,
                                     high=value) in reason
    # b's regression impact ratio is undefined (a rate of -2), so its verdict cannot pass
    assert proxy.filter(pl.col("g") == "b")["verdict"].to_list() == ["indeterminate"]


def test_an_estimate_outside_with_an_interval_across_the_edge_keeps_it_clipped() -> None:
    # Twelve rows (a seeded draw): a's estimate 2.06 with its whole interval above 1 (null);
    # b's -0.683 with an interval reaching above 0: clipped to [0, high], not null, with
    # REASON_CLIPPED. The estimate and bound are statsmodels' WLS with HC0 (test-only).
    import polars_fair  # noqa: F401  (registers .fair)
    from polars_fair.analyses.proxy_report import REASON_CLIPPED, REASON_RATIO_REFERENCE

    p0 = [0.33, 0.63, 0.61, 0.4, 0.65, 0.32, 0.43, 0.36, 0.48, 0.62, 0.39, 0.32]
    y = [1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0]
    rows = pl.DataFrame({"p0": p0, "p1": [1 - p for p in p0], "y_true": y, "y_pred": y})
    beta, cov = _wls(rows.select("p0", "p1").to_numpy(), np.array(y, dtype=float),
                     np.ones(len(y)))
    z = 1.959963984540054  # the 0.975 normal quantile
    high = beta[1] + z * np.sqrt(cov[1, 1])
    assert beta[1] < 0 < high and beta[0] - z * np.sqrt(cov[0, 0]) > 1  # the premise
    proxy = rows.fair.proxy_report(None, membership={"g": {"a": "p0", "b": "p1"}},
                                   min_support=0)
    b = proxy.row(1, named=True)
    assert b["selection_rate_regression"] == 0.0 and b["regression_clipped"] is True
    assert b["selection_rate_regression_ci_low"] == 0.0
    assert b["selection_rate_regression_ci_high"] == pytest.approx(high, abs=1e-10)
    # b is the reference: its negative estimate also leaves every regression ratio undefined
    assert b["is_reference"] is True
    assert b["regression_reason"] == "; ".join([
        REASON_CLIPPED.format(rate="selection_rate", value=beta[1]),
        REASON_RATIO_REFERENCE.format(value=f"{beta[1]:.4g}")])
    a = proxy.row(0, named=True)
    assert a["selection_rate_regression_ci_low"] is None
    assert "interval null" in a["regression_reason"]
