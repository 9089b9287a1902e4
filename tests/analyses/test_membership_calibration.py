"""The calibration check of estimated membership (issue 24 item 4).

Expected values come from a frame worked by hand (below) and from scikit-learn's
``calibration_curve`` (test-only) on a seeded simulation.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E
from polars_fair.counting.membership import TOLERANCE
from tests.conftest import Runner

MEMBERSHIP = {"race": {"A": "p_a", "B": "p_b", "C": "p_c"}}

# Six people, three groups, bins=2 (edges 0, 0.5, 1; a probability of exactly 0.5 is in bin 0).
HAND = pl.DataFrame({
    "p_a": [0.6, 0.7, 0.2, 0.1, 0.5, 0.3],
    "p_b": [0.3, 0.2, 0.5, 0.1, 0.25, 0.3],
    "p_c": [0.1, 0.1, 0.3, 0.8, 0.25, 0.4],
    "self": ["A", "B", "B", "C", "A", None],
})
# Worked by hand over the five rows with a known group (n_known = 5 of 6 rows):
# A: bin 0 holds p_a 0.2 (B), 0.1 (C), 0.5 (A): n 3, mean 0.8/3, observed 1/3, gap 0.2/3;
#    bin 1 holds 0.6 (A), 0.7 (B): n 2, mean 0.65, observed 0.5, gap 0.15;
#    ECE = 3/5 * 0.2/3 + 2/5 * 0.15 = 0.10, MCE 0.15.
# B: every p_b <= 0.5: bin 0 n 5, mean 1.35/5 = 0.27, observed 2/5, gap 0.13; bin 1 empty;
#    ECE = MCE = 0.13.
# C: bin 0 holds 0.1 (A), 0.1 (B), 0.3 (B), 0.25 (A): n 4, mean 0.1875, observed 0, gap 0.1875;
#    bin 1 holds 0.8 (C): n 1, mean 0.8, observed 1, gap 0.2; ECE = 4/5 * 0.1875 + 1/5 * 0.2
#    = 0.19, MCE 0.2.
# classwise ECE = (0.10 + 0.13 + 0.19) / 3 = 0.14.
HAND_BINS = [
    ("A", 0, 0.0, 0.5, 3, 0.8 / 3, 1 / 3),
    ("A", 1, 0.5, 1.0, 2, 0.65, 0.5),
    ("B", 0, 0.0, 0.5, 5, 0.27, 0.4),
    ("B", 1, 0.5, 1.0, 0, None, None),
    ("C", 0, 0.0, 0.5, 4, 0.1875, 0.0),
    ("C", 1, 0.5, 1.0, 1, 0.8, 1.0),
]
HAND_GROUPS = {"A": (0.10, 0.15), "B": (0.13, 0.13), "C": (0.19, 0.2)}


def _close(got: object, want: object) -> bool:
    if want is None or got is None:
        return got is want
    if isinstance(want, float):
        assert isinstance(got, float)
        return abs(got - want) < 1e-12
    return got == want


def test_hand_worked_frame_on_every_way_a_frame_arrives(run: Runner) -> None:
    out = run(HAND, "membership_calibration", membership=MEMBERSHIP, known="self", bins=2)
    assert out.columns == ["race", "bin", "bin_low", "bin_high", "n", "mean_probability",
                           "observed_share", "n_known", "share_known", "ece",
                           "max_calibration_error", "classwise_ece"]
    assert out.dtypes == [pl.String, pl.Int64, pl.Float64, pl.Float64, pl.Int64, pl.Float64,
                          pl.Float64, pl.Int64, pl.Float64, pl.Float64, pl.Float64, pl.Float64]
    rows = out.select("race", "bin", "bin_low", "bin_high", "n", "mean_probability",
                      "observed_share").rows()
    assert len(rows) == len(HAND_BINS)
    for got, want in zip(rows, HAND_BINS, strict=True):
        assert all(_close(g, w) for g, w in zip(got, want, strict=True)), (got, want)
    for row in out.iter_rows(named=True):
        ece, mce = HAND_GROUPS[row["race"]]
        assert row["ece"] == pytest.approx(ece, abs=1e-12)
        assert row["max_calibration_error"] == pytest.approx(mce, abs=1e-12)
        assert row["classwise_ece"] == pytest.approx(0.14, abs=1e-12)
        assert row["n_known"] == 5
        assert row["share_known"] == pytest.approx(5 / 6, abs=1e-15)


def test_groups_are_sorted_by_value_as_in_the_membership_count_table() -> None:
    membership = {"race": {"C": "p_c", "A": "p_a", "B": "p_b"}}
    out = HAND.fair.membership_calibration(membership=membership, known="self", bins=2)
    assert out["race"].to_list() == ["A", "A", "B", "B", "C", "C"]
    numbers = HAND.with_columns(pl.col("self").replace({"A": "10", "B": "9", "C": "1"}))
    out = numbers.fair.membership_calibration(
        membership={"race": {10: "p_a", 9: "p_b", 1: "p_c"}}, known="self", bins=2)
    assert out["race"].dtype == pl.Int64  # the group values' dtype; compared with known as text
    assert out["race"].to_list() == [1, 1, 9, 9, 10, 10]
    assert out.filter(pl.col("race") == 10)["n"].to_list() == [3, 2]  # group A's bins


def test_function_form_equals_the_namespace() -> None:
    lazy = polars_fair.membership_calibration(HAND.lazy(), membership=MEMBERSHIP, known="self",
                                              bins=2)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(
        HAND.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2))


def test_the_rows_are_read_by_one_group_by() -> None:
    plan = HAND.lazy().fair.membership_calibration(membership=MEMBERSHIP, known="self").explain()
    assert plan.count("AGGREGATE") == 1


def _simulation(seed: int, n: int = 20_000) -> tuple[pl.DataFrame, np.ndarray]:
    """Dirichlet memberships; the known group drawn from a distorted p; 30% unknown."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([0.6, 0.9, 1.5], size=n)
    distorted = p ** 1.6 / (p ** 1.6).sum(axis=1, keepdims=True)  # miscalibrated on purpose
    truth = (rng.random(n)[:, None] > np.cumsum(distorted, axis=1)).sum(axis=1)
    known = np.array(["A", "B", "C"], dtype=object)[truth]
    known[rng.random(n) < 0.3] = None
    df = pl.DataFrame({"p_a": p[:, 0], "p_b": p[:, 1], "p_c": p[:, 2],
                       "self": pl.Series(known.tolist(), dtype=pl.String)})
    return df, p


