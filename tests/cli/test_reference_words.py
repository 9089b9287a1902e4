"""``--reference`` names every group as the command line shows it (h-fix20c items 3 and 4).

The missing group could not be the reference: ``--reference '(missing)'`` named the text
"(missing)". Now the bare ``(missing)`` is the missing group and ``'"(missing)"'`` the text, as
the tables write them. An unknown reference listed the groups as a Python list of reprs
(``['C:\\\\x', "O'Brien"]``); it lists a few as the shell words ``--reference`` takes, each of
which, pasted as written, names its group. The header and the LL 144 note show no repr either.

The rows, by hand: eight groups of 5 rows, selection rate 3/5 for each (y_pred 1, 1, 1, 0, 0).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()
GROUPS = ["a", "O'Brien", "C:\\x", 'a"b', "(missing)", None, "x, y", '"q']


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = tmp_path / "rows.parquet"
    pl.DataFrame({"g": [g for g in GROUPS for _ in range(5)], "y_true": [1, 0, 1, 0, 1] * 8,
                  "y_pred": [1, 1, 1, 0, 0] * 8}).write_parquet(p)
    return p


def _reference(path: Path, *args: str) -> list[object]:
    out = runner.invoke(app, ["report", str(path), "--by", "g", "--min-support", "1",
                              "--format", "json", *args])
    assert out.exit_code == 0, out.output
    return [r["g"] for r in json.loads(out.stdout) if r["is_reference"]]


def test_the_missing_group_and_the_text_missing_as_references(path: Path) -> None:
    assert _reference(path, "--reference", "(missing)") == [None]
    assert _reference(path, "--reference", '"(missing)"') == ["(missing)"]
    out = runner.invoke(app, ["report", str(path), "--by", "g", "--reference", "(missing)",
                              "--min-support", "1", "--columns", "g,is_reference"])
    assert "reference='g=(missing)'" in out.stdout.splitlines()[0]  # a shell word, no repr


def test_the_missing_group_in_a_mapping(tmp_path: Path) -> None:
    p = tmp_path / "two.parquet"
    pl.DataFrame({"g": [None, None, "(missing)", "(missing)"], "h": ["x", "y", "x", "y"],
                  "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 1]}).write_parquet(p)
    out = runner.invoke(app, ["report", str(p), "--by", "g", "--by", "h", "--reference",
                              "g=(missing),h=y", "--min-support", "1", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert [(r["g"], r["h"]) for r in json.loads(out.stdout) if r["is_reference"]] == [
        (None, "y")]


def test_an_unknown_reference_lists_shell_words_that_work(path: Path) -> None:
    out = runner.invoke(app, ["report", str(path), "--by", "g", "--reference", "nobody"])
    assert out.exit_code == 2
    message = out.stderr.strip()
    assert message.startswith("polars-fair: error: --reference 'nobody' names no group; ")
    listed = message.split("the groups are: ", 1)[1].rsplit(" (each as", 1)[0]
    # the groups sorted (text order, missing last), each written for the shell by hand
    # five of the eight, then how many more (a few values, each runnable)
    assert listed == ("'\"\"\"q\"', '\"(missing)\"', 'C:\\x', \"O'Brien\", 'a', "
                      "... (3 more)")
    listed = listed.rsplit(", ...", 1)[0]
    words = shlex.split(listed.replace("', '", "' '").replace("\", '", "\" '")
                        .replace("', \"", "' \""))
    assert len(words) == 5
    chosen = [_reference(path, "--reference", w)[0] for w in words]  # each word, as written
    assert chosen == ['"q', "(missing)", "C:\\x", "O'Brien", "a"]


def test_a_misspelled_reference_suggests_a_word_that_works(path: Path) -> None:
    out = runner.invoke(app, ["report", str(path), "--by", "g", "--reference", "OBrien"])
    assert out.exit_code == 2
    m = re.search(r"did you mean --reference (\S+)\?", out.stderr)
    assert m and m.group(1) == "\"O'Brien\""
    assert _reference(path, "--reference", *shlex.split(m.group(1))) == ["O'Brien"]


def test_the_ll144_small_benchmark_note_names_the_group_without_repr(tmp_path: Path) -> None:
    p = tmp_path / "ll.parquet"
    pl.DataFrame({"g": ["O'Brien"] * 10 + ["b"] * 40,
                  "sel": [1] * 10 + [1, 0] * 20}).write_parquet(p)
    out = runner.invoke(app, ["bias-audit", str(p), "--category", "g", "--y-pred", "sel",
                              "--format", "json", "--plain-benchmark"])
    assert out.exit_code == 0, out.output
    # O'Brien: 10 of 10 selected, the benchmark under the law's plain rule, 10 applicants < 30
    assert json.loads(out.stdout)["small_benchmark"][0].startswith(
        "the benchmark of g (g=O'Brien: the highest selection_rate")
