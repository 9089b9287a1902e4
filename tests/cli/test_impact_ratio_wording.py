"""Every place that shows ``impact_ratio`` says what it divides by (issue 20, fix 20a item 4).

``report`` and ``bias-audit`` divide ``impact_ratio`` by the highest selection rate;
``impact_analysis`` and ``stratified`` (issue 23's column names, a contract) divide it by the
reference group's, which ``report`` calls ``disparate_impact``. The command line and the HTML page
name the denominator.

The frame: a: 30 of 60 selected (0.5, the largest group, so the reference); b: 32 of 40 (0.8, the
highest rate). Against the reference, b's ratio is 0.8 / 0.5 = 1.6; against the highest rate, a's
is 0.5 / 0.8 = 0.625.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.analyses.impact import RATIO_TO_REFERENCE
from polars_fair.cli.entry import app

runner = CliRunner()

FRAME = pl.DataFrame({"g": ["a"] * 60 + ["b"] * 40, "s": ["x", "y"] * 50,
                      "y_true": [1, 0] * 50,
                      "y_pred": [1] * 30 + [0] * 30 + [1] * 32 + [0] * 8})
#: The line under impact-analysis and stratified, with a's rate 30 / 60.
NOTE = RATIO_TO_REFERENCE.format(reference=" (g=a: 0.5000)")


def _csv(tmp_path: Path) -> str:
    path = tmp_path / "rows.csv"
    FRAME.write_csv(path)
    return str(path)


def _one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("command", [["impact-analysis"], ["stratified", "--strata", "s"]])
def test_the_command_line_names_the_reference_denominator(tmp_path: Path,
                                                          command: list[str]) -> None:
    path = _csv(tmp_path)
    result = runner.invoke(app, [command[0], path, "--by", "g", *command[1:]])
    assert result.exit_code == 0, result.output
    assert NOTE in _one_line(result.stdout)
    assert "divide by the highest selection rate instead" in NOTE
    # and the figures are the reference ratio: b 0.8 / 0.5
    out = runner.invoke(app, [command[0], path, "--by", "g", *command[1:], "--format", "json"])
    ratios = {r["g"]: r["impact_ratio"] for r in json.loads(out.stdout)}
    assert ratios["a"] == 1.0 and abs(ratios["b"] - 1.6) < 1e-12


def test_report_names_the_highest_rate_denominator(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    result = runner.invoke(app, ["report", path, "--by", "g"])
    assert result.exit_code == 0, result.output
    text = _one_line(result.stdout)
    assert "impact ratio against: g=b, the highest selection rate (0.8000)" in text
    assert "the reference group's selection_rate" not in text  # not the reference's line
    out = runner.invoke(app, ["report", path, "--by", "g", "--format", "json"])
    rows = {r["g"]: r for r in json.loads(out.stdout)}
    assert abs(rows["a"]["impact_ratio"] - 0.5 / 0.8) < 1e-12
    assert abs(rows["b"]["disparate_impact"] - 1.6) < 1e-12  # the reference ratio's name here


def test_the_html_page_heads_each_ratio_with_its_denominator() -> None:
    from polars_fair.audit.html import audit_html

    page = audit_html(FRAME, "g", strata="s")
    impact = page[page.index("Adverse impact per group"):]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", impact[:impact.index("</table>")])
    assert "disparate impact (÷ reference)" in headers
    assert "report's disparate_impact" in impact and "divides by the highest rate" in impact
    strata = page[page.index("<h2>Within strata"):]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", strata[:strata.index("</table>")])
    assert "disparate impact (pooled, ÷ reference)" in headers
    glossary = html.unescape(page[page.index("<h2>Definitions</h2>"):])
    assert ("selection rate / the highest selection rate among the groups (in report and "
            "bias_audit; the impact_ratio of impact_analysis and stratified divides by the "
            "reference group's rate: report's disparate_impact)") in glossary
