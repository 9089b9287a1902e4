"""Issue 19 kind 1: an expression argument means what it means in ``lf.with_columns(...)``.

It is evaluated over the whole frame before the grouping, on every way a frame arrives (eager,
lazy, streaming), never inside each group. Every expected value below is worked out by hand on
the frame ``ROWS``; the comment of each test says how.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app
from tests.conftest import Runner

#: rows 0-3 are group a, rows 4-7 group b.
ROWS = pl.DataFrame({
    "g": ["a", "a", "a", "a", "b", "b", "b", "b"],
    "y_true": [1, 0, 1, 0, 1, 1, 0, 0],
    "y_pred": [1, 0, 0, 0, 1, 1, 1, 0],
    "score": [0.9, 0.1, 0.5, 0.3, 0.8, 0.7, 0.6, 0.2],
    "gap": [1.0, None, 3.0, 1.0, None, 1.0, 1.0, 3.0],
})
COLS = ["g", "n", "tp", "fp", "fn", "tn"]


def _cells(out: pl.DataFrame) -> list[tuple[Any, ...]]:
    return out.select(c for c in out.columns if c in (*COLS, "weight_sum")).rows()


def test_a_literal_prediction_selects_every_row(run: Runner) -> None:
    # every row predicted positive: a has labels 1,0,1,0 -> tp 2, fp 2; b 1,1,0,0 likewise.
    # Inside the group-by pl.lit(1) summed once per group and gave fp = 1 - 2 = -1.
    out = run(ROWS, "confusion", "g", y_pred=pl.lit(1))
    assert _cells(out) == [("a", 4, 2, 2, 0, 0), ("b", 4, 2, 2, 0, 0)]


def test_a_literal_label_makes_every_row_positive(run: Runner) -> None:
    # every label positive: a predicts 1,0,0,0 -> tp 1, fn 3; b predicts 1,1,1,0 -> tp 3, fn 1
    out = run(ROWS, "confusion", "g", y_true=pl.lit(1))
    assert _cells(out) == [("a", 4, 1, 0, 3, 0), ("b", 4, 3, 0, 1, 0)]


def test_a_literal_weight_weighs_each_row_one(run: Runner) -> None:
    # weight 1 per row: the weighted cells are the row counts. a: (y, p) = (1,1) (0,0) (1,0)
    # (0,0) -> tp 1, fn 1, tn 2; b: (1,1) (1,1) (0,1) (0,0) -> tp 2, fp 1, tn 1; weight_sum 4
    out = run(ROWS, "confusion", "g", sample_weight=pl.lit(1.0))
    assert _cells(out) == [("a", 4, 1.0, 0.0, 1.0, 2.0, 4.0), ("b", 4, 2.0, 1.0, 0.0, 1.0, 4.0)]


def test_a_frame_wide_quantile_selects_the_frame_wide_top(run: Runner) -> None:
    # quantile(0.8) of the 8 scores, Polars' "nearest": sorted index round(0.8 * 7) = 6 -> 0.8.
    # Selected: 0.9 (a, label 1) and 0.8 (b, label 1). a: tp 1, fn 1 (0.5), tn 2; b: tp 1, fn 1
    # (0.7), tn 2. Per group, a would select 0.9 and 0.5 (its own quantile is 0.5).
    top = pl.col("score") >= pl.col("score").quantile(0.8)
    out = run(ROWS, "confusion", "g", y_pred=top)
    assert _cells(out) == [("a", 4, 1, 0, 1, 2), ("b", 4, 1, 0, 1, 2)]
    # the impact ratio of the frame-wide top 20%: both groups select 1 of 4
    report = run(ROWS, "report", "g", y_pred=top)
    assert report["selection_rate"].to_list() == [0.25, 0.25]


def test_the_frame_row_count_is_the_frame_s(run: Runner) -> None:
    # pl.len() is 8 (the frame), so pl.len() > 5 is True on every row (per group: 4 > 5 False)
    out = run(ROWS, "confusion", "g", y_pred=pl.len() > 5, pos_label=True)
    assert _cells(out) == [("a", 4, 2, 2, 0, 0), ("b", 4, 2, 2, 0, 0)]


def test_a_cumulative_sum_runs_over_the_frame(run: Runner) -> None:
    # cum_sum of y_true over the frame: 1,1,2,2,3,4,4,4 -> >= 2: F,F,T,T,T,T,T,T.
    # a: (1,F) (0,F) (1,T) (0,T) -> tp 1, fp 1, fn 1, tn 1; b: all T -> tp 2, fp 2.
    # (Per group b would read 1,2,2,2 and leave its first row unselected.)
    out = run(ROWS, "confusion", "g", y_pred=pl.col("y_true").cum_sum() >= 2, pos_label=True)
    assert _cells(out) == [("a", 4, 1, 1, 1, 1), ("b", 4, 2, 2, 0, 0)]


def test_interpolation_reads_the_neighbours_across_groups(run: Runner) -> None:
    # gap interpolated over the frame: 1, 2, 3, 1, 1, 1, 1, 3 (row 4 lies between 1 and 1; in
    # group b alone it would stay null, a null weight). a: (1,1) w1, (0,0) w2, (1,0) w3,
    # (0,0) w1 -> tp 1, fn 3, tn 3, sum 7; b: (1,1) w1, (1,1) w1, (0,1) w1, (0,0) w3 ->
    # tp 2, fp 1, tn 3, sum 6
    out = run(ROWS, "confusion", "g", sample_weight=pl.col("gap").interpolate())
    assert _cells(out) == [("a", 4, 1.0, 0.0, 3.0, 3.0, 7.0), ("b", 4, 2.0, 1.0, 0.0, 3.0, 6.0)]


def test_an_opaque_function_sees_the_whole_frame(run: Runner) -> None:
    # y_pred shifted up by one over the frame (last row 0): 0,0,0,1,1,1,0,0.
    # a: (1,0) (0,0) (1,0) (0,1) -> fp 1, fn 2, tn 1; b: (1,1) (1,1) (0,0) (0,0) -> tp 2, tn 2
    # (per group, a would read 0,0,0,0 and b 1,1,0,0)
    shifted = pl.col("y_pred").map_batches(lambda s: s.shift(-1, fill_value=0),
                                           return_dtype=pl.Int64)
    out = run(ROWS, "confusion", "g", y_pred=shifted)
    assert _cells(out) == [("a", 4, 0, 1, 2, 1), ("b", 4, 2, 0, 0, 2)]


def test_an_attribute_expression_is_cut_at_the_frame_wide_median(run: Runner) -> None:
    # median of the 8 scores: (0.5 + 0.6) / 2 = 0.55. Above: rows 0, 4, 5, 6 with (y, p) =
    # (1,1) (1,1) (1,1) (0,1) -> tp 3, fp 1; below: rows 1, 2, 3, 7: (0,0) (1,0) (0,0) (0,0)
    top = (pl.col("score") >= pl.col("score").median()).alias("top_half")
    out = run(ROWS, "confusion", top)
    assert out.columns[0] == "top_half"
    assert out.rows() == [(False, 4, 0, 0, 1, 3), (True, 4, 3, 1, 0, 0)]


def test_a_score_expression_is_thresholded_over_the_frame(run: Runner) -> None:
    # rank / len over the frame: 0.9 -> 8/8, 0.8 -> 7/8, 0.7 -> 6/8 reach 0.75, all label 1:
    # a: tp 1 (0.9), fn 1, tn 2; b: tp 2 (0.8, 0.7), tn 2
    out = run(ROWS, "confusion", "g", y_score=pl.col("score").rank() / pl.len(), threshold=0.75)
    assert _cells(out) == [("a", 4, 1, 0, 1, 2), ("b", 4, 2, 0, 0, 2)]


def test_a_literal_score_ties_every_row(run: Runner) -> None:
    # every score 0.3: each ROC curve is the diagonal, AUC 0.5, ABROCA 0 (was AttributeError)
    out = run(ROWS, "abroca", "g", y_score=pl.lit(0.3))
    assert out.select("g", "positives", "negatives", "auc", "abroca").rows() == [
        ("a", 2, 2, 0.5, 0.0), ("b", 2, 2, 0.5, 0.0)]


def test_a_filter_cannot_be_a_column() -> None:
    with pytest.raises(E.NotRowLevelError, match=r"^y_true=.* changes the number of rows"):
        ROWS.fair.confusion("g", y_true=pl.col("y_true").filter(pl.col("y_pred") == 1))


def test_duckdb_refuses_an_expression_naming_the_argument() -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(ROWS.to_arrow())
    with pytest.raises(E.InvalidArgumentError, match=r"^sample_weight must name a column"):
        polars_fair.counts(rel, "g", sample_weight=pl.lit(1.0))


@pytest.mark.parametrize(("option", "value", "expected"), [
    # as test_a_literal_prediction_selects_every_row and test_a_literal_weight_weighs_each_row_one
    ("--y-pred", "1", [{"g": "a", "n": 4, "tp": 2, "fp": 2, "fn": 0, "tn": 0},
                       {"g": "b", "n": 4, "tp": 2, "fp": 2, "fn": 0, "tn": 0}]),
    ("--sample-weight", "1.0", [
        {"g": "a", "n": 4, "tp": 1.0, "fp": 0.0, "fn": 1.0, "tn": 2.0, "weight_sum": 4.0,
         "n_positive_weight": 4},
        {"g": "b", "n": 4, "tp": 2.0, "fp": 1.0, "fn": 0.0, "tn": 1.0, "weight_sum": 4.0,
         "n_positive_weight": 4}]),
])
def test_cli_constants_hold_on_every_row(tmp_path: Path, option: str, value: str,
                                         expected: list[dict[str, Any]]) -> None:
    path = tmp_path / "rows.csv"
    ROWS.drop("gap").write_csv(path)
    result = CliRunner().invoke(app, ["confusion", str(path), "--by", "g", option, value,
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == expected


# ------------------------------------------------------------------ property: any expression
N_ROWS = 12
_COLUMN = st.sampled_from(["u", "v", "s"])
#: row-level and frame-wide expressions (windows, scans, aggregates broadcast) over the frame
_BINARY = st.one_of(
    st.sampled_from([pl.lit(0), pl.lit(1), pl.len() > 5, pl.len() > 20]),
    st.builds(lambda c, q: pl.col(c) >= pl.col(c).quantile(q), _COLUMN,
              st.floats(0.0, 1.0)),
    st.builds(lambda c, k: (pl.col(c).cum_sum() % 2 == k), _COLUMN, st.integers(0, 1)),
    st.builds(lambda c, k: pl.col(c).shift(k, fill_value=0) > 0.5, _COLUMN,
              st.integers(-3, 3)),
    st.builds(lambda c: pl.col(c) > pl.col(c).mean(), _COLUMN),
    st.builds(lambda c: pl.col(c).rank("ordinal") % 2 == 0, _COLUMN),
)
_WEIGHT = st.one_of(
    st.sampled_from([None, pl.lit(1.0), pl.lit(2.5), pl.col("s")]),
    st.builds(lambda c: pl.col(c).cum_sum(), st.sampled_from(["s", "u"])),
    st.builds(lambda c: pl.col(c) + pl.col(c).mean(), st.sampled_from(["s", "u"])),
)
_BY = st.one_of(
    st.just("g"),
    st.builds(lambda c: (pl.col(c) > pl.col(c).median()).alias("top"), _COLUMN),
    st.just((pl.len() > 3).alias("all")),
)


# a random expression may be constant over the frame: the Python API does not warn of it
# (CONSTANT_OUTCOME is the command line's, counting.tables.WARN_CONSTANT)
@settings(max_examples=60, deadline=None)
@given(u=st.lists(st.integers(0, 1), min_size=N_ROWS, max_size=N_ROWS),
       v=st.lists(st.integers(0, 1), min_size=N_ROWS, max_size=N_ROWS),
       s=st.lists(st.floats(0, 1), min_size=N_ROWS, max_size=N_ROWS),
       g=st.lists(st.sampled_from(["a", "b", "c"]), min_size=N_ROWS, max_size=N_ROWS),
       y_true=_BINARY, y_pred=_BINARY, weight=_WEIGHT, by=_BY)
def test_counts_are_non_negative_rates_in_unit_interval_and_sums_match_the_rows(
        u: list[int], v: list[int], s: list[float], g: list[str], y_true: pl.Expr,
        y_pred: pl.Expr, weight: pl.Expr | None, by: Any) -> None:
    df = pl.DataFrame({"g": g, "u": u, "v": v, "s": s})
    # the frame as Polars evaluates the arguments: the reference for n and weight_sum
    ref = df.with_columns(y_true.cast(pl.Boolean).alias("__y"),
                          y_pred.cast(pl.Boolean).alias("__p"),
                          (weight if weight is not None else pl.lit(1.0)).alias("__w"))
    args: dict[str, Any] = {"y_true": y_true.cast(pl.Boolean), "y_pred": y_pred.cast(pl.Boolean),
                            "pos_label": True, "sample_weight": weight}
    if not (ref["__y"].any() or ref["__p"].any()):
        with pytest.raises(E.InvalidLabelError):  # pos_label in neither column: typed
            df.fair.confusion(by, **args)
        return
    counts = df.fair.confusion(by, **args)
    cells = counts.select("tp", "fp", "fn", "tn")
    assert all((cells[c] >= 0).all() for c in cells.columns)
    assert (counts["n"] >= 0).all()
    assert counts["n"].sum() == df.height
    key = counts.columns[0]
    ref_key = ref.with_columns((by if isinstance(by, pl.Expr) else pl.col(by)).alias(key))
    expected_n = ref_key.group_by(key).agg(pl.len().cast(pl.Int64).alias("n"),
                                           pl.col("__w").sum().alias("w")).sort(key)
    assert counts.select(key, "n").rows() == expected_n.select(key, "n").rows()
    if weight is not None:
        assert counts["weight_sum"].to_list() == pytest.approx(expected_n["w"].to_list())
        total = counts.select(pl.sum_horizontal("tp", "fp", "fn", "tn"))["tp"].to_list()
        assert total == pytest.approx(counts["weight_sum"].to_list())
    report = df.fair.report(by, **args)
    for column in ("selection_rate", "tpr", "fpr"):
        rates = report[column].drop_nulls()
        assert ((rates >= 0) & (rates <= 1)).all(), column
