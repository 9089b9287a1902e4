"""ROC, AUC and exact ABROCA on score cells (polars_fair.analyses.scores.roc,
polars_fair.analyses.scores.abroca).

Oracles: scikit-learn (roc_curve, roc_auc_score) as a test-only reference, a dense midpoint-rule
integration written here, and hand computations shown in the tests.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score, roc_curve

from polars_fair import errors as E
from polars_fair.analyses.scores.abroca import (
    NO_NEGATIVES,
    NO_POSITIVES,
    REFERENCE_ONE_CLASS,
    UndefinedReferenceError,
    abroca_from_scores,
)
from polars_fair.analyses.scores.roc import (
    ONE_CLASS,
    abroca_batch,
    abroca_exact,
    abroca_splits,
    auc_from_cells,
    roc_curve_from_cells,
)


# ----------------------------------------------------------------------------- helpers
def cells(score: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Rows -> (distinct scores, positives, negatives), with numpy (not the code under test)."""
    uniq, inv = np.unique(score, return_inverse=True)
    ww = np.ones(score.size) if w is None else w
    pos = np.bincount(inv, weights=ww * (y == 1), minlength=uniq.size)
    neg = np.bincount(inv, weights=ww * (y == 0), minlength=uniq.size)
    if w is None:
        return uniq, pos.astype(np.int64), neg.astype(np.int64)
    return uniq, pos, neg


def score_table(rows: pl.DataFrame, keys: list[str], weight: str | None = None) -> pl.DataFrame:
    """The score table of the input contract, built from rows with a Polars group_by."""
    if weight is None:
        aggs = [
            pl.col("y").sum().cast(pl.Int64).alias("positives"),
            (1 - pl.col("y")).sum().cast(pl.Int64).alias("negatives"),
        ]
    else:
        w = pl.col(weight).cast(pl.Float64)
        aggs = [
            (w * pl.col("y")).sum().alias("positives"),
            (w * (1 - pl.col("y"))).sum().alias("negatives"),
            pl.len().cast(pl.Int64).alias("n_rows"),
        ]
    return (
        rows.group_by([*keys, pl.col("s").cast(pl.Float64).alias("score")])
        .agg(aggs)
        .sort([*keys, "score"])
    )


def dense_abroca(
    ya: np.ndarray, sa: np.ndarray, yb: np.ndarray, sb: np.ndarray,
    wa: np.ndarray | None = None, wb: np.ndarray | None = None, grid: int = 2**20,
) -> tuple[float, float]:
    """Midpoint-rule ABROCA on sklearn curves, independent of polars_fair.

    Returns (value, error bound). Midpoints (i + 1/2) / 2**20 never equal an FPR k / N for the
    small N used here, so np.interp sees each midpoint strictly inside one segment (the right
    limit after a vertical step). |TPR_a - TPR_b| is linear between breakpoints and zero
    crossings, where the midpoint rule is exact; each grid cell that holds a breakpoint or a
    crossing is off by at most its width (the integrand lies in [0, 1]). There are at most
    len(fa) + len(fb) breakpoints and one crossing per merged interval.
    """
    fa, ta, _ = roc_curve(ya, sa, sample_weight=wa, drop_intermediate=False)
    fb, tb, _ = roc_curve(yb, sb, sample_weight=wb, drop_intermediate=False)
    x = (np.arange(grid) + 0.5) / grid
    value = float(np.mean(np.abs(np.interp(x, fa, ta) - np.interp(x, fb, tb))))
    bound = (2 * (fa.size + fb.size) + 2) / grid
    return value, bound


rows_strategy = st.integers(min_value=4, max_value=40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 8), min_size=n, max_size=n),  # coarse scores -> many ties
        st.lists(st.integers(0, 1), min_size=n, max_size=n),
        st.lists(st.integers(0, 2), min_size=n, max_size=n),  # group of each row
    )
)


def frame_from(data: tuple[list[int], list[int], list[int]]) -> pl.DataFrame:
    s, y, g = data
    return pl.DataFrame({"g": g, "s": [float(v) / 4 for v in s], "y": y})


