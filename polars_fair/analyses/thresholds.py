"""Choosing a threshold: at each threshold, the overall cost and the four-fifths verdict.

One row per threshold, read from :func:`polars_fair.analyses.sweep.sweep_from_scores` (each
threshold's report, computed by the report's own code), so every verdict here is the one
``report(..., y_score=, threshold=t)`` gives: ``all_pass`` is true exactly when every supported
group's ``adverse_impact`` is false at that threshold.

One threshold applies to every group. Group-specific cutoffs are not an option this module
offers: under US employment law they are disparate treatment. Title VII § 703(l), 42 U.S.C.
§ 2000e-2(l), makes it unlawful "to adjust the scores of, use different cutoff scores for, or
otherwise alter the results of, employment related tests on the basis of race, color, religion,
sex, or national origin".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Unpack

import polars as pl

from polars_fair._docs import borrow
from polars_fair.analyses.report import with_rates
from polars_fair.analyses.runner import on_small_table
from polars_fair.analyses.sweep import (
    DEFAULT_MAX_THRESHOLDS,
    checked_grid,
    sweep_from_scores,
    sweep_reports,
)
from polars_fair.core.families import ReportOptions, takes
from polars_fair.core.labels import group_label
from polars_fair.core.spec import DEFAULT_MAX_GROUPS

__all__ = ["THRESHOLD_GRID", "thresholds_from_scores"]

_FLOAT64 = pl.Float64()


class _Grid(tuple[float, ...]):
    """The default grid: a tuple of floats that prints short (in ``help()`` and ``--help``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"({self[0]}, {self[1]}, ..., {self[-1]})"

    __str__ = __repr__


#: The default thresholds of ``thresholds``: 0.01, 0.02, ..., 0.99 (99 thresholds, for scores
#: that are probabilities; pass your own for other scales, e.g. the scores' quantiles).
THRESHOLD_GRID: tuple[float, ...] = _Grid(round(i / 100, 2) for i in range(1, 100))


@borrow(sweep_from_scores, params=("scores", "keys", "max_thresholds", "max_groups", "score_dtype"),
        sections=("Raises",))
@takes(ReportOptions, after="thresholds")
def thresholds_from_scores(
    scores: pl.LazyFrame,
    keys: Sequence[str],
    *,
    thresholds: Sequence[float] = THRESHOLD_GRID,
    max_thresholds: int = DEFAULT_MAX_THRESHOLDS,
    max_groups: int = DEFAULT_MAX_GROUPS,
    score_dtype: pl.DataType = _FLOAT64,
    **options: Unpack[ReportOptions],
) -> pl.LazyFrame:
    """Per threshold: the overall accuracy, TPR and selection rate, and the four-fifths verdict.

    ``y_pred = y_score >= threshold`` for every group alike: one threshold applies to every
    group, because group-specific cutoffs are disparate treatment under US employment law
    (Title VII § 703(l), 42 U.S.C. § 2000e-2(l), prohibits "use different cutoff scores for
    [...] employment related tests on the basis of race, color, religion, sex, or national
    origin"). At each threshold the groups' report is
    :func:`polars_fair.analyses.sweep.sweep_from_scores` (the report's own code and exact rules),
    and:

    * ``accuracy`` :math:`(TP + TN)/n`, ``tpr`` :math:`TP/(TP + FN)` and ``selection_rate``
      :math:`(TP + FP)/n` are the registry's formulas (:data:`polars_fair.core.registry.METRICS`) on
      the counts summed over every group (the whole population, rows with a missing group
      included); without labels (``y_true=None``) only ``selection_rate`` means anything;
    * a group is *supported* when it is not ``low_support`` (``n >= min_support`` rows);
    * ``min_impact_ratio`` is the lowest ``impact_ratio`` (selection rate over the highest
      selection rate; the EEOC four-fifths rule, 29 CFR 1607.4(D)) over the supported groups,
      ``worst_group`` the supported group holding it (the first in key order on a tie);
    * ``max_abs_ofi`` is the largest :math:`|OFI|` (Briscoe et al.) over the supported groups,
      ``n_ofi_flagged`` the number of them whose |OFI| exceeds ``ofi_threshold`` (report's
      ``ofi_flag``: the classifier's own errors treat the group unjustly);
    * ``n_failing`` counts the supported groups with ``adverse_impact`` (impact ratio below
      ``four_fifths``, decided exactly on the counts by :mod:`polars_fair.core.rules`, so an impact
      ratio of exactly 4/5 passes); ``all_pass`` is true when there is a supported group and
      every supported group's impact ratio is defined and passes. An undefined impact ratio
      (nobody selected at all) does not pass, as in the CI gate.

    Read off the thresholds where ``all_pass`` is true and compare their ``accuracy`` with the
    best accuracy over all thresholds: the difference is what passing costs.

    Parameters
    ----------
    thresholds : sequence of float, default (0.01, 0.02, ..., 0.99)
        Finite numbers, sorted and de-duplicated (after rounding to the score's dtype). The
        default grid suits probabilities: on scores outside [0, 1] it raises (when collected;
        the message shows their range). For scores on another scale pass your own (for
        example their distinct values, or ``np.quantile(scores, np.linspace(0.01, 0.99, 99))``).
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        The reference group of ``disparate_impact`` and ``ofi``, as in ``report``.
    min_support : float, default 30
        Groups with fewer rows are low-support: listed in the sweep, left out of the columns
        here.
    ofi_threshold : float, default 0.3
        |OFI| above this is flagged (report's ``ofi_flag``), counted in ``n_ofi_flagged``.
    four_fifths : float, default 0.8
        The impact-ratio threshold of the four-fifths rule.
    exclude_low_support : bool, default False
        Low-support groups are neither the reference nor the highest selection rate (so a
        handful of rows cannot set the bar), as in ``report``.

    Returns
    -------
    pl.LazyFrame
        One row per threshold, sorted by it: ``threshold`` (Float64); ``n`` (Int64 rows);
        ``selection_rate``, ``tpr``, ``accuracy`` (Float64, null where undefined; weighted
        with ``sample_weight``); ``n_groups``, ``n_supported``, ``n_failing`` (Int64);
        ``min_impact_ratio`` (Float64, null when no supported group has one);
        ``worst_group`` (String, for display: the group's label in the charts,
        :func:`polars_fair.core.labels.group_label`, key values joined by ``" | "``, a missing value
        written ``"(missing)"``, a value that could read as another (the text ``"(missing)"``,
        one starting with ``"``, one holding ``" | "``) quoted, so no two groups share a
        label; ``"all"`` without keys; null when no supported group has an
        impact ratio); ``worst_group_keys`` (with keys only: Struct of the key columns in
        their dtypes, nulls kept, the same group, to read unambiguously); ``max_abs_ofi``
        (Float64); ``n_ofi_flagged`` (Int64); ``all_pass``
        (Boolean, never null: false with ``n_failing`` 0 means an undefined impact ratio).
        ``n_groups`` counts report's groups, the empty intersections of ``pl.Enum`` keys
        included.

    Examples
    --------
    Two groups of two rows (a scores 0.6 and 0.8, b 0.3 and 0.9): at 0.5 a selects both and b
    one (impact ratio 1/2, adverse), at 0.7 each selects one (both pass):

    >>> t = pl.LazyFrame({"g": ["a", "a", "b", "b"], "score": [0.6, 0.8, 0.3, 0.9],
    ...                   "positives": [1, 0, 1, 0], "negatives": [0, 1, 0, 1]})
    >>> out = thresholds_from_scores(t, ["g"], thresholds=[0.5, 0.7], min_support=1).collect()
    >>> out.select("threshold", "selection_rate", "accuracy", "min_impact_ratio",
    ...            "worst_group", "all_pass").rows()
    [(0.5, 0.75, 0.25, 0.5, 'b', False), (0.7, 0.5, 0.0, 1.0, 'a', True)]
    """
    keys = list(keys)
    scores, ts = checked_grid(scores, thresholds, THRESHOLD_GRID, score_dtype, max_thresholds,
                              "thresholds")
    swept = sweep_reports(scores, keys, ts, max_groups=max_groups, **options)
    weighted = "weight_sum" in swept.collect_schema().names()
    cells = ["n", "tp", "fp", "fn", "tn", *(["weight_sum"] if weighted else [])]
    supported = ~pl.col("low_support")
    ir = pl.col("impact_ratio").filter(supported)
    label = group_label(keys) if keys else pl.lit("all", dtype=pl.String).alias("group")
    worst = supported & (pl.col("impact_ratio") == ir.min())

    def build(table: pl.LazyFrame) -> pl.LazyFrame:
        overall = with_rates(table.group_by("threshold").agg(pl.col(cells).sum())).select(
            "threshold", pl.col("n").cast(pl.Int64), "selection_rate", "tpr", "accuracy")
        verdicts = table.with_columns(label).group_by("threshold").agg(
            pl.len().cast(pl.Int64).alias("n_groups"),
            supported.sum().cast(pl.Int64).alias("n_supported"),
            (supported & pl.col("adverse_impact")).sum().cast(pl.Int64).alias("n_failing"),
            ir.min().alias("min_impact_ratio"),
            # group_by keeps each group's rows in table order: the first in key order on a tie
            pl.col("group").filter(worst).first().alias("worst_group"),
            *([pl.struct(keys).filter(worst).first().alias("worst_group_keys")] if keys else []),
            pl.col("ofi").abs().filter(supported).max().alias("max_abs_ofi"),
            (supported & pl.col("ofi_flag")).sum().cast(pl.Int64).alias("n_ofi_flagged"),
            ((supported.sum() > 0)
             & (~pl.col("adverse_impact").filter(supported)).fill_null(False).all())
            .alias("all_pass"),
        )
        return overall.join(verdicts, on="threshold", how="left").sort("threshold")

    return on_small_table(swept, build)
