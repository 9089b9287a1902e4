"""availability: scipy's binomtest and chisquare as references, typed benchmark errors."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from scipy.stats import binomtest, chisquare, norm

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.availability import (
    BENCHMARK_MISSING,
    BENCHMARK_SUM,
    BENCHMARK_UNKNOWN,
    NO_BENCHMARK,
)
from tests.conftest import Runner

RACE = {"White": 0.6, "Black": 0.25, "Asian": 0.15}


def pool() -> pl.DataFrame:
    counts = {"White": 70, "Black": 18, "Asian": 12}
    sexes = ["F", "M"] * 50
    races = [r for r, n in counts.items() for _ in range(n)]
    return pl.DataFrame({"race": races, "sex": sexes, "y_true": 1, "y_pred": 1})


def rows_of(df: pl.DataFrame, key: str = "race") -> dict[Any, dict[str, Any]]:
    return {r[key]: r for r in df.iter_rows(named=True)}


def test_binomial_per_value_and_chi_square_over_the_attribute(run: Runner) -> None:
    out = run(pool(), "availability", "race", {"race": RACE})
    assert out["race"].to_list() == list(RACE)  # the benchmark's order
    got = rows_of(out)
    for race, count in (("White", 70), ("Black", 18), ("Asian", 12)):
        r = got[race]
        assert r["count"] == count and r["share"] == count / 100
        assert r["benchmark_share"] == RACE[race]
        assert r["expected"] == pytest.approx(100 * RACE[race])
        assert r["shortfall"] == pytest.approx(100 * RACE[race] - count)
        assert r["p_value"] == pytest.approx(binomtest(count, 100, RACE[race]).pvalue,
                                             rel=1e-12)
    want = chisquare([70, 18, 12], [60, 25, 15])
    assert got["White"]["gof_statistic"] == pytest.approx(want.statistic, rel=1e-12)
    assert got["Asian"]["gof_p_value"] == pytest.approx(want.pvalue, rel=1e-12)


def test_several_attributes_are_stacked_like_attribute_sets() -> None:
    out = pool().fair.availability(["race", "sex"], {"race": RACE, "sex": {"F": 0.5, "M": 0.5}})
    assert out["attributes"].to_list() == [["race"]] * 3 + [["sex"]] * 2
    sex = out.filter(pl.col("attributes").list.first() == "sex")
    assert sex["count"].to_list() == [50, 50] and sex["p_value"].to_list() == [1.0, 1.0]
    assert sex["gof_statistic"].to_list() == [0.0, 0.0]
    # the same from a count table made at the finest level
    table = polars_fair.from_counts(pool().fair.confusion(["race", "sex"]))
    again = table.availability(benchmark={"race": RACE, "sex": {"F": 0.5, "M": 0.5}}).collect()
    assert again.equals(out)


def test_weighted_shares_and_the_normal_test_on_rows() -> None:
    df = pool().with_columns(w=pl.when(pl.col("race") == "White").then(1.0).otherwise(2.0))
    got = rows_of(df.fair.availability("race", {"race": RACE}, sample_weight="w"))
    total = 70 + 2 * 30
    assert got["Black"]["count"] == 36.0 and got["Black"]["share"] == 36 / total
    assert got["Black"]["shortfall"] == pytest.approx(0.25 * total - 36)
    z = (36 / total - 0.25) / (0.25 * 0.75 / 100) ** 0.5  # 100 rows
    assert got["Black"]["p_value"] == pytest.approx(2 * norm.sf(abs(z)), rel=1e-12)


def test_a_zero_share_with_rows_is_an_infinite_misfit() -> None:
    got = rows_of(pool().fair.availability("race", {"race": {"White": 0.7, "Black": 0.3,
                                                             "Asian": 0.0}}))
    assert got["Asian"]["p_value"] == 0.0 and got["Asian"]["gof_statistic"] == float("inf")
    assert got["Asian"]["gof_p_value"] == 0.0


def test_benchmark_errors_are_typed_and_name_the_attribute() -> None:
    df = pool()
    with pytest.raises(E.InvalidArgumentError) as err:
        df.fair.availability("race", {"race": {"White": 0.6, "Black": 0.3, "Asian": 0.3}})
    assert str(err.value) == BENCHMARK_SUM.format(column="race", total=1.2)
    with pytest.raises(E.InvalidArgumentError) as err:
        df.fair.availability("race", {"race": {"White": 0.75, "Black": 0.25}})
    assert str(err.value) == BENCHMARK_MISSING.format(column="race", values="['Asian']")
    with pytest.raises(E.UnknownGroupError) as unknown:
        df.fair.availability("race", {"race": {**RACE, "White": 0.5, "Other": 0.1}})
    assert str(unknown.value) == BENCHMARK_UNKNOWN.format(
        column="race", values="['Other']", groups="['Asian', 'Black', 'White']")
    with pytest.raises(E.InvalidArgumentError) as err:
        df.fair.availability("race", {})
    assert str(err.value) == NO_BENCHMARK.format(value={})
    with pytest.raises(E.InvalidArgumentError, match="must lie in"):
        df.fair.availability("race", {"race": {"White": 1.5, "Black": -0.5, "Asian": 0.0}})
    # sex is counted but not in by: said "column 'sex' (benchmark) not found" (second review)
    for call in (lambda: polars_fair.counts(df, ["race", "sex"]).availability(
                     "race", benchmark={"sex": {"F": 0.5, "M": 0.5}}),
                 lambda: df.fair.availability("race", {"sex": {"F": 0.5, "M": 0.5}})):
        with pytest.raises(E.InvalidArgumentError) as err:
            call()
        assert str(err.value) == E.BENCHMARK_NOT_IN_BY.format(column="sex", by=["race"])
    # its advice followed: sex added to by, or by left out
    both = df.fair.availability(["race", "sex"], {"sex": {"F": 0.5, "M": 0.5}})
    assert both.equals(df.fair.availability(None, {"sex": {"F": 0.5, "M": 0.5}}))
    assert both["count"].to_list() == [50, 50]


def test_three_shares_of_one_third_sum_to_one() -> None:
    df = pool()
    third = 1 / 3
    out = df.fair.availability("race", {"race": {"White": third, "Black": third,
                                                 "Asian": third}})
    assert out.height == 3


def test_a_value_at_its_benchmark_share_has_exactly_zero_shortfall() -> None:
    """7 of 100 rows against a share of 0.07: by hand expected 100 * 7/100 = 7, shortfall 0 and
    the chi-square 0 (the float 0.07 * 100 - 7 is 8.9e-16)."""
    df = pl.DataFrame({"g": ["a"] * 7 + ["b"] * 93, "y_true": 1, "y_pred": 1})
    out = rows_of(df.fair.availability("g", {"g": {"a": 0.07, "b": 0.93}}), "g")
    assert (out["a"]["expected"], out["a"]["shortfall"], out["b"]["shortfall"]) == (7.0, 0.0, 0.0)
    assert out["a"]["gof_statistic"] == 0.0 and out["a"]["gof_p_value"] == 1.0


def test_weights_summing_to_zero_leave_shares_and_tests_null() -> None:
    """Every weight 0: no share is defined (0/0), so no test either; the share-1 value's
    p-value was 0.0 (a NaN share compared with 1)."""
    df = pl.DataFrame({"g": ["a", "a", "b"], "y_true": 1, "y_pred": 1, "w": [0.0, 0.0, 0.0]})
    out = rows_of(df.fair.availability("g", {"g": {"a": 1.0, "b": 0.0}}, sample_weight="w"),
                  "g")
    for v in ("a", "b"):
        assert out[v]["share"] is None and out[v]["p_value"] is None
        assert out[v]["gof_statistic"] is None and out[v]["gof_p_value"] is None


def test_a_missing_benchmark_attribute_names_benchmark_on_every_way_in() -> None:
    df = pool()
    cols = E.show_columns(df.columns)
    for call, available in (
            (lambda: df.fair.availability(None, {"age": {1: 1.0}}), cols),
            (lambda: df.lazy().fair.availability(benchmark={"age": {1: 1.0}}).collect(), cols),
            (lambda: polars_fair.counts(df, "race").availability(
                benchmark={"age": {1: 1.0}}).collect(), "['race']"),
            # the table's keys (it listed by's ['race'] as the frame's columns)
            (lambda: polars_fair.counts(df, ["race", "sex"]).availability(
                "race", benchmark={"age": {1: 1.0}}).collect(), "['race', 'sex']")):
        with pytest.raises(E.ColumnNotFoundError) as err:  # was "(by)"
            call()
        assert str(err.value) == E.MISSING_COLUMN.format(column="age", role="benchmark",
                                                         available=available)


def test_a_count_table_takes_the_benchmark_by_position_as_the_rows_do() -> None:
    table = polars_fair.counts(pool(), "race")
    want = pool().fair.availability("race", {"race": RACE})
    assert table.availability("race", {"race": RACE}).collect().equals(want)
    assert table.availability(None, {"race": RACE}).collect().equals(want)


def test_shares_that_do_not_sum_to_one_are_shown_as_written() -> None:
    """0.333 three times sums to 0.999 as written (the float sum 0.9990000000000001 was shown),
    0.3 + 0.6 to 0.9 (0.8999999999999999)."""
    df = pl.DataFrame({"g": ["a", "b", "c"] * 3, "y_true": 1, "y_pred": 1})
    for shares, total in (({"a": 0.333, "b": 0.333, "c": 0.333}, "0.999"),
                          ({"a": 0.3, "b": 0.6, "c": 0.0}, "0.9"),
                          ({"a": 0.1, "b": 0.2, "c": 0.3}, "0.6")):
        with pytest.raises(E.InvalidArgumentError) as err:
            df.fair.availability("g", {"g": shares})
        assert str(err.value) == BENCHMARK_SUM.format(column="g", total=total)
        assert str(err.value).endswith(f"they sum to {total}")


def test_combinations_are_refused_in_availabilitys_own_words_on_every_way_in() -> None:
    """On rows the refusal spoke of a count table ('this table already holds several attribute
    sets; pass by=/combinations= when it is made')."""
    df = pool()
    for call in (lambda: df.fair.availability("race", {"race": RACE}, combinations="all"),
                 lambda: polars_fair.counts(df, ["race", "sex"], combinations="all")
                 .availability(benchmark={"race": RACE}).collect()):
        with pytest.raises(E.InvalidArgumentError) as err:
            call()
        assert str(err.value) == E.AVAILABILITY_SETS
    # its advice followed: leave combinations out
    assert df.fair.availability("race", {"race": RACE}).height == 3
