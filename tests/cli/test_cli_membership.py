"""``--membership`` on the generated commands (issue 24): the count argument as
``ATTRIBUTE=GROUP:COLUMN,...``, the same result as the Python API."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


def test_membership_option_equals_the_python_api(tmp_path: Path) -> None:
    df = pl.DataFrame({"s": ["x", "x", "y", "y"], "y_true": [1, 0, 1, 0],
                       "y_pred": [1, 1, 0, 1], "p_a": [0.2, 1.0, 0.5, 0.0],
                       "p_b": [0.8, 0.0, 0.5, 1.0]})
    path = tmp_path / "people.csv"
    df.write_csv(path)
    for estimator in ("weighted", "argmax"):
        result = runner.invoke(app, ["rates", str(path), "--by", "s", "--membership",
                                     "g=a:p_a,b:p_b", "--membership-estimator", estimator,
                                     "--format", "json"])
        assert result.exit_code == 0, result.output
        got = pl.DataFrame(json.loads(result.stdout))
        want = df.fair.rates("s", membership={"g": {"a": "p_a", "b": "p_b"}},
                             membership_estimator=estimator)
        assert got.select("g", "s", "selection_rate").rows() == \
            want.select("g", "s", "selection_rate").rows()
