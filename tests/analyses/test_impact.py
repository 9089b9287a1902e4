"""impact_analysis: the EEOC example, hand-worked flips, SolasAI's frozen HMDA figures, scipy."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import polars as pl
import pytest
from scipy.stats import fisher_exact, norm

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.impact import BAD_PRACTICAL, PRACTICAL_RULES
from tests.conftest import ROOT, Runner, require

PEER_FIGURES = ROOT.parent / "shared" / "oracles" / "peer-figures.json"


def table(groups: dict[str, tuple[int, int]], key: str = "g") -> pl.DataFrame:
    """A count table from {group: (selected, applicants)} (the labels do not matter here)."""
    return pl.DataFrame({
        key: list(groups), "n": [n for _, n in groups.values()],
        "tp": [s for s, _ in groups.values()], "fp": [0] * len(groups),
        "fn": [n - s for s, n in groups.values()], "tn": [0] * len(groups)})


def rows(groups: dict[str, tuple[int, int]]) -> pl.DataFrame:
    parts = [pl.DataFrame({"g": [g] * n, "y_true": [1] * n, "y_pred": [1] * s + [0] * (n - s)})
             for g, (s, n) in groups.items()]
    return pl.concat(parts)


def by_group(df: pl.DataFrame, key: str = "g") -> dict[Any, dict[str, Any]]:
    return {r[key]: r for r in df.iter_rows(named=True)}


def test_eeoc_example_rates_60_and_30_percent_give_impact_ratio_one_half(run: Runner) -> None:
    # EEOC technical assistance (2023): 48 of 80 selected against 12 of 40
    out = by_group(run(rows({"a": (48, 80), "b": (12, 40)}), "impact_analysis", "g"))
    a, b = out["a"], out["b"]
    assert a["is_reference"] and not b["is_reference"]
    assert (b["selected"], b["applicants"], b["reference_selected"],
            b["reference_applicants"]) == (12, 40, 48, 80)
    assert (b["selection_rate"], b["reference_rate"], b["impact_ratio"]) == (0.3, 0.6, 0.5)
    assert b["four_fifths_pass"] is False and a["four_fifths_pass"] is True
    assert b["shortfall"] == pytest.approx(40 * 0.6 - 12)  # 12 more selections needed
    # pooled rate 60/120 = 1/2: se = sqrt(1/4 (1/40 + 1/80)), z = -0.3 / se
    se = (0.25 * (1 / 40 + 1 / 80)) ** 0.5
    assert b["z"] == pytest.approx(-0.3 / se, rel=1e-12)
    assert b["p_value"] == pytest.approx(fisher_exact([[12, 28], [48, 32]]).pvalue, rel=1e-12)
    # one more selected: (13/40)/(48/80) = 13/24 still fails, and p < 0.05
    assert b["flip_impact_ratio"] == pytest.approx(13 / 24, rel=1e-15)
    assert b["practically_significant"] is True
    assert a["z"] is None and a["p_value"] is None and a["practically_significant"] is None


def test_hand_worked_flip_reverses_the_verdict_exactly_at_four_fifths() -> None:
    # b: 5 of 10 against 75 of 100: (1/2)/(3/4) = 2/3 fails; one more selected: (6/10)/(3/4)
    # = 4/5 exactly, which passes (in floats 0.6 / 0.75 is 0.7999999999999999)
    t = polars_fair.from_counts(table({"a": (75, 100), "b": (5, 10)}))
    b = by_group(t.impact_analysis(reference="a", level=0.5).collect())["b"]
    assert b["four_fifths_pass"] is False
    assert b["flip_impact_ratio"] == 0.8
    assert b["p_value"] == pytest.approx(fisher_exact([[5, 5], [75, 25]]).pvalue)
    assert b["p_value"] < 0.5  # significant at level 0.5, yet the flip reverses the failure
    assert b["practically_significant"] is False
    # SolasAI's rule does not look at the flip: significant and below 4/5 is enough
    d = by_group(t.impact_analysis(reference="a", level=0.5, practical="difference").collect())
    assert d["b"]["practically_significant"] is True
    # ... unless the difference 3/4 - 1/2 = 1/4 is not above min_difference
    d = by_group(t.impact_analysis(reference="a", level=0.5, practical="difference",
                                   min_difference=0.25).collect())
    assert d["b"]["practically_significant"] is False


def test_flip_that_still_fails_is_practically_significant_only_when_significant() -> None:
    # 30 of 100 against 60 of 100: 1/2 fails, flip 31/60 fails, Fisher p far below 0.05
    t = polars_fair.from_counts(table({"a": (60, 100), "b": (30, 100)}))
    b = by_group(t.impact_analysis().collect())["b"]
    assert b["flip_impact_ratio"] == pytest.approx(31 / 60, rel=1e-15)
    assert b["practically_significant"] is True
    # 1 of 4 against 3 of 4: fails, flip 2/3 fails, but Fisher's p = 0.486 is not significant
    small = polars_fair.from_counts(table({"a": (3, 4), "b": (1, 4)}))
    s = by_group(small.impact_analysis(reference="a").collect())["b"]
    assert s["p_value"] == pytest.approx(fisher_exact([[1, 3], [3, 1]]).pvalue)
    assert s["four_fifths_pass"] is False and s["practically_significant"] is False


def _solas(name: str) -> list[dict[str, Any]]:
    figures = json.loads(require(PEER_FIGURES).read_text())
    out: list[dict[str, Any]] = figures["solasai_hmda_example"][name]["summary"]
    return out


@pytest.mark.data
def test_solasai_hmda_air_shortfall_and_fisher_p_values() -> None:
    summary = _solas("AIR")
    stat = {r["Group"]: r for r in json.loads(require(PEER_FIGURES).read_text())[
        "solasai_hmda_example"]["AIR"]["stat_sig"]}
    for category in ("Race", "Ethnicity", "Sex"):
        part = [r for r in summary if r["Group Category"] == category]
        ref = next(r["Group"] for r in part if r["Reference Group"] == "")
        counts = table({r["Group"]: (int(r["Favorable"]), int(r["Total"])) for r in part})
        out = by_group(polars_fair.from_counts(counts).impact_analysis(
            reference=ref, practical="difference").collect())
        for r in part:
            got = out[r["Group"]]
            if r["Group"] == ref:
                assert got["is_reference"] and got["impact_ratio"] == 1.0
                continue
            assert got["impact_ratio"] == pytest.approx(r["AIR"], rel=1e-12)
            assert got["reference_rate"] - got["selection_rate"] == pytest.approx(
                r["Percent Difference Favorable"], rel=1e-9)
            # SolasAI runs Fisher's test when a cell is at most 100 (no chi-square reported)
            if stat[r["Group"]]["Chi-Squared"] is None:
                assert got["p_value"] == pytest.approx(r["P-Values"], rel=1e-6)
            s, n = int(r["Favorable"]), int(r["Total"])
            ref_row = next(x for x in part if x["Group"] == ref)
            rs, rn = int(ref_row["Favorable"]), int(ref_row["Total"])
            assert got["p_value"] == pytest.approx(
                fisher_exact([[s, n - s], [rs, rn - rs]]).pvalue, rel=1e-9)
            # its rule at four_fifths=0.8 and a difference threshold of 0
            assert got["practically_significant"] == (r["Practically Significant"] == "Yes")
            if r["Shortfall"] is not None:
                assert got["shortfall"] == pytest.approx(r["Shortfall"], rel=1e-12)


@pytest.mark.data
def test_solasai_hmda_shortfall_to_the_combined_rate() -> None:
    # Hispanic 167 of 508 against Non-Hispanic 2,072 of 3,808; to the combined rate 96.5338
    part = [r for r in _solas("AIR to_combined_mean") if r["Group Category"] == "Ethnicity"]
    counts = table({r["Group"]: (int(r["Favorable"]), int(r["Total"])) for r in part})
    out = by_group(polars_fair.from_counts(counts).impact_analysis(reference="overall").collect())
    hispanic = next(r for r in part if r["Group"] == "Hispanic")
    assert out["Hispanic"]["shortfall"] == pytest.approx(hispanic["Shortfall"], rel=1e-12)
    assert out["Hispanic"]["reference_applicants"] == 508 + 3808
    # tested against the rest of the population, here the Non-Hispanic group
    assert out["Hispanic"]["p_value"] == pytest.approx(
        fisher_exact([[167, 341], [2072, 1736]]).pvalue, rel=1e-9)


def test_solasai_hispanic_figures_without_the_data_file() -> None:
    # the same figures written here (peer-figures.json, SolasAI 0.6.0), so they run everywhere
    t = polars_fair.from_counts(table({"Hispanic": (167, 508), "Non-Hispanic": (2072, 3808)}))
    h = by_group(t.impact_analysis(reference="Non-Hispanic").collect())["Hispanic"]
    assert h["impact_ratio"] == pytest.approx(0.604171100234092, rel=1e-14)
    assert h["shortfall"] == pytest.approx(109.41176470588232, rel=1e-14)
    o = by_group(t.impact_analysis(reference="overall").collect())["Hispanic"]
    assert o["shortfall"] == pytest.approx(96.53382761816496, rel=1e-14)


def test_overall_reference_flip_adds_the_person_to_the_population_too() -> None:
    t = polars_fair.from_counts(table({"a": (48, 80), "b": (12, 40)}))
    b = by_group(t.impact_analysis(reference="overall").collect())["b"]
    assert b["reference_rate"] == 0.5 and b["impact_ratio"] == 0.6
    assert b["flip_impact_ratio"] == pytest.approx(float(Fraction(13, 40) / Fraction(61, 120)))
    assert b["shortfall"] == pytest.approx(40 * 0.5 - 12)


def test_weighted_counts_are_weight_units_and_tests_count_rows(run: Runner) -> None:
    df = rows({"a": (48, 80), "b": (12, 40)}).with_columns(w=pl.lit(2.5))
    plain = by_group(run(df, "impact_analysis", "g"))
    weighted = by_group(run(df, "impact_analysis", "g", sample_weight="w"))
    b, w = plain["b"], weighted["b"]
    assert (w["selected"], w["applicants"], w["reference_applicants"]) == (30.0, 100.0, 200.0)
    assert w["impact_ratio"] == b["impact_ratio"] and w["shortfall"] == 2.5 * b["shortfall"]
    assert w["z"] == pytest.approx(b["z"], rel=1e-12)  # rows, not weight units
    assert w["p_value"] == pytest.approx(2 * norm.sf(abs(b["z"])), rel=1e-12)  # z-test
    # one row of the mean weight moves: (30 + 2.5)/100 against 0.6
    assert w["flip_impact_ratio"] == pytest.approx(0.325 / 0.6, rel=1e-12)


def test_a_reference_that_selects_nobody_leaves_ratios_null() -> None:
    t = polars_fair.from_counts(table({"a": (0, 50), "b": (5, 10)}))
    b = by_group(t.impact_analysis(reference="a").collect())["b"]
    assert b["impact_ratio"] is None and b["four_fifths_pass"] is None
    assert b["shortfall"] == -5.0 and b["practically_significant"] is None


def test_bad_options_are_typed_errors() -> None:
    t = polars_fair.from_counts(table({"a": (1, 2)}))
    with pytest.raises(E.InvalidArgumentError) as err:
        t.impact_analysis(practical="solas").collect()  # type: ignore[arg-type]
    assert str(err.value) == BAD_PRACTICAL.format(valid=list(PRACTICAL_RULES), value="solas")
    with pytest.raises(E.InvalidArgumentError, match="four_fifths must lie in"):
        t.impact_analysis(four_fifths=1.5).collect()
    with pytest.raises(E.InvalidArgumentError, match="min_difference must lie in"):
        t.impact_analysis(min_difference=-0.1).collect()


def weighted_table(groups: dict[str, tuple[float, float, int]]) -> pl.DataFrame:
    """A weighted count table from {group: (selected weight, applicant weight, rows)}."""
    return pl.DataFrame({
        "g": list(groups), "n": [r for *_, r in groups.values()],
        "tp": [s for s, _, _ in groups.values()], "fp": [0.0] * len(groups),
        "fn": [a - s for s, a, _ in groups.values()], "tn": [0.0] * len(groups),
        "weight_sum": [a for _, a, _ in groups.values()]})


def test_a_group_whose_weights_sum_to_zero_has_no_test() -> None:
    """b's 4 rows weigh 0: it has no applicants, so no rate, no z and no p-value (they were
    z = -1.63 and p = 0.10 from its row count); against the whole population a's rest of the
    population is b, with no applicants either: no test for a."""
    t = polars_fair.from_counts(weighted_table({"a": (2.0, 4.0, 4), "b": (0.0, 0.0, 4)}))
    b = by_group(t.impact_analysis(reference="a").collect())["b"]
    assert b["selection_rate"] is None and b["shortfall"] is None
    assert (b["z"], b["p_value"], b["practically_significant"]) == (None, None, None)
    both = by_group(t.impact_analysis(reference="overall").collect())
    assert both["a"]["impact_ratio"] == 1.0 and both["a"]["shortfall"] == 0.0
    assert (both["a"]["z"], both["a"]["p_value"]) == (None, None)
    assert both["a"]["practically_significant"] is None


def test_a_group_at_the_reference_rate_has_exactly_zero_shortfall_and_z() -> None:
    """b selects 0.1 of 0.3 weighted, a 0.7 of 2.1: both 1/3 as written. By hand shortfall =
    (0.3 * 0.7 - 0.1 * 2.1)/2.1 = 0 and z = 0; the float product 0.3 * (0.7/2.1) - 0.1 was
    -1.4e-17."""
    t = polars_fair.from_counts(weighted_table({"a": (0.7, 2.1, 7), "b": (0.1, 0.3, 3)}))
    b = by_group(t.impact_analysis(reference="a").collect())["b"]
    assert b["shortfall"] == 0.0 and b["z"] == 0.0
    assert b["impact_ratio"] == pytest.approx(1.0) and b["four_fifths_pass"] is True


# ------------------------------------------------------- second fresh-user review (issue 23)
#: b's four rows weigh 0: it has rows (so it can be named) but no applicants
ZERO_WEIGHT_REFERENCE = pl.DataFrame({
    "g": ["a"] * 4 + ["b"] * 4, "y_true": [1] * 8, "y_pred": [1, 1, 1, 0, 1, 0, 0, 0],
    "w": [1.0] * 4 + [0.0] * 4})
NO_REFERENCE_RATE = ("reference_rate", "impact_ratio", "four_fifths_pass", "shortfall", "z",
                     "p_value", "flip_impact_ratio", "practically_significant")


def test_a_reference_whose_weights_sum_to_zero_gives_null_statistics(run: Runner) -> None:
    """By hand: a selects 3 of 4 (weight 1 each), rate 0.75; b has 4 rows of weight 0, so no
    applicants and no rate: every comparison with it is null, as the docstring promises (it
    raised UnknownGroupError 'has no rows (applicants = 0)', and disparity named '__size')."""
    out = by_group(run(ZERO_WEIGHT_REFERENCE, "impact_analysis", "g", sample_weight="w",
                       reference="b"))
    a, b = out["a"], out["b"]
    assert b["is_reference"] and not a["is_reference"]
    assert (a["selected"], a["applicants"], a["selection_rate"]) == (3.0, 4.0, 0.75)
    assert (b["applicants"], b["selection_rate"]) == (0.0, None)
    for column in NO_REFERENCE_RATE:
        assert a[column] is None, column
    # the count table (any engine's way in) and disparity, on the same reference
    t = polars_fair.counts(ZERO_WEIGHT_REFERENCE, "g", sample_weight="w")
    assert by_group(t.impact_analysis(reference="b").collect())["a"]["z"] is None
    d = by_group(t.disparity(reference="b").collect())["a"]
    assert (d["value"], d["reference_value"], d["ratio"], d["p_value"]) == (0.75, None, None,
                                                                             None)


def test_a_reference_without_rows_is_refused_naming_no_internal_column() -> None:
    """A group of an Enum with no rows at all is still no reference; the message says n = 0
    on every analysis (disparity said '__size = 0', impact_analysis 'applicants = 0')."""
    df = ZERO_WEIGHT_REFERENCE.with_columns(pl.col("g").cast(pl.Enum(["a", "b", "c"])))
    t = polars_fair.counts(df, "g", sample_weight="w")
    for call in (lambda: t.impact_analysis(reference="c").collect(),
                 lambda: t.disparity(reference="c").collect(),
                 lambda: t.report(reference="c").collect()):
        with pytest.raises(E.UnknownGroupError) as err:
            call()
        assert str(err.value) == E.EMPTY_REFERENCE.format(group="c")
        assert "(n = 0)" in str(err.value) and "__" not in str(err.value)


def test_weighted_rates_tie_exactly_as_in_the_stratified_analysis(run: Runner) -> None:
    """Weights as written: F selects 0.1 + 0.2 of 0.1 + 0.2 + 0.3 in A and 0.7 of 1.4 in B, M
    0.3 of 0.6 and 0.7 of 1.4: both 1/2 pooled, so by hand the rates are exactly 0.5, z and
    the shortfall exactly 0; stratified on the same rows gives the same rates (it read 0.1 +
    0.2 as 0.30000000000000004 stratum by stratum and left a gap of 5e-18)."""
    df = pl.DataFrame({"sex": ["F"] * 5 + ["M"] * 4,
                       "dept": ["A", "A", "A", "B", "B", "A", "A", "B", "B"],
                       "y_true": [1] * 9, "y_pred": [1, 1, 0, 1, 0, 1, 0, 1, 0],
                       "w": [0.1, 0.2, 0.3, 0.7, 0.7, 0.3, 0.3, 0.7, 0.7]})
    f = by_group(run(df, "impact_analysis", "sex", reference="M", sample_weight="w"), "sex")["F"]
    assert (f["selection_rate"], f["reference_rate"], f["impact_ratio"]) == (0.5, 0.5, 1.0)
    assert (f["z"], f["shortfall"]) == (0.0, 0.0)
    s = by_group(run(df, "stratified", "sex", "dept", reference="M", sample_weight="w"),
                 "sex")["F"]
    assert (s["selection_rate"], s["reference_rate"], s["impact_ratio"]) == (0.5, 0.5, 1.0)
    assert (s["gap"], s["composition"], s["within"]) == (0.0, 0.0, 0.0)


def test_exact_reads_a_float_sum_as_the_decimal_it_stands_for() -> None:
    from polars_fair.analyses.impact import exact, rate

    assert exact(0.1 + 0.2) == Fraction(3, 10)  # 0.30000000000000004 in binary
    assert exact(0.07) == Fraction(7, 100) and exact(1 / 3) == Fraction(333333333333333,
                                                                         10**15)
    assert exact(2.0**52 + 1) == 2**52 + 1  # a whole float is its integer, all digits kept
    assert rate(0.1 + 0.2, 0.6000000000000001) == Fraction(1, 2) and rate(1, 0) is None


def fisher_log_space(a: int, m: int, b: int, n: int, width: float = 80.0) -> float:
    """Fisher's exact two-sided p, test-only and independent of scipy: the hypergeometric
    probabilities by the ratio of neighbours P(k+1)/P(k) = (m-k)(K-k)/((k+1)(n-K+k+1)) summed
    in log space around the mode (beyond ``width`` standard deviations they underflow), the
    tables no more probable than the observed one (relative tolerance 1e-7, as scipy)."""
    import math

    import numpy as np

    total, k_sel = m + n, a + b
    lo, hi = max(0, k_sel - n), min(m, k_sel)
    mean = m * k_sel / total
    sd = math.sqrt(mean * (total - k_sel) / total * (total - m) / (total - 1))
    left = min(max(lo, int(mean - width * sd)), a)
    right = max(min(hi, int(mean + width * sd) + 1), a)
    k = np.arange(left, right, dtype=np.float64)
    log_ratio = (np.log(m - k) + np.log(k_sel - k) - np.log(k + 1)
                 - np.log(n - k_sel + k + 1))
    log_p = np.concatenate([[0.0], np.cumsum(log_ratio)])
    weights = np.exp(log_p - log_p.max())
    return float(weights[log_p <= log_p[a - left] + 1e-7].sum() / weights.sum())


def test_fisher_log_space_oracle_agrees_with_scipy_where_scipy_works() -> None:
    for a, m, b, n in ((12, 40, 48, 80), (4_990_000, 10**7, 5_000_000, 10**7)):
        want = fisher_exact([[a, m - a], [b, n - b]]).pvalue
        assert fisher_log_space(a, m, b, n) == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("z_target", [0.5, 2.0, 5.0, 20.0])
def test_p_value_at_ten_billion_applicants_is_sound(z_target: float) -> None:
    """5e9 applicants a side, rates 1/2 -+ d for a z of z_target: scipy's fisher_exact
    overflowed here (p 0.98 at z = -2, 1.0 at z = -20); above 10^9 applicants the z-test's p is
    given, within 0.1 % of Fisher's exact p computed in log space."""
    half = 5 * 10**9
    d = z_target * (0.25 * 2 / half) ** 0.5 / 2
    a, b = round((0.5 - d) * half), round((0.5 + d) * half)
    t = polars_fair.from_counts(table({"a": (b, half), "b": (a, half)}))
    got = by_group(t.impact_analysis(reference="a").collect())["b"]
    assert got["z"] == pytest.approx(-z_target, rel=1e-3)
    assert got["p_value"] == pytest.approx(2 * norm.sf(abs(got["z"])), rel=1e-9)
    assert got["p_value"] == pytest.approx(fisher_log_space(a, half, b, half), rel=1e-3)


