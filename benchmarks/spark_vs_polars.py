"""Spark local mode against Polars: the same audit of the same Parquet file, timed side by side.

Standalone: ``python benchmarks/spark_vs_polars.py [--rows 10000000] [--master local[2]]``.

The data (``--rows`` rows: two attributes with 5 × 2 groups, binary label and prediction, a
score and a weight; generated with numpy, seed 0) is written once to a Parquet file under
``--data-dir`` (default ``/work/bench-data``, never the repository) and reused by later runs.
Then, alternating, each ``--repeats`` times after one warm-up:

* **polars**: ``pl.scan_parquet(path).fair.report(["race", "sex"]).collect()``;
* **spark**: ``polars_fair.spark.report(spark.read.parquet(path), ["race", "sex"])``: the count
  stage in Spark, the count table back through Arrow, the report in Polars;
* **spark floor**: a hand-written Spark ``groupBy`` of the same four sums (no validation, no
  report) brought back with ``toArrow()``: what any Spark count stage costs at least.

Spark's start-up (JVM, session) is reported apart and is not in the per-query times. The
medians are printed with a markdown row. On one machine Spark local mode is expected to be
slower than Polars (JVM, row-to-column conversions, a shuffle stage); the point of the Spark
path is that the rows can stay in a cluster, not speed on a laptop. The figures are what was
measured, not a target.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

import polars_fair

BY = ["race", "sex"]
RACES = np.array(["White", "Black", "Hispanic", "Asian", "Other"])
SEXES = np.array(["Female", "Male"])


def write_data(path: Path, n: int, chunk: int = 2_000_000) -> None:
    """``n`` rows in row groups of at most ``chunk``, written with pyarrow (seeded)."""
    rng = np.random.default_rng(0)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    writer: pq.ParquetWriter | None = None
    try:
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            race = rng.choice(len(RACES), size=m, p=[0.6, 0.15, 0.15, 0.07, 0.03])
            sex = rng.integers(0, 2, size=m)
            q = rng.standard_normal(m) - 0.3 * (race == 1)
            score = 1.0 / (1.0 + np.exp(-1.5 * q))
            table = pa.table({
                "race": pa.array(RACES[race]),
                "sex": pa.array(SEXES[sex]),
                "y_true": pa.array((q + rng.normal(0, 0.7, m) > 0).astype(np.int8)),
                "y_pred": pa.array((score >= 0.5).astype(np.int8)),
                "y_score": pa.array(np.round(score, 3)),
                "weight": pa.array(rng.uniform(0.5, 2.0, m)),
            })
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            writer.write_table(table, row_group_size=1_000_000)
    finally:
        if writer is not None:
            writer.close()
    tmp.rename(path)


def ensure_data(data_dir: Path, n: int) -> Path:
    path = data_dir / f"spark_vs_polars_{n}.parquet"
    if not path.exists() or pq.ParquetFile(path).metadata.num_rows != n:
        t = time.perf_counter()
        write_data(path, n)
        print(f"wrote {n:,} rows to {path} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return path


def start_spark(master: str) -> tuple[Any, float]:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    t = time.perf_counter()
    spark = (
        SparkSession.builder.master(master)
        .appName("polars_fair-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark, time.perf_counter() - t


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--data-dir", type=Path,
                        default=Path(os.environ.get("POLARS_FAIR_BENCH_DATA", "/work/bench-data")))
    parser.add_argument("--smoke", action="store_true",
                        help="10,000 rows in a temporary directory, one repeat: checks it runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rows, args.repeats, args.data_dir = 10_000, 1, Path(tempfile.mkdtemp())

    try:
        from pyspark.sql import functions as F

        import polars_fair.spark as pfs
    except ImportError:
        print("pyspark is not installed (pip install -e '.[spark]'); skipped", file=sys.stderr)
        return 0

    path = ensure_data(args.data_dir, args.rows)
    spark, startup = start_spark(args.master)
    try:
        def polars_report() -> pl.DataFrame:
            return polars_fair.fair(pl.scan_parquet(path)).report(BY).collect()

        def spark_report() -> pl.DataFrame:
            return pfs.report(spark.read.parquet(str(path)), BY)

        def spark_floor() -> pl.DataFrame:
            y, p = F.col("y_true") == 1, F.col("y_pred") == 1
            agg = spark.read.parquet(str(path)).groupBy(*BY).agg(
                F.count(F.lit(1)).alias("n"),
                F.sum(F.when(y, 1).otherwise(0)).alias("sy"),
                F.sum(F.when(p, 1).otherwise(0)).alias("sp"),
                F.sum(F.when(y & p, 1).otherwise(0)).alias("syp"),
            )
            out = pl.from_arrow(agg.toArrow())
            assert isinstance(out, pl.DataFrame)
            return out

        cases = {"polars": polars_report, "spark": spark_report, "spark floor": spark_floor}
        for fn in cases.values():  # warm-up: JIT, page cache, Spark's code generation
            fn()
        times: dict[str, list[float]] = {k: [] for k in cases}
        results: dict[str, Any] = {}
        for _ in range(args.repeats):
            for name, fn in cases.items():
                seconds, results[name] = timed(fn)
                times[name].append(seconds)
        from polars.testing import assert_frame_equal

        assert_frame_equal(results["spark"], results["polars"])  # same figures, or no timing
    finally:
        spark.stop()

    med = {k: statistics.median(v) for k, v in times.items()}
    cores = os.cpu_count()
    print(f"{args.rows:,} rows, {path.stat().st_size / 1e6:.0f} MB Parquet; {cores} cores; "
          f"Spark {args.master}; Polars {pl.__version__}; Python {platform.python_version()}; "
          f"median of {args.repeats} after 1 warm-up; Spark start-up {startup:.1f} s (not in "
          "the times)")
    for k, v in times.items():
        print(f"  {k:12s} median {med[k]:.3f} s  (all: {', '.join(f'{x:.3f}' for x in v)})")
    print()
    print("| rows | Polars report (s) | Spark report (s) | Spark / Polars "
          "| Spark floor group-by (s) | Spark start-up (s) | cores |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| {args.rows:,} | {med['polars']:.3f} | {med['spark']:.3f} | "
          f"{med['spark'] / med['polars']:.1f}× | {med['spark floor']:.3f} | {startup:.1f} | "
          f"{cores} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
