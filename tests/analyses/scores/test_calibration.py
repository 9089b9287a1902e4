"""Tests for polars_fair.analyses.scores.calibration: scikit-learn oracle, hand ECE, errors."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from sklearn.calibration import calibration_curve

import polars_fair.analyses.scores.calibration as cal


def _rows(seed: int, size: int, groups: tuple[str, ...] = ("a",)) -> pl.DataFrame:
    """Raw rows with many ties and scores sitting exactly on bin edges (two decimals)."""
    rng = np.random.default_rng(seed)
    score = np.round(rng.beta(2, 3, size=size), 2)
    y = (rng.uniform(size=size) < score**0.8).astype(np.int64)
    g = rng.choice(np.array(groups), size=size)
    return pl.DataFrame({"g": g, "y_score": score, "y_true": y})


def _score_table(rows: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The score table a caller would build: one row per (group, distinct score)."""
    return (
        rows.group_by([*keys, "y_score"])
        .agg(
            pl.col("y_true").sum().cast(pl.Int64).alias("positives"),
            (1 - pl.col("y_true")).sum().cast(pl.Int64).alias("negatives"),
        )
        .rename({"y_score": "score"})
    )


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 5, 10, 17])
def test_single_group_matches_sklearn_calibration_curve(strategy: str, n_bins: int) -> None:
    rows = _rows(0, 3000)
    reliability, by_group, _ = cal.calibration_from_scores(
        _score_table(rows, ["g"]),
        ["g"],
        n_bins=n_bins,
        strategy=strategy,  # type: ignore[arg-type]
    )
    prob_true, prob_pred = calibration_curve(
        rows["y_true"].to_numpy(), rows["y_score"].to_numpy(), n_bins=n_bins, strategy=strategy
    )
    filled = reliability.filter(pl.col("n") > 0)
    assert np.allclose(filled["fraction_positive"].to_numpy(), prob_true, rtol=0, atol=1e-12)
    assert np.allclose(filled["mean_score"].to_numpy(), prob_pred, rtol=0, atol=1e-12)
    assert int(filled["n"].sum()) == rows.height == int(by_group["n"].item())


def test_uniform_bins_per_group_match_sklearn_on_each_group() -> None:
    rows = _rows(1, 4000, groups=("a", "b", "c"))
    reliability, _, _ = cal.calibration_from_scores(_score_table(rows, ["g"]), ["g"], n_bins=8)
    for name in ("a", "b", "c"):
        part = rows.filter(pl.col("g") == name)
        prob_true, prob_pred = calibration_curve(
            part["y_true"].to_numpy(), part["y_score"].to_numpy(), n_bins=8
        )
        got = reliability.filter((pl.col("g") == name) & (pl.col("n") > 0))
        assert np.allclose(got["fraction_positive"].to_numpy(), prob_true, atol=1e-12)
        assert np.allclose(got["mean_score"].to_numpy(), prob_pred, atol=1e-12)


def test_quantile_bins_come_from_the_pooled_distribution() -> None:
    rows = _rows(2, 3000, groups=("a", "b"))
    n_bins = 6
    reliability, _, _ = cal.calibration_from_scores(
        _score_table(rows, ["g"]), ["g"], n_bins=n_bins, strategy="quantile"
    )
    # Independent numpy reference on the raw rows: pooled percentile edges, sklearn's binning.
    edges = np.percentile(rows["y_score"].to_numpy(), np.linspace(0, 100, n_bins + 1))
    for name in ("a", "b"):
        part = rows.filter(pl.col("g") == name)
        s, y = part["y_score"].to_numpy(), part["y_true"].to_numpy()
        ids = np.searchsorted(edges[1:-1], s)
        total = np.bincount(ids, minlength=n_bins)
        got = reliability.filter(pl.col("g") == name).sort("bin")
        assert got["n"].to_list() == total.tolist()
        assert np.allclose(got["bin_low"].to_numpy(), edges[:-1], atol=0)
        assert np.allclose(got["bin_high"].to_numpy(), edges[1:], atol=0)
        nz = total > 0
        frac = np.bincount(ids, weights=y, minlength=n_bins)[nz] / total[nz]
        assert np.allclose(got.filter(pl.col("n") > 0)["fraction_positive"].to_numpy(), frac)


def test_ece_matches_hand_computation() -> None:
    table = pl.DataFrame(
        {
            "g": ["a", "a", "a", "a", "b", "b"],
            "score": [0.05, 0.25, 0.5, 0.95, 0.3, 0.7],
            "positives": [0, 1, 3, 4, 2, 0],
            "negatives": [4, 3, 1, 0, 0, 2],
        }
    )
    # n_bins = 2, edges 0, 0.5, 1; 0.5 sits on the edge and goes to bin 0 (right-closed).
    # a, bin 0: scores .05 (4 rows), .25 (4), .5 (4): n = 12, mean = (.2 + 1 + 2)/12 = 0.26667,
    #   fraction = 4/12 = 0.33333, |gap| = 0.06667.
    # a, bin 1: score .95 (4 rows): mean .95, fraction 1, |gap| = .05.
    # ECE(a) = 12/16 * 0.06667 + 4/16 * 0.05 = 0.05 + 0.0125 = 0.0625; MCE(a) = 0.06667.
    # b, bin 0: .3 (2 rows, 2 pos) gap .7; bin 1: .7 (2 rows, 0 pos) gap .7: ECE = MCE = 0.7.
    reliability, by_group, gap = cal.calibration_from_scores(table, ["g"], n_bins=2)
    a0 = reliability.row(0, named=True)
    assert a0["n"] == 12
    assert a0["mean_score"] == pytest.approx(3.2 / 12)
    assert a0["fraction_positive"] == pytest.approx(4 / 12)
    assert by_group["ece"].to_list() == pytest.approx([0.0625, 0.7])
    assert by_group["max_calibration_error"].to_list() == pytest.approx([0.2 / 3, 0.7])
    assert gap.difference == pytest.approx(0.7 - 0.0625)
    assert gap.highest == {"g": "b"} and gap.lowest == {"g": "a"}


