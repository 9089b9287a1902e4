"""Enum predictions in the multiclass report (issue 22 re-review items 3 and 4).

Every expected value is counted by hand in the test.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair  # noqa: F401 - registers df.fair
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
        categories="['Low', 'Medium', 'High', 'VeryHigh']")
