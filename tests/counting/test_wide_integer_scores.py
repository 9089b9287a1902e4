"""Issue 19 kind 6: integer scores beyond 2**53 are refused, never rounded into ties.

The score table and every threshold comparison read Float64, in which 2**53 + 1 is 2**53: a
perfectly separated group would read AUC 0.5, and ``threshold=2**53 + 1`` would select a row
scored 2**53. Integer scores within 2**53 are exact floats and keep their order.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

B = 2**53
BIG = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
                    "s": pl.Series([B + 1, B, 5, 3], dtype=pl.UInt64)})


SIGNED = BIG.with_columns(pl.Series("s", [-B - 1, 2**63 - 1, 5, 3], dtype=pl.Int64))


def _on(way: str, df: pl.DataFrame) -> Any:
    if way == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        return duckdb.from_arrow(df.to_arrow())
    return df.lazy() if way == "lazy" else df


@pytest.mark.parametrize("way", ["polars", "lazy", "duckdb"])
@pytest.mark.parametrize(("call", "df", "dtype", "count"), [
    ("abroca", BIG, pl.UInt64(), 1),  # 2**53 + 1
    ("threshold", BIG, pl.UInt64(), 1),
    ("threshold", SIGNED, pl.Int64(), 2),  # -2**53 - 1 and 2**63 - 1
])
def test_scores_a_float_cannot_hold_are_refused_on_every_engine(
        way: str, call: str, df: pl.DataFrame, dtype: pl.DataType, count: int) -> None:
    data = _on(way, df)
    with pytest.raises(E.InvalidScoreError) as info:
        if call == "abroca":
            polars_fair.scores(data, "g", y_score="s").abroca().collect()
        else:
            polars_fair.counts(data, "g", y_score="s", threshold=4).confusion().collect()
    assert str(info.value) == E.SCORE_BEYOND_FLOAT.format(column="s", dtype=dtype, count=count)


def test_an_integer_threshold_a_float_cannot_hold_is_refused() -> None:
    ok = BIG.with_columns(pl.Series("s", [B, B - 1, 5, 3], dtype=pl.Int64))
    with pytest.raises(E.InvalidArgumentError) as info:
        ok.fair.confusion("g", y_score="s", threshold=B + 1)
    assert str(info.value) == E.THRESHOLD_BEYOND_FLOAT.format(value=B + 1)


def test_integer_scores_up_to_two_to_the_53_keep_their_order() -> None:
    # a: 2**53 (label 1) above 2**53 - 1 (label 0): perfectly separated, AUC 1; b: 5 (1) > 3 (0)
    ok = BIG.with_columns(pl.Series("s", [B, B - 1, 5, 3], dtype=pl.Int64))
    assert ok.fair.abroca("g", y_score="s").select("g", "auc").rows() == [("a", 1.0), ("b", 1.0)]
    # threshold 2**53 selects the one row scored 2**53 (label 1): a tp 1, tn 1; b selects none
    out = ok.fair.confusion("g", y_score="s", threshold=B)
    assert out.rows() == [("a", 2, 1, 0, 0, 1), ("b", 2, 0, 0, 1, 1)]


def test_a_score_table_made_elsewhere_gets_the_same_refusal() -> None:
    table = pl.DataFrame({"g": ["a", "a"], "score": pl.Series([B + 1, B], dtype=pl.UInt64),
                          "positives": [1, 0], "negatives": [0, 1]})
    with pytest.raises(E.InvalidScoreError) as info:
        polars_fair.from_scores(table, "g").abroca().collect()
    assert str(info.value) == E.SCORE_BEYOND_FLOAT.format(column="score", dtype=pl.UInt64(),
                                                          count=1)
