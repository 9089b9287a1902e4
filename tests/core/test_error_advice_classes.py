"""The advice of the class errors, followed as written in Python (issue 22, fresh-user review).

Items 2 and 3: an Enum whose categories cannot hold a class (a label outside them, or
``classes=`` outside them) is advised a widened Enum, and following that advice runs instead of
meeting the next class error; ``classes=`` given as a set says that the order matters; classes
none of which occurs say so and list those that do; a class table of zero counts says that no
class occurs. Every expected count is worked out by hand in a comment.
"""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

#: g: a, b alternate; p: Low, Medium, High, Low repeating (12 rows: Low 6, Medium 3, High 3);
#: a (rows 0, 2, ..., 10) gets Low, High, Low, High, Low, High: Low 3, High 3, Medium 0;
#: b (rows 1, 3, ..., 11) gets Medium, Low, Medium, Low, Medium, Low: Low 3, Medium 3, High 0.
ROWS = pl.DataFrame({"g": ["a", "b"] * 6, "p": ["Low", "Medium", "High", "Low"] * 3})


def _advised(message: str, name: str) -> Any:
    """The value of the last ``name=`` a message advises: a Python literal or a Polars
    expression, read up to where its brackets close."""
    start = [m.end() for m in re.finditer(rf"(?<![\w.]){name}=", message)][-1]
    depth, quote, end = 0, "", start
    for end, ch in enumerate(message[start:], start):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
            if depth == 0 and not message.startswith(".", end + 1):  # no method follows
                end += 1
                break
    return eval(message[start:end], {"pl": pl})  # the advice as written


def _n_class(out: pl.DataFrame) -> dict[tuple[str, str], int]:
    return {(g, str(c)): n for g, c, n in out.select("g", "class", "n_class").rows()}


def test_unknown_classes_advice_lists_every_class_found_and_runs() -> None:
    # y_true holds "VeryHigh" too: the advice lists it, so following it meets no second error
    df = ROWS.with_columns(t=pl.Series(["Low", "VeryHigh"] * 6))
    with pytest.raises(E.InvalidLabelError) as err:
        df.fair.multiclass_report("g", y_pred="p", y_true="t", classes=["Low", "High"])
    # p's rows outside [Low, High]: the 3 Medium rows of b
    assert str(err.value) == E.UNKNOWN_CLASSES.format(
        column="p", role="y_pred", count=3, classes="['Low', 'High']", values="['Medium']",
        wanted="['Low', 'High', 'Medium', 'VeryHigh']")
    classes = _advised(str(err.value), "classes")
    out = df.fair.multiclass_report("g", y_pred="p", y_true="t", classes=classes,
                                    min_support=1)
    assert out.filter(pl.col("g") == "a")["class"].to_list() == classes
    assert _n_class(out) == {("a", "Low"): 3, ("a", "High"): 3, ("a", "Medium"): 0,
                             ("a", "VeryHigh"): 0, ("b", "Low"): 3, ("b", "High"): 0,
                             ("b", "Medium"): 3, ("b", "VeryHigh"): 0}


def test_a_misspelt_class_gets_did_you_mean_and_the_advised_list_replaces_it() -> None:
    # fix 22d item 3: Meduim given never occurs while Medium (unlisted) does: the advice was
    # classes=['Low', 'Meduim', 'High', 'Medium'], keeping the typo; now Meduim -> Medium
    with pytest.raises(E.InvalidLabelError) as err:
        ROWS.fair.multiclass_report("g", y_pred="p", classes=["Low", "Meduim", "High"])
    # p's rows outside the list: the 3 Medium rows of b
    assert str(err.value) == E.UNKNOWN_CLASSES_TYPO.format(
        column="p", role="y_pred", count=3, classes="['Low', 'Meduim', 'High']",
        values="['Medium']", absent="Meduim", hint="Medium",
        wanted="['Low', 'Medium', 'High']")
    assert "did you mean Medium?" in str(err.value)
    classes = _advised(str(err.value), "classes")
    assert classes == ["Low", "Medium", "High"]
    out = ROWS.fair.multiclass_report("g", y_pred="p", classes=classes, min_support=1)
    assert out.filter(pl.col("g") == "a")["class"].to_list() == ["Low", "Medium", "High"]
    assert _n_class(out) == {("a", "Low"): 3, ("a", "Medium"): 0, ("a", "High"): 3,
                             ("b", "Low"): 3, ("b", "Medium"): 3, ("b", "High"): 0}


