"""Every kind of conversion inside an expression argument is typed and counted on every chunk.

Issue 19 (review of kind 1): ``pl.col("s").str.to_integer()`` said "at least 2 value(s)",
``.cast(pl.Decimal(5, 2))`` counted one chunk ("2 of 6"), an Enum cast of ``y_pred`` escaped
as Polars' ``InvalidOperationError`` on a lazy frame (and counted one chunk eagerly), a cast
nested in arithmetic was counted on its column instead of its input, ``.cast(pl.Boolean)`` of
text and ``.replace_strict(...)`` escaped as Polars' errors, ``str.json_decode`` said "a
value". Now each is :class:`polars_fair.errors.InvalidInputError` naming the argument and the
failing rows over the whole frame (:mod:`polars_fair.counting.conversions`).

The frame, by hand: two chunks of the same six rows (12 rows, ``rechunk=False``), per chunk

    s = "1", "x", "0", "y", "1", "0"        -> "x", "y" are no integer: 2 a chunk, 4 of 12
    d = "1.5", "1e400", "2", "z", "1", "0"  -> "1e400" (too wide), "z": 4 of 12 for Decimal(5, 2)
    e = "a", "b", "c", "a", "b", "a"        -> "c" is no category of Enum(["a", "b"]): 2 of 12
    j = "1", "{", "0", "[", "1", "0"        -> "{", "[" are no JSON: 4 of 12
    b = "1", "true", "x", "0", "1", "0"     -> text: Polars never casts it to Boolean, 12 of 12
    y_pred * 1000 as Decimal(3, 0)          -> y_pred = 1 on 3 rows a chunk: 6 of 12 overflow
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_fair  # noqa: F401 - registers df.fair
from polars_fair import errors as E

HIDDEN = "(the values are not shown: they may identify people)"


def _frame() -> pl.DataFrame:
    six = pl.DataFrame({"g": ["a", "b"] * 3, "y_true": [1, 0] * 3, "y_pred": [1, 0, 0, 1, 1, 0],
                        "s": ["1", "x", "0", "y", "1", "0"],
                        "d": ["1.5", "1e400", "2", "z", "1", "0"],
                        "e": ["a", "b", "c", "a", "b", "a"],
                        "j": ["1", "{", "0", "[", "1", "0"],
                        "b": ["1", "true", "x", "0", "1", "0"]})
    df = pl.concat([six, six], rechunk=False)
    assert df.n_chunks() == 2
    return df


#: (expression, the message after "<argument>: ")
KINDS: dict[str, tuple[pl.Expr, str]] = {
    "to_integer": (pl.col("s").str.to_integer(),
                   f"4 of 12 values of column 's' could not be converted from text to integer "
                   f"{HIDDEN}"),
    "decimal": (pl.col("d").cast(pl.Decimal(5, 2)),
                f"4 of 12 values of column 'd' could not be converted from str to decimal[5,2] "
                f"{HIDDEN}"),
    "nested decimal": (
        (pl.col("y_pred").cast(pl.Int64) * 1000).cast(pl.Decimal(3, 0)),
        f"6 of 12 values of column 'y_pred' could not be converted from i64 to decimal[3,0] "
        f"{HIDDEN}"),
    "enum": (pl.col("e").cast(pl.Enum(["a", "b"])),
             f"2 of 12 values of column 'e' could not be converted from str to enum {HIDDEN}"),
    "json": (pl.col("j").str.json_decode(pl.Int64),
             f"4 of 12 values of column 'j' could not be converted from text to JSON {HIDDEN}"),
    "boolean": (pl.col("b").cast(pl.Boolean),
                "12 of 12 values of column 'b' cannot be cast from string to boolean: Polars "
                "does not cast string to boolean; compare the text with its true value instead, "
                "for example pl.col('b') == 'true'"),
    "replace_strict": (pl.col("s").replace_strict({"1": 1, "0": 0}),
                       "4 of 12 values of column 's' are not in the mapping of replace_strict, "
                       f"which has no default= {HIDDEN}"),
}
#: sample_weight must be numeric: an Enum or a Boolean is refused by its dtype first
NOT_WEIGHTS = {"enum", "boolean"}
CASES = [(kind, role) for kind in KINDS for role in ("y_pred", "y_true", "sample_weight", "by")
         if not (role == "sample_weight" and kind in NOT_WEIGHTS)]


def _run(mode: str, role: str, expr: pl.Expr) -> Any:
    df = _frame()
    kwargs: dict[str, Any] = {"by": expr} if role == "by" else {"by": "g", role: expr}
    if mode == "eager":
        return df.fair.report(**kwargs)
    return df.lazy().fair.report(**kwargs).collect(
        engine="streaming" if mode == "streaming" else "in-memory")


@pytest.mark.parametrize("mode", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize(("kind", "role"), CASES)
def test_a_failed_conversion_names_the_argument_and_counts_every_chunk(
        kind: str, role: str, mode: str) -> None:
    expr, expected = KINDS[kind]
    with pytest.raises(E.InvalidInputError) as info:
        _run(mode, role, expr)
    assert str(info.value) == f"{role}: {expected}"


@pytest.mark.parametrize("call", ["abroca", "calibration"])
def test_a_score_expression_is_counted_too(call: str) -> None:
    # y_score = s as an integer: "x", "y" fail, 4 of 12
    lf = _frame().lazy()
    with pytest.raises(E.InvalidInputError) as info:
        getattr(lf.fair, call)("g", y_score=pl.col("s").str.to_integer()).collect()
    assert str(info.value) == f"y_score: {KINDS['to_integer'][1]}"


def test_the_boolean_advice_runs_as_written() -> None:
    message = str(pytest.raises(E.InvalidInputError, _run, "eager", "y_pred",
                                KINDS["boolean"][0]).value)
    advice = message.rsplit("for example ", 1)[1]
    expr = eval(advice, {"pl": pl})  # the advice as written
    # b == "true" holds on the second row of each six: group b (rows 2, 4, 6 of a chunk) has
    # one selected row of 3 per chunk, group a none: selection rates 0 and 1/3
    out = _frame().fair.report("g", y_pred=expr, min_support=1)
    assert out["g"].to_list() == ["a", "b"]
    assert out["selection_rate"].to_list() == [0.0, pytest.approx(1 / 3)]


def test_a_value_outside_a_mapping_counts_nulls_as_mapped() -> None:
    # a null is no failure of replace_strict: "x" once in 4 rows, nulls twice
    df = pl.DataFrame({"g": ["a", "b"] * 2, "y_true": [1, 0, 1, 0],
                       "s": ["1", None, "x", None]})
    with pytest.raises(E.InvalidInputError) as info:
        df.lazy().fair.report("g", y_pred=pl.col("s").replace_strict({"1": 1})).collect()
    assert str(info.value).startswith("y_pred: 1 of 4 values of column 's' are not in the ")


#: More conversions over two chunks of: d = "2020", "20x0", "2021", "q", "2020", "2021" (two
#: are no year a chunk), i = 1, 300, 0, -5, 1, 0 (300 and -5 fit no UInt8; 300 no Int8),
#: bits = "1", "2", "0", "1", "1", "0" ("2" is no binary digit).
OTHERS = {
    "to_date with a format": ("by", pl.col("d").str.to_date("%Y"),
                              "4 of 12 values of column 'd' could not be converted from str to "
                              "date"),
    "strptime": ("by", pl.col("d").str.strptime(pl.Datetime, "%Y"),
                 "4 of 12 values of column 'd' could not be converted from str to datetime[μs]"),
    "u8": ("y_pred", pl.col("i").cast(pl.UInt8),
           "4 of 12 values of column 'i' could not be converted from i64 to u8"),
    "i8": ("sample_weight", pl.col("i").cast(pl.Int8),
           "2 of 12 values of column 'i' could not be converted from i64 to i8"),
    "base 2": ("y_pred", pl.col("bits").str.to_integer(base=2),
               "2 of 12 values of column 'bits' could not be converted from text to integer"),
}


@pytest.mark.parametrize("case", sorted(OTHERS))
def test_other_conversions_are_counted_on_every_chunk(case: str) -> None:
    six = pl.DataFrame({"g": ["a", "b"] * 3, "y_true": [1, 0] * 3,
                        "d": ["2020", "20x0", "2021", "q", "2020", "2021"],
                        "i": [1, 300, 0, -5, 1, 0], "bits": ["1", "2", "0", "1", "1", "0"]})
    lf = pl.concat([six, six], rechunk=False).lazy()
    role, expr, expected = OTHERS[case]
    kwargs: dict[str, Any] = {"by": expr} if role == "by" else {"by": "g", role: expr}
    if role != "y_pred":
        kwargs["y_pred"] = pl.col("y_true")
    with pytest.raises(E.InvalidInputError) as info:
        lf.fair.report(**kwargs).collect()
    assert str(info.value) == f"{role}: {expected} {HIDDEN}"
