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


# ------------------------------------------------ a length that is not the frame's (second review)
#: ROWS has 8 rows; each argument below gives another number of values.
WRONG_LENGTH = [
    ("confusion", {"y_pred": pl.int_range(3)}, "y_pred", "3 values"),
    ("confusion", {"y_true": pl.lit(pl.Series([1, 0]))}, "y_true", "2 values"),
    ("confusion", {"sample_weight": pl.lit(pl.Series([1.0, 2.0, 3.0]))}, "sample_weight",
     "3 values"),
    ("confusion", {"y_pred": (pl.col("y_pred") + pl.lit(pl.Series([1, 2, 3]))) > 1}, "y_pred",
     "parts of different lengths"),
    ("confusion", {"y_pred": pl.col("y_pred").map_batches(lambda s: s.head(2))}, "y_pred",
     "2 values"),
    ("abroca", {"y_score": pl.int_range(5) / 5, "reference": "a"}, "y_score", "5 values"),
    ("confusion", {"y_score": pl.int_range(5) / 5, "threshold": 0.5}, "y_score", "5 values"),
    ("multiclass_report", {"y_pred": pl.int_range(3)}, "y_pred", "3 values"),
    ("continuous_report", {"y_pred": pl.int_range(3).cast(pl.Float64)}, "y_pred", "3 values"),
]


def _wrong_length(role: str, expr: pl.Expr, got: str) -> str:
    return E.FRAME_LENGTH.format(role=role, expr=expr, got=got, rows=8)


@pytest.mark.parametrize(("method", "kw", "role", "got"), WRONG_LENGTH)
def test_an_argument_of_another_length_is_not_row_level_on_every_way_in(
        run: Runner, method: str, kw: dict[str, object], role: str, got: str) -> None:
    # eager, lazy and streaming: the typed error names the argument, never Polars' ShapeError
    kw = {"min_support": 1, **kw} if method in ("multiclass_report",) else kw
    with pytest.raises(E.NotRowLevelError) as info:
        run(ROWS, method, "g", **kw)
    expr = kw.get(role) if role in kw else kw["y_score"]
    assert str(info.value) == _wrong_length(role, expr, got)  # type: ignore[arg-type]


@pytest.mark.parametrize(("by", "got"), [(pl.lit(pl.Series("h", ["a", "b", "c"])), "3 values"),
                                         (pl.lit(pl.Series("h", ["a"])), "1 value")])
def test_an_attribute_of_another_length_is_not_row_level(run: Runner, by: pl.Expr,
                                                         got: str) -> None:
    # a Series of 3 values, or of one (Polars broadcasts no Series, only a scalar)
    with pytest.raises(E.NotRowLevelError) as info:
        run(ROWS, "confusion", by)
    assert str(info.value) == _wrong_length("by", by, got)


def test_time_and_baseline_of_another_length_are_named() -> None:
    import datetime as dt

    time = pl.lit(pl.Series([dt.date(2024, 1, 1)] * 3))
    with pytest.raises(E.NotRowLevelError) as info:
        ROWS.lazy().fair.monitor("g", time=time, every="1mo", y_pred="y_pred").collect()
    assert str(info.value).startswith("time=") and "gives 3 values for a frame of 8 rows" in \
        str(info.value)
    with pytest.raises(E.NotRowLevelError) as info:
        ROWS.lazy().fair.compare("g", y_pred="y_pred", baseline=pl.int_range(3)).collect()
    assert str(info.value) == _wrong_length("baseline", pl.int_range(3), "3 values")


def test_the_advice_of_a_wrong_length_works_when_followed(run: Runner) -> None:
    # FRAME_LENGTH: pass a pl.lit(Series) of the frame's length, or a single value.
    # Predictions 1,0,1,0 | 1,0,1,0 against labels 1,0,1,0 | 1,1,0,0: a tp 2 tn 2;
    # b (1,1) (1,0) (0,1) (0,0): tp 1, fn 1, fp 1, tn 1
    pred = pl.lit(pl.Series([1, 0, 1, 0, 1, 0, 1, 0]))
    out = run(ROWS, "confusion", "g", y_pred=pred)
    assert out.select("g", *COLS).rows() == [("a", 4, 2, 0, 0, 2), ("b", 4, 1, 1, 1, 1)]
    # a single value: every row predicted positive: a tp 2 fp 2, b tp 2 fp 2
    out = run(ROWS, "confusion", "g", y_pred=pl.lit(1))
    assert out.select("g", *COLS).rows() == [("a", 4, 2, 2, 0, 0), ("b", 4, 2, 2, 0, 0)]


def test_a_wrong_length_is_typed_through_counts_and_the_html_audit() -> None:
    # the count-table way in (polars_fair.counts on a LazyFrame, collected later) and the HTML
    # audit (which counts the rows itself) raise the same typed error
    import polars_fair
    from polars_fair.audit.html import audit_html

    want = _wrong_length("y_pred", pl.int_range(3), "3 values")
    with pytest.raises(E.NotRowLevelError) as info:
        polars_fair.counts(ROWS.lazy(), "g", y_pred=pl.int_range(3)).report().collect()
    assert str(info.value) == want
    with pytest.raises(E.NotRowLevelError) as info:
        audit_html(ROWS, "g", y_pred=pl.int_range(3))
    assert str(info.value) == want
