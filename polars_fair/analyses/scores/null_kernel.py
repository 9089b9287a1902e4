"""Exact ABROCA of many two-group splits of pooled rows: the kernel of the randomization test.

A *split* gives group a some of the pooled rows of two groups (rows sorted by score, tied rows in
one cell) and group b the rest; :mod:`polars_fair.analyses.scores.permutation` draws thousands of
them and needs the exact ABROCA of each. The draws are grouped by group a's number of negatives
``N_a``: the merged FPR breakpoints of the two ROC curves depend only on ``(N_a, N_b)``
(:func:`merged_grid`, built in linear time), so every split of a group is evaluated with the
same gathers (:func:`split_abroca`): a dense pass for the staircase steps, a sparse one for the
diagonal steps of tied scores. :func:`random_members` draws the splits' memberships and
:func:`first_of_cells` marks an observed split. ``tests/analyses/scores/test_fast_paths.py`` checks
the kernel bit for bit against the general formula evaluated one split at a time.

That row kernel costs time in proportion to the pooled rows. The *cell kernel* costs time in
proportion to the pooled (score, label) cells: :func:`draw_cells` draws each split as the group's
count in each cell (one multivariate hypergeometric draw), and :func:`cell_abroca` computes the
exact ABROCA of many splits from cumulative sums over the cells. The randomization test chooses
between them from the data
(:func:`polars_fair.analyses.scores.permutation.null_kernel_for`).

ABROCA: Gardner, Brooks & Baker 2019 (LAK'19); the test: Borchers et al., "Toward Sufficient
Statistical Power in Algorithmic Bias Assessment: A Test for ABROCA".

Why one module: the row kernel and the cell kernel compute the same exact
ABROCA from the same merged grid and are checked against each other bit for bit; they share
the grid code and are tuned together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from polars_fair._docs import borrow
from polars_fair._lazy import np

if TYPE_CHECKING:
    from numpy.typing import NDArray

    #: Positions into arrays, and counts that index them (numpy's ``intp``).
    Positions = NDArray[np.intp]

__all__ = [
    "CELL_BLOCK",
    "GRID_CACHE_CELLS",
    "SMALL_POOL",
    "GridCache",
    "MergedGrid",
    "PooledCells",
    "cell_abroca",
    "draw_cells",
    "first_of_cells",
    "merged_grid",
    "observed_abroca",
    "pooled_cells",
    "random_members",
    "split_abroca",
]

#: Pools of at most this many positives (negatives) draw their subsets in one vectorized call.
SMALL_POOL = 1000
#: Merged-grid intervals a :data:`GridCache` may hold before it is cleared.
GRID_CACHE_CELLS = 20_000_000
#: Values (splits x breakpoints) of one block of :func:`cell_abroca`'s arrays: 64 KiB of float64,
#: so the block's temporaries stay in the allocator's reused heap and the CPU's cache (a block
#: of 1,000 splits of 100 cells, 1.6 MB per temporary, page-faulted on every allocation: 3 to 7
#: times slower, measured by ``benchmarks/abroca_bench.py``'s tied and mixed shapes).
CELL_BLOCK = 8192
_TINY = 1e-300

GridCache = dict[tuple[int, int], "MergedGrid"]


def first_of_cells(pool: NDArray[np.int64], part: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Membership of the first ``part[c]`` of the ``pool[c]`` rows of each cell ``c``.

    The rows of a class are numbered cell by cell; an observed split of the cells' counts is
    one of the splits with those counts (ABROCA depends on the counts per cell only).

    Parameters
    ----------
    pool : numpy.ndarray of int64, shape (K,)
        Rows of one class per cell.
    part : numpy.ndarray of int64, shape (K,)
        How many of them group a holds (``0 <= part <= pool``).

    Returns
    -------
    numpy.ndarray of bool, shape (pool.sum(),)
        True for group a's rows.

    Examples
    --------
    >>> import numpy as np
    >>> first_of_cells(np.array([2, 3]), np.array([1, 2])).tolist()
    [True, False, True, True, False]
    """
    cell = np.repeat(np.arange(pool.size), pool)
    rank = np.arange(cell.size) - np.repeat(np.cumsum(pool) - pool, pool)
    return np.asarray(rank < part[cell])


