"""Option values converted without pydantic give what Typer's own converters give (issue 20).

:mod:`polars_fair.cli.coercion` converts the common values itself and hands the rest to Typer.
The reference here is Typer's converter (``typer._coercion.build_runtime_param``, through
pydantic) on the same parameter of the real app: every value of a battery per type must
convert to the same value of the same type, or fail with the same message and the same
one-line usage error (:func:`polars_fair.cli.group.usage_message`).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import typer
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param

from polars_fair.cli.coercion import FastRuntimeParam
from polars_fair.cli.entry import app
from polars_fair.cli.group import usage_message

ROOT = Path(__file__).resolve().parents[2]

#: (command, parameter, values): one parameter of each annotation the app uses.
BATTERY: list[tuple[str, str, list[Any]]] = [
    ("report", "max_groups", ["0", "7", "-3", "007", "+5", " 5", "5 ", "5.0", "1e3", "abc",
                              "", "1_000", "99999999999999999999", "١٢", 30]),
    ("report", "max_groups", ["10", "-0", "0x10", 10000]),
    ("report", "path", ["a.csv", "", "dir/b.parquet", Path("c.csv")]),
    ("report", "output", ["out.csv", Path("x.json")]),
    ("report", "y_true", ["y", "", "é ", "a b"]),
    ("report", "null_groups", ["keep", "KEEP", "drop", "bogus", ""]),
    ("report", "by", [("race",), ("race", "sex"), ()]),
    ("report", "all_columns", [True, False]),
    ("report", "four_fifths", ["0.8", "1", "abc", "", "1e-400", Decimal("0.8")]),
]


def _numeric_batteries() -> list[tuple[str, str, list[Any]]]:
    """Float and Literal parameters of the generated commands, found by their annotation."""
    group = typer.main.get_command(app)
    found: dict[str, tuple[str, str, list[Any]]] = {}
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        for p in cmd.params:
            desc = getattr(p, "type_descriptor", None)
            if desc is None:
                continue
            key = repr(desc.annotation)
            if desc.annotation is float and "float" not in found:
                found["float"] = (name, p.name, ["0.5", "-1.25", "1", "1.", ".5", "5e-1", "nan",
                                                 "inf", "abc", "", "1_0.5", 0.5])
            elif desc.choices is not None and key not in found:
                found[key] = (name, p.name, [str(desc.choices[0]), "bogus",
                                             str(desc.choices[-1]).upper()])
    assert "float" in found
    return list(found.values())


def _convert(param: Any, runtime: Any, ctx: Any, value: Any) -> tuple[str, Any]:
    try:
        out = runtime.coerce(value, param=param, ctx=ctx)
    except BadParameter as exc:
        return "error", (str(exc.message), usage_message(exc))
    return "value", (type(out).__name__, repr(out))  # repr: nan equals nan


@pytest.mark.parametrize(("command", "name", "values"), BATTERY + _numeric_batteries())
def test_fast_conversion_gives_typers_values_and_errors(command: str, name: str,
                                                        values: list[Any]) -> None:
    group = typer.main.get_command(app)
    cmd = group.commands[command]  # type: ignore[attr-defined]
    with cmd.context_class(cmd) as ctx:
        param = next(p for p in cmd.get_params(ctx) if p.name == name)
        fast = param.get_runtime_param()
        assert isinstance(fast, FastRuntimeParam)
        typers = build_runtime_param(param.type_descriptor)
        assert not isinstance(typers, FastRuntimeParam)
        for value in values:
            assert _convert(param, fast, ctx, value) == _convert(param, typers, ctx, value), value


def test_a_report_on_rows_imports_no_pydantic(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text("g,y_true,y_pred\na,1,1\nb,0,1\na,0,0\n")
    code = f"""
        import contextlib, io, sys
        from polars_fair.cli import launch
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                launch.main(["report", {str(data)!r}, "--by", "g", "--min-support", "1",
                             "--null-groups", "drop", "--four-fifths", "0.8"])
            except SystemExit as done:
                assert done.code == 0, done.code
        print(sorted(m for m in sys.modules if m.split(".")[0] == "pydantic"))
    """
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
