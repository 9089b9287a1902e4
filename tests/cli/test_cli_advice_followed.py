"""The command line's advice, followed as written (issue 20: every suggestion works).

Each test triggers an error through ``polars-fair ...``, reads the advice out of the message
text, runs it, and checks the result. The templates: SQL_WHY_BACKSLASH, CLI_RANGE_TOO_LONG,
CLI_BAD_DTYPE_OPTION, CLI_OUTPUT_SUFFIX, CLI_OUTPUTS_CLASH, CLI_OUTPUT_IS_DIR, CLI_SCORE_ADVICE,
CLI_ONE_OUTCOME, CLI_PAGE_OPTION, PAGE_OUTPUT_IS_DIR (the Python page's) and CLASSES_NOT_LISTED.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

#: 120 rows: g alternates a/b; y_true = i % 2; y_pred = (i // 2) % 2; s = (i % 10) / 10, a score
#: in [0, 0.9]; who is "O'Brien" (every third row: 40 rows, 20 of each group).
N = 120
ROWS = pl.DataFrame({
    "g": ["a", "b"] * (N // 2),
    "who": ["O'Brien" if i % 3 == 0 else "Smith" for i in range(N)],
    "y_true": [i % 2 for i in range(N)],
    "y_pred": [(i // 2) % 2 for i in range(N)],
    "s": [(i % 10) / 10 for i in range(N)],
})


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "d.csv"
    ROWS.write_csv(path)
    return path


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _words(message: str, flag: str) -> list[str]:
    """The shell words after ``flag`` in a message: its value, parsed as bash would."""
    m = re.search(re.escape(flag) + r" ('[^']*'|\"(?:[^\"\\]|\\.)*\"|[^\s,;()]+)", message)
    assert m, message
    return shlex.split(m.group(1))


def _csv(text: str) -> pl.DataFrame:
    return pl.read_csv(text.encode())


def test_sql_backslash_quote_advice_doubles_the_quote_and_selects_the_rows(data: Path) -> None:
    where = "who = 'O\\'Brien'"
    code, _, err = cli("report", str(data), "--by", "g", "--where", where)
    assert code == 2 and "double the quote instead" in err
    m = re.search(r"double the quote instead, as in ('(?:[^']|'')*')", err)
    assert m, err
    assert m.group(1) == "'O''Brien'"
    fixed = where.replace("'O\\'Brien'", m.group(1))  # the string as the advice writes it
    code, out, err = cli("report", str(data), "--by", "g", "--where", fixed, "--format", "csv",
                         "--min-support", "1")
    assert code == 0, err
    # rows 0, 3, 6, ... (i % 3 == 0): 40 rows, i even (g = a) for 20 of them
    assert dict(_csv(out).select("g", "n").rows()) == {"a": 20, "b": 20}


def test_an_unclosed_backslash_string_gets_no_example(data: Path) -> None:
    code, _, err = cli("report", str(data), "--by", "g", "--where", "g = 'a\\' OR 1=1")
    assert code == 2 and "double the quote instead." in err and "as in" not in err


@pytest.mark.slow  # a sweep of 5,001 thresholds: about 10 CPU-seconds
def test_a_range_too_long_advises_a_step_that_runs(data: Path) -> None:
    code, _, err = cli("sweep", str(data), "--by", "g", "--y-score", "s", "--thresholds",
                       "0:1:0.0000001")
    assert code == 2 and "expands to 10,000,001 values" in err
    advice = _words(err, "for example --thresholds")
    # 1 / 9,999 (the default --max-thresholds' 10,000 values) is 0.00010001: 0.0002 is the
    # smallest 1, 2 or 5 times a power of ten above it, and 0:1:0.0002 is 5,001 values
    assert advice == ["0:1:0.0002"] and "(5,001 values)" in err
    code, out, err = cli("sweep", str(data), "--by", "g", "--y-score", "s", "--thresholds",
                         advice[0], "--format", "csv")
    assert code == 0, err
    frame = _csv(out)
    assert frame["threshold"].n_unique() == 5_001 and frame.height == 2 * 5_001


def test_dtype_without_a_column_advises_the_column_given(data: Path) -> None:
    for typed, meant in (("g", "g=str"), ("g:str", "g=str")):
        code, _, err = cli("report", str(data), "--by", "g", "--dtype", typed)
        assert code == 2, err
        advice = _words(err, "for example --dtype")
        assert advice == [meant]
        code, out, err = cli("report", str(data), "--by", "g", "--dtype", advice[0],
                             "--format", "csv", "--min-support", "1")
        assert code == 0, err
        assert _csv(out)["g"].to_list() == ["a", "b"]


def test_an_output_suffix_of_no_format_advice_runs_both_ways(data: Path, tmp_path: Path) -> None:
    code, _, err = cli("report", str(data), "--by", "g", "--output", str(tmp_path / "r.xlsx"))
    assert code == 2
    m = re.search(r"use one of ((?:\.\w+, )*\.\w+) \(\.txt for the text table\) or pass --format",
                  err)
    assert m, err
    suffixes = m.group(1).split(", ")
    assert suffixes[0] == ".csv"
    out_csv = tmp_path / ("r" + suffixes[0])  # the first suffix it names
    code, _, err = cli("report", str(data), "--by", "g", "--output", str(out_csv),
                       "--min-support", "1")
    assert code == 0, err
    assert pl.read_csv(out_csv)["n"].to_list() == [60, 60]
    # or --format with the same file
    code, _, err = cli("report", str(data), "--by", "g", "--output", str(tmp_path / "r.xlsx"),
                       "--format", "json", "--min-support", "1")
    assert code == 0, err
    assert [r["n"] for r in json.loads((tmp_path / "r.xlsx").read_text())] == [60, 60]


def test_two_outputs_in_one_file_advice_runs(data: Path, tmp_path: Path) -> None:
    page = tmp_path / "x.html"
    code, _, err = cli("report", str(data), "--by", "g", "--format", "csv", "--output",
                       str(page), "--html", str(page))
    assert code == 2 and err.strip().endswith(E.CLI_OUTPUTS_CLASH.format(path=page))
    assert "pass two different files" in err
    table = tmp_path / "x.csv"
    code, _, err = cli("report", str(data), "--by", "g", "--format", "csv", "--output",
                       str(table), "--html", str(page), "--min-support", "1")
    assert code == 0, err
    assert pl.read_csv(table)["n"].to_list() == [60, 60]
    assert page.read_text().lstrip().lower().startswith("<!doctype html")


@pytest.mark.parametrize(("flag", "fmt", "name"), [("--output", "csv", "report.csv"),
                                                    ("--output", "json", "report.json"),
                                                    ("--html", None, "audit.html")])
def test_an_output_that_is_a_directory_advises_a_file_in_it(
        data: Path, tmp_path: Path, flag: str, fmt: str | None, name: str) -> None:
    folder = tmp_path / ("pages.html" if flag == "--html" else "out")
    folder.mkdir()
    extra = ["--format", fmt] if fmt else []
    code, _, err = cli("report", str(data), "--by", "g", flag, str(folder), *extra)
    assert code == 2 and "is a directory; pass a file name" in err
    advice = _words(err, f"for example {flag}")
    assert advice == [str(folder / name)]
    code, _, err = cli("report", str(data), "--by", "g", flag, advice[0], *extra,
                       "--min-support", "1")
    assert code == 0, err
    written = (folder / name).read_text()
    if fmt == "csv":
        assert pl.read_csv(folder / name)["n"].to_list() == [60, 60]
    elif fmt == "json":
        assert [r["n"] for r in json.loads(written)] == [60, 60]
    else:
        assert written.lstrip().lower().startswith("<!doctype html")


def test_the_page_output_directory_advice_runs(tmp_path: Path) -> None:
    from polars_fair.audit.html import audit_html

    frame = ROWS.select("g", "y_true", "y_pred")
    with pytest.raises(E.InvalidArgumentError) as info:
        audit_html(frame, "g", y_pred="y_pred", output=tmp_path)
    m = re.search(r"for example output=('[^']*')", str(info.value))
    assert m, info.value
    output = eval(m.group(1))  # the Python literal as written
    assert output == str(tmp_path / "audit.html")
    audit_html(frame, "g", y_pred="y_pred", output=output, min_support=1)
    assert Path(output).read_text().lstrip().lower().startswith("<!doctype html")


def test_a_score_as_prediction_advice_runs_each_way(data: Path) -> None:
    code, _, advice = cli("report", str(data), "--by", "g", "--y-pred", "s")
    assert code == 2 and "it looks like a score" in advice
    y_pred = _words(advice, "for example --y-pred")
    assert y_pred == ["s >= 0.5"]
    code, out, err = cli("report", str(data), "--by", "g", "--y-pred", y_pred[0],
                         "--format", "csv", "--min-support", "1")
    assert code == 0, err
    # s >= 0.5 for i % 10 in 5..9. Group a is the even i, all y_true 0: i % 10 = 6 or 8, 2 rows
    # in every 10 -> 24 fp of 120 rows; group b the odd i, all y_true 1: 5, 7, 9 -> 36 tp
    expected = [("a", 0, 24), ("b", 36, 0)]
    assert _csv(out).select("g", "tp", "fp").rows() == expected
    m = re.search(r"the score itself as --y-score (\S+) with --threshold", advice)
    assert m, advice
    code, out, err = cli("report", str(data), "--by", "g", "--y-score", m.group(1),
                         "--threshold", "0.5", "--format", "csv", "--min-support", "1")
    assert code == 0, err
    assert _csv(out).select("g", "tp", "fp").rows() == expected
    # or alone, in bias-audit: the scoring rate (the share above the sample's median)
    code, out, err = cli("bias-audit", str(data), "--category", "g", "--y-score", m.group(1),
                         "--format", "json")
    assert code == 0, err


def test_bias_audit_with_both_or_neither_outcome_runs_with_exactly_one(data: Path) -> None:
    for given in (["--y-pred", "y_pred", "--y-score", "s"], []):
        code, _, err = cli("bias-audit", str(data), "--category", "g", *given)
        assert code == 2 and err.strip().endswith(E.CLI_ONE_OUTCOME), err
    m = re.search(r"exactly one of (--y-pred) \(a binary selection\) or (--y-score)", err)
    assert m, err
    code, out, err = cli("bias-audit", str(data), "--category", "g", m.group(1), "y_pred",
                         "--format", "csv")
    assert code == 0, err
    rows = [line for line in out.splitlines() if not line.startswith("#")]
    table = _csv("\n".join(rows))
    # y_pred = (i // 2) % 2: a selects rows 2, 6, ... -> 30 of 60; b the same
    assert table.filter(pl.col("attributes") == "g").select("g", "selected").rows() == [
        ("a", 30), ("b", 30)]


def test_a_page_option_without_html_advice_runs(data: Path, tmp_path: Path) -> None:
    code, _, err = cli("report", str(data), "--by", "g", "--title", "Hiring 2026")
    assert code == 2
    assert err.strip().endswith(E.CLI_PAGE_OPTION.format(flag="--title"))
    assert "pass --html FILE too" in err
    page = tmp_path / "a.html"
    code, _, err = cli("report", str(data), "--by", "g", "--title", "Hiring 2026",
                       "--html", str(page), "--min-support", "1")
    assert code == 0, err
    assert "<title>Hiring 2026" in page.read_text()


def test_more_classes_than_listed_advice_runs(tmp_path: Path) -> None:
    path = tmp_path / "k.csv"
    n = 250  # k: 25 classes (more than MAX_LISTED_CLASSES), 10 rows each, 5 of each group
    pl.DataFrame({"g": ["a", "b"] * (n // 2), "y_true": [i % 2 for i in range(n)],
                  "k": [i % 25 for i in range(n)]}).write_csv(path)
    code, _, err = cli("report", str(path), "--by", "g", "--y-pred", "k")
    assert code == 2
    # the Python "classes=[...]" is "--classes ..." on the command line
    listed = E.CLASSES_NOT_LISTED.format(count=25, column="k").removeprefix("[...]")
    assert "bias-audit with --classes ..." + listed in err
    m = re.search(r"pass every distinct value of '(\w+)'", err)
    assert m and m.group(1) == "k"
    classes = pl.read_csv(path)[m.group(1)].unique().sort().cast(pl.String).to_list()
    code, out, err = cli("bias-audit", str(path), "--category", "g", "--y-pred", "k",
                         "--classes", ",".join(classes), "--format", "json")
    assert code == 0, err
    rows = [r for r in json.loads(out)["results"] if r["attributes"] == ["g"]]
    # class c is the 10 rows i = c (mod 25): i alternates parity, so 5 in a and 5 in b
    assert sorted((r["class"], r["g"], r["selected"]) for r in rows) == [
        (c, g, 5) for c in range(25) for g in ("a", "b")]


def test_a_misspelled_sql_function_gets_did_you_mean_and_that_runs(data: Path) -> None:
    by = "SUBTRING(who, 1, 1)"
    code, _, err = cli("report", str(data), "--by", by)
    assert code == 2 and "SUBTRING() is not one of the accepted scalar functions" in err
    m = re.search(r"\(did you mean (\w+)\?\)", err)
    assert m and m.group(1) == "SUBSTRING", err
    code, out, err = cli("report", str(data), "--by", by.replace("SUBTRING", m.group(1)),
                         "--format", "csv", "--min-support", "1")
    assert code == 0, err
    # the first letter of who: O (O'Brien, every third row: 40) and S (Smith: 80)
    assert sorted(_csv(out).select(pl.first(), "n").rows()) == [("O", 40), ("S", 80)]


def _documented_functions() -> list[str]:
    """The functions docs/cli.md lists under "SQL functions" (after its marker comment)."""
    page = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = page.split("## SQL functions", 1)[1].split("\n## ", 1)[0]
    listed = section.split("-->", 1)[1]
    return re.findall(r"`(\w+)`", listed)


def test_an_unknown_sql_function_points_to_the_list_a_cli_user_can_read(data: Path) -> None:
    # issue 20, 20a item 4: the command line named a Python object (polars_fair.core.sql.
    # FUNCTIONS); it names the documentation's section, which lists exactly those functions
    code, _, err = cli("report", str(data), "--by", "g", "--where", "FOO(who) = 'x'")
    assert code == 2 and "FOO() is not one of the accepted scalar functions" in err
    assert "polars_fair." not in err
    assert 'they are listed under "SQL functions" in the command line\'s documentation, ' \
           "docs/cli.md" in err
    from polars_fair.core.sql import FUNCTIONS, check_sql

    listed = _documented_functions()
    assert sorted(listed) == listed and set(listed) == set(FUNCTIONS)
    for name in listed:  # each one the page lists is accepted (any case)
        check_sql(f"{name.lower()}(who, 5, 'x') IS NULL", ["who"], "--where")
    # followed: a listed function in its place runs (UPPER of O'Brien / Smith is never 'x')
    code, out, err = cli("report", str(data), "--by", "g", "--where", "UPPER(who) <> 'x'",
                         "--format", "csv", "--min-support", "1")
    assert code == 0, err
    assert _csv(out)["n"].sum() == 120  # every row: none is 'x'
    # the Python message keeps the Python name
    with pytest.raises(E.SQLRefusedError, match=r"polars_fair\.core\.sql\.FUNCTIONS"):
        check_sql("FOO(who)", ["who"], "where")


def test_the_kinds_advice_lists_values_as_the_sql_takes_them_and_each_runs(
        tmp_path: Path) -> None:
    # issue 20, 20a item 5: the command line printed a Python list (its values: ['High', ...])
    path = tmp_path / "k.csv"
    pl.DataFrame({"g": ["a", "b"] * 3, "risk": ["High", "Low", "O'Brien"] * 2,
                  "y": [1, 0, 1, 0, 1, 0]}).write_csv(path)
    code, _, err = cli("report", str(path), "--by", "g", "--y-true", "risk", "--y-pred", "y")
    assert code == 2
    m = re.search(r"\(its values: (.*); put the positive one in place of ('High')\)", err)
    assert m, err
    assert "[" not in m.group(1)
    # bash reads the SQL literals inside the double-quoted word: 'High' 'Low' 'O''Brien'
    literals = m.group(1).split(" ")
    assert literals == ["'High'", "'Low'", "'O''Brien'"]
    for literal in literals:  # each in the example's place runs
        code, out, err = cli("report", str(path), "--by", "g", "--y-true", f"risk = {literal}",
                             "--y-pred", "y", "--pos-label", "true", "--min-support", "1",
                             "--format", "csv")
        assert code == 0, err
        assert _csv(out)["n"].to_list() == [3, 3]


def test_the_pos_label_advice_lists_values_as_pos_label_takes_them() -> None:
    from polars_fair.core.spec import resolve
    from polars_fair.counting.tables import PolarsEngine, readable_label_error

    # each value on two rows (three values of one row each would not be shown at all)
    lf = pl.LazyFrame({"y_true": ["hired", "rejected", "O'Brien"] * 2, "y_pred": ["hired"] * 6})
    with pytest.raises(E.InvalidLabelError) as info:
        resolve(lf.collect_schema(), None)  # pos_label=1 for text columns
    err = readable_label_error(PolarsEngine(lf), {}, info.value)
    assert err.cli_message is not None
    # each value one shell word, as --pos-label takes it; none reads as positive (yes, true,
    # ...), so the example is the first in sorted order, O'Brien
    assert err.cli_message.endswith(
        "for example --pos-label 'O'\"'\"'Brien' (its values: 'O'\"'\"'Brien' hired rejected; "
        "pass the positive one)")
    assert shlex.split("'O'\"'\"'Brien' hired rejected") == ["O'Brien", "hired", "rejected"]
    assert "(its values: [" in str(err)  # Python keeps its list
