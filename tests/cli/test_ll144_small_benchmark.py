"""bias-audit says plainly when its benchmark category is small (issue 20, fix item 11).

LL 144's impact ratio divides by the highest rate, whatever the category's size; the default
stays so. A benchmark below the report's min_support (30) is named in a fact, in every format,
and the note's advice (--exclude-small, for a category under --min-share) is followed.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.cli.ll144 import SMALL_BENCHMARK

runner = CliRunner()


def _rows(tmp_path: Path) -> str:
    # x: 10 applicants, 8 selected (0.8, the highest rate, 1% of 1,000 rows: small);
    # a: 495, 248 selected; b: 495, 198 selected
    path = tmp_path / "rows.csv"
    pl.DataFrame({
        "g": ["x"] * 10 + ["a"] * 495 + ["b"] * 495,
        "sel": [1] * 8 + [0] * 2 + [1] * 248 + [0] * 247 + [1] * 198 + [0] * 297,
    }).write_csv(path)
    return str(path)


def test_a_small_benchmark_is_named_and_the_legal_default_kept(tmp_path: Path) -> None:
    path = _rows(tmp_path)
    text = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel"])
    assert text.exit_code == 0, text.stderr
    note = SMALL_BENCHMARK.format(attributes="g", category="g='x'", rate="selection_rate", n=10,
                                  min_support=30)
    assert f"small benchmark: {note}" in text.stdout
    result = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                                 "--format", "json"])
    summary = json.loads(result.stdout)
    assert summary["small_benchmark"] == [note]
    ratios = {r["g"]: r["impact_ratio"] for r in summary["results"]}
    # the law's default: against x's 0.8; a: (248/495)/0.8
    assert ratios["x"] == 1.0 and abs(ratios["a"] - 248 / 495 / 0.8) < 1e-12


def test_following_the_note_with_exclude_small_moves_the_benchmark(tmp_path: Path) -> None:
    path = _rows(tmp_path)
    result = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                                 "--exclude-small", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["small_benchmark"] == []  # a (495 applicants) is the benchmark now
    ratios = {r["g"]: r["impact_ratio"] for r in summary["results"]}
    assert ratios["a"] == 1.0 and abs(ratios["b"] - (198 / 495) / (248 / 495)) < 1e-12
