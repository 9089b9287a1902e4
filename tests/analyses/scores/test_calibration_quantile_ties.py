"""Issue 19, kind 5: quantile calibration bins are quantiles, also at a tie on an exact quantile.

``reliability`` / ``calibration`` with ``strategy="quantile"`` put their edges at the pooled
scores' percentiles, numpy's linear rule, with the positions ``b (N - 1) / n_bins`` decided as
fractions (:func:`polars_fair.core.rules.quantile_positions`). In floating point ``9 * (7/9)``
was 6.999999999999999, so the edge at the 8th of 10 rows read 0.7999999999999999 and the row
scored 0.8 moved to the next bin. numpy (``np.quantile(..., method="linear")``, one quantile
at a time) is the independent reference, in the test only; on the command line as in Python.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import polars_fair
from polars_fair.analyses.scores.calibration import calibration_from_scores
from polars_fair.cli.entry import app
from polars_fair.core.rules import quantile_positions

#: the review's frame: 10 rows of one group, y = 0, 1, 0, 1, ...
SCORES = [0.1, 0.4, 0.4, 0.4, 0.6, 0.7, 0.7, 0.8, 0.9, 0.9]


def _frame(scores: list[float], groups: list[str] | None = None) -> pl.DataFrame:
    return pl.DataFrame({"g": groups or ["a"] * len(scores),
                         "y_true": [i % 2 for i in range(len(scores))], "s": scores})


def _numpy_counts(frame: pl.DataFrame, n_bins: int) -> tuple[dict[str, list[int]], list[float]]:
    """numpy: edges at the pooled quantiles b/n_bins, one at a time; a row goes to the first
    inner edge it does not exceed (right-closed bins); rows per bin for each group."""
    pooled = frame["s"].to_numpy()
    edges = [float(np.quantile(pooled, b / n_bins, method="linear"))
             for b in range(n_bins + 1)]
    out = {}
    for name in sorted(set(frame["g"].to_list())):
        s = frame.filter(pl.col("g") == name)["s"].to_numpy()
        ids = np.searchsorted(edges[1:-1], s, side="left")
        out[name] = [int(c) for c in np.bincount(ids, minlength=n_bins)]
    return out, edges


def _ours(frame: pl.DataFrame, n_bins: int) -> pl.DataFrame:
    return polars_fair.scores(frame, "g", y_score="s").reliability(
        n_bins=n_bins, strategy="quantile").collect()


def test_quantile_positions_are_exact_fractions() -> None:
    # 10 rows, 9 bins: h_b = 9 b / 9 = b, every edge on a row (t = 0)
    assert quantile_positions(10, 9) == [(b, Fraction(0)) for b in range(10)]
    # 10 rows, 4 bins: h_1 = 9/4 = 2 + 1/4, h_2 = 9/2 = 4 + 1/2, h_3 = 27/4 = 6 + 3/4
    assert quantile_positions(10, 4) == [(0, Fraction(0)), (2, Fraction(1, 4)),
                                         (4, Fraction(1, 2)), (6, Fraction(3, 4)),
                                         (9, Fraction(0))]
    # one row (or a total weight below 1): every quantile is that row
    assert quantile_positions(1, 3) == [(0, Fraction(0))] * 4


def test_a_row_tied_at_an_exact_quantile_stays_in_its_bin() -> None:
    out = _ours(_frame(SCORES), 9)
    # N = 10, h_b = b: the edges are the sorted scores themselves,
    # 0.1 | 0.4 0.4 0.4 | 0.6 | 0.7 0.7 | 0.8 | 0.9 0.9; bin 6 is (v_6, v_7] = (0.7, 0.8],
    # holding the row at 0.8 (it was in bin 7, whose high edge read 0.7999999999999999)
    assert out["bin_high"].to_list() == [0.4, 0.4, 0.4, 0.6, 0.7, 0.7, 0.8, 0.9, 0.9]
    assert out["n"].to_list() == [4, 0, 0, 1, 2, 0, 1, 2, 0]
    assert _numpy_counts(_frame(SCORES), 9)[0] == {"a": [4, 0, 0, 1, 2, 0, 1, 2, 0]}


def test_calibration_reads_the_same_bins() -> None:
    # bins with y = i % 2: [0.1 .4 .4 .4] y 0 1 0 1: mean .325, frac .5, gap .175;
    # [.6] y 0: gap .6; [.7 .7] y 1 0: gap .2; [.8] y 1: gap .2; [.9 .9] y 0 1: gap .4.
    # ECE = (4 * .175 + .6 + 2 * .2 + .2 + 2 * .4) / 10 = 2.7 / 10 = 0.27 (0.23 with 0.8 moved
    # into the top bin), MCE = 0.6
    out = polars_fair.scores(_frame(SCORES), "g", y_score="s").calibration(
        n_bins=9, strategy="quantile").collect()
    assert abs(out["ece"].item() - 0.27) < 1e-12
    assert abs(out["max_calibration_error"].item() - 0.6) < 1e-12


def _random_frames(count: int) -> list[tuple[pl.DataFrame, int]]:
    """Seeded frames with many ties: scores on a grid of tenths, three groups of two rows or
    more (a group of one row is refused as identifying)."""
    rng = np.random.default_rng(19)
    frames = []
    for _ in range(count):
        size = int(rng.integers(6, 45))
        grid = int(rng.integers(1, 11))
        scores = (rng.integers(0, grid + 1, size=size) / 10).tolist()
        groups = rng.permutation(np.array(["a", "b", "c"])[np.arange(size) % 3]).tolist()
        frames.append((_frame(scores, groups), int(rng.integers(2, 14))))
    return frames


def _score_table(frame: pl.DataFrame) -> pl.DataFrame:
    """The score table of ``frame``: one row per group and distinct score."""
    return frame.group_by("g", "s").agg(
        pl.col("y_true").sum().cast(pl.Int64).alias("positives"),
        (1 - pl.col("y_true")).sum().cast(pl.Int64).alias("negatives"),
    ).rename({"s": "score"})


@settings(max_examples=150, deadline=None)
@given(tenths=st.lists(st.integers(min_value=0, max_value=10), min_size=6, max_size=45),
       grid=st.integers(min_value=1, max_value=10), n_bins=st.integers(min_value=2, max_value=13))
def test_rows_per_bin_equal_numpys_quantiles_on_tied_frames(tenths: list[int], grid: int,
                                                            n_bins: int) -> None:
    # scores on a grid of tenths (many ties), three groups of two rows or more; the analysis on
    # the frame's score table (the methods and the command line reach it through the score
    # table of the rows)
    scores = [min(t, grid) / 10 for t in tenths]
    frame = _frame(scores, [("a", "b", "c")[i % 3] for i in range(len(scores))])
    expected, edges = _numpy_counts(frame, n_bins)
    out = calibration_from_scores(_score_table(frame), ["g"], n_bins=n_bins,
                                  strategy="quantile").reliability
    for name, counts in expected.items():
        part = out.filter(pl.col("g") == name)
        assert part["n"].to_list() == counts
        # the edges are numpy's (an interpolated one to an ulp: numpy's own position
        # (N - 1) * (b / n_bins) is rounded)
        assert np.allclose(part["bin_low"].to_numpy(), edges[:-1], rtol=0, atol=1e-12)
        assert np.allclose(part["bin_high"].to_numpy(), edges[1:], rtol=0, atol=1e-12)


def test_weighted_count_table_bins_as_its_rows_repeated() -> None:
    # a score table with integer counts held as floats (a weighted table) bins as the rows it
    # stands for: the review's frame as counts, positives/negatives per distinct score
    table = _score_table(_frame(SCORES)).with_columns(
        pl.col("positives", "negatives").cast(pl.Float64))
    reliability, _, _ = calibration_from_scores(table, ["g"], n_bins=9, strategy="quantile")
    assert reliability["n"].to_list() == [4.0, 0.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0]


def test_the_command_line_bins_as_numpy(tmp_path: Path) -> None:
    runner = CliRunner()
    cases = [(_frame(SCORES), 9), *_random_frames(6)]
    for i, (frame, n_bins) in enumerate(cases):
        path = tmp_path / f"f{i}.csv"
        frame.write_csv(path)
        result = runner.invoke(app, ["reliability", str(path), "--by", "g", "--y-score", "s",
                                     "--n-bins", str(n_bins), "--strategy", "quantile",
                                     "--format", "json"])
        assert result.exit_code == 0, result.stderr
        rows = json.loads(result.stdout)
        expected, _ = _numpy_counts(frame, n_bins)
        got = {name: [r["n"] for r in rows if r["g"] == name] for name in expected}
        assert got == expected


def test_the_command_line_calibration_reads_the_same_bins(tmp_path: Path) -> None:
    # the review's frame: ECE 0.27 and MCE 0.6, worked out in
    # test_calibration_reads_the_same_bins
    path = tmp_path / "scores.csv"
    _frame(SCORES).write_csv(path)
    result = CliRunner().invoke(app, ["calibration", str(path), "--by", "g", "--y-score", "s",
                                      "--n-bins", "9", "--strategy", "quantile",
                                      "--format", "json"])
    assert result.exit_code == 0, result.stderr
    [row] = json.loads(result.stdout)
    assert abs(row["ece"] - 0.27) < 1e-12
    assert abs(row["max_calibration_error"] - 0.6) < 1e-12
