"""The engine protocol: where the rows live, and the one aggregation each engine implements.

Polars (:class:`polars_fair.counting.tables.PolarsEngine`), Spark
(:mod:`polars_fair.counting._spark`) and DuckDB (:mod:`polars_fair.counting._duckdb`) implement
:class:`Engine`; their methods' documentation is this protocol's
(:func:`polars_fair._docs.borrow`).
"""

from __future__ import annotations

from typing import Any, Protocol

import polars as pl

from polars_fair.core.spec import Attributes, Audit

__all__ = ["Engine"]


class Engine(Protocol):
    """Where the rows live: the one aggregation into a label table, per engine.

    Implemented by :class:`polars_fair.counting.tables.PolarsEngine`,
    :class:`polars_fair.counting._spark.SparkEngine` and
    :class:`polars_fair.counting._duckdb.DuckDBEngine`;
    :func:`polars_fair.counting.tables.engine_of` picks one for a frame.
    Only the label table (one row per group and label/prediction value) leaves the engine.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.counting.tables import PolarsEngine, engine_of
    >>> engine: Engine = engine_of(pl.LazyFrame({"g": ["a"], "y_true": [1], "y_pred": [1]}))
    >>> engine.schema().names()
    ['g', 'y_true', 'y_pred']
    """

    def schema(self) -> pl.Schema:
        """The input's columns as Polars dtypes, read without running anything.

        Returns
        -------
        pl.Schema
            Column name -> Polars dtype, in the input's column order (Spark and DuckDB types
            mapped to Polars ones).

        Examples
        --------
        >>> from polars_fair.counting.tables import PolarsEngine
        >>> PolarsEngine(pl.LazyFrame({"g": ["a"]})).schema()
        Schema([('g', String)])
        """
        ...

    def bind(self, by: Any, args: dict[str, Any]) -> tuple[Engine, Attributes, dict[str, Any]]:
        """Engine-native expressions (a Spark ``Column``) as named columns of the input.

        Parameters
        ----------
        by : Attributes, or str, expression or list of them, or None
            The attributes of the call, parsed once (:func:`polars_fair.core.spec.parse_by`;
            a raw ``by`` is parsed here).
        args : dict of str to Any
            The count or score arguments of the call (``y_true``, ``y_pred``, ...).

        Returns
        -------
        engine : Engine
            The engine over the input with the bound columns added (or ``self``).
        by : Attributes
            The attributes, engine-native expressions replaced by the names of the added
            columns.
        args : dict of str to Any
            ``args`` likewise.

        Examples
        --------
        >>> from polars_fair.counting.tables import PolarsEngine
        >>> engine = PolarsEngine(pl.LazyFrame({"g": ["a"]}))
        >>> engine.bind("g", {"y_true": "y"})[1:]
        (Attributes(items=('g',), sets=None), {'y_true': 'y'})
        """
        ...

    def label_table(self, a: Audit) -> pl.LazyFrame:
        """Rows -> (keys, label, prediction) -> n [, weights], by one aggregation.

        Parameters
        ----------
        a : Audit
            The resolved call (:func:`polars_fair.core.spec.resolve` on :meth:`schema`).

        Returns
        -------
        pl.LazyFrame
            The label table of a count table (:mod:`polars_fair.counting.boundary`): the keys,
            ``__pf_y`` (the label as stored; absent without labels), ``__pf_p`` (the
            prediction as stored, or Boolean ``score >= threshold``), ``n`` (Int64 rows), with
            weights ``weight_sum`` (Float64) and the Int64 counts ``__pf_w_null``,
            ``__pf_w_nan``, ``__pf_w_neg``, ``__pf_w_pos`` (rows of positive weight), for a
            thresholded score the Int64 counts ``__pf_s_null``, ``__pf_s_nan``, ``__pf_s_inf``.

        Examples
        --------
        >>> from polars_fair.counting.tables import PolarsEngine, resolve
        >>> lf = pl.LazyFrame({"g": ["a", "a"], "y_true": [1, 0], "y_pred": [1, 1]})
        >>> engine = PolarsEngine(lf)
        >>> a = resolve(engine.schema(), "g")
        >>> engine.label_table(a).collect().sort("__pf_y").rows()
        [('a', 0, 1, 1), ('a', 1, 1, 1)]
        """
        ...

    def score_label_table(self, a: Audit) -> pl.LazyFrame:
        """Rows -> (keys, score, label) -> n [, weights], by one aggregation.

        Parameters
        ----------
        a : Audit
            The resolved call (``resolve(..., scores=True)``).

        Returns
        -------
        pl.LazyFrame
            The label table of a score table: the keys, ``score`` (Float64), ``__pf_y`` (the
            label as stored; absent without labels), ``n`` (Int64 rows), with weights
            ``weight_sum`` (Float64) and the Int64 counts ``__pf_w_null``, ``__pf_w_nan``,
            ``__pf_w_neg``, ``__pf_w_pos``.

        Examples
        --------
        >>> from polars_fair.counting.tables import PolarsEngine, resolve
        >>> lf = pl.LazyFrame({"g": ["a", "a"], "y_true": [1, 1], "y_score": [0.5, 0.5]})
        >>> engine = PolarsEngine(lf)
        >>> a = resolve(engine.schema(), "g", y_score="y_score", scores=True)
        >>> engine.score_label_table(a).collect().rows()
        [('a', 0.5, 1, 2)]
        """
        ...
