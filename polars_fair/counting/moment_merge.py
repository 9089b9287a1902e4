"""Merging moment rows, and the mean carried as two doubles so that close means keep their gap.

A mean near 10⁹ rounded to a double is off by up to half a unit in its last place (6·10⁻⁸);
two groups whose means differ by 0.04 there lose 1.5·10⁻⁶ of their difference, and at 10¹²
with a gap of 10⁻³ every digit. So a moment table carries, beside ``mean_pred``, its low part
``mean_pred_low``: the mean is the unevaluated sum ``mean_pred + mean_pred_low`` (a
double-double, Dekker 1971, "A floating-point technique for extending the available
precision"), and differences between groups are taken as ``(mean_g − mean_r) + (low_g −
low_r)``: the first subtraction is exact when the means are within a factor 2 of each other
(Sterbenz's lemma), so the difference keeps the digits of each group's mean about its own shift.

Every engine computes each group's mean about a shift near its values (``d``, the mean of
``y_pred − s``) and :func:`split_mean` turns the pair ``(s, d)`` into the two parts by Knuth's
TwoSum (*TAOCP* vol. 2, §4.2.2), exact in floating point for any magnitudes:
``hi = s + d``, ``low = (s − (hi − b)) + (d − b)`` with ``b = hi − s``. A table made elsewhere
without ``mean_pred_low`` reads it as 0 (its mean is the rounded one).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

__all__ = ["DMEAN", "FAR", "LOW", "SHIFT", "far_from_shift", "merge_moments", "split_mean",
           "two_sum"]

#: The low part of ``mean_pred`` (the only mean differenced between groups at an offset).
LOW = "mean_pred_low"
#: The label tables' shift of ``y_pred`` (per group) and the mean of ``y_pred`` about it: every
#: engine's label table carries them in place of ``mean_pred``, which
#: :func:`polars_fair.counting.moments.moments_from_labels` splits into the two parts.
SHIFT, DMEAN = "__pf_shift_pred", "__pf_dmean_pred"
#: A group lies far from the shift when its distance exceeds its own standard deviation by this
#: factor (2¹⁰: at most about 2¹⁰·2⁻⁵³ ≈ 10⁻¹³ of it lost).
FAR = 2.0**10


def far_from_shift(df: pl.DataFrame, *, weighted: bool) -> bool:
    """Whether a group of a label table lies too far from its shift to keep its digits.

    Each shifted value ``x − s`` is rounded to about 10⁻¹⁶ of ``|x − s|``, and so is their
    sum: the digits lost are those of ``|mean − s|``, whatever the group's own offset. A group
    is far when ``|mean − s|`` exceeds :data:`FAR` times its own population standard deviation
    (for a group of equal values, of ``|mean|``): beyond it, the group would lose more than
    about 10⁻¹³ of its standard deviation (and of the differences measured in it), and is
    aggregated again about its own values (Polars and DuckDB first shift every group by one
    value of the frame, which keeps their fast aggregations). A group at 10⁹ shifted by 0 (a
    frame whose first value is 0) is far: its mean's magnitude is no scale, as its digits
    below 10⁻⁷ are the ones a mean difference or an SMD reads.

    Parameters
    ----------
    df : pl.DataFrame
        A moment label table: ``n`` or ``weight_sum``, ``m2_pred``, :data:`SHIFT`,
        :data:`DMEAN`.
    weighted : bool
        Whether the size is ``weight_sum``.

    Returns
    -------
    bool

    Examples
    --------
    >>> t = pl.DataFrame({"n": [2, 2], "m2_pred": [2.0, 2.0], SHIFT: [1e9, 1e9],
    ...                   DMEAN: [0.5, -1e9]})  # the second group lies near 0
    >>> far_from_shift(t, weighted=False), far_from_shift(t.head(1), weighted=False)
    (True, False)
    >>> at_1e9 = pl.DataFrame({"n": [2], "m2_pred": [2.0], SHIFT: [0.0], DMEAN: [1e9]})
    >>> far_from_shift(at_1e9, weighted=False)  # shifted by a first value of 0
    True
    """
    size = pl.col("weight_sum" if weighted else "n").cast(pl.Float64)
    dmean = pl.col(DMEAN)
    sd = (pl.col("m2_pred") / size).sqrt()
    scale = pl.when(sd > 0).then(sd).otherwise((pl.col(SHIFT) + dmean).abs())
    far = dmean.abs() > FAR * scale
    return bool(df.select(far.fill_null(False).any()).item())


def two_sum(a: pl.Expr, b: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """``(hi, low)`` with ``hi = fl(a + b)`` and ``hi + low = a + b`` exactly (Knuth's TwoSum).

    Parameters
    ----------
    a, b : pl.Expr
        Float64 expressions.

    Returns
    -------
    (pl.Expr, pl.Expr)
        The rounded sum and its rounding error (Float64; null where either input is).

    Examples
    --------
    >>> df = pl.DataFrame({"a": [1e9], "b": [1e-9]})
    >>> hi, low = two_sum(pl.col("a"), pl.col("b"))
    >>> df.select(hi.alias("hi"), low.alias("low")).rows()
    [(1000000000.0, 1e-09)]
    """
    hi = a + b
    b_virtual = hi - a
    low = (a - (hi - b_virtual)) + (b - b_virtual)
    return hi, low


def split_mean(shift: pl.Expr, dmean: pl.Expr, name: str = "pred") -> list[pl.Expr]:
    """``mean_{name}`` and, for ``pred``, ``mean_pred_low`` from a shift and the mean about it.

    Parameters
    ----------
    shift : pl.Expr
        The value each group's values were shifted by (Float64).
    dmean : pl.Expr
        The mean of the shifted values (Float64).
    name : str, default "pred"
        The moment (``pred``: both parts; another: ``mean_{name}`` only).

    Returns
    -------
    list of pl.Expr
        ``mean_{name}`` (the rounded mean) [and ``mean_pred_low``, its rounding error].

    Examples
    --------
    >>> df = pl.DataFrame({"s": [1e12], "d": [1e-3 + 2**-40]})
    >>> df.select(split_mean(pl.col("s"), pl.col("d"))).rows()[0][1] != 0.0
    True
    """
    hi, low = two_sum(shift, dmean)
    return [hi.alias(f"mean_{name}"), *([low.alias(LOW)] if name == "pred" else [])]


def merge_moments(table: pl.DataFrame | pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Merge moment rows with equal keys (Chan et al.'s parallel formula, many parts at once).

    ``mean = Σ W_i·mean_i / Σ W_i`` (computed as ``p + Σ W_i·(mean_i − p) / Σ W_i`` about the
    first mean ``p``, exact for one part; ``mean_i − p`` includes the low parts
    ``mean_pred_low``, and the merged mean is split again into its two parts),
    ``M2 = Σ M2_i + Σ W_i·(mean_i − mean)²``, ``n``, ``weight_sum`` and ``sum_abs_residual`` add
    (``W_i`` is ``weight_sum`` when present, else ``n``). Source: Chan, Golub and LeVeque
    (1979); exact in exact arithmetic and adds only non-negative terms in floating point.
    ``keys=[]`` merges the whole table into one row. A group whose sizes sum to 0 has null
    means.

    Parameters
    ----------
    table : pl.DataFrame or pl.LazyFrame
        A moment table (:func:`polars_fair.counting.moments.moment_schema`), possibly with
        repeated keys; ``mean_pred_low`` is optional (0 when absent).
    keys : sequence of str
        The keys to keep.

    Returns
    -------
    pl.LazyFrame
        One row per key value: ``keys``, then the moment columns present in ``table`` (Int64
        ``n``, Float64 moments; other columns are dropped), sorted by ``keys`` with nulls last.

    Examples
    --------
    >>> parts = pl.DataFrame({"g": ["a", "a"], "n": [2, 1], "mean_pred": [2.0, 5.0],
    ...                       "m2_pred": [2.0, 0.0]})  # rows 1, 3 and 5
    >>> merge_moments(parts, ["g"]).collect().rows()
    [('a', 3, 3.0, 8.0)]
    """
    lf = table.lazy()
    cols = lf.collect_schema().names()
    size = (pl.col("weight_sum") if "weight_sum" in cols else pl.col("n")).cast(pl.Float64)
    total = size.sum()
    aggs = [pl.col("n").sum().cast(pl.Int64)]
    if "weight_sum" in cols:
        aggs.append(pl.col("weight_sum").sum())

    def merged(name: str) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
        # about a pivot (the first mean), so that one part keeps its mean exactly and close
        # means add small deviations instead of products of size and a large mean
        mean = pl.col(f"mean_{name}")
        pivot = mean.drop_nulls().first()
        gap = mean - pivot  # exact for means within a factor 2 of the pivot (Sterbenz)
        if name == "pred" and LOW in cols:
            gap = gap + pl.col(LOW).fill_null(0.0)
        shift = (size * gap).sum() / total
        ok = total > 0
        return (pl.when(ok).then(pivot).otherwise(None), pl.when(ok).then(shift).otherwise(None),
                gap)

    for name in ("pred", "true", "residual"):
        if f"mean_{name}" not in cols:
            continue
        pivot, shift, gap = merged(name)
        hi, low = two_sum(pivot, shift)
        aggs.append(hi.alias(f"mean_{name}"))
        if name == "pred" and LOW in cols:
            aggs.append(low.alias(LOW))
        if f"m2_{name}" in cols:
            dev = (size * (gap - shift) ** 2).sum()
            aggs.append((pl.col(f"m2_{name}").sum() + dev).alias(f"m2_{name}"))
    if "sum_abs_residual" in cols:
        aggs.append(pl.col("sum_abs_residual").sum())
    made = {e.meta.output_name() for e in aggs}
    order = [c for c in cols if c in made]
    if not keys:
        return lf.select(aggs).select(order)
    return lf.group_by(list(keys)).agg(aggs).sort(list(keys), nulls_last=True) \
        .select(*keys, *order)
