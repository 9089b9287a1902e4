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
