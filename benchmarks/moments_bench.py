"""Continuous moments: ``polars_fair.moments`` against a floor group-by of the same moments.

Every contender gets the same synthetic frame (:func:`benchmarks.common.audit_frame`'s String
attributes ``a`` and ``b``, 12 groups) with a continuous prediction ``x = 10⁹ + N(0, 1)`` (plus a
group effect) and an observed value ``y = x + N(0, 0.5)``:

* ours: ``polars_fair.moments(df, ["a", "b"], y_pred="x"[, y_true="y"]).frame.collect()``: the
  plan (schema checks), the frame-wide shift of each value by its first value, the group-by of
  the moments and the null/NaN/infinite counts, the validation and the merge of the small table;
* floor: the hand-written Polars ``group_by(a, b)`` of the same moments from Polars' own stable
  aggregates, without shift or checks: ``n, mean(x), var(x)·n`` (and ``mean(y)``, ``mean(r)``,
  ``var(r)·n``, ``Σ|r|`` of the residual ``r = x − y``): the least work any Polars
  implementation must do for these moments.
"""

from __future__ import annotations

import numpy as np
import polars as pl

import polars_fair
from benchmarks.common import (
    Config,
    Row,
    audit_frame,
    fmt_n,
    guarded,
    measure,
    median,
    record_cpu,
)

BY = ["a", "b"]
FULL_SIZES = [1_000_000, 10_000_000]
SMOKE_SIZES = [2_000]


def frame(n: int) -> pl.DataFrame:
    df, code = audit_frame(n)
    rng = np.random.default_rng(1)
    x = 1e9 + rng.normal(size=n) + 0.1 * code
    return df.select(BY).with_columns(x=pl.Series(x), y=pl.Series(x + rng.normal(0, 0.5, n)))


def ours(df: pl.DataFrame, residuals: bool) -> pl.DataFrame:
    m = polars_fair.moments(df, BY, y_pred="x", y_true="y" if residuals else None)
    return m.frame.collect()


def floor(df: pl.DataFrame, residuals: bool) -> pl.DataFrame:
    """The floor: one Polars group-by of the moments (stable aggregates, no shift, no checks)."""
    x, y = pl.col("x"), pl.col("y")
    aggs = [pl.len().alias("n"), x.mean().alias("mean_pred"),
            (x.var(ddof=0) * pl.len()).alias("m2_pred")]
    if residuals:
        r = x - y
        aggs += [y.mean().alias("mean_true"), r.mean().alias("mean_residual"),
                 (r.var(ddof=0) * pl.len()).alias("m2_residual"),
                 r.abs().sum().alias("sum_abs_residual")]
    return df.lazy().group_by(BY).agg(aggs).collect()


def run(cfg: Config) -> list[Row]:
    rows: list[Row] = []
    for n in SMOKE_SIZES if cfg.smoke else FULL_SIZES:
        df = frame(n)
        for residuals in (False, True):
            rows.append(_one(cfg, df, n, residuals))
        del df
    return rows


def _one(cfg: Config, df: pl.DataFrame, n: int, residuals: bool) -> Row:
    tag = fmt_n(n)
    kind = "residual" if residuals else "pred"
    call = "y_pred=x, y_true=y" if residuals else "y_pred=x"
    row = Row(f"moments/{tag}/{kind}", "moments",
              f"moments by 2 attributes ({call}), N={tag}", n,
              f"polars_fair.moments(df, [a, b], {call}).frame.collect()",
              baseline="floor: Polars group_by of n, mean, var·n (the same moments)",
              ratio_kind="slowdown", paired=True)

    def timed(r: Row) -> None:
        contenders = {"ours": lambda: ours(df, residuals), "floor": lambda: floor(df, residuals)}
        times = measure(contenders, cfg.repeats, warmup=cfg.warmup)
        r.ours_s, r.ours_repeats = median(times["ours"]), len(times["ours"])
        r.baseline_s, r.baseline_repeats = median(times["floor"]), len(times["floor"])
        r.extra["ours_times"], r.extra["baseline_times"] = times["ours"], times["floor"]
        record_cpu(r, contenders, cfg.repeats)

    return guarded(row, timed)
