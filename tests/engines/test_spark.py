"""polars_fair.spark on a real local Spark: results and error messages equal the Polars path's.

One PySpark session (``local[2]``, loopback only, no UI) is shared by every test. The expected
values come from the Polars path (``df.fair``) on the same rows, which the other test modules
check against hand computations, numpy and the oracles; here the claim under test is that the
Spark count stage is the same count stage. Skips when PySpark (or Java) is missing, unless
``POLARS_FAIR_REQUIRE_SPARK=1``, when it fails.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from tests.conftest import ADULT_SCORED_CSV, one_row_groups, require

REQUIRE = os.environ.get("POLARS_FAIR_REQUIRE_SPARK") == "1"

try:
    import pyspark  # noqa: F401
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
except ImportError:  # pragma: no cover - depends on the environment
    if REQUIRE:
        raise
    pytest.skip("pyspark is not installed (pip install -e '.[spark]')", allow_module_level=True)

import polars_fair.spark as pfs  # noqa: E402  (after the module-level skip without pyspark)

pytestmark = [
    # createDataFrame(pyarrow.Table) checks the pandas version and warns about pandas 3
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]




@pytest.fixture(scope="session")
def to_spark(spark: SparkSession) -> Callable[[pl.DataFrame], Any]:
    """A Polars frame as a Spark DataFrame (through Arrow, the same column types)."""
    return lambda df: spark.createDataFrame(df.to_arrow())


# ---------------------------------------------------------------------------------------------
# real data: COMPAS and Adult
# ---------------------------------------------------------------------------------------------


@pytest.mark.data
def test_compas_report_equals_polars(compas: pl.DataFrame, to_spark: Any) -> None:
    sdf = to_spark(compas)
    assert_frame_equal(pfs.report(sdf, "race"), compas.fair.report("race"))
    kw: dict[str, Any] = {"reference": {"race": "Caucasian", "sex": "Male"}, "pos_label": 0}
    assert_frame_equal(pfs.report(sdf, by=["race", "sex"], **kw),
                       compas.fair.report(["race", "sex"], **kw))
    # ProPublica's FPR gap, as printed in the README (independent of the Polars path)
    fpr = pfs.rates(sdf, "race").select("race", "fpr").rows()
    assert dict(fpr)["African-American"] == pytest.approx(0.4234, abs=5e-5)
    assert dict(fpr)["Caucasian"] == pytest.approx(0.2201, abs=5e-5)


@pytest.mark.data
def test_compas_every_count_analysis_equals_polars(compas: pl.DataFrame, to_spark: Any) -> None:
    sdf = to_spark(compas)
    by = ["race", "sex"]
    assert_frame_equal(pfs.confusion(sdf, by), compas.fair.confusion(by))
    assert_frame_equal(pfs.metrics(sdf, by), compas.fair.metrics(by))
    assert_frame_equal(pfs.disparity(sdf, "race", reference="Caucasian"),
                       compas.fair.disparity("race", reference="Caucasian"))
    assert_frame_equal(pfs.pairwise(sdf, "race", pos_label=0),
                       compas.fair.pairwise("race", pos_label=0))
    assert_frame_equal(pfs.summary(sdf, by, exclude_low_support=True),
                       compas.fair.summary(by, exclude_low_support=True))
    assert_frame_equal(pfs.report(sdf, ["race", "sex", "age_cat"], combinations="all",
                                  max_order=2),
                       compas.fair.report(["race", "sex", "age_cat"], combinations="all",
                                          max_order=2))
    # predictions from a score and a threshold, computed inside Spark
    assert_frame_equal(pfs.rates(sdf, "race", y_score="decile_score", threshold=5),
                       compas.fair.rates("race", y_score="decile_score", threshold=5))


@pytest.mark.data
def test_compas_abroca_equals_polars(compas: pl.DataFrame, to_spark: Any) -> None:
    sdf = to_spark(compas)
    kw: dict[str, Any] = {"y_true": "two_year_recid", "y_score": "decile_score",
                          "reference": "Caucasian"}
    assert_frame_equal(pfs.scores(sdf, "race", y_true="two_year_recid", y_score="decile_score"),
                       compas.fair.scores("race", y_true="two_year_recid", y_score="decile_score"))
    assert_frame_equal(pfs.abroca(sdf, "race", **kw), compas.fair.abroca("race", **kw))
    assert_frame_equal(pfs.abroca_test(sdf, "race", n_permutations=200, seed=0, **kw),
                       compas.fair.abroca_test("race", n_permutations=200, seed=0, **kw))


@pytest.mark.data
def test_spark_columns_and_parquet_input(compas: pl.DataFrame, spark: SparkSession,
                                         tmp_path: Path) -> None:
    """The realistic path: Spark reads Parquet; attributes may be Spark Column expressions."""
    path = tmp_path / "compas.parquet"
    compas.write_parquet(path)
    sdf = spark.read.parquet(str(path))
    got = pfs.report(sdf, [F.col("race").alias("group"), "sex"], y_pred=F.col("y_pred"))
    want = compas.fair.report([pl.col("race").alias("group"), "sex"])
    assert_frame_equal(got, want)


@pytest.fixture(scope="module")
def adult() -> pl.DataFrame:
    return pl.read_csv(require(ADULT_SCORED_CSV)).select(
        "race", "sex", "fnlwgt", "y_true", "y_score", "y_pred"
    )


@pytest.mark.data
def test_adult_weighted_equals_polars(adult: pl.DataFrame, to_spark: Any) -> None:
    sdf = to_spark(adult)
    by = ["race", "sex"]
    w = {"sample_weight": "fnlwgt"}
    assert_frame_equal(pfs.report(sdf, by, **w), adult.fair.report(by, **w))
    assert_frame_equal(pfs.metrics(sdf, by, **w), adult.fair.metrics(by, **w))
    assert_frame_equal(pfs.abroca(sdf, "race", **w), adult.fair.abroca("race", **w))
    assert_frame_equal(pfs.calibration(sdf, by, **w), adult.fair.calibration(by, **w))
    assert_frame_equal(pfs.calibration(sdf, "sex", strategy="quantile"),
                       adult.fair.calibration("sex", strategy="quantile"))
    assert_frame_equal(pfs.abroca_test(sdf, "sex", n_permutations=100, seed=3),
                       adult.fair.abroca_test("sex", n_permutations=100, seed=3))


def _round_half_up(x: float, places: int) -> float:
    """Spark's ``round`` on a double: the shortest decimal repr, rounded half up."""
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))


