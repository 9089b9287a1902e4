"""Minor findings of issue 24's fresh-user review (fix 24a item 6).

- The membership group column keeps the type the groups are written in (String for text,
  Int64 for integers) on every path: count table, report, proxy report, calibration, LL 144,
  availability, pairwise, stratified, lazy and eager, DuckDB. This already held; the test shows it.
- membership_calibration with sample weights: the bins' ``n`` are weight sums, ``n_known`` and
  ``share_known`` count rows (documented now; the test works both out by hand).
- ``report`` and ``check`` took ``--min-support`` as an INTEGER, refusing the fractional
  support size of estimated membership (19.5); they take a NUMBER now, as proxy-report does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair.cli.entry import app

ROWS = pl.DataFrame({"y_true": [1, 0, 1, 0, 1, 0], "y_pred": [1, 0, 0, 1, 1, 1],
                     "p_a": [0.9, 0.8, 0.3, 0.6, 0.7, 0.2], "h": ["x", "y"] * 3,
                     "k": ["a", None, "b", None, "a", None],
                     "w": [1.0, 2.0, 1.0, 1.0, 3.0, 1.0]}).with_columns(p_b=1 - pl.col("p_a"))
PATHS: dict[str, Any] = {
    "report": lambda f, m: f.fair.report(membership=m, min_support=0),
    "argmax report": lambda f, m: f.fair.report(membership=m, membership_estimator="argmax",
                                                min_support=0),
    "counts": lambda f, m: f.fair.counts(membership=m).frame.collect(),
    "proxy_report": lambda f, m: f.fair.proxy_report(membership=m, min_support=0,
                                                     reference=next(iter(m["g"]))),
    "availability": lambda f, m: f.fair.availability(
        benchmark={"g": dict.fromkeys(m["g"], 0.5)}, membership=m,
        membership_estimator="argmax"),
    "bias_audit": lambda f, m: f.fair.bias_audit([], y_pred="y_pred", membership=m,
                                                 membership_estimator="argmax", min_share=0),
    "stratified": lambda f, m: f.fair.stratified(strata="h", membership=m),
    "pairwise": lambda f, m: f.fair.pairwise(membership=m).rename({"g_i": "g"}),
    "lazy report": lambda f, m: f.lazy().fair.report(membership=m, min_support=0).collect(),
    "duckdb counts": lambda f, m: polars_fair.counts(_duck(f), membership=m).frame.collect(),
}


def _duck(frame: pl.DataFrame) -> Any:
    duckdb = pytest.importorskip("duckdb")
    return duckdb.from_arrow(frame.to_arrow())


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize(("groups", "dtype"), [(("a", "b"), pl.String), ((1, 2), pl.Int64)])
def test_the_group_column_keeps_the_groups_type_on_every_path(path: str, groups: tuple[Any, ...],
                                                              dtype: pl.DataType) -> None:
    m = {"g": dict(zip(groups, ("p_a", "p_b"), strict=True))}
    out = PATHS[path](ROWS, m)
    assert out.schema["g"] == dtype
    assert set(out["g"].drop_nulls().to_list()) == set(groups)


def test_calibration_n_is_a_weight_and_share_known_counts_rows() -> None:
    m = {"g": {"a": "p_a", "b": "p_b"}}
    out = ROWS.fair.membership_calibration(membership=m, known="k", bins=2, sample_weight="w")
    # known rows: 0 (a, w 1), 2 (b, w 1), 4 (a, w 3): n_known 3 of 6 rows, share 0.5 (rows,
    # not weight: by weight it would be 5 / 9)
    assert out["n_known"].unique().to_list() == [3]
    assert out["share_known"].unique().to_list() == [0.5]
    # group a, bin (0.5, 1]: rows 0 (p_a 0.9) and 4 (0.7), weights 1 + 3 = 4 (a weight sum);
    # bin [0, 0.5]: row 2 (p_a 0.3), weight 1
    a = out.filter(pl.col("g") == "a").sort("bin")
    assert a["n"].to_list() == [1.0, 4.0]


@pytest.fixture
def rows_csv(tmp_path: Path) -> Path:
    # 8 rows repeated 5 times: Σ p_a = Σ p_b = 4 · 5 = 20 (weight_sum), Σ p² = 2.6 · 5 = 13,
    # n_effective 400 / 13 = 30.77: the support size min(20, 30.77) = 20 for both groups
    path = tmp_path / "rows.csv"
    pl.DataFrame({"y_true": [1, 0, 1, 0, 1, 0, 1, 0] * 5,
                  "y_pred": [1, 0, 0, 1, 1, 1, 0, 1] * 5,
                  "p_a": [0.9, 0.8, 0.3, 0.2, 0.7, 0.6, 0.1, 0.4] * 5}).with_columns(
        p_b=1 - pl.col("p_a")).write_csv(path)
    return path


def test_report_and_check_take_a_fractional_min_support(rows_csv: Path) -> None:
    runner = CliRunner()
    base = [str(rows_csv), "--membership", "g=a:p_a,b:p_b"]
    for support, low in (("19.5", [False, False]), ("20.5", [True, True])):
        result = runner.invoke(app, ["report", *base, "--min-support", support,
                                     "--columns", "g,weight_sum,low_support", "--format", "csv"])
        assert result.exit_code == 0, result.stderr
        out = pl.read_csv(result.stdout.encode())
        assert out["weight_sum"].to_list() == pytest.approx([20.0, 20.0], rel=1e-12)
        assert out["low_support"].to_list() == low
    result = runner.invoke(app, ["check", *base, "--min-support", "19.5", "--format", "json"])
    verdict = json.loads(result.stdout)
    assert verdict["limits"]["min_support"] == 19.5
    assert verdict["checked_groups"] == ["g=a", "g=b"]
    result = runner.invoke(app, ["check", *base, "--min-support", "20.5"])
    assert result.exit_code == 2
    assert "of at least --min-support 20.5: nothing was checked" in result.stderr
    # a whole number stays an integer in the verdict
    result = runner.invoke(app, ["check", *base, "--min-support", "5", "--format", "json"])
    assert json.loads(result.stdout)["limits"]["min_support"] == 5


def test_the_html_page_counts_rows_so_its_min_support_is_whole(rows_csv: Path) -> None:
    result = CliRunner().invoke(app, ["report", str(rows_csv), "--by", "y_true",
                                      "--min-support", "2.5", "--html",
                                      str(rows_csv.with_suffix(".html"))])
    assert result.exit_code == 2
    assert "--min-support with --html is a number of rows" in result.stderr
    assert not rows_csv.with_suffix(".html").exists()
