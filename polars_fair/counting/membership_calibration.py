"""The membership calibration table: the rows counted once for the calibration check.

When membership in a group is estimated (BISG probabilities and the like) and some rows also
carry the group a person reported (the ``known`` column, null where unknown), the calibration
check (:mod:`polars_fair.analyses.membership_calibration`) compares each group's predicted
probability with the observed share of that group, in bins. Its input is this table, built by
**one** group-by over the original rows on the ``known`` value (no unpivot: each group's bin is
a column of the row, and each (group, bin) cell is one filtered sum). The membership arguments
are read, checked and validated as every membership analysis reads them
(:mod:`polars_fair.counting.membership`: ``parse_membership``, ``resolve_membership``, the
validation counts summed in the same scan); the rows are grouped by ``known`` and by
``__pf_argmax`` (null where a probability is null: those rows have nothing to calibrate).

| column | per value of ``known`` (null: unknown) and ``__pf_argmax`` | dtype |
| --- | --- | --- |
| ``known`` | the value, as text | String |
| ``__pf_argmax`` | the most likely group's index (null: a null probability) | Int64 |
| ``rows`` | rows | Int64 |
| ``n_{k}_{b}`` | rows (weights) whose group-``k`` probability is in bin ``b`` | Int64 (Float64) |
| ``s_{k}_{b}`` | the sum of ``w * p_k`` over those rows | Float64 |
| ``weight_sum``, ``__pf_w_*`` | weighted only: the weight checks of every count table | |
| ``__pf_m_*`` | the membership validation counts (``counting.membership``) | Int64 |

Groups ``k`` are numbered in declared order, bins ``b`` from 0; bin ``b`` is
``(edge_b, edge_{b+1}]`` on equal-width edges over [0, 1], the first bin also holding 0
(:func:`sklearn.calibration.calibration_curve`'s rule, through the same ``searchsorted``).
The table is additive over rows: tables of parts of the data sum to the table of the whole.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np
from polars_fair.core.limits import LIMITS
from polars_fair.core.spec import (
    Audit,
    IntoExpr,
    NullGroups,
    _check_columns,
    check_int,
    name_of,
    to_expr,
)
from polars_fair.counting import boundary
from polars_fair.counting import membership as scan
from polars_fair.counting.membership import ARGMAX, Membership, parse_membership

__all__ = [
    "MAX_CALIBRATION_BINS",
    "CalibrationTable",
    "calibration_table",
    "check_calibration_table",
]

#: The most bins of the calibration check: the scan holds one sum per group and bin.
MAX_CALIBRATION_BINS = LIMITS["membership_bins"].limit


class CalibrationTable(NamedTuple):
    """The lazy membership calibration table and what it was counted with.

    Parameters
    ----------
    frame : pl.LazyFrame
        One row per value of ``known`` and ``__pf_argmax`` (the module's columns).
    membership : Membership
        The attribute, its groups and their probability columns
        (:class:`polars_fair.counting.membership.Membership`).
    known : str
        The name of the known-group column.
    edges : tuple of float
        The ``bins + 1`` bin edges, ``0 .. 1``.
    audit : Audit
        The weight and ``null_groups`` of the call (no keys, no labels).

    Examples
    --------
    >>> df = pl.DataFrame({"p_a": [0.9, 0.2], "p_b": [0.1, 0.8], "self": ["A", None]})
    >>> t = calibration_table(df, membership={"g": {"A": "p_a", "B": "p_b"}}, known="self",
    ...                       bins=2)
    >>> t.edges, t.frame.collect().sort("known")["rows"].to_list()
    ((0.0, 0.5, 1.0), [1, 1])
    """

    frame: pl.LazyFrame
    membership: Membership
    known: str
    edges: tuple[float, ...]
    audit: Audit

    @property
    def weighted(self) -> bool:
        """Whether the rows were weighted.

        Returns
        -------
        bool

        Examples
        --------
        >>> df = pl.DataFrame({"p_a": [1.0], "p_b": [0.0], "self": ["A"]})
        >>> calibration_table(df, membership={"g": {"A": "p_a", "B": "p_b"}},
        ...                   known="self").weighted
        False
        """
        return self.audit.weight is not None


def _bins(k: int, edges: np.ndarray) -> list[pl.Expr]:
    """Each group's bin as a column of the row (``searchsorted`` over the inner edges)."""
    inner = pl.lit(pl.Series(edges[1:-1], dtype=pl.Float64))
    return [inner.search_sorted(pl.col(f"__pf_m_p{i}"), side="left").cast(pl.Int64)
            .alias(f"__pf_c_bin{i}") for i in range(k)]


def _bin_sums(k: int, bins: int, weighted: bool) -> list[pl.Expr]:
    """Each (group, bin) cell: its rows (weights) and its sum of ``w * p``.

    The bins are columns made before the group-by (:func:`_bins`): comparing an integer column
    in each cell is about five times faster than binning the probability there.
    """
    w = pl.col("__pf_m_w")
    aggs = []
    for i in range(k):
        p, bin_i = pl.col(f"__pf_m_p{i}"), pl.col(f"__pf_c_bin{i}")
        for b in range(bins):
            cell = bin_i == b
            n = w.filter(cell).sum() if weighted else cell.sum().cast(pl.Int64)
            aggs += [n.alias(f"n_{i}_{b}"), (w * p).filter(cell).sum().alias(f"s_{i}_{b}")]
    return aggs


def calibration_table(frame: pl.DataFrame | pl.LazyFrame, *, membership: Any, known: IntoExpr,
                      bins: int = 10, sample_weight: IntoExpr | None = None,
                      normalize: bool = False,
                      null_groups: NullGroups = "keep") -> CalibrationTable:
    """Count the rows once into the membership calibration table (lazy: nothing runs yet).

    Parameters
    ----------
    frame : pl.DataFrame or pl.LazyFrame
        The rows: the probability columns, the known-group column, the weight.
    membership : mapping
        ``{"race": {"White": "p_white", ...}}``: one attribute, its groups in declared order
        and each group's probability (a column name or expression).
    known : str or pl.Expr
        The group each row reported, null where unknown; compared with the group values as
        text.
    bins : int, default 10
        Equal-width bins over [0, 1], at most 100 (:data:`MAX_CALIBRATION_BINS`).
    sample_weight : str or pl.Expr, optional
        Row weights (finite, non-negative).
    normalize : bool, default False
        Divide each row's probabilities by their sum (else they must sum to 1 within
        :data:`polars_fair.counting.membership.TOLERANCE`).
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows with a null probability: kept (they count in ``share_known``'s denominator only),
        refused, or dropped with a warning.

    Returns
    -------
    CalibrationTable
        The lazy table and its metadata.

    Raises
    ------
    InvalidArgumentError
        ``frame`` not a polars frame, ``membership`` malformed, ``bins`` not an integer >= 1,
        two groups the same text, a bad ``null_groups``.
    ColumnNotFoundError
        A probability, the known or the weight column is absent.
    InvalidMembershipError
        A probability column is not numeric.
    SizeLimitError
        ``bins`` above 100 (:data:`MAX_CALIBRATION_BINS`).

    Examples
    --------
    >>> df = pl.DataFrame({"p_a": [0.9, 0.3, 0.6], "p_b": [0.1, 0.7, 0.4],
    ...                    "self": ["A", "B", None]})
    >>> t = calibration_table(df, membership={"g": {"A": "p_a", "B": "p_b"}}, known="self",
    ...                       bins=2)
    >>> t.frame.collect().sort("known").select("known", "rows", "n_0_0", "n_0_1", "s_0_1").rows()
    [(None, 1, 0, 1, 0.6), ('A', 1, 0, 1, 0.9), ('B', 1, 1, 0, 0.0)]
    """
    if not isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        top = type(frame).__module__.split(".")[0]
        raise E.InvalidArgumentError(E.CALIBRATION_POLARS_ONLY.format(
            type=E.CALIBRATION_INPUTS.get(top, type(frame).__name__),
            advice=E.CALIBRATION_INPUT_ROWS.get(top, "")))
    m = parse_membership(membership, normalize=normalize)
    assert m is not None  # a mapping was given: parse_membership raised otherwise
    bins = check_int(bins, "bins", limit="membership_bins")  # its own limit, not divergence's
    if null_groups not in ("keep", "raise", "drop"):
        raise E.InvalidArgumentError(E.BAD_NULL_GROUPS.format(
            value=null_groups, near=E.closest([str(null_groups)], ("keep", "raise", "drop"),
                                              cutoff=E.VALUE_CUTOFF)))
    lf = frame.lazy()
    schema = lf.collect_schema()
    weight = None if sample_weight is None else to_expr(sample_weight)
    a = Audit([], [], 1, weight=weight, null_groups=null_groups,
              weight_name=None if sample_weight is None else name_of(sample_weight))
    # the known column may share the attribute's name: it holds the same groups, as reported
    scan.resolve_membership(schema, m, a, same=name_of(known) if to_expr(known).meta.is_column()
                            else None)
    _check_columns(schema, known, "known")
    if sample_weight is not None:
        _check_columns(schema, sample_weight, "sample_weight")
    texts = [str(g) for g in m.groups]
    if len(set(texts)) < len(texts):
        raise E.InvalidArgumentError(E.KNOWN_GROUP_CLASH.format(
            attribute=m.attribute, column=name_of(known),
            values=E.show_values(sorted({t for t in texts if texts.count(t) > 1}))))
    edges = np.linspace(0.0, 1.0, bins + 1)
    aggs = [pl.len().cast(pl.Int64).alias("rows"),
            *_bin_sums(len(m.exprs), bins, weight is not None),
            *getattr(scan, "_check_aggs")(m, True)]  # noqa: B009 - the one check, per column
    if weight is not None:
        aggs += getattr(boundary, "_weight_aggs")(weight)  # noqa: B009 - the one weight check
    prepared = getattr(scan, "_prepared")(lf, m, a).with_columns(  # noqa: B009 - the one
        _bins(len(m.exprs), edges))  # preparation of membership columns, then the bins
    table = prepared.group_by(to_expr(known).cast(pl.String).alias("known"), ARGMAX).agg(aggs)
    known_expr = to_expr(known)
    bound = [*m.bound, *(() if known_expr.meta.is_column() else ((known_expr, "known"),)),
             *(() if weight is None or weight.meta.is_column() else ((weight, "sample_weight"),))]
    table = boundary.values_hidden(table, bound, lf)  # a failed cast shows no value
    return CalibrationTable(table, m, name_of(known), tuple(float(e) for e in edges), a)


@borrow(scan.membership_from_labels, sections=("Warns",))
def check_calibration_table(df: pl.DataFrame, t: CalibrationTable) -> pl.DataFrame:
    """Raise the typed error of the first problem the scan counted; apply ``null_groups``.

    Parameters
    ----------
    df : pl.DataFrame
        The collected table.
    t : CalibrationTable
        What it was counted with.

    Returns
    -------
    pl.DataFrame
        ``df``, without the rows of null probabilities when ``null_groups="drop"``.

    Raises
    ------
    InvalidMembershipError
        A probability NaN, infinite or outside [0, 1]; a row whose probabilities do not sum
        to 1 (or, with ``normalize``, sum to 0).
    NullGroupError
        A null probability with ``null_groups="raise"``.
    InvalidWeightError
        A weight null, NaN, infinite or negative.
    UnknownGroupError
        A known value that is not a declared group (the values and their row counts).

    Examples
    --------
    >>> df = pl.DataFrame({"p_a": [0.9, 0.3], "p_b": [0.1, 0.7], "self": ["A", "C"]})
    >>> t = calibration_table(df, membership={"g": {"A": "p_a", "B": "p_b"}}, known="self")
    >>> check_calibration_table(t.frame.collect(), t)
    Traceback (most recent call last):
    ...
    polars_fair.errors.UnknownGroupError: known column 'self' holds 1 row(s) whose value is ...
    """
    m = t.membership
    df = getattr(scan, "_validate")(df.rename({"rows": "n"}), m, t.audit, None)  # noqa: B009
    df = df.rename({"n": "rows"})
    if t.weighted:
        boundary.check_weights(df, t.audit)
    declared = {str(g) for g in m.groups}
    outside = (df.filter(pl.col("known").is_not_null() & ~pl.col("known").is_in(declared))
               .group_by("known").agg(pl.col("rows").sum())
               .sort(["rows", "known"], descending=[True, False]))
    # names, dates of birth: counts only (8 values or more, or 3 or more of one row each)
    single = boundary.too_fine(outside.rename({"rows": "n"}), ["known"], int(df["rows"].sum()))[1]
    if outside.height >= boundary.MIN_LEVELS_PER_ROW_CHECK or single:
        raise E.UnknownGroupError(E.KNOWN_OUTSIDE_GROUPS_HIDDEN.format(
            column=t.known, count=int(outside["rows"].sum()), attribute=m.attribute,
            groups=E.show_values(m.groups), levels=outside.height))
    if outside.height:
        raise E.UnknownGroupError(E.KNOWN_OUTSIDE_GROUPS.format(
            column=t.known, count=int(outside["rows"].sum()), attribute=m.attribute,
            groups=E.show_values(m.groups), values=E.show_values(outside["known"]),
            counts=E.show_values(outside["rows"])))
    return df
