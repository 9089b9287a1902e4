"""Choosing a threshold (issue 12, item 2): sweep's report columns and the thresholds analysis.

Oracles: a hand-worked example (the fractions are written out below), ``report(y_score=,
threshold=t)`` run once per threshold (the analysis' definition: every verdict is report's), and
numpy on the rows for the overall accuracy, TPR and selection rate.
"""

from __future__ import annotations

import inspect
from fractions import Fraction
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.sweep import SWEEP_THRESHOLDS
from polars_fair.analyses.thresholds import THRESHOLD_GRID
from polars_fair.api.objects import FairScores
from polars_fair.audit.plot import MISSING_GROUP, group_label
from tests.conftest import ADULT_SCORED_CSV, Runner, one_row_groups, require

COLUMNS = ["threshold", "n", "selection_rate", "tpr", "accuracy", "n_groups", "n_supported",
           "n_failing", "min_impact_ratio", "worst_group", "worst_group_keys", "max_abs_ofi",
           "n_ofi_flagged", "all_pass"]
REPORT_COLUMNS = ["is_reference", "disparate_impact", "impact_ratio", "adverse_impact", "ofi",
                  "ofi_flag", "low_support", "reference_low_support", "finding"]

# a: 6 rows, b: 4 rows; (label, score)
HAND = pl.DataFrame({
    "g": ["a"] * 6 + ["b"] * 4,
    "y_true": [1, 1, 0, 1, 0, 0, 1, 0, 1, 0],
    "y_score": [0.9, 0.7, 0.6, 0.4, 0.3, 0.1, 0.8, 0.5, 0.35, 0.2],
})


def f(num: int, den: int) -> float:
    """The float nearest the fraction (how the report shows exact ratios)."""
    return float(Fraction(num, den))


# ---------------------------------------------------------------------------------------------
# hand-worked example
# ---------------------------------------------------------------------------------------------
def test_thresholds_of_the_hand_example(run: Runner) -> None:
    # t = 0.3:  a selects 0.9 0.7 0.6 0.4 0.3 -> tp 3 fp 2 fn 0 tn 1, rate 5/6, B = 2/6
    #           b selects 0.8 0.5 0.35        -> tp 2 fp 1 fn 0 tn 1, rate 3/4, B = 1/4
    #           impact ratio b = (3/4)/(5/6) = 9/10, OFI b = 1/4 - 1/3 = -1/12 (a = reference)
    #           overall tp 5 fp 3 fn 0 tn 2: accuracy 7/10, tpr 1, selection 8/10
    # t = 0.55: a: 0.9 0.7 0.6 -> tp 2 fp 1 fn 1 tn 2, rate 1/2, B = 0
    #           b: 0.8         -> tp 1 fp 0 fn 1 tn 2, rate 1/4, B = -1/4
    #           impact ratio b = 1/2 (adverse), OFI b = -1/4
    #           overall tp 3 fp 1 fn 2 tn 4: accuracy 7/10, tpr 3/5, selection 4/10
    # t = 0.75: a: 0.9 -> tp 1 fp 0 fn 2 tn 3, rate 1/6, B = -2/6
    #           b: 0.8 -> tp 1 fp 0 fn 1 tn 2, rate 1/4, B = -1/4
    #           highest rate is b's: impact ratio a = (1/6)/(1/4) = 2/3 (adverse), OFI b = 1/12
    #           overall tp 2 fp 0 fn 3 tn 5: accuracy 7/10, tpr 2/5, selection 2/10
    out = run(HAND, "thresholds", "g", thresholds=[0.75, 0.3, 0.55], min_support=1)
    assert out.columns == COLUMNS
    assert out["threshold"].to_list() == [0.3, 0.55, 0.75]
    assert out["n"].to_list() == [10, 10, 10]
    assert out["selection_rate"].to_list() == [0.8, 0.4, 0.2]
    assert out["tpr"].to_list() == [1.0, 0.6, 0.4]
    assert out["accuracy"].to_list() == [0.7, 0.7, 0.7]
    assert out["n_groups"].to_list() == [2, 2, 2]
    assert out["n_supported"].to_list() == [2, 2, 2]
    assert out["n_failing"].to_list() == [0, 1, 1]
    assert out["min_impact_ratio"].to_list() == [f(9, 10), f(1, 2), f(2, 3)]
    assert out["worst_group"].to_list() == ["b", "b", "a"]
    assert out["max_abs_ofi"].to_list() == [f(1, 12), f(1, 4), f(1, 12)]
    assert out["n_ofi_flagged"].to_list() == [0, 0, 0]  # every |OFI| <= 0.3
    assert out["all_pass"].to_list() == [True, False, False]
    assert out.schema["all_pass"] == pl.Boolean and out.schema["n_failing"] == pl.Int64


