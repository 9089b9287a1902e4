"""The command line refuses what it cannot audit honestly (issue 11, kinds 5, 6, 8, 9, 10, 11).

Kind 10: a SQL option reads the input's own columns and nothing else (no subquery, table
function, file or URL), refused before Polars parses it. Kind 11: no output overwrites an input
or the other output, everything is checked before anything is written, late text in a CSV column
reads as text, JSON errors with ``--format json``, messages name flags. Kind 8: a header-only CSV
is an empty input; no bad input ends in a traceback. Kind 6: ``--reference``/``--pos-label`` for
Decimal, Date and Datetime columns. Kind 9: ``--max-groups``. Kind 5: aggregates in a SQL option.
"""

from __future__ import annotations

import csv
import ctypes
import datetime as dt
import io
import json
import os
import socket
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.cli.io import cli_message, parse_value
from polars_fair.core.sql import check_sql, sql_expr
from polars_fair.datasets import make_hiring

runner = CliRunner()

SECRET = "TOKEN=do-not-leak-4f1c"


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def hiring(tmp_path: Path) -> Path:
    path = tmp_path / "hiring.csv"
    make_hiring(600, seed=1).write_csv(path)
    return path


@pytest.fixture()
def secret(tmp_path: Path) -> Path:
    folder = tmp_path / "private"
    folder.mkdir()
    path = folder / "secret.env"
    path.write_text(SECRET + "\n")
    return path


# ------------------------------------------------------------------ kind 10: SQL reads the rows
def _where_reading(target: str) -> str:
    return f"race IN (SELECT nope FROM read_csv('{target}'))"


@pytest.mark.parametrize("flag", ["--by", "--y-true", "--y-pred", "--y-score", "--where"])
def test_every_sql_option_refuses_a_subquery_over_a_file(hiring: Path, secret: Path,
                                                         flag: str) -> None:
    args = ["check", str(hiring), "--by", "race", flag, _where_reading(str(secret))]
    if flag == "--by":
        args = ["check", str(hiring), flag, _where_reading(str(secret))]
    code, out, err = cli(*args)
    assert code == 2
    assert err.startswith(f"polars-fair: error: {flag}: ")
    assert "is refused: SELECT starts a query or reads a table" in err
    assert SECRET not in out + err and "do-not-leak" not in out + err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_an_existing_and_a_missing_file_give_the_same_refusal(hiring: Path, secret: Path) -> None:
    # before: the first line of an existing file was shown, a missing one gave "No such file"
    missing = secret.parent / "absent.env"
    _, _, err_existing = cli("report", str(hiring), "--by", "race",
                             "--where", _where_reading(str(secret)))
    _, _, err_missing = cli("report", str(hiring), "--by", "race",
                            "--where", _where_reading(str(missing)))
    assert err_existing.replace(str(secret), "PATH") == err_missing.replace(str(missing), "PATH")


_INOTIFY_OPEN_OR_ACCESS = 0x20 | 0x01  # IN_OPEN | IN_ACCESS (linux/inotify.h)


class _OpenWitness:
    """The kernel's record of opens of one file (inotify): sees Rust's reads, not only Python's."""

    def __init__(self, path: Path) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK)
        if self.fd < 0 or libc.inotify_add_watch(self.fd, str(path).encode(),
                                                 _INOTIFY_OPEN_OR_ACCESS) < 0:
            pytest.skip("inotify is not available")

    def opened(self) -> bool:
        try:
            return len(os.read(self.fd, 4096)) > 0
        except BlockingIOError:
            return False

    def close(self) -> None:
        os.close(self.fd)


HARNESS = textwrap.dedent("""
    import json, sys
    log, events = sys.argv[1], []

    def hook(event, args):
        if event == "open" and isinstance(args[0], (str, bytes)):
            events.append(["open", str(args[0])])
        elif event == "socket.connect":
            events.append(["connect", repr(args[1])])

    sys.addaudithook(hook)
    mode, rest = sys.argv[2], sys.argv[3:]
    code = 0
    try:
        if mode == "cli":
            from polars_fair.cli import main
            sys.argv = ["polars-fair", *rest]
            main()
        else:  # the unguarded parser, as the CLI called it before
            import polars as pl
            pl.sql_expr(rest[0])
    except SystemExit as exc:
        code = exc.code
    except Exception as exc:
        code = type(exc).__name__
    seen = list(events)
    with open(log, "w") as fh:
        json.dump({"code": code, "events": seen}, fh)
""")


