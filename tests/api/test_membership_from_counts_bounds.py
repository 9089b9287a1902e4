"""``from_counts`` refuses membership count tables that no rows can have (issue 24, third
review item 3): each rule is a typed error naming the column, saying the rule and counting the
rows; before, a table with n_effective above n or negative was audited, and n_effective 0 with
weight raised ZeroDivisionError in impact_analysis."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

M = {"g": {"a": "p_a", "b": "p_b"}}


def _table(weights: bool = False) -> pl.DataFrame:
    """40 rows: p_a = 0.5, 0.5, 1, 0 repeated 10 times (p_b = 1 - p_a).

    By hand for a: n = 30 rows with p_a > 0, weight_sum Σp = 10·2 = 20, Σp² = 10·1.5 = 15,
    n_effective = 20² / 15 = 26.67 (between Σp = 20 and n = 30). b the same by symmetry.
    """
    df = pl.DataFrame({"y_true": [1, 0, 1, 0] * 10, "y_pred": [1, 1, 0, 0] * 10,
                       "p_a": [0.5, 0.5, 1.0, 0.0] * 10, "p_b": [0.5, 0.5, 0.0, 1.0] * 10,
                       "w": [1.0, 2.0, 1.0, 1.0] * 10})
    table = polars_fair.counts(df, membership=M, sample_weight="w" if weights else None)
    return table.frame.collect()


def test_the_hand_computed_table_is_accepted() -> None:
    table = _table()
    assert table["n"].to_list() == [30, 30]
    assert table["weight_sum"].to_list() == [20.0, 20.0]
    assert table["n_effective"].to_list() == pytest.approx([400 / 15] * 2, rel=1e-12)
    report = polars_fair.from_counts(table).report().collect()
    assert report.height == 2


def _refused(table: pl.DataFrame, method: str = "report") -> str:
    with pytest.raises(E.InvalidArgumentError) as info:
        getattr(polars_fair.from_counts(table), method)().collect()
    return str(info.value)


CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    # n_effective 31 > n 30: Kish's size is at most the rows counted
    "above n": ({"n_effective": [31.0, 400 / 15]}, "n_effective",
                "must be at most n (Kish's (Σ w·p)² / Σ (w·p)² is at most the rows counted)"),
    # named as n_effective (the old message, where any, named an internal "x1")
    "negative": ({"n_effective": [-3.0, 400 / 15]}, "n_effective",
                 "must be a finite number >= 0"),
    "nan": ({"n_effective": [float("nan"), 400 / 15]}, "n_effective",
            "must be a finite number >= 0"),
    # 0 with weight_sum 20: every interval divides by it (impact_analysis: ZeroDivisionError)
    "zero with weight": ({"n_effective": [0.0, 400 / 15]}, "n_effective",
                         "must be above 0 where weight_sum is (Kish's size is 0 only without "
                         "weight)"),
    # 19 < weight_sum 20 without sample weights: (Σp)²/Σp² >= Σp as p <= 1
    "below weight_sum": ({"n_effective": [19.0, 400 / 15]}, "n_effective",
                         "must be at least weight_sum without sample weights"),
    "attenuation above 1": ({"attenuation": [1.5, 0.5]}, "attenuation",
                            "must be null or a number in [0, 1] (Var(p) <= μ(1 - μ))"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("method", ["report", "impact_analysis"])
def test_an_impossible_membership_table_is_refused_naming_the_column(case: str,
                                                                      method: str) -> None:
    change, column, rule = CASES[case]
    message = _refused(_table().with_columns(
        **{c: pl.Series(v) for c, v in change.items()}), method)
    assert message.startswith(f"membership count table: {column} {rule}"), message
    assert "; 1 row(s) are not (first such row: {'g': 'a', 'n': 30" in message


def test_both_rows_are_counted() -> None:
    message = _refused(_table().with_columns(n_effective=pl.lit(31.0)))
    assert "; 2 row(s) are not (first such row:" in message


def test_row_weight_sum_below_weight_sum_is_refused() -> None:
    # with sample weights w = 1, 2, 1, 1: a's rows (p_a = 0.5, 0.5, 1) have Σ w = 10·(1 + 2
    # + 1) = 40 and weight_sum Σ w·p = 10·(0.5 + 1 + 1) = 25; b's (p_b = 0.5, 0.5, 1 with w
    # 1, 2, 1) the same. A row_weight_sum of 24 < 25 is impossible
    table = _table(weights=True)
    assert table["row_weight_sum"].to_list() == [40.0, 40.0]
    assert table["weight_sum"].to_list() == [25.0, 25.0]
    polars_fair.from_counts(table).report().collect()  # as counted: accepted
    message = _refused(table.with_columns(row_weight_sum=pl.Series([24.0, 40.0])))
    assert message.startswith("membership count table: row_weight_sum must be at least "
                              "weight_sum (Σ w >= Σ w·p, each p <= 1); 1 row(s) are not")


def test_with_sample_weights_n_effective_may_be_below_weight_sum() -> None:
    # Kish's size does not scale with the weights, weight_sum does: no lower bound then
    table = _table(weights=True).with_columns(pl.col("weight_sum", "tp", "fp", "fn", "tn",
                                                     "row_weight_sum") * 10)
    assert (table["n_effective"] < table["weight_sum"]).all()
    polars_fair.from_counts(table).report().collect()


def test_membership_columns_without_weight_sum_are_refused_at_once() -> None:
    # was polars' own ColumnNotFoundError for "weight_sum" at collect time
    table = pl.DataFrame({"g": ["a", "b"], "n": [3, 3], "tp": [1, 1], "fp": [1, 1],
                          "fn": [0, 0], "tn": [1, 1], "n_effective": [2.0, 2.0]})
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_counts(table)
    assert str(info.value) == E.MEMBERSHIP_UNWEIGHTED.format(columns=["n_effective"])
    # the advice followed: dropped, it is a crisp count table
    report = polars_fair.from_counts(table.drop("n_effective")).report(min_support=1)
    assert report.collect()["selection_rate"].to_list() == [2 / 3, 2 / 3]
