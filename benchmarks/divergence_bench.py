"""divergence: speed against DivExplorer and one group-by, and a simulation under the null.

Run from the project root::

    python -m benchmarks.divergence_bench                 # 1e5 and 1e6 rows, 5 attributes
    python -m benchmarks.divergence_bench --smoke         # tiny sizes, one repeat
    python -m benchmarks.divergence_bench --null 1000     # the null simulation (README figures)

**Speed.** Rows with 5 attributes (6 × 2 × 3 × 2 × 4 levels, COMPAS-like) and a binary label and
prediction; ``min_support=0.01``, metric FPR. Three contenders, interleaved round robin after
one warm-up each, medians shown:

* ours: ``df.lazy().fair.divergence(attrs, metric="fpr", min_support=0.01).collect()``
  (the one scan into the count table, the pattern search, every statistic);
* the floor: one Polars ``group_by`` over the finest attribute set (the five attributes) with
  the four confusion cells, the least any exact method must do;
* DivExplorer 0.2.6 (``DivergenceExplorer.get_pattern_divergence`` with a Boolean FPR outcome,
  FP-growth), in its own virtual environment as a subprocess that reads the same rows from a
  CSV file and times only the call (reading excluded). Its interpreter:
  ``$POLARS_FAIR_DIVEXPLORER_PYTHON``, else ``$POLARS_FAIR_BENCH_ENVS/divexplorer/bin/python``;
  without one its rows say "not run".

Targets (issue 14): at least 50× faster than DivExplorer at 1e6 rows; within 2× the floor.

**Null simulation.** Labels and predictions drawn independently of four attributes (4 × 3 × 2 × 3
levels), 2,000 rows per search, ``min_support=0.01`` (about 100 patterns tested per search).
Every discovery is false, so the share of searches with any discovery is both the family-wise
error rate and the false discovery rate; with BH it must stay at or under 0.05. The unadjusted
p-values (``p_value <= 0.05``) find something in most searches.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import polars_fair  # noqa: F401  (registers .fair)

ATTRS = ["a", "b", "c", "d", "e"]
LEVELS = [6, 2, 3, 2, 4]
ENVS = Path(os.environ.get("POLARS_FAIR_BENCH_ENVS", "/work/bench-envs"))

WORKER = r'''
import json, sys, time
import pandas as pd
from divexplorer import DivergenceExplorer
cfg = json.loads(sys.argv[1])
df = pd.read_csv(cfg["csv"], dtype={a: str for a in cfg["attributes"]})
df["fpr"] = df["fpr"].astype(float)
times = []
for _ in range(cfg["repeats"]):
    t0 = time.perf_counter()
    out = DivergenceExplorer(df).get_pattern_divergence(
        min_support=cfg["min_support"], boolean_outcomes=["fpr"], attributes=cfg["attributes"])
    times.append(time.perf_counter() - t0)
print(json.dumps({"times": times, "patterns": int(len(out)) - 1}))
'''


def make_rows(n: int, seed: int = 0) -> pl.DataFrame:
    """``n`` rows: five string attributes, a label and a prediction that depends on them."""
    rng = np.random.default_rng(seed)
    cols = {a: rng.integers(0, k, n) for a, k in zip(ATTRS, LEVELS, strict=True)}
    y = rng.random(n) < 0.4
    # a model that errs more on a = 0 and e = 3: a real divergence to find
    p_err = 0.2 + 0.15 * (cols["a"] == 0) + 0.1 * (cols["e"] == 3)
    pred = np.where(rng.random(n) < p_err, ~y, y)
    return pl.DataFrame({**{a: pl.Series(v).cast(pl.String) for a, v in cols.items()},
                         "y_true": y.astype(np.int8), "y_pred": pred.astype(np.int8)})


def ours(df: pl.DataFrame) -> int:
    return df.lazy().fair.divergence(ATTRS, metric="fpr", min_support=0.01).collect().height


def floor(df: pl.DataFrame) -> int:
    y, p = pl.col("y_true") == 1, pl.col("y_pred") == 1
    return df.lazy().group_by(ATTRS).agg(
        pl.len(), (y & p).sum().alias("tp"), (~y & p).sum().alias("fp"),
        (y & ~p).sum().alias("fn"), (~y & ~p).sum().alias("tn"),
    ).collect().height


def divexplorer_python() -> str | None:
    given = os.environ.get("POLARS_FAIR_DIVEXPLORER_PYTHON")
    if given:
        return given
    default = ENVS / "divexplorer" / "bin" / "python"
    return str(default) if default.exists() else None


def divexplorer(df: pl.DataFrame, repeats: int, tmp: Path) -> tuple[list[float], int] | str:
    python = divexplorer_python()
    if python is None:
        return ("not run: no DivExplorer interpreter (set POLARS_FAIR_DIVEXPLORER_PYTHON, or "
                "make $POLARS_FAIR_BENCH_ENVS/divexplorer with divexplorer==0.2.6)")
    csv = tmp / f"divexplorer_{df.height}.csv"
    y, p = pl.col("y_true"), pl.col("y_pred")
    df.select(*ATTRS, fpr=pl.when(y == 0).then(p.cast(pl.Float64))).write_csv(csv)
    cfg = {"csv": str(csv), "attributes": ATTRS, "min_support": 0.01, "repeats": repeats}
    run = subprocess.run([python, "-c", WORKER, json.dumps(cfg)], capture_output=True,
                         text=True, timeout=3600, check=False)
    csv.unlink(missing_ok=True)
    if run.returncode != 0:
        return "error: " + run.stderr[-500:]
    out = json.loads(run.stdout)
    return out["times"], out["patterns"]


def timed(fn: Callable[[], Any], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def speed(sizes: list[int], repeats: int) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            df = make_rows(n)
            ours(df)
            floor(df)  # warm-up
            t_ours: list[float] = []
            t_floor: list[float] = []
            for _ in range(repeats):  # interleaved
                t_ours += timed(lambda: ours(df), 1)  # noqa: B023
                t_floor += timed(lambda: floor(df), 1)  # noqa: B023
            dx = divexplorer(df, 1 if n >= 1_000_000 else repeats, Path(tmp))
            row: dict[str, Any] = {
                "rows": n, "patterns": ours(df), "ours_s": statistics.median(t_ours),
                "floor_s": statistics.median(t_floor), "repeats": repeats}
            row["vs_floor"] = row["ours_s"] / row["floor_s"]
            if isinstance(dx, str):
                row["divexplorer"] = dx
            else:
                row["divexplorer_s"] = statistics.median(dx[0])
                row["divexplorer_repeats"] = len(dx[0])
                row["divexplorer_patterns"] = dx[1]
                row["speedup"] = row["divexplorer_s"] / row["ours_s"]
            rows.append(row)
    return rows


def null_simulation(reps: int, rows: int = 2000, seed: int = 14) -> dict[str, Any]:
    """Searches under the null: the share with any discovery per adjustment, unadjusted too."""
    rng = np.random.default_rng(seed)
    hits = {"bh": 0, "by": 0, "holm": 0, "unadjusted": 0}
    tested = []
    t0 = time.perf_counter()
    for _ in range(reps):
        df = pl.DataFrame({
            "a": rng.choice(list("pqrs"), rows), "b": rng.choice(list("uvw"), rows),
            "c": rng.choice(list("xy"), rows), "d": rng.choice(list("klm"), rows),
            "y_true": rng.integers(0, 2, rows), "y_pred": rng.integers(0, 2, rows)})
        counts = df.fair.counts(["a", "b", "c", "d"])
        out = counts.divergence(min_support=0.01, adjust="bh").collect()
        p = out["p_value"].drop_nulls()
        tested.append(p.len())
        hits["unadjusted"] += bool((p <= 0.05).any())
        hits["bh"] += bool(out["significant"].any())
        for method in ("by", "holm"):
            other = counts.divergence(min_support=0.01, adjust=method).collect()
            hits[method] += bool(other["significant"].any())
    return {"repetitions": reps, "rows": rows, "patterns_tested_mean": float(np.mean(tested)),
            "share_with_any_discovery": {k: v / reps for k, v in hits.items()},
            "seconds": time.perf_counter() - t0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat")
    parser.add_argument("--null", type=int, default=0, metavar="N",
                        help="run the null simulation with N searches instead")
    parser.add_argument("--json", type=Path, help="write the results as JSON here")
    args = parser.parse_args(argv)
    if args.null:
        result: dict[str, Any] = {"null": null_simulation(args.null)}
        shares = result["null"]["share_with_any_discovery"]
        print(f"null simulation, {args.null} searches of {result['null']['rows']} rows, "
              f"{result['null']['patterns_tested_mean']:.0f} patterns tested on average:")
        for k, v in shares.items():
            print(f"  {k:11s} share of searches with any discovery: {v:.3f}")
    else:
        sizes = [1_000, 10_000] if args.smoke else [100_000, 1_000_000]
        result = {"speed": speed(sizes, 1 if args.smoke else 5)}
        print("| rows | patterns | ours (s) | one group-by (s) | ours / group-by | "
              "DivExplorer (s) | DivExplorer / ours |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for r in result["speed"]:
            dx = f"{r['divexplorer_s']:.3f}" if "divexplorer_s" in r else r["divexplorer"]
            sp = f"{r['speedup']:.0f}x" if "speedup" in r else "-"
            print(f"| {r['rows']:,} | {r['patterns']} | {r['ours_s']:.4f} | {r['floor_s']:.4f} | "
                  f"{r['vs_floor']:.2f} | {dx} | {sp} |")
    result["machine"] = {"cores": os.cpu_count(), "python": sys.version.split()[0],
                         "polars": pl.__version__, "numpy": np.__version__}
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
