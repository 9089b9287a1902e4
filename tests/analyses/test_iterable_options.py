"""Thresholds and sizes given as iterators, generators, numpy arrays or long lists (h-fix20c
item 6): they work, or raise a typed error, and limits are checked before any work.

``sweep(thresholds=<generator>)`` said "thresholds must name at least one threshold": the
generator was read once by the output check and found empty by the plan. ``power_curve``
truncated ``sizes=np.array([100.5])`` to 100, converted ``"100"`` and ``True``, and a number
or a 2-D array escaped as ``TypeError``.

The score table, by hand: group a scores 0.2 (a negative) and 0.8 (a positive), group b the
same; at 0.5 each group selects 1 of 2 (tp = 1, fp = 0); at 0.1 both rows (tp = 1, fp = 1).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any, overload

import numpy as np
import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.scores.power import power_curve

ROWS = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [0, 1, 0, 1],
                     "y_score": [0.2, 0.8, 0.2, 0.8]})


@pytest.mark.parametrize("method", ["sweep", "thresholds"])
@pytest.mark.parametrize("make", [
    lambda: (t for t in (0.5, 0.1)), lambda: iter([0.5, 0.1]), lambda: np.array([0.5, 0.1]),
    lambda: [0.5, 0.1]])
def test_thresholds_of_any_iterable_work(method: str, make: Any) -> None:
    scored = polars_fair.scores(ROWS, "g")
    out = getattr(scored, method)(thresholds=make(), min_support=1).collect()
    assert sorted(set(out["threshold"].to_list())) == [0.1, 0.5]
    if method == "sweep":
        assert out.filter(pl.col("g") == "a").select("threshold", "tp", "fp").rows() == [
            (0.1, 1, 1), (0.5, 1, 0)]


def test_a_generator_through_the_namespace() -> None:
    out = ROWS.fair.sweep("g", y_score="y_score", thresholds=(t for t in [0.5]),
                          min_support=1)
    assert out["tp"].to_list() == [1, 1]


@pytest.mark.parametrize("method", ["sweep", "thresholds"])
def test_an_endless_iterator_is_refused_at_its_limit(method: str) -> None:
    scored = polars_fair.scores(ROWS, "g")
    endless = itertools.count()
    with pytest.raises(E.SizeLimitError) as info:
        getattr(scored, method)(thresholds=endless, max_thresholds=5)
    assert str(info.value) == E.ITERATOR_TOO_LONG.format(
        what=f"{method}: thresholds=", unit="thresholds", limit=5, option="max_thresholds")
    assert next(endless) == 6  # read 0..5: the limit + 1 items, no further


_KW: dict[str, Any] = {"delta_aucs": [0.2], "n_simulations": 2, "n_permutations": 5, "seed": 0}


@pytest.mark.parametrize("sizes", [iter([40, 60]), (s for s in [40, 60]), np.array([40, 60]),
                                   range(40, 61, 20), [np.int64(40), 60]])
def test_power_curve_sizes_of_any_iterable(sizes: Any) -> None:
    assert power_curve(sizes=sizes, **_KW)["n"].to_list() == [40, 60]


@pytest.mark.parametrize(("sizes", "message"), [
    (np.array([100.5]), "sizes[0] must be an integer >= 1, got np.float64(100.5)"),
    (["100"], "sizes[0] must be an integer >= 1, got '100'"),
    ([40, True], "sizes[1] must be an integer >= 1, got True"),
    (100, "got int 100; pass sizes=[100] for one size"),
    ("100", "got str '100'; pass sizes=[500] for one size"),
    (np.array([[40, 60]]), "got a 2-D array"),
])
def test_power_curve_refuses_sizes_that_are_not_integers(sizes: Any, message: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        power_curve(sizes=sizes, **_KW)
    assert message in str(info.value)


def test_power_curve_advice_for_one_size_runs() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        power_curve(sizes=40, **_KW)
    assert "pass sizes=[40]" in str(info.value)
    assert power_curve(sizes=[40], **_KW)["n"].to_list() == [40]


def test_power_curve_long_sizes_refused_before_work() -> None:
    endless = itertools.count(40)
    with pytest.raises(E.SizeLimitError, match="at least 10,001 cells"):
        power_curve(sizes=endless, **_KW)
    with pytest.raises(E.SizeLimitError, match="makes 1,000,000 cells"):
        power_curve(sizes=np.full(10**6, 40), **_KW)


def test_iterator_too_long_advice_followed() -> None:
    """ITERATOR_TOO_LONG: "pass at most 5 thresholds, or a list, whose size the message then
    states"; both work as written (0.1 .. 0.6 by hand: six thresholds, over the limit 5)."""
    scored = polars_fair.scores(ROWS, "g")
    grid = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    with pytest.raises(E.SizeLimitError, match="pass at most 5 thresholds, or a list"):
        scored.sweep(thresholds=iter(grid), max_thresholds=5)
    out = scored.sweep(thresholds=iter(grid[:5]), max_thresholds=5, min_support=1).collect()
    assert sorted(set(out["threshold"].to_list())) == grid[:5]
    with pytest.raises(E.SizeLimitError) as info:  # the list: its size stated
        scored.sweep(thresholds=grid, max_thresholds=5)
    assert "holds 6 thresholds, more than max_thresholds=5" in str(info.value)


