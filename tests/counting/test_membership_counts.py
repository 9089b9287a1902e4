"""The weighted and argmax estimators of estimated membership (issue 24): SolasAI's and Jurity's
frozen figures, hand computations, and the crisp attribute reproduced bit for bit by one-hot
probabilities."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair
from polars_fair import errors as E
from tests.conftest import ROOT

ORACLES = ROOT.parent / "shared" / "oracles"
MEMBERSHIP = {"g": {"a": "p_a", "b": "p_b"}}


def _fixture() -> pl.DataFrame:
    path = ORACLES / "fixture_membership.csv"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    # SolasAI's E1w weights: 1, 2, 3, 1, 2, 3, ... in row order
    return pl.read_csv(path).with_row_index("i").with_columns(
        sw=(pl.col("i") % 3 + 1).cast(pl.Float64))


def _peer(section: str) -> dict:
    return json.loads((ORACLES / "peer-figures.json").read_text())[section]


@pytest.mark.parametrize(("entry", "estimator", "weight"), [
    ("E1 AIR membership (p_a, p_b)", "weighted", None),
    ("E1w AIR membership with sample_weight 1,2,3,...", "weighted", "sw"),
    ("E1h AIR membership argmax 0/1", "argmax", None),
])
def test_solasai_air_with_membership_probabilities(entry: str, estimator: str,
                                                   weight: str | None) -> None:
    df = _fixture()
    report = df.fair.report(y_true=None, membership=MEMBERSHIP, membership_estimator=estimator,
                            sample_weight=weight, reference="b")
    rows = {r["g"]: r for r in report.to_dicts()}
    for want in _peer("solasai_fixtures")[entry]["summary"]:
        got = rows[want["Group"]]
        total = got["weight_sum"] if estimator == "weighted" else got["n"]
        assert math.isclose(total, want["Total"], rel_tol=1e-12)
        assert math.isclose(got["fp"], want["Favorable"], rel_tol=1e-12)  # no labels: fp
        assert math.isclose(got["selection_rate"], want["Percent Favorable"], rel_tol=1e-12)
        if want["AIR"] is not None:
            assert math.isclose(got["disparate_impact"], want["AIR"], rel_tol=1e-12)


def test_jurity_argmax_statistical_parity() -> None:
    # Jurity: memberships [[p_b, p_a]], labels default [1] (-> a): rate(a) - rate(b) by argmax
    df = _fixture()
    want = _peer("jurity")["argmax [[p_b,p_a]], labels default (=[1] -> a)"]
    rates = dict(df.fair.rates(y_true=None, membership=MEMBERSHIP,
                               membership_estimator="argmax").select("g", "selection_rate")
                 .iter_rows())
    assert math.isclose(rates["a"] - rates["b"], want, rel_tol=1e-12)


def test_weighted_counts_n_effective_and_attenuation_by_hand() -> None:
    # p_a = 0.25, 1.0, 0.5 with y_pred 1, 1, 0 and no labels
    df = pl.DataFrame({"y_pred": [1, 1, 0], "pa": [0.25, 1.0, 0.5], "pb": [0.75, 0.0, 0.5]})
    c = polars_fair.counts(df, y_true=None, membership={"g": {"a": "pa", "b": "pb"}}).frame
    a, b = c.collect().to_dicts()
    assert (a["n"], a["fp"], a["tn"], a["weight_sum"]) == (3, 1.25, 0.5, 1.75)
    assert a["n_effective"] == 1.75 ** 2 / (0.0625 + 1 + 0.25)
    mu = 1.75 / 3
    var = (0.0625 + 1 + 0.25) / 3 - mu * mu
    assert math.isclose(a["attenuation"], var / (mu * (1 - mu)), rel_tol=1e-12)
    assert (b["n"], b["fp"], b["weight_sum"]) == (2, 0.75, 1.25)  # p_b = 0 on one row


def test_the_missing_group_counts_rows_with_a_null_probability() -> None:
    df = pl.DataFrame({"y_pred": [1, 1, 0], "pa": [None, 1.0, 0.5], "pb": [0.5, 0.0, 0.5],
                       "w": [2.0, 1.0, 1.0]})
    c = polars_fair.counts(df, y_true=None, sample_weight="w",
                           membership={"g": {"a": "pa", "b": "pb"}}).frame.collect()
    missing = c.filter(pl.col("g").is_null()).to_dicts()[0]
    # attenuation 1, not null: the missing group is crisp (review 8, item 5, the old null
    # contradicted the documented "1 for crisp memberships")
    assert (missing["n"], missing["fp"], missing["weight_sum"], missing["n_effective"],
            missing["attenuation"]) == (1, 2.0, 2.0, 1.0, 1.0)


def test_support_flags_and_intervals_use_n_effective() -> None:
    # group a: 10 rows at p = 1 and 30 at p = 0.1: 40 rows, Kish's size 13² / 10.3 = 16.4
    pa = [1.0] * 10 + [0.1] * 30
    df = pl.DataFrame({"y_true": [1, 0] * 20, "y_pred": [1, 1, 0, 0] * 10, "pa": pa,
                       "pb": [1 - p for p in pa]})
    membership = {"g": {"a": "pa", "b": "pb"}}
    report = df.fair.report(membership=membership, reference="b")
    a = report.row(0, named=True)
    assert (a["g"], a["n"]) == ("a", 40)
    assert math.isclose(a["n_effective"], 13.0 ** 2 / 10.3, rel_tol=1e-12)
    assert a["low_support"] is True  # 16.4 effective rows < 30, although 40 rows
    # the Wilson interval of the selection rate on n_effective rows (statsmodels, an oracle)
    from statsmodels.stats.proportion import proportion_confint

    got = df.fair.metrics(membership=membership).filter(
        (pl.col("metric") == "selection_rate") & (pl.col("g") == "a")).row(0, named=True)
    scale = a["n_effective"] / a["weight_sum"]
    low, high = proportion_confint((a["tp"] + a["fp"]) * scale, a["n_effective"],
                                   method="wilson")
    assert math.isclose(got["ci_low"], low, rel_tol=1e-9)
    assert math.isclose(got["ci_high"], high, rel_tol=1e-9)
    assert got["low_support"] is True


def test_regression_points_to_proxy_report_and_sets_cannot_roll_up() -> None:
    df = pl.DataFrame({"y_true": [1], "y_pred": [1], "pa": [1.0], "pb": [0.0]})
    with pytest.raises(E.InvalidArgumentError) as info:
        df.fair.report(membership={"g": {"a": "pa", "b": "pb"}},
                       membership_estimator="regression")
    assert str(info.value) == E.MEMBERSHIP_REGRESSION
    df = df.with_columns(s=pl.lit("x"), t=pl.lit("y"))
    with pytest.raises(E.InvalidArgumentError) as info:
        df.fair.report(["s", "t"], membership={"g": {"a": "pa", "b": "pb"}},
                       combinations="all")
    assert str(info.value) == E.MEMBERSHIP_COMBINATIONS.format(example=["s"])


def test_intersections_with_by_attributes() -> None:
    df = pl.DataFrame({"s": ["x", "x", "y"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0],
                       "pa": [1.0, 0.5, 0.0], "pb": [0.0, 0.5, 1.0]})
    c = polars_fair.counts(df, "s", membership={"g": {"a": "pa", "b": "pb"}}).frame.collect()
    # nobody in cell y may be in a (p_a = 0 there): its row is kept with zeros, as a declared
    # pl.Enum level's is (issue 24 review item 2; the row was missing)
    assert c.select("g", "s", "n", "tp", "fp", "fn").rows() == [
        ("a", "x", 2, 1.0, 0.5, 0.0), ("a", "y", 0, 0.0, 0.0, 0.0), ("b", "x", 1, 0.0, 0.5, 0.0),
        ("b", "y", 1, 0.0, 0.0, 1.0)]


# ---------------------------------------------------------------- one-hot = the crisp attribute
ANALYSES = [("report", {"min_support": 1}), ("rates", {}), ("confusion", {}),
            ("pairwise", {}), ("summary", {}), ("disparity", {}), ("metrics", {}),
            ("impact_analysis", {"min_support": 1})]


@st.composite
def frames(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(4, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    y = rng.integers(0, 2, n)
    y[0], y[1] = 0, 1
    return pl.DataFrame({"g": g, "s": rng.choice(["x", "y"], n), "y_true": y,
                         "y_pred": rng.integers(0, 2, n),
                         "w": rng.integers(1, 5, n).astype(float),
                         **{f"p_{v}": (g == v).astype(float) for v in ("a", "b", "c")}})


#: the membership side drops the crisp column g: an attribute named like a column of the input
#: is refused (fix 24a item 2)
ONE_HOT = {"g": {"a": "p_a", "b": "p_b", "c": "p_c"}}


def _same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    got = got.drop([c for c in ("n_effective", "attenuation") if c in got.columns])
    # main's n_positive_weight (issue 25) is a column of crisp weighted tables only; the
    # membership tables do not carry it (their weights here are all positive: it equals n)
    if "n_positive_weight" in want.columns and "n_positive_weight" not in got.columns:
        assert (want["n_positive_weight"] == want["n"]).all()
        want = want.drop("n_positive_weight")
    # the crisp twin declares the groups as a pl.Enum (every group has a row, as with
    # membership); compared as text
    assert_frame_equal(got, want.with_columns(pl.col(pl.Enum).cast(pl.String)), check_exact=True)


def _crisp(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(pl.col("g").cast(pl.Enum(["a", "b", "c"])))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_one_hot_argmax_reproduces_the_crisp_attribute_bit_for_bit(df: pl.DataFrame) -> None:
    for method, options in ANALYSES:
        for by, weight in (([], None), (["s"], "w")):
            want = getattr(_crisp(df).fair, method)(["g", *by], sample_weight=weight,
                                                    **options)
            got = getattr(df.drop("g").fair, method)(
                by, membership=ONE_HOT, sample_weight=weight, membership_estimator="argmax",
                **options)
            _same(got, want)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_one_hot_weighted_reproduces_the_crisp_attribute_with_unit_weights(
        df: pl.DataFrame) -> None:
    # the weighted estimator's cells are weighted sums: the crisp twin is weighted by 1.0
    df = df.with_columns(one=pl.lit(1.0))
    for method, options in ANALYSES:
        for by in ([], ["s"]):
            want = getattr(_crisp(df).fair, method)(["g", *by], sample_weight="one", **options)
            got = getattr(df.drop("g").fair, method)(by, membership=ONE_HOT, **options)
            _same(got, want)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_one_hot_weighted_equals_the_unweighted_crisp_attribute_bit_for_bit(
        df: pl.DataFrame) -> None:
    # issue 24 review item 9: one-hot probabilities give the crisp report's numbers exactly
    # (rates, ratios, verdicts, intervals, tests). The dtype rule: the weighted estimator's
    # cells are Float64 whatever the values (the schema is fixed before a row is read), so
    # the crisp Int64 counts are compared as Float64; the values are the same bits.
    for method, options in ANALYSES:
        for by in ([], ["s"]):
            want = getattr(_crisp(df).fair, method)(["g", *by], **options)
            got = getattr(df.drop("g").fair, method)(by, membership=ONE_HOT, **options)
            got = got.drop([c for c in ("weight_sum", "n_effective", "attenuation")
                            if c in got.columns])
            assert got.columns == want.columns
            counts = [c for c in want.columns
                      if want.schema[c] == pl.Int64 and got.schema[c] == pl.Float64]
            assert set(counts) <= {"n", "tp", "fp", "fn", "tn", "numerator", "denominator",
                                   "selected", "applicants", "reference_selected",
                                   "reference_applicants", "reference_numerator",
                                   "reference_denominator", "n_i", "n_j"}, counts
            _same(got, want.with_columns(pl.col(counts).cast(pl.Float64)))


def test_summary_reads_the_support_size() -> None:
    # group a: 40 rows with p_a > 0; Σp = 10 + 30·0.1 = 13, Σp² = 10 + 30·0.01 = 10.3, so
    # n_eff = 13² / 10.3 = 16.41; b: 30 rows, Σp = 30·0.9 = 27, n_eff = 27² / (30·0.81) = 30.
    # The support size is min(Σp, n_eff) = 13 and 27 (issue 24 re-review 2: n_eff alone
    # ignores how uncertain the members are). min_support=14 flags a (13 < 14) although its
    # n_eff 16.4 is above 14 (the old rule, wrong: it said not low); 12 flags nobody.
    pa = [1.0] * 10 + [0.1] * 30
    df = pl.DataFrame({"y_true": [1, 0] * 20, "y_pred": [1, 1, 0, 0] * 10, "pa": pa,
                       "pb": [1 - p for p in pa]})
    membership = {"g": {"a": "pa", "b": "pb"}}
    counts = polars_fair.counts(df, membership=membership).frame.collect()
    assert counts["n"].to_list() == [40, 30]
    assert counts["n_effective"][1] == pytest.approx(30.0, rel=1e-12)
    for support, low in ((14, True), (12, False)):
        summary = df.fair.summary(membership=membership, min_support=support)
        assert set(summary["low_support"].to_list()) == {low}


def test_the_gate_checks_only_groups_with_enough_support() -> None:
    from polars_fair.audit.gate import gate

    # a: 40 rows, Σp 13, n_eff 16.4: support 13; b: 30 rows, Σp 27, n_eff 30: support 27
    pa = [1.0] * 10 + [0.1] * 30
    df = pl.DataFrame({"y_true": [1, 0] * 20, "y_pred": [1, 1, 0, 0] * 10, "pa": pa,
                       "pb": [1 - p for p in pa]})
    table = gate(polars_fair.counts(df, membership={"g": {"a": "pa", "b": "pb"}}),
                 min_support=20)
    checked = dict(table.filter(pl.col("metric") == "impact_ratio")
                   .select("group", "checked").iter_rows())
    assert checked == {"g=a": False, "g=b": True}  # 40 rows, but a support size of 13


@pytest.mark.parametrize("estimator", ["weighted", "argmax"])
def test_a_declared_group_nobody_is_in_has_its_row(estimator: str) -> None:
    # Group c has probability 0 on every row. It keeps its row, as a declared pl.Enum level
    # of a crisp attribute does: n = 0, n_effective = 0, every rate null (a zero denominator).
    # (It was missing, named only in a warning: issue 24 review item 2.)
    rows = pl.DataFrame({"p_a": [1.0, 0.25], "p_b": [0.0, 0.75], "p_c": [0.0, 0.0],
                         "y_true": [1, 1], "y_pred": [1, 0]})
    member = {"membership": {"g": {"a": "p_a", "b": "p_b", "c": "p_c"}},
              "membership_estimator": estimator}
    out = rows.fair.report(**member, reference="a", min_support=0)
    assert out["g"].to_list() == ["a", "b", "c"]
    # weighted: a = 1 + .25 = 1.25 people, 1 selected: .8; argmax: a holds row 1 only
    assert out["selection_rate"][0] == pytest.approx(0.8 if estimator == "weighted" else 1.0)
    c = out.row(2, named=True)
    assert c["n"] == 0 and c["tp"] == 0 and c["fp"] == 0
    if estimator == "weighted":
        assert (c["weight_sum"], c["n_effective"], c["attenuation"]) == (0.0, 0.0, None)
    for column in ("selection_rate", "tpr", "fpr", "ppv", "disparate_impact",
                   "impact_ratio", "ofi"):
        assert c[column] is None, column
    assert c["is_reference"] is False
    tidy = rows.fair.metrics(**member).filter(pl.col("g") == "c")
    assert tidy["value"].null_count() == tidy.height
    gaps = rows.fair.disparity(**member, reference="a").filter(pl.col("g") == "c")
    assert gaps["difference"].null_count() == gaps.height
    pairs = rows.fair.pairwise(**member).filter(pl.col("g_i") == "c")
    assert pairs["disparate_impact"].null_count() == pairs.height == 2
    impact = rows.fair.impact_analysis(**member, reference="a").filter(pl.col("g") == "c")
    assert (impact["applicants"].item(), impact["impact_ratio"].item(),
            impact["p_value"].item()) == (0, None, None)
    # the summary reads the groups with rows: min impact ratio a/b as without c
    summary = rows.fair.summary(**member).filter(pl.col("metric") == "min_impact_ratio")
    assert summary["value"].item() == 0.0  # b selects nobody: 0 / a's rate


def test_the_proxy_report_shows_a_group_nobody_is_in() -> None:
    rows = pl.DataFrame({"p_a": [1.0, 0.25, 0.5], "p_b": [0.0, 0.75, 0.5],
                         "p_c": [0.0, 0.0, 0.0], "y_pred": [1, 0, 1]})
    proxy = rows.fair.proxy_report(None, membership={"g": {"a": "p_a", "b": "p_b", "c": "p_c"}},
                                   y_true=None, y_pred="y_pred", reference="a", min_support=0)
    c = proxy.row(2, named=True)
    assert (c["g"], c["weight_sum"], c["n_effective"], c["n_argmax"]) == ("c", 0.0, 0.0, 0)
    for e in ("weighted", "argmax", "regression"):
        assert c[f"selection_rate_{e}"] is None and c[f"impact_ratio_{e}"] is None
    assert c["regression_singular"] is True and c["verdict"] == "indeterminate"


@pytest.mark.parametrize("weight", [None, "w"])
def test_a_roll_up_keeping_the_attribute_equals_the_direct_count(weight: str | None) -> None:
    # issue 24 review item 10: Σ w·p, Σ (w·p)² = weight_sum² / n_eff, Σ w (the cell's weight
    # sums over the groups) and Σ w·p² (from attenuation) are additive over the other keys,
    # so n_effective and attenuation of a coarser set are those of a count at that level
    rng = np.random.default_rng(3)
    n = 300
    p = rng.dirichlet([1.0, 1.0, 0.5], n)
    p[rng.random(n) < 0.1] = np.nan  # the missing group too
    df = pl.DataFrame({"s": rng.choice(["x", "y"], n), "t": rng.choice(["u", "v", "w"], n),
                       "y_true": rng.integers(0, 2, n), "y_pred": rng.integers(0, 2, n),
                       "w": rng.integers(1, 4, n).astype(float), "pa": p[:, 0],
                       "pb": p[:, 1], "pc": p[:, 2]}).with_columns(
        pl.col("pa", "pb", "pc").fill_nan(None))
    member = {"g": {"a": "pa", "b": "pb", "c": "pc"}}
    fine = polars_fair.counts(df, ["s", "t"], membership=member, sample_weight=weight)
    for by in (["g", "s"], ["g"]):
        want = polars_fair.counts(df, by[1:], membership=member, sample_weight=weight)
        got = fine.confusion(by=by).collect()
        assert_frame_equal(got, want.frame.collect(), check_exact=False, rel_tol=1e-12,
                           abs_tol=1e-12)
        assert_frame_equal(fine.report(by=by).collect(), want.report().collect(),
                           check_exact=False, rel_tol=1e-9, abs_tol=1e-12)
    with pytest.raises(E.InvalidArgumentError) as info:  # without the attribute: refused
        fine.confusion(by=["s"]).collect()
    assert str(info.value) == E.MEMBERSHIP_ROLLUP.format(attribute="g", example=["g", "s"])


def test_all_zero_weights_give_n_effective_zero_not_nan() -> None:
    # review 8, item 4: (Σ w·p)² / Σ (w·p)² is 0 / 0 when every weight is 0; the empty-group
    # convention makes it 0 (weight_sum 0, every rate null), on the count table, the report
    # (with --by cells, so the roll-up too) and the proxy report
    df = pl.DataFrame({"s": ["x", "y", "y"], "y_pred": [1, 0, 1], "pa": [0.2, 1.0, 0.5],
                       "pb": [0.8, 0.0, 0.5], "w": [0.0, 0.0, 0.0]})
    member = {"g": {"a": "pa", "b": "pb"}}
    c = polars_fair.counts(df, ["s"], y_true=None, sample_weight="w", membership=member)
    for frame in (c.frame.collect(), c.confusion(by=["g"]).collect(),
                  df.fair.report(membership=member, y_true=None, sample_weight="w"),
                  df.fair.proxy_report(None, membership=member, y_true=None, sample_weight="w",
                                       min_support=0)):
        assert frame["weight_sum"].to_list() == [0.0] * frame.height
        assert frame["n_effective"].to_list() == [0.0] * frame.height
    report = df.fair.report(membership=member, y_true=None, sample_weight="w")
    assert report["n"].to_list() == [3, 2]  # rows with p > 0, whatever their weight
    assert report["selection_rate"].to_list() == [None, None]


def test_a_crisp_cell_every_row_is_in_has_attenuation_one() -> None:
    # review 8, item 5: p = 1 on every row gives Var(p) = 0 and μ(1 − μ) = 0 (0/0); the crisp
    # case is 1 by definition, directly, after a roll-up, and for the missing group
    one = pl.DataFrame({"pa": [1.0, 1.0, 1.0], "pb": [0.0, 0.0, 0.0], "y_pred": [1, 0, 1]})
    report = one.fair.report(membership={"g": {"a": "pa", "b": "pb"}}, y_true=None)
    assert report.filter(pl.col("g") == "a")["attenuation"].to_list() == [1.0]
    # cell x: a has p 1 on its known row (μ 1), b has no weight there (μ 0: null); cell y:
    # p_a 0.5, 1 so μ = 0.75, Σp²/2 = 0.625, Var = 0.625 − 0.5625 = 0.0625, a = 0.0625 /
    # 0.1875 = 1/3 (b likewise); rolled up a: p 1, 0.5, 1, μ = 2.5/3, Σp²/3 = 0.75,
    # a = (0.75 − 25/36) / (2.5/3 · 0.5/3) = (2/36) / (5/36) = 0.4
    df = pl.DataFrame({"s": ["x", "x", "y", "y"], "pa": [1.0, None, 0.5, 1.0],
                       "pb": [0.0, None, 0.5, 0.0], "y_pred": [1, 0, 1, 1]})
    member = {"g": {"a": "pa", "b": "pb"}}
    c = polars_fair.counts(df, ["s"], y_true=None, membership=member)
    fine = c.frame.collect()
    assert fine.select("g", "s").rows() == [("a", "x"), ("a", "y"), ("b", "x"), ("b", "y"),
                                            (None, "x")]
    assert fine["attenuation"].to_list() == pytest.approx([1.0, 1 / 3, None, 1 / 3, 1.0],
                                                          abs=1e-12)
    for rolled in (c.confusion(by=["g"]).collect(), df.fair.report(membership=member,
                                                                   y_true=None)):
        assert rolled["g"].to_list() == ["a", "b", None]
        assert rolled["attenuation"].to_list() == pytest.approx([0.4, 0.4, 1.0], abs=1e-12)
