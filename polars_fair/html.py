"""The HTML audit page: the public path of :mod:`polars_fair.audit.html`.

A facade: the code lives in the layer of its kind (``polars_fair/audit/html.py``); this
module keeps the documented import path.
"""

from __future__ import annotations

from polars_fair.audit.html import (
    CHART_PAGE_GROUPS,
    DATA_KEYS,
    DEFAULT_PAGE_GROUPS,
    DEFINITIONS,
    LABEL_BIAS_CAVEAT,
    MISSING,
    UNDEFINED,
    audit_html,
    page_data,
    provenance,
    svg_for_html,
)

__all__ = [
    "CHART_PAGE_GROUPS",
    "DATA_KEYS",
    "DEFAULT_PAGE_GROUPS",
    "DEFINITIONS",
    "LABEL_BIAS_CAVEAT",
    "MISSING",
    "UNDEFINED",
    "audit_html",
    "page_data",
    "provenance",
    "svg_for_html",
]
