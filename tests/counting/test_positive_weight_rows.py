"""Rows of weight 0 are no observations for any count-table analysis (issue 25 re-review, 1).

With ``sample_weight`` every weighted figure ignores a row of weight 0, so support flags, the
reference rule ``"largest"``, the intervals and the gate's support check must not count it
either. The weighted count table carries ``n_positive_weight`` (the name compare's paired
table uses) on every engine; ``from_counts`` takes it optionally (without it the support
falls back to ``n``, every row).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from statsmodels.stats.proportion import proportion_confint
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.audit.gate import gate
from polars_fair.cli.entry import app
from tests.conftest import Runner

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def _rows() -> pl.DataFrame:
    """a: 3 rows of weight 1 (2 selected) and 3 of weight 0; b: 4 rows of weight 1 (1 selected).

    By hand: a has n = 6 rows, weight_sum = 3, n_positive_weight = 3; its weighted cells
    (y_true, y_pred): (1, 1) w 1 -> tp 1; (0, 1) w 1 -> fp 1; (0, 0) w 1 -> tn 1; the three
    rows of weight 0 add nothing. b: n = 4, weight_sum = 4, n_positive_weight = 4; tp 1, fn 1,
    tn 2.
    """
    return pl.DataFrame({
        "g": ["a"] * 6 + ["b"] * 4,
        "y_true": [1, 0, 0, 1, 1, 1, 1, 1, 0, 0],
        "y_pred": [1, 1, 0, 1, 1, 1, 1, 0, 0, 0],
        "w": [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0],
    })


W: dict[str, Any] = {"sample_weight": "w"}
HAND = [("a", 6, 1.0, 1.0, 0.0, 1.0, 3.0, 3), ("b", 4, 1.0, 0.0, 1.0, 2.0, 4.0, 4)]


def test_the_weighted_count_table_counts_the_rows_of_positive_weight(run: Runner) -> None:
    out = run(_rows(), "confusion", "g", **W)
    assert out.columns == ["g", "n", "tp", "fp", "fn", "tn", "weight_sum", "n_positive_weight"]
    assert out.schema["n_positive_weight"] == pl.Int64
    assert out.rows() == HAND


def test_an_unweighted_count_table_has_no_such_column(run: Runner) -> None:
    out = run(_rows(), "confusion", "g")
    assert out.columns == ["g", "n", "tp", "fp", "fn", "tn"]


def test_zero_weight_rows_do_not_lift_a_group_over_min_support(run: Runner) -> None:
    # min_support 4: a has 6 rows but only 3 of positive weight (low); b has 4 (supported).
    # Before the fix a counted 6 >= 4 and was not flagged.
    out = run(_rows(), "report", "g", **W, min_support=4)
    assert out.select("g", "n", "n_positive_weight", "low_support").rows() == [
        ("a", 6, 3, True), ("b", 4, 4, False)]
    # and "largest" is b (4 rows of positive weight), not a (6 rows, 3 of them weightless)
    assert out.filter(pl.col("is_reference"))["g"].to_list() == ["b"]


def test_zero_weight_rows_change_no_report_figure() -> None:
    """Dropping the rows of weight 0 changes nothing but ``n``: they are no observations."""
    rows = _rows()
    every = rows.fair.report("g", **W, min_support=4)
    positive = rows.filter(pl.col("w") > 0).fair.report("g", **W, min_support=4)
    assert_frame_equal(every.drop("n"), positive.drop("n"))
    assert (every["n"].to_list(), positive["n"].to_list()) == ([6, 4], [3, 4])


def test_the_intervals_count_the_rows_of_positive_weight() -> None:
    # a's selection rate: (tp + fp) / weight_sum = 2/3, rescaled to its 3 rows of positive
    # weight: 2 of 3, Wilson's interval of (2, 3) (statsmodels, an independent oracle). Before
    # the fix the cells were rescaled to n = 6 rows: Wilson (4, 6), narrower.
    m = _rows().fair.metrics("g", **W, min_support=4)
    a = m.filter((pl.col("g") == "a") & (pl.col("metric") == "selection_rate")).row(0, named=True)
    low, high = proportion_confint(2, 3, alpha=0.05, method="wilson")
    assert a["value"] == pytest.approx(2 / 3)
    assert (a["ci_low"], a["ci_high"]) == pytest.approx((low, high), abs=1e-12)
    wrong_low, _ = proportion_confint(4, 6, alpha=0.05, method="wilson")
    assert wrong_low > low
    # its denominator, weight 3 rescaled to 3 rows, is below 4: low support (6 rows were not)
    assert a["low_support"] is True
    assert_frame_equal(m, _rows().filter(pl.col("w") > 0).fair.metrics("g", **W, min_support=4))


def test_the_gate_does_not_check_a_group_of_too_few_positive_weight_rows() -> None:
    counts = polars_fair.counts(_rows(), "g", **W)
    out = gate(counts, min_support=4).filter(pl.col("metric") == "impact_ratio")
    # a: 3 rows of positive weight < 4, listed but not checked; b: 4, checked
    assert out.select("g", "n", "checked", "reason").rows() == [
        ("a", 6, False, "n < 4"), ("b", 4, True, None)]


def test_check_on_the_command_line_counts_the_rows_of_positive_weight(tmp_path: Path) -> None:
    path = tmp_path / "w.csv"
    _rows().write_csv(path)
    result = CliRunner().invoke(app, ["check", str(path), "--by", "g", "--sample-weight", "w",
                                      "--min-support", "4", "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # a: 6 rows, 3 of positive weight < 4: skipped (it was checked before the fix); b checked
    assert (out["checked_groups"], out["skipped_low_support"]) == (["g=b"], ["g=a"])
    assert out["reference"] == "g=b"


def test_from_counts_takes_the_column_and_falls_back_to_n_without_it() -> None:
    table = _rows().fair.confusion("g", **W)
    want = _rows().fair.report("g", **W, min_support=4)
    assert_frame_equal(polars_fair.from_counts(table).report(min_support=4).collect(), want)
    # without it every row counts (the documented fallback): a's 6 rows are supported
    old = polars_fair.from_counts(table.drop("n_positive_weight")).report(min_support=4)
    assert old.collect()["low_support"].to_list() == [False, False]
    # partial tables add up
    twice = polars_fair.from_counts(pl.concat([table, table])).frame.collect()
    assert twice["n_positive_weight"].to_list() == [6, 8]


def test_from_counts_refuses_an_inconsistent_count_of_positive_weight_rows() -> None:
    table = _rows().fair.confusion("g", **W)
    over = table.with_columns(n_positive_weight=pl.col("n") + 1)
    with pytest.raises(E.InvalidArgumentError, match=r"n_positive_weight \[7, 5\] do not"):
        polars_fair.from_counts(over).frame.collect()
    zero = table.with_columns(n_positive_weight=pl.lit(0, pl.Int64))
    with pytest.raises(E.InvalidArgumentError, match="above 0 where weight_sum is"):
        polars_fair.from_counts(zero).frame.collect()
    half = table.with_columns(n_positive_weight=pl.col("n_positive_weight") + 0.5)
    with pytest.raises(E.InvalidArgumentError, match="non-integer"):
        polars_fair.from_counts(half).frame.collect()


def test_an_unweighted_table_with_the_column_follows_the_advice() -> None:
    table = _rows().fair.confusion("g").with_columns(n_positive_weight=pl.col("n"))
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_counts(table)
    assert str(info.value) == E.POSITIVE_ROWS_UNWEIGHTED
    # the advice: drop n_positive_weight
    out = polars_fair.from_counts(table.drop("n_positive_weight")).report().collect()
    assert_frame_equal(out, _rows().fair.report("g"))


def test_duckdb_counts_the_rows_of_positive_weight() -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(_rows().to_arrow())
    got = polars_fair.counts(rel, "g", **W).frame.collect()
    assert got.rows() == HAND
    assert_frame_equal(polars_fair.counts(rel, "g", **W).report(min_support=4).collect(),
                       _rows().fair.report("g", **W, min_support=4))


def test_spark_counts_the_rows_of_positive_weight(spark: Any) -> None:
    sdf = spark.createDataFrame(_rows().to_pandas())
    got = polars_fair.counts(sdf, "g", **W).frame.collect()
    assert got.rows() == HAND
    assert_frame_equal(polars_fair.counts(sdf, "g", **W).report(min_support=4).collect(),
                       _rows().fair.report("g", **W, min_support=4))


def test_the_weighted_score_table_and_sweep_count_them_too() -> None:
    rows = _rows().with_columns(s=pl.col("y_pred").cast(pl.Float64) * 0.5 + 0.25)
    scores = rows.fair.scores("g", y_score="s", **W)
    assert scores.group_by("g").agg(pl.col("n_rows", "n_positive_weight").sum()).sort(
        "g").rows() == [("a", 6, 3), ("b", 4, 4)]
    swept = rows.fair.sweep("g", y_score="s", thresholds=[0.5], **W, min_support=4)
    assert swept.select("g", "n_positive_weight", "low_support").rows() == [
        ("a", 3, True), ("b", 4, False)]
