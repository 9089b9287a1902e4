"""ABROCA on the score table: per-group AUC and ABROCA, pairwise ABROCA, and the ROC curves.

The input is the small *score table* that Polars builds from the rows: one row per (group,
distinct score) with the group key columns, ``score`` (Float64), ``positives`` and ``negatives``
(Int64, or Float64 weight sums, then with an ``n_rows`` Int64 column), sorted by keys then score.
Everything here reads its numpy view (:mod:`polars_fair.analyses.scores.scoreview`) with the exact
ROC numerics of :mod:`polars_fair.analyses.scores.roc`.

ABROCA, the Absolute Between-ROC Area, is ``integral_0^1 |TPR_g(f) - TPR_ref(f)| df`` (Gardner,
Brooks & Baker 2019, LAK'19). The randomization test of ABROCA (Borchers et al., Algorithm 1)
lives in :mod:`polars_fair.analyses.scores.permutation`; its names are importable from here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from polars_fair._docs import borrow
from polars_fair._lazy import np
from polars_fair.analyses.scores.permutation import (
    BAD_PERMUTATIONS,
    BAD_TOLERANCE,
    NO_VALID_PERMUTATION,
    WEIGHTED_TEST,
    WeightedTestError,
    abroca_test_from_scores,
    abroca_test_plan,
    holm_adjust,
)
from polars_fair.analyses.scores.roc import abroca_exact, roc_points_from_cells
from polars_fair.analyses.scores.scoreview import (
    NO_NEGATIVES,
    NO_POSITIVES,
    NO_REFERENCE,
    NO_ROWS,
    REFERENCE_ONE_CLASS,
    ReferenceSpec,
    ScoreView,
    UndefinedReferenceError,
    score_reference,
    score_view,
)
from polars_fair.core import rules as R
from polars_fair.core.options import DEFAULTS

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "PAIR_REASON",
    "abroca_from_scores",
    "abroca_plan",
    "roc_curves_from_scores",
    "roc_curves_plan",
    # from polars_fair.analyses.scores.scoreview and polars_fair.analyses.scores.permutation, where
    # they were before the split
    "BAD_PERMUTATIONS",
    "BAD_TOLERANCE",
    "NO_NEGATIVES",
    "NO_POSITIVES",
    "NO_REFERENCE",
    "NO_ROWS",
    "NO_VALID_PERMUTATION",
    "REFERENCE_ONE_CLASS",
    "UndefinedReferenceError",
    "WEIGHTED_TEST",
    "WeightedTestError",
    "abroca_test_from_scores",
    "abroca_test_plan",
    "holm_adjust",
]

PAIR_REASON = "{reason} {side}"  # e.g. "no positives in group i"


# ---------------------------------------------------------------------------- ABROCA
def abroca_from_scores(
    scores: pl.DataFrame,
    keys: Sequence[str],
    *,
    reference: ReferenceSpec = DEFAULTS.reference,
    pairwise: bool = DEFAULTS.pairwise,
) -> pl.DataFrame:
    """Per-group AUC and ABROCA against a reference group, or between every pair of groups.

    ``ABROCA_g = integral_0^1 |ROC_g(f) - ROC_ref(f)| df`` (Gardner, Brooks & Baker 2019,
    "Evaluating the fairness of predictive student models through slicing analysis", LAK'19;
    Borchers et al., "A Test for ABROCA"), computed exactly on the piecewise-linear ROC curves
    (ties form one diagonal segment, as :func:`sklearn.metrics.roc_curve`), see
    :func:`polars_fair.analyses.scores.roc.abroca_exact`. AUC is the Mann-Whitney probability with
    ties counted 1/2 (:func:`polars_fair.analyses.scores.roc.auc_from_cells`). With weight-sum
    counts both are the sample-weighted versions.

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
    groups = score_view(scores, keys)
    aucs = groups.aucs()
    curves = [groups.curve(g) for g in range(len(groups))]
    if pairwise:
        return _pairwise(groups, aucs, curves)
    ref = score_reference(groups, reference, aucs)
    ref_curve = curves[ref] if ref is not None else None
    abrocas: list[float | None] = []
    reasons: list[str | None] = []
    for g, curve in enumerate(curves):
        reason = groups.compare_reason(g, ref)
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
    groups: ScoreView,
    aucs: list[float | None],
    curves: list[tuple[NDArray[np.float64], NDArray[np.float64]] | None],
) -> pl.DataFrame:
    k = len(groups)
    ii = [i for i in range(k) for j in range(k) if i != j]
    jj = [j for i in range(k) for j in range(k) if i != j]
    cache: dict[tuple[int, int], float] = {}
    values: list[float | None] = []
    reasons: list[str | None] = []
    for i, j in zip(ii, jj, strict=True):
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



