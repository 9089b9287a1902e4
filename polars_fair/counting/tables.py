"""Count tables and score tables: building them through an engine, rolling them up.

The count table is the public contract (the documentation's engines guide,
``docs/guide/engines.md``, "Count tables"): the key columns, then
``n, tp, fp, fn, tn`` (Int64), sorted by the keys with nulls last. With ``sample_weight`` the four
cells are Float64 weighted sums, ``n`` stays the row count and ``weight_sum`` follows ``tn``, then
``n_positive_weight`` (Int64), the rows of positive weight: the rows support flags and intervals
count (:func:`polars_fair.core.spec.support_size`), as a row of weight 0 is no observation. The
score table holds the keys, ``score`` (Float64), ``positives`` and ``negatives`` (Int64, or
Float64 weighted sums followed by ``n_rows``), sorted by keys then score.

An :class:`Engine` is where the rows live. It does one thing: turn rows into the label table of
:mod:`polars_fair.counting.boundary` (one aggregation). Polars is :class:`PolarsEngine`; Spark and
DuckDB implement the same two methods in their own modules.

Why one module: the Polars engine, the count and score tables, roll-ups, attribute
sets and the size guards are one layer (rows to tables); most of the lines are documentation
and the guards. The engine protocol is :mod:`polars_fair.counting.engine`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.core.limits import check_ceiling
from polars_fair.core.spec import (
    DEFAULT_MAX_GROUPS,
    POSITIVE_WEIGHT_ROWS,
    SCORE_ARGS,
    Attributes,
    Audit,
    By,
    NullGroups,
    check_int,
    name_of,
    normalize_by,
    parse_by,
    pin_selectors,
    resolve,
)
from polars_fair.core.sql import sql_name
from polars_fair.counting import boundary
from polars_fair.counting.boundary import COUNT_COLUMNS, checked
from polars_fair.counting.engine import Engine
from polars_fair.counting.membership import parse_membership
from polars_fair.counting.membership_counts import membership_counts

__all__ = [
    "COUNT_COLUMNS",
    "AttributeSets",
    "By",
    "Counted",
    "Engine",
    "NullGroups",
    "PolarsEngine",
    "checked",
    "engine_of",
    "normalize_by",
    "readable_label_error",
    "complete_enums",
    "count_table",
    "count_tables",
    "expand_sets",
    "keys_of",
    "rollup",
    "membership_combinations",
    "membership_rollup",
    "score_table",
]

#: What a count table above ``max_groups``' ceiling can do instead.
_FEWER = "audit fewer attributes or categories"


@dataclass(frozen=True)
class PolarsEngine:
    """A Polars LazyFrame (a DataFrame is made lazy): the label tables are lazy group-bys.

    Parameters
    ----------
    lf : pl.LazyFrame
        The rows.

    Examples
    --------
    >>> lf = pl.LazyFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 1]})
    >>> engine = PolarsEngine(lf)
    >>> count_table(engine, "g")[0].collect().rows()
    [('a', 1, 1, 0, 0, 0), ('b', 1, 0, 1, 0, 0)]
    """

    lf: pl.LazyFrame

    def schema(self) -> pl.Schema:
        """The LazyFrame's schema (no data is read).

        Returns
        -------
        pl.Schema
            Column name -> dtype.

        Examples
        --------
        >>> PolarsEngine(pl.LazyFrame({"g": ["a"]})).schema()
        Schema([('g', String)])
        """
        return self.lf.collect_schema()

    def bind(self, by: Any, args: dict[str, Any],
             ) -> tuple[PolarsEngine, Attributes, dict[str, Any]]:
        """Nothing to bind: Polars reads expressions as they are.

        Parameters
        ----------
        by : Attributes, or str, pl.Expr or list of them, or None
            The attributes of the call (a raw ``by`` is parsed).
        args : dict of str to Any
            The count or score arguments.

        Returns
        -------
        tuple of (PolarsEngine, Attributes, dict of str to Any)
            ``self``, the attributes and ``args``, a selector of one column replaced by that
            column (:func:`polars_fair.core.spec.pin_selectors`).

        Raises
        ------
        InvalidArgumentError
            A selector that matches no column of the input.

        Examples
        --------
        >>> engine = PolarsEngine(pl.LazyFrame({"g": ["a"]}))
        >>> engine.bind(["g"], {})[0] is engine
        True
        """
        attrs, args = pin_selectors(self.schema(), parse_by(by), args)
        return self, attrs, args

    @borrow(Engine.label_table, params=("a",), sections=("Returns",))
    def label_table(self, a: Audit) -> pl.LazyFrame:
        """The label table of a count table, one lazy ``group_by`` (:func:`.boundary.label_table`).

        Examples
        --------
        >>> lf = pl.LazyFrame({"y_true": [1, 0, 0], "y_pred": [1, 0, 0]})
        >>> engine = PolarsEngine(lf)
        >>> engine.label_table(resolve(engine.schema(), None)).collect().sort("n").rows()
        [(1, 1, 1), (0, 0, 2)]
        """
        return boundary.label_table(self.lf, a)

    @borrow(Engine.score_label_table, params=("a",), sections=("Returns",))
    def score_label_table(self, a: Audit) -> pl.LazyFrame:
        """The label table of a score table, one lazy ``group_by``.

        Examples
        --------
        >>> lf = pl.LazyFrame({"y_true": [1, 0], "y_score": [0.75, 0.75]})
        >>> engine = PolarsEngine(lf)
        >>> a = resolve(engine.schema(), None, y_score="y_score", scores=True)
        >>> engine.score_label_table(a).collect().sort("__pf_y").rows()
        [(0.75, 0, 1), (0.75, 1, 1)]
        """
        return boundary.score_label_table(self.lf, a)


def engine_of(frame: Any) -> Engine:
    """The engine of a Polars DataFrame/LazyFrame, a PySpark DataFrame or a DuckDB relation.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame, duckdb.DuckDBPyRelation or Engine
        The rows; an engine (a ``SparkEngine`` with ``round_scores``, ...) is returned as it is.

    Returns
    -------
    Engine
        :class:`PolarsEngine`, :class:`polars_fair.counting._spark.SparkEngine` or
        :class:`polars_fair.counting._duckdb.DuckDBEngine` (imported only when needed).

    Raises
    ------
    InvalidArgumentError
        Any other object.

    Examples
    --------
    >>> engine_of(pl.DataFrame({"g": ["a"]}))
    PolarsEngine(lf=<LazyFrame at ...>)
    >>> engine_of([1, 2])
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: expected a polars DataFrame or LazyFrame, ...
    """
    if isinstance(frame, pl.DataFrame):
        return PolarsEngine(frame.lazy())
    if isinstance(frame, pl.LazyFrame):
        return PolarsEngine(frame)
    if hasattr(frame, "label_table") and hasattr(frame, "score_label_table"):
        return cast(Engine, frame)  # an engine already (SparkEngine with round_scores, ...)
    module = type(frame).__module__
    if module.startswith("pyspark."):
        from polars_fair.counting._spark import SparkEngine

        return SparkEngine(frame)
    if module.startswith("duckdb") or module.startswith("_duckdb"):
        from polars_fair.counting._duckdb import DuckDBEngine

        return DuckDBEngine(frame)
    raise E.InvalidArgumentError(E.NOT_A_FRAME.format(type=type(frame).__name__))


def _is_empty(engine: Engine) -> bool:
    """Whether the input has no row (read only on an error path: one row at most)."""
    if isinstance(engine, PolarsEngine):
        return engine.lf.head(1).collect().height == 0
    check = getattr(engine, "is_empty", None)  # engines may offer it (Spark, DuckDB)
    return bool(check()) if callable(check) else False


def _label_kinds_error(engine: Engine, args: dict[str, Any],
                       kinds: dict[str, Any]) -> E.PolarsFairError:
    """:func:`polars_fair.errors.label_kinds_error` with the text column's values, read once.

    On the error path only: one aggregation of the text column in the frame's own engine. A
    text column of nulls only has no value to compare with: its nulls are the error. Its
    values are not shown when they may identify people (:func:`boundary.identifying`).
    """
    role = kinds["text_role"]
    table, found = _text_values(engine, args.get(role, role), role)
    if not found and table.height:
        return E.NullValuesError(E.NULL_LABELS.format(
            column=kinds[role], role=role, count=int(table["n"].sum())))
    hidden = boundary.identifying(table, boundary.P)
    return E.label_kinds_error(
        kinds["y_true"], kinds["y_pred"], kinds["true_dtype"], kinds["pred_dtype"],
        text_role=role, values=found, pos_label=kinds["pos_label"],
        hidden=None if hidden.why is None else (hidden.levels, hidden.rows, hidden.why))


#: Text values that usually mean the positive outcome: the example of a text label's
#: ``pos_label`` advice when ``pos_label`` is none of its values (else its first value).
_POSITIVE_WORDS = ("1", "yes", "y", "true", "t", "positive", "pos")


def _text_values(engine: Engine, source: Any, role: str) -> tuple[pl.DataFrame, list[Any]]:
    """The label table of one column or expression and its distinct non-null values, sorted.

    One aggregation in the frame's own engine, on an error path only (:func:`_read_values`).
    """
    table = _read_values(engine, source, role)
    return table, list(table[boundary.P].drop_nulls().unique().sort())


def _read_values(engine: Engine, source: Any, role: str) -> pl.DataFrame:
    """The label table of one column or expression (an error path only).

    An expression that fails to convert on the rows raises the typed error that names
    ``role`` (:func:`polars_fair.counting.conversions.values_hidden`), never Polars' own.
    """
    a = resolve(engine.schema(), None, y_true=None, y_pred=source, classes=True)
    table = engine.label_table(a)
    if isinstance(source, pl.Expr) and not source.meta.is_column():
        table = boundary.values_hidden(table, ((source, role),), _rows_of(engine))
    return table.collect()


def readable_label_error(engine: Engine, args: dict[str, Any],
                         exc: E.InvalidLabelError) -> E.PolarsFairError:
    """A label error found from the schema, with advice from the rows' own values.

    A text label with a numeric prediction (``label_kinds``) is advised a comparison with one
    of its values (:func:`polars_fair.errors.label_kinds_error`); a ``pos_label`` that a text
    column cannot hold (``pos_dtype``: ``pos_label=1``, the default, for labels ``'hired'`` /
    ``'rejected'``) is advised one of the column's values, shown
    (:data:`~polars_fair.errors.POS_LABEL_VALUES`: ``pos_label`` as text, else one that reads
    as positive, ``'yes'``, ``'true'``, ..., else the first) unless they may identify people
    (:func:`boundary.identifying`, the rule of attributes). One aggregation of the column in
    the frame's own engine, on the error path only.

    Parameters
    ----------
    engine : Engine
        The rows.
    args : dict
        The count arguments of the call.
    exc : InvalidLabelError
        The error :func:`polars_fair.core.spec.resolve` raised.

    Returns
    -------
    PolarsFairError
        ``exc`` itself when there is nothing to read; a ``NullValuesError`` for a text column
        of nulls only (no value to compare with).

    Examples
    --------
    >>> lf = pl.LazyFrame({"y_true": ["hired", "rejected"], "y_pred": ["hired", "hired"]})
    >>> try:
    ...     resolve(lf.collect_schema(), None)
    ... except E.InvalidLabelError as exc:
    ...     print(str(readable_label_error(PolarsEngine(lf), {}, exc)).split("; ")[1])
    pass a pos_label of the column's type, for example pos_label='hired' (its values: ['hired', 'rejected']
    """  # noqa: E501
    kinds = exc.label_kinds
    if kinds is not None:
        return _label_kinds_error(engine, args, kinds)
    pos = exc.pos_dtype
    dtype = None if pos is None else pos["dtype"]
    if pos is None or not (dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))):
        return exc
    role = next((k for k, v in args.items() if v is pos["source"]), "y_true")
    table, values = _text_values(engine, pos["source"], role)
    if not values or boundary.identifying(table, boundary.P).why is not None:
        return exc
    text = str(pos["pos_label"]).lower() if isinstance(pos["pos_label"], bool) \
        else str(pos["pos_label"])
    likely = [v for v in values if str(v).strip().lower() in _POSITIVE_WORDS]
    example = text if text in values else (likely or values)[0]
    facts = {"pos_label": pos["pos_label"], "pos_type": type(pos["pos_label"]).__name__,
             "column": pos["column"], "dtype": dtype}
    return E.InvalidLabelError(
        E.POS_LABEL_DTYPE.format(**facts, example=E.POS_LABEL_VALUES.format(
            example=example, values=E.show_values(values, limit=8))),
        cli_message=E.POS_LABEL_DTYPE.format(**facts, example=E.CLI_POS_LABEL_VALUES.format(
            example=E.cli_values([example]), values=E.cli_values(values))))


def _resolve(engine: Engine, by: Any, args: dict[str, Any], scores: bool,
             key_roles: dict[str, str] | None = None) -> tuple[Engine, Audit]:
    engine, by, args = engine.bind(parse_by(by), args)  # parsed once: identity on the route
    try:
        a = resolve(engine.schema(), by, scores=scores, **args)
    except E.InvalidLabelError as exc:
        # a header-only CSV reads as String columns: its problem is that it is empty, not that
        # pos_label=1 is no string
        if _is_empty(engine):
            raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail="")) from None
        readable = readable_label_error(engine, args, exc)  # advice from the rows' values
        if readable is not exc:
            raise readable from None
        raise
    if key_roles:  # keys of another role (a period) are no attributes: no level check
        a = replace(a, not_attributes=tuple(key_roles))
    if isinstance(engine, PolarsEngine):  # expressions mean what with_columns makes of them
        lf, a = boundary.bind_frame(engine.lf, a, key_roles)
        engine = PolarsEngine(lf)
    else:  # DuckDB, Spark: advice that can be followed there
        a = replace(a, way="relation")
    return engine, a


def count_table(
    engine: Engine | pl.LazyFrame | pl.DataFrame, by: By | Attributes, *,
    key_roles: dict[str, str] | None = None, intersection: bool = True,
    binned: Mapping[str, pl.DataType] | None = None, **args: Any
) -> tuple[pl.LazyFrame, list[str]]:
    """The lazy count table of the rows and its key names (the public contract above).

    Schema errors raise here; data errors raise when the result is collected.

    Parameters
    ----------
    engine : Engine, pl.LazyFrame or pl.DataFrame
        The rows (a Polars frame is wrapped in a :class:`PolarsEngine`).
    by : Attributes, or str, pl.Expr, list of them, or None
        The attributes of one set (several = their intersection; ``None``: the whole
        population), parsed once (:func:`polars_fair.core.spec.parse_by`) or raw.
    key_roles : dict of str to str, optional
        The argument that gave a key, by key name, when it is not ``by`` (``time`` of a
        monitor), named in errors.
    intersection : bool, default True
        Whether the intersection of several attributes is refused when it is too fine, as each
        attribute is (:func:`polars_fair.counting.boundary.check_row_levels`); ``False`` only
        where groups below a minimum support are never shown (``divergence``).
    binned : mapping of str to pl.DataType, optional
        The keys that ``divergence``'s ``bins=`` cut into bins, with their dtypes before
        (:attr:`polars_fair.core.spec.Audit.binned`).
    **args : Any
        The count arguments but ``combinations``/``max_order`` (``y_true``, ``y_pred``,
        ``pos_label``, ``sample_weight``, ``null_groups``, ``y_score``, ``threshold``,
        ``membership``, ``membership_estimator``, ``normalize``; see
        :class:`polars_fair.core.spec.CountArgs`).

    Returns
    -------
    counts : pl.LazyFrame
        The count table: the keys, ``n`` (Int64 rows), ``tp, fp, fn, tn`` (Int64; Float64
        weighted sums with ``sample_weight``, then ``weight_sum`` Float64 and
        ``n_positive_weight`` Int64), sorted by the keys (nulls last), with the empty
        intersections of Enum keys as zero rows. With ``membership`` the estimator's table
        (:func:`polars_fair.counting.membership_counts.membership_counts`): the attribute
        first, and for ``"weighted"`` the columns ``n_effective`` and ``attenuation``.
    keys : list of str
        The key names (with ``membership``, the attribute then the ``by`` keys).

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError, InvalidLabelError, InvalidWeightError
        At once: the schema errors of :func:`polars_fair.core.spec.resolve`.
    InvalidLabelError, NullValuesError, EmptyFrameError, NullGroupError, TooManyLevelsError
        At collect time: the data errors of
        :func:`polars_fair.counting.boundary.counts_from_labels`.
    NotRowLevelError
        At collect time: an expression argument whose length is not the frame's
        (:func:`polars_fair.counting.boundary.bind_frame`).
    SizeLimitError
        The Enum completion would exceed the count argument ``max_groups`` (at once when the
        declared categories alone do, else at collect time).
    InvalidMembershipError, NullGroupError
        With ``membership``: the errors of
        :func:`polars_fair.counting.membership.membership_from_labels` (at collect time).

    Examples
    --------
    >>> df = pl.LazyFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 1]})
    >>> counts, keys = count_table(df, "g")
    >>> keys, counts.collect().rows()
    (['g'], [('a', 1, 1, 0, 0, 0), ('b', 1, 0, 1, 0, 0)])
    """
    engine = engine_of(engine) if isinstance(engine, (pl.LazyFrame, pl.DataFrame)) else engine
    derived = {role: name_of(args[role]) for role in ("y_true", "y_pred")
               if WARN_CONSTANT.get() and isinstance(args.get(role), pl.Expr)
               and not args[role].meta.is_column()
               and args[role].meta.root_names()}  # a literal is constant on purpose
    m = parse_membership(args.pop("membership", None),
                         args.pop("membership_estimator", "weighted"),
                         args.pop("normalize", False))
    engine, a = _resolve(engine, by, args, scores=False, key_roles=key_roles)
    if not intersection:
        a = replace(a, check_intersection=False)
    if binned:  # divergence's bins=: the keys' own dtypes, for their level errors
        a = replace(a, binned=dict(binned))
    if m is not None:  # estimated membership: its own scan (counting.membership)
        table, keys = membership_counts(engine, a, m)
        return boundary.values_hidden(table, (*a.bound, *m.bound), _rows_of(engine)), keys
    if isinstance(engine, PolarsEngine) and boundary.sums_plan(a):  # 0/1 labels: sums per key
        out = boundary.counts_from_sums(engine.lf, a)
    else:
        out = boundary.counts_from_labels(engine.label_table(a), a)
    if a.keys:  # the Enum completion is bounded by the count argument max_groups
        completed = complete_enums(out, a.keys, max_groups=a.max_groups)
        if completed is not out:  # new rows: sorted again (the count table is sorted already)
            out = completed.sort(a.keys, nulls_last=True)
    if derived:  # a label or prediction computed by an expression: warn when it is constant
        out = checked(out, lambda df: _warn_constant(df, derived))
    return boundary.values_hidden(out, a.bound, _rows_of(engine)), a.keys


def _rows_of(engine: Any) -> pl.LazyFrame | None:
    """The rows of a Polars engine (a failed cast is counted over them), else ``None``."""
    return engine.lf if isinstance(engine, PolarsEngine) else None


#: Whether a label or prediction given as an expression that is constant over the rows warns
#: (:data:`polars_fair.errors.CONSTANT_OUTCOME`). The command line turns it on for its commands
#: (a SQL --y-true typed by hand, or copied from advice, that matches no row); the Python API
#: leaves it off, where a constant expression is often meant. A literal (``1``: select
#: everyone), which reads no column, never warns.
WARN_CONSTANT: ContextVar[bool] = ContextVar("polars_fair_warn_constant", default=False)


def _warn_constant(df: pl.DataFrame, derived: dict[str, str]) -> pl.DataFrame:
    """Warn (:data:`polars_fair.errors.CONSTANT_OUTCOME`) for a derived outcome that is constant.

    ``derived`` maps ``"y_true"`` / ``"y_pred"`` to the name of the expression given for it;
    the count table's cells tell whether it was ever positive or ever negative.
    """
    if not df.height:
        return df
    tp, fp, fn, tn = (float(df[c].sum()) for c in ("tp", "fp", "fn", "tn"))
    rows = int(df["n"].sum())
    sides = {"y_true": (tp + fn, fp + tn), "y_pred": (tp + fp, fn + tn)}
    for role, name in derived.items():
        positive, negative = sides[role]
        if rows and (not positive or not negative):
            warnings.warn(E.CONSTANT_OUTCOME.format(
                role=role, name=name, value="positive" if positive else "negative",
                rows=rows), stacklevel=2)
    return df


def score_table(
    engine: Engine | pl.LazyFrame | pl.DataFrame, by: By, **args: Any
) -> tuple[pl.LazyFrame, list[str], pl.DataType]:
    """The lazy score table (one row per group and distinct score), its keys and score dtype.

    The score's own dtype is returned because thresholds are compared in it
    (:func:`polars_fair.core.spec.threshold_in_dtype`).

    Parameters
    ----------
    engine : Engine, pl.LazyFrame or pl.DataFrame
        The rows.
    by : str, pl.Expr, list of them, or None
        The attributes.
    **args : Any
        The score arguments (``y_true``, ``y_score``, ``pos_label``, ``sample_weight``,
        ``null_groups``; :class:`polars_fair.core.spec.ScoreArgs`), defaults from
        :data:`polars_fair.core.spec.SCORE_ARGS`.

    Returns
    -------
    scores : pl.LazyFrame
        The keys, ``score`` (Float64), ``positives`` and ``negatives`` (Int64 rows; Float64
        weighted sums with ``sample_weight``, then ``n_rows`` Int64), sorted by the keys and
        ``score`` (nulls last).
    keys : list of str
        The key names.
    score_dtype : pl.DataType
        The dtype of the score column.

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError, InvalidScoreError, InvalidWeightError
        At once: the schema errors of :func:`polars_fair.core.spec.resolve`.
    InvalidLabelError, NullValuesError, InvalidScoreError, EmptyFrameError
        At collect time: the data errors of
        :func:`polars_fair.counting.boundary.scores_from_labels`.
    NotRowLevelError
        At collect time: an expression argument whose length is not the frame's
        (:func:`polars_fair.counting.boundary.bind_frame`).

    Examples
    --------
    >>> df = pl.LazyFrame({"g": ["a", "a", "a"], "y_true": [1, 0, 1], "y_score": [0.9, 0.9, 0.2]})
    >>> table, keys, dtype = score_table(df, "g")
    >>> table.collect().rows()
    [('a', 0.2, 1, 0), ('a', 0.9, 1, 1)]
    """
    engine = engine_of(engine) if isinstance(engine, (pl.LazyFrame, pl.DataFrame)) else engine
    engine, a = _resolve(engine, by, {**SCORE_ARGS, **args}, scores=True)
    assert a.score_dtype is not None
    if isinstance(engine, PolarsEngine) and boundary.sorted_scores_plan(a):  # continuous
        table = boundary.scores_by_sorting(engine.lf, a)
    else:
        table = boundary.scores_from_labels(engine.score_label_table(a), a)
    return boundary.values_hidden(table, a.bound, _rows_of(engine)), a.keys, a.score_dtype


def _observed_advice(keys: Sequence[str], enums: dict[str, pl.DataType]) -> tuple[str, str]:
    r"""BEYOND_CEILING's advice for Enum intersections: the keys with each Enum cast to text.

    Examples
    --------
    >>> print(*_observed_advice(["e", "g"], {"e": pl.Enum(["a"])}), sep="\n")
    count only the intersections observed: cast the Enum attributes to text first, for example by=[pl.col('e').cast(pl.String), 'g']
    count only the intersections observed: read the Enum attributes as text, for example --by "CAST(e AS VARCHAR)" --by g
    """  # noqa: E501
    casts = ", ".join(f"pl.col({k!r}).cast(pl.String)" if k in enums else repr(k) for k in keys)
    flags = " ".join("--by " + ('"' + E.shell_escaped(f"CAST({sql_name(k)} AS VARCHAR)") + '"'
                                if k in enums else E.shell_word(k)) for k in keys)
    return E.CEILING_ENUMS.format(casts=casts), E.CLI_CEILING_ENUMS.format(flags=flags)


def complete_enums(
    counts: pl.LazyFrame, keys: Sequence[str], *, max_groups: int = DEFAULT_MAX_GROUPS
) -> pl.LazyFrame:
    """Add the empty intersections of Enum attributes as rows with zero counts.

    Polars' ``group_by`` leaves out combinations that no row has. For attributes whose categories
    are declared (``pl.Enum``) every combination of categories is a group an auditor must see, so
    the count table is completed to the product of the declared categories (and the observed
    values of the other attributes, nulls included) with ``n = 0``; its rates are null and its
    report row is flagged ``low_support``. Without Enum keys the table is returned unchanged.

    The size of the product is computed before it is built: when the declared categories alone
    exceed ``max_groups`` this raises at once; otherwise the exact size (with the observed values
    of the other keys) is checked on the small count table when it is collected.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table.
    keys : sequence of str
        Its key columns.
    max_groups : int, default 10000
        The most rows the completed table may hold.

    Returns
    -------
    pl.LazyFrame
        The count table's columns and dtypes, with a zero row (every count 0) for each
        missing combination; unsorted.

    Raises
    ------
    SizeLimitError
        The completed table would hold more than ``max_groups`` rows (the message gives its
        size).

    Examples
    --------
    >>> sex = pl.Enum(["F", "M"])
    >>> c = pl.LazyFrame({"sex": pl.Series(["M"], dtype=sex), "n": [2], "tp": [1], "fp": [1],
    ...                   "fn": [0], "tn": [0]})
    >>> complete_enums(c, ["sex"]).sort("sex").collect().rows()
    [('F', 0, 0, 0, 0, 0), ('M', 2, 1, 1, 0, 0)]
    """
    schema = counts.collect_schema()
    enums = {k: schema[k] for k in keys if isinstance(schema[k], pl.Enum)}
    if not enums:
        return counts
    what = "the count table with every intersection of the Enum categories of " + ", ".join(
        repr(k) for k in enums)
    declared = math.prod(len(cast(pl.Enum, d).categories) for d in enums.values())
    advice = _observed_advice(keys, enums)
    check_ceiling(declared, "max_groups", what, "groups", *advice)
    if declared > max_groups:  # before any row is read
        raise E.SizeLimitError(E.TOO_MANY_GROUPS.format(what=what, size=declared,
                                                        limit=max_groups))
    cells = [c for c in (*COUNT_COLUMNS, "weight_sum", POSITIVE_WEIGHT_ROWS) if c in schema]

    def complete(df: pl.DataFrame) -> pl.DataFrame:
        levels: list[pl.DataFrame] = []
        for k in keys:
            values = df.select(k).unique()
            dtype = schema[k]
            if isinstance(dtype, pl.Enum):
                cats = pl.DataFrame({k: pl.Series(k, dtype.categories, dtype=dtype)})
                values = pl.concat([cats, values]).unique()
            levels.append(values)
        size = math.prod(v.height for v in levels)
        check_ceiling(size, "max_groups", what, "groups", *advice)
        if size > max_groups:
            raise E.SizeLimitError(E.TOO_MANY_GROUPS.format(what=what, size=size,
                                                            limit=max_groups))
        grid = levels[0]
        for v in levels[1:]:
            grid = grid.join(v, how="cross")
        return grid.join(df, on=list(keys), how="left", nulls_equal=True).with_columns(
            [pl.col(c).fill_null(0).cast(schema[c]) for c in cells]
        ).select(schema.names())

    return counts.map_batches(complete, schema=schema)


AttributeSets = list[list[str]]


@dataclass(frozen=True)
class Counted:
    """A lazy count table with its keys; ``sets`` names the attribute sets of a multi-set call.

    For several attribute sets the frame starts with ``attributes`` (List(String)): the
    attributes that define each row, so a null key is never ambiguous; keys outside a row's set
    are null.

    Parameters
    ----------
    frame : pl.LazyFrame
        The count table ([``attributes``,] keys, ``n, tp, fp, fn, tn`` [, ``weight_sum``]).
    keys : list of str
        The key columns (the union of the sets' attributes for several sets).
    sets : list of list of str, optional
        The attribute sets, in order; ``None`` for one set (the keys).
    max_groups : int, default 10000
        The size limit of the tables made from it (roll-ups to several attribute sets).

    Examples
    --------
    >>> c = Counted(pl.LazyFrame({"g": ["a"], "n": [1], "tp": [1], "fp": [0], "fn": [0],
    ...                           "tn": [0]}), ["g"])
    >>> c.keys, c.sets
    (['g'], None)
    """

    frame: pl.LazyFrame
    keys: list[str]
    sets: AttributeSets | None = None
    max_groups: int = DEFAULT_MAX_GROUPS


def count_tables(
    engine: Engine | pl.LazyFrame,
    by: By | Attributes,
    *,
    combinations: Literal["all"] | None = None,
    max_order: int | None = None,
    max_groups: int = DEFAULT_MAX_GROUPS,
    **kwargs: Any,
) -> Counted:
    """The count table of one attribute set, or of several from one scan at the finest level.

    Coarser sets are rolled up from the finest count table (:func:`rollup`), never re-scanned.
    With several sets and ``null_groups="drop"`` a row is dropped only from the sets that hold
    its missing attribute: a row missing only ``sex`` still counts in the ``race`` set.

    Parameters
    ----------
    engine : Engine, pl.LazyFrame or pl.DataFrame
        The rows.
    by : Attributes, or str, pl.Expr, list of them, list of lists of them, or None
        The attributes parsed once (:func:`polars_fair.core.spec.parse_by`), or a raw ``by``
        (the attributes, or the attribute sets), parsed here.
    combinations : "all", optional
        Audit every non-empty subset of ``by``.
    max_order : int, optional
        The largest subset with ``combinations="all"``.
    max_groups : int, default 10000
        The most groups of a table made here: an Enum completion (:func:`complete_enums`) or
        the stack of attribute sets (:func:`expand_sets`).
    **kwargs : Any
        The other count arguments (:func:`count_table`).

    Returns
    -------
    Counted
        The lazy count table, its keys and, for several sets, the sets; for several sets the
        frame starts with ``attributes`` (List(String)), keys outside a row's set are null, and
        the sets are stacked in order (see :func:`expand_sets`).

    Raises
    ------
    InvalidArgumentError
        Malformed attribute sets (:func:`polars_fair.core.spec.parse_by`), an empty set, a
        ``max_groups`` that is not an integer >= 1.
    SizeLimitError
        More than ``max_groups`` attribute sets (at once) or groups (at collect time).
    ColumnNotFoundError, InvalidLabelError, NullValuesError, EmptyFrameError
        The errors of :func:`count_table`.

    Examples
    --------
    >>> df = pl.LazyFrame({"a": ["x", "y"], "b": [0, 0], "y_true": [1, 0], "y_pred": [1, 1]})
    >>> c = count_tables(df, ["a", "b"], combinations="all")
    >>> c.sets
    [['a'], ['b'], ['a', 'b']]
    """
    limit = check_int(max_groups, "max_groups")
    attrs = parse_by(by, combinations, max_order, max_groups=limit)
    if attrs.sets is not None and kwargs.get("membership") is not None:
        raise membership_combinations([list(s) for s in attrs.sets])
    if attrs.sets is None:
        frame, keys = count_table(engine, attrs, max_groups=limit, **kwargs)
        return Counted(frame, keys, max_groups=limit)
    if not all(attrs.sets):
        raise E.InvalidArgumentError("an attribute set in by= is empty")
    drop = kwargs.get("null_groups") == "drop"  # per set, after the roll-up (see above)
    if drop:
        kwargs = {**kwargs, "null_groups": "keep"}
    # the finest table is never shown: each set's own intersection is checked when rolled up
    check_sets = kwargs.pop("intersection", True)
    finest, keys = count_table(engine, Attributes(attrs.items), max_groups=limit,
                               intersection=False, **kwargs)
    return expand_sets(finest, keys, [list(s) for s in attrs.sets], max_groups=limit,
                       drop_missing=drop, check_sets=check_sets)


def membership_combinations(sets: AttributeSets,
                            attribute: str | None = None) -> E.InvalidArgumentError:
    """The error of ``combinations=`` with estimated membership, with a set to count instead.

    Parameters
    ----------
    sets : list of list of str
        The attribute sets asked for (the first, or with ``attribute`` the first holding it
        and another key, is the example).
    attribute : str, optional
        The membership attribute, when the sets are of a membership count table's keys (a
        method's ``combinations=``): the example keeps it (a roll-up must), and the command
        line's leaves it out (``--by`` names the other attributes).

    Returns
    -------
    InvalidArgumentError
        :data:`polars_fair.errors.MEMBERSHIP_COMBINATIONS` (the command line's words in its
        ``cli_message``: :data:`polars_fair.errors.CLI_MEMBERSHIP_COMBINATIONS`).

    Examples
    --------
    >>> str(membership_combinations([["s"], ["s", "t"]])).endswith("by=['s']")
    True
    """
    first = next((list(s) for s in sets if attribute in s and len(s) > 1),
                 list(sets[0]) if sets else [])
    return E.InvalidArgumentError(
        E.MEMBERSHIP_COMBINATIONS.format(example=first),
        cli_message=E.CLI_MEMBERSHIP_COMBINATIONS.format(
            example=" ".join(f"--by {E.shell_word(k)}" for k in first if k != attribute)))


def expand_sets(
    finest: pl.LazyFrame, keys: list[str], sets: AttributeSets, *,
    max_groups: int = DEFAULT_MAX_GROUPS, drop_missing: bool = False, check_sets: bool = False,
) -> Counted:
    """Stack the roll-ups of a finest count table to each attribute set (see :class:`Counted`).

    Runs on the small finest table when collected: the number of groups of every set is counted
    first, and the stack is built only when their total is at most ``max_groups``.

    Parameters
    ----------
    finest : pl.LazyFrame
        The count table over every attribute of the sets.
    keys : list of str
        Its key columns.
    sets : list of list of str
        The attribute sets, each a subset of ``keys``.
    max_groups : int, default 10000
        The most rows the stack may hold.
    drop_missing : bool, default False
        Drop, within each set, the rows whose attribute *of that set* is null (``null_groups=
        "drop"``), with one warning giving the rows dropped per set.
    check_sets : bool, default False
        Refuse a set of several attributes whose groups are too fine to show
        (:func:`polars_fair.counting.boundary.too_fine`, the rule ``count_table`` applies to
        the intersection it counts): the finest table itself is never shown.

    Returns
    -------
    Counted
        Frame: ``attributes`` (List(String), the row's set), every key (null outside the row's
        set), then the count columns of ``finest``; each set's rows sorted by its keys, the sets
        in order.

    Raises
    ------
    SizeLimitError
        The stack would hold more than ``max_groups`` rows (at collect time).
    EmptyFrameError
        ``drop_missing`` leaves a set without rows (at collect time).

    Warns
    -----
    UserWarning
        With ``drop_missing``: the rows dropped per attribute set.

    Examples
    --------
    >>> c = pl.LazyFrame({"a": ["x", "y"], "b": [0, 0], "n": [2, 3], "tp": [1, 1],
    ...                   "fp": [0, 1], "fn": [1, 0], "tn": [0, 1]})
    >>> out = expand_sets(c, ["a", "b"], [["b"], ["a", "b"]]).frame.collect()
    >>> out.select("attributes", "a", "b", "n").rows()
    [(['b'], None, 0, 5), (['a', 'b'], 'x', 0, 2), (['a', 'b'], 'y', 0, 3)]
    """
    schema = finest.collect_schema()
    cells = [c for c in schema.names() if c not in keys]
    # a key named "attributes" is refused by each analysis (runner.check_clash), not here
    columns: dict[str, pl.DataType] = {"attributes": pl.List(pl.String())}
    columns.update({c: schema[c] for c in (*keys, *cells)})
    out_schema = pl.Schema(columns)

    def stack(df: pl.DataFrame) -> pl.DataFrame:
        inputs: list[pl.DataFrame] = []
        dropped: dict[str, int] = {}
        for s in sets:
            part = df
            if drop_missing and s:
                missing = pl.any_horizontal([pl.col(k).is_null() for k in s])
                rows = int(df.filter(missing)["n"].sum())
                if rows:
                    dropped[", ".join(s)] = rows
                    part = df.filter(~missing)
                if not part["n"].sum():
                    raise E.EmptyFrameError(E.EMPTY_FRAME.format(
                        detail=f" in attribute set {s} after dropping null groups"))
            inputs.append(part)
        size = sum(p.select(s).n_unique() if s else 1 for s, p in zip(sets, inputs, strict=True))
        check_ceiling(size, "max_groups", f"the count table of {len(sets)} attribute sets",
                      "groups", _FEWER)
        if size > max_groups:
            raise E.SizeLimitError(E.TOO_MANY_GROUPS.format(
                what=f"the count table of {len(sets)} attribute sets", size=size,
                limit=max_groups))
        if dropped:
            warnings.warn(E.DROPPED_NULL_GROUPS_SETS.format(counts=dropped), stacklevel=2)
        parts = []
        for s, part in zip(sets, inputs, strict=True):
            rolled = part if s == keys else rollup(part.lazy(), s).collect()
            if check_sets and len(s) > 1:
                found = boundary.fineness(rolled, s, int(rolled["n"].sum()))
                if found.why is not None:
                    raise E.intersection_error(s, found.levels, found.rows, why=found.why)
            parts.append(rolled.with_columns(
                pl.lit(s, dtype=pl.List(pl.String)).alias("attributes"),
                *[pl.lit(None, dtype=schema[k]).alias(k) for k in keys if k not in s],
            ).select(out_schema.names()))
        return pl.concat(parts, how="vertical") if parts else pl.DataFrame(schema=out_schema)

    return Counted(finest.map_batches(stack, schema=out_schema), keys, sets, max_groups)


def keys_of(counts: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """The key columns of a count table: every column before ``n``.

    Parameters
    ----------
    counts : pl.DataFrame or pl.LazyFrame
        A count table (its schema is read; a LazyFrame is not run).

    Returns
    -------
    list of str
        The names of the columns before ``n``, in order.

    Raises
    ------
    ColumnNotFoundError
        When the table has no ``n`` column.

    Examples
    --------
    >>> keys_of(pl.DataFrame({"race": ["a"], "sex": ["F"], "n": [1], "tp": [1]}))
    ['race', 'sex']
    """
    names = counts.collect_schema().names()
    if "n" not in names:
        raise E.ColumnNotFoundError(
            E.missing_column("n", "count table", names)
        )
    return names[: names.index("n")]


def rollup(counts: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Sum a count table up to the coarser attribute set ``keys`` (additive counts).

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table.
    keys : sequence of str
        A subset of its keys (``[]``: the whole population, one row).

    Returns
    -------
    pl.LazyFrame
        The keys, then the summed ``n, tp, fp, fn, tn`` [, ``weight_sum`` [,
        ``n_positive_weight``]] (the dtypes of
        ``counts``), sorted by the keys (nulls last).

    Raises
    ------
    InvalidArgumentError
        A membership count table (with ``n_effective``) summed to keys without its attribute
        (its first key): the rows' own Σ w² is not in the table.

    Notes
    -----
    A membership count table (weighted estimator) rolls up to any keys that keep its attribute
    (:func:`membership_rollup`): Kish's n_eff is not a sum, but the sums it is made of are.

    Examples
    --------
    >>> c = pl.LazyFrame({"a": [1, 1], "b": ["x", "y"], "n": [3, 2], "tp": [1, 1],
    ...                   "fp": [1, 0], "fn": [0, 1], "tn": [1, 0]})
    >>> rollup(c, ["a"]).collect().row(0)
    (1, 5, 2, 1, 1, 1)
    """
    names = counts.collect_schema().names()
    if "n_effective" in names and list(keys) == names[:names.index("n")]:
        return counts  # to its own keys: as it is (n_effective and attenuation kept)
    if "n_effective" in names:
        if names[0] not in keys:  # the membership attribute, always the first key
            raise E.InvalidArgumentError(E.MEMBERSHIP_ROLLUP.format(
                attribute=names[0], example=[names[0], *keys]))
        return membership_rollup(counts, keys)
    sums = [c for c in (*COUNT_COLUMNS, "weight_sum", POSITIVE_WEIGHT_ROWS) if c in names]
    if not keys:
        return counts.select([pl.col(c).sum() for c in sums])
    return counts.group_by(list(keys)).agg([pl.col(c).sum() for c in sums]).sort(
        list(keys), nulls_last=True
    )


def membership_rollup(counts: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    r"""Roll a weighted membership count table up to coarser keys that keep its attribute.

    ``n_effective`` and ``attenuation`` are not sums, but every sum they are made of is
    additive over the other attributes and is recovered from each finer row:
    :math:`S = \sum w p` (``weight_sum``), :math:`Q = \sum (w p)^2 = S^2 / n_{eff}` (0 for an
    empty group; both on :math:`S / 2^{\lfloor \log_2 \max S \rfloor}` of the coarser row,
    which cancels, so that
    weights of any scale give the same size), the cell's weight :math:`W = \sum w`
    (``weight_sum`` summed over the declared groups of the cell, whose probabilities sum to 1
    on each row) and
    :math:`M = \sum w p^2 = (a\,\mu(1 - \mu) + \mu^2) W` with :math:`\mu = S / W` and
    ``attenuation`` :math:`a` (:math:`M = 0` when :math:`\mu = 0`, :math:`W` when
    :math:`\mu = 1`). The coarser row takes :math:`n_{eff} = (\sum S)^2 / \sum Q` and
    :math:`a = (\sum M / \sum W - \mu^2) / (\mu (1 - \mu))`, exactly the values a count at
    the coarser level gives (up to rounding); as there, a crisp row's ``attenuation`` is 1
    where the ratio is 0/0 (:math:`\mu = 1`, and the missing group, null attribute, with
    weight), and null where the coarser row has no weight (:math:`S = 0`).
    ``row_weight_sum`` (with sample weights: Σ w over the rows counted in ``n``) is
    a sum.

    Parameters
    ----------
    counts : pl.LazyFrame
        A weighted membership count table (:mod:`polars_fair.counting.membership_counts`).
    keys : sequence of str
        Its attribute, then a subset of its other keys.

    Returns
    -------
    pl.LazyFrame
        The keys, the summed ``n, tp, fp, fn, tn, weight_sum``, then ``n_effective`` and
        ``attenuation`` (Float64) [, the summed ``row_weight_sum``], sorted by the keys
        (nulls last).

    Examples
    --------
    >>> c = pl.LazyFrame({"g": ["a", "a", "b", "b"], "s": ["x", "y", "x", "y"],
    ...                   "n": [2, 1, 1, 1], "tp": [1.0, 0.5, 0.5, 0.5], "fp": 0.0,
    ...                   "fn": 0.0, "tn": [0.5, 0.0, 0.0, 0.0], "weight_sum": [1.5, 0.5,
    ...                   0.5, 0.5], "n_effective": [1.8, 1.0, 1.0, 1.0],
    ...                   "attenuation": [1 / 3, None, 1 / 3, None]})
    >>> rollup(c, ["g"]).collect().select("g", "weight_sum", "n_effective").rows()
    [('a', 2.0, 2.6666666666666665), ('b', 1.0, 2.0)]
    """
    names = counts.collect_schema().names()
    attribute, finer = names[0], names[1:names.index("n")]
    s, n_eff, att = pl.col("weight_sum"), pl.col("n_effective"), pl.col("attenuation")
    cell = pl.when(pl.col(attribute).is_not_null()).then(s).otherwise(0.0).sum()
    w = cell.over(finer) if finer else cell
    mu = s / w
    m2 = (pl.when(att.is_not_null()).then(att * mu * (1 - mu) + mu * mu)
          .when(mu >= 1).then(1.0).otherwise(0.0) * w)
    # Q and the coarser n_eff on S / top, top the power of two at or below max S of the
    # coarser row: (S / top)² / n_eff holds where S² overflows or underflows (sample weights
    # of 1e170 or 1e-170); top cancels, and a power of two changes no digit of the result
    top = pl.lit(2.0).pow(s.max().over(list(keys)).log(2).floor())
    parts = counts.with_columns(
        pl.when(n_eff > 0).then((s / top) ** 2 / n_eff).otherwise(0.0).alias("__pf_q"),
        top.alias("__pf_top"),
        pl.when(pl.col(attribute).is_not_null()).then(m2).alias("__pf_m"),
        pl.when(pl.col(attribute).is_not_null()).then(w).alias("__pf_w"))
    rows = ["row_weight_sum"] if "row_weight_sum" in names else []  # additive
    sums = [*COUNT_COLUMNS, "weight_sum", "__pf_q", "__pf_m", "__pf_w", *rows]
    out = parts.group_by(list(keys)).agg(*(pl.col(c).sum() for c in sums),
                                         pl.col("__pf_top").first())
    mu = s / pl.col("__pf_w")
    attenuation = (pl.col("__pf_m") / pl.col("__pf_w") - mu * mu) / (mu * (1 - mu))
    return out.with_columns(
        pl.when(pl.col("__pf_q") > 0).then((s / pl.col("__pf_top")) ** 2 / pl.col("__pf_q"))
        .otherwise(0.0).alias("n_effective"),
        # as the direct count: null without weight (μ 0, or 0/0 = NaN, which Polars orders
        # above 1), 1 for the (crisp) missing group with weight and for μ = 1
        pl.when(s <= 0).then(None).when(pl.col(attribute).is_null()).then(1.0)
        .when(mu >= 1).then(1.0).when(attenuation.is_finite()).then(attenuation)
        .cast(pl.Float64).alias("attenuation"),
    ).select(*keys, *COUNT_COLUMNS, "weight_sum", "n_effective", "attenuation", *rows).sort(
        list(keys), nulls_last=True)
