"""Label advice leads somewhere (issue 20, fix item 2).

A text label with a numeric prediction (or the reverse) is advised to compare the text column
with one of its own values, on the flag of the text column (``--y-pred`` for a text prediction,
not ``--y-true`` again); a column of many values (a name) shows none. A label or prediction
given as an expression that is the same on every row warns. Each piece of advice is followed.
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

runner = CliRunner()

#: g: a, b; risk: a text decision (High/Low/Medium); y: the 0/1 outcome.
ROWS = pl.DataFrame({
    "g": ["a", "a", "a", "b", "b", "b"],
    "risk": ["High", "Low", "Medium", "High", "High", "Low"],
    "y": [1, 0, 1, 1, 0, 0],
})


def _flag(message: str, flag: str) -> str:
    m = re.search(re.escape(flag) + r' ("(?:[^"\\]|\\.)*")', message)
    assert m, message
    return str(shlex.split(m.group(1))[0])


def _csv(tmp_path: Path) -> str:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    return str(path)


def test_a_text_label_is_advised_one_of_its_values_and_that_runs(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    result = runner.invoke(app, ["report", path, "--by", "g", "--y-true", "risk", "--y-pred", "y"])
    assert result.exit_code == 2
    # as the SQL of the example writes them, not a Python list (issue 20, 20a item 5)
    assert "its values: 'High' 'Low' 'Medium'; put the positive one in place of 'High'" \
        in result.stderr
    y_true = _flag(result.stderr, "--y-true")
    assert y_true == "risk = 'High'"  # the first value in sorted order: it exists
    assert "--pos-label true" in result.stderr
    ok = runner.invoke(app, ["report", path, "--by", "g", "--y-true", y_true, "--y-pred", "y",
                             "--pos-label", "true", "--min-support", "1", "--format", "csv"])
    assert ok.exit_code == 0, ok.stderr
    out = pl.read_csv(ok.stdout.encode())
    # a: High/1 (tp), Low/0 (tn), Medium/1 (fp); b: High/1 (tp), High/0 (fn), Low/0 (tn)
    assert out.select("tp", "fp", "fn", "tn").rows() == [(1, 1, 0, 1), (1, 0, 1, 1)]
    assert "on every one of" not in ok.stderr  # not constant: no warning


def test_a_text_prediction_is_advised_on_its_own_flag_and_that_runs(tmp_path: Path) -> None:
    path = _csv(tmp_path)
    result = runner.invoke(app, ["report", path, "--by", "g", "--y-true", "y", "--y-pred", "risk"])
    assert result.exit_code == 2
    assert "--y-true \"" not in result.stderr  # the label is fine: no advice loops back to it
    y_pred = _flag(result.stderr, "--y-pred")
    assert y_pred == "risk = 'High'" and result.stderr.rstrip().endswith("--pos-label 1")
    ok = runner.invoke(app, ["report", path, "--by", "g", "--y-true", "y", "--y-pred", y_pred,
                             "--pos-label", "1", "--min-support", "1", "--format", "csv"])
    assert ok.exit_code == 0, ok.stderr
    out = pl.read_csv(ok.stdout.encode())
    # a: y=1/High (tp), y=0/Low (tn), y=1/Medium (fn); b: 1/High tp, 0/High fp, 0/Low tn
    assert out.select("tp", "fp", "fn", "tn").rows() == [(1, 0, 1, 1), (1, 1, 0, 1)]


def test_the_python_advice_names_a_value_and_runs() -> None:
    with pytest.raises(E.InvalidLabelError) as info:
        ROWS.fair.report("g", y_true="y", y_pred="risk")
    message = str(info.value)
    m = re.search(r"y_pred=(pl\.col\('risk'\) == 'High')", message)
    assert m and message.endswith("and pass pos_label=1")
    out = ROWS.fair.report("g", y_true="y", y_pred=eval(m.group(1), {"pl": pl}), pos_label=1,
                           min_support=1)
    assert out.select("tp", "fp", "fn", "tn").rows() == [(1, 0, 1, 1), (1, 1, 0, 1)]


def test_a_given_text_pos_label_in_the_column_is_the_example() -> None:
    with pytest.raises(E.InvalidLabelError, match=r"y_true=pl\.col\('risk'\) == 'Medium'"):
        ROWS.fair.report("g", y_true="risk", y_pred="y", pos_label="Medium")


def test_a_column_of_many_values_shows_none() -> None:
    names = pl.DataFrame({"g": ["a", "b"] * 5, "who": [f"person {i}" for i in range(10)],
                          "y": [1, 0] * 5})
    with pytest.raises(E.InvalidLabelError) as info:
        names.fair.report("g", y_true="y", y_pred="who")
    assert "person" not in str(info.value)
    # what was counted, by hand: 10 names in 10 rows, each a single row
    assert "its values are not shown (10 distinct values in 10 rows: each of the 10 values is " \
           "a single row; they may identify people)" in str(info.value)


def test_a_constant_expression_warns_on_the_command_line(tmp_path: Path) -> None:
    from polars_fair.counting.tables import WARN_CONSTANT

    token = WARN_CONSTANT.set(True)  # what the command line sets
    try:
        with pytest.warns(UserWarning, match="is negative on every one of the 6 rows counted"):
            ROWS.fair.report("g", y_true=pl.col("risk") == "1", y_pred="y", pos_label=True,
                             min_support=1)
    finally:
        WARN_CONSTANT.reset(token)
    # the Python API alone does not warn: pl.lit(1) selects everyone on purpose
    ROWS.fair.report("g", y_true="y", y_pred=pl.lit(1), min_support=1)
    path = _csv(tmp_path)
    result = runner.invoke(app, ["report", path, "--by", "g", "--y-true", "y", "--y-pred",
                                 "risk <> 'x'", "--min-support", "1"])
    assert result.exit_code == 0
    assert result.stderr == "polars-fair: " + E.CONSTANT_OUTCOME.format(
        role="--y-pred", name="risk <> 'x'", value="positive", rows=6) + "\n"
