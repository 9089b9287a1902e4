"""A ``--membership`` typo is refused when the option is read (issue 24 re-review, item 1).

``g=a:p_a;b:p_b`` used to become ONE group named ``a:p_a;b`` whose probabilities do not sum to
1; ``--normalize`` then made every row 1 in that group and ``check`` passed (exit 0).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app

runner = CliRunner()

#: Four rows: p_a 1, 1, 0, 0 and p_b its complement.
ROWS = pl.DataFrame({"p_a": [1.0, 1.0, 0.0, 0.0], "p_b": [0.0, 0.0, 1.0, 1.0],
                     "y_pred": [1, 0, 1, 1]})


@pytest.fixture
def path(tmp_path: Path) -> Path:
    out = tmp_path / "m.csv"
    ROWS.write_csv(out)
    return out


def _err(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, " ".join(result.stderr.split())


@pytest.mark.parametrize(("typed", "why", "guess"), [
    ("g=a:p_a;b:p_b", "the group 'a:p_a;b' holds ':' or ';'", "'g=a:p_a,b:p_b'"),
    ("g=a:p_a b:p_b", "the group 'a:p_a b' holds ':' or ';'", "'g=a:p_a,b:p_b'"),
    ("g=a:p_a,b:p_b;c:p_c", "the group 'b:p_b;c' holds ':' or ';'", "'g=a:p_a,b:p_b,c:p_c'"),
    # a column holding ';' (the guess 'b,c' would leave c without a column: no guess)
    ("g=a:p_a,b:p_b;c", "the column 'p_b;c' holds ';'", None),
    ("g=a:p_a", "it lists one group ('a'), and an audit compares groups", None),
])
def test_check_refuses_a_membership_typo_with_exit_2(path: Path, typed: str, why: str,
                                                     guess: str | None) -> None:
    for extra in ([], ["--normalize"]):  # --normalize no longer turns the typo into a PASS
        code, err = _err("check", str(path), "--membership", typed, "--y-pred", "y_pred",
                         "--y-true", "y_pred", *extra)
        advice = "" if guess is None else E.CLI_MEMBERSHIP_GUESS.format(fixed=guess)
        assert code == 2
        assert E.CLI_MEMBERSHIP_TYPO.format(given=typed, why=why, advice=advice) in err


def test_a_quoted_group_may_hold_a_colon(path: Path) -> None:
    result = runner.invoke(app, ["check", str(path), "--membership", 'g="a:x":p_a,b:p_b',
                                 "--y-pred", "y_pred", "--y-true", "y_pred", "--min-support", "1"])
    code, err = result.exit_code, result.stderr
    # read as groups 'a:x' and b: rates 1/2 and 2/2, impact ratio 0.5 < 0.8: FAIL (exit 1)
    assert code == 1 and "g=a:x  impact_ratio   0.5000" in result.stdout, err
