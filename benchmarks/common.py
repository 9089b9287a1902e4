"""Shared pieces of the benchmark suite: result rows, side-by-side timing, data, subprocesses."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parent
WORKERS = ROOT / "workers"

Status = Literal["ok", "skipped", "not run", "not available yet", "error"]
RatioKind = Literal["slowdown", "speedup"]

#: Where the big generated files go (never inside the repository).
DATA_DIR = Path(os.environ.get("POLARS_FAIR_BENCH_DATA", "/work/bench-data"))
#: The peers' own virtual environments (their pins clash with ours); see setup_peers.sh.
ENVS_DIR = Path(os.environ.get("POLARS_FAIR_BENCH_ENVS", "/work/bench-envs"))


@dataclass
class Config:
    """Sizes and repeat counts of one run; ``smoke`` shrinks everything to check it runs."""

    smoke: bool = False
    repeats: int = 5
    slow_repeats: int = 3
    data_dir: Path = DATA_DIR
    keep_data: bool = False
    tmp: Path = field(default_factory=lambda: Path(tempfile.gettempdir()))

    @classmethod
    def make(cls, smoke: bool, data_dir: Path | None, keep_data: bool, tmp: Path) -> Config:
        if smoke:
            return cls(smoke=True, repeats=1, slow_repeats=1, data_dir=tmp, keep_data=False,
                       tmp=tmp)
        return cls(smoke=False, data_dir=data_dir or DATA_DIR, keep_data=keep_data, tmp=tmp)

    @property
    def warmup(self) -> int:
        return 0 if self.smoke else 1


@dataclass
class Row:
    """One line of the results table: our timing against one baseline, or why it did not run.

    ``ratio`` is ``ours / baseline`` for a ``"slowdown"`` (how many times the baseline's time we
    take; lower is better) and ``baseline / ours`` for a ``"speedup"`` (how many times faster we
    are; higher is better). A ``paired`` row was timed round by round against its baseline
    (:func:`measure`, the same repeats): its ratio is the median of the rounds' ratios, which a
    shared machine's load disturbs less than a ratio of medians (both sides of a round see the
    same load); other rows take the ratio of the medians.
    """

    id: str
    benchmark: str
    case: str
    n: int | None
    ours: str
    ours_s: float | None = None
    ours_repeats: int = 0
    baseline: str | None = None
    baseline_s: float | None = None
    baseline_repeats: int = 0
    ratio_kind: RatioKind | None = None
    status: Status = "ok"
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    paired: bool = False

    @property
    def ratio(self) -> float | None:
        if self.ours_s is None or self.baseline_s is None or self.ratio_kind is None:
            return None
        ours, base = self.extra.get("ours_times"), self.extra.get("baseline_times")
        if self.paired and ours and base and len(ours) == len(base):
            rounds = [(a / b if self.ratio_kind == "slowdown" else b / a)
                      for a, b in zip(ours, base, strict=True) if a > 0 and b > 0]
            if rounds:
                return median(rounds)
        if self.ratio_kind == "slowdown":
            return self.ours_s / self.baseline_s if self.baseline_s > 0 else None
        return self.baseline_s / self.ours_s if self.ours_s > 0 else None

    @property
    def ratio_of_minima(self) -> float | None:
        """The ratio of the fastest runs: on a shared machine, the least disturbed comparison."""
        ours, base = self.extra.get("ours_times"), self.extra.get("baseline_times")
        if not ours or not base or self.ratio_kind is None:
            return None
        a, b = min(ours), min(base)
        if self.ratio_kind == "slowdown":
            return a / b if b > 0 else None
        return b / a if a > 0 else None

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["ratio"] = self.ratio
        out["ratio_of_minima"] = self.ratio_of_minima
        # minima too: on a shared machine they show the undisturbed cost next to the medians
        for side in ("ours", "baseline"):
            times = self.extra.get(f"{side}_times")
            out[f"{side}_min_s"] = min(times) if times else None
        return out


def median(xs: list[float]) -> float:
    return float(statistics.median(xs))


def measure(
    contenders: dict[str, Callable[[], Any]],
    repeats: int | dict[str, int],
    warmup: int = 1,
) -> dict[str, list[float]]:
    """Time each contender ``repeats`` times, interleaved (round robin), after ``warmup`` runs.

    Interleaving puts every contender under the same machine conditions. ``repeats`` may differ
    per contender (slow peers run fewer times): a contender drops out of the rounds once it has
    its count. Returns every timing in seconds (take the median).
    """
    reps = repeats if isinstance(repeats, dict) else {k: repeats for k in contenders}
    for _ in range(warmup):
        for name, fn in contenders.items():
            if reps[name] > 0:
                fn()
    times: dict[str, list[float]] = {k: [] for k in contenders}
    for r in range(max(reps.values())):
        for name, fn in contenders.items():
            if r < reps[name]:
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    return times


def record_cpu(row: Row, contenders: dict[str, Callable[[], Any]], repeats: int) -> None:
    """A second interleaved pass of ``ours`` and ``floor`` in CPU time, recorded on ``row``.

    The process CPU time (``time.process_time``, every thread) is less disturbed than wall time
    when other work shares the machine: ``ours_cpu_s``, ``baseline_cpu_s`` (medians) and
    ``cpu_ratio``, the median of the rounds' ratios.
    """
    cpu: dict[str, list[float]] = {k: [] for k in contenders}
    for _ in range(repeats):
        for name, fn in contenders.items():
            t0 = time.process_time()
            fn()
            cpu[name].append(time.process_time() - t0)
    row.extra.update(ours_cpu_s=median(cpu["ours"]), baseline_cpu_s=median(cpu["floor"]),
                     cpu_ratio=median([a / max(b, 1e-9) for a, b in
                                       zip(cpu["ours"], cpu["floor"], strict=True)]))


def guarded(row: Row, fn: Callable[[Row], None]) -> Row:
    """Fill ``row`` with ``fn``; an exception becomes status ``"error"`` with its message."""
    try:
        fn(row)
    except Exception as exc:  # noqa: BLE001 - every failure is recorded, not raised
        row.status = "error"
        row.reason = f"{type(exc).__name__}: {exc}"
        row.extra["traceback"] = traceback.format_exc(limit=6)
    return row


# ----------------------------------------------------------------------------------- data
RACES = ["African-American", "Asian", "Caucasian", "Hispanic", "Native American", "Other"]
RACE_P = [0.40, 0.05, 0.35, 0.12, 0.02, 0.06]
SEXES = ["Female", "Male"]
SEX_P = [0.45, 0.55]
AGES = ["18-25", "26-45", "46+"]
AGE_P = [0.25, 0.5, 0.25]


def _strings(levels: list[str], codes: np.ndarray) -> pl.Series:
    return pl.Series(levels, dtype=pl.String).gather(pl.Series(codes, dtype=pl.UInt32))


def audit_frame(n: int, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray]:
    """Synthetic audit data: String attributes ``a`` (6 levels), ``b`` (2), ``c`` (3), Int8 labels.

    Returns the frame and the combined group code of (a, b) as int64 (precomputed for the numpy
    baseline). Base rates and error rates differ by group so the report has something to find.
    """
    rng = np.random.default_rng(seed)
    a = rng.choice(len(RACES), size=n, p=RACE_P)
    b = rng.choice(len(SEXES), size=n, p=SEX_P)
    c = rng.choice(len(AGES), size=n, p=AGE_P)
    code = a.astype(np.int64) * len(SEXES) + b
    base = np.linspace(0.25, 0.55, len(RACES) * len(SEXES))[code]
    y = rng.random(n) < base
    tpr = 0.75 - 0.05 * b
    fpr = 0.15 + 0.02 * a
    u = rng.random(n)
    p = np.where(y, u < tpr, u < fpr)
    df = pl.DataFrame(
        {
            "a": _strings(RACES, a),
            "b": _strings(SEXES, b),
            "c": _strings(AGES, c),
            "y_true": pl.Series(y.astype(np.int8)),
            "y_pred": pl.Series(p.astype(np.int8)),
        }
    )
    return df, code


def many_groups_frame(n: int, levels: int = 100, seed: int = 1) -> pl.DataFrame:
    """``levels``² groups: String attributes ``g1`` and ``g2`` with ``levels`` values each."""
    rng = np.random.default_rng(seed)
    names = [f"v{i:03d}" for i in range(levels)]
    g1 = rng.integers(0, levels, size=n)
    g2 = rng.integers(0, levels, size=n)
    y = rng.random(n) < 0.4
    p = np.where(y, rng.random(n) < 0.7, rng.random(n) < 0.2)
    return pl.DataFrame(
        {
            "g1": _strings(names, g1),
            "g2": _strings(names, g2),
            "y_true": pl.Series(y.astype(np.int8)),
            "y_pred": pl.Series(p.astype(np.int8)),
        }
    )


def score_frame(n: int, seed: int = 2) -> pl.DataFrame:
    """Two groups (``group``: 60% "M", 40% "F") with continuous scores (all distinct).

    Binormal scores: ``y_score = sigmoid(d_g * y + N(0, 1))`` with separations giving AUCs of
    about 0.76 (M) and 0.69 (F), so ABROCA is clearly non-zero.
    """
    rng = np.random.default_rng(seed)
    g = rng.random(n) < 0.4
    y = rng.random(n) < 0.3
    d = np.where(g, 0.7, 1.0)
    s = 1.0 / (1.0 + np.exp(-(d * y + rng.normal(size=n))))
    return pl.DataFrame(
        {
            "group": _strings(["M", "F"], g.astype(np.int64)),
            "y_true": pl.Series(y.astype(np.int8)),
            "y_score": pl.Series(s),
        }
    )


# ----------------------------------------------------------------------------- subprocesses
@dataclass
class WorkerResult:
    """A worker's JSON output, its wall time and its peak resident set size (KiB)."""

    ok: bool
    data: dict[str, Any]
    wall_s: float
    maxrss_kib: int
    error: str | None = None


