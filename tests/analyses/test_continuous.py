"""The moment table and the continuous report (issue 22, item 4).

Expected values come from hand computations written here, from an exact ``fractions`` reference,
from statsmodels' Welch t-test, from SolasAI's frozen figures (``../shared/oracles/
peer-figures.json``: its licence forbids running it) and from holisticai's
``regression_bias_metrics``, run as a test-only oracle in its own virtual environment: set
``POLARS_FAIR_HOLISTICAI_PYTHON`` to a Python with ``holisticai==1.0.14`` (``.ci/run`` makes one
under ``/tmp/polars-fair-oracles/holisticai``, found by default); without it that test skips,
and fails when ``POLARS_FAIR_REQUIRE_ORACLES=1``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.weightstats import ttest_ind

import polars_fair
from polars_fair import errors as E
from polars_fair.counting.moments import merge_moments
from tests.conftest import ROOT

ORACLES = ROOT.parent / "shared" / "oracles"
REGRESSION = ORACLES / "fixture_regression.csv"


def _oracle_file(path: Path) -> Path:
    if not path.exists():
        if os.environ.get("POLARS_FAIR_REQUIRE_DATA") == "1":
            pytest.fail(f"{path} is absent")
        pytest.skip(f"{path} is absent (../shared/oracles next to the project root)")
    return path


@pytest.fixture(scope="module")
def figures() -> dict[str, object]:
    data: dict[str, object] = json.loads(_oracle_file(ORACLES / "peer-figures.json").read_text())
    return data


@pytest.fixture(scope="module")
def regression() -> pl.DataFrame:
    return pl.read_csv(_oracle_file(REGRESSION))


# ----------------------------------------------------------------------------- by hand
def test_report_by_hand() -> None:
    # a: 1, 2, 3 (mean 2, M2 2, sd 1); b: 2, 3, 5 (mean 10/3, M2 = 4/9 + 1/9 + 25/9 = 14/3)
    df = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "x": [1.0, 2.0, 3.0, 2.0, 3.0, 5.0]})
    r = df.fair.continuous_report("g", y_pred="x", reference="a", min_support=3)
    assert r["n"].to_list() == [3, 3]
    assert r["mean"].to_list() == pytest.approx([2.0, 10 / 3], rel=1e-15)
    assert r["std"].to_list() == pytest.approx([1.0, math.sqrt(7 / 3)], rel=1e-15)
    assert r["mean_difference"].to_list() == pytest.approx([0.0, 4 / 3], abs=1e-15)
    # Cohen's d: pooled sd sqrt((2 + 14/3) / 4) = sqrt(5/3)
    assert r["smd"].to_list() == pytest.approx([0.0, (4 / 3) / math.sqrt(5 / 3)], abs=1e-15)
    # Welch: se^2 = 1/3 + 7/9 = 10/9; df = (10/9)^2 / ((1/3)^2/2 + (7/9)^2/2)
    #   = (100/81) / (29/81) = 100/29
    se, dof = math.sqrt(10 / 9), 100 / 29
    t = (4 / 3) / se
    from scipy import stats  # the t distribution only; the formula is the hand one above

    assert r["p_value"][1] == pytest.approx(2 * stats.t.sf(t, dof), rel=1e-12)
    half = stats.t.ppf(0.975, dof) * se
    assert (r["ci_low"][1], r["ci_high"][1]) == pytest.approx((4 / 3 - half, 4 / 3 + half),
                                                              rel=1e-12)
    assert r["is_reference"].to_list() == [True, False]
    assert r["low_support"].to_list() == [False, False]
    # population sd over all six rows: mean 8/3, M2 = 2 + 14/3 + 3·(2/3)^2 + 3·(2/3)^2 = 28/3
    pop = df.fair.continuous_report("g", y_pred="x", reference="a", smd_sd="population")
    assert pop["smd"][1] == pytest.approx((4 / 3) / math.sqrt((28 / 3) / 5), rel=1e-14)


def test_residuals_by_hand() -> None:
    # residual e = y_pred - y_true: a: 1, -1, 0 (mean 0, MAE 2/3, RMSE sqrt(2/3));
    # b: 2, 2, -1 (mean 1, MAE 5/3, RMSE sqrt(3))
    df = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "p": [2.0, 1.0, 5.0, 4.0, 4.0, 0.0],
                       "y": [1.0, 2.0, 5.0, 2.0, 2.0, 1.0]})
    r = df.fair.continuous_report("g", y_pred="p", y_true="y", reference="a", min_support=1)
    assert r["mean_true"].to_list() == pytest.approx([8 / 3, 5 / 3])
    assert r["mean_residual"].to_list() == pytest.approx([0.0, 1.0], abs=1e-15)
    assert r["mae"].to_list() == pytest.approx([2 / 3, 5 / 3])
    assert r["rmse"].to_list() == pytest.approx([math.sqrt(2 / 3), math.sqrt(3)])
    assert r["mae_ratio"].to_list() == pytest.approx([1.0, 2.5])
    assert r["rmse_ratio"].to_list() == pytest.approx([1.0, math.sqrt(3 / (2 / 3))])
    assert r["residual_difference"].to_list() == pytest.approx([0.0, 1.0], abs=1e-15)
    # residual M2: a 2, b 6 (deviations 1, 1, -2): pooled sd sqrt(8/4)
    assert r["residual_smd"][1] == pytest.approx(1 / math.sqrt(2))


def test_integer_frequency_weights_equal_repeated_rows() -> None:
    base = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b", "b"],
                         "x": [1.0, 4.0, 2.5, 3.0, 7.0, 6.0, 2.0],
                         "y": [1.5, 3.0, 2.0, 2.0, 6.0, 6.5, 1.0], "w": [2, 1, 3, 1, 4, 2, 1]})
    repeated = base.select(pl.all().repeat_by("w").explode()).drop("w")
    weighted = base.fair.continuous_report("g", y_pred="x", y_true="y", sample_weight="w",
                                           reference="a", min_support=1)
    plain = repeated.fair.continuous_report("g", y_pred="x", y_true="y", reference="a",
                                            min_support=1)
    assert weighted["weight_sum"].to_list() == [6.0, 8.0]
    assert weighted["n"].to_list() == [3, 4]  # rows, not weights
    for c in ("mean", "std", "mean_difference", "ci_low", "ci_high", "p_value", "smd",
              "mean_residual", "mae", "rmse", "residual_smd"):
        assert weighted[c].to_list() == pytest.approx(plain[c].to_list(), rel=1e-12), c


def test_merged_partitions_equal_the_whole() -> None:
    rng = np.random.default_rng(7)
    df = pl.DataFrame({"g": rng.choice(["a", "b"], 500), "part": rng.integers(0, 4, 500),
                       "x": 1e6 + rng.normal(size=500), "y": rng.normal(size=500)})
    parts = polars_fair.moments(df, ["g", "part"], y_pred="x", y_true="y").frame.collect()
    whole = polars_fair.moments(df, "g", y_pred="x", y_true="y").frame.collect()
    merged = merge_moments(parts.drop("part"), ["g"]).collect()
    assert merged["n"].to_list() == whole["n"].to_list()
    for c in whole.columns[2:]:
        assert merged[c].to_list() == pytest.approx(whole[c].to_list(), rel=1e-9), c
    # from_moments merges repeated keys the same way
    again = polars_fair.from_moments(parts.drop("part")).frame.collect()
    assert again["m2_pred"].to_list() == pytest.approx(whole["m2_pred"].to_list(), rel=1e-9)


# ----------------------------------------------------------------------------- exactness
def _exact(values: np.ndarray) -> tuple[Fraction, Fraction]:
    xs = [Fraction(float(v)) for v in values]
    mean = sum(xs, Fraction(0)) / len(xs)
    return mean, sum(((v - mean) ** 2 for v in xs), Fraction(0))


def test_large_offset_agrees_with_exact_fractions() -> None:
    rng = np.random.default_rng(22)
    n = 4000
    g = np.array(["a"] * (n // 2) + ["b"] * (n // 2))
    x = 1e9 + rng.normal(size=n) + np.where(g == "b", 0.5, 0.0)
    df = pl.DataFrame({"g": g, "x": x})
    for engine in ("in-memory", "streaming"):
        r = df.lazy().fair.continuous_report("g", y_pred="x", reference="a").collect(
            engine=engine)
        (ma, m2a), (mb, m2b) = _exact(x[g == "a"]), _exact(x[g == "b"])
        half = n // 2
        assert abs(r["mean"][0] - float(ma)) <= 1e-12 * float(ma)
        assert abs(r["mean"][1] - float(mb)) <= 1e-12 * float(mb)
        sd_a = math.sqrt(float(m2a / (half - 1)))
        assert r["std"][0] == pytest.approx(sd_a, rel=1e-6)
        smd = float((mb - ma) / Fraction(math.sqrt(float((m2a + m2b) / (n - 2)))))
        assert r["smd"][1] == pytest.approx(smd, rel=1e-6)
    # the formula the moments avoid loses every digit here (this test can fail)
    s1, s2 = x[g == "a"].sum(), (x[g == "a"] ** 2).sum()
    naive = (s2 - s1 * s1 / half) / (half - 1)
    assert abs(naive - sd_a**2) > 0.01 * sd_a**2


# ----------------------------------------------------------------------------- statsmodels
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_welch_agrees_with_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    na, nb = int(rng.integers(5, 60)), int(rng.integers(5, 60))
    a = rng.normal(10, rng.uniform(0.5, 3), na)
    b = rng.normal(11, rng.uniform(0.5, 3), nb)
    df = pl.DataFrame({"g": ["a"] * na + ["b"] * nb, "x": np.concatenate([a, b])})
    r = df.fair.continuous_report("g", y_pred="x", reference="a", min_support=1, level=0.9)
    _, p, _ = ttest_ind(b, a, usevar="unequal")
    assert r["p_value"][1] == pytest.approx(p, rel=1e-9)
    from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

    low, high = CompareMeans(DescrStatsW(b), DescrStatsW(a)).tconfint_diff(
        alpha=0.1, usevar="unequal")
    assert (r["ci_low"][1], r["ci_high"][1]) == pytest.approx((low, high), rel=1e-9)


# ----------------------------------------------------------------------------- SolasAI
def _solas(figures: dict[str, object], key: str, group: str, column: str) -> float:
    table = figures["solasai_fixtures"][key]["summary"]  # type: ignore[index]
    return float(next(r[column] for r in table if r["Group"] == group))


@pytest.mark.parametrize(("sd", "name"), [("population", "population"), ("pooled", "pooled")])
def test_smd_matches_solasai_on_the_regression_fixture(
    figures: dict[str, object], regression: pl.DataFrame, sd: str, name: str
) -> None:
    r = regression.fair.continuous_report("g", y_pred="y_pred", y_true="y_true",
                                          reference="b", smd_sd=sd)  # type: ignore[arg-type]
    a = r.filter(pl.col("g") == "a")
    smd = _solas(figures, f"E4 SMD regression fixture y_pred, a vs b, {name}", "a", "SMD")
    assert a["smd"].item() * 100 == pytest.approx(smd, rel=1e-9)  # SolasAI reports 100 x SMD
    rsmd = _solas(figures, f"E4 RSMD regression fixture, a vs b, {name}", "a", "Residual SMD")
    # SolasAI's residual is y_true - y_pred; ours is y_pred - y_true: the sign flips
    assert a["residual_smd"].item() * 100 == pytest.approx(-rsmd, rel=1e-9)
    assert a["mean_residual"].item() == pytest.approx(
        -_solas(figures, f"E4 RSMD regression fixture, a vs b, {name}", "a", "Average Residual"),
        rel=1e-12)


def test_pooled_smd_matches_solasai_hmda_from_sufficient_statistics(
    figures: dict[str, object],
) -> None:
    stats = figures["hmda_sufficient_statistics"]["groups"]  # type: ignore[index]
    races = ["Black", "Asian", "Native American", "White"]
    rows = [{"race": k, "n": stats[k]["n"], "mean_pred": stats[k]["prediction_mean"],
             "m2_pred": (stats[k]["n"] - 1) * stats[k]["prediction_sd_ddof1"] ** 2,
             "mean_true": stats[k]["label_mean"], "mean_residual": -stats[k]["residual_mean"],
             "m2_residual": (stats[k]["n"] - 1) * stats[k]["residual_sd_ddof1"] ** 2,
             # not in the statistics: only the MAE depends on it, and it is not compared
             "sum_abs_residual": stats[k]["n"] * abs(stats[k]["residual_mean"])}
            for k in races]
    r = polars_fair.from_moments(pl.DataFrame(rows)).continuous_report(
        reference="White").collect()
    table = figures["solasai_hmda_example"]  # type: ignore[index]
    for race in ("Black", "Asian", "Native American"):
        ours = r.filter(pl.col("race") == race)
        smd = next(x["SMD"] for x in table["SMD pooled"]["summary"] if x["Group"] == race)
        rsmd = next(x["Residual SMD"] for x in table["RSMD pooled"]["summary"]
                    if x["Group"] == race)
        assert ours["smd"].item() * 100 == pytest.approx(smd, rel=1e-9)
        assert ours["residual_smd"].item() * 100 == pytest.approx(-rsmd, rel=1e-9)


# ----------------------------------------------------------------------------- holisticai
HOLISTICAI = """
import json, sys
import pandas as pd
from holisticai.bias.metrics import regression_bias_metrics
df = pd.read_csv(sys.argv[1])
df = df[df.g.isin(["a", "b"])]
out = regression_bias_metrics((df.g == "a").values, (df.g == "b").values, df.y_pred.values,
                              df.y_true.values, metric_type="both")
