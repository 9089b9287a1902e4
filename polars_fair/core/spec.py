"""What a call audits: the count arguments, declared once, and their resolution against a schema.

Every way in (``lf.fair``, ``polars_fair.counts`` on a Polars, Spark or DuckDB frame, the CLI)
takes the same count arguments (:class:`CountArgs`) or score arguments (:class:`ScoreArgs`).
:func:`resolve` checks them against the frame's schema and returns an :class:`Audit`, before any
row is read: missing columns, a ``pos_label`` of the wrong type, non-numeric weights or scores
and contradictory options raise here, with the same messages on every engine.

Why one module: the count arguments, their documentation and every check a
call gets before any data is read are one contract; keeping them together is what lets every
engine and surface raise the same errors.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import math
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any, Literal, TypedDict, TypeVar

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import is_numpy, np
from polars_fair.core.limits import LIMITS, check_ceiling, check_size
from polars_fair.core.numbers import fractional, real
from polars_fair.core.values import value_like

__all__ = [
    "Attributes",
    "Audit",
    "By",
    "COUNT_ARGS",
    "MEMBERSHIP_ARGS",
    "POSITIVE_WEIGHT_ROWS",
    "refuse_membership",
    "CountArgs",
    "IntoExpr",
    "NullGroups",
    "SCORE_ARGS",
    "DEFAULT_MAX_GROUPS",
    "ScoreArgs",
    "check_int",
    "support_size",
    "check_key_dtype",
    "name_of",
    "names",
    "normalize_by",
    "parse_by",
    "pin_selectors",
    "BY_DOC",
    "check_frame_wide",
    "cli_rename",
    "sql_rename_example",
    "length_follows_frame",
    "check_row_level",
    "spell_out",
    "resolve",
    "threshold_in_dtype",
    "to_expr",
    "FLOAT_DIGITS",
    "FLOAT_EXACT_INT",
    "decimal_digits",
    "wide_decimal",
    "wide_int",
]

IntoExpr = str | pl.Expr
NullGroups = Literal["keep", "raise", "drop"]
By = IntoExpr | Sequence[IntoExpr] | Sequence[Sequence[IntoExpr]] | None


class ScoreArgs(TypedDict, total=False):
    """The arguments that build a score table (every score-based analysis takes them).

    ``y_true`` (default ``"y_true"``), ``y_score`` (default ``"y_score"``), ``pos_label``
    (default 1), ``sample_weight`` (default none), ``null_groups`` (default ``"keep"``).
    :data:`SCORE_ARGS` holds the defaults; :data:`SCORE_ARGS_DOC` the documentation.

    Examples
    --------
    >>> args: ScoreArgs = {"y_score": "p", "pos_label": "yes"}
    >>> {**SCORE_ARGS, **args}["y_score"]
    'p'
    """

    y_true: IntoExpr | None
    y_score: IntoExpr
    pos_label: Any
    sample_weight: IntoExpr | None
    null_groups: NullGroups


class RowArgs(TypedDict, total=False):
    """The count arguments that read the rows, shared by :class:`CountArgs`.

    :class:`CountArgs` but ``combinations`` and ``max_order``: ``divergence`` on rows takes
    these and has its own ``max_order``.

    Examples
    --------
    >>> args: RowArgs = {"y_pred": "hired"}
    >>> sorted(args)
    ['y_pred']
    """

    y_true: IntoExpr | None
    y_pred: IntoExpr | None
    pos_label: Any
    sample_weight: IntoExpr | None
    null_groups: NullGroups
    y_score: IntoExpr | None
    threshold: float | None
    max_groups: int


class CountArgs(RowArgs, total=False):
    """The arguments that build a count table (every classification analysis takes them).

    ``y_true`` (default ``"y_true"``), ``y_pred`` (default: the column ``"y_pred"`` unless
    ``y_score`` is given), ``pos_label`` (default 1), ``sample_weight``, ``null_groups`` (default
    ``"keep"``), ``y_score`` with ``threshold`` instead of ``y_pred``, ``combinations``,
    ``max_order`` and ``max_groups`` (default :data:`DEFAULT_MAX_GROUPS`).
    :data:`COUNT_ARGS` holds the defaults; :data:`COUNT_ARGS_DOC` the documentation.

    Examples
    --------
    >>> args: CountArgs = {"y_pred": "hired", "sample_weight": "w"}
    >>> sorted(set(args) - set(COUNT_ARGS))
    []
    """

    combinations: Literal["all"] | None
    max_order: int | None
    membership: Mapping[str, Mapping[Any, IntoExpr]] | None
    membership_estimator: Literal["weighted", "argmax", "regression"]
    normalize: bool


#: The count arguments of estimated membership (issue 24): read by the count table
#: (:func:`polars_fair.counting.tables.count_table`), not by :func:`resolve`.
MEMBERSHIP_ARGS = ("membership", "membership_estimator", "normalize")


def refuse_membership(given: Mapping[str, Any], analysis: str, table: str) -> None:
    """Refuse estimated membership on an analysis whose table counts each row in one group.

    One message for every such analysis (:data:`polars_fair.errors.MEMBERSHIP_NOT_TAKEN`):
    the score, class, paired, period and moment tables, and LL 144's bias audit from rows.

    Parameters
    ----------
    given : mapping of str to Any
        The call's arguments; a membership argument (:data:`MEMBERSHIP_ARGS`) other than
        ``None`` (or ``False`` for ``normalize``) is refused.
    analysis : str
        The analysis, as the message names it (``"abroca"``).
    table : str
        The table it reads (``"score table"``).

    Raises
    ------
    InvalidArgumentError
        A membership argument was given.

    Examples
    --------
    >>> refuse_membership({"y_true": "y"}, "abroca", "score table")
    >>> refuse_membership({"membership": {"g": {"a": "p_a"}}}, "abroca", "score table")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: abroca does not take membership= (estimated ...
    """
    if any(given.get(k) not in (None, False) for k in MEMBERSHIP_ARGS):
        raise E.InvalidArgumentError(E.MEMBERSHIP_NOT_TAKEN.format(
            analysis=analysis, why=E.MEMBERSHIP_WHY_ROWS.format(table=table),
            analyses=E.MEMBERSHIP_ANALYSES))

#: A weighted count table's rows of positive weight (Int64): the rows inference counts, as a
#: row of weight 0 adds nothing to any weighted figure (:func:`support_size`).
POSITIVE_WEIGHT_ROWS = "n_positive_weight"
#: The columns of a count table and of a score table besides the keys.
COUNT_TABLE_COLUMNS = ("n", "tp", "fp", "fn", "tn", "weight_sum", POSITIVE_WEIGHT_ROWS)
SCORE_TABLE_COLUMNS = ("score", "positives", "negatives", "n_rows", POSITIVE_WEIGHT_ROWS)


def support_size(names: Sequence[str]) -> str:
    """The column of a count table that counts its rows for intervals and tests.

    Support flags and ``reference="largest"`` read
    :func:`polars_fair.core.reference.support_rows`: this column, bounded on estimated
    membership by the expected group size ``weight_sum``.

    ``n_effective`` (Kish's effective size) on a table of estimated membership; else
    ``n_positive_weight`` (:data:`POSITIVE_WEIGHT_ROWS`, the rows of positive weight) on a
    weighted table that carries it, since a row of weight 0 is no observation; else ``n``
    (rows: every unweighted table, and a weighted table made elsewhere without the column).

    Parameters
    ----------
    names : sequence of str
        A count table's columns.

    Returns
    -------
    str
        ``"n_effective"``, ``"n_positive_weight"`` or ``"n"``.

    Examples
    --------
    >>> support_size(["g", "n", "tp", "fp", "fn", "tn", "weight_sum", "n_effective"])
    'n_effective'
    >>> support_size(["g", "n", "tp", "fp", "fn", "tn", "weight_sum", "n_positive_weight"])
    'n_positive_weight'
    >>> support_size(["g", "n", "tp", "fp", "fn", "tn", "weight_sum"])
    'n'
    """
    if "n_effective" in names:
        return "n_effective"
    return POSITIVE_WEIGHT_ROWS if POSITIVE_WEIGHT_ROWS in names else "n"

#: The most groups a count table may hold where polars_fair makes groups itself (the empty
#: intersections of Enum attributes, the attribute sets of ``combinations="all"``); the count
#: argument ``max_groups`` raises it.
DEFAULT_MAX_GROUPS = 10_000
#: name -> default of every count argument, in signature order. ``y_pred=None`` reads the
#: column ``"y_pred"`` unless ``y_score`` is given.
COUNT_ARGS: dict[str, Any] = {
    "y_true": "y_true", "y_pred": None, "pos_label": 1, "sample_weight": None,
    "null_groups": "keep", "y_score": None, "threshold": None, "combinations": None,
    "max_order": None, "membership": None, "membership_estimator": "weighted",
    "normalize": False, "max_groups": DEFAULT_MAX_GROUPS,
}
#: name -> default of every score argument, in signature order.
SCORE_ARGS: dict[str, Any] = {
    "y_true": "y_true", "y_score": "y_score", "pos_label": 1, "sample_weight": None,
    "null_groups": "keep",
}

#: Docstring entries of the count arguments (numpydoc, indented for a method's Parameters).
COUNT_ARGS_DOC = """y_true : str or pl.Expr, default "y_true"
    The true label column.
y_pred : str or pl.Expr, optional
    The predicted label column; by default the column ``"y_pred"``, unless ``y_score`` is
    given (passing both is an error).
pos_label : Any, default 1
    The value meaning the positive (favourable) outcome, of the columns' dtype (``1``,
    ``"yes"``, ``True``, ...). Each column must hold it and at most one other value.
sample_weight : str or pl.Expr, optional
    Row weights. The four cells become Float64 weighted sums, ``n`` stays the row count and
    ``weight_sum`` is added; rates use ``weight_sum`` as the population size.
null_groups : {"keep", "raise", "drop"}, default "keep"
    Rows whose attribute is missing (null, or NaN in a float attribute): kept as one group of
    their own, an error, or dropped with a warning that gives their number.
y_score : str or pl.Expr, optional
    Instead of ``y_pred``: predictions are ``y_score >= threshold`` (positive = ``True``),
    compared in the score's own dtype.
threshold : float, optional
    The threshold applied to ``y_score``.
combinations : "all", optional
    Audit every non-empty subset of the ``by`` attributes (race; sex; race × sex; ...), up to
    ``max_order`` attributes, in one scan at the finest level; coarser sets are summed from its
    count table. ``by`` may also be a list of attribute sets (``[["race"], ["race", "sex"]]``).
    Either way the result starts with ``attributes`` (List(String)) and every key column, null
    outside the row's set; each analysis runs within its set.
max_order : int, optional
    The largest intersection with ``combinations="all"``.
membership : mapping of str to mapping of group value to str or pl.Expr, optional
    Estimated membership instead of a crisp attribute: one attribute name -> (group value ->
    the column or expression holding each row's probability of that group), for example
    ``{"race": {"White": "p_white", "Black": "p_black"}}``. The attribute becomes the first
    key (intersected with ``by``); one scan over the wide rows
    (:mod:`polars_fair.counting.membership`). Probabilities must be finite, in [0, 1] and sum
    to 1 on each row within 1e-6; a row with a null probability follows ``null_groups``
    (``"keep"``: counted in the attribute's missing group).
membership_estimator : {"weighted", "argmax", "regression"}, default "weighted"
    ``"weighted"``: each row counts its probability in every group (Float64 cells,
    ``weight_sum``, and the columns ``n_effective``, Kish's (Σ w·p)² / Σ (w·p)², used by
    support flags and intervals, and ``attenuation``, Var(p) / (μ(1 − μ)), the factor by which
    the estimator shrinks a difference); ``n`` counts the rows with a probability above 0.
    ``"argmax"``: each row in its most likely group (ties to the group listed first), a crisp
    count table. ``"regression"``: see ``proxy_report``.
normalize : bool, default False
    With ``membership``: divide each row's probabilities by their sum (values need only be
    finite and non-negative; a row summing to 0 is an error).
max_groups : int, default 10000
    The most groups the count table may hold where groups are made rather than observed: the
    empty intersections of ``pl.Enum`` attributes and the stacked attribute sets of
    ``combinations``. A larger table raises ``SizeLimitError`` (stating its size) before it is
    built."""

#: Docstring entries of the score arguments.
SCORE_ARGS_DOC = """y_true : str or pl.Expr, default "y_true"
    The true label column.
y_score : str or pl.Expr, default "y_score"
    A numeric score, higher = more likely ``pos_label``.
pos_label : Any, default 1
    The value of ``y_true`` meaning the positive outcome.
sample_weight : str or pl.Expr, optional
    Row weights: ``positives``/``negatives`` become Float64 weighted sums.
null_groups : {"keep", "raise", "drop"}, default "keep"
    Rows whose attribute is missing (null, or NaN in a float attribute): kept as one group, an
    error, or dropped with a warning."""

#: The input errors of building a count or score table (numpydoc Raises entries).
INPUT_ERRORS_DOC = """ColumnNotFoundError
    A named column is missing (the message lists the columns that exist). Raised at once.
InvalidLabelError
    A label/prediction column holds values other than ``pos_label`` and one other value, a
    prediction column holds scores, or ``pos_label`` occurs in neither column.
NullValuesError
    Nulls or NaN in the label or prediction column.
EmptyFrameError
    No rows to audit.
SizeLimitError
    The count table would hold more than ``max_groups`` made groups (Enum intersections,
    attribute sets).
NullGroupError, TooManyLevelsError, InvalidWeightError, InvalidScoreError
    See :mod:`polars_fair.errors`. Data errors of a LazyFrame surface when the result is
    collected, never as numbers."""


def names(value: Any) -> list[str] | None:
    """A name or a sequence of names as a list of names; None for anything else.

    Parameters
    ----------
    value : Any
        An argument that names columns or metrics (``"tpr"`` or ``["tpr", "fpr"]``).

    Returns
    -------
    list of str or None
        The names in their order (possibly empty); None when ``value`` is neither a string nor
        a sequence of strings, for the caller to word its error.

    Examples
    --------
    >>> names("g"), names(("g", "h")), names([1])
    (['g'], ['g', 'h'], None)
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def name_of(x: IntoExpr, role: str = "by", schema: pl.Schema | None = None) -> str:
    """The output name of a column name or expression.

    Parameters
    ----------
    x : str or pl.Expr
        A column name or an expression.
    role : str, default "by"
        The argument ``x`` was given as (named in the error).
    schema : pl.Schema, optional
        The input's schema: the error then names the columns a selector takes.

    Returns
    -------
    str
        ``x`` itself for a name, else the expression's output name (``meta.output_name``).

    Raises
    ------
    InvalidArgumentError
        An expression without a single output name (``pl.all()``, ``pl.col("a", "b")``;
        :func:`not_one_column`), or something that is neither a name nor an expression.

    Examples
    --------
    >>> name_of("race"), name_of((pl.col("age") // 10).alias("decade"))
    ('race', 'decade')
    """
    if isinstance(x, str):
        return x
    if not isinstance(x, pl.Expr):
        raise E.InvalidArgumentError(
            E.NOT_A_COLUMN.format(role=role, value=x, type=type(x).__name__))
    try:
        return x.meta.output_name()
    except pl.exceptions.PolarsError:
        raise E.InvalidArgumentError(not_one_column(x, role, schema)) from None


def _selected(x: pl.Expr, schema: pl.Schema | None) -> list[str]:
    """The columns a multi-column expression selects: over ``schema``, or from its text."""
    if schema is not None:
        try:
            return pl.LazyFrame(schema=schema).select(x).collect_schema().names()
        except (pl.exceptions.PolarsError, TypeError, ValueError):
            pass
    found = re.fullmatch(r"cs\.by_name\((.*), require_all=true\)", str(x))  # pl.col("a", "b")
    if found:
        try:
            names = ast.literal_eval(f"[{found.group(1)}]")
        except (ValueError, SyntaxError):
            return []
        return [n for n in names if isinstance(n, str)]
    return []


def not_one_column(x: pl.Expr, role: str, schema: pl.Schema | None = None) -> str:
    """:data:`~polars_fair.errors.NOT_ONE_COLUMN` for ``role``, with the user's own columns.

    ``by`` (or ``categories``) is advised a list of one name per attribute (the selector's
    columns, when they can be read, at most :data:`SHOWN_COLUMNS` of them); a role of one
    column (``y_pred``, ``y_true``, ``sample_weight``, ...) is advised one of them.

    Parameters
    ----------
    x : pl.Expr
        An expression of several output columns.
    role : str
        The argument it was given as.
    schema : pl.Schema, optional
        The input's schema (to read which columns a selector such as ``pl.all()`` takes).

    Returns
    -------
    str

    Examples
    --------
    >>> print(not_one_column(pl.col("race", "sex"), "by"))  # doctest: +ELLIPSIS
    by=cs.by_name(...) ...; pass a list of one name or expression per attribute, by=['race', 'sex']
    >>> schema = pl.Schema({"p": pl.Int64, "y": pl.Int64})
    >>> print(not_one_column(pl.all(), "y_pred", schema))  # doctest: +ELLIPSIS
    y_pred=cs.all() ...; y_pred takes one column: pass one name or expression, one of ['p', 'y']
    """
    names = _selected(x, schema)
    shown = [repr(n) for n in names[:SHOWN_COLUMNS]] + (["..."] if len(names) > SHOWN_COLUMNS
                                                         else [])
    listed = "[" + ", ".join(shown) + "]"
    if role in ("by", "categories"):  # a list of attributes
        advice = E.ONE_PER_ATTRIBUTE.format(role=role, example=listed if names
                                            else "[<column>, <column>, ...]")
    else:
        advice = E.ONE_COLUMN_ONLY.format(role=role,
                                          choices=f", one of {listed}" if names else "")
    return E.NOT_ONE_COLUMN.format(role=role, expr=x, advice=advice)


#: At most this many of a selector's columns are shown in advice.
SHOWN_COLUMNS = 4


def _pinned(x: Any, role: str, schema: pl.Schema) -> Any:
    """A selector of one column as that column; of none, an error; anything else as it is."""
    import polars.selectors as cs

    if not isinstance(x, pl.Expr) or not cs.is_selector(x):
        return x
    try:
        names = pl.LazyFrame(schema=schema).select(x).collect_schema().names()
    except (pl.exceptions.PolarsError, TypeError, ValueError):
        return x  # a missing column of require_all=True: the usual errors name it
    if not names:
        raise E.InvalidArgumentError(E.SELECTS_NO_COLUMN.format(
            role=role, expr=x, columns=E.show_values(schema.names(), limit=SHOWN_COLUMNS)))
    return pl.col(names[0]) if len(names) == 1 else x


def pin_selectors(schema: pl.Schema, attrs: Attributes,
                  args: dict[str, Any]) -> tuple[Attributes, dict[str, Any]]:
    """Selectors of the attributes and the column arguments, read against the input's schema.

    A selector that matches exactly one column (``cs.starts_with("pre")`` over a frame with
    one such column) is that column, as ``pl.col(name)``; one that matches none is an error
    naming the argument (without it, the selector's empty output reached a group-by as a
    raw ``KeyError``); one of several columns is left to :func:`name_of`'s error.

    Parameters
    ----------
    schema : pl.Schema
        The input's schema.
    attrs : Attributes
        The parsed ``by``.
    args : dict of str to Any
        The call's arguments (``y_pred``, ``y_true``, ``y_score``, ``sample_weight``, ...);
        only selectors among them are read.

    Returns
    -------
    (Attributes, dict of str to Any)

    Raises
    ------
    InvalidArgumentError
        A selector that matches no column (:data:`~polars_fair.errors.SELECTS_NO_COLUMN`).

    Examples
    --------
    >>> import polars.selectors as cs
    >>> schema = pl.Schema({"g": pl.String, "pred": pl.Float64})
    >>> attrs, args = pin_selectors(schema, parse_by("g"), {"y_pred": cs.starts_with("pr")})
    >>> args["y_pred"].meta.output_name()
    'pred'
    """
    items = tuple(_pinned(b, "by", schema) for b in attrs.items)
    pinned = {k: _pinned(v, k, schema) for k, v in args.items()}
    if any(a is not b for a, b in zip(items, attrs.items, strict=True)):
        sets = attrs.sets
        if sets is not None:  # named when parsed: the sets follow the columns' names
            renamed = dict(zip(attrs.names, (name_of(b) for b in items), strict=True))
            sets = tuple(tuple(renamed.get(n, n) for n in s) for s in sets)
        attrs = Attributes(items=items, sets=sets)
    return attrs, pinned


def to_expr(column: IntoExpr) -> pl.Expr:
    """Turn a column name or an expression into an expression.

    Parameters
    ----------
    column : str or pl.Expr
        A column name (``pl.col(column)``) or an expression (returned as it is).

    Returns
    -------
    pl.Expr

    Examples
    --------
    >>> pl.DataFrame({"a": [1, 2]}).select(to_expr("a") * 2)["a"].to_list()
    [2, 4]
    """
    return pl.col(column) if isinstance(column, str) else column


def normalize_by(by: Any) -> list[IntoExpr]:
    """``by`` as a list of column names or expressions (``None`` or ``[]``: the population).

    Parameters
    ----------
    by : str, pl.Expr, sequence of them, or None
        The attributes of a call.

    Returns
    -------
    list of (str or pl.Expr)
        One entry per attribute, in the order given; empty for the whole population.

    Raises
    ------
    InvalidArgumentError
        ``by`` is neither a column name, an expression, a sequence of them nor ``None``.

    Examples
    --------
    >>> normalize_by(None), normalize_by("race"), normalize_by(("race", "sex"))
    ([], ['race'], ['race', 'sex'])
    """
    if by is None:
        return []
    if isinstance(by, (str, pl.Expr)):
        return [by]
    if isinstance(by, Sequence):
        return list(by)
    raise E.InvalidArgumentError(
        E.NOT_A_COLUMN.format(role="by", value=by, type=type(by).__name__)
    )


@dataclass(frozen=True)
class Attributes:
    """``by`` parsed once: the attributes of a call and, for several attribute sets, the sets.

    Made by :func:`parse_by` where a call comes in (:func:`polars_fair.counts`, a roll-up of a
    count table); the layers below (the count tables, an engine's ``bind``, :func:`resolve`)
    receive it and read its fields, never ``by`` again.

    Parameters
    ----------
    items : tuple
        Every attribute once, in the order given: a column name, a ``pl.Expr``, or an engine's
        own column (a Spark ``Column``) until the engine binds it to a name.
    sets : tuple of tuple of str, optional
        The attribute sets by name, in order, for a call that audits several (``combinations=
        "all"`` or a list of lists); ``None`` for one set (``items``).

    Examples
    --------
    >>> a = parse_by([["race"], ["race", "sex"]])
    >>> a.items, a.sets, a.names
    (('race', 'sex'), (('race',), ('race', 'sex')), ['race', 'sex'])
    """

    items: tuple[Any, ...] = ()
    sets: tuple[tuple[str, ...], ...] | None = None

    @property
    def names(self) -> list[str]:
        """The output names of :attr:`items` (:func:`name_of`)."""
        return [name_of(b) for b in self.items]

    def bound(self, items: Sequence[Any]) -> Attributes:
        """The same attributes with ``items`` replaced (an engine's columns bound to names).

        Parameters
        ----------
        items : sequence
            One entry per item, in order.

        Returns
        -------
        polars_fair.core.spec.Attributes
            The same sets, the new items.

        Examples
        --------
        >>> parse_by(pl.col("r").alias("race")).bound(["race"]).items
        ('race',)
        """
        return Attributes(tuple(items), self.sets)


def _items(by: Any) -> list[Any]:
    """``by`` as a list of attributes; an engine's own column (Spark) is one attribute."""
    if by is not None and not isinstance(by, (str, pl.Expr, Sequence)) \
            and type(by).__module__.startswith("pyspark."):
        return [by]  # bound to a name by the Spark engine
    return normalize_by(by)


def _fitting_order(attributes: int, limit: int) -> tuple[int, int]:
    """The largest max_order whose sets' groups fit ``limit`` (2 values an attribute), and its sets.

    Examples
    --------
    >>> _fitting_order(30, 10_000)  # 30 + 435 sets: 60 + 1,740 groups; 4,060 more of 3 do not
    (2, 465)
    """
    fewer = order = groups = 0
    while order < attributes:
        more = math.comb(attributes, order + 1)
        if groups + more * 2 ** (order + 1) > limit:
            break
        order += 1
        fewer += more
        groups += more * 2**order
    return order, fewer


def _fewer_sets(attributes: int, sets: int, limit: int) -> str:
    """TOO_MANY_SETS' advice: the largest max_order that can fit ``limit``, or a larger one.

    ``max_groups`` bounds the sets and then the groups they hold; a set of ``k`` attributes of
    2 values each holds ``2**k`` groups (the fewest a set of them can hold, an attribute of
    one value aside), so the order advised is the largest whose groups fit by that count.
    """
    order, fewer = _fitting_order(attributes, limit)
    if order == 0:
        return E.TOO_MANY_SETS_GROUPS.format(sets=sets)
    return E.TOO_MANY_SETS_ORDER.format(order=order, fewer=fewer, sets=sets)


def parse_by(
    by: Any, combinations: Literal["all"] | None = None, max_order: int | None = None, *,
    max_groups: int = DEFAULT_MAX_GROUPS,
) -> Attributes:
    """Parse ``by`` (with ``combinations`` and ``max_order``) once into :class:`Attributes`.

    ``by=[["race"], ["sex"], ["race", "sex"]]`` names several attribute sets;
    ``combinations="all"`` takes every non-empty subset of a flat ``by`` of size up to
    ``max_order`` (all sizes by default), singles first, in the order the attributes were given.
    Already parsed attributes are returned as they are.

    Parameters
    ----------
    by : str, pl.Expr, list of them, list of lists of them, None or Attributes
        The attributes, or (a list of lists) the attribute sets.
    combinations : "all", optional
        Every non-empty subset of the flat list ``by``.
    max_order : int, optional
        With ``combinations="all"``: the largest subset size, at least 1.
    max_groups : int, default 10000
        Each set holds at least one group, so ``combinations="all"`` may make at most this
        many sets; their number is computed before they are listed.

    Returns
    -------
    polars_fair.core.spec.Attributes
        The attributes (for several sets: their union, in order of first appearance) and the
        sets (``None`` for one).

    Raises
    ------
    InvalidArgumentError
        ``by`` is not a name, an expression, a sequence of them or ``None``; ``combinations``
        other than ``"all"``; ``max_order`` not an integer >= 1 or without ``combinations``;
        ``combinations="all"`` with a nested ``by``; a set named twice.
    SizeLimitError
        ``combinations="all"`` would make more than ``max_groups`` sets.

    Examples
    --------
    >>> parse_by(["a", "b"], "all").sets
    (('a',), ('b',), ('a', 'b'))
    >>> parse_by(["a", "b", "c"], "all", max_order=1).sets
    (('a',), ('b',), ('c',))
    >>> parse_by(("a", "b"))
    Attributes(items=('a', 'b'), sets=None)
    """
    if isinstance(by, Attributes) and combinations is None and max_order is None:
        return by
    if combinations is not None and combinations != "all":
        raise E.InvalidArgumentError(E.BAD_COMBINATIONS.format(value=combinations),
                                     cli_message=E.CLI_BAD_COMBINATIONS.format(value=combinations))
    entries = list(by) if isinstance(by, Sequence) and not isinstance(by, str) else None
    nested = entries is not None and any(isinstance(b, (list, tuple)) for b in entries)
    if combinations == "all":
        if nested:
            raise E.InvalidArgumentError(E.COMBINATIONS_FLAT)
        base = normalize_by(by)
        top = len(base) if max_order is None else check_int(max_order, "max_order")
        n_sets = sum(math.comb(len(base), r) for r in range(1, min(top, len(base)) + 1))
        order, fewer = _fitting_order(len(base), max_groups)
        check_ceiling(n_sets, "max_groups", f"combinations='all' over {len(base)} attributes",
                      "attribute sets",
                      E.CEILING_ORDER.format(order=order, fewer=fewer, limit=max_groups))
        if n_sets > max_groups:
            raise E.SizeLimitError(E.TOO_MANY_SETS.format(
                attributes=len(base), sets=n_sets, limit=max_groups,
                advice=_fewer_sets(len(base), n_sets, max_groups)))
        sets = [list(c) for r in range(1, min(top, len(base)) + 1)
                for c in itertools.combinations(base, r)]
    elif max_order is not None:
        raise E.InvalidArgumentError(E.MAX_ORDER_ALONE)
    elif not nested:
        return Attributes(tuple(_items(by)))
    else:
        assert entries is not None
        sets = [normalize_by(b) for b in entries]
        # a name or an expression with one output name each, else a typed error
        named = [tuple(name_of(b) for b in s) for s in sets]
        repeated = sorted({repr(list(n)) for n in named if named.count(n) > 1})
        if repeated:
            raise E.InvalidArgumentError(E.REPEATED_SETS.format(sets=", ".join(repeated)))
    union: dict[str, Any] = {}
    for s in sets:
        for b in s:
            union.setdefault(name_of(b), b)
    return Attributes(tuple(union.values()), tuple(tuple(name_of(b) for b in s) for s in sets))


@dataclass(frozen=True)
class Audit:
    """A resolved call: key names and expressions, label columns, positive values, options.

    ``y_pred`` is the thresholded score (a Boolean expression, positive ``True``) when the call
    gives ``y_score`` and ``threshold``. ``y_true`` is ``None`` for an audit without labels (NYC
    LL 144 reads selections or scores only): the label table then has no label column.
    Engines other than Polars read the ``*_name`` fields. Made by :func:`resolve`.

    Parameters
    ----------
    keys : list of str
        The output names of the ``by`` attributes, in order.
    key_exprs : list of pl.Expr
        The attributes as expressions (aliased to ``keys`` when grouping).
    pos_label : Any
        The ``pos_label`` of the call, as given.
    y_true : pl.Expr, optional
        The label column; ``None`` for an audit without labels.
    y_true_name : str, optional
        Its name (error messages; the column engines other than Polars read).
    pos_true : Any, optional
        ``pos_label`` adapted to the label's dtype (``True`` for a Boolean column).
    y_pred : pl.Expr, optional
        The prediction, or ``score >= threshold`` (Boolean) for a thresholded score.
    y_pred_name : str, optional
        Its name, or ``"<score> >= <threshold>"``.
    y_pred_role : str, default "y_pred"
        The argument the prediction came from (``"y_pred"`` or ``"y_score"``), for messages.
    pos_pred : Any, optional
        The positive prediction value in the prediction's dtype (``True`` when thresholded).
    score : pl.Expr, optional
        The score column (score tables, thresholded predictions).
    score_name : str, optional
        Its name.
    score_dtype : pl.DataType, optional
        The score's own dtype; thresholds are compared in it.
    threshold : float, optional
        The threshold, rounded to the score's dtype (:func:`threshold_in_dtype`).
    weight : pl.Expr, optional
        The sample weights as given (the label table sums them as Float64).
    weight_name : str, optional
        The weight column's name.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        The policy for rows whose attribute is null.
    float_keys : list of str
        The keys of a float or Decimal dtype (their number of levels is checked,
        :func:`polars_fair.core.numbers.fractional`).
    not_attributes : tuple of str, default ()
        Keys that are no attribute (a monitor's ``period``): a key with one row per level is
        no identifier there, so :func:`polars_fair.counting.boundary.check_row_levels` skips it.
    check_intersection : bool, default True
        Whether the intersection of the attributes is checked as each attribute is
        (:func:`polars_fair.counting.boundary.check_row_levels`); ``divergence`` turns it off
        for its level-wise counts, whose groups below the minimum support are never shown.
    binned : dict of str to pl.DataType
        The keys that ``divergence``'s ``bins=`` cut into bins (text labels), with their dtypes
        before: a level error describes them so and advises fewer bins.
    true_dtype, pred_dtype : pl.DataType, optional
        The dtypes of the label and of the prediction.
    max_groups : int, default 10000
        The most groups of the count table where groups are made (Enum completion).
    way : {"rows", "relation"}, default "rows"
        How the rows arrive: Polars rows, or a DuckDB/Spark relation (whose errors advise
        what can be done there, :func:`polars_fair.errors.levels_error`).
    bound : tuple of (pl.Expr, str), default ()
        The expression arguments that :func:`polars_fair.counting.boundary.bind_frame`
        evaluates over the frame: (the expression, its argument), so a conversion that
        fails on the rows names the argument and no value
        (:func:`polars_fair.counting.boundary.values_hidden`).

    Examples
    --------
    >>> schema = pl.Schema({"g": pl.String, "y_true": pl.Boolean, "p": pl.Float32})
    >>> a = resolve(schema, "g", y_pred=None, y_score="p", threshold=0.5)
    >>> a.keys, a.pos_true, a.y_pred_name, a.pos_pred, a.score_dtype
    (['g'], True, 'p >= 0.5', True, Float32)
    """

    keys: list[str]
    key_exprs: list[pl.Expr]
    pos_label: Any
    y_true: pl.Expr | None = None
    y_true_name: str | None = None
    pos_true: Any = None
    y_pred: pl.Expr | None = None
    y_pred_name: str | None = None
    y_pred_role: str = "y_pred"
    pos_pred: Any = None
    score: pl.Expr | None = None
    score_name: str | None = None
    score_dtype: pl.DataType | None = None
    threshold: float | None = None
    weight: pl.Expr | None = None
    weight_name: str | None = None
    null_groups: NullGroups = "keep"
    float_keys: list[str] = field(default_factory=list)
    not_attributes: tuple[str, ...] = ()
    check_intersection: bool = True
    binned: dict[str, pl.DataType] = field(default_factory=dict)
    true_dtype: pl.DataType | None = None
    pred_dtype: pl.DataType | None = None
    max_groups: int = DEFAULT_MAX_GROUPS
    way: str = "rows"
    bound: tuple[tuple[pl.Expr, str], ...] = ()


def _check_columns(schema: pl.Schema, x: Any, role: str) -> None:
    if not isinstance(x, (str, pl.Expr)):
        raise E.InvalidArgumentError(
            E.NOT_A_COLUMN.format(role=role, value=x, type=type(x).__name__)
        )
    roots = [x] if isinstance(x, str) else x.meta.root_names()
    for col in roots:
        if col not in schema:
            raise E.ColumnNotFoundError(
                E.missing_column(col, role, schema.names())
            )
    if isinstance(x, pl.Expr):
        name_of(x, role, schema)  # one output column, before the probe aliases it
        check_frame_wide(x, role, schema)


#: The heights of the probe frames of :func:`check_frame_wide` (two primes: ``head(3)`` or
#: ``gather_every(2)`` cannot give one value a row on both).
_PROBES = (1021, 1031)


def _null_frame(schema: pl.Schema, n: int) -> pl.DataFrame:
    """``pl.DataFrame(schema=schema).clear(n)``: ``n`` null rows, in one query.

    ``clear`` builds each column in a query of its own, which on a file of fifty columns costs
    more than the probe itself; a dtype ``repeat`` cannot make goes the way of ``clear``.
    """
    try:
        return pl.select(pl.repeat(None, n, dtype=dtype).alias(name)
                         for name, dtype in schema.items())
    except (pl.exceptions.PolarsError, TypeError, ValueError):  # pragma: no cover
        return pl.DataFrame(schema=schema).clear(n)


def _probe_heights(expr: pl.Expr, schema: pl.Schema) -> list[int] | None:
    """The heights of ``expr`` selected from frames of ``schema`` with :data:`_PROBES` null rows."""
    try:
        return [_null_frame(schema, n).select(expr).height for n in _PROBES]
    except (pl.exceptions.PolarsError, TypeError, ValueError):
        return None  # Polars cannot evaluate it on nulls: with_columns decides on the data


def length_follows_frame(expr: pl.Expr, schema: pl.Schema) -> bool:
    """Whether ``expr`` gives one value a row of every frame of ``schema`` (or one value).

    True for a scalar (broadcast to every row, as ``with_columns`` does) and for an expression
    that gives one value a row on both probe frames of :func:`check_frame_wide` (1,021 and
    1,031 null rows). False for one whose length does not follow the frame (``pl.lit(
    pl.Series([...]))``, ``pl.int_range(3)``, ``pl.col("x") + pl.lit(pl.Series([...]))``) or
    that Polars cannot evaluate without the data (an opaque UDF): its length is compared with
    the frame's when the rows are read (:func:`polars_fair.counting.boundary.bind_frame`), so
    a wrong length is the typed ``NotRowLevelError`` naming the argument, on eager and lazy
    frames alike.

    Parameters
    ----------
    expr : pl.Expr
        An expression argument.
    schema : pl.Schema
        The frame's schema.

    Returns
    -------
    bool
        Whether ``lf.with_columns(expr)`` cannot fail for the length of ``expr``.

    Examples
    --------
    >>> schema = pl.Schema({"s": pl.Float64})
    >>> length_follows_frame(pl.col("s") >= pl.col("s").quantile(0.8), schema)
    True
    >>> length_follows_frame(pl.int_range(3), schema), length_follows_frame(pl.lit(1), schema)
    (False, True)
    """
    try:
        if expr.meta.is_scalar():
            return True
        expr.meta.is_length_preserving()  # raises for what Polars cannot inspect (a UDF)
    except pl.exceptions.PolarsError:
        return False
    return _probe_heights(expr, schema) == list(_PROBES)


def check_frame_wide(expr: pl.Expr, role: str, schema: pl.Schema | None = None) -> None:
    """Raise unless ``expr`` can be a column of the frame, as in ``lf.with_columns(expr)``.

    An expression argument means what it means in Polars: it is evaluated over the whole frame
    before the grouping (:func:`polars_fair.counting.boundary.bind_frame`), so a window
    (``pl.col("s") >= pl.col("s").quantile(0.8)``: the frame-wide top 20%), a cumulative sum or
    an aggregate broadcast to every row (``pl.len() > 5``) keep their Polars meaning. Only an
    expression that changes the number of rows (a filter, ``unique``) cannot be a column.

    Polars' static answer (``expr.meta.is_length_preserving()``) is False for generators that
    do give one value a row, such as ``pl.int_range(pl.len())``; such an expression is then
    tried on two small frames of ``schema`` (1,021 and 1,031 rows of nulls): one that gives
    one value a row on both is accepted, and so is one of no column whose length does not
    depend on the frame (``pl.lit(pl.Series([...]))``: ``with_columns`` checks its length
    against the frame's). Only one whose length depends on the rows in another way is refused.

    Parameters
    ----------
    expr : pl.Expr
        The argument's expression.
    role : str
        The argument's name (``by``, ``y_true``, ``y_pred``, ``y_score``, ``sample_weight``),
        named in the error.
    schema : pl.Schema, optional
        The frame's schema, for the probe; without it only Polars' static answer decides.

    Raises
    ------
    NotRowLevelError
        The expression changes the number of rows.

    Examples
    --------
    >>> check_frame_wide(pl.col("s") >= pl.col("s").quantile(0.8), "y_pred")
    >>> check_frame_wide(pl.int_range(pl.len()) % 2, "by", pl.Schema({"s": pl.Float64}))
    >>> check_frame_wide(pl.col("y").filter(pl.col("y") > 0), "y_true")
    Traceback (most recent call last):
    ...
    polars_fair.errors.NotRowLevelError: y_true=col("y").filter(...) is not a row-level ...
    """
    meta = expr.meta
    try:
        if meta.is_scalar() or meta.is_length_preserving():
            return  # a scalar is broadcast to every row, as with_columns does
    except pl.exceptions.PolarsError:
        return  # Polars cannot tell without the data (an opaque UDF): with_columns decides
    heights = _probe_heights(expr, schema) if schema is not None else [0, 0]
    if heights is None or heights == list(_PROBES):
        return  # one value a row on the probes (pl.int_range(pl.len())), or no probe possible
    if heights[0] == heights[1] and not meta.root_names():
        return  # a literal Series: with_columns checks its length against the frame's
    raise E.NotRowLevelError(E.NOT_ROW_LEVEL.format(role=role, expr=expr,
                                                    why="changes the number of rows"))


def check_row_level(expr: pl.Expr, role: str) -> None:
    """Raise unless ``expr`` gives one value per row, computed from that row.

    The rule of the SQL options (:func:`polars_fair.core.sql.sql_expr`: ``--by``,
    ``--y-pred``, ``--where``, ...), whose text is read as a row-level expression: an
    aggregation (``MAX(y_pred)``, ``.first()``), a filter, a window or a reordering would
    spread one value over every row or misalign the rows, and the audit would count something
    other than the model's decisions. A literal is row-level (a constant per row). A Polars
    expression argument is checked by :func:`check_frame_wide` instead: it has its Polars
    meaning over the whole frame.

    Parameters
    ----------
    expr : pl.Expr
        The argument's expression.
    role : str
        The argument's name (``by``, ``y_true``, ``y_pred``, ``y_score``, ``sample_weight``,
        ``where``), named in the error.

    Raises
    ------
    NotRowLevelError
        The expression aggregates, changes the row count, or depends on other rows.

    Examples
    --------
    >>> check_row_level(pl.col("score") >= 0.5, "y_pred")
    >>> check_row_level(pl.col("y_pred").max(), "y_pred")
    Traceback (most recent call last):
    ...
    polars_fair.errors.NotRowLevelError: y_pred=col("y_pred").max() is not a row-level ...
    """
    meta = expr.meta
    try:
        if meta.is_literal(allow_aliasing=True) or not meta.root_names():
            return  # a constant (pl.lit(1.0).alias("w"), 'a' || 'b') is one value a row
        if meta.is_scalar():
            why = "aggregates rows"
        elif not meta.is_length_preserving():
            why = "changes the number of rows"
        elif not meta.is_row_separable():
            why = "reads other rows (a window, a rank, a shift or a sort)"
        else:
            return
    except pl.exceptions.PolarsError:
        return  # Polars cannot tell without the data (e.g. bin_intervals): let it through
    raise E.NotRowLevelError(E.NOT_ROW_LEVEL.format(role=role, expr=expr, why=why))


def check_int(value: Any, name: str, low: int = 1, *, limit: str | None = None) -> int:
    """An integer option (a Python or numpy integer, not a bool) of at least ``low``, or raise.

    An option with a declared size limit (``max_groups``, ``max_pairs``, ...: a name in
    :data:`polars_fair.core.limits.LIMITS`) must also be at most that limit.

    Parameters
    ----------
    value : Any
        The option's value.
    name : str
        The option's name, for the message.
    low : int, default 1
        The smallest accepted value.
    limit : str, optional
        The key of its limit in :data:`~polars_fair.core.limits.LIMITS` when it is not
        ``name`` (a page's ``max_groups`` is ``"page_groups"``: the message says what it
        bounds).

    Returns
    -------
    int
        ``value`` as a Python int.

    Raises
    ------
    InvalidArgumentError
        A value that is not an integer (a float, a string, a bool, NaN) or is below ``low``.
    SizeLimitError
        A value above the declared limit of ``name``.

    Examples
    --------
    >>> check_int(np.int64(3), "max_order")
    3
    >>> check_int(2.0, "max_order")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: max_order must be an integer >= 1, got 2.0
    """
    if is_numpy(value, "integer"):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise E.InvalidArgumentError(E.BAD_INT_OPTION.format(name=name, low=low, value=value))
    if (key := limit or name) in LIMITS:
        check_size(value, key, option=name)
    return value


#: Dtypes that cannot define groups: objects and nested values.
_NESTED = (pl.Object, pl.List, pl.Array, pl.Struct)


def check_key_dtype(dtype: pl.DataType, column: str) -> None:
    """Raise unless a column of ``dtype`` can define groups (not an object or nested value).

    Parameters
    ----------
    dtype : pl.DataType
        The attribute's dtype.
    column : str
        Its name, for the message.

    Raises
    ------
    InvalidArgumentError
        An ``Object``, ``List``, ``Array`` or ``Struct`` attribute.

    Examples
    --------
    >>> check_key_dtype(pl.String, "race")
    >>> check_key_dtype(pl.List(pl.Int64), "tags")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: attribute 'tags' (by) has dtype List(Int64), ...
    """
    if isinstance(dtype, _NESTED) or dtype == pl.Object:
        raise E.InvalidArgumentError(
            E.BAD_KEY_DTYPE.format(column=column, dtype=dtype),
            cli_message=E.CLI_BAD_KEY_DTYPE.format(column=column, dtype=dtype))


def _check_label_dtype(dtype: pl.DataType, column: str, role: str) -> None:
    ok = (dtype == pl.Boolean or dtype.is_numeric() or dtype == pl.String or dtype == pl.Null
          or isinstance(dtype, (pl.Categorical, pl.Enum)))
    if not ok:
        raise E.InvalidLabelError(E.BAD_LABEL_DTYPE.format(column=column, role=role, dtype=dtype))


def _is_text(dtype: pl.DataType) -> bool:
    return dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))


