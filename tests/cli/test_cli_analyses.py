"""The generated subcommands: one per analysis, equal to the Python API (issue 12, part 4).

Every public method of ``FairCounts`` / ``FairScores`` / ``FairMoments`` must have a subcommand
(found here by introspection, independently of :mod:`polars_fair.cli.commands`), take every
keyword parameter of the method as an option, show plain types in ``--help``, and give the
Python API's numbers on COMPAS (JSON parsed, compared value by value).
"""

from __future__ import annotations

import inspect
import json
import math
import re
import shlex
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import typer
from typer.testing import CliRunner

import polars_fair
from polars_fair.api.classes import FairClassCounts
from polars_fair.api.continuous import FairMoments
from polars_fair.api.objects import FairCounts, FairScores
from polars_fair.cli.commands import ONE_SET
from polars_fair.cli.entry import app
from polars_fair.datasets import make_hiring
from tests.conftest import ADULT_SCORED_CSV, SHARED_DATA, require

runner = CliRunner()
COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]


def public_methods() -> list[tuple[type, str]]:
    return [(cls, name) for cls in (FairCounts, FairScores, FairMoments, FairClassCounts)
            for name, member in vars(cls).items()
            if not name.startswith("_") and inspect.isfunction(member)]


@pytest.mark.parametrize(("cls", "name"), public_methods(),
                         ids=[f"{c.__name__}.{n}" for c, n in public_methods()])
def test_every_public_method_has_a_subcommand_with_its_keyword_options(cls: type,
                                                                      name: str) -> None:
    command = COMMANDS.get(name.replace("_", "-"))
    assert command is not None, f"no subcommand for {cls.__name__}.{name}"
    flags = {opt for p in command.params for opt in p.opts}
    # a second positional parameter (strata, benchmark) is an option too; by is --by
    method_params = [p.name for p in inspect.signature(getattr(cls, name)).parameters.values()
                     if p.kind is p.KEYWORD_ONLY
                     or (p.kind is p.POSITIONAL_OR_KEYWORD and p.name not in ("self", "by"))]
    for param in method_params:
        if name in ("report", "bias_audit") and param in ("combinations", "max_order"):
            continue  # the hand-written commands audit their own sets
        if name in ONE_SET and param == "combinations":
            assert "--combinations" not in flags  # one set per call; its help says why
            continue
        if name == "report" and param == "reference":
            assert "--reference" in flags
            continue
        assert "--" + param.replace("_", "-") in flags, (name, param)


def test_the_listed_subcommands_of_the_issue_exist() -> None:
    wanted = ["report", "metrics", "disparity", "pairwise", "summary", "abroca", "abroca-test",
              "calibration", "sweep", "bias-audit", "check", "demo"]
    assert [c for c in wanted if c not in COMMANDS] == []


TYPE_NOISE = re.compile(r"<(bool|int|float|str|path|list\[[^>]*\]|[a-z_]+\|[^>]*)>")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_shows_readable_types(name: str) -> None:
    result = runner.invoke(app, [name, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert TYPE_NOISE.search(result.output) is None, TYPE_NOISE.search(result.output)
    assert "typing." not in result.output and "Sequence[" not in result.output


def test_help_names_choices_and_numbers() -> None:
    out = runner.invoke(app, ["disparity", "--help"], env={"COLUMNS": "200"}).output
    assert "[holm|bh" in out and "[auto|z|fisher]" in out
    assert re.search(r"--level\s+NUMBER", out)
    assert re.search(r"--by\s+COLUMN\|SQL", out)
    assert "<bool>" not in runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).output


# --------------------------------------------------------------------------- equal to Python

def _same(got: Any, want: Any) -> bool:
    if isinstance(want, float) and not math.isfinite(want):
        return got is None  # JSON has no inf/NaN: written as null
    if isinstance(want, float) and isinstance(got, (int, float)):
        return math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want, strict=True))
    return bool(got == want)


def assert_rows_equal(got: list[dict[str, Any]], want: pl.DataFrame) -> None:
    assert len(got) == want.height
    assert list(got[0]) == want.columns if got else True
    for i, (g, w) in enumerate(zip(got, want.iter_rows(named=True), strict=True)):
        bad = {k: (g[k], w[k]) for k in w if not _same(g[k], w[k])}
        assert not bad, (i, bad)


