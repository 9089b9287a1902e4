"""The proxy report's missing group: rows whose membership probabilities hold a null.

With ``null_groups="keep"`` (the default) such rows are counted, as ``report`` counts them: in
the attribute's **missing group** (its key null), one row per cell of the ``by`` keys where they
are. Nobody's probabilities are known there, so no estimator spreads these rows over the groups:
each row is wholly in the missing group, as a crisp group's row is, and the three estimators
coincide. Its weighted and argmax columns are the crisp figures of those rows (Wilson
intervals on ``n_effective`` = (Σ w)² / Σ w²); its regression columns repeat them (the
regression fits the rows with probabilities; these rows are not in its fit). Its impact ratios
compare it with the reference (never the missing group, whose key is null) per estimator: the
MOVER-R Wilson interval for the weighted and argmax ratios, and for the regression's MOVER-R
on its Wilson interval and the reference's regression interval, independent (disjoint rows):
the three coincide when the reference's probabilities are 0 or 1. Its verdict follows the proxy
report's rule; ``attenuation`` is null, ``regression_singular`` and ``regression_clipped`` false
(``regression_reason`` null).
``"drop"`` drops the rows with a warning giving the count and ``"raise"`` refuses them, before
this module is reached (:func:`polars_fair.counting.membership.membership_from_labels`).

Why a module of its own: the known groups' estimators are fitted together per cell
(:mod:`polars_fair.analyses.proxy_report`); the missing group is a crisp group beside them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair._lazy import np
from polars_fair.core import stats
from polars_fair.counting.membership import Membership
from polars_fair.counting.membership_counts import argmax_counts, weighted_counts

if TYPE_CHECKING:
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]

__all__ = ["missing_group"]

#: The estimators, in the report's column order.
_ESTIMATORS = ("weighted", "argmax", "regression")


def missing_group(table: pl.DataFrame, m: Membership, keys: list[str], weighted: bool,
                  rates: Sequence[str], level: float,
                  reference: dict[str, Any] | None,
                  verdicts: Callable[[dict[str, Any], int | None, int], list[str | None]],
                  ) -> tuple[pl.DataFrame, dict[str, Any]] | None:
    """The missing group's rows of the proxy report (see the module), or None without any.

    Parameters
    ----------
    table : pl.DataFrame
        The collected membership table.
    m : Membership
        The attribute and its groups.
    keys : list of str
        The ``by`` keys.
    weighted : bool
        Whether the call gave ``sample_weight``.
    rates : sequence of str
        The report's rates (``selection_rate``, and ``tpr``, ``fpr`` with labels).
    level : float
        The confidence level.
    reference : dict or None
        The reference's figures: per estimator ``e`` its ``selection_rate_{e}``, and
        ``size_weighted``, ``size_argmax`` (its effective sizes) and ``low_regression``,
        ``high_regression`` (the interval of its regression rate); None without a reference.
    verdicts : callable
        The proxy report's verdict rule (``(cols, ref, height) -> verdicts``).

    Returns
    -------
    (pl.DataFrame, dict) or None
        The rows (the attribute null, the keys, the counts of both estimators as the proxy
        report's base table holds them) and their columns by name (numpy arrays and lists).

    Examples
    --------
    >>> from polars_fair.counting.membership import parse_membership
    >>> m = parse_membership({"g": {"a": "pa", "b": "pb"}})
    >>> t = pl.DataFrame({"__pf_argmax": [0, None], "y_pred": [1, 1], "n": [1, 2],
    ...                   "w": [1.0, 2.0], "w2": [1.0, 2.0], "c_0": [1, 0], "c_1": [0, 0],
    ...                   "s_0": [1.0, 0.0], "s_1": [0.0, 0.0], "g_0_0": [1.0, 0.0],
    ...                   "g_1_1": [0.0, 0.0], "h_0_0": [1.0, 0.0], "h_1_1": [0.0, 0.0]})
    >>> rows, cols = missing_group(t, m, [], False, ["selection_rate"], 0.95, None,
    ...                            lambda c, r, h: ["indeterminate"] * h)
    >>> rows["g"].to_list(), rows["weight_sum"].to_list(), cols["selection_rate_regression"]
    ([None], [2.0], array([1.]))
    """
    group = [m.attribute, *keys]
    cells = ("tp", "fp", "fn", "tn")
    w = weighted_counts(table, m, keys).filter(pl.col(m.attribute).is_null())
    if w.height == 0:
        return None
    a = argmax_counts(table, m, keys, weighted).filter(pl.col(m.attribute).is_null()).select(
        *group, *(pl.col(c).alias(f"__pf_a_{c}") for c in ("n", *cells)),
        (pl.col("weight_sum") if weighted else pl.col("n").cast(pl.Float64)).alias("__pf_a_w"))
    rows = w.join(a, on=group, how="left", nulls_equal=True, maintain_order="left").with_columns(
        pl.col("__pf_a_n").cast(pl.Int64).alias("n_argmax"))
    size = rows["n_effective"].to_numpy().astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(rows["weight_sum"].to_numpy() > 0,
                         size / rows["weight_sum"].to_numpy(), 0.0)
    cols: dict[str, Any] = {}
    for rate in rates:
        x, d = _cells(rows, rate)
        with np.errstate(divide="ignore", invalid="ignore"):
            est = np.where(d > 0, x / d, np.nan)
        low, high = stats.wilson_interval(np.minimum(x * scale, d * scale), d * scale,
                                          level=level)
        for e in _ESTIMATORS:  # every row wholly in the group: the estimators coincide
            cols[f"{rate}_{e}"], cols[f"{rate}_{e}_ci_low"], cols[f"{rate}_{e}_ci_high"] = (
                est, low, high)
    cols.update(_impact(cols["selection_rate_weighted"], size, level, reference,
                        (cols["selection_rate_regression_ci_low"],
                         cols["selection_rate_regression_ci_high"])))
    cols["verdict"] = verdicts(cols, None if reference is None else -1, rows.height)
    return rows, cols


def _cells(rows: pl.DataFrame, rate: str) -> tuple[FloatArray, FloatArray]:
    """A rate's numerator and denominator from the rows' weighted cells."""
    c = {k: rows[k].to_numpy().astype(np.float64) for k in ("tp", "fp", "fn", "tn")}
    return {"selection_rate": (c["tp"] + c["fp"], c["tp"] + c["fp"] + c["fn"] + c["tn"]),
            "tpr": (c["tp"], c["tp"] + c["fn"]),
            "fpr": (c["fp"], c["fp"] + c["tn"])}[rate]


def _impact(rate: FloatArray, size: FloatArray, level: float, ref: dict[str, Any] | None,
            interval: tuple[FloatArray, FloatArray]) -> dict[str, FloatArray]:
    """Each estimator's impact ratio of the missing group against the reference."""
    h = len(rate)
    out: dict[str, FloatArray] = {}
    for e in _ESTIMATORS:
        if ref is None or not ref[f"selection_rate_{e}"] > 0:
            for s in ("", "_ci_low", "_ci_high"):
                out[f"impact_ratio_{e}{s}"] = np.full(h, np.nan)
            continue
        r = float(ref[f"selection_rate_{e}"])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = rate / r
            if e == "regression":  # MOVER-R on the two intervals; disjoint rows, independent
                ok = rate >= 0
                low, high = stats.mover_ratio(rate, interval[0], interval[1], r,
                                              float(ref["low_regression"]),
                                              float(ref["high_regression"]))
                low, high = np.where(ok, low, np.nan), np.where(ok, high, np.nan)
            else:
                x = np.minimum(np.nan_to_num(rate) * size, size)
                r_size = float(ref[f"size_{e}"])
                low, high = stats.ratio_interval(x, size, np.full(h, r * r_size),
                                                 np.full(h, r_size), level=level)
        out[f"impact_ratio_{e}"] = ratio
        out[f"impact_ratio_{e}_ci_low"], out[f"impact_ratio_{e}_ci_high"] = low, high
    return out
