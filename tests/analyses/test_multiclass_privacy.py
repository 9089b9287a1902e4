"""Issue 22 (fresh-user review): no class error shows the values of a column that may identify.

A date of birth or a name given as ``y_true`` / ``y_pred`` made the class messages list them.
The rule is the attributes' (:func:`polars_fair.counting.boundary.identifying`): at least 8
distinct values with nearly one row each, or text with that many: counts and dtype only.
The outputs are scanned for the values by counting matches; no value is ever printed.
"""
from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers df.fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()
COMPAS = Path("../shared/data/compas/compas-scores-two-years.csv")
#: 40 rows, two groups, 40 made-up identifiers (one row each) and a two-class prediction.
IDS = [f"P{i:04d}" for i in range(40)]
FRAME = pl.DataFrame({"g": ["a", "b"] * 20, "id": IDS, "p": ["x", "y"] * 20,
                      "num": list(range(40))})


def _shown(text: str, values: list[str]) -> int:
    """How many of ``values`` occur in ``text`` (never which)."""
    return sum(v in text for v in values)


def test_an_identifier_as_y_true_is_counted_not_listed() -> None:
    with pytest.raises(E.InvalidLabelError) as err:
        FRAME.fair.multiclass_report("g", y_pred="p", y_true="id")
    # by hand: 40 distinct ids in 40 rows, String, each one row: refused as a class column by
    # the attributes' rule before the classes are compared (counts and dtype only)
    assert str(err.value) == E.CLASS_COLUMN_HIDDEN.format(
        column="id", role="y_true", dtype="String", levels=40, rows=40,
        why="each of the 40 values is a single row")
    assert _shown(str(err.value), IDS) == 0
    with pytest.raises(E.InvalidLabelError) as test:
        FRAME.lazy().fair.multiclass_test("g", y_pred="p", y_true="id").collect()
    assert str(test.value) == str(err.value)


@pytest.mark.parametrize(("column", "dtype"), [("id", "String"), ("num", "Int64")])
def test_an_identifier_as_the_classes_is_refused_with_counts_only(column: str,
                                                                  dtype: str) -> None:
    # by hand: 40 values, each on one row (the attributes' rule: all single from 3 values)
    expected = E.CLASS_COLUMN_HIDDEN.format(column=column, role="y_pred", dtype=dtype,
                                            levels=40, rows=40,
                                            why="each of the 40 values is a single row")
    for run in (lambda: FRAME.fair.multiclass_report("g", y_pred=column),
                lambda: polars_fair.class_counts(FRAME, "g", y_pred=column).frame.collect()):
        with pytest.raises(E.InvalidLabelError) as err:
            run()
        assert str(err.value) == expected
        assert _shown(str(err.value), IDS) == 0
    with pytest.raises(E.InvalidLabelError) as audit:  # the binary check's hidden message,
        FRAME.fair.bias_audit(["g"], y_pred=column)  # or the class one: counts either way
    assert "40 distinct values in 40 rows" in str(audit.value)
    assert "can identify people" in str(audit.value)
    assert _shown(str(audit.value), [*IDS, "P00"]) == 0


def test_an_identifier_outside_declared_classes_is_counted_not_listed() -> None:
    with pytest.raises(E.InvalidLabelError) as err:
        FRAME.fair.multiclass_report("g", y_pred="p", y_true="id", classes=["x", "y"])
    # refused by the attributes' rule before the declared classes are checked
    assert str(err.value) == E.CLASS_COLUMN_HIDDEN.format(
        column="id", role="y_true", dtype="String", levels=40, rows=40,
        why="each of the 40 values is a single row")
    assert _shown(str(err.value), IDS) == 0


def test_a_few_classes_are_still_listed() -> None:
    # 3 classes (< 8): nothing to hide, the list to copy stays
    df = pl.DataFrame({"g": ["a", "b"] * 6, "p": ["x", "y"] * 6, "t": ["u", "v", "w"] * 4})
    with pytest.raises(E.InvalidLabelError) as err:
        df.fair.multiclass_report("g", y_pred="p", y_true="t")
    assert "['u', 'v', 'w']" in str(err.value)


@pytest.fixture(scope="module")
def personal() -> dict[str, list[str]]:
    if not COMPAS.exists():
        pytest.skip("COMPAS not present")
    df = pl.read_csv(COMPAS, columns=["name", "dob"], infer_schema_length=0)
    return {c: df[c].drop_nulls().unique().to_list() for c in ("name", "dob")}


@pytest.mark.parametrize(("args", "column", "words"), [
    (["multiclass-report", "--by", "sex", "--y-pred", "score_text", "--y-true", "dob"], "dob",
     "5,452 distinct values"),
    (["multiclass-test", "--by", "sex", "--y-pred", "score_text", "--y-true", "dob"], "dob",
     "5,452 distinct values"),
    # more classes than the limit (1,000): refused by their count (item 2), no value either
    (["multiclass-report", "--by", "sex", "--y-pred", "dob"], "dob", "5,452 distinct values"),
    (["bias-audit", "--category", "sex", "--y-pred", "name"], "name", "7,158 distinct values"),
    (["multiclass-report", "--by", "sex", "--y-pred", "name"], "name", "7,158 distinct values"),
])
def test_compas_personal_columns_as_classes_show_no_value(
        personal: dict[str, list[str]], args: list[str], column: str, words: str) -> None:
    result = runner.invoke(app, [args[0], str(COMPAS), *args[1:]])
    text = result.output + result.stderr
    assert result.exit_code == 2
    assert _shown(text, personal[column]) == 0  # counted, never printed
    assert words in text and "not shown" in text
