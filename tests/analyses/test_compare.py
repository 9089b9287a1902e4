"""df.fair.compare: a candidate against its baseline, paired (issue 25, item 1).

Expected values: a paired table worked by hand below, statsmodels' exact McNemar test (a
test-only oracle) on random paired tables, Newcombe's interval recomputed here from its formula
with the standard library only, and the house report on each model alone.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
import scipy.stats as sps
from polars.testing import assert_frame_equal
from statsmodels.stats.contingency_tables import mcnemar

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.analyses.compare import mcnemar_exact, paired_difference_interval
from polars_fair.counting.paired import PAIRED_CELLS

# Group a (10 rows) and b (10 rows). Label, candidate ("new"), baseline ("old"), per row:
#   a: (y, new, old) = 3 x (1,1,1), 1 x (1,1,0), 1 x (1,0,1), 2 x (0,1,0), 3 x (0,0,0)
#   b: 2 x (1,1,1), 2 x (1,0,1), 1 x (0,1,1), 1 x (0,0,1), 4 x (0,0,0)
ROWS = ([("a", 1, 1, 1)] * 3 + [("a", 1, 1, 0)] + [("a", 1, 0, 1)] + [("a", 0, 1, 0)] * 2
        + [("a", 0, 0, 0)] * 3 + [("b", 1, 1, 1)] * 2 + [("b", 1, 0, 1)] * 2
        + [("b", 0, 1, 1)] + [("b", 0, 0, 1)] + [("b", 0, 0, 0)] * 4)
HAND = pl.DataFrame(ROWS, schema=["g", "y_true", "new", "old"], orient="row")


def _compare(**kw: object) -> pl.DataFrame:
    return HAND.fair.compare("g", y_pred="new", baseline="old", y_true="y_true",
                             min_support=1, **kw)  # type: ignore[arg-type]


def test_the_paired_cells_of_the_hand_table() -> None:
    t = polars_fair.paired_counts(HAND, "g", y_pred="new", baseline="old", y_true="y_true")
    got = t.frame.collect()
    # a: y1_p1_b1 3, y1_p1_b0 1, y1_p0_b1 1, y1_p0_b0 0, y0_p1_b1 0, y0_p1_b0 2, y0_p0_b1 0,
    #    y0_p0_b0 3; b: 2, 0, 2, 0, 1, 0, 1, 4
    assert got.rows() == [("a", 10, 3, 1, 1, 0, 0, 2, 0, 3), ("b", 10, 2, 0, 2, 0, 1, 0, 1, 4)]


def test_each_models_rates_and_changes_by_hand() -> None:
    out = _compare().rows(named=True)
    a, b = out
    # selection: a new 6/10, old 4/10; b new 3/10, old 6/10
    assert (a["selection_rate"], a["selection_rate_baseline"]) == (0.6, 0.4)
    assert (b["selection_rate"], b["selection_rate_baseline"]) == (0.3, 0.6)
    assert a["selection_rate_change"] == pytest.approx(0.2)
    assert b["selection_rate_change"] == pytest.approx(-0.3)
    # impact ratio over the highest rate: new a 0.6 -> b 0.3/0.6 = 0.5; old b 0.6 -> a 0.4/0.6
    assert b["impact_ratio"] == pytest.approx(0.5)
    assert a["impact_ratio_baseline"] == pytest.approx(2 / 3)
    assert (a["adverse_impact"], a["adverse_impact_baseline"]) == (False, True)
    assert (b["adverse_impact"], b["adverse_impact_baseline"]) == (True, False)
    assert a["adverse_impact_changed"] and b["adverse_impact_changed"]
    # tpr a: new 4/5, old 4/5; fpr a: new 2/5, old 0/5
    assert (a["tpr"], a["tpr_baseline"], a["fpr"], a["fpr_baseline"]) == (0.8, 0.8, 0.4, 0.0)
    # tpr b: new 2/4, old 4/4; fpr b: new 1/6, old 2/6
    assert b["tpr_change"] == pytest.approx(-0.5)
    assert b["fpr_change"] == pytest.approx(1 / 6 - 2 / 6)
    # OFI vs a (largest, first in key order): B = (FP - FN)/n; new: a (2-1)/10, b (1-2)/10;
    # old: a (0-1)/10, b (2-0)/10 -> ofi_b new -0.2, old 0.3, change -0.5
    assert b["ofi"] == pytest.approx(-0.2)
    assert b["ofi_baseline"] == pytest.approx(0.3)
    assert b["ofi_change"] == pytest.approx(-0.5)
    assert a["ofi_change"] == 0.0 and a["ofi_change_low"] == 0.0 == a["ofi_change_high"]


def test_mcnemar_p_values_by_hand() -> None:
    a, b = _compare().rows(named=True)
    # selection, a: only new selects 3 (y1_p1_b0 1 + y0_p1_b0 2), only old 1:
    # p = 2 P(X <= 1), X ~ Bin(4, 1/2) = 2 * 5/16
    assert a["mcnemar_p_value"] == pytest.approx(10 / 16)
    # b: only new 0, only old 3 (y1_p0_b1 2 + y0_p0_b1 1): p = 2 * (1/8)
    assert b["mcnemar_p_value"] == pytest.approx(0.25)
    # errors, a: only new wrong: y1_p0_b1 1 + y0_p1_b0 2 = 3; only old wrong y1_p1_b0 1 = 1
    assert a["error_mcnemar_p_value"] == pytest.approx(10 / 16)
    # b: only new wrong y1_p0_b1 2; only old wrong y0_p0_b1 1: 2 P(X <= 1), X ~ Bin(3, 1/2)
    assert b["error_mcnemar_p_value"] == pytest.approx(1.0)
    mid = _compare(mid_p=True).rows(named=True)
    # mid-p: exact minus P(X = min): a 10/16 - 4/16, b 1/4 - 1/8
    assert mid[0]["mcnemar_p_value"] == pytest.approx(6 / 16)
    assert mid[1]["mcnemar_p_value"] == pytest.approx(1 / 8)


def test_mid_p_is_one_when_the_discordant_counts_are_equal() -> None:
    # Fagerland, Lydersen & Laake (2013): mid-p = 2 P(X <= k) - P(X = k), k = min(b, c).
    # b = c = 1, X ~ Bin(2, 1/2): 2 * 3/4 - 2/4 = 1 (capping 2 P(X <= k) first gave 1/2).
    # b = c = 5, X ~ Bin(10, 1/2): 2 * 638/1024 - 252/1024 = 1 (it gave 0.754).
    got = mcnemar_exact([1, 5], [1, 5], mid_p=True)
    assert got[0] == pytest.approx(2 * 3 / 4 - 2 / 4)
    assert got[1] == pytest.approx(2 * 638 / 1024 - 252 / 1024)
    assert got[1] == pytest.approx(1.0)
    # b = 7, c = 3 (and the mirror), X ~ Bin(10, 1/2): 2 * 176/1024 - 120/1024 = 232/1024.
    assert mcnemar_exact([7, 3], [3, 7], mid_p=True) == pytest.approx([232 / 1024] * 2)
    for b, c in [(1, 1), (5, 5), (7, 3), (0, 4), (12, 9)]:
        k, n = min(b, c), b + c
        expected = min(1.0, 2 * sps.binom.cdf(k, n, 0.5) - sps.binom.pmf(k, n, 0.5))
        assert mcnemar_exact([b], [c], mid_p=True)[0] == pytest.approx(expected, rel=1e-12)


def test_mcnemar_equals_statsmodels_exact_on_random_paired_tables() -> None:
    rng = np.random.default_rng(25)
    for _ in range(200):
        table = rng.integers(0, 40, size=(2, 2))
        table[0, 1] = rng.integers(0, 15)
        expected = mcnemar(table, exact=True).pvalue
        got = mcnemar_exact([table[0, 1]], [table[1, 0]])[0]
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def _wilson(x: float, n: float, z: float) -> tuple[float, float]:
    centre, half = (x + z * z / 2) / (n + z * z), z / (n + z * z) * math.sqrt(
        x * (n - x) / n + z * z / 4)
    return centre - half, centre + half


@pytest.mark.parametrize("cells", [(36, 12, 2, 0), (10, 5, 1, 30), (0, 0, 0, 9),
                                   (5, 0, 7, 3)])
def test_newcombe_paired_interval_from_its_formula(cells: tuple[int, int, int, int]) -> None:
    a, b, c, d = cells
    n, z = a + b + c + d, 1.959963984540054
    p1, p2 = (a + b) / n, (a + c) / n
    (l1, u1), (l2, u2) = _wilson(a + b, n, z), _wilson(a + c, n, z)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    ad_bc = a * d - b * c
    corr = ad_bc - n / 2 if ad_bc > n / 2 else (ad_bc if ad_bc < 0 else 0)
    phi = corr / math.sqrt(margins) if margins else 0.0
    low = p1 - p2 - math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2)
                                  + (u2 - p2) ** 2, 0))
    high = p1 - p2 + math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2)
                                   + (p2 - l2) ** 2, 0))
    got_low, got_high = paired_difference_interval([a], [b], [c], [d])
    assert got_low[0] == pytest.approx(max(low, -1), abs=1e-12)
    assert got_high[0] == pytest.approx(min(high, 1), abs=1e-12)
    assert got_low[0] <= (b - c) / n <= got_high[0]


def test_selection_change_interval_is_newcombes_on_the_discordant_pairs() -> None:
    a, _ = _compare().rows(named=True)
    # a: both select 3, only new 3, only old 1, neither 3
    low, high = paired_difference_interval([3], [3], [1], [3])
    assert (a["selection_rate_change_low"], a["selection_rate_change_high"]) == (low[0], high[0])


def test_each_model_is_the_house_report_of_that_model_alone() -> None:
    out = _compare()
    for col, suffix in (("new", ""), ("old", "_baseline")):
        rep = HAND.fair.report("g", y_pred=col, min_support=1)
        for m in ("selection_rate", "impact_ratio", "tpr", "fpr", "ofi"):
            assert out[m + suffix].to_list() == rep[m].to_list()
        assert out["adverse_impact" + suffix].to_list() == rep["adverse_impact"].to_list()


def test_from_paired_counts_equals_the_rows_and_lazy_equals_eager() -> None:
    table = polars_fair.paired_counts(HAND, "g", y_pred="new", baseline="old",
                                      y_true="y_true").frame.collect()
    pos, neg = PAIRED_CELLS[:4], PAIRED_CELLS[4:]
    halves = pl.concat([  # the positives' rows and the negatives' rows, as two partial tables
        table.with_columns(*(pl.lit(0, pl.Int64).alias(c) for c in neg),
                           n=pl.sum_horizontal(pos)),
        table.with_columns(*(pl.lit(0, pl.Int64).alias(c) for c in pos),
                           n=pl.sum_horizontal(neg))])
    again = polars_fair.from_paired_counts(halves, "g").compare(min_support=1).collect()
    assert_frame_equal(again, _compare())
    lazy = HAND.lazy().fair.compare("g", y_pred="new", baseline="old", y_true="y_true",
                                    min_support=1)
    assert_frame_equal(lazy.collect(engine="streaming"), _compare())


def test_without_labels_only_selection_is_compared() -> None:
    out = HAND.fair.compare("g", y_pred="new", baseline="old", min_support=1)
    assert out.columns == [
        "g", "n", "selection_rate", "selection_rate_baseline", "selection_rate_change",
        "selection_rate_change_low", "selection_rate_change_high", "impact_ratio",
        "impact_ratio_baseline", "impact_ratio_change", "impact_ratio_change_low",
        "impact_ratio_change_high", "mcnemar_p_value", "adverse_impact",
        "adverse_impact_baseline", "adverse_impact_changed", "is_reference", "low_support"]
    assert out["mcnemar_p_value"].to_list() == _compare()["mcnemar_p_value"].to_list()


def test_impact_ratio_change_interval_holds_the_change_and_is_zero_on_a_sure_top_group() -> None:
    rng = np.random.default_rng(3)
    n = 3000
    g = rng.choice(["a", "b", "c"], n)
    s = rng.random(n) + 0.05 * (g == "a")
    df = pl.DataFrame({"g": g, "new": s > 0.5, "old": s > 0.55})
    out = df.fair.compare("g", y_pred="new", baseline="old", pos_label=True).rows(named=True)
    for r in out:
        assert r["impact_ratio_change_low"] <= r["impact_ratio_change"] \
            <= r["impact_ratio_change_high"]
    # a is the top under both, but only by 0.05 over ~1,000 rows: its true ratio could be below
    # 1 under either model, so its change of 0 has an interval around 0 (issue 25 follow-up:
    # the top group's interval was [0, 0] by definition before)
    top = [r for r in out if r["impact_ratio"] == 1.0 and r["impact_ratio_baseline"] == 1.0]
    assert top and top[0]["impact_ratio_change_low"] < 0.0 < top[0]["impact_ratio_change_high"]
    # surely the top (0.3 above the others): its ratio's interval lies above 1 under both
    # models, so the change is [0, 0]
    s = rng.random(n) + 0.3 * (g == "a")
    df = pl.DataFrame({"g": g, "new": s > 0.5, "old": s > 0.55})
    out = df.fair.compare("g", y_pred="new", baseline="old", pos_label=True).rows(named=True)
    top = [r for r in out if r["impact_ratio"] == 1.0 and r["impact_ratio_baseline"] == 1.0]
    assert top and top[0]["impact_ratio_change_low"] == 0.0 == top[0]["impact_ratio_change_high"]


#: The baseline with 5 for its negative where the label has 0: the negatives differ.
FIVE = pl.when(pl.col("old") == 1).then(1).otherwise(5).alias("old")


def test_a_bad_baseline_is_named_with_its_role() -> None:
    bad = HAND.with_columns(old=pl.when(pl.col("g") == "a").then(2).otherwise(pl.col("old")))
    with pytest.raises(E.InvalidLabelError) as err:
        bad.fair.compare("g", y_pred="new", baseline="old", y_true="y_true")
    assert str(err.value) == E.TOO_MANY_VALUES.format(
        column="old", role="baseline", pos_label=1, values=E.show_values([0, 2]))
    nulls = HAND.with_columns(old=pl.when(pl.col("g") == "a").then(None).otherwise(1))
    with pytest.raises(E.NullValuesError, match="'old' \\(baseline\\) holds 10 null"):
        nulls.fair.compare("g", y_pred="new", baseline="old")
    with pytest.raises(E.InvalidArgumentError) as key:
        HAND.fair.compare(["g", "old"], y_pred="new", baseline="old")
    assert str(key.value) == E.BASELINE_IS_KEY.format(column="old")
    # the argument given is named (it said "(y_pred)" before: wrong, issue 25 review)
    with pytest.raises(E.ColumnNotFoundError, match="'older' \\(baseline\\)"):
        HAND.fair.compare("g", y_pred="new", baseline="older")
    with pytest.raises(E.InvalidLabelError, match="and baseline column 'old'"):
        HAND.fair.compare("g", y_pred="new", baseline=FIVE, y_true="y_true")


def test_the_html_audit_names_baseline_pred() -> None:
    from polars_fair.audit.html import audit_html

    with pytest.raises(E.ColumnNotFoundError, match="'older' \\(baseline_pred\\)"):
        audit_html(HAND, "g", y_pred="new", baseline_pred="older")
    with pytest.raises(E.InvalidLabelError, match="and baseline_pred column 'old'"):
        audit_html(HAND, "g", y_pred="new", baseline_pred=FIVE)


def test_a_bad_paired_table_is_refused() -> None:
    table = polars_fair.paired_counts(HAND, "g", y_pred="new", baseline="old").frame.collect()
    with pytest.raises(E.InvalidInputError) as neg:
        polars_fair.from_paired_counts(table.with_columns(y0_p0_b0=-1)).compare().collect()
    assert str(neg.value) == E.NEGATIVE_PAIRED_COUNT.format(
        column="y0_p0_b0", values=E.show_values([-1, -1]))
    with pytest.raises(E.InvalidInputError) as mismatch:
        polars_fair.from_paired_counts(table.with_columns(n=11)).compare().collect()
    assert str(mismatch.value) == E.PAIRED_N_MISMATCH.format(values=E.show_values([11, 11]))
    with pytest.raises(E.ColumnNotFoundError, match="'y1_p1_b1'"):
        polars_fair.from_paired_counts(table.drop("y1_p1_b1"))


def test_expressions_compare_two_thresholds_of_one_score() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "s": [0.2, 0.7, 0.55, 0.9]})
    out = df.fair.compare("g", y_pred=pl.col("s") >= 0.5, baseline=pl.col("s") >= 0.6,
                          pos_label=True, min_support=1)
    # a: new selects 0.7 (1/2), old 0.7 (1/2); b: new both (2/2), old 0.9 (1/2)
    assert out.select("g", "selection_rate", "selection_rate_baseline").rows() == [
        ("a", 0.5, 0.5), ("b", 1.0, 0.5)]


def _weighted_rows() -> pl.DataFrame:
    # Newcombe's (1998, Stat. Med. 17:2635, Table II) paired example, a = 36, b = 12, c = 2,
    # d = 0, as 50 rows whose weights (half 1, half 3) sum to 100: the weighted cells are
    # 72, 24, 4, 0, and rescaled to the 50 rows (x 50/100) they are Newcombe's table again
    rows = []
    for new, old, k in ((1, 1, 36), (1, 0, 12), (0, 1, 2)):
        rows += [("a", new, old, 1.0)] * (k // 2) + [("a", new, old, 3.0)] * (k // 2)
    # b: 50 rows, weight 2 each, the baseline selects 20, the candidate 10 of those
    rows += ([("b", 1, 1, 2.0)] * 10 + [("b", 0, 1, 2.0)] * 10 + [("b", 0, 0, 2.0)] * 30)
    return pl.DataFrame(rows, schema=["g", "new", "old", "w"], orient="row")


def test_weighted_intervals_count_rows_not_weight_sums() -> None:
    out = _weighted_rows().fair.compare("g", y_pred="new", baseline="old", sample_weight="w",
                                        min_support=1)
    a, b = out.rows(named=True)
    assert a["selection_rate_change"] == pytest.approx((24 - 4) / 100)
    # Newcombe's published method-10 interval for his table: 0.0569 to 0.3404
    assert a["selection_rate_change_low"] == pytest.approx(0.0569, abs=5e-5)
    assert a["selection_rate_change_high"] == pytest.approx(0.3404, abs=5e-5)
    # b: equal weights, so exactly the unweighted interval of (10, 0, 10, 30)
    low, high = paired_difference_interval([10], [0], [10], [30])
    assert (b["selection_rate_change_low"], b["selection_rate_change_high"]) == pytest.approx(
        (low[0], high[0]), abs=1e-12)
    # exact tests count people: no p-value from weighted sums
    assert out["mcnemar_p_value"].to_list() == [None, None]


def test_weighted_intervals_do_not_depend_on_the_scale_of_the_weights() -> None:
    rows = _weighted_rows()
    args: dict = dict(y_pred="new", baseline="old", sample_weight="w", min_support=1)
    one = rows.fair.compare("g", **args)
    many = rows.with_columns(pl.col("w") * 1000).fair.compare("g", **args)
    assert_frame_equal(one, many, rel_tol=1e-9)
    # every weight equal: the intervals are the unweighted ones (the p-values aside)
    even = rows.with_columns(w=pl.lit(7.0)).fair.compare("g", **args)
    plain = rows.fair.compare("g", y_pred="new", baseline="old", min_support=1)
    assert_frame_equal(even.drop("mcnemar_p_value", "n_positive_weight"),
                       plain.drop("mcnemar_p_value"), rel_tol=1e-9)
    # a weighted comparison shows its support: every row has weight 7 > 0
    assert even["n_positive_weight"].to_list() == even["n"].to_list()


def test_from_paired_counts_checks_cells_as_from_counts_does() -> None:
    table = polars_fair.paired_counts(HAND, "g", y_pred="new", baseline="old").frame.collect()
    half = table.with_columns(pl.col("y0_p0_b0") + 0.5, pl.col("n") + 0.5)
    with pytest.raises(E.InvalidArgumentError, match="'n' holds 2 non-integer"):
        polars_fair.from_paired_counts(half)
    # n whole, a cell not: the cell is named (weighted cells need weight_sum)
    cell = table.with_columns(pl.col("y0_p0_b0").cast(pl.Float64) + 0.5)
    with pytest.raises(E.InvalidArgumentError, match="'y0_p0_b0' holds 2 non-integer"):
        polars_fair.from_paired_counts(cell)
    with pytest.raises(E.InvalidArgumentError, match="'y1_p1_b0' .* must be numeric"):
        polars_fair.from_paired_counts(table.with_columns(pl.col("y1_p1_b0").cast(pl.String)))
    with pytest.raises(E.NullValuesError, match="'y1_p1_b0' holds 2 null"):
        polars_fair.from_paired_counts(table.with_columns(y1_p1_b0=pl.lit(None, pl.Int64)))


def test_from_paired_counts_takes_what_paired_counts_returns() -> None:
    paired = polars_fair.paired_counts(HAND, "g", y_pred="new", baseline="old",
                                       y_true="y_true")
    got = polars_fair.from_paired_counts(paired).compare(min_support=1).collect()
    assert_frame_equal(got, _compare())
    with pytest.raises(E.InvalidArgumentError, match="pass its .frame"):
        polars_fair.from_paired_counts({"g": ["a"]})  # type: ignore[arg-type]


def test_an_empty_group_has_no_mcnemar_p_value() -> None:
    table = polars_fair.paired_counts(HAND, "g", y_pred="new", baseline="old",
                                      y_true="y_true").frame.collect()
    empty = table.head(1).with_columns(g=pl.lit("z"), **{c: pl.lit(0, pl.Int64)
                                                         for c in ("n", *PAIRED_CELLS)})
    out = polars_fair.from_paired_counts(pl.concat([table, empty])).compare(
        min_support=1).collect()
    z = out.filter(pl.col("g") == "z").row(0, named=True)
    # no pairs: the rates are null, and so are the tests (not 1.0)
    assert (z["selection_rate"], z["mcnemar_p_value"], z["error_mcnemar_p_value"]) == (
        None, None, None)
