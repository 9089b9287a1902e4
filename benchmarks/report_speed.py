"""Report speed: ``df.fair.report(by=[a, b])`` against the floor, numpy, Fairlearn and Aequitas.

Every contender gets the same synthetic frame (String attributes, Int8 labels; see
:func:`benchmarks.common.audit_frame`):

* ours: ``df.lazy().fair.report(by=["a", "b"]).collect()``, so the time includes building the
  plan (schema checks) from the in-memory DataFrame and the validation aggregates;
* floor: the hand-written Polars ``group_by(a, b)`` of ``n, Σy, Σŷ, Σy·ŷ``: the least work any
  Polars implementation must do;
* numpy: ``np.bincount`` of the four sums over one combined group code, the codes precomputed
  (not timed), single-threaded;
* Fairlearn: ``MetricFrame`` with selection_rate, TPR, FPR, PPV, accuracy and count, on a pandas
  copy made beforehand (not timed), up to 1e6 rows;
* Aequitas: ``Group().get_crosstabs`` in its own virtual environment, as a subprocess that reads
  the same rows from Parquet; only the ``get_crosstabs`` call is timed. Aequitas groups by one
  column at a time, so it gets one combined column ``a|b`` (built before timing): the same
  intersectional groups.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import polars as pl

import polars_fair  # noqa: F401  (registers .fair)
from benchmarks.common import (
    WORKERS,
    Config,
    Row,
    audit_frame,
    fmt_n,
    guarded,
    measure,
    median,
    peer_python,
    run_worker,
)

BY = ["a", "b"]
FULL_SIZES = [1_000, 10_000, 100_000, 1_000_000, 10_000_000]  # the scaling table (1e8: parquet)
SMOKE_SIZES = [2_000]
PEER_MAX_N = 1_000_000  # Fairlearn and Aequitas run up to this size
#: Below this many rows a call takes milliseconds: more repeats steady the median.
SMALL_N, SMALL_REPEATS = 10_000, 41


def ours(df: pl.DataFrame) -> pl.DataFrame:
    return df.lazy().fair.report(by=BY).collect()


def floor(df: pl.DataFrame, by: list[str] = BY) -> pl.DataFrame:
    """The hand-written floor: one Polars group-by of the four additive sums."""
    y, p = pl.col("y_true"), pl.col("y_pred")
    return (
        df.lazy()
        .group_by(by)
        .agg(n=pl.len(), sy=y.sum(), sp=p.sum(), syp=(y * p).sum())
        .collect()
    )


def numpy_bincount(code: np.ndarray, y: np.ndarray, p: np.ndarray, groups: int) -> tuple[Any, ...]:
    return (
        np.bincount(code, minlength=groups),
        np.bincount(code, weights=y, minlength=groups),
        np.bincount(code, weights=p, minlength=groups),
        np.bincount(code, weights=y & p, minlength=groups),
    )


def fairlearn_call() -> Any:
    """A function running Fairlearn's MetricFrame on a pandas frame with the same metrics."""
    from fairlearn.metrics import (
        MetricFrame,
        count,
        false_positive_rate,
        selection_rate,
        true_positive_rate,
    )
    from sklearn.metrics import accuracy_score, precision_score

    metrics = {
        "count": count,
        "selection_rate": selection_rate,
        "tpr": true_positive_rate,
        "fpr": false_positive_rate,
        "ppv": functools.partial(precision_score, zero_division=np.nan),
        "accuracy": accuracy_score,
    }

    def run(pdf: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mf = MetricFrame(
                metrics=metrics, y_true=pdf["y_true"], y_pred=pdf["y_pred"],
                sensitive_features=pdf[BY],
            )
            return mf.by_group

    return run


def run(cfg: Config) -> list[Row]:
    rows: list[Row] = []
    sizes = SMOKE_SIZES if cfg.smoke else FULL_SIZES
    for n in sizes:
        rows += _one_size(cfg, n)
    return rows


def _one_size(cfg: Config, n: int) -> list[Row]:
    tag = fmt_n(n)
    df, code = audit_frame(n)
    y = df["y_true"].to_numpy().astype(np.int64)
    p = df["y_pred"].to_numpy().astype(np.int64)
    groups = int(code.max()) + 1
    peers = n <= PEER_MAX_N or cfg.smoke
    slow = cfg.repeats if n <= 100_000 else cfg.slow_repeats

    contenders = {
        "ours": lambda: ours(df),
        "floor": lambda: floor(df),
        "numpy": lambda: numpy_bincount(code, y, p, groups),
    }
    many = cfg.repeats if cfg.smoke or n > SMALL_N else SMALL_REPEATS
    reps: dict[str, int] = {"ours": many, "floor": many, "numpy": many}
    fl_row = Row(
        f"report/{tag}/fairlearn", "report", f"report by 2 attributes, N={tag}", n,
        "df.lazy().fair.report(by=[a, b]).collect()",
        baseline="Fairlearn MetricFrame (6 metrics; pandas copy not timed)", ratio_kind="speedup",
    )
    if peers:
        try:
            pdf = df.to_pandas()
            contenders["fairlearn"] = functools.partial(fairlearn_call(), pdf)
            reps["fairlearn"] = slow
        except ImportError as exc:
            fl_row.status, fl_row.reason = "not run", f"fairlearn not installed: {exc}"

    base = f"report by 2 attributes, N={tag}"
    ours_desc = "df.lazy().fair.report(by=[a, b]).collect()"
    out = [
        Row(f"report/{tag}/floor", "report", base, n, ours_desc,
            baseline="floor: Polars group_by of n, Σy, Σŷ, Σy·ŷ", ratio_kind="slowdown",
            paired=True),
        Row(f"report/{tag}/numpy", "report", base, n, ours_desc,
            baseline="numpy bincount ×4 over a precomputed group code", ratio_kind="slowdown",
            paired=True),
    ]

    def timed(_: Row) -> None:
        times = measure(contenders, reps, warmup=cfg.warmup)
        t_ours = median(times["ours"])
        for row, key in ((out[0], "floor"), (out[1], "numpy"), (fl_row, "fairlearn")):
            if key in times:
                row.ours_s, row.ours_repeats = t_ours, len(times["ours"])
                row.baseline_s, row.baseline_repeats = median(times[key]), len(times[key])
                row.extra["baseline_times"] = times[key]
                row.extra["ours_times"] = times["ours"]
        # the fixed cost of a call: our time beyond the floor group-by of the same rows
        out[0].extra["fixed_cost_s"] = t_ours - median(times["floor"])

    guarded(out[0], timed)
    if out[0].status == "error":
        for row in (out[1], fl_row):
            row.status, row.reason = out[0].status, out[0].reason
    if peers:
        out.append(fl_row)
        out.append(_aequitas(cfg, df, n, tag, out[0], slow))
    return out


def _aequitas(cfg: Config, df: pl.DataFrame, n: int, tag: str, ours_row: Row, repeats: int) -> Row:
    row = Row(
        f"report/{tag}/aequitas", "report", f"report by 2 attributes, N={tag}", n,
        ours_row.ours, baseline="Aequitas Group().get_crosstabs (own venv; read not timed)",
        ratio_kind="speedup", ours_s=ours_row.ours_s, ours_repeats=ours_row.ours_repeats,
    )
    if "ours_times" in ours_row.extra:
        row.extra["ours_times"] = ours_row.extra["ours_times"]
    python, why = peer_python("aequitas")
    if python is None:
        row.status, row.reason = "not run", why
        return row
    path = cfg.tmp / f"aequitas-{n}.parquet"
    df.write_parquet(path)
    try:
        res = run_worker(
            python, WORKERS / "aequitas_crosstabs.py",
            ["--parquet", str(path), "--repeats", str(repeats), "--warmup", str(cfg.warmup)],
        )
    finally:
        path.unlink(missing_ok=True)
    if not res.ok:
        row.status, row.reason = "not run", f"aequitas worker failed: {res.error}"
        return row
    row.baseline_s = median(res.data["times"])
    row.baseline_repeats = len(res.data["times"])
    row.extra.update(
        baseline_times=res.data["times"], aequitas_version=res.data.get("version"),
        groups=res.data.get("groups"), worker_wall_s=res.wall_s,
    )
    if ours_row.status != "ok":
        row.status, row.reason = ours_row.status, ours_row.reason
    return row
