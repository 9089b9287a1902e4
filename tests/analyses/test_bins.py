"""Issue 19, kind 5: quantile bins split the rows as quantiles do.

``bins={"x": k}`` puts a row in the first bin ``b`` whose quantile ``Q(b/k)`` (numpy's default,
linear interpolation; also ``pandas.qcut`` and Polars' ``qcut``) it does not exceed. numpy is
the independent reference here, used only in the test.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_fair.analyses.divergence import bin_attributes


def _sizes(values: list[float] | list[int], k: int) -> list[int]:
    """The bin sizes polars_fair gives, in bin order (the labels sorted by their first row)."""
    out = bin_attributes(pl.LazyFrame({"x": values}), {"x": k}).collect()
    frame = pl.DataFrame({"label": out["x"], "x": values}).drop_nulls()
    return (frame.group_by("label").agg(pl.len(), pl.col("x").min())
            .sort("x")["len"].to_list())


def _numpy_sizes(values: list[float] | list[int], k: int) -> list[int]:
    """numpy: edges at the quantiles 1/k, ..., (k-1)/k; a row goes to the first edge it does
    not exceed (right-closed bins); empty bins (equal edges) are left out."""
    x = np.asarray([v for v in values if v is not None], dtype=np.float64)
    edges = np.quantile(x, [b / k for b in range(1, k)])
    counts = np.bincount(np.searchsorted(edges, x, side="left"), minlength=k)
    return [int(c) for c in counts if c > 0]


def test_two_bins_over_ties_split_the_rows() -> None:
    # median of [0, 0, 0, 1, 1] is 0: the 3 zeros are at most it, the 2 ones above (all 5 rows
    # were one bin)
    out = bin_attributes(pl.LazyFrame({"x": [0, 0, 0, 1, 1]}), {"x": 2}).collect()["x"]
    assert out.to_list() == ["<= 0", "<= 0", "<= 0", "> 0", "> 0"]


def test_one_to_ten_in_five_bins_gives_two_rows_each() -> None:
    # Q(0.2) = 1 + 9 * 0.2 = 2.8, Q(0.4) = 4.6, Q(0.6) = 6.4, Q(0.8) = 8.2: 2 rows each
    # (the sizes were 1, 2, 2, 2, 3)
    assert _sizes(list(range(1, 11)), 5) == [2, 2, 2, 2, 2]
    out = bin_attributes(pl.LazyFrame({"x": list(range(1, 11))}), {"x": 5}).collect()["x"]
    assert out.unique(maintain_order=True).to_list() == [
        "<= 2", "(2, 4]", "(4, 6]", "(6, 8]", "> 8"]


def test_nulls_stay_missing_and_do_not_move_the_edges() -> None:
    values = [1, 2, 3, 4, None, None]
    out = bin_attributes(pl.LazyFrame({"x": values}), {"x": 2}).collect()["x"]
    # median of 1..4 is 2.5: 1, 2 at most it, 3, 4 above
    assert out.to_list() == ["<= 2", "<= 2", "> 2", "> 2", None, None]


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.integers(min_value=0, max_value=6), min_size=1, max_size=60),
       k=st.integers(min_value=2, max_value=9))
def test_bin_sizes_equal_numpys_quantile_split_on_data_with_ties(values: list[int],
                                                                 k: int) -> None:
    assert _sizes(values, k) == _numpy_sizes(values, k)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.integers(min_value=-8 * 10**6, max_value=8 * 10**6).map(lambda i: i / 8),
                       min_size=1, max_size=80),
       k=st.integers(min_value=2, max_value=12))
def test_bin_sizes_equal_numpys_quantile_split_on_floats(values: list[float], k: int) -> None:
    # floats 1/8 apart at least: numpy interpolates Q = v_j + t (v_(j+1) - v_j) in floating
    # point, which for neighbours an ulp apart can round onto v_(j+1) (found: [-5e-324, 0, 0]
    # in 3 bins, where Q(1/3) = -5e-324 / 3 < 0 exactly but numpy reads 0 and puts all three
    # rows in one bin); the rule here is decided on integers, so it is exact there
    assert _sizes(values, k) == _numpy_sizes(values, k)


def test_a_quantile_between_neighbouring_floats_is_decided_exactly() -> None:
    # the case above by hand: Q(1/3) of [-5e-324, 0, 0] lies strictly between -5e-324 and 0,
    # so only -5e-324 is at most it; Q(2/3) = 0: both zeros are at most it
    assert _sizes([0.0, 0.0, -5e-324], 3) == [1, 2]