def test_ofi_threshold_counts_the_flagged_groups(run: Runner) -> None:
    # b's OFI is -1/12, -1/4, 1/12 at the three thresholds (above): only |-1/4| > 0.2
    out = run(HAND, "thresholds", "g", thresholds=[0.3, 0.55, 0.75], min_support=1,
              ofi_threshold=0.2)
    assert out["n_ofi_flagged"].to_list() == [0, 1, 0]
    at_quarter = run(HAND, "thresholds", "g", thresholds=[0.55], min_support=1,
                     ofi_threshold=0.25)  # |OFI| = 1/4 exactly is not above 0.25
    assert at_quarter["n_ofi_flagged"].to_list() == [0]


def test_sweep_has_the_report_columns_of_the_hand_example(run: Runner) -> None:
    out = run(HAND, "sweep", "g", thresholds=[0.75], min_support=1)
    assert out.columns[:2] == ["g", "threshold"] and out.columns[-9:] == REPORT_COLUMNS
    a, b = out.rows(named=True)
    # a is the reference (6 rows > 4); b's rate 1/4 is the highest
    assert (a["is_reference"], b["is_reference"]) == (True, False)
    assert (a["impact_ratio"], b["impact_ratio"]) == (f(2, 3), 1.0)
    assert (a["adverse_impact"], b["adverse_impact"]) == (True, False)
    assert (a["disparate_impact"], b["disparate_impact"]) == (1.0, 1.5)
    assert (a["ofi"], b["ofi"]) == (0.0, f(1, 12))
    assert (a["ofi_flag"], b["ofi_flag"]) == (False, False)
    # a fails the four-fifths rule, b's DI 3/2 > 5/4: both systemic (OFI within 0.3)
    assert (a["finding"], b["finding"]) == ("systemic", "systemic")


def test_a_low_support_group_never_sets_the_bar(run: Runner) -> None:
    # min_support=5: b (4 rows) is low-support. At 0.75 the highest supported rate is a's own,
    # so a's impact ratio is 1, with or without exclude_low_support (issue 20: before, b's
    # rate set the bar without the exclusion and a read 2/3).
    kept = run(HAND, "thresholds", "g", thresholds=[0.75], min_support=5)
    assert kept.select("n_groups", "n_supported", "n_failing", "min_impact_ratio",
                       "worst_group", "all_pass").row(0) == (2, 1, 0, 1.0, "a", True)
    # with min_support=100 no group is supported: the rule falls back to all, b sets the bar
    small = run(HAND, "thresholds", "g", thresholds=[0.75], min_support=100)
    assert small.select("n_supported", "min_impact_ratio").row(0) == (0, None)
    excluded = run(HAND, "thresholds", "g", thresholds=[0.75], min_support=5,
                   exclude_low_support=True)
    assert excluded.select("n_failing", "min_impact_ratio", "worst_group",
                           "all_pass").row(0) == (0, 1.0, "a", True)


def test_an_impact_ratio_of_exactly_four_fifths_passes(run: Runner) -> None:
    # a selects 3 of 4, b 3 of 5: (3/5)/(3/4) = 4/5 exactly (0.6 / 0.75 is 0.7999999999999999
    # in floating point): the four-fifths rule passes at the threshold, fails at 0.81.
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 5, "y_true": [1, 0] * 4 + [1],
                       "y_score": [0.9, 0.9, 0.9, 0.1, 0.9, 0.9, 0.9, 0.1, 0.1]})
    out = run(df, "thresholds", "g", thresholds=[0.5], min_support=1)
    assert out.select("min_impact_ratio", "n_failing", "all_pass").row(0) == (0.8, 0, True)
    strict = run(df, "thresholds", "g", thresholds=[0.5], min_support=1, four_fifths=0.81)
    assert strict.select("n_failing", "all_pass").row(0) == (1, False)


def test_nobody_selected_is_undefined_and_does_not_pass(run: Runner) -> None:
    out = run(HAND, "thresholds", "g", thresholds=[0.95], min_support=1)
    assert out.select("selection_rate", "tpr", "n_failing", "min_impact_ratio", "worst_group",
                      "all_pass").row(0) == (0.0, 0.0, 0, None, None, False)


def test_without_keys_the_population_is_the_one_group(run: Runner) -> None:
    out = run(HAND, "thresholds", None, thresholds=[0.5], min_support=1)
    assert out.select("n_groups", "min_impact_ratio", "worst_group", "all_pass").row(0) == (
        1, 1.0, "all", True)


