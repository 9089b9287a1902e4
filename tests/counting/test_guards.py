"""Issue 11, kinds 4, 6, 7, 8 and 9: inputs that cannot fool an audit, bounded work.

* kind 4: NaN in a group column is missing, exactly as null, on every engine;
* kind 6: contradictory or non-numeric arguments raise; numpy scalars are accepted;
* kind 7: count tables are widened before any check, sums cannot overflow, rates are never NaN;
* kind 8: every bad input is a typed error naming the argument or column;
* kind 9: a size limit is checked before anything large is built, and names its option.

Every expected value is worked out by hand in the test.
"""

from __future__ import annotations

import datetime as dt
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from polars_fair import from_counts, from_scores
from polars_fair.analyses.pairwise import BAD_METRICS, NO_METRICS
from polars_fair.analyses.scores.permutation import MAX_POOLED_ROWS
from tests.conftest import Runner

NAN = float("nan")

# ------------------------------------------------------------------ kind 4: NaN keys are missing
# The example: age_group 1.0 x4 rows (1 selected), 2.0 x4 (2 selected), NaN x6
# (4 selected), null x1 (0 selected). Labels equal the selections, so tp = selected and
# tn = the rest. Missing rows: 6 NaN + 1 null = 7, of which 4 selected.
AGE = pl.DataFrame(
    {
        "age_group": [1.0] * 4 + [2.0] * 4 + [NAN] * 6 + [None],
        "y_true": [1, 0, 0, 0] + [1, 1, 0, 0] + [1, 1, 1, 1, 0, 0] + [0],
        "y_pred": [1, 0, 0, 0] + [1, 1, 0, 0] + [1, 1, 1, 1, 0, 0] + [0],
    },
    schema_overrides={"age_group": pl.Float64},
)
#: (age_group, n, tp, fp, fn, tn): one missing group of 7 rows, never a NaN group
AGE_COUNTS = [(1.0, 4, 1, 0, 0, 3), (2.0, 4, 2, 0, 0, 2), (None, 7, 4, 0, 0, 3)]


def test_nan_key_is_the_missing_group(run: Runner) -> None:
    assert run(AGE, "confusion", "age_group").rows() == AGE_COUNTS


def test_nan_key_counts_as_null_for_raise() -> None:
    with pytest.raises(E.NullGroupError) as info:
        AGE.fair.confusion("age_group", null_groups="raise")
    assert str(info.value) == E.NULL_GROUPS.format(counts={"age_group": 7})


def test_nan_key_is_dropped_and_counted_by_drop(run: Runner) -> None:
    with pytest.warns(UserWarning) as record:
        out = run(AGE, "confusion", "age_group", null_groups="drop")
    assert [str(w.message) for w in record] == [
        E.DROPPED_NULL_GROUPS.format(rows=7, counts={"age_group": 7})]
    assert out.rows() == AGE_COUNTS[:2]


def test_kept_missing_group_is_never_the_reference(run: Runner) -> None:
    out = run(AGE, "report", "age_group", min_support=1)
    # "largest" among the known groups: 1.0 and 2.0 both have 4 rows, the first in key order
    # wins; the missing group (7 rows) is kept as one group but is not eligible
    assert out["age_group"].to_list() == [1.0, 2.0, None]
    assert out["is_reference"].to_list() == [True, False, False]
    # DI against 1.0 (selection rate 1/4): 2.0 -> (2/4)/(1/4) = 2, missing -> (4/7)/(1/4) = 16/7
    assert out["disparate_impact"].to_list() == pytest.approx([1.0, 2.0, 16 / 7])


def test_nan_reference_names_the_missing_group() -> None:
    out = AGE.fair.report("age_group", reference=NAN, min_support=1)
    assert out["is_reference"].to_list() == [False, False, True]
    # DI against the missing group's 4/7: 1.0 -> (1/4)/(4/7) = 7/16, 2.0 -> (2/4)/(4/7) = 7/8
    assert out["disparate_impact"].to_list() == pytest.approx([7 / 16, 7 / 8, 1.0])


def test_bias_audit_counts_nan_as_unknown() -> None:
    out = AGE.fair.bias_audit(["age_group"], y_pred="y_pred", min_share=0.0)
    assert out["unknown_rows"].to_list() == [7, 7, 7]
    assert out["unknown_category"].to_list() == [False, False, True]
    # impact ratios among the known categories: 1/4 over the highest 2/4
    assert out["impact_ratio"].to_list() == [0.5, 1.0, None]


