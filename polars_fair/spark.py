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