@pytest.mark.parametrize("bins", [5, 10, 17])
def test_reliability_equals_sklearn_calibration_curve_on_a_simulation(bins: int) -> None:
    from sklearn.calibration import calibration_curve

    df, p = _simulation(7)
    out = df.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=bins)
    mask = df["self"].is_not_null().to_numpy()
    known = df["self"].to_numpy()[mask]
    for k, group in enumerate("ABC"):
        y = (known == group).astype(int)
        prob_true, prob_pred = calibration_curve(y, p[mask, k], n_bins=bins,
                                                 strategy="uniform")
        ours = out.filter((pl.col("race") == group) & (pl.col("n") > 0))
        np.testing.assert_allclose(ours["observed_share"].to_numpy(), prob_true, atol=1e-12)
        np.testing.assert_allclose(ours["mean_probability"].to_numpy(), prob_pred, atol=1e-12)
        # ECE from sklearn's bins: the same right-closed bins, weighted by their counts
        counts = np.bincount(np.searchsorted(np.linspace(0, 1, bins + 1)[1:-1], p[mask, k]),
                             minlength=bins)
        ece = float(np.sum(counts[counts > 0] / mask.sum() * np.abs(prob_true - prob_pred)))
        assert ours["ece"][0] == pytest.approx(ece, abs=1e-12)
        assert ours["n"].sum() == mask.sum()
    assert out["classwise_ece"][0] == pytest.approx(
        out.unique("race")["ece"].mean(), abs=1e-15)
    assert out["share_known"][0] == pytest.approx(mask.mean(), abs=1e-15)
    assert out["classwise_ece"][0] > 0.02  # the distortion shows


def test_integer_weights_equal_repeated_rows() -> None:
    weights = [2, 1, 3, 1, 2, 4]
    weighted = HAND.with_columns(w=pl.Series(weights, dtype=pl.Int64)).fair.membership_calibration(
        membership=MEMBERSHIP, known="self", bins=2, sample_weight="w")
    repeated = HAND.select(pl.all().repeat_by(pl.Series(weights)).explode())
    plain = repeated.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2)
    assert weighted["n"].dtype == pl.Float64
    assert weighted["n"].to_list() == plain["n"].cast(pl.Float64).to_list()
    for column in ("mean_probability", "observed_share", "ece", "classwise_ece"):
        np.testing.assert_allclose(weighted[column].to_numpy().astype(float),
                                   plain[column].to_numpy().astype(float), atol=1e-12)
    # n_known and share_known count rows, not weights: 5 of the 6 rows
    assert weighted["n_known"][0] == 5
    assert weighted["share_known"][0] == pytest.approx(5 / 6)


