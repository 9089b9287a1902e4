"""Issue 19 (kind 2): ``sweep`` works from the score table, not rows x thresholds x reports.

With 6,000 thresholds on 1,000 rows the sweep built one plan of 6,000 reports and ran out of
memory in Polars' plan conversion. The counts are now each group's cumulative counts from the
top score down, searched at each threshold (an as-of join), and one report is made per
*step*: thresholds between the same two pooled scores select the same rows in every group, so
they share one report. These tests check the counts and the shared reports by hand.
"""

from __future__ import annotations

import polars as pl

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.analyses.sweep import sweep_counts

#: group a: scores 0.2 (label 0), 0.5 (1), 0.5 (0), 0.9 (1); group b: 0.5 (1), 0.7 (0)
ROWS = pl.DataFrame({
    "g": ["a", "a", "a", "a", "b", "b"],
    "y_true": [0, 1, 0, 1, 1, 0],
    "s": [0.2, 0.5, 0.5, 0.9, 0.5, 0.7],
})
TABLE = pl.LazyFrame({
    "g": ["a", "a", "a", "b", "b"],
    "score": [0.2, 0.5, 0.9, 0.5, 0.7],
    "positives": [0, 1, 1, 1, 0],
    "negatives": [1, 1, 0, 0, 1],
})


def test_counts_at_each_threshold_are_the_cells_at_or_above_it() -> None:
    out = sweep_counts(TABLE, ["g"], [0.1, 0.5, 0.6, 0.9, 1.0]).collect()
    assert out.columns == ["g", "threshold", "n", "tp", "fp", "fn", "tn"]
    # by hand, a (P = 2, N = 2): >= 0.1 all: tp 2 fp 2; >= 0.5: 0.5, 0.5, 0.9: tp 2 fp 1;
    # >= 0.6 and >= 0.9: 0.9 only: tp 1 fp 0; >= 1.0: none: tp 0 fp 0
    # b (P = 1, N = 1): >= 0.1 and >= 0.5: both: tp 1 fp 1; >= 0.6: 0.7: tp 0 fp 1; >= 0.9: none
    assert out.rows() == [
        ("a", 0.1, 4, 2, 2, 0, 0), ("a", 0.5, 4, 2, 1, 0, 1), ("a", 0.6, 4, 1, 0, 1, 2),
        ("a", 0.9, 4, 1, 0, 1, 2), ("a", 1.0, 4, 0, 0, 2, 2),
        ("b", 0.1, 2, 1, 1, 0, 0), ("b", 0.5, 2, 1, 1, 0, 0), ("b", 0.6, 2, 0, 1, 1, 0),
        ("b", 0.9, 2, 0, 0, 1, 1), ("b", 1.0, 2, 0, 0, 1, 1),
    ]


def test_a_null_group_and_no_keys_are_counted_the_same_way() -> None:
    table = TABLE.with_columns(pl.when(pl.col("g") == "b").then(None).otherwise(pl.col("g"))
                               .alias("g"))
    out = sweep_counts(table, ["g"], [0.6]).collect()
    assert out.rows() == [("a", 0.6, 4, 1, 0, 1, 2), (None, 0.6, 2, 0, 1, 1, 0)]
    # no keys: a and b pooled, P = 3, N = 3; >= 0.6: 0.9 (1, 0) and 0.7 (0, 1): tp 1, fp 1
    assert sweep_counts(TABLE.drop("g"), [], [0.6]).collect().rows() == [(0.6, 6, 1, 1, 2, 2)]


def test_thresholds_of_one_step_share_the_report_and_each_matches_report() -> None:
    # the pooled scores are 0.2, 0.5, 0.7, 0.9: 0.55, 0.6 and 0.65 lie in one step (0.5, 0.7]
    # and must give the same figures; each must be report(y_score=, threshold=t)'s
    ts = [0.55, 0.6, 0.65, 0.7, 0.95]
    out = ROWS.fair.sweep("g", y_score="s", thresholds=ts, min_support=1)
    assert out.height == 2 * len(ts)
    for t in ts:
        got = out.filter(pl.col("threshold") == t).drop("threshold")
        want = ROWS.fair.report("g", y_score="s", threshold=t, min_support=1)
        assert got.equals(want), t
    figures = out.drop("threshold").partition_by("g")
    for group in figures:  # rows 0..2 are the thresholds of the one step
        assert group[0].equals(group[1]) and group[1].equals(group[2])
    # by hand at 0.6: a selects 0.9 (tp 1 of 4 rows), b selects 0.7 (fp 1 of 2): selection
    # rates 1/4 and 1/2; the reference is the largest group, a: disparate impact of b = 2
    at = out.filter(pl.col("threshold") == 0.6)
    assert at["selection_rate"].to_list() == [0.25, 0.5]
    assert at["disparate_impact"].to_list() == [1.0, 2.0]


def test_many_thresholds_on_few_rows_give_one_row_per_group_and_threshold() -> None:
    # 6,000 thresholds (the size that ran out of memory), 6 rows: 5 pooled scores make at most
    # 5 steps, and every threshold still has its own row
    ts = [i / 6000 for i in range(1, 6001)]
    out = ROWS.fair.sweep("g", y_score="s", thresholds=ts, min_support=1)
    assert out.height == 2 * 6000
    # a's tp by hand: 2 up to 0.5, 1 in (0.5, 0.9], 0 above 0.9
    a = out.filter(pl.col("g") == "a")
    expected = [2 if t <= 0.5 else 1 if t <= 0.9 else 0 for t in ts]
    assert a["tp"].to_list() == expected
