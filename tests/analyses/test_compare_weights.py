"""Zero-weight rows are no observations for compare and the change gate (issue 25 review, 1).

With ``sample_weight`` the intervals rescale each group's weighted cells to its rows; a row of
weight 0 adds nothing to any weighted figure, so it must not count as a row either: the paired
table counts the rows of positive weight (``n_positive_weight``) on every engine, and the
intervals, ``low_support`` and the gate read those.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.compare import paired_difference_interval
from polars_fair.audit.change_gate import change_gate
from polars_fair.counting.paired import PAIRED_CELLS

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def _rows() -> pl.DataFrame:
    # a: 40 rows of weight 1, 20 selected by both models, 20 by neither (no change);
    # b: 40 rows of weight 2, the baseline selects 16 of them, the candidate 4 of those 16
    rows = [("a", 1, 1, 1.0)] * 20 + [("a", 0, 0, 1.0)] * 20
    rows += [("b", 1, 1, 2.0)] * 4 + [("b", 0, 1, 2.0)] * 12 + [("b", 0, 0, 2.0)] * 24
    return pl.DataFrame(rows, schema=["g", "new", "old", "w"], orient="row")


def _zeros(k: int) -> pl.DataFrame:
    # k rows of weight 0 in each group, the candidate selecting where the baseline does not
    return pl.DataFrame({"g": ["a"] * k + ["b"] * k, "new": [1] * 2 * k, "old": [0] * 2 * k,
                         "w": [0.0] * 2 * k})


ARGS: dict[str, Any] = dict(y_pred="new", baseline="old", sample_weight="w")


def test_the_paired_table_counts_the_rows_of_positive_weight() -> None:
    table = polars_fair.paired_counts(pl.concat([_rows(), _zeros(5)]), "g", **ARGS)
    got = table.frame.select("g", "n", "weight_sum", "n_positive_weight").collect()
    # a: 40 + 5 rows, weight 40, 40 of them positive; b: 40 + 5 rows, weight 80
    assert got.rows() == [("a", 45, 40.0, 40), ("b", 45, 80.0, 40)]


def test_zero_weight_rows_change_no_interval() -> None:
    plain = _rows().fair.compare("g", **ARGS, min_support=1)
    padded = pl.concat([_rows(), _zeros(60)]).fair.compare("g", **ARGS, min_support=1)
    assert_frame_equal(plain.drop("n"), padded.drop("n"))
    # b by hand: equal weights (2), so the cells rescaled to 40 rows are (4, 0, 12, 24), the
    # unweighted interval of Newcombe's method 10; before the fix they were rescaled to 100
    low, high = paired_difference_interval([4], [0], [12], [24])
    b = padded.row(1, named=True)
    assert b["selection_rate_change"] == pytest.approx((0 - 24) / 80)
    assert (b["selection_rate_change_low"], b["selection_rate_change_high"]) == pytest.approx(
        (low[0], high[0]), abs=1e-12)
    wrong_low, _ = paired_difference_interval([10], [0], [30], [60])  # the 100 rows' interval
    assert wrong_low[0] > low[0]


def test_zero_weight_rows_change_no_gate_decision() -> None:
    rows = _rows()
    plain = change_gate(polars_fair.paired_counts(rows, "g", **ARGS), min_support=30)
    padded = change_gate(polars_fair.paired_counts(pl.concat([rows, _zeros(60)]), "g", **ARGS),
                         min_support=30)
    assert_frame_equal(plain.drop("n", "reason"), padded.drop("n", "reason"))
    assert plain["reason"].to_list() == padded["reason"].to_list()
    # b's impact ratio falls from 0.4/0.5 = 0.8 to 0.1/0.5 = 0.2, and all 12 discordant pairs
    # point the same way: a real drop, whatever the zero-weight rows say
    assert plain.select("g", "checked", "passed").rows() == [("a", True, True),
                                                             ("b", True, False)]


def test_zero_weight_rows_do_not_lift_a_group_over_min_support() -> None:
    # 20 rows of positive weight in b and 20 of weight 0: 20 < 30 rows, not checked
    rows = pl.concat([_rows().filter(pl.col("g") == "a"),
                      _rows().filter(pl.col("g") == "b").head(20), _zeros(20).tail(20)])
    out = rows.fair.compare("g", **ARGS, min_support=30)
    assert out.select("g", "n", "low_support").rows() == [("a", 40, False), ("b", 40, True)]
    gate = change_gate(polars_fair.paired_counts(rows, "g", **ARGS), min_support=30)
    assert gate.filter(pl.col("g") == "b")["checked"].to_list() == [False]


def test_every_engine_counts_the_rows_of_positive_weight() -> None:
    duckdb = pytest.importorskip("duckdb")
    rows = pl.concat([_rows(), _zeros(5)])
    expected = rows.fair.compare("g", **ARGS)
    rel = duckdb.from_arrow(rows.to_arrow())
    assert_frame_equal(polars_fair.paired_counts(rel, "g", **ARGS).compare().collect(),
                       expected)
    lazy = rows.lazy().fair.compare("g", **ARGS).collect(engine="streaming")
    assert_frame_equal(lazy, expected)


def test_the_spark_paired_table_counts_the_rows_of_positive_weight(spark: Any) -> None:
    rows = pl.concat([_rows(), _zeros(5)])
    sdf = spark.createDataFrame(rows.to_pandas())
    got = polars_fair.paired_counts(sdf, "g", **ARGS).frame.collect()
    assert got["n_positive_weight"].to_list() == [40, 40]
    assert_frame_equal(polars_fair.from_paired_counts(got, labels=False).compare().collect(),
                       rows.fair.compare("g", **ARGS))


def test_a_weighted_table_made_elsewhere_must_say_its_rows_of_positive_weight() -> None:
    table = polars_fair.paired_counts(_rows(), "g", **ARGS).frame.collect()
    with pytest.raises(E.ColumnNotFoundError, match="needs n_positive_weight") as info:
        polars_fair.from_paired_counts(table.drop("n_positive_weight"))
    assert str(info.value) == E.PAIRED_POSITIVE_ROWS
    over = table.with_columns(n_positive_weight=pl.col("n") + 1)
    with pytest.raises(E.InvalidInputError, match=r"n_positive_weight \[41, 41\]"):
        polars_fair.from_paired_counts(over).compare().collect()
    zero = table.with_columns(n_positive_weight=pl.lit(0, pl.Int64))
    with pytest.raises(E.InvalidInputError, match="must lie between 0 and n"):
        polars_fair.from_paired_counts(zero).compare().collect()
    # what paired_counts made goes back in unchanged
    assert_frame_equal(polars_fair.from_paired_counts(table, labels=False).compare().collect(),
                       _rows().fair.compare("g", **ARGS))
    assert set(PAIRED_CELLS) < set(table.columns)
