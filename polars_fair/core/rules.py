"""Decision rules at legal thresholds, decided exactly: one function per rule and boundary.

A verdict (adverse impact, a flagged OFI, a small category, a significant difference, a gate
that passes) must not depend on how a float rounds: 0.6 / 0.75 is 0.7999999999999999 in floating
point, yet an impact ratio of exactly 4/5 passes the four-fifths rule. Every rule here compares
exact rationals:

* a threshold is read as the decimal the user wrote (``0.8`` is 4/5, ``0.3`` is 3/10:
  :func:`exact`);
* integer counts give exact fractions (``Fraction(tp + fp, n)``), compared by Python's exact
  rational arithmetic (cross-multiplication, no overflow);
* weighted counts are floats; their rule is decided on the exact value of those floats, except
  that a value within a relative :data:`WEIGHTED_TOLERANCE` of the threshold counts as *at* the
  threshold (weighted sums carry rounding error of that order), where the boundary rule applies;
* a computed float that is not a ratio of counts (a p-value, an ABROCA area) is compared as the
  float it is with the threshold rounded once to the nearest float (:func:`float_at_most`);
* every numeric option is checked once by :func:`option`: a finite number in its interval (NaN,
  an infinity, a string, a bool raise ``InvalidArgumentError`` naming the option).

The boundary rules (the documentation's "Guarantees" page, ``docs/guarantees.md``, "Boundary
rules"):

=============================== =========================================== ================
rule                            fails / flags when                          at the threshold
=============================== =========================================== ================
four-fifths (impact ratio)      ``impact_ratio < four_fifths``              passes
disparate impact (``systemic``) ``DI < four_fifths`` or                     passes
                                ``DI > 1/four_fifths``
OFI (``ofi_flag``)              ``|ofi| > ofi_threshold``                   passes
low support                     ``n < min_support`` (metrics: denominator)  supported
summary ``min_impact_ratio``    ``value < four_fifths``                     passes
summary ``max_abs_ofi``         ``value > ofi_threshold``                   passes
LL 144 small category           ``share < min_share``                       not small
significance                    significant when                            significant
                                ``p_value_adjusted <= 1 - level``
gate ``min_impact_ratio``       ``impact_ratio < min_impact_ratio``         passes
gate ``max_abs_ofi``            ``|ofi| > max_abs_ofi``                     passes
gate ``max_abroca``             ``abroca > max_abroca``                     passes
gate support                    ``n < min_support`` (not checked)           checked
change gate impact ratio        ``baseline − candidate > max drop`` and     passes
                                the paired interval lies below 0
change gate OFI                 ``|ofi| − |ofi_baseline| > max increase``   passes
                                and the paired interval excludes 0
Fisher in ``test="auto"``       smallest expected cell ``< 5``, decided on   z-test
                                integers (``stats.small_expected_cell``)
=============================== =========================================== ================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import is_numpy
from polars_fair.core.numbers import real

__all__ = [
    "WEIGHTED_TOLERANCE",
    "Number",
    "above",
    "alpha",
    "at_least",
    "at_most",
    "below",
    "elementwise",
    "exact",
    "flag",
    "float_at_most",
    "worse_beyond",
    "fraction",
    "min_count",
    "option",
    "quantile_positions",
    "weighted_rows",
]

#: Relative tolerance of a weighted rule: a value within ``1e-9 × threshold`` of it is at it.
WEIGHTED_TOLERANCE = 1e-9

Number = int | float | Fraction


def exact(threshold: Any, name: str = "threshold") -> Fraction:
    """A threshold as the exact decimal it was written as: ``exact(0.8) == Fraction(4, 5)``.

    Parameters
    ----------
    threshold : int, float, Fraction, Decimal or numpy number
        A finite number.
    name : str
        The argument's name, for the error.

    Returns
    -------
    Fraction

    Raises
    ------
    InvalidArgumentError
        A value that is not a finite real number (NaN, inf, a string, a bool).

    Examples
    --------
    >>> exact(0.8), exact(0.05), exact(30)
    (Fraction(4, 5), Fraction(1, 20), Fraction(30, 1))
    """
    # numpy floats of every width as the decimal they print as (core.numbers.real)
    threshold = number if (number := real(threshold)) is not None else threshold
    if isinstance(threshold, Fraction):
        return threshold
    if isinstance(threshold, Decimal) and threshold.is_finite():
        return Fraction(threshold)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) \
            or not math.isfinite(threshold):
        raise E.InvalidArgumentError(E.NOT_A_FINITE_NUMBER.format(name=name, value=threshold))
    if isinstance(threshold, int):
        return Fraction(threshold)
    return Fraction(repr(threshold))  # the shortest decimal that round-trips: what was written


def fraction(numerator: Number, denominator: Number = 1) -> Fraction | float | None:
    """An exact value from counts: a Fraction for integers, the float itself for weighted sums.

    Whole weighted sums (unit weights, a one-hot membership) are read as the integers they
    are, so a ratio of two such rates is rounded once, exactly as from Int64 counts.

    Parameters
    ----------
    numerator, denominator : int, float or Fraction
        Counts (ints) or weighted sums (floats).

    Returns
    -------
    Fraction, float or None
        ``None`` when the denominator is not positive (undefined).

    Examples
    --------
    >>> fraction(3, 5), fraction(1.5, 3.0), fraction(1, 0), fraction(3.0, 5.0)
    (Fraction(3, 5), 0.5, None, Fraction(3, 5))
    """
    if denominator is None or numerator is None or not denominator > 0:
        return None
    if isinstance(numerator, float) or isinstance(denominator, float):
        if float(numerator).is_integer() and float(denominator).is_integer():
            # whole weighted sums (unit weights, one-hot membership): the exact fraction, so a
            # ratio of two rates is rounded once, as from integer counts
            return Fraction(int(numerator)) / Fraction(int(denominator))
        return float(numerator) / float(denominator)
    return Fraction(numerator) / Fraction(denominator)


def _compare(value: Fraction | float | None, threshold: Fraction) -> int | None:
    """-1, 0 or 1 as ``value`` is below, at or above ``threshold``; None when undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float):
        t = float(threshold)
        if math.isinf(value):  # a ratio of weighted sums that overflowed: beyond any threshold
            return 1 if value > 0 else -1
        if abs(value - t) <= WEIGHTED_TOLERANCE * max(abs(t), 1e-300):
            return 0
        exact_value = Fraction(value)
    else:
        exact_value = value
    return (exact_value > threshold) - (exact_value < threshold)


