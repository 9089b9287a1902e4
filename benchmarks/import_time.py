"""Import time: ``import polars_fair`` after ``import polars``, in fresh processes.

Each measurement is a new interpreter that imports polars, then polars_fair, timing each import
with ``perf_counter`` inside the process (interpreter start-up excluded). Bytecode is cached as
for an installed package: the first (warm-up) process writes it under a temporary
``PYTHONPYCACHEPREFIX`` (outside the repository), the timed ones read it. The process also
reports which heavy modules the import loaded (none should be: scipy, numpy, tqdm, the plot
stack, Spark and DuckDB are imported by the calls that need them).

The baseline is ``import polars`` itself, measured in the same processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from benchmarks.common import ROOT, Config, Row, guarded, median

HEAVY = ("scipy", "numpy", "tqdm", "matplotlib", "altair", "great_tables", "pyspark", "duckdb",
         "pandas", "pyarrow", "sklearn")

CODE = f"""
import json, sys, time
t0 = time.perf_counter()
import polars
t1 = time.perf_counter()
import polars_fair
t2 = time.perf_counter()
print(json.dumps({{"polars": t1 - t0, "polars_fair": t2 - t1,
                  "heavy": [m for m in {HEAVY!r} if m in sys.modules]}}))
"""


def _once(env: dict[str, str]) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", CODE], env=env, cwd=ROOT.parent,
                         capture_output=True, text=True, check=True, timeout=120)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def run(cfg: Config) -> list[Row]:
    row = Row("import/polars_fair", "import", "import polars_fair after import polars, fresh "
              "process", None, "import polars_fair (bytecode cached)",
              baseline="import polars (same processes)", ratio_kind="slowdown")

    def body(r: Row) -> None:
        repeats = 1 if cfg.smoke else 7
        with tempfile.TemporaryDirectory(prefix="pf-pyc-") as cache:
            env = dict(os.environ)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT.parent),
                                                              env.get("PYTHONPATH")]))
            _once(env)  # writes the bytecode
            runs = [_once(env) for _ in range(repeats)]
        ours = [float(x["polars_fair"]) for x in runs]  # type: ignore[arg-type]
        base = [float(x["polars"]) for x in runs]  # type: ignore[arg-type]
        r.ours_s, r.ours_repeats = median(ours), len(ours)
        r.baseline_s, r.baseline_repeats = median(base), len(base)
        r.extra.update(ours_times=ours, baseline_times=base, heavy_loaded=runs[-1]["heavy"])

    return [guarded(row, body)]
