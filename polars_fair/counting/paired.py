"""The paired count table: two models' decisions on the same rows, counted in one scan.

A comparison of a candidate model with its baseline is the label table with one more cell
coordinate (DESIGN.md, "The label table generalises"): one row per (keys, label, candidate
prediction, baseline prediction). The baseline prediction is counted as one more grouping
column of the engine's own label table, so every engine (Polars, Spark, DuckDB) builds the
table with the aggregation it already has, and the one validator of
:mod:`polars_fair.counting.boundary` checks the baseline exactly as it checks ``y_pred``.

The **paired count table** (public: :func:`polars_fair.from_paired_counts` accepts one made
anywhere) holds the key columns, ``n`` (Int64 rows), then eight cells ``y{l}_p{c}_b{b}``:
the rows whose label is ``l``, whose candidate prediction is ``c`` and whose baseline
prediction is ``b`` (1 = ``pos_label``, 0 = the other value). Without labels every row counts
as a negative label (the ``y0_*`` cells), as in the count table. The cells are Int64, or
Float64 weighted sums followed by ``weight_sum`` and ``n_positive_weight`` with
``sample_weight``: ``n_positive_weight`` (Int64) counts the rows whose weight is above 0, the
rows the intervals count (a row of weight 0 adds nothing to any figure, so it is no
observation; rescaling the weighted cells to ``n`` would narrow every interval for it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core.spec import (
    POSITIVE_WEIGHT_ROWS,
    Attributes,
    Audit,
    By,
    IntoExpr,
    check_reserved_keys,
    name_of,
    normalize_by,
    parse_by,
    resolve,
    to_expr,
)
from polars_fair.counting import boundary
from polars_fair.counting.tables import PolarsEngine, engine_of, readable_label_error

__all__ = ["PAIRED_CELLS", "POSITIVE_ROWS", "Q", "cell", "check_negative_cells", "check_paired",
           "paired_schema", "paired_table"]

#: The baseline prediction's column in the paired label table.
Q = "__pf_q"
#: The eight cells, label x candidate x baseline (1 = pos_label).
PAIRED_CELLS = tuple(f"y{y}_p{p}_b{b}" for y in (1, 0) for p in (1, 0) for b in (1, 0))
#: A weighted paired table's rows of positive weight (the intervals' sample size), named as
#: the count table's (:data:`polars_fair.core.spec.POSITIVE_WEIGHT_ROWS`).
POSITIVE_ROWS = POSITIVE_WEIGHT_ROWS


def cell(y: int | None = None, p: int | None = None, b: int | None = None) -> pl.Expr:
    """The sum of the paired cells that match the given coordinates (``None``: any value).

    Parameters
    ----------
    y, p, b : {0, 1} or None
        Label, candidate prediction and baseline prediction (1 = ``pos_label``).

    Returns
    -------
    pl.Expr
        The sum of the matching ``y{l}_p{c}_b{b}`` columns (Int64, or Float64 when weighted).

    Examples
    --------
    >>> t = pl.DataFrame({c: [i] for i, c in enumerate(PAIRED_CELLS)})
    >>> t.select(cell(p=1, b=0)).item()  # y1_p1_b0 + y0_p1_b0 = 1 + 5
    6
    """
    names = [c for c in PAIRED_CELLS
             if (y is None or c[1] == str(y)) and (p is None or c[4] == str(p))
             and (b is None or c[7] == str(b))]
    return pl.sum_horizontal(names)


def paired_schema(key_schema: Sequence[tuple[str, pl.DataType]], weighted: bool) -> pl.Schema:
    """The paired count table's schema: keys, ``n``, the eight cells [, weights].

    Parameters
    ----------
    key_schema : sequence of (str, pl.DataType)
        The key columns.
    weighted : bool
        Whether the cells are weighted sums.

    Returns
    -------
    pl.Schema
        Keys, ``n`` (Int64), :data:`PAIRED_CELLS` (Int64, Float64 weighted) [, ``weight_sum``
        Float64, ``n_positive_weight`` Int64 (:data:`POSITIVE_ROWS`)].

    Examples
    --------
    >>> paired_schema([("g", pl.String())], False).names()[:3]
    ['g', 'n', 'y1_p1_b1']
    """
    c = pl.Float64() if weighted else pl.Int64()
    return pl.Schema([*key_schema, ("n", pl.Int64()), *((x, c) for x in PAIRED_CELLS),
                      *([("weight_sum", pl.Float64()), (POSITIVE_ROWS, pl.Int64())]
                        if weighted else [])])


def _derive(df: pl.DataFrame, a: Audit, b: Audit) -> pl.DataFrame:
    """Validate a paired label table and sum it into the paired count table (small, eager)."""
    candidate, baseline = df.drop(Q), df.drop(boundary.P).rename({Q: boundary.P})
    boundary.validate_labels(candidate, a, positive=False)
    boundary.validate_labels(baseline, b, positive=False)
    # pos_label must occur in the label or in either model (a label and a baseline of 0 only
    # beside a candidate that selects some is a real comparison)
    if a.score is None and boundary.Y in df.columns and df["n"].sum() and not (
            boundary.holds_positive(candidate, a) or boundary.holds_positive(baseline, b)):
        found = sorted({repr(v) for c in (boundary.Y, boundary.P, Q)
                        for v in df[c].unique().to_list()})
        raise E.InvalidLabelError(E.POS_LABEL_ABSENT_PAIRED.format(
            pos_label=a.pos_label, y_true=a.y_true_name, y_pred=a.y_pred_name,
            baseline=b.y_pred_name, values="[" + ", ".join(found) + "]"))
    df = boundary.apply_group_policy(df, a)
    weighted = a.weight is not None
    kind = pl.Float64 if weighted else pl.Int64
    yb = pl.col(boundary.Y) == pl.lit(a.pos_true) if boundary.Y in df.columns else pl.lit(False)
    pb = pl.col(boundary.P) == pl.lit(a.pos_pred)
    qb = pl.col(Q) == pl.lit(b.pos_pred)
    v = pl.col("weight_sum") if weighted else pl.col("n")
    sums = [pl.col("n").sum().cast(pl.Int64).alias("n")]
    for name in PAIRED_CELLS:
        y, p, q = (yb if name[1] == "1" else ~yb), (pb if name[4] == "1" else ~pb), \
            (qb if name[7] == "1" else ~qb)
        sums.append(v.filter(y & p & q).sum().cast(kind).alias(name))
    if weighted:
        sums += [pl.col("weight_sum").sum().alias("weight_sum"),
                 pl.col(boundary.W_POS).sum().cast(pl.Int64).alias(POSITIVE_ROWS)]
    out = df.group_by(a.keys).agg(sums) if a.keys else df.select(sums)
    return out.sort(a.keys, nulls_last=True) if a.keys else out


def _resolve_baseline(schema: pl.Schema, by: Attributes, args: dict[str, Any], bound: Any,
                      a: Audit, role: str) -> Audit:
    """The baseline resolved as a ``y_pred`` beside the candidate ``a``, its errors naming it."""
    if isinstance(bound, (str, pl.Expr)) and name_of(bound) in a.keys:
        raise E.InvalidArgumentError(E.BASELINE_IS_KEY.format(column=name_of(bound)))
    plain = {k: v for k, v in args.items() if k not in ("y_pred", "y_score", "threshold")}
    try:
        b = resolve(schema, by, **plain, y_pred=bound)
    except E.InvalidLabelError as exc:
        dtype = _dtype(schema, bound)
        if dtype is not None and a.pred_dtype is not None and dtype != a.pred_dtype:
            # one pos_label decides both models' positives: the two dtypes must agree
            fields = dict(role=role, column=name_of(bound), dtype=dtype,
                          pred=a.y_pred_name, pred_dtype=a.pred_dtype, pos_label=a.pos_label)
            raise E.InvalidLabelError(E.BASELINE_DTYPE.format(**fields), cli_message=(
                E.CLI_BASELINE_DTYPE.format(**fields))) from None
        raise _renamed(exc, role) from None
    except E.PolarsFairError as exc:  # the baseline is resolved as a y_pred: name its argument
        raise _renamed(exc, role) from None
    b = replace(b, y_pred_role=role)
    assert b.y_pred is not None and b.y_pred_name is not None
    if b.y_pred_name in a.keys:
        raise E.InvalidArgumentError(E.BASELINE_IS_KEY.format(column=b.y_pred_name))
    return b


def _check_baseline_type(baseline: Any, role: str, polars: bool = True) -> None:
    """Refuse a baseline that is no column (None, a Series, a list, a number), naming ``role``.

    With a Polars frame (``polars``) values are advised as ``pl.lit(pl.Series(values))``.
    """
    values = (pl.Series, list, tuple, set, dict, int, float, bytes)
    if baseline is None or isinstance(baseline, values) or \
            type(baseline).__module__.split(".")[0] == "numpy":
        kind = type(baseline).__name__
        wrap = polars and baseline is not None and not isinstance(baseline, (dict, set))
        advice = (E.BASELINE_VALUES_ADVICE.format(role=role, type=kind) if wrap
                  else E.BASELINE_NAME_ADVICE)
        raise E.InvalidArgumentError(E.BASELINE_NOT_A_COLUMN.format(
            role=role, type=kind, advice=advice))


def _renamed(exc: E.PolarsFairError, role: str) -> E.PolarsFairError:
    """``exc`` about ``y_pred`` as an error about the baseline's argument ``role``."""
    message = str(exc)
    for said, meant in (("(y_pred)", f"({role})"), ("y_pred=", f"{role}="),
                        ("y_pred column", f"{role} column")):
        message = message.replace(said, meant)
    return type(exc)(message)


