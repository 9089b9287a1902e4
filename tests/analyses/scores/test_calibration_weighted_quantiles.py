"""Issue 19 (kind 5): weighted quantile bins do not depend on the scale of the weights.

Constant weights summing to 1 put every row in the top bin (edges like
0.0030000000000001657), and constant weights of 0.5 gave other bins than the unweighted
rows. The weights are now read in rows (:func:`polars_fair.core.rules.weighted_rows`):
rescaled to a mean of 1 per row of positive weight, whole within a relative tolerance.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.core.rules import weighted_rows

RNG = np.random.default_rng(19)
#: 60 rows, 3 groups, scores with ties (one decimal)
ROWS = pl.DataFrame({
    "g": RNG.integers(0, 3, 60).astype(str),
    "y_true": RNG.integers(0, 2, 60),
    "y_score": np.round(RNG.random(60), 1),
})


@pytest.mark.parametrize("scale", [1e-6, 0.5, 1.0, 1e6, 1 / 60])
@pytest.mark.parametrize("n_bins", [4, 7])
def test_constant_weights_give_the_unweighted_bins_at_any_scale(scale: float,
                                                                 n_bins: int) -> None:
    unweighted = ROWS.fair.reliability("g", n_bins=n_bins, strategy="quantile")
    weighted = ROWS.with_columns(w=pl.lit(scale)).fair.reliability(
        "g", n_bins=n_bins, strategy="quantile", sample_weight="w")
    assert weighted["bin_low"].to_list() == unweighted["bin_low"].to_list()
    assert weighted["bin_high"].to_list() == unweighted["bin_high"].to_list()
    # each bin holds the same rows: n is their weight, scale x the unweighted count
    assert np.allclose(weighted["n"].to_numpy() / scale,
                       unweighted["n"].cast(pl.Float64).to_numpy(), rtol=1e-9, atol=0)
    cal_u = ROWS.fair.calibration("g", n_bins=n_bins, strategy="quantile")
    cal_w = ROWS.with_columns(w=pl.lit(scale)).fair.calibration(
        "g", n_bins=n_bins, strategy="quantile", sample_weight="w")
    assert np.allclose(cal_w["ece"].to_numpy(), cal_u["ece"].to_numpy(), rtol=1e-9, atol=1e-12)


def test_a_weighted_case_by_hand() -> None:
    df = pl.DataFrame({"y_true": [0, 0, 1, 1], "y_score": [0.1, 0.2, 0.3, 0.4],
                       "w": [1.0, 1.0, 1.0, 5.0]})
    out = df.fair.reliability(n_bins=2, strategy="quantile", sample_weight="w")
    # by hand: 4 rows of total weight 8, so each weight counts 4/8 of a row: 0.5, 0.5, 0.5, 2.5;
    # cumulative rows 0.5, 1, 1.5, 4; rows strictly below each score 0, 0.5, 1, 1.5.
    # numpy's linear rule on N = 4 rows: Q(1/2) at h = 1 * 3 / 2 = 1.5, between row 1 (the
    # first score whose cumulative rows exceed 1: 0.3) and row 2 (exceeding 2: 0.4): 0.35;
    # Q(0) is row 0 (0.1), Q(1) row 3 (0.4).
    # A score is in bin 0 when the rows below it are at most floor(1.5) = 1: 0.1, 0.2, 0.3
    # (weight 3; mean score 0.2; positives 1 of 3), and 0.4 in bin 1 (weight 5, all positive).
    assert out.select("bin", "bin_low", "bin_high", "n").rows() == [
        (0, 0.1, 0.35, 3.0), (1, 0.35, 0.4, 5.0)]
    assert out["mean_score"].round(12).to_list() == [0.2, 0.4]
    assert out["fraction_positive"].round(12).to_list() == [round(1 / 3, 12), 1.0]


def test_a_zero_weight_row_is_left_out_as_if_absent() -> None:
    df = pl.DataFrame({"y_true": [0, 0, 1, 1, 1], "y_score": [0.1, 0.2, 0.3, 0.4, 0.9],
                       "w": [1.0, 1.0, 1.0, 1.0, 0.0]})
    got = df.fair.reliability(n_bins=3, strategy="quantile", sample_weight="w")
    want = df.head(4).fair.reliability(n_bins=3, strategy="quantile")
    # the rows of positive weight (n_positive_weight = 4) are what the weights stand for
    assert got["bin_low"].to_list()[:3] == want["bin_low"].to_list()
    assert got["bin_high"].to_list()[:2] == want["bin_high"].to_list()[:2]


def test_weighted_rows_reads_float_sums_as_whole_rows() -> None:
    # ten rows of 0.1: the cumulative float sums are not multiples of 0.1, their rows are whole
    cum = np.cumsum([0.1] * 10)
    assert [weighted_rows(float(c), float(cum[-1]), 10) for c in cum] == [
        float(i) for i in range(1, 11)]
    assert weighted_rows(3.0, 8.0, 4) == 1.5  # 4 * 3 / 8, not whole