#: Options (CLI, Python) that make a command deterministic and quick.
EXTRA: dict[str, tuple[list[str], dict[str, Any]]] = {
    "abroca-test": (["--seed", "0", "--n-permutations", "49"],
                    {"seed": 0, "n_permutations": 49}),
    "stratified": (["--strata", "sex"], {"strata": "sex"}),
    # the continuous value (y_score on the hiring data, the risk on COMPAS)
    "continuous-report": (["--y-pred", "y_score"], {}),
    "multiclass-test": (["--seed", "0", "--n-permutations", "99"],
                        {"seed": 0, "n_permutations": 99}),
    "availability": (["--benchmark", "sex=Male:0.5,Female:0.5"],
                     {"benchmark": {"sex": {"Male": 0.5, "Female": 0.5}}}),
}
#: The --by of a command: stratified takes df.fair.stratified's arguments, so its stratum (sex)
#: is not also a --by (it was: --by race --by sex --strata sex, which Python refuses).
BY: dict[str, list[str]] = {"stratified": ["--by", "race"]}
BOTH = ["--by", "race", "--by", "sex"]
HAND = {"report", "bias-audit", "check", "demo", "sample-size",
        "compare", "monitor",  # rows-level commands of their own tables: test_cli_compare.py
        "membership-calibration",  # tests/cli/test_cli_membership_calibration.py
        "proxy-report"}  # tests/cli/test_cli_proxy.py
GENERATED = sorted(n for n in COMMANDS if n not in HAND)


@pytest.fixture(scope="module")
def scored(compas: pl.DataFrame) -> pl.DataFrame:
    """COMPAS (audit columns only) with the decile score as a risk in [0, 1]."""
    return compas.with_columns(risk=pl.col("decile_score") / 10)


