"""The findings of the report: their names, their meanings, and the one rule that reads them.

:func:`read_finding` decides a group's ``finding`` from its flags
(:func:`polars_fair.analyses.report.report_from_counts` explains each); the report's exact and
weighted paths call it, and its expression path states the same rule.
"""

from __future__ import annotations

from typing import Any

import polars as pl

__all__ = ["FINDINGS", "FINDING_MEANINGS", "constant_outcome", "constant_side", "read_finding"]

FINDINGS = ("algorithmic", "systemic", "undefined impact ratio", "constant labels",
            "constant predictions", "none", "insufficient support")
#: What each finding means, in plain words (the command line prints it under the report).
FINDING_MEANINGS = {
    "algorithmic": "the classifier's own errors treat the group unjustly: its Objective "
                   "Fairness Index (OFI, errors against the labels) passes the threshold "
                   "(Briscoe et al.)",
    "systemic": "selection rates differ beyond the four-fifths rule, but the classifier's "
                "errors do not: the disparity is in the labels or the population, not in the "
                "model's mistakes (and biased labels can hide one)",
    "insufficient support": "too few rows to judge: the group, or the group it is compared "
                            "with, has fewer than min_support rows, or its OFI is undefined",
    "undefined impact ratio": "no group is selected, so the impact ratio is 0/0: the "
                              "four-fifths rule cannot pass (the gate fails it too)",
    "constant labels": "the labels (y_true) hold one value on every row, so the classifier's "
                       "errors are its selections and OFI only restates the selection rates: "
                       "whether a disparity is algorithmic or systemic cannot be read",
    "constant predictions": "the prediction (y_pred) holds one value on every row, so every "
                            "group is treated alike and OFI differs only by the groups' base "
                            "rates, a difference in the labels: no finding about the "
                            "classifier can be read",
    "none": "no disparity beyond the thresholds",
}
#: The findings that name a cause (the classifier, or the labels and population); they need
#: labels and predictions that each take both values (:func:`constant_outcome`).
CAUSES = ("algorithmic", "systemic")


def read_finding(low: bool, ofi: Any, ofi_flag: Any, adverse: Any, di_fails: bool,
                 ratio_undefined: bool, ref_low: bool, top_low: bool) -> str:
    """A group's ``finding``: the one rule (:func:`report_from_counts` explains it).

    Each verdict is only as good as the group it is measured against: OFI and DI against the
    reference, the impact ratio against the highest rate. Passing against a low-support
    maximum implies passing against any lower one, so only a failure measured against a
    low-support benchmark is insufficient support. An undefined impact ratio (0/0) of a
    supported group is not a pass: the gate fails it, and the report says so.

    Parameters
    ----------
    low : bool
        The group has low support.
    ofi, ofi_flag, adverse : Any
        Its OFI (``None`` when undefined), OFI flag and adverse-impact flag.
    di_fails : bool
        Its disparate impact fails the four-fifths rule.
    ratio_undefined : bool
        Its impact ratio is undefined (the highest selection rate is 0).
    ref_low, top_low : bool
        The reference, and the group of the highest rate, have low support.

    Returns
    -------
    str
        One of :data:`FINDINGS`.

    Examples
    --------
    >>> read_finding(False, 0.0, False, None, False, True, False, False)
    'undefined impact ratio'
    """
    if low or ofi is None:
        return "insufficient support"
    if ofi_flag:
        return "insufficient support" if ref_low else "algorithmic"
    if (adverse and not top_low) or (di_fails and not ref_low):
        return "systemic"  # a failure measured against a supported benchmark stands
    if adverse or di_fails:
        return "insufficient support"
    if ratio_undefined:
        return "undefined impact ratio"
    return "insufficient support" if ref_low else "none"


def constant_side(tp: float, fp: float, fn: float, tn: float) -> str | None:
    """Which side of a count table holds one value on every row, if any.

    Parameters
    ----------
    tp, fp, fn, tn : float
        The table's cells summed over its groups (counts or weight sums).

    Returns
    -------
    str or None
        ``"constant labels"`` when no row is positive, or none negative, in ``y_true``;
        ``"constant predictions"`` likewise in ``y_pred``; ``None`` otherwise (or no rows).

    Examples
    --------
    >>> constant_side(3, 0, 5, 0), constant_side(3, 2, 0, 0), constant_side(1, 1, 1, 1)
    ('constant labels', 'constant predictions', None)
    """
    if tp + fp + fn + tn <= 0:
        return None
    if tp + fn <= 0 or fp + tn <= 0:
        return "constant labels"
    if tp + fp <= 0 or fn + tn <= 0:
        return "constant predictions"
    return None


def constant_outcome(report: pl.DataFrame) -> pl.DataFrame:
    """The report's findings where its labels or predictions hold one value on every row.

    With one label value the classifier's errors are its selections (every selection a false
    positive, or every rejection a false negative), so OFI restates the selection rates and
    cannot tell an algorithmic disparity from a systemic one; with one prediction value every
    group is treated alike and OFI differs only by the base rates. A group whose finding would
    name a cause (:data:`CAUSES`) gets ``"constant labels"`` or ``"constant predictions"``
    instead; the figures (rates, ratios, OFI) are unchanged, and the gate's rules read them.

    Parameters
    ----------
    report : pl.DataFrame
        A report table (``tp, fp, fn, tn`` and ``finding``), every group of one analysis.

    Returns
    -------
    pl.DataFrame
        The same table, its ``finding`` column honest about a constant side.

    Examples
    --------
    >>> t = pl.DataFrame({"g": ["a", "b"], "tp": [30, 10], "fp": [0, 0], "fn": [10, 30],
    ...                   "tn": [0, 0], "finding": ["none", "algorithmic"]})
    >>> constant_outcome(t)["finding"].to_list()
    ['none', 'constant labels']
    """
    side = constant_side(*(float(report[c].sum() or 0) for c in ("tp", "fp", "fn", "tn")))
    if side is None:
        return report
    return report.with_columns(
        pl.when(pl.col("finding").is_in(CAUSES)).then(pl.lit(side))
        .otherwise(pl.col("finding")).alias("finding"))
