"""One spelling of the baseline on every command, and --sample-weight on check and compare
(issue 25 review items 3 and 4)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()


def _csv(tmp_path: Path) -> Path:
    # a: 100 rows, 50 selected by both models; b: 100 rows, the baseline selects 40, the
    # candidate 10 of those (30 discordant rows, weight 0: the weights hide the drop)
    rows = ([("a", 1, 1, 1, 1.0)] * 50 + [("a", 0, 0, 0, 1.0)] * 50
            + [("b", 1, 1, 1, 1.0)] * 10 + [("b", 1, 0, 1, 0.0)] * 30
            + [("b", 0, 0, 0, 1.0)] * 60)
    path = tmp_path / "two.csv"
    pl.DataFrame(rows, schema=["g", "y_true", "new", "old", "w"], orient="row").write_csv(path)
    return path


def test_compare_takes_baseline_pred_and_keeps_baseline(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    args = ["compare", str(path), "--by", "g", "--y-pred", "new", "--format", "json"]
    new = runner.invoke(app, [*args, "--baseline-pred", "old"])
    old = runner.invoke(app, [*args, "--baseline", "old"])
    assert new.exit_code == 0 and old.exit_code == 0, (new.output, old.output)
    assert json.loads(new.stdout) == json.loads(old.stdout)
    # b: the candidate selects 10 of 100, the baseline 40
    rows = {r["g"]: r for r in json.loads(new.stdout)}
    assert (rows["b"]["selection_rate"], rows["b"]["selection_rate_baseline"]) == (0.1, 0.4)
    # an error about the baseline names the flag the help shows
    bad = runner.invoke(app, [*args, "--baseline-pred", "nope"])
    assert bad.exit_code != 0 and "--baseline-pred" in bad.output


def test_check_takes_the_same_flags(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    args = ["check", str(path), "--by", "g", "--y-pred", "new", "--min-impact-ratio", "0",
            "--max-abs-ofi", "2", "--format", "json"]
    new = runner.invoke(app, [*args, "--baseline-pred", "old"])
    old = runner.invoke(app, [*args, "--baseline", "old"])
    assert new.exit_code == old.exit_code == 1
    assert json.loads(new.stdout) == json.loads(old.stdout)


def test_compare_weighs_rows_with_sample_weight(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    result = runner.invoke(app, ["compare", str(path), "--by", "g", "--y-pred", "new",
                                 "--baseline-pred", "old", "--sample-weight", "w",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    b = {r["g"]: r for r in json.loads(result.stdout)}["b"]
    # weighted, b's 30 discordant rows weigh 0: both models select 10 of 70 (weight)
    assert b["selection_rate"] == b["selection_rate_baseline"] == 10 / 70
    assert b["selection_rate_change"] == 0.0
    # a SQL expression is a weight too
    sql = runner.invoke(app, ["compare", str(path), "--by", "g", "--y-pred", "new",
                              "--baseline-pred", "old", "--sample-weight", "w * 2",
                              "--format", "json"])
    assert json.loads(sql.stdout) == json.loads(result.stdout)


def test_check_weighs_both_gates_with_sample_weight(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    args = ["check", str(path), "--by", "g", "--y-pred", "new", "--baseline-pred", "old",
            "--min-impact-ratio", "0", "--max-abs-ofi", "2", "--format", "json"]
    # unweighted: b's impact ratio drops from 0.4/0.5 = 0.8 to 0.1/0.5 = 0.2, and its OFI
    # (selection - base rate, a's being 0) from 0.4 - 0.4 = 0 to 0.1 - 0.4 = -0.3: real
    plain = runner.invoke(app, args)
    assert plain.exit_code == 1
    assert [(v["group"], v["metric"]) for v in json.loads(plain.stdout)["change"][
        "violations"]] == [("g=b", "impact_ratio"), ("g=b", "ofi")]
    # weighted: both models select 10/70 of b's weight, impact ratio (10/70)/0.5 under both:
    # no change, and b keeps its 70 rows of positive weight (>= 30: checked)
    weighted = runner.invoke(app, [*args, "--sample-weight", "w"])
    assert weighted.exit_code == 0, weighted.output
    out = json.loads(weighted.stdout)
    assert out["passed"] is True and out["change"]["violations"] == []
    assert out["checked_groups"] == ["g=a", "g=b"]


# ------------------------------------------- issue 25 re-review, item 3: both spellings given
BOTH = ["--baseline-pred", "old", "--baseline", "new"]


def _both_lines(path: Path) -> dict[str, list[str]]:
    """Every command that takes the baseline, with both of its spellings (different values)."""
    return {
        "compare": ["compare", str(path), "--by", "g", "--y-pred", "new", *BOTH],
        "check": ["check", str(path), "--by", "g", "--y-pred", "new", *BOTH],
        "report --html": ["report", str(path), "--by", "g", "--y-pred", "new", "--html",
                          str(path.with_suffix(".html")), *BOTH],
    }


def test_both_spellings_of_the_baseline_are_a_usage_error_naming_both(tmp_path: Path) -> None:
    """It was one option with two flags: the last one given silently won."""
    path = _csv(tmp_path)
    for name, line in _both_lines(path).items():
        result = runner.invoke(app, line)
        assert result.exit_code == 2, (name, result.output)
        assert result.stderr.strip() == f"polars-fair: error: {E.CLI_BASELINE_TWICE}", name
        assert "--baseline-pred and --baseline" in result.stderr
        assert not path.with_suffix(".html").exists()  # nothing written
        # the other order too: no spelling wins by coming last
        swapped = runner.invoke(app, [*line[:-4], *line[-2:], *line[-4:-2]])
        assert (swapped.exit_code, swapped.stderr) == (2, result.stderr), name
    compare = runner.invoke(app, [*_both_lines(path)["compare"], "--format", "json"])
    assert json.loads(compare.stdout) == {"status": "error", "error": "UsageError",
                                          "message": E.CLI_BASELINE_TWICE, "exit_code": 2}


def test_compare_still_needs_one_spelling(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    result = runner.invoke(app, ["compare", str(path), "--by", "g", "--y-pred", "new"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "polars-fair: error: missing option --baseline-pred"


def test_one_spelling_on_report_html_works_as_before(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    pages = []
    for flag in ("--baseline-pred", "--baseline"):
        page = tmp_path / f"page{flag}.html"
        result = runner.invoke(app, ["report", str(path), "--by", "g", "--y-pred", "new",
                                     "--html", str(page), flag, "old"])
        assert result.exit_code == 0, result.output
        pages.append(page.read_text(encoding="utf-8"))
    for page in pages:  # the comparison section, from either spelling
        assert "Against the baseline model" in page
