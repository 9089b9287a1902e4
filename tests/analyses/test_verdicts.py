"""Verdicts an auditor can sign (issue 11, kinds 1, 2, 3, 6): exact at the threshold, never an
undefined figure shown as a number, never a low-support benchmark read as a finding.

Each example of the issue is a test whose expected values are worked out by hand in comments;
the boundary rule of every rule (README "Guarantees") is a hypothesis property over count tables
built so that a ratio, an OFI, a support, a share or a p-value equals its threshold exactly.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.bias_audit import bias_audit_from_counts
from polars_fair.audit.gate import gate, verdict
from polars_fair.cli.entry import app
from polars_fair.core import rules as R
from tests.conftest import Runner

SETTINGS = settings(max_examples=60, deadline=None)
Cells = tuple[int, int, int, int]  # TP, FP, FN, TN


def rows(cells: dict[str, Cells]) -> pl.DataFrame:
    """One row per applicant from each group's confusion cells (TP, FP, FN, TN)."""
    g: list[str] = []
    y: list[int] = []
    p: list[int] = []
    for group, (tp, fp, fn, tn) in cells.items():
        for yt, yp, k in ((1, 1, tp), (0, 1, fp), (1, 0, fn), (0, 0, tn)):
            g += [group] * k
            y += [yt] * k
            p += [yp] * k
    return pl.DataFrame({"g": g, "y_true": y, "y_pred": p},
                        schema={"g": pl.String, "y_true": pl.Int64, "y_pred": pl.Int64})


def table(cells: dict[str, Cells]) -> pl.DataFrame:
    """A count table (g, n, tp, fp, fn, tn) from each group's cells."""
    return pl.DataFrame(
        [(g, sum(c), *c) for g, c in cells.items()],
        schema={"g": pl.String, "n": pl.Int64, "tp": pl.Int64, "fp": pl.Int64,
                "fn": pl.Int64, "tn": pl.Int64},
        orient="row",
    )


def by_metric(summary: pl.DataFrame) -> dict[str, dict[str, Any]]:
    return {r["metric"]: r for r in summary.iter_rows(named=True)}


def by_group(frame: pl.DataFrame, key: str = "g") -> dict[Any, dict[str, Any]]:
    return {r[key]: r for r in frame.iter_rows(named=True)}


# ----------------------------------------------------------------------------- engines


ENGINES = ["polars", "duckdb", pytest.param("spark", marks=pytest.mark.slow)]


def counted(engine: str, df: pl.DataFrame, request: pytest.FixtureRequest,
            **args: Any) -> polars_fair.FairCounts:
    """``polars_fair.counts`` of ``df``'s rows in one engine (Spark and DuckDB via Arrow)."""
    frame: Any = df
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        frame = duckdb.connect().from_arrow(df.to_arrow())
    elif engine == "spark":
        frame = request.getfixturevalue("spark").createDataFrame(df.to_arrow())
    return polars_fair.counts(frame, "g", **args)


# ----------------------------------------------------------------------------- kind 1
# A: TP 30, FP 30, FN 20, TN 20 (n 100): selection rate 60/100 = 3/5, B = (30 - 20)/100 = 1/10
# B: TP 40, FP 35, FN 10, TN 15 (n 100): selection rate 75/100 = 3/4, B = (35 - 10)/100 = 1/4
# A's impact ratio (3/5)/(3/4) = 4/5 exactly (0.6/0.75 = 0.7999999999999999 in floats): it
# passes the four-fifths rule, which fails only below 4/5. The reference ("largest": both have
# 100 rows, the first in key order) is A, so B's DI = (3/4)/(3/5) = 5/4 exactly, at the upper
# bound 1/0.8 = 1.25, which passes too; B's OFI = 1/4 - 1/10 = 3/20 = 0.15 <= 0.3.
AB: dict[str, Cells] = {"A": (30, 30, 20, 20), "B": (40, 35, 10, 15)}


def test_impact_ratio_of_exactly_four_fifths_passes_in_report(run: Runner) -> None:
    rep = by_group(run(rows(AB), "report", "g"))
    a, b = rep["A"], rep["B"]
    assert (a["is_reference"], b["is_reference"]) == (True, False)
    assert a["impact_ratio"] == 0.8 and a["adverse_impact"] is False
    assert b["impact_ratio"] == 1.0 and b["adverse_impact"] is False
    assert b["disparate_impact"] == 1.25  # 5/4: at 1/four_fifths, not above it
    assert b["ofi"] == 0.15 and b["ofi_flag"] is False
    assert (a["finding"], b["finding"]) == ("none", "none")


