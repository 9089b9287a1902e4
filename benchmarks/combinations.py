"""Every combination: ``report(["a", "b", "c"], combinations="all")`` against one finest group-by.

With ``combinations="all"`` the report covers every non-empty subset of the three attributes (7
attribute sets). Built the polars_fair way, the rows are scanned once, at the finest level, and
the coarser sets are roll-ups of that small count table; so the target is that all of them cost
at most 1.5× the floor group-by at the finest level (a, b, c).

``combinations=`` is new; while it does not exist (``TypeError`` naming it) the row says
"not available yet".
"""

from __future__ import annotations

from typing import Any

import polars as pl

import polars_fair  # noqa: F401  (registers .fair)
from benchmarks.common import Config, Row, audit_frame, fmt_n, guarded, measure, median
from benchmarks.report_speed import floor

BY = ["a", "b", "c"]


def ours(df: pl.DataFrame) -> Any:
    out = df.lazy().fair.report(BY, combinations="all")  # type: ignore[call-arg]
    return out.collect() if isinstance(out, pl.LazyFrame) else out


def run(cfg: Config) -> list[Row]:
    n = 2_000 if cfg.smoke else 10_000_000
    tag = fmt_n(n)
    row = Row(
        f"combinations/{tag}/floor", "combinations", f"all 7 combinations of 3 attributes, N={tag}",
        n, 'lf.fair.report(["a", "b", "c"], combinations="all").collect()',
        baseline="floor: one Polars group_by(a, b, c) of n, Σy, Σŷ, Σy·ŷ", ratio_kind="slowdown",
        paired=True,
    )

    def body(r: Row) -> None:
        df, _ = audit_frame(n)
        try:
            first = ours(df)
        except TypeError as exc:
            if "combinations" in str(exc):
                r.status = "not available yet"
                r.reason = f"report() has no combinations= parameter yet ({exc})"
                return
            raise
        r.extra["rows_out"] = first.height if isinstance(first, pl.DataFrame) else None
        times = measure({"ours": lambda: ours(df), "floor": lambda: floor(df, BY)},
                        cfg.repeats, cfg.warmup)
        r.ours_s, r.ours_repeats = median(times["ours"]), len(times["ours"])
        r.baseline_s, r.baseline_repeats = median(times["floor"]), len(times["floor"])
        r.extra.update(ours_times=times["ours"], baseline_times=times["floor"])

    return [guarded(row, body)]
