"""The benchmark suite's smoke mode runs every benchmark, so the benchmarks cannot go stale.

``python -m benchmarks.run --smoke`` runs as a subprocess (a fresh interpreter, as a user would
run it) at tiny sizes; every row of its JSON must have run, or say plainly why not (a peer's
virtual environment that is absent here, a feature not written yet). No timing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {"ok", "skipped", "not run", "not available yet"}
BENCHMARKS = {"import", "cli", "report", "many_groups", "combinations", "parquet", "abroca",
              "abroca_test", "power", "moments", "multiclass", "html", "membership"}


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("bench") / "smoke.json"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.run", "--smoke", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "| benchmark |" in proc.stdout, proc.stdout[-2000:]
    return json.loads(out.read_text())


def test_every_benchmark_produced_rows(smoke: dict) -> None:
    assert smoke["mode"] == "smoke"
    assert {row["benchmark"] for row in smoke["rows"]} >= BENCHMARKS


def test_the_import_benchmark_sees_no_heavy_module(smoke: dict) -> None:
    row = next(r for r in smoke["rows"] if r["id"] == "import/polars_fair")
    assert row["status"] == "ok", row["reason"]
    assert row["extra"]["heavy_loaded"] == []


def test_every_row_ran_or_says_why_not(smoke: dict) -> None:
    for row in smoke["rows"]:
        assert row["status"] in ALLOWED, (row["id"], row["status"], row["reason"])
        if row["status"] == "ok":
            assert row["ours_s"] is not None and row["ours_s"] >= 0, row["id"]
            assert row["ours_repeats"] >= 1, row["id"]
            if row["baseline"] is not None:
                assert row["baseline_s"] is not None and row["ratio"] is not None, row["id"]
        else:
            assert row["reason"], f"{row['id']} is {row['status']!r} without a reason"


def test_targets_and_machine_are_recorded(smoke: dict) -> None:
    from benchmarks.run import TARGETS

    assert len(smoke["targets"]) == len(TARGETS) >= 15  # issue 13's table is among them
    assert {t["row"] for t in smoke["targets"]} >= {
        "import/polars_fair", "report/1e5/floor", "many_groups/1e6/floor", "report/1e6/aequitas",
        "report/1e7/floor", "parquet/1e8/time"}
    assert all(t["met"] is None for t in smoke["targets"])  # smoke mode never judges targets
    machine = smoke["machine"]
    assert machine["cores"] >= 1
    assert {"python", "polars", "numpy"} <= set(machine["versions"])


def test_the_html_row_records_each_helpers_cpu(smoke: dict) -> None:
    """Issue 20 (perf): the page's helper CPU is split into the chart renderer's and the test's.

    A review read the whole helper figure as the chart renderer's; the ABROCA test's helper was
    most of it. Both parts are recorded, neither negative.
    """
    row = next(r for r in smoke["rows"] if r["id"] == "html/adult/call")
    assert row["status"] == "ok", row["reason"]
    extra = row["extra"]
    assert {"helper_cpu_s", "svg_cpu_s", "test_cpu_s"} <= set(extra)
    assert extra["svg_cpu_s"] >= 0 and extra["test_cpu_s"] >= 0
