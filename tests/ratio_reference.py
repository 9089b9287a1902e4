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


def ratio_change(group: tuple[float, float, float, float], top: tuple[float, float, float, float],
                 level: float = 0.95) -> tuple[float, float]:
    """The interval of a paired change in the impact ratio of a group against a clear top group.

    ``group`` and ``top`` are the paired selection cells (both, candidate only, baseline only,
    neither) of the group and of the group that is the top under both models. Each model's
    ratio gets :func:`mover_r`; their correlation comes from Agresti and Min's adjusted cells
    (+1/2 each): Cov(c, q) / (c q) of the group plus that of the top, over the product of the
    two log ratios' standard errors (Var p = p (1 - p) / n); MOVER-D combines them
    (Zou & Donner 2008).
    """
    def rates(cells: tuple[float, ...]) -> tuple[float, float, float, float, float]:
        a, b, c, d = (v + 0.5 for v in cells)
        n = a + b + c + d
        pc, pq = (a + b) / n, (a + c) / n
        return pc, pq, pc * (1 - pc) / n, pq * (1 - pq) / n, (a / n - pc * pq) / n

    cg, qg, vcg, vqg, covg = rates(group)
    ct, qt, vct, vqt, covt = rates(top)
    rho = (covg / (cg * qg) + covt / (ct * qt)) / math.sqrt(
        (vcg / cg**2 + vct / ct**2) * (vqg / qg**2 + vqt / qt**2))
    n_g, n_t = sum(group), sum(top)
    xc = (group[0] + group[1], top[0] + top[1])
    xq = (group[0] + group[2], top[0] + top[2])
    ir_c, ir_q = (xc[0] / n_g) / (xc[1] / n_t), (xq[0] / n_g) / (xq[1] / n_t)
    lc, uc = mover_r(int(xc[0]), int(n_g), int(xc[1]), int(n_t), level)
    lq, uq = mover_r(int(xq[0]), int(n_g), int(xq[1]), int(n_t), level)
    lc, uc, lq, uq = (min(v, 1.0) for v in (lc, uc, lq, uq))
    change = ir_c - ir_q
    e1, e2 = ir_c - lc, uq - ir_q
    low = change - math.sqrt(e1**2 + e2**2 - 2 * rho * e1 * e2)
    e1, e2 = uc - ir_c, ir_q - lq
    high = change + math.sqrt(e1**2 + e2**2 - 2 * rho * e1 * e2)
    return low, high
