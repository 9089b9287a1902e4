"""divergence (issue 14): worst-off subgroups over attribute-value patterns.

Expected values come from hand computations written here, from independent numpy / scipy
computations over the rows, and from DivExplorer itself (PyPI ``divexplorer`` 0.2.6), run as a
test-only oracle in its own environment: set ``POLARS_FAIR_DIVEXPLORER_PYTHON`` to a Python that
can ``import divexplorer`` (``python3 -m venv /tmp/divenv && /tmp/divenv/bin/pip install
divexplorer==0.2.6``), or run ``benchmarks/setup_peers.sh`` (its ``divexplorer`` venv is found
by default); without either the oracle tests skip and say so.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats as sst

import polars_fair
from polars_fair import errors as E
from polars_fair import from_counts
from polars_fair.analyses.divergence import (
    adjust_pvalues,
    bin_attributes,
    global_shapley_values,
    shapley_values,
    top_divergent,
)
from polars_fair.datasets import COMPAS_FILTER
from tests.conftest import COMPAS_CSV, require

# ------------------------------------------------------------------ a hand-worked example
#: race x sex, 50 rows each (200 in all): FP/TN among the 40 negatives, 10 positives each (TP)
HAND = pl.DataFrame({"race": ["a", "a", "b", "b"], "sex": ["F", "M", "F", "M"],
                     "n": [50] * 4, "tp": [10] * 4, "fp": [30, 10, 10, 10], "fn": [0] * 4,
                     "tn": [10, 30, 30, 30]})


def _newcombe(x1: float, n1: float, x2: float, n2: float, z: float) -> tuple[float, float]:
    """Newcombe (1998) method 10, from Wilson intervals, written out here."""
    def wilson(x: float, n: float) -> tuple[float, float]:
        p = x / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return centre - half, centre + half

    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1)
    l2, u2 = wilson(x2, n2)
    d = p1 - p2
    return (d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2),
            d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2))


def test_hand_example_values_support_and_sort() -> None:
    d = from_counts(HAND).divergence(min_support=0.25).collect()
    # 8 patterns: 2 races, 2 sexes, 4 intersections (each 50 of 200 rows = 0.25 >= 0.25)
    assert d.height == 8
    # overall FPR = (30 + 10 + 10 + 10) / 160 = 0.375
    assert d["overall"].unique().to_list() == [0.375]
    top = d.row(0, named=True)
    assert (top["attributes"], top["race"], top["sex"]) == (["race", "sex"], "a", "F")
    # a ∧ F: FPR 30/40 = 0.75, outside (10+10+10)/120 = 0.25, divergence 0.75 - 0.375
    assert (top["n"], top["support"], top["denominator"]) == (50, 0.25, 40)
    assert top["value"] == 0.75 and top["outside"] == 0.25 and top["divergence"] == 0.375
    lo, hi = _newcombe(30, 40, 30, 120, 1.959963984540054)
    assert top["ci_low"] == pytest.approx(lo, abs=1e-12)
    assert top["ci_high"] == pytest.approx(hi, abs=1e-12)
    # expected cells all >= 5: the pooled z-test, equal to Pearson's chi-squared (no correction)
    chi2 = sst.chi2_contingency([[30, 10], [30, 90]], correction=False)
    assert top["p_value"] == pytest.approx(chi2.pvalue, rel=1e-9)
    # FPR harms when higher: divergence descending
    div = d["divergence"].to_list()
    assert div == sorted(div, reverse=True)
    # race = a alone: 40/80 = 0.5, outside 20/80 = 0.25
    a = d.filter((pl.col("attributes") == ["race"]) & (pl.col("race") == "a")).row(0, named=True)
    assert (a["value"], a["outside"], a["divergence"], a["sex"]) == (0.5, 0.25, 0.125, None)


def test_divergence_interval_is_the_difference_interval_rescaled() -> None:
    top = from_counts(HAND).divergence(min_support=0.25).collect().row(0, named=True)
    # a ∧ F: m = 40 negatives of M = 160; value - overall = (M - m)/M (value - outside):
    # 0.375 = 120/160 * (0.75 - 0.25), so the interval is the Newcombe one times 3/4
    assert top["divergence"] == pytest.approx(0.75 * (top["value"] - top["outside"]), abs=1e-15)
    lo, hi = _newcombe(30, 40, 30, 120, 1.959963984540054)
    assert top["divergence_ci_low"] == pytest.approx(0.75 * lo, abs=1e-12)
    assert top["divergence_ci_high"] == pytest.approx(0.75 * hi, abs=1e-12)


def test_dataframe_lazyframe_and_count_table_agree() -> None:
    rows = []
    for r in HAND.iter_rows(named=True):
        rows += [(r["race"], r["sex"], 1, 1)] * r["tp"] + [(r["race"], r["sex"], 0, 1)] * r["fp"]
        rows += [(r["race"], r["sex"], 0, 0)] * r["tn"]
    df = pl.DataFrame(rows, schema=["race", "sex", "y_true", "y_pred"], orient="row")
    eager = df.fair.divergence(["race", "sex"], min_support=0.25)
    lazy = df.lazy().fair.divergence(["race", "sex"], min_support=0.25).collect(
        engine="streaming")
    counted = from_counts(HAND).divergence(min_support=0.25).collect()
    assert eager.equals(lazy) and eager.equals(counted)


def test_t_value_is_divexplorers_beta_t_written_out() -> None:
    d = from_counts(HAND).divergence(min_support=0.25).collect().row(0, named=True)

    def beta(pos: int, neg: int) -> tuple[float, float]:
        a, b = pos + 1, neg + 1
        return a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))

    m1, v1 = beta(30, 10)
    m0, v0 = beta(60, 100)
    assert d["t_value"] == pytest.approx(abs(m1 - m0) / math.sqrt(v1 + v0), rel=1e-12)


def test_lower_is_harmful_metric_sorts_ascending_and_low_support_is_flagged() -> None:
    d = from_counts(HAND).divergence(metric="selection_rate", min_support=0.25,
                                     min_denominator=60).collect()
    div = d["divergence"].to_list()
    assert div == sorted(div)
    # the 4 intersections have n = 50 < 60 rows (selection rate's denominator is n)
    flagged = d.filter(pl.col("low_support"))["attributes"].list.len().to_list()
    assert flagged == [2, 2, 2, 2]


def test_min_support_as_count_and_max_order() -> None:
    c = from_counts(HAND)
    assert c.divergence(min_support=51).collect()["attributes"].list.len().max() == 1
    assert c.divergence(min_support=50, max_order=1).collect().height == 4
    # DivExplorer's rule: n >= ceil(min_support * rows); 0.25 * 200 = 50 exactly
    assert c.divergence(min_support=0.25).collect().height == 8
    assert c.divergence(min_support=0.2501).collect().height == 4


def test_adjustments_match_scipy_and_a_written_out_holm() -> None:
    p = np.array([0.001, 0.02, np.nan, 0.04, 0.3, 0.011])
    ok = ~np.isnan(p)
    for method in ("bh", "by"):
        expected = sst.false_discovery_control(p[ok], method=method)
        assert np.allclose(adjust_pvalues(p, method)[ok], expected, rtol=1e-12)
    m = ok.sum()
    order = np.argsort(p[ok])
    holm = np.maximum.accumulate(np.minimum(1, (m - np.arange(m)) * p[ok][order]))
    expected = np.empty(m)
    expected[order] = holm
    assert np.allclose(adjust_pvalues(p, "holm")[ok], expected)
    assert np.isnan(adjust_pvalues(p, "by")[2])


def test_adjusted_p_values_are_over_every_pattern_tested() -> None:
    d = from_counts(HAND).divergence(min_support=0.25, adjust="by").collect()
    p = d["p_value"].to_numpy()
    assert np.allclose(d["p_value_adjusted"].to_numpy(),
                       sst.false_discovery_control(p, method="by"), rtol=1e-12)
    sig = d["significant"].to_list()
    assert sig == [bool(v <= 0.05) for v in d["p_value_adjusted"].to_list()]


# ------------------------------------------------------------------ redundancy and Shapley
def test_redundancy_pruning_keeps_patterns_whose_items_matter() -> None:
    # a ∧ F diverges (0.375) far from a (0.125) and F (0.125): kept; b ∧ M (-0.125) equals
    # b (-0.125) and M (-0.125): redundant
    d = from_counts(HAND).divergence(min_support=0.25)
    kept = top_divergent(d, epsilon=0.01)
    labels = [tuple(v for v in r[1:] if v is not None) for r in
              kept.select("attributes", "race", "sex").rows()]
    assert ("a", "F") in labels and ("b", "M") not in labels
    assert top_divergent(d, 2).height == 2


def test_shapley_values_sum_to_divergence_and_match_hand_computation() -> None:
    d = from_counts(HAND).divergence(min_support=0.25).collect()
    s = shapley_values(d)
    af = s.filter((pl.col("race") == "a") & (pl.col("sex") == "F")
                  & (pl.col("attributes").list.len() == 2))
    # phi(race=a) = 1/2 [Δ(a) - Δ(∅)] + 1/2 [Δ(a,F) - Δ(F)] = 1/2 (0.125) + 1/2 (0.25)
    assert dict(af.select("item", "shapley").rows()) == {"race=a": 0.1875, "sex=F": 0.1875}
    sums = s.group_by("attributes", "race", "sex").agg(pl.col("shapley").sum())
    joined = sums.join(d, on=["attributes", "race", "sex"], nulls_equal=True)
    assert np.allclose(joined["shapley"], joined["divergence"])
    g = global_shapley_values(d)
    # 2 attributes, 2 items each: w(∅) = 0! 1! / (2! 2) = 1/4, w({b}) = 1! 0! / (2! 4) = 1/8
    # race=a: 1/4 Δ(a) + 1/8 [(Δ(a,F) - Δ(F)) + (Δ(a,M) - Δ(M))] = 1/32 + 1/8 (1/4 + 0)
    assert g.filter(pl.col("item") == "race=a")["global_shapley"].item() == pytest.approx(0.0625)


# ------------------------------------------------------------------ bins and levels
def test_bins_by_edges_and_by_quantiles_show_their_edges() -> None:
    lf = pl.LazyFrame({"age": [18, 22, 30, 41, 50, 67, None]})
    assert bin_attributes(lf, {"age": [25, 45]}).collect()["age"].to_list() == [
        "< 25", "< 25", "[25, 45)", "[25, 45)", ">= 45", ">= 45", None]
    # quantile bins split as numpy's linear quantiles: Q(1/3) = 22 + (5/3 - 1) * (30 - 22)
    # = 27.33, Q(2/3) = 41 + (10/3 - 3) * (50 - 41) = 44; a row is in the first bin whose
    # quantile it does not exceed, so 2 rows each, the edges shown being the values at or below
    # them (22 and 41), right-closed (before: left-closed at 22 and 41, bins of 1, 2 and 3 rows)
    ages = np.sort(np.array([18, 22, 30, 41, 50, 67]))
    cuts = [int(ages[math.floor(q * (len(ages) - 1))]) for q in (1 / 3, 2 / 3)]
    assert cuts == [22, 41]
    assert np.quantile(ages, [1 / 3, 2 / 3]).round(2).tolist() == [27.33, 44.0]
    assert bin_attributes(lf, {"age": 3}).collect()["age"].to_list() == [
        "<= 22", "<= 22", "(22, 41]", "(22, 41]", "> 41", "> 41", None]


def test_bins_through_the_namespace_keep_one_scan_and_lazy() -> None:
    df = pl.DataFrame({"age": list(range(20, 60)), "y_true": [0] * 40,
                       "y_pred": [1] * 10 + [0] * 30})
    lazy = df.lazy().fair.divergence("age", bins={"age": [30]}, min_support=1,
                                     min_denominator=1)
    assert isinstance(lazy, pl.LazyFrame)
    out = lazy.collect()
    assert out.select("age", "value").rows() == [("< 30", 1.0), (">= 30", 0.0)]


def test_numeric_attribute_with_one_row_per_level_must_be_binned() -> None:
    df = pl.DataFrame({"age": [21, 25, 33, 38, 44, 52, 60, 71], "y_true": [0] * 8,
                       "y_pred": [1, 0] * 4})
    with pytest.raises(E.TooManyLevelsError, match=r"8 distinct values in 8 rows.*bins="):
        df.fair.divergence("age")
    assert df.fair.divergence("age", bins={"age": 2}, min_support=1).height == 2
    many = pl.DataFrame({"x": [i / 7 for i in range(200)], "y_true": [0] * 200,
                         "y_pred": [1, 0] * 100})
    with pytest.raises(E.TooManyLevelsError, match=r"bins="):
        many.fair.divergence("x")


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"metric": "marginal_benefit"}, E.InvalidArgumentError, "must be a proportion"),
    ({"adjust": "bonferroni"}, E.InvalidArgumentError, "adjust must be one of"),
    ({"min_support": 0}, E.InvalidArgumentError, "min_support must lie in"),
    ({"max_patterns": 1}, E.SizeLimitError, "max_patterns=1"),
    ({"combinations": "all"}, E.InvalidArgumentError, "drop combinations="),
    ({"bins": {"race": 3}}, E.InvalidArgumentError, "not a numeric one"),
    ({"bins": {"age": [3, 1]}}, E.InvalidArgumentError, "increasing finite"),
    ({"bins": {"age": 1}}, E.InvalidArgumentError, "bins\\['age'\\] must be an integer >= 2"),
    ({"bins": {"zzz": 3}}, E.ColumnNotFoundError, "'zzz' \\(bins\\) not found"),
])
def test_errors_name_the_argument(kwargs: dict[str, Any], error: type[Exception],
                                  message: str) -> None:
    df = pl.DataFrame({"race": ["a", "b"] * 20, "age": list(range(40)), "y_true": [0] * 40,
                       "y_pred": [1, 0, 0, 1] * 10})
    with pytest.raises(error, match=message):
        by = ["race", "age"] if "bins" in kwargs else ["race"]
        df.fair.divergence(by, **{"min_support": 1, **kwargs})


def test_size_guard_states_the_candidate_count() -> None:
    # level 1: 4 items; level 2: the 4 intersections of frequent items -> 8 > 5
    with pytest.raises(E.SizeLimitError, match=r"counts 8 candidate patterns by level 2"):
        from_counts(HAND).divergence(min_support=0.25, max_patterns=5).collect()


def test_a_table_of_several_attribute_sets_is_refused() -> None:
    df = pl.DataFrame({"a": ["x", "y"], "b": [1, 2], "y_true": [0, 0], "y_pred": [1, 0]})
    with pytest.raises(E.InvalidArgumentError, match="several attribute sets"):
        polars_fair.counts(df, ["a", "b"], combinations="all").divergence()


def test_weights_of_one_give_the_unweighted_result() -> None:
    rng = np.random.default_rng(3)
    df = pl.DataFrame({"g": rng.choice(["a", "b", "c"], 500), "h": rng.choice(["x", "y"], 500),
                       "y_true": rng.integers(0, 2, 500), "y_pred": rng.integers(0, 2, 500),
                       "w": np.ones(500)})
    plain = df.fair.divergence(["g", "h"], min_support=0.05)
    weighted = df.fair.divergence(["g", "h"], min_support=0.05, sample_weight="w")
    cols = ["n", "support", "value", "outside", "divergence", "p_value", "t_value", "ci_low"]
    for c in cols:
        assert np.allclose(plain[c].to_numpy(), weighted[c].to_numpy(), rtol=1e-12), c


def test_duckdb_relation_gives_the_polars_result() -> None:
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(5)
    df = pl.DataFrame({"g": rng.choice(["a", "b", "c"], 400), "h": rng.choice(["x", "y"], 400),
                       "y_true": rng.integers(0, 2, 400), "y_pred": rng.integers(0, 2, 400)})
    con = duckdb.connect()
    rel = con.from_arrow(df.to_arrow())
    ours = df.fair.divergence(["g", "h"], metric="fnr", min_support=0.02)
    theirs = polars_fair.counts(rel, ["g", "h"]).divergence(metric="fnr",
                                                              min_support=0.02).collect()
    assert ours.equals(theirs)


# ------------------------------------------------------------------ property
def _brute_force(df: pl.DataFrame, attrs: list[str], threshold: int) -> dict[tuple, tuple]:
    """Every pattern over every attribute subset with support >= threshold, by plain group-bys
    over the rows: pattern -> (n, fp, fp + tn)."""
    out = {}
    for r in range(1, len(attrs) + 1):
        for sub in itertools.combinations(attrs, r):
            g = df.group_by(list(sub)).agg(
                pl.len().alias("n"),
                ((pl.col("y_true") == 0) & (pl.col("y_pred") == 1)).sum().alias("fp"),
                (pl.col("y_true") == 0).sum().alias("neg"))
            for row in g.filter(pl.col("n") >= threshold).iter_rows(named=True):
                key = tuple(sorted((a, row[a]) for a in sub))
                out[key] = (row["n"], row["fp"], row["neg"])
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(20, 200), st.integers(0, 10_000), st.sampled_from([0.02, 0.1, 0.25, 3]))
def test_patterns_equal_plain_group_bys_both_ways_and_pruning_drops_nothing_above_support(
        rows: int, seed: int, min_support: float) -> None:
    rng = np.random.default_rng(seed)
    df = pl.DataFrame({"a": rng.choice(["p", "q", "r"], rows), "b": rng.choice(["u", "v"], rows),
                       "c": rng.choice(["k", "l", "m", "o"], rows),
                       "y_true": rng.integers(0, 2, rows), "y_pred": rng.integers(0, 2, rows)})
    assume(df["y_true"].n_unique() == 2)
    threshold = math.ceil(min_support * rows) if min_support < 1 else min_support
    expected = _brute_force(df, ["a", "b", "c"], threshold)
    out = df.fair.divergence(["a", "b", "c"], min_support=min_support)
    got = {}
    for r in out.iter_rows(named=True):
        key = tuple(sorted((a, r[a]) for a in r["attributes"]))
        fp = None if r["value"] is None else round(r["value"] * r["denominator"])
        got[key] = (r["n"], fp if fp is not None else 0, r["denominator"])
    assert got == expected
    levels = df.fair.divergence(["a", "b", "c"], min_support=min_support, strategy="levels")
    assert levels.equals(out)
    p = out["p_value"].to_numpy()
    ok = ~np.isnan(p)
    assume(ok.any())
    # an independent BH over every pattern tested
    m = ok.sum()
    order = np.argsort(p[ok])
    bh = np.minimum.accumulate((p[ok][order] * m / np.arange(1, m + 1))[::-1])[::-1]
    expected_adj = np.empty(m)
    expected_adj[order] = np.minimum(bh, 1)
    assert np.allclose(out["p_value_adjusted"].to_numpy()[ok], expected_adj, rtol=1e-12)


# ------------------------------------------------------------------ small null simulation
def test_null_search_keeps_false_discoveries_rare_with_bh_not_without() -> None:
    """Labels and predictions independent of the attributes: every discovery is false.

    A small version of benchmarks/divergence_bench.py --null (1,000 searches there): with 100
    searches, BH at FDR 0.05 errs (any discovery) in at most 10 (a binomial upper margin),
    while unadjusted p-values find something in most.
    """
    rng = np.random.default_rng(2026)
    any_bh = any_raw = 0
    reps = 100
    for _ in range(reps):
        n = 2000
        df = pl.DataFrame({"a": rng.choice(list("pqrs"), n), "b": rng.choice(list("uvw"), n),
                           "c": rng.choice(list("xy"), n), "d": rng.choice(list("klm"), n),
                           "y_true": rng.integers(0, 2, n), "y_pred": rng.integers(0, 2, n)})
        out = df.fair.divergence(["a", "b", "c", "d"], min_support=0.01)
        any_bh += bool(out["significant"].any())
        any_raw += bool((out["p_value"] <= 0.05).any())
    assert any_bh <= 10
    assert any_raw >= 80


# ------------------------------------------------------------------ DivExplorer oracle
ORACLE_SCRIPT = r'''
import json, math, sys
import pandas as pd
from divexplorer import DivergenceExplorer, DivergencePatternProcessor
cfg = json.loads(sys.argv[1])
df = pd.read_csv(cfg["csv"], dtype={a: str for a in cfg["attributes"]}, keep_default_na=False,
                 na_values={o: [""] for o in cfg["outcomes"]})
res = DivergenceExplorer(df).get_pattern_divergence(
    min_support=cfg["min_support"], boolean_outcomes=cfg["outcomes"],
    attributes=cfg["attributes"])
def num(v):
    v = float(v)
    return None if math.isnan(v) else v
out = {}
for o in cfg["outcomes"]:
    proc = DivergencePatternProcessor(res, o)
    pats = []
    for _, r in proc.patterns.iterrows():
        sv = proc.shapley_value(pattern=r["itemset"]) if len(r["itemset"]) else {}
        pats.append({"items": sorted(r["itemset"]), "support": float(r["support"]),
                     "div": num(r[o + "_div"]), "t": num(r[o + "_t"]),
                     "shapley": {next(iter(k)): num(v) for k, v in sv.items()}})
    g = proc.global_shapley_value()
    pruned = proc.get_patterns(th_redundancy=cfg["epsilon"])
    out[o] = {"patterns": pats, "global": {next(iter(k)): num(v) for k, v in g.items()},
              "pruned": [sorted(s) for s in pruned["itemset"]]}
json.dump(out, sys.stdout)
'''

ATTRIBUTES = ["race", "sex", "age_cat", "c_charge_degree", "priors_count"]
PRIORS_EDGES = [1, 4]


def _divexplorer_python() -> str:
    python = os.environ.get("POLARS_FAIR_DIVEXPLORER_PYTHON")
    envs = Path(os.environ.get("POLARS_FAIR_BENCH_ENVS", "/work/bench-envs"))
    made = envs / "divexplorer" / "bin" / "python"  # by benchmarks/setup_peers.sh
    if not python and made.exists():
        python = str(made)
    if not python and os.environ.get("POLARS_FAIR_REQUIRE_ORACLES") == "1":
        pytest.fail("POLARS_FAIR_REQUIRE_ORACLES=1 but no DivExplorer: set "
                    "POLARS_FAIR_DIVEXPLORER_PYTHON (.ci/run installs divexplorer==0.2.6)")
    if not python:
        pytest.skip("DivExplorer oracle not configured: set POLARS_FAIR_DIVEXPLORER_PYTHON to a "
                    "Python with divexplorer==0.2.6 installed (its own venv), or run "
                    "benchmarks/setup_peers.sh")
    return python


@pytest.fixture(scope="module")
def compas_audit() -> pl.DataFrame:
    """ProPublica's filter; the five attributes, y_true, y_pred (no personal columns)."""
    return (pl.scan_csv(require(COMPAS_CSV)).filter(COMPAS_FILTER)
            .select(*ATTRIBUTES, y_true=pl.col("two_year_recid"),
                    y_pred=(pl.col("score_text") != "Low").cast(pl.Int64))
            .collect())


