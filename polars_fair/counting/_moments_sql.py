"""The moment label table on DuckDB and Spark: one aggregation in the engine, as in Polars.

Each group's mean and centred sum of squares come from the engine's own stable aggregates
(DuckDB: the compensated sum ``fsum`` over ``count``, and ``var_pop``; Spark: ``avg`` and
``var_pop``, Welford-type updates merged across partitions; ``M2 = var_pop·count``), never from
``Σx² − (Σx)²/n``. A sum's rounding errors grow with the values' magnitude (at 10⁹ + N(0, 1)
Spark's plain ``avg`` moved an SMD by 10⁻⁵; at 10¹² DuckDB's ``var_pop`` was off by 10⁻⁵
relative), and a mean rounded to a double near 10⁹ is off by up to 6·10⁻⁸, too much for the
gap between two close means: both engines aggregate ``y_pred`` about a shift and return it
with the mean about it (``__pf_shift_pred``, ``__pf_dmean_pred``), which
:func:`polars_fair.counting.moments.moments_from_labels` splits into ``mean_pred`` and
``mean_pred_low``. Spark shifts by each group's smallest value, read by a window over the keys
(``min(x) OVER (PARTITION BY keys)``), so each group's sums are of its own deviations whatever
the offset. DuckDB first shifts by the frame's first finite value (a constant, read by a
``LIMIT 1`` query: no window, so the aggregation keeps its speed) and, as Polars does, only
when a group lies far from it
(:func:`~polars_fair.counting.moment_merge.far_from_shift`: groups orders of magnitude apart)
aggregates again about each group's smallest value. The result is the label table of
:func:`polars_fair.counting.moments.moment_label_table`, so validation, the null-group policy
and every analysis are the same code as for Polars.

Weighted moments need a weighted variance, which neither engine has as one aggregate: with
``sample_weight`` each row first gets its group's weighted mean by a window (``sum(w·x) OVER
(PARTITION BY keys) / sum(w) OVER (...)``), and the aggregation sums ``w·(x − mean)²`` about it:
the two passes of Polars' weighted moments, in one query of the engine.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_fair.core.spec import (
    FLOAT_DIGITS,
    FLOAT_EXACT_INT,
    FLOAT_SQUARE_MIN,
    Audit,
    wide_decimal,
    wide_int,
)
from polars_fair.counting.moment_merge import DMEAN, SHIFT, far_from_shift

__all__ = ["sql_moment_label_table"]

_V = "__pf_"


def _duckdb(engine: Any, a: Audit) -> pl.LazyFrame:
    from dataclasses import replace

    from polars_fair.counting._duckdb import _count_if, quote

    def parts(column: str, tag: str) -> list[str]:
        x = f"CAST({quote(column)} AS DOUBLE)"
        out = [f"{_count_if(f'{x} IS NULL')} AS {_V}{tag}_null",
               f"{_count_if(f'isfinite({x})')} AS {_V}{tag}_finite",
               f"{_count_if(f'{x} <> 0 AND abs({x}) < {FLOAT_SQUARE_MIN!r}')} AS {_V}{tag}_tiny"]
        dtype = a.pred_dtype if tag == "pred" else a.true_dtype
        if wide_decimal(dtype):  # the significant digits of its plain text
            digits = (f"length(trim(regexp_replace(CAST({quote(column)} AS VARCHAR), '[-+.]', "
                      "'', 'g'), '0'))")
            out.append(f"{_count_if(f'{digits} > {FLOAT_DIGITS}')} AS {_V}{tag}_big")
        elif wide_int(dtype):
            inside = f"{quote(column)} BETWEEN -{FLOAT_EXACT_INT} AND {FLOAT_EXACT_INT}"
            out.append(f"{_count_if(f'NOT ({inside})')} AS {_V}{tag}_big")
        return out

    over = f"OVER (PARTITION BY {', '.join(quote(k) for k in a.keys)})" if a.keys else "OVER ()"
    w = f"CAST({quote(a.weight_name)} AS DOUBLE)" if a.weight_name is not None else None
    windows: dict[str, str] = {}

    def mean_m2(x: str, name: str, alias: str = "") -> list[str]:
        # fsum: DuckDB's compensated (Kahan) sum; its avg is a plain sum, 10x less accurate
        alias = alias or f"mean_{name}"
        if w is None:
            return [f"CAST(fsum({x}) / count({x}) AS DOUBLE) AS {alias}",
                    f"CAST(coalesce(var_pop({x}), 0.0) * count({x}) AS DOUBLE) AS m2_{name}"]
        windows[f"{_V}wm_{name}"] = f"sum({w} * {x}) {over} / sum({w}) {over}"
        return [f"CAST(fsum({w} * {x}) / fsum({w}) AS DOUBLE) AS {alias}",
                f"CAST(coalesce(sum({w} * ({x} - {_V}wm_{name}) ** 2), 0.0) AS DOUBLE) "
                f"AS m2_{name}"]

    def weighted(x: str) -> str:
        return x if w is None else f"{w} * {x}"

    assert a.y_pred_name is not None
    x = f"CAST({quote(a.y_pred_name)} AS DOUBLE)"
    # y_pred about a shift: the mean keeps its digits below the offset, and var_pop its own
    # (at 10¹² unshifted it was off by 10⁻⁵ relative)
    aggs = ["CAST(count(*) AS BIGINT) AS n", *engine._weight_aggs(a),
            *parts(a.y_pred_name, "pred"), f"CAST(min({SHIFT}) AS DOUBLE) AS {SHIFT}",
            *mean_m2(f"({x} - {SHIFT})", "pred", DMEAN)]
    if a.y_true_name is not None:
        y = f"CAST({quote(a.y_true_name)} AS DOUBLE)"
        r = f"({x} - {y})"
        mean_true = f"fsum({y}) / count({y})" if w is None else f"fsum({w} * {y}) / fsum({w})"
        aggs += [*parts(a.y_true_name, "true"), f"CAST({mean_true} AS DOUBLE) AS mean_true",
                 *mean_m2(r, "residual"),
                 f"CAST(coalesce(sum({weighted(f'abs({r})')}), 0.0) AS DOUBLE) "
                 "AS sum_abs_residual"]
    def fetch(shift: str) -> pl.DataFrame:
        # the shift, then the weighted mean of each row's group and M2 about it: one query
        relation = engine.relation.project(f"*, {shift} AS {SHIFT}")
        if windows:
            extra = ", ".join(f"{e} AS {n}" for n, e in windows.items())
            relation = relation.project(f"*, {extra}")
        table: pl.LazyFrame = replace(engine, relation=relation)._fetch(engine._keys(a), aggs)
        return table.collect()

    # first about the frame's first finite value (a constant: no window), then, only when a
    # group lies far from it, about each group's smallest value (a window over the keys)
    first = engine.relation.filter(f"isfinite({x})").project(x).limit(1).fetchall()
    out = fetch(f"CAST('{first[0][0] if first else 0.0!r}' AS DOUBLE)")
    if far_from_shift(out, weighted=w is not None):
        out = fetch(f"min({x}) {over}")
    return out.lazy()


def _spark(engine: Any, a: Audit) -> pl.LazyFrame:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from polars_fair.counting._spark import _aggs, _col, _collect, _count_if

    def parts(column: str, tag: str) -> list[Any]:
        x = _col(column).cast("double")
        out = [_count_if(x.isNull()).alias(f"{_V}{tag}_null"),
               _count_if(~F.isnan(x) & (F.abs(x) != F.lit(float("inf"))))
               .alias(f"{_V}{tag}_finite"),
               _count_if((x != 0) & (F.abs(x) < F.lit(FLOAT_SQUARE_MIN))).alias(f"{_V}{tag}_tiny")]
        dtype = a.pred_dtype if tag == "pred" else a.true_dtype
        if wide_decimal(dtype):  # the significant digits of its plain text
            text = F.regexp_replace(_col(column).cast("string"), "[-+.]", "")
            big = F.length(F.regexp_replace(text, "^0+|0+$", "")) > F.lit(FLOAT_DIGITS)
            out.append(_count_if(big).alias(f"{_V}{tag}_big"))
        elif wide_int(dtype):
            out.append(_count_if(~_col(column).between(-FLOAT_EXACT_INT, FLOAT_EXACT_INT))
                       .alias(f"{_V}{tag}_big"))
        return out

    window = Window.partitionBy(*[_col(k) for k in a.keys])
    w = _col(a.weight_name).cast("double") if a.weight_name is not None else None
    sdf = engine.spark_df

    def mean_m2(x: Any, name: str, alias: str = "") -> list[Any]:
        nonlocal sdf
        alias = alias or f"mean_{name}"
        if w is None:
            return [F.avg(x).cast("double").alias(alias),
                    (F.coalesce(F.var_pop(x), F.lit(0.0)) * F.count(x)).cast("double")
                    .alias(f"m2_{name}")]
        mean = F.sum(w * x).over(window) / F.sum(w).over(window)
        sdf = sdf.withColumn(f"{_V}wm_{name}", mean)
        return [(F.sum(w * x) / F.sum(w)).cast("double").alias(alias),
                F.coalesce(F.sum(w * (x - F.col(f"{_V}wm_{name}")) ** 2), F.lit(0.0))
                .cast("double").alias(f"m2_{name}")]

    assert a.y_pred_name is not None
    x = _col(a.y_pred_name).cast("double")
    # y_pred about each group's smallest value (a window over the keys): Spark's avg is a
    # plain sum, which loses the digits of a mean difference at a large offset
    sdf = sdf.withColumn(SHIFT, F.min(x).over(window))
    pilot = F.col(SHIFT)
    aggs = [*_aggs(a), *parts(a.y_pred_name, "pred"), F.min(pilot).cast("double").alias(SHIFT),
            *mean_m2(x - pilot, "pred", DMEAN)]
    if a.y_true_name is not None:
        y = _col(a.y_true_name).cast("double")
        r = x - y
        mean_true = F.avg(y) if w is None else F.sum(w * y) / F.sum(w)
        abs_r = F.abs(r) if w is None else w * F.abs(r)
        aggs += [*parts(a.y_true_name, "true"), mean_true.cast("double").alias("mean_true"),
                 *mean_m2(r, "residual"),
                 F.coalesce(F.sum(abs_r), F.lit(0.0)).cast("double").alias("sum_abs_residual")]
    return _collect(sdf, [_col(k) for k in a.keys], aggs).lazy()


def sql_moment_label_table(engine: Any, a: Audit) -> pl.LazyFrame:
    """The moment label table of a DuckDB relation or a Spark DataFrame, by one query.

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

    Examples
    --------
    >>> import duckdb
    >>> from polars_fair.counting.moments import resolve_moments
    >>> from polars_fair.counting.tables import engine_of
    >>> rel = duckdb.sql("SELECT * FROM (VALUES ('a', 1.0), ('a', 3.0)) t(g, rate)")
    >>> engine, a = resolve_moments(engine_of(rel), "g", {"y_pred": "rate"})
    >>> t = sql_moment_label_table(engine, a)
    >>> t.select("g", "__pf_shift_pred", "__pf_dmean_pred", "m2_pred").collect().rows()
    [('a', 1.0, 1.0, 2.0)]
    """
    if type(engine).__name__.startswith("Spark"):
        return _spark(engine, a)
    return _duckdb(engine, a)
