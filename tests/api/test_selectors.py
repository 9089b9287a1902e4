"""Selectors wherever a column is accepted (issue 22's fresh-user review, item 4).

A selector that matches no column reached the group-by as a raw ``KeyError`` ('v', 'zz',
'__pf_p'); now a typed error naming the argument. A selector that matches exactly one column
(``cs.starts_with("pre")``) was refused as several columns ("one of ['p']"); now it is that
column: the result equals the call with the column's name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import polars.selectors as cs
import pytest
from polars.testing import assert_frame_equal

from polars_fair import errors as E

DF = pl.DataFrame({"g": ["a", "b", "a", "b", "a", "b"], "v": [1.0, 2.0, 3.0, 4.0, 2.5, 3.5],
                   "p": ["x", "y", "x", "y", "y", "x"], "s": [0.1, 0.5, 0.7, 0.9, 0.3, 0.6],
                   "t": [0, 1, 1, 0, 1, 0]})
NONE = cs.by_name("zz", require_all=False)
#: call name -> (the call with a column argument, the argument's name, the column)
CALLS: dict[str, tuple[Callable[[Any], Any], str, str]] = {
    "continuous_report y_pred": (
        lambda c: DF.fair.continuous_report("g", y_pred=c, min_support=1), "y_pred", "v"),
    "continuous_report by": (
        lambda c: DF.fair.continuous_report(c, y_pred="v", min_support=1), "by", "g"),
    "multiclass_report y_pred": (
        lambda c: DF.fair.multiclass_report("g", y_pred=c, min_support=1), "y_pred", "p"),
    "report by": (lambda c: DF.fair.report(c, y_true="t", y_pred="t", min_support=1), "by", "g"),
    "report y_pred": (
        lambda c: DF.fair.report("g", y_true="t", y_pred=c, min_support=1), "y_pred", "t"),
    "abroca y_score": (lambda c: DF.fair.abroca("g", y_true="t", y_score=c), "y_score", "s"),
    "compare y_pred": (
        lambda c: DF.fair.compare("g", y_true="t", y_pred=c, baseline="t"), "y_pred", "t"),
}


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_selector_of_no_column_is_a_typed_error(call: str) -> None:
    run, role, _ = CALLS[call]
    with pytest.raises(E.InvalidArgumentError) as info:
        run(NONE)
    assert str(info.value) == E.SELECTS_NO_COLUMN.format(
        role=role, expr=NONE, columns="['g', 'v', 'p', 's', ... (1 more)]")


@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_selector_of_one_column_is_that_column(call: str) -> None:
    run, _, column = CALLS[call]
    assert_frame_equal(run(cs.starts_with(column)), run(column))


def test_a_selector_of_several_columns_keeps_its_advice() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        DF.fair.continuous_report("g", y_pred=cs.by_name("v", "s"))
    assert "y_pred takes one column" in str(info.value)
