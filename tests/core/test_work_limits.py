"""Limits found missing by the review of issue 19 (defects 2, 3 and 4).

- A SQL text's ``REPLACE`` calls are bounded by how much longer they can make a cell
  (``sql_growth``), not only by their number: two nested calls with 20,000-character
  replacements asked for gigabytes.
- ``abroca_test`` (and the HTML audit's test) is bounded by its total work, permutations x
  pooled rows (or cells), ``permutation_work``, as ``abroca_power`` is by ``power_work``.
- A raisable limit's error never advises raising it past its ceiling.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.analyses.scores.permutation import PERMUTATION_WORK
from polars_fair.cli.entry import app
from polars_fair.core.limits import LIMITS, check_ceiling
from polars_fair.core.sql import check_sql
from polars_fair.datasets import make_hiring

SMALL = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
                      "y_pred": [1, 0, 0, 0], "s": [0.9, 0.1, 0.8, 0.2]})


# ------------------------------------------------------------------ SQL REPLACE growth
def test_nested_replace_with_long_replacements_is_refused_before_work() -> None:
    x = "x" * 20_000
    text = f"LENGTH(REPLACE(REPLACE(g, '', '{x}'), 'x', '{x}')) > 0"
    # by hand: an empty pattern inserts the replacement at each of a cell's positions: growth
    # 20,000 + 1; the literal 'x' -> 20,000 x's grows it ceil(20,000 / 1) = 20,000 times;
    # nested: 20,001 * 20,000 = 400,020,000 > 1,000
    with pytest.raises(E.SizeLimitError, match="is 400,020,000, more than its limit 1,000"):
        check_sql(text, ["g"], "--where")


def test_replace_growth_is_the_product_of_each_calls_growth() -> None:
    # 'a' -> 'aaaaaaaaaa' grows 10 times; three nested calls 10 * 10 * 10 = 1,000: at the limit
    ten = "a" * 10
    text = f"REPLACE(REPLACE(REPLACE(g, 'a', '{ten}'), 'a', '{ten}'), 'a', '{ten}')"
    check_sql(text, ["g"], "--by")
    # a shorter replacement than its pattern never grows a cell: growth 1 each
    check_sql("REPLACE(REPLACE(g, 'abc', 'x'), 'xyz', '')", ["g"], "--by")
    # a regular expression may match at every position (r + 1 = 11), and each $ reference
    # repeats the match once more: '$0$0' (4 characters, 2 references) grows (4 + 1) * 3 = 15
    check_sql("REGEXP_REPLACE(g, 'a', '$0$0')", ["g"], "--by")
    with pytest.raises(E.SizeLimitError, match="is 1,100, more than its limit 1,000"):
        # 10 * 10 * 11 (REGEXP_REPLACE of a 10-character replacement: 10 + 1)
        check_sql(f"REGEXP_REPLACE(REPLACE(REPLACE(g, 'a', '{ten}'), 'a', '{ten}'), 'a', "
                  f"'{ten}')", ["g"], "--by")
    with pytest.raises(E.SizeLimitError, match="is 1,002, more than its limit 1,000"):
        # an empty pattern replaced by 'z' grows 1 + 1 = 2 times; 'a' -> 501 y's 501 times
        check_sql(f"REPLACE(REPLACE(g, '', 'z'), 'a', '{'y' * 501}')", ["g"], "--by")
    with pytest.raises(E.SizeLimitError, match="is 1,002, more than its limit 1,000"):
        # a column as pattern may be empty: 'zz' grows 2 + 1 = 3 times; 3 * 334 = 1,002
        check_sql(f"REPLACE(REPLACE(g, h, 'zz'), 'a', '{'y' * 334}')", ["g", "h"], "--by")


def test_replace_needs_a_literal_replacement() -> None:
    with pytest.raises(E.SQLRefusedError, match=r"REPLACE\(\) replaces with h; the replacement "
                       "must be a string literal"):
        check_sql("REPLACE(g, 'a', h)", ["g", "h"], "--by")


def test_the_cli_refuses_the_reviewers_replace_with_a_json_error(tmp_path: Path) -> None:
    path = tmp_path / "small.csv"
    SMALL.write_csv(path)
    x = "x" * 20_000
    result = CliRunner().invoke(app, [
        "confusion", str(path), "--by", "g", "--format", "json", "--where",
        f"LENGTH(REPLACE(REPLACE(g, '', '{x}'), 'x', '{x}')) > 0"])
    assert result.exit_code == 2
    error = json.loads(result.stdout)
    assert error["error"] == "SizeLimitError"
    assert "400,020,000" in error["message"]


def test_the_html_audit_refuses_the_reviewers_replace() -> None:
    pytest.importorskip("altair")
    from polars_fair.html import audit_html

    x = "x" * 20_000
    with pytest.raises(E.SizeLimitError, match="400,020,000"):
        audit_html(SMALL, "g", where=f"LENGTH(REPLACE(REPLACE(g, '', '{x}'), 'x', '{x}')) > 0")


# ------------------------------------------------------------------ permutation work
def test_abroca_test_refuses_permutations_times_pooled_rows_above_its_limit() -> None:
    # groups a and b of 10,001 rows each, every score distinct: each group has 10,001
    # (score, label) cells, so a draw splits min(20,002 rows, 20,002 cells) = 20,002;
    # 10**6 permutations (their own limit) x 20,002 = 20,002,000,000 > 10**10
    n = 10_001
    rows = pl.DataFrame({"g": ["a"] * n + ["b"] * n, "y_true": [1, 0] * n,
                         "s": [i / (2 * n) for i in range(2 * n)]})
    with pytest.raises(E.SizeLimitError) as info:
        rows.fair.abroca_test("g", y_score="s", n_permutations=1_000_000)
    assert str(info.value) == E.WORK_TOO_LARGE.format(
        what=PERMUTATION_WORK, size=20_002_000_000, limit=10_000_000_000,
        why=LIMITS["permutation_work"].why)


def test_the_reviewers_abroca_test_is_refused_at_once() -> None:
    # 100,000 rows, n_permutations=10**6: at least 10**6 x 100,000 / 2 > 10**10 (the reviewer
    # measured 44 s for 10,000 permutations: 10**6 would run over an hour)
    with pytest.raises(E.SizeLimitError, match="is more than its limit 10,000,000,000"):
        make_hiring(100_000, seed=0).fair.abroca_test("sex", y_score="y_score",
                                                      n_permutations=1_000_000)


def test_abroca_test_counts_cells_when_fewer_than_rows() -> None:
    # 200,000 rows but two scores: each group has the (score, label) cells (0.8, 1), (0.2, 0),
    # so a draw splits min(200,000 rows, 2 + 2 cells) = 4 and 10**6 permutations cost
    # 4,000,000 <= 10**10: accepted (20 permutations run here, the check is the same)
    from polars_fair.analyses.scores.permutation import _cell_count
    from polars_fair.analyses.scores.scoreview import score_view

    rows = pl.DataFrame({"g": ["a", "b"] * 100_000, "y_true": [1, 1, 0, 0] * 50_000,
                         "s": [0.8, 0.8, 0.2, 0.2] * 50_000})
    table = rows.lazy().fair.scores("g", y_score="s").collect()
    view = score_view(table, ["g"])
    assert [_cell_count(view, g) for g in range(2)] == [2, 2]
    out = rows.fair.abroca_test("g", y_score="s", n_permutations=20, seed=0)
    assert out["n_permutations"].to_list() == [20]


def test_the_html_audit_refuses_permutation_work_above_its_limit() -> None:
    pytest.importorskip("altair")
    from polars_fair.html import audit_html

    hiring = make_hiring(100_000, seed=0)
    with pytest.raises(E.SizeLimitError, match="is more than its limit 10,000,000,000"):
        audit_html(hiring, "sex", y_score="y_score", threshold=0.5, n_permutations=1_000_000)


# ------------------------------------------------------------------ ceilings
def test_thresholds_past_the_ceiling_never_advise_raising_the_limit() -> None:
    grid = [i / 2e6 for i in range(2_000_000)]
    with pytest.raises(E.SizeLimitError) as info:
        SMALL.fair.thresholds("g", y_score="s", thresholds=grid, max_thresholds=10**6)
    assert str(info.value) == (
        "thresholds: thresholds=: 2,000,000 thresholds, more than max_thresholds= can be "
        "raised to (its ceiling 1,000,000); pass a coarser grid, for example "
        "thresholds=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]")
    assert "larger limit" not in str(info.value)


def test_below_the_ceiling_the_advice_to_raise_stays() -> None:
    # issue 20: the advice names the value that holds the grid
    with pytest.raises(E.SizeLimitError, match="pass max_thresholds=10001,"):
        SMALL.fair.thresholds("g", y_score="s", thresholds=[i / 20_000 for i in range(10_001)])


@pytest.mark.parametrize(("name", "ceiling"), [("max_groups", 10_000_000),
                                               ("max_pairs", 100_000_000),
                                               ("max_patterns", 100_000_000)])
def test_every_raisable_limit_has_the_same_ceiling_error(name: str, ceiling: int) -> None:
    check_ceiling(ceiling, name, "x", "items", "do less")  # at the ceiling: accepted
    with pytest.raises(E.SizeLimitError) as info:
        check_ceiling(ceiling + 1, name, "x", "items", "do less")
    assert str(info.value) == f"x: {ceiling + 1:,} items, more than {name}= can be raised to " \
        f"(its ceiling {ceiling:,}); do less"


def test_combinations_past_the_ceiling_advise_only_max_order() -> None:
    # 24 attributes, every combination: 2**24 - 1 = 16,777,215 sets > 10,000,000
    frame = pl.DataFrame({f"a{i}": ["x"] for i in range(24)} | {"y_true": [1], "y_pred": [1]})
    with pytest.raises(E.SizeLimitError) as info:
        frame.fair.report([f"a{i}" for i in range(24)], combinations="all",
                          max_groups=10_000_000)
    assert str(info.value) == (
        "combinations='all' over 24 attributes: 16,777,215 attribute sets, more than "
        "max_groups= can be raised to (its ceiling 10,000,000); pass max_order=5 (55,454 sets "
        "of at most 5 attributes, whose groups fit max_groups=10,000,000 when each attribute "
        "holds 2 values)")
    # by hand: C(24,1..5) = 24 + 276 + 2,024 + 10,626 + 42,504 = 55,454 sets, whose groups at 2
    # values each sum to sum C(24,k) 2**k = 1,547,488 <= 10**7; with k = 6: 10,161,632, beyond


def test_multiclass_test_permutations_have_a_limit_of_their_own() -> None:
    # multiclass_test draws chi-square tables, no ABROCA: its limit says so (1,000,000 draws)
    lf = pl.LazyFrame({"g": ["a", "a", "b", "b"], "p": ["x", "y", "x", "y"]})
    with pytest.raises(E.SizeLimitError) as err:
        lf.fair.multiclass_test("g", y_pred="p", n_permutations=1_000_001)
    assert str(err.value) == (
        "n_permutations=1,000,001 is more than its limit 1,000,000 (each Monte Carlo draw fills "
        "a table of groups x classes and computes its chi-square statistic); pass a smaller "
        "n_permutations")
    assert LIMITS["multiclass_permutations"].limit == 1_000_000
