"""Issue 19 kind 7, sixth review: guards that differed by the way in, now one guard each.

The same bad input is refused with the same type and message whichever way it arrives: a
reference mapping naming an attribute that is not audited (proxy_report cut it silently), a
Decimal attribute with more than 50 values (judged as a float is), a binned attribute of
divergence too fine to form groups (described by its own dtype, with advice to pass fewer bins).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E


def _message(call: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(E.PolarsFairError) as info:
        call()
    return type(info.value), str(info.value)


# ------------------------------------------------------------------ reference attributes
# three rows' membership probabilities of groups A and B (they sum to 1 on each row)
PROXY = pl.DataFrame({"y_pred": [1, 0, 1, 0, 1, 1], "p_a": [0.9, 0.2, 0.5, 0.1, 0.7, 0.4],
                      "k": ["q", "r"] * 3}).with_columns(p_b=1 - pl.col("p_a"))
MEMBERSHIP = {"m": {"A": "p_a", "B": "p_b"}}


@pytest.mark.parametrize("call", [
    lambda ref: PROXY.fair.proxy_report(membership=MEMBERSHIP, y_true=None, reference=ref,
                                        min_support=0),
    lambda ref: polars_fair.proxy_report(PROXY.lazy(), membership=MEMBERSHIP, y_true=None,
                                         reference=ref, min_support=0),
    lambda ref: polars_fair.proxy_counts(PROXY, membership=MEMBERSHIP, y_true=None)
    .proxy_report(reference=ref, min_support=0),
    lambda ref: PROXY.fair.counts(membership=MEMBERSHIP, y_true=None).report(
        reference=ref).collect(),
    lambda ref: PROXY.fair.counts(membership=MEMBERSHIP, y_true=None).disparity(
        reference=ref).collect(),
], ids=["proxy_report", "proxy_report lazy", "proxy_counts", "counts report", "disparity"])
def test_a_membership_reference_naming_an_attribute_not_audited_is_refused(call: Any) -> None:
    # the audited attributes are ['m'] (the membership attribute); 'zz' is not one of them, so
    # the mapping is refused as every method refuses it (proxy_report used A and dropped zz)
    want = E.BAD_REFERENCE_MAPPING.format(keys=["m"], got=["m", "zz"])
    assert _message(lambda: call({"m": "A", "zz": "q"})) == (E.InvalidArgumentError, want)


def test_a_membership_reference_over_the_audited_attribute_is_used() -> None:
    # the same call with {"m": "A"}: A is the reference, B is not
    out = PROXY.fair.proxy_report(membership=MEMBERSHIP, y_true=None, reference={"m": "A"},
                                  min_support=0)
    assert out.select("m", "is_reference").rows() == [("A", True), ("B", False)]


# ------------------------------------------------------------------ Decimal attributes
DECIMAL = pl.Decimal(10, 3)
# 60 values 0.0, 0.1, ..., 5.9 of two rows each: 60 > 50 values of a number, 120 rows
SIXTY = pl.DataFrame({"m": [i / 10 for i in range(60) for _ in range(2)],
                      "y_true": [1, 0] * 60, "y_pred": [1, 1] * 60})


def _counted(rows: pl.DataFrame) -> pl.DataFrame:
    return rows.group_by("m").agg(
        n=pl.len().cast(pl.Int64),
        tp=(pl.col("y_true") == 1).sum().cast(pl.Int64),
        fp=(pl.col("y_true") == 0).sum().cast(pl.Int64),
        fn=pl.lit(0, pl.Int64), tn=pl.lit(0, pl.Int64))


def _ways(rows: pl.DataFrame) -> dict[str, Any]:
    import duckdb

    counted = _counted(rows)
    scored = counted.select("m", score=pl.lit(0.5), positives="tp", negatives="fp")
    return {
        "rows": lambda: rows.fair.report("m"),
        "lazy": lambda: rows.lazy().fair.report("m").collect(),
        "from_counts": lambda: polars_fair.from_counts(counted, "m").report().collect(),
        "from_scores": lambda: polars_fair.from_scores(scored, "m").abroca().collect(),
        "duckdb": lambda: polars_fair.counts(duckdb.connect().from_arrow(rows.to_arrow()),
                                             "m").report().collect(),
    }


@pytest.mark.parametrize("way", ["rows", "lazy", "from_counts", "from_scores", "duckdb"])
def test_a_decimal_attribute_is_judged_as_a_float(way: str) -> None:
    as_float = _message(_ways(SIXTY)[way])
    as_decimal = _message(_ways(SIXTY.with_columns(pl.col("m").cast(DECIMAL)))[way])
    # by hand: 60 distinct values in 120 rows, more than 50 values of a number; the message
    # is the float's with the dtype's name
    facts = "with 60 distinct values in 120 rows: more than 50 values of a number"
    assert as_decimal[0] is as_float[0] is E.TooManyLevelsError
    assert f"attribute 'm' is a {DECIMAL} column {facts}" in as_decimal[1]
    assert as_decimal[1] == as_float[1].replace("Float64", str(DECIMAL))


def test_a_decimal_attribute_follows_the_advice() -> None:
    # the advice: by=pl.col('m').bin_quantiles(5, labels=False); five bins of 22 to 26 rows
    rows = SIXTY.with_columns(pl.col("m").cast(DECIMAL))
    assert "by=pl.col('m').bin_quantiles(5, labels=False)" in _message(
        lambda: rows.fair.report("m"))[1]
    out = rows.fair.report(pl.col("m").bin_quantiles(5, labels=False))
    assert out["n"].sum() == 120 and out.height == 5


def test_a_decimal_label_of_sixty_values_is_not_shown() -> None:
    from polars_fair.counting.boundary import identifying

    # 60 values of three rows each: not too fine, but more than 50 values of a number
    table = pl.DataFrame({"v": [i / 10 for i in range(60)], "n": [3] * 60})
    want = E.WHY_FLOAT_LEVELS.format(limit=50)
    assert identifying(table, "v").why == want
    assert identifying(table.with_columns(pl.col("v").cast(DECIMAL)), "v").why == want


# ------------------------------------------------------------------ binned attributes
# eight distinct floats, one row each: bins={'x': 8} makes 8 bins of one row (too fine: each
# of the 8 bins is a single row); bins={'x': 4} makes 4 bins of 2 rows
EIGHT = pl.DataFrame({"x": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5],
                      "y_true": [1, 0] * 4, "y_pred": [1, 1, 0, 0] * 2})
BINNED = E.BINNED_LEVELS.format(column="x", dtype="Float64", levels=8, rows=8,
                                why="each of the 8 bins is a single row", fewer=4)


@pytest.mark.parametrize("bins", [8, [0, 1, 2, 3, 4, 5, 6, 7, 8]], ids=["quantiles", "edges"])
@pytest.mark.parametrize("call", [
    lambda bins: EIGHT.fair.divergence("x", bins={"x": bins}),
    lambda bins: EIGHT.lazy().fair.divergence("x", bins={"x": bins}).collect(),
    lambda bins: EIGHT.fair.divergence("x", bins={"x": bins}, strategy="levels"),
    lambda bins: polars_fair.fair(EIGHT).divergence("x", bins={"x": bins}),
], ids=["rows", "lazy", "levels", "typed accessor"])
def test_a_binned_attribute_too_fine_is_described_as_a_number(call: Any, bins: Any) -> None:
    kind, message = _message(lambda: call(bins))
    # by hand: 8 bins of one row each in 8 rows; the column is Float64 (it was "a String
    # column ...; leave it out of by=", describing the bins' text labels)
    assert (kind, message) == (E.TooManyLevelsError, BINNED)
    assert "String" not in message and "bins={'x': 4}" in message


def test_the_binned_advice_works_when_followed() -> None:
    # bins={'x': 4}: quartiles of 8 rows, 2 rows each
    out = EIGHT.fair.divergence("x", bins={"x": 4}, min_support=1, min_denominator=1)
    assert sorted(out["n"].to_list()) == [2, 2, 2, 2]


def test_an_integer_attribute_binned_names_its_dtype() -> None:
    # 8 ages in 8 rows, 8 quantile bins: Int64, 4 bins advised
    ages = EIGHT.with_columns(pl.Series("x", list(range(20, 28))))
    want = BINNED.replace("Float64", "Int64")
    assert _message(lambda: ages.fair.divergence("x", bins={"x": 8})) == (
        E.TooManyLevelsError, want)
