"""Counts, rates and the report on small frames whose answers are computed by hand here."""

from __future__ import annotations

import math

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_fair.core.expressions import RATE_NAMES
from tests.conftest import Runner

# Group a: y_true [1,1,1,0,0,0], y_pred [1,1,0,1,0,0] -> tp 2, fn 1, fp 1, tn 2, n 6
# Group b: y_true [1,0,0,0],     y_pred [0,0,0,0]     -> tp 0, fn 1, fp 0, tn 3, n 4
SMALL = pl.DataFrame(
    {
        "g": ["a"] * 6 + ["b"] * 4,
        "h": ["x", "y", "x", "y", "x", "y", "x", "x", "y", "y"],
        "y_true": [1, 1, 1, 0, 0, 0, 1, 0, 0, 0],
        "y_pred": [1, 1, 0, 1, 0, 0, 0, 0, 0, 0],
    }
)


def test_confusion_counts_by_hand(run: Runner) -> None:
    out = run(SMALL, "confusion", "g")
    expected = pl.DataFrame(
        {"g": ["a", "b"], "n": [6, 4], "tp": [2, 0], "fp": [1, 0], "fn": [1, 1], "tn": [2, 3]},
        schema={"g": pl.String, **{c: pl.Int64 for c in ("n", "tp", "fp", "fn", "tn")}},
    )
    assert_frame_equal(out, expected)


def test_rates_by_hand_and_null_for_zero_denominator(run: Runner) -> None:
    out = run(SMALL, "rates", "g")
    assert out.columns == ["g", "n", *RATE_NAMES]
    assert all(out.schema[c] == pl.Float64 for c in RATE_NAMES)
    a, b = out.row(0, named=True), out.row(1, named=True)
    assert a["selection_rate"] == pytest.approx(3 / 6)
    assert a["base_rate"] == pytest.approx(3 / 6)
    assert a["tpr"] == pytest.approx(2 / 3)
    assert a["fpr"] == pytest.approx(1 / 3)
    assert a["tnr"] == pytest.approx(2 / 3)
    assert a["fnr"] == pytest.approx(1 / 3)
    assert a["ppv"] == pytest.approx(2 / 3)
    assert a["npv"] == pytest.approx(2 / 3)
    assert a["accuracy"] == pytest.approx(4 / 6)
    assert a["marginal_benefit"] == pytest.approx((1 - 1) / 6)
    # group b never predicts positive: PPV = 0/0 is undefined -> null, not 0 or NaN
    assert b["ppv"] is None
    assert b["selection_rate"] == 0.0
    assert b["tpr"] == 0.0
    assert b["marginal_benefit"] == pytest.approx((0 - 1) / 4)


def test_intersection_keys_sorted(run: Runner) -> None:
    out = run(SMALL, "confusion", ["g", "h"])
    assert out.select("g", "h").rows() == [("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")]
    # a/x rows: (1,1),(1,0),(0,0) -> tp1 fn1 tn1 ; a/y: (1,1),(0,1),(0,0) -> tp1 fp1 tn1
    assert out.row(0) == ("a", "x", 3, 1, 0, 1, 1)
    assert out.row(1) == ("a", "y", 3, 1, 1, 0, 1)


def test_report_columns_order_and_dtypes(run: Runner) -> None:
    out = run(SMALL, "report", "g", min_support=5)
    assert out.columns == [
        "g", "n", "tp", "fp", "fn", "tn", *RATE_NAMES, "is_reference", "disparate_impact",
        "impact_ratio", "adverse_impact", "ofi", "ofi_flag", "low_support", "reference_low_support",
            "finding",
    ]
    assert out.schema["is_reference"] == pl.Boolean
    assert out.schema["adverse_impact"] == pl.Boolean
    assert out.schema["finding"] == pl.String
    # reference = largest = a (6 rows). DI(b) = 0 / 0.5 = 0; impact ratio(b) = 0 / 0.5 = 0
    assert out["is_reference"].to_list() == [True, False]
    assert out["disparate_impact"].to_list() == [1.0, 0.0]
    assert out["impact_ratio"].to_list() == [1.0, 0.0]
    assert out["adverse_impact"].to_list() == [False, True]
    # OFI(b) = MB_b - MB_a = -1/4 - 0
    assert out["ofi"].to_list() == pytest.approx([0.0, -0.25])
    assert out["low_support"].to_list() == [False, True]


