"""BEYOND_CEILING says what to pass, and the advice runs as written (issue 20, 20a item 3).

A size past a raisable limit's ceiling (``max_groups``, ``max_pairs``, ``max_thresholds``,
``max_patterns``) cannot be fixed by raising the limit; the advice was "audit fewer attributes
or categories", "compare fewer groups", "pass a coarser grid", "pass max_order= a smaller value".
Each now names what to pass, in Python or as flags, and each is followed here. Sizes are the
real ceilings where a frame reaches them cheaply; the pattern search's ceiling (100,000,000
candidates) is lowered for its test (``monkeypatch`` of :data:`polars_fair.core.limits.LIMITS`).
"""

from __future__ import annotations

import dataclasses
import re
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


def _refused(call: Any) -> E.SizeLimitError:
    with pytest.raises(E.SizeLimitError) as info:
        call()
    assert "more than" in str(info.value) and "can be raised to" in str(info.value)
    return info.value


def test_enum_intersections_advise_the_observed_ones_and_the_casts_run(tmp_path: Path) -> None:
    enum = pl.Enum([str(i) for i in range(1000)])
    df = pl.DataFrame({**{f"e{i}": pl.Series(["0", "1"], dtype=enum) for i in range(3)},
                       "y_true": [1, 0], "y_pred": [1, 0]})
    err = _refused(lambda: df.lazy().fair.confusion(["e0", "e1", "e2"]))
    # 1,000^3 = 10^9 intersections, past the ceiling 10^7
    assert str(err).endswith(
        "count only the intersections observed: cast the Enum attributes to text first, for "
        "example by=[pl.col('e0').cast(pl.String), pl.col('e1').cast(pl.String), "
        "pl.col('e2').cast(pl.String)]")
    # followed: the two rows' intersections only, ('0', '0', '0') and ('1', '1', '1')
    by = [pl.col(f"e{i}").cast(pl.String) for i in range(3)]
    out = df.fair.confusion(by)
    assert out.select("e0", "e1", "e2", "n").rows() == [("0", "0", "0", 1), ("1", "1", "1", 1)]
    # the command line: the same file as Parquet (its Enums kept), advice as --by flags
    path = tmp_path / "enums.parquet"
    df.write_parquet(path)
    result = runner.invoke(app, ["confusion", str(path), "--by", "e0", "--by", "e1", "--by",
                                 "e2", "--format", "csv"])
    assert result.exit_code == 2
    flags = re.search(r"for example (--by .*)$", result.output.strip())
    assert flags, result.output
    assert flags.group(1) == ('--by "CAST(e0 AS VARCHAR)" --by "CAST(e1 AS VARCHAR)" '
                              '--by "CAST(e2 AS VARCHAR)"')
    followed = runner.invoke(app, ["confusion", str(path), *(
        a for i in range(3) for a in ("--by", f"CAST(e{i} AS VARCHAR)")), "--format", "csv"])
    assert followed.exit_code == 0, followed.output
    assert len(pl.read_csv(followed.stdout.encode())) == 2  # the two observed intersections


def test_combinations_of_24_attributes_advise_a_max_order_that_runs() -> None:
    # 2^24 - 1 = 16,777,215 attribute sets, past the ceiling 10^7
    df = pl.DataFrame({**{f"a{i}": ["x", "y", "x", "y"] for i in range(24)},
                       "y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0]})
    names = [f"a{i}" for i in range(24)]
    err = _refused(lambda: df.fair.confusion(names, combinations="all"))
    # by hand, 2 values an attribute: order 1, 24 x 2 = 48 groups; order 2, 276 x 4 = 1,104
    # more (1,152 <= 10,000); order 3 adds 2,024 x 8 = 16,192 (too many): max_order=2, 300 sets
    m = re.search(r"pass max_order=(\d+) \(([\d,]+) sets of at most", str(err))
    assert m and (m.group(1), m.group(2)) == ("2", "300"), str(err)
    out = df.fair.confusion(names, combinations="all", max_order=int(m.group(1)))
    assert len({tuple(a) for a in out["attributes"].to_list()}) == 300


def test_a_million_and_one_thresholds_advise_a_grid_that_runs() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
                       "s": [0.9, 0.2, 0.6, 0.4]})
    many = [i / 1_000_000 for i in range(1_000_001)]  # the ceiling is 1,000,000
    err = _refused(lambda: df.fair.sweep("g", y_score="s", thresholds=many))
    m = re.search(r"for example thresholds=(\[.*\])$", str(err))
    assert m, str(err)
    grid = [float(x) for x in m.group(1).strip("[]").split(", ")]
    out = df.fair.sweep("g", y_score="s", thresholds=grid, min_support=1)
    assert sorted(set(out["threshold"].to_list())) == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7,
                                                       0.8, 0.9]
    # the command line's words, followed on a file
    assert err.cli_message is not None
    flag = re.search(r"for example --thresholds (\S+)$", err.cli_message)
    assert flag and flag.group(1) == "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"


