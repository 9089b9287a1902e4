"""continuous-report lists only the flags it takes (issue 22's fresh-user review, item 5).

``--combinations`` was listed as "Not supported" and always refused: the command reports one
attribute set per call (FairMoments.continuous_report refuses ``combinations=``), so the flag
is gone from it, as ``--sample-weight`` is from multiclass-test, and the help says why.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


def test_continuous_report_takes_no_combinations_and_its_help_says_why(tmp_path: Path) -> None:
    result = runner.invoke(app, ["continuous-report", "--help"])
    assert result.exit_code == 0
    assert "--combinations" not in result.stdout.split("Options")[1]
    assert "No --combinations: the moment table is counted for one attribute set" in " ".join(
        result.stdout.split())
    path = tmp_path / "rates.csv"
    pl.DataFrame({"g": ["a", "a", "b", "b"], "x": [1.0, 3.0, 2.0, 6.0]}).write_csv(path)
    result = runner.invoke(app, ["continuous-report", str(path), "--by", "g", "--y-pred", "x",
                                 "--combinations", "all"])
    assert result.exit_code == 2 and "no such option: --combinations" in result.stderr
    # without it the command runs: by hand, a: mean 2, b: mean 4
    result = runner.invoke(app, ["continuous-report", str(path), "--by", "g", "--y-pred", "x",
                                 "--min-support", "1", "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    assert pl.read_csv(result.stdout.encode())["mean"].to_list() == [2.0, 4.0]