def test_impact_ratio_of_exactly_four_fifths_passes_in_summary(run: Runner) -> None:
    s = by_metric(run(rows(AB), "summary", "g"))
    assert (s["min_impact_ratio"]["value"], s["min_impact_ratio"]["verdict"]) == (0.8, "pass")
    assert (s["min_impact_ratio"]["group_1"], s["min_impact_ratio"]["group_2"]) == ("B", "A")
    assert s["demographic_parity_ratio"]["value"] == 0.8  # the same 4/5, the same rounding
    # B - A = 1/4 - 1/10 = 3/20
    assert (s["max_abs_ofi"]["value"], s["max_abs_ofi"]["verdict"]) == (0.15, "pass")


@pytest.mark.parametrize("engine", ENGINES)
def test_four_fifths_example_is_the_same_on_every_engine(
        engine: str, request: pytest.FixtureRequest) -> None:
    fc = counted(engine, rows(AB), request)
    rep = by_group(fc.report().collect())
    assert rep["A"]["impact_ratio"] == 0.8 and rep["A"]["adverse_impact"] is False
    s = by_metric(fc.summary().collect())
    assert s["min_impact_ratio"]["verdict"] == "pass"
    assert verdict(gate(fc)) is True


def test_impact_ratio_of_exactly_four_fifths_passes_the_gate_and_the_cli(tmp_path: Path) -> None:
    g = gate(polars_fair.from_counts(table(AB)))
    ir = g.filter(pl.col("metric") == "impact_ratio")
    assert ir["value"].to_list() == [0.8, 1.0] and ir["passed"].to_list() == [True, True]
    assert verdict(g) is True
    path = tmp_path / "ab.csv"
    rows(AB).write_csv(path)
    result = CliRunner().invoke(app, ["check", str(path), "--by", "g", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["passed"] is True


def test_weighted_impact_ratio_at_four_fifths_is_within_the_tolerance() -> None:
    # weighted sums 0.6 of 1.0 and 0.75 of 1.0: 0.6/0.75 = 0.7999999999999999 in floats, which
    # lies within rules.WEIGHTED_TOLERANCE of 4/5, so it is at the threshold and passes
    w = pl.DataFrame({"g": ["A", "B"], "n": [10, 10], "tp": [0.6, 0.75], "fp": [0.0, 0.0],
                      "fn": [0.0, 0.0], "tn": [0.4, 0.25], "weight_sum": [1.0, 1.0]})
    assert 0.6 / 0.75 < 0.8
    fc = polars_fair.from_counts(w)
    a = by_group(fc.report(min_support=1).collect())["A"]
    assert a["adverse_impact"] is False
    s = by_metric(fc.summary(min_support=1).collect())
    assert s["min_impact_ratio"]["verdict"] == "pass"
    # a real gap is not absorbed: 0.59/0.75 = 0.7867 fails
    w2 = w.with_columns(tp=pl.Series([0.59, 0.75]), tn=pl.Series([0.41, 0.25]))
    a2 = by_group(polars_fair.from_counts(w2).report(min_support=1).collect())["A"]
    assert a2["adverse_impact"] is True


def test_significance_at_alpha_uses_alpha_exactly() -> None:
    # 1 - 0.95 is 0.050000000000000044 in floats; alpha is 1/20, whose float is 0.05
    assert 1 - 0.95 == 0.050000000000000044
    assert R.alpha(R.exact(0.95)) == Fraction(1, 20)
    fc = polars_fair.from_counts(table(AB))
    for p, expected in ((0.05, True), (0.05000000000000001, False), (0.04999999999999999, True)):
        with mock.patch("polars_fair.core.stats.adjust_pvalues",
                        side_effect=lambda ps, method, p=p: np.where(np.isnan(ps), np.nan, p)):
            d = by_group(fc.disparity(reference="A").collect())
        assert d["B"]["p_value_adjusted"] == p
        assert d["B"]["significant"] is expected, p
        assert d["A"]["significant"] is None  # the reference has no test


# ----------------------------------------------------------------------------- kind 2
# g=[a,a,b,b], y_true=[0,0,1,0], y_pred=[1,0,1,0]
# a: (0,1) FP, (0,0) TN -> TP 0, FP 1, FN 0, TN 1: TPR 0/0 undefined, FPR 1/2, selection 1/2,
#    PPV 0/1 = 0, accuracy 1/2, B = (1 - 0)/2 = 1/2
# b: (1,1) TP, (0,0) TN -> TP 1, FP 0, FN 0, TN 1: TPR 1/1 = 1, FPR 0/1 = 0, selection 1/2,
#    PPV 1, accuracy 1, B = 0
UNDEFINED_TPR = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [0, 0, 1, 0],
                              "y_pred": [1, 0, 1, 0]})