def random_members(rng: np.random.Generator, n: int, k: int, rows: int) -> NDArray[np.bool_]:
    """``rows`` uniformly random subsets of size ``k`` of ``range(n)``, as a boolean matrix.

    The smaller of the subset and its complement is drawn: ``Generator.choice`` without
    replacement per row (Floyd's algorithm or a partial shuffle, ``O(min(k, n - k))`` random
    numbers), or, for at most :data:`SMALL_POOL` rows, the positions of the smallest of ``n``
    uniform keys, all rows in one call.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random stream (consumed).
    n : int
        Items to choose from.
    k : int
        Subset size, ``0 <= k <= n``.
    rows : int
        Subsets wanted.

    Returns
    -------
    numpy.ndarray of bool, shape (rows, n)
        Exactly ``k`` True per row.

    Examples
    --------
    >>> import numpy as np
    >>> random_members(np.random.default_rng(0), 5, 2, 3).sum(axis=1).tolist()
    [2, 2, 2]
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
    above32 : numpy.ndarray of int32, shape (N,)
        ``above`` as int32 (the kernel's counts are int32: ``P < MAX_POOLED_ROWS < 2**31``).

    Examples
    --------
    >>> import numpy as np
    >>> pool = pooled_cells(np.array([1, 1, 0]), np.array([0, 2, 1]))
    >>> pool.above.tolist(), pool.mixed.tolist(), pool.start_p.tolist(), pool.end_n.tolist()
    ([2, 2, 2], [0, 1], [1], [2])
    """

    n_pos: int
    n_neg: int
    above: Positions
    mixed: Positions
    cell: Positions
    first: Positions
    last: Positions
    start_p: Positions
    end_p: Positions
    start_n: Positions
    end_n: Positions
    above32: NDArray[np.int32]


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
        above32=cum_p[cell_of + 1].astype(np.int32),
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
    ia: Positions
    ib: Positions
    w: NDArray[np.float64]
    start_a: Positions
    start_b: Positions


def merged_grid(n_a: int, n_b: int) -> MergedGrid:
    """The merged breakpoints of two curves' FPR steps, in linear time (no sort).

    Breakpoint ``x_i = i N_b`` of curve a, with ``x_i = q_i N_a + r_i`` (``0 <= r_i < N_a``), is
    preceded by ``i`` of its own, ``q_i + 1 - [r_i = 0]`` of curve b's (the multiples of
    ``N_a`` below it) and by the common breakpoints before it, which are curve a's with
    ``r = 0``; so its index among the distinct merged breakpoints is known without sorting.
    Curve b's breakpoints are the other positions and the common ones; merged interval ``m``
    starting at ``z_m`` lies on step ``z_m // N_b`` of curve a and ``z_m // N_a`` of curve b.

    Parameters
    ----------
    n_a, n_b : int
        Negatives of the two curves (>= 1).

    Returns
    -------
    MergedGrid
        ``N_a + N_b - gcd(N_a, N_b)`` intervals.

    Examples
    --------
    >>> merged_grid(2, 2).w.tolist()
    [2.0, 2.0]
    """
    i = np.arange(n_a + 1, dtype=np.intp)
    x = i * n_b
    q, r = np.divmod(x, n_a)
    common = r == 0
    n_common = np.cumsum(common)  # common breakpoints at or before x_i
    # i of a's, q + 1 - common of b's, minus the common ones before it counted twice
    start_a = i + q + 1 - n_common
    size = n_a + n_b + 2 - int(n_common[-1])
    b_mask = np.ones(size, dtype=bool)
    b_mask[start_a[~common]] = False
    start_b = np.flatnonzero(b_mask)
    z = np.empty(size, dtype=np.int64)
    z[start_b] = np.arange(n_b + 1, dtype=np.int64) * n_a
    z[start_a] = x
    left = z[:-1]
    return MergedGrid(z=z, ia=left // n_b, ib=left // n_a, w=np.diff(z).astype(np.float64),
                      start_a=start_a, start_b=start_b)


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
    ``|d|`` (Gardner, Brooks & Baker 2019; as :func:`polars_fair.analyses.scores.roc.abroca_exact`).
    Steps with no slope on either curve (every step of distinct scores) take ``w_m |d_m|`` in one
    dense pass; the others (negatives of cells holding both classes) are evaluated sparsely and
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
    h_b = (pool.above32 - h_all).ravel()[at_b].reshape(rows, u)
    # C-ordered rows (np.take, not fancy indexing): the row sums below are pairwise sums
    d = np.take(h_a * float(p_b), grid.ia, axis=1)
    d -= np.take(h_b * float(p_a), grid.ib, axis=1)
    np.abs(d, out=d)
    d *= grid.w
    if pool.mixed.size:
        _sloped(pool, grid, (v, u, p_a, p_b), cum_a, mem_n, at_a, h_a, h_b, d)
    total: NDArray[np.float64] = np.add.reduce(d, axis=1)
    return total / (float(p_a) * float(p_b) * float(v) * float(u))