def test_p_value_far_out_at_ten_billion_applicants_is_zero_not_one() -> None:
    """The review's table: z = -11,572 with about 10^10 applicants gave p = 1.0. By the normal
    tail bound p <= 2 phi(z)/|z| = exp(-z^2/2 - ...) ~ 10^-29,000,000: 0.0 in floats."""
    half = 5 * 10**9
    t = polars_fair.from_counts(table({"a": (3 * 10**9, half), "b": (2 * 10**9, half)}))
    b = by_group(t.impact_analysis(reference="a").collect())["b"]
    assert b["z"] < -10_000 and b["p_value"] == 0.0
    assert b["practically_significant"] is True


def test_max_selection_rate_says_which_small_group_it_passed_over(run: Runner) -> None:
    """b selects 5 of 5 (rate 1) but has 5 < 30 rows: the reference is a (50 of 100), the
    highest rate among the groups with 30 rows or more, and b is flagged low_support with a
    rate above the reference's; with min_support=5 b is supported and the reference."""
    df = rows({"a": (50, 100), "b": (5, 5), "c": (10, 40)})
    out = by_group(run(df, "impact_analysis", "g", reference="max_selection_rate"))
    assert [g for g, r in out.items() if r["is_reference"]] == ["a"]
    assert [g for g, r in out.items() if r["low_support"]] == ["b"]
    assert out["b"]["selection_rate"] > out["b"]["reference_rate"]
    assert out["c"]["impact_ratio"] == 0.5  # (10/40)/(50/100)
    from polars_fair.analyses.impact import passed_over

    assert passed_over(pl.DataFrame(list(out.values())), "max_selection_rate")["g"].to_list() \
        == ["b"]
    five = by_group(run(df, "impact_analysis", "g", reference="max_selection_rate",
                        min_support=5))
    assert [g for g, r in five.items() if r["is_reference"]] == ["b"]
    assert not any(r["low_support"] for r in five.values())
    assert five["c"]["impact_ratio"] == 0.25  # (10/40)/(5/5)
    with pytest.raises(E.InvalidArgumentError, match="min_support"):
        polars_fair.from_counts(table({"a": (1, 2)})).impact_analysis(min_support=-1).collect()