@pytest.fixture(scope="module")
def oracle(compas_audit: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory
           ) -> dict[str, Any]:
    python = _divexplorer_python()
    folder = Path(tmp_path_factory.mktemp("divexplorer"))
    # the binned priors written independently of polars_fair's bins=
    p = pl.col("priors_count")
    binned = compas_audit.with_columns(
        priors_count=pl.when(p < 1).then(pl.lit("< 1")).when(p < 4).then(pl.lit("[1, 4)"))
        .otherwise(pl.lit(">= 4")))
    y, yp = pl.col("y_true"), pl.col("y_pred")
    outcomes = binned.select(
        *ATTRIBUTES,
        fpr=pl.when(y == 0).then((yp == 1).cast(pl.Int64)),   # FP = 1, TN = 0, else missing
        fnr=pl.when(y == 1).then((yp == 0).cast(pl.Int64)))   # FN = 1, TP = 0, else missing
    csv = folder / "compas_audit.csv"
    outcomes.write_csv(csv)
    script = folder / "oracle.py"
    script.write_text(ORACLE_SCRIPT)
    cfg = {"csv": str(csv), "attributes": ATTRIBUTES, "outcomes": ["fpr", "fnr"],
           "min_support": 0.05, "epsilon": 0.01}
    run = subprocess.run([python, str(script), json.dumps(cfg)], capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


def _item_key(items: list[str]) -> frozenset[str]:
    return frozenset(items)


@pytest.mark.parametrize("metric", ["fpr", "fnr"])
def test_compas_patterns_support_divergence_and_t_value_equal_divexplorer(
        metric: str, compas_audit: pl.DataFrame, oracle: dict[str, Any]) -> None:
    ours = compas_audit.fair.divergence(ATTRIBUTES, metric=metric, min_support=0.05,
                                        bins={"priors_count": PRIORS_EDGES})
    theirs = {_item_key(p["items"]): p for p in oracle[metric]["patterns"] if p["items"]}
    mine = {}
    for r in ours.iter_rows(named=True):
        mine[_item_key([f"{a}={r[a]}" for a in r["attributes"]])] = r
    assert set(mine) == set(theirs)
    assert len(mine) > 100
    for key, p in theirs.items():
        r = mine[key]
        assert r["support"] == pytest.approx(p["support"], rel=1e-12, abs=0)
        assert r["divergence"] == pytest.approx(p["div"], rel=1e-9, abs=1e-12)
        assert r["t_value"] == pytest.approx(p["t"], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("metric", ["fpr", "fnr"])
def test_compas_shapley_global_shapley_and_pruning_equal_divexplorer(
        metric: str, compas_audit: pl.DataFrame, oracle: dict[str, Any]) -> None:
    ours = compas_audit.fair.divergence(ATTRIBUTES, metric=metric, min_support=0.05,
                                        bins={"priors_count": PRIORS_EDGES})
    s = shapley_values(ours)
    keys = ATTRIBUTES
    mine: dict[frozenset[str], dict[str, float]] = {}
    for r in s.iter_rows(named=True):
        pattern = frozenset(f"{a}={r[a]}" for a in r["attributes"])
        mine.setdefault(pattern, {})[r["item"]] = r["shapley"]
    theirs = {_item_key(p["items"]): p["shapley"] for p in oracle[metric]["patterns"]
              if p["items"]}
    assert set(mine) == set(theirs)
    for key, values in theirs.items():
        assert mine[key] == pytest.approx(values, rel=1e-9, abs=1e-12)
    g = dict(global_shapley_values(ours).select("item", "global_shapley").rows())
    assert g == pytest.approx(oracle[metric]["global"], rel=1e-9, abs=1e-12)
    kept = top_divergent(ours, epsilon=0.01)
    kept_items = {frozenset(f"{a}={r[a]}" for a in r["attributes"])
                  for r in kept.select("attributes", *keys).iter_rows(named=True)}
    assert kept_items == {_item_key(x) for x in oracle[metric]["pruned"] if x}


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_frame_gives_the_polars_result(spark: Any) -> None:
    rng = np.random.default_rng(9)
    df = pl.DataFrame({"g": rng.choice(["a", "b", "c"], 300), "h": rng.choice(["x", "y"], 300),
                       "y_true": rng.integers(0, 2, 300), "y_pred": rng.integers(0, 2, 300)})
    sdf = spark.createDataFrame(df.to_arrow())
    ours = df.fair.divergence(["g", "h"], metric="tpr", min_support=0.05)
    theirs = polars_fair.counts(sdf, ["g", "h"]).divergence(metric="tpr",
                                                          min_support=0.05).collect()
    assert ours.equals(theirs)


def test_a_pattern_without_negatives_has_null_rate_test_and_flag() -> None:
    c = pl.DataFrame({"g": ["a", "b"], "n": [40, 10], "tp": [5, 10], "fp": [20, 0],
                      "fn": [5, 0], "tn": [10, 0]})
    d = from_counts(c).divergence(min_support=1).collect()
    b = d.filter(pl.col("g") == "b").row(0, named=True)
    assert b["denominator"] == 0 and b["low_support"] is True
    for col in ("value", "divergence", "ci_low", "ci_high", "p_value", "p_value_adjusted",
                "significant", "t_value", "divergence_ci_low", "divergence_ci_high"):
        assert b[col] is None, col
    # a: 20/30 inside, nothing outside (b has no negatives): no test either, but a value
    a = d.filter(pl.col("g") == "a").row(0, named=True)
    assert (a["value"], a["outside"], a["p_value"], a["significant"]) == (20 / 30, None, None,
                                                                            None)
    nans = d.select(pl.selectors.float().is_nan().any()).row(0)
    assert len(nans) == 12 and not any(nans)  # every undefined figure is null, never NaN


def test_a_missing_value_is_an_item_named_by_attributes() -> None:
    df = pl.DataFrame({"g": ["a"] * 20 + [None] * 20, "h": ["x", "y"] * 20,
                       "y_true": [0] * 40, "y_pred": [1] * 15 + [0] * 25})
    d = df.fair.divergence(["g", "h"], min_support=1, min_denominator=1)
    missing = d.filter((pl.col("attributes") == ["g"]) & pl.col("g").is_null()).row(0, named=True)
    assert (missing["n"], missing["value"], missing["divergence"]) == (20, 0.0, -0.375)
    # issue 19, fourth review, item 10: a missing value's item reads g=(missing), as a missing
    # group does everywhere (it read g=None, the spelling of the text "None")
    assert shapley_values(d).filter(pl.col("item") == "g=(missing)").height == 3
    with pytest.raises(E.NullGroupError):
        df.fair.divergence(["g", "h"], null_groups="raise")
    dropped = pl.DataFrame({"g": ["a"] * 20, "h": ["x", "y"] * 10, "y_true": [0] * 20,
                            "y_pred": [1] * 15 + [0] * 5})
    with pytest.warns(UserWarning, match="dropped 20 row"):
        out = df.fair.divergence(["g", "h"], null_groups="drop", min_support=1)
    assert out.equals(dropped.fair.divergence(["g", "h"], min_support=1))


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_shortcut_takes_divergences_own_max_order(spark: Any) -> None:
    import polars_fair.spark as pfs

    sdf = spark.createDataFrame(HAND.drop("n", "tp", "fp", "fn", "tn").join(
        pl.DataFrame({"y_true": [0, 1], "y_pred": [1, 1]}), how="cross").to_arrow())
    out = pfs.divergence(sdf, ["race", "sex"], max_order=1, min_support=1)
    assert out["attributes"].list.len().to_list() == [1, 1, 1, 1]


@pytest.mark.parametrize("weighted", [False, True])
def test_level_by_level_on_the_rows_equals_the_finest_count_table(weighted: bool) -> None:
    rng = np.random.default_rng(11)
    n = 3000
    df = pl.DataFrame({
        "a": rng.choice(["p", "q", "r", None], n), "b": rng.choice(["u", "v"], n),
        "c": pl.Series(rng.choice(["k", "l", "m"], n)).cast(pl.Enum(["k", "l", "m", "o"])),
        "d": rng.integers(0, 3, n), "y_true": rng.integers(0, 2, n),
        "y_pred": rng.integers(0, 2, n), "w": rng.uniform(0.5, 2.0, n)})
    kw: dict[str, Any] = {"sample_weight": "w"} if weighted else {}
    for metric in ("fpr", "selection_rate"):
        finest = df.fair.divergence(["a", "b", "c", "d"], metric=metric, min_support=0.02, **kw)
        levels = df.fair.divergence(["a", "b", "c", "d"], metric=metric, min_support=0.02,
                                    strategy="levels", **kw)
        assert finest.height > 50
        if not weighted:
            assert levels.equals(finest)
            continue
        # weighted sums added in another order: equal to the last bits
        floats = [c for c, t in finest.schema.items() if t == pl.Float64]
        assert levels.drop(floats).equals(finest.drop(floats))
        for c in floats:
            assert np.allclose(levels[c].to_numpy(), finest[c].to_numpy(), rtol=1e-9,
                               equal_nan=True), c


def test_duckdb_over_many_attributes_goes_level_by_level_with_the_same_result() -> None:
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(12)
    n = 2000
    cols = {f"x{i}": rng.choice(["a", "b", "c"][: 2 + i % 2], n) for i in range(7)}
    df = pl.DataFrame({**cols, "y_true": rng.integers(0, 2, n), "y_pred": rng.integers(0, 2, n)})
    rel = duckdb.connect().from_arrow(df.to_arrow())
    from polars_fair.api.rows import divergence_of_rows

    auto = divergence_of_rows(rel, list(cols), min_support=0.1).collect()  # 7 > LEVELS_ABOVE
    assert auto.equals(df.fair.divergence(list(cols), min_support=0.1))
    with pytest.raises(E.InvalidArgumentError, match="null_groups='drop'"):
        divergence_of_rows(rel, list(cols), strategy="levels", null_groups="drop")
    with pytest.raises(E.SizeLimitError, match="by level 2"):
        divergence_of_rows(rel, list(cols), min_support=0.1, max_patterns=30).collect()


def test_nan_in_a_binned_attribute_is_missing_not_the_top_bin() -> None:
    # 50 NaN, 100 values 0.00 .. 0.99, 20 null: edges at 0.5 give 50 rows below, 50 at or above,
    # and 70 missing (NaN is null everywhere), never NaN counted in ">= 0.5"
    df = pl.DataFrame({"s": [float("nan")] * 50 + [i / 100 for i in range(100)] + [None] * 20,
                       "y_true": [i % 2 for i in range(170)],
                       "y_pred": [(i // 3) % 2 for i in range(170)]})
    d = df.fair.divergence(["s"], bins={"s": [0.5]}, min_support=1, min_denominator=1)
    assert sorted(d.select("s", "n").rows(), key=str) == [("< 0.5", 50), (">= 0.5", 50),
                                                          (None, 70)]
    # the quantile edge is the median of the 100 real values (0.495: 50 rows at or below it,
    # shown as the value 0.49), not moved by the NaN rows
    q = df.fair.divergence(["s"], bins={"s": 2}, min_support=1, min_denominator=1)
    assert sorted(q.select("s", "n").rows(), key=str) == [("<= 0.49", 50), ("> 0.49", 50),
                                                          (None, 70)]
    with pytest.raises(E.NullGroupError):
        df.fair.divergence(["s"], bins={"s": 2}, null_groups="raise")
