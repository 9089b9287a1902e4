"""The counting boundary: the only code that turns rows into numbers.

Every engine (Polars here, Spark in :mod:`polars_fair.counting._spark`, DuckDB in
:mod:`polars_fair.counting._duckdb`) produces the same small **label table** with one aggregation:

* for a count table, one row per (keys, label value, prediction value): the key columns,
  ``__pf_y`` (the label as stored), ``__pf_p`` (the prediction as stored, or ``score >=
  threshold`` as a Boolean), ``n`` (Int64 rows);
* for a score table, one row per (keys, score, label value): the keys, ``score`` (Float64),
  ``__pf_y``, ``n``;
* without labels (``y_true=None``: an NYC LL 144 audit reads selections or scores only) the
  label column ``__pf_y`` is absent: every row counts as a negative label in a count table
  (``fp`` = selected, ``tn`` = not selected) and as a positive in a score table;
* with ``sample_weight``, ``weight_sum`` (Float64) and the counts of null (``__pf_w_null``),
  NaN or infinite (``__pf_w_nan``) and negative (``__pf_w_neg``) weights, and of rows with a
  positive weight (``__pf_w_pos``: the rows an interval counts, as a row of weight 0 is no
  observation);
* for a thresholded score, the counts of null, NaN and infinite scores (``__pf_s_null``,
  ``__pf_s_nan``, ``__pf_s_inf``).

One function, :func:`counts_from_labels` (or :func:`scores_from_labels`), validates that table
and derives ``n, tp, fp, fn, tn``. Every unexpected label value is a key value of the label
table, so the error lists exactly the values found, and the same bad input gives the same error
type and message on every engine. A valid label table has at most four rows per group.

A NaN key value is missing, exactly as null: it becomes null here
(:func:`missing_keys_as_null`), so NaN and null rows form one missing group on every engine
(Spark and DuckDB hand NaN back as NaN).

Why one module: it is the counting boundary, the only code that reads rows,
and its validator must stay next to the label table it checks so that every engine's errors
stay identical; most lines are the documented error rules.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.core.numbers import fractional
from polars_fair.core.spec import (
    POSITIVE_WEIGHT_ROWS,
    Audit,
    decimal_digits,
    length_follows_frame,
    wide_decimal,
)
from polars_fair.core.sql import sql_name
from polars_fair.counting.conversions import failed_values, values_hidden
from polars_fair.counting.score_bounds import big_score_check

__all__ = [
    "COUNT_COLUMNS",
    "INTERSECTION_SINGLE_SHARE",
    "MAX_FLOAT_LEVELS",
    "level_cut",
    "level_kind",
    "Y",
    "P",
    "W_POS",
    "apply_group_policy",
    "bind_frame",
    "values_hidden",
    "failed_values",
    "Fineness",
    "fineness",
    "identifying",
    "check_missing_labels",
    "identifying",
    "check_weights",
    "checked",
    "counts_from_labels",
    "counts_from_sums",
    "label_table",
    "missing_keys_as_null",
    "score_label_table",
    "scores_by_sorting",
    "scores_from_labels",
    "sorted_scores_plan",
    "sums_plan",
    "sums_table",
]

COUNT_COLUMNS = ("n", "tp", "fp", "fn", "tn")
#: A float attribute with more distinct values than this must be binned first.
MAX_FLOAT_LEVELS = 50
#: An attribute (or an intersection of attributes) with at least this many levels and fewer
#: than two rows per level on average (8 distinct ages in 8 rows) or half of its levels or more
#: with a single row (a first name) is an identifier or a measurement, not a group: every
#: analysis refuses it (:func:`fineness`, :func:`too_fine`).
MIN_LEVELS_PER_ROW_CHECK = 8
#: The groups from which an intersection of several attributes is checked (:func:`too_fine`).
MIN_GROUPS_INTERSECTION_CHECK = 100
#: An intersection (from :data:`MIN_GROUPS_INTERSECTION_CHECK` groups) is refused when at least
#: this share of its groups are a single row (:func:`too_fine`): each such cell prints one
#: person's outcome (tp/fp/fn/tn), and a combination of ordinary attributes (sex, race, age,
#: priors) singles people out as a name does. A quarter, against half for one attribute: COMPAS
#: by sex x race x age x priors_count has 1,117 one-person cells of 2,246 (49.7%), which half
#: missed by 0.3%.
INTERSECTION_SINGLE_SHARE = 0.25
#: An attribute with at least this many groups, every one a single row, is refused at any size
#: (:func:`too_fine`): a filter that leaves a few rows (``--where 'id < 8'``) would otherwise
#: print one name per row. Two one-row groups stay accepted (the smallest hand-made example).
MIN_LEVELS_ALL_SINGLE = 3
Y, P = "__pf_y", "__pf_p"
_V = "__pf_"
#: The label table's count of rows with a positive weight (weighted only).
W_POS = f"{_V}w_pos"


# ------------------------------------------------------------------ Polars: rows -> label table
def _weight_aggs(weight: pl.Expr) -> list[pl.Expr]:
    w = weight.cast(pl.Float64)
    if not weight.meta.root_names():  # pl.lit(-1.0): one value a group, counted once a ROW
        w = pl.repeat(w, pl.len())
    return [
        w.sum().alias("weight_sum"),
        w.is_null().sum().cast(pl.Int64).alias(f"{_V}w_null"),
        (w.is_nan() | w.is_infinite()).sum().cast(pl.Int64).alias(f"{_V}w_nan"),
        (w < 0).sum().cast(pl.Int64).alias(f"{_V}w_neg"),
        (w > 0).sum().cast(pl.Int64).alias(W_POS),
    ]


def _row_aggs(a: Audit) -> list[pl.Expr]:
    """The rows of a label table's group (``n``, Int64) and, with weights, their checks."""
    return [pl.len().cast(pl.Int64).alias("n"),
            *(_weight_aggs(a.weight) if a.weight is not None else [])]


def _big_scores(a: Audit) -> list[pl.Expr]:
    """The count of scores a float cannot hold (:func:`.score_bounds.big_score_check`)."""
    check = big_score_check(a)
    if check is None or a.score is None:
        return []
    bound = check.bound
    big = (decimal_digits(a.score) > bound if check.kind == "digits"
           else ~a.score.is_between(-bound, bound))
    return [big.sum().cast(pl.Int64).alias(f"{_V}s_big")]


def _score_aggs(a: Audit) -> list[pl.Expr]:
    assert a.score is not None
    s = a.score.cast(pl.Float64)
    return [
        s.null_count().cast(pl.Int64).alias(f"{_V}s_null"),
        s.is_nan().sum().cast(pl.Int64).alias(f"{_V}s_nan"),
        s.is_infinite().sum().cast(pl.Int64).alias(f"{_V}s_inf"),
        *_big_scores(a),
    ]


def _keys(a: Audit) -> list[pl.Expr]:
    return [e.alias(k) for e, k in zip(a.key_exprs, a.keys, strict=True)]


def _is_column(expr: pl.Expr) -> bool:
    """Whether ``expr`` is a column as it is (``pl.col("x")``, aliased or not)."""
    try:
        return expr.meta.undo_aliases().meta.is_column()
    except pl.exceptions.PolarsError:  # pragma: no cover - an expression Polars cannot inspect
        return False


