"""An attribute whose groups are one row each is refused at any size (issue 20, fix 20a item 1).

The one-row-per-level guard used to start at 8 levels, so a filter that left a few people
(``--where 'id < 8'`` on COMPAS: six defendants) printed each one's name. From
:data:`~polars_fair.counting.boundary.MIN_LEVELS_ALL_SINGLE` (3) groups that are each a single row,
the attribute is refused on every way in, with counts and the dtype only. COMPAS's names are read
here only to count how many appear in an output (which must be none); they are never printed.
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
from polars_fair.counting.boundary import MIN_LEVELS_ALL_SINGLE, too_fine
from tests.conftest import COMPAS_CSV, Runner, require

runner = CliRunner()

#: Three people, one row each: the name is the only attribute.
THREE = pl.DataFrame({"name": ["Ann Madeup", "Bob Madeup", "Cy Madeup"],
                      "y_true": [1, 0, 1], "y_pred": [1, 1, 0]})
#: Counts and the dtype, never a name (hand-made: 3 distinct values in 3 rows).
FACTS = "attribute 'name' is a String column with 3 distinct values in 3 rows"


def _no_name(text: str) -> bool:
    return "Madeup" not in text


def test_the_rule_starts_at_three_groups_of_one_row() -> None:
    assert MIN_LEVELS_ALL_SINGLE == 3
    # 3 groups, each a single row: refused; 2 groups of one row: accepted (the docs' smallest
    # example); 3 groups where one holds 2 rows: accepted (7 levels < 8, not every one single)
    assert too_fine(pl.DataFrame({"g": list("abc"), "n": [1, 1, 1]}), ["g"], 3) == (3, True)
    assert too_fine(pl.DataFrame({"g": list("ab"), "n": [1, 1]}), ["g"], 2) == (2, False)
    assert too_fine(pl.DataFrame({"g": list("abc"), "n": [1, 1, 2]}), ["g"], 4) == (3, False)
    # a label table holds several rows per group: a group of two rows split over two cells
    # is not a single row
    cells = pl.DataFrame({"g": ["a", "a", "b", "c"], "n": [1, 1, 1, 1]})
    assert too_fine(cells, ["g"], 4) == (3, False)
    # a null key is not a group
    assert too_fine(pl.DataFrame({"g": ["a", "b", None], "n": [1, 1, 1]}), ["g"], 3) == (2, False)


def test_a_three_row_frame_is_refused_on_every_polars_way(run: Runner) -> None:
    for method in ("report", "confusion", "pairwise"):
        with pytest.raises(E.TooManyLevelsError) as info:
            run(THREE, method, "name")
        assert str(info.value).startswith(FACTS), str(info.value)
        assert _no_name(str(info.value))


def test_a_three_row_frame_is_refused_by_the_other_analyses() -> None:
    calls = (lambda: THREE.fair.counts("name").summary().collect(),
             lambda: THREE.fair.bias_audit("name", y_pred="y_pred"),
             lambda: THREE.fair.divergence("name"))
    for call in calls:
        with pytest.raises(E.TooManyLevelsError) as info:
            call()
        assert "3 distinct values in 3 rows" in str(info.value)
        assert _no_name(str(info.value))


def test_with_a_second_row_per_person_the_groups_are_accepted() -> None:
    # the same three names on two rows each: groups of two rows (7 levels < 8), a report
    twice = pl.concat([THREE, THREE])
    assert twice.fair.report("name", min_support=1)["n"].to_list() == [2, 2, 2]


def test_duckdb_and_a_count_table_made_elsewhere_refuse_it() -> None:
    table = pl.DataFrame({"name": ["Ann Madeup", "Bob Madeup", "Cy Madeup"], "n": [1, 1, 1],
                          "tp": [1, 0, 0], "fp": [0, 1, 0], "fn": [0, 0, 1], "tn": [0, 0, 0]})
    with pytest.raises(E.TooManyLevelsError) as info:
        polars_fair.from_counts(table).report().collect()
    assert str(info.value).startswith(FACTS) and _no_name(str(info.value))
    duckdb = pytest.importorskip("duckdb")
    with pytest.raises(E.TooManyLevelsError) as info:
        polars_fair.counts(duckdb.from_arrow(THREE.to_arrow()), "name").report().collect()
    assert str(info.value).startswith(FACTS) and _no_name(str(info.value))


def _compas_names() -> set[str]:
    raw = pl.read_csv(require(COMPAS_CSV), columns=["name"], infer_schema_length=0)
    return {v for v in raw["name"].to_list() if v}


def _names_in(text: str, names: set[str]) -> int:
    """How many COMPAS names ``text`` holds (counted, never printed)."""
    return sum(1 for n in names if n in text)


COMPAS_FLAGS = ["--where", "id < 8", "--y-true", "two_year_recid", "--y-pred", "decile_score >= 5"]


@pytest.mark.data
def test_compas_filtered_to_six_defendants_prints_no_name(tmp_path: Path) -> None:
    names = _compas_names()
    csv = str(require(COMPAS_CSV))
    page = tmp_path / "audit.html"
    calls = [["report", csv, "--by", "name", *COMPAS_FLAGS],
             ["report", csv, "--by", "name", *COMPAS_FLAGS, "--html", str(page)],
             ["check", csv, "--by", "name", *COMPAS_FLAGS],
             ["pairwise", csv, "--by", "name", *COMPAS_FLAGS],
             ["divergence", csv, "--by", "name", *COMPAS_FLAGS],
             ["bias-audit", csv, "--category", "name", "--where", "id < 8",
              "--y-pred", "decile_score >= 5"]]
    for args in calls:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args[0]
        assert "'name' is a String column with 6 distinct values in 6 rows" in result.output
        assert _names_in(result.output, names) == 0, args[0]
    assert not page.exists()  # no page is written
    # the JSON error is the same, counts only
    result = runner.invoke(app, ["report", csv, "--by", "name", *COMPAS_FLAGS, "--format", "json"])
    assert result.exit_code == 2
    assert _names_in(json.loads(result.stdout)["message"], names) == 0


@pytest.mark.data
def test_compas_head_six_in_python_prints_no_name() -> None:
    names = _compas_names()
    df = (pl.read_csv(require(COMPAS_CSV), columns=["name", "two_year_recid", "decile_score"])
          .head(6).select("name", y_true="two_year_recid",
                          y_pred=(pl.col("decile_score") >= 5).cast(pl.Int64)))
    with pytest.raises(E.TooManyLevelsError) as info:
        df.fair.report("name")
    assert "6 distinct values in 6 rows" in str(info.value)
    assert _names_in(str(info.value), names) == 0
