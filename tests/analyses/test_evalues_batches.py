"""The monitor's e-values solved in batches: the same doubles as the plain computation.

``sequences_many`` solves the null points of every group, period and null together, drops the
converged entries from its Newton iteration and skips the nulls that an earlier batch of
periods rejected. The references here are the plain computations written out in the test:
Newton's method on every entry of the (period x null) grid with the formulas of the module's
docstring (the solver as it was before the batches), every e-value of every period and null,
``np.cumsum`` and the running maximum over all periods. Every figure must be equal to the last
bit (compared as integers of the same bits).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from polars_fair.analyses.evalues import (
    DIFFERENCE_GRID,
    RATIO_GRID,
    log_evalues,
    predictions,
    sequences,
    sequences_many,
)


def _plain_root(lo: Any, hi: Any, a: Any, b: Any, q_g: Any, q_r: Any, n_g: Any,
                n_r: Any) -> Any:
    """Newton's method on u, theta = lo + (hi - lo)/(1 + e^-u), every entry in one array."""
    def score(t: Any, a: Any, b: Any, q_g: Any, q_r: Any, n_g: Any, n_r: Any) -> Any:
        h = a + b * t
        return n_g * b * (q_g - h) / (h * (1 - h)) + n_r * (q_r - t) / (t * (1 - t))

    def slope(t: Any, a: Any, b: Any, q_g: Any, q_r: Any, n_g: Any, n_r: Any) -> Any:
        def d(q: Any, x: Any) -> Any:
            v = x * (1 - x)
            return (-v - (q - x) * (1 - 2 * x)) / (v * v)
        return n_g * b * b * d(q_g, a + b * t) + n_r * d(q_r, t)

    shape = np.broadcast_shapes(*(np.shape(x) for x in (lo, hi, a, b, q_g, q_r, n_g, n_r)))
    lo, hi, a, b, q_g, q_r, n_g, n_r = (np.broadcast_to(x, shape).ravel().astype(np.float64)
                                        for x in (lo, hi, a, b, q_g, q_r, n_g, n_r))
    width = hi - lo
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        guess = (n_g * b * (q_g - a) + n_r * q_r) / (n_g * b * b + n_r)
        share = (guess - lo) / width
        share = np.where(np.isfinite(share) & (share > 0.001) & (share < 0.999), share, 0.5)
        u = np.log(share / (1 - share))
        u_lo, u_hi = np.full(u.size, -40.0), np.full(u.size, 40.0)
        active = np.arange(u.size)
        for _ in range(200):
            args = (a[active], b[active], q_g[active], q_r[active], n_g[active], n_r[active])
            sig = 1 / (1 + np.exp(-u[active]))
            t = lo[active] + width[active] * sig
            value = score(t, *args)
            lo_a = np.where(value > 0, u[active], u_lo[active])
            hi_a = np.where(value > 0, u_hi[active], u[active])
            step = u[active] - value / (slope(t, *args) * width[active] * sig * (1 - sig))
            inside = np.isfinite(step) & (step > lo_a) & (step < hi_a)
            new = np.where(value == 0, u[active], np.where(inside, step, (lo_a + hi_a) / 2))
            done = np.abs(new - u[active]) < 1e-12
            u[active], u_lo[active], u_hi[active] = new, lo_a, hi_a
            active = active[~done]
            if active.size == 0:
                break
    return (lo + width / (1 + np.exp(-u))).reshape(shape)


def _plain_log_evalues(s_g: Any, n_g: Any, s_r: Any, n_r: Any, q_g: Any, q_r: Any, a: Any,
                       b: Any) -> Any:
    """Every period (rows) against every null (columns), by :func:`_plain_root`."""
    s_g, n_g, s_r, n_r, q_g, q_r = (np.asarray(x, dtype=np.float64)[:, None]
                                    for x in (s_g, n_g, s_r, n_r, q_g, q_r))
    a, b = np.asarray(a, dtype=np.float64)[None, :], np.asarray(b, dtype=np.float64)[None, :]
    lo = np.maximum(0.0, -a / b) + np.zeros_like(q_r)
    hi = np.minimum(1.0, (1 - a) / b) + np.zeros_like(q_r)
    feasible = hi > lo
    lo, hi = np.where(feasible, lo, 0.25), np.where(feasible, hi, 0.75)
    theta = _plain_root(lo, hi, a, b, q_g, q_r, n_g, n_r)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        theta = np.clip(theta, 1e-12, 1 - 1e-12)
        h = np.clip(a + b * theta, 1e-12, 1 - 1e-12)
        le = (s_g * np.log(q_g / h) + (n_g - s_g) * np.log((1 - q_g) / (1 - h))
              + s_r * np.log(q_r / theta) + (n_r - s_r) * np.log((1 - q_r) / (1 - theta)))
    le = np.where((n_g > 0) & (n_r > 0), le, 0.0)
    return np.where(feasible | (n_g == 0) | (n_r == 0), le, np.inf)


