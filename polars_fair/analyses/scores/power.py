"""Statistical power of the ABROCA randomization test, by simulation.

Borchers et al., "Toward Sufficient Statistical Power in Algorithmic Bias Assessment: A Test for
ABROCA", Algorithm 1: simulate test sets with two groups whose population AUCs are ``auc_a`` and
``auc_b`` (the binormal generator of Borchers & Baker), run the randomization test of
:func:`polars_fair.analyses.scores.permutation.abroca_test_from_scores` on each, and report the
share of tests that reject at ``alpha``.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterable, Sequence, Sized
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
from scipy.stats import norm
from tqdm.auto import tqdm

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._progress import show_progress
from polars_fair.analyses.scores.permutation import GridCache, permutation_null
from polars_fair.core.limits import LIMITS, check_size, check_work, with_limits
from polars_fair.core.numbers import check_seed, real
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import check_int

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["abroca_power", "binormal_test_set", "power_curve", "split_counts"]

BAD_AUC = "{name}={value!r}: a population AUC must lie strictly between 0 and 1"
BAD_RATIO = "{name}={value!r} must lie strictly between 0 and 1"
BAD_COUNT = "{name}={value!r} must be an integer >= 1"
BAD_ALPHA = "alpha={value!r} must lie strictly between 0 and 1"
EMPTY_CELL = (
    "n={n} with group_ratio={group_ratio} and positive_ratio={positive_ratio} gives group "
    "{group} {positives} positive(s) and {negatives} negative(s); each group needs both classes"
)
EFFECTS = "pass exactly one of auc_pairs= and delta_aucs=, got {given}"
#: ``sizes=`` that is no list of sizes: a number, a text, an array of another shape.
SIZES_NOT_A_LIST = (
    "sizes must be an iterable of integers (a list, a 1-D numpy array, a range or an iterator), "
    "got {kind}; pass sizes=[{example}] for one size"
)


def _exact(value: Any) -> Any:
    """A numeric argument as the ``float`` of the decimal it prints as (:func:`real`).

    ``np.float32(0.7)`` is 0.7, not its binary value 0.699999988...; anything that is no
    number is returned as given, for :func:`_check_args` to refuse with its own message.
    """
    number = real(value)
    return value if number is None else float(number)


def _half_up(x: float) -> int:
    return math.floor(x + 0.5)


def split_counts(
    n: int, group_ratio: float = 0.5, positive_ratio: float = 0.5
) -> tuple[tuple[int, int], tuple[int, int]]:
    """Exact class counts of the two simulated groups.

    ``n_a = round(n * group_ratio)``, ``n_b = n - n_a``; within each group
    ``positives = round(n_group * positive_ratio)`` and ``negatives`` the rest, rounding halves up
    (so the counts always add up to ``n``).

    Parameters
    ----------
    n : int
        Test-set rows in total.
    group_ratio, positive_ratio : float
        Share of group a among the rows, and of positives within each group, in (0, 1).

    Returns
    -------
    tuple of tuple of int
        ``((positives_a, negatives_a), (positives_b, negatives_b))``.

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        If a group would lack a class.

    Examples
    --------
    >>> split_counts(1000, group_ratio=0.1, positive_ratio=0.25)
    ((25, 75), (225, 675))
    """
    group_ratio, positive_ratio = _exact(group_ratio), _exact(positive_ratio)
    n_a = _half_up(n * group_ratio)
    out: list[tuple[int, int]] = []
    for name, size in (("a", n_a), ("b", n - n_a)):
        pos = _half_up(size * positive_ratio)
        if pos < 1 or size - pos < 1:
            raise E.InvalidArgumentError(
                EMPTY_CELL.format(n=n, group_ratio=group_ratio, positive_ratio=positive_ratio,
                                  group=name, positives=pos, negatives=size - pos)
            )
        out.append((pos, size - pos))
    return out[0], out[1]


def _check_args(
    auc_a: float, auc_b: float, n: int, group_ratio: float, positive_ratio: float,
    n_permutations: int, n_simulations: int, alpha: float,
) -> None:
    for name, value in (("auc_a", auc_a), ("auc_b", auc_b)):
        if not ((number := real(value)) is not None and 0 < number < 1):
            raise E.InvalidArgumentError(BAD_AUC.format(name=name, value=value))
    for name, value in (("group_ratio", group_ratio), ("positive_ratio", positive_ratio)):
        if not ((number := real(value)) is not None and 0 < number < 1):
            raise E.InvalidArgumentError(BAD_RATIO.format(name=name, value=value))
    counts = (("n", n), ("n_permutations", n_permutations), ("n_simulations", n_simulations))
    for name, count in counts:
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise E.InvalidArgumentError(BAD_COUNT.format(name=name, value=count))
        check_size(count, name)
    if not ((number := real(alpha)) is not None and 0 < number < 1):
        raise E.InvalidArgumentError(BAD_ALPHA.format(value=alpha))


_show_progress = show_progress
_WORK = "n_simulations x n_permutations x n"


def _binormal_design(
    auc_a: float, auc_b: float, counts: tuple[tuple[int, int], tuple[int, int]]
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.float64]]:
    """The rows of one simulated test set: label, membership of group a, mean score.

    Rows are a's positives, a's negatives, b's positives, b's negatives. The binormal model of
    Borchers & Baker: a negative's score is ``N(0, 1)``, a positive's ``N(mu, 1)`` with
    ``mu = sqrt(2) * Phi^-1(AUC)`` of its group, so the population AUC
    ``P(S_pos > S_neg) = Phi(mu / sqrt(2))`` is the group's AUC. A draw is
    ``rng.normal(mean, 1.0)``.
    """
    (pa, na), (pb, nb) = counts
    mu_a = math.sqrt(2.0) * float(norm.ppf(auc_a))
    mu_b = math.sqrt(2.0) * float(norm.ppf(auc_b))
    label = np.concatenate((np.ones(pa), np.zeros(na), np.ones(pb), np.zeros(nb))).astype(bool)
    in_a = np.zeros(label.size, dtype=bool)
    in_a[: pa + na] = True
    mean = np.concatenate((np.full(pa, mu_a), np.zeros(na), np.full(pb, mu_b), np.zeros(nb)))
    return label, in_a, mean


@with_limits
def binormal_test_set(
    *,
    auc_a: float,
    auc_b: float,
    n: int,
    group_ratio: float = 0.5,
    positive_ratio: float = 0.5,
    seed: int | np.random.Generator | None = None,
) -> pl.DataFrame:
    """One simulated test set of :func:`abroca_power`, as rows (the binormal model).

    The same generator as each simulation of :func:`abroca_power`: group a has
    ``round(n * group_ratio)`` rows, group b the rest, each with ``round(n_group *
    positive_ratio)`` positives (:func:`split_counts`); negatives score ``N(0, 1)`` and
    positives ``N(sqrt(2) * Phi^-1(AUC), 1)``, so each group's population AUC is the one asked
    for (Borchers & Baker; Borchers et al., "A Test for ABROCA", Algorithm 1).

    Parameters
    ----------
    auc_a, auc_b : float
        Population AUCs of groups a and b, in (0, 1).
    n : int
        Rows in total, >= 1.
    group_ratio, positive_ratio : float, default 0.5
        Share of group a among the rows, and of positives within each group, in (0, 1).
    seed : int, numpy.random.Generator or None
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    pl.DataFrame
        ``n`` rows: ``group`` (String, ``"a"`` or ``"b"``), ``y_true`` (Int64, 1 positive),
        ``y_score`` (Float64), in the order a's positives, a's negatives, b's positives, b's
        negatives.

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        As :func:`abroca_power`: AUCs or ratios outside (0, 1), ``n < 1``, or a group left
        without a class.
    polars_fair.errors.SizeLimitError
        ``n`` above |limit:n| (:data:`polars_fair.core.limits.LIMITS`).

    Examples
    --------
    >>> rows = binormal_test_set(auc_a=0.8, auc_b=0.6, n=1000, seed=0)
    >>> sizes = rows.group_by("group").agg(n=pl.len(), positives=pl.col("y_true").sum())
    >>> sizes.sort("group").rows()
    [('a', 500, 250), ('b', 500, 250)]
    """
    auc_a, auc_b, group_ratio, positive_ratio = (
        _exact(v) for v in (auc_a, auc_b, group_ratio, positive_ratio))
    _check_args(auc_a, auc_b, n, group_ratio, positive_ratio, 1, 1, 0.05)
    counts = split_counts(int(n), group_ratio, positive_ratio)
    label, in_a, mean = _binormal_design(auc_a, auc_b, counts)
    score = np.random.default_rng(check_seed(seed)).normal(mean, 1.0)
    return pl.DataFrame({
        "group": pl.Series(np.where(in_a, "a", "b"), dtype=pl.String),
        "y_true": pl.Series(label.astype(np.int64), dtype=pl.Int64),
        "y_score": pl.Series(score, dtype=pl.Float64),
    })


def _simulate_p_values(
    rng: np.random.Generator,
    auc_a: float,
    auc_b: float,
    counts: tuple[tuple[int, int], tuple[int, int]],
    n_permutations: int,
    n_simulations: int,
    bar: Any,
    tolerance: float = DEFAULTS.tolerance,
) -> NDArray[np.float64]:
    """p-values of ``n_simulations`` randomization tests on binormal test sets.

    The test is that of :func:`polars_fair.analyses.scores.permutation.abroca_test_from_scores`
    (same code): every simulated score is distinct, so each draw gives group a ``n_a`` of the pooled
    rows uniformly at random, splits leaving a group without a class are redrawn, and
    ``p = (1 + #{ABROCA_b >= ABROCA_obs - tolerance}) / (1 + B)``.
    """
    # rows: a positives, a negatives, b positives, b negatives (the binormal model)
    label, in_a, mean = _binormal_design(auc_a, auc_b, counts)
    cache: GridCache = {}
    out = np.empty(n_simulations)
    for s in range(n_simulations):
        score = rng.normal(mean, 1.0)
        order = np.argsort(-score, kind="stable")
        y = label[order]
        g = in_a[order]
        # every row is its own cell (continuous scores): the test takes its distinct-score path
        result = permutation_null(
            y.astype(np.int64), (~y).astype(np.int64), (g & y).astype(np.int64),
            (g & ~y).astype(np.int64), n_permutations, rng, tolerance, cache,
        )
        out[s] = np.nan if result.p_value is None else result.p_value
        bar.update(1)
    return out


@with_limits
def abroca_power(
    *,
    auc_a: float,
    auc_b: float,
    n: int,
    group_ratio: float = 0.5,
    positive_ratio: float = 0.5,
    n_permutations: int = 200,
    n_simulations: int = 200,
    alpha: float = 0.05,
    seed: int | np.random.Generator | None = None,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Power of the ABROCA randomization test by simulation (Borchers et al., Algorithm 1).

    Each simulation draws a test set of ``n`` rows: group a with ``round(n * group_ratio)`` rows,
    group b the rest, each with ``round(n_group * positive_ratio)`` positives (halves round up,
    see :func:`split_counts`). Scores follow the binormal model of Borchers & Baker: negatives
    ``~ N(0, 1)``, positives ``~ N(sqrt(2) * Phi^-1(AUC), 1)``, so the population AUC of a group is
    ``Phi(mu / sqrt(2)) = AUC``. The randomization test of
    :func:`polars_fair.analyses.scores.permutation.abroca_test_from_scores` (``n_permutations``
    draws, ``p = (1 + #{ABROCA_b >= ABROCA_obs})/(1 + B)``) is run on it and rejects when
    ``p <= alpha``. Power is the share of rejections; its Monte Carlo standard error is
    ``sqrt(power (1 - power) / n_simulations)``. With ``auc_a == auc_b`` it is the type-I error.

    Scores are continuous, so every row is its own cell and each randomization draw is a
    uniformly random split of the pooled rows, done for all draws at once.

    Parameters
    ----------
    auc_a, auc_b : float
        Population AUCs of groups a and b, in (0, 1).
    n : int
        Test-set rows in total (both groups), >= 1.
    group_ratio : float, default 0.5
        Share of group a, in (0, 1).
    positive_ratio : float, default 0.5
        Share of positives within each group, in (0, 1).
    n_permutations : int, default 200
        Randomization draws per test.
    n_simulations : int, default 200
        Simulated test sets.
    alpha : float, default 0.05
        Significance level, in (0, 1).
    seed : int, numpy.random.Generator or None
        Seed of ``numpy.random.default_rng``; the same seed gives the same result.
    progress : bool or None, default None
        Show a tqdm bar on stderr; ``None`` shows it only when stderr is a terminal.

    Returns
    -------
    dict
        ``power`` (float in [0, 1]), ``mc_se`` (float), ``auc_a``, ``auc_b``, ``delta_auc``
        (``auc_a - auc_b``), ``n``, ``n_a``, ``n_b``, ``positives_a``, ``positives_b``,
        ``group_ratio``, ``positive_ratio``, ``n_permutations``, ``n_simulations``, ``alpha``.

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        For AUCs or ratios outside (0, 1), counts < 1, or a group left without a class.
    polars_fair.errors.SizeLimitError
        Before any simulation: ``n`` above |limit:n|, ``n_permutations`` above
        |limit:n_permutations|, ``n_simulations`` above |limit:n_simulations|, or
        ``n_simulations * n_permutations * n`` above |limit:power_work|
        (:data:`polars_fair.core.limits.LIMITS`).

    Examples
    --------
    >>> r = abroca_power(auc_a=0.9, auc_b=0.6, n=400, n_simulations=20, n_permutations=50, seed=1)
    >>> r["power"], r["n_a"], r["positives_a"]
    (1.0, 200, 100)
    """
    auc_a, auc_b, group_ratio, positive_ratio, alpha = (
        _exact(v) for v in (auc_a, auc_b, group_ratio, positive_ratio, alpha))
    _check_args(auc_a, auc_b, n, group_ratio, positive_ratio, n_permutations, n_simulations, alpha)
    check_work(int(n_simulations) * int(n_permutations) * int(n), "power_work", _WORK)
    counts = split_counts(int(n), group_ratio, positive_ratio)
    rng = np.random.default_rng(check_seed(seed))
    with tqdm(total=int(n_simulations), disable=not _show_progress(progress), file=sys.stderr,
              desc=f"ABROCA power n={n}") as bar:
        p = _simulate_p_values(rng, auc_a, auc_b, counts, int(n_permutations),
                               int(n_simulations), bar)
    return _summary(p, auc_a, auc_b, int(n), counts, group_ratio, positive_ratio,
                    int(n_permutations), alpha)


def _summary(
    p: NDArray[np.float64], auc_a: float, auc_b: float, n: int,
    counts: tuple[tuple[int, int], tuple[int, int]], group_ratio: float, positive_ratio: float,
    n_permutations: int, alpha: float,
) -> dict[str, Any]:
    power = float(np.mean(p <= alpha))
    sims = int(p.size)
    (pa, na), (pb, nb) = counts
    return {
        "power": power,
        "mc_se": math.sqrt(power * (1.0 - power) / sims),
        "auc_a": float(auc_a),
        "auc_b": float(auc_b),
        "delta_auc": float(auc_a) - float(auc_b),
        "n": n,
        "n_a": pa + na,
        "n_b": pb + nb,
        "positives_a": pa,
        "positives_b": pb,
        "group_ratio": float(group_ratio),
        "positive_ratio": float(positive_ratio),
        "n_permutations": n_permutations,
        "n_simulations": sims,
        "alpha": float(alpha),
    }


def _bounded(values: Iterable[Any], cap: int, option: str, effects: int = 1) -> list[Any]:
    """The first items of ``values``; ``SizeLimitError`` when it holds more than ``cap``.

    Read lazily, so a list of 10**6 sizes, or a generator without end, stops at ``cap + 1``;
    the message states the cells (``effects`` x the items) against ``power_cells``.
    """
    items = list(itertools.islice(iter(values), cap + 1))
    if len(items) > cap:
        total = effects * (len(values) if isinstance(values, Sized) else len(items))
        more = "" if isinstance(values, Sized) else " at least"
        raise E.SizeLimitError(E.POWER_CELLS.format(
            option=option, more=more, cells=total, limit=LIMITS["power_cells"].limit))
    return items


def _sizes(sizes: Any, cap: int, effects: int) -> list[int]:
    """``sizes=`` as integers, bounded (:func:`_bounded`), each one checked as it is.

    A size is a number of rows: an integer (Python or numpy), never a float truncated
    (``100.5`` read as 100) nor a text or a bool converted; a scalar, a text or a numpy array
    that is not 1-D is refused (``InvalidArgumentError``).
    """
    ndim = getattr(sizes, "ndim", 1)
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Iterable) or ndim != 1:
        kind = (f"a {ndim}-D array" if ndim != 1 else f"{type(sizes).__name__} "
                f"{E.show_values([sizes], limit=1)[1:-1]}")
        example = sizes if isinstance(sizes, int) and not isinstance(sizes, bool) else 500
        raise E.InvalidArgumentError(SIZES_NOT_A_LIST.format(kind=kind, example=example))
    return [check_int(s, f"sizes[{i}]")
            for i, s in enumerate(_bounded(sizes, cap, "sizes", effects))]


