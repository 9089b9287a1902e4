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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from polars_fair._lazy import np

__all__ = ["DIFFERENCE_GRID", "RATIO_GRID", "Sequences", "alarms_at_zero", "log_evalues",
           "predictions", "sequences", "sequences_many"]

#: The null differences tried: -0.995, ..., 0, ..., 0.995 (steps of 0.005).
DIFFERENCE_GRID = tuple(k / 200 for k in range(-199, 200))
#: The null impact ratios tried: 10^(k/100) from 0.01 to 100 (1 and 0.8 added exactly).
RATIO_GRID = tuple(sorted({10 ** (k / 100) for k in range(-200, 201)} | {1.0, 0.8}))
_EPS = 1e-12
_STEPS = 200
_CLIP = (0.001, 0.999)
_GROWTH = 4


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


def _newton_step(state: Any, buf: Any, flags: Any) -> None:
    r"""One Newton step of :func:`_root` on every column of ``state``, in place.

    ``state`` holds the rows ``lo, width, a, b, q_g, q_r, n_g b, n_g b², n_r, u, u_lo, u_hi``
    (one column per entry); ``buf`` (ten rows) and ``flags`` (four rows) are scratch of the
    same width. Every operation writes into them: allocating the temporaries of a step costs
    more than its arithmetic (the kernel hands back fresh pages, zeroed and faulted in). The
    operations are those of :func:`_score`, its derivative in :math:`\theta` and the step, in
    the same order, so each entry gets the same doubles. On return ``u, u_lo, u_hi`` are the
    new step and bracket, and ``flags[3]`` says which entries moved less than 1e-12.
    """
    lo, width, a, b, q_g, q_r, nb, nbb, n_r, u, u_lo, u_hi = state
    sig, t, h, v_h, v_t, e_h, e_t, x, y, new = buf
    up, inside, tmp, done = flags
    np.negative(u, out=sig)
    np.exp(sig, out=sig)
    np.add(sig, 1, out=sig)
    np.divide(1, sig, out=sig)  # sig = 1 / (1 + exp(-u))
    np.multiply(width, sig, out=t)
    np.add(lo, t, out=t)  # theta = lo + width sig
    np.multiply(b, t, out=h)
    np.add(a, h, out=h)  # h = a + b theta
    np.subtract(1, h, out=v_h)
    np.multiply(h, v_h, out=v_h)  # h (1 - h)
    np.subtract(1, t, out=v_t)
    np.multiply(t, v_t, out=v_t)  # theta (1 - theta)
    np.subtract(q_g, h, out=e_h)
    np.subtract(q_r, t, out=e_t)
    np.multiply(nb, e_h, out=x)
    np.divide(x, v_h, out=x)
    np.multiply(n_r, e_t, out=y)
    np.divide(y, v_t, out=y)
    np.add(x, y, out=x)  # the score, in x
    # its derivative: n_g b² d(q_g, h) + n_r d(q_r, theta), d(q, z) = (-v - (q - z)(1 - 2z))/v²
    np.multiply(h, 2, out=h)
    np.subtract(1, h, out=h)
    np.multiply(e_h, h, out=e_h)
    np.negative(v_h, out=y)
    np.subtract(y, e_h, out=y)
    np.multiply(v_h, v_h, out=v_h)
    np.divide(y, v_h, out=y)
    np.multiply(nbb, y, out=y)
    np.multiply(t, 2, out=h)
    np.subtract(1, h, out=h)
    np.multiply(e_t, h, out=e_t)
    np.negative(v_t, out=e_h)
    np.subtract(e_h, e_t, out=e_h)
    np.multiply(v_t, v_t, out=v_t)
    np.divide(e_h, v_t, out=e_h)
    np.multiply(n_r, e_h, out=e_h)
    np.add(y, e_h, out=y)  # the derivative in theta, in y
    # the step in u: u - score / (derivative · width · sig (1 - sig)), in y
    np.multiply(y, width, out=y)
    np.multiply(y, sig, out=y)
    np.subtract(1, sig, out=sig)
    np.multiply(y, sig, out=y)
    np.divide(x, y, out=y)
    np.subtract(u, y, out=y)
    # the bracket: a positive score moves its low end to u, any other its high end
    np.greater(x, 0, out=up)
    np.copyto(u_lo, u, where=up)
    np.logical_not(up, out=up)
    np.copyto(u_hi, u, where=up)
    # a finite step inside the bracket, else its midpoint; u itself where the score is 0
    np.isfinite(y, out=inside)
    np.greater(y, u_lo, out=tmp)
    np.logical_and(inside, tmp, out=inside)
    np.less(y, u_hi, out=tmp)
    np.logical_and(inside, tmp, out=inside)
    np.add(u_lo, u_hi, out=new)
    np.divide(new, 2, out=new)
    np.copyto(new, y, where=inside)
    np.equal(x, 0, out=tmp)
    np.copyto(new, u, where=tmp)
    np.subtract(new, u, out=t)
    np.absolute(t, out=t)
    np.less(t, 1e-12, out=done)
    np.copyto(u, new)


