"""stratified: UC Berkeley 1973 to four decimals, statsmodels' StratifiedTable as an oracle."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import StratifiedTable

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.strata import NO_GROUPS, NO_SETS, NO_STRATA, STRATUM_IN_BY
from tests.conftest import ROOT, Runner, require

# Bickel, Hammel & O'Connell (1975): admitted, rejected per department
MEN = {"A": (512, 313), "B": (353, 207), "C": (120, 205), "D": (138, 279), "E": (53, 138),
       "F": (22, 351)}
WOMEN = {"A": (89, 19), "B": (17, 8), "C": (202, 391), "D": (131, 244), "E": (94, 299),
         "F": (24, 317)}


def berkeley_rows() -> pl.DataFrame:
    parts = []
    for sex, data in (("Female", WOMEN), ("Male", MEN)):
        for dept, (admitted, rejected) in data.items():
            n = admitted + rejected
            parts.append(pl.DataFrame({"sex": [sex] * n, "dept": [dept] * n, "y_true": [1] * n,
                                       "y_pred": [1] * admitted + [0] * rejected}))
    return pl.concat(parts)


def female(df: pl.DataFrame) -> dict[str, Any]:
    return next(r for r in df.iter_rows(named=True) if r["sex"] == "Female")


def test_berkeley_figures_to_four_decimals(run: Runner) -> None:
    out = female(run(berkeley_rows(), "stratified", "sex", "dept"))
    assert out["n"] == 1835 and out["n_strata"] == 6
    assert round(out["mh_odds_ratio"], 4) == 1.1053
    assert (round(out["mh_ci_low"], 4), round(out["mh_ci_high"], 4)) == (0.9431, 1.2955)
    assert round(out["cmh_statistic"], 4) == 1.5246 and round(out["cmh_p_value"], 4) == 0.2169
    assert round(out["breslow_day_statistic"], 1) == 18.8
    assert round(out["breslow_day_p_value"], 3) == 0.002
    assert round(out["selection_rate"], 4) == 0.3035
    assert round(out["reference_rate"], 4) == 0.4452
    assert round(out["impact_ratio"], 3) == 0.682  # fails the four-fifths rule pooled
    assert round(out["gap"], 4) == 0.1416
    assert (round(out["composition"], 4), round(out["within"], 4)) == (0.1777, -0.0360)
    assert out["gap"] == pytest.approx(out["composition"] + out["within"], abs=1e-15)
    assert out["gap"] == pytest.approx(out["reference_rate"] - out["selection_rate"], abs=1e-15)
    corrected = female(berkeley_rows().fair.stratified("sex", "dept", continuity_correction=True))
    assert round(corrected["cmh_statistic"], 4) == 1.4269
    assert round(corrected["cmh_p_value"], 4) == 0.2323
    # the odds ratio and the tests do not depend on the correction or the order of the strata
    assert corrected["mh_odds_ratio"] == out["mh_odds_ratio"]


def test_berkeley_by_hand_kitagawa_with_the_average_weights() -> None:
    # composition: sum (w_m - w_f)(r_m + r_f)/2, within: sum (r_m - r_f)(w_m + w_f)/2
    n_f, n_m = sum(map(sum, WOMEN.values())), sum(map(sum, MEN.values()))
    comp = within = 0.0
    for dept in MEN:
        (am, rm), (af, rf) = MEN[dept], WOMEN[dept]
        w_m, w_f = (am + rm) / n_m, (af + rf) / n_f
        r_m, r_f = am / (am + rm), af / (af + rf)
        comp += (w_m - w_f) * (r_m + r_f) / 2
        within += (r_m - r_f) * (w_m + w_f) / 2
    out = female(berkeley_rows().fair.stratified("sex", "dept"))
    assert out["composition"] == pytest.approx(comp, rel=1e-12)
    assert out["within"] == pytest.approx(within, rel=1e-12)


def count_table(strata: list[tuple[int, int, int, int]]) -> pl.DataFrame:
    """Group a (cells a, b) against reference r (cells c, d) in each stratum; empty sides left
    out of the table, as a count table made elsewhere would."""
    rows = []
    for k, (a, b, c, d) in enumerate(strata):
        for g, sel, rej in (("a", a, b), ("r", c, d)):
            if sel + rej:
                rows.append({"g": g, "s": k, "n": sel + rej, "tp": sel, "fp": 0, "fn": rej,
                             "tn": 0})
    return pl.DataFrame(rows, schema={"g": pl.String, "s": pl.Int64, "n": pl.Int64,
                                      "tp": pl.Int64, "fp": pl.Int64, "fn": pl.Int64,
                                      "tn": pl.Int64})


side = st.one_of(st.just((0, 0)), st.tuples(st.integers(0, 25), st.integers(0, 25)))
stratum = st.tuples(side, side).map(lambda t: (*t[0], *t[1]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(stratum, min_size=1, max_size=6))
def test_pooled_statistics_equal_statsmodels_on_the_informative_strata(
        strata: list[tuple[int, int, int, int]]) -> None:
    table = count_table(strata)
    assume({"a", "r"} <= set(table["g"]))
    informative = [t for t in strata
                   if t[0] + t[1] and t[2] + t[3] and t[0] + t[2] and t[1] + t[3]]
    out = polars_fair.from_counts(table).stratified(
        strata="s", reference="r").collect()
    got = next(r for r in out.iter_rows(named=True) if r["g"] == "a")
    assert got["n_strata"] == len(informative)
    # Kitagawa: the identity holds whatever the strata
    assert got["gap"] == pytest.approx(got["composition"] + got["within"], abs=1e-12)
    assert got["gap"] == pytest.approx(got["reference_rate"] - got["selection_rate"], abs=1e-12)
    if not informative:
        assert got["mh_odds_ratio"] is None and got["cmh_statistic"] is None
        return
    oracle = StratifiedTable([np.array([[a, b], [c, d]], dtype=float)
                              for a, b, c, d in informative])
    r_sum = sum(a * d / (a + b + c + d) for a, b, c, d in informative)
    s_sum = sum(b * c / (a + b + c + d) for a, b, c, d in informative)
    if r_sum > 0 and s_sum > 0:
        assert got["mh_odds_ratio"] == pytest.approx(oracle.oddsratio_pooled, rel=1e-9)
        low, high = oracle.oddsratio_pooled_confint()
        assert got["mh_ci_low"] == pytest.approx(low, rel=1e-9)
        assert got["mh_ci_high"] == pytest.approx(high, rel=1e-9)
        if len(informative) >= 2 and got["mh_odds_ratio"] != 1.0:
            bd = oracle.test_equal_odds(adjust=True)
            assert got["breslow_day_statistic"] == pytest.approx(bd.statistic, rel=1e-6,
                                                                 abs=1e-9)
            assert got["breslow_day_p_value"] == pytest.approx(bd.pvalue, rel=1e-6, abs=1e-12)
    else:  # an odds ratio of 0 or infinity: undefined, as its interval
        assert got["mh_odds_ratio"] is None and got["mh_ci_low"] is None
    cmh = oracle.test_null_odds(correction=False)
    assert got["cmh_statistic"] == pytest.approx(cmh.statistic, rel=1e-9, abs=1e-12)
    assert got["cmh_p_value"] == pytest.approx(cmh.pvalue, rel=1e-9, abs=1e-12)
    deviation = abs(sum(a - (a + b) * (a + c) / (a + b + c + d) for a, b, c, d in informative))
    if deviation >= 0.5:  # statsmodels squares |D| - 1/2 even when negative; R clamps it at 0
        corrected = polars_fair.from_counts(table).stratified(
            strata="s", reference="r", continuity_correction=True).collect()
        want = oracle.test_null_odds(correction=True)
        assert corrected["cmh_statistic"][0] == pytest.approx(want.statistic, rel=1e-9,
                                                              abs=1e-12)


def test_uninformative_strata_are_left_out_and_counted() -> None:
    # stratum 1: the reference alone (composition only); stratum 2: nobody selected
    strata = [(10, 20, 15, 5), (0, 0, 30, 10), (0, 12, 0, 8), (7, 3, 12, 9)]
    got = polars_fair.from_counts(count_table(strata)).stratified(
        strata="s", reference="r").collect().row(0, named=True)
    assert got["n_strata"] == 2
    oracle = StratifiedTable([np.array([[10, 20], [15, 5]]), np.array([[7, 3], [12, 9]])])
    assert got["mh_odds_ratio"] == pytest.approx(oracle.oddsratio_pooled, rel=1e-12)
    # hand: the group's rate 17/52, the reference's 57/89
    assert got["selection_rate"] == pytest.approx(17 / 52) and got["gap"] == pytest.approx(
        57 / 89 - 17 / 52)


def test_weights_count_rows_in_the_tests_and_weight_units_in_the_rates() -> None:
    rows = berkeley_rows().with_columns(w=pl.lit(3.0))
    plain = female(rows.fair.stratified("sex", "dept"))
    weighted = female(rows.fair.stratified("sex", "dept", sample_weight="w"))
    for column in ("mh_odds_ratio", "mh_ci_low", "cmh_statistic", "breslow_day_statistic",
                   "selection_rate", "impact_ratio", "gap", "composition", "within"):
        assert weighted[column] == pytest.approx(plain[column], rel=1e-12), column


def test_several_strata_attributes_are_their_combinations() -> None:
    rows = berkeley_rows().with_columns(half=pl.int_range(pl.len()) % 2)
    one = female(rows.fair.stratified("sex", ["dept", "half"]))
    assert one["n_strata"] == 12
    from_table = polars_fair.counts(rows, ["sex", "dept", "half"]).stratified(
        strata=["dept", "half"]).collect()
    assert female(from_table) == one


@pytest.mark.data
def test_solasai_segmented_cmh_and_breslow_day_p_values() -> None:
    figures = json.loads(require(ROOT.parent / "shared" / "oracles" / "peer-figures.json")
                         .read_text())["solasai_hmda_example"]["Segmented AIR"]["summary"]
    # Native American: |sum(a - E a)| = 0.3857 < 1/2, where (|D| - 1/2)^2 / V = 0.0032 (SolasAI
    # and statsmodels' test_null_odds(correction=True)); flooring |D| - 1/2 at 0 gave p = 1
    for group, ref in (("Hispanic", "Non-Hispanic"), ("Female", "Male"), ("Black", "White"),
                       ("Native American", "White")):
        rows = [r for r in figures if r["Group"] in (group, ref) and "Test" not in r["Segment"]]
        table = pl.DataFrame({
            "g": [r["Group"] for r in rows], "segment": [r["Segment"] for r in rows],
            "n": [int(r["Total"]) for r in rows], "tp": [int(r["Favorable"]) for r in rows],
            "fp": [0] * len(rows), "fn": [int(r["Total"] - r["Favorable"]) for r in rows],
            "tn": [0] * len(rows)})
        got = polars_fair.from_counts(table).stratified(
            strata="segment", reference=ref, continuity_correction=True).collect()
        mine = next(r for r in got.iter_rows(named=True) if r["g"] == group)
        cmh = next(r for r in figures if r["Group"] == group and r["Segment"] == "CMH Test")
        bd = next(r for r in figures if r["Group"] == group
                  and r["Segment"] == "Breslow-Day Test")
        # SolasAI: CMH with the continuity correction, Breslow-Day with Tarone's adjustment
        assert mine["cmh_p_value"] == pytest.approx(cmh["P-Values"], rel=1e-6)
        assert mine["breslow_day_p_value"] == pytest.approx(bd["P-Values"], rel=1e-6)


def test_bad_calls_are_typed_errors() -> None:
    rows = berkeley_rows()
    with pytest.raises(E.InvalidArgumentError) as err:
        rows.fair.stratified("sex", [])
    assert str(err.value) == NO_STRATA
    for bad in (3, {"dept"}, ["dept", 3]):  # 3 was a TypeError of Python's
        with pytest.raises(E.InvalidArgumentError) as err:
            rows.fair.stratified("sex", bad)  # type: ignore[arg-type]
        assert str(err.value) == NO_STRATA
    with pytest.raises(E.InvalidArgumentError) as err:
        rows.fair.stratified(["sex", "dept"], "dept")
    assert str(err.value) == STRATUM_IN_BY.format(column="dept")
    # a stratum the count table lacks: the argument strata is named, as a missing column
    # (was an InvalidArgumentError of its own while the rows' way in said "(by)")
    with pytest.raises(E.ColumnNotFoundError) as missing:
        polars_fair.counts(rows, "sex").stratified(strata="dept").collect()
    assert str(missing.value) == E.MISSING_COLUMN.format(column="dept", role="strata",
                                                         available="['sex']")
    # attribute sets: their keys mix groups and strata (it read 'dept' as a missing stratum)
    for call in (lambda: rows.fair.stratified("sex", "dept", combinations="all"),
                 lambda: polars_fair.counts(rows, ["sex", "dept"], combinations="all")
                 .stratified(strata="dept").collect()):
        with pytest.raises(E.InvalidArgumentError) as err:
            call()
        assert str(err.value) == NO_SETS
    with pytest.raises(E.InvalidArgumentError, match="reference"):
        rows.fair.stratified("sex", "dept", reference="overall")
    with pytest.raises(E.InvalidArgumentError, match="continuity_correction"):
        rows.fair.stratified("sex", "dept", continuity_correction="yes")  # type: ignore[arg-type]


def test_strata_that_leave_no_group_raise_the_same_error_on_every_way_in() -> None:
    """Every key a stratum: nothing to compare. Was an empty table on the count table (and the
    command line, tests/cli); now the one typed error naming by and strata, whichever way in."""
    rows = berkeley_rows()
    want = NO_GROUPS.format(keys=["dept"], strata=["dept"])
    for call in (lambda: rows.fair.stratified(None, "dept"),
                 lambda: rows.lazy().fair.stratified(strata="dept").collect(),
                 lambda: polars_fair.counts(rows, "dept").stratified(strata="dept").collect(),
                 lambda: polars_fair.from_counts(polars_fair.counts(rows, "dept").frame)
                 .stratified(strata="dept").collect()):
        with pytest.raises(E.InvalidArgumentError) as err:
            call()
        assert str(err.value) == want


def test_a_missing_stratum_names_strata_on_every_way_in() -> None:
    rows = berkeley_rows()
    cols = "['sex', 'dept', 'y_true', 'y_pred']"
    for call, available in (
            (lambda: rows.fair.stratified("sex", "year"), cols),
            (lambda: rows.lazy().fair.stratified("sex", ["dept", "year"]).collect(), cols),
            (lambda: polars_fair.counts(rows, ["sex", "dept"]).stratified(
                strata="year").collect(), "['sex', 'dept']"),
            (lambda: polars_fair.counts(rows, ["sex", "dept"]).stratified(
                "sex", strata="year").collect(), "['sex', 'dept']")):
        with pytest.raises(E.ColumnNotFoundError) as err:
            call()
        assert str(err.value) == E.MISSING_COLUMN.format(column="year", role="strata",
                                                         available=available)


def test_a_group_whose_weights_sum_to_zero_has_no_statistics() -> None:
    """Female rows all weigh 0: she has no applicants in any stratum (weighted), so no stratum
    is informative and every statistic of hers is null (was a CMH of 2.0 from her row count)."""
    df = pl.DataFrame({"sex": ["F"] * 4 + ["M"] * 4, "dept": ["A", "B", "B", "B"] * 2,
                       "y_true": [1] * 8, "y_pred": [1, 0, 0, 1, 1, 1, 0, 0],
                       "w": [0.0] * 4 + [1.0] * 4})
    f = female_row(df.fair.stratified("sex", "dept", reference="M", sample_weight="w"))
    assert f["n"] == 4 and f["n_strata"] == 0
    for column in ("selection_rate", "impact_ratio", "mh_odds_ratio", "mh_ci_low", "cmh_statistic",
                   "cmh_p_value", "breslow_day_statistic", "gap", "composition", "within"):
        assert f[column] is None, column


def female_row(df: pl.DataFrame) -> dict[str, Any]:
    return next(r for r in df.iter_rows(named=True) if r["sex"] == "F")


def test_equal_rates_in_weights_give_a_gap_of_exactly_zero() -> None:
    """Women weigh 0.1, men 0.3; in each department both sides select the same share (1 of 2
    in A, 1 of 4 in B: weighted 0.1 of 0.2 against 0.3 of 0.6, 0.1 of 0.4 against 0.3 of 1.2)
    and apply alike (a third in A), so by hand gap = composition = within = 0 exactly. In
    floats the sums left 5.6e-17 in the gap; the rationals of the sums as they print do not."""
    sel = [1, 0, 1, 0, 0, 0]  # dept A: 1 of 2, dept B: 1 of 4
    df = pl.DataFrame({"sex": ["F"] * 6 + ["M"] * 6, "dept": ["A", "A", "B", "B", "B", "B"] * 2,
                       "y_true": [1] * 12, "y_pred": sel * 2, "w": [0.1] * 6 + [0.3] * 6})
    f = female_row(df.fair.stratified("sex", "dept", reference="M", sample_weight="w"))
    assert f["selection_rate"] == pytest.approx(1 / 3) and f["impact_ratio"] == pytest.approx(1)
    assert (f["gap"], f["composition"], f["within"]) == (0.0, 0.0, 0.0)


def test_a_count_table_takes_strata_by_position_as_the_rows_do() -> None:
    """df.fair.stratified("sex", "dept") and counts(...).stratified("sex", "dept"): one
    signature on both ways in (the count table wanted strata= by keyword)."""
    rows = berkeley_rows()
    table = polars_fair.counts(rows, ["sex", "dept"])
    assert table.stratified("sex", "dept").collect().equals(rows.fair.stratified("sex", "dept"))
    assert table.stratified(None, "dept").collect().equals(rows.fair.stratified("sex", "dept"))


def test_a_strata_expression_is_refused_with_the_name_to_pass() -> None:
    """strata=pl.col("dept") said 'stratified needs strata=' though strata was given."""
    rows = berkeley_rows()
    for strata in (pl.col("dept"), [pl.col("dept")]):
        with pytest.raises(E.InvalidArgumentError) as err:
            rows.fair.stratified("sex", strata)  # type: ignore[arg-type]
        assert str(err.value) == E.STRATA_EXPRESSION.format(
            value=pl.col("dept"), advice=E.STRATA_BY_NAME.format(name="dept"))
        assert str(err.value).endswith("pass strata='dept'")
    computed = pl.col("dept").is_in(["A", "B"])
    with pytest.raises(E.InvalidArgumentError) as err:
        polars_fair.counts(rows, ["sex", "dept"]).stratified(
            strata=computed)  # type: ignore[arg-type]
    assert str(err.value) == E.STRATA_EXPRESSION.format(value=computed,
                                                        advice=E.STRATA_COMPUTED)
    # both advices followed: the name, and the computed stratum added as a column first
    assert rows.fair.stratified("sex", strata="dept").equals(rows.fair.stratified("sex", "dept"))
    added = rows.with_columns(stratum=computed).fair.stratified("sex", strata="stratum")
    assert added["n_strata"].to_list() == [2, None]  # A-or-B against the rest, for Female


def test_a_reference_naming_a_stratum_says_it_is_a_stratum() -> None:
    """{"dept": "A"} said 'reference mapping must name exactly the attributes ['sex']'."""
    rows = berkeley_rows()
    for reference in ({"dept": "A"}, {"sex": "Male", "dept": "A"}):
        with pytest.raises(E.InvalidArgumentError) as err:
            rows.fair.stratified("sex", "dept", reference=reference)
        assert str(err.value) == E.REFERENCE_IS_STRATUM.format(column="dept", groups=["sex"])
    # its advice followed: the reference named by the group attribute only
    assert rows.fair.stratified("sex", "dept", reference={"sex": "Male"}).equals(
        rows.fair.stratified("sex", "dept", reference="Male"))
