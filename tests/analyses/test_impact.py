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
