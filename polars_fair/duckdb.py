"""DuckDB as an engine: audit a DuckDB relation in place; only the small label table leaves DuckDB.

The public path of :mod:`polars_fair.counting._duckdb`, whose documentation says how to use it
(``polars_fair.counts(relation, ...)``), what runs inside DuckDB and what comes back; the code and
its list of public names (``__all__``) live there. duckdb is imported lazily
(``import polars_fair.duckdb`` works without it). Requires ``pip install "polars_fair[duckdb]"``.
"""

from __future__ import annotations

from polars_fair.counting._duckdb import *  # noqa: F403
from polars_fair.counting._duckdb import __all__ as __all__
