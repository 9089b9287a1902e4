"""The fast numpy paths of ABROCA and its randomization test equal the general paths bit for bit.

Issue 21 adds the cell kernel (:func:`draw_cells`, :func:`cell_abroca`): on the same splits it
equals the row kernel to rounding (1e-12: its sums run over other intervals), the observed ABROCA
of the test is the same double whichever kernel draws the null, and the two kernels' nulls are
one distribution (a two-sample test on many draws; the chi-square test against the full
enumeration is in ``test_abroca_test.py``).

Issue 13: the randomization test evaluates many splits at once (:func:`split_abroca`: merged grid
built without sorting, dense staircase pass, sparse overwrite of the sloped steps of tied scores,
blocks of draws), :func:`polars_fair.analyses.scores.roc.abroca_exact` merges the two breakpoint
runs without ``np.unique``/``np.searchsorted``, and
:func:`polars_fair.analyses.scores.scoreview.score_view` skips the sort of a table that is already
sorted. Each is compared here with a simple reference written in this file: the general formula on
every merged interval, one split at a time, from the grid of ``np.union1d``; the old
unique/searchsorted merge; the sorted table. The comparisons are ``==`` on float64 (bit for bit),
not approximate, except against the old cell kernel
(:func:`polars_fair.analyses.scores.roc.abroca_batch`), whose arithmetic differs (1e-12).
"""

from __future__ import annotations

import math
import re

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from polars_fair import errors as E
from polars_fair.analyses.scores.null_kernel import (
    cell_abroca,
    draw_cells,
    first_of_cells,
    merged_grid,
    observed_abroca,
    pooled_cells,
    random_members,
    split_abroca,
)
from polars_fair.analyses.scores.permutation import (
    BAD_KERNEL,
    ROWS_PER_CELL,
    null_kernel_for,
    permutation_null,
)
from polars_fair.analyses.scores.roc import (
    _abs_linear_integral,
    _check_curve,
    abroca_batch,
    abroca_exact,
    auc_from_cells,
    roc_curve_from_cells,
)
from polars_fair.analyses.scores.scoreview import _sorted_by_group, score_view

TINY = 1e-300


# ----------------------------------------------------------------------------- references
def reference_split(pool_pos: list[int], pool_neg: list[int], mem_p: np.ndarray,
                    mem_n: np.ndarray) -> float:
    """ABROCA of one split, the general formula on every merged interval (no fast path).

    Curve a's step ``i`` (its ``i``-th to ``(i+1)``-th negative) lies in the cell of its
    ``(i+1)``-th negative, where a holds ``p`` positives and ``n`` negatives, ``t`` positives
    above the cell and ``o`` negatives of the cell before: it starts at ``t + p * o / n`` and
    rises by ``p / n`` per negative. The float expressions are those of the kernel, in the same
    order, so the result must be the same double.
    """
    cells = len(pool_pos)
    cell_p = np.repeat(np.arange(cells), pool_pos)
    cell_n = np.repeat(np.arange(cells), pool_neg)
    sides = []
    for member_p, member_n in ((mem_p, mem_n), (~mem_p, ~mem_n)):
        p_c = np.bincount(cell_p[member_p], minlength=cells)
        n_c = np.bincount(cell_n[member_n], minlength=cells)
        left, slope = [], []
        above = 0
        for c in range(cells):
            t, p, n = above, int(p_c[c]), int(n_c[c])
            for o in range(n):
                left.append(t + p * o / n)
                slope.append(p / n)
            above += p
        sides.append((np.array(left, dtype=np.float64), np.array(slope, dtype=np.float64),
                      int(p_c.sum())))
    (left_a, s_a, p_a), (left_b, s_b, p_b) = sides
    v, u = left_a.size, left_b.size
    z = np.union1d(np.arange(v + 1, dtype=np.int64) * u, np.arange(u + 1, dtype=np.int64) * v)
    lo = z[:-1]
    w = np.diff(z).astype(np.float64)
    ia, ib = lo // u, lo // v
    sa, sb = s_a[ia], s_b[ib]
    d0 = ((left_a[ia] + sa * ((lo - ia * u) / u)) * p_b
          - (left_b[ib] + sb * ((lo - ib * v) / v)) * p_a)
    d1 = d0 + (sa * (w / u) * p_b - sb * (w / v) * p_a)
    total = np.abs(d0) + np.abs(d1)
    crossing = np.maximum(-(d0 * d1), 0.0) / np.maximum(total, TINY)
    area = w * (0.5 * total - crossing)
    return float(np.sum(area) / (float(p_a) * float(p_b) * float(v) * float(u)))


