"""Issue 19 (kind 2): reliability and calibration bound ``n_bins`` x groups (``bin_cells``).

``reliability(n_bins=10000)`` on 1,000 groups returned 10 million rows, and on 5,000 groups
both reliability and calibration ran the process out of memory. The groups are counted on the
small score table and ``n_bins`` x groups is refused above the declared limit before any bin
is made; the advice (an ``n_bins`` that fits) runs as written, in Python and on the command
line.
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
from polars_fair.core.limits import LIMITS, Limit, limits_markdown

#: 101 groups of 2 rows: 101 x 10,000 = 1,010,000 cells, just above the limit 1,000,000.
GROUPS = 101
ROWS = pl.DataFrame({
    "g": [f"g{i:03d}" for i in range(GROUPS)] * 2,
    "y_true": [1] * GROUPS + [0] * GROUPS,
    "y_score": [0.75] * GROUPS + [0.25] * GROUPS,
})


def test_the_limit_is_declared_and_listed_in_the_documentation_table() -> None:
    assert LIMITS["bin_cells"].limit == 1_000_000
    assert "| `bin_cells` | 1,000,000 |" in limits_markdown()


@pytest.mark.parametrize("method", ["reliability", "calibration"])
def test_n_bins_times_groups_above_the_limit_is_refused_naming_both(method: str) -> None:
    with pytest.raises(E.SizeLimitError) as info:
        getattr(ROWS.fair, method)("g", n_bins=10_000)
    # by hand: 10,000 bins x 101 groups = 1,010,000 > 1,000,000; 1,000,000 // 101 = 9,900
    assert str(info.value).startswith(
        "n_bins x groups = 10,000 x 101 = 1,010,000 cells, more than the limit bin_cells "
        "1,000,000")
    assert str(info.value).endswith("pass n_bins=9900 or fewer")


def test_the_advised_n_bins_runs_and_fills_the_limit() -> None:
    with pytest.raises(E.SizeLimitError) as info:
        ROWS.fair.reliability("g", n_bins=10_000)
    advised = re.search(r"pass (n_bins=\d+) or fewer", str(info.value))
    assert advised is not None
    n_bins = int(advised.group(1).split("=")[1])
    out = ROWS.fair.reliability("g", n_bins=n_bins)
    assert out.height == 101 * 9_900 == 999_900  # one row per group and bin, within 1,000,000
    by_group = ROWS.fair.calibration("g", n_bins=n_bins)
    # each group: a positive at 0.75 and a negative at 0.25, each alone in its bin:
    # ECE = (1 * |1 - 0.75| + 1 * |0 - 0.25|) / 2 = 0.25
    assert by_group.height == GROUPS
    assert by_group["ece"].round(12).unique().to_list() == [0.25]


def test_groups_alone_above_the_limit_advise_fewer_groups(monkeypatch: pytest.MonkeyPatch) -> None:
    # a limit of 100 cells: 101 groups exceed it even at n_bins=1, so no n_bins is advised
    monkeypatch.setitem(LIMITS, "bin_cells", Limit("bin_cells", 100, "", "test"))
    with pytest.raises(E.SizeLimitError) as info:
        ROWS.fair.calibration("g", n_bins=1)
    assert str(info.value) == (
        "n_bins x groups = 1 x 101 = 101 cells, more than the limit bin_cells 100 (test); "
        "group by fewer attributes: at most 100 groups")
    # one group (no by): 1 x 50 = 50 cells, within the limit
    assert ROWS.fair.reliability(n_bins=50).height == 50


def test_the_command_line_advises_n_bins_as_its_flag_and_that_runs(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    ROWS.write_csv(path)
    runner = CliRunner()
    args = ["calibration", str(path), "--by", "g", "--y-score", "y_score", "--format", "csv"]
    result = runner.invoke(app, [*args, "--n-bins", "10000"])
    assert result.exit_code == 2, result.stderr
    advised = re.search(r"pass --n-bins (\d+) or fewer", result.stderr)
    assert advised is not None, result.stderr
    assert advised.group(1) == "9900"
    result = runner.invoke(app, [*args, "--n-bins", advised.group(1)])
    assert result.exit_code == 0, result.stderr
    assert pl.read_csv(result.stdout.encode()).height == GROUPS