@pytest.mark.data
def test_rounded_scores_are_exact_for_the_rounded_scores(adult: pl.DataFrame,
                                                         to_spark: Any) -> None:
    sdf = to_spark(adult)
    table = pfs.scores(sdf, "sex", round_scores=2)
    assert table.height <= 2 * 101  # at most 101 distinct scores in [0, 1] per group
    mapping = {x: _round_half_up(x, 2) for x in adult["y_score"].unique().to_list()}
    rounded = adult.with_columns(pl.col("y_score").replace_strict(mapping, return_dtype=pl.Float64))
    assert_frame_equal(table, rounded.fair.scores("sex"))
    assert_frame_equal(pfs.abroca(sdf, "sex", round_scores=2), rounded.fair.abroca("sex"))


# ---------------------------------------------------------------------------------------------
# generated frames: the same result, or the same error
# ---------------------------------------------------------------------------------------------


@st.composite
def frames(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(0, 60))

    def col(values: list[Any]) -> list[Any]:
        return draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))

    df = pl.DataFrame({
        "a": col(["x", "y", None]), "b": col([0, 1, 2]), "y_true": col([0, 1]),
        "y_pred": col([0, 1]), "w": col([0.5, 1.0, 2.0, 3.0]),
        "s": col([0.1, 0.2, 0.5, 0.7, 0.9]),
    }, schema={"a": pl.String, "b": pl.Int64, "y_true": pl.Int64, "y_pred": pl.Int64,
               "w": pl.Float64, "s": pl.Float64})
    assume(not one_row_groups(df, "a", "b"))  # refused at any size (issue 20)
    return df


