"""compare and monitor: speed against a floor group-by, and the monitor's simulation figures.

Run from the project root::

    python -m benchmarks.compare_monitor_bench                  # speed: 1e7 rows (see --rows)
    python -m benchmarks.compare_monitor_bench --smoke          # tiny sizes, one repeat
    python -m benchmarks.compare_monitor_bench --simulate 1000  # the docs' simulation table

**Speed.** Rows with one attribute of 4 levels, a label, two 0/1 predictions and a date over
100 weeks. Each contender runs after one warm-up, interleaved round robin; each ratio is the
median of the rounds' ratios to the floor timed in the same round, by wall time and by the
process's CPU time (all threads), and the load average is printed:

* ``compare``: ``df.lazy().fair.compare("g", y_pred="new", baseline="old", y_true="y").collect()``
  against its floor, one Polars ``group_by(["g", "y", "new", "old"]).len()`` (the paired
  cells; any exact paired method must at least count them);
* ``monitor``: ``df.lazy().fair.monitor("g", time="t", every="1w", y_pred="new").collect()``
  against ``group_by([t.dt.truncate("1w"), "g", "new"]).len()``.

Targets (issue 25): compare within 1.3x its floor at 1e7 rows; monitor within 1.5x at 1e7 rows
and 100 periods.

**Simulation.** ``--simulate N``: N streams of 52 weekly looks per scenario, alpha = 0.05; the
share of streams whose alarm fires at some look (false alarms under the nulls, detection under
the alternatives, with the median week of detection), beside a two-proportion z-test on
cumulative counts at every look.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
from scipy.stats import norm

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.analyses.evalues import alarms_at_zero


def make_rows(n: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.choice(np.array(["a", "b", "c", "d"]), n, p=[0.4, 0.3, 0.2, 0.1])
    score = rng.random(n)
    y = (rng.random(n) < score).astype(np.int8)
    days = np.datetime64("2024-01-01") + rng.integers(0, 700, n).astype("timedelta64[D]")
    return pl.DataFrame({"g": g, "y": y, "new": (score > 0.5).astype(np.int8),
                         "old": (score > 0.55).astype(np.int8),
                         "t": pl.Series(days).cast(pl.Date)})


def _time(fn: Callable[[], Any]) -> tuple[float, float]:
    """Wall and CPU time (the process, every thread) of one call, in seconds."""
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - start, time.process_time() - cpu


def speed(rows: int, repeats: int) -> list[dict[str, Any]]:
    """Each contender and its floor timed one after the other in every round (interleaved).

    ``ratio`` is the median of the rounds' wall-time ratios to the floor of the same round,
    ``cpu_ratio`` that of their CPU-time ratios (less disturbed by other work on the machine).
    """
    df = make_rows(rows)
    lf = df.lazy()
    runs: dict[str, Callable[[], Any]] = {
        "compare": lambda: lf.fair.compare("g", y_pred="new", baseline="old",
                                           y_true="y").collect(),
        "compare floor": lambda: lf.group_by(["g", "y", "new", "old"]).len().collect(),
        "monitor": lambda: lf.fair.monitor("g", time="t", every="1w", y_pred="new").collect(),
        "monitor floor": lambda: lf.group_by(
            [pl.col("t").dt.truncate("1w"), "g", "new"]).len().collect(),
    }
    for fn in runs.values():  # warm-up
        fn()
    wall: dict[str, list[float]] = {k: [] for k in runs}
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeats):
        for name, fn in runs.items():
            w, c = _time(fn)
            wall[name].append(w)
            cpu[name].append(c)

    def ratio(times: dict[str, list[float]], k: str) -> float:
        return statistics.median(a / b for a, b in zip(times[k], times[f"{k} floor"],
                                                       strict=True))

    out = []
    for k in ("compare", "monitor", "compare floor", "monitor floor"):
        floor = k.endswith("floor")
        out.append({"what": k, "rows": rows, "median_s": round(statistics.median(wall[k]), 4),
                    "cpu_s": round(statistics.median(cpu[k]), 4),
                    "ratio": 1.0 if floor else round(ratio(wall, k), 2),
                    "cpu_ratio": 1.0 if floor else round(ratio(cpu, k), 2)})
    return out


def _z_alarms(s_g: Any, n_g: Any, s_r: Any, n_r: Any) -> Any:
    cg, cr, ng, nr = np.cumsum(s_g), np.cumsum(s_r), np.cumsum(n_g), np.cumsum(n_r)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (cg + cr) / (ng + nr)
        z = (cg / ng - cr / nr) / np.sqrt(p * (1 - p) * (1 / ng + 1 / nr))
    return np.maximum.accumulate(np.abs(np.nan_to_num(z)) > norm.ppf(0.975))


SCENARIOS: dict[str, Callable[[Any, Any], tuple[Any, Any, Any, Any]]] = {
    # (rng, t in [0, 1)) -> rate_g, rate_r, n_g, n_r per look
    "null: 0.30 both, 40 vs 120 a week": lambda rng, t: (
        np.full(t.size, 0.3), np.full(t.size, 0.3), rng.poisson(40, t.size),
        rng.poisson(120, t.size)),
    "null: rate drifts 0.10 -> 0.60 while the group's share grows": lambda rng, t: (
        0.1 + 0.5 * t, 0.1 + 0.5 * t, rng.poisson(10 + 80 * t), rng.poisson(120 - 80 * t)),
    "null: seasonal rate 0.3 +/- 0.15, 5 vs 200 a week": lambda rng, t: (
        0.3 + 0.15 * np.sin(12 * t), 0.3 + 0.15 * np.sin(12 * t), rng.poisson(5, t.size),
        rng.poisson(200, t.size)),
    "alternative: 0.24 against 0.30, 20 vs 60 a week": lambda rng, t: (
        np.full(t.size, 0.24), np.full(t.size, 0.30), rng.poisson(20, t.size),
        rng.poisson(60, t.size)),
    "alternative: 0.24 against 0.30, 40 vs 120 a week": lambda rng, t: (
        np.full(t.size, 0.24), np.full(t.size, 0.30), rng.poisson(40, t.size),
        rng.poisson(120, t.size)),
    "alternative: 0.03 against 0.05, 50 vs 150 a week": lambda rng, t: (
        np.full(t.size, 0.03), np.full(t.size, 0.05), rng.poisson(50, t.size),
        rng.poisson(150, t.size)),
}


def simulate(streams: int, looks: int = 52, alpha: float = 0.05,
             seed: int = 25) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    t = np.arange(looks) / looks
    out = []
    for name, draw in SCENARIOS.items():
        ours, naive, weeks = 0, 0, []
        for _ in range(streams):
            p_g, p_r, n_g, n_r = draw(rng, t)
            s_g, s_r = rng.binomial(n_g, p_g), rng.binomial(n_r, p_r)
            alarm = alarms_at_zero(s_g, n_g, s_r, n_r, alpha=alpha)
            if alarm[-1]:
                ours += 1
                weeks.append(int(np.argmax(alarm)) + 1)
            naive += bool(_z_alarms(s_g, n_g, s_r, n_r)[-1])
        out.append({"scenario": name, "streams": streams, "looks": looks,
                    "anytime_alarms": ours / streams, "z_test_alarms": naive / streams,
                    "median_week": statistics.median(weeks) if weeks else None})
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--simulate", type=int, default=0, metavar="STREAMS")
    args = parser.parse_args(argv)
    if args.simulate or args.smoke:
        print("| scenario | streams x looks | anytime alarms | z-test alarms | median week |")
        print("| --- | --- | --- | --- | --- |")
        for r in simulate(20 if args.smoke else args.simulate):
            week = "" if r["median_week"] is None else f"{r['median_week']:g}"
            print(f"| {r['scenario']} | {r['streams']} x {r['looks']} | "
                  f"{100 * r['anytime_alarms']:.1f} % | {100 * r['z_test_alarms']:.1f} % | "
                  f"{week} |")
    if not args.simulate or args.smoke:
        print("| what | rows | median s | CPU s | ratio to its floor | CPU-time ratio |")
        print("| --- | --- | --- | --- | --- | --- |")
        for r in speed(10_000 if args.smoke else args.rows, 1 if args.smoke else args.repeats):
            print(f"| {r['what']} | {r['rows']:,} | {r['median_s']} | {r['cpu_s']} | "
                  f"{r['ratio']} | {r['cpu_ratio']} |")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
