"""The reference group: one resolver for every analysis, chart, gate and page.

``report``, ``disparity``, ``summary``, ``pairwise``, ``abroca``, ``abroca_test``, the plots, the
CLI gate and the HTML audit all choose their reference here.

Rules
-----
``"largest"``
    The eligible group with the most rows (``n``); ties go to the first group in key order.
``"max_selection_rate"`` / ``"max_auc"``
    The eligible group with the highest selection rate (count analyses) or AUC (score
    analyses); ties go to the first group in key order.
``"overall"``
    The whole population (count analyses): no row is the reference.
a value, a tuple or a mapping
    An explicit group: its value for one attribute, ``{attribute: value}`` (or a tuple in key
    order) for several. It must exist and have rows, eligible or not.

Eligibility, stated once: a group is eligible to be chosen by a rule when none of its keys is
null, it has rows and a positive weight, and, as the analysis requires, it holds both classes
(ROC curves) and has at least ``min_support`` rows (when low-support groups are excluded). When
no group is eligible there is no reference: every comparison is null and ``is_reference`` is
false on every row.

Support, stated once (:func:`prefer_supported`): a rule never makes a low-support group the
benchmark while a group with enough rows is eligible. Among the eligible groups a rule chooses
from those with at least ``min_support`` rows (the declared default,
``polars_fair.core.options.DEFAULTS.min_support``, 30, unless the analysis is given another);
only when no eligible group has that many does it choose among them all (the report then flags
``reference_low_support``). The same holds for the highest selection rate,
the denominator of the impact ratio. An explicit group is always taken as given.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._lazy import is_numpy
from polars_fair.core.options import DEFAULTS

__all__ = [
    "COUNT_RULES",
    "SCORE_RULES",
    "check_value_type",
    "first_max_index",
    "for_set",
    "is_rule",
    "known",
    "prefer_supported",
    "reference_flag",
    "reference_index",
]

COUNT_RULES = ("largest", "max_selection_rate", "overall")
SCORE_RULES = ("largest", "max_auc")
_RULES = {*COUNT_RULES, *SCORE_RULES}


def is_rule(reference: Any) -> bool:
    """Whether ``reference`` names a rule rather than a group.

    Parameters
    ----------
    reference : Any
        A ``reference=`` argument.

    Returns
    -------
    bool
        True for one of :data:`COUNT_RULES` or :data:`SCORE_RULES`.

    Examples
    --------
    >>> is_rule("largest"), is_rule("White"), is_rule({"race": "White"})
    (True, False, False)
    """
    return isinstance(reference, str) and reference in _RULES


def for_set(reference: Any, keys: Sequence[str]) -> Any:
    """The reference of one attribute set, from the reference of a call.

    A mapping over more attributes is restricted to the set's keys (``{"race": "White", "sex":
    "Male"}`` gives White for the race set); anything else is returned as it is.

    Parameters
    ----------
    reference : Any
        The ``reference=`` argument of the call.
    keys : sequence of str
        The keys of one attribute set.

    Returns
    -------
    Any
        ``{k: reference[k] for k in keys}`` when ``reference`` is a mapping over a strict
        superset of ``keys``, else ``reference``.

    Examples
    --------
    >>> for_set({"race": "White", "sex": "Male"}, ["race"])
    {'race': 'White'}
    >>> for_set("largest", ["race"])
    'largest'
    """
    if isinstance(reference, Mapping) and set(keys) < set(reference):
        return {k: reference[k] for k in keys}
    return reference


def first_max_index(expr: pl.Expr) -> pl.Expr:
    """The index of the first row (in key order) holding the maximum of ``expr``.

    Not ``arg_max``: on a column Polars flags as sorted it returns the *last* of tied maxima,
    and the streaming engine does not fix tie order either.

    Parameters
    ----------
    expr : pl.Expr
        A numeric expression; nulls are never the maximum.

    Returns
    -------
    pl.Expr
        A UInt32 scalar expression: the 0-based row index; null when every value is null.

    Examples
    --------
    >>> pl.DataFrame({"x": [1, 3, 3, 2]}).select(first_max_index(pl.col("x"))).item()
    1
    """
    return (expr == expr.max()).arg_true().first()


def known(keys: Sequence[str]) -> pl.Expr:
    """True where no key is null (a group that can be a benchmark).

    Parameters
    ----------
    keys : sequence of str
        The key columns.

    Returns
    -------
    pl.Expr
        Boolean, never null; ``pl.lit(True)`` without keys.

    Examples
    --------
    >>> df = pl.DataFrame({"a": [1, None], "b": ["x", "y"]})
    >>> df.select(known(["a", "b"])).to_series().to_list()
    [True, False]
    """
    return ~pl.any_horizontal([pl.col(k).is_null() for k in keys]) if keys else pl.lit(True)


def prefer_supported(eligible: pl.Expr, min_support: float = DEFAULTS.min_support,
                     rows: str = "n") -> pl.Expr:
    """The groups a rule may choose as a benchmark: the supported eligible ones, if any.

    A group is supported with at least ``min_support`` rows. When some eligible group is
    supported, only those are candidates; when none is, every eligible group is (so a table of
    small groups still has a benchmark, flagged by the analyses as low support).

    Parameters
    ----------
    eligible : pl.Expr
        Boolean: the groups an analysis allows as benchmark (:func:`known`, rows, classes).
    min_support : float, default ``DEFAULTS.min_support`` (30)
        The rows a group needs to be supported.
    rows : str, default "n"
        The column of row counts.

    Returns
    -------
    pl.Expr
        Boolean, never null, over the same rows as ``eligible``.

    Examples
    --------
    >>> t = pl.DataFrame({"g": ["a", "b", "c"], "n": [2, 40, 35]})
    >>> t.select(prefer_supported(pl.lit(True))).to_series().to_list()
    [False, True, True]
    >>> t.select(prefer_supported(pl.col("g") == "a")).to_series().to_list()
    [True, False, False]
    """
    eligible = eligible.fill_null(False)
    supported = eligible & (pl.col(rows) >= min_support).fill_null(False)
    return pl.when(supported.any()).then(supported).otherwise(eligible)


def _accepts(dtype: pl.DataType, value: Any) -> bool:
    """Whether a Python value can be compared with a column of ``dtype`` without an error."""
    if dtype == pl.Boolean:
        return isinstance(value, bool)
    if dtype.is_numeric():
        return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return isinstance(value, str)
    if dtype == pl.Date:
        return isinstance(value, dt.date)
    if isinstance(dtype, pl.Datetime):
        if isinstance(value, dt.datetime):  # a zone-aware column takes a zone-aware value
            return (value.tzinfo is not None) == (dtype.time_zone is not None)
        return isinstance(value, dt.date) and dtype.time_zone is None
    if dtype == pl.Time:
        return isinstance(value, dt.time)
    if isinstance(dtype, pl.Duration):
        return isinstance(value, dt.timedelta)
    if dtype == pl.Binary:
        return isinstance(value, bytes)
    return dtype == pl.Null


def check_value_type(value: Any, dtype: pl.DataType, column: str, role: str) -> Any:
    """A Python (or numpy) value comparable with a column of ``dtype``, or raise.

    Booleans take ``bool``; numbers ``int``, ``float`` or ``decimal.Decimal``; strings and
    categories ``str``; ``Date`` a ``datetime.date``; ``Datetime`` a ``datetime.datetime`` (with
    a time zone exactly when the column has one) or a ``datetime.date``; ``Time`` a
    ``datetime.time``; ``Duration`` a ``datetime.timedelta``; ``Binary`` ``bytes``. A text such
    as ``"2020-01-01"`` is not read as a date: pass ``datetime.date(2020, 1, 1)``. NaN is the
    missing group, as null.

    Parameters
    ----------
    value : Any
        The value (a numpy scalar is turned into a Python one; ``None`` or NaN is the missing
        group).
    dtype : pl.DataType
        The column's dtype.
    column : str
        The column's name, for the message.
    role : str
        The argument the value came from (``"reference"``), for the message.

    Returns
    -------
    Any
        ``value`` as a Python object; ``None`` for NaN.

    Raises
    ------
    InvalidArgumentError
        A value of another kind than the column (a string for a numeric or date column, a
        number for a string or Boolean column, a naive datetime for a zone-aware column).

    Examples
    --------
    >>> import numpy as np
    >>> check_value_type(np.int64(3), pl.Int64, "age", "reference")
    3
    >>> check_value_type("3", pl.Int64, "age", "reference")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: reference value '3' (str) cannot be compared ...
    """
    if is_numpy(value, "generic"):
        value = value.item()
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if not _accepts(dtype, value):
        raise E.InvalidArgumentError(
            E.VALUE_DTYPE.format(role=role, value=value, type=type(value).__name__,
                                 column=column, dtype=dtype)
        )
    return value


def _explicit(reference: Any, keys: Sequence[str], schema: pl.Schema) -> dict[str, Any]:
    if isinstance(reference, Mapping):
        ref = dict(reference)
        if set(ref) != set(keys):
            raise E.InvalidArgumentError(E.BAD_REFERENCE_MAPPING.format(
                keys=list(keys), got=list(ref)))
    elif isinstance(reference, tuple) and len(keys) > 1:
        if len(reference) != len(keys):
            raise E.InvalidArgumentError(E.BAD_REFERENCE_MAPPING.format(
                keys=list(keys), got=list(reference)))
        ref = dict(zip(keys, reference, strict=True))
    else:
        if not keys:
            raise E.InvalidArgumentError(E.REFERENCE_NEEDS_KEYS)
        if len(keys) != 1:
            raise E.InvalidArgumentError(E.REFERENCE_NEEDS_MAPPING.format(keys=list(keys)))
        ref = {keys[0]: reference}
    return {k: check_value_type(v, schema[k], k, "reference") for k, v in ref.items()}


def _label(row: Mapping[str, Any], keys: Sequence[str]) -> Any:
    return row[keys[0]] if len(keys) == 1 else {k: row[k] for k in keys}


def reference_flag(
    frame: pl.LazyFrame,
    keys: Sequence[str],
    reference: Any,
    *,
    eligible: pl.Expr,
    score: pl.Expr | None = None,
    size: str = "n",
    rules: Sequence[str] = COUNT_RULES,
    min_support: float = DEFAULTS.min_support,
) -> tuple[pl.LazyFrame, pl.Expr | None]:
    """The reference of a small per-group table as a Boolean expression.

    Parameters
    ----------
    frame : pl.LazyFrame
        One row per group, sorted by ``keys``.
    keys : sequence of str
        The group keys.
    reference : rule name, value, tuple or mapping
        See the module documentation.
    eligible : pl.Expr
        Boolean: the groups a rule may choose (:func:`known` and the analysis' own conditions).
    score : pl.Expr, optional
        What ``"max_selection_rate"``/``"max_auc"`` maximise.
    size : str, default "n"
        The column whose zero makes an explicit reference empty.
    rules : sequence of str
        The rules this analysis accepts.
    min_support : float, default ``DEFAULTS.min_support`` (30)
        A rule chooses among the eligible groups with at least this many rows (``n``) when
        there are any (:func:`prefer_supported`).

    Returns
    -------
    (pl.LazyFrame, pl.Expr or None)
        ``frame`` (with a collect-time check for an explicit reference) and a Boolean
        expression, true on the reference row and false elsewhere (never null); ``None`` for
        ``"overall"``.

    Raises
    ------
    InvalidArgumentError
        A rule this analysis does not accept, a malformed mapping, a value of the wrong type.
    UnknownGroupError
        An explicit reference that is not a group, or has no rows (at collect time).

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "b", "c"], "n": [5, 9, 9]})
    >>> t2, flag = reference_flag(t, ["g"], "largest", eligible=pl.lit(True))
    >>> t2.select(flag).collect().to_series().to_list()
    [False, True, False]
    """
    if is_rule(reference):
        if reference not in rules:
            raise E.InvalidArgumentError(E.BAD_REFERENCE_RULE.format(
                reference=reference, rules=list(rules)))
        if reference == "overall":
            return frame, None
        value = pl.col("n") if reference == "largest" else score
        assert value is not None
        chosen = prefer_supported(eligible, min_support)
        idx = first_max_index(pl.when(chosen).then(value))
        flag = (pl.int_range(pl.len(), dtype=pl.UInt32) == idx.cast(pl.UInt32)).fill_null(False)
        return frame, flag
    schema = frame.collect_schema()
    ref = _explicit(reference, keys, schema)
    parts = [pl.col(k).is_null() if v is None else pl.col(k).eq_missing(pl.lit(v))
             for k, v in ref.items()]
    mask = pl.all_horizontal(parts)

    def check(df: pl.DataFrame) -> pl.DataFrame:
        chosen = df.filter(mask)
        if chosen.height == 0:
            groups = [_label(r, keys) for r in df.select(keys).iter_rows(named=True)]
            raise E.UnknownGroupError(
                E.UNKNOWN_GROUP.format(group=reference, groups=E.show_values(groups, limit=50))
            )
        if size in df.columns and not chosen[size].sum():
            raise E.UnknownGroupError(E.EMPTY_REFERENCE.format(group=reference, size=size))
        return df

    return frame.map_batches(check, schema=schema), mask


def reference_index(
    table: pl.DataFrame,
    keys: Sequence[str],
    reference: Any,
    *,
    eligible: pl.Series | pl.Expr,
    score: pl.Series | None = None,
    rules: Sequence[str] = SCORE_RULES,
    min_support: float = DEFAULTS.min_support,
) -> int | None:
    """:func:`reference_flag` on an eager per-group table: the row index of the reference.

    Parameters
    ----------
    table : pl.DataFrame
        One row per group, sorted by ``keys``, with ``n``.
    keys : sequence of str
        The group keys.
    reference : rule name, value, tuple or mapping
        See the module documentation.
    eligible : pl.Series or pl.Expr
        Boolean, one value per row: the groups a rule may choose.
    score : pl.Series, optional
        What ``"max_auc"`` (or ``"max_selection_rate"``) maximises, one value per row.
    rules : sequence of str, default SCORE_RULES
        The rules this analysis accepts.
    min_support : float, default ``DEFAULTS.min_support`` (30)
        As :func:`reference_flag`.

    Returns
    -------
    int or None
        The 0-based row index of the reference; ``None`` when no group is eligible (or for
        ``"overall"``).

    Raises
    ------
    InvalidArgumentError
        A rule this analysis does not accept, a malformed mapping, a value of the wrong type.
    UnknownGroupError
        An explicit reference that is not a group, or has no rows.

    Examples
    --------
    >>> t = pl.DataFrame({"g": ["a", "b"], "n": [3, 40]})
    >>> reference_index(t, ["g"], "largest", eligible=pl.Series([True, False]))
    0
    """
    extra = [eligible.alias("__pf_eligible") if isinstance(eligible, pl.Series)
             else eligible.alias("__pf_eligible")]
    if score is not None:
        extra.append(score.alias("__pf_score"))
    t = table.with_columns(extra).lazy()
    frame, flag = reference_flag(
        t, keys, reference, eligible=pl.col("__pf_eligible"),
        score=pl.col("__pf_score") if score is not None else None, rules=rules,
        min_support=min_support,
    )
    if flag is None:
        return None
    hits = frame.select(flag.alias("f")).collect()["f"].arg_true()
    return int(hits[0]) if hits.len() else None
