"""The membership table of the proxy report: every sum family, from one scan of the rows.

The proxy report (:mod:`polars_fair.analyses.proxy_report`) reads the three estimators off one
membership table (:mod:`polars_fair.counting.membership`) with all its families (``s``, ``g``,
``h`` for the weighted and regression estimates, ``t``, ``u`` for the regression's sandwich
variance). This module makes that table from the rows: the call is resolved once (the count
arguments of :func:`polars_fair.counting.tables.count_table`), the membership arguments are
checked against the schema, and the scan is :func:`polars_fair.counting.membership.
membership_label_table`, validated at collect time by :func:`polars_fair.counting.membership.
membership_from_labels`.

Why a module of its own: the scan and its schema belong to
:mod:`polars_fair.counting.membership`; this is only the way from rows to the table with every
family that the proxy report needs.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core.limits import LIMITS, with_limits
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS, By
from polars_fair.counting import tables
from polars_fair.counting.boundary import values_hidden
from polars_fair.counting.membership import (
    ARGMAX,
    FAMILIES,
    ROW_WEIGHTS,
    SCALE,
    Membership,
    MembershipTable,
    membership_from_labels,
    parse_membership,
    resolve_membership,
    sum_columns,
)
from polars_fair.counting.membership_counts import label_scan, scaled_labels

__all__ = ["proxy_membership", "proxy_table"]


@with_limits
def proxy_membership(membership: Any, normalize: bool = False) -> Membership:
    """The proxy report's ``membership=``, parsed and bounded (no data is read).

    The regression estimator's sandwich variance needs, per cell, every product of four
    probabilities: (G+3 choose 4) sums for G groups (1,365 at 12, 20,475 at 25), so the groups
    are bounded (``membership_groups`` in :data:`polars_fair.core.limits.LIMITS`). The command
    line calls this before it reads the input, :func:`proxy_table` before it builds the scan.

    Parameters
    ----------
    membership : mapping
        One attribute name -> (group value -> probability column or expression).
    normalize : bool, default False
        Divide each row's probabilities by their sum.

    Returns
    -------
    Membership
        The parsed argument.

    Raises
    ------
    InvalidArgumentError
        No ``membership``, a malformed one, more than one attribute.
    SizeLimitError
        More than |limit:membership_groups| groups.

    Examples
    --------
    >>> proxy_membership({"g": {"a": "p_a", "b": "p_b"}}).groups
    ('a', 'b')
    """
    m = parse_membership(membership, "weighted", normalize)
    if m is None:
        raise E.InvalidArgumentError(E.PROXY_NEEDS_MEMBERSHIP.format(value=membership))
    bound = LIMITS["membership_groups"]  # the u family grows as G^4: refused before any work
    if len(m.groups) > bound.limit:
        raise E.SizeLimitError(E.MEMBERSHIP_GROUPS_TOO_MANY.format(
            attribute=m.attribute, size=len(m.groups), limit=bound.limit, why=bound.why))
    return m


@with_limits
def proxy_table(frame: Any, by: By = None, *, membership: Any, normalize: bool = False,
                **args: Any) -> MembershipTable:
    """The lazy membership table of the rows with every sum family (one scan).

    With ``sample_weight`` also ``v`` (:data:`polars_fair.counting.membership.ROW_WEIGHTS`:
    Σ w over each group's rows), which the support size reads.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows (:func:`polars_fair.counting.tables.engine_of`); on Spark and DuckDB the same
        sums run in one SQL aggregation.
    by : str, expression or list of them, optional
        The ordinary attributes crossed with the membership groups.
    membership : mapping
        One attribute name -> (group value -> probability column or expression).
    normalize : bool, default False
        Divide each row's probabilities by their sum.
    **args : Any
        The count arguments ``y_true``, ``y_pred``, ``pos_label``, ``sample_weight``,
        ``null_groups`` (:class:`polars_fair.core.spec.CountArgs`).

    Returns
    -------
    MembershipTable
        The lazy table (validated when collected) and its metadata.

    Raises
    ------
    InvalidArgumentError
        No ``membership``, a malformed one, more than one attribute; a bad count argument; a
        probability given as an expression on Spark or DuckDB (column names there).
    SizeLimitError
        More than |limit:membership_groups| membership groups (:func:`proxy_membership`),
        before any work.
    ColumnNotFoundError, InvalidMembershipError
        A missing or non-numeric probability column (at once); invalid probabilities, labels
        or weights when the table is collected.

    Examples
    --------
    >>> df = pl.DataFrame({"y_pred": [1, 0], "p_a": [0.25, 1.0], "p_b": [0.75, 0.0]})
    >>> t = proxy_table(df, membership={"g": {"a": "p_a", "b": "p_b"}}, y_true=None)
    >>> t.frame.collect().select("__pf_argmax", "y_pred", "s_0", "u_1_1_1_1").rows()
    [(0, 0, 1.0, 0.0), (1, 1, 0.25, 0.31640625)]
    """
    m = proxy_membership(membership, normalize)
    engine, a = getattr(tables, "_resolve")(  # noqa: B009 - the one resolution of a count call
        tables.engine_of(frame), by, args, False)
    resolve_membership(engine.schema(), m, a)
    lf = getattr(engine, "lf", None)  # Polars; DuckDB and Spark run the same sums in SQL
    families = (*FAMILIES, *([ROW_WEIGHTS] if a.weight is not None else []))
    labels = label_scan(engine, m, a, families, detail=True)
    key_schema = labels.collect_schema()
    keys = [*a.keys, ARGMAX, *(["y_true"] if a.y_true is not None else []), "y_pred"]
    schema = pl.Schema({
        **{k: key_schema[k] for k in a.keys}, ARGMAX: pl.Int64(),
        **({"y_true": pl.Int8()} if a.y_true is not None else {}), "y_pred": pl.Int8(),
        **{c: pl.Int64() if c == "n" or c.startswith("c_") else pl.Float64()
           for c in sum_columns(len(m.groups), families)},
        # with sample weights: the rows of positive weight (the argmax estimator's support)
        **({POSITIVE_WEIGHT_ROWS: pl.Int64()} if a.weight is not None else {}),
        SCALE: pl.Float64(),  # the weights' power-of-two scale (weight_scale; 1.0: none)
    })
    assert list(schema)[:len(keys)] == keys

    def derive(df: pl.DataFrame) -> pl.DataFrame:
        df, scale = scaled_labels(df, lambda c: label_scan(engine, m, a, families, detail=True,
                                                           scale=c))
        return membership_from_labels(df, m, a, families, positive_rows=True, scale=scale)

    table = labels.map_batches(derive, schema=schema)
    table = values_hidden(table, (*a.bound, *m.bound),  # a failed cast shows no value
                          lf if isinstance(lf, pl.LazyFrame) else None)
    return MembershipTable(table, list(a.keys), m, a.weight is not None, a.y_true is not None,
                           families)