def bind_frame(lf: pl.LazyFrame, a: Audit,
               key_roles: Mapping[str, str] | None = None) -> tuple[pl.LazyFrame, Audit]:
    """Evaluate every expression argument over the whole frame, before the grouping.

    An expression given as ``by``, ``y_true``, ``y_pred``, ``y_score`` or ``sample_weight``
    means what it means in ``lf.with_columns(...)``: ``pl.lit(1)`` is 1 on every row,
    ``pl.col("s") >= pl.col("s").quantile(0.8)`` selects the frame-wide top 20%, ``pl.len()``
    is the frame's row count, a ``cum_sum`` runs over the frame in its order. Each one becomes a
    column ``__pf_b<i>`` of one ``with_columns`` that the group-by reads in the same lazy query
    (one scan); a plain column is read as it is, so a call with column names has the plan it
    had. A thresholded prediction is rebuilt from the bound score; the names (``keys``,
    ``*_name``) stay those of the arguments, so messages name them.

    Parameters
    ----------
    lf : pl.LazyFrame
        The rows.
    a : Audit
        The resolved call.
    key_roles : mapping of str to str, optional
        The argument that gave a key, by key name, when it is not ``by`` (``time`` of a
        monitor, ``baseline`` of a comparison): the name an error gives it.

    Returns
    -------
    lf : pl.LazyFrame
        ``lf`` with the bound columns added (``lf`` itself when every argument is a column).
        An expression whose length may differ from the frame's (a ``pl.lit(pl.Series(...))``,
        ``pl.int_range(3)``: :func:`polars_fair.core.spec.length_follows_frame`) is bound
        on the rows at collect time, where another length raises ``NotRowLevelError`` naming
        the argument (on a lazy frame too, instead of Polars' ``ShapeError``).
    a : Audit
        ``a`` whose expressions read the bound columns.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1]})
    >>> a = resolve(lf.collect_schema(), "g", y_pred=pl.lit(1))
    >>> bound, b = bind_frame(lf, a)
    >>> bound.collect()["__pf_b0"].to_list(), b.y_pred_name
    ([1, 1, 1], 'literal')
    """
    new: dict[str, pl.Expr] = {}
    roles: dict[str, str] = {}  # the bound columns whose length must be checked on the rows
    texts: list[tuple[pl.Expr, str]] = []  # (expression, argument): named by values_hidden
    schema = lf.collect_schema()

    def column(e: pl.Expr, role: str) -> pl.Expr:
        if _is_column(e):
            return e
        name = f"{_V}b{len(new)}"
        new[name] = e
        texts.append((e, role))
        if not length_follows_frame(e, schema):
            roles[name] = role
        return pl.col(name)

    def bind(e: pl.Expr | None, role: str) -> pl.Expr | None:
        return None if e is None else column(e, role)

    keys = [column(e, (key_roles or {}).get(k, "by")) for e, k in
            zip(a.key_exprs, a.keys, strict=True)]
    y_true, weight = bind(a.y_true, "y_true"), bind(a.weight, "sample_weight")
    score = bind(a.score, "y_score")
    if a.y_pred_role == "y_score" and a.threshold is not None:
        assert score is not None
        y_pred: pl.Expr | None = score >= pl.lit(a.threshold)
    else:
        y_pred = bind(a.y_pred, a.y_pred_role)
    if not new:
        return lf, a
    bound = lf.with_columns(**new)
    if roles:  # a length that does not follow the frame's: checked on the rows, typed
        bound = lf.map_batches(lambda df: _with_lengths_checked(df, new, roles),
                               schema=bound.collect_schema())
    return bound, replace(a, key_exprs=keys, y_true=y_true, score=score, weight=weight,
                          y_pred=y_pred, bound=tuple(texts))


def _with_lengths_checked(df: pl.DataFrame, new: dict[str, pl.Expr],
                          roles: dict[str, str]) -> pl.DataFrame:
    """``df.with_columns(**new)``; a column of another length than ``df`` is NotRowLevelError.

    Runs on the rows at collect time (:func:`bind_frame`), only for the expressions whose
    length Polars cannot promise (:func:`polars_fair.core.spec.length_follows_frame`), so the
    error names the argument on a lazy frame too, where Polars' own error (``ShapeError``,
    ``InvalidOperationError``) would surface from ``collect()``.
    """
    try:
        return df.with_columns(**new)
    except pl.exceptions.PolarsError as error:
        for name, role in roles.items():
            try:
                height: int | None = df.select(new[name]).height
            except pl.exceptions.ShapeError:
                height = None  # its own parts differ in length (pl.col("x") + a Series)
            except pl.exceptions.PolarsError:
                continue  # an error of its own, not of its length: Polars' message says it
            if height != df.height:
                got = "parts of different lengths" if height is None else \
                    f"{height:,} value{'' if height == 1 else 's'}"
                raise E.NotRowLevelError(E.FRAME_LENGTH.format(
                    role=role, expr=new[name], got=got, rows=df.height)) from None
        raise error


