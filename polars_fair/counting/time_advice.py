"""Advice for a monitor's ``time`` that is no date, in the words of the engine that holds it.

:func:`time_dtype_error` is the error of a ``time`` column that is neither Date nor Datetime:
text is parsed (with ``'%Y%m%d'`` when the values look like yyyymmdd, else the ISO default),
an integer is a date written yyyymmdd or seconds since 1970. The advice runs on the engine the
rows are in: Polars expressions for Polars, a DuckDB projection for a DuckDB relation, a Spark
``withColumn`` for a Spark DataFrame (``time`` is a column name there), SQL for the command
line. :func:`check_time_expression` names ``time`` when its expression cannot be evaluated
(``CAST(name AS DATE)``: Polars casts no text to a date), and :func:`check_far_periods`
refuses periods after the year 9999, the mark of an integer yyyymmdd read as days since 1970
(``CAST(d AS DATE)`` on 20240131 is the year 57,387).
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import polars as pl

from polars_fair import errors as E

__all__ = ["check_far_periods", "check_time_expression", "looks_yyyymmdd", "time_dtype_error"]

_YYYYMMDD = re.compile(r"^(19|20|21)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$")
#: The values read to choose the advice (never shown).
SAMPLE = 20


def looks_yyyymmdd(values: list[Any]) -> bool:
    """Whether every non-null value reads as a date written yyyymmdd (``'20240131'``).

    Parameters
    ----------
    values : list
        A few values of the column (text or integers).

    Returns
    -------
    bool
        True when there is at least one value and each is eight digits of a plausible date.

    Examples
    --------
    >>> looks_yyyymmdd(["20240131", None]), looks_yyyymmdd(["2024-01-31"]), looks_yyyymmdd([])
    (True, False, False)
    """
    text = [str(v).strip() for v in values if v is not None]
    return bool(text) and all(_YYYYMMDD.match(t) for t in text)


def _ident(column: str) -> str:
    """``column`` as a SQL identifier: bare when a word, else double-quoted."""
    return column if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", column) else \
        '"' + column.replace('"', '""') + '"'


def _word(sql: str) -> str:
    """One double-quoted shell word."""
    return '"' + E.shell_escaped(sql) + '"'


def _engine_advice(column: str, dtype: pl.DataType, engine: str, yyyymmdd: bool) -> str:
    """The conversion as the engine ``engine`` (``duckdb`` or ``spark``) writes it."""
    text = not dtype.is_integer()
    new = f"{column}_date"
    if engine == "duckdb":
        q = _ident(column)
        if text:
            sql = f"strptime({q}, '%Y%m%d')::DATE" if yyyymmdd else f"CAST({q} AS DATE)"
            ways = [f"rel = rel.project(\"*, {sql} AS {_ident(new)}\")"]
        else:
            ways = [f"rel = rel.project(\"*, strptime(CAST({q} AS VARCHAR), '%Y%m%d')::DATE AS "
                    f"{_ident(new)}\") for a date written yyyymmdd (20240131)",
                    f"rel = rel.project(\"*, to_timestamp({q}) AS {_ident(new)}\") for seconds "
                    "since 1970-01-01"]
    else:
        if text:
            fmt = ", 'yyyyMMdd'" if yyyymmdd else ""
            ways = [f"df = df.withColumn({new!r}, F.to_date(F.col({column!r}){fmt}))"]
        else:
            ways = [f"df = df.withColumn({new!r}, F.to_date(F.col({column!r}).cast('string'), "
                    "'yyyyMMdd')) for a date written yyyymmdd (20240131)",
                    f"df = df.withColumn({new!r}, F.col({column!r}).cast('timestamp')) for "
                    "seconds since 1970-01-01"]
    return E.MONITOR_TIME_ENGINE.format(
        column=column, dtype=dtype, engine="DuckDB" if engine == "duckdb" else "Spark",
        ways="; or ".join(ways), new=new)


def time_dtype_error(column: str, dtype: pl.DataType, engine: str = "polars",
                     sample: list[Any] | None = None) -> E.InvalidArgumentError:
    """The error of a ``time`` column that is no Date or Datetime, with advice that runs.

    Text is parsed (``str.to_date``, with ``'%Y%m%d'`` when ``sample`` looks like yyyymmdd;
    on the command line ``--dtype COLUMN=date``, or ``--time "DATE(t, '%Y%m%d')"``); an
    integer is a date written yyyymmdd or seconds since 1970, converted in the call (on the
    command line in SQL, which ``--time`` takes: ``DATE(CAST(t AS VARCHAR), '%Y%m%d')``,
    ``CAST(t * 1000000 AS TIMESTAMP)``, microseconds being SQL's unit); on DuckDB and Spark,
    where ``time`` is a column name, a new date column made by the engine; any other dtype
    holds no date.

    Parameters
    ----------
    column : str
        The time column's name.
    dtype : pl.DataType
        Its dtype.
    engine : {"polars", "duckdb", "spark"}, default "polars"
        The engine that holds the rows.
    sample : list, optional
        A few of its values (read to choose the format, never shown).

    Returns
    -------
    polars_fair.errors.InvalidArgumentError
        With the Python advice in its message and the command line's in ``cli_message``.

    Examples
    --------
    >>> print(time_dtype_error("day", pl.Int64()).cli_message)  # doctest: +NORMALIZE_WHITESPACE
    time column 'day' must be a Date or Datetime column, got Int64; convert it in SQL: a date
    written as an integer yyyymmdd (20240131) is --time "DATE(CAST(day AS VARCHAR), '%Y%m%d')",
    and seconds since 1970-01-01 are --time "CAST(day * 1000000 AS TIMESTAMP)"
    >>> print(time_dtype_error("d", pl.String(), sample=["20240131"]))  # doctest: +ELLIPSIS
    time column 'd' must be ... for example pl.col('d').str.to_date('%Y%m%d')
    """
    text = dtype == pl.String or isinstance(dtype, pl.Categorical | pl.Enum)
    if not text and not dtype.is_integer():
        return E.InvalidArgumentError(E.MONITOR_TIME_OTHER.format(column=column, dtype=dtype))
    yyyymmdd = looks_yyyymmdd(sample or [])
    if engine in ("duckdb", "spark"):
        return E.InvalidArgumentError(_engine_advice(column, dtype, engine, yyyymmdd))
    if text:
        if yyyymmdd:
            return E.InvalidArgumentError(
                E.MONITOR_TIME_YYYYMMDD.format(column=column, dtype=dtype),
                cli_message=E.CLI_MONITOR_TIME_YYYYMMDD.format(
                    column=column, dtype=dtype,
                    sql=_word(f"DATE({_ident(column)}, '%Y%m%d')")))
        return E.InvalidArgumentError(
            E.MONITOR_TIME_DTYPE.format(column=column, dtype=dtype),
            cli_message=E.CLI_MONITOR_TIME_DTYPE.format(
                column=column, dtype=dtype, dtype_option=shlex.quote(f"{column}=date")))
    ident = _ident(column)
    return E.InvalidArgumentError(
        E.MONITOR_TIME_INTEGER.format(column=column, dtype=dtype),
        cli_message=E.CLI_MONITOR_TIME_INTEGER.format(
            column=column, dtype=dtype,
            yyyymmdd=_word(f"DATE(CAST({ident} AS VARCHAR), '%Y%m%d')"),
            epoch=_word(f"CAST({ident} * 1000000 AS TIMESTAMP)")))


_UNSUPPORTED = re.compile(r"casting from (?P<source>\w+) to (?P<target>\w+) is not supported")


def check_time_expression(rows: pl.LazyFrame, time: pl.Expr) -> None:
    """Name ``time`` when its expression makes a cast Polars does not make (text to date).

    Evaluated on the first :data:`SAMPLE` rows (Polars refuses such a cast only on values);
    only that refusal, which quotes no value, is turned into this error: any other failure is
    left to the scan, which hides the values it would quote.

    Parameters
    ----------
    rows : pl.LazyFrame
        The rows.
    time : pl.Expr
        The ``time`` expression.

    Raises
    ------
    InvalidArgumentError
        :data:`polars_fair.errors.MONITOR_TIME_CAST` (on the command line with SQL advice).

    Examples
    --------
    >>> rows = pl.LazyFrame({"t": ["2024-01-31"]})
    >>> check_time_expression(rows, pl.col("t").cast(pl.Date))
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: time: casting from string to date is not ...
    >>> check_time_expression(rows, pl.col("t").str.to_date()) is None
    True
    """
    try:
        rows.head(SAMPLE).select(time).collect()
    except pl.exceptions.PolarsError as exc:
        found = _UNSUPPORTED.search(str(exc))
        if found is None:
            return
        reason = found.group(0)
        roots = time.meta.root_names()
        column = roots[0] if roots else "t"
        raise E.InvalidArgumentError(
            E.MONITOR_TIME_CAST.format(reason=reason, column=column),
            cli_message=E.CLI_MONITOR_TIME_CAST.format(
                reason=reason, sql=_word(f"DATE({_ident(column)}, '%Y-%m-%d')"))) from None


#: The last day a period may start on: later ones are integers read as days since 1970.
LAST_DAY = pl.date(9999, 12, 31)


def check_far_periods(df: pl.DataFrame, period: str, time: str, roots: list[str]) -> None:
    """Refuse periods after the year 9999 (an integer yyyymmdd read as days since 1970).

    Parameters
    ----------
    df : pl.DataFrame
        A period count table (``period``, keys, ``n``).
    period : str
        The period column.
    time : str
        The ``time`` argument's name as given.
    roots : list of str
        The columns the ``time`` expression reads (the first is named in the advice).

    Raises
    ------
    InvalidArgumentError
        :data:`polars_fair.errors.MONITOR_TIME_FAR` with the count of such rows.

    Examples
    --------
    >>> import datetime as dt
    >>> t = pl.DataFrame({"period": [dt.date(2024, 1, 1)], "n": [3]})
    >>> check_far_periods(t, "period", "d", ["d"]) is None
    True
    """
    far = int(df.filter(pl.col(period) > LAST_DAY)["n"].sum())
    if far:
        column = roots[0] if roots else time
        raise E.InvalidArgumentError(
            E.MONITOR_TIME_FAR.format(count=far, time=time, column=column),
            cli_message=E.CLI_MONITOR_TIME_FAR.format(
                count=far, sql=_word(f"DATE(CAST({_ident(column)} AS VARCHAR), '%Y%m%d')")))
