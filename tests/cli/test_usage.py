"""Usage errors told from the cached parameter table read exactly as the full command line's.

:func:`polars_fair.cli.usage.check` answers a usage error before Polars is imported, from the
table that :func:`polars_fair.cli.usage.remember` wrote. The reference is the full command line
(:func:`polars_fair.cli.entry.main`) on the same arguments: whenever the table answers, the exit
code, stdout and stderr must be the full command line's; and it must answer the common
mistakes (a missing required option or argument, an unknown flag, a flag without its value, an
extra argument), or it would never save anything.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import typer

from polars_fair.cli import usage
from polars_fair.cli.entry import app
from polars_fair.cli.entry import main as full_main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv(usage.CACHE_ENV, str(tmp_path))
    usage.remember(app)
    written: dict[str, Any] = json.loads(usage.cache_file().read_text())
    return written


def _run(fn: Any, args: list[str]) -> tuple[Any, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code: Any = None
    argv = sys.argv
    sys.argv = ["polars-fair", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            fn(args)
    except SystemExit as done:
        code = done.code
    finally:
        sys.argv = argv
    return code, out.getvalue(), err.getvalue()


def _full(args: list[str]) -> None:
    full_main()


def _lines(table: dict[str, Any]) -> list[list[str]]:
    """Mistaken command lines for every command, and a few of each kind of value."""
    lines = []
    for name, params in table.items():
        path = ["data.csv"] if any(p["class"] == "argument" for p in params) else []
        lines += [[name], [name, *path], [name, *path, "--bogus"], [name, *path, "--bogus=1"],
                  [name, *path, "--hlp"],
                  [name, *path, "x", "y", "z"], [name, *path, "--format", "json", "--bogus"],
                  [name, *path, "--format", "json"], [name, *path, "--where", "x > 1"]]
        for p in params:
            if p["class"] != "option" or p.get("is_flag"):
                continue
            flag = p["opts"][0]
            lines.append([name, *path, flag])  # the value is missing
            if p["kind"] == "int":
                lines += [[name, *path, flag, v] for v in ("abc", "12", "1e3", "1.5", "", "-",
                                                            " 7 ", "1_000", "inf")]
            if p["kind"] == "number":
                lines += [[name, *path, flag, v] for v in ("abc", "0.5", "1,5", "", "nan",
                                                            "1e-400", " 2 ")]
            if p["kind"] == "choice":
                lines += [[name, *path, flag, "bogus"], [name, *path, flag, p["choices"][0]]]
    return lines


def test_the_tables_usage_errors_are_the_full_command_lines(table: dict[str, Any]) -> None:
    answered = set()
    for args in _lines(table):
        light = _run(usage.check, args)
        if light == (None, "", ""):
            continue  # the table left it to the full command line
        assert light == _run(_full, args), args
        assert light[0] == 2
        answered.add((args[0], tuple(a if a.startswith("-") else "V" for a in args[1:])))
    assert ("report", ()) in answered  # missing PATH
    # a missing --by where it is optional beside --membership (group.ONE_OF), and where not
    assert ("report", ("V",)) in answered
    assert ("report", ("V", "--format", "V")) in answered  # with the JSON error
    assert ("rates", ("V", "--where", "V")) in answered
    assert ("abroca", ("V",)) in answered
    # a value the full command surely refuses: no integer, no number, not a choice
    for line in (["report", "d.csv", "--by", "g", "--max-groups", "1e3"],
                 ["report", "d.csv", "--by", "g", "--threshold", "abc"],
                 ["rates", "d.csv", "--by", "g", "--null-groups", "bogus"],
                 ["sample-size", "--impact-ratio", "x"]):
        light = _run(usage.check, line)
        assert light == _run(_full, line), line
        assert light[0] == 2 and light[2].startswith(f"polars-fair: error: {line[-2]}: "), light
    assert ("report", ("V", "--bogus")) in answered
    assert ("report", ("V", "--hlp")) in answered  # did you mean --help
    assert ("report", ("V", "--by")) in answered  # --by without its value
    assert ("report", ("V", "--format", "V", "--bogus")) in answered  # with the JSON error
    assert ("abroca", ("V", "--bogus")) in answered  # a generated command


def test_a_valid_line_help_and_no_table_go_to_the_full_command_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, table: dict[str, Any]) -> None:
    assert _run(usage.check, ["report", "d.csv", "--by", "g"]) == (None, "", "")
    assert _run(usage.check, ["report", "--help"]) == (None, "", "")
    # a value only Typer's converter can judge (an integer to pydantic, not to the table)
    assert _run(usage.check, ["report", "d.csv", "--by", "g", "--min-support", "1_000"]) == (
        None, "", "")
    monkeypatch.setenv(usage.CACHE_ENV, str(tmp_path / "empty"))
    assert _run(usage.check, ["report", "d.csv"]) == (None, "", "")


def test_both_spellings_of_the_baseline_the_table_leaves_or_tells_alike(
        tmp_path: Path, table: dict[str, Any]) -> None:
    """--baseline is its own hidden parameter (issue 25 re-review, item 3): the table lists it,
    so a line with it (or without compare's baseline) is told as the full command line tells it,
    or left to the full command line, which refuses both spellings at once."""
    import polars as pl

    from polars_fair import errors as E

    path = tmp_path / "d.csv"
    pl.DataFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 0], "old": [0, 1]}).write_csv(
        path)
    both = ["--baseline-pred", "old", "--baseline", "y_true"]
    compare = ["compare", str(path), "--by", "g", "--y-pred", "y_pred"]
    lines = [[*compare, *both], ["check", str(path), "--by", "g", *both],
             ["report", str(path), "--by", "g", "--html", str(tmp_path / "p.html"), *both],
             compare, [*compare, "--baseline"], ["check", str(path), "--by", "g", "--baseline"]]
    for name in ("compare", "check", "report"):
        assert [p["opts"] for p in table[name] if p["name"] == "baseline_alias"] == [["--baseline"]]
    for args in lines:
        light, full = _run(usage.check, args), _run(_full, args)
        assert light in ((None, "", ""), full), args
        assert full[0] == 2, (args, full)
    for args in lines[:3]:
        assert _run(_full, args)[2].strip() == f"polars-fair: error: {E.CLI_BASELINE_TWICE}"


def test_the_table_names_the_installation(tmp_path: Path, table: dict[str, Any]) -> None:
    before = usage.cache_file()
    module = Path(usage.__file__)
    stat = module.stat()
    try:
        module.touch()  # any module of the package changed: another table
        assert usage.cache_file() != before
    finally:
        import os

        os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert usage.cache_file() == before
    assert set(table) == set(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def fresh_process(cache: Path, argv: list[str]) -> list[Any]:
    """Run the console script in a new process: its exit code, its stderr, and whether Polars
    and pydantic were imported (``cache``: the parameter table's directory)."""
    code = f"""
        import contextlib, io, json, os, sys
        os.environ["POLARS_FAIR_CACHE_DIR"] = {str(cache)!r}
        import _polars_fair_cli
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                _polars_fair_cli.main()
            except SystemExit as done:
                code = done.code
        print(json.dumps([code, err.getvalue().strip(), "polars" in sys.modules,
                          "pydantic" in sys.modules]))
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *argv], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_console_script_tells_a_usage_error_without_polars(tmp_path: Path) -> None:
    results = []
    bad = ["report", "data.csv", "--by", "g", "--no-such-flag"]
    for argv in (bad, ["demo", "--n", "200", "--format", "csv"], bad,
                 ["demo", "--n", "200", "--format", "csv"], ["report", "data.csv"]):
        results.append(fresh_process(tmp_path, argv))
    missing = "polars-fair: error: no such option: --no-such-flag"
    # no table yet: the full command line tells it (and writes the table); then the table does
    # and neither the table's parse nor the command's converts a value through pydantic
    assert results == [[2, missing, True, False], [0, "", True, False],
                       [2, missing, False, False], [0, "", True, False],
                       [2, "polars-fair: error: missing option --by", False, False]]


def test_remember_replaces_this_installations_old_table_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(usage.CACHE_ENV, str(tmp_path))
    mine = usage.cache_file().name  # usage-INSTALLATION-FINGERPRINT.json
    installation = mine.split("-")[1]
    stale = tmp_path / f"usage-{installation}-0000000000000000.json"  # an older version
    other = tmp_path / "usage-ffffffff-0000000000000000.json"  # another environment's
    for path in (stale, other):
        path.write_text("{}")
    assert usage.remember(app)
    assert sorted(p.name for p in tmp_path.glob("usage-*.json")) == sorted([mine, other.name])
