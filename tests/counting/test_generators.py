"""Row-level generators are expression arguments like any other (review of issue 19, defect 11).

``pl.int_range(pl.len())`` and ``pl.lit(pl.Series(...))`` of the frame's length give one value
a row in ``lf.with_columns(...)``, though Polars' static ``meta.is_length_preserving()`` says
False for them. They are accepted as ``by``, ``y_pred``, ``y_score`` and ``sample_weight``,
with their Polars meaning; an expression that changes the number of rows is still refused with
``NotRowLevelError``. Expected values are worked out by hand on ``ROWS``.
"""

from __future__ import annotations

import polars as pl
import pytest

from polars_fair import errors as E
from tests.conftest import Runner

#: rows 0-3 are group a, rows 4-7 group b.
ROWS = pl.DataFrame({
    "g": ["a", "a", "a", "a", "b", "b", "b", "b"],
    "y_true": [1, 0, 1, 0, 1, 1, 0, 0],
    "y_pred": [1, 0, 0, 0, 1, 1, 1, 0],
})
COLS = ["n", "tp", "fp", "fn", "tn"]


def test_a_row_number_prediction_selects_the_first_four_rows(run: Runner) -> None:
    # int_range(len) < 4 predicts rows 0-3 (all of a) positive, b negative:
    # a labels 1,0,1,0 -> tp 2, fp 2; b labels 1,1,0,0 -> fn 2, tn 2
    out = run(ROWS, "confusion", "g", y_pred=(pl.int_range(pl.len()) < 4).cast(pl.Int64))
    assert out.select("g", *COLS).rows() == [("a", 4, 2, 2, 0, 0), ("b", 4, 0, 0, 2, 2)]


def test_a_literal_series_of_the_frames_length_is_a_column(run: Runner) -> None:
    # predictions 1,1,0,0 | 0,0,1,1: a labels 1,0,1,0 -> tp 1, fp 1, fn 1, tn 1;
    # b labels 1,1,0,0 -> fn 2, fp 2
    pred = pl.lit(pl.Series([1, 1, 0, 0, 0, 0, 1, 1]))
    out = run(ROWS, "confusion", "g", y_pred=pred)
    assert out.select("g", *COLS).rows() == [("a", 4, 1, 1, 1, 1), ("b", 4, 0, 2, 2, 0)]


def test_a_row_number_weight_weighs_each_row_by_its_position(run: Runner) -> None:
    # weights 0..7: a rows 0-3 (y,p) = (1,1) (0,0) (1,0) (0,0): tp 0, tn 1 + 3, fn 2, sum 6;
    # b rows 4-7 (1,1) (1,1) (0,1) (0,0): tp 4 + 5, fp 6, tn 7, sum 22
    out = run(ROWS, "confusion", "g", sample_weight=pl.int_range(pl.len()).cast(pl.Float64))
    assert out.select("g", *COLS, "weight_sum").rows() == [
        ("a", 4, 0.0, 0.0, 2.0, 4.0, 6.0), ("b", 4, 9.0, 6.0, 0.0, 7.0, 22.0)]


def test_a_row_number_score_ranks_the_rows(run: Runner) -> None:
    # scores 0..7: a's positives (rows 0, 2) against negatives (1, 3): pairs (0>1? no)
    # (0>3? no) (2>1 yes) (2>3 no) -> AUC 1/4; b's positives (4, 5) are below its
    # negatives (6, 7) -> AUC 0
    out = run(ROWS, "abroca", "g", y_score=pl.int_range(pl.len()).cast(pl.Float64),
              reference="a")
    assert out.select("g", "auc").rows() == [("a", 0.25), ("b", 0.0)]


def test_a_row_number_attribute_makes_groups(run: Runner) -> None:
    # int_range(len) % 2: even rows 0,2,4,6 (labels 1,1,1,0, predictions 1,0,1,1):
    # tp 2, fn 1, fp 1; odd rows 1,3,5,7 (labels 0,0,1,0, predictions 0,0,1,0): tp 1, tn 3
    out = run(ROWS, "confusion", (pl.int_range(pl.len()) % 2).alias("parity"))
    assert out.select("parity", *COLS).rows() == [(0, 4, 2, 1, 1, 0), (1, 4, 1, 0, 0, 3)]


@pytest.mark.parametrize("expr", [
    pl.col("y_pred").filter(pl.col("y_pred") > 0),
    pl.col("y_pred").unique(),
    pl.col("y_pred").head(3),
])
def test_what_changes_the_number_of_rows_is_still_refused(expr: pl.Expr) -> None:
    with pytest.raises(E.NotRowLevelError) as info:
        ROWS.fair.confusion("g", y_pred=expr)
    assert str(info.value) == E.NOT_ROW_LEVEL.format(role="y_pred", expr=expr,
                                                     why="changes the number of rows")