def old_abroca_exact(curve_a: tuple, curve_b: tuple) -> float:
    """abroca_exact as it was before issue 13: np.unique, then np.searchsorted per curve."""
    xa, ya = _check_curve(curve_a, "a")
    xb, yb = _check_curve(curve_b, "b")
    z = np.unique(np.concatenate((xa, xb)))
    left, right = z[:-1], z[1:]

    def ends(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = np.searchsorted(x, left, side="right")
        x0, x1, y0, y1 = x[k - 1], x[k], y[k - 1], y[k]
        dx = x1 - x0
        return y0 + (y1 - y0) * ((left - x0) / dx), y0 + (y1 - y0) * ((right - x0) / dx)

    a_l, a_r = ends(xa, ya)
    b_l, b_r = ends(xb, yb)
    return float(np.sum(_abs_linear_integral(a_l - b_l, a_r - b_r, right - left)))


def cell_kernel(pool_pos: np.ndarray, pool_neg: np.ndarray, mem_p: np.ndarray,
                mem_n: np.ndarray) -> float:
    """The old general path: abroca_batch on the cells' cumulative counts."""
    cells = pool_pos.size
    ga = np.bincount(np.repeat(np.arange(cells), pool_pos)[mem_p], minlength=cells)
    gn = np.bincount(np.repeat(np.arange(cells), pool_neg)[mem_n], minlength=cells)
    zero = np.zeros(1, dtype=np.int64)
    cpa, cna = np.concatenate((zero, np.cumsum(ga))), np.concatenate((zero, np.cumsum(gn)))
    cp = np.concatenate((zero, np.cumsum(pool_pos)))
    cn = np.concatenate((zero, np.cumsum(pool_neg)))
    return float(abroca_batch(cpa[None], cna[None], (cp - cpa)[None], (cn - cna)[None])[0])


# ----------------------------------------------------------------------------- strategies
cells_st = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=14)


def pooled(cells: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    pos = np.array([c[0] for c in cells], dtype=np.int64)
    neg = np.array([c[1] for c in cells], dtype=np.int64)
    return pos, neg


def random_splits(
    cells: list[tuple[int, int]], seed: int, rows: int
) -> tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray]:
    """Pooled cells and ``rows`` random splits giving group a ``v`` negatives (both classes)."""
    pos, neg = pooled(cells)
    n_pos, n_neg = int(pos.sum()), int(neg.sum())
    assume(n_pos >= 2 and n_neg >= 2)
    rng = np.random.default_rng(seed)
    v = int(rng.integers(1, n_neg))
    p_a = int(rng.integers(1, n_pos))
    mem_n = random_members(rng, n_neg, v, rows)
    mem_p = random_members(rng, n_pos, p_a, rows)
    return pos, neg, v, mem_p, mem_n


def observed_split(
    cells: list[tuple[int, int]], seed: int, *, valid: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.random.Generator]:
    """Pooled cells, a random part of each for group a, and the stream that drew them."""
    pos, neg = pooled(cells)
    rng = np.random.default_rng(seed)
    gp = np.array([int(rng.integers(0, p + 1)) for p in pos], dtype=np.int64)
    gn = np.array([int(rng.integers(0, n + 1)) for n in neg], dtype=np.int64)
    if valid:
        assume(0 < gp.sum() < pos.sum() and 0 < gn.sum() < neg.sum())
    return pos, neg, gp, gn, rng