def _root(lo: Any, hi: Any, a: Any, b: Any, q_g: Any, q_r: Any, n_g: Any, n_r: Any) -> Any:
    r"""The root of :func:`_score` in each bracket ``(lo, hi)``, by Newton's method.

    Newton runs on :math:`u` with :math:`\theta = lo + (hi - lo)/(1 + e^{-u})`, where the
    score is smooth up to the bracket's ends, inside a bracket on :math:`u` that every step
    shrinks (a step leaving it is replaced by the bracket's midpoint). An entry stops at the
    first step that moves it less than 1e-12 (:func:`_newton_step`); the converged entries are
    dropped from the working arrays once they are a quarter of them. Each entry's steps are
    the same whichever entries it is solved with.
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
    nb = n_g * b
    state = np.stack([lo, width, a, b, q_g, q_r, nb, nb * b, n_r, u, np.full(u.size, -40.0),
                      np.full(u.size, 40.0)])
    solved, index = u.copy(), np.arange(u.size)
    buf, flags = np.empty((10, u.size)), np.empty((4, u.size), dtype=bool)
    live = np.ones(u.size, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(_STEPS):
            m = index.size
            _newton_step(state, buf[:, :m], flags[:, :m])
            done, alive = flags[3, :m], live[:m]
            np.logical_and(done, alive, out=done)
            if done.any():
                solved[index[done]] = state[9, done]
                np.logical_xor(alive, done, out=alive)
                left = np.count_nonzero(alive)
                if left == 0:
                    break
                if left < 0.75 * m:
                    keep = np.flatnonzero(alive)
                    state, index = state[:, keep], index[keep]
                    live[:left] = True
    m = index.size
    alive = live[:m]
    solved[index[alive]] = state[9, alive]  # entries still moving after _STEPS steps
    return (lo + width / (1 + np.exp(-solved))).reshape(shape)


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
    shape = np.broadcast_shapes(s_g.shape, a.shape)
    return _log_evalues_flat(*(np.broadcast_to(x, shape).ravel()
                               for x in (s_g, n_g, s_r, n_r, q_g, q_r, a, b))).reshape(shape)


def _log_evalues_flat(s_g: Any, n_g: Any, s_r: Any, n_r: Any, q_g: Any, q_r: Any, a: Any,
                      b: Any) -> Any:
    """:func:`log_evalues` entry by entry: every argument a float64 array of one shape.

    Only the entries with trials on both sides and a null line that meets the unit square
    are solved (the others are 0 and ``inf`` whatever the root), each as in the formulas.
    """
    # theta's range: 0 < theta < 1 and 0 < a + b theta < 1
    with np.errstate(divide="ignore", invalid="ignore"):
        lo = np.maximum(0.0, -a / b) + 0.0
        hi = np.minimum(1.0, (1 - a) / b) + 0.0
    feasible = hi > lo
    both = (n_g > 0) & (n_r > 0)
    le = np.zeros(n_g.shape)
    le[~(feasible | ~both)] = np.inf
    solve = np.flatnonzero(feasible & both)
    if solve.size == 0:
        return le
    s_g, n_g, s_r, n_r, q_g, q_r, a, b, lo, hi = (
        x[solve] for x in (s_g, n_g, s_r, n_r, q_g, q_r, a, b, lo, hi))
    theta = _root(lo, hi, a, b, q_g, q_r, n_g, n_r)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        theta = np.clip(theta, _EPS, 1 - _EPS)
        h = np.clip(a + b * theta, _EPS, 1 - _EPS)
        le[solve] = (s_g * np.log(q_g / h) + (n_g - s_g) * np.log((1 - q_g) / (1 - h))
                     + s_r * np.log(q_r / theta) + (n_r - s_r) * np.log((1 - q_r) / (1 - theta)))
    return le


@dataclass(frozen=True)
class Sequences:
    r"""The sequential results of one group against the reference, one entry per period.

    Parameters
    ----------
    difference, impact_ratio : numpy.ndarray
        The Mantel–Haenszel pooled difference and risk ratio over the periods so far.
    cs_low, cs_high, ir_cs_low, ir_cs_high : numpy.ndarray
        The confidence sequences for the difference and the impact ratio (NaN when empty).
    cs_empty, ir_cs_empty : numpy.ndarray of bool
        The sequence for the difference / the impact ratio is empty: every value on its grid
        is rejected, so no constant difference (ratio) fits every period so far; once true,
        true (the running intersection stays empty).
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
    cs_empty: Any
    ir_cs_empty: Any


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
    return sequences_many([(s_g, n_g)], s_r, n_r, alpha=alpha, four_fifths=four_fifths)[0]