def _check_label_kinds(true_dtype: pl.DataType, pred_dtype: pl.DataType, y_true: str,
                       y_pred: str, pos_label: Any) -> None:
    """Refuse a text label with a Boolean or numeric prediction (or the reverse).

    No one ``pos_label`` can be both a string and a number or a Boolean, so the advice is to
    turn the text column (the label or the prediction) into a Boolean (``pl.col(c) == value``)
    and pass ``pos_label=True``; the error carries ``label_kinds`` so that the counting layer,
    which reads the rows, can name one of the column's values
    (:func:`polars_fair.errors.label_kinds_error`).
    """
    if _is_text(true_dtype) == _is_text(pred_dtype) or pl.Null in (true_dtype, pred_dtype):
        return
    text_role = "y_true" if _is_text(true_dtype) else "y_pred"
    exc = E.label_kinds_error(y_true, y_pred, true_dtype, pred_dtype, text_role=text_role,
                              values=[], pos_label=pos_label)
    # the counting layer, which can read the rows, advises one of the column's own values
    exc.label_kinds = {"y_true": y_true, "y_pred": y_pred, "true_dtype": true_dtype,
                       "pred_dtype": pred_dtype, "text_role": text_role, "pos_label": pos_label}
    raise exc


def _pos_for(dtype: pl.DataType, pos_label: Any, column: str, source: Any = None) -> Any:
    """Adapt pos_label to the column's dtype, or raise when they cannot be compared.

    The error carries ``pos_dtype`` (the column's argument ``source``, its dtype and the
    ``pos_label`` given), so that the counting layer, which reads the rows, can advise one of a
    text column's own values (:func:`polars_fair.counting.tables.readable_label_error`).
    """
    if is_numpy(pos_label, "generic"):
        pos_label = pos_label.item()
    like = value_like(pos_label, dtype)
    if like is None:  # no reading in the column's type: its usual positive value
        like = True if dtype == pl.Boolean else 1 if dtype.is_numeric() else None
    bad = E.InvalidLabelError(
        E.POS_LABEL_DTYPE.format(
            pos_label=pos_label, pos_type=type(pos_label).__name__, column=column, dtype=dtype,
            example="" if like is None else f", for example pos_label={like!r}",
        )
    )
    bad.pos_dtype = {"source": source if source is not None else column, "column": column,
                     "dtype": dtype, "pos_label": pos_label}
    if dtype == pl.Boolean:
        if isinstance(pos_label, (bool, int)) and pos_label in (0, 1):
            return bool(pos_label)
        raise bad
    if dtype.is_numeric():
        if isinstance(pos_label, bool):
            return int(pos_label)
        if isinstance(pos_label, Decimal):
            return int(pos_label) if pos_label == pos_label.to_integral_value() \
                else float(pos_label)
        if isinstance(pos_label, (int, float)):
            return pos_label
        raise bad
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        if isinstance(pos_label, str):
            return pos_label
        raise bad
    return pos_label


