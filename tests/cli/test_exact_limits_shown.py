"""A limit is printed as the number its verdict was decided on (issue 19, fourth review, item 7).

``summary --four-fifths 0.8000000000000000000001`` printed the limit as 0.8 beside an impact ratio
of 0.8 and "fail" (correct: 4/5 is below the limit). Every printed limit (summary's table,
Markdown, CSV, JSON; check's JSON violations; the HTML audit's verdicts) now shows every digit.
"""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.core.numbers import limit_text

runner = CliRunner()
LIMIT = "0.8000000000000000000001"


def _rows(tmp_path: Path) -> Path:
    # A: tp 30, fp 30, fn 20, tn 20 selects 60/100; B: 40, 35, 10, 15 selects 75/100:
    # A's impact ratio is exactly 60/75 = 4/5, below 0.8000000000000000000001: fail
    cells = {"A": (30, 30, 20, 20), "B": (40, 35, 10, 15)}
    lines = ["g,y_true,y_pred"]
    for g, (tp, fp, fn, tn) in cells.items():
        lines += [f"{g},1,1"] * tp + [f"{g},0,1"] * fp + [f"{g},1,0"] * fn + [f"{g},0,0"] * tn
    path = tmp_path / "rows.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_limit_text_keeps_every_digit() -> None:
    assert limit_text(Decimal(LIMIT)) == LIMIT
    assert limit_text(0.8123456) == "0.8123456"  # f"{x:g}" printed 0.812346
    assert (limit_text(Fraction(4, 5)), limit_text(30.0)) == ("0.8", "30")


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "json"])
def test_summary_prints_the_limit_it_decided_on(tmp_path: Path, fmt: str) -> None:
    result = runner.invoke(app, ["summary", str(_rows(tmp_path)), "--by", "g",
                                 "--four-fifths", LIMIT, "--format", fmt])
    assert result.exit_code == 0, result.output
    if fmt == "json":
        row = next(r for r in json.loads(result.stdout) if r["metric"] == "min_impact_ratio")
        assert (row["value"], row["threshold"], row["verdict"]) == (0.8, LIMIT, "fail")
    elif fmt == "csv":
        rows = csv.DictReader(io.StringIO(result.stdout, newline=""))
        row = next(r for r in rows if r["metric"] == "min_impact_ratio")
        assert (row["threshold"], row["verdict"]) == (LIMIT, "fail")
    else:
        line = next(x for x in result.stdout.splitlines() if "min_impact_ratio" in x)
        assert LIMIT in line and "fail" in line, line


def test_a_limit_beyond_four_decimals_is_not_rounded_in_the_table(tmp_path: Path) -> None:
    result = runner.invoke(app, ["summary", str(_rows(tmp_path)), "--by", "g",
                                 "--four-fifths", "0.80001"])
    line = next(x for x in result.stdout.splitlines() if "min_impact_ratio" in x)
    assert "0.80001" in line and "fail" in line, line
    # a limit the table shows exactly keeps the number column: 0.8 reads 0.8000, 4/5 passes
    result = runner.invoke(app, ["summary", str(_rows(tmp_path)), "--by", "g"])
    line = next(x for x in result.stdout.splitlines() if "min_impact_ratio" in x)
    assert "0.8000    ┆ pass" in line, line


def test_check_json_violations_show_the_limit_as_the_limits_do(tmp_path: Path) -> None:
    result = runner.invoke(app, ["check", str(_rows(tmp_path)), "--by", "g",
                                 "--min-impact-ratio", LIMIT, "--format", "json"])
    assert result.exit_code == 1
    out = json.loads(result.stdout)
    assert out["limits"]["min_impact_ratio"] == LIMIT
    assert [(v["group"], v["value"], v["limit"]) for v in out["violations"]] == \
        [("g=A", 0.8, LIMIT)]


def test_the_html_audit_shows_the_limit_it_decided_on(tmp_path: Path) -> None:
    page = tmp_path / "audit.html"
    result = runner.invoke(app, ["report", str(_rows(tmp_path)), "--by", "g",
                                 "--four-fifths", LIMIT, "--html", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text()
    assert f"<td>≥ {LIMIT}</td>" in text and f"impact ratio ≥ {LIMIT}" in text
    assert "<td>≥ 0.8</td>" not in text
