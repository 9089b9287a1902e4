"""The MOVER-R Wilson interval of a ratio of two proportions, written out for the tests.

An independent reference for :func:`polars_fair.core.stats.ratio_interval`: the Wilson intervals
come from scipy (``binomtest(...).proportion_ci(method="wilson")``, integer counts), and the two
bounds are the closed form of Donner & Zou (2012) in its textbook (not rationalised) shape:

    L = (p1 p2 - sqrt((p1 p2)^2 - l1 (2 p1 - l1) u2 (2 p2 - u2))) / (u2 (2 p2 - u2))
    U = (p1 p2 + sqrt((p1 p2)^2 - u1 (2 p1 - u1) l2 (2 p2 - l2))) / (l2 (2 p2 - l2))
"""

from __future__ import annotations

import math

from scipy import stats as sst


def wilson(x: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """scipy's Wilson interval of x of n."""
    ci = sst.binomtest(x, n).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


def mover_r(x1: int, n1: int, x2: int, n2: int, level: float = 0.95) -> tuple[float, float]:
    """The MOVER-R Wilson bounds on (x1/n1) / (x2/n2), for x1 > 0 and x2 > 0."""
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, level)
    l2, u2 = wilson(x2, n2, level)
    low = (p1 * p2 - math.sqrt((p1 * p2) ** 2 - l1 * (2 * p1 - l1) * u2 * (2 * p2 - u2))) / (
        u2 * (2 * p2 - u2))
    high = (p1 * p2 + math.sqrt((p1 * p2) ** 2 - u1 * (2 * p1 - u1) * l2 * (2 * p2 - l2))) / (
        l2 * (2 * p2 - l2))
    return low, high