#: The largest integer magnitude from which every integer is a float: integer scores beyond it
#: are refused (``SCORE_BEYOND_FLOAT``), since the score table and every comparison read Float64.
FLOAT_EXACT_INT = 2**53
#: The smallest magnitude whose square is a normal double (2**-511, about 1.5e-154): the squares
#: of nonzero continuous values below it are subnormal or 0, and a standard deviation of such
#: values is lost (``CONTINUOUS_UNDERFLOW``).
FLOAT_SQUARE_MIN = 2.0**-511


def wide_int(dtype: pl.DataType | None) -> bool:
    """Whether an integer dtype can hold values that a float cannot (64 bits and more).

    Parameters
    ----------
    dtype : pl.DataType, optional
        A score's dtype.

    Returns
    -------
    bool
        True for ``Int64``, ``UInt64``, ``Int128``, ``UInt128``: their scores are checked
        against :data:`FLOAT_EXACT_INT`.

    Examples
    --------
    >>> wide_int(pl.Int64), wide_int(pl.Int32), wide_int(pl.Float64)
    (True, False, False)
    """
    return dtype is not None and dtype.is_integer() and dtype not in (
        pl.Int8, pl.Int16, pl.Int32, pl.UInt8, pl.UInt16, pl.UInt32)


#: The significant digits a float keeps of any decimal number: two different decimals of at most
#: 15 significant digits are two different floats, in the same order (C's ``DBL_DIG``). Decimal
#: scores with more digits are refused (``SCORE_DECIMAL_DIGITS``): two could become one float.
FLOAT_DIGITS = 15


