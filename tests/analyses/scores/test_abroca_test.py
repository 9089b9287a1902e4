"""The ABROCA randomization test (Borchers et al., Algorithm 1): abroca_test_from_scores.

The exact p-value of a tiny data set is found by enumerating every split of its rows, with an
exact rational ABROCA written here independently of polars_fair; the Monte Carlo p-value must
agree within its stated Monte Carlo error.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_fair import errors as E
from polars_fair.analyses.scores.abroca import (
    BAD_PERMUTATIONS,
    NO_POSITIVES,
    WeightedTestError,
    abroca_from_scores,
    abroca_test_from_scores,
    holm_adjust,
)

COLUMNS = [
    "g", "n", "abroca", "p_value", "p_value_holm", "null_mean", "null_q95", "n_permutations",
    "undefined_reason",
]


# ----------------------------------------------------------------------------- exact reference
def exact_curve(scores: list[float], labels: list[int]) -> list[tuple[F, F]]:
    """ROC points with rational coordinates; tied scores form one step (diagonal if mixed)."""
    n_pos = sum(labels)
    n_neg = len(labels) - n_pos
    pts = [(F(0), F(0))]
    tp = fp = 0
    for t in sorted(set(scores), reverse=True):
        tp += sum(1 for s, y in zip(scores, labels, strict=True) if s == t and y == 1)
        fp += sum(1 for s, y in zip(scores, labels, strict=True) if s == t and y == 0)
        pts.append((F(fp, n_neg), F(tp, n_pos)))
    return pts


def exact_abroca(a: list[tuple[F, F]], b: list[tuple[F, F]]) -> F:
    """Exact integral of |TPR_a - TPR_b| over [0, 1] in rational arithmetic."""
    xs = sorted({x for x, _ in a} | {x for x, _ in b})

    def ends(pts: list[tuple[F, F]], lo: F, hi: F) -> tuple[F, F]:
        mid = (lo + hi) / 2
        for (x0, y0), (x1, y1) in itertools.pairwise(pts):
            if x0 < mid < x1:
                slope = (y1 - y0) / (x1 - x0)
                return y0 + slope * (lo - x0), y0 + slope * (hi - x0)
        raise AssertionError("no segment")

    total = F(0)
    for lo, hi in itertools.pairwise(xs):
        a0, a1 = ends(a, lo, hi)
        b0, b1 = ends(b, lo, hi)
        d0, d1 = a0 - b0, a1 - b1
        if d0 * d1 >= 0:
            total += (hi - lo) * (abs(d0) + abs(d1)) / 2
        else:
            total += (hi - lo) * (d0 * d0 + d1 * d1) / (2 * (abs(d0) + abs(d1)))
    return total


def exact_null(scores: list[float], labels: list[int], n_a: int) -> tuple[F, list[F]]:
    """Observed ABROCA (rows 0..n_a-1 are group a) and its value for every valid split."""

    def split_value(idx: set[int]) -> F | None:
        ga = [i for i in range(len(scores)) if i in idx]
        gb = [i for i in range(len(scores)) if i not in idx]
        for part in (ga, gb):
            if len({labels[i] for i in part}) < 2:
                return None
        return exact_abroca(
            exact_curve([scores[i] for i in ga], [labels[i] for i in ga]),
            exact_curve([scores[i] for i in gb], [labels[i] for i in gb]),
        )

    observed = split_value(set(range(n_a)))
    assert observed is not None
    values = [
        v
        for c in itertools.combinations(range(len(scores)), n_a)
        if (v := split_value(set(c))) is not None
    ]
    return observed, values


def table_of(scores: list[float], labels: list[int], groups: list[str]) -> pl.DataFrame:
    rows = pl.DataFrame({"g": groups, "s": scores, "y": labels})
    return (
        rows.group_by("g", pl.col("s").alias("score"))
        .agg(
            pl.col("y").sum().cast(pl.Int64).alias("positives"),
            (1 - pl.col("y")).sum().cast(pl.Int64).alias("negatives"),
        )
        .sort("g", "score")
    )


TIES = (  # 8 rows with tied scores (both tied within and across classes)
    [0.1, 0.3, 0.3, 0.6, 0.3, 0.6, 0.8, 0.9],
    [0, 1, 0, 1, 1, 0, 0, 1],
)
DISTINCT = (  # 8 rows with distinct scores: the staircase path of the test
    [0.15, 0.8, 0.35, 0.6, 0.3, 0.55, 0.7, 0.9],
    [0, 1, 0, 1, 0, 1, 1, 0],
)


@pytest.fixture(params=["rows", "cells"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with the row kernel, then the cell kernel, whatever the data would choose."""
    import polars_fair.analyses.scores.permutation as permutation

    monkeypatch.setattr(permutation, "ROWS_PER_CELL", 2**62 if request.param == "rows" else 0)
    return str(request.param)


