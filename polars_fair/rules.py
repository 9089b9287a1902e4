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
  threshold (weighted sums carry rounding error of that order), where the boundary rule applies.

The boundary rules (README "Guarantees"):

=========================== ==================================== =========================
rule                        fails / flags when                   at the threshold exactly
=========================== ==================================== =========================
four-fifths (impact ratio)  ``impact_ratio < four_fifths``       passes (4/5 is not adverse)
disparate impact            ``DI < four_fifths`` or ``DI > 1/four_fifths``  passes
OFI                         ``|ofi| > ofi_threshold``            passes (not flagged)
low support                 ``n < min_support``                  supported
LL 144 small category       ``share < min_share``                not small
significance                ``p_value_adjusted <= alpha``        significant
gate limits                 ``value < min`` or ``value > max``   passes
=========================== ==================================== =========================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from polars_fair import errors as E

__all__ = [
    "WEIGHTED_TOLERANCE",
    "Number",
    "at_least",
    "at_most",
    "below",
    "elementwise",
    "exact",
    "fraction",
    "above",
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
    if isinstance(threshold, np.generic):
        threshold = threshold.item()
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
    >>> fraction(3, 5), fraction(1.5, 3.0), fraction(1, 0)
    (Fraction(3, 5), 0.5, None)
    """
    if denominator is None or numerator is None or not denominator > 0:
        return None
    if isinstance(numerator, float) or isinstance(denominator, float):
        return float(numerator) / float(denominator)
    return Fraction(numerator) / Fraction(denominator)


def _compare(value: Fraction | float | None, threshold: Fraction) -> int | None:
    """-1, 0 or 1 as ``value`` is below, at or above ``threshold``; None when undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, float):
        t = float(threshold)
        if abs(value - t) <= WEIGHTED_TOLERANCE * max(abs(t), 1e-300):
            return 0
        exact_value = Fraction(value)
    else:
        exact_value = value
    return (exact_value > threshold) - (exact_value < threshold)


def below(value: Fraction | float | None, threshold: Fraction) -> bool | None:
    """``value < threshold`` exactly (the threshold itself is not below).

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
    >>> below(Fraction(4, 5), exact(0.8)), below(Fraction(79, 100), exact(0.8))
    (False, True)
    """
    c = _compare(value, threshold)
    return None if c is None else c < 0


def above(value: Fraction | float | None, threshold: Fraction) -> bool | None:
    """``value > threshold`` exactly (the threshold itself is not above).

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
    >>> above(Fraction(3, 10), exact(0.3))
    False
    """
    c = _compare(value, threshold)
    return None if c is None else c > 0


def at_most(value: Fraction | float | None, threshold: Fraction) -> bool | None:
    """``value <= threshold`` exactly (for p-values: significant at ``p <= alpha``).

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
    >>> at_most(0.05, 1 - exact(0.95))
    True
    """
    c = _compare(value, threshold)
    return None if c is None else c <= 0


def at_least(value: Fraction | float | None, threshold: Fraction) -> bool | None:
    """``value >= threshold`` exactly (a minimum limit is met at the limit).

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
    >>> at_least(Fraction(4, 5), exact(0.8))
    True
    """
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
