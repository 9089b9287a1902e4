"""The worst-off subgroups (divergence): the public path of :mod:`polars_fair.analyses.divergence`.

A facade: the code lives in the layer of its kind (``polars_fair/analyses/divergence.py``); this
module keeps the documented import path.
"""

from __future__ import annotations

from polars_fair.analyses.divergence import (
    ADJUSTMENTS,
    DEFAULT_MAX_PATTERNS,
    DIVERGENCE_COLUMNS,
    adjust_pvalues,
    bin_attributes,
    divergence_from_counts,
    global_shapley_values,
    shapley_values,
    top_divergent,
)
from polars_fair.api.rows import divergence_of_rows

__all__ = [
    "ADJUSTMENTS",
    "DEFAULT_MAX_PATTERNS",
    "DIVERGENCE_COLUMNS",
    "adjust_pvalues",
    "bin_attributes",
    "divergence_from_counts",
    "divergence_of_rows",
    "global_shapley_values",
    "shapley_values",
    "top_divergent",
]
