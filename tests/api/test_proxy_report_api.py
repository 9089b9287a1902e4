"""The proxy report's ways in: df.fair, lf.fair (eager, lazy, streaming), the function forms."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair
from polars_fair import errors as E
from tests.conftest import Runner

MEMBERSHIP = {"g": {"a": "p_a", "b": "p_b"}}


@pytest.fixture
def rows() -> pl.DataFrame:
    p_a = [0.9, 0.8, 0.7, 0.6, 0.2, 0.1, 0.3, 0.4, 0.95, 0.05]
    return pl.DataFrame({
        "c": ["x", "y"] * 5,
        "y_true": [1, 0, 1, 1, 0, 1, 0, 0, 1, 1],
        "y_pred": [1, 1, 0, 1, 0, 1, 0, 1, 1, 0],
        "p_a": p_a,
    }).with_columns(p_b=1.0 - pl.col("p_a"))


def test_every_way_in_gives_the_same_frame(run: Runner, rows: pl.DataFrame) -> None:
    expected = polars_fair.proxy_report(rows, "c", membership=MEMBERSHIP,
                                        reference={"g": "a", "c": "x"}).collect()
    got = run(rows, "proxy_report", "c", membership=MEMBERSHIP, reference={"g": "a", "c": "x"})
    # float sums of a parallel group-by may differ in the last bits between runs
    assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)
    assert got.columns[:2] == ["g", "c"]
    assert got.height == 4
    # the weighted selection rate of (a, x) by hand: rows 0, 2, 4, 6, 8 of c = x
    p = [0.9, 0.7, 0.2, 0.3, 0.95]
    sel = [1, 0, 0, 0, 1]
    assert got["selection_rate_weighted"][0] == pytest.approx(
        sum(pi * s for pi, s in zip(p, sel, strict=True)) / sum(p), abs=1e-15)
    counted = polars_fair.proxy_counts(rows.lazy(), "c", membership=MEMBERSHIP)
    assert_frame_equal(counted.proxy_report(reference={"g": "a", "c": "x"}).collect(), expected,
                       check_exact=False, rel_tol=1e-12, abs_tol=1e-15)


def test_lazy_in_lazy_out_from_one_scan(rows: pl.DataFrame) -> None:
    out = rows.lazy().fair.proxy_report("c", membership=MEMBERSHIP)
    assert isinstance(out, pl.LazyFrame)
    plan = out.explain()
    assert plan.count("AGGREGATE") == 1  # one group-by over the wide rows
    assert plan.count("DF [") == 1  # the rows are read once


def test_errors_are_typed(rows: pl.DataFrame) -> None:
    with pytest.raises(E.InvalidArgumentError, match="proxy_report needs membership"):
        polars_fair.proxy_report(rows, membership=None)
    with pytest.raises(E.InvalidArgumentError, match="one attribute"):
        polars_fair.proxy_report(rows, membership={**MEMBERSHIP, "h": {"x": "p_a"}})
    with pytest.raises(E.ColumnNotFoundError, match="p_c"):
        polars_fair.proxy_report(rows, membership={"g": {"a": "p_a", "c": "p_c"}})
    with pytest.raises(E.InvalidMembershipError, match="sum to 1"):
        polars_fair.proxy_report(rows.with_columns(p_b=pl.lit(0.5)),
                                 membership=MEMBERSHIP).collect()
    with pytest.raises(E.InvalidArgumentError, match="'overall'"):
        polars_fair.proxy_report(rows, membership=MEMBERSHIP, reference="overall")
    with pytest.raises(E.InvalidArgumentError, match="level"):
        polars_fair.proxy_report(rows, membership=MEMBERSHIP, level=1.5)


def test_duckdb_relation_gives_the_polars_frame(rows: pl.DataFrame) -> None:
    duckdb = pytest.importorskip("duckdb")
    relation = duckdb.from_arrow(rows.to_arrow())
    got = polars_fair.proxy_report(relation, "c", membership=MEMBERSHIP,
                                   sample_weight="p_a").collect()
    expected = polars_fair.proxy_report(rows, "c", membership=MEMBERSHIP,
                                        sample_weight="p_a").collect()
    assert_frame_equal(got, expected, check_exact=False, rel_tol=1e-12, abs_tol=1e-15)


def test_normalize_divides_each_row_by_its_sum(rows: pl.DataFrame) -> None:
    doubled = rows.with_columns(pl.col("p_a") * 2, pl.col("p_b") * 2)
    out = polars_fair.proxy_report(doubled, membership=MEMBERSHIP, normalize=True).collect()
    assert_frame_equal(out, polars_fair.proxy_report(rows, membership=MEMBERSHIP).collect(),
                       check_exact=False, rel_tol=1e-12, abs_tol=1e-15)