def test_undefined_tpr_makes_equal_opportunity_null_not_a_gap_of_b_with_itself(
        run: Runner) -> None:
    s = by_metric(run(UNDEFINED_TPR, "summary", "g", min_support=1))
    eo = s["equal_opportunity_difference"]
    # only b has a TPR: no gap (this was 0.0 between b and b)
    assert (eo["value"], eo["group_1"], eo["group_2"]) == (None, None, None)
    assert eo["undefined_groups"] == ["a"]
    # the FPR gap 1/2 - 0 alone does not stand for equalized odds (this was 0.5)
    eod = s["equalized_odds_difference"]
    assert (eod["value"], eod["undefined_groups"]) == (None, ["a"])
    assert s["equalized_odds_ratio"]["value"] is None
    # defined rates are compared between two different groups, also when they tie (1/2, 1/2)
    dp = s["demographic_parity_difference"]
    assert (dp["value"], dp["group_1"], dp["group_2"]) == (0.0, "a", "b")
    assert (s["accuracy_difference"]["value"], s["accuracy_difference"]["group_1"]) == (0.5, "b")
    assert (s["predictive_parity_difference"]["value"]) == 1.0
    # |1/2 - 0| = 1/2 > 0.3: a defined value with no undefined group keeps its verdict
    assert (s["max_abs_ofi"]["value"], s["max_abs_ofi"]["verdict"]) == (0.5, "fail")
    assert s["min_impact_ratio"]["verdict"] == "pass"  # (1/2)/(1/2) = 1


def test_undefined_tpr_pairwise_and_summary_agree(run: Runner) -> None:
    pairs = run(UNDEFINED_TPR, "pairwise", "g",
                metrics=["tpr_difference", "fpr_difference", "selection_rate_difference"])
    assert pairs["tpr_difference"].to_list() == [None, None]
    assert pairs["fpr_difference"].to_list() == [0.5, -0.5]
    s = by_metric(run(UNDEFINED_TPR, "summary", "g", min_support=1))
    assert s["equal_opportunity_difference"]["value"] is None  # no defined pair
    assert s["demographic_parity_difference"]["value"] == max(pairs["selection_rate_difference"])


def test_a_rule_with_an_undefined_group_is_undefined() -> None:
    # a has no rows' weight (weight_sum 0): its selection rate and B are 0/0; b and c are defined
    w = pl.DataFrame({"g": ["a", "b", "c"], "n": [3, 40, 40], "tp": [0.0, 20.0, 10.0],
                      "fp": [0.0, 0.0, 0.0], "fn": [0.0, 0.0, 0.0], "tn": [0.0, 20.0, 30.0],
                      "weight_sum": [0.0, 40.0, 40.0]})
    s = by_metric(polars_fair.from_counts(w).summary().collect())
    mir = s["min_impact_ratio"]
    # over the defined b (1/2) and c (1/4): 1/4 / 1/2 = 1/2, with a left out and listed
    assert (mir["value"], mir["group_1"], mir["group_2"]) == (0.5, "b", "c")
    assert (mir["undefined_groups"], mir["verdict"]) == (["a"], "undefined")


def test_reference_row_of_disparity_has_no_interval_against_itself(run: Runner) -> None:
    d = by_group(run(rows(AB), "disparity", "g", reference="A"))
    a = d["A"]
    assert a["is_reference"] is True
    assert (a["difference"], a["ratio"]) == (0.0, 1.0)  # the group against itself
    for c in ("difference_ci_low", "difference_ci_high", "ratio_ci_low", "ratio_ci_high",
              "p_value", "p_value_adjusted", "significant"):
        assert a[c] is None, c
    assert d["B"]["difference_ci_low"] is not None


