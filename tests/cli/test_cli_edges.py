"""The third fresh-user review's command-line defects, each as a kind (issue 19, items 1, 3, 4).

1. Advice that proposes a rename works as advised: a SQL ``--by '"n" AS n_attr'`` names the key
   ``n_attr`` (its top-level ``AS``), so ``--reference n_attr=a``, the printed table and the JSON
   use that name; every clash advice of the command line is that SQL, followed here.
3. A CSV that cannot be parsed (an unterminated quote, bytes that are not UTF-8, a row with an
   extra field, a binary file, an empty file) gives the fault, its line and a fix that works,
   and shows no row content.
4. ``--reference ''`` lists the missing group as ``(missing)``; the ``report`` header and an
   unknown reference speak the command line (``attr=value``); ``--threshold`` without a score
   reads without stray spaces.

Every expected figure is worked out by hand in the test.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

#: n=a: rows (y 1, p 1), (0, 1), (1, 0): selects 2/3; n=b: (1, 0), (0, 0), (1, 1): selects 1/3
CLASH = ("n,metric,bin,g,g_i,y_true,y_pred,s\n"
         "a,a,a,a,x,1,1,0.9\na,a,a,a,x,0,1,0.8\na,a,a,a,y,1,0,0.2\n"
         "b,b,b,b,y,1,0,0.3\nb,b,b,b,x,0,0,0.1\nb,b,b,b,y,1,1,0.7\n")


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _advice(message: str) -> list[str]:
    """The ``--by '...'`` the message advises, split as a shell would."""
    m = re.search(r"for example (--by .*)$", message)
    assert m, message
    return shlex.split(m.group(1))


@pytest.fixture()
def clash(tmp_path: Path) -> Path:
    path = tmp_path / "clash.csv"
    path.write_text(CLASH)
    return path


# ---------------------------------------------------------- 1. advice that works as advised
def test_the_rename_advice_names_the_key_in_the_reference_table_and_json(clash: Path) -> None:
    code, _, err = _run("report", str(clash), "--by", "n")
    assert code == 2
    advice = _advice(err.strip())
    assert advice == ["--by", '"n" AS n_attr']
    code, out, err = _run("report", str(clash), *advice, "--reference", "n_attr=a",
                          "--min-support", "1", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert [(r["n_attr"], r["n"], r["selection_rate"], r["is_reference"]) for r in rows] == [
        ("a", 3, 2 / 3, True), ("b", 3, 1 / 3, False)]
    assert rows[1]["impact_ratio"] == 0.5  # (1/3) / (2/3)
    code, out, err = _run("report", str(clash), *advice, "--reference", "n_attr=b",
                          "--min-support", "1")
    assert code == 0, err
    assert "n_attr" in out.splitlines()[3] or any(" n_attr " in line for line in out.splitlines())
    assert "reference group: n_attr=b (3 rows; given)" in out
    code, out, _ = _run("report", str(clash), *advice, "--min-support", "1", "--format", "csv")
    assert out.splitlines()[0].startswith("n_attr,n,")


@pytest.mark.parametrize(("command", "column", "extra", "key"), [
    ("summary", "metric", [], "group_1"),  # a summary names groups by value: a, then b
    ("metrics", "metric", [], "metric_attr"),
    ("reliability", "bin", ["--y-score", "s"], "bin_attr"),
    ("pairwise", "g_i", ["--by", "g"], "g_i_attr_i"),  # the pair columns of the new name
])
def test_every_clash_advice_is_sql_that_runs(clash: Path, command: str, column: str,
                                             extra: list[str], key: str) -> None:
    code, _, err = _run(command, str(clash), *extra, "--by", column)
    assert code == 2
    assert "pl." not in err and ".alias(" not in err
    advice = _advice(err.strip())
    assert advice == ["--by", f'"{column}" AS {column}_attr']
    code, out, err = _run(command, str(clash), *extra, *advice, "--format", "json")
    assert code == 0, err
    assert key in json.loads(out)[0]


@pytest.mark.parametrize(("command", "by", "new"), [
    ("report", ["--by", "g AS n"], "g AS n_attr"),  # a SQL key named like an output column
    ("report", ["--by", "UPPER(g) AS n"], "UPPER(g) AS n_attr"),
    ("summary", ["--by", "g AS metric"], "g AS metric_attr"),
    ("pairwise", ["--by", "g", "--by", "metric AS g_i"], "metric AS g_i_attr"),
])
def test_a_sql_key_named_like_an_output_is_renamed_by_its_as(clash: Path, command: str,
                                                             by: list[str], new: str) -> None:
    # the advice rewrites the SQL's own AS; '"n" AS n_attr' would read the column n instead
    code, _, err = _run(command, str(clash), *by)
    assert code == 2
    advice = _advice(err.strip())
    assert advice == ["--by", new]
    code, out, err = _run(command, str(clash), *by[:-2], *advice, "--format", "json")
    assert code == 0, err
    # and a column of that name still gets the column's advice in the next command
    if command == "summary":
        code, _, err = _run(command, str(clash), "--by", "metric")
        assert _advice(err.strip()) == ["--by", '"metric" AS metric_attr']


def test_a_quoted_alias_and_a_cast_inside_parentheses(clash: Path) -> None:
    # 'g AS "my key"' is the key "my key"; the AS of CAST(...) names nothing (the text stays)
    code, out, err = _run("confusion", str(clash), "--by", 'g AS "my key"', "--format", "json")
    assert code == 0, err
    assert [(r["my key"], r["n"]) for r in json.loads(out)] == [("a", 3), ("b", 3)]
    code, out, err = _run("confusion", str(clash), "--by", "CAST(y_true AS VARCHAR)",
                          "--format", "json")
    assert code == 0, err
    assert [r["CAST(y_true AS VARCHAR)"] for r in json.loads(out)] == ["0", "1"]


def test_calibration_by_a_column_named_bin_runs(clash: Path) -> None:
    # formerly Polars' DuplicateError: "bin" was a working column of calibration. By hand, bins
    # [0, 0.5] and (0.5, 1] (n_bins 2): a's scores 0.9, 0.8 (labels 1, 0: mean 0.85, positives
    # 0.5, gap 0.35) and 0.2 (label 1: gap 0.8): ECE (2·0.35 + 0.8) / 3 = 0.5
    code, out, err = _run("calibration", str(clash), "--by", "bin", "--y-score", "s",
                          "--n-bins", "2", "--format", "json")
    assert code == 0, err
    assert json.loads(out)[0]["ece"] == pytest.approx(0.5, abs=1e-12)


# --------------------------------------------------------------------- 3. CSV that cannot be read
PERSON = "Jane Q. Example of 12 Any Street, Springfield"


@pytest.mark.parametrize(("content", "template", "line"), [
    # line 3 opens a quote that never closes
    (f'g,y_true,y_pred\na,1,1\n"{PERSON},0,1\nb,1,0\n', E.CSV_BAD_QUOTE, 3),
    # a quote inside an unquoted field at line 2
    (f'g,y_true,y_pred\n{PERSON} 5" tall,1,1\nb,1,0\n', E.CSV_BAD_QUOTE, 2),
])
def test_a_malformed_csv_names_the_fault_and_line_and_no_row_content(
        tmp_path: Path, content: str, template: str, line: int) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = _run("report", str(path), "--by", "g", "--format", "json")
    assert code == 2
    error = json.loads(out)
    assert error["error"] == "InvalidInputError"
    assert error["message"] == template.format(path="bad.csv", line=line)
    assert "Jane" not in err and "Street" not in err and "--dtype" not in err


def test_a_row_with_an_extra_field_shows_no_row_content(tmp_path: Path) -> None:
    path = tmp_path / "extra.csv"
    path.write_text(f"g,y_true,y_pred\na,1,1\n{PERSON},0,1,9\nb,1,0\n")
    code, out, err = _run("report", str(path), "--by", "g", "--format", "json")
    assert code == 2
    # issue 19, fourth review, item 8: the file and the line (3), counted: PERSON holds one
    # comma, so the row has 5 fields for a header of 3
    assert json.loads(out)["message"] == E.CSV_EXTRA_FIELDS.format(
        path="extra.csv", line=3, found=5, expected=3)
    assert "Jane" not in err
    # the advice: quote the field that holds the separator (the fixed file has two rows per
    # group: three groups of one row each would be refused as identifying, issue 20)
    path.write_text(f'g,y_true,y_pred\na,1,1\na,0,0\n"{PERSON}",0,1\n"{PERSON}",1,1\n'
                    'b,1,0\nb,0,0\n')
    code, out, err = _run("confusion", str(path), "--by", "g", "--format", "json")
    assert code == 0, err
    assert [r["n"] for r in json.loads(out)] == [2, 2, 2]


def test_following_the_quote_advice_reads_the_file(tmp_path: Path) -> None:
    # the advice: a field holding a quote is quoted whole with the quote doubled
    path = tmp_path / "fixed.csv"
    path.write_text('g,y_true,y_pred\na,1,1\n"b ""5"" tall",0,1\n"b ""5"" tall",1,1\na,0,0\n')
    code, out, err = _run("confusion", str(path), "--by", "g", "--format", "json")
    assert code == 0, err
    assert [(r["g"], r["n"], r["tp"], r["fp"]) for r in json.loads(out)] == [
        ("a", 2, 1, 0), ('b "5" tall', 2, 1, 1)]


def test_a_file_that_is_not_utf8_names_its_line_and_the_conversion_works(tmp_path: Path) -> None:
    path = tmp_path / "latin.csv"
    path.write_bytes("g,y_true,y_pred\na,1,1\nJosé,0,1\na,0,0\n".encode("latin-1"))
    code, out, err = _run("report", str(path), "--by", "g", "--format", "json")
    assert code == 2
    message = json.loads(out)["message"]
    assert message.startswith("latin.csv: line 3 holds bytes that are not UTF-8 text")
    assert "Jos" not in message
    # the advice converts from latin1: done here as iconv would
    converted = tmp_path / "utf8-latin.csv"
    converted.write_text(path.read_bytes().decode("latin-1"), encoding="utf-8")
    code, out, err = _run("confusion", str(converted), "--by", "g", "--format", "json")
    assert code == 0, err
    assert [(r["g"], r["n"]) for r in json.loads(out)] == [("José", 1), ("a", 2)]


def test_a_binary_and_an_empty_file_are_named_as_such(tmp_path: Path) -> None:
    binary = tmp_path / "image.csv"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00" + bytes(range(256)))
    code, out, _ = _run("report", str(binary), "--by", "g", "--format", "json")
    assert code == 2
    assert json.loads(out)["message"] == E.CSV_BINARY.format(path="image.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    code, out, _ = _run("report", str(empty), "--by", "g", "--format", "json")
    assert code == 2
    assert json.loads(out) == {"status": "error", "error": "EmptyFrameError",
                               "message": E.CSV_EMPTY.format(path="empty.csv"), "exit_code": 2}


def test_a_value_polars_quotes_is_cut_to_40_characters(tmp_path: Path) -> None:
    path = tmp_path / "typed.csv"
    path.write_text(f"g,y_true,y_pred\na,1,1\nb,{PERSON},1\n")
    code, _, err = _run("report", str(path), "--by", "g", "--dtype", "y_true=int64")
    assert code == 2
    for shown in re.findall(r"`([^`]*)`", err):
        assert len(shown) <= 40
    assert "Springfield" not in err


# ---------------------------------------------------------------------------------- 4. smaller
def test_an_unknown_reference_lists_the_missing_group_as_missing(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("g,y_true,y_pred\na,1,1\na,0,1\nb,1,0\n,1,1\n")  # the blank g is missing
    code, _, err = _run("report", str(path), "--by", "g", "--reference", "")
    assert code == 2
    # each group as the shell word --reference takes (h-fix20c items 3, 4): '(missing)' names
    # the missing group
    assert err.strip() == ("polars-fair: error: --reference '' names no group; the groups are: "
                           "'a', 'b', '(missing)' (each as --reference takes it)")


def test_several_attributes_speak_the_command_line(clash: Path) -> None:
    code, _, err = _run("report", str(clash), "--by", "g", "--by", "y_true",
                        "--reference", "g=z,y_true=1")
    assert code == 2
    assert err.strip() == (
        "polars-fair: error: --reference 'g=z,y_true=1' names no group; the groups are: "
        "'g=a,y_true=0', 'g=a,y_true=1', 'g=b,y_true=0', 'g=b,y_true=1' (each as --reference "
        "takes it)")
    code, out, err = _run("report", str(clash), "--by", "g", "--by", "y_true",
                          "--reference", "g=a,y_true=1", "--min-support", "1")
    assert code == 0, err
    header = " ".join(out.splitlines()[:2])
    assert "reference=g=a,y_true=1 " in header + " " and "{" not in header  # a shell word


def test_the_threshold_message_has_no_stray_spaces(clash: Path) -> None:
    code, _, err = _run("report", str(clash), "--by", "g", "--threshold", "0.5")
    assert code == 2
    assert err.strip() == (
        "polars-fair: error: --threshold applies to --y-score, which is not given; pass "
        "--y-score with --threshold, or drop --threshold to use --y-pred")
