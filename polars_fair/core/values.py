"""A value of the wrong type, written in the type a column holds: the example an error advises.

``pos_label="1"`` for an integer column, ``reference=1`` for a text attribute or
``reference="2020-01-01"`` for a date attribute are refused (``POS_LABEL_DTYPE``,
``VALUE_DTYPE``); the message then shows the same value in the column's type, so that the advice
can be followed as written (issue 20: every suggestion an error makes works).

Why a module of its own: :mod:`polars_fair.core.spec` (``pos_label``) and
:mod:`polars_fair.core.reference` (reference and benchmark values) both advise with it, and
``reference`` imports ``spec``.
"""

from __future__ import annotations

import datetime as dt
import decimal
from typing import Any

import polars as pl

__all__ = ["value_like", "value_advice"]

_TRUE = ("true", "yes", "1", "y", "t")
_FALSE = ("false", "no", "0", "n", "f")


def _number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if number == number and abs(number) != float("inf") else None


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def value_like(value: Any, dtype: pl.DataType) -> Any | None:
    """``value`` as a value of the type a column of ``dtype`` compares with, or ``None``.

    Text is read as a number, a Boolean (``"true"``, ``"yes"``, ``"1"``, ...), an ISO date,
    date-time or time; a number or a Boolean is written as text for a text column; a Boolean
    column takes ``True`` / ``False`` from ``0`` and ``1`` too. ``None`` when no such reading
    exists (``"yes"`` for an integer column).

    Parameters
    ----------
    value : Any
        The value given (a ``pos_label``, a reference group, a benchmark group).
    dtype : pl.DataType
        The dtype of the column it is compared with.

    Returns
    -------
    Any or None
        The value in the column's type.

    Examples
    --------
    >>> value_like("1", pl.Int64), value_like(1, pl.String), value_like("yes", pl.Boolean)
    (1, '1', True)
    >>> value_like("2020-01-31", pl.Date)
    datetime.date(2020, 1, 31)
    >>> value_like("yes", pl.Int64) is None
    True
    """
    if dtype == pl.Boolean:
        text = _as_text(value).strip().lower()
        return True if text in _TRUE else False if text in _FALSE else None
    if dtype.is_numeric():
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, decimal.Decimal):
            return _number(str(value))
        return _number(value.strip()) if isinstance(value, str) else None
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return _as_text(value)
    if not isinstance(value, str):
        return None
    read: Any = None
    if dtype == pl.Date:
        read = dt.date.fromisoformat
    elif dtype == pl.Time:
        read = dt.time.fromisoformat
    elif isinstance(dtype, pl.Datetime) and dtype.time_zone in (None, "UTC"):
        read = dt.datetime.fromisoformat
    try:
        like = read(value.strip()) if read is not None else None
    except ValueError:
        return None
    if isinstance(like, dt.datetime) and isinstance(dtype, pl.Datetime) and dtype.time_zone:
        # a zone-aware column takes a zone-aware value: UTC (written datetime.timezone.utc)
        like = like.replace(tzinfo=dt.timezone.utc) if like.tzinfo is None else like
    return like


def value_advice(value: Any, dtype: pl.DataType, name: str) -> str:
    """The end of an error's advice: ``, for example {name}{value}`` in the column's type.

    Parameters
    ----------
    value : Any
        The value refused.
    dtype : pl.DataType
        The column's dtype.
    name : str
        What the example is written after: ``"pos_label="`` or ``""`` (a value alone, for a
        reference that may sit in a mapping).

    Returns
    -------
    str
        ``""`` when the value has no reading in the column's type (the message then says the
        type only).

    Examples
    --------
    >>> value_advice("1", pl.Int64, "pos_label=")
    ', for example pos_label=1'
    >>> value_advice("2020-01-31", pl.Date, "")
    ', for example datetime.date(2020, 1, 31)'
    >>> value_advice("yes", pl.Int64, "pos_label=")
    ''
    """
    like = value_like(value, dtype)
    return "" if like is None else f", for example {name}{like!r}"
