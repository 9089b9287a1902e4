"""Issue 22 (fresh-user review) item 2: one limit on the number of classes, on every class path.

The limit ``classes`` (1,000, :mod:`polars_fair.core.limits`) is checked on the class table
before any per-class work; the message names what the user passed (the column's distinct
values, or ``classes=`` / ``--classes``) and shows no value.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.core.limits import LIMITS

runner = CliRunner()
LIMIT = LIMITS["classes"].limit
# 1,001 classes (one more than the limit), 10 rows each, two groups: by hand 10,010 rows
N = LIMIT + 1
FRAME = pl.DataFrame({"g": ["a", "b"] * (5 * N), "c": [f"c{i}" for i in range(N)] * 10})
COLUMN_MESSAGE = E.CLASS_VALUES_TOO_MANY.format(column="c", role="y_pred", size=1_001,
                                                limit=1_000)


def _runs() -> list[Any]:
    table = FRAME.group_by("g", "c").len("n").rename({"c": "y_pred"})
    return [
        lambda: FRAME.fair.multiclass_report("g", y_pred="c"),
        lambda: FRAME.lazy().fair.multiclass_test("g", y_pred="c").collect(),
        lambda: FRAME.fair.bias_audit(["g"], y_pred="c"),
        lambda: polars_fair.class_counts(FRAME, "g", y_pred="c").frame.collect(),
        lambda: polars_fair.from_class_counts(
            table).frame.collect(),
    ]


@pytest.mark.parametrize("index", range(5))
def test_a_column_of_too_many_classes_is_refused_by_its_count(index: int) -> None:
    with pytest.raises(E.SizeLimitError) as err:
        _runs()[index]()
    expected = COLUMN_MESSAGE if index < 4 else COLUMN_MESSAGE.replace("'c'", "'y_pred'")
    assert str(err.value) == expected
    assert "c17" not in str(err.value)  # no class value shown


def test_classes_longer_than_the_limit_name_classes() -> None:
    with pytest.raises(E.SizeLimitError) as err:
        FRAME.fair.multiclass_report("g", y_pred="c", classes=[f"c{i}" for i in range(N)])
    assert str(err.value) == E.CLASSES_TOO_MANY.format(size=1_001, limit=1_000)


def test_the_limit_itself_is_accepted() -> None:
    kept = FRAME.filter(pl.col("c") != "c0")  # 1,000 classes
    table = polars_fair.class_counts(kept, "g", y_pred="c").frame.collect()
    assert table["y_pred"].n_unique() == 1_000


@pytest.mark.parametrize("command", [["bias-audit", "--category", "g"],
                                     ["multiclass-report", "--by", "g"],
                                     ["multiclass-test", "--by", "g"]])
def test_the_command_line_names_the_column_not_classes(tmp_path: Path,
                                                       command: list[str]) -> None:
    path = tmp_path / "many.parquet"
    FRAME.write_parquet(path)
    result = runner.invoke(app, [command[0], str(path), *command[1:], "--y-pred", "c"])
    assert result.exit_code == 2
    text = " ".join((result.output + result.stderr).split())
    assert "column 'c' (--y-pred) holds 1,001 distinct values" in text
    assert "--classes" not in text and "len(" not in text


def test_the_command_line_names_classes_when_given(tmp_path: Path) -> None:
    path = tmp_path / "many.parquet"
    FRAME.write_parquet(path)
    given = ",".join(f"c{i}" for i in range(N))
    result = runner.invoke(app, ["bias-audit", str(path), "--category", "g", "--y-pred", "c",
                                 "--classes", given])
    assert result.exit_code == 2
    text = " ".join((result.output + result.stderr).split())
    assert "--classes lists 1,001 classes, more than the limit of 1,000" in text


# ------------------------------------------------------------------ issue 19, kind 2
#: 50 groups by 20 classes predicted, 8 rows a group: every expected count 8 x 20 / 400 = 0.4,
#: below 5, so the test draws tables by Monte Carlo
MONTE_CARLO = pl.DataFrame({"g": [f"g{i % 50}" for i in range(400)],
                            "y_true": [i % 3 for i in range(400)],
                            "y_pred": [i % 20 for i in range(400)]})


def test_monte_carlo_work_is_refused_before_any_draw() -> None:
    # by hand: 10**6 draws x 50 groups x 20 classes = 10**9 cells > 10**8 (it asked 7.45 GiB
    # for one array of int64 and ended in MemoryError)
    with pytest.raises(E.SizeLimitError, match="n_permutations x groups x classes = "
                       "1,000,000,000 is more than its limit 100,000,000"):
        MONTE_CARLO.fair.multiclass_test("g", n_permutations=10**6, seed=0)


def test_monte_carlo_draws_in_batches_agree_with_one_batch(monkeypatch: pytest.MonkeyPatch,
                                                           ) -> None:
    from polars_fair.analyses import multiclass

    # 2,000 draws x 1,000 cells = 2,000,000 cells: two batches of the default 1,000,000
    whole = MONTE_CARLO.fair.multiclass_test("g", n_permutations=2_000, seed=1)
    monkeypatch.setattr(multiclass, "_BATCH_CELLS", 10**9)  # one batch: the unbatched stream
    one = MONTE_CARLO.fair.multiclass_test("g", n_permutations=2_000, seed=1)
    assert whole["method"].to_list() == one["method"].to_list() == ["monte carlo"]
    assert whole["chi2"].to_list() == one["chi2"].to_list()  # the observed table's
    # two streams of 2,000 draws: the p-values' standard error is at most 0.5 / sqrt(2,000)
    # = 0.011 each, so they differ by less than 4 x 0.016
    assert abs(whole["p_value"][0] - one["p_value"][0]) < 0.065