@pytest.mark.parametrize("data", [TIES, DISTINCT], ids=["ties", "distinct"])
def test_p_value_matches_exact_enumeration_of_all_70_splits(
    data: tuple[list[float], list[int]], kernel: str,
) -> None:
    scores, labels = data
    observed, values = exact_null(scores, labels, 4)
    assert math.comb(8, 4) == 70 and 0 < len(values) <= 70
    p_exact = sum(1 for v in values if v >= observed) / len(values)
    assert 0.05 < p_exact < 0.95  # a non-trivial case
    table = table_of(scores, labels, ["a"] * 4 + ["b"] * 4)
    b = 40_000
    out = abroca_test_from_scores(table, ["g"], reference="b", n_permutations=b, seed=2024)
    assert out.columns == COLUMNS
    assert out["g"].to_list() == ["a"]
    assert out["n_permutations"].item() == b
    assert out["abroca"].item() == pytest.approx(float(observed), abs=1e-12)
    # p = (1 + K) / (1 + B) with K ~ Binomial(B, p_exact): mean (1 + B p)/(1 + B) and
    # sd sqrt(B p (1 - p)) / (1 + B) <= 0.0025; allow 4.5 sd (two-sided miss ~ 7e-6)
    mean = (1 + b * p_exact) / (1 + b)
    sd = math.sqrt(b * p_exact * (1 - p_exact)) / (1 + b)
    assert abs(out["p_value"].item() - mean) <= 4.5 * sd
    # the null mean of the draws against the exact mean over the valid splits
    mu = float(sum(values) / len(values))
    var = float(sum((v - F(mu)) ** 2 for v in values) / len(values))
    assert abs(out["null_mean"].item() - mu) <= 4.5 * math.sqrt(var / b)
    # one tested group: Holm changes nothing
    assert out["p_value_holm"].item() == out["p_value"].item()


TIED_12 = (  # 12 rows on 3 scores, both classes at each: C(12, 5) = 792 splits
    [0.2, 0.2, 0.2, 0.2, 0.5, 0.5, 0.5, 0.5, 0.5, 0.9, 0.9, 0.9],
    [0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1],
)


@pytest.mark.parametrize("kernel_name", ["cells", "rows"])
def test_null_distribution_matches_the_full_enumeration_chi_square(kernel_name: str) -> None:
    """Issue 21: the draws of a tied case follow the exact null of all its splits.

    Every valid split of 5 of the 12 rows is equally likely under H0 (the test conditions on both
    groups holding both classes): the exact null is the distribution of the rational ABROCA over
    the 792 splits (:func:`exact_null`, no polars_fair). Each draw must be one of its values (to
    1e-12), and the counts of 20,000 draws per value must pass Pearson's chi-square test against
    it (values with expected count below 5 pooled into one bin; the seed is fixed, and a correct
    sampler fails at the 1e-4 level once in 10,000 seeds).
    """
    from scipy.stats import chisquare

    from polars_fair.analyses.scores.permutation import permutation_null

    scores, labels = TIED_12
    observed, values = exact_null(scores, labels, 5)
    assert 0 < len(values) <= math.comb(12, 5)
    support = sorted(set(values))
    assert len(support) > 10  # a null with many values, not a two-point one
    prob = np.array([values.count(v) / len(values) for v in support])
    # the pooled cells, scores descending, and group a's part (rows 0..4)
    s, y, in_a = np.array(scores), np.array(labels), np.arange(12) < 5
    grid = np.unique(s)[::-1]
    pool_pos, pool_neg, grp_pos, grp_neg = (
        np.array([np.sum((s == v) & (y == label) & mask) for v in grid], dtype=np.int64)
        for label, mask in ((1, True), (0, True), (1, in_a), (0, in_a)))
    b = 20_000
    res = permutation_null(pool_pos, pool_neg, grp_pos, grp_neg, b, np.random.default_rng(21),
                           1e-12, kernel=kernel_name)  # type: ignore[arg-type]
    assert res.observed == pytest.approx(float(observed), abs=1e-12)
    assert res.draws.size == b
    exact = np.array([float(v) for v in support])
    at = np.clip(np.searchsorted(exact, res.draws), 1, exact.size - 1)
    nearest = np.where(np.abs(exact[at - 1] - res.draws) <= np.abs(exact[at] - res.draws),
                       at - 1, at)
    assert np.max(np.abs(exact[nearest] - res.draws)) <= 1e-12
    seen = np.bincount(nearest, minlength=exact.size).astype(float)
    expected = prob * b
    small = expected < 5
    f_obs = np.append(seen[~small], seen[small].sum())
    f_exp = np.append(expected[~small], expected[small].sum())
    if not small.any():
        f_obs, f_exp = f_obs[:-1], f_exp[:-1]
    assert chisquare(f_obs, f_exp).pvalue > 1e-4


