"""``DATE(x)`` without a format is refused wherever it stands in a SQL option (issue 19 review,
kind 2).

At the top of ``--by`` it was refused in SQL words with SQL that works; nested
(``UPPER(CAST(DATE(dt) AS VARCHAR))``, a ``CASE WHEN`` branch, ``--where``, ``--y-pred``,
``--sample-weight``, another function's argument) it failed on the rows with Polars' "could
not find an appropriate format" and no advice, and ``DATE(SUBSTR(dt, 1, 10))`` read as "reads
other rows". :func:`polars_fair.core.sql.check_sql` now refuses the call before Polars parses
the text, the same way everywhere, and each suggested form, put back where the call stood, runs.

The file, by hand: 4 rows, two on 2024-01-01 (hours 10, 11) and two on 2024-01-02 (10, 12);
``g`` is a, b, a, b; y_pred 1, 1, 0, 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from tests.cli import test_sql_dates

runner = CliRunner()
#: the four rows of tests/cli/test_sql_dates.py (its fixture)
rows = test_sql_dates.rows
DATE_ADVICE = ("DATE(dt) without a format guesses the format from the column's values, so one "
               "row's value depends on the others; give the format, DATE(dt, '%Y-%m-%d') "
               "(DATE(SUBSTR(dt, 1, 10), '%Y-%m-%d') for a date and time written as text), or "
               "CAST(dt AS DATE) for a column read as a date-time (--dtype dt=datetime)")


def _run(path: Path, *args: str) -> tuple[int, str, str]:
    out = runner.invoke(app, ["report", str(path), "--min-support", "1", "--format", "csv",
                              *args])
    return out.exit_code, out.stdout, out.stderr.strip()


#: (flag, SQL with {call} where the call stands, other arguments, the output of the advice
#: followed: the columns asked for, by hand)
PLACES = {
    "--by in a function": (
        "--by", "UPPER(CAST({call} AS VARCHAR))", ["--columns", "n"],
        # two days, two rows each
        ["n", "2", "2"]),
    "--by in a CASE branch": (
        "--by", "CASE WHEN {call} > DATE('2024-01-01', '%Y-%m-%d') THEN 'late' ELSE 'early' END",
        ["--columns", "n"], ["n", "2", "2"]),
    "--by in COALESCE's arguments": (
        "--by", "COALESCE(CAST({call} AS VARCHAR), g)", ["--columns", "n"], ["n", "2", "2"]),
    "--where": (
        "--where", "{call} > DATE('2024-01-01', '%Y-%m-%d')",
        ["--by", "g", "--columns", "g,n"],
        # the second day: one row of a, one of b
        ["g,n", "a,1", "b,1"]),
    "--y-pred": (
        "--y-pred", "CASE WHEN {call} = DATE('2024-01-01', '%Y-%m-%d') THEN 1 ELSE 0 END",
        ["--by", "g", "--columns", "g,selection_rate"],
        # the first day selected: one row of a of two, one of b of two
        ["g,selection_rate", "a,0.5", "b,0.5"]),
    "--sample-weight": (
        "--sample-weight", "CASE WHEN {call} = DATE('2024-01-01', '%Y-%m-%d') THEN 3 ELSE 1 END",
        ["--by", "g", "--columns", "g,selection_rate"],
        # weights 3 (first day, selected) and 1 (second day, not): 3 / (3 + 1) in each group
        ["g,selection_rate", "a,0.75", "b,0.75"]),
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_date_without_a_format_is_refused_anywhere_and_the_advice_runs(
        rows: Path, place: str) -> None:
    flag, sql, others, expected = PLACES[place]
    text = sql.format(call="DATE(dt)")
    code, _, message = _run(rows, flag, text, *others)
    assert code == 2
    shown = repr(text) if len(text) <= 80 else repr(text[:77] + "...")
    assert message == f"polars-fair: error: {flag} {shown} is not a row-level expression: " \
                      f"{DATE_ADVICE}"
    # the advice, put where the call stood: the date-time's first ten characters as a date
    followed = sql.format(call="DATE(SUBSTR(dt, 1, 10), '%Y-%m-%d')")
    code, out, err = _run(rows, flag, followed, *others)
    assert code == 0, err
    assert out.splitlines() == expected
    # and the column read as a date-time, CAST(dt AS DATE)
    code, out, err = _run(rows, flag, sql.format(call="CAST(dt AS DATE)"), *others,
                          "--dtype", "dt=datetime")
    assert code == 0, err
    assert out.splitlines() == expected


def test_date_of_an_expression_is_advised_its_format(rows: Path) -> None:
    code, _, message = _run(rows, "--by", "DATE(SUBSTR(dt, 1, 10))", "--columns", "n")
    assert code == 2
    assert message == (
        "polars-fair: error: --by 'DATE(SUBSTR(dt, 1, 10))' is not a row-level expression: "
        "DATE(SUBSTR(dt, 1, 10)) without a format guesses the format from the values, so one "
        "row's value depends on the others; give the format, DATE(SUBSTR(dt, 1, 10), "
        "'%Y-%m-%d')")
    advice = message.rsplit("give the format, ", 1)[1]
    code, out, err = _run(rows, "--by", advice, "--columns", "n")
    assert code == 0, err
    assert out.splitlines() == ["n", "2", "2"]


def test_timestamp_without_a_format_is_advised_a_timestamp(rows: Path) -> None:
    where = "TIMESTAMP(dt) > TIMESTAMP('2024-01-01 10:30:00', '%Y-%m-%d %H:%M:%S')"
    code, _, message = _run(rows, "--where", where, "--by", "g", "--columns", "g,n")
    assert code == 2
    assert message == (
        f"polars-fair: error: --where {where!r} is not a row-level expression: TIMESTAMP(dt) "
        "without a format guesses the format from the column's values, so one row's value "
        "depends on the others; give the format, TIMESTAMP(dt, '%Y-%m-%d %H:%M:%S'), or "
        "CAST(dt AS TIMESTAMP) for a column read as a date-time (--dtype dt=datetime)")
    # after 10:30 on the first day: 11:00 (b), and both rows of the second day (a, b)
    for call, extra in (("TIMESTAMP(dt, '%Y-%m-%d %H:%M:%S')", []),
                        ("CAST(dt AS TIMESTAMP)", ["--dtype", "dt=datetime"])):
        code, out, err = _run(rows, "--where", where.replace("TIMESTAMP(dt)", call, 1),
                              "--by", "g", "--columns", "g,n", *extra)
        assert code == 0, err
        assert out.splitlines() == ["g,n", "a,1", "b,2"]


def test_a_call_with_its_format_is_not_refused(rows: Path) -> None:
    code, out, err = _run(rows, "--by", "DATE(dt, '%Y-%m-%d %H:%M:%S')", "--columns", "n")
    assert code == 0, err
    assert out.splitlines() == ["n", "2", "2"]


def test_the_python_surface_is_advised_without_a_flag() -> None:
    import re

    import polars as pl

    from polars_fair import errors as E
    from polars_fair.audit.html import audit_html

    # 4 rows: two days, two rows each; the where keeps the second day
    df = pl.DataFrame({"g": ["a", "b"] * 2, "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0],
                       "dt": ["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02"]})
    where = "{call} > DATE('2024-01-01', '%Y-%m-%d')"
    with pytest.raises(E.NotRowLevelError) as info:
        audit_html(df, "g", where=where.format(call="DATE(dt)"), min_support=1)
    assert str(info.value).endswith(
        "or CAST(dt AS DATE) for a column of date-times (pl.Datetime)")
    assert "--dtype" not in str(info.value)
    for data, call in ((df, "DATE(dt, '%Y-%m-%d')"),
                       (df.with_columns(pl.col("dt").str.to_datetime("%Y-%m-%d")),
                        "CAST(dt AS DATE)")):
        page = audit_html(data, "g", where=where.format(call=call), min_support=1)
        # rows read / filtered / audited: 4 / 2 / 2
        assert re.search(r"rows read / filtered / audited</td><td>4 / 2 / 2<", page)
