r"""The weighted estimator's selection rates over shared rows: their linearised covariance.

Under estimated membership every row counts in every group with its probability, so two groups'
weighted rates are computed over the same rows and are not independent samples. Within a cell of
the ``by`` keys, with :math:`B_k = \sum_i w_i p_{ik}` and the weighted selection rate
:math:`r_k = \sum_i w_i p_{ik} \hat y_i / B_k`, the rate is a ratio estimator; linearised
(the delta method, as for any ratio of sums over independent rows: Cochran 1977, *Sampling
Techniques*, §6.4), row i contributes :math:`w_i p_{ik} (\hat y_i - r_k) / B_k`, so

.. math::

    \widehat{\mathrm{Cov}}(r_j, r_k) = \frac{\sum_i w_i^2 p_{ij} p_{ik}
    (\hat y_i - r_j)(\hat y_i - r_k)}{B_j B_k}
    = \frac{H^{(1)}_{jk}(1 - r_j - r_k) + r_j r_k H_{jk}}{B_j B_k}

with :math:`H_{jk} = \sum_i w_i^2 p_{ij} p_{ik}` over the cell's rows and :math:`H^{(1)}_{jk}`
the same sum over its rows with :math:`\hat y = 1` (since :math:`\hat y^2 = \hat y`). These
are the membership table's sums ``h_{j}_{k}`` (:mod:`polars_fair.counting.membership`), which
the scan already makes for Kish's effective size: no new sum, on no engine. On the diagonal it is
the linearised variance of one rate. Groups in different cells of the keys share no rows
(covariance 0).

:mod:`polars_fair.analyses.proxy_report` reads the correlation of each group's rate with the
reference's into the weighted estimator's impact-ratio interval (the MOVER-R interval with a
correlation, :func:`polars_fair.core.stats.ratio_interval`). A count table of the weighted
estimator (``counts(..., membership=...)``) has one row per group and not these pair sums, so
``disparity`` and ``impact_analysis`` on it still treat two groups as independent samples:
conservative (docs/guide/membership.md gives the measured factor).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._lazy import np

if TYPE_CHECKING:
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]

__all__ = ["selection_rate_covariance", "selection_rate_correlation"]


def selection_rate_covariance(table: pl.DataFrame, keys: Sequence[str], n_groups: int
                              ) -> dict[tuple[Any, ...], tuple[FloatArray, FloatArray]]:
    r"""Per cell of ``keys``, the weighted selection rates and their linearised covariance.

    See the module for the formula (the delta method for ratios of sums over shared rows).

    Parameters
    ----------
    table : pl.DataFrame
        A membership table (:mod:`polars_fair.counting.membership`) with ``y_pred`` and the sum
        families ``s`` and ``h``.
    keys : sequence of str
        The ``by`` keys: one covariance matrix per cell of them.
    n_groups : int
        K, the number of membership groups.

    Returns
    -------
    dict of tuple to (numpy.ndarray, numpy.ndarray)
        Keyed by the cell's values of ``keys`` (``()`` without keys): the K weighted selection
        rates (NaN where a group has no weight) and their K × K covariance matrix (NaN in the
        rows and columns of such a group).

    Examples
    --------
    Two rows, each half in a and half in b: the two rates are the same numbers, fully
    correlated. Rates 0.5; variance (0.25 (0.5)² + 0.25 (0.5)²) / 1² = 0.125, and the same
    covariance:

    >>> t = pl.DataFrame({"y_pred": [0, 1], "s_0": [0.5, 0.5], "s_1": [0.5, 0.5],
    ...                   "h_0_0": [0.25, 0.25], "h_0_1": [0.25, 0.25], "h_1_1": [0.25, 0.25]})
    >>> rates, cov = selection_rate_covariance(t, [], 2)[()]
    >>> rates.tolist(), cov.tolist()
    ([0.5, 0.5], [[0.125, 0.125], [0.125, 0.125]])
    """
    pairs = [(j, k) for j in range(n_groups) for k in range(j, n_groups)]
    s_cols = [f"s_{k}" for k in range(n_groups)]
    h_cols = [f"h_{j}_{k}" for j, k in pairs]
    selected = pl.col("y_pred") == 1
    aggs = [*(pl.col(c).sum().alias(f"B{c}") for c in s_cols),
            *(pl.col(c).filter(selected).sum().alias(f"A{c}") for c in s_cols),
            *(pl.col(c).sum().alias(f"H{c}") for c in h_cols),
            *(pl.col(c).filter(selected).sum().alias(f"G{c}") for c in h_cols)]
    per = table.group_by(list(keys)).agg(aggs) if keys else table.select(aggs)
    out: dict[tuple[Any, ...], tuple[FloatArray, FloatArray]] = {}
    for row in per.iter_rows(named=True):
        b = np.array([row[f"B{c}"] for c in s_cols], dtype=np.float64)
        a = np.array([row[f"A{c}"] for c in s_cols], dtype=np.float64)
        h, h1 = np.zeros((n_groups, n_groups)), np.zeros((n_groups, n_groups))
        for (j, k), c in zip(pairs, h_cols, strict=True):
            h[j, k] = h[k, j] = row[f"H{c}"]
            h1[j, k] = h1[k, j] = row[f"G{c}"]
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(b > 0, a / b, np.nan)
            cov = (h1 * (1.0 - r[:, None] - r[None, :]) + np.outer(r, r) * h) / np.outer(b, b)
        out[tuple(row[k] for k in keys)] = (r, cov)
    return out


def selection_rate_correlation(cov: FloatArray, reference: int) -> FloatArray:
    r"""Each group's correlation with the reference's rate, from a covariance matrix.

    :math:`\rho_k = C_{k,\text{ref}} / \sqrt{C_{kk} C_{\text{ref},\text{ref}}}`, clipped to
    [-1, 1]; 0 where a variance is 0 or undefined (a rate of 0 or 1 over its rows: nothing
    varies with the other rate), and 0 for the reference itself.

    Parameters
    ----------
    cov : numpy.ndarray
        A K × K covariance matrix (:func:`selection_rate_covariance`).
    reference : int
        The reference group's index.

    Returns
    -------
    numpy.ndarray
        K correlations (Float64).

    Examples
    --------
    >>> selection_rate_correlation(np.array([[4.0, 1.0], [1.0, 1.0]]), 1).tolist()
    [0.5, 0.0]
    """
    var = np.diag(cov)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = cov[:, reference] / np.sqrt(var * var[reference])
    rho = np.where(np.isfinite(rho), np.clip(rho, -1.0, 1.0), 0.0)
    rho[reference] = 0.0
    return np.asarray(rho, dtype=np.float64)