def test_null_group_counts_in_the_population_and_as_a_group(run: Runner) -> None:
    df = HAND.with_columns(pl.when(pl.col("y_score") == 0.2).then(None).otherwise(pl.col("g"))
                           .alias("g"))
    out = run(df, "thresholds", "g", thresholds=[0.3], min_support=1)
    # the null group (one row, 0.2: not selected) has rate 0: impact ratio 0, the worst
    assert out.select("n", "n_groups", "n_failing", "worst_group", "all_pass").row(0) == (
        10, 3, 1, MISSING_GROUP, False)
    assert MISSING_GROUP == "(missing)"


def test_default_grid_is_every_hundredth() -> None:
    assert THRESHOLD_GRID == tuple(i / 100 for i in range(1, 100))
    assert repr(THRESHOLD_GRID) == "(0.01, 0.02, ..., 0.99)"
    out = HAND.fair.thresholds("g", min_support=1)
    assert out.height == 99 and out["threshold"].to_list() == list(THRESHOLD_GRID)


# ---------------------------------------------------------------------------------------------
# against a loop over report, on random frames
# ---------------------------------------------------------------------------------------------
def random_frame(seed: int, weighted: bool = False, float32: bool = False) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 60, size=rng.integers(2, 5))
    groups = np.repeat(np.array(["a", "b", "c", "d"][: len(sizes)], dtype=object), sizes)
    n = len(groups)
    groups[rng.random(n) < 0.05] = None  # some rows of a missing group
    score = rng.choice(np.round(np.linspace(0, 1, 21), 2), size=n)  # ties at the thresholds
    label = (rng.random(n) < 0.3 + 0.5 * score).astype(int)
    df = pl.DataFrame({"g": groups.tolist(), "h": rng.choice(["x", "y"], size=n),
                       "y_true": label, "s": score})
    if weighted:
        df = df.with_columns(w=pl.Series(rng.uniform(0.1, 3.0, size=n)))
    if float32:
        df = df.with_columns(pl.col("s").cast(pl.Float32))
    return df


def expected_by_loop(df: pl.DataFrame, keys: list[str], ts: list[float], weight: str | None,
                     **options: Any) -> pl.DataFrame:
    """One report per threshold, summarised; overall rates from numpy on the rows."""
    y = df["y_true"].to_numpy()
    s = df["s"].to_numpy()
    w = df[weight].to_numpy() if weight else np.ones(df.height)
    extra = {"sample_weight": weight} if weight else {}
    rows = []
    for t in ts:
        report = df.fair.report(keys, y_score="s", threshold=t, **extra, **options)
        sup = report.filter(~pl.col("low_support"))
        pred = s >= np.array(t, dtype=s.dtype)
        ir = [v for v in sup["impact_ratio"].to_list() if v is not None]
        labels = sup.select(group_label(keys))["group"].to_list() if keys \
            else ["all"] * sup.height  # the label the charts give a group
        worst, worst_keys = next(
            ((lab, k) for lab, k, v in zip(labels, sup.select(keys).rows(named=True),
                                           sup["impact_ratio"].to_list(), strict=True)
             if ir and v == min(ir)), (None, None))
        ofi = [abs(v) for v in sup["ofi"].to_list() if v is not None]
        adverse = sup["adverse_impact"].to_list()
        rows.append({
            "threshold": t, "n": df.height,
            "selection_rate": (w * pred).sum() / w.sum(),
            "tpr": (w * (pred & (y == 1))).sum() / (w * (y == 1)).sum() if (y == 1).any()
            else None,  # no positive label: undefined
            "accuracy": (w * (pred == (y == 1))).sum() / w.sum(),
            "n_groups": report.height, "n_supported": sup.height,
            "n_failing": sum(a is True for a in adverse),
            "min_impact_ratio": min(ir) if ir else None, "worst_group": worst,
            "worst_group_keys": worst_keys,
            "max_abs_ofi": max(ofi) if ofi else None,
            "n_ofi_flagged": sum(v is True for v in sup["ofi_flag"].to_list()),
            "all_pass": sup.height > 0 and all(a is False for a in adverse),
        })
    key_struct = pl.Struct({k: df.schema[k] for k in keys})
    out = pl.DataFrame(rows, schema={c: t for c, t in zip(COLUMNS, [
        pl.Float64, pl.Int64, pl.Float64, pl.Float64, pl.Float64, pl.Int64, pl.Int64, pl.Int64,
        pl.Float64, pl.String, key_struct, pl.Float64, pl.Int64, pl.Boolean], strict=True)})
    return out if keys else out.drop("worst_group_keys")  # no keys: no struct column


