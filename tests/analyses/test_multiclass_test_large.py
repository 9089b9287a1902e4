"""Issue 22 (fresh-user review) item 3: multiclass_test on count tables of very large counts.

The expected counts were ``np.outer(rows, cols)`` in int64, which overflows for counts of
10^15 (chi2 3.1e27, p 0, v 886,296, a negative min_expected) and, for 2e9, made a negative
statistic (``math domain error``). References: the exact statistic in ``fractions`` and
scipy's ``chi2_contingency`` (without continuity correction).
"""
from __future__ import annotations

import math
from fractions import Fraction

import polars as pl
import pytest
from scipy.stats import chi2, chi2_contingency

import polars_fair


def _exact(obs: list[list[int]]) -> tuple[float, float]:
    """Pearson's statistic and the least expected count, exactly (then rounded once)."""
    rows = [sum(r) for r in obs]
    cols = [sum(c) for c in zip(*obs, strict=True)]
    n = sum(rows)
    stat = sum(Fraction((obs[i][j] * n - rows[i] * cols[j]) ** 2, n * rows[i] * cols[j])
               for i in range(len(rows)) for j in range(len(cols)))
    return float(stat), float(min(Fraction(r * c, n) for r in rows for c in cols))


@pytest.mark.parametrize("n", [
    [10**15, 10**15 + 10**7, 10**15, 10**15],  # int64 outer product overflows
    [2 * 10**9, 2 * 10**9 + 1000, 2 * 10**9, 2 * 10**9],  # raised "math domain error"
    [10, 12, 15, 9],  # small: the int64 route
])
def test_large_counts_match_the_exact_statistic_and_scipy(n: list[int]) -> None:
    t = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_pred": ["L", "H", "L", "H"], "n": n})
    out = polars_fair.from_class_counts(t).multiclass_test().collect().row(0, named=True)
    # rows a, b; columns H, L (sorted)
    obs = [[n[1], n[0]], [n[3], n[2]]]
    stat, low = _exact(obs)
    assert out["n"] == sum(n)
    assert out["chi2"] == pytest.approx(stat, rel=1e-12)
    assert out["dof"] == 1
    assert out["p_value"] == pytest.approx(float(chi2.sf(stat, 1)), rel=1e-12)
    assert out["v"] == pytest.approx(math.sqrt(stat / sum(n)), rel=1e-12)  # min(r, c) - 1 = 1
    assert out["min_expected"] == pytest.approx(low, rel=1e-12)
    assert out["method"] == "chi-square"
    ref = chi2_contingency(obs, correction=False)
    assert out["chi2"] == pytest.approx(ref.statistic, rel=1e-6)
    assert out["p_value"] == pytest.approx(ref.pvalue, rel=1e-6)
    assert out["min_expected"] == pytest.approx(ref.expected_freq.min(), rel=1e-12)


def test_the_reviewed_table_gives_the_reviewed_figures() -> None:
    # the review: scipy gives chi2 0.025 and p 0.874 where we gave 3.1e27 and 0
    t = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_pred": ["L", "H", "L", "H"],
                      "n": [10**15, 10**15 + 10**7, 10**15, 10**15]})
    out = polars_fair.from_class_counts(t).multiclass_test().collect()
    assert round(out["chi2"][0], 3) == 0.025
    assert round(out["p_value"][0], 3) == 0.874
    assert out["min_expected"][0] > 0
