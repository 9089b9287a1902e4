"""The moment table of a continuous outcome: additive moments per group, from one scan.

A continuous audit (an interest rate, a credit limit, a regression's prediction) reads, per
group, the moments below; every analysis (:mod:`polars_fair.analyses.continuous`) is a formula
over them, so the rows are scanned once, by one group-by, on every engine.

The public schema, sorted by the keys (nulls last):

* the key columns;
* ``n`` (Int64): the rows;
* ``weight_sum`` (Float64, with ``sample_weight`` only): ``W = Σw``;
* ``mean_pred`` (Float64): the (weighted) mean of ``y_pred``, ``Σw·ŷ / W``, rounded to a double;
* ``mean_pred_low`` (Float64): the rest of that mean, below ``mean_pred``'s last digit: the mean
  is ``mean_pred + mean_pred_low`` (:mod:`polars_fair.counting.moment_merge`), so that two
  groups whose means are close at a large offset keep the digits of their difference (0 for a
  table made without it, :func:`polars_fair.api.continuous.from_moments`);
* ``m2_pred`` (Float64): the sum of squared deviations from that mean, ``Σw·(ŷ − mean)²``;
* with ``y_true``: ``mean_true``, ``mean_residual`` (of ``r = ŷ − y``), ``m2_residual`` and
  ``sum_abs_residual`` (``Σw·|r|``), all Float64.

Without weights ``w = 1`` and ``W = n``. A group whose weights sum to 0 has null means.

Why (n, mean, M2) and not (n, Σx, Σx²): the variance ``(Σx² − (Σx)²/n) / (n − 1)`` subtracts two
numbers of about ``n·x²``; for values near 10⁹ with a standard deviation of 1, ``x²`` is 10¹⁸ and
a double holds about 16 digits, so every digit of the variance is lost. Each engine instead
computes each group's mean and centred sum of squares with its own numerically stable aggregate
(Polars ``mean``/``var``, ``y_pred`` shifted by its first value over the frame, or by each
group's first value when a group lies far from it, see :func:`moment_label_table`; DuckDB the
compensated ``fsum`` and ``var_pop``, Spark ``avg`` and ``var_pop``, both of ``y_pred`` minus
each group's smallest value: Welford-type updates merged across threads and partitions). Each
engine returns the shift and the mean about it, which :func:`moments_from_labels` splits into
``mean_pred`` and ``mean_pred_low`` (Knuth's TwoSum). Against exact ``fractions`` sums, at
10⁹ + N(0, 1) and at 10¹² with group means 10⁻³ apart, mean differences and SMDs agree to
10⁻¹² relative on every engine (``tests/engines/test_continuous_exact.py``; measured 10⁻¹⁴
or better). Tables are merged
(roll-ups, the whole population) with the parallel formula of Chan, Golub and LeVeque (1979,
"Updating formulae and a pairwise algorithm for computing sample variances"), in its many-part
form :func:`merge_moments`::

    mean = Σ W_i·mean_i / Σ W_i,    M2 = Σ M2_i + Σ W_i·(mean_i − mean)²

which adds only non-negative terms. So the table is additive under that merge: tables made on
partitions of the rows (by another engine, in a warehouse) merge into the table of their union.
A weighted group's moments are two-pass in Polars (the weighted mean, then the weighted squared
deviations from it, inside the one group-by).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, TypedDict

import polars as pl

from polars_fair import errors as E
from polars_fair.core.spec import (
    FLOAT_DIGITS,
    FLOAT_EXACT_INT,
    FLOAT_SQUARE_MIN,
    Audit,
    IntoExpr,
    NullGroups,
    decimal_digits,
    name_of,
    resolve,
    to_expr,
    wide_decimal,
    wide_int,
)
from polars_fair.counting import boundary
from polars_fair.counting.moment_merge import (
    DMEAN,
    LOW,
    SHIFT,
    far_from_shift,
    merge_moments,
    split_mean,
)
from polars_fair.counting.tables import Engine, PolarsEngine, engine_of

__all__ = [
    "MOMENT_ARGS",
    "MOMENT_ARGS_DOC",
    "MOMENT_COLUMNS",
    "MomentArgs",
    "RESIDUAL_COLUMNS",
    "merge_moments",
    "moment_label_table",
    "moment_schema",
    "moment_table",
    "moments_from_labels",
]

#: The moment columns besides the keys (``weight_sum`` only when weighted).
MOMENT_COLUMNS = ("n", "weight_sum", "mean_pred", LOW, "m2_pred")
#: The residual moments (with ``y_true`` only).
RESIDUAL_COLUMNS = ("mean_true", "mean_residual", "m2_residual", "sum_abs_residual")
_V = "__pf_"


class MomentArgs(TypedDict, total=False):
    """The arguments that build a moment table (every continuous analysis takes them).

    ``y_pred`` (required), ``y_true``, ``sample_weight`` (default none), ``null_groups``
    (default ``"keep"``). :data:`MOMENT_ARGS` holds the defaults; :data:`MOMENT_ARGS_DOC` the
    documentation.

    Examples
    --------
    >>> args: MomentArgs = {"y_pred": "rate"}
    >>> sorted(set(args) - set(MOMENT_ARGS))
    []
    """

    y_pred: IntoExpr | None
    y_true: IntoExpr | None
    sample_weight: IntoExpr | None
    null_groups: NullGroups


#: name -> default of every moment argument, in signature order.
MOMENT_ARGS: dict[str, Any] = {
    "y_pred": None, "y_true": None, "sample_weight": None, "null_groups": "keep",
}
#: Docstring entries of the moment arguments.
MOMENT_ARGS_DOC = """y_pred : str or pl.Expr
    The continuous outcome or prediction (numeric; null, NaN and infinite values are errors).
