"""Sample size of an adverse-impact audit: applicants per group to detect an impact ratio."""

from __future__ import annotations

import math
from typing import Any, Literal, NamedTuple

from polars_fair import errors as E
from polars_fair._lazy import np, sps
from polars_fair.core import rules as R
from polars_fair.core.limits import LIMITS, check_size, with_limits

__all__ = ["MAX_EXACT_SIZE", "SampleSize", "exact_power", "sample_size"]

#: The largest group size the exact method enumerates (its cost grows as the square of it).
MAX_EXACT_SIZE = 20_000
BAD_METHOD = "method must be 'normal' or 'fisher', got {value!r}"
NO_DIFFERENCE = (
    "impact_ratio={ratio!r} at reference_rate={rate!r} gives a group rate of {p1!r}: it must lie "
    "in [0, 1] and differ from the reference rate (a ratio of 1 is no difference to detect)"
)
EXACT_TOO_LARGE = (
    "sample_size(method='fisher') needs more than {limit:,} applicants per group; the normal "
    "approximation (method='normal') is accurate at that size"
)
EXACT_CELLS = (
    "{method} at {n:,} applicants in the group and {m:,} in the reference enumerates {cells:,} "
    "tables, more than its limit {limit:,} (exact_cells: {why}); the normal approximation "
    "({normal}) is accurate at that size"
)


class SampleSize(NamedTuple):
    """The result of :func:`sample_size`.

    Parameters
    ----------
    group : int
        Applicants needed in the group.
    reference : int
        Applicants needed in the reference group (``ratio`` times as many, rounded up).
    power : float
        The power at these sizes, by the method's own calculation.

    Examples
    --------
    >>> SampleSize(10, 10, 0.8).group
    10
    """

    group: int
    reference: int
    power: float


def _normal_power(n1: float, h: float, ratio: float, z: float) -> float:
    """Two-sided power of the normal test on the arcsine scale (both tails)."""
    shift = abs(h) * math.sqrt(n1 / (1.0 + 1.0 / ratio))
    return float(sps.norm.sf(z - shift) + sps.norm.cdf(-z - shift))


def exact_power(n1: int, n2: int, p1: float, p2: float, alpha: float) -> float:
    r"""The power of Fisher's exact test (two-sided) by exact enumeration.

    :math:`\sum_{x_1, x_2} \mathrm{Bin}(x_1; n_1, p_1)\,\mathrm{Bin}(x_2; n_2, p_2)\,
    1[p_F(x_1, x_2) \le \alpha]`, with :math:`p_F` the two-sided p-value of
    :func:`scipy.stats.fisher_exact` (the hypergeometric probability of the tables, given the
    total selected, no more probable than the observed one), computed for every total at once.

    Parameters
    ----------
    n1, n2 : int
        Group and reference sizes.
    p1, p2 : float
        Their selection rates.
    alpha : float
        The significance level.

    Returns
    -------
    float
        The probability that the test rejects, in [0, 1].

    Examples
    --------
    >>> round(exact_power(20, 20, 0.2, 0.8, 0.05), 4)
    0.961
    """
    from scipy.special import gammaln

    def log_choose(n: int) -> Any:
        k = np.arange(n + 1)
        return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)

    a = np.arange(n1 + 1)[:, None]
    total = np.arange(n1 + n2 + 1)[None, :]
    b = total - a
    valid = (b >= 0) & (b <= n2)
    bi = np.clip(b, 0, n2)
    lc2 = log_choose(n2)
    pmf = np.where(valid, np.exp(log_choose(n1)[:, None] + lc2[bi]
                                 - log_choose(n1 + n2)[None, :]), 0.0)
    joint = np.where(valid, sps.binom.pmf(a, n1, p1) * sps.binom.pmf(bi, n2, p2), 0.0)
    power = 0.0
    for t in range(n1 + n2 + 1):
        column = pmf[:, t]
        order = np.sort(column)
        # scipy's two-sided rule: tables with pmf <= pmf(observed) (with its relative slack)
        p = np.cumsum(order)[np.searchsorted(order, column * (1 + 1e-7), side="right") - 1]
        power += float(joint[(p <= alpha) & valid[:, t], t].sum())
    return min(power, 1.0)


