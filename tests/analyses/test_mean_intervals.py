"""mean_intervals: each group's mean with its Student t interval, from a continuous report.

Expected values: scipy's ``t.interval`` on the rows themselves, and the same rows repeated for
frequency weights.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sst

from polars_fair import errors as E
from polars_fair.analyses.continuous import mean_intervals

ROWS = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 3 + ["c"],
                     "v": [1.0, 2.0, 4.0, 7.0, 10.0, 11.0, 15.0, 3.0],
                     "w": [1.0, 2.0, 1.0, 3.0, 1.0, 1.0, 2.0, 1.0]})


def test_each_mean_has_scipys_t_interval() -> None:
    report = ROWS.fair.continuous_report("g", y_pred="v", min_support=1)
    out = mean_intervals(report, ["g"], level=0.9)
    assert out.columns == ["g", "mean", "mean_ci_low", "mean_ci_high"]
    for g in ("a", "b"):
        x = ROWS.filter(pl.col("g") == g)["v"].to_numpy()
        low, high = sst.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=sst.sem(x))
        row = out.filter(pl.col("g") == g).row(0, named=True)
        assert row["mean_ci_low"] == pytest.approx(low, rel=1e-12)
        assert row["mean_ci_high"] == pytest.approx(high, rel=1e-12)
    # one row: no interval (null, never NaN)
    assert out.filter(pl.col("g") == "c").select("mean_ci_low", "mean_ci_high").row(0) == (
        None, None)


def test_frequency_weights_equal_repeated_rows() -> None:
    weighted = ROWS.fair.continuous_report("g", y_pred="v", sample_weight="w", min_support=1)
    repeated = ROWS.select(pl.col("g", "v").repeat_by(pl.col("w").cast(pl.Int64))).explode(
        "g", "v")
    plain = repeated.fair.continuous_report("g", y_pred="v", min_support=1)
    got = mean_intervals(weighted, ["g"])
    want = mean_intervals(plain, ["g"])
    for col in ("mean_ci_low", "mean_ci_high"):  # c has one row: null on both sides
        assert np.allclose(got[col].to_numpy(), want[col].to_numpy(), rtol=1e-12,
                           equal_nan=True)
    assert got["mean_ci_low"][2] is None


def test_a_level_outside_0_1_is_refused() -> None:
    report = ROWS.fair.continuous_report("g", y_pred="v", min_support=1)
    with pytest.raises(E.InvalidArgumentError, match="level"):
        mean_intervals(report, ["g"], level=1.5)