def label_table(lf: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """The Polars label table of a count table: one ``group_by`` over keys, label, prediction.

    About the cost of a bare group-by over the keys: a valid table has at most four rows per
    group, and the labels' checks read that small table.

    Parameters
    ----------
    lf : pl.LazyFrame
        The rows.
    a : Audit
        The resolved call (:func:`polars_fair.core.spec.resolve`), with a prediction.

    Returns
    -------
    pl.LazyFrame
        Unsorted, one row per (keys, label value, prediction value): the keys, ``__pf_y`` (the
        label as stored; absent when ``a.y_true`` is ``None``), ``__pf_p`` (the prediction as
        stored, or Boolean ``score >= threshold``), ``n`` (Int64 rows); with weights
        ``weight_sum`` (Float64) and ``__pf_w_null``, ``__pf_w_nan``, ``__pf_w_neg``,
        ``__pf_w_pos`` (Int64 counts of null, NaN or infinite, negative and positive
        weights); for a thresholded score ``__pf_s_null``, ``__pf_s_nan``, ``__pf_s_inf``
        (Int64 counts of bad scores).

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0]})
    >>> label_table(lf, resolve(lf.collect_schema(), "g")).collect().sort("g", Y).rows()
    [('a', 0, 1, 1), ('a', 1, 1, 1), ('b', 1, 0, 1)]
    """
    assert a.y_pred is not None
    aggs = _row_aggs(a)
    if a.score is not None:
        aggs += _score_aggs(a)
    labels = [a.y_true.alias(Y)] if a.y_true is not None else []
    return lf.group_by([*_keys(a), *labels, a.y_pred.alias(P)]).agg(aggs)


def score_label_table(lf: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """The Polars label table of a score table: one ``group_by`` over keys, score, label.

    Parameters
    ----------
    lf : pl.LazyFrame
        The rows.
    a : Audit
        The resolved call (``resolve(..., scores=True)``).

    Returns
    -------
    pl.LazyFrame
        Unsorted, one row per (keys, score, label value): the keys, ``score`` (Float64, the
        score as given, widened), ``__pf_y`` (the label as stored; absent without labels),
        ``n`` (Int64 rows); with weights ``weight_sum`` (Float64) and the Int64 counts
        ``__pf_w_null``, ``__pf_w_nan``, ``__pf_w_neg``.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1],
    ...                    "y_score": [0.9, 0.2, 0.2]})
    >>> a = resolve(lf.collect_schema(), "g", y_score="y_score", scores=True)
    >>> score_label_table(lf, a).collect().sort("g", "score").rows()
    [('a', 0.2, 0, 1), ('a', 0.9, 1, 1), ('b', 0.2, 1, 1)]
    """
    assert a.score is not None
    aggs = [*_row_aggs(a), *_big_scores(a)]
    score = a.score.cast(pl.Float64).alias("score")
    labels = [a.y_true.alias(Y)] if a.y_true is not None else []
    return lf.group_by([*_keys(a), score, *labels]).agg(aggs)


# ------------------------------------------------------------------ one validator, every engine
def _total(df: pl.DataFrame, col: str) -> Any:
    return df[col].sum() if col in df.columns else 0


def _others(df: pl.DataFrame, col: str, pos: Any) -> list[Any]:
    values = df.filter(pl.col(col).is_not_null() & (pl.col(col) != pl.lit(pos)))[col]
    if values.dtype.is_float():
        values = values.filter(~values.is_nan())
    found = values.unique().to_list()
    try:
        return sorted(found)
    except TypeError:
        return found


def check_missing_labels(df: pl.DataFrame, col: str, name: str, role: str) -> None:
    """Raise :class:`~polars_fair.errors.NullValuesError` for null or NaN labels or classes.

    Parameters
    ----------
    df : pl.DataFrame
        A label or class table (``col`` and ``n``).
    col : str
        The class column of ``df``.
    name : str
        The column's name as the user gave it.
    role : str
        ``"y_true"`` or ``"y_pred"``.

    Raises
    ------
    NullValuesError
        The count of rows whose class is null, or NaN.

    Examples
    --------
    >>> check_missing_labels(pl.DataFrame({"p": [None, 1], "n": [2, 1]}), "p", "risk", "y_pred")
    Traceback (most recent call last):
    ...
    polars_fair.errors.NullValuesError: column 'risk' (y_pred) holds 2 null value(s); ...
    """
    nulls = int(df.filter(pl.col(col).is_null())["n"].sum())
    if nulls:
        raise E.NullValuesError(E.NULL_LABELS.format(column=name, role=role, count=nulls),
                                cli_message=E.CLI_NULL_LABELS.format(column=name, role=role,
                                                                     count=nulls))
    if df.schema[col].is_float():
        nans = int(df.filter(pl.col(col).is_nan())["n"].sum())
        if nans:
            raise E.NullValuesError(E.NAN_LABELS.format(column=name, role=role, count=nans))


_UNKNOWN = object()


def _plain_values(df: pl.DataFrame, col: str, pos: Any) -> list[Any] | None:
    """The values of ``col`` as Python values, when Python's ``==`` is Polars' (else None).

    Integer columns with an integer ``pos``, strings with a string, Booleans with a Boolean:
    no NaN, no signed zero, no cast between kinds.
    """
    dtype = df.schema[col]
    kind = bool if dtype == pl.Boolean else str if dtype == pl.String else \
        int if dtype.is_integer() else None
    if kind is None or type(pos) is not kind:
        return None
    return df[col].to_list()


def _quick_other(df: pl.DataFrame, col: str, pos: Any) -> Any:
    """:func:`_check_label`'s answer read from the values in Python, when it is no error.

    A small table's column without nulls and with at most one value besides ``pos`` passes
    every check of :func:`_check_label`; its other value (or ``None``) is returned without a
    query. Anything else (a null, more values, a float or another kind) is :data:`_UNKNOWN`:
    the checks run, and raise.
    """
    values = _plain_values(df, col, pos)
    if values is None or None in values:
        return _UNKNOWN
    others = {v for v in values if v != pos}
    if len(others) > 1:
        return _UNKNOWN
    return others.pop() if others else None


def _hide_identifying_values(df: pl.DataFrame, col: str, name: str, role: str, pos: Any) -> None:
    """Raise the label error without values for a column whose values may identify people.

    The rule of attributes (:func:`identifying`), with what was counted.
    """
    found = identifying(df, col)
    if found.why is not None:
        raise E.InvalidLabelError(E.TOO_MANY_VALUES_HIDDEN.format(
            column=name, role=role, pos_label=pos, dtype=df.schema[col], levels=found.levels,
            rows=found.rows, why=found.why))


def _check_label(df: pl.DataFrame, col: str, name: str, role: str, pos: Any) -> Any:
    """Check nulls, NaN and the values besides ``pos`` of one label column.

    Returns the other value (or ``None`` when the column holds ``pos`` only).
    """
    quick = _quick_other(df, col, pos)
    if quick is not _UNKNOWN:
        return quick
    check_missing_labels(df, col, name, role)
    others = _others(df, col, pos)
    if len(others) == 2 and df[col].drop_nulls().n_unique() == 2:  # two values, neither pos
        _hide_identifying_values(df, col, name, role, pos)
        raise E.pos_label_not_held(name, role, pos, others)
    if len(others) > 1:
        numeric = all(isinstance(v, float) for v in others)
        if role == "y_pred" and numeric and min(others) >= 0 and max(others) <= 1:
            raise E.InvalidLabelError(E.LOOKS_LIKE_SCORES.format(
                column=name, role=role, low=min(others), high=max(others), pos_label=pos))
        _hide_identifying_values(df, col, name, role, pos)
        if role == "y_pred":
            held = df.filter(pl.col(col) == pos)["n"].sum() > 0
            found = sorted([*([pos] if held else []), *others], key=lambda v: (str(type(v)), v))
            raise E.class_error(E.InvalidLabelError, E.TOO_MANY_CLASSES,
                                E.CLI_TOO_MANY_CLASSES, column=name, role=role, pos_label=pos,
                                values=E.Classes(others),
                                classes=E.Classes(found, name, every=True))
        if role == "y_true" and all(isinstance(v, str) for v in others):  # text: compare it
            raise E.too_many_labels(name, pos, others,
                                    held=df.filter(pl.col(col) == pos)["n"].sum() > 0)
        raise E.class_error(E.InvalidLabelError, E.TOO_MANY_VALUES, column=name, role=role,
                            pos_label=pos, values=E.Classes(others))
    return others[0] if others else None


def _check_weight_values(df: pl.DataFrame, a: Audit) -> None:
    """Raise :class:`~polars_fair.errors.InvalidWeightError` from the weight counts."""
    if a.weight_name is None:
        return
    nulls, nans, negs = (_total(df, f"{_V}w_{x}") for x in ("null", "nan", "neg"))
    if nulls or nans or negs:
        raise E.InvalidWeightError(
            E.BAD_WEIGHTS.format(column=a.weight_name, nulls=nulls, nans=nans, negatives=negs)
        )


def _check_scores(df: pl.DataFrame, a: Audit) -> None:
    big = _total(df, f"{_V}s_big")
    if big:
        template = E.SCORE_DECIMAL_DIGITS if wide_decimal(a.score_dtype) else E.SCORE_BEYOND_FLOAT
        raise E.InvalidScoreError(template.format(
            column=a.score_name, dtype=a.score_dtype, count=big))
    if f"{_V}s_null" in df.columns:
        nulls, nans, infs = (_total(df, f"{_V}s_{x}") for x in ("null", "nan", "inf"))
    elif "score" in df.columns:
        s = pl.col("score")
        nulls = _total(df.filter(s.is_null()), "n")
        nans = _total(df.filter(s.is_nan()), "n")
        infs = _total(df.filter(s.is_infinite()), "n")
    else:
        return
    if nulls or nans or infs:
        raise E.InvalidScoreError(
            E.BAD_SCORES.format(column=a.score_name, nulls=nulls, nans=nans, infinite=infs)
        )


def _sql_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    return repr(value)


def negatives_error(a: Audit, neg_true: Any, neg_pred: Any) -> E.InvalidLabelError:
    """NEGATIVES_DIFFER, advising to map the prediction's negative value onto the label's.

    The advice fits the way the rows came: a Polars expression (``y_pred=pl.col('p').replace(
    -1, 0)``), SQL for a DuckDB or Spark relation, and a SQL ``--y-pred`` on the command line
    (its ``cli_message``). The prediction's argument is named (``baseline`` for a baseline).

    Parameters
    ----------
    a : Audit
        The resolved call.
    neg_true, neg_pred : Any
        The label's and the prediction's values other than ``pos_label``.

    Returns
    -------
    InvalidLabelError
        The error, with its command-line wording as ``cli_message``.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> schema = pl.Schema({"y_true": pl.Int64, "y_pred": pl.Int64})
    >>> err = negatives_error(resolve(schema, None), 0, -1)
    >>> print(str(err).split("; ")[1])
    map one onto the other first, for example y_pred=pl.col('y_pred').replace(-1, 0)
    >>> print(err.cli_message.split("; ")[1])
    map one onto the other first, for example --y-pred "CASE WHEN y_pred = -1 THEN 0 ELSE y_pred END"
    """  # noqa: E501
    role, column = a.y_pred_role, a.y_pred_name
    assert column is not None
    sql = column if column.isidentifier() else '"' + column.replace('"', '""') + '"'
    values = {"neg_true": neg_true, "neg_pred": neg_pred, "sql": sql,
              "neg_true_sql": _sql_literal(neg_true), "neg_pred_sql": _sql_literal(neg_pred)}
    if a.way == "relation":
        advice = E.RELATION_NEGATIVES_ADVICE.format(**values, role=role,
                                                    mapped=f"{column}_mapped")
    else:
        advice = E.NEGATIVES_ADVICE.format(**values, role=role, column=column)
    facts = {"y_true": a.y_true_name, "y_pred": column, "neg_true": neg_true,
             "neg_pred": neg_pred, "pos_label": a.pos_label}
    cli = E.CLI_NEGATIVES_ADVICE.format(**{**values, "sql": E.shell_escaped(sql)},
                                        flag=role.replace("_", "-"))

    def text(advice: str) -> str:  # a baseline's message names its argument
        return E.NEGATIVES_DIFFER.format(**facts, advice=advice).replace(
            "y_pred column", f"{role} column", 1)

    return E.InvalidLabelError(text(advice), cli_message=text(cli))


def validate_labels(df: pl.DataFrame, a: Audit, *, positive: bool = True) -> None:
    """Every input error of a label table (count or score), in a fixed order.

    Scores first, then nulls, NaN and extra values of the label and the prediction, then
    whether both use the same negative value, whether ``pos_label`` occurs at all (unless
    ``positive`` is false: a paired table asks it of both models at once,
    :func:`holds_positive`), and weights.
    """
    _check_scores(df, a)
    neg_true = None
    if Y in df.columns:
        assert a.y_true_name is not None
        neg_true = _check_label(df, Y, a.y_true_name, "y_true", a.pos_true)
    neg_pred = None
    if P in df.columns:
        assert a.y_pred_name is not None
        neg_pred = _check_label(df, P, a.y_pred_name, a.y_pred_role, a.pos_pred)
        if a.score is None and neg_true is not None and neg_pred is not None \
                and neg_true != neg_pred:
            raise negatives_error(a, neg_true, neg_pred)
        if positive and a.score is None and Y in df.columns and df["n"].sum() \
                and not holds_positive(df, a):
            found = sorted({repr(v) for v in (neg_true, neg_pred) if v is not None})
            raise E.InvalidLabelError(E.POS_LABEL_ABSENT.format(
                pos_label=a.pos_label, y_true=a.y_true_name, y_pred=a.y_pred_name,
                values="[" + ", ".join(found) + "]"))
    check_weights(df, a)


def holds_positive(df: pl.DataFrame, a: Audit) -> bool:
    """Whether some row of a label table has the positive label or the positive prediction.

    Parameters
    ----------
    df : pl.DataFrame
        A label table (the label ``__pf_y`` and the prediction ``__pf_p``).
    a : Audit
        The resolved call (``pos_true``, ``pos_pred``).

    Returns
    -------
    bool

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> t = pl.DataFrame({Y: [0, 0], P: [0, 1], "n": [3, 1]})
    >>> a = resolve(pl.Schema({"y_true": pl.Int64, "y_pred": pl.Int64}), None)
    >>> holds_positive(t, a), holds_positive(t.head(1), a)
    (True, False)
    """
    labels, preds = _plain_values(df, Y, a.pos_true), _plain_values(df, P, a.pos_pred)
    if labels is not None and preds is not None:
        return a.pos_true in labels or a.pos_pred in preds
    held = df.filter((pl.col(Y) == pl.lit(a.pos_true)) | (pl.col(P) == pl.lit(a.pos_pred)))
    return held.height > 0


def check_weights(df: pl.DataFrame, a: Audit) -> None:
    """Raise :class:`~polars_fair.errors.InvalidWeightError` from a label table's weight columns.

    Null, NaN, infinite or negative weights (their counts), then a group's or the whole
    population's weight sum that overflows to infinity.

    Parameters
    ----------
    df : pl.DataFrame
        A label table (the keys, ``weight_sum`` and the weight checks' counts).
    a : Audit
        The resolved call (its ``weight_name`` and keys).

    Raises
    ------
    InvalidWeightError
        Bad weights, or a weight sum beyond the largest float.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> schema = pl.Schema({"y_true": pl.Int64, "y_pred": pl.Int64, "w": pl.Float64})
    >>> a = resolve(schema, None, sample_weight="w")
    >>> check_weights(pl.DataFrame({"weight_sum": [1.0], "__pf_w_neg": [2]}), a)
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidWeightError: sample_weight column 'w' holds 0 null, 0 NaN or ...
    """
    _check_weight_values(df, a)
    if "weight_sum" in df.columns:
        w = df.group_by(a.keys).agg(pl.col("weight_sum").sum()) if a.keys else \
            df.select(pl.col("weight_sum").sum())
        inf = w.filter(pl.col("weight_sum").is_infinite()).height
        if inf:
            raise E.InvalidWeightError(E.WEIGHT_OVERFLOW.format(column=a.weight_name, count=inf))
        # the whole population (and every roll-up, weights being >= 0) must be finite too
        if not math.isfinite(float(df["weight_sum"].sum() or 0.0)):
            raise E.InvalidWeightError(E.WEIGHT_TOTAL_OVERFLOW.format(column=a.weight_name))


def missing_keys_as_null(df: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """NaN in a float key becomes null: a missing attribute value is missing, whatever its form.

    Parameters
    ----------
    df : pl.DataFrame
        A small table with the key columns (a label table).
    keys : sequence of str
        The key columns; only those of a float dtype change.

    Returns
    -------
    pl.DataFrame
        ``df`` with every NaN key value replaced by null (same columns and dtypes).

    Examples
    --------
    >>> df = pl.DataFrame({"g": [1.0, float("nan"), None], "n": [1, 2, 3]})
    >>> missing_keys_as_null(df, ["g"])["g"].to_list()
    [1.0, None, None]
    """
    floats = [k for k in keys if df.schema[k].is_float()]
    if not floats:
        return df
    return df.with_columns(pl.col(k).fill_nan(None) for k in floats)


def apply_group_policy(df: pl.DataFrame, a: Audit) -> pl.DataFrame:
    """The empty-input check, the null-group policy and the float-attribute check.

    Works on any small table with the audit's keys and an ``n`` column (a label table). A NaN
    key is missing exactly as a null one (:func:`missing_keys_as_null`): counted by ``"raise"``,
    dropped by ``"drop"``, kept as the one missing group by ``"keep"``.

    Parameters
    ----------
    df : pl.DataFrame
        A label table (the keys and ``n``).
    a : Audit
        The resolved call: its keys, ``null_groups`` and ``float_keys``.

    Returns
    -------
    pl.DataFrame
        ``df`` with NaN keys as null, without the rows whose key is null when
        ``a.null_groups == "drop"``.

    Raises
    ------
    EmptyFrameError
        No rows (``n`` sums to 0), before or after dropping null groups.
    NullGroupError
        A key holds nulls and ``a.null_groups == "raise"`` (the message gives their counts).
    TooManyLevelsError
        A float key with more than :data:`MAX_FLOAT_LEVELS` distinct values, or a key too
        fine to form groups (:func:`check_row_levels`).

    Warns
    -----
    UserWarning
        With ``null_groups="drop"``: how many rows were dropped, per key.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> schema = pl.Schema({"g": pl.String, "y_true": pl.Int64, "y_pred": pl.Int64})
    >>> df = pl.DataFrame({"g": ["a", None], "n": [3, 1]})
    >>> apply_group_policy(df, resolve(schema, "g")).rows()
    [('a', 3), (None, 1)]
    >>> apply_group_policy(df, resolve(schema, "g", null_groups="raise"))
    Traceback (most recent call last):
    ...
    polars_fair.errors.NullGroupError: attribute column(s) hold null (or NaN) values: {'g': 1}. ...
    """
    if df.height == 0 or not df["n"].sum():
        raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=""))
    df = missing_keys_as_null(df, a.keys)
    null_counts = {k: int(df.filter(pl.col(k).is_null())["n"].sum()) for k in a.keys
                   if df[k].null_count()}
    null_counts = {k: v for k, v in null_counts.items() if v}
    if null_counts and a.null_groups == "raise":
        raise E.NullGroupError(E.NULL_GROUPS.format(counts=null_counts))
    if null_counts and a.null_groups == "drop":
        mask = pl.any_horizontal([pl.col(k).is_null() for k in a.keys])
        rows = int(df.filter(mask)["n"].sum())
        df = df.filter(~mask)
        warnings.warn(E.DROPPED_NULL_GROUPS.format(rows=rows, counts=null_counts), stacklevel=2)
        if df.height == 0 or not df["n"].sum():
            raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=" after dropping null groups"))
    check_float_levels(df, a.float_keys, way=a.way)
    check_row_levels(df, [k for k in a.keys if k not in a.not_attributes], way=a.way,
                     intersection=a.check_intersection, binned=a.binned)
    return df


