"""The entry point answers ``--help`` and an unknown command from its own table (issue 20).

The table (:data:`polars_fair.cli.launch.COMMANDS`) must be the app's: same commands, same order,
same first help line. Nothing here is timed (``benchmarks/cli_time.py`` measures).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import typer

from polars_fair.cli.entry import app
from polars_fair.cli.launch import COMMANDS, HELP

ROOT = Path(__file__).resolve().parents[2]


def test_the_launcher_table_is_the_apps() -> None:
    group = typer.main.get_command(app)
    with group.make_context("polars-fair", ["report"], resilient_parsing=True) as ctx:
        names = group.list_commands(ctx)  # type: ignore[attr-defined]
        first = {n: (group.get_command(ctx, n).help or "").strip().splitlines()[0]  # type: ignore[attr-defined, union-attr]
                 for n in names}
    assert list(COMMANDS) == names
    assert COMMANDS == first
    assert HELP == app.info.help


def _fresh(code: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_help_and_an_unknown_command_build_no_command_and_load_no_numpy() -> None:
    got = _fresh("""
        import contextlib, io, json, sys
        from polars_fair.cli import launch
        codes, texts = [], []
        for argv in (["--help"], ["raport"]):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    launch.main(argv)
                except SystemExit as done:
                    codes.append(done.code)
            texts.append(out.getvalue() + err.getvalue())
        print(json.dumps({"codes": codes, "entry": "polars_fair.cli.entry" in sys.modules,
                          "numpy": "numpy" in sys.modules, "help": "abroca-test" in texts[0],
                          "error": texts[1].strip()}))
    """)
    assert got == {"codes": [0, 2], "entry": False, "numpy": False, "help": True,
                   "error": "polars-fair: error: no such command 'raport'. Did you mean "
                            "'report'?"}


def test_a_command_runs_through_the_launcher_and_builds_only_itself() -> None:
    got = _fresh("""
        import contextlib, io, json, sys
        from polars_fair.cli import entry, launch
        built = []
        get = entry._LazyGroup.get_command
        def spy(self, ctx, name):
            built.append(name)
            return get(self, ctx, name)
        entry._LazyGroup.get_command = spy
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                launch.main(["demo", "--n", "500", "--format", "csv"])
            except SystemExit as done:
                code = done.code
        print(json.dumps({"code": code, "built": sorted(set(built)),
                          "header": out.getvalue().splitlines()[0][:12]}))
    """)
    assert got == {"code": 0, "built": ["demo"], "header": "race,sex,n,t"}


def test_the_console_script_answers_help_without_polars_then_runs_commands_in_the_package(
) -> None:
    got = _fresh("""
        import contextlib, io, json, sys
        import _polars_fair_cli
        seen = {}
        for name, argv in (("help", ["--help"]), ("unknown", ["raport"])):
            sys.argv = ["polars-fair", *argv]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    _polars_fair_cli.main()
                except SystemExit as done:
                    code = done.code
            seen[name] = [code, "polars" in sys.modules,
                          sorted(m for m in sys.modules if m.startswith("polars_fair")),
                          (out.getvalue() + err.getvalue()).strip().splitlines()[-1]]
        sys.argv = ["polars-fair", "demo", "--n", "500", "--format", "csv"]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                _polars_fair_cli.main()
            except SystemExit as done:
                code = done.code
        import polars as pl
        seen["demo"] = [code, out.getvalue().splitlines()[0][:12],
                        hasattr(pl.DataFrame, "fair"), sys.modules["polars_fair"].__file__
                        is not None]
        print(json.dumps(seen))
    """)
    help_code, help_polars, help_modules, _ = got["help"]  # type: ignore[misc]
    assert (help_code, help_polars, help_modules) == (0, False, [])
    assert got["unknown"] == [2, False, [], "polars-fair: error: no such command 'raport'. "
                                            "Did you mean 'report'?"]
    assert got["demo"] == [0, "race,sex,n,t", True, True]
