"""The membership table's scan on DuckDB and Spark: one aggregation in the engine, as in Polars.

The same sums, keys and validation counts as
:func:`polars_fair.counting.membership.membership_label_table`, written in SQL (DuckDB) and in
Spark columns: the rows get their probabilities, the most likely group (``__pf_argmax``, ties
to the group declared first) and the weight as projected columns, and one ``GROUP BY`` over the
wide rows sums them. The result goes through
:func:`polars_fair.counting.membership.membership_from_labels`, so validation, the null policy
and the estimators are the Polars code. Probability columns must be named (a ``pl.Expr`` is
refused there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core.spec import Audit
from polars_fair.counting import boundary
from polars_fair.counting.membership import (
    ARGMAX,
    FAMILIES,
    ROW_WEIGHTS,
    TOLERANCE,
    Membership,
    index_tuples,
)

__all__ = ["sql_membership_label_table"]

_V = "__pf_m_"


def _names(m: Membership, engine: str) -> list[str]:
    """The probability columns as names (a ``pl.Expr`` cannot run in DuckDB or Spark)."""
    for e, name in zip(m.exprs, m.columns, strict=True):
        if not e.meta.is_column() or e.meta.output_name() != name:
            raise E.InvalidArgumentError(E.MEMBERSHIP_ENGINE.format(engine=engine, value=str(e)))
    return list(m.columns)


def _products(k: int, families: Sequence[str], weighted: bool) -> list[tuple[str, str, list[int]]]:
    """(output name, family, indices) of every probability sum of the table."""
    return [(f + "_" + "_".join(map(str, t)), f, list(t)) for f in FAMILIES if f in families
            and not (f == "h" and not weighted and "g" in families)
            for t in index_tuples(k, FAMILIES[f])]


def _duckdb(engine: Any, a: Audit, m: Membership, families: Sequence[str],
            detail: bool, scale: float) -> pl.LazyFrame:
    from dataclasses import replace

    from polars_fair.counting._duckdb import _count_if, _double, _Group, quote

    cols = _names(m, "DuckDB")
    k = len(cols)
    r = [f"{_V}r{i}" for i in range(k)]
    w = f"CAST({quote(a.weight_name)} AS DOUBLE)" if a.weight_name is not None else "1.0"
    if scale != 1.0:  # a power of two (weight_scale): exact
        w = f"({w} * {_double(scale)})"
    first = ", ".join([*(f"CAST({quote(c)} AS DOUBLE) AS {x}" for c, x in zip(cols, r,
                                                                             strict=True)),
                       f"{w} AS {_V}w"])
    miss = "(" + " OR ".join(f"{x} IS NULL" for x in r) + ")"
    total = "(" + " + ".join(r) + ")"
    used = [f"CASE WHEN {miss} THEN 0.0 ELSE {x}{' / ' + total if m.normalize else ''} END "
            f"AS {_V}p{i}" for i, x in enumerate(r)]
    top = f"greatest({', '.join(r)})"
    argmax = ("CASE WHEN " + miss + " THEN NULL " + " ".join(
        f"WHEN {x} = {top} THEN {i}" for i, x in enumerate(r)) + " END")
    second = ", ".join([*used, f"CAST({argmax} AS BIGINT) AS {ARGMAX}",
                        f"{miss} AS {_V}miss", f"{total} AS {_V}total"])
    rel = engine.relation.project(f"*, {first}").project(f"*, {second}")
    finite = "(" + " AND ".join(f"coalesce(isfinite({x}), false)" for x in r) + ")"

    def outside(x: str) -> str:
        return f"({x} < 0.0)" if m.normalize else f"({x} < 0.0 OR {x} > 1.0)"

    off = f"{_V}total = 0.0" if m.normalize else f"abs({_V}total - 1.0) > {_double(TOLERANCE)}"
    each = list(enumerate(r)) if detail else []
    checks = [*(f"{_count_if(f'{x} IS NULL')} AS {_V}null_{i}" for i, x in each),
              *(f"{_count_if(f'isnan({x}) OR isinf({x})')} AS {_V}nan_{i}" for i, x in each),
              *(f"{_count_if(f'isfinite({x}) AND {outside(x)}')} AS {_V}range_{i}"
                for i, x in each),
              f"{_count_if(f'NOT {_V}miss AND {finite} AND {off}')} AS {_V}sum",
              f"{_count_if(f'NOT {_V}miss AND NOT {finite}')} AS {_V}nanrows",
              _count_if(f"NOT {_V}miss AND {finite} AND ("
                        + " OR ".join(outside(x) for x in r) + ")") + f" AS {_V}rangerows"]
    p = [f"{_V}p{i}" for i in range(k)]
    wt = f"{_V}w"
    sums = ["CAST(count(*) AS BIGINT) AS n", f"CAST(sum({wt}) AS DOUBLE) AS w",
            f"CAST(sum({wt} * {wt}) AS DOUBLE) AS w2"]
    for name, f, t in _products(k, families, a.weight_name is not None):
        if f == "c":
            sums.append(f"{_count_if(f'{p[t[0]]} > 0.0')} AS {name}")
            continue
        factors = [wt] if f in ("s", "g") else [wt, wt]
        sums.append(f"CAST(sum({' * '.join([*(p[j] for j in t), *factors])}) AS DOUBLE) "
                    f"AS {name}")
    if ROW_WEIGHTS in families and a.weight_name is not None:  # unweighted: copied from c
        sums += [f"CAST(coalesce(sum({wt}) FILTER (WHERE {x} > 0.0), 0.0) AS DOUBLE) "
                 f"AS {ROW_WEIGHTS}_{i}" for i, x in enumerate(p)]
    if a.score_name is not None:
        assert a.threshold is not None
        s = f"CAST({quote(a.score_name)} AS DOUBLE)"
        pred = f"({s} >= {_double(a.threshold)})"
        pred_group = _Group(pred, pred, boundary.P, None)
        checks += [f"{_count_if(f'{s} IS NULL')} AS __pf_s_null",
                   f"{_count_if(f'isnan({s})')} AS __pf_s_nan",
                   f"{_count_if(f'isinf({s})')} AS __pf_s_inf", *engine._big_scores(a)]
    else:
        assert a.y_pred_name is not None
        pred_group = engine._group(a.y_pred_name, boundary.P)
    groups = [*engine._keys(a), _Group(ARGMAX, ARGMAX, ARGMAX, None), *engine._labels(a),
              pred_group]
    out: pl.LazyFrame = replace(engine, relation=rel)._fetch(
        groups, [*sums, *engine._weight_aggs(a), *checks])
    return out


def _spark(engine: Any, a: Audit, m: Membership, families: Sequence[str],
           detail: bool, scale: float) -> pl.LazyFrame:
    import math
    from functools import reduce

    from pyspark.sql import functions as F

    from polars_fair.counting._spark import _aggs, _big_scores, _col, _collect, _count_if

    cols = _names(m, "Spark")
    k = len(cols)
    r = [_col(c).cast("double") for c in cols]
    miss = reduce(lambda x, y: x | y, [x.isNull() for x in r])
    total = reduce(lambda x, y: x + y, r)
    top = F.greatest(*r) if k > 1 else r[0]
    argmax = F.when(miss, F.lit(None))
    for i, x in enumerate(r):
        argmax = argmax.when(x == top, F.lit(i))
    w = _col(a.weight_name).cast("double") if a.weight_name is not None else F.lit(1.0)
    if scale != 1.0:  # a power of two (weight_scale): exact
        w = w * F.lit(scale)
    sdf = engine.spark_df.select(
        "*", *(x.alias(f"{_V}r{i}") for i, x in enumerate(r)), w.alias(f"{_V}w"),
        *(F.when(miss, F.lit(0.0)).otherwise(x / total if m.normalize else x)
          .alias(f"{_V}p{i}") for i, x in enumerate(r)),
        argmax.cast("long").alias(ARGMAX), miss.alias(f"{_V}miss"),
        total.alias(f"{_V}total"))
    rc = [F.col(f"{_V}r{i}") for i in range(k)]
    p = [F.col(f"{_V}p{i}") for i in range(k)]
    wt, mc, tc = F.col(f"{_V}w"), F.col(f"{_V}miss"), F.col(f"{_V}total")

    def finite1(x: Any) -> Any:
        return x.isNotNull() & ~F.isnan(x) & (F.abs(x) != F.lit(math.inf))

    def outside(x: Any) -> Any:
        return (x < F.lit(0.0)) if m.normalize else ((x < F.lit(0.0)) | (x > F.lit(1.0)))

    finite = reduce(lambda x, y: x & y, [finite1(x) for x in rc])
    off = (tc == F.lit(0.0)) if m.normalize else (F.abs(tc - F.lit(1.0)) > F.lit(TOLERANCE))
    each = list(enumerate(rc)) if detail else []
    checks = [*(_count_if(x.isNull()).alias(f"{_V}null_{i}") for i, x in each),
              *(_count_if(F.isnan(x) | (F.abs(x) == F.lit(math.inf))).alias(f"{_V}nan_{i}")
                for i, x in each),
              *(_count_if(finite1(x) & outside(x)).alias(f"{_V}range_{i}") for i, x in each),
              _count_if(~mc & finite & off).alias(f"{_V}sum"),
              _count_if(~mc & ~finite).alias(f"{_V}nanrows"),
              _count_if(~mc & finite & reduce(lambda x, y: x | y, [outside(x) for x in rc]))
              .alias(f"{_V}rangerows")]
    sums = [F.coalesce(F.sum(wt), F.lit(0.0)).cast("double").alias("w"),
            F.coalesce(F.sum(wt * wt), F.lit(0.0)).cast("double").alias("w2")]
    for name, f, t in _products(k, families, a.weight_name is not None):
        if f == "c":
            sums.append(_count_if(p[t[0]] > F.lit(0.0)).alias(name))
            continue
        prod = reduce(lambda x, y: x * y, [p[j] for j in t]) * (wt if f in ("s", "g")
                                                                else wt * wt)
        sums.append(F.coalesce(F.sum(prod), F.lit(0.0)).cast("double").alias(name))
    if ROW_WEIGHTS in families and a.weight_name is not None:  # unweighted: copied from c
        sums += [F.coalesce(F.sum(F.when(x > F.lit(0.0), wt)), F.lit(0.0)).cast("double")
                 .alias(f"{ROW_WEIGHTS}_{i}") for i, x in enumerate(p)]
    if a.score_name is not None:
        s = _col(a.score_name)
        pred = (s >= F.lit(a.threshold)).alias(boundary.P)
        sd = s.cast("double")
        checks += [_count_if(s.isNull()).alias("__pf_s_null"),
                   _count_if(F.isnan(sd)).alias("__pf_s_nan"),
                   _count_if(F.abs(sd) == F.lit(math.inf)).alias("__pf_s_inf"),
                   *_big_scores(a)]
    else:
        assert a.y_pred_name is not None
        pred = _col(a.y_pred_name).alias(boundary.P)
    labels = [_col(a.y_true_name).alias(boundary.Y)] if a.y_true_name is not None else []
    groups = [*(_col(k) for k in a.keys), F.col(ARGMAX), *labels, pred]
    return _collect(sdf, groups, [*_aggs(a), *sums, *checks]).lazy()


def sql_membership_label_table(engine: Any, a: Audit, m: Membership,
                               families: Sequence[str], *, detail: bool = True,
                               scale: float = 1.0) -> pl.LazyFrame:
    """The membership table's scan of a DuckDB relation or a Spark DataFrame, by one query.

    Parameters
    ----------
    engine : DuckDBEngine or SparkEngine
        The rows (:func:`polars_fair.counting.tables.engine_of`).
    a : Audit
        The resolved call.
    m : Membership
        The parsed membership arguments; its probabilities must be column names.
    families : sequence of str
        The sum families to compute.
    detail : bool, default True
        Also count bad values per probability column (see
        :func:`polars_fair.counting.membership.membership_label_table`).
    scale : float, default 1.0
        Multiply every weight by it before summing (a power of two:
        :func:`polars_fair.counting.membership.weight_scale`).

    Returns
    -------
    pl.LazyFrame
        The columns of :func:`polars_fair.counting.membership.membership_label_table`
        (computed in the engine, in memory).

    Raises
    ------
    InvalidArgumentError
        A probability given as an expression rather than a column name.

    Examples
    --------
    >>> import duckdb
    >>> from polars_fair.core.spec import resolve
    >>> from polars_fair.counting.membership import parse_membership
    >>> from polars_fair.counting.tables import engine_of
    >>> rel = duckdb.sql("SELECT * FROM (VALUES (1, 1, 0.25, 0.75)) t(y_true, y_pred, pa, pb)")
    >>> engine = engine_of(rel)
    >>> m = parse_membership({"g": {"a": "pa", "b": "pb"}})
    >>> t = sql_membership_label_table(engine, resolve(engine.schema(), None), m, ("s",))
    >>> t.select("__pf_argmax", "n", "s_0", "s_1").collect().rows()
    [(1, 1, 0.25, 0.75)]
    """
    if type(engine).__name__.startswith("Spark"):
        return _spark(engine, a, m, families, detail, scale)
    return _duckdb(engine, a, m, families, detail, scale)