def test_is_reference_is_false_not_null_when_no_group_can_be_the_reference(run: Runner) -> None:
    # every group has fewer than min_support rows and low-support groups may not be chosen
    df = rows({"a": (1, 0, 0, 1), "b": (0, 1, 1, 0)})
    rep = run(df, "report", "g", min_support=10, exclude_low_support=True)
    assert rep["is_reference"].to_list() == [False, False]
    assert rep["disparate_impact"].to_list() == [None, None]
    # the only group is the missing one (a null key is never a benchmark)
    nulls = df.with_columns(g=pl.lit(None, dtype=pl.String))
    d = run(nulls, "disparity", "g")
    assert d["is_reference"].to_list() == [False]


# ----------------------------------------------------------------------------- kind 3
# g=[S,T,T,T,T,T], y_true=[1,1,0,1,0,0], y_pred=[1,1,0,0,1,0]
# S: (1,1) TP -> n 1, TP 1: selection 1, B = 0
# T: (1,1) TP, (0,0) TN, (1,0) FN, (0,1) FP, (0,0) TN -> n 5, TP 1, FP 1, FN 1, TN 2:
#    selection 2/5, B = (1 - 1)/5 = 0
SMALL_S = pl.DataFrame({"g": ["S", "T", "T", "T", "T", "T"], "y_true": [1, 1, 0, 1, 0, 0],
                        "y_pred": [1, 1, 0, 0, 1, 0]})


def test_a_one_row_group_is_not_the_reference_when_low_support_is_excluded(run: Runner) -> None:
    rep = by_group(run(SMALL_S, "report", "g", reference="max_selection_rate", min_support=2,
                       exclude_low_support=True))
    s, t = rep["S"], rep["T"]
    # S (1 row < 2) may not be chosen: the highest eligible selection rate is T's 2/5
    assert (s["is_reference"], t["is_reference"]) == (False, True)
    assert (t["n"], t["tp"], t["fp"], t["fn"], t["tn"]) == (5, 1, 1, 1, 2)
    assert t["selection_rate"] == 0.4
    # T against itself: DI 1, impact ratio 1 (T is also the highest supported rate), OFI 0
    assert (t["disparate_impact"], t["impact_ratio"], t["ofi"]) == (1.0, 1.0, 0.0)
    assert (t["adverse_impact"], t["ofi_flag"], t["low_support"]) == (False, False, False)
    assert (t["reference_low_support"], t["finding"]) == (False, "none")
    # S against T: DI = IR = 1/(2/5) = 5/2; its own support is too low for a finding
    assert (s["disparate_impact"], s["impact_ratio"], s["ofi"]) == (2.5, 2.5, 0.0)
    assert (s["low_support"], s["finding"]) == (True, "insufficient support")


