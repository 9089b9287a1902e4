"""Interval estimates, two-proportion tests and multiplicity corrections on counts.

Every function here works on counts (successes and trials), never on rows, and is vectorised
over numpy arrays: pass one value or a whole column of a count table and the inputs broadcast
against each other. Counts may be integers or, for weighted count tables, floats.

Conventions
-----------
- Returned arrays are ``float64``. A scalar input gives a 0-d array (``float(x)`` unwraps it).
- Undefined results are ``NaN`` (trials of 0, a reference rate of 0 in a ratio, a ``NaN``
  input). Callers that build Polars frames turn ``NaN`` into null (for example with
  ``pl.Series(values, nan_to_null=True)``); they never become 0.
- Invalid inputs (negative counts, successes above trials, a level outside (0, 1)) raise
  :class:`~polars_fair.errors.InvalidArgumentError` (a ``ValueError``) with one of the message
  constants defined below, before anything is computed.

The Polars expression builders (:func:`wilson_exprs`, :func:`newcombe_difference_exprs`)
compute the same intervals inside a lazy plan and return null where the numpy functions return
``NaN``.

Why one module: the interval and test formulas (Wilson, Newcombe, MOVER-R, z,
Fisher, Holm, Benjamini-Hochberg) share their input checks and are each short; most lines are
their documented sources.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np
from polars_fair._lazy import special as _special
from polars_fair._lazy import sps as _sps
from polars_fair.core.fisher import MAX_TABLES, fisher_exact_pvalue, fisher_tables
from polars_fair.core.numbers import real
from polars_fair.core.options import DEFAULTS, Adjust, Test

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "FISHER_MAX_TOTAL",
    "adjust_pvalues",
    "mover_ratio",
    "newcombe_difference_exprs",
    "newcombe_difference_interval",
    "pooled_z",
    "ratio_interval",
    "small_expected_cell",
    "two_proportion_test",
    "wilson_exprs",
    "wilson_interval",
]

if TYPE_CHECKING:
    FloatArray = npt.NDArray[np.float64]

LEVEL_MESSAGE = "level must lie strictly between 0 and 1; got {level!r}"
NEGATIVE_COUNT_MESSAGE = "{name} must be non-negative; found {values}"
SUCCESSES_ABOVE_TRIALS_MESSAGE = "{successes} must not exceed {trials}; found {pairs}"
TEST_METHOD_MESSAGE = "method must be one of 'auto', 'z', 'fisher'; got {method!r}"
ADJUST_METHOD_MESSAGE = "method must be one of 'holm', 'bh'; got {method!r}"
PVALUE_RANGE_MESSAGE = "p-values must lie in [0, 1]; found {values}"
PVALUE_SHAPE_MESSAGE = "p-values must be a one-dimensional array; got shape {shape}"
#: The largest table (``n1 + n2``, applicants) on which Fisher's exact test is computed. Above
#: it :func:`two_proportion_test` gives the pooled z-test's p-value instead: scipy's
#: ``fisher_exact`` overflows on tables of about 10**10 (a p of 1.0 at z = -11,572), and there
#: the two tests agree closely (at 10**10 within 0.1 % relative for |z| up to 20; the tests
#: check it against Fisher's test computed exactly in log space).
FISHER_MAX_TOTAL = 10**9

FISHER_INTEGER_MESSAGE = (
    "Fisher's exact test needs whole-number counts; found non-integer {name}: {values}"
)

# Relative slack allowed when comparing float (weighted) successes with trials, so that two sums
# of the same weights that differ only by rounding are not rejected.
_FLOAT_SLACK = 1e-9
# How many distinct offending values an error message lists.
_SHOW = 5


def _z_value(level: float) -> float:
    """Two-sided standard normal quantile for a confidence ``level`` in (0, 1)."""
    number = real(level)  # numpy scalars of any width, Fraction, Decimal
    if number is None or not 0 < number < 1:
        raise E.InvalidArgumentError(LEVEL_MESSAGE.format(level=level))
    return _normal_quantile(0.5 + float(level) / 2.0)


@functools.lru_cache(maxsize=64)
def _normal_quantile(p: float) -> float:
    """``scipy.stats.norm.ppf(p)`` (as ``scipy.special.ndtri``, the same double), remembered."""
    return float(_special.ndtri(p))


def _show(values: FloatArray) -> str:
    """A short, readable list of offending values for an error message."""
    flat = np.unique(np.asarray(values, dtype=np.float64).ravel())
    shown = ", ".join(f"{v:g}" for v in flat[:_SHOW])
    return f"[{shown}{', ...' if flat.size > _SHOW else ''}]"


def _counts(
    successes: npt.ArrayLike,
    trials: npt.ArrayLike,
    *,
    names: tuple[str, str] = ("successes", "trials"),
) -> tuple[FloatArray, FloatArray]:
    """Validate and broadcast one (successes, trials) pair; NaN passes through untouched."""
    x = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    x, n = np.broadcast_arrays(x, n)
    for name, arr in ((names[0], x), (names[1], n)):
        bad = arr < 0
        if np.any(bad):
            raise E.InvalidArgumentError(
                NEGATIVE_COUNT_MESSAGE.format(name=name, values=_show(arr[bad]))
            )
    above = x > n * (1.0 + _FLOAT_SLACK)
    if np.any(above):
        found = list(zip(x[above].ravel(), n[above].ravel(), strict=True))[:_SHOW]
        pairs = ", ".join(f"{a:g}/{b:g}" for a, b in found)
        raise E.InvalidArgumentError(
            SUCCESSES_ABOVE_TRIALS_MESSAGE.format(
                successes=names[0], trials=names[1], pairs=f"[{pairs}]"
            )
        )
    # Clip rounding noise (weighted counts) so that x <= n holds exactly from here on.
    return np.minimum(x, n), n


def _wilson(x: FloatArray, n: FloatArray, z: float) -> tuple[FloatArray, FloatArray]:
    """Wilson bounds on validated arrays; NaN where ``n == 0``."""
    z2 = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        centre = (x + z2 / 2.0) / (n + z2)
        spread = np.sqrt(np.maximum(x * (n - x) / n, 0.0) + z2 / 4.0)
        half = z * spread / (n + z2)
        low = np.clip(centre - half, 0.0, 1.0)
        high = np.clip(centre + half, 0.0, 1.0)
    # The formula gives exactly 0 (x = 0) and 1 (x = n) in exact arithmetic; pin them so that
    # floating rounding cannot leave the point estimate outside the interval.
    low = np.where(x == 0, 0.0, low)
    high = np.where(x == n, 1.0, high)
    empty = n == 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def wilson_interval(
    successes: npt.ArrayLike,
    trials: npt.ArrayLike,
    *,
    level: float = DEFAULTS.level,
) -> tuple[FloatArray, FloatArray]:
    r"""Wilson score interval for a binomial proportion.

    With :math:`\hat p = x/n` and :math:`z = \Phi^{-1}(1/2 + \text{level}/2)`,

    .. math::

        \frac{x + z^2/2}{n + z^2} \pm \frac{z}{n + z^2}\sqrt{\frac{x(n - x)}{n} + \frac{z^2}{4}}

    (Wilson 1927, *J. Am. Stat. Assoc.* 22:209; Newcombe 1998, *Stat. Med.* 17:857, method 3).
    The interval always lies in [0, 1] and contains :math:`\hat p`. Unlike the Wald interval it
    keeps close to nominal coverage for small ``n`` and rates near 0 or 1.

    Parameters
    ----------
    successes : array_like of int or float
        Number of successes :math:`x` (a sum of weights for weighted counts), ``0 <= x <= n``.
    trials : array_like of int or float
        Number of trials :math:`n` (a sum of weights for weighted counts). Broadcasts against
        ``successes``.
    level : float, default 0.95
        Confidence level in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray of float64
        Bounds on the proportion, in [0, 1], with the broadcast shape of the inputs. ``NaN``
        where ``trials == 0`` (the rate is undefined) or an input is ``NaN``; callers turn
        these into null.

    Raises
    ------
    InvalidArgumentError
        If ``level`` is not in (0, 1), a count is negative or ``successes > trials``.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = wilson_interval([8, 0, 0], [10, 5, 0])
    >>> np.round(low, 4), np.round(high, 4)
    (array([0.4902, 0.    ,    nan]), array([0.9433, 0.4345,    nan]))
    """
    z = _z_value(level)
    x, n = _counts(successes, trials)
    return _wilson(x, n, z)


def newcombe_difference_interval(
    x1: npt.ArrayLike,
    n1: npt.ArrayLike,
    x2: npt.ArrayLike,
    n2: npt.ArrayLike,
    *,
    level: float = DEFAULTS.level,
) -> tuple[FloatArray, FloatArray]:
    r"""Newcombe's hybrid score interval for a difference of independent proportions.

    With :math:`\hat p_i = x_i/n_i`, :math:`d = \hat p_1 - \hat p_2` and
    :math:`(l_i, u_i)` the Wilson interval (:func:`wilson_interval`) for :math:`\hat p_i`,

    .. math::

        L = d - \sqrt{(\hat p_1 - l_1)^2 + (u_2 - \hat p_2)^2}, \qquad
        U = d + \sqrt{(u_1 - \hat p_1)^2 + (\hat p_2 - l_2)^2}

    (Newcombe 1998, *Stat. Med.* 17:873, method 10). The worked example there,
    56/70 against 48/80, gives 0.0524 to 0.3339.

    Parameters
    ----------
    x1, n1 : array_like of int or float
        Successes and trials of the first group (the minuend, :math:`p_1`).
    x2, n2 : array_like of int or float
        Successes and trials of the second group (the subtrahend, :math:`p_2`).
    level : float, default 0.95
        Confidence level in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray of float64
        Bounds on :math:`p_1 - p_2`, in [-1, 1], containing :math:`d`. ``NaN`` where either
        group has zero trials or an input is ``NaN``.

    Raises
    ------
    InvalidArgumentError
        If ``level`` is not in (0, 1), a count is negative or successes exceed trials.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = newcombe_difference_interval(56, 70, 48, 80)
    >>> round(float(low), 4), round(float(high), 4)
    (0.0524, 0.3339)
    """
    z = _z_value(level)
    a, m = _counts(x1, n1, names=("x1", "n1"))
    b, n = _counts(x2, n2, names=("x2", "n2"))
    a, m, b, n = np.broadcast_arrays(a, m, b, n)
    l1, u1 = _wilson(a, m, z)
    l2, u2 = _wilson(b, n, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = a / m
        p2 = b / n
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)


@borrow(newcombe_difference_interval, params=("level",), sections=("Raises",))
def ratio_interval(
    x1: npt.ArrayLike,
    n1: npt.ArrayLike,
    x2: npt.ArrayLike,
    n2: npt.ArrayLike,
    *,
    level: float = DEFAULTS.level,
    correlation: npt.ArrayLike = 0.0,
) -> tuple[FloatArray, FloatArray]:
    r"""MOVER-R Wilson interval for a ratio of two proportions.

    With :math:`\hat p_i = x_i/n_i`, :math:`(l_i, u_i)` the Wilson interval of
    :math:`\hat p_i` (:func:`wilson_interval`) and :math:`\rho` the correlation of the two
    estimates (0 for independent samples), the bounds on :math:`p_1/p_2` are the roots of
    :math:`(\hat p_1 - \theta\hat p_2)^2 = e_1^2 + \theta^2 e_2^2 - 2\rho\,\theta e_1 e_2`,
    with :math:`(e_1, e_2) = (\hat p_1 - l_1, u_2 - \hat p_2)` for the lower bound and
    :math:`(u_1 - \hat p_1, \hat p_2 - l_2)` for the upper:

    .. math::

        L = \frac{l_1(2\hat p_1 - l_1)}{B_L + \sqrt{B_L^2 - l_1(2\hat p_1 - l_1)\,
        u_2(2\hat p_2 - u_2)}}, \qquad
        U = \frac{B_U + \sqrt{B_U^2 - u_1(2\hat p_1 - u_1)\,l_2(2\hat p_2 - l_2)}}
        {l_2(2\hat p_2 - l_2)}

    with :math:`B_L = \hat p_1\hat p_2 - \rho(\hat p_1 - l_1)(u_2 - \hat p_2)` and
    :math:`B_U = \hat p_1\hat p_2 - \rho(u_1 - \hat p_1)(\hat p_2 - l_2)`: the method of
    variance estimates recovery for a ratio (MOVER-R; Donner & Zou 2012, *Stat. Methods Med.
    Res.* 21:347; Zou & Donner 2008, *Stat. Med.* 27:1693, with the correlation term), on the
    same Wilson intervals as the rates and Newcombe's difference interval, so the three agree
    (the "MOVER-R Wilson" interval of Fagerland, Lydersen & Laake 2015, *Stat. Methods Med.
    Res.* 24:224). :math:`L` is written in its rationalised form, which stays finite when
    :math:`u_2 \ge 2\hat p_2`.

    Why not the log (Katz) interval, used here before: its variance
    :math:`1/x_1 - 1/n_1 + 1/x_2 - 1/n_2` has no term for a group whose rate is 1, so the
    interval of 3 of 3 selected against a reference of 770 of 1,000 was [1.255, 1.343], a sure
    pass of the four-fifths rule, where the group's own Wilson interval [0.44, 1] allows a ratio
    of 0.57. It is also too narrow for small groups away from 1 (exact coverage of a nominal 95 %
    interval, 5 of a group against 200 of a reference at 0.8: 85 % at a rate of 0.5, 46 % at
    0.9; MOVER-R Wilson 94 % and 95 %). For large groups the two agree to about the third
    decimal (30/100 against 20/100: Katz [0.916, 2.456], MOVER-R [0.923, 2.445]).

    Zero cells need no correction: a rate of 1 on either side gives the Wilson bound on that side
    (against a reference at 1 the interval is the group's Wilson interval), and ``x1 == 0``
    gives the lower bound 0. A ratio whose reference rate is 0 is undefined (``x2 == 0``: both
    bounds ``NaN``, never infinite or capped, as the library's rule says), as is a ratio with
    ``n1 == 0`` or ``n2 == 0``.

    Parameters
    ----------
    x1, n1 : array_like of int or float
        Successes and trials of the group in the numerator (the group being compared).
    x2, n2 : array_like of int or float
        Successes and trials of the reference group in the denominator.
    correlation : array_like of float, default 0.0
        The correlation of the two estimated rates, in [-1, 1]: 0 for independent samples;
        positive when the two rates are computed over shared rows, as the weighted estimator
        of estimated membership does (:mod:`polars_fair.analyses.proxy_report`).

    Returns
    -------
    low, high : numpy.ndarray of float64
        Bounds on :math:`p_1/p_2`, in :math:`[0, \infty)` and finite, containing
        :math:`\hat p_1/\hat p_2` wherever it is defined. ``NaN`` by the rules above or where
        an input is ``NaN``.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = ratio_interval([30, 3, 0, 5], [100, 3, 50, 40], [20, 770, 10, 0],
    ...                            [100, 1000, 50, 40])
    >>> np.round(low, 4), np.round(high, 4)
    (array([0.9234, 0.5692, 0.    ,    nan]), array([2.4452, 1.3461, 0.3968,    nan]))
    """
    z = _z_value(level)
    a, m = _counts(x1, n1, names=("x1", "n1"))
    b, n = _counts(x2, n2, names=("x2", "n2"))
    a, m, b, n = np.broadcast_arrays(a, m, b, n)
    l1, u1 = _wilson(a, m, z)
    l2, u2 = _wilson(b, n, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = a / m, b / n
    low, high = mover_ratio(p1, l1, u1, p2, l2, u2, correlation=correlation)
    undefined = (m == 0) | (n == 0)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def mover_ratio(
    p1: npt.ArrayLike,
    low1: npt.ArrayLike,
    high1: npt.ArrayLike,
    p2: npt.ArrayLike,
    low2: npt.ArrayLike,
    high2: npt.ArrayLike,
    *,
    correlation: npt.ArrayLike = 0.0,
) -> tuple[FloatArray, FloatArray]:
    r"""MOVER-R bounds on :math:`p_1/p_2` from each estimate's own interval.

    The formula of :func:`ratio_interval` (Donner & Zou 2012, *Stat. Methods Med. Res.*
    21:347), for estimates :math:`\hat p_i` whose intervals :math:`(l_i, u_i)` come from
    anywhere (the method recovers each variance from its interval, whatever made it):
    :func:`ratio_interval` passes Wilson intervals on counts, the proxy report the regression
    estimator's intervals (:mod:`polars_fair.analyses.membership_regression`).

    Parameters
    ----------
    p1, low1, high1 : array_like of float
        The numerator's estimate and interval, :math:`l_1 \le \hat p_1 \le u_1`.
    p2, low2, high2 : array_like of float
        The denominator's (the reference's) estimate and interval.
    correlation : array_like of float, default 0.0
        The correlation of the two estimates, in [-1, 1] (clipped there): 0 when independent.

    Returns
    -------
    low, high : numpy.ndarray of float64
        Bounds on :math:`p_1/p_2`, finite and containing :math:`\hat p_1/\hat p_2`; ``NaN``
        where :math:`\hat p_2 \le 0` (the ratio is undefined) or an input is ``NaN``.
        :math:`\hat p_1 = 0` gives the lower bound 0.

    Examples
    --------
    >>> import numpy as np
    >>> low, high = mover_ratio(1.0, 0.4385, 1.0, 0.5, 0.3, 0.7)
    >>> round(float(low), 4), round(float(high), 4)
    (0.8291, 3.3333)
    """
    rho = np.clip(np.asarray(correlation, dtype=np.float64), -1.0, 1.0)
    p1, l1, u1, p2, l2, u2, rho = np.broadcast_arrays(
        *(np.asarray(v, dtype=np.float64) for v in (p1, low1, high1, p2, low2, high2)), rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        b_low = p1 * p2 - rho * (p1 - l1) * (u2 - p2)
        c_low = l1 * (2.0 * p1 - l1)
        low = c_low / (b_low + np.sqrt(np.maximum(b_low**2 - c_low * u2 * (2.0 * p2 - u2), 0.0)))
        b_high = p1 * p2 - rho * (u1 - p1) * (p2 - l2)
        a_high = l2 * (2.0 * p2 - l2)
        high = (b_high + np.sqrt(np.maximum(b_high**2 - u1 * (2.0 * p1 - u1) * a_high, 0.0))
                ) / a_high
        ratio = p1 / np.where(p2 > 0, p2, 1.0)
    # p1 = 0: the bound is 0 (the rationalised form reads 0/0); rounding never leaves the
    # estimate outside its interval
    low = np.minimum(np.where(p1 == 0, 0.0, low), ratio)
    high = np.maximum(high, ratio)
    undefined = ~(p2 > 0) | np.isnan(p1) | np.isnan(l1) | np.isnan(u1) | np.isnan(l2) \
        | np.isnan(u2)
    return np.where(undefined, np.nan, low), np.where(undefined, np.nan, high)


def _fisher_pvalues(a: FloatArray, m: FloatArray, b: FloatArray, n: FloatArray) -> FloatArray:
    """Two-sided Fisher exact p-values, one computation per distinct 2x2 table.

    Tables of more than :data:`FISHER_MAX_TOTAL` applicants get the z-test's p-value.
    """
    for name, arr in (("x1", a), ("n1", m), ("x2", b), ("n2", n)):
        frac = np.isfinite(arr) & (arr != np.round(arr))
        if np.any(frac):
            raise E.InvalidArgumentError(
                FISHER_INTEGER_MESSAGE.format(name=name, values=_show(arr[frac]))
            )
    out = np.full(a.shape, np.nan)
    ok = np.isfinite(a) & np.isfinite(m) & np.isfinite(b) & np.isfinite(n) & (m > 0) & (n > 0)
    large = ok & (m + n > FISHER_MAX_TOTAL)
    if np.any(large):
        out[large] = _z_pvalues(a[large], m[large], b[large], n[large])
        ok &= ~large
    if not np.any(ok):
        return out
    tables = np.stack([a[ok], m[ok] - a[ok], b[ok], n[ok] - b[ok]], axis=1).astype(np.int64)
    unique, inverse = np.unique(tables, axis=0, return_inverse=True)
    pvals = np.array([_fisher_one(*(int(v) for v in t)) for t in unique], dtype=np.float64)
    out[ok] = pvals[inverse.ravel()]
    return out


def _fisher_one(a: int, b: int, c: int, d: int) -> float:
    """One table's two-sided Fisher p-value, without scipy.stats unless the table is large.

    :func:`polars_fair.core.fisher.fisher_exact_pvalue` (scipy's rule) up to
    :data:`polars_fair.core.fisher.MAX_TABLES` tables with the observed margins, else
    :func:`scipy.stats.fisher_exact`.
    """
    if fisher_tables(a, b, c, d) <= MAX_TABLES:
        return fisher_exact_pvalue(a, b, c, d)
    return float(_sps.fisher_exact([[a, b], [c, d]]).pvalue)


def _z_pvalues(a: FloatArray, m: FloatArray, b: FloatArray, n: FloatArray) -> FloatArray:
    """Two-sided pooled z-test p-values; 1 where the pooled rate is 0 or 1."""
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (a + b) / (m + n)
        se = np.sqrt(pooled * (1.0 - pooled) * (1.0 / m + 1.0 / n))
        stat = (a / m - b / n) / se
        p = 2.0 * _special.ndtr(-np.abs(stat))  # = scipy.stats.norm.sf, bit for bit
    # Pooled rate 0 or 1: both groups show the same rate, the difference is exactly 0.
    p = np.where(se == 0, 1.0, p)
    return np.where((m == 0) | (n == 0), np.nan, p)


def small_expected_cell(
    x1: npt.ArrayLike, n1: npt.ArrayLike, x2: npt.ArrayLike, n2: npt.ArrayLike,
    *, limit: int = 5,
) -> npt.NDArray[np.bool_]:
    r"""Whether a 2x2 table's smallest expected cell is below ``limit`` (Cochran), exactly.

    The smallest expected cell is :math:`\min(x, N - x)\,\min(n_1, n_2) / N` with
    :math:`x = x_1 + x_2` and :math:`N = n_1 + n_2`; it is below ``limit`` exactly when
    :math:`\min(x, N - x)\,\min(n_1, n_2) < \text{limit} \cdot N`, decided here on Python
    integers. In floating point 6 of 14 against 21 of 28 gives :math:`15 \cdot 14 / 42 =
    4.999999999999999`, below 5, where the cell is exactly 5.

    Parameters
    ----------
    x1, n1, x2, n2 : array_like of int (whole numbers, float dtype accepted)
        Successes and trials of the two groups, each trial count > 0.
    limit : int, default 5
        Cochran's limit.

    Returns
    -------
    numpy.ndarray of bool
        One flag per table (the broadcast shape of the inputs).

    Examples
    --------
    >>> small_expected_cell([6, 6], [14, 13], [21, 21], [28, 28]).tolist()
    [False, True]
    """
    arrays = np.broadcast_arrays(*(np.asarray(v) for v in (x1, n1, x2, n2)))
    flags = [
        min(int(a) + int(b), int(m) + int(n) - int(a) - int(b)) * min(int(m), int(n))
        < limit * (int(m) + int(n))
        for a, m, b, n in zip(*(v.ravel().tolist() for v in arrays), strict=True)
    ]
    return np.array(flags, dtype=bool).reshape(arrays[0].shape)


def pooled_z(
    x1: npt.ArrayLike, n1: npt.ArrayLike, x2: npt.ArrayLike, n2: npt.ArrayLike
) -> FloatArray:
    r"""The signed pooled two-proportion statistic of :math:`\hat p_1 - \hat p_2`.

    :math:`z = (\hat p_1 - \hat p_2)/\sqrt{\bar p(1 - \bar p)(1/n_1 + 1/n_2)}` with
    :math:`\bar p = (x_1 + x_2)/(n_1 + n_2)` (Agresti 2013, *Categorical Data Analysis*, sec.
    3.1): the difference in standard deviations under equal rates, the "standard deviations"
    of adverse-impact practice. Its two-sided p-value is the ``"z"`` test of
    :func:`two_proportion_test`.

    Parameters
    ----------
    x1, n1 : array_like of int or float
        Successes and trials of the first group.
    x2, n2 : array_like of int or float
        Successes and trials of the second group.

    Returns
    -------
    numpy.ndarray of float64
        Negative when the first rate is lower; 0 where the pooled rate is 0 or 1 (equal
        rates); ``NaN`` where either group has no trials.

    Examples
    --------
    >>> float(np.round(pooled_z(12, 40, 48, 80), 4))
    -3.0984
    """
    a, m, b, r = (np.asarray(v, dtype=np.float64) for v in (x1, n1, x2, n2))
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (a + b) / (m + r)
        se = np.sqrt(pooled * (1.0 - pooled) * (1.0 / m + 1.0 / r))
        z = (a / m - b / r) / se
    return np.where((m > 0) & (r > 0), np.where(se == 0, 0.0, z), np.nan)


@borrow(pooled_z, params=("x1, n1", "x2, n2"))
def two_proportion_test(
    x1: npt.ArrayLike,
    n1: npt.ArrayLike,
    x2: npt.ArrayLike,
    n2: npt.ArrayLike,
    *,
    method: Test = DEFAULTS.test,
) -> FloatArray:
    r"""Two-sided p-values for :math:`H_0: p_1 = p_2` between independent proportions.

    ``"z"``: the pooled two-proportion z-test,
    :math:`z = (\hat p_1 - \hat p_2)/\sqrt{\bar p(1 - \bar p)(1/n_1 + 1/n_2)}` with
    :math:`\bar p = (x_1 + x_2)/(n_1 + n_2)` and :math:`p = 2\,(1 - \Phi(|z|))`
    (equivalent to Pearson's chi-squared test without continuity correction; Agresti 2013,
    *Categorical Data Analysis*, sec. 3.1). Where the pooled rate is 0 or 1 the two observed
    rates are equal and the p-value is 1.

    ``"fisher"``: Fisher's exact test on the 2x2 table
    :math:`[[x_1, n_1 - x_1], [x_2, n_2 - x_2]]`, two-sided as in
    :func:`scipy.stats.fisher_exact` (tables no more probable than the observed one), on
    tables of up to :data:`FISHER_MAX_TOTAL` (:math:`10^9`) applicants :math:`n_1 + n_2`;
    computed by :func:`polars_fair.core.fisher.fisher_exact_pvalue` (scipy's rule, to 50
    significant digits), by scipy where the margins allow more than
    :data:`polars_fair.core.fisher.MAX_TABLES` tables.
    Above that size the z-test's p-value is given: scipy's computation overflows on tables of
    about :math:`10^{10}` (it returned 1.0 at :math:`z = -11{,}572`), and at such sizes the two
    tests agree closely (within 0.1 % relative at :math:`10^{10}` for :math:`|z| \le 20`).

    ``"auto"``: Fisher where any expected cell
    :math:`(x_1 + x_2) n_i / (n_1 + n_2)` or :math:`(n_1 + n_2 - x_1 - x_2) n_i / (n_1 + n_2)`
    is below 5 (Cochran's rule, decided exactly on integers: :func:`small_expected_cell`),
    z otherwise. Rows with non-integer (weighted) counts always use
    the z-test under ``"auto"``, since the exact test is defined for whole counts only.

    Parameters
    ----------
    method : {"auto", "z", "fisher"}, default "auto"
        Test to run, see above.

    Returns
    -------
    numpy.ndarray of float64
        Two-sided p-values in [0, 1], broadcast shape of the inputs. ``NaN`` where either group
        has zero trials or an input is ``NaN``.

    Raises
    ------
    InvalidArgumentError
        If ``method`` is unknown, a count is negative, successes exceed trials, or
        ``method="fisher"`` is given non-integer counts.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(two_proportion_test([56, 3], [70, 10], [48, 9], [80, 10], method="auto"), 4)
    array([0.008 , 0.0198])
    """
    if method not in ("auto", "z", "fisher"):
        raise E.InvalidArgumentError(TEST_METHOD_MESSAGE.format(method=method))
    a, m = _counts(x1, n1, names=("x1", "n1"))
    b, n = _counts(x2, n2, names=("x2", "n2"))
    a, m, b, n = (np.array(v, dtype=np.float64) for v in np.broadcast_arrays(a, m, b, n))
    if method == "z":
        return _z_pvalues(a, m, b, n)
    if method == "fisher":
        return _fisher_pvalues(a, m, b, n)
    whole = np.all([np.equal(v, np.round(v)) for v in (a, m, b, n)], axis=0)
    use_fisher = np.array(whole & (m > 0) & (n > 0), dtype=bool, ndmin=1).reshape(m.shape)
    use_fisher[use_fisher] = small_expected_cell(a[use_fisher], m[use_fisher], b[use_fisher],
                                                 n[use_fisher])
    p = _z_pvalues(a, m, b, n)
    if np.any(use_fisher):
        p[use_fisher] = _fisher_pvalues(a[use_fisher], m[use_fisher], b[use_fisher], n[use_fisher])
    return p


def adjust_pvalues(
    p: npt.ArrayLike,
    *,
    method: Adjust = DEFAULTS.adjust,
) -> FloatArray:
    r"""Adjust p-values for multiple comparisons: Holm step-down or Benjamini–Hochberg.

    With the :math:`m` non-missing p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`:

    - ``"holm"`` (Holm 1979, *Scand. J. Stat.* 6:65), controls the family-wise error rate:
      :math:`\tilde p_{(i)} = \max_{j \le i} \min\{1, (m - j + 1)\, p_{(j)}\}`.
    - ``"bh"`` (Benjamini & Hochberg 1995, *J. R. Stat. Soc. B* 57:289), controls the false
      discovery rate: :math:`\tilde p_{(i)} = \min_{j \ge i} \min\{1, m\, p_{(j)}/j\}`.

    Reject at level :math:`\alpha` where :math:`\tilde p \le \alpha`.

    Parameters
    ----------
    p : array_like of float, one-dimensional
        Raw p-values in [0, 1]. ``NaN`` entries (untestable comparisons) stay ``NaN`` and are
        not counted in :math:`m`.
    method : {"holm", "bh"}, default "holm"
        Correction to apply.

    Returns
    -------
    numpy.ndarray of float64
        Adjusted p-values in the input order, each in [raw value, 1].

    Raises
    ------
    InvalidArgumentError
        If ``method`` is unknown, ``p`` is not one-dimensional or a value is outside [0, 1].

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, float("nan"), 0.03], method="holm")
    array([0.03, 0.06,  nan, 0.06])
    >>> adjust_pvalues([0.01, 0.04, float("nan"), 0.03], method="bh")
    array([0.03, 0.04,  nan, 0.04])
    """
    if method not in ("holm", "bh"):
        raise E.InvalidArgumentError(ADJUST_METHOD_MESSAGE.format(method=method))
    raw = np.asarray(p, dtype=np.float64)
    if raw.ndim != 1:
        raise E.InvalidArgumentError(PVALUE_SHAPE_MESSAGE.format(shape=raw.shape))
    present = ~np.isnan(raw)
    bad = present & ((raw < 0) | (raw > 1))
    if np.any(bad):
        raise E.InvalidArgumentError(PVALUE_RANGE_MESSAGE.format(values=_show(raw[bad])))
    out = np.full(raw.shape, np.nan)
    idx = np.flatnonzero(present)
    m = idx.size
    if m == 0:
        return out
    order = np.argsort(raw[idx], kind="stable")
    sorted_p = raw[idx][order]
    rank = np.arange(1, m + 1, dtype=np.float64)
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1.0) * sorted_p))
    else:
        adjusted = np.minimum.accumulate((m * sorted_p / rank)[::-1])[::-1]
        # Exactly m p_(j) / j >= p_(j); the max undoes rounding (e.g. 6 * 0.95 / 6 < 0.95).
        adjusted = np.minimum(np.maximum(adjusted, sorted_p), 1.0)
    out[idx[order]] = adjusted
    return out


def wilson_exprs(
    successes: pl.Expr | str,
    trials: pl.Expr | str,
    *,
    level: float = DEFAULTS.level,
) -> tuple[pl.Expr, pl.Expr]:
    r"""Wilson score bounds as Polars expressions, for lazy plans.

    The same formula as :func:`wilson_interval`; :math:`z` is computed once in Python with
    :func:`scipy.stats.norm.ppf` (as ``scipy.special.ndtri``, the same double), everything
    else runs in Polars. Works in ``select``,
    ``with_columns``, ``group_by().agg`` and ``over``.

    Parameters
    ----------
    successes : polars.Expr or str
        Successes (column name or expression), integer or float.
    trials : polars.Expr or str
        Trials (column name or expression), integer or float.
    level : float, default 0.95
        Confidence level in (0, 1).

    Returns
    -------
    low, high : tuple of polars.Expr
        Float64 expressions for the bounds, in [0, 1]; null where ``trials == 0`` or an input is
        null. They carry the output names of ``successes``; alias them.

    Raises
    ------
    InvalidArgumentError
        If ``level`` is not in (0, 1). Counts are not validated here (the count table builder
        guarantees ``0 <= successes <= trials``).

    Examples
    --------
    >>> import polars as pl
    >>> low, high = wilson_exprs("tp", "pos")
    >>> df = pl.DataFrame({"tp": [8, 0, 3], "pos": [10, 5, 0]})
    >>> df.select(low.alias("low").round(4), high.alias("high").round(4))
    shape: (3, 2)
    ┌────────┬────────┐
    │ low    ┆ high   │
    │ ---    ┆ ---    │
    │ f64    ┆ f64    │
    ╞════════╪════════╡
    │ 0.4902 ┆ 0.9433 │
    │ 0.0    ┆ 0.4345 │
    │ null   ┆ null   │
    └────────┴────────┘
    """
    z = _z_value(level)
    z2 = z * z
    x = (pl.col(successes) if isinstance(successes, str) else successes).cast(pl.Float64)
    n = (pl.col(trials) if isinstance(trials, str) else trials).cast(pl.Float64)
    centre = (x + z2 / 2.0) / (n + z2)
    spread = ((x * (n - x) / n).clip(lower_bound=0.0) + z2 / 4.0).sqrt()
    half = z * spread / (n + z2)
    defined = n > 0
    low = (
        pl.when(defined & (x == 0))
        .then(pl.lit(0.0))
        .when(defined)
        .then((centre - half).clip(0.0, 1.0))
        .otherwise(pl.lit(None, dtype=pl.Float64))
    )
    high = (
        pl.when(defined & (x == n))
        .then(pl.lit(1.0))
        .when(defined)
        .then((centre + half).clip(0.0, 1.0))
        .otherwise(pl.lit(None, dtype=pl.Float64))
    )
    return low, high


def newcombe_difference_exprs(
    x1: pl.Expr | str,
    n1: pl.Expr | str,
    x2: pl.Expr | str,
    n2: pl.Expr | str,
    *,
    level: float = DEFAULTS.level,
) -> tuple[pl.Expr, pl.Expr]:
    r"""Newcombe hybrid score bounds for :math:`p_1 - p_2` as Polars expressions.

    The same formula as :func:`newcombe_difference_interval` (Newcombe 1998, method 10), built
    from two :func:`wilson_exprs`.

    Parameters
    ----------
    x1, n1 : polars.Expr or str
        Successes and trials of the first group (column names or expressions).
    x2, n2 : polars.Expr or str
        Successes and trials of the second group (column names or expressions).
    level : float, default 0.95
        Confidence level in (0, 1).

    Returns
    -------
    low, high : tuple of polars.Expr
        Float64 expressions for the bounds, in [-1, 1]; null where either group has zero trials
        or an input is null. Alias them.

    Raises
    ------
    InvalidArgumentError
        If ``level`` is not in (0, 1).

    Examples
    --------
    >>> import polars as pl
    >>> low, high = newcombe_difference_exprs("a", "m", "b", "n")
    >>> df = pl.DataFrame({"a": [56], "m": [70], "b": [48], "n": [80]})
    >>> df.select(low.alias("low").round(4), high.alias("high").round(4)).row(0)
    (0.0524, 0.3339)
    """

    def col(e: pl.Expr | str) -> pl.Expr:
        return (pl.col(e) if isinstance(e, str) else e).cast(pl.Float64)

    a, m, b, n = col(x1), col(n1), col(x2), col(n2)
    l1, u1 = wilson_exprs(a, m, level=level)
    l2, u2 = wilson_exprs(b, n, level=level)
    p1 = a / m
    p2 = b / n
    d = p1 - p2
    defined = (m > 0) & (n > 0)
    low = d - ((p1 - l1).pow(2) + (u2 - p2).pow(2)).sqrt()
    high = d + ((u1 - p1).pow(2) + (p2 - l2).pow(2)).sqrt()
    none = pl.lit(None, dtype=pl.Float64)
    return (
        pl.when(defined).then(low.clip(-1.0, 1.0)).otherwise(none),
        pl.when(defined).then(high.clip(-1.0, 1.0)).otherwise(none),
    )
