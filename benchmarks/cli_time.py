"""The command line end to end: ``--help``, a usage error and ``report`` on COMPAS, fresh processes.

Each measurement is a new ``polars-fair`` process (the console script of this environment,
``python -m polars_fair.cli`` when it is absent), timed from outside with ``perf_counter``
around ``subprocess.run``: interpreter start-up, imports, parsing, the work and the output, as a
person at a terminal waits for them. Bytecode is cached as for an installed package (a warm-up
process writes it under a temporary ``PYTHONPYCACHEPREFIX``, outside the repository), and so is
the usage table of :mod:`polars_fair.cli.usage` (the warm-up's full run writes it to a temporary
``POLARS_FAIR_CACHE_DIR``), as after a user's first command.

The baseline is ``python -c "import polars"``, measured the same way in the same run,
alternating with ours, so a loaded machine slows both. Each process's CPU time (user + system,
from ``getrusage(RUSAGE_CHILDREN)``) is recorded beside its wall time (``ours_cpu_s``,
``baseline_cpu_s`` and their ratio ``cpu_ratio``, in the row's notes): a machine shared with
other work lengthens the wall time far more than the CPU time.

* ``cli/help``: ``polars-fair --help`` (target < 0.3 s);
* ``cli/usage_error``: ``polars-fair report data.csv`` without ``--by`` (exit 2; target < 0.3 s);
* ``cli/choice_error``: ``polars-fair report data.csv --by g --format cvs``, a choice outside the
  list (exit 2, with "did you mean --format csv"; target < 0.3 s, as every usage error);
* ``cli/report_compas``: ``polars-fair report`` on COMPAS (7,214 rows, ``--by race --by sex``;
  target < 0.6 s), skipped when the data is not found (``../shared/data/compas``).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import ROOT, Config, Row, guarded, median

COMPAS = ROOT.parent.parent / "shared" / "data" / "compas" / "compas-scores-two-years.csv"


def _command() -> list[str]:
    script = Path(sys.executable).with_name("polars-fair")
    exe = shutil.which(str(script)) if script.exists() else None
    return [exe] if exe else [sys.executable, "-m", "polars_fair.cli"]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(argv: list[str], env: dict[str, str], codes: tuple[int, ...]) -> tuple[float, float]:
    """The wall time and the CPU time (user + system) of one process."""
    c0, t0 = _cpu(), time.perf_counter()
    out = subprocess.run(argv, env=env, cwd=ROOT.parent, capture_output=True, text=True,
                         timeout=300, check=False)
    elapsed, cpu = time.perf_counter() - t0, _cpu() - c0
    if out.returncode not in codes:
        raise RuntimeError(f"{argv[1:3]} exited {out.returncode}: {out.stderr[-500:]}")
    return elapsed, cpu


def _cases(tmp: Path) -> list[tuple[str, str, list[str], tuple[int, ...]]]:
    tiny = tmp / "tiny.csv"
    tiny.write_text("g,y_true,y_pred\na,1,1\nb,0,1\n")
    cases = [
        ("cli/help", "polars-fair --help", ["--help"], (0,)),
        ("cli/usage_error", "polars-fair report data.csv (missing --by: exit 2)",
         ["report", str(tiny)], (2,)),
        ("cli/choice_error", "polars-fair report data.csv --by g --format cvs (exit 2)",
         ["report", str(tiny), "--by", "g", "--format", "cvs"], (2,)),
    ]
    if COMPAS.exists():
        cases.append(("cli/report_compas", "polars-fair report on COMPAS, 7,214 rows, by race and "
                      "sex, table to stdout",
                      ["report", str(COMPAS), "--by", "race", "--by", "sex", "--y-true",
                       "two_year_recid", "--y-pred", "score_text <> 'Low'"], (0,)))
    return cases


def run(cfg: Config) -> list[Row]:
    repeats = 1 if cfg.smoke else 7
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="pf-cli-") as tmp:
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
        # the usage table in a cache of this run (the warm-up's full run writes it): other
        # installations sharing the user's cache cannot change what is measured
        env["POLARS_FAIR_CACHE_DIR"] = str(Path(tmp) / "cache")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT.parent),
                                                          env.get("PYTHONPATH")]))
        baseline = [sys.executable, "-c", "import polars"]
        cases = _cases(Path(tmp))
        if not COMPAS.exists():
            rows.append(Row("cli/report_compas", "cli", "polars-fair report on COMPAS", 7214,
                            "polars-fair report", status="skipped",
                            reason=f"COMPAS not found at {COMPAS}"))
        for row_id, what, args, codes in cases:
            row = Row(row_id, "cli", what, None, "polars-fair " + " ".join(args[:1]),
                      baseline='python -c "import polars" (same run, alternating)',
                      ratio_kind="slowdown")

            def body(r: Row, args: list[str] = args, codes: tuple[int, ...] = codes) -> None:
                argv = [*_command(), *args]
                _timed(argv, env, codes)  # writes the bytecode
                _timed(baseline, env, (0,))
                ours, base, ours_cpu, base_cpu = [], [], [], []
                for _ in range(repeats):
                    for times, cpus, cmd, ok in ((ours, ours_cpu, argv, codes),
                                                 (base, base_cpu, baseline, (0,))):
                        wall, cpu = _timed(cmd, env, ok)
                        times.append(wall)
                        cpus.append(cpu)
                r.ours_s, r.ours_repeats = median(ours), len(ours)
                r.baseline_s, r.baseline_repeats = median(base), len(base)
                r.extra.update(ours_times=ours, baseline_times=base, ours_cpu_times=ours_cpu,
                               baseline_cpu_times=base_cpu, ours_cpu_s=median(ours_cpu),
                               baseline_cpu_s=median(base_cpu),
                               cpu_ratio=median(ours_cpu) / median(base_cpu))

            rows.append(guarded(row, body))
    return rows