_COMPARISON = """{summary}

    Parameters
    ----------
    value : Fraction, float or None
        An exact value from counts (:func:`fraction`), or a float from weighted counts.
    threshold : Fraction
        The threshold (:func:`exact`).

    Returns
    -------
    bool or None
        None when the value is undefined.

    Examples
    --------
    >>> {example}
    """

Comparison = Callable[[Fraction | float | None, Fraction], bool | None]


def _comparison(summary: str, example: str) -> Callable[[Comparison], Comparison]:
    """Give one of the four comparisons its docstring (they share all but two lines)."""
    def deco(fn: Comparison) -> Comparison:
        fn.__doc__ = _COMPARISON.format(summary=summary, example=example)
        return fn
    return deco


@_comparison("``value < threshold`` exactly (the threshold itself is not below).",
             "below(Fraction(4, 5), exact(0.8)), below(Fraction(79, 100), exact(0.8))\n"
             "    (False, True)")
def below(value: Fraction | float | None, threshold: Fraction) -> bool | None:  # noqa: D103
    c = _compare(value, threshold)
    return None if c is None else c < 0


@_comparison("``value > threshold`` exactly (the threshold itself is not above).",
             "above(Fraction(3, 10), exact(0.3))\n    False")
def above(value: Fraction | float | None, threshold: Fraction) -> bool | None:  # noqa: D103
    c = _compare(value, threshold)
    return None if c is None else c > 0