def sequences_many(groups: Sequence[tuple[Any, Any]], s_r: Any, n_r: Any, *, alpha: float,
                   four_fifths: float) -> list[Sequences]:
    r""":func:`sequences` of several groups against one reference, solved together.

    The same figures as one :func:`sequences` call per group, to the last bit, for less work:
    the e-values of every group, period and null are found in a few batches of periods (1,
    then 4, 16, ... periods), and a null that an earlier batch rejected (its running product
    already reached :math:`1/\alpha`, so it stays rejected) is not solved again in later
    ones (no figure reads its later e-values); the null of no difference, whose product gives
    ``p_anytime``, is solved in every period.

    Parameters
    ----------
    groups : sequence of (array_like, array_like)
        Per group, its successes ``s_g`` and trials ``n_g`` per period, shape (T,) each.
    s_r, n_r : array_like of int, shape (T,)
        The reference's successes and trials per period, in time order.
    alpha : float
        The level of the sequences and the alarm (per comparison).
    four_fifths : float
        The impact ratio below which the whole sequence raises the four-fifths alarm.

    Returns
    -------
    list of Sequences
        One per group, in the order given.

    Examples
    --------
    >>> a, b = sequences_many([([2, 2], [20, 20]), ([9, 10], [20, 20])], [10, 11], [20, 20],
    ...                       alpha=0.05, four_fifths=0.8)
    >>> a.alarm.tolist(), b.alarm.tolist()
    ([False, True], [False, False])
    """
    s_r, n_r = (np.asarray(x, dtype=np.float64) for x in (s_r, n_r))
    counts = [(np.asarray(s, dtype=np.float64), np.asarray(n, dtype=np.float64))
              for s, n in groups]
    d_grid, r_grid = np.array(DIFFERENCE_GRID), np.array(RATIO_GRID)
    zero = int(np.flatnonzero(d_grid == 0.0)[0])
    bar = np.log(1 / alpha)
    # the running intersection of the sequences: a null rejected once stays rejected, so the
    # shown bounds, the alarms and p_anytime are the same sequence
    top = _running_logs(counts, s_r, n_r, d_grid, r_grid, zero, bar)
    out = []
    for (s_g, n_g), m in zip(counts, top, strict=True):
        m_d, m_r = m[:, :d_grid.size], m[:, d_grid.size:]
        cs_low, cs_high = _bounds(m_d < bar, d_grid, -1.0, 1.0)
        ir_low, ir_high = _bounds(m_r < bar, r_grid, 0.0, np.inf)
        best = m_d[:, zero]
        p_anytime = np.minimum(1.0, np.exp(-best))
        # from the last grid ratio below four_fifths up: rejected exactly when ir_cs_high (the
        # first rejected grid ratio above the accepted ones) is below four_fifths
        under = np.flatnonzero(r_grid < four_fifths)
        above = r_grid >= (r_grid[under[-1]] if under.size else -np.inf)
        below = (m_r[:, above] >= bar).all(1)
        diff, ratio = _pooled(s_g, n_g, s_r, n_r)
        out.append(Sequences(difference=diff, impact_ratio=ratio, cs_low=cs_low,
                             cs_high=cs_high, ir_cs_low=ir_low, ir_cs_high=ir_high,
                             p_anytime=p_anytime, alarm=best >= bar,
                             four_fifths_alarm=below, cs_empty=np.isnan(cs_low),
                             ir_cs_empty=np.isnan(ir_low)))
    return out


