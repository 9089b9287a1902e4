"""The randomization test of ABROCA (Borchers et al., Algorithm 1) on the score table.

Under H0 a row's group membership is exchangeable between a tested group and the reference
group: :func:`permutation_null` draws the null distribution of ABROCA for one pair of groups
from their pooled (score, label) cells, and :func:`abroca_test_from_scores` runs it for every
group against the reference, with Holm's adjustment (:func:`holm_adjust`) across the groups.
:mod:`polars_fair.analyses.scores.power` simulates the power of the same test with
:func:`permutation_null`. The draws are evaluated by :mod:`polars_fair.analyses.scores.null_kernel`
(exact ABROCA of many splits per numpy pass), by its row kernel or, for tied scores, its cell
kernel (:func:`null_kernel_for`).

Borchers et al., "Toward Sufficient Statistical Power in Algorithmic Bias Assessment: A Test
for ABROCA"; ABROCA as in :mod:`polars_fair.analyses.scores.abroca` (Gardner, Brooks & Baker 2019).

Why one module: the null draws, the test over the groups and its lazy
plan are one statistical procedure whose results must agree draw for draw; the kernels that
evaluate the draws are already their own module (:mod:`~polars_fair.analyses.scores.null_kernel`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow, fill
from polars_fair._lazy import np
from polars_fair._progress import progress_bar
from polars_fair.analyses.scores.null_kernel import (
    CELL_BLOCK,
    GridCache,
    PooledCells,
    cell_abroca,
    draw_cells,
    observed_abroca,
    pooled_cells,
    random_members,
    split_abroca,
)
from polars_fair.analyses.scores.scoreview import (
    ReferenceSpec,
    ScoreView,
    score_reference,
    score_view,
)
from polars_fair.core.limits import check_size, check_work, with_limits
from polars_fair.core.numbers import check_seed, real
from polars_fair.core.options import DEFAULTS

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "BAD_KERNEL",
    "BAD_PERMUTATIONS",
    "BAD_TOLERANCE",
    "BLOCK_CELLS",
    "EVAL_CELLS",
    "MAX_POOLED_ROWS",
    "ROWS_PER_CELL",
    "NO_VALID_PERMUTATION",
    "WEIGHTED_TEST",
    "GridCache",
    "NullResult",
    "WeightedTestError",
    "abroca_test_from_scores",
    "abroca_test_plan",
    "holm_adjust",
    "null_kernel_for",
    "permutation_null",
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
#: Cells of one evaluation of :func:`~polars_fair.analyses.scores.null_kernel.split_abroca`: a
#: block of draws is evaluated in slices of at most this many (at least one draw each), so the
#: kernel's temporaries come from reused memory. A whole block's (tens of MB) were fresh pages
#: on every block in a new process: 1.7 GB of page faults, 0.7 s of system time, in the Adult
#: audit page's test (issue 20). Each draw's ABROCA is the same double either way. 65,536 cells
#: evaluate three of Adult's draws per call (16,384 evaluated one: the kernel's fixed cost of
#: about 40 numpy calls paid per draw, 6.2 s of CPU against 4.0 s for its test under load); from
#: about 100,000 the slices' temporaries outgrow the allocator's reused memory and fault again.
EVAL_CELLS = 65_536
#: The cell kernel draws the null when the pooled rows are at least this many times the pooled
#: (score, label) cells; the row kernel otherwise (see :func:`null_kernel_for`).
ROWS_PER_CELL = 4
BAD_KERNEL = "kernel must be 'auto', 'cells' or 'rows', got {value!r}"
Kernel = Literal["auto", "cells", "rows"]


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


def null_kernel_for(n_cells: int, n_rows: int) -> Literal["cells", "rows"]:
    """The kernel that draws a pair's null at the lower cost: ``"cells"`` or ``"rows"``.

    A draw costs the row kernel (:func:`polars_fair.analyses.scores.null_kernel.split_abroca`)
    time in proportion to the pooled rows ``M`` (its subsets of rows and the merged grid of the
    two curves' negatives), and the cell kernel
    (:func:`polars_fair.analyses.scores.null_kernel.draw_cells` and
    :func:`polars_fair.analyses.scores.null_kernel.cell_abroca`) time in proportion to the
    pooled cells ``K`` (one multivariate hypergeometric draw of the cells, two curves of
    ``K + 1`` points and their merge). The cell kernel is chosen when
    ``M >= ROWS_PER_CELL * K`` (:data:`ROWS_PER_CELL`, from the crossover measured by
    ``benchmarks/abroca_bench.py``): scores with ties (deciles, grades, rounded probabilities);
    continuous scores (about one row per cell) keep the row kernel. Both draw the same null.

    Parameters
    ----------
    n_cells : int
        Pooled distinct scores ``K`` of the pair.
    n_rows : int
        Pooled rows ``M`` of the pair.

    Returns
    -------
    {"cells", "rows"}
        The kernel :func:`permutation_null` uses with ``kernel="auto"``.

    Examples
    --------
    >>> null_kernel_for(10, 6172), null_kernel_for(6000, 6172)
    ('cells', 'rows')
    """
    return "cells" if n_rows >= ROWS_PER_CELL * n_cells else "rows"


def permutation_null(
    pool_pos: NDArray[np.int64],
    pool_neg: NDArray[np.int64],
    grp_pos: NDArray[np.int64],
    grp_neg: NDArray[np.int64],
    n_permutations: int,
    rng: np.random.Generator,
    tolerance: float,
    cache: GridCache | None = None,
    *,
    kernel: Kernel = "auto",
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
    both ROC curves depends only on ``(N_a, N_b)``
    (:func:`polars_fair.analyses.scores.null_kernel.merged_grid`), so every draw of a group is
    evaluated with the same gathers, exactly
    (:func:`polars_fair.analyses.scores.null_kernel.split_abroca`), in blocks of bounded memory
    (:data:`BLOCK_CELLS`). This is Algorithm 1 of Borchers et al. for one group; ``p`` as in
    :func:`abroca_test_from_scores`.

    That is the *row kernel*, whose cost follows the pooled rows. The *cell kernel* draws the
    same null at a cost that follows the pooled cells: ABROCA depends only on the group's count
    in each (score, label) cell, and a uniformly random ``n_g``-row subset holds a multivariate
    hypergeometric number of each cell's rows, so each draw is one multivariate hypergeometric
    split of the cells (:func:`polars_fair.analyses.scores.null_kernel.draw_cells`), redrawn
    while it leaves a group without a class (the same conditioning, the same cap on attempts),
    and its exact ABROCA is computed from cumulative sums over the cells, many draws per numpy
    pass (:func:`polars_fair.analyses.scores.null_kernel.cell_abroca`). ``kernel="auto"``
    chooses from the data (:func:`null_kernel_for`); the row kernel keeps its random stream.
    The observed ABROCA is the row kernel's double for the observed split whichever kernel
    draws the null (:func:`polars_fair.analyses.scores.null_kernel.observed_abroca`, one pass
    over the merged grid), so it is the same number either way; the two kernels' values of one
    split agree to rounding (1e-12), which ``tolerance`` absorbs.

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
        Grids of :func:`polars_fair.analyses.scores.null_kernel.merged_grid` keyed by ``(N_a,
        N_b)``, shared across calls (cleared when it holds more than
        :data:`polars_fair.analyses.scores.null_kernel.GRID_CACHE_CELLS` intervals).
    kernel : {"auto", "cells", "rows"}, default "auto"
        The kernel that draws the null: ``"auto"`` as :func:`null_kernel_for` chooses.

    Returns
    -------
    NullResult
        The observed ABROCA (NaN if the observed split leaves a group without a class), the
        valid draws (in the order of their ``N_a`` draws; the cell kernel's in the order drawn)
        and the p-value.

    Raises
    ------
    SizeLimitError
        The pooled cells hold :data:`MAX_POOLED_ROWS` rows or more.
    polars_fair.errors.InvalidArgumentError
        ``kernel`` is not one of the three (message :data:`BAD_KERNEL`).

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
    >>> permutation_null(np.array([1, 1, 0, 0]), np.array([0, 0, 1, 1]),
    ...                  np.array([1, 0, 0, 0]), np.array([0, 0, 1, 0]),
    ...                  20, np.random.default_rng(0), 1e-12, kernel="cells").p_value
    1.0
    """
    if kernel not in ("auto", "cells", "rows"):
        raise E.InvalidArgumentError(BAD_KERNEL.format(value=kernel))
    pooled = int(pool_pos.sum()) + int(pool_neg.sum())
    if pooled >= MAX_POOLED_ROWS:
        raise E.SizeLimitError(E.TOO_LARGE_TO_PERMUTE.format(
            group="the tested group", rows=pooled, limit=MAX_POOLED_ROWS))
    cache = {} if cache is None else cache
    n_pos, n_neg = int(pool_pos.sum()), int(pool_neg.sum())
    n_sample = int(grp_pos.sum() + grp_neg.sum())
    v_obs = int(grp_neg.sum())
    p_obs = n_sample - v_obs
    # the observed split: split_abroca's double, from the counts (whichever kernel draws)
    observed = (observed_abroca(pool_pos, pool_neg, grp_pos, grp_neg, cache)
                if 0 < v_obs < n_neg and 0 < p_obs < n_pos else float("nan"))
    max_attempts = 50 * n_permutations + 1000
    if kernel == "cells" or (kernel == "auto"
                             and null_kernel_for(pool_pos.size, pooled) == "cells"):
        null = _cell_null(pool_pos, pool_neg, n_sample, n_permutations, rng, max_attempts)
        return _result(observed, null, tolerance)
    pool = pooled_cells(pool_pos, pool_neg)
    # N_a of each draw; a draw is valid when both groups hold both classes
    sizes: list[NDArray[np.int64]] = []
    n_kept = attempts = 0
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
            mem_n = random_members(rng, n_neg, v, rows)
            mem_p = random_members(rng, n_pos, n_sample - v, rows)
            null[order[s : s + rows]] = _split_abroca_sliced(pool, v, mem_p, mem_n, cache)
    return _result(observed, null, tolerance)


def _split_abroca_sliced(pool: PooledCells, v: int, mem_p: NDArray[np.bool_],
                         mem_n: NDArray[np.bool_], cache: GridCache) -> NDArray[np.float64]:
    """:func:`split_abroca` of a block of draws, in slices of :data:`EVAL_CELLS` cells."""
    rows = mem_n.shape[0]
    per = max(1, EVAL_CELLS // max(pool.n_neg, pool.n_pos, 1))
    if per >= rows:
        return split_abroca(pool, v, mem_p, mem_n, cache)
    return np.concatenate([split_abroca(pool, v, mem_p[i : i + per], mem_n[i : i + per], cache)
                           for i in range(0, rows, per)])


def _result(observed: float, null: NDArray[np.float64], tolerance: float) -> NullResult:
    extreme = np.count_nonzero(null >= observed - tolerance)
    p_value = float((1 + extreme) / (1 + null.size)) if null.size else None
    return NullResult(observed=observed, draws=null, p_value=p_value)


def _cell_null(
    pool_pos: NDArray[np.int64], pool_neg: NDArray[np.int64], n_sample: int,
    n_permutations: int, rng: np.random.Generator, max_attempts: int,
) -> NDArray[np.float64]:
    """The cell kernel's valid draws (see :func:`permutation_null`), in the order drawn."""
    n_pos, n_neg = int(pool_pos.sum()), int(pool_neg.sum())
    # small blocks: the draws and the kernel's temporaries stay in reused memory and in cache
    # (the same stream: the sampler draws sample after sample whatever the block)
    step = max(1, CELL_BLOCK // (2 * pool_pos.size + 2))
    parts: list[NDArray[np.float64]] = []
    n_kept = attempts = 0
    while n_kept < n_permutations and attempts < max_attempts and n_pos > 0 and n_neg > 0:
        size = min(n_permutations - n_kept, max_attempts - attempts, step)
        attempts += size
        grp_pos, grp_neg = draw_cells(rng, pool_pos, pool_neg, n_sample, size)
        p_a, n_a = grp_pos.sum(axis=1), grp_neg.sum(axis=1)
        valid = (p_a > 0) & (p_a < n_pos) & (n_a > 0) & (n_a < n_neg)
        if not valid.all():
            grp_pos, grp_neg = grp_pos[valid], grp_neg[valid]
        if grp_pos.shape[0]:
            parts.append(cell_abroca(pool_pos, pool_neg, grp_pos, grp_neg))
            n_kept += grp_pos.shape[0]
    return np.concatenate(parts) if parts else np.zeros(0)


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


def _check_options(n_permutations: Any, tolerance: Any, seed: Any, return_draws: Any,
                   progress: Any) -> float:
    """:func:`abroca_test_from_scores`'s options checked; the tolerance as a Python float."""
    if (isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer))
            or n_permutations < 1):
        raise E.InvalidArgumentError(BAD_PERMUTATIONS.format(value=n_permutations))
    check_size(n_permutations, "n_permutations")
    number = real(tolerance)  # numpy scalars of any width, Fraction, Decimal
    if number is None or not math.isfinite(number) or number < 0:
        raise E.InvalidArgumentError(BAD_TOLERANCE.format(value=tolerance))
    tolerance = float(number)
    check_seed(seed)
    for flag, value in (("return_draws", return_draws), ("progress", progress)):
        if not (isinstance(value, (bool, np.bool_)) or (flag == "progress" and value is None)):
            raise E.InvalidArgumentError(E.NOT_A_BOOL.format(name=flag, value=value))
    return float(tolerance)


#: The method of :func:`abroca_test_from_scores`, put in its docstring
#: (:func:`polars_fair._docs.fill`).
ALGORITHM = """
Algorithm 1 of Borchers et al. ("Toward Sufficient Statistical Power in Algorithmic Bias
Assessment: A Test for ABROCA"): under H0 a row's group membership is exchangeable between
the tested group and the reference. The two groups' (score, label) cells are pooled; each of
the ``B = n_permutations`` draws gives the tested group ``n_g`` of the pooled rows, uniformly
without replacement (:func:`permutation_null`: its number of negatives, then which
negatives and positives, ``O(n_g)`` random numbers, never a permutation of all rows; or, with
tied scores, one multivariate hypergeometric split of the pooled (score, label) cells,
``O(cells)`` random numbers), the rest go to the reference, and ABROCA
(:func:`polars_fair.analyses.scores.abroca.abroca_from_scores`) is computed for the draw,
exactly (:func:`polars_fair.analyses.scores.null_kernel.split_abroca` or
:func:`polars_fair.analyses.scores.null_kernel.cell_abroca`, many draws per numpy pass; the
kernel is chosen from the data, :func:`null_kernel_for`). Draws that leave either group
without a class have no ABROCA and are redrawn, so the test conditions on both groups
holding both classes (as the observed split does). Then

``p = (1 + #{b : ABROCA_b >= ABROCA_obs - tolerance}) / (1 + B)``,

which is a valid p-value (``P(p <= alpha) <= alpha`` under H0). The ``tolerance`` absorbs
floating-point error: a draw whose ABROCA equals the observed one mathematically (for
example the observed split itself, or its mirror image) can differ from it in the last bits,
and must count as at least as extreme. Holm's step-down adjustment is applied across the
tested groups.
"""


#: How :func:`abroca_test_from_scores`'s work is counted (``permutation_work``).
PERMUTATION_WORK = ("n_permutations x pooled size, summed over the tested groups (a pooled "
                    "size: the rows of the group and the reference, or their (score, label) "
                    "cells if fewer)")


def _cell_count(groups: ScoreView, g: int) -> int:
    _, pos, neg = groups.cells(g)
    return int(np.count_nonzero(pos) + np.count_nonzero(neg))


@with_limits
@fill(ALGORITHM=ALGORITHM)
def abroca_test_from_scores(
    scores: pl.DataFrame,
    keys: Sequence[str],
    *,
    reference: ReferenceSpec = DEFAULTS.reference,
    n_permutations: int = DEFAULTS.n_permutations,
    seed: int | np.random.Generator | None = None,
    tolerance: float = DEFAULTS.tolerance,
    return_draws: bool = DEFAULTS.return_draws,
    progress: bool | None = None,
) -> pl.DataFrame:
    """Randomization test of ABROCA between each group and the reference group.

    {ALGORITHM}

    Parameters
    ----------
    scores : polars.DataFrame
        The score table (see :func:`polars_fair.analyses.scores.abroca.abroca_from_scores`) with
        integer counts.
    keys : sequence of str
        Group key columns.
    reference : {"largest", "max_auc"}, group value, mapping or tuple, default "largest"
        Reference group, as in :func:`polars_fair.analyses.scores.abroca.abroca_from_scores`.
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
        :func:`polars_fair.analyses.scores.abroca.abroca_from_scores` for the table and
        ``reference``.
    polars_fair.errors.SizeLimitError
        A tested group and the reference hold :data:`MAX_POOLED_ROWS` (10⁹) rows or more
        together: numpy's sampler cannot draw from them. Raised before any draw. Also
        ``n_permutations`` above |limit:n_permutations|, or ``n_permutations`` times the
        pooled size summed over the tested groups (:data:`PERMUTATION_WORK`) above
        |limit:permutation_work| (:data:`polars_fair.core.limits.LIMITS`).

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
    tolerance = _check_options(n_permutations, tolerance, seed, return_draws, progress)
    groups = score_view(scores, keys)
    if groups.weighted:
        raise WeightedTestError(WEIGHTED_TEST.format(dtype=scores.collect_schema()["positives"]))
    ref = score_reference(groups, reference)
    rng = np.random.default_rng(seed)
    tested = [g for g in range(len(groups)) if g != ref]
    work = 0
    for g in tested:  # numpy's sampler refuses 10^9 rows: say so before any draw
        pooled = int(groups.n[g]) + (int(groups.n[ref]) if ref is not None else 0)
        if ref is not None and pooled >= MAX_POOLED_ROWS:
            raise E.SizeLimitError(E.TOO_LARGE_TO_PERMUTE.format(
                group=groups.label(g), rows=pooled, limit=MAX_POOLED_ROWS))
        if ref is not None:  # a draw costs the pooled rows, or cells if fewer
            work += min(pooled, _cell_count(groups, g) + _cell_count(groups, ref))
    check_work(int(n_permutations) * work, "permutation_work", PERMUTATION_WORK)
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


@with_limits
@borrow(abroca_test_from_scores, params=("keys", "reference", "n_permutations", "seed",
                                        "tolerance", "return_draws", "progress"))
def abroca_test_plan(
    table: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: ReferenceSpec = DEFAULTS.reference,
    n_permutations: int = DEFAULTS.n_permutations,
    seed: int | None = None,
    tolerance: float = DEFAULTS.tolerance,
    return_draws: bool = DEFAULTS.return_draws,
    progress: bool | None = None,
) -> pl.LazyFrame:
    """:func:`abroca_test_from_scores` as a step of a lazy plan, with its schema declared.

    Parameters
    ----------
    table : pl.LazyFrame
        A score table with integer counts.

    Returns
    -------
    pl.LazyFrame
        The columns of :func:`abroca_test_from_scores`.

    Raises
    ------
    polars_fair.errors.SizeLimitError
        ``n_permutations`` above |limit:n_permutations|, when the plan is made; the other
        errors of :func:`abroca_test_from_scores` when it is collected.

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
    check_size(n_permutations, "n_permutations")  # before any work, not at collect
    return table.map_batches(
        lambda df: abroca_test_from_scores(
            df, keys, reference=reference, n_permutations=n_permutations, seed=seed,
            tolerance=tolerance, return_draws=return_draws, progress=progress,
        ),
        schema=schema,
    )