@_comparison("``value <= threshold`` exactly (for p-values: significant at ``p <= alpha``).",
             "at_most(0.05, 1 - exact(0.95))\n    True")
def at_most(value: Fraction | float | None, threshold: Fraction) -> bool | None:  # noqa: D103
    c = _compare(value, threshold)
    return None if c is None else c <= 0


@_comparison("``value >= threshold`` exactly (a minimum limit is met at the limit).",
             "at_least(Fraction(4, 5), exact(0.8))\n    True")
def at_least(value: Fraction | float | None, threshold: Fraction) -> bool | None:  # noqa: D103
    c = _compare(value, threshold)
    return None if c is None else c >= 0


def elementwise(
    rule: Callable[[Fraction | float | None, Fraction], bool | None],
    values: Sequence[Fraction | float | None],
    threshold: Fraction,
) -> list[bool | None]:
    """Apply one rule to every value.

    Parameters
    ----------
    rule : callable
        :func:`below`, :func:`above`, :func:`at_most` or :func:`at_least`.
    values : sequence of Fraction, float or None
        The values.
    threshold : Fraction
        The threshold.

    Returns
    -------
    list of bool or None

    Examples
    --------
    >>> elementwise(below, [Fraction(1, 2), None], exact(0.8))
    [True, None]
    """
    return [rule(v, threshold) for v in values]


def _bound(value: Fraction | None) -> str:
    if value is None:
        return "inf"
    return f"{float(value):g}"


def option(
    value: Any,
    name: str,
    *,
    low: Any = None,
    high: Any = None,
    low_open: bool = False,
    high_open: bool = False,
) -> Fraction:
    """A numeric option checked once and read exactly: a finite number inside its interval.

    Every threshold of a rule (``min_support``, ``four_fifths``, ``ofi_threshold``, ``level``,
    ``min_share``, the gate's limits) goes through here, so that NaN, an infinity, a string or
    a bool is refused with the option's name instead of silently deciding every group. numpy
    scalars of any width (``np.longdouble``), :class:`~fractions.Fraction` and
    :class:`~decimal.Decimal` are accepted (:func:`polars_fair.core.numbers.real`).

    Parameters
    ----------
    value : Any
        The option as passed.
    name : str
        The option's name, for the message.
    low, high : number, optional
        The interval's bounds (``None``: unbounded on that side; an unbounded side is open).
    low_open, high_open : bool, default False
        Whether ``low`` / ``high`` themselves are outside the interval.

    Returns
    -------
    Fraction
        The option as the exact decimal written (:func:`exact`).

    Raises
    ------
    InvalidArgumentError
        Not a real number (:data:`polars_fair.errors.OPTION_NOT_A_NUMBER`); NaN, infinite or
        outside the interval (:data:`polars_fair.errors.OPTION_OUT_OF_RANGE`, which shows the
        interval).

    Examples
    --------
    >>> import numpy as np
    >>> option(np.float64(0.8), "four_fifths", low=0, high=1, low_open=True)
    Fraction(4, 5)
    >>> option(float("nan"), "ofi_threshold", low=0, high=2)
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: ofi_threshold must lie in [0, 2], got nan
    """
    raw = value
    value = real(value)  # numpy scalars of any width, Fraction, Decimal (core.numbers)
    lo = None if low is None else exact(low, name)
    hi = None if high is None else exact(high, name)
    interval = (
        ("(" if low_open or lo is None else "[") + ("-inf" if lo is None else _bound(lo))
        + ", " + _bound(hi) + (")" if high_open or hi is None else "]")
    )
    if value is None:
        raise E.InvalidArgumentError(
            E.OPTION_NOT_A_NUMBER.format(name=name, value=raw, type=type(raw).__name__))
    finite = value.is_finite() if isinstance(value, Decimal) else (
        isinstance(value, (int, Fraction)) or math.isfinite(value))
    out = exact(value, name) if finite else None
    if out is None or (lo is not None and (out < lo or (low_open and out == lo))) or (
            hi is not None and (out > hi or (high_open and out == hi))):
        raise E.InvalidArgumentError(
            E.OPTION_OUT_OF_RANGE.format(name=name, interval=interval, value=value))
    return out


