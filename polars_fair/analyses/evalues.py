r"""Anytime-valid tests of a group's rate against a reference's, one e-value per period.

The construction (issue 25; after Turner, Ly & Grünwald, "Generic E-variables for exact
sequential k-sample tests that allow for optional stopping", *Stat. Probab. Lett.* 2024, and
the testing-by-betting view of Chugg, Cortes-Gomez, Wilder & Ramdas, NeurIPS 2023). Period
:math:`t` brings, for the group and the reference, :math:`s_g` successes in :math:`n_g` trials
and :math:`s_r` in :math:`n_r`. Before seeing it, rates :math:`q_g, q_r` are predicted from
earlier periods only:

* the reference: :math:`q_r = 1/2` at first, then after each period
  :math:`q_r \leftarrow 0.7\,q_r + 0.3\,(s_r + 1/2)/(n_r + 1)`;
* the group: :math:`q_g = q_r + \bar d`, the weighted mean of the earlier periods'
  differences :math:`d = s_g/n_g - s_r/n_r` (weights :math:`w = n_g n_r/(n_g + n_r)`), clipped
  to [0.001, 0.999].

A null hypothesis is a line :math:`p_g = a + b\,p_r` (a difference :math:`\delta`: :math:`a =
\delta, b = 1`; an impact ratio :math:`R`: :math:`a = 0, b = R`). Its point nearest to the
prediction, :math:`\theta_0`, is the root in :math:`\theta` of the strictly decreasing

.. math::

    n_g\,b\,\frac{q_g - h}{h(1 - h)} + n_r\,\frac{q_r - \theta}{\theta(1 - \theta)},
    \qquad h = a + b\,\theta

(at :math:`\delta = 0`, :math:`\theta_0 = (n_g q_g + n_r q_r)/(n_g + n_r)`), and the period's
e-value is the likelihood ratio of the prediction against that point,

.. math::

    \log e = s_g \log\frac{q_g}{h_0} + (n_g - s_g)\log\frac{1 - q_g}{1 - h_0}
           + s_r \log\frac{q_r}{\theta_0} + (n_r - s_r)\log\frac{1 - q_r}{1 - \theta_0}.

Under every point of the null line its expectation is at most 1 (tested exactly by binomial
sums in tests/analyses/test_monitor.py), so the running product is a test supermartingale and,
by Ville's inequality, :math:`P(\exists T: \prod_{t \le T} e_t \ge 1/\alpha) \le \alpha`: the
confidence sequence at :math:`T`, every null value whose product is below :math:`1/\alpha`,
covers the truth at every period simultaneously, however often it is looked at. Assumption:
within a period, decisions are independent given the group sizes (a period's rate may drift
from the last; the prediction adapts). :math:`\alpha` applies per comparison (one group against
the reference).

Everything here is numpy over small arrays (periods × grid of null values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from polars_fair._lazy import np

__all__ = ["DIFFERENCE_GRID", "RATIO_GRID", "Sequences", "alarms_at_zero", "log_evalues",
           "predictions", "sequences"]

#: The null differences tried: -0.995, ..., 0, ..., 0.995 (steps of 0.005).
DIFFERENCE_GRID = tuple(k / 200 for k in range(-199, 200))
#: The null impact ratios tried: 10^(k/100) from 0.01 to 100 (1 and 0.8 added exactly).
RATIO_GRID = tuple(sorted({10 ** (k / 100) for k in range(-200, 201)} | {1.0, 0.8}))
_EPS = 1e-12
_STEPS = 200
_CLIP = (0.001, 0.999)


def predictions(s_g: Any, n_g: Any, s_r: Any, n_r: Any) -> tuple[Any, Any]:
    """The predicted rates :math:`q_g, q_r` of each period, from earlier periods only.

    Parameters
    ----------
    s_g, n_g, s_r, n_r : array_like of int
        Per period (in time order): the group's and the reference's successes and trials.

    Returns
    -------
    q_g, q_r : numpy.ndarray of float64
        The predictions made before each period (the module's formulas).

    Examples
    --------
    >>> q_g, q_r = predictions([1, 3], [2, 4], [5, 5], [10, 10])
    >>> q_r.tolist()  # 1/2, then 0.7/2 + 0.3 * 5.5/11
    [0.5, 0.5]
    >>> [round(x, 6) for x in q_g.tolist()]  # 1/2, then 1/2 + (1/2 - 1/2)
    [0.5, 0.5]
    """
    s_g, n_g, s_r, n_r = (np.asarray(x, dtype=np.float64) for x in (s_g, n_g, s_r, n_r))
    q_g, q_r = np.empty(len(n_g)), np.empty(len(n_g))
    qr, sum_wd, sum_w = 0.5, 0.0, 0.0
    for t in range(len(n_g)):
        q_r[t] = qr
        q_g[t] = min(max(qr + (sum_wd / sum_w if sum_w > 0 else 0.0), _CLIP[0]), _CLIP[1])
        if n_r[t] > 0:
            qr = 0.7 * qr + 0.3 * (s_r[t] + 0.5) / (n_r[t] + 1)
        if n_g[t] > 0 and n_r[t] > 0:
            w = n_g[t] * n_r[t] / (n_g[t] + n_r[t])
            sum_wd += w * (s_g[t] / n_g[t] - s_r[t] / n_r[t])
            sum_w += w
    return q_g, q_r


def _score(theta: Any, a: Any, b: Any, q_g: Any, q_r: Any, n_g: Any, n_r: Any) -> Any:
    h = a + b * theta
    return n_g * b * (q_g - h) / (h * (1 - h)) + n_r * (q_r - theta) / (theta * (1 - theta))


def _slope(theta: Any, a: Any, b: Any, q_g: Any, q_r: Any, n_g: Any, n_r: Any) -> Any:
    """The derivative of :func:`_score` in theta (negative: the score decreases)."""
    def d(q: Any, x: Any) -> Any:
        v = x * (1 - x)
        return (-v - (q - x) * (1 - 2 * x)) / (v * v)

    return n_g * b * b * d(q_g, a + b * theta) + n_r * d(q_r, theta)


def _root(lo: Any, hi: Any, a: Any, b: Any, q_g: Any, q_r: Any, n_g: Any, n_r: Any) -> Any:
    r"""The root of :func:`_score` in each bracket ``(lo, hi)``, by Newton's method.

    Newton runs on :math:`u` with :math:`\theta = lo + (hi - lo)/(1 + e^{-u})`, where the
    score is smooth up to the bracket's ends, inside a bracket on :math:`u` that every step
    shrinks (a step leaving it is replaced by the bracket's midpoint). Only the entries not yet
    converged are iterated.
    """
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
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(_STEPS):
            args = (a[active], b[active], q_g[active], q_r[active], n_g[active], n_r[active])
            sig = 1 / (1 + np.exp(-u[active]))
            t = lo[active] + width[active] * sig
            value = _score(t, *args)
            lo_a = np.where(value > 0, u[active], u_lo[active])
            hi_a = np.where(value > 0, u_hi[active], u[active])
            step = u[active] - value / (_slope(t, *args) * width[active] * sig * (1 - sig))
            inside = np.isfinite(step) & (step > lo_a) & (step < hi_a)
            new = np.where(value == 0, u[active], np.where(inside, step, (lo_a + hi_a) / 2))
            done = np.abs(new - u[active]) < 1e-12
            u[active], u_lo[active], u_hi[active] = new, lo_a, hi_a
            active = active[~done]
            if active.size == 0:
                break
    return (lo + width / (1 + np.exp(-u))).reshape(shape)


def log_evalues(s_g: Any, n_g: Any, s_r: Any, n_r: Any, q_g: Any, q_r: Any, a: Any,
                b: Any) -> Any:
    r"""The log e-value of each period (rows) against each null line (columns).

    Parameters
    ----------
    s_g, n_g, s_r, n_r, q_g, q_r : array_like, shape (T,)
        Each period's counts and predictions (:func:`predictions`).
    a, b : array_like, shape (G,)
        The null lines :math:`p_g = a + b p_r`.

    Returns
    -------
    numpy.ndarray of float64, shape (T, G)
        :math:`\log e`; 0 where a side has no trial (no evidence) and ``inf`` where the null
        line cannot meet the unit square (that null is impossible).

    Examples
    --------
    Nine of ten against one of ten, under no difference, predicted 0.9 and 0.1:

    >>> le = log_evalues([9], [10], [1], [10], [0.9], [0.1], [0.0], [1.0])
    >>> round(float(le[0, 0]), 4)  # theta0 = 0.5: 2 * (9 log 1.8 + log 0.2)
    7.3613
    """
    def col(x: Any) -> Any:
        return np.asarray(x, dtype=np.float64)[:, None]

    s_g, n_g, s_r, n_r, q_g, q_r = (col(x) for x in (s_g, n_g, s_r, n_r, q_g, q_r))
    a = np.asarray(a, dtype=np.float64)[None, :]
    b = np.asarray(b, dtype=np.float64)[None, :]
    # theta's range: 0 < theta < 1 and 0 < a + b theta < 1
    lo = np.maximum(0.0, -a / b) + np.zeros_like(q_r)
    hi = np.minimum(1.0, (1 - a) / b) + np.zeros_like(q_r)
    feasible = hi > lo
    lo, hi = np.where(feasible, lo, 0.25), np.where(feasible, hi, 0.75)
    theta = _root(lo, hi, a, b, q_g, q_r, n_g, n_r)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        theta = np.clip(theta, _EPS, 1 - _EPS)
        h = np.clip(a + b * theta, _EPS, 1 - _EPS)
        le = (s_g * np.log(q_g / h) + (n_g - s_g) * np.log((1 - q_g) / (1 - h))
              + s_r * np.log(q_r / theta) + (n_r - s_r) * np.log((1 - q_r) / (1 - theta)))
    le = np.where((n_g > 0) & (n_r > 0), le, 0.0)
    return np.where(feasible | (n_g == 0) | (n_r == 0), le, np.inf)


@dataclass(frozen=True)
class Sequences:
    r"""The sequential results of one group against the reference, one entry per period.

    Parameters
    ----------
    difference, impact_ratio : numpy.ndarray
        The Mantel–Haenszel pooled difference and risk ratio over the periods so far.
    cs_low, cs_high, ir_cs_low, ir_cs_high : numpy.ndarray
        The confidence sequences for the difference and the impact ratio (NaN when empty).
    p_anytime : numpy.ndarray
        :math:`\min(1, 1/\max_{t \le T} \prod e_t(0))`.
    alarm, four_fifths_alarm : numpy.ndarray of bool
        The sequence (the running intersection) excludes 0 / lies wholly below
        ``four_fifths``: ``alarm`` is ``cs_high <= 0 or cs_low >= 0`` (the bounds are open),
        ``four_fifths_alarm`` is ``ir_cs_high < four_fifths``; once true, true.

    Examples
    --------
    >>> seq = sequences([5], [10], [5], [10], alpha=0.05, four_fifths=0.8)
    >>> isinstance(seq, Sequences), seq.alarm.tolist()
    (True, [False])
    """

    difference: Any
    impact_ratio: Any
    cs_low: Any
    cs_high: Any
    ir_cs_low: Any
    ir_cs_high: Any
    p_anytime: Any
    alarm: Any
    four_fifths_alarm: Any


def _bounds(accepted: Any, grid: Any, lowest: float, highest: float) -> tuple[Any, Any]:
    """The outermost accepted grid values, widened by one grid step (conservative)."""
    idx = np.arange(grid.size)
    first = np.where(accepted.any(1), np.argmax(accepted, 1), -1)
    last = np.where(accepted.any(1), grid.size - 1 - np.argmax(accepted[:, ::-1], 1), -1)
    low = np.where(first > 0, grid[np.maximum(first - 1, 0)], lowest)
    high = np.where((last >= 0) & (last < idx[-1]), grid[np.minimum(last + 1, idx[-1])],
                    highest)
    empty = first < 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def sequences(s_g: Any, n_g: Any, s_r: Any, n_r: Any, *, alpha: float,
              four_fifths: float) -> Sequences:
    """Every sequential figure of one group against the reference, per period.

    Parameters
    ----------
    s_g, n_g, s_r, n_r : array_like of int, shape (T,)
        The group's and the reference's successes and trials per period, in time order.
    alpha : float
        The level of the sequences and the alarm (per comparison).
    four_fifths : float
        The impact ratio below which the whole sequence raises the four-fifths alarm.

    Returns
    -------
    Sequences
        One value per period.

    Examples
    --------
    >>> seq = sequences([2, 2], [20, 20], [10, 11], [20, 20], alpha=0.05, four_fifths=0.8)
    >>> seq.difference.tolist(), seq.alarm.tolist()
    ([-0.4, -0.425], [False, True])
    """
    s_g, n_g, s_r, n_r = (np.asarray(x, dtype=np.float64) for x in (s_g, n_g, s_r, n_r))
    q_g, q_r = predictions(s_g, n_g, s_r, n_r)
    d_grid, r_grid = np.array(DIFFERENCE_GRID), np.array(RATIO_GRID)
    m_d = np.cumsum(log_evalues(s_g, n_g, s_r, n_r, q_g, q_r, d_grid, np.ones_like(d_grid)), 0)
    m_r = np.cumsum(log_evalues(s_g, n_g, s_r, n_r, q_g, q_r, np.zeros_like(r_grid), r_grid), 0)
    bar = np.log(1 / alpha)
    # the running intersection of the sequences: a null rejected once stays rejected, so the
    # shown bounds, the alarms and p_anytime are the same sequence
    m_d, m_r = np.maximum.accumulate(m_d, 0), np.maximum.accumulate(m_r, 0)
    cs_low, cs_high = _bounds(m_d < bar, d_grid, -1.0, 1.0)
    ir_low, ir_high = _bounds(m_r < bar, r_grid, 0.0, np.inf)
    best = m_d[:, int(np.flatnonzero(d_grid == 0.0)[0])]
    p_anytime = np.minimum(1.0, np.exp(-best))
    # from the last grid ratio below four_fifths up: rejected exactly when ir_cs_high (the
    # first rejected grid ratio above the accepted ones) is below four_fifths
    under = np.flatnonzero(r_grid < four_fifths)
    above = r_grid >= (r_grid[under[-1]] if under.size else -np.inf)
    below = (m_r[:, above] >= bar).all(1)
    both = (n_g > 0) & (n_r > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        big_n = np.where(both, n_g + n_r, 1.0)
        w = np.where(both, n_g * n_r / big_n, 0.0)
        d = np.where(both, s_g / np.where(both, n_g, 1) - s_r / np.where(both, n_r, 1), 0.0)
        diff = np.cumsum(w * d) / np.cumsum(w)
        ratio = np.cumsum(np.where(both, s_g * n_r / big_n, 0.0)) / np.cumsum(
            np.where(both, s_r * n_g / big_n, 0.0))
    return Sequences(difference=diff, impact_ratio=ratio, cs_low=cs_low, cs_high=cs_high,
                     ir_cs_low=ir_low, ir_cs_high=ir_high, p_anytime=p_anytime,
                     alarm=best >= bar, four_fifths_alarm=below)


def alarms_at_zero(s_g: Any, n_g: Any, s_r: Any, n_r: Any, *, alpha: float) -> Any:
    r"""Whether the sequence for the difference has excluded 0 by each period (closed form).

    At :math:`\delta = 0` the null point is :math:`\theta_0 = (n_g q_g + n_r q_r)/(n_g +
    n_r)`, so no search is needed: the alarm of :func:`sequences`, fast enough for
    simulations of thousands of streams.

    Parameters
    ----------
    s_g, n_g, s_r, n_r : array_like of int, shape (T,)
        Per period, in time order.
    alpha : float
        The level.

    Returns
    -------
    numpy.ndarray of bool, shape (T,)
        The alarm at each period (true from the first period whose product reaches
        :math:`1/\alpha`).

    Examples
    --------
    >>> alarms_at_zero([2, 2], [20, 20], [10, 11], [20, 20], alpha=0.05).tolist()
    [False, True]
    """
    s_g, n_g, s_r, n_r = (np.asarray(x, dtype=np.float64) for x in (s_g, n_g, s_r, n_r))
    q_g, q_r = predictions(s_g, n_g, s_r, n_r)
    both = (n_g > 0) & (n_r > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.clip((n_g * q_g + n_r * q_r) / np.where(both, n_g + n_r, 1.0),
                        _EPS, 1 - _EPS)
        le = (s_g * np.log(q_g / theta) + (n_g - s_g) * np.log((1 - q_g) / (1 - theta))
              + s_r * np.log(q_r / theta) + (n_r - s_r) * np.log((1 - q_r) / (1 - theta)))
    return np.maximum.accumulate(np.cumsum(np.where(both, le, 0.0))) >= np.log(1 / alpha)