def level_kind(dtype: pl.DataType) -> str:
    """The kind of an attribute's dtype, which picks the advice of a level error.

    Parameters
    ----------
    dtype : pl.DataType
        The attribute's dtype.

    Returns
    -------
    str
        ``"number"``, ``"date"`` (Date, Datetime), ``"time"``, ``"duration"`` or ``"text"``
        (strings, categories and every other dtype): a key of
        :data:`polars_fair.errors.LEVELS_ADVICE`.

    Examples
    --------
    >>> level_kind(pl.Float64), level_kind(pl.Date), level_kind(pl.String)
    ('number', 'date', 'text')
    """
    if dtype.is_numeric():
        return "number"
    if dtype == pl.Date or isinstance(dtype, pl.Datetime):
        return "date"
    if dtype == pl.Time:
        return "time"
    if isinstance(dtype, pl.Duration):
        return "duration"
    return "text"


def check_float_levels(df: pl.DataFrame, float_keys: Sequence[str], *, way: str = "rows") -> None:
    """Raise :class:`~polars_fair.errors.TooManyLevelsError` for a float key with many levels.

    Many: more than :data:`MAX_FLOAT_LEVELS` distinct values in a grouped table. The message
    gives counts and the dtype, never a value (:func:`polars_fair.errors.levels_error`).

    Parameters
    ----------
    df : pl.DataFrame
        A label table (the keys and ``n``).
    float_keys : sequence of str
        The float attribute columns.
    way : {"rows", "table", "relation"}, default "rows"
        How the table arrived, which picks the advice (:func:`polars_fair.errors.levels_error`).

    Raises
    ------
    TooManyLevelsError
        A float key with more than :data:`MAX_FLOAT_LEVELS` distinct values.

    Examples
    --------
    >>> df = pl.DataFrame({"x": [i / 10 for i in range(60)], "n": [2] * 60})
    >>> check_float_levels(df, ["x"])
    Traceback (most recent call last):
    ...
    polars_fair.errors.TooManyLevelsError: attribute 'x' is a Float64 column with 60 distinct ...
    """
    for k in float_keys:
        present = df.filter(pl.col(k).is_not_null())[k]
        levels = present.n_unique()
        if levels > MAX_FLOAT_LEVELS:
            raise E.levels_error(k, df.schema[k], levels, int(df["n"].sum()),
                                 kind="number", float_limit=MAX_FLOAT_LEVELS, way=way,
                                 sql=sql_name(k), cut=level_cut(present))