@borrow(wide_int, params=("dtype",))
def wide_decimal(dtype: pl.DataType | None) -> bool:
    """Whether a Decimal dtype can hold values with more significant digits than a float keeps.

    Returns
    -------
    bool
        True for a ``Decimal`` of precision above :data:`FLOAT_DIGITS` (or unknown): its
        scores are checked with :func:`decimal_digits`.

    Examples
    --------
    >>> wide_decimal(pl.Decimal(38, 25)), wide_decimal(pl.Decimal(10, 4)), wide_decimal(pl.Float64)
    (True, False, False)
    """
    if not isinstance(dtype, pl.Decimal):
        return False
    return dtype.precision is None or dtype.precision > FLOAT_DIGITS


def decimal_digits(score: pl.Expr) -> pl.Expr:
    """The significant digits of each value of a Decimal expression (UInt32).

    The digits of its plain text, without sign, point, and zeros at either end.

    Parameters
    ----------
    score : pl.Expr
        A Decimal expression.

    Returns
    -------
    pl.Expr
        The number of significant digits (0 for zero).

    Examples
    --------
    >>> from decimal import Decimal
    >>> s = pl.Series([Decimal("0.1000000000000000000000001"), Decimal("-120.5")],
    ...               dtype=pl.Decimal(38, 25))
    >>> pl.select(decimal_digits(pl.lit(s))).to_series().to_list()
    [25, 4]
    """
    return (score.cast(pl.String).str.replace_all(r"[-+.]", "").str.strip_chars("0")
            .str.len_chars())


