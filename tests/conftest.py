"""Shared fixtures: every frame-level test runs over each way a frame can arrive."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
COMPAS_CSV = SHARED_DATA / "compas" / "compas-scores-two-years.csv"
ADULT_CSV = SHARED_DATA / "adult" / "adult.csv"
ADULT_SCORED_CSV = SHARED_DATA / "adult" / "adult-scored.csv"

Runner = Callable[..., pl.DataFrame]


def require(path: Path) -> Path:
    """Skip (or fail, when POLARS_FAIR_REQUIRE_DATA=1) if a shared data file is absent."""
    if not path.exists():
        reason = f"shared data file {path} is absent (../shared/data next to the project root)"
        if os.environ.get("POLARS_FAIR_REQUIRE_DATA") == "1":
            pytest.fail(f"POLARS_FAIR_REQUIRE_DATA=1 but {reason}")
        pytest.skip(reason)
    return path


@pytest.fixture(params=["eager", "lazy", "streaming"])
def run(request: pytest.FixtureRequest) -> Runner:
    """``run(df, "report", by, **kw)`` through df.fair, lf.fair + collect, or streaming collect."""
    kind = request.param

    def _run(df: pl.DataFrame, method: str, *args: Any, **kwargs: Any) -> pl.DataFrame:
        if kind == "eager":
            out = getattr(df.fair, method)(*args, **kwargs)
            assert isinstance(out, pl.DataFrame)
            return out
        lazy = getattr(df.lazy().fair, method)(*args, **kwargs)
        assert isinstance(lazy, pl.LazyFrame)
        return lazy.collect(engine="streaming" if kind == "streaming" else "in-memory")

    return _run


@pytest.fixture(scope="session")
def compas() -> pl.DataFrame:
    """COMPAS after ProPublica's standard filter (6,172 rows), audit columns only."""
    from polars_fair.datasets import scan_compas

    return scan_compas(require(COMPAS_CSV)).collect()