def test_from_counts_nan_key_is_the_missing_group() -> None:
    t = pl.DataFrame({"g": [1.0, NAN, None], "n": [2, 3, 4], "tp": [1, 1, 1], "fp": [0, 1, 1],
                      "fn": [0, 0, 1], "tn": [1, 1, 1]})
    assert from_counts(t).confusion().collect().rows() == [
        (1.0, 2, 1, 0, 0, 1), (None, 7, 2, 2, 1, 2)]


def test_nan_keys_on_duckdb_equal_polars() -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    rel = con.from_arrow(AGE.to_arrow())
    got = polars_fair.counts(rel, "age_group").confusion().collect()
    assert got.rows() == AGE_COUNTS
    with pytest.raises(E.NullGroupError) as info:
        polars_fair.counts(rel, "age_group", null_groups="raise").frame.collect()
    assert str(info.value) == E.NULL_GROUPS.format(counts={"age_group": 7})


@pytest.mark.slow
def test_nan_keys_on_spark_equal_polars() -> None:
    pytest.importorskip("pyspark")
    import os

    from pyspark.sql import SparkSession

    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    try:
        spark = (SparkSession.builder.master("local[2]").appName("polars_fair-guards")
                 .config("spark.ui.enabled", "false")
                 .config("spark.sql.shuffle.partitions", "2")
                 .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
    except Exception as exc:  # noqa: BLE001  (no Java: any startup error)
        pytest.skip(f"Spark did not start: {exc}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # pandas 3 notice of createDataFrame
        sdf = spark.createDataFrame(AGE.to_arrow())
    got = polars_fair.counts(sdf, "age_group").confusion().collect()
    assert got.rows() == AGE_COUNTS


# -------------------------------------------- kind 4: combinations="all" with null_groups="drop"
# Rows (race, sex, y_true, y_pred): 1 (a, F, 1, 1) tp; 2 (a, null, 0, 1) fp; 3 (b, M, 1, 0) fn;
# 4 (null, F, 0, 0) tn; 5 (b, M, 1, 1) tp.
SETS = pl.DataFrame({"race": ["a", "a", "b", None, "b"], "sex": ["F", None, "M", "F", "M"],
                     "y_true": [1, 0, 1, 0, 1], "y_pred": [1, 1, 0, 0, 1]})


def test_drop_with_several_sets_drops_per_set(run: Runner) -> None:
    with pytest.warns(UserWarning) as record:
        out = run(SETS, "confusion", ["race", "sex"], combinations="all", null_groups="drop")
    assert [str(w.message) for w in record] == [E.DROPPED_NULL_GROUPS_SETS.format(
        counts={"race": 1, "sex": 1, "race, sex": 2})]
    assert out.rows() == [
        # race set: row 4 only is dropped; row 2 (sex missing) still counts for a
        (["race"], "a", None, 2, 1, 1, 0, 0),
        (["race"], "b", None, 2, 1, 0, 1, 0),
        # sex set: row 2 only is dropped; row 4 (race missing) still counts for F
        (["sex"], None, "F", 2, 1, 0, 0, 1),
        (["sex"], None, "M", 2, 1, 0, 1, 0),
        # race x sex: rows 2 and 4 are dropped
        (["race", "sex"], "a", "F", 1, 1, 0, 0, 0),
        (["race", "sex"], "b", "M", 2, 1, 0, 1, 0),
    ]


def test_drop_leaving_a_set_empty_raises() -> None:
    df = SETS.with_columns(sex=pl.lit(None, dtype=pl.String))
    with pytest.raises(E.EmptyFrameError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df.fair.confusion(["race", "sex"], combinations="all", null_groups="drop")
    assert str(info.value) == E.EMPTY_FRAME.format(
        detail=" in attribute set ['sex'] after dropping null groups")


# ------------------------------------------------------------------ kind 6: arguments
SCORED = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
                       "y_pred": [1, 0, 0, 1], "y_score": [0.9, 0.2, 0.4, 0.6]})


def test_y_pred_given_with_y_score_raises() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        SCORED.fair.rates("g", y_pred="y_pred", y_score="y_score", threshold=0.5)
    assert str(info.value) == E.PRED_AND_SCORE


def test_y_pred_default_reads_y_pred_unless_y_score_is_given() -> None:
    # y_pred: a = (tp 1, tn 1), b = (fn 1, fp 1): selection rates 1/2, 1/2
    assert SCORED.fair.confusion("g").rows() == [("a", 2, 1, 0, 0, 1), ("b", 2, 0, 1, 1, 0)]
    # y_score >= 0.5: a = (0.9 -> tp, 0.2 -> tn), b = (0.4 -> fn, 0.6 -> fp): the same here
    thresholded = SCORED.with_columns(y_score=pl.Series([0.9, 0.2, 0.6, 0.4]))
    assert thresholded.fair.confusion("g", y_score="y_score", threshold=0.5).rows() == [
        ("a", 2, 1, 0, 0, 1), ("b", 2, 1, 0, 0, 1)]


@pytest.mark.parametrize("name", ["max_order", "max_groups"])
@pytest.mark.parametrize("value", [NAN, float("inf"), 2.0, "2", 0, True])
def test_integer_count_options_refuse_non_integers(name: str, value: Any) -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        SETS.fair.confusion(["race", "sex"], combinations="all", **{name: value})
    assert str(info.value) == E.BAD_INT_OPTION.format(name=name, low=1, value=value)


@pytest.mark.parametrize("value", [None, NAN, np.float64("nan")])
def test_pos_label_null_or_nan_raises(value: Any) -> None:
    with pytest.raises(E.InvalidLabelError) as info:
        SCORED.fair.confusion("g", pos_label=value)
    assert str(info.value) == E.BAD_POS_LABEL.format(
        value=value.item() if isinstance(value, np.generic) else value)


def test_numpy_scalars_are_accepted_everywhere() -> None:
    df = SCORED.with_columns(k=pl.Series([1, 1, 2, 2]))
    assert df.fair.report("k", pos_label=np.int64(1), reference=np.int64(2),
                          min_support=1).equals(
        df.fair.report("k", pos_label=1, reference=2, min_support=1))
    assert df.fair.confusion("g", y_score="y_score", threshold=np.float64(0.5)).equals(
        df.fair.confusion("g", y_score="y_score", threshold=0.5))
    assert df.fair.confusion(["g", "k"], combinations="all", max_order=np.int64(1),
                             max_groups=np.int32(10)).equals(
        df.fair.confusion(["g", "k"], combinations="all", max_order=1, max_groups=10))
    assert df.fair.pairwise("g", max_pairs=np.int64(2)).equals(df.fair.pairwise("g"))
    a = df.fair.abroca_test("g", n_permutations=np.int64(20), seed=np.int64(3))
    b = df.fair.abroca_test("g", n_permutations=20, seed=3)
    assert a.equals(b)
    assert df.fair.sweep("g", thresholds=np.array([0.5, 0.7])).equals(
        df.fair.sweep("g", thresholds=[0.5, 0.7]))


# ------------------------------------------------------------------ kind 7: count tables
def _cells(dtype: pl.DataType, **values: list[int]) -> pl.DataFrame:
    return pl.DataFrame({"g": ["a"] * len(values["n"]),
                         **{c: pl.Series(values[c], dtype=dtype) for c in values}})


def test_uint32_count_table_is_widened_before_the_check() -> None:
    # In UInt32, tp + fp = 6,000,000,000 wraps to 6e9 - 2^32 = 1,705,032,704 = n: the row
    # passed the check and gave a selection rate of 6e9 / 1,705,032,704 = 3.52. Widened to
    # Int64 the cells add up to 6e9, not n: the row is inconsistent.
    t = _cells(pl.UInt32(), n=[1_705_032_704], tp=[3_000_000_000], fp=[3_000_000_000],
               fn=[0], tn=[0])
    with pytest.raises(E.InvalidArgumentError) as info:
        from_counts(t).rates().collect()
    assert str(info.value) == (
        "count table rows where n != tp + fp + fn + tn: 1 (for example ('a', 1705032704, "
        "3000000000, 3000000000, 0, 0)); each row's four cells must add up to n (weighted "
        "counts need a weight_sum column)")


def test_narrow_counts_are_summed_without_wrapping() -> None:
    # two partial Int8 rows of group a, 100 rows each, all selected: 200 > 127 (Int8's max)
    t = _cells(pl.Int8(), n=[100, 100], tp=[60, 60], fp=[40, 40], fn=[0, 0], tn=[0, 0])
    out = from_counts(t).rates().collect()
    assert out.select("n", "selection_rate", "ppv").rows() == [(200, 1.0, 0.6)]


def test_count_totals_beyond_int64_raise() -> None:
    t = _cells(pl.Int64(), n=[2**62, 2**62], tp=[2**62, 2**62], fp=[0, 0], fn=[0, 0], tn=[0, 0])
    with pytest.raises(E.InvalidArgumentError) as info:
        from_counts(t).rates().collect()
    assert str(info.value) == E.COUNT_SUM_OVERFLOW.format(column="n", total=2**63)
    assert "9,223,372,036,854,775,808" in str(info.value)


def test_uint64_counts_beyond_int64_raise() -> None:
    big = 2**64 - 1
    t = _cells(pl.UInt64(), n=[big], tp=[big], fp=[0], fn=[0], tn=[0])
    with pytest.raises(E.InvalidArgumentError) as info:
        from_counts(t).rates().collect()
    assert str(info.value) == E.COUNT_TOO_LARGE.format(column="n", count=1, example=big)


def test_weighted_totals_must_be_finite() -> None:
    t = pl.DataFrame({"g": ["a", "b"], "n": [1, 1], "tp": [1e308, 1e308], "fp": [0.0, 0.0],
                      "fn": [0.0, 0.0], "tn": [0.0, 0.0], "weight_sum": [1e308, 1e308]})
    with pytest.raises(E.InvalidArgumentError) as info:
        from_counts(t).rates().collect()
    assert str(info.value) == E.WEIGHTED_SUM_OVERFLOW.format(column="tp")
    # rows: each group's weight 1e308 is finite, their total 2e308 is not
    rows = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 1], "y_pred": [1, 1],
                         "w": [1e308, 1e308]})
    with pytest.raises(E.InvalidWeightError) as winfo:
        rows.fair.rates("g", sample_weight="w")
    assert str(winfo.value) == E.WEIGHT_TOTAL_OVERFLOW.format(column="w")