def _dtype(schema: pl.Schema, x: Any) -> pl.DataType | None:
    """The dtype of a column name or expression over ``schema`` (``None`` if it has none)."""
    try:
        return pl.LazyFrame(schema=schema).select(to_expr(x)).collect_schema().dtypes()[0]
    except Exception:  # noqa: BLE001 (a message about the baseline follows either way)
        return None


def paired_table(frame: Any, by: By, *, baseline: IntoExpr, baseline_role: str = "baseline",
                 **args: Any) -> tuple[pl.LazyFrame, list[str], Audit]:
    """The lazy paired count table of the rows: one aggregation, validated at collect time.

    The baseline prediction is bound, resolved and validated as ``y_pred`` is
    (:func:`polars_fair.core.spec.resolve`, :func:`polars_fair.counting.boundary.bind_frame`,
    :func:`polars_fair.counting.boundary.validate_labels`): an expression means what it means
    in ``with_columns``, its dtype must suit ``pos_label``, and its values must be
    ``pos_label`` and at most one other.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows, one per decided case, both models' decisions side by side.
    by : str, pl.Expr or list of them, or None
        The attributes (several = their intersection).
    baseline : str or pl.Expr
        The baseline model's prediction (a column name on DuckDB; a Spark ``Column`` on Spark).
    baseline_role : str, default "baseline"
        The argument the baseline came from, as the errors name it (``"baseline_pred"`` for
        the HTML audit).
    **args : Any
        The count arguments of the candidate (``y_true``, ``y_pred``, ``pos_label``,
        ``sample_weight``, ``null_groups``, ``y_score`` with ``threshold``, ``max_groups``).

    Returns
    -------
    table : pl.LazyFrame
        The paired count table (:func:`paired_schema`), sorted by the keys (nulls last).
    keys : list of str
        The key names.
    audit : Audit
        The candidate's resolved call.

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError, InvalidLabelError
        At once: as :func:`polars_fair.core.spec.resolve`, for the candidate and the baseline;
        the baseline's name may not be an attribute's; a baseline that is no column (``None``,
        a Series, a list, a number) names ``baseline`` and its type, never its values.
    InvalidLabelError, NullValuesError, EmptyFrameError, NullGroupError, TooManyLevelsError
        At collect time: as :func:`polars_fair.counting.boundary.counts_from_labels`, the
        baseline's errors naming it with the role ``baseline``.

    Examples
    --------
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1],
    ...                    "new": [1, 1, 0], "old": [1, 0, 0]})
    >>> t, keys, _ = paired_table(lf, "g", y_pred="new", baseline="old")
    >>> t.select("g", "n", "y1_p1_b1", "y0_p1_b0", "y1_p0_b0").collect().rows()
    [('a', 2, 1, 1, 0), ('b', 1, 0, 0, 1)]
    """
    _check_baseline_type(baseline, baseline_role,
                         polars=isinstance(frame, (pl.DataFrame, pl.LazyFrame)))
    engine = engine_of(frame)
    items = normalize_by(by)
    try:
        engine, attrs, args = engine.bind(parse_by([*items, baseline]), args)
    except E.InvalidArgumentError as exc:  # DuckDB, Spark: the baseline is bound as a `by`
        if isinstance(baseline, str) or not all(isinstance(i, str) for i in items) \
                or not str(exc).startswith("by "):
            raise
        raise type(exc)(baseline_role + str(exc)[2:]) from None
    by_attrs, bound = Attributes(items=attrs.items[:-1]), attrs.items[-1]
    schema = engine.schema()
    try:
        a = resolve(schema, by_attrs, **args)
    except E.InvalidLabelError as exc:  # advice from the text column's own values
        raise readable_label_error(engine, args, exc) from None
    b = _resolve_baseline(schema, by_attrs, args, bound, a, baseline_role)
    assert b.y_pred is not None and b.y_pred_name is not None
    both = replace(a, keys=[*a.keys, b.y_pred_name], key_exprs=[*a.key_exprs, b.y_pred])
    if isinstance(engine, PolarsEngine):
        lf, both = boundary.bind_frame(engine.lf, both, {b.y_pred_name: "baseline"})
        engine = PolarsEngine(lf)
    labels = engine.label_table(both).rename({b.y_pred_name: Q})
    key_schema = labels.collect_schema()
    schema_out = paired_schema([(k, key_schema[k]) for k in a.keys], a.weight is not None)
    table = labels.map_batches(lambda df: _derive(df, a, b).select(schema_out.names()),
                               schema=schema_out)
    rows = engine.lf if isinstance(engine, PolarsEngine) else None
    return boundary.values_hidden(table, both.bound, rows), a.keys, a


