"""The ``ofi_change`` interval contains its point estimate (issue 25 re-review, item 2).

The interval is a Wald interval on Agresti and Min's adjusted cells (each paired cell + 1/2),
centred on the adjusted change. At one or two rows per group the adjustment pulls the centre
so far towards 0 that the interval ended before the change the row reports; it is now widened
to reach it (and left alone where it already contains it).

By hand, the paired cells of a group are (a, b, c, d) = (both select, only the candidate,
only the baseline, neither), adjusted to (a + 1/2, ...) with n' = n + 2. The candidate's rate
is p1 = (a + b)/n', the baseline's p2 = (a + c)/n'; Var(p1 − p2) = p1(1 − p1)/n' +
p2(1 − p2)/n' − 2 (a/n' − p1 p2)/n'. The OFI change of g against the reference r is
Δsel_g − Δsel_r (the base rate is the same for both models), with variance the sum of the two
groups' variances.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

Z = 1.959963984540054  # the 97.5 % normal quantile (level 0.95)


def _adjusted(a: int, b: int, c: int, d: int) -> tuple[float, float]:
    """The adjusted change p1 − p2 and its variance, written out from the formula above."""
    a2, b2, c2, d2 = a + 0.5, b + 0.5, c + 0.5, d + 0.5
    n = a2 + b2 + c2 + d2
    p1, p2 = (a2 + b2) / n, (a2 + c2) / n
    var = p1 * (1 - p1) / n + p2 * (1 - p2) / n - 2 * (a2 / n - p1 * p2) / n
    return p1 - p2, var


def _rows(groups: dict[str, list[tuple[int, int]]]) -> pl.DataFrame:
    """Rows (g, y, new, old) from each group's (new, old) predictions; every label 1."""
    rows = [(g, 1, new, old) for g, pairs in groups.items() for new, old in pairs]
    return pl.DataFrame(rows, schema=["g", "y", "new", "old"], orient="row")


def _compare(df: pl.DataFrame) -> dict[str, dict[str, float]]:
    out = df.fair.compare("g", y_pred="new", baseline="old", y_true="y", reference="b",
                          min_support=1)
    return {r["g"]: r for r in out.iter_rows(named=True)}


def test_one_row_per_group_the_interval_reaches_the_change_of_two() -> None:
    # a: the candidate selects its one row, the baseline not (cells 0, 1, 0, 0): Δsel = 1;
    # b (reference): the baseline selects, the candidate not (0, 0, 1, 0): Δsel = −1
    out = _compare(_rows({"a": [(1, 0)], "b": [(0, 1)]}))
    a = out["a"]
    assert a["ofi_change"] == pytest.approx(2.0)
    change_a, var_a = _adjusted(0, 1, 0, 0)  # 1/3, 5/27
    change_b, var_b = _adjusted(0, 0, 1, 0)  # −1/3, 5/27
    assert (change_a, var_a) == pytest.approx((1 / 3, 5 / 27))
    centre, se = change_a - change_b, math.sqrt(var_a + var_b)  # 2/3, sqrt(10/27)
    assert centre + Z * se == pytest.approx(1.8594, abs=1e-4)  # the old upper end: below 2
    assert a["ofi_change_low"] == pytest.approx(centre - Z * se, abs=1e-12)  # -0.5261
    assert a["ofi_change_high"] == pytest.approx(2.0, abs=1e-12)  # widened to the estimate
    # the reference's own OFI change is 0 by definition, its interval the point 0
    assert (out["b"]["ofi_change_low"], out["b"]["ofi_change_high"]) == (0.0, 0.0)


def test_two_rows_per_group_widened_only_where_needed() -> None:
    # a: both rows candidate only (0, 2, 0, 0): Δsel = 1; b (reference): both baseline only
    # (0, 0, 2, 0): Δsel = −1; c: the models agree, one row selected by both (1, 0, 0, 1)
    out = _compare(_rows({"a": [(1, 0), (1, 0)], "b": [(0, 1), (0, 1)],
                          "c": [(1, 1), (0, 0)]}))
    change_a, var_a = _adjusted(0, 2, 0, 0)  # 1/2, 1/8
    change_b, var_b = _adjusted(0, 0, 2, 0)  # −1/2, 1/8
    change_c, var_c = _adjusted(1, 0, 0, 1)  # 0, 1/16
    assert (var_a, var_b, var_c) == pytest.approx((1 / 8, 1 / 8, 1 / 16))
    # a: change 2, Wald interval 1 ± 1.96·0.5 = [0.0200, 1.9800]: widened to 2
    a = out["a"]
    se_a = math.sqrt(var_a + var_b)
    assert a["ofi_change"] == pytest.approx(2.0)
    assert a["ofi_change_low"] == pytest.approx(change_a - change_b - Z * se_a, abs=1e-12)
    assert a["ofi_change_high"] == pytest.approx(2.0, abs=1e-12)
    # c: change 0 − (−1) = 1, Wald interval 1/2 ± 1.96·sqrt(3/16) = [−0.3487, 1.3487] holds
    # it: unchanged
    c = out["c"]
    se_c = math.sqrt(var_c + var_b)
    assert c["ofi_change"] == pytest.approx(1.0)
    assert (c["ofi_change_low"], c["ofi_change_high"]) == pytest.approx(
        (0.5 - Z * se_c, 0.5 + Z * se_c), abs=1e-12)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_change_interval_contains_its_estimate_at_small_n(n: int) -> None:
    """Every (new, old) pattern of n rows in a group against a fixed reference."""
    patterns = [(1, 0), (0, 1), (1, 1), (0, 0)]
    for first in patterns:
        for second in patterns:
            df = _rows({"a": [first] * n, "b": [second] * n, "c": [(1, 0), (0, 1)] * n})
            for r in _compare(df).values():
                for m in ("ofi", "impact_ratio", "selection_rate"):
                    value, low, high = (r[f"{m}_change"], r[f"{m}_change_low"],
                                        r[f"{m}_change_high"])
                    if value is not None and low is not None:
                        assert low - 1e-12 <= value <= high + 1e-12, (first, second, m, r)
