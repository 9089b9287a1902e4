"""Uncertainty from counts: the tidy per-metric table with intervals, and tests against a reference.

Both analyses read only the count table (group × cell counts), never rows.

Why one module: metrics' intervals and disparity's tests read the same
rescaled counts and share their interval choices (Wilson, Wald, MOVER, Newcombe).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Unpack

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np, special
from polars_fair.analyses.report import count_exprs
from polars_fair.core import rules as R
from polars_fair.core import stats
from polars_fair.core.families import DisparityOptions, takes
from polars_fair.core.options import DEFAULTS, Adjust, Test, check
from polars_fair.core.reference import Reference, known, support_rows
from polars_fair.core.registry import (
    METRICS,
    PAIR_METRICS,
    PROPORTIONS,
    RATE_NAMES,
    Counts,
    safe_div,
)
from polars_fair.counting.membership_counts import support_size


def row_scale(names: Sequence[str]) -> pl.Expr:
    """Rows per unit of weight, ``n / weight_sum``, for inference on a weighted count table.

    Intervals and tests treat counts as numbers of independent rows. Weighted
    sums are therefore rescaled to the group's row count (weights normalised to mean 1 within
    the group), so the results do not depend on the scale of the weights. The rows counted are
    those of positive weight, ``n_positive_weight``, when the table has it (every table counted
    from rows does): a row of weight 0 adds nothing to any sum, so it is no observation; a
    table made elsewhere without the column falls back to ``n``. This ignores the
    design effect of unequal weights (Kish's effective sample size is smaller); 1 unweighted.
    A count table of estimated membership (issue 24) carries Kish's size, ``n_effective``:
    its sums are rescaled to ``n_effective`` instead (``n_effective / weight_sum`` rows per
    unit of weight), since a person counted with probability 0.3 is not a whole row.

    Examples
    --------
    >>> c = pl.DataFrame({"n": [4], "weight_sum": [2.0], "n_effective": [1.5],
    ...                   "n_positive_weight": [3]})
    >>> c.select(row_scale(c.columns)).item(), c.select(row_scale(["n", "weight_sum"])).item()
    (0.75, 2.0)
    >>> c.select(row_scale(["n", "weight_sum", "n_positive_weight"])).item()
    1.5
    """
    if "weight_sum" not in names:
        return pl.lit(1.0)
    return safe_div(pl.col(support_size(names)), pl.col("weight_sum")).fill_null(0.0)


def _check_level(level: Any) -> Fraction:
    """``level`` as an exact fraction in (0, 1) (:func:`polars_fair.core.rules.option`)."""
    return check("level", level)


def _below(values: pl.Series, threshold: Fraction) -> pl.Series:
    """``values < threshold`` by :func:`polars_fair.core.rules.below`, null where a value is.

    Exact for integer counts; floats (weighted) use the weighted tolerance.
    """
    return pl.Series(values.name, [R.below(v, threshold) for v in values.to_list()],
                     dtype=pl.Boolean)


#: Metrics of the registry that are the mean of two registry proportions over disjoint rows, so
#: that they have no single numerator or denominator: balanced accuracy = (TPR + TNR)/2, TPR
#: counted on the positives and TNR on the negatives. :func:`metrics_table` gives them the MOVER
#: interval of a mean of two independent proportions and judges their support on the smaller of
#: the two denominators.
MEAN_OF_RATES: dict[str, tuple[str, str]] = {"balanced_accuracy": ("tpr", "tnr")}


def _tidy_part(counts: pl.LazyFrame, keys: Sequence[str], c: Counts, cell: Any, order: int,
               name: str) -> pl.LazyFrame:
    """One metric's rows of :func:`metrics_table`, with what its interval needs."""
    m = METRICS[name]
    num = m.numerator(c) if m.numerator is not None else pl.lit(None)
    den = m.denominator(c) if m.denominator is not None else pl.lit(None)
    # the two proportions of a mean (MEAN_OF_RATES), null for every other metric
    halves: list[pl.Expr] = []
    for k in range(2):
        x_k, n_k = pl.lit(None), pl.lit(None)
        if name in MEAN_OF_RATES:
            r = METRICS[MEAN_OF_RATES[name][k]]
            assert r.numerator is not None and r.denominator is not None
            x_k, n_k = r.numerator(c), r.denominator(c)
        halves += [x_k.cast(cell).alias(f"__pf_x{k}"), n_k.cast(cell).alias(f"__pf_n{k}")]
    kind = "mover" if name in MEAN_OF_RATES else (m.interval or "")
    names = counts.collect_schema().names()
    return counts.select(
        *keys,
        pl.lit(name).alias("metric"),
        pl.lit(order).alias("__pf_order"),
        pl.lit(kind).alias("__pf_interval"),
        num.cast(cell).alias("numerator"),
        den.cast(cell).alias("denominator"),
        m.value(c).alias("__pf_value"),
        (c.fp + c.fn).cast(pl.Float64).alias("__pf_fpfn"),
        pl.col(support_size(names)).cast(pl.Float64).alias("__pf_rows"),
        support_rows(names).cast(pl.Float64).alias("__pf_support"),
        c.n.cast(pl.Float64).alias("__pf_wsum"),
        *halves,
    )


def metrics_table(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    level: float = DEFAULTS.level,
    min_support: float = DEFAULTS.min_support,
) -> pl.LazyFrame:
    """Tidy form: one row per group × metric, with its own numerator, denominator and interval.

    For each metric of the registry (:data:`polars_fair.core.registry.METRICS`): ``value =
    numerator / denominator``
    (null when the denominator is 0) with a Wilson score interval (Wilson 1927; Newcombe 1998),
    ``ci_low``/``ci_high`` at ``level``. For ``marginal_benefit`` = (FP − FN)/n, a difference of
    two multinomial shares, the interval is the Wald interval
    ``B ± z·sqrt((p_FP + p_FN − B²)/n)`` clipped to [−1, 1]. ``low_support`` judges each metric on
    its **own denominator**: a TPR on 3 positives is flagged even in a group of 1,000 rows. With
    weighted counts the intervals treat the weighted sums as counts (no design effect).

    ``balanced_accuracy`` = (TPR + TNR)/2 (Brodersen et al. 2010) is the mean of two proportions
    with different denominators (:data:`MEAN_OF_RATES`), so it has no single numerator or
    denominator: both are **null** in its row. Its interval is the MOVER interval of a mean of
    two independent proportions (Zou & Donner 2008, *Stat. Med.* 27:1693; the sum analogue of
    Newcombe's method 10), from the Wilson intervals ``(l, u)`` of TPR on the positives and TNR
    on the negatives: ``v ∓ ½·sqrt((p_TPR − l_TPR)² + (p_TNR − l_TNR)²)`` (upper bound with
    ``u − p``), inside [0, 1]. Its ``low_support`` is judged on the smaller of its two
    denominators, min(TP + FN, TN + FP); its value is null when either is 0.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table (keys, ``n, tp, fp, fn, tn`` [, ``weight_sum``]).
    keys : sequence of str
        Its key columns.
    level : float, default 0.95
        Confidence level of the intervals, in (0, 1).
    min_support : float, default 30
        A metric whose denominator is below this is flagged ``low_support`` (a finite number
        >= 0; decided exactly on the integer counts: at ``min_support`` rows a metric is
        supported).

    Returns
    -------
    pl.LazyFrame
        keys; ``metric`` (String); ``numerator``, ``denominator`` (Int64, Float64 if weighted;
        null for ``balanced_accuracy``); ``value``, ``ci_low``, ``ci_high`` (Float64; rates in
        [0, 1], marginal benefit in [−1, 1]); ``low_support`` (Boolean: denominator <
        ``min_support``, exactly on integer counts; weighted denominators are rescaled to rows,
        on estimated membership to the support size, the expected size in rows bounded by
        ``n_effective`` (:func:`polars_fair.core.reference.support_rows`), and judged with
        :data:`polars_fair.core.rules.WEIGHTED_TOLERANCE`). Sorted by the keys, then the
        metric order of the registry.

    Raises
    ------
    InvalidArgumentError
        ``level`` not a number in (0, 1), ``min_support`` not a finite number >= 0 (NaN
        included).

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a"], "n": [10], "tp": [4], "fp": [1], "fn": [1], "tn": [4]})
    >>> m = metrics_table(c, ["g"]).filter(pl.col("metric") == "tpr").collect()
    >>> m.select("numerator", "denominator", "value").row(0)
    (4, 5, 0.8)
    """
    level = float(_check_level(level))
    support_t = check("min_support", min_support)
    names = counts.collect_schema().names()
    c = count_exprs(names)
    weighted = "weight_sum" in names
    cell = pl.Float64 if weighted else pl.Int64
    z = stats._z_value(level)

    tidy = pl.concat([_tidy_part(counts, keys, c, cell, order, name)
                      for order, name in enumerate(RATE_NAMES)], how="vertical")
    # inference in rows: weighted sums are rescaled to the group's row count, as (x / weight_sum)
    # * rows so that a tiny weight sum cannot overflow (see row_scale); unweighted, exact counts
    def scaled(e: pl.Expr, rows: str = "__pf_rows") -> pl.Expr:
        e = e.cast(pl.Float64)
        if "weight_sum" not in names:
            return e
        return pl.when(pl.col("__pf_wsum") > 0).then(
            e / pl.col("__pf_wsum") * pl.col(rows)).otherwise(0.0)

    x = scaled(pl.col("numerator"))
    n = scaled(pl.col("denominator"))
    interval = pl.col("__pf_interval")
    mover = interval == "mover"
    value = (pl.when(interval.is_in(["", "mover"])).then(pl.col("__pf_value"))
             .when(n > 0).then(x / n))
    lo, hi = stats.wilson_exprs(x, n, level=level)
    # Wald interval of B = (FP-FN)/n, a difference of two multinomial shares:
    # Var(B) = (p_FP + p_FN - B^2) / n
    share = scaled(pl.col("__pf_fpfn")) / n
    se = (share - value.pow(2)).clip(lower_bound=0.0).sqrt() / n.sqrt()
    wald = interval == "wald"
    # MOVER interval of a mean of two independent proportions (Zou & Donner 2008): each half's
    # Wilson distances combined in quadrature, halved; null when either half is undefined
    x0, n0 = scaled(pl.col("__pf_x0")), scaled(pl.col("__pf_n0"))
    x1, n1 = scaled(pl.col("__pf_x1")), scaled(pl.col("__pf_n1"))
    l0, u0 = stats.wilson_exprs(x0, n0, level=level)
    l1, u1 = stats.wilson_exprs(x1, n1, level=level)
    p0, p1 = x0 / n0, x1 / n1
    mover_lo = (value - ((p0 - l0).pow(2) + (p1 - l1).pow(2)).sqrt() / 2).clip(0.0, 1.0)
    mover_hi = (value + ((u0 - p0).pow(2) + (u1 - p1).pow(2)).sqrt() / 2).clip(0.0, 1.0)
    # the support in rows: exact integers unweighted (an integer comparison), rescaled weighted
    # sums otherwise (polars_fair.core.rules.below: the weighted tolerance)
    if weighted:  # estimated membership: in support size (support_rows)
        size = [scaled(pl.col(v), "__pf_support") for v in ("__pf_n0", "__pf_n1", "denominator")]
        support = pl.when(mover).then(pl.min_horizontal(size[:2])).otherwise(size[2])
        low_support = support.map_batches(lambda v: _below(v, support_t),
                                          return_dtype=pl.Boolean, is_elementwise=True)
    else:
        support = pl.when(mover).then(pl.min_horizontal("__pf_n0", "__pf_n1")).otherwise(
            pl.col("denominator"))
        low_support = support < R.min_count(support_t)
    out = tidy.with_columns(
        value.alias("value"),
        pl.when(wald).then((value - z * se).clip(-1.0, 1.0))
        .when(interval == "wilson").then(lo)
        .when(mover).then(mover_lo).alias("ci_low"),
        pl.when(wald).then((value + z * se).clip(-1.0, 1.0))
        .when(interval == "wilson").then(hi)
        .when(mover).then(mover_hi).alias("ci_high"),
        low_support.alias("low_support"),
    )
    return out.sort([*keys, "__pf_order"], nulls_last=True).select(
        *keys, "metric", "numerator", "denominator", "value", "ci_low", "ci_high", "low_support"
    )



#: Pair metrics of the registry (:data:`polars_fair.core.registry.PAIR_METRICS`) that ``disparity``
#: takes besides the proportions: each side of the comparison is the pair of independent
#: proportions (FPR on the negatives, TPR on the positives) of equalized odds.
ODDS_METRICS: tuple[str, ...] = ("average_odds_difference", "average_absolute_odds_difference")
#: Every metric :func:`disparity_table` takes.
DISPARITY_METRICS: tuple[str, ...] = (*PROPORTIONS, *ODDS_METRICS)

BAD_DISPARITY_METRIC = (
    "metric must be one of {valid} (a proportion, or an average odds difference of FPR and TPR), "
    "got {metric!r}"
)
FISHER_FOR_ODDS = (
    "test='fisher' does not apply to metric={metric!r}, which combines two rate differences "
    "(FPR and TPR); pass test='z' or test='auto' (both use the normal approximation for it)"
)


@borrow(metrics_table, params=("counts", "keys"))
@takes(DisparityOptions)
def disparity_table(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    **options: Unpack[DisparityOptions],
) -> pl.LazyFrame:
    r"""Each group's rate against the reference's, with intervals and a multiplicity-adjusted test.

    For a proportion (``selection_rate``, ``tpr``, ``fpr``, ``fdr``, ``for``, ...: any of
    :data:`polars_fair.core.registry.PROPORTIONS`):

    * ``difference`` = rate − reference rate, with Newcombe's hybrid score interval (Newcombe
      1998, method 10);
    * ``ratio`` = rate / reference rate (the disparate impact ratio for ``selection_rate``), with
      the MOVER-R Wilson interval (:func:`polars_fair.core.stats.ratio_interval`); null when
      the reference rate is 0;
    * ``p_value``: two-sided test of equal rates, the pooled two-proportion z-test, or Fisher's
      exact test (``test="auto"`` uses Fisher when an expected cell is below 5, decided exactly
      on integers: :func:`polars_fair.core.stats.small_expected_cell`; the z-test above
      :math:`10^9` rows, :data:`polars_fair.core.stats.FISHER_MAX_TOTAL`);
    * ``p_value_adjusted``: Holm's step-down (default) or Benjamini–Hochberg across the groups
      compared, for the many intersectional groups of an audit; ``significant`` =
      ``p_value_adjusted <= alpha`` with ``alpha = 1 − level`` computed exactly (1/20 for
      ``level=0.95``, not 0.050000000000000044): a p-value equal to alpha is significant. The
      p-value is a computed float, compared with alpha rounded once to the nearest float
      (:func:`polars_fair.core.rules.float_at_most`), so what is printed is what is decided.

    The reference row keeps ``difference`` 0 and ``ratio`` 1 (the group against itself), but
    its intervals and tests are null: it is not a second sample. There is no low-support flag
    here: ``disparity`` takes no ``min_support``; the uncertainty of a small group, or of a
    small reference, is in its intervals and its test (``reference_denominator`` shows the
    reference's size), which a ``min_support`` cut would only hide.

    The average odds differences of equalized odds (AIF360's
    ``ClassificationMetric.average_odds_difference`` and ``average_abs_odds_difference``, the
    group being AIF360's unprivileged side and the reference its privileged side) combine two
    independent rate differences, :math:`D_F = FPR - FPR_{ref}` (on the negatives) and
    :math:`D_T = TPR - TPR_{ref}` (on the positives), each with its Newcombe interval
    :math:`(l_F, u_F)`, :math:`(l_T, u_T)`:

    * ``metric="average_odds_difference"``: ``difference`` = :math:`\tfrac12(D_F + D_T)`, and
      ``value`` = :math:`\tfrac12(FPR + TPR)`, so that ``difference = value −
      reference_value``. Interval: MOVER for a sum of independent differences (Zou & Donner
      2008, *Stat. Med.* 27:1693), :math:`\tfrac12\bigl(D_F + D_T \mp
      \sqrt{(D_F - l_F)^2 + (D_T - l_T)^2}\bigr)` (upper bound with :math:`u - D`).
      ``p_value``: :math:`z = (D_F + D_T) / \sqrt{V_F + V_T}` with the pooled variances
      :math:`V = \bar p(1 - \bar p)(1/m + 1/r)` of the two-proportion z-test, i.e. a test of
      equalized odds (equal FPR and equal TPR) through the statistic the metric reports.
    * ``metric="average_absolute_odds_difference"``: ``difference`` =
      :math:`\tfrac12(|D_F| + |D_T|)`; ``value`` and ``reference_value`` are null (the metric
      is not a difference of one per-group value). Interval: the image of the two Newcombe
      intervals, each at level :math:`\sqrt{\text{level}}` (Šidák: the two are independent, so
      both cover with probability ``level``), under :math:`\tfrac12(|D_F| + |D_T|)`: each
      :math:`|D|` lies in :math:`[0, \max(|l|, |u|)]` when the interval contains 0, otherwise in
      :math:`[\min(|l|, |u|), \max(|l|, |u|)]`. This is conservative (coverage at least
      ``level``). ``p_value``: the 2-degree-of-freedom test of equalized odds,
      :math:`z_F^2 + z_T^2 \sim \chi^2_2`, :math:`p = e^{-X/2}`, with the pooled z statistics.

    For both, ``numerator``, ``denominator`` and their reference twins are null (each side has
    four counts: see ``rates()`` or ``metrics()``), ``ratio`` and its interval are null (a ratio
    of average odds is not a measure of equalized odds), the tests are asymptotic (``test="auto"``
    and ``"z"`` are the same; ``"fisher"`` raises), and a comparison is untestable (null) when
    either side has no positives or no negatives.

    ``reference="overall"`` compares each group with **the rest of the population** (its
    complement), so that the two samples are independent.

    Estimated membership: groups share rows but are taken as independent, conservatively
    (:mod:`polars_fair.analyses.membership_covariance`).

    Parameters
    ----------
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        The reference group (:mod:`polars_fair.core.reference`).
    metric : str, default "selection_rate"
        One of :data:`DISPARITY_METRICS`: a proportion of the registry, or an average odds
        difference.
    level : float, default 0.95
        Confidence level of the intervals, in (0, 1); ``significant`` uses
        ``alpha = 1 − level``, exactly.
    test : {"auto", "z", "fisher"}, default "auto"
        The test of a proportion (see above).
    adjust : {"holm", "bh"}, default "holm"
        The multiplicity adjustment across the groups compared.

    Returns
    -------
    pl.LazyFrame
        keys; ``metric`` (String); ``numerator``, ``denominator``, ``reference_numerator``,
        ``reference_denominator`` (Int64 or Float64; null for the average odds differences);
        ``value``, ``reference_value``, ``difference``, ``difference_ci_low``,
        ``difference_ci_high``, ``ratio``, ``ratio_ci_low``, ``ratio_ci_high``, ``p_value``,
        ``p_value_adjusted`` (Float64); ``is_reference`` (Boolean, never null: false on every
        row when no group can be the reference), ``significant`` (Boolean: ``p_value_adjusted
        <= 1 − level``; null where the test is). The reference row has null intervals and
        tests.

    Raises
    ------
    InvalidArgumentError
        ``metric`` not in :data:`DISPARITY_METRICS`, ``level`` not a number in (0, 1) (NaN
        included), an unknown
        ``test`` or ``adjust``, or ``test="fisher"`` with an average odds difference.
    UnknownGroupError
        An explicit ``reference`` that is not a group.

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [100, 100], "tp": [40, 10], "fp": [10, 10],
    ...                   "fn": [10, 40], "tn": [40, 40]})
    >>> d = disparity_table(c, ["g"], reference="a").collect()
    >>> d.select("g", "ratio").rows()
    [('a', 1.0), ('b', 0.4)]

    b against a: FPR 10/50 vs 10/50, TPR 10/50 vs 40/50, so ½[(0.2 − 0.2) + (0.2 − 0.8)]:

    >>> d = disparity_table(c, ["g"], reference="a", metric="average_odds_difference").collect()
    >>> round(d["difference"][1], 4)
    -0.3
    """
    metric, test, adjust = options["metric"], options["test"], options["adjust"]
    level_t = _check_level(options["level"])
    level = float(level_t)
    alpha = R.alpha(level_t)
    if metric not in DISPARITY_METRICS:
        raise E.InvalidArgumentError(
            BAD_DISPARITY_METRIC.format(valid=list(DISPARITY_METRICS), metric=metric)
        )
    if test not in ("auto", "z", "fisher"):
        raise E.InvalidArgumentError(f"test must be 'auto', 'z' or 'fisher', got {test!r}")
    if adjust not in ("holm", "bh"):
        raise E.InvalidArgumentError(f"adjust must be 'holm' or 'bh', got {adjust!r}")
    odds = metric in ODDS_METRICS
    if odds and test == "fisher":
        raise E.InvalidArgumentError(FISHER_FOR_ODDS.format(metric=metric))
    framed, weighted, n_parts = _framed(counts, keys, metric, options["reference"])
    compute = functools.partial(_compare, n_parts=n_parts, weighted=weighted, metric=metric,
                                level=level, test=test, adjust=adjust, alpha=alpha)

    float_cols = ["value", "reference_value", "difference", "difference_ci_low",
                  "difference_ci_high", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value",
                  "p_value_adjusted"]
    schema: dict[str, pl.DataType] = dict(framed.collect_schema())
    schema.update({f: pl.Float64() for f in float_cols})
    schema.update({"significant": pl.Boolean(), "metric": pl.String()})
    out = framed.map_batches(compute, schema=pl.Schema(schema))
    return out.select(
        *keys, "metric", "numerator", "denominator", "reference_numerator",
        "reference_denominator", *float_cols, "is_reference", "significant",
    )


def _framed(counts: pl.LazyFrame, keys: Sequence[str], metric: str, reference: Any
            ) -> tuple[pl.LazyFrame, bool, int]:
    """The count table with each compared proportion's counts and the reference's beside them.

    Returns the framed table (``__x{k}``, ``__m{k}`` and ``__ref_x{k}``, ``__ref_m{k}`` for each
    part k of the metric: the metric itself, or the two rates of an odds metric), whether the
    counts are weighted, and the number of parts.
    """
    odds = metric in ODDS_METRICS
    names = counts.collect_schema().names()
    weighted = "weight_sum" in names
    c = count_exprs(names)
    cell = pl.Float64 if "weight_sum" in names else pl.Int64
    # the proportions compared: the metric itself, or the two rates of the pair metric
    parts = [METRICS[r] for r in (PAIR_METRICS[metric].rates if odds else (metric,))]
    part_cols: list[pl.Expr] = []
    for k, p in enumerate(parts):
        assert p.numerator is not None and p.denominator is not None
        part_cols += [p.numerator(c).alias(f"__pf_x{k}"), p.denominator(c).alias(f"__pf_m{k}")]
    given = Reference.parse(reference).for_set(keys)
    base = counts.select(
        *keys, *part_cols,
        c.n.alias("__pf_size"), pl.col(support_size(names)).alias("__pf_rows"), pl.col("n"),
        # "largest" is the largest support size (min(Σ w·p, n_eff) on estimated membership,
        # rows of positive weight with sample weights), as in every analysis (Reference.flag
        # reads it from these columns); intervals read support_size
        *([pl.col(size)] if (size := support_size(names)) != "n" else []),
        *([pl.col("weight_sum")] if "n_effective" in names else []),
        METRICS["selection_rate"].value(c).alias("__pf_sr"),
    )
    eligible = known(keys) & (pl.col("__pf_size") > 0)
    base, flag = given.flag(base, keys, eligible=eligible, score=pl.col("__pf_sr"))

    def ref(e: pl.Expr) -> pl.Expr:
        # "overall": each group against the rest of the population
        return e.sum() - e if flag is None else e.filter(flag).first()

    ref_cols = [ref(pl.col(f"__pf_{v}{k}")).alias(f"__pf_ref_{v}{k}")
                for k in range(len(parts)) for v in ("x", "m")]
    is_ref = pl.repeat(False, pl.len()) if flag is None else flag
    framed = base.with_columns(
        *ref_cols, is_ref.alias("is_reference"), ref(pl.col("__pf_rows")).alias("__pf_ref_rows"),
        ref(pl.col("__pf_size")).alias("__pf_ref_size"),
    )
    none = pl.lit(None, dtype=cell)
    framed = framed.with_columns(
        (none if odds else pl.col("__pf_x0")).alias("numerator"),
        (none if odds else pl.col("__pf_m0")).alias("denominator"),
        (none if odds else pl.col("__pf_ref_x0")).alias("reference_numerator"),
        (none if odds else pl.col("__pf_ref_m0")).alias("reference_denominator"),
    )

    return framed, weighted, len(parts)


def _in_rows(df: pl.DataFrame, n_parts: int, weighted: bool
             ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per part k: the group's successes and trials (a, m) and the reference's (b, r).

    Weighted sums are rescaled to row counts for inference (see ``row_scale``).
    """
    def arr(name: str) -> np.ndarray:
        return df[name].cast(pl.Float64).to_numpy()

    def rescale(v: np.ndarray, size: str, rows: str) -> np.ndarray:
        # (x / size) * rows, never rows / size: a tiny weight sum would overflow to inf
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(arr(size) > 0, v / arr(size) * arr(rows), 0.0)

    def snap(v: np.ndarray) -> np.ndarray:  # rescaling leaves 1.0000000000000002
        near = np.isclose(v, np.round(v), rtol=0.0, atol=1e-9)
        return np.where(near, np.round(v), v)

    def own(name: str) -> np.ndarray:
        if not weighted:
            return arr(name)
        return snap(rescale(arr(name), "__pf_size", "__pf_rows"))

    def other(name: str) -> np.ndarray:
        if not weighted:
            return arr(name)
        return snap(rescale(arr(name), "__pf_ref_size", "__pf_ref_rows"))

    a = [own(f"__pf_x{k}") for k in range(n_parts)]
    m = [own(f"__pf_m{k}") for k in range(n_parts)]
    b = [other(f"__pf_ref_x{k}") for k in range(n_parts)]
    r = [other(f"__pf_ref_m{k}") for k in range(n_parts)]
    return a, m, b, r


def _rate(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The rate ``x / n``, NaN where ``n`` is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, x / np.where(n > 0, n, 1), np.nan)


if TYPE_CHECKING:  # a type only: np is imported lazily, on first use
    #: value, reference value, difference and its interval, ratio and its interval, p-value.
    _Comparison = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                        np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _compare_rates(a: list[np.ndarray], m: list[np.ndarray], b: list[np.ndarray],
                   r: list[np.ndarray], usable: np.ndarray, *, level: float, test: Test
                   ) -> _Comparison:
    """One rate against the reference's: Newcombe and MOVER-R intervals, the two-proportion test."""
    p1, p2 = _rate(a[0], m[0]), _rate(b[0], r[0])
    p = np.full(len(p1), np.nan)
    ratio = np.where(p2 > 0, p1 / np.where(p2 > 0, p2, 1), np.nan)
    d_lo, d_hi = stats.newcombe_difference_interval(a[0], m[0], b[0], r[0], level=level)
    r_lo, r_hi = stats.ratio_interval(a[0], m[0], b[0], r[0], level=level)
    if usable.any():
        u = usable
        integral = all(np.all(np.equal(np.mod(v[0][u], 1), 0)) for v in (a, m))
        method = test if (test != "fisher" or integral) else "z"
        p[u] = stats.two_proportion_test(a[0][u], m[0][u], b[0][u], r[0][u], method=method)
    return p1, p2, p1 - p2, d_lo, d_hi, ratio, r_lo, r_hi, p


def _compare_odds(metric: str, a: list[np.ndarray], m: list[np.ndarray], b: list[np.ndarray],
                  r: list[np.ndarray], usable: np.ndarray, *, level: float) -> _Comparison:
    """The two rates of an odds metric (TPR and FPR) against the reference's, combined."""
    p1 = [_rate(ak, mk) for ak, mk in zip(a, m, strict=True)]
    p2 = [_rate(bk, rk) for bk, rk in zip(b, r, strict=True)]
    nan = np.full(len(p1[0]), np.nan)
    p = nan.copy()
    d = [p1[k] - p2[k] for k in range(2)]
    z = [stats.pooled_z(a[k], m[k], b[k], r[k]) for k in range(2)]
    if metric == "average_odds_difference":
        value, ref_value = (p1[0] + p1[1]) / 2, (p2[0] + p2[1]) / 2
        diff = (d[0] + d[1]) / 2
        cis = [stats.newcombe_difference_interval(a[k], m[k], b[k], r[k], level=level)
               for k in range(2)]
        d_lo = diff - np.sqrt((d[0] - cis[0][0]) ** 2 + (d[1] - cis[1][0]) ** 2) / 2
        d_hi = diff + np.sqrt((cis[0][1] - d[0]) ** 2 + (cis[1][1] - d[1]) ** 2) / 2
        with np.errstate(divide="ignore", invalid="ignore"):
            pooled = [(a[k] + b[k]) / (m[k] + r[k]) for k in range(2)]
            var = sum(pk * (1 - pk) * (1 / m[k] + 1 / r[k]) for k, pk in enumerate(pooled))
            stat = np.where(var == 0, 0.0, (d[0] + d[1]) / np.sqrt(var))
        p[usable] = 2 * special.ndtr(-np.abs(stat[usable]))  # scipy.stats.norm.sf, bit for bit
    else:
        value, ref_value = nan, nan
        diff = (np.abs(d[0]) + np.abs(d[1])) / 2
        # Šidák: two independent intervals at sqrt(level) cover together with `level`
        cis = [stats.newcombe_difference_interval(a[k], m[k], b[k], r[k],
                                                  level=float(np.sqrt(level)))
               for k in range(2)]
        low_abs = [np.where((lo <= 0) & (hi >= 0), 0.0,
                            np.minimum(np.abs(lo), np.abs(hi))) for lo, hi in cis]
        high_abs = [np.maximum(np.abs(lo), np.abs(hi)) for lo, hi in cis]
        d_lo = (low_abs[0] + low_abs[1]) / 2
        d_hi = (high_abs[0] + high_abs[1]) / 2
        p[usable] = np.exp(-(z[0][usable] ** 2 + z[1][usable] ** 2) / 2)
    return value, ref_value, diff, d_lo, d_hi, nan, nan, nan, p


def _compare(df: pl.DataFrame, *, n_parts: int, weighted: bool, metric: str, level: float,
             test: Test, adjust: Adjust, alpha: Fraction) -> pl.DataFrame:
    """The comparison columns of :func:`disparity_table` for the framed count table ``df``."""
    is_ref_np = df["is_reference"].to_numpy()
    a, m, b, r = _in_rows(df, n_parts, weighted)
    usable = ~is_ref_np
    for mk, rk in zip(m, r, strict=True):
        usable = usable & (mk > 0) & (rk > 0)
    if metric in ODDS_METRICS:
        value, ref_value, diff, d_lo, d_hi, ratio, r_lo, r_hi, p = _compare_odds(
            metric, a, m, b, r, usable, level=level)
    else:
        value, ref_value, diff, d_lo, d_hi, ratio, r_lo, r_hi, p = _compare_rates(
            a, m, b, r, usable, level=level, test=test)
    p_adj = stats.adjust_pvalues(p, method=adjust)

    def col(v: np.ndarray) -> pl.Series:
        return pl.Series(np.asarray(v, dtype=np.float64), nan_to_null=True)

    # the reference compared with itself has no interval (it is not a second sample)
    d_lo, d_hi, r_lo, r_hi = (np.where(is_ref_np, np.nan, np.asarray(v, dtype=float))
                              for v in (d_lo, d_hi, r_lo, r_hi))
    significant = [R.float_at_most(v, alpha) for v in np.asarray(p_adj, dtype=float)]
    return df.with_columns(
        value=col(value), reference_value=col(ref_value), difference=col(diff),
        difference_ci_low=col(np.asarray(d_lo, dtype=float)),
        difference_ci_high=col(np.asarray(d_hi, dtype=float)),
        ratio=col(ratio), ratio_ci_low=col(np.asarray(r_lo, dtype=float)),
        ratio_ci_high=col(np.asarray(r_hi, dtype=float)),
        p_value=col(p), p_value_adjusted=col(np.asarray(p_adj, dtype=float)),
        significant=pl.Series(significant, dtype=pl.Boolean),
        metric=pl.lit(metric),
    )


__all__ = [
    "metrics_table",
    "disparity_table",
    "PROPORTIONS",
    "Counts",
    "MEAN_OF_RATES",
    "ODDS_METRICS",
    "DISPARITY_METRICS",
]
