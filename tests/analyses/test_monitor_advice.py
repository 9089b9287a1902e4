"""monitor's advice for no groups (issue 25 re-review, 4).

``monitor(by=None)`` said the reference rule named no group (advice about ``reference=``) when
the call has no groups at all. The message is asserted, and its advice followed.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app

DAYS = [dt.date(2024, 1, 1), dt.date(2024, 1, 8), dt.date(2024, 1, 15)]
ARGS: dict[str, Any] = {"every": "1w", "y_pred": "y_pred", "min_support": 1}


def _rows() -> pl.DataFrame:
    """Three weeks; a selects 3 of 4 rows each week, b 1 of 4."""
    rows = [(day, g, int(i < k)) for day in DAYS for g, k in (("a", 3), ("b", 1))
            for i in range(4)]
    return pl.DataFrame(rows, schema=["t", "g", "y_pred"], orient="row")


def test_monitor_without_groups_says_it_needs_an_attribute() -> None:
    df = _rows()
    for by in (None, []):
        with pytest.raises(E.InvalidArgumentError) as info:
            df.fair.monitor(by, time="t", **ARGS)
        assert str(info.value) == E.MONITOR_NO_GROUPS
        assert "needs an attribute (by=...) with two or more groups" in str(info.value)
        assert "reference=" not in str(info.value)  # no advice about the reference rule
    # a period count table without keys: the same
    table = polars_fair.period_counts(df, "g", time="t", every="1w", y_pred="y_pred")
    keyless = table.frame.group_by("period").agg(pl.col("n", "tp", "fp", "fn", "tn").sum())
    with pytest.raises(E.InvalidArgumentError, match="needs an attribute"):
        polars_fair.from_period_counts(keyless).monitor()
    # the advice: pass by= an attribute; a's 3/4 against b's 1/4, every week
    out = df.fair.monitor("g", time="t", **ARGS)
    assert out.filter(pl.col("g") == "b")["difference"].to_list() == [-0.5, -0.5, -0.5]


def test_the_command_line_without_by_names_by(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    _rows().write_csv(path)
    result = CliRunner().invoke(app, ["monitor", str(path), "--time", "t", "--every", "1w",
                                      "--y-pred", "y_pred"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "polars-fair: error: missing option --by"