# ----------------------------------------------------------------------------- ROC and AUC
@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 1)), min_size=2, max_size=50))
def test_roc_curve_equals_sklearn_drop_intermediate_false(data: list[tuple[int, int]]) -> None:
    s = np.array([d[0] for d in data], dtype=float) / 3
    y = np.array([d[1] for d in data])
    if y.min() == y.max():
        with pytest.raises(ValueError, match="a ROC curve needs both classes"):
            roc_curve_from_cells(*cells(s, y))
        return
    fpr, tpr = roc_curve_from_cells(*cells(s, y))
    f_ref, t_ref, _ = roc_curve(y, s, drop_intermediate=False)
    assert fpr.shape == f_ref.shape
    assert np.allclose(fpr, f_ref, rtol=0, atol=1e-15)
    assert np.allclose(tpr, t_ref, rtol=0, atol=1e-15)
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0.0, 0.0, 1.0, 1.0)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 1), st.integers(1, 5)), min_size=2,
                max_size=50))
def test_auc_equals_sklearn_with_ties_and_sample_weights(data: list[tuple[int, int, int]]) -> None:
    s = np.array([d[0] for d in data], dtype=float)
    y = np.array([d[1] for d in data])
    w = np.array([d[2] for d in data], dtype=float) / 2
    if y.min() == y.max():
        assert auc_from_cells(*cells(s, y)) is None
        return
    auc = auc_from_cells(*cells(s, y))
    assert auc is not None
    assert auc == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    auc_w = auc_from_cells(*cells(s, y, w))
    assert auc_w is not None
    assert auc_w == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)
    # AUC is the trapezoidal area of the curve (ties give diagonal segments)
    fpr, tpr = roc_curve_from_cells(*cells(s, y))
    assert auc == pytest.approx(float(np.trapezoid(tpr, fpr)), abs=1e-12)


def test_auc_hand_computed_with_a_tie() -> None:
    # positives at 0.8 and 0.5, negatives at 0.5 and 0.1: pairs (pos, neg) ->
    # (0.8, 0.5) win, (0.8, 0.1) win, (0.5, 0.5) tie = 1/2, (0.5, 0.1) win -> 3.5 / 4
    assert auc_from_cells([0.1, 0.5, 0.8], [0, 1, 1], [1, 1, 0]) == 0.875


def test_cells_in_any_order_with_duplicate_scores_are_merged() -> None:
    # the same cells as above, shuffled and with the 0.5 cell split in two rows
    auc = auc_from_cells([0.5, 0.8, 0.1, 0.5], [1, 1, 0, 0], [0, 0, 1, 1])
    assert auc == 0.875
    fpr, tpr = roc_curve_from_cells([0.5, 0.8, 0.1, 0.5], [1, 1, 0, 0], [0, 0, 1, 1])
    assert fpr.tolist() == [0.0, 0.0, 0.5, 1.0]
    assert tpr.tolist() == [0.0, 0.5, 1.0, 1.0]


def test_one_class_cells() -> None:
    assert auc_from_cells([0.2, 0.4], [1, 2], [0, 0]) is None
    with pytest.raises(ValueError) as info:
        roc_curve_from_cells([0.2, 0.4], [1, 2], [0, 0])
    assert str(info.value) == ONE_CLASS.format(positives=3, negatives=0)