def _fraction_threshold(threshold: Fraction) -> float:
    """A Fraction threshold as a float: a float's exact value, or a decimal the Decimal rule reads.

    A Fraction with a finite decimal expansion (``Fraction(2, 5)`` is 0.4) is that decimal,
    decided by :func:`_decimal_threshold`; one without (``Fraction(1, 3)``) has no decimal a
    float could stand for, and is refused with the 15-digit decimal to pass instead.
    """
    value = float(threshold)
    if Fraction(value) == threshold:
        return value
    den, twos_fives = threshold.denominator, 0
    for p in (2, 5):
        while den % p == 0:
            den //= p
            twos_fives += 1
    if den != 1:
        raise E.InvalidArgumentError(E.THRESHOLD_NOT_DECIMAL.format(
            value=threshold, read=value, example=f"{value:.15g}"))
    digits = len(str(abs(threshold.numerator))) + twos_fives + 2
    with localcontext() as ctx:
        ctx.prec = digits  # exact: the numerator's digits and one per factor of the denominator
        return _decimal_threshold(Decimal(threshold.numerator) / Decimal(threshold.denominator))


def _decimal_threshold(threshold: Decimal) -> float:
    """A Decimal threshold as a float, if a float compares with it exactly."""
    if not threshold.is_finite():
        raise E.InvalidArgumentError(E.BAD_THRESHOLD.format(value=threshold))
    value = float(threshold)
    if Decimal(value) == threshold:
        return value  # a float's exact value
    if not math.isfinite(value) or abs(value) < sys.float_info.min:
        # 1E-400 reads as 0.0 and 1E+400 as inf (1E-320 loses digits): the comparison with
        # the scores would not be the one the user wrote
        raise E.InvalidArgumentError(E.THRESHOLD_FLOAT_RANGE.format(value=threshold,
                                                                    read=value))
    if len(threshold.normalize().as_tuple().digits) > FLOAT_DIGITS:
        raise E.InvalidArgumentError(E.THRESHOLD_DECIMAL_DIGITS.format(value=threshold))
    return value


