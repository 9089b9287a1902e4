"""The Adult audit printed to PDF by headless Chromium, checked from the PDF itself.

No page ends with a heading (an orphan heading), every chart is whole on one page (its heading,
its title drawn in the chart, its axis and its caption below it on the same page), and every
verdict row is whole. The text and where it sits on each page are read with pypdf.

Slow (Chromium): marked in tests/conftest.py. Skips without Chromium, pypdf or the shared data,
except on CI (``CI=true``) or with ``POLARS_FAIR_REQUIRE_DATA=1``, where it fails.
"""

from __future__ import annotations

import html
import os
import re
import unicodedata
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from tests.audit.test_html import chromium, load_failures, run_chromium
from tests.audit.test_plot import require_plot_extra


def _pypdf() -> Any:
    try:
        import pypdf
    except ImportError:
        if os.environ.get("CI") == "true" or os.environ.get("POLARS_FAIR_REQUIRE_DATA") == "1":
            pytest.fail('pypdf is missing: pip install -e ".[test]"')
        pytest.skip("pypdf is not installed (pip install pypdf)")
    return pypdf


def _flat(text: str) -> str:
    """Text with ligatures undone (ﬁ -> fi) and whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def _lines(page: Any) -> list[str]:
    """The page's text lines, top to bottom (pieces at one height joined left to right)."""
    pieces: list[tuple[float, float, str]] = []

    def visit(text: str, cm: list[float], tm: list[float], *_: Any) -> None:
        if text.strip():  # the piece's position on the page: the text matrix through the CTM
            x = cm[0] * tm[4] + cm[2] * tm[5] + cm[4]
            y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
            pieces.append((round(y), x, text))

    page.extract_text(visitor_text=visit)
    rows: dict[int, list[tuple[float, str]]] = {}
    for y, x, text in pieces:
        rows.setdefault(y, []).append((x, text))
    return [_flat(" ".join(t for _, t in sorted(rows[y]))) for y in sorted(rows, reverse=True)]


def _text(fragment: str) -> str:
    return _flat(html.unescape(re.sub(r"<[^>]+>", " ", fragment)))


def print_pdf(page: Path, tmp_path: Path) -> Any:
    """Print an audit page to PDF with headless Chromium, offline; return the PdfReader."""
    pypdf = _pypdf()
    pdf = tmp_path / "audit.pdf"
    browser_tmp = tmp_path / "chromium"
    browser_tmp.mkdir()
    _, stderr, requested = run_chromium(page, browser_tmp, "--no-pdf-header-footer",
                                        f"--print-to-pdf={pdf}")
    assert requested == [] and load_failures(stderr) == []
    return pypdf.PdfReader(str(pdf))


