"""The audit page's adverse-impact parts: the practitioner's columns and the strata section.

UC Berkeley 1973 (Bickel, Hammel & O'Connell 1975) with the issue's figures, the EEOC's example
worked by hand, and the command line's ``report --strata``.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import polars as pl
import pytest
from scipy.stats import fisher_exact
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.analyses.strata import STRATUM_IN_BY
from polars_fair.audit.html import audit_html, page_data
from polars_fair.cli.entry import app
from tests.analyses.test_strata import berkeley_rows
from tests.audit.test_plot import require_plot_extra

pytestmark = pytest.mark.slow  # each page takes seconds (as test_html.py)


def text(page: str, start: str, end: str) -> str:
    """The page's words from the heading ``start`` to ``end``, tags removed, spaces single."""
    part = page[page.index(start):page.index(end, page.index(start))]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", part)).split())


@pytest.fixture(scope="module")
def berkeley_page() -> str:
    require_plot_extra()
    return audit_html(berkeley_rows(), "sex", strata="dept", reference="Male")


def test_strata_section_shows_the_berkeley_figures_and_reads_them(berkeley_page: str) -> None:
    words = text(berkeley_page, "<h2>Within strata: dept</h2>", "<h2>Uncertainty")
    # the figures: MH 1.1053 [0.9431, 1.2955], CMH p 0.2169, Breslow-Day p ~0.002,
    # pooled 0.3035 vs 0.4452 (ratio 0.682), gap 0.1416 = 0.1777 + (-0.0360), 6 strata
    assert ("Female 1,835 30.4% 44.5% 0.682 1.105 [0.943, 1.295] 0.217 0.002 6 +0.1416 "
            "+0.1777 −0.0360") in words
    assert "Against the reference group Male." in words
    assert ("Female: the pooled gap of +0.1416 is +0.1777 composition and −0.0360 within "
            "strata; the stratified test finds no association within strata (CMH p = 0.217); "
            "but the strata differ (Breslow–Day p = 0.002): read them one by one.") in words
    assert "within each stratum of dept and the comparisons are pooled" in words
    assert page_data(berkeley_page)["provenance"]["parameters"]["strata"] == ["dept"]
    # the section's table is in the JSON block, equal to the Python API's
    want = berkeley_rows().fair.stratified("sex", "dept", reference="Male")
    assert pl.DataFrame(page_data(berkeley_page)["stratified"]).equals(want)


def test_verdicts_gain_the_impact_columns(berkeley_page: str) -> None:
    words = text(berkeley_page, "<h3>Adverse impact per group</h3>", "<h2>")
    # by hand: shortfall 1835 * 1198/2691 - 557 = 259.93; pooled rate 1755/4526,
    # z = (557/1835 - 1198/2691) / sqrt(p(1 - p)(1/1835 + 1/2691)) = -9.60; one more
    # selected: (558/1835)/(1198/2691) = 0.683, still failing, p < 0.001: significant
    p = 1755 / 4526
    z = (557 / 1835 - 1198 / 2691) / (p * (1 - p) * (1 / 1835 + 1 / 2691)) ** 0.5
    flip = (558 / 1835) / (1198 / 2691)
    short = 1835 * 1198 / 2691 - 557
    row = (f"Female 557 / 1,835 30.4% 0.682 fails +{short:.1f} {z:+.2f} < 0.001 {flip:.3f} yes"
           ).replace("-", "−")
    assert row in words
    assert "fails after the flip, and p ≤ 0.05" in words


def test_eeoc_example_flip_by_hand_on_the_page() -> None:
    """48 of 80 against 12 of 40 (EEOC 2023): shortfall 40 * 0.6 - 12 = 12, z = -0.3 /
    sqrt(1/4 (1/40 + 1/80)) = -3.10, one more selected 13/40 / 0.6 = 0.542 (still fails);
    Fisher's p from scipy (0.003)."""
    require_plot_extra()
    df = pl.DataFrame({"g": ["a"] * 80 + ["b"] * 40, "y_true": [1] * 120,
                       "y_pred": [1] * 48 + [0] * 32 + [1] * 12 + [0] * 28})
    page = audit_html(df, "g", reference="a")
    words = text(page, "<h3>Adverse impact per group</h3>", "<h2>")
    p = fisher_exact([[12, 28], [48, 32]]).pvalue
    assert f"b 12 / 40 30.0% 0.500 fails +12.0 −3.10 {p:.3f} 0.542 yes" in words
    assert "Within strata" not in page  # no strata given: no section
    assert "strata" not in page_data(page)["provenance"]["parameters"]


def test_page_strata_are_checked_before_the_rows_are_read() -> None:
    require_plot_extra()
    never = pl.LazyFrame({"sex": ["F"]}).select(pl.col("sex").cast(pl.Int8))  # unreadable
    with pytest.raises(E.InvalidArgumentError) as err:
        audit_html(never, "sex", strata="sex")
    assert str(err.value) == STRATUM_IN_BY.format(column="sex")


