"""metrics() (tidy, per-metric support, intervals) and disparity() (tests against a reference)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats as sst

from polars_fair import errors as E
from polars_fair.core.registry import RATE_NAMES
from tests.conftest import Runner
from tests.ratio_reference import mover_r

# group a: tp 40, fn 10, fp 5, tn 45 (n 100); group b: tp 2, fn 1, fp 20, tn 77 (n 100)
CELLS = {"a": (40, 10, 5, 45), "b": (2, 1, 20, 77)}


def frame(cells: dict[str, tuple[int, int, int, int]]) -> pl.DataFrame:
    rows = []
    for g, (tp, fn, fp, tn) in cells.items():
        rows += [(g, 1, 1)] * tp + [(g, 1, 0)] * fn + [(g, 0, 1)] * fp + [(g, 0, 0)] * tn
    return pl.DataFrame(rows, schema=["g", "y_true", "y_pred"], orient="row")


def wilson(x: float, n: float, z: float = sst.norm.ppf(0.975)) -> tuple[float, float]:
    """Wilson (1927) score interval, written out here."""
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_metrics_tidy_values_and_wilson(run: Runner) -> None:
    out = run(frame(CELLS), "metrics", "g")
    assert out.columns == ["g", "metric", "numerator", "denominator", "value", "ci_low",
                           "ci_high", "low_support"]
    assert out.height == 2 * len(RATE_NAMES)
    tpr_b = out.filter((pl.col("g") == "b") & (pl.col("metric") == "tpr")).row(0, named=True)
    assert (tpr_b["numerator"], tpr_b["denominator"]) == (2, 3)
    assert tpr_b["value"] == pytest.approx(2 / 3)
    assert (tpr_b["ci_low"], tpr_b["ci_high"]) == pytest.approx(wilson(2, 3))
    # support on the metric's own denominator: 3 positives in a group of 100 rows
    assert tpr_b["low_support"] is True
    sel_b = out.filter((pl.col("g") == "b") & (pl.col("metric") == "selection_rate")).row(
        0, named=True)
    assert sel_b["low_support"] is False and sel_b["denominator"] == 100
    # marginal benefit (FP - FN)/n with its Wald interval
    mb_a = out.filter((pl.col("g") == "a") & (pl.col("metric") == "marginal_benefit")).row(
        0, named=True)
    b = (5 - 10) / 100
    se = math.sqrt((5 / 100 + 10 / 100 - b * b) / 100)
    assert mb_a["value"] == pytest.approx(b)
    assert mb_a["ci_low"] == pytest.approx(b - sst.norm.ppf(0.975) * se)


def test_metrics_null_for_zero_denominator(run: Runner) -> None:
    out = run(frame({"a": (0, 0, 3, 7), "b": (5, 5, 0, 0)}), "metrics", "g")
    tpr_a = out.filter((pl.col("g") == "a") & (pl.col("metric") == "tpr")).row(0, named=True)
    assert tpr_a["denominator"] == 0
    assert (tpr_a["value"], tpr_a["ci_low"], tpr_a["ci_high"]) == (None, None, None)
    assert tpr_a["low_support"] is True


def test_disparity_by_hand(run: Runner) -> None:
    out = run(frame(CELLS), "disparity", "g", reference="a")
    a, b = out.row(0, named=True), out.row(1, named=True)
    assert a["is_reference"] is True and a["p_value"] is None
    # selection rates: a 45/100, b 22/100
    assert b["value"] == pytest.approx(0.22) and b["reference_value"] == pytest.approx(0.45)
    assert b["difference"] == pytest.approx(-0.23)
    assert b["ratio"] == pytest.approx(22 / 45)
    # MOVER-R Wilson interval of the ratio (tests/ratio_reference.py, scipy's Wilson); it was
    # Katz's log interval, which collapses at a rate of 1 (issue 24)
    low, high = mover_r(22, 100, 45, 100)
    assert b["ratio_ci_low"] == pytest.approx(low, rel=1e-12)
    assert b["ratio_ci_high"] == pytest.approx(high, rel=1e-12)
    # all expected cells >= 5 -> pooled z-test; equals the chi-square test without correction
    chi2 = sst.chi2_contingency(np.array([[22, 78], [45, 55]]), correction=False)
    assert b["p_value"] == pytest.approx(chi2.pvalue)
    assert b["p_value_adjusted"] == pytest.approx(chi2.pvalue)  # one comparison
    assert b["significant"] is True


def test_disparity_fisher_for_small_cells_and_holm(run: Runner) -> None:
    cells = {"a": (40, 10, 5, 45), "b": (1, 1, 1, 2), "c": (30, 20, 20, 30)}
    out = run(frame(cells), "disparity", "g", reference="a", metric="tpr")
    b = out.filter(pl.col("g") == "b").row(0, named=True)
    c = out.filter(pl.col("g") == "c").row(0, named=True)
    # b: tpr 1/2 vs 40/50, expected cells < 5 -> Fisher's exact test
    assert b["p_value"] == pytest.approx(sst.fisher_exact([[1, 1], [40, 10]]).pvalue)
    # Holm over the two comparisons: smallest p times 2, then max(previous, p times 1)
    ps = sorted([b["p_value"], c["p_value"]])
    holm = [min(1, ps[0] * 2), min(1, max(ps[0] * 2, ps[1]))]
    assert sorted([b["p_value_adjusted"], c["p_value_adjusted"]]) == pytest.approx(holm)


def test_disparity_overall_is_the_complement(run: Runner) -> None:
    out = run(frame(CELLS), "disparity", "g", reference="overall")
    b = out.filter(pl.col("g") == "b").row(0, named=True)
    assert (b["reference_numerator"], b["reference_denominator"]) == (45, 100)


def test_disparity_bad_arguments() -> None:
    df = frame(CELLS)
    with pytest.raises(E.InvalidArgumentError, match="metric must be one of"):
        df.fair.disparity("g", metric="marginal_benefit")
    with pytest.raises(E.InvalidArgumentError, match="adjust must be 'holm' or 'bh'"):
        df.fair.disparity("g", adjust="bonferroni")  # type: ignore[arg-type]
    with pytest.raises(E.InvalidArgumentError, match="level must lie in"):
        df.fair.metrics("g", level=95)


def test_weighted_inference_does_not_depend_on_the_scale_of_the_weights() -> None:
    """Weights are normalised to mean 1 within a group: uniform weights give the row results."""
    df = frame(CELLS).with_columns(w=pl.lit(1e5))
    for method, kw in (("metrics", {}), ("disparity", {"reference": "a"})):
        weighted = getattr(df.fair, method)("g", sample_weight="w", **kw)
        plain = getattr(df.fair, method)("g", **kw)
        cols = ["value", "ci_low", "ci_high", "low_support"] if method == "metrics" else \
            ["value", "difference_ci_low", "ratio_ci_high", "p_value", "significant"]
        for c in cols:
            got, want = weighted[c].to_list(), plain[c].to_list()
            assert all((x is None and y is None) or x == pytest.approx(y)
                       for x, y in zip(got, want, strict=True)), c


def test_disparity_auto_uses_the_z_test_at_an_expected_cell_of_exactly_five() -> None:
    """Issue 19 kind 6 through disparity: group a selects 6 of 14, the reference b (largest)
    21 of 28. The smallest expected cell is 15 * 14 / 42 = 5, not below 5: the z-test,
    p = erfc(|z| / sqrt(2)) with z = (6/14 - 21/28) / sqrt(27/42 * 15/42 * (1/14 + 1/28))
    = 0.0404, significant at 0.05 (Fisher's 0.0854 would not be)."""

    import polars_fair

    counts = pl.DataFrame({"g": ["a", "b"], "n": [14, 28], "tp": [6, 21], "fp": [0, 0],
                           "fn": [0, 0], "tn": [8, 7]})
    out = polars_fair.from_counts(counts, "g").disparity().collect()
    pooled = 27 / 42
    z = (6 / 14 - 21 / 28) / math.sqrt(pooled * (1 - pooled) * (1 / 14 + 1 / 28))
    row = out.filter(pl.col("g") == "a").row(0, named=True)
    assert row["p_value"] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-12)
    assert row["significant"] is True
