"""Command-line messages name flags, never Python arguments or functions (issue 20).

A message written for the Python API names its parameters (``max_impact_ratio_drop``,
``y_true column 'x'``) and its functions (``summary_from_counts``); on the command line each is
translated (:func:`polars_fair.cli.io.cli_message`, with every command's parameters learnt on
the error path, :func:`polars_fair.cli.entry.learn_flags`). The sweep runs each command's
numeric options with values outside their range or past their limit and checks that no Python
parameter name of that command (built from its parameters) appears outside quotes.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
import typer
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.datasets import make_hiring

runner = CliRunner()
_QUOTED = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\[[^\]]*\]""")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("names") / "h.csv"
    make_hiring(600, seed=0).with_columns(
        pl.col("race", "sex", "age_band").cast(pl.String),
        t=pl.date(2024, 1, 1) + pl.duration(days=pl.col("applicant_id") % 60),
        base=pl.col("y_pred"), out=pl.col("y_score") * 10).write_csv(path)
    return path


def _python_names(message: str, names: set[str]) -> set[str]:
    """The Python names of ``names`` (and function names) outside quotes and lists."""
    text = _QUOTED.sub(" ", message)
    words = set(re.findall(r"(?<![\w-])([a-z]+(?:_[a-z]+)+)(?![\w-])", text))
    return (words & names) | {w for w in words if re.fullmatch(r"\w+_(from_\w+|table)", w)} | (
        {"polars_fair"} if "polars_fair" in text else set())


def _err(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, (args, result.stdout[-300:], result.stderr)
    return " ".join(result.stderr.split())


def test_the_reviewed_messages_name_flags(data: Path) -> None:
    h = str(data)
    err = _err("check", h, "--by", "race", "--baseline-pred", "base",
               "--max-impact-ratio-drop", "2")
    assert err == "polars-fair: error: --max-impact-ratio-drop must lie in [0, 1], got 2"
    err = _err("report", h, "--by", "race", "--y-true", "-1")
    assert err.startswith("polars-fair: error: --y-true column '-1' and --y-pred column 'y_pred'")
    err = _err("calibration", h, "--by", "race", "--y-score", "-1")
    assert err.startswith("polars-fair: error: --y-score must lie in [0, 1]")
    err = _err("summary", h, "--by", "race AS metric")
    assert "clash with output column(s) of polars-fair summary;" in err
    assert "summary_from_counts" not in err
    err = _err("report", h, "--by", "race", "--by", "sex", "--reference", "race=White")
    assert err == ("polars-fair: error: --reference must name each --by attribute once "
                   "(attr=value,attr=value): race, sex; got race")
    err = _err("report", h, "--by", "race", "--pos-label", "yes")
    assert "pos_label" not in err
    err = _err("availability", h, "--by", "race")
    assert err == ("polars-fair: error: availability needs --benchmark COLUMN=V1:X1,V2:X2,..., "
                   "the benchmark population's shares; none given")


def _sweep_lines(data: Path) -> list[tuple[str, list[str], set[str]]]:
    group = typer.main.get_command(app)
    base = {"report": ["--by", "race"], "demo": [],
            "check": ["--by", "race", "--baseline-pred", "base"],
            "sample-size": ["--impact-ratio", "0.8", "--reference-rate", "0.5"],
            "compare": ["--by", "race", "--baseline-pred", "base", "--y-pred", "y_pred"],
            "monitor": ["--by", "race", "--time", "t", "--every", "1w", "--y-pred", "y_pred"],
            "bias-audit": ["--category", "race", "--y-pred", "y_pred"],
            "availability": ["--by", "race", "--benchmark",
                             "race=White:0.5,Black:0.2,Hispanic:0.2,Asian:0.05,"
                             "Pacific Islander:0.05"],
            "continuous-report": ["--by", "race", "--y-pred", "out"],
            "membership-calibration": None, "proxy-report": None}
    lines = []
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        if name in base and base[name] is None:
            continue  # membership columns: their own tests (tests/cli/test_cli_membership*)
        names = {p.name for p in cmd.params if p.name and "_" in p.name}
        params = {p.name for p in cmd.params}  # a score command: --y-score, no --y-pred
        given = base[name] if name in base else ["--by", "race"] + (
            ["--y-score", "y_score"] if "y_score" in params and "y_pred" not in params else [])
        head = [name, *([] if name in ("demo", "sample-size") else [str(data)]), *given]
        for p in cmd.params:
            meta = str(p.metavar or "")
            if p.param_type_name != "option" or "_" not in (p.name or "") or meta not in (
                    "INTEGER", "NUMBER") and "int" not in repr(getattr(p, "type", "")):
                continue
            flag = next(o for o in p.opts if o.startswith("--"))
            lines += [(name, [*head, flag, v], names) for v in ("-1", "1000000000000")]
    return lines


@pytest.mark.slow  # every numeric option of every command, twice: a few hundred runs
def test_no_command_names_a_python_argument_in_its_errors(data: Path) -> None:
    lines = _sweep_lines(data)
    assert len(lines) > 40
    leaks = {}
    for _, args, names in lines:
        result = runner.invoke(app, args)
        if result.exit_code != 2:
            continue
        found = _python_names(result.stderr, names)
        if found:
            leaks[" ".join(args[2:] if len(args) > 2 else args)] = (found, result.stderr[:300])
    assert not leaks, leaks
