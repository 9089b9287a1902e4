"""Fresh-user re-review of the continuous report (issue 22): degenerate sizes and inputs.

Every expected value is worked by hand in the test.
"""

from __future__ import annotations

import math

import polars as pl

import polars_fair


def _check(r: pl.DataFrame, rows: list[tuple[object, ...]]) -> None:
    cols = ["g", "mean", "std", "mean_difference", "ci_low", "ci_high", "p_value", "smd"]
    got = r.select(cols).rows()
    assert len(got) == len(rows)
    for g, e in zip(got, rows, strict=True):
        for x, y in zip(g, e, strict=True):
            if isinstance(y, float):
                assert isinstance(x, float) and math.isclose(x, y, rel_tol=1e-12), (g, e)
            else:
                assert x == y, (g, e)


def test_reference_of_one_row_gives_null_interval() -> None:
    # a: 1 (one row: no sd, so Welch has no interval); b: 2, 3 (mean 2.5, M2 = 0.5, sd √0.5).
    # Pooled sd of b and a: √((0.5 + 0) / (2 + 1 - 2)) = √0.5, so smd = 1.5 / √0.5.
    df = pl.DataFrame({"g": ["a", "b", "b"], "y": [1.0, 2.0, 3.0]})
    want = [("a", 1.0, None, 0.0, None, None, None, None),
            ("b", 2.5, math.sqrt(0.5), 1.5, None, None, None, 1.5 / math.sqrt(0.5))]
    r = df.fair.continuous_report("g", y_pred="y", reference="a", min_support=1)
    _check(r, want)
    # the same moments handed in: a (n 1, mean 1, M2 0), b (n 2, mean 2.5, M2 0.5)
    t = pl.DataFrame({"g": ["a", "b"], "n": [1, 2], "mean_pred": [1.0, 2.5],
                      "m2_pred": [0.0, 0.5]})
    _check(polars_fair.from_moments(t).continuous_report(reference="a", min_support=1)
           .collect(), want)


def test_weights_normalised_per_group() -> None:
    # weights 0.5 each, so each group's size is W = 1: no sd (W - 1 = 0), no interval, and the
    # pooled sd's denominator W_a + W_b - 2 = 0, so the SMD is null (it was 0: M2 / 0 = inf).
    # a: mean (1 + 2) / 2 = 1.5; b: mean (3 + 5) / 2 = 4, difference 2.5.
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y": [1.0, 2.0, 3.0, 5.0], "w": [0.5] * 4})
    r = df.fair.continuous_report("g", y_pred="y", sample_weight="w", reference="a",
                                  min_support=1)
    _check(r, [("a", 1.5, None, 0.0, None, None, None, None),
               ("b", 4.0, None, 2.5, None, None, None, None)])
