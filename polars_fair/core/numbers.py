"""What counts as a number: one reading of a numeric option's value on every way in.

A numeric option (``threshold``, ``four_fifths``, ``level``, ``tolerance``, a bin edge, ...)
accepts every value that represents a real number: a Python ``int`` or ``float``, a
:class:`~fractions.Fraction`, a :class:`~decimal.Decimal`, a numpy scalar of any width
(``np.int8`` to ``np.longdouble``) and any other :class:`numbers.Rational`. :func:`real`
turns each into the Python value that holds it exactly, so the option's own rule decides it
(exactly where the option is decided exactly, :func:`polars_fair.core.rules.exact`; as a
float where it is compared as one, :func:`polars_fair.core.spec.threshold_in_dtype`), and a
number is never refused as "not a number". The command line reads its numeric options as
:class:`~decimal.Decimal` (the text as written) and hands them to the same rules.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from polars_fair import errors as E
from polars_fair._lazy import is_numpy, np

if TYPE_CHECKING:
    import polars as pl

__all__ = ["Real", "check_seed", "fractional", "limit_text", "number_items", "plain_number",
           "real"]

#: A real number as :func:`real` returns it.
Real = int | float | Fraction | Decimal


def fractional(dtype: pl.DataType) -> bool:
    """Whether a column's dtype holds fractions: a float, a Decimal, any non-integer number.

    The one reading of "a float attribute" on every way in (rows, a count or score table,
    DuckDB, the command line's ``--dtype m=decimal(10,3)``): such an attribute's levels, and a
    label's, are judged as a float's (more than
    :data:`polars_fair.counting.boundary.MAX_FLOAT_LEVELS` values must be binned), whatever
    type holds the same values.

    Parameters
    ----------
    dtype : pl.DataType
        The column's dtype.

    Returns
    -------
    bool
        True for a numeric dtype that is not an integer.

    Examples
    --------
    >>> import polars as pl
    >>> [fractional(t) for t in (pl.Float32(), pl.Decimal(10, 3), pl.Int64(), pl.String())]
    [True, True, False, False]
    """
    return bool(dtype.is_numeric() and not dtype.is_integer())


def real(value: Any) -> Real | None:
    """``value`` as the Python number that holds it exactly, or None if it is no number.

    One rule for numpy floats of every width: the decimal it prints as. ``np.float16`` and
    ``np.float32`` become the ``float`` of that decimal (``np.float32(0.3)`` is 0.3, not its
    binary value 0.30000001192092896); a ``np.float64`` is its ``float`` (which prints as
    itself); a wider numpy float (``np.longdouble``, which no ``float`` holds) the
    :class:`~decimal.Decimal` of the decimal it prints as (``np.longdouble("0.4")`` is 0.4).
    numpy integers become ``int``; any other
    :class:`numbers.Rational` a :class:`~fractions.Fraction`. A bool (Python's or numpy's) is
    not a number. NaN and infinities are returned as floats (a Decimal NaN too, which would raise
    when compared): each option's rule refuses them with its own message.

    Parameters
    ----------
    value : Any
        An option's value.

    Returns
    -------
    int, float, Fraction, Decimal or None
        The number, or None for anything else (a string, a bool, None, an array).

    Examples
    --------
    >>> import numpy as np
    >>> real(np.int8(3)), real(np.float32(0.3)), real(np.longdouble("0.4"))
    (3, 0.3, Decimal('0.4'))
    >>> real(Fraction(1, 3)), real(True), real("0.5")
    (Fraction(1, 3), None, None)
    """
    if isinstance(value, bool) or is_numpy(value, "bool_"):
        return None
    if is_numpy(value, "floating") and value.dtype.itemsize < 8:
        # float16/float32: the decimal it prints as (np.float32(0.3) is 0.3, its shortest
        # round trip in float32), never its binary value 0.30000001192092896
        return float(str(value)) if np.isfinite(value) else float(value)
    if is_numpy(value, "generic"):
        item = value.item()
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            return item
        if is_numpy(value, "floating"):
            return Decimal(str(value))  # np.longdouble: the decimal it prints as
        return None
    if isinstance(value, Decimal) and not value.is_finite():
        return float(value)  # NaN, inf: compared as floats (a Decimal NaN raises when compared)
    if isinstance(value, (int, float, Fraction, Decimal)):
        return value
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    return None


def number_items(values: Any) -> list[Any]:
    """A list of numeric options (``thresholds=``) as items :func:`real` reads one by one.

    A numpy array or a Polars Series of ``float32`` keeps its items as numpy ``float32``
    scalars, so each is the decimal it prints as (``np.array([0.3], dtype=np.float32)`` holds
    0.3), as a single ``np.float32(0.3)`` is; ``.tolist()`` would give their binary values
    (0.30000001192092896). A scalar (a number, a numpy scalar, a string) is a list of one.

    Parameters
    ----------
    values : Any
        A sequence, a numpy array, a Polars Series or a scalar.

    Returns
    -------
    list
        The items, unread (each option's own rule reads and checks them).

    Examples
    --------
    >>> import numpy as np
    >>> [real(t) for t in number_items(np.array([0.3, 0.7], dtype=np.float32))]
    [0.3, 0.7]
    >>> number_items(0.5), number_items([0.1, "a"])
    ([0.5], [0.1, 'a'])
    """
    import polars as pl

    if isinstance(values, pl.Series):
        return list(values.to_numpy()) if values.dtype == pl.Float32 else values.to_list()
    if is_numpy(values, "ndarray"):
        return list(values.ravel())  # numpy scalars of the array's width
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        return [values]
    return list(values)


def check_seed(seed: Any) -> Any:
    """A random seed checked once for every analysis that draws: an integer >= 0, or None.

    A numpy ``Generator`` or ``SeedSequence`` is accepted as it is. The command line, where only
    an integer can be typed, gets advice of its own (no numpy Generator there).

    Parameters
    ----------
    seed : Any
        The ``seed`` option.

    Returns
    -------
    Any
        ``seed``, unchanged (a numpy integer as a Python int).

    Raises
    ------
    InvalidArgumentError
        Anything else: a negative integer, a float, a bool, text
        (:data:`polars_fair.errors.BAD_SEED`; on the command line
        :data:`polars_fair.errors.CLI_BAD_SEED`).

    Examples
    --------
    >>> check_seed(7), check_seed(None)
    (7, None)
    >>> check_seed(-5)
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: seed must be an integer >= 0, a numpy Generator or \
None, got -5
    """
    if seed is None or (type(seed).__module__.startswith("numpy.random") and isinstance(
            seed, (np.random.Generator, np.random.SeedSequence))):
        return seed
    if is_numpy(seed, "integer"):
        seed = int(seed)
    if isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0:
        return seed
    raise E.InvalidArgumentError(E.BAD_SEED.format(value=seed),
                                 cli_message=E.CLI_BAD_SEED.format(value=seed))


def plain_number(value: Decimal | Fraction) -> float | str:
    """An exact number as JSON or a page shows it: the float that spells it, else its text.

    Parameters
    ----------
    value : Decimal or Fraction
        An option's value as read exactly (the command line's ``Decimal``).

    Returns
    -------
    float or str
        The float when its shortest text is the number (``Decimal("0.8")``: 0.8), else the
        number's own text (``"0.8000000000000000000001"``, ``"1/3"``), so nothing is rounded.

    Examples
    --------
    >>> plain_number(Decimal("0.8")), plain_number(Decimal("0.8000000000000000000001"))
    (0.8, '0.8000000000000000000001')
    >>> plain_number(Fraction(1, 4)), plain_number(Fraction(1, 3))
    (0.25, '1/3')
    """
    if isinstance(value, Decimal) and not value.is_finite():
        return str(value)
    f = float(value)
    return f if Fraction(repr(f)) == Fraction(value) else str(value)


def limit_text(value: Any) -> str:
    """A limit as text shows it: every digit of the number the verdict was decided on.

    A float is its shortest text (``0.8``, ``0.8123456``; ``f"{x:g}"`` would print
    ``0.812346``); an exact number (the command line's ``Decimal``, a ``Fraction``) is the
    float that spells it, else its own text (``0.8000000000000000000001``), as
    :func:`plain_number` decides. So a limit is never printed as another number than the one
    its rule compared with.

    Parameters
    ----------
    value : Any
        A limit: a float, an int, a ``Decimal``, a ``Fraction`` or a numpy number.

    Returns
    -------
    str
        Its text.

    Examples
    --------
    >>> limit_text(0.8), limit_text(Decimal("0.8000000000000000000001")), limit_text(30)
    ('0.8', '0.8000000000000000000001', '30')
    >>> limit_text(0.8123456), limit_text(Fraction(4, 5)), limit_text(Decimal("0.80"))
    ('0.8123456', '0.8', '0.8')
    """
    if isinstance(value, (Decimal, Fraction)):
        value = plain_number(value)
        if isinstance(value, str):
            return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        number = real(value)
        value = float(number) if number is not None and not isinstance(number, int) else value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))  # 30.0 rows read 30
    return repr(value) if isinstance(value, float) else str(value)