def _running_logs(counts: list[tuple[Any, Any]], s_r: Any, n_r: Any, d_grid: Any,
                  r_grid: Any, zero: int, bar: float) -> Any:
    """The running maximum over periods of the summed log e-values, (groups, T, nulls).

    The nulls are the difference grid, then the ratio grid. Exact (the sums in period order,
    as ``np.cumsum``) while below ``bar`` and for the null ``zero``; a null at or above
    ``bar`` by the end of a batch of periods is ``inf`` after it.
    """
    groups, periods = len(counts), s_r.size
    s_g = np.array([c[0] for c in counts]).reshape(groups, periods)
    n_g = np.array([c[1] for c in counts]).reshape(groups, periods)
    q = [predictions(s, n, s_r, n_r) for s, n in counts]
    q_g = np.array([x[0] for x in q]).reshape(groups, periods)
    q_r = np.array([x[1] for x in q]).reshape(groups, periods)
    a = np.concatenate([d_grid, np.zeros_like(r_grid)])
    b = np.concatenate([np.ones_like(d_grid), r_grid])
    top = np.full((groups, periods, a.size), np.inf)
    sums = np.zeros((groups, a.size))
    open_ = np.ones((groups, a.size), dtype=bool)
    start, size = 0, 1
    while start < periods:
        stop = min(periods, start + size)
        k, t, j = np.nonzero(np.broadcast_to(open_[:, None, :],
                                             (groups, stop - start, a.size)))
        t += start
        le = _log_evalues_flat(s_g[k, t], n_g[k, t], s_r[t], n_r[t], q_g[k, t], q_r[k, t],
                               a[j], b[j])
        at = 0
        for g in range(groups):  # the entries of group g: (periods of the batch, its nulls)
            cols = np.flatnonzero(open_[g])
            part = le[at:at + (stop - start) * cols.size].reshape(stop - start, cols.size)
            at += part.size
            if start == 0:
                block = np.cumsum(part, 0)
                top[g][:stop, cols] = np.maximum.accumulate(block, 0)
            else:
                block = np.cumsum(np.vstack([sums[g, cols], part]), 0)[1:]
                top[g][start:stop, cols] = np.maximum.accumulate(
                    np.vstack([top[g, start - 1, cols], block]), 0)[1:]
            sums[g, cols] = block[-1]
        open_ = top[:, stop - 1] < bar
        open_[:, zero] = True
        start, size = stop, size * _GROWTH
    return top


def _pooled(s_g: Any, n_g: Any, s_r: Any, n_r: Any) -> tuple[Any, Any]:
    """The Mantel–Haenszel difference and risk ratio over the periods so far."""
    both = (n_g > 0) & (n_r > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        big_n = np.where(both, n_g + n_r, 1.0)
        w = np.where(both, n_g * n_r / big_n, 0.0)
        d = np.where(both, s_g / np.where(both, n_g, 1) - s_r / np.where(both, n_r, 1), 0.0)
        diff = np.cumsum(w * d) / np.cumsum(w)
        ratio = np.cumsum(np.where(both, s_g * n_r / big_n, 0.0)) / np.cumsum(
            np.where(both, s_r * n_g / big_n, 0.0))
    return diff, ratio


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