def check_row_levels(df: pl.DataFrame, keys: Sequence[str], *, way: str = "rows",
                     intersection: bool = True,
                     binned: Mapping[str, pl.DataType] | None = None) -> None:
    """Raise :class:`~polars_fair.errors.TooManyLevelsError` for a key too fine to group.

    Too fine to form groups (:func:`fineness`): at least :data:`MIN_LEVELS_PER_ROW_CHECK`
    distinct (non-null) values, and fewer than two rows per value on average or half of the
    values or more on a single row, or at least :data:`MIN_LEVELS_ALL_SINGLE` values of a
    single row each (at any size), in a grouped table whose ``n`` counts rows. Such a column
    cannot form groups that say anything, and often identifies people (a name, a date of
    birth, an id): every dtype is checked, and the message gives counts and the dtype, never a
    value (:func:`polars_fair.errors.levels_error`, with advice for the dtype's kind,
    :func:`level_kind`). The same rule then applies to the intersection of the keys, the
    groups actually counted (:func:`polars_fair.errors.intersection_error`: the attributes'
    names and counts): a first name and an age, each fine alone, can name a person together.

    Parameters
    ----------
    df : pl.DataFrame
        A label table (the keys and ``n``).
    keys : sequence of str
        The attribute columns, of any dtype.
    way : {"rows", "table", "relation"}, default "rows"
        How the table arrived, which picks the advice (:func:`polars_fair.errors.levels_error`).
    intersection : bool, default True
        Also check the intersection of several keys (``False`` where only groups with a
        minimum support are ever shown: the level-wise counts of ``divergence``).
    binned : mapping of str to pl.DataType, optional
        The keys that ``divergence``'s ``bins=`` cut into bins, with their dtypes before: such
        a key is described by that dtype and its advice is fewer bins
        (:func:`polars_fair.errors.binned_levels_error`), not that of a text column.

    Raises
    ------
    TooManyLevelsError
        A key, or the intersection of the keys, too fine to form groups; the message says
        which part of the rule the counts met (:attr:`Fineness.why`).

    Examples
    --------
    >>> df = pl.DataFrame({"age": [21, 22, 23, 24, 25, 26, 27, 28], "n": [1] * 8})
    >>> check_row_levels(df, ["age"])
    Traceback (most recent call last):
    ...
    polars_fair.errors.TooManyLevelsError: attribute 'age' is a Int64 column with 8 distinct ...
    """
    rows = int(df["n"].sum())
    binned = binned or {}
    for k in keys:
        dtype = df.schema[k]
        found = fineness(df, [k], rows, unit="bin" if k in binned else None)
        if found.why is not None and k in binned:  # its bins' labels are text, it is not
            raise E.binned_levels_error(k, binned[k], found.levels, rows, why=found.why)
        if found.why is not None:
            raise E.levels_error(k, dtype, found.levels, rows, kind=level_kind(dtype),
                                 why=found.why, way=way, sql=sql_name(k), cut=level_cut(df[k]))
    if len(keys) > 1 and intersection:
        found = fineness(df, keys, rows)
        if found.why is not None:
            raise E.intersection_error(keys, found.levels, rows, why=found.why, way=way)


def level_cut(values: pl.Series) -> str:
    """The cut-off of the advice to bin a numeric attribute, inside its range (never a value).

    :func:`polars_fair.errors.cut_off` over the least, greatest and median of the distinct
    non-null values; ``30`` for a column that is not numeric.

    Parameters
    ----------
    values : pl.Series
        The attribute's values (a key column of a label table).

    Returns
    -------
    str

    Examples
    --------
    >>> level_cut(pl.Series([0.1, 0.35, 0.8])), level_cut(pl.Series(["a", "b"]))
    ('0.5', '30')
    """
    if not values.dtype.is_numeric():  # a Decimal too: its cut-off is inside its range
        return "30"
    present = values.drop_nulls().cast(pl.Float64)
    present = present.filter(present.is_finite())
    if present.is_empty():
        return "30"
    low, high, middle = (float(x) for x in (present.min(), present.max(),  # type: ignore[arg-type]
                                             present.median()))
    return E.cut_off(low, high, middle)


def too_fine(df: pl.DataFrame, keys: Sequence[str], rows: int) -> tuple[int, bool]:
    """The groups of ``keys`` (none null) and whether they are too fine to form groups.

    Too fine: at least :data:`MIN_LEVELS_PER_ROW_CHECK` groups (of an intersection of several
    attributes, :data:`MIN_GROUPS_INTERSECTION_CHECK`), and fewer than two rows per group on
    average or half of the groups or more with a single row (``n``; of an intersection, a
    quarter or more, :data:`INTERSECTION_SINGLE_SHARE`); or, for one attribute at
    any size, at least :data:`MIN_LEVELS_ALL_SINGLE` groups that are each a single row (a filter
    that leaves six defendants would otherwise show six names). The one rule of an
    attribute and of an intersection (:func:`check_row_levels`), and of whether an error may
    show a label's values (:func:`identifying`). An intersection of a few
    legitimate attributes in a small sample often has cells of one row (race × sex × age band
    in 50 rows): it is judged from 100 groups up, where cells of one row name people (a first
    name with an age: 6,042 groups in 7,214 rows). :func:`fineness` says which part decided.

    Parameters
    ----------
    df : pl.DataFrame
        A label or count table (the keys and ``n``, several rows per group allowed).
    keys : sequence of str
        The attributes whose groups are counted.
    rows : int
        The rows of the table (``n`` summed).

    Returns
    -------
    tuple of (int, bool)
        The number of groups and the decision.

    Examples
    --------
    >>> df = pl.DataFrame({"g": list("abcdefgh") * 2 + ["a"], "n": [1] * 8 + [2] * 8 + [1]})
    >>> too_fine(df, ["g"], 25)  # 8 groups of 3 or 4 rows
    (8, False)
    >>> too_fine(pl.DataFrame({"g": list("abcdefgh"), "n": [1] * 4 + [9] * 4}), ["g"], 40)
    (8, True)
    >>> too_fine(pl.DataFrame({"g": list("abc"), "n": [1, 1, 1]}), ["g"], 3)  # one row each
    (3, True)
    >>> too_fine(pl.DataFrame({"g": list("abc"), "n": [1, 1, 2]}), ["g"], 4)
    (3, False)
    """
    found = fineness(df, keys, rows)
    return found.levels, found.why is not None


class Fineness(NamedTuple):
    """What :func:`fineness` counted: the groups, the rows, the one-row groups, and why.

    Parameters
    ----------
    levels : int
        The groups (distinct non-null values, or combinations of them).
    rows : int
        The rows counted.
    singles : int
        The groups of a single row.
    why : str or None
        Why the groups are too fine, as the messages say it (counts only), or ``None``.

    Examples
    --------
    >>> Fineness(3, 3, 3, "each of the 3 values is a single row").why is None
    False
    """

    levels: int
    rows: int
    singles: int
    why: str | None


