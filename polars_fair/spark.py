"""The count stage inside Spark: audit a Spark DataFrame, bring back only the small count table.

The only work in polars_fair that grows with the rows is one group-by into additive sums
(see :mod:`polars_fair.tables`). This module runs that group-by in Spark, with the same sums and
validation aggregates as the Polars path, per finest group:

* ``n`` (rows), ``Σy``, ``Σŷ``, ``Σy·ŷ`` (Int64; Float64 weighted sums and ``weight_sum`` with
  ``sample_weight``);
* the null counts of ``y_true`` and ``y_pred``, the min and max of their values other than
  ``pos_label``, the null/NaN/negative weight counts and the null/NaN/infinite score counts.

Only that table (one row per group) leaves Spark, through Arrow (``DataFrame.toArrow()``), as a
Polars frame. It holds exactly the internal columns that :mod:`polars_fair.tables` builds
(``__pf_sy``, ``__pf_y_null``, ``__pf_y_min``, ...), and the Polars checks
(:func:`~polars_fair.tables.check_labels`, :func:`~polars_fair.tables.apply_group_policy`) run
on it, so an error on bad input has the same class and the same message as with ``df.fair``.
The call is resolved by :func:`polars_fair.tables.resolve` itself, on an empty Polars frame
whose schema is the Spark schema mapped to Polars dtypes (:func:`polars_schema`): missing
columns, ``pos_label`` of the wrong type, non-numeric weights and scores raise before Spark
runs anything. Everything after the count table (rates, disparity, intervals, pairs, ABROCA,
calibration) is the Polars/numpy code of :func:`polars_fair.from_counts` and
:func:`polars_fair.from_scores`, so the results equal ``df.fair``'s on the same rows.

Why the PySpark API and not narwhals: narwhals supports PySpark only as a lazy backend, and
the count stage needs conditional sums (``sum(when(y == pos, w))``), a min/max over the values
that are not ``pos_label``, ``isnan`` counts and an explicit hand-off of the result through
Arrow. All of these are one call each in ``pyspark.sql.functions``, which is the engine's own,
stable API (Spark Classic and Spark Connect alike); going through narwhals would add a
dependency and a translation layer to save about twenty lines, and the error paths would be
harder to keep identical. pyspark is imported lazily, so ``import polars_fair.spark`` works
without it (an ``ImportError`` naming the extra is raised at the first call).

Example (a complete session; any SparkSession works, local or on a cluster)::

    from pyspark.sql import SparkSession
    import polars_fair.spark as pfs

    spark = SparkSession.builder.master("local[2]").getOrCreate()
    sdf = spark.read.parquet("decisions.parquet")
    pfs.report(sdf, by=["race", "sex"], y_true="label", y_pred="decision")   # a pl.DataFrame
    pfs.abroca(sdf, "race", y_true="label", y_score="score", round_scores=3)

Requires ``pip install "polars_fair[spark]"`` (PySpark with ``DataFrame.toArrow``, 4.0 or
later; on 3.5 the private ``_collect_as_arrow`` is used instead).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import polars as pl

from polars_fair import errors as E
from polars_fair import tables
from polars_fair.counts import FairCounts, FairScores, from_counts, from_scores
from polars_fair.tables import Audit, NullGroups

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql.types import DataType

    SparkInto = str | Column
    SparkBy = SparkInto | Sequence[SparkInto] | None

__all__ = [
    "abroca",
    "abroca_test",
    "calibration",
    "confusion",
    "disparity",
    "metrics",
    "pairwise",
    "polars_schema",
    "rates",
    "reliability",
    "report",
    "scores",
    "summary",
]

_Fn = TypeVar("_Fn", bound=Callable[..., Any])
_V = "__pf_"
PYSPARK_MISSING = (
    "polars_fair.spark needs PySpark; install the extra: pip install 'polars_fair[spark]'"
)


def _require_pyspark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without pyspark
        raise ImportError(PYSPARK_MISSING) from exc


# ---------------------------------------------------------------------------------------------
# schema: Spark types -> Polars dtypes, so that tables.resolve can check the call
# ---------------------------------------------------------------------------------------------


def _polars_dtype(t: DataType) -> pl.DataType:
    from pyspark.sql import types as T

    simple: list[tuple[type[Any], pl.DataType]] = [
        (T.BooleanType, pl.Boolean()),
        (T.ByteType, pl.Int8()),
        (T.ShortType, pl.Int16()),
        (T.IntegerType, pl.Int32()),
        (T.LongType, pl.Int64()),
        (T.FloatType, pl.Float32()),
        (T.DoubleType, pl.Float64()),
        (T.StringType, pl.String()),
        (T.BinaryType, pl.Binary()),
        (T.DateType, pl.Date()),
        (T.TimestampNTZType, pl.Datetime("us")),
        (T.TimestampType, pl.Datetime("us", "UTC")),  # toArrow() uses timezone="UTC"
        (T.DayTimeIntervalType, pl.Duration("us")),
        (T.NullType, pl.Null()),
    ]
    for name in ("CharType", "VarcharType"):  # not in every PySpark version
        if hasattr(T, name):
            simple.append((getattr(T, name), pl.String()))
    for cls, dtype in simple:
        if isinstance(t, cls):
            return dtype
    if isinstance(t, T.DecimalType):
        return pl.Decimal(t.precision, t.scale)
    if isinstance(t, T.ArrayType):
        return pl.List(_polars_dtype(t.elementType))
    if isinstance(t, T.StructType):
        return pl.Struct({f.name: _polars_dtype(f.dataType) for f in t.fields})
    if isinstance(t, T.MapType):
        return pl.List(pl.Struct({"key": _polars_dtype(t.keyType),
                                  "value": _polars_dtype(t.valueType)}))
    return pl.Object()


def polars_schema(spark_df: SparkDataFrame) -> pl.Schema:
    """The Polars schema that a Spark DataFrame's columns have once they come back through Arrow.

    Reads ``spark_df.schema`` only (no Spark job). Used to resolve and check a call with
    :func:`polars_fair.tables.resolve` before Spark runs, so that schema errors (a missing
    column, a ``pos_label`` of the wrong type, a non-numeric weight) read exactly as for a
    Polars frame.

    ================================= ================================================
    Spark type                        Polars dtype
    ================================= ================================================
    Boolean                           Boolean
    Byte, Short, Integer, Long        Int8, Int16, Int32, Int64
    Float, Double                     Float32, Float64
    Decimal(p, s)                     Decimal(p, s)
    String, Char, Varchar             String
    Binary                            Binary
    Date                              Date
    Timestamp, TimestampNTZ           Datetime("us", "UTC"), Datetime("us")
    DayTimeInterval                   Duration("us")
    Array, Struct, Map                List, Struct, List(Struct(key, value))
    other                             Object
    ================================= ================================================

    Parameters
    ----------
    spark_df : pyspark.sql.DataFrame

    Returns
    -------
    pl.Schema
        Column names in Spark's order with their Polars dtypes.

    Examples
    --------
    >>> from polars_fair.spark import polars_schema
    >>> polars_schema(spark.createDataFrame([(1, "a")], "y long, g string"))  # doctest: +SKIP
    Schema([('y', Int64), ('g', String)])
    """
    return pl.Schema({f.name: _polars_dtype(f.dataType) for f in spark_df.schema.fields})


# ---------------------------------------------------------------------------------------------
# resolving a call: columns (names or Spark Columns) -> names, then tables.resolve
# ---------------------------------------------------------------------------------------------


def _col(name: str) -> Column:
    """A reference to the column ``name`` itself (dots and spaces are not paths)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _bind(spark_df: SparkDataFrame, x: Any) -> tuple[SparkDataFrame, str]:
    """A column name as is; a Spark Column is added to the frame under its output name."""
    if isinstance(x, str):
        return spark_df, x
    from pyspark.sql import Column

    if isinstance(x, Column):
        name = spark_df.select(x).columns[0]
        return spark_df.withColumn(name, x), name
    raise E.InvalidArgumentError(
        f"polars_fair.spark takes column names (str) or pyspark Columns, got {type(x).__name__}"
    )


