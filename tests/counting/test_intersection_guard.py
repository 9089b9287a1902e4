"""The one-row-per-level guard applies to the groups actually counted (issue 20, fix item 1).

Two attributes each fine alone can name people together (a first name and an age): the rule of
an attribute (8 or more levels, and fewer than two rows per level on average or half of the
levels or more on a single row) applies to their intersection too, on every way in and in the
command line, with a message that names the attributes and gives counts only. The advice is
followed and checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.counting.boundary import too_fine
from tests.conftest import COMPAS_CSV, Runner, require

runner = CliRunner()

#: a: 10 levels of 10 rows, b: 10 levels of 10 rows, a x b: 100 groups of one row each.
ROWS = pl.DataFrame({
    "a": [f"a{i % 10}" for i in range(100)], "b": [f"b{i // 10}" for i in range(100)],
    "y_true": [i % 2 for i in range(100)], "y_pred": [(i // 2) % 2 for i in range(100)]})


def test_each_attribute_alone_is_fine_and_the_intersection_is_refused(run: Runner) -> None:
    for by in ("a", "b"):  # 10 groups of 10 rows each
        assert run(ROWS, "report", by)["n"].to_list() == [10] * 10
    with pytest.raises(E.TooManyLevelsError) as info:
        run(ROWS, "report", ["a", "b"])
    assert str(info.value) == E.FINE_INTERSECTION.format(
        # what was counted: 100 groups (>= 100) in 100 rows, fewer than two rows each
        columns="'a', 'b'", levels=100, rows=100, why="fewer than two rows per group on average",
        advice=E.INTERSECTION_ADVICE)
    assert "a0" not in str(info.value) and "b0" not in str(info.value)  # counts only


def test_following_the_advice_works() -> None:
    # leave one of them out: 10 groups of 10 rows
    assert ROWS.fair.report("a")["n"].to_list() == [10] * 10
    # or map one to a few categories: b0..b4 -> low, b5..b9 -> high; a x that = 20 groups of 5
    few = pl.when(pl.col("b") < "b5").then(pl.lit("low")).otherwise(pl.lit("high")).alias("bb")
    out = ROWS.fair.report(["a", few])
    assert out.height == 20 and out["n"].to_list() == [5] * 20


def test_every_analysis_and_combinations_refuse_it() -> None:
    for call in (lambda: ROWS.fair.counts(["a", "b"]).summary().collect(),
                 lambda: ROWS.fair.pairwise(["a", "b"]),
                 lambda: ROWS.fair.counts(["a", "b"], combinations="all").report().collect()):
        with pytest.raises(E.TooManyLevelsError, match="together form 100 groups in 100 rows"):
            call()


def test_a_count_table_made_elsewhere_is_checked_the_same() -> None:
    table = ROWS.group_by("a", "b").agg(
            pl.len().cast(pl.Int64).alias("n"),
            ((pl.col("y_true") == 1) & (pl.col("y_pred") == 1)).sum().cast(pl.Int64).alias("tp"),
            ((pl.col("y_true") == 0) & (pl.col("y_pred") == 1)).sum().cast(pl.Int64).alias("fp"),
            ((pl.col("y_true") == 1) & (pl.col("y_pred") == 0)).sum().cast(pl.Int64).alias("fn"),
            ((pl.col("y_true") == 0) & (pl.col("y_pred") == 0)).sum().cast(pl.Int64).alias("tn"))
    with pytest.raises(E.TooManyLevelsError) as info:
        polars_fair.from_counts(table).report().collect()
    assert str(info.value).endswith("leave one of them out of the keys, or map their values "
                                    "to a few categories first")


def test_duckdb_refuses_it_too() -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(ROWS.to_arrow())
    with pytest.raises(E.TooManyLevelsError, match="attributes 'a', 'b' together form 100"):
        polars_fair.counts(rel, ["a", "b"]).report().collect()


def test_divergence_shows_only_supported_patterns_and_is_not_refused() -> None:
    out = ROWS.fair.divergence(["a", "b"], min_support=0.05)
    # patterns of 5 rows or more: the 10 a's and the 10 b's (10 rows each), no pair (1 row)
    assert out["n"].to_list() == [10] * 20


def test_an_attribute_with_most_levels_on_one_row_is_refused() -> None:
    # 8 names on one row each and 2 on 10 rows: 2.8 rows per level on average, but 8 of the
    # 10 levels hold a single row (as a first name does), so they identify people
    names = [f"p{i}" for i in range(8)] + ["q"] * 10 + ["r"] * 10
    df = pl.DataFrame({"name": names, "y_true": [1, 0] * 14, "y_pred": [1, 1, 0, 0] * 7})
    assert too_fine(pl.DataFrame({"name": names, "n": [1] * 28}), ["name"], 28) == (10, True)
    with pytest.raises(E.TooManyLevelsError, match="'name' is a String column with 10 distinct"):
        df.fair.report("name")
    # 10 levels, 2 of them single: 3 or more rows each otherwise, 26 / 10 on average -> fine
    assert too_fine(pl.DataFrame({"g": list("abcdefghij"), "n": [1, 1] + [3] * 8}),
                    ["g"], 26) == (10, False)


def _csv(tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    return path


def test_the_command_line_names_both_flags_and_the_advice_works(tmp_path: Path) -> None:
    path = str(_csv(tmp_path))
    for command in ("report", "check"):
        result = runner.invoke(app, [command, path, "--by", "a", "--by", "b", "--format", "json"])
        assert result.exit_code == 2
        message = json.loads(result.stdout)["message"]
        assert message == E.intersection_error(
            ["a", "b"], 100, 100, why=E.WHY_FEW_ROWS.format(unit="group")).cli_message
        assert message.endswith("leave one of --by a or --by b out, or map their values to a "
                                "few categories first with a CASE expression")
    # followed: leave --by b out
    ok = runner.invoke(app, ["report", path, "--by", "a", "--format", "json"])
    assert ok.exit_code == 0, ok.stdout
    assert [r["n"] for r in json.loads(ok.stdout)] == [10] * 10
    # followed: a CASE expression maps b to two categories (20 groups of 5 rows)
    case = "CASE WHEN b < 'b5' THEN 'low' ELSE 'high' END AS bb"
    ok = runner.invoke(app, ["report", path, "--by", "a", "--by", case, "--format", "json"])
    assert ok.exit_code == 0, ok.stdout
    assert [r["n"] for r in json.loads(ok.stdout)] == [5] * 20


def test_compas_intersections_print_no_name_and_no_value(tmp_path: Path) -> None:
    """COMPAS: a first name with an age, and age x priors x decile (each fine alone, 2,683
    groups in 7,214 rows, 1,500 on one row), are refused with counts only."""
    path = str(require(COMPAS_CSV))
    firsts = set(pl.read_csv(path, columns=["first"])["first"].drop_nulls().to_list())
    for by in (["first", "age"], ["age", "priors_count", "decile_score"]):
        args = [a for b in by for a in ("--by", b)]
        result = runner.invoke(app, ["report", path, *args, "--y-true", "two_year_recid",
                                     "--y-pred", "is_recid"])
        assert result.exit_code == 2
        words = set(result.output.replace("'", " ").replace(",", " ").split())
        leaked = len(words & firsts)  # a count, so a failure prints no name
        assert leaked == 0
        assert "distinct values in 7,214 rows" in result.output or \
            "groups in 7,214 rows" in result.output
    result = runner.invoke(app, ["report", path, "--by", "age", "--by", "priors_count", "--by",
                                 "decile_score", "--y-true", "two_year_recid", "--y-pred",
                                 "is_recid"])
    assert "together form 2,683 groups in 7,214 rows" in result.output


def test_combinations_check_the_sets_shown_not_the_finest_table() -> None:
    # a, b, c: 8 x 8 x 2 = 128 cells over 128 rows (one row each) are never shown with
    # max_order=2; the pairs shown: a x c is 16 groups of 8 rows (fine), a x b is 64 groups of
    # 2 rows, 2 * 64 = 128 rows, not fewer than two rows per group on average and no group of
    # one row: fine. So the call is accepted, though the finest table is one row per cell.
    rows = [(f"a{i}", f"b{j}", f"c{k}") for i in range(8) for j in range(8) for k in range(2)]
    df = pl.DataFrame(rows, schema=["a", "b", "c"], orient="row").with_columns(
        y_true=pl.lit(1), y_pred=pl.lit(1))
    out = df.fair.confusion(["a", "b", "c"], combinations="all", max_order=2)
    sizes = {tuple(k): n for k, n in out.group_by("attributes").agg(pl.len()).rows()}
    assert sizes[("a", "b")] == 64 and sizes[("a", "c")] == 16 and ("a", "b", "c") not in sizes
    # asking for the finest set itself is refused: 128 groups of one row each
    with pytest.raises(E.TooManyLevelsError, match="together form 128 groups in 128 rows"):
        df.fair.confusion(["a", "b", "c"], combinations="all")


def test_an_intersection_with_a_quarter_of_one_row_cells_is_refused() -> None:
    """The intersection rule (INTERSECTION_SINGLE_SHARE, issue 20 fix item 5): from 100 groups,
    a quarter of them or more on a single row. Hand-built: 100 groups, 1,000 rows."""
    from polars_fair.counting.boundary import INTERSECTION_SINGLE_SHARE

    assert INTERSECTION_SINGLE_SHARE == 0.25
    # 25 groups of 1 row and 75 of (1,000 - 25) / 75 = 13 rows: 25 / 100 = a quarter: refused
    quarter = pl.DataFrame({"a": [i % 10 for i in range(100)], "b": [i // 10 for i in range(100)],
                            "n": [1] * 25 + [13] * 75})
    assert too_fine(quarter, ["a", "b"], 1_000) == (100, True)
    # 24 groups of 1 row (24% < 25%), 76 of 13 rows, 1,012 rows: accepted
    fewer = quarter.with_columns(n=pl.Series([1] * 24 + [13] * 76))
    assert too_fine(fewer, ["a", "b"], 1_012) == (100, False)
    # one attribute keeps its rule, half of the levels: 25 of 100 levels on one row is fine
    single = pl.DataFrame({"a": list(range(100)), "n": [1] * 25 + [13] * 75})
    assert too_fine(single, ["a"], 1_000) == (100, False)


def test_compas_sex_race_age_priors_is_refused_with_counts_only() -> None:
    """sex x race x age x priors_count on COMPAS: the review counted 2,246 groups, 1,117 of one
    person (49.7%, under half: printed before); now refused. Counted here independently with a
    plain Polars group-by (asserted, never printed)."""
    path = str(require(COMPAS_CSV))
    keys = ["sex", "race", "age", "priors_count"]
    cells = pl.read_csv(path, columns=keys).group_by(keys).len()
    assert cells.height == 2_246 and int((cells["len"] == 1).sum()) == 1_117
    args = [a for k in keys for a in ("--by", k)]
    result = runner.invoke(app, ["report", path, *args, "--y-true", "two_year_recid",
                                 "--y-pred", "is_recid"])
    assert result.exit_code == 2
    assert "together form 2,246 groups in 7,214 rows" in result.stderr
    assert result.stdout == ""  # no table, so no cell of one person
    # the Python surface refuses the same cells
    frame = pl.read_csv(path, columns=[*keys, "two_year_recid", "is_recid"])
    with pytest.raises(E.TooManyLevelsError, match="2,246 groups"):
        frame.fair.report(keys, y_true="two_year_recid", y_pred="is_recid")