def test_classes_none_of_which_occurs_say_so_and_list_those_held() -> None:
    with pytest.raises(E.InvalidLabelError) as err:
        ROWS.fair.multiclass_report("g", y_pred="p", classes=["low", "high"])
    assert str(err.value) == E.CLASSES_ABSENT.format(
        classes="['low', 'high']", column="p", role="y_pred", count=12,
        values="['High', 'Low', 'Medium']", wanted="['High', 'Low', 'Medium']")
    out = ROWS.fair.multiclass_report("g", y_pred="p", classes=_advised(str(err.value),
                                                                        "classes"),
                                      min_support=1)
    assert out.filter(pl.col("class") == "Medium")["n_class"].to_list() == [0, 3]
    # on a class table handed in, and in bias_audit: the same message
    table = ROWS.fair.class_counts("g", y_pred="p").frame.collect()
    with pytest.raises(E.InvalidLabelError, match="none of classes="):
        polars_fair.from_class_counts(table, classes=["x", "y"]).frame.collect()
    with pytest.raises(E.InvalidLabelError, match="none of classes="):
        ROWS.fair.bias_audit("g", y_pred="p", classes=["x", "y"])


def test_one_class_held_outside_classes_advises_both_not_one_class() -> None:
    # every row High, none in classes=: "pass the classes it holds" would be one class (an
    # error of its own); the advice is the classes given, then High
    df = pl.DataFrame({"g": ["a", "b"], "p": ["High", "High"]})
    with pytest.raises(E.InvalidLabelError) as err:
        df.fair.multiclass_report("g", y_pred="p", classes=["Low", "Medium"])
    classes = _advised(str(err.value), "classes")
    assert classes == ["Low", "Medium", "High"]
    out = df.fair.multiclass_report("g", y_pred="p", classes=classes, min_support=1)
    assert out["n_class"].to_list() == [0, 0, 1, 0, 0, 1]  # a: Low 0, Medium 0, High 1; b: same


@pytest.mark.parametrize("given", [{"Low", "Medium", "High"}, frozenset({"High", "Low"})])
def test_classes_as_a_set_say_that_the_order_matters_and_the_list_runs(given: Any) -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        ROWS.fair.multiclass_report("g", y_pred="p", classes=given)
    text = str(err.value)
    assert text.startswith(f"classes= is a {type(given).__name__}, which has no order")
    assert "the order of the classes matters" in text and "pass a list" in text
    example = _advised(text, "classes")
    assert example == sorted(given)  # the set's classes, sorted: its order is not theirs
    # the other ways in refuse it alike, at once
    with pytest.raises(E.InvalidArgumentError, match="which has no order"):
        ROWS.fair.bias_audit("g", y_pred="p", classes=given)
    with pytest.raises(E.InvalidArgumentError, match="which has no order"):
        ROWS.fair.class_counts("g", y_pred="p").multiclass_report(classes=given)
    if len(given) == 3:  # followed: the rows in the list's order
        out = ROWS.fair.multiclass_report("g", y_pred="p", classes=example, min_support=1)
        assert out.filter(pl.col("g") == "a")["class"].to_list() == example


def test_a_class_table_of_zero_counts_says_no_class_occurs() -> None:
    table = pl.DataFrame({"g": ["a", "a", "b"], "y_pred": ["y", "x", "x"], "n": [0, 0, 0]})
    with pytest.raises(E.EmptyFrameError) as err:
        polars_fair.from_class_counts(table).multiclass_report(min_support=1).collect()
    # 3 table rows, classes x and y (sorted), all of n 0
    assert str(err.value) == E.CLASS_COUNTS_ZERO.format(rows=3, values="['x', 'y']")
    # one row of a class: the audit runs
    one = table.with_columns(n=pl.Series([0, 2, 1]))
    out = polars_fair.from_class_counts(one, classes=["x", "y"]).multiclass_report(
        min_support=1).collect()
    assert out["n_class"].to_list() == [2, 0, 1, 0]  # a: x 2, y 0; b: x 1, y 0


# --------------------------------------------------- Enum classes (item 2)
RISK = pl.Enum(["Low", "Medium", "High", "Unused"])


def test_a_label_outside_the_enum_prediction_is_advised_a_wider_enum_that_runs() -> None:
    # y_pred an Enum with an unused category; the label holds "Zzz", which it cannot hold.
    # The advice used to be "add them to classes=", which then failed as ENUM_CLASSES.
    df = ROWS.with_columns(p=pl.col("p").cast(RISK), t=pl.Series(["Low", "Zzz"] * 6))
    with pytest.raises(E.InvalidLabelError) as err:
        df.fair.multiclass_report("g", y_pred="p", y_true="t")
    text = str(err.value)
    assert text == E.ENUM_OUTSIDE.format(
        column="t", role="y_true", count=6, enum="p", values="['Zzz']",
        categories="['Low', 'Medium', 'High', 'Unused']",
        widened="['Low', 'Medium', 'High', 'Unused', 'Zzz']", also="")
    y_pred = _advised(text, "y_pred")
    out = df.fair.multiclass_report("g", y_pred=y_pred, y_true="t", min_support=1)
    # the Enum's order, Zzz last; Unused and Zzz predicted by no one
    assert out.filter(pl.col("g") == "a")["class"].cast(pl.String).to_list() == [
        "Low", "Medium", "High", "Unused", "Zzz"]
    # b: p Medium, Low, Medium, Low, Medium, Low; t Zzz on every b row: Zzz's tpr 0 / 6
    zzz = out.filter((pl.col("g") == "b") & (pl.col("class") == "Zzz"))
    assert (zzz["n_class"].item(), zzz["tpr"].item()) == (0, 0.0)


