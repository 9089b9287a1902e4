"""Enum predictions in the multiclass report (issue 22 re-review items 3 and 4).

Every expected value is counted by hand in the test.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

RISK = pl.Enum(["Low", "Medium", "High", "VeryHigh"])


def _frame() -> pl.DataFrame:
    return pl.DataFrame({"g": ["a", "a", "b", "b"], "p": ["Low", "High", "Low", "Medium"],
                         "y": ["Low", "Medium", "Low", "Medium"]}).with_columns(
        p=pl.col("p").cast(RISK))


def test_unknown_class_of_an_enum_is_a_typed_error() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        _frame().fair.multiclass_report("g", y_pred="p", classes=["Low", "Zzz"])
    assert str(info.value) == E.ENUM_CLASSES.format(
        values="['Low', 'Zzz']", bad="['Zzz']", column="p",
        categories="['Low', 'Medium', 'High', 'VeryHigh']",
        wanted="['Low', 'Medium', 'High', 'VeryHigh', 'Zzz']")


def test_enum_prediction_keeps_its_classes_with_a_string_label() -> None:
    # a: predicted Low, High (true Low, Medium); b: predicted Low, Medium (true Low, Medium).
    # The classes are the Enum's, in its order, VeryHigh (no one) a row of zeros.
    r = _frame().fair.multiclass_report("g", y_pred="p", y_true="y", min_support=1)
    assert r.schema["class"] == RISK
    assert r.select("g", pl.col("class").cast(pl.String), "n_class", "selection_rate", "tpr",
                    "fpr").rows() == [
        # Low: a's one true Low predicted Low (tpr 1); its true Medium predicted High (fpr 0)
        ("a", "Low", 1, 0.5, 1.0, 0.0),
        # Medium: a's true Medium predicted High (tpr 0), nobody predicted Medium (fpr 0)
        ("a", "Medium", 0, 0.0, 0.0, 0.0),
        # High: nobody truly High (tpr null); of a's 2 rows not High, 1 predicted High
        ("a", "High", 1, 0.5, None, 0.5),
        ("a", "VeryHigh", 0, 0.0, None, 0.0),
        ("b", "Low", 1, 0.5, 1.0, 0.0),
        ("b", "Medium", 1, 0.5, 1.0, 0.0),
        ("b", "High", 0, 0.0, None, 0.0),
        ("b", "VeryHigh", 0, 0.0, None, 0.0)]
    # ordered: the share at or above each class in the Enum's order (a: Low, High; b: Low,
    # Medium), where the String label used to make the class column String and refuse it
    o = _frame().fair.multiclass_report("g", y_pred="p", y_true="y", min_support=1,
                                        ordered=True)
    assert o["selection_rate"].to_list() == [1.0, 0.5, 0.5, 0.0, 1.0, 0.5, 0.0, 0.0]
    # the same counts handed in as a table: the classes are the Enum's too
    t = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": ["Low", "Medium", "Low", "Medium"],
                      "y_pred": ["Low", "High", "Low", "Medium"], "n": [1, 1, 1, 1]}
                     ).with_columns(y_pred=pl.col("y_pred").cast(RISK))
    f = polars_fair.from_class_counts(t).multiclass_report(min_support=1).collect()
    assert f.schema["class"] == RISK
    assert f["n_class"].to_list() == [1, 0, 1, 0, 1, 1, 0, 0]


def test_label_outside_the_enum_is_a_typed_error() -> None:
    with pytest.raises(E.InvalidLabelError) as info:
        _frame().with_columns(y=pl.lit("Zzz")).fair.multiclass_report("g", y_pred="p",
                                                                      y_true="y")
    # the Enum prediction cannot hold Zzz, so classes= cannot take it: the Enum widened can
    # (issue 22 review: the advice to add it to classes= led to ENUM_CLASSES)
    assert str(info.value) == E.ENUM_OUTSIDE.format(
        column="y", role="y_true", count=4, enum="p", values="['Zzz']",
        categories="['Low', 'Medium', 'High', 'VeryHigh']",
        widened="['Low', 'Medium', 'High', 'VeryHigh', 'Zzz']", also="")


def test_two_enums_take_the_one_whose_categories_hold_the_others_in_order() -> None:
    # issue 22 re-review item 9: two Enums with different categories fell back to String
    # (classes sorted as text: High, Low, Medium). y_true's [Low, High] lies within y_pred's
    # [Low, Medium, High, VeryHigh] in the same order: the classes are y_pred's, in its order.
    df = _frame().with_columns(y=pl.Series(["Low", "High", "Low", "High"],
                                           dtype=pl.Enum(["Low", "High"])))
    r = df.fair.multiclass_report("g", y_pred="p", y_true="y", min_support=1)
    assert r.schema["class"] == RISK
    assert r.filter(pl.col("g") == "a")["class"].to_list() == ["Low", "Medium", "High",
                                                               "VeryHigh"]
    # a: (true, predicted) = (Low, Low), (High, High); High's one-vs-rest: tp 1 of 1 true
    high = r.filter((pl.col("g") == "a") & (pl.col("class") == "High"))
    assert (high["tpr"].item(), high["ppv"].item(), high["n_class"].item()) == (1.0, 1.0, 1)
    # the reverse (the label's Enum the wider): the label's categories, Medium a row of zeros
    rev = df.with_columns(p=pl.col("y"), y=pl.col("p"))
    r2 = rev.fair.multiclass_report("g", y_pred="p", y_true="y", min_support=1)
    assert r2.schema["class"] == RISK
    assert r2.filter(pl.col("g") == "b")["class"].to_list() == ["Low", "Medium", "High",
                                                                "VeryHigh"]
    assert r2.filter((pl.col("g") == "b") & (pl.col("class") == "Medium"))["n_class"].item() \
        == 0


def test_two_enums_of_no_one_order_are_refused_and_the_advice_works() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "p": ["x", "y", "y", "x"],
                       "y": ["x", "z", "x", "x"]}).with_columns(
        p=pl.col("p").cast(pl.Enum(["x", "y"])), y=pl.col("y").cast(pl.Enum(["x", "z"])))
    with pytest.raises(E.InvalidArgumentError) as info:
        df.fair.multiclass_report("g", y_pred="p", y_true="y")
    assert str(info.value) == E.ENUM_CLASSES_DIFFER.format(
        y_true="y", y_pred="p", true_categories="['x', 'z']", pred_categories="['x', 'y']",
        example="['x', 'y', 'z']")
    # the same on a class table handed in
    table = polars_fair.class_counts(df.with_columns(pl.col("p", "y").cast(pl.String)), "g",
                                     y_pred="p", y_true="y").frame.collect().with_columns(
        y_pred=pl.col("y_pred").cast(pl.Enum(["x", "y"])),
        y_true=pl.col("y_true").cast(pl.Enum(["x", "z"])))
    with pytest.raises(E.InvalidArgumentError, match="different categories"):
        polars_fair.from_class_counts(table)
    # following the advice: classes=['x', 'y', 'z'], in that order (z predicted by no one)
    r = df.fair.multiclass_report("g", y_pred="p", y_true="y", classes=["x", "y", "z"],
                                  min_support=1)
    assert r.filter(pl.col("g") == "a")["class"].to_list() == ["x", "y", "z"]
    # a: (true, predicted) = (x, x), (z, y): x's tpr 1/1; z's tpr 0/1, no one predicted z
    a = {c: row for c, row in zip(r.filter(pl.col("g") == "a")["class"],
                                  r.filter(pl.col("g") == "a").iter_rows(named=True),
                                  strict=True)}
    assert a["x"]["tpr"] == 1.0 and a["z"]["tpr"] == 0.0 and a["z"]["n_class"] == 0
    # an Enum of the same categories in another order has no one order either
    swapped = df.with_columns(y=pl.col("p").cast(pl.String).cast(pl.Enum(["y", "x"])))
    with pytest.raises(E.InvalidArgumentError, match="different categories"):
        swapped.fair.multiclass_report("g", y_pred="p", y_true="y")
