"""The support size of estimated membership in rows, whatever the sample weights' scale
(issue 24, fix 24b): Σ w·p · n / Σ w over the group's rows, bounded by Kish's n_eff."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import polars_fair
from polars_fair.audit.gate import gate
from polars_fair.core.reference import support_rows

MEMBERSHIP = {"g": {"x": "p", "y": "q"}}


def _sizes(df: pl.DataFrame, weight: str | None) -> dict[str, float]:
    counts = polars_fair.counts(df, y_true=None, membership=MEMBERSHIP,
                                sample_weight=weight).frame.collect()
    sizes = counts.select("g", support_rows(counts.columns).alias("size"))
    return dict(sizes.iter_rows())


def test_the_four_row_example_by_hand_and_scale_free_in_the_weights() -> None:
    p = [0.2, 0.5, 0.9, 1.0]
    df = pl.DataFrame({"y_pred": [1, 0, 1, 0], "p": p, "q": [1 - v for v in p],
                       "w": [0.1, 0.2, 0.3, 0.4]})
    # x: every row has p > 0: Σ w·p = 0.02 + 0.10 + 0.27 + 0.40 = 0.79, Σ w = 1.0, n = 4, so
    # the expected size is 0.79 · 4 / 1.0 = 3.16; Σ (w·p)² = 0.0004 + 0.01 + 0.0729 + 0.16
    # = 0.2433, n_eff = 0.79² / 0.2433 = 2.5651...: the size is n_eff.
    # y: q = 0.8, 0.5, 0.1, 0 (3 rows with q > 0, Σ w = 0.6): Σ w·q = 0.08 + 0.10 + 0.03 =
    # 0.21, expected size 0.21 · 3 / 0.6 = 1.05; n_eff = 0.21² / (0.0064 + 0.01 + 0.0009)
    # = 2.549...: the size is 1.05. (The old min(Σ w·p, n_eff) gave 0.79 and 0.21.)
    want = {"x": 0.79 ** 2 / 0.2433, "y": 0.21 * 3 / 0.6}
    got = _sizes(df, "w")
    assert got == pytest.approx(want, rel=1e-12)
    counts = polars_fair.counts(df, y_true=None, membership=MEMBERSHIP,
                                sample_weight="w").frame.collect()
    assert counts["row_weight_sum"].to_list() == pytest.approx([1.0, 0.6], rel=1e-12)
    # w → 1000·w: the same sizes
    assert _sizes(df.with_columns(pl.col("w") * 1000), "w") == pytest.approx(want, rel=1e-12)
    # unweighted: Σ p = 2.6 and Σ q = 1.4 (n_eff 2.6² / 2.1 = 3.2 and 1.4² / 0.9 = 2.2 above)
    unweighted = polars_fair.counts(df.drop("w"), y_true=None,
                                    membership=MEMBERSHIP).frame.collect()
    assert "row_weight_sum" not in unweighted.columns  # the unweighted schema is unchanged
    assert _sizes(df.drop("w"), None) == pytest.approx({"x": 2.6, "y": 1.4}, rel=1e-12)


def test_crisp_memberships_with_weights_have_the_size_n() -> None:
    # one-hot: Σ w·p = Σ w over the group's rows, so the expected size is n; n_eff
    # (Σ w)² / Σ w² ≤ n bounds it: equal weights make it n exactly
    df = pl.DataFrame({"y_pred": [1, 0, 1, 0, 1], "p": [1.0, 1.0, 0.0, 1.0, 0.0],
                       "q": [0.0, 0.0, 1.0, 0.0, 1.0], "w": [0.2] * 5})
    assert _sizes(df, "w") == pytest.approx({"x": 3.0, "y": 2.0}, rel=1e-12)


@pytest.mark.parametrize("weight", [None, "w"])
def test_weights_summing_to_one_leave_the_gate_checking_both_groups(
        weight: str | None) -> None:
    # the repro: 2,000 rows, p ~ U(0, 1), weights 1/N. Σ w·p ≈ 0.5 per group, so the old
    # support size (in the weights' units) was below min_support=30 for both: nothing checked
    rng = np.random.default_rng(24)
    p = rng.uniform(size=2000)
    lf = pl.LazyFrame({"y_true": rng.integers(0, 2, 2000), "y_pred": rng.integers(0, 2, 2000),
                       "p": p, "w": np.full(2000, 1 / 2000)})
    m = {"r": {"x": "p", "y": pl.lit(1.0) - pl.col("p")}}
    table = gate(polars_fair.counts(lf, membership=m, sample_weight=weight))
    checked = dict(table.filter(pl.col("metric") == "impact_ratio")
                   .select("group", "checked").iter_rows())
    assert checked == {"r=x": True, "r=y": True}
    counts = polars_fair.counts(lf, membership=m, sample_weight=weight).frame.collect()
    sizes = counts.select(support_rows(counts.columns)).to_series().to_list()
    # equal weights: the expected size is Σ p (and Σ (1 − p)), about 1,000 each; n_eff
    # (Σ p)² / Σ p² ≈ 2000 · 0.25 / (1/3) = 1,500 does not bind
    assert sizes == pytest.approx([p.sum(), (1 - p).sum()], rel=1e-9)
    assert all(math.isfinite(s) for s in sizes)


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_the_engines_sum_the_group_weights_as_polars_does(engine: str,
                                                          request: pytest.FixtureRequest) -> None:
    p = [0.2, 0.5, 0.9, 1.0]
    df = pl.DataFrame({"y_pred": [1, 0, 1, 0], "p": p, "q": [1 - v for v in p],
                       "w": [0.1, 0.2, 0.3, 0.4]})
    want = polars_fair.counts(df, y_true=None, membership=MEMBERSHIP,
                              sample_weight="w").frame.collect()
    if engine == "duckdb":
        duckdb = pytest.importorskip("duckdb")
        rows = duckdb.from_arrow(df.to_arrow())
    else:
        rows = request.getfixturevalue("spark").createDataFrame(df.to_arrow())
    got = polars_fair.counts(rows, y_true=None, membership=MEMBERSHIP,
                             sample_weight="w").frame.collect()
    assert got["row_weight_sum"].to_list() == pytest.approx(
        want["row_weight_sum"].to_list(), rel=1e-12)
    assert got.select(support_rows(got.columns)).to_series().to_list() == pytest.approx(
        want.select(support_rows(want.columns)).to_series().to_list(), rel=1e-12)


def test_the_proxy_report_flags_support_in_rows_whatever_the_weights() -> None:
    # the repro in the proxy report: weights 1/N flagged both groups low_support (Σ w·p ≈ 0.5)
    rng = np.random.default_rng(24)
    p = rng.uniform(size=2000)
    df = pl.DataFrame({"y_true": rng.integers(0, 2, 2000), "y_pred": rng.integers(0, 2, 2000),
                       "p": p, "q": 1 - p, "w": np.full(2000, 1 / 2000)})
    for weight in (None, "w"):
        report = df.fair.proxy_report(membership=MEMBERSHIP, sample_weight=weight)
        assert report["low_support"].to_list() == [False, False]
    # the 4-row example: sizes n_eff 2.565 (x) and 1.05 (y), as by hand above
    small = pl.DataFrame({"y_pred": [1, 0, 1, 0], "p": [0.2, 0.5, 0.9, 1.0],
                          "q": [0.8, 0.5, 0.1, 0.0], "w": [0.1, 0.2, 0.3, 0.4]})
    for scale in (1.0, 1000.0):
        report = small.with_columns(pl.col("w") * scale).fair.proxy_report(
            y_true=None, membership=MEMBERSHIP, sample_weight="w", min_support=2)
        assert report["low_support"].to_list() == [False, True]  # 2.565 ≥ 2 > 1.05


def test_the_gate_names_the_weighted_support_size_in_its_reason() -> None:
    from polars_fair.audit.gate import LOW_SUPPORT_MEMBERSHIP_WEIGHTED

    # the 4-row example with weights ×1000: y's support size 1.05 (by hand above) < 2
    df = pl.DataFrame({"y_true": [1, 0, 0, 1], "y_pred": [1, 0, 1, 0],
                       "p": [0.2, 0.5, 0.9, 1.0], "q": [0.8, 0.5, 0.1, 0.0],
                       "w": [100.0, 200.0, 300.0, 400.0]})
    table = gate(polars_fair.counts(df, membership=MEMBERSHIP, sample_weight="w"),
                 min_support=2, reference="x")
    rows = table.filter(pl.col("metric") == "impact_ratio")
    assert rows["checked"].to_list() == [True, False]
    assert rows["reason"].to_list()[1] == LOW_SUPPORT_MEMBERSHIP_WEIGHTED.format(
        size="1.05", min_support=2.0)
    assert LOW_SUPPORT_MEMBERSHIP_WEIGHTED.startswith(
        "support size min(weight_sum * n / row_weight_sum, n_effective) = ")