def check_negative_cells(df: pl.DataFrame) -> None:
    """Raise for a negative ``n`` or paired cell, naming the column and a few values.

    Parameters
    ----------
    df : pl.DataFrame
        A paired count table (numeric ``n`` and :data:`PAIRED_CELLS`).

    Raises
    ------
    InvalidInputError
        The first column (``n``, then the cells in order) with a negative value.

    Examples
    --------
    >>> t = pl.DataFrame({"n": [1], **{c: [0] for c in PAIRED_CELLS}})
    >>> check_negative_cells(t.with_columns(y1_p1_b1=-1))
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidInputError: paired count table: column 'y1_p1_b1' holds ...
    """
    for col in ("n", *PAIRED_CELLS):
        bad = df.filter(pl.col(col) < 0)[col]
        if bad.len():
            raise E.InvalidInputError(E.NEGATIVE_PAIRED_COUNT.format(
                column=col, values=E.show_values(bad.to_list())))


def check_paired(table: pl.LazyFrame, keys: Sequence[str] | None = None) -> tuple[pl.LazyFrame,
                                                                                   list[str]]:
    """A paired count table made elsewhere, checked and summed per key (additive).

    Parameters
    ----------
    table : pl.LazyFrame
        Keys, ``n`` and the eight cells :data:`PAIRED_CELLS` [, ``weight_sum`` and
        ``n_positive_weight``, the rows of positive weight: both or neither].
    keys : sequence of str, optional
        The key columns; default every column that is not a count.

    Returns
    -------
    table : pl.LazyFrame
        :func:`paired_schema` (integer counts widened to Int64), rows with equal keys summed,
        sorted by the keys (nulls last).
    keys : list of str
        The key columns.

    Raises
    ------
    ColumnNotFoundError
        A cell or key missing; ``weight_sum`` without ``n_positive_weight``
        (:data:`polars_fair.errors.PAIRED_POSITIVE_ROWS`).
    InvalidArgumentError
        ``n_positive_weight`` without ``weight_sum`` (it counts the rows of positive weight of
        a weighted table; :data:`polars_fair.errors.POSITIVE_ROWS_UNWEIGHTED`, said of the
        paired count table).
    InvalidInputError
        A negative count, (unweighted) an ``n`` that is not the sum of the cells, or
        (weighted) an ``n_positive_weight`` above ``n``, or 0 with a positive ``weight_sum``;
        the message names the column and shows a few values.

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "a"], "n": [2, 1], **{c: [0, 0] for c in PAIRED_CELLS}})
    >>> check_paired(t.with_columns(y1_p1_b1=pl.col("n")))[0].select("g", "n").collect().rows()
    [('a', 3)]
    """
    names = table.collect_schema().names()
    for col in ("n", *PAIRED_CELLS):
        if col not in names:
            raise E.ColumnNotFoundError(E.missing_column(col, "paired count table", names))
    weighted = "weight_sum" in names
    if weighted and POSITIVE_ROWS not in names:
        raise E.ColumnNotFoundError(E.PAIRED_POSITIVE_ROWS)
    if POSITIVE_ROWS in names and not weighted:  # it would be ignored: refused, as from_counts
        raise E.InvalidArgumentError(
            "paired " + E.POSITIVE_ROWS_UNWEIGHTED.replace("weighted cells", "weighted cells "
                                                           "of the paired table"))
    counted = {"n", *PAIRED_CELLS, "weight_sum", POSITIVE_ROWS}
    keys = [c for c in names if c not in counted] if keys is None else list(keys)
    check_reserved_keys(keys, "paired count table")
    for k in keys:
        if k not in names:
            raise E.ColumnNotFoundError(E.missing_column(k, "keys", names))
    kind = pl.Float64 if weighted else pl.Int64
    cast = table.select(*keys, pl.col("n").cast(pl.Int64),
                        *(pl.col(c).cast(kind) for c in PAIRED_CELLS),
                        *([pl.col("weight_sum").cast(pl.Float64),
                           pl.col(POSITIVE_ROWS).cast(pl.Int64)] if weighted else []))

    def check(df: pl.DataFrame) -> pl.DataFrame:
        check_negative_cells(df)
        if not weighted:
            bad_n = df.filter(pl.col("n") != pl.sum_horizontal(PAIRED_CELLS))["n"]
            if bad_n.len():
                raise E.InvalidInputError(E.PAIRED_N_MISMATCH.format(
                    values=E.show_values(bad_n.to_list())))
        else:
            pos = pl.col(POSITIVE_ROWS)
            bad_pos = df.filter((pos < 0) | (pos > pl.col("n"))
                                | ((pos == 0) & (pl.col("weight_sum") > 0)))[POSITIVE_ROWS]
            if bad_pos.len():
                raise E.InvalidInputError(E.PAIRED_POSITIVE_RANGE.format(
                    values=E.show_values(bad_pos.to_list())))
        aggs = [pl.col(c).sum() for c in df.columns if c not in keys]
        out = df.group_by(keys).agg(aggs) if keys else df.select(aggs)
        return out.sort(keys, nulls_last=True) if keys else out

    return cast.map_batches(check, schema=cast.collect_schema()), keys