print(json.dumps({k: float(v) for k, v in out["Value"].items()}))
"""


def _holisticai_python() -> str:
    python = os.environ.get("POLARS_FAIR_HOLISTICAI_PYTHON")
    made = Path(os.environ.get("TMPDIR", "/tmp")) / "polars-fair-oracles/holisticai/bin/python"
    if not python and made.exists():
        python = str(made)
    if not python and os.environ.get("POLARS_FAIR_REQUIRE_ORACLES") == "1":
        pytest.fail("POLARS_FAIR_REQUIRE_ORACLES=1 but no holisticai: set "
                    "POLARS_FAIR_HOLISTICAI_PYTHON (.ci/run installs holisticai==1.0.14)")
    if not python:
        pytest.skip("holisticai oracle not configured: set POLARS_FAIR_HOLISTICAI_PYTHON to a "
                    "Python with holisticai==1.0.14 installed (its own venv)")
    return python


def test_holisticai_regression_bias_metrics(regression: pl.DataFrame) -> None:
    run = subprocess.run([_holisticai_python(), "-c", HOLISTICAI, str(REGRESSION)],
                         capture_output=True, text=True, timeout=300, check=True)
    peer = json.loads(run.stdout.strip().splitlines()[-1])
    r = regression.fair.continuous_report("g", y_pred="y_pred", y_true="y_true", reference="b")
    a = r.filter(pl.col("g") == "a")
    assert a["mean_difference"].item() == pytest.approx(peer["Average Score Difference"],
                                                        rel=1e-12)
    assert a["mae_ratio"].item() == pytest.approx(peer["MAE Ratio"], rel=1e-12)
    assert a["rmse_ratio"].item() == pytest.approx(peer["RMSE Ratio"], rel=1e-12)


def test_holisticai_frozen_figures(figures: dict[str, object], regression: pl.DataFrame) -> None:
    peer = figures["holisticai"]["regression_a_vs_b_ab_rows_only"]  # type: ignore[index]
    r = regression.fair.continuous_report("g", y_pred="y_pred", y_true="y_true", reference="b")
    a = r.filter(pl.col("g") == "a")
    assert a["mean_difference"].item() == pytest.approx(peer["Average Score Difference"])
    assert a["mae_ratio"].item() == pytest.approx(peer["MAE Ratio"], rel=1e-12)
    assert a["rmse_ratio"].item() == pytest.approx(peer["RMSE Ratio"], rel=1e-12)


# ----------------------------------------------------------------------------- errors
def test_input_errors_are_the_typed_ones() -> None:
    df = pl.DataFrame({"g": ["a", "b"], "x": [1.0, 2.0], "s": ["1", "2"], "w": [1.0, -1.0]})
    with pytest.raises(E.InvalidScoreError, match=r"column 's' \(y_pred\) must be numeric"):
        df.fair.continuous_report("g", y_pred="s")
    with pytest.raises(E.ColumnNotFoundError, match="'nope'"):
        df.fair.continuous_report("g", y_pred="nope")
    with pytest.raises(E.InvalidArgumentError, match="needs y_pred"):
        df.fair.continuous_report("g")
    with pytest.raises(E.InvalidWeightError, match=r"1 negative"):
        df.fair.continuous_report("g", y_pred="x", sample_weight="w")
    with pytest.raises(E.InvalidArgumentError, match="smd_sd"):
        df.fair.continuous_report("g", y_pred="x", smd_sd="other")  # type: ignore[arg-type]
    with pytest.raises(E.InvalidArgumentError, match="level"):
        df.fair.continuous_report("g", y_pred="x", level=1.5)


@pytest.mark.parametrize(("values", "error", "message"), [
    ([1.0, None, 3.0], E.NullValuesError,
     E.NULL_CONTINUOUS.format(column="x", role="y_pred", count=1)),
    ([1.0, float("nan"), float("inf")], E.InvalidScoreError,
     E.BAD_CONTINUOUS.format(column="x", role="y_pred", count=2)),
])
def test_bad_values_are_refused_never_averaged(values: list[float | None], error: type,
                                               message: str) -> None:
    lf = pl.LazyFrame({"g": ["a", "a", "b"], "x": values})
    plan = lf.fair.continuous_report("g", y_pred="x")  # lazy: nothing read yet
    with pytest.raises(error) as info:
        plan.collect()
    assert str(info.value) == message


def test_from_moments_is_validated() -> None:
    good = {"g": ["a", "b"], "n": [3, 2], "mean_pred": [1.0, 2.0], "m2_pred": [1.0, 0.5]}
    with pytest.raises(E.ColumnNotFoundError, match="m2_pred"):
        polars_fair.from_moments(pl.DataFrame({k: v for k, v in good.items() if k != "m2_pred"}))
    with pytest.raises(E.InvalidArgumentError, match="residual columns"):
        polars_fair.from_moments(pl.DataFrame({**good, "mean_residual": [0.0, 0.0]}))
    bad = polars_fair.from_moments(pl.DataFrame({**good, "m2_pred": [1.0, -0.5]}))
    with pytest.raises(E.InvalidArgumentError) as info:
        bad.frame.collect()
    assert str(info.value) == E.BAD_MOMENTS.format(column="m2_pred", count=1,
                                                   problem="negative", values="[-0.5]")


def test_from_moments_refuses_a_fractional_count() -> None:
    table = pl.DataFrame({"g": ["a", "b"], "n": [10.5, 3.0], "mean_pred": [1.0, 2.0],
                          "m2_pred": [1.0, 1.0]})
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_moments(table).frame.collect()
    assert str(info.value) == E.BAD_MOMENTS.format(column="n", count=1,
                                                   problem="non-integer", values="[10.5]")


def test_from_moments_refuses_residual_moments_no_values_can_have() -> None:
    base = {"g": ["a", "b"], "n": [4, 4], "mean_pred": [1.0, 2.0], "m2_pred": [1.0, 1.0],
            "mean_true": [1.0, 2.0], "m2_residual": [1.0, 1.0]}
    # a: mean residual 0.5 but mae 1 / 4 = 0.25 (|mean| <= mean of |r| always)
    low_mae = {**base, "mean_residual": [0.5, 0.0], "sum_abs_residual": [1.0, 2.0]}
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_moments(pl.DataFrame(low_mae)).frame.collect()
    assert str(info.value) == E.IMPOSSIBLE_MOMENTS.format(
        count=1, rule="mae >= |mean_residual|",
        example=f"mean_residual=0.5, mae=0.25, rmse={0.5 ** 0.5!r}")  # sqrt(1/4 + 0.5²)
    # a: mae 3 / 4 = 0.75 but rmse sqrt(1 / 4 + 0) = 0.5 (mean of |r| <= root mean square)
    high_mae = {**base, "mean_residual": [0.0, 0.0], "sum_abs_residual": [3.0, 2.0]}
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_moments(pl.DataFrame(high_mae)).frame.collect()
    assert str(info.value) == E.IMPOSSIBLE_MOMENTS.format(
        count=1, rule="rmse >= mae", example="mean_residual=0.0, mae=0.75, rmse=0.5")
    # possible: residuals -0.5, -0.5, 0.5, 0.5 (m2 = 4 * 0.25 = 1, mae = 0.5 = rmse)
    fine = {**base, "mean_residual": [0.0, 0.0], "sum_abs_residual": [2.0, 2.0]}
    out = polars_fair.from_moments(pl.DataFrame(fine)).continuous_report(
        min_support=1).collect()
    assert out["mae"].to_list() == [0.5, 0.5]


def test_no_reference_leaves_every_comparison_null() -> None:
    df = pl.DataFrame({"g": [None, None], "x": [1.0, 2.0]}, schema={"g": pl.String,
                                                                     "x": pl.Float64})
    r = df.fair.continuous_report("g", y_pred="x")
    assert r["is_reference"].to_list() == [False]
    assert r["mean_difference"].to_list() == [None]
    assert r["mean"].to_list() == [1.5]


# ----------------------------------------------------------------------------- properties
@given(
    values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=6, max_size=40),
    offset=st.sampled_from([0.0, 1e6, -1e9, 1e9]),
    scale=st.sampled_from([1.0, 0.5, 4.0]),
)
@settings(max_examples=60, deadline=None)
def test_smd_and_p_value_are_invariant_under_shift_and_positive_scale(
    values: list[float], offset: float, scale: float
) -> None:
    # two groups of alternating rows; the affine map y = offset + scale * x moves the means by
    # it and leaves the SMD (in sd units) and Welch's p-value unchanged
    groups = ["a", "b"] * (len(values) // 2)
    x = np.array(values[: len(groups)])
    # a spread of at least 1: rounding the moved values near 1e9 (6e-8) stays below 1e-7 sd
    assume(x[0::2].std() > 1 and x[1::2].std() > 1)
    base = pl.DataFrame({"g": groups, "x": x}).fair.continuous_report(
        "g", y_pred="x", reference="a", min_support=1)
    moved = pl.DataFrame({"g": groups, "x": offset + scale * x}).fair.continuous_report(
        "g", y_pred="x", reference="a", min_support=1)
    assert moved["mean"].to_list() == pytest.approx(
        [offset + scale * m for m in base["mean"].to_list()], rel=1e-9, abs=1e-6)
    assert moved["smd"].to_list() == pytest.approx(base["smd"].to_list(), rel=1e-6, abs=1e-6)
    assert moved["p_value"].to_list() == pytest.approx(base["p_value"].to_list(), rel=1e-5,
                                                       abs=1e-6)
