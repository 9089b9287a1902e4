"""Audit count tables produced anywhere: the documented entry point for counts, not rows.

The only work that grows with the rows is one group-by into additive counts. A warehouse (SQL),
Spark, or a previous run saved to Parquet can produce that table; :func:`from_counts` and
:func:`from_scores` run every analysis on it, with results equal to those from the rows.

Count table: key columns, then ``n, tp, fp, fn, tn`` (integers; with weights the four cells are
weighted sums and ``weight_sum`` follows). Score table: key columns, ``score``, ``positives``,
``negatives`` (integers or weighted sums). Rows with the same keys are summed first, so partial
counts (one table per partition, concatenated) are valid input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from polars_fair import errors as E
from polars_fair import tables, uncertainty
from polars_fair.abroca import abroca_plan, abroca_test_plan
from polars_fair.calibration import calibration_plan, reliability_plan
from polars_fair.report import analyse, rates_from_counts, reference_for, report_builder

__all__ = ["from_counts", "from_scores", "FairCounts", "FairScores"]

CELLS = ("n", "tp", "fp", "fn", "tn")
BAD_COUNTS = "count table column {column!r} holds {count} {problem} value(s)"
INCONSISTENT = (
    "count table rows where n != tp + fp + fn + tn: {count} (for example {example}); "
    "each row's four cells must add up to n (weighted counts need a weight_sum column)"
)
WEIGHT_SUM_MISMATCH = (
    "weighted count table rows where weight_sum != tp + fp + fn + tn: {count} (for example "
    "{example}); the four weighted cells must add up to weight_sum"
)


def _lazy(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    if isinstance(frame, pl.LazyFrame):
        return frame
    raise TypeError(f"expected a polars DataFrame or LazyFrame, got {type(frame).__name__}")


def _require(schema: pl.Schema, columns: Sequence[str], role: str) -> None:
    for c in columns:
        if c not in schema:
            raise E.ColumnNotFoundError(
                E.MISSING_COLUMN.format(column=c, role=role, available=E.show_columns(schema.names()))
            )
        if not schema[c].is_numeric():
            raise E.InvalidArgumentError(
                E.NOT_NUMERIC.format(column=c, role=role, dtype=schema[c])
            )


def _check_cells(df: pl.DataFrame, columns: Sequence[str]) -> None:
    for c in columns:
        nulls = df[c].null_count()
        if nulls:
            raise E.NullValuesError(BAD_COUNTS.format(column=c, count=nulls, problem="null"))
        v = pl.col(c).cast(pl.Float64)
        bad = df.filter((v < 0) | v.is_nan() | v.is_infinite()).height
        if bad:
            raise E.InvalidArgumentError(
                BAD_COUNTS.format(column=c, count=bad, problem="negative, NaN or infinite")
            )


class FairCounts:
    """The analyses of ``df.fair`` on a count table (see :func:`from_counts`)."""

    def __init__(self, counts: pl.LazyFrame, keys: list[str]) -> None:
        self._counts = counts
        self.keys = keys

    @property
    def frame(self) -> pl.LazyFrame:
        """The validated count table, one row per group (duplicates summed), sorted by keys."""
        return self._counts

    def _counted(
        self, by: tables.By, combinations: Literal["all"] | None, max_order: int | None
    ) -> tables.Counted:
        if by is None and combinations is None:
            return tables.Counted(self._counts, self.keys)
        chosen = self.keys if by is None else tables.normalize_by(by)
        names = [b if isinstance(b, str) else b.meta.output_name() for b in chosen]
        for k in names:
            if k not in self.keys:
                raise E.ColumnNotFoundError(
                    E.MISSING_COLUMN.format(column=k, role="by", available=E.show_columns(self.keys))
                )
        sets = tables.attribute_sets(names if by is None or not _nested(by) else by,
                                     combinations, max_order)
        if sets is None:
            return tables.Counted(tables.rollup(self._counts, names), names)
        set_names = [[str(b) for b in s] for s in sets]
        union = [k for k in self.keys if any(k in s for s in set_names)]
        return tables.expand_sets(tables.rollup(self._counts, union), union, set_names)

    def rates(
        self, by: tables.By = None, *, combinations: Literal["all"] | None = None,
        max_order: int | None = None,
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.rates <polars_fair.FairLazyFrame.rates>` from the counts.

        ``by`` (default: every key) names the attributes to roll up to; ``combinations="all"``
        and ``max_order`` as in ``df.fair``.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_counts
        >>> c = pl.DataFrame({"g": ["a", "b"], "n": [4, 4], "tp": [2, 1], "fp": [0, 1],
        ...                   "fn": [1, 1], "tn": [1, 1]})
        >>> from_counts(c).rates().collect()["selection_rate"].to_list()
        [0.5, 0.5]
        """
        return analyse(self._counted(by, combinations, max_order), rates_from_counts)

    def report(
        self, by: tables.By = None, *, reference: Any = "largest", min_support: int = 30,
        ofi_threshold: float = 0.3, four_fifths: float = 0.8, exclude_low_support: bool = False,
        combinations: Literal["all"] | None = None, max_order: int | None = None,
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.report <polars_fair.FairLazyFrame.report>` from the counts.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_counts
        >>> c = pl.DataFrame({"g": ["a", "b"], "n": [6, 2], "tp": [2, 0], "fp": [1, 0],
        ...                   "fn": [0, 1], "tn": [3, 1]})
        >>> from_counts(c).report(min_support=1).collect()["ofi"].to_list()
        [0.0, -0.6666666666666666]
        """
        build = report_builder(
            reference=reference, min_support=min_support, ofi_threshold=ofi_threshold,
            four_fifths=four_fifths, exclude_low_support=exclude_low_support,
        )
        return analyse(self._counted(by, combinations, max_order), build)

    def metrics(
        self, by: tables.By = None, *, level: float = 0.95, min_support: int = 30,
        combinations: Literal["all"] | None = None, max_order: int | None = None,
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.metrics <polars_fair.FairLazyFrame.metrics>` from the counts.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_counts
        >>> c = pl.DataFrame({"g": ["a", "b"], "n": [50, 50], "tp": [20, 10], "fp": [5, 5],
        ...                   "fn": [5, 15], "tn": [20, 20]})
        >>> from_counts(c).metrics().collect().height  # 2 groups x 10 metrics
        20
        """
        return analyse(
            self._counted(by, combinations, max_order),
            lambda lf, keys: uncertainty.metrics_table(lf, keys, level=level,
                                                       min_support=min_support),
        )

    def disparity(
        self, by: tables.By = None, *, reference: Any = "largest",
        metric: str = "selection_rate", level: float = 0.95,
        test: Literal["auto", "z", "fisher"] = "auto", adjust: Literal["holm", "bh"] = "holm",
        combinations: Literal["all"] | None = None, max_order: int | None = None,
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.disparity <polars_fair.FairLazyFrame.disparity>` from counts.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_counts
        >>> c = pl.DataFrame({"g": ["a", "b"], "n": [50, 50], "tp": [20, 10], "fp": [5, 5],
        ...                   "fn": [5, 15], "tn": [20, 20]})
        >>> from_counts(c).disparity(reference="a").collect()["ratio"].to_list()
        [1.0, 0.6]
        """
        return analyse(
            self._counted(by, combinations, max_order),
            lambda lf, keys: uncertainty.disparity_table(
                lf, keys, reference=reference_for(reference, keys), metric=metric, level=level,
                test=test, adjust=adjust,
            ),
        )

    def pairwise(
        self, by: tables.By = None, *, metrics: Sequence[str] = ("ofi", "disparate_impact"),
        combinations: Literal["all"] | None = None, max_order: int | None = None,
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.pairwise <polars_fair.FairLazyFrame.pairwise>` from counts.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_counts
        >>> c = pl.DataFrame({"g": ["a", "b"], "n": [50, 50], "tp": [20, 10], "fp": [5, 5],
        ...                   "fn": [5, 15], "tn": [20, 20]})
        >>> from_counts(c).pairwise().collect()["ofi"].to_list()
        [0.2, -0.2]
        """
        from polars_fair.pairwise import pairwise_from_counts

        return analyse(
            self._counted(by, combinations, max_order),
            lambda lf, keys: pairwise_from_counts(lf, keys, metrics=tuple(metrics)),
        )

    def summary(
        self, by: tables.By = None, *,
        method: Literal["between_groups", "to_reference"] = "between_groups",
        reference: Any = "largest", min_support: int = 30, exclude_low_support: bool = False,
        four_fifths: float = 0.8, ofi_threshold: float = 0.3,
        combinations: Literal["all"] | None = None, max_order: int | None = None,
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.summary <polars_fair.FairLazyFrame.summary>` from counts.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_counts
        >>> c = pl.DataFrame({"g": ["a", "b"], "n": [50, 50], "tp": [20, 10], "fp": [5, 5],
        ...                   "fn": [5, 15], "tn": [20, 20]})
        >>> s = from_counts(c).summary().collect()
        >>> s.filter(pl.col("metric") == "demographic_parity_difference")["value"].item()
        0.2
        """
        from polars_fair.summary import summary_from_counts

        return analyse(
            self._counted(by, combinations, max_order),
            lambda lf, keys: summary_from_counts(
                lf, keys, method=method, reference=reference_for(reference, keys),
                min_support=min_support, exclude_low_support=exclude_low_support,
                four_fifths=four_fifths, ofi_threshold=ofi_threshold,
            ),
        )


def _nested(by: tables.By) -> bool:
    return isinstance(by, Sequence) and not isinstance(by, str) and any(
        isinstance(b, (list, tuple)) for b in by
    )


def from_counts(
    counts: pl.DataFrame | pl.LazyFrame, keys: Sequence[str] | None = None
) -> FairCounts:
    """Audit a count table made anywhere: ``from_counts(table).report(...)``.

    The count table (the schema ``df.fair.confusion`` returns) holds the key columns, then
    ``n, tp, fp, fn, tn``; with sample weights the four cells are weighted sums and
    ``weight_sum`` follows. Rows with equal keys are summed (counts are additive), so
    concatenated partial tables are valid. Every analysis gives exactly the result it gives on
    the rows.

    Parameters
    ----------
    counts : pl.DataFrame or pl.LazyFrame
        The count table, for example from SQL (``GROUP BY race, sex`` with ``COUNT(*)`` and the
        four ``SUM(CASE ...)`` cells), Spark, or ``df.fair.confusion(...)`` saved to Parquet.
    keys : sequence of str, optional
        The key columns; default: every column that is not a count.

    Returns
    -------
    FairCounts
        With ``rates``, ``report``, ``metrics``, ``disparity``, ``pairwise`` and ``summary``
        (each returning a LazyFrame, ``by=`` rolling up to fewer attributes,
        ``combinations="all"`` supported); ``.frame`` is the validated table.

    Raises
    ------
    ColumnNotFoundError
        A count column or key is missing.
    InvalidArgumentError
        A non-numeric count column, negative/NaN counts, or (unweighted) rows whose cells do not
        add up to ``n`` (at collect time).
    NullValuesError
        Null counts (at collect time).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_counts
    >>> sql_counts = pl.DataFrame({"race": ["A", "B", "A"], "n": [3, 5, 3], "tp": [1, 2, 1],
    ...                            "fp": [1, 1, 0], "fn": [0, 1, 1], "tn": [1, 1, 1]})
    >>> from_counts(sql_counts).frame.collect().rows()  # partial rows of A are summed
    [('A', 6, 2, 1, 1, 2), ('B', 5, 2, 1, 1, 1)]
    """
    lf = _lazy(counts)
    schema = lf.collect_schema()
    _require(schema, CELLS, "count table")
    weighted = "weight_sum" in schema
    cells = [*CELLS, *(["weight_sum"] if weighted else [])]
    if weighted:
        _require(schema, ["weight_sum"], "count table")
    key_list = list(keys) if keys is not None else [c for c in schema.names() if c not in cells]
    for k in key_list:
        if k not in schema:
            raise E.ColumnNotFoundError(
                E.MISSING_COLUMN.format(column=k, role="key", available=E.show_columns(schema.names()))
            )
    raw = lf.select(*key_list, *cells)

    def check(df: pl.DataFrame) -> pl.DataFrame:
        _check_cells(df, cells)
        if not weighted:
            for c in CELLS:
                if df.schema[c].is_float():
                    frac = df.filter(pl.col(c) != pl.col(c).floor()).height
                    if frac:
                        raise E.InvalidArgumentError(
                            BAD_COUNTS.format(column=c, count=frac, problem="non-integer")
                            + "; weighted counts need a weight_sum column"
                        )
            bad = df.filter(pl.col("n") != pl.col("tp") + pl.col("fp") + pl.col("fn") + pl.col("tn"))
            if bad.height:
                raise E.InvalidArgumentError(
                    INCONSISTENT.format(count=bad.height, example=bad.row(0))
                )
        else:
            cells_sum = pl.col("tp") + pl.col("fp") + pl.col("fn") + pl.col("tn")
            off = df.filter((cells_sum - pl.col("weight_sum")).abs()
                            > 1e-9 * pl.max_horizontal(pl.col("weight_sum").abs(), pl.lit(1.0)))
            if off.height:
                raise E.InvalidArgumentError(
                    WEIGHT_SUM_MISMATCH.format(count=off.height, example=off.row(0))
                )
        if df.height == 0 or not df["n"].sum():
            raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=" (the count table is empty)"))
        return df

    checked = tables.checked(raw, check).select(
        *key_list,
        pl.col("n").cast(pl.Int64),
        *[pl.col(c).cast(pl.Float64 if weighted else pl.Int64) for c in ("tp", "fp", "fn", "tn")],
        *([pl.col("weight_sum").cast(pl.Float64)] if weighted else []),
    )
    return FairCounts(tables.rollup(checked, key_list), key_list)


class FairScores:
    """The score-based analyses on a score table (see :func:`from_scores`)."""

    def __init__(self, scores: pl.LazyFrame, keys: list[str]) -> None:
        self._scores = scores
        self.keys = keys

    @property
    def frame(self) -> pl.LazyFrame:
        """The validated score table (duplicates summed), sorted by keys then score."""
        return self._scores

    def abroca(self, *, reference: Any = "largest", pairwise: bool = False) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.abroca <polars_fair.FairLazyFrame.abroca>` from the scores.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_scores
        >>> t = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
        ...                   "positives": [0, 5, 2, 3], "negatives": [5, 0, 3, 2]})
        >>> from_scores(t).abroca(reference="a").collect()["auc"].to_list()
        [1.0, 0.6]
        """
        return abroca_plan(self._scores, self.keys, reference=reference, pairwise=pairwise)

    def abroca_test(
        self, *, reference: Any = "largest", n_permutations: int = 1000,
        seed: int | None = None, tolerance: float = 1e-12, return_draws: bool = False,
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.abroca_test <polars_fair.FairLazyFrame.abroca_test>`.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_scores
        >>> t = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
        ...                   "positives": [0, 5, 2, 3], "negatives": [5, 0, 3, 2]})
        >>> p = from_scores(t).abroca_test(reference="a", n_permutations=99, seed=0).collect()
        >>> 0 < p["p_value"].item() <= 1
        True
        """
        return abroca_test_plan(
            self._scores, self.keys, reference=reference, n_permutations=n_permutations,
            seed=seed, tolerance=tolerance, return_draws=return_draws,
        )

    def calibration(
        self, *, n_bins: int = 10, strategy: Literal["uniform", "quantile"] = "uniform"
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.calibration <polars_fair.FairLazyFrame.calibration>`.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_scores
        >>> t = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
        ...                   "positives": [0, 5, 2, 3], "negatives": [5, 0, 3, 2]})
        >>> from_scores(t).calibration(n_bins=2).collect()["n"].to_list()
        [10, 10]
        """
        return calibration_plan(self._scores, self.keys, n_bins=n_bins, strategy=strategy)

    def reliability(
        self, *, n_bins: int = 10, strategy: Literal["uniform", "quantile"] = "uniform"
    ) -> pl.LazyFrame:
        """:meth:`FairLazyFrame.reliability <polars_fair.FairLazyFrame.reliability>`.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_scores
        >>> t = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
        ...                   "positives": [0, 5, 2, 3], "negatives": [5, 0, 3, 2]})
        >>> from_scores(t).reliability(n_bins=2).collect().height
        4
        """
        return reliability_plan(self._scores, self.keys, n_bins=n_bins, strategy=strategy)


def from_scores(
    scores: pl.DataFrame | pl.LazyFrame, keys: Sequence[str] | None = None
) -> FairScores:
    """Audit a score table made anywhere: ``from_scores(table).abroca(...)``.

    The score table (the schema ``df.fair.scores`` returns) holds the key columns, ``score``,
    ``positives`` and ``negatives``: one row per (group, distinct score). Rows with equal keys
    and score are summed. Continuous scores may be rounded before counting (exact for the
    rounded scores).

    Parameters
    ----------
    scores : pl.DataFrame or pl.LazyFrame
    keys : sequence of str, optional
        Default: every column but ``score``, ``positives``, ``negatives``, ``n_rows``.

    Returns
    -------
    FairScores
        With ``abroca``, ``abroca_test``, ``calibration``, ``reliability`` (LazyFrames).

    Raises
    ------
    ColumnNotFoundError
        A required column is missing.
    InvalidScoreError
        Null, NaN or infinite scores (at collect time).
    InvalidArgumentError, NullValuesError
        Negative, NaN or null counts (at collect time).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_scores
    >>> t = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
    ...                   "positives": [0, 5, 2, 3], "negatives": [5, 0, 3, 2]})
    >>> from_scores(t).abroca(reference="a").collect().select("g", "auc", pl.col("abroca").round(6)).rows()
    [('a', 1.0, 0.0), ('b', 0.6, 0.4)]
    """
    lf = _lazy(scores)
    schema = lf.collect_schema()
    _require(schema, ("score", "positives", "negatives"), "score table")
    extra = ("score", "positives", "negatives", "n_rows")
    key_list = list(keys) if keys is not None else [c for c in schema.names() if c not in extra]
    count_dtype = pl.Float64 if (schema["positives"].is_float() or schema["negatives"].is_float()) \
        else pl.Int64
    rows = ["n_rows"] if "n_rows" in schema else []  # weighted tables: the row counts
    lf = lf.select(
        *key_list, pl.col("score").cast(pl.Float64),
        pl.col("positives").cast(count_dtype), pl.col("negatives").cast(count_dtype),
        *[pl.col(c).cast(pl.Int64) for c in rows],
    )

    def check(df: pl.DataFrame) -> pl.DataFrame:
        s = df["score"]
        nulls, nans, infs = s.null_count(), int(s.is_nan().sum()), int(s.is_infinite().sum())
        if nulls or nans or infs:
            raise E.InvalidScoreError(
                E.BAD_SCORES.format(column="score", nulls=nulls, nans=nans, infinite=infs)
            )
        _check_cells(df, ("positives", "negatives", *rows))
        if df.height == 0:
            raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=" (the score table is empty)"))
        return df

    checked = tables.checked(lf, check)
    group = [*key_list, "score"]
    summed = checked.group_by(group).agg(pl.col("positives", "negatives", *rows).sum()).sort(
        group, nulls_last=True
    )
    return FairScores(summed, key_list)
