"""The reference group: one resolver for every analysis, chart, gate and page.

``report``, ``disparity``, ``summary``, ``pairwise``, ``abroca``, ``abroca_test``, the plots, the
CLI gate and the HTML audit all choose their reference here.

Rules
-----
``"largest"``
    The eligible group with the most rows (``n``); ties go to the first group in key order.
    On a table of estimated membership (with ``n_effective``), the group with the largest
    support size (:func:`support_rows`): the expected group size Σ w·p (``weight_sum``)
    bounded by Kish's n_eff = (Σ w·p)² / Σ (w·p)², not ``n``, which counts every row with a
    positive probability (ties as above). On a table of sample weights with
    ``n_positive_weight``, the group with the most rows of positive weight (a row of weight 0
    is no observation).
``"max_selection_rate"`` / ``"max_auc"``
    The eligible group with the highest selection rate (count analyses) or AUC (score
    analyses); ties go to the first group in key order.
``"overall"``
    The whole population (count analyses): no row is the reference.
a value, a tuple or a mapping
    An explicit group: its value for one attribute, ``{attribute: value}`` (or a tuple in key
    order) for several. It must exist and have rows, eligible or not.

Resolved once: :class:`Reference` is the ``reference=`` argument parsed into one frozen value (a
rule or an explicit group, its attribute names checked against the call's) by the analysis
objects (:class:`polars_fair.api.objects.FairCounts`, ``FairScores``), the gate, the HTML audit
and the command line; every analysis receives that value and asks it for its set's reference
(:meth:`Reference.for_set`) and its row (:meth:`Reference.flag`, :meth:`Reference.index`). A
module function given a raw argument parses it itself; given a :class:`Reference`, it uses it
unchanged.

Eligibility, stated once: a group is eligible to be chosen by a rule when none of its keys is
null, it has rows and a positive weight, and, as the analysis requires, it holds both classes
(ROC curves) and has at least ``min_support`` rows (when low-support groups are excluded). When
no group is eligible there is no reference: every comparison is null and ``is_reference`` is
false on every row.

Support, stated once (:func:`prefer_supported`): a rule never makes a low-support group the
benchmark while a group with enough rows is eligible (on a table of estimated membership,
enough support size, the expected size in rows bounded by ``n_effective``; rows of positive
weight, ``n_positive_weight``, on a table of sample weights; as its ``low_support`` flag reads:
:func:`support_rows`). Among the eligible groups a rule chooses from those with at least
``min_support`` rows (the declared default, ``polars_fair.core.options.DEFAULTS.min_support``,
30, unless the analysis is given another);
only when no eligible group has that many does it choose among them all (the report then flags
``reference_low_support``). The same holds for the highest selection rate,
the denominator of the impact ratio. An explicit group is always taken as given.

Why one module: the rules, eligibility, support and the frozen
:class:`Reference` are one decision every analysis, chart and gate must take the same way;
split, two surfaces could disagree on their benchmark.
"""

from __future__ import annotations

import datetime as dt
import decimal
import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import is_numpy
from polars_fair.core.labels import cli_words, shown_group
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import support_size
from polars_fair.core.values import value_advice

__all__ = [
    "COUNT_RULES",
    "SCORE_RULES",
    "SUPPORT_SIZE",
    "SUPPORT_SIZE_WEIGHTED",
    "Reference",
    "check_value_type",
    "first_max_index",
    "known_supported",
    "is_rule",
    "known",
    "nearest_group",
    "prefer_supported",
    "support_name",
    "support_rows",
    "support_unit",
]

COUNT_RULES = ("largest", "max_selection_rate", "overall")
SCORE_RULES = ("largest", "max_auc")
_RULES = {*COUNT_RULES, *SCORE_RULES}
#: The support size of estimated membership as messages name it (:func:`support_rows`):
#: without sample weights, and with them (the expected size in rows, whatever their scale).
SUPPORT_SIZE = "support size min(weight_sum, n_effective)"
SUPPORT_SIZE_WEIGHTED = "support size min(weight_sum * n / row_weight_sum, n_effective)"


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