# ----------------------------------------------------------------------------- ABROCA: hand cases
def test_abroca_vertical_step_from_tied_scores_hand_computed() -> None:
    # group a: two positives tied at 0.9, a negative at 0.5, a positive at 0.4, a negative at 0.3.
    # Its curve: (0,0) -> (0,2/3) [vertical: the tie], (1/2,2/3), (1/2,1) [vertical], (1,1).
    # group b: one positive and one negative tied at 0.5: the diagonal (0,0) -> (1,1).
    # ABROCA = int_0^1/2 (2/3 - f) df + int_1/2^1 (1 - f) df = (1/3 - 1/8) + 1/8 = 1/3.
    curve_a = roc_curve_from_cells([0.3, 0.4, 0.5, 0.9], [0, 1, 0, 2], [1, 0, 1, 0])
    assert curve_a[0].tolist() == [0.0, 0.0, 0.5, 0.5, 1.0]
    assert curve_a[1].tolist() == pytest.approx([0.0, 2 / 3, 2 / 3, 1.0, 1.0])
    curve_b = roc_curve_from_cells([0.5], [1], [1])
    assert abroca_exact(curve_a, curve_b) == pytest.approx(1 / 3, abs=1e-15)
    # Averaging the TPRs at a repeated FPR (1/3 at f=0, 5/6 at f=1/2) would give the curve
    # 1/3 + f on [0, 1/2] and 5/6 + (f - 1/2)/3 on [1/2, 1]: area 1/6 + 1/12 = 1/4, wrong.
    xs = np.array([0.0, 0.5, 1.0])
    averaged = (xs, np.array([np.mean([0, 2 / 3]), np.mean([2 / 3, 1]), 1.0]))
    assert abroca_exact(averaged, curve_b) == pytest.approx(1 / 4, abs=1e-15)
    assert abs(1 / 3 - 1 / 4) > 0.08


def test_abroca_crossing_inside_a_segment_hand_computed() -> None:
    # a: diagonal TPR = f (one tie of both classes); b: staircase with TPR = 1/2 on (0, 1)
    # (positive 0.9, negatives 0.8 and 0.7, positive 0.6). They cross at f = 1/2 inside a
    # segment: ABROCA = int |f - 1/2| = 1/8 + 1/8 = 1/4, although both AUCs are 1/2.
    a = roc_curve_from_cells([0.5], [1], [1])
    b = roc_curve_from_cells([0.6, 0.7, 0.8, 0.9], [1, 0, 0, 1], [0, 1, 1, 0])
    assert abroca_exact(a, b) == pytest.approx(0.25, abs=1e-15)
    assert auc_from_cells([0.5], [1], [1]) == 0.5
    assert auc_from_cells([0.6, 0.7, 0.8, 0.9], [1, 0, 0, 1], [0, 1, 1, 0]) == 0.5


def test_abroca_perfect_versus_inverted() -> None:
    # perfect ranking TPR = 1 on (0, 1) against a fully inverted one TPR = 0 on (0, 1): area 1
    perfect = roc_curve_from_cells([0.1, 0.9], [0, 1], [1, 0])
    inverted = roc_curve_from_cells([0.1, 0.9], [1, 0], [0, 1])
    assert abroca_exact(perfect, inverted) == 1.0


def test_abroca_rejects_bad_curves() -> None:
    with pytest.raises(ValueError, match="fpr must be non-decreasing from 0 to 1"):
        abroca_exact(([0.0, 0.9], [0.0, 1.0]), ([0.0, 1.0], [0.0, 1.0]))
    with pytest.raises(ValueError, match="one length"):
        abroca_exact(([0.0, 1.0], [0.0]), ([0.0, 1.0], [0.0, 1.0]))


# ----------------------------------------------------------------------------- ABROCA: oracle
@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_abroca_matches_dense_grid_integration_of_sklearn_curves(data: tuple) -> None:
    rows = frame_from(data).filter(pl.col("g") < 2)
    assume(rows.height > 0)  # a score table needs rows (an empty one is an EmptyFrameError)
    out = abroca_from_scores(score_table(rows, ["g"]), ["g"], reference=0, pairwise=True)
    a = rows.filter(pl.col("g") == 0)
    b = rows.filter(pl.col("g") == 1)
    ok = all(len(set(f["y"].to_list())) == 2 for f in (a, b))
    if out.height == 0:  # a single group present
        assert a.height == 0 or b.height == 0
        return
    value = out.filter((pl.col("g_i") == 0) & (pl.col("g_j") == 1))["abroca"].item()
    if not ok:
        assert value is None
        return
    ref, bound = dense_abroca(a["y"].to_numpy(), a["s"].to_numpy(), b["y"].to_numpy(),
                              b["s"].to_numpy())
    assert abs(value - ref) <= bound


