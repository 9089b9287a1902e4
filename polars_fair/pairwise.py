"""Pairwise disparities between every two groups.

The public path of :mod:`polars_fair.analyses.pairwise`.

A facade: the code lives in the layer of its kind (``polars_fair/analyses/pairwise.py``); this
module keeps the documented import path.
"""

from __future__ import annotations

from polars_fair.analyses.pairwise import (
    DEFAULT_MAX_PAIRS,
    PAIRWISE_METRICS,
    pairwise_from_counts,
    pairwise_matrix,
)

__all__ = [
    "DEFAULT_MAX_PAIRS",
    "PAIRWISE_METRICS",
    "pairwise_from_counts",
    "pairwise_matrix",
]