def test_a_comparison_with_a_one_row_benchmark_is_insufficient_support(run: Runner) -> None:
    # a rule never makes the 1-row S the benchmark while T (5 rows >= min_support 2) can be
    # (issue 20; before, max_selection_rate chose S): T is the reference and the maximum
    rep = by_group(run(SMALL_S, "report", "g", reference="max_selection_rate", min_support=2))
    assert (rep["T"]["is_reference"], rep["T"]["impact_ratio"]) == (True, 1.0)
    assert (rep["T"]["reference_low_support"], rep["T"]["finding"]) == (False, "none")
    # S named explicitly is taken as given: T's DI = (2/5)/1 = 0.4 fails the four-fifths rule,
    # but only against a 1-row group; its impact ratio is against itself, the supported maximum
    rep = by_group(run(SMALL_S, "report", "g", reference="S", min_support=2))
    t = rep["T"]
    assert (rep["S"]["is_reference"], t["disparate_impact"], t["impact_ratio"]) == (True, 0.4, 1.0)
    assert (t["low_support"], t["reference_low_support"]) == (False, True)
    assert t["finding"] == "insufficient support"  # it was "systemic"


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_summary_never_takes_a_low_support_group_as_reference_or_maximum(engine: str) -> None:
    # (the run fixture's own "method" argument would clash with summary's method=)
    def run(df: pl.DataFrame, name: str, by: str, **kw: Any) -> pl.DataFrame:
        out: pl.DataFrame = getattr(polars_fair.fair(df.lazy()), name)(by, **kw).collect(
            engine=engine)
        return out

    kw: dict[str, Any] = {"min_support": 2, "method": "to_reference",
                          "reference": "max_selection_rate"}
    s = by_metric(run(SMALL_S, "summary", "g", exclude_low_support=True, **kw))
    # S is excluded: T is the reference and the only group left, so nothing is compared
    assert s["demographic_parity_difference"]["excluded_groups"] == ["S"]
    assert all(r["value"] is None and r["verdict"] is None for r in s.values())
    # without the exclusion the rule still prefers the supported T as the reference (issue 20;
    # before, the 1-row S was): |1 - 2/5| = 3/5 between S and T, resting on S
    s = by_metric(run(SMALL_S, "summary", "g", **kw))
    dp = s["demographic_parity_difference"]
    assert (dp["value"], dp["group_1"], dp["group_2"], dp["low_support"]) == (0.6, "S", "T", True)
    # OFI: B_S = (0 - 0)/1 = 0, B_T = (1 - 1)/5 = 0: |0 - 0| = 0 passes 0.3 against T
    assert (s["max_abs_ofi"]["value"], s["max_abs_ofi"]["verdict"]) == (0.0, "pass")
    # between groups (always): 2/5 / 1 = 0.4 fails, resting on S; T alone is no comparison
    mir = s["min_impact_ratio"]
    assert (mir["value"], mir["group_1"], mir["low_support"]) == (0.4, "S", True)
    assert mir["verdict"] == "insufficient support"


def test_a_failure_among_supported_groups_is_not_hidden_by_a_small_one() -> None:
    # a 40 rows, 20 selected (1/2); b 40 rows, 10 selected (1/4); c 5 rows, 0 selected.
    # min_impact_ratio = 0/(1/2) = 0, resting on c (5 < 30); over a and b alone it is
    # (1/4)/(1/2) = 1/2 < 0.8, so the failure stands
    t = table({"a": (20, 0, 0, 20), "b": (10, 0, 0, 30), "c": (0, 0, 0, 5)})
    mir = by_metric(polars_fair.from_counts(t).summary().collect())["min_impact_ratio"]
    assert (mir["value"], mir["group_2"], mir["low_support"], mir["verdict"]) == (
        0.0, "c", True, "fail")
    # b at 17/40: (17/40)/(1/2) = 17/20 passes over a and b: only c fails, "insufficient"
    t2 = table({"a": (20, 0, 0, 20), "b": (17, 0, 0, 23), "c": (0, 0, 0, 5)})
    mir = by_metric(polars_fair.from_counts(t2).summary().collect())["min_impact_ratio"]
    assert mir["verdict"] == "insufficient support"


# ----------------------------------------------------------------------------- kind 6
NAN = float("nan")


def out_of_range(name: str, interval: str, value: Any) -> str:
    return E.OPTION_OUT_OF_RANGE.format(name=name, interval=interval, value=value)


def test_nan_options_raise_naming_the_option() -> None:
    fc = polars_fair.from_counts(table(AB))
    cases: list[tuple[Any, str]] = [
        (lambda: fc.report(min_support=NAN), out_of_range("min_support", "[0, inf)", NAN)),
        (lambda: fc.report(four_fifths=NAN), out_of_range("four_fifths", "(0, 1]", NAN)),
        (lambda: fc.summary(ofi_threshold=NAN), out_of_range("ofi_threshold", "[0, 2]", NAN)),
        (lambda: fc.summary(min_support=math.inf),
         out_of_range("min_support", "[0, inf)", math.inf)),
        (lambda: fc.metrics(min_support=NAN), out_of_range("min_support", "[0, inf)", NAN)),
        (lambda: fc.metrics(level=NAN), out_of_range("level", "(0, 1)", NAN)),
        (lambda: fc.disparity(level=1.0), out_of_range("level", "(0, 1)", 1.0)),
        (lambda: fc.bias_audit(min_share=NAN), out_of_range("min_share", "[0, 1]", NAN)),
        (lambda: gate(fc, min_impact_ratio=NAN),
         out_of_range("min_impact_ratio", "[0, 1]", NAN)),
        (lambda: gate(fc, min_support=NAN), out_of_range("min_support", "[0, inf)", NAN)),
        (lambda: fc.summary(four_fifths="0.8"),  # type: ignore[arg-type]
         E.OPTION_NOT_A_NUMBER.format(name="four_fifths", value="0.8", type="str")),
        (lambda: fc.report(min_support=True),
         E.OPTION_NOT_A_NUMBER.format(name="min_support", value=True, type="bool")),
    ]
    for call, message in cases:
        with pytest.raises(E.InvalidArgumentError) as info:
            call()
        assert str(info.value) == message


