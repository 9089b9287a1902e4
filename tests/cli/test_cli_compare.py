"""polars-fair compare and monitor equal the Python API (issue 25, item 4).

The Python results are checked against hand computations in tests/analyses/test_compare.py and
test_monitor.py; here the claim is that the command line reaches the same analysis with the
same options.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.cli.entry import app
from tests.cli import test_cli_analyses as analyses
from tests.cli.test_cli_analyses import assert_rows_equal
from tests.conftest import COMPAS_CSV, require

runner = CliRunner()
# the COMPAS file of the generated commands' tests (pytest finds fixtures by module name)
compas_file, scored = analyses.compas_file, analyses.scored


@pytest.mark.data
def test_compare_equals_the_python_api(compas: pl.DataFrame, compas_file: Path) -> None:
    result = runner.invoke(app, [
        "compare", str(compas_file), "--by", "race", "--y-true", "two_year_recid",
        "--y-pred", "decile_score >= 5", "--baseline", "decile_score >= 6", "--level", "0.9",
        "--mid-p", "--format", "json"])
    assert result.exit_code == 0, result.output
    want = compas.fair.compare("race", y_pred=pl.col("decile_score") >= 5,
                               baseline=pl.col("decile_score") >= 6,
                               y_true=pl.col("two_year_recid") == 1, pos_label=True,
                               level=0.9, mid_p=True)
    assert_rows_equal(json.loads(result.stdout), want)


@pytest.mark.data
def test_monitor_equals_the_python_api() -> None:
    csv = require(COMPAS_CSV)
    result = runner.invoke(app, [
        "monitor", str(csv), "--by", "race", "--y-pred", "decile_score >= 5",
        "--where", "race IN ('African-American', 'Caucasian')", "--dtype", "screening_date=date",
        "--time", "screening_date", "--every", "1mo", "--alpha", "0.1", "--format", "json"])
    assert result.exit_code == 0, result.output
    lf = pl.scan_csv(csv, schema_overrides={"screening_date": pl.Date}).filter(
        pl.col("race").is_in(["African-American", "Caucasian"]))
    want = lf.fair.monitor("race", time="screening_date", every="1mo",
                           y_pred=pl.col("decile_score") >= 5, pos_label=True, alpha=0.1)
    assert_rows_equal(json.loads(result.stdout),
                      want.collect().with_columns(pl.col("period").cast(pl.String)))


def test_the_required_options_are_required(tmp_path: Path) -> None:
    path = tmp_path / "x.csv"
    pl.DataFrame({"g": ["a"], "p": [1]}).write_csv(path)
    result = runner.invoke(app, ["compare", str(path), "--by", "g", "--y-pred", "p"])
    assert result.exit_code == 2 and "--baseline" in result.output
    result = runner.invoke(app, ["monitor", str(path), "--by", "g", "--y-pred", "p",
                                 "--time", "g"])
    assert result.exit_code == 2 and "--every" in result.output


@pytest.mark.parametrize("flag", ["--max-impact-ratio-drop", "--max-ofi-increase"])
def test_a_change_limit_without_a_baseline_is_a_usage_error(tmp_path: Path, flag: str) -> None:
    # it was silently ignored (issue 25 review): the gate on change needs --baseline-pred
    path = tmp_path / "x.csv"
    pl.DataFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 0]}).write_csv(path)
    result = runner.invoke(app, ["check", str(path), "--by", "g", flag, "0.01"])
    assert result.exit_code == 2, result.output
    assert flag in result.output and "--baseline-pred" in result.output
