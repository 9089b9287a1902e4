"""The fast loop's own machinery (issue 18, item 6): speed-ups that keep every test checking
what it checked, and the budget that keeps the loop fast.

``tests/conftest.py`` builds a Typer app's click group once for all ``CliRunner`` calls
(:func:`tests.conftest._built_once`); these tests show that the cache is in effect (else the
fast loop silently slows down by some 15 CPU-seconds) and that an app whose commands change is
built again. Under ``-m "not slow"`` it lists the tests over
:data:`tests.conftest.FAST_TEST_BUDGET` CPU-seconds at the end of the run.
"""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import typer
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from tests import conftest
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


class _Reporter:
    """What pytest_terminal_summary reads and writes of pytest's terminal reporter."""

    def __init__(self, stats: dict[str, list[object]]) -> None:
        self.stats = stats
        self.lines: list[str] = []

    def write_sep(self, sep: str, title: str) -> None:
        self.lines.append(title)

    def write_line(self, line: str) -> None:
        self.lines.append(line)


class _Config:
    def __init__(self, markexpr: str) -> None:
        self.markexpr = markexpr

    def getoption(self, name: str, default: object = None) -> object:
        return self.markexpr if name == "markexpr" else default


def _report(nodeid: str, when: str, cpu: float | None) -> SimpleNamespace:
    report = SimpleNamespace(nodeid=nodeid, when=when)
    if cpu is not None:
        report.cpu_seconds = cpu
    return report


def test_the_fast_loop_lists_its_tests_over_the_budget_costliest_first() -> None:
    stats: dict[str, list[object]] = {
        "": [_report("t.py::cheap", "teardown", 0.2), _report("t.py::dear", "teardown", 1.5),
             _report("t.py::unknown", "teardown", None)],
        "passed": [_report("t.py::dear", "call", 9.0)],  # only teardown reports carry the sum
        "error": [_report("t.py::dearer", "teardown", 2.25)],
    }
    reporter = _Reporter(stats)
    conftest.pytest_terminal_summary(reporter, _Config("not  slow"))  # type: ignore[arg-type]
    assert conftest.FAST_TEST_BUDGET == 1.0
    assert reporter.lines == [
        "2 fast test(s) over 1 CPU-second: make them cheaper or slow with a fast twin "
        "(tests/conftest.py SLOW_TESTS)",
        "  2.25 s  t.py::dearer",
        "  1.50 s  t.py::dear",
    ]
    quiet = _Reporter(stats)
    conftest.pytest_terminal_summary(quiet, _Config("slow"))  # type: ignore[arg-type]
    assert quiet.lines == []  # only the fast loop has the budget


def test_a_test_measures_its_own_cpu_and_its_waited_subprocesses() -> None:
    start = conftest._cpu_seconds()
    subprocess.run([sys.executable, "-c", "sum(range(3_000_000))"], check=True)
    assert conftest._cpu_seconds() - start > 0.01  # the child's interpreter start alone