def fineness(df: pl.DataFrame, keys: Sequence[str], rows: int, *,
             unit: str | None = None) -> Fineness:
    """:func:`too_fine`'s counts, with the part of the rule that decided, said exactly.

    Parameters
    ----------
    df : pl.DataFrame
        A label or count table (the keys and ``n``, several rows per group allowed).
    keys : sequence of str
        The attributes (or the one label) whose groups are counted.
    rows : int
        The rows of the table (``n`` summed).
    unit : str, optional
        What ``why`` calls a group: by default ``value`` for one column, ``group`` for an
        intersection (``bin`` for an attribute binned by ``bins=``).

    Returns
    -------
    Fineness
        ``why`` is :data:`~polars_fair.errors.WHY_ALL_SINGLE`,
        :data:`~polars_fair.errors.WHY_FEW_ROWS` or :data:`~polars_fair.errors.WHY_SINGLES`
        filled in (``value`` for one column, ``group`` for an intersection), or ``None`` when
        the groups are not too fine.

    Examples
    --------
    >>> fineness(pl.DataFrame({"g": list("abc"), "n": [1, 1, 1]}), ["g"], 3).why
    'each of the 3 values is a single row'
    >>> fineness(pl.DataFrame({"g": list("abcdefgh"), "n": [1] * 7 + [2]}), ["g"], 9).why
    'fewer than two rows per value on average'
    >>> fineness(pl.DataFrame({"g": list("abcdefgh"), "n": [1] * 4 + [9] * 4}), ["g"], 40).why
    '4 of the 8 values (half or more) are a single row each'
    """
    sizes = (df.filter(pl.all_horizontal([pl.col(k).is_not_null() for k in keys])
                       & (pl.col("n") > 0))
             .group_by(keys).agg(pl.col("n").sum()))
    levels, singles = sizes.height, int((sizes["n"] == 1).sum())
    least = MIN_LEVELS_PER_ROW_CHECK if len(keys) == 1 else MIN_GROUPS_INTERSECTION_CHECK
    facts = {"levels": levels, "rows": rows, "singles": singles,
             "unit": unit or ("value" if len(keys) == 1 else "group")}
    share = 0.5 if len(keys) == 1 else INTERSECTION_SINGLE_SHARE
    why = None
    if len(keys) == 1 and levels >= MIN_LEVELS_ALL_SINGLE and singles == levels:
        why = E.WHY_ALL_SINGLE.format(**facts)
    elif levels >= least and 2 * levels > rows:
        why = E.WHY_FEW_ROWS.format(**facts)
    elif levels >= least and singles >= share * levels:  # a quarter of an intersection's
        why = E.WHY_SINGLES.format(**facts, share="half" if share == 0.5 else "a quarter")
    return Fineness(levels, rows, singles, why)


def identifying(df: pl.DataFrame, column: str) -> Fineness:
    """Whether an error may show the values of a label or class column: the attributes' rule.

    Its values are not shown when it could not be an attribute (:func:`check_row_levels`,
    :func:`check_float_levels`): too fine (:func:`fineness`: as few as
    :data:`MIN_LEVELS_ALL_SINGLE` values that are each a single row, or
    :data:`MIN_LEVELS_PER_ROW_CHECK` or more with fewer than two rows each on average or half
    of them on a single row: a name, a date of birth, an id), or a float with more than
    :data:`MAX_FLOAT_LEVELS` values. Every error about ``y_true``, ``y_pred``, a baseline,
    ``pos_label`` or ``classes`` asks it, on every engine and surface, and a multiclass audit
    refuses such a column as it refuses such an attribute (its classes would be printed).

    Parameters
    ----------
    df : pl.DataFrame
        A label or class table: ``column`` and ``n`` (the rows each table row stands for).
    column : str
        The column of ``df``.

    Returns
    -------
    Fineness
        The counts, and ``why`` (counts only) when the values may not be shown, else ``None``.

    Examples
    --------
    >>> df = pl.DataFrame({"who": ["p1", "p2", "p3", "x", "x"], "n": [1, 1, 1, 5, 5]})
    >>> identifying(df.head(3), "who").why  # 3 values, one row each
    'each of the 3 values is a single row'
    >>> identifying(df, "who").why is None  # 4 values in 13 rows
    True
    >>> identifying(pl.DataFrame({"v": [i / 10 for i in range(60)], "n": [3] * 60}), "v").why
    'more than 50 values of a number'
    """
    found = fineness(df, [column], int(df["n"].sum()))
    if found.why is None and fractional(df.schema[column]) and found.levels > MAX_FLOAT_LEVELS:
        return found._replace(why=E.WHY_FLOAT_LEVELS.format(limit=MAX_FLOAT_LEVELS))
    return found


def checked(lf: pl.LazyFrame, check: Callable[[pl.DataFrame], pl.DataFrame]) -> pl.LazyFrame:
    """Run ``check`` on a small frame at collect time; the schema stays the same.

    Parameters
    ----------
    lf : pl.LazyFrame
        A small table (a label, count or score table).
    check : callable
        ``check(df) -> df``: raises on bad data, returns the frame (with the same schema).

    Returns
    -------
    pl.LazyFrame
        ``lf`` with ``check`` as one step of its plan (nothing is run until it is collected).

    Examples
    --------
    >>> def positive(df: pl.DataFrame) -> pl.DataFrame:
    ...     if (df["x"] < 0).any():
    ...         raise ValueError("x must be >= 0")
    ...     return df
    >>> lf = checked(pl.LazyFrame({"x": [1, -1]}), positive)  # no error yet
    >>> lf.collect()
    Traceback (most recent call last):
    ...
    ValueError: x must be >= 0
    """
    return lf.map_batches(check, schema=lf.collect_schema())


# ------------------------------------------------------------------ label table -> count table
def count_schema(key_schema: Sequence[tuple[str, pl.DataType]], weighted: bool,
                 positive_rows: bool = False) -> pl.Schema:
    """The public count-table schema: keys, ``n, tp, fp, fn, tn`` [, ``weight_sum``, ...].

    ``weight_sum`` when ``weighted``; then ``n_positive_weight`` with ``positive_rows`` (a
    table of sample weights, not of estimated membership).
    """
    cell = pl.Float64() if weighted else pl.Int64()
    return pl.Schema(
        [*key_schema, ("n", pl.Int64())] + [(c, cell) for c in ("tp", "fp", "fn", "tn")]
        + ([("weight_sum", pl.Float64())] if weighted else [])
        + ([(POSITIVE_WEIGHT_ROWS, pl.Int64())] if weighted and positive_rows else [])
    )


def derive_counts(df: pl.DataFrame, a: Audit) -> pl.DataFrame:
    """Validate a label table and sum it into the count table (eager, on the small table)."""
    validate_labels(df, a)
    df = apply_group_policy(df, a)
    weighted = a.weight is not None
    cell = pl.Float64 if weighted else pl.Int64
    # without labels every row counts as a negative label: fp = selected, tn = not selected
    yb = pl.col(Y) == pl.lit(a.pos_true) if Y in df.columns else pl.lit(False)
    pb = pl.col(P) == pl.lit(a.pos_pred)
    v = pl.col("weight_sum") if weighted else pl.col("n")
    sums = [
        pl.col("n").sum().cast(pl.Int64).alias("n"),
        v.filter(yb & pb).sum().cast(cell).alias("tp"),
        v.filter(~yb & pb).sum().cast(cell).alias("fp"),
        v.filter(yb & ~pb).sum().cast(cell).alias("fn"),
        v.filter(~yb & ~pb).sum().cast(cell).alias("tn"),
        *([pl.col("weight_sum").sum().alias("weight_sum"),
           pl.col(W_POS).sum().cast(pl.Int64).alias(POSITIVE_WEIGHT_ROWS)] if weighted else []),
    ]
    out = df.group_by(a.keys).agg(sums) if a.keys else df.select(sums)
    return out.sort(a.keys, nulls_last=True) if a.keys else out


