"""Issue 22's review: class values on the command line, the user's column names, advice in the
syntax of the way in, and arguments that were silently ignored.

Every expected value is counted by hand in the test from the small frames below.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers df.fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

#: group a predicted 0, 1, 2; group b predicted 0, 0, 2 (integer classes).
INTS = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b"], "p": [0, 1, 2, 0, 0, 2]})
#: a text prediction of three classes, one row each per group.
RISK = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b"],
                     "risk": ["Low", "Medium", "High", "Low", "Low", "High"]})


def _csv(tmp_path: Path, df: pl.DataFrame, name: str = "rows.csv") -> Path:
    path = tmp_path / name
    df.write_csv(path)
    return path


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_cli_classes_are_read_in_an_integer_columns_type(tmp_path: Path) -> None:
    path = _csv(tmp_path, INTS)
    code, out = _cli("multiclass-report", path, "--by", "g", "--y-pred", "p",
                     "--classes", "2,1,0", "--min-support", "1", "--format", "csv")
    assert code == 0, out
    rows = _rows(out)
    # by hand: a holds one row of each class; b two 0s, no 1, one 2; the classes in the
    # given order 2, 1, 0 within each group
    assert [(r["g"], r["class"], r["n_class"]) for r in rows] == [
        ("a", "2", "1"), ("a", "1", "1"), ("a", "0", "1"),
        ("b", "2", "1"), ("b", "1", "0"), ("b", "0", "2")]
    code, out = _cli("multiclass-test", path, "--by", "g", "--y-pred", "p",
                     "--classes", "0,1,2", "--seed", "0", "--format", "csv")
    assert code == 0, out
    (row,) = _rows(out)
    # observed a [1, 1, 1], b [2, 0, 1]; expected 3 * [3, 1, 2] / 6 = [1.5, 0.5, 1] per row:
    # chi2 = 2 * (0.25 / 1.5 + 0.25 / 0.5 + 0) = 4 / 3 on (2 - 1) * (3 - 1) = 2 dof
    assert float(row["chi2"]) == pytest.approx(4 / 3)
    assert row["dof"] == "2"
    code, out = _cli("multiclass-report", path, "--by", "g", "--y-pred", "p",
                     "--classes", "0,1,x")
    assert code == 2
    assert "--classes 'x' is not an integer" in out


def test_cli_bias_audit_takes_classes_with_a_fixed_set_and_order(tmp_path: Path) -> None:
    path = _csv(tmp_path, INTS)
    code, out = _cli("bias-audit", path, "--category", "g", "--y-pred", "p",
                     "--classes", "3,0,1,2", "--min-share", "0", "--format", "json")
    assert code == 0, out
    doc = json.loads(out)
    rows = [(r["class"], r["g"], r["selected"], r["selection_rate"], r["impact_ratio"])
            for r in doc["results"]]
    # class 3 no one received: every rate 0, the impact ratio undefined (0 / 0);
    # class 0: a 1/3, b 2/3 -> impact ratios 0.5 and 1; the classes in the given order
    assert rows[:4] == [(3, "a", 0, 0.0, None), (3, "b", 0, 0.0, None),
                        (0, "a", 1, 1 / 3, 0.5), (0, "b", 2, 2 / 3, 1.0)]
    assert [r[0] for r in rows[4:]] == [1, 1, 2, 2]
    assert doc["provenance"]["parameters"]["--classes"] == [3, 0, 1, 2]  # a flag (item 5)
    code, out = _cli("bias-audit", path, "--category", "g", "--y-pred", "p",
                     "--classes", "0,1,2", "--pos-label", "1")
    assert code == 2
    assert " ".join(out.split()) == (
        "polars-fair: error: --classes is for a --y-pred column of classes (one selection "
        "table per class) and cannot be combined with --pos-label 1; pass --y-pred with "
        "--classes, or leave --classes out")


def test_errors_name_the_users_column_in_python_and_on_the_cli(tmp_path: Path) -> None:
    with pytest.raises(E.InvalidLabelError) as err:
        RISK.fair.multiclass_report("g", y_pred="risk", classes=["Low", "Medium"]).collect()
    assert str(err.value) == E.UNKNOWN_CLASSES.format(
        column="risk", role="y_pred", count=2, classes="['Low', 'Medium']", values="['High']",
        wanted="['Low', 'Medium', 'High']")
    with pytest.raises(E.InvalidArgumentError) as order:
        RISK.rename({"risk": "p"}).fair.multiclass_report("g", y_pred="p", ordered=True)
    assert str(order.value) == E.ORDER_NEEDS_CLASSES.format(
        column="p", dtype=pl.String, values="['High', 'Low', 'Medium']",
        example="['Low', 'Medium', 'High']", guess="")
    path = _csv(tmp_path, RISK)
    code, out = _cli("multiclass-report", path, "--by", "g", "--y-pred", "risk",
                     "--classes", "Low,Medium")
    text = " ".join(out.split())
    assert code == 2
    assert ("column 'risk' (--y-pred) holds 2 value(s) not in --classes Low,Medium: High; "
            "pass --classes Low,Medium,High (the classes given, then those found), or map them "
            "to a listed class first") in text
    code, out = _cli("multiclass-report", path, "--by", "g", "--y-pred", "risk", "--ordered")
    text = " ".join(out.split())
    assert code == 2
    assert text.startswith("polars-fair: error: --ordered reads the classes"), text
    assert "column 'risk' of dtype String" in text
    # the column's own values (issue 22 re-review item 4), not a fixed example; as --classes
    # takes them, in the order of their scale, never a Python list (issue 20)
    assert "for example --classes Low,Medium,High" in text
    assert "--ordered True" not in text and "[" not in text


def test_cli_advice_for_true_and_predicted_kinds_works_when_followed(tmp_path: Path) -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "t": [0, 1, 2, 0],
                       "p": ["0", "1", "2", "2"]})
    path = _csv(tmp_path, df, "kinds.csv")
    code, out = _cli("multiclass-report", path, "--by", "g", "--y-pred", "p", "--y-true", "t",
                     "--dtype", "p=String")
    text = " ".join(out.split())
    assert code == 2
    advice = 'for example --y-true "CAST(t AS VARCHAR)"'
    assert advice in text and "pl.col" not in text
    code, out = _cli("multiclass-report", path, "--by", "g", "--y-pred", "p", "--y-true",
                     "CAST(t AS VARCHAR)", "--dtype", "p=String", "--min-support", "1",
                     "--format", "csv")
    assert code == 0, out
    # class 2 in group b: true 2 once, predicted 2 twice (right once): tpr 1/1, ppv 1/2
    row = next(r for r in _rows(out) if r["g"] == "b" and r["class"] == "2")
    assert (float(row["tpr"]), float(row["ppv"])) == (1.0, 0.5)


def test_true_and_predicted_classes_with_nothing_in_common_are_refused() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "truth": ["x", "y", "x", "y"],
                       "risk": ["Low", "High", "High", "High"]})
    with pytest.raises(E.InvalidLabelError) as err:
        df.fair.multiclass_report("g", y_pred="risk", y_true="truth").collect()
    assert str(err.value) == E.NO_COMMON_CLASSES.format(
        y_true="truth", y_pred="risk", true_values="['x', 'y']",
        pred_values="['High', 'Low']")
    table = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 2], "y_pred": [3, 4], "n": [5, 5]})
    with pytest.raises(E.InvalidLabelError) as made:
        polars_fair.from_class_counts(table).multiclass_report(min_support=1).collect()
    assert str(made.value) == E.NO_COMMON_CLASSES.format(
        y_true="y_true", y_pred="y_pred", true_values="[1, 2]", pred_values="[3, 4]")


def test_the_multiclass_test_refuses_weights_and_counts_rows() -> None:
    df = RISK.with_columns(w=pl.Series([1.0, 2.0, 3.0, 1.0, 1.0, 5.0]))
    with pytest.raises(E.InvalidArgumentError) as err:
        df.lazy().fair.multiclass_test("g", y_pred="risk", sample_weight="w")
    assert str(err.value) == E.TEST_WEIGHTS.format(weight="w")
    # y_true is not read: the test is of predicted class against group, the same with it
    labelled = df.with_columns(truth=pl.Series(["Low", "Low", "High", "Low", "High", "High"]))
    plain = df.lazy().fair.multiclass_test("g", y_pred="risk", seed=0).collect()
    with_truth = labelled.lazy().fair.multiclass_test("g", y_pred="risk", y_true="truth",
                                                      seed=0).collect()
    assert plain.equals(with_truth)


@pytest.mark.slow
def test_the_weighted_page_says_the_test_counts_rows() -> None:
    from polars_fair.audit.html import multiclass_html, page_data

    df = RISK.with_columns(w=pl.Series([1.0, 2.0, 3.0, 1.0, 1.0, 5.0]))
    page = multiclass_html(df, "g", y_pred="risk", sample_weight="w", min_support=1, seed=0)
    assert "The test counts rows, not weights" in page
    unweighted = RISK.lazy().fair.multiclass_test("g", y_pred="risk", seed=0).collect()
    assert page_data(page)["multiclass_test"][0]["chi2"] == pytest.approx(
        unweighted["chi2"][0])


def test_bias_audit_refuses_classes_with_a_score_or_a_pos_label() -> None:
    df = RISK.with_columns(s=pl.Series([0.1, 0.2, 0.3, 0.4, 0.5, 0.6]))
    with pytest.raises(E.InvalidArgumentError) as score:
        df.fair.bias_audit(["g"], y_score="s", classes=["Low", "High"])
    assert str(score.value) == E.CLASSES_CONFLICT.format(
        other="y_score= (a score)",
        advice="pass y_pred= a class column with classes=, or leave classes= out")
    with pytest.raises(E.InvalidArgumentError) as pos:
        df.fair.bias_audit(["g"], y_pred="risk", classes=["Low", "Medium", "High"],
                           pos_label="High")
    assert str(pos.value) == E.CLASSES_CONFLICT.format(
        other="pos_label='High' (a binary selection)",
        advice="pass y_pred= a class column with classes=, or leave classes= out")


def test_bias_audit_of_three_values_advises_classes_with_the_values_found() -> None:
    with pytest.raises(E.InvalidLabelError) as at_once:
        RISK.fair.bias_audit(["g"], y_pred="risk")
    assert str(at_once.value) == E.MANY_CLASSES_LL144.format(
        column="risk", values="['High', 'Low', 'Medium']",
        classes="['High', 'Low', 'Medium']")
    with pytest.raises(E.InvalidLabelError) as at_collect:
        RISK.lazy().fair.bias_audit(["g"], y_pred="risk", pos_label="High").collect()
    assert str(at_collect.value) == E.TOO_MANY_CLASSES.format(
        column="risk", role="y_pred", pos_label="High", values="['Low', 'Medium']",
        classes="['High', 'Low', 'Medium']")
    # following the advice: one selection table per class; class Low: a 1/3, b 2/3
    out = RISK.lazy().fair.bias_audit(["g"], y_pred="risk", classes=["High", "Low", "Medium"],
                               min_share=0.0).collect()
    low = out.filter(pl.col("class") == "Low")
    assert low.select("g", "selected", "impact_ratio").rows() == [("a", 1, 0.5), ("b", 2, 1.0)]


def test_combinations_is_refused_by_name_where_one_set_is_reported() -> None:
    from polars_fair.audit.html import continuous_html, multiclass_html

    df = pl.DataFrame({"g": ["a", "b", "a", "b"], "s": ["x", "y", "y", "x"],
                       "risk": ["Low", "High", "Low", "Low"], "v": [1.0, 2.0, 3.0, 4.0]})
    calls = {
        "continuous_report": lambda: df.lazy().fair.continuous_report(
            ["g", "s"], y_pred="v", combinations="all"),
        "multiclass_html": lambda: multiclass_html(df, ["g", "s"], y_pred="risk",
                                                   combinations="all"),
        "continuous_html": lambda: continuous_html(df, ["g", "s"], y_pred="v",
                                                   combinations="all"),
    }
    # the call's own attributes (issue 22 re-review item 4: it named race and sex, which
    # this frame does not have)
    advice = "call it once per attribute set, for example by='g', then by='s'"
    for function, call in calls.items():
        with pytest.raises(E.InvalidArgumentError) as err:
            call()
        assert str(err.value) == E.ONE_SET_ONLY.format(function=function, value="all",
                                                       advice=advice)
    with pytest.raises(E.InvalidArgumentError):
        polars_fair.moments(df, "g", y_pred="v").continuous_report(combinations="all")
    # following the advice: one call per set, each its own report (means by hand)
    by_g = df.lazy().fair.continuous_report("g", y_pred="v", min_support=1).collect()
    by_s = df.lazy().fair.continuous_report("s", y_pred="v", min_support=1).collect()
    assert by_g["mean"].to_list() == [2.0, 3.0] and by_s["mean"].to_list() == [2.5, 2.5]


def test_advice_names_the_users_own_classes_and_attributes(tmp_path: Path) -> None:
    # issue 22 re-review item 4: the advice printed classes=['Low', 'Medium', 'High'] for
    # medals and by='race', then by='sex' for a frame without those columns
    medals = pl.DataFrame({"team": ["a", "b", "a", "b", "a", "b"],
                           "medal": ["bronze", "gold", "silver", "bronze", "gold", "gold"],
                           "h": ["x", "y", "y", "x", "x", "y"], "v": [1.0, 2, 3, 4, 5, 6]})
    with pytest.raises(E.InvalidArgumentError) as err:
        medals.fair.multiclass_report("team", y_pred="medal", ordered=True)
    assert str(err.value) == (
        "ordered=True reads the classes from the lowest to the highest, but column 'medal' of "
        "dtype String has no order of its own; pass classes= with its values in that order, "
        "for example classes=['bronze', 'silver', 'gold'] "  # a medal's order (issue 20)
        "(found, sorted as text: ['bronze', 'gold', 'silver'])")
    path = _csv(tmp_path, medals)
    code, out = _cli("multiclass-report", path, "--by", "team", "--y-pred", "medal", "--ordered")
    assert code == 2 and "pass --classes with its values" in out
    assert "--classes bronze,silver,gold" in " ".join(out.split())
    assert "Low" not in out
    # following it: the order given, lowest first; a: bronze, silver, gold; b: gold, bronze,
    # gold: at or above silver, a 2/3 and b 2/3
    code, out = _cli("multiclass-report", path, "--by", "team", "--y-pred", "medal",
                     "--ordered", "--classes", "bronze,silver,gold", "--format", "csv",
                     "--columns", "team,class,selection_rate")
    assert code == 0
    rows = out.strip().splitlines()
    assert "a,silver,0.6666666666666666" in rows and "b,silver,0.6666666666666666" in rows
    # one attribute set per call: continuous-report takes no --combinations (its help says
    # why, tests/cli/test_cli_continuous_flags.py); each set is its own call
    code, out = _cli("continuous-report", path, "--by", "team", "--by", "h", "--y-pred", "v",
                     "--combinations", "all")
    assert code == 2 and "no such option: --combinations" in out
    for by in ("team", "h"):
        code, out = _cli("continuous-report", path, "--by", by, "--y-pred", "v")
        assert code == 0, out


def test_kinds_advice_on_compas_leads_to_a_working_call(compas: pl.DataFrame,
                                                        tmp_path: Path) -> None:
    # issue 22 re-review item 7: an integer y_true (two_year_recid, 0/1) beside a text y_pred
    # (score_text) was advised a cast to text, which then failed with "none in common"
    with pytest.raises(E.InvalidLabelError) as err:
        compas.fair.multiclass_report("race", y_pred="score_text", y_true="two_year_recid")
    assert str(err.value) == E.CLASS_KINDS_APART.format(
        y_true="two_year_recid", true_dtype=pl.Int64, y_pred="score_text",
        pred_dtype=pl.String, true_values="[0, 1]", pred_values="['High', 'Low', 'Medium']")
    # the old advice, followed, is the dead end the message now says it is
    with pytest.raises(E.InvalidLabelError, match="none in common"):
        compas.fair.multiclass_report("race", y_pred="score_text",
                                      y_true=pl.col("two_year_recid").cast(pl.String)).collect()
    # following it: y_true left out; Caucasian High by hand from the rows
    out = compas.fair.multiclass_report("race", y_pred="score_text",
                                        classes=["Low", "Medium", "High"])
    white = compas.filter(pl.col("race") == "Caucasian")
    want = white.filter(pl.col("score_text") == "High").height / white.height
    got = out.filter((pl.col("race") == "Caucasian") & (pl.col("class") == "High"))
    assert got["selection_rate"].item() == pytest.approx(want, rel=1e-12)
    # a cast still advised where it makes classes in common (0/1/2 as numbers and as text)
    ints = pl.DataFrame({"g": ["a", "b"], "t": [0, 1], "p": ["1", "0"]})
    with pytest.raises(E.InvalidLabelError) as err:
        ints.fair.class_counts("g", y_pred="p", y_true="t")
    assert "cast(pl.String)" in str(err.value)
    # the command line says the same in flags, and its advice runs
    path = _csv(tmp_path, compas.select("race", "score_text", "two_year_recid"), "compas.csv")
    code, out = _cli("multiclass-report", path, "--by", "race", "--y-pred", "score_text",
                     "--y-true", "two_year_recid")
    text = " ".join(out.split())
    assert code == 2 and "leave --y-true out" in text and "CAST(" not in text
    code, out = _cli("multiclass-report", path, "--by", "race", "--y-pred", "score_text",
                     "--classes", "Low,Medium,High", "--format", "csv")
    assert code == 0, out
    row = next(r for r in _rows(out) if r["race"] == "Caucasian" and r["class"] == "High")
    assert float(row["selection_rate"]) == pytest.approx(want, rel=1e-12)