def test_normalize_divides_each_row_by_its_sum() -> None:
    doubled = HAND.with_columns(pl.col("p_a", "p_b", "p_c") * 0.5)
    with pytest.raises(E.InvalidMembershipError) as info:
        doubled.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2)
    assert str(info.value) == E.MEMBERSHIP_SUM.format(
        attribute="race", count=6, columns="['p_a', 'p_b', 'p_c']", tolerance=TOLERANCE)
    out = doubled.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2,
                                              normalize=True)
    base = HAND.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2)
    assert out["n"].to_list() == base["n"].to_list()
    np.testing.assert_allclose(out["ece"].to_numpy(), base["ece"].to_numpy(), atol=1e-12)


def test_known_values_outside_the_groups_name_the_column_and_count_rows() -> None:
    df = HAND.with_columns(pl.Series("self", ["A", "X", "B", "X", "Y", None]))
    with pytest.raises(E.UnknownGroupError) as info:
        df.fair.membership_calibration(membership=MEMBERSHIP, known="self")
    assert str(info.value) == E.KNOWN_OUTSIDE_GROUPS.format(
        column="self", count=3, attribute="race", groups="['A', 'B', 'C']",
        values="['X', 'Y']", counts="[2, 1]")


@pytest.mark.parametrize("count", [8, 3])
def test_many_known_values_outside_the_groups_are_counted_never_shown(count: int) -> None:
    # a column of (made-up) names given as known by mistake: 8 distinct values outside the
    # groups A, B, C, so the message gives counts only (the rule of a label's values,
    # counting.boundary.MIN_LEVELS_PER_ROW_CHECK), never a name; and (issue 20) a filter
    # leaving three people: three values of one row each (counting.boundary.MIN_LEVELS_ALL_SINGLE)
    names = [f"Jane Madeup{i}" for i in range(count)]
    df = pl.DataFrame({"p_a": [0.5] * count, "p_b": [0.25] * count, "p_c": [0.25] * count,
                       "self": names})
    with pytest.raises(E.UnknownGroupError) as info:
        df.fair.membership_calibration(membership=MEMBERSHIP, known="self")
    assert str(info.value) == E.KNOWN_OUTSIDE_GROUPS_HIDDEN.format(
        column="self", count=count, attribute="race", groups="['A', 'B', 'C']", levels=count)
    assert "Madeup" not in str(info.value)


def test_compas_names_as_known_never_print_a_name() -> None:
    # the review's case: COMPAS's name column as known; the names are read only to assert
    # that none appears in the message
    from tests.conftest import COMPAS_CSV, require
    raw = pl.read_csv(require(COMPAS_CSV), columns=["name"])
    df = raw.with_columns(p_a=pl.lit(0.5), p_b=pl.lit(0.25), p_c=pl.lit(0.25))
    with pytest.raises(E.UnknownGroupError) as info:
        df.fair.membership_calibration(membership=MEMBERSHIP, known="name")
    message = str(info.value)
    assert "not shown" in message
    assert not any(n in message for n in raw["name"].unique().to_list())


@pytest.mark.parametrize("value", [1.5, -0.1])
def test_probabilities_outside_0_1_are_refused_with_their_count(value: float) -> None:
    df = HAND.with_columns(pl.Series("p_b", [0.3, 0.2, value, 0.1, 0.25, 0.3]))
    with pytest.raises(E.InvalidMembershipError) as info:
        df.fair.membership_calibration(membership=MEMBERSHIP, known="self")
    assert str(info.value) == E.MEMBERSHIP_RANGE.format(attribute="race", range="[0, 1]",
                                                        count=1, columns="['p_b']",
                                                        advice=E.MEMBERSHIP_RANGE_ADVICE)


def test_nan_probabilities_are_refused() -> None:
    df = HAND.with_columns(pl.Series("p_b", [0.3, 0.2, float("nan"), 0.1, 0.25, 0.3]))
    with pytest.raises(E.InvalidMembershipError) as info:
        df.fair.membership_calibration(membership=MEMBERSHIP, known="self")
    assert str(info.value) == E.MEMBERSHIP_NOT_FINITE.format(attribute="race", count=1,
                                                             columns="['p_b']")