def known_supported(frame: pl.LazyFrame | pl.DataFrame, keys: Sequence[str],
                    min_support: float) -> bool:
    """Some group a rule may choose as a benchmark (no key missing) has ``min_support`` rows.

    When none has, a rule falls back to the small known groups (:func:`prefer_supported`),
    even beside a missing group of many rows, which is never a benchmark: the gate then takes
    ``report``'s benchmarks instead of none (:func:`polars_fair.audit.gate.gate`).

    Parameters
    ----------
    frame : pl.LazyFrame or pl.DataFrame
        A count table.
    keys : sequence of str
        Its keys.
    min_support : float
        The rows (the support size: :func:`support_rows`) a group needs.

    Returns
    -------
    bool

    Examples
    --------
    >>> t = pl.DataFrame({"g": [None, "a"], "n": [30, 5]})
    >>> known_supported(t, ["g"], 30), known_supported(t, ["g"], 5)
    (False, True)
    """
    names = frame.collect_schema().names()
    supported = support_rows(names) >= float(min_support)
    return bool(frame.lazy().select((known(keys) & supported).any()).collect().item())


@borrow(support_size, params=("names",))
def support_rows(names: Sequence[str]) -> pl.Expr:
    """The size support rules and ``reference="largest"`` read: rows, or the expected size.

    On a crisp count table, ``n`` (rows; ``n_positive_weight``, the rows of positive weight,
    on a weighted table that has it: :func:`polars_fair.core.spec.support_size`, the size
    intervals and tests read). On a count table of estimated membership (with
    ``n_effective``), the expected group size in rows bounded by Kish's effective size
    n_eff = (Σ w·p)² / Σ (w·p)² (Kish 1965, *Survey Sampling*). The expected size is
    Σ w·p · n / Σ w, the sums over the group's ``n`` rows (those with p > 0): Σ w·p
    (``weight_sum``) with the sample weights rescaled to a mean of 1 over those rows, so it
    is in rows whatever the weights' scale (weights summing to 1 give the same size as
    weights of 1,000 each); Σ w over the rows is ``row_weight_sum``, present with sample
    weights. Without it (no sample weights, w = 1) the expected size is ``weight_sum`` = Σ p.
    The size is min(expected size, ``n_effective``); 0 where the group has no weight.
    n_eff alone does not change when every probability is scaled (1,000 rows at p = 0.1
    have n_eff = 1,000), so it would make a group of uncertain members look as large as
    1,000 known ones; their expected size is 100, as for 100 known members. Without sample
    weights n_eff ≥ Σ p (each p ≤ 1), so the size is Σ p; with crisp (0/1) memberships it is
    ``n``, whatever the weights. Intervals and tests keep reading n_eff
    (:func:`polars_fair.analyses.uncertainty.row_scale`).

    Returns
    -------
    pl.Expr
        Float64 for estimated membership, the Int64 column of
        :func:`polars_fair.core.spec.support_size` otherwise.

    Examples
    --------
    1,000 rows at p = 0.1 against 100 known members: both have the support size 100.

    >>> t = pl.DataFrame({"g": ["a", "b"], "n": [1000, 100], "weight_sum": [100.0, 100.0],
    ...                   "n_effective": [1000.0, 100.0]})
    >>> t.select(support_rows(t.columns)).to_series().to_list()
    [100.0, 100.0]

    The same groups with sample weights of 0.001 each: still 100 rows.

    >>> t = t.with_columns(pl.col("weight_sum") / 1000, row_weight_sum=pl.col("n") / 1000)
    >>> t.select(support_rows(t.columns)).to_series().round(9).to_list()
    [100.0, 100.0]
    """
    if "n_effective" in names and "weight_sum" in names:
        expected = pl.col("weight_sum")
        if "row_weight_sum" in names:  # in rows: the weights rescaled to a mean of 1
            total = pl.col("row_weight_sum")
            expected = pl.when(total > 0).then(
                pl.col("weight_sum") * pl.col("n") / total).otherwise(0.0)
        return pl.min_horizontal(expected, "n_effective")
    return pl.col(support_size(names))


def support_name(names: Sequence[str]) -> str:
    """How messages name the support size of an estimated-membership count table.

    Parameters
    ----------
    names : sequence of str
        A count table's columns (with ``n_effective``).

    Returns
    -------
    str
        :data:`SUPPORT_SIZE_WEIGHTED` with ``row_weight_sum`` (sample weights), else
        :data:`SUPPORT_SIZE` (the formula :func:`support_rows` computes).

    Examples
    --------
    >>> support_name(["g", "n", "weight_sum", "n_effective"])
    'support size min(weight_sum, n_effective)'
    """
    return SUPPORT_SIZE_WEIGHTED if "row_weight_sum" in names else SUPPORT_SIZE