def test_the_command_line_runs_the_thresholds_it_advises(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
                  "s": [0.9, 0.2, 0.6, 0.4]}).write_csv(path)
    thresholds = E.CLI_CEILING_THRESHOLDS.rsplit(" ", 1)[1]
    result = runner.invoke(app, ["sweep", str(path), "--by", "g", "--y-score", "s",
                                 "--thresholds", thresholds, "--min-support", "1",
                                 "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert pl.read_csv(result.stdout.encode())["threshold"].n_unique() == 9


def test_pairs_past_the_ceiling_advise_report_or_disparity_which_run() -> None:
    # 10,001 groups: 10,001 x 10,000 = 100,010,000 ordered pairs, past the ceiling 10^8;
    # 10,000 groups (99,990,000 pairs) would fit
    k = 10_001
    table = pl.DataFrame({"g": [f"g{i:05d}" for i in range(k)], "n": [4] * k, "tp": [1] * k,
                          "fp": [1] * k, "fn": [1] * k, "tn": [1] * k})
    counts = polars_fair.from_counts(table)
    err = _refused(lambda: counts.pairwise().collect())
    assert str(err).endswith(
        "compare each group with the reference instead, with report() or disparity() (one row "
        "per group), or audit by an attribute of at most 10,000 groups")
    assert err.cli_message is not None and "polars-fair report or polars-fair disparity" \
        in err.cli_message
    assert counts.report().collect().height == k
    assert counts.disparity().collect()["g"].n_unique() == k


def test_patterns_past_the_ceiling_advise_an_order_or_fewer_attributes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the ceiling lowered to 5: level 1 holds g a, b and h x, y (4), level 2 four more (8)
    monkeypatch.setitem(LIMITS, "max_patterns",
                        dataclasses.replace(LIMITS["max_patterns"], limit=5))
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "h": ["x", "y", "x", "y"],
                       "y_true": [1, 0, 1, 0], "y_pred": [1, 0, 0, 0]})
    args: dict[str, Any] = dict(min_support=0.01, min_denominator=1, max_patterns=5)
    err = _refused(lambda: df.fair.divergence(["g", "h"], **args))
    m = re.search(r"pass max_order=(\d+) \(the levels below stayed under the ceiling\)$",
                  str(err))
    assert m and m.group(1) == "1", str(err)
    out = df.fair.divergence(["g", "h"], max_order=int(m.group(1)), **args)
    assert sorted(map(tuple, out["attributes"].to_list())) == [("g",)] * 2 + [("h",)] * 2
    # the ceiling at 3: level 1 alone (4 patterns) is past it; one attribute fewer
    monkeypatch.setitem(LIMITS, "max_patterns",
                        dataclasses.replace(LIMITS["max_patterns"], limit=3))
    args["max_patterns"] = 3
    err = _refused(lambda: df.fair.divergence(["g", "h"], **args))
    m = re.search(r"audit fewer attributes, for example by=(\[.*?\]), or bin", str(err))
    assert m and m.group(1) == "['g']", str(err)
    out = df.fair.divergence(["g"], **args)
    assert sorted(map(tuple, out["attributes"].to_list())) == [("g",)] * 2
