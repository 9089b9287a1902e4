"""Core: the declarations every layer reads, and nothing that touches rows.

The count arguments and ``by`` parsed once (:mod:`~polars_fair.core.spec`), the metric registry
(:mod:`~polars_fair.core.registry`), pure ``pl.Expr`` builders
(:mod:`~polars_fair.core.expressions`), the exact decision rules
(:mod:`~polars_fair.core.rules`), the reference resolver (:mod:`~polars_fair.core.reference`),
statistics on counts (:mod:`~polars_fair.core.stats`) and the SQL options' parser
(:mod:`~polars_fair.core.sql`). Imports only the top-level leaves (``errors``, ``_lazy``,
``_docs``).
"""