def _plain_sequences(s_g: Any, n_g: Any, s_r: Any, n_r: Any, alpha: float,
                     four_fifths: float) -> dict[str, Any]:
    """The figures of one group from every e-value of every period and null."""
    s_g, n_g, s_r, n_r = (np.asarray(x, dtype=np.float64) for x in (s_g, n_g, s_r, n_r))
    q_g, q_r = predictions(s_g, n_g, s_r, n_r)
    d, r = np.array(DIFFERENCE_GRID), np.array(RATIO_GRID)
    bar = np.log(1 / alpha)
    m_d = np.maximum.accumulate(np.cumsum(
        _plain_log_evalues(s_g, n_g, s_r, n_r, q_g, q_r, d, np.ones_like(d)), 0), 0)
    m_r = np.maximum.accumulate(np.cumsum(
        _plain_log_evalues(s_g, n_g, s_r, n_r, q_g, q_r, np.zeros_like(r), r), 0), 0)

    def bounds(accepted: Any, grid: Any, lowest: float, highest: float) -> tuple[Any, Any]:
        out_low, out_high = [], []
        for row in accepted:
            idx = np.flatnonzero(row)
            if idx.size == 0:
                out_low.append(np.nan)
                out_high.append(np.nan)
                continue
            out_low.append(grid[idx[0] - 1] if idx[0] > 0 else lowest)
            out_high.append(grid[idx[-1] + 1] if idx[-1] < grid.size - 1 else highest)
        return np.array(out_low, dtype=np.float64), np.array(out_high, dtype=np.float64)

    best = m_d[:, int(np.flatnonzero(d == 0.0)[0])]
    under = np.flatnonzero(r < four_fifths)
    above = r >= (r[under[-1]] if under.size else -np.inf)
    cs_low, cs_high = bounds(m_d < bar, d, -1.0, 1.0)
    ir_low, ir_high = bounds(m_r < bar, r, 0.0, np.inf)
    return {"cs_low": cs_low, "cs_high": cs_high, "ir_cs_low": ir_low, "ir_cs_high": ir_high,
            "p_anytime": np.minimum(1.0, np.exp(-best)), "alarm": best >= bar,
            "four_fifths_alarm": (m_r[:, above] >= bar).all(1)}


def _bits(x: Any) -> Any:
    x = np.asarray(x)
    return x if x.dtype == bool else x.astype(np.float64).view(np.int64)


def _streams(seed: int) -> list[tuple[Any, Any, Any, Any]]:
    """Groups against a reference: strong and weak evidence, empty periods, extreme rates."""
    rng = np.random.default_rng(seed)
    out = []
    for size_g, size_r, p_g, p_r, periods in [
            (5000, 20000, 0.25, 0.30, 60),  # strong: most nulls rejected after one period
            (20, 60, 0.24, 0.30, 80),  # weak: the sequences narrow slowly
            (3, 200, 0.3, 0.3, 40),  # a small group, no difference
            (40, 120, 0.001, 0.999, 30),  # rates at the ends
            (0.7, 2, 0.5, 0.2, 50)]:  # many empty periods
        n_g, n_r = rng.poisson(size_g, periods), rng.poisson(size_r, periods)
        out.append((rng.binomial(n_g, p_g), n_g, rng.binomial(n_r, p_r), n_r))
    return out


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("alpha", "four_fifths"), [(0.05, 0.8), (0.01, 0.95), (0.3, 0.5)])
def test_batched_sequences_equal_the_plain_computation_to_the_last_bit(
        seed: int, alpha: float, four_fifths: float) -> None:
    for s_g, n_g, s_r, n_r in _streams(seed):
        plain = _plain_sequences(s_g, n_g, s_r, n_r, alpha, four_fifths)
        got = sequences(s_g, n_g, s_r, n_r, alpha=alpha, four_fifths=four_fifths)
        for name, expected in plain.items():
            assert np.array_equal(_bits(getattr(got, name)), _bits(expected)), name


def test_groups_solved_together_equal_each_group_alone_to_the_last_bit() -> None:
    rng = np.random.default_rng(5)
    periods = 70
    n_r = rng.poisson(300, periods)
    s_r = rng.binomial(n_r, 0.4)
    groups = []
    for size, rate in [(300, 0.4), (50, 0.3), (4000, 0.2), (2, 0.6)]:
        n_g = rng.poisson(size, periods)
        groups.append((rng.binomial(n_g, rate), n_g))
    together = sequences_many(groups, s_r, n_r, alpha=0.05, four_fifths=0.8)
    for (s_g, n_g), got in zip(groups, together, strict=True):
        plain = _plain_sequences(s_g, n_g, s_r, n_r, 0.05, 0.8)
        for name, expected in plain.items():
            assert np.array_equal(_bits(getattr(got, name)), _bits(expected)), name
        alone = sequences(s_g, n_g, s_r, n_r, alpha=0.05, four_fifths=0.8)
        for name in ("difference", "impact_ratio"):
            assert np.array_equal(_bits(getattr(got, name)), _bits(getattr(alone, name)))


def test_log_evalues_equal_the_plain_newton_to_the_last_bit() -> None:
    rng = np.random.default_rng(9)
    periods = 25
    n_g, n_r = rng.poisson(30, periods), rng.poisson(90, periods)
    n_g[:3] = 0
    s_g, s_r = rng.binomial(n_g, 0.2), rng.binomial(n_r, 0.35)
    q_g, q_r = predictions(s_g, n_g, s_r, n_r)
    d, r = np.array(DIFFERENCE_GRID), np.array(RATIO_GRID)
    for a, b in ((d, np.ones_like(d)), (np.zeros_like(r), r),
                 (np.array([0.5, -2.0, 0.0]), np.array([1.0, 1.0, 3.0]))):  # 2 infeasible
        expected = _plain_log_evalues(s_g, n_g, s_r, n_r, q_g, q_r, a, b)
        assert np.array_equal(_bits(log_evalues(s_g, n_g, s_r, n_r, q_g, q_r, a, b)),
                              _bits(expected))

