"""The multiclass support rule counts rows of positive weight, as the binary report does."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import polars_fair  # noqa: F401  (registers df.fair)
from polars_fair import class_counts, from_class_counts
from polars_fair import errors as E
from tests.conftest import one_row_groups


def _zero_weight_frame() -> pl.DataFrame:
    # a: 40 rows, the first 15 of weight 0; b: 40 rows of weight 1
    return pl.DataFrame({"g": ["a"] * 40 + ["b"] * 40, "p": [0, 1] * 40,
                         "t": [1, 1, 0, 0] * 20, "w": [0.0] * 15 + [1.0] * 25 + [1.0] * 40})


def test_zero_weight_rows_are_no_support_and_a_two_class_audit_equals_report() -> None:
    df = _zero_weight_frame()
    # by hand: a's rows 15..39 have weight 1: 25 rows of positive weight (< 30: low_support);
    # p alternates 0, 1 from row 0, so rows 15..39 hold 13 ones (15, 17, ..., 39): rate 13/25
    # = 0.52; b: 20/40 = 0.5. Only b is supported, so b's 0.5 is the highest rate: impact
    # ratios a 0.52 / 0.5 = 1.04, b 1.0 (with a counted as supported, a's 0.52 would lead).
    multi = df.fair.multiclass_report("g", y_pred="p", y_true="t", sample_weight="w")
    ones = multi.filter(pl.col("class") == 1)
    assert ones["selection_rate"].to_list() == pytest.approx([13 / 25, 20 / 40])
    assert ones["impact_ratio"].to_list() == pytest.approx([1.04, 1.0])
    assert ones["low_support"].to_list() == [True, False]
    binary = df.fair.report("g", y_true="t", y_pred="p", sample_weight="w")
    columns = ["g", "selection_rate", "is_reference", "disparate_impact", "impact_ratio",
               "adverse_impact", "low_support", "tpr", "fpr", "ppv"]
    assert ones.select(columns).equals(binary.select(columns))


def test_the_class_table_carries_rows_of_positive_weight_and_from_class_counts_reads_them(
) -> None:
    df = _zero_weight_frame()
    table = class_counts(df, "g", y_pred="p", y_true="t", sample_weight="w").frame.collect()
    # by hand, a's cell (y_true 0, y_pred 1): rows i = 3 (mod 4) below 40 are 3, 7, ..., 39
    # (10 rows); those of positive weight (i >= 15) are 15, 19, ..., 39: 7 rows
    assert table.filter((pl.col("g") == "a") & (pl.col("y_true") == 0)
                        & (pl.col("y_pred") == 1))["n_positive_weight"].item() == 7
    expected = (df.with_columns(pos=pl.col("w") > 0)
                .group_by("g", "t", "p").agg(pl.col("pos").sum().cast(pl.Int64))
                .sort("g", "t", "p")["pos"].to_list())
    assert table["n_positive_weight"].to_list() == expected
    assert sum(expected) == 25 + 40
    made = from_class_counts(table).multiclass_report().collect()
    assert made.filter(pl.col("class") == 1)["low_support"].to_list() == [True, False]
    # without the column a table made elsewhere falls back to n (40 rows each: supported)
    old = from_class_counts(table.drop("n_positive_weight")).multiclass_report().collect()
    assert old.filter(pl.col("class") == 1)["low_support"].to_list() == [False, False]
    with pytest.raises(E.InvalidArgumentError, match="n_positive_weight"):
        from_class_counts(table.with_columns(n_positive_weight=pl.col("n") + 1)
                          ).multiclass_report().collect()
    with pytest.raises(E.InvalidArgumentError, match="no weight_sum"):
        from_class_counts(table.drop("weight_sum"))


# a weighted binary audit: groups, labels, predictions in {0, 1}, weights with zeros (exact
# binary fractions, so every sum is exact in any order)
weighted_rows = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 1), st.integers(0, 1),
              st.sampled_from([0.0, 0.5, 1.0, 2.0])),
    min_size=1, max_size=80)


@settings(max_examples=60, deadline=None)
@given(rows=weighted_rows, min_support=st.integers(0, 12),
       four_fifths=st.sampled_from([0.5, 0.8, 0.9]))
def test_a_weighted_two_class_multiclass_report_equals_the_binary_report(
        rows: list[tuple[str, int, int, float]], min_support: int, four_fifths: float) -> None:
    assume(any((t or p) and w > 0 for _, t, p, w in rows))
    df = pl.DataFrame(rows, schema=["g", "y_true", "y_pred", "w"], orient="row")
    assume(not one_row_groups(df, "g"))  # refused at any size (issue 20)
    binary = df.fair.report("g", sample_weight="w", min_support=min_support,
                            four_fifths=four_fifths)
    multi = df.fair.multiclass_report("g", y_pred="y_pred", y_true="y_true", classes=[0, 1],
                                      sample_weight="w", min_support=min_support,
                                      four_fifths=four_fifths)
    ones = multi.filter(pl.col("class") == 1)
    columns = ["g", "n", "selection_rate", "is_reference", "disparate_impact",
               "impact_ratio", "adverse_impact", "low_support", "tpr", "fpr", "ppv"]
    assert ones.select(columns).equals(binary.select(columns))