def test_observed_split_counts_as_extreme_when_it_is_the_maximum(kernel: str) -> None:
    # a ranks perfectly, b perfectly inverted: ABROCA 1, the largest possible. ABROCA is 1 exactly
    # when one group ranks perfectly (positives strictly above negatives) and the other is
    # perfectly inverted. By hand, the perfect group is one of {n.1, n.2, p.3, p.4},
    # {n.1, n.2, n.3, p.4}, {n.1, p.2, p.3, p.4} (n = negative, p = positive, with its score),
    # the other group getting the rest: 3 splits and their 3 mirror images. The mirrors give the
    # same value with other floating-point operations: the tolerance makes them count.
    scores = [0.1, 0.2, 0.3, 0.4, 0.1, 0.2, 0.3, 0.4]
    labels = [0, 0, 1, 1, 1, 1, 0, 0]
    observed, values = exact_null(scores, labels, 4)
    assert observed == 1
    assert sum(1 for v in values if v == 1) == 6
    # of the 70 splits only all-positive / all-negative groups are dropped: that split and its
    # mirror
    assert len(values) == 68
    p_exact = 6 / len(values)
    out = abroca_test_from_scores(
        table_of(scores, labels, ["a"] * 4 + ["b"] * 4), ["g"], reference="b",
        n_permutations=20_000, seed=5, return_draws=True,
    )
    assert out["abroca"].item() == 1.0
    draws = np.array(out["draws"].item())
    assert draws.size == 20_000
    assert draws.max() == pytest.approx(1.0, abs=1e-12)
    b = 20_000
    sd = math.sqrt(b * p_exact * (1 - p_exact)) / (1 + b)
    assert abs(out["p_value"].item() - (1 + b * p_exact) / (1 + b)) <= 4.5 * sd


def test_seed_reproduces_and_different_seeds_differ() -> None:
    rng = np.random.default_rng(1)
    n = 400
    rows = pl.DataFrame(
        {"g": rng.integers(0, 3, n), "y": rng.integers(0, 2, n), "s": rng.integers(0, 50, n) / 50}
    )
    table = (
        rows.group_by("g", pl.col("s").alias("score"))
        .agg(pl.col("y").sum().alias("positives"), (1 - pl.col("y")).sum().alias("negatives"))
        .sort("g", "score")
    )
    one = abroca_test_from_scores(table, ["g"], n_permutations=300, seed=11, return_draws=True)
    two = abroca_test_from_scores(table, ["g"], n_permutations=300, seed=11, return_draws=True)
    other = abroca_test_from_scores(table, ["g"], n_permutations=300, seed=12, return_draws=True)
    assert one.equals(two)
    assert one["draws"].to_list() != other["draws"].to_list()
    assert one.schema["draws"] == pl.List(pl.Float64)
    # the observed ABROCA is the one of abroca_from_scores
    plain = abroca_from_scores(table, ["g"]).filter(~pl.col("is_reference"))
    assert one["abroca"].to_list() == pytest.approx(plain["abroca"].to_list(), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1), st.integers(0, 1)), min_size=4,
             max_size=30),
    st.integers(1, 60),
)
def test_p_value_lies_in_half_open_unit_interval(rows: list[tuple[int, int, int]], b: int) -> None:
    scores = [r[0] / 5 for r in rows]
    labels = [r[1] for r in rows]
    groups = ["x" if r[2] else "y" for r in rows]
    if len(set(groups)) < 2:
        return
    out = abroca_test_from_scores(table_of(scores, labels, groups), ["g"], n_permutations=b, seed=0)
    assert out.height == 1
    p = out["p_value"].item()
    if p is None:
        assert out["undefined_reason"].item() is not None
        return
    used = out["n_permutations"].item()
    assert 1 <= used <= b
    assert 1 / (1 + used) <= p <= 1.0
    assert out["null_q95"].item() <= 1.0 + 1e-12


def test_holm_adjust_by_hand() -> None:
    # sorted: 0.01 * 3 = 0.03; 0.03 * 2 = 0.06; 0.04 * 1 = 0.04 -> running max 0.06
    assert holm_adjust([0.01, 0.04, None, 0.03]) == pytest.approx([0.03, 0.06, None, 0.06])
    # capped at 1, and ties keep their order
    assert holm_adjust([0.5, 0.5]) == [1.0, 1.0]
    assert holm_adjust([]) == []


