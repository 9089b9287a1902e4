"""The randomization test of ABROCA (Borchers et al., Algorithm 1) on the score table.

Under H0 a row's group membership is exchangeable between a tested group and the reference
group: :func:`permutation_null` draws the null distribution of ABROCA for one pair of groups
from their pooled (score, label) cells, and :func:`abroca_test_from_scores` runs it for every
group against the reference, with Holm's adjustment (:func:`holm_adjust`) across the groups.
:mod:`polars_fair.power` simulates the power of the same test with :func:`permutation_null`.

Borchers et al., "Toward Sufficient Statistical Power in Algorithmic Bias Assessment: A Test
for ABROCA"; ABROCA as in :mod:`polars_fair.abroca` (Gardner, Brooks & Baker 2019).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair import errors as E
from polars_fair._lazy import np
from polars_fair.progress import progress_bar
from polars_fair.scoreview import ReferenceSpec, ScoreView, score_reference, score_view

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "BAD_PERMUTATIONS",
    "BAD_TOLERANCE",
    "BLOCK_CELLS",
    "GRID_CACHE_CELLS",
    "MAX_POOLED_ROWS",
    "NO_VALID_PERMUTATION",
    "SMALL_POOL",
    "WEIGHTED_TEST",
    "GridCache",
    "MergedGrid",
    "NullResult",
    "PooledCells",
    "WeightedTestError",
    "abroca_test_from_scores",
    "abroca_test_plan",
    "holm_adjust",
    "merged_grid",
    "permutation_null",
    "pooled_cells",
    "split_abroca",
]

NO_VALID_PERMUTATION = "no permutation gave both groups both classes"
WEIGHTED_TEST = (
    "the ABROCA randomization test needs integer counts; columns 'positives'/'negatives' are "
    "{dtype} (weighted). Sample weights are not exchangeable units, so the permutation null is "
    "not defined for them: run the test without sample_weight"
)
BAD_PERMUTATIONS = "n_permutations must be an integer >= 1, got {value!r}"
#: numpy's hypergeometric sampler takes fewer negatives (positives) than this.
MAX_POOLED_ROWS = 10**9
BAD_TOLERANCE = "tolerance must be a finite number >= 0, got {value!r}"


#: Cells (rows x pooled rows, rows x grid intervals) of one block of draws: bounds the memory.
BLOCK_CELLS = 1_000_000
#: Pools of at most this many positives (negatives) draw their subsets in one vectorized call.
SMALL_POOL = 1000
#: Merged-grid intervals a :data:`GridCache` may hold before it is cleared.
GRID_CACHE_CELLS = 20_000_000
_TINY = 1e-300


class WeightedTestError(E.PolarsFairError):
    """The randomization test was asked for on a weighted (Float64 count) score table."""

def holm_adjust(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm (1979) step-down adjusted p-values; nulls stay null and are not counted.

    With the ``m`` defined p-values sorted, ``p_(1) <= ... <= p_(m)``, the adjusted value is
    ``max_{j <= i} min(1, (m - j + 1) p_(j))``, reported in the input order.

    Parameters
    ----------
    p_values : sequence of float or None
        Raw p-values in [0, 1].

    Returns
    -------
    list of float or None
        Adjusted p-values in [0, 1], same order and length.

    Examples
    --------
    >>> holm_adjust([0.01, 0.04, None, 0.03])
    [0.03, 0.06, None, 0.06]
    """
    idx = [i for i, p in enumerate(p_values) if p is not None]
    m = len(idx)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda i: (p_values[i], i))):
        p = p_values[i]
        assert p is not None
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out



GridCache = dict[tuple[int, int], "MergedGrid"]


@dataclass(frozen=True)
class NullResult:
    """The randomization null of ABROCA for one pair of groups (:func:`permutation_null`).

    Parameters
    ----------
    observed : float
        ABROCA of the observed split.
    draws : numpy.ndarray of float64
        ABROCA of each valid draw (draws leaving a group without a class are not kept).
    p_value : float or None
        ``(1 + #{draws >= observed - tolerance}) / (1 + len(draws))``; ``None`` without a valid
        draw.

    Examples
    --------
    >>> import numpy as np
    >>> r = NullResult(observed=0.5, draws=np.array([0.1, 0.6]), p_value=2 / 3)
    >>> r.draws.size
    2
    """

    observed: float
    draws: NDArray[np.float64]
    p_value: float | None


