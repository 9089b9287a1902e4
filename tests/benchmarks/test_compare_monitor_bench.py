"""benchmarks/compare_monitor_bench.py runs in its smoke mode, so it cannot go stale.

No timing is asserted; the smoke simulation's false alarms are not either (20 streams).
"""

from __future__ import annotations

import pytest

from benchmarks.compare_monitor_bench import SCENARIOS, main

pytestmark = pytest.mark.slow


def test_the_smoke_run_prints_every_scenario_and_both_ratios(
        capsys: pytest.CaptureFixture[str]) -> None:
    main(["--smoke"])
    out = capsys.readouterr().out
    assert all(f"| {name} |" in out for name in SCENARIOS)
    assert "| compare | 10,000 |" in out and "| monitor | 10,000 |" in out