y_true : str or pl.Expr, optional
    The observed value: adds the residual ``y_pred - y_true`` (MAE, RMSE, residual SMD).
sample_weight : str or pl.Expr, optional
    Frequency weights (finite, non-negative): means and sums of squares are weighted, the
    group size is the weight sum.
null_groups : {"keep", "raise", "drop"}, default "keep"
    Rows whose attribute is missing: one group of their own, an error, or dropped with a
    warning."""
_ROLES = {"pred": "y_pred", "true": "y_true"}


def moment_schema(key_schema: Sequence[tuple[str, pl.DataType]], *, weighted: bool,
                  residuals: bool) -> pl.Schema:
    """The public moment-table schema (see the module documentation).

    Parameters
    ----------
    key_schema : sequence of (str, pl.DataType)
        The key columns and their dtypes.
    weighted : bool
        Whether ``weight_sum`` is present.
    residuals : bool
        Whether the residual moments (``y_true`` given) are present.

    Returns
    -------
    pl.Schema

    Examples
    --------
    >>> moment_schema([("g", pl.String())], weighted=False, residuals=False).names()
    ['g', 'n', 'mean_pred', 'mean_pred_low', 'm2_pred']
    """
    cells = [("n", pl.Int64())] + ([("weight_sum", pl.Float64())] if weighted else [])
    cells += [(c, pl.Float64()) for c in ("mean_pred", LOW, "m2_pred")]
    if residuals:
        cells += [(c, pl.Float64()) for c in RESIDUAL_COLUMNS]
    return pl.Schema([*key_schema, *cells])


def _numeric(schema: pl.Schema, x: Any, role: str) -> None:
    """Refuse a non-numeric continuous column before anything runs (resolve names the rest)."""
    if x is None or (isinstance(x, str) and x not in schema):
        return
    try:
        dtype = pl.LazyFrame(schema=schema).select(to_expr(x).alias("v")).collect_schema()["v"]
    except (pl.exceptions.PolarsError, TypeError):
        return  # a missing column or a bad argument: resolve raises its typed error
    if not dtype.is_numeric():
        raise E.InvalidScoreError(E.NOT_NUMERIC.format(column=name_of(x), role=role, dtype=dtype))


def resolve_moments(engine: Engine, by: Any, args: dict[str, Any]) -> tuple[Engine, Audit]:
    """Bind and check a continuous call (``y_pred``, ``y_true``, ``sample_weight``, ...).

    The attributes, columns, weights and the null-group policy are checked by
    :func:`polars_fair.core.spec.resolve`, exactly as for a count table, and expressions are
    bound with their frame-wide meaning (:func:`polars_fair.counting.boundary.bind_frame`);
    ``y_pred`` and ``y_true`` must be numeric.

    Parameters
    ----------
    engine : Engine
        The rows.
    by : Any
        The attributes.
    args : dict
        ``y_pred``, ``y_true``, ``sample_weight``, ``null_groups``.

    Returns
    -------
    (Engine, Audit)
        The engine over the bound input and the resolved call.

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError, InvalidWeightError
        As :func:`polars_fair.core.spec.resolve`.
    InvalidScoreError
        A non-numeric ``y_pred`` or ``y_true``.

    Examples
    --------
    >>> lf = pl.LazyFrame({"g": ["a"], "rate": [4.5]})
    >>> resolve_moments(engine_of(lf), "g", {"y_pred": "rate"})[1].y_pred_name
    'rate'
    """
    from polars_fair.core.spec import parse_by

    engine, attrs, args = engine.bind(parse_by(by), dict(args))
    schema = engine.schema()
    _numeric(schema, args.get("y_pred"), "y_pred")
    _numeric(schema, args.get("y_true"), "y_true")
    if args.get("y_pred") is None:
        raise E.InvalidArgumentError(E.CONTINUOUS_NEEDS_Y_PRED)
    a = resolve(schema, attrs, y_true=args.get("y_true"), y_pred=args["y_pred"],
                sample_weight=args.get("sample_weight"),
                null_groups=args.get("null_groups", "keep"))
    clash = [k for k in a.keys if k in (*MOMENT_COLUMNS, *RESIDUAL_COLUMNS)]
    if clash:
        raise E.InvalidArgumentError(E.RESERVED_NAME.format(names=clash, example=clash[0]))
    if isinstance(engine, PolarsEngine):
        lf, a = boundary.bind_frame(engine.lf, a)
        engine = PolarsEngine(lf)
    else:  # DuckDB, Spark: advice that can be followed there
        a = replace(a, way="relation")
    return engine, a


def _checks(x: pl.Expr, tag: str, raw: pl.Expr | None = None,
            dtype: pl.DataType | None = None) -> list[pl.Expr]:
    """The nulls and the finite values of ``x`` (NaN and infinite = the rest of the non-null).

    With a 64-bit or wider integer ``dtype``, also the count of ``raw`` values beyond
    :data:`~polars_fair.core.spec.FLOAT_EXACT_INT` (``__pf_{tag}_big``), which the Float64
    cast would round; with a Decimal ``dtype`` wider than 15 digits, the count of values of
    more than :data:`~polars_fair.core.spec.FLOAT_DIGITS` significant digits (the rule of
    Decimal scores). Always the count of nonzero values whose squares are not normal doubles
    (``__pf_{tag}_tiny``, below :data:`~polars_fair.core.spec.FLOAT_SQUARE_MIN`).
    """
    out = [x.null_count().cast(pl.Int64).alias(f"{_V}{tag}_null"),
           x.is_finite().sum().cast(pl.Int64).alias(f"{_V}{tag}_finite"),
           ((x != 0) & (x.abs() < FLOAT_SQUARE_MIN)).sum().cast(pl.Int64)
           .alias(f"{_V}{tag}_tiny")]
    if raw is not None and (wide_int(dtype) or wide_decimal(dtype)):
        big = (decimal_digits(raw) > FLOAT_DIGITS if wide_decimal(dtype)
               else ~raw.is_between(-FLOAT_EXACT_INT, FLOAT_EXACT_INT))
        out.append(big.sum().cast(pl.Int64).alias(f"{_V}{tag}_big"))
    return out


def _mean_m2(x: pl.Expr, w: pl.Expr | None, name: str) -> list[pl.Expr]:
    """A group's mean and centred sum of squares of ``x``, in one aggregation (stable)."""
    mean = x.mean() if w is None else (w * x).sum() / w.sum()
    m2 = x.var(ddof=0) * x.count() if w is None else (w * (x - mean) ** 2).sum()
    return [mean.alias(f"mean_{name}"), m2.alias(f"m2_{name}")]


