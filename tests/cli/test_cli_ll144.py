"""``polars-fair bias-audit``: the NYC LL 144 summary of results (issue 12, part 3).

Its numbers are :func:`polars_fair.api.rows.bias_audit`'s on the demo data, in every
format (JSON parsed, CSV read back, the HTML page's JSON block); the summary states the applicants
of unknown category (counted by hand here), the source by file name with its SHA-256 (computed
here with hashlib) and never its directory, and the date of the data or that none was given.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.api.rows import bias_audit
from polars_fair.cli.entry import app
from polars_fair.datasets import make_hiring
from tests.cli.test_cli_analyses import assert_rows_equal

runner = CliRunner()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, Path]:
    """The demo data with 7 applicants of unknown sex and 3 of unknown race (2 overlap)."""
    df = make_hiring(3000, seed=2).with_columns(
        sex=pl.when(pl.col("applicant_id") % 400 == 7).then(None).otherwise(pl.col("sex")),
        race=pl.when(pl.col("applicant_id") % 1000 == 7).then(None).otherwise(pl.col("race")),
    )
    path = tmp_path_factory.mktemp("ll144") / "applicants.parquet"
    df.write_parquet(path)
    return df, path


def _run(path: Path, *args: str) -> Any:
    return runner.invoke(app, ["bias-audit", str(path), "--category", "sex", "--category", "race",
                               *args])


def test_json_equals_bias_audit_and_states_unknowns_source_and_date(demo: Any) -> None:
    df, path = demo
    result = _run(path, "--y-pred", "y_pred", "--format", "json", "--data-date",
                  "2025-01-01/2025-12-31")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert_rows_equal(doc["results"], bias_audit(df, ["sex", "race"], y_pred="y_pred").collect())
    # by hand: unknown sex where id % 400 == 7 (ids 0..2999: 8 rows), unknown race where
    # id % 1000 == 7 (3 rows: 7, 1007, 2007; 7 and 2007 also unknown sex)
    ids = df["applicant_id"].to_list()
    sex_unknown = sum(1 for i in ids if i % 400 == 7)
    race_unknown = sum(1 for i in ids if i % 1000 == 7)
    either = sum(1 for i in ids if i % 400 == 7 or i % 1000 == 7)
    assert doc["unknown_category"] == {"sex": sex_unknown, "race": race_unknown,
                                       "sex × race": either}
    assert doc["applicants"] == df.height == 3000
    assert doc["source"] == "applicants.parquet"
    assert doc["data_date"] == "2025-01-01/2025-12-31"
    prov = doc["provenance"]
    assert prov["input"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert prov["input"]["size_bytes"] == path.stat().st_size
    assert prov["input"]["name"] == "applicants.parquet"
    assert str(path.parent) not in result.stdout
    assert prov["parameters"]["--category"] == ["sex", "race"]


def test_scores_csv_equals_bias_audit_and_date_not_given(demo: Any, tmp_path: Path) -> None:
    df, path = demo
    out = tmp_path / "ll144.csv"
    result = _run(path, "--y-score", "y_score", "--output", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "# date of the data: not given\n" in text
    assert "# source of the data: applicants.parquet\n" in text
    got = pl.read_csv(out, comment_prefix="#")
    want = bias_audit(df, ["sex", "race"], y_score="y_score").collect()
    flat = want.with_columns(pl.col("attributes").list.join(", "))
    assert got.columns == flat.columns
    assert_rows_equal(got.with_columns(pl.col("sex", "race").cast(pl.String)).to_dicts(),
                      flat.with_columns(pl.col("sex", "race").cast(pl.String)))


def test_html_page_embeds_the_figures_and_the_provenance(demo: Any, tmp_path: Path) -> None:
    df, path = demo
    out = tmp_path / "ll144.html"
    result = _run(path, "--y-pred", "y_pred", "--output", str(out), "--where",
                  "applicant_id < 2500", "--model", "screen-v2", "--title", "Q3 audit")
    assert result.exit_code == 0, result.output
    page = out.read_text()
    block = re.search(r'<script type="application/json" id="polars-fair-data">(.*?)</script>',
                      page, re.S)
    assert block is not None
    doc = json.loads(block.group(1))
    want = bias_audit(df.filter(pl.col("applicant_id") < 2500), ["sex", "race"],
                      y_pred="y_pred").collect()
    assert_rows_equal(doc["results"], want)
    assert doc["provenance"]["rows"] == {"read": 3000, "filtered": 500, "audited": 2500}
    assert doc["provenance"]["filters"] == ["applicant_id < 2500"]
    assert hashlib.sha256(path.read_bytes()).hexdigest() in page
    assert str(path.parent) not in page and "<script src" not in page and "http" not in page
    # one table per attribute set, each category with its impact ratio as shown in the JSON
    assert page.count("<h2>") == 3
    assert "<h1>Q3 audit</h1>" in page and doc["provenance"]["model"] == "screen-v2"
    black = want.filter((pl.col("attributes") == ["race"]) & (pl.col("race") == "Black"))
    assert f"{black['impact_ratio'].item():.4f}" in page


def test_table_and_markdown_show_rates_and_impact_ratios(demo: Any) -> None:
    _, path = demo
    table = _run(path, "--y-pred", "y_pred")
    assert table.exit_code == 0, table.output
    assert "date of the data: not given" in table.stdout
    assert "impact_ratio" in table.stdout and "selection_rate" in table.stdout
    md = _run(path, "--y-pred", "y_pred", "--format", "markdown", "--columns",
              "attributes,sex,race,impact_ratio")
    assert md.exit_code == 0, md.output
    assert md.stdout.splitlines()[0] == "| attributes | sex | race | impact_ratio |"


@pytest.mark.parametrize(("args", "message"), [
    (["--y-pred", "y_pred", "--y-score", "y_score"], E.CLI_ONE_OUTCOME),
    ([], E.CLI_ONE_OUTCOME),
    (["--y-pred", "y_pred", "--data-date", "2025-13-01"],
     E.CLI_BAD_DATE.format(value="2025-13-01")),
    (["--y-pred", "y_pred", "--data-date", "2025-02-01/2025-01-01"],
     E.CLI_BAD_DATE.format(value="2025-02-01/2025-01-01")),
    (["--y-pred", "y_pred", "--min-share", "2"], "--min-share"),
    (["--y-pred", "y_pred", "--format", "xlsx"], "--format: 'xlsx' is not one of"),
])
def test_bad_calls_exit_2_with_one_line(demo: Any, args: list[str], message: str) -> None:
    _, path = demo
    result = _run(path, *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("polars-fair: error: ")
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_html_output_never_overwrites_the_input(demo: Any, tmp_path: Path) -> None:
    _, path = demo
    page = tmp_path / "x.html"
    page.write_text("keep")
    result = runner.invoke(app, ["bias-audit", str(page), "--category", "sex", "--y-pred",
                                 "y_pred", "--output", str(page)])
    assert result.exit_code == 2
    assert page.read_text() == "keep"
