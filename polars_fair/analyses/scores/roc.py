"""Exact ROC numerics on score cells: ROC curve, AUC and ABROCA.

A *cell* is one distinct score of one group with the (possibly weighted) number of positives and
negatives that carry it. Everything here works on those small arrays with numpy; the rows never
leave Polars.

Conventions (as :func:`sklearn.metrics.roc_curve` with ``drop_intermediate=False``):

* thresholds run over the distinct scores in *descending* order, a row is predicted positive when
  ``score >= threshold``;
* tied scores are one threshold, so a cell holding both classes is one *diagonal* segment of the
  curve (the expected curve over all orderings of the ties), and the curve starts at ``(0, 0)``
  and ends at ``(1, 1)``;
* AUC is the Mann-Whitney probability ``P(s+ > s-) + 1/2 P(s+ = s-)``, which equals the
  trapezoidal area under that curve.

ABROCA (Gardner, Brooks & Baker 2019, "Evaluating the fairness of predictive student models
through slicing analysis", LAK'19; used by Borchers et al.) is the area between two ROC curves,
``integral_0^1 |TPR_a(f) - TPR_b(f)| df``, computed here exactly for the piecewise-linear curves,
not on a grid.

Why one module: it is the numerics of ROC curves on cells, with no Polars in
it. Its three ABROCA kernels (:func:`abroca_exact` for two curves, :func:`abroca_batch` for many
draws on a shared grid, :func:`abroca_splits` for draws of distinct scores) integrate the same
piecewise-linear difference with the same helpers (:func:`_abs_linear_integral`), and are tested
against each other (and :func:`polars_fair.analyses.scores.null_kernel.split_abroca`, the
randomization test's kernel, against them); the docstrings carry the derivations and make up half of
the lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = [
    "BAD_CELLS",
    "BAD_CURVE",
    "ONE_CLASS",
    "GridCache",
    "abroca_batch",
    "abroca_exact",
    "abroca_splits",
    "auc_from_cells",
    "roc_curve_from_cells",
    "roc_points_from_cells",
]

ONE_CLASS = (
    "the cells hold {positives} positive(s) and {negatives} negative(s): a ROC curve needs both "
    "classes"
)
BAD_CELLS = "cells: {problem}"
BAD_CURVE = "curve {name}: {problem}"

_TINY = 1e-300

GridCache = dict[
    tuple[int, int], tuple["NDArray[np.int64]", "NDArray[np.int64]", "NDArray[np.float64]"]
]

Curve = tuple["ArrayLike", "ArrayLike"]


def _cells(
    scores: ArrayLike, pos: ArrayLike, neg: ArrayLike
) -> tuple[
    NDArray[np.float64], NDArray[np.int64] | NDArray[np.float64],
    NDArray[np.int64] | NDArray[np.float64],
]:
    """Validate cells and return them sorted by score ascending with distinct scores."""
    s = np.asarray(scores, dtype=np.float64).ravel()
    p = np.asarray(pos).ravel()
    n = np.asarray(neg).ravel()
    if not (s.shape == p.shape == n.shape):
        raise E.InvalidArgumentError(
            BAD_CELLS.format(
                problem=("scores, pos and neg must have one length, got "
                         f"{s.size}, {p.size}, {n.size}")
            )
        )
    if s.size == 0:
        raise E.InvalidArgumentError(BAD_CELLS.format(problem="no cells"))
    integral = np.issubdtype(p.dtype, np.integer) and np.issubdtype(n.dtype, np.integer)
    dtype = np.int64 if integral else np.float64
    p = p.astype(dtype, copy=False)
    n = n.astype(dtype, copy=False)
    if not np.all(np.isfinite(s)):
        raise E.InvalidArgumentError(BAD_CELLS.format(problem="scores must be finite"))
    if not integral and not (np.all(np.isfinite(p)) and np.all(np.isfinite(n))):
        raise E.InvalidArgumentError(BAD_CELLS.format(problem="counts must be finite"))
    if np.any(p < 0) or np.any(n < 0):
        raise E.InvalidArgumentError(BAD_CELLS.format(problem="counts must be non-negative"))
    if s.size > 1 and not np.all(s[1:] > s[:-1]):
        order = np.argsort(s, kind="stable")
        s, p, n = s[order], p[order], n[order]
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
        s = s[starts]
        p = np.add.reduceat(p, starts)
        n = np.add.reduceat(n, starts)
    return s, p, n


def roc_curve_from_cells(
    scores: ArrayLike, pos: ArrayLike, neg: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ROC curve of one group from its score cells.

    With the cells sorted by score descending, ``s_1 > s_2 > ... > s_K``, the curve has the
    ``K + 1`` points ``(FP_k / N, TP_k / P)`` for ``k = 0..K``, where ``TP_k = sum_{i<=k} pos_i``
    and ``FP_k = sum_{i<=k} neg_i`` (``TP_0 = FP_0 = 0``). Tied rows share a cell, so a cell with
    both classes is one diagonal segment. This is :func:`sklearn.metrics.roc_curve` with
    ``drop_intermediate=False`` (Fawcett 2006, "An introduction to ROC analysis", Alg. 2).

    Parameters
    ----------
    scores : array-like of float, shape (K,)
        Scores of the cells, finite; any order, duplicates are merged.
    pos, neg : array-like of int or float, shape (K,)
        Number (or summed sample weight) of positives and negatives at each score, >= 0.

    Returns
    -------
    fpr, tpr : numpy.ndarray of float64, shape (K + 1,)
        False and true positive rates in [0, 1], non-decreasing, from ``(0, 0)`` to ``(1, 1)``.

    Raises
    ------
    ValueError
        If the arrays differ in length or are empty, scores are not finite, counts are negative,
        or the cells hold only one class (message :data:`ONE_CLASS`).

    Examples
    --------
    >>> fpr, tpr = roc_curve_from_cells([0.1, 0.4, 0.8], [0, 1, 1], [1, 1, 0])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0])
    """
    fpr, tpr, _ = roc_points_from_cells(scores, pos, neg)
    return fpr, tpr