# ----------------------------------------------------------------------------- properties
@settings(max_examples=300, deadline=None)
@given(cells_st, st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_split_abroca_equals_the_general_formula_bit_for_bit(
    cells: list[tuple[int, int]], seed: int, rows: int
) -> None:
    pos, neg, v, mem_p, mem_n = random_splits(cells, seed, rows)
    pool = pooled_cells(pos, neg)
    block = split_abroca(pool, v, mem_p, mem_n)
    for r in range(rows):
        ref = reference_split(pos.tolist(), neg.tolist(), mem_p[r], mem_n[r])
        assert block[r] == ref, (r, block[r], ref)
        # one split alone gives the same double as inside a block
        assert split_abroca(pool, v, mem_p[r : r + 1], mem_n[r : r + 1])[0] == block[r]
        # and the old sort-based cell kernel agrees to rounding
        assert abs(block[r] - cell_kernel(pos, neg, mem_p[r], mem_n[r])) <= 1e-12


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 400), st.integers(1, 400))
def test_merged_grid_without_sorting_equals_union1d(n_a: int, n_b: int) -> None:
    g = merged_grid(n_a, n_b)
    z = np.union1d(np.arange(n_a + 1) * n_b, np.arange(n_b + 1) * n_a)
    assert np.array_equal(g.z, z)
    assert np.array_equal(g.ia, z[:-1] // n_b) and np.array_equal(g.ib, z[:-1] // n_a)
    assert np.array_equal(g.w, np.diff(z).astype(np.float64))
    assert np.array_equal(g.start_a, np.searchsorted(z, np.arange(n_a + 1) * n_b))
    assert np.array_equal(g.start_b, np.searchsorted(z, np.arange(n_b + 1) * n_a))
    assert g.w.size == n_a + n_b - math.gcd(n_a, n_b)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3), st.integers(0, 3)), min_size=1,
             max_size=40),
    st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3), st.integers(0, 3)), min_size=1,
             max_size=40),
)
def test_abroca_exact_merge_equals_unique_and_searchsorted_bit_for_bit(a: list, b: list) -> None:
    from polars_fair.analyses.scores.roc import roc_curve_from_cells

    curves = []
    for cells in (a, b):
        s, p, n = (np.array(x) for x in zip(*cells, strict=True))
        assume(p.sum() > 0 and n.sum() > 0)
        curves.append(roc_curve_from_cells(s / 30, p, n))
    assert abroca_exact(*curves) == old_abroca_exact(*curves)
    assert abroca_exact(curves[1], curves[0]) == old_abroca_exact(curves[1], curves[0])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 60), st.booleans(), st.integers(1, 3)), min_size=2,
             max_size=60),
    st.lists(st.tuples(st.integers(0, 60), st.booleans(), st.integers(1, 3)), min_size=2,
             max_size=60),
)
def test_abroca_exact_of_two_staircases_equals_the_general_formula_bit_for_bit(
    a: list, b: list
) -> None:
    """Issue 21: no score holds both classes (continuous scores): the flat-interval path."""
    from polars_fair.analyses.scores.roc import _staircase, roc_curve_from_cells

    curves = []
    for cells in (a, b):
        first: dict[int, tuple[bool, int]] = {}
        for score, positive, count in cells:  # one class per score: a staircase
            first.setdefault(score, (positive, count))
        s = np.array(sorted(first), dtype=np.float64)
        pos = np.array([first[v][1] if first[v][0] else 0 for v in sorted(first)])
        neg = np.array([0 if first[v][0] else first[v][1] for v in sorted(first)])
        assume(pos.sum() > 0 and neg.sum() > 0)
        curves.append(roc_curve_from_cells(s / 60, pos, neg))
    assert all(_staircase(*c) for c in curves)
    assert abroca_exact(*curves) == old_abroca_exact(*curves)
    assert abroca_exact(curves[1], curves[0]) == old_abroca_exact(curves[1], curves[0])
    # one diagonal (a tied score of both classes) sends the pair to the general path
    fpr, tpr = curves[0]
    assert not _staircase(np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.5, 1.0]))
    assert _staircase(fpr, tpr)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["x", "y", None]), st.integers(0, 2), st.integers(0, 20),
                       st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40),
    st.sampled_from(["sorted", "swap", "as drawn"]),
    st.randoms(use_true_random=False),
)
def test_score_view_skips_the_sort_only_when_the_sort_returns_the_table_as_it_is(
    rows: list, how: str, rnd: object
) -> None:
    keys = ["g", "h"]
    table = pl.DataFrame(
        rows, schema={"g": pl.String, "h": pl.Int64, "score": pl.Float64, "positives": pl.Int64,
                      "negatives": pl.Int64}, orient="row",
    ).with_columns(pl.col("score") / 20)
    if how != "as drawn":
        table = table.sort([*keys, "score"], nulls_last=True, maintain_order=True)
    if how == "swap" and table.height > 1:
        i = rnd.randrange(table.height - 1)  # type: ignore[attr-defined]
        order = list(range(table.height))
        order[i], order[i + 1] = order[i + 1], order[i]
        table = table[order]
    df, gid = _sorted_by_group(table, keys, table.collect_schema())
    slow = table.sort([*keys, "score"], nulls_last=True, maintain_order=True)
    assert df.equals(slow)
    assert np.array_equal(gid, slow.select(pl.struct(keys).rle_id()).to_series().to_numpy())
    # and the view of the table is the view of its sorted copy, array by array
    a, b = score_view(table, keys), score_view(slow, keys)
    assert a.key_frame.equals(b.key_frame)
    for name in ("bounds", "score", "pos", "neg", "n", "positives", "negatives"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["x", "y"]), st.integers(0, 12), st.integers(0, 3),
                       st.integers(0, 3)), min_size=1, max_size=30),
    st.booleans(),
)
def test_score_view_curves_and_aucs_of_distinct_scores_equal_the_checked_path_bit_for_bit(
    rows: list, merge: bool
) -> None:
    # issue 21: a view whose groups hold distinct scores hands its cells to the ROC arithmetic
    # without the second check (roc._cells); a view with a repeated score keeps the checked path
    table = pl.DataFrame(rows, schema={"g": pl.String, "score": pl.Float64,
                                       "positives": pl.Int64, "negatives": pl.Int64},
                         orient="row").with_columns(pl.col("score") / 8)
    if merge:  # one row per (group, score), as the score tables polars_fair builds
        table = table.group_by("g", "score").agg(pl.col("positives", "negatives").sum())
    view = score_view(table, ["g"])
    repeated = table.select(pl.struct("g", "score").is_duplicated().any()).item()
    assert view.distinct is (not repeated)
    for g in range(len(view)):
        s, p, n = view.cells(g)
        assert view.aucs()[g] == auc_from_cells(s, p, n)  # None == None for one class
        curve = view.curve(g)
        if curve is None:
            assert view.reason(g) is not None
        else:
            fpr, tpr = roc_curve_from_cells(s, p, n)
            assert np.array_equal(curve[0], fpr) and np.array_equal(curve[1], tpr)


