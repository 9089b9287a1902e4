"""The metric registry: five metrics added as one entry each, and everything derived from them.

fdr, for and balanced_accuracy (per group) and the average odds differences (per pair) are one
registry entry each; these tests check every place that derives from the registry: the
row-level expressions, ``rates``/``report`` columns, ``metrics``' tidy rows, ``pairwise`` (and
the generated ``<rate>_difference``/``<rate>_ratio``), ``pairwise_matrix`` and ``disparity``.
Expected values are computed by hand below, by scikit-learn (balanced accuracy), by formulas
written out here, or by AIF360 when it is installed (a test-only oracle, skipped otherwise).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats as sst
from sklearn.metrics import balanced_accuracy_score, confusion_matrix

import polars_fair
from polars_fair import errors as E
from polars_fair import fair
from polars_fair.analyses.pairwise import PAIRWISE_METRICS, pairwise_from_counts, pairwise_matrix
from polars_fair.analyses.uncertainty import DISPARITY_METRICS, disparity_table, metrics_table
from polars_fair.core import expressions
from polars_fair.core.registry import METRICS, PAIR_METRICS, PROPORTIONS, RATE_NAMES, metric_table
from tests.conftest import Runner

NEW_RATES = ("fdr", "for", "balanced_accuracy")
NEW_PAIRS = ("average_odds_difference", "average_absolute_odds_difference")
Z = float(sst.norm.ppf(0.975))

# (tp, fn, fp, tn) per group.
# a: positives 8 (TP 6, FN 2), negatives 12 (FP 3, TN 9), n 20
#    TPR 6/8 = 3/4, FPR 3/12 = 1/4, TNR 9/12 = 3/4
#    FDR = FP/(TP+FP) = 3/9 = 1/3;  FOR = FN/(FN+TN) = 2/11
#    balanced accuracy = (3/4 + 3/4)/2 = 3/4
# b: positives 8 (TP 2, FN 6), negatives 12 (FP 4, TN 8), n 20
#    TPR 2/8 = 1/4, FPR 4/12 = 1/3, TNR 8/12 = 2/3
#    FDR = 4/6 = 2/3;  FOR = 6/14 = 3/7
#    balanced accuracy = (1/4 + 2/3)/2 = (3/12 + 8/12)/2 = 11/24
# pair (a, b): FPR_a − FPR_b = 1/4 − 1/3 = −1/12, TPR_a − TPR_b = 3/4 − 1/4 = 1/2
#    average odds difference  = ½(−1/12 + 6/12) = 5/24
#    average |odds| difference = ½(1/12 + 6/12) = 7/24
CELLS = {"a": (6, 2, 3, 9), "b": (2, 6, 4, 8)}
HAND = {
    "a": {"fdr": 1 / 3, "for": 2 / 11, "balanced_accuracy": 3 / 4},
    "b": {"fdr": 2 / 3, "for": 3 / 7, "balanced_accuracy": 11 / 24},
}


def frame(cells: dict[str, tuple[int, int, int, int]]) -> pl.DataFrame:
    """One row per unit: label and prediction reproducing the cells of each group."""
    rows: list[tuple[str, int, int]] = []
    for g, (tp, fn, fp, tn) in cells.items():
        rows += [(g, 1, 1)] * tp + [(g, 1, 0)] * fn + [(g, 0, 1)] * fp + [(g, 0, 0)] * tn
    return pl.DataFrame(rows, schema=["g", "y_true", "y_pred"], orient="row")


def count_table(cells: dict[str, tuple[int, int, int, int]]) -> pl.LazyFrame:
    gs = list(cells)
    tp, fn, fp, tn = (list(v) for v in zip(*cells.values(), strict=True))
    return pl.LazyFrame({"g": gs, "n": [sum(cells[g]) for g in gs], "tp": tp, "fp": fp,
                         "fn": fn, "tn": tn})


def wilson(x: float, n: float, z: float = Z) -> tuple[float, float]:
    """Wilson (1927) score interval, written out here."""
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(centre - half, 0.0), min(centre + half, 1.0)


def newcombe(x1: float, n1: float, x2: float, n2: float, z: float = Z) -> tuple[float, float]:
    """Newcombe (1998) method 10 for p1 − p2, written out here."""
    p1, p2 = x1 / n1, x2 / n2
    (l1, u1), (l2, u2) = wilson(x1, n1, z), wilson(x2, n2, z)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2
                                                                        + (p2 - l2) ** 2)


def row(out: pl.DataFrame, **match: object) -> dict[str, Any]:
    cond = pl.lit(True)
    for k, v in match.items():
        cond = cond & (pl.col(k) == v)
    hits = out.filter(cond)
    assert hits.height == 1, match
    return hits.row(0, named=True)


# ---------------------------------------------------------------- the registry and its exports


def test_every_registry_metric_has_an_exported_row_level_function() -> None:
    for m in METRICS.values():
        name = m.function_name
        assert name in expressions.__all__, name
        assert name in polars_fair.__all__, name
        assert getattr(polars_fair, name) is getattr(expressions, name)
        assert getattr(polars_fair, name).__name__ == name
    # `for` is a Python keyword: its function is false_omission_rate
    assert METRICS["for"].function_name == "false_omission_rate"
    assert not hasattr(polars_fair, "for")


def test_new_metrics_are_registered_in_order() -> None:
    # fdr and for after npv, balanced_accuracy after accuracy
    names = list(RATE_NAMES)
    assert names[names.index("npv") + 1: names.index("npv") + 3] == ["fdr", "for"]
    assert names[names.index("accuracy") + 1] == "balanced_accuracy"
    assert {"fdr", "for"} <= set(PROPORTIONS)
    assert "balanced_accuracy" not in PROPORTIONS
    ba = METRICS["balanced_accuracy"]
    assert ba.numerator is None and ba.denominator is None and ba.value_formula is not None
    pairs = list(PAIR_METRICS)
    i = pairs.index("disparate_impact")
    assert pairs[i + 1: i + 3] == list(NEW_PAIRS)
    for r in NEW_RATES:  # generated pair metrics
        assert f"{r}_difference" in PAIRWISE_METRICS and f"{r}_ratio" in PAIRWISE_METRICS
    table = metric_table()
    assert set(table.filter(pl.col("kind") == "pair")["name"]) >= set(NEW_PAIRS)
    assert set(table.filter(pl.col("kind") == "group")["name"]) >= set(NEW_RATES)


# ---------------------------------------------------------------- row-level expressions


def test_row_level_expressions_by_hand() -> None:
    out = (
        frame(CELLS).group_by("g")
        .agg(polars_fair.fdr(), polars_fair.false_omission_rate(), polars_fair.balanced_accuracy())
        .sort("g")
    )
    # the expression for `for` keeps the metric's name as its output column
    assert out.columns == ["g", "fdr", "for", "balanced_accuracy"]
    for g in ("a", "b"):
        got = row(out, g=g)
        for name in NEW_RATES:
            assert got[name] == pytest.approx(HAND[g][name]), (g, name)


@pytest.mark.parametrize("weighted", [False, True])
def test_balanced_accuracy_matches_sklearn(weighted: bool) -> None:
    rng = np.random.default_rng(7)
    n = 600
    g = rng.integers(0, 3, n)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.7, y, 1 - y)
    w = rng.uniform(0.2, 3.0, n) if weighted else None
    df = pl.DataFrame({"g": g, "y_true": y, "y_pred": p, "w": w if w is not None else 1.0})
    kw: dict[str, Any] = {"sample_weight": "w"} if weighted else {}
    got = df.group_by("g").agg(polars_fair.balanced_accuracy(**kw)).sort("g")
    rates = fair(df).rates("g", **kw).sort("g")
    for k in range(3):
        sel = g == k
        want = balanced_accuracy_score(y[sel], p[sel],
                                       sample_weight=None if w is None else w[sel])
        assert got["balanced_accuracy"][k] == pytest.approx(want)
        assert rates["balanced_accuracy"][k] == pytest.approx(want)


def test_fdr_and_for_match_sklearn_confusion_matrix() -> None:
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 300)
    p = np.where(rng.random(300) < 0.6, y, 1 - y)
    tn, fp, fn, tp = confusion_matrix(y, p, labels=[0, 1]).ravel()
    out = pl.DataFrame({"y_true": y, "y_pred": p}).select(
        polars_fair.fdr(), polars_fair.false_omission_rate()
    )
    assert out["fdr"].item() == pytest.approx(fp / (tp + fp))
    assert out["for"].item() == pytest.approx(fn / (fn + tn))


def test_zero_denominators_are_null_not_zero_or_nan(run: Runner) -> None:
    # z: never predicts positive (TP + FP = 0: FDR undefined), no negatives at all
    #    (TN + FP = 0: TNR and FPR undefined, so balanced accuracy and the odds are undefined);
    #    FOR = FN/(FN + TN) = 2/5
    # w: always predicts positive (FN + TN = 0: FOR undefined)
    cells = {"z": (0, 5, 0, 0), "w": (4, 0, 6, 0)}
    df = frame(cells)
    expr = df.group_by("g").agg(polars_fair.fdr(), polars_fair.false_omission_rate(),
                                polars_fair.balanced_accuracy())
    rates = run(df, "rates", "g")
    for out in (expr, rates):
        z, w = row(out, g="z"), row(out, g="w")
        assert z["fdr"] is None and z["balanced_accuracy"] is None
        assert z["for"] == pytest.approx(1.0)  # FN 5 / (FN 5 + TN 0)
        assert w["for"] is None
        assert w["fdr"] == pytest.approx(6 / 10)
        assert w["balanced_accuracy"] == pytest.approx((1.0 + 0.0) / 2)  # TPR 1, TNR 0/6
        assert not any(out[c].is_nan().any() for c in ("fdr", "for", "balanced_accuracy"))
    tidy = run(df, "metrics", "g")
    z_ba = row(tidy, g="z", metric="balanced_accuracy")
    assert (z_ba["value"], z_ba["ci_low"], z_ba["ci_high"]) == (None, None, None)
    assert z_ba["low_support"] is True
    assert row(tidy, g="z", metric="fdr")["value"] is None
    pairs = run(df, "pairwise", "g", metrics=[*NEW_PAIRS, "fdr_difference", "for_ratio"])
    for r in pairs.iter_rows(named=True):
        # z has no negatives: its FPR is null, so both average odds differences are null
        assert r["average_odds_difference"] is None
        assert r["average_absolute_odds_difference"] is None
        assert r["fdr_difference"] is None  # z's FDR is undefined
    # for_ratio: z's FOR (1.0) over w's (null) is null; w's over z's is null (numerator null)
    assert pairs["for_ratio"].null_count() == 2
    d = run(df, "disparity", "g", reference="w", metric="average_odds_difference")
    assert row(d, g="z")["difference"] is None and row(d, g="z")["p_value"] is None


# ---------------------------------------------------------------- rates, report, metrics


def test_rates_and_report_columns_follow_the_registry(run: Runner) -> None:
    rates = run(frame(CELLS), "rates", "g")
    assert rates.columns == ["g", "n", *RATE_NAMES]
    report = run(frame(CELLS), "report", "g", min_support=1)
    assert [c for c in report.columns if c in METRICS] == list(RATE_NAMES)
    for out in (rates, report):
        for g in ("a", "b"):
            for name in NEW_RATES:
                assert row(out, g=g)[name] == pytest.approx(HAND[g][name]), (g, name)
        assert all(out.schema[name] == pl.Float64 for name in NEW_RATES)


def test_metrics_rows_for_fdr_and_for_with_wilson_intervals(run: Runner) -> None:
    out = run(frame(CELLS), "metrics", "g")
    assert out.height == 2 * len(RATE_NAMES)
    # a: FDR = FP/(TP+FP) = 3/9, FOR = FN/(FN+TN) = 2/11
    for metric, (x, n) in {"fdr": (3, 9), "for": (2, 11)}.items():
        got = row(out, g="a", metric=metric)
        assert (got["numerator"], got["denominator"]) == (x, n)
        assert got["value"] == pytest.approx(x / n)
        assert (got["ci_low"], got["ci_high"]) == pytest.approx(wilson(x, n))
        assert got["low_support"] is True  # 9 and 11 < 30


def test_metrics_balanced_accuracy_row_by_hand(run: Runner) -> None:
    out = run(frame(CELLS), "metrics", "g")
    got = row(out, g="b", metric="balanced_accuracy")
    # no single numerator or denominator: both null
    assert (got["numerator"], got["denominator"]) == (None, None)
    # b: TPR 2/8, TNR 8/12, balanced accuracy (1/4 + 2/3)/2 = 11/24
    assert got["value"] == pytest.approx(11 / 24)
    # MOVER (Zou & Donner 2008) for the mean of two independent proportions, by hand:
    # v ∓ ½·sqrt((p − l)_TPR² + (p − l)_TNR²), Wilson (l, u) of 2/8 and 8/12
    (l1, u1), (l2, u2) = wilson(2, 8), wilson(8, 12)
    p1, p2 = 2 / 8, 8 / 12
    low = 11 / 24 - math.sqrt((p1 - l1) ** 2 + (p2 - l2) ** 2) / 2
    high = 11 / 24 + math.sqrt((u1 - p1) ** 2 + (u2 - p2) ** 2) / 2
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((low, high))
    assert 0 <= got["ci_low"] <= got["value"] <= got["ci_high"] <= 1


def test_balanced_accuracy_support_is_the_smaller_denominator() -> None:
    # a: 8 positives and 12 negatives; support is min(8, 12) = 8: min_support 8 passes, 9 fails
    c = count_table(CELLS)
    for min_support, flagged in ((8, False), (9, True)):
        out = metrics_table(c, ["g"], min_support=min_support).collect()
        assert row(out, g="a", metric="balanced_accuracy")["low_support"] is flagged
    # the same rows' accuracy is judged on n = 20
    out = metrics_table(c, ["g"], min_support=9).collect()
    assert row(out, g="a", metric="accuracy")["low_support"] is False


def test_balanced_accuracy_interval_covers_in_about_95_percent_of_simulations() -> None:
    # 4,000 simulated groups (seeded): 40 positives with TPR 0.7, 60 negatives with TNR 0.9,
    # true balanced accuracy 0.8
    rng = np.random.default_rng(2024)
    k = 4000
    tp, tn = rng.binomial(40, 0.7, k), rng.binomial(60, 0.9, k)
    c = pl.LazyFrame({"g": np.arange(k), "n": np.full(k, 100), "tp": tp, "fn": 40 - tp,
                      "fp": 60 - tn, "tn": tn})
    out = metrics_table(c, ["g"]).filter(pl.col("metric") == "balanced_accuracy").collect()
    coverage = ((out["ci_low"] <= 0.8) & (out["ci_high"] >= 0.8)).mean()
    assert isinstance(coverage, float)
    assert 0.935 <= coverage <= 0.965  # 0.95 ± 4.3 standard errors of a 4,000-draw estimate


def test_weighted_balanced_accuracy_interval_does_not_depend_on_the_weight_scale() -> None:
    df = frame(CELLS).with_columns(w=pl.lit(250.0))
    plain = fair(df).metrics("g").filter(pl.col("metric") == "balanced_accuracy")
    weighted = fair(df).metrics("g", sample_weight="w").filter(
        pl.col("metric") == "balanced_accuracy")
    for c in ("value", "ci_low", "ci_high"):
        assert weighted[c].to_list() == pytest.approx(plain[c].to_list())
    assert weighted["low_support"].to_list() == plain["low_support"].to_list()


# ---------------------------------------------------------------- pairwise


def test_pairwise_columns_by_hand(run: Runner) -> None:
    wanted = [*NEW_PAIRS, "fdr_difference", "for_ratio", "balanced_accuracy_difference",
              "fdr_ratio"]
    out = run(frame(CELLS), "pairwise", "g", metrics=wanted)
    assert out.columns == ["g_i", "g_j", "n_i", "n_j", *wanted]
    ab = row(out, g_i="a", g_j="b")
    ba = row(out, g_i="b", g_j="a")
    assert ab["average_odds_difference"] == pytest.approx(5 / 24)
    assert ba["average_odds_difference"] == pytest.approx(-5 / 24)
    assert ab["average_absolute_odds_difference"] == pytest.approx(7 / 24)
    assert ba["average_absolute_odds_difference"] == pytest.approx(7 / 24)
    assert ab["fdr_difference"] == pytest.approx(1 / 3 - 2 / 3)
    assert ab["fdr_ratio"] == pytest.approx((1 / 3) / (2 / 3))
    assert ab["for_ratio"] == pytest.approx((2 / 11) / (3 / 7))  # 14/33
    assert ab["balanced_accuracy_difference"] == pytest.approx(3 / 4 - 11 / 24)  # 7/24


def test_pairwise_matrix_diagonal_is_the_identity() -> None:
    cells = {**CELLS, "c": (3, 3, 3, 3)}
    pairs = pairwise_from_counts(
        count_table(cells), ["g"], metrics=[*NEW_PAIRS, "fdr_ratio", "for_difference"]
    ).collect()
    for metric, identity in (("average_odds_difference", 0.0),
                             ("average_absolute_odds_difference", 0.0),
                             ("fdr_ratio", 1.0), ("for_difference", 0.0)):
        assert PAIR_METRICS[metric].identity == identity
        m = pairwise_matrix(pairs, metric, ["g"])
        for i, g in enumerate(m["g"].to_list()):
            assert m[g][i] == identity, (metric, g)
    m = pairwise_matrix(pairs, "average_odds_difference", ["g"])
    assert m.filter(pl.col("g") == "a")["b"].item() == pytest.approx(5 / 24)


# ---------------------------------------------------------------- disparity


@pytest.mark.parametrize("metric", ["fdr", "for"])
def test_disparity_of_fdr_and_for_by_hand(run: Runner, metric: str) -> None:
    # reference a; fdr: b 4/6 vs a 3/9; for: b 6/14 vs a 2/11
    x, n, rx, rn = {"fdr": (4, 6, 3, 9), "for": (6, 14, 2, 11)}[metric]
    out = run(frame(CELLS), "disparity", "g", reference="a", metric=metric)
    b = row(out, g="b")
    assert b["metric"] == metric
    assert (b["numerator"], b["denominator"]) == (x, n)
    assert (b["reference_numerator"], b["reference_denominator"]) == (rx, rn)
    assert b["value"] == pytest.approx(x / n)
    assert b["difference"] == pytest.approx(x / n - rx / rn)
    assert (b["difference_ci_low"], b["difference_ci_high"]) == pytest.approx(
        newcombe(x, n, rx, rn))
    assert b["ratio"] == pytest.approx((x / n) / (rx / rn))
    # expected cells below 5 -> Fisher's exact test under test="auto"
    assert b["p_value"] == pytest.approx(sst.fisher_exact([[x, n - x], [rx, rn - rx]]).pvalue)


def test_disparity_accepts_every_proportion_and_the_average_odds() -> None:
    assert set(DISPARITY_METRICS) == {*PROPORTIONS, *NEW_PAIRS}
    df = frame(CELLS)
    rates = fair(df).rates("g").sort("g")
    for metric in PROPORTIONS:
        d = fair(df).disparity("g", reference="a", metric=metric).sort("g")
        assert d["value"].to_list() == pytest.approx(rates[metric].to_list()), metric
    with pytest.raises(E.InvalidArgumentError, match="metric must be one of"):
        fair(df).disparity("g", metric="balanced_accuracy")


def test_disparity_average_odds_difference_by_hand(run: Runner) -> None:
    out = run(frame(CELLS), "disparity", "g", reference="b", metric="average_odds_difference")
    a, b = row(out, g="a"), row(out, g="b")
    assert b["is_reference"] is True and b["p_value"] is None and b["difference"] == 0.0
    # a against b: ½[(FPR_a − FPR_b) + (TPR_a − TPR_b)] = ½[(3/12 − 4/12) + (6/8 − 2/8)] = 5/24
    assert a["difference"] == pytest.approx(5 / 24)
    # value = ½(FPR + TPR): a ½(1/4 + 3/4) = 1/2, b ½(1/3 + 1/4) = 7/24
    assert a["value"] == pytest.approx(1 / 2) and a["reference_value"] == pytest.approx(7 / 24)
    assert a["value"] - a["reference_value"] == pytest.approx(a["difference"])
    # no single numerator/denominator, no ratio
    for c in ("numerator", "denominator", "reference_numerator", "reference_denominator",
              "ratio", "ratio_ci_low", "ratio_ci_high"):
        assert a[c] is None, c
    # MOVER from the two Newcombe intervals (FPR on the negatives, TPR on the positives)
    dF, dT = 3 / 12 - 4 / 12, 6 / 8 - 2 / 8
    (lF, uF), (lT, uT) = newcombe(3, 12, 4, 12), newcombe(6, 8, 2, 8)
    aod = (dF + dT) / 2
    low = aod - math.sqrt((dF - lF) ** 2 + (dT - lT) ** 2) / 2
    high = aod + math.sqrt((uF - dF) ** 2 + (uT - dT) ** 2) / 2
    assert (a["difference_ci_low"], a["difference_ci_high"]) == pytest.approx((low, high))
    # z-test of equalized odds through the AOD statistic, pooled variances:
    # FPR pooled 7/24 on 12 + 12, TPR pooled 8/16 on 8 + 8
    vF = 7 / 24 * (17 / 24) * (1 / 12 + 1 / 12)
    vT = 1 / 2 * (1 / 2) * (1 / 8 + 1 / 8)
    zstat = (dF + dT) / math.sqrt(vF + vT)
    assert a["p_value"] == pytest.approx(2 * sst.norm.sf(abs(zstat)))
    assert a["p_value_adjusted"] == pytest.approx(a["p_value"])  # one comparison


@pytest.mark.parametrize("scale", [1, 10])
def test_disparity_average_absolute_odds_difference_by_hand(run: Runner, scale: int) -> None:
    # CELLS, every count times `scale`: the rates (and so the metric) do not change
    cells = {g: (tp * scale, fn * scale, fp * scale, tn * scale)
             for g, (tp, fn, fp, tn) in CELLS.items()}
    out = run(frame(cells), "disparity", "g", reference="b",
              metric="average_absolute_odds_difference")
    a = row(out, g="a")
    # ½(|3/12 − 4/12| + |6/8 − 2/8|) = ½(1/12 + 1/2) = 7/24
    assert a["difference"] == pytest.approx(7 / 24)
    assert a["value"] is None and a["reference_value"] is None and a["ratio"] is None
    # Šidák: each Newcombe interval at level sqrt(0.95); the image under ½(|dF| + |dT|): |d|
    # lies in [0, max(|l|, |u|)] when (l, u) holds 0, else in [min(|l|, |u|), max(|l|, |u|)]
    z = float(sst.norm.ppf(0.5 + math.sqrt(0.95) / 2))
    s = scale
    (lF, uF), (lT, uT) = newcombe(3 * s, 12 * s, 4 * s, 12 * s, z), newcombe(6 * s, 8 * s,
                                                                            2 * s, 8 * s, z)
    assert lF < 0 < uF  # the FPR difference, −1/12, is not significant at either scale
    if scale == 1:
        assert lT < 0 < uT  # 8 positives a side: the TPR interval holds 0 too
        low = 0.0
    else:
        assert 0 < lT  # 80 positives a side: it does not
        low = (0.0 + min(abs(lT), abs(uT))) / 2
    high = (max(abs(lF), abs(uF)) + max(abs(lT), abs(uT))) / 2
    assert (a["difference_ci_low"], a["difference_ci_high"]) == pytest.approx((low, high))
    # chi-square (2 df) test of equalized odds: zF² + zT² with pooled z statistics,
    # p = exp(−X/2); FPR pooled 7/24 on 12s + 12s, TPR pooled 1/2 on 8s + 8s
    zF = (3 / 12 - 4 / 12) / math.sqrt(7 / 24 * (17 / 24) * (2 / (12 * s)))
    zT = (6 / 8 - 2 / 8) / math.sqrt(1 / 4 * (2 / (8 * s)))
    assert a["p_value"] == pytest.approx(sst.chi2.sf(zF**2 + zT**2, df=2))


def test_disparity_average_odds_overall_is_the_complement() -> None:
    cells = {**CELLS, "c": (10, 5, 5, 20)}
    out = disparity_table(count_table(cells), ["g"], reference="overall",
                          metric="average_odds_difference").collect()
    # a against b + c: FPR (4 + 5)/(12 + 25) = 9/37, TPR (2 + 10)/(8 + 15) = 12/23
    a = row(out, g="a")
    assert a["reference_value"] == pytest.approx((9 / 37 + 12 / 23) / 2)
    assert a["difference"] == pytest.approx(((3 / 12 - 9 / 37) + (6 / 8 - 12 / 23)) / 2)
    assert not out["is_reference"].any()


def test_disparity_average_odds_rejects_fisher() -> None:
    df = frame(CELLS)
    for metric in NEW_PAIRS:
        with pytest.raises(E.InvalidArgumentError, match=r"test='fisher' does not apply"):
            fair(df).disparity("g", metric=metric, test="fisher")
        # "auto" and "z" are the same normal-approximation test for these
        auto = fair(df).disparity("g", reference="a", metric=metric, test="auto")
        z = fair(df).disparity("g", reference="a", metric=metric, test="z")
        assert auto["p_value"].to_list() == z["p_value"].to_list()


@pytest.mark.slow  # 600 disparity calls, a few seconds
@pytest.mark.parametrize("metric", NEW_PAIRS)
def test_disparity_average_odds_intervals_cover_in_simulations(metric: str) -> None:
    # 300 seeded draws: group i (30 positives, TPR 0.6; 70 negatives, FPR 0.2) against a
    # reference (50 positives, TPR 0.7; 150 negatives, FPR 0.1)
    rng = np.random.default_rng(99)
    true = {"average_odds_difference": ((0.2 - 0.1) + (0.6 - 0.7)) / 2,
            "average_absolute_odds_difference": (abs(0.2 - 0.1) + abs(0.6 - 0.7)) / 2}[metric]
    hits = 0
    draws = 300
    for _ in range(draws):
        tp_i, fp_i = rng.binomial(30, 0.6), rng.binomial(70, 0.2)
        tp_r, fp_r = rng.binomial(50, 0.7), rng.binomial(150, 0.1)
        c = pl.LazyFrame({"g": ["i", "r"], "n": [100, 200], "tp": [tp_i, tp_r],
                          "fn": [30 - tp_i, 50 - tp_r], "fp": [fp_i, fp_r],
                          "tn": [70 - fp_i, 150 - fp_r]})
        d = row(disparity_table(c, ["g"], reference="r", metric=metric).collect(), g="i")
        hits += d["difference_ci_low"] <= true <= d["difference_ci_high"]
    # nominal 0.95 (the absolute one is conservative); 300 draws: s.e. about 0.0126
    assert 0.91 <= hits / draws <= 1.0


# ---------------------------------------------------------------- AIF360 as an oracle


@pytest.mark.slow  # imports AIF360 (seconds) when it is installed
def test_average_odds_match_aif360() -> None:
    """AIF360's ClassificationMetric (unprivileged g=0 against privileged g=1), when installed.

    ``average_odds_difference`` = ½[(FPR_unpriv − FPR_priv) + (TPR_unpriv − TPR_priv)] and
    ``average_abs_odds_difference`` = ½[|ΔFPR| + |ΔTPR|]; ``false_discovery_rate`` and
    ``false_omission_rate`` per group. Unweighted and with instance weights.
    """
    pytest.importorskip("aif360")
    pd = pytest.importorskip("pandas")
    from aif360.datasets import BinaryLabelDataset  # type: ignore[import-not-found, unused-ignore]
    from aif360.metrics import ClassificationMetric  # type: ignore[import-not-found, unused-ignore]

    rng = np.random.default_rng(3)
    n = 500
    g = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < np.where(g == 1, 0.8, 0.6), y, 1 - y)
    w = rng.uniform(0.5, 2.0, n)
    for weighted in (False, True):
        wts = w if weighted else np.ones(n)
        truth = pd.DataFrame({"g": g.astype(float), "y": y.astype(float), "w": wts})
        pred = truth.assign(y=p.astype(float))
        kw = {"label_names": ["y"], "protected_attribute_names": ["g"],
              "instance_weights_name": "w", "favorable_label": 1.0, "unfavorable_label": 0.0}
        cm = ClassificationMetric(BinaryLabelDataset(df=truth, **kw),
                                  BinaryLabelDataset(df=pred, **kw),
                                  unprivileged_groups=[{"g": 0}], privileged_groups=[{"g": 1}])
        df = pl.DataFrame({"g": g, "y_true": y, "y_pred": p, "w": wts})
        count_args: dict[str, Any] = {"sample_weight": "w"} if weighted else {}
        pairs = fair(df).pairwise("g", metrics=list(NEW_PAIRS), **count_args)
        unpriv = row(pairs, g_i=0, g_j=1)
        assert unpriv["average_odds_difference"] == pytest.approx(cm.average_odds_difference())
        assert unpriv["average_absolute_odds_difference"] == pytest.approx(
            cm.average_abs_odds_difference())
        d = fair(df).disparity("g", reference=1, metric="average_odds_difference", **count_args)
        assert row(d, g=0)["difference"] == pytest.approx(cm.average_odds_difference())
        rates = fair(df).rates("g", **count_args)
        for privileged, value in ((False, 0), (True, 1)):
            r = row(rates, g=value)
            assert r["fdr"] == pytest.approx(cm.false_discovery_rate(privileged=privileged))
            assert r["for"] == pytest.approx(cm.false_omission_rate(privileged=privileged))
