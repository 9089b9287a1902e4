"""Errors about one item of a mapping option name the flag's item, not Python's subscript.

Issue 19, fourth review, item 5: ``polars-fair divergence ... --bins s=0`` said ``bins['s'] must
be an integer >= 2``, Python's spelling; the command line now names ``--bins s=...`` (and
``--benchmark g=a:...``, ``--membership 'A=G1:C1,...'``) through its one message layer
(:func:`polars_fair.cli.io.cli_message`), in the text and the JSON error alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()


def _csv(tmp_path: Path, name: str = "s") -> Path:
    path = tmp_path / "rows.csv"
    pl.DataFrame({name: [1, 2, 3, 4, 5, 6], "g": ["a", "b"] * 3, "y_true": [1, 0, 1, 1, 0, 1],
                  "y_pred": [1, 1, 0, 1, 0, 0]}).write_csv(path)
    return path


def _error(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    text = result.stderr
    assert "bins[" not in text and "benchmark[" not in text and "{'" not in text, text
    return text


@pytest.mark.parametrize(("bins", "message"), [
    ("s=0", "--bins s=... must be an integer >= 2, got 0"),
    ("s=1", "--bins s=... must be an integer >= 2, got 1"),
    # the value and the limit as --bins reads them: "s=10,000" would be read as edges 10 and 0
    ("s=10000000000", "--bins s=10000000000 is more than its limit 10000"),
])
def test_a_bins_item_error_names_the_flag_item(tmp_path: Path, bins: str, message: str) -> None:
    args = ["divergence", str(_csv(tmp_path)), "--by", "s", "--by", "g", "--bins", bins,
            "--min-support", "0.1"]
    assert message in _error(args)
    result = runner.invoke(app, [*args, "--format", "json"])
    assert message in json.loads(result.stdout)["message"]


def test_a_bins_item_of_a_column_that_needs_quotes_is_quoted(tmp_path: Path) -> None:
    text = _error(["divergence", str(_csv(tmp_path, "a=b")), "--by", "a=b", "--by", "g",
                   "--bins", '"a=b"=0', "--min-support", "0.1"])
    # the command line's quoting rule: a name holding '=' in double quotes, the word for the shell
    assert "--bins '\"a=b\"=...' must be an integer >= 2, got 0" in text, text


def test_a_benchmark_item_error_names_the_flag_item(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    base = ["availability", str(path), "--by", "g", "--benchmark"]
    assert "--benchmark g=a:... must lie in [0, 1], got 1.5" in _error([*base, "g=a:1.5,b:-0.5"])
    # 0.5 + 0.6 = 1.1
    assert "--benchmark g=VALUE:SHARE,...: the shares must sum to 1 (the whole benchmark " \
        "population), they sum to 1.1" in _error([*base, "g=a:0.5,b:0.6"])


def test_python_keeps_its_own_spelling() -> None:
    df = pl.DataFrame({"s": [1, 2, 3, 4], "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0]})
    with pytest.raises(E.InvalidArgumentError, match=r"bins\['s'\] must be an integer >= 2"):
        df.fair.divergence(["s"], bins={"s": 0})


def test_the_membership_rename_advice_is_the_flag_syntax_and_runs(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("p,q,known\n0.5,0.5,a\n0.25,0.75,b\n1,0,a\n0,1,b\n")
    text = _error(["membership-calibration", str(path), "--membership", "ece=a:p,b:q",
                   "--known", "known"])
    # the groups and columns of the call, renamed (fix 24a: they were G1:C1,G2:C2,...)
    assert text.rstrip().endswith("for example --membership 'ece_attr=a:p,b:q'"), text
    # followed as written
    result = runner.invoke(app, ["membership-calibration", str(path), "--membership",
                                 "ece_attr=a:p,b:q", "--known", "known", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert set(pl.read_csv(result.stdout.encode())["ece_attr"].to_list()) == {"a", "b"}
