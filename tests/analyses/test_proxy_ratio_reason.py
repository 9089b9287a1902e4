"""The regression's impact ratio, when null, says why in ``regression_reason`` (issue 24 review).

impact_ratio_regression = the group's selection-rate estimate / the reference's, defined where
the reference's is positive and the group's is not negative. Both nulls were silent; the other
nulls of the regression (an empty group, a singular fit, a clipped estimate) had their reason.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair
from polars_fair.analyses.proxy_report import REASON_RATIO_NEGATIVE, REASON_RATIO_REFERENCE

MEMBERSHIP = {"g": {"a": "pa", "b": "pb"}}


def _report(df: pl.DataFrame) -> dict[object, dict[str, object]]:
    out = polars_fair.proxy_report(df, membership=MEMBERSHIP, y_true=None, reference="a",
                                   min_support=0).collect()
    return {r["g"]: r for r in out.iter_rows(named=True)}


def test_a_reference_estimate_of_zero_nulls_every_ratio_with_its_reason() -> None:
    # one-hot probabilities: the regression gives each group's own rate (a diagonal Gram
    # matrix): a selects 0 of 2, b 1 of 2; the missing group (null probabilities) 1 of 1
    df = pl.DataFrame({"y_pred": [0, 0, 1, 0, 1], "pa": [1.0, 1.0, 0.0, 0.0, None],
                       "pb": [0.0, 0.0, 1.0, 1.0, None]})
    got = _report(df)
    assert got["a"]["selection_rate_regression"] == 0.0
    assert got["b"]["selection_rate_regression"] == pytest.approx(0.5, rel=1e-12)
    reason = REASON_RATIO_REFERENCE.format(value="0")
    for group in ("a", "b", None):  # 0 / 0 and 0.5 / 0, 1 / 0: undefined
        assert got[group]["impact_ratio_regression"] is None
        assert got[group]["regression_reason"] == reason, group
        assert got[group]["verdict"] in (None, "indeterminate")


def test_a_negative_estimate_nulls_its_ratio_with_its_reason() -> None:
    # rows (p_a, p_b, y): (1, 0, 1), (1, 0, 1), (0.5, 0.5, 0). G = Σ p pᵀ = [[2.25, 0.25],
    # [0.25, 0.25]] (det 0.5), Σ p y = [2, 0]: β = G⁻¹ [2, 0] = 2 · [0.25, −0.25] = [1, −1]
    # (an exact fit: 0.5 · 1 + 0.5 · (−1) = 0). b's estimate −1 < 0: its ratio is null
    df = pl.DataFrame({"y_pred": [1, 1, 0], "pa": [1.0, 1.0, 0.5], "pb": [0.0, 0.0, 0.5]})
    got = _report(df)
    assert got["a"]["impact_ratio_regression"] == 1.0  # the reference over itself
    assert got["a"]["regression_reason"] is None
    assert got["b"]["selection_rate_regression"] == 0.0  # −1, shown clipped
    assert got["b"]["impact_ratio_regression"] is None
    reason = got["b"]["regression_reason"]
    assert isinstance(reason, str)
    assert reason.endswith(REASON_RATIO_NEGATIVE.format(value=-1.0))
    assert "selection_rate estimate -1 " in reason  # the clipping's own reason stays first
