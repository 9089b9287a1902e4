"""What ``import polars_fair`` loads: the namespace, not scipy, numpy or a plot stack (issue 13).

Each check runs in a fresh interpreter (a subprocess), because this test process has imported
everything already. Nothing here is timed: the import time is measured in ``benchmarks/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Imported only by the calls that need them (scipy.stats by intervals and tests, numpy by
#: score analyses, tqdm by progress bars, the rest by charts, HTML pages and other engines).
DEFERRED = ("scipy", "numpy", "tqdm", "matplotlib", "altair", "great_tables", "pyspark",
            "duckdb", "pandas", "pyarrow", "sklearn", "typer")


def fresh(code: str) -> dict[str, object]:
    """Run ``code`` in a new interpreter; it prints one JSON object as its last line."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_import_loads_no_heavy_dependency_and_registers_the_namespace() -> None:
    got = fresh(f"""
        import json, sys
        import polars as pl
        import polars_fair
        df = pl.DataFrame({{"g": ["a"], "y_true": [1], "y_pred": [1]}})
        print(json.dumps({{"loaded": [m for m in {DEFERRED!r} if m in sys.modules],
                          "df": type(df.fair).__name__, "lf": type(df.lazy().fair).__name__}}))
    """)
    assert got == {"loaded": [], "df": "FairDataFrame", "lf": "FairLazyFrame"}


def test_a_report_needs_neither_scipy_nor_numpy() -> None:
    # the report is exact arithmetic on the count table: Polars and Python only
    got = fresh("""
        import json, sys
        import polars as pl
        import polars_fair
        df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
                           "y_pred": [1, 0, 0, 0]})
        out = df.fair.report("g", min_support=1)
        print(json.dumps({"scipy": "scipy" in sys.modules, "numpy": "numpy" in sys.modules,
                          "ir": out["impact_ratio"].to_list()}))
    """)
    assert got == {"scipy": False, "numpy": False, "ir": [1.0, 0.0]}


def test_intervals_import_scipy_on_first_use_and_give_the_wilson_bounds() -> None:
    # Wilson (1927) interval of 1 success in 2 trials at 95%, by hand:
    # z = 1.959964, centre = (0.5 + z^2/4) / (1 + z^2/2), half = z*sqrt(1/8 + z^2/16) / (1 + z^2/2)
    z = 1.959963984540054
    centre = (0.5 + z * z / 4) / (1 + z * z / 2)
    half = z * (1 / 8 + z * z / 16) ** 0.5 / (1 + z * z / 2)
    got = fresh("""
        import json, sys
        import polars as pl
        import polars_fair
        before = "scipy" in sys.modules
        df = pl.DataFrame({"g": ["a", "a"], "y_true": [1, 0], "y_pred": [1, 0]})
        m = df.fair.metrics("g").filter(pl.col("metric") == "selection_rate")
        print(json.dumps({"before": before, "after": "scipy" in sys.modules,
                          "low": m["ci_low"].item(), "high": m["ci_high"].item()}))
    """)
    assert got["before"] is False
    assert got["after"] is True
    assert abs(float(got["low"]) - (centre - half)) < 1e-12  # type: ignore[arg-type]
    assert abs(float(got["high"]) - (centre + half)) < 1e-12  # type: ignore[arg-type]


def test_the_command_line_package_and_the_datasets_load_nothing_heavy() -> None:
    # polars_fair.cli (the entry point) and polars_fair.datasets import numpy, typer and the
    # command table only when a command runs (issue 20: --help answers without them)
    got = fresh(f"""
        import json, sys
        import polars_fair.cli, polars_fair.cli.launch, polars_fair.datasets
        print(json.dumps({{"loaded": [m for m in {DEFERRED!r} if m in sys.modules],
                          "entry": "polars_fair.cli.entry" in sys.modules}}))
    """)
    assert got == {"loaded": [], "entry": False}
