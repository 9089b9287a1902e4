"""One quoting rule for the command line's lists and ``name=value`` items (review of issue 19,
defects 12, 13, 14).

Values are verbatim (never trimmed); a name or a value holding a comma, an ``=`` or a ``:`` is
written in double quotes (``polars_fair.cli.quoting.QUOTING``), the same in ``--reference``,
``--benchmark``, ``--bins`` and ``--columns``; a quoted ``--by`` names the column itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.cli.quoting import QUOTING, split_items, split_name, unquote

runner = CliRunner()


def _json(args: list[str]) -> list[dict[str, object]]:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.stdout + result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@pytest.fixture
def k8(tmp_path: Path) -> Path:
    # groups " x " (4 rows: 2 selected) and "x" (4 rows: 1 selected) of g, all H1 in h
    path = tmp_path / "k8.parquet"
    pl.DataFrame({"g": [" x "] * 4 + ["x"] * 4, "h": ["H1"] * 8,
                  "y_true": [1, 0] * 4, "y_pred": [1, 1, 0, 0, 1, 0, 0, 0]}).write_parquet(path)
    return path


def test_the_helpers_follow_the_rule() -> None:
    assert split_items(' x ,"a,b",c') == [" x ", '"a,b"', "c"]
    assert [unquote(i) for i in split_items(' x ,"a,b",c')] == [" x ", "a,b", "c"]
    assert split_name('"a=b"=2') == ("a=b", "2")
    assert split_name("g= x ") == ("g", " x ")
    assert split_name("no equals") is None
    assert "verbatim" in QUOTING


def test_reference_values_are_verbatim_with_several_attributes(k8: Path) -> None:
    # 'g= x ,h=H1' names the group " x " (the one with spaces), never "x"
    rows = _json(["report", str(k8), "--by", "g", "--by", "h", "--reference", "g= x ,h=H1"])
    ref = [r for r in rows if r["is_reference"]]
    assert [(r["g"], r["h"]) for r in ref] == [(" x ", "H1")]
    # spaces after a comma that starts the next attribute are not part of a value
    rows = _json(["report", str(k8), "--by", "g", "--by", "h", "--reference", "g=x, h=H1"])
    assert [(r["g"], r["h"]) for r in rows if r["is_reference"]] == [("x", "H1")]


def test_a_single_attribute_reference_follows_the_quoting_rule(tmp_path: Path) -> None:
    # second review of issue 19: with one --by, '"c,d"' was looked up with its quotes
    path = tmp_path / "r.parquet"
    pl.DataFrame({"h": ["c,d"] * 2 + ['q"q'] * 2 + ["z"] * 4, "y_true": [1, 0] * 4,
                  "y_pred": [1, 0] * 4}).write_parquet(path)
    for written, group in (('"c,d"', "c,d"), ('"q""q"', 'q"q'), ("c,d", "c,d"), ("z", "z")):
        rows = _json(["report", str(path), "--by", "h", "--reference", written])
        assert [r["h"] for r in rows if r["is_reference"]] == [group]


def test_a_quoted_by_names_the_column(k8: Path) -> None:
    rows = _json(["report", str(k8), "--by", '"g"', "--by", "h", "--reference", "g=x,h=H1"])
    assert set(rows[0]) >= {"g", "h"} and '"g"' not in rows[0]
    assert [(r["g"], r["h"]) for r in rows if r["is_reference"]] == [("x", "H1")]


def test_columns_can_name_a_column_with_a_comma(tmp_path: Path) -> None:
    path = tmp_path / "c.parquet"
    pl.DataFrame({"c,d": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
                  "y_pred": [1, 0, 0, 0]}).write_parquet(path)
    rows = _json(["report", str(path), "--by", '"c,d"', "--columns", '"c,d",n'])
    assert rows == [{"c,d": "a", "n": 2}, {"c,d": "b", "n": 2}]


def test_benchmark_values_may_hold_commas_and_equals_when_quoted(tmp_path: Path) -> None:
    # h: "H1" 2 rows, "H=2,z" 2 rows: each a share of 0.5 against a benchmark of 0.5
    path = tmp_path / "b.parquet"
    pl.DataFrame({"h": ["H1", "H1", "H=2,z", "H=2,z"], "y_true": [1, 0, 1, 0],
                  "y_pred": [1, 0, 1, 0]}).write_parquet(path)
    rows = _json(["availability", str(path), "--by", "h", "--benchmark",
                  'h=H1:0.5,"H=2,z":0.5'])
    assert sorted((r["h"], r["share"], r["benchmark_share"]) for r in rows) == [
        ("H1", 0.5, 0.5), ("H=2,z", 0.5, 0.5)]


def test_bins_may_name_a_column_with_an_equals_sign_when_quoted(tmp_path: Path) -> None:
    # a=b holds 1..8: two quantile bins of four rows each
    path = tmp_path / "q.parquet"
    pl.DataFrame({"a=b": [float(i) for i in range(1, 9)], "y_true": [1, 0] * 4,
                  "y_pred": [1, 0] * 4}).write_parquet(path)
    result = runner.invoke(app, ["divergence", str(path), "--by", '"a=b"', "--bins",
                                 '"a=b"=2', "--format", "json"])
    assert result.exit_code == 0, result.stdout + result.stderr
    rows = json.loads(result.stdout)
    # the median of 1..8 cuts at 4: bins "<= 4.0" (1-4) and "> 4.0" (5-8), four rows each
    assert [(r["a=b"], r["n"]) for r in rows] == [("<= 4.0", 4), ("> 4.0", 4)]


# ------------------------------------------------------------------ naive date-times (defect 15)
def test_a_naive_time_means_the_same_in_the_file_and_in_reference(tmp_path: Path) -> None:
    # by hand: 2024-03-30 12:00:00 read as datetime[ms,Europe/Paris] is 12:00 in Paris (CET,
    # +01:00); --reference '2024-03-30 12:00:00' is the same instant, so it names that group
    # (2 rows, both predicted 1: selection rate 1.0). Before, the file's text was read as UTC
    # (13:00 Paris) and the reference in the column's zone (12:00): no such group.
    path = tmp_path / "q.csv"
    path.write_text("d,y_true,y_pred\n2024-03-30 12:00:00,1,1\n2024-03-30 12:00:00,0,1\n"
                    "2024-03-31 12:00:00,1,0\n2024-03-31 12:00:00,0,0\n")
    rows = _json(["report", str(path), "--by", "d", "--dtype", "d=datetime[ms,Europe/Paris]",
                  "--reference", "2024-03-30 12:00:00"])
    assert [(r["d"], r["n"], r["selection_rate"], r["is_reference"]) for r in rows] == [
        ("2024-03-30T12:00:00+01:00", 2, 1.0, True),
        ("2024-03-31T12:00:00+02:00", 2, 0.0, False)]
    # a text with an offset is converted: 11:00 UTC is 12:00 in Paris that day
    rows = _json(["report", str(path), "--by", "d", "--dtype", "d=datetime[ms,Europe/Paris]",
                  "--reference", "2024-03-30T11:00:00+00:00"])
    assert [r["d"] for r in rows if r["is_reference"]] == ["2024-03-30T12:00:00+01:00"]


def test_an_unknown_date_time_reference_lists_groups_as_text(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("d,y_true,y_pred\n2024-03-30 12:00:00,1,1\n2024-03-30 12:00:00,0,1\n")
    result = runner.invoke(app, ["report", str(path), "--by", "d", "--dtype",
                                 "d=datetime[ms,Europe/Paris]", "--reference",
                                 "2024-03-30 13:00:00", "--format", "json"])
    assert result.exit_code == 2
    message = json.loads(result.stdout)["message"]
    assert "the groups are: '2024-03-30 12:00:00+01:00' (each as --reference" in message
