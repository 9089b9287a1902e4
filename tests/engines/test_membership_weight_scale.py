"""Kish's size of estimated membership whatever the sample weights' scale (issue 24 review).

n_effective = (Σ w·p)² / Σ (w·p)² is unchanged when every weight is multiplied by a constant,
but weights of 1e170 square to inf and weights of 1e-170 to 0: it came out NaN on every engine.
The expected values are exact: the same sums over :class:`fractions.Fraction` of the very floats
the frame holds (no rounding at all), so every scale must give the figures of weights near 1.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair

MEMBERSHIP = {"g": {"a": "pa", "b": "pb"}}
ROUTES = ["eager", "lazy", "duckdb", "spark"]
SCALES = [1e170, 1e-170, 1e300 / 3, 3e-300]


def _people(scale: float) -> pl.DataFrame:
    rng = np.random.default_rng(2024)
    n = 40
    pa = rng.uniform(0.0, 1.0, n).round(3)
    return pl.DataFrame({"y_true": rng.integers(0, 2, n), "y_pred": rng.integers(0, 2, n),
                         "pa": pa, "pb": 1.0 - pa, "w": rng.uniform(0.5, 4.0, n) * scale})


def _exact(df: pl.DataFrame) -> dict[str, tuple[Fraction, Fraction, Fraction]]:
    """Per group: Σ w·p, Kish's (Σ w·p)² / Σ (w·p)² and the attenuation, in exact arithmetic.

    attenuation = (Σ w·p² / Σ w − μ²) / (μ (1 − μ)) with μ = Σ w·p / Σ w (the module's formula).
    """
    w = [Fraction(x) for x in df["w"]]
    out = {}
    for group, col in MEMBERSHIP["g"].items():
        p = [Fraction(x) for x in df[col]]
        s = sum(wi * pi for wi, pi in zip(w, p, strict=True))
        h = sum((wi * pi) ** 2 for wi, pi in zip(w, p, strict=True))
        g2 = sum(wi * pi * pi for wi, pi in zip(w, p, strict=True))
        mu = s / sum(w)
        out[group] = (s, s * s / h, (g2 / sum(w) - mu * mu) / (mu * (1 - mu)))
    return out


def _counts(route: str, df: pl.DataFrame, request: pytest.FixtureRequest) -> pl.DataFrame:
    args: dict[str, Any] = {"membership": MEMBERSHIP, "sample_weight": "w"}
    if route == "eager":
        return df.fair.counts(**args).frame.collect()
    if route == "lazy":
        return df.lazy().fair.counts(**args).frame.collect()
    frame = (request.getfixturevalue("spark").createDataFrame(df.to_arrow())
             if route == "spark" else request.getfixturevalue("duck").from_arrow(df.to_arrow()))
    return polars_fair.counts(frame, **args).frame.collect()


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("scale", SCALES)
def test_n_effective_is_exact_at_any_weight_scale(route: str, scale: float,
                                                   request: pytest.FixtureRequest) -> None:
    df = _people(scale)
    want = _exact(df)
    got = _counts(route, df, request).sort("g")
    assert got["g"].to_list() == ["a", "b"]
    for row in got.iter_rows(named=True):
        weight_sum, size, attenuation = want[row["g"]]
        assert row["weight_sum"] == pytest.approx(float(weight_sum), rel=1e-13)
        assert row["n_effective"] == pytest.approx(float(size), rel=1e-12)
        assert row["attenuation"] == pytest.approx(float(attenuation), rel=1e-9)
        assert 1.0 <= row["n_effective"] <= row["n"]


def test_missing_group_n_effective_at_a_huge_scale() -> None:
    # the rows with a null probability form a crisp group: (Σ w)² / Σ w²; weights 1e170 x
    # (1, 1, 2): (4)² / (1 + 1 + 4) = 16 / 6 = 8 / 3
    df = pl.DataFrame({"y_true": [1, 0, 1, 0], "y_pred": [1, 1, 0, 0],
                       "pa": [None, None, None, 1.0], "pb": [0.5, 0.5, 0.5, 0.0],
                       "w": [1e170, 1e170, 2e170, 1e170]})
    got = df.fair.counts(membership=MEMBERSHIP, sample_weight="w").frame.collect()
    missing = got.filter(pl.col("g").is_null()).row(0, named=True)
    assert missing["n_effective"] == pytest.approx(8 / 3, rel=1e-15)
    assert missing["weight_sum"] == pytest.approx(4e170, rel=1e-15)
    assert missing["tp"] == pytest.approx(1e170, rel=1e-15)  # the one (1, 1) row, weight 1e170


@pytest.mark.parametrize("scale", [1e170, 1e-170])
def test_proxy_report_is_the_same_at_any_weight_scale(scale: float) -> None:
    # every column but the weight sums is a ratio of sums: the figures of weights near 1
    base = _people(1.0)
    args: dict[str, Any] = {"membership": MEMBERSHIP, "sample_weight": "w", "reference": "a",
                            "min_support": 0}
    want = polars_fair.proxy_report(base, **args).collect()
    got = polars_fair.proxy_report(base.with_columns(pl.col("w") * scale), **args).collect()
    for column in want.columns:
        if want.schema[column] != pl.Float64:
            assert got[column].to_list() == want[column].to_list(), column
            continue
        factor = scale if column == "weight_sum" else 1.0
        assert got[column].null_count() == want[column].null_count(), column
        np.testing.assert_allclose(got[column].drop_nulls().to_numpy(),
                                   want[column].drop_nulls().to_numpy() * factor,
                                   rtol=1e-9, err_msg=column)
    assert want["n_effective"].is_finite().all()
    exact = _exact(base)
    for row in want.iter_rows(named=True):
        assert row["n_effective"] == pytest.approx(float(exact[row["g"]][1]), rel=1e-12)


@pytest.mark.parametrize("scale", [1e170, 1e-170])
def test_roll_up_keeps_n_effective_at_any_weight_scale(scale: float) -> None:
    # counted by (g, s), rolled up to g: the same Kish size as a count by g alone
    df = _people(scale).with_columns(s=pl.int_range(pl.len()) % 3)
    fine = df.fair.counts("s", membership=MEMBERSHIP, sample_weight="w")
    got = fine.report(by=["g"], reference="a", min_support=0).collect().sort("g")
    exact = _exact(df)
    for row in got.iter_rows(named=True):
        assert row["n_effective"] == pytest.approx(float(exact[row["g"]][1]), rel=1e-12)
        assert row["attenuation"] == pytest.approx(float(exact[row["g"]][2]), rel=1e-9)