def test_report_strata_writes_the_section(tmp_path: Path) -> None:
    require_plot_extra()
    path = tmp_path / "admissions.parquet"
    berkeley_rows().write_parquet(path)
    runner = CliRunner()
    page = tmp_path / "audit.html"
    done = runner.invoke(app, ["report", str(path), "--by", "sex", "--reference", "Male",
                               "--strata", "dept", "--html", str(page)])
    assert done.exit_code == 0, done.output
    words = text(page.read_text(encoding="utf-8"), "<h2>Within strata: dept</h2>",
                 "<h2>Uncertainty")
    assert "1.105 [0.943, 1.295] 0.217 0.002 6 +0.1416 +0.1777 −0.0360" in words
    alone = runner.invoke(app, ["report", str(path), "--by", "sex", "--strata", "dept"])
    assert alone.exit_code == 2
    assert "--strata applies to the HTML audit: pass --html FILE too" in alone.output


def test_a_p_value_in_a_sentence_never_reads_equals_less_than() -> None:
    from polars_fair.audit.html.adverse_impact import _p_words

    # the review found "CMH p = < 0.001": the sentence takes "<" or "=", never both
    assert _p_words(0.0004) == "&lt; 0.001"
    assert _p_words(0.2169) == "= 0.217"


def test_a_zero_weight_reference_reads_undefined_and_names_no_internal_column() -> None:
    """b's rows weigh 0: the page is built (it raised "has no rows (__size = 0)"), a's row
    against b reads 75.0% with every comparison undefined, and the JSON block holds the same
    nulls (second review of issue 23)."""
    require_plot_extra()
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1] * 8,
                       "y_pred": [1, 1, 1, 0, 1, 0, 0, 0], "w": [1.0] * 4 + [0.0] * 4})
    page = audit_html(df, "g", sample_weight="w", reference="b", min_support=1)
    words = text(page, "<h3>Adverse impact per group</h3>", "<h2>")
    assert "a 3.0 / 4.0 75.0% — — — — — — —" in words
    a = next(r for r in page_data(page)["impact_analysis"] if r["g"] == "a")
    assert (a["impact_ratio"], a["z"], a["p_value"]) == (None, None, None)


def test_the_page_names_the_group_max_selection_rate_passed_over() -> None:
    """b selects 5 of 5 with 5 < 30 rows: the reference is a (50 of 100), and the page says
    b was passed over and why; the JSON block flags b low_support."""
    require_plot_extra()
    parts = [pl.DataFrame({"g": [g] * n, "y_true": [1] * n, "y_pred": [1] * s + [0] * (n - s)})
             for g, s, n in (("a", 50, 100), ("b", 5, 5), ("c", 10, 40))]
    page = audit_html(pl.concat(parts), "g", reference="max_selection_rate")
    words = text(page, "<h3>Adverse impact per group</h3>", "<h2>")
    assert ("Against the reference group a. Not the reference despite a higher selection rate: "
            "b, with fewer than 30 rows (min_support=30); pass min_support=0 to allow them.") \
        in words
    data = {r["g"]: r for r in page_data(page)["impact_analysis"]}
    assert data["b"]["low_support"] and data["a"]["is_reference"]


@pytest.mark.parametrize("name", ["__size", "__ref", "__low", "__adverse"])
def test_a_page_by_an_attribute_named_like_an_internal_column(name: str) -> None:
    """The page's own columns (the styled report's __ref, __low, ...; disparity's __size) were
    not prefixed: such an attribute gave Polars' DuplicateError naming the internal column."""
    require_plot_extra()
    df = pl.DataFrame({name: ["a"] * 40 + ["b"] * 40, "y_true": [1, 0] * 40,
                       "y_pred": [1, 1, 1, 0] * 20})
    data = page_data(audit_html(df, name))
    # by hand: a selects 30 of 40 and b 30 of 40 (the pattern repeats): impact ratio 1
    assert [r["impact_ratio"] for r in data["impact_analysis"]] == [1.0, 1.0]


def test_one_label_per_metric_on_the_page() -> None:
    """Issue 20 fix, item 4: the impact table divides by the reference's rate (the registry's
    disparate_impact) and is labelled so; "impact ratio" on the page is the report's ratio to
    the highest rate, and no table header gives the reference ratio that name."""
    import re

    import polars as pl

    from polars_fair.audit.html import audit_html

    # a: 30 of 60 selected (0.5, the largest: the reference); b: 32 of 40 (0.8, the highest)
    df = pl.DataFrame({"g": ["a"] * 60 + ["b"] * 40, "y_true": [1, 0] * 50,
                       "y_pred": [1] * 30 + [0] * 30 + [1] * 32 + [0] * 8})
    page = audit_html(df, "g")
    section = page[page.index("Adverse impact per group"):]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", section[:section.index("</table>")])
    # fix 20a item 4: the header names its denominator
    assert "disparate impact (÷ reference)" in headers and "impact ratio" not in headers
    # b's ratio to the reference a: 0.8 / 0.5 = 1.6 (its impact ratio, to itself, is 1)
    row = section[section.index("<td>b</td>"):]
    assert "1.600" in row[:row.index("</tr>")]
