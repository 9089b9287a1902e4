"""The membership scan proves its validation counts 0 from per-group bounds.

The scan sums, per group, the rows' totals and takes the extremes of the probabilities and of
each total's distance from 1; when these bounds prove every validation count 0 no row-wise
check is summed, else the rows are counted again. Expected values are hand counts.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

M = {"race": {"A": "pa", "B": "pb"}}


def _frame(pa: list[float | None], pb: list[float | None]) -> pl.DataFrame:
    n = len(pa)
    return pl.DataFrame({"y_true": [1, 0] * (n // 2) + [1] * (n % 2),
                         "y_pred": [1] * n, "pa": pa, "pb": pb},
                        schema_overrides={"pa": pl.Float64, "pb": pl.Float64})


def test_rows_with_a_null_pass_the_bounds_and_keep_their_policy() -> None:
    # rows 3 and 4 hold a null: kept as their own (null) group, the others weighted
    df = _frame([0.25, 1.0, None, 0.5], [0.75, 0.0, 0.5, None])
    t = polars_fair.counts(df, membership=M, null_groups="keep").frame.collect()
    got = {r["race"]: (r["n"], r["tp"], r["fp"]) for r in t.iter_rows(named=True)}
    # A: 0.25 (tp) + 1.0 (fp); B: 0.75 (tp) + 0.0 (fp); null: the two rows, tp 1, fp 1
    assert got == {"A": (2, 0.25, 1.0), "B": (1, 0.75, 0.0), None: (2, 1.0, 1.0)}


@pytest.mark.parametrize(("pa", "pb", "error", "template", "count"), [
    ([0.5, 1.0 + 1e-9], [0.5, -1e-9], E.InvalidMembershipError, "range", 1),  # sums to 1
    ([0.5, float("nan")], [0.5, 0.5], E.InvalidMembershipError, "finite", 1),
    ([0.5, 0.3, 0.2], [0.5, 0.3, 0.8], E.InvalidMembershipError, "sum", 1),
])
def test_a_bad_row_beyond_the_bounds_is_counted(pa: list[float], pb: list[float], error: type,
                                                template: str, count: int) -> None:
    with pytest.raises(error) as info:
        polars_fair.counts(_frame(pa, pb), membership=M).frame.collect()
    message = str(info.value)
    assert f"{count} row(s)" in message
    assert {"range": "[0, 1]", "finite": "NaN", "sum": "sum"}[template] in message
