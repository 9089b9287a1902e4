"""Counting: the only code that touches rows.

Each engine (Polars in :mod:`~polars_fair.counting.tables`, Spark in
:mod:`~polars_fair.counting._spark`, DuckDB in :mod:`~polars_fair.counting._duckdb`) runs one
aggregation into the small label table; :mod:`~polars_fair.counting.boundary` validates it and
derives the count table (``n, tp, fp, fn, tn``) or the score table. Imports ``core`` only.
"""
