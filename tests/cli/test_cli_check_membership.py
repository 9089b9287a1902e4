"""``polars-fair check --membership`` (issue 24 re-review 2, item 3): the CI gate on estimated
membership, with the support quantity it decides on named in its reasons and its text."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.audit.gate import LOW_SUPPORT_MEMBERSHIP, gate
from polars_fair.cli.entry import SUPPORT_MEMBERSHIP, app

runner = CliRunner()

#: 40 rows surely in a (10 selected), 40 surely in b (20 selected), 100 rows at p_b 0.9,
#: p_c 0.1 (50 selected). y_true = y_pred, so every OFI is 0. By hand:
#:   a: Σp 40, n_eff 40, support 40, selection rate 10/40 = 0.25
#:   b: Σp 40 + 90 = 130, Σp² 40 + 100·0.81 = 121, n_eff 130²/121 = 139.7, support 130,
#:      selection rate (20 + 0.9·50)/130 = 0.5
#:   c: Σp 10, Σp² 100·0.01 = 1, n_eff 10²/1 = 100, support min(10, 100) = 10, rate 5/10
#: The gate checks a and b (support >= 30), not c (10 < 30, though n = n_eff = 100); the
#: reference is the largest support size, b; a's impact ratio is 0.25/0.5 = 0.5.
ROWS = pl.DataFrame({
    "p_a": [1.0] * 40 + [0.0] * 40 + [0.0] * 100,
    "p_b": [0.0] * 40 + [1.0] * 40 + [0.9] * 100,
    "p_c": [0.0] * 80 + [0.1] * 100,
    "y_pred": [1] * 10 + [0] * 30 + [1] * 20 + [0] * 20 + [1, 0] * 50,
}).with_columns(y_true=pl.col("y_pred"),
                crisp=pl.when(pl.col("p_a") == 1).then(pl.lit("a")).otherwise(pl.lit("b")),
                score=pl.col("y_pred") * 0.5 + 0.25)
MEMBERSHIP = "g=a:p_a,b:p_b,c:p_c"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    out = tmp_path / "people.csv"
    ROWS.write_csv(out)
    return out


def test_gate_reason_names_the_support_size() -> None:
    counts = polars_fair.counts(ROWS, membership={"g": {"a": "p_a", "b": "p_b", "c": "p_c"}})
    table = gate(counts).filter(pl.col("metric") == "impact_ratio")
    assert table["n"].to_list() == [40, 140, 100]
    assert table["checked"].to_list() == [True, True, False]
    assert table["reason"].to_list()[2] == LOW_SUPPORT_MEMBERSHIP.format(size="10.0",
                                                                         min_support=30)
    assert table.filter(pl.col("is_reference"))["g"].to_list() == ["b"]


def test_check_membership_fails_with_the_violation(path: Path) -> None:
    result = runner.invoke(app, ["check", str(path), "--membership", MEMBERSHIP,
                                 "--format", "json"])
    assert result.exit_code == 1, result.output
    out = json.loads(result.stdout)
    assert out["passed"] is False
    assert out["support"] == SUPPORT_MEMBERSHIP
    assert out["rows"] == 180  # Σ weight_sum = 40 + 130 + 10, each row once
    assert out["reference"] == "g=b"
    assert out["checked_groups"] == ["g=a", "g=b"]
    assert out["skipped_low_support"] == ["g=c"]
    assert [(v["group"], v["metric"]) for v in out["violations"]] == [("g=a", "impact_ratio")]
    assert out["violations"][0]["value"] == pytest.approx(0.5, abs=1e-12)
    text = runner.invoke(app, ["check", str(path), "--membership", MEMBERSHIP])
    assert text.exit_code == 1
    assert f"with {SUPPORT_MEMBERSHIP} >= 30 checked" in text.stdout
    assert f"not checked ({SUPPORT_MEMBERSHIP} < 30): g=c" in text.stdout


def test_check_membership_passes_below_the_ratio_limit(path: Path) -> None:
    # a's impact ratio 0.5 passes a limit of 0.4; the estimator and --normalize are taken
    result = runner.invoke(app, ["check", str(path), "--membership", MEMBERSHIP,
                                 "--min-impact-ratio", "0.4", "--membership-estimator",
                                 "weighted", "--normalize", "--format", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["passed"] is True and out["violations"] == []


def test_check_membership_refuses_abroca_and_its_advice_runs(path: Path) -> None:
    result = runner.invoke(app, ["check", str(path), "--membership", MEMBERSHIP,
                                 "--y-score", "score", "--max-abroca", "0.1"])
    assert result.exit_code == 2
    assert E.CLI_CHECK_MEMBERSHIP.format(flag="--max-abroca", table="score table") in \
        result.output
    # the advice: check --membership without --max-abroca, and --max-abroca on a crisp --by
    assert runner.invoke(app, ["check", str(path), "--membership", MEMBERSHIP]).exit_code == 1
    crisp = runner.invoke(app, ["check", str(path), "--by", "crisp", "--y-score", "score",
                                "--max-abroca", "0.1"])
    assert crisp.exit_code in (0, 1), crisp.output
    assert "abroca" in crisp.stdout


def test_check_needs_by_or_membership(path: Path) -> None:
    result = runner.invoke(app, ["check", str(path)])
    assert result.exit_code == 2
    assert E.CLI_BY_OR_MEMBERSHIP in result.output
