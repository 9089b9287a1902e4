"""The command line's numbers: read as the decimal written, then decided by the Python rules.

A float option (``--threshold``, ``--level``, ``--four-fifths``, ``--min-impact-ratio``, ...),
each item of a list (``--thresholds``) and each number of a mapping (``--bins`` edges,
``--benchmark`` shares) is read by :func:`read_number` as the :class:`~decimal.Decimal` of its
text, never through a float: ``--threshold 0.4000000000000000000001`` and ``1e-400`` reach
:func:`polars_fair.core.spec.threshold_in_dtype` as written, which refuses them exactly as it
refuses the same ``Decimal`` in Python, and ``--four-fifths 0.8`` is 4/5 as
``four_fifths=Decimal("0.8")`` is. There is one rule per option, the Python one; this module
only keeps the text from being rounded before that rule sees it.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

import polars as pl

from polars_fair.core.numbers import limit_text, plain_number

__all__ = ["NUMBER", "NUMBER_OPTION", "SUMMARY_LIMITS", "exact_thresholds", "json_number",
           "number_text", "read_number", "support_number"]

#: The metavar of a number option in ``--help``.
NUMBER = "NUMBER"


def read_number(text: Any) -> Any:
    """An option's text as the exact decimal it spells (a default that is no text as it is).

    Parameters
    ----------
    text : str or Any
        What was typed (``"0.8"``, ``"1e-400"``, ``"nan"``), or the option's Python default.

    Returns
    -------
    decimal.Decimal or Any
        The decimal; NaN and infinities too (``Decimal("NaN")``), which the option's rule
        refuses with its own message, as in Python.

    Raises
    ------
    ValueError
        A text that is no number (``"abc"``): the command line's usage error, naming the flag.

    Examples
    --------
    >>> read_number("0.4000000000000000000001"), read_number(" 1e-400 "), read_number(0.95)
    (Decimal('0.4000000000000000000001'), Decimal('1E-400'), 0.95)
    >>> read_number("abc")
    Traceback (most recent call last):
    ...
    ValueError: 'abc' is not a number
    """
    if not isinstance(text, str):
        return text
    try:
        return Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"{text!r} is not a number") from None


#: The ``typer.Option`` keywords of a number option: ``typer.Option(help=..., **NUMBER_OPTION)``.
NUMBER_OPTION: dict[str, Any] = {"parser": read_number, "metavar": NUMBER}


def support_number(value: Any) -> Any:
    """A number option's Decimal as the library takes a count: an int if whole, else a float.

    ``--min-support`` is a number of rows, or under estimated membership a support size,
    which is fractional (``--min-support 19.5``); a whole one stays an int (``30``, shown so).

    Parameters
    ----------
    value : Any
        What :func:`read_number` gave (anything else is returned unchanged).

    Returns
    -------
    Any

    Examples
    --------
    >>> support_number(Decimal("30")), support_number(Decimal("19.5")), support_number(30)
    (30, 19.5, 30)
    """
    if not isinstance(value, Decimal) or not value.is_finite():
        return float(value) if isinstance(value, Decimal) else value
    return int(value) if value == value.to_integral_value() else float(value)


def json_number(value: Any) -> Any:
    """A number option as JSON shows it: a number, or the decimal's text if no float spells it.

    Parameters
    ----------
    value : Any
        An option's value (a :class:`~decimal.Decimal` read by :func:`read_number`, a default).

    Returns
    -------
    Any
        The float of a decimal a float spells as written (``0.8``), the text of one it does
        not (``"0.8000000000000000000001"``, so JSON does not round it); anything else as it is.

    Examples
    --------
    >>> json_number(Decimal("0.8")), json_number(Decimal("0.8000000000000000000001"))
    (0.8, '0.8000000000000000000001')
    """
    if isinstance(value, Decimal) and value.is_finite():
        return plain_number(value)  # the one rule (core.numbers), also the HTML page's
    return value


def number_text(value: Any) -> str:
    """A number option as text shows it: ``0.8``, or the decimal's text no float spells.

    Parameters
    ----------
    value : Any
        A number, or :func:`json_number`'s text.

    Returns
    -------
    str
        ``f"{value:g}"`` for a number, the text itself otherwise.

    Examples
    --------
    >>> number_text(0.8), number_text(json_number(Decimal("0.5000000000000000000001")))
    ('0.8', '0.5000000000000000000001')
    """
    return value if isinstance(value, str) else f"{value:g}"


#: The options whose limit each rule row of ``summary`` shows in its ``threshold`` column.
SUMMARY_LIMITS = {"min_impact_ratio": "four_fifths", "max_abs_ofi": "ofi_threshold"}


def exact_thresholds(frame: pl.DataFrame, values: dict[str, Any], fmt: str) -> pl.DataFrame:
    """``summary``'s ``threshold`` column as the limits the verdicts used, where a float would not.

    The column is Float64 (the Python schema); the command line reads ``--four-fifths`` and
    ``--ofi-threshold`` as the decimal typed (:func:`read_number`), so
    ``--four-fifths 0.8000000000000000000001`` fails an impact ratio of exactly 0.8. When the
    float, as ``fmt`` writes it (4 decimals in a table or Markdown, its shortest text in CSV and
    JSON), is not that decimal, the column is written as text, each limit with every digit
    (:func:`polars_fair.core.numbers.limit_text`); otherwise the frame is returned as it is.
    Parquet keeps the schema.

    Parameters
    ----------
    frame : pl.DataFrame
        The result of a command.
    values : dict of str to Any
        The command's options as read.
    fmt : str
        The output format.

    Returns
    -------
    pl.DataFrame
        ``frame``, its ``threshold`` column as text where a number would misstate a limit.

    Examples
    --------
    >>> df = pl.DataFrame({"metric": ["min_impact_ratio", "max_abs_ofi", "accuracy_difference"],
    ...                    "threshold": [0.8, 0.3, None]})
    >>> v = {"four_fifths": Decimal("0.8000000000000000000001"), "ofi_threshold": Decimal("0.3")}
    >>> exact_thresholds(df, v, "csv")["threshold"].to_list()
    ['0.8000000000000000000001', '0.3', None]
    >>> exact_thresholds(df, {"four_fifths": Decimal("0.8")}, "csv")["threshold"].dtype
    Float64
    """
    if fmt == "parquet" or not {"metric", "threshold"} <= set(frame.columns):
        return frame
    given = {m: values.get(o) for m, o in SUMMARY_LIMITS.items()}

    def misstated(limit: Any) -> bool:
        if not isinstance(limit, Decimal) or not limit.is_finite():
            return False
        shown = f"{float(limit):.4f}" if fmt in ("table", "markdown") else repr(float(limit))
        return Decimal(shown) != limit

    if not any(misstated(v) for v in given.values()):
        return frame
    cells = [None if t is None else limit_text(given.get(m) or t)
             for m, t in zip(frame["metric"], frame["threshold"], strict=True)]
    return frame.with_columns(pl.Series("threshold", cells, dtype=pl.String))
