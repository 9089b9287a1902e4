"""polars-fair membership-calibration equals the Python API (issue 24 item 4).

The Python results are checked against a hand computation and scikit-learn in
tests/analyses/test_membership_calibration.py; here the claim is that the command line reaches
the same analysis with the same options, and refuses bad input with exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.commands import LISTS
from polars_fair.cli.entry import app
from tests.analyses.test_membership_calibration import HAND, MEMBERSHIP, _simulation
from tests.cli.test_cli_analyses import assert_rows_equal

runner = CliRunner()


@pytest.fixture
def people(tmp_path: Path) -> Path:
    df, _ = _simulation(3, n=2_000)
    path = tmp_path / "people.csv"
    df.with_columns(w=(pl.int_range(pl.len()) % 3 + 1).cast(pl.Float64)).write_csv(path)
    return path


def test_the_command_equals_the_python_api(people: Path) -> None:
    result = runner.invoke(app, [
        "membership-calibration", str(people), "--membership", "race=A:p_a,B:p_b,C:p_c",
        "--known", "self", "--bins", "7", "--sample-weight", "w", "--format", "json"])
    assert result.exit_code == 0, result.output
    want = pl.read_csv(people).fair.membership_calibration(
        membership=MEMBERSHIP, known="self", bins=7, sample_weight="w")
    assert_rows_equal(json.loads(result.stdout), want)


def test_quoted_groups_sql_known_and_where(tmp_path: Path) -> None:
    path = tmp_path / "hand.csv"
    HAND.with_columns(pl.col("self").replace({"A": "a:1"})).write_csv(path)
    result = runner.invoke(app, [
        "membership-calibration", str(path), "--membership",
        'race="a:1":p_a,B:p_b,C:p_c', "--known", "CASE WHEN p_c < 0.5 THEN self END",
        "--bins", "2", "--where", "p_a < 0.65", "--format", "json"])
    assert result.exit_code == 0, result.output
    want = HAND.filter(pl.col("p_a") < 0.65).with_columns(
        pl.col("self").replace({"A": "a:1"})).fair.membership_calibration(
        membership={"race": {"a:1": "p_a", "B": "p_b", "C": "p_c"}},
        known=pl.when(pl.col("p_c") < 0.5).then(pl.col("self")), bins=2)
    assert_rows_equal(json.loads(result.stdout), want)


def test_a_malformed_membership_is_exit_2_naming_the_form(tmp_path: Path) -> None:
    path = tmp_path / "hand.csv"
    HAND.write_csv(path)
    result = runner.invoke(app, ["membership-calibration", str(path), "--membership",
                                 "race=A", "--known", "self"])
    assert result.exit_code == 2
    assert E.CLI_BAD_LIST.format(flag="--membership", value="race=A",
                                 kind=LISTS["groups"]) in " ".join(result.stderr.split())


def test_known_values_outside_the_groups_are_exit_2_with_counts(tmp_path: Path) -> None:
    path = tmp_path / "hand.csv"
    HAND.with_columns(pl.col("self").replace({"C": "X"})).write_csv(path)
    result = runner.invoke(app, ["membership-calibration", str(path), "--membership",
                                 "race=A:p_a,B:p_b,C:p_c", "--known", "self"])
    assert result.exit_code == 2
    assert "values ['X'] with row counts [1]" in result.stderr


def test_a_negative_sample_weight_literal_counts_every_row(tmp_path: Path) -> None:
    # issue 24 re-review, item 2: --sample-weight -1 is negative on all of HAND's six rows
    path = tmp_path / "hand.csv"
    HAND.write_csv(path)
    result = runner.invoke(app, ["membership-calibration", str(path), "--membership",
                                 "race=A:p_a,B:p_b,C:p_c", "--known", "self",
                                 "--sample-weight", "-1"])
    assert result.exit_code == 2
    assert E.BAD_WEIGHTS.format(column="-1", nulls=0, nans=0, negatives=6).replace(
        "sample_weight", "--sample-weight") in " ".join(result.stderr.split())


def test_bins_above_its_own_limit_is_named_as_the_flag(people: Path) -> None:
    # issue 19, kind 2: membership_calibration's limit (100), in its own words, never
    # divergence's "patterns over the levels"; on the command line the flag and the largest
    # value accepted, which runs
    args = ["membership-calibration", str(people), "--membership", "race=A:p_a,B:p_b,C:p_c",
            "--known", "self", "--format", "json"]
    result = runner.invoke(app, [*args, "--bins", "1000000000"])
    assert result.exit_code == 2, result.output
    error = json.loads(result.stdout)
    assert error["error"] == "SizeLimitError"
    assert error["message"] == ("--bins 1000000000 is more than its limit 100 (one sum per "
                                "group and bin in the scan); pass --bins 100 or less")
    result = runner.invoke(app, [*args, "--bins", "100"])  # the advice as written
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)) == 3 * 100  # three groups, 100 bins each
