"""Charts of the audit (Altair/Vega-Lite): the public path of :mod:`polars_fair.audit.plot`.

A facade: the code lives in the layer of its kind (``polars_fair/audit/plot.py``); this
module keeps the documented import path.
"""

from __future__ import annotations

from polars_fair.audit.plot import (
    CHART_GROUPS,
    MISSING_EXTRA,
    MISSING_GROUP,
    RATIO_BOUNDS,
    calibration_chart,
    divergence_chart,
    group_label,
    pairwise_heatmap,
    pattern_label,
    power_chart,
    rates_chart,
    roc_chart,
    save,
    threshold_chart,
    to_svg,
)

__all__ = [
    "CHART_GROUPS",
    "MISSING_EXTRA",
    "MISSING_GROUP",
    "RATIO_BOUNDS",
    "calibration_chart",
    "divergence_chart",
    "group_label",
    "pairwise_heatmap",
    "pattern_label",
    "power_chart",
    "rates_chart",
    "roc_chart",
    "save",
    "threshold_chart",
    "to_svg",
]