@borrow(roc_curve_from_cells, params=("scores", "pos, neg"))
def roc_points_from_cells(
    scores: ArrayLike, pos: ArrayLike, neg: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """ROC curve of one group with the threshold of each point.

    The points of :func:`roc_curve_from_cells`; point ``k >= 1`` is reached at threshold
    ``s_k``, the ``k``-th distinct score in descending order (a row is predicted positive when
    ``score >= s_k``), and point 0, ``(0, 0)``, at threshold ``+inf`` (nothing predicted
    positive), as the ``thresholds`` of :func:`sklearn.metrics.roc_curve` (scikit-learn >= 1.3,
    ``drop_intermediate=False``).

    Returns
    -------
    fpr, tpr, thresholds : numpy.ndarray of float64, shape (K + 1,)
        ``fpr`` and ``tpr`` non-decreasing from ``(0, 0)`` to ``(1, 1)``; ``thresholds``
        decreasing from ``+inf``.

    Raises
    ------
    ValueError
        As :func:`roc_curve_from_cells`.

    Examples
    --------
    >>> fpr, tpr, thr = roc_points_from_cells([0.1, 0.4, 0.8], [0, 1, 1], [1, 1, 0])
    >>> thr.tolist(), tpr.tolist()
    ([inf, 0.8, 0.4, 0.1], [0.0, 0.5, 1.0, 1.0])
    """
    return _points_of_cells(*_cells(scores, pos, neg))


def _points_of_cells(
    s: NDArray[np.float64], p: NDArray[Any], n: NDArray[Any]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """:func:`roc_points_from_cells` of cells already checked by :func:`_cells`.

    Distinct ascending finite scores, non-negative int64 (or float64) counts: the cells of a
    :class:`polars_fair.analyses.scores.scoreview.ScoreView` group whose table was checked once.
    """
    tps = np.concatenate(([0], np.cumsum(p[::-1])))
    fps = np.concatenate(([0], np.cumsum(n[::-1])))
    total_p, total_n = tps[-1], fps[-1]
    if total_p <= 0 or total_n <= 0:
        raise E.InvalidArgumentError(ONE_CLASS.format(positives=total_p, negatives=total_n))
    thresholds = np.concatenate(([np.inf], s[::-1]))
    # dividing by the last cumulative sum makes the end point exactly (1, 1)
    return fps / total_n, tps / total_p, thresholds


def auc_from_cells(scores: ArrayLike, pos: ArrayLike, neg: ArrayLike) -> float | None:
    """Area under the ROC curve of one group, ties counted one half.

    ``AUC = sum_k pos_k * (N_below_k + neg_k / 2) / (P * N)`` with the cells sorted by score,
    ``N_below_k`` the negatives with a score strictly below ``s_k``: the Mann-Whitney statistic
    ``U / (P N)``, equal to the trapezoidal area under :func:`roc_curve_from_cells` and to
    :func:`sklearn.metrics.roc_auc_score` (with ``sample_weight`` when the counts are weight sums).

    Parameters
    ----------
    scores : array-like of float, shape (K,)
        Scores of the cells; any order, duplicates are merged.
    pos, neg : array-like of int or float, shape (K,)
        Number (or summed weight) of positives and negatives per score.

    Returns
    -------
    float or None
        AUC in [0, 1]; ``None`` when the cells hold only one class (AUC undefined).

    Raises
    ------
    ValueError
        For cells of unequal length, empty, non-finite scores or negative counts.

    Examples
    --------
    >>> auc_from_cells([0.1, 0.4, 0.8], [0, 1, 1], [1, 1, 0])
    0.875
    """
    _, p, n = _cells(scores, pos, neg)
    return _auc_of_cells(p, n)


def _auc_of_cells(p: NDArray[Any], n: NDArray[Any]) -> float | None:
    """:func:`auc_from_cells` of counts already checked and ordered by :func:`_cells`."""
    total_p = float(np.sum(p))
    total_n = float(np.sum(n))
    if total_p <= 0 or total_n <= 0:
        return None
    pf = p.astype(np.float64)
    nf = n.astype(np.float64)
    below = np.cumsum(nf) - nf
    u = float(np.sum(pf * (below + 0.5 * nf)))
    return u / (total_p * total_n)


def _check_curve(curve: Curve, name: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    if len(curve) != 2:
        raise E.InvalidArgumentError(
            BAD_CURVE.format(name=name, problem="expected a pair (fpr, tpr)")
        )
    x = np.asarray(curve[0], dtype=np.float64).ravel()
    y = np.asarray(curve[1], dtype=np.float64).ravel()
    if x.shape != y.shape or x.size < 2:
        raise E.InvalidArgumentError(
            BAD_CURVE.format(name=name, problem="fpr and tpr need one length of at least 2")
        )
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise E.InvalidArgumentError(BAD_CURVE.format(name=name, problem="values must be finite"))
    if x[0] != 0.0 or x[-1] != 1.0 or np.any(x[1:] < x[:-1]):
        raise E.InvalidArgumentError(
            BAD_CURVE.format(name=name, problem="fpr must be non-decreasing from 0 to 1")
        )
    return x, y


def _on_intervals(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    left: NDArray[np.float64],
    right: NDArray[np.float64],
    k: NDArray[np.intp],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Values of a piecewise-linear curve at both ends of open intervals free of its breakpoints.

    For ``left < right`` with no breakpoint of the curve inside, the curve is the segment
    ``x[k-1] <= left < right <= x[k]`` there, ``k`` the first breakpoint right of ``left``
    (``np.searchsorted(x, left, side="right")``, given): its value at ``left`` is the right
    limit and at ``right`` the left limit (vertical steps are skipped).
    """
    # y0 + (y1 - y0) * ((t - x0) / dx) at t = left, right, in place (the same operations)
    before = k - 1
    x0, y0 = x[before], y[before]
    dx, dy = x[k], y[k]
    dx -= x0
    dy -= y0
    ends = []
    for t in (left, right):
        v = t - x0
        v /= dx
        v *= dy
        v += y0
        ends.append(v)
    return ends[0], ends[1]


def _staircase(x: NDArray[np.float64], y: NDArray[np.float64]) -> bool:
    """Whether the curve is flat wherever it moves right (only vertical and horizontal steps)."""
    return not bool(np.any((x[1:] != x[:-1]) & (y[1:] != y[:-1])))


def _abs_linear_integral(
    d0: NDArray[np.float64], d1: NDArray[np.float64], width: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``integral |d(t)|`` over intervals where ``d`` is linear from ``d0`` to ``d1``.

    Same sign: trapezoid ``w (|d0| + |d1|) / 2``. Opposite signs: the two triangles on either side
    of the zero crossing, ``w (d0^2 + d1^2) / (2 (|d0| + |d1|))``.
    """
    # 0.5 w (|d0| + |d1|) minus, at a crossing, w |d0 d1| / (|d0| + |d1|): branch-free
    total = np.abs(d0) + np.abs(d1)
    crossing = np.maximum(-(d0 * d1), 0.0) / np.maximum(total, _TINY)
    out: NDArray[np.float64] = width * (0.5 * total - crossing)
    return out


def abroca_exact(curve_a: Curve, curve_b: Curve) -> float:
    """Exact area between two ROC curves (ABROCA).

    ``ABROCA = integral_0^1 |TPR_a(f) - TPR_b(f)| df`` (Gardner, Brooks & Baker 2019; Borchers et
    al.), where each curve is the piecewise-linear interpolation of its points. Where a curve has
    several points at one FPR (a vertical step) it jumps; that is a set of measure zero. The
    breakpoints of both curves are merged; on each open interval between consecutive breakpoints
    both curves are linear (right limit at the left end, left limit at the right end), so the
    difference is linear and ``|difference|`` is integrated in closed form, split at its zero
    crossing. The two sorted breakpoint runs are merged by one stable sort, which is a linear
    merge for two runs: cost ``O(K_a + K_b)``. When neither curve has a diagonal segment
    (no tied score holds both classes, as with continuous scores) both are flat on every
    interval and the area is ``sum w |d|`` on the left values alone, the same numbers as the
    general formula there, bit for bit, at a fraction of the passes.

    Parameters
    ----------
    curve_a, curve_b : tuple of array-like of float
        ``(fpr, tpr)`` as from :func:`roc_curve_from_cells`: equal lengths >= 2, ``fpr``
        non-decreasing from exactly 0 to exactly 1.

    Returns
    -------
    float
        ABROCA in [0, 1] (for curves with TPR in [0, 1]); symmetric in its arguments.

    Raises
    ------
    ValueError
        If a curve is not a pair of equal-length finite arrays with ``fpr`` non-decreasing from
        0 to 1 (message :data:`BAD_CURVE`).

    Examples
    --------
    A perfect ranking against the chance diagonal: area 1/2.

    >>> abroca_exact(([0.0, 0.0, 1.0], [0.0, 1.0, 1.0]), ([0.0, 1.0], [0.0, 1.0]))
    0.5
    """
    xa, ya = _check_curve(curve_a, "a")
    xb, yb = _check_curve(curve_b, "b")
    # merge the two sorted breakpoint runs (a stable sort of two runs is a linear merge), keep
    # the last of each run of equal values: z = np.unique(xa + xb), and the a-breakpoints <= z
    # (np.searchsorted(xa, z, side="right")) are counted on the way, without a search
    both = np.concatenate((xa, xb))
    order = np.argsort(both, kind="stable")
    merged = both[order]
    last = np.flatnonzero(np.r_[merged[1:] != merged[:-1], True])
    z = merged[last]
    left, right = z[:-1], z[1:]
    ka = np.cumsum(order < xa.size, dtype=np.intp)[last[:-1]]
    kb = last[:-1] + 1 - ka
    if _staircase(xa, ya) and _staircase(xb, yb):
        # no diagonal (no tied block of both classes) in either curve: on every interval both
        # are flat, at their last point left of it, so |d| is constant. The general formula's
        # values are these bit for bit (y0 + 0 = y0, and w (0.5 (2 |d|) - 0) = w |d|)
        d = ya[ka - 1]
        d -= yb[kb - 1]
        np.abs(d, out=d)
        d *= right - left
        return float(np.sum(d))
    d0, d1 = _on_intervals(xa, ya, left, right, ka)
    b_l, b_r = _on_intervals(xb, yb, left, right, kb)
    d0 -= b_l
    d1 -= b_r
    return float(np.sum(_abs_linear_integral(d0, d1, right - left)))


def abroca_batch(
    cum_pos_a: ArrayLike, cum_neg_a: ArrayLike, cum_pos_b: ArrayLike, cum_neg_b: ArrayLike
) -> NDArray[np.float64]:
    """ABROCA of many pairs of curves that share one score grid, exactly, in integer arithmetic.

    Row ``r`` holds two groups' cumulative counts over the same thresholds (distinct scores,
    descending, with a leading 0): curve a has points ``(cum_neg_a / N_a, cum_pos_a / P_a)``, curve
    b likewise, ``P`` and ``N`` the last column. The FPR breakpoints of both curves are put over
    the common denominator ``N_a N_b`` as integers, so the merge of breakpoints is exact (equal
    FPRs compare equal) and all rows are merged in one sort. The area is that of
    :func:`abroca_exact`. It was the randomization test's kernel for tied scores before
    :func:`polars_fair.analyses.scores.null_kernel.split_abroca`, which is checked against it.

    Parameters
    ----------
    cum_pos_a, cum_neg_a, cum_pos_b, cum_neg_b : array-like of int, shape (B, V)
        Cumulative non-negative integer counts along thresholds, each row non-decreasing and
        starting at 0.

    Returns
    -------
    numpy.ndarray of float64, shape (B,)
        ABROCA in [0, 1] per row; NaN where either curve lacks a class.

    Raises
    ------
    ValueError
        If the shapes differ, or ``N_a * N_b`` is too large for exact int64 arithmetic.

    Examples
    --------
    >>> import numpy as np
    >>> abroca_batch(np.array([[0, 1, 1]]), np.array([[0, 0, 1]]),
    ...              np.array([[0, 1, 1]]), np.array([[0, 1, 1]])).tolist()
    [0.5]
    """
    cpa = np.atleast_2d(np.asarray(cum_pos_a, dtype=np.int64))
    cna = np.atleast_2d(np.asarray(cum_neg_a, dtype=np.int64))
    cpb = np.atleast_2d(np.asarray(cum_pos_b, dtype=np.int64))
    cnb = np.atleast_2d(np.asarray(cum_neg_b, dtype=np.int64))
    if not (cpa.shape == cna.shape == cpb.shape == cnb.shape) or cpa.ndim != 2:
        raise E.InvalidArgumentError(
            BAD_CELLS.format(problem="cumulative count arrays must share one 2-D shape")
        )
    n_rows, width = cpa.shape
    out = np.full(n_rows, np.nan)
    if n_rows == 0 or width < 2:
        return out
    pa, na, pb, nb = cpa[:, -1], cna[:, -1], cpb[:, -1], cnb[:, -1]
    ok = (pa > 0) & (na > 0) & (pb > 0) & (nb > 0)
    if not np.any(ok):
        return out
    rows = np.flatnonzero(ok)
    if float(np.max(na[rows])) * float(np.max(nb[rows])) > 2.0**60:
        raise E.InvalidArgumentError(
            BAD_CELLS.format(problem="too many negatives for exact int64 arithmetic")
        )
    # bound the offset total below 2**62 and the memory of one chunk (~1e6 cells)
    d_max = int(np.max(na[rows] * nb[rows])) + 1
    step = max(1, min(1_000_000 // width, (2**62) // d_max))
    if rows.size == n_rows and n_rows <= step:  # the common case: no copies
        return _abroca_rows(cpa, cna, cpb, cnb)
    for start in range(0, rows.size, step):
        sel = rows[start : start + step]
        out[sel] = _abroca_rows(cpa[sel], cna[sel], cpb[sel], cnb[sel])
    return out


def _abroca_rows(
    cpa: NDArray[np.int64], cna: NDArray[np.int64], cpb: NDArray[np.int64], cnb: NDArray[np.int64]
) -> NDArray[np.float64]:
    n_rows, width = cpa.shape
    pa, na, pb, nb = cpa[:, -1:], cna[:, -1:], cpb[:, -1:], cnb[:, -1:]
    denom = (na * nb)[:, 0]
    # row r lives in [off_r, off_r + denom_r]; rows are separated so one flat sort merges them all
    off = np.concatenate(([0], np.cumsum(denom[:-1] + 1)))[:, None]
    xa = (cna * nb + off).ravel()
    xb = (cnb * na + off).ravel()
    # two sorted runs: the stable sort (timsort) merges them in linear time; ties keep a first
    both = np.concatenate((xa, xb))
    order = np.argsort(both, kind="stable")
    merged = both[order]
    left = merged[:-1]
    w = merged[1:] - left  # int64 widths; 0 for repeated breakpoints
    w[2 * width - 1 :: 2 * width] = 0  # the gaps between rows are not intervals
    # ka[m] = number of a-breakpoints at merged positions <= m. For an interval of positive width
    # every breakpoint equal to its left end comes before it, so ka is the index of the first
    # a-breakpoint right of the left end (searchsorted side="right"): the interval lies on
    # segment ka - 1 -> ka of curve a. Likewise kb for curve b.
    ka = np.cumsum(order < xa.size, dtype=np.int64)[:-1]
    kb = np.arange(1, both.size) - ka
    wf = w.astype(np.float64)

    def ends(
        k: NDArray[np.int64], x: NDArray[np.int64], cum: NDArray[np.int64], total: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        y = (cum / total).ravel()
        dx = np.diff(x, append=x[-1])  # dx[j] = x[j+1] - x[j]; 0 on vertical steps
        dy = np.diff(y, append=y[-1])
        slope = np.divide(dy, dx, out=np.zeros_like(dy), where=dx > 0)
        j = k - 1  # segment j -> j + 1; for w == 0 it may point anywhere (finite values, times 0)
        x0 = x[j]
        at_left = y[j] + slope[j] * (left - x0)
        return at_left, at_left + slope[j] * wf

    a_l, a_r = ends(ka, xa, cpa, pa)
    b_l, b_r = ends(kb, xb, cpb, pb)
    area = np.append(_abs_linear_integral(a_l - b_l, a_r - b_r, wf), 0.0)
    result: NDArray[np.float64] = np.sum(area.reshape(n_rows, 2 * width), axis=1) / denom
    return result


def _grid(
    n_neg_a: int, n_neg_b: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Merged FPR grid of two staircase ROC curves with ``n_neg_a`` and ``n_neg_b`` negatives.

    On the common denominator ``n_neg_a * n_neg_b`` the breakpoints are ``i * n_neg_b`` and
    ``j * n_neg_a``; interval ``m`` lies on horizontal step ``ia[m]`` of curve a and ``ib[m]`` of
    curve b and has integer width ``w[m]``.
    """
    z = np.union1d(np.arange(n_neg_a + 1) * n_neg_b, np.arange(n_neg_b + 1) * n_neg_a)
    left = z[:-1]
    return left // n_neg_b, left // n_neg_a, np.diff(z).astype(np.float64)


def abroca_splits(
    member: ArrayLike, label: ArrayLike, cache: GridCache | None = None
) -> NDArray[np.float64]:
    """Exact ABROCA of many two-group splits of one sample whose scores are all distinct.

    ``label`` holds the classes of the pooled rows sorted by score *descending* and row ``r`` of
    ``member`` marks the rows of group a in split ``r`` (group b is the rest). Without ties both ROC
    curves are staircases: on ``(i/N_a, (i+1)/N_a)`` curve a has height ``h_a[i] / P_a``, with
    ``h_a[i]`` the positives of a ranked above its ``(i+1)``-th negative. Hence

    ``ABROCA = sum_m w_m |h_a[ia_m] P_b - h_b[ib_m] P_a| / (P_a P_b N_a N_b)``

    over the merged grid of breakpoints ``i N_b`` and ``j N_a`` (common denominator
    ``N_a N_b``), which depends only on ``(N_a, N_b)``: the splits are processed in blocks of equal
    ``N_a`` with one gather and one matrix-vector product each. The numerators are integers, exact
    in float64. Same value as :func:`abroca_exact` (Gardner, Brooks & Baker 2019) on these curves,
    several times faster than :func:`abroca_batch`; the randomization test's kernel for
    distinct scores before :func:`polars_fair.analyses.scores.null_kernel.split_abroca` (which
    handles ties too).

    Parameters
    ----------
    member : array-like of bool, shape (B, M)
        Group-a membership of the pooled rows in each split.
    label : array-like of bool, shape (M,)
        Class of each pooled row (True = positive), rows sorted by distinct scores descending.
    cache : dict, optional
        Reused grids keyed by ``(N_a, N_b)``; pass one dict across calls to share them.

    Returns
    -------
    numpy.ndarray of float64, shape (B,)
        ABROCA in [0, 1] per split; NaN where a group lacks a class.

    Raises
    ------
    ValueError
        If the shapes do not match.

    Examples
    --------
    >>> abroca_splits([[True, True, False, False]], [True, False, False, True]).tolist()
    [1.0]
    """
    member = np.atleast_2d(np.asarray(member, dtype=bool))
    label = np.asarray(label, dtype=bool).ravel()
    if member.ndim != 2 or member.shape[1] != label.size:
        raise E.InvalidArgumentError(
            BAD_CELLS.format(problem="member must have shape (B, len(label))")
        )
    if cache is None:
        cache = {}
    n_draws = member.shape[0]
    out = np.full(n_draws, np.nan)
    neg = ~label
    cpa = np.cumsum(member & label, axis=1)
    cpb = np.cumsum(label) - cpa
    n_pos = int(np.count_nonzero(label))
    n_neg = label.size - n_pos
    pa = cpa[:, -1]
    na = np.count_nonzero(member & neg, axis=1)
    ok = (pa > 0) & (na > 0) & (pa < n_pos) & (na < n_neg)
    rows = np.flatnonzero(ok)
    if rows.size == 0:
        return out
    rows = rows[np.argsort(na[rows], kind="stable")]
    m = member[rows]
    ha = cpa[rows][m & neg].astype(np.float64)  # blocks of N_a values per row, in row order
    hb = cpb[rows][~m & neg].astype(np.float64)
    na_sorted = na[rows]
    pa_sorted = pa[rows]
    starts = np.flatnonzero(np.r_[True, na_sorted[1:] != na_sorted[:-1]])
    ends = np.r_[starts[1:], rows.size]
    off_a = off_b = 0
    for lo, hi in zip(starts.tolist(), ends.tolist(), strict=True):
        v = int(na_sorted[lo])
        u = n_neg - v
        r = hi - lo
        key = (v, u)
        if key not in cache:
            cache[key] = _grid(v, u)
        ia, ib, w = cache[key]
        block_a = ha[off_a : off_a + r * v].reshape(r, v)
        block_b = hb[off_b : off_b + r * u].reshape(r, u)
        off_a += r * v
        off_b += r * u
        p_a = pa_sorted[lo:hi].astype(np.float64)[:, None]
        p_b = n_pos - p_a
        diff = np.abs(block_a[:, ia] * p_b - block_b[:, ib] * p_a)
        out[rows[lo:hi]] = (diff @ w) / (p_a[:, 0] * p_b[:, 0] * float(v) * float(u))
    return out
