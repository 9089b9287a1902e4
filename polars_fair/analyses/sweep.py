"""Counts, rates and the report's verdicts at many thresholds, from the score table.

At threshold ``t`` a row is predicted positive when ``score >= t``, compared in the score's own
dtype (:func:`polars_fair.core.spec.threshold_in_dtype`), so the sweep gives exactly what ``report``
gives with ``y_score=`` and ``threshold=t``. From the score table (one row per group and
distinct score): ``tp(t) = Σ positives[score >= t]``, ``fp(t) = Σ negatives[score >= t]``,
``fn = P − tp``, ``tn = N − fp``, with no second scan of the rows. Each threshold's count table
then goes through :func:`polars_fair.analyses.report.report_from_counts`, the report's own code (its
reference rule, exact rules and findings), so every verdict is the one ``report`` gives.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence, Sized
from decimal import Decimal
from typing import Any, Unpack

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import is_numpy
from polars_fair.analyses.report import report_from_counts
from polars_fair.analyses.runner import dense
from polars_fair.core.families import ReportOptions, takes
from polars_fair.core.limits import LIMITS, check_ceiling
from polars_fair.core.numbers import number_items
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import (
    DEFAULT_MAX_GROUPS,
    POSITIVE_WEIGHT_ROWS,
    check_int,
    threshold_in_dtype,
)
from polars_fair.counting.tables import complete_enums

__all__ = ["DEFAULT_MAX_THRESHOLDS", "SWEEP_THRESHOLDS", "checked_grid", "count_thresholds",
           "sweep_counts", "sweep_from_scores", "sweep_reports", "threshold_items"]

#: The default thresholds of ``sweep``.
SWEEP_THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: The most thresholds of ``sweep`` and ``thresholds`` (each makes a report of every group); the
#: option ``max_thresholds`` raises it.
DEFAULT_MAX_THRESHOLDS = DEFAULTS.max_thresholds

_FLOAT64 = pl.Float64()


def threshold_items(thresholds: Iterable[float], max_thresholds: int, what: str) -> list[Any]:
    """The thresholds given, as a list, read once and no further than the limit allows.

    A sequence, an array or a Series is measured first (``len()``, an array's ``size``) and
    read only within the limit, so ``range(10**9)`` is refused without being listed; any other
    iterable (an iterator, a generator) is read once, at most ``max_thresholds`` + 1 items (or
    the ceiling's), so one without end, or a long one, is refused before it is read to the end.

    Parameters
    ----------
    thresholds : iterable of float
        ``thresholds=`` as given.
    max_thresholds : int
        The limit (an integer >= 1).
    what : str
        The analysis' name, for the message.

    Returns
    -------
    list
        The items, unread (numpy float32 items stay numpy scalars: the decimal each prints as).

    Raises
    ------
    SizeLimitError
        An iterator with more items than the limit (:data:`polars_fair.errors.ITERATOR_TOO_LONG`);
        a sequence longer than the limit or its ceiling (:func:`count_thresholds`).

    Examples
    --------
    >>> threshold_items((t / 10 for t in range(1, 3)), 10, "sweep")
    [0.1, 0.2]
    >>> threshold_items(range(10**9), 10, "sweep")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.SizeLimitError: sweep: thresholds=: 1,000,000,000 thresholds, more than ...
    """
    limit = check_int(max_thresholds, "max_thresholds")
    if isinstance(thresholds, (str, bytes)) or not isinstance(thresholds, Iterable):
        return number_items(thresholds)  # a scalar: a list of one
    if isinstance(thresholds, Sized):  # measured before it is listed: range(10**9)
        size = getattr(thresholds, "size", None) if is_numpy(thresholds, "ndarray") else None
        count_thresholds(len(thresholds) if size is None else int(size), limit, what)
        return number_items(thresholds)
    cap = min(limit, LIMITS["max_thresholds"].limit)
    items = number_items(list(itertools.islice(iter(thresholds), cap + 1)))
    if len(items) > cap:
        raise E.SizeLimitError(E.ITERATOR_TOO_LONG.format(
            what=f"{what}: thresholds=", unit="thresholds", limit=cap,
            option="max_thresholds"))
    return items


def count_thresholds(size: int, max_thresholds: int, what: str) -> None:
    """Refuse ``size`` thresholds above the ceiling of ``max_thresholds``, or above its value.

    :func:`threshold_items` calls it on a sequence's size before the sequence is read, and
    :func:`checked_grid` on the items read.

    Parameters
    ----------
    size : int
        How many thresholds were given.
    max_thresholds : int
        The limit (already checked as an integer).
    what : str
        The analysis' name, for the message.

    Raises
    ------
    SizeLimitError
        :data:`polars_fair.errors.BEYOND_CEILING` past the ceiling (advice: a shorter grid),
        :data:`polars_fair.errors.TOO_MANY_THRESHOLDS` past ``max_thresholds``.

    Examples
    --------
    >>> count_thresholds(9, 10, "sweep")
    """
    check_ceiling(size, "max_thresholds", f"{what}: thresholds=", "thresholds",
                  E.CEILING_THRESHOLDS, E.CLI_CEILING_THRESHOLDS)
    if size > max_thresholds:
        raise E.SizeLimitError(E.TOO_MANY_THRESHOLDS.format(what=what, size=size,
                                                            limit=max_thresholds))


def _round_step(step: float) -> str:
    """The smallest of 1, 2, 2.5, 5 x 10**k at least ``step`` (a START:STOP:STEP of <= 99)."""
    k = math.floor(math.log10(step)) if step > 0 else 0
    for m in ("1", "2", "2.5", "5", "10"):
        candidate = Decimal(m).scaleb(k)
        if candidate >= Decimal(repr(step)):
            return format(candidate.normalize(), "f")
    return repr(step)  # pragma: no cover - 10 x 10**k >= step always


def _on_probability_scale(scores: pl.LazyFrame, what: str, grid: Sequence[float]) -> pl.LazyFrame:
    """``scores``, checked when collected to lie in [0, 1] (for a default grid)."""
    schema = scores.collect_schema()

    def check(df: pl.DataFrame) -> pl.DataFrame:
        s = df.get_column("score").drop_nulls()
        low, high = s.min(), s.max()
        if low is not None and high is not None and (low < 0 or high > 1):  # type: ignore[operator]
            distinct = s.unique().sort()
            if distinct.len() <= 100:
                values = distinct.to_list()
                suggestion = f"the distinct scores, thresholds={values}"
                cli = "the distinct scores, --thresholds " + ",".join(map(repr, values))
            else:
                # evenly spaced over the scores' range, written with its numbers (runs as is)
                suggestion = (f"99 thresholds evenly spaced over the scores' range, "
                              f"thresholds=np.linspace({low!r}, {high!r}, 99)")
                step = _round_step(float(high - low) / 98)  # type: ignore[operator,arg-type]
                cli = (f"thresholds evenly spaced over the scores' range, --thresholds "
                       f"{low!r}:{high!r}:{step}")
            facts = {"what": what, "grid": repr(grid), "low": low, "high": high}
            raise E.InvalidArgumentError(
                E.DEFAULT_GRID_NOT_PROBABILITIES.format(**facts, suggestion=suggestion),
                cli_message=E.DEFAULT_GRID_NOT_PROBABILITIES.format(**facts, suggestion=cli))
        return df

    return scores.map_batches(check, schema=schema)


def checked_grid(scores: pl.LazyFrame, thresholds: Iterable[float], default: Sequence[float],
                 dtype: pl.DataType, max_thresholds: int, what: str,
                 ) -> tuple[pl.LazyFrame, list[float]]:
    """The sorted, distinct thresholds in the score's dtype, and the score table to use.

    Parameters
    ----------
    scores : pl.LazyFrame
        The score table.
    thresholds : iterable of float
        The thresholds given (:func:`threshold_items`: an iterator is read once, bounded).
    default : sequence of float
        The analysis' default grid (for probabilities).
    dtype : pl.DataType
        The score's dtype.
    max_thresholds : int
        The most thresholds accepted.
    what : str
        The analysis' name, for the messages.

    Returns
    -------
    scores : pl.LazyFrame
        ``scores``; when ``thresholds`` is the default grid, checked (at collect time) to lie in
        [0, 1].
    thresholds : list of float
        Sorted, distinct, finite, in the score's dtype.

    Raises
    ------
    InvalidArgumentError
        No threshold, or one that is not a finite number; at collect time, the default grid on
        scores outside [0, 1].
    SizeLimitError
        More than ``max_thresholds`` thresholds (at once).

    Examples
    --------
    >>> t = pl.LazyFrame({"score": [0.5], "positives": [1], "negatives": [0]})
    >>> checked_grid(t, [0.7, 0.3, 0.7], (0.5,), pl.Float64(), 10, "sweep")[1]
    [0.3, 0.7]
    """
    limit = check_int(max_thresholds, "max_thresholds")
    given = threshold_items(thresholds, limit, what)
    count_thresholds(len(given), limit, what)  # before the grid is built
    ts = sorted({threshold_in_dtype(t, dtype) for t in given})
    if not ts:
        raise E.InvalidArgumentError(E.NO_THRESHOLDS)
    # the default grid, by value: the command line passes it as a list of Decimals
    if [float(t) for t in given] == [float(d) for d in default]:
        scores = _on_probability_scale(scores, what, default)
    return scores, ts


def sweep_counts(scores: pl.LazyFrame, keys: Sequence[str], thresholds: Sequence[float],
                 *, max_groups: int = DEFAULT_MAX_GROUPS) -> pl.LazyFrame:
    r"""The count table of every group at every threshold (thresholds already checked).

    Parameters
    ----------
    scores : pl.LazyFrame
        A score table (keys, ``score``, ``positives``, ``negatives`` [, ``n_rows``]).
    keys : sequence of str
        Its key columns.
    thresholds : sequence of float
        Sorted, distinct, finite, already in the score's dtype.
    max_groups : int, default 10000
        The most groups of the table completed with the empty intersections of ``pl.Enum``
        keys (:func:`polars_fair.counting.tables.complete_enums`, as the count table of ``report``).

    Returns
    -------
    pl.LazyFrame
        keys, ``threshold`` (Float64), ``n`` (Int64 rows), ``tp, fp, fn, tn`` (Int64; Float64
        weighted, followed by ``weight_sum`` and, when the score table has it,
        ``n_positive_weight``): :math:`tp(t) = \sum positives[score \ge t]`,
        :math:`fp(t) = \sum negatives[score \ge t]`, :math:`fn = P - tp`, :math:`tn = N - fp`;
        every intersection of Enum keys' categories, an empty one with zero counts; sorted by
        keys (nulls last) and threshold.

    Raises
    ------
    SizeLimitError
        The Enum completion would exceed ``max_groups``.

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "a"], "score": [0.2, 0.8], "positives": [0, 1],
    ...                   "negatives": [1, 0]})
    >>> sweep_counts(t, ["g"], [0.5]).collect().rows()
    [('a', 0.5, 2, 1, 0, 0, 1)]
    """
    return _stepped_counts(scores, keys, thresholds, max_groups).drop(_STEP)


#: The working column of :func:`_stepped_counts`: the smallest pooled score at or above the
#: threshold (null above every score). Thresholds with the same step select the same rows in
#: every group, so their count tables, and reports, are the same.
_STEP = "__pf_step"
_GID = "__pf_gid"


def _stepped_counts(scores: pl.LazyFrame, keys: Sequence[str], thresholds: Sequence[float],
                    max_groups: int) -> pl.LazyFrame:
    """:func:`sweep_counts` with the working column ``__pf_step``.

    Built from the score table alone, never its rows times the thresholds: each group's
    cumulative counts from the top score down (``tp_ge(s) = Σ positives[score >= s]``), then
    each threshold is an as-of search into them (the group's smallest score at or above it).
    The work grows with the groups times the thresholds (the output) plus the score table.
    """
    keys = list(keys)
    schema = scores.collect_schema()
    weighted = schema["positives"].is_float()
    cell = pl.Float64 if weighted else pl.Int64
    rows = pl.col("n_rows") if "n_rows" in schema else pl.col("positives") + pl.col("negatives")
    grid = pl.LazyFrame({"threshold": sorted(thresholds)}, schema={"threshold": pl.Float64})
    positive = [POSITIVE_WEIGHT_ROWS] if weighted and POSITIVE_WEIGHT_ROWS in schema else []
    totals = (scores.group_by(keys) if keys else scores.group_by(pl.lit(0).alias("__pf_all"))).agg(
        rows.sum().cast(pl.Int64).alias("n"), pl.col("positives").sum().alias("__pf_p"),
        pl.col("negatives").sum().alias("__pf_n"),
        *(pl.col(c).sum().cast(pl.Int64) for c in positive),
    )
    if not keys:
        totals = totals.drop("__pf_all")
    else:  # the empty intersections of Enum keys, with zero counts, as report's count table
        totals = complete_enums(totals, keys, max_groups=max_groups).with_columns(
            pl.col("__pf_p", "__pf_n", *positive).fill_null(0))
    totals = totals.with_row_index(_GID)
    cells = scores.group_by([*keys, "score"]).agg(pl.col("positives").sum(),
                                                  pl.col("negatives").sum())
    cells = (cells.join(totals.select(*keys, _GID), on=keys, how="inner", nulls_equal=True)
             if keys else cells.with_columns(pl.lit(0, dtype=pl.UInt32).alias(_GID)))
    cumulative = (  # from the top score down: the counts at or above each score of a group
        cells.sort([_GID, "score"], descending=[False, True])
        .select(_GID, "score", pl.col("positives").cum_sum().over(_GID).alias("tp"),
                pl.col("negatives").cum_sum().over(_GID).alias("fp"))
        .sort("score")
    )
    pooled = scores.select(pl.col("score").unique().sort().alias(_STEP))
    steps = grid.join_asof(pooled, left_on="threshold", right_on=_STEP, strategy="forward")
    on = [*keys, "threshold"]
    return (
        totals.join(steps, how="cross").sort("threshold")
        .join_asof(cumulative, left_on="threshold", right_on="score", by=_GID,
                   strategy="forward", check_sortedness=False)  # both sorted just above
        .with_columns(pl.col("tp", "fp").fill_null(0).cast(cell))
        .with_columns(
            (pl.col("__pf_p") - pl.col("tp")).cast(cell).alias("fn"),
            (pl.col("__pf_n") - pl.col("fp")).cast(cell).alias("tn"),
            (pl.col("__pf_p") + pl.col("__pf_n")).cast(pl.Float64).alias("weight_sum"),
        )
        .select(*on, "n", "tp", "fp", "fn", "tn", *(["weight_sum"] if weighted else []),
                *positive, _STEP)
        .sort(on, nulls_last=True)
    )


@borrow(sweep_counts, params=("scores", "keys"))
@takes(ReportOptions, after="thresholds")
def sweep_from_scores(
    scores: pl.LazyFrame,
    keys: Sequence[str],
    *,
    thresholds: Sequence[float] = SWEEP_THRESHOLDS,
    max_thresholds: int = DEFAULT_MAX_THRESHOLDS,
    max_groups: int = DEFAULT_MAX_GROUPS,
    score_dtype: pl.DataType = _FLOAT64,
    **options: Unpack[ReportOptions],
) -> pl.LazyFrame:
    r"""The report of every group at each threshold: ``y_pred = y_score >= threshold``.

    From the score table: :math:`tp(t) = \sum positives[score \ge t]`,
    :math:`fp(t) = \sum negatives[score \ge t]`, :math:`fn = P - tp`, :math:`tn = N - fp`
    (:func:`sweep_counts`). Each threshold's count table then goes through the report's own
    code, :func:`polars_fair.analyses.report.report_from_counts`: the rates are the registry's
    formulas (sources in :data:`polars_fair.core.registry.METRICS`), and ``disparate_impact``
    (Briscoe et al., Definition 2.1), ``impact_ratio`` and ``adverse_impact`` (the EEOC four-fifths
    rule, 29 CFR 1607.4(D)), ``ofi`` and ``ofi_flag`` (the Objective Fairness Index),
    ``low_support`` and ``finding`` are decided within the threshold exactly as ``report(...,
    y_score=, threshold=t)`` decides them (reference chosen per threshold, verdicts exact on the
    counts: :mod:`polars_fair.core.rules`). Without labels (``y_true=None``) the score table counts
    every row as a positive where the count table counts it as a negative: the selection is then in
    ``tp`` and ``fn`` rather than ``fp`` and ``tn``, and the label-based rates differ from report's,
    while the selection rate, the ratios, OFI (a difference of marginal benefits, equal either
    way) and every verdict are report's.

    Parameters
    ----------
    thresholds : sequence of float, default (0.1, 0.2, ..., 0.9)
        Finite numbers; sorted and de-duplicated (after rounding to the score's dtype). The
        default suits probabilities: on scores outside [0, 1] it raises (pass a grid on the
        scores' own scale, e.g. their distinct values or quantiles).
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        The reference group of ``disparate_impact`` and ``ofi`` at each threshold, as in
        ``report`` (:mod:`polars_fair.core.reference`; ``"max_selection_rate"`` is taken per
        threshold).
    min_support : float, default 30
        Groups with fewer rows are flagged ``low_support``.
    ofi_threshold : float, default 0.3
        |OFI| above this is flagged (``ofi_flag``).
    four_fifths : float, default 0.8
        The impact-ratio threshold of the four-fifths rule (``adverse_impact``).
    exclude_low_support : bool, default False
        Low-support groups are neither the reference nor the highest selection rate.
    max_thresholds : int, default 10000
        The most thresholds (each makes a report of every group).
    max_groups : int, default 10000
        The most groups of the count table completed with the empty intersections of
        ``pl.Enum`` keys, as ``report``'s count argument.
    score_dtype : pl.DataType, default Float64
        The dtype of the scores before they were widened (a Float32 score compares in Float32).

    Returns
    -------
    pl.LazyFrame
        keys, ``threshold`` (Float64), then the columns of ``report`` at that threshold:
        ``n`` (Int64 rows), ``tp, fp, fn, tn`` (Int64; Float64 weighted, followed by
        ``weight_sum``), every rate of the registry (Float64, null where undefined),
        ``is_reference`` (Boolean), ``disparate_impact``, ``impact_ratio`` (Float64),
        ``adverse_impact`` (Boolean), ``ofi`` (Float64), ``ofi_flag``, ``low_support``,
        ``reference_low_support`` (Boolean), ``finding`` (String); sorted by keys (nulls last)
        and threshold. The groups are those of ``report``: with ``pl.Enum`` keys every
        intersection of their categories, an empty one with ``n = 0``.

    Raises
    ------
    InvalidArgumentError
        No threshold, a threshold that is not a finite number, or a report option outside its
        range; when collected, the default grid on scores outside [0, 1] (the message shows
        their range and suggests a grid).
    SizeLimitError
        More than ``max_thresholds`` thresholds (at once), or an Enum completion of more than
        ``max_groups`` groups.
    UnknownGroupError
        An explicit ``reference`` that is not a group (when collected).

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
    ...                   "positives": [0, 5, 2, 3], "negatives": [5, 0, 3, 2]})
    >>> s = sweep_from_scores(t, ["g"], thresholds=[0.5], min_support=1).collect()
    >>> s.select("g", "tp", "fp", "tpr", "impact_ratio", "adverse_impact").rows()
    [('a', 5, 0, 1.0, 1.0, False), ('b', 3, 2, 0.6, 1.0, False)]
    """
    scores, ts = checked_grid(scores, thresholds, SWEEP_THRESHOLDS, score_dtype, max_thresholds,
                              "sweep")
    return sweep_reports(scores, keys, ts, max_groups=max_groups, **options)


def sweep_reports(scores: pl.LazyFrame, keys: Sequence[str], ts: list[float],
                  *, max_groups: int = DEFAULT_MAX_GROUPS,
                  **options: Unpack[ReportOptions]) -> pl.LazyFrame:
    """:func:`sweep_from_scores` on thresholds already checked (:func:`checked_grid`).

    Parameters
    ----------
    scores : pl.LazyFrame
        A score table.
    keys : sequence of str
        Its key columns.
    ts : list of float
        Sorted, distinct, finite, in the score's dtype.
    max_groups : int, default 10000
        The most groups of the Enum completion (:func:`sweep_counts`).
    **options : ReportOptions
        The report's options (``reference``, ``min_support``, ``ofi_threshold``,
        ``four_fifths``, ``exclude_low_support``).

    Returns
    -------
    pl.LazyFrame
        The columns of :func:`sweep_from_scores`.

    Examples
    --------
    >>> t = pl.LazyFrame({"score": [0.2, 0.8], "positives": [0, 1], "negatives": [1, 0]})
    >>> sweep_reports(t, [], [0.5], min_support=1).collect()["tp"].to_list()
    [1]
    """
    keys = list(keys)
    counts = _stepped_counts(scores, keys, ts, check_int(max_groups, "max_groups"))

    def at(part: pl.LazyFrame, t: float) -> pl.LazyFrame:
        report = report_from_counts(part.drop("threshold", _STEP), keys, **options)
        return report.with_columns(pl.lit(t, dtype=pl.Float64).alias("threshold"))

    # the plan of one threshold gives the schema (and raises the option errors now)
    schema = at(counts.filter(pl.col("threshold") == ts[0]), ts[0]).collect_schema()
    order = [*keys, "threshold", *[c for c in schema.names() if c not in keys and c != "threshold"]]
    out_schema = pl.Schema([(c, schema[c]) for c in order])

    def run(df: pl.DataFrame) -> pl.DataFrame:
        # the small table: one report per step (thresholds between the same two pooled scores
        # have the same counts in every group, so the same report), each collected on its own
        # (one plan of thousands of reports took gigabytes), then given to each threshold
        by_t = df.partition_by("threshold", as_dict=True)
        made: dict[Any, pl.DataFrame] = {}
        parts = []
        for t in ts:
            if (t,) not in by_t:
                continue
            part = by_t[(t,)]
            step = part.get_column(_STEP)[0] if part.height else None
            if step not in made:
                made[step] = at(dense(part).lazy(), t).collect(engine="in-memory")
            parts.append(made[step].with_columns(pl.lit(t, dtype=pl.Float64).alias("threshold")))
        if not parts:
            return pl.DataFrame(schema=out_schema)
        out = pl.concat(parts, how="vertical").select(order)
        return out.sort([*keys, "threshold"], nulls_last=True, maintain_order=True)

    return counts.map_batches(run, schema=out_schema)