def outcome(fn: Callable[[], pl.DataFrame]) -> tuple[str, Any]:
    """A result, or the error's class and message (so errors can be compared too)."""
    try:
        return "ok", fn()
    except E.PolarsFairError as exc:
        return type(exc).__name__, str(exc)


def assert_same(got: tuple[str, Any], want: tuple[str, Any]) -> None:
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        assert_frame_equal(got[1], want[1])
    else:
        assert got[1] == want[1]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames(), st.booleans(), st.sampled_from(["keep", "raise"]))
def test_spark_gives_the_polars_result_or_the_polars_error(
    to_spark: Any, df: pl.DataFrame, weighted: bool, null_groups: str
) -> None:
    sdf = to_spark(df)
    kw: dict[str, Any] = {"null_groups": null_groups}
    if weighted:
        kw["sample_weight"] = "w"
    assert_same(outcome(lambda: pfs.confusion(sdf, ["a", "b"], **kw)),
                outcome(lambda: df.fair.confusion(["a", "b"], **kw)))
    assert_same(outcome(lambda: pfs.report(sdf, "a", **kw)),
                outcome(lambda: df.fair.report("a", **kw)))
    assert_same(outcome(lambda: pfs.scores(sdf, "b", y_score="s", **kw)),
                outcome(lambda: df.fair.scores("b", y_score="s", **kw)))


# ---------------------------------------------------------------------------------------------
# bad input: the same error class and message as the Polars path
# ---------------------------------------------------------------------------------------------

GOOD = {"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0],
        "w": [1.0, 2.0, 1.0, 1.0], "s": [0.9, 0.2, 0.6, 0.1]}
NAN = float("nan")

BAD: dict[str, tuple[dict[str, Any], str, dict[str, Any]]] = {
    # name: (columns to replace in GOOD, function, keyword arguments)
    "missing attribute": ({}, "confusion", {"by": "race"}),
    "missing label": ({}, "confusion", {"by": "g", "y_true": "label"}),
    "null labels": ({"y_true": [1, None, 0, None]}, "confusion", {"by": "g"}),
    "null predictions": ({"y_pred": [1, 0, None, 0]}, "report", {"by": "g"}),
    "three label values": ({"y_true": [1, 0, 2, 0]}, "confusion", {"by": "g"}),
    "scores in y_pred": ({"y_pred": [0.9, 0.2, 0.6, 0.1]}, "confusion", {"by": "g"}),
    "pos_label absent": ({"y_true": ["no"] * 4, "y_pred": ["no"] * 4}, "confusion",
                         {"by": "g", "pos_label": "yes"}),
    "pos_label of the wrong type": ({}, "confusion", {"by": "g", "pos_label": "yes"}),
    "negatives differ": ({"y_pred": [1, -1, -1, 1]}, "confusion", {"by": "g"}),
    "null groups raise": ({"g": ["a", None, None, "b"]}, "confusion",
                          {"by": "g", "null_groups": "raise"}),
    "bad null_groups": ({}, "confusion", {"by": "g", "null_groups": "ignore"}),
    "bad weights": ({"w": [1.0, -2.0, NAN, None]}, "confusion",
                    {"by": "g", "sample_weight": "w"}),
    "text weights": ({"w": ["1", "2", "3", "4"]}, "confusion", {"by": "g", "sample_weight": "w"}),
    "bad scores with threshold": ({"s": [0.5, NAN, None, float("inf")]}, "confusion",
                                  {"by": "g", "y_score": "s", "threshold": 0.5}),
    "threshold missing": ({}, "confusion", {"by": "g", "y_score": "s"}),
    "bad scores": ({"s": [0.5, NAN, None, float("-inf")]}, "scores", {"by": "g", "y_score": "s"}),
    "three labels in scores": ({"y_true": [1, 0, 2, 0]}, "scores", {"by": "g", "y_score": "s"}),
    "float attribute with many levels": ({}, "many_levels", {}),
    "empty frame": ({}, "empty", {}),
    "unknown reference": ({}, "report", {"by": "g", "reference": "zz"}),
}


