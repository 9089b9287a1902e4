"""ABROCA analyses on the score table: per-group AUC and ABROCA, and the randomization test.

The input is the small *score table* that Polars builds from the rows: one row per (group,
distinct score) with the group key columns, ``score`` (Float64), ``positives`` and ``negatives``
(Int64, or Float64 weight sums, then with an ``n_rows`` Int64 column), sorted by keys then score.
Everything here works on that table with numpy (:mod:`polars_fair.roc`).

ABROCA, the Absolute Between-ROC Area, is ``integral_0^1 |TPR_g(f) - TPR_ref(f)| df`` (Gardner,
Brooks & Baker 2019, LAK'19). The randomization test is Algorithm 1 of Borchers et al.,
"Toward Sufficient Statistical Power in Algorithmic Bias Assessment: A Test for ABROCA".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from polars_fair import errors as E
from polars_fair.progress import progress_bar
from polars_fair.reference import known, reference_index
from polars_fair.roc import (
    GridCache,
    abroca_batch,
    abroca_exact,
    abroca_splits,
    auc_from_cells,
    roc_curve_from_cells,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "UndefinedReferenceError",
    "WeightedTestError",
    "abroca_from_scores",
    "abroca_test_from_scores",
    "holm_adjust",
]

ReferenceSpec = Any  # "largest" | "max_auc" | scalar group value | Mapping[str, Any] | tuple

# ---------------------------------------------------------------------------- messages
NO_POSITIVES = "no positives in group"
NO_NEGATIVES = "no negatives in group"
NO_ROWS = "no positives or negatives in group"
REFERENCE_ONE_CLASS = "reference group has only one class"
NO_REFERENCE = "no group can be the reference (none has known keys and both classes)"
NO_VALID_PERMUTATION = "no permutation gave both groups both classes"
PAIR_REASON = "{reason} {side}"  # e.g. "no positives in group i"
NO_KEYS = "keys must name at least one group column of the score table, got {keys!r}"
NULL_CELLS = "score table column {column!r} holds {count} null value(s)"
NEGATIVE_CELLS = "score table column {column!r} holds {count} negative or NaN value(s)"
BAD_REFERENCE = (
    "reference={reference!r}: pass 'largest', 'max_auc', a group value (one key), or a mapping "
    "{{key: value}} naming every key of {keys} ('overall' and 'max_selection_rate' are not "
    "references for ROC curves)"
)
NO_DEFINED_AUC = (
    "reference='max_auc' needs a group with both classes; every group has only one class: {groups}"
)
WEIGHTED_TEST = (
    "the ABROCA randomization test needs integer counts; columns 'positives'/'negatives' are "
    "{dtype} (weighted). Sample weights are not exchangeable units, so the permutation null is "
    "not defined for them: run the test without sample_weight"
)
BAD_PERMUTATIONS = "n_permutations must be an integer >= 1, got {value!r}"
BAD_TOLERANCE = "tolerance must be a finite number >= 0, got {value!r}"


class WeightedTestError(E.PolarsFairError):
    """The randomization test was asked for on a weighted (Float64 count) score table."""


class UndefinedReferenceError(E.PolarsFairError):
    """No group qualifies as the reference (``'max_auc'`` with every AUC undefined)."""


# ---------------------------------------------------------------------------- score table
@dataclass(frozen=True)
class _Groups:
    """The score table split by group, as numpy arrays (scores ascending within a group)."""

    keys: list[str]
    key_frame: pl.DataFrame  # one row per group, sorted by keys
    bounds: NDArray[np.int64]  # group g is rows bounds[g]:bounds[g+1]
    score: NDArray[np.float64]
    pos: NDArray[Any]
    neg: NDArray[Any]
    n: NDArray[Any]  # rows per group (Int64) or weight sum when weighted without n_rows
    positives: NDArray[Any]
    negatives: NDArray[Any]
    weighted: bool
    count_dtype: pl.DataType
    n_dtype: pl.DataType

    def __len__(self) -> int:
        return int(self.bounds.size - 1)

    def cells(self, g: int) -> tuple[NDArray[np.float64], NDArray[Any], NDArray[Any]]:
        lo, hi = int(self.bounds[g]), int(self.bounds[g + 1])
        return self.score[lo:hi], self.pos[lo:hi], self.neg[lo:hi]

    def reason(self, g: int) -> str | None:
        p, n = self.positives[g], self.negatives[g]
        if p <= 0 and n <= 0:
            return NO_ROWS
        if p <= 0:
            return NO_POSITIVES
        if n <= 0:
            return NO_NEGATIVES
        return None

    def label(self, g: int) -> Any:
        row = self.key_frame.row(g)
        return row[0] if len(row) == 1 else dict(zip(self.keys, row))


def _split(scores: pl.DataFrame, keys: Sequence[str]) -> _Groups:
    if isinstance(keys, str) or not isinstance(keys, Sequence) or len(keys) == 0:
        raise E.InvalidArgumentError(NO_KEYS.format(keys=keys))
    keys = list(keys)
    schema = scores.collect_schema()
    cols = list(schema.names())
    for column, role in [*((k, "group key") for k in keys), ("score", "score table"),
                         ("positives", "score table"), ("negatives", "score table")]:
        if column not in schema:
            raise E.ColumnNotFoundError(
                E.MISSING_COLUMN.format(column=column, role=role, available=E.show_columns(cols))
            )
    for column in ("score", "positives", "negatives", *(["n_rows"] if "n_rows" in schema else [])):
        if not schema[column].is_numeric():
            raise E.InvalidArgumentError(
                E.NOT_NUMERIC.format(column=column, role="score table", dtype=schema[column])
            )
    if scores.height == 0:
        raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=" in the score table"))
    for column in ("score", "positives", "negatives"):
        nulls = scores[column].null_count()
        if nulls:
            raise E.NullValuesError(NULL_CELLS.format(column=column, count=nulls))
    sc = pl.col("score").cast(pl.Float64)
    nans, infs = scores.select(sc.is_nan().sum().alias("a"), sc.is_infinite().sum().alias("b")).row(0)
    if nans or infs:
        raise E.InvalidScoreError(E.BAD_SCORES.format(column="score", nulls=0, nans=nans, infinite=infs))
    weighted = schema["positives"].is_float() or schema["negatives"].is_float()
    count_dtype: pl.DataType = pl.Float64() if weighted else pl.Int64()
    df = scores.sort([*keys, "score"], nulls_last=True, maintain_order=True)
    pos = df["positives"].cast(count_dtype).to_numpy()
    neg = df["negatives"].cast(count_dtype).to_numpy()
    for column, arr in (("positives", pos), ("negatives", neg)):
        bad = int(np.sum(~(arr >= 0)))
        if bad:
            raise E.InvalidArgumentError(NEGATIVE_CELLS.format(column=column, count=bad))
    gid = df.select(pl.struct(keys).rle_id()).to_series().to_numpy()
    starts = np.flatnonzero(np.r_[True, gid[1:] != gid[:-1]])
    bounds = np.r_[starts, gid.size].astype(np.int64)
    positives = np.add.reduceat(pos, starts)
    negatives = np.add.reduceat(neg, starts)
    if "n_rows" in schema:
        n = np.add.reduceat(df["n_rows"].cast(pl.Int64).to_numpy(), starts)
        n_dtype: pl.DataType = pl.Int64()
    else:
        n = positives + negatives
        n_dtype = count_dtype
    return _Groups(
        keys=keys,
        key_frame=df.select(keys)[starts.tolist()],
        bounds=bounds,
        score=df["score"].cast(pl.Float64).to_numpy(),
        pos=pos,
        neg=neg,
        n=n,
        positives=positives,
        negatives=negatives,
        weighted=weighted,
        count_dtype=count_dtype,
        n_dtype=n_dtype,
    )


def _resolve_reference(
    groups: _Groups, reference: ReferenceSpec, aucs: Sequence[float | None]
) -> int | None:
    """The reference group's index, by the one reference rule (:mod:`polars_fair.reference`).

    Eligible for a rule: known keys and both classes (a ROC curve). When no group is eligible,
    ``"largest"`` falls back to the largest group (every comparison is then null, with its
    reason) and ``"max_auc"`` raises.
    """
    table = groups.key_frame.with_columns(pl.Series("n", groups.n))
    both = (groups.positives > 0) & (groups.negatives > 0)
    eligible = pl.Series(both) & table.select(known(groups.keys)).to_series()
    auc = pl.Series([a if a is not None else None for a in aucs], dtype=pl.Float64)
    idx = reference_index(table, groups.keys, reference, eligible=eligible, score=auc)
    if idx is None and reference == "largest":
        # no group has a ROC curve: the largest group stands as the reference, and every
        # comparison is null with the reason (one class), as for an explicit one-class group
        idx = reference_index(table, groups.keys, "largest", eligible=pl.Series([True] * len(groups)))
    if idx is None and reference == "max_auc":
        labels = [groups.label(g) for g in range(len(groups))]
        raise UndefinedReferenceError(NO_DEFINED_AUC.format(groups=E.show_values(labels)))
    return idx


def _aucs(groups: _Groups) -> list[float | None]:
    return [auc_from_cells(*groups.cells(g)) for g in range(len(groups))]


# ---------------------------------------------------------------------------- ABROCA
def abroca_from_scores(
    scores: pl.DataFrame,
    keys: Sequence[str],
    *,
    reference: ReferenceSpec = "largest",
    pairwise: bool = False,
) -> pl.DataFrame:
    """Per-group AUC and ABROCA against a reference group, or between every pair of groups.

    ``ABROCA_g = integral_0^1 |ROC_g(f) - ROC_ref(f)| df`` (Gardner, Brooks & Baker 2019,
    "Evaluating the fairness of predictive student models through slicing analysis", LAK'19;
    Borchers et al., "A Test for ABROCA"), computed exactly on the piecewise-linear ROC curves
    (ties form one diagonal segment, as :func:`sklearn.metrics.roc_curve`), see
    :func:`polars_fair.roc.abroca_exact`. AUC is the Mann-Whitney probability with ties counted
    1/2 (:func:`polars_fair.roc.auc_from_cells`). With weight-sum counts both are the
    sample-weighted versions.

    Parameters
    ----------
    scores : polars.DataFrame
        The score table: ``keys`` columns, ``score`` (finite), ``positives`` and ``negatives``
        (non-negative integer counts, or float weight sums), optionally ``n_rows``; one row per
        (group, distinct score). Row order does not matter.
    keys : sequence of str
        The group key columns (at least one).
    reference : {"largest", "max_auc"}, group value, mapping or tuple, default "largest"
        The reference group: ``"largest"`` the group with most rows (``n``), ``"max_auc"`` the
        group with the highest AUC; ties go to the first group in key order. Or an explicit group:
        its value for one key, or ``{key: value}`` (or a tuple in key order) for several. A group
        literally named "largest" is chosen with ``{key: "largest"}``. Ignored when ``pairwise``.
    pairwise : bool, default False
        Return ABROCA for every ordered pair of groups instead.

    Returns
    -------
    polars.DataFrame
        Sorted by the keys (pairwise: by group i then group j). Non-pairwise, one row per group:

        - the key columns (their dtypes);
        - ``n`` (Int64): rows in the group, from ``n_rows`` if present, else ``positives +
          negatives`` (Float64 weight sum for a weighted table without ``n_rows``);
        - ``positives``, ``negatives`` (Int64, Float64 when weighted);
        - ``auc`` (Float64 in [0, 1]), null when the group has one class;
        - ``abroca`` (Float64 in [0, 1]) against the reference, 0.0 for the reference itself, null
          when the group or the reference has one class;
        - ``is_reference`` (Boolean);
        - ``undefined_reason`` (String): null when defined, else :data:`NO_POSITIVES`,
          :data:`NO_NEGATIVES`, :data:`NO_ROWS` or :data:`REFERENCE_ONE_CLASS`.

        Pairwise, one row per ordered pair ``i != j``: ``<key>_i`` for each key, ``<key>_j`` for
        each key, ``n_i``, ``n_j``, ``auc_i``, ``auc_j``, ``abroca`` (Float64, symmetric),
        ``undefined_reason`` (String, e.g. ``"no positives in group j"``; several joined by
        ``"; "``).

    Raises
    ------
    polars_fair.errors.ColumnNotFoundError
        A key or score-table column is missing.
    polars_fair.errors.UnknownGroupError
        An explicit ``reference`` names no group; the message lists the groups.
    polars_fair.errors.InvalidArgumentError
        Bad ``keys`` or ``reference`` form, non-numeric or negative counts.
    polars_fair.errors.NullValuesError, polars_fair.errors.InvalidScoreError
        Null cells, or non-finite scores.
    polars_fair.errors.EmptyFrameError
        The table has no rows.
    UndefinedReferenceError
        ``reference="max_auc"`` and no group has both classes.

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({
    ...     "g": ["a", "a", "a", "b", "b"],
    ...     "score": [0.2, 0.5, 0.9, 0.3, 0.7],
    ...     "positives": [0, 1, 1, 1, 0],
    ...     "negatives": [1, 1, 0, 0, 1],
    ... })
    >>> abroca_from_scores(table, ["g"], reference="a")
    shape: (2, 8)
    ┌─────┬─────┬───────────┬───────────┬───────┬────────┬──────────────┬──────────────────┐
    │ g   ┆ n   ┆ positives ┆ negatives ┆ auc   ┆ abroca ┆ is_reference ┆ undefined_reason │
    │ --- ┆ --- ┆ ---       ┆ ---       ┆ ---   ┆ ---    ┆ ---          ┆ ---              │
    │ str ┆ i64 ┆ i64       ┆ i64       ┆ f64   ┆ f64    ┆ bool         ┆ str              │
    ╞═════╪═════╪═══════════╪═══════════╪═══════╪════════╪══════════════╪══════════════════╡
    │ a   ┆ 4   ┆ 2         ┆ 2         ┆ 0.875 ┆ 0.0    ┆ true         ┆ null             │
    │ b   ┆ 2   ┆ 1         ┆ 1         ┆ 0.0   ┆ 0.875  ┆ false        ┆ null             │
    └─────┴─────┴───────────┴───────────┴───────┴────────┴──────────────┴──────────────────┘
    """
    groups = _split(scores, keys)
    aucs = _aucs(groups)
    curves = [
        roc_curve_from_cells(*groups.cells(g)) if aucs[g] is not None else None
        for g in range(len(groups))
    ]
    if pairwise:
        return _pairwise(groups, aucs, curves)
    ref = _resolve_reference(groups, reference, aucs)
    ref_curve = curves[ref] if ref is not None else None
    abrocas: list[float | None] = []
    reasons: list[str | None] = []
    for g, curve in enumerate(curves):
        reason = groups.reason(g)
        if reason is None and ref_curve is None:
            reason = REFERENCE_ONE_CLASS if ref is not None else NO_REFERENCE
        reasons.append(reason)
        if reason is not None or curve is None or ref_curve is None:
            abrocas.append(None)
        elif g == ref:
            abrocas.append(0.0)
        else:
            abrocas.append(abroca_exact(curve, ref_curve))
    k = len(groups)
    return groups.key_frame.with_columns(
        pl.Series("n", groups.n, dtype=groups.n_dtype),
        pl.Series("positives", groups.positives, dtype=groups.count_dtype),
        pl.Series("negatives", groups.negatives, dtype=groups.count_dtype),
        pl.Series("auc", aucs, dtype=pl.Float64),
        pl.Series("abroca", abrocas, dtype=pl.Float64),
        pl.Series("is_reference", [g == ref for g in range(k)], dtype=pl.Boolean),
        pl.Series("undefined_reason", reasons, dtype=pl.String),
    )


def _pairwise(
    groups: _Groups,
    aucs: list[float | None],
    curves: list[tuple[NDArray[np.float64], NDArray[np.float64]] | None],
) -> pl.DataFrame:
    k = len(groups)
    ii = [i for i in range(k) for j in range(k) if i != j]
    jj = [j for i in range(k) for j in range(k) if i != j]
    cache: dict[tuple[int, int], float] = {}
    values: list[float | None] = []
    reasons: list[str | None] = []
    for i, j in zip(ii, jj):
        parts = [
            PAIR_REASON.format(reason=r, side=side)
            for r, side in ((groups.reason(i), "i"), (groups.reason(j), "j"))
            if r is not None
        ]
        reasons.append("; ".join(parts) if parts else None)
        ci, cj = curves[i], curves[j]
        if parts or ci is None or cj is None:
            values.append(None)
            continue
        pair = (min(i, j), max(i, j))
        if pair not in cache:
            cache[pair] = abroca_exact(ci, cj)
        values.append(cache[pair])
    kf = groups.key_frame
    left = kf[ii].rename({c: f"{c}_i" for c in groups.keys})
    right = kf[jj].rename({c: f"{c}_j" for c in groups.keys})
    n = groups.n
    return pl.concat([left, right], how="horizontal").with_columns(
        pl.Series("n_i", n[ii], dtype=groups.n_dtype),
        pl.Series("n_j", n[jj], dtype=groups.n_dtype),
        pl.Series("auc_i", [aucs[i] for i in ii], dtype=pl.Float64),
        pl.Series("auc_j", [aucs[j] for j in jj], dtype=pl.Float64),
        pl.Series("abroca", values, dtype=pl.Float64),
        pl.Series("undefined_reason", reasons, dtype=pl.String),
    )


# ---------------------------------------------------------------------------- test
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
class _NullResult:
    observed: float
    draws: NDArray[np.float64]
    p_value: float | None


def _permutation_null(
    pool_pos: NDArray[np.int64],
    pool_neg: NDArray[np.int64],
    grp_pos: NDArray[np.int64],
    grp_neg: NDArray[np.int64],
    n_permutations: int,
    rng: np.random.Generator,
    tolerance: float,
    cache: GridCache | None = None,
) -> _NullResult:
    """Randomization null of ABROCA between a group and the rest of a pooled sample.

    All arrays are per pooled distinct score, sorted by score *descending*; the group's counts
    are a part of the pooled counts. Each draw gives the group ``n_g`` units drawn without
    replacement from the pooled (score, label) cells (multivariate hypergeometric), the rest to
    the other group. Draws that leave a group without a class have no ABROCA; they are redrawn
    (the test conditions on both groups having both classes, as the observed split does), up to
    ``50 B + 1000`` draws in all. When every pooled score holds exactly one row, a draw is a
    uniformly random subset of the rows and the staircase kernel :func:`abroca_splits` is used.
    """
    zero = np.zeros(1, dtype=np.int64)
    n_sample = int(grp_pos.sum() + grp_neg.sum())
    single = bool(np.all(pool_pos + pool_neg == 1))
    if single:
        if cache is None:
            cache = {}
        label = pool_pos == 1
        base = np.zeros(label.size, dtype=bool)
        base[:n_sample] = True
        observed = float(abroca_splits((grp_pos + grp_neg == 1)[None, :], label, cache)[0])
        chunk = max(1, min(n_permutations, 4_000_000 // label.size))
    else:
        cum_pos = np.concatenate((zero, np.cumsum(pool_pos)))
        cum_neg = np.concatenate((zero, np.cumsum(pool_neg)))
        cpa = np.concatenate((zero, np.cumsum(grp_pos)))[None, :]
        cna = np.concatenate((zero, np.cumsum(grp_neg)))[None, :]
        observed = float(abroca_batch(cpa, cna, cum_pos - cpa, cum_neg - cna)[0])
        pos_idx = np.flatnonzero(pool_pos)
        neg_idx = np.flatnonzero(pool_neg)
        colors = np.concatenate((pool_pos[pos_idx], pool_neg[neg_idx])).astype(np.int64)
        n_cells = pool_pos.size
        chunk = max(1, min(n_permutations, 2_000_000 // max(colors.size, n_cells + 1)))
    kept: list[NDArray[np.float64]] = []
    n_kept = 0
    attempts = 0
    max_attempts = 50 * n_permutations + 1000
    while n_kept < n_permutations and attempts < max_attempts:
        size = min(chunk, n_permutations - n_kept)
        attempts += size
        if single:
            member = rng.permuted(np.tile(base, (size, 1)), axis=1)
            values = abroca_splits(member, label, cache)
        else:
            draws = rng.multivariate_hypergeometric(colors, n_sample, size=size)
            dp = np.zeros((size, n_cells + 1), dtype=np.int64)
            dn = np.zeros((size, n_cells + 1), dtype=np.int64)
            dp[:, pos_idx + 1] = draws[:, : pos_idx.size]
            dn[:, neg_idx + 1] = draws[:, pos_idx.size :]
            np.cumsum(dp, axis=1, out=dp)
            np.cumsum(dn, axis=1, out=dn)
            values = abroca_batch(dp, dn, cum_pos - dp, cum_neg - dn)
        values = values[~np.isnan(values)]
        kept.append(values)
        n_kept += values.size
    null = np.concatenate(kept) if kept else np.zeros(0)
    p_value = (
        float((1 + np.count_nonzero(null >= observed - tolerance)) / (1 + null.size))
        if null.size
        else None
    )
    return _NullResult(observed=observed, draws=null, p_value=p_value)


def _pool(
    groups: _Groups, g: int, ref: int
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
    the ``B = n_permutations`` draws gives the tested group ``n_g`` rows drawn without replacement
    from the pooled cells (a multivariate hypergeometric draw per cell, never a permutation of
    rows: the cost is ``B x cells``), the rest go to the reference, and ABROCA
    (:func:`abroca_from_scores`) is computed for the draw, exactly. Draws that leave either group
    without a class have no ABROCA and are redrawn, so the test conditions on both groups
    holding both classes (as the observed split does). Then

    ``p = (1 + #{b : ABROCA_b >= ABROCA_obs - tolerance}) / (1 + B)``,

    which is a valid p-value (``P(p <= alpha) <= alpha`` under H0). The ``tolerance`` absorbs
    floating-point error: a draw whose ABROCA equals the observed one mathematically (for
    example the observed split itself, or its mirror image) can differ from it in the last bits,
    and must count as at least as extreme. Holm's step-down adjustment is applied across the
    tested groups.

    Parameters
    ----------
    scores : polars.DataFrame
        The score table (see :func:`abroca_from_scores`) with integer counts.
    keys : sequence of str
        Group key columns.
    reference : {"largest", "max_auc"}, group value, mapping or tuple, default "largest"
        Reference group, as in :func:`abroca_from_scores`.
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
        ``n_permutations`` < 1 or a bad ``tolerance``; and every error of
        :func:`abroca_from_scores` for the table and ``reference``.

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
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) or n_permutations < 1:
        raise E.InvalidArgumentError(BAD_PERMUTATIONS.format(value=n_permutations))
    if not isinstance(tolerance, (int, float)) or not math.isfinite(tolerance) or tolerance < 0:
        raise E.InvalidArgumentError(BAD_TOLERANCE.format(value=tolerance))
    groups = _split(scores, keys)
    if groups.weighted:
        raise WeightedTestError(WEIGHTED_TEST.format(dtype=scores.collect_schema()["positives"]))
    aucs = _aucs(groups)
    ref = _resolve_reference(groups, reference, aucs)
    rng = np.random.default_rng(seed)
    tested = [g for g in range(len(groups)) if g != ref]
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
        reason = groups.reason(g)
        if reason is None and ref is None:
            reason = NO_REFERENCE
        elif reason is None and groups.reason(ref) is not None:
            reason = REFERENCE_ONE_CLASS
        result = None
        if reason is None and ref is not None:
            pool_pos, pool_neg, gp, gn = _pool(groups, g, ref)
            result = _permutation_null(
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


def abroca_plan(
    table: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: ReferenceSpec = "largest",
    pairwise: bool = False,
) -> pl.LazyFrame:
    """:func:`abroca_from_scores` as a step of a lazy plan, with its output schema declared.

    Parameters
    ----------
    table : pl.LazyFrame
        A score table (see :func:`polars_fair.tables.score_table`).
    keys, reference, pairwise
        As in :func:`abroca_from_scores`.

    Returns
    -------
    pl.LazyFrame
        The columns of :func:`abroca_from_scores`; nothing runs until it is collected.

    Examples
    --------
    >>> import polars as pl
    >>> t = pl.LazyFrame({"g": ["a", "a"], "score": [0.1, 0.9], "positives": [0, 1],
    ...                   "negatives": [1, 0]})
    >>> abroca_plan(t, ["g"]).collect()["auc"].to_list()
    [1.0]
    """
    keys = list(keys)
    schema_in = table.collect_schema()
    key_schema = [(k, schema_in[k]) for k in keys]
    count = schema_in["positives"]
    # n is the row count; a weighted table without n_rows can only give the weight sum
    n_dtype = pl.Int64 if "n_rows" in schema_in or count == pl.Int64 else pl.Float64
    if pairwise:
        schema = pl.Schema(
            [(f"{k}_i", d) for k, d in key_schema] + [(f"{k}_j", d) for k, d in key_schema]
            + [("n_i", n_dtype), ("n_j", n_dtype), ("auc_i", pl.Float64),
               ("auc_j", pl.Float64), ("abroca", pl.Float64), ("undefined_reason", pl.String)]
        )
    else:
        schema = pl.Schema(
            key_schema + [("n", n_dtype), ("positives", count), ("negatives", count),
                          ("auc", pl.Float64), ("abroca", pl.Float64),
                          ("is_reference", pl.Boolean), ("undefined_reason", pl.String)]
        )
    return table.map_batches(
        lambda df: abroca_from_scores(df, keys, reference=reference, pairwise=pairwise),
        schema=schema,
    )


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
    keys, reference, n_permutations, seed, tolerance, return_draws
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
