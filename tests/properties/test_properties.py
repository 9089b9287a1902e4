"""Property-based tests (hypothesis). Each test name states the invariant it checks."""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair  # noqa: F401
from tests.conftest import one_row_groups

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def frames(draw: st.DrawFn, min_rows: int = 1) -> pl.DataFrame:
    n = draw(st.integers(min_rows, 60))
    ints = st.lists(st.integers(0, 1), min_size=n, max_size=n)
    df = pl.DataFrame(
        {
            "a": draw(st.lists(st.sampled_from(["x", "y", "z", None]), min_size=n, max_size=n)),
            "b": draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)),
            "y_true": draw(ints),
            "y_pred": draw(ints),
        },
        schema={"a": pl.String, "b": pl.Int64, "y_true": pl.Int64, "y_pred": pl.Int64},
    )
    assume(not one_row_groups(df, "a", "b"))  # refused at any size (issue 20)
    return df


def has_both_values_somewhere(df: pl.DataFrame) -> bool:
    return bool(df["y_true"].sum() + df["y_pred"].sum() > 0)


@SETTINGS
@given(frames())
def test_counts_sum_to_n_and_equal_numpy(df: pl.DataFrame) -> None:
    assume(has_both_values_somewhere(df))
    out = df.fair.confusion(["a", "b"])
    assert (out["tp"] + out["fp"] + out["fn"] + out["tn"]).to_list() == out["n"].to_list()
    assert out["n"].sum() == df.height
    a = np.array(df["a"].to_list(), dtype=object)
    b, y, p = df["b"].to_numpy(), df["y_true"].to_numpy(), df["y_pred"].to_numpy()
    for row in out.iter_rows(named=True):
        m = (a == row["a"]) & (b == row["b"]) if row["a"] is not None else \
            np.array([v is None for v in a]) & (b == row["b"])
        assert row["n"] == m.sum()
        assert row["tp"] == ((y == 1) & (p == 1) & m).sum()
        assert row["fp"] == ((y == 0) & (p == 1) & m).sum()
        assert row["fn"] == ((y == 1) & (p == 0) & m).sum()
        assert row["tn"] == ((y == 0) & (p == 0) & m).sum()


@SETTINGS
@given(frames())
def test_eager_lazy_and_streaming_results_identical(df: pl.DataFrame) -> None:
    assume(has_both_values_somewhere(df))
    eager = df.fair.report(["a", "b"], min_support=3)
    lazy = df.lazy().fair.report(["a", "b"], min_support=3)
    assert_frame_equal(eager, lazy.collect(engine="in-memory"))
    assert_frame_equal(eager, lazy.collect(engine="streaming"))


@SETTINGS
@given(frames(), st.randoms(use_true_random=False))
def test_shuffling_rows_changes_nothing(df: pl.DataFrame, rnd: object) -> None:
    assume(has_both_values_somewhere(df))
    seed = rnd.randint(0, 2**31)  # type: ignore[attr-defined]
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    assert_frame_equal(df.fair.report(["a", "b"]), shuffled.fair.report(["a", "b"]))


@SETTINGS
@given(frames())
def test_intersection_counts_summed_over_one_attribute_equal_the_other_alone(
    df: pl.DataFrame,
) -> None:
    assume(has_both_values_somewhere(df))
    inter = df.fair.confusion(["a", "b"])
    for keep in ("a", "b"):
        summed = (
            inter.group_by(keep)
            .agg(pl.col("n", "tp", "fp", "fn", "tn").sum())
            .sort(keep, nulls_last=True)
        )
        assert_frame_equal(summed, df.fair.confusion(keep))


@SETTINGS
@given(frames(), st.lists(st.integers(0, 4), min_size=60, max_size=60))
def test_integer_weights_equal_repeated_rows(df: pl.DataFrame, weights: list[int]) -> None:
    w = pl.Series("w", weights[: df.height], dtype=pl.Int64)
    weighted_df = df.with_columns(w)
    repeated = weighted_df.select(pl.all().repeat_by("w").explode()).drop("w")
    assume(has_both_values_somewhere(repeated) and repeated.height > 0)
    weighted = weighted_df.fair.rates(["a", "b"], sample_weight="w").drop("n")
    plain = repeated.fair.rates(["a", "b"]).drop("n")
    # groups whose weights are all 0 vanish from the repeated frame; their rates are all null
    joined = weighted.join(plain, on=["a", "b"], how="left", nulls_equal=True, suffix="_r")
    for name in plain.columns[2:]:
        for x, y in zip(joined[name].to_list(), joined[f"{name}_r"].to_list(), strict=True):
            assert (x is None and y is None) or abs(x - y) < 1e-12


@SETTINGS
@given(frames(), st.sampled_from([0, 1]), st.booleans())
def test_every_scan_strategy_gives_the_same_count_table(
    df: pl.DataFrame, pos: int, weighted: bool
) -> None:
    """Integer, string, float and boolean labels go through the same label table; on the same
    data the count tables must agree exactly, whatever the labels' dtype."""
    assume(df.height > 0)
    df = df.with_columns(w=(pl.int_range(pl.len()) % 3 + 1).cast(pl.Float64))
    assume(bool((df["y_true"] == pos).any() or (df["y_pred"] == pos).any()))
    w = {"sample_weight": "w"} if weighted else {}
    as_int = df.fair.confusion(["a", "b"], pos_label=pos, **w)
    as_str = df.with_columns(pl.col("y_true", "y_pred").cast(pl.String)).fair.confusion(
        ["a", "b"], pos_label=str(pos), **w)
    as_float = df.with_columns(pl.col("y_true", "y_pred").cast(pl.Float64)).fair.confusion(
        ["a", "b"], pos_label=float(pos), **w)
    as_bool = df.with_columns(pl.col("y_true", "y_pred").cast(pl.Boolean)).fair.confusion(
        ["a", "b"], pos_label=bool(pos), **w)
    for other in (as_str, as_float, as_bool):
        assert_frame_equal(as_int, other)
