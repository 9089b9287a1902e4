"""A comma-joined ``by`` says pass a list (issue 20, fix item 3).

``df.fair.report("race,sex")`` answered "did you mean 'race'?", and following it dropped sex.
Every place that reads a list of columns (``by`` of the namespace, of a count table and of the
HTML page; ``categories`` of the bias audit; ``--category`` on the command line) now says to
pass a list (or repeat the flag), and the advice, followed as written, gives the race x sex
groups worked out by hand.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.audit.html import audit_html
from polars_fair.cli.entry import app

#: 40 rows: race a/b alternating, sex m,m,f,f repeating: 10 rows in each race x sex cell
DF = pl.DataFrame({"race": ["a", "b"] * 20, "sex": ["m", "m", "f", "f"] * 10,
                   "y_true": [0, 1] * 20, "y_pred": [1, 1, 0, 0] * 10})
CELLS = {("a", "f"): 10, ("a", "m"): 10, ("b", "f"): 10, ("b", "m"): 10}


def _advice(message: str) -> dict[str, Any]:
    m = re.search(r"pass a list, (\w+)=(\[.*\])$", message)
    assert m, message
    return {m.group(1): eval(m.group(2))}  # the Python the message writes, run as written


@pytest.mark.parametrize("joined", ["race,sex", "race, sex", ["race,sex"]])
def test_report_by_a_comma_joined_name_says_pass_a_list(joined: Any) -> None:
    with pytest.raises(E.ColumnNotFoundError) as err:
        DF.fair.report(joined, min_support=1)
    message = err.value.args[0]
    assert message == E.COMMA_JOINED_COLUMNS.format(
        column=joined if isinstance(joined, str) else joined[0], role="by",
        parts="'race' and 'sex'", advice="by=['race', 'sex']")
    assert "did you mean" not in message
    report = DF.fair.report(**_advice(message), min_support=1)
    assert {(r, s): n for r, s, n in report.select("race", "sex", "n").rows()} == CELLS


def test_every_reader_of_by_says_pass_a_list() -> None:
    table = DF.fair.counts(by=["race", "sex"])
    cases = [lambda: DF.lazy().fair.counts(by="race,sex"),
             lambda: table.report(by="race,sex"),
             lambda: audit_html(DF, "race,sex", y_true="y_true", y_pred="y_pred")]
    for case in cases:
        with pytest.raises(E.ColumnNotFoundError, match=r"pass a list, by=\['race', 'sex'\]"):
            case()
    with pytest.raises(E.ColumnNotFoundError) as err:
        DF.fair.bias_audit(categories="race,sex", y_pred="y_pred")
    advice = _advice(err.value.args[0])
    assert advice == {"categories": ["race", "sex"]}
    audit = DF.fair.bias_audit(**advice, y_pred="y_pred")
    # race x sex: 4 categories of 10 applicants each
    both = audit.filter(pl.col("race").is_not_null() & pl.col("sex").is_not_null())
    assert {(r, s): n for r, s, n in both.select("race", "sex", "n").rows()} == CELLS


def test_a_comma_name_that_is_not_all_columns_keeps_did_you_mean() -> None:
    with pytest.raises(E.ColumnNotFoundError) as err:
        DF.fair.report("race,sx")
    assert "pass a list" not in str(err.value)


def test_category_flag_with_a_comma_says_repeat_it(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    DF.write_csv(path)
    out = CliRunner().invoke(app, ["bias-audit", str(path), "--category", "race,sex",
                                   "--y-pred", "y_pred"])
    assert out.exit_code == 2
    assert out.stderr.strip() == "polars-fair: error: " + E.CLI_BY_COMMA.format(
        flag="--category", text="race,sex", flags="--category 'race' --category 'sex'")
    out = CliRunner().invoke(app, ["bias-audit", str(path), "--category", "race", "--category",
                                   "sex", "--y-pred", "y_pred", "--format", "csv"])
    assert out.exit_code == 0, out.stderr
