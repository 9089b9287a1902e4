"""Audit count tables and score tables made anywhere: the entry point for counts, not rows.

The only work that grows with the rows is one group-by into additive counts. A warehouse (SQL),
Spark, or a previous run saved to Parquet can produce that table; :func:`from_counts` and
:func:`from_scores` validate it and return the same analysis objects as the rows give
(:class:`~polars_fair.analysis.FairCounts`, :class:`~polars_fair.analysis.FairScores`), so every
analysis gives exactly the result it gives on the rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_fair import errors as E
from polars_fair import tables
from polars_fair.analysis import FairCounts, FairScores

__all__ = ["from_counts", "from_scores"]

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
    raise E.InvalidArgumentError(E.NOT_A_FRAME.format(type=type(frame).__name__))


def _require(schema: pl.Schema, columns: Sequence[str], role: str) -> None:
    for c in columns:
        if c not in schema:
            raise E.ColumnNotFoundError(E.MISSING_COLUMN.format(
                column=c, role=role, available=E.show_columns(schema.names())))
        if not schema[c].is_numeric():
            raise E.InvalidArgumentError(E.NOT_NUMERIC.format(column=c, role=role, dtype=schema[c]))


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


def _check_count_table(df: pl.DataFrame, cells: Sequence[str], weighted: bool) -> pl.DataFrame:
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
            raise E.InvalidArgumentError(INCONSISTENT.format(count=bad.height, example=bad.row(0)))
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
        Every classification analysis (each returning a LazyFrame, ``by=`` rolling up to fewer
        attributes, ``combinations="all"`` supported); ``.frame`` is the validated table.

    Raises
    ------
    ColumnNotFoundError
        A count column or key is missing.
    InvalidArgumentError
        A non-numeric count column (at once); at collect time: negative, NaN or infinite
        counts, non-integer unweighted counts, unweighted rows whose cells do not add up to
        ``n``, weighted rows whose cells do not add up to ``weight_sum``.
    NullValuesError
        Null counts (at collect time).
    EmptyFrameError
        No rows, or ``n`` sums to 0 (at collect time).

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
            raise E.ColumnNotFoundError(E.MISSING_COLUMN.format(
                column=k, role="key", available=E.show_columns(schema.names())))
    raw = lf.select(*key_list, *cells)
    checked = tables.checked(raw, lambda df: _check_count_table(df, cells, weighted)).select(
        *key_list,
        pl.col("n").cast(pl.Int64),
        *[pl.col(c).cast(pl.Float64 if weighted else pl.Int64) for c in ("tp", "fp", "fn", "tn")],
        *([pl.col("weight_sum").cast(pl.Float64)] if weighted else []),
    )
    return FairCounts(tables.Counted(tables.rollup(checked, key_list), key_list))


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
        The score table.
    keys : sequence of str, optional
        Default: every column but ``score``, ``positives``, ``negatives``, ``n_rows``.

    Returns
    -------
    FairScores
        Every score-based analysis (LazyFrames).

    Raises
    ------
    ColumnNotFoundError
        A required column is missing.
    InvalidScoreError
        Null, NaN or infinite scores (at collect time).
    InvalidArgumentError, NullValuesError
        A non-numeric column (at once); negative, NaN or null counts (at collect time).
    EmptyFrameError
        No rows (at collect time).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_scores
    >>> t = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
    ...                   "positives": [0, 5, 2, 3], "negatives": [5, 0, 3, 2]})
    >>> out = from_scores(t).abroca(reference="a").collect()
    >>> out.select("g", "auc", pl.col("abroca").round(6)).rows()
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

    group = [*key_list, "score"]
    summed = tables.checked(lf, check).group_by(group).agg(
        pl.col("positives", "negatives", *rows).sum()).sort(group, nulls_last=True)
    return FairScores(summed, key_list, schema["score"])
