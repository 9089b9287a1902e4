"""impact_analysis on estimated membership tests in Kish's effective size, as the intervals do
(issue 24 re-review 2, item 6), never in ``n``, the rows with a probability above 0."""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)

#: 4 rows surely in a (2 selected), 10 rows at p_a = p_b = 0.5 (4 selected), 6 surely in b
#: (1 selected). By hand:
#:   a: n 14, Σp = 4 + 5 = 9, Σp² = 4 + 10·0.25 = 6.5, n_eff = 81 / 6.5 = 12.4615,
#:      selected 2 + 4·0.5 = 4, rate 4/9
#:   b: n 16, Σp = 6 + 5 = 11, Σp² = 6 + 2.5 = 8.5, n_eff = 121 / 8.5 = 14.2353,
#:      selected 1 + 2 = 3, rate 3/11
#: The reference ("largest": support min(Σp, n_eff), 11 > 9) is b. The pooled z test of a
#: against b counts each side's weighted rate times its n_eff (x = 4/9 · 12.46 = 5.538,
#: y = 3/11 · 14.24 = 3.882): p̄ = (x + y) / (12.46 + 14.24), z = (4/9 − 3/11) /
#: sqrt(p̄(1 − p̄)(1/12.46 + 1/14.24)) = 0.9263; with n (14, 16) it would be 0.9819.
ROWS = pl.DataFrame({
    "p_a": [1.0] * 4 + [0.5] * 10 + [0.0] * 6,
    "y_pred": [1, 1, 0, 0] + [1, 1, 1, 1, 0, 0, 0, 0, 0, 0] + [1, 0, 0, 0, 0, 0],
}).with_columns(p_b=1 - pl.col("p_a"))
MEMBERSHIP = {"g": {"a": "p_a", "b": "p_b"}}


def _z(ra: float, na: float, rb: float, nb: float) -> float:
    pooled = (ra * na + rb * nb) / (na + nb)
    return (ra - rb) / math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))


def test_the_test_counts_effective_rows() -> None:
    na, nb = 81 / 6.5, 121 / 8.5
    z = _z(4 / 9, na, 3 / 11, nb)
    assert z == pytest.approx(0.92629, abs=1e-5)
    assert abs(z - _z(4 / 9, 14, 3 / 11, 16)) > 0.02  # rows would give another z
    table = ROWS.fair.impact_analysis(membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                                      min_support=0)
    a = table.row(0, named=True)
    assert table["is_reference"].to_list() == [False, True]
    assert (a["selected"], a["applicants"]) == pytest.approx((4.0, 9.0), abs=1e-12)
    assert a["z"] == pytest.approx(z, abs=1e-12)
    # fractional effective counts: the pooled z test's two-sided p-value, not Fisher's
    assert a["p_value"] == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), abs=1e-12)


def test_overall_compares_with_the_rest_in_effective_rows() -> None:
    # two groups: the rest of a is b, with its own n_eff
    na, nb = 81 / 6.5, 121 / 8.5
    table = ROWS.fair.impact_analysis(membership=MEMBERSHIP, y_true=None, y_pred="y_pred",
                                      min_support=0, reference="overall")
    assert table["z"].to_list() == pytest.approx([_z(4 / 9, na, 3 / 11, nb),
                                                  _z(3 / 11, nb, 4 / 9, na)], abs=1e-12)
