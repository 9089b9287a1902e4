"""Errors about label and class columns follow the privacy rule of attributes (issue 20, 20a).

One rule (:func:`polars_fair.counting.boundary.identifying`) decides whether an error may show
the values of ``y_true``, ``y_pred``, a baseline, ``pos_label``'s column or ``classes``: the
rule that refuses an attribute (:func:`~polars_fair.counting.boundary.fineness`: 3 or more
values that are each a single row, or 8 or more with fewer than two rows each on average or
half of them on a single row; a float with more than 50 values). Before, labels were hidden
from 8 values only, so a filter that left three people printed their names or dates of birth
(``--where 'id <= 4' --y-true name``), and a multiclass audit by a name printed every name.
COMPAS's names and dates of birth are read here only to count how many appear in a message
(which must be none); they are never printed.
"""

from __future__ import annotations

import json

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.counting.boundary import fineness, identifying
from tests.conftest import COMPAS_CSV, require

runner = CliRunner()

#: Three made-up people, one row each, in two groups of an accepted attribute.
THREE = pl.DataFrame({"g": ["a", "a", "b"], "who": ["Ann Madeup", "Bob Madeup", "Cy Madeup"],
                      "y_true": [1, 0, 1], "y_pred": [1, 1, 0], "cls": ["lo", "hi", "lo"]})
#: What was counted, by hand: 3 distinct values in 3 rows, each a single row.
COUNTED = "3 distinct values in 3 rows: each of the 3 values is a single row"


def _refused(call: object, error: type[E.PolarsFairError] = E.InvalidLabelError) -> str:
    with pytest.raises(error) as err:
        call()  # type: ignore[operator]
    text = str(err.value)
    assert "Madeup" not in text and "Madeup" not in (err.value.cli_message or "")
    return text


def test_one_rule_decides_labels_and_attributes() -> None:
    # the label rule is the attribute rule: same counts, same reason, on the same table
    three = pl.DataFrame({"v": ["p", "q", "r"], "n": [1, 1, 1]})
    assert identifying(three, "v") == fineness(three, ["v"], 3)
    assert identifying(three, "v").why == "each of the 3 values is a single row"
    # one value on two rows: 3 values, not all single, fewer than 8: shown (as an attribute
    # of these rows would be accepted)
    assert identifying(pl.DataFrame({"v": ["p", "q", "r"], "n": [1, 1, 2]}), "v").why is None
    # 10 text values on 3 rows each (30 rows): an accepted attribute, so shown
    ten = pl.DataFrame({"v": [f"c{i}" for i in range(10)], "n": [3] * 10})
    assert identifying(ten, "v").why is None
    # 60 floats on 3 rows each: more than 50 values of a number, as a float attribute
    floats = pl.DataFrame({"v": [i / 10 for i in range(60)], "n": [3] * 60})
    assert identifying(floats, "v").why == "more than 50 values of a number"
    # 8 values, 4 of them single (half or more), in 40 rows
    half = pl.DataFrame({"v": list("abcdefgh"), "n": [1] * 4 + [9] * 4})
    assert identifying(half, "v").why == "4 of the 8 values (half or more) are a single row each"


@pytest.mark.parametrize(("role", "kw"), [
    ("y_true", {"y_true": "who", "y_pred": "who", "pos_label": "x"}),
    ("y_pred", {"y_true": None, "y_pred": "who", "pos_label": "x"}),
])
def test_three_one_row_values_of_a_binary_label_are_hidden(role: str,
                                                           kw: dict[str, object]) -> None:
    text = _refused(lambda: THREE.fair.report("g", **kw))
    assert text == E.TOO_MANY_VALUES_HIDDEN.format(
        column="who", role=role, pos_label="x", dtype="String", levels=3, rows=3,
        why="each of the 3 values is a single row")


@pytest.mark.parametrize(("role", "kw"), [
    ("label", {"y_true": "who", "y_pred": "y_pred"}),
    ("prediction", {"y_true": "y_true", "y_pred": "who"}),
])
def test_a_text_label_beside_numbers_hides_three_one_row_values(role: str,
                                                                kw: dict[str, object]) -> None:
    text = _refused(lambda: THREE.fair.report("g", **kw))
    assert f"turn the {role} into a Boolean first by comparing 'who' with its positive " \
           f"value; its values are not shown ({COUNTED}; they may identify people)" in text


def test_a_pos_label_of_another_type_gets_no_example_from_such_a_column() -> None:
    # pos_label=1 (the default) for a text column: the example would be one of its values
    text = _refused(lambda: THREE.fair.report("g", y_true="who", y_pred="who"))
    assert text.startswith("pos_label=1 (int) cannot be compared with column 'who'")
    assert "its values" not in text and text.endswith("for example pos_label='1'")