def threshold_in_dtype(threshold: Any, dtype: pl.DataType) -> float:
    """The threshold as the score's own dtype compares it.

    Rounded to Float32 for a Float32 score, a Float64 otherwise. ``score >= threshold`` then
    gives the same predictions on every engine and in every method (Polars, numpy and Spark
    compare a Float32 column in Float32).

    Parameters
    ----------
    threshold : float
        A finite real number (an int, float, ``Decimal``, ``Fraction`` or numpy scalar of any
        width; not a bool): a float's exact value, or a decimal of at most 15 significant
        digits (a ``Fraction`` with a finite decimal expansion is that decimal).
    dtype : pl.DataType
        The score's dtype.

    Returns
    -------
    float
        The threshold as a Python float, exactly representable in ``dtype`` when that is
        Float32.

    Raises
    ------
    InvalidArgumentError
        A threshold that is not a finite real number, an integer beyond 2**53 that a float
        cannot hold exactly (scores are compared as Float64), a ``decimal.Decimal`` (or
        ``Fraction``) of more than 15 significant digits that is not a float's exact value, a
        ``Fraction`` with no finite decimal expansion (``Fraction(1, 3)``) that is not one
        either.

    Examples
    --------
    >>> threshold_in_dtype(0.7, pl.Float32) == float(np.float32(0.7))
    True
    """
    number = real(threshold)  # numpy scalars of any width, Fraction, Decimal (core.numbers)
    if number is None:
        raise E.InvalidArgumentError(E.BAD_THRESHOLD.format(value=threshold))
    if isinstance(number, Decimal):
        number = _decimal_threshold(number)
    elif isinstance(number, Fraction):
        number = _fraction_threshold(number)
    threshold = number
    try:
        value = float(threshold)
    except OverflowError:  # an int beyond any float
        raise E.InvalidArgumentError(E.BAD_THRESHOLD.format(value=threshold)) from None
    if not math.isfinite(value):
        raise E.InvalidArgumentError(E.BAD_THRESHOLD.format(value=threshold))
    if isinstance(threshold, int) and int(value) != threshold:
        raise E.InvalidArgumentError(E.THRESHOLD_BEYOND_FLOAT.format(value=threshold))
    if dtype == pl.Float32:
        return float(np.float32(value))
    return value