def support_unit(names: Sequence[str]) -> str:
    """What a crisp count table's support counts, as messages name it: rows, or rows of weight.

    A weighted table with ``n_positive_weight`` is supported by its rows of positive weight
    (:func:`polars_fair.core.spec.support_size`), not by ``n``, which counts rows of weight 0
    too: messages say so (the column is ``n_positive_weight``).

    Parameters
    ----------
    names : sequence of str
        A count table's (or report's) columns, without ``n_effective``.

    Returns
    -------
    str
        ``"rows"``, or ``"rows of positive weight"``.

    Examples
    --------
    >>> support_unit(["g", "n", "weight_sum", "n_positive_weight"])
    'rows of positive weight'
    >>> support_unit(["g", "n"])
    'rows'
    """
    column = support_size(names)
    return "rows" if column == "n" else "rows of positive weight"


def prefer_supported(eligible: pl.Expr, min_support: float = DEFAULTS.min_support,
                     rows: str | pl.Expr = "n") -> pl.Expr:
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
    rows : str or pl.Expr, default "n"
        The column of row counts, or the support size (:func:`support_rows`).

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
    size = pl.col(rows) if isinstance(rows, str) else rows
    supported = eligible & (size >= min_support).fill_null(False)
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
                                 column=column, dtype=dtype,
                                 example=value_advice(value, dtype, ""))
        )
    return value