def observed_abroca(
    pool_pos: NDArray[np.int64],
    pool_neg: NDArray[np.int64],
    grp_pos: NDArray[np.int64],
    grp_neg: NDArray[np.int64],
    cache: GridCache | None = None,
) -> float:
    """:func:`split_abroca` of one split given by its counts per cell, the same double.

    The randomization test's observed ABROCA, whichever kernel draws its null. Group a's
    ``(i+1)``-th negative lies in a cell where a holds ``p`` positives and ``n`` negatives, ``t``
    positives above the cell and ``o`` negatives of the cell before it: its step starts at
    ``t + p o / n`` and rises by ``p / n`` (``p = 0``: the staircase value ``t``). The general
    area formula of :func:`split_abroca` is evaluated on every interval of the merged grid, in
    one pass; on a step with no slope on either curve it gives ``w |d|`` bit for bit, as the
    kernel's dense pass does, so the result is :func:`split_abroca`'s double without its
    machinery for many splits (``tests/analyses/scores/test_fast_paths.py`` checks it).

    Parameters
    ----------
    pool_pos, pool_neg : numpy.ndarray of int64, shape (K,)
        Pooled positives and negatives per cell, sorted by score descending.
    grp_pos, grp_neg : numpy.ndarray of int64, shape (K,)
        Group a's part of them; both groups hold both classes.
    cache : dict, optional
        Grids keyed by ``(N_a, N_b)``, as :func:`split_abroca`.

    Returns
    -------
    float
        ABROCA in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> pos, neg = np.array([1, 0, 1, 0]), np.array([0, 1, 0, 1])
    >>> observed_abroca(pos, neg, np.array([0, 0, 1, 0]), np.array([0, 1, 0, 0]))
    1.0
    """
    sides = []
    for p_c, n_c in ((grp_pos, grp_neg), (pool_pos - grp_pos, pool_neg - grp_neg)):
        p_c = np.asarray(p_c, dtype=np.intp)
        n_c = np.asarray(n_c, dtype=np.intp)
        cell = np.repeat(np.arange(n_c.size), n_c)  # the cell of each of the side's negatives
        o = np.arange(cell.size) - (np.cumsum(n_c) - n_c)[cell]
        t = (np.cumsum(p_c) - p_c)[cell]
        pp, nn = p_c[cell], n_c[cell]
        sides.append((t + pp * o / nn, pp / nn, int(p_c.sum()), cell.size))
    (left_a, s_a, p_a, v), (left_b, s_b, p_b, u) = sides
    grid = _grid({} if cache is None else cache, v, u)
    ia, ib, w = grid.ia, grid.ib, grid.w
    z = grid.z[:-1]
    sa, sb = s_a[ia], s_b[ib]
    d0 = (left_a[ia] + sa * ((z - ia * u) / u)) * p_b - (left_b[ib] + sb * ((z - ib * v) / v)) * p_a
    d1 = d0 + (sa * (w / u) * p_b - sb * (w / v) * p_a)
    total = np.abs(d0) + np.abs(d1)
    crossing = np.maximum(-(d0 * d1), 0.0) / np.maximum(total, _TINY)
    area = w * (0.5 * total - crossing)
    return float(np.add.reduce(area) / (float(p_a) * float(p_b) * float(v) * float(u)))


