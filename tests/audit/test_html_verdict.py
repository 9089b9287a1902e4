"""The audit page leads with the verdict: PASS or FAIL, the failing rules per group, each figure
with its interval (issue 20 item 5). The expected values are worked by hand below."""

from __future__ import annotations

import math
import re

import polars as pl
import pytest

from tests.audit.test_plot import require_plot_extra
from tests.ratio_reference import mover_r

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


def _two_groups() -> pl.DataFrame:
    """a: 120 rows, 60 selected (TP 50, FP 10), 60 not (FN 5, TN 55);
    b: 100 rows, 20 selected (TP 18, FP 2), 80 not (FN 12, TN 68)."""
    def rows(g: str, tp: int, fp: int, fn: int, tn: int) -> pl.DataFrame:
        return pl.DataFrame({
            "g": [g] * (tp + fp + fn + tn),
            "y_true": [1] * tp + [0] * fp + [1] * fn + [0] * tn,
            "y_pred": [1] * (tp + fp) + [0] * (fn + tn),
        })
    return pl.concat([rows("a", 50, 10, 5, 55), rows("b", 18, 2, 12, 68)])


def _cells(section: str, group: str, rule: str) -> list[str]:
    """n, value, interval, limit and check of the verdict row of ``group`` and ``rule``."""
    for row in re.findall(r"<tr>(.*?)</tr>", section):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        if cells[:1] == [f"<b>{group}</b>"] and cells[2] == rule:
            return [cells[1], *cells[3:]]
    raise AssertionError((group, rule))


def test_the_verdict_is_the_first_section_with_each_failure_and_its_interval() -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    page = audit_html(_two_groups(), "g", ofi_threshold=0.1)
    assert re.findall(r"<h2>(.*?)</h2>", page)[0] == 'Verdict: <span class="fail">FAIL</span>'
    verdict = page[page.index("<h2>Verdict"):page.index("<h2>Headline")]
    assert "1 of 2 group(s) fail" in verdict
    assert "the reference group is <b>a</b>" in verdict
    # impact ratio of b: 0.2 / 0.5 = 0.4; MOVER-R Wilson interval of 20/100 over 60/120
    # (tests/ratio_reference.py)
    low, high = mover_r(20, 100, 60, 120)
    n, value, interval, limit, check = _cells(verdict, "b", "impact ratio")
    assert (n, value, limit) == ("100", "0.400", "≥ 0.8") and "fails" in check
    assert interval == f"[{low:.3f}, {high:.3f}]"
    # OFI of b: B_b − B_a = (2 − 12)/100 − (10 − 5)/120; the Wald interval of each B,
    # B ± z sqrt((p_FP + p_FN − B²)/n), combined by MOVER for a difference
    b_a, b_b = 5 / 120, -10 / 100
    w_a = Z95 * math.sqrt((10 / 120 + 5 / 120 - b_a ** 2) / 120)
    w_b = Z95 * math.sqrt((2 / 100 + 12 / 100 - b_b ** 2) / 100)
    ofi = b_b - b_a
    low, high = ofi - math.hypot(w_b, w_a), ofi + math.hypot(w_b, w_a)
    n, value, interval, limit, check = _cells(verdict, "b", "OFI")
    assert (value, limit) == (f"{ofi:+.3f}".replace("-", "−"), "|OFI| ≤ 0.1")
    assert interval == f"[{low:.3f}, {high:.3f}]".replace("-", "−")
    # a passes both: no row of a
    assert "<td><b>a</b></td>" not in verdict
    # "—" is said once to mean an undefined figure
    assert "— on this page means an undefined figure" in verdict


def test_a_passing_page_shows_the_group_closest_to_each_limit() -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    # with four_fifths 0.3 the impact ratio 0.4 passes; |OFI| 0.142 passes 0.3
    page = audit_html(_two_groups(), "g", four_fifths=0.3)
    verdict = page[page.index("<h2>Verdict"):page.index("<h2>Headline")]
    assert '<h2>Verdict: <span class="pass">PASS</span></h2>' in verdict
    assert "all 2 group(s) pass" in verdict
    for rule in ("impact ratio", "OFI"):
        assert "closest to the limit" in _cells(verdict, "b", rule)[-1]


def test_summary_metrics_say_no_rule_instead_of_a_dash() -> None:
    """'—' means an undefined figure only: a descriptive metric reads 'no rule'."""
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    page = audit_html(_two_groups(), "g")
    summary = page[page.index("<h2>Summary metrics</h2>"):page.index("<h3>What the findings")]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", summary)
    assert "—" not in cells and "no rule" in cells
    header = re.findall(r"<th>(.*?)</th>", summary)
    assert header == ["metric", "value", "group 1", "group 2", "rule", "verdict"]


def test_rates_and_their_intervals_share_one_unit() -> None:
    """b's selection rate 20/100 = 20.0% with its Wilson interval in percent too."""
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    page = audit_html(_two_groups(), "g")
    p, n = 0.2, 100
    centre = (p + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
    half = Z95 / (1 + Z95 ** 2 / n) * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n ** 2))
    assert f"20.0% [{100 * (centre - half):.1f}%, {100 * (centre + half):.1f}%]" in page


@pytest.mark.parametrize("by", [["g"], ["g", "h"]])
def test_one_spelling_of_a_group_on_the_page(by: list[str]) -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html, page_data

    df = _two_groups().with_columns(h=pl.lit("x"))
    page = audit_html(df, by, ofi_threshold=0.1)
    label = "b" if by == ["g"] else "b | x"
    shown = page[:page.index('<script type="application/json"')]  # the JSON is the API's
    assert f"<b>{label}</b>" in shown
    assert "g=b" not in shown and "g=a" not in shown
    assert page_data(page)["provenance"]["parameters"]["reference_group"] == (
        "a" if by == ["g"] else "a | x")