def test_numpy_scalar_options_are_accepted() -> None:
    # (numpy scalars are not floats to a type checker; the options accept them at run time)
    fc: Any = polars_fair.from_counts(table(AB))
    gate_: Any = gate
    plain = fc.report().collect()
    assert plain.equals(fc.report(min_support=np.int64(30), four_fifths=np.float64(0.8),
                                  ofi_threshold=np.float32(0.3)).collect())
    assert fc.summary().collect().equals(
        fc.summary(min_support=np.int64(30), four_fifths=np.float64(0.8)).collect())
    assert fc.metrics().collect().equals(
        fc.metrics(min_support=np.int32(30), level=np.float64(0.95)).collect())
    assert fc.disparity().collect().equals(fc.disparity(level=np.float64(0.95)).collect())
    assert fc.bias_audit().collect().equals(fc.bias_audit(min_share=np.float64(0.02)).collect())
    assert gate_(fc).equals(gate_(fc, min_impact_ratio=np.float64(0.8),
                                  min_support=np.int64(30)))


# ----------------------------------------------------------------------------- boundaries
def lowest_terms(k: int, d: int) -> tuple[int, int]:
    f = Fraction(k, d)
    return f.numerator, f.denominator


@SETTINGS
@given(k=st.integers(1, 1000), n_max=st.integers(1, 40), s=st.integers(1, 40),
       m=st.integers(1, 3))
def test_an_impact_ratio_or_di_exactly_at_the_threshold_passes_and_just_below_fails(
        k: int, n_max: int, s: int, m: int) -> None:
    """four_fifths = k/1000; "lo" selects exactly four_fifths × "hi"'s rate (boundary: pass).

    hi: s_max of n_max selected; lo: k·s_max·m of 1000·n_max·m. OFI is 0 (no FP, no FN), so the
    finding is the four-fifths rule alone: report's adverse_impact and DI (both bounds),
    summary's min_impact_ratio and the gate's impact ratio, at and one selection below.
    """
    assume(s <= n_max)
    t = k / 1000
    assert R.exact(t) == Fraction(k, 1000)  # the threshold as the decimal written
    a, b = lowest_terms(k, 1000)
    n_lo, s_lo = b * n_max * m, a * s * m  # s_lo/n_lo = (a/b)(s/n_max)
    for shift, at in ((0, True), (1, False)):
        sel = s_lo - shift
        cells = {"hi": (s, 0, 0, n_max - s), "lo": (sel, 0, 0, n_lo - sel)}
        fc = polars_fair.from_counts(table(cells))
        rep = by_group(fc.report(four_fifths=t, min_support=0, reference="hi").collect())
        assert rep["lo"]["adverse_impact"] is (not at)
        # DI of lo against hi = the impact ratio: the lower bound
        assert rep["lo"]["finding"] == ("none" if at else "systemic")
        # DI of hi against lo = 1/t at the boundary: the upper bound 1/four_fifths passes;
        # one selection less puts it above 1/t; when lo selects nobody DI is infinite (shown
        # null), above 1/t too: hi's selections against a reference that selects nobody
        rev = by_group(fc.report(four_fifths=t, min_support=0, reference="lo").collect())
        assert rev["hi"]["finding"] == ("none" if at else "systemic")
        s_row = by_metric(fc.summary(four_fifths=t, min_support=0).collect())
        assert s_row["min_impact_ratio"]["verdict"] == ("pass" if at else "fail")
        if at:
            assert s_row["min_impact_ratio"]["value"] == float(Fraction(k, 1000))
        assert verdict(gate(fc, min_impact_ratio=t, max_abs_ofi=2, min_support=0)) is at


