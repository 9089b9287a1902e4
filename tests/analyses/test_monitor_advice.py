"""monitor's advice for no groups and for an integer time column (issue 25 re-review, 4 and 5).

``monitor(by=None)`` said the reference rule named no group (advice about ``reference=``) when
the call has no groups at all; an integer ``time`` column was advised ``str.to_date()``, which
fails on integers. Each message is asserted, and each piece of advice is followed.
"""

from __future__ import annotations

import datetime as dt
import shlex
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
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


# ------------------------------------------------------------------- an integer time column
def _as_yyyymmdd(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(pl.col("t").dt.strftime("%Y%m%d").cast(pl.Int64))


def _as_epoch(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(pl.col("t").cast(pl.Datetime("us")).dt.epoch("s"))


def test_an_integer_time_gets_advice_for_integers() -> None:
    ints = _as_yyyymmdd(_rows())
    with pytest.raises(E.InvalidArgumentError) as info:
        ints.fair.monitor("g", time="t", **ARGS)
    assert str(info.value) == E.MONITOR_TIME_INTEGER.format(column="t", dtype=pl.Int64)
    assert "str.to_date()" not in str(info.value)
    # the old advice fails on integers, as the review found
    with pytest.raises(pl.exceptions.SchemaError):
        ints.select(pl.col("t").str.to_date())


def test_following_the_integer_advice_runs() -> None:
    want = _rows().fair.monitor("g", time="t", **ARGS)
    # a date written yyyymmdd (20240101): the first piece of advice, verbatim
    yyyymmdd = _as_yyyymmdd(_rows())
    assert yyyymmdd["t"].to_list()[:1] == [20240101]
    got = yyyymmdd.fair.monitor(
        "g", time=pl.col("t").cast(pl.String).str.to_date("%Y%m%d"), **ARGS)
    assert_frame_equal(got, want)
    # seconds since 1970 (1704067200 is 2024-01-01): the second
    epoch = _as_epoch(_rows())
    assert epoch["t"].to_list()[:1] == [1704067200]
    assert_frame_equal(epoch.fair.monitor("g", time=pl.from_epoch("t"), **ARGS), want)


def test_the_command_line_advice_for_an_integer_time_runs(tmp_path: Path) -> None:
    want = _rows().fair.monitor("g", time="t", **ARGS)
    base = ["--by", "g", "--every", "1w", "--y-pred", "y_pred", "--min-support", "1",
            "--format", "json"]
    for name, convert, part in (("yyyymmdd", _as_yyyymmdd, 0), ("epoch", _as_epoch, 1)):
        path = tmp_path / f"{name}.csv"
        convert(_rows()).write_csv(path)
        failed = CliRunner().invoke(app, ["monitor", str(path), "--time", "t", *base])
        assert failed.exit_code == 2, failed.output
        message = " ".join(failed.stderr.split()).removeprefix("polars-fair: error: ")
        assert message.startswith("time column 't' must be a Date or Datetime column, got Int64;")
        # the advice, as printed: "... is --time WORD, and seconds ... are --time WORD"
        words = [shlex.split(chunk.split(" are ")[-1].split(" is ")[-1])
                 for chunk in message.split(", and ")]
        advice = words[part]
        assert advice[0] == "--time"
        result = CliRunner().invoke(app, ["monitor", str(path), *advice, *base])
        assert result.exit_code == 0, (advice, result.output)
        got = pl.read_json(result.stdout.encode())
        assert got["difference"].to_list() == want["difference"].to_list(), name


def test_a_time_of_another_dtype_is_told_it_holds_no_date() -> None:
    floats = _rows().with_columns(pl.col("t").cast(pl.Int32).cast(pl.Float64))
    with pytest.raises(E.InvalidArgumentError) as info:
        floats.fair.monitor("g", time="t", **ARGS)
    assert str(info.value) == E.MONITOR_TIME_OTHER.format(column="t", dtype=pl.Float64)


def test_a_text_time_keeps_its_advice() -> None:
    text = _rows().with_columns(pl.col("t").cast(pl.String))
    with pytest.raises(E.InvalidArgumentError) as info:
        text.fair.monitor("g", time="t", **ARGS)
    assert str(info.value) == E.MONITOR_TIME_DTYPE.format(column="t", dtype=pl.String)
    out = text.fair.monitor("g", time=pl.col("t").str.to_date(), **ARGS)
    assert_frame_equal(out, _rows().fair.monitor("g", time="t", **ARGS))
