"""Group rates and the disparity report, computed lazily from a count table.

Every function here takes a count table (key columns, then ``n, tp, fp, fn, tn`` and, when
weighted, ``weight_sum``) as a LazyFrame and returns a LazyFrame; nothing here reads rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.reference import for_set, known, reference_flag
from polars_fair.registry import METRICS, RATE_NAMES, Counts, safe_div

__all__ = ["rates_from_counts", "report_from_counts"]

FINDINGS = ("algorithmic", "systemic", "none", "insufficient support")


def count_exprs(schema_names: Sequence[str]) -> Counts:
    """Count expressions of a count table; ``n`` is ``weight_sum`` when the table is weighted."""
    return Counts.columns(weighted="weight_sum" in schema_names)


def with_rates(counts: pl.LazyFrame) -> pl.LazyFrame:
    """Append every metric of the registry (:data:`polars_fair.registry.METRICS`)."""
    c = count_exprs(counts.collect_schema().names())
    return counts.with_columns([m.value(c) for m in METRICS.values()])


def rates_from_counts(counts: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Keys, ``n``, then every rate (Float64, null where the denominator is 0).

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table (see :func:`polars_fair.tables.count_table`).
    keys : sequence of str
        Its key columns.

    Returns
    -------
    pl.LazyFrame

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a"], "n": [4], "tp": [1], "fp": [1], "fn": [1], "tn": [1]})
    >>> rates_from_counts(c, ["g"]).collect()["tpr"].to_list()
    [0.5]
    """
    return with_rates(counts).select(*keys, "n", *RATE_NAMES)


def _validate_options(min_support: float, ofi_threshold: float, four_fifths: float) -> None:
    for name, val in (("min_support", min_support), ("ofi_threshold", ofi_threshold),
                      ("four_fifths", four_fifths)):
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            raise E.InvalidArgumentError(f"{name} must be a number, got {val!r}")
    if min_support < 0:
        raise E.InvalidArgumentError(f"min_support must be >= 0, got {min_support}")
    if not 0 <= ofi_threshold <= 2:
        raise E.InvalidArgumentError(f"ofi_threshold must lie in [0, 2], got {ofi_threshold}")
    if not 0 < four_fifths <= 1:
        raise E.InvalidArgumentError(f"four_fifths must lie in (0, 1], got {four_fifths}")


