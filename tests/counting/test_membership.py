"""The membership table (issue 24): one scan over the wide rows, checked against the numpy
reference in ``tests/membership_reference.py`` and hand computations."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_fair import errors as E
from polars_fair.core.spec import resolve
from polars_fair.counting.membership import (
    TOLERANCE,
    membership_from_labels,
    membership_label_table,
    parse_membership,
    sum_columns,
)
from tests.membership_reference import membership_sums

GROUPS = {"a": "p0", "b": "p1", "c": "p2"}


def _frame(seed: int, n: int = 300) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([0.5, 1.0, 2.0], n)
    return pl.DataFrame({
        "g": rng.choice(["x", "y"], n), "y_true": rng.integers(0, 2, n),
        "y_pred": rng.integers(0, 2, n), "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2],
        "w": rng.integers(1, 5, n).astype(float),
    })


def _table(df: pl.DataFrame, by: list[str], membership: dict, **args: object) -> pl.DataFrame:
    normalize = bool(args.pop("normalize", False))
    m = parse_membership(membership, normalize=normalize)
    assert m is not None
    a = resolve(df.schema, by, **args)  # type: ignore[arg-type]
    scan = membership_label_table(df.lazy(), m, a).collect()
    return membership_from_labels(scan, m, a)


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("by", [[], ["g"]])
def test_the_scan_equals_the_numpy_reference(weight: str | None, by: list[str]) -> None:
    df = _frame(1)
    got = _table(df, by, {"race": GROUPS}, sample_weight=weight)
    want = membership_sums(df, by, list(GROUPS), list(GROUPS.values()), "y_true", "y_pred",
                           weight)
    assert got.columns == [*by, "__pf_argmax", "y_true", "y_pred", *sum_columns(3)]
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12)


def test_the_scan_without_labels_equals_the_reference() -> None:
    df = _frame(2)
    got = _table(df, ["g"], {"race": GROUPS}, y_true=None)
    want = membership_sums(df, ["g"], list(GROUPS), list(GROUPS.values()), None, "y_pred", None)
    assert_frame_equal(got, want, check_exact=False, rel_tol=1e-12)


def test_a_two_row_table_by_hand() -> None:
    # row 1: p = (0.25, 0.75), y = 1, w = 2; row 2: p = (1, 0), y = 0, w = 3
    df = pl.DataFrame({"y_true": [1, 0], "y_pred": [1, 1], "pa": [0.25, 1.0],
                       "pb": [0.75, 0.0], "w": [2.0, 3.0]})
    out = _table(df, [], {"g": {"a": "pa", "b": "pb"}}, sample_weight="w")
    rows = {r["__pf_argmax"]: r for r in out.to_dicts()}
    one = rows[1]  # argmax b
    assert (one["n"], one["w"], one["w2"], one["c_0"], one["c_1"]) == (1, 2.0, 4.0, 1, 1)
    assert (one["s_0"], one["s_1"]) == (2 * 0.25, 2 * 0.75)
    assert (one["g_0_0"], one["g_0_1"], one["g_1_1"]) == (2 * 0.0625, 2 * 0.1875, 2 * 0.5625)
    assert (one["h_0_0"], one["h_1_1"]) == (4 * 0.0625, 4 * 0.5625)
    assert one["t_0_0_1"] == 4 * 0.25 * 0.25 * 0.75
    assert one["u_0_1_1_1"] == 4 * 0.25 * 0.75 ** 3
    zero = rows[0]
    assert (zero["y_true"], zero["c_1"], zero["s_0"], zero["h_0_0"]) == (0, 0, 3.0, 9.0)


def test_ties_go_to_the_group_declared_first() -> None:
    df = pl.DataFrame({"y_true": [1], "y_pred": [1], "pa": [0.5], "pb": [0.5]})
    assert _table(df, [], {"g": {"b": "pb", "a": "pa"}})["__pf_argmax"].to_list() == [0]
    assert _table(df, [], {"g": {"a": "pa", "b": "pb"}})["__pf_argmax"].to_list() == [0]


def test_normalize_divides_each_row_by_its_sum() -> None:
    df = pl.DataFrame({"y_true": [1], "y_pred": [1], "pa": [1.0], "pb": [3.0]})
    out = _table(df, [], {"g": {"a": "pa", "b": "pb"}}, normalize=True)
    assert (out["s_0"].item(), out["s_1"].item(), out["__pf_argmax"].item()) == (0.25, 0.75, 1)


def _raises(df: pl.DataFrame, error: type[Exception], message: str, **args: object) -> None:
    with pytest.raises(error) as info:
        _table(df, [], {"g": {"a": "pa", "b": "pb"}}, **args)
    assert str(info.value) == message


def test_each_violation_is_a_typed_error_naming_the_columns_and_counting_rows() -> None:
    base = {"y_true": [1, 0, 1], "y_pred": [1, 1, 0]}
    cols = "['pa', 'pb']"
    nan = pl.DataFrame({**base, "pa": [float("nan"), 0.5, 0.5], "pb": [0.5, 0.5, float("inf")]})
    _raises(nan, E.InvalidMembershipError, E.MEMBERSHIP_NOT_FINITE.format(
        attribute="g", count=2, columns=cols))
    out = pl.DataFrame({**base, "pa": [1.5, 0.5, 0.5], "pb": [-0.5, 0.5, 0.5]})
    _raises(out, E.InvalidMembershipError, E.MEMBERSHIP_RANGE.format(
        attribute="g", range="[0, 1]", count=1, columns=cols, advice=E.MEMBERSHIP_RANGE_ADVICE))
    _raises(out, E.InvalidMembershipError, E.MEMBERSHIP_RANGE.format(
        attribute="g", range="[0, inf)", count=1, columns="['pb']", advice=""),
        normalize=True)  # no advice to pass normalize=True when it was passed (issue 24 review)
    off = pl.DataFrame({**base, "pa": [0.5, 0.5, 0.5], "pb": [0.5, 0.5 + 2 * TOLERANCE, 0.4]})
    _raises(off, E.InvalidMembershipError, E.MEMBERSHIP_SUM.format(
        attribute="g", count=2, columns=cols, tolerance=TOLERANCE))
    within = pl.DataFrame({**base, "pa": [0.5, 0.5, 0.5], "pb": [0.5, 0.5 + TOLERANCE / 2, 0.5]})
    assert _table(within, [], {"g": {"a": "pa", "b": "pb"}})["n"].sum() == 3
    zero = pl.DataFrame({**base, "pa": [0.0, 0.5, 0.5], "pb": [0.0, 0.5, 2.0]})
    _raises(zero, E.InvalidMembershipError, E.MEMBERSHIP_ZERO_SUM.format(
        attribute="g", count=1, columns=cols), normalize=True)


def test_null_probabilities_follow_null_groups() -> None:
    df = pl.DataFrame({"y_true": [1, 0, 1], "y_pred": [1, 1, 0], "pa": [None, 0.5, 0.5],
                       "pb": [0.5, 0.5, 0.5]})
    _raises(df, E.NullGroupError, E.MEMBERSHIP_NULLS.format(
        attribute="g", count=1, columns="['pa']"), null_groups="raise")
    kept = _table(df, [], {"g": {"a": "pa", "b": "pb"}})
    missing = kept.filter(pl.col("__pf_argmax").is_null())
    assert (missing["n"].item(), missing["w"].item(), missing["s_0"].item(),
            missing["c_1"].item()) == (1, 1.0, 0.0, 0)
    with pytest.warns(UserWarning, match="dropped 1 row"):
        dropped = _table(df, [], {"g": {"a": "pa", "b": "pb"}}, null_groups="drop")
    assert dropped["n"].sum() == 2 and dropped["__pf_argmax"].null_count() == 0


def test_a_non_numeric_probability_column_is_refused_before_reading() -> None:
    from polars_fair.counting.membership import resolve_membership

    schema = pl.Schema({"y_true": pl.Int8, "y_pred": pl.Int8, "pa": pl.String,
                        "pb": pl.Float64})
    m = parse_membership({"g": {"a": "pa", "b": "pb"}})
    assert m is not None
    with pytest.raises(E.InvalidMembershipError) as info:
        resolve_membership(schema, m, resolve(schema, None))
    assert str(info.value) == E.MEMBERSHIP_NOT_NUMERIC.format(attribute="g", columns="['pa']")


def test_a_membership_of_one_group_is_refused() -> None:
    # issue 24 re-review, item 1: one group compares nothing (on the CLI, most often a typo)
    with pytest.raises(E.InvalidArgumentError) as info:
        parse_membership({"g": {"a": "pa"}})
    assert str(info.value) == (
        "membership['g'] lists one group ('a'): an audit compares groups, so map every group "
        "to its probability column, in the shape {'g': {'a': 'p_1', 'other': 'p_2'}}")
    df = pl.DataFrame({"pa": [1.0], "y_pred": [1]})
    with pytest.raises(E.InvalidArgumentError, match=r"membership\['g'\] lists one group"):
        df.fair.report(membership={"g": {"a": "pa"}}, y_true=None)


def test_membership_arguments_are_checked() -> None:
    with pytest.raises(E.InvalidArgumentError, match="one attribute per call, got 2"):
        parse_membership({"g": {"a": "pa"}, "h": {"b": "pb"}})
    with pytest.raises(E.InvalidArgumentError) as info:
        parse_membership({"g": {"a": "pa"}}, "mean")
    assert str(info.value) == E.MEMBERSHIP_ESTIMATOR.format(value="mean")
    with pytest.raises(E.InvalidArgumentError) as info:
        parse_membership(None, "argmax")
    assert str(info.value) == E.MEMBERSHIP_NEEDS_MEMBERSHIP.format(
        name="membership_estimator", value="argmax")


def test_the_advice_of_membership_errors_works() -> None:
    """The advice of MEMBERSHIP_RANGE, MEMBERSHIP_SUM, MEMBERSHIP_NULLS and
    MEMBERSHIP_ONE_ATTRIBUTE, followed."""
    import polars_fair

    df = pl.DataFrame({"y_true": [1, 0], "y_pred": [1, 1], "pa": [1.0, None], "pb": [3.0, 0.5]})
    one = {"g": {"a": "pa", "b": "pb"}}
    halves = df.drop_nulls().with_columns(pl.col("pa", "pb") / 8)  # summing to 1/2
    for data in (df.drop_nulls(), halves):  # outside [0, 1]; not summing to 1
        with pytest.raises(E.InvalidMembershipError, match="pass normalize=True"):
            polars_fair.counts(data, membership=one).frame.collect()
        ok = polars_fair.counts(data, membership=one, normalize=True).frame.collect()
        assert ok["weight_sum"].to_list() == [0.25, 0.75]
    with pytest.raises(E.NullGroupError, match="Pass null_groups='keep'"):
        polars_fair.counts(df, membership=one, normalize=True, null_groups="raise").frame.collect()
    kept = polars_fair.counts(df, membership=one, normalize=True, null_groups="keep")
    assert kept.frame.collect()["g"].to_list() == ["a", "b", None]
    with pytest.warns(UserWarning, match="dropped 1 row"):
        dropped = polars_fair.counts(df, membership=one, normalize=True, null_groups="drop")
        assert dropped.frame.collect()["g"].to_list() == ["a", "b"]
    two = {"g": {"a": "pa", "b": "pb"}, "h": {"x": "pb", "y": "pa"}}  # two groups each
    with pytest.raises(E.InvalidArgumentError, match="audit each one in its own call"):
        polars_fair.counts(df, membership=two)
    for name, groups in two.items():  # each one in its own call
        table = polars_fair.counts(df.drop_nulls(), membership={name: groups},
                                   normalize=True).frame.collect()
        assert table[name].to_list() == list(groups)


def test_group_keys_of_mixed_types_are_a_typed_error_naming_membership() -> None:
    # {1: ..., "b": ...} formerly raised a builtin TypeError from Series construction
    df = pl.DataFrame({"p_a": [0.5], "p_b": [0.5], "y_pred": [1]})
    with pytest.raises(E.InvalidArgumentError, match=r"membership\['g'\].*share one type"):
        df.fair.report(membership={"g": {1: "p_a", "b": "p_b"}}, y_true=None, y_pred="y_pred")
    # issue 24 re-review, item 3: groups equal as text (1 and '1') formerly escaped the check
    # and raised Polars' TypeError; the groups shown as given: [1, '1']
    want = ("membership['g']: its group values must share one type (all strings or all "
            "numbers); got [1, '1']")
    for call in (lambda m: df.fair.report(membership=m, y_true=None),
                 lambda m: df.with_columns(k=pl.lit("1")).fair.membership_calibration(
                     membership=m, known="k")):
        with pytest.raises(E.InvalidArgumentError) as info:
            call({"g": {1: "p_a", "1": "p_b"}})
        assert str(info.value) == want
