"""NYC Local Law 144 bias audit: hand-computed examples, numpy references, errors, properties."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair  # registers .fair; polars_fair.fair is the typed accessor
from polars_fair import errors as E
from polars_fair.analyses.bias_audit import (
    bias_audit_from_counts,
    bias_audit_from_scores,
    ll144_sets,
)
from polars_fair.api.rows import bias_audit
from tests.conftest import ADULT_CSV, one_row_groups, require

Audit = Callable[..., pl.DataFrame]
SETTINGS = settings(max_examples=60, deadline=None)

# sex × race, 10 applicants:
#   (M, A): 4 applicants, 2 selected   (M, B): 2 applicants, 1 selected
#   (F, A): 3 applicants, 1 selected   (F, B): 1 applicant,  0 selected
HIRING = pl.DataFrame(
    {
        "sex": ["M"] * 6 + ["F"] * 4,
        "race": ["A", "A", "A", "A", "B", "B", "A", "A", "A", "B"],
        "hired": [1, 1, 0, 0, 1, 0, 1, 0, 0, 0],
    }
)


@pytest.fixture(params=["eager", "lazy", "streaming"])
def audit(request: pytest.FixtureRequest) -> Audit:
    """``audit(df, categories, **kw)`` as a DataFrame call, a lazy collect or a streaming collect.

    "eager" goes through ``df.fair.bias_audit`` once the namespace has it, and through
    ``bias_audit(df.lazy()).collect()`` (what the DataFrame method is defined to be) until then.
    """
    kind = request.param

    def _run(df: pl.DataFrame, categories: Any, **kwargs: Any) -> pl.DataFrame:
        if kind == "eager":
            method = getattr(polars_fair.fair(df), "bias_audit", None)
            if method is not None:
                out = method(categories, **kwargs)
                assert isinstance(out, pl.DataFrame)
                return out
            return bias_audit(df.lazy(), categories, **kwargs).collect()
        lazy = bias_audit(df.lazy(), categories, **kwargs)
        assert isinstance(lazy, pl.LazyFrame)
        return lazy.collect(engine="streaming" if kind == "streaming" else "in-memory")

    return _run


# ---------------------------------------------------------------------------------------------
# hand-computed examples


def test_selection_rates_and_impact_ratios_by_hand(audit: Audit) -> None:
    out = audit(HIRING, ["sex", "race"], y_pred="hired")
    assert out["attributes"].to_list() == [["sex"]] * 2 + [["race"]] * 2 + [["sex", "race"]] * 4
    assert out["sex"].to_list() == ["F", "M", None, None, "F", "F", "M", "M"]
    assert out["race"].to_list() == [None, None, "A", "B", "A", "B", "A", "B"]
    assert out["n"].to_list() == [4, 6, 7, 3, 3, 1, 4, 2]
    assert out["selected"].to_list() == [1, 3, 3, 1, 1, 0, 2, 1]
    # sex: F 1/4, M 3/6; race: A 3/7, B 1/3; sex×race: 1/3, 0/1, 2/4, 1/2
    expected_rates = [1 / 4, 3 / 6, 3 / 7, 1 / 3, 1 / 3, 0.0, 2 / 4, 1 / 2]
    assert out["selection_rate"].to_list() == pytest.approx(expected_rates, abs=1e-15)
    # impact ratio = rate / max rate within the set: sex max 1/2, race max 3/7, sex×race max 1/2
    expected_ir = [0.5, 1.0, 1.0, (1 / 3) / (3 / 7), (1 / 3) / 0.5, 0.0, 1.0, 1.0]
    assert out["impact_ratio"].to_list() == pytest.approx(expected_ir, abs=1e-15)
    assert out["share"].to_list() == pytest.approx([0.4, 0.6, 0.7, 0.3, 0.3, 0.1, 0.4, 0.2])
    assert not out["small_category"].any()
    assert not out["excluded"].any()
    assert not out["unknown_category"].any()
    assert out["unknown_rows"].to_list() == [0] * 8


def test_output_schema_is_fixed(audit: Audit) -> None:
    out = audit(HIRING, ["sex", "race"], y_pred="hired")
    assert out.schema == pl.Schema(
        {
            "attributes": pl.List(pl.String), "sex": pl.String(), "race": pl.String(),
            "n": pl.Int64(), "selected": pl.Int64(), "selection_rate": pl.Float64(),
            "share": pl.Float64(), "small_category": pl.Boolean(), "unknown_category": pl.Boolean(),
            "excluded": pl.Boolean(), "impact_ratio": pl.Float64(), "unknown_rows": pl.Int64(),
            "benchmark_eligible": pl.Boolean(),
        }
    )
    scored = audit(HIRING.with_columns(s=pl.col("hired") * 2.0), ["sex"], y_score="s",
                   sample_weight=pl.lit(1.0).alias("w"))
    assert scored.schema == pl.Schema(
        {
            "attributes": pl.List(pl.String), "sex": pl.String(), "n": pl.Int64(),
            "weight_sum": pl.Float64(), "scored_above_median": pl.Float64(),
            "scoring_rate": pl.Float64(), "median_score": pl.Float64(), "share": pl.Float64(),
            "small_category": pl.Boolean(), "unknown_category": pl.Boolean(),
            "excluded": pl.Boolean(), "impact_ratio": pl.Float64(), "unknown_rows": pl.Int64(),
            "benchmark_eligible": pl.Boolean(),
        }
    )


# race: A 10 applicants 5 selected (0.5), B 8 / 2 (0.25), C 1 / 1 (1.0), unknown 2 / 2 (1.0).
SMALL = pl.DataFrame(
    {
        "race": ["A"] * 10 + ["B"] * 8 + ["C"] + [None, None],
        "hired": [1] * 5 + [0] * 5 + [1] * 2 + [0] * 6 + [1] + [1, 1],
    }
)


def test_small_category_is_flagged_and_kept_in_the_max_by_default(audit: Audit) -> None:
    out = audit(SMALL, ["race"], y_pred="hired", min_share=0.1)
    assert out["race"].to_list() == ["A", "B", "C", None]
    assert out["n"].to_list() == [10, 8, 1, 2]
    assert out["share"].to_list() == pytest.approx([10 / 21, 8 / 21, 1 / 21, 2 / 21])
    assert out["small_category"].to_list() == [False, False, True, True]  # 1/21, 2/21 < 0.1
    # the unknown row is excluded; the small C (rate 1.0) is the most selected category
    assert out["excluded"].to_list() == [False, False, False, True]
    assert out["impact_ratio"].to_list() == [0.5, 0.25, 1.0, None]
    assert out["unknown_category"].to_list() == [False, False, False, True]
    assert out["unknown_rows"].to_list() == [2] * 4


def test_excluding_small_categories_changes_the_max(audit: Audit) -> None:
    out = audit(SMALL, ["race"], y_pred="hired", min_share=0.1, exclude_small=True)
    # C excluded: the highest rate is A's 0.5, so A = 1, B = 0.25 / 0.5; C and unknown are null
    assert out["excluded"].to_list() == [False, False, True, True]
    assert out["impact_ratio"].to_list() == [1.0, 0.5, None, None]
    # rows are never hidden, their rates are still reported
    assert out["selection_rate"].to_list() == [0.5, 0.25, 1.0, 1.0]


def test_unknown_rows_counted_per_attribute_set_and_in_the_intersection(audit: Audit) -> None:
    df = pl.DataFrame(
        {
            "sex": ["M", "M", "F", "F", None, "F", None],
            "race": ["A", None, "A", "B", "A", None, None],
            "hired": [1, 0, 1, 0, 1, 1, 0],
        }
    )
    out = audit(df, ["sex", "race"], y_pred="hired")
    sex = out.filter(pl.col("attributes") == ["sex"])
    race = out.filter(pl.col("attributes") == ["race"])
    both = out.filter(pl.col("attributes") == ["sex", "race"])
    # sex unknown in 2 rows, race unknown in 3 rows, any unknown in 4 rows (rows 2, 5, 6, 7)
    assert sex["unknown_rows"].unique().to_list() == [2]
    assert race["unknown_rows"].unique().to_list() == [3]
    assert both["unknown_rows"].unique().to_list() == [4]
    # the unknown categories are rows of their own, null keyed, excluded
    assert sex["sex"].to_list() == ["F", "M", None]
    assert sex["n"].to_list() == [3, 2, 2]
    assert sex["excluded"].to_list() == [False, False, True]
    # F: 2/3, M: 1/2 -> max 2/3; F = 1, M = 0.75
    assert sex["impact_ratio"].to_list() == pytest.approx([1.0, 0.75, None])
    assert both.select("sex", "race").rows() == [
        ("F", "A"), ("F", "B"), ("F", None), ("M", "A"), ("M", None), (None, "A"), (None, None)
    ]
    assert both["unknown_category"].to_list() == [False, False, True, False, True, True, True]
    assert both["impact_ratio"].to_list() == [1.0, 0.0, None, 1.0, None, None, None]


def test_scoring_rate_splits_at_the_sample_median_by_hand(audit: Audit) -> None:
    scores = [0.1, 0.4, 0.5, 0.5, 0.7, 0.9, 0.2, 0.8]
    df = pl.DataFrame({"sex": ["F", "F", "F", "F", "M", "M", None, "M"], "score": scores})
    median = float(np.median(scores))  # 8 scores: mean of 0.5 and 0.5 -> 0.5
    assert median == 0.5
    out = audit(df, ["sex"], y_score="score")
    assert out["median_score"].to_list() == [median] * 3
    # strictly above 0.5: F has none of 0.1, 0.4, 0.5, 0.5; M has 0.7, 0.9, 0.8; unknown none
    assert out["sex"].to_list() == ["F", "M", None]
    assert out["scored_above_median"].to_list() == [0, 3, 0]
    assert out["scoring_rate"].to_list() == [0.0, 1.0, 0.0]
    assert out["impact_ratio"].to_list() == [0.0, 1.0, None]


def test_scoring_median_of_an_even_sample_is_the_mean_of_the_middle_two(audit: Audit) -> None:
    scores = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0]
    df = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b"], "s": scores})
    out = audit(df, "g", y_score="s")
    median = float(np.median(scores))  # (3 + 4) / 2
    assert out["median_score"][0] == median == 3.5
    # a: 4 above (1 of 3); b: 5, 9 above (2 of 3)
    assert out["scored_above_median"].to_list() == [1, 2]
    assert out["scoring_rate"].to_list() == pytest.approx([1 / 3, 2 / 3])
    assert out["impact_ratio"].to_list() == pytest.approx([0.5, 1.0])


def test_weighted_selection_and_weighted_median(audit: Audit) -> None:
    df = pl.DataFrame(
        {"g": ["a", "a", "b", "b"], "hired": [1, 0, 1, 0], "s": [1.0, 2.0, 3.0, 4.0],
         "w": [3.0, 1.0, 1.0, 1.0]}
    )
    out = audit(df, "g", y_pred="hired", sample_weight="w")
    # a: 3 of 4 weight selected, b: 1 of 2
    assert out["n"].to_list() == [2, 2]
    assert out["weight_sum"].to_list() == [4.0, 2.0]
    assert out["selected"].to_list() == [3.0, 1.0]
    assert out["selection_rate"].to_list() == [0.75, 0.5]
    assert out["impact_ratio"].to_list() == pytest.approx([1.0, 0.5 / 0.75])
    assert out["share"].to_list() == [0.5, 0.5]  # row shares
    # integer weights: the weighted median is numpy's median of the repeated rows
    repeated = np.repeat(df["s"].to_numpy(), df["w"].cast(pl.Int64).to_numpy())
    median = float(np.median(repeated))  # [1, 1, 1, 2, 3, 4] -> 1.5
    scored = audit(df, "g", y_score="s", sample_weight="w")
    assert scored["median_score"][0] == median == 1.5
    assert scored["scored_above_median"].to_list() == [1.0, 2.0]
    assert scored["scoring_rate"].to_list() == [0.25, 1.0]


def test_no_one_selected_gives_null_impact_ratios(audit: Audit) -> None:
    out = audit(HIRING.with_columns(hired=pl.lit(0)), ["sex"], y_pred="hired")
    assert out["selection_rate"].to_list() == [0.0, 0.0]
    assert out["impact_ratio"].to_list() == [None, None]


def test_string_and_boolean_predictions_with_pos_label(audit: Audit) -> None:
    words = HIRING.with_columns(
        hired=pl.when(pl.col("hired") == 1).then(pl.lit("yes")).otherwise(pl.lit("no")))
    flags = HIRING.with_columns(pl.col("hired").cast(pl.Boolean))
    base = audit(HIRING, ["sex", "race"], y_pred="hired")
    assert_frame_equal(audit(words, ["sex", "race"], y_pred="hired", pos_label="yes"), base)
    assert_frame_equal(audit(flags, ["sex", "race"], y_pred="hired", pos_label=True), base)
    # an expression as category and prediction
    expr = audit(HIRING, [pl.col("sex").alias("gender")], y_pred=pl.col("hired") == 1,
                 pos_label=True)
    assert expr["gender"].to_list() == ["F", "M"]
    assert expr["selected"].to_list() == [1, 3]


def test_rows_are_scanned_once(tmp_path: Path) -> None:
    path = tmp_path / "hiring.csv"
    HIRING.with_columns(s=pl.col("hired") * 1.5).write_csv(path)
    cases: list[dict[str, Any]] = [{"y_pred": "hired"}, {"y_score": "s"}]
    for kw in cases:
        plan = bias_audit(pl.scan_csv(path), ["sex", "race"], **kw).explain()
        assert plan.count("SCAN") == 1
        assert plan.count("AGGREGATE") == 1  # the roll-ups run on the small table


# ---------------------------------------------------------------------------------------------
# eager / lazy / streaming


def test_eager_lazy_and_streaming_results_identical() -> None:
    rng = np.random.default_rng(7)
    n = 5_000
    df = pl.DataFrame(
        {
            "sex": rng.choice(["F", "M", "X"], n, p=[0.49, 0.49, 0.02]).tolist(),
            "race": rng.choice(["a", "b", "c", "d"], n).tolist(),
            "hired": rng.integers(0, 2, n),
            "score": rng.integers(0, 100, n) / 10,
            "w": rng.uniform(0.5, 2.0, n),
        }
    ).with_columns(sex=pl.when(pl.int_range(pl.len()) % 97 == 0).then(None).otherwise("sex"))
    cases: list[dict[str, Any]] = [
        {"y_pred": "hired"},
        {"y_pred": "hired", "sample_weight": "w", "exclude_small": True},
        {"y_score": "score"},
        {"y_score": "score", "sample_weight": "w", "min_share": 0.05, "exclude_small": True},
    ]
    for kw in cases:
        lazy = bias_audit(df.lazy(), ["sex", "race"], **kw)
        in_memory = lazy.collect()
        streaming = lazy.collect(engine="streaming")
        assert_frame_equal(in_memory, streaming)
        method = getattr(polars_fair.fair(df), "bias_audit", None)
        if method is not None:
            assert_frame_equal(method(["sex", "race"], **kw), in_memory)


# ---------------------------------------------------------------------------------------------
# errors


def test_schema_errors_raise_when_the_plan_is_built() -> None:
    lf = HIRING.lazy()
    with pytest.raises(E.ColumnNotFoundError) as info:
        bias_audit(lf, ["sex", "ethnicity"], y_pred="hired")
    assert str(info.value) == E.MISSING_COLUMN.format(
        column="ethnicity", role="categories", available="['sex', 'race', 'hired']"
    )
    with pytest.raises(E.ColumnNotFoundError) as info:
        bias_audit(lf, ["sex"], y_score="score")
    assert str(info.value) == E.MISSING_COLUMN.format(
        column="score", role="y_score", available="['sex', 'race', 'hired']"
    )
    with pytest.raises(E.InvalidArgumentError, match="exactly one of y_pred"):
        bias_audit(lf, ["sex"])
    with pytest.raises(E.InvalidArgumentError, match="exactly one of y_pred"):
        bias_audit(lf, ["sex"], y_pred="hired", y_score="hired")
    with pytest.raises(E.InvalidArgumentError, match="at least one category"):
        bias_audit(lf, [], y_pred="hired")
    with pytest.raises(E.InvalidArgumentError, match="min_share must lie in"):
        bias_audit(lf, ["sex"], y_pred="hired", min_share=2)
    with pytest.raises(E.InvalidArgumentError, match="clash with output columns"):
        bias_audit(lf, [pl.col("sex").alias("share")], y_pred="hired")
    with pytest.raises(E.InvalidLabelError) as label:
        bias_audit(lf, ["sex"], y_pred="hired", pos_label="yes")
    assert str(label.value) == E.POS_LABEL_DTYPE.format(
        pos_label="yes", pos_type="str", column="hired", dtype=pl.Int64,
        example=", for example pos_label=1")
    with pytest.raises(E.InvalidScoreError) as score:
        bias_audit(lf, ["race"], y_score="sex")
    assert str(score.value) == E.NOT_NUMERIC.format(column="sex", role="y_score", dtype=pl.String)


def _raises_at_collect(lf: pl.LazyFrame, error: type[Exception], message: str) -> None:
    for engine in ("in-memory", "streaming"):
        with pytest.raises(error) as info:
            lf.collect(engine=engine)
        assert str(info.value) == message


def test_null_predictions_raise_at_collect() -> None:
    lf = HIRING.lazy().with_columns(
        hired=pl.when(pl.int_range(pl.len()) < 3).then(None).otherwise(pl.col("hired"))
    )
    plan = bias_audit(lf, ["sex", "race"], y_pred="hired")  # builds: no data read yet
    _raises_at_collect(plan, E.NullValuesError,
                       E.NULL_LABELS.format(column="hired", role="y_pred", count=3))


def test_non_binary_prediction_raises_at_collect() -> None:
    lf = HIRING.lazy().with_columns(hired=pl.Series([1, 0, 2, 1, 0, 2, 3, 0, 1, 3]))
    plan = bias_audit(lf, ["sex"], y_pred="hired")  # M: 0, 2 besides 1; F: 0, 3
    # the advice names every value found, 1 included: the classes of a per-class audit
    _raises_at_collect(plan, E.InvalidLabelError, E.TOO_MANY_CLASSES.format(
        column="hired", role="y_pred", pos_label=1, values="[0, 2, 3]",
        classes="[0, 1, 2, 3]"))


def test_bad_scores_raise_at_collect_with_counts() -> None:
    lf = HIRING.lazy().with_columns(
        s=pl.Series([0.1, None, float("nan"), float("inf"), -float("inf"), 0.2, 0.3, 0.4, None,
                     1.0])
    )
    plan = bias_audit(lf, ["sex"], y_score="s")
    _raises_at_collect(plan, E.InvalidScoreError,
                       E.BAD_SCORES.format(column="s", nulls=2, nans=1, infinite=2))


def test_bad_weights_raise_at_collect() -> None:
    lf = HIRING.lazy().with_columns(w=pl.Series([1.0, None, float("nan"), -2.0] + [1.0] * 6))
    plan = bias_audit(lf, ["sex"], y_pred="hired", sample_weight="w")
    _raises_at_collect(plan, E.InvalidWeightError,
                       E.BAD_WEIGHTS.format(column="w", nulls=1, nans=1, negatives=1))


def test_empty_frame_raises_at_collect() -> None:
    cases: list[dict[str, Any]] = [{"y_pred": "hired"}, {"y_score": "hired"}]
    for kw in cases:
        plan = bias_audit(HIRING.lazy().head(0), ["sex", "race"], **kw)
        _raises_at_collect(plan, E.EmptyFrameError, E.EMPTY_FRAME.format(detail=""))


def test_errors_survive_further_lazy_steps() -> None:
    lf = HIRING.lazy().with_columns(hired=pl.lit(None, dtype=pl.Int64))
    plan = bias_audit(lf, ["sex"], y_pred="hired").filter(pl.col("n") > 0).select("impact_ratio")
    with pytest.raises(E.NullValuesError):
        plan.collect()


# ---------------------------------------------------------------------------------------------
# properties


@st.composite
def applicants(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(1, 80))
    df = pl.DataFrame(
        {
            "sex": draw(st.lists(st.sampled_from(["F", "M", None]), min_size=n, max_size=n)),
            "race": draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=n, max_size=n)),
            "hired": draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)),
            "score": draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)),
            "w": draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)),
        },
        schema={"sex": pl.String(), "race": pl.String(), "hired": pl.Int64(), "score": pl.Float64(),
                "w": pl.Int64()},
    )
    assume(not one_row_groups(df, "sex", "race"))  # refused at any size (issue 20)
    return df


def _set(out: pl.DataFrame, *attrs: str) -> pl.DataFrame:
    return out.filter(pl.col("attributes") == list(attrs))


@SETTINGS
@given(applicants(), st.booleans())
def test_intersection_summed_over_one_attribute_equals_that_attributes_counts(
    df: pl.DataFrame, scoring: bool
) -> None:
    kw: dict[str, Any] = {"y_score": "score"} if scoring else {"y_pred": "hired"}
    out = bias_audit(df.lazy(), ["sex", "race"], **kw).collect()
    both = _set(out, "sex", "race")
    outcome = "scored_above_median" if scoring else "selected"
    for attr in ("sex", "race"):
        alone = _set(out, attr).select(attr, "n", outcome)
        summed = both.group_by(attr).agg(pl.col("n", outcome).sum()).sort(attr, nulls_last=True)
        assert_frame_equal(alone, summed)
        assert alone["n"].sum() == df.height
        assert _set(out, attr)["share"].sum() == pytest.approx(1.0)


@SETTINGS
@given(applicants(), st.booleans(), st.booleans(), st.sampled_from([0.0, 0.05, 0.2]))
def test_impact_ratios_in_unit_interval_with_max_exactly_one_among_non_excluded(
    df: pl.DataFrame, scoring: bool, exclude_small: bool, min_share: float
) -> None:
    kw: dict[str, Any] = {"y_score": "score"} if scoring else {"y_pred": "hired"}
    out = bias_audit(df.lazy(), ["sex", "race"], min_share=min_share,
                     exclude_small=exclude_small, **kw).collect()
    rate = "scoring_rate" if scoring else "selection_rate"
    for attrs in (["sex"], ["race"], ["sex", "race"]):
        s = _set(out, *attrs)
        assert s.filter(pl.col("excluded"))["impact_ratio"].null_count() == s["excluded"].sum()
        kept = s.filter(~pl.col("excluded"))
        ir = kept["impact_ratio"].drop_nulls()
        assert ((ir >= 0) & (ir <= 1)).all()
        if kept.height and kept[rate].max() > 0:  # type: ignore[operator]
            assert ir.max() == 1.0
            assert ir.null_count() == 0 and ir.len() == kept.height
        else:
            assert kept["impact_ratio"].null_count() == kept.height  # 0 / 0 is undefined
        # unknown categories are always excluded; small ones exactly when asked
        unknown = pl.any_horizontal([pl.col(a).is_null() for a in attrs])
        assert s["unknown_category"].to_list() == s.select(unknown).to_series().to_list()
        expect = s["unknown_category"] | (s["small_category"] & exclude_small)
        assert s["excluded"].to_list() == expect.to_list()
        assert s["unknown_rows"].unique().to_list() == [s.filter(unknown)["n"].sum()]


@SETTINGS
@given(applicants())
def test_scoring_rate_counts_rows_strictly_above_numpy_median(df: pl.DataFrame) -> None:
    out = bias_audit(df.lazy(), ["race"], y_score="score").collect()
    scores = df["score"].to_numpy()
    median = float(np.median(scores))
    assert out["median_score"].unique().to_list() == [median]
    race = np.array(df["race"].to_list(), dtype=object)
    for row in out.iter_rows(named=True):
        m = np.array([r == row["race"] for r in race])
        assert row["n"] == m.sum()
        assert row["scored_above_median"] == (m & (scores > median)).sum()


@SETTINGS
@given(applicants())
def test_weighted_median_with_integer_weights_equals_numpy_median_of_repeated_rows(
    df: pl.DataFrame,
) -> None:
    weights = df["w"].to_numpy()
    repeated = np.repeat(df["score"].to_numpy(), weights)
    out = bias_audit(df.lazy(), ["sex"], y_score="score", sample_weight="w").collect()
    if repeated.size == 0:  # zero total weight: no median, no rates
        assert out["median_score"].null_count() == out.height
        assert out["scoring_rate"].null_count() == out.height
        return
    median = float(np.median(repeated))
    assert out["median_score"].unique().to_list() == [median]
    assert out["scored_above_median"].sum() == float((repeated > median).sum())


# ---------------------------------------------------------------------------------------------
# Adult


@pytest.mark.data
def test_adult_race_by_sex_matches_numpy() -> None:
    lf = pl.scan_csv(require(ADULT_CSV))
    selected = (pl.col("income-per-year") == ">50K").alias("high_income")
    out = bias_audit(lf, ["race", "sex"], y_pred=selected, pos_label=True,
                     exclude_small=True).collect()
    df = lf.select("race", "sex", "income-per-year").collect()
    race = df["race"].to_numpy()
    sex = df["sex"].to_numpy()
    y = (df["income-per-year"] == ">50K").to_numpy()
    total = len(y)
    assert total == 32_561
    for attrs in (["race"], ["sex"], ["race", "sex"]):
        cols = {"race": race, "sex": sex}
        s = _set(out, *attrs)
        levels = sorted({tuple(cols[a][i] for a in attrs) for i in range(total)})
        assert s.select(attrs).rows() == levels
        ref = []
        for level in levels:
            m = np.ones(total, dtype=bool)
            for a, v in zip(attrs, level, strict=True):
                m &= cols[a] == v
            ref.append((int(m.sum()), int((m & y).sum())))
        n = np.array([r[0] for r in ref])
        sel = np.array([r[1] for r in ref])
        rate = sel / n
        small = n / total < 0.02
        ir = rate / rate[~small].max()
        assert s["n"].to_list() == n.tolist()
        assert s["selected"].to_list() == sel.tolist()
        np.testing.assert_allclose(s["selection_rate"].to_numpy(), rate, rtol=1e-12)
        assert s["small_category"].to_list() == small.tolist()
        got = s["impact_ratio"].to_numpy()
        np.testing.assert_allclose(got[~small], ir[~small], rtol=1e-12)
        assert s["impact_ratio"].filter(pl.Series(small)).null_count() == small.sum()
        assert s["unknown_rows"].to_list() == [0] * len(levels)
    # Amer-Indian-Eskimo (311 rows) and Other (271) are under 2% of 32,561
    race_set = _set(out, "race")
    assert race_set.filter("small_category")["race"].to_list() == ["Amer-Indian-Eskimo", "Other"]


def test_enum_categories_sort_in_category_order_and_keep_their_dtype(audit: Audit) -> None:
    race = pl.Enum(["White", "Black", "Asian"])
    df = pl.DataFrame(
        {"race": pl.Series(["Asian", "White", None, "Black", "White"], dtype=race),
         "hired": [1, 1, 0, 0, 1]}
    )
    out = audit(df, ["race"], y_pred="hired")
    assert out.schema["race"] == race
    assert out["race"].to_list() == ["White", "Black", "Asian", None]
    assert out["impact_ratio"].to_list() == [1.0, 0.0, 1.0, None]


def test_float_category_with_many_levels_raises_at_collect() -> None:
    n = 120
    df = pl.DataFrame({"age": [18 + i * 0.5 for i in range(n)],
                       "hired": [i % 2 for i in range(n)]})
    plan = bias_audit(df.lazy(), ["age"], y_pred="hired")
    with pytest.raises(E.TooManyLevelsError,
                       match=r"attribute 'age' is a Float64 column with 120 distinct values"):
        plan.collect()


# ---------------------------------------------------------------------------------------------
# the count and score tables: the audit reads what every analysis reads


def test_a_count_table_from_anywhere_is_audited_by_hand() -> None:
    # a count table as SQL gives it, with labels: only the predictions are read (tp + fp)
    table = pl.DataFrame({"sex": ["F", "M", None], "n": [4, 6, 1], "tp": [1, 2, 0],
                          "fp": [0, 1, 1], "fn": [2, 1, 0], "tn": [1, 2, 0]})
    out = polars_fair.from_counts(table).bias_audit().collect()
    assert out["attributes"].to_list() == [["sex"]] * 3
    assert out["sex"].to_list() == ["F", "M", None]
    # F selects 1 of 4, M 3 of 6 (the most selected), the unknown 1 of 1 (excluded)
    assert out["selected"].to_list() == [1, 3, 1]
    assert out["selection_rate"].to_list() == [0.25, 0.5, 1.0]
    assert out["impact_ratio"].to_list() == [0.5, 1.0, None]
    assert out["share"].to_list() == [4 / 11, 6 / 11, 1 / 11]
    assert out["excluded"].to_list() == [False, False, True]
    assert out["unknown_rows"].to_list() == [1, 1, 1]
    direct = bias_audit_from_counts(table.lazy(), ["sex"]).collect()
    assert_frame_equal(direct, out)


def test_a_score_table_from_anywhere_is_audited_by_hand() -> None:
    # scores 1, 2, 3, 4 with 1 + 1 + 1 + 1 rows (labels split them): median (2 + 3) / 2 = 2.5
    table = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [1.0, 3.0, 2.0, 4.0],
                          "positives": [1, 0, 0, 1], "negatives": [0, 1, 1, 0]})
    out = polars_fair.from_scores(table).bias_audit().collect()
    assert out["median_score"].to_list() == [2.5, 2.5]
    # a: 3 above of 2 rows; b: 4 above of 2 rows
    assert out["n"].to_list() == [2, 2]
    assert out["scored_above_median"].to_list() == [1, 1]
    assert out["scoring_rate"].to_list() == [0.5, 0.5]
    assert out["impact_ratio"].to_list() == [1.0, 1.0]
    assert_frame_equal(bias_audit_from_scores(table.lazy(), ["g"]).collect(), out)


def test_a_weighted_score_table_needs_its_row_counts() -> None:
    table = pl.LazyFrame({"g": ["a"], "score": [0.5], "positives": [1.5], "negatives": [0.0]})
    with pytest.raises(E.ColumnNotFoundError) as info:
        bias_audit_from_scores(table, ["g"])
    assert str(info.value) == E.MISSING_COLUMN.format(
        column="n_rows", role="a weighted score table (Float64 positives/negatives)",
        available="['g', 'score', 'positives', 'negatives']")
    with_rows = table.with_columns(n_rows=pl.lit(3, dtype=pl.Int64))
    out = bias_audit_from_scores(with_rows, ["g"]).collect()
    assert out.select("n", "weight_sum", "scored_above_median").row(0) == (3, 1.5, 0.0)


def test_share_is_the_correctly_rounded_quotient(audit: Audit) -> None:
    # 7 / 10 is 0.7; multiplying by the inverse (7 * 0.1) would give 0.7000000000000001
    out = audit(HIRING, ["sex", "race"], y_pred="hired")
    assert out.filter(pl.col("race") == "A", pl.col("sex").is_null())["share"].item() == 0.7
    totals = out.group_by("attributes").agg(pl.col("n").sum().alias("total"))
    joined = out.join(totals, on="attributes")
    assert all(s == n / t for s, n, t in joined.select("share", "n", "total").rows())


def test_three_attributes_give_each_alone_and_the_full_intersection() -> None:
    df = HIRING.with_columns(age=pl.Series(["young", "old"] * 5))
    out = bias_audit(df.lazy(), ["sex", "race", "age"], y_pred="hired").collect()
    sets = out["attributes"].unique(maintain_order=True).to_list()
    assert sets == [["sex"], ["race"], ["age"], ["sex", "race", "age"]]
    assert sets == ll144_sets(["sex", "race", "age"])
    # combinations="all" on the count table adds the pairs; every set audited as if alone
    every = polars_fair.counts(df, ["sex", "race", "age"], y_true=None, y_pred="hired")
    all_sets = every.bias_audit(combinations="all").collect()
    assert all_sets["attributes"].unique(maintain_order=True).to_list() == [
        ["sex"], ["race"], ["age"], ["sex", "race"], ["sex", "age"], ["race", "age"],
        ["sex", "race", "age"]]
    pair = bias_audit(df.lazy(), ["sex", "race"], y_pred="hired").collect()
    assert_frame_equal(
        _set(all_sets, "sex", "race").drop("age"), _set(pair, "sex", "race"))
    # a count table made with combinations= is audited set by set as well
    stacked = polars_fair.counts(df, ["sex", "race", "age"], y_true=None, y_pred="hired",
                                 combinations="all")
    assert_frame_equal(stacked.bias_audit().collect(), all_sets)


def test_enum_categories_without_applicants_are_not_reported() -> None:
    race = pl.Enum(["White", "Black", "Asian"])
    df = pl.DataFrame({"race": pl.Series(["White", "Black", "White"], dtype=race),
                       "hired": [1, 0, 0]})
    # the count table completes the declared categories (Asian, n = 0) ...
    counted = polars_fair.counts(df, "race", y_true=None, y_pred="hired")
    assert counted.frame.collect()["n"].to_list() == [2, 1, 0]
    # ... the audit reports the categories that have applicants, as before
    out = counted.bias_audit().collect()
    assert out["race"].to_list() == ["White", "Black"]
    assert out["impact_ratio"].to_list() == [1.0, 0.0]


def test_prediction_errors_are_those_of_every_analysis() -> None:
    df = HIRING.with_columns(hired=pl.Series([0.2, 0.7, 1.0, 0.2, 0.7, 1.0, 0.2, 0.7, 1.0, 0.2]))
    plan = bias_audit(df.lazy(), ["sex"], y_pred="hired")
    message = E.LOOKS_LIKE_SCORES.format(column="hired", role="y_pred", low=0.2, high=0.7,
                                         pos_label=1)
    _raises_at_collect(plan, E.InvalidLabelError, message)
    confusion = polars_fair.counts(df, "sex", y_true=None, y_pred="hired").confusion()
    _raises_at_collect(confusion, E.InvalidLabelError, message)
    nan = HIRING.with_columns(hired=pl.Series([1.0, float("nan")] + [0.0] * 8))
    _raises_at_collect(bias_audit(nan.lazy(), ["sex"], y_pred="hired"), E.NullValuesError,
                       E.NAN_LABELS.format(column="hired", role="y_pred", count=1))


def test_frame_level_argument_errors_name_categories() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        bias_audit(HIRING.lazy(), ["sex", pl.col("race").alias("sex")], y_pred="hired")
    assert str(info.value) == "categories has repeated attribute names: ['sex', 'sex']"
    with pytest.raises(E.InvalidArgumentError, match="clash with output columns"):
        polars_fair.from_counts(pl.DataFrame({"attributes": ["a"], "n": [1], "tp": [0],
                                              "fp": [1], "fn": [0], "tn": [0]})).bias_audit()


@st.composite
def labelled(draw: st.DrawFn) -> pl.DataFrame:
    df = draw(applicants())
    return df.with_columns(
        y=pl.Series(draw(st.lists(st.integers(0, 1), min_size=df.height, max_size=df.height))))


@SETTINGS
@given(labelled(), st.booleans(), st.booleans())
def test_tables_with_labels_give_the_audit_of_the_outcomes_alone(
    df: pl.DataFrame, scoring: bool, weighted: bool
) -> None:
    # a count table with pos_label in neither column is an error of every labelled analysis
    assume(scoring or (df["y"] == 1).any() or (df["hired"] == 1).any())
    weight: dict[str, Any] = {"sample_weight": "w"} if weighted else {}
    if scoring:
        table: Any = polars_fair.scores(df, ["sex", "race"], y_true="y", y_score="score",
                                        **weight)
        expected = bias_audit(df.lazy(), ["sex", "race"], y_score="score", **weight)
    else:
        table = polars_fair.counts(df, ["sex", "race"], y_true="y", y_pred="hired", **weight)
        expected = bias_audit(df.lazy(), ["sex", "race"], y_pred="hired", **weight)
    assert_frame_equal(table.bias_audit().collect(), expected.collect())


# ---------------------------------------------------------------------------------------------
# Spark: the same counting boundary, the same audit





SPARK_CASES: list[dict[str, Any]] = [
    {"y_pred": "hired"},
    {"y_pred": "hired", "sample_weight": "w", "min_share": 0.1, "exclude_small": True},
    {"y_score": "score"},
    {"y_score": "score", "sample_weight": "w"},
]


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")
def test_spark_audit_equals_polars(spark: Any) -> None:
    import polars_fair.spark as pfs

    rng = np.random.default_rng(3)
    n = 400
    df = pl.DataFrame({
        "sex": rng.choice(np.array(["F", "M", "X", None], dtype=object), n,
                          p=[0.48, 0.48, 0.02, 0.02]).tolist(),
        "race": rng.choice(np.array(["a", "b", "c", None], dtype=object), n,
                           p=[0.5, 0.3, 0.15, 0.05]).tolist(),
        "hired": rng.integers(0, 2, n),
        "score": rng.integers(0, 40, n) / 8,
        "w": rng.integers(1, 4, n) * 0.5,
    })
    sdf = spark.createDataFrame(df.to_arrow())
    for kw in SPARK_CASES:
        want = polars_fair.fair(df).bias_audit(["sex", "race"], **kw)
        assert_frame_equal(pfs.bias_audit(sdf, ["sex", "race"], **kw), want)
    # the rows' entry point takes the Spark frame itself (engine_of dispatches it)
    assert_frame_equal(bias_audit(sdf, ["sex", "race"], y_pred="hired").collect(),
                       polars_fair.fair(df).bias_audit(["sex", "race"], y_pred="hired"))
    # the errors read as in Polars
    calls: list[Callable[[Any], pl.LazyFrame]] = [
        lambda f: bias_audit(f, ["sex", "ethnicity"], y_pred="hired"),
        lambda f: bias_audit(f, ["sex"], y_pred="hired", pos_label="yes"),
    ]
    for call in calls:
        with pytest.raises(E.PolarsFairError) as polars_error:
            call(df.lazy())
        with pytest.raises(type(polars_error.value)) as spark_error:
            call(sdf)
        assert str(spark_error.value) == str(polars_error.value)


def test_spark_shortcut_is_the_audit_of_the_rows() -> None:
    import polars_fair.spark as pfs

    assert pfs.__all__.count("bias_audit") == 1
    assert list(inspect.signature(pfs.bias_audit).parameters)[:2] == ["spark_df", "categories"]


def test_duckdb_audit_equals_polars() -> None:
    duckdb = pytest.importorskip("duckdb")
    df = HIRING.with_columns(score=pl.Series([0.1, 0.5, 0.3, 0.9, 0.9, 0.2, 0.4, 0.4, 0.7, 0.1]),
                             w=pl.Series([1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 1.0, 0.5, 1.0, 1.0]),
                             race=pl.when(pl.int_range(pl.len()) == 4).then(None)
                             .otherwise(pl.col("race")))
    con = duckdb.connect()
    try:
        relation = con.from_arrow(df.to_arrow())
        for kw in SPARK_CASES:
            want = polars_fair.fair(df).bias_audit(["sex", "race"], **kw)
            assert_frame_equal(bias_audit(relation, ["sex", "race"], **kw).collect(), want)
        with pytest.raises(E.ColumnNotFoundError) as info:
            bias_audit(relation, ["sex", "ethnicity"], y_pred="hired")
        assert str(info.value) == E.MISSING_COLUMN.format(
            column="ethnicity", role="categories",
            available="['sex', 'race', 'hired', 'score', 'w']")
    finally:
        con.close()
