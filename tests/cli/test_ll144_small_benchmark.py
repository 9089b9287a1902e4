"""bias-audit says plainly when its benchmark category is small (issue 20, fix item 11).

LL 144's plain rule divides by the highest rate, whatever the category's size
(``--plain-benchmark``); there a benchmark below the report's min_support (30) is named in a
fact, in every format, and the note's advice (--exclude-small, for a category under --min-share)
is followed. By default (issue 20, fix item 4) such a category is not eligible as benchmark.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.cli.ll144 import SMALL_BENCHMARK

runner = CliRunner()


def _groups(tmp_path: Path, groups: dict[str, tuple[int, int]], name: str = "rows.csv") -> str:
    """A CSV of applicants: per category g, (applicants, selected) rows of sel 1 then 0."""
    path = tmp_path / name
    pl.DataFrame({
        "g": [g for g, (n, _) in groups.items() for _ in range(n)],
        "sel": [int(i < k) for n, k in groups.values() for i in range(n)],
    }).write_csv(path)
    return str(path)


def _rows(tmp_path: Path) -> str:
    # x: 10 applicants, 8 selected (0.8, the highest rate, 1% of 1,000 rows: small);
    # a: 495, 248 selected; b: 495, 198 selected
    return _groups(tmp_path, {"x": (10, 8), "a": (495, 248), "b": (495, 198)})


def test_a_small_benchmark_is_named_and_the_legal_default_kept(tmp_path: Path) -> None:
    path = _rows(tmp_path)
    text = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                               "--plain-benchmark"])
    assert text.exit_code == 0, text.stderr
    note = SMALL_BENCHMARK.format(attributes="g", category="g=x", rate="selection_rate", n=10,
                                  min_support=30)
    assert f"small benchmark: {note}" in text.stdout
    result = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                                 "--plain-benchmark", "--format", "json"])
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


def _rows_above_share(tmp_path: Path) -> str:
    # x: 25 applicants, 20 selected (0.8, the highest rate; 25 / 1,000 = 2.5%, above the 2% of
    # --min-share, so not a small category); a: 500, 250 selected; b: 475, 190 selected
    return _groups(tmp_path, {"x": (25, 20), "a": (500, 250), "b": (475, 190)}, "above.csv")


def test_a_small_benchmark_above_min_share_is_not_advised_exclude_small(tmp_path: Path) -> None:
    # issue 20 (fix 20a item 3): --exclude-small leaves x in (2.5% >= 2%), so the note says
    # so instead of advising it
    from polars_fair.cli.ll144 import SMALL_BENCHMARK_ABOVE_SHARE

    path = _rows_above_share(tmp_path)
    plain = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                                "--plain-benchmark", "--format", "json"])
    assert plain.exit_code == 0, plain.stderr
    summary = json.loads(plain.stdout)
    note = SMALL_BENCHMARK_ABOVE_SHARE.format(
        attributes="g", category="g=x", rate="selection_rate", n=25, min_support=30,
        share=0.025, min_share=0.02)
    assert summary["small_benchmark"] == [note]
    assert "at 2.50% of the applicants it is not under --min-share (2.00%)" in note
    assert "with --exclude-small" not in note
    # why: --exclude-small changes nothing here, the same ratios against x's 0.8
    excluded = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                                   "--plain-benchmark", "--exclude-small", "--format", "json"])
    assert excluded.exit_code == 0, excluded.stderr
    ratios = {r["g"]: r["impact_ratio"] for r in json.loads(excluded.stdout)["results"]}
    assert ratios == {r["g"]: r["impact_ratio"] for r in summary["results"]}
    assert ratios["x"] == 1.0 and abs(ratios["a"] - 0.5 / 0.8) < 1e-12
    # with a --min-share above x's share the note's first form returns, and its advice works
    higher = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                                 "--plain-benchmark", "--min-share", "0.03", "--format", "json"])
    assert json.loads(higher.stdout)["small_benchmark"] == [SMALL_BENCHMARK.format(
        attributes="g", category="g=x", rate="selection_rate", n=25, min_support=30)]
    moved = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                                "--plain-benchmark", "--min-share", "0.03", "--exclude-small",
                                "--format", "json"])
    ratios = {r["g"]: r["impact_ratio"] for r in json.loads(moved.stdout)["results"]}
    assert ratios["x"] is None and ratios["a"] == 1.0
    assert abs(ratios["b"] - (190 / 475) / 0.5) < 1e-12


def test_by_default_a_small_category_is_not_the_benchmark(tmp_path: Path) -> None:
    """Issue 20, fix item 4: report's support rule (30 applicants) picks the benchmark."""
    from polars_fair.cli.ll144 import NOT_BENCHMARK

    path = _rows(tmp_path)
    result = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                                 "--format", "json"])
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["small_benchmark"] == []
    assert summary["not_benchmark"] == [NOT_BENCHMARK.format(
        attributes="g", categories="g='x'", count=1, ies="y", min_support=30)]
    rows = {r["g"]: r for r in summary["results"]}
    # benchmark a: 248/495; x: 0.8 / (248/495) = 396/248 = 1.5968 (still reported); b: 198/248
    assert rows["a"]["impact_ratio"] == 1.0
    assert abs(rows["x"]["impact_ratio"] - 0.8 / (248 / 495)) < 1e-12
    assert abs(rows["b"]["impact_ratio"] - 198 / 248) < 1e-12
    assert [rows[g]["benchmark_eligible"] for g in "xab"] == [False, True, True]
    text = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel"])
    assert "not eligible as benchmark: g: g='x' (1 category) with fewer than 30" in text.stdout
    # --min-support 10 makes x (10 applicants) eligible again: the benchmark at 0.8
    low = runner.invoke(app, ["bias-audit", path, "--category", "g", "--y-pred", "sel",
                              "--min-support", "10", "--format", "json"])
    ratios = {r["g"]: r["impact_ratio"] for r in json.loads(low.stdout)["results"]}
    assert ratios["x"] == 1.0 and abs(ratios["a"] - 248 / 495 / 0.8) < 1e-12