def test_cell_kernel_in_blocks_is_one_block_and_keeps_the_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 21: blocks of CELL_BLOCK values change neither a split's double nor the draws."""
    import polars_fair.analyses.scores.null_kernel as nk
    import polars_fair.analyses.scores.permutation as perm

    rng = np.random.default_rng(21)
    pos, neg = rng.integers(0, 30, 40), rng.integers(0, 30, 40)
    pos[0] += 1
    neg[-1] += 1
    gp, gn = draw_cells(rng, pos, neg, int(pos.sum() + neg.sum()) // 3, 2_000)
    ok = ((gp.sum(1) > 0) & (gp.sum(1) < pos.sum()) & (gn.sum(1) > 0)
          & (gn.sum(1) < neg.sum()))
    gp, gn = gp[ok], gn[ok]
    assert gp.shape[0] > nk.CELL_BLOCK // (2 * 40 + 2)  # several blocks
    assert np.array_equal(cell_abroca(pos, neg, gp, gn), nk._cell_block(pos, neg, gp, gn))
    tp, tn = rng.binomial(pos, 0.3), rng.binomial(neg, 0.3)
    small = permutation_null(pos, neg, tp, tn, 700, np.random.default_rng(5), 1e-12,
                             kernel="cells")
    monkeypatch.setattr(perm, "CELL_BLOCK", 10**9)  # every draw in one block, as before
    one = permutation_null(pos, neg, tp, tn, 700, np.random.default_rng(5), 1e-12,
                           kernel="cells")
    assert np.array_equal(small.draws, one.draws) and small.p_value == one.p_value


@settings(max_examples=150, deadline=None)
@given(cells_st, st.integers(0, 2**32 - 1))
def test_observed_abroca_of_the_null_is_the_kernel_of_the_observed_split(
    cells: list[tuple[int, int]], seed: int
) -> None:
    pos, neg, gp, gn, rng = observed_split(cells, seed)
    result = permutation_null(pos, neg, gp, gn, 30, rng, 1e-12)
    mem_p, mem_n = first_of_cells(pos, gp), first_of_cells(neg, gn)
    assert result.observed == reference_split(pos.tolist(), neg.tolist(), mem_p, mem_n)
    assert abs(result.observed - cell_kernel(pos, neg, mem_p, mem_n)) <= 1e-12
    assert result.draws.size == 30 and np.all((result.draws >= 0) & (result.draws <= 1 + 1e-12))


# ----------------------------------------------------------------------------- examples
def test_large_tied_block_equals_the_reference_row_by_row() -> None:
    # 6,000 pooled rows on 1,500 scores (ties within and across classes): rows of ~3,000
    # intervals, longer than numpy's pairwise-summation block, summed row by row in the kernel
    rng = np.random.default_rng(13)
    pos = rng.integers(0, 3, 1500)
    neg = rng.integers(0, 3, 1500)
    n_pos, n_neg = int(pos.sum()), int(neg.sum())
    pool = pooled_cells(pos, neg)
    assert pool.mixed.size > 300  # many diagonal steps
    mem_n = random_members(rng, n_neg, n_neg // 3, 4)
    mem_p = random_members(rng, n_pos, n_pos // 3, 4)
    block = split_abroca(pool, n_neg // 3, mem_p, mem_n)
    for r in range(4):
        assert block[r] == reference_split(pos.tolist(), neg.tolist(), mem_p[r], mem_n[r])


def test_random_members_hold_exactly_k_and_cover_both_draw_methods() -> None:
    rng = np.random.default_rng(0)
    for n, k in ((10, 3), (10, 8), (5000, 10), (5000, 4990), (5000, 2500), (7, 0), (7, 7)):
        m = random_members(rng, n, k, 6)
        assert m.shape == (6, n) and m.dtype == bool
        assert np.all(m.sum(axis=1) == k)
    # a uniform subset: each of 10 items is in a 3-subset with probability 0.3; over 6,000
    # subsets the count is Binomial(6000, 0.3), sd 35.5: 5 sd = 178
    counts = random_members(rng, 10, 3, 6000).sum(axis=0)
    assert np.all(np.abs(counts - 1800) <= 178)


# ----------------------------------------------------------------------------- the cell kernel
def counts_of(pool: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Group a's count in each cell, from its membership of the pooled rows (cell by cell)."""
    cell = np.repeat(np.arange(pool.size), pool)
    return np.stack([np.bincount(cell[m], minlength=pool.size) for m in members])


@settings(max_examples=300, deadline=None)
@given(cells_st, st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_cell_kernel_equals_the_row_kernel_on_the_same_draws(
    cells: list[tuple[int, int]], seed: int, rows: int
) -> None:
    pos, neg, v, mem_p, mem_n = random_splits(cells, seed, rows)
    row_kernel = split_abroca(pooled_cells(pos, neg), v, mem_p, mem_n)
    cell = cell_abroca(pos, neg, counts_of(pos, mem_p), counts_of(neg, mem_n))
    for r in range(rows):
        assert abs(cell[r] - row_kernel[r]) <= 1e-12, (r, cell[r], row_kernel[r])
        assert abs(cell[r] - cell_kernel(pos, neg, mem_p[r], mem_n[r])) <= 1e-12
        # one split alone gives the same double as inside a block
        one = cell_abroca(pos, neg, counts_of(pos, mem_p[r : r + 1]),
                          counts_of(neg, mem_n[r : r + 1]))
        assert one[0] == cell[r]


@settings(max_examples=300, deadline=None)
@given(cells_st, st.integers(0, 2**32 - 1))
def test_observed_abroca_of_the_counts_is_split_abroca_of_the_observed_split_bit_for_bit(
    cells: list[tuple[int, int]], seed: int
) -> None:
    pos, neg, gp, gn, rng = observed_split(cells, seed)
    mem_p, mem_n = first_of_cells(pos, gp), first_of_cells(neg, gn)
    kernel = split_abroca(pooled_cells(pos, neg), int(gn.sum()), mem_p[None], mem_n[None])[0]
    assert observed_abroca(pos, neg, gp, gn) == kernel
    assert observed_abroca(pos, neg, gp, gn) == reference_split(pos.tolist(), neg.tolist(),
                                                                mem_p, mem_n)


@settings(max_examples=150, deadline=None)
@given(cells_st, st.integers(0, 2**32 - 1))
def test_observed_abroca_is_the_same_double_whichever_kernel_draws_the_null(
    cells: list[tuple[int, int]], seed: int
) -> None:
    pos, neg, gp, gn, _ = observed_split(cells, seed, valid=False)
    results = [permutation_null(pos, neg, gp, gn, 25, np.random.default_rng(seed), 1e-12,
                                kernel=k) for k in ("rows", "cells", "auto")]
    observed = [r.observed for r in results]
    assert observed[0] == observed[1] == observed[2] or all(map(math.isnan, observed))
    for r in results:  # every draw is a valid ABROCA, and the p-value counts them
        assert np.all((r.draws >= 0) & (r.draws <= 1 + 1e-12))
        if r.draws.size:
            k = np.count_nonzero(r.draws >= r.observed - 1e-12)
            assert r.p_value == (1 + k) / (1 + r.draws.size)


def test_cell_and_row_kernels_draw_the_same_null_two_sample() -> None:
    """Two-sample tests on 6,000 draws of each kernel, mixed and tied cells, several groups.

    The null distribution of ABROCA has atoms (ties) and no closed form: the Kolmogorov-Smirnov
    two-sample test (conservative on atoms) and the difference of the means (in standard
    errors) must not reject at the 1e-4 level. Seeds are fixed.
    """
    from scipy.stats import ks_2samp

    rng = np.random.default_rng(2121)
    for cells, frac in ((12, 0.3), (40, 0.1), (5, 0.5)):
        pos = rng.integers(0, 30, cells)
        neg = rng.integers(0, 30, cells)
        gp = rng.binomial(pos, frac)
        gn = rng.binomial(neg, frac)
        b = 6_000
        rows = permutation_null(pos, neg, gp, gn, b, np.random.default_rng(1), 1e-12,
                                kernel="rows")
        by_cells = permutation_null(pos, neg, gp, gn, b, np.random.default_rng(2), 1e-12,
                                    kernel="cells")
        assert rows.observed == by_cells.observed
        assert rows.draws.size == by_cells.draws.size == b
        assert ks_2samp(rows.draws, by_cells.draws).pvalue > 1e-4
        se = math.sqrt((rows.draws.var() + by_cells.draws.var()) / b)
        assert abs(rows.draws.mean() - by_cells.draws.mean()) <= 4 * se


def test_draw_cells_hold_the_sample_size_and_the_hypergeometric_mean() -> None:
    rng = np.random.default_rng(7)
    pos = np.array([3, 0, 5, 2, 0])
    neg = np.array([0, 4, 1, 2, 0])  # a cell without rows, cells of one class
    p, n = draw_cells(rng, pos, neg, 6, 20_000)
    assert p.shape == n.shape == (20_000, 5) and p.dtype == n.dtype == np.int64
    assert np.all(p + n >= 0) and np.all(p <= pos) and np.all(n <= neg)
    assert np.all(p.sum(axis=1) + n.sum(axis=1) == 6)
    # each cell's count is hypergeometric: mean 6 c / 17, sd sqrt(6 (c/17)(1 - c/17)(11/16));
    # the mean of 20,000 is within 5 standard errors
    for count, drawn in ((pos, p), (neg, n)):
        q = count / 17
        sd = np.sqrt(6 * q * (1 - q) * 11 / 16)
        assert np.all(np.abs(drawn.mean(axis=0) - 6 * q) <= 5 * sd / math.sqrt(20_000) + 1e-12)
    # every cell held: the draw is taken without the scatter, same law
    p, n = draw_cells(rng, np.array([2, 1]), np.array([1, 3]), 3, 5)
    assert np.all(p.sum(axis=1) + n.sum(axis=1) == 3)


def test_the_data_choose_the_kernel_and_the_row_kernel_keeps_its_stream() -> None:
    # continuous scores (one row per cell): rows; deciles (COMPAS: 10 scores, 6,172 rows), 2
    # decimals (about 100 scores, 10^4 rows): cells; the boundary is ROWS_PER_CELL rows a cell
    assert null_kernel_for(10_000, 10_000) == "rows"
    assert null_kernel_for(10, 6_172) == "cells"
    assert null_kernel_for(101, 10_000) == "cells"
    assert null_kernel_for(100, ROWS_PER_CELL * 100) == "cells"
    assert null_kernel_for(100, ROWS_PER_CELL * 100 - 1) == "rows"
    # where the data choose the row kernel, "auto" is the row kernel draw for draw
    rng = np.random.default_rng(3)
    pos, neg = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    gp, gn = rng.binomial(pos, 0.4), rng.binomial(neg, 0.4)
    auto = permutation_null(pos, neg, gp, gn, 50, np.random.default_rng(9), 1e-12)
    rows = permutation_null(pos, neg, gp, gn, 50, np.random.default_rng(9), 1e-12, kernel="rows")
    assert np.array_equal(auto.draws, rows.draws) and auto.p_value == rows.p_value
    with pytest.raises(E.InvalidArgumentError, match=re.escape(BAD_KERNEL.format(value="row"))):
        permutation_null(pos, neg, gp, gn, 5, rng, 1e-12, kernel="row")  # type: ignore[arg-type]


def test_row_kernel_in_slices_is_one_block_bit_for_bit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20: evaluating a block of draws in slices of EVAL_CELLS changes no double."""
    import polars_fair.analyses.scores.permutation as perm

    rng = np.random.default_rng(20)
    pos, neg = rng.integers(0, 2, 3_000), rng.integers(0, 3, 3_000)  # continuous-like, ties
    gp, gn = rng.binomial(pos, 0.3), rng.binomial(neg, 0.3)
    monkeypatch.setattr(perm, "EVAL_CELLS", 1)  # one draw per slice
    sliced = permutation_null(pos, neg, gp, gn, 300, np.random.default_rng(4), 1e-12,
                              kernel="rows")
    monkeypatch.setattr(perm, "EVAL_CELLS", 10**12)  # the whole block at once, as before
    whole = permutation_null(pos, neg, gp, gn, 300, np.random.default_rng(4), 1e-12,
                             kernel="rows")
    assert np.array_equal(sliced.draws, whole.draws) and sliced.p_value == whole.p_value
    assert perm.BLOCK_CELLS // max(int(pos.sum()), int(neg.sum())) > 1  # blocks of many draws


def test_row_kernel_slices_hold_several_large_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20 (perf): a pool of 20,000 negatives is evaluated 3 draws per kernel call.

    EVAL_CELLS = 65,536 and max(N, P) = 20,000, so a slice holds 65,536 // 20,000 = 3 draws: a
    block of 7 draws is evaluated as 3 + 3 + 1 (at 16,384 cells it was 7 calls of one draw).
    """
    import polars_fair.analyses.scores.permutation as perm
    from polars_fair.analyses.scores.null_kernel import PooledCells, pooled_cells

    assert perm.EVAL_CELLS == 65_536
    pos = np.zeros(25_000, dtype=np.int64)
    pos[:5_000] = 1  # 5,000 positives above 20,000 negatives, each cell one row
    neg = 1 - pos
    pool = pooled_cells(pos, neg)
    rng = np.random.default_rng(0)
    mem_n = np.zeros((7, 20_000), dtype=bool)
    mem_p = np.zeros((7, 5_000), dtype=bool)
    for r in range(7):  # every draw gives group a 100 negatives and 50 positives
        mem_n[r, rng.choice(20_000, 100, replace=False)] = True
        mem_p[r, rng.choice(5_000, 50, replace=False)] = True
    calls: list[int] = []

    def counted(pool: PooledCells, n_a: int, mem_p: np.ndarray, mem_n: np.ndarray,
                cache: dict | None = None) -> np.ndarray:
        calls.append(mem_n.shape[0])  # one row a draw
        return split_abroca(pool, n_a, mem_p, mem_n, cache)

    monkeypatch.setattr(perm, "split_abroca", counted)
    sliced = perm._split_abroca_sliced(pool, 100, mem_p, mem_n, {})
    assert calls == [3, 3, 1]
    # every positive ranks above every negative in both groups: each ROC curve is a perfect
    # ranking, so each draw's ABROCA is 0 (by hand), as one call of the whole block gives
    assert sliced.tolist() == [0.0] * 7
    assert np.array_equal(sliced, split_abroca(pool, 100, mem_p, mem_n, {}))
