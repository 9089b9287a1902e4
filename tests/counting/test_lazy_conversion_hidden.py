"""A lazy (or streaming) result whose expression argument fails on the rows shows no value.

Issue 19, fourth review, item 1: ``lf.fair.report(..., y_pred=pl.col("name").cast(pl.Int32))``
raised Polars' own error at ``collect()``, which quotes the values (names, dates of birth); the
eager path and the command line already gave ``CONVERSION_FAILED``. Every table built over
bound expressions (:func:`polars_fair.counting.boundary.values_hidden`) now gives it, on every
engine of ``collect``. The names here are made up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E

FAKE = ["Ann Madeup", "Bo Fakeperson", "Cy Nobody", "Di Invented"]
ROWS = pl.DataFrame({"name": FAKE * 2, "g": ["a", "b"] * 4, "y_true": [1, 0, 1, 1] * 2,
                     "y_pred": [1, 1, 0, 1] * 2, "p": [0.5] * 8})
TO_INT = pl.col("name").cast(pl.Int32)
TO_FLOAT = pl.col("name").cast(pl.Float64)
HALVES = {"r": {"a": pl.col("p"), "b": 1 - pl.col("p")}}

# (the call on a LazyFrame, the argument the message must name, the target dtype)
CALLS: dict[str, tuple[Callable[[pl.LazyFrame], Any], str, str]] = {
    "report y_pred": (lambda lf: lf.fair.report("g", y_pred=TO_INT), "y_pred", "i32"),
    "report by": (lambda lf: lf.fair.report(TO_INT), "by", "i32"),
    "summary y_true": (lambda lf: lf.fair.summary("g", y_true=TO_INT), "y_true", "i32"),
    "weights": (lambda lf: lf.fair.report("g", sample_weight=TO_FLOAT), "sample_weight", "f64"),
    "abroca": (lambda lf: lf.fair.abroca("g", y_score=TO_FLOAT), "y_score", "f64"),
    "calibration": (lambda lf: lf.fair.calibration("g", y_score=TO_FLOAT), "y_score", "f64"),
    "divergence": (lambda lf: lf.fair.divergence(["g"], y_pred=TO_INT), "y_pred", "i32"),
    "continuous": (lambda lf: lf.fair.continuous_report("g", y_pred=TO_FLOAT), "y_pred", "f64"),
    "compare": (lambda lf: lf.fair.compare("g", baseline=TO_INT, y_pred="y_pred"), "baseline",
                "i32"),
    "multiclass": (lambda lf: lf.fair.multiclass_report("g", y_pred=TO_INT), "y_pred", "i32"),
    "bias_audit": (lambda lf: lf.fair.bias_audit("g", y_pred=TO_INT), "y_pred", "i32"),
    "membership": (lambda lf: lf.fair.report(membership={"r": {"a": TO_FLOAT, "b": "p"}}),
                   "membership['r']['a']", "f64"),
    "proxy_report": (lambda lf: lf.fair.proxy_report(membership=HALVES, y_pred=TO_INT),
                     "y_pred", "i32"),
    "membership_calibration": (
        lambda lf: lf.fair.membership_calibration(membership=HALVES, known=TO_INT), "known",
        "i32"),
}


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
@pytest.mark.parametrize("case", sorted(CALLS))
def test_a_lazy_conversion_failure_names_the_argument_and_no_value(case: str,
                                                                   engine: str) -> None:
    call, role, target = CALLS[case]
    plan = call(ROWS.lazy())
    assert isinstance(plan, pl.LazyFrame)
    with pytest.raises(E.InvalidInputError) as err:
        plan.collect(engine=engine)  # type: ignore[call-overload]
    text = str(err.value)
    for name in [*FAKE, "Ann", "Madeup"]:
        assert name not in text, text
    # every value of 'name' is text that no number spells, so every value read failed
    assert text.startswith(f"{role}: ") and "of column 'name' could not be converted from " \
        f"str to {target} (the values are not shown: they may identify people)" in text, text


def test_the_eager_twin_names_a_positional_by_too() -> None:
    with pytest.raises(E.InvalidInputError) as err:
        ROWS.fair.report(TO_INT)
    assert str(err.value).startswith("by: "), str(err.value)
    assert "Ann" not in str(err.value)


def test_a_plan_of_column_names_is_the_plan_it_was() -> None:
    # no expression argument: nothing to hide, the count table is not read through a source
    assert "PYTHON SCAN" not in ROWS.lazy().fair.counts("g").frame.explain()
    bound = ROWS.lazy().fair.counts("g", y_pred=pl.col("y_pred").cast(pl.Int32)).frame
    assert bound.explain().startswith("PYTHON SCAN")
    # and a bound expression that converts fine gives the figures of the column itself:
    # y_pred as Int32 is the same 0/1 column, so g=a has y [1, 1, 1, 1] and p [1, 0, 1, 0]
    cast = ROWS.lazy().fair.confusion("g", y_pred=pl.col("y_pred").cast(pl.Int32))
    rows = cast.collect(engine="streaming").select("g", "tp", "fp", "fn", "tn").rows()
    assert rows == [("a", 2, 0, 2, 0), ("b", 2, 2, 0, 0)]


# the re-review's kind: other conversions whose Polars error quotes the values
# (str.to_integer: 'strict integer parsing failed for N value(s): ["Ann Madeup", ...]';
# str.json_decode: the first character of the value)
@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize(("expr", "target"), [
    (pl.col("name").str.to_integer(), "integer"),
    (pl.col("name").str.json_decode(pl.Int64), "JSON"),
])
def test_parse_failures_name_the_argument_and_no_value(expr: pl.Expr, target: str,
                                                       lazy: bool) -> None:
    with pytest.raises(E.InvalidInputError) as err:
        out = (ROWS.lazy() if lazy else ROWS).fair.report("g", y_pred=expr)
        if lazy:
            out.collect()
    message = str(err.value)
    assert message.startswith("y_pred: ")
    assert f"of column 'name' could not be converted from text to {target}" in message
    assert not any(part in message for name in FAKE for part in name.split())
