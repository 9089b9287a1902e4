"""The report's lines say how the benchmarks were chosen when no group has enough rows.

Issue 19, fourth review, item 9: with no group of 30 rows, the header still said "the largest
group with at least 30 rows". It now says what was chosen.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()


def _lines(tmp_path: Path, *extra: str) -> list[str]:
    path = tmp_path / "rows.csv"
    # a: 3 rows, 2 selected (2/3 = 0.6667); b: 2 rows, 1 selected (0.5000)
    path.write_text("g,y_true,y_pred\na,1,1\na,0,1\na,1,0\nb,1,1\nb,0,0\n")
    result = runner.invoke(app, ["report", str(path), "--by", "g", *extra])
    assert result.exit_code == 0, result.output
    return [x for x in result.stdout.splitlines()
            if x.startswith(("reference group:", "impact ratio against:"))]


def test_no_supported_group_is_said_as_such(tmp_path: Path) -> None:
    assert _lines(tmp_path, "--format", "table") == [
        "reference group: g=a (3 rows; the largest group, as no group has at least 30 rows) "
        "(low support)",
        "impact ratio against: g=a, the highest selection rate (0.6667) of a group, as no group "
        "has at least 30 rows (low",
    ]


def test_a_supported_group_keeps_the_rule_words(tmp_path: Path) -> None:
    # --min-support 3: a (3 rows) is supported, b (2 rows) is not
    assert _lines(tmp_path, "--min-support", "3") == [
        "reference group: g=a (3 rows; the largest group with at least 3 rows)",
        "impact ratio against: g=a, the highest selection rate (0.6667) of a group with at "
        "least 3 rows",
    ]