CASES = [
    (0, {}), (1, {"min_support": 10}), (2, {"exclude_low_support": True, "min_support": 15}),
    (3, {"reference": "max_selection_rate"}), (4, {"reference": "overall", "min_support": 5}),
    (5, {"four_fifths": 0.9, "ofi_threshold": 0.1}),
]


@pytest.mark.parametrize(("seed", "options"), CASES)
@pytest.mark.parametrize("keys", [["g"], ["g", "h"]])
def test_thresholds_equal_a_loop_over_report_on_random_frames(
        seed: int, options: dict[str, Any], keys: list[str]) -> None:
    df = random_frame(seed)
    ts = [0.0, 0.1, 0.25, 0.3, 0.5, 0.55, 0.7, 0.95, 1.0]
    got = df.fair.thresholds(keys, y_score="s", thresholds=ts, **options)
    want = expected_by_loop(df, keys, ts, None, **options)
    # the rates are the same fractions: equal to the last bit but for numpy's summation order
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=0)
    exact = [c for c in COLUMNS if c not in ("selection_rate", "tpr", "accuracy")]
    assert_frame_equal(got.select(exact), want.select(exact), check_exact=True)


@pytest.mark.parametrize("seed", [10, 11, 12])
def test_weighted_thresholds_equal_a_loop_over_report(seed: int) -> None:
    df = random_frame(seed, weighted=True)
    ts = [0.2, 0.5, 0.8]
    got = df.fair.thresholds(["g", "h"], y_score="s", sample_weight="w", thresholds=ts)
    want = expected_by_loop(df, ["g", "h"], ts, "w")
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize("seed", [20, 21])
def test_float32_scores_compare_in_float32_as_report(seed: int) -> None:
    df = random_frame(seed, float32=True)
    got = df.fair.thresholds("g", y_score="s", thresholds=[0.3, 0.7], min_support=5)
    ts = got["threshold"].to_list()  # the thresholds as a Float32 score compares them
    assert ts == [float(np.float32(0.3)), float(np.float32(0.7))]
    want = expected_by_loop(df, ["g"], ts, None, min_support=5)
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=0)


@pytest.mark.parametrize(("seed", "options"), CASES)
def test_sweep_columns_equal_report_at_each_threshold(seed: int, options: dict[str, Any]) -> None:
    df = random_frame(seed)
    ts = [0.0, 0.3, 0.55, 1.0]
    swept = df.fair.sweep(["g", "h"], y_score="s", thresholds=ts, **options)
    assert swept.select("g", "h", "threshold").equals(
        swept.select("g", "h", "threshold").sort("g", "h", "threshold", nulls_last=True))
    for t in ts:
        report = df.fair.report(["g", "h"], y_score="s", threshold=t, **options)
        assert_frame_equal(swept.filter(pl.col("threshold") == t).drop("threshold"), report,
                           check_exact=True)


def test_weighted_sweep_equals_report_at_each_threshold() -> None:
    df = random_frame(30, weighted=True)
    swept = df.fair.sweep("g", y_score="s", sample_weight="w", thresholds=[0.4, 0.6])
    for t in (0.4, 0.6):
        report = df.fair.report("g", y_score="s", threshold=t, sample_weight="w")
        part = swept.filter(pl.col("threshold") == t).drop("threshold")
        assert_frame_equal(part, report, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)
        assert part.select(REPORT_COLUMNS[-6:]).drop("ofi").equals(
            report.select(REPORT_COLUMNS[-6:]).drop("ofi"))  # the verdicts are identical


def test_without_labels_the_selection_and_verdicts_are_reports() -> None:
    df = random_frame(50).drop("y_true")
    swept = df.fair.sweep(["g", "h"], y_true=None, y_score="s", thresholds=[0.3, 0.6])
    for t in (0.3, 0.6):
        report = df.fair.report(["g", "h"], y_true=None, y_score="s", threshold=t)
        part = swept.filter(pl.col("threshold") == t)
        same = ["g", "h", "n", "selection_rate", *REPORT_COLUMNS]
        assert_frame_equal(part.select(same), report.select(same), check_exact=True)
        # the score table counts label-less rows as positives, the count table as negatives
        assert part["tp"].to_list() == report["fp"].to_list()


def test_lazy_and_streaming_equal_eager(run: Runner) -> None:
    df = random_frame(40)
    want = df.fair.thresholds(["g", "h"], y_score="s", thresholds=[0.2, 0.6])
    assert_frame_equal(run(df, "thresholds", ["g", "h"], y_score="s", thresholds=[0.2, 0.6]),
                       want)


