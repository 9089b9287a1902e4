"""UCI Adult: race × sex with the census weight fnlwgt, against independent numpy computations."""

from __future__ import annotations

import polars as pl
import pytest

from tests.conftest import ADULT_SCORED_CSV, Runner, require

pytestmark = pytest.mark.data


@pytest.fixture(scope="module")
def adult() -> pl.DataFrame:
    return pl.read_csv(require(ADULT_SCORED_CSV)).select("race", "sex", "fnlwgt", "y_true",
                                                         "y_score", "y_pred")


def test_weighted_rates_equal_numpy(run: Runner, adult: pl.DataFrame) -> None:
    out = run(adult, "rates", ["race", "sex"], sample_weight="fnlwgt")
    race, sex = adult["race"].to_numpy(), adult["sex"].to_numpy()
    w, y, p = (adult[c].to_numpy().astype(float) for c in ("fnlwgt", "y_true", "y_pred"))
    assert out.height == 10
    for row in out.iter_rows(named=True):
        m = (race == row["race"]) & (sex == row["sex"])
        tp = w[m & (y == 1) & (p == 1)].sum()
        fp = w[m & (y == 0) & (p == 1)].sum()
        fn = w[m & (y == 1) & (p == 0)].sum()
        assert row["n"] == m.sum()  # n stays the row count
        assert row["selection_rate"] == pytest.approx((tp + fp) / w[m].sum(), rel=1e-12)
        assert row["tpr"] == pytest.approx(tp / (tp + fn), rel=1e-12)


def test_dataset_readme_counts(run: Runner, adult: pl.DataFrame) -> None:
    out = run(adult, "confusion", ["race", "sex"])
    pos = out.with_columns(positives=pl.col("tp") + pl.col("fn"))
    got = {(r["race"], r["sex"]): (r["n"], r["positives"]) for r in pos.iter_rows(named=True)}
    # ../shared/data/adult/README.md: race × sex counts and positives
    assert got[("Black", "Female")] == (1555, 90)
    assert got[("White", "Male")] == (19174, 6089)
    assert got[("Other", "Female")] == (109, 6)


def test_weighted_summary_and_combinations(run: Runner, adult: pl.DataFrame) -> None:
    out = run(adult, "report", ["race", "sex"], combinations="all", sample_weight="fnlwgt",
              reference={"race": "White", "sex": "Male"})
    sex = out.filter(pl.col("attributes") == ["sex"])
    w = adult["fnlwgt"].to_numpy().astype(float)
    f = adult["sex"].to_numpy() == "Female"
    sel = adult["y_pred"].to_numpy() == 1
    sr_f, sr_m = w[f & sel].sum() / w[f].sum(), w[~f & sel].sum() / w[~f].sum()
    female = sex.filter(pl.col("sex") == "Female").row(0, named=True)
    assert female["disparate_impact"] == pytest.approx(sr_f / sr_m, rel=1e-12)
    assert female["weight_sum"] == pytest.approx(w[f].sum())
    assert sex.schema["tp"] == pl.Float64 and sex.schema["n"] == pl.Int64
