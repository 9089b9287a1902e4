"""``polars-fair stratified`` with ``--by`` and ``--membership`` together (fix 24a item 3).

``--by h --membership g=... --strata s`` compares the groups of g crossed with h within the
strata; with the argmax estimator each row is in its most likely group, so the expected output
is the crisp command on a column holding that group (an independent path). ``--by g`` naming
the membership attribute, and ``--strata g``, are usage errors naming the flags; the first
advises leaving ``--by g`` out, which the test does.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()
#: p_a > 0.5 on rows 0, 1, 4, 5 (argmax a), < 0.5 on rows 2, 3, 6, 7 (argmax b)
ROWS = pl.DataFrame({
    "y_true": [1, 0, 1, 0, 1, 0, 1, 0], "y_pred": [1, 0, 0, 1, 1, 1, 0, 1],
    "p_a": [0.9, 0.8, 0.3, 0.2, 0.7, 0.6, 0.1, 0.4], "h": ["x", "y"] * 4,
    "s": ["u"] * 4 + ["v"] * 4}).with_columns(p_b=1 - pl.col("p_a"))
MEMBERSHIP = ["--membership", "g=a:p_a,b:p_b", "--membership-estimator", "argmax"]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    rows, crisp = tmp_path / "rows.csv", tmp_path / "crisp.csv"
    ROWS.write_csv(rows)
    ROWS.with_columns(g=pl.when(pl.col("p_a") > 0.5).then(pl.lit("a")).otherwise(pl.lit("b"))
                      ).write_csv(crisp)
    return rows, crisp


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["stratified", *args])
    return result.exit_code, result.stdout, result.stderr


def _csv(text: str) -> pl.DataFrame:
    return pl.read_csv(text.encode())


def test_by_and_membership_together_cross_the_groups(files: tuple[Path, Path]) -> None:
    rows, crisp = files
    code, out, err = _run(str(rows), "--by", "h", *MEMBERSHIP, "--strata", "s",
                          "--reference", "g=a,h=x", "--format", "csv")
    assert code == 0, err
    code, want, err = _run(str(crisp), "--by", "g", "--by", "h", "--strata", "s",
                           "--reference", "g=a,h=x", "--format", "csv")
    assert code == 0, err
    got = _csv(out)
    assert got.equals(_csv(want))
    # by hand: g=a, h=x is rows 0 and 4, both selected: a rate of 1; g=b, h=x is rows 2 and 6,
    # neither selected: 0
    assert got.select("g", "h", "n", "selection_rate").rows() == [
        ("a", "x", 2, 1.0), ("a", "y", 2, 0.5), ("b", "x", 2, 0.0), ("b", "y", 2, 1.0)]


def test_by_naming_the_membership_attribute_is_a_usage_error_whose_advice_runs(
        files: tuple[Path, Path]) -> None:
    rows, crisp = files
    args = [str(rows), "--by", "g", *MEMBERSHIP, "--strata", "s", "--format", "csv"]
    code, _, err = _run(*args)
    assert code == 2
    assert "--by g names the --membership attribute, which is no column of the input" in err
    m = re.search(r"leave (--by \S+) out", err)
    assert m, err
    left = shlex.split(m.group(1))
    at = next(i for i in range(len(args) - 1) if args[i:i + 2] == left)
    code, out, err = _run(*args[:at], *args[at + 2:])  # --by g left out, as advised
    assert code == 0, err
    code, want, _ = _run(str(crisp), "--by", "g", "--strata", "s", "--format", "csv")
    assert _csv(out).equals(_csv(want))
    # by hand: a = rows 0, 1, 4, 5 (1, 0, 1, 1: 3 of 4), b = rows 2, 3, 6, 7 (0, 1, 0, 1)
    assert _csv(out).select("g", "selection_rate").rows() == [("a", 0.75), ("b", 0.5)]


def test_strata_naming_the_membership_attribute_is_a_usage_error(
        files: tuple[Path, Path]) -> None:
    rows, _ = files
    code, _, err = _run(str(rows), "--by", "h", *MEMBERSHIP, "--strata", "g")
    assert code == 2
    assert "--strata names the membership attribute 'g': a stratum is a column of the input" \
        in err
