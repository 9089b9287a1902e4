"""The test harness's own speed-ups keep every test checking what it checked (issue 18, item 6).

``tests/conftest.py`` builds a Typer app's click group once for all ``CliRunner`` calls
(:func:`tests.conftest._built_once`); these tests show that the cache is in effect (else the
fast loop silently slows down by some 15 CPU-seconds) and that an app whose commands change is
built again.
"""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from tests.conftest import BUILT


def test_the_runner_builds_the_apps_group_once() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["report", "--help"]).exit_code == 0
    built = BUILT[app][1]
    assert runner.invoke(app, ["demo", "--help"]).exit_code == 0
    assert BUILT[app][1] is built
    assert set(built.commands) >= {"report", "demo", "check"}  # type: ignore[attr-defined]


def test_an_app_that_registers_another_command_is_built_again() -> None:
    small = typer.Typer()

    @small.command()
    def one() -> None:
        typer.echo("one")

    runner = CliRunner()
    # a single command runs without its name, as Typer runs it
    assert runner.invoke(small, []).stdout == "one\n"
    first = BUILT[small][1]

    @small.command()
    def two() -> None:
        typer.echo("two")

    assert runner.invoke(small, ["two"]).stdout == "two\n"
    assert runner.invoke(small, ["one"]).stdout == "one\n"
    assert BUILT[small][1] is not first