def _by_list(by: Any) -> list[Any]:
    if by is None:
        return []
    if isinstance(by, str):
        return [by]
    from pyspark.sql import Column

    if isinstance(by, Column):
        return [by]
    return list(by)


def _check_round(round_scores: int | None) -> None:
    if round_scores is not None and (
        isinstance(round_scores, bool) or not isinstance(round_scores, int) or round_scores < 0
    ):
        raise E.InvalidArgumentError(
            f"round_scores must be a non-negative int (decimal places) or None, got {round_scores!r}"
        )


def _resolve(
    spark_df: SparkDataFrame,
    by: Any,
    *,
    y_true: Any,
    y_pred: Any,
    pos_label: Any,
    sample_weight: Any,
    null_groups: NullGroups,
    y_score: Any,
    threshold: float | None,
) -> tuple[SparkDataFrame, Audit]:
    """Bind Spark Columns to names and resolve the call exactly as the Polars path does."""
    _require_pyspark()
    from pyspark.sql import DataFrame

    if not isinstance(spark_df, DataFrame):
        raise TypeError(f"expected a pyspark.sql.DataFrame, got {type(spark_df).__name__}")
    names: list[str] = []
    for b in _by_list(by):
        spark_df, name = _bind(spark_df, b)
        names.append(name)
    bound: dict[str, Any] = {}
    for role, x in (("y_true", y_true), ("y_pred", y_pred), ("y_score", y_score),
                    ("sample_weight", sample_weight)):
        if x is None:
            bound[role] = None
        else:
            spark_df, bound[role] = _bind(spark_df, x)
    empty = pl.LazyFrame(schema=polars_schema(spark_df))
    audit = tables.resolve(
        empty, names, y_true=bound["y_true"], y_pred=bound["y_pred"], pos_label=pos_label,
        sample_weight=bound["sample_weight"], null_groups=null_groups, y_score=bound["y_score"],
        threshold=threshold,
    )
    return spark_df, audit


# ---------------------------------------------------------------------------------------------
# the aggregates, as pyspark Columns (mirrors tables._sum_aggs / _validation_aggs)
# ---------------------------------------------------------------------------------------------


def _is_positive(column: Column, pos: Any) -> Column:
    """``column == pos`` (null stays null); ``pos is True`` casts to boolean, as Polars does."""
    from pyspark.sql import functions as F

    if pos is True:
        return column.cast("boolean")
    return column == F.lit(pos)


def _count_if(cond: Column) -> Column:
    """Rows where ``cond`` is true (a null condition counts as false); 0 for no rows."""
    from pyspark.sql import functions as F

    return F.coalesce(F.sum(F.when(cond, F.lit(1)).otherwise(F.lit(0))), F.lit(0)).cast("long")


def _weighted_sum(cond: Column | None, w: Column) -> Column:
    """``Σ w`` over the rows where ``cond`` holds (all rows when ``cond`` is None); 0.0 when none."""
    from pyspark.sql import functions as F

    term = w if cond is None else F.when(cond, w).otherwise(F.lit(0.0))
    return F.coalesce(F.sum(term), F.lit(0.0)).cast("double")


