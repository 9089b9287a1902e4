"""Issue 19, kind 3: exports that cannot execute, one test per format with the payloads.

Group values come from the audited data, so each payload below is a category of ``race``: a
spreadsheet formula (OWASP's CSV injection), Markdown/HTML that would break a table or inject a
tag, and sequences that end or confuse a ``<script>`` block (``</script``, ``<!--``,
``<script``, U+2028, U+2029).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.audit.escape import csv_safe, markdown_cell, script_json
from polars_fair.cli.entry import app
from polars_fair.datasets import make_hiring

FORMULAS = ['=HYPERLINK("http://x.test","click")', "@SUM(1+1)", "+1+1", "-2+3", "\tTAB",
            "\rCR"]
SCRIPT = ["</script><script>alert(1)</script>", "<!--<script>", "line\u2028sep",
          "para\u2029sep"]
MARKUP = ["a|b", "<img src=x onerror=alert(1)>", "**bold** [link](http://x.test) `code`"]
PAYLOADS = FORMULAS + SCRIPT + MARKUP
runner = CliRunner()


@pytest.fixture(scope="module")
def payload_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, Path]:
    """Hiring data whose race categories are the payloads (about 60 rows each)."""
    n = 60 * len(PAYLOADS)
    df = make_hiring(n, seed=4).with_columns(
        race=pl.Series([PAYLOADS[i % len(PAYLOADS)] for i in range(n)], dtype=pl.String))
    path = tmp_path_factory.mktemp("payloads") / "applicants.parquet"
    df.write_parquet(path)
    return df, path


def _cli(path: Path, *args: str) -> str:
    result = runner.invoke(app, ["report", str(path), "--by", "race", "--y-pred", "y_pred",
                                 *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_csv_puts_a_quote_before_every_formula_cell_and_keeps_numbers(payload_data) -> None:
    df, path = payload_data
    rows = list(csv.DictReader(io.StringIO(_cli(path, "--format", "csv"), newline="")))
    written = {r["race"] for r in rows}
    # by hand: each formula-leading value gains one leading quote, the others are as they were
    assert written == {"'" + p for p in FORMULAS} | set(SCRIPT) | set(MARKUP)
    for row in rows:  # no cell a spreadsheet would evaluate
        assert not any(v.startswith(("=", "+", "@", "\t", "\r")) for v in row.values())
    # numeric columns are written as numbers: the OFI of a group below the reference is
    # negative and stays a number (a text cell "-2+3" is quoted, -0.25 is not)
    ofi = [float(r["ofi"]) for r in rows if r["ofi"] != ""]
    assert any(v < 0 for v in ofi)


def test_csv_safe_only_touches_text_cells_and_names() -> None:
    df = pl.DataFrame({"=g": ["=1", "-1", "a-b", None], "d": [-1.5, 2.0, 0.0, None]})
    out = csv_safe(df)
    assert out.columns == ["'=g", "d"]
    assert out["'=g"].to_list() == ["'=1", "'-1", "a-b", None]
    assert out["d"].to_list() == [-1.5, 2.0, 0.0, None]


def test_markdown_escapes_pipes_and_html_so_the_table_keeps_its_shape(payload_data) -> None:
    _, path = payload_data
    text = _cli(path, "--format", "markdown")
    lines = text.splitlines()
    columns = lines[0].count(" | ") + 1
    for line in lines:  # an unescaped | would add a cell; a raw line break a row
        assert len(re.split(r"(?<!\\)\|", line.strip().strip("|"))) == columns
    assert "<" not in text and ">" not in text  # no tag survives
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "a\\|b" in text and "\\*\\*bold\\*\\* \\[link\\](http://x.test) \\`code\\`" in text
    assert "\u2028" not in text and "\u2029" not in text
    assert "line\\\\u2028sep" in text  # the escape, its backslash escaped for Markdown


def test_markdown_cell_by_hand() -> None:
    assert markdown_cell("x|y") == "x\\|y"
    assert markdown_cell("<b>&") == "&lt;b&gt;&amp;"
    assert markdown_cell("impact_ratio _it_") == "impact_ratio \\_it\\_"
    # line breaks are written as escapes, \ then escaped for Markdown (review of issue 19,
    # defect 17: as spaces, "\nx", " x" and "\u2028x" were the same cell)
    assert markdown_cell("a\nb\r\nc") == "a\\\\nb\\\\r\\\\nc"
    assert len({markdown_cell("\nx"), markdown_cell(" x"), markdown_cell("\u2028x")}) == 3


def test_json_keeps_every_payload_exactly(payload_data) -> None:
    _, path = payload_data
    rows = json.loads(_cli(path, "--format", "json"))
    assert {r["race"] for r in rows} == set(PAYLOADS)


def test_script_json_cannot_end_or_confuse_a_script_block() -> None:
    data = {"v": SCRIPT + ["&"]}
    text = script_json(data)
    for bad in ("</script", "<!--", "<script", "\u2028", "\u2029", "<", ">", "&"):
        assert bad not in text
    assert json.loads(text) == data


def test_audit_html_escapes_its_data_block_and_draws_every_chart(payload_data) -> None:
    pytest.importorskip("vl_convert")
    from polars_fair.audit.html import audit_html, page_data

    df, _ = payload_data
    page = audit_html(df, "race", y_score="y_score", n_permutations=20, seed=0)
    block = re.search(r'<script type="application/json" id="polars-fair-data">(.*?)</script>',
                      page, re.S)
    assert block is not None
    for bad in ("<", ">", "\u2028", "\u2029"):
        assert bad not in block.group(1)
    # one <script> element (the data), and nothing opens another or a comment
    assert page.count("<script") == 1 and page.count("</script") == 1 and "<!--" not in page
    assert {r["race"] for r in page_data(page)["report"]} == set(PAYLOADS)


def test_bias_audit_html_csv_and_markdown_are_safe(payload_data, tmp_path: Path) -> None:
    _, path = payload_data
    out = tmp_path / "ll144.html"
    result = runner.invoke(app, ["bias-audit", str(path), "--category", "race", "--y-pred",
                                 "y_pred", "--output", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text()
    block = re.search(r'<script type="application/json" id="polars-fair-data">(.*?)</script>',
                      page, re.S)
    assert block is not None
    for bad in ("<", ">", "\u2028", "\u2029"):
        assert bad not in block.group(1)
    assert page.count("<script") == 1 and "<!--" not in page
    assert {r["race"] for r in json.loads(block.group(1))["results"]} == set(PAYLOADS)
    result = runner.invoke(app, ["bias-audit", str(path), "--category", "race", "--y-pred",
                                 "y_pred", "--format", "csv"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.split("\n")  # the facts are "# name: value" lines before the table
    body = "\n".join(lines[next(i for i, x in enumerate(lines) if not x.startswith("#")):])
    races = {r["race"] for r in csv.DictReader(io.StringIO(body, newline=""))}
    assert races == {"'" + p for p in FORMULAS} | set(SCRIPT) | set(MARKUP)
    result = runner.invoke(app, ["bias-audit", str(path), "--category", "race", "--y-pred",
                                 "y_pred", "--format", "markdown"])
    assert result.exit_code == 0, result.output
    assert "<img" not in result.stdout and "</script" not in result.stdout


@pytest.mark.parametrize("label", ["line\u2028sep", "para\u2029sep", 'q"uote\\back'])
def test_every_chart_draws_a_label_with_a_javascript_line_end(label: str) -> None:
    pytest.importorskip("vl_convert")
    from polars_fair.audit import plot

    df = make_hiring(600, seed=0).with_columns(
        race=pl.col("race").cast(pl.String).replace({"Black": label}))
    charts = [
        plot.rates_chart(df.fair.metrics("race")),
        plot.pairwise_heatmap(df.fair.pairwise("race")),
        plot.roc_chart(df.fair.scores("race", y_score="y_score")),
        plot.calibration_chart(df.fair.reliability("race", y_score="y_score")),
        plot.divergence_chart(df.fair.divergence(["race", "sex"])),
        plot.threshold_chart(df.fair.sweep("race", y_score="y_score")),
    ]
    for chart in charts:  # each used to fail with Vega's "Unexpected token ILLEGAL"
        assert plot.to_svg(chart).startswith("<svg")
