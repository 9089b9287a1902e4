"""Spark as an engine: the schema mapping and the one aggregation into the label table.

What is Spark's own lives here, nothing else: the schema mapping (Spark types to Polars dtypes,
so that :func:`polars_fair.core.spec.resolve` checks a call before Spark runs), binding Spark
``Column`` expressions to names, the one aggregation into the label table of
:mod:`polars_fair.counting.boundary` (PySpark's own functions, no Python UDFs) and its hand-off
through Arrow. The public module is :mod:`polars_fair.spark`.

Why PySpark's API, not narwhals: the label table is a few lines of ``pyspark.sql.functions``;
narwhals would add a dependency and could not bind Spark ``Column`` expressions. pyspark is
imported lazily.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.core.spec import Attributes, Audit, parse_by
from polars_fair.counting import boundary
from polars_fair.counting.engine import Engine
from polars_fair.counting.score_bounds import big_score_check

if TYPE_CHECKING:
    from pyspark.sql import Column
    from pyspark.sql import DataFrame as SparkDataFrame
    from pyspark.sql.types import DataType

__all__ = ["SparkEngine", "polars_schema"]

_V = "__pf_"
PYSPARK_MISSING = (
    "polars_fair.spark needs PySpark; install the extra: pip install 'polars_fair[spark]'"
)
SPARK_NOT_A_COLUMN = (
    "{role} must be a column name (str) or a pyspark Column on a Spark DataFrame, got {type}; a "
    "Polars expression cannot run inside Spark: pass F.expr(...) or add the column first"
)
BAD_ROUND = "round_scores must be a non-negative int (decimal places) or None, got {value!r}"


def _require_pyspark() -> None:
    try:
        import pyspark  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without pyspark
        raise ImportError(PYSPARK_MISSING) from exc


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


@borrow(Engine.schema, sections=("Returns",))
def polars_schema(spark_df: SparkDataFrame) -> pl.Schema:
    """The Polars schema that a Spark DataFrame's columns have once they come back through Arrow.

    Reads ``spark_df.schema`` only (no Spark job). Used to resolve and check a call with
    :func:`polars_fair.counting.tables.resolve` before Spark runs, so that schema errors (a missing
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

    Examples
    --------
    >>> from polars_fair.counting._spark import polars_schema
    >>> polars_schema(spark.createDataFrame([(1, "a")], "y long, g string"))  # doctest: +SKIP
    Schema([('y', Int64), ('g', String)])
    """
    return pl.Schema({f.name: _polars_dtype(f.dataType) for f in spark_df.schema.fields})


def _col(name: str) -> Column:
    """A reference to the column ``name`` itself (dots and spaces are not paths)."""
    from pyspark.sql import functions as F

    return F.col("`" + name.replace("`", "``") + "`")


def _bind(spark_df: SparkDataFrame, x: Any, role: str) -> tuple[SparkDataFrame, str]:
    """A column name as is; a Spark Column is added to the frame under its output name.

    ``withColumn`` evaluates it over the whole frame before the grouping, as ``with_columns``
    does for a Polars expression (a window keeps its frame-wide meaning).
    """
    if isinstance(x, str):
        return spark_df, x
    from pyspark.sql import Column

    if isinstance(x, Column):  # an aggregate (F.max) is refused by Spark: the row-level rule
        from pyspark.errors import AnalysisException

        name = spark_df.select(x).columns[0]
        try:
            return spark_df.withColumn(name, x), name
        except AnalysisException as exc:
            first = (str(exc).strip() or type(exc).__name__).splitlines()[0]
            raise E.NotRowLevelError(E.SPARK_REFUSED.format(message=first, role=role)) from None
    raise E.InvalidArgumentError(SPARK_NOT_A_COLUMN.format(role=role, type=type(x).__name__))


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


def _count_if(cond: Column) -> Column:
    from pyspark.sql import functions as F

    return F.coalesce(F.sum(F.when(cond, F.lit(1)).otherwise(F.lit(0))), F.lit(0)).cast("long")


def _big_scores(a: Audit) -> list[Column]:
    """The count of scores a float cannot hold (:func:`.score_bounds.big_score_check`)."""
    from pyspark.sql import functions as F

    check = big_score_check(a)
    if check is None:
        return []
    s, bound = _col(check.name), F.lit(check.bound)
    if check.kind == "digits":  # the significant digits of its plain text
        text = F.regexp_replace(s.cast("string"), "[-+.]", "")
        big = F.length(F.regexp_replace(text, "^0+|0+$", "")) > bound
    else:
        big = (s > bound) | (s < -bound)
    return [_count_if(big).alias(f"{_V}s_big")]


def _aggs(a: Audit) -> list[Column]:
    """``n`` and the weight checks of a label table, in Spark."""
    from pyspark.sql import functions as F

    aggs = [F.count(F.lit(1)).cast("long").alias("n")]
    if a.weight_name is not None:
        w = _col(a.weight_name).cast("double")
        aggs += [
            F.coalesce(F.sum(w), F.lit(0.0)).cast("double").alias("weight_sum"),
            _count_if(w.isNull()).alias(f"{_V}w_null"),
            _count_if(F.isnan(w) | (F.abs(w) == F.lit(math.inf))).alias(f"{_V}w_nan"),
            _count_if(w < F.lit(0.0)).alias(f"{_V}w_neg"),
            _count_if(w > F.lit(0.0)).alias(f"{_V}w_pos"),
        ]
    return aggs


@dataclass(frozen=True)
class SparkEngine:
    """A PySpark DataFrame as an engine (:class:`polars_fair.counting.tables.Engine`).

    Parameters
    ----------
    spark_df : pyspark.sql.DataFrame
        The rows; they stay in Spark.
    round_scores : int, optional
        Round scores to this many decimals in Spark (half up) before counting, so that a
        continuous score gives a small score table; results are exact for the rounded scores.

    Examples
    --------
    >>> SparkEngine(spark.range(3)).schema()  # doctest: +SKIP
    Schema([('id', Int64)])
    """

    spark_df: SparkDataFrame
    round_scores: int | None = None

    def __post_init__(self) -> None:
        """Check that pyspark is installed and ``round_scores`` is an integer >= 0."""
        _require_pyspark()
        r = self.round_scores
        if r is not None and (isinstance(r, bool) or not isinstance(r, int) or r < 0):
            raise E.InvalidArgumentError(BAD_ROUND.format(value=r))

    def schema(self) -> pl.Schema:
        """The Spark columns as Polars dtypes (:func:`polars_schema`).

        Returns
        -------
        pl.Schema

        Examples
        --------
        >>> SparkEngine(spark.range(2)).schema()  # doctest: +SKIP
        Schema([('id', Int64)])
        """
        return polars_schema(self.spark_df)

    def bind(self, by: Any, args: dict[str, Any],
             ) -> tuple[SparkEngine, Attributes, dict[str, Any]]:
        """Spark ``Column`` arguments become named columns of the frame.

        Parameters
        ----------
        by : Attributes, or str, Column or a list of them
            The attributes (:func:`polars_fair.core.spec.parse_by`; a raw ``by`` is parsed).
        args : dict
            The count or score arguments.

        Returns
        -------
        tuple
            The engine over the extended frame, the attributes bound to names
            (:class:`polars_fair.core.spec.Attributes`), the arguments with names.

        Raises
        ------
        InvalidArgumentError
            An argument that is neither a column name nor a Spark Column.

        Examples
        --------
        >>> from pyspark.sql import functions as F  # doctest: +SKIP
        >>> SparkEngine(sdf).bind(F.col("race").alias("r"), {})[1].names  # doctest: +SKIP
        ['r']
        """
        sdf = self.spark_df
        attrs = parse_by(by)
        names = []
        for b in attrs.items:
            sdf, name = _bind(sdf, b, "by")
            names.append(name)
        bound = dict(args)
        for role in ("y_true", "y_pred", "y_score", "sample_weight"):
            if bound.get(role) is not None:
                sdf, bound[role] = _bind(sdf, bound[role], role)
        return replace(self, spark_df=sdf), attrs.bound(names), bound

    @borrow(Engine.label_table, params=("a",), sections=("Returns",))
    def label_table(self, a: Audit) -> pl.LazyFrame:
        """One Spark ``groupBy`` over keys, label and prediction, back through Arrow.

        Examples
        --------
        >>> SparkEngine(sdf).label_table(audit).collect()  # doctest: +SKIP
        """
        from pyspark.sql import functions as F

        if a.score_name is not None:
            s = _col(a.score_name)
            p = (s >= F.lit(a.threshold)).alias(boundary.P)
            sd = s.cast("double")
            checks = [_count_if(s.isNull()).alias(f"{_V}s_null"),
                      _count_if(F.isnan(sd)).alias(f"{_V}s_nan"),
                      _count_if(F.abs(sd) == F.lit(math.inf)).alias(f"{_V}s_inf"),
                      *_big_scores(a)]
        else:
            assert a.y_pred_name is not None
            p, checks = _col(a.y_pred_name).alias(boundary.P), []
        labels = [_col(a.y_true_name).alias(boundary.Y)] if a.y_true_name is not None else []
        groups = [*(_col(k) for k in a.keys), *labels, p]
        return _collect(self.spark_df, groups, _aggs(a) + checks).lazy()

    @borrow(Engine.score_label_table, params=("a",), sections=("Returns",))
    def score_label_table(self, a: Audit) -> pl.LazyFrame:
        """One Spark ``groupBy`` over keys, score (as double, rounded if asked) and label.

        Examples
        --------
        >>> SparkEngine(sdf, round_scores=3).score_label_table(audit).collect()  # doctest: +SKIP
        """
        from pyspark.sql import functions as F

        assert a.score_name is not None
        s = _col(a.score_name).cast("double")
        if self.round_scores is not None:
            s = F.round(s, self.round_scores)
        labels = [_col(a.y_true_name).alias(boundary.Y)] if a.y_true_name is not None else []
        groups = [*(_col(k) for k in a.keys), s.alias("score"), *labels]
        return _collect(self.spark_df, groups, _aggs(a) + _big_scores(a)).lazy()
