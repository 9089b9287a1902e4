"""The gate on change: a candidate model against its baseline, beside the CI gate.

:func:`change_gate` reads the paired comparison (:class:`polars_fair.api.compare.FairPaired`)
and fails a supported group whose impact ratio drops, or whose |OFI| rises, by more than a
limit when the paired interval shows the change is real; ``polars-fair check --baseline-pred``
runs it beside :func:`polars_fair.audit.gate.gate`, whose limits, support rule and group labels
it shares.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import polars as pl

from polars_fair.api.compare import FairPaired
from polars_fair.audit.gate import LOW_SUPPORT, ZERO_DENOMINATOR, check_limit, group_labels
from polars_fair.core import rules as R
from polars_fair.core.options import DEFAULTS, check

__all__ = ["CHANGE_FAILED", "CHANGE_GATE_COLUMNS", "NOT_REAL", "change_gate", "change_message"]

#: The columns of :func:`change_gate` after ``metric`` and the key columns.
CHANGE_GATE_COLUMNS = ("group", "n", "baseline", "value", "change", "change_low",
                       "change_high", "limit", "rule", "checked", "passed", "reason")
#: ``reason`` of a change that is within its limit or not shown real by the paired interval.
NOT_REAL = "the paired {level:g}% interval [{low:.4f}, {high:.4f}] does not exclude 0"
#: The message of a failed change check (``polars-fair check --baseline-pred``).
CHANGE_FAILED = (
    "{group}: {metric} {before:.4f} (baseline) -> {after:.4f} (candidate), worse by {worse:.4f} "
    "> {limit:g}; paired {level:g}% interval of the change [{low:.4f}, {high:.4f}] excludes 0"
)


def change_gate(
    paired: FairPaired,
    *,
    reference: Any = DEFAULTS.reference,
    max_impact_ratio_drop: float | Decimal = 0.05,
    max_ofi_increase: float | Decimal = 0.05,
    level: float = DEFAULTS.level,
    min_support: float = DEFAULTS.min_support,
) -> pl.DataFrame:
    """The gate on change: whether the candidate treats a supported group worse than the baseline.

    From :meth:`polars_fair.api.compare.FairPaired.compare` (both models on the same rows), a
    group with at least ``min_support`` rows (weighted: rows of positive weight, as the
    comparison's ``low_support``) fails when

    * its impact ratio **drops** by more than ``max_impact_ratio_drop`` (``impact_ratio_baseline
      − impact_ratio > limit``, :func:`polars_fair.core.rules.worse_beyond`) **and** the paired
      interval of the change at ``level`` lies below 0 (the drop is real, not noise); or
    * its **|OFI| rises** by more than ``max_ofi_increase`` (``|ofi| − |ofi_baseline| >
      limit``) and the paired interval of the OFI change shows the rise: every OFI the
      interval allows (``ofi_baseline + change``) has a larger |OFI| than the baseline's. Without a
      sign flip that is the interval excluding 0 on the side of the candidate's OFI; across a
      flip the candidate's OFI must lie beyond ``|ofi_baseline|`` over the whole interval
      (labels needed: without them the OFI check is not made).

    Both conditions are needed: a large change the data cannot distinguish from chance passes,
    and so does a real change within the limit. The intervals are those of
    :func:`polars_fair.analyses.compare.compare_from_counts` (for OFI a paired delta method
    on Agresti and Min's adjusted cells, which never collapses to a point; for the impact
    ratio each model's MOVER-R interval combined by MOVER-D,
    :mod:`polars_fair.analyses.ratio_change`).

    Parameters
    ----------
    paired : FairPaired
        The paired count table (:func:`polars_fair.paired_counts`,
        :func:`polars_fair.from_paired_counts`).
    reference : rule, group value, tuple or mapping, default "largest"
        The reference of OFI.
    max_impact_ratio_drop : float, default 0.05
        A finite number in [0, 1].
    max_ofi_increase : float, default 0.05
        A finite number in [0, 2].
    level : float, default 0.95
        The level of the paired intervals.
    min_support : float, default 30
        Rows a group needs to be checked.

    Returns
    -------
    pl.DataFrame
        One row per group and check (``impact_ratio``, then ``ofi`` with labels), by group:
        ``metric`` (String), the key columns, ``group`` (String, as
        :func:`polars_fair.audit.gate.gate`), ``n`` (Int64), ``baseline`` and ``value``
        (Float64: the baseline's and the candidate's figure), ``change``, ``change_low``,
        ``change_high`` (Float64: candidate − baseline and its paired interval), ``limit``
        (Float64), ``rule`` (String), ``checked`` (Boolean: not ``low_support`` and both figures
        defined), ``passed`` (Boolean, null when not checked), ``reason`` (String: why a row
        is not checked, why a large change passes (:data:`NOT_REAL`), or the failure
        (:data:`CHANGE_FAILED`)).

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        A limit, ``level`` or ``min_support`` out of its range.

    Examples
    --------
    Group b's selection rate falls from 40/100 to 10/100 (a: 50/100 under both), so its
    impact ratio drops from 0.8 to 0.2, and all 30 discordant pairs point the same way.

    >>> import polars as pl
    >>> from polars_fair import from_paired_counts
    >>> from polars_fair.counting.paired import PAIRED_CELLS
    >>> zero = dict.fromkeys(PAIRED_CELLS, 0)
    >>> t = pl.DataFrame([{"g": "a", "n": 100, **zero, "y0_p1_b1": 50, "y0_p0_b0": 50},
    ...                   {"g": "b", "n": 100, **zero, "y0_p1_b1": 10, "y0_p0_b1": 30,
    ...                    "y0_p0_b0": 60}])
    >>> g = change_gate(from_paired_counts(t, labels=False))
    >>> g.select("g", "baseline", "value", "passed").rows()
    [('a', 1.0, 1.0, True), ('b', 0.8, 0.2, False)]
    >>> failure, test = g["reason"][1].split("; ")
    >>> failure
    'g=b: impact_ratio 0.8000 (baseline) -> 0.2000 (candidate), worse by 0.6000 > 0.05'
    >>> test
    'paired 95% interval of the change [-0.7744, -0.4046] excludes 0'
    """
    t_ir = check_limit("max_impact_ratio_drop", max_impact_ratio_drop, 0.0, 1.0)
    t_ofi = check_limit("max_ofi_increase", max_ofi_increase, 0.0, 2.0)
    t_support = check("min_support", min_support)
    keys = list(paired.keys)
    out = paired.compare(reference=reference, level=level,
                         min_support=float(t_support)).collect()
    labels = group_labels(out, keys)
    pct = 100 * float(level)
    rows: list[dict[str, Any]] = []
    metrics = [("impact_ratio", t_ir, False)] + ([("ofi", t_ofi, True)] if paired.labels else [])
    for i, r in enumerate(out.iter_rows(named=True)):
        for metric, limit, absolute in metrics:
            before, after = r[f"{metric}_baseline"], r[metric]
            low, high = r[f"{metric}_change_low"], r[f"{metric}_change_high"]
            row = {"metric": metric, **{k: r[k] for k in keys}, "group": labels[i],
                   "n": r["n"], "baseline": before, "value": after,
                   "change": r[f"{metric}_change"], "change_low": low, "change_high": high,
                   "limit": float(limit),
                   "rule": (f"|ofi| - |ofi_baseline| <= {float(limit):g} or not real"
                            if absolute else f"drop <= {float(limit):g} or not real")}
            row.update(_change_verdict(bool(r["low_support"]), before, after, low, high,
                                       limit, absolute, t_support, pct, metric, labels[i]))
            rows.append(row)
    schema: dict[str, Any] = {
              "metric": pl.String, **{k: out.schema[k] for k in keys}, "group": pl.String,
              "n": pl.Int64, **dict.fromkeys(("baseline", "value", "change", "change_low",
                                              "change_high", "limit"), pl.Float64),
              "rule": pl.String, "checked": pl.Boolean, "passed": pl.Boolean,
              "reason": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _change_verdict(low_support: bool, before: float | None, after: float | None, low: float | None,
                    high: float | None, limit: Fraction, absolute: bool, t_support: Fraction,
                    pct: float, metric: str, group: str) -> dict[str, Any]:
    """``checked``, ``passed`` and ``reason`` of one change check (exact on the limit)."""
    if low_support:  # the comparison's flag: rows (of positive weight) < min_support
        return {"checked": False, "passed": None,
                "reason": LOW_SUPPORT.format(min_support=float(t_support))}
    if before is None or after is None or low is None or high is None:
        return {"checked": False, "passed": None, "reason": ZERO_DENOMINATOR}
    worse = R.worse_beyond(abs(before), abs(after), limit) if absolute else \
        R.worse_beyond(-before, -after, limit)
    real = _abs_rise_shown(before, low, high) if absolute else high < 0
    if not worse:
        return {"checked": True, "passed": True, "reason": None}
    if not real:
        return {"checked": True, "passed": True,
                "reason": NOT_REAL.format(level=pct, low=low, high=high)}
    amount = abs(after) - abs(before) if absolute else before - after
    return {"checked": True, "passed": False, "reason": change_message(
        group=group, metric=metric, before=before, after=after, worse=amount,
        limit=float(limit), level=pct, low=low, high=high)}


def _abs_rise_shown(before: float, low: float, high: float) -> bool:
    """Every OFI change in ``[low, high]`` raises |OFI| above ``|before|``.

    The candidate's OFI lies in ``[before + low, before + high]`` at the interval's level; the
    rise of |OFI| is real when even the smallest |OFI| there exceeds ``|before|``. Without a
    sign flip this is the interval excluding 0 on the candidate's side; across a flip (baseline
    −0.30, candidate +0.375) a signed change that is surely positive says nothing about |OFI|.
    """
    lo, hi = before + low, before + high
    least = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
    return least > abs(before)


def change_message(**fields: Any) -> str:
    """The message of a failed change check (:data:`CHANGE_FAILED` filled in).

    Parameters
    ----------
    **fields : Any
        ``group``, ``metric``, ``before``, ``after``, ``worse``, ``limit``, ``level`` (percent),
        ``low``, ``high``.

    Returns
    -------
    str
        One line naming the group, both values, the limit and the paired interval.

    Examples
    --------
    >>> change_message(group="g=b", metric="ofi", before=0.1, after=0.3, worse=0.2, limit=0.05,
    ...                level=95, low=0.1, high=0.3)[:40]
    'g=b: ofi 0.1000 (baseline) -> 0.3000 (ca'
    """
    return CHANGE_FAILED.format(**fields)
