"""Issue 19 kind 7: one guard, one message, on every way in.

The same bad input is refused with the same type and message from rows, a count table, a score
table, DuckDB and the command line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app


def _message(call: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(E.PolarsFairError) as info:
        call()
    return type(info.value), str(info.value)


def _facts(message: str) -> str:
    """A level error's facts: its message before the advice."""
    return message.split("); ")[0]


# ------------------------------------------------------------------ attribute levels
# 60 float levels, each level one row with label 1 and prediction 1 twice (n = 2)
FLOATS = pl.DataFrame({"x": [i / 10 for i in range(60) for _ in range(2)],
                       "y_true": [1, 0] * 60, "y_pred": [1, 1] * 60})
# 10 integer levels of one row each: fewer than two rows per level, 10 >= 8 levels
AGES = pl.DataFrame({"age": list(range(20, 30)), "y_true": [1, 0] * 5, "y_pred": [1] * 10})


@pytest.mark.parametrize("rows", [FLOATS, AGES], ids=["60 float levels", "one row per level"])
def test_a_count_table_gets_the_rows_level_guard(rows: pl.DataFrame) -> None:
    key = rows.columns[0]
    on_rows = _message(lambda: rows.fair.report(key))
    counts = rows.group_by(key).agg(
        n=pl.len().cast(pl.Int64),
        tp=((pl.col("y_true") == 1) & (pl.col("y_pred") == 1)).sum().cast(pl.Int64),
        fp=((pl.col("y_true") == 0) & (pl.col("y_pred") == 1)).sum().cast(pl.Int64),
        fn=((pl.col("y_true") == 1) & (pl.col("y_pred") == 0)).sum().cast(pl.Int64),
        tn=((pl.col("y_true") == 0) & (pl.col("y_pred") == 0)).sum().cast(pl.Int64),
    )
    on_counts = _message(lambda: polars_fair.from_counts(counts, key).report().collect())
    # the same guard and facts; the advice is the one a table can follow (review of issue 19,
    # defect 10: by=pl.col(...).bin_quantiles(...) cannot be passed to a table, so the old
    # identical message was wrong there)
    table_advice = E.TABLE_LEVELS_ADVICE.format(column=key)
    assert on_counts[0] is on_rows[0] is E.TooManyLevelsError
    assert _facts(on_counts[1]) == _facts(on_rows[1])
    assert on_counts[1].endswith(table_advice)
    # a score table of the same rows (one score each): positives + negatives count the rows
    scores = counts.select(key, score=pl.lit(0.5), positives=pl.col("tp") + pl.col("fn"),
                           negatives=pl.col("fp") + pl.col("tn"))
    on_scores = _message(lambda: polars_fair.from_scores(scores, key).abroca().collect())
    on_score_rows = _message(lambda: rows.with_columns(s=pl.lit(0.5)).fair.abroca(
        key, y_score="s"))
    assert on_score_rows == on_rows
    assert on_scores == on_counts


def test_the_level_guard_reads_the_message_of_the_rows() -> None:
    # by hand: 10 distinct ages in 10 rows (the message shows counts, never values)
    kind, message = _message(lambda: polars_fair.from_counts(pl.DataFrame({
        "age": list(range(20, 30)), "n": [1] * 10, "tp": [1] * 10, "fp": [0] * 10,
        "fn": [0] * 10, "tn": [0] * 10})).report().collect())
    assert kind is E.TooManyLevelsError
    # what was counted: each of the 10 values is a single row
    why = E.WHY_ALL_SINGLE.format(levels=10, unit="value")
    assert message == str(E.levels_error("age", pl.Int64(), 10, 10, kind="number", why=why,
                                         way="table"))
    assert "each of the 10 values is a single row, so it cannot form groups" in message
    assert _facts(message) == _facts(str(E.levels_error("age", pl.Int64(), 10, 10,
                                                        kind="number", why=why)))


def test_a_count_table_with_two_rows_per_level_is_accepted() -> None:
    # 8 ages with 2 rows each: 2 * 8 = 16 is not above 16 rows, so the ages are groups
    table = pl.DataFrame({"age": list(range(8)), "n": [2] * 8, "tp": [1] * 8, "fp": [1] * 8,
                          "fn": [0] * 8, "tn": [0] * 8})
    out = polars_fair.from_counts(table).report(min_support=1).collect()
    assert out["selection_rate"].to_list() == [1.0] * 8


# ------------------------------------------------------------------ reference attributes
PEOPLE = pl.DataFrame({"race": ["A", "B"] * 4, "sex": ["M", "F", "F", "M"] * 2,
                       "y_true": [1, 0] * 4, "y_pred": [1, 1, 0, 0] * 2,
                       "s": [0.1, 0.2, 0.3, 0.4] * 2})
UNKNOWN_AGE = E.BAD_REFERENCE_MAPPING.format(keys=["race", "sex"], got=["race", "sex", "age"])