def _label_columns(a: Audit, threshold: float | None) -> tuple[Column, Column]:
    from pyspark.sql import functions as F

    y = _col(a.y_true_name)
    if a.y_pred_role == "y_score":
        assert a.score_name is not None and threshold is not None
        return y, _col(a.score_name) >= F.lit(float(threshold))
    return y, _col(a.y_pred_name)


def _weight(a: Audit) -> Column | None:
    return None if a.weight_name is None else _col(a.weight_name).cast("double")


def _weight_check_aggs(w: Column) -> list[Column]:
    from pyspark.sql import functions as F

    return [
        _count_if(w.isNull()).alias(f"{_V}w_null"),
        _count_if(F.isnan(w) | (F.abs(w) == F.lit(math.inf))).alias(f"{_V}w_nan"),
        _count_if(w < F.lit(0.0)).alias(f"{_V}w_neg"),
    ]


def _other_values(column: Column, pos: Any, tag: str) -> list[Column]:
    """Min and max of the values that are not ``pos`` (the label checks' evidence)."""
    from pyspark.sql import functions as F

    other = F.when(column != F.lit(pos), column)
    return [F.min(other).alias(f"{_V}{tag}_min"), F.max(other).alias(f"{_V}{tag}_max")]


def _count_aggs(a: Audit, threshold: float | None) -> list[Column]:
    """``tables._sum_aggs + tables._validation_aggs (+ _score_check_aggs)`` in Spark."""
    from pyspark.sql import functions as F

    y_col, p_col = _label_columns(a, threshold)
    y, p = _is_positive(y_col, a.pos_true), _is_positive(p_col, a.pos_pred)
    w = _weight(a)
    aggs = [F.count(F.lit(1)).cast("long").alias("n")]
    if w is None:
        aggs += [
            _count_if(y).alias(f"{_V}sy"),
            _count_if(p).alias(f"{_V}sp"),
            _count_if(y & p).alias(f"{_V}syp"),
        ]
    else:
        aggs += [
            _weighted_sum(None, w).alias("weight_sum"),
            _weighted_sum(y, w).alias(f"{_V}sy"),
            _weighted_sum(p, w).alias(f"{_V}sp"),
            _weighted_sum(y & p, w).alias(f"{_V}syp"),
        ]
    aggs += [_count_if(y_col.isNull()).alias(f"{_V}y_null"),
             _count_if(p_col.isNull()).alias(f"{_V}p_null")]
    if a.float_true:
        aggs.append(_count_if(F.isnan(y_col)).alias(f"{_V}y_nan"))
    if a.float_pred and a.score_name is None:
        aggs.append(_count_if(F.isnan(p_col)).alias(f"{_V}p_nan"))
    if a.check_true:
        aggs += _other_values(y_col, a.pos_true, "y")
    if a.check_pred:
        aggs += _other_values(p_col, a.pos_pred, "p")
    if w is not None:
        aggs += _weight_check_aggs(w)
    if a.score_name is not None:
        s = _col(a.score_name).cast("double")
        aggs += [
            _count_if(s.isNull()).alias(f"{_V}s_null"),
            _count_if(F.isnan(s)).alias(f"{_V}s_nan"),
            _count_if(F.abs(s) == F.lit(math.inf)).alias(f"{_V}s_inf"),
        ]
    return aggs


def _collect(spark_df: SparkDataFrame, groups: list[Column], aggs: list[Column]) -> pl.DataFrame:
    """Run one Spark aggregation and bring the (small) result back through Arrow."""
    grouped = spark_df.groupBy(*groups).agg(*aggs) if groups else spark_df.agg(*aggs)
    if hasattr(grouped, "toArrow"):  # PySpark >= 4.0
        out = pl.from_arrow(grouped.toArrow())
    else:  # pragma: no cover - PySpark 3.5: the private method toArrow() wraps in 4.0
        from pyspark.sql.pandas.types import to_arrow_schema

        batches = getattr(grouped, "_collect_as_arrow")()  # noqa: B009
        out = pl.from_arrow(batches) if batches \
            else pl.from_arrow(to_arrow_schema(grouped.schema).empty_table())
    assert isinstance(out, pl.DataFrame)
    return out


# ---------------------------------------------------------------------------------------------
# public API: the two tables
# ---------------------------------------------------------------------------------------------

_COMMON = """spark_df : pyspark.sql.DataFrame
        The rows; they stay in Spark. One Spark aggregation builds the count table; only that
        table (one row per group) comes to the driver, through Arrow, and every step after it
        runs in Polars.
    by : str, pyspark Column, or a list of them
        The attribute(s) defining the groups; several entries mean their intersection
        (``["race", "sex"]``). ``None`` or ``[]``: one row for the whole population. A Column
        expression is added to the frame under its output name (use ``.alias``).
    y_true : str or pyspark Column, default ``"y_true"``
        The true label column.
    y_pred : str or pyspark Column, default ``"y_pred"``
        The predicted label column.
    pos_label : Any, default 1
        The value meaning the positive (favourable) outcome, of the columns' type
        (``1``, ``"yes"``, ``True``, ...). Each column must hold it and at most one other value.
    sample_weight : str or pyspark Column, optional
        Row weights (numeric). The four cells become Float64 weighted sums, ``n`` stays the row
        count and ``weight_sum`` is added.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows whose attribute is null: a group of their own, an error, or dropped with a
        warning that gives their number.
    y_score, threshold : str or pyspark Column, float, optional
        Instead of ``y_pred``: predictions are ``y_score >= threshold``."""

