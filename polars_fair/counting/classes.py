"""Class tables: the counts of a multiclass audit, from one aggregation on any engine.

A class table is the label table of :mod:`polars_fair.counting.boundary` with K classes instead
of two values: one row per (keys, true class, predicted class), ``n`` rows in each cell (and the
weight sum with ``sample_weight``). It is made by the engine's own ``label_table`` (Polars,
Spark or DuckDB: one group-by, the rows never leave the engine) and checked here by the same
rules as a binary audit: null or NaN labels, bad weights, the null-group policy and the level
guards on attributes, with the same typed errors and messages. Every multiclass analysis
(:mod:`polars_fair.analyses.multiclass`) reads this table, so it is also accepted from anywhere
(:func:`polars_fair.from_class_counts`).

Public schema: the keys, ``y_true`` (absent without labels), ``y_pred`` (the class, one dtype
for both), ``n`` (Int64 rows), ``weight_sum`` (Float64, with weights) and ``n_positive_weight``
(Int64 rows of positive weight, with weights: the support a binary count table counts, as a row
of weight 0 is no observation), sorted by the keys (nulls last), ``y_true`` and ``y_pred``.

Why one module: the class table is derived, checked and refused in one pass over the same small
table (classes declared or found, their count, the privacy rule, Enum categories); the checks
share its columns and messages, and the order in which they run is part of what they promise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, TypedDict, TypeVar

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.core.limits import LIMITS
from polars_fair.core.spec import (
    DEFAULT_MAX_GROUPS,
    MEMBERSHIP_ARGS,
    POSITIVE_WEIGHT_ROWS,
    Audit,
    IntoExpr,
    NullGroups,
    parse_by,
    refuse_membership,
    resolve,
    spell_out,
)
from polars_fair.counting import boundary, class_dtypes
from polars_fair.counting.class_dtypes import _is_text, _kinds_error, check_enum_pair, class_dtype
from polars_fair.counting.tables import Engine, PolarsEngine, engine_of

__all__ = ["CLASS_ARGS", "CLASS_ARGS_DOC", "CLASS_COLUMNS", "ClassArgs", "ClassTable",
           "check_class_args", "check_class_values", "check_classes", "check_enum_pair",
           "class_dtype", "declared_categories", "check_class_count",
           "class_table", "classes_of", "derive_classes", "hidden_classes", "finish_classes",
           "label_order",
           "spell_out_classes", "staging_dtype"]

F = TypeVar("F", bound=Callable[..., Any])

class ClassArgs(TypedDict, total=False):
    """The arguments of a class table (:func:`class_table`), declared once.

    Every way in (:func:`polars_fair.class_counts`, ``lf.fair.multiclass_report``, the Spark
    shortcuts, the command line) takes these, with the defaults of :data:`CLASS_ARGS`.

    Examples
    --------
    >>> sorted(ClassArgs.__annotations__) == sorted(CLASS_ARGS)
    True
    """

    y_pred: IntoExpr
    y_true: IntoExpr | None
    classes: Sequence[Any] | None
    sample_weight: IntoExpr | None
    null_groups: NullGroups
    max_groups: int


#: The class-table arguments and their defaults.
CLASS_ARGS: dict[str, Any] = {"y_pred": "y_pred", "y_true": None, "classes": None,
                              "sample_weight": None, "null_groups": "keep",
                              "max_groups": DEFAULT_MAX_GROUPS}
#: Their documentation (numpydoc Parameters entries), for every method that takes them.
CLASS_ARGS_DOC = """y_pred : str or pl.Expr, default "y_pred"
    The predicted class.
y_true : str or pl.Expr, optional
    The true class (adds the one-vs-rest ``tpr``, ``fpr``, ``ppv`` to the report).
classes : sequence, optional
    Every class, in order (lowest first for ``ordered``): an unreceived class is a row of
    zeros, a value outside them an error. Default: an Enum's categories, else those found.
sample_weight : str or pl.Expr, optional
    A numeric weight per row.
null_groups : {"keep", "raise", "drop"}, default "keep"
    Rows whose attribute is null: a group, an error, or dropped with a warning.
