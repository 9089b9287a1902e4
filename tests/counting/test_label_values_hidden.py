"""A label column whose values may identify people is refused with counts, never values.

Issue 25 (re-review): ``compare(..., baseline="name", pos_label="Male")`` on COMPAS printed five
real names ("found other values [...]"). The rule is the attributes' (docs/guarantees.md):
too fine to be an attribute (boundary.identifying) gives the dtype and counts only.
"""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from tests.conftest import COMPAS_CSV, require

# 12 rows, 10 distinct made-up names (not from any data set): 10 >= 8 values
NAMES = [f"Person{i:02d}" for i in range(10)] + ["Person00", "Person01"]
ROWS = pl.DataFrame({"g": ["a", "b"] * 6, "name": NAMES, "sex": ["Male", "Female"] * 6,
                     "t": [dt.date(2024, 1, 1)] * 12})
# what was counted, by hand: 10 values in 12 rows, 2 x 10 > 12
HIDDEN = ("it is a String column with 10 distinct values in 12 rows: fewer than two rows per "
          "value on average (values not shown: such a column can identify people)")


def _message(call: object) -> str:
    with pytest.raises(E.InvalidLabelError) as err:
        call()  # type: ignore[operator]
    text = str(err.value)
    assert "Person" not in text
    return text


@pytest.mark.parametrize(("role", "call"), [
    ("baseline", lambda: ROWS.fair.compare("g", y_pred="sex", baseline="name",
                                           pos_label="Male")),
    ("y_pred", lambda: ROWS.fair.compare("g", y_pred="name", baseline="sex",
                                         pos_label="Male")),
    ("y_true", lambda: ROWS.fair.report("g", y_pred="sex", y_true="name", pos_label="Male")),
    ("y_pred", lambda: ROWS.fair.monitor("g", time="t", every="1w", y_pred="name",
                                         pos_label="Male")),
])
def test_a_name_column_as_a_label_shows_counts_not_values(role: str, call: object) -> None:
    text = _message(call)
    assert text.startswith(f"column 'name' ({role}) must hold pos_label='Male'")
    assert HIDDEN in text


def test_the_same_on_duckdb() -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(ROWS.to_arrow())
    text = _message(lambda: polars_fair.paired_counts(
        rel, "g", y_pred="sex", baseline="name", pos_label="Male").compare().collect())
    assert HIDDEN in text


def test_a_few_classes_are_still_shown() -> None:
    # 3 text values (< 8) in 12 rows: a multiclass prediction, its values help
    df = ROWS.with_columns(cls=pl.Series(["lo", "mid", "hi"] * 4))
    with pytest.raises(E.InvalidLabelError, match=r"found other values \['hi', 'mid'\]"):
        df.fair.report("g", y_pred="cls", y_true=None, pos_label="lo")


def test_nearly_one_row_per_value_of_a_number_is_hidden() -> None:
    # 9 distinct ids in 10 rows: 2 * 9 > 10
    df = pl.DataFrame({"g": ["a", "b"] * 5, "id": [101, 102, 103, 104, 105, 106, 107, 108,
                                                   109, 101]})
    with pytest.raises(E.InvalidLabelError) as err:
        df.fair.report("g", y_pred="id", y_true=None, pos_label=101)
    assert "Int64 column with 9 distinct values in 10 rows" in str(err.value)
    assert "102" not in str(err.value)


def test_compas_names_are_never_printed() -> None:
    compas = pl.read_csv(require(COMPAS_CSV), columns=["name", "race", "sex"])
    names = set(compas["name"].to_list())
    with pytest.raises(E.InvalidLabelError) as err:
        compas.fair.compare("race", y_pred="sex", baseline="name", pos_label="Male")
    assert not any(n in str(err.value) for n in names)
    assert "(values not shown" in str(err.value)