def moment_label_table(lf: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """The Polars moment label table: one ``group_by`` over the keys.

    ``y_pred`` is shifted by its first value over the frame, ``x0``, in the same lazy
    plan (a ``with_columns`` before the group-by): Polars' grouped ``mean`` is a plain sum,
    whose rounding errors grow with the values' magnitude (on values near 10⁹ the mean of 2,000
    rows is off by about 5·10⁻⁷, which a difference of 0.5 between two groups' means cannot
    absorb), while the mean of the shifted values is exact to about 10⁻¹⁶ of their spread. Each
    group returns ``x0`` (``__pf_shift_pred``), recovered as its first row's ``x − (x − x0)``
    (exact when the two are within a factor 2, Sterbenz's lemma; otherwise within one unit in
    the last place; any value serves, as the same one is returned), and the mean about it
    (``__pf_dmean_pred``), which :func:`moments_from_labels` splits into ``mean_pred`` and
    ``mean_pred_low``. The grouped ``var`` is stable with or without the shift. A shift read
    from the frame, not computed per group, keeps Polars' fast grouped aggregations; its limit
    is a frame whose groups lie far from its first value (values near 10⁹ shifted by a first
    value of 0, or values near 0 shifted by 10⁹, would lose their digits below 10⁻⁷). So when
    a group's mean lies far from the shift, against its own standard deviation
    (:func:`~polars_fair.counting.moment_merge.far_from_shift`), the table is aggregated again
    with ``y_pred`` shifted by each group's own first value (``x − x.first()`` inside the
    group-by: exact for every group, several times slower, paid only by such frames).
    ``mean_true`` and the residual moments use the plain grouped ``mean`` (relative error about
    10⁻¹⁵): they are not differenced between groups at an offset (a residual of two values near
    10⁹ is exact, and near 0).

    The scan counts each value column's nulls but not its NaN and infinite values: finite
    moments prove every value finite (a NaN or an infinity makes the sum, hence the mean, NaN
    or infinite), so the finite counts are then the non-null rows. When a moment is not finite
    (an input error, or finite values whose squares overflow) the rows are aggregated again
    with the finite counts, for the error's exact count, and about each group's own first
    value (so that no group's moments depend on another's values); finite values whose
    moments still overflow are an error (:func:`moments_from_labels`), never a null or
    infinite moment.

    Parameters
    ----------
    lf : pl.LazyFrame
        The rows (bound: :func:`resolve_moments`).
    a : Audit
        The resolved call.

    Returns
    -------
    pl.LazyFrame
        Unsorted, one row per key: the moment columns (:func:`moment_schema`) and the Int64
        counts of null and of finite values (``__pf_pred_null``, ``__pf_pred_finite``, and
        ``__pf_true_*`` with ``y_true``), with weights the weight checks of
        :mod:`polars_fair.counting.boundary`.

    Examples
    --------
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "rate": [1.0, 3.0, 2.0]})
    >>> _, a = resolve_moments(engine_of(lf), "g", {"y_pred": "rate"})
    >>> t = moment_label_table(lf, a).sort("g")
    >>> t.select("g", "__pf_shift_pred", "__pf_dmean_pred", "m2_pred").collect().rows()
    [('a', 1.0, 1.0, 2.0), ('b', 1.0, 1.0, 0.0)]
    """
    assert a.y_pred is not None
    x = a.y_pred.cast(pl.Float64)
    # the frame's first value (a null or non-finite one is an input error, raised on the checks)
    lf = lf.with_columns((x - x.first()).alias(f"{_V}dx"))
    keys = [e.alias(k) for e, k in zip(a.key_exprs, a.keys, strict=True)]

    def table(checks: bool, per_group: bool = False) -> pl.LazyFrame:
        aggs = _moment_aggs(a, checks, per_group)
        return lf.group_by(keys).agg(aggs) if keys else lf.select(aggs)

    checked = table(True)
    schema = checked.collect_schema()
    public = schema.names()
    values = [c for c in public  # a key may start so too ("mean_attr"): not a moment
              if c not in a.keys and c.startswith(("mean_", "m2_", "sum_abs", DMEAN))]

    def complete(df: pl.DataFrame) -> pl.DataFrame:
        # finite moments hold no NaN or infinite value: the finite counts are the non-null
        # rows; else (an input error, or moments that overflow) count them on the rows
        if not all(v is None or math.isfinite(v) for c in values for v in df[c].to_list()):
            return table(True, per_group=True).collect(engine="in-memory").select(public)
        # a group far from the frame's first value: about its own
        if far_from_shift(df, weighted=a.weight is not None):
            df = table(False, per_group=True).collect(engine="in-memory")
        return df.with_columns(
            (pl.col("n") - pl.col(f"{_V}{tag}_null")).alias(f"{_V}{tag}_finite")
            for tag in _tags(a)).select(public)

    return table(False).map_batches(complete, schema=pl.Schema(
        [(c, schema[c]) for c in public]))


def _tags(a: Audit) -> list[str]:
    """The checked columns' tags: ``pred``, and ``true`` with ``y_true``."""
    return ["pred", *(["true"] if a.y_true is not None else [])]


def _moment_aggs(a: Audit, checks: bool, per_group: bool = False) -> list[pl.Expr]:
    """The aggregations of :func:`moment_label_table` over the rows with ``__pf_dx``.

    Without ``checks`` the finite counts (a scan of each value column) are left out. With
    ``per_group`` ``y_pred`` is shifted by each group's first value instead of the frame's
    (exact for every group, Polars' slower per-group evaluation).
    """
    assert a.y_pred is not None
    x = a.y_pred.cast(pl.Float64)
    w = a.weight.cast(pl.Float64) if a.weight is not None else None
    dx = pl.col(f"{_V}dx")

    def counts(v: pl.Expr, tag: str, raw: pl.Expr, dtype: pl.DataType | None) -> list[pl.Expr]:
        # the count of integers beyond a float stays in both: those values are finite
        every = _checks(v, tag, raw, dtype)
        return every if checks else [every[0], *every[2:]]

    aggs = [pl.len().cast(pl.Int64).alias("n"), *counts(x, "pred", a.y_pred, a.pred_dtype)]
    if w is not None:
        aggs += getattr(boundary, "_weight_aggs")(w)  # noqa: B009 - the one weight check
    x0 = x.first() - dx.first()  # the frame's first value, exactly (see the module doc)
    if per_group:
        x0, dx = x.first(), x - x.first()
    mean, m2 = _mean_m2(dx, w, "pred")
    aggs += [x0.alias(SHIFT), mean.alias(DMEAN), m2]
    if a.y_true is not None:
        y = a.y_true.cast(pl.Float64)
        r = x - y
        aggs += [*counts(y, "true", a.y_true, a.true_dtype), _mean_m2(y, w, "true")[0],
                 *_mean_m2(r, w, "residual"),
                 (r.abs() if w is None else w * r.abs()).sum().alias("sum_abs_residual")]
    return aggs


def _beyond_float(a: Audit, column: str, role: str, count: int,
                  dtype: Any) -> E.InvalidScoreError:
    """CONTINUOUS_BEYOND_FLOAT, advising an offset in the words of the way the rows came."""
    sql = column if column.isidentifier() else '"' + column.replace('"', '""') + '"'
    facts = {"column": column, "role": role, "count": count, "dtype": dtype}
    if a.way == "relation":
        advice = E.RELATION_CONTINUOUS_OFFSET.format(sql=sql, shifted=f"{column}_offset",
                                                     role=role)
    else:
        advice = E.CONTINUOUS_OFFSET.format(role=role, column=column)
    cli = E.CLI_CONTINUOUS_OFFSET.format(flag=role.replace("_", "-"), sql=E.shell_escaped(sql))
    return E.InvalidScoreError(E.CONTINUOUS_BEYOND_FLOAT.format(**facts, advice=advice),
                               cli_message=E.CONTINUOUS_BEYOND_FLOAT.format(**facts, advice=cli))


def _validate(df: pl.DataFrame, a: Audit) -> None:
    """Every input error of a moment label table, in a fixed order: values, then weights."""
    for tag, role in _ROLES.items():
        if f"{_V}{tag}_null" not in df.columns:
            continue
        name = a.y_pred_name if tag == "pred" else a.y_true_name
        big = int(df[f"{_V}{tag}_big"].sum()) if f"{_V}{tag}_big" in df.columns else 0
        if big:
            dtype = a.pred_dtype if tag == "pred" else a.true_dtype
            if wide_decimal(dtype):
                raise E.InvalidScoreError(E.CONTINUOUS_DECIMAL_DIGITS.format(
                    column=name, role=role, count=big, dtype=dtype))
            raise _beyond_float(a, str(name), role, big, dtype)
        nulls, finite = (int(df[f"{_V}{tag}_{x}"].sum()) for x in ("null", "finite"))
        bad = int(df["n"].sum()) - nulls - finite
        if nulls:
            raise E.NullValuesError(E.NULL_CONTINUOUS.format(column=name, role=role,
                                                             count=nulls))
        if bad:
            raise E.InvalidScoreError(E.BAD_CONTINUOUS.format(column=name, role=role,
                                                              count=bad))
        tiny = _lost_spread(df, tag)
        if tiny:
            raise E.InvalidScoreError(E.CONTINUOUS_UNDERFLOW.format(column=name, role=role,
                                                                    count=tiny))
    boundary.check_weights(df, a)
    if "weight_sum" in df.columns and not math.isfinite(float(df["weight_sum"].sum() or 0.0)):
        raise E.InvalidWeightError(E.WEIGHT_TOTAL_OVERFLOW.format(column=a.weight_name))
    _check_overflow(df, a)


def _lost_spread(df: pl.DataFrame, tag: str) -> int:
    """The nonzero values whose squares underflow, in groups whose sum of squares is lost.

    A group's centred sum of squares (of ``y_pred``, or of the residual for ``y_true``) that is
    0 or subnormal while it holds such values has lost its spread; a tiny value beside
    values of normal size changes nothing and is not counted.
    """
    m2 = "m2_pred" if tag == "pred" else "m2_residual"
    if f"{_V}{tag}_tiny" not in df.columns or m2 not in df.columns:
        return 0
    lost = pl.col(m2).cast(pl.Float64).abs() < sys.float_info.min  # 0 or subnormal
    return int(df.filter(lost.fill_null(False))[f"{_V}{tag}_tiny"].sum())


#: moment label column -> (role, what overflowed), in the order they are reported: y_pred's
#: own moments first, so a residual that overflows while they do not is y_true's doing.
_OVERFLOW = {DMEAN: ("y_pred", "mean"), "m2_pred": ("y_pred", "sum of squares"),
             "mean_true": ("y_true", "mean"), "mean_residual": ("y_true", "residual mean"),
             "m2_residual": ("y_true", "residual sum of squares"),
             "sum_abs_residual": ("y_true", "sum of absolute residuals")}


def _check_overflow(df: pl.DataFrame, a: Audit) -> None:
    """Finite values (checked before) whose moments are not finite: CONTINUOUS_OVERFLOW."""
    size = pl.col("weight_sum" if "weight_sum" in df.columns else "n")
    for column, (role, moment) in _OVERFLOW.items():
        if column not in df.columns:
            continue
        bad = df.select(((size > 0) & ~pl.col(column).cast(pl.Float64).is_finite())
                        .fill_null(False).sum()).item()
        if bad:
            name = a.y_pred_name if role == "y_pred" else a.y_true_name
            raise E.InvalidScoreError(E.CONTINUOUS_OVERFLOW.format(
                column=name, role=role, moment=moment, count=int(bad)))


def moments_from_labels(labels: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """The lazy moment table of a moment label table made by any engine (checked at collect).

    Parameters
    ----------
    labels : pl.LazyFrame
        :func:`moment_label_table` or an engine's equivalent.
    a : Audit
        The resolved call.

    Returns
    -------
    pl.LazyFrame
        The public moment table (:func:`moment_schema`), sorted by the keys, nulls last.

    Raises
    ------
    NullValuesError
        Null values in ``y_pred`` or ``y_true`` (at collect time).
    InvalidScoreError
        Integer values beyond 2**53 in magnitude or decimals of more than 15 significant
        digits (which a float cannot hold), NaN or infinite values in ``y_pred`` or
        ``y_true`` (at collect time); finite values whose moments overflow a double
        (values beyond about 1e154 in magnitude, whose squares do), naming the column and
        counting the groups.
    InvalidWeightError
        Null, NaN, infinite or negative weights, or weights whose sum overflows.
    EmptyFrameError, NullGroupError, TooManyLevelsError
        At collect time, as :func:`polars_fair.counting.boundary.apply_group_policy`.

    Examples
    --------
    >>> lf = pl.LazyFrame({"g": ["b", "a", "a"], "rate": [2.0, 1.0, 3.0]})
    >>> _, a = resolve_moments(engine_of(lf), "g", {"y_pred": "rate"})
    >>> moments_from_labels(moment_label_table(lf, a), a).collect().rows()
    [('a', 2, 2.0, 0.0, 2.0), ('b', 1, 2.0, 0.0, 0.0)]
    """
    schema_in = labels.collect_schema()
    schema = moment_schema([(k, schema_in[k]) for k in a.keys], weighted=a.weight is not None,
                           residuals=a.y_true is not None)
    cast = [pl.col(c).cast(d) for c, d in schema.items()]

    def derive(df: pl.DataFrame) -> pl.DataFrame:
        _validate(df, a)
        df = boundary.apply_group_policy(df, a)  # NaN keys become null: merge them again
        df = df.with_columns(split_mean(pl.col(SHIFT), pl.col(DMEAN)))
        public = df.select([c for c in schema.names() if c in df.columns])
        return merge_moments(public, a.keys).select(cast).collect(engine="in-memory")

    return labels.map_batches(derive, schema=schema)


def moment_table(frame: Any, by: Any, **args: Any) -> tuple[pl.LazyFrame, list[str], Audit]:
    """Rows of any engine -> the lazy moment table, its keys and the resolved call.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame, duckdb relation or Engine
        The rows.
    by : str, expression or list of them, or None
        The attributes.
    **args : Any
        ``y_pred``, ``y_true``, ``sample_weight``, ``null_groups``.

    Returns
    -------
    (pl.LazyFrame, list of str, Audit)
        The moment table (:func:`moments_from_labels`), its keys and the call.

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError, InvalidScoreError, InvalidWeightError
        At once (:func:`resolve_moments`); the data errors of :func:`moments_from_labels` at
        collect time (at once on Spark and DuckDB, whose aggregation runs here).

    Examples
    --------
    >>> df = pl.DataFrame({"g": ["a", "b", "a"], "rate": [1.0, 4.0, 2.0]})
    >>> moment_table(df, "g", y_pred="rate")[0].collect()["mean_pred"].to_list()
    [1.5, 4.0]
    """
    engine, a = resolve_moments(engine_of(frame), by, args)
    if isinstance(engine, PolarsEngine):
        labels = moment_label_table(engine.lf, a)
    else:
        from polars_fair.counting._moments_sql import sql_moment_label_table

        labels = sql_moment_label_table(engine, a)
    rows = engine.lf if isinstance(engine, PolarsEngine) else None
    return boundary.values_hidden(moments_from_labels(labels, a), a.bound, rows), a.keys, a
