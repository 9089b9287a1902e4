"""A group column named like an output of the multiclass or continuous report (fix 22d item 1).

Before, ``df.rename({"g": "impact_ratio"}).fair.multiclass_report("impact_ratio", ...)`` (and
``mean``, ``smd``, ``p_value`` of the continuous report, on every surface) crashed with a raw
Polars ``DuplicateError``. Every output column, declared once beside its analysis
(:data:`polars_fair.analyses.multiclass.REPORT_COLUMNS`,
:data:`polars_fair.analyses.continuous.REPORT_COLUMNS`), is now refused with the typed clash
error whose rename advice is followed here on each surface. Values are worked by hand.
"""

from __future__ import annotations

import math
import shlex
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.continuous import REPORT_COLUMNS as CONTINUOUS
from polars_fair.analyses.multiclass import REPORT_COLUMNS as MULTICLASS
from polars_fair.audit.html import continuous_html
from polars_fair.cli.entry import app

#: a predicted x, x, y; b predicted x, y, y (true classes x, y, y for both).
CLASSES = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "p": ["x", "x", "y", "x", "y", "y"],
                        "t": ["x", "y", "y"] * 2})
#: a: 1, 2, 3 (mean 2, sd 1); b: 2, 3, 4 (mean 3, sd 1); the true value equals the prediction.
VALUES = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "v": [1.0, 2.0, 3.0, 2.0, 3.0, 4.0]})


def _python_by(message: str) -> pl.Expr:
    advice = message.split("for example by=", 1)[1]
    expr = eval(advice, {"pl": pl})  # the advice as written, Python syntax
    assert isinstance(expr, pl.Expr)
    return expr


def _multiclass_x(out: pl.DataFrame, key: str) -> list[tuple[object, ...]]:
    return out.filter(pl.col("class") == "x").select(key, "selection_rate",
                                                     "impact_ratio").rows()


@pytest.mark.parametrize("name", MULTICLASS)
def test_a_group_named_like_a_multiclass_output_is_refused_and_the_rename_runs(
        name: str) -> None:
    df = CLASSES.rename({"g": name})
    with pytest.raises(E.InvalidArgumentError, match=f"\\['{name}'\\] clash with output") as e:
        df.fair.multiclass_report(name, y_pred="p", y_true="t", min_support=1)
    by = _python_by(str(e.value))
    out = df.fair.multiclass_report(by, y_pred="p", y_true="t", min_support=1)
    # class x: a 2/3 (the highest), b 1/3, impact ratio (1/3) / (2/3) = 0.5
    got = _multiclass_x(out, f"{name}_attr")
    assert [(g, round(r, 12), ir) for g, r, ir in got] == [
        ("a", round(2 / 3, 12), 1.0), ("b", round(1 / 3, 12), 0.5)]


def _continuous_check(out: pl.DataFrame, key: str) -> None:
    # mean 2 and 3, sd 1 each; smd = (3 - 2) / pooled sd √((2 + 2) / 4) = 1
    rows = out.select(key, "mean", "std", "smd").rows()
    assert [r[0] for r in rows] == ["a", "b"]
    want = [(2.0, 1.0, 0.0), (3.0, 1.0, 1.0)]
    for r, w in zip(rows, want, strict=True):
        assert all(math.isclose(x, y, abs_tol=1e-12) for x, y in zip(r[1:], w, strict=True))


@pytest.mark.parametrize("name", CONTINUOUS)
def test_a_group_named_like_a_continuous_output_is_refused_and_the_rename_runs(
        name: str) -> None:
    df = VALUES.rename({"g": name}).with_columns(t=pl.col("v"))
    with pytest.raises(E.InvalidArgumentError, match=f"\\['{name}'\\] clash with output") as e:
        df.fair.continuous_report(name, y_pred="v", y_true="t", reference="a", min_support=1)
    out = df.fair.continuous_report(_python_by(str(e.value)), y_pred="v", y_true="t",
                                    reference="a", min_support=1)
    _continuous_check(out, f"{name}_attr")


@pytest.mark.parametrize("name", ["mean", "smd", "p_value", "residual_smd", "weight_sum"])
def test_duckdb_moments_refuse_a_group_named_like_an_output(name: str) -> None:
    duckdb = pytest.importorskip("duckdb")
    rel = duckdb.from_arrow(VALUES.rename({"g": name}).to_arrow())
    with pytest.raises(E.InvalidArgumentError, match=f"\\['{name}'\\] clash with output"):
        polars_fair.moments(rel, name, y_pred="v").continuous_report(reference="a",
                                                                     min_support=1)
    renamed = rel.select(f'*, "{name}" AS g')  # a DuckDB relation names its column in SQL
    out = polars_fair.moments(renamed, "g", y_pred="v").continuous_report(
        reference="a", min_support=1).collect()
    _continuous_check(out, "g")


@pytest.mark.parametrize("name", ["mean", "smd", "p_value", "n", "mean_pred"])
def test_continuous_html_refuses_a_group_named_like_an_output(name: str) -> None:
    df = VALUES.rename({"g": name})
    with pytest.raises(E.InvalidArgumentError, match=f"\\['{name}'\\] clash with output") as e:
        continuous_html(df, name, y_pred="v", reference="a", min_support=1)
    page = continuous_html(df, _python_by(str(e.value)), y_pred="v", reference="a",
                           min_support=1)
    assert f"{name}_attr" in page


@pytest.mark.parametrize(("command", "name", "frame", "y"), [
    *[("multiclass-report", n, CLASSES, "p") for n in ("impact_ratio", "selection_rate", "tpr",
                                                        "low_support", "adverse_impact",
                                                        "n_class", "is_reference")],
    *[("continuous-report", n, VALUES, "v") for n in ("mean", "smd", "p_value")],
])
def test_the_command_line_refuses_an_output_name_and_its_advice_runs(
        tmp_path: Path, command: str, name: str, frame: pl.DataFrame, y: str) -> None:
    path = tmp_path / "rows.csv"
    frame.rename({"g": name}).write_csv(path)
    runner = CliRunner()
    base = [command, str(path), "--y-pred", y, "--min-support", "1", "--format", "json"]
    result = runner.invoke(app, [*base, "--by", name])
    assert result.exit_code != 0
    assert f"['{name}'] clash with output" in result.stderr
    advice = shlex.split(result.stderr.split("for example ", 1)[1])
    assert advice == ["--by", f'"{name}" AS {name}_attr']
    result = runner.invoke(app, [*base, *advice])
    assert result.exit_code == 0, result.stderr
    assert f'"{name}_attr"' in result.stdout


def test_a_group_whose_name_starts_like_a_moment_is_a_key_not_a_moment() -> None:
    # "mean_region" starts like the moment columns ("mean_"): it was read as one and crashed
    # (a string is not a number); it is a key, and the report is the hand-worked one.
    out = VALUES.rename({"g": "mean_region"}).fair.continuous_report(
        "mean_region", y_pred="v", reference="a", min_support=1)
    _continuous_check(out, "mean_region")
