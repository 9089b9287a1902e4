"""A candidate model against its baseline on the same rows: paired changes and paired tests.

Everything here reads the paired count table (:mod:`polars_fair.counting.paired`): per group,
the eight cells label x candidate x baseline. Each model's figures are those of the house's
report (:func:`polars_fair.analyses.report.report_from_counts` on the model's own count
table, so ``impact_ratio``, ``ofi`` and the four-fifths verdict are exactly the report's);
the changes use the pairing: both models decided the same people, so the change in a rate
depends only on the discordant pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair._lazy import np, sps
from polars_fair.analyses.ratio_change import impact_ratio_change_interval
from polars_fair.analyses.report import report_from_counts
from polars_fair.analyses.runner import check_clash
from polars_fair.core.options import DEFAULTS, check
from polars_fair.core.reference import Reference
from polars_fair.core.rules import flag
from polars_fair.core.spec import support_size
from polars_fair.core.stats import wilson_interval
from polars_fair.counting.paired import PAIRED_CELLS, POSITIVE_ROWS, cell

__all__ = ["CHANGE_METRICS", "adjusted_pairs", "compare_from_counts", "compare_outputs",
           "mcnemar_exact",
           "paired_difference_interval"]

#: The metrics compared, without and with labels.
CHANGE_METRICS = {False: ("selection_rate", "impact_ratio"),
                  True: ("selection_rate", "impact_ratio", "tpr", "fpr", "ofi")}


def mcnemar_exact(candidate_only: Any, baseline_only: Any, *, mid_p: bool = False) -> Any:
    r"""McNemar's exact test: the two-sided binomial test on the discordant pairs.

    With :math:`b` pairs where only the candidate says yes and :math:`c` where only the
    baseline does, under no change :math:`b \sim \mathrm{Binomial}(b + c, 1/2)`, and
    :math:`p = \min(1, 2\,P(X \le \min(b, c)))` (McNemar 1947, *Psychometrika* 12:153; the
    exact form of Agresti, *Categorical Data Analysis*, 3rd ed., §11.1.1). The mid-p value
    is :math:`\min(1, 2\,P(X \le k) - P(X = k))` with :math:`k = \min(b, c)` (Fagerland,
    Lydersen & Laake 2013, *BMC Med. Res. Methodol.* 13:91), 1 when :math:`b = c`; it keeps
    the level closely without the exact test's conservatism.

    Parameters
    ----------
    candidate_only, baseline_only : array_like of int
        The discordant counts :math:`b` and :math:`c`.
    mid_p : bool, default False
        Return the mid-p value.

    Returns
    -------
    numpy.ndarray of float64
        p-values in [0, 1]; 1 when there is no discordant pair.

    Examples
    --------
    >>> mcnemar_exact([8], [2])  # 2 * P(X <= 2), X ~ Bin(10, 1/2) = 2 * 56 / 1024
    array([0.109375])
    >>> mcnemar_exact([8], [2], mid_p=True)  # 0.109375 - 45 / 1024
    array([0.06542969])
    >>> mcnemar_exact([5], [5], mid_p=True)  # 2 * 638 / 1024 - 252 / 1024 = 1
    array([1.])
    """
    b = np.asarray(candidate_only, dtype=np.float64)
    c = np.asarray(baseline_only, dtype=np.float64)
    k, n = np.minimum(b, c), b + c
    p = 2.0 * sps.binom.cdf(k, n, 0.5)
    if mid_p:
        # Fagerland et al.'s mid-p: 2 P(X <= k) - P(X = k), capped after the subtraction
        # (capping first gave 1 - P(X = k) < 1 when b == c, where the mid-p is exactly 1).
        p = p - sps.binom.pmf(k, n, 0.5)
    return np.where(n > 0, np.minimum(1.0, p), 1.0)


def paired_difference_interval(both: Any, first_only: Any, second_only: Any, neither: Any, *,
                               level: float = DEFAULTS.level) -> tuple[Any, Any]:
    r"""Newcombe's hybrid score interval for a difference of paired proportions (method 10).

    With the paired table :math:`a` (both yes), :math:`b` (first only), :math:`c` (second
    only), :math:`d` (neither), :math:`n = a + b + c + d`, :math:`p_1 = (a + b)/n`,
    :math:`p_2 = (a + c)/n`, :math:`\theta = p_1 - p_2 = (b - c)/n`, Wilson intervals
    :math:`(l_i, u_i)` for each :math:`p_i` and Newcombe's corrected phi coefficient
    :math:`\phi = C/\sqrt{(a+b)(c+d)(a+c)(b+d)}` with :math:`C = ad - bc - n/2` when
    :math:`ad - bc > n/2`, :math:`C = ad - bc` when it is negative, else 0 (and
    :math:`\phi = 0` when a margin is 0):

    .. math::

        L = \theta - \sqrt{(p_1 - l_1)^2 - 2\phi (p_1 - l_1)(u_2 - p_2) + (u_2 - p_2)^2},\quad
        U = \theta + \sqrt{(u_1 - p_1)^2 - 2\phi (u_1 - p_1)(p_2 - l_2) + (p_2 - l_2)^2}

    (Newcombe 1998, "Improved confidence intervals for the difference between binomial
    proportions based on paired data", *Stat. Med.* 17:2635, method 10). It uses the pairing
    through :math:`\phi` and, unlike the Wald interval, keeps near nominal coverage at rates
    near 0 or 1.

    Parameters
    ----------
    both, first_only, second_only, neither : array_like of float
        The paired cells :math:`a, b, c, d` (sums of weights for weighted counts).
    level : float, default 0.95
        Confidence level in (0, 1).

    Returns
    -------
    low, high : numpy.ndarray of float64
        Bounds in [-1, 1]; NaN where :math:`n = 0`.

    Examples
    --------
    >>> low, high = paired_difference_interval([36], [12], [2], [0])
    >>> round(float(low[0]), 4), round(float(high[0]), 4)
    (0.0569, 0.3404)
    """
    a, b, c, d = (np.asarray(x, dtype=np.float64) for x in (both, first_only, second_only,
                                                            neither))
    n = a + b + c + d
    l1, u1 = wilson_interval(a + b, n, level=level)
    l2, u2 = wilson_interval(a + c, n, level=level)
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = (a + b) / n, (a + c) / n
        margins = (a + b) * (c + d) * (a + c) * (b + d)
        excess = a * d - b * c  # Newcombe's continuity-corrected phi: 0 on (0, n/2]
        excess = np.where(excess > n / 2, excess - n / 2, np.where(excess < 0, excess, 0.0))
        phi = np.where(margins > 0, excess / np.sqrt(margins), 0.0)
        theta = p1 - p2
        low = theta - np.sqrt(np.maximum(
            (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
        high = theta + np.sqrt(np.maximum(
            (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0)


def adjusted_pairs(both: Any, first_only: Any, second_only: Any, neither: Any) -> tuple[
        Any, Any, Any, Any]:
    r"""Two paired rates from Agresti and Min's adjusted cells, with their (co)variances.

    Each of the four cells gains 1/2 (Agresti & Min 2005, *Stat. Med.* 24:729, "Simple
    improved confidence intervals for comparing matched proportions"; Bonett & Price 2012,
    *J. Educ. Behav. Stat.* 37:479, study such adjusted Wald intervals), so
    :math:`\tilde n = n + 2` and
    :math:`\tilde p_1 = (a + b + 1)/\tilde n`, :math:`\tilde p_2 = (a + c + 1)/\tilde n`,
    with the multinomial :math:`\mathrm{Var}(\tilde p_i) = \tilde p_i(1 - \tilde p_i)/\tilde n`
    and :math:`\mathrm{Cov} = (\tilde p_{11} - \tilde p_1\tilde p_2)/\tilde n`. The variance of
    the difference, :math:`(\tilde p_{12} + \tilde p_{21} - (\tilde p_{12} - \tilde p_{21})^2)
    /\tilde n`, is above 0 for every finite table (each discordant cell holds at least 1/2),
    so a delta-method interval built on these never collapses to a point, even when the two
    models agree on every row; and no rate is 0, so no ratio divides by 0.

    Parameters
    ----------
    both, first_only, second_only, neither : array_like of float
        The paired cells :math:`a, b, c, d` (rows, or weighted sums rescaled to rows).

    Returns
    -------
    p1, p2 : numpy.ndarray of float64
        The adjusted rates, in (0, 1).
    var : numpy.ndarray of float64, shape (2, k)
        Their variances.
    cov : numpy.ndarray of float64
        Their covariance.

    Examples
    --------
    Two models that agree on all 8 rows (4 selected by both): the adjusted difference has
    variance (1/2 + 1/2)/10/10 = 0.01, not 0.

    >>> p1, p2, var, cov = adjusted_pairs([4], [0], [0], [4])
    >>> float(p1[0]), float(p2[0]), round(float(var[0][0] + var[1][0] - 2 * cov[0]), 12)
    (0.5, 0.5, 0.01)
    """
    a, b, c, d = (np.asarray(x, dtype=np.float64) + 0.5 for x in (both, first_only,
                                                                  second_only, neither))
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    return p1, p2, np.array([p1 * (1 - p1) / n, p2 * (1 - p2) / n]), (a / n - p1 * p2) / n


def _rows(names: Sequence[str]) -> pl.Expr:
    """The rows an interval counts: ``n_positive_weight`` of a weighted table, else ``n``.

    A row of weight 0 adds nothing to any weighted figure, so it is no observation: counting
    it would narrow the intervals and let it lift a group over ``min_support``.
    """
    return pl.col(support_size(names))


def _wald(change: Any, var: Any, z: float) -> tuple[Any, Any]:
    se = np.sqrt(np.maximum(var, 0.0))
    return change - z * se, change + z * se


def _containing(low: Any, high: Any, estimate: Any) -> tuple[Any, Any]:
    """An interval centred on the adjusted change, widened to hold the plain ``estimate``.

    The +1/2 adjustment pulls the centre towards 0; at a few rows per group (one: a change of
    2 in OFI is centred on 2/3) the Wald interval around it can end before the estimate the
    row reports. Widening only where it does keeps the adjusted interval's coverage (a superset)
    and never shows an interval that excludes its own point estimate.
    """
    return np.fmin(low, estimate), np.fmax(high, estimate)


def _ofi_interval(df: pl.DataFrame, cells: tuple[Any, ...], reference: int | None,
                  overall: bool, z: float) -> tuple[Any, Any]:
    """Wald interval of ofi − ofi_baseline = Δsel_g − Δsel_ref on adjusted cells, in [-2, 2]."""
    c, b, var, cov = adjusted_pairs(*cells)
    var_change = var[0] + var[1] - 2 * cov  # Var(Δ selection rate) of each group
    delta = c - b
    n = df["__pf_n"].to_numpy().astype(np.float64)
    k = len(c)
    if overall:
        weights = n / n.sum()
        v = np.array([np.sum((np.eye(k)[g] - weights) ** 2 * var_change) for g in range(k)])
        change = delta - np.sum(weights * delta)
    elif reference is not None:
        v = var_change + var_change[reference]
        v[reference] = 0.0
        change = delta - delta[reference]
    else:
        return np.full(k, np.nan), np.full(k, np.nan)
    estimate = df["ofi"].to_numpy() - df["ofi_baseline"].to_numpy()
    low, high = _containing(*_wald(change, v, z), estimate)
    defined = np.isfinite(estimate)
    return (np.where(defined, np.clip(low, -2.0, 2.0), np.nan),
            np.where(defined, np.clip(high, -2.0, 2.0), np.nan))


def _changes(df: pl.DataFrame, *, labelled: bool, level: float, mid_p: bool,
             overall: bool) -> pl.DataFrame:
    """The change columns of the joined table (small, eager)."""
    z = float(sps.norm.ppf(0.5 + level / 2))
    weighted = "weight_sum" in df.columns
    metrics = {"selection_rate": None, **({"tpr": 1, "fpr": 0} if labelled else {})}
    pairs = ((1, 1), (1, 0), (0, 1), (0, 0))
    # every sum of cells read here, in one query: weighted cells in rows (each group's positive
    # weights normalised to mean 1), the discordant pairs of selection and errors
    sums = df.select(
        (_rows(df.columns).cast(pl.Float64) if weighted else pl.lit(1.0)).alias("rows"),
        (pl.col("weight_sum").cast(pl.Float64) if weighted else pl.lit(1.0)).alias("wsum"),
        *(cell(y, p, q).alias(f"{m}_{p}{q}") for m, y in metrics.items() for p, q in pairs),
        cell(p=1, b=0).alias("sel_b"), cell(p=0, b=1).alias("sel_c"),
        *([(cell(1, 0, 1) + cell(0, 1, 0)).alias("worse"),
           (cell(1, 1, 0) + cell(0, 0, 1)).alias("better")] if labelled else []))
    rows, wsum = (sums[c].to_numpy().astype(np.float64) for c in ("rows", "wsum"))

    def in_rows(x: Any) -> Any:
        # (x / weight_sum) * rows, a share first: rows / weight_sum overflows for weights of
        # 1e-310 (as uncertainty.py's intervals do); a group of no weight has no rows
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(wsum > 0, x / np.where(wsum > 0, wsum, 1.0) * rows, 0.0)

    out: dict[str, Any] = {}
    selections: tuple[Any, ...] = ()
    for metric in metrics:
        a, b, c, d = (in_rows(sums[f"{metric}_{p}{q}"].to_numpy().astype(np.float64))
                      for p, q in pairs)
        selections = selections or (a, b, c, d)
        low, high = paired_difference_interval(a, b, c, d, level=level)
        out[f"{metric}_change_low"], out[f"{metric}_change_high"] = low, high
    ref = df["is_reference"].to_numpy()
    reference = int(np.flatnonzero(ref)[0]) if ref.any() else None
    out["impact_ratio_change_low"], out["impact_ratio_change_high"] = (
        impact_ratio_change_interval(df["impact_ratio"].to_numpy(),
                                     df["impact_ratio_baseline"].to_numpy(), selections,
                                     adjusted_pairs(*selections), level=level))
    if labelled:
        out["ofi_change_low"], out["ofi_change_high"] = _ofi_interval(
            df, selections, reference, overall, z)
    out["mcnemar_p_value"] = mcnemar_exact(sums["sel_b"].to_numpy(), sums["sel_c"].to_numpy(),
                                           mid_p=mid_p)
    if labelled:  # errors: candidate wrong and baseline right, and the reverse
        out["error_mcnemar_p_value"] = mcnemar_exact(
            sums["worse"].to_numpy(), sums["better"].to_numpy(), mid_p=mid_p)
    empty = df["n"].to_numpy() == 0  # no pairs: no test (as the rates are null)
    for name in ("mcnemar_p_value", "error_mcnemar_p_value"):
        if name in out:
            out[name] = np.where(empty, np.nan, np.asarray(out[name], dtype=np.float64))
    frame = pl.DataFrame({k: pl.Series(k, v, dtype=pl.Float64, nan_to_null=True)
                          for k, v in out.items()})
    if weighted:  # exact tests count people; weighted sums are no counts
        frame = frame.with_columns(pl.col("^.*mcnemar_p_value$").cast(pl.Float64) * None)
    return pl.concat([df, frame], how="horizontal")


def _columns(keys: Sequence[str], labelled: bool, weighted: bool = False) -> list[str]:
    # with weights, the rows of positive weight: the support low_support and the gate read
    cols = [*keys, "n", *([POSITIVE_ROWS] if weighted else [])]
    for m in CHANGE_METRICS[labelled]:
        cols += [m, f"{m}_baseline", f"{m}_change", f"{m}_change_low", f"{m}_change_high"]
    cols += ["mcnemar_p_value", *(["error_mcnemar_p_value"] if labelled else []),
             "adverse_impact", "adverse_impact_baseline", "adverse_impact_changed",
             "is_reference", "low_support"]
    return cols


def compare_outputs() -> list[str]:
    """Every column :func:`compare_from_counts` adds, with labels (a key may not be named so).

    Returns
    -------
    list of str
        The output columns without the keys, and the paired cells the computation reads.

    Examples
    --------
    >>> "mcnemar_p_value" in compare_outputs() and "low_support" in compare_outputs()
    True
    """
    return [*_columns([], True), "__pf_n", *PAIRED_CELLS, "weight_sum", POSITIVE_ROWS]


def _change_schema(joined: pl.LazyFrame, metrics: Sequence[str],
                   labels: bool) -> dict[str, pl.DataType]:
    """The schema of :func:`compare_from_counts`' batch: joined columns, intervals, p-values."""
    schema = dict(joined.collect_schema())
    for m in metrics:
        schema[f"{m}_change_low"] = schema[f"{m}_change_high"] = pl.Float64()
    schema["mcnemar_p_value"] = pl.Float64()
    if labels:
        schema["error_mcnemar_p_value"] = pl.Float64()
    return schema


def compare_from_counts(
    paired: pl.LazyFrame,
    keys: Sequence[str],
    *,
    labels: bool = True,
    reference: Any = DEFAULTS.reference,
    level: float = DEFAULTS.level,
    mid_p: bool = False,
    min_support: float = DEFAULTS.min_support,
    four_fifths: float = DEFAULTS.four_fifths,
) -> pl.LazyFrame:
    r"""Compare a candidate model with its baseline per group, with paired intervals and tests.

    Each model's ``selection_rate``, ``impact_ratio`` (selection rate over the highest among
    supported groups: the four-fifths rule of 29 CFR 1607.4(D)), ``tpr``, ``fpr`` and ``ofi``
    (Briscoe et al.'s Objective Fairness Index against the reference) are exactly those of
    :func:`polars_fair.analyses.report.report_from_counts` on that model's count table; the
    baseline's carry the suffix ``_baseline``. Each change is candidate − baseline:

    * ``selection_rate_change``, ``tpr_change`` (among positive labels), ``fpr_change`` (among
      negative labels): :math:`(b - c)/n` over the discordant pairs, with Newcombe's paired
      hybrid score interval (:func:`paired_difference_interval`, *Stat. Med.* 17:2635,
      method 10);
    * ``impact_ratio_change``: the MOVER-D combination of each model's MOVER-R Wilson interval
      of the ratio, with the correlation the pairing gives the two ratios
      (:mod:`polars_fair.analyses.ratio_change`; within :math:`[-\max(1, IR_b), \max(1,
      IR_c)]`; 0 to 0 for a group that is the top under both and clearly so);
    * ``ofi_change``: OFI is :math:`B_g - B_{ref}` with :math:`B = \text{selection} -
      \text{base rate}`, and the base rate is the same for both models, so the change is
      :math:`\Delta\text{sel}_g - \Delta\text{sel}_{ref}`, with a Wald interval from the paired
      variances :math:`(p_{12} + p_{21} - (p_{12} - p_{21})^2)/n` of each group.

    OFI's runs on **adjusted cells** (each selection cell + 1/2: Agresti & Min 2005, *Stat.
    Med.* 24:729; :func:`adjusted_pairs`), centred on the adjusted change, **widened to
    contain the plain change** (the column's value) where the adjustment moved the centre so
    far that the Wald interval ended before it (a few rows per group: one row each, an OFI
    change of 2 has adjusted centre 2/3 and upper end 1.86), and clipped to [−2, 2]: unlike
    the plain delta method it never collapses to a point when the models agree (width 0 only
    where the change is 0 by definition: the reference's OFI), never leaves the range at small
    :math:`n`, always contains its point estimate, and agrees with it at large :math:`n`.

    ``mcnemar_p_value`` tests the change in selection (:func:`mcnemar_exact` on the pairs
    where only one model selects); ``error_mcnemar_p_value`` the change in errors (only the
    candidate wrong: :math:`y_1p_0b_1 + y_0p_1b_0`, against only the baseline wrong). The
    four-fifths verdict (``adverse_impact``: impact ratio below ``four_fifths``, exactly on the
    counts) is given for each model, and ``adverse_impact_changed`` says whether it differs.

    **Weights** (a table with ``weight_sum``, from ``sample_weight``): every figure is weighted.
    The intervals rescale each group's weighted cells to its ``n_positive_weight`` rows of
    positive weight (weights normalised to mean 1 among them), so they do not depend on the
    scale of the weights, equal the unweighted ones when every weight is equal, and do not
    change when rows of weight 0 are added (such a row is no observation; ``low_support``
    counts the same rows). They ignore the design effect of unequal
    weights (Kish's effective sample size :math:`(\sum w)^2/\sum w^2` is smaller than
    :math:`n`), so they are too narrow when the weights vary much. The McNemar p-values are
    null: an exact test counts people, and weighted sums are no counts; the intervals (and the
    change gate, which reads them) are the test.

    Parameters
    ----------
    paired : pl.LazyFrame
        A paired count table (:func:`polars_fair.counting.paired.paired_schema`).
    keys : sequence of str
        Its key columns.
    labels : bool, default True
        Whether the table has labels: adds the ``tpr``, ``fpr``, ``ofi`` columns and the
        error test (without labels every row is a negative label, as in the count table).
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        The reference group of OFI (:mod:`polars_fair.core.reference`); a rule is applied to
        each model's table ("largest" picks the same group for both).
    level : float, default 0.95
        The confidence level of the intervals.
    mid_p : bool, default False
        McNemar's mid-p value instead of the exact one.
    min_support : float, default 30
        Groups with fewer rows are ``low_support`` and not the impact ratio's denominator
        while a supported group exists.
    four_fifths : float, default 0.8
        The impact-ratio threshold of the four-fifths rule.

    Returns
    -------
    pl.LazyFrame
        One row per group, sorted by the keys: keys; ``n`` (Int64), with weights then
        ``n_positive_weight`` (Int64: the support the flags and intervals read); for each metric
        ``m`` (``selection_rate``, ``impact_ratio``, with labels ``tpr``, ``fpr``, ``ofi``)
        ``m``, ``m_baseline``, ``m_change``, ``m_change_low``, ``m_change_high`` (Float64;
        rates in [0, 1], changes of rates in [−1, 1], OFI in [−2, 2]; null when undefined);
        ``mcnemar_p_value`` and, with labels, ``error_mcnemar_p_value`` (Float64 in [0, 1];
        null for a weighted table); ``adverse_impact``, ``adverse_impact_baseline``,
        ``adverse_impact_changed``, ``is_reference``, ``low_support`` (Boolean).

    Raises
    ------
    InvalidArgumentError
        An option outside its range; ``mid_p`` or ``labels`` not a boolean; a key named like
        an output column (:func:`compare_outputs`); a ``reference`` mapping naming an
        attribute other than ``keys`` (:data:`polars_fair.errors.BAD_REFERENCE_MAPPING`).
    UnknownGroupError
        An explicit ``reference`` that is not a group.

    Examples
    --------
    >>> from polars_fair.counting.paired import PAIRED_CELLS
    >>> cells = dict.fromkeys(PAIRED_CELLS, 0)
    >>> t = pl.LazyFrame([{"g": "a", "n": 10, **cells, "y0_p1_b1": 5, "y0_p0_b0": 5},
    ...                   {"g": "b", "n": 10, **cells, "y0_p1_b0": 4, "y0_p0_b0": 6}])
    >>> out = compare_from_counts(t, ["g"], labels=False, min_support=1).collect()
    >>> out.select("g", "selection_rate", "selection_rate_baseline",
    ...            "adverse_impact_changed").rows()
    [('a', 0.5, 0.5, False), ('b', 0.4, 0.0, True)]
    >>> round(out["mcnemar_p_value"][1], 4)  # 2 * P(X <= 0), X ~ Bin(4, 1/2)
    0.125
    """
    level = float(check("level", level))  # a Decimal or Fraction level too (core.numbers)
    keys = list(keys)
    check_clash(keys, compare_outputs(), "compare")
    reference = Reference.parse(reference, keys)  # a mapping naming exactly the keys
    mid_p, labels = flag(mid_p, "mid_p"), flag(labels, "labels")  # "no" would read as true
    names = paired.collect_schema().names()
    weighted = "weight_sum" in names

    def model(which: str) -> pl.LazyFrame:
        pick = {"p": 1} if which == "p" else {"b": 1}
        skip = {"p": 0} if which == "p" else {"b": 0}
        return paired.select(
            *keys, _rows(names).alias("n"), cell(1, **pick).alias("tp"),
            cell(0, **pick).alias("fp"),
            cell(1, **skip).alias("fn"), cell(0, **skip).alias("tn"),
            *(["weight_sum"] if weighted else []))

    options = dict(reference=reference, min_support=min_support, four_fifths=four_fifths)
    metrics = CHANGE_METRICS[labels]
    cand = report_from_counts(model("p"), keys, **options)
    base = report_from_counts(model("b"), keys, **options)
    total = pl.col("weight_sum") if weighted else pl.col("n").cast(pl.Float64)
    joined = pl.concat([
        paired.with_columns(__pf_n=total),
        cand.select(*metrics, "adverse_impact", "is_reference", "low_support"),
        base.select(pl.col(m).alias(f"{m}_baseline") for m in (*metrics, "adverse_impact")),
    ], how="horizontal").with_columns(
        *(pl.col(m).sub(pl.col(f"{m}_baseline")).alias(f"{m}_change") for m in metrics),
        (pl.col("adverse_impact") != pl.col("adverse_impact_baseline"))
        .alias("adverse_impact_changed"))
    schema, overall = _change_schema(joined, metrics, labels), reference.is_overall
    out = joined.map_batches(
        lambda df: _changes(df, labelled=labels, level=level, mid_p=mid_p,
                            overall=overall).select(list(schema)),
        schema=pl.Schema(schema))
    return out.select(_columns(keys, labels, weighted))

