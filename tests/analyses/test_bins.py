"""Issue 19, kind 5: quantile bins split the rows as quantiles do.

``bins={"x": k}`` puts a row in the first bin ``b`` whose quantile ``Q(b/k)`` (numpy's default,
linear interpolation, at the exact position ``b (m - 1) / k``) it does not exceed. numpy
(``np.quantile(x, b / k)``) and Polars' ``qcut`` are the independent references here, used
only in the test; ``pandas.qcut`` is not one: it reads positions from ``np.linspace`` in
floating point and can move a value tied on a quantile up a bin (shown below).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_fair.analyses.divergence import bin_attributes
from polars_fair.analyses.scores.calibration import calibration_from_scores


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


def _calibration_sizes(values: list[float], k: int) -> list[int]:
    """The non-empty bins of ``reliability(strategy="quantile")`` over the same values."""
    table = pl.DataFrame({"score": [float(v) for v in values]}).group_by("score").agg(
        pl.len().cast(pl.Int64).alias("positives")).with_columns(negatives=pl.lit(0))
    reliability, _, _ = calibration_from_scores(table, [], n_bins=k, strategy="quantile")
    return [int(n) for n in reliability["n"] if n > 0]


#: 31 values: 0, 1, 2 (x7), 3 (x5), 4 (x6), 5 (x5), 6 (x2), 7 (x4)
TIED_31 = [0, 1, *[2] * 7, *[3] * 5, *[4] * 6, *[5] * 5, *[6] * 2, *[7] * 4]


def test_a_value_tied_on_a_quantile_stays_in_the_lower_bin_where_pandas_moves_it() -> None:
    # m = 31, k = 6: positions 30 b / 6 = 5 b are whole, so the edges are v_5 = 2, v_10 = 3,
    # v_15 = 4, v_20 = 5, v_25 = 6: <= 2: 9 rows, (2, 3]: 5, (3, 4]: 6, (4, 5]: 5, (5, 6]: 2,
    # > 6: 4
    assert _sizes(TIED_31, 6) == [9, 5, 6, 5, 2, 4]
    assert _calibration_sizes(TIED_31, 6) == [9, 5, 6, 5, 2, 4]
    assert _numpy_sizes(TIED_31, 6) == [9, 5, 6, 5, 2, 4]
    with pytest.warns(DeprecationWarning):  # Polars 2 deprecates qcut for bin_quantiles
        breaks = pl.Series("x", TIED_31).qcut(6, left_closed=False, include_breaks=True)
    polars_qcut = breaks.struct.field("breakpoint").value_counts().sort("breakpoint")["count"]
    assert polars_qcut.to_list() == [9, 5, 6, 5, 2, 4]
    # what the guide says of pandas.qcut: Q(5/6) read at a linspace position, 5.9999999999999964,
    # so the two 6s move up a bin
    pd = pytest.importorskip("pandas")
    codes = pd.qcut(np.asarray(TIED_31, dtype=np.float64), 6, labels=False)
    assert np.bincount(codes, minlength=6).tolist() == [9, 5, 6, 5, 0, 6]


def test_a_quantile_numpy_reads_below_a_whole_row_is_that_row() -> None:
    # 108 values -1 and 91 zeros (m = 199) in 22 bins: positions 198 b / 22 = 9 b, whole for
    # every b; v_(9b) = -1 for b <= 11 (9 b <= 99 < 108) and v_108 = 0 for b = 12: the 108 -1s
    # are at most Q(1/22) and the 91 zeros at most Q(12/22), two non-empty bins
    values = [-1.0] * 108 + [0.0] * 91
    assert _sizes(values, 22) == [108, 91]
    assert _calibration_sizes(values, 22) == [108, 91]
    labels = bin_attributes(pl.LazyFrame({"x": values}), {"x": 22}).collect()["x"]
    assert labels.unique(maintain_order=True).to_list() == ["<= -1.0", "(-1.0, 0.0]"]
    # numpy's float position 198 * (12 / 22) falls below 108: it reads Q(12/22) as -1.4e-14
    assert float(np.quantile(values, 12 / 22)) < 0.0


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.integers(min_value=-3, max_value=6), min_size=1, max_size=60),
       k=st.integers(min_value=2, max_value=12))
def test_divergence_and_calibration_cut_the_same_quantile_bins(values: list[int],
                                                               k: int) -> None:
    # one rule (core.rules.quantile_positions) for both: divergence on the rows through Polars'
    # bin_quantiles, calibration on the score table
    assert _sizes(values, k) == _calibration_sizes([float(v) for v in values], k)