def report_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: Any = "largest",
    min_support: float = 30,
    ofi_threshold: float = 0.3,
    four_fifths: float = 0.8,
    exclude_low_support: bool = False,
) -> pl.LazyFrame:
    """The per-group fairness report: counts, rates, disparity against a reference, flags.

    * ``disparate_impact`` = selection_rate / reference selection_rate (DI, Definition 2.1
      of Briscoe et al.; the "disparate impact ratio"); null when the reference rate is 0.
    * ``impact_ratio`` = selection_rate / the highest selection rate among the groups: the
      EEOC four-fifths rule, 29 CFR 1607.4(D), and NYC Local Law 144's impact ratio (6 RCNY
      5-300). ``adverse_impact`` = impact_ratio < ``four_fifths``.
    * ``ofi`` = marginal_benefit − the reference's marginal_benefit: the Objective Fairness
      Index, OFI = B_i − B_j with B = (FP−FN)/n (Briscoe et al., "Facets of Disparate
      Impact"), in [−2, 2]. ``ofi_flag`` = |ofi| > ``ofi_threshold`` (0.3 in the paper).
    * ``low_support`` = n < ``min_support``: too few rows to trust the group's figures.
    * ``finding`` reads OFI with DI (Briscoe et al. §2.3): ``"algorithmic"`` when |OFI|
      exceeds the threshold (the classifier's own errors treat the group unjustly, measured
      against its labels); ``"systemic"`` when OFI is within the threshold but the impact
      ratio or disparate impact fails the four-fifths rule (DI < 4/5 or > 5/4): the
      disparity is in the labels or the population, not in the classifier's errors;
      ``"none"`` otherwise; ``"insufficient support"`` for low-support groups. This reading
      assumes the labels are correct: where the labels themselves carry bias (the paper's
      COMPAS discussion: recorded re-arrest is not re-offence), "systemic" can hide a
      biased ground truth.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table (keys, ``n, tp, fp, fn, tn`` [, ``weight_sum``]).
    keys : sequence of str
        Its key columns (``[]``: the whole population, one row).
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        The reference group (:mod:`polars_fair.reference`): the eligible group with most rows
        (ties: first in key order), the eligible group with the highest selection rate, the
        whole population (no row is the reference), or an explicit group, a value for one
        attribute or ``{attribute: value}`` for several.
    min_support : float, default 30
        Groups with fewer rows are flagged ``low_support``.
    ofi_threshold : float, default 0.3
        |OFI| above this is flagged.
    four_fifths : float, default 0.8
        The impact-ratio threshold of the four-fifths rule.
    exclude_low_support : bool, default False
        Low-support groups are neither the reference nor the highest selection rate (the
        denominator of ``impact_ratio``), so that a handful of rows cannot set the bar (as NYC
        LL 144's rules let small categories be excluded). Every group keeps its row.

    Returns
    -------
    pl.LazyFrame
        One row per group sorted by the keys: keys; ``n, tp, fp, fn, tn`` (Int64; with
        weights the cells are Float64 followed by ``weight_sum``); every rate of the registry
        (Float64); ``is_reference`` (Boolean); ``disparate_impact``, ``impact_ratio``
        (Float64, ratios ≥ 0); ``adverse_impact`` (Boolean); ``ofi`` (Float64 in [−2, 2]);
        ``ofi_flag``, ``low_support`` (Boolean); ``finding`` (String).

    Raises
    ------
    InvalidArgumentError
        An option outside its range.
    UnknownGroupError
        An explicit ``reference`` that is not a group; the message lists the groups.

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [4, 4], "tp": [2, 1], "fp": [0, 0],
    ...                   "fn": [0, 1], "tn": [2, 2]})
    >>> report_from_counts(c, ["g"], min_support=1).collect()["impact_ratio"].to_list()
    [1.0, 0.5]
    """
    _validate_options(min_support, ofi_threshold, four_fifths)
    reference = for_set(reference, keys)
    names = counts.collect_schema().names()
    c = count_exprs(names)
    base = with_rates(counts)
    sr, mb = pl.col("selection_rate"), pl.col("marginal_benefit")
    is_known = known(keys)
    supported = pl.col("n") >= min_support
    eligible = is_known & (c.n > 0) & (supported if exclude_low_support else pl.lit(True))
    base, flag = reference_flag(base, keys, reference, eligible=eligible, score=sr)
    if flag is None:  # "overall": the whole population
        ref_sr = safe_div((c.tp + c.fp).sum(), c.n.sum())
        ref_mb = safe_div((c.fp - c.fn).sum(), c.n.sum())
        is_ref = pl.repeat(False, pl.len())
    else:
        ref_sr, ref_mb = sr.filter(flag).first(), mb.filter(flag).first()
        is_ref = flag
    ofi = (mb - ref_mb).alias("ofi")
    in_max = is_known & supported if exclude_low_support else is_known
    top = sr.filter(in_max).max()
    impact_ratio = safe_div(sr, top).alias("impact_ratio")
    disparate_impact = safe_div(sr, ref_sr).alias("disparate_impact")
    out = base.with_columns(
        is_ref.alias("is_reference"), disparate_impact, impact_ratio, ofi
    ).with_columns(
        (pl.col("impact_ratio") < four_fifths).alias("adverse_impact"),
        (pl.col("ofi").abs() > ofi_threshold).alias("ofi_flag"),
        (pl.col("n") < min_support).alias("low_support"),
    )
    di = pl.col("disparate_impact")
    fails_four_fifths = (pl.col("adverse_impact").fill_null(False)) | (
        (di < four_fifths) | (di > 1 / four_fifths)
    ).fill_null(False)
    finding = (
        pl.when(pl.col("low_support") | pl.col("ofi").is_null())
        .then(pl.lit("insufficient support"))
        .when(pl.col("ofi_flag"))
        .then(pl.lit("algorithmic"))
        .when(fails_four_fifths)
        .then(pl.lit("systemic"))
        .otherwise(pl.lit("none"))
        .alias("finding")
    )
    weight = ["weight_sum"] if "weight_sum" in names else []
    return out.with_columns(finding).select(
        *keys, "n", "tp", "fp", "fn", "tn", *weight, *RATE_NAMES,
        "is_reference", "disparate_impact", "impact_ratio", "adverse_impact",
        "ofi", "ofi_flag", "low_support", "finding",
    )