def test_null_probabilities_follow_null_groups() -> None:
    # rows 2 and 6 lose their probabilities: row 2 (known B) leaves the reliability table
    df = HAND.with_columns(pl.Series("p_c", [0.1, None, 0.3, 0.8, 0.25, None]))
    with pytest.raises(E.NullGroupError) as info:
        df.fair.membership_calibration(membership=MEMBERSHIP, known="self",
                                       null_groups="raise")
    assert str(info.value) == E.MEMBERSHIP_NULLS.format(attribute="race", count=2,
                                                        columns="['p_c']")
    kept = df.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2)
    without = HAND.filter(pl.int_range(pl.len()) != 1).fair.membership_calibration(
        membership=MEMBERSHIP, known="self", bins=2)
    assert kept.drop("share_known").equals(without.drop("share_known"))
    assert kept["n_known"][0] == 4
    assert kept["share_known"][0] == pytest.approx(4 / 6)  # both rows stay in the denominator
    with pytest.warns(UserWarning, match="dropped 2 row"):
        dropped = df.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2,
                                                 null_groups="drop")
    assert dropped["share_known"][0] == pytest.approx(1.0)  # 4 of the 4 rows left


def test_bad_weights_are_refused_with_their_counts() -> None:
    df = HAND.with_columns(pl.Series("w", [1.0, -1.0, None, 1.0, float("inf"), 1.0]))
    with pytest.raises(E.InvalidWeightError) as info:
        df.fair.membership_calibration(membership=MEMBERSHIP, known="self", sample_weight="w")
    assert str(info.value) == E.BAD_WEIGHTS.format(column="w", nulls=1, nans=1, negatives=1)


def test_argument_errors_before_any_work() -> None:
    lf = HAND.lazy().fair
    with pytest.raises(E.InvalidArgumentError) as one:
        lf.membership_calibration(membership={"race": {"A": "p_a", "B": "p_b"},
                                              "sex": {"F": "p_a", "M": "p_b"}}, known="self")
    assert str(one.value) == E.MEMBERSHIP_ONE_ATTRIBUTE.format(count=2,
                                                               names="['race', 'sex']")
    with pytest.raises(E.InvalidArgumentError, match="distinct non-null"):
        lf.membership_calibration(membership={"race": {}}, known="self")
    with pytest.raises(E.InvalidArgumentError, match="must map one attribute"):
        lf.membership_calibration(membership=["p_a", "p_b"], known="self")
    with pytest.raises(E.ColumnNotFoundError, match="'p_z' \\(membership\\) not found"):
        lf.membership_calibration(membership={"race": {"A": "p_a", "B": "p_z"}}, known="self")
    with pytest.raises(E.ColumnNotFoundError, match="'nope' \\(known\\) not found"):
        lf.membership_calibration(membership=MEMBERSHIP, known="nope")
    with pytest.raises(E.InvalidMembershipError, match="not numeric"):
        lf.membership_calibration(membership={"race": {"A": "p_a", "B": "self"}}, known="self")
    with pytest.raises(E.InvalidArgumentError, match="bins must be an integer >= 1"):
        lf.membership_calibration(membership=MEMBERSHIP, known="self", bins=0)
    with pytest.raises(E.SizeLimitError) as limit:
        lf.membership_calibration(membership=MEMBERSHIP, known="self", bins=101)
    assert str(limit.value) == ("bins=101 is more than its limit 100 (one sum per group and "
                                "bin in the scan); pass a smaller bins")
    # far above both bins limits: membership_calibration's own words, never divergence's
    with pytest.raises(E.SizeLimitError) as limit:
        lf.membership_calibration(membership=MEMBERSHIP, known="self", bins=10**9)
    assert str(limit.value) == ("bins=1,000,000,000 is more than its limit 100 (one sum per "
                                "group and bin in the scan); pass a smaller bins")
    with pytest.raises(E.InvalidArgumentError, match="clash with output column"):
        lf.membership_calibration(membership={"bin": {"A": "p_a", "B": "p_b"}}, known="self")
    # 1 and '1' are first groups of two types (issue 24 re-review, item 3)
    with pytest.raises(E.InvalidArgumentError, match="must share one type"):
        lf.membership_calibration(membership={"g": {1: "p_a", "1": "p_b"}}, known="self")


