"""Issue 19, kind 2: every SQL function that builds text is bounded before the text is parsed.

``LPAD``/``RPAD`` and ``REPLACE`` were bounded; ``CONCAT``, ``CONCAT_WS``, ``||``, a long literal
in ``CASE`` or ``COALESCE`` and ``STRFTIME`` were not: ``LENGTH(CONCAT_WS('<5,000 x>', g, ...
x19,000)) > 3`` over 200 rows and ``CONCAT(race, '<99,000 x>') = race`` over the adult data
aborted the process. Each value built row by row (the intermediate ones too) may now hold its
longest input cell at most ``sql_growth`` times and ``sql_text`` characters of the text's own.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.core.limits import LIMITS
from polars_fair.core.sql import check_sql
from polars_fair.datasets import make_hiring

GROWTH = "how many times its longest input cell one value can hold"
TEXT = "the characters the text itself puts in one value"


def test_the_limits_are_declared() -> None:
    assert LIMITS["sql_growth"].limit == 1_000
    assert LIMITS["sql_text"].limit == 10_000


def test_concat_ws_of_19000_columns_is_refused_inside_length() -> None:
    text = "LENGTH(CONCAT_WS('" + "x" * 5_000 + "', " + ", ".join(["g"] * 19_000) + ")) > 3"
    # by hand: 19,000 columns joined: the value holds its input 19,000 times > 1,000
    with pytest.raises(E.SizeLimitError, match=f"--y-pred: .*{GROWTH}.* is 19,000, more than "
                       "its limit 1,000"):
        check_sql(text, ["g"], "--y-pred")
    text = "LENGTH(CONCAT_WS('" + "x" * 5_000 + "', g, g, g)) > 3"
    # by hand: 3 arguments, 2 separators of 5,000 characters: 10,000, at the limit
    check_sql(text, ["g"], "--y-pred")
    text = "LENGTH(CONCAT_WS('" + "x" * 5_000 + "', g, g, g, g)) > 3"
    # by hand: 4 arguments, 3 separators: 15,000 > 10,000
    with pytest.raises(E.SizeLimitError, match=f"{TEXT}.* is 15,000, more than its limit 10,000"):
        check_sql(text, ["g"], "--y-pred")


@pytest.mark.parametrize(("text", "size"), [
    ("CONCAT(race, '{x}') = race", 99_000),  # the example: one literal of 99,000
    ("(race || '{x}') = race", 99_000),
    ("CASE WHEN race = 'a' THEN '{x}' ELSE race END = race", 99_000),  # THEN builds each row
    ("COALESCE(NULLIF(race, 'a'), '{x}') = race", 99_000),
])
def test_a_long_literal_built_into_each_row_is_refused(text: str, size: int) -> None:
    with pytest.raises(E.SizeLimitError, match=f"--y-pred: .*{TEXT}.* is {size:,}, more than "
                       "its limit 10,000"):
        check_sql(text.format(x="x" * 99_000), ["race"], "--y-pred")


def test_replace_multiplies_what_it_grows() -> None:
    # by hand: CONCAT of a literal of 6,000 (accepted), each 'a' made 'bb': ceil(2 / 1) = 2
    # times, 12,000 > 10,000
    text = "REPLACE(CONCAT(race, '" + "a" * 6_000 + "'), 'a', 'bb') = race"
    with pytest.raises(E.SizeLimitError, match=f"{TEXT}.* is 12,000, more than its limit"):
        check_sql(text, ["race"], "--y-pred")
    check_sql("CONCAT(race, '" + "a" * 6_000 + "') = race", ["race"], "--y-pred")
    # by hand: 600 columns joined, grown 2 times: 1,200 > 1,000
    text = "REPLACE(CONCAT(" + ", ".join(["race"] * 600) + "), 'a', 'bb') = race"
    with pytest.raises(E.SizeLimitError, match=f"{GROWTH}.* is 1,200, more than its limit 1,000"):
        check_sql(text, ["race"], "--y-pred")


def test_strftime_is_bounded_by_its_format() -> None:
    # by hand: 600 x '%+' is 1,200 characters, 18 each: 21,600 > 10,000
    with pytest.raises(E.SizeLimitError, match=f"{TEXT}.* is 21,600"):
        check_sql("STRFTIME(d, '" + "%+" * 600 + "') = 'a'", ["d"], "--where")
    check_sql("STRFTIME(d, '%Y-%m-%d') = '2020-01-01'", ["d"], "--where")  # 8 x 18 = 144


def test_an_in_list_is_compared_with_not_built() -> None:
    # 90 values of 1,001-1,002 characters: 90,170 in all, none of them built into a row
    values = ", ".join(f"'{'x' * 1_000}{i}'" for i in range(90))
    check_sql(f"g IN ({values})", ["g"], "--where")


@pytest.mark.parametrize("text", [
    "CONCAT(g, '-', h)",
    "g || '-' || h",
    "CONCAT_WS(', ', g, h, UPPER(g))",
    "CASE WHEN g = 'a' THEN LPAD(h, 6, '0') ELSE REPLACE(g, 'b', 'bbb') END",
    "COALESCE(NULLIF(g, 'a'), CONCAT(h, h))",
])
def test_the_bound_holds_what_polars_builds(text: str) -> None:
    """What Polars builds is no longer than the checked bound (an independent reference)."""
    from polars_fair.core.sql import _Built, tokenize

    frame = pl.DataFrame({"g": ["a", "bb", "abcb", None], "h": ["x", "yyyy", "", "zz"]})
    tokens = tokenize(text)
    check_sql(text, frame.columns, "--by")
    size, _ = _Built(tokens, "--by", text)._sequence(0)
    longest = max(len(v) for c in frame.columns for v in frame[c].drop_nulls())  # 4
    built = frame.select(pl.sql_expr(text).str.len_chars().max()).item()
    assert built is not None and built <= size[0] * longest + size[1]


def test_the_cli_refuses_the_examples_before_reading_rows(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    make_hiring(200, seed=0).write_csv(path)
    runner = CliRunner()
    concat_ws = ("LENGTH(CONCAT_WS('" + "x" * 5_000 + "', " + ",".join(["race"] * 19_000)
                 + ")) > 3")
    for command, text in (("confusion", concat_ws),
                          ("report", "CONCAT(race, '" + "x" * 99_000 + "') = race")):
        result = runner.invoke(app, [command, str(path), "--by", "race", "--y-pred", text,
                                     "--format", "json"])
        assert result.exit_code != 0
        error = json.loads(result.stdout)
        assert error["error"] == "SizeLimitError"
        assert error["message"].startswith("--y-pred: ")