def min_count(threshold: Fraction) -> int:
    """The smallest integer at or above ``threshold``.

    An integer count ``n`` is below the threshold exactly when ``n < min_count(threshold)``.
    This lets a count rule (``n < min_support``) run as an integer comparison inside a Polars plan,
    exact for any threshold (``min_support=29.5`` flags 29 rows and passes 30).

    Parameters
    ----------
    threshold : Fraction
        The threshold (:func:`exact`).

    Returns
    -------
    int
        ``ceil(threshold)``.

    Examples
    --------
    >>> min_count(exact(29.5)), min_count(exact(30))
    (30, 30)
    """
    return math.ceil(threshold)


def quantile_positions(rows: int | float, n_bins: int) -> list[tuple[int, Fraction]]:
    r"""Where the quantiles ``Q(b / n_bins)``, ``b = 0, ..., n_bins``, lie among sorted rows.

    numpy's default rule (``np.quantile(..., method="linear")``, Hyndman & Fan 1996 type 7,
    also Polars' ``quantile(interpolation="linear")``): among ``rows`` values sorted
    :math:`v_0 \le \dots \le v_{N-1}`, :math:`Q(q)` lies at position :math:`h = q (N - 1)`,
    :math:`Q(q) = v_j + t (v_{j+1} - v_j)` with :math:`j = \lfloor h \rfloor`,
    :math:`t = h - j`. Here :math:`h = b (N - 1) / n_{bins}` is a fraction, so a quantile that
    falls on a row (``t == 0``) is that row's value, never a neighbour's: in floating point
    ``9 * (7 / 9)`` is 6.999999999999999, which read the 7th row's quantile between rows 6 and 7.

    A value is then at most :math:`Q(b / n_{bins})` exactly when the rows strictly below it
    number at most :math:`j` (no value lies strictly between :math:`v_j` and :math:`v_{j+1}`):
    quantile bins (``calibration(strategy="quantile")``, ``divergence(bins={"x": k})``) are
    decided on these integers. Weighted rows use the same positions on their cumulative
    weight read in rows (:func:`weighted_rows`: rescaled to a mean weight of 1 per row).

    Parameters
    ----------
    rows : int or float
        :math:`N`, the number of rows (or their total weight); below 1, every position is 0.
    n_bins : int
        The number of bins, at least 1.

    Returns
    -------
    list of (int, Fraction)
        ``n_bins + 1`` pairs ``(j, t)``: the row below the quantile and the exact fraction of
        the way to the next row, ``0 <= t < 1``.

    Examples
    --------
    >>> quantile_positions(10, 9)[7]  # h = 7 * 9 / 9 = 7: the 8th value itself
    (7, Fraction(0, 1))
    >>> quantile_positions(10, 4)[1]  # h = 9 / 4 = 2.25
    (2, Fraction(1, 4))
    """
    span = max(Fraction(rows) - 1, Fraction(0))
    out = []
    for b in range(n_bins + 1):
        h = span * b / n_bins
        j = math.floor(h)
        out.append((j, h - j))
    return out


def weighted_rows(weight: float, total: float, rows: int) -> float:
    r"""Cumulative weight in rows: ``rows * weight / total``, a whole number when within tolerance.

    The weighted form of :func:`quantile_positions`' rows: the weights are rescaled to a mean
    of 1 per row, so the total weight stands for the ``rows`` rows, and the quantile positions
    are those of ``rows`` (:math:`h = b (N - 1) / n_{bins}`). A result within
    :data:`WEIGHTED_TOLERANCE` × ``rows`` of a whole number is that number: sums of weights
    such as 0.1 or 1e-6 are not exact in floating point. So constant weights, at any scale,
    give the rows themselves and the bins of the unweighted rows.

    Parameters
    ----------
    weight : float
        A cumulative weight (the weight strictly below a value, or up to it).
    total : float
        The total weight (positive).
    rows : int
        The rows it stands for.

    Returns
    -------
    float
        The weight in rows.

    Examples
    --------
    >>> weighted_rows(0.30000000000000004, 0.9999999999999999, 10)  # ten rows of 0.1
    3.0
    >>> weighted_rows(3.0, 4.0, 2)  # weights 1 and 3: the first row is half of two rows
    1.5
    """
    value = rows * (weight / total)
    whole = round(value)
    return float(whole) if abs(value - whole) <= WEIGHTED_TOLERANCE * max(rows, 1) else value


