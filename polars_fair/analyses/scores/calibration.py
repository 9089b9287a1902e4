"""Calibration by group from the score table: reliability bins, ECE and the largest ECE gap.

The input is the score table (one row per group and distinct score, see the design notes):
key columns, ``score`` (Float64), ``positives`` and ``negatives`` (Int64, or Float64 when
weighted). Raw rows are never needed: binning a distinct score moves all of its rows at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Unpack

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np, npt
from polars_fair.core import rules as R
from polars_fair.core.families import BinOptions, takes
from polars_fair.core.limits import LIMITS, check_size, with_limits
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS

__all__ = [
    "CalibrationResult",
    "EceGap",
    "calibration_from_scores",
    "calibration_plan",
    "reliability_plan",
]

SCORE_RANGE_MESSAGE = (
    "y_score must lie in [0, 1] for strategy='uniform'; found values in [{low:g}, {high:g}]"
)
SCORE_MISSING_MESSAGE = "y_score must not contain null or NaN values; found {count} in `{column}`"
MISSING_COLUMNS_MESSAGE = "score table is missing column(s) {columns}; found {found}"
NON_NUMERIC_MESSAGE = "column `{column}` must be numeric; found dtype {dtype}"
NEGATIVE_COUNTS_MESSAGE = "column `{column}` must be non-negative; found {values}"
N_BINS_MESSAGE = "n_bins must be a positive integer; got {n_bins!r}"
STRATEGY_MESSAGE = "strategy must be 'uniform' or 'quantile'; got {strategy!r}"
EMPTY_MESSAGE = "score table holds no rows with positive count; cannot bin scores"
RESERVED_KEY_MESSAGE = "key column(s) {columns} clash with the score table's own columns"

_SCORE, _POS, _NEG = "score", "positives", "negatives"
_TMP_KEY = "__pf_group"


class EceGap(NamedTuple):
    """The largest difference in expected calibration error between two groups.

    Parameters
    ----------
    difference : float or None
        ``ece(highest) - ece(lowest)`` in [0, 1]; None when fewer than two groups have a
        defined ECE.
    highest : dict or None
        Key values (column name to value) of the group with the largest ECE.
    lowest : dict or None
        Key values of the group with the smallest ECE.

    Examples
    --------
    >>> gap = EceGap(difference=0.25, highest={"g": "b"}, lowest={"g": "a"})
    >>> gap.difference, gap.highest
    (0.25, {'g': 'b'})
    """

    difference: float | None
    highest: dict[str, Any] | None
    lowest: dict[str, Any] | None


class CalibrationResult(NamedTuple):
    """Output of :func:`calibration_from_scores`; unpacks as a 3-tuple.

    Parameters
    ----------
    reliability : polars.DataFrame
        One row per group and bin (all ``n_bins`` bins, empty ones included), sorted by keys
        and ``bin``: keys, ``bin`` (Int64, 0-based), ``bin_low``, ``bin_high`` (Float64, the
        bin is ``(bin_low, bin_high]``, the first bin also holds ``bin_low``), ``n`` (Int64, or
        Float64 when weighted), ``mean_score`` and ``fraction_positive`` (Float64 in [0, 1],
        null for an empty bin).
    by_group : polars.DataFrame
        One row per group, sorted by keys: keys, ``n``, ``ece`` and ``max_calibration_error``
        (Float64 in [0, 1], null when the group has ``n == 0``).
    largest_gap : EceGap
        The two groups whose ECEs differ most, and the difference.

    Examples
    --------
    >>> t = pl.DataFrame({"score": [0.25, 0.75], "positives": [0, 1], "negatives": [1, 0]})
    >>> result = calibration_from_scores(t, [], n_bins=2)
    >>> reliability, by_group, gap = result
    >>> by_group.rows(), result.largest_gap.difference
    ([(2, 0.25, 0.25)], None)
    """

    reliability: pl.DataFrame
    by_group: pl.DataFrame
    largest_gap: EceGap


def _lerp(a: float, b: float, t: float) -> float:
    """Linear interpolation written as numpy's percentile writes it (bit-for-bit edges)."""
    diff = b - a
    return b - diff * (1.0 - t) if t >= 0.5 else a + diff * t


