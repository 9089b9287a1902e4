"""One quoting rule wherever a group is named (review of issue 19, defects 5, 6 and 17).

A missing value reads ``(missing)``; a value that could read as another (the text
``"(missing)"``, one starting with ``"``, with several attributes one holding the separator) is
quoted (``polars_fair.core.labels``). The gate and ``polars-fair check``, the HTML audit, the
pairwise matrix, the text table and the Markdown export all follow it.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.analyses.pairwise import pairwise_matrix
from polars_fair.cli.entry import app
from polars_fair.core.labels import named_label, named_text, visible

runner = CliRunner()

#: a missing group, the texts "null" and "(missing)", and x; 40 rows each. Selection rates:
#: missing 20/40, "null" 10/40, "(missing)" 0/40, x 30/40.
MISS = pl.DataFrame({
    "g": [None] * 40 + ["null"] * 40 + ["(missing)"] * 40 + ["x"] * 40,
    "y_true": [1, 0] * 80,
    "y_pred": [1, 1, 0, 0] * 10 + [1, 0, 0, 0] * 10 + [0] * 40 + [1, 1, 1, 0] * 10,
})
#: two groups whose unquoted labels would both read r=A, s=B, s=C
COLLIDE = pl.DataFrame({"r": ["A, s=B"] * 40 + ["A"] * 40, "s": ["C"] * 40 + ["B, s=C"] * 40,
                        "y_true": [1, 0] * 40,
                        "y_pred": [1, 1, 0, 0] * 10 + [1, 0, 0, 0] * 10})


def test_named_labels_never_collide() -> None:
    labels = COLLIDE.unique(["r", "s"]).select(named_label(["r", "s"]))["group"].to_list()
    assert sorted(labels) == ['r="A, s=B", s=C', 'r=A, s="B, s=C"']
    assert named_text({"g": None}) == "g=(missing)"
    assert named_text({"g": "(missing)"}) == 'g="(missing)"'


def _check(tmp_path: Path, frame: pl.DataFrame, *by: str) -> dict[str, object]:
    path = tmp_path / "rows.parquet"
    frame.write_parquet(path)
    args = ["check", str(path), *(a for b in by for a in ("--by", b)), "--format", "json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.stdout
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_check_names_the_missing_group_and_the_text_apart(tmp_path: Path) -> None:
    verdict = _check(tmp_path, MISS, "g")
    # the four groups tie at 40 rows: "largest" takes the first in key order after the
    # missing group, the text "(missing)"
    assert verdict["reference"] == 'g="(missing)"'
    groups = sorted(verdict["checked_groups"])  # type: ignore[arg-type]
    assert groups == ['g="(missing)"', "g=(missing)", "g=null", "g=x"]
    # impact ratios against the highest rate (x, 0.75): "(missing)" 0, missing 0.5 / 0.75
    ratios = {v["group"]: v["value"] for v in verdict["violations"]  # type: ignore[attr-defined]
              if v["metric"] == "impact_ratio"}
    assert ratios['g="(missing)"'] == 0.0
    assert ratios["g=(missing)"] == pytest.approx(2 / 3)


def test_check_quotes_values_holding_the_separator(tmp_path: Path) -> None:
    verdict = _check(tmp_path, COLLIDE, "r", "s")
    assert sorted(verdict["checked_groups"]) == [  # type: ignore[arg-type]
        'r="A, s=B", s=C', 'r=A, s="B, s=C"']


def test_the_html_audit_quotes_the_text_group() -> None:
    pytest.importorskip("altair")
    from polars_fair.html import audit_html

    page = audit_html(MISS, "g")
    # the headline names the reference (the text group, first of the tied groups after the
    # missing one) quoted, in the page's one spelling of a group (no "g=" prefix)
    assert "Against the reference group <b>&quot;(missing)&quot;</b>" in page
    # the rates table: the text group's key quoted, the missing group's not
    assert "<td>&quot;(missing)&quot;</td>" in page and "<td>(missing)</td>" in page


def test_the_pairwise_matrix_reads_missing_and_quotes_the_text() -> None:
    pairs = MISS.fair.pairwise("g", metrics=["selection_rate_difference"])
    matrix = pairwise_matrix(pairs, "selection_rate_difference", ["g"])
    assert sorted(matrix.columns[1:]) == ['"(missing)"', "(missing)", "null", "x"]


def test_the_text_table_shows_a_carriage_return_escaped(tmp_path: Path) -> None:
    path = tmp_path / "cr.parquet"
    pl.DataFrame({"g": ["a\rb"] * 2 + ["c"] * 2, "y_true": [1, 0] * 2,
                  "y_pred": [1, 0] * 2}).write_parquet(path)
    result = runner.invoke(app, ["report", str(path), "--by", "g", "--format", "table"])
    assert result.exit_code == 0, result.stdout
    assert "\r" not in result.stdout
    assert "a\\rb" in result.stdout
    assert visible("a\rb") == "a\\rb"


def test_the_lines_under_the_cli_tables_escape_control_and_invisible_characters(
        tmp_path: Path) -> None:
    # second review of issue 19: `check` and `report` wrote "A\x01b" and an ANSI escape raw
    # under their tables (both read "g=Ab" on a terminal) and left U+200B invisible
    groups = ["A\x01b", "A\x1b[31mb", "x\u200by", "xy"]
    path = tmp_path / "ctl.parquet"
    pl.DataFrame({"g": [g for g in groups for _ in range(40)],
                  "y_true": [1, 0] * 80,
                  "y_pred": [1, 0] * 20 + [1, 1, 0, 0] * 10 + [0] * 40 + [1] * 40,
                  }).write_parquet(path)
    for args in (["check", str(path), "--by", "g"],
                 ["report", str(path), "--by", "g", "--format", "table"]):
        out = runner.invoke(app, args).output
        assert "\x01" not in out and "\x1b" not in out and "\u200b" not in out
    out = runner.invoke(app, ["check", str(path), "--by", "g"]).output
    # the four groups tie at 40 rows: "largest" takes the first in key order, "A\x01b"
    assert "reference g=A\\x01b" in out
    assert "g=A\\x1b[31mb" in out and "g=x\\u200by" in out
    assert visible("x\u200by") == "x\\u200by"


#: g missing or the text "(missing)", h "c" or "a, b"; 40 rows per group. Selection rates by
#: hand: (missing) | c 30/40 = 0.75, (missing) | a, b 20/40, "(missing)" | c 10/40 = 0.25,
#: "(missing)" | a, b 20/40.
INTERSECT = pl.DataFrame({
    "g": [None] * 80 + ["(missing)"] * 80,
    "h": (["c"] * 40 + ["a, b"] * 40) * 2,
    "y_true": [1, 0] * 80,
    "y_pred": [1, 1, 1, 0] * 10 + [1, 0] * 20 + [1, 0, 0, 0] * 10 + [0, 1] * 20,
})


def test_the_html_audit_summary_names_intersections_as_the_rest_of_the_page() -> None:
    """The summary table wrote the summary's own labels (g=(missing), h=c) where the rest of
    the page writes (missing) | c (review of issue 19, h-fix20c item 2)."""
    pytest.importorskip("altair")
    import html
    import re

    from polars_fair.html import audit_html

    page = audit_html(INTERSECT, ["g", "h"])
    summary = page[page.index("<h2>Summary metrics</h2>"):page.index("<h3>What the findings")]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", summary, re.S)[1:]:
        cells = [html.unescape(re.sub("<.*?>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>",
                                                                          row)]
        rows[cells[0]] = (cells[2], cells[3])
    # selection rate: highest (missing) | c (0.75), lowest "(missing)" | c (0.25)
    assert rows["demographic_parity_difference"] == ("(missing) | c", '"(missing)" | c')
    assert rows["min_impact_ratio"] == ("(missing) | c", '"(missing)" | c')
    spelled = {"(missing) | c", "(missing) | a, b", '"(missing)" | c', '"(missing)" | a, b'}
    assert {c for pair in rows.values() for c in pair} <= spelled
    # the headline and the tables spell the same groups alike
    assert "&quot;(missing)&quot; | c" in page.split("<h2>Summary metrics</h2>")[0]


def test_style_report_of_stacked_sets_names_the_missing_group() -> None:
    """With attribute sets a null key was cast to a null cell, "—" like an undefined figure,
    for the missing group and for a key outside the row's set alike, and the text "(missing)"
    read as the missing group. By hand (g over 160 rows; h: c, a, b, 80 rows each):"""
    import html
    import re

    from polars_fair.audit.style import style_report

    page = style_report(INTERSECT.fair.report(["g", "h"], combinations="all")).as_raw_html()
    cells = [[html.unescape(re.sub("<.*?>", "", c)).strip()
              for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)][:4]
             for r in re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)]
    rows = [c for c in cells if c and c[0] in ("g", "h", "g × h")]
    assert rows == [
        ["g", '"(missing)"', "", "80"], ["g", "(missing)", "", "80"],
        ["h", "", "a, b", "80"], ["h", "", "c", "80"],
        ["g × h", '"(missing)"', "a, b", "40"], ["g × h", '"(missing)"', "c", "40"],
        ["g × h", "(missing)", "a, b", "40"], ["g × h", "(missing)", "c", "40"],
    ]