def run_worker(
    python: str | Path, script: Path, args: list[str], *, timeout: float = 1800.0,
    env: dict[str, str] | None = None,
) -> WorkerResult:
    """Run ``python script args`` as a fresh process; read its JSON, wall time and peak RSS.

    ``maxrss_kib`` is the child's ``ru_maxrss`` from ``os.wait4`` (Linux: KiB). Beware: Linux
    carries the parent's RSS high-water mark into the child across fork + exec, so for a child of
    a big process this is at least the parent's size; workers that need their own peak report
    ``VmHWM`` from ``/proc/self/status`` instead.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [str(python), str(script), *args], stdout=out, stderr=err, stdin=subprocess.DEVNULL,
            env=env,
        )
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                return WorkerResult(False, {}, timeout, usage.ru_maxrss,
                                    f"timed out after {timeout:.0f} s")
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    if proc.returncode != 0:
        tail = " | ".join(stderr.strip().splitlines()[-3:])
        return WorkerResult(False, {}, wall, usage.ru_maxrss,
                            f"exit code {proc.returncode}: {tail}")
    try:
        data = json.loads(stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return WorkerResult(False, {}, wall, usage.ru_maxrss,
                            f"no JSON on stdout: {stdout[-300:]!r}")
    return WorkerResult(True, data, wall, usage.ru_maxrss)


def peer_python(name: str) -> tuple[Path | None, str | None]:
    """The interpreter of a peer's virtual environment, or why there is none."""
    override = os.environ.get(f"POLARS_FAIR_BENCH_{name.upper()}_PYTHON")
    python = Path(override) if override else ENVS_DIR / name / "bin" / "python"
    if not python.exists():
        return None, (
            f"no {name} environment at {python} (create it with benchmarks/setup_peers.sh, or "
            "point "
            f"POLARS_FAIR_BENCH_{name.upper()}_PYTHON at one)"
        )
    return python, None