def test_the_adult_audit_prints_with_no_orphan_heading_and_no_cut_chart(tmp_path: Path) -> None:
    require_plot_extra()
    chromium()  # skip early when absent
    _pypdf()
    from polars_fair.audit.html import audit_html
    from tests.conftest import ADULT_SCORED_CSV, require

    lf = pl.scan_csv(require(ADULT_SCORED_CSV)).select("race", "sex", "y_true", "y_score")
    page = tmp_path / "audit.html"
    audit_html(lf, ["race", "sex"], y_score="y_score", threshold=0.5, n_permutations=200,
               output=page)
    source = page.read_text(encoding="utf-8")
    reader = print_pdf(page, tmp_path)
    pages = [_lines(p) for p in reader.pages]
    width, height = (float(v) for v in reader.pages[0].mediabox[2:])
    assert width > height  # A4 landscape
    assert 4 <= len(pages) <= 40, len(pages)

    # no page ends with a heading: the last line of every page is not one of the page's h1-h3
    headings = {_text(h) for h in re.findall(r"<h[1-3][^>]*>(.*?)</h[1-3]>", source, re.S)}
    assert {"Verdict: FAIL", "Headline", "Charts", "Calibration"} <= headings
    for number, lines in enumerate(pages, start=1):
        assert lines, number
        assert lines[-1] not in headings, (number, lines[-1])

    def page_of(text: str) -> list[int]:
        return [i for i, lines in enumerate(pages) if any(text in line for line in lines)]

    # every chart whole on one page: the figure's heading, the chart's own title and x axis
    # (drawn by the SVG) and the caption's last words are all on the page that has the heading
    figures = re.findall(r"<figure><h3>(.*?)</h3>(.*?)<figcaption>(.*?)</figcaption></figure>",
                         source, re.S)
    assert len(figures) == 5
    for heading, svg, caption in figures:
        [at] = [i for i, lines in enumerate(pages) if _text(heading) in lines]
        title = _text(re.findall(r'role-title-text"[^>]*>(.*?)</text>', svg, re.S)[0])
        axis = _text(re.findall(r'role-axis-title"[^>]*>(.*?)</text>', svg, re.S)[-1])
        tail = " ".join(_text(caption).split()[-4:])
        for part in (title, axis, tail):
            assert at in page_of(part), (heading, part, at, page_of(part))

    # every verdict row whole on one page: the group, its figure and its interval together
    verdict = source[source.index("<h2>Verdict"):source.index("<h2>Headline")]
    rows = re.findall(r"<tr><td><b>(.*?)</b></td>(.*?)</tr>", verdict)
    assert rows
    for group, cells in rows:
        values = [_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", cells)]
        line = " ".join([_text(group), *values[:4]])
        assert any(line in joined for joined in (" ".join(lines) for lines in pages)), line
    assert pl.__version__ in " ".join(" ".join(lines) for lines in pages)  # the provenance


def _printed(page: Path, tmp_path: Path) -> list[list[str]]:
    """The page printed to PDF by headless Chromium, as each page's text lines."""
    pypdf = _pypdf()
    pdf = tmp_path / (page.stem + ".pdf")
    browser_tmp = tmp_path / f"chromium-{page.stem}"
    browser_tmp.mkdir()
    _, stderr, requested = run_chromium(page, browser_tmp, "--no-pdf-header-footer",
                                        f"--print-to-pdf={pdf}")
    assert requested == [] and load_failures(stderr) == []
    return [_lines(p) for p in pypdf.PdfReader(str(pdf)).pages]


def _check_print(source: str, pages: list[list[str]], n_figures: int) -> None:
    """No page ends with a heading; every chart whole on the page of its heading."""
    headings = {_text(h) for h in re.findall(r"<h[1-3][^>]*>(.*?)</h[1-3]>", source, re.S)}
    for number, lines in enumerate(pages, start=1):
        assert lines, number
        assert lines[-1] not in headings, (number, lines[-1])

    def page_of(text: str) -> list[int]:  # a caption's words may wrap onto the next line
        return [i for i, lines in enumerate(pages) if text in " ".join(lines)]

    figures = re.findall(r"<figure><h3>(.*?)</h3>(.*?)<figcaption>(.*?)</figcaption></figure>",
                         source, re.S)
    assert len(figures) == n_figures
    for heading, svg, caption in figures:
        [at] = [i for i, lines in enumerate(pages) if _text(heading) in lines]
        title = _text(re.findall(r'role-title-text"[^>]*>(.*?)</text>', svg, re.S)[0])
        axis = _text(re.findall(r'role-axis-title"[^>]*>(.*?)</text>', svg, re.S)[-1])
        tail = " ".join(_text(caption).split()[-4:])
        for part in (title, axis, tail):
            assert at in page_of(part), (heading, part, at, page_of(part))


def test_the_multiclass_and_continuous_audits_print_whole(tmp_path: Path) -> None:
    """The pages of issue 22 keep the print rules: no orphan heading, charts and rows whole."""
    require_plot_extra()
    chromium()
    from polars_fair.audit.html import continuous_html, multiclass_html
    from polars_fair.datasets import make_hiring

    s = pl.col("y_score")
    rows = make_hiring(4000, seed=2).with_columns(
        pl.col(pl.Enum).cast(pl.String),
        band=pl.when(s < 0.3).then(pl.lit("low")).when(s < 0.7).then(pl.lit("mid"))
        .otherwise(pl.lit("high")),
        rate=s * 10 + pl.col("applicant_id") % 7,
    )
    mc = tmp_path / "multiclass.html"
    multiclass_html(rows, ["race", "sex"], y_pred="band", y_true="band",
                    classes=["low", "mid", "high"], output=mc)
    source = mc.read_text(encoding="utf-8")
    pages = _printed(mc, tmp_path)
    assert len(pages) >= 3
    _check_print(source, pages, 2)
    verdict = source[source.index("<h2>Verdict"):source.index("<h2>Provenance")]
    joined = [" ".join(lines) for lines in pages]
    for group, cells in re.findall(r"<tr><td><b>(.*?)</b></td>(.*?)</tr>", verdict):
        values = [_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", cells)]
        line = " ".join([_text(group), *values[:4]])
        assert any(line in text for text in joined), line

    ct = tmp_path / "continuous.html"
    continuous_html(rows, ["race", "sex"], y_pred="rate", y_true="y_score", output=ct)
    _check_print(ct.read_text(encoding="utf-8"), _printed(ct, tmp_path), 1)
