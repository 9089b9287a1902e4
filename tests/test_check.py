"""``polars-fair check``: the CI gate's verdicts and exit codes (0 pass, 1 violations, 2 input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair.cli import app
from polars_fair.datasets import make_hiring

from .conftest import COMPAS_CSV, require
from .test_cli import PROPUBLICA_WHERE

runner = CliRunner()

# ProPublica's orientation: positive = predicted recidivist (score_text != "Low")
COMPAS_ARGS = ["--y-true", "two_year_recid", "--y-pred", "score_text <> 'Low'",
               "--where", PROPUBLICA_WHERE]
# README, COMPAS by race (ProPublica orientation): selection rates and group sizes
SELECTION = {"African-American": 0.5761, "Asian": 0.2258, "Caucasian": 0.3310,
             "Hispanic": 0.2770, "Native American": 0.7273, "Other": 0.2041}


def check(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.data
def test_compas_race_fails_the_impact_ratio() -> None:
    path = str(require(COMPAS_CSV))
    code, out, _ = check(path, "--by", "race", *COMPAS_ARGS, "--format", "json")
    assert code == 1, out
    result = json.loads(out)
    assert result["passed"] is False and result["rows"] == 6172
    # Native American (11 rows) is neither checked nor allowed to set the highest rate:
    # the highest supported selection rate is African-American's
    assert result["skipped_low_support"] == ["race=Native American"]
    top = SELECTION["African-American"]
    expected = {f"race={g}": SELECTION[g] / top for g in ("Asian", "Caucasian", "Hispanic", "Other")}
    got = {v["group"]: v["value"] for v in result["violations"] if v["metric"] == "impact_ratio"}
    assert got == pytest.approx(expected, abs=2e-4)  # README rates are rounded to 4 places
    assert all(v["limit"] == 0.8 and v["rule"] == ">= 0.8" for v in result["violations"])
    assert result["violations"][0]["values"] == {"race": "Asian"}


@pytest.mark.data
def test_compas_text_lists_group_metric_value_and_limit() -> None:
    path = str(require(COMPAS_CSV))
    # favourable orientation (pos_label=0), Caucasian reference: the README's DI 0.6336 case
    code, out, _ = check(path, "--by", "race", *COMPAS_ARGS, "--pos-label", "0",
                         "--reference", "Caucasian")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("polars-fair check: FAIL: 5 group(s) by ['race'] with n >= 30")
    assert lines[1] == "1 violation(s):"
    # impact ratio 0.4239 / 0.7959 (Other has the highest supported rate) = 0.5326 (README)
    assert lines[2].split() == ["race=African-American", "impact_ratio", "0.5326", "limit",
                                ">=", "0.8"]
    assert "not checked (n < 30): race=Native American" in out


@pytest.mark.data
def test_compas_sex_passes_and_limits_are_options() -> None:
    path = str(require(COMPAS_CSV))
    code, out, _ = check(path, "--by", "sex", *COMPAS_ARGS)
    assert code == 0, out
    assert out.startswith("polars-fair check: PASS: 2 group(s) by ['sex']")
    # a stricter limit makes the same data fail; a looser one lets race pass
    code, _, _ = check(path, "--by", "sex", *COMPAS_ARGS, "--min-impact-ratio", "0.99")
    assert code == 1
    code, out, _ = check(path, "--by", "race", *COMPAS_ARGS, "--min-impact-ratio", "0.3")
    assert code == 0, out


@pytest.mark.data
def test_compas_max_abroca_with_a_score() -> None:
    path = str(require(COMPAS_CSV))
    code, out, _ = check(path, "--by", "race", *COMPAS_ARGS, "--reference", "Caucasian",
                         "--y-score", "decile_score", "--max-abroca", "0.05",
                         "--min-impact-ratio", "0", "--format", "json")
    assert code == 1
    got = {v["group"]: v["value"] for v in json.loads(out)["violations"]}
    # README ABROCA vs Caucasian: Asian 0.1551, Hispanic 0.0556 (> 0.05); the others below
    assert got == pytest.approx({"race=Asian": 0.1551, "race=Hispanic": 0.0556}, abs=1e-4)
    # --min-support 40 leaves Asian (31 rows) out
    code, out, _ = check(path, "--by", "race", *COMPAS_ARGS, "--reference", "Caucasian",
                         "--y-score", "decile_score", "--max-abroca", "0.05",
                         "--min-impact-ratio", "0", "--min-support", "40", "--format", "json")
    result = json.loads(out)
    assert [v["group"] for v in result["violations"]] == ["race=Hispanic"]
    assert "race=Asian" in result["skipped_low_support"]


def test_demo_gate_flags_the_biased_intersection(tmp_path: Path) -> None:
    data = tmp_path / "hiring.parquet"
    make_hiring(20_000, seed=0).write_parquet(data)
    code, out, _ = check(str(data), "--by", "race", "--by", "sex", "--format", "json")
    assert code == 1
    violations = json.loads(out)["violations"]
    # the generator biases the model against Black women only: impact ratio and OFI both fail
    assert {(v["group"], v["metric"]) for v in violations} == {
        ("race=Black, sex=Female", "impact_ratio"), ("race=Black, sex=Female", "ofi"),
    }
    # sex alone hides it: the women's impact ratio is 0.81, above the four-fifths limit
    code, out, _ = check(str(data), "--by", "sex")
    assert code == 0, out
    assert out.startswith("polars-fair check: PASS: 2 group(s) by ['sex']")


def test_bad_input_exits_2(tmp_path: Path) -> None:
    data = tmp_path / "hiring.parquet"
    make_hiring(500, seed=0).write_parquet(data)
    code, _, err = check(str(data), "--by", "colour")
    assert code == 2 and "colour" in err
    code, _, err = check(str(data), "--by", "race", "--max-abroca", "0.1")
    assert code == 2 and "--max-abroca needs --y-score" in err
    code, _, err = check(str(data), "--by", "race", "--format", "yaml")
    assert code == 2 and "--format must be text or json" in err
    code, _, err = check(str(tmp_path / "missing.csv"), "--by", "race")
    assert code == 2 and "file not found" in err


@pytest.fixture()
def hiring_csv(tmp_path: Path) -> Path:
    path = tmp_path / "h.csv"
    make_hiring(3000, seed=0).write_csv(path)
    return path


@pytest.mark.parametrize("limit", [
    ["--min-impact-ratio", "-1"], ["--min-impact-ratio", "nan"], ["--min-impact-ratio", "2"],
    ["--max-abs-ofi", "-0.1"], ["--max-abs-ofi", "3"],
])
def test_impossible_limits_exit_2(hiring_csv: Path, limit: list[str]) -> None:
    code, _, err = check(str(hiring_csv), "--by", "race", *limit)
    assert code == 2
    assert "must lie in" in err


def test_nothing_checked_or_undefined_never_passes(hiring_csv: Path) -> None:
    code, _, err = check(str(hiring_csv), "--by", "race", "--min-support", "100000")
    assert code == 2 and "nothing was checked" in err
    # every prediction negative: the impact ratio is 0/0 for every group, which is no pass
    code, out, _ = check(str(hiring_csv), "--by", "race", "--y-pred", "y_true * 0",
                         "--format", "json")
    result = json.loads(out)
    assert code == 1 and result["passed"] is False
    assert {v["metric"] for v in result["violations"]} == {"impact_ratio"}
    assert all(v["value"] is None for v in result["violations"])


def test_abroca_needs_a_group_reference(hiring_csv: Path) -> None:
    code, _, err = check(str(hiring_csv), "--by", "race", "--y-score", "y_score",
                         "--max-abroca", "0.05", "--reference", "overall")
    assert code == 2 and "is not a group" in err


def test_cli_inputs_give_library_errors(hiring_csv: Path, tmp_path: Path) -> None:
    code, _, err = check(str(hiring_csv), "--by", "race", "--y-true", "nosuch")
    assert code == 2
    assert "column 'nosuch' (column) not found; the frame has columns: ['applicant_id'" in err
    assert "Resolved plan" not in err
    code, _, err = check(str(hiring_csv), "--by", "race", "--where", "nosuch > 1")
    assert code == 2 and "column 'nosuch' (column) not found" in err
    result = runner.invoke(app, ["report", str(hiring_csv), "--by", "race",
                                 "--output", str(tmp_path / "missing" / "x.csv")])
    assert result.exit_code == 2 and "polars-fair: error:" in result.output


def test_report_reference_attr_value_and_output_suffix(hiring_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.parquet"
    result = runner.invoke(app, ["report", str(hiring_csv), "--by", "race",
                                 "--reference", "race=Black", "--output", str(out)])
    assert result.exit_code == 0, result.output
    import polars as pl

    got = pl.read_parquet(out)  # the format follows the suffix
    assert got.filter(pl.col("is_reference"))["race"].to_list() == ["Black"]