@borrow(abroca_from_scores, params=("keys", "reference", "pairwise"))
def abroca_plan(
    table: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: ReferenceSpec = DEFAULTS.reference,
    pairwise: bool = DEFAULTS.pairwise,
) -> pl.LazyFrame:
    """:func:`abroca_from_scores` as a step of a lazy plan, with its output schema declared.

    Parameters
    ----------
    table : pl.LazyFrame
        A score table (see :func:`polars_fair.counting.tables.score_table`).

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
    pairwise = R.flag(pairwise, "pairwise")
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




# ---------------------------------------------------------------------------- ROC curves
def roc_curves_from_scores(scores: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Every group's ROC curve as a table: one row per vertex.

    The curve of a group is :func:`polars_fair.analyses.scores.roc.roc_points_from_cells` of its
    score cells: with the distinct scores in descending order ``s_1 > ... > s_K``, vertex ``k`` is
    ``(FP_k / N, TP_k / P)`` where ``TP_k``, ``FP_k`` count the positives and negatives scored
    ``>= s_k`` (vertex 0 is ``(0, 0)`` at threshold ``+inf``). Tied rows share a vertex, so a
    score holding both classes is one diagonal segment: :func:`sklearn.metrics.roc_curve` with
    ``drop_intermediate=False`` (Fawcett 2006, "An introduction to ROC analysis", Alg. 2). These
    are exactly the curves whose between-area :func:`abroca_from_scores` reports (Gardner, Brooks
    & Baker 2019). With weight-sum counts the rates are weighted.

    Parameters
    ----------
    scores : polars.DataFrame
        The score table (see :func:`abroca_from_scores`).
    keys : sequence of str
        The group key columns (at least one).

    Returns
    -------
    polars.DataFrame
        One row per vertex, sorted by the keys then by vertex (``threshold`` descending):

        - the key columns (their dtypes);
        - ``threshold`` (Float64): the score at which the vertex is reached, ``inf`` for
          ``(0, 0)``;
        - ``fpr``, ``tpr`` (Float64 in [0, 1]): non-decreasing along a group's vertices, from
          ``(0, 0)`` to ``(1, 1)``.

        A group with one class has no curve and no row (:func:`abroca_from_scores` gives its
        ``undefined_reason``).

    Raises
    ------
    polars_fair.errors.ColumnNotFoundError, polars_fair.errors.InvalidArgumentError
        As :func:`abroca_from_scores`, for the table and ``keys``.
    polars_fair.errors.NullValuesError, polars_fair.errors.InvalidScoreError
        Null cells, or non-finite scores.
    polars_fair.errors.EmptyFrameError
        The table has no rows.

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({
    ...     "g": ["a", "a", "a", "b"],
    ...     "score": [0.1, 0.4, 0.8, 0.5],
    ...     "positives": [0, 1, 1, 2],
    ...     "negatives": [1, 1, 0, 0],
    ... })
    >>> roc_curves_from_scores(table, ["g"])
    shape: (4, 4)
    ┌─────┬───────────┬─────┬─────┐
    │ g   ┆ threshold ┆ fpr ┆ tpr │
    │ --- ┆ ---       ┆ --- ┆ --- │
    │ str ┆ f64       ┆ f64 ┆ f64 │
    ╞═════╪═══════════╪═════╪═════╡
    │ a   ┆ inf       ┆ 0.0 ┆ 0.0 │
    │ a   ┆ 0.8       ┆ 0.0 ┆ 0.5 │
    │ a   ┆ 0.4       ┆ 0.5 ┆ 1.0 │
    │ a   ┆ 0.1       ┆ 1.0 ┆ 1.0 │
    └─────┴───────────┴─────┴─────┘
    """
    groups = score_view(scores, keys)
    index: list[NDArray[np.int64]] = []
    parts: list[tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]] = []
    for g in range(len(groups)):
        if groups.reason(g) is not None:
            continue
        fpr, tpr, thresholds = roc_points_from_cells(*groups.cells(g))
        index.append(np.full(fpr.size, g, dtype=np.int64))
        parts.append((thresholds, fpr, tpr))
    rows = np.concatenate(index) if index else np.zeros(0, dtype=np.int64)

    def column(i: int) -> NDArray[np.float64]:
        return np.concatenate([p[i] for p in parts]) if parts else np.zeros(0)

    return groups.key_frame[pl.Series(rows, dtype=pl.Int64)].with_columns(
        pl.Series("threshold", column(0), dtype=pl.Float64),
        pl.Series("fpr", column(1), dtype=pl.Float64),
        pl.Series("tpr", column(2), dtype=pl.Float64),
    )


@borrow(roc_curves_from_scores, params=("keys",))
def roc_curves_plan(table: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """:func:`roc_curves_from_scores` as a step of a lazy plan, with its output schema declared.

    Parameters
    ----------
    table : pl.LazyFrame
        A score table (see :func:`polars_fair.counting.tables.score_table`).

    Returns
    -------
    pl.LazyFrame
        The columns of :func:`roc_curves_from_scores`; nothing runs until it is collected.

    Examples
    --------
    >>> import polars as pl
    >>> t = pl.LazyFrame({"g": ["a", "a"], "score": [0.1, 0.9], "positives": [0, 1],
    ...                   "negatives": [1, 0]})
    >>> roc_curves_plan(t, ["g"]).collect()["tpr"].to_list()
    [0.0, 1.0, 1.0]
    """
    keys = list(keys)
    schema_in = table.collect_schema()
    schema = pl.Schema(
        [(k, schema_in[k]) for k in keys]
        + [("threshold", pl.Float64), ("fpr", pl.Float64), ("tpr", pl.Float64)]
    )
    return table.map_batches(lambda df: roc_curves_from_scores(df, keys), schema=schema)
