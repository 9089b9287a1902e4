"""The guide docs/guide/adverse-impact.md: its code runs and its figures are what it prints."""

from __future__ import annotations

import re
from typing import Any

import polars as pl

from tests.conftest import ROOT

GUIDE = ROOT / "docs" / "guide" / "adverse-impact.md"


def test_the_guide_runs_and_shows_what_the_code_returns() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 5
    scope: dict[str, Any] = {}
    for block in blocks:
        exec(block, scope)  # noqa: S102  (the guide's own code)
    berkeley = scope["berkeley"]
    impact = berkeley.impact_analysis("sex", reference="Male").collect().row(0, named=True)
    assert f"{impact['shortfall']:.4f}" in text and f"{impact['z']:.4f}" in text
    s = scope["s"].filter(pl.col("sex") == "Female").row(0, named=True)
    for column in ("mh_odds_ratio", "mh_ci_low", "mh_ci_high", "cmh_p_value",
                   "breslow_day_p_value", "gap", "composition", "within"):
        assert f"{s[column]:.4f}" in text, column
    for method, group in (("normal", 466), ("fisher", 490)):
        size = scope["polars_fair"].sample_size(reference_rate=0.45, impact_ratio=0.8,
                                                method=method)
        assert f"SampleSize(group={group}, reference={group}, power={size.power:.4f}" in text
