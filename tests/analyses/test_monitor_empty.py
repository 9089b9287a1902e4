"""An emptied confidence sequence is reported, never a silent null (issue 25's review).

The sequences of :func:`polars_fair.analyses.monitor.monitor_from_counts` are for one
difference held by every period. When the gap changes over time no constant difference fits
and the running intersection empties: ``cs_empty`` says so (the bounds are null there and only
there) and a ``UserWarning`` is raised. The emptiness is checked against an independent path:
each grid difference's running product of e-values, summed here period by period from
:func:`polars_fair.analyses.evalues.log_evalues`, reaches ``1/alpha``.
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import polars as pl
import pytest

from polars_fair import errors as E
from polars_fair.analyses.evalues import DIFFERENCE_GRID, log_evalues, predictions
from polars_fair.analyses.monitor import monitor_from_counts

WEEKS = [dt.date(2024, 1, 1) + dt.timedelta(weeks=k) for k in range(14)]


def _table(selected: list[int]) -> pl.LazyFrame:
    # group b: selected[k] of 200 in week k; the reference a: 100 of 200 every week
    rows = []
    for week, s in zip(WEEKS, selected, strict=True):
        rows.append({"period": week, "g": "b", "n": 200, "tp": 0, "fp": s, "fn": 0,
                     "tn": 200 - s})
        rows.append({"period": week, "g": "a", "n": 200, "tp": 0, "fp": 100, "fn": 0,
                     "tn": 100})
    return pl.LazyFrame(rows)


def _b(selected: list[int]) -> pl.DataFrame:
    m = monitor_from_counts(_table(selected), ["g"], reference="a").collect()
    return m.filter(pl.col("g") == "b")


SHIFTED = [20] * 5 + [180] * 9  # a gap of -0.4 for five weeks, then +0.4


def test_a_changed_gap_empties_the_sequence_with_a_flag_and_a_warning() -> None:
    with pytest.warns(UserWarning) as caught:
        b = _b(SHIFTED)
    assert [str(w.message) for w in caught] == [E.MONITOR_CS_EMPTY.format(
        what="difference and the impact ratio", count=1, group="g=b",
        period=dt.date(2024, 3, 4), bounds="cs_low and cs_high, ir_cs_low and ir_cs_high",
        flag="cs_empty and ir_cs_empty")]
    empty = b["cs_empty"].to_list()
    first = empty.index(True)
    assert first == 9  # week 10 (found below by the independent sums)
    assert empty == [False] * first + [True] * (14 - first)  # once empty, empty
    # the bounds are null exactly where the flag is true: a null means one thing
    assert b["cs_low"].is_null().to_list() == empty
    assert b["cs_high"].is_null().to_list() == empty
    assert b["ir_cs_low"].is_null().to_list() == b["ir_cs_empty"].to_list()
    # the alarm (no difference in any period) stays: the first five weeks alone show it
    assert b["alarm"].to_list() == [False] + [True] * 13
    # the earlier sign: from week 7 the pooled difference lies outside its own sequence
    # (pooled by hand, equal weights: five weeks at -0.4 and two at +0.4 give -0.4 * 3 / 7)
    row = b.row(6, named=True)
    assert row["difference"] == pytest.approx((5 * -0.4 + 2 * 0.4) / 7)
    inside = [lo < d < hi for d, lo, hi in b.head(first).select(
        "difference", "cs_low", "cs_high").rows()]
    assert inside == [True] * 6 + [False] * 3


def test_the_emptiness_matches_the_running_products_summed_apart() -> None:
    s_g = np.array(SHIFTED, dtype=float)
    n = np.full(14, 200.0)
    s_r = np.full(14, 100.0)
    q_g, q_r = predictions(s_g, n, s_r, n)
    grid = np.array(DIFFERENCE_GRID)
    le = log_evalues(s_g, n, s_r, n, q_g, q_r, grid, np.ones_like(grid))  # (period, null)
    reached = np.maximum.accumulate(np.cumsum(le, 0), 0) >= math.log(1 / 0.05)
    every = reached.all(1)  # every grid difference rejected by period t
    with pytest.warns(UserWarning):
        b = _b(SHIFTED)
    assert b["cs_empty"].to_list() == every.tolist()
    assert int(np.argmax(every)) == 9


def test_a_constant_gap_never_empties_and_does_not_warn() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = _b([20] * 14)  # -0.4 every week
    assert b["cs_empty"].to_list() == [False] * 14
    assert b["ir_cs_empty"].to_list() == [False] * 14
    assert b["cs_low"].null_count() == 0 and b["cs_high"].null_count() == 0
    last = b.row(13, named=True)
    assert last["cs_low"] < -0.4 < last["cs_high"]  # the constant gap lies inside
    # the reference's rows carry no comparison, flags included
    m = monitor_from_counts(_table([20] * 14), ["g"], reference="a").collect()
    ref = m.filter(pl.col("g") == "a")
    assert ref["cs_empty"].null_count() == 14 and ref["ir_cs_empty"].null_count() == 14