# ---------------------------------------------------------------------------------------------
# Adult, race × sex: the README's "Choosing a threshold"
# ---------------------------------------------------------------------------------------------
@pytest.mark.data
def test_adult_thresholds_equal_a_loop_over_report_and_the_readme() -> None:
    adult = pl.read_csv(require(ADULT_SCORED_CSV)).select("race", "sex", "y_true", "y_score")
    df = adult.rename({"y_score": "s"})
    keys = ["race", "sex"]
    grid = df.fair.thresholds(keys, y_score="s")
    fine = df.fair.thresholds(keys, y_score="s", thresholds=[i / 10_000 for i in range(31)])
    for got, ts in ((grid, list(THRESHOLD_GRID)), (fine, [i / 10_000 for i in range(31)])):
        want = expected_by_loop(df, keys, ts, None)
        assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=0)
        exact = [c for c in COLUMNS if c not in ("selection_rate", "tpr", "accuracy")]
        assert_frame_equal(got.select(exact), want.select(exact), check_exact=True)
    # README: no threshold of the default grid passes; the best accuracy is 0.8518 at 0.47
    assert grid.filter(pl.col("all_pass")).height == 0
    best = grid.sort("accuracy", descending=True, maintain_order=True).row(0, named=True)
    assert (best["threshold"], round(best["accuracy"], 4)) == (0.47, 0.8518)
    assert grid["n_supported"].to_list() == [10] * 99  # Other × Female has 109 rows
    assert grid["n_ofi_flagged"].to_list() == [0] * 99
    # every supported race × sex group passes exactly for thresholds 0 to 0.0025, where at
    # least 93.4% of applicants are selected and accuracy is at most 0.3063
    passing = fine.filter(pl.col("all_pass"))
    assert passing["threshold"].to_list() == [i / 10_000 for i in range(26)]
    last = passing.row(-1, named=True)
    assert (round(last["selection_rate"], 4), round(last["accuracy"], 4)) == (0.9343, 0.3063)
    # by sex alone only 0.01 passes on the grid; every adverse impact of the grid is systemic
    by_sex = df.fair.thresholds("sex", y_score="s")
    assert by_sex.filter(pl.col("all_pass"))["threshold"].to_list() == [0.01]
    swept = df.fair.sweep(keys, y_score="s", thresholds=THRESHOLD_GRID)
    assert set(swept.filter(pl.col("adverse_impact"))["finding"]) == {"systemic"}
    assert (grid["max_abs_ofi"] < 0.3).all() and (fine["max_abs_ofi"] < 0.3).all()


# ---------------------------------------------------------------------------------------------
# arguments and errors
# ---------------------------------------------------------------------------------------------
def test_signature_is_simple_keywords_with_defaults() -> None:
    """The CLI generates its subcommand from it: keyword-only, typed, with defaults."""
    params = list(inspect.signature(FairScores.thresholds).parameters.values())[1:]
    assert [p.name for p in params] == ["thresholds", "reference", "min_support",
                                        "ofi_threshold", "four_fifths", "exclude_low_support",
                                        "max_thresholds", "max_groups"]
    for p in params:
        assert p.kind is inspect.Parameter.KEYWORD_ONLY
        assert p.annotation is not inspect.Parameter.empty
        assert p.default is not inspect.Parameter.empty
    report = inspect.signature(polars_fair.FairCounts.report).parameters
    for name in ("reference", "min_support", "ofi_threshold", "four_fifths",
                 "exclude_low_support"):  # report's defaults
        assert inspect.signature(FairScores.sweep).parameters[name].default == \
            report[name].default
        assert inspect.signature(FairScores.thresholds).parameters[name].default == \
            report[name].default


def test_the_spark_shortcut_is_generated() -> None:
    pytest.importorskip("pyspark")
    import polars_fair.spark as pfs

    assert "thresholds" in pfs.__all__
    assert "thresholds" in inspect.signature(pfs.thresholds).parameters


def test_docstrings_state_why_one_threshold() -> None:
    for doc in (polars_fair.analyses.thresholds.__doc__, FairScores.thresholds.__doc__,
                HAND.fair.thresholds.__doc__):
        assert doc is not None and "2000e-2(l)" in doc and "disparate treatment" in doc


@pytest.mark.parametrize("name", ["all_pass", "worst_group", "threshold"])
def test_a_key_named_like_an_output_column_is_an_error(name: str) -> None:
    df = HAND.rename({"g": name})
    with pytest.raises(E.InvalidArgumentError, match=rf"\['{name}'\] clash"):
        df.lazy().fair.thresholds(name, thresholds=[0.5])