def test_rates_are_never_nan_with_tiny_weights() -> None:
    # weights of the smallest subnormal: a = tp 5e-324, tn 5e-324 -> selection rate 1/2
    df = pl.DataFrame({"g": ["a", "a"], "y_true": [1, 0], "y_pred": [1, 0],
                       "w": [5e-324, 5e-324]})
    out = df.fair.rates("g", sample_weight="w")
    values = [v for c in out.columns if out[c].dtype == pl.Float64 for v in out[c].to_list()]
    assert not any(isinstance(v, float) and math.isnan(v) for v in values)
    assert out["selection_rate"].to_list() == [0.5]


def test_from_scores_widens_narrow_counts() -> None:
    t = pl.DataFrame({"g": ["a", "a"], "score": [0.2, 0.8],
                      "positives": pl.Series([0, 3_000_000_000], dtype=pl.UInt32),
                      "negatives": pl.Series([3_000_000_000, 0], dtype=pl.UInt32)})
    # one score per class: a perfect ranking, AUC 1; n = 6e9 (beyond UInt32, within Int64)
    out = from_scores(t).abroca().collect()
    assert out.select("n", "auc").rows() == [(6_000_000_000, 1.0)]


# ------------------------------------------------------------------ kind 8: typed errors
BAD = pl.DataFrame({
    "g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0], "y_pred": [1, 0, 0, 1],
    "d": [dt.datetime(2020, 1, 1)] * 2 + [dt.datetime(2021, 1, 1)] * 2,
    "day": [dt.date(2020, 1, 1)] * 2 + [dt.date(2021, 1, 1)] * 2,
    "o": pl.Series([object()] * 4, dtype=pl.Object), "l": [[1], [1], [2], [2]],
    "s": [{"x": 1}] * 4,
})


