"""Fresh-user re-review of the continuous report (issue 22): degenerate sizes and inputs.

Every expected value is worked by hand in the test.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E


def _check(r: pl.DataFrame, rows: list[tuple[object, ...]]) -> None:
    cols = ["g", "mean", "std", "mean_difference", "ci_low", "ci_high", "p_value", "smd"]
    got = r.select(cols).rows()
    assert len(got) == len(rows)
    for g, e in zip(got, rows, strict=True):
        for x, y in zip(g, e, strict=True):
            if isinstance(y, float):
                assert isinstance(x, float) and math.isclose(x, y, rel_tol=1e-12), (g, e)
            else:
                assert x == y, (g, e)


def test_reference_of_one_row_gives_null_interval() -> None:
    # a: 1 (one row: no sd, so Welch has no interval); b: 2, 3 (mean 2.5, M2 = 0.5, sd √0.5).
    # Pooled sd of b and a: √((0.5 + 0) / (2 + 1 - 2)) = √0.5, so smd = 1.5 / √0.5.
    df = pl.DataFrame({"g": ["a", "b", "b"], "y": [1.0, 2.0, 3.0]})
    want = [("a", 1.0, None, 0.0, None, None, None, None),
            ("b", 2.5, math.sqrt(0.5), 1.5, None, None, None, 1.5 / math.sqrt(0.5))]
    r = df.fair.continuous_report("g", y_pred="y", reference="a", min_support=1)
    _check(r, want)
    # the same moments handed in: a (n 1, mean 1, M2 0), b (n 2, mean 2.5, M2 0.5)
    t = pl.DataFrame({"g": ["a", "b"], "n": [1, 2], "mean_pred": [1.0, 2.5],
                      "m2_pred": [0.0, 0.5]})
    _check(polars_fair.from_moments(t).continuous_report(reference="a", min_support=1)
           .collect(), want)


def test_weights_normalised_per_group() -> None:
    # weights 0.5 each, so each group's size is W = 1: no sd (W - 1 = 0), no interval, and the
    # pooled sd's denominator W_a + W_b - 2 = 0, so the SMD is null (it was 0: M2 / 0 = inf).
    # a: mean (1 + 2) / 2 = 1.5; b: mean (3 + 5) / 2 = 4, difference 2.5.
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y": [1.0, 2.0, 3.0, 5.0], "w": [0.5] * 4})
    r = df.fair.continuous_report("g", y_pred="y", sample_weight="w", reference="a",
                                  min_support=1)
    _check(r, [("a", 1.5, None, 0.0, None, None, None, None),
               ("b", 4.0, None, 2.5, None, None, None, None)])


def _refused(t: pl.DataFrame) -> str:
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_moments(t).continuous_report(min_support=1).collect()
    return str(info.value)


def test_from_moments_refuses_impossible_sizes() -> None:
    base = {"g": ["a", "b", "c"], "n": [3, 0, 0], "mean_pred": [2.0, None, 0.0],
            "m2_pred": [2.0, 0.0, 0.0]}
    # b and c have no rows: a null or zero mean and M2 = 0 are the only moments they can have
    assert polars_fair.from_moments(pl.DataFrame(base)).continuous_report(
        reference="a", min_support=1).collect()["n"].to_list() == [3, 0, 0]
    # no rows with a mean of 5 (two such rows: b and c)
    t = pl.DataFrame(base).with_columns(mean_pred=pl.Series([2.0, 5.0, 5.0]))
    assert _refused(t) == E.IMPOSSIBLE_MOMENT_SIZE.format(
        column="mean_pred", count=2, rule="n = 0 (no rows) needs a null or zero mean",
        values="[5.0, 5.0]")
    # no rows with a spread
    t = pl.DataFrame(base).with_columns(m2_pred=pl.Series([2.0, 1.0, 0.0]))
    assert _refused(t) == E.IMPOSSIBLE_MOMENT_SIZE.format(
        column="m2_pred", count=1, rule="n = 0 (no rows) needs 0", values="[1.0]")
    # one value has M2 = 0: here 0.5 (a 1-row group with the spread of 2, 3)
    t = pl.DataFrame({"g": ["a", "b"], "n": [3, 1], "mean_pred": [2.0, 2.5],
                      "m2_pred": [2.0, 0.5]})
    assert _refused(t) == E.IMPOSSIBLE_MOMENT_SIZE.format(
        column="m2_pred", count=1, rule="n = 1 (one value) has no spread, so M2 = 0",
        values="[0.5]")


def test_from_moments_accepts_its_own_one_row_weighted_groups() -> None:
    # a weighted one-row group: its mean Σw·x / Σw may differ from x in the last place, so its
    # M2 can be a rounding residue (about 2.6e-33, not 0), as it was when the group was
    # aggregated about the frame's first value; the table is accepted back as it is. Since
    # issue 22's review a one-row group away from that value is aggregated about its own
    # value (its standard deviation is no scale for the shift), so moments() gives M2 = 0
    # exactly, and the residue is put back by hand (as another engine may give it)
    df = pl.DataFrame({"g": ["a", "b"], "y": [1.0, 1.34], "w": [1.0, 0.85]})
    t = polars_fair.moments(df, "g", y_pred="y", sample_weight="w").frame.collect()
    assert t["m2_pred"].to_list() == [0.0, 0.0]
    t = t.with_columns(m2_pred=pl.Series([0.0, 2.6e-33]))
    back = polars_fair.from_moments(t).continuous_report(reference="a", min_support=1)
    # b: mean 1.34, a: mean 1, so the difference is 0.34
    assert math.isclose(back.collect()["mean_difference"][1], 0.34, rel_tol=1e-12)


def test_integers_beyond_a_float_are_refused() -> None:
    import duckdb

    # 10**16 + 1 and 10**16 + 3 are one float apart at most: as floats the std of a would be
    # wrong, so the values are refused (4 of them beyond 2**53), on Polars and DuckDB alike
    df = pl.DataFrame({"g": ["a", "a", "b", "b"],
                       "y": [10**16 + 1, 10**16 + 3, 10**16 + 2, 10**16 + 6]})
    def want(role: str, relation: bool = False) -> str:
        # the advice (issue 20): an offset, in the words of the way the rows came
        advice = (E.RELATION_CONTINUOUS_OFFSET.format(sql="y", shifted="y_offset", role=role)
                  if relation else E.CONTINUOUS_OFFSET.format(role=role, column="y"))
        return E.CONTINUOUS_BEYOND_FLOAT.format(column="y", role=role, dtype=pl.Int64,
                                                count=4, advice=advice)

    rel = duckdb.sql("SELECT * FROM df")
    for frame in (df, df.lazy(), rel):
        with pytest.raises(E.InvalidScoreError) as info:
            polars_fair.moments(frame, "g", y_pred="y").frame.collect()
        assert str(info.value) == want("y_pred", relation=frame is rel)
    with pytest.raises(E.InvalidScoreError) as info:
        df.with_columns(p=pl.lit(0)).fair.continuous_report("g", y_pred="p", y_true="y")
    assert str(info.value) == want("y_true")
    # the advised offset: y - 10**16 is 1, 3 (mean 2, sd √2) and 2, 6 (mean 4, sd √8);
    # pooled sd √((2 + 8) / 2) = √5, smd = (4 - 2) / √5
    r = df.fair.continuous_report("g", y_pred=pl.col("y") - 10**16, reference="a",
                                  min_support=1)
    assert r["mean"].to_list() == [2.0, 4.0]
    assert r["std"].to_list() == [math.sqrt(2), math.sqrt(8)]
    assert math.isclose(r["smd"][1], 2 / math.sqrt(5), rel_tol=1e-12)
    # 2**53 itself is a float: accepted. a: 2**53, 2**53 - 2 (mean 2**53 - 1, sd √2);
    # b: 2**53 - 4, 2**53 - 6 (mean 2**53 - 5, sd √2), so the difference is -4
    edge = pl.DataFrame({"g": ["a", "a", "b", "b"],
                         "y": [2**53, 2**53 - 2, 2**53 - 4, 2**53 - 6]})
    e = edge.fair.continuous_report("g", y_pred="y", reference="a", min_support=1)
    assert e["mean"].to_list() == [2.0**53 - 1, 2.0**53 - 5]
    assert e["std"].to_list() == [math.sqrt(2), math.sqrt(2)]
    assert e["mean_difference"].to_list() == [0.0, -4.0]


def test_from_moments_takes_the_low_part_of_the_mean() -> None:
    # a: mean 1e9 exactly; b: mean 1e9 + 0.25 + 2**-40, which a double near 1e9 (step 2**-23)
    # holds only as 1e9 + 0.25 with the rest 2**-40 in mean_pred_low. n 3, M2 2 each (sd 1):
    # the difference is 0.25 + 2**-40 and the pooled SMD the same over sd 1.
    gap = 0.25 + 2.0**-40
    t = pl.DataFrame({"g": ["a", "b"], "n": [3, 3], "mean_pred": [1e9, 1e9 + 0.25],
                      "mean_pred_low": [0.0, 2.0**-40], "m2_pred": [2.0, 2.0]})
    r = polars_fair.from_moments(t).continuous_report(reference="a", min_support=1).collect()
    assert r["mean_difference"].to_list() == [0.0, gap]
    assert r["smd"].to_list() == [0.0, gap]
    # the low part lies below mean_pred's last digit: 1.0 at 1e9 is a shift, not a low part
    bad = t.with_columns(mean_pred_low=pl.Series([0.0, 1.0]))
    assert _refused(bad) == E.BAD_MOMENTS.format(
        column="mean_pred_low", count=1,
        problem="too large (beyond one unit in the last place of mean_pred)", values="[1.0]")


def test_from_moments_reads_decimal_moments_as_floats() -> None:
    # issue 22 review item 3: a Decimal mean_pred (DuckDB's 6.1::DECIMAL(10,2)) reached
    # Polars' pow and raised a raw InvalidOperationError; by hand: std = sqrt(M2 / (n - 1)),
    # smd = (6.1 - 5.7) / sqrt((118 + 160) / (120 + 150 - 2))
    dec = pl.Decimal(10, 2)
    t = pl.DataFrame({"b": ["n", "s"], "n": [120, 150],
                      "mean_pred": pl.Series(["6.1", "5.7"]).cast(dec),
                      "m2_pred": pl.Series(["118.0", "160.0"]).cast(dec)})
    got = polars_fair.from_moments(t, ["b"]).continuous_report(min_support=1).collect()
    n, s = got.rows(named=True)
    assert (n["mean"], s["mean"]) == (6.1, 5.7)
    assert n["std"] == pytest.approx(math.sqrt(118 / 119), rel=1e-15)
    assert s["std"] == pytest.approx(math.sqrt(160 / 149), rel=1e-15)
    assert n["mean_difference"] == pytest.approx(0.4, rel=1e-14)
    assert n["smd"] == pytest.approx(0.4 / math.sqrt(278 / 268), rel=1e-14)
    # with residual moments in Decimal too: mae = 30 / 120, rmse = sqrt(12 / 120 + 0.1²)
    res = t.with_columns(mean_true=pl.Series(["6.0", "5.7"]).cast(dec),
                         mean_residual=pl.Series(["0.1", "0.0"]).cast(dec),
                         m2_residual=pl.Series(["12.0", "15.0"]).cast(dec),
                         sum_abs_residual=pl.Series(["30.0", "30.0"]).cast(dec))
    got = polars_fair.from_moments(res, ["b"]).continuous_report(min_support=1).collect()
    assert got["mae"].to_list() == pytest.approx([0.25, 0.2], rel=1e-15)
    assert got["rmse"][0] == pytest.approx(math.sqrt(12 / 120 + 0.01), rel=1e-15)


def test_from_moments_refuses_decimal_moments_a_float_cannot_hold() -> None:
    # the rule of Decimal outcomes in the rows: more than 15 significant digits (here 17)
    wide = pl.Decimal(38, 20)
    t = pl.DataFrame({"b": ["n"], "n": [3], "mean_pred": pl.Series(["1.5"]).cast(wide),
                      "m2_pred": pl.Series(["0.12345678901234567"]).cast(wide)})
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_moments(t, ["b"]).frame.collect()
    assert str(info.value) == E.CONTINUOUS_DECIMAL_DIGITS.format(
        column="m2_pred", role="moment table", count=1, dtype=wide)
