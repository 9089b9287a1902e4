r"""The linear (regression) estimator of each group's rates when membership is estimated.

When the data hold, for each row, the probabilities :math:`p_{i1}, \dots, p_{iK}` that it belongs
to each of K groups (BISG and the like), and an outcome :math:`Y_i` is independent of the
probabilities given the true group, :math:`E[Y_i \mid p_i] = \sum_k p_{ik}\mu_k`: the least-squares
regression of the outcome on the probabilities (no intercept; they sum to 1) estimates every
group's mean :math:`\mu_k` without bias (Chen, Kallus, Mao, Svacha & Udell, "Fairness Under
Unawareness", FAT* 2019, the linear estimator; Jurity's surrogate method fits it on cell means).

Here it is fitted on rows, from the additive sums of the membership table
(:mod:`polars_fair.counting.membership`, one scan), never from the rows themselves: with
sample weights :math:`w_i` (1 when none) the weighted least-squares estimate is

.. math::

    \hat\beta = G^{-1} c,\qquad G = \sum_i w_i p_i p_i^\top \;(\texttt{g}),\qquad
    c = \sum_{i: Y_i = 1} w_i p_i \;(\texttt{s}),

and its heteroskedasticity-robust (sandwich, HC0; White 1980) covariance is
:math:`V = G^{-1} M G^{-1}` with :math:`M = \sum_i w_i^2 p_i p_i^\top (Y_i - p_i^\top\hat\beta)^2`.
For indicator outcomes the meat expands into sums the table holds: for two outcomes
:math:`Y_a, Y_b` (indicators of sets :math:`A, B` of label cells) with estimates :math:`a, b`,

.. math::

    M_{ab} = H_{A\cap B} - T_A\,b - T_B\,a + U(a, b),

with :math:`H_S = \sum_{i\in S} w_i^2 p_i p_i^\top` (``h``), :math:`T_S = \sum_{i\in S} w_i^2
p_i\otimes p_i\otimes p_i` (``t``) and :math:`U = \sum_i w_i^2 p_i^{\otimes 4}` (``u``).

Rates: ``selection_rate`` is the estimate for :math:`Y = \hat y`; ``tpr`` and ``fpr`` are ratios
of two estimates, :math:`P(y=1, \hat y=1 \mid k) / P(y=1 \mid k)` and
:math:`P(y=0, \hat y=1 \mid k) / P(y=0 \mid k)`, whose variance is the delta method's
:math:`(V_{aa} - 2rV_{ab} + r^2V_{bb}) / b^2` from the joint sandwich. Intervals, at
``level``, are the hull of the sandwich's Wald interval and Wilson's at the effective size
:math:`n_k = 1/(G^{-1}HG^{-1})_{kk}`,
:math:`H = \sum_i w_i^2 p_ip_i^\top` (:func:`rate_interval`: never a point where every
residual is 0; the crisp Wilson interval for one-hot probabilities at a rate of 0 or 1).

Undefined and unreliable values, one rule each:

- A cell whose Gram matrix is singular or ill-conditioned (condition number above
  :data:`MAX_CONDITION`: a group nobody is likely to be in, or probabilities that do not vary)
  gives null estimates for every group of the cell, with ``regression_singular`` true. Never a
  number from a near-singular solve.
- A group that cannot be estimated on its own, because its column of the Gram matrix weighs
  next to nothing (its diagonal :math:`\sum_i w_i p_{ik}^2` below :data:`MAX_CONDITION`⁻¹
  times the largest, which alone makes the condition number exceed :data:`MAX_CONDITION`:
  a group nobody is in, probabilities summing to 0, or one with a probability of 1e-9 on
  a few rows), is left out of that cell's fit: it gets null estimates with
  ``regression_singular`` true and its reason (:data:`REASON_EMPTY`,
  :data:`REASON_NEGLIGIBLE`), and the other groups are fitted without its column, so one
  negligible group never nulls the others' estimates.
- A ratio (tpr, fpr) whose denominator estimate is not positive is null.
- An estimate outside [0, 1] (possible: the estimator is linear and unbiased, not bounded) is
  returned as it is here, with ``regression_out_of_range`` true;
  :func:`polars_fair.analyses.proxy_report.proxy_report_from_membership` clips it for display
  and keeps the flag. Intervals are not clipped here.

Why one module: the estimate, its sandwich and the delta method share the tensors of one cell.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._docs import borrow
from polars_fair._lazy import np, sps
from polars_fair.core import stats
from polars_fair.core.options import DEFAULTS, check

if TYPE_CHECKING:
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]

__all__ = [
    "MAX_CONDITION",
    "REASON_EMPTY",
    "REASON_NEGLIGIBLE",
    "REASON_SINGULAR",
    "REGRESSION_RATES",
    "CellFit",
    "fit_cells",
    "normal_quantile",
    "rate_interval",
    "regression_from_membership",
]

#: Gram matrices with a larger condition number give null estimates (``regression_singular``).
MAX_CONDITION = 1e10
#: Estimates this close outside [0, 1] are rounding (``rate_interval`` floors them as 0 or 1).
_ROUNDING = 1e-9
#: ``regression_reason`` of a group nobody is in (left out of the fit).
REASON_EMPTY = (
    "nobody is in the group (its probabilities sum to 0, or every row with a positive "
    "probability weighs 0): left out of the fit"
)
#: ``regression_reason`` of a group whose Gram column weighs too little to be estimated.
REASON_NEGLIGIBLE = (
    "the group's weight (sum of w*p^2) is below 1e-10 of the largest group's: too little to "
    "estimate, left out of the fit"
)
#: ``regression_reason`` of every group of a cell whose Gram matrix is singular.
REASON_SINGULAR = "the fit is singular or ill-conditioned (condition number above 1e10)"

#: Each rate as (numerator cells, denominator cells), a cell being ``(y_true, y_pred)`` with
#: ``None`` for "any"; a denominator of ``None`` is every row (the rate is one regression).
REGRESSION_RATES: dict[str, tuple[tuple[Any, Any], tuple[Any, Any] | None]] = {
    "selection_rate": ((None, 1), None),
    "tpr": ((1, 1), (1, None)),
    "fpr": ((0, 1), (0, None)),
}

_ORDERS = {"s": 1, "g": 2, "h": 2, "t": 3, "u": 4}


def _sym_index(k: int, order: int) -> tuple[list[str], Any]:
    """Column suffixes for ``j ≤ k ≤ ...`` and, per full index, the position of its column."""
    combos = list(itertools.combinations_with_replacement(range(k), order))
    where = {c: i for i, c in enumerate(combos)}
    full = np.empty((k,) * order, dtype=np.int64)
    for idx in itertools.product(range(k), repeat=order):
        full[idx] = where[tuple(sorted(idx))]
    return ["_".join(str(j) for j in c) for c in combos], full


@dataclass(frozen=True)
class _Sums:
    """One cell of the ``by`` attributes: per label cell ``(y_true, y_pred)`` its sums."""

    labels: list[tuple[Any, Any]]
    s: dict[tuple[Any, Any], FloatArray]
    h: dict[tuple[Any, Any], FloatArray]
    t: dict[tuple[Any, Any], FloatArray]
    g: FloatArray
    u: FloatArray

    def over(self, cells: tuple[Any, Any] | None, part: str) -> FloatArray:
        """The sum of ``part`` over the label cells matching ``cells`` (None: every cell)."""
        table = {"s": self.s, "h": self.h, "t": self.t}[part]
        chosen = [c for c in self.labels if cells is None or all(
            want is None or want == have for want, have in zip(cells, c, strict=True))]
        zero = np.zeros_like(next(iter(table.values())))
        return sum((table[c] for c in chosen), zero)

    def restrict(self, keep: Any) -> _Sums:
        """The sums of the groups at the indices ``keep`` only (every tensor axis sliced)."""
        def cut(a: FloatArray) -> FloatArray:
            return np.asarray(a[np.ix_(*([keep] * a.ndim))], dtype=np.float64)
        return _Sums(self.labels, {c: cut(v) for c, v in self.s.items()},
                     {c: cut(v) for c, v in self.h.items()},
                     {c: cut(v) for c, v in self.t.items()}, cut(self.g), cut(self.u))


@dataclass(frozen=True)
class CellFit:
    r"""The regression estimates of one cell of the ``by`` attributes.

    Parameters
    ----------
    key : tuple
        The cell's values of the ``by`` attributes (``()`` without them).
    rates : dict of str to (numpy.ndarray, numpy.ndarray)
        Per rate, the K estimates and their K × K covariance (NaN where undefined).
    singular : bool
        The Gram matrix (of the groups fitted) is singular or ill-conditioned: every estimate
        is NaN.
    dropped : tuple of str or None, optional
        Per group, why it was left out of the fit (:data:`REASON_EMPTY`,
        :data:`REASON_NEGLIGIBLE`; its estimates are NaN), or None. Empty: no group left out.
    sizes : dict of str to numpy.ndarray, optional
        Per rate, each group's effective size with the residuals left out (the size
        :func:`rate_interval` falls back to): :math:`1 / (G^{-1}HG^{-1})_{kk}` with
        :math:`H = \sum_i w_i^2 p_i p_i^\top` for ``selection_rate``, times the estimated
        share of the rate's denominator (:math:`P(y = 1 \mid k)`, :math:`P(y = 0 \mid k)`) for
        ``tpr`` and ``fpr``; NaN where a group is not fitted.

    Examples
    --------
    >>> import numpy as np
    >>> CellFit((), {}, True).singular
    True
    """

    key: tuple[Any, ...]
    rates: dict[str, tuple[FloatArray, FloatArray]]
    singular: bool
    dropped: tuple[str | None, ...] = ()
    sizes: dict[str, FloatArray] = field(default_factory=dict)

    def reasons(self, k: int) -> list[str | None]:
        """Per group, why its estimates are null (``regression_reason``), or None.

        Parameters
        ----------
        k : int
            The number of groups K.

        Returns
        -------
        list of str or None
            K reasons, in the order of the groups.

        Examples
        --------
        >>> CellFit((), {}, False, (None, REASON_EMPTY)).reasons(2) == [None, REASON_EMPTY]
        True
        >>> CellFit((), {}, True).reasons(1) == [REASON_SINGULAR]
        True
        """
        dropped = self.dropped or (None,) * k
        return [d if d is not None else REASON_SINGULAR if self.singular else None
                for d in dropped]

    @borrow(reasons, params=("k",))
    def flags(self, k: int) -> list[bool]:
        """Per group, the ``regression_singular`` flag: :meth:`reasons` is not None.

        Returns
        -------
        list of bool
            K flags, in the order of the groups.

        Examples
        --------
        >>> CellFit((), {}, False, (None, REASON_EMPTY)).flags(2)
        [False, True]
        >>> CellFit((), {}, True).flags(2)
        [True, True]
        """
        return [r is not None for r in self.reasons(k)]


def _meat(sums: _Sums, a: tuple[Any, Any] | None, b: tuple[Any, Any] | None,
          ea: FloatArray, eb: FloatArray) -> FloatArray:
    """:math:`M_{ab} = H_{A∩B} - T_A b - T_B a + U(a, b)` for label-cell sets ``a``, ``b``.

    The four sums cancel exactly where every residual is 0 (everyone selected): an entry
    within 64 rounding units of its terms' magnitude is that cancellation and reads 0, so
    rounding never gives a Wald interval a width of 1e-8 around a rate of 1.
    """
    both = _intersect(a, b)
    terms = (sums.over(both, "h"), -np.einsum("jkl,l->jk", sums.over(a, "t"), eb),
             -np.einsum("jkl,l->jk", sums.over(b, "t"), ea),
             np.einsum("jklm,l,m->jk", sums.u, ea, eb))
    out: FloatArray = terms[0] + terms[1] + terms[2] + terms[3]
    scale = np.abs(terms[0]) + np.abs(terms[1]) + np.abs(terms[2]) + np.abs(terms[3])
    with np.errstate(invalid="ignore"):
        rounding = np.abs(out) <= 64.0 * np.finfo(np.float64).eps * scale
    return np.where(rounding, 0.0, out)


def _intersect(a: tuple[Any, Any] | None, b: tuple[Any, Any] | None) -> tuple[Any, Any] | None:
    """The label cells in both sets (sets given as ``(y_true, y_pred)`` patterns)."""
    if a is None or b is None:
        return b if a is None else a
    out = []
    for x, y in zip(a, b, strict=True):
        if x is not None and y is not None and x != y:  # disjoint: an impossible pattern
            return (-1, -1)
        out.append(x if x is not None else y)
    return (out[0], out[1])


def _fit(sums: _Sums, rates: Sequence[str], k: int, key: tuple[Any, ...]) -> CellFit:
    """Estimates and sandwich covariances of the ``rates`` in one cell.

    A group that cannot be estimated on its own is left out: its Gram diagonal Σ w·p² is
    below the largest / :data:`MAX_CONDITION` (0 when nobody is in it). Such a column alone
    makes the condition number exceed :data:`MAX_CONDITION` (it is at least the ratio of the
    largest diagonal to the smallest), so it would null every group; the others are fitted
    without it and it gets NaN estimates with its reason.
    """
    diag = np.diag(sums.g)
    finite = np.isfinite(diag)
    top = float(diag[finite].max()) if finite.any() else 0.0
    empty = finite & (diag <= 0.0)
    drop = finite & (diag * MAX_CONDITION < top)
    if drop.any() and not drop.all():
        keep = np.flatnonzero(~drop)
        sub = _fit(sums.restrict(keep), rates, len(keep), key)
        out: dict[str, tuple[FloatArray, FloatArray]] = {}
        sizes: dict[str, FloatArray] = {}
        for r, (est, cov) in sub.rates.items():
            full_est, full_cov = np.full(k, np.nan), np.full((k, k), np.nan)
            full_est[keep] = est
            full_cov[np.ix_(keep, keep)] = cov
            out[r] = (full_est, full_cov)
            sizes[r] = np.full(k, np.nan)
            sizes[r][keep] = sub.sizes.get(r, np.nan)
        return CellFit(key, out, sub.singular, tuple(
            REASON_EMPTY if e else REASON_NEGLIGIBLE if d else None
            for e, d in zip(empty.tolist(), drop.tolist(), strict=True)), sizes)
    return _fit_all(sums, rates, k, key)


def _fit_all(sums: _Sums, rates: Sequence[str], k: int, key: tuple[Any, ...]) -> CellFit:
    """Estimates and sandwich covariances of the ``rates`` in one cell, every group fitted."""
    nan_fit = {r: (np.full(k, np.nan), np.full((k, k), np.nan)) for r in rates}
    g = sums.g
    if not np.all(np.isfinite(g)) or np.trace(g) <= 0 or np.linalg.cond(g) > MAX_CONDITION:
        return CellFit(key, nan_fit, True)
    gi = np.linalg.inv(g)
    with np.errstate(divide="ignore", invalid="ignore"):
        # the effective size with the residuals left out: 1 / (G⁻¹HG⁻¹)_kk, the group's rows
        # for one-hot probabilities (Kish's size of its weights with sample weights)
        inverse_size = np.diag(gi @ sums.over(None, "h") @ gi)
        size = np.where(inverse_size > 0, 1.0 / inverse_size, np.nan)
    out: dict[str, tuple[FloatArray, FloatArray]] = {}
    sizes: dict[str, FloatArray] = {}
    for r in rates:
        num, den = REGRESSION_RATES[r]
        a = gi @ sums.over(num, "s")
        v_aa = gi @ _meat(sums, num, num, a, a) @ gi
        if den is None:
            out[r], sizes[r] = (a, v_aa), size
            continue
        b = gi @ sums.over(den, "s")
        sizes[r] = size * np.clip(b, 0.0, None)  # the rows of the rate's denominator
        v_bb = gi @ _meat(sums, den, den, b, b) @ gi
        v_ab = gi @ _meat(sums, num, den, a, b) @ gi
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(b > 0, a / b, np.nan)
            # delta method: the gradient of a_k / b_k is (1 / b_k, -r_k / b_k)
            jac_a = np.diag(np.where(b > 0, 1.0 / b, np.nan))
            jac_b = np.diag(np.where(b > 0, -ratio / b, np.nan))
            cov = (jac_a @ v_aa @ jac_a.T + jac_b @ v_bb @ jac_b.T
                   + jac_a @ v_ab @ jac_b.T + jac_b @ v_ab.T @ jac_a.T)
        out[r] = (ratio, cov)
    return CellFit(key, out, False, (), sizes)


def fit_cells(table: pl.DataFrame | pl.LazyFrame, keys: Sequence[str], n_groups: int,
              *, rates: Sequence[str] | None = None) -> list[CellFit]:
    """The regression fits of every cell of ``keys``, from a membership table.

    Parameters
    ----------
    table : pl.DataFrame or pl.LazyFrame
        A membership table (:mod:`polars_fair.counting.membership`): ``keys``, ``y_pred``
        [, ``y_true``] [, ``__pf_argmax``] and the sums ``s_{k}``, ``g_{j}_{k}``, ``h_{j}_{k}``,
        ``t_{j}_{k}_{l}``, ``u_{j}_{k}_{l}_{m}`` over the K groups in declared order.
    keys : sequence of str
        The ``by`` attributes: one fit per cell of them.
    n_groups : int
        K, the number of membership groups.
    rates : sequence of str, optional
        Rates of :data:`REGRESSION_RATES` (default: ``selection_rate``, and ``tpr``, ``fpr``
        when the table has ``y_true``).

    Returns
    -------
    list of CellFit
        One per cell, sorted by ``keys`` (nulls last).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.counting.proxy_table import proxy_table
    >>> rows = pl.DataFrame({"y_pred": [0, 1, 1], "p_a": [1.0, 0.0, 0.5],
    ...                      "p_b": [0.0, 1.0, 0.5]})
    >>> t = proxy_table(rows, membership={"race": {"a": "p_a", "b": "p_b"}}, y_true=None).frame
    >>> # G = [[1.25, 0.25], [0.25, 1.25]], c = (0.5, 1.5): G⁻¹c = (1/6, 7/6)
    >>> fit_cells(t, [], 2)[0].rates["selection_rate"][0].round(4).tolist()
    [0.1667, 1.1667]
    """
    df = table.collect() if isinstance(table, pl.LazyFrame) else table
    labels = [c for c in ("y_true", "y_pred") if c in df.columns]
    if rates is None:
        rates = ["selection_rate", "tpr", "fpr"] if "y_true" in labels else ["selection_rate"]
    names: dict[str, tuple[list[str], Any]] = {
        p: _sym_index(n_groups, o) for p, o in _ORDERS.items()}
    sum_cols = [f"{p}_{s}" for p, (suffixes, _) in names.items() for s in suffixes]
    per = (df.group_by([*keys, *labels]).agg(pl.col(sum_cols).sum())
           .sort([*keys, *labels], nulls_last=True))
    fits: list[CellFit] = []
    for key, part in _cells(per, keys):
        tensors: dict[str, dict[tuple[Any, Any], FloatArray]] = {p: {} for p in _ORDERS}
        label_cells = []
        for row in part.iter_rows(named=True):
            cell = (row.get("y_true"), row.get("y_pred"))
            label_cells.append(cell)
            for p, (suffixes, full) in names.items():
                flat = np.array([row[f"{p}_{s}"] for s in suffixes], dtype=np.float64)
                tensors[p][cell] = flat[full]
        total = {p: sum(tensors[p].values(), np.zeros((n_groups,) * _ORDERS[p]))
                 for p in ("g", "u")}
        sums = _Sums(label_cells, tensors["s"], tensors["h"], tensors["t"],
                     total["g"], total["u"])
        fits.append(_fit(sums, rates, n_groups, key))
    return fits


def _cells(per: pl.DataFrame, keys: Sequence[str]) -> list[tuple[tuple[Any, ...], pl.DataFrame]]:
    """The table split by the cells of ``keys`` (one part without keys), in sorted order."""
    if not keys:
        return [((), per)]
    parts = per.partition_by(list(keys), maintain_order=True, as_dict=True)
    return [(tuple(k), v) for k, v in parts.items()]


def normal_quantile(level: float) -> float:
    r"""The two-sided normal quantile of a confidence ``level`` (checked as the option ``level``).

    Parameters
    ----------
    level : float
        In (0, 1).

    Returns
    -------
    float
        :math:`\Phi^{-1}(1/2 + \text{level}/2)`.

    Raises
    ------
    InvalidArgumentError
        ``level`` outside (0, 1).

    Examples
    --------
    >>> round(normal_quantile(0.95), 4)
    1.96
    """
    return float(sps.norm.ppf(0.5 + float(check("level", level)) / 2.0))


@borrow(normal_quantile, sections=("Raises",))
def rate_interval(estimate: Any, variance: Any, size: Any, *,
                  level: float = DEFAULTS.level) -> tuple[FloatArray, FloatArray]:
    r"""The regression estimator's rate interval: the sandwich's Wald interval, floored by Wilson's.

    A Wald interval :math:`\hat\mu \pm z\sqrt{V_{kk}}` on the sandwich variance alone has no
    width where every residual is 0 (probabilities of 0 or 1 and a group all selected, or
    none: 3 of 3 read [1, 1], a certainty from 3 rows). The interval is therefore the hull of
    two intervals at ``level``: the Wald interval on the sandwich (HC0; White 1980) and
    Wilson's (Wilson 1927; :func:`polars_fair.core.stats.wilson_interval`) for the estimate at
    the group's effective size with the residuals left out,

    .. math::

        n_k = \frac{1}{(G^{-1}HG^{-1})_{kk}},\qquad H = \sum_i w_i^2 p_i p_i^\top,

    the size whose binomial variance :math:`\mu(1 - \mu)/n_k` the sandwich would give if each
    row's outcome varied as the group's (the group's rows for one-hot probabilities; Kish's
    size of its weights with sample weights). So the interval is never narrower than the
    sandwich's (its coverage is at least the Wald interval's, and the union of two intervals
    is at least as likely to cover as either), never a point where :math:`n_k` is finite, and
    for one-hot probabilities at a rate of 0 or 1 it is the crisp Wilson interval (3 of 3:
    [0.4385, 1]). Elsewhere it moves from the sandwich's only where Wilson's reaches further:
    near 0 and 1 for small groups; where the probabilities are uncertain the sandwich's is the
    wider and is kept. An estimate outside [0, 1] (the estimator is linear, not bounded) keeps
    the Wald interval alone (the proxy report clips it for display); one within 1e-9 of it is
    rounding (everyone selected gives :math:`1 + 2\cdot10^{-16}`) and is floored as 0 or 1.

    Parameters
    ----------
    estimate : array_like of float
        The rates' estimates :math:`\hat\mu_k` (NaN where undefined).
    variance : array_like of float
        Their sandwich variances :math:`V_{kk}` (:class:`CellFit`'s covariance diagonals).
    size : array_like of float
        Their effective sizes :math:`n_k` (:class:`CellFit`'s ``sizes``; NaN: no floor).
    level : float, default 0.95
        The confidence level, in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray of float64
        The bounds (possibly outside [0, 1] only on the Wald side), NaN where the estimate or
        its variance is NaN.

    Examples
    --------
    >>> low, high = rate_interval([1.0, 0.0, 0.5], [0.0, 0.0, 0.05], [3.0, 5.0, 10.0])
    >>> low.round(4).tolist(), high.round(4).tolist()  # 3/3, 0/5: crisp Wilson; then Wald
    ([0.4385, 0.0, 0.0617], [1.0, 0.4345, 0.9383])
    """
    z = normal_quantile(level)
    est, var, n = (np.asarray(v, dtype=np.float64) for v in (estimate, variance, size))
    est, var, n = np.broadcast_arrays(est, np.clip(var, 0.0, None), n)
    half = z * np.sqrt(var)
    low, high = est - half, est + half
    # rounding: G⁻¹c reads 1 + 2e-16 where every row is selected; that is a rate of 1
    floor = ((est >= -_ROUNDING) & (est <= 1.0 + _ROUNDING) & np.isfinite(var) & np.isfinite(n)
             & (n > 0))
    w_low, w_high = stats.wilson_interval(np.where(floor, np.clip(est, 0.0, 1.0) * n, 0.0),
                                          np.where(floor, n, 0.0), level=level)
    low = np.where(floor, np.fmin(low, w_low), low)
    high = np.where(floor, np.fmax(high, w_high), high)
    return low, high


@borrow(normal_quantile, sections=("Raises",))
def regression_from_membership(
    table: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str],
    attribute: str,
    groups: Sequence[Any],
    *,
    level: float = DEFAULTS.level,
) -> pl.DataFrame:
    r"""Each group's rates by the regression (linear) estimator, with sandwich intervals.

    Per cell of ``keys`` the weighted least-squares estimate :math:`G^{-1}c` of every group's
    rate from the membership table's sums, its HC0 sandwich standard error, and its interval
    at ``level``, the sandwich's Wald interval floored by Wilson's (:func:`rate_interval`); ``tpr``
    and ``fpr`` by the delta method (formulas and sources:
    :mod:`polars_fair.analyses.membership_regression`). Rows are never read again.

    Parameters
    ----------
    table : pl.DataFrame or pl.LazyFrame
        A membership table (:mod:`polars_fair.counting.membership`).
    keys : sequence of str
        The ordinary ``by`` attributes (one regression per cell of them).
    attribute : str
        The membership attribute's name (the group column of the result).
    groups : sequence
        Its group values in declared order (the order of ``s_0, s_1, ...``).
    level : float, default 0.95
        The confidence level of the intervals, in (0, 1).

    Returns
    -------
    pl.DataFrame
        One row per group × cell, sorted by ``attribute`` then ``keys`` (nulls last):
        ``attribute``, ``keys``, then for each rate (``selection_rate``; ``tpr``, ``fpr`` when
        the table has ``y_true``) ``{rate}_regression``, ``{rate}_regression_se``,
        ``{rate}_regression_ci_low``, ``{rate}_regression_ci_high`` (Float64, null where
        undefined; the interval of an estimate outside [0, 1] is Wald's, not clipped), and
        the Booleans
        ``regression_singular`` (the group's estimates are null: the cell's Gram matrix is
        singular or ill-conditioned, or the group was left out of the fit) and
        ``regression_out_of_range`` (a rate estimate outside [0, 1]), and
        ``regression_reason`` (String: why the estimates are null, :data:`REASON_EMPTY`,
        :data:`REASON_NEGLIGIBLE`, :data:`REASON_SINGULAR`; null otherwise).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.counting.proxy_table import proxy_table
    >>> rows = pl.DataFrame({"y_pred": [0, 1, 1], "p_a": [1.0, 0.0, 0.5],
    ...                      "p_b": [0.0, 1.0, 0.5]})
    >>> t = proxy_table(rows, membership={"race": {"a": "p_a", "b": "p_b"}}, y_true=None).frame
    >>> r = regression_from_membership(t, [], "race", ["a", "b"])
    >>> r.select("race", pl.col("selection_rate_regression").round(4),
    ...          "regression_out_of_range").rows()  # linear, not bounded: b is above 1
    [('a', 0.1667, False), ('b', 1.1667, True)]
    """
    check("level", level)  # before any work
    df = table.collect() if isinstance(table, pl.LazyFrame) else table
    k = len(groups)
    fits = fit_cells(df, keys, k)
    rates = list(fits[0].rates) if fits else (
        ["selection_rate", "tpr", "fpr"] if "y_true" in df.columns else ["selection_rate"])
    cols: dict[str, list[Any]] = {c: [] for c in (attribute, *keys)}
    for r in rates:
        for suffix in ("", "_se", "_ci_low", "_ci_high"):
            cols[f"{r}_regression{suffix}"] = []
    cols["regression_singular"], cols["regression_out_of_range"] = [], []
    cols["regression_reason"] = []
    for fit in fits:
        outside = np.zeros(k, dtype=bool)
        for r in rates:
            est, cov = fit.rates[r]
            se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
            outside |= np.isfinite(est) & ((est < 0.0) | (est > 1.0))
            low, high = rate_interval(est, np.diag(cov), fit.sizes.get(r, np.nan), level=level)
            for suffix, values in (("", est), ("_se", se), ("_ci_low", low),
                                   ("_ci_high", high)):
                cols[f"{r}_regression{suffix}"] += _nullable(values)
        for i, key in enumerate(keys):
            cols[key] += [fit.key[i]] * k
        cols[attribute] += list(groups)
        cols["regression_singular"] += fit.flags(k)
        cols["regression_out_of_range"] += outside.tolist()
        cols["regression_reason"] += fit.reasons(k)
    schema: dict[str, pl.DataType] = {**{c: df.schema[c] for c in keys},
              **{c: pl.Float64() for c in cols if c.startswith(tuple(rates))},
              "regression_reason": pl.String()}
    return pl.DataFrame(cols, schema_overrides=schema, strict=False).sort(
        [attribute, *keys], nulls_last=True, maintain_order=True)


def _nullable(x: Any) -> list[float | None]:
    """Floats with NaN and infinities as None (undefined is null)."""
    return [float(v) if np.isfinite(v) else None for v in np.asarray(x, dtype=np.float64)]
