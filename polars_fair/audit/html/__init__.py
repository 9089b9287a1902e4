"""A fairness audit as ONE self-contained HTML document, publishable and printable.

:func:`audit_html` scans the data (once for the count table, once more for the score table when
``y_score`` is given, and one cheap count of the excluded rows) and writes a page that leads
with its verdict (PASS or FAIL, each failing rule and group with its figure and interval), with:
its provenance (:func:`provenance`: the UTC time, the input's file name with its SHA-256 and size,
the rows read, filtered and audited, every parameter and the versions); the headline, which
states only what is significant after adjustment for multiple comparisons; the summary metrics
and the plain-language reading of each finding; the rates with their Wilson intervals, every
group's difference and ratio against the reference with intervals and adjusted p-values
(``disparity``) and ABROCA with its permutation p-value (``abroca_test``); the styled report
table (:func:`polars_fair.audit.style.style_report`); the charts of :mod:`polars_fair.audit.plot` as
inline SVG; the definitions with their sources; and the tables themselves as JSON in a
non-executable ``<script type="application/json" id="polars-fair-data">`` block, so a reader's tools
can check every number. There are no executable scripts, no external stylesheets, fonts or images,
and no ``http(s)://`` reference in the file: it renders identically offline, in an e-mail attachment
or in an archive, and its print stylesheet keeps table rows whole on paper (headless Chromium
``--print-to-pdf``).

The command line writes it with ``polars-fair report PATH ... --html audit.html``.

The package's modules, each one part of the page: :mod:`~polars_fair.audit.html.text` (the
page's words, styles and cell formats), :mod:`~polars_fair.audit.html.provenance` (where the
numbers came from, and the JSON block), :mod:`~polars_fair.audit.html.figures` (the one scan
and every table computed from it), :mod:`~polars_fair.audit.html.findings` (the headline and the
reading of each finding), :mod:`~polars_fair.audit.html.tables` (the row tables),
:mod:`~polars_fair.audit.html.charts`, :mod:`~polars_fair.audit.html.context` (everything a page
shows, computed once), :mod:`~polars_fair.audit.html.verdict` (the first section),
:mod:`~polars_fair.audit.html.sections` (one builder per other section) and
:mod:`~polars_fair.audit.html.page` (:func:`audit_html`, and ``SECTIONS``: the builders in page
order).
"""

from __future__ import annotations

from polars_fair.audit.html.continuous import continuous_html
from polars_fair.audit.html.multiclass import multiclass_html
from polars_fair.audit.html.page import DIVERGENCE_COLUMNS as DIVERGENCE_COLUMNS
from polars_fair.audit.html.page import audit_html
from polars_fair.audit.html.provenance import page_data, provenance
from polars_fair.audit.html.text import _CSS as _CSS
from polars_fair.audit.html.text import (
    CHART_PAGE_GROUPS,
    DATA_KEYS,
    DEFAULT_PAGE_GROUPS,
    DEFINITIONS,
    LABEL_BIAS_CAVEAT,
    MISSING,
    UNDEFINED,
    svg_for_html,
)
from polars_fair.audit.html.text import DATA_ID as DATA_ID
from polars_fair.audit.html.text import PERMUTATION_P as PERMUTATION_P
from polars_fair.audit.html.text import SCORE_DEFINITIONS as SCORE_DEFINITIONS
from polars_fair.audit.html.text import VERDICT_CLASSES as VERDICT_CLASSES

__all__ = [
    "CHART_PAGE_GROUPS",
    "DATA_KEYS",
    "DEFAULT_PAGE_GROUPS",
    "DEFINITIONS",
    "LABEL_BIAS_CAVEAT",
    "MISSING",
    "UNDEFINED",
    "audit_html",
    "continuous_html",
    "multiclass_html",
    "page_data",
    "provenance",
    "svg_for_html",
]
