"""DuckDB as an engine: audit a DuckDB relation in place; only the small label table leaves DuckDB.

What is DuckDB's own lives here, nothing else: the schema mapping (DuckDB types to Polars dtypes,
so that :func:`polars_fair.core.spec.resolve` checks a call before DuckDB runs), the one aggregation
into the label table of :mod:`polars_fair.counting.boundary` (built with the relational API,
``relation.aggregate(...)``, identifiers quoted, no user text in the SQL) and its hand-off to
Polars through Arrow. The checks, the count and score tables and every analysis are the same code
as for Polars, so the results and the errors (type and message) are those of ``df.fair``.

Use it through the common entry points, on any relation (a Parquet or CSV file, a table, a
query)::

    import duckdb, polars_fair
    rel = duckdb.read_parquet("hiring.parquet")
    polars_fair.counts(rel, ["race", "sex"]).report().collect()
    polars_fair.scores(rel, "race", y_score="y_score").abroca().collect()

Arguments name columns of the relation (``str``); an expression cannot run inside DuckDB, so a
``pl.Expr`` raises :class:`~polars_fair.errors.InvalidArgumentError` (add the expression to the
relation first: ``rel.select("*, age // 10 AS age_band")``). The aggregation runs when
:func:`polars_fair.counts` / :func:`polars_fair.scores` is called (like Spark's, once per call);
the analyses on the returned object read the fetched label table.

The keys of the result have the Polars dtype of :func:`polars_schema`: ``VARCHAR`` keys come
back as ``String`` (a Parquet file written from a Polars ``Enum`` column reads as ``VARCHAR``,
so the empty intersections that ``df.fair`` adds for Enum keys are absent), ``ENUM`` keys as
``pl.Enum`` with the declared values (DuckDB's Arrow export gives ``Categorical``; the label
table is cast back, so empty intersections are added as for Polars), ``HUGEINT``/``UHUGEINT`` as
``Int128``/``UInt128`` (sent as text: Arrow's ``decimal128`` wraps the largest ``UHUGEINT``).

Why the relational API and not narwhals: narwhals does express this aggregation on a DuckDB
relation (tried: the same groups and values, once its Boolean sums, which DuckDB returns as
``HUGEINT``, are cast back to Int64), but it would be a runtime dependency and a translation
layer for one ``GROUP BY`` of a dozen aggregates, and its schema drops what
:func:`~polars_fair.core.spec.resolve` needs from ours (the types of columns it cannot represent).
duckdb is imported lazily (``import polars_fair.duckdb`` works without it).

Requires ``pip install "polars_fair[duckdb]"`` (DuckDB 1.1 or later).
"""

from __future__ import annotations

from polars_fair.counting._duckdb import DuckDBEngine, polars_schema, quote

__all__ = ["DuckDBEngine", "polars_schema", "quote"]