def test_output_schema_is_fixed_and_empty_bins_are_null() -> None:
    table = pl.DataFrame(
        {"g": [2, 1], "score": [0.15, 0.85], "positives": [1, 0], "negatives": [0, 3]}
    )
    reliability, by_group, _ = cal.calibration_from_scores(table, ["g"], n_bins=4)
    assert reliability.schema == pl.Schema(
        {
            "g": pl.Int64,
            "bin": pl.Int64,
            "bin_low": pl.Float64,
            "bin_high": pl.Float64,
            "n": pl.Int64,
            "mean_score": pl.Float64,
            "fraction_positive": pl.Float64,
        }
    )
    assert by_group.schema == pl.Schema(
        {"g": pl.Int64, "n": pl.Int64, "ece": pl.Float64, "max_calibration_error": pl.Float64}
    )
    assert reliability["g"].to_list() == [1] * 4 + [2] * 4
    assert reliability["bin"].to_list() == [0, 1, 2, 3] * 2
    empty = reliability.filter(pl.col("n") == 0)
    assert empty.height == 6
    assert empty["mean_score"].null_count() == 6 and empty["fraction_positive"].null_count() == 6


def test_weighted_counts_give_float_n_and_weighted_means() -> None:
    table = pl.DataFrame({"score": [0.2, 0.4], "positives": [0.5, 1.5], "negatives": [1.0, 0.0]})
    reliability, by_group, gap = cal.calibration_from_scores(table, [], n_bins=1)
    assert reliability.schema["n"] == pl.Float64 and by_group.schema["n"] == pl.Float64
    row = reliability.row(0, named=True)
    assert row["n"] == pytest.approx(3.0)
    assert row["mean_score"] == pytest.approx((0.2 * 1.5 + 0.4 * 1.5) / 3.0)
    assert row["fraction_positive"] == pytest.approx(2.0 / 3.0)
    assert by_group["ece"].item() == pytest.approx(abs(2.0 / 3.0 - 0.3))
    assert gap.difference is None


def test_null_group_keys_are_kept_as_their_own_group() -> None:
    table = pl.DataFrame(
        {"g": ["a", None], "score": [0.2, 0.9], "positives": [1, 1], "negatives": [1, 0]}
    )
    reliability, by_group, _ = cal.calibration_from_scores(table, ["g"], n_bins=2)
    assert by_group["g"].to_list() == ["a", None]
    assert reliability.filter(pl.col("g").is_null())["n"].to_list() == [0, 1]


def test_scores_outside_unit_interval_raise_naming_y_score() -> None:
    table = pl.DataFrame(
        {"score": [-0.2, 0.5, 1.3], "positives": [1, 1, 1], "negatives": [0, 0, 0]}
    )
    message = cal.SCORE_RANGE_MESSAGE.format(low=-0.2, high=1.3)
    assert "y_score" in message and "[-0.2, 1.3]" in message
    with pytest.raises(ValueError, match=re.escape(message)):
        cal.calibration_from_scores(table, [], strategy="uniform")
    # Quantile bins do not need [0, 1].
    reliability, _, _ = cal.calibration_from_scores(table, [], n_bins=3, strategy="quantile")
    assert reliability["n"].sum() == 3


def test_nan_scores_and_bad_options_raise() -> None:
    table = pl.DataFrame({"score": [0.1, float("nan")], "positives": [1, 1], "negatives": [0, 0]})
    with pytest.raises(
        ValueError, match=re.escape(cal.SCORE_MISSING_MESSAGE.format(count=1, column="score"))
    ):
        cal.calibration_from_scores(table, [])
    good = pl.DataFrame({"score": [0.1], "positives": [1], "negatives": [0]})
    with pytest.raises(ValueError, match=re.escape(cal.N_BINS_MESSAGE.format(n_bins=0))):
        cal.calibration_from_scores(good, [], n_bins=0)
    with pytest.raises(ValueError, match=re.escape(cal.STRATEGY_MESSAGE.format(strategy="x"))):
        cal.calibration_from_scores(good, [], strategy="x")  # type: ignore[arg-type]
    with pytest.raises(
        ValueError,
        match=re.escape(
            cal.MISSING_COLUMNS_MESSAGE.format(columns=["g"], found=list(good.columns))
        ),
    ):
        cal.calibration_from_scores(good, ["g"])
    with pytest.raises(ValueError, match=re.escape(cal.EMPTY_MESSAGE)):
        cal.calibration_from_scores(good.with_columns(positives=pl.lit(0)), [])


def test_lazy_input_gives_the_same_result() -> None:
    table = _score_table(_rows(4, 500, groups=("a", "b")), ["g"])
    eager = cal.calibration_from_scores(table, ["g"], n_bins=5)
    lazy = cal.calibration_from_scores(table.lazy(), ["g"], n_bins=5)
    assert eager.reliability.equals(lazy.reliability)
    assert eager.by_group.equals(lazy.by_group)
    assert eager.largest_gap == lazy.largest_gap
