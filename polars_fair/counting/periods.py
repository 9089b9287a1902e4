"""The period count table: the count table with a period key first, in one scan.

A monitor reads fairness over time (DESIGN.md, "The label table generalises": a period key).
The period of a row is its ``time`` (a Date or Datetime column) as a date, truncated to
``every`` (a Polars duration of whole days, weeks, months, quarters or years: ``"1w"`` starts
on Monday, ``"1mo"`` on the first of the month, as ``pl.Expr.dt.truncate``). A time-zone-aware
Datetime falls on its local date in its own zone (``pl.Expr.dt.date``), not on the UTC date
(DuckDB and Spark keep no zone per column: their session's time zone decides).
A null time raises :class:`~polars_fair.errors.NullValuesError` with the count of such rows
(a decision without a time has no period), as a null prediction does. On Polars the
period is one more key expression of the count table's own group-by; Spark and DuckDB group by
the row's date (one more key column, made by the engine) and the small table is truncated and
summed here, so every engine gives the same table.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core.spec import By, IntoExpr, name_of, normalize_by, to_expr
from polars_fair.counting.boundary import COUNT_COLUMNS
from polars_fair.counting.tables import PolarsEngine, count_table, engine_of
from polars_fair.counting.time_advice import (
    SAMPLE,
    check_far_periods,
    check_time_expression,
    time_dtype_error,
)

__all__ = ["PERIOD", "check_every", "check_null_periods", "period_table", "time_dtype_error"]

#: The period key's name in the period count table.
PERIOD = "period"
_EVERY = re.compile(r"^[1-9][0-9]*(d|w|mo|q|y)$")


def check_every(every: Any) -> str:
    """``every`` as given, when it is a duration of whole days, weeks, months, quarters, years.

    Parameters
    ----------
    every : Any
        The period's length, for example ``"1w"``, ``"2w"``, ``"1mo"``.

    Returns
    -------
    str
        ``every``.

    Raises
    ------
    InvalidArgumentError
        Anything else (a sub-day duration such as ``"12h"``, a mixed one such as ``"1d12h"``).

    Examples
    --------
    >>> check_every("1w")
    '1w'
    >>> check_every("12h")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: every='12h' must be a Polars duration string ...
    """
    if not isinstance(every, str) or not _EVERY.match(every):
        raise E.InvalidArgumentError(E.MONITOR_EVERY.format(value=every))
    return every


def check_null_periods(df: pl.DataFrame, time: str) -> pl.DataFrame:
    """``df`` (a period count table) when no row has a null period, else the typed error.

    Parameters
    ----------
    df : pl.DataFrame
        A period count table (``period``, keys, ``n`` and the cells).
    time : str
        The time column's name as the user gave it.

    Returns
    -------
    pl.DataFrame
        ``df``.

    Raises
    ------
    NullValuesError
        Some rows have a null time: names ``time`` and counts the rows.

    Examples
    --------
    >>> import datetime as dt
    >>> t = pl.DataFrame({"period": [dt.date(2024, 1, 1), None], "n": [3, 2]})
    >>> check_null_periods(t, "t")
    Traceback (most recent call last):
    ...
    polars_fair.errors.NullValuesError: column 't' (time) holds 2 null value(s); ...
    """
    nulls = int(df.filter(pl.col(PERIOD).is_null())["n"].sum())
    if nulls:
        raise E.NullValuesError(E.MONITOR_NULL_TIME.format(column=time, count=nulls))
    return df


def _kind(engine: Any) -> str:
    """``polars``, ``duckdb`` or ``spark``: whose words the time advice speaks."""
    if isinstance(engine, PolarsEngine):
        return "polars"
    return "duckdb" if hasattr(engine, "relation") else "spark"


def _sample(engine: Any, time: IntoExpr) -> list[Any]:
    """A few values of ``time`` (to choose the advice's format; never shown)."""
    try:
        if isinstance(engine, PolarsEngine):
            return engine.lf.select(to_expr(time)).head(SAMPLE).collect().to_series().to_list()
        if hasattr(engine, "relation"):
            from polars_fair.counting._duckdb import quote

            return [r[0] for r in engine.relation.project(quote(str(time))).limit(SAMPLE)
                    .fetchall()]
        return [r[0] for r in engine.spark_df.select(str(time)).limit(SAMPLE).collect()]
    except Exception:  # noqa: BLE001 - advice without the format is still advice
        return []


def _with_day(engine: Any, time: str) -> Any:
    """Spark or DuckDB: the same rows with the row's date as a column :data:`PERIOD`."""
    if hasattr(engine, "relation"):  # DuckDB
        from polars_fair.counting._duckdb import quote

        rel = engine.relation.project(f"*, CAST({quote(time)} AS DATE) AS {quote(PERIOD)}")
        return replace(engine, relation=rel)
    from pyspark.sql import functions as F  # Spark

    return replace(engine, spark_df=engine.spark_df.withColumn(PERIOD, F.to_date(F.col(time))))


def period_table(frame: Any, by: By, *, time: IntoExpr, every: str,
                 **args: Any) -> tuple[pl.LazyFrame, list[str]]:
    """The lazy period count table: ``period``, the keys, ``n, tp, fp, fn, tn``.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows, one per decision, with a time column.
    by : str, pl.Expr or list of them, or None
        The attributes (several = their intersection).
    time : str or pl.Expr
        A Date or Datetime column (an expression on Polars, a column name on Spark and
        DuckDB): when the decision was made.
    every : str
        The period's length (:func:`check_every`).
    **args : Any
        The count arguments (``y_true``, ``y_pred``, ``pos_label``, ``null_groups``,
        ``y_score`` with ``threshold``, ``max_groups``).

    Returns
    -------
    table : pl.LazyFrame
        ``period`` (Date: the period's first day), the keys, ``n, tp, fp, fn, tn`` (Int64),
        sorted by period then keys.
    keys : list of str
        The attribute keys (without ``period``).

    Raises
    ------
    ColumnNotFoundError
        ``time`` is no column.
    NullValuesError
        At collect time: ``time`` is null in some rows (with their count).
    InvalidArgumentError
        ``time`` is not a Date or Datetime column, ``every`` is not a whole-day duration,
        ``sample_weight`` is given (the sequences count decisions); the errors of
        :func:`polars_fair.counting.tables.count_table`.

    Examples
    --------
    >>> import datetime as dt
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0],
    ...                    "t": [dt.date(2024, 1, 1), dt.date(2024, 1, 9), dt.date(2024, 1, 3)]})
    >>> t, keys = period_table(df, "g", time="t", every="1w")
    >>> t.select(pl.col("period").cast(pl.String), "g", "n", "tp").collect().rows()
    [('2024-01-01', 'a', 1, 1), ('2024-01-01', 'b', 1, 0), ('2024-01-08', 'a', 1, 0)]
    """
    every = check_every(every)
    if args.get("sample_weight") is not None:
        raise E.InvalidArgumentError(E.MONITOR_WEIGHTS)
    engine = engine_of(frame)
    schema = engine.schema()
    polars = isinstance(engine, PolarsEngine)
    if not isinstance(time, str) and not polars:
        raise E.InvalidArgumentError(E.NOT_A_COLUMN.format(
            role="time", value=time, type=type(time).__name__))
    if isinstance(time, str) and time not in schema:
        raise E.ColumnNotFoundError(E.missing_column(time, "time", schema.names()))
    if isinstance(time, pl.Expr) and isinstance(engine, PolarsEngine):  # named as time
        check_time_expression(engine.lf, time)
    dtype = pl.LazyFrame(schema=schema).select(to_expr(time)).collect_schema().dtypes()[0]
    if not (dtype == pl.Date or isinstance(dtype, pl.Datetime)):
        raise time_dtype_error(name_of(time), dtype, _kind(engine), _sample(engine, time))
    items = normalize_by(by)
    clash = [name_of(i) for i in items if name_of(i) == PERIOD]
    if clash:  # the period key is added under this name (else "repeated attribute names")
        raise E.InvalidArgumentError(E.COLUMN_CLASH.format(
            names=clash, analysis="monitor", example=PERIOD))
    if polars:  # dt.date: a zoned time's local date, not its UTC date
        day = to_expr(time) if dtype == pl.Date else to_expr(time).dt.date()
        period = day.dt.truncate(every).alias(PERIOD)
        table, keys = count_table(engine, [period, *items], key_roles={PERIOD: "time"}, **args)
        roots = [time] if isinstance(time, str) else to_expr(time).meta.root_names()

        def checked_periods(df: pl.DataFrame) -> pl.DataFrame:
            check_far_periods(check_null_periods(df, name_of(time)), PERIOD, name_of(time),
                              roots)
            return df

        checked = table.map_batches(checked_periods, schema=table.collect_schema())
        return checked, keys[1:]
    assert isinstance(time, str)
    table, keys = count_table(_with_day(engine, time), [PERIOD, *items],
                              key_roles={PERIOD: "time"}, **args)
    keys = keys[1:]

    def truncate(df: pl.DataFrame) -> pl.DataFrame:
        df = check_null_periods(df, time).with_columns(
            pl.col(PERIOD).cast(pl.Date).dt.truncate(every))
        return df.group_by([PERIOD, *keys]).agg(pl.col(c).sum() for c in COUNT_COLUMNS) \
            .sort([PERIOD, *keys], nulls_last=True)

    schema_out = pl.Schema({PERIOD: pl.Date(), **{k: v for k, v in
                                                  table.collect_schema().items()
                                                  if k != PERIOD}})
    return table.map_batches(lambda df: truncate(df).select(schema_out.names()),
                             schema=schema_out), keys

