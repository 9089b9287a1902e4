"""Bad input raises an error that names the column and shows the values; never numbers."""

from __future__ import annotations

import polars as pl
import pytest

from polars_fair import errors as E
from tests.conftest import Runner

GOOD = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0]})


def test_missing_column_lists_columns_before_any_work() -> None:
    # raised when the plan is built, not at collect time
    with pytest.raises(E.ColumnNotFoundError) as info:
        GOOD.lazy().fair.report("race")
    assert str(info.value) == E.MISSING_COLUMN.format(
        column="race", role="by", available="['g', 'y_true', 'y_pred']"
    )
    with pytest.raises(E.ColumnNotFoundError, match=r"column 'label' \(y_true\) not found"):
        GOOD.lazy().fair.rates("g", y_true="label")
    with pytest.raises(E.ColumnNotFoundError, match=r"column 'zz' \(by\)"):
        GOOD.lazy().fair.confusion(pl.col("zz").alias("k"))


def test_null_labels(run: Runner) -> None:
    df = GOOD.with_columns(y_pred=pl.Series([1, None, None, 0]))
    with pytest.raises(E.NullValuesError) as info:
        run(df, "report", "g")
    assert str(info.value) == E.NULL_LABELS.format(column="y_pred", role="y_pred", count=2)


def test_more_than_two_values(run: Runner) -> None:
    # each value on two rows (values that are each one row are hidden, as an attribute's are)
    df = pl.concat([GOOD, GOOD]).with_columns(y_true=pl.Series([1, 0, 2, 3] * 2))
    with pytest.raises(E.InvalidLabelError) as info:
        run(df, "rates", "g")
    assert str(info.value) == E.TOO_MANY_VALUES.format(
        column="y_true", role="y_true", pos_label=1, values="[0, 2, 3]"
    )


def test_scores_in_prediction_column_suggest_score_api(run: Runner) -> None:
    df = GOOD.with_columns(y_pred=pl.Series([0.91, 0.2, 0.35, 0.05]))
    with pytest.raises(E.InvalidLabelError,
                       match=r"looks like a score.*y_score='y_pred'.*threshold="):
        run(df, "report", "g")


def test_pos_label_in_neither_column(run: Runner) -> None:
    df = GOOD.with_columns(pl.col("y_true", "y_pred") + 5)  # values 5 and 6
    # two values, neither 1: the positive one is asked for (issue 19; the example is the last
    # in sorted order when no value reads as positive: 6)
    with pytest.raises(E.InvalidLabelError, match=r"holds two values, 5 and 6, and neither is "
                                                  r"pos_label=1; .* for example pos_label=6$"):
        run(df, "report", "g")
    df2 = pl.DataFrame({"g": ["a", "b"], "y_true": ["no", "no"], "y_pred": ["no", "no"]})
    with pytest.raises(E.InvalidLabelError) as info:
        run(df2, "report", "g", pos_label="yes")
    assert str(info.value) == E.POS_LABEL_ABSENT.format(
        pos_label="yes", y_true="y_true", y_pred="y_pred", values="['no']"
    )


def test_pos_label_of_wrong_dtype_raises_at_once() -> None:
    with pytest.raises(E.InvalidLabelError, match=r"pos_label='yes' \(str\) cannot be compared "
                                                  r"with column 'y_true' of dtype Int64"):
        GOOD.lazy().fair.report("g", pos_label="yes")


def test_negative_values_differ(run: Runner) -> None:
    df = GOOD.with_columns(y_pred=pl.Series([1, 1, 2, 2]))
    with pytest.raises(E.InvalidLabelError, match=r"different negative values \(0 and 2\)"):
        run(df, "report", "g")


def test_empty_frame(run: Runner) -> None:
    with pytest.raises(E.EmptyFrameError, match="the frame has no rows"):
        run(GOOD.head(0), "report", "g")
    with pytest.raises(E.EmptyFrameError, match="the frame has no rows"):
        run(GOOD.head(0), "report", [])


def test_float_attribute_with_many_levels_suggests_binning(run: Runner) -> None:
    n = 200
    df = pl.DataFrame({"income": [i * 1.5 for i in range(n)], "y_true": [i % 2 for i in range(n)],
                       "y_pred": [(i // 2) % 2 for i in range(n)]})
    with pytest.raises(E.TooManyLevelsError, match=r"attribute 'income' is a Float64 column with "
                                                   r"200 distinct values.*bin_quantiles") as info:
        run(df, "report", "income")
    assert "1.5" not in str(info.value)  # counts and the dtype, never a value (issue 20)
    # binned, it works
    band = pl.col("income").bin_intervals([100.0], labels=["<100", ">=100"]).alias("income_band")
    binned = run(df, "report", band)
    assert binned["n"].to_list() == [67, 133]


def test_bad_weights(run: Runner) -> None:
    df = GOOD.with_columns(w=pl.Series([1.0, None, float("nan"), -2.0]))
    with pytest.raises(E.InvalidWeightError) as info:
        run(df, "report", "g", sample_weight="w")
    assert str(info.value) == E.BAD_WEIGHTS.format(column="w", nulls=1, nans=1, negatives=1)


def test_bad_scores_with_threshold(run: Runner) -> None:
    df = GOOD.with_columns(s=pl.Series([0.2, float("nan"), float("inf"), None]))
    with pytest.raises(E.InvalidScoreError) as info:
        run(df, "report", "g", y_pred=None, y_score="s", threshold=0.5)
    assert str(info.value) == E.BAD_SCORES.format(column="s", nulls=1, nans=1, infinite=1)


def test_bad_options() -> None:
    with pytest.raises(E.InvalidArgumentError, match="null_groups must be"):
        GOOD.fair.report("g", null_groups="skip")  # type: ignore[arg-type]
    with pytest.raises(E.InvalidArgumentError, match="min_support"):
        GOOD.fair.report("g", min_support=-1)
    with pytest.raises(E.InvalidArgumentError, match="pass reference as a mapping"):
        GOOD.with_columns(h=pl.col("g")).fair.report(["g", "h"], reference="a")
    with pytest.raises(E.InvalidArgumentError, match="clash with output columns"):
        GOOD.with_columns(n=pl.col("g")).fair.report("n")


def test_lazy_result_never_turns_invalid_input_into_numbers() -> None:
    """A LazyFrame built on bad data builds fine but raises at collect, in every engine."""
    bad = GOOD.lazy().with_columns(y_true=pl.lit(None, dtype=pl.Int64))
    plan = bad.fair.report("g")  # no error yet: the data has not been read
    for engine in ("in-memory", "streaming"):
        with pytest.raises(E.NullValuesError, match=r"column 'y_true' \(y_true\) holds 4 null"):
            plan.collect(engine=engine)  # type: ignore[arg-type]
    # and the error survives further lazy steps
    with pytest.raises(E.NullValuesError):
        plan.filter(pl.col("n") > 0).select("g", "ofi").collect()


def test_errors_are_value_errors() -> None:
    assert issubclass(E.PolarsFairError, ValueError)
    assert issubclass(E.ColumnNotFoundError, KeyError)
