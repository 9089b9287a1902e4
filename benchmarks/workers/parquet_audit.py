"""One lazy audit of a Parquet file with the streaming engine, in a fresh process.

``--mode report``: ``pl.scan_parquet(path).fair.report(by=["a", "b"]).collect(engine="streaming")``;
``--mode floor``: the hand-written group-by of ``n, Σy, Σŷ, Σy·ŷ`` on the same scan. Prints one
JSON line with the query's wall time (imports excluded), the rows out and this process's peak RSS:
``VmHWM`` of ``/proc/self/status`` (KiB). Not ``ru_maxrss``: Linux carries the parent's RSS
high-water mark into a child across fork + exec, so a child of a big benchmark process would
report the parent's size.
"""

from __future__ import annotations

import argparse
import json
import resource
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parquet", required=True)
    ap.add_argument("--mode", choices=["report", "floor"], required=True)
    args = ap.parse_args()

    import polars as pl

    import polars_fair  # noqa: F401  (registers .fair)

    t0 = time.perf_counter()
    lf = pl.scan_parquet(args.parquet)
    if args.mode == "report":
        plan = lf.fair.report(by=["a", "b"])
    else:
        y, p = pl.col("y_true"), pl.col("y_pred")
        plan = lf.group_by(["a", "b"]).agg(n=pl.len(), sy=y.sum(), sp=p.sum(), syp=(y * p).sum())
    out = plan.collect(engine="streaming")
    dt = time.perf_counter() - t0
    print(json.dumps({
        "seconds": dt,
        "rows_out": out.height,
        "n_total": int(out["n"].sum()),
        "vmhwm_kib": vmhwm_kib(),
        "maxrss_kib_self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }))


def vmhwm_kib() -> int | None:
    """This process's peak resident set size (KiB) from /proc, or None off Linux."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


if __name__ == "__main__":
    main()