def _check_roles(schema: pl.Schema, by_list: list[Any], y_true: IntoExpr | None,
                 y_pred: IntoExpr | None, pos_label: Any, sample_weight: IntoExpr | None,
                 y_score: IntoExpr | None, threshold: float | None, scores: bool,
                 ) -> tuple[IntoExpr | None, Any]:
    """:func:`resolve`'s columns checked against the schema: the prediction and ``pos_label``."""
    for b in by_list:
        _check_columns(schema, b, "by")
    if y_true is not None:
        _check_columns(schema, y_true, "y_true")
    if scores:
        _check_columns(schema, y_score, "y_score")
    elif y_score is not None:
        if y_pred is not None:  # given explicitly: it would be silently ignored
            raise E.InvalidArgumentError(E.PRED_AND_SCORE)
        if threshold is None:
            raise E.InvalidArgumentError(E.SCORE_NEEDS_THRESHOLD)
        _check_columns(schema, y_score, "y_score")
    else:
        if threshold is not None:
            raise E.InvalidArgumentError(E.THRESHOLD_NEEDS_SCORE)
        if y_pred is None:
            y_pred = "y_pred"
        _check_columns(schema, y_pred, "y_pred")
    if is_numpy(pos_label, "generic"):
        pos_label = pos_label.item()
    if pos_label is None or (isinstance(pos_label, float) and math.isnan(pos_label)):
        raise E.InvalidLabelError(E.BAD_POS_LABEL.format(value=pos_label))
    if sample_weight is not None:
        _check_columns(schema, sample_weight, "sample_weight")
    return y_pred, pos_label


def _is_column_expr(expr: pl.Expr) -> bool:
    """Whether ``expr`` reads one column as it is (``pl.col("")``, aliased or not)."""
    try:
        return expr.meta.undo_aliases().meta.is_column()
    except pl.exceptions.PolarsError:  # pragma: no cover - an expression Polars cannot inspect
        return False


def _check_keys(keys: list[str], scores: bool, items: Sequence[Any] = ()) -> list[str]:
    """:func:`resolve`'s key names, refused when repeated, empty or reserved.

    An empty name's advice fits the attribute's form (``items``: the ``by`` items the names
    come from): a column named ``""`` is renamed in the frame, an expression whose output name
    is ``""`` (an unnamed ``pl.lit(pl.Series([...]))``) is named with ``.alias``.
    """
    if len(set(keys)) != len(keys):
        raise E.InvalidArgumentError(f"by has repeated attribute names: {keys}")
    if "" in keys:  # Polars renames such a column in a new frame: it could not be a key
        item = items[keys.index("")] if len(items) == len(keys) else ""
        if isinstance(item, pl.Expr) and not (_is_column_expr(item)
                                              and item.meta.root_names() == [""]):
            raise E.InvalidArgumentError(E.EMPTY_NAME_EXPR.format(role="by", expr=item))
        raise E.InvalidArgumentError(E.EMPTY_NAME.format(role="by"),
                                     cli_message=E.CLI_EMPTY_NAME.format(role="--by"))
    table = SCORE_TABLE_COLUMNS if scores else COUNT_TABLE_COLUMNS
    prefixed = [k for k in keys if k.startswith("__pf_")]
    clash = prefixed or [k for k in keys if k in table]
    if clash:
        new = E.renamed(clash[0], taken=table)  # never the prefix again: advice that works
        item = items[keys.index(clash[0])] if len(items) == len(keys) else clash[0]
        if isinstance(item, pl.Expr) and not (_is_column_expr(item)
                                              and item.meta.root_names() == [clash[0]]):
            raise E.InvalidArgumentError(E.RESERVED_NAME_EXPR.format(names=clash, example=new))
        if prefixed:
            raise E.InvalidArgumentError(
                E.RESERVED_PREFIX.format(names=clash, example=clash[0], renamed=new),
                cli_message=cli_rename(E.RESERVED_PREFIX, clash))
        raise E.InvalidArgumentError(E.RESERVED_NAME.format(names=clash, example=clash[0]),
                                     cli_message=cli_rename(E.RESERVED_NAME, clash))
    return keys


def check_reserved_keys(keys: Sequence[str], role: str) -> None:
    """Refuse key columns of a count table named with the reserved prefix ``__pf_``.

    Rows refuse such attribute names (:data:`~polars_fair.errors.RESERVED_NAME`); a table made
    elsewhere is held to the same rule, since the analyses add ``__pf_`` working columns.

    Parameters
    ----------
    keys : sequence of str
        The key column names.
    role : str
        The table they key (``"count table"``), named in the error.

    Raises
    ------
    InvalidArgumentError
        A key starting with ``__pf_`` (:data:`~polars_fair.errors.RESERVED_KEY`).

    Examples
    --------
    >>> check_reserved_keys(["race"], "count table")
    >>> check_reserved_keys(["__pf_x"], "count table")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: key column(s) ['__pf_x'] of the count table ...
    """
    clash = [k for k in keys if k.startswith("__pf_")]
    if clash:
        raise E.InvalidArgumentError(E.RESERVED_KEY.format(
            names=clash, role=role, example=clash[0],
            renamed=E.renamed(clash[0], taken=COUNT_TABLE_COLUMNS)))


def cli_rename(template: str, names: list[str]) -> str:
    """A name-clash message with the command line's advice in place of the Python one.

    The advice is :data:`~polars_fair.errors.CLI_RENAME_ADVICE`: a SQL ``--by`` is named by
    its text, so the column read under another text gets another key name.

    Parameters
    ----------
    template : str
        :data:`~polars_fair.errors.RESERVED_NAME`, :data:`~polars_fair.errors.RESERVED_PREFIX`
        or :data:`~polars_fair.errors.KEY_SUFFIX_CLASH`, whose advice follows ``"; "``.
    names : list of str
        The clashing names; the first one is the example.

    Returns
    -------
    str
        The facts of ``template`` and the command line's advice.

    Examples
    --------
    >>> print(cli_rename(E.RESERVED_NAME, ["n"]).split("; ")[1])
    pass it as SQL named otherwise, for example --by '"n" AS n_attr'
    """
    facts = template.split("; ")[0].format(names=names)
    return f"{facts}; " + E.CLI_RENAME_ADVICE.format(example=sql_rename_example(names[0]))


def sql_rename_example(name: str) -> str:
    """``'"n" AS n_attr'``: the column ``name`` as a SQL ``--by`` of another key name.

    The command line names a SQL attribute by its top-level ``AS`` (:func:`polars_fair.cli.io.
    column_or_sql`), so ``--reference n_attr=a`` and the printed key use the new name. The
    column is a quoted SQL name (``"`` doubled), the new name quoted too unless it is a word,
    and the whole quoted for the shell.

    Parameters
    ----------
    name : str
        The clashing column.

    Returns
    -------
    str
        The text to pass to ``--by``, quoted for a POSIX shell.

    Examples
    --------
    >>> print(sql_rename_example("n"), sql_rename_example("my key"), sql_rename_example("__pf_x"))
    '"n" AS n_attr' '"my key" AS "my key_attr"' '"__pf_x" AS x'
    """
    quoted = '"{}"'.format(name.replace('"', '""'))
    new = E.renamed(name, taken=COUNT_TABLE_COLUMNS)  # never the reserved prefix again
    alias = new if re.fullmatch(r"\w+", new) else '"{}"'.format(new.replace('"', '""'))
    return shlex.quote(f"{quoted} AS {alias}")


