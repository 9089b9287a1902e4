"""The command line with ``--membership`` (issue 24, third review items 1 and 5): spaces around
the separators of ``--membership``, ``stratified`` and ``availability`` on the membership
attribute, the weighted table refused in command-line words, and ``check``'s header that said
"rows" for a sum of sample weights."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

#: Six people: p_a the probability of group a (p_b = 1 - p_a), predictions, a stratum s and
#: sample weights w. By hand: a's weight_sum Σ p_a = 0.2 + 1 + 0.5 + 0 + 1 + 0.8 = 3.5; b's
#: 2.5; Σ = 6 rows. With w = 1, 2, 1, 1, 2, 1: Σ w·p over both groups = Σ w = 8.
ROWS = pl.DataFrame({"y_true": [1, 0, 1, 0, 1, 0], "y_pred": [1, 1, 0, 1, 1, 0],
                     "p_a": [0.2, 1.0, 0.5, 0.0, 1.0, 0.8],
                     "p_b": [0.8, 0.0, 0.5, 1.0, 0.0, 0.2],
                     "s": ["x", "x", "y", "y", "x", "y"], "w": [1.0, 2.0, 1.0, 1.0, 2.0, 1.0]})


@pytest.fixture
def path(tmp_path: Path) -> Path:
    out = tmp_path / "people.csv"
    ROWS.write_csv(out)
    return out


def _json(*args: str) -> list[dict]:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    return list(json.loads(result.stdout))


@pytest.mark.parametrize("spaced", ["g=a:p_a, b:p_b", "g = a : p_a , b : p_b",
                                    " g=a:p_a ,b :p_b "])
def test_spaces_around_the_separators_are_layout(path: Path, spaced: str) -> None:
    # the group was ' b' (a leading space kept): a --reference b then named no group
    want = _json("report", str(path), "--membership", "g=a:p_a,b:p_b", "--y-true", "y_pred",
                 "--reference", "b", "--columns", "g,weight_sum,impact_ratio")
    got = _json("report", str(path), "--membership", spaced, "--y-true", "y_pred",
                "--reference", "b", "--columns", "g,weight_sum,impact_ratio")
    assert got == want
    assert [r["g"] for r in got] == ["a", "b"]
    assert [r["weight_sum"] for r in got] == pytest.approx([3.5, 2.5], rel=1e-12)


def test_a_quoted_group_keeps_its_spaces(path: Path) -> None:
    got = _json("report", str(path), "--membership", 'g=" a":p_a,b:p_b', "--y-true",
                "y_pred", "--columns", "g,weight_sum")
    assert [r["g"] for r in got] == [" a", "b"]


@pytest.mark.parametrize(("given", "message"), [
    # the same group once the spaces are dropped: ambiguous, refused by name
    ("g=a:p_a, a :p_b", "--membership names group 'a' twice ('g=a:p_a, a :p_b'); give each "
                        "group once"),
    # a group left empty
    ("g=a:p_a, :p_b", "--membership takes A=G1:C1,G2:C2,..."),
])
def test_an_ambiguous_membership_is_refused(path: Path, given: str, message: str) -> None:
    result = runner.invoke(app, ["report", str(path), "--membership", given, "--y-true",
                                 "y_pred"])
    assert result.exit_code == 2, result.output
    assert message in result.stderr


def test_stratified_availability_and_divergence_take_the_membership_attribute(
        path: Path) -> None:
    crisp = ROWS.with_columns(g=pl.when(pl.col("p_a") >= pl.col("p_b")).then(pl.lit("a"))
                              .otherwise(pl.lit("b")))
    crisp_path = path.with_name("crisp.csv")
    crisp.write_csv(crisp_path)
    for command, extra in (("stratified", ["--strata", "s", "--reference", "a"]),
                           ("availability", ["--benchmark", "g=a:0.5,b:0.5"]),
                           ("divergence", ["--by", "s", "--min-support", "0.1"])):
        got = _json(command, str(path), "--membership", "g=a:p_a,b:p_b",
                    "--membership-estimator", "argmax", "--y-true", "y_pred", *extra)
        want = _json(command, str(crisp_path), "--by", "g", "--y-true", "y_pred", *extra)
        assert got == want, command


def test_availability_refuses_the_weighted_table_in_command_line_words(path: Path) -> None:
    result = runner.invoke(app, ["availability", str(path), "--membership", "g=a:p_a,b:p_b",
                                 "--y-true", "y_pred", "--benchmark", "g=a:0.5,b:0.5"])
    assert result.exit_code != 0
    assert E.CLI_MEMBERSHIP_WEIGHTED_TABLE.format(
        analysis="availability", why=E.MEMBERSHIP_WHY_AVAILABILITY) in result.stderr
    assert "--membership-estimator argmax" in result.stderr


def test_check_says_a_weight_for_a_sum_of_sample_weights(path: Path) -> None:
    args = ["check", str(path), "--membership", "g=a:p_a,b:p_b", "--y-true", "y_pred",
            "--min-support", "1", "--min-impact-ratio", "0", "--max-abs-ofi", "2"]
    plain = runner.invoke(app, [*args, "--format", "json"])
    out = json.loads(plain.stdout)
    assert (out["rows"], out["counted"]) == (6, "6 rows")  # Σ weight_sum = 3.5 + 2.5
    weighted = runner.invoke(app, [*args, "--sample-weight", "w", "--format", "json"])
    out = json.loads(weighted.stdout)
    # Σ weight_sum = Σ w = 8, a weight and not the 6 rows (it said "8 rows")
    assert (out["rows"], out["counted"]) == (None, "a weight of 8")
    text = runner.invoke(app, [*args, "--sample-weight", "w"])
    assert text.stdout.splitlines()[0].endswith("; reference g=a; a weight of 8)")