@with_limits
def sample_size(
    *,
    reference_rate: float,
    impact_ratio: float,
    alpha: float = 0.05,
    power: float = 0.8,
    ratio: float = 1.0,
    method: Literal["normal", "fisher"] = "normal",
) -> SampleSize:
    r"""Applicants per group to detect an impact ratio with a two-sided two-proportion test.

    The group's rate is :math:`p_1 = \text{impact\_ratio} \times p_2` with :math:`p_2` the
    reference rate; the reference has ``ratio`` times the group's applicants.

    * ``method="normal"``: the normal approximation on the arcsine scale (Cohen 1988,
      *Statistical Power Analysis*, ch. 6): effect size :math:`h = 2\arcsin\sqrt{p_1} -
      2\arcsin\sqrt{p_2}`, and :math:`n_1` the smallest integer whose power
      :math:`\Phi(|h|\sqrt{n_1/(1 + 1/r)} - z_{1-\alpha/2}) + \Phi(-|h|\sqrt{n_1/(1 + 1/r)} -
      z_{1-\alpha/2})` reaches ``power`` (statsmodels' ``NormalIndPower``, rounded up). For
      the pooled z-test it is slightly conservative: at the EEOC's rates (60 % and 30 %) its
      42 per group give the z-test a simulated power of about 0.83.
    * ``method="fisher"``: Fisher's exact test, whose power is computed **by exact
      enumeration** (:func:`exact_power`) over both binomial outcomes. Exact power is not
      monotone in :math:`n` (it saw-tooths), so the result is the smallest :math:`n_1` that
      reaches ``power`` found by a search from the normal answer upward (in steps of about
      2 %, then one applicant at a time within the last step); at most
      :data:`MAX_EXACT_SIZE` per group.

    Parameters
    ----------
    reference_rate : float
        The reference group's selection rate, in (0, 1].
    impact_ratio : float
        The impact ratio to detect (the group's rate over the reference's), not 1.
    alpha : float, default 0.05
        The two-sided significance level, in (0, 1).
    power : float, default 0.8
        The power wanted, in (alpha, 1).
    ratio : float, default 1.0
        Reference applicants per group applicant, from 1/|limit:ratio| to |limit:ratio|.
    method : {"normal", "fisher"}, default "normal"
        How the power is computed (see above).

    Returns
    -------
    SampleSize
        ``group`` and ``reference`` applicants (int) and the ``power`` reached at them.

    Raises
    ------
    InvalidArgumentError
        An option out of range, a group rate outside [0, 1] or equal to the reference's (or
        too near it to tell apart in double precision), an ``alpha`` whose normal quantile is
        not finite (the smallest subnormal, 5e-324), an unknown ``method``.
    SizeLimitError
        ``ratio`` above |limit:ratio| or below its inverse; ``method="fisher"`` beyond
        :data:`MAX_EXACT_SIZE` applicants per group, or at a size whose enumeration holds
        more than |limit:exact_cells| tables, (group + 1) x (group + reference + 1)
        (``exact_cells``: about 1,580 per group at ``ratio=1``, 128 at ``ratio=300``).

    Examples
    --------
    A reference rate of 60 % and an impact ratio of 0.5 (the EEOC's example):

    >>> import polars_fair
    >>> s = polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5)
    >>> s.group, s.reference, round(s.power, 4)
    (42, 42, 0.8019)
    >>> polars_fair.sample_size(reference_rate=0.6, impact_ratio=0.5, method="fisher").group
    48
    """
    p2 = float(R.option(reference_rate, "reference_rate", low=0, high=1, low_open=True))
    ir = float(R.option(impact_ratio, "impact_ratio", low=0))
    a = float(R.option(alpha, "alpha", low=0, high=1, low_open=True, high_open=True))
    target = float(R.option(power, "power", low=alpha, high=1, low_open=True, high_open=True))
    r = float(check_size(R.option(ratio, "ratio", low=0, low_open=True), "ratio"))
    bound = LIMITS["ratio"]
    if r * bound.limit < 1:  # the group over 1,000 times the reference
        raise E.SizeLimitError(E.OPTION_TOO_SMALL.format(
            option="ratio", size=ratio, limit=bound.limit, why=bound.why, least=1 / bound.limit))
    if method not in ("normal", "fisher"):
        raise E.InvalidArgumentError(BAD_METHOD.format(value=method))
    p1 = p2 * ir
    h = 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2)) if 0 <= p1 <= 1 else 0.0
    if h == 0:  # p1 outside [0, 1], equal to p2, or too near it for the arcsine scale
        raise E.InvalidArgumentError(NO_DIFFERENCE.format(ratio=impact_ratio,
                                                          rate=reference_rate, p1=p1))
    z = float(sps.norm.isf(a / 2))  # not ppf(1 - a/2): 1 - 1e-300/2 rounds to 1 (infinite)
    if not math.isfinite(z):
        raise E.InvalidArgumentError(E.QUANTILE_NOT_FINITE.format(
            option="alpha", value=alpha, edge=0, advice=1e-300))
    # the one-tail closed form is a lower bound; step up to the two-tail power
    n1 = max(1, math.ceil(((z + float(sps.norm.ppf(target))) / h) ** 2 * (1 + 1 / r)) - 1)
    while _normal_power(n1, h, r, z) < target:
        n1 += 1
    if method == "normal":
        return SampleSize(n1, math.ceil(r * n1 - 1e-9), _normal_power(n1, h, r, z))
    def at(n: int) -> tuple[int, float]:
        if n > MAX_EXACT_SIZE:
            raise E.SizeLimitError(EXACT_TOO_LARGE.format(limit=MAX_EXACT_SIZE))
        m = math.ceil(r * n - 1e-9)
        cells, cap = (n + 1) * (n + m + 1), LIMITS["exact_cells"]
        if cells > cap.limit:  # before the enumeration's arrays are made
            facts = dict(n=n, m=m, cells=cells, limit=cap.limit, why=cap.why)
            raise E.SizeLimitError(
                EXACT_CELLS.format(**facts, method="sample_size(method='fisher')",
                                   normal="method='normal'"),
                cli_message=EXACT_CELLS.format(**facts, method="--method fisher",
                                               normal="--method normal"))
        return m, exact_power(n, m, p1, p2, a)

    # gallop up from the normal answer (steps of about 2 %), then scan the last step one
    # applicant at a time for the smallest size that reaches the power
    low, n = n1 - 1, n1
    while at(n)[1] < target:
        low, n = n, n + max(1, n // 50)
    for k in range(low + 1, n + 1):
        m, reached = at(k)
        if reached >= target:
            return SampleSize(k, m, reached)
    raise AssertionError("unreachable: the size n reached the power")  # pragma: no cover