def _pooled_quantile_bins(
    score: npt.NDArray[np.float64], weight: npt.NDArray[np.float64], n_bins: int,
    rows: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Quantile edges of the pooled scores (each repeated ``weight`` times), each score's bin.

    The positions are :func:`polars_fair.core.rules.quantile_positions` (numpy's linear rule,
    decided on fractions): an edge on a row is that row's score, an edge between rows ``j``
    and ``j + 1`` is interpolated. A score is in the first bin ``b`` whose edge it does not
    exceed, decided on integers: the rows (cumulative weight) strictly below it are at most
    the edge's row ``j``. With integer weights this equals ``np.quantile`` on the raw rows.
    Weighted sums over ``rows`` rows (``n_rows``) are read in rows
    (:func:`polars_fair.core.rules.weighted_rows`), so constant weights give the unweighted
    bins at any scale.
    """
    keep = weight > 0
    distinct, inverse = np.unique(score[keep], return_inverse=True)
    per_score = np.bincount(inverse.ravel(), weights=weight[keep])
    cum = np.cumsum(per_score)
    below = np.concatenate(([0.0], cum[:-1]))  # weight strictly below each distinct score
    if rows is not None:  # weighted: cumulative weight in rows, whole within tolerance
        total = float(cum[-1])
        cum = np.array([R.weighted_rows(float(c), total, rows) for c in cum], dtype=np.float64)
        below = np.array([R.weighted_rows(float(c), total, rows) for c in below],
                         dtype=np.float64)
    # the total as the exact value of its float (whole for integer counts below 2^53)
    positions = R.quantile_positions(float(cum[-1]), n_bins)
    # row j (0-based) of the expanded sorted rows holds the first score whose cumulative weight
    # exceeds j
    last = distinct.size - 1

    def at(j: int) -> float:
        return float(distinct[min(int(np.searchsorted(cum, j, side="right")), last)])

    edges = np.array([at(j) if t == 0 else _lerp(at(j), at(j + 1), float(t))
                      for j, t in positions], dtype=np.float64)
    inner = np.array([j for j, _ in positions[1:-1]], dtype=np.float64)
    bin_of_distinct = np.searchsorted(inner, below, side="left").astype(np.int64)
    bin_ids = np.zeros(score.size, dtype=np.int64)
    bin_ids[keep] = bin_of_distinct[inverse.ravel()]
    bin_ids[~keep] = bin_of_distinct[
        np.minimum(np.searchsorted(distinct, score[~keep], side="left"), last)]
    return edges, bin_ids


def _validate(scores: pl.DataFrame, keys: list[str], n_bins: int, strategy: str) -> bool:
    """Check columns, dtypes and options; return True when the counts are weighted (float)."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise E.InvalidArgumentError(N_BINS_MESSAGE.format(n_bins=n_bins))
    check_size(n_bins, "n_bins")
    if strategy not in ("uniform", "quantile"):
        raise E.InvalidArgumentError(STRATEGY_MESSAGE.format(strategy=strategy))
    schema = scores.collect_schema()
    clash = [k for k in keys if k in (_SCORE, _POS, _NEG, _TMP_KEY)]
    if clash:
        raise E.InvalidArgumentError(RESERVED_KEY_MESSAGE.format(columns=clash))
    missing = [c for c in [*keys, _SCORE, _POS, _NEG] if c not in schema]
    if missing:
        raise E.InvalidArgumentError(
            MISSING_COLUMNS_MESSAGE.format(columns=missing, found=list(schema))
        )
    for column in (_SCORE, _POS, _NEG):
        if not schema[column].is_numeric():
            raise E.InvalidArgumentError(
                NON_NUMERIC_MESSAGE.format(column=column, dtype=schema[column])
            )
    for column in (_POS, _NEG):
        negative = scores.get_column(column).filter(scores.get_column(column) < 0)
        if negative.len() > 0:
            shown = sorted(set(negative.head(5).to_list()))
            raise E.InvalidArgumentError(
                NEGATIVE_COUNTS_MESSAGE.format(column=column, values=shown)
            )
    return bool(schema[_POS].is_float() or schema[_NEG].is_float())


def _check_bin_cells(frame: pl.DataFrame, keys: list[str], n_bins: int) -> None:
    """Refuse ``n_bins`` x groups above the ``bin_cells`` limit, before any bin is made.

    The groups are counted on the score table (one row per group and distinct score), which
    is small; the reliability table would hold one row per group and bin.

    Raises
    ------
    SizeLimitError
        :data:`polars_fair.errors.BIN_CELLS_TOO_MANY`, advising an ``n_bins`` that fits.
    """
    entry = LIMITS["bin_cells"]
    groups = frame.select(keys).unique().height if keys else 1
    size = int(n_bins) * groups
    if size > entry.limit:
        fits = entry.limit // groups
        advice = (E.BIN_CELLS_ADVICE.format(n_bins=fits) if fits >= 1
                  else E.BIN_CELLS_GROUPS.format(limit=entry.limit))
        raise E.SizeLimitError(E.BIN_CELLS_TOO_MANY.format(
            n_bins=int(n_bins), groups=groups, size=size, limit=entry.limit, why=entry.why,
            advice=advice))


def _bins(frame: pl.DataFrame, n_bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """The bin edges and each row's bin (right-closed bins, as scikit-learn's).

    Raises the score errors of :func:`calibration_from_scores` (a missing score, no positive
    count, a score outside [0, 1] with ``"uniform"``).
    """
    score = frame.get_column(_SCORE).cast(pl.Float64)
    missing = score.null_count() + int(score.is_nan().sum() or 0)
    if missing:
        raise E.InvalidScoreError(SCORE_MISSING_MESSAGE.format(count=missing, column=_SCORE))
    s = score.to_numpy()
    w = (
        frame.get_column(_POS).cast(pl.Float64).fill_null(0.0)
        + frame.get_column(_NEG).cast(pl.Float64).fill_null(0.0)
    ).to_numpy()
    if not np.any(w > 0):
        raise E.EmptyFrameError(EMPTY_MESSAGE)

    if strategy == "quantile":
        weighted = frame.schema[_POS].is_float() or frame.schema[_NEG].is_float()
        # the rows the weights stand for: those of positive weight (zero weights are left out)
        counted = [c for c in (POSITIVE_WEIGHT_ROWS, "n_rows") if c in frame.columns]
        rows = (int(frame.get_column(counted[0]).fill_null(0).sum())
                if weighted and counted else None)
        return _pooled_quantile_bins(s, w, n_bins, rows if rows else None)
    low, high = float(s.min()), float(s.max())
    if low < 0.0 or high > 1.0:
        raise E.InvalidScoreError(SCORE_RANGE_MESSAGE.format(low=low, high=high))
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    return edges, np.searchsorted(edges[1:-1], s, side="left").astype(np.int64)


def _largest_gap(by_group: pl.DataFrame, keys: list[str]) -> EceGap:
    """The largest and the smallest ECE and their groups (none with fewer than two ECEs)."""
    defined = by_group.filter(pl.col("ece").is_not_null())
    if defined.height >= 2:
        hi = defined.row(int(defined.get_column("ece").arg_max() or 0), named=True)
        lo = defined.row(int(defined.get_column("ece").arg_min() or 0), named=True)
        return EceGap(
            difference=float(hi["ece"] - lo["ece"]),
            highest={k: hi[k] for k in keys},
            lowest={k: lo[k] for k in keys},
        )
    return EceGap(difference=None, highest=None, lowest=None)


def _tables(base: pl.DataFrame, group_keys: list[str], edges: np.ndarray, n_bins: int,
            count_dtype: pl.DataType) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The reliability table (every group x every bin) and each group's ECE and MCE.

    ``base`` has the group keys, ``bin``, ``score`` and the two counts, one row per score cell.
    """
    per_bin = base.group_by([*group_keys, "bin"]).agg(
        (pl.col(_POS) + pl.col(_NEG)).sum().alias("n"),
        (pl.col(_SCORE) * (pl.col(_POS) + pl.col(_NEG)).cast(pl.Float64)).sum().alias("__pf_s"),
        pl.col(_POS).sum().cast(pl.Float64).alias("__pf_p"),
    )
    bins = pl.DataFrame(
        {
            "bin": np.arange(n_bins, dtype=np.int64),
            "bin_low": edges[:-1].astype(np.float64),
            "bin_high": edges[1:].astype(np.float64),
        }
    )
    groups = base.select(group_keys).unique()
    n_pos = pl.col("n") > 0
    none = pl.lit(None, dtype=pl.Float64)
    reliability = (
        groups.join(bins, how="cross")
        .join(per_bin, on=[*group_keys, "bin"], how="left", nulls_equal=True)
        .with_columns(pl.col("n").fill_null(0).cast(count_dtype))
        .with_columns(
            pl.when(n_pos).then(pl.col("__pf_s") / pl.col("n")).otherwise(none).alias("mean_score"),
            pl.when(n_pos)
            .then(pl.col("__pf_p") / pl.col("n"))
            .otherwise(none)
            .alias("fraction_positive"),
        )
        .sort([*group_keys, "bin"], nulls_last=True)
        .select(*group_keys, "bin", "bin_low", "bin_high", "n", "mean_score", "fraction_positive")
    )
    gap_abs = (pl.col("fraction_positive") - pl.col("mean_score")).abs()
    by_group = (
        reliability.group_by(group_keys)
        .agg(
            pl.col("n").sum().alias("n"),
            (gap_abs * pl.col("n").cast(pl.Float64)).sum().alias("__pf_weighted_gap"),
            gap_abs.max().alias("max_calibration_error"),
        )
        .with_columns(pl.col("n").cast(count_dtype))
        .with_columns(
            pl.when(n_pos).then(pl.col("__pf_weighted_gap") / pl.col("n")).otherwise(none)
            .alias("ece"),
            pl.when(n_pos).then(pl.col("max_calibration_error")).otherwise(none),
        )
        .sort(group_keys, nulls_last=True)
        .select(*group_keys, "n", "ece", "max_calibration_error")
    )
    return reliability, by_group


def _computed(frame: pl.DataFrame, keys: list[str], n_bins: int, strategy: str,
              ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The reliability and per-group tables, keyed by working names (``__pf_key0``, ...)."""
    weighted = _validate(frame, keys, n_bins, strategy)
    _check_bin_cells(frame, keys, n_bins)  # the groups are known from the small table
    count_dtype: pl.DataType = pl.Float64() if weighted else pl.Int64()

    edges, bin_ids = _bins(frame, n_bins, strategy)

    # the keys are renamed while the bins are built, so an attribute named like a working or
    # reliability column ("bin", "n", "mean_score") is audited as any other
    group_keys = [f"__pf_key{i}" for i in range(len(keys))] if keys else [_TMP_KEY]
    base = frame.select(
        *(pl.col(k).alias(g) for k, g in zip(keys, group_keys, strict=False)),
        *([pl.lit(0, dtype=pl.Int64).alias(_TMP_KEY)] if not keys else []),
        pl.Series("bin", bin_ids, dtype=pl.Int64),
        pl.col(_SCORE).cast(pl.Float64),
        pl.col(_POS).cast(count_dtype).fill_null(0),
        pl.col(_NEG).cast(count_dtype).fill_null(0),
    )
    return _tables(base, group_keys, edges, n_bins, count_dtype)


def _named(reliability: pl.DataFrame | None, by_group: pl.DataFrame, keys: list[str],
           ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """:func:`_computed`'s tables under the user's key names (the reliability table if given)."""
    inner = [f"__pf_key{i}" for i in range(len(keys))]
    if not keys:
        return (reliability.drop(_TMP_KEY) if reliability is not None else pl.DataFrame(),
                by_group.drop(_TMP_KEY))
    names = dict(zip(inner, keys, strict=True))
    return (reliability.rename(names) if reliability is not None else pl.DataFrame(),
            by_group.rename(names))


@with_limits
@takes(BinOptions)
def calibration_from_scores(
    scores: pl.DataFrame | pl.LazyFrame,
    keys: list[str],
    **options: Unpack[BinOptions],
) -> CalibrationResult:
    r"""Reliability table, expected calibration error by group, and the largest ECE gap.

    Scores are put into ``n_bins`` bins; for bin :math:`b` of a group, :math:`n_b` counts its
    rows, ``mean_score`` is :math:`\bar s_b` (the count-weighted mean score) and
    ``fraction_positive`` is :math:`\bar y_b` (positives over :math:`n_b`). Then

    .. math::

        \mathrm{ECE} = \sum_b \frac{n_b}{n}\,\lvert \bar y_b - \bar s_b \rvert, \qquad
        \mathrm{MCE} = \max_{b:\,n_b > 0} \lvert \bar y_b - \bar s_b \rvert

    (Naeini, Cooper & Hauskrecht 2015, *AAAI*; Guo, Pleiss, Sun & Weinberger 2017, *ICML*).

    Bins follow :func:`sklearn.calibration.calibration_curve`: they are right-closed,
    ``(edge_b, edge_{b+1}]``, and the first also holds its lower edge (a score equal to an
    inner edge goes to the lower bin).

    - ``"uniform"``: edges ``0, 1/n_bins, ..., 1``; scores must lie in [0, 1].
    - ``"quantile"``: edges are the quantiles ``Q(b / n_bins)`` of the **pooled** score
      distribution over all groups, every row counted once (a distinct score weighs its
      ``positives + negatives``), by numpy's default rule (``np.quantile(scores, b / n_bins,
      method="linear")``): among the ``N`` rows sorted, ``Q`` lies at position
      ``h = b (N - 1) / n_bins``, computed as an exact fraction
      (:func:`polars_fair.core.rules.quantile_positions`); at a whole ``h`` the edge is that
      row's score, otherwise it is interpolated between rows ``floor(h)`` and ``floor(h) + 1``.
      A score goes to the first bin whose edge it does not exceed, decided on the same
      integers (the rows below it are at most ``floor(h)``), so a score tied on an exact
      quantile stays in the lower bin, as ``divergence(bins={"x": k})`` decides. All groups
      share the same bins, so their reliability curves and ECEs are comparable; within a
      group, bins need not hold equal counts. With a single group this matches scikit-learn
      and numpy. Tied scores can make edges coincide; the bins between them stay empty.
      Weighted counts are read in rows: the cumulative weight rescaled to a mean of 1 per row
      of positive weight (``n_positive_weight``, else ``n_rows``), whole within a relative
      1e-9 (:func:`polars_fair.core.rules.weighted_rows`), so constant weights give the
      unweighted bins at any scale; without either column the weights are read as rows.

    Parameters
    ----------
    scores : polars.DataFrame or polars.LazyFrame
        The score table: ``keys`` columns, ``score`` (numeric, no null or NaN), ``positives``
        and ``negatives`` (non-negative; integer, or float for weighted tables). Several rows
        for the same group and score are summed.
    keys : list of str
        Group key columns; ``[]`` treats the table as one group.
    n_bins : int, default 10
        Number of bins, at least 1.
    strategy : {"uniform", "quantile"}, default "uniform"
        How the bin edges are chosen, see above.

    Returns
    -------
    CalibrationResult
        A named tuple ``(reliability, by_group, largest_gap)``:

        - ``reliability``: keys, ``bin`` (Int64), ``bin_low``, ``bin_high`` (Float64),
          ``n`` (Int64; Float64 when weighted), ``mean_score``, ``fraction_positive`` (Float64
          in [0, 1], null for an empty bin). ``n_groups * n_bins`` rows, sorted by keys, bin.
        - ``by_group``: keys, ``n``, ``ece``, ``max_calibration_error`` (Float64 in [0, 1],
          null when ``n == 0``), sorted by keys.
        - ``largest_gap``: :class:`EceGap` with the difference between the largest and the
          smallest ECE (in [0, 1]) and the key values of those two groups (None when fewer
          than two groups have an ECE).

    Raises
    ------
    InvalidArgumentError
        A column is missing or not numeric, a count is negative, a key clashes with
        ``score``/``positives``/``negatives``, ``n_bins`` or ``strategy`` is invalid.
    InvalidScoreError
        A score is null or NaN, or (``"uniform"``) lies outside [0, 1] (the message names
        ``y_score`` and the range found).
    EmptyFrameError
        No row has a positive count.
    SizeLimitError
        ``n_bins`` above |limit:n_bins| (:data:`polars_fair.core.limits.LIMITS`), or ``n_bins``
        times the groups of the score table above |limit:bin_cells| (``bin_cells``), before
        any bin is made.

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({
    ...     "g": ["a", "a", "a", "b", "b"],
    ...     "score": [0.1, 0.4, 0.9, 0.2, 0.8],
    ...     "positives": [0, 1, 3, 1, 1],
    ...     "negatives": [2, 1, 1, 1, 1],
    ... })
    >>> reliability, by_group, gap = calibration_from_scores(table, ["g"], n_bins=2)
    >>> reliability
    shape: (4, 7)
    ┌─────┬─────┬─────────┬──────────┬─────┬────────────┬───────────────────┐
    │ g   ┆ bin ┆ bin_low ┆ bin_high ┆ n   ┆ mean_score ┆ fraction_positive │
    │ --- ┆ --- ┆ ---     ┆ ---      ┆ --- ┆ ---        ┆ ---               │
    │ str ┆ i64 ┆ f64     ┆ f64      ┆ i64 ┆ f64        ┆ f64               │
    ╞═════╪═════╪═════════╪══════════╪═════╪════════════╪═══════════════════╡
    │ a   ┆ 0   ┆ 0.0     ┆ 0.5      ┆ 4   ┆ 0.25       ┆ 0.25              │
    │ a   ┆ 1   ┆ 0.5     ┆ 1.0      ┆ 4   ┆ 0.9        ┆ 0.75              │
    │ b   ┆ 0   ┆ 0.0     ┆ 0.5      ┆ 2   ┆ 0.2        ┆ 0.5               │
    │ b   ┆ 1   ┆ 0.5     ┆ 1.0      ┆ 2   ┆ 0.8        ┆ 0.5               │
    └─────┴─────┴─────────┴──────────┴─────┴────────────┴───────────────────┘
    >>> by_group.with_columns(pl.col("ece", "max_calibration_error").round(4))
    shape: (2, 4)
    ┌─────┬─────┬───────┬───────────────────────┐
    │ g   ┆ n   ┆ ece   ┆ max_calibration_error │
    │ --- ┆ --- ┆ ---   ┆ ---                   │
    │ str ┆ i64 ┆ f64   ┆ f64                   │
    ╞═════╪═════╪═══════╪═══════════════════════╡
    │ a   ┆ 8   ┆ 0.075 ┆ 0.15                  │
    │ b   ┆ 4   ┆ 0.3   ┆ 0.3                   │
    └─────┴─────┴───────┴───────────────────────┘
    >>> round(gap.difference, 4), gap.highest, gap.lowest
    (0.225, {'g': 'b'}, {'g': 'a'})
    """
    frame = scores.collect() if isinstance(scores, pl.LazyFrame) else scores
    keys = list(keys)
    reliability, by_group = _named(*_computed(frame, keys, options["n_bins"],
                                              options["strategy"]), keys)
    gap = _largest_gap(by_group, keys)
    return CalibrationResult(reliability=reliability, by_group=by_group, largest_gap=gap)


@with_limits
@takes(BinOptions)
def calibration_plan(
    table: pl.LazyFrame,
    keys: Sequence[str],
    **options: Unpack[BinOptions],
) -> pl.LazyFrame:
    r"""Expected and maximum calibration error per group, as a step of a lazy plan.

    The ``by_group`` table of :func:`calibration_from_scores` (same bins, same rules), run on
    the collected score table, with the gap to the best-calibrated group:

    .. math::

        \mathrm{ECE} = \sum_b \frac{n_b}{n}\,\lvert \bar y_b - \bar s_b \rvert, \qquad
        \mathrm{MCE} = \max_{b:\,n_b > 0} \lvert \bar y_b - \bar s_b \rvert

    (Naeini, Cooper & Hauskrecht 2015, *AAAI*; Guo, Pleiss, Sun & Weinberger 2017, *ICML*), and
    ``ece_gap`` :math:`= \mathrm{ECE}_g - \min_h \mathrm{ECE}_h`.

    Parameters
    ----------
    table : pl.LazyFrame
        A score table: keys, ``score``, ``positives``, ``negatives``.
    keys : sequence of str
        Its key columns (``[]``: one group).
    n_bins : int, default 10
        Number of bins, at least 1.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1], or bins cut at the quantiles ``Q(b / n_bins)`` of the
        pooled scores by numpy's linear rule, their positions ``b (N - 1) / n_bins`` among the
        ``N`` sorted rows exact fractions (a score tied on a quantile stays in the lower bin;
        :func:`calibration_from_scores`).

    Returns
    -------
    pl.LazyFrame
        One row per group, sorted by keys: keys, ``n`` (rows: Int64, or Float64 weighted
        sums), ``ece``, ``max_calibration_error`` (Float64 in [0, 1], null when ``n == 0``),
        ``ece_gap`` (Float64 in [0, 1]: ece − the lowest ece among the groups; its maximum is
        the largest gap in calibration error between groups).

    Raises
    ------
    InvalidArgumentError, InvalidScoreError, EmptyFrameError
        As :func:`calibration_from_scores`, when the plan is collected.
    SizeLimitError
        ``n_bins`` above |limit:n_bins|, when the plan is made; ``n_bins`` times the groups
        above |limit:bin_cells|, when it is collected (the groups are counted on the score
        table, before any bin is made).

    Examples
    --------
    >>> import polars as pl
    >>> t = pl.LazyFrame({"g": ["a", "a"], "score": [0.2, 0.8], "positives": [0, 1],
    ...                   "negatives": [1, 0]})
    >>> calibration_plan(t, ["g"], n_bins=2).collect()["ece"].round(6).to_list()
    [0.2]
    """
    keys = list(keys)
    schema = table.collect_schema()
    out_schema = pl.Schema(
        [(k, schema[k]) for k in keys]
        + [("n", schema["positives"]), ("ece", pl.Float64), ("max_calibration_error", pl.Float64),
           ("ece_gap", pl.Float64)]
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:  # the per-group table only: a key may be named
        # like a reliability column ("bin", "mean_score"), which calibration does not output
        _, groups = _named(None, _computed(df, keys, options["n_bins"], options["strategy"])[1],
                           keys)
        return groups.with_columns((pl.col("ece") - pl.col("ece").min()).alias("ece_gap"))

    check_size(options["n_bins"], "n_bins")  # before any work, not at collect
    return table.map_batches(run, schema=out_schema)


@with_limits
@borrow(calibration_plan, params=("table", "keys", "n_bins", "strategy"), sections=("Raises",))
@takes(BinOptions)
def reliability_plan(
    table: pl.LazyFrame,
    keys: Sequence[str],
    **options: Unpack[BinOptions],
) -> pl.LazyFrame:
    r"""The reliability table (one row per group × bin) as a step of a lazy plan.

    The ``reliability`` table of :func:`calibration_from_scores`: for bin :math:`b` of a group,
    ``mean_score`` :math:`\bar s_b` (the count-weighted mean score) and ``fraction_positive``
    :math:`\bar y_b` (positives over :math:`n_b`), the points of a reliability diagram
    (DeGroot & Fienberg 1983, *The Statistician* 32:12).

    Returns
    -------
    pl.LazyFrame
        ``n_groups * n_bins`` rows sorted by keys and bin: keys, ``bin`` (Int64, 0-based),
        ``bin_low``, ``bin_high`` (Float64 edges of the bin ``(bin_low, bin_high]``), ``n``
        (rows: Int64, or Float64 weighted sums), ``mean_score``, ``fraction_positive``
        (Float64 in [0, 1], null for an empty bin).

    Examples
    --------
    >>> import polars as pl
    >>> t = pl.LazyFrame({"g": ["a", "a"], "score": [0.2, 0.8], "positives": [0, 1],
    ...                   "negatives": [1, 0]})
    >>> reliability_plan(t, ["g"], n_bins=2).collect()["n"].to_list()
    [1, 1]
    """
    keys = list(keys)
    schema = table.collect_schema()
    out_schema = pl.Schema(
        [(k, schema[k]) for k in keys]
        + [("bin", pl.Int64), ("bin_low", pl.Float64), ("bin_high", pl.Float64),
           ("n", schema["positives"]), ("mean_score", pl.Float64),
           ("fraction_positive", pl.Float64)]
    )
    check_size(options["n_bins"], "n_bins")  # before any work, not at collect
    return table.map_batches(
        lambda df: calibration_from_scores(df, keys, **options).reliability,
        schema=out_schema,
    )
