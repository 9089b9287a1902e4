"""The membership family's advice in CLI words, each followed as written (issue 24 re-review 2,
item 4): no Python spelling on the command line, and a way forward from ``--html``."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

#: Six people: p_a the probability of group a, p_b = 1 - p_a; y_pred 1, 0, 1, 1, 0, 0.
ROWS = pl.DataFrame({"p_a": [1.0, 0.8, 0.5, 0.2, 0.0, 0.5],
                     "p_b": [0.0, 0.2, 0.5, 0.8, 1.0, 0.5],
                     "y_pred": [1, 0, 1, 1, 0, 0]})
MEMBERSHIP = ["--membership", "g=a:p_a,b:p_b", "--y-true", "y_pred"]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    out = tmp_path / "people.csv"
    ROWS.write_csv(out)
    return out


def _error(result: object) -> str:
    return " ".join(str(getattr(result, "output", "")).split())


def test_regression_estimator_advice_is_a_command_that_runs(path: Path) -> None:
    for command in ("report", "rates"):
        result = runner.invoke(app, [command, str(path), *MEMBERSHIP,
                                     "--membership-estimator", "regression"])
        assert result.exit_code == 2
        assert E.CLI_MEMBERSHIP_REGRESSION in _error(result)
        assert "df.fair" not in _error(result) and "membership=" not in _error(result)
    # followed: proxy-report with the same input, --membership and --y-true
    result = runner.invoke(app, ["proxy-report", str(path), *MEMBERSHIP, "--format", "json"])
    assert result.exit_code == 0, result.output
    out = pl.DataFrame(json.loads(result.stdout))
    assert out["g"].to_list() == ["a", "b"]
    assert out["selection_rate_regression"].null_count() == 0


def test_regression_estimator_advice_in_python_runs() -> None:
    # Python keeps its own spelling: df.fair.proxy_report(by, membership=...)
    with pytest.raises(E.InvalidArgumentError) as info:
        ROWS.fair.report(membership={"g": {"a": "p_a", "b": "p_b"}}, y_true=None,
                         y_pred="y_pred", membership_estimator="regression")
    assert str(info.value) == E.MEMBERSHIP_REGRESSION
    proxy = ROWS.fair.proxy_report(None, membership={"g": {"a": "p_a", "b": "p_b"}},
                                   y_true=None, y_pred="y_pred", min_support=0)
    assert "selection_rate_regression" in proxy.columns


def test_one_attribute_advice_in_cli_words_runs(path: Path) -> None:
    result = runner.invoke(app, ["rates", str(path), "--membership", "g=a:p_a,b:p_b",
                                 "--membership", "h=a:p_a,b:p_b", "--y-true", "y_pred"])
    assert result.exit_code == 2
    assert E.CLI_MEMBERSHIP_ONE_ATTRIBUTE.format(count=2, names="['g', 'h']") in _error(result)
    for attribute in ("g", "h"):  # followed: each attribute in its own command
        result = runner.invoke(app, ["rates", str(path), "--membership",
                                     f"{attribute}=a:p_a,b:p_b", "--y-true", "y_pred"])
        assert result.exit_code == 0, result.output


def test_html_with_membership_says_what_to_run_and_it_runs(path: Path, tmp_path: Path) -> None:
    page = tmp_path / "audit.html"
    result = runner.invoke(app, ["report", str(path), *MEMBERSHIP, "--html", str(page)])
    assert result.exit_code == 2
    assert E.CLI_HTML_MEMBERSHIP in _error(result)
    assert not page.exists()
    # followed: report --membership without --html, to a file in markdown
    table = tmp_path / "audit.md"
    result = runner.invoke(app, ["report", str(path), *MEMBERSHIP, "--format", "markdown",
                                 "--output", str(table)])
    assert result.exit_code == 0, result.output
    text = table.read_text(encoding="utf-8")
    assert "| g |" in text and "n_effective" in text
    # or the three estimators side by side
    result = runner.invoke(app, ["proxy-report", str(path), *MEMBERSHIP])
    assert result.exit_code == 0, result.output


def test_estimator_without_membership_advice_runs(path: Path) -> None:
    result = runner.invoke(app, ["rates", str(path), "--by", "y_pred", "--y-true", "y_pred",
                                 "--membership-estimator", "argmax"])
    assert result.exit_code == 2
    assert ("--membership-estimator 'argmax' applies to membership probabilities only: pass "
            "--membership too") in _error(result)
    # followed: pass --membership too
    result = runner.invoke(app, ["rates", str(path), *MEMBERSHIP,
                                 "--membership-estimator", "argmax"])
    assert result.exit_code == 0, result.output