@pytest.mark.parametrize("call", [
    lambda ref: PEOPLE.fair.report(["race", "sex"], reference=ref),
    lambda ref: PEOPLE.fair.report(["race", "sex"], combinations="all", reference=ref),
    lambda ref: PEOPLE.fair.disparity(["race", "sex"], reference=ref),
    lambda ref: PEOPLE.fair.summary(["race", "sex"], reference=ref),
    lambda ref: polars_fair.from_counts(PEOPLE.fair.confusion(["race", "sex"])).report(
        reference=ref),
    lambda ref: PEOPLE.fair.abroca(["race", "sex"], y_score="s", reference=ref),
], ids=["report", "combinations", "disparity", "summary", "from_counts", "abroca"])
def test_a_reference_naming_an_attribute_not_audited_is_refused(call: Any) -> None:
    kind, message = _message(lambda: call({"race": "B", "sex": "M", "age": 30}))
    assert (kind, message) == (E.InvalidArgumentError, UNKNOWN_AGE)


def test_a_reference_over_every_attribute_is_read_per_set() -> None:
    # combinations="all": race B, sex M, and (B, M) are the references of their sets
    out = PEOPLE.fair.report(["race", "sex"], combinations="all",
                             reference={"race": "B", "sex": "M"})
    refs = out.filter(pl.col("is_reference")).select("attributes", "race", "sex").rows()
    assert refs == [(["race"], "B", None), (["sex"], None, "M"), (["race", "sex"], "B", "M")]


# ------------------------------------------------------------------ empty column names
EMPTY_BY = E.EMPTY_NAME.format(role="by")


@pytest.mark.parametrize(("by", "want"), [
    ("", EMPTY_BY), (["race", ""], EMPTY_BY),
    # an expression aliased to "" is named with .alias (issue 19 item 5): there is no column
    # "" of its to rename, so df.rename({'': ...}) was advice that does not work
    (pl.col("race").alias(""), E.EMPTY_NAME_EXPR.format(role="by", expr=pl.col("race").alias(""))),
])
def test_an_empty_attribute_name_is_a_typed_error(by: Any, want: str) -> None:
    rows = PEOPLE.with_columns(pl.Series("", list(range(8))))
    assert _message(lambda: rows.fair.report(by)) == (E.InvalidArgumentError, want)


def test_an_empty_key_name_in_a_count_table_is_a_typed_error() -> None:
    # issue 19, fifth review, item 8: the advice renames the table the user holds
    # (table.rename), no longer df.rename, and followed it works
    table = PEOPLE.fair.confusion("race").with_columns(pl.lit(1).alias(""))
    assert _message(lambda: polars_fair.from_counts(table)) == (
        E.InvalidArgumentError, E.EMPTY_NAME_TABLE.format(role="keys"))
    assert "table.rename({'': 'index'})" in E.EMPTY_NAME_TABLE.format(role="keys")
    renamed = eval("table.rename({'': 'index'})", {"table": table})
    assert polars_fair.from_counts(renamed).keys == ["race", "index"]
    scores = pl.DataFrame({"": [0, 1], "score": [0.5, 0.5], "positives": [1, 1],
                           "negatives": [1, 1]})
    assert _message(lambda: polars_fair.from_scores(scores)) == (
        E.InvalidArgumentError, E.EMPTY_NAME_TABLE.format(role="keys"))
    table = scores  # the same advice, followed on the score table
    assert eval("table.rename({'': 'index'})", {"table": table}).columns[0] == "index"


def test_duckdb_refuses_an_empty_attribute_name_typed() -> None:
    """DuckDB renames a column named "" when it reads Arrow (to v5 here): by="" names no
    column of the relation, our typed ColumnNotFoundError listing the columns it has."""
    duckdb = pytest.importorskip("duckdb")
    rows = PEOPLE.with_columns(pl.Series("", list(range(8))))
    rel = duckdb.from_arrow(rows.to_arrow())
    kind, message = _message(lambda: polars_fair.counts(rel, ""))
    assert kind is E.ColumnNotFoundError
    assert message == E.MISSING_COLUMN.format(column="", role="by", available=E.show_columns(
        rel.columns))


# ------------------------------------------------------------------ unreadable CSV rows
def test_a_csv_row_with_an_extra_field_is_a_typed_cli_error(tmp_path: Path) -> None:
    path = tmp_path / "extra.csv"
    path.write_text("g,y_true,y_pred\na,1,1\nb,0,1,extra\na,1,0\n")
    result = CliRunner().invoke(app, ["report", str(path), "--by", "g", "--format", "json"])
    assert result.exit_code == 2
    error = json.loads(result.stdout)
    assert error["error"] == "InvalidInputError"
    # issue 19, fourth review, item 8: the file and line 3 (header, a, then this row)
    assert error["message"] == E.CSV_EXTRA_FIELDS.format(path="extra.csv", line=3, found=4,
                                                         expected=3)