def _closest_value(value: Any, values: Sequence[Any]) -> Any:
    """The value of ``values`` closest to ``value``, or ``None`` when nothing is close.

    By spelling for text (at least :data:`polars_fair.errors.VALUE_CUTOFF`), by distance for a
    number.
    """
    if isinstance(value, str):
        texts = [v for v in values if isinstance(v, str)]
        close = difflib.get_close_matches(value, texts, n=1, cutoff=E.VALUE_CUTOFF)
        return close[0] if close else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        numbers = [v for v in values
                   if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return min(numbers, key=lambda v: (abs(v - value), v)) if numbers else None
    return None


def nearest_group(group: Any, groups: pl.DataFrame, keys: Sequence[str]) -> Any:
    """The group closest to a reference that does not exist, attribute by attribute, or None.

    Each attribute whose value is not among that attribute's values takes its closest value
    (the closest spelling for text, the nearest number); the result is offered only when it is
    a group of the data.

    Parameters
    ----------
    group : Any
        The reference asked for: a value, or ``{attribute: value}``.
    groups : pl.DataFrame
        The groups, one row each, with the ``keys`` columns.
    keys : sequence of str
        The attributes.

    Returns
    -------
    Any
        The closest group in the form asked for, or ``None``.

    Examples
    --------
    >>> t = pl.DataFrame({"race": ["a", "Caucasian", "Caucasian"], "sex": ["Male", "Male", "F"]})
    >>> nearest_group({"race": "Caucasian", "sex": "Mal"}, t, ["race", "sex"])
    {'race': 'Caucasian', 'sex': 'Male'}
    >>> nearest_group(200, pl.DataFrame({"age": [18, 96]}), ["age"])
    96
    """
    asked = dict(group) if isinstance(group, Mapping) else {keys[0]: group}
    if set(asked) != set(keys) or not 0 < len(keys) == len(asked):
        return None
    near = {}
    for k, v in asked.items():
        values = groups[k].unique().to_list()
        near[k] = v if v in values else _closest_value(v, values)
        if near[k] is None:
            return None
    if near == asked:
        return None
    hit = groups.filter(pl.all_horizontal(pl.col(k).eq_missing(pl.lit(v)) for k, v in near.items()))
    if hit.height == 0:
        return None
    return near if isinstance(group, Mapping) else near[keys[0]]


def _label(row: Mapping[str, Any], keys: Sequence[str]) -> Any:
    return row[keys[0]] if len(keys) == 1 else {k: row[k] for k in keys}


@dataclass(frozen=True)
class Reference:
    """A ``reference=`` argument resolved once: a rule, or an explicit group.

    Made by :meth:`parse` where a call comes in (the analysis objects, the gate, the HTML audit,
    the command line) and passed unchanged to every analysis, which asks it for its attribute
    set's reference (:meth:`for_set`) and for the reference's row (:meth:`flag` on a lazy
    per-group table, :meth:`index` on an eager one). The value is immutable and hashable (when
    its group values are).

    Parameters
    ----------
    rule : str, optional
        One of :data:`COUNT_RULES` or :data:`SCORE_RULES`; ``None`` for an explicit group.
    group : Any
        An explicit group: its value for one attribute, a tuple in key order, or (with
        ``attributes``) the tuple of the mapping's values. ``None`` is the missing group.
    attributes : tuple of str, optional
        The attribute names of a mapping ``{attribute: value}``, in the order given; ``None``
        for a rule, a single value or a tuple.

    Examples
    --------
    >>> Reference.parse("largest")
    Reference(rule='largest', group=None, attributes=None)
    >>> Reference.parse("overall").is_overall, Reference.parse("a").is_rule
    (True, False)
    >>> r = Reference.parse({"race": "White", "sex": "Male"}, ["race", "sex"])
    >>> r.argument, r.for_set(["race"]).argument
    ({'race': 'White', 'sex': 'Male'}, {'race': 'White'})
    >>> Reference.parse(r) is r  # resolved once: a Reference passes through unchanged
    True
    """

    rule: str | None = None
    group: Any = None
    attributes: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, reference: Any, keys: Sequence[str] | None = None) -> Reference:
        """The :class:`Reference` of a ``reference=`` argument (itself when it is one).

        Parameters
        ----------
        reference : rule name, value, tuple, mapping or Reference
            See the module documentation.
        keys : sequence of str, optional
            Every attribute of the call (the union of its attribute sets): a mapping must not
            name another (:meth:`check_attributes`). Not checked when omitted.

        Returns
        -------
        Reference
            ``reference`` itself when it is a :class:`Reference`, else its parsed value.

        Raises
        ------
        InvalidArgumentError
            With ``keys``: a mapping naming an attribute outside them.

        Examples
        --------
        >>> Reference.parse("b").argument, Reference.parse(("b", 1)).group
        ('b', ('b', 1))
        >>> Reference.parse({"race": "B", "age": 30}, ["race", "sex"])
        Traceback (most recent call last):
        ...
        polars_fair.errors.InvalidArgumentError: reference mapping must name exactly the ...
        """
        if isinstance(reference, Reference):
            ref = reference
        elif is_rule(reference):
            ref = cls(rule=reference)
        elif isinstance(reference, Mapping):
            ref = cls(group=tuple(reference.values()), attributes=tuple(reference))
        else:
            ref = cls(group=reference)
        if keys is not None:
            ref.check_attributes(keys)
        return ref

    @property
    def argument(self) -> Any:
        """The ``reference=`` argument this value stands for (a dict for a mapping).

        Examples
        --------
        >>> Reference.parse({"g": "a"}).argument, Reference.parse("overall").argument
        ({'g': 'a'}, 'overall')
        """
        if self.rule is not None:
            return self.rule
        if self.attributes is not None:
            return dict(zip(self.attributes, self.group, strict=True))
        return self.group

    @property
    def is_rule(self) -> bool:
        """Whether a rule chooses the group (``rule`` is set), not an explicit group."""
        return self.rule is not None

    @property
    def is_overall(self) -> bool:
        """Whether the reference is the whole population (the rule ``"overall"``)."""
        return self.rule == "overall"

    def check_attributes(self, keys: Sequence[str]) -> None:
        """Raise when a mapping names an attribute that the call does not audit.

        A mapping over every attribute of a call with several attribute sets is read per set
        (:meth:`for_set`); an attribute outside the call (``"age"`` in ``{"race": "B", "sex":
        "M", "age": 30}`` when auditing race and sex) would be dropped silently, so it is
        refused.

        Parameters
        ----------
        keys : sequence of str
            Every attribute of the call (the union of its attribute sets).

        Raises
        ------
        InvalidArgumentError
            A mapping with a key outside ``keys``
            (:data:`polars_fair.errors.BAD_REFERENCE_MAPPING`).

        Examples
        --------
        >>> Reference.parse({"race": "B"}).check_attributes(["race", "sex"])
        >>> Reference.parse({"race": "B", "age": 30}).check_attributes(["race", "sex"])
        Traceback (most recent call last):
        ...
        polars_fair.errors.InvalidArgumentError: reference mapping must name exactly the ...
        """
        if self.attributes is not None and any(a not in keys for a in self.attributes):
            raise E.InvalidArgumentError(E.BAD_REFERENCE_MAPPING.format(
                keys=list(keys), got=list(self.attributes)))

    def for_set(self, keys: Sequence[str]) -> Reference:
        """The reference of one attribute set: a mapping over more attributes restricted to it.

        Parameters
        ----------
        keys : sequence of str
            The keys of one attribute set.

        Returns
        -------
        Reference
            A mapping over a strict superset of ``keys`` restricted to ``keys`` (in their
            order); ``self`` otherwise.

        Examples
        --------
        >>> Reference.parse({"race": "W", "sex": "M"}).for_set(["race"]).argument
        {'race': 'W'}
        """
        if self.attributes is not None and set(keys) < set(self.attributes):
            values = dict(zip(self.attributes, self.group, strict=True))
            return Reference(group=tuple(values[k] for k in keys), attributes=tuple(keys))
        return self

    def renamed(self, names: Mapping[str, str]) -> Reference:
        """The same reference with a mapping's attributes renamed (``names``: old to new).

        Parameters
        ----------
        names : mapping of str to str
            New names of some attributes; the others keep theirs.

        Returns
        -------
        Reference
            ``self`` unless it is a mapping.

        Examples
        --------
        >>> Reference.parse({"g": "a"}).renamed({"g": "k0"}).argument
        {'k0': 'a'}
        """
        if self.attributes is None:
            return self
        return Reference(group=self.group,
                         attributes=tuple(names.get(a, a) for a in self.attributes))

    def _explicit(self, keys: Sequence[str], schema: pl.Schema) -> dict[str, Any]:
        """The explicit group as ``{key: value}``, each value checked against its column."""
        reference = self.group
        if self.attributes is not None:
            if set(self.attributes) != set(keys):
                raise E.InvalidArgumentError(E.BAD_REFERENCE_MAPPING.format(
                    keys=list(keys), got=list(self.attributes)))
            ref = dict(zip(self.attributes, reference, strict=True))
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

    def flag(
        self,
        frame: pl.LazyFrame,
        keys: Sequence[str],
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
        eligible : pl.Expr
            Boolean: the groups a rule may choose (:func:`known` and the analysis' own
            conditions).
        score : pl.Expr, optional
            What ``"max_selection_rate"``/``"max_auc"`` maximise.
        size : str, default "n"
            The column of row counts whose zero makes an explicit reference empty. Rows, not
            weights: a group with rows whose weights sum to 0 is a valid explicit reference
            (it has no applicants, so every comparison with it is null).
        rules : sequence of str
            The rules this analysis accepts.
        min_support : float, default ``DEFAULTS.min_support`` (30)
            A rule chooses among the eligible groups with at least this many rows (``n``; the
            support size, the expected size in rows bounded by ``n_effective``, when ``frame`` has
            ``n_effective``: estimated membership; ``n_positive_weight``, the rows of positive
            weight, on a weighted table that has it: :func:`support_rows`) when there are any
            (:func:`prefer_supported`); ``"largest"`` compares the same size.

        Returns
        -------
        (pl.LazyFrame, pl.Expr or None)
            ``frame`` (with a collect-time check for an explicit reference) and a Boolean
            expression, true on the reference row and false elsewhere (never null); ``None``
            for ``"overall"``.

        Raises
        ------
        InvalidArgumentError
            A rule this analysis does not accept, a malformed mapping, a value of the wrong
            type.
        UnknownGroupError
            An explicit reference that is not a group, or has no rows (at collect time).

        Examples
        --------
        >>> t = pl.LazyFrame({"g": ["a", "b", "c"], "n": [5, 9, 9]})
        >>> t2, flag = Reference.parse("largest").flag(t, ["g"], eligible=pl.lit(True))
        >>> t2.select(flag).collect().to_series().to_list()
        [False, True, False]
        >>> t = pl.LazyFrame({"g": ["a", "b"], "n": [9, 5], "weight_sum": [4.0, 4.5],
        ...                   "n_effective": [8.0, 4.5]})
        >>> t2, flag = Reference.parse("largest").flag(t, ["g"], eligible=pl.lit(True))
        >>> t2.select(flag).collect().to_series().to_list()  # estimated: min(Σp, n_eff)
        [False, True]
        """
        if self.rule is not None:
            if self.rule not in rules:
                raise E.InvalidArgumentError(E.BAD_REFERENCE_RULE.format(
                    reference=self.rule, rules=list(rules)))
            if self.rule == "overall":
                return frame, None
            rows = support_rows(frame.collect_schema().names())
            value = rows if self.rule == "largest" else score
            assert value is not None
            chosen = prefer_supported(eligible, min_support, rows=rows)
            idx = first_max_index(pl.when(chosen).then(value))
            flag = (pl.int_range(pl.len(), dtype=pl.UInt32) == idx.cast(pl.UInt32)
                    ).fill_null(False)
            return frame, flag
        schema = frame.collect_schema()
        ref = self._explicit(keys, schema)
        parts = [pl.col(k).is_null() if v is None else pl.col(k).eq_missing(pl.lit(v))
                 for k, v in ref.items()]
        mask = pl.all_horizontal(parts)
        group = self.argument

        def check(df: pl.DataFrame) -> pl.DataFrame:
            chosen = df.filter(mask)
            if chosen.height == 0:
                groups = [_label(r, keys) for r in df.select(keys).iter_rows(named=True)]
                shown = [shown_group(g) for g in groups]
                near = nearest_group(group, df.select(keys), keys)
                python_near = cli_near = ""
                if near is not None:  # the group as each surface writes it, runnable there
                    python_near = E.DID_YOU_MEAN.format(names=repr(near))
                    cli_near = E.DID_YOU_MEAN.format(
                        names="--reference " + cli_words([near], quoted=True))
                raise E.UnknownGroupError(  # a missing value reads (missing); the CLI: k=v,k=v
                    E.UNKNOWN_GROUP.format(  # a few values, each cut (errors.show_values)
                        group=shown_group(group), groups=E.show_values(shown),
                        near=python_near),
                    cli_message=E.CLI_UNKNOWN_GROUP.format(  # each as --reference takes it
                        group=cli_words([group], quoted=True),
                        groups=cli_words(groups, limit=5, quoted=True), near=cli_near))
            if size in df.columns and not chosen[size].sum():
                raise E.UnknownGroupError(E.EMPTY_REFERENCE.format(group=group))
            return df

        return frame.map_batches(check, schema=schema), mask

    def index(
        self,
        table: pl.DataFrame,
        keys: Sequence[str],
        *,
        eligible: pl.Series | pl.Expr,
        score: pl.Series | None = None,
        rules: Sequence[str] = SCORE_RULES,
        min_support: float = DEFAULTS.min_support,
    ) -> int | None:
        """:meth:`flag` on an eager per-group table: the row index of the reference.

        Parameters
        ----------
        table : pl.DataFrame
            One row per group, sorted by ``keys``, with ``n``.
        keys : sequence of str
            The group keys.
        eligible : pl.Series or pl.Expr
            Boolean, one value per row: the groups a rule may choose.
        score : pl.Series, optional
            What ``"max_auc"`` (or ``"max_selection_rate"``) maximises, one value per row.
        rules : sequence of str, default SCORE_RULES
            The rules this analysis accepts.
        min_support : float, default ``DEFAULTS.min_support`` (30)
            As :meth:`flag`.

        Returns
        -------
        int or None
            The 0-based row index of the reference; ``None`` when no group is eligible (or
            for ``"overall"``).

        Raises
        ------
        InvalidArgumentError, UnknownGroupError
            As :meth:`flag`; an unknown or empty explicit group is raised here at once.

        Examples
        --------
        >>> t = pl.DataFrame({"g": ["a", "b"], "n": [3, 4]})
        >>> Reference.parse("b").index(t, ["g"], eligible=pl.Series([True, True]))
        1
        """
        extra = [eligible.alias("__pf_eligible")]
        if score is not None:
            extra.append(score.alias("__pf_score"))
        t = table.with_columns(extra).lazy()
        frame, flag = self.flag(
            t, keys, eligible=pl.col("__pf_eligible"),
            score=pl.col("__pf_score") if score is not None else None, rules=rules,
            min_support=min_support,
        )
        if flag is None:
            return None
        hits = frame.select(flag.alias("f")).collect()["f"].arg_true()
        return int(hits[0]) if hits.len() else None