@SETTINGS
@given(k=st.integers(0, 200), m=st.integers(1, 4), negative=st.booleans())
def test_an_ofi_exactly_at_the_threshold_passes_and_one_error_more_fails(
        k: int, m: int, negative: bool) -> None:
    """ofi_threshold = k/100; OFI(x vs r) = k/100 exactly (boundary: pass).

    Both groups have n = 100·m rows. For k <= 100: r has B = 0, x has k·m false positives
    (or false negatives: B = -k/100). For k > 100: r has B = -1 (all rows false negatives) and
    x has (k - 100)·m false positives (B = (k - 100)/100). One more error of the same kind
    moves |OFI| past the threshold: report's ofi_flag, summary's max_abs_ofi, the gate's OFI.
    """
    n = 100 * m
    assume(not (negative and k > 100))
    t = k / 100
    for extra, at in ((0, True), (1, False)):
        if k <= 100:
            errors = k * m + extra
            ref: Cells = (m, 0, 0, n - m)  # selects m rows, B = 0
            x: Cells = (0, 0, errors, n - errors) if negative else (0, errors, 0, n - errors)
        else:
            errors = (k - 100) * m + extra
            ref, x = (0, 0, n, 0), (0, errors, 0, n - errors)
        if errors > n:  # |OFI| = 1 (or 2) already: no error more to make
            continue
        fc = polars_fair.from_counts(table({"r": ref, "x": x}))
        rep = by_group(fc.report(ofi_threshold=t, min_support=0, reference="r").collect())
        if at:
            assert abs(rep["x"]["ofi"]) == float(Fraction(k, 100))
        assert rep["x"]["ofi_flag"] is (not at)
        assert rep["x"]["finding"] != "algorithmic" if at else rep["x"]["finding"] == "algorithmic"
        s_row = by_metric(fc.summary(ofi_threshold=t, min_support=0).collect())
        assert s_row["max_abs_ofi"]["verdict"] == ("pass" if at else "fail")
        g = gate(fc, reference="r", max_abs_ofi=t, min_impact_ratio=0, min_support=0)
        assert g.filter(pl.col("metric") == "ofi")["passed"].to_list() == [True, at]


@SETTINGS
@given(k=st.integers(11, 600))
def test_a_group_of_exactly_min_support_rows_is_supported_and_one_row_less_is_not(k: int) -> None:
    """min_support = k/10 (29.5, 30, ...): ceil(k/10) rows are supported, one row less is not,
    in report's low_support, metrics' low_support (selection rate: the denominator is n),
    summary's exclusion and the gate's checked."""
    t = k / 10
    at = math.ceil(Fraction(k, 10))
    cells = {"at": (at, 0, 0, 0), "below": (at - 1, 0, 0, 0), "big": (70, 0, 0, 0)}
    fc = polars_fair.from_counts(table(cells))
    rep = by_group(fc.report(min_support=t).collect())
    assert (rep["at"]["low_support"], rep["below"]["low_support"]) == (False, True)
    met = by_group(fc.metrics(min_support=t).collect().filter(
        pl.col("metric") == "selection_rate"))
    assert (met["at"]["low_support"], met["below"]["low_support"]) == (False, True)
    excluded = fc.summary(min_support=t, exclude_low_support=True).collect()["excluded_groups"]
    assert excluded[0].to_list() == ["below"]
    checked = by_group(gate(fc, min_support=t).filter(pl.col("metric") == "impact_ratio"))
    assert (checked["at"]["checked"], checked["below"]["checked"]) == (True, False)


@SETTINGS
@given(k=st.integers(1, 999), m=st.integers(1, 3))
def test_a_category_of_exactly_min_share_is_not_small_and_one_applicant_less_is(
        k: int, m: int) -> None:
    """min_share = k/1000: "c" has k·m of 1000·m applicants (share exactly k/1000: not small);
    with one applicant less, (k·m - 1)/(1000·m - 1) < k/1000: small (LL 144's 2% rule)."""
    t = k / 1000
    rest = (1000 - k) * m
    for shift, at in ((0, True), (1, False)):
        mine = k * m - shift
        if mine == 0:  # a category without applicants is not reported
            continue
        cells = {"c": (mine, 0, 0, 0), "rest": (rest, 0, 0, 0)}
        audit = by_group(bias_audit_from_counts(table(cells).lazy(), ["g"],
                                                min_share=t).collect())
        assert audit["c"]["small_category"] is (not at)
        # the other category is small exactly when its own share is below k/1000
        assert audit["rest"]["small_category"] is (Fraction(rest, rest + mine) < Fraction(k, 1000))


