"""Multiclass decisions: ``multiclass_report`` at 1e7 rows against a floor over the same cells.

The audit frame's attributes ``a`` (6 levels) and ``b`` (2), with a three-class decision and a
three-class truth (Int8, derived from the frame's labels and a seeded draw). Ours is
``df.lazy().fair.multiclass_report(["a", "b"], y_pred=..., y_true=...).collect()``: one group-by
into the class table (the validation, the one-vs-rest tables and the exact decisions run on its
few rows). The floor is the hand-written Polars ``group_by(a, b, y_true, y_pred).agg(len)``: the
same cells, nothing else. Target (issue 22): at most 1.3× the floor.
"""

from __future__ import annotations

import numpy as np
import polars as pl

import polars_fair  # noqa: F401  (registers .fair)
from benchmarks.common import Config, Row, audit_frame, fmt_n, guarded, measure, median

BY = ["a", "b"]


def classes_frame(n: int, seed: int = 3) -> pl.DataFrame:
    """The audit frame with ``y_true`` and ``y_pred`` widened to three classes (0, 1, 2).

    A binary 0 / 1 becomes 0 / 2, and each moves to the middle class 1 with probability 0.3.
    """
    df, _ = audit_frame(n)
    rng = np.random.default_rng(seed)
    up_true = pl.Series(rng.random(n) < 0.3)
    up_pred = pl.Series(rng.random(n) < 0.3)
    return df.select(
        *BY,
        y_true=(pl.col("y_true") * 2 - (pl.col("y_true") == 1).and_(up_true).cast(pl.Int8)
                + (pl.col("y_true") == 0).and_(up_true).cast(pl.Int8)).cast(pl.Int8),
        y_pred=(pl.col("y_pred") * 2 - (pl.col("y_pred") == 1).and_(up_pred).cast(pl.Int8)
                + (pl.col("y_pred") == 0).and_(up_pred).cast(pl.Int8)).cast(pl.Int8),
    )


def ours(df: pl.DataFrame) -> pl.DataFrame:
    return df.lazy().fair.multiclass_report(BY, y_pred="y_pred", y_true="y_true").collect()


def floor(df: pl.DataFrame) -> pl.DataFrame:
    """The same cells by hand: one Polars group-by of the rows per (a, b, true, predicted)."""
    return df.lazy().group_by([*BY, "y_true", "y_pred"]).agg(pl.len()).collect()


def run(cfg: Config) -> list[Row]:
    n = 2_000 if cfg.smoke else 10_000_000
    tag = fmt_n(n)
    row = Row(
        f"multiclass/{tag}/floor", "multiclass",
        f"multiclass_report, 3 classes, 12 groups, N={tag}", n,
        'lf.fair.multiclass_report(["a", "b"], y_pred=..., y_true=...).collect()',
        baseline="floor: Polars group_by(a, b, y_true, y_pred).agg(len)", ratio_kind="slowdown",
        paired=True,
    )

    def body(r: Row) -> None:
        df = classes_frame(n)
        r.extra["rows_out"] = ours(df).height
        times = measure({"ours": lambda: ours(df), "floor": lambda: floor(df)},
                        cfg.repeats, cfg.warmup)
        r.ours_s, r.ours_repeats = median(times["ours"]), len(times["ours"])
        r.baseline_s, r.baseline_repeats = median(times["floor"]), len(times["floor"])
        r.extra.update(ours_times=times["ours"], baseline_times=times["floor"])

    return [guarded(row, body)]
