"""Edge cases found by a new user's review: each was a crash or a silently wrong number."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.cli.entry import app
from tests.conftest import Runner

D = pl.DataFrame({"a": ["x", "y"] * 20, "b": ["p", "p", "q", "q"] * 10,
                  "y_true": [1, 0, 1, 1] * 10, "y_pred": [1, 1, 0, 1] * 10})


def test_pairwise_and_summary_with_several_attribute_sets(run: Runner) -> None:
    pairs = run(D, "pairwise", ["a", "b"], combinations="all")
    assert pairs.columns[:5] == ["attributes", "a_i", "b_i", "a_j", "b_j"]
    assert pairs.group_by("attributes", maintain_order=True).len()["len"].to_list() == [2, 2, 12]
    only_a = pairs.filter(pl.col("attributes") == ["a"])
    assert only_a["b_i"].null_count() == 2
    assert only_a.select("a_i", "a_j").rows() == [("x", "y"), ("y", "x")]
    summary = run(D, "summary", [["a"], ["b"]], min_support=1)
    assert summary["attributes"].unique(maintain_order=True).to_list() == [["a"], ["b"]]
    # set a: x rows have y_pred 1, 0, 1, 0, ... (rate 0.5); y rows are all 1 (rate 1.0)
    dpd = summary.filter((pl.col("attributes") == ["a"])
                         & (pl.col("metric") == "demographic_parity_difference"))
    assert dpd["value"].item() == pytest.approx(0.5)


@pytest.mark.parametrize("column", ["y_true", "y_pred"])
def test_nan_labels_raise(run: Runner, column: str) -> None:
    df = D.with_columns(pl.col(column).cast(pl.Float64))
    df = df.with_columns(pl.when(pl.int_range(pl.len()) < 3).then(float("nan"))
                         .otherwise(pl.col(column)).alias(column))
    with pytest.raises(E.NullValuesError) as info:
        run(df, "confusion", "a")
    assert str(info.value) == E.NAN_LABELS.format(column=column, role=column, count=3)


def test_mapping_reference_with_null_keys(run: Runner) -> None:
    dn = D.with_columns(b=pl.when(pl.int_range(pl.len()) < 5).then(None).otherwise(pl.col("b")))
    rep = run(dn, "report", ["a", "b"], reference={"a": "x", "b": "q"})
    assert rep["is_reference"].to_list() == [False, True, False, False, False, False]
    dis = run(dn, "disparity", ["a", "b"], reference={"a": "x", "b": "q"})
    assert dis["is_reference"].to_list() == [False, True, False, False, False, False]


def test_null_group_is_never_the_benchmark(run: Runner) -> None:
    # 30 rows with a null attribute: the largest group, and the highest selection rate
    dn = D.with_columns(a=pl.when(pl.int_range(pl.len()) < 30).then(None).otherwise(pl.col("a")),
                        y_pred=pl.when(pl.int_range(pl.len()) < 30).then(1)
                        .otherwise(pl.col("y_pred")))
    rep = run(dn, "report", "a")
    assert rep.filter("is_reference")["a"].to_list() == ["x"]
    # impact ratio: the maximum is taken over known groups: y selects 5/5, x 0/5 + ... -> y = 1
    assert rep.filter(pl.col("a") == "y")["impact_ratio"].item() == 1.0
    assert rep.filter(pl.col("a").is_null())["impact_ratio"].item() == 1.0  # still shown


def test_infinite_and_zero_weights() -> None:
    inf = D.with_columns(w=pl.when(pl.int_range(pl.len()) == 0).then(float("inf")).otherwise(1.0))
    with pytest.raises(E.InvalidWeightError) as info:
        inf.fair.confusion("a", sample_weight="w")
    assert str(info.value) == E.BAD_WEIGHTS.format(column="w", nulls=0, nans=1, negatives=0)
    zero = D.with_columns(w=pl.lit(0.0)).fair.rates("a", sample_weight="w")
    assert zero["selection_rate"].to_list() == [None, None]  # 0/0: undefined, not an error


@pytest.mark.parametrize(
    ("name", "analysis", "call"),
    [
        ("attributes", "report_from_counts",
         lambda f, k: f.fair.report([k, "y_true"], combinations="all")),
        ("ofi", "report_from_counts", lambda f, k: f.fair.report(k)),
        ("metric", "metrics_table", lambda f, k: f.fair.metrics(k)),
        ("value", "disparity_table", lambda f, k: f.fair.disparity(k)),
        ("threshold", "sweep", lambda f, k: f.fair.sweep(k, y_score="y_pred")),
        ("bin", "reliability", lambda f, k: f.fair.reliability(k, y_score="y_pred")),
        ("ece_gap", "calibration", lambda f, k: f.fair.calibration(k, y_score="y_pred")),
        ("null_mean", "abroca_test", lambda f, k: f.fair.abroca_test(k, y_score="y_pred")),
    ],
)
def test_attribute_names_clashing_with_outputs(name: str, analysis: str, call: Any) -> None:
    """The clash check reads each analysis' own output schema (no hand-kept list): an attribute
    named like a column of the analysis raises a typed error naming it."""
    with pytest.raises(E.InvalidArgumentError) as info:
        call(D.rename({"a": name}), name)
    assert str(info.value) == E.COLUMN_CLASH.format(names=[name], analysis=analysis, example=name)


@pytest.mark.parametrize("name", ["n", "tp", "weight_sum"])
def test_attribute_names_clashing_with_the_count_table(name: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        D.rename({"a": name}).fair.report(name)
    assert str(info.value) == E.RESERVED_NAME.format(names=[name], example=name)


def test_attribute_named_like_another_analysis_output_is_allowed() -> None:
    # "metric" is an output of metrics(), not of report(): report works and keeps the key
    out = D.rename({"a": "metric"}).fair.report("metric", min_support=1)
    assert out.columns[0] == "metric"


def test_empty_or_mistyped_reference() -> None:
    e = D.with_columns(pl.col("a").cast(pl.Enum(["x", "y", "z"])))
    with pytest.raises(E.UnknownGroupError, match=r"reference group 'z' has no rows \(n = 0\)"):
        e.fair.report("a", reference="z")
    with pytest.raises(E.InvalidArgumentError,
                       match=r"reference value 1 \(int\) cannot be compared"):
        D.fair.report("a", reference=1)


def test_bad_argument_types() -> None:
    with pytest.raises(E.InvalidArgumentError, match="threshold must be a number"):
        D.fair.report("a", y_pred=None, y_score="y_pred", threshold="0.5")  # type: ignore[arg-type]
    with pytest.raises(E.InvalidArgumentError, match="sample_weight must be a column name"):
        D.fair.report("a", sample_weight=2.0)  # type: ignore[arg-type]
    with pytest.raises(E.InvalidArgumentError, match="min_support must be a number"):
        D.fair.report("a", min_support="x")  # type: ignore[arg-type]
    assert D.fair.pairwise("a", metrics="ofi").columns == ["a_i", "a_j", "n_i", "n_j", "ofi"]


def test_cli_demo_bad_sizes_exit_2() -> None:
    runner = CliRunner()
    for args in (["demo", "--n", "0"], ["demo", "--seed", "-1", "--n", "100"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert "polars-fair: error:" in result.output