@pytest.mark.parametrize(("thresholds", "message"), [
    ([], E.NO_THRESHOLDS),
    ([0.5, float("nan")], E.BAD_THRESHOLD.format(value=float("nan"))),
    (["0.5"], E.BAD_THRESHOLD.format(value="0.5")),
])
def test_bad_thresholds_are_refused_before_any_data(thresholds: list[Any], message: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        HAND.lazy().fair.thresholds("g", thresholds=thresholds)
    assert str(err.value) == message


@pytest.mark.parametrize(("option", "value"), [
    ("four_fifths", 0.0), ("ofi_threshold", -1.0), ("min_support", float("nan")),
    ("exclude_low_support", "yes"),
])
@pytest.mark.parametrize("analysis", ["sweep", "thresholds"])
def test_report_options_are_checked_as_report_checks_them(option: str, value: Any,
                                                          analysis: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as want:
        HAND.lazy().fair.report("g", y_score="y_score", threshold=0.5, **{option: value})
    with pytest.raises(E.InvalidArgumentError) as got:
        getattr(HAND.lazy().fair, analysis)("g", thresholds=[0.5], **{option: value})
    assert str(got.value) == str(want.value)


def test_an_unknown_reference_names_the_groups() -> None:
    with pytest.raises(E.UnknownGroupError, match="'zz'"):
        HAND.fair.thresholds("g", thresholds=[0.5, 0.6], reference="zz")
    with pytest.raises(E.InvalidArgumentError, match="max_auc"):
        HAND.lazy().fair.thresholds("g", thresholds=[0.5], reference="max_auc")


# ---------------------------------------------------------------------------------------------
# property (hypothesis; marked slow by conftest)
# ---------------------------------------------------------------------------------------------
@st.composite
def scored_frames(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(1, 50))
    rows = st.lists(st.tuples(st.sampled_from(["x", "y", "z", None]), st.integers(0, 1),
                              st.sampled_from([0.0, 0.2, 0.25, 0.5, 0.8, 1.0])),
                    min_size=n, max_size=n)
    g, y, s = zip(*draw(rows), strict=True)
    df = pl.DataFrame({"g": list(g), "y_true": list(y), "s": list(s)},
                      schema={"g": pl.String, "y_true": pl.Int64, "s": pl.Float64})
    assume(not one_row_groups(df, "g"))  # refused at any size (issue 20)
    return df


@settings(max_examples=40, deadline=None)
@given(scored_frames(), st.sampled_from([1, 3, 10]), st.booleans(),
       st.sampled_from(["largest", "max_selection_rate", "overall"]))
def test_every_threshold_row_is_the_summary_of_report_at_that_threshold(
        df: pl.DataFrame, min_support: int, exclude: bool, reference: str) -> None:
    assume(df["g"].drop_nulls().n_unique() >= 1)  # at least one group that can be a benchmark
    options = {"min_support": min_support, "exclude_low_support": exclude,
               "reference": reference}
    ts = [0.2, 0.25, 0.5, 1.0]
    got = df.fair.thresholds("g", y_score="s", thresholds=ts, **options)
    want = expected_by_loop(df, ["g"], ts, None, **options)
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12, abs_tol=0)
    exact = [c for c in COLUMNS if c not in ("selection_rate", "tpr", "accuracy")]
    assert_frame_equal(got.select(exact), want.select(exact), check_exact=True)


# ---------------------------------------------------------------------------------------------
# Enum attributes: the groups are report's (review item 6)
# ---------------------------------------------------------------------------------------------
G3 = pl.Enum(["a", "b", "c"])
H2 = pl.Enum(["x", "y"])
# a: (y 1, score 0.6), (y 0, 0.8); b: (y 1, 0.3), (y 0, 0.9); no row of c
ENUMS = pl.DataFrame({
    "g": pl.Series(["a", "a", "b", "b"], dtype=G3), "h": pl.Series(["x", "y", "x", "y"], dtype=H2),
    "y_true": [1, 0, 1, 0], "s": [0.6, 0.8, 0.3, 0.9],
})


def test_sweep_keeps_an_enums_unobserved_category_as_report_does(run: Runner) -> None:
    # t = 0.5: a selects 0.6 and 0.8 -> tp 1 fp 1 fn 0 tn 0; b selects 0.9 -> tp 0 fp 1 fn 1
    # tn 0; c has no row -> n 0, every count 0 (as report's row for c)
    swept = run(ENUMS, "sweep", "g", y_score="s", thresholds=[0.5], min_support=1)
    assert swept.select("g", "threshold", "n", "tp", "fp", "fn", "tn").rows() == [
        ("a", 0.5, 2, 1, 1, 0, 0), ("b", 0.5, 2, 0, 1, 1, 0), ("c", 0.5, 0, 0, 0, 0, 0)]
    assert swept.schema["g"] == G3
    report = ENUMS.fair.report("g", y_score="s", threshold=0.5, min_support=1)
    assert report.height == 3
    assert_frame_equal(swept.drop("threshold"), report)


@pytest.mark.parametrize("t", [0.5, 0.85])
def test_sweep_of_two_enums_equals_report_at_each_threshold(t: float) -> None:
    # 3 x 2 intersections; c-x and c-y have no row: 6 rows, as report (4 observed + 2 empty)
    swept = ENUMS.fair.sweep(["g", "h"], y_score="s", thresholds=[0.5, 0.85])
    assert swept.height == 12
    report = ENUMS.fair.report(["g", "h"], y_score="s", threshold=t)
    assert report.height == 6
    assert_frame_equal(swept.filter(pl.col("threshold") == t).drop("threshold"), report)
    assert swept.filter(pl.col("n") == 0).select("g", "h").unique(maintain_order=True).rows() \
        == [("c", "x"), ("c", "y")]


def test_thresholds_count_the_empty_enum_intersections_as_groups() -> None:
    out = ENUMS.fair.thresholds(["g", "h"], y_score="s", thresholds=[0.5], min_support=1)
    # 6 groups; the two empty ones are low-support (n = 0 < 1), so 4 supported
    assert out.select("n", "n_groups", "n_supported").row(0) == (4, 6, 4)
    # one threshold of the score-table way in gives the same
    table = ENUMS.lazy().fair.score_counts(["g", "h"], y_score="s")
    assert_frame_equal(table.thresholds(thresholds=[0.5], min_support=1).collect(), out)


@pytest.mark.parametrize("analysis", ["sweep", "thresholds"])
def test_the_enum_completion_is_bounded_by_max_groups_as_in_report(analysis: str) -> None:
    # 3 x 2 = 6 declared intersections: above max_groups=5, at once (lazy), report's own error
    with pytest.raises(E.SizeLimitError) as want:
        ENUMS.lazy().fair.report(["g", "h"], y_score="s", threshold=0.5, max_groups=5)
    with pytest.raises(E.SizeLimitError) as got:
        getattr(ENUMS.lazy().fair, analysis)(["g", "h"], y_score="s", thresholds=[0.5],
                                             max_groups=5)
    assert str(got.value) == str(want.value) and "6 groups" in str(got.value)
    # 6 is allowed: 6 groups at the threshold
    out = getattr(ENUMS.fair, analysis)(["g", "h"], y_score="s", thresholds=[0.5], max_groups=6)
    assert (out.height if analysis == "sweep" else out["n_groups"].item()) == 6


# ---------------------------------------------------------------------------------------------
# the default grid on scores that are not probabilities (review item 7)
# ---------------------------------------------------------------------------------------------
DECILES = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0], "s": [3, 9, 6, 8]})