@pytest.fixture(scope="module")
def compas_file(scored: pl.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compas") / "compas.parquet"
    scored.write_parquet(path)
    return path


@pytest.mark.data
@pytest.mark.parametrize("name", GENERATED)
def test_each_generated_subcommand_equals_the_python_api_on_compas(
        name: str, scored: pl.DataFrame, compas_file: Path) -> None:
    owner = next(c for c, m in public_methods() if m.replace("_", "-") == name)
    method = name.replace("-", "_")
    cli_extra, py_extra = EXTRA.get(name, ([], {}))
    if owner is FairMoments:
        args, cli_extra = ["--y-true", "two_year_recid", "--y-pred", "risk"], []
        obj: Any = polars_fair.moments(scored, ["race", "sex"], y_true="two_year_recid",
                                       y_pred="risk")
    elif owner is FairClassCounts:  # COMPAS's risk levels of the decile score, and y_true's
        args = ["--y-true", "CAST(two_year_recid AS INT) * 4", "--y-pred",
                "CASE WHEN decile_score <= 4 THEN 0 WHEN decile_score <= 7 THEN 4 ELSE 8 END"]
        d = pl.col("decile_score")
        level = pl.when(d <= 4).then(0).when(d <= 7).then(4).otherwise(8)
        obj = polars_fair.class_counts(
            scored, ["race", "sex"], y_true=(pl.col("two_year_recid").cast(pl.Int32) * 4),
            y_pred=level)
    elif owner is FairCounts:
        args = ["--y-true", "two_year_recid", "--y-pred", "y_pred"]
        obj = polars_fair.counts(scored, ["race", "sex"], y_true="two_year_recid",
                                 y_pred="y_pred")
    else:
        args = ["--y-true", "two_year_recid", "--y-score", "risk"]
        obj = polars_fair.scores(scored, ["race", "sex"], y_true="two_year_recid",
                                 y_score="risk")
    result = runner.invoke(app, [name, str(compas_file), *BY.get(name, BOTH), *args,
                                 *cli_extra, "--format", "json"])
    assert result.exit_code == 0, result.output
    want = getattr(obj, method)(**py_extra).collect()
    assert_rows_equal(json.loads(result.stdout), want)


@pytest.mark.data
def test_report_equals_the_python_api_on_compas(compas: pl.DataFrame, compas_file: Path) -> None:
    result = runner.invoke(app, ["report", str(compas_file), "--by", "race", "--y-true",
                                 "two_year_recid", "--reference", "Caucasian",
                                 "--four-fifths", "0.75", "--format", "json"])
    assert result.exit_code == 0, result.output
    want = polars_fair.counts(compas, "race", y_true="two_year_recid", y_pred="y_pred").report(
        reference="Caucasian", four_fifths=0.75).collect()
    assert_rows_equal(json.loads(result.stdout), want)


@pytest.mark.data
def test_bias_audit_equals_the_python_api_on_compas(compas: pl.DataFrame,
                                                    compas_file: Path) -> None:
    result = runner.invoke(app, ["bias-audit", str(compas_file), "--category", "sex",
                                 "--category", "race", "--y-pred", "y_pred", "--format", "json"])
    assert result.exit_code == 0, result.output
    want = polars_fair.api.rows.bias_audit(compas, ["sex", "race"], y_pred="y_pred").collect()
    assert_rows_equal(json.loads(result.stdout)["results"], want)


@pytest.mark.data
def test_check_equals_the_gate_on_compas(compas: pl.DataFrame, compas_file: Path) -> None:
    from polars_fair.audit.gate import gate, verdict

    result = runner.invoke(app, ["check", str(compas_file), "--by", "race", "--y-true",
                                 "two_year_recid", "--format", "json"])
    table = gate(polars_fair.counts(compas, "race", y_true="two_year_recid", y_pred="y_pred"))
    assert result.exit_code == (0 if verdict(table) else 1)
    got = json.loads(result.stdout)
    failed = table.filter(pl.col("checked") & ~pl.col("passed"))
    assert sorted((v["group"], v["metric"]) for v in got["violations"]) == sorted(
        zip(failed["group"].to_list(), failed["metric"].to_list(), strict=True))


# --------------------------------------------------------------------------- formats, options

@pytest.fixture(scope="module")
def hiring(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hiring") / "hiring.parquet"
    make_hiring(2000, seed=4).write_parquet(path)
    return path


@pytest.mark.parametrize("name", GENERATED)
def test_default_table_fits_120_characters(name: str, hiring: Path) -> None:
    extra = EXTRA.get(name, ([], {}))[0]
    result = runner.invoke(app, [name, str(hiring), *BY.get(name, BOTH), *extra])
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= 120


def test_markdown_is_a_pipe_table_of_the_csv_values(hiring: Path) -> None:
    md = runner.invoke(app, ["rates", str(hiring), "--by", "sex", "--format", "markdown"])
    csv = runner.invoke(app, ["rates", str(hiring), "--by", "sex", "--format", "csv"])
    assert md.exit_code == 0 and csv.exit_code == 0
    lines = md.stdout.splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    want = pl.read_csv(csv.stdout.encode())
    assert header == want.columns
    assert lines[1].startswith("| --- | ---: |")  # text left, numbers right
    female = [c.strip() for c in lines[2].strip("|").split("|")]
    row = want.row(0, named=True)
    assert female[0] == row["sex"] == "Female"
    assert float(female[header.index("tpr")]) == round(row["tpr"], 4)


def test_columns_choose_and_order_and_unknown_ones_fail(hiring: Path) -> None:
    result = runner.invoke(app, ["metrics", str(hiring), "--by", "sex", "--columns",
                                 "value,sex,metric", "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "value,sex,metric"
    bad = runner.invoke(app, ["metrics", str(hiring), "--by", "sex", "--columns", "value,nope"])
    assert bad.exit_code == 2
    assert "--columns names ['nope'], not columns of the result" in bad.stderr


def test_list_options_take_commas_and_ranges(hiring: Path) -> None:
    a = runner.invoke(app, ["sweep", str(hiring), "--by", "sex", "--thresholds", "0.3,0.4,0.5",
                            "--format", "json"])
    b = runner.invoke(app, ["sweep", str(hiring), "--by", "sex", "--thresholds", "0.3:0.5:0.1",
                            "--format", "json"])
    assert a.exit_code == 0 and b.exit_code == 0, (a.output, b.output)
    assert sorted({r["threshold"] for r in json.loads(a.stdout)}) == [0.3, 0.4, 0.5]
    assert a.stdout == b.stdout
    bad = runner.invoke(app, ["sweep", str(hiring), "--by", "sex", "--thresholds", "0.3,x"])
    assert bad.exit_code == 2
    assert "--thresholds takes numbers X,Y,... or START:STOP:STEP, got '0.3,x'" in bad.stderr


def test_a_huge_range_is_refused_before_it_is_built(hiring: Path) -> None:
    # 0:1:1e-15 is 10**15 + 1 values: refused from the arithmetic, at once, naming the flag
    huge = runner.invoke(app, ["thresholds", str(hiring), "--by", "sex", "--thresholds",
                               "0:1:0.000000000000001"])
    assert huge.exit_code == 2
    assert ("--thresholds '0:1:0.000000000000001' expands to 1,000,000,000,000,001 values, "
            "more than 1,000,000") in huge.stderr
    # a non-finite step is not a range
    inf = runner.invoke(app, ["sweep", str(hiring), "--by", "sex", "--thresholds", "0:1:inf"])
    assert inf.exit_code == 2 and "START:STOP:STEP, got '0:1:inf'" in inf.stderr


def test_thresholds_struct_column_is_json_in_csv_and_markdown(hiring: Path) -> None:
    # worst_group_keys is a Struct: CSV and Markdown write it as a JSON object (nulls kept)
    csv = runner.invoke(app, ["thresholds", str(hiring), "--by", "sex", "--thresholds",
                              "0.5", "--format", "csv"])
    assert csv.exit_code == 0, csv.stderr
    row = pl.read_csv(csv.stdout.encode()).row(0, named=True)
    assert json.loads(row["worst_group_keys"]) == {"sex": row["worst_group"]}
    md = runner.invoke(app, ["thresholds", str(hiring), "--by", "sex", "--thresholds", "0.5",
                             "--format", "markdown"])
    assert md.exit_code == 0 and '{"sex":"' in md.stdout


def test_messages_name_the_generated_flags(hiring: Path) -> None:
    result = runner.invoke(app, ["metrics", str(hiring), "--by", "sex", "--level", "1.5"])
    assert result.exit_code == 2
    assert "--level" in result.stderr and "level=" not in result.stderr
    both = runner.invoke(app, ["rates", str(hiring), "--by", "sex", "--y-score", "y_score"])
    assert both.exit_code == 2 and "--threshold" in both.stderr


def test_report_threshold_equals_a_prediction_made_in_python(hiring: Path) -> None:
    df = pl.read_parquet(hiring)
    result = runner.invoke(app, ["report", str(hiring), "--by", "race", "--y-score", "y_score",
                                 "--threshold", "0.4", "--format", "json"])
    assert result.exit_code == 0, result.output
    want = df.with_columns(p=(pl.col("y_score") >= 0.4).cast(pl.Int64)).fair.report(
        "race", y_pred="p")
    assert_rows_equal(json.loads(result.stdout), want)


def test_report_sample_weight_and_page_options_need_html(hiring: Path) -> None:
    df = pl.read_parquet(hiring).with_columns(w=pl.col("applicant_id") % 3 + 1)
    path = hiring.with_name("weighted.parquet")
    df.write_parquet(path)
    result = runner.invoke(app, ["report", str(path), "--by", "sex", "--sample-weight", "w",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    assert_rows_equal(json.loads(result.stdout), df.fair.report("sex", sample_weight="w"))
    bad = runner.invoke(app, ["report", str(path), "--by", "sex", "--title", "Q3"])
    assert bad.exit_code == 2
    assert "--title applies to the HTML audit: pass --html FILE too" in bad.stderr


def test_report_html_takes_threshold_title_model_and_note(hiring: Path, tmp_path: Path) -> None:
    import hashlib

    page = tmp_path / "audit.html"
    result = runner.invoke(app, ["report", str(hiring), "--by", "sex", "--y-score", "y_score",
                                 "--threshold", "0.4", "--html", str(page), "--title", "Q3",
                                 "--model", "screen-v2", "--note", "pilot", "--format", "json"])
    assert result.exit_code == 0, result.output
    text = page.read_text()
    block = re.search(r'<script type="application/json" id="polars-fair-data">(.*?)</script>',
                      text, re.S)
    assert block is not None
    prov = json.loads(block.group(1))["provenance"]
    assert (prov["title"], prov["model"], prov["note"]) == ("Q3", "screen-v2", "pilot")
    assert prov["input"]["sha256"] == hashlib.sha256(hiring.read_bytes()).hexdigest()
    assert str(hiring.parent) not in text
    df = pl.read_parquet(hiring)  # the stdout report thresholds the same way
    want = df.with_columns(p=(pl.col("y_score") >= 0.4).cast(pl.Int64)).fair.report("sex",
                                                                                    y_pred="p")
    assert_rows_equal(json.loads(result.stdout), want)


def test_a_method_added_to_the_library_gets_its_subcommand(monkeypatch: pytest.MonkeyPatch,
                                                           hiring: Path) -> None:
    from typing import Literal

    from polars_fair.cli.commands import register
    from polars_fair.cli.entry import _guard
    from polars_fair.cli.io import FLAGS

    seen: dict[str, Any] = {}

    def novel(self: FairCounts, by: Any = None, *, gamma: float = 0.5,
              mode: Literal["fast", "exact"] = "fast") -> pl.LazyFrame:
        """A new analysis.

        Parameters
        ----------
        by : str, optional
            Roll-up.
        gamma : float, default 0.5
            The gamma of the new analysis.
        mode : {"fast", "exact"}, default "fast"
            How it runs.

        Returns
        -------
        pl.LazyFrame
        """
        seen.update(gamma=gamma, mode=mode)
        return self.rates()

    novel.__annotations__ = {"by": Any, "gamma": float, "mode": Literal["fast", "exact"]}
    monkeypatch.setattr(FairCounts, "novel", novel, raising=False)
    # register adds --gamma and --mode to the message flags: removed again after the test
    monkeypatch.setitem(FLAGS, "gamma", "--gamma")
    monkeypatch.setitem(FLAGS, "mode", "--mode")
    probe = typer.Typer()
    assert "novel" in register(probe, _guard)
    help_text = runner.invoke(probe, ["novel", "--help"], env={"COLUMNS": "200"}).output
    assert "The gamma of the new analysis." in help_text and "[fast|exact]" in help_text
    result = runner.invoke(probe, ["novel", str(hiring), "--by", "sex", "--gamma", "0.7",
                                   "--mode", "exact", "--format", "csv"])
    assert result.exit_code == 0, result.output
    # a number option reaches the method as the decimal written (cli.numbers), never rounded
    # through a float: Decimal("0.7"), which the method's own rule reads (issue 19, item 2)
    assert seen == {"gamma": Decimal("0.7"), "mode": "exact"}
    assert result.stdout.startswith("sex,n,selection_rate")


# ------------------------------------------------- the Command line page's examples

def readme_examples() -> dict[str, str]:
    """Subcommand -> the example of the Command line page's table (docs/cli.md)."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("\n## Commands and examples\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([a-z-]+)` \| [^|]+ \| `(polars-fair [^`]+)` \|$", section, re.M)
    return dict(rows)


def test_the_readme_lists_every_subcommand_with_an_example() -> None:
    examples = readme_examples()
    assert sorted(examples) == sorted(COMMANDS)
    for name, example in examples.items():
        assert example.startswith(f"polars-fair {name} ")


@pytest.mark.data
@pytest.mark.parametrize("name", sorted(readme_examples()))
def test_each_readme_example_runs_on_adult(name: str, tmp_path: Path) -> None:
    adult = require(ADULT_SCORED_CSV)
    # the estimated-membership commands run on the shared fixture with probability columns
    people = require(SHARED_DATA.parent / "oracles" / "fixture_membership.csv")
    files = {"adult-scored.csv": str(adult), "fixture_membership.csv": str(people)}
    args = [files.get(a, a) for a in shlex.split(readme_examples()[name])[1:]]
    if "--output" in args:
        i = args.index("--output") + 1
        args[i] = str(tmp_path / args[i])
    result = runner.invoke(app, args)
    assert result.exit_code in ((0, 1) if name == "check" else (0,)), result.output
    if "--output" in args:
        assert Path(args[args.index("--output") + 1]).stat().st_size > 0


def test_generated_commands_write_json_errors_with_format_json(hiring: Path) -> None:
    result = runner.invoke(app, ["disparity", str(hiring), "--by", "sex", "--reference", "Nobody",
                                 "--format", "json"])
    assert result.exit_code == 2
    error = json.loads(result.stdout)
    assert (error["status"], error["error"], error["exit_code"]) == (
        "error", "UnknownGroupError", 2)
    assert "'Nobody'" in error["message"] and error["message"] in result.stderr


# ------------------------------------------------------- divergence: bins, strategy, metric


@pytest.fixture(scope="module")
def aged(tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, Path]:
    import numpy as np

    from polars_fair.datasets import make_hiring

    df = make_hiring(3000, seed=0).with_columns(
        age=pl.Series(np.random.default_rng(0).integers(18, 70, 3000)))
    path = tmp_path_factory.mktemp("aged") / "aged.csv"
    df.write_csv(path)
    return df, path


@pytest.mark.parametrize(("cli_bins", "py_bins", "strategy"), [
    (["--bins", "age=3"], {"age": 3}, "auto"),
    (["--bins", "age=30,50"], {"age": [30.0, 50.0]}, "levels"),
    (["--bins", "age = 25, 45, 60"], {"age": [25.0, 45.0, 60.0]}, "finest"),
])
def test_divergence_bins_and_strategy_equal_the_python_api(
        cli_bins: list[str], py_bins: dict[str, Any], strategy: str,
        aged: tuple[pl.DataFrame, Path]) -> None:
    df, path = aged
    result = runner.invoke(app, ["divergence", str(path), "--by", "race", "--by", "age",
                                 *cli_bins, "--strategy", strategy, "--format", "json"])
    assert result.exit_code == 0, result.stderr
    want = df.fair.divergence(["race", "age"], bins=py_bins,
                              strategy=strategy)  # type: ignore[arg-type]
    assert_rows_equal(json.loads(result.stdout), want)


def test_divergence_help_lists_metrics_and_bins_without_combinations() -> None:
    from polars_fair.core.registry import PROPORTIONS

    out = runner.invoke(app, ["divergence", "--help"], env={"COLUMNS": "200"}).output
    assert "--combinations" not in out
    assert f"One of: {', '.join(PROPORTIONS)}." in out
    assert re.search(r"--bins\s+COLUMN=SPEC", out) and "[auto|finest|levels]" in out
    assert "{" not in out.split("--bins", 1)[1].split("--max-patterns")[0]  # no Python syntax


def test_divergence_on_an_unbinned_numeric_column_advises_bins(
        aged: tuple[pl.DataFrame, Path]) -> None:
    _, path = aged
    result = runner.invoke(app, ["divergence", str(path), "--by", "race", "--by", "age"])
    assert result.exit_code == 2
    assert "--bins age=5" in result.stderr and "CASE WHEN age < 30" in result.stderr
    assert "bins={" not in result.stderr and "pl.col(" not in result.stderr


@pytest.mark.parametrize(("value", "message"), [
    ("age=", "--bins takes COLUMN=N (N quantile bins) or COLUMN=E1,E2,... (the edges); repeat, "
             "got 'age='"),
    ("age=a,b", "--bins takes COLUMN=N (N quantile bins) or COLUMN=E1,E2,... (the edges); "
                "repeat, got 'age=a,b'"),
    ("income=3", "column 'income' (--bins) not found; the frame has columns: ['applicant_id', "
                 "'race', 'sex', 'age_band', 'y_true', 'y_score', 'y_pred', 'age']"),
    ("applicant_id=3", "--bins names 'applicant_id', which is not an attribute of --by "
                       "['race', 'age']"),
])
def test_bad_bins_are_one_line_naming_the_flag(value: str, message: str,
                                               aged: tuple[pl.DataFrame, Path]) -> None:
    _, path = aged
    result = runner.invoke(app, ["divergence", str(path), "--by", "race", "--by", "age",
                                 "--bins", value])
    assert (result.exit_code, result.stderr) == (2, f"polars-fair: error: {message}\n")


def test_shares_options_read_a_number_per_value_and_refuse_a_value_without_one() -> None:
    from polars_fair import errors as E
    from polars_fair.cli.commands import LISTS, Opt, convert

    opt = Opt("benchmark", "shares", None, "")
    assert convert(opt, ["sex=F:0.5,M:0.5", "grade=1:0.25,2:0.75"]) == {
        "sex": {"F": 0.5, "M": 0.5}, "grade": {1: 0.25, 2: 0.75}}
    with pytest.raises(E.InvalidArgumentError) as err:
        convert(opt, ["sex=F"])
    assert str(err.value) == E.CLI_BAD_LIST.format(flag="--benchmark", value="sex=F",
                                                   kind=LISTS["shares"])


# ------------------------------------------- stratified: the arguments of df.fair.stratified

def admissions(tmp_path: Path) -> tuple[pl.DataFrame, Path]:
    """Two departments as rows: women 8 of 10 in A and 18 of 90 in B, men 72 of 90 and 2 of
    10: by hand the same rate in each department (0.8, 0.2), pooled 0.26 against 0.74."""
    parts = []
    for sex, dept, admitted, n in (("Female", "A", 8, 10), ("Female", "B", 18, 90),
                                   ("Male", "A", 72, 90), ("Male", "B", 2, 10)):
        parts.append(pl.DataFrame({"sex": [sex] * n, "dept": [dept] * n, "y_true": [1] * n,
                                   "y_pred": [1] * admitted + [0] * (n - admitted)}))
    path = tmp_path / "admissions.csv"
    df = pl.concat(parts)
    df.write_csv(path)
    return df, path


def test_stratified_help_example_runs_and_equals_python(tmp_path: Path) -> None:
    """The --help example: the groups are --by, the strata --strata (not also a --by), the
    reference a plain value of the group attribute (it needed --by sex --by dept --strata dept
    --reference sex=Male, which --help did not say)."""
    df, path = admissions(tmp_path)
    help_text = " ".join(runner.invoke(app, ["stratified", "--help"],
                                       env={"COLUMNS": "200"}).output.split())
    example = ("polars-fair stratified admissions.csv --by sex --strata dept --reference Male")
    assert f"Example: {example}" in help_text
    args = [str(path) if a == "admissions.csv" else a for a in shlex.split(example)[1:]]
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert_rows_equal(got, df.fair.stratified("sex", "dept", reference="Male"))
    female = got[0]
    assert (female["sex"], female["selection_rate"], female["reference_rate"]) == (
        "Female", 0.26, 0.74)
    assert female["within"] == 0.0 and female["gap"] == pytest.approx(0.48)
    assert female["mh_odds_ratio"] == 1.0 and female["n_strata"] == 2


def test_stratified_refuses_what_python_refuses_naming_the_flags(tmp_path: Path) -> None:
    """A stratum that is also a --by (Python's STRATUM_IN_BY), a stratum that is not a column:
    exit 2 with the flags named (the empty table of every key a stratum is gone with it)."""
    _, path = admissions(tmp_path)
    both = runner.invoke(app, ["stratified", str(path), "--by", "dept", "--strata", "dept"])
    assert both.exit_code == 2
    assert ("'dept' is both a group attribute (--by) and a stratum (--strata); name it in one "
            "of them") in both.output
    missing = runner.invoke(app, ["stratified", str(path), "--by", "sex", "--strata", "year"])
    assert missing.exit_code == 2
    assert "column 'year' (--strata) not found" in missing.output


def test_a_stratum_given_as_the_reference_is_named_a_stratum(tmp_path: Path) -> None:
    """--reference dept=A said "reference group 'dept=A' does not exist" with one --by, and
    "pass --reference as attr=value,attr=value" with several (second review of issue 23)."""
    df, path = admissions(tmp_path)
    path2 = tmp_path / "two.csv"
    df.with_columns(band=pl.lit("x")).write_csv(path2)
    for args, groups in ((["--by", "sex", "--reference", "dept=A"], "['sex']"),
                         (["--by", "sex", "--by", "band", "--reference", "dept=A,sex=Male"],
                          "['sex', 'band']"),
                         (["--by", "sex", "--by", "band", "--reference", "sex=Male,dept=A"],
                          "['sex', 'band']")):
        result = runner.invoke(app, ["stratified", str(path2), *args, "--strata", "dept"])
        assert result.exit_code == 2, result.output
        assert (f"--reference names 'dept', which is a stratum (--strata), not a group "
                f"attribute: the reference is a group of {groups}") in " ".join(
                    result.output.split())
    # a value that is not a group is still "names no group"
    other = runner.invoke(app, ["stratified", str(path), "--by", "sex", "--strata", "dept",
                                "--reference", "Other"])
    assert other.exit_code == 2 and "names no group" in other.output


def test_impact_analysis_says_which_group_it_passed_over(tmp_path: Path) -> None:
    """b selects 5 of 5 but has 5 < 30 rows: max_selection_rate takes a (50 of 100), and the
    command says so under the header; --min-support 5 makes b the reference, and no line."""
    parts = [pl.DataFrame({"g": [g] * n, "y_true": [1] * n, "y_pred": [1] * s + [0] * (n - s)})
             for g, s, n in (("a", 50, 100), ("b", 5, 5), ("c", 10, 40))]
    path = tmp_path / "small.csv"
    pl.concat(parts).write_csv(path)
    base = ["impact-analysis", str(path), "--by", "g", "--reference", "max_selection_rate"]
    result = runner.invoke(app, base)
    assert result.exit_code == 0, result.output
    words = " ".join(result.output.split())
    assert ("not the reference despite a higher selection rate: g=b, with fewer than 30 rows "
            "(min_support=30); pass min_support=0 to allow them") in words
    table = json.loads(runner.invoke(app, [*base, "--format", "json"]).stdout)
    assert [r["g"] for r in table if r["is_reference"]] == ["a"]
    assert [r["g"] for r in table if r["low_support"]] == ["b"]
    five = runner.invoke(app, [*base, "--min-support", "5", "--format", "json"])
    assert [r["g"] for r in json.loads(five.stdout) if r["is_reference"]] == ["b"]
    plain = runner.invoke(app, [*base, "--min-support", "5"])
    assert "not the reference" not in plain.output


def test_a_zero_weight_reference_gives_nulls_on_the_command_line(tmp_path: Path) -> None:
    """b's rows weigh 0: against it every figure is null (was exit 2, 'has no rows')."""
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1] * 8,
                       "y_pred": [1, 1, 1, 0, 1, 0, 0, 0], "w": [1.0] * 4 + [0.0] * 4})
    path = tmp_path / "w.csv"
    df.write_csv(path)
    result = runner.invoke(app, ["impact-analysis", str(path), "--by", "g", "--sample-weight",
                                 "w", "--reference", "b", "--format", "json"])
    assert result.exit_code == 0, result.output
    a = json.loads(result.stdout)[0]
    assert (a["g"], a["selection_rate"], a["impact_ratio"], a["z"], a["p_value"]) == (
        "a", 0.75, None, None, None)


# ------------------------------------------------------- sample-size: the one without a file

def test_sample_size_command_equals_the_function_and_names_its_flags() -> None:
    """The EEOC's rates (60 % and 30 %: impact ratio 0.5) need 42 per group by the normal
    approximation and 48 by Fisher's exact test (the function's doctest); the command gives
    the same numbers, and its errors name the flags."""
    for method in ("normal", "fisher"):
        result = runner.invoke(app, ["sample-size", "--reference-rate", "0.6", "--impact-ratio",
                                     "0.5", "--method", method, "--format", "json"])
        assert result.exit_code == 0, result.output
        want = polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5, method=method)
        assert json.loads(result.stdout) == [{"group": want.group, "reference": want.reference,
                                              "power": want.power}]
    assert want.group == 48
    bad = runner.invoke(app, ["sample-size", "--reference-rate", "0.6", "--impact-ratio", "1"])
    assert bad.exit_code == 2
    # the value as typed (the CLI reads numbers as their decimal, issue 19 item 2), not 1.0
    assert "--impact-ratio 1 at --reference-rate 0.6 gives a group rate of 0.6" in bad.output


def test_availability_names_a_benchmark_attribute_outside_by_and_its_advice_works(
        tmp_path: Path) -> None:
    """--benchmark sex=... with --by race said "column 'sex' (--benchmark) not found; the frame
    has columns: ['race']" though the file has sex (second review of issue 23)."""
    df = make_hiring(200, seed=0)
    path = tmp_path / "h.csv"
    df.write_csv(path)
    bad = runner.invoke(app, ["availability", str(path), "--by", "race", "--benchmark",
                              "sex=Male:0.5,Female:0.5"])
    assert bad.exit_code == 2
    words = " ".join(bad.output.split())
    assert ("--benchmark names 'sex', which is not among the attributes of --by (['race']); add "
            "it to them: --by race --by sex") in words
    advice = words.split("add it to them: ")[1]
    good = runner.invoke(app, ["availability", str(path), *shlex.split(advice), "--benchmark",
                               "sex=Male:0.5,Female:0.5", "--format", "json"])
    assert good.exit_code == 0, good.output
    want = df.fair.availability(["race", "sex"], {"sex": {"Male": 0.5, "Female": 0.5}})
    assert [r["count"] for r in json.loads(good.stdout)] == want["count"].to_list()
    assert sum(r["count"] for r in json.loads(good.stdout)) == 200


def test_ordered_is_the_multiclass_reports_option_not_the_tests(tmp_path: Path) -> None:
    # issue 22 re-review item 3: the guide promised --ordered on multiclass-test, which has no
    # such option (the chi-square test of independence reads classes as nominal)
    path = tmp_path / "c.csv"
    pl.DataFrame({"g": ["a", "b"] * 4, "c": ["x", "y", "y", "x"] * 2}).write_csv(path)
    args = [str(path), "--by", "g", "--y-pred", "c", "--classes", "x,y", "--ordered"]
    assert runner.invoke(app, ["multiclass-report", *args]).exit_code == 0
    result = runner.invoke(app, ["multiclass-test", *args])
    assert result.exit_code == 2
    assert "--ordered" in result.output
    guide = (Path(__file__).resolve().parents[2] / "docs/guide/multiclass.md").read_text()
    assert "`--ordered` is the report's only" in guide
    assert "(`--y-pred`, `--y-true`, `--classes`, `--ordered`, ...)" not in guide
