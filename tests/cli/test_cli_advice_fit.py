"""Advice that fits the data (issue 20, item 3 of the command-line review).

A score in [0, 1] is binned at 0.5, not at an age's 30; a label of three text values gets advice
to make it binary; ``--ordered`` on text classes advises ``--classes`` in the order of their
scale (COMPAS' Low, Medium, High), written as the flag takes them; ``multiclass-test`` no longer
lists a ``--sample-weight`` it always refused. Each piece of advice is read out of the message,
followed, and its result checked by hand.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app
from tests.cli.test_cli_advice_followed import _words, cli


def _class_words(message: str) -> list[str]:
    """The shell word after ``for example --classes``: one list of classes, its commas kept."""
    m = re.search(r"for example --classes ('[^']*'|\S+)", message)
    assert m, message
    return shlex.split(m.group(1))

runner = CliRunner()

N = 60
#: i = 0..59: g a for even i; risk Low/Medium/High by i % 3; decision yes where i % 4 is 2 or 3;
#: y_pred (i // 2) % 2; score i / 100 (in [0, 0.59]); income 1,000 + 997 i; y_true i % 2.
ROWS = pl.DataFrame({
    "g": ["a", "b"] * (N // 2),
    "risk": [["Low", "Medium", "High"][i % 3] for i in range(N)],
    "decision": ["yes" if i % 4 in (2, 3) else "no" for i in range(N)],
    "y_pred": [(i // 2) % 2 for i in range(N)],
    "score": [i / 100 for i in range(N)],
    "income": [1000.0 + 997.0 * i for i in range(N)],
    "y_true": [i % 2 for i in range(N)],
})


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "r.csv"
    ROWS.write_csv(path)
    return path




def _groups(out: str) -> dict[str, int]:
    frame = pl.read_csv(out.encode())
    return dict(frame.select(frame.columns[0], "n").rows())


@pytest.mark.parametrize(("column", "cut", "expected"), [
    # score i / 100 < 0.5 for i < 50: 50 rows under, 10 at or above
    ("score", "0.5", {"under 0.5": 50, "0.5 or more": 10}),
    # income 1,000 + 997 i spans [1,000, 59,823]: 30 lies outside it; the median of the values
    # (1,000 + 997 * 29.5 = 30,411.5) rounded to one significant digit is 30,000;
    # 1,000 + 997 i < 30,000 for i <= 29: 30 rows under
    ("income", "30000", {"under 30000": 30, "30000 or more": 30}),
])
def test_the_binning_cut_off_lies_inside_the_column_and_runs(
        data: Path, column: str, cut: str, expected: dict[str, int]) -> None:
    code, _, err = cli("report", str(data), "--by", column)
    assert code == 2 and "values not shown" in err
    by = _words(err, "for example --by")
    assert by == [f"CASE WHEN {column} < {cut} THEN 'under {cut}' ELSE '{cut} or more' END"]
    code, out, err = cli("report", str(data), "--by", by[0], "--format", "csv",
                         "--min-support", "1")
    assert code == 0, err
    assert _groups(out) == expected


def test_the_cut_off_is_an_age_s_30_where_30_is_inside() -> None:
    assert E.cut_off(18.0, 96.0, 34.0) == "30"
    assert E.cut_off(0.0, 1.0, 0.2) == "0.5"
    assert E.cut_off(1001.0, 1009.0, 1005.0) == "1005"  # 1000 is outside: more digits


def test_a_label_of_three_text_values_is_advised_to_be_made_binary(data: Path) -> None:
    code, _, err = cli("report", str(data), "--by", "g", "--y-true", "risk", "--y-pred", "risk")
    assert code == 2
    assert "a label of more than two values is made binary first" in err
    assert "pos_label" not in err and "pl.col" not in err
    y_true = _words(err, "for example --y-true")
    assert y_true == ["risk = 'High'"]  # the first of its values in sorted order
    assert _words(err, "with --pos-label") == ["true"]
    code, out, err = cli("report", str(data), "--by", "g", "--y-true", y_true[0],
                         "--pos-label", "true", "--y-pred", "decision = 'yes'",
                         "--format", "csv", "--min-support", "1")
    assert code == 0, err
    # a (even i): High where i = 2 (mod 6): 10 rows; yes where i = 2 (mod 4): 15 rows; both
    # where i = 2 (mod 12): 5. b (odd i): High where i = 5 (mod 6), yes where i = 3 (mod 4),
    # both where i = 11 (mod 12): 5, 15 and 10 likewise. So tp 5, fp 10, fn 5, tn 10 in each.
    frame = pl.read_csv(out.encode())
    assert frame.select("g", "tp", "fp", "fn", "tn").rows() == [("a", 5, 10, 5, 10),
                                                              ("b", 5, 10, 5, 10)]


def test_the_python_label_advice_runs() -> None:
    with pytest.raises(E.InvalidLabelError) as info:
        ROWS.fair.report("g", y_true="risk", y_pred="risk", pos_label="High")
    m = re.search(r"for example y_true=(pl\.col\('risk'\) == 'High') with pos_label=True",
                  str(info.value))
    assert m, info.value
    out = ROWS.fair.report("g", y_true=eval(m.group(1), {"pl": pl}), pos_label=True,
                           y_pred=pl.col("decision") == "yes", min_support=1)
    assert out.select("g", "tp", "fp", "fn", "tn").rows() == [("a", 5, 10, 5, 10),
                                                            ("b", 5, 10, 5, 10)]


def test_a_label_of_two_values_without_pos_label_names_the_positive_one(data: Path) -> None:
    # issue 19: decision holds 'no' and 'yes', and the default --pos-label 1 is neither. It is
    # no label "of more than two values" to make binary: the advice names 'yes' (a word read
    # as positive), and followed it runs. By hand: decision is 'yes' where i % 4 is 2 or 3,
    # 15 of the 30 rows of a (even i: i % 4 = 2) and of b (odd i: i % 4 = 3); as both the
    # label and the prediction, tp 15 and tn 15 in each group.
    code, _, err = cli("report", str(data), "--by", "g", "--y-true", "decision",
                       "--y-pred", "decision")
    assert code == 2
    assert "holds two values, 'no' and 'yes', and neither is --pos-label" in err, err
    assert "more than two values" not in err and "pos_label" not in err
    assert _words(err, "for example --pos-label") == ["yes"]
    code, out, err = cli("report", str(data), "--by", "g", "--y-true", "decision",
                         "--y-pred", "decision", "--pos-label", "yes", "--format", "csv",
                         "--min-support", "1")
    assert code == 0, err
    assert pl.read_csv(out.encode()).select("g", "tp", "fp", "fn", "tn").rows() == [
        ("a", 15, 0, 0, 15), ("b", 15, 0, 0, 15)]
    with pytest.raises(E.InvalidLabelError) as info:  # the same in Python, pos_label='Yes'
        ROWS.fair.report("g", y_true="decision", y_pred="decision", pos_label="Yes")
    m = re.search(r"for example pos_label=('yes')$", str(info.value))
    assert m, info.value
    out_py = ROWS.fair.report("g", y_true="decision", y_pred="decision",
                              pos_label=eval(m.group(1)), min_support=1)
    assert out_py.select("g", "tp", "fp", "fn", "tn").rows() == [("a", 15, 0, 0, 15),
                                                               ("b", 15, 0, 0, 15)]


def test_other_values_of_a_label_read_as_command_line_words(data: Path) -> None:
    # issue 19: "found other values [0, 1, 2]" was a Python list on the command line; the
    # values of y_pred (i // 2) % 2 are 0 and 1 and risk is Low/Medium/High: with
    # --pos-label 7 on a 0/1 label both are "other values", written as --classes takes them
    code, _, err = cli("report", str(data), "--by", "g", "--y-true", "y_true",
                       "--y-pred", "y_pred", "--pos-label", "7")
    assert code == 2
    assert "found other values 0,1" in err or "holds two values, 0 and 1" in err, err
    assert "[" not in err
    code, _, err = cli("report", str(data), "--by", "g", "--y-true", "risk", "--y-pred", "risk")
    assert "found other values High,Low,Medium" in err and "[" not in err, err


def test_ordered_text_classes_are_advised_in_their_scale_s_order(data: Path) -> None:
    code, _, err = cli("multiclass-report", str(data), "--by", "g", "--y-pred", "risk",
                       "--ordered")
    assert code == 2
    assert "[" not in err.split("--ordered reads", 1)[1]  # no Python list
    classes = _class_words(err)
    assert classes == ["Low,Medium,High"]  # the scale's order, not the text's
    code, out, err = cli("multiclass-report", str(data), "--by", "g", "--y-pred", "risk",
                         "--ordered", "--classes", classes[0], "--format", "csv",
                         "--min-support", "1")
    assert code == 0, err
    frame = pl.read_csv(out.encode())
    # each group has 10 rows of each risk (i % 3 over 30 even or 30 odd i); ordered, a row of
    # class c counts those at c or above: Low 30, Medium 20, High 10
    assert frame.filter(pl.col("g") == "a").select("class", "n_class").rows() == [
        ("Low", 30), ("Medium", 20), ("High", 10)]


def test_ordered_classes_of_no_known_scale_say_they_are_sorted_as_text() -> None:
    # pine on two rows: three classes of one row each would be refused first, as an attribute
    # would be (boundary.identifying)
    df = pl.DataFrame({"g": ["a", "b", "a", "b"], "tier": ["pine", "birch", "oak", "pine"]})
    with pytest.raises(E.InvalidArgumentError) as info:
        df.fair.multiclass_report("g", y_pred="tier", ordered=True)
    assert E.ORDER_GUESSED in str(info.value)
    assert "classes=['birch', 'oak', 'pine']" in str(info.value)
    cli_text = info.value.cli_message or ""
    assert _class_words(cli_text) == ["birch,oak,pine"]
    assert E.ORDER_GUESSED in cli_text


def test_multiclass_test_takes_no_sample_weight_and_its_help_says_why(data: Path) -> None:
    result = runner.invoke(app, ["multiclass-test", "--help"])
    assert result.exit_code == 0
    assert "--sample-weight" not in result.stdout.split("Options")[1]
    assert "No --sample-weight: the chi-square test counts rows" in " ".join(
        result.stdout.split())
    code, _, err = cli("multiclass-test", str(data), "--by", "g", "--y-pred", "risk",
                       "--sample-weight", "income")
    assert code == 2 and "no such option: --sample-weight" in err
    code, out, err = cli("multiclass-test", str(data), "--by", "g", "--y-pred", "risk",
                         "--format", "csv")
    assert code == 0, err
    assert pl.read_csv(out.encode())["n"].to_list() == [60]
    # the report still reads weights
    code, _, err = cli("multiclass-report", str(data), "--by", "g", "--y-pred", "risk",
                       "--sample-weight", "income", "--format", "csv", "--min-support", "1")
    assert code == 0, err
