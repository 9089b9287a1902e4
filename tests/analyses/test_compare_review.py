"""Issue 25's review, smaller items: compare's pos_label check, monitor on one group, a paired
table's n_positive_weight, subnormal weights in compare's intervals. Every expected value is
worked by hand here.
"""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from polars_fair.counting.paired import PAIRED_CELLS

#: Two groups of 4 rows, every label 0 and every baseline decision 0; the candidate selects
#: rows 1 and 4 of each group (a: 1, 0, 0, 1; b: the same), so its rate is 2/4 in both.
ZEROS = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y": [0] * 8, "old": [0] * 8,
                      "new": [1, 0, 0, 1] * 2})


def test_compare_takes_a_label_and_baseline_of_zeros_when_the_candidate_selects() -> None:
    # pos_label=1 occurs in the candidate: a real comparison (it was refused as "in neither")
    out = ZEROS.fair.compare("g", y_pred="new", baseline="old", y_true="y", pos_label=1,
                             min_support=1)
    assert out["selection_rate"].to_list() == [0.5, 0.5]
    assert out["selection_rate_baseline"].to_list() == [0.0, 0.0]
    assert out["selection_rate_change"].to_list() == [0.5, 0.5]
    assert out["fpr"].to_list() == [0.5, 0.5]  # 2 false positives of 4 negatives
    assert out["tpr"].to_list() == [None, None]  # no positive label: undefined


def test_compare_names_all_three_columns_when_no_one_holds_pos_label() -> None:
    rows = ZEROS.with_columns(new=pl.lit(0))
    with pytest.raises(E.InvalidLabelError) as info:
        rows.fair.compare("g", y_pred="new", baseline="old", y_true="y", pos_label=1)
    assert str(info.value) == E.POS_LABEL_ABSENT_PAIRED.format(
        pos_label=1, y_true="y", y_pred="new", baseline="old", values="[0]")
    # the advice followed: pos_label= a value the columns hold
    out = rows.fair.compare("g", y_pred="new", baseline="old", y_true="y", pos_label=0,
                            min_support=1)
    assert out["selection_rate"].to_list() == [1.0, 1.0]


def test_monitor_on_one_group_warns_naming_by() -> None:
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=k) for k in range(14)]
    rows = pl.DataFrame({"g": ["a"] * 14, "t": days, "p": [1, 0] * 7})
    with pytest.warns(UserWarning) as caught:
        m = rows.fair.monitor("g", time="t", every="1w", y_pred="p", min_support=1)
    assert [str(w.message) for w in caught] == [E.MONITOR_ONE_GROUP.format(keys="'g'")]
    # the rates still hold: 7 days a week from Monday 2024-01-01, 1, 0, 1, ... -> 4/7, 3/7
    assert m["rate"].to_list() == [4 / 7, 3 / 7]
    assert m["difference"].null_count() == 2


def _paired(weighted: bool) -> pl.DataFrame:
    t = pl.DataFrame({"g": ["a", "b"], "n": [2, 2], **{c: [0, 0] for c in PAIRED_CELLS}})
    t = t.with_columns(y1_p1_b1=pl.lit(2), n_positive_weight=pl.lit(2))
    return t.with_columns(weight_sum=pl.lit(2.0), y1_p1_b1=pl.lit(2.0)) if weighted else t


def test_from_paired_counts_refuses_n_positive_weight_without_weights() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_paired_counts(_paired(False))
    assert str(info.value) == "paired " + E.POSITIVE_ROWS_UNWEIGHTED.replace(
        "weighted cells", "weighted cells of the paired table")
    # the advice followed (drop it), and the weighted table with it, are accepted
    assert polars_fair.from_paired_counts(_paired(False).drop("n_positive_weight")) \
        .compare(min_support=1).collect()["n"].to_list() == [2, 2]
    assert polars_fair.from_paired_counts(_paired(True)).compare(min_support=1) \
        .collect()["n"].to_list() == [2, 2]


#: 40 rows: group a selected 10 of 20 by the candidate and 5 by the baseline, b 10 and 10.
WEIGHTED = pl.DataFrame({
    "g": ["a"] * 20 + ["b"] * 20, "y": [1, 0] * 20,
    "new": [1] * 10 + [0] * 10 + [1] * 10 + [0] * 10,
    "old": [1] * 5 + [0] * 15 + [1] * 10 + [0] * 10,
    "w": [1.0, 3.0] * 20,
})


def test_subnormal_weights_give_the_intervals_of_the_same_weights_at_scale() -> None:
    # weights x 1e-310 (subnormal): rows per unit of weight, n / weight_sum, overflowed to
    # infinity and every interval came out null with numpy warnings (errors in the tests).
    # The intervals count rows, so a constant factor changes none of them: they equal the
    # original weights' (to the 5e-14 precision a subnormal keeps)
    cols = ["selection_rate_change", "selection_rate_change_low", "selection_rate_change_high",
            "impact_ratio_change_low", "impact_ratio_change_high", "tpr_change_low",
            "fpr_change_high", "ofi_change_low", "ofi_change_high"]
    tiny = WEIGHTED.with_columns(w=pl.col("w") * 1e-310).fair.compare(
        "g", y_pred="new", baseline="old", y_true="y", sample_weight="w").select(cols)
    plain = WEIGHTED.fair.compare("g", y_pred="new", baseline="old", y_true="y",
                                  sample_weight="w").select(cols)
    assert tiny.null_count().row(0) == plain.null_count().row(0) == (0,) * len(cols)
    for got, want in zip(tiny.rows(), plain.rows(), strict=True):
        assert got == pytest.approx(want, rel=1e-9)
    # by hand: a's candidate selects rows 1-10 (weights 1, 3, ...: 20 of 40), the baseline
    # rows 1-5 (1 + 3 + 1 + 3 + 1 = 9 of 40): change 11/40
    assert tiny["selection_rate_change"].to_list()[0] == pytest.approx(11 / 40)


def test_weighted_compare_shows_the_rows_of_positive_weight() -> None:
    # a: 4 rows, 2 of weight 0; b: 4 rows of weight 1. The support low_support reads is 2 for
    # a and 4 for b (at min_support 3: a is low support, b not), and compare now shows it
    rows = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y": [1, 0, 1, 0] * 2,
                         "new": [1, 1, 0, 0] * 2, "old": [1, 0, 0, 0] * 2,
                         "w": [0.0, 0.0, 1.0, 1.0] + [1.0] * 4})
    out = rows.fair.compare("g", y_pred="new", baseline="old", y_true="y", sample_weight="w",
                            min_support=3)
    assert out.columns[:3] == ["g", "n", "n_positive_weight"]
    assert out.select("n", "n_positive_weight", "low_support").rows() == [
        (4, 2, True), (4, 4, False)]
    # unweighted: no such column (n is the support)
    plain = rows.fair.compare("g", y_pred="new", baseline="old", y_true="y", min_support=3)
    assert "n_positive_weight" not in plain.columns


def test_the_page_shows_each_change_with_its_interval() -> None:
    from polars_fair.audit.html.comparison import _change

    r = {"ofi_change": -0.3, "ofi_change_low": -0.4, "ofi_change_high": -0.2}
    assert _change(r, "ofi") == "−0.300 [−0.400, −0.200]"
    r = {"ofi_change": None, "ofi_change_low": None, "ofi_change_high": None}
    assert _change(r, "ofi") == "—"  # undefined, as every undefined figure on the page