def test_no_known_group_gives_null_errors_not_zeros() -> None:
    df = HAND.with_columns(pl.lit(None, dtype=pl.String).alias("self"))
    out = df.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2)
    assert out["n"].to_list() == [0] * 6
    assert out["n_known"].to_list() == [0] * 6
    assert out["share_known"].to_list() == [0.0] * 6
    assert out["ece"].null_count() == 6
    assert out["classwise_ece"].null_count() == 6


def test_known_as_an_expression_and_categorical() -> None:
    df = HAND.with_columns(pl.col("self").cast(pl.Categorical))
    out = df.fair.membership_calibration(membership=MEMBERSHIP,
                                         known=pl.col("self").alias("reported"), bins=2)
    base = HAND.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2)
    assert out.drop(pl.selectors.float()).equals(base.drop(pl.selectors.float()))
    for column in out.select(pl.selectors.float()).columns:
        np.testing.assert_allclose(out[column].to_numpy(), base[column].to_numpy(),
                                   atol=1e-15)


def test_the_bins_limit_advice_works_when_followed() -> None:
    with pytest.raises(E.SizeLimitError) as info:
        HAND.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=500)
    assert "pass a smaller bins" in str(info.value)
    out = HAND.fair.membership_calibration(membership=MEMBERSHIP, known="self",
                                           bins=100)  # the limit itself
    assert out.height == 3 * 100
    assert out["n"].sum() == 3 * 5


def test_the_calibration_table_is_additive_over_parts_of_the_rows() -> None:
    from polars_fair.counting.membership_calibration import calibration_table

    df, _ = _simulation(11, n=3_000)
    df = df.with_columns(w=pl.int_range(pl.len()) % 4 + 0.5)
    args = {"membership": MEMBERSHIP, "known": "self", "bins": 7, "sample_weight": "w"}
    keys = ["known", "__pf_argmax"]

    def table(part: pl.DataFrame) -> pl.DataFrame:
        return calibration_table(part, **args).frame.collect()

    whole = table(df).sort(keys, nulls_last=True)
    halves = pl.concat([table(df.head(1_234)), table(df.tail(3_000 - 1_234))])
    summed = halves.group_by(keys).agg(pl.exclude(keys).sum()).sort(keys, nulls_last=True)
    assert summed.select(keys).equals(whole.select(keys))
    for column in whole.columns:
        if column not in keys:
            np.testing.assert_allclose(summed[column].to_numpy(), whole[column].to_numpy(),
                                       rtol=1e-12, err_msg=column)


def test_other_engines_are_refused_by_a_typed_error_not_yet_read() -> None:
    duckdb = pytest.importorskip("duckdb")
    relation = duckdb.from_arrow(HAND.to_arrow())
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.membership_calibration(relation, membership=MEMBERSHIP, known="self")
    kind, advice = E.CALIBRATION_INPUTS["duckdb"], E.CALIBRATION_INPUT_ROWS["duckdb"]
    assert str(info.value) == E.CALIBRATION_POLARS_ONLY.format(type=kind, advice=advice)


def test_a_negative_literal_weight_counts_every_row() -> None:
    # issue 24 re-review, item 2: pl.lit(-1.0) was counted once per (known, argmax) group (4 on
    # the fixture's 1,000 rows); HAND's six rows are all negative, so 6, as report counts them
    message = E.BAD_WEIGHTS.format(column="literal", nulls=0, nans=0, negatives=6)
    with pytest.raises(E.InvalidWeightError) as info:
        HAND.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2,
                                         sample_weight=pl.lit(-1.0))
    assert str(info.value) == message
    with pytest.raises(E.InvalidWeightError) as info:
        HAND.with_columns(y_pred=pl.lit(1)).fair.report(
            membership=MEMBERSHIP, y_true=None, normalize=True, sample_weight=pl.lit(-1.0))
    assert str(info.value) == message
    # a constant positive weight is the unweighted audit scaled: ECE unchanged, each bin's n
    # (its weight sum) twice its rows
    plain = HAND.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2)
    twice = HAND.fair.membership_calibration(membership=MEMBERSHIP, known="self", bins=2,
                                             sample_weight=pl.lit(2.0))
    assert twice["ece"].to_list() == pytest.approx(plain["ece"].to_list(), abs=1e-12)
    assert twice["n"].to_list() == [2.0 * n for n in plain["n"].to_list()]
