"""A failed conversion is counted over the whole column and typed for every cast (issue 19,
fifth review, items 2 and 6).

Polars counts the values a cast could not convert in one chunk of the column: a 12-row frame
of two 6-row chunks read "6 of 6 values". Polars also refuses some casts outright (text to a
date: ``pl.col("d").cast(pl.Date)``) with its own untyped error.

The frame, by hand: each 6-row chunk holds ``d`` = 2020-01-01, zz, 2020-01-02, q, 2020-01-03,
r, so over both chunks 6 of 12 values are no date and 12 of 12 no integer.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair  # noqa: F401 - registers df.fair
from polars_fair.errors import InvalidInputError


def _two_chunks() -> pl.DataFrame:
    six = pl.DataFrame({"g": ["a", "b"] * 3, "y_true": [1, 0] * 3, "y_pred": [1, 0, 0, 1, 1, 0],
                        "d": ["2020-01-01", "zz", "2020-01-02", "q", "2020-01-03", "r"],
                        "p": ["1", "x", "0", "y", "1", "0"]})
    df = pl.concat([six, six], rechunk=False)
    assert df.n_chunks() == 2
    return df


MODES = ["eager", "lazy", "streaming"]


def _run(mode: str, **kwargs: object) -> None:
    df = _two_chunks()
    if mode == "eager":
        df.fair.report(**kwargs)  # type: ignore[arg-type]
    else:
        df.lazy().fair.report(**kwargs).collect(  # type: ignore[arg-type]
            engine="streaming" if mode == "streaming" else "in-memory")


@pytest.mark.parametrize("mode", MODES)
def test_a_failed_cast_counts_every_chunk(mode: str) -> None:
    # p: "x" and "y" in each chunk: 4 of 12 (Polars' own message said 2 of 6)
    with pytest.raises(InvalidInputError) as info:
        _run(mode, by="g", y_pred=pl.col("p").cast(pl.Int64))
    assert str(info.value) == (
        "y_pred: 4 of 12 values of column 'p' could not be converted from str to i64 (the "
        "values are not shown: they may identify people)")


@pytest.mark.parametrize("mode", MODES)
def test_a_failed_date_parse_is_typed_and_counted(mode: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        _run(mode, by=pl.col("d").str.to_date())
    assert str(info.value) == (
        "by: 6 of 12 values of column 'd' could not be converted from str to date (the values "
        "are not shown: they may identify people)")
    assert "zz" not in str(info.value)


@pytest.mark.parametrize("mode", MODES)
def test_a_cast_polars_never_makes_is_typed(mode: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        _run(mode, by=pl.col("d").cast(pl.Date))
    # a cast Polars never makes fails on every value that is not null: 12 of 12
    assert str(info.value) == (
        "by: 12 of 12 values of column 'd' cannot be cast from string to date: Polars does not "
        "cast string to date; use .str.to_date() instead")
    # the advice followed, on dates written as text: one group a day
    days = pl.DataFrame({"d": ["2020-01-01", "2020-01-02"] * 4, "y_true": [1, 0] * 4,
                         "y_pred": [1, 1, 0, 0] * 2})
    assert days.fair.report(pl.col("d").str.to_date(), min_support=1)["n"].to_list() == [4, 4]


def test_a_date_as_prediction_is_refused_naming_the_argument() -> None:
    from polars_fair.errors import InvalidLabelError

    with pytest.raises(InvalidLabelError, match=r"\(y_pred\) has dtype Date"):
        _two_chunks().fair.report("g", y_pred=pl.col("d").str.to_date())
    with pytest.raises(InvalidLabelError, match=r"\(y_pred\) has dtype Date"):
        _two_chunks().fair.report("g", y_pred=pl.col("d").cast(pl.Date))