def counts_from_labels(labels: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """The lazy count table of a label table made by any engine (validated at collect time).

    With a label ``y`` and prediction ``p`` (positive = ``pos_label``), ``tp`` counts the rows
    with ``y`` and ``p`` positive, ``fp`` ``p`` only, ``fn`` ``y`` only, ``tn`` neither (with
    weights: sums of the weights). Without labels every row counts as a negative label
    (``fp`` = selected, ``tn`` = not selected).

    Parameters
    ----------
    labels : pl.LazyFrame
        A label table (:func:`label_table` or an engine's ``label_table``).
    a : Audit
        The resolved call that made it.

    Returns
    -------
    pl.LazyFrame
        Keys, ``n`` (Int64 rows), ``tp, fp, fn, tn`` (Int64 rows; Float64 weighted sums with
        weights, then ``weight_sum`` Float64 and ``n_positive_weight`` Int64, the rows of
        positive weight), sorted by the keys (nulls last).

    Raises
    ------
    InvalidScoreError, InvalidLabelError, NullValuesError, InvalidWeightError
        At collect time: bad scores, labels or predictions (nulls, NaN, values besides
        ``pos_label`` and one other, different negative values, ``pos_label`` absent), bad
        weights; the message lists the values found.
    EmptyFrameError, NullGroupError, TooManyLevelsError
        At collect time: see :func:`apply_group_policy`.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0]})
    >>> a = resolve(lf.collect_schema(), "g")
    >>> counts_from_labels(label_table(lf, a), a).collect().rows()
    [('a', 2, 1, 1, 0, 0), ('b', 1, 0, 0, 1, 0)]
    """
    schema_in = labels.collect_schema()
    weighted = a.weight is not None
    schema = count_schema([(k, schema_in[k]) for k in a.keys], weighted, positive_rows=weighted)
    return labels.map_batches(lambda df: derive_counts(df, a).select(schema.names()),
                              schema=schema)


# ------------------------------------------------------------------ Polars: rows -> sums per key
def _binary(dtype: pl.DataType | None, pos: Any) -> bool:
    """A 0/1 integer column with ``pos_label`` 1, or a Boolean column with ``pos_label`` True."""
    if dtype is None:
        return False
    if dtype == pl.Boolean:
        return pos is True
    return dtype.is_integer() and type(pos) is int and pos == 1


@borrow(label_table, params=("a",))
def sums_plan(a: Audit) -> bool:
    """Whether the count table can be summed per key (:func:`sums_table`) instead of grouped.

    Chosen from the schema: no weights, no float key (NaN and null keys merge after the scan),
    a label that is absent or an integer/Boolean column with ``pos_label`` 1/``True``, and such
    a prediction (a thresholded score is a Boolean).

    Returns
    -------
    bool
        True: :func:`counts_from_sums` builds the count table; False: the label table does.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> schema = pl.Schema({"g": pl.String, "y_true": pl.Int8, "y_pred": pl.Boolean})
    >>> sums_plan(resolve(schema, "g")), sums_plan(resolve(schema, "g", pos_label=0))
    (True, False)
    """
    return (
        a.weight is None and not a.float_keys and a.y_pred is not None
        and (a.y_true is None or _binary(a.true_dtype, a.pos_true))
        and _binary(a.pred_dtype, a.pos_pred)
    )


@borrow(label_table, params=("lf", "a"))
def sums_table(lf: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """One ``group_by`` over the keys only: rows, Σy, Σp, Σy·p and the checks of the labels.

    For 0/1 (or Boolean) labels the four cells follow from three sums, so the hash table holds
    one entry per group instead of up to four (:func:`label_table`). Every check still holds:
    the non-null count of ``y | p`` and its smallest and largest value show nulls and values
    besides 0 and 1, on which :func:`counts_from_sums` falls back to the label table. Used
    when :func:`sums_plan` is true.

    Returns
    -------
    pl.LazyFrame
        Unsorted, one row per key: the keys, ``n`` (rows), ``__pf_sy``, ``__pf_sp``,
        ``__pf_syp`` (integer sums; absent label: 0), ``__pf_ok`` (rows with label and prediction
        not null), ``__pf_hi`` (the largest ``y | p`` read as an unsigned 64-bit integer, so a
        negative value is huge: 0/1 values only iff it is at most 1) and, for a thresholded
        score, the counts ``__pf_s_null``, ``__pf_s_nan``, ``__pf_s_inf``. The aggregations are
        plain (no cast after them): the casts happen on the small table.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0]})
    >>> sums_table(lf, resolve(lf.collect_schema(), "g")).sort("g").collect().rows()
    [('a', 2, 1, 2, 1, 2, 1), ('b', 1, 1, 0, 0, 1, 1)]
    """
    assert a.y_pred is not None

    def binary(e: pl.Expr, dtype: pl.DataType | None) -> pl.Expr:
        return e.cast(pl.UInt8) if dtype == pl.Boolean else e

    p = binary(a.y_pred, a.pred_dtype)
    if a.y_true is not None:
        y = binary(a.y_true, a.true_dtype)
        both, sums = y | p, [y.sum(), p.sum(), (y * p).sum()]
    else:
        both, sums = p, [pl.lit(0, dtype=pl.Int64), p.sum(), pl.lit(0, dtype=pl.Int64)]
    aggs = [pl.len().alias("n"),
            *[x.alias(f"{_V}{c}") for x, c in zip(sums, ("sy", "sp", "syp"), strict=True)],
            both.count().alias(f"{_V}ok"),
            both.cast(pl.UInt64, wrap_numerical=True).max().alias(f"{_V}hi")]
    if a.score is not None:
        aggs += _score_aggs(a)
    return lf.group_by(_keys(a)).agg(aggs)


def _regular(df: pl.DataFrame, a: Audit) -> bool:
    """Whether a sums table holds only 0/1 labels and predictions, no null, ``pos`` present."""
    if df.height == 0:
        return False
    hi = df[f"{_V}hi"].max()  # Series reductions: no query
    nulls = int(df["n"].sum()) - int(df[f"{_V}ok"].sum())
    sy, sp = int(df[f"{_V}sy"].sum()), int(df[f"{_V}sp"].sum())
    bad_scores = [int(df[c].sum()) for c in df.columns if c.startswith(f"{_V}s_")]
    if nulls or hi is None or hi > 1 or any(bad_scores):  # type: ignore[operator]
        return False
    # pos_label absent from labels and predictions is an error the label table words
    return a.y_true is None or a.score is not None or bool(sy or sp)


@borrow(label_table, params=("lf", "a"))
@borrow(counts_from_labels, sections=("Raises",))
def counts_from_sums(lf: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """The lazy count table from :func:`sums_table`, identical to the label table's.

    ``tp = Σy·p``, ``fp = Σp − Σy·p``, ``fn = Σy − Σy·p``, ``tn = n − Σy − Σp + Σy·p`` (exact
    integers). When the sums show anything but 0/1 values without nulls (or no positive at
    all), the rows are grouped again by the general :func:`label_table` and
    :func:`counts_from_labels` decides, so every error and every valid result (labels -1/1,
    say) is exactly the general path's. Used when :func:`sums_plan` is true.

    Returns
    -------
    pl.LazyFrame
        As :func:`counts_from_labels`, whose errors it raises.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0]})
    >>> counts_from_sums(lf, resolve(lf.collect_schema(), "g")).collect().rows()
    [('a', 2, 1, 1, 0, 0), ('b', 1, 0, 0, 1, 0)]
    """
    sums = sums_table(lf, a)
    key_schema = sums.collect_schema()
    schema = count_schema([(k, key_schema[k]) for k in a.keys], weighted=False)
    names = schema.names()

    def derive(df: pl.DataFrame) -> pl.DataFrame:
        if not _regular(df, a):
            return derive_counts(label_table(lf, a).collect(), a).select(names)
        df = apply_group_policy(df, a)
        n, sy, sp, syp = (pl.col(c).cast(pl.Int64) for c in ("n", f"{_V}sy", f"{_V}sp",
                                                            f"{_V}syp"))
        out = df.lazy().select(*a.keys, n.alias("n"), tp=syp, fp=sp - syp, fn=sy - syp,
                               tn=n - sy - sp + syp)
        return (out.sort(a.keys, nulls_last=True) if a.keys else out).collect(engine="in-memory")

    return sums.map_batches(derive, schema=schema)


# ------------------------------------------------------------------ label table -> score table
def score_schema(key_schema: Sequence[tuple[str, pl.DataType]], weighted: bool) -> pl.Schema:
    """The public score-table schema: keys, ``score``, ``positives``, ``negatives``, ``n_rows``.

    ``n_rows`` and ``n_positive_weight`` (the rows of positive weight) only when weighted.
    """
    cell = pl.Float64() if weighted else pl.Int64()
    return pl.Schema(
        [*key_schema, ("score", pl.Float64()), ("positives", cell), ("negatives", cell)]
        + ([("n_rows", pl.Int64()), (POSITIVE_WEIGHT_ROWS, pl.Int64())] if weighted else [])
    )


def derive_scores(df: pl.DataFrame, a: Audit) -> pl.DataFrame:
    """Validate a score label table and pivot its labels into ``positives``/``negatives``."""
    validate_labels(df, a)
    df = apply_group_policy(df, a)
    weighted = a.weight is not None
    v = pl.col("weight_sum") if weighted else pl.col("n")
    # without labels every row counts as a positive: positives = rows at the score
    yb = pl.col(Y) == pl.lit(a.pos_true) if Y in df.columns else pl.lit(True)
    group = [*a.keys, "score"]
    out = df.group_by(group).agg(
        v.filter(yb).sum().alias("positives"), v.filter(~yb).sum().alias("negatives"),
        *([pl.col("n").sum().cast(pl.Int64).alias("n_rows"),
           pl.col(W_POS).sum().cast(pl.Int64).alias(POSITIVE_WEIGHT_ROWS)] if weighted else []),
    )
    # two stable single-key sorts: a multi-column sort of ~10^6 cells costs 4x as much
    out = out.sort("score", nulls_last=True)
    if a.keys:
        out = out.sort(a.keys, nulls_last=True, maintain_order=True)
    return out


def scores_from_labels(labels: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """The lazy score table of a score label table made by any engine (checked at collect time).

    Parameters
    ----------
    labels : pl.LazyFrame
        A score label table (:func:`score_label_table` or an engine's ``score_label_table``).
    a : Audit
        The resolved call that made it (``scores=True``).

    Returns
    -------
    pl.LazyFrame
        Keys, ``score`` (Float64), ``positives`` and ``negatives`` (Int64 rows with the label
        positive / not positive at that score; Float64 weighted sums with weights, then
        ``n_rows`` Int64), sorted by the keys then ``score`` (nulls last). Without labels every
        row is counted in ``positives``.

    Raises
    ------
    InvalidScoreError, InvalidLabelError, NullValuesError, InvalidWeightError
        At collect time: null, NaN or infinite scores; bad labels; bad weights.
    EmptyFrameError, NullGroupError, TooManyLevelsError
        At collect time: see :func:`apply_group_policy`.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1],
    ...                    "y_score": [0.9, 0.2, 0.2]})
    >>> a = resolve(lf.collect_schema(), "g", y_score="y_score", scores=True)
    >>> scores_from_labels(score_label_table(lf, a), a).collect().rows()
    [('a', 0.2, 0, 1), ('a', 0.9, 1, 0), ('b', 0.2, 1, 0)]
    """
    schema_in = labels.collect_schema()
    schema = score_schema([(k, schema_in[k]) for k in a.keys], a.weight is not None)
    cast = [pl.col(c).cast(d) for c, d in schema.items()]
    return labels.map_batches(lambda df: derive_scores(df, a).select(cast), schema=schema)


# ------------------------------------------------------------------ rows -> score table, sorted
@borrow(score_label_table, params=("a",))
def sorted_scores_plan(a: Audit) -> bool:
    """Whether the score table is built by sorting (:func:`scores_by_sorting`), not hashing.

    Chosen from the schema: a float score (continuous: nearly every score distinct, where a
    hash table of ``(keys, score, label)`` costs more than sorting each group's scores), no
    weights (float sums must add in the label table's order), no float key, and a label that is
    absent or an integer/Boolean column with ``pos_label`` 1/``True``.

    Returns
    -------
    bool
        True: :func:`scores_by_sorting` builds the score table; False: hashing does.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> schema = pl.Schema({"g": pl.String, "y_true": pl.Int8, "s": pl.Float64, "k": pl.Int8})
    >>> sorted_scores_plan(resolve(schema, "g", y_score="s", scores=True))
    True
    >>> sorted_scores_plan(resolve(schema, "g", y_score="k", scores=True))  # few distinct
    False
    """
    return (
        a.weight is None and not a.float_keys and a.score_dtype is not None
        and a.score_dtype.is_float()
        and (a.y_true is None or _binary(a.true_dtype, a.pos_true))
    )


@borrow(score_label_table, params=("lf", "a"))
@borrow(scores_from_labels, sections=("Raises",))
def scores_by_sorting(lf: pl.LazyFrame, a: Audit) -> pl.LazyFrame:
    """The lazy score table by sorting each group's scores (numpy), identical to the hashed one.

    The rows' keys, scores and labels are read once; each group's scores are sorted and their
    runs of equal values give ``positives`` and ``negatives`` by cumulative sums. Before that,
    the label's extremes and nulls, the bad scores and negative zeros are counted: on any of
    them (or no row at all) the general :func:`score_label_table` and
    :func:`scores_from_labels` decide, so every error and result is theirs. Used when
    :func:`sorted_scores_plan` is true.

    Returns
    -------
    pl.LazyFrame
        As :func:`scores_from_labels` (unweighted), whose errors it raises.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"g": ["a", "a", "b", "a"], "y_true": [1, 0, 1, 1],
    ...                    "y_score": [0.9, 0.2, 0.2, 0.2]})
    >>> a = resolve(lf.collect_schema(), "g", y_score="y_score", scores=True)
    >>> scores_by_sorting(lf, a).collect().rows()
    [('a', 0.2, 1, 1), ('a', 0.9, 1, 0), ('b', 0.2, 1, 0)]
    """
    assert a.score is not None
    key_schema = lf.select(_keys(a)).collect_schema()
    schema = score_schema([(k, key_schema[k]) for k in a.keys], weighted=False)
    s = a.score.cast(pl.Float64)
    y = None if a.y_true is None else (
        a.y_true.cast(pl.UInt8) if a.true_dtype == pl.Boolean else a.y_true)
    aggs = [
        pl.len().cast(pl.Int64).alias("n"), s.alias("score"),
        (s.is_null() | s.is_nan() | s.is_infinite()).sum().alias(f"{_V}bad"),
        ((s == 0) & (1 / s < 0)).sum().alias(f"{_V}negzero"),
    ]
    if y is not None:
        aggs += [y.alias(Y), y.null_count().alias(f"{_V}nulls"),
                 y.min().cast(pl.Int64).alias(f"{_V}lo"), y.max().cast(pl.Int64).alias(f"{_V}hi")]
    # one scan, one aggregation: each group's scores and labels as lists
    per_key = lf.group_by(_keys(a)).agg(aggs) if a.keys else \
        lf.select(*[x.implode() if x.meta.output_name() in ("score", Y) else x for x in aggs])

    def build(df: pl.DataFrame) -> pl.DataFrame:
        from polars_fair._lazy import np

        c = df.select(pl.col("n").sum(), *[pl.col(f"{_V}{x}").sum() for x in (
            "bad", "negzero", *(("nulls",) if y is not None else ()))],
            *([pl.col(f"{_V}lo").min(), pl.col(f"{_V}hi").max()] if y is not None else []),
        ).row(0, named=True)
        if not c["n"] or c[f"{_V}bad"] or c[f"{_V}negzero"] or (y is not None and (
                c[f"{_V}nulls"] or c[f"{_V}lo"] is None or c[f"{_V}lo"] < 0
                or c[f"{_V}hi"] > 1)):
            general = derive_scores(score_label_table(lf, a).collect(), a)
            return general.select([pl.col(k).cast(d) for k, d in schema.items()])
        groups = apply_group_policy(df, a)
        if a.keys:
            groups = groups.sort(a.keys, nulls_last=True)
        parts: list[tuple[Any, Any, Any]] = []
        for g in range(groups.height):
            sc = groups["score"][g].to_numpy()
            order = np.argsort(sc, kind="stable")
            sc = sc[order]
            ends = np.flatnonzero(np.append(sc[1:] != sc[:-1], True))
            rows_at = np.diff(ends + 1, prepend=0)
            if y is None:  # without labels every row counts as a positive
                parts.append((sc[ends], rows_at, np.zeros_like(rows_at)))
                continue
            cum = np.cumsum(groups[Y][g].to_numpy()[order], dtype=np.int64)[ends]
            positives = np.diff(cum, prepend=0)
            parts.append((sc[ends], positives, rows_at - positives))
        runs = [len(p[0]) for p in parts]
        keys = groups.select(a.keys).gather(np.repeat(np.arange(groups.height), runs)) \
            .get_columns() if a.keys else []
        cells = [np.concatenate([p[i] for p in parts]) for i in range(3)]
        return pl.DataFrame([
            *keys, pl.Series("score", cells[0], dtype=pl.Float64),
            pl.Series("positives", cells[1], dtype=pl.Int64),
            pl.Series("negatives", cells[2], dtype=pl.Int64),
        ]).select([pl.col(k).cast(d) for k, d in schema.items()])

    return per_key.map_batches(build, schema=schema)