@settings(max_examples=40, deadline=None)
@given(rows_strategy, st.lists(st.integers(1, 4), min_size=40, max_size=40))
def test_weighted_abroca_and_auc_match_sklearn_sample_weight(data: tuple, wts: list[int]) -> None:
    rows = frame_from(data).filter(pl.col("g") < 2)
    rows = rows.with_columns(w=pl.Series([w / 2 for w in wts[: rows.height]], dtype=pl.Float64))
    assume(rows["g"].n_unique() == 2)  # both groups present: group 0 is the reference
    out = abroca_from_scores(score_table(rows, ["g"], weight="w"), ["g"], reference=0)
    assert out.schema["positives"] == pl.Float64
    assert out.schema["n"] == pl.Int64
    assert out["n"].to_list() == rows.group_by("g").len().sort("g")["len"].to_list()
    parts = {g: rows.filter(pl.col("g") == g) for g in out["g"].to_list()}
    for g, part in parts.items():
        auc = out.filter(pl.col("g") == g)["auc"].item()
        if len(set(part["y"].to_list())) < 2:
            assert auc is None
            continue
        assert auc == pytest.approx(
            roc_auc_score(part["y"], part["s"], sample_weight=part["w"]), abs=1e-12
        )
    if len(parts) == 2 and all(len(set(p["y"].to_list())) == 2 for p in parts.values()):
        a, b = parts[0], parts[1]
        ref, bound = dense_abroca(
            a["y"].to_numpy(), a["s"].to_numpy(), b["y"].to_numpy(), b["s"].to_numpy(),
            a["w"].to_numpy(), b["w"].to_numpy(),
        )
        assert abs(out.filter(pl.col("g") == 1)["abroca"].item() - ref) <= bound


# ----------------------------------------------------------------------------- properties
@settings(max_examples=80, deadline=None)
@given(rows_strategy)
def test_abroca_is_symmetric_and_in_unit_interval(data: tuple) -> None:
    out = abroca_from_scores(score_table(frame_from(data), ["g"]), ["g"], pairwise=True)
    values = {(r["g_i"], r["g_j"]): r["abroca"] for r in out.iter_rows(named=True)}
    for (i, j), v in values.items():
        assert v == values[(j, i)]
        if v is not None:
            assert 0.0 <= v <= 1.0


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_abroca_is_zero_for_identical_groups(data: tuple) -> None:
    rows = frame_from(data)
    twin = pl.concat([rows.with_columns(g=pl.lit(0)), rows.with_columns(g=pl.lit(1))])
    out = abroca_from_scores(score_table(twin, ["g"]), ["g"], reference=0)
    if len(set(rows["y"].to_list())) == 2:
        assert out["abroca"].to_list() == [0.0, 0.0]
    else:
        assert out["abroca"].to_list() == [None, None]


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_abroca_is_invariant_under_strictly_increasing_score_transforms(data: tuple) -> None:
    rows = frame_from(data)
    moved = rows.with_columns(s=(pl.col("s") * 3.0).exp() - 7.0)  # strictly increasing
    a = abroca_from_scores(score_table(rows, ["g"]), ["g"], pairwise=True)
    b = abroca_from_scores(score_table(moved, ["g"]), ["g"], pairwise=True)
    for col in ("abroca", "auc_i"):
        for x, y in zip(a[col].to_list(), b[col].to_list(), strict=True):
            assert (x is None and y is None) or x == pytest.approx(y, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(rows_strategy, st.randoms(use_true_random=False))
def test_abroca_is_unchanged_by_shuffling_rows(data: tuple, rnd: object) -> None:
    rows = frame_from(data)
    order = list(range(rows.height))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    a = abroca_from_scores(score_table(rows, ["g"]), ["g"])
    b = abroca_from_scores(score_table(rows[order], ["g"]), ["g"])
    assert a.equals(b)


@settings(max_examples=80, deadline=None)
@given(rows_strategy)
def test_batch_and_staircase_kernels_equal_abroca_exact(data: tuple) -> None:
    s, y, g = (np.array(v) for v in data)
    grid = np.unique(s)[::-1]
    idx = np.searchsorted(-grid, -s)

    def cum(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = np.bincount(idx[mask], weights=y[mask], minlength=grid.size).astype(np.int64)
        n = np.bincount(idx[mask], weights=1 - y[mask], minlength=grid.size).astype(np.int64)
        return np.r_[0, np.cumsum(p)], np.r_[0, np.cumsum(n)]

    pa, na = cum(g == 0)
    pb, nb = cum(g != 0)
    batch = abroca_batch(pa[None], na[None], pb[None], nb[None])[0]
    ya, yb = y[g == 0], y[g != 0]
    if min(ya.size, yb.size) == 0 or ya.min() == ya.max() or yb.min() == yb.max():
        assert np.isnan(batch)
        return
    exact = abroca_exact(roc_curve_from_cells(*cells(s[g == 0], ya)),
                         roc_curve_from_cells(*cells(s[g != 0], yb)))
    assert batch == pytest.approx(exact, abs=1e-12)
    # distinct scores: break ties by row index, then the staircase kernel applies
    sd = s * 100.0 + np.arange(s.size)
    order = np.argsort(-sd)
    stair = abroca_splits((g == 0)[order][None, :], (y == 1)[order])[0]
    exact_d = abroca_exact(
        roc_curve_from_cells(*cells(sd[g == 0], ya)), roc_curve_from_cells(*cells(sd[g != 0], yb))
    )
    assert stair == pytest.approx(exact_d, abs=1e-12)


# ----------------------------------------------------------------------------- the table API
@pytest.fixture
def three_groups() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "g": ["a", "a", "a", "a", "b", "b", "c", "c", "c"],
            "score": [0.1, 0.4, 0.6, 0.9, 0.3, 0.7, 0.2, 0.5, 0.8],
            "positives": [0, 1, 1, 1, 2, 1, 0, 0, 0],
            "negatives": [2, 1, 0, 0, 0, 0, 1, 1, 1],
        }
    )


