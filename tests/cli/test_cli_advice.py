"""Every command-line error gives command-line advice (issue 19, item 4, second review).

``--seed -5`` advised "a numpy Generator or None", which cannot be typed; ``--combinations``
"or None"; a text ``--time`` column ``pl.col('t').str.to_date()``; a reference rule another
analysis does not take "a mapping {attribute: value}". Each now gets its command-line twin
(``cli_message`` of the error, or the one translation in :func:`polars_fair.cli.io.cli_message`),
the Python messages stay Python, and the advice given is followed here and works.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

#: Words of Python advice that cannot be typed on the command line.
PYTHON_WORDS = ("numpy", "Generator", " None", "pl.", "{attribute", "df.", ".alias(", "True or")


@pytest.fixture()
def rows(tmp_path: Path) -> Path:
    # a: 4 rows, b: 4 rows; scores 0.1..0.8; a time column written as text in the CSV
    path = tmp_path / "rows.csv"
    pl.DataFrame({
        "g": ["a", "b"] * 4, "k": [0, 1, 2, 0, 1, 2, 0, 1], "y_true": [1, 0, 1, 1, 0, 0, 1, 0],
        "y_pred": [1, 0, 0, 1, 1, 0, 1, 0], "s": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
        "t": [dt.date(2024, 1, 1) + dt.timedelta(days=10 * i) for i in range(8)],
    }).write_csv(path)
    return path


def _error(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    return result.output.strip().removeprefix("polars-fair: error: ")


@pytest.mark.parametrize(("args", "want"), [
    (["abroca-test", "--y-score", "s", "--seed", "-5"],
     "--" + E.CLI_BAD_SEED.format(value=-5)),
    (["multiclass-test", "--y-pred", "k", "--y-true", "k", "--seed", "-1"],
     "--" + E.CLI_BAD_SEED.format(value=-1)),
    (["multiclass-test", "--y-pred", "k", "--y-true", "k", "--combinations", "foo"],
     "--" + E.CLI_BAD_COMBINATIONS.format(value="foo")),
    (["monitor", "--y-pred", "y_pred", "--time", "t", "--every", "1mo"],
     E.CLI_MONITOR_TIME_DTYPE.format(column="t", dtype=pl.String, dtype_option="t=date")),
    (["abroca", "--y-score", "s", "--reference", "max_selection_rate"],
     "--reference 'max_selection_rate' is not a reference of this analysis; pass one of "
     "['largest', 'max_auc'], a group value (one attribute) or attr=value,attr=value"),
])
def test_a_cli_error_gives_cli_advice(rows: Path, args: list[str], want: str) -> None:
    message = _error(args[0], str(rows), "--by", "g", *args[1:])
    assert message == want
    assert not [w for w in PYTHON_WORDS if w in message], message


def test_python_keeps_its_own_advice() -> None:
    df = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 0], "y_score": [0.2, 0.7]})
    with pytest.raises(E.InvalidArgumentError) as info:
        df.fair.abroca_test("g", seed=-5)
    assert str(info.value) == E.BAD_SEED.format(value=-5)  # a Generator can be passed there


def test_the_cli_advice_works_when_followed(rows: Path) -> None:
    # --dtype t=date, as the monitor's error advises: the eight dates fall in January (4 rows:
    # days 1, 11, 21, 31) and February (4 rows), so 2 periods x 2 groups
    result = runner.invoke(app, ["monitor", str(rows), "--by", "g", "--y-pred", "y_pred",
                                 "--time", "t", "--every", "1mo", "--dtype", "t=date",
                                 "--min-support", "1", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("\n2024-01-01,") == 2 and result.stdout.count("\n2024-02-01,") == 2
    # an integer >= 0 for --seed, as the advice says
    ok = runner.invoke(app, ["abroca-test", str(rows), "--by", "g", "--y-score", "s", "--seed",
                             "5", "--n-permutations", "20", "--format", "csv"])
    assert ok.exit_code == 0, ok.output
    # attr=value,attr=value for a reference: g=a names group a
    ok = runner.invoke(app, ["abroca", str(rows), "--by", "g", "--y-score", "s", "--reference",
                             "g=a", "--format", "csv"])
    assert ok.exit_code == 0, ok.output


@pytest.mark.parametrize(("header", "by", "template", "name"), [
    ("n", ["n"], E.RESERVED_NAME, "n"),          # a column named like an output column
    ("g_i", ["g", "g_i"], E.KEY_SUFFIX_CLASH, "g_i"),  # one read as g's pair column (pairwise)
])
def test_a_name_clash_gives_cli_advice_that_works(tmp_path: Path, header: str, by: list[str],
                                                  template: str, name: str) -> None:
    import shlex

    from polars_fair.core.spec import cli_rename

    path = tmp_path / "clash.csv"
    # g: a, b, a, b; the clashing column: x, y, y, x; labels 1, 0, 1, 1; predictions 1, 1, 0, 1
    pl.DataFrame({"g": ["a", "b", "a", "b"], header: ["x", "y", "y", "x"],
                  "y_true": [1, 0, 1, 1], "y_pred": [1, 1, 0, 1]}).write_csv(path)
    flags = [a for b in by for a in ("--by", b)]
    message = _error("pairwise", str(path), *flags)
    # the package's Python name reads as the command (issue 20: no Python names on the CLI)
    assert message == cli_rename(template, [name]).replace(
        "output columns of polars_fair;", "output columns of polars-fair pairwise;")
    assert not [w for w in PYTHON_WORDS if w in message], message
    advice = shlex.split(message.rsplit("for example ", 1)[1])  # ['--by', '"n" AS n_attr']
    flags = [a for b in by for a in (("--by", b) if b != name else advice)]
    result = runner.invoke(app, ["pairwise", str(path), *flags, "--format", "csv"])
    assert result.exit_code == 0, result.output


def test_normalize_is_advised_as_the_flag_it_is() -> None:
    # formerly "pass --normalize True" (issue 24 review): --normalize takes no value
    from polars_fair.cli.io import cli_message
    text = cli_message(E.MEMBERSHIP_SUM.format(count=1, attribute="g", columns="['p_a']",
                                               tolerance=1e-6))
    assert text.endswith("fix them, or pass --normalize to divide each row by its sum")


def test_demo_takes_the_columns_options_its_note_advises() -> None:
    # demo's table note names hidden columns and --columns; both options now exist on demo
    result = runner.invoke(app, ["demo", "--n", "2000"])
    assert result.exit_code == 0, result.stderr
    m = re.search(r"not shown \(\d+ column\(s\)[^)]*\): ([^;]+); choose with --columns",
                  result.stdout + result.stderr)
    assert m, result.stdout
    hidden = [c.strip() for c in m.group(1).split(",")]
    chosen = runner.invoke(app, ["demo", "--n", "2000", "--columns",
                                 ",".join(["race", "sex", "n", *hidden])])
    assert chosen.exit_code == 0, chosen.stderr
    assert _header(chosen.stdout) == ["race", "sex", "n", *hidden]
    every = runner.invoke(app, ["demo", "--n", "2000", "--all-columns"])
    assert every.exit_code == 0, every.stderr
    assert "not shown" not in every.stdout + every.stderr
    assert set(hidden) <= set(_header(every.stdout))


def _header(table: str) -> list[str]:
    """The column names of a printed table: its first row of cells (``│ race ┆ sex ...``)."""
    line = next(line for line in table.splitlines() if line.startswith("│"))
    return [cell.strip() for cell in line.strip("│").split("┆")]


def test_demo_with_too_few_rows_advises_a_larger_n_that_runs() -> None:
    result = runner.invoke(app, ["demo", "--n", "1"])
    assert result.exit_code == 2
    assert "--pos-label" not in result.stderr  # demo takes no --pos-label
    assert E.CLI_DEMO_TOO_FEW.format(n=1) in result.stderr
    followed = runner.invoke(app, ["demo", "--n", "20000", "--format", "csv"])
    assert followed.exit_code == 0, followed.stderr
    # the demo's groups (race x sex) count all 20,000 rows
    rows = [line for line in followed.stdout.splitlines() if line.count(",") > 2]
    assert rows[0].startswith("race,sex,n,")
    assert sum(int(line.split(",")[2]) for line in rows[1:]) == 20_000


def test_a_score_without_threshold_advises_flags_that_run(tmp_path: Path) -> None:
    # scores 1..8, label 1 for scores >= 5; no column y_pred
    path = tmp_path / "scored.csv"
    pl.DataFrame({"g": ["a", "b"] * 4, "s": [1, 2, 3, 4, 5, 6, 7, 8],
                  "y_true": [0, 0, 0, 0, 1, 1, 1, 1]}).write_csv(path)
    base = ["report", str(path), "--by", "g", "--y-score", "s", "--format", "csv",
            "--min-support", "1"]
    result = runner.invoke(app, base)
    assert result.exit_code == 2
    assert E.CLI_SCORE_NEEDS_THRESHOLD in result.stderr
    assert "not found" not in result.stderr  # not the missing default column y_pred
    # followed with --threshold 5: a (1, 3, 5, 7) selects 5, 7; b (2, 4, 6, 8) selects 6, 8
    followed = runner.invoke(app, [*base, "--threshold", "5"])
    assert followed.exit_code == 0, followed.stderr
    out = pl.read_csv(followed.stdout.encode()).sort("g")
    assert out["n"].to_list() == [4, 4]
    assert out["selection_rate"].to_list() == [0.5, 0.5]
    # followed with --y-pred instead: predictions s >= 7 select 7 in a and 8 in b
    followed = runner.invoke(app, [*base, "--y-pred", "s >= 7"])
    assert followed.exit_code == 0, followed.stderr
    out = pl.read_csv(followed.stdout.encode()).sort("g")
    assert out["selection_rate"].to_list() == [0.25, 0.25]
