"""LL 144's benchmark meets report's support rule by default (issue 20, fix item 4).

COMPAS under the plain rule took Native American (18 defendants) as the race benchmark and
Native American x Female (4) as the intersection's. By default the benchmark is now the highest
rate among the categories with ``min_support`` (30) rows, as ``report`` picks its reference
(``prefer_supported``); every category is still reported, ``benchmark_eligible`` says which
could set it, and ``plain_benchmark=True`` keeps the law's plain rule. The expected ratios come
from a plain Polars group-by of the file, independent of the audit.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from tests.conftest import COMPAS_CSV, require


def _compas() -> pl.DataFrame:
    return pl.read_csv(require(COMPAS_CSV), columns=["race", "sex", "score_text"]).select(
        "race", "sex", hired=(pl.col("score_text") != "Low").cast(pl.Int64))


def _rates(df: pl.DataFrame, keys: list[str]) -> dict[tuple[str, ...], tuple[int, float]]:
    counted = df.group_by(keys).agg(n=pl.len(), sel=pl.col("hired").sum())
    return {tuple(r[k] for k in keys): (r["n"], r["sel"] / r["n"])
            for r in counted.iter_rows(named=True)}


def test_compas_benchmark_is_a_supported_category() -> None:
    df = _compas()
    audit = df.fair.bias_audit(["race", "sex"], y_pred="hired")
    for keys in (["race"], ["race", "sex"]):
        rates = _rates(df, keys)
        # the benchmark: the highest rate among categories of 30 rows or more
        top = max(rate for n, rate in rates.values() if n >= 30)
        rows = audit.filter(pl.col("attributes") == keys)
        assert rows.height == len(rates)  # every category reported
        for r in rows.iter_rows(named=True):
            n, rate = rates[tuple(r[k] for k in keys)]
            assert r["benchmark_eligible"] == (n >= 30)
            assert r["impact_ratio"] == pytest.approx(rate / top, rel=1e-12)
    race = {r["race"]: r for r in audit.filter(pl.col("attributes") == ["race"]).iter_rows(
        named=True)}
    # African-American (3,696 rows, 2,174 selected: 0.5882) is the benchmark; Native American
    # (18 rows, 12 selected: 0.6667) is reported against it, 0.6667 / 0.5882 = 1.1334
    assert race["African-American"]["impact_ratio"] == 1.0
    assert race["Native American"]["impact_ratio"] == pytest.approx((12 / 18) / (2174 / 3696))
    assert not race["Native American"]["benchmark_eligible"]


def test_plain_benchmark_keeps_the_laws_rule() -> None:
    df = _compas()
    plain = df.fair.bias_audit(["race", "sex"], y_pred="hired", plain_benchmark=True)
    top = plain.filter(pl.col("impact_ratio") == 1.0)
    # the plain rule: the highest rate of all, Native American (18 rows), and Native American x
    # Female (4 rows, 3 selected: 0.75) in the intersection
    assert top.filter(pl.col("attributes") == ["race"])["race"].to_list() == ["Native American"]
    both = top.filter(pl.col("attributes") == ["race", "sex"]).select("race", "sex", "n").rows()
    assert both == [("Native American", "Female", 4)]
    assert plain["benchmark_eligible"].fill_null(False).sum() == plain.filter(
        ~pl.col("excluded")).height


def test_no_supported_category_falls_back_to_all() -> None:
    # 3 categories of 10, 5 and 2 rows (none has 30): every one may set the benchmark, so the
    # highest rate, c's 2/2 = 1.0, is it; a: 5/10 -> 0.5, b: 1/5 -> 0.2
    df = pl.DataFrame({"g": ["a"] * 10 + ["b"] * 5 + ["c"] * 2,
                       "hired": [1] * 5 + [0] * 5 + [1] + [0] * 4 + [1, 1]})
    out = df.fair.bias_audit(["g"], y_pred="hired")
    assert dict(out.select("g", "impact_ratio").rows()) == {"a": 0.5, "b": 0.2, "c": 1.0}
    assert out["benchmark_eligible"].to_list() == [True, True, True]