def _run_harness(tmp_path: Path, mode: str, *args: str) -> tuple[dict[str, object], str]:
    script = tmp_path / "harness.py"
    script.write_text(HARNESS)
    log = tmp_path / f"log-{mode}.json"
    proc = subprocess.run([sys.executable, str(script), str(log), mode, *args],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    return json.loads(log.read_text()), proc.stdout + proc.stderr


@pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's")
def test_a_sql_option_naming_a_file_never_opens_it_and_opens_no_socket(
        hiring: Path, secret: Path, tmp_path: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.setblocking(False)
    url = f"http://127.0.0.1:{server.getsockname()[1]}/secret.csv"
    witness = _OpenWitness(secret)
    try:
        for target in (str(secret), url):
            log, output = _run_harness(tmp_path, "cli", "report", str(hiring), "--by", "race",
                                       "--where", _where_reading(target))
            assert log["code"] == 2
            events = log["events"]
            assert isinstance(events, list)
            opened = [e[1] for e in events if e[0] == "open"]
            assert opened  # the hook records opens (the modules the CLI imports)
            assert not [path for path in opened if path.endswith("secret.env")]
            assert not [e for e in events if e[0] == "connect"]
            assert SECRET not in output and "is refused: SELECT" in output
        assert not witness.opened()  # the kernel saw no open or read of the file
        with pytest.raises(BlockingIOError):  # nobody connected to the URL's server
            server.accept()
        # the witness is live: the unguarded parser reads the file while it parses
        log, _ = _run_harness(tmp_path, "raw", _where_reading(str(secret)))
        assert witness.opened()
    finally:
        witness.close()
        server.close()


@pytest.mark.parametrize(("text", "why"), [
    ("race IN (SELECT x FROM read_csv('/etc/passwd'))", "SELECT starts a query"),
    ("race IN (WITH t AS (SELECT 1) SELECT * FROM t)", "WITH starts a query"),
    ("read_parquet('s3://bucket/x.parquet') IS NULL", "read_parquet() is not one of the accepted"),
    ("race = 'a'; DROP TABLE x", "the character ';' at offset 10"),
    ("race = 'a' -- comment", "a comment (at offset 11)"),
    ("race = 'a' /* x */", "a comment (at offset 11)"),
    ("race = $1", "the character '$' at offset 7"),
    ("race = ?", "the character '?' at offset 7"),
    ("t.race = 'a'", "a qualified name (t.race = 'a')"),
    ("race = 'it\\' || (SELECT 1) || '", "a backslash before a quote"),
    ("race = 'open", "the string or quoted name at offset 7 is not closed"),
    ("SYSTEM('ls') = 1", "SYSTEM() is not one of the accepted scalar functions"),
])
def test_sql_outside_a_row_level_expression_is_refused(text: str, why: str) -> None:
    with pytest.raises(E.SQLRefusedError) as info:
        check_sql(text, ["race", "y_true"], "where")
    assert why in str(info.value)
    assert str(info.value).startswith(f"where: {text!r} is refused: ")


def test_a_query_word_is_refused_even_as_a_column_name() -> None:
    # the parser reads a bare SELECT as the keyword whatever the columns are called
    with pytest.raises(E.SQLRefusedError, match="SELECT starts a query"):
        check_sql("SELECT > 1", ["SELECT"], "where")
    check_sql('"SELECT" > 1', ["SELECT"], "where")  # quoted, it is the column
    with pytest.raises(E.SQLRefusedError, match='"read_csv"\\(\\) is not one of the accepted'):
        check_sql("\"read_csv\"('/etc/hostname') IS NULL", ["read_csv"], "where")


def test_names_that_are_not_columns_and_aggregates_are_refused() -> None:
    with pytest.raises(E.ColumnNotFoundError, match=r"column 'nope' \(--where\) not found"):
        check_sql("nope > 1", ["race"], "--where")
    with pytest.raises(E.ColumnNotFoundError, match=r"column 'a b' \(--by\) not found"):
        check_sql('"a b" = 1', ["race"], "--by")
    # kind 5: one value spread over every row, or a value read from other rows
    for text in ("MAX(y_pred)", "y_pred > AVG(y_pred)", "ROW_NUMBER() OVER (ORDER BY y_pred)",
                 "COUNT(*)"):
        with pytest.raises(E.NotRowLevelError, match="is not a row-level expression"):
            check_sql(text, ["y_pred"], "--y-pred")


@pytest.mark.parametrize(("text", "expected"), [
    # hand-evaluated on the rows s = [0.2, 0.7, 0.5], g = ['a', 'b', 'SELECT']
    ("s >= 0.5", [False, True, True]),
    ("g IN ('a', 'SELECT')", [True, False, True]),
    ("s BETWEEN 0.3 AND 0.6", [False, False, True]),
    ("CASE WHEN s > 0.6 THEN 1 ELSE 0 END", [0, 1, 0]),
    ("CAST(s * 10 AS INTEGER)", [2, 7, 5]),
    ("g LIKE 'S%'", [False, False, True]),
    ("g = 'it''s'", [False, False, False]),
    ("COALESCE(NULLIF(g, 'a'), 'none')", ["none", "b", "SELECT"]),
    ("ROUND(s, 0) = 1", [False, True, False]),  # round half to even: 0.5 -> 0
])
def test_row_level_sql_over_the_columns_is_accepted(text: str, expected: list[object]) -> None:
    df = pl.DataFrame({"s": [0.2, 0.7, 0.5], "g": ["a", "b", "SELECT"]})
    assert df.select(sql_expr(text, df.columns, "where")).to_series().to_list() == expected


def test_python_where_text_is_guarded_too() -> None:
    pytest.importorskip("altair")
    from polars_fair.audit.html import audit_html

    with pytest.raises(E.SQLRefusedError, match="where: .* is refused: SELECT"):
        audit_html(make_hiring(300, seed=0), ["race"],
                   where="race IN (SELECT x FROM read_csv('/etc/hostname'))")


# ---------------------------------------------------------- kind 5: an aggregate in a SQL option
def _failing_gate(tmp_path: Path) -> Path:
    """Group a: 40 rows, 20 selected (rate 0.5); b: 40 rows, 8 selected (rate 0.2).

    b's impact ratio is 0.2 / 0.5 = 0.4 < 0.8: the gate fails (exit 1). With MAX(y_pred) every
    prediction would be 1 and every impact ratio 1: a pass, which the guard refuses.
    """
    path = tmp_path / "gate.csv"
    pl.DataFrame({
        "g": ["a"] * 40 + ["b"] * 40,
        "y_true": [1, 0] * 40,
        "y_pred": [1] * 20 + [0] * 20 + [1] * 8 + [0] * 32,
    }).write_csv(path)
    return path


def test_an_aggregate_prediction_is_refused_not_passed(tmp_path: Path) -> None:
    path = _failing_gate(tmp_path)
    code, out, _ = cli("check", str(path), "--by", "g", "--format", "json")
    assert code == 1
    violation = json.loads(out)["violations"][0]
    assert (violation["group"], violation["metric"]) == ("g=b", "impact_ratio")
    assert violation["value"] == pytest.approx(0.4)
    code, _, err = cli("check", str(path), "--by", "g", "--y-pred", "MAX(y_pred)")
    assert code == 2
    assert err == ("polars-fair: error: --y-pred='MAX(y_pred)' is not a row-level expression: it "
                   "aggregates rows or reads other rows (MAX), and an argument must give one "
                   "value per row, computed from that row\n")
    code, _, err = cli("check", str(path), "--by", "g", "--where", "y_pred >= AVG(y_pred)")
    assert code == 2 and "--where='y_pred >= AVG(y_pred)' is not a row-level" in err


# ------------------------------------------------------------- kind 11: inputs and outputs
def test_an_output_that_is_the_input_is_refused(hiring: Path, tmp_path: Path) -> None:
    before = hiring.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(hiring)
    hard = tmp_path / "hard.csv"
    os.link(hiring, hard)
    for source, output in ((hiring, hiring), (link, hiring), (hiring, link), (hiring, hard),
                           (hiring, Path(os.path.relpath(hiring)))):
        code, _, err = cli("report", str(source), "--by", "race", "--output", str(output))
        assert code == 2
        assert err == (f"polars-fair: error: --output {output} is the input {source}: refusing "
                       "to overwrite it\n")
    page = tmp_path / "page.html"
    page.symlink_to(hiring)
    code, _, err = cli("report", str(hiring), "--by", "race", "--html", str(page))
    assert code == 2 and f"--html {page} is the input {hiring}" in err
    assert hiring.read_bytes() == before


def test_output_and_html_cannot_be_one_file(hiring: Path, tmp_path: Path) -> None:
    page = tmp_path / "audit.html"
    code, _, err = cli("report", str(hiring), "--by", "race", "--format", "csv",
                       "--output", str(page), "--html", str(page))
    assert code == 2
    assert "--output and --html are the same file" in err
    alias = tmp_path / "alias.html"
    alias.symlink_to(tmp_path / "r.csv")  # a dangling link to the --output file
    code, _, err = cli("report", str(hiring), "--by", "race", "--output",
                       str(tmp_path / "r.csv"), "--html", str(alias))
    assert code == 2 and "--output and --html are the same file" in err
    assert not page.exists() and not (tmp_path / "r.csv").exists()


def test_an_unknown_output_suffix_is_an_error_not_a_text_table(hiring: Path,
                                                                tmp_path: Path) -> None:
    out = tmp_path / "out.xlsx"
    code, _, err = cli("report", str(hiring), "--by", "race", "--output", str(out))
    assert code == 2
    assert "--output out.xlsx: cannot tell the format from the suffix" in err
    assert not out.exists()
    code, _, err = cli("report", str(hiring), "--by", "race", "--format", "csv",
                       "--output", str(tmp_path / "r.parquet"))
    assert code == 2 and "--format csv contradicts --output r.parquet" in err
    txt = tmp_path / "r.txt"  # the text table goes to .txt
    code, _, _ = cli("report", str(hiring), "--by", "race", "--output", str(txt))
    assert code == 0 and txt.read_text().startswith("polars-fair report: 600 rows")


def test_nothing_is_written_before_every_input_is_checked(hiring: Path, tmp_path: Path) -> None:
    out, page = tmp_path / "r.csv", tmp_path / "audit.html"
    # the HTML audit's score column is missing: the report (which does not need it) is not
    # written either
    code, _, err = cli("report", str(hiring), "--by", "race", "--output", str(out),
                       "--html", str(page), "--y-score", "nosuch")
    assert code == 2 and "column 'nosuch' (--y-score) not found" in err
    assert not out.exists() and not page.exists()
    code, _, _ = cli("report", str(hiring), "--by", "race", "--output", str(out),
                     "--html", str(tmp_path / "missing" / "a.html"))
    assert code == 2 and not out.exists()


def _branch_csv(path: Path, separator: str = ",") -> None:
    """Rows 0-149: branch 11, 12, 13 in turn (50 each), all labelled and selected 1.

    Rows 150-299: branch '12A'; the first 60 labelled 1 (30 selected), the other 90 labelled 0
    (15 selected). By hand, 12A: TP 30, FN 30, FP 15, TN 75; selection rate 45/150 = 0.3; the
    other branches: TP 50, selection rate 1; 12A's impact ratio 0.3 / 1 = 0.3.
    """
    branch = [str(11 + i % 3) for i in range(150)] + ["12A"] * 150
    y_true = [1] * 150 + [1] * 60 + [0] * 90
    y_pred = [1] * 150 + [1] * 30 + [0] * 30 + [1] * 15 + [0] * 75
    pl.DataFrame({"branch": branch, "y_true": y_true, "y_pred": y_pred}).write_csv(
        path, separator=separator)


def test_text_after_many_numbers_reads_as_text(tmp_path: Path) -> None:
    path = tmp_path / "branches.csv"
    _branch_csv(path)
    out = tmp_path / "r.csv"
    code, _, err = cli("report", str(path), "--by", "branch", "--output", str(out))
    assert code == 0, err
    got = pl.read_csv(out, schema_overrides={"branch": pl.String}).sort("branch")
    assert got.select("branch", "n", "tp", "fp", "fn", "tn").rows() == [
        ("11", 50, 50, 0, 0, 0), ("12", 50, 50, 0, 0, 0), ("12A", 150, 30, 15, 30, 75),
        ("13", 50, 50, 0, 0, 0)]
    code, out_text, _ = cli("check", str(path), "--by", "branch", "--format", "json")
    assert code == 1
    violations = json.loads(out_text)["violations"]
    ir = [v for v in violations if v["metric"] == "impact_ratio"]
    assert [(v["group"], v["value"]) for v in ir] == [("branch=12A", pytest.approx(0.3))]


def test_separator_and_dtype_options(tmp_path: Path) -> None:
    path = tmp_path / "branches.csv"
    _branch_csv(path, separator=";")
    code, out, err = cli("report", str(path), "--by", "branch", "--separator", ";",
                         "--format", "json")
    assert code == 0, err
    assert {r["branch"]: r["n"] for r in json.loads(out)} == {"11": 50, "12": 50, "13": 50,
                                                               "12A": 150}
    code, out, _ = cli("report", str(path), "--by", "y_true", "--separator", ";",
                       "--dtype", "y_true=str", "--y-true", "y_pred", "--format", "json")
    assert code == 0
    assert [r["y_true"] for r in json.loads(out)] == ["0", "1"]  # read as text
    code, _, err = cli("report", str(path), "--by", "branch", "--separator", ";",
                       "--dtype", "branch=int64")
    assert code == 2
    # issue 20: no value is shown (it may be a name); the column, the dtype and --dtype are.
    # Issue 19: the rows counted over the file: the 150 rows of branch '12A' of 300, the
    # error attributed to --dtype (checked when the file is scanned, on every format)
    assert err.startswith("polars-fair: error: --dtype: 150 of 300 values of column "
                          "'branch' could not be converted from text to Int64"), err
    assert "12A" not in err
    assert err.rstrip().endswith("(set the column's type with --dtype COLUMN=TYPE, for example "
                                 "str)")
    assert err.count("\n") == 1


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_dtype_failures_counted_over_the_whole_file(tmp_path: Path, suffix: str) -> None:
    # issue 19: Polars stops at the first value a CSV column's --dtype cannot parse, and counts
    # one chunk of a cast; the command counts the file. 200,000 rows, 'age' the text of i % 90
    # except at i = 0, 50,000, 100,000 and 150,000, where it is 'x' (4 rows by hand); a blank
    # age (row 7) is missing, not a failure; the Parquet file is written in chunks of 10,000
    n = 200_000
    age = ["x" if i % 50_000 == 0 else "" if i == 7 else str(i % 90) for i in range(n)]
    frame = pl.DataFrame({"g": ["a", "b"] * (n // 2), "y": [0, 1] * (n // 2), "age": age})
    path = tmp_path / f"ages{suffix}"
    if suffix == ".csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path, row_group_size=10_000)
    code, _, err = cli("report", str(path), "--by", "g", "--y-true", "y", "--y-pred", "y",
                       "--dtype", "age=int64", "--where", "age > 3")
    assert code == 2
    # one message on both formats, attributed to --dtype (checked when the file is scanned)
    assert err.startswith("polars-fair: error: --dtype: 4 of 200,000 values of "
                          "column 'age' could not be converted from text to Int64"), err
    assert "'x'" not in err and "`x`" not in err


def test_json_errors_on_stdout(hiring: Path) -> None:
    for command in ("report", "check"):
        code, out, err = cli(command, str(hiring), "--by", "colour", "--format", "json")
        assert code == 2
        assert json.loads(out) == {
            "status": "error", "error": "ColumnNotFoundError", "exit_code": 2,
            "message": "column 'colour' (--by) not found; the frame has columns: "
                       "['applicant_id', 'race', 'sex', 'age_band', 'y_true', 'y_score', "
                       "'y_pred']"}
        assert "colour" in err


def test_messages_name_flags_not_parameters(hiring: Path) -> None:
    code, _, err = cli("check", str(hiring), "--by", "race", "--y-score", "nosuch")
    assert code == 2 and "column 'nosuch' (--y-score) not found" in err
    code, _, err = cli("report", str(hiring), "--by", "race", "--pos-label", "7")
    assert code == 2
    assert err == ("polars-fair: error: column 'y_true' (--y-true) holds two values, 0 and 1, "
                   "and neither is --pos-label 7; pass the one that means the positive outcome "
                   "(qualified, repaid) as --pos-label, for example --pos-label 1\n")
    assert "pos_label" not in err
    code, _, err = cli("report", str(hiring), "--by", "race", "--min-support", "-1")
    assert code == 2 and "--min-support must" in err and "min_support" not in err
    code, _, err = cli("report", str(hiring), "--by", "race", "--null-groups", "bogus")
    assert code == 2 and "--null-groups: 'bogus' is not one of 'keep', 'raise', 'drop'" in err
    code, _, err = cli("report", str(hiring), "--by", "race", "--y-pred", "y_score")
    assert code == 2
    assert "besides --pos-label 1: it looks like a score" in err
    assert 'for example --y-pred "y_score >= 0.5"' in err and "threshold=" not in err


def test_cli_message_leaves_quoted_names_alone() -> None:
    assert cli_message("column 'y_pred' (y_pred) holds 2 null value(s)") == \
        "column 'y_pred' (--y-pred) holds 2 null value(s)"
    assert cli_message("because null_groups='drop'") == "because --null-groups 'drop'"


def test_dropped_null_groups_are_one_clean_line(tmp_path: Path) -> None:
    path = tmp_path / "nulls.csv"
    # 3 of 8 rows have no group
    pl.DataFrame({"g": ["a", "a", "b", "b", "b", None, None, None],
                  "y_true": [1, 0, 1, 0, 1, 0, 1, 0],
                  "y_pred": [1, 0, 0, 0, 1, 1, 1, 0]}).write_csv(path)
    code, out, err = cli("report", str(path), "--by", "g", "--null-groups", "drop",
                         "--format", "csv", "--min-support", "1")
    assert code == 0
    assert err == ("polars-fair: dropped 3 row(s) whose attribute is null ({'g': 3}) because "
                   "--null-groups 'drop'; pass --null-groups 'keep' to audit them as a group of "
                   "their own\n")
    assert pl.read_csv(out.encode())["n"].to_list() == [2, 3]


# ------------------------------------------------------------ kind 8: every failure one line
def test_a_header_only_csv_is_an_empty_input(tmp_path: Path) -> None:
    path = tmp_path / "header.csv"
    path.write_text("race,y_true,y_pred\n")
    for command in ("report", "check"):
        code, _, err = cli(command, str(path), "--by", "race")
        assert code == 2
        assert err == ("polars-fair: error: the frame has no rows (header.csv holds no data "
                       "rows): there is nothing to audit\n")


def _bad_inputs(tmp_path: Path, hiring: Path) -> list[tuple[list[str], str]]:
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("race,y_true,y_pred\na,1,0\nb,1\nc,0,1,7,7\n")
    h = str(hiring)
    return [
        (["report", str(tmp_path / "missing.csv"), "--by", "race"], "file not found"),
        (["report", str(folder), "--by", "race"], "is a directory, not a data file"),
        (["report", str(tmp_path / "x.xlsx"), "--by", "race"], "file not found"),
        (["report", h, "--by", "race", "--y-true", "age_band"],
         "hold different kinds of values, so no one --pos-label fits both"),
        (["report", h, "--by", "race", "--y-true", "race", "--y-pred", "race"],
         "column 'race' (--y-true) must hold --pos-label '1' and at most one other value"),
        (["report", h, "--by", "race", "--reference", "Martian"], "names no group"),
        (["report", h, "--by", "race", "--by", "sex", "--reference", "Black"],
         "pass --reference as attr=value"),
        (["report", h, "--by", "race", "--where", "race ==="], "is not a SQL expression"),
        (["report", h, "--by", "race", "--format", "yaml"], "--format: 'yaml' is not one of"),
        (["check", h, "--by", "race", "--format", "yaml"],
         "--format: 'yaml' is not one of 'text', 'json'"),
        (["check", h, "--by", "race", "--max-abroca", "0.1"], "--max-abroca needs --y-score"),
        (["report", h, "--by", "race", "--separator", "ab"], "--separator must be one"),
        (["report", h, "--by", "race", "--dtype", "race"], "--dtype takes COLUMN=TYPE"),
        (["report", h, "--by", "race", "--dtype", "race=str", "--dtype", "race=int"],
         "--dtype names column 'race' twice"),
        (["report", h, "--by", "race", "--max-groups", "0"], "--max-groups must be an integer"),
        (["report", h, "--by", "race", "--where", "y_true"], ""),  # a filter on an int column
        (["report", str(ragged), "--by", "race"], ""),
        (["report", h, "--by", "race", "--min-support", "-3"], "error: --min-support must"),
        (["report", h, "--by", "race", "--html", str(tmp_path / "a.svg")], "a .html file"),
    ]


def test_no_bad_input_ends_in_a_traceback(tmp_path: Path, hiring: Path) -> None:
    cases = _bad_inputs(tmp_path, hiring)
    assert len(cases) >= 12
    for args, expected in cases:
        code, out, err = cli(*args)
        assert code == 2, (args, out, err)
        assert err.startswith("polars-fair: error: ") and err.count("\n") == 1, (args, err)
        assert expected in err, (args, err)
        assert "Traceback" not in out + err


# ------------------------------------------------ kind 6: values of Decimal, Date and Datetime
@pytest.fixture()
def dated(tmp_path: Path) -> Path:
    """Two periods of 40 rows: 2020-01-01 (19 selected) and 2021-06-01 (20 selected).

    Labels alternate 1, 0; predictions are 1 for rows whose index // 3 is odd.
    """
    n = 80
    df = pl.DataFrame({
        "d": [dt.date(2020, 1, 1)] * 40 + [dt.date(2021, 6, 1)] * 40,
        "y_true": [i % 2 for i in range(n)],
        "y_pred": [(i // 3) % 2 for i in range(n)],
    }).with_columns(
        ts=pl.col("d").cast(pl.Datetime("us")),
        tz=pl.col("d").cast(pl.Datetime("us")).dt.replace_time_zone("Europe/Paris"),
        amount=(pl.col("d").dt.year() - 2019).cast(pl.Decimal(6, 2)),
        label=pl.col("y_true").cast(pl.Decimal(3, 1)),
    )
    path = tmp_path / "dated.parquet"
    df.write_parquet(path)
    return path


@pytest.mark.parametrize(("by", "reference", "expected"), [
    ("d", "2021-06-01", dt.date(2021, 6, 1)),
    ("ts", "2021-06-01 00:00:00", dt.datetime(2021, 6, 1)),
    ("tz", "2021-06-01T00:00:00", dt.datetime(2021, 6, 1)),  # read in the column's zone
    ("tz", "2021-05-31T22:00:00+00:00", dt.datetime(2021, 6, 1)),  # 22:00 UTC = 00:00 CEST
    ("amount", "2.00", Decimal("2.00")),
    ("amount", "2", Decimal("2.00")),
])
def test_reference_values_of_decimal_date_and_datetime_columns(
        dated: Path, by: str, reference: str, expected: object) -> None:
    out = dated.with_name("r.parquet")
    code, _, err = cli("report", str(dated), "--by", by, "--reference", reference,
                       "--output", str(out))
    assert code == 0, err
    got = pl.read_parquet(out).filter(pl.col("is_reference"))[by].to_list()
    if by == "tz":
        got = [g.replace(tzinfo=None) for g in got]
    assert got == [expected]


def test_pos_label_of_a_decimal_label(dated: Path) -> None:
    # the 2020 period, rows 0-39: label 1.0 at odd i; selected where i // 3 is odd:
    # i in 3-5, 9-11, 15-17, 21-23, 27-29, 33-35, 39 (19 rows), of which odd: 3, 5, 9, 11, 15,
    # 17, 21, 23, 27, 29, 33, 35, 39 -> TP 13, FP 6
    code, out, err = cli("report", str(dated), "--by", "d", "--y-true", "label",
                         "--pos-label", "1.0", "--format", "json")
    assert code == 0, err
    first = json.loads(out)[0]
    assert (first["d"], first["n"], first["tp"], first["fp"]) == ("2020-01-01", 40, 13, 6)
    code, _, err = cli("report", str(dated), "--by", "d", "--reference", "2021-13-01")
    assert code == 2
    assert "--reference '2021-13-01' is not a date (YYYY-MM-DD), as the column's dtype Date" in err


def test_parse_value_hand_cases() -> None:
    assert parse_value("1.50", pl.Decimal(5, 2)) == Decimal("1.50")
    assert parse_value("2020-02-29", pl.Date) == dt.date(2020, 2, 29)
    with pytest.raises(E.InvalidArgumentError, match="is not a finite decimal"):
        parse_value("NaN", pl.Decimal(5, 2))
    with pytest.raises(E.InvalidArgumentError, match="without a time zone"):
        parse_value("2020-01-01T00:00+01:00", pl.Datetime("us"))


# ------------------------------------------------------------------- kind 9: --max-groups
def test_max_groups_bounds_enum_intersections(tmp_path: Path) -> None:
    cats = [f"c{i:02d}" for i in range(30)]
    enum = pl.Enum(cats)
    n = 90
    path = tmp_path / "enum.parquet"
    pl.DataFrame({
        "a": [cats[i % 30] for i in range(n)], "b": [cats[(7 * i) % 30] for i in range(n)],
        "c": [cats[(11 * i) % 30] for i in range(n)],
        "y_true": [i % 2 for i in range(n)], "y_pred": [(i // 2) % 2 for i in range(n)],
    }).with_columns(pl.col("a", "b", "c").cast(enum)).write_parquet(path)
    # 30 x 30 x 30 = 27,000 Enum intersections > the default limit of 10,000
    code, out, err = cli("check", str(path), "--by", "a", "--by", "b", "--by", "c",
                         "--format", "json")
    assert code == 2
    result = json.loads(out)
    assert result["error"] == "SizeLimitError"
    assert "27,000 groups, more than --max-groups 10,000" in result["message"]
    assert "pass --max-groups a larger limit" in result["message"]
    out_file = tmp_path / "r.parquet"
    code, _, err = cli("report", str(path), "--by", "a", "--by", "b", "--by", "c",
                       "--max-groups", "27000", "--output", str(out_file))
    assert code == 0, err
    got = pl.read_parquet(out_file)
    assert got.height == 27_000 and got["n"].sum() == 90


# ------------------------------------------------------ usage errors: one line, exit 2, JSON


def _commands() -> list[str]:
    import typer

    return sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", _commands())
def test_every_command_reports_a_usage_error_in_one_line_with_json(name: str,
                                                                   hiring: Path) -> None:
    args = [name, "--no-such-option", "x", "--format", "json"]
    if name != "demo":
        args.insert(1, str(hiring))
    code, out, err = cli(*args)
    assert code == 2, (out, err)
    assert err == "polars-fair: error: no such option: --no-such-option\n"
    assert json.loads(out) == {"status": "error", "error": "UsageError",
                               "message": "no such option: --no-such-option", "exit_code": 2}


@pytest.mark.parametrize(("args", "message"), [
    (("abroca-test", "{p}", "--by", "sex", "--n-permutations", "abc"),
     "--n-permutations: 'abc' is not an integer"),
    (("report", "{p}", "--by", "race", "--threshold", "abc"), "--threshold: 'abc' is not a number"),
    (("report", "{p}"), "missing option --by"),
    (("report",), "missing argument PATH"),
    (("bias-audit", "{p}", "--y-pred", "y_pred"), "missing option --category"),
    (("divergence", "{p}", "--by", "race", "--adjust", "foo"),
     "--adjust: 'foo' is not one of 'bh', 'by', 'holm'"),
    (("calibration", "{p}", "--by", "race", "--strategy", "x"),
     "--strategy: 'x' is not one of 'uniform', 'quantile'"),
    (("report", "{p}", "--by"), "option '--by' requires an argument"),
    (("no-such-command",), "no such command 'no-such-command'"),
])
def test_usage_errors_name_the_option(args: tuple[str, ...], message: str, hiring: Path) -> None:
    argv = [a.format(p=hiring) for a in args]
    code, out, err = cli(*argv)
    assert (code, out, err) == (2, "", f"polars-fair: error: {message}\n")
    code, out, err = cli(argv[0], "--format", "json", *argv[1:])
    assert code == 2
    assert json.loads(out)["message"] == message


def test_usage_errors_through_main_exit_2_in_one_line(hiring: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "from polars_fair.cli import main; main()", "report",
         str(hiring), "--by", "race", "--min-support", "abc"],
        capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "polars-fair: error: --min-support: 'abc' is not a number\n"


# ------------------------------------------- SQL that does not fit the data names flag and text


@pytest.mark.parametrize(("args", "message"), [
    (("--by", "race", "--where", "race > 5"),
     E.SQL_TYPES.format(role="--where", text="race > 5",
                        detail="cannot compare string with numeric type (i32)")),
    (("--by", "race > 5"),
     E.SQL_TYPES.format(role="--by", text="race > 5",
                        detail="cannot compare string with numeric type (i32)")),
    (("--by", "race", "--where", "y_score + 1"),
     E.SQL_NOT_CONDITION.format(role="--where", text="y_score + 1", dtype=pl.Float64)),
    (("--by", "race", "--where", "CAST(race AS INT) > 1"),
     E.CONVERSION_FAILED.format(role="--where 'CAST(race AS INT) > 1'", count="600 of 600 values",
                                column="race", source="str", target="i32")),
    (("--by", "race", "--y-pred", "CAST(sex AS INT)"),
     E.CONVERSION_FAILED.format(role="--y-pred 'CAST(sex AS INT)'", count="600 of 600 values",
                                column="sex", source="str", target="i32")),
])
def test_sql_that_does_not_fit_the_data_names_its_flag_and_text(
        args: tuple[str, ...], message: str, hiring: Path) -> None:
    for command in ("report", "metrics", "check"):
        code, out, err = cli(command, str(hiring), *args)
        assert (code, out) == (2, "")
        assert err.startswith(f"polars-fair: error: {message}"), err
        assert err.count("\n") == 1
    if "--y-pred" not in args:  # bias-audit reads --where the same way
        code, out, err = cli("bias-audit", str(hiring), "--category", "race", "--y-pred",
                             "y_pred", *args[2:])
        if "--where" in args:
            assert (code, out) == (2, "")
            assert err.startswith(f"polars-fair: error: {message}"), err


# ---------------------------------------------- issue 19, fourth review, item 4
def test_csv_exports_write_nul_bidi_and_zero_width_characters_as_escapes(tmp_path: Path) -> None:
    # groups carrying U+202E, U+200B, NUL, a BOM, and U+2028 and a leading tab (kept as written:
    # tests/audit/test_escape.py); 2 rows each
    groups = ["a\u202eb", "e\u200bf", "g\x00h", "\ufeffi", "c\u2028d", "\t=j"]
    path = tmp_path / "rows.parquet"
    pl.DataFrame({"g": groups * 2, "y": [1] * 6 + [0] * 6, "p": [1, 0] * 6}).write_parquet(path)
    # by hand: escapes in visible()'s spelling; U+2028 raw; the tab cell keeps its quote prefix
    written = {"a\\u202eb", "e\\u200bf", "g\\x00h", "\\ufeffi", "c\u2028d", "'\t=j"}
    for args, column in ((["report", str(path), "--by", "g", "--y-true", "y", "--y-pred", "p"],
                          "g"),
                         (["bias-audit", str(path), "--category", "g", "--y-pred", "p"], "g")):
        result = runner.invoke(app, [*args, "--format", "csv"])
        assert result.exit_code == 0, result.stderr
        for raw in ("\u202e", "\u200b", "\x00", "\ufeff"):
            assert raw not in result.stdout
        lines = result.stdout.split("\n")
        body = "\n".join(lines[next(i for i, x in enumerate(lines) if not x.startswith("#")):])
        cells = {r[column] for r in csv.DictReader(io.StringIO(body, newline=""))}
        assert cells == written, cells