class _Unread(Sequence[float]):
    """A sequence that states its size and fails if any item is read (range(10**9) lists 8 GB)."""

    def __init__(self, size: int) -> None:
        self.size_ = size

    def __len__(self) -> int:
        return self.size_

    @overload
    def __getitem__(self, i: int) -> float: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[float]: ...
    def __getitem__(self, i: int | slice) -> float | Sequence[float]:
        raise AssertionError("read before its size was checked")


@pytest.mark.parametrize("method", ["sweep", "thresholds"])
@pytest.mark.parametrize("lazy", [False, True])
def test_a_long_sequence_is_measured_before_it_is_listed(method: str, lazy: bool) -> None:
    frame = ROWS.lazy() if lazy else ROWS
    call = getattr(frame.fair, method)
    # by hand: 10**9 > the ceiling 1,000,000 of max_thresholds: the ceiling's message
    for given in (range(10**9), _Unread(10**9)):
        with pytest.raises(E.SizeLimitError, match=rf"{method}: thresholds=: 1,000,000,000 "
                           r"thresholds, more than max_thresholds= can be raised to \(its "
                           r"ceiling 1,000,000\)"):
            call("g", y_score="y_score", thresholds=given)
    # 20,000 > the default 10,000, below the ceiling: raising max_thresholds would do
    with pytest.raises(E.SizeLimitError, match="holds 20,000 thresholds, more than "
                       "max_thresholds=10,000"):
        call("g", y_score="y_score", thresholds=_Unread(20_000))


def test_a_numpy_grid_is_measured_by_its_size() -> None:
    grid = np.broadcast_to(np.float64(0.5), (1_000, 2_000))  # 2,000,000 items, one in memory
    with pytest.raises(E.SizeLimitError, match="2,000,000 thresholds"):
        ROWS.fair.sweep("g", y_score="y_score", thresholds=grid)


@pytest.mark.parametrize("method", ["multiclass_report", "multiclass_test"])
def test_classes_are_measured_before_they_are_listed(method: str) -> None:
    frame = pl.DataFrame({"g": ["a", "b"] * 3, "y_true": [0, 1, 2] * 2, "y_pred": [0, 1, 2] * 2})
    for given in (range(10**9), _Unread(10**9)):
        with pytest.raises(E.SizeLimitError, match="classes= lists 1,000,000,000 classes, more "
                           "than the limit of 1,000"):
            getattr(frame.fair, method)("g", classes=given)
