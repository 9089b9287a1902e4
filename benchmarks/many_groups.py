"""Many groups: ``report`` over 10,000 intersectional groups (1e6 rows) against the floor.

Two String attributes ``g1``, ``g2`` with 100 values each; about 100 rows per group. The report
does per-group work after the scan (rates, reference, flags, sorting), which this case exposes.
"""

from __future__ import annotations

import polars as pl

import polars_fair  # noqa: F401  (registers .fair)
from benchmarks.common import Config, Row, fmt_n, guarded, many_groups_frame, measure, median
from benchmarks.report_speed import floor


def run(cfg: Config) -> list[Row]:
    n, levels = (5_000, 10) if cfg.smoke else (1_000_000, 100)
    tag = fmt_n(n)
    row = Row(
        f"many_groups/{tag}/floor", "many_groups",
        f"report over {levels * levels:,} groups, N={tag}",
        n, "df.lazy().fair.report(by=[g1, g2]).collect()",
        baseline="floor: Polars group_by of n, Σy, Σŷ, Σy·ŷ", ratio_kind="slowdown", paired=True,
    )

    def body(r: Row) -> None:
        df = many_groups_frame(n, levels)
        by = ["g1", "g2"]

        def ours() -> pl.DataFrame:
            return df.lazy().fair.report(by=by).collect()

        times = measure({"ours": ours, "floor": lambda: floor(df, by)}, cfg.repeats, cfg.warmup)
        r.ours_s, r.ours_repeats = median(times["ours"]), len(times["ours"])
        r.baseline_s, r.baseline_repeats = median(times["floor"]), len(times["floor"])
        r.extra.update(ours_times=times["ours"], baseline_times=times["floor"],
                       groups=ours().height)

    return [guarded(row, body)]
