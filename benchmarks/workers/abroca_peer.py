"""Time the PyPI ``abroca`` package's ``compute_abroca``; runs in its own venv (pandas < 2).

Reads the suite's Parquet (columns group, y_true, y_score) into pandas before timing. Times
``--repeats`` calls on the real groups, then ``--shuffles`` calls on randomly permuted group
labels (what a permutation test built on this package would evaluate, once per permutation).
Prints one JSON line: ``{"times": [...], "shuffle_times": [...], "abroca": ..., ...}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
import warnings


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parquet", required=True)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--shuffles", type=int, default=0)
    args = ap.parse_args()

    warnings.simplefilter("ignore")
    import numpy as np
    import pandas as pd
    from abroca import compute_abroca

    df = pd.read_parquet(args.parquet, columns=["group", "y_true", "y_score"])
    df["y_true"] = df["y_true"].astype("int64")
    majority = df["group"].value_counts().index[0]

    def once(frame: pd.DataFrame) -> float:
        out = compute_abroca(
            frame, pred_col="y_score", label_col="y_true", protected_attr_col="group",
            compare_type="binary", majority_protected_attr_val=majority, n_grid=10000,
            plot_slices=False,
        )
        return float(next(iter(out.values())))

    times, shuffle_times = [], []
    value = None
    with contextlib.redirect_stdout(sys.stderr):
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            value = once(df)
            times.append(time.perf_counter() - t0)
        rng = np.random.default_rng(0)
        shuffled = df.copy()
        for _ in range(args.shuffles):
            shuffled["group"] = rng.permutation(df["group"].to_numpy())
            t0 = time.perf_counter()
            once(shuffled)
            shuffle_times.append(time.perf_counter() - t0)
    print(json.dumps({
        "times": times,
        "shuffle_times": shuffle_times,
        "abroca": value,
        "majority": str(majority),
        "pandas": pd.__version__,
        "numpy": np.__version__,
    }))


if __name__ == "__main__":
    main()
