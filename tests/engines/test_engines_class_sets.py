"""multiclass_report over several attribute sets gives one table on every way in.

The Polars eager result (whose figures tests/analyses/test_multiclass_sets.py counts by hand)
is the reference; lazy, streaming, a class table made elsewhere, Spark and DuckDB must equal it.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair
from tests.engines.test_engines import frame_on
from tests.engines.test_engines_classes import rows  # noqa: F401  (a fixture)

pytestmark = [
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]
OPTIONS: dict[str, Any] = {"combinations": "all", "min_support": 20}


def _report(route: str, df: pl.DataFrame, request: pytest.FixtureRequest) -> pl.DataFrame:
    by = ["race", "sex"]
    if route in ("lazy", "streaming"):
        out = df.lazy().fair.multiclass_report(by, y_pred="band", **OPTIONS)
        return out.collect(engine="streaming" if route == "streaming" else "auto")
    if route == "table":
        made = polars_fair.class_counts(df, by, y_pred="band").frame.collect()
        return polars_fair.from_class_counts(made).multiclass_report(**OPTIONS).collect()
    engine = frame_on(route, df, request)
    return polars_fair.class_counts(engine, by, y_pred="band").multiclass_report(
        **OPTIONS).collect()


@pytest.mark.parametrize("route", ["lazy", "streaming", "table", "duckdb",
                                   pytest.param("spark", marks=pytest.mark.slow)])
def test_the_stacked_sets_are_the_same_on_every_route(rows: pl.DataFrame,  # noqa: F811
                                                      route: str,
                                                      request: pytest.FixtureRequest) -> None:
    want = rows.fair.multiclass_report(["race", "sex"], y_pred="band", **OPTIONS)
    assert want["attributes"].unique(maintain_order=True).to_list() == [
        ["race"], ["sex"], ["race", "sex"]]
    assert_frame_equal(_report(route, rows, request), want)
