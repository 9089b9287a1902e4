"""The intervals of impact_ratio_change and ofi_change (issue 25 review item 2).

The plain delta method collapsed to a point when the two models agree on the sample (no
discordant pair: variance 0) and could leave the metric's range at tiny n. OFI's change uses the
delta method on Agresti and Min's (2005) adjusted cells (1/2 added to each paired cell),
clipped to the range; the impact ratio's combines each model's MOVER-R interval by MOVER-D
(analyses/ratio_change.py; the delta method covered about 90 % at 30 rows). Expected values are
worked by hand here or by tests/ratio_reference.py.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from tests.ratio_reference import mover_r, ratio_change

Z95 = 1.959963984540054


def _rows(spec: dict[str, list[tuple[int, int, int, int]]]) -> pl.DataFrame:
    """Rows from (y_true, new, old, count) per group."""
    rows = [(g, y, p, b) for g, cells in spec.items() for y, p, b, k in cells for _ in range(k)]
    return pl.DataFrame(rows, schema=["g", "y_true", "new", "old"], orient="row")


def _compare(df: pl.DataFrame, **kw: object) -> dict[str, dict[str, object]]:
    out = df.fair.compare("g", y_pred="new", baseline="old", y_true="y_true", min_support=1,
                          **kw)
    return {r["g"]: r for r in out.iter_rows(named=True)}


def test_identical_models_give_a_non_degenerate_interval_containing_0() -> None:
    # a: 100 rows, 50 selected by both (positives); b: 60 rows, 20 selected by both
    df = _rows({"a": [(1, 1, 1, 50), (0, 0, 0, 50)], "b": [(1, 1, 1, 20), (0, 0, 0, 40)]})
    b = _compare(df)["b"]
    assert b["impact_ratio_change"] == 0.0 and b["ofi_change"] == 0.0
    # OFI change = Δsel_b - Δsel_a; adjusted cells: a (50.5, .5, .5, 50.5) over 102, b
    # (20.5, .5, .5, 40.5) over 62; Var(Δsel) = (p12 + p21 - (p12 - p21)^2)/n = (1/n)/n
    half = Z95 * math.sqrt(1 / 102**2 + 1 / 62**2)
    assert (b["ofi_change_low"], b["ofi_change_high"]) == pytest.approx((-half, half))
    # impact ratio: 20/60 over 50/100 = 2/3 under both models; each model's MOVER-R Wilson
    # interval of it, combined by MOVER-D with the correlation of the two models' log ratios on
    # Agresti-Min's adjusted cells (tests/ratio_reference.py). The models agree, so the two
    # sides are alike: symmetric about 0, not a point.
    low, high = ratio_change((20, 0, 0, 40), (50, 0, 0, 50))
    assert (b["impact_ratio_change_low"], b["impact_ratio_change_high"]) == pytest.approx(
        (low, high), rel=1e-9)
    assert low == pytest.approx(-high) and high > 0.05
    # the reference row's OFI change is 0 by definition: there the width is 0. a is the top
    # under both models and surely so (its ratio to b, 1.5, has the interval [1.019, 2.281] under
    # both, capped at 1): its impact-ratio change is [0, 0] too
    a = _compare(df)["a"]
    assert (a["ofi_change_low"], a["ofi_change_high"]) == (0.0, 0.0)
    assert mover_r(50, 100, 20, 60)[0] > 1
    assert (a["impact_ratio_change_low"], a["impact_ratio_change_high"]) == (0.0, 0.0)


def test_tiny_n_stays_in_the_range() -> None:
    # a: 2 rows, both models select one (the positive); b: 2 negative rows, the candidate
    # selects both and the baseline neither. OFI of b (B_b - B_a): 0 -> 1, change 1.
    df = _rows({"a": [(1, 1, 1, 1), (0, 0, 0, 1)], "b": [(0, 1, 0, 2)]})
    b = _compare(df)["b"]
    assert b["ofi_change"] == 1.0
    # adjusted: b (.5, 2.5, .5, .5) over 4, p12 = 5/8, p21 = 1/8: centre Δsel_b = 1/2,
    # Var = (6/8 - (4/8)^2)/4 = 1/8; a (1.5, .5, .5, 1.5): Var = (1/4)/4 = 1/16; the Wald
    # half-width 1.96 * sqrt(3/16) = 0.849 keeps [-0.349, 1.349] within [-2, 2]
    half = Z95 * math.sqrt(1 / 8 + 1 / 16)
    assert (b["ofi_change_low"], b["ofi_change_high"]) == pytest.approx((0.5 - half,
                                                                         0.5 + half))
    # (the plain delta method gave [1, 1] here: b's Var = (1 - 1^2)/2 = 0 and a's 0)
    # impact ratio of b: the baseline selects no one in b (0/0.5 = 0), the candidate all of b,
    # the top (1): change 1. The interval lies within [-max(1, IR_b), max(1, IR_c)] = [-1, 1]
    assert (b["impact_ratio_baseline"], b["impact_ratio"]) == (0.0, 1.0)
    low, high = b["impact_ratio_change_low"], b["impact_ratio_change_high"]
    assert -1.0 <= low < high <= 1.0
    for r in _compare(df).values():  # every group's intervals are in their range
        assert -2.0 <= r["ofi_change_low"] <= r["ofi_change_high"] <= 2.0
        assert -1.0 <= r["impact_ratio_change_low"] <= r["impact_ratio_change_high"] <= 1.0


def test_a_large_sample_agrees_with_the_plain_delta_method() -> None:
    # a: 100,000 rows, 50,000 selected by both, 2,000 by the candidate only, 1,000 by the
    # baseline only; b: 100,000 rows, the baseline selects 40,000, the candidate 35,000 of those
    n = 100_000
    df = _rows({"a": [(1, 1, 1, 50_000), (0, 1, 0, 2_000), (0, 0, 1, 1_000),
                      (0, 0, 0, 47_000)],
                "b": [(1, 1, 1, 35_000), (1, 0, 1, 5_000), (0, 0, 0, 60_000)]})
    b = _compare(df)["b"]
    # the plain delta method, by hand: rates c (candidate) and q (baseline), both = p11
    c_a, q_a, both_a = 52_000 / n, 51_000 / n, 50_000 / n
    c_b, q_b, both_b = 35_000 / n, 40_000 / n, 35_000 / n

    def var(p: float) -> float:
        return p * (1 - p) / n

    cov_a, cov_b = (both_a - c_a * q_a) / n, (both_b - c_b * q_b) / n
    g = {"cb": 1 / c_a, "ca": -c_b / c_a**2, "qb": -1 / q_a, "qa": q_b / q_a**2}
    v_ir = (g["cb"] ** 2 * var(c_b) + g["qb"] ** 2 * var(q_b) + 2 * g["cb"] * g["qb"] * cov_b
            + g["ca"] ** 2 * var(c_a) + g["qa"] ** 2 * var(q_a) + 2 * g["ca"] * g["qa"] * cov_a)
    ir = c_b / c_a - q_b / q_a
    plain_ir = (ir - Z95 * math.sqrt(v_ir), ir + Z95 * math.sqrt(v_ir))
    # OFI change = Δsel_b - Δsel_a, Var(Δsel) = (p12 + p21 - (p12 - p21)^2)/n
    v_ofi = (0.05 - 0.05**2) / n + (0.03 - 0.01**2) / n
    ofi = -0.05 - 0.01
    plain_ofi = (ofi - Z95 * math.sqrt(v_ofi), ofi + Z95 * math.sqrt(v_ofi))
    # the bounds agree within 5e-5 (the MOVER-R bounds are asymmetric on the ratio scale by
    # about se^2: 1.5e-5 here; the delta method on adjusted cells agreed within 1e-5)
    assert (b["impact_ratio_change_low"], b["impact_ratio_change_high"]) == pytest.approx(
        plain_ir, abs=5e-5)
    assert (b["ofi_change_low"], b["ofi_change_high"]) == pytest.approx(plain_ofi, abs=1e-5)