def _sloped(
    pool: PooledCells, grid: MergedGrid, sizes: tuple[int, int, int, int],
    cum_a: NDArray[np.int32], mem_n: NDArray[np.bool_], at_a: Positions,
    h_a: NDArray[np.int32], h_b: NDArray[np.int32], area: NDArray[np.float64],
) -> None:
    """Overwrite the areas of the merged intervals on a sloped step of either curve."""
    v, u, p_a, p_b = sizes
    rows, n_neg = mem_n.shape
    n_cells = pool.start_n.size
    # a's negatives before each mixed cell: search the cells' starts among a's sorted positions
    # (at_a is ascending: rows in order, positions ascending within a row)
    offsets = np.arange(rows, dtype=np.int64)[:, None]
    fa = np.searchsorted(at_a, (offsets * n_neg + pool.start_n).ravel()).reshape(rows, n_cells)
    fa -= offsets * v
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
    width = grid.w.size
    side_a = _steps(in_a & (pa > 0), ta, pa, oa, na, before, grid.start_a, v)
    side_b = _steps(~in_a & (pb > 0), tb, pb, ob, nb, pool.mixed - before, grid.start_b, u)
    parts: list[tuple[NDArray[Any], ...]] = []
    # the merged intervals on a sloped step of a (their b-step looked up among b's sloped steps),
    # then those on a sloped step of b; an interval on both is computed twice, the same value
    for k, (own, other, other_h, other_grid) in enumerate(((side_a, side_b, h_b, grid.ib),
                                                           (side_b, side_a, h_a, grid.ia))):
        r, _, left, slope, first, count, _ = own
        if not r.size:
            continue
        rep = np.repeat(np.arange(r.size), count)
        m = first[rep] + np.arange(rep.size) - (np.cumsum(count) - count)[rep]
        rr = r[rep]
        o_left, o_slope = _lookup(other, rr, other_grid[m], other_h)
        mine = (left[rep], slope[rep])
        parts.append((rr, m, *mine, o_left, o_slope) if k == 0
                     else (rr, m, o_left, o_slope, *mine))
    if not parts:
        return
    r, m, la, sa, lb, sb = (np.concatenate(x) for x in zip(*parts, strict=True))
    flat = r * width + m
    ia, ib, z, w = grid.ia[m], grid.ib[m], grid.z[m], grid.w[m]
    d0 = (la + sa * ((z - ia * u) / u)) * p_b - (lb + sb * ((z - ib * v) / v)) * p_a
    d1 = d0 + (sa * (w / u) * p_b - sb * (w / v) * p_a)
    total = np.abs(d0) + np.abs(d1)
    crossing = np.maximum(-(d0 * d1), 0.0) / np.maximum(total, _TINY)
    area.ravel()[flat] = w * (0.5 * total - crossing)


_Steps = tuple[
    "Positions", "Positions", "NDArray[np.float64]", "NDArray[np.float64]",
    "Positions", "Positions", "Positions",
]


def _steps(
    keep: NDArray[np.bool_], t: NDArray[np.int64], p: NDArray[np.int64], o: NDArray[np.int64],
    n: NDArray[np.int64], idx: NDArray[np.int64], start: Positions, width: int,
) -> _Steps:
    """One curve's sloped steps, in row then step order.

    Row, step, start value ``t + p o / n``, slope ``p / n``, first merged interval, merged
    intervals covered, and the key ``row * width + step`` (ascending).
    """
    r, x = np.nonzero(keep)
    i = idx[r, x]
    pp, nn = p[r, x], n[r, x]
    first = start[i]
    return (r, i, t[r, x] + pp * o[r, x] / nn, pp / nn, first, start[i + 1] - first,
            r * width + i)