_COMBINATIONS = """combinations : "all", optional
        Audit every non-empty subset of the ``by`` attributes, up to ``max_order`` attributes:
        Spark computes the finest count table once, the coarser sets are summed from it in
        Polars (a flat ``by`` only).
    max_order : int, optional
        The largest intersection with ``combinations="all"``."""

_ERRORS = """ColumnNotFoundError
        A named column is missing (the message lists the columns); raised before Spark runs.
    InvalidLabelError
        A label/prediction column holds values other than ``pos_label`` and one other value, a
        prediction column holds scores, ``pos_label`` occurs in neither column, or has the
        wrong type (before Spark runs).
    NullValuesError
        Nulls in the label or prediction column.
    EmptyFrameError
        No rows to audit.
    NullGroupError, TooManyLevelsError, InvalidWeightError, InvalidScoreError
        As for ``df.fair`` (see :mod:`polars_fair.errors`); same classes, same messages.
    ImportError
        PySpark is not installed."""

_SCORE_COMMON = """spark_df : pyspark.sql.DataFrame
        The rows; they stay in Spark. One Spark aggregation builds the count table; only that
        table (one row per group) comes to the driver, through Arrow, and every step after it
        runs in Polars.
    by : str, pyspark Column, or a list of them
        The attribute(s) defining the groups (their intersection); ``None`` or ``[]``: the
        whole population.
    y_true : str or pyspark Column, default ``"y_true"``
    y_score : str or pyspark Column, default ``"y_score"``
        A numeric score, higher = more likely positive.
    pos_label : Any, default 1
    null_groups : {"keep", "raise", "drop"}, default "keep"
    round_scores : int, optional
        Round the scores to this many decimals in Spark (``round``, half up) before counting,
        so that a continuous score gives a small table. Every result is then exact for the
        rounded scores; without rounding the score table has one row per distinct score and
        group and is exact for the scores as they are."""

_SCORE_ERRORS = """InvalidScoreError
        Null, NaN or infinite scores (their counts), or a non-numeric score column.
    ColumnNotFoundError, InvalidLabelError, NullValuesError, EmptyFrameError, NullGroupError
        As in :func:`confusion`.
    InvalidArgumentError
        ``round_scores`` that is not a non-negative int."""


def _doc(func: _Fn) -> _Fn:
    if func.__doc__:
        for tag, text in (("{COMMON}", _COMMON), ("{COMBINATIONS}", _COMBINATIONS),
                          ("{ERRORS}", _ERRORS), ("{SCORE_COMMON}", _SCORE_COMMON),
                          ("{SCORE_ERRORS}", _SCORE_ERRORS)):
            func.__doc__ = func.__doc__.replace(tag, text)
    return func


@_doc
def confusion(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_pred: SparkInto | None = "y_pred",
    pos_label: Any = 1,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    y_score: SparkInto | None = None,
    threshold: float | None = None,
) -> pl.DataFrame:
    """The count table of a Spark DataFrame: one Spark group-by, the result as a Polars frame.

    Spark computes, per group, ``n``, ``Σy``, ``Σŷ``, ``Σy·ŷ`` and the validation aggregates
    in one aggregation; only that table (one row per group) is sent to the driver through
    Arrow. Polars then checks it with the checks of ``df.fair.confusion`` and derives
    ``tp = Σy·ŷ``, ``fp = Σŷ − tp``, ``fn = Σy − tp``, ``tn = n − Σy − Σŷ + tp``. The result
    equals ``pl_df.fair.confusion(by, ...)`` on the same rows (key dtypes are those the Spark
    columns have through Arrow: a Spark string is String, never Categorical/Enum).

    Parameters
    ----------
    {COMMON}

    Returns
    -------
    pl.DataFrame
        One row per group, sorted by the keys (nulls last): the key columns, then
        ``n, tp, fp, fn, tn`` (Int64; with ``sample_weight`` the four cells are Float64
        weighted sums followed by ``weight_sum`` Float64). The public count-table schema, so
        :func:`polars_fair.from_counts` audits it.

    Raises
    ------
    {ERRORS}

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> sdf = spark.read.parquet("compas.parquet")  # doctest: +SKIP
    >>> pfs.confusion(sdf, ["race", "sex"], y_true="two_year_recid")  # doctest: +SKIP
    shape: (12, 7)
    ...
    """
    spark_df, a = _resolve(
        spark_df, by, y_true=y_true, y_pred=y_pred, pos_label=pos_label,
        sample_weight=sample_weight, null_groups=null_groups, y_score=y_score, threshold=threshold,
    )
    raw = _collect(spark_df, [_col(k) for k in a.keys], _count_aggs(a, threshold))
    tables.check_labels(raw, a)
    raw = tables.apply_group_policy(raw, a)
    sy, sp, syp = pl.col(f"{_V}sy"), pl.col(f"{_V}sp"), pl.col(f"{_V}syp")
    weighted = a.weight_name is not None
    total = pl.col("weight_sum") if weighted else pl.col("n")
    cell = pl.Float64 if weighted else pl.Int64
    out = raw.select(
        *a.keys,
        pl.col("n").cast(pl.Int64),
        syp.cast(cell).alias("tp"),
        (sp - syp).cast(cell).alias("fp"),
        (sy - syp).cast(cell).alias("fn"),
        (total - sy - sp + syp).cast(cell).alias("tn"),
        *([pl.col("weight_sum").cast(pl.Float64)] if weighted else []),
    )
    return out.sort(a.keys, nulls_last=True) if a.keys else out


