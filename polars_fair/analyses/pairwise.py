"""Pairwise disparities between every two groups: the OFI and DI heatmaps of Briscoe et al.

Every function here reads a count table (key columns, then ``n, tp, fp, fn, tn`` and, when
weighted, ``weight_sum``), never rows. :func:`pairwise_from_counts` returns the long form (one
row per ordered pair of groups, lazily); :func:`pairwise_matrix` turns one metric of it into the
square matrix that a heatmap draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.analyses.report import with_rates
from polars_fair.analyses.runner import on_small_table
from polars_fair.core.labels import group_label
from polars_fair.core.limits import LIMITS, check_ceiling
from polars_fair.core.options import DEFAULTS
from polars_fair.core.registry import PAIR_METRICS
from polars_fair.core.spec import check_int, names

__all__ = ["DEFAULT_MAX_PAIRS", "PAIRWISE_METRICS", "pairwise_from_counts", "pairwise_matrix"]

#: The most ordered pairs :func:`pairwise_from_counts` builds unless ``max_pairs`` raises it
#: (1,000 groups make 999,000 pairs).
DEFAULT_MAX_PAIRS = DEFAULTS.max_pairs

#: Every metric :func:`pairwise_from_counts` can compute, in a fixed order.
PAIRWISE_METRICS: tuple[str, ...] = tuple(PAIR_METRICS)

UNKNOWN_METRIC = "unknown pairwise metric(s) {unknown}; the metrics are: {valid}"
REPEATED_METRIC = "pairwise metric(s) requested more than once: {repeated}"
BAD_METRICS = "metrics must be a metric name or a sequence of names, got {value!r} ({type})"
NO_METRICS = "metrics names no metric; pass at least one of PAIRWISE_METRICS (for example 'ofi')"
MISSING_METRIC_COLUMN = (
    "metric {metric!r} is not a column of the pairwise table; its columns are: {available}"
)
NO_KEYS = "a pairwise matrix needs at least one attribute in keys, got []"
CLASHING_LABELS = (
    "group labels {labels} are not unique or clash with the key columns {keys}; "
    "they cannot all be column names of the matrix"
)

_P = "__pf_"  # prefix of internal columns


def _side(rate: str, side: str) -> pl.Expr:
    return pl.col(f"{_P}{rate}_{side}")


def _metric_expr(metric: str) -> pl.Expr:
    """The registry's formula of a pair metric over the two sides' rates."""
    entry = PAIR_METRICS[metric]
    expr = entry.expr(lambda r: _side(r, "i"), lambda r: _side(r, "j"))
    return expr.cast(pl.Float64).alias(metric)


def _check_metrics(metrics: Any) -> list[str]:
    wanted = names(metrics)
    if wanted is None:
        raise E.InvalidArgumentError(
            BAD_METRICS.format(value=metrics, type=type(metrics).__name__))
    if not wanted:
        raise E.InvalidArgumentError(NO_METRICS)
    unknown = [m for m in wanted if m not in PAIRWISE_METRICS]
    if unknown:
        raise E.InvalidArgumentError(
            UNKNOWN_METRIC.format(
                unknown=E.show_values(unknown), valid=E.show_values(PAIRWISE_METRICS, limit=60)
            )
        )
    repeated = sorted({m for m in wanted if wanted.count(m) > 1})
    if repeated:
        raise E.InvalidArgumentError(REPEATED_METRIC.format(repeated=E.show_values(repeated)))
    return wanted


def pairwise_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    metrics: str | Sequence[str] = DEFAULTS.metrics,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> pl.LazyFrame:
    r"""Disparity metrics for every ordered pair of groups ``(i, j)``, ``i != j``.

    The long form of the pairwise heatmaps of Briscoe et al., "Facets of Disparate Impact:
    Evaluating Legally Consistent Bias in Machine Learning" (the OFI paper), Fig. 2/3:

    * ``ofi`` (Objective Fairness Index, OFI paper eq. 5):
      :math:`OFI(i, j) = B_i - B_j`, with the marginal benefit :math:`B = (FP - FN) / n`;
      in [-2, 2], always defined.
    * ``disparate_impact`` (OFI paper Def. 2.1; the disparate impact ratio of
      29 CFR 1607.4(D)): :math:`DI(i, j) = b_i / b_j`, with the selection rate
      :math:`b = (TP + FP) / n`; null when :math:`b_j = 0`.
    * ``<rate>_difference``: :math:`r_i - r_j` for every rate ``r`` of
      :data:`polars_fair.core.registry.RATE_NAMES` (``selection_rate``, ``tpr``, ``fpr``, ``ppv``,
      ..., ``marginal_benefit``); null when either rate is undefined. ``tpr_difference`` is the
      equal-opportunity gap of Hardt et al. (2016), ``selection_rate_difference`` the
      demographic-parity gap (Fairlearn's definitions, for one pair).
    * ``<rate>_ratio``: :math:`r_i / r_j`; null when :math:`r_j` is 0 or either rate is
      undefined. ``selection_rate_ratio`` equals ``disparate_impact``. ``marginal_benefit_ratio``
      keeps the sign of the quotient (B may be negative).
    * ``average_odds_difference``: :math:`\tfrac12[(FPR_i - FPR_j) + (TPR_i - TPR_j)]`, in
      [-1, 1], and ``average_absolute_odds_difference``:
      :math:`\tfrac12[|FPR_i - FPR_j| + |TPR_i - TPR_j|]`, in [0, 1] (AIF360's
      ``ClassificationMetric``); null when either rate is undefined.

    Every metric's formula and source is its entry of
    :data:`polars_fair.core.registry.PAIR_METRICS`.

    With a weighted count table the rates use ``weight_sum`` as the population.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table: the key columns, then ``n, tp, fp, fn, tn`` (and ``weight_sum``), as built
        by :func:`polars_fair.counting.tables.count_table` or ``lf.fair.confusion``.
    keys : sequence of str
        The key columns of ``counts`` (``[]`` for the whole population: one group, no pairs).
    metrics : str or sequence of str, default ``("ofi", "disparate_impact")``
        The metrics to compute, in the order of the output columns; any of
        :data:`PAIRWISE_METRICS`.
    max_pairs : int, default 1000000
        The most ordered pairs to build: ``k`` groups make ``k (k - 1)`` pairs, counted on the
        small count table before the pairs are built (per attribute set).

    Returns
    -------
    pl.LazyFrame
        ``<key>_i`` for each key, then ``<key>_j`` for each key (the key dtypes), ``n_i``,
        ``n_j`` (Int64, row counts), then one Float64 column per metric (differences of rates in
        [-1, 1], OFI in [-2, 2], ratios in [0, inf)). One row per ordered pair, sorted by
        ``i``'s keys then ``j``'s keys (nulls last). Fewer than two groups give no rows, with the
        same schema.

    Raises
    ------
    InvalidArgumentError
        An unknown metric (the message lists the valid names), a metric named twice, no
        metric, a ``metrics`` that is not a name or a sequence of names, a ``max_pairs`` not an
        integer >= 1; raised when the plan is built.
    SizeLimitError
        More than ``max_pairs`` pairs (at collect time, before they are built; the message
        gives the number of groups and pairs).

    Examples
    --------
    Scenario A of the OFI paper's Table 1 (TP, FN, FP, TN = 1, 0, 0, 5 and 7, 0, 1, 10):

    >>> import polars as pl
    >>> counts = pl.LazyFrame({"g": ["i", "j"], "n": [6, 18], "tp": [1, 7], "fp": [0, 1],
    ...                        "fn": [0, 0], "tn": [5, 10]})
    >>> pairwise_from_counts(counts, ["g"]).collect()
    shape: (2, 6)
    ┌─────┬─────┬─────┬─────┬───────────┬──────────────────┐
    │ g_i ┆ g_j ┆ n_i ┆ n_j ┆ ofi       ┆ disparate_impact │
    │ --- ┆ --- ┆ --- ┆ --- ┆ ---       ┆ ---              │
    │ str ┆ str ┆ i64 ┆ i64 ┆ f64       ┆ f64              │
    ╞═════╪═════╪═════╪═════╪═══════════╪══════════════════╡
    │ i   ┆ j   ┆ 6   ┆ 18  ┆ -0.055556 ┆ 0.375            │
    │ j   ┆ i   ┆ 18  ┆ 6   ┆ 0.055556  ┆ 2.666667         │
    └─────┴─────┴─────┴─────┴───────────┴──────────────────┘
    """
    wanted = _check_metrics(metrics)
    limit = check_int(max_pairs, "max_pairs")
    keys = list(keys)
    rates = list(dict.fromkeys(r for m in wanted for r in PAIR_METRICS[m].rates))
    ki = [f"{k}_i" for k in keys]
    kj = [f"{k}_j" for k in keys]

    def bounded(df: pl.DataFrame) -> pl.DataFrame:
        k = df.height  # the small count table, before any pair is built
        fit = math.isqrt(LIMITS["max_pairs"].limit) + 1  # the most groups whose pairs fit
        while fit * (fit - 1) > LIMITS["max_pairs"].limit:
            fit -= 1
        check_ceiling(k * (k - 1), "max_pairs", f"pairwise over {k:,} groups", "ordered pairs",
                      E.CEILING_PAIRS.format(groups=fit), E.CLI_CEILING_PAIRS.format(groups=fit))
        if k * (k - 1) > limit:
            raise E.SizeLimitError(E.TOO_MANY_PAIRS.format(groups=k, pairs=k * (k - 1),
                                                           limit=limit))
        return df

    def build(lf: pl.LazyFrame) -> pl.LazyFrame:
        table = with_rates(lf.map_batches(bounded, schema=lf.collect_schema()))
        if keys:
            table = table.sort(keys, nulls_last=True, maintain_order=True)
        table = table.with_row_index(f"{_P}idx")

        def side(s: str) -> pl.LazyFrame:
            return table.select(
                *[pl.col(k).alias(f"{k}_{s}") for k in keys],
                pl.col("n").cast(pl.Int64).alias(f"n_{s}"),
                pl.col(f"{_P}idx").alias(f"{_P}idx_{s}"),
                *[pl.col(r).alias(f"{_P}{r}_{s}") for r in rates],
            )

        pairs = (
            side("i")
            .join(side("j"), how="cross")
            .filter(pl.col(f"{_P}idx_i") != pl.col(f"{_P}idx_j"))
            .sort(f"{_P}idx_i", f"{_P}idx_j")
        )
        return pairs.select(*ki, *kj, "n_i", "n_j", *[_metric_expr(m) for m in wanted])

    return on_small_table(counts, build)


def _label(columns: Sequence[str]) -> pl.Expr:
    """A group's label: the value as text for one key, ``"v1 | v2"`` for several.

    :func:`polars_fair.core.labels.group_label`, as every label: a missing value reads
    ``(missing)``, and a value that could read as another (the text ``"(missing)"``, one
    starting with ``"``, one holding ``" | "``) is quoted.
    """
    return group_label(list(columns))


def pairwise_matrix(pairs: pl.DataFrame, metric: str, keys: Sequence[str]) -> pl.DataFrame:
    """The square matrix of one pairwise metric, for a heatmap: rows ``i``, columns ``j``.

    Cell ``(i, j)`` is the value of ``metric`` for the ordered pair (row group ``i``, column
    group ``j``) from :func:`pairwise_from_counts`, for example
    :math:`OFI(i, j) = B_i - B_j` (Briscoe et al., the OFI paper, Fig. 2) or
    :math:`DI(i, j) = b_i / b_j`. The diagonal is 0 for OFI and differences and 1 for ratios (a
    group compared with itself), so a row reads "how group ``i`` fares against each other group".

    Parameters
    ----------
    pairs : pl.DataFrame
        The collected output of :func:`pairwise_from_counts` (``<key>_i``, ``<key>_j`` and the
        metric's column).
    metric : str
        One of :data:`PAIRWISE_METRICS`, computed in ``pairs``.
    keys : sequence of str
        The attribute names (at least one), as passed to :func:`pairwise_from_counts`.

    Returns
    -------
    pl.DataFrame
        One row per group ``i``, sorted by the keys (nulls last): the key columns (named as the
        keys, with their dtypes), then one Float64 column per group ``j`` in the same order,
        named by the group's label (the value as text for one key, ``"v1 | v2"`` for several; a
        null value reads ``"null"``). Cells are null where the metric is undefined.

    Raises
    ------
    InvalidArgumentError
        ``metric`` unknown or not a column of ``pairs``; ``keys`` empty; group labels that are
        not unique or equal a key's name (they could not all be column names).
    ColumnNotFoundError
        ``pairs`` lacks a ``<key>_i`` or ``<key>_j`` column.

    Examples
    --------
    >>> import polars as pl
    >>> counts = pl.LazyFrame({"g": ["a", "b", "c"], "n": [10, 10, 10], "tp": [4, 2, 1],
    ...                        "fp": [1, 0, 3], "fn": [1, 3, 0], "tn": [4, 5, 6]})
    >>> pairs = pairwise_from_counts(counts, ["g"]).collect()
    >>> pairwise_matrix(pairs, "ofi", ["g"])
    shape: (3, 4)
    ┌─────┬──────┬─────┬──────┐
    │ g   ┆ a    ┆ b   ┆ c    │
    │ --- ┆ ---  ┆ --- ┆ ---  │
    │ str ┆ f64  ┆ f64 ┆ f64  │
    ╞═════╪══════╪═════╪══════╡
    │ a   ┆ 0.0  ┆ 0.3 ┆ -0.3 │
    │ b   ┆ -0.3 ┆ 0.0 ┆ -0.6 │
    │ c   ┆ 0.3  ┆ 0.6 ┆ 0.0  │
    └─────┴──────┴─────┴──────┘
    """
    _check_metrics([metric])
    keys = list(keys)
    if not keys:
        raise E.InvalidArgumentError(NO_KEYS)
    if metric not in pairs.columns:
        raise E.InvalidArgumentError(
            MISSING_METRIC_COLUMN.format(metric=metric, available=E.show_columns(pairs.columns))
        )
    ki = [f"{k}_i" for k in keys]
    kj = [f"{k}_j" for k in keys]
    for col in (*ki, *kj):
        if col not in pairs.columns:
            raise E.ColumnNotFoundError(
                E.missing_column(col, "pairwise table", pairs.columns)
            )
    groups = (
        pl.concat(
            [
                pairs.select([pl.col(c).alias(k) for c, k in zip(ki, keys, strict=True)]),
                pairs.select([pl.col(c).alias(k) for c, k in zip(kj, keys, strict=True)]),
            ]
        )
        .unique()
        .sort(keys, nulls_last=True)
        .with_columns(_label(keys).alias(f"{_P}label"))
    )
    if groups.height == 0:
        return groups.select(keys)
    labels: list[str] = groups[f"{_P}label"].to_list()
    if len(set(labels)) != len(labels) or set(labels) & set(keys):
        raise E.InvalidArgumentError(
            CLASHING_LABELS.format(labels=E.show_values(labels, limit=50), keys=keys)
        )
    diagonal = PAIR_METRICS[metric].identity if metric in PAIR_METRICS else 0.0
    off = pairs.select(
        *[pl.col(c).alias(k) for c, k in zip(ki, keys, strict=True)],
        _label(kj).alias(f"{_P}label_j"),
        pl.col(metric).cast(pl.Float64).alias(f"{_P}value"),
    )
    diag = groups.select(
        *keys,
        pl.col(f"{_P}label").alias(f"{_P}label_j"),
        pl.lit(diagonal, dtype=pl.Float64).alias(f"{_P}value"),
    )
    wide = pl.concat([off, diag]).pivot(
        on=f"{_P}label_j", on_columns=labels, index=keys, values=f"{_P}value"
    )
    return (
        groups.select(keys)
        .join(wide, on=keys, how="left", nulls_equal=True, maintain_order="left")
        .select(*keys, *labels)
    )
