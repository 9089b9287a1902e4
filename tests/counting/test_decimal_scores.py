"""Decimal scores a float cannot keep apart are refused (review of issue 19, defect 7).

Scores are compared as Float64. A float keeps any two decimals of at most 15 significant digits
apart and in order, so Decimal scores of more digits are refused with ``InvalidScoreError``
(as integers beyond 2**53 are), on every way in: rows (eager, lazy, streaming), score tables,
DuckDB. A ``decimal.Decimal`` threshold is accepted when a float compares with it exactly.
"""

from __future__ import annotations

from decimal import Decimal

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from tests.conftest import Runner

FINE = Decimal("0.1000000000000000000000001")  # 25 significant digits
DTYPE = pl.Decimal(38, 25)
#: group a: positives score FINE, negatives 0.1: strictly separated only in decimal.
ROWS = pl.DataFrame({
    "g": ["a"] * 4 + ["b"] * 4,
    "y_true": [1, 0] * 4,
    "s": pl.Series([FINE, Decimal("0.1")] * 2 + [Decimal("0.9"), Decimal("0.1")] * 2,
                   dtype=DTYPE),
})
MESSAGE = E.SCORE_DECIMAL_DIGITS.format(column="s", dtype=DTYPE, count=2)


@pytest.mark.parametrize("method", ["abroca", "roc_curves", "scores", "calibration"])
def test_decimal_scores_beyond_15_digits_are_refused(run: Runner, method: str) -> None:
    # the reviewer's frame gave group a AUC 0.5 though its positives (FINE) all score above
    # its negatives (0.1): FINE and 0.1 are the same float. Two values (rows 0 and 2) have 25
    # significant digits.
    with pytest.raises(E.InvalidScoreError) as info:
        run(ROWS, method, "g", y_score="s")
    assert str(info.value) == MESSAGE


def test_the_bias_audit_refuses_them_too() -> None:
    # scored_above_median was 0 though 2 rows score strictly above the median
    with pytest.raises(E.InvalidScoreError, match="2 decimal value"):
        ROWS.fair.bias_audit(["g"], y_score="s")


def test_a_score_table_with_such_decimals_is_refused() -> None:
    table = pl.DataFrame({"g": ["a", "a"], "score": pl.Series([FINE, Decimal("0.1")],
                                                              dtype=DTYPE),
                          "positives": [2, 0], "negatives": [0, 2]})
    with pytest.raises(E.InvalidScoreError) as info:
        polars_fair.from_scores(table).abroca().collect()
    assert str(info.value) == E.SCORE_DECIMAL_DIGITS.format(column="score", dtype=DTYPE,
                                                            count=1)


def test_duckdb_decimal_38_25_is_refused() -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.sql("SELECT * FROM (VALUES ('a', 1, 0.1000000000000000000000001::DECIMAL(38,25)),"
                     " ('a', 0, 0.1::DECIMAL(38,25)), ('b', 1, 0.9::DECIMAL(38,25)),"
                     " ('b', 0, 0.1::DECIMAL(38,25))) t(g, y_true, s)")
    with pytest.raises(E.InvalidScoreError, match="holds 1 decimal value"):
        polars_fair.scores(rel, "g", y_score="s").abroca().collect()


def test_decimals_of_at_most_15_digits_are_exact(run: Runner) -> None:
    # the same frame rounded to 2 decimals: a's positives 0.10 tie its negatives 0.10 -> AUC
    # 0.5; b's positives 0.90 above its negatives 0.10 -> AUC 1.0; ABROCA |1 - 0.5| = 0.5
    rounded = ROWS.with_columns(pl.col("s").round(2))
    out = run(rounded, "abroca", "g", y_score="s", reference="a")
    assert out.select("g", "auc", "abroca").rows() == [("a", 0.5, 0.0), ("b", 1.0, 0.5)]
    # 15 significant digits are still kept apart: 0.100000000000001 > 0.1
    close = pl.DataFrame({"g": ["a"] * 2, "y_true": [1, 0], "s": pl.Series(
        [Decimal("0.100000000000001"), Decimal("0.1")], dtype=DTYPE)})
    assert run(close, "abroca", "g", y_score="s")["auc"].to_list() == [1.0]


def test_a_decimal_threshold_that_a_float_compares_exactly_is_accepted() -> None:
    rounded = ROWS.with_columns(pl.col("s").round(2))
    # threshold 0.5: a's scores 0.1 are all below (tp 0, fn 2, tn 2); b's 0.9 above (tp 2)
    out = rounded.fair.confusion("g", y_score="s", threshold=Decimal("0.5"))
    assert out.rows() == [("a", 4, 0, 0, 2, 2), ("b", 4, 2, 0, 0, 2)]
    # 2**-30 has 30 digits but is a float's exact value
    exact = Decimal(2.0**-30)
    assert len(exact.as_tuple().digits) > 15
    assert rounded.fair.confusion("g", y_score="s", threshold=exact)["tp"].to_list() == [2, 2]


def test_a_decimal_threshold_a_float_cannot_compare_is_refused() -> None:
    rounded = ROWS.with_columns(pl.col("s").round(2))
    with pytest.raises(E.InvalidArgumentError) as info:
        rounded.fair.confusion("g", y_score="s", threshold=FINE)
    assert str(info.value) == E.THRESHOLD_DECIMAL_DIGITS.format(value=FINE)


def test_a_decimal_threshold_outside_the_float_range_is_refused_and_the_advice_works() -> None:
    # Decimal("1E-400") reads as 0.0, so the scores of exactly 0 would be selected although
    # 0 < 1E-400 (review of issue 19, kind 6); 1E+400 reads as inf, 1E-320 as a subnormal
    # 9.99988671826831e-321 that is not the decimal written
    zeros = pl.DataFrame({"g": ["a"] * 4, "y_true": [1, 0, 1, 0], "s": [0.0, 0.0, 1.0, 1.0]})
    for bad, read in ((Decimal("1E-400"), 0.0), (Decimal("1E+400"), float("inf")),
                      (Decimal("1E-320"), float(Decimal("1E-320")))):
        with pytest.raises(E.InvalidArgumentError) as info:
            zeros.fair.confusion("g", y_score="s", threshold=bad)
        assert str(info.value) == E.THRESHOLD_FLOAT_RANGE.format(value=bad, read=read)
    # the advice: a threshold in the normal range (or 0) is compared as written; at 1E-300
    # the two scores of 0 are below (fn 1, tn 1) and the two of 1 above (tp 1, fp 1)
    out = zeros.fair.confusion("g", y_score="s", threshold=Decimal("1E-300"))
    assert out.select("tp", "fp", "fn", "tn").row(0) == (1, 1, 1, 1)
    # 0 itself is a float's exact value: every score is at or above it (tp 2, fp 2)
    out = zeros.fair.confusion("g", y_score="s", threshold=Decimal("0"))
    assert out.select("tp", "fp", "fn", "tn").row(0) == (2, 2, 0, 0)