@pytest.mark.parametrize(("analysis", "grid"), [("thresholds", THRESHOLD_GRID),
                                                ("sweep", SWEEP_THRESHOLDS)])
def test_the_default_grid_on_scores_outside_0_1_is_an_error(analysis: str, grid: Any) -> None:
    # every score 3..9 is above every threshold 0.01..0.99: all would pass, vacuously
    with pytest.raises(E.InvalidArgumentError) as err:
        getattr(DECILES.fair, analysis)("g", y_score="s")
    assert str(err.value) == E.DEFAULT_GRID_NOT_PROBABILITIES.format(
        what=analysis, grid=repr(grid), low=3.0, high=9.0,
        suggestion="the distinct scores, thresholds=[3.0, 6.0, 8.0, 9.0]")
    assert "thresholds=" in str(err.value) and "3.0 to 9.0" in str(err.value)


def test_a_negative_score_or_many_distinct_scores_suggest_an_even_grid() -> None:
    df = pl.DataFrame({"g": ["a"] * 150, "y_true": [0, 1] * 75,
                       "s": [i / 100 - 0.5 for i in range(150)]})  # -0.5 .. 0.99, 150 values
    with pytest.raises(E.InvalidArgumentError, match=r"from -0\.5 to 0\.99") as err:
        df.fair.thresholds("g", y_score="s")
    # issue 20: the advice runs as written (it named a variable `scores` the user does not hold)
    assert "thresholds=np.linspace(-0.5, 0.99, 99)" in str(err.value)


