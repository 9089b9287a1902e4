"""One-hot probabilities with sample weights (issue 24, third review item 4): what equals the
crisp weighted audit and what does not, as the guide now states it.

The weighted estimator's inference reads Kish's n_effective of w·p; for a one-hot group that is
(Σw)² / Σw², below the rows when the weights differ, where the crisp weighted audit counts the
rows of positive weight. So counts, rates and ratios are equal bit for bit, the intervals are
not (the weighted estimator's are wider), and the argmax estimator equals the crisp audit in
everything.
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from statsmodels.stats.proportion import proportion_confint

M = {"g": {"a": "p_a", "b": "p_b"}}


def _rows() -> pl.DataFrame:
    """a: weights 1, 1, 2, 4 (rows selected: the two of weight 1); b: four rows of weight 1
    (one selected). By hand: a's selection rate = (1 + 1) / 8 = 0.25 and n_effective =
    8² / (1 + 1 + 4 + 16) = 64 / 22; b's rate 1 / 4 = 0.25 and n_effective 4² / 4 = 4."""
    return pl.DataFrame({
        "g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0, 1, 0] * 2,
        "y_pred": [1, 1, 0, 0, 1, 0, 0, 0], "w": [1.0, 1.0, 2.0, 4.0, 1.0, 1.0, 1.0, 1.0],
    }).with_columns(p_a=(pl.col("g") == "a").cast(pl.Float64),
                    p_b=(pl.col("g") == "b").cast(pl.Float64))


def _selection(df: pl.DataFrame) -> pl.DataFrame:
    return df.filter(pl.col("metric") == "selection_rate").sort("g")


def test_counts_rates_and_ratios_equal_the_crisp_weighted_audit() -> None:
    df = _rows()
    # reference="largest" reads the support size too: b (Kish 4) for the weighted estimator,
    # a (4 rows, listed first) for the crisp audit; named here, the figures are the same
    got = df.drop("g").fair.report(membership=M, sample_weight="w", min_support=1,
                                   reference="a")
    want = df.fair.report("g", sample_weight="w", min_support=1, reference="a")
    largest = df.drop("g").fair.report(membership=M, sample_weight="w", min_support=1)
    assert largest.filter(pl.col("is_reference"))["g"].to_list() == ["b"]
    crisp = df.fair.report("g", sample_weight="w", min_support=1)
    assert crisp.filter(pl.col("is_reference"))["g"].to_list() == ["a"]
    same = ["g", "n", "tp", "fp", "fn", "tn", "weight_sum", "selection_rate", "tpr", "fpr",
            "disparate_impact", "impact_ratio", "ofi"]
    assert_frame_equal(got.select(same), want.select(same), check_exact=True)
    assert got["n_effective"].to_list() == pytest.approx([64 / 22, 4.0], rel=1e-12)


def test_the_weighted_estimator_reads_kish_s_size_the_crisp_audit_the_rows() -> None:
    df = _rows()
    got = _selection(df.drop("g").fair.metrics(membership=M, sample_weight="w"))
    want = _selection(df.fair.metrics("g", sample_weight="w"))
    # Wilson's interval (statsmodels, an independent implementation) on 0.25 of n_effective
    # 64/22 for the weighted estimator, of the 4 rows for the crisp audit
    kish = proportion_confint(0.25 * 64 / 22, 64 / 22, alpha=0.05, method="wilson")
    rows = proportion_confint(1, 4, alpha=0.05, method="wilson")
    assert got.row(0, named=True)["ci_low"] == pytest.approx(kish[0], rel=1e-9)
    assert got.row(0, named=True)["ci_high"] == pytest.approx(kish[1], rel=1e-9)
    assert want.row(0, named=True)["ci_low"] == pytest.approx(rows[0], rel=1e-9)
    assert want.row(0, named=True)["ci_high"] == pytest.approx(rows[1], rel=1e-9)
    assert kish[1] - kish[0] > rows[1] - rows[0]  # wider: the weights' design effect
    # b's weights are equal: Kish's size is its 4 rows, and its interval is the crisp one
    assert got.row(1)[got.columns.index("ci_low"):] == want.row(1)[want.columns.index(
        "ci_low"):]


@pytest.mark.parametrize("method", ["report", "metrics", "impact_analysis", "disparity"])
def test_the_argmax_estimator_equals_the_crisp_weighted_audit(method: str) -> None:
    df = _rows()
    options = {"min_support": 1} if method in ("report", "impact_analysis") else {}
    got = getattr(df.drop("g").fair, method)(membership=M, sample_weight="w",
                                             membership_estimator="argmax", **options)
    want = getattr(df.fair, method)("g", sample_weight="w", **options)
    assert_frame_equal(got, want, check_exact=True)