@SETTINGS
@given(k=st.integers(1, 999))
def test_a_p_value_exactly_at_alpha_is_significant_and_the_next_float_is_not(k: int) -> None:
    """level = k/1000, alpha = 1 - k/1000 exactly; the adjusted p-value is replaced by alpha's
    float (and by the next float up): significant iff p <= alpha (rules.float_at_most)."""
    alpha = 1 - Fraction(k, 1000)
    fc = polars_fair.from_counts(table(AB))
    at_alpha = float(alpha)
    for p, expected in ((at_alpha, True), (float(np.nextafter(at_alpha, 2.0)), False)):
        with mock.patch("polars_fair.core.stats.adjust_pvalues",
                        side_effect=lambda ps, method, p=p: np.where(np.isnan(ps), np.nan, p)):
            d = by_group(fc.disparity(reference="A", level=k / 1000).collect())
        assert d["B"]["significant"] is expected


# ----------------------------------------------------------------------------- agreement
@st.composite
def count_tables(draw: st.DrawFn) -> pl.DataFrame:
    """2-4 groups, each with rows, cells 0-4 (so rates are often undefined or tied)."""
    k = draw(st.integers(2, 4))
    cells: dict[str, Cells] = {}
    for g in "pqrs"[:k]:
        c = tuple(draw(st.integers(0, 4)) for _ in range(4))
        cells[g] = (c[0], c[1], c[2], c[3] + (sum(c) == 0))
    if k >= 3 and all(sum(c) == 1 for c in cells.values()):  # 3+ groups of one row each are
        tp, fp, fn, tn = cells["p"]  # refused at any size (issue 20): one group gets a 2nd row
        cells["p"] = (tp, fp, fn, tn + 1)
    return table(cells)


PAIR = {"demographic_parity_difference": "selection_rate", "equal_opportunity_difference": "tpr",
        "predictive_parity_difference": "ppv", "accuracy_difference": "accuracy",
        "max_abs_ofi": "marginal_benefit"}


@SETTINGS
@given(count_tables())
def test_summary_between_groups_is_the_extreme_of_the_defined_pairwise_values(
        t: pl.DataFrame) -> None:
    fc = polars_fair.from_counts(t)
    s = by_metric(fc.summary(min_support=0).collect())
    rates = [*PAIR.values(), "fpr"]
    pairs = fc.pairwise(metrics=[f"{r}_difference" for r in rates]
                        + ["selection_rate_ratio"]).collect()

    def largest(col: str) -> float | None:
        values = pairs[col].drop_nulls()
        return None if values.is_empty() else float(values.max())  # type: ignore[arg-type]

    for metric, rate in PAIR.items():
        row, want = s[metric], largest(f"{rate}_difference")
        assert (row["value"] is None) == (want is None), metric
        if want is not None:
            assert row["value"] == pytest.approx(want, abs=1e-12)
            # the named pair is a pair of pairwise with that difference
            named = pairs.filter((pl.col("g_i") == row["group_1"])
                                 & (pl.col("g_j") == row["group_2"]))
            assert named[f"{rate}_difference"].item() == pytest.approx(want, abs=1e-12)
        # the groups left out are those whose rate pairwise leaves null against every group
        null_everywhere = pairs.group_by("g_i").agg(pl.col(f"{rate}_difference").is_null().all())
        left_out = sorted(null_everywhere.filter(pl.col(f"{rate}_difference"))["g_i"].to_list())
        if want is not None:
            assert row["undefined_groups"] == left_out
    tpr, fpr = largest("tpr_difference"), largest("fpr_difference")
    eod = s["equalized_odds_difference"]["value"]
    assert eod == (None if tpr is None or fpr is None else pytest.approx(max(tpr, fpr)))
    smallest = pairs["selection_rate_ratio"].drop_nulls()
    mir = s["min_impact_ratio"]["value"]
    assert mir == (None if smallest.is_empty() else pytest.approx(smallest.min()))
