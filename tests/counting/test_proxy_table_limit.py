"""The proxy report's bound on the number of membership groups (issue 24, fix 24c item 1).

The regression estimator's sandwich variance needs, per cell, the sums of every product of four
probabilities (the ``u`` family): (G+3 choose 4) columns. By hand: 12 groups give
15·14·13·12/24 = 1,365 columns, 13 groups 16·15·14·13/24 = 1,820, 25 groups
28·27·26·25/24 = 20,475. Measured (/usr/bin/time -v, 3,000 rows, fix 24a): 8 groups 0.18 GB,
12 groups 0.36 GB (0.56 GB at 200,000 rows), 14 groups 0.67 GB, 16 groups 1.4 GB; 25 groups
aborted the process. More than 12 groups now raise SizeLimitError before any work: the command
line refused a 2,000,000-row file of 13 groups after 29 s and 1.6 GB (the input was read
first), and now at once (77 MB, the interpreter).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app
from polars_fair.core.limits import LIMITS, limit
from polars_fair.counting.membership import sum_columns
from polars_fair.counting.proxy_table import proxy_table


def _membership(groups: int) -> dict[str, dict[str, str]]:
    return {"g": {f"v{i}": f"p{i}" for i in range(groups)}}


def test_the_fourth_order_sums_count_as_worked_by_hand() -> None:
    def u_columns(k: int) -> int:
        return sum(c.startswith("u_") for c in sum_columns(k, ("u",)))

    assert (u_columns(12), u_columns(13), u_columns(25)) == (1_365, 1_820, 20_475)
    assert limit("membership_groups") == 12
    assert "1,365 at 12 groups, 20,475 at 25" in LIMITS["membership_groups"].why


def test_more_groups_than_the_limit_are_refused_before_any_work() -> None:
    # no probability column exists: the bound fires before the schema is read
    rows = pl.LazyFrame({"y_pred": [1, 0]})
    with pytest.raises(E.SizeLimitError, match=r"membership: attribute 'g' has 13 groups, "
                       r"more than the proxy report's limit membership_groups 12") as err:
        proxy_table(rows, membership=_membership(13), y_true=None)
    assert "membership_estimator='weighted' or 'argmax'" in str(err.value)
    for call in (lambda: rows.fair.proxy_report(membership=_membership(25), y_true=None),
                 lambda: rows.collect().fair.proxy_report(membership=_membership(25)),
                 lambda: polars_fair.proxy_report(rows, membership=_membership(25)),
                 lambda: polars_fair.proxy_counts(rows, membership=_membership(25))):
        with pytest.raises(E.SizeLimitError, match="has 25 groups, .* membership_groups 12"):
            call()


def test_the_advice_works_when_followed() -> None:
    # 13 groups, one row each, all its probability on its own group; y_pred = i % 2
    rows = pl.DataFrame({"y_pred": [i % 2 for i in range(13)],
                         **{f"p{i}": [float(j == i) for j in range(13)] for i in range(13)}})
    with pytest.raises(E.SizeLimitError) as err:
        rows.fair.proxy_report(membership=_membership(13), y_true=None)
    assert "merge rare groups into one (its probability column the sum of theirs)" in str(
        err.value)
    # merged: v11 and v12 into "rest" (p11 + p12): rows 11 (y_pred 1) and 12 (y_pred 0)
    merged = {"g": {**{f"v{i}": f"p{i}" for i in range(11)}, "rest": "p_rest"}}
    out = rows.with_columns(p_rest=pl.col("p11") + pl.col("p12")).fair.proxy_report(
        membership=merged, y_true=None, reference="v0", min_support=0)
    assert dict(out.select("g", "selection_rate_argmax").rows()) == {
        **{f"v{i}": float(i % 2) for i in range(11)}, "rest": 0.5}
    # the other estimators over the 13 groups: each group's rate is its own row's prediction
    assert "use membership_estimator='weighted' or 'argmax' with report" in str(err.value)
    for estimator in ("weighted", "argmax"):
        rep = rows.fair.report(membership=_membership(13), membership_estimator=estimator,
                               y_true=None, min_support=0)
        assert dict(rep.select("g", "selection_rate").rows()) == {
            f"v{i}": float(i % 2) for i in range(13)}


def test_the_limit_itself_is_accepted() -> None:
    # 12 groups, one row each with all its probability on its own group: the argmax estimate
    # of each group's selection rate is that row's prediction
    rows = pl.DataFrame({"y_pred": [i % 2 for i in range(12)],
                         **{f"p{i}": [float(j == i) for j in range(12)] for i in range(12)}})
    out = rows.fair.proxy_report(membership=_membership(12), y_true=None, reference="v0",
                                 min_support=0)
    assert out["selection_rate_argmax"].to_list() == [float(i % 2) for i in range(12)]


def test_the_command_line_names_the_limit_before_reading_the_input(tmp_path: Path) -> None:
    # the file does not exist: the bound is checked before the input is read
    spec = ",".join(f"v{i}:p{i}" for i in range(13))
    result = CliRunner().invoke(app, ["proxy-report", str(tmp_path / "absent.csv"),
                                      "--membership", f"g={spec}", "--y-pred", "y_pred",
                                      "--format", "json"])
    assert result.exit_code == 2
    error = json.loads(result.stdout)
    assert error["error"] == "SizeLimitError"
    assert "has 13 groups, more than the proxy report's limit membership_groups 12" in str(error)
    assert "--membership-estimator 'weighted' or 'argmax' with report" in str(error)


def test_the_command_line_advice_works_when_followed(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    pl.DataFrame({"y_pred": [i % 2 for i in range(13)],
                  **{f"p{i}": [float(j == i) for j in range(13)] for i in range(13)}},
                 ).write_csv(path)
    spec = ",".join(f"v{i}:p{i}" for i in range(13))
    result = CliRunner().invoke(app, ["report", str(path), "--membership", f"g={spec}",
                                      "--membership-estimator", "argmax", "--y-true", "y_pred",
                                      "--min-support", "0", "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    # y_true is the prediction here: each group's one row, selection rate i % 2
    out = pl.read_csv(result.stdout.encode(), schema_overrides={"g": pl.String})
    assert dict(out.select("g", "selection_rate").rows()) == {
        f"v{i}": float(i % 2) for i in range(13)}
