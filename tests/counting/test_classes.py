"""Class tables (issue 22, multiclass): one scan, the binary audit's checks and typed errors.

Expected tables are counted by hand from the rows written in each test.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from polars_fair.counting.classes import class_dtype

ROWS = pl.DataFrame({
    "g": ["a", "a", "a", "b", "b", None],
    "t": ["Low", "High", "Low", "Medium", "Low", "High"],
    "p": ["Low", "High", "Medium", "Medium", "High", "Low"],
    "w": [1.0, 2.0, 0.5, 1.5, 3.0, 1.0],
})


def test_the_class_table_counts_each_group_true_and_predicted_class_once() -> None:
    table = polars_fair.class_counts(ROWS, "g", y_pred="p", y_true="t").frame.collect()
    # by hand: a (Low, Low) 1, a (High, High) 1, a (Low, Medium) 1, b (Medium, Medium) 1,
    # b (Low, High) 1, null group (High, Low) 1; sorted by g (nulls last), y_true, y_pred
    assert table.rows() == [("a", "High", "High", 1), ("a", "Low", "Low", 1),
                            ("a", "Low", "Medium", 1), ("b", "Low", "High", 1),
                            ("b", "Medium", "Medium", 1), (None, "High", "Low", 1)]
    assert table.schema == pl.Schema({"g": pl.String, "y_true": pl.String, "y_pred": pl.String,
                                      "n": pl.Int64})


def test_weights_add_a_weight_sum_and_n_stays_the_row_count() -> None:
    # every group: group a alone would hold three classes of one row each, a class column
    # refused as an attribute would be (boundary.identifying)
    table = polars_fair.class_counts(ROWS, "g", y_pred="p", sample_weight="w").frame.collect()
    # a: High 2.0 (1 row), Low 1.0 (1 row), Medium 0.5 (1 row); b: High 3.0, Medium 1.5; the
    # null group: Low 1.0; each row of positive weight (n_positive_weight, issue 22: the
    # support a binary count table counts)
    assert table.rows() == [("a", "High", 1, 2.0, 1), ("a", "Low", 1, 1.0, 1),
                            ("a", "Medium", 1, 0.5, 1), ("b", "High", 1, 3.0, 1),
                            ("b", "Medium", 1, 1.5, 1), (None, "Low", 1, 1.0, 1)]


def test_expressions_and_lazy_frames_are_read_as_with_columns_reads_them() -> None:
    lf = ROWS.lazy()
    c = polars_fair.class_counts(lf, pl.col("g").fill_null("z").alias("grp"),
                                 y_pred=pl.col("p").str.to_lowercase())
    rows = c.frame.collect().rows()
    assert rows == [("a", "high", 1), ("a", "low", 1), ("a", "medium", 1), ("b", "high", 1),
                    ("b", "medium", 1), ("z", "low", 1)]


def test_null_and_nan_classes_are_the_binary_audits_errors() -> None:
    df = ROWS.with_columns(p=pl.when(pl.col("g") == "b").then(None).otherwise(pl.col("p")))
    with pytest.raises(E.NullValuesError) as err:
        polars_fair.class_counts(df, "g", y_pred="p").frame.collect()
    assert str(err.value) == E.NULL_LABELS.format(column="p", role="y_pred", count=2)
    nan = pl.DataFrame({"g": ["a", "a", "b"], "p": [0.0, float("nan"), 1.0]})
    with pytest.raises(E.NullValuesError) as err:
        polars_fair.class_counts(nan, "g", y_pred="p").frame.collect()
    assert str(err.value) == E.NAN_LABELS.format(column="p", role="y_pred", count=1)


def test_a_single_class_is_an_error_that_names_the_column() -> None:
    df = pl.DataFrame({"g": ["a", "b"], "p": ["x", "x"]})
    with pytest.raises(E.InvalidLabelError) as err:
        polars_fair.class_counts(df, "g", y_pred="p").frame.collect()
    assert str(err.value) == E.ONE_CLASS.format(column="p", role="y_pred", values="['x']")
    # declared classes make a one-class table valid: the other class is a row of zeros
    ok = polars_fair.class_counts(df, "g", y_pred="p", classes=["x", "y"])
    assert ok.multiclass_report(min_support=1).collect()["n_class"].to_list() == [1, 0, 1, 0]


def test_a_class_outside_classes_is_an_error_listing_it() -> None:
    with pytest.raises(E.InvalidLabelError) as err:
        polars_fair.class_counts(ROWS, "g", y_pred="p", classes=["Low", "High"]).frame.collect()
    assert str(err.value) == E.UNKNOWN_CLASSES.format(
        column="p", role="y_pred", count=2, classes="['Low', 'High']", values="['Medium']",
        wanted="['Low', 'High', 'Medium']")  # the classes given, then the one found


@pytest.mark.parametrize(("classes", "template"), [
    (["Low"], E.FEW_CLASSES), (["Low", "Low"], E.FEW_CLASSES), ("Low", E.FEW_CLASSES),
    (["Low", None], E.FEW_CLASSES), ([1, 2], E.CLASS_DTYPE),
])
def test_bad_classes_are_refused_at_once(classes: object, template: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        polars_fair.class_counts(ROWS, "g", y_pred="p", classes=classes)  # type: ignore[arg-type]
    assert str(err.value).split(" ")[0] == template.split(" ")[0]


def test_a_text_label_with_a_numeric_prediction_is_refused() -> None:
    df = pl.DataFrame({"g": ["a"], "t": ["x"], "p": [1]})
    with pytest.raises(E.InvalidLabelError) as err:
        polars_fair.class_counts(df, "g", y_pred="p", y_true="t")
    # 'x' and 1 would not match as text either: no cast is advised (issue 22 re-review item 7)
    assert str(err.value) == E.CLASS_KINDS_APART.format(
        y_true="t", true_dtype=pl.String, y_pred="p", pred_dtype=pl.Int64, true_values="['x']",
        pred_values="[1]")
    # '1' and 1 would: the cast is advised
    with pytest.raises(E.InvalidLabelError) as err:
        polars_fair.class_counts(df.with_columns(t=pl.lit("1")), "g", y_pred="p", y_true="t")
    assert str(err.value) == E.CLASS_KINDS.format(y_true="t", true_dtype=pl.String, y_pred="p",
                                                  pred_dtype=pl.Int64, role="y_pred", column="p")


def test_weights_groups_and_empty_input_raise_as_for_binary_audits() -> None:
    bad = ROWS.with_columns(w=pl.Series([1.0, -1.0, 1.0, 1.0, float("nan"), 1.0]))
    with pytest.raises(E.InvalidWeightError) as err:
        polars_fair.class_counts(bad, "g", y_pred="p", sample_weight="w").frame.collect()
    assert str(err.value) == E.BAD_WEIGHTS.format(column="w", nulls=0, nans=1, negatives=1)
    with pytest.raises(E.NullGroupError):
        polars_fair.class_counts(ROWS, "g", y_pred="p", null_groups="raise").frame.collect()
    with pytest.raises(E.EmptyFrameError):
        polars_fair.class_counts(ROWS.clear(), "g", y_pred="p").frame.collect()
    with pytest.warns(UserWarning, match="dropped 1 row"):
        dropped = polars_fair.class_counts(ROWS, "g", y_pred="p", null_groups="drop")
        assert dropped.frame.collect()["n"].sum() == 5
    with pytest.raises(E.ColumnNotFoundError):
        polars_fair.class_counts(ROWS, "g", y_pred="nope")


def test_a_key_named_like_a_class_table_column_is_refused() -> None:
    df = ROWS.rename({"g": "class"})
    with pytest.raises(E.InvalidArgumentError) as err:
        polars_fair.class_counts(df, "class", y_pred="p")
    assert str(err.value) == E.RESERVED_NAME.format(names=["class"], example="class")


def test_an_enum_prediction_declares_its_categories_in_order() -> None:
    risk = pl.Enum(["Low", "Medium", "High"])
    df = pl.DataFrame({"g": ["a", "b"], "p": ["Low", "Medium"]}, schema_overrides={"p": risk})
    c = polars_fair.class_counts(df, "g", y_pred="p")
    assert c.classes == ("Low", "Medium", "High")
    out = c.multiclass_report(min_support=1).collect()
    assert out.select("g", "class", "n_class").rows() == [
        ("a", "Low", 1), ("a", "Medium", 0), ("a", "High", 0),
        ("b", "Low", 0), ("b", "Medium", 1), ("b", "High", 0)]


def test_class_dtype_is_one_dtype_for_label_and_prediction() -> None:
    assert class_dtype(pl.Int8, pl.Int64) == pl.Int64
    assert class_dtype(pl.Int64, pl.Float32) == pl.Float64
    assert class_dtype(pl.Categorical(), pl.String) == pl.String
    assert class_dtype(None, pl.Boolean) == pl.Boolean


# ------------------------------------------------------------------ tables made elsewhere
def test_from_class_counts_sums_partial_rows_and_audits_like_the_rows() -> None:
    rows = polars_fair.class_counts(ROWS, "g", y_pred="p", y_true="t")
    made = rows.frame.collect()
    halves = pl.concat([made.with_columns(n=pl.col("n") * 0), made])  # zero rows are harmless
    again = polars_fair.from_class_counts(halves)
    assert again.frame.collect().equals(made)
    assert again.multiclass_report(min_support=1).collect().equals(
        rows.multiclass_report(min_support=1).collect())


def test_from_class_counts_validates_like_from_counts() -> None:
    with pytest.raises(E.ColumnNotFoundError):
        polars_fair.from_class_counts(pl.DataFrame({"g": ["a"], "n": [1]}))
    with pytest.raises(E.InvalidArgumentError):
        polars_fair.from_class_counts(pl.DataFrame({"g": ["a"], "y_pred": [1], "n": ["1"]}))
    neg = pl.DataFrame({"g": ["a", "a"], "y_pred": [0, 1], "n": [-1, 2]})
    with pytest.raises(E.InvalidArgumentError, match="negative"):
        polars_fair.from_class_counts(neg).frame.collect()
    null = pl.DataFrame({"g": ["a", "a"], "y_pred": [None, 1], "n": [1, 2]})
    with pytest.raises(E.NullValuesError) as err:
        polars_fair.from_class_counts(null).frame.collect()
    assert str(err.value) == E.NULL_CLASS_TABLE.format(column="y_pred", count=1, what="null",
                                                       rows=1)
    one = pl.DataFrame({"g": ["a", "b"], "y_pred": [1, 1], "n": [1, 2]})
    with pytest.raises(E.InvalidLabelError):
        polars_fair.from_class_counts(one).frame.collect()
    empty = pl.DataFrame({"g": ["a", "b"], "y_pred": [0, 1], "n": [0, 0]})
    with pytest.raises(E.EmptyFrameError):
        polars_fair.from_class_counts(empty).frame.collect()


def test_a_nan_key_is_the_missing_group_as_on_the_rows() -> None:
    t = pl.DataFrame({"x": [1.0, float("nan"), None], "y_pred": [0, 1, 1], "n": [2, 1, 1]})
    rows = polars_fair.from_class_counts(t).frame.collect().rows()
    assert rows[0] == (1.0, 0, 2)
    assert rows[1][0] is None and rows[1][1:] == (1, 2)
    assert not any(isinstance(r[0], float) and math.isnan(r[0]) for r in rows)


def test_from_class_counts_messages_are_true_to_the_table() -> None:
    # issue 22 re-review item 6: a table row with a null class stands for n rows; the message
    # said "holds 7 null value(s)" for one null cell (n = 3 + 4), and refused weight sums with
    # advice about a sample_weight the caller never passed
    table = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_pred": ["x", None, None, "y"],
                          "n": [5, 3, 4, 2]})
    with pytest.raises(E.NullValuesError) as err:
        polars_fair.from_class_counts(table).frame.collect()
    assert str(err.value) == ("class table column 'y_pred' holds 2 null value(s) (in table rows "
                              "whose n sum to 7); every row of a class table needs its class")
    nan = pl.DataFrame({"g": ["a", "a", "b"], "y_pred": [0.0, float("nan"), 1.0],
                        "n": [5, 3, 2]})
    with pytest.raises(E.NullValuesError) as err:
        polars_fair.from_class_counts(nan).frame.collect()
    assert str(err.value) == E.NULL_CLASS_TABLE.format(column="y_pred", count=1, what="NaN",
                                                       rows=3)
    weighted = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_pred": ["x", "y", "x", "y"],
                             "n": [5, 3, 4, 2], "weight_sum": [5.5, 3.0, 4.0, 2.5]})
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_class_counts(weighted).multiclass_test().collect()
    assert str(info.value) == E.TEST_WEIGHT_SUMS
    assert "sample_weight" not in str(info.value)
    # following the advice: without weight_sum the test counts the table's n (hand: a 5/3,
    # b 4/2; chi2 = sum (O - E)^2 / E with E = row * column / 14)
    test = polars_fair.from_class_counts(weighted.drop("weight_sum")).multiclass_test(
        ).collect()
    expected = {("a", "x"): 8 * 9 / 14, ("a", "y"): 8 * 5 / 14, ("b", "x"): 6 * 9 / 14,
                ("b", "y"): 6 * 5 / 14}
    observed = {("a", "x"): 5, ("a", "y"): 3, ("b", "x"): 4, ("b", "y"): 2}
    chi2 = sum((observed[k] - e) ** 2 / e for k, e in expected.items())
    assert test["n"].item() == 14 and test["chi2"].item() == pytest.approx(chi2, rel=1e-12)
    # rows with sample_weight keep naming it
    rows = pl.DataFrame({"g": ["a", "b"] * 3, "y_pred": ["x", "y", "y"] * 2, "w": [1.0] * 6})
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.class_counts(rows, "g", y_pred="y_pred", sample_weight="w") \
            .multiclass_test().collect()
    assert str(info.value) == E.TEST_WEIGHTS.format(weight="w")
