"""COMPAS (ProPublica) through the library, against an independent numpy computation.

The reference reads the CSV with the standard library's csv module, applies ProPublica's filter
by hand and counts with numpy; it shares no code with polars_fair.
"""

from __future__ import annotations

import csv

import numpy as np
import polars as pl
import pytest

from tests.conftest import COMPAS_CSV, Runner, require

pytestmark = pytest.mark.data


@pytest.fixture(scope="module")
def reference_arrays() -> dict[str, np.ndarray]:
    path = require(COMPAS_CSV)
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        idx = {name: header.index(name) for name in
               ("days_b_screening_arrest", "is_recid", "c_charge_degree", "score_text", "race",
                "sex", "two_year_recid")}
        rows = []
        for r in reader:
            d = r[idx["days_b_screening_arrest"]]
            if d == "" or not -30 <= int(d) <= 30:
                continue
            if int(r[idx["is_recid"]]) == -1 or r[idx["c_charge_degree"]] == "O":
                continue
            if r[idx["score_text"]] == "N/A":
                continue
            rows.append((r[idx["race"]], r[idx["sex"]], int(r[idx["two_year_recid"]]),
                         int(r[idx["score_text"]] != "Low")))
    race, sex, y, p = (np.array(col) for col in zip(*rows, strict=True))
    return {"race": race, "sex": sex, "y": y, "p": p}


def numpy_cells(a: dict[str, np.ndarray], mask: np.ndarray) -> tuple[int, int, int, int, int]:
    y, p = a["y"][mask], a["p"][mask]
    return (int(mask.sum()), int(((y == 1) & (p == 1)).sum()), int(((y == 0) & (p == 1)).sum()),
            int(((y == 1) & (p == 0)).sum()), int(((y == 0) & (p == 0)).sum()))


def test_filter_gives_6172_rows(compas: pl.DataFrame,
                                reference_arrays: dict[str, np.ndarray]) -> None:
    assert compas.height == len(reference_arrays["y"]) == 6172


def test_per_race_counts_and_rates(
    run: Runner, compas: pl.DataFrame, reference_arrays: dict[str, np.ndarray]
) -> None:
    out = run(compas, "report", "race", reference="Caucasian")
    assert out["race"].to_list() == sorted(set(reference_arrays["race"].tolist()))
    ref_sr = None
    a = reference_arrays
    cau = numpy_cells(a, a["race"] == "Caucasian")
    ref_sr = (cau[1] + cau[2]) / cau[0]
    ref_mb = (cau[2] - cau[3]) / cau[0]
    for row in out.iter_rows(named=True):
        n, tp, fp, fn, tn = numpy_cells(a, a["race"] == row["race"])
        assert (row["n"], row["tp"], row["fp"], row["fn"], row["tn"]) == (n, tp, fp, fn, tn)
        assert row["selection_rate"] == pytest.approx((tp + fp) / n)
        assert row["tpr"] == pytest.approx(tp / (tp + fn))
        assert row["fpr"] == pytest.approx(fp / (fp + tn))
        assert row["ppv"] == pytest.approx(tp / (tp + fp))
        assert row["disparate_impact"] == pytest.approx((tp + fp) / n / ref_sr)
        assert row["ofi"] == pytest.approx((fp - fn) / n - ref_mb)
    # the dataset README's published figures
    aa = out.filter(pl.col("race") == "African-American").row(0, named=True)
    assert (aa["tp"], aa["fn"], aa["fp"], aa["tn"]) == (1188, 473, 641, 873)
    assert round(aa["fpr"], 4) == 0.4234 and round(aa["disparate_impact"], 4) == 1.7406
    assert round(aa["ofi"], 4) == 0.1128
    na = out.filter(pl.col("race") == "Native American").row(0, named=True)
    assert na["low_support"] is True and round(na["ofi"], 4) == 0.3326


def test_race_by_sex_with_degenerate_cells(
    run: Runner, compas: pl.DataFrame, reference_arrays: dict[str, np.ndarray]
) -> None:
    out = run(compas, "report", ["race", "sex"])
    a = reference_arrays
    assert out.height == 12
    for row in out.iter_rows(named=True):
        mask = (a["race"] == row["race"]) & (a["sex"] == row["sex"])
        n, tp, fp, fn, tn = numpy_cells(a, mask)
        assert (row["n"], row["tp"], row["fp"], row["fn"], row["tn"]) == (n, tp, fp, fn, tn)
        assert row["ppv"] == (None if tp + fp == 0 else pytest.approx(tp / (tp + fp)))
        assert row["fpr"] == (None if fp + tn == 0 else pytest.approx(fp / (fp + tn)))
        assert row["low_support"] == (n < 30)
    asian_f = out.filter((pl.col("race") == "Asian") & (pl.col("sex") == "Female")).row(
        0, named=True)
    assert asian_f["ppv"] is None  # TP+FP = 0: undefined, not 0
    na_f = out.filter((pl.col("race") == "Native American") & (pl.col("sex") == "Female")).row(
        0, named=True)
    assert na_f["fpr"] is None  # no negatives
    assert set(out.filter("low_support").select("race", "sex").rows()) == {
        ("Asian", "Female"), ("Asian", "Male"), ("Native American", "Female"),
        ("Native American", "Male")}


def test_ofi_orientation_flip(run: Runner, compas: pl.DataFrame) -> None:
    """The OFI paper's favourable orientation: positive = not a recidivist, predicted Low."""
    fav = compas.with_columns(y_true=1 - pl.col("y_true"), y_pred=1 - pl.col("y_pred"))
    out = run(fav, "report", "race", reference="Caucasian")
    aa = out.filter(pl.col("race") == "African-American").row(0, named=True)
    # dataset README, flipped table: TP 873, FN 641, FP 473, TN 1188; DI 0.6336; OFI -0.1128
    assert (aa["tp"], aa["fn"], aa["fp"], aa["tn"]) == (873, 641, 473, 1188)
    assert round(aa["disparate_impact"], 4) == 0.6336
    assert round(aa["ofi"], 4) == -0.1128
    # the same orientation through pos_label=0 on the unflipped columns
    same = run(compas, "report", "race", reference="Caucasian", pos_label=0)
    assert same["ofi"].to_list() == pytest.approx(out["ofi"].to_list())
