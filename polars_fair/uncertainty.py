"""Uncertainty from counts: the tidy per-metric table with intervals, and tests against a reference.

Both analyses read only the count table (group × cell counts), never rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from polars_fair import errors as E
from polars_fair import stats
from polars_fair.reference import for_set, known, reference_flag
from polars_fair.registry import METRICS, PROPORTIONS, RATE_NAMES, Counts, safe_div
from polars_fair.report import count_exprs


def row_scale(names: Sequence[str]) -> pl.Expr:
    """Rows per unit of weight, ``n / weight_sum``, for inference on a weighted count table.

    Intervals, tests and support flags treat counts as numbers of independent rows. Weighted
    sums are therefore rescaled to the group's row count (weights normalised to mean 1 within
    the group), so the results do not depend on the scale of the weights. This ignores the
    design effect of unequal weights (Kish's effective sample size is smaller); 1 unweighted.
    """
    if "weight_sum" not in names:
        return pl.lit(1.0)
    return safe_div(pl.col("n"), pl.col("weight_sum")).fill_null(0.0)


def _check_level(level: float) -> None:
    if not 0 < level < 1:
        raise E.InvalidArgumentError(f"level must lie in (0, 1), got {level}")


def metrics_table(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    level: float = 0.95,
    min_support: int = 30,
) -> pl.LazyFrame:
    """Tidy form: one row per group × metric, with its own numerator, denominator and interval.

    For each metric of the registry (:data:`polars_fair.registry.METRICS`): ``value =
    numerator / denominator``
    (null when the denominator is 0) with a Wilson score interval (Wilson 1927; Newcombe 1998),
    ``ci_low``/``ci_high`` at ``level``. For ``marginal_benefit`` = (FP − FN)/n, a difference of
    two multinomial shares, the interval is the Wald interval
    ``B ± z·sqrt((p_FP + p_FN − B²)/n)`` clipped to [−1, 1]. ``low_support`` judges each metric on
    its **own denominator**: a TPR on 3 positives is flagged even in a group of 1,000 rows. With
    weighted counts the intervals treat the weighted sums as counts (no design effect).

    Returns
    -------
    pl.LazyFrame
        keys; ``metric`` (String); ``numerator``, ``denominator`` (Int64, Float64 if weighted);
        ``value``, ``ci_low``, ``ci_high`` (Float64; rates in [0, 1], marginal benefit in
        [−1, 1]); ``low_support`` (Boolean: denominator < ``min_support``). Sorted by the keys,
        then the metric order of the registry.

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a"], "n": [10], "tp": [4], "fp": [1], "fn": [1], "tn": [4]})
    >>> m = metrics_table(c, ["g"]).filter(pl.col("metric") == "tpr").collect()
    >>> m.select("numerator", "denominator", "value").row(0)
    (4, 5, 0.8)
    """
    _check_level(level)
    names = counts.collect_schema().names()
    c = count_exprs(names)
    cell = pl.Float64 if "weight_sum" in names else pl.Int64
    z = stats._z_value(level)

    def part(order: int, name: str) -> pl.LazyFrame:
        m = METRICS[name]
        num = m.numerator(c) if m.numerator is not None else pl.lit(None)
        den = m.denominator(c) if m.denominator is not None else pl.lit(None)
        return counts.select(
            *keys,
            pl.lit(name).alias("metric"),
            pl.lit(order).alias("__order"),
            pl.lit(m.interval or "").alias("__interval"),
            num.cast(cell).alias("numerator"),
            den.cast(cell).alias("denominator"),
            m.value(c).alias("__value"),
            (c.fp + c.fn).cast(pl.Float64).alias("__fpfn"),
            row_scale(names).alias("__scale"),
        )

    tidy = pl.concat([part(order, name) for order, name in enumerate(RATE_NAMES)],
                     how="vertical")
    # inference in rows: weighted sums are rescaled to the group's row count
    x = pl.col("numerator").cast(pl.Float64) * pl.col("__scale")
    n = pl.col("denominator").cast(pl.Float64) * pl.col("__scale")
    interval = pl.col("__interval")
    value = pl.when(interval == "").then(pl.col("__value")).when(n > 0).then(x / n)
    lo, hi = stats.wilson_exprs(x, n, level=level)
    # Wald interval of B = (FP-FN)/n, a difference of two multinomial shares:
    # Var(B) = (p_FP + p_FN - B^2) / n
    share = pl.col("__fpfn") * pl.col("__scale") / n
    se = (share - value.pow(2)).clip(lower_bound=0.0).sqrt() / n.sqrt()
    wald = interval == "wald"
    out = tidy.with_columns(
        value.alias("value"),
        pl.when(wald).then((value - z * se).clip(-1.0, 1.0))
        .when(interval == "wilson").then(lo).alias("ci_low"),
        pl.when(wald).then((value + z * se).clip(-1.0, 1.0))
        .when(interval == "wilson").then(hi).alias("ci_high"),
        (n < min_support).alias("low_support"),
    )
    return out.sort([*keys, "__order"], nulls_last=True).select(
        *keys, "metric", "numerator", "denominator", "value", "ci_low", "ci_high", "low_support"
    )


Test = Literal["auto", "z", "fisher"]
Adjust = Literal["holm", "bh"]


def disparity_table(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: Any = "largest",
    metric: str = "selection_rate",
    level: float = 0.95,
    test: Test = "auto",
    adjust: Adjust = "holm",
) -> pl.LazyFrame:
    """Each group's rate against the reference's, with intervals and a multiplicity-adjusted test.

    * ``difference`` = rate − reference rate, with Newcombe's hybrid score interval (Newcombe
      1998, method 10);
    * ``ratio`` = rate / reference rate (the disparate impact ratio for ``selection_rate``), with
      the log (Katz et al. 1978) interval; null when the reference rate is 0;
    * ``p_value``: two-sided test of equal rates, the pooled two-proportion z-test, or Fisher's
      exact test (``test="auto"`` uses Fisher when an expected cell is below 5);
    * ``p_value_adjusted``: Holm's step-down (default) or Benjamini–Hochberg across the groups
      compared, for the many intersectional groups of an audit; ``significant`` =
      ``p_value_adjusted < 1 − level``.

    ``reference="overall"`` compares each group with **the rest of the population** (its
    complement), so that the two samples are independent.

    Returns
    -------
    pl.LazyFrame
        keys; ``metric`` (String); ``numerator``, ``denominator``, ``reference_numerator``,
        ``reference_denominator`` (Int64 or Float64); ``value``, ``reference_value``,
        ``difference``, ``difference_ci_low``, ``difference_ci_high``, ``ratio``,
        ``ratio_ci_low``, ``ratio_ci_high``, ``p_value``, ``p_value_adjusted`` (Float64);
        ``is_reference``, ``significant`` (Boolean). The reference row has null tests.

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [100, 100], "tp": [40, 10], "fp": [10, 10],
    ...                   "fn": [10, 40], "tn": [40, 40]})
    >>> d = disparity_table(c, ["g"], reference="a").collect()
    >>> d.select("g", "ratio").rows()
    [('a', 1.0), ('b', 0.4)]
    """
    _check_level(level)
    if metric not in PROPORTIONS:
        raise E.InvalidArgumentError(
            f"metric must be one of {list(PROPORTIONS)} (a proportion), got {metric!r}"
        )
    if test not in ("auto", "z", "fisher"):
        raise E.InvalidArgumentError(f"test must be 'auto', 'z' or 'fisher', got {test!r}")
    if adjust not in ("holm", "bh"):
        raise E.InvalidArgumentError(f"adjust must be 'holm' or 'bh', got {adjust!r}")
    names = counts.collect_schema().names()
    c = count_exprs(names)
    m = METRICS[metric]
    assert m.numerator is not None and m.denominator is not None
    reference = for_set(reference, keys)
    base = counts.select(
        *keys, m.numerator(c).alias("numerator"), m.denominator(c).alias("denominator"),
        c.n.alias("__size"), pl.col("n").alias("__rows"), pl.col("n"),
        METRICS["selection_rate"].value(c).alias("__sr"),
    )
    x, n = pl.col("numerator"), pl.col("denominator")
    eligible = known(keys) & (pl.col("__size") > 0)
    base, flag = reference_flag(base, keys, reference, eligible=eligible, score=pl.col("__sr"),
                                size="__size")
    if flag is None:  # "overall": each group against the rest of the population
        ref_x, ref_n = x.sum() - x, n.sum() - n
        ref_rows = pl.col("__rows").sum() - pl.col("__rows")
        ref_size = pl.col("__size").sum() - pl.col("__size")
        is_ref = pl.repeat(False, pl.len())
    else:
        ref_x, ref_n = x.filter(flag).first(), n.filter(flag).first()
        ref_rows = pl.col("__rows").filter(flag).first()
        ref_size = pl.col("__size").filter(flag).first()
        is_ref = flag
    framed = base.with_columns(
        ref_x.alias("reference_numerator"), ref_n.alias("reference_denominator"),
        is_ref.alias("is_reference"), ref_rows.alias("__ref_rows"), ref_size.alias("__ref_size"),
    )

    def compute(df: pl.DataFrame) -> pl.DataFrame:
        def arr(name: str) -> np.ndarray:
            return df[name].cast(pl.Float64).to_numpy()

        # inference in rows: weighted sums rescaled to row counts (see row_scale)
        with np.errstate(divide="ignore", invalid="ignore"):
            own = np.where(arr("__size") > 0, arr("__rows") / arr("__size"), 0.0)
            other = np.where(arr("__ref_size") > 0, arr("__ref_rows") / arr("__ref_size"), 0.0)
        def snap(v: np.ndarray) -> np.ndarray:  # rescaling leaves 1.0000000000000002
            near = np.isclose(v, np.round(v), rtol=0.0, atol=1e-9)
            return np.where(near, np.round(v), v)

        a, m = snap(arr("numerator") * own), snap(arr("denominator") * own)
        b = snap(arr("reference_numerator") * other)
        r = snap(arr("reference_denominator") * other)
        with np.errstate(divide="ignore", invalid="ignore"):
            p1 = np.where(m > 0, a / np.where(m > 0, m, 1), np.nan)
            p2 = np.where(r > 0, b / np.where(r > 0, r, 1), np.nan)
            ratio = np.where(p2 > 0, p1 / np.where(p2 > 0, p2, 1), np.nan)
        d_lo, d_hi = stats.newcombe_difference_interval(a, m, b, r, level=level)
        r_lo, r_hi = stats.ratio_interval(a, m, b, r, level=level)
        is_ref_np = df["is_reference"].to_numpy()
        usable = (m > 0) & (r > 0) & ~is_ref_np
        p = np.full(len(a), np.nan)
        if usable.any():
            integral = np.all(np.equal(np.mod(a[usable], 1), 0)) and np.all(
                np.equal(np.mod(m[usable], 1), 0))
            method = test if (test != "fisher" or integral) else "z"
            p[usable] = stats.two_proportion_test(
                a[usable], m[usable], b[usable], r[usable], method=method
            )
        p_adj = stats.adjust_pvalues(p, method=adjust)

        def col(v: np.ndarray) -> pl.Series:
            return pl.Series(np.asarray(v, dtype=np.float64), nan_to_null=True)

        return df.with_columns(
            value=col(p1), reference_value=col(p2), difference=col(p1 - p2),
            difference_ci_low=col(np.asarray(d_lo, dtype=float)),
            difference_ci_high=col(np.asarray(d_hi, dtype=float)),
            ratio=col(ratio), ratio_ci_low=col(np.asarray(r_lo, dtype=float)),
            ratio_ci_high=col(np.asarray(r_hi, dtype=float)),
            p_value=col(p), p_value_adjusted=col(np.asarray(p_adj, dtype=float)),
        ).with_columns(
            (pl.col("p_value_adjusted") < 1 - level).alias("significant"),
            pl.lit(metric).alias("metric"),
        )

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


__all__ = ["metrics_table", "disparity_table", "PROPORTIONS", "Counts"]