def scores(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_score: SparkInto = "y_score",
    pos_label: Any = 1,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    round_scores: int | None = None,
) -> pl.DataFrame:
    """The score table of a Spark DataFrame: one row per (group, distinct score).

    One Spark group-by over the keys and ``score`` (the score cast to double, optionally
    rounded) counts positives and rows (or weight sums) with the label checks; the table
    comes back through Arrow and is checked as ``df.fair.scores`` checks it. It is the input
    of every score-based analysis (ROC curves, AUC, exact ABROCA, the permutation test,
    calibration), which run in numpy on this table via :func:`polars_fair.from_scores`.

    Its size is the number of distinct (group, score) pairs: small for a decile score, as
    large as the data for a continuous score with many digits. Pass ``round_scores`` then.

    Parameters
    ----------
    {SCORE_COMMON}
    sample_weight : str or pyspark Column, optional
        Row weights: ``positives``/``negatives`` become Float64 weight sums and ``n_rows``
        (Int64) is added.

    Returns
    -------
    pl.DataFrame
        Keys; ``score`` (Float64); ``positives``, ``negatives`` (Int64, or Float64 weight sums
        followed by ``n_rows`` Int64), sorted by keys then score (nulls last). Equals
        ``pl_df.fair.scores(by, ...)`` on the same rows when ``round_scores`` is None.

    Raises
    ------
    {SCORE_ERRORS}

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> sdf = spark.read.parquet("adult-scored.parquet")  # doctest: +SKIP
    >>> pfs.scores(sdf, "race", y_score="y_score", round_scores=3)  # doctest: +SKIP
    """
    _check_round(round_scores)
    spark_df, a = _resolve(
        spark_df, by, y_true=y_true, y_pred=None, pos_label=pos_label,
        sample_weight=sample_weight, null_groups=null_groups, y_score=y_score,
        threshold=math.inf,
    )
    from pyspark.sql import functions as F

    assert a.score_name is not None
    s = _col(a.score_name).cast("double")
    if round_scores is not None:
        s = F.round(s, round_scores)
    y_col = _col(a.y_true_name)
    y = _is_positive(y_col, a.pos_true)
    w = _weight(a)
    aggs = [F.count(F.lit(1)).cast("long").alias("n")]
    if w is None:
        aggs += [_count_if(y).alias("positives")]
    else:
        aggs += [_weighted_sum(y, w).alias("positives"), _weighted_sum(None, w).alias(f"{_V}wsum")]
    aggs += [_count_if(y_col.isNull()).alias(f"{_V}y_null")]
    if a.float_true:
        aggs.append(_count_if(F.isnan(y_col)).alias(f"{_V}y_nan"))
    if a.check_true:
        aggs += _other_values(y_col, a.pos_true, "y")
    if w is not None:
        aggs += _weight_check_aggs(w)
    raw = _collect(spark_df, [*[_col(k) for k in a.keys], s.alias("score")], aggs)
    raw = tables.check_score_table(raw, a)
    if w is None:
        cols = [pl.col("positives").cast(pl.Int64),
                (pl.col("n") - pl.col("positives")).cast(pl.Int64).alias("negatives")]
    else:
        cols = [pl.col("positives"), (pl.col(f"{_V}wsum") - pl.col("positives")).alias("negatives"),
                pl.col("n").cast(pl.Int64).alias("n_rows")]
    out = raw.select(*a.keys, pl.col("score").cast(pl.Float64), *cols)
    return out.sort([*a.keys, "score"], nulls_last=True)


# ---------------------------------------------------------------------------------------------
# public API: analyses on the tables (Polars / numpy on the driver)
# ---------------------------------------------------------------------------------------------


def _counts(
    spark_df: SparkDataFrame, by: Any, combinations: Literal["all"] | None, **kwargs: Any
) -> tuple[FairCounts, list[str]]:
    if isinstance(by, (list, tuple)) and any(isinstance(b, (list, tuple)) for b in by):
        raise E.InvalidArgumentError(
            "polars_fair.spark takes a flat list of attributes in by=; for several attribute "
            "sets pass combinations='all' (and max_order=)"
        )
    table = confusion(spark_df, by, **kwargs)
    keys = table.columns[: table.columns.index("n")]
    return from_counts(table, keys=keys), keys


def _fair_scores(table: pl.DataFrame) -> FairScores:
    keys = table.columns[: table.columns.index("score")]
    return from_scores(table, keys=keys)


@_doc
def rates(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_pred: SparkInto | None = "y_pred",
    pos_label: Any = 1,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    y_score: SparkInto | None = None,
    threshold: float | None = None,
    combinations: Literal["all"] | None = None,
    max_order: int | None = None,
) -> pl.DataFrame:
    """Classification rates per group: the count table from Spark, the rates from Polars.

    ``selection_rate`` (TP+FP)/n, ``base_rate`` (TP+FN)/n, ``tpr`` TP/(TP+FN), ``fpr``
    FP/(FP+TN), ``tnr``, ``fnr``, ``ppv`` TP/(TP+FP), ``npv``, ``accuracy`` (TP+TN)/n and
    ``marginal_benefit`` (FP−FN)/n, as ``df.fair.rates``; via
    ``from_counts(confusion(...)).rates()``.

    Parameters
    ----------
    {COMMON}
    {COMBINATIONS}

    Returns
    -------
    pl.DataFrame
        Keys, ``n`` (Int64), then the rates (Float64 in [0, 1]; marginal benefit in [−1, 1];
        null where the denominator is 0). With ``combinations``: ``attributes`` first.

    Raises
    ------
    {ERRORS}

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.rates(sdf, "race", y_true="two_year_recid")  # doctest: +SKIP
    """
    fc, _ = _counts(spark_df, by, combinations, y_true=y_true, y_pred=y_pred,
                    pos_label=pos_label, sample_weight=sample_weight, null_groups=null_groups,
                    y_score=y_score, threshold=threshold)
    return fc.rates(combinations=combinations, max_order=max_order).collect()


