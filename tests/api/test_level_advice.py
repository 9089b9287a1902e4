"""Level errors give advice that can be followed on each way in (review of issue 19, defect 10).

A count table or score table made elsewhere (``from_counts``, ``from_scores``) cannot take
``by=pl.col(...).bin_quantiles(...)``, and a DuckDB or Spark relation refuses a ``pl.Expr``:
their errors say to bin the attribute in the table, or in the relation, instead. Each test
follows the advice as written and checks that it works.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E

#: 60 float levels of x, 4 rows each (2 positives predicted positive, 2 negatives predicted
#: negative): refused as more than 50 float levels.
TABLE = pl.DataFrame({"x": [i / 10 for i in range(60)], "n": [4] * 60, "tp": [2] * 60,
                      "fp": [0] * 60, "fn": [0] * 60, "tn": [2] * 60})


def test_a_count_table_advises_binning_in_the_table_and_that_works() -> None:
    with pytest.raises(E.TooManyLevelsError) as info:
        polars_fair.from_counts(TABLE).report().collect()
    message = str(info.value)
    assert message.endswith(E.TABLE_LEVELS_ADVICE.format(column="x"))
    assert "bin_quantiles" not in message and "by=" not in message
    # followed: group the table by bins of x and sum the counts; x < 3 holds 30 levels
    binned = (TABLE.group_by(pl.col("x").bin_intervals([3.0], labels=["low", "high"]))
              .agg(pl.col("n", "tp", "fp", "fn", "tn").sum()))
    out = polars_fair.from_counts(binned).report().collect().sort("x")
    # each bin: 30 levels x 4 rows = 120 rows, 60 selected -> selection rate 0.5
    assert out.select(pl.col("x").cast(pl.String), "n", "selection_rate").rows() == [
        ("low", 120, 0.5), ("high", 120, 0.5)]


def test_a_score_table_advises_binning_in_the_table() -> None:
    scores = pl.DataFrame({"x": [i / 10 for i in range(60)] * 2, "score": [0.2] * 60 + [0.8] * 60,
                           "positives": [0] * 60 + [2] * 60, "negatives": [2] * 60 + [0] * 60})
    with pytest.raises(E.TooManyLevelsError) as info:
        polars_fair.from_scores(scores).abroca().collect()
    assert str(info.value).endswith(E.TABLE_LEVELS_ADVICE.format(column="x"))


def test_duckdb_advises_binning_in_the_relation_and_that_works() -> None:
    duckdb = pytest.importorskip("duckdb")
    rows = pl.DataFrame({"x": [float(i) for i in range(60) for _ in range(2)],
                         "y_true": [1, 0] * 60, "y_pred": [1, 0] * 60})
    rel = duckdb.from_arrow(rows.to_arrow())
    with pytest.raises(E.TooManyLevelsError) as info:
        polars_fair.counts(rel, "x").report().collect()
    message = str(info.value)
    assert message.endswith(E.RELATION_LEVELS_ADVICE.format(sql="x", cut="30"))  # 30 in 0..59
    assert "pl.col" not in message
    # followed: the CASE expression of the message, as SQL on the relation
    binned = duckdb.sql("SELECT *, CASE WHEN x < 30 THEN 'under 30' ELSE '30 or more' END AS "
                        "binned FROM rel")
    out = polars_fair.counts(binned, "binned").report().collect().sort("binned")
    # x 0..29: 30 values x 2 rows = 60 rows, half selected
    assert out.select("binned", "n", "selection_rate").rows() == [
        ("30 or more", 60, 0.5), ("under 30", 60, 0.5)]


def test_rows_keep_the_polars_advice() -> None:
    rows = pl.DataFrame({"x": [float(i) for i in range(60) for _ in range(2)],
                         "y_true": [1, 0] * 60, "y_pred": [1, 0] * 60})
    with pytest.raises(E.TooManyLevelsError, match=r"by=pl.col\('x'\).bin_quantiles"):
        rows.fair.report("x")


def test_the_command_line_gives_flags_not_python(tmp_path: Path) -> None:
    """A column named '' and a struct column: the CLI advice names --by, never df.rename or
    pl.col(...); following it (leaving the column out of --by) works."""
    from typer.testing import CliRunner

    from polars_fair.cli.entry import app

    runner = CliRunner()
    csv = tmp_path / "idx.csv"
    csv.write_text(",g,y_true,y_pred\n0,a,1,1\n1,b,0,1\n2,a,0,0\n3,b,1,0\n")
    result = runner.invoke(app, ["report", str(csv), "--by", "", "--format", "json"])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["message"] == E.CLI_EMPTY_NAME.format(role="--by")
    nested = tmp_path / "st.parquet"
    pl.DataFrame({"s": [{"a": 1}, {"a": 2}] * 4, "g": ["a", "b"] * 4, "y_true": [1, 0] * 4,
                  "y_pred": [1, 1, 0, 0] * 2}).write_parquet(nested)
    result = runner.invoke(app, ["report", str(nested), "--by", "s", "--format", "json"])
    assert result.exit_code == 2
    message = json.loads(result.stdout)["message"]
    assert message == E.CLI_BAD_KEY_DTYPE.format(column="s", dtype=pl.Struct({"a": pl.Int64}))
    assert "pl.col" not in message and "rename" not in message
    # followed: leave them out of --by
    for path, rows in ((csv, 2), (nested, 4)):  # g: a and b, half the rows each
        ok = runner.invoke(app, ["report", str(path), "--by", "g", "--format", "json"])
        assert ok.exit_code == 0, ok.stdout
        assert [r["n"] for r in json.loads(ok.stdout)] == [rows, rows]


# ------------------------------------- advice that fits the argument's form (issue 19, item 5)
_ROWS = pl.DataFrame({"g": ["a", "b"] * 6, "y_true": [1, 0, 0, 1] * 3,
                      "y_pred": [1, 1, 0, 0] * 3})


def test_an_unnamed_series_attribute_is_advised_alias_and_the_advice_works() -> None:
    by = pl.lit(pl.Series(["x", "y", "y"] * 4))  # an unnamed Series: its output name is ""
    with pytest.raises(E.InvalidArgumentError) as info:
        _ROWS.fair.confusion(by)
    assert str(info.value) == E.EMPTY_NAME_EXPR.format(role="by", expr=by)
    assert "df.rename" not in str(info.value)  # no column to rename
    # followed: the expression named with .alias('group').
    # rows 0..11: y_true 1,0,0,1 repeated; y_pred 1,1,0,0 repeated; x = rows 0, 3, 6, 9:
    # (y, p) = (1,1) (1,0) (0,0) (0,1) -> tp 1, fn 1, tn 1, fp 1; y = rows 1,2,4,5,7,8,10,11:
    # (0,1) (0,0) (1,1) (0,1) (1,0) (1,1) (0,0) (1,0) -> tp 2, fp 2, fn 2, tn 2
    out = _ROWS.fair.confusion(by.alias("group"))
    assert out.select("group", "n", "tp", "fp", "fn", "tn").rows() == [
        ("x", 4, 1, 1, 1, 1), ("y", 8, 2, 2, 2, 2)]


def test_an_empty_column_name_is_advised_rename_and_the_advice_works() -> None:
    df = _ROWS.with_columns(pl.col("g").alias(""))
    with pytest.raises(E.InvalidArgumentError) as info:
        df.fair.confusion("")
    assert str(info.value) == E.EMPTY_NAME.format(role="by")
    out = df.rename({"": "index"}).fair.confusion("index")  # the advice, as written
    assert out["n"].to_list() == [6, 6]


def test_an_expression_named_like_an_output_column_is_advised_alias_and_it_works() -> None:
    by = pl.col("g").alias("n")
    with pytest.raises(E.InvalidArgumentError) as info:
        _ROWS.fair.confusion(by)
    assert str(info.value) == E.RESERVED_NAME_EXPR.format(names=["n"], example="n_attr")
    # followed (the old advice, by=pl.col('n').alias(...), named a column that does not exist)
    out = _ROWS.fair.confusion(by.alias("n_attr"))
    assert out.columns[0] == "n_attr" and out["n"].to_list() == [6, 6]
