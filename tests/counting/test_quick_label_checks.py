"""The label checks read a small table's values in Python when no query is needed.

``validate_labels`` answers from the column's values when Python's ``==`` is Polars' (integer,
string and Boolean columns with a ``pos_label`` of the same kind) and the column passes; else
the queries run and raise. The reference is the same check with the shortcut turned off: on
random label tables (nulls, extra values, mixed kinds) both give the same answer or the same
error, message included.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_fair import errors as E
from polars_fair.core.spec import resolve
from polars_fair.counting import boundary

VALUES: dict[str, tuple[Any, list[Any]]] = {
    "int": (pl.Int64, [0, 1, 2, None]),
    "str": (pl.String, ["yes", "no", "maybe", None]),
    "bool": (pl.Boolean, [True, False, None]),
}
POS: dict[str, list[Any]] = {"int": [1, 2, True], "str": ["yes", "maybe"],
                             "bool": [True, False]}


def _outcome(df: pl.DataFrame, a: Any) -> tuple[str, str]:
    try:
        boundary.validate_labels(df, a)
    except E.PolarsFairError as exc:
        return type(exc).__name__, str(exc)
    return "ok", ""


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(sorted(VALUES)), data=st.data())
def test_the_quick_path_answers_as_the_queries_do(kind: str, data: st.DataObject) -> None:
    dtype, values = VALUES[kind]
    pos = data.draw(st.sampled_from(POS[kind]))
    rows = data.draw(st.integers(1, 6))
    ys = data.draw(st.lists(st.sampled_from(values), min_size=rows, max_size=rows))
    ps = data.draw(st.lists(st.sampled_from(values), min_size=rows, max_size=rows))
    df = pl.DataFrame({"g": ["a"] * rows, boundary.Y: ys, boundary.P: ps, "n": [1] * rows},
                      schema={"g": pl.String, boundary.Y: dtype, boundary.P: dtype,
                              "n": pl.Int64})
    rows_frame = pl.DataFrame({"g": ["a"], "y": ys[:1], "p": ps[:1]},
                              schema={"g": pl.String, "y": dtype, "p": dtype})
    try:
        a = resolve(rows_frame.lazy().collect_schema(), "g", y_true="y", y_pred="p",
                    pos_label=pos)
    except E.PolarsFairError:
        return  # a pos_label of another kind: refused before any table exists
    quick = _outcome(df, a)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(boundary, "_plain_values", lambda *args: None)
        slow = _outcome(df, a)
    assert quick == slow