@pytest.mark.parametrize("case", list(BAD))
def test_errors_read_exactly_as_in_polars(case: str, to_spark: Any) -> None:
    replace, method, kw = BAD[case]
    df = pl.DataFrame({**GOOD, **replace}, strict=False)
    if method == "many_levels":
        df = pl.DataFrame({"x": [i / 10 for i in range(60)], "y_true": [1, 0] * 30,
                           "y_pred": [1, 1, 0] * 20})
        method, kw = "confusion", {"by": "x"}
    if method == "empty":
        df = df.clear()
        method, kw = "confusion", {"by": "g"}
    by = kw.pop("by")
    sdf = to_spark(df)
    with pytest.raises(E.PolarsFairError) as want:
        getattr(df.fair, method)(by, **kw)
    with pytest.raises(E.PolarsFairError) as got:
        getattr(pfs, method)(sdf, by, **kw)
    assert type(got.value) is type(want.value)
    if isinstance(got.value, E.TooManyLevelsError):  # same facts, the relation's own advice
        facts, _, advice = str(got.value).partition("); ")
        assert facts == str(want.value).partition("); ")[0]
        # x = 0.0 .. 5.9: 30 lies outside it, so the cut-off is the median 2.95 to one
        # significant digit, 3 (errors.cut_off)
        assert advice == E.RELATION_LEVELS_ADVICE.format(column="x", sql="x", cut="3")
        return
    if case == "negatives differ":  # same facts; the relation's advice is SQL, not pl.col
        facts, _, advice = str(got.value).partition("; ")
        assert facts == str(want.value).partition("; ")[0]
        assert advice == E.RELATION_NEGATIVES_ADVICE.format(
            role="y_pred", sql="y_pred", neg_pred_sql="-1", neg_true_sql="0",
            mapped="y_pred_mapped")
        return
    assert str(got.value) == str(want.value)


def test_dropped_null_groups_warn_as_in_polars(to_spark: Any) -> None:
    df = pl.DataFrame({**GOOD, "g": ["a", None, "a", "b"]})
    with pytest.warns(UserWarning) as want:
        expected = df.fair.report("g", null_groups="drop")
    with pytest.warns(UserWarning) as got:
        result = pfs.report(to_spark(df), "g", null_groups="drop")
    assert [str(w.message) for w in got] == [str(w.message) for w in want]
    assert_frame_equal(result, expected)


def test_round_scores_must_be_decimal_places(to_spark: Any) -> None:
    sdf = to_spark(pl.DataFrame(GOOD))
    with pytest.raises(E.InvalidArgumentError, match="round_scores must be a non-negative int"):
        pfs.scores(sdf, "g", y_score="s", round_scores=-1)


def test_whole_population_and_boolean_labels(to_spark: Any) -> None:
    df = pl.DataFrame({"y_true": [True, False, True, True], "y_pred": [True, True, False, True],
                       "g": ["a", "b", "a", "b"]})
    sdf = to_spark(df)
    assert_frame_equal(pfs.confusion(sdf, []), df.fair.confusion([]))
    assert_frame_equal(pfs.report(sdf, None, pos_label=True), df.fair.report(None, pos_label=True))
    assert_frame_equal(pfs.confusion(sdf, "g", pos_label=False),
                       df.fair.confusion("g", pos_label=False))


def test_an_aggregate_spark_column_is_refused_as_not_row_level(spark: SparkSession) -> None:
    """Issue 11 kind 5 on Spark: F.max("y_pred") as the prediction would spread one value over
    every row (Spark refuses it while binding); it is the typed row-level error, not PySpark's."""
    sdf = spark.createDataFrame([("a", 1, 1), ("b", 0, 1)], "g string, y_true long, y_pred long")
    with pytest.raises(E.NotRowLevelError) as info:
        polars_fair.counts(sdf, "g", y_pred=F.max("y_pred"))
    assert str(info.value).startswith("Spark refused the aggregation: [MISSING_GROUP_BY]")
    assert str(info.value).endswith(": y_pred is not")  # issue 19 kind 7: names the argument


