"""The numpy view of a score table: its groups, their score cells, and the reference among them.

The *score table* is the small table Polars builds from the rows: one row per (group, distinct
score) with the group key columns, ``score`` (Float64), ``positives`` and ``negatives`` (Int64,
or Float64 weight sums, then with an ``n_rows`` Int64 column). :func:`score_view` checks it once
and splits it by group into numpy arrays (:class:`ScoreView`); every score analysis that works in
numpy (:mod:`polars_fair.analyses.scores.abroca`: AUC, ABROCA, ROC curves;
:mod:`polars_fair.analyses.scores.permutation`: the randomization test) reads that view, so the
checks, the reasons a group has no ROC curve and the choice of the reference group
(:func:`score_reference`, by the one rule of :mod:`polars_fair.core.reference`) are written once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np
from polars_fair.analyses.scores.roc import (
    _auc_of_cells,
    _points_of_cells,
    auc_from_cells,
    roc_curve_from_cells,
)
from polars_fair.core.reference import Reference, known

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "NO_NEGATIVES",
    "NO_POSITIVES",
    "NO_REFERENCE",
    "NO_ROWS",
    "REFERENCE_ONE_CLASS",
    "ScoreView",
    "UndefinedReferenceError",
    "score_reference",
    "score_view",
]

#: A reference: ``"largest"`` | ``"max_auc"`` | a group value | a mapping | a tuple | a
#: :class:`polars_fair.core.reference.Reference` (resolved once, used as it is).
ReferenceSpec = Any

# ---------------------------------------------------------------------------- messages
NO_POSITIVES = "no positives in group"
NO_NEGATIVES = "no negatives in group"
NO_ROWS = "no positives or negatives in group"
REFERENCE_ONE_CLASS = "reference group has only one class"
NO_REFERENCE = "no group can be the reference (none has known keys and both classes)"
NO_KEYS = "keys must name at least one group column of the score table, got {keys!r}"
NULL_CELLS = "score table column {column!r} holds {count} null value(s)"
NEGATIVE_CELLS = "score table column {column!r} holds {count} negative or NaN value(s)"
NO_DEFINED_AUC = (
    "reference='max_auc' needs a group with both classes; every group has only one class: {groups}"
)

class UndefinedReferenceError(E.PolarsFairError):
    """No group qualifies as the reference (``'max_auc'`` with every AUC undefined)."""


@dataclass(frozen=True)
class ScoreView:
    """The score table split by group, as numpy arrays (scores ascending within a group).

    Made by :func:`score_view`; group ``g`` (``0 <= g < len(view)``, in key order) holds rows
    ``bounds[g]:bounds[g + 1]`` of the cell arrays.

    Parameters
    ----------
    keys : list of str
        The group key columns.
    key_frame : pl.DataFrame
        One row per group, sorted by the keys (nulls last).
    bounds : numpy.ndarray of int64, shape (G + 1,)
        Group ``g`` is cells ``bounds[g]:bounds[g + 1]``.
    score : numpy.ndarray of float64
        The cells' scores, ascending within each group.
    pos, neg : numpy.ndarray
        The cells' positives and negatives (int64 counts, or float64 weight sums).
    n : numpy.ndarray
        Rows per group (int64, from ``n_rows`` when present), or the weight sum of a weighted
        table without ``n_rows``.
    positives, negatives : numpy.ndarray
        Per group totals of ``pos`` and ``neg``.
    weighted : bool
        Whether the counts are Float64 weight sums.
    count_dtype : pl.DataType
        ``Int64``, or ``Float64`` when weighted.
    n_dtype : pl.DataType
        The dtype of ``n``.
    distinct : bool, default False
        Whether every group's scores are distinct (strictly ascending), as in the score
        tables polars_fair builds: then a group's cells are its ROC cells as they are, and
        :meth:`aucs` and :meth:`curve` do not check and merge them again.

    Examples
    --------
    >>> import polars as pl
    >>> table = pl.DataFrame({"g": ["a", "b"], "score": [0.5, 0.5],
    ...                       "positives": [1, 2], "negatives": [1, 0]})
    >>> view = score_view(table, ["g"])
    >>> len(view), view.positives.tolist(), view.n.tolist()
    (2, [1, 2], [2, 2])
    """

    keys: list[str]
    key_frame: pl.DataFrame
    bounds: NDArray[np.int64]
    score: NDArray[np.float64]
    pos: NDArray[Any]
    neg: NDArray[Any]
    n: NDArray[Any]
    positives: NDArray[Any]
    negatives: NDArray[Any]
    weighted: bool
    count_dtype: pl.DataType
    n_dtype: pl.DataType
    distinct: bool = False

    def __len__(self) -> int:
        """The number of groups."""
        return int(self.bounds.size - 1)

    def cells(self, g: int) -> tuple[NDArray[np.float64], NDArray[Any], NDArray[Any]]:
        """The score cells of group ``g``.

        Parameters
        ----------
        g : int
            The group's index, in key order.

        Returns
        -------
        tuple of numpy.ndarray
            ``(score, pos, neg)``: scores ascending, positives and negatives per score.

        Examples
        --------
        >>> import polars as pl
        >>> view = score_view(pl.DataFrame({"g": ["a", "a", "b"], "score": [0.9, 0.2, 0.5],
        ...                                 "positives": [1, 0, 2], "negatives": [0, 1, 0]}), ["g"])
        >>> [a.tolist() for a in view.cells(0)]
        [[0.2, 0.9], [0, 1], [1, 0]]
        """
        lo, hi = int(self.bounds[g]), int(self.bounds[g + 1])
        return self.score[lo:hi], self.pos[lo:hi], self.neg[lo:hi]

    def reason(self, g: int) -> str | None:
        """Why group ``g`` has no ROC curve, or ``None`` when it has both classes.

        Parameters
        ----------
        g : int
            The group's index.

        Returns
        -------
        str or None
            :data:`NO_ROWS`, :data:`NO_POSITIVES`, :data:`NO_NEGATIVES` or ``None``.

        Examples
        --------
        >>> import polars as pl
        >>> view = score_view(pl.DataFrame({"g": ["a", "a", "b"], "score": [0.9, 0.2, 0.5],
        ...                                 "positives": [1, 0, 2], "negatives": [0, 1, 0]}), ["g"])
        >>> view.reason(0), view.reason(1)
        (None, 'no negatives in group')
        """
        p, n = self.positives[g], self.negatives[g]
        if p <= 0 and n <= 0:
            return NO_ROWS
        if p <= 0:
            return NO_POSITIVES
        if n <= 0:
            return NO_NEGATIVES
        return None

    @borrow(reason, params=("g",))
    def compare_reason(self, g: int, ref: int | None) -> str | None:
        """Why group ``g`` cannot be compared with the reference ``ref``, or ``None``.

        Parameters
        ----------
        ref : int or None
            The reference's index (:func:`score_reference`); ``None`` when there is none.

        Returns
        -------
        str or None
            The group's own :meth:`reason` first; else :data:`NO_REFERENCE` (no reference) or
            :data:`REFERENCE_ONE_CLASS` (the reference has one class); ``None`` when both
            groups have both classes.

        Examples
        --------
        >>> import polars as pl
        >>> view = score_view(pl.DataFrame({"g": ["a", "a", "b"], "score": [0.9, 0.2, 0.5],
        ...                                 "positives": [1, 0, 2], "negatives": [0, 1, 0]}), ["g"])
        >>> view.compare_reason(0, 0), view.compare_reason(0, 1)
        (None, 'reference group has only one class')
        >>> view.compare_reason(0, None) == NO_REFERENCE
        True
        """
        own = self.reason(g)
        if own is not None:
            return own
        if ref is None:
            return NO_REFERENCE
        return REFERENCE_ONE_CLASS if self.reason(ref) is not None else None

    @borrow(reason, params=("g",))
    def label(self, g: int) -> Any:
        """The group's key value (one key), or ``{key: value}`` (several keys).

        Returns
        -------
        Any
            A value or a dict; usable as an explicit ``reference``.

        Examples
        --------
        >>> import polars as pl
        >>> view = score_view(pl.DataFrame({"g": ["a", "a", "b"], "score": [0.9, 0.2, 0.5],
        ...                                 "positives": [1, 0, 2], "negatives": [0, 1, 0]}), ["g"])
        >>> view.label(1)
        'b'
        """
        row = self.key_frame.row(g)
        return row[0] if len(row) == 1 else dict(zip(self.keys, row, strict=True))

    def aucs(self) -> list[float | None]:
        """Each group's AUC (:func:`polars_fair.analyses.scores.roc.auc_from_cells`), in key order.

        Returns
        -------
        list of float or None
            ``None`` where the group has one class.

        Examples
        --------
        >>> import polars as pl
        >>> view = score_view(pl.DataFrame({"g": ["a", "a", "b"], "score": [0.9, 0.2, 0.5],
        ...                                 "positives": [1, 0, 2], "negatives": [0, 1, 0]}), ["g"])
        >>> view.aucs()
        [1.0, None]
        """
        if self.distinct:  # checked once by score_view: the same double without a second check
            return [_auc_of_cells(*self.cells(g)[1:]) for g in range(len(self))]
        return [auc_from_cells(*self.cells(g)) for g in range(len(self))]

    @borrow(reason, params=("g",))
    def curve(self, g: int) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
        """Group ``g``'s ROC curve (:func:`polars_fair.analyses.scores.roc.roc_curve_from_cells`).

        Returns
        -------
        tuple of numpy.ndarray or None
            ``(fpr, tpr)``, or ``None`` when the group has one class.

        Examples
        --------
        >>> import polars as pl
        >>> view = score_view(pl.DataFrame({"g": ["a", "a", "b"], "score": [0.9, 0.2, 0.5],
        ...                                 "positives": [1, 0, 2], "negatives": [0, 1, 0]}), ["g"])
        >>> [a.tolist() for a in view.curve(0)], view.curve(1)
        ([[0.0, 0.0, 1.0], [0.0, 1.0, 1.0]], None)
        """
        if self.reason(g) is not None:
            return None
        if self.distinct:
            fpr, tpr, _ = _points_of_cells(*self.cells(g))
            return fpr, tpr
        return roc_curve_from_cells(*self.cells(g))


def score_view(scores: pl.DataFrame, keys: Sequence[str]) -> ScoreView:
    """Check a score table and split it by group into numpy arrays.

    Parameters
    ----------
    scores : pl.DataFrame
        The score table: the ``keys`` columns, ``score`` (finite), ``positives`` and
        ``negatives`` (non-negative integer counts, or float weight sums), optionally
        ``n_rows``; one row per (group, distinct score), in any order.
    keys : sequence of str
        The group key columns (at least one).

    Returns
    -------
    ScoreView
        Groups in key order (nulls last), each group's cells by ascending score.

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        ``keys`` is empty or not a sequence of names; a non-numeric column; negative or NaN
        counts.
    polars_fair.errors.ColumnNotFoundError
        A key or score-table column is missing.
    polars_fair.errors.EmptyFrameError
        The table has no rows.
    polars_fair.errors.NullValuesError
        Null scores or counts.
    polars_fair.errors.InvalidScoreError
        NaN or infinite scores.

    Examples
    --------
    >>> import polars as pl
    >>> t = pl.DataFrame({"g": ["b", "a", "a"], "score": [0.1, 0.7, 0.3],
    ...                   "positives": [1, 1, 0], "negatives": [0, 0, 2]})
    >>> v = score_view(t, ["g"])
    >>> v.key_frame["g"].to_list(), v.score.tolist(), v.bounds.tolist()
    (['a', 'b'], [0.3, 0.7, 0.1], [0, 2, 3])
    """
    if isinstance(keys, str) or not isinstance(keys, Sequence) or len(keys) == 0:
        raise E.InvalidArgumentError(NO_KEYS.format(keys=keys))
    keys = list(keys)
    schema = scores.collect_schema()
    cols = list(schema.names())
    for column, role in [*((k, "group key") for k in keys), ("score", "score table"),
                         ("positives", "score table"), ("negatives", "score table")]:
        if column not in schema:
            raise E.ColumnNotFoundError(
                E.missing_column(column, role, cols)
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
    nans, infs = scores.select(
        sc.is_nan().sum().alias("a"), sc.is_infinite().sum().alias("b")
    ).row(0)
    if nans or infs:
        raise E.InvalidScoreError(
            E.BAD_SCORES.format(column="score", nulls=0, nans=nans, infinite=infs)
        )
    weighted = schema["positives"].is_float() or schema["negatives"].is_float()
    count_dtype: pl.DataType = pl.Float64() if weighted else pl.Int64()
    df, gid = _sorted_by_group(scores, keys, schema)
    pos = df["positives"].cast(count_dtype).to_numpy()
    neg = df["negatives"].cast(count_dtype).to_numpy()
    for column, arr in (("positives", pos), ("negatives", neg)):
        bad = int(np.sum(~(arr >= 0)))
        if bad:
            raise E.InvalidArgumentError(NEGATIVE_CELLS.format(column=column, count=bad))
    change = gid[1:] != gid[:-1]
    starts = np.flatnonzero(np.r_[True, change])
    bounds = np.r_[starts, gid.size].astype(np.int64)
    score = df["score"].cast(pl.Float64).to_numpy()
    positives = np.add.reduceat(pos, starts)
    negatives = np.add.reduceat(neg, starts)
    if "n_rows" in schema:
        n = np.add.reduceat(df["n_rows"].cast(pl.Int64).to_numpy(), starts)
        n_dtype: pl.DataType = pl.Int64()
    else:
        n = positives + negatives
        n_dtype = count_dtype
    return ScoreView(
        keys=keys,
        key_frame=df.select(keys)[starts.tolist()],
        bounds=bounds,
        score=score,
        pos=pos,
        neg=neg,
        n=n,
        positives=positives,
        negatives=negatives,
        weighted=weighted,
        count_dtype=count_dtype,
        n_dtype=n_dtype,
        distinct=bool(np.all((score[1:] > score[:-1]) | change)),
    )


def _sorted_by_group(
    scores: pl.DataFrame, keys: list[str], schema: pl.Schema
) -> tuple[pl.DataFrame, NDArray[Any]]:
    """The table stably sorted by the keys (nulls last) and ``score``, and its run ids of keys.

    The score tables polars_fair builds come sorted: when the keys form runs that are
    distinct and in sorted order and a Float64 ``score`` does not decrease within a run, the
    stable sort would return the table as it is, so it is not run (same rows, same order).
    """
    gid = scores.select(pl.struct(keys).rle_id()).to_series().to_numpy()
    if schema["score"] == pl.Float64:
        score = scores["score"].to_numpy()
        change = gid[1:] != gid[:-1]
        if bool(np.all((score[1:] >= score[:-1]) | change)):
            runs = scores.select(keys)[np.flatnonzero(np.r_[True, change]).tolist()]
            in_order = runs.sort(keys, nulls_last=True, maintain_order=True)
            if runs.n_unique() == runs.height and runs.equals(in_order):
                return scores, gid
    df = scores.sort([*keys, "score"], nulls_last=True, maintain_order=True)
    return df, df.select(pl.struct(keys).rle_id()).to_series().to_numpy()


def score_reference(
    view: ScoreView, reference: ReferenceSpec, aucs: Sequence[float | None] | None = None
) -> int | None:
    """The reference group's index, by the one reference rule (:mod:`polars_fair.core.reference`).

    A group is eligible for a rule when its keys are known and it holds both classes (it has a
    ROC curve). When no group is eligible, ``"largest"`` falls back to the largest group (every
    comparison is then undefined, with its reason) and ``"max_auc"`` raises.

    Parameters
    ----------
    view : ScoreView
        The score table's view (:func:`score_view`).
    reference : {"largest", "max_auc"}, group value, mapping, tuple or Reference
        ``"largest"``: the eligible group with most rows (``n``); ``"max_auc"``: the eligible
        group with the highest AUC; ties go to the first group in key order. Or an explicit
        group: its value for one key, ``{key: value}`` (or a tuple in key order) for several.
        A :class:`polars_fair.core.reference.Reference` is used as it is.
    aucs : sequence of float or None, optional
        The groups' AUCs (:meth:`ScoreView.aucs`), computed when not given.

    Returns
    -------
    int or None
        The reference's index in key order; ``None`` only when there are no groups.

    Raises
    ------
    polars_fair.errors.UnknownGroupError
        An explicit ``reference`` names no group; the message lists the groups.
    polars_fair.errors.InvalidArgumentError
        A rule that is not a score rule, or a malformed group.
    UndefinedReferenceError
        ``"max_auc"`` and no group has both classes.

    Examples
    --------
    >>> import polars as pl
    >>> t = pl.DataFrame({"g": ["a", "b", "b", "c"], "score": [0.5, 0.2, 0.8, 0.5],
    ...                   "positives": [9, 0, 2, 0], "negatives": [0, 1, 0, 1]})
    >>> v = score_view(t, ["g"])
    >>> score_reference(v, "largest")  # "a" is larger but has one class
    1
    >>> score_reference(v, "c")
    2
    """
    ref = Reference.parse(reference)
    if aucs is None and ref.rule == "max_auc":  # the only rule that reads the AUCs
        aucs = view.aucs()
    table = view.key_frame.with_columns(pl.Series("n", view.n))
    both = (view.positives > 0) & (view.negatives > 0)
    eligible = pl.Series(both) & table.select(known(view.keys)).to_series()
    auc = None if aucs is None else pl.Series(list(aucs), dtype=pl.Float64)
    idx = ref.index(table, view.keys, eligible=eligible, score=auc)
    if idx is None and ref.rule == "largest":
        # no group has a ROC curve: the largest group stands as the reference, and every
        # comparison is null with the reason (one class), as for an explicit one-class group
        idx = ref.index(table, view.keys, eligible=pl.Series([True] * len(view)))
    if idx is None and ref.rule == "max_auc":
        labels = [view.label(g) for g in range(len(view))]
        raise UndefinedReferenceError(NO_DEFINED_AUC.format(groups=E.show_values(labels)))
    return idx
