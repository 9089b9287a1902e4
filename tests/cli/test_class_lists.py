"""Class lists in advice are complete (issue 20, fix item 6).

Advice to pass ``classes=`` (``--classes``) lists every class, each in full, never with "..."
inside; past :data:`polars_fair.errors.MAX_LISTED_CLASSES` it lists none and says how many and
which. The advice is followed, in Python and on the command line.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

#: y_pred: 12 classes (0..11), 10 rows each; more than show_values' 5 or 8.
ROWS = pl.DataFrame({"g": ["a", "b"] * 60, "y_true": [1, 0] * 60,
                     "y_pred": [i % 12 for i in range(120)]})


def test_the_python_advice_lists_every_class_and_runs() -> None:
    with pytest.raises(E.InvalidLabelError) as info:
        ROWS.fair.report("g")
    m = re.search(r"classes=(\[[^\]]*\])", str(info.value))
    assert m and "..." not in m.group(1)
    classes = eval(m.group(1))
    assert classes == list(range(12))
    out = ROWS.fair.bias_audit("g", y_pred="y_pred", classes=classes)
    # every class is received by 10 of the 120 rows (the even ones by a, the odd ones by b)
    per_class = out.group_by("class").agg(pl.col("selected").sum()).sort("class")
    assert per_class.rows() == [(c, 10) for c in range(12)]


def test_the_command_line_advice_lists_every_class_and_runs(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    result = runner.invoke(app, ["report", str(path), "--by", "g"])
    assert result.exit_code == 2
    m = re.search(r"--classes (\S+)", result.stderr)
    assert m and m.group(1) == ",".join(str(i) for i in range(12))
    ok = runner.invoke(app, ["bias-audit", str(path), "--category", "g", "--y-pred", "y_pred",
                             "--classes", m.group(1)])
    assert ok.exit_code == 0, ok.stderr


def test_past_the_limit_no_class_is_listed() -> None:
    many = list(range(E.MAX_LISTED_CLASSES + 1))
    text = E.show_classes(many, "code")
    assert text == E.CLASSES_NOT_LISTED.format(count=21, column="code")
    assert "0, 1" not in text
    assert E.show_classes(["x" * 60], "c") == "['" + "x" * 60 + "']"  # not cut either
