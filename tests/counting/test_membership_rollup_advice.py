"""combinations= and roll-ups that drop the membership attribute are refused with advice that
works when followed (issue 24 re-review 2, item 7). ``FairCounts.rates(combinations="all")`` on
a membership table stacked roll-ups without the attribute (each row counted in every group)
instead of refusing: it is refused too."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

ROWS = pl.DataFrame({
    "s": ["x", "x", "y", "y", "x", "y"],
    "t": ["u", "v", "u", "v", "v", "u"],
    "p_a": [1.0, 0.8, 0.5, 0.2, 0.0, 0.5],
    "y_pred": [1, 0, 1, 1, 0, 0],
}).with_columns(p_b=1 - pl.col("p_a"))
MEMBERSHIP = {"g": {"a": "p_a", "b": "p_b"}}


def _example(message: str) -> list[str]:
    match = re.search(r"for example by=(\[[^\]]*\])", message)
    assert match is not None, message
    return list(ast.literal_eval(match.group(1)))


def test_combinations_with_membership_advise_one_set_per_call() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.counts(ROWS, ["s", "t"], membership=MEMBERSHIP, y_true=None,
                           y_pred="y_pred", combinations="all")
    assert str(info.value) == E.MEMBERSHIP_COMBINATIONS.format(example=["s"])
    # followed: each attribute set in its own call with the same membership=
    by = _example(str(info.value))
    rates = ROWS.fair.rates(by, membership=MEMBERSHIP, y_true=None, y_pred="y_pred")
    assert rates.columns[:2] == ["g", "s"]
    # a by s: Σp over s = x is 1 + 0.8 + 0 = 1.8, one selected (the first row): 1/1.8
    a_x = rates.filter((pl.col("g") == "a") & (pl.col("s") == "x"))
    assert a_x["selection_rate"].to_list() == pytest.approx([1 / 1.8], abs=1e-12)


def test_a_method_combinations_on_a_membership_table_is_refused_not_wrong() -> None:
    counts = polars_fair.counts(ROWS, ["s", "t"], membership=MEMBERSHIP, y_true=None,
                                y_pred="y_pred")
    with pytest.raises(E.InvalidArgumentError) as info:
        counts.rates(combinations="all")
    by = _example(str(info.value))
    assert by == ["g", "s"]  # the first set that keeps the attribute
    # followed: that set as a roll-up of the same table, equal to counting it directly
    rolled = counts.rates(by=by).collect()
    direct = ROWS.fair.rates("s", membership=MEMBERSHIP, y_true=None, y_pred="y_pred")
    assert rolled.select("g", "s").rows() == direct.select("g", "s").rows()
    assert rolled["selection_rate"].to_list() == pytest.approx(
        direct["selection_rate"].to_list(), abs=1e-12)


def test_a_rollup_dropping_the_attribute_advises_keeping_it() -> None:
    counts = polars_fair.counts(ROWS, ["s", "t"], membership=MEMBERSHIP, y_true=None,
                                y_pred="y_pred")
    with pytest.raises(E.InvalidArgumentError) as info:
        counts.report(by="s").collect()
    assert str(info.value) == E.MEMBERSHIP_ROLLUP.format(attribute="g", example=["g", "s"])
    by = _example(str(info.value))
    report = counts.report(by=by, min_support=0).collect()
    direct = ROWS.fair.report("s", membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                              min_support=0)
    assert report.select("g", "s").rows() == direct.select("g", "s").rows()
    assert report["n_effective"].to_list() == pytest.approx(direct["n_effective"].to_list(),
                                                            abs=1e-12)


def test_the_command_line_says_it_in_flags_and_the_advice_runs(tmp_path: Path) -> None:
    path = tmp_path / "people.csv"
    ROWS.write_csv(path)
    args = ["rates", str(path), "--membership", "g=a:p_a,b:p_b", "--y-true", "y_pred"]
    result = runner.invoke(app, [*args, "--by", "s", "--by", "t", "--combinations", "all"])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert E.CLI_MEMBERSHIP_COMBINATIONS.format(example="--by s") in message
    assert "membership=" not in message and "by=" not in message
    result = runner.invoke(app, [*args, "--by", "s"])  # followed
    assert result.exit_code == 0, result.output
