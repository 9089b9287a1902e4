"""Fisher's exact test of a 2x2 table to 50 significant digits, without scipy.stats.

:func:`fisher_exact_pvalue` gives the two-sided p-value of :func:`scipy.stats.fisher_exact`:
the probability, under the hypergeometric null, of the tables no more probable than the
observed one. Each table's probability relative to the first table with the observed margins
follows from the one before by a ratio of integers, ``w(k + 1) / w(k) = (n1 - k)(n - k) /
((k + 1)(n2 - n + k + 1))``; the relative weights are carried in :mod:`decimal` arithmetic at
:data:`DIGITS` significant digits (two roundings per table, so after ``T`` tables each weight
is within ``T * 1e-49`` of its exact value, relative) and the p-value is the sum of the extreme
ones over the sum of all, rounded once to a double. That double is the correctly rounded exact
p-value unless the exact value lies within about ``1e-44`` (relative) of the midpoint between
two doubles, and scipy's computation agrees with it to about ``1e-15``
(``tests/core/test_fisher.py``).

scipy's rule for "as probable" is kept, with its relative slack (:data:`RELATIVE_SLACK`): a
table counts as extreme when its probability is at most the observed one times ``1 + 1e-14``
on the other side of the mode than the observed table (``<=`` below the mode, strictly ``<``
above it, as scipy's binary search decides), every table beyond the observed one on its own
side counts (scipy's ``hypergeom.cdf`` / ``sf``), and a table within that slack of the mode's
probability gives 1. A row or column of zeros gives 1.

Why its own module: importing :mod:`scipy.stats` costs about 0.5 to 1 s of a fresh process
(the HTML audit's first call, issue 20), and this test needs only integers. The cost follows
the tables with the observed margins (``min(n1, n2, n, N - n) + 1``, about 5 ms for 6,000);
above :data:`MAX_TABLES` the caller uses scipy.
"""

from __future__ import annotations

import decimal

__all__ = ["DIGITS", "MAX_TABLES", "RELATIVE_SLACK", "fisher_exact_pvalue", "fisher_tables"]

#: Significant digits of the relative weights (:mod:`decimal`).
DIGITS = 50
#: scipy's relative slack in "as probable as the observed table" (``gamma = 1 + 1e-14`` in
#: :func:`scipy.stats.fisher_exact`).
RELATIVE_SLACK = decimal.Decimal("1e-14")
#: The most tables with the observed margins summed here (about 0.1 s); a larger table is
#: left to scipy by :func:`polars_fair.core.stats.two_proportion_test`.
MAX_TABLES = 100_000


def fisher_tables(a: int, b: int, c: int, d: int) -> int:
    """The tables with the margins of ``[[a, b], [c, d]]``: the support of ``a``.

    Parameters
    ----------
    a, b, c, d : int
        The table's cells (non-negative).

    Returns
    -------
    int
        ``min(a + b, a + c) - max(0, a - d) + 1``.

    Examples
    --------
    >>> fisher_tables(3, 1, 1, 3)
    5
    """
    n1, n2, n = a + b, c + d, a + c
    return min(n, n1) - max(0, n - n2) + 1


def fisher_exact_pvalue(a: int, b: int, c: int, d: int) -> float:
    """Two-sided p-value of Fisher's exact test of ``[[a, b], [c, d]]``, as scipy's rule.

    With the margins fixed, ``a`` follows the hypergeometric distribution
    ``P(k) = C(n1, k) C(n2, n - k) / C(n1 + n2, n)`` (``n1 = a + b``, ``n2 = c + d``,
    ``n = a + c``; Fisher 1935, *The Design of Experiments*; Agresti 2013, *Categorical Data
    Analysis*, sec. 3.5.1). The p-value sums ``P(k)`` over the tables no more probable than the
    observed one, by the rule of :func:`scipy.stats.fisher_exact` (module docstring).

    Parameters
    ----------
    a, b, c, d : int
        The table's cells, non-negative integers (``a, b``: the first row).

    Returns
    -------
    float
        The p-value in (0, 1] (capped at 1).

    Raises
    ------
    ValueError
        A negative cell.

    Examples
    --------
    The tea-tasting table (Fisher 1935): of the 70 ways to choose 4 of 8 cups, 1, 16, 36, 16
    and 1 put 0 to 4 of the milk-first cups among the 4 chosen; 3 of 4 right is as probable as
    1 of 4, so ``p = (1 + 16 + 16 + 1) / 70``, and 4 of 4 right gives ``2 / 70``.

    >>> fisher_exact_pvalue(3, 1, 1, 3), 34 / 70
    (0.4857142857142857, 0.4857142857142857)
    >>> fisher_exact_pvalue(4, 0, 0, 4) == 2 / 70
    True
    """
    if min(a, b, c, d) < 0:
        raise ValueError(f"a 2x2 table's cells must be non-negative; got {[[a, b], [c, d]]}")
    n1, n2, n = a + b, c + d, a + c
    if 0 in (n1, n2, n, b + d):
        return 1.0
    lo, hi = max(0, n - n2), min(n, n1)
    with decimal.localcontext() as ctx:
        ctx.prec = DIGITS
        weights = _weights(n1, n2, n, lo, hi)  # weights[k - lo] = P(k) / P(lo)
        mode = min(max((n + 1) * (n1 + 1) // (n1 + n2 + 2), lo), hi)
        w_obs, w_mode = weights[a - lo], weights[mode - lo]
        if abs(w_obs - w_mode) <= RELATIVE_SLACK * max(w_obs, w_mode):
            return 1.0
        limit = w_obs * (1 + RELATIVE_SLACK)
        if a < mode:  # scipy: cdf(a) + sf(the last k >= mode with P(k) >= limit)
            tail = sum(weights[: a - lo + 1], decimal.Decimal(0))
            tail += sum((w for w in weights[mode - lo:] if w < limit), decimal.Decimal(0))
        else:  # scipy: sf(a - 1) + cdf(the last k <= mode with P(k) <= limit)
            tail = sum(weights[a - lo:], decimal.Decimal(0))
            tail += sum((w for w in weights[: mode - lo + 1] if w <= limit), decimal.Decimal(0))
        p = float(tail / sum(weights, decimal.Decimal(0)))
    return min(1.0, p)


def _weights(n1: int, n2: int, n: int, lo: int, hi: int) -> list[decimal.Decimal]:
    """``P(k) / P(lo)`` for ``k`` from ``lo`` to ``hi``, each from the one before.

    ``P(k + 1) / P(k) = (n1 - k)(n - k) / ((k + 1)(n2 - n + k + 1))``; the products of the
    integers are exact, each step rounds twice (to the context's precision).
    """
    w = decimal.Decimal(1)
    out = [w]
    for k in range(lo, hi):
        w = w * ((n1 - k) * (n - k)) / ((k + 1) * (n2 - n + k + 1))
        out.append(w)
    return out
