"""The count-table entry point: results from counts equal results from rows, exactly."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from polars_fair import errors as E
from polars_fair import from_counts, from_scores
from polars_fair.datasets import make_hiring
from tests.conftest import one_row_groups


@st.composite
def frames(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(2, 80))
    col = lambda values: draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))  # noqa: E731
    df = pl.DataFrame({
        "a": col(["x", "y", None]), "b": col([0, 1, 2]), "y_true": col([0, 1]),
        "y_pred": col([0, 1]), "w": col([0.5, 1.0, 2.0, 3.0]),
        "s": col([0.1, 0.2, 0.5, 0.7, 0.9]),
    }, schema={"a": pl.String, "b": pl.Int64, "y_true": pl.Int64, "y_pred": pl.Int64,
               "w": pl.Float64, "s": pl.Float64})
    assume(not one_row_groups(df, "a", "b"))  # refused at any size (issue 20)
    return df


def usable(df: pl.DataFrame) -> bool:
    return bool(df["y_true"].sum() + df["y_pred"].sum() > 0)


@settings(max_examples=40, deadline=None)
@given(frames(), st.booleans())
def test_results_from_counts_equal_results_from_rows(df: pl.DataFrame, weighted: bool) -> None:
    assume(usable(df))
    w = {"sample_weight": "w"} if weighted else {}
    counts = df.fair.confusion(["a", "b"], **w)
    fc = from_counts(counts)
    assert_frame_equal(fc.report().collect(), df.fair.report(["a", "b"], **w))
    assert_frame_equal(fc.rates(by=["b"]).collect(), df.fair.rates("b", **w))
    assert_frame_equal(fc.metrics().collect(), df.fair.metrics(["a", "b"], **w))
    assert_frame_equal(fc.pairwise(by="a").collect(), df.fair.pairwise("a", **w))
    assert_frame_equal(fc.summary(by="a").collect(), df.fair.summary("a", **w))
    assert_frame_equal(
        fc.report(combinations="all").collect(),
        df.fair.report(["a", "b"], combinations="all", **w),
    )
    if not weighted:
        assert_frame_equal(fc.disparity(by="b").collect(), df.fair.disparity("b"))


@settings(max_examples=30, deadline=None)
@given(frames())
def test_results_from_score_tables_equal_results_from_rows(df: pl.DataFrame) -> None:
    scores = df.fair.scores("b", y_score="s")
    fs = from_scores(scores)
    assert_frame_equal(fs.abroca().collect(), df.fair.abroca("b", y_score="s"))
    assert_frame_equal(fs.calibration(n_bins=4).collect(),
                       df.fair.calibration("b", y_score="s", n_bins=4))
    assert_frame_equal(fs.abroca_test(n_permutations=30, seed=1).collect(),
                       df.fair.abroca_test("b", y_score="s", n_permutations=30, seed=1))


def test_partial_count_tables_are_summed() -> None:
    df = make_hiring(2000, seed=2)
    parts = [df[:700], df[700:1500], df[1500:]]
    stacked = pl.concat([p.fair.confusion(["race", "sex"]) for p in parts])
    assert_frame_equal(from_counts(stacked).report().collect(), df.fair.report(["race", "sex"]))


def test_counts_from_sql() -> None:
    """A warehouse's GROUP BY, here run by Polars' SQL engine, audited without the rows."""
    df = make_hiring(3000, seed=4).with_columns(pl.col("race", "sex").cast(pl.String))
    sql = pl.SQLContext(hires=df).execute(
        """
        SELECT race, sex, COUNT(*) AS n,
               SUM(CASE WHEN y_true = 1 AND y_pred = 1 THEN 1 ELSE 0 END) AS tp,
               SUM(CASE WHEN y_true = 0 AND y_pred = 1 THEN 1 ELSE 0 END) AS fp,
               SUM(CASE WHEN y_true = 1 AND y_pred = 0 THEN 1 ELSE 0 END) AS fn,
               SUM(CASE WHEN y_true = 0 AND y_pred = 0 THEN 1 ELSE 0 END) AS tn
        FROM hires GROUP BY race, sex
        """
    )
    assert_frame_equal(from_counts(sql).report().collect(), df.fair.report(["race", "sex"]))


def test_bad_count_tables() -> None:
    good = pl.DataFrame({"g": ["a"], "n": [3], "tp": [1], "fp": [1], "fn": [0], "tn": [1]})
    with pytest.raises(E.ColumnNotFoundError, match=r"column 'tn' \(count table\) not found"):
        from_counts(good.drop("tn"))
    with pytest.raises(E.InvalidArgumentError, match=r"n != tp \+ fp \+ fn \+ tn: 1"):
        from_counts(good.with_columns(n=pl.lit(5))).report().collect()
    with pytest.raises(E.InvalidArgumentError, match="holds 1 negative, NaN or infinite"):
        from_counts(good.with_columns(fp=pl.lit(-1), n=pl.lit(1))).rates().collect()
    with pytest.raises(E.NullValuesError, match="holds 1 null"):
        from_counts(good.with_columns(tp=pl.lit(None, dtype=pl.Int64))).rates().collect()
    with pytest.raises(E.ColumnNotFoundError, match=r"column 'zz' \(by\)"):
        from_counts(good).report(by="zz")
    nan_counts = good.with_columns(fp=pl.lit(float("nan")))
    with pytest.raises(E.InvalidArgumentError, match="holds 1 negative, NaN or infinite"):
        from_counts(nan_counts).report().collect()
    scores = pl.DataFrame({"g": ["a"], "score": [float("nan")], "positives": [1], "negatives": [0]})
    with pytest.raises(E.InvalidScoreError, match="1 NaN"):
        from_scores(scores).abroca().collect()