# ------------------------------------------------------------------------------- machine
def machine_info() -> dict[str, Any]:
    """CPU model, cores, RAM and the versions that matter, for the JSON and the markdown."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gib = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram_gib = round(int(line.split()[1]) / 2**20, 1)
                break
    except OSError:
        pass
    import polars_fair

    versions: dict[str, str | None] = {
        "python": platform.python_version(),
        "polars": pl.__version__,
        "numpy": np.__version__,
        "polars_fair": polars_fair.__version__,
    }
    for mod in ("pyarrow", "scipy", "sklearn", "fairlearn", "pandas"):
        try:
            versions[mod] = __import__(mod).__version__
        except ImportError:
            versions[mod] = None
    try:
        from threadpoolctl import threadpool_info

        blas = [f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')})"
                for i in threadpool_info() if i.get("user_api") == "blas"]
    except ImportError:
        blas = []
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "polars_threads": pl.thread_pool_size(),
        "ram_gib": ram_gib,
        "os": platform.platform(),
        "versions": versions,
        "blas": blas,
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
    }


def python_env() -> dict[str, str]:
    """The environment for our own worker subprocesses (so they import this checkout)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT.parent), env.get("PYTHONPATH")]))
    return env


def fmt_n(n: int | None) -> str:
    if n is None:
        return ""
    if n >= 10_000 and str(n).rstrip("0") == "1":
        return f"1e{len(str(n)) - 1}"
    return f"{n:,}"


def self_python() -> str:
    return sys.executable