def test_report_reference_explicit_and_null_di(run: Runner) -> None:
    # reference b has selection rate 0: DI is null for everyone (x / 0), never inf
    out = run(SMALL, "report", "g", reference="b", min_support=1)
    assert out["is_reference"].to_list() == [False, True]
    assert out["disparate_impact"].to_list() == [None, None]
    assert out["ofi"].to_list() == pytest.approx([0.25, 0.0])


def test_report_reference_mapping_and_overall(run: Runner) -> None:
    out = run(SMALL, "report", ["g", "h"], reference={"g": "a", "h": "y"}, min_support=1)
    assert out.filter(pl.col("is_reference")).select("g", "h").rows() == [("a", "y")]
    overall = run(SMALL, "report", "g", reference="overall", min_support=1)
    # overall selection rate 3/10, MB = (1 - 2)/10
    assert overall["is_reference"].to_list() == [False, False]
    assert overall["disparate_impact"].to_list() == pytest.approx([0.5 / 0.3, 0.0])
    assert overall["ofi"].to_list() == pytest.approx([0.0 - (-0.1), -0.25 - (-0.1)])


def test_report_reference_max_selection_rate(run: Runner) -> None:
    out = run(SMALL, "report", "g", reference="max_selection_rate", min_support=1)
    assert out["is_reference"].to_list() == [True, False]


def test_overall_row_is_by_empty(run: Runner) -> None:
    out = run(SMALL, "report", [], min_support=1)
    assert out.height == 1
    row = out.row(0, named=True)
    assert (row["n"], row["tp"], row["fp"], row["fn"], row["tn"]) == (10, 2, 1, 2, 5)
    assert row["selection_rate"] == pytest.approx(0.3)


def test_unknown_reference_lists_groups(run: Runner) -> None:
    from polars_fair.errors import UnknownGroupError

    with pytest.raises(UnknownGroupError,
                       match=r"reference group 'zz' does not exist; the groups are: \['a', 'b'\]"):
        run(SMALL, "report", "g", reference="zz")


def test_pos_label_of_any_dtype(run: Runner) -> None:
    strings = SMALL.with_columns(
        pl.when(pl.col(c) == 1).then(pl.lit("yes")).otherwise(pl.lit("no")).alias(c)
        for c in ("y_true", "y_pred")
    )
    booleans = SMALL.with_columns(pl.col("y_true", "y_pred").cast(pl.Boolean))
    base = run(SMALL, "confusion", "g")
    assert_frame_equal(run(strings, "confusion", "g", pos_label="yes"), base)
    assert_frame_equal(run(booleans, "confusion", "g", pos_label=True), base)
    # flipping the orientation swaps tp<->tn and fp<->fn
    flipped = run(SMALL, "confusion", "g", pos_label=0)
    assert flipped["tp"].to_list() == base["tn"].to_list()
    assert flipped["fp"].to_list() == base["fn"].to_list()


def test_expression_keys_and_threshold(run: Runner) -> None:
    scored = SMALL.with_columns(s=pl.Series([0.9, 0.8, 0.2, 0.7, 0.1, 0.3, 0.4, 0.2, 0.1, 0.0]))
    out = run(scored, "confusion", pl.col("g").str.to_uppercase().alias("G"), y_pred=None,
              y_score="s", threshold=0.5)
    assert out["G"].to_list() == ["A", "B"]
    assert_frame_equal(out.drop("G"), run(SMALL, "confusion", "g").drop("g"))


