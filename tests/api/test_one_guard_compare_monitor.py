"""Issue 19 kind 7, re-review: compare, monitor, from_moments and from_paired_counts.

The same bad input is refused with the same type and message whichever way it arrives: a
reference mapping naming an attribute that is not audited (compare and monitor used the
audited part silently), and attribute levels too many or too fine to form groups
(from_moments and from_paired_counts accepted them; from_counts refuses them).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from polars_fair.counting.paired import PAIRED_CELLS


def _message(call: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(E.PolarsFairError) as info:
        out = call()
        out.collect()
    return type(info.value), str(info.value)


# ------------------------------------------------------------------ reference attributes
# two groups a, b of 10 rows each, one week
ROWS = pl.DataFrame({"g": ["a", "b"] * 10, "y_true": [1, 0, 0, 1] * 5,
                     "new": [1, 0, 1, 1] * 5, "old": [0, 0, 1, 1] * 5,
                     "t": [dt.date(2024, 1, 1)] * 20})
COMPARE = [
    lambda ref: ROWS.lazy().fair.compare("g", y_pred="new", baseline="old", y_true="y_true",
                                         reference=ref, min_support=1),
    lambda ref: polars_fair.paired_counts(ROWS, "g", y_pred="new", baseline="old")
    .compare(reference=ref, min_support=1),
    lambda ref: polars_fair.from_paired_counts(
        polars_fair.paired_counts(ROWS, "g", y_pred="new", baseline="old").frame, "g",
        labels=False).compare(reference=ref, min_support=1),
]
MONITOR = [
    lambda ref: ROWS.lazy().fair.monitor("g", time="t", every="1w", y_pred="new",
                                         reference=ref, min_support=1),
    lambda ref: polars_fair.period_counts(ROWS, "g", time="t", every="1w", y_pred="new")
    .monitor(reference=ref, min_support=1),
]


@pytest.mark.parametrize("call", COMPARE + MONITOR)
def test_a_reference_naming_an_attribute_not_audited_is_refused_by_compare_and_monitor(
        call: Any) -> None:
    # the audited attributes are ['g']; 'zz' is not one of them: refused as report refuses it
    want = E.BAD_REFERENCE_MAPPING.format(keys=["g"], got=["g", "zz"])
    assert _message(lambda: call({"g": "a", "zz": "M"})) == (E.InvalidArgumentError, want)
    report = lambda: ROWS.lazy().fair.report("g", y_pred="new", reference={"g": "a", "zz": "M"})  # noqa: E731
    assert _message(report) == (E.InvalidArgumentError, want)


@pytest.mark.parametrize("call", COMPARE + MONITOR)
def test_a_reference_over_the_audited_attribute_is_used_by_compare_and_monitor(
        call: Any) -> None:
    # {"g": "b"}: b is the reference (is_reference on b's rows only), a is not
    out = call({"g": "b"}).collect()
    flags = sorted(set(out.select("g", "is_reference").rows()))
    assert flags == [("a", False), ("b", True)]


# ------------------------------------------------------------------ levels of tables made elsewhere
# 60 float values of 3 rows each: 60 > 50 values of a number (180 rows)
SIXTY = [i / 10 for i in range(60)]
# 10 text values of one row each: each of the 10 values is a single row
TEN = [f"v{i}" for i in range(10)]


def _counts(keys: list[Any], n: int) -> pl.DataFrame:
    return pl.DataFrame({"x": keys, "n": [n] * len(keys), "tp": [0] * len(keys),
                         "fp": [n] * len(keys), "fn": [0] * len(keys), "tn": [0] * len(keys)})


def _paired(keys: list[Any], n: int) -> pl.DataFrame:
    # every row selected by the candidate only, unlabelled: y0_p1_b0 = n
    return pl.DataFrame([{"x": k, "n": n, **dict.fromkeys(PAIRED_CELLS, 0), "y0_p1_b0": n}
                         for k in keys])


def _moments(keys: list[Any], n: int) -> pl.DataFrame:
    return pl.DataFrame({"x": keys, "n": [n] * len(keys), "mean_pred": [1.0] * len(keys),
                         "m2_pred": [0.0] * len(keys)})


@pytest.mark.parametrize(("keys", "n"), [(SIXTY, 3), (TEN, 1)])
def test_levels_too_many_or_too_fine_are_refused_by_every_table_made_elsewhere(
        keys: list[Any], n: int) -> None:
    # the reference: from_counts' message on the same keys and row counts
    want = _message(lambda: polars_fair.from_counts(_counts(keys, n)).report())
    assert want[0] is E.TooManyLevelsError
    assert _message(lambda: polars_fair.from_paired_counts(_paired(keys, n), labels=False)
                    .compare(min_support=1)) == want
    assert _message(lambda: polars_fair.from_moments(_moments(keys, n))
                    .continuous_report(min_support=1)) == want


def test_equal_keys_are_summed_before_the_level_guard() -> None:
    # 10 values of 1 row each, given twice: 10 groups of 2 rows, not too fine (20 rows)
    paired = polars_fair.from_paired_counts(pl.concat([_paired(TEN, 1)] * 2), labels=False)
    assert paired.compare(min_support=1).collect()["n"].to_list() == [2] * 10
    moments = polars_fair.from_moments(pl.concat([_moments(TEN, 1)] * 2))
    assert moments.continuous_report(min_support=1).collect()["n"].to_list() == [2] * 10