def test_with_classes_given_the_enum_advice_keeps_them_and_runs() -> None:
    df = ROWS.with_columns(p=pl.col("p").cast(RISK), t=pl.Series(["Low", "Zzz"] * 6))
    with pytest.raises(E.InvalidLabelError) as err:
        df.fair.multiclass_report("g", y_pred="p", y_true="t",
                                  classes=["Low", "Medium", "High"])
    text = str(err.value)
    classes = _advised(text, "classes")
    assert classes == ["Low", "Medium", "High", "Zzz"]  # the classes given, then Zzz
    out = df.fair.multiclass_report("g", y_pred=_advised(text, "y_pred"), y_true="t",
                                    classes=classes, min_support=1)
    assert out.filter(pl.col("g") == "b")["n_class"].to_list() == [3, 3, 0, 0]


def test_classes_the_enum_cannot_hold_are_advised_a_wider_enum_that_runs() -> None:
    df = ROWS.with_columns(p=pl.col("p").cast(RISK))
    with pytest.raises(E.InvalidArgumentError) as err:
        df.fair.multiclass_report("g", y_pred="p", classes=["High", "Medium", "Low", "Top"])
    text = str(err.value)
    assert text == E.ENUM_CLASSES.format(
        values="['High', 'Medium', 'Low', 'Top']", bad="['Top']", column="p",
        categories="['Low', 'Medium', 'High', 'Unused']",
        wanted="['Low', 'Medium', 'High', 'Unused', 'Top']")
    # followed with the same classes, in the wanted order (not the Enum's): no error, and
    # ordered=True reads them from High down as given: the share at or above each
    out = df.fair.multiclass_report("g", y_pred=_advised(text, "y_pred"), min_support=1,
                                    classes=["High", "Medium", "Low", "Top"], ordered=True)
    # a: High 3, Low 3 of 6; at or above High (index 0): all 6; Medium: Medium, Low, Top: 3;
    # Low: 3; Top: 0
    assert out.filter(pl.col("g") == "a")["selection_rate"].to_list() == [1.0, 0.5, 0.5, 0.0]


def test_an_enum_table_handed_in_takes_the_advice_in_with_columns() -> None:
    table = pl.DataFrame({"g": ["a", "a", "b"], "y_true": ["Low", "Zzz", "Low"],
                          "y_pred": ["Low", "High", "High"], "n": [2, 1, 3]}).with_columns(
        y_pred=pl.col("y_pred").cast(RISK))
    with pytest.raises(E.InvalidLabelError) as err:
        polars_fair.from_class_counts(table).frame.collect()
    fixed = table.with_columns(y_pred=_advised(str(err.value), "y_pred"))
    out = polars_fair.from_class_counts(fixed).multiclass_report(min_support=1).collect()
    # a: Low 2 of 3, High 1 of 3; b: High 3 of 3
    assert out.filter(pl.col("class") == "High")["n_class"].to_list() == [1, 3]


def test_no_common_classes_advice_leave_y_true_out_runs() -> None:
    df = ROWS.with_columns(t=pl.Series(["x", "y"] * 6))
    with pytest.raises(E.InvalidLabelError) as err:
        df.fair.multiclass_report("g", y_pred="p", y_true="t")
    assert "or leave y_true out" in str(err.value)
    out = df.fair.multiclass_report("g", y_pred="p", min_support=1)
    assert _n_class(out)[("a", "High")] == 3


def test_ordered_text_classes_are_advised_in_the_order_of_an_enum_label() -> None:
    # p (text) beside t, an Enum [bad, ok, good, unused]: the classes are read as text, and
    # ordered=True used to advise them sorted as text (bad, good, ok: not their order)
    df = pl.DataFrame({"g": ["a", "b"] * 6, "p": ["bad", "ok", "good"] * 4,
                       "t": ["ok", "good"] * 6}).with_columns(
        t=pl.col("t").cast(pl.Enum(["bad", "ok", "good", "unused"])))
    with pytest.raises(E.InvalidArgumentError) as err:
        df.fair.multiclass_report("g", y_pred="p", y_true="t", ordered=True)
    assert str(err.value) == E.ORDER_NEEDS_CLASSES.format(
        column="p", dtype=pl.String, example="['bad', 'ok', 'good']", guess=E.ORDER_OF_LABEL,
        values="['bad', 'good', 'ok']")  # unused: held by no row, left out
    classes = _advised(str(err.value), "classes")
    out = df.fair.multiclass_report("g", y_pred="p", y_true="t", ordered=True, classes=classes,
                                    min_support=1)
    # a (rows 0, 2, ..., 10): bad, good, ok, bad, good, ok; at or above bad 6/6, ok 4/6,
    # good 2/6
    assert out.filter(pl.col("g") == "a")["selection_rate"].to_list() == [1.0, 4 / 6, 2 / 6]