def permutation_null(
    pool_pos: NDArray[np.int64],
    pool_neg: NDArray[np.int64],
    grp_pos: NDArray[np.int64],
    grp_neg: NDArray[np.int64],
    n_permutations: int,
    rng: np.random.Generator,
    tolerance: float,
    cache: GridCache | None = None,
) -> NullResult:
    """Randomization null of ABROCA between a group and the rest of a pooled sample.

    All arrays are per pooled distinct score (a *cell*), sorted by score *descending*; the group's
    counts are a part of the pooled counts. Each draw gives the group ``n_g`` of the ``M`` pooled
    rows uniformly at random without replacement, the rest to the other group; it is drawn as
    ``N_a ~ Hypergeometric`` (the group's negatives) and then a uniformly random subset of
    ``N_a`` of the pooled negatives and one of ``n_g - N_a`` of the pooled positives
    (``numpy.random.Generator.choice``, ``O(n_g)`` random numbers per draw, never a permutation
    of all rows). Draws that leave a group without a class have no ABROCA: whether a draw does
    depends on ``N_a`` only, so invalid draws are redrawn before any row is drawn (the test
    conditions on both groups having both classes, as the observed split does), up to
    ``50 B + 1000`` draws in all. The draws are then grouped by ``N_a``: the merged FPR grid of
    both ROC curves depends only on ``(N_a, N_b)`` (:func:`merged_grid`), so every draw of a
    group is evaluated with the same gathers, exactly (:func:`split_abroca`), in blocks of
    bounded memory. This is Algorithm 1 of Borchers et al. for one group; ``p`` as in
    :func:`abroca_test_from_scores`.

    Parameters
    ----------
    pool_pos, pool_neg : numpy.ndarray of int64, shape (K,)
        Positives and negatives of both groups together at each pooled distinct score.
    grp_pos, grp_neg : numpy.ndarray of int64, shape (K,)
        The tested group's part of them.
    n_permutations : int
        Valid draws wanted, ``B`` (>= 1).
    rng : numpy.random.Generator
        The random stream (consumed).
    tolerance : float
        Absolute slack in ``ABROCA_b >= ABROCA_obs - tolerance`` (>= 0).
    cache : dict, optional
        Grids of :func:`merged_grid` keyed by ``(N_a, N_b)``, shared across calls (cleared when
        it holds more than :data:`GRID_CACHE_CELLS` intervals).

    Returns
    -------
    NullResult
        The observed ABROCA, the valid draws (in the order of their ``N_a`` draws) and the
        p-value.

    Raises
    ------
    SizeLimitError
        The pooled cells hold :data:`MAX_POOLED_ROWS` rows or more.

    Examples
    --------
    Four rows with distinct scores (descending: +, +, -, -); the group holds rows 1 and 3.
    Every split that leaves both groups both classes ranks each group perfectly: ABROCA 0.

    >>> import numpy as np
    >>> r = permutation_null(np.array([1, 1, 0, 0]), np.array([0, 0, 1, 1]),
    ...                      np.array([1, 0, 0, 0]), np.array([0, 0, 1, 0]),
    ...                      20, np.random.default_rng(0), 1e-12)
    >>> r.observed, r.p_value, r.draws.size
    (0.0, 1.0, 20)
    """
    pooled = int(pool_pos.sum()) + int(pool_neg.sum())
    if pooled >= MAX_POOLED_ROWS:
        raise E.SizeLimitError(E.TOO_LARGE_TO_PERMUTE.format(
            group="the tested group", rows=pooled, limit=MAX_POOLED_ROWS))
    if cache is None:
        cache = {}
    pool = pooled_cells(pool_pos, pool_neg)
    n_pos, n_neg = pool.n_pos, pool.n_neg
    n_sample = int(grp_pos.sum() + grp_neg.sum())
    v_obs = int(grp_neg.sum())
    # the observed split: the group holds the first grp counts of each cell's rows
    mem_p = _first_of_cells(pool_pos, grp_pos)[None, :]
    mem_n = _first_of_cells(pool_neg, grp_neg)[None, :]
    observed = float(split_abroca(pool, v_obs, mem_p, mem_n, cache)[0])
    # N_a of each draw; a draw is valid when both groups hold both classes
    sizes: list[NDArray[np.int64]] = []
    n_kept = 0
    attempts = 0
    max_attempts = 50 * n_permutations + 1000
    while n_kept < n_permutations and attempts < max_attempts and n_pos > 0 and n_neg > 0:
        size = min(max(n_permutations - n_kept, 1), max_attempts - attempts)
        attempts += size
        drawn = rng.hypergeometric(n_neg, n_pos, n_sample, size=size).astype(np.int64)
        p_a = n_sample - drawn
        drawn = drawn[(drawn > 0) & (drawn < n_neg) & (p_a > 0) & (p_a < n_pos)]
        sizes.append(drawn)
        n_kept += drawn.size
    v_all = np.concatenate(sizes)[:n_permutations] if sizes else np.zeros(0, dtype=np.int64)
    null = np.empty(v_all.size)
    order = np.argsort(v_all, kind="stable")
    v_sorted = v_all[order]
    starts = np.flatnonzero(np.r_[True, v_sorted[1:] != v_sorted[:-1]])
    bounds = [*(int(x) for x in starts[: v_all.size]), v_all.size]
    step = max(1, BLOCK_CELLS // max(n_neg, n_pos, 1))
    for lo, hi in itertools.pairwise(bounds):
        v = int(v_sorted[lo])
        for s in range(lo, hi, step):
            rows = min(step, hi - s)
            mem_n = _random_members(rng, n_neg, v, rows)
            mem_p = _random_members(rng, n_pos, n_sample - v, rows)
            null[order[s : s + rows]] = split_abroca(pool, v, mem_p, mem_n, cache)
    p_value = (
        float((1 + np.count_nonzero(null >= observed - tolerance)) / (1 + null.size))
        if null.size
        else None
    )
    return NullResult(observed=observed, draws=null, p_value=p_value)


def _first_of_cells(pool: NDArray[np.int64], part: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Membership of the first ``part[c]`` of the ``pool[c]`` rows of each cell ``c``."""
    cell = np.repeat(np.arange(pool.size), pool)
    rank = np.arange(cell.size) - np.repeat(np.cumsum(pool) - pool, pool)
    return np.asarray(rank < part[cell])


def _random_members(rng: np.random.Generator, n: int, k: int, rows: int) -> NDArray[np.bool_]:
    """``rows`` uniformly random subsets of size ``k`` of ``range(n)``, as a boolean matrix.

    The smaller of the subset and its complement is drawn: ``Generator.choice`` without
    replacement per row (Floyd's algorithm or a partial shuffle, ``O(min(k, n - k))`` random
    numbers), or, for at most :data:`SMALL_POOL` rows, the positions of the smallest of ``n``
    uniform keys, all rows in one call.
    """
    flip = k > n - k
    kk = n - k if flip else k
    out = np.full((rows, n), flip)
    if not kk:
        return out
    if n <= SMALL_POOL:  # one call: the kk smallest of n uniform keys per row
        idx = np.argpartition(rng.random((rows, n)), kk - 1, axis=1)[:, :kk].ravel()
    else:
        idx = np.concatenate([rng.choice(n, kk, replace=False, shuffle=False)
                              for _ in range(rows)])
    idx += np.repeat(np.arange(rows, dtype=np.int64) * n, kk)
    out.ravel()[idx] = not flip
    return out


@dataclass(frozen=True)
class PooledCells:
    """The pooled rows of two groups, as the randomization kernel reads them.

    Rows are ordered by score descending (cell by cell); the positives and the negatives are
    numbered separately in that order. A *mixed* cell holds both classes (a diagonal ROC segment
    is possible there). Made by :func:`pooled_cells`.

    Parameters
    ----------
    n_pos, n_neg : int
        Pooled positives ``P`` and negatives ``N``.
    above : numpy.ndarray of intp, shape (N,)
        For pooled negative ``j``: the pooled positives in its cell or a higher one.
    mixed : numpy.ndarray of intp, shape (X,)
        The pooled negatives of mixed cells, ascending.
    cell : numpy.ndarray of intp, shape (X,)
        The mixed cell (``0 <= cell < S``, in score order) of each of ``mixed``.
    first, last : numpy.ndarray of intp, shape (S,)
        Mixed cell ``s`` holds ``mixed[first[s]:last[s]]``.
    start_p, end_p, start_n, end_n : numpy.ndarray of intp, shape (S,)
        For each mixed cell: the pooled positives (negatives) in higher cells, and in it or
        higher.
    segment : numpy.ndarray of intp, shape (N,)
        For pooled negative ``j``: the mixed cells starting at or before it, so that
        ``j < start_n[s]`` exactly when ``segment[j] <= s``.

    Examples
    --------
    >>> import numpy as np
    >>> pool = pooled_cells(np.array([1, 1, 0]), np.array([0, 2, 1]))
    >>> pool.above.tolist(), pool.mixed.tolist(), pool.start_p.tolist(), pool.end_n.tolist()
    ([2, 2, 2], [0, 1], [1], [2])
    """

    n_pos: int
    n_neg: int
    above: NDArray[np.intp]
    mixed: NDArray[np.intp]
    cell: NDArray[np.intp]
    first: NDArray[np.intp]
    last: NDArray[np.intp]
    start_p: NDArray[np.intp]
    end_p: NDArray[np.intp]
    start_n: NDArray[np.intp]
    end_n: NDArray[np.intp]
    segment: NDArray[np.intp]


def pooled_cells(pool_pos: NDArray[np.int64], pool_neg: NDArray[np.int64]) -> PooledCells:
    """The kernel's view of pooled cells (:class:`PooledCells`).

    Parameters
    ----------
    pool_pos, pool_neg : numpy.ndarray of int64, shape (K,)
        Positives and negatives at each distinct score, sorted by score descending.

    Returns
    -------
    PooledCells
        The positives above each negative and the negatives of mixed cells.

    Examples
    --------
    >>> import numpy as np
    >>> pooled_cells(np.array([1, 0]), np.array([0, 1])).above.tolist()
    [1]
    """
    pos = np.asarray(pool_pos, dtype=np.intp)
    neg = np.asarray(pool_neg, dtype=np.intp)
    zero = np.zeros(1, dtype=np.intp)
    cum_p = np.concatenate((zero, np.cumsum(pos)))
    cum_n = np.concatenate((zero, np.cumsum(neg)))
    cell_of = np.repeat(np.arange(neg.size), neg)
    cells = np.flatnonzero((pos > 0) & (neg > 0))
    mixed = np.flatnonzero(pos[cell_of] > 0)
    sizes = neg[cells]
    last = np.cumsum(sizes)
    start_n = cum_n[cells]
    return PooledCells(
        n_pos=int(cum_p[-1]), n_neg=int(cum_n[-1]), above=cum_p[cell_of + 1], mixed=mixed,
        cell=np.repeat(np.arange(cells.size), sizes), first=last - sizes, last=last,
        start_p=cum_p[cells], end_p=cum_p[cells + 1], start_n=start_n,
        end_n=cum_n[cells + 1],
        segment=np.searchsorted(start_n, np.arange(int(cum_n[-1])), side="right"),
    )


@dataclass(frozen=True)
class MergedGrid:
    """The merged FPR breakpoints of two ROC curves with ``N_a`` and ``N_b`` negatives.

    On the common denominator ``N_a N_b`` curve a breaks at ``i N_b`` and curve b at
    ``j N_a``; between consecutive merged breakpoints both curves are linear. Made by
    :func:`merged_grid`.

    Parameters
    ----------
    z : numpy.ndarray of int64, shape (L + 1,)
        The merged breakpoints, ascending, from 0 to ``N_a N_b``.
    ia, ib : numpy.ndarray of intp, shape (L,)
        Interval ``m`` lies on negative-step ``ia[m]`` of curve a and ``ib[m]`` of curve b.
    w : numpy.ndarray of float64, shape (L,)
        Interval widths.
    start_a, start_b : numpy.ndarray of intp, shape (N_a + 1,) and (N_b + 1,)
        Step ``i`` of curve a covers intervals ``start_a[i]:start_a[i + 1]`` (b likewise).

    Examples
    --------
    >>> g = merged_grid(2, 3)
    >>> g.z.tolist(), g.ia.tolist(), g.ib.tolist(), g.start_a.tolist()
    ([0, 2, 3, 4, 6], [0, 0, 1, 1], [0, 1, 1, 2], [0, 2, 4])
    """

    z: NDArray[np.int64]
    ia: NDArray[np.intp]
    ib: NDArray[np.intp]
    w: NDArray[np.float64]
    start_a: NDArray[np.intp]
    start_b: NDArray[np.intp]


def merged_grid(n_a: int, n_b: int) -> MergedGrid:
    """The merged breakpoints of two curves' FPR steps, in linear time (no sort).

    Breakpoint ``i N_b`` of curve a is preceded by ``i`` of its own, ``ceil(i N_b / N_a)`` of
    curve b's and ``ceil(i g / N_a)`` common ones (``g = gcd(N_a, N_b)``; the common
    breakpoints are the multiples of ``lcm(N_a, N_b)``), so its index among the distinct merged
    breakpoints is known without sorting; likewise for curve b.

    Parameters
    ----------
    n_a, n_b : int
        Negatives of the two curves (>= 1).

    Returns
    -------
    MergedGrid
        ``N_a + N_b - g`` intervals.

    Examples
    --------
    >>> merged_grid(2, 2).w.tolist()
    [2.0, 2.0]
    """
    g = math.gcd(n_a, n_b)
    i = np.arange(n_a + 1, dtype=np.int64)
    j = np.arange(n_b + 1, dtype=np.int64)
    start_a = i + (i * n_b + n_a - 1) // n_a - (i * g + n_a - 1) // n_a
    start_b = j + (j * n_a + n_b - 1) // n_b - (j * g + n_b - 1) // n_b
    z = np.empty(n_a + n_b + 1 - g, dtype=np.int64)
    z[start_a] = i * n_b
    z[start_b] = j * n_a
    left = z[:-1]
    return MergedGrid(
        z=z, ia=(left // n_b).astype(np.intp), ib=(left // n_a).astype(np.intp),
        w=np.diff(z).astype(np.float64), start_a=start_a.astype(np.intp),
        start_b=start_b.astype(np.intp),
    )


def _grid(cache: GridCache, v: int, u: int) -> MergedGrid:
    grid = cache.get((v, u))
    if grid is None:
        if sum(g.w.size for g in cache.values()) > GRID_CACHE_CELLS:
            cache.clear()
        grid = cache[(v, u)] = merged_grid(v, u)
    return grid


def split_abroca(
    pool: PooledCells,
    n_a: int,
    mem_p: NDArray[np.bool_],
    mem_n: NDArray[np.bool_],
    cache: GridCache | None = None,
) -> NDArray[np.float64]:
    """Exact ABROCA of many splits of pooled rows, each giving group a ``n_a`` negatives.

    Row ``r`` of ``mem_p`` (``mem_n``) marks the pooled positives (negatives) of group a in
    split ``r``; group b holds the rest. On FPR step ``i`` of curve a (between its ``i``-th and
    ``(i+1)``-th negative, width ``1 / N_a``) the curve is linear: its ``(i+1)``-th negative lies
    in a cell where a holds ``p`` positives and ``n`` negatives, ``T`` positives above the cell
    and ``o`` negatives of the cell before it, so the step starts at ``T + p o / n`` positives
    and rises by ``p / n`` (the diagonal of tied scores; ``p = 0`` gives the staircase of
    distinct scores, value ``T``). With ``P_a``, ``P_b`` the positives and ``d`` the difference
    of the curves times ``P_a P_b``, over the merged grid (:func:`merged_grid`, common
    denominator ``N_a N_b``)

    ``ABROCA = sum_m w_m A(d_m(left), d_m(right)) / (P_a P_b N_a N_b)``

    with ``A(d0, d1) = (|d0| + |d1|) / 2`` when the signs agree and
    ``(d0^2 + d1^2) / (2 (|d0| + |d1|))`` across a zero crossing, the exact integral of
    ``|d|`` (Gardner, Brooks & Baker 2019; as :func:`polars_fair.roc.abroca_exact`). Steps with
    no slope on either curve (every step of distinct scores) take ``w_m |d_m|`` in one dense
    pass; the others (negatives of cells holding both classes) are evaluated sparsely and
    overwrite theirs, which is the same number: the general formula gives ``w |d|`` bit for bit
    when both slopes are zero. The row sums are numpy's pairwise sums.

    Parameters
    ----------
    pool : PooledCells
        The pooled rows (:func:`pooled_cells`).
    n_a : int
        Negatives of group a in every row, ``1 <= n_a < N``.
    mem_p : numpy.ndarray of bool, shape (B, P)
        Group-a membership of the pooled positives; each row holds ``P_a`` with
        ``0 < P_a < P``, the same in every row.
    mem_n : numpy.ndarray of bool, shape (B, N)
        Group-a membership of the pooled negatives, ``n_a`` per row.
    cache : dict, optional
        Grids keyed by ``(N_a, N_b)``.

    Returns
    -------
    numpy.ndarray of float64, shape (B,)
        ABROCA in [0, 1] per split.

    Examples
    --------
    Distinct scores +, -, +, -; group a holds rows 0 and 1 (a perfect ranking), b the rest.

    >>> import numpy as np
    >>> pool = pooled_cells(np.array([1, 0, 1, 0]), np.array([0, 1, 0, 1]))
    >>> split_abroca(pool, 1, np.array([[True, False]]), np.array([[True, False]])).tolist()
    [0.0]
    """
    rows = mem_n.shape[0]
    v, u = n_a, pool.n_neg - n_a
    p_a = int(np.count_nonzero(mem_p[0]))
    p_b = pool.n_pos - p_a
    grid = _grid({} if cache is None else cache, v, u)
    cum_a = np.zeros((rows, pool.n_pos + 1), dtype=np.int32)
    np.cumsum(mem_p, axis=1, out=cum_a[:, 1:])
    # a's positives at or above each pooled negative's cell; b's are the rest of ``above``
    h_all = np.take(cum_a, pool.above, axis=1)
    at_a = np.flatnonzero(mem_n)  # rows in order, ascending within a row
    at_b = np.flatnonzero(~mem_n)
    h_a = h_all.ravel()[at_a].reshape(rows, v)
    h_b = (pool.above.astype(np.int32) - h_all).ravel()[at_b].reshape(rows, u)
    # C-ordered rows (np.take, not fancy indexing): the row sums below are pairwise sums
    d = np.take(h_a * float(p_b), grid.ia, axis=1)
    d -= np.take(h_b * float(p_a), grid.ib, axis=1)
    np.abs(d, out=d)
    d *= grid.w
    if pool.mixed.size:
        _sloped(pool, grid, (v, u, p_a, p_b), cum_a, mem_n, at_a, h_a, h_b, d)
    total: NDArray[np.float64] = np.add.reduce(d, axis=1)
    return total / (float(p_a) * float(p_b) * float(v) * float(u))


def _sloped(
    pool: PooledCells, grid: MergedGrid, sizes: tuple[int, int, int, int],
    cum_a: NDArray[np.int32], mem_n: NDArray[np.bool_], at_a: NDArray[np.intp],
    h_a: NDArray[np.int32], h_b: NDArray[np.int32], area: NDArray[np.float64],
) -> None:
    """Overwrite the areas of the merged intervals on a sloped step of either curve."""
    v, u, p_a, p_b = sizes
    rows, n_neg = mem_n.shape
    n_cells = pool.start_n.size
    # a's negatives before each mixed cell: count a's negatives by segment
    seg = pool.segment[(at_a.reshape(rows, v) - (np.arange(rows) * n_neg)[:, None]).ravel()]
    seg += np.repeat(np.arange(rows) * (n_cells + 1), v)
    fa = np.cumsum(np.bincount(seg, minlength=rows * (n_cells + 1)).reshape(rows, -1), axis=1)
    fa = fa[:, :n_cells] if n_cells else fa[:, :0]
    in_a = mem_n[:, pool.mixed]
    seen = np.zeros((rows, pool.mixed.size + 1), dtype=np.int64)
    np.cumsum(in_a, axis=1, out=seen[:, 1:])
    c = pool.cell
    na = (seen[:, pool.last] - seen[:, pool.first])[:, c]
    oa = seen[:, :-1] - seen[:, pool.first][:, c]
    before = fa[:, c] + oa  # the index of a mixed negative among a's, if it is a's
    ta = cum_a[:, pool.start_p].astype(np.int64)
    pa = (cum_a[:, pool.end_p] - ta)[:, c]
    ta = ta[:, c]
    tb = pool.start_p[c] - ta
    pb = (pool.end_p - pool.start_p)[c] - pa
    nb = (pool.end_n - pool.start_n)[c] - na
    ob = (pool.mixed - pool.start_n[c]) - oa
    left_a = h_a.astype(np.float64)
    left_b = h_b.astype(np.float64)
    s_a = np.zeros(left_a.shape)
    s_b = np.zeros(left_b.shape)
    flats = []
    for keep, t, p, o, n, idx, left, s, start in (
        (in_a & (pa > 0), ta, pa, oa, na, before, left_a, s_a, grid.start_a),
        (~in_a & (pb > 0), tb, pb, ob, nb, pool.mixed - before, left_b, s_b, grid.start_b),
    ):
        r, x = np.nonzero(keep)
        if not r.size:
            continue
        i = idx[r, x]
        pp, nn = p[r, x], n[r, x]
        left[r, i] = t[r, x] + pp * o[r, x] / nn
        s[r, i] = pp / nn
        lo = start[i] + r * grid.w.size
        count = start[i + 1] - start[i]
        flats.append(np.repeat(lo - np.cumsum(count) + count, count) + np.arange(count.sum()))
    if not flats:
        return
    flat = np.concatenate(flats)
    r, m = np.divmod(flat, grid.w.size)
    ia, ib, z, w = grid.ia[m], grid.ib[m], grid.z[m], grid.w[m]
    sa, sb = s_a[r, ia], s_b[r, ib]
    d0 = ((left_a[r, ia] + sa * ((z - ia * u) / u)) * p_b
          - (left_b[r, ib] + sb * ((z - ib * v) / v)) * p_a)
    d1 = d0 + (sa * (w / u) * p_b - sb * (w / v) * p_a)
    total = np.abs(d0) + np.abs(d1)
    crossing = np.maximum(-(d0 * d1), 0.0) / np.maximum(total, _TINY)
    area.ravel()[flat] = w * (0.5 * total - crossing)


def _pool(
    groups: ScoreView, g: int, ref: int
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Counts of group ``g`` and of ``g`` + ``ref`` over their pooled scores, descending."""
    sg, pg, ng = groups.cells(g)
    sr, pr, nr = groups.cells(ref)
    grid = np.unique(np.concatenate((sg, sr)))[::-1]
    neg_grid = -grid  # ascending, for searchsorted

    def on_grid(s: NDArray[np.float64], c: NDArray[Any]) -> NDArray[np.int64]:
        idx = np.searchsorted(neg_grid, -s)
        return np.bincount(idx, weights=c, minlength=grid.size).round().astype(np.int64)

    gp, gn = on_grid(sg, pg), on_grid(sg, ng)
    return gp + on_grid(sr, pr), gn + on_grid(sr, nr), gp, gn



def abroca_test_from_scores(
    scores: pl.DataFrame,
    keys: Sequence[str],
    *,
    reference: ReferenceSpec = "largest",
    n_permutations: int = 1000,
    seed: int | np.random.Generator | None = None,
    tolerance: float = 1e-12,
    return_draws: bool = False,
    progress: bool | None = None,
) -> pl.DataFrame:
    """Randomization test of ABROCA between each group and the reference group.

    Algorithm 1 of Borchers et al. ("Toward Sufficient Statistical Power in Algorithmic Bias
    Assessment: A Test for ABROCA"): under H0 a row's group membership is exchangeable between
    the tested group and the reference. The two groups' (score, label) cells are pooled; each of
    the ``B = n_permutations`` draws gives the tested group ``n_g`` of the pooled rows, uniformly
    without replacement (:func:`permutation_null`: its number of negatives, then which
    negatives and positives, ``O(n_g)`` random numbers, never a permutation of all rows), the
    rest go to the reference, and ABROCA (:func:`polars_fair.abroca.abroca_from_scores`) is
    computed for the draw, exactly (:func:`split_abroca`, many draws per numpy pass). Draws
    that leave either group without a class have no ABROCA and are redrawn, so the test
    conditions on both groups holding both classes (as the observed split does). Then

    ``p = (1 + #{b : ABROCA_b >= ABROCA_obs - tolerance}) / (1 + B)``,

    which is a valid p-value (``P(p <= alpha) <= alpha`` under H0). The ``tolerance`` absorbs
    floating-point error: a draw whose ABROCA equals the observed one mathematically (for
    example the observed split itself, or its mirror image) can differ from it in the last bits,
    and must count as at least as extreme. Holm's step-down adjustment is applied across the
    tested groups.

    Parameters
    ----------
    scores : polars.DataFrame
        The score table (see :func:`polars_fair.abroca.abroca_from_scores`) with integer counts.
    keys : sequence of str
        Group key columns.
    reference : {"largest", "max_auc"}, group value, mapping or tuple, default "largest"
        Reference group, as in :func:`polars_fair.abroca.abroca_from_scores`.
    n_permutations : int, default 1000
        Number of randomization draws ``B`` per tested group (>= 1).
    seed : int, numpy.random.Generator or None
        Seed of ``numpy.random.default_rng``; the groups are tested in key order from one stream,
        so a seed reproduces the whole result.
    tolerance : float, default 1e-12
        Absolute slack in ``ABROCA_b >= ABROCA_obs - tolerance`` (>= 0).
    return_draws : bool, default False
        Add the null draws as a ``draws`` column.

    progress : bool or None, default None
        A tqdm bar over the groups tested, on stderr; ``None`` shows it only on a terminal.

    Returns
    -------
    polars.DataFrame
        One row per tested (non-reference) group, sorted by the keys:

        - the key columns;
        - ``n`` (Int64): rows in the group;
        - ``abroca`` (Float64 in [0, 1]): observed ABROCA against the reference;
        - ``p_value`` (Float64 in (0, 1]) and ``p_value_holm`` (Float64, Holm-adjusted across the
          rows with a p-value);
        - ``null_mean``, ``null_q95`` (Float64): mean and 95th percentile (linear interpolation)
          of the null draws;
        - ``n_permutations`` (Int64): the draws used (``B``; fewer only if valid draws ran out
          after ``50 B + 1000`` attempts);
        - ``undefined_reason`` (String): null, or why the row has no test (one class in the
          group or the reference, or no valid draw);
        - ``draws`` (List(Float64)), only with ``return_draws=True``.

    Raises
    ------
    WeightedTestError
        The table holds Float64 (weighted) counts: the permutation null of weighted units is not
        defined here.
    polars_fair.errors.InvalidArgumentError
        ``n_permutations`` < 1, a bad ``tolerance``, ``seed``, ``return_draws`` or
        ``progress``; and every error of
        :func:`polars_fair.abroca.abroca_from_scores` for the table and ``reference``.
    polars_fair.errors.SizeLimitError
        A tested group and the reference hold :data:`MAX_POOLED_ROWS` (10⁹) rows or more
        together: numpy's sampler cannot draw from them. Raised before any draw.

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({
    ...     "g": ["a"] * 4 + ["b"] * 4,
    ...     "score": [0.1, 0.2, 0.3, 0.4] * 2,
    ...     "positives": [0, 0, 1, 1, 1, 1, 0, 0],
    ...     "negatives": [1, 1, 0, 0, 0, 0, 1, 1],
    ... })
    >>> out = abroca_test_from_scores(table, ["g"], reference="a", n_permutations=200, seed=1)
    >>> out.select("g", "n", "abroca", "n_permutations")
    shape: (1, 4)
    ┌─────┬─────┬────────┬────────────────┐
    │ g   ┆ n   ┆ abroca ┆ n_permutations │
    │ --- ┆ --- ┆ ---    ┆ ---            │
    │ str ┆ i64 ┆ f64    ┆ i64            │
    ╞═════╪═════╪════════╪════════════════╡
    │ b   ┆ 4   ┆ 1.0    ┆ 200            │
    └─────┴─────┴────────┴────────────────┘
    """
    if (isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer))
            or n_permutations < 1):
        raise E.InvalidArgumentError(BAD_PERMUTATIONS.format(value=n_permutations))
    if isinstance(tolerance, np.generic):
        tolerance = tolerance.item()
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) \
            or not math.isfinite(tolerance) or tolerance < 0:
        raise E.InvalidArgumentError(BAD_TOLERANCE.format(value=tolerance))
    if not (seed is None or isinstance(seed, (np.random.Generator, np.random.SeedSequence))
            or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)
                and seed >= 0)):
        raise E.InvalidArgumentError(E.BAD_SEED.format(value=seed))
    for flag, value in (("return_draws", return_draws), ("progress", progress)):
        if not (isinstance(value, (bool, np.bool_)) or (flag == "progress" and value is None)):
            raise E.InvalidArgumentError(E.NOT_A_BOOL.format(name=flag, value=value))
    groups = score_view(scores, keys)
    if groups.weighted:
        raise WeightedTestError(WEIGHTED_TEST.format(dtype=scores.collect_schema()["positives"]))
    ref = score_reference(groups, reference)
    rng = np.random.default_rng(seed)
    tested = [g for g in range(len(groups)) if g != ref]
    for g in tested:  # numpy's sampler refuses 10^9 rows: say so before any draw
        pooled = int(groups.n[g]) + (int(groups.n[ref]) if ref is not None else 0)
        if ref is not None and pooled >= MAX_POOLED_ROWS:
            raise E.SizeLimitError(E.TOO_LARGE_TO_PERMUTE.format(
                group=groups.label(g), rows=pooled, limit=MAX_POOLED_ROWS))
    observed: list[float | None] = []
    p_values: list[float | None] = []
    means: list[float | None] = []
    q95s: list[float | None] = []
    used: list[int] = []
    reasons: list[str | None] = []
    all_draws: list[list[float]] = []
    bar = progress_bar(len(tested), "abroca_test: groups", progress)
    for g in tested:
        bar.update(1)
        reason = groups.compare_reason(g, ref)
        result = None
        if reason is None and ref is not None:
            pool_pos, pool_neg, gp, gn = _pool(groups, g, ref)
            result = permutation_null(
                pool_pos, pool_neg, gp, gn, int(n_permutations), rng, float(tolerance)
            )
            if result.p_value is None:
                reason = NO_VALID_PERMUTATION
        reasons.append(reason)
        draws = result.draws if result is not None else np.zeros(0)
        observed.append(result.observed if result is not None else None)
        p_values.append(result.p_value if result is not None else None)
        means.append(float(np.mean(draws)) if draws.size else None)
        q95s.append(float(np.quantile(draws, 0.95)) if draws.size else None)
        used.append(int(draws.size))
        all_draws.append(draws.tolist())
    bar.close()
    out = groups.key_frame[tested].with_columns(
        pl.Series("n", groups.n[tested], dtype=pl.Int64),
        pl.Series("abroca", observed, dtype=pl.Float64),
        pl.Series("p_value", p_values, dtype=pl.Float64),
        pl.Series("p_value_holm", holm_adjust(p_values), dtype=pl.Float64),
        pl.Series("null_mean", means, dtype=pl.Float64),
        pl.Series("null_q95", q95s, dtype=pl.Float64),
        pl.Series("n_permutations", used, dtype=pl.Int64),
        pl.Series("undefined_reason", reasons, dtype=pl.String),
    )
    if return_draws:
        out = out.with_columns(pl.Series("draws", all_draws, dtype=pl.List(pl.Float64)))
    return out



