"""The polars-fair command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.core.registry import METRICS
from polars_fair.datasets import make_hiring
from tests.conftest import COMPAS_CSV, require

runner = CliRunner()

PROPUBLICA_WHERE = (
    "days_b_screening_arrest BETWEEN -30 AND 30 AND is_recid <> -1 "
    "AND c_charge_degree <> 'O' AND score_text <> 'N/A'"
)


def test_demo_prints_the_report() -> None:
    result = runner.invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "polars-fair report: 20,000 rows, 10 groups by ['race', 'sex']" in result.output
    assert "algorithmic" in result.output  # Black women: the generator's model bias
    assert "insufficient support" in result.output  # Pacific Islander groups


def test_demo_json_matches_library() -> None:
    result = runner.invoke(app, ["demo", "--format", "json", "--n", "3000", "--seed", "3"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    expected = make_hiring(3000, seed=3).fair.report(["race", "sex"])
    assert [r["n"] for r in rows] == expected["n"].to_list()
    assert [r["ofi"] for r in rows] == pytest.approx(expected["ofi"].to_list())


@pytest.mark.data
def test_report_on_compas_with_sql_prediction(tmp_path: Path) -> None:
    path = require(COMPAS_CSV)
    out = tmp_path / "r.csv"
    result = runner.invoke(app, [
        "report", str(path), "--by", "race", "--y-true", "two_year_recid",
        "--y-pred", "score_text <> 'Low'", "--where", PROPUBLICA_WHERE,
        "--reference", "Caucasian", "--format", "csv", "--output", str(out),
    ])
    assert result.exit_code == 0, result.output
    df = pl.read_csv(out)
    aa = df.filter(pl.col("race") == "African-American").row(0, named=True)
    # dataset README: TP 1188, FN 473, FP 641, TN 873; DI 1.7406; OFI +0.1128
    assert (aa["tp"], aa["fn"], aa["fp"], aa["tn"]) == (1188, 473, 641, 873)
    assert round(aa["disparate_impact"], 4) == 1.7406
    assert round(aa["ofi"], 4) == 0.1128
    assert df["n"].sum() == 6172


@pytest.mark.data
def test_report_table_and_intersection_reference(tmp_path: Path) -> None:
    path = require(COMPAS_CSV)
    result = runner.invoke(app, [
        "report", str(path), "--by", "race", "--by", "sex", "--y-true", "two_year_recid",
        "--y-pred", "score_text <> 'Low'", "--where", PROPUBLICA_WHERE,
        "--reference", "race=Caucasian,sex=Male",
    ])
    assert result.exit_code == 0, result.output
    assert "6,172 rows, 12 groups" in result.output
    assert "overall: selection_rate=0.4457 base_rate=0.4551 tpr=0.6169 fpr=0.3027" in result.output


def test_bad_input_exits_2_with_message(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    make_hiring(500).write_parquet(path)
    result = runner.invoke(app, ["report", str(path), "--by", "colour"])
    assert result.exit_code == 2
    # issue 11 (kind 11): messages name the flag (--by), not the Python parameter (by)
    assert ("column 'colour' (--by) not found; the frame has columns: ['applicant_id'"
            in result.output)
    result = runner.invoke(app, ["report", str(path), "--by", "race", "--y-pred", "y_score"])
    assert result.exit_code == 2
    assert "looks like a score" in result.output
    result = runner.invoke(app, ["report", str(tmp_path / "missing.csv"), "--by", "race"])
    assert result.exit_code == 2
    assert "file not found" in result.output


def test_parquet_and_ndjson_inputs(tmp_path: Path) -> None:
    df = make_hiring(800, seed=5)
    expected = df.fair.report("sex")
    for name, write in (("d.parquet", df.write_parquet), ("d.ndjson", df.write_ndjson)):
        path = tmp_path / name
        write(path)
        out = tmp_path / f"{name}.out.parquet"
        result = runner.invoke(app, ["report", str(path), "--by", "sex", "--format", "parquet",
                                     "--output", str(out)])
        assert result.exit_code == 0, result.output
        got = pl.read_parquet(out)
        assert got["n"].to_list() == expected["n"].to_list()
        assert got["ofi"].to_list() == pytest.approx(expected["ofi"].to_list())


SCRIPT = Path(sys.executable).parent / "polars-fair"


@pytest.mark.skipif(not SCRIPT.exists(), reason="console script not installed beside python")
def test_console_script_entry_point() -> None:
    proc = subprocess.run([str(SCRIPT), "demo", "--n", "2000"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "polars-fair report: 2,000 rows" in proc.stdout


def test_by_accepts_a_sql_expression(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    df = make_hiring(1500, seed=8)
    df.write_parquet(path)
    out = tmp_path / "r.csv"
    result = runner.invoke(app, ["report", str(path), "--by", "race = 'Black'", "--by", "sex",
                                 "--format", "csv", "--output", str(out)])
    assert result.exit_code == 0, result.output
    got = pl.read_csv(out)
    assert got.columns[:2] == ["race = 'Black'", "sex"]
    expected = df.fair.report([(pl.col("race") == "Black").alias("is_black"), "sex"])
    assert got["n"].to_list() == expected["n"].to_list()


# --------------------------------------------------------------------------- declared once


@pytest.mark.parametrize("name", list(METRICS))
def test_every_registry_metric_is_a_table_column_defined_from_the_registry(name: str) -> None:
    entry = METRICS[name]
    result = runner.invoke(app, ["demo", "--n", "600", "--by", "sex", "--rate", name])
    assert result.exit_code == 0, result.output
    head, _, table = result.output.partition("┌")
    assert f"{name}: {entry.title} = {entry.formula} ({entry.source})" in head
    header_row = table.splitlines()[1]  # the column names
    columns = [c.strip() for c in header_row.strip("│").split("┆")]
    # the table fits 120 characters (issue 20): the rows, the metric, the verdict's figures
    assert columns == ["sex", "n", name, "impact_ratio", "ofi", "finding"]
    assert max(len(line) for line in result.output.splitlines()) <= 120


def test_all_columns_define_every_registry_metric_and_unknown_rates_fail(tmp_path: Path) -> None:
    path = tmp_path / "d.parquet"
    make_hiring(600, seed=0).write_parquet(path)
    result = runner.invoke(app, ["report", str(path), "--by", "sex", "--all-columns"])
    assert result.exit_code == 0, result.output
    for name, entry in METRICS.items():
        assert f"{entry.title} = {entry.formula} ({entry.source})" in result.output, name
    bad = runner.invoke(app, ["demo", "--n", "600", "--rate", "tpr", "--rate", "recall"])
    assert bad.exit_code == 2
    assert "unknown metric 'recall'" in bad.output


# ------------------------------------------------- issue 13: options and help of the commands


def _names() -> list[str]:
    import typer

    return sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", _names())
def test_help_is_readable_at_100_columns(name: str) -> None:
    result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert "…" not in result.output, [ln for ln in result.output.splitlines() if "…" in ln]


def test_report_page_options_need_html(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    make_hiring(500, seed=0).write_csv(path)
    for flag, value in (("--n-permutations", "99"), ("--seed", "3"), ("--divergence", None)):
        args = [flag] if value is None else [flag, value]
        result = runner.invoke(app, ["report", str(path), "--by", "sex", *args])
        assert (result.exit_code, result.stderr) == (
            2, f"polars-fair: error: {flag} applies to the HTML audit: pass --html FILE too\n")


def test_report_html_takes_the_abroca_test_permutations_and_seed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import functools

    import polars_fair.audit.html

    seen: dict[str, object] = {}

    @functools.wraps(polars_fair.audit.html.audit_html)  # its signature: the options it takes
    def fake(*args: object, **kwargs: object) -> str:
        seen.update(kwargs)
        return "<!DOCTYPE html>"

    monkeypatch.setattr(polars_fair.audit.html, "audit_html", fake)
    path = tmp_path / "h.csv"
    make_hiring(500, seed=0).write_csv(path)
    result = runner.invoke(app, ["report", str(path), "--by", "sex", "--y-score", "y_score",
                                 "--threshold", "0.5", "--html", str(tmp_path / "a.html"),
                                 "--n-permutations", "99", "--seed", "3", "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    assert (seen["n_permutations"], seen["seed"]) == (99, 3)
    assert "divergence" not in seen  # not asked for: the page's default (no section)


def test_report_html_divergence_adds_the_section_of_the_python_api(tmp_path: Path) -> None:
    from polars_fair.audit.html import page_data

    path = tmp_path / "h.csv"
    demo = make_hiring(2_000, seed=0)
    demo.write_csv(path)
    page = tmp_path / "a.html"
    result = runner.invoke(app, ["report", str(path), "--by", "race", "--by", "sex",
                                 "--html", str(page), "--divergence", "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    data = page_data(page.read_text())
    # the page's default min_support (30) is divergence's minimum denominator, as in audit_html
    expected = demo.fair.divergence(["race", "sex"], min_denominator=30)
    assert len(data["divergence"]) == expected.height > 0
    got = {tuple(r["attributes"]) + (r["race"], r["sex"]): r["divergence"]
           for r in data["divergence"]}
    want = {tuple(r["attributes"]) + (r["race"], r["sex"]): r["divergence"]
            for r in expected.iter_rows(named=True)}
    assert got == want


def test_score_advice_names_options_each_command_has(tmp_path: Path) -> None:
    path = tmp_path / "h.csv"
    make_hiring(500, seed=0).write_csv(path)
    result = runner.invoke(app, ["bias-audit", str(path), "--category", "race", "--y-pred",
                                 "y_score"])
    assert result.exit_code == 2
    assert "with --html" not in result.stderr
    assert "alone (bias-audit: the scoring rate)" in result.stderr
    alone = runner.invoke(app, ["bias-audit", str(path), "--category", "race", "--y-score",
                                "y_score", "--format", "json"])
    assert alone.exit_code == 0, alone.stderr  # the advice works as written


# ------------------------------------------------- issue 20: a first table a person can read
def _small_group_selects_most(tmp_path: Path) -> Path:
    # a: 100 rows, 50 selected (0.5); b: 100 rows, 30 selected (0.3); c: 3 rows, all selected
    g = ["a"] * 100 + ["b"] * 100 + ["c"] * 3
    y_pred = [1] * 50 + [0] * 50 + [1] * 30 + [0] * 70 + [1] * 3
    y_true = [i % 2 for i in range(203)]
    path = tmp_path / "small.csv"
    pl.DataFrame({"g": g, "y_true": y_true, "y_pred": y_pred}).write_csv(path)
    return path


def test_a_low_support_group_is_never_the_benchmark_and_report_and_check_agree(
        tmp_path: Path) -> None:
    path = _small_group_selects_most(tmp_path)
    out = runner.invoke(app, ["report", str(path), "--by", "g", "--format", "csv"])
    assert out.exit_code == 0, out.output
    rep = {r["g"]: r for r in pl.read_csv(out.stdout.encode()).to_dicts()}
    # the benchmark of the impact ratio is a (0.5), not the 3-row c (1.0): b = 0.3 / 0.5
    assert rep["a"]["impact_ratio"] == 1.0 and rep["b"]["impact_ratio"] == pytest.approx(0.6)
    assert rep["a"]["is_reference"] and not rep["c"]["is_reference"]
    assert rep["b"]["reference_low_support"] is False
    gate = runner.invoke(app, ["check", str(path), "--by", "g", "--format", "json"])
    assert gate.exit_code == 1, gate.output
    violations = json.loads(gate.stdout)["violations"]
    assert [(v["group"], v["metric"]) for v in violations] == [("g=b", "impact_ratio")]
    assert violations[0]["value"] == pytest.approx(rep["b"]["impact_ratio"])  # one default


def test_the_table_fits_120_characters_and_names_the_reference_and_findings(
        tmp_path: Path) -> None:
    path = _small_group_selects_most(tmp_path)
    out = runner.invoke(app, ["report", str(path), "--by", "g"])
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 120
    assert "reference group: g=a (100 rows; the largest group with at least 30 rows)" in lines
    assert ("impact ratio against: g=a, the highest selection rate (0.5000) of a group with at "
            "least 30 rows") in lines
    # b: IR 0.6 < 0.8 and DI 0.6; OFI = (FP-FN)/n: b (15-35)/100 - a (25-25)/100 = -0.2
    assert "findings: 1 systemic, 1 none, 1 insufficient support" in lines
    text = " ".join(line.strip() for line in lines)
    assert "systemic (1): g=b: selection rates differ beyond the four-fifths rule" in text
    assert "insufficient support (1): g=c: too few rows to judge" in text
    wide = runner.invoke(app, ["report", str(path), "--by", "g", "--all-columns"])
    assert "disparate_impact" in wide.stdout and "ofi_flag" in wide.stdout


def test_demo_fits_120_characters_and_names_the_reference() -> None:
    out = runner.invoke(app, ["demo", "--n", "3000"])
    assert out.exit_code == 0, out.output
    assert max(len(line) for line in out.stdout.splitlines()) <= 120
    assert "reference group: race=White, sex=Male (" in out.stdout
    assert "findings: " in out.stdout