def test_null_groups_keep_is_a_visible_group(run: Runner) -> None:
    df = SMALL.with_columns(
        g=pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("g")))
    out = run(df, "confusion", "g")
    assert out["g"].to_list() == ["a", "b", None]
    assert out["n"].to_list() == [5, 4, 1]
    assert out["n"].sum() == df.height


def test_null_groups_drop_warns_with_count(run: Runner) -> None:
    df = SMALL.with_columns(g=pl.when(pl.int_range(pl.len()) < 2).then(None).otherwise(pl.col("g")))
    with pytest.warns(UserWarning,
                      match=r"dropped 2 row\(s\) whose attribute is null \(\{'g': 2\}\)"):
        out = run(df, "confusion", "g", null_groups="drop")
    assert out["n"].to_list() == [4, 4]


def test_null_groups_raise(run: Runner) -> None:
    from polars_fair.errors import NullGroupError

    df = SMALL.with_columns(h=pl.when(pl.int_range(pl.len()) < 3).then(None).otherwise(pl.col("h")))
    with pytest.raises(NullGroupError, match=r"\{'h': 3\}"):
        run(df, "confusion", ["g", "h"], null_groups="raise")


def test_sample_weight_counts(run: Runner) -> None:
    df = SMALL.with_columns(w=pl.Series([2.0, 1, 1, 1, 1, 1, 0.5, 1, 1, 1]))
    out = run(df, "confusion", "g", sample_weight="w")
    assert out.columns == ["g", "n", "tp", "fp", "fn", "tn", "weight_sum", "n_positive_weight"]
    # a: tp rows 0 (w2) and 1 (w1) -> 3; fn row 2 -> 1; fp row 3 -> 1; tn rows 4,5 -> 2;
    # every weight is positive, so n_positive_weight = n
    assert out.row(0) == ("a", 6, 3.0, 1.0, 1.0, 2.0, 7.0, 6)
    assert out.row(1) == ("b", 4, 0.0, 0.0, 0.5, 3.0, 3.5, 4)
    rates = run(df, "rates", "g", sample_weight="w")
    assert rates["selection_rate"][0] == pytest.approx(4 / 7)


def test_enum_keys_keep_dtype(run: Runner) -> None:
    df = SMALL.with_columns(pl.col("g").cast(pl.Enum(["b", "a"])))
    out = run(df, "rates", "g")
    assert out.schema["g"] == pl.Enum(["b", "a"])
    assert out["g"].to_list() == ["b", "a"]  # Enum sorts by declared order


def test_lazy_method_does_not_collect() -> None:
    calls = []

    def spy(df: pl.DataFrame) -> pl.DataFrame:
        calls.append(df.height)
        return df

    lf = SMALL.lazy().map_batches(spy, schema=SMALL.schema)
    plan = lf.fair.report("g")
    assert isinstance(plan, pl.LazyFrame)
    assert calls == []
    plan.collect()
    assert calls == [SMALL.height]


def test_typed_accessor() -> None:
    from polars_fair import FairDataFrame, FairLazyFrame, fair

    assert isinstance(fair(SMALL), FairDataFrame)
    assert isinstance(fair(SMALL.lazy()), FairLazyFrame)
    assert_frame_equal(fair(SMALL).report("g"), SMALL.fair.report("g"))
    with pytest.raises(TypeError, match="takes a polars DataFrame or LazyFrame"):
        fair([1, 2])  # type: ignore[call-overload]


def test_safe_div_never_nan() -> None:
    from polars_fair.core.expressions import safe_div

    vals = pl.select(
        a=safe_div(pl.lit(0), pl.lit(0)), b=safe_div(pl.lit(1.0), pl.lit(0.0)),
        c=safe_div(pl.lit(1), pl.lit(4)),
    ).row(0)
    assert vals == (None, None, 0.25)
    assert not any(isinstance(v, float) and math.isnan(v) for v in vals)
