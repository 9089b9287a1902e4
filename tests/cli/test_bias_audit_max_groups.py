"""``bias_audit(max_groups=...)`` and ``bias-audit --max-groups`` (h-fix20c item 7).

The count table of two Enum categories of 200 values each would hold 200 x 200 = 40,000
intersections, over the default limit of 10,000: the error advised ``max_groups=`` (and on the
command line ``--max-groups``), which bias_audit did not take. Following the advice now works;
the limit is checked before any row is read, as in every count method.

The rows, by hand: s alternates a1, a2 and r cycles b1..b4 over 20 rows, so the observed
intersections are (a1, b1), (a1, b3), (a2, b2), (a2, b4), 5 rows each; s alone: a1 and a2 with
10 rows each; r alone: b1..b4 with 5 each. 2 + 4 + 4 = 10 rows of results (unobserved
categories are not listed).
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
S = pl.Enum([f"a{i}" for i in range(200)])
R = pl.Enum([f"b{i}" for i in range(200)])
ROWS = pl.DataFrame({"s": ["a1", "a2"] * 10, "r": ["b1", "b2", "b3", "b4"] * 5,
                     "y_pred": [1, 0] * 10}, schema_overrides={"s": S, "r": R})


def test_python_bias_audit_takes_the_advised_max_groups() -> None:
    with pytest.raises(E.SizeLimitError, match=r"40,000 groups, more than max_groups=10,000; "
                                                r"pass max_groups= a larger limit"):
        ROWS.fair.bias_audit(["s", "r"], y_pred="y_pred")
    with pytest.raises(E.SizeLimitError, match="more than max_groups=39,999"):
        ROWS.fair.bias_audit(["s", "r"], y_pred="y_pred", max_groups=39_999)
    out = ROWS.fair.bias_audit(["s", "r"], y_pred="y_pred", max_groups=40_000)
    assert out.height == 10
    both = out.filter(pl.col("attributes").list.len() == 2)
    assert both.select("s", "r", "n").rows() == [("a1", "b1", 5), ("a1", "b3", 5),
                                                ("a2", "b2", 5), ("a2", "b4", 5)]


@pytest.mark.parametrize("bad", [0, 1.5, True])
def test_python_bias_audit_checks_max_groups_first(bad: object) -> None:
    with pytest.raises(E.InvalidArgumentError, match="max_groups must be an integer >= 1"):
        ROWS.lazy().fair.bias_audit(["s", "r"], y_score="y_pred", max_groups=bad)  # type: ignore[arg-type]


def test_cli_bias_audit_advice_followed(tmp_path: Path) -> None:
    path = tmp_path / "rows.parquet"
    ROWS.write_parquet(path)
    args = ["bias-audit", str(path), "--category", "s", "--category", "r", "--y-pred", "y_pred"]
    out = runner.invoke(app, args)
    assert out.exit_code == 2
    message = out.stderr
    assert "more than --max-groups 10,000; pass --max-groups a larger limit" in message
    m = re.search(r"would hold ([\d,]+) groups", message)
    assert m
    needed = m.group(1).replace(",", "")  # 40,000, as worked out above
    assert needed == "40000"
    out = runner.invoke(app, [*args, *shlex.split(f"--max-groups {needed}"), "--format", "csv",
                              "--columns", "s,r,n"])
    assert out.exit_code == 0, out.output
    body = [x for x in out.stdout.splitlines() if not x.startswith("#")]
    assert body[-4:] == ["a1,b1,5", "a1,b3,5", "a2,b2,5", "a2,b4,5"]
    assert '"--max-groups": 40000' in out.stdout  # recorded in the parameters