def test_holm_column_matches_a_hand_computation_over_groups() -> None:
    rng = np.random.default_rng(3)
    n = 600
    g = rng.integers(0, 4, n)
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(y * (0.2 + 0.3 * g), 1.0), 2)
    table = table_of(s.tolist(), y.tolist(), [f"g{v}" for v in g])
    out = abroca_test_from_scores(table, ["g"], reference="g0", n_permutations=400, seed=9)
    assert out["g"].to_list() == ["g1", "g2", "g3"]
    p = out["p_value"].to_list()
    # Holm by hand for m = 3: order the p-values, multiply by 3, 2, 1, take running maxima
    order = sorted(range(3), key=lambda i: p[i])
    expected = [0.0] * 3
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (3 - rank) * p[i]))
        expected[i] = running
    assert out["p_value_holm"].to_list() == pytest.approx(expected, abs=0)


def test_one_class_group_gets_null_test_with_reason() -> None:
    table = pl.DataFrame(
        {
            "g": ["a", "a", "a", "b", "b", "c", "c"],
            "score": [0.1, 0.5, 0.9, 0.2, 0.4, 0.3, 0.6],
            "positives": [0, 1, 2, 0, 0, 1, 1],
            "negatives": [2, 1, 0, 1, 1, 1, 0],
        }
    )
    out = abroca_test_from_scores(table, ["g"], n_permutations=50, seed=0)
    assert out["g"].to_list() == ["b", "c"]
    assert out["p_value"].to_list()[0] is None
    assert out["undefined_reason"].to_list() == [NO_POSITIVES, None]
    assert out["n_permutations"].to_list()[0] == 0
    p_c = out["p_value"].to_list()[1]
    assert p_c is not None and 0 < p_c <= 1
    # Holm over the single defined p-value leaves it unchanged
    assert out["p_value_holm"].to_list() == [None, p_c]


def test_weighted_table_raises_and_bad_arguments_raise() -> None:
    table = pl.DataFrame(
        {"g": ["a", "b"], "score": [0.1, 0.2], "positives": [1.5, 0.5], "negatives": [0.5, 1.0]}
    )
    with pytest.raises(WeightedTestError, match="needs integer counts"):
        abroca_test_from_scores(table, ["g"])
    ints = table.with_columns(pl.col("positives", "negatives").cast(pl.Int64) + 1)
    with pytest.raises(E.InvalidArgumentError) as info:
        abroca_test_from_scores(ints, ["g"], n_permutations=0)
    assert str(info.value) == BAD_PERMUTATIONS.format(value=0)
    with pytest.raises(E.UnknownGroupError):
        abroca_test_from_scores(ints, ["g"], reference="c")


def test_only_reference_gives_an_empty_frame_with_the_schema() -> None:
    table = pl.DataFrame({"g": ["a", "a"], "score": [0.1, 0.2], "positives": [0, 1],
                          "negatives": [1, 0]})
    out = abroca_test_from_scores(table, ["g"], n_permutations=10, seed=0)
    assert out.height == 0
    assert out.columns == COLUMNS
    assert out.schema["p_value"] == pl.Float64


def test_ten_thousand_rows_thousand_permutations() -> None:
    rng = np.random.default_rng(0)
    n = 10_000
    g = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    s = rng.normal(y * (1.0 + 0.3 * g), 1.0)
    table = table_of(s.tolist(), y.tolist(), [str(v) for v in g])
    out = abroca_test_from_scores(table, ["g"], n_permutations=1000, seed=0)
    assert out["p_value"].item() == pytest.approx(1 / 1001)  # a strong effect


def test_the_test_lives_in_permutation_and_abroca_reexports_it() -> None:
    import ast
    import inspect

    import polars_fair.analyses.scores.abroca as abroca_module
    import polars_fair.analyses.scores.permutation as permutation
    import polars_fair.analyses.scores.power as power

    for name in ("abroca_test_from_scores", "abroca_test_plan", "holm_adjust",
                 "WeightedTestError", "BAD_PERMUTATIONS"):
        assert getattr(abroca_module, name) is getattr(permutation, name)
    # power imports the permutation null by its public name, and no private name of another
    # module of polars_fair
    tree = ast.parse(inspect.getsource(power))
    imported = [(node.module, alias.name) for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
                and node.module.startswith("polars_fair") for alias in node.names]
    assert ("polars_fair.analyses.scores.permutation", "permutation_null") in imported
    assert not [name for _, name in imported if name.startswith("_")]
