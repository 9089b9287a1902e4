"""Quantile bins are cut among the rows the audit keeps (issue 19, kind 5, re-review).

With ``null_groups="drop"`` the rows whose other attribute is missing are left out of the audit;
``bins={"x": k}`` cut its quantiles over every row first, so with x = 0..99 and h missing on
rows 0-49 one bin ``> 49`` held all 50 audited rows. A ``where`` that leaves the same rows out
(or filtering them first) cut 2 bins of 25; the two now agree.
"""

from __future__ import annotations

import warnings

import polars as pl

import polars_fair  # noqa: F401  (registers .fair)

X = list(range(100))
ROWS = pl.DataFrame({"x": X, "h": [None] * 50 + ["u", "v"] * 25,
                     "y_true": [i % 2 for i in X], "y_pred": [(i // 3) % 2 for i in X]})


def _x_items(frame: pl.DataFrame, **kw: object) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dropped rows' warning: asserted below
        out = frame.fair.divergence(["x", "h"], bins={"x": 2}, min_support=0.01,
                                    min_denominator=1, **kw)
    out = out.collect() if isinstance(out, pl.LazyFrame) else out
    items = out.filter(pl.col("h").is_null() & pl.col("x").is_not_null())
    return dict(zip(items["x"].to_list(), items["support"].to_list(), strict=True))


def test_bins_are_quantiles_of_the_rows_kept() -> None:
    # by hand: the kept rows are x = 50..99 (m = 50); the median's position is
    # 1 * (m - 1) / 2 = 24.5, so a value is in the lower bin when it is at most v_24 = 74:
    # 50..74 (25 rows) and 75..99 (25 rows), each a support of 25 / 50 = 0.5
    assert _x_items(ROWS, null_groups="drop") == {"<= 74": 0.5, "> 74": 0.5}
    assert _x_items(ROWS.filter(pl.col("h").is_not_null())) == {"<= 74": 0.5, "> 74": 0.5}


def test_the_dropped_rows_are_counted_as_missing_h_only() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ROWS.fair.divergence(["x", "h"], bins={"x": 2}, null_groups="drop", min_support=0.01,
                             min_denominator=1)
    messages = [str(w.message) for w in caught]
    assert any("dropped 50 row(s) whose attribute is null ({'h': 50})" in m for m in messages)


def test_keep_cuts_over_every_row() -> None:
    # null_groups="keep" audits the missing h as a group: every row is kept, and the median
    # of 0..99 is at position 49.5: at most v_49 = 49 is the lower bin (50 of 100 rows)
    assert _x_items(ROWS, null_groups="keep") == {"<= 49": 0.5, "> 49": 0.5}