def test_one_class_groups_get_null_auc_and_abroca_with_reason(three_groups: pl.DataFrame) -> None:
    out = abroca_from_scores(three_groups, ["g"])  # largest: a (6 rows)
    assert out.columns == [
        "g", "n", "positives", "negatives", "auc", "abroca", "is_reference", "undefined_reason",
    ]
    assert out.dtypes == [
        pl.String, pl.Int64, pl.Int64, pl.Int64, pl.Float64, pl.Float64, pl.Boolean, pl.String,
    ]
    assert out["g"].to_list() == ["a", "b", "c"]
    assert out["n"].to_list() == [6, 3, 3]
    # a: positives at 0.4, 0.6, 0.9 against negatives 0.1 (x2) and 0.4: pairs won
    # 0.4: 2 + tie 1/2, 0.6: 3, 0.9: 3 -> 8.5 / 9
    assert out["auc"].to_list() == [pytest.approx(8.5 / 9), None, None]
    assert out["abroca"].to_list() == [0.0, None, None]
    assert out["is_reference"].to_list() == [True, False, False]
    assert out["undefined_reason"].to_list() == [None, NO_NEGATIVES, NO_POSITIVES]


def test_reference_with_one_class_nulls_every_abroca(three_groups: pl.DataFrame) -> None:
    out = abroca_from_scores(three_groups, ["g"], reference="b")
    assert out["auc"].to_list() == [pytest.approx(8.5 / 9), None, None]
    assert out["abroca"].to_list() == [None, None, None]
    assert out["undefined_reason"].to_list() == [REFERENCE_ONE_CLASS, NO_NEGATIVES, NO_POSITIVES]


def test_unknown_reference_lists_the_groups(three_groups: pl.DataFrame) -> None:
    with pytest.raises(E.UnknownGroupError) as info:
        abroca_from_scores(three_groups, ["g"], reference="z")
    assert str(info.value) == E.UNKNOWN_GROUP.format(group="z", groups="['a', 'b', 'c']",
                                                     near="")
    assert isinstance(info.value, ValueError)


