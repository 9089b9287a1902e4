"""Estimated membership: probabilities of belonging to each group, counted in one scan.

When the data hold, for each person, a probability of belonging to each group (BISG and the
like), the count argument ``membership={"race": {"White": "p_white", ...}}`` replaces a crisp
attribute. Every membership analysis reads the rows once, by **one group-by over the original
(wide) rows** (never an unpivot, which multiplies the rows by K) into the **membership table**.

The membership table (the schema, shared by every estimator)
--------------------------------------------------------------
With K groups in declared order ``0..K-1``, ``p_k`` the probability of group k and ``w`` the
sample weight (1 without one), one row per (the ``by`` keys, ``__pf_argmax``, ``y_true``,
``y_pred``), where ``__pf_argmax`` (Int64) is the index of the largest probability (ties to the
group declared first; null when a probability of the row is null) and ``y_true``/``y_pred``
(Int8) are 0/1 after ``pos_label`` (``y_true`` absent without labels). The sums are additive:

=========================  ======================================================  =======
column                     sum over the rows of the cell                           dtype
=========================  ======================================================  =======
``n``                      rows                                                    Int64
``w``                      w                                                       Float64
``w2``                     w²                                                      Float64
``c_{k}``                  rows with p_k > 0                                       Int64
``s_{k}``                  w·p_k                                                   Float64
``g_{j}_{k}`` (j ≤ k)      w·p_j·p_k (the Gram matrix of the least-squares fit)    Float64
``h_{j}_{k}`` (j ≤ k)      w²·p_j·p_k (the diagonal gives Kish's Σ(w p_k)²)        Float64
``t_{j}_{k}_{l}``          w²·p_j·p_k·p_l (j ≤ k ≤ l)                              Float64
``u_{j}_{k}_{l}_{m}``      w²·p_j·p_k·p_l·p_m (j ≤ k ≤ l ≤ m)                      Float64
``v_{k}``                  w over the rows with p_k > 0 (only when asked for)      Float64
``n_positive_weight``      rows of weight w > 0 (sample weights, when asked for)   Int64
=========================  ======================================================  =======

``n_positive_weight`` (:data:`polars_fair.core.spec.POSITIVE_WEIGHT_ROWS`) is the count
table's column of the same name: the argmax estimator's crisp table carries it, so a row of
weight 0 is no observation there either (support flags, intervals), as in the crisp audit.
``t`` and ``u`` serve the regression estimator's sandwich variance; ``v`` (:data:`ROW_WEIGHTS`,
not in :data:`FAMILIES`, so not in the default table) the weighted estimator's support size
with sample weights (:func:`polars_fair.core.reference.support_rows`); without sample weights
it equals ``c`` and is copied from it after the scan. A row with a null
probability counts in ``n``, ``w`` and ``w2`` of its cell (``__pf_argmax`` null) and adds 0 to
every probability sum. ``normalize=True`` divides each row's probabilities by their sum first.
:func:`membership_table` returns it with its metadata (:class:`MembershipTable`); the pure
numpy reference of its tests is ``tests/membership_reference.py``.

Validation rides the same scan (counts of violations as extra sums, as the weight checks do):
probability columns must be numeric, finite, in [0, 1], and each row must sum to 1 within
:data:`TOLERANCE` (absolute) unless ``normalize=True``, where a row summing to 0 is an error.
A row with a null probability follows ``null_groups``: ``"keep"`` counts it in the missing
group of the attribute (its key is null, as a null crisp attribute), ``"drop"`` drops it with a
warning giving the count, ``"raise"`` raises.

Why one module: the membership table's schema, its scan and its validation are one contract
that every estimator (weighted, argmax here; regression and calibration elsewhere) reads.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core import rules as R
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS, Audit, name_of, to_expr
from polars_fair.counting import boundary
from polars_fair.counting.boundary import P, Y
from polars_fair.counting.membership_bounds import bound_aggs, proven

__all__ = [
    "ARGMAX",
    "ESTIMATORS",
    "FAMILIES",
    "ROW_WEIGHTS",
    "SCALE",
    "TOLERANCE",
    "Membership",
    "MembershipTable",
    "index_tuples",
    "membership_label_table",
    "membership_from_labels",
    "parse_membership",
    "resolve_membership",
    "sum_columns",
    "weight_scale",
]

#: The key of the most likely group (its index in declared order, Int64).
ARGMAX = "__pf_argmax"
#: The estimators of a count table from the membership table.
ESTIMATORS = ("weighted", "argmax", "regression")
#: The sum families of the membership table and the number of probabilities in each product.
FAMILIES: dict[str, int] = {"c": 1, "s": 1, "g": 2, "h": 2, "t": 3, "u": 4}
#: The family of the sums of w over the rows with p_k > 0 (asked for by name; not in FAMILIES).
ROW_WEIGHTS = "v"
#: How far (absolute) a row's probabilities may sum from 1 without ``normalize=True``.
TOLERANCE = 1e-6
#: The column of a membership table holding the power of two its weights were scaled by
#: (:func:`weight_scale`); a table without it was summed on the weights as given.
SCALE = "__pf_w_scale"
#: The total weights whose squares stay in the float range unscaled (see :func:`weight_scale`).
_SAFE = (2.0 ** -400, 2.0 ** 500)
_V = "__pf_m_"


def index_tuples(k: int, order: int) -> list[tuple[int, ...]]:
    """The index tuples ``j <= k <= ...`` of a sum family of ``order`` probabilities.

    Parameters
    ----------
    k : int
        The number of groups.
    order : int
        The number of probabilities in each product (1 to 4).

    Returns
    -------
    list of tuple of int
        Non-decreasing index tuples, in lexicographic order.

    Examples
    --------
    >>> index_tuples(2, 2)
    [(0, 0), (0, 1), (1, 1)]
    """
    return list(itertools.combinations_with_replacement(range(k), order))


def sum_columns(k: int, families: Sequence[str] = tuple(FAMILIES)) -> list[str]:
    """The sum columns of a membership table of ``k`` groups, in order (see the module).

    Parameters
    ----------
    k : int
        The number of groups.
    families : sequence of str, default every family
        Which of ``c, s, g, h, t, u`` (and ``v``, :data:`ROW_WEIGHTS`) to list.

    Returns
    -------
    list of str
        ``n``, ``w``, ``w2``, then the families' columns (``s_0``, ``g_0_1``, ...).

    Examples
    --------
    >>> sum_columns(2, ("s", "h"))
    ['n', 'w', 'w2', 's_0', 's_1', 'h_0_0', 'h_0_1', 'h_1_1']
    """
    return ["n", "w", "w2"] + [
        f + "_" + "_".join(map(str, t)) for f in FAMILIES if f in families
        for t in index_tuples(k, FAMILIES[f])
    ] + ([f"{ROW_WEIGHTS}_{i}" for i in range(k)] if ROW_WEIGHTS in families else [])


@dataclass(frozen=True)
class Membership:
    """The count arguments ``membership``, ``membership_estimator`` and ``normalize``, parsed.

    Parameters
    ----------
    attribute : str
        The attribute's name (the key column of the count table).
    groups : tuple
        The group values, in declared order.
    columns : tuple of str
        The probability columns' names (messages), one per group.
    exprs : tuple of pl.Expr
        The probability columns as expressions.
    estimator : {"weighted", "argmax", "regression"}
        The estimator of the count table.
    normalize : bool
        Divide each row's probabilities by their sum.

    Examples
    --------
    >>> m = parse_membership({"g": {"a": "p_a", "b": "p_b"}})
    >>> m.attribute, m.groups, m.columns, m.estimator
    ('g', ('a', 'b'), ('p_a', 'p_b'), 'weighted')
    """

    attribute: str
    groups: tuple[Any, ...]
    columns: tuple[str, ...]
    exprs: tuple[pl.Expr, ...]
    estimator: str = "weighted"
    normalize: bool = False

    @property
    def key_dtype(self) -> pl.DataType:
        """The dtype of the attribute's key column (that of its group values).

        Returns
        -------
        pl.DataType
            The dtype Polars infers for the group values.

        Examples
        --------
        >>> parse_membership({"g": {1: "p1", 2: "p2"}}).key_dtype
        Int64
        """
        return pl.Series(list(self.groups)).dtype

    @property
    def bound(self) -> tuple[tuple[pl.Expr, str], ...]:
        """The probabilities given as expressions: (the expression, ``membership[...]``).

        Read by :func:`polars_fair.counting.boundary.values_hidden`, so a probability whose
        conversion fails on the rows names it and no value.

        Returns
        -------
        tuple of (pl.Expr, str)
            One pair per probability that is not a plain column.

        Examples
        --------
        >>> m = parse_membership({"g": {"a": pl.col("p").cast(pl.Float64), "b": "q"}})
        >>> [(str(e), role) for e, role in m.bound]
        [('col("p").strict_cast(Float64)', "membership['g']['a']")]
        """
        return tuple((x, f"membership[{self.attribute!r}][{g!r}]")
                     for g, x in zip(self.groups, self.exprs, strict=True)
                     if not x.meta.is_column())

    def shown(self, mask: Sequence[bool] | None = None) -> str:
        """The probability columns (those where ``mask`` is true) as a message shows them.

        Parameters
        ----------
        mask : sequence of bool, optional
            One flag per column; every column without it.

        Returns
        -------
        str
            At most a few column names (:func:`polars_fair.errors.show_values`).

        Examples
        --------
        >>> parse_membership({"g": {"a": "pa", "b": "pb"}}).shown([False, True])
        "['pb']"
        """
        cols = [c for i, c in enumerate(self.columns) if mask is None or mask[i]]
        return E.show_values(cols)


def parse_membership(membership: Any, estimator: Any = "weighted",
                     normalize: Any = False) -> Membership | None:
    """Check the membership count arguments (no data is read); ``None`` without membership.

    Parameters
    ----------
    membership : mapping of str to mapping of group value to str or pl.Expr, optional
        One attribute name -> (group value -> probability column or expression).
    estimator : {"weighted", "argmax", "regression"}, default "weighted"
        The count argument ``membership_estimator``.
    normalize : bool, default False
        The count argument ``normalize``.

    Returns
    -------
    Membership or None
        The parsed arguments.

    Raises
    ------
    InvalidArgumentError
        A malformed mapping, more than one attribute, one group only, repeated or null
        groups, groups of mixed types, an unknown estimator, ``normalize`` or
        ``membership_estimator`` without ``membership``.

    Examples
    --------
    >>> parse_membership(None) is None
    True
    >>> parse_membership({"g": {"a": "p_a"}, "h": {"x": "p_x"}})
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: membership takes one attribute per call, got 2: ...
    """
    normalize = R.flag(normalize, "normalize")
    if membership is None:
        for name, value, default in (("membership_estimator", estimator, "weighted"),
                                     ("normalize", normalize, False)):
            if value != default:
                raise E.InvalidArgumentError(E.MEMBERSHIP_NEEDS_MEMBERSHIP.format(
                    name=name, value=value))
        return None
    if estimator not in ESTIMATORS:
        raise E.InvalidArgumentError(E.MEMBERSHIP_ESTIMATOR.format(value=estimator))
    if not isinstance(membership, Mapping) or not membership:
        raise E.InvalidArgumentError(E.MEMBERSHIP_SHAPE.format(value=type(membership).__name__,
                                                               advice=""))
    if all(isinstance(v, str) for v in membership.values()):  # {group: column}: no attribute
        given = dict(membership) if len(membership) <= 8 else None
        raise E.InvalidArgumentError(E.MEMBERSHIP_SHAPE.format(
            value=E.show_values(list(membership.items()), limit=4),
            advice="" if given is None else E.MEMBERSHIP_SHAPE_WRAP.format(given=given)))
    if len(membership) > 1:
        facts = {"count": len(membership), "names": E.show_values(list(membership))}
        raise E.InvalidArgumentError(E.MEMBERSHIP_ONE_ATTRIBUTE.format(**facts),
                                     cli_message=E.CLI_MEMBERSHIP_ONE_ATTRIBUTE.format(**facts))
    (attribute, spec), = membership.items()
    if not isinstance(attribute, str) or not attribute or not isinstance(spec, Mapping):
        raise E.InvalidArgumentError(E.MEMBERSHIP_SHAPE.format(value=repr(attribute),
                                                               advice=""))
    groups = tuple(spec)
    if not groups or any(g is None for g in groups) or len(set(groups)) != len(groups):
        raise E.InvalidArgumentError(E.MEMBERSHIP_GROUPS.format(
            attribute=attribute, groups=E.show_values(groups)))
    if len(groups) == 1:
        facts = {"attribute": attribute, "group": groups[0]}
        raise E.InvalidArgumentError(E.MEMBERSHIP_ONE_GROUP.format(**facts),
                                     cli_message=E.CLI_MEMBERSHIP_ONE_GROUP.format(**facts))
    try:  # groups equal as text too ({1, '1'}): one Series holds one type
        pl.Series(list(groups))
    except (TypeError, pl.exceptions.PolarsError):
        raise E.InvalidArgumentError(E.MEMBERSHIP_GROUP_TYPES.format(
            attribute=attribute, groups=E.show_values(groups))) from None
    for column in spec.values():
        if not isinstance(column, (str, pl.Expr)):
            raise E.InvalidArgumentError(E.NOT_A_COLUMN.format(
                role="membership", value=column, type=type(column).__name__))
    return Membership(attribute, groups, tuple(name_of(c) for c in spec.values()),
                      tuple(to_expr(c) for c in spec.values()), estimator, normalize)


def resolve_membership(schema: pl.Schema, m: Membership, a: Audit,
                       same: str | None = None) -> None:
    """Check the probability columns against the input's schema (before any row is read).

    Parameters
    ----------
    schema : pl.Schema
        The input's schema.
    m : Membership
        The parsed membership arguments.
    a : Audit
        The resolved call (its keys).
    same : str, optional
        A column that may share the attribute's name because it holds the same groups (the
        calibration check's ``known`` column).

    Raises
    ------
    ColumnNotFoundError
        A probability column is missing.
    InvalidArgumentError
        The attribute's name is a ``by`` attribute, reserved, or a column of the input
        (other than ``same``), whose values the attribute's key column would hide.
    InvalidMembershipError
        A probability column is not numeric.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> schema = pl.Schema({"y_true": pl.Int8, "y_pred": pl.Int8, "p_a": pl.String})
    >>> resolve_membership(schema, parse_membership({"g": {"a": "p_a", "b": "p_a"}}),
    ...                    resolve(schema, None))
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidMembershipError: membership probability column(s) of ...
    """
    if m.attribute in a.keys or m.attribute.startswith("__pf_") or m.attribute in (
            "n", "tp", "fp", "fn", "tn", "weight_sum", "n_effective", "attenuation"):
        raise E.InvalidArgumentError(E.MEMBERSHIP_KEY_CLASH.format(attribute=m.attribute))
    if m.attribute in schema and m.attribute != same:
        raise E.InvalidArgumentError(E.MEMBERSHIP_COLUMN_CLASH.format(
            attribute=m.attribute, renamed=E.renamed(m.attribute, schema.names())))
    for e in m.exprs:
        for col in e.meta.root_names():
            if col not in schema:
                raise E.ColumnNotFoundError(E.missing_column(col, "membership", schema.names()))
    probe = pl.LazyFrame(schema=schema).select(
        e.alias(f"{_V}{i}") for i, e in enumerate(m.exprs)).collect_schema()
    bad = [not dtype.is_numeric() for dtype in probe.dtypes()]
    if any(bad):
        raise E.InvalidMembershipError(E.MEMBERSHIP_NOT_NUMERIC.format(
            attribute=m.attribute, columns=m.shown(bad)))


# ------------------------------------------------------------------ Polars: rows -> one scan
def _prepared(lf: pl.LazyFrame, m: Membership, a: Audit, scale: float = 1.0) -> pl.LazyFrame:
    """The rows with the membership columns added (lazy; still one scan).

    The raw probabilities ``__pf_m_r{k}``, the used ones ``__pf_m_p{k}`` (0 on a row with a
    null, divided by the row's sum with ``normalize``), ``__pf_argmax`` and the weight
    ``__pf_m_w`` (times ``scale``, a power of two: :func:`weight_scale`), and each row's
    largest probability ``__pf_m_top``.
    """
    raw = [e.cast(pl.Float64) for e in m.exprs]
    r = [pl.col(f"{_V}r{i}") for i in range(len(raw))]
    missing = pl.any_horizontal(x.is_null() for x in r)
    total = pl.sum_horizontal(r)
    used = [pl.when(missing).then(0.0).otherwise(x / total if m.normalize else x) for x in r]
    top = pl.col(f"{_V}top")
    argmax: Any = pl.when(missing).then(None)
    for i, x in enumerate(r):
        argmax = argmax.when(x == top).then(pl.lit(i, dtype=pl.Int64))
    w = a.weight.cast(pl.Float64) if a.weight is not None else pl.lit(1.0)
    if scale != 1.0:
        w = w * scale
    return (lf.with_columns(*(x.alias(f"{_V}r{i}") for i, x in enumerate(raw)), w.alias(f"{_V}w"))
            .with_columns(pl.max_horizontal(r).alias(f"{_V}top"))
            .with_columns(*(u.alias(f"{_V}p{i}") for i, u in enumerate(used)),
                          argmax.otherwise(None).alias(ARGMAX), missing.alias(f"{_V}miss"),
                          total.alias(f"{_V}total")))


def _outside(x: pl.Expr, normalize: bool) -> pl.Expr:
    """A probability outside [0, 1]; with ``normalize=True`` only a negative one."""
    return (x < 0) if normalize else ((x < 0) | (x > 1))


def _check_aggs(m: Membership, detail: bool = True) -> list[pl.Expr]:
    """The validation counts, summed in the scan.

    Rows with a non-finite or out-of-range value; rows whose sum is off 1 (or, normalizing,
    is 0); with ``detail``, per column nulls, non-finite and out-of-range values (which
    columns an error names: without them a second scan finds them, on the error path only).
    """
    k = len(m.exprs)
    out: list[pl.Expr] = []
    for i in range(k if detail else 0):
        x = pl.col(f"{_V}r{i}")
        out += [x.is_null().sum().cast(pl.Int64).alias(f"{_V}null_{i}"),
                (x.is_nan() | x.is_infinite()).sum().cast(pl.Int64).alias(f"{_V}nan_{i}"),
                (x.is_finite() & _outside(x, m.normalize)).sum().cast(pl.Int64)
                .alias(f"{_V}range_{i}")]
    miss, total = pl.col(f"{_V}miss"), pl.col(f"{_V}total")
    finite = pl.all_horizontal(pl.col(f"{_V}r{i}").is_finite() for i in range(k))
    off = (total == 0) if m.normalize else ((total - 1.0).abs() > TOLERANCE)
    bad = pl.all_horizontal(~miss, finite, off)
    out.append(bad.sum().cast(pl.Int64).alias(f"{_V}sum"))
    out.append((~miss & ~finite).sum().cast(pl.Int64).alias(f"{_V}nanrows"))
    rng = pl.any_horizontal(_outside(pl.col(f"{_V}r{i}"), m.normalize) for i in range(k))
    out.append((~miss & finite & rng).sum().cast(pl.Int64).alias(f"{_V}rangerows"))
    return out


def _sum_aggs(k: int, families: Sequence[str], weighted: bool) -> list[pl.Expr]:
    """The sums of the membership table (the module's schema).

    Without weights w = w² = 1, so ``h`` equals ``g``: it is copied after the scan
    (:func:`membership_from_labels`) instead of summed twice.
    """
    p = [pl.col(f"{_V}p{i}") for i in range(k)]
    w = pl.col(f"{_V}w")
    out = [pl.len().cast(pl.Int64).alias("n"), w.sum().alias("w"), (w * w).sum().alias("w2")]
    for f in FAMILIES:
        if f not in families or (f == "h" and not weighted and "g" in families):
            continue
        for t in index_tuples(k, FAMILIES[f]):
            name = f + "_" + "_".join(map(str, t))
            if f == "c":
                out.append((p[t[0]] > 0).sum().cast(pl.Int64).alias(name))
                continue
            prod = p[t[0]]
            for j in t[1:]:
                prod = prod * p[j]
            if weighted:
                prod = prod * (w if f in ("s", "g") else w * w)
            out.append(prod.sum().alias(name))
    if ROW_WEIGHTS in families and weighted:  # unweighted: c, copied after the scan
        out += [w.filter(p[i] > 0).sum().alias(f"{ROW_WEIGHTS}_{i}") for i in range(k)]
    return out


def membership_label_table(lf: pl.LazyFrame, m: Membership, a: Audit,
                           families: Sequence[str] = tuple(FAMILIES), *,
                           detail: bool = True, scale: float = 1.0) -> pl.LazyFrame:
    """The Polars scan of the membership table: one ``group_by`` over the wide rows.

    Parameters
    ----------
    lf : pl.LazyFrame
        The rows.
    m : Membership
        The parsed membership arguments.
    a : Audit
        The resolved call (keys, labels, weights).
    families : sequence of str, default every family
        The sum families to compute (``("c", "s", "g", "h")`` for the weighted estimator).
    detail : bool, default True
        Also count nulls, non-finite and out-of-range values per probability column (the
        columns an error names). ``False`` counts rows only (cheaper); then
        :func:`membership_from_labels` needs ``rescan`` to name the columns of an error.
    scale : float, default 1.0
        Multiply every weight by it before summing (a power of two from
        :func:`weight_scale`: exact); the weight checks read the weights as given.

    Returns
    -------
    pl.LazyFrame
        Unsorted, one row per (keys, ``__pf_argmax``, label value, prediction value): the keys,
        ``__pf_argmax``, ``__pf_y`` and ``__pf_p`` (the label and prediction as stored), the
        sums of :func:`sum_columns`, the weight checks of
        :mod:`polars_fair.counting.boundary` (``weight_sum``, ``__pf_w_*``) with weights, and
        the Int64 validation counts ``__pf_m_*`` (per column ones with ``detail``).

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"y_true": [1, 0], "y_pred": [1, 1], "p_a": [0.25, 1.0],
    ...                    "p_b": [0.75, 0.0]})
    >>> m = parse_membership({"g": {"a": "p_a", "b": "p_b"}})
    >>> t = membership_label_table(lf, m, resolve(lf.collect_schema(), None), ("s",))
    >>> t.sort(ARGMAX).select(ARGMAX, "n", "s_0", "s_1").collect().rows()
    [(0, 1, 1.0, 0.0), (1, 1, 0.25, 0.75)]
    """
    assert a.y_pred is not None
    prepared = _prepared(lf, m, a, scale)
    labels = [a.y_true.alias(Y)] if a.y_true is not None else []
    keys = [e.alias(k) for e, k in zip(a.key_exprs, a.keys, strict=True)]
    sums = _sum_aggs(len(m.exprs), families, a.weight is not None)
    extra: list[pl.Expr] = []
    if a.weight is not None:
        extra += getattr(boundary, "_weight_aggs")(a.weight)  # noqa: B009 - the one weight check
    if a.score is not None:  # a thresholded score: its null, NaN and infinite values counted
        extra += getattr(boundary, "_score_aggs")(a)  # noqa: B009 - the one score check
    group = [*keys, ARGMAX, *labels, a.y_pred.alias(P)]
    checked = prepared.group_by(group).agg([*sums, *_check_aggs(m, detail), *extra])
    schema = checked.collect_schema()
    checks = [c for c in schema.names() if c.startswith(_V) and c not in
              {e.meta.output_name() for e in extra}]

    def complete(df: pl.DataFrame) -> pl.DataFrame:
        # the bounds prove every count of a bad value 0; else count them on the rows
        if not proven(df, m.normalize, detail, argmax=ARGMAX, prefix=_V,
                      tolerance=TOLERANCE):
            return checked.collect(engine="in-memory")
        return df.with_columns(pl.lit(0, dtype=pl.Int64).alias(c) for c in checks) \
            .select(schema.names())

    fast = prepared.group_by(group).agg([*sums, *bound_aggs(len(m.exprs), m.normalize, _V),
                                         *extra])
    return fast.map_batches(complete, schema=schema)


def weight_scale(labels: pl.DataFrame) -> float:
    """The power of two to scale the weights by so that the sums of their squares stay finite.

    Kish's size (Σ w·p)² / Σ (w·p)² does not change when every weight is multiplied by the
    same factor, but the squares leave the float range: weights of 1e170 square to inf and
    weights of 1e-170 to 0, and the size came out NaN. When the weights' total W is outside
    [2⁻⁴⁰⁰, 2⁵⁰⁰] the scan runs again on w·c with c = 2⁻ᵉ, W = m·2ᵉ (0.5 ≤ m < 1): every
    scaled weight is at most 1, so no square overflows, and the largest is at least 0.5 / rows,
    so the squares that count are normal. Multiplying by a power of two is exact, so the
    scaled sums are the sums times c to the last bit (a weight's product that would underflow
    aside) and the count tables divide c out of their weight sums
    (:func:`polars_fair.counting.membership_counts.weighted_counts`). Inside the interval every
    square sum is at most W² ≤ 2¹⁰⁰⁰, and nothing is scaled (c = 1).

    Parameters
    ----------
    labels : pl.DataFrame
        A scan of :func:`membership_label_table` (its ``w`` sums), collected.

    Returns
    -------
    float
        1.0, or the power of two c; 1.0 also where W is not a positive finite number (the
        weight checks then raise, or no row weighs anything).

    Examples
    --------
    >>> weight_scale(pl.DataFrame({"w": [3.0, 5.0]}))
    1.0
    >>> weight_scale(pl.DataFrame({"w": [1e170, 2e170]})) == 2.0 ** -567
    True
    """
    total = float(labels["w"].sum()) if labels.height else 0.0
    if not math.isfinite(total) or total <= 0 or _SAFE[0] <= total <= _SAFE[1]:
        return 1.0
    return math.ldexp(1.0, -math.frexp(total)[1])


def _validate(df: pl.DataFrame, m: Membership, a: Audit,
              rescan: Callable[[], pl.DataFrame] | None) -> pl.DataFrame:
    """The membership checks on the scanned table, then the null-membership policy."""
    k = len(m.exprs)
    detailed: list[pl.DataFrame] = []

    def total(col: str, frame: pl.DataFrame = df) -> int:
        return int(frame[col].sum()) if col in frame.columns and frame.height else 0

    def cols(kind: str) -> list[bool]:
        frame = df
        if f"{_V}{kind}_0" not in df.columns and rescan is not None:  # the error path only
            if not detailed:
                detailed.append(rescan())
            frame = detailed[0]
        return [total(f"{_V}{kind}_{i}", frame) > 0 for i in range(k)]

    facts = {"attribute": m.attribute}
    if total(f"{_V}nanrows"):
        raise E.InvalidMembershipError(E.MEMBERSHIP_NOT_FINITE.format(
            **facts, count=total(f"{_V}nanrows"), columns=m.shown(cols("nan"))))
    if total(f"{_V}rangerows"):
        raise E.InvalidMembershipError(E.MEMBERSHIP_RANGE.format(
            **facts, range="[0, inf)" if m.normalize else "[0, 1]",
            advice="" if m.normalize else E.MEMBERSHIP_RANGE_ADVICE,
            count=total(f"{_V}rangerows"), columns=m.shown(cols("range"))))
    if total(f"{_V}sum"):
        template = E.MEMBERSHIP_ZERO_SUM if m.normalize else E.MEMBERSHIP_SUM
        raise E.InvalidMembershipError(template.format(
            **facts, count=total(f"{_V}sum"), columns=m.shown(), tolerance=TOLERANCE))
    missing = df.filter(pl.col(ARGMAX).is_null())
    rows = int(missing["n"].sum()) if missing.height else 0
    if rows and a.null_groups == "raise":
        raise E.NullGroupError(E.MEMBERSHIP_NULLS.format(
            **facts, count=rows, columns=m.shown(cols("null"))))
    if rows and a.null_groups == "drop":
        warnings.warn(E.DROPPED_NULL_MEMBERSHIP.format(
            **facts, count=rows, columns=m.shown(cols("null"))), stacklevel=2)
        df = df.filter(pl.col(ARGMAX).is_not_null())
        if not df.height:
            raise E.EmptyFrameError(E.EMPTY_FRAME.format(
                detail=" after dropping rows with null membership"))
    return df


def membership_from_labels(labels: pl.DataFrame, m: Membership, a: Audit,
                           families: Sequence[str] = tuple(FAMILIES), *,
                           rescan: Callable[[], pl.DataFrame] | None = None,
                           positive_rows: bool = False,
                           scale: float | None = None) -> pl.DataFrame:
    """Validate a scanned membership table and give its public form (eager, small).

    Parameters
    ----------
    labels : pl.DataFrame
        :func:`membership_label_table`'s result, collected (or an engine's).
    m : Membership
        The parsed membership arguments.
    a : Audit
        The resolved call.
    families : sequence of str, default every family
        The sum families the scan computed.
    rescan : callable, optional
        For a scan without ``detail``: runs the scan again with it (collected), to name the
        columns of an error or warning; called only then.
    positive_rows : bool, default False
        With sample weights, also ``n_positive_weight`` (the rows of positive weight, last;
        the argmax estimator's count table carries it).
    scale : float, optional
        The power of two the scan multiplied the weights by (:func:`weight_scale`): kept as
        the last column, :data:`SCALE`, which the count tables divide out of their weight sums.

    Returns
    -------
    pl.DataFrame
        The membership table of the module's schema, sorted by its keys (nulls last)
        [, :data:`SCALE` (Float64) with ``scale``].

    Raises
    ------
    InvalidMembershipError
        Non-finite, out-of-range probabilities, rows not summing to 1 (or to 0 with
        ``normalize=True``): the message names the columns and counts the rows.
    NullGroupError
        Null probabilities with ``null_groups="raise"``.
    InvalidLabelError, NullValuesError, InvalidWeightError, EmptyFrameError
        The label, weight and group checks of :mod:`polars_fair.counting.boundary`.

    Warns
    -----
    UserWarning
        With ``null_groups="drop"``: the rows dropped for a null probability.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> lf = pl.LazyFrame({"y_true": [1, 0], "y_pred": [1, 1], "p_a": [0.25, 1.0],
    ...                    "p_b": [0.75, 0.0]})
    >>> m = parse_membership({"g": {"a": "p_a", "b": "p_b"}})
    >>> a = resolve(lf.collect_schema(), None)
    >>> scan = membership_label_table(lf, m, a, ("s",)).collect()
    >>> membership_from_labels(scan, m, a, ("s",)).select(ARGMAX, "y_true", "s_1").rows()
    [(0, 0, 0.0), (1, 1, 0.75)]
    """
    boundary.validate_labels(labels, a)
    df = boundary.apply_group_policy(labels, a)
    df = _validate(df, m, a, rescan)
    k = len(m.exprs)
    sums = sum_columns(k, families)
    if a.weight is None and "h" in families and "g" in families:  # w = 1: h = g (one scan)
        df = df.with_columns(pl.col(c).alias("h" + c[1:]) for c in sums if c[0] == "g")
    if a.weight is None and ROW_WEIGHTS in families:  # w = 1: Σ w over p_k > 0 rows is c_k
        df = df.with_columns(pl.col(f"c_{i}").cast(pl.Float64).alias(f"{ROW_WEIGHTS}_{i}")
                             for i in range(k))
    labels_01 = [(pl.col(Y) == pl.lit(a.pos_true)).cast(pl.Int8).alias("y_true")] \
        if Y in df.columns else []
    keys = [*a.keys, ARGMAX, *(["y_true"] if labels_01 else []), "y_pred"]
    if positive_rows and a.weight is not None:  # the weight check's rows of positive weight
        df = df.with_columns(pl.col(boundary.W_POS).alias(POSITIVE_WEIGHT_ROWS))
        sums = [*sums, POSITIVE_WEIGHT_ROWS]
    out = (df.with_columns(*labels_01, (pl.col(P) == pl.lit(a.pos_pred)).cast(pl.Int8)
                           .alias("y_pred"))
           .group_by(keys).agg(pl.col(sums).sum()))
    casts = {c: pl.Int64 if c in ("n", POSITIVE_WEIGHT_ROWS) or c.startswith("c_")
             else pl.Float64 for c in sums}
    out = out.with_columns(pl.col(c).cast(t) for c, t in casts.items()).sort(
        keys, nulls_last=True).select(*keys, *sums)
    return out if scale is None else out.with_columns(pl.lit(scale, dtype=pl.Float64).alias(SCALE))


@dataclass(frozen=True)
class MembershipTable:
    """The membership table and its metadata (the module's schema).

    Parameters
    ----------
    frame : pl.LazyFrame
        The table: the keys, ``__pf_argmax``, [``y_true``,] ``y_pred``, then the sums.
    keys : list of str
        The ordinary ``by`` keys.
    membership : Membership
        The attribute, its group values in order, the probability columns, the estimator.
    weighted : bool
        Whether ``sample_weight`` was given.
    labelled : bool
        Whether ``y_true`` was given.
    families : tuple of str
        The sum families the table holds.

    Examples
    --------
    >>> m = parse_membership({"g": {"a": "p_a", "b": "p_b"}})
    >>> MembershipTable(pl.LazyFrame(), [], m, False, True, ("s",)).membership.groups
    ('a', 'b')
    """

    frame: pl.LazyFrame
    keys: list[str]
    membership: Membership
    weighted: bool
    labelled: bool
    families: tuple[str, ...] = tuple(FAMILIES)
