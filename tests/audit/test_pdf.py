"""The HTML audit printed to PDF by headless Chromium: pages, and the verdict table whole.

Slow (Chromium): marked in tests/conftest.py. Skips without Chromium or pypdf, except on CI
(``CI=true``) or with ``POLARS_FAIR_REQUIRE_DATA=1``, where it fails.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from polars_fair.datasets import make_hiring
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
    """PDF text with ligatures undone and whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text))


def test_the_audit_prints_to_pdf_with_the_verdict_table_whole(tmp_path: Path) -> None:
    require_plot_extra()
    chromium()  # skip early when absent
    pypdf = _pypdf()
    from polars_fair.audit.html import audit_html

    data = make_hiring(3000, seed=0)
    page = tmp_path / "audit.html"
    audit_html(data, ["race", "sex"], y_score="y_score", n_permutations=100, output=page)
    pdf = tmp_path / "audit.pdf"
    browser_tmp = tmp_path / "chromium"
    browser_tmp.mkdir()
    _, stderr, requested = run_chromium(page, browser_tmp, "--no-pdf-header-footer",
                                        f"--print-to-pdf={pdf}")
    assert requested == [] and load_failures(stderr) == []
    reader = pypdf.PdfReader(str(pdf))
    pages = [_flat(p.extract_text()) for p in reader.pages]
    # A4 landscape; a page of this size prints on a handful of pages, not one, not hundreds
    assert 3 <= len(pages) <= 40, len(pages)
    width, height = (float(v) for v in reader.pages[0].mediabox[2:])
    assert width > height  # landscape
    text = " ".join(pages)
    for heading in ("Verdict", "Headline", "Provenance", "Summary metrics", "Uncertainty",
                    "Report", "Charts", "Definitions"):
        assert heading in text, heading
    # every verdict row is whole on one page: its metric, value and verdict together
    summary = data.fair.summary(["race", "sex"])
    for row in summary.iter_rows(named=True):
        cells = [row["metric"], f"{row['value']:.4f}"] + (
            [row["verdict"]] if row["verdict"] else [])
        assert any(all(c in p for c in cells) for p in pages), (row["metric"], cells)
    # the report's rows too: each group's name and its n on one page
    report = data.fair.report(["race", "sex"])
    for r in report.select("race", "sex", "n").iter_rows():
        assert any(re.search(rf"{r[0]} {r[1]} {r[2]:,}\b", p) for p in pages), r
    assert pl.__version__ in text  # the provenance printed