def abroca_test_plan(
    table: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: ReferenceSpec = "largest",
    n_permutations: int = 1000,
    seed: int | None = None,
    tolerance: float = 1e-12,
    return_draws: bool = False,
    progress: bool | None = None,
) -> pl.LazyFrame:
    """:func:`abroca_test_from_scores` as a step of a lazy plan, with its schema declared.

    Parameters
    ----------
    table : pl.LazyFrame
        A score table with integer counts.
    keys : sequence of str
        As in :func:`abroca_test_from_scores`.
    reference : {"largest", "max_auc"}, group value, mapping or tuple, default "largest"
        As in :func:`abroca_test_from_scores`.
    n_permutations : int, default 1000
        As in :func:`abroca_test_from_scores`.
    seed : int or None
        As in :func:`abroca_test_from_scores`.
    tolerance : float, default 1e-12
        As in :func:`abroca_test_from_scores`.
    return_draws : bool, default False
        As in :func:`abroca_test_from_scores`.
    progress : bool or None, default None
        As in :func:`abroca_test_from_scores`.

    Returns
    -------
    pl.LazyFrame
        The columns of :func:`abroca_test_from_scores`.

    Examples
    --------
    >>> import polars as pl
    >>> t = pl.LazyFrame({"g": ["a", "a", "b", "b"], "score": [0.1, 0.9, 0.1, 0.9],
    ...                   "positives": [0, 3, 1, 2], "negatives": [3, 0, 2, 1]})
    >>> abroca_test_plan(t, ["g"], n_permutations=50, seed=0).collect().height
    1
    """
    keys = list(keys)
    schema_in = table.collect_schema()
    schema = pl.Schema(
        [(k, schema_in[k]) for k in keys]
        + [("n", pl.Int64), ("abroca", pl.Float64), ("p_value", pl.Float64),
           ("p_value_holm", pl.Float64), ("null_mean", pl.Float64), ("null_q95", pl.Float64),
           ("n_permutations", pl.Int64), ("undefined_reason", pl.String)]
        + ([("draws", pl.List(pl.Float64))] if return_draws else [])
    )
    return table.map_batches(
        lambda df: abroca_test_from_scores(
            df, keys, reference=reference, n_permutations=n_permutations, seed=seed,
            tolerance=tolerance, return_draws=return_draws, progress=progress,
        ),
        schema=schema,
    )

