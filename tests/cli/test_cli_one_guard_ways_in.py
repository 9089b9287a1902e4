"""Issue 19 kind 7, sixth review: the command line's guards are the library's.

A Decimal attribute read with ``--dtype m=decimal(10,3)`` is judged as the same values read as
Float64 are.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()


def _error(args: list[str]) -> dict[str, str]:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 2, result.output
    out: dict[str, str] = json.loads(result.stdout)
    return out


def test_a_decimal_dtype_attribute_is_judged_as_a_float(tmp_path: Path) -> None:
    # 60 values 0.0 ... 5.9 of two rows each: 60 > 50 values of a number in 120 rows
    path = tmp_path / "rows.csv"
    path.write_text("m,y_true,y_pred\n" + "".join(
        f"{i / 10:.1f},{y},1\n" for i in range(60) for y in (1, 0)))
    as_float = _error(["report", str(path), "--by", "m", "--dtype", "m=float64"])
    as_decimal = _error(["report", str(path), "--by", "m", "--dtype", "m=decimal(10,3)"])
    assert as_decimal["error"] == as_float["error"] == "TooManyLevelsError"
    assert as_decimal["message"].startswith(
        "attribute 'm' is a Decimal(precision=10, scale=3) column with 60 distinct values in "
        "120 rows: more than 50 values of a number")
    assert as_decimal["message"] == as_float["message"].replace(
        "Float64", "Decimal(precision=10, scale=3)")
    # the advice followed: the divergence of five quantile bins of 24 rows each
    result = runner.invoke(app, ["divergence", str(path), "--by", "m", "--dtype",
                                 "m=decimal(10,3)", "--bins", "m=5", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [row["n"] for row in json.loads(result.stdout)] == [24] * 5
    assert "--bins m=5" in as_decimal["message"]
    assert E.WHY_FLOAT_LEVELS.format(limit=50) in as_decimal["message"]