@with_limits
@borrow(abroca_power, params=("group_ratio", "positive_ratio", "alpha"))
def power_curve(
    *,
    sizes: Iterable[int],
    auc_pairs: Sequence[tuple[float, float]] | None = None,
    delta_aucs: Sequence[float] | None = None,
    base_auc: float = 0.7,
    group_ratio: float = 0.5,
    positive_ratio: float = 0.5,
    n_permutations: int = 200,
    n_simulations: int = 200,
    alpha: float = 0.05,
    seed: int | None = None,
    progress: bool | None = None,
) -> pl.DataFrame:
    """Power of the ABROCA randomization test over effect sizes and test-set sizes.

    Runs :func:`abroca_power` for every (effect, size) cell, as in Figure 3 of Borchers et al.
    Effects are either explicit ``auc_pairs`` ``(auc_a, auc_b)`` or ``delta_aucs``, meaning
    ``(base_auc + delta, base_auc)``. Each cell gets its own random stream spawned from ``seed``
    (``numpy.random.SeedSequence.spawn``), so a cell's result does not depend on the others.

    Parameters
    ----------
    sizes : iterable of int
        Test-set sizes ``n`` (rows in total, both groups): a list, a 1-D numpy array of
        integers, a range or an iterator (read once, no further than |limit:power_cells|
        cells). Each is an integer; ``100.5``, ``"100"`` or ``True`` is refused, not converted.
    auc_pairs : sequence of (float, float), optional
        Population AUCs of groups a and b.
    delta_aucs : sequence of float, optional
        AUC differences added to ``base_auc`` for group a. Give exactly one of the two.
    base_auc : float, default 0.7
        AUC of group b when ``delta_aucs`` is used.
    n_permutations, n_simulations : int, default 200
        As in :func:`abroca_power` (its permutations per simulated test set, and the sets).
    seed : int or None
        Root seed.
    progress : bool or None, default None
        One tqdm bar over all simulations, on stderr; ``None`` shows it only on a terminal.

    Returns
    -------
    polars.DataFrame
        One row per effect x size, in the order given (effects outer): ``auc_a``, ``auc_b``,
        ``delta_auc`` (Float64; the given delta, or ``auc_a - auc_b``), ``n`` (Int64),
        ``power`` (Float64 in [0, 1]), ``mc_se`` (Float64), ``n_simulations``,
        ``n_permutations`` (Int64).

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        As :func:`abroca_power`, or when not exactly one of ``auc_pairs`` and ``delta_aucs`` is
        given; ``sizes`` not an iterable of integers (a scalar, a text, an array not 1-D, an
        item that is not an integer >= 1).
    polars_fair.errors.SizeLimitError
        As :func:`abroca_power`, the work summed over the cells:
        ``n_simulations * n_permutations * sum(n)`` above |limit:power_work|; more than
        |limit:power_cells| cells (effects x sizes), checked before the lists are read further;
        more than |limit:power_simulations| simulations in all (cells x ``n_simulations``).

    Examples
    --------
    >>> curve = power_curve(delta_aucs=[0.2], sizes=[100, 200], n_simulations=10,
    ...                     n_permutations=20, seed=0)
    >>> curve.columns
    ['auc_a', 'auc_b', 'delta_auc', 'n', 'power', 'mc_se', 'n_simulations', 'n_permutations']
    >>> curve.height
    2
    """
    if (auc_pairs is None) == (delta_aucs is None):
        named = (("auc_pairs", auc_pairs), ("delta_aucs", delta_aucs))
        given = [k for k, v in named if v is not None]
        raise E.InvalidArgumentError(EFFECTS.format(given=given))
    group_ratio, positive_ratio, alpha, base = (
        _exact(v) for v in (group_ratio, positive_ratio, alpha, base_auc))
    # the cells are bounded before any list is read past the limit (sizes=[10] * 200_000, or
    # a generator without end, would validate and run for ever)
    cap = LIMITS["power_cells"].limit
    pairs = _bounded(auc_pairs if auc_pairs is not None else delta_aucs or [], cap,
                     "auc_pairs" if auc_pairs is not None else "delta_aucs")
    size_list = _sizes(sizes, cap // max(len(pairs), 1), len(pairs))
    effects: list[tuple[float, float, float]] = (  # (auc_a, auc_b, delta as given)
        [(_exact(a), _exact(b), _exact(a) - _exact(b)) for a, b in pairs]
        if auc_pairs is not None
        else [(base + _exact(d), base, _exact(d)) for d in pairs]
    )
    cells = [(a, b, s) for a, b, _ in effects for s in size_list]
    deltas = [d for _, _, d in effects for _ in size_list]
    if isinstance(n_simulations, int) and not isinstance(n_simulations, bool):
        check_work(len(cells) * n_simulations, "power_simulations",
                   "cells (effects x sizes) x n_simulations")
    for a, b, s in cells:  # validate everything before the first simulation
        _check_args(a, b, s, group_ratio, positive_ratio, n_permutations, n_simulations, alpha)
        split_counts(s, group_ratio, positive_ratio)
    check_work(int(n_simulations) * int(n_permutations) * sum(s for _, _, s in cells), "power_work",
               _WORK + ", summed over the cells")
    streams = np.random.SeedSequence(seed).spawn(len(cells))
    rows: list[dict[str, Any]] = []
    with tqdm(total=len(cells) * int(n_simulations), disable=not _show_progress(progress),
              file=sys.stderr, desc="ABROCA power curve") as bar:
        for (a, b, s), stream in zip(cells, streams, strict=True):
            counts = split_counts(s, group_ratio, positive_ratio)
            p = _simulate_p_values(np.random.default_rng(stream), a, b, counts,
                                   int(n_permutations), int(n_simulations), bar)
            rows.append(_summary(p, a, b, s, counts, group_ratio, positive_ratio,
                                 int(n_permutations), alpha))
    for row, delta in zip(rows, deltas, strict=True):
        row["delta_auc"] = delta  # as given, without the rounding of auc_a - auc_b
    schema = {
        "auc_a": pl.Float64, "auc_b": pl.Float64, "delta_auc": pl.Float64, "n": pl.Int64,
        "power": pl.Float64, "mc_se": pl.Float64, "n_simulations": pl.Int64,
        "n_permutations": pl.Int64,
    }
    return pl.DataFrame({k: [r[k] for r in rows] for k in schema}, schema=schema)