max_groups : int, default 10000
    The size limit of the tables made from it."""

@borrow(spell_out, sections=("Returns",))
def spell_out_classes(method: F) -> F:
    """Give ``method`` a runtime signature with its ``**class_args`` spelled out.

    The class-table arguments become keyword parameters, typed (the text of :class:`ClassArgs`)
    and with their defaults (:data:`CLASS_ARGS`), so ``help()``, ``inspect.signature``, doc
    tools and the command line show them where the code declares them once.

    Parameters
    ----------
    method : callable
        A function taking ``**class_args``.

    Examples
    --------
    >>> import inspect
    >>> def f(by=None, **class_args): ...
    >>> "y_pred" in str(inspect.signature(spell_out_classes(f)))
    True
    """
    return spell_out(method, declared=(ClassArgs, CLASS_ARGS))


def check_class_args(given: dict[str, Any]) -> dict[str, Any]:
    """The class-table arguments of a call with their defaults; an unknown name is refused.

    Parameters
    ----------
    given : dict of str to Any
        The ``**class_args`` of a call.

    Returns
    -------
    dict of str to Any
        :data:`CLASS_ARGS` updated with ``given``.

    Raises
    ------
    InvalidArgumentError
        A name that is not a class-table argument (with the closest names); ``membership=``
        (:func:`polars_fair.core.spec.refuse_membership`: the class table counts each row in
        one group).

    Examples
    --------
    >>> check_class_args({"y_pred": "risk"})["y_true"] is None
    True
    >>> check_class_args({"y_prde": "risk"})
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: unexpected class argument(s) ['y_prde'] (did ...
    """
    unknown = [k for k in given if k not in CLASS_ARGS]
    if any(k in MEMBERSHIP_ARGS for k in unknown):  # a table of crisp groups: say why
        refuse_membership(given, "a class analysis", "class table")
    if unknown:
        raise E.InvalidArgumentError(E.UNKNOWN_ARGUMENT.format(
            names=unknown, what="class", valid=list(CLASS_ARGS),
            hint=E.closest(unknown, CLASS_ARGS)))
    return {**CLASS_ARGS, **given}


#: The columns of a class table besides its keys (the last two only with weights).
CLASS_COLUMNS = ("y_true", "y_pred", "n", "weight_sum", POSITIVE_WEIGHT_ROWS)
#: The class columns named by themselves (a table made elsewhere).
TABLE_NAMES = {"y_pred": "y_pred", "y_true": "y_true"}
#: Reserved: a key may not be named as a column of a class table or of its analyses.
_RESERVED = (*CLASS_COLUMNS, "class")


@dataclass(frozen=True)
class ClassTable:
    """A lazy class table and what its analyses need to read it.

    Parameters
    ----------
    frame : pl.LazyFrame
        The class table: keys, [``y_true``,] ``y_pred``, ``n`` (Int64) [, ``weight_sum``].
    keys : list of str
        The key columns.
    classes : tuple, optional
        The declared classes in order (given, or the categories of an Enum prediction);
        ``None``: the classes found, sorted.
    max_groups : int, default 10000
        The size limit of the tables made from it.
    names : dict of str to str, optional
        ``y_pred`` [, ``y_true``, ``sample_weight``] -> the column the user named, for the
        messages of the analyses (default: the table's own column names).
    order : tuple, optional
        An order of the classes the table does not declare: the categories of an Enum label
        beside a text prediction (the classes are then read as text), advised when
        ``ordered=True`` is asked without ``classes=``.

    Examples
    --------
    >>> t = ClassTable(pl.LazyFrame({"g": ["a"], "y_pred": ["x"], "n": [1]}), ["g"])
    >>> t.labelled, t.weighted
    (False, False)
    """

    frame: pl.LazyFrame
    keys: list[str]
    classes: tuple[Any, ...] | None = None
    max_groups: int = DEFAULT_MAX_GROUPS
    names: dict[str, str] = field(default_factory=lambda: dict(TABLE_NAMES))
    order: tuple[Any, ...] | None = None

    @property
    def labelled(self) -> bool:
        """Whether the table has true classes (``y_true``)."""
        return "y_true" in self.frame.collect_schema().names()

    @property
    def weighted(self) -> bool:
        """Whether the table has weight sums (``weight_sum``)."""
        return "weight_sum" in self.frame.collect_schema().names()


def declared_categories(dtype: pl.Enum, column: str = "y_pred") -> tuple[Any, ...]:
    """The categories of an Enum prediction, its declared classes, bounded as ``classes=`` is.

    Parameters
    ----------
    dtype : pl.Enum
        The prediction's dtype.
    column : str, default "y_pred"
        The prediction's name (the command line's advice reads it as text by name).

    Returns
    -------
    tuple
        Its categories, in order.

    Raises
    ------
    SizeLimitError
        More categories than the limit ``classes`` (each is a report of every group).

    Examples
    --------
    >>> declared_categories(pl.Enum(["low", "high"]))
    ('low', 'high')
    """
    categories = dtype.categories
    limit = LIMITS["classes"].limit
    if categories.len() > limit:
        raise E.SizeLimitError(
            E.ENUM_CLASSES_TOO_MANY.format(size=categories.len(), limit=limit),
            cli_message=E.CLI_ENUM_CLASSES_TOO_MANY.format(size=categories.len(), limit=limit,
                                                           sql=_as_text(column)))
    return tuple(categories.to_list())


def check_classes(classes: Any, dtype: pl.DataType, column: str) -> tuple[Any, ...] | None:
    """The ``classes=`` argument as a tuple of values of the class dtype, or ``None``.

    Parameters
    ----------
    classes : sequence, optional
        At least two distinct, non-null classes, in order (lowest first for ``ordered``).
    dtype : pl.DataType
        The class dtype (:func:`class_dtype`).
    column : str
        The prediction's name, for the message.

    Returns
    -------
    tuple or None
        The classes (``None`` when not given).

    Raises
    ------
    SizeLimitError
        More classes than the limit ``classes``.
    InvalidArgumentError
        Fewer than two distinct classes, a null one, a string, classes that cannot be
        compared with the column, or (an Enum column) a class outside its categories.

    Examples
    --------
    >>> check_classes(["Low", "High"], pl.String, "risk")
    ('Low', 'High')
    >>> check_classes([1, "a"], pl.Int64, "risk")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: classes= [1, 'a'] cannot be compared with ...
    """
    if classes is None:
        return None
    if isinstance(classes, AbstractSet):  # no order, and the order is the report's
        raise E.InvalidArgumentError(E.CLASSES_UNORDERED.format(
            kind=type(classes).__name__, example=E.show_classes(_sorted(classes), column)))
    if isinstance(classes, (str, bytes)) or not isinstance(classes, Sequence | pl.Series):
        raise E.class_error(E.InvalidArgumentError, E.FEW_CLASSES,
                            values=E.Classes([classes]))
    if len(classes) > LIMITS["classes"].limit:  # one report of every group a class; before
        raise E.SizeLimitError(E.CLASSES_TOO_MANY.format(  # it is listed: range(10**9)
            size=len(classes), limit=LIMITS["classes"].limit))
    values = list(classes)
    if len(values) < 2 or len(set(map(repr, values))) != len(values) or any(
            v is None for v in values):
        raise E.class_error(E.InvalidArgumentError, E.FEW_CLASSES,
                            values=E.Classes(values))
    if isinstance(dtype, pl.Enum):  # a value outside the categories: no row can hold it
        categories = dtype.categories.to_list()
        bad = [v for v in values if not isinstance(v, str) or v not in categories]
        if bad:
            raise E.class_error(
                E.InvalidArgumentError, E.ENUM_CLASSES, E.CLI_ENUM_CLASSES,
                values=E.Classes(values), bad=E.Classes(bad), column=column,
                categories=E.Classes(categories), sql=_as_text(column),
                wanted=E.show_classes([*categories, *(str(v) for v in bad)], column))
    target = pl.String() if _is_text(dtype) else dtype
    try:
        series = pl.Series(values, strict=True).cast(target, strict=True)
    except (pl.exceptions.PolarsError, TypeError, OverflowError):
        series = None
    same_kind = series is not None and all(
        isinstance(v, str) == _is_text(dtype) for v in values)
    if not same_kind or series is None or series.n_unique() != len(values):
        raise E.class_error(E.InvalidArgumentError, E.CLASS_DTYPE, values=E.Classes(values),
                            column=column, dtype=dtype)
    return tuple(series.to_list())


def _resolve(engine: Engine, by: Any, args: dict[str, Any]) -> tuple[Engine, Audit]:
    """Bind engine-native expressions, then resolve the call as a class table."""
    engine, attrs, args = engine.bind(parse_by(by), args)
    a = resolve(engine.schema(), attrs, classes=True, **args)
    clash = [k for k in a.keys if k in _RESERVED]
    if clash:
        raise E.InvalidArgumentError(E.RESERVED_NAME.format(names=clash, example=clash[0]))
    if isinstance(engine, PolarsEngine):  # expressions mean what with_columns makes of them
        lf, a = boundary.bind_frame(engine.lf, a)
        engine = PolarsEngine(lf)
    return engine, a


def class_table(
    frame: Any,
    by: Any = None,
    *,
    y_pred: Any = "y_pred",
    y_true: Any = None,
    classes: Sequence[Any] | None = None,
    sample_weight: Any = None,
    null_groups: NullGroups = "keep",
    max_groups: int = DEFAULT_MAX_GROUPS,
) -> ClassTable:
    """The lazy class table of the rows of any engine (schema errors now, data errors later).

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame, duckdb.DuckDBPyRelation or Engine
        The rows.
    by : str, expression or list of them, optional
        The attributes (several = their intersection).
    y_pred : str or expression, default "y_pred"
        The predicted class.
    y_true : str or expression, optional
        The true class (``None``: an audit of decisions only, as NYC LL 144's).
    classes : sequence, optional
        Every class, in order; a value outside them is an error. Default: the categories of an
        Enum prediction, else the classes found.
    sample_weight : str or expression, optional
        A numeric weight per row.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows whose attribute is null: a group of their own, an error, or dropped with a warning.
    max_groups : int, default 10000
        The size limit of the tables made from it.

    Returns
    -------
    ClassTable
        The lazy table (the keys, [``y_true``,] ``y_pred``, ``n`` Int64 [, ``weight_sum``
        Float64, ``n_positive_weight`` Int64], sorted), its keys and declared classes.

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError, InvalidLabelError, InvalidWeightError
        At once: the schema errors of :func:`polars_fair.core.spec.resolve`; a label and a
        prediction of different kinds; bad ``classes``; a key named like a class-table column.
    NullValuesError, InvalidLabelError, InvalidWeightError, EmptyFrameError, NullGroupError
        At collect time: see :func:`derive_classes`.

    Examples
    --------
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y_pred": ["x", "y", "x"]})
    >>> class_table(df, "g").frame.collect().rows()
    [('a', 'x', 1), ('a', 'y', 1), ('b', 'x', 1)]
    """
    engine = engine_of(frame)
    engine, a = _resolve(engine, by, dict(
        y_true=y_true, y_pred=y_pred, sample_weight=sample_weight, null_groups=null_groups,
        max_groups=max_groups))
    assert a.pred_dtype is not None and a.y_pred_name is not None
    if a.true_dtype is not None and a.y_true_name is not None and a.pred_dtype != pl.Null \
            and a.true_dtype != pl.Null and _is_text(a.true_dtype) != _is_text(a.pred_dtype):
        raise _kinds_error(engine, a)
    check_enum_pair(a.true_dtype, a.pred_dtype, classes, (a.y_true_name or "", a.y_pred_name))
    dtype = class_dtype(a.true_dtype, a.pred_dtype)
    declared = check_classes(classes, dtype, a.y_pred_name)
    if declared is None and isinstance(dtype, pl.Enum) and (
            dtype == a.pred_dtype or isinstance(a.pred_dtype, pl.Enum)):
        declared = declared_categories(dtype, a.y_pred_name)
    labels = engine.label_table(a)
    schema_in = labels.collect_schema()
    out = pl.Schema([*((k, schema_in[k]) for k in a.keys),
                     *((("y_true", dtype),) if a.y_true is not None else ()),
                     ("y_pred", dtype), ("n", pl.Int64()),
                     *((("weight_sum", pl.Float64()), (POSITIVE_WEIGHT_ROWS, pl.Int64()))
                       if a.weight is not None else ())])
    table = labels.map_batches(lambda df: derive_classes(df, a, dtype, declared), schema=out)
    names = {"y_pred": a.y_pred_name, **({"y_true": a.y_true_name} if a.y_true_name else {}),
             **({"sample_weight": a.weight_name} if a.weight_name else {})}
    rows = engine.lf if isinstance(engine, PolarsEngine) else None
    return ClassTable(boundary.values_hidden(table, a.bound, rows), a.keys, declared,
                      a.max_groups, names, label_order(a.true_dtype, dtype))


def label_order(true_dtype: pl.DataType | None, dtype: pl.DataType) -> tuple[Any, ...] | None:
    """The categories of an Enum label whose order the class dtype lost (read as text).

    Parameters
    ----------
    true_dtype : pl.DataType, optional
        The label's dtype.
    dtype : pl.DataType
        The class dtype (:func:`class_dtype`).

    Returns
    -------
    tuple or None
        The label's categories when it is an Enum and the classes are not, else ``None``.

    Examples
    --------
    >>> label_order(pl.Enum(["bad", "ok", "good"]), pl.String())
    ('bad', 'ok', 'good')
    >>> label_order(pl.String(), pl.String()) is None
    True
    """
    if isinstance(true_dtype, pl.Enum) and not isinstance(dtype, pl.Enum):
        return tuple(true_dtype.categories.to_list())
    return None


#: Null or NaN classes: the binary audit's check of a label column, shared.
check_class_values = boundary.check_missing_labels


def staging_dtype(dtype: pl.DataType) -> pl.DataType:
    """The dtype a class table is counted in before its classes are checked.

    String for an Enum class dtype (a label outside its categories is then a typed
    :func:`classes_of` error, not a failed cast), else the class dtype itself.

    Parameters
    ----------
    dtype : pl.DataType
        The class dtype (:func:`class_dtype`).

    Returns
    -------
    pl.DataType

    Examples
    --------
    >>> staging_dtype(pl.Enum(["lo", "hi"])), staging_dtype(pl.Int64())
    (String, Int64)
    """
    return pl.String() if isinstance(dtype, pl.Enum) else dtype


def finish_classes(out: pl.DataFrame, labels: Sequence[str], order: Sequence[str],
                   dtype: pl.DataType, declared: tuple[Any, ...] | None,
                   names: dict[str, str]) -> pl.DataFrame:
    """Check the classes of a class table counted in :func:`staging_dtype`, give it ``dtype``.

    Parameters
    ----------
    out : pl.DataFrame
        The class table, sorted by ``order``, its ``labels`` in the staging dtype.
    labels : sequence of str
        The class columns (``y_true``, ``y_pred``).
    order : sequence of str
        The sort columns (the keys, then the labels).
    dtype : pl.DataType
        The class dtype.
    declared : tuple, optional
        The declared classes.
    names : dict of str to str
        As :func:`classes_of`.

    Returns
    -------
    pl.DataFrame
        ``out`` with the labels cast to ``dtype`` and sorted by ``order`` again (an Enum sorts
        in its categories' order).

    Raises
    ------
    InvalidLabelError
        As :func:`classes_of`.

    Examples
    --------
    >>> df = pl.DataFrame({"y_pred": ["hi", "lo"], "n": [1, 2]})
    >>> finish_classes(df, ["y_pred"], ["y_pred"], pl.Enum(["lo", "hi"]), ("lo", "hi"),
    ...                {"y_pred": "p"}).rows()
    [('lo', 2), ('hi', 1)]
    """
    classes_of(out, declared, names, dtype)
    if dtype == out.schema[labels[0]]:
        return out
    return out.with_columns(pl.col(c).cast(dtype) for c in labels).sort(
        list(order), nulls_last=True)


def classes_of(df: pl.DataFrame, declared: tuple[Any, ...] | None,
               names: dict[str, str], dtype: pl.DataType | None = None) -> tuple[Any, ...]:
    """The classes of a checked class table: the declared ones, or those found (sorted).

    Parameters
    ----------
    df : pl.DataFrame
        A class table (``y_pred`` [, ``y_true``], ``n``).
    declared : tuple, optional
        The declared classes.
    names : dict of str to str
        ``y_pred`` [and ``y_true``] -> the column name the user gave, for the messages.
    dtype : pl.DataType, optional
        The class dtype, when ``df`` holds its classes in another (:func:`staging_dtype`):
        an Enum's categories are the classes its column can hold.

    Returns
    -------
    tuple
        The classes, in order.

    Raises
    ------
    InvalidLabelError
        A class column too fine to be an attribute (:func:`class_dtypes.check_identifying`), a
        value outside the declared classes, a single class found and none declared, or (none
        declared) true and predicted classes with none in common.

    Examples
    --------
    >>> df = pl.DataFrame({"y_pred": ["b", "a"], "n": [1, 1]})
    >>> classes_of(df, None, {"y_pred": "pred"})
    ('a', 'b')
    """
    columns = [c for c in ("y_pred", "y_true") if c in df.columns]
    class_dtypes.check_identifying(df, {c: (names.get(c, c), c) for c in columns})
    if declared is None:
        check_class_count(df, columns, names)
    if "y_true" in columns and declared is None:  # declared classes: the set is the user's
        _check_overlap(df, names)
    if declared is not None:
        _check_declared(df, columns, declared, names, dtype or df.schema["y_pred"])
        return declared
    seen = pl.concat([df.filter(pl.col("n") > 0)[c] for c in columns]).unique().sort()
    rows = int(df["n"].sum())
    if seen.len() >= boundary.MIN_LEVELS_PER_ROW_CHECK and 2 * seen.len() > rows:
        raise E.InvalidLabelError(E.CLASS_COLUMN_HIDDEN.format(  # a name or a birth date
            column=names["y_pred"], role="y_pred", dtype=seen.dtype, levels=seen.len(),
            rows=rows, why=E.WHY_FEW_ROWS.format(unit="value")))
    if seen.len() < 2:
        raise E.class_error(E.InvalidLabelError, E.ONE_CLASS, column=names["y_pred"],
                            role="y_pred", values=E.Classes(seen.to_list()))
    return tuple(seen.to_list())


def _sorted(values: Any) -> list[Any]:
    """``values`` sorted (by type, then value), or as they come when they do not compare."""
    try:
        return sorted(values, key=lambda v: (type(v).__name__, v))
    except TypeError:
        return list(values)


def _as_text(column: str) -> str:
    """The command line's ``--y-pred`` that reads an Enum column as text, one shell word."""
    return '"' + E.shell_escaped(f"CAST({E.sql_name(column)} AS VARCHAR)") + '"'


def _check_declared(df: pl.DataFrame, columns: Sequence[str], declared: tuple[Any, ...],
                    names: dict[str, str], dtype: pl.DataType | None) -> None:
    """Refuse classes outside ``declared`` (see :func:`classes_of`), advice that runs.

    The advice lists the classes to pass: those declared, then those found (in every class
    column, so that following it does not meet the next column's); none of the declared
    classes found: the classes found (:data:`~polars_fair.errors.CLASSES_ABSENT`); classes an
    Enum prediction cannot hold: the Enum widened (:data:`~polars_fair.errors.ENUM_OUTSIDE`).
    """
    allowed = pl.Series(list(declared)).cast(df.schema["y_pred"])
    held = df.filter(pl.col("n") > 0)
    outside = {c: held.filter(~pl.col(c).is_in(allowed.implode())) for c in columns}
    found = _sorted({v for part in (outside[c][c] for c in columns) for v in part.to_list()})
    for c in columns:
        extra = outside[c]
        if not extra.height:
            continue
        hidden = hidden_classes(df, c)
        facts: dict[str, Any] = {
            "column": names[c], "role": c, "count": int(extra["n"].sum()),
            "values": hidden or E.Classes(_sorted(set(extra[c].to_list())), names[c])}
        if hidden:
            raise E.class_error(E.InvalidLabelError, E.UNKNOWN_CLASSES_HIDDEN,
                                classes=E.Classes(declared, names[c], every=True), **facts)
        categories = dtype.categories.to_list() if isinstance(dtype, pl.Enum) else None
        if categories is not None and not set(found) <= set(categories):
            raise _enum_outside(facts, categories, found, declared, names["y_pred"])
        if extra.height == held.height and len(found) > 1:  # not one row in a declared class
            raise E.class_error(E.InvalidLabelError, E.CLASSES_ABSENT, **facts,
                                classes=E.Classes(declared, names[c], every=True),
                                wanted=E.Classes(found, names[c], every=True))
        given = E.Classes(declared, names[c], every=True)
        fixes = _misspelt(declared, found, {v for part in (held[k] for k in columns)
                                            for v in part.to_list()})
        if fixes:
            wanted = [fixes.get(v, v) for v in declared]
            wanted += [v for v in found if v not in wanted]
            raise E.class_error(
                E.InvalidLabelError, E.UNKNOWN_CLASSES_TYPO, **facts, classes=given,
                absent=", ".join(map(str, fixes)), hint=", ".join(map(str, fixes.values())),
                wanted=E.Classes(wanted, names[c], every=True))
        raise E.class_error(E.InvalidLabelError, E.UNKNOWN_CLASSES, **facts, classes=given,
                            wanted=E.Classes([*declared, *found], names[c], every=True))


def _misspelt(declared: Sequence[Any], found: Sequence[Any], held: AbstractSet[Any]) -> dict[
        Any, Any]:
    """Each class given that never occurs -> the close unlisted class found (difflib).

    >>> _misspelt(("Low", "Meduim", "High"), ["Medium"], {"Low", "Medium", "High"})
    {'Meduim': 'Medium'}
    """
    import difflib

    fixes: dict[Any, Any] = {}
    unlisted = [v for v in found if isinstance(v, str)]
    for v in declared:
        if isinstance(v, str) and v not in held:
            close = difflib.get_close_matches(v, unlisted, n=1, cutoff=E.VALUE_CUTOFF)
            if close:
                fixes[v] = close[0]
                unlisted.remove(close[0])
    return fixes


def _enum_outside(facts: dict[str, Any], categories: list[Any], found: list[Any],
                  declared: tuple[Any, ...], enum: str) -> E.InvalidLabelError:
    """:data:`~polars_fair.errors.ENUM_OUTSIDE`: the Enum prediction widened by ``found``."""
    widened = [*categories, *(v for v in found if v not in categories)]
    given = tuple(declared) != tuple(categories)  # classes= given: the found ones join it
    classes = [*declared, *(v for v in found if v not in declared)] if given else widened
    also = ", with classes=" + E.show_classes(classes, enum) if given else ""
    return E.class_error(
        E.InvalidLabelError, E.ENUM_OUTSIDE, E.CLI_ENUM_OUTSIDE, **facts, enum=enum,
        categories=E.Classes(categories), sql=_as_text(enum), also=also,
        widened=E.show_classes(widened, enum), wanted=E.Classes(classes, enum, every=True))


def check_class_count(df: pl.DataFrame, columns: Sequence[str], names: dict[str, str]) -> None:
    """Refuse a class column with more distinct values than the limit ``classes``.

    Checked on the class table, before any per-class work (each class is a report of every
    group): the message names the column and counts its values, never shows them.

    Parameters
    ----------
    df : pl.DataFrame
        A class table.
    columns : sequence of str
        Its class columns (``y_pred`` [, ``y_true``]).
    names : dict of str to str
        As :func:`classes_of`.

    Raises
    ------
    SizeLimitError
        :data:`polars_fair.errors.CLASS_VALUES_TOO_MANY`.

    Examples
    --------
    >>> t = pl.DataFrame({"y_pred": list(range(1_001)), "n": [5] * 1_001})
    >>> check_class_count(t, ["y_pred"], {"y_pred": "code"})
    Traceback (most recent call last):
    ...
    polars_fair.errors.SizeLimitError: column 'code' (y_pred) holds 1,001 distinct values, ...
    """
    limit = LIMITS["classes"].limit
    for c in columns:
        size = df.filter(pl.col("n") > 0)[c].n_unique()
        if size > limit:
            raise E.SizeLimitError(E.CLASS_VALUES_TOO_MANY.format(
                column=names.get(c, c), role=c, size=size, limit=limit))


def _check_overlap(df: pl.DataFrame, names: dict[str, str]) -> None:
    """Refuse true and predicted classes with none in common (every cell off the diagonal)."""
    found = {c: df.filter(pl.col("n") > 0)[c].unique().sort(nulls_last=True)
             for c in ("y_true", "y_pred")}
    if found["y_true"].len() and found["y_pred"].len() and \
            not found["y_true"].is_in(found["y_pred"].implode()).any():
        raise E.class_error(
            E.InvalidLabelError, E.NO_COMMON_CLASSES, E.CLI_NO_COMMON_CLASSES,
            y_true=names.get("y_true", "y_true"), y_pred=names["y_pred"],
            true_values=hidden_classes(df, "y_true") or E.Classes(found["y_true"].to_list()),
            pred_values=hidden_classes(df, "y_pred") or E.Classes(found["y_pred"].to_list()))


def hidden_classes(df: pl.DataFrame, column: str) -> str | None:
    """What a message says of a class column whose values may identify people, else None.

    The rule of :func:`polars_fair.counting.boundary.identifying` on the classes held (``n`` >
    0): counts and dtype only (:data:`polars_fair.errors.CLASSES_HIDDEN`), never the values (a
    date of birth or a name given as a class).

    Parameters
    ----------
    df : pl.DataFrame
        A class table (``column``, ``n``).
    column : str
        ``y_pred`` or ``y_true``.

    Returns
    -------
    str or None
        The words in place of the values, or ``None`` when they may be shown.

    Examples
    --------
    >>> t = pl.DataFrame({"y_pred": [f"P{i}" for i in range(8)], "n": [1] * 8})
    >>> hidden_classes(t, "y_pred")
    '(8 distinct String values in 8 rows, not shown: such a column can identify people; is it \
the right column?)'
    >>> hidden_classes(t.head(2).with_columns(n=pl.lit(5)), "y_pred") is None
    True
    """
    found = boundary.identifying(df.filter(pl.col("n") > 0), column)  # the attributes' rule
    if found.why is None:
        return None
    return E.CLASSES_HIDDEN.format(levels=found.levels, rows=found.rows,
                                   dtype=df.schema[column])


def derive_classes(df: pl.DataFrame, a: Audit, dtype: pl.DataType,
                   declared: tuple[Any, ...] | None) -> pl.DataFrame:
    """Check an engine's label table and turn it into the class table (eager, small).

    In the order of a binary audit: null and NaN labels and predictions, bad weights, then the
    empty input, the null-group policy and the attribute level guards
    (:func:`polars_fair.counting.boundary.apply_group_policy`), then the classes
    (:func:`classes_of`).

    Parameters
    ----------
    df : pl.DataFrame
        The label table (keys, ``__pf_y``, ``__pf_p``, ``n`` [, weight columns]).
    a : Audit
        The resolved call (``resolve(..., classes=True)``).
    dtype : pl.DataType
        The class dtype (:func:`class_dtype`).
    declared : tuple, optional
        The declared classes.

    Returns
    -------
    pl.DataFrame
        The class table (see the module), sorted.

    Raises
    ------
    NullValuesError
        Null or NaN classes (the count of rows).
    InvalidWeightError
        Null, NaN, infinite or negative weights, or weight sums beyond a float.
    EmptyFrameError, NullGroupError, TooManyLevelsError
        See :func:`polars_fair.counting.boundary.apply_group_policy`.
    InvalidLabelError
        A class outside ``declared``, or one class only.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> schema = pl.Schema({"g": pl.String, "p": pl.Int64})
    >>> a = resolve(schema, "g", y_true=None, y_pred="p", classes=True)
    >>> df = pl.DataFrame({"g": ["a", "a"], "__pf_p": [2, 0], "n": [3, 1]})
    >>> derive_classes(df, a, pl.Int64(), None).rows()
    [('a', 0, 1), ('a', 2, 3)]
    """
    names = {"y_pred": a.y_pred_name or "y_pred"}
    if boundary.Y in df.columns:
        names["y_true"] = a.y_true_name or "y_true"
        check_class_values(df, boundary.Y, names["y_true"], "y_true")
    check_class_values(df, boundary.P, names["y_pred"], a.y_pred_role)
    boundary.check_weights(df, a)
    df = boundary.apply_group_policy(df, a)
    labels = [c for c in (boundary.Y, boundary.P) if c in df.columns]
    df = df.with_columns(pl.col(c).cast(pl.String if _is_text(dtype) else dtype)
                         .cast(staging_dtype(dtype)) for c in labels)
    weighted = "weight_sum" in df.columns
    sums = [pl.col("n").sum().cast(pl.Int64),
            *([pl.col("weight_sum").sum().cast(pl.Float64),
               pl.col(boundary.W_POS).sum().cast(pl.Int64).alias(POSITIVE_WEIGHT_ROWS)]
              if weighted else [])]
    out = (df.group_by([*a.keys, *labels]).agg(sums)
           .rename({boundary.Y: "y_true", boundary.P: "y_pred"}, strict=False))
    order = [*a.keys, *(["y_true"] if boundary.Y in labels else []), "y_pred"]
    out = out.sort(order, nulls_last=True).select(
        *order, "n", *(["weight_sum", POSITIVE_WEIGHT_ROWS] if weighted else []))
    return finish_classes(out, ["y_true", "y_pred"][-len(labels):], order, dtype, declared,
                          names)
