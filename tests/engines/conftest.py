"""Fixtures of the engine tests: an in-memory DuckDB connection (Spark's is tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def duck() -> Iterator[Any]:
    """One in-memory DuckDB connection per module (skips without duckdb)."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    yield con
    con.close()