@_doc
def report(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_pred: SparkInto | None = "y_pred",
    pos_label: Any = 1,
    reference: Any = "largest",
    min_support: int = 30,
    ofi_threshold: float = 0.3,
    four_fifths: float = 0.8,
    exclude_low_support: bool = False,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    y_score: SparkInto | None = None,
    threshold: float | None = None,
    combinations: Literal["all"] | None = None,
    max_order: int | None = None,
) -> pl.DataFrame:
    """The per-group fairness report of a Spark DataFrame (``df.fair.report`` on Spark rows).

    Spark builds the count table (:func:`confusion`); Polars computes the rates, disparate
    impact (selection rate / the reference's), the impact ratio of the four-fifths rule
    (29 CFR 1607.4(D)), OFI = B_group − B_reference with B = (FP−FN)/n (Briscoe et al.), the
    support flag and the finding, via ``from_counts(confusion(...)).report(...)``.

    Parameters
    ----------
    {COMMON}
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        As in ``df.fair.report``.
    min_support : int, default 30
    ofi_threshold : float, default 0.3
    four_fifths : float, default 0.8
    exclude_low_support : bool, default False
    {COMBINATIONS}

    Returns
    -------
    pl.DataFrame
        One row per group sorted by the keys: keys; ``n, tp, fp, fn, tn`` (Int64; Float64
        cells and ``weight_sum`` when weighted); the rates (Float64); ``is_reference``
        (Boolean); ``disparate_impact``, ``impact_ratio`` (Float64); ``adverse_impact``
        (Boolean); ``ofi`` (Float64 in [−2, 2]); ``ofi_flag``, ``low_support`` (Boolean);
        ``finding`` (String). Equal to ``pl_df.fair.report(by, ...)`` on the same rows.

    Raises
    ------
    {ERRORS}
    UnknownGroupError
        An explicit ``reference`` that is not a group.

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> sdf = spark.read.parquet("compas.parquet")  # doctest: +SKIP
    >>> pfs.report(sdf, by=["race", "sex"], reference={"race": "Caucasian", "sex": "Male"})  # doctest: +SKIP
    """
    fc, _ = _counts(spark_df, by, combinations, y_true=y_true, y_pred=y_pred,
                    pos_label=pos_label, sample_weight=sample_weight, null_groups=null_groups,
                    y_score=y_score, threshold=threshold)
    return fc.report(
        reference=reference, min_support=min_support, ofi_threshold=ofi_threshold,
        four_fifths=four_fifths, exclude_low_support=exclude_low_support,
        combinations=combinations, max_order=max_order,
    ).collect()


@_doc
def metrics(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_pred: SparkInto | None = "y_pred",
    pos_label: Any = 1,
    level: float = 0.95,
    min_support: int = 30,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    y_score: SparkInto | None = None,
    threshold: float | None = None,
    combinations: Literal["all"] | None = None,
    max_order: int | None = None,
) -> pl.DataFrame:
    """Tidy metrics with Wilson intervals, from a Spark DataFrame (``df.fair.metrics``).

    Parameters
    ----------
    {COMMON}
    level : float, default 0.95
        Confidence level of the intervals, in (0, 1); checked before Spark runs.
    min_support : int, default 30
        A metric whose own denominator is below this is flagged ``low_support``.
    {COMBINATIONS}

    Returns
    -------
    pl.DataFrame
        keys; ``metric`` (String); ``numerator``, ``denominator`` (Int64; Float64 weighted);
        ``value``, ``ci_low``, ``ci_high`` (Float64, rates in [0, 1]); ``low_support``
        (Boolean).

    Raises
    ------
    {ERRORS}
    InvalidArgumentError
        ``level`` outside (0, 1).

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.metrics(sdf, "race", y_true="two_year_recid", level=0.9)  # doctest: +SKIP
    """
    if not 0 < level < 1:
        raise E.InvalidArgumentError(f"level must lie in (0, 1), got {level}")
    fc, _ = _counts(spark_df, by, combinations, y_true=y_true, y_pred=y_pred,
                    pos_label=pos_label, sample_weight=sample_weight, null_groups=null_groups,
                    y_score=y_score, threshold=threshold)
    return fc.metrics(level=level, min_support=min_support, combinations=combinations,
                      max_order=max_order).collect()


