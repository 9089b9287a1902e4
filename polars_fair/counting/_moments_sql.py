"""The moment label table on DuckDB and Spark: one aggregation in the engine, as in Polars.

Each group's mean and centred sum of squares come from the engine's own stable aggregates
(DuckDB: the compensated sum ``fsum`` over ``count``, and ``var_pop``; Spark: ``avg`` and
``var_pop``, Welford-type updates merged across partitions; ``M2 = var_pop·count``), never from
``Σx² − (Σx)²/n``. Spark's ``avg`` is a plain sum: on values near 10⁹ its mean carries a few
more rounding errors (about 10⁻¹⁵ relative) than Polars' and DuckDB's. The result is the label
table of :func:`polars_fair.counting.moments.moment_label_table`, so validation, the null-group
policy and every analysis are the same code as for Polars.

Weighted moments need a weighted variance, which neither engine has as one aggregate: with
``sample_weight`` they raise :class:`~polars_fair.errors.InvalidArgumentError`
(:data:`WEIGHTED_MOMENTS_POLARS_ONLY`); audit the rows in Polars (``pl.from_arrow``) instead.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core.spec import Audit

__all__ = ["WEIGHTED_MOMENTS_POLARS_ONLY", "sql_moment_label_table"]

_V = "__pf_"
#: The message of weighted moments on Spark or DuckDB.
WEIGHTED_MOMENTS_POLARS_ONLY = (
    "sample_weight with continuous moments runs on Polars frames only ({engine} has no "
    "weighted variance aggregate); read the rows into Polars first"
)


def _duckdb(engine: Any, a: Audit) -> pl.LazyFrame:
    from polars_fair.counting._duckdb import _count_if, quote

    def parts(column: str, tag: str) -> list[str]:
        x = f"CAST({quote(column)} AS DOUBLE)"
        return [f"{_count_if(f'{x} IS NULL')} AS {_V}{tag}_null",
                f"{_count_if(f'isfinite({x})')} AS {_V}{tag}_finite"]

    def mean_m2(x: str, name: str) -> list[str]:
        # fsum: DuckDB's compensated (Kahan) sum; its avg is a plain sum, 10x less accurate
        return [f"CAST(fsum({x}) / count({x}) AS DOUBLE) AS mean_{name}",
                f"CAST(coalesce(var_pop({x}), 0.0) * count({x}) AS DOUBLE) AS m2_{name}"]

    assert a.y_pred_name is not None
    x = f"CAST({quote(a.y_pred_name)} AS DOUBLE)"
    aggs = ["CAST(count(*) AS BIGINT) AS n", *parts(a.y_pred_name, "pred"), *mean_m2(x, "pred")]
    if a.y_true_name is not None:
        y = f"CAST({quote(a.y_true_name)} AS DOUBLE)"
        r = f"({x} - {y})"
        aggs += [*parts(a.y_true_name, "true"),
                 f"CAST(fsum({y}) / count({y}) AS DOUBLE) AS mean_true",
                 *mean_m2(r, "residual"),
                 f"CAST(coalesce(sum(abs({r})), 0.0) AS DOUBLE) AS sum_abs_residual"]
    out: pl.LazyFrame = engine._fetch(engine._keys(a), aggs)
    return out


def _spark(engine: Any, a: Audit) -> pl.LazyFrame:
    from pyspark.sql import functions as F

    from polars_fair.counting._spark import _col, _collect, _count_if

    def parts(column: str, tag: str) -> list[Any]:
        x = _col(column).cast("double")
        return [_count_if(x.isNull()).alias(f"{_V}{tag}_null"),
                _count_if(~F.isnan(x) & (F.abs(x) != F.lit(float("inf"))))
                .alias(f"{_V}{tag}_finite")]

    def mean_m2(x: Any, name: str) -> list[Any]:
        return [F.avg(x).cast("double").alias(f"mean_{name}"),
                (F.coalesce(F.var_pop(x), F.lit(0.0)) * F.count(x)).cast("double")
                .alias(f"m2_{name}")]

    assert a.y_pred_name is not None
    x = _col(a.y_pred_name).cast("double")
    aggs = [F.count(F.lit(1)).cast("long").alias("n"), *parts(a.y_pred_name, "pred"),
            *mean_m2(x, "pred")]
    if a.y_true_name is not None:
        y = _col(a.y_true_name).cast("double")
        r = x - y
        aggs += [*parts(a.y_true_name, "true"), F.avg(y).cast("double").alias("mean_true"),
                 *mean_m2(r, "residual"),
                 F.coalesce(F.sum(F.abs(r)), F.lit(0.0)).cast("double").alias("sum_abs_residual")]
    return _collect(engine.spark_df, [_col(k) for k in a.keys], aggs).lazy()


def sql_moment_label_table(engine: Any, a: Audit) -> pl.LazyFrame:
    """The moment label table of a DuckDB relation or a Spark DataFrame, by one aggregation.

    Parameters
    ----------
    engine : DuckDBEngine or SparkEngine
        The rows (:func:`polars_fair.counting.tables.engine_of`).
    a : Audit
        The resolved call (:func:`polars_fair.counting.moments.resolve_moments`).

    Returns
    -------
    pl.LazyFrame
        The label table of :func:`polars_fair.counting.moments.moment_label_table` (computed
        in the engine, in memory).

    Raises
    ------
    InvalidArgumentError
        ``sample_weight`` given (:data:`WEIGHTED_MOMENTS_POLARS_ONLY`).

    Examples
    --------
    >>> import duckdb
    >>> from polars_fair.counting.moments import resolve_moments
    >>> from polars_fair.counting.tables import engine_of
    >>> rel = duckdb.sql("SELECT * FROM (VALUES ('a', 1.0), ('a', 3.0)) t(g, rate)")
    >>> engine, a = resolve_moments(engine_of(rel), "g", {"y_pred": "rate"})
    >>> sql_moment_label_table(engine, a).select("g", "mean_pred", "m2_pred").collect().rows()
    [('a', 2.0, 2.0)]
    """
    name = type(engine).__name__
    if a.weight_name is not None:
        raise E.InvalidArgumentError(WEIGHTED_MOMENTS_POLARS_ONLY.format(
            engine="Spark" if name.startswith("Spark") else "DuckDB"))
    if name.startswith("Spark"):
        return _spark(engine, a)
    return _duckdb(engine, a)
