"""Pairwise disparities (polars_fair.analyses.pairwise), tested on the module functions directly.

Every expected value is a hand computation written here, a figure of the OFI paper (Briscoe et
al., "Facets of Disparate Impact", Table 1), an invariant (hypothesis), or an independent numpy
count of the COMPAS data. Each result is collected with the in-memory and the streaming engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from polars_fair import errors as E
from polars_fair.analyses.pairwise import (
    MISSING_METRIC_COLUMN,
    NO_KEYS,
    PAIRWISE_METRICS,
    REPEATED_METRIC,
    UNKNOWN_METRIC,
    pairwise_from_counts,
    pairwise_matrix,
)
from polars_fair.core.expressions import RATE_NAMES
from polars_fair.counting import tables
from tests.conftest import one_row_groups

SETTINGS = settings(max_examples=60, deadline=None)


def cells_frame(cells: dict[Any, tuple[int, int, int, int]], key: str = "group") -> pl.DataFrame:
    """Rows from per-group confusion cells (TP, FN, FP, TN), the column order of the OFI paper."""
    parts = []
    for g, (tp, fn, fp, tn) in cells.items():
        parts.append(
            pl.DataFrame(
                {
                    key: [g] * (tp + fn + fp + tn),
                    "y_true": [1] * tp + [1] * fn + [0] * fp + [0] * tn,
                    "y_pred": [1] * tp + [0] * fn + [1] * fp + [0] * tn,
                }
            )
        )
    return pl.concat(parts)


def pairwise(df: pl.DataFrame, by: Any, **kwargs: Any) -> pl.DataFrame:
    """``pairwise_from_counts`` over ``df``, collected in memory and streaming (must agree)."""
    table = kwargs.pop("table", {})
    counts, keys = tables.count_table(df.lazy(), by, **table)
    lf = pairwise_from_counts(counts, keys, **kwargs)
    mem = lf.collect(engine="in-memory")
    # integer counts agree bit for bit; weighted sums are added in each engine's own order
    exact = "sample_weight" not in table
    assert_frame_equal(mem, lf.collect(engine="streaming"), check_exact=exact)
    assert mem.schema == lf.collect_schema()
    return mem


def pair(out: pl.DataFrame, i: Any, j: Any, key: str = "group") -> dict[str, Any]:
    rows = out.filter((pl.col(f"{key}_i") == i) & (pl.col(f"{key}_j") == j))
    assert rows.height == 1
    return rows.row(0, named=True)


# OFI paper, Table 1: (TP, FN, FP, TN) of groups i and j, and the published OFI(i, j), DI(i, j).
TABLE_1 = {
    # A: B_i = (0-0)/6 = 0, B_j = (1-0)/18 -> OFI = -1/18 (paper: -0.06);
    #    DI = (1/6) / (8/18) = 0.375 (paper: 0.38)
    "A": ({"i": (1, 0, 0, 5), "j": (7, 0, 1, 10)}, -1 / 18, 0.375),
    # B: B_i = -1/6, B_j = -7/18 -> OFI = 2/9 (paper: 0.22); DI = 0/0 -> null (paper: NaN)
    "B": ({"i": (0, 1, 0, 5), "j": (0, 7, 0, 11)}, 2 / 9, None),
    # alpha: B_i = -1/7, B_j = -7/19 -> OFI = 0.2256 (paper: 0.23); DI = (1/7)/(1/19) = 19/7
    "alpha": ({"i": (1, 1, 0, 5), "j": (1, 7, 0, 11)}, -1 / 7 + 7 / 19, 19 / 7),
}


@pytest.mark.parametrize("scenario", list(TABLE_1))
def test_ofi_paper_table_1_pairs(scenario: str) -> None:
    cells, ofi, di = TABLE_1[scenario]
    out = pairwise(cells_frame(cells), "group")
    assert out.height == 2
    ij, ji = pair(out, "i", "j"), pair(out, "j", "i")
    assert ij["ofi"] == pytest.approx(ofi)
    assert ji["ofi"] == pytest.approx(-ofi)
    assert round(ij["ofi"], 2) == {"A": -0.06, "B": 0.22, "alpha": 0.23}[scenario]
    if scenario == "alpha":
        assert round(ij["ofi"], 4) == 0.2256
    if di is None:
        assert ij["disparate_impact"] is None and ji["disparate_impact"] is None
    else:
        assert ij["disparate_impact"] == pytest.approx(di)
        assert ji["disparate_impact"] == pytest.approx(1 / di)
        assert round(ij["disparate_impact"], 2) == {"A": 0.38, "alpha": 2.71}[scenario]
    assert (ij["n_i"], ij["n_j"]) == (sum(cells["i"]), sum(cells["j"]))


def test_schema_order_and_sorting_with_two_keys_and_a_null_group() -> None:
    df = pl.DataFrame(
        {
            "race": ["b", "a", None, "a", "b", "a"],
            "sex": ["F", "M", "F", "F", "F", "M"],
            "y_true": [1, 0, 1, 1, 0, 1],
            "y_pred": [1, 1, 0, 1, 0, 0],
        }
    )
    out = pairwise(df, ["race", "sex"], metrics=["tpr_difference", "ofi"])
    assert out.schema == pl.Schema(
        {"race_i": pl.String, "sex_i": pl.String, "race_j": pl.String, "sex_j": pl.String,
         "n_i": pl.Int64, "n_j": pl.Int64, "tpr_difference": pl.Float64, "ofi": pl.Float64}
    )
    groups = [("a", "F"), ("a", "M"), ("b", "F"), (None, "F")]  # key order, nulls last
    expected = [(g, h) for g in groups for h in groups if g != h]
    assert [(r[:2], r[2:4]) for r in out.rows()] == expected
    # (a, M): 2 rows, tp 0 fp 1 fn 1 -> TPR 0/1 = 0, B = 0; (None, F): 1 row fn -> TPR 0, B = -1
    row = out.filter(
        (pl.col("race_i") == "a") & (pl.col("sex_i") == "M") & pl.col("race_j").is_null()
    ).row(0, named=True)
    assert (row["n_i"], row["n_j"], row["tpr_difference"], row["ofi"]) == (2, 1, 0.0, 1.0)


def test_every_metric_by_hand_with_undefined_rates() -> None:
    # x: TP 2, FN 0, FP 0, TN 2 (n 4): no negatives predicted positive, no positive label missed
    # y: TP 0, FN 2, FP 0, TN 0 (n 2): no negative labels (FPR, TNR undefined), nothing selected
    df = cells_frame({"x": (2, 0, 0, 2), "y": (0, 2, 0, 0)})
    out = pairwise(df, "group", metrics=PAIRWISE_METRICS)
    assert out.columns == ["group_i", "group_j", "n_i", "n_j", *PAIRWISE_METRICS]
    xy = pair(out, "x", "y")
    yx = pair(out, "y", "x")
    # x: sr 2/4, base 2/4, tpr 1, fpr 0, tnr 1, fnr 0, ppv 1, npv 1, acc 1, B 0
    # y: sr 0, base 1, tpr 0, fpr null, tnr null, fnr 1, ppv null (0/0), npv 0, acc 0, B -1
    assert xy["ofi"] == 1.0 and yx["ofi"] == -1.0
    assert xy["disparate_impact"] is None  # 0.5 / 0
    assert yx["disparate_impact"] == 0.0  # 0 / 0.5
    assert xy["selection_rate_difference"] == 0.5
    assert xy["base_rate_difference"] == -0.5
    assert xy["tpr_difference"] == 1.0 and xy["tpr_ratio"] is None
    assert yx["tpr_ratio"] == 0.0
    assert xy["fpr_difference"] is None and yx["fpr_difference"] is None
    assert xy["fpr_ratio"] is None and yx["fpr_ratio"] is None
    assert xy["tnr_difference"] is None
    assert xy["fnr_difference"] == -1.0 and yx["fnr_ratio"] is None  # 1 / 0
    assert xy["ppv_difference"] is None and xy["ppv_ratio"] is None
    assert xy["npv_difference"] == 1.0 and xy["npv_ratio"] is None
    assert xy["accuracy_difference"] == 1.0 and yx["accuracy_ratio"] == 0.0
    assert xy["marginal_benefit_difference"] == xy["ofi"]
    assert xy["marginal_benefit_ratio"] == 0.0  # B_x / B_y = 0 / -1
    assert yx["marginal_benefit_ratio"] is None  # -1 / 0
    assert xy["selection_rate_ratio"] == xy["disparate_impact"]


def test_marginal_benefit_ratio_keeps_its_sign() -> None:
    # p: B = (2-0)/4 = 0.5; q: B = (0-1)/4 = -0.25 -> ratio p/q = -2
    out = pairwise(cells_frame({"p": (1, 0, 2, 1), "q": (1, 1, 0, 2)}), "group",
                   metrics="marginal_benefit_ratio")
    assert pair(out, "p", "q")["marginal_benefit_ratio"] == -2.0


def test_engines_agree_bit_for_bit_when_every_group_has_the_same_size() -> None:
    # n = 10 in both groups (a constant column): B_u = 3/10 must be 0.3, not 3 * 0.1
    out = pairwise(cells_frame({"u": (0, 1, 4, 5), "v": (4, 0, 0, 6)}), "group")
    assert pair(out, "u", "v")["ofi"] == 0.3

def test_weighted_counts_use_weight_sum_as_the_population() -> None:
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0],
         "w": [3.0, 1.0, 1.0, 1.0]}
    )
    # a: TP 3, FP 1, weight 4 -> sr 1, B 1/4; b: FN 1, TN 1, weight 2 -> sr 0, B -1/2
    out = pairwise(df, "g", table={"sample_weight": "w"}, metrics=["ofi", "selection_rate_ratio"])
    ab = pair(out, "a", "b", key="g")
    assert ab["ofi"] == pytest.approx(0.75)
    assert ab["selection_rate_ratio"] is None  # 1 / 0
    assert (ab["n_i"], ab["n_j"]) == (2, 2) and out.schema["n_i"] == pl.Int64


def test_fewer_than_two_groups_give_an_empty_frame_with_the_schema() -> None:
    df = cells_frame({"only": (1, 1, 1, 1)})
    out = pairwise(df, "group")
    assert out.height == 0
    assert out.schema == pl.Schema(
        {"group_i": pl.String, "group_j": pl.String, "n_i": pl.Int64, "n_j": pl.Int64,
         "ofi": pl.Float64, "disparate_impact": pl.Float64}
    )
    whole = pairwise(df, [], metrics=["tpr_ratio"])
    assert whole.height == 0
    assert whole.schema == pl.Schema({"n_i": pl.Int64, "n_j": pl.Int64, "tpr_ratio": pl.Float64})


def test_unknown_and_repeated_metrics_raise_when_the_plan_is_built() -> None:
    counts, keys = tables.count_table(cells_frame({"a": (1, 1, 1, 1)}).lazy(), "group")
    with pytest.raises(E.InvalidArgumentError) as info:
        pairwise_from_counts(counts, keys, metrics=["ofi", "tpr_gap"])
    assert str(info.value) == UNKNOWN_METRIC.format(
        unknown="['tpr_gap']", valid=E.show_values(PAIRWISE_METRICS, limit=60)
    )
    assert "'fpr_ratio'" in str(info.value) and "'disparate_impact'" in str(info.value)
    with pytest.raises(E.InvalidArgumentError) as info:
        pairwise_from_counts(counts, keys, metrics=["ofi", "ofi"])
    assert str(info.value) == REPEATED_METRIC.format(repeated="['ofi']")


def test_metric_names_cover_every_rate() -> None:
    named = {"ofi", "disparate_impact", "average_odds_difference",
             "average_absolute_odds_difference"}
    assert set(PAIRWISE_METRICS) == named | {
        f"{r}_{kind}" for r in RATE_NAMES for kind in ("difference", "ratio")
    }


# ---------------------------------------------------------------------------- matrix


def test_matrix_one_key_values_and_diagonals() -> None:
    # B: a (1-1)/4 = 0, b (0-2)/4 = -0.5, c (2-0)/4 = 0.5; sr: a 2/4, b 1/4, c 3/4
    df = cells_frame({"c": (1, 0, 2, 1), "a": (1, 1, 1, 1), "b": (1, 2, 0, 1)})
    pairs = pairwise(df, "group", metrics=["ofi", "disparate_impact"])
    ofi = pairwise_matrix(pairs, "ofi", ["group"])
    assert ofi.columns == ["group", "a", "b", "c"]
    assert ofi.schema["a"] == pl.Float64
    assert ofi.rows() == [
        ("a", 0.0, 0.5, -0.5),
        ("b", -0.5, 0.0, -1.0),
        ("c", 0.5, 1.0, 0.0),
    ]
    di = pairwise_matrix(pairs, "disparate_impact", ["group"])
    assert di.rows() == [
        ("a", 1.0, 2.0, pytest.approx(2 / 3)),
        ("b", 0.5, 1.0, pytest.approx(1 / 3)),
        ("c", 1.5, 3.0, 1.0),
    ]


def test_matrix_two_keys_labels_nulls_and_undefined_cells() -> None:
    df = pl.DataFrame(
        {
            "race": [2, 1, None, 1],
            "sex": ["F", "M", "F", "M"],
            "y_true": [1, 0, 1, 1],
            "y_pred": [0, 0, 1, 0],
        }
    )
    pairs = pairwise(df, ["race", "sex"], metrics=["fpr_ratio", "tpr_difference"])
    m = pairwise_matrix(pairs, "fpr_ratio", ["race", "sex"])
    # a missing race reads "(missing)", as in every label (review of issue 19, defect 17: the
    # matrix said "null", the reverse of the convention)
    assert m.columns == ["race", "sex", "1 | M", "2 | F", "(missing) | F"]
    assert m.schema["race"] == pl.Int64
    # FPR: (1, M) has one negative, FP 0 -> 0; (2, F) and (None, F) have no negatives -> null
    assert m.rows() == [
        (1, "M", 1.0, None, None),
        (2, "F", None, 1.0, None),
        (None, "F", None, None, 1.0),
    ]
    d = pairwise_matrix(pairs, "tpr_difference", ["race", "sex"])
    # TPR: (1, M) 0/1 = 0, (2, F) 0/1 = 0, (None, F) 1/1 = 1
    assert d.rows() == [
        (1, "M", 0.0, 0.0, -1.0),
        (2, "F", 0.0, 0.0, -1.0),
        (None, "F", 1.0, 1.0, 0.0),
    ]


def test_matrix_errors() -> None:
    pairs = pairwise(cells_frame({"a": (1, 1, 1, 1), "b": (2, 1, 0, 1)}), "group")
    with pytest.raises(E.InvalidArgumentError) as info:
        pairwise_matrix(pairs, "tpr_ratio", ["group"])
    assert str(info.value) == MISSING_METRIC_COLUMN.format(
        metric="tpr_ratio", available=E.show_columns(pairs.columns)
    )
    with pytest.raises(E.InvalidArgumentError, match="unknown pairwise metric"):
        pairwise_matrix(pairs, "gap", ["group"])
    with pytest.raises(E.InvalidArgumentError) as info:
        pairwise_matrix(pairs, "ofi", [])
    assert str(info.value) == NO_KEYS
    with pytest.raises(E.ColumnNotFoundError, match="'race_i'"):
        pairwise_matrix(pairs, "ofi", ["race"])


def test_matrix_of_fewer_than_two_groups_is_empty() -> None:
    pairs = pairwise(cells_frame({"a": (1, 1, 1, 1)}), "group")
    m = pairwise_matrix(pairs, "ofi", ["group"])
    assert m.height == 0 and m.columns == ["group"]


# ---------------------------------------------------------------------------- properties


@st.composite
def grouped_frames(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(2, 50))
    bits = st.lists(st.integers(0, 1), min_size=n, max_size=n)
    df = pl.DataFrame(
        {
            "g": draw(st.lists(st.sampled_from(["u", "v", "w", "x"]), min_size=n, max_size=n)),
            "y_true": draw(bits),
            "y_pred": draw(bits),
        }
    )
    assume(not one_row_groups(df, "g"))  # refused at any size (issue 20)
    # the count table needs pos_label somewhere
    return df.with_columns(y_true=pl.when(pl.int_range(pl.len()) == 0).then(1)
                           .otherwise(pl.col("y_true")))


@SETTINGS
@given(grouped_frames())
def test_ofi_is_antisymmetric_and_bounded_by_2(df: pl.DataFrame) -> None:
    out = pairwise(df, "g", metrics=["ofi"])
    k = df["g"].n_unique()
    assert out.height == k * (k - 1)
    ofi = {(r["g_i"], r["g_j"]): r["ofi"] for r in out.iter_rows(named=True)}
    for (i, j), v in ofi.items():
        assert v is not None and abs(v) <= 2
        assert v == -ofi[(j, i)]


@SETTINGS
@given(grouped_frames())
def test_di_of_reversed_pair_is_its_reciprocal_wherever_both_are_defined(df: pl.DataFrame) -> None:
    out = pairwise(df, "g", metrics=["disparate_impact", "selection_rate_ratio"])
    assert out["disparate_impact"].to_list() == out["selection_rate_ratio"].to_list()
    di = {(r["g_i"], r["g_j"]): r["disparate_impact"] for r in out.iter_rows(named=True)}
    both = 0
    for (i, j), v in di.items():
        w = di[(j, i)]
        if v is not None and w is not None:
            both += 1
            assert v * w == pytest.approx(1.0)
        elif v is not None:
            assert v == 0.0  # DI(j, i) undefined only because b_i = 0


# ---------------------------------------------------------------------------- COMPAS


@pytest.mark.data
def test_compas_pairwise_by_race_against_numpy(compas: pl.DataFrame) -> None:
    out = pairwise(compas, "race", metrics=["ofi", "disparate_impact", "fpr_difference"])
    race = np.array(compas["race"].to_list())
    y, p = compas["y_true"].to_numpy(), compas["y_pred"].to_numpy()
    groups = sorted(set(race.tolist()))
    assert out.height == len(groups) * (len(groups) - 1) == 30
    stats = {}
    for g in groups:
        m = race == g
        tp, fp = int(((y == 1) & (p == 1) & m).sum()), int(((y == 0) & (p == 1) & m).sum())
        fn, tn = int(((y == 1) & (p == 0) & m).sum()), int(((y == 0) & (p == 0) & m).sum())
        n = int(m.sum())
        stats[g] = (n, (tp + fp) / n, (fp - fn) / n, fp / (fp + tn))
    for r in out.iter_rows(named=True):
        ni, sri, bi, fpri = stats[r["race_i"]]
        nj, srj, bj, fprj = stats[r["race_j"]]
        assert (r["n_i"], r["n_j"]) == (ni, nj)
        assert r["ofi"] == pytest.approx(bi - bj)
        assert r["disparate_impact"] == pytest.approx(sri / srj)
        assert r["fpr_difference"] == pytest.approx(fpri - fprj)
    # the README's report against Caucasian: OFI(African-American, Caucasian) = 0.1128
    assert round(pair(out, "African-American", "Caucasian", "race")["ofi"], 4) == 0.1128
    m = pairwise_matrix(out, "ofi", ["race"])
    assert m.shape == (6, 7) and m.columns == ["race", *groups]
    arr = m.drop("race").to_numpy()
    assert np.allclose(arr, -arr.T) and np.all(np.diag(arr) == 0)