def test_max_auc_reference_needs_a_defined_auc() -> None:
    table = pl.DataFrame({"g": [1, 2], "score": [0.1, 0.2], "positives": [1, 0],
                          "negatives": [0, 1]})
    with pytest.raises(UndefinedReferenceError, match="every group has only one class"):
        abroca_from_scores(table, ["g"], reference="max_auc")


def test_reference_by_mapping_for_two_keys_and_max_auc() -> None:
    rows = pl.DataFrame(
        {
            "sex": ["f"] * 4 + ["m"] * 4 + ["m"] * 4,
            "age": [1] * 4 + [1] * 4 + [2] * 4,
            "s": [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.4],
            "y": [0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 0, 0],
        }
    )
    table = score_table(rows, ["sex", "age"])
    out = abroca_from_scores(table, ["sex", "age"], reference={"sex": "m", "age": 1})
    assert out["is_reference"].to_list() == [False, True, False]
    # AUCs by hand: f1 perfect (1.0); m1 pos {0.2, 0.4} vs neg {0.1, 0.3}: 3/4; m2 inverted: 0
    assert out["auc"].to_list() == [1.0, 0.75, 0.0]
    best = abroca_from_scores(table, ["sex", "age"], reference="max_auc")
    assert best["is_reference"].to_list() == [True, False, False]
    # f1 (TPR = 1 on (0,1)) vs m2 (TPR = 0 on (0,1)): area 1
    assert best["abroca"].to_list()[2] == 1.0
    same = abroca_from_scores(table, ["sex", "age"], reference=("m", 1))
    assert same.equals(out)
    with pytest.raises(E.InvalidArgumentError):
        abroca_from_scores(table, ["sex", "age"], reference="m")


def test_pairwise_schema_and_agreement_with_reference_mode() -> None:
    rng = np.random.default_rng(5)
    n = 300
    rows = pl.DataFrame(
        {"g": rng.integers(0, 3, n), "y": rng.integers(0, 2, n), "s": rng.integers(0, 20, n) / 20}
    )
    table = score_table(rows, ["g"])
    pw = abroca_from_scores(table, ["g"], pairwise=True)
    assert pw.columns == ["g_i", "g_j", "n_i", "n_j", "auc_i", "auc_j", "abroca",
                          "undefined_reason"]
    assert pw.height == 6
    assert [(r[0], r[1]) for r in pw.iter_rows()] == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0),
                                                      (2, 1)]
    for ref in (0, 1, 2):
        single = abroca_from_scores(table, ["g"], reference=ref)
        for row in single.iter_rows(named=True):
            if row["g"] == ref:
                continue
            v = pw.filter((pl.col("g_i") == row["g"]) & (pl.col("g_j") == ref))["abroca"].item()
            assert v == pytest.approx(row["abroca"], abs=1e-15)


def test_pairwise_reasons_name_the_side(three_groups: pl.DataFrame) -> None:
    pw = abroca_from_scores(three_groups, ["g"], pairwise=True)
    reasons = {(r["g_i"], r["g_j"]): r["undefined_reason"] for r in pw.iter_rows(named=True)}
    assert reasons[("a", "b")] == "no negatives in group j"
    assert reasons[("b", "c")] == "no negatives in group i; no positives in group j"
    assert pw["abroca"].null_count() == 6


def test_missing_column_is_named(three_groups: pl.DataFrame) -> None:
    with pytest.raises(E.ColumnNotFoundError, match="'race'"):
        abroca_from_scores(three_groups, ["race"])
    with pytest.raises(E.ColumnNotFoundError, match="'negatives'"):
        abroca_from_scores(three_groups.drop("negatives"), ["g"])


def test_abroca_of_a_million_rows() -> None:
    rng = np.random.default_rng(0)
    n = 1_000_000
    g = rng.integers(0, 2, n)
    y = rng.random(n) < 0.4
    s = rng.normal(y + 0.2 * g * y, 1.0)
    table = score_table(pl.DataFrame({"g": g, "y": y.astype(np.int64), "s": s}), ["g"])
    out = abroca_from_scores(table, ["g"], reference=0)
    assert table.height > 990_000  # (nearly) every score distinct: ~10^6 cells
    # speed is measured in benchmarks/, never asserted in tests
    value = out["abroca"][1]
    assert 0.0 < value < 0.1


