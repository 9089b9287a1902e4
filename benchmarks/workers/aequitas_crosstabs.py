"""Time Aequitas' ``Group().get_crosstabs`` on the audit frame; runs in Aequitas' own venv.

Reads the Parquet written by the suite (columns a, b, y_true, y_pred), builds the frame Aequitas
expects (``score`` = the binary prediction, ``label_value`` = the label, one attribute column
``ab`` = "a|b" so that the groups are the same intersections as ``report(by=[a, b])``) before
timing, then times ``get_crosstabs`` alone. Prints one JSON line:
``{"times": [...], "version": ..., "groups": ...}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import time
import warnings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parquet", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    args = ap.parse_args()

    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    import aequitas
    import pandas as pd
    from aequitas.group import Group

    raw = pd.read_parquet(args.parquet, columns=["a", "b", "y_true", "y_pred"])
    df = pd.DataFrame(
        {
            "ab": (raw["a"].astype(str) + "|" + raw["b"].astype(str)),
            "score": raw["y_pred"].astype("int64"),
            "label_value": raw["y_true"].astype("int64"),
        }
    )
    del raw
    group = Group()
    times = []
    xtab = None
    with contextlib.redirect_stdout(sys.stderr):
        for i in range(args.warmup + args.repeats):
            t0 = time.perf_counter()
            xtab, _ = group.get_crosstabs(df, attr_cols=["ab"])
            dt = time.perf_counter() - t0
            if i >= args.warmup:
                times.append(dt)
    print(json.dumps({
        "times": times,
        "version": getattr(aequitas, "__version__", None),
        "pandas": pd.__version__,
        "groups": None if xtab is None else len(xtab),
    }))


if __name__ == "__main__":
    main()