@_doc
def disparity(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_pred: SparkInto | None = "y_pred",
    pos_label: Any = 1,
    reference: Any = "largest",
    metric: str = "selection_rate",
    level: float = 0.95,
    test: Literal["auto", "z", "fisher"] = "auto",
    adjust: Literal["holm", "bh"] = "holm",
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    y_score: SparkInto | None = None,
    threshold: float | None = None,
    combinations: Literal["all"] | None = None,
    max_order: int | None = None,
) -> pl.DataFrame:
    """Each group's rate against the reference with intervals and adjusted tests, from Spark.

    Newcombe interval of the difference, log interval of the ratio, z-test or Fisher's exact
    test, Holm or Benjamini–Hochberg adjustment: ``df.fair.disparity`` on the count table.

    Parameters
    ----------
    {COMMON}
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
    metric : str, default "selection_rate"
    level : float, default 0.95
    test : {"auto", "z", "fisher"}, default "auto"
    adjust : {"holm", "bh"}, default "holm"
    {COMBINATIONS}

    Returns
    -------
    pl.DataFrame
        keys; ``metric``; ``numerator``, ``denominator``, ``reference_numerator``,
        ``reference_denominator``; ``value``, ``reference_value``, ``difference``,
        ``difference_ci_low``, ``difference_ci_high``, ``ratio``, ``ratio_ci_low``,
        ``ratio_ci_high``, ``p_value``, ``p_value_adjusted`` (Float64); ``is_reference``,
        ``significant`` (Boolean).

    Raises
    ------
    {ERRORS}
    UnknownGroupError
        An explicit ``reference`` that is not a group.

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.disparity(sdf, "race", y_true="two_year_recid", reference="Caucasian")  # doctest: +SKIP
    """
    fc, _ = _counts(spark_df, by, combinations, y_true=y_true, y_pred=y_pred,
                    pos_label=pos_label, sample_weight=sample_weight, null_groups=null_groups,
                    y_score=y_score, threshold=threshold)
    return fc.disparity(reference=reference, metric=metric, level=level, test=test,
                        adjust=adjust, combinations=combinations, max_order=max_order).collect()


@_doc
def pairwise(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    metrics: Sequence[str] = ("ofi", "disparate_impact"),
    y_true: SparkInto = "y_true",
    y_pred: SparkInto | None = "y_pred",
    pos_label: Any = 1,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    y_score: SparkInto | None = None,
    threshold: float | None = None,
    combinations: Literal["all"] | None = None,
    max_order: int | None = None,
) -> pl.DataFrame:
    """Every ordered pair of groups (i, j): OFI, disparate impact, rate gaps, from Spark.

    Parameters
    ----------
    {COMMON}
    metrics : sequence of str, default ("ofi", "disparate_impact")
        ``ofi``, ``disparate_impact``, ``<rate>_difference``, ``<rate>_ratio``.
    {COMBINATIONS}

    Returns
    -------
    pl.DataFrame
        ``<key>_i`` for each key, ``<key>_j`` for each key, ``n_i``, ``n_j`` (Int64), then one
        Float64 column per metric.

    Raises
    ------
    {ERRORS}
    InvalidArgumentError
        An unknown metric name.

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.pairwise(sdf, "race", y_true="two_year_recid", pos_label=0)  # doctest: +SKIP
    """
    fc, _ = _counts(spark_df, by, combinations, y_true=y_true, y_pred=y_pred,
                    pos_label=pos_label, sample_weight=sample_weight, null_groups=null_groups,
                    y_score=y_score, threshold=threshold)
    return fc.pairwise(metrics=metrics, combinations=combinations, max_order=max_order).collect()


@_doc
def summary(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    method: Literal["between_groups", "to_reference"] = "between_groups",
    y_true: SparkInto = "y_true",
    y_pred: SparkInto | None = "y_pred",
    pos_label: Any = 1,
    reference: Any = "largest",
    min_support: int = 30,
    exclude_low_support: bool = False,
    four_fifths: float = 0.8,
    ofi_threshold: float = 0.3,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    y_score: SparkInto | None = None,
    threshold: float | None = None,
    combinations: Literal["all"] | None = None,
    max_order: int | None = None,
) -> pl.DataFrame:
    """Fairlearn-style summaries (demographic parity, equalized odds, ...) from Spark rows.

    Parameters
    ----------
    {COMMON}
    method : {"between_groups", "to_reference"}, default "between_groups"
    reference : as in :func:`report`
    min_support : int, default 30
    exclude_low_support : bool, default False
    four_fifths, ofi_threshold : float
    {COMBINATIONS}

    Returns
    -------
    pl.DataFrame
        ``metric`` (String), ``value`` (Float64), ``group_1``, ``group_2`` (String),
        ``threshold`` (Float64), ``verdict`` (String or null), ``excluded_groups``
        (List(String)).

    Raises
    ------
    {ERRORS}

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.summary(sdf, ["race", "sex"], y_true="two_year_recid", pos_label=0)  # doctest: +SKIP
    """
    fc, _ = _counts(spark_df, by, combinations, y_true=y_true, y_pred=y_pred,
                    pos_label=pos_label, sample_weight=sample_weight, null_groups=null_groups,
                    y_score=y_score, threshold=threshold)
    return fc.summary(
        method=method, reference=reference, min_support=min_support,
        exclude_low_support=exclude_low_support, four_fifths=four_fifths,
        ofi_threshold=ofi_threshold, combinations=combinations, max_order=max_order,
    ).collect()


@_doc
def abroca(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_score: SparkInto = "y_score",
    reference: Any = "largest",
    pairwise: bool = False,
    pos_label: Any = 1,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    round_scores: int | None = None,
) -> pl.DataFrame:
    """Exact ABROCA and AUC per group: the score table from Spark, the curves in numpy.

    ``abroca = ∫₀¹ |TPR_g(f) − TPR_ref(f)| df`` on the exact piecewise-linear ROC curves
    (Gardner, Brooks & Baker 2019), as ``df.fair.abroca``; via
    ``from_scores(scores(...)).abroca(...)``.

    Parameters
    ----------
    {SCORE_COMMON}
    reference : "largest", "max_auc", scalar or mapping, default "largest"
    pairwise : bool, default False
        Every ordered pair of groups instead of each group against the reference.
    sample_weight : str or pyspark Column, optional

    Returns
    -------
    pl.DataFrame
        keys, ``n`` (Int64), ``positives``, ``negatives``, ``auc`` (Float64 in [0, 1]),
        ``abroca`` (Float64 in [0, 1]), ``is_reference`` (Boolean), ``undefined_reason``
        (String); with ``pairwise=True`` the pair columns of ``df.fair.abroca``.

    Raises
    ------
    {SCORE_ERRORS}
    UnknownGroupError
        An explicit reference that is not a group.

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.abroca(sdf, "race", y_true="two_year_recid", y_score="decile_score")  # doctest: +SKIP
    """
    table = scores(spark_df, by, y_true=y_true, y_score=y_score, pos_label=pos_label,
                   sample_weight=sample_weight, null_groups=null_groups,
                   round_scores=round_scores)
    return _fair_scores(table).abroca(reference=reference, pairwise=pairwise).collect()


