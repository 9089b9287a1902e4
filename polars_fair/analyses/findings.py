"""The findings of the report: their names, their meanings, and the one rule that reads them.

:func:`read_finding` decides a group's ``finding`` from its flags
(:func:`polars_fair.analyses.report.report_from_counts` explains each); the report's exact and
weighted paths call it, and its expression path states the same rule.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FINDINGS", "FINDING_MEANINGS", "read_finding"]

FINDINGS = ("algorithmic", "systemic", "undefined impact ratio", "none", "insufficient support")
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
    "none": "no disparity beyond the thresholds",
}


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