# ----------------------------------------------------------------------------- ROC curve table
@settings(max_examples=100, deadline=None)
@given(rows_strategy)
def test_roc_curve_table_equals_sklearn_per_group_with_thresholds(
    data: tuple[list[int], list[int], list[int]],
) -> None:
    from polars_fair.analyses.scores.abroca import roc_curves_from_scores

    rows = frame_from(data)
    table = score_table(rows, ["g"])
    curves = roc_curves_from_scores(table, ["g"])
    assert curves.columns == ["g", "threshold", "fpr", "tpr"]
    for g in sorted(set(data[2])):
        part = rows.filter(pl.col("g") == g)
        y, s = part["y"].to_numpy(), part["s"].to_numpy()
        got = curves.filter(pl.col("g") == g)
        if y.min() == y.max():  # one class: no curve, no row
            assert got.height == 0
            continue
        f_ref, t_ref, thr_ref = roc_curve(y, s, drop_intermediate=False)
        assert np.array_equal(got["threshold"].to_numpy(), thr_ref)  # +inf first (sklearn 1.3+)
        assert np.allclose(got["fpr"].to_numpy(), f_ref, rtol=0, atol=1e-15)
        assert np.allclose(got["tpr"].to_numpy(), t_ref, rtol=0, atol=1e-15)


def test_roc_curve_table_is_the_curve_abroca_integrates() -> None:
    from polars_fair.analyses.scores.abroca import roc_curves_from_scores

    # by hand: a = (0.2: -, 0.5: +-, 0.9: +) -> (0,0), (0,1/2), (1/2,1), (1,1);
    # b = (0.3: +, 0.7: -) -> (0,0), (1,0), (1,1); ABROCA(a, b) = 7/8 (see the abroca example)
    table = pl.DataFrame({"g": ["a", "a", "a", "b", "b"], "score": [0.2, 0.5, 0.9, 0.3, 0.7],
                          "positives": [0, 1, 1, 1, 0], "negatives": [1, 1, 0, 0, 1]})
    curves = roc_curves_from_scores(table, ["g"])
    a = curves.filter(pl.col("g") == "a")
    b = curves.filter(pl.col("g") == "b")
    assert list(zip(a["fpr"], a["tpr"], strict=True)) == [(0, 0), (0, 0.5), (0.5, 1), (1, 1)]
    assert list(zip(b["fpr"], b["tpr"], strict=True)) == [(0, 0), (1, 0), (1, 1)]
    assert a["threshold"].to_list() == [float("inf"), 0.9, 0.5, 0.2]
    area = abroca_exact((a["fpr"].to_numpy(), a["tpr"].to_numpy()),
                        (b["fpr"].to_numpy(), b["tpr"].to_numpy()))
    assert area == pytest.approx(7 / 8, abs=1e-15)
    assert abroca_from_scores(table, ["g"], reference="a")["abroca"][1] == pytest.approx(area)


def test_roc_curves_of_the_analysis_object_and_plan_schema() -> None:
    from polars_fair import from_scores
    from polars_fair.analyses.scores.abroca import roc_curves_from_scores, roc_curves_plan

    table = pl.DataFrame({"g": [1, 1, 2, 2], "score": [0.1, 0.9, 0.4, 0.6],
                          "positives": [0, 3, 0, 0], "negatives": [2, 1, 4, 1]})
    eager = roc_curves_from_scores(table, ["g"])
    lazy = roc_curves_plan(table.lazy(), ["g"])
    assert lazy.collect_schema() == eager.schema
    assert lazy.collect().equals(eager)
    assert from_scores(table).roc_curves().collect().equals(eager)
    assert eager["g"].unique().to_list() == [1]  # group 2 has no positives: no curve
    # tpr at 0.9 is 3/3, fpr 1/3: the score 0.9 holds 3 positives and 1 negative (diagonal)
    assert eager.row(1) == (1, 0.9, pytest.approx(1 / 3), 1.0)