@_doc
def abroca_test(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_score: SparkInto = "y_score",
    reference: Any = "largest",
    n_permutations: int = 1000,
    seed: int | None = None,
    tolerance: float = 1e-12,
    return_draws: bool = False,
    pos_label: Any = 1,
    null_groups: NullGroups = "keep",
    round_scores: int | None = None,
) -> pl.DataFrame:
    """The ABROCA randomization test (Borchers et al., Algorithm 1) on Spark rows.

    The permutations are multivariate hypergeometric draws over the score table's cells, in
    numpy on the driver; the rows are never permuted (and never leave Spark).

    Parameters
    ----------
    {SCORE_COMMON}
    reference : "largest", "max_auc", scalar or mapping, default "largest"
    n_permutations : int, default 1000
    seed : int, optional
        Seed of ``numpy.random.default_rng``: the same seed gives the same p-values as
        ``df.fair.abroca_test`` on the same rows.
    tolerance : float, default 1e-12
    return_draws : bool, default False

    Returns
    -------
    pl.DataFrame
        keys, ``n`` (Int64), ``abroca``, ``p_value``, ``p_value_holm``, ``null_mean``,
        ``null_q95`` (Float64), ``n_permutations`` (Int64), ``undefined_reason`` (String),
        [``draws`` List(Float64)].

    Raises
    ------
    {SCORE_ERRORS}
    UnknownGroupError
        An explicit reference that is not a group.

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.abroca_test(sdf, "race", y_true="two_year_recid", y_score="decile_score", seed=0)  # doctest: +SKIP
    """
    table = scores(spark_df, by, y_true=y_true, y_score=y_score, pos_label=pos_label,
                   null_groups=null_groups, round_scores=round_scores)
    return _fair_scores(table).abroca_test(
        reference=reference, n_permutations=n_permutations, seed=seed, tolerance=tolerance,
        return_draws=return_draws,
    ).collect()


@_doc
def calibration(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_score: SparkInto = "y_score",
    n_bins: int = 10,
    strategy: Literal["uniform", "quantile"] = "uniform",
    pos_label: Any = 1,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    round_scores: int | None = None,
) -> pl.DataFrame:
    """Calibration by group (expected calibration error and its gap) on Spark rows.

    ``ece = Σ_bins (n_bin / n) |fraction_positive − mean_score|`` (Naeini et al. 2015), bins
    right-closed, as ``df.fair.calibration``; via ``from_scores(scores(...)).calibration()``.
    With ``round_scores`` the bins see the rounded scores.

    Parameters
    ----------
    {SCORE_COMMON}
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
    sample_weight : str or pyspark Column, optional

    Returns
    -------
    pl.DataFrame
        keys, ``n`` (Int64), ``ece``, ``max_calibration_error`` (Float64 in [0, 1]),
        ``ece_gap`` (Float64).

    Raises
    ------
    {SCORE_ERRORS}
    ValueError
        Scores outside [0, 1] with ``strategy="uniform"``.

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.calibration(sdf, ["race", "sex"], y_score="y_score", n_bins=10)  # doctest: +SKIP
    """
    table = scores(spark_df, by, y_true=y_true, y_score=y_score, pos_label=pos_label,
                   sample_weight=sample_weight, null_groups=null_groups,
                   round_scores=round_scores)
    return _fair_scores(table).calibration(n_bins=n_bins, strategy=strategy).collect()


@_doc
def reliability(
    spark_df: SparkDataFrame,
    by: SparkBy,
    *,
    y_true: SparkInto = "y_true",
    y_score: SparkInto = "y_score",
    n_bins: int = 10,
    strategy: Literal["uniform", "quantile"] = "uniform",
    pos_label: Any = 1,
    sample_weight: SparkInto | None = None,
    null_groups: NullGroups = "keep",
    round_scores: int | None = None,
) -> pl.DataFrame:
    """The reliability table per group (one row per group × bin) on Spark rows.

    Parameters
    ----------
    {SCORE_COMMON}
    n_bins : int, default 10
    strategy : {"uniform", "quantile"}, default "uniform"
    sample_weight : str or pyspark Column, optional

    Returns
    -------
    pl.DataFrame
        keys, ``bin`` (Int64), ``bin_low``, ``bin_high`` (Float64), ``n`` (Int64; Float64
        weighted), ``mean_score``, ``fraction_positive`` (Float64 in [0, 1], null for an
        empty bin).

    Raises
    ------
    {SCORE_ERRORS}

    Examples
    --------
    >>> import polars_fair.spark as pfs
    >>> pfs.reliability(sdf, "sex", y_score="y_score", n_bins=5)  # doctest: +SKIP
    """
    table = scores(spark_df, by, y_true=y_true, y_score=y_score, pos_label=pos_label,
                   sample_weight=sample_weight, null_groups=null_groups,
                   round_scores=round_scores)
    return _fair_scores(table).reliability(n_bins=n_bins, strategy=strategy).collect()