def test_spark_columns_are_evaluated_over_the_whole_frame(spark: SparkSession) -> None:
    """Issue 19 kind 1 on Spark: a Column argument is a column of the frame (withColumn), as a
    Polars expression is one of ``with_columns``. F.lit(1) selects every row: group a has
    labels 1, 0 -> tp 1, fp 1; b has 0 -> fp 1. A window over the whole frame (the largest
    score, 0.9) selects the one row scored 0.9 (a, label 1): a tp 1, tn 1; b tn 1."""
    from pyspark.sql import Window

    sdf = spark.createDataFrame([("a", 1, 0.9), ("a", 0, 0.2), ("b", 0, 0.5)],
                                "g string, y_true long, s double")
    out = pfs.confusion(sdf, "g", y_pred=F.lit(1))
    assert out.rows() == [("a", 2, 1, 1, 0, 0), ("b", 1, 0, 1, 0, 0)]
    top = (F.col("s") >= F.max("s").over(Window.partitionBy())).alias("top")
    out = pfs.confusion(sdf, "g", y_pred=top, pos_label=True)
    assert out.rows() == [("a", 2, 1, 0, 0, 1), ("b", 1, 0, 0, 0, 1)]


def test_a_polars_expression_on_spark_names_the_argument(spark: SparkSession) -> None:
    sdf = spark.createDataFrame([("a", 1, 1)], "g string, y_true long, y_pred long")
    with pytest.raises(E.InvalidArgumentError, match=r"^sample_weight must be a column name"):
        polars_fair.counts(sdf, "g", sample_weight=pl.lit(1.0))


def test_spark_refuses_integer_scores_a_float_cannot_hold(spark: SparkSession) -> None:
    """Issue 19 kind 6 on Spark: a long score of 2**53 + 1 would tie with 2**53 as a double."""
    sdf = spark.createDataFrame([("a", 1, 2**53 + 1), ("a", 0, 2**53), ("b", 1, 3)],
                                "g string, y_true long, s long")
    expected = E.SCORE_BEYOND_FLOAT.format(column="s", dtype=pl.Int64(), count=1)
    with pytest.raises(E.InvalidScoreError) as info:
        pfs.abroca(sdf, "g", y_score="s")
    assert str(info.value) == expected
    with pytest.raises(E.InvalidScoreError) as info:
        polars_fair.counts(sdf, "g", y_score="s", threshold=4).confusion().collect()
    assert str(info.value) == expected


def test_spark_refuses_decimal_scores_a_float_cannot_keep_apart(spark: SparkSession) -> None:
    """Review of issue 19, defect 7 on Spark: 0.1000000000000000000000001 (25 significant
    digits) and 0.1 are one double; 0.9 and 0.1 have one digit each."""
    sdf = spark.sql("SELECT * FROM VALUES ('a', 1, CAST('0.1000000000000000000000001' AS "
                    "DECIMAL(38,25))), ('a', 0, CAST('0.1' AS DECIMAL(38,25))), "
                    "('b', 1, CAST('0.9' AS DECIMAL(38,25))), "
                    "('b', 0, CAST('0.1' AS DECIMAL(38,25))) AS t(g, y_true, s)")
    with pytest.raises(E.InvalidScoreError) as info:
        pfs.abroca(sdf, "g", y_score="s")
    assert str(info.value) == E.SCORE_DECIMAL_DIGITS.format(column="s", dtype=pl.Decimal(38, 25),
                                                            count=1)


def test_three_groups_of_one_row_are_refused_as_in_polars(to_spark: Any) -> None:
    # issue 20: three made-up names, one row each (counting.boundary.MIN_LEVELS_ALL_SINGLE)
    df = pl.DataFrame({"name": ["Ann Madeup", "Bob Madeup", "Cy Madeup"],
                       "y_true": [1, 0, 1], "y_pred": [1, 1, 0]})
    with pytest.raises(E.TooManyLevelsError) as info:
        pfs.report(to_spark(df), "name")
    assert str(info.value).startswith(
        "attribute 'name' is a String column with 3 distinct values in 3 rows")
    assert "Madeup" not in str(info.value)
