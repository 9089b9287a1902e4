"""Every attribute combination from one scan; Enum empty intersections; the attributes column."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from polars_fair import errors as E
from polars_fair.datasets import make_hiring
from tests.conftest import Runner

DF = make_hiring(4000, seed=7)


def test_all_combinations_sets_and_order(run: Runner) -> None:
    out = run(DF, "confusion", ["race", "sex", "age_band"], combinations="all")
    sets = out["attributes"].unique(maintain_order=True).to_list()
    assert sets == [["race"], ["sex"], ["age_band"], ["race", "sex"], ["race", "age_band"],
                    ["sex", "age_band"], ["race", "sex", "age_band"]]
    assert out.columns[:4] == ["attributes", "race", "sex", "age_band"]
    # each set's n sums to the rows: every set partitions the data
    sums = out.group_by("attributes", maintain_order=True).agg(pl.col("n").sum())
    assert sums["n"].to_list() == [DF.height] * 7
    # keys outside a row's set are null
    sex_rows = out.filter(pl.col("attributes") == ["sex"])
    assert sex_rows["race"].null_count() == sex_rows.height


def test_max_order_and_explicit_sets(run: Runner) -> None:
    out = run(DF, "rates", ["race", "sex", "age_band"], combinations="all", max_order=1)
    assert out["attributes"].unique(maintain_order=True).to_list() == [
        ["race"], ["sex"], ["age_band"]]
    explicit = run(DF, "confusion", [["sex"], ["race", "sex"]])
    assert explicit["attributes"].unique(maintain_order=True).to_list() == [
        ["sex"], ["race", "sex"]]


def test_rolled_up_counts_equal_direct_group_by(run: Runner) -> None:
    out = run(DF, "confusion", ["race", "sex", "age_band"], combinations="all")
    for keys in (["race"], ["sex", "age_band"]):
        part = out.filter(pl.col("attributes") == keys).select(*keys, "n", "tp", "fp", "fn", "tn")
        assert_frame_equal(part, DF.fair.confusion(keys))


def test_analyses_run_within_each_set(run: Runner) -> None:
    out = run(DF, "report", ["race", "sex"], combinations="all")
    for keys in (["race"], ["sex"], ["race", "sex"]):
        part = out.filter(pl.col("attributes") == keys).drop("attributes")
        direct = DF.fair.report(keys)
        assert_frame_equal(part.select(direct.columns), direct)
    # exactly one reference per set (the largest group of that set)
    references = out.group_by("attributes").agg(pl.col("is_reference").sum())["is_reference"]
    assert references.to_list() == [1, 1, 1]


def test_mapping_reference_restricted_to_each_set(run: Runner) -> None:
    out = run(DF, "report", ["race", "sex"], combinations="all",
              reference={"race": "Black", "sex": "Female"})
    refs = out.filter("is_reference").select("attributes", "race", "sex").rows()
    assert refs == [(["race"], "Black", None), (["sex"], None, "Female"),
                    (["race", "sex"], "Black", "Female")]


def test_enum_empty_intersections_appear_with_zero_counts(run: Runner) -> None:
    cats = pl.Enum(["a", "b", "c"])
    df = pl.DataFrame({"g": ["a", "a", "b"], "h": ["x", "y", "x"], "y_true": [1, 0, 1],
                       "y_pred": [1, 0, 0]}).with_columns(pl.col("g").cast(cats),
                                                          pl.col("h").cast(pl.Enum(["x", "y"])))
    out = run(df, "report", ["g", "h"], min_support=1)
    assert out.select("g", "h").rows() == [("a", "x"), ("a", "y"), ("b", "x"), ("b", "y"),
                                           ("c", "x"), ("c", "y")]
    empty = out.filter(pl.col("n") == 0)
    assert empty.select("g", "h").rows() == [("b", "y"), ("c", "x"), ("c", "y")]
    # n = 0: every rate is null, the group is flagged, never silently absent
    assert empty["selection_rate"].null_count() == 3
    assert empty["low_support"].to_list() == [True, True, True]
    assert empty["finding"].to_list() == ["insufficient support"] * 3
    single = run(df, "confusion", "g")
    assert single["n"].to_list() == [2, 1, 0]


def test_bad_combination_arguments() -> None:
    with pytest.raises(E.InvalidArgumentError, match="combinations must be 'all'"):
        DF.fair.confusion(["race"], combinations="some")  # type: ignore[arg-type]
    with pytest.raises(E.InvalidArgumentError, match="max_order= goes with combinations='all'"):
        DF.fair.confusion(["race"], max_order=2)


# at least 200 rows: in fewer, a pair of these attributes can leave half of its groups on
# one row, which the intersection guard refuses (boundary.too_fine), and this property is
# about the roll-up, not the guard
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(200, 400))
def test_rolled_up_counts_equal_a_direct_group_by_on_the_coarse_set(seed: int, n: int) -> None:
    df = make_hiring(n, seed=seed).with_columns(pl.col("race", "sex", "age_band").cast(pl.String))
    out = df.fair.confusion(["race", "sex", "age_band"], combinations="all", max_order=2)
    for keys in (["race"], ["sex"], ["age_band"], ["race", "sex"], ["sex", "age_band"]):
        part = out.filter(pl.col("attributes") == keys).select(*keys, "n", "tp", "fp", "fn", "tn")
        direct = (
            df.group_by(keys)
            .agg(
                n=pl.len().cast(pl.Int64),
                tp=((pl.col("y_true") == 1) & (pl.col("y_pred") == 1)).sum().cast(pl.Int64),
                fp=((pl.col("y_true") == 0) & (pl.col("y_pred") == 1)).sum().cast(pl.Int64),
                fn=((pl.col("y_true") == 1) & (pl.col("y_pred") == 0)).sum().cast(pl.Int64),
                tn=((pl.col("y_true") == 0) & (pl.col("y_pred") == 0)).sum().cast(pl.Int64),
            )
            .sort(keys)
        )
        assert_frame_equal(part, direct)