def alpha(level: Fraction) -> Fraction:
    """The significance level of a confidence level, exactly: ``alpha(exact(0.95)) == 1/20``.

    ``1 - 0.95`` in floating point is 0.050000000000000044; here it is 1/20.

    Parameters
    ----------
    level : Fraction
        The confidence level (:func:`exact`).

    Returns
    -------
    Fraction
        ``1 - level``.

    Examples
    --------
    >>> alpha(exact(0.95))
    Fraction(1, 20)
    """
    return 1 - level


@borrow(at_most, sections=("Returns",))
def float_at_most(value: float | None, threshold: Fraction) -> bool | None:
    """``value <= threshold`` for a *computed* float (a p-value, an ABROCA area).

    Such a value is not a ratio of counts, so it has no exact form: it is compared as the
    float it is with the threshold rounded once to the nearest float. ``p = 0.05`` is
    significant at ``level=0.95`` (alpha = 1/20, whose nearest float is 0.05), and
    ``p = 0.05000000000000001`` is not: what is printed is what is decided.

    Parameters
    ----------
    value : float or None
        The computed value (NaN and None are undefined).
    threshold : Fraction
        The threshold (:func:`exact`, :func:`alpha`).

    Examples
    --------
    >>> float_at_most(0.05, alpha(exact(0.95))), float_at_most(0.05000000000000001, Fraction(1, 20))
    (True, False)
    """
    if value is None or math.isnan(value):
        return None
    return bool(value <= float(threshold))


@borrow(option, params=("value", "name"))
def flag(value: Any, name: str) -> bool:
    """A yes/no option: ``True`` or ``False`` (numpy booleans accepted), nothing else.

    Returns
    -------
    bool

    Raises
    ------
    InvalidArgumentError
        Anything but a boolean (a string such as ``"yes"`` would otherwise read as true).

    Examples
    --------
    >>> import numpy as np
    >>> flag(np.True_, "pairwise")
    True
    """
    if is_numpy(value, "bool_"):
        return bool(value)
    if not isinstance(value, bool):
        raise E.InvalidArgumentError(E.NOT_A_BOOL.format(name=name, value=value))
    return value


def worse_beyond(before: float | None, after: float | None, limit: Fraction) -> bool | None:
    """``after − before > limit``: a figure worsened by more than a limit (the change gate).

    The two figures are the report's floats (each the correctly rounded value of an exact
    fraction of counts). Each is read as its shortest round-tripping decimal (what is printed:
    0.85, not 0.84999999999999997779...), their difference is taken exactly and compared with
    the limit as the decimal written, so a worsening of exactly the limit passes.

    Parameters
    ----------
    before, after : float or None
        The baseline's and the candidate's figure, oriented so that larger is worse (pass the
        negated impact ratios, or the absolute OFIs).
    limit : Fraction
        The largest worsening allowed (:func:`exact`).

    Returns
    -------
    bool or None
        None when a figure is undefined (None or NaN).

    Examples
    --------
    >>> worse_beyond(-0.9, -0.85, exact(0.05)), worse_beyond(-0.9, -0.8, exact(0.05))
    (False, True)
    """
    if before is None or after is None or math.isnan(before) or math.isnan(after):
        return None
    return bool(Fraction(Decimal(repr(after))) - Fraction(Decimal(repr(before))) > limit)
