"""Compare and monitor refuse a key named like a column they add, and a non-temporal period.

Issue 25 (re-review): such a key was overwritten silently (monitor's ``rate``, ``alarm``), or
raised raw numpy / Polars errors; ``from_period_counts`` ordered a text period alphabetically.
"""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

DAYS = [dt.date(2024, 1, 1) + dt.timedelta(days=7 * i) for i in range(4)]


def _rows(key: str) -> pl.DataFrame:
    return pl.DataFrame({key: ["a", "b"] * 20, "t": DAYS * 10, "y": [0, 1, 1, 0, 1] * 8,
                         "z": [1, 1, 0, 0, 1] * 8})


@pytest.mark.parametrize("key", ["rate", "difference", "alarm", "cs_low", "numerator",
                                 "is_reference", "period", "p_anytime"])
def test_monitor_refuses_a_key_named_like_its_output(key: str) -> None:
    with pytest.raises(E.InvalidArgumentError, match=rf"\['{key}'\] clash .* of monitor"):
        _rows(key).fair.monitor(key, time="t", every="1w", y_pred="y", min_support=1)


@pytest.mark.parametrize("key", ["selection_rate", "mcnemar_p_value", "low_support",
                                 "tpr_change_low", "adverse_impact_changed"])
def test_compare_refuses_a_key_named_like_its_output(key: str) -> None:
    with pytest.raises(E.InvalidArgumentError, match=rf"\['{key}'\] clash .* of compare"):
        _rows(key).fair.compare(key, y_pred="y", baseline="z", min_support=1)


def test_the_clash_is_the_same_on_duckdb() -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(_rows("rate").to_arrow())
    with pytest.raises(E.InvalidArgumentError, match=r"\['rate'\] clash .* of monitor"):
        polars_fair.period_counts(rel, "rate", time="t", every="1w", y_pred="y").monitor()
    rel = duckdb.from_arrow(_rows("low_support").to_arrow())
    with pytest.raises(E.InvalidArgumentError, match=r"\['low_support'\] clash"):
        polars_fair.paired_counts(rel, "low_support", y_pred="y", baseline="z").compare()


def test_a_harmless_key_still_works() -> None:
    # "len" was an internal column name of the monitor; it is no output, so it is allowed
    out = _rows("len").fair.monitor("len", time="t", every="1w", y_pred="y", min_support=1)
    assert out.columns[:3] == ["period", "len", "numerator"]
    assert out["len"].to_list()[:2] == ["a", "b"]


def test_from_counts_refuse_clashing_keys() -> None:
    periods = polars_fair.period_counts(_rows("g"), "g", time="t", every="1w", y_pred="y")
    table = periods.frame.collect()
    with pytest.raises(E.InvalidArgumentError, match=r"\['n'\] clash .* of monitor"):
        polars_fair.from_period_counts(table, keys="n")
    with pytest.raises(E.InvalidArgumentError, match=r"\['rate'\] clash .* of monitor"):
        polars_fair.from_period_counts(table.rename({"g": "rate"}), keys="rate")
    paired = polars_fair.paired_counts(_rows("g"), "g", y_pred="y", baseline="z")
    ptable = paired.frame.collect()
    with pytest.raises(E.InvalidArgumentError, match=r"\['n'\] clash .* of compare"):
        polars_fair.from_paired_counts(ptable, keys="n")
    with pytest.raises(E.InvalidArgumentError, match=r"\['selection_rate'\] clash"):
        polars_fair.from_paired_counts(ptable.rename({"g": "selection_rate"}),
                                       keys="selection_rate")


@pytest.mark.parametrize("period", [["2024-01-08", "2024-01-15"], [2, 10]])
def test_from_period_counts_refuses_a_non_temporal_period(period: list[object]) -> None:
    # "10" < "2" as text: a text period would put week 10 before week 2
    table = pl.DataFrame({"period": period * 2, "g": ["a", "a", "b", "b"], "n": [40] * 4,
                          "tp": [0] * 4, "fp": [20, 22, 4, 4], "fn": [0] * 4,
                          "tn": [20, 18, 36, 36]})
    with pytest.raises(E.InvalidArgumentError, match="'period' must be a Date or Datetime"):
        polars_fair.from_period_counts(table, "g")
    dated = table.with_columns(pl.Series("period", [dt.date(2024, 1, 8),
                                                    dt.date(2024, 1, 15)] * 2))
    assert polars_fair.from_period_counts(dated, "g").keys == ["g"]


@pytest.mark.parametrize(("baseline", "kind"), [("series", "Series"), (None, "NoneType"),
                                                ([0, 1], "list"), (1, "int"), (True, "bool")])
def test_a_baseline_that_is_no_column_is_named_baseline(baseline: object, kind: str) -> None:
    df = _rows("g")
    value = df["z"] if baseline == "series" else baseline
    with pytest.raises(E.InvalidArgumentError) as err:
        df.fair.compare("g", y_pred="y", baseline=value, min_support=1)  # type: ignore[arg-type]
    text = str(err.value)
    assert text.startswith(f"baseline must be a column name or a polars expression (a Column "
                           f"on Spark), got {kind};")
    assert "y_pred" not in text and "[" not in text


@pytest.mark.parametrize("value", ["no", 0, None])
def test_mid_p_must_be_a_boolean(value: object) -> None:
    # "no" is truthy: it used to give the mid-p value silently
    with pytest.raises(E.InvalidArgumentError, match=r"^mid_p must be True or False, got "):
        _rows("g").fair.compare("g", y_pred="y", baseline="z", mid_p=value)  # type: ignore[arg-type]
