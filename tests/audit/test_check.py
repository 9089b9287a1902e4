"""``polars-fair check``: the CI gate's verdicts and exit codes (0 pass, 1 violations, 2 input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.datasets import make_hiring
from tests.cli.test_cli import PROPUBLICA_WHERE
from tests.conftest import COMPAS_CSV, require

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
    expected = {f"race={g}": SELECTION[g] / top
                for g in ("Asian", "Caucasian", "Hispanic", "Other")}
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
    result = json.loads(out)
    got = {v["group"]: v["value"] for v in result["violations"]}
    # README ABROCA vs Caucasian: Asian 0.1551, Hispanic 0.0556 (> 0.05); the others below.
    # Asian (31 rows, fewer than 30 re-arrested) has too few positives for its ABROCA to be
    # judged, as on the audit page (issue 20 fix, item 3: the gate judged it before)
    assert got == pytest.approx({"race=Hispanic": 0.0556}, abs=1e-4)
    assert result["skipped_abroca"] == ["race=Asian"]
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
    # refused by the parser, at usage time, with the choices as typed
    assert code == 2 and "--format: 'yaml' is not one of 'text', 'json'" in err
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
    # issue 11 (kind 11): messages name the flag the text came from
    assert "column 'nosuch' (--y-true) not found; the frame has columns: ['applicant_id'" in err
    assert "Resolved plan" not in err
    code, _, err = check(str(hiring_csv), "--by", "race", "--where", "nosuch > 1")
    assert code == 2 and "column 'nosuch' (--where) not found" in err
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


# ----------------------------------------------------------------------------- the gate frame
def _counts_and_scores() -> tuple[object, object]:
    """Group a: 60 rows, all positive labels (no ROC curve); b: 40 rows, c: 35 rows.

    Hand computation (predictions y_pred = score >= 0.5):
    a: tp 60 (every score 0.9): selection rate 1, B = (fp - fn)/n = 0.
    b: 20 positives scored 0.8, 20 negatives: 10 scored 0.6 (fp), 10 scored 0.2 (tn):
       selection rate 30/40 = 0.75, B = 10/40 = 0.25.
    c: 15 positives: 10 scored 0.7 (tp), 5 scored 0.3 (fn); 20 negatives scored 0.1 (tn):
       selection rate 10/35, B = -5/35.
    """
    import polars as pl

    import polars_fair

    rows = pl.DataFrame({
        "g": ["a"] * 60 + ["b"] * 40 + ["c"] * 35,
        "y_true": [1] * 60 + [1] * 20 + [0] * 20 + [1] * 15 + [0] * 20,
        "y_score": [0.9] * 60 + [0.8] * 20 + [0.6] * 10 + [0.2] * 10
                   + [0.7] * 10 + [0.3] * 5 + [0.1] * 20,
    }).with_columns(y_pred=(pl.col("y_score") >= 0.5).cast(pl.Int64))
    return polars_fair.counts(rows, "g"), polars_fair.scores(rows, "g")


def test_gate_uses_one_reference_for_report_and_abroca() -> None:
    import polars as pl

    from polars_fair.audit.gate import gate, gate_reference, verdict

    counts, scores = _counts_and_scores()
    # "largest" alone is a (60 rows); a has one class, so for both analyses it is b (40 rows)
    assert gate_reference(counts) == {"g": "a"}
    assert gate_reference(counts, scores) == {"g": "b"}
    # min_support 10: c's 15 positives and 20 negatives make its ABROCA judged
    table = gate(counts, scores, max_abroca=0.05, max_abs_ofi=2, min_impact_ratio=0,
                 min_support=10)
    refs = table.filter(pl.col("is_reference")).select("metric", "g").rows()
    assert refs == [("impact_ratio", "b"), ("ofi", "b"), ("abroca", "b")]
    ofi = dict(table.filter(pl.col("metric") == "ofi").select("g", "value").rows())
    assert ofi == pytest.approx({"a": 0 - 0.25, "b": 0.0, "c": -5 / 35 - 0.25})
    ab = table.filter(pl.col("metric") == "abroca").row(2, named=True)
    # b: every positive (0.8) above every negative (0.6, 0.2): a perfect curve; c likewise
    # (positives 0.7, 0.3 above negatives 0.1): both curves are (0,0)-(0,1)-(1,1), ABROCA 0
    assert (ab["g"], ab["value"], ab["passed"]) == ("c", 0.0, True)
    a_row = table.filter((pl.col("metric") == "abroca") & (pl.col("g") == "a")).row(0, named=True)
    # a has no negatives: its ABROCA is not judged (the audit page's rule: min_support
    # positives and negatives), where the gate used to fail it as undefined (issue 20 fix,
    # item 3)
    assert a_row["value"] is None and a_row["passed"] is None and a_row["checked"] is False
    assert a_row["reason"] == "positives or negatives < 10" and a_row["rule"] == "<= 0.05"
    b_row = table.filter((pl.col("metric") == "abroca") & (pl.col("g") == "b")).row(0, named=True)
    assert (b_row["checked"], b_row["passed"], b_row["reason"]) == (False, None, "reference group")
    assert verdict(table) is True  # every judged row passes


def test_gate_rows_are_hand_computed_and_low_support_is_listed() -> None:
    import polars as pl

    from polars_fair.audit.gate import gate, verdict

    counts, _ = _counts_and_scores()
    table = gate(counts, min_support=36)  # c (35 rows) is below support
    assert table.columns == ["metric", "g", "group", "n", "is_reference", "value", "limit",
                             "rule", "checked", "passed", "reason"]
    assert table.select("metric", "g").rows() == [
        ("impact_ratio", "a"), ("ofi", "a"), ("impact_ratio", "b"), ("ofi", "b"),
        ("impact_ratio", "c"), ("ofi", "c")]
    ir = dict(table.filter(pl.col("metric") == "impact_ratio").select("g", "value").rows())
    # the highest supported selection rate is a's, 1: impact ratio = own selection rate
    assert ir == pytest.approx({"a": 1.0, "b": 0.75, "c": 10 / 35})
    b_ir = table.row(2, named=True)
    assert (b_ir["passed"], b_ir["limit"], b_ir["rule"], b_ir["group"]) == (False, 0.8, ">= 0.8",
                                                                              "g=b")
    c_rows = table.filter(pl.col("g") == "c")
    assert c_rows["checked"].to_list() == [False, False]
    assert c_rows["passed"].to_list() == [None, None] and set(c_rows["reason"]) == {"n < 36"}
    assert verdict(table) is False
    assert verdict(gate(counts, min_support=36, min_impact_ratio=0.7, max_abs_ofi=0.3)) is True


def test_gate_argument_errors() -> None:
    from polars_fair import errors as E
    from polars_fair.audit.gate import gate

    counts, scores = _counts_and_scores()
    with pytest.raises(E.InvalidArgumentError, match="max_abroca=0.1 needs a score table"):
        gate(counts, max_abroca=0.1)
    with pytest.raises(E.InvalidArgumentError, match="is not a group"):
        gate(counts, scores, reference="overall", max_abroca=0.1)
    with pytest.raises(E.InvalidArgumentError, match=r"max_abs_ofi must lie in \[0, 2\]"):
        gate(counts, max_abs_ofi=float("nan"))


def test_cli_abroca_with_max_selection_rate_reference(hiring_csv: Path) -> None:
    # the reference is resolved once (the supported group with the highest selection rate and
    # both classes) and both the OFI and the ABROCA rows compare with it
    code, out, err = check(str(hiring_csv), "--by", "race", "--y-score", "y_score",
                           "--max-abroca", "1", "--reference", "max_selection_rate",
                           "--format", "json")
    assert code in (0, 1), err
    result = json.loads(out)
    import polars as pl

    rates = pl.read_csv(hiring_csv).group_by("race").agg(
        pl.len().alias("n"), pl.col("y_pred").mean().alias("sr")).filter(pl.col("n") >= 30)
    top = rates.sort("sr", descending=True)["race"][0]
    assert result["reference"] == f"race={top}"
    assert not [v for v in result["violations"] if v["metric"] == "abroca"]


def test_gate_labels_a_missing_group_missing() -> None:
    import polars as pl

    import polars_fair
    from polars_fair.audit.gate import gate

    # two groups of 2 rows: "a" and the rows whose g is null; each has one impact_ratio and one
    # ofi row, labelled "g=a" and "g=(missing)"
    df = pl.DataFrame({"g": ["a", "a", None, None], "y_true": [1, 0, 1, 0],
                       "y_pred": [1, 0, 1, 1]})
    got = gate(polars_fair.counts(df, "g"), min_support=1)["group"].to_list()
    assert got == ["g=a", "g=a", "g=(missing)", "g=(missing)"]


def test_gate_reference_max_auc_without_any_auc_falls_back_to_the_largest_group() -> None:
    import polars as pl

    from polars_fair import from_counts, from_scores
    from polars_fair.audit.gate import gate_reference

    # every label is positive (fp = tn = 0, negatives = 0): no group has an AUC, so max_auc
    # has nothing to maximise; the largest group with rows is a (6 rows against 4)
    c = from_counts(pl.DataFrame({"g": ["a", "b"], "n": [6, 4], "tp": [4, 1], "fp": [0, 0],
                                  "fn": [2, 3], "tn": [0, 0]}))
    s = from_scores(pl.DataFrame({"g": ["a", "b"], "score": [0.9, 0.2],
                                  "positives": [6, 4], "negatives": [0, 0]}))
    assert gate_reference(c, s, "max_auc") == {"g": "a"}


def test_check_text_ends_with_the_findings_summary_of_report(hiring_csv: Path) -> None:
    """Issue 20 item 4: under its verdict, `check` prints the plain-language summary that
    `report` prints under its table (the same lines, from the same function), and the JSON
    output is unchanged."""
    code, out, _ = check(str(hiring_csv), "--by", "race")
    report = runner.invoke(app, ["report", str(hiring_csv), "--by", "race"])
    assert report.exit_code == 0, report.stdout
    footer = report.stdout[report.stdout.index("reference group: "):].rstrip("\n")
    assert footer.startswith("reference group: race=White")
    assert "findings: " in footer
    assert out.rstrip("\n").endswith("\n" + footer)
    assert out.startswith("polars-fair check: ")
    code_json, out_json, _ = check(str(hiring_csv), "--by", "race", "--format", "json")
    assert code_json == code and "reference group:" not in out_json
    assert json.loads(out_json)["passed"] is (code == 0)
