"""availability with rows of unknown group, estimated or crisp (issue 24, fix 24a item 5).

A null group (a null attribute; null membership probabilities, kept by default as the missing
group) used to be refused with "give every value a share", which for null means a share of the
benchmark population that is "unknown": not runnable on the command line, and in Python a share
of 0 made the goodness-of-fit statistic infinite. The message now says what the rows are and
advises ``null_groups='drop'``, which the tests follow in Python and on the command line.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401 - registers df.fair
from polars_fair import errors as E
from polars_fair.cli.entry import app

#: argmax: rows 0, 1, 4 are a (p_a 0.9, 0.8, 0.7), rows 2, 5 are b; row 3 has no probability
ROWS = pl.DataFrame({"y_true": [1, 0, 1, 0, 1, 0], "y_pred": [1, 0, 0, 1, 1, 1],
                     "p_a": [0.9, 0.8, 0.3, None, 0.7, 0.2]}).with_columns(p_b=1 - pl.col("p_a"))
BENCHMARK = {"g": {"a": 0.5, "b": 0.5}}
WAYS: dict[str, tuple[pl.DataFrame, dict[str, Any]]] = {
    "membership": (ROWS, {"membership": {"g": {"a": "p_a", "b": "p_b"}},
                          "membership_estimator": "argmax"}),
    "crisp": (ROWS.with_columns(g=pl.when(pl.col("p_a") > 0.5).then(pl.lit("a"))
                                .when(pl.col("p_a").is_not_null()).then(pl.lit("b"))), {}),
}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_the_null_group_advice_drops_the_rows_and_runs(way: str) -> None:
    frame, kw = WAYS[way]
    with pytest.raises(E.InvalidArgumentError) as err:
        frame.fair.availability(benchmark=BENCHMARK, **kw)
    message = str(err.value)
    assert message.startswith("benchmark['g'] has no share for the 1 row(s) whose 'g' is "
                              "unknown (null)")
    advice = re.search(r"pass null_groups=('\w+')", message)
    assert advice, message
    with pytest.warns(UserWarning, match="dropped 1 row"):
        out = frame.fair.availability(benchmark=BENCHMARK, **kw,
                                      null_groups=eval(advice.group(1)))
    # by hand: a 3 of 5 rows, b 2 of 5; expected 2.5 each; chi-square 2 · 0.5² / 2.5 = 0.2
    assert out.select("g", "count", "share", "expected").rows() == [
        ("a", 3, 0.6, 2.5), ("b", 2, 0.4, 2.5)]
    assert out["gof_statistic"].to_list() == pytest.approx([0.2, 0.2], rel=1e-12)


def test_a_missing_known_value_is_named_before_the_null_group() -> None:
    frame, kw = WAYS["membership"]
    with pytest.raises(E.InvalidArgumentError, match=r"benchmark\['g'\] has no share for "
                       r"\['b'\], which the rows have"):
        frame.fair.availability(benchmark={"g": {"a": 1.0}}, **kw)


def test_the_command_line_advice_runs(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    args = ["availability", str(path), "--membership", "g=a:p_a,b:p_b",
            "--membership-estimator", "argmax", "--benchmark", "g=a:0.5,b:0.5"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    m = re.search(r"pass (--null-groups \S+) to leave those rows out", result.stderr)
    assert m, result.stderr
    result = CliRunner().invoke(app, [*args, *shlex.split(m.group(1)), "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    assert pl.read_csv(result.stdout.encode()).select("g", "count").rows() == [("a", 3),
                                                                            ("b", 2)]
