"""Advice names the flag the attribute came from (issue 20, fix item 5).

bias-audit takes its attributes from ``--category`` and stratified its strata from ``--strata``:
an error about such an attribute says ``--category`` or ``--strata``, never ``--by`` (which
bias-audit does not have). The advice is followed.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


def _rows(tmp_path: Path) -> str:
    # who: 40 people, one row each; a, b: 10 levels each, a x b one row per group
    path = tmp_path / "rows.csv"
    pl.DataFrame({
        "who": [f"p{i}" for i in range(40)], "sex": ["F", "M"] * 20,
        "a": [f"a{i % 10}" for i in range(40)], "b": [f"b{i // 4}" for i in range(40)],
        "y_true": [1, 0, 0, 1] * 10, "y_pred": [1, 1, 0, 0] * 10,
    }).write_csv(path)
    return str(path)


def test_bias_audit_names_category_and_the_advice_works(tmp_path: Path) -> None:
    path = _rows(tmp_path)
    result = runner.invoke(app, ["bias-audit", path, "--category", "who", "--category", "sex",
                                 "--y-pred", "y_pred"])
    assert result.exit_code == 2
    assert "leave --category who out" in result.stderr and "--by" not in result.stderr
    ok = runner.invoke(app, ["bias-audit", path, "--category", "sex", "--y-pred", "y_pred"])
    assert ok.exit_code == 0, ok.stderr
    # each sex: 20 applicants, 10 selected (y_pred 1, 1, 0, 0 repeats)
    assert "20" in ok.stdout and "0.5" in ok.stdout


def test_bias_audit_intersection_names_category(tmp_path: Path) -> None:
    # a (12 levels of 10 rows) x b (10 levels of 12 rows): 120 groups of one row each, at
    # least the 100 groups from which an intersection is judged (MIN_GROUPS_INTERSECTION_CHECK)
    path = str(tmp_path / "cells.csv")
    pl.DataFrame({
        "a": [f"a{i % 12}" for i in range(120)], "b": [f"b{i // 12}" for i in range(120)],
        "y_pred": [1, 0] * 60,
    }).write_csv(path)
    result = runner.invoke(app, ["bias-audit", path, "--category", "a", "--category", "b",
                                 "--y-pred", "y_pred"])
    assert result.exit_code == 2
    assert "leave one of --category a or --category b out" in result.stderr
    assert "--by" not in result.stderr
    ok = runner.invoke(app, ["bias-audit", path, "--category", "a", "--y-pred", "y_pred"])
    assert ok.exit_code == 0, ok.stderr


def test_stratified_names_strata(tmp_path: Path) -> None:
    path = _rows(tmp_path)
    result = runner.invoke(app, ["stratified", path, "--by", "sex", "--strata", "who"])
    assert result.exit_code == 2
    assert "leave --strata who out" in result.stderr and "--by who" not in result.stderr
    ok = runner.invoke(app, ["stratified", path, "--by", "sex", "--strata", "b"])
    assert ok.exit_code == 0, ok.stderr


def test_report_still_names_by(tmp_path: Path) -> None:
    path = _rows(tmp_path)
    result = runner.invoke(app, ["report", path, "--by", "who"])
    assert result.exit_code == 2 and "leave --by who out" in result.stderr
