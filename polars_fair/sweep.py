"""Counts and rates at many thresholds, from the score table (no second scan of the rows).

At threshold ``t`` a row is predicted positive when ``score >= t``, compared in the score's own
dtype (:func:`polars_fair.spec.threshold_in_dtype`), so the sweep gives exactly what ``report``
gives with ``y_score=`` and ``threshold=t``. From the score table (one row per group and
distinct score): ``tp(t) = Σ positives[score >= t]``, ``fp(t) = Σ negatives[score >= t]``,
``fn = P − tp``, ``tn = N − fp``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_fair import errors as E
from polars_fair.registry import RATE_NAMES
from polars_fair.report import with_rates
from polars_fair.spec import threshold_in_dtype

__all__ = ["sweep_from_scores"]

_FLOAT64 = pl.Float64()


def _thresholds(thresholds: Sequence[float], dtype: pl.DataType) -> list[float]:
    if isinstance(thresholds, pl.Series):
        thresholds = thresholds.to_list()
    elif hasattr(thresholds, "tolist") and not isinstance(thresholds, (str, bytes)):
        thresholds = thresholds.tolist()  # a numpy array (np.linspace) or scalar
    if isinstance(thresholds, (str, bytes)) or not isinstance(thresholds, Sequence):
        thresholds = [thresholds]  # type: ignore[list-item]
    ts = sorted({threshold_in_dtype(t, dtype) for t in thresholds})
    if not ts:
        raise E.InvalidArgumentError(E.NO_THRESHOLDS)
    return ts


def sweep_from_scores(
    scores: pl.LazyFrame,
    keys: Sequence[str],
    *,
    thresholds: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    score_dtype: pl.DataType = _FLOAT64,
) -> pl.LazyFrame:
    r"""Counts and every rate per group at each threshold: ``y_pred = y_score >= threshold``.

    From the score table: :math:`tp(t) = \sum positives[score \ge t]`,
    :math:`fp(t) = \sum negatives[score \ge t]`, :math:`fn = P - tp`, :math:`tn = N - fp`;
    the rates are the registry's formulas on these counts (:func:`polars_fair.report.with_rates`,
    sources in :data:`polars_fair.registry.METRICS`).

    Parameters
    ----------
    scores : pl.LazyFrame
        A score table (keys, ``score``, ``positives``, ``negatives`` [, ``n_rows``]).
    keys : sequence of str
        Its key columns.
    thresholds : sequence of float
        Finite numbers; sorted and de-duplicated (after rounding to the score's dtype).
    score_dtype : pl.DataType, default Float64
        The dtype of the scores before they were widened (a Float32 score compares in Float32).

    Returns
    -------
    pl.LazyFrame
        keys, ``threshold`` (Float64), ``n`` (Int64 rows), ``tp, fp, fn, tn`` (Int64; Float64
        weighted, followed by ``weight_sum``), then every rate of the registry (Float64, null
        where undefined), sorted by keys and threshold.

    Raises
    ------
    InvalidArgumentError
        No threshold, or a threshold that is not a finite number.

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "a"], "score": [0.2, 0.8], "positives": [0, 1],
    ...                   "negatives": [1, 0]})
    >>> sweep_from_scores(t, ["g"], thresholds=[0.5]).select("tp", "fp", "tpr").collect().row(0)
    (1, 0, 1.0)
    """
    keys = list(keys)
    ts = _thresholds(thresholds, score_dtype)
    schema = scores.collect_schema()
    weighted = schema["positives"].is_float()
    cell = pl.Float64 if weighted else pl.Int64
    rows = pl.col("n_rows") if "n_rows" in schema else pl.col("positives") + pl.col("negatives")
    grid = pl.LazyFrame({"threshold": ts}, schema={"threshold": pl.Float64})
    totals = (scores.group_by(keys) if keys else scores.group_by(pl.lit(0).alias("__pf_all"))).agg(
        rows.sum().cast(pl.Int64).alias("n"), pl.col("positives").sum().alias("__pf_p"),
        pl.col("negatives").sum().alias("__pf_n"),
    )
    if not keys:
        totals = totals.drop("__pf_all")
    above = scores.join(grid, how="cross").filter(pl.col("score") >= pl.col("threshold"))
    on = [*keys, "threshold"]
    hits = above.group_by(on).agg(pl.col("positives").sum().alias("tp"),
                                  pl.col("negatives").sum().alias("fp"))
    out = (
        totals.join(grid, how="cross")
        .join(hits, on=on, how="left", nulls_equal=True)
        .with_columns(pl.col("tp", "fp").fill_null(0).cast(cell))
        .with_columns(
            (pl.col("__pf_p") - pl.col("tp")).cast(cell).alias("fn"),
            (pl.col("__pf_n") - pl.col("fp")).cast(cell).alias("tn"),
            (pl.col("__pf_p") + pl.col("__pf_n")).cast(pl.Float64).alias("weight_sum"),
        )
        .select(*on, "n", "tp", "fp", "fn", "tn", *(["weight_sum"] if weighted else []))
        .sort(on, nulls_last=True)
    )
    return with_rates(out).select(*on, "n", "tp", "fp", "fn", "tn",
                                  *(["weight_sum"] if weighted else []), *RATE_NAMES)
