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

from polars_fair.api.shortcuts import make_shortcuts, shortcut_names
from polars_fair.counting._spark import SparkEngine, polars_schema

__all__ = ["SparkEngine", "polars_schema"]

# ------------------------------------------------------------------ shortcuts, one per analysis
globals().update(make_shortcuts(
    lambda frame, round_scores=None: SparkEngine(frame, round_scores),
    frame="spark_df", engine="Spark", rounding=True, module=__name__,
))
__all__ += [n for n in shortcut_names() if n not in __all__]