def test_an_explicit_grid_is_the_users_choice() -> None:
    # thresholds 5 and 0.5 on scores 3, 9 (a) and 6, 8 (b):
    # t = 0.5: everybody selected, both rates 1, impact ratios 1: pass;
    # t = 5: a selects 9 (1/2), b selects 6 and 8 (1): a's impact ratio 1/2 fails
    out = DECILES.fair.thresholds("g", y_score="s", thresholds=[0.5, 5], min_support=1)
    assert out.select("threshold", "selection_rate", "min_impact_ratio", "worst_group",
                      "all_pass").rows() == [(0.5, 1.0, 1.0, "a", True),
                                             (5.0, 0.75, 0.5, "a", False)]
    # the same numbers as the default grid but given for a probability: fine
    probs = DECILES.with_columns(pl.col("s") / 10)
    assert probs.fair.thresholds("g", y_score="s", thresholds=list(THRESHOLD_GRID)).height == 99


# ---------------------------------------------------------------------------------------------
# the size of the grid (review item 8)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("analysis", ["sweep", "thresholds"])
def test_more_thresholds_than_max_thresholds_raise_at_once(analysis: str) -> None:
    big = np.linspace(0, 1, 10_001)  # one more than the default 10,000
    with pytest.raises(E.SizeLimitError) as err:
        getattr(HAND.lazy().fair, analysis)("g", thresholds=big)  # lazy: before any data
    assert str(err.value) == E.TOO_MANY_THRESHOLDS.format(what=analysis, size=10_001,
                                                          limit=10_000)
    assert "max_thresholds=10,000" in str(err.value) and "10,001" in str(err.value)
    with pytest.raises(E.SizeLimitError, match="max_thresholds=2"):
        getattr(HAND.lazy().fair, analysis)("g", thresholds=[0.2, 0.5, 0.7], max_thresholds=2)
    # exactly the limit is accepted
    out = getattr(HAND.fair, analysis)("g", thresholds=[0.2, 0.5], max_thresholds=2)
    assert out["threshold"].unique().sort().to_list() == [0.2, 0.5]


def test_max_thresholds_must_be_a_positive_integer() -> None:
    with pytest.raises(E.InvalidArgumentError, match="max_thresholds"):
        HAND.lazy().fair.thresholds("g", thresholds=[0.5], max_thresholds=0)


# ---------------------------------------------------------------------------------------------
# worst_group_keys: the worst group, unambiguous (review item 2)
# ---------------------------------------------------------------------------------------------
def test_worst_group_keys_tell_a_null_key_from_the_text_missing() -> None:
    # group "(missing)": scores 0.9, 0.8 (both selected at 0.5, rate 1);
    # group null: 0.9, 0.2 (rate 1/2, impact ratio 1/2, the worst); both display "(missing)"
    df = pl.DataFrame({"g": ["(missing)", "(missing)", None, None],
                       "y_true": [1, 0, 1, 0], "s": [0.9, 0.8, 0.9, 0.2]})
    out = df.fair.thresholds("g", y_score="s", thresholds=[0.5], min_support=1)
    assert out["worst_group"].to_list() == [MISSING_GROUP]  # the null key
    assert out.schema["worst_group_keys"] == pl.Struct({"g": pl.String})
    assert out["worst_group_keys"].to_list() == [{"g": None}]  # the null key, kept
    flipped = df.with_columns(s=pl.Series([0.9, 0.2, 0.9, 0.8]))  # now "(missing)" is worst
    out = flipped.fair.thresholds("g", y_score="s", thresholds=[0.5], min_support=1)
    # issue 19 kind 4: the text "(missing)" is quoted, so the labels no longer collide
    assert out["worst_group"].to_list() == ['"(missing)"']
    assert out["worst_group_keys"].to_list() == [{"g": "(missing)"}]


def test_worst_group_keys_keep_a_separator_inside_a_value() -> None:
    # ("a | b", "c") and ("a", "b | c") both displayed as "a | b | c"; issue 19 kind 4: a value
    # holding the separator is quoted, '"a | b" | c'. ("a | b", "c"): rate 1/2 (the worst)
    df = pl.DataFrame({"g": ["a | b", "a | b", "a", "a"], "h": ["c", "c", "b | c", "b | c"],
                       "y_true": [1, 0, 1, 0], "s": [0.9, 0.2, 0.9, 0.8]})
    out = df.fair.thresholds(["g", "h"], y_score="s", thresholds=[0.5], min_support=1)
    assert out["worst_group"].to_list() == ['"a | b" | c']
    assert out["worst_group_keys"].to_list() == [{"g": "a | b", "h": "c"}]
    assert out.select(pl.col("worst_group_keys").struct.unnest()).rows() == [("a | b", "c")]
