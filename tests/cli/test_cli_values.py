"""Issue 19, kind 8: values the command line could not write.

``--reference`` splits only before ``<attribute>=``, so a category may hold commas (and a value
in double quotes is read whole). A blank category read from a file, an empty field or a quoted
empty field ``""`` alike, is missing (null) in every command: never a group or a reference of
its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.cli.io import blank_as_null, parse_reference, scan

runner = CliRunner()


def _json(*args: str) -> tuple[int, object]:
    result = runner.invoke(app, [*args, "--format", "json"])
    return result.exit_code, json.loads(result.stdout)


# ------------------------------------------------------------------ --reference with commas
@pytest.fixture()
def comma_data(tmp_path: Path) -> Path:
    # 3 groups: ("White, non-Hispanic", M) 4 rows, 3 selected; ("Black", M) 4 rows, 1 selected;
    # ("White, non-Hispanic", F) 2 rows, 2 selected
    path = tmp_path / "people.csv"
    pl.DataFrame({
        "race": ["White, non-Hispanic"] * 4 + ["Black"] * 4 + ["White, non-Hispanic"] * 2,
        "sex": ["M"] * 8 + ["F"] * 2,
        "y_true": [1, 0, 1, 0, 1, 0, 1, 0, 1, 0],
        "y_pred": [1, 1, 1, 0, 1, 0, 0, 0, 1, 1],
    }).write_csv(path)
    return path


@pytest.mark.parametrize("text", ["race=White, non-Hispanic,sex=M",
                                  'race="White, non-Hispanic",sex=M',
                                  "sex=M,race=White, non-Hispanic"])
def test_a_reference_category_may_hold_a_comma(comma_data: Path, text: str) -> None:
    code, rows = _json("report", str(comma_data), "--by", "race", "--by", "sex",
                       "--reference", text)
    assert code == 0, rows
    assert isinstance(rows, list)
    ref = [r for r in rows if r["is_reference"]]
    assert [(r["race"], r["sex"]) for r in ref] == [("White, non-Hispanic", "M")]
    # by hand: Black men select 1 of 4 against 3 of 4 for the reference: DI = (1/4) / (3/4)
    black = next(r for r in rows if r["race"] == "Black")
    assert black["disparate_impact"] == pytest.approx(1 / 3)


def test_parse_reference_by_hand() -> None:
    lf = pl.LazyFrame({"race": ["a"], "sex": ["M"], "age": [30]})
    by: list[str | pl.Expr] = ["race", "sex"]
    assert parse_reference("race=a, b,sex=M", lf, by) == {"race": "a, b", "sex": "M"}
    assert parse_reference('race="x,sex=y",sex=M', lf, by) == {"race": "x,sex=y", "sex": "M"}
    assert parse_reference('race="say ""hi""",sex=M', lf, by) == {"race": 'say "hi"', "sex": "M"}
    assert parse_reference("race=a=b,sex=M", lf, by) == {"race": "a=b", "sex": "M"}
    with pytest.raises(E.InvalidArgumentError, match="names 'race' twice"):
        parse_reference("race=a,sex=M,race=b", lf, by)
    with pytest.raises(E.InvalidArgumentError, match="double quotes"):
        parse_reference('race="a', lf, by)


# ------------------------------------------------------------------ blank categories
@pytest.fixture()
def blanks(tmp_path: Path) -> Path:
    """6 rows of group a, 2 with an empty field, 2 with a quoted empty field ``""``."""
    path = tmp_path / "blanks.csv"
    path.write_text(
        "g,y_true,y_pred\n"
        "a,1,1\na,0,1\na,1,0\na,0,0\na,1,1\na,0,0\n"
        ",1,1\n,0,0\n"
        '"",1,0\n"",0,0\n'
    )
    return path


def test_an_empty_and_a_quoted_empty_field_are_the_same_missing_value(blanks: Path) -> None:
    assert scan(blanks).collect()["g"].to_list() == ["a"] * 6 + [None] * 4
    assert blank_as_null(pl.LazyFrame({"g": [" ", "\t", "b"]})).collect()["g"].to_list() == [
        None, None, "b"]


def test_report_refuses_or_keeps_every_blank_category_alike(blanks: Path) -> None:
    code, err = _json("report", str(blanks), "--by", "g", "--y-pred", "y_pred",
                      "--null-groups", "raise")
    assert code != 0 and isinstance(err, dict) and err["error"] == "NullGroupError"
    code, rows = _json("report", str(blanks), "--by", "g", "--y-pred", "y_pred")  # keep
    assert code == 0 and isinstance(rows, list)
    # by hand: a (6 rows, y_pred 1 1 0 0 1 0: 3 selected) and one missing group holding the 2
    # empty and the 2 quoted empty fields (y_pred 1 0 0 0: 1 selected)
    assert sorted((r["g"] is None, r["n"], r["tp"] + r["fp"]) for r in rows) == [
        (False, 6, 3), (True, 4, 1)]
    assert [r["g"] for r in rows if r["is_reference"]] == ["a"]  # never the blank group


def test_bias_audit_counts_every_blank_category_as_unknown(blanks: Path) -> None:
    code, doc = _json("bias-audit", str(blanks), "--category", "g", "--y-pred", "y_pred")
    assert code == 0 and isinstance(doc, dict)
    assert doc["unknown_category"] == {"g": 4}
    assert [r["g"] for r in doc["results"] if r["g"] is not None] == ["a"]


# ------------------------------------------ a blank label is a missing label (issue 19 item 7)
@pytest.mark.parametrize("blank", [" ", '""', "   "])
def test_a_blank_label_in_a_csv_is_a_missing_label(tmp_path: Path, blank: str) -> None:
    # y_true 1, <blank>, 0, 1 against integer predictions: the label column is an integer
    # column with one missing value, not text of another kind than the prediction
    path = tmp_path / "blank.csv"
    path.write_text(f"g,y_true,y_pred\na,1,1\nb,{blank},1\na,0,0\nb,1,0\n")
    assert scan(path).collect_schema()["y_true"] == pl.Int64
    result = runner.invoke(app, ["report", str(path), "--by", "g"])
    assert result.exit_code == 2
    assert result.output.strip() == "polars-fair: error: " + E.CLI_NULL_LABELS.format(
        column="y_true", role="--y-true", count=1)
    assert "different kinds" not in result.output


def test_blank_values_elsewhere_keep_their_column_types(tmp_path: Path) -> None:
    # a blank category is missing (one group "(missing)"), the labels stay integers
    path = tmp_path / "blank_group.csv"
    path.write_text("g,y_true,y_pred\na,1,1\n ,0,1\na,0,0\n\"\",1,0\n")
    lf = scan(path)
    assert lf.collect_schema()["y_true"] == pl.Int64
    assert lf.collect()["g"].to_list() == ["a", None, "a", None]