@pytest.mark.parametrize("name", ["__sel", "__size", "__rows", "__x0", "__wsum", "__sr"])
def test_an_attribute_named_like_a_former_internal_column_is_just_an_attribute(
        name: str) -> None:
    """Internal columns were __sel, __size, ... : an attribute of that name gave Polars'
    DuplicateError naming it. They are __pf_* now, a reserved prefix refused by name."""
    df = ZERO_WEIGHT_REFERENCE.rename({"g": name}).with_columns(d=pl.Series(["x", "y"] * 4))
    plain = {r["g"]: r["impact_ratio"] for r in ZERO_WEIGHT_REFERENCE.fair.impact_analysis(
        "g", reference="a").iter_rows(named=True)}
    got = {r[name]: r["impact_ratio"] for r in df.fair.impact_analysis(
        name, reference="a").iter_rows(named=True)}
    assert got == plain == {"a": 1.0, "b": 1 / 3}  # (1/4)/(3/4) by hand
    assert df.fair.stratified(name, "d", reference="a").height == 2
    assert df.fair.availability(name, {name: {"a": 0.5, "b": 0.5}})["count"].to_list() == [4, 4]
    assert df.fair.disparity(name, reference="a").filter(pl.col(name) == "b")["ratio"].item() \
        == pytest.approx(1 / 3)
