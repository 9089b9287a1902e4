"""A choice outside the list is a usage error, told before Polars, with "did you mean" (issue 20).

``--format cvs``, ``--null-groups drp`` and ``--metric tprr`` were checked in the command's body,
after the engine was imported (seconds); every choice-valued option is now a choice of the parser
(:func:`polars_fair.cli.io.choices`), so the cached parameter table
(:mod:`polars_fair.cli.usage`) refuses it in a fresh process without Polars, and the suggestion
is written as it is typed (``--format csv``) and works when followed.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from tests.cli.test_usage import fresh_process

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()

#: (command, the flags before the mistake, the flag, a value outside the list, the choice meant)
CASES = [
    ("report", ["--by", "g"], "--format", "cvs", "csv"),
    ("report", ["--by", "g"], "--null-groups", "drp", "drop"),
    ("check", ["--by", "g"], "--format", "jsn", "json"),
    ("check", ["--by", "g"], "--null-groups", "kep", "keep"),
    ("rates", ["--by", "g"], "--format", "markdwn", "markdown"),
    ("rates", ["--by", "g"], "--null-groups", "raize", "raise"),
    ("bias-audit", ["--category", "g", "--y-pred", "y_pred"], "--format", "htm", "html"),
    ("disparity", ["--by", "g"], "--adjust", "hlm", "holm"),
    # a metric of a fixed list (cli.commands._with_choices), checked by the method before
    ("disparity", ["--by", "g"], "--metric", "tprr", "tpr"),
    ("divergence", ["--by", "g"], "--metric", "selection_rat", "selection_rate"),
]


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    path.write_text("g,y_true,y_pred\n" + "a,1,1\na,0,1\nb,1,0\nb,0,0\n" * 20)  # 40 rows a group
    return path


def _advice(err: str, flag: str) -> list[str]:
    """The words of "(did you mean --flag value?)" as the shell reads them."""
    m = re.search(r"\(did you mean (" + re.escape(flag) + r" [^?]+)\?\)", err)
    assert m, err
    return shlex.split(m.group(1))


@pytest.mark.parametrize(("command", "before", "flag", "wrong", "meant"), CASES)
def test_a_choice_outside_the_list_says_the_flag_as_typed_and_that_works(
        rows: Path, tmp_path: Path, command: str, before: list[str], flag: str, wrong: str,
        meant: str) -> None:
    result = runner.invoke(app, [command, str(rows), *before, flag, wrong])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"polars-fair: error: {flag}: {wrong!r} is not one of ")
    advice = _advice(result.stderr, flag)
    assert advice == [flag, meant]
    out = tmp_path / "out.html" if meant == "html" else None
    extra = ["--output", str(out)] if out else []
    result = runner.invoke(app, [command, str(rows), *before, *advice, *extra])
    assert result.exit_code in (0, 1), result.stderr  # 1: check's gate fails, not a usage
    assert "error" not in result.stderr
    text = result.stdout
    if meant == "csv":  # the format the advice names is the one written
        assert text.splitlines()[0].startswith("g,n,")
    elif meant == "json" and command == "check":
        assert json.loads(text)["passed"] is False  # b selects 0 of 40: impact ratio 0
    elif meant == "markdown":
        assert text.startswith("| g |")
    elif meant == "html":
        assert out is not None and out.read_text().lstrip().lower().startswith("<!doctype html")


def test_a_misspelled_rate_gets_did_you_mean_and_that_works(rows: Path) -> None:
    # --rate repeats (typer takes no list of choices): checked by the registry, with the
    # close metric suggested
    result = runner.invoke(app, ["report", str(rows), "--by", "g", "--rate", "tprr"])
    assert result.exit_code == 2
    m = re.search(r"\(did you mean '(\w+)'\?\)", result.stderr)
    assert m and m.group(1) == "tpr", result.stderr
    result = runner.invoke(app, ["report", str(rows), "--by", "g", "--rate", m.group(1),
                                 "--min-support", "1"])
    assert result.exit_code == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "┆" in line)
    assert "tpr" in header and "fpr" not in header  # the rate named, alone


def test_a_choice_error_is_told_in_a_fresh_process_without_polars(
        rows: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    # the first full run writes the parameter table (test_usage's fresh-process check)
    assert fresh_process(cache, ["demo", "--n", "200", "--format", "csv"])[0] == 0
    for command, before, flag, wrong, meant in CASES:
        code, err, polars_loaded, _ = fresh_process(cache, [command, str(rows), *before, flag,
                                                            wrong])
        assert code == 2 and f"(did you mean {flag} {meant}?)" in err, err
        assert not polars_loaded, (command, flag)  # refused before the engine is imported