def resolve(
    schema: pl.Schema,
    by: Any,
    *,
    y_true: IntoExpr | None = "y_true",
    y_pred: IntoExpr | None = None,
    pos_label: Any = 1,
    sample_weight: IntoExpr | None = None,
    null_groups: NullGroups = "keep",
    y_score: IntoExpr | None = None,
    threshold: float | None = None,
    max_groups: int = DEFAULT_MAX_GROUPS,
    scores: bool = False,
    classes: bool = False,
) -> Audit:
    """Check a call against a schema; raises before any data is read.

    ``scores=True`` resolves a score table (``y_score`` without a threshold, no prediction).

    Parameters
    ----------
    schema : pl.Schema
        The input's schema (for Spark and DuckDB, their columns mapped to Polars dtypes).
    by : Attributes, or str, pl.Expr, sequence of them, or None
        The attributes of one set (:func:`parse_by`; a raw ``by`` is parsed here).
    y_true : str or pl.Expr or None, default "y_true"
        The label column; ``None`` for an audit without labels.
    y_pred : str or pl.Expr, optional
        The prediction column (ignored with ``scores=True``); ``None`` reads the column
        ``"y_pred"`` unless ``y_score`` is given.
    pos_label : Any, default 1
        The positive value, of the columns' dtype.
    sample_weight : str or pl.Expr, optional
        A numeric weight column.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        The policy for rows whose attribute is null.
    y_score : str or pl.Expr, optional
        A numeric score: thresholded into the prediction, or the score of a score table.
    threshold : float, optional
        With ``y_score``: predictions are ``y_score >= threshold``.
    max_groups : int, default 10000
        The size limit of a count table whose groups are made (:data:`DEFAULT_MAX_GROUPS`).
    scores : bool, default False
        Resolve the arguments of a score table.
    classes : bool, default False
        Resolve the arguments of a class table (:mod:`polars_fair.counting.classes`): the label
        and the prediction hold any number of classes, so ``pos_label`` is not read
        (``pos_true`` and ``pos_pred`` stay ``None``).

    Returns
    -------
    Audit
        The resolved call; its ``keys`` are the key columns of the count or score table.

    Raises
    ------
    ColumnNotFoundError
        A named column is missing (the message lists the columns that exist).
    InvalidArgumentError
        Contradictory options (``threshold`` without ``y_score``, ``y_pred`` with
        ``y_score``), repeated, reserved or empty (``""``) attribute names, an unknown
        ``null_groups``, an attribute of a nested or object dtype.
    InvalidLabelError
        ``pos_label`` of a type the label or prediction column cannot hold, null or NaN; a
        label or prediction column that is not boolean, numeric, string or categorical.
    InvalidWeightError, InvalidScoreError
        A non-numeric weight or score column.

    Examples
    --------
    >>> a = resolve(pl.Schema({"g": pl.String, "y_true": pl.Int64, "y_pred": pl.Int64}), "g")
    >>> a.keys, a.pos_true
    (['g'], 1)
    """
    if null_groups not in ("keep", "raise", "drop"):
        raise E.InvalidArgumentError(E.BAD_NULL_GROUPS.format(
            value=null_groups, near=E.closest([str(null_groups)], ("keep", "raise", "drop"),
                                              cutoff=E.VALUE_CUTOFF)))
    by_list = list(parse_by(by).items)
    y_pred, pos_label = _check_roles(schema, by_list, y_true, y_pred, pos_label, sample_weight,
                                     y_score, threshold, scores)
    key_exprs = [to_expr(b) for b in by_list]
    keys = _check_keys([name_of(b) for b in by_list], scores, by_list)
    probe = pl.LazyFrame(schema=schema).select(
        *[e.alias(k) for e, k in zip(key_exprs, keys, strict=True)],
        **({"__pf_y": to_expr(y_true)} if y_true is not None else {}),
        **({"__pf_p": to_expr(y_pred)} if y_score is None and y_pred is not None else {}),
        **({"__pf_s": to_expr(y_score)} if y_score is not None else {}),
        **({"__pf_w": to_expr(sample_weight)} if sample_weight is not None else {}),
    ).collect_schema()
    for k in keys:
        check_key_dtype(probe[k], k)
    y_name = name_of(y_true) if y_true is not None else None
    if y_true is not None:
        assert y_name is not None
        _check_label_dtype(probe["__pf_y"], y_name, "y_true")
    if "__pf_p" in probe:
        assert y_pred is not None
        _check_label_dtype(probe["__pf_p"], name_of(y_pred), "y_pred")
        if y_true is not None and not classes:
            assert y_name is not None
            _check_label_kinds(probe["__pf_y"], probe["__pf_p"], y_name, name_of(y_pred),
                               pos_label)
    common: dict[str, Any] = dict(
        max_groups=check_int(max_groups, "max_groups"),
        keys=keys, key_exprs=key_exprs, pos_label=pos_label, null_groups=null_groups,
        float_keys=[k for k in keys if fractional(probe[k])],  # Decimal as a float
    )
    if y_true is not None:  # without labels (an LL 144 audit) only predictions are counted
        assert y_name is not None
        common.update(y_true=to_expr(y_true), y_true_name=y_name, true_dtype=probe["__pf_y"],
                      pos_true=None if classes else _pos_for(probe["__pf_y"], pos_label, y_name,
                                                                  y_true))
    if sample_weight is not None:
        wname = name_of(sample_weight)
        if not probe["__pf_w"].is_numeric():
            raise E.InvalidWeightError(
                E.NOT_NUMERIC.format(column=wname, role="sample_weight", dtype=probe["__pf_w"])
            )
        common.update(weight=to_expr(sample_weight), weight_name=wname)
    if y_score is not None:
        sname = name_of(y_score)
        sdtype = probe["__pf_s"]
        if not sdtype.is_numeric():
            raise E.InvalidScoreError(
                E.NOT_NUMERIC.format(column=sname, role="y_score", dtype=sdtype)
            )
        common.update(score=to_expr(y_score), score_name=sname, score_dtype=sdtype)
        if scores:
            return Audit(**common)
        t = threshold_in_dtype(threshold, sdtype)
        return Audit(**common, threshold=t, y_pred=to_expr(y_score) >= pl.lit(t),
                     y_pred_name=f"{sname} >= {threshold}", y_pred_role="y_score",
                     pos_pred=True, pred_dtype=pl.Boolean())
    assert y_pred is not None
    p_name = name_of(y_pred)
    return Audit(**common, y_pred=to_expr(y_pred), y_pred_name=p_name,
                 pos_pred=None if classes else _pos_for(probe["__pf_p"], pos_label, p_name,
                                                        y_pred),
                 pred_dtype=probe["__pf_p"])


#: The ``by`` entry of a method's Parameters.
BY_DOC = """by : str, pl.Expr or list of them
    The attribute(s) defining the groups; several entries mean their intersection
    (``["race", "sex"]``). ``None`` or ``[]`` gives one row for the whole population."""

F = TypeVar("F", bound=Callable[..., Any])


def spell_out(method: F, scores: bool = False, *,
              declared: tuple[Any, Mapping[str, Any]] | None = None) -> F:
    """Give ``method`` a runtime signature with its count (or score) arguments spelled out.

    The ``**count_args`` (or ``**score_args``) of a namespace method become keyword parameters,
    typed (the text of :class:`CountArgs` / :class:`ScoreArgs`) and with their defaults
    (:data:`COUNT_ARGS` / :data:`SCORE_ARGS`), so ``help()``, ``inspect.signature`` and doc tools
    show them where the code declares them once.

    Parameters
    ----------
    method : callable
        A function taking ``**count_args`` or ``**score_args``.
    scores : bool, default False
        Spell out the score arguments instead of the count arguments.
    declared : (TypedDict, mapping), optional
        Other arguments: their ``TypedDict`` and their defaults (the class-table arguments of
        :mod:`polars_fair.counting.classes`).

    Returns
    -------
    callable
        ``method`` itself, with ``__signature__`` set.

    Examples
    --------
    >>> def f(by=None, **count_args): ...
    >>> "y_true" in str(inspect.signature(spell_out(f)))
    True
    """
    from polars_fair._docs import expand_signature

    typed, defaults = declared if declared is not None else (
        (ScoreArgs, SCORE_ARGS) if scores else (CountArgs, COUNT_ARGS))
    hints = {k: getattr(v, "__forward_arg__", v)
             for k, v in inspect.get_annotations(typed).items()}
    extra = {name: (hints[name], default) for name, default in defaults.items()}
    method.__signature__ = expand_signature(method, extra)  # type: ignore[attr-defined]
    return method
