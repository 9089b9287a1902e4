"""The audit page with a baseline printed to PDF: the print rules of test_pdf.py hold for it.

No page ends with a heading, the comparison chart is whole on one page (its heading, its own
title and axis, and its caption), and each row of the change gate's verdict is whole.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from tests.audit.test_html import chromium
from tests.audit.test_pdf import _lines, _pypdf, _text, print_pdf
from tests.audit.test_plot import require_plot_extra

pytestmark = pytest.mark.slow  # Chromium


def test_the_compas_comparison_prints_whole(tmp_path: Path) -> None:
    require_plot_extra()
    chromium()
    _pypdf()
    from polars_fair.audit.html import audit_html
    from polars_fair.datasets import COMPAS_FILTER
    from tests.conftest import COMPAS_CSV, require

    compas = pl.scan_csv(require(COMPAS_CSV)).filter(COMPAS_FILTER).filter(
        pl.col("race").is_in(["African-American", "Caucasian", "Hispanic", "Other"]))
    page = tmp_path / "audit.html"
    # a candidate flagging a decile of 8 or more against 6: Caucasian defendants' impact ratio
    # drops by 0.10, a real drop (the change gate fails)
    audit_html(compas, "race", y_true=pl.col("two_year_recid") == 1,
               y_pred=pl.col("decile_score") >= 8, baseline_pred=pl.col("decile_score") >= 6,
               pos_label=True, output=page)
    source = page.read_text(encoding="utf-8")
    pages = [_lines(p) for p in print_pdf(page, tmp_path).pages]

    headings = {_text(h) for h in re.findall(r"<h[1-3][^>]*>(.*?)</h[1-3]>", source, re.S)}
    assert {"Against the baseline: FAIL", "Against the baseline model"} <= headings
    for number, lines in enumerate(pages, start=1):
        assert lines[-1] not in headings, (number, lines[-1])

    def page_of(text: str) -> list[int]:
        return [i for i, lines in enumerate(pages) if any(text in line for line in lines)]

    part = source[source.index("<h2>Against the baseline model"):]
    [(heading, svg, caption)] = re.findall(
        r"<figure><h3>(Impact ratio: baseline and candidate)</h3>(.*?)<figcaption>(.*?)"
        r"</figcaption></figure>", part, re.S)
    [at] = [i for i, lines in enumerate(pages) if _text(heading) in lines]
    title = _text(re.findall(r'role-title-text"[^>]*>(.*?)</text>', svg, re.S)[0])
    axis = _text(re.findall(r'role-axis-title"[^>]*>(.*?)</text>', svg, re.S)[-1])
    tail = " ".join(_text(caption).split()[-4:])
    for piece in (title, axis, tail):
        assert at in page_of(piece), (piece, at, page_of(piece))

    verdict = source[source.index("<h3>Against the baseline"):source.index("<h2>Headline")]
    rows = re.findall(r"<tr><td><b>(.*?)</b></td>(.*?)</tr>", verdict)
    assert rows and any(group == "Caucasian" for group, _ in rows)
    joined = [" ".join(lines) for lines in pages]
    for group, cells in rows:
        values = [_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", cells)]
        line = " ".join([_text(group), *values[:5]])
        assert any(line in text for text in joined), line
