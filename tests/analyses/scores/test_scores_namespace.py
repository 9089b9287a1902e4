"""Score-based methods through df.fair / lf.fair: abroca, abroca_test, calibration, sweep."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from sklearn.calibration import calibration_curve
from sklearn.metrics import roc_auc_score, roc_curve

from polars_fair import errors as E
from polars_fair.datasets import make_hiring
from tests.conftest import Runner

DF = make_hiring(3000, seed=11)


def grid_abroca(y_a: np.ndarray, s_a: np.ndarray, y_b: np.ndarray, s_b: np.ndarray) -> float:
    """Independent reference: sklearn ROC curves, interpolated on a dense FPR grid."""
    grid = np.linspace(0, 1, 200_001)
    fa, ta, _ = roc_curve(y_a, s_a, drop_intermediate=False)
    fb, tb, _ = roc_curve(y_b, s_b, drop_intermediate=False)
    # right-continuous interpolation is irrelevant on a measure-zero set of vertical steps
    diff = np.abs(np.interp(grid, fa, ta) - np.interp(grid, fb, tb))
    return float(np.trapezoid(diff, grid))


@pytest.mark.data
def test_compas_decile_score_abroca_and_auc(run: Runner, compas: pl.DataFrame) -> None:
    out = run(compas, "abroca", "race", y_true="two_year_recid", y_score="decile_score",
              reference="Caucasian")
    aa = out.filter(pl.col("race") == "African-American").row(0, named=True)
    race = compas["race"].to_numpy()
    y, s = compas["two_year_recid"].to_numpy(), compas["decile_score"].to_numpy()
    m_aa, m_c = race == "African-American", race == "Caucasian"
    assert aa["auc"] == pytest.approx(roc_auc_score(y[m_aa], s[m_aa]), abs=1e-12)
    assert aa["abroca"] == pytest.approx(grid_abroca(y[m_aa], s[m_aa], y[m_c], s[m_c]), abs=1e-6)
    # ../shared/data/compas/README.md: AUC 0.704253, ABROCA(African-American, Caucasian) 0.018533
    assert round(aa["auc"], 6) == 0.704253
    assert round(aa["abroca"], 6) == 0.018533
    by_sex = run(compas, "abroca", "sex", y_true="two_year_recid", y_score="decile_score",
                 reference="Male")
    assert round(by_sex.filter(pl.col("sex") == "Female")["abroca"].item(), 6) == 0.014973


def test_abroca_lazy_streaming_identical() -> None:
    eager = DF.fair.abroca(["race", "sex"])
    lazy = DF.lazy().fair.abroca(["race", "sex"])
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(eager, lazy.collect(engine="streaming"))
    assert eager.filter("is_reference")["abroca"].to_list() == [0.0]


def test_abroca_pairwise_symmetric(run: Runner) -> None:
    out = run(DF, "abroca", "sex", pairwise=True)
    assert out.select("sex_i", "sex_j").rows() == [("Female", "Male"), ("Male", "Female")]
    assert out["abroca"][0] == pytest.approx(out["abroca"][1])


def test_nan_scores_raise_with_counts(run: Runner) -> None:
    bad = DF.head(10).with_columns(
        y_score=pl.when(pl.int_range(pl.len()) < 2).then(float("nan")).otherwise(pl.col("y_score"))
    )
    with pytest.raises(E.InvalidScoreError) as info:
        run(bad, "abroca", "sex")
    assert str(info.value) == E.BAD_SCORES.format(column="y_score", nulls=0, nans=2, infinite=0)


def test_abroca_test_seeded_reproducible(run: Runner) -> None:
    a = run(DF, "abroca_test", "sex", n_permutations=200, seed=3)
    b = run(DF, "abroca_test", "sex", n_permutations=200, seed=3)
    assert_frame_equal(a, b)
    p = a.filter(pl.col("abroca") > 0)["p_value"].item()
    assert 1 / 201 <= p <= 1


def test_sweep_equals_confusion_at_each_threshold(run: Runner) -> None:
    out = run(DF, "sweep", "sex", thresholds=[0.7, 0.3, 0.5])
    assert out["threshold"].unique(maintain_order=True).to_list() == [0.3, 0.5, 0.7]
    for t in (0.3, 0.5, 0.7):
        direct = DF.fair.rates("sex", y_pred=None, y_score="y_score", threshold=t)
        # sweep also has report's columns (issue 12): compare the rates' columns
        part = out.filter(pl.col("threshold") == t).select(direct.columns)
        assert_frame_equal(part, direct)


def test_calibration_ece_matches_sklearn_curve(run: Runner) -> None:
    out = run(DF, "calibration", "sex", n_bins=10)
    for sex in ("Female", "Male"):
        part = DF.filter(pl.col("sex") == sex)
        y, s = part["y_true"].to_numpy(), part["y_score"].to_numpy()
        prob_true, prob_pred = calibration_curve(y, s, n_bins=10)
        # bin counts as sklearn assigns them: right-closed bins via searchsorted on the edges
        edges = np.linspace(0, 1, 11)
        ids = np.searchsorted(edges[1:-1], s)
        counts = np.bincount(ids, minlength=10)
        counts = counts[counts > 0]
        ece = float(np.sum(counts / len(s) * np.abs(prob_true - prob_pred)))
        assert out.filter(pl.col("sex") == sex)["ece"].item() == pytest.approx(ece)
    assert out["ece_gap"].min() == 0.0
    rel = run(DF, "reliability", "sex", n_bins=10)
    assert rel.height == 20 and rel["n"].sum() == DF.height


def test_abroca_test_progress_bar_only_when_asked_or_on_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    DF.fair.abroca_test("race", n_permutations=20, seed=0)  # stderr is not a terminal here
    assert capsys.readouterr().err == ""
    DF.fair.abroca_test("race", n_permutations=20, seed=0, progress=True)
    assert "abroca_test: groups" in capsys.readouterr().err


@pytest.mark.data
@pytest.mark.parametrize("analysis", ["thresholds", "sweep"])
def test_compas_decile_score_on_the_default_grid_is_an_error(compas: pl.DataFrame,
                                                             analysis: str) -> None:
    # decile_score takes the integers 1..10: the probability grid 0.01..0.99 would select every
    # defendant at every threshold (99 identical rows, selection_rate 1, all_pass true)
    with pytest.raises(E.InvalidArgumentError) as err:
        getattr(compas.lazy().fair, analysis)(
            "race", y_true="two_year_recid", y_score="decile_score").collect()
    message = str(err.value)
    assert "thresholds=" in message and "from 1.0 to 10.0" in message
    assert "thresholds=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]" in message
    # the suggested grid works: at threshold 1 every defendant is selected (rate 1)
    out = compas.fair.thresholds("race", y_true="two_year_recid", y_score="decile_score",
                                 thresholds=list(range(1, 11)))
    assert out.height == 10 and out["selection_rate"][0] == 1.0
    tens = (compas["decile_score"].to_numpy() >= 10).mean()  # the share scored 10, by numpy
    assert out["selection_rate"][-1] == pytest.approx(tens, rel=1e-12) and tens < 1
