"""The moment scan counts NaN and infinite values only when a moment is not finite.

Finite means and sums of squares prove every value finite, so the scan leaves out the finite
counts, and counts them on the rows only when a moment is NaN or infinite (an input error, or
finite values whose squares overflow). Expected values are hand computations.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app


def test_finite_values_whose_squares_overflow_are_an_error_whose_advice_works() -> None:
    # (1e200 - 0)^2 overflows: every value is finite, yet group a's M2 is infinite. This test
    # asserted that infinite M2 (and a null std in the report) before issue 22's review, which
    # called it a silent defect: now a typed error naming y_pred and counting the groups
    df = pl.DataFrame({"g": ["b", "a", "a"], "x": [1.0, 1e200, -1e200]})
    with pytest.raises(E.InvalidScoreError) as info:
        polars_fair.moments(df, "g", y_pred="x").frame.collect()
    assert str(info.value) == E.CONTINUOUS_OVERFLOW.format(
        column="x", role="y_pred", moment="sum of squares", count=1)
    # the advice followed: divided by 1e100, a is (1e100, -1e100), M2 = 2e200; b is 1e-100
    t = polars_fair.moments(df, "g", y_pred=pl.col("x") / 1e100).frame.collect()
    assert t["n"].to_list() == [2, 1]
    assert t["mean_pred"].to_list() == [0.0, 1e-100]
    assert t["m2_pred"].to_list() == [pytest.approx(2e200, rel=1e-15), 0.0]


@pytest.mark.parametrize(("values", "message"), [
    ([1.0, float("nan"), float("inf"), 2.0, 3.0],
     E.BAD_CONTINUOUS.format(column="x", role="y_pred", count=2)),
    ([1.0, None, None, float("nan"), 3.0],  # nulls are reported first
     E.NULL_CONTINUOUS.format(column="x", role="y_pred", count=2)),
])
def test_bad_values_are_counted_on_the_rows(values: list[float | None], message: str) -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b", "b"], "x": values})
    with pytest.raises(E.PolarsFairError) as info:
        polars_fair.moments(df, "g", y_pred="x").frame.collect()
    assert str(info.value) == message


def test_a_bad_observed_value_is_counted_with_clean_predictions() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b"], "x": [1.0, 2.0, 3.0],
                       "y": [1.0, float("-inf"), 3.0]})
    with pytest.raises(E.InvalidScoreError) as info:
        polars_fair.moments(df, "g", y_pred="x", y_true="y").frame.collect()
    assert str(info.value) == E.BAD_CONTINUOUS.format(column="y", role="y_true", count=1)


def test_wide_decimals_of_at_most_15_digits_are_read_and_more_are_refused() -> None:
    # issue 22 re-review item 9: Decimal(38, 19) values of at most 15 significant digits are
    # exact as floats; mean of 1.5 and 2.25 by hand = 1.875, M2 = 2 * 0.375**2 = 0.28125
    from decimal import Decimal

    dec = pl.Decimal(38, 19)
    ok = pl.DataFrame({"g": ["a", "a"], "x": pl.Series([Decimal("1.5"), Decimal("2.25")],
                                                       dtype=dec)})
    got = polars_fair.moments(ok, "g", y_pred="x").frame.collect()
    assert got.select("mean_pred", "m2_pred").row(0) == (1.875, 0.28125)
    # 17 significant digits (1234567890123456.5): refused, as a Decimal score's would be (a
    # float keeps 15 significant digits of every decimal, not more)
    bad = ok.with_columns(x=pl.Series([Decimal("1.5"), Decimal("1234567890123456.5")],
                                      dtype=dec))
    with pytest.raises(E.InvalidScoreError) as err:
        polars_fair.moments(bad, "g", y_pred="x").frame.collect()
    assert str(err.value) == E.CONTINUOUS_DECIMAL_DIGITS.format(
        column="x", role="y_pred", dtype=dec, count=1)


def test_nonzero_values_whose_squares_underflow_are_an_error_whose_advice_works(
        tmp_path: Path) -> None:
    # fix 22d item 2: a (1, 2, 3)·1e-170, b (2, 3, 4)·1e-170: every square (~1e-340) underflows
    # to 0, so std was 0.0 and smd null, silently. Now a typed error counting the 6 values.
    df = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "x": [1.0, 2.0, 3.0, 2.0, 3.0, 4.0]})
    small = df.with_columns(x=pl.col("x") * 1e-170)
    message = E.CONTINUOUS_UNDERFLOW.format(column="x", role="y_pred", count=6)
    with pytest.raises(E.InvalidScoreError) as info:
        small.fair.continuous_report("g", y_pred="x")
    assert str(info.value) == message
    # the advice followed: multiplied by 1e100, a is (1, 2, 3)·1e-70 (mean 2e-70, sd 1e-70),
    # b is (2, 3, 4)·1e-70 (mean 3e-70, sd 1e-70); smd = 1e-70 / pooled sd 1e-70 = 1
    r = small.fair.continuous_report("g", y_pred=pl.col("x") * 1e100, reference="a",
                                     min_support=1)
    assert r["mean"].to_list() == [pytest.approx(2e-70, rel=1e-12),
                                   pytest.approx(3e-70, rel=1e-12)]
    assert r["std"].to_list() == [pytest.approx(1e-70, rel=1e-12)] * 2
    assert r["smd"].to_list() == [0.0, pytest.approx(1.0, rel=1e-12)]
    # a tiny value beside values of normal size loses nothing: a (1e-170, 1, 2) mean 1, sd 1
    mixed = df.with_columns(x=pl.Series([1e-170, 1.0, 2.0, 2.0, 3.0, 4.0]))
    r = mixed.fair.continuous_report("g", y_pred="x", reference="a", min_support=1)
    assert r["std"].to_list() == [pytest.approx(1.0, rel=1e-12)] * 2
    # y_true: y_pred 0 and y_true (1, 2, 3)·1e-170: the residuals' sum of squares underflows
    labels = df.with_columns(p=pl.lit(0.0), t=pl.col("x") * 1e-170)
    with pytest.raises(E.InvalidScoreError) as info:
        labels.fair.continuous_report("g", y_pred="p", y_true="t")
    assert str(info.value) == E.CONTINUOUS_UNDERFLOW.format(column="t", role="y_true", count=6)
    # zeros square to zero exactly: a constant column of zeros is not refused (std 0)
    zeros = df.with_columns(x=pl.lit(0.0)).fair.continuous_report("g", y_pred="x",
                                                                   min_support=1)
    assert zeros["std"].to_list() == [0.0, 0.0]
    # the command line: the same error, and the advice as a SQL --y-pred
    path = tmp_path / "small.csv"
    small.write_csv(path)
    run = CliRunner().invoke
    result = run(app, ["continuous-report", str(path), "--by", "g", "--y-pred", "x"])
    cli_message = message.replace("(y_pred)", "(--y-pred)").replace(
        "y_true and y_pred", "--y-true and --y-pred")  # the command line names its flags
    assert result.exit_code != 0 and cli_message in result.stderr.replace("\n", " ")
    result = run(app, ["continuous-report", str(path), "--by", "g", "--y-pred", "x * 1e100",
                       "--reference", "g=a", "--min-support", "1", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    rows = json.loads(result.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert [r["smd"] for r in rows] == [0.0, pytest.approx(1.0, rel=1e-12)]
