"""A membership attribute named like a column of the input (issue 24, fix 24a item 2).

``membership={"race": ...}`` on rows that hold a ``race`` column made a key ``race`` holding the
estimated groups, silently hiding the column's own values. It is refused on every path that
counts membership (MEMBERSHIP_COLUMN_CLASH), and the advice, followed as written, runs: in
Python a renamed mapping, on the command line the ``--membership`` given, renamed. The
calibration check's ``known`` column may share the attribute's name (it holds the same groups).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app

#: a crisp column race (x, y) beside the probabilities of the estimated groups a, b
ROWS = pl.DataFrame({"y_true": [1, 0, 1, 0], "y_pred": [1, 0, 0, 1],
                     "p_a": [1.0, 1.0, 0.0, 0.0], "race": ["x", "y", "x", "y"]}).with_columns(
    p_b=1 - pl.col("p_a"))
membership = {"race": {"a": "p_a", "b": "p_b"}}

CALLS: dict[str, Any] = {
    "report": lambda f, m: f.fair.report(membership=m, min_support=0),
    "counts": lambda f, m: f.fair.counts(membership=m).frame.collect(),
    "proxy_report": lambda f, m: f.fair.proxy_report(membership=m, min_support=0,
                                                     reference="a"),
    "bias_audit": lambda f, m: f.fair.bias_audit([], y_pred="y_pred", membership=m,
                                                 membership_estimator="argmax", min_share=0),
    "proxy_counts": lambda f, m: polars_fair.proxy_counts(f, membership=m).proxy_report(
        reference="a", min_support=0).collect(),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_clash_is_refused_and_the_renamed_mapping_runs(name: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        CALLS[name](ROWS, membership)
    message = str(err.value)
    assert message.startswith("membership attribute 'race' is also a column of the input: "
                              "the audit's 'race' column would hold the estimated groups")
    advice = re.search(r"for example membership=(\{.*\})$", message)
    assert advice, message
    followed = eval(advice.group(1), {"membership": membership})  # as written
    assert followed == {"race_attr": {"a": "p_a", "b": "p_b"}}
    out = CALLS[name](ROWS, followed)
    # one-hot: rows 0, 1 are a, rows 2, 3 are b; the race column stays the crisp one
    assert sorted(set(out["race_attr"].drop_nulls().to_list())) == ["a", "b"]


def test_report_of_the_renamed_attribute_counts_by_hand() -> None:
    out = ROWS.fair.report(membership={"race_attr": membership["race"]},
                           membership_estimator="argmax", min_support=0)
    # a = rows 0, 1 (y_pred 1, 0): 1 of 2; b = rows 2, 3 (0, 1): 1 of 2
    assert out.select("race_attr", "n", "selection_rate").rows() == [("a", 2, 0.5),
                                                                     ("b", 2, 0.5)]


def test_the_known_column_may_share_the_attribute_name() -> None:
    # the self-reported group, named as the attribute: row 0 says a, row 2 says b, others null
    rows = ROWS.with_columns(race=pl.Series(["a", None, "b", None]))
    out = rows.fair.membership_calibration(membership=membership, known="race", bins=2)
    # one-hot probabilities: group a's bin (0.5, 1] holds row 0 (known a): observed share 1
    a = out.filter((pl.col("race") == "a") & (pl.col("observed_share").is_not_null()))
    assert a["observed_share"].to_list() == [0.0, 1.0]


def test_the_command_line_advice_repeats_the_membership_given_renamed(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    runner = CliRunner()
    given = "race=a:p_a, b:1 - p_a"  # a SQL probability with spaces: one shell word
    for command in ("report", "proxy-report"):
        result = runner.invoke(app, [command, str(path), "--membership", given,
                                     "--min-support", "0", "--reference", "a"])
        assert result.exit_code == 2
        m = re.search(r"for example --membership ('[^']*')$", result.stderr.strip())
        assert m, result.stderr
        words = shlex.split(m.group(1))
        assert words == ["race_attr=a:p_a, b:1 - p_a"]
        result = runner.invoke(app, [command, str(path), "--membership", *words,
                                     "--min-support", "0", "--reference", "a",
                                     "--format", "csv"])
        assert result.exit_code == 0, result.stderr
        out = pl.read_csv(result.stdout.encode())
        assert out["race_attr"].to_list() == ["a", "b"]
