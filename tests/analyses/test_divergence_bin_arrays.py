"""Bin edges given as a numpy array or a Polars Series are accepted (issue 19, 4th review, item 6).

``divergence(bins={"s": np.array([...])})`` was refused with a message that printed the whole
Series' repr. Edges are read item by item (:func:`polars_fair.core.numbers.number_items`, a float32
edge the decimal it prints as); anything else is refused showing only its type.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E

ROWS = pl.DataFrame({"s": [1.0, 2, 3, 4, 5, 6, 7, 8], "y_true": [1, 0, 1, 0, 1, 1, 0, 0],
                     "y_pred": [1, 1, 0, 0, 1, 0, 1, 0]})


def _sizes(edges: object) -> dict[str, int]:
    out = ROWS.fair.divergence(["s"], bins={"s": edges}, min_support=0.1)
    return dict(zip(out["s"].to_list(), out["n"].to_list(), strict=True))


@pytest.mark.parametrize("edges", [
    [0.0, 4.5, 9.0], (0.0, 4.5, 9.0), np.array([0.0, 4.5, 9.0]), pl.Series([0.0, 4.5, 9.0]),
    pl.Series([0.0, 4.5, 9.0], dtype=pl.Float32), np.array([0, 4.5, 9], dtype=np.float32)])
def test_edges_in_any_container_cut_the_same_bins(edges: object) -> None:
    # by hand: 1..4 lie in [0, 4.5), 5..8 in [4.5, 9)
    assert _sizes(edges) == {"[0.0, 4.5)": 4, "[4.5, 9.0)": 4}


def test_float32_edges_are_the_decimals_they_print_as() -> None:
    # np.float32(4.3) is 4.300000190734863 in binary; read as 4.3 the label says so
    assert _sizes(np.array([4.3], dtype=np.float32)) == {"< 4.3": 4, ">= 4.3": 4}


@pytest.mark.parametrize(("edges", "shown"), [
    (np.array([4.5, 0.0]), "got [4.5, 0.0]"), (pl.Series([9.0, 1.0]), "got [9.0, 1.0]")])
def test_decreasing_array_edges_show_the_edges_not_a_repr(edges: object, shown: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        _sizes(edges)
    assert str(err.value).endswith(shown) and "shape" not in str(err.value)


@pytest.mark.parametrize(("edges", "kind"), [
    (np.array([[1.0, 2.0]]), "ndarray"), (pl.DataFrame({"name": ["Ann Madeup"]}), "DataFrame"),
    ({1.0, 2.0}, "set")])
def test_anything_else_is_refused_by_its_type_only(edges: object, kind: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        _sizes(edges)
    assert str(err.value) == E.BAD_BIN_TYPE.format(column="s", type=kind)
    assert "Ann" not in str(err.value)
