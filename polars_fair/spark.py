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

from collections.abc import Callable
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


_OWN_TABLE_DOC = """``df.fair.{method}`` on a Spark DataFrame: {what}, collected.

The {table} is one Spark aggregation; see :func:`{source}` for the columns.

Parameters
----------
spark_df : pyspark.sql.DataFrame
    The rows.
by : str or list of str, optional
    The attributes.
**options : Any
    The options of ``df.fair.{method}`` ({options}).

Returns
-------
pl.DataFrame
    The analysis.

Raises
------
PolarsFairError
    As ``df.fair.{method}``.

Examples
--------
>>> polars_fair.spark.{method}(sdf, "race", {example})  # doctest: +SKIP
"""


def _own_table(method: str, **doc: str) -> Callable[..., pl.DataFrame]:
    """The Spark shortcut of an analysis that counts a table of its own."""
    def shortcut(spark_df: Any, by: By = None, **options: Any) -> pl.DataFrame:
        return own_table_analysis(SparkEngine(spark_df), method, by, **options)

    shortcut.__name__ = shortcut.__qualname__ = method
    shortcut.__doc__ = _OWN_TABLE_DOC.format(method=method, **doc)
    return shortcut


compare = _own_table(
    "compare", what="a candidate against its baseline", table="paired count table",
    source="polars_fair.analyses.compare.compare_from_counts",
    options="``y_pred``, ``baseline``, ``y_true``, ...",
    example='y_pred="new", baseline="old"')
monitor = _own_table(
    "monitor", what="fairness over time", table="period count table (by the row's date)",
    source="polars_fair.analyses.monitor.monitor_from_counts",
    options="``time``, ``every``, ``y_pred``, ...",
    example='time="day", every="1w", y_pred="p"')
__all__ += ["compare", "monitor"]


def proxy_report(spark_df: Any, by: By = None, **options: Any) -> pl.DataFrame:
    """``df.fair.proxy_report`` on a Spark DataFrame: the three estimators side by side, collected.

    The membership table is one Spark aggregation (:func:`polars_fair.proxy_counts`); see
    :func:`polars_fair.analyses.proxy_report.proxy_report_from_membership` for the columns.
    On Spark the probabilities must be column names.

    Parameters
    ----------
    spark_df : pyspark.sql.DataFrame
        The rows.
    by : str or list of str, optional
        The attributes crossed with the membership groups.
    **options : Any
        The options of ``df.fair.proxy_report`` (``membership``, ``y_pred``, ``reference``,
        ...).

    Returns
    -------
    pl.DataFrame
        The proxy report.

    Raises
    ------
    PolarsFairError
        As ``df.fair.proxy_report``.

    Examples
    --------
    >>> polars_fair.spark.proxy_report(sdf, membership={"g": {"a": "p_a", "b": "p_b"}},
    ...                                y_true=None, y_pred="y_pred")  # doctest: +SKIP
    """
    from polars_fair.api.proxy_report import proxy_report as rows_proxy_report

    return rows_proxy_report(spark_df, by, **options).collect()


def membership_calibration(spark_df: Any, **options: Any) -> pl.DataFrame:
    """``df.fair.membership_calibration`` on a Spark DataFrame: refused, with the reason.

    The calibration check counts its table with Polars only (its bins are cut on the rows);
    a Spark DataFrame is refused with a typed error naming its type, so the shortcut exists
    where every analysis has one and says why it cannot run.

    Parameters
    ----------
    spark_df : pyspark.sql.DataFrame
        The rows.
    **options : Any
        The options of ``df.fair.membership_calibration``.

    Returns
    -------
    pl.DataFrame
        Never: the call raises.

    Raises
    ------
    InvalidArgumentError
        Always, for a Spark DataFrame (:data:`polars_fair.errors.CALIBRATION_POLARS_ONLY`);
        collect the rows to Polars first (``pl.from_arrow(spark_df.toArrow())``).

    Examples
    --------
    >>> polars_fair.spark.membership_calibration(sdf, membership={"g": {"a": "p_a", "b": "p_b"}},
    ...                                          known="g_self")  # doctest: +SKIP
    Traceback (most recent call last):
    polars_fair.errors.InvalidArgumentError: membership_calibration reads a polars DataFrame ...
    """
    from polars_fair.api.membership_calibration import (
        membership_calibration as rows_membership_calibration,
    )

    return rows_membership_calibration(spark_df, **options).collect()


__all__ += ["proxy_report", "membership_calibration"]