@pytest.mark.parametrize("column", ["d", "day"])
def test_temporal_reference_as_text_is_a_typed_error(column: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        BAD.fair.report(column, reference="2020-01-01", min_support=1)
    assert str(info.value) == E.VALUE_DTYPE.format(
        role="reference", value="2020-01-01", type="str", column=column,
        dtype=BAD.schema[column], example=", for example " + repr(
            dt.date(2020, 1, 1) if column == "day" else dt.datetime(2020, 1, 1)))
    # a date object names the group: the first group is the reference
    out = BAD.fair.report(column, reference=dt.date(2020, 1, 1), min_support=1)
    assert out["is_reference"].to_list() == [True, False]


@pytest.mark.parametrize("column", ["o", "l", "s"])
def test_object_and_nested_attributes_are_typed_errors(column: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        BAD.fair.report(column)
    assert str(info.value) == E.BAD_KEY_DTYPE.format(column=column, dtype=BAD.schema[column])


@pytest.mark.parametrize(("column", "role"), [("o", "y_true"), ("l", "y_pred"), ("s", "y_true"),
                                              ("day", "y_pred")])
def test_object_nested_and_date_labels_are_typed_errors(column: str, role: str) -> None:
    with pytest.raises(E.InvalidLabelError) as info:
        BAD.fair.report("g", **{role: column})
    assert str(info.value) == E.BAD_LABEL_DTYPE.format(column=column, role=role,
                                                       dtype=BAD.schema[column])


@pytest.mark.parametrize(("by", "message"), [
    (1, E.NOT_A_COLUMN.format(role="by", value=1, type="int")),
    ([["g"], [1]], E.NOT_A_COLUMN.format(role="by", value=1, type="int")),
    # the argument, and the columns the selector takes as the list advised (issue 22: the
    # advice was by=['race', 'sex'] whatever the frame held)
    (pl.all(), E.NOT_ONE_COLUMN.format(expr=pl.all(), role="by", advice=E.ONE_PER_ATTRIBUTE.format(
        role="by", example="['g', 'y_true', 'y_pred', 'd', ...]"))),
    (pl.col("g", "day"), E.NOT_ONE_COLUMN.format(
        expr=pl.col("g", "day"), role="by",
        advice=E.ONE_PER_ATTRIBUTE.format(role="by", example="['g', 'day']"))),
])
def test_by_that_is_not_one_column_is_a_typed_error(by: Any, message: str) -> None:
    for method in ("confusion", "report", "pairwise", "summary"):
        with pytest.raises(E.InvalidArgumentError) as info:
            getattr(BAD.lazy().fair, method)(by)
        assert str(info.value) == message


def test_header_only_csv_is_an_empty_input(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("g,y_true,y_pred\n")
    # every column reads as String, so pos_label=1 "does not match": the input is empty first
    with pytest.raises(E.EmptyFrameError) as info:
        pl.scan_csv(path).fair.report("g")
    assert str(info.value) == E.EMPTY_FRAME.format(detail="")


def test_abroca_test_beyond_the_sampler_limit_raises_before_drawing() -> None:
    # group a: 500,000,000 rows, b: 18 rows; pooled 1,000,000,018 >= 10^9
    t = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
                      "positives": [250_000_000, 250_000_000, 3, 4],
                      "negatives": [250_000_000, 250_000_000, 5, 6]})
    with pytest.raises(E.SizeLimitError) as info:
        from_scores(t).abroca_test(reference="a", n_permutations=9, seed=0).collect()
    assert str(info.value) == E.TOO_LARGE_TO_PERMUTE.format(
        group="b", rows=1_000_000_018, limit=MAX_POOLED_ROWS)


@pytest.mark.parametrize(("option", "message"), [
    ({"seed": "x"}, E.BAD_SEED.format(value="x")),
    ({"seed": -1}, E.BAD_SEED.format(value=-1)),
    ({"progress": "x"}, E.NOT_A_BOOL.format(name="progress", value="x")),
    ({"return_draws": 1}, E.NOT_A_BOOL.format(name="return_draws", value=1)),
])
def test_abroca_test_options_are_checked(option: dict[str, Any], message: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        SCORED.fair.abroca_test("g", n_permutations=9, **option)
    assert str(info.value) == message


def test_from_counts_keys() -> None:
    t = pl.DataFrame({"gx": ["a"], "n": [2], "tp": [1], "fp": [0], "fn": [1], "tn": [0]})
    # a name is one key (it was read as the characters 'g', 'x')
    assert from_counts(t, keys="gx").keys == ["gx"]
    with pytest.raises(E.InvalidArgumentError) as info:
        from_counts(t, keys=1)  # type: ignore[arg-type]
    assert str(info.value) == E.NOT_A_COLUMN.format(role="keys", value=1, type="int")


def test_threshold_beyond_any_float_is_a_typed_error() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        SCORED.fair.rates("g", y_score="y_score", threshold=10**400)
    assert str(info.value) == E.BAD_THRESHOLD.format(value=10**400)


@pytest.mark.parametrize(("metrics", "message"), [
    (1, BAD_METRICS.format(value=1, type="int")),
    (["ofi", 2], BAD_METRICS.format(value=["ofi", 2], type="list")),
    ([], NO_METRICS),
])
def test_pairwise_metrics_are_checked(metrics: Any, message: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        SCORED.fair.pairwise("g", metrics=metrics)
    assert str(info.value) == message


#: Bad inputs through every classification method: (count arguments, error type, the text the
#: message must hold: the argument or column it names).
CATALOGUE: dict[str, tuple[dict[str, Any], type[E.PolarsFairError], str]] = {
    "by int": ({"by": 1}, E.InvalidArgumentError, "by must be a column name"),
    "by missing": ({"by": "zz"}, E.ColumnNotFoundError, "column 'zz' (by) not found"),
    "by object": ({"by": "o"}, E.InvalidArgumentError, "attribute 'o' (by) has dtype Object"),
    "by selector": ({"by": pl.all()}, E.InvalidArgumentError, "does not give one named column"),
    "y_true int": ({"y_true": 3}, E.InvalidArgumentError, "y_true must be a column name"),
    "y_true list": ({"y_true": "l"}, E.InvalidLabelError, "'l' (y_true) has dtype List"),
    "y_pred and y_score": ({"y_pred": "y_pred", "y_score": "y_true", "threshold": 0.5},
                           E.InvalidArgumentError, "not both"),
    "threshold text": ({"y_score": "y_true", "threshold": "0.5"}, E.InvalidArgumentError,
                       "threshold must be a number"),
    "threshold nan": ({"y_score": "y_true", "threshold": NAN}, E.InvalidArgumentError,
                      "threshold must be a number"),
    "pos_label nan": ({"pos_label": NAN}, E.InvalidLabelError, "pos_label must be"),
    "pos_label text": ({"pos_label": "1"}, E.InvalidLabelError, "pos_label='1' (str)"),
    "null_groups": ({"null_groups": "x"}, E.InvalidArgumentError, "null_groups must be"),
    "max_groups nan": ({"max_groups": NAN}, E.InvalidArgumentError, "max_groups must be"),
    "max_order text": ({"by": ["g", "day"], "combinations": "all", "max_order": "1"},
                       E.InvalidArgumentError, "max_order must be"),
    "combinations": ({"combinations": "some"}, E.InvalidArgumentError, "combinations must be"),
    "unknown": ({"foo": 1}, E.InvalidArgumentError, "unexpected count argument(s) ['foo']"),
}


@pytest.mark.parametrize("method", ["confusion", "rates", "report", "metrics", "disparity",
                                    "pairwise", "summary"])
@pytest.mark.parametrize("case", list(CATALOGUE))
def test_bad_inputs_are_typed_errors_naming_the_argument(method: str, case: str) -> None:
    kwargs, error, text = CATALOGUE[case]
    kwargs = dict(kwargs)
    by = kwargs.pop("by", "g")
    with pytest.raises(error) as info:
        getattr(BAD.lazy().fair, method)(by, **kwargs).collect()
    assert text in str(info.value)


# ------------------------------------------------------------------ kind 9: size limits
def _enum_frame(categories: int, attributes: int) -> pl.DataFrame:
    enum = pl.Enum([str(i) for i in range(categories)])
    return pl.DataFrame({**{f"e{i}": pl.Series(["0", "1"], dtype=enum)
                            for i in range(attributes)}, "y_true": [1, 0], "y_pred": [1, 0]})


def test_enum_product_beyond_the_limit_raises_before_reading() -> None:
    # three Enums of 1,000 categories: 1000^3 = 10^9 groups; raised when the plan is made
    df = _enum_frame(1000, 3)
    with pytest.raises(E.SizeLimitError) as info:
        df.lazy().fair.confusion(["e0", "e1", "e2"])
    # 10**9 is past max_groups' ceiling (10**7): raising max_groups cannot help, so the
    # message no longer advises it (review of issue 19, defect 4: the old advice was wrong)
    assert str(info.value) == E.BEYOND_CEILING.format(
        what="the count table with every intersection of the Enum categories of 'e0', 'e1', "
             "'e2'", size=10**9, unit="groups", option="max_groups", ceiling=10_000_000,
        advice="count only the intersections observed: cast the Enum attributes to text "
               "first, for example by=[pl.col('e0').cast(pl.String), "
               "pl.col('e1').cast(pl.String), pl.col('e2').cast(pl.String)]")
    # (that advice is followed in tests/core/test_error_advice_ceiling.py)
    assert "1,000,000,000 groups" in str(info.value)


def test_enum_product_with_observed_values_is_checked_at_collect() -> None:
    # one Enum of 60 categories x 200 observed values of x (four rows each, two in each
    # observed intersection: one row per value, or per intersection, would be refused as an
    # identifier first): 12,000 groups > 10,000
    enum = pl.Enum([str(i) for i in range(60)])
    df = pl.DataFrame({"e": pl.Series(["0", "0", "1", "1"] * 200, dtype=enum),
                       "x": [i // 4 for i in range(800)],
                       "y_true": [1, 0] * 400, "y_pred": [1, 0] * 400})
    lazy = df.lazy().fair.confusion(["e", "x"])  # the plan: the observed values are not known
    with pytest.raises(E.SizeLimitError) as info:
        lazy.collect()
    assert str(info.value) == E.TOO_MANY_GROUPS.format(
        what="the count table with every intersection of the Enum categories of 'e'",
        size=12_000, limit=10_000)


def test_max_groups_raises_the_limit() -> None:
    # two Enums of 120 categories: 14,400 groups, 2 of them observed with one row each
    df = _enum_frame(120, 2)
    with pytest.raises(E.SizeLimitError):
        df.fair.confusion(["e0", "e1"])
    out = df.fair.confusion(["e0", "e1"], max_groups=14_400)
    assert (out.height, out["n"].sum(), (out["n"] > 0).sum()) == (14_400, 2, 2)


def test_combinations_over_many_attributes_raise_before_listing_the_sets() -> None:
    df = pl.DataFrame({**{f"c{i}": [0, 1] for i in range(20)}, "y_true": [1, 0],
                       "y_pred": [1, 0]})
    with pytest.raises(E.SizeLimitError) as info:
        df.lazy().fair.confusion([f"c{i}" for i in range(20)], combinations="all")
    # 2^20 - 1 non-empty subsets
    # issue 20: the advice names a max_order that can fit: of binary attributes, the sets of
    # at most 3 (20 + 190 + 1,140 = 1,350) hold 20 x 2 + 190 x 4 + 1,140 x 8 = 9,920 groups
    # (<= 10,000); those of 4 would add 4,845 x 16
    assert str(info.value) == E.TOO_MANY_SETS.format(
        attributes=20, sets=1_048_575, limit=10_000,
        advice=E.TOO_MANY_SETS_ORDER.format(order=3, fewer=1_350, sets=1_048_575))


def test_stacked_attribute_sets_are_bounded() -> None:
    # race {a, b} x sex {F, M}, every combination: 2 + 2 + 4 = 8 groups over the three sets
    df = pl.DataFrame({"race": ["a", "a", "b", "b"], "sex": ["F", "M", "F", "M"],
                       "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0]})
    with pytest.raises(E.SizeLimitError) as info:
        df.fair.confusion(["race", "sex"], combinations="all", max_groups=7)
    assert str(info.value) == E.TOO_MANY_GROUPS.format(
        what="the count table of 3 attribute sets", size=8, limit=7)
    assert df.fair.confusion(["race", "sex"], combinations="all", max_groups=8).height == 8


def test_pairwise_is_bounded_by_max_pairs() -> None:
    # 1,001 groups make 1,001 x 1,000 = 1,001,000 ordered pairs > 1,000,000 (two rows each:
    # one row per level would be refused as too fine to group)
    df = pl.DataFrame({"g": [f"g{i:04d}" for i in range(1001)] * 2, "y_true": [1] * 2002,
                       "y_pred": [1] * 2002})
    with pytest.raises(E.SizeLimitError) as info:
        df.fair.pairwise("g")
    assert str(info.value) == E.TOO_MANY_PAIRS.format(groups=1001, pairs=1_001_000,
                                                      limit=1_000_000)
    # 4 groups: 12 pairs
    small = df.filter(pl.col("g") <= "g0003")
    with pytest.raises(E.SizeLimitError):
        small.fair.pairwise("g", max_pairs=11)
    assert small.fair.pairwise("g", max_pairs=12).height == 12


def test_html_audit_shows_the_largest_groups_and_the_reference() -> None:
    pytest.importorskip("altair")
    from polars_fair.audit.html import audit_html

    # 60 groups: g00 has 1 row, ..., g59 has 60 rows. The page shows 50: the reference g00
    # (explicit) and the 49 largest (g11..g59); g01..g10 are left out (10 groups).
    sizes = {f"g{i:02d}": i + 1 for i in range(60)}
    g = [name for name, k in sizes.items() for _ in range(k)]
    y = [i % 2 for i in range(len(g))]
    df = pl.DataFrame({"g": g, "y_true": y, "y_pred": y[::-1]})
    page = audit_html(df, "g", reference="g00", min_support=1)
    report = page[page.index("<h2>Report</h2>"):page.index("<h2>Charts</h2>")]
    assert "The table shows 50 of 60 groups" in report and "10 left out" in report
    assert ">g00<" in report and ">g59<" in report and ">g11<" in report
    assert ">g05<" not in report and ">g10<" not in report
    assert "groups left out of the tables and charts (max_groups=50" in page


# ------------------------------------------- a numeric attribute of nearly one row per level
_AGES = pl.DataFrame({"age": list(range(20, 28)), "y_true": [0, 1] * 4, "y_pred": [1, 0] * 4,
                      "y_score": [i / 10 for i in range(8)]})


@pytest.mark.parametrize("call", [
    lambda df: df.fair.report("age"),
    lambda df: df.fair.metrics("age"),
    lambda df: df.fair.summary("age"),
    lambda df: df.fair.abroca("age", y_score="y_score"),
    lambda df: df.fair.sweep("age", y_score="y_score", thresholds=[0.5]),
    lambda df: df.fair.divergence("age", min_support=1),
    lambda df: df.lazy().fair.report("age").collect(),
    lambda df: df.fair.report(["age"], combinations="all"),
], ids=["report", "metrics", "summary", "abroca", "sweep", "divergence", "lazy", "combinations"])
def test_eight_ages_in_eight_rows_are_refused_naming_bins(call: Any) -> None:
    # 8 distinct ages in 8 rows: 8 levels >= 8 and 8 rows < 2 x 8, in every analysis
    with pytest.raises(E.TooManyLevelsError) as info:
        call(_AGES)
    assert "'age'" in str(info.value) and "bins=" in str(info.value)
    assert "8 distinct values in 8 rows" in str(info.value)


def test_two_rows_per_level_or_seven_levels_are_groups() -> None:
    # 8 ages in 16 rows (two each: 16 >= 2 x 8) and 7 ages in 8 rows (7 < 8 levels, one of them
    # on two rows) are accepted; 7 ages in 7 rows, every level a single row, are refused at any
    # size since issue 20 (a filter leaving a few people would print one value per person)
    twice = pl.concat([_AGES, _AGES])
    assert twice.fair.report("age", min_support=1).height == 8
    assert pl.concat([_AGES.head(7), _AGES.head(1)]).fair.report("age", min_support=1).height == 7
    with pytest.raises(E.TooManyLevelsError, match="7 distinct values in 7 rows"):
        _AGES.head(7).fair.report("age", min_support=1)
    # a string attribute of one row per level is refused too (issue 20: a name identifies a
    # person, not a group); the message gives counts and the dtype, never a value
    named = _AGES.with_columns(pl.col("age").cast(pl.String))
    with pytest.raises(E.TooManyLevelsError) as info:
        named.fair.report("age", min_support=1)
    assert str(info.value) == E.TOO_MANY_LEVELS.format(
        column="age", dtype="String", levels=8, rows=8,
        why="each of the 8 values is a single row",  # what was counted: 8 rows, 8 values
        advice=E.LEVELS_ADVICE["text"].format(column="age"))


def test_eight_ages_in_eight_rows_are_refused_by_duckdb_too() -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(_AGES.to_arrow())
    with pytest.raises(E.TooManyLevelsError):
        polars_fair.counts(rel, "age").report().collect()


def test_a_timestamp_of_one_row_per_value_is_refused_like_a_number() -> None:
    # 8 distinct datetimes in 8 rows: the same mistake as 8 ages in 8 rows
    import datetime as dt_

    stamps = [dt_.datetime(2020, 1, 1, i) for i in range(8)]
    df = _AGES.with_columns(age=pl.Series(stamps))
    with pytest.raises(E.TooManyLevelsError) as info:
        df.fair.report("age")
    assert "8 distinct values in 8 rows" in str(info.value)
    # the same 8 dates twice each (16 rows) are groups
    assert pl.concat([df, df]).fair.report("age", min_support=1).height == 8