def _lookup(
    steps: _Steps, r: Positions, j: Positions, h: NDArray[np.int32]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Start value and slope of step ``j`` of a curve in row ``r``.

    From the curve's sloped steps when ``(r, j)`` is one of them, else the staircase value
    ``h[r, j]`` and slope 0.
    """
    keys = steps[6]
    width = h.shape[1]
    plain = h[r, j].astype(np.float64)
    if not keys.size:
        return plain, np.zeros(r.size)
    q = r * width + j
    at = np.minimum(np.searchsorted(keys, q), keys.size - 1)
    hit = keys[at] == q
    return np.where(hit, steps[2][at], plain), np.where(hit, steps[3][at], 0.0)


# ------------------------------------------------------------------------------ the cell kernel
def draw_cells(
    rng: np.random.Generator,
    pool_pos: NDArray[np.int64],
    pool_neg: NDArray[np.int64],
    n_sample: int,
    rows: int,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``rows`` uniformly random ``n_sample``-row subsets of pooled cells, as counts per cell.

    A uniformly random subset of ``n_sample`` of the pooled rows holds, in each (score, label)
    cell, a multivariate hypergeometric number of that cell's rows: one call of
    :meth:`numpy.random.Generator.multivariate_hypergeometric` (``method="marginals"``) over the
    cells that hold rows draws them all, ``O(cells)`` random numbers per subset whatever the
    number of rows. Which rows of a cell are chosen does not matter: ABROCA depends on the
    counts per cell only.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random stream (consumed).
    pool_pos, pool_neg : numpy.ndarray of int64, shape (K,)
        Positives and negatives of each pooled cell.
    n_sample : int
        Rows per subset, ``0 <= n_sample <= pool_pos.sum() + pool_neg.sum()``.
    rows : int
        Subsets wanted.

    Returns
    -------
    grp_pos, grp_neg : numpy.ndarray of int64, shape (rows, K)
        The subset's positives and negatives in each cell; each row sums to ``n_sample``.

    Examples
    --------
    >>> import numpy as np
    >>> p, n = draw_cells(np.random.default_rng(0), np.array([2, 0]), np.array([1, 3]), 4, 2)
    >>> (p + n).sum(axis=1).tolist(), bool(np.all(p <= [2, 0]) and np.all(n <= [1, 3]))
    ([4, 4], True)
    """
    k = pool_pos.size
    colors = np.concatenate((pool_pos, pool_neg)).astype(np.int64)
    held = np.flatnonzero(colors)
    if held.size == 2 * k:  # every cell holds both classes: no scatter
        out = rng.multivariate_hypergeometric(colors, n_sample, size=rows)
    else:
        out = np.zeros((rows, 2 * k), dtype=np.int64)
        if held.size and rows:
            out[:, held] = rng.multivariate_hypergeometric(colors[held], n_sample, size=rows)
    return out[:, :k], out[:, k:]


@borrow(split_abroca, sections=("Returns",))
def cell_abroca(
    pool_pos: NDArray[np.int64],
    pool_neg: NDArray[np.int64],
    grp_pos: NDArray[np.int64],
    grp_neg: NDArray[np.int64],
) -> NDArray[np.float64]:
    """Exact ABROCA of many two-group splits of pooled cells, from the counts per cell.

    Row ``r`` gives group a ``grp_pos[r, c]`` positives and ``grp_neg[r, c]`` negatives of cell
    ``c`` (cells sorted by score descending), group b the rest. Each curve is built from the
    cumulative sums over the cells: with ``CP_k``, ``CN_k`` the positives and negatives in the
    first ``k`` cells, its points are ``(CN_k / N, CP_k / P)``, a cell holding both classes being
    a diagonal segment (tied scores, as
    :func:`polars_fair.analyses.scores.roc.roc_curve_from_cells`).
    The two curves' breakpoints are put over the common denominator ``N_a N_b`` as integers
    (``CN^a_k N_b`` and ``CN^b_k N_a``) and merged exactly, row by row, by one stable argsort of
    the two sorted runs; on each merged interval ``[l, l + w]`` curve a is on the segment of its
    cell ``j`` (the last of its breakpoints at or left of ``l``) with value
    ``CP^a_j + p_j (l - x_j) / (n_j N_b)`` in positives, b likewise, and with
    ``d = TPR_a - TPR_b`` times ``P_a P_b`` at both ends

    ``ABROCA = sum w A(d(l), d(l + w)) / (P_a P_b N_a N_b)``,

    ``A`` the exact integral of ``|d|`` over the interval (split at a zero crossing), as
    :func:`split_abroca` and :func:`polars_fair.analyses.scores.roc.abroca_exact` (Gardner,
    Brooks & Baker 2019). The cost is ``O(B K log K)`` for ``B`` rows and ``K`` cells, whatever
    the number of rows pooled, taken in blocks of rows of at most :data:`CELL_BLOCK` values per
    array (each row's operations are the same whatever the block, so is its double); it equals
    :func:`split_abroca` on the same splits to rounding (the sums are taken over other
    intervals), which ``tests/analyses/scores/test_fast_paths.py`` checks.

    Parameters
    ----------
    pool_pos, pool_neg : numpy.ndarray of int64, shape (K,)
        Pooled positives and negatives per cell, sorted by score descending.
    grp_pos, grp_neg : numpy.ndarray of int64, shape (B, K)
        Group a's part of them in each split: ``0 <= grp <= pool``, and both groups hold both
        classes (``0 < P_a < P``, ``0 < N_a < N``).

    Examples
    --------
    Distinct scores +, -, +, -; group a holds the first two rows (a perfect ranking) and b the
    others (also perfect); then a holds rows 1 and 2 (a ranking inverted against b's).

    >>> import numpy as np
    >>> pos, neg = np.array([1, 0, 1, 0]), np.array([0, 1, 0, 1])
    >>> cell_abroca(pos, neg, np.array([[1, 0, 0, 0], [0, 0, 1, 0]]),
    ...             np.array([[0, 1, 0, 0], [0, 1, 0, 0]])).tolist()
    [0.0, 1.0]
    """
    rows, k = grp_pos.shape
    out: NDArray[np.float64] = np.empty(rows)
    step = max(1, CELL_BLOCK // (2 * k + 2))
    for lo in range(0, rows, step):
        out[lo : lo + step] = _cell_block(pool_pos, pool_neg, grp_pos[lo : lo + step],
                                          grp_neg[lo : lo + step])
    return out


def _cell_block(
    pool_pos: NDArray[np.int64],
    pool_neg: NDArray[np.int64],
    grp_pos: NDArray[np.int64],
    grp_neg: NDArray[np.int64],
) -> NDArray[np.float64]:
    """:func:`cell_abroca` of one block of rows (its arrays below :data:`CELL_BLOCK` values)."""
    rows, k = grp_pos.shape
    k1, k2, width = k + 1, k + 2, 2 * k + 2
    cpa = np.zeros((rows, k1), dtype=np.int64)
    cna = np.zeros((rows, k1), dtype=np.int64)
    np.cumsum(grp_pos, axis=1, out=cpa[:, 1:])
    np.cumsum(grp_neg, axis=1, out=cna[:, 1:])
    cpb = np.concatenate(([0], np.cumsum(pool_pos))) - cpa
    cnb = np.concatenate(([0], np.cumsum(pool_neg))) - cna
    p_a, n_a, p_b, n_b = cpa[:, -1:], cna[:, -1:], cpb[:, -1:], cnb[:, -1:]
    # the breakpoints over the common denominator N_a N_b, exact in int64 (N_a N_b < 2**62)
    x = np.empty((rows, width), dtype=np.int64)
    np.multiply(cna, n_b, out=x[:, :k1])
    np.multiply(cnb, n_a, out=x[:, k1:])
    order = np.argsort(x, axis=1, kind="stable")  # two sorted runs: a merge per row
    merged = np.take(x, order + (np.arange(rows, dtype=np.intp) * width)[:, None])
    merged_f = merged.astype(np.float64)
    left = merged_f[:, :-1]
    w = merged_f[:, 1:] - left
    # an interval of positive width lies on segment c of a, c its breakpoints at or left of the
    # left end (1 <= c <= K: its last breakpoint, N_a N_b, is right of it); b likewise. The
    # per-segment tables are padded at 0 and K + 1, read only on intervals of width 0
    count_a = np.cumsum(order < k1, axis=1)[:, :-1]
    row_k = (np.arange(rows, dtype=np.intp) * k2)[:, None]
    ends = []
    # a cell's rise and run are its counts: diff(CP) = the group's positives in the cell, and
    # diff(CN N_other) = its negatives times N_other, the same integers as the differences
    for cp, cx, scale, rise, run, idx in (
        (cpa, x[:, :k1], p_b, grp_pos, grp_neg * n_b, count_a + row_k),
        (cpb, x[:, k1:], p_a, pool_pos - grp_pos, (pool_neg - grp_neg) * n_a,
         (np.arange(1, width) + row_k) - count_a),
    ):
        start = np.zeros((rows, k2))
        start[:, 1:k1] = cx[:, :-1]
        value = np.zeros((rows, k2))
        value[:, 1:k1] = cp[:, :-1] * scale  # positives times the other group's P
        slope = np.zeros((rows, k2))
        slope[:, 1:k1] = rise * scale
        slope[:, 1:k1] /= np.maximum(run, 1)
        s = np.take(slope, idx)
        at = left - np.take(start, idx)
        at *= s
        at += np.take(value, idx)
        ends.append((at, s))
    # d = (TPR_a - TPR_b) P_a P_b at both ends; area w A(d0, d1), in place
    (d0, d1), (b0, sb) = ends
    d0 -= b0
    d1 -= sb
    d1 *= w
    d1 += d0
    total = np.abs(d0) + np.abs(d1)
    d0 *= d1
    np.negative(d0, out=d0)
    np.maximum(d0, 0.0, out=d0)
    d0 /= np.maximum(total, _TINY)  # the part cut off at a zero crossing
    total *= 0.5
    total -= d0
    total *= w
    area = np.add.reduce(total, axis=1)
    denom = (p_a * p_b).astype(np.float64)[:, 0] * (n_a * n_b).astype(np.float64)[:, 0]
    block: NDArray[np.float64] = area / denom
    return block
