"""Larger than memory: a lazy, streaming audit of 1e8 rows in Parquet, in a fresh process.

The file is generated in chunks with numpy (:func:`benchmarks.common.audit_frame` with one seed
per chunk) and written with ``pyarrow.parquet.ParquetWriter`` under the data directory (default
``/work/bench-data``, never the repository); it is deleted afterwards unless ``--keep-data``.
Each measurement is a fresh subprocess (``benchmarks/workers/parquet_audit.py``): the report
(``scan_parquet(...).fair.report(by=[a, b]).collect(engine="streaming")``) and the floor
group-by on the same scan, alternated, each with its query time and its own peak RSS.

Held in memory as a DataFrame the 1e8 rows would take several GB (two String columns and two
Int8 columns); the point is that the audit's peak RSS stays far below that. The file itself is
small enough to sit in the page cache of this machine, so the time measures decoding and
aggregation, not the disk.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from benchmarks.common import (
    WORKERS,
    Config,
    Row,
    audit_frame,
    fmt_n,
    guarded,
    median,
    python_env,
    run_worker,
    self_python,
)

FULL_N = 100_000_000
CHUNK = 5_000_000
ROW_GROUP = 1_000_000


def write_parquet(path: Path, n: int, chunk: int = CHUNK) -> float:
    """Write ``n`` audit rows to ``path`` in chunks; returns the seconds it took."""
    import pyarrow.parquet as pq

    t0 = time.perf_counter()
    tmp = path.with_suffix(".partial")
    writer = None
    try:
        done = 0
        seed = 100
        while done < n:
            size = min(chunk, n - done)
            df, _ = audit_frame(size, seed=seed)
            table = df.drop("c").to_arrow()
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema, compression="snappy")
            writer.write_table(table, row_group_size=ROW_GROUP)
            done += size
            seed += 1
    finally:
        if writer is not None:
            writer.close()
    tmp.rename(path)
    return time.perf_counter() - t0


def run(cfg: Config) -> list[Row]:
    n = 200_000 if cfg.smoke else FULL_N
    tag = fmt_n(n)
    rows = [
        Row(f"parquet/{tag}/time", "parquet", f"streaming audit of Parquet on disk, N={tag}", n,
            'scan_parquet(...).fair.report(by=[a, b]).collect(engine="streaming"), fresh process',
            baseline="floor group_by on the same scan, streaming, fresh process",
            ratio_kind="slowdown"),
    ]
    row = rows[0]

    def body(r: Row) -> None:
        data_dir = cfg.data_dir
        data_dir.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(data_dir).free
        if free < 8 * 2**30 and not cfg.smoke:
            r.status = "skipped"
            r.reason = f"only {free / 2**30:.1f} GiB free under {data_dir}; need 8 GiB"
            return
        path = data_dir / f"audit-{n}.parquet"
        if not path.exists():
            r.extra["generate_s"] = write_parquet(path, n, chunk=min(CHUNK, n))
        r.extra["file_mib"] = round(path.stat().st_size / 2**20, 1)
        r.extra["path"] = str(path)
        try:
            times: dict[str, list[float]] = {"report": [], "floor": []}
            rss: dict[str, list[int]] = {"report": [], "floor": []}
            walls: dict[str, list[float]] = {"report": [], "floor": []}
            for _ in range(1 if cfg.smoke else cfg.repeats):
                for mode in ("floor", "report"):
                    res = run_worker(self_python(), WORKERS / "parquet_audit.py",
                                     ["--parquet", str(path), "--mode", mode], env=python_env())
                    if not res.ok:
                        raise RuntimeError(f"{mode} worker failed: {res.error}")
                    if res.data["n_total"] != n:
                        raise RuntimeError(f"{mode} counted {res.data['n_total']} rows, not {n}")
                    times[mode].append(res.data["seconds"])
                    # the worker's own VmHWM: wait4's ru_maxrss would include this parent's size
                    rss[mode].append(res.data.get("vmhwm_kib") or res.maxrss_kib)
                    walls[mode].append(res.wall_s)
        finally:
            if not cfg.keep_data:
                path.unlink(missing_ok=True)
        r.ours_s, r.ours_repeats = median(times["report"]), len(times["report"])
        r.baseline_s, r.baseline_repeats = median(times["floor"]), len(times["floor"])
        r.extra.update(
            ours_times=times["report"], baseline_times=times["floor"],
            ours_process_wall_s=walls["report"], baseline_process_wall_s=walls["floor"],
            ours_peak_rss_gb=round(max(rss["report"]) * 1024 / 1e9, 3),
            baseline_peak_rss_gb=round(max(rss["floor"]) * 1024 / 1e9, 3),
            rss_kib=rss, rss_source="VmHWM of the worker (/proc/self/status)",
            in_memory_estimate_gib=round(
                audit_frame(100_000)[0].drop("c").estimated_size() * n / 100_000 / 2**30, 2
            ),
        )

    guarded(row, body)
    return rows
