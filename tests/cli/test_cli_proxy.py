"""polars-fair proxy-report equals the Python API (issue 24 item 2).

The Python results are checked against SolasAI's and Jurity's figures, hand sums and seeded
simulations in tests/analyses/test_proxy_report.py; here the claim is that the command line
reaches the same analysis with the same options, and refuses bad input with exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.cli.entry import app
from tests.cli.test_cli_analyses import assert_rows_equal

runner = CliRunner()
MEMBERSHIP = {"race": {"A": "p_a", "B": "p_b"}}


@pytest.fixture
def people(tmp_path: Path) -> Path:
    rng = np.random.default_rng(8)
    n = 1_000
    p_a = rng.beta(0.5, 0.5, n)
    truth = rng.random(n) < p_a
    y_true = (rng.random(n) < np.where(truth, 0.5, 0.35)).astype(np.int64)
    y_pred = (rng.random(n) < np.where(y_true == 1, 0.7, 0.25)).astype(np.int64)
    path = tmp_path / "people.csv"
    pl.DataFrame({"p_a": p_a, "p_b": 1 - p_a, "sex": rng.choice(["F", "M"], n),
                  "y_true": y_true, "y_pred": y_pred,
                  "w": rng.integers(1, 4, n).astype(np.float64)}).write_csv(path)
    return path


def test_the_command_equals_the_python_api(people: Path) -> None:
    result = runner.invoke(app, [
        "proxy-report", str(people), "--by", "sex", "--membership", "race=A:p_a,B:p_b",
        "--sample-weight", "w", "--reference", "race=A,sex=F", "--level", "0.9",
        "--format", "json"])
    assert result.exit_code == 0, result.output
    want = pl.read_csv(people).fair.proxy_report(
        "sex", membership=MEMBERSHIP, sample_weight="w", reference={"race": "A", "sex": "F"},
        level=0.9)
    assert "tpr_regression" in want.columns  # the file's y_true column is the label
    assert_rows_equal(json.loads(result.stdout), want)


def test_without_a_label_column_there_is_no_tpr(people: Path, tmp_path: Path) -> None:
    path = tmp_path / "no_labels.csv"
    pl.read_csv(people).drop("y_true").write_csv(path)
    result = runner.invoke(app, ["proxy-report", str(path), "--membership",
                                 "race=A:p_a,B:p_b", "--reference", "A", "--format", "json"])
    assert result.exit_code == 0, result.output
    want = pl.read_csv(path).fair.proxy_report(membership=MEMBERSHIP, y_true=None, reference="A")
    assert "tpr_weighted" not in want.columns
    assert_rows_equal(json.loads(result.stdout), want)


def test_bad_input_is_exit_2(people: Path) -> None:
    malformed = runner.invoke(app, ["proxy-report", str(people), "--membership", "race=A"])
    assert malformed.exit_code == 2
    assert "--membership" in malformed.stderr
    not_summing = runner.invoke(app, ["proxy-report", str(people), "--membership",
                                      "race=A:p_a,B:p_a"])
    assert not_summing.exit_code == 2
    assert "do not sum to 1" in " ".join(not_summing.stderr.split())


def test_a_missing_prediction_names_y_pred(tmp_path: Path) -> None:
    # review 8, item 3: without labels the prediction stood in for them and a missing one
    # was reported as --y-true
    from polars_fair import errors as E

    path = tmp_path / "nolabels.csv"
    pl.DataFrame({"p_a": [0.5, 1.0], "p_b": [0.5, 0.0], "y_pred": [1, 0]}).write_csv(path)
    result = runner.invoke(app, ["proxy-report", str(path), "--membership", "g=a:p_a,b:p_b",
                                 "--y-pred", "nope"])
    assert result.exit_code == 2, result.output
    assert E.MISSING_COLUMN.format(column="nope", role="--y-pred",
                                   available=["p_a", "p_b", "y_pred"]) in result.output
    assert "--y-true" not in result.output
