"""Spark as an engine: audit a Spark DataFrame; only the small label table leaves Spark.

What is Spark's own lives here, nothing else: the schema mapping (Spark types to Polars dtypes,
so that :func:`polars_fair.core.spec.resolve` checks a call before Spark runs), binding Spark
``Column`` expressions to names, the one aggregation into the label table of
:mod:`polars_fair.counting.boundary` (PySpark's own functions, no Python UDFs) and its hand-off
through Arrow. The checks, the count and score tables and every analysis are the same code as for
Polars, so the results and the errors (type and message) are those of ``df.fair``.

Use it through the common entry points::

    import polars_fair
    polars_fair.counts(spark_df, ["race", "sex"], y_true="label").report().collect()
    polars_fair.scores(spark_df, "race", y_score="score").abroca().collect()

or the shortcuts of this module, one per analysis (:mod:`polars_fair.api.shortcuts`), returning a
``pl.DataFrame``: ``polars_fair.spark.report(sdf, by, ...)``, ``.abroca(..., round_scores=3)``.

Requires ``pip install "polars_fair[spark]"`` (PySpark 4.0 or later).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_fair.api.monitor import own_table_analysis
from polars_fair.api.shortcuts import make_shortcuts, shortcut_names
from polars_fair.core.spec import By
from polars_fair.counting._spark import SparkEngine, polars_schema

__all__ = ["SparkEngine", "polars_schema"]

# ------------------------------------------------------------------ shortcuts, one per analysis
globals().update(make_shortcuts(
    lambda frame, round_scores=None: SparkEngine(frame, round_scores),
    frame="spark_df", engine="Spark", rounding=True, module=__name__,
))
__all__ += [n for n in shortcut_names() if n not in __all__]


def compare(spark_df: Any, by: By = None, **options: Any) -> pl.DataFrame:
    """``df.fair.compare`` on a Spark DataFrame: a candidate against its baseline, collected.

    The paired count table is one Spark aggregation; see
    :func:`polars_fair.analyses.compare.compare_from_counts` for the columns.

    Parameters
    ----------
    spark_df : pyspark.sql.DataFrame
        The rows.
    by : str or list of str, optional
        The attributes.
    **options : Any
        The options of ``df.fair.compare`` (``y_pred``, ``baseline``, ``y_true``, ...).

    Returns
    -------
    pl.DataFrame
        The comparison.

    Raises
    ------
    PolarsFairError
        As ``df.fair.compare``.

    Examples
    --------
    >>> polars_fair.spark.compare(sdf, "race", y_pred="new", baseline="old")  # doctest: +SKIP
    """
    return own_table_analysis(SparkEngine(spark_df), "compare", by, **options)


def monitor(spark_df: Any, by: By = None, **options: Any) -> pl.DataFrame:
    """``df.fair.monitor`` on a Spark DataFrame: fairness over time, collected.

    The period count table is one Spark aggregation (by the row's date); see
    :func:`polars_fair.analyses.monitor.monitor_from_counts` for the columns.

    Parameters
    ----------
    spark_df : pyspark.sql.DataFrame
        The rows.
    by : str or list of str, optional
        The attributes.
    **options : Any
        The options of ``df.fair.monitor`` (``time``, ``every``, ``y_pred``, ...).

    Returns
    -------
    pl.DataFrame
        One row per (period, group).

    Raises
    ------
    PolarsFairError
        As ``df.fair.monitor``.

    Examples
    --------
    >>> polars_fair.spark.monitor(sdf, "race", time="day", every="1w", y_pred="p")  # doctest: +SKIP
    """
    return own_table_analysis(SparkEngine(spark_df), "monitor", by, **options)


__all__ += ["compare", "monitor"]
