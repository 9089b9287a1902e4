"""Power of the ABROCA randomization test.

The public path of :mod:`polars_fair.analyses.scores.power`.

A facade: the code lives in the layer of its kind (``polars_fair/analyses/scores/power.py``); this
module keeps the documented import path.
"""

from __future__ import annotations

from polars_fair.analyses.scores.power import (
    abroca_power,
    binormal_test_set,
    power_curve,
    split_counts,
)

__all__ = [
    "abroca_power",
    "binormal_test_set",
    "power_curve",
    "split_counts",
]
