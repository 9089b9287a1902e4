"""Fairness over time, checked after every period with tests that stay valid (anytime-valid).

Reads the period count table (:mod:`polars_fair.counting.periods`): one row per (period,
group) with ``n, tp, fp, fn, tn``. Each group is compared with one reference group, pooling
**by period** (Mantel–Haenszel weights; never cumulative counts, which mistake a drift of the
rate while a group's share changes for unfairness), with the e-values and confidence sequences
of :mod:`polars_fair.analyses.evalues`.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._lazy import np
from polars_fair.analyses.evalues import sequences_many
from polars_fair.analyses.report import report_from_counts
from polars_fair.analyses.runner import check_clash
from polars_fair.core.numbers import real
from polars_fair.core.options import DEFAULTS, check
from polars_fair.core.reference import Reference
from polars_fair.counting.periods import PERIOD
from polars_fair.counting.tables import rollup

__all__ = ["MONITOR_METRICS", "monitor_from_counts", "monitor_outputs"]

#: The monitored rates: (numerator, denominator) over the count cells.
MONITOR_METRICS = {
    "selection_rate": (("tp", "fp"), ("n",)),
    "tpr": (("tp",), ("tp", "fn")),
    "fpr": (("fp",), ("fp", "tn")),
}
_FLOATS = ("difference", "cs_low", "cs_high", "impact_ratio", "ir_cs_low", "ir_cs_high",
           "p_anytime")
_FLAGS = ("alarm", "four_fifths_alarm", "cs_empty", "ir_cs_empty")


def _schema(table: pl.Schema, keys: Sequence[str]) -> pl.Schema:
    return pl.Schema({PERIOD: table[PERIOD], **{k: table[k] for k in keys},
                      "numerator": pl.Int64(), "denominator": pl.Int64(), "rate": pl.Float64(),
                      "is_reference": pl.Boolean(), **{c: pl.Float64() for c in _FLOATS},
                      **{c: pl.Boolean() for c in _FLAGS}})


def monitor_outputs() -> list[str]:
    """Every column :func:`monitor_from_counts` adds or reads (a key may not be named so).

    Returns
    -------
    list of str
        ``period``, the count cells and the output columns without the keys.

    Examples
    --------
    >>> "alarm" in monitor_outputs() and "period" in monitor_outputs()
    True
    """
    return [*_schema(pl.Schema({PERIOD: pl.Date()}), []).names(), "n", "tp", "fp", "fn", "tn",
            "weight_sum"]


def _run(df: pl.DataFrame, keys: list[str], metric: str, alpha: float,
         four_fifths: float) -> pl.DataFrame:
    """The monitor of a collected period table joined with ``is_reference`` (small, eager)."""
    num, den = MONITOR_METRICS[metric]
    periods = df.select(PERIOD).unique().sort(PERIOD)
    groups = df.select(keys).unique().sort(keys, nulls_last=True)
    if groups.height == 1:  # the rates hold; every comparison is null
        warnings.warn(E.MONITOR_ONE_GROUP.format(keys=repr(keys[0] if len(keys) == 1 else keys)),
                      stacklevel=2)
    full = periods.join(groups, how="cross").join(
        df, on=[PERIOD, *keys], how="left", nulls_equal=True).with_columns(
        numerator=pl.sum_horizontal(num).fill_null(0).cast(pl.Int64),
        denominator=pl.sum_horizontal(den).fill_null(0).cast(pl.Int64))
    full = full.with_columns(pl.col("is_reference").fill_null(False).any().over(keys))
    full = full.sort([*keys, PERIOD], nulls_last=True)
    ref = full.filter(pl.col("is_reference"))
    if ref.height == 0:
        raise E.InvalidArgumentError("__no_reference__")
    s_r, n_r = ref["numerator"].to_numpy(), ref["denominator"].to_numpy()
    # each group's rows are one run of ``full`` (sorted by keys): solve every tested group in
    # one batch, then write its figures into its run
    parts = full.group_by(keys, maintain_order=True).agg(
        pl.len().alias("__pf_len"), pl.col("is_reference").first())
    ends = parts["__pf_len"].cast(pl.Int64).cum_sum().to_numpy()
    runs = [(int(end - n), int(end)) for end, n, is_ref in
            zip(ends, parts["__pf_len"].to_list(), parts["is_reference"].to_list(), strict=True)
            if not is_ref]
    numerator, denominator = full["numerator"].to_numpy(), full["denominator"].to_numpy()
    seqs = sequences_many([(numerator[i:j], denominator[i:j]) for i, j in runs], s_r, n_r,
                          alpha=alpha, four_fifths=four_fifths)
    out = {c: np.full(full.height, np.nan) for c in _FLOATS}
    out |= {c: np.zeros(full.height, dtype=bool) for c in _FLAGS}
    for (i, j), seq in zip(runs, seqs, strict=True):
        for c, values in out.items():
            values[i:j] = getattr(seq, c)
    for c in _FLOATS:  # an undefined figure (nan, an unbounded end) is null
        out[c][~np.isfinite(out[c])] = np.nan
    columns = [pl.Series(c, out[c], nan_to_null=True) for c in _FLOATS] + [
        pl.when(pl.col("is_reference")).then(None).otherwise(pl.Series(out[c])).alias(c)
        for c in _FLAGS]
    rate = pl.when(pl.col("denominator") > 0).then(
        pl.col("numerator") / pl.col("denominator")).cast(pl.Float64).alias("rate")
    result = full.with_columns(rate, *columns)
    _warn_empty(result, keys)
    return result.sort([PERIOD, *keys], nulls_last=True)


def _warn_empty(result: pl.DataFrame, keys: list[str]) -> None:
    """Warn once when a sequence emptied (:data:`~polars_fair.errors.MONITOR_CS_EMPTY`)."""
    flags = [f for f in ("cs_empty", "ir_cs_empty") if result[f].fill_null(False).any()]
    if not flags:
        return
    empty = result.filter(pl.any_horizontal(pl.col(f).fill_null(False) for f in flags))
    first = empty.sort(PERIOD).row(0, named=True)
    names = {"cs_empty": ("difference", "cs_low and cs_high"),
             "ir_cs_empty": ("impact ratio", "ir_cs_low and ir_cs_high")}
    warnings.warn(E.MONITOR_CS_EMPTY.format(
        what=" and the ".join(names[f][0] for f in flags),
        count=empty.select(keys).unique().height,
        group=", ".join(f"{k}={first[k]}" for k in keys), period=first[PERIOD],
        bounds=", ".join(names[f][1] for f in flags), flag=" and ".join(flags)),
        stacklevel=2)


def monitor_from_counts(
    periods: pl.LazyFrame,
    keys: Sequence[str],
    *,
    metric: str = DEFAULTS.metric,
    reference: Any = DEFAULTS.reference,
    alpha: float = 0.05,
    four_fifths: float = DEFAULTS.four_fifths,
    min_support: float = DEFAULTS.min_support,
) -> pl.LazyFrame:
    r"""Each group against the reference, period by period, with anytime-valid sequences.

    Per (period, group): the period's ``numerator`` and ``denominator`` of ``metric``
    (``selection_rate`` :math:`(TP + FP)/n`, ``tpr`` :math:`TP/(TP + FN)`, ``fpr``
    :math:`FP/(FP + TN)`) and its ``rate``; then, over the periods so far (pooled by period,
    Mantel–Haenszel):

    * ``difference`` :math:`\sum w_t d_t / \sum w_t` with :math:`d_t` the group's rate minus
      the reference's and :math:`w_t = n_g n_r/(n_g + n_r)`, and ``impact_ratio``, the
      Mantel–Haenszel risk ratio :math:`\sum s_g n_r/N / \sum s_r n_g/N` (against the
      *reference group's* rate, as ``impact_analysis``'s; ``report``'s divides by the highest);
    * ``cs_low``, ``cs_high``: the confidence sequence for the difference at level
      :math:`1 - \alpha` (every difference whose e-value product is below :math:`1/\alpha`;
      :mod:`polars_fair.analyses.evalues`), and ``ir_cs_low``, ``ir_cs_high`` the one for the
      impact ratio; each is the running intersection over the periods so far (a value rejected
      once stays rejected), read on a grid (steps of 0.005 for the difference, a factor
      :math:`10^{1/100}` for the ratio, from 0.01 to 100) and widened by one grid step: each
      bound is the nearest rejected grid value, an open end;
    * ``p_anytime`` :math:`\min(1, 1/\max_{t \le T}\prod e_t(0))`, valid at every period
      however often it is read; ``alarm``: the sequence excludes 0 (``p_anytime <= alpha``,
      equivalently ``cs_high <= 0`` or ``cs_low >= 0``), true from the first such period on;
      ``four_fifths_alarm``: the impact-ratio sequence lies wholly below ``four_fifths``
      (``ir_cs_high < four_fifths``), likewise;
    * ``cs_empty``, ``ir_cs_empty``: the sequence is empty, every difference (ratio) on its
      grid rejected. The sequences are for one difference (ratio) held by every period; when
      the gap changes over time (a group at 20/200 for five weeks, then 180/200) no constant
      value fits and the running intersection empties: from that period on the flag is true,
      the bounds are null and a ``UserWarning`` (:data:`polars_fair.errors.MONITOR_CS_EMPTY`)
      says so. ``alarm`` and ``p_anytime`` stay valid: they test "no difference in any
      period". A pooled ``difference`` outside its own sequence is an earlier sign of the
      same change.

    A false alarm has probability at most :math:`\alpha` per group over the whole monitoring
    (Ville's inequality), assuming decisions independent within a period given the group
    sizes; with several groups, :math:`\alpha` applies per comparison.

    Parameters
    ----------
    periods : pl.LazyFrame
        A period count table (``period``, keys, ``n, tp, fp, fn, tn``).
    keys : sequence of str
        Its attribute keys (without ``period``).
    metric : {"selection_rate", "tpr", "fpr"}, default "selection_rate"
        The rate monitored (``tpr``, ``fpr`` need labels).
    reference : "largest", "max_selection_rate" or a group, default "largest"
        The reference group, chosen on the whole table (:mod:`polars_fair.core.reference`).
    alpha : float, default 0.05
        The level, in (0, 1).
    four_fifths : float, default 0.8
        The impact-ratio threshold of the four-fifths alarm.
    min_support : float, default 30
        As in the report: a rule-chosen reference has at least this many rows when any does.

    Returns
    -------
    pl.LazyFrame
        One row per (period, group), every group in every period, sorted by period then keys:
        ``period`` (Date), the keys, ``numerator``, ``denominator`` (Int64), ``rate`` (Float64
        in [0, 1], null for an empty period), ``is_reference`` (Boolean), ``difference``,
        ``cs_low``, ``cs_high`` (Float64 in [-1, 1]; null only when ``cs_empty``),
        ``impact_ratio``, ``ir_cs_low``, ``ir_cs_high`` (Float64, ratios >= 0; null when
        ``ir_cs_empty``, and ``ir_cs_high`` also when unbounded), ``p_anytime`` (Float64 in
        [0, 1]), ``alarm``, ``four_fifths_alarm``, ``cs_empty``, ``ir_cs_empty`` (Boolean);
        the comparisons are null on the reference's rows, and ``difference`` and
        ``impact_ratio`` before a group has data (the sequences are then [-1, 1] and
        [0, unbounded)).

    Warns
    -----
    UserWarning
        A sequence emptied (:data:`polars_fair.errors.MONITOR_CS_EMPTY`), or the attributes
        hold one group in the data (:data:`polars_fair.errors.MONITOR_ONE_GROUP`: every
        comparison is null), at collect time.

    Raises
    ------
    InvalidArgumentError
        No keys (:data:`polars_fair.errors.MONITOR_NO_GROUPS`: ``by=None`` has no groups to
        compare), an unknown ``metric``, ``alpha`` outside (0, 1), an option out of range, a
        reference that is no group (``"overall"``) or a mapping naming an attribute other
        than ``keys`` (:data:`polars_fair.errors.BAD_REFERENCE_MAPPING`), ``tpr``/``fpr``
        without labels (checked by the rows' route), a weighted table (``weight_sum``: the
        e-values are likelihood ratios of counts; :data:`polars_fair.errors.MONITOR_WEIGHTS`);
        a key named like an output column (:func:`monitor_outputs`).

    Examples
    --------
    >>> import datetime as dt
    >>> days = [dt.date(2024, 1, 1), dt.date(2024, 1, 8)]
    >>> t = pl.LazyFrame({"period": days * 2, "g": ["a", "a", "b", "b"], "n": [40] * 4,
    ...                   "tp": [0] * 4, "fp": [20, 22, 4, 4], "fn": [0] * 4,
    ...                   "tn": [20, 18, 36, 36]})
    >>> m = monitor_from_counts(t, ["g"], min_support=1).collect()
    >>> m.filter(pl.col("g") == "b").select("difference", "alarm").rows()
    [(-0.4, False), (-0.425, True)]
    """
    if metric not in MONITOR_METRICS:
        raise E.InvalidArgumentError(E.MONITOR_METRIC.format(
            allowed=list(MONITOR_METRICS), value=metric))
    number = real(alpha)  # numpy scalars of any width, Fraction, Decimal
    if number is None or not 0 < number < 1:
        raise E.InvalidArgumentError(E.MONITOR_ALPHA.format(value=alpha))
    check("four_fifths", four_fifths)
    if "weight_sum" in periods.collect_schema().names():  # a weighted table made elsewhere
        raise E.InvalidArgumentError(E.MONITOR_WEIGHTS)
    keys = list(keys)
    if not keys:  # no groups to compare: not a question of which reference
        raise E.InvalidArgumentError(E.MONITOR_NO_GROUPS)
    check_clash(keys, monitor_outputs(), "monitor")
    given = Reference.parse(reference, keys)  # a mapping naming exactly the keys
    totals = rollup(periods.drop(PERIOD), keys)
    flags = report_from_counts(totals, keys, reference=given, min_support=min_support) \
        .select(*keys, "is_reference")
    joined = periods.join(flags, on=keys, how="left", nulls_equal=True) if keys else \
        periods.with_columns(is_reference=pl.lit(True))
    schema = _schema(periods.collect_schema(), keys)

    def run(df: pl.DataFrame) -> pl.DataFrame:
        try:
            return _run(df, keys, metric, float(alpha), float(four_fifths)).select(
                schema.names())
        except E.InvalidArgumentError as exc:
            if str(exc) != "__no_reference__":
                raise
            raise E.InvalidArgumentError(E.MONITOR_NO_REFERENCE.format(
                reference=reference)) from None

    return joined.map_batches(run, schema=schema)
