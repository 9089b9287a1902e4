"""A date, date-time or time compared with a number is refused (issue 20, fix item 1).

``--where "dob > 5"`` over a date column was accepted silently: Polars reads 5 as 1970-01-06,
and COMPAS went from 7,214 to 5,776 rows. It is refused now, on every SQL option (``--where``,
``--by``, the HTML page's ``where=``), naming the column and its dtype; both rewrites the
message gives are run here as written and keep the rows worked out by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.core.sql import check_temporal_numbers

runner = CliRunner()
COMPAS = Path(__file__).parents[2] / ".." / "shared" / "data" / "compas" / \
    "compas-scores-two-years.csv"

#: dob: 1985-06-01, 1995-06-01, 2001-06-01, 1990-01-01 (g: a, b, a, b)
ROWS = "g,dob,t,y_true,y_pred\n" \
    "a,1985-06-01,2020-01-01 08:00:00,1,1\nb,1995-06-01,2020-01-01 13:00:00,0,1\n" \
    "a,2001-06-01,2020-01-01 09:00:00,1,0\nb,1990-01-01,2020-01-01 20:00:00,1,1\n"


@pytest.fixture
def rows(tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    path.write_text(ROWS)
    return path


def _advice(message: str) -> tuple[str, str]:
    m = re.search(r"use a [\w-]+ literal, (.*), or a part of the column, (.*)$", message)
    assert m, message
    return m.group(1), m.group(2)


def _n(path: Path, where: str, *extra: str) -> int:
    out = runner.invoke(app, ["report", str(path), "--by", "g", "--where", where,
                              "--min-support", "1", "--format", "csv", "--columns", "n", *extra])
    assert out.exit_code == 0, out.stderr
    return sum(int(x) for x in out.stdout.splitlines()[1:])


def test_a_date_above_a_number_is_refused_with_advice_that_runs(rows: Path) -> None:
    out = runner.invoke(app, ["report", str(rows), "--by", "g", "--dtype", "dob=date",
                              "--where", "dob > 1990"])
    assert out.exit_code == 2
    message = out.stderr.strip()
    assert message == "polars-fair: error: " + E.SQL_TEMPORAL_NUMBER.format(
        role="--where", text="dob > 1990", column="dob", dtype="Date", kind="date",
        comparison="dob > 1990",
        with_literal="dob > DATE '1990-01-01'", with_part="DATE_PART('year', dob) > 1990")
    literal, part = _advice(message)
    # after 1990-01-01: 1995-06-01 and 2001-06-01 (2 rows); year above 1990: the same 2 rows
    assert _n(rows, literal, "--dtype", "dob=date") == 2
    assert _n(rows, part, "--dtype", "dob=date") == 2


@pytest.mark.parametrize(("where", "literal", "part", "kept"), [
    # 1990 < dob: as above, 2 rows
    ("1990 < dob", "DATE '1990-01-01' < dob", "1990 < DATE_PART('year', dob)", 2),
    # both bounds become dates: 1990-01-01 itself only (1 row); years 1990..1995: 2 rows
    ("dob BETWEEN 1990 AND 1995", "dob BETWEEN DATE '1990-01-01' AND DATE '1990-01-01'",
     "DATE_PART('year', dob) BETWEEN 1990 AND 1995", None),
    # a signed number and a quoted name: every dob is after 1990-01-01 but 1985 and 1990 (2)
    ('"dob" >= -1', "\"dob\" >= DATE '1990-01-01'", "DATE_PART('year', dob) >= -1", None),
])
def test_every_form_of_comparison_is_refused(rows: Path, where: str, literal: str, part: str,
                                             kept: int | None) -> None:
    out = runner.invoke(app, ["report", str(rows), "--by", "g", "--dtype", "dob=date",
                              "--where", where])
    assert out.exit_code == 2
    assert _advice(out.stderr.strip()) == (literal, part)
    if kept is not None:
        assert _n(rows, literal, "--dtype", "dob=date") == kept
        assert _n(rows, part, "--dtype", "dob=date") == kept


def test_between_advice_runs(rows: Path) -> None:
    # dob BETWEEN 1990-01-01 AND 1990-01-01: the fourth row only
    assert _n(rows, "dob BETWEEN DATE '1990-01-01' AND DATE '1990-01-01'",
              "--dtype", "dob=date") == 1
    # years 1990 to 1995: 1995-06-01 and 1990-01-01
    assert _n(rows, "DATE_PART('year', dob) BETWEEN 1990 AND 1995", "--dtype", "dob=date") == 2


def test_a_date_time_and_a_time_get_their_own_literal(rows: Path) -> None:
    out = runner.invoke(app, ["report", str(rows), "--by", "g", "--dtype", "t=datetime",
                              "--where", "t > 12"])
    assert out.exit_code == 2 and "'t' (Datetime(time_unit='us', time_zone=None))" in out.stderr
    literal, part = _advice(out.stderr.strip())
    assert literal == "t > TIMESTAMP '1990-01-01 00:00:00'" and \
        part == "DATE_PART('year', t) > 12"
    assert _n(rows, literal, "--dtype", "t=datetime") == 4  # every row is in 2020
    schema = pl.Schema({"t": pl.Time})
    with pytest.raises(E.InvalidArgumentError) as err:
        check_temporal_numbers("t > 12", schema, "where")
    literal, part = _advice(str(err.value))
    assert part == "DATE_PART('hour', t) > 12"
    times = pl.read_csv(ROWS.encode()).select(pl.col("t").str.to_datetime().dt.time())
    # 13:00 and 20:00 are after noon (2 rows), their hour above 12 the same 2
    assert times.filter(pl.sql_expr(literal)).height == 2
    assert times.filter(pl.sql_expr(part)).height == 2


def test_by_and_the_html_page_are_checked_too(rows: Path, tmp_path: Path) -> None:
    out = runner.invoke(app, ["report", str(rows), "--by", "CASE WHEN dob < 30 THEN 1 END",
                              "--dtype", "dob=date"])
    assert out.exit_code == 2 and "compares column 'dob' (Date) with a number (dob < 30)" \
        in out.stderr
    from polars_fair.audit.html import audit_html

    frame = pl.read_csv(rows, try_parse_dates=True)
    with pytest.raises(E.InvalidArgumentError, match=r"compares column 'dob' \(Date\)"):
        audit_html(frame, "g", y_true="y_true", y_pred="y_pred", where="dob > 5")


def test_a_date_beside_a_number_column_is_refused() -> None:
    schema = pl.Schema({"dob": pl.Date, "age": pl.Int64, "s": pl.String})
    with pytest.raises(E.InvalidArgumentError, match=r"\(dob > age\)"):
        check_temporal_numbers("dob > age", schema, "--where")
    # comparisons that mean what they say pass: a date literal, a part, text beside text
    for fine in ("dob > DATE '1990-01-01'", "DATE_PART('year', dob) > 5", "s > 'a'",
                 "age > 5", "CAST(dob AS INT) > 5"):
        check_temporal_numbers(fine, schema, "--where")


@pytest.mark.skipif(not COMPAS.exists(), reason="the shared COMPAS data")
def test_compas_dob_above_five_is_refused_and_shows_no_date_of_birth() -> None:
    out = runner.invoke(app, ["report", str(COMPAS), "--by", "race", "--dtype", "dob=date",
                              "--where", "dob > 5", "--y-true", "two_year_recid",
                              "--y-pred", "score_text <> 'Low'"])
    assert out.exit_code == 2
    advice_dates = out.stderr.replace("1990-01-01", "").replace("1970-01-01", "")
    assert not re.search(r"\d{4}-\d\d-\d\d", advice_dates)  # no date of birth shown
    assert "compares column 'dob' (Date) with a number (dob > 5)" in out.stderr