@pytest.mark.parametrize(("role", "kw"), [
    ("y_pred", {"y_pred": "who"}),
    ("y_pred", {"y_pred": "who", "classes": ["x", "y"]}),
    ("y_pred", {"y_pred": "who", "ordered": True}),
    ("y_true", {"y_pred": "cls", "y_true": "who"}),
    ("y_pred", {"y_pred": "who", "y_true": "y_true"}),
])
def test_a_multiclass_audit_refuses_such_a_class_column(role: str,
                                                        kw: dict[str, object]) -> None:
    ordered = kw.pop("ordered", False)
    text = _refused(lambda: polars_fair.class_counts(THREE, "g", **kw).multiclass_report(
        min_support=1, ordered=ordered).collect())
    assert text == E.CLASS_COLUMN_HIDDEN.format(
        column="who", role=role, dtype="String", levels=3, rows=3,
        why="each of the 3 values is a single row")


def test_bias_audit_and_duckdb_refuse_it_the_same_way() -> None:
    want = E.CLASS_COLUMN_HIDDEN.format(column="who", role="y_pred", dtype="String", levels=3,
                                        rows=3, why="each of the 3 values is a single row")
    assert _refused(lambda: THREE.fair.bias_audit("g", y_pred="who")) == want
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(THREE.to_arrow())
    assert _refused(lambda: polars_fair.class_counts(rel, "g", y_pred="who")
                    .multiclass_report(min_support=1).collect()) == want
    assert _refused(lambda: polars_fair.counts(rel, "g", y_true="who", y_pred="who",
                                               pos_label="x").report().collect()) \
        == E.TOO_MANY_VALUES_HIDDEN.format(column="who", role="y_true", pos_label="x",
                                           dtype="String", levels=3, rows=3,
                                           why="each of the 3 values is a single row")


def test_a_column_that_could_be_an_attribute_still_shows_a_few_values() -> None:
    # lo, hi, mid and lo again (THREE's first row): "lo" on two rows, so an attribute of
    # these values would be accepted; besides pos_label "mid": hi and lo
    with pytest.raises(E.InvalidLabelError, match=r"found other values \['hi', 'lo'\]"):
        THREE.with_columns(cls=pl.Series(["lo", "hi", "mid"])).vstack(
            THREE.head(1)).fair.report("g", y_true=None, y_pred="cls", pos_label="mid")


def _personal() -> set[str]:
    """COMPAS's names and dates of birth (counted in messages, never printed)."""
    raw = pl.read_csv(require(COMPAS_CSV), columns=["name", "dob"], infer_schema_length=0)
    return {v for c in ("name", "dob") for v in raw[c].to_list() if v}


def _found(text: str, values: set[str]) -> int:
    return sum(1 for v in values if v in text)


@pytest.mark.data
@pytest.mark.parametrize(("args", "counted"), [
    (["report", "--y-true", "dob", "--y-pred", "is_recid"],
     "5,452 distinct values in 7,214 rows: fewer than two rows per value on average"),
    (["report", "--y-true", "name", "--y-pred", "is_recid"],
     "7,158 distinct values in 7,214 rows: fewer than two rows per value on average"),
    (["report", "--y-true", "is_recid", "--y-pred", "name"],
     "7,158 distinct values in 7,214 rows: fewer than two rows per value on average"),
    (["report", "--y-true", "name", "--y-pred", "name", "--pos-label", "x"],
     "7,158 distinct values in 7,214 rows: fewer than two rows per value on average"),
    # the where leaves three defendants, one row each
    (["report", "--where", "id <= 4", "--y-true", "name", "--y-pred", "is_recid"], COUNTED),
    (["report", "--where", "id <= 4", "--y-true", "dob", "--y-pred", "name",
      "--pos-label", "x"], COUNTED),
    (["multiclass-report", "--y-pred", "name"],
     "7,158 distinct values in 7,214 rows: fewer than two rows per value on average"),
    (["multiclass-report", "--where", "id <= 4", "--y-pred", "name", "--classes", "a,b"],
     COUNTED),
    (["multiclass-report", "--where", "id <= 4", "--y-pred", "dob", "--ordered"], COUNTED),
    (["multiclass-report", "--where", "id <= 4", "--y-true", "name", "--y-pred", "score_text"],
     COUNTED),
    (["multiclass-report", "--where", "id <= 4", "--y-true", "is_recid", "--y-pred", "name"],
     COUNTED),
    (["bias-audit", "--category", "race", "--where", "id <= 4", "--y-pred", "dob"], COUNTED),
])
def test_compas_label_errors_show_counts_never_names_or_birth_dates(
        args: list[str], counted: str) -> None:
    personal = _personal()
    command, *flags = args
    result = runner.invoke(app, [command, str(require(COMPAS_CSV)),
                                 *([] if command == "bias-audit" else ["--by", "race"]),
                                 *flags, "--format", "json"])
    assert result.exit_code == 2, command
    message = json.loads(result.stdout)["message"]
    assert counted in message
    assert _found(message, personal) == 0
