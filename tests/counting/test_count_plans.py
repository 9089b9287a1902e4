"""The fast paths equal the general paths bit for bit (issue 13, items 3 and 4).

* the report's decisions on integer counts (``report._decide_counts``: whole columns, Int128
  cross-multiplication) against the per-row exact fractions (``_Rules.decide_rows``);
* the count plan that sums y, p and y*p per key (``boundary.sums_table``) against the general
  label table grouped by (keys, y, p), on random frames with Int/Bool/float labels, nulls,
  out-of-domain values and weights; every input error must be the same error with the same
  message.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import polars as pl
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from polars_fair.analyses import report as report_module
from polars_fair.analyses.report import _decide_counts, _decide_ints, _Rules

FLOATS = ("disparate_impact", "impact_ratio", "ofi")


def bits(df: pl.DataFrame) -> pl.DataFrame:
    """Float columns as their IEEE bit patterns, so that -0.0 != 0.0 and every ulp counts."""
    return df.with_columns(pl.col(c).reinterpret(signed=True) for c in FLOATS if c in df.columns)


def framed(
    cells: list[tuple[int, int, int, int]], ref: int | None, in_max: list[bool],
) -> pl.DataFrame:
    """A report table as ``decide`` receives it (the decision columns still empty)."""
    tp, fp, fn, tn = (list(c) for c in zip(*cells, strict=True))
    return pl.DataFrame({
        "g": [f"g{i}" for i in range(len(cells))],
        "n": [sum(c) for c in cells], "tp": tp, "fp": fp, "fn": fn, "tn": tn,
        "is_reference": [i == ref for i in range(len(cells))],
        "__pf_in_max": in_max,
        "disparate_impact": pl.Series([None] * len(cells), dtype=pl.Float64),
        "impact_ratio": pl.Series([None] * len(cells), dtype=pl.Float64),
        "adverse_impact": pl.Series([None] * len(cells), dtype=pl.Boolean),
        "ofi": pl.Series([None] * len(cells), dtype=pl.Float64),
        "ofi_flag": pl.Series([None] * len(cells), dtype=pl.Boolean),
        "low_support": pl.Series([None] * len(cells), dtype=pl.Boolean),
        "reference_low_support": pl.Series([None] * len(cells), dtype=pl.Boolean),
        "finding": pl.Series([None] * len(cells), dtype=pl.String),
    }, schema_overrides={c: pl.Int64 for c in ("n", "tp", "fp", "fn", "tn")})


# ------------------------------------------------------------------ the report's decisions
def test_decisions_on_a_hand_worked_table() -> None:
    # a: 4 rows, 2 selected (1/2), mb = (1-1)/4 = 0; b: 5 rows, 1 selected (1/5), mb = (0-2)/5
    # reference a (largest? no: chosen here), top = a: IR_b = (1/5)/(1/2) = 2/5 < 4/5 adverse;
    # DI_b = 2/5 fails; OFI_b = -2/5 - 0 = -0.4, |OFI| > 0.3 flagged: algorithmic
    df = framed([(1, 1, 1, 1), (1, 0, 2, 2)], ref=0, in_max=[True, True])
    rules = _Rules(1, 0.3, 0.8, overall=False)
    out = _decide_counts(df, rules)
    assert out is not None
    assert out["impact_ratio"].to_list() == [1.0, 0.4]
    assert out["disparate_impact"].to_list() == [1.0, 0.4]
    assert out["ofi"].to_list() == [0.0, -0.4]
    assert out["adverse_impact"].to_list() == [False, True]
    assert out["ofi_flag"].to_list() == [False, True]
    assert out["finding"].to_list() == ["none", "algorithmic"]


def test_an_impact_ratio_of_exactly_four_fifths_is_not_adverse_on_the_column_path() -> None:
    # 4/10 against 5/10: exactly 4/5, which passes the four-fifths rule (the float 0.8 would too,
    # but 0.4 / 0.5 in floats is 0.8000000000000002: the exact path must not read that)
    df = framed([(5, 0, 0, 5), (4, 0, 0, 6)], ref=0, in_max=[True, True])
    out = _decide_counts(df, _Rules(1, 0.3, 0.8, overall=False))
    assert out is not None
    assert out["adverse_impact"].to_list() == [False, False]
    assert out["impact_ratio"].to_list() == [1.0, 0.8]


def test_counts_too_large_for_int128_products_are_decided_by_python_integers() -> None:
    big = 2**62
    df = framed([(big, big // 2, 0, 0), (1, 0, 0, 1)], ref=0, in_max=[True, True])
    rules = _Rules(1, 0.3, 0.8, overall=False)
    assert _decide_counts(df, rules) is None
    assert bits(_decide_ints(df, rules)).equals(bits(rules.decide_rows(df)))


cells = st.tuples(*[st.integers(0, 60)] * 4) | st.tuples(*[st.integers(0, 2**40)] * 4)
decimals = st.sampled_from([0.8, 0.75, 0.3, 0.5, 0.1, 0.999, 0.2, 1.0, 0.05])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    table=st.lists(cells, min_size=1, max_size=8),
    ref=st.integers(-1, 8),
    in_max=st.lists(st.booleans(), min_size=8, max_size=8),
    min_support=st.sampled_from([0, 1, 5, 30, 30.5, 2**38]),
    ofi=st.sampled_from([0.3, 0.0, 0.25, 1.0, 2.0]),
    four_fifths=decimals,
    overall=st.booleans(),
    zero_row=st.booleans(),
)
def test_integer_decisions_equal_fraction_decisions_bit_for_bit(
    table: list[tuple[int, int, int, int]], ref: int, in_max: list[bool], min_support: Any,
    ofi: float, four_fifths: float, overall: bool, zero_row: bool,
) -> None:
    if zero_row:  # a group with no rows: every rate undefined
        table = [*table, (0, 0, 0, 0)]
    assume(len(table) <= 8)
    df = framed(table, None if overall or ref < 0 or ref >= len(table) else ref,
                in_max[: len(table)])
    rules = _Rules(min_support, ofi, four_fifths, overall=overall)
    fast = _decide_counts(df, rules)
    assume(fast is not None)  # out of Int128's safe range the row path decides alone
    assert fast is not None
    slow = rules.decide_rows(df)
    assert bits(fast).equals(bits(slow))
    assert fast.schema == slow.schema
    few = _decide_ints(df, rules)
    assert bits(few).equals(bits(slow))
    assert few.schema == slow.schema


def test_the_row_path_is_the_exact_fraction_reading() -> None:
    # the reference the column path is compared with: Fractions, by hand for one row
    df = framed([(2, 1, 0, 3), (1, 1, 1, 0)], ref=0, in_max=[True, True])
    out = _Rules(1, 0.3, 0.8, overall=False).decide_rows(df)
    # sr = 3/6 and 2/3: top is row 1; IR_0 = (1/2)/(2/3) = 3/4 < 4/5
    assert out["impact_ratio"].to_list() == [float(Fraction(3, 4)), 1.0]
    assert out["adverse_impact"].to_list() == [True, False]
    assert report_module.FINDINGS[1] == "systemic"


# ------------------------------------------------------------------ the count plans
def plans(df: pl.DataFrame, by: Any, **args: Any) -> tuple[Any, Any]:
    """(fast, general): each the count table, or the error it raised (type and message)."""
    from polars_fair.core.spec import resolve
    from polars_fair.counting import boundary

    def run(fast: bool) -> Any:
        lf = df.lazy()
        try:
            a = resolve(lf.collect_schema(), by, **args)
            if fast:
                assert boundary.sums_plan(a)
                out = boundary.counts_from_sums(lf, a)
            else:
                out = boundary.counts_from_labels(boundary.label_table(lf, a), a)
            return out.collect()
        except Exception as exc:  # noqa: BLE001 - the error itself is compared
            return (type(exc).__name__, str(exc))

    return run(True), run(False)


def test_sums_plan_is_chosen_from_the_schema() -> None:
    from polars_fair.core.spec import resolve
    from polars_fair.counting import boundary

    schema = pl.Schema({"g": pl.String, "f": pl.Float64, "y_true": pl.Int8,
                        "y_pred": pl.Boolean, "yf": pl.Float64, "w": pl.Float64,
                        "s": pl.Float32})
    assert boundary.sums_plan(resolve(schema, "g"))
    assert boundary.sums_plan(resolve(schema, "g", y_true=None))
    assert boundary.sums_plan(resolve(schema, "g", y_pred=None, y_score="s", threshold=0.5))
    assert not boundary.sums_plan(resolve(schema, "g", sample_weight="w"))  # float sums
    assert not boundary.sums_plan(resolve(schema, "f"))  # NaN and null keys merge later
    assert not boundary.sums_plan(resolve(schema, "g", y_true="yf"))
    assert not boundary.sums_plan(resolve(schema, "g", pos_label=0))


def test_sums_plan_on_a_hand_counted_frame() -> None:
    # a: (y, p) = (1,1), (0,1), (0,0) -> tp 1, fp 1, fn 0, tn 1; b: (1,0), (1,1) -> tp 1, fn 1
    df = pl.DataFrame({"g": ["a", "a", "a", "b", "b"], "y_true": [1, 0, 0, 1, 1],
                       "y_pred": [True, True, False, False, True]})
    fast, general = plans(df, "g")
    assert fast.rows() == [("a", 3, 1, 1, 0, 1), ("b", 2, 1, 0, 1, 0)]
    assert fast.equals(general)


def test_minus_one_one_labels_fall_back_to_the_label_table() -> None:
    # -1/1 labels are valid (negative -1) but not 0/1: the general plan counts them
    df = pl.DataFrame({"g": ["a", "a", "b"], "y_true": [1, -1, -1], "y_pred": [1, 1, -1]})
    fast, general = plans(df, "g")
    assert fast.rows() == [("a", 2, 1, 1, 0, 0), ("b", 1, 0, 0, 0, 1)]
    assert fast.equals(general)


def test_unexpected_values_are_listed_as_found_by_either_plan() -> None:
    # each label value on two rows (values each on one row are hidden: the attributes' rule)
    df = pl.DataFrame({"g": ["a", "a", "b"] * 2, "y_true": [1, 0, 2] * 2,
                       "y_pred": [1, 1, 0] * 2})
    fast, general = plans(df, "g")
    assert fast == general
    assert fast[0] == "InvalidLabelError"
    assert "[0, 2]" in fast[1]


label_values = st.sampled_from([0, 1]) | st.sampled_from([None, -1, 2, 1, 0])


@st.composite
def frames(draw: st.DrawFn) -> tuple[pl.DataFrame, dict[str, Any]]:
    rows = draw(st.integers(0, 30))
    ys = draw(st.lists(label_values, min_size=rows, max_size=rows))
    ps = draw(st.lists(label_values, min_size=rows, max_size=rows))
    clean = draw(st.booleans())  # half the frames hold only 0/1: the fast plan's own ground
    if clean:
        ys = [v if v in (0, 1) else 1 for v in ys]
        ps = [v if v in (0, 1) else 0 for v in ps]
    kind = draw(st.sampled_from(["Int8", "Int64", "UInt8", "Boolean", "mixed"]))
    if kind in ("Boolean", "mixed"):
        assume(all(v in (0, 1, None) for v in ys + ps))
    ydt = {"Int8": pl.Int8, "Int64": pl.Int64, "UInt8": pl.UInt8, "Boolean": pl.Boolean,
           "mixed": pl.Boolean}[kind]
    pdt = pl.Int16 if kind == "mixed" else ydt
    if ydt == pl.UInt8:
        assume(all(v is None or v >= 0 for v in ys + ps))
    cast = (lambda v: None if v is None else bool(v)) if ydt == pl.Boolean else (lambda v: v)
    df = pl.DataFrame({
        "g": draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=rows,
                           max_size=rows)),
        "h": draw(st.lists(st.integers(0, 2), min_size=rows, max_size=rows)),
        "y_true": pl.Series([cast(v) for v in ys], dtype=ydt),
        "y_pred": pl.Series(ps, dtype=pdt) if kind == "mixed" else
        pl.Series([cast(v) for v in ps], dtype=pdt),
        "s": draw(st.lists(st.sampled_from([0.1, 0.7, 0.5, None, float("nan")]), min_size=rows,
                           max_size=rows)),
    }, schema_overrides={"s": pl.Float64})
    args: dict[str, Any] = draw(st.sampled_from([
        {}, {"y_true": None}, {"null_groups": "drop"}, {"null_groups": "raise"},
        {"y_pred": None, "y_score": "s", "threshold": 0.5},
    ]))
    return df, args


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.filter_too_much])
@given(case=frames(), by=st.sampled_from([["g"], ["g", "h"], [], "h"]))
def test_sums_plan_equals_label_plan_bit_for_bit_with_the_same_errors(
    case: tuple[pl.DataFrame, dict[str, Any]], by: Any,
) -> None:
    import warnings

    df, args = case
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fast, general = plans(df, by, **args)
    if isinstance(general, tuple):
        assert fast == general
    else:
        assert isinstance(fast, pl.DataFrame)
        assert fast.schema == general.schema
        assert fast.equals(general)
    # a null_groups="drop" warning is given once by each plan, with the same words
    messages = [str(w.message) for w in caught]
    assert messages[: len(messages) // 2] == messages[len(messages) // 2:]


# ------------------------------------------------------------------ the score tables
def score_plans(df: pl.DataFrame, by: Any, **args: Any) -> tuple[Any, Any]:
    """(sorted, hashed): each the score table, or the error it raised (type and message)."""
    from polars_fair.core.spec import resolve
    from polars_fair.counting import boundary

    def run(fast: bool) -> Any:
        lf = df.lazy()
        try:
            a = resolve(lf.collect_schema(), by, scores=True, **args)
            if fast:
                assert boundary.sorted_scores_plan(a)
                out = boundary.scores_by_sorting(lf, a)
            else:
                out = boundary.scores_from_labels(boundary.score_label_table(lf, a), a)
            return out.collect()
        except Exception as exc:  # noqa: BLE001 - the error itself is compared
            return (type(exc).__name__, str(exc))

    return run(True), run(False)


def test_sorted_score_table_on_a_hand_counted_frame() -> None:
    # a: 0.2 (y=0), 0.2 (y=1), 0.9 (y=1) -> (0.2: 1 pos, 1 neg), (0.9: 1, 0); b: 0.2 (y=1)
    df = pl.DataFrame({"g": ["a", "a", "b", "a"], "y_true": [0, 1, 1, 1],
                       "y_score": [0.2, 0.9, 0.2, 0.2]})
    fast, general = score_plans(df, "g", y_score="y_score")
    assert fast.rows() == [("a", 0.2, 1, 1), ("a", 0.9, 1, 0), ("b", 0.2, 1, 0)]
    assert fast.equals(general)


scores = st.sampled_from([0.1, 0.25, 0.5, 0.9, 1e-300, 0.0, 0.7]) | st.floats(0, 1) | \
    st.sampled_from([None, float("nan"), float("inf"), -0.0])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.integers(0, 25), data=st.data(),
    kind=st.sampled_from(["Int8", "Boolean", "none"]), f32=st.booleans(),
    by=st.sampled_from([["g"], ["g", "h"], []]),
    null_groups=st.sampled_from(["keep", "drop", "raise"]),
)
def test_sorted_score_table_equals_hashed_score_table_bit_for_bit(
    rows: int, data: st.DataObject, kind: str, f32: bool, by: Any, null_groups: str,
) -> None:
    import warnings

    ys = data.draw(st.lists(st.sampled_from([0, 1, 1, None, 2]), min_size=rows, max_size=rows))
    if data.draw(st.booleans()):  # half the frames hold only 0/1 labels and finite scores
        ys = [1 if v is None or v == 2 else v for v in ys]
        ss = data.draw(st.lists(st.floats(0, 1) | st.sampled_from([0.5, 0.25]), min_size=rows,
                                max_size=rows))
    else:
        ss = data.draw(st.lists(scores, min_size=rows, max_size=rows))
    df = pl.DataFrame({
        "g": data.draw(st.lists(st.sampled_from(["a", "b", None]), min_size=rows,
                                max_size=rows)),
        "h": data.draw(st.lists(st.integers(0, 2), min_size=rows, max_size=rows)),
        "y_true": pl.Series(ys, dtype=pl.Int8) if kind != "Boolean" else
        pl.Series([None if v is None else bool(v) for v in ys], dtype=pl.Boolean),
        "y_score": pl.Series(ss, dtype=pl.Float32 if f32 else pl.Float64),
    })
    assume(kind != "Boolean" or 2 not in ys)
    args: dict[str, Any] = {"y_score": "y_score", "null_groups": null_groups}
    if kind == "none":
        args["y_true"] = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fast, general = score_plans(df, by, **args)
    if isinstance(general, tuple):
        assert fast == general
    else:
        assert isinstance(fast, pl.DataFrame)
        assert fast.schema == general.schema
        assert fast.with_columns(pl.col("score").reinterpret(signed=True)).equals(
            general.with_columns(pl.col("score").reinterpret(signed=True)))
    messages = [str(w.message) for w in caught]
    assert messages[: len(messages) // 2] == messages[len(messages) // 2:]
