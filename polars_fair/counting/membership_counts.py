"""Count tables from the membership table: the weighted and the argmax estimators (issue 24).

Both read the membership table of :mod:`polars_fair.counting.membership` (one scan of the
rows) and give a count table, so every classification analysis, engine and ``from_counts``
works on them unchanged.

``"weighted"`` (the default; SolasAI's estimator): each row counts its probability in every
group. For group k within a cell of the ``by`` keys, ``tp = Σ w·p_k`` over the rows with
``y_true = 1`` and ``y_pred = 1`` (``fp``, ``fn``, ``tn`` likewise), ``weight_sum = Σ w·p_k``,
``n`` the rows with ``p_k > 0`` (Int64), and two columns follow ``weight_sum``:

* ``n_effective`` = (Σ w·p_k)² / Σ (w·p_k)², Kish's effective sample size (Float64).
  Intervals and tests read it instead of ``n`` (:func:`polars_fair.analyses.uncertainty.
  row_scale`): a person counted with probability 0.3 is not a whole observation. Support
  flags and ``reference="largest"`` read the expected size in rows bounded by it
  (:func:`polars_fair.core.reference.support_rows`): n_eff does not change when every
  probability is scaled, the expected size does.
* ``attenuation`` = Var(p_k) / (μ_k (1 − μ_k)), with μ_k = Σ w·p_k / Σ w and Var(p_k) =
  Σ w·p_k² / Σ w − μ_k² over the rows of the cell (Float64). Chen, Kallus, Mao, Svacha &
  Udell (FAT* 2019) show that, when the outcome depends on the true group only, the weighted
  estimate of a difference between two groups is the true difference shrunk by about this
  factor (1 for crisp, 0/1 memberships; near 0 for uninformative ones). Crisp cells are 1 by
  definition where the ratio is 0/0: μ_k = 1 (every row of the cell in the group with
  p = 1, so Var(p_k) = μ_k (1 − μ_k) = 0); null only where the group has no weight in the
  cell (``weight_sum`` 0: every p_k of the cell is 0, or every row with p_k > 0 weighs 0, so
  μ_k is 0 or 0/0 and the factor is undefined). Such a group's rates are null too (a zero
  denominator) and the report's ``finding`` for it reads "insufficient support".
* ``row_weight_sum`` = Σ w over the rows counted in ``n`` (p_k > 0; Float64), with
  ``sample_weight`` only: the support size rescales ``weight_sum`` by n / ``row_weight_sum``,
  so it is in rows whatever the weights' scale (weights of 1/N would otherwise make every
  group tiny). Without sample weights it would be ``n``, and the column is absent.

Rows whose probabilities hold a null form the attribute's missing group (``null_groups=
"keep"``): counted as a crisp group, ``n_effective`` = (Σ w)² / Σ w², ``attenuation`` 1
(null when its weight sums to 0).
A declared group no row may belong to in a cell of the ``by`` keys (every ``p_k`` 0 there; for
``"argmax"`` no row most likely in it) keeps its row, as a declared ``pl.Enum`` level of a
crisp attribute does (:func:`with_empty_groups`): ``n`` 0, zero cells, ``weight_sum`` and
``n_effective`` 0, so its rates are null. So does a group whose rows all weigh 0
(``weight_sum`` 0): ``n_effective`` is 0, never NaN.

``"argmax"`` (Jurity without surrogates): each row in its most likely group (ties to the group
declared first), the crisp count table of ``__pf_argmax`` renamed to the attribute; with
sample weights it carries ``n_positive_weight`` as the crisp weighted table does, so a row of
weight 0 is no observation for support flags and intervals.

The attribute is the first key, then the ``by`` keys; rows sorted by the keys, nulls last.

Why a module of its own: the estimators are the one place where the membership table becomes a
count table; the scan and its schema stay in :mod:`polars_fair.counting.membership`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS, Audit, support_size
from polars_fair.counting._membership_sql import sql_membership_label_table
from polars_fair.counting.boundary import count_schema
from polars_fair.counting.membership import (
    ARGMAX,
    ROW_WEIGHTS,
    SCALE,
    Membership,
    membership_from_labels,
    membership_label_table,
    resolve_membership,
    weight_scale,
)

__all__ = ["MEMBERSHIP_COLUMNS", "argmax_counts", "label_scan", "membership_counts",
           "refuse_weighted_membership", "scaled_labels", "support_size", "weighted_counts",
           "with_empty_groups"]

#: The columns the weighted estimator adds after ``weight_sum`` (the last with sample weights).
MEMBERSHIP_COLUMNS = ("n_effective", "attenuation", "row_weight_sum")
_CELLS = {"tp": (1, 1), "fp": (0, 1), "fn": (1, 0), "tn": (0, 0)}


def refuse_weighted_membership(names: Sequence[str], analysis: str, why: str) -> None:
    """Refuse the weighted estimator's count table where an analysis reads ``n`` as rows.

    Such a table (it has ``n_effective``) counts a row in every group it may belong to, so
    an analysis that sums groups into shares or coarser patterns, or tests counts of rows,
    would count people twice. The argmax estimator's table is crisp and is accepted.

    Parameters
    ----------
    names : sequence of str
        The count table's columns.
    analysis : str
        The analysis, as the message names it.
    why : str
        What the analysis does with rows (:data:`polars_fair.errors.MEMBERSHIP_WEIGHTED_TABLE`).

    Raises
    ------
    InvalidArgumentError
        ``names`` holds ``n_effective``.

    Examples
    --------
    >>> refuse_weighted_membership(["g", "n", "weight_sum"], "availability", "it tests rows")
    >>> refuse_weighted_membership(["g", "n", "n_effective"], "availability", "it tests rows")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: availability does not take a weighted membership ...
    """
    if "n_effective" in names:
        raise E.InvalidArgumentError(
            E.MEMBERSHIP_WEIGHTED_TABLE.format(analysis=analysis, why=why),
            cli_message=E.CLI_MEMBERSHIP_WEIGHTED_TABLE.format(
                analysis=analysis.replace("_", "-"), why=why))


def label_scan(engine: Any, m: Membership, a: Audit, families: Sequence[str], *,
               detail: bool, scale: float = 1.0) -> pl.LazyFrame:
    """The membership table's scan on the engine that holds the rows (one aggregation).

    Parameters
    ----------
    engine : Engine
        Polars (:func:`polars_fair.counting.membership.membership_label_table`), DuckDB or
        Spark (the same sums in SQL: :func:`polars_fair.counting._membership_sql.
        sql_membership_label_table`).
    m : Membership
        The parsed membership arguments.
    a : Audit
        The resolved call.
    families : sequence of str
        The sum families.
    detail : bool
        Count bad values per probability column too.
    scale : float, default 1.0
        The power of two to multiply the weights by
        (:func:`polars_fair.counting.membership.weight_scale`).

    Returns
    -------
    pl.LazyFrame
        The scan, unvalidated (:func:`polars_fair.counting.membership.membership_from_labels`).

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> from polars_fair.counting.membership import parse_membership
    >>> from polars_fair.counting.tables import PolarsEngine
    >>> lf = pl.LazyFrame({"y_pred": [1, 1], "pa": [0.25, 1.0], "pb": [0.75, 0.0]})
    >>> m = parse_membership({"g": {"a": "pa", "b": "pb"}})
    >>> scan = label_scan(PolarsEngine(lf), m, resolve(lf.collect_schema(), None, y_true=None),
    ...                   ("s",), detail=False)
    >>> scan.select("n", "s_0", "s_1").sort("s_0").collect().rows()
    [(1, 0.25, 0.75), (1, 1.0, 0.0)]
    """
    lf = getattr(engine, "lf", None)
    if isinstance(lf, pl.LazyFrame):
        return membership_label_table(lf, m, a, families, detail=detail, scale=scale)
    return sql_membership_label_table(engine, a, m, families, detail=detail, scale=scale)


def scaled_labels(labels: pl.DataFrame, scan: Any) -> tuple[pl.DataFrame, float]:
    """The scan again on scaled weights when their squares leave the float range.

    Parameters
    ----------
    labels : pl.DataFrame
        The first scan, collected.
    scan : callable
        ``scan(scale)`` runs the same scan on the weights times ``scale`` (lazy).

    Returns
    -------
    labels : pl.DataFrame
        ``labels``, or the scan on scaled weights
        (:func:`polars_fair.counting.membership.weight_scale`: paid only by weights whose
        total lies outside [2⁻⁴⁰⁰, 2⁵⁰⁰]).
    scale : float
        The power of two the weights of ``labels`` were multiplied by (1.0: none).

    Examples
    --------
    >>> scaled_labels(pl.DataFrame({"w": [2.0]}), None)
    (shape: (1, 1)
    ┌─────┐
    │ w   │
    │ --- │
    │ f64 │
    ╞═════╡
    │ 2.0 │
    └─────┘, 1.0)
    """
    scale = weight_scale(labels)
    if scale == 1.0:
        return labels, scale
    return scan(scale).collect(), scale


def _unscaled(out: pl.DataFrame, table: pl.DataFrame, sums: Sequence[str]) -> pl.DataFrame:
    """``out`` with the weight sums ``sums`` back on the weights as given (÷ the table's c)."""
    if SCALE not in table.columns or not table.height:
        return out
    scale = float(table[SCALE][0])
    if scale == 1.0:
        return out
    return out.with_columns(pl.col(c) / scale for c in sums if c in out.columns)


def _cell(value: pl.Expr, labelled: bool, y: int, p: int) -> pl.Expr:
    """``value`` summed over the membership-table rows of one confusion cell."""
    yes = pl.col("y_pred") == p
    if labelled:
        yes = yes & (pl.col("y_true") == y)
    elif y == 1:  # without labels every row is a negative label
        return pl.lit(0.0)
    return value.filter(yes).sum()


def _weighted_schema(table: pl.Schema, m: Membership, keys: list[str],
                     sample_weights: bool) -> pl.Schema:
    out = count_schema([(m.attribute, m.key_dtype), *((k, table[k]) for k in keys)], True)
    extra = MEMBERSHIP_COLUMNS if sample_weights else MEMBERSHIP_COLUMNS[:-1]
    return pl.Schema([*out.items(), *((c, pl.Float64()) for c in extra)])


def weighted_counts(table: pl.DataFrame, m: Membership, keys: list[str]) -> pl.DataFrame:
    """The weighted estimator's count table from a membership table (see the module).

    Parameters
    ----------
    table : pl.DataFrame
        A membership table with the families ``c``, ``s``, ``g``, ``h``
        (:func:`polars_fair.counting.membership.membership_from_labels`).
    m : Membership
        The attribute and its groups.
    keys : list of str
        The ``by`` keys.

    Returns
    -------
    pl.DataFrame
        The attribute, the keys, ``n`` (Int64 rows with p > 0), ``tp, fp, fn, tn`` and
        ``weight_sum`` (Float64 sums of w·p), ``n_effective`` and ``attenuation`` (Float64)
        [, ``row_weight_sum`` (Float64, when ``table`` has the sums ``v``: sample weights)],
        sorted by the keys (nulls last).

    Examples
    --------
    >>> from polars_fair.counting.membership import parse_membership
    >>> t = pl.DataFrame({"__pf_argmax": [0, 1], "y_true": [1, 0], "y_pred": [1, 1],
    ...                   "n": [1, 1], "w": [1.0, 1.0], "w2": [1.0, 1.0], "c_0": [1, 1],
    ...                   "c_1": [0, 1], "s_0": [1.0, 0.25], "s_1": [0.0, 0.75],
    ...                   "g_0_0": [1.0, 0.0625], "g_1_1": [0.0, 0.5625],
    ...                   "h_0_0": [1.0, 0.0625], "h_1_1": [0.0, 0.5625]})
    >>> m = parse_membership({"g": {"a": "pa", "b": "pb"}})
    >>> weighted_counts(t, m, []).select("g", "n", "tp", "fp", "n_effective").rows()
    [('a', 2, 1.0, 0.25, 1.4705882352941178), ('b', 1, 0.0, 0.75, 1.0)]
    """
    schema = _weighted_schema(table.schema, m, keys, f"{ROW_WEIGHTS}_0" in table.columns)
    labelled = "y_true" in table.columns
    known = table.filter(pl.col(ARGMAX).is_not_null())
    parts = []
    for i, group in enumerate(m.groups):
        s, w = pl.col(f"s_{i}"), pl.col("w")
        aggs = [pl.col(f"c_{i}").sum().alias("n"),
                *(_cell(s, labelled, y, p).alias(c) for c, (y, p) in _CELLS.items()),
                s.sum().alias("weight_sum"),
                (s.sum() ** 2 / pl.col(f"h_{i}_{i}").sum()).alias("n_effective"),
                (s.sum() / w.sum()).alias("__pf_mu"), (pl.col(f"g_{i}_{i}").sum() / w.sum())
                .alias("__pf_m2"),
                *([pl.col(f"{ROW_WEIGHTS}_{i}").sum().alias("row_weight_sum")]
                  if "row_weight_sum" in schema else [])]
        part = known.group_by(keys).agg(aggs) if keys else known.select(aggs)
        mu = pl.col("__pf_mu")
        parts.append(part.with_columns(
            pl.lit(group, dtype=m.key_dtype).alias(m.attribute),
            # no weight in the group (Σ w·p = 0; μ is 0, or 0/0 = NaN where the cell's rows
            # all weigh 0, which Polars orders above 1): null, never the crisp 1 below
            pl.when(pl.col("weight_sum") <= 0).then(None)
            # crisp where every row is in the group (μ = 1: Var(p) = μ(1 − μ) = 0): 1
            .when(mu >= 1).then(1.0).otherwise((pl.col("__pf_m2") - mu * mu)
                                               / (mu * (1 - mu))).alias("attenuation")))
    missing = table.filter(pl.col(ARGMAX).is_null())
    if missing.height:
        w = pl.col("w")
        aggs = [pl.col("n").sum(), *(_cell(w, labelled, y, p).alias(c)
                                     for c, (y, p) in _CELLS.items()),
                w.sum().alias("weight_sum"), (w.sum() ** 2 / pl.col("w2").sum())
                .alias("n_effective"),
                *([w.sum().alias("row_weight_sum")] if "row_weight_sum" in schema else [])]
        part = missing.group_by(keys).agg(aggs) if keys else missing.select(aggs)
        parts.append(part.with_columns(  # a crisp group: attenuation 1 (null without weight)
            pl.lit(None, dtype=m.key_dtype).alias(m.attribute),
            pl.when(pl.col("weight_sum") > 0).then(1.0).alias("attenuation")))
    names = schema.names()
    out = pl.concat([p.with_columns(
        pl.col(c).cast(t) for c, t in schema.items()).select(names) for p in parts])
    undefined = (pl.col("attenuation").is_nan() | pl.col("attenuation").is_infinite())
    out = out.with_columns(
        pl.when(undefined).then(None).otherwise(pl.col("attenuation")).alias("attenuation"),
        # no rows, or rows of zero weight (0² / 0): an empty group's 0, never NaN
        pl.when(pl.col("weight_sum") > 0).then(pl.col("n_effective")).otherwise(0.0)
        .alias("n_effective"))
    # n_effective and attenuation are ratios of sums (the scale cancels); the sums are not
    out = _unscaled(out, table, [*_CELLS, "weight_sum", "row_weight_sum"])
    return with_empty_groups(out, table, m, keys)


def with_empty_groups(out: pl.DataFrame, table: pl.DataFrame, m: Membership,
                      keys: list[str]) -> pl.DataFrame:
    """Every declared group in every cell of the ``by`` keys, as a crisp ``pl.Enum`` level is.

    A group no row may belong to in a cell (every probability 0; for ``"argmax"`` no row most
    likely in it) has the row a declared crisp level has: ``n`` 0, zero cells, ``weight_sum``
    and ``n_effective`` 0, ``attenuation`` null; so every rate of it is null (a zero
    denominator) and no rule chooses it as the reference.

    Parameters
    ----------
    out : pl.DataFrame
        A count table of :func:`weighted_counts` or :func:`argmax_counts`.
    table : pl.DataFrame
        The membership table it was made from (its cells of the ``by`` keys).
    m : Membership
        The attribute and its declared groups.
    keys : list of str
        The ``by`` keys.

    Returns
    -------
    pl.DataFrame
        ``out`` with the missing (group, cell) rows, sorted by the keys (nulls last).

    Examples
    --------
    >>> from polars_fair.counting.membership import parse_membership
    >>> m = parse_membership({"g": {"a": "pa", "b": "pb"}}, "argmax")
    >>> out = pl.DataFrame({"g": ["a"], "n": [2], "tp": [1], "fp": [0], "fn": [1], "tn": [0]})
    >>> with_empty_groups(out, pl.DataFrame({"n": [2]}), m, []).rows()
    [('a', 2, 1, 0, 1, 0), ('b', 0, 0, 0, 0, 0)]
    """
    grid = pl.DataFrame({m.attribute: pl.Series(list(m.groups), dtype=m.key_dtype)})
    if keys:
        grid = grid.join(table.select(keys).unique(), how="cross")
    empty = grid.join(out, on=[m.attribute, *keys], how="anti", nulls_equal=True)
    counted = [c for c in out.columns if c not in (m.attribute, *keys)]
    zeros = empty.with_columns(
        pl.lit(None if c == "attenuation" else 0, dtype=out.schema[c]).alias(c)
        for c in counted)
    return pl.concat([out, zeros.select(out.columns)]).sort([m.attribute, *keys],
                                                            nulls_last=True)


def argmax_counts(table: pl.DataFrame, m: Membership, keys: list[str],
                  weighted: bool) -> pl.DataFrame:
    """The argmax estimator's count table: each row in its most likely group.

    Parameters
    ----------
    table : pl.DataFrame
        A membership table (``n``, ``w`` suffice; with ``n_positive_weight``, counted with
        sample weights, the count table carries it).
    m : Membership
        The attribute and its groups.
    keys : list of str
        The ``by`` keys.
    weighted : bool
        Whether the call gave ``sample_weight`` (Float64 cells and ``weight_sum``).

    Returns
    -------
    pl.DataFrame
        A crisp count table: the attribute (the most likely group; null for the missing
        group), the keys, ``n, tp, fp, fn, tn`` [, ``weight_sum`` [, ``n_positive_weight``
        (Int64 rows of positive weight, as the crisp weighted table)]], sorted by the keys.

    Examples
    --------
    >>> from polars_fair.counting.membership import parse_membership
    >>> t = pl.DataFrame({"__pf_argmax": [0, 1, 1], "y_true": [1, 0, 1], "y_pred": [1, 1, 0],
    ...                   "n": [2, 1, 3], "w": [2.0, 1.0, 3.0]})
    >>> m = parse_membership({"g": {"a": "pa", "b": "pb"}})
    >>> argmax_counts(t, m, [], weighted=False).rows()
    [('a', 2, 2, 0, 0, 0), ('b', 4, 0, 1, 3, 0)]
    """
    positive = weighted and POSITIVE_WEIGHT_ROWS in table.columns
    schema = count_schema([(m.attribute, m.key_dtype), *((k, table.schema[k]) for k in keys)],
                          weighted, positive_rows=positive)
    labelled = "y_true" in table.columns
    value = pl.col("w") if weighted else pl.col("n")
    group = pl.col(ARGMAX).replace_strict(list(range(len(m.groups))), list(m.groups),
                                          return_dtype=m.key_dtype)
    aggs = [pl.col("n").sum(), *(_cell(value, labelled, y, p).alias(c)
                                 for c, (y, p) in _CELLS.items()),
            *([pl.col("w").sum().alias("weight_sum")] if weighted else []),
            *([pl.col(POSITIVE_WEIGHT_ROWS).sum()] if positive else [])]
    out = table.with_columns(group.alias(m.attribute)).group_by([m.attribute, *keys]).agg(aggs)
    out = out.with_columns(pl.col(c).cast(t) for c, t in schema.items()).select(schema.names())
    if weighted:
        out = _unscaled(out, table, [*_CELLS, "weight_sum"])
    return with_empty_groups(out, table, m, keys)


def membership_counts(engine: Any, a: Audit, m: Membership) -> tuple[pl.LazyFrame, list[str]]:
    """The lazy count table of an estimator, from one scan of the rows by ``engine``.

    Parameters
    ----------
    engine : Engine
        Where the rows live: Polars (:func:`polars_fair.counting.membership.
        membership_label_table`), DuckDB or Spark (the same sums in one SQL aggregation).
    a : Audit
        The resolved call (its ``by`` keys, labels, weights).
    m : Membership
        The parsed membership arguments (``"weighted"`` or ``"argmax"``).

    Returns
    -------
    counts : pl.LazyFrame
        :func:`weighted_counts` or :func:`argmax_counts`, validated at collect time.
    keys : list of str
        The attribute, then the ``by`` keys.

    Raises
    ------
    InvalidArgumentError
        ``membership_estimator="regression"`` (``proxy_report`` gives it).
    ColumnNotFoundError, InvalidMembershipError
        At once: :func:`polars_fair.counting.membership.resolve_membership`.
    InvalidMembershipError, NullGroupError, InvalidLabelError, InvalidWeightError
        At collect time: :func:`polars_fair.counting.membership.membership_from_labels`.

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> from polars_fair.counting.membership import parse_membership
    >>> from polars_fair.counting.tables import PolarsEngine
    >>> lf = pl.LazyFrame({"y_true": [1, 0], "y_pred": [1, 1], "pa": [0.25, 1.0],
    ...                    "pb": [0.75, 0.0]})
    >>> m = parse_membership({"g": {"a": "pa", "b": "pb"}}, "argmax")
    >>> counts, keys = membership_counts(PolarsEngine(lf), resolve(lf.collect_schema(), None), m)
    >>> keys, counts.collect().rows()
    (['g'], [('a', 1, 0, 1, 0, 0), ('b', 1, 1, 0, 0, 0)])
    """
    if m.estimator == "regression":
        raise E.InvalidArgumentError(E.MEMBERSHIP_REGRESSION,
                                     cli_message=E.CLI_MEMBERSHIP_REGRESSION)
    resolve_membership(engine.schema(), m, a)
    weighted = m.estimator == "weighted"
    # v (Σ w over the rows of each group): the support size with sample weights only
    families = ("c", "s", "g", "h", *([ROW_WEIGHTS] if a.weight is not None else [])) \
        if weighted else ()

    # the per-column counts of bad values only name an error's columns: a second scan on
    # the error path finds them, so the one scan of a valid input stays lean
    labels = label_scan(engine, m, a, families, detail=False)
    key_schema = labels.collect_schema()
    if weighted:
        schema = _weighted_schema(key_schema, m, a.keys, a.weight is not None)
    else:
        schema = count_schema([(m.attribute, m.key_dtype),
                               *((k, key_schema[k]) for k in a.keys)], a.weight is not None,
                              positive_rows=True)

    def derive(df: pl.DataFrame) -> pl.DataFrame:
        scale = 1.0
        if weighted:  # Kish's size squares the weights: scaled when they would leave range
            df, scale = scaled_labels(df, lambda c: label_scan(engine, m, a, families,
                                                               detail=False, scale=c))
        table = membership_from_labels(
            df, m, a, families, positive_rows=not weighted, scale=scale if weighted else None,
            rescan=lambda: label_scan(engine, m, a, (), detail=True).collect())
        return (weighted_counts(table, m, a.keys) if weighted
                else argmax_counts(table, m, a.keys, a.weight is not None))

    return labels.map_batches(derive, schema=schema), [m.attribute, *a.keys]
