"""multiclass_report over several attribute sets (``combinations=``, ``max_order=``, a list of
lists), all from one class table.

The expected shares are counted by hand on a frame of 12 rows written below; the stacked layout
is the one ``report`` uses (``attributes`` first, keys outside a row's set null).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

# race a: 6 rows (sex m 4, f 2), race b: 6 rows (sex m 2, f 4)
# decisions:        a|m: hire hire hold deny   a|f: hire deny
#                   b|m: hold deny             b|f: hire hold hold deny
ROWS = pl.DataFrame({
    "race": ["a"] * 6 + ["b"] * 6,
    "sex": ["m", "m", "m", "m", "f", "f", "m", "m", "f", "f", "f", "f"],
    "d": ["hire", "hire", "hold", "deny", "hire", "deny",
          "hold", "deny", "hire", "hold", "hold", "deny"],
})
CLASSES = ["deny", "hold", "hire"]


def _rows(out: pl.DataFrame, attributes: list[str]) -> dict[tuple[Any, ...], dict[str, Any]]:
    part = out.filter(pl.col("attributes") == pl.lit(attributes, dtype=pl.List(pl.String)))
    return {(*(r[k] for k in attributes), r["class"]): r for r in part.iter_rows(named=True)}


def test_combinations_all_reports_every_set_with_hand_counted_shares() -> None:
    out = ROWS.fair.multiclass_report(["race", "sex"], y_pred="d", classes=CLASSES,
                                      combinations="all", min_support=1)
    assert out.columns[:4] == ["attributes", "race", "sex", "class"]
    sets = out["attributes"].unique(maintain_order=True).to_list()
    assert sets == [["race"], ["sex"], ["race", "sex"]]
    # rows per set: (groups) x 3 classes: race 2, sex 2, race x sex 4
    assert out.height == (2 + 2 + 4) * 3
    race = _rows(out, ["race"])
    # hire: a 3/6, b 1/6; the highest is a's: b's impact ratio (1/6)/(1/2) = 1/3
    assert race[("a", "hire")]["selection_rate"] == 0.5
    assert race[("b", "hire")]["impact_ratio"] == pytest.approx(float(Fraction(1, 3)))
    assert race[("b", "hire")]["adverse_impact"] is True
    # hold: a 1/6, b 3/6: a's impact ratio 1/3
    assert race[("a", "hold")]["impact_ratio"] == pytest.approx(float(Fraction(1, 3)))
    sex = _rows(out, ["sex"])
    # sex m: 6 rows (hire 2, hold 2, deny 2); f: 6 rows (hire 2, hold 2, deny 2): all equal
    assert [sex[(s, c)]["n_class"] for s in ("f", "m") for c in CLASSES] == [2] * 6
    assert {sex[(s, c)]["impact_ratio"] for s in ("f", "m") for c in CLASSES} == {1.0}
    both = _rows(out, ["race", "sex"])
    # hire: a|m 2/4, a|f 1/2, b|m 0/2, b|f 1/4; the highest 1/2: b|f 1/2, b|m 0
    assert both[("b", "f", "hire")]["impact_ratio"] == 0.5
    assert both[("b", "m", "hire")]["impact_ratio"] == 0.0
    assert both[("a", "f", "hire")]["n"] == 2
    # a key outside the row's set is null
    assert out.filter(pl.col("attributes").list.len() == 1).select(
        pl.col("race").is_null() | pl.col("sex").is_null()).to_series().all()


def test_each_set_equals_its_own_report() -> None:
    out = ROWS.fair.multiclass_report(["race", "sex"], y_pred="d", classes=CLASSES,
                                      combinations="all", min_support=1)
    for attrs in (["race"], ["sex"], ["race", "sex"]):
        alone = ROWS.fair.multiclass_report(attrs, y_pred="d", classes=CLASSES,
                                            min_support=1)
        part = out.filter(pl.col("attributes") == pl.lit(attrs, dtype=pl.List(pl.String)))
        assert part.select(alone.columns).equals(alone), attrs
    lazy = ROWS.lazy().fair.multiclass_report(["race", "sex"], y_pred="d", classes=CLASSES,
                                              combinations="all", min_support=1)
    assert lazy.collect(engine="streaming").equals(out)


def test_max_order_and_a_list_of_sets() -> None:
    singles = ROWS.fair.multiclass_report(["race", "sex"], y_pred="d", combinations="all",
                                          max_order=1, min_support=1)
    assert singles["attributes"].unique(maintain_order=True).to_list() == [["race"], ["sex"]]
    listed = ROWS.fair.multiclass_report([["race"], ["sex"]], y_pred="d",
                                         min_support=1)
    assert listed.equals(singles)
    table = polars_fair.class_counts(ROWS, ["race", "sex"], y_pred="d")
    assert table.multiclass_report([["sex"]], min_support=1).collect()["attributes"].to_list() \
        == [["sex"]] * 6


def test_the_sets_are_rolled_up_from_one_scan_of_the_rows() -> None:
    scans: list[int] = []

    def counted(df: pl.DataFrame) -> pl.DataFrame:
        scans.append(df.height)
        return df

    lf = ROWS.lazy().map_batches(counted, schema=ROWS.schema)
    out = lf.fair.multiclass_report(["race", "sex"], y_pred="d", combinations="all",
                                    min_support=1).collect()
    assert out.height == 24
    assert scans == [12]  # the rows were read once, for the class table


def test_bad_set_options_are_typed_errors() -> None:
    table = polars_fair.class_counts(ROWS, ["race", "sex"], y_pred="d")
    with pytest.raises(E.InvalidArgumentError, match="max_order"):
        table.multiclass_report(max_order=1)
    with pytest.raises(E.InvalidArgumentError, match="combinations"):
        table.multiclass_report(combinations="some")
    with pytest.raises(E.ColumnNotFoundError, match="age"):
        table.multiclass_report(["race", "age"], combinations="all")
    small = polars_fair.class_counts(ROWS, ["race", "sex"], y_pred="d", max_groups=5)
    with pytest.raises(E.SizeLimitError, match="8"):
        small.multiclass_report(combinations="all").collect()
