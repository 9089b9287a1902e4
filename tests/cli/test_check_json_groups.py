"""``check --format json`` carries each group's low-support flag, as the text says it (h-fix20c
item 5).

The text says a group under ``--min-support`` is ``not checked`` and a low-support reference
``reference g=c (low support)``; the JSON now has ``groups`` (each with ``n``,
``low_support``, ``is_reference``) and ``reference_low_support``.

By hand: a and b 40 rows each, c 10 rows; the default --min-support is 30, so c alone is low
support.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "rows.parquet"
    pl.DataFrame({"g": ["a"] * 40 + ["b"] * 40 + ["c"] * 10, "y_true": [1, 0] * 45,
                  "y_pred": [1, 1, 0, 0] * 10 + [1, 0, 0, 0] * 10 + [1, 0] * 5}).write_parquet(p)
    return p


@pytest.mark.parametrize(("reference", "chosen"), [(None, "a"), ("c", "c")])
def test_each_group_carries_its_low_support_flag(path: Path, reference: str | None,
                                                 chosen: str) -> None:
    extra = ["--reference", reference] if reference else []
    out = runner.invoke(app, ["check", str(path), "--by", "g", *extra, "--format", "json"])
    assert out.exit_code == 1, out.output  # b's impact ratio (10/40) / (20/40) = 0.5 < 0.8
    result = json.loads(out.stdout)
    assert result["groups"] == [
        {"group": f"g={g}", "values": {"g": g}, "n": n, "low_support": g == "c",
         "is_reference": g == chosen} for g, n in (("a", 40), ("b", 40), ("c", 10))]
    assert result["reference_low_support"] is (chosen == "c")  # c: 10 rows < 30
    text = runner.invoke(app, ["check", str(path), "--by", "g", *extra]).stdout
    assert (f"reference g={chosen} (low support)" in text) is (chosen == "c")
    assert "not checked (n < 30): g=c" in text


def test_nothing_checked_lists_labels_without_repr(tmp_path: Path) -> None:
    """The error listed ['g=\\"(missing)\\"', ...] (a Python list of reprs); a key named like an
    option stays a key. By hand: g missing / "(missing)" / O'Brien, y_true 0 and 1, one row each
    (every group under --min-support 30)."""
    p = tmp_path / "few.parquet"
    pl.DataFrame({"g": [None, "(missing)", "O'Brien"], "y_true": [0, 1, 0],
                  "y_pred": [1, 0, 1]}).write_parquet(p)
    out = runner.invoke(app, ["check", str(p), "--by", "g"])
    assert out.exit_code == 2
    assert out.stderr.strip().endswith(
        "nothing was checked (groups: `g=\"(missing)\"`; `g=O'Brien`; `g=(missing)`)")
    out = runner.invoke(app, ["check", str(p), "--by", "g", "--by", "y_true"])
    assert "`g=\"(missing)\", y_true=1`" in out.stderr and "--y-true 1" not in out.stderr
