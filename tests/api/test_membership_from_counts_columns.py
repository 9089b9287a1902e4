"""``from_counts`` reads a membership count table only whole (issue 24, fresh-user review part
2, items 1 and 2): ``n_effective`` and ``attenuation`` come together, and Kish's size is at
least 1 wherever a weight is positive."""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

M = {"g": {"a": "p_a", "b": "p_b"}}


def _table(weights: bool = False) -> pl.DataFrame:
    """40 rows: p_a = 0.5, 0.5, 1, 0 repeated 10 times (p_b = 1 - p_a), w = 1, 2, 1, 1.

    By hand for a without weights: n = 30, weight_sum = 20, Σp² = 15, n_effective = 400/15.
    With weights: weight_sum Σ w·p = 10·(0.5 + 1 + 1) = 25, Σ (w·p)² = 10·(0.25 + 1 + 1) =
    22.5, n_effective = 625 / 22.5 = 27.78; b the same by symmetry.
    """
    df = pl.DataFrame({"y_true": [1, 0, 1, 0] * 10, "y_pred": [1, 1, 0, 0] * 10,
                       "p_a": [0.5, 0.5, 1.0, 0.0] * 10, "p_b": [0.5, 0.5, 0.0, 1.0] * 10,
                       "w": [1.0, 2.0, 1.0, 1.0] * 10})
    table = polars_fair.counts(df, membership=M, sample_weight="w" if weights else None)
    return table.frame.collect()


@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("dropped", ["attenuation", "n_effective"])
def test_a_membership_table_lacking_a_column_is_refused_naming_it(weights: bool,
                                                                  dropped: str) -> None:
    # before: without attenuation a raw ColumnNotFoundError with a plan dump at report time;
    # without n_effective the table read as a crisp weighted one (intervals on n = 30 rows)
    table = _table(weights).drop(dropped)
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_counts(table)
    present = [c for c in ("n_effective", "attenuation", "row_weight_sum")
               if c in table.columns]
    assert str(info.value) == E.MEMBERSHIP_INCOMPLETE.format(missing=dropped,
                                                             present=", ".join(present))


def test_row_weight_sum_alone_is_refused_naming_both() -> None:
    table = _table(weights=True).drop("n_effective", "attenuation")
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_counts(table)
    assert str(info.value) == E.MEMBERSHIP_INCOMPLETE.format(
        missing="n_effective, attenuation", present="row_weight_sum")


def test_the_advice_followed_either_way() -> None:
    table = _table(weights=True)
    # dropped: an ordinary weighted count table, whose interval sizes are the rows (n = 30)
    crisp = polars_fair.from_counts(table.drop("n_effective", "attenuation", "row_weight_sum"))
    assert crisp.report().collect()["selection_rate"].to_list() == pytest.approx(
        [15 / 25, 15 / 25], rel=1e-12)  # tp 10·0.5 + fp 10·2·0.5 of weight_sum 25
    # the whole table: read with its Kish size 625 / 22.5
    whole = polars_fair.from_counts(table).frame.collect()
    assert whole["n_effective"].to_list() == pytest.approx([625 / 22.5] * 2, rel=1e-12)


@pytest.mark.parametrize("value", [1e-9, 0.5])
def test_n_effective_between_0_and_1_with_weight_is_refused(value: float) -> None:
    # (Σ a)² >= Σ a² for a >= 0: Kish's size is at least 1 where weight_sum (25) is positive
    table = _table(weights=True).with_columns(n_effective=pl.Series([value, 625 / 22.5]))
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.from_counts(table).report().collect()
    message = str(info.value)
    assert message.startswith("membership count table: n_effective must be at least 1 where "
                              "weight_sum is above 0"), message
    assert "; 1 row(s) are not (first such row: {'g': 'a', 'n': 30" in message


def test_n_effective_of_exactly_1_is_accepted() -> None:
    # one weight dominating every other: a size of 1 is possible (a single effective row)
    table = _table(weights=True).with_columns(n_effective=pl.Series([1.0, 625 / 22.5]))
    assert polars_fair.from_counts(table).report().collect().height == 2
