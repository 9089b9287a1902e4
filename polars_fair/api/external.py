"""Audit count tables and score tables made anywhere: the entry point for counts, not rows.

The only work that grows with the rows is one group-by into additive counts. A warehouse (SQL),
Spark, or a previous run saved to Parquet can produce that table; :func:`from_counts` and
:func:`from_scores` validate it and return the same analysis objects as the rows give
(:class:`~polars_fair.api.objects.FairCounts`, :class:`~polars_fair.api.objects.FairScores`), so
every analysis gives exactly the result it gives on the rows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.api.objects import FairCounts, FairScores
from polars_fair.core.numbers import fractional
from polars_fair.core.spec import (
    DEFAULT_MAX_GROUPS,
    FLOAT_DIGITS,
    FLOAT_EXACT_INT,
    POSITIVE_WEIGHT_ROWS,
    check_int,
    check_key_dtype,
    check_reserved_keys,
    decimal_digits,
    names,
    wide_decimal,
    wide_int,
)
from polars_fair.counting import tables
from polars_fair.counting.boundary import (
    check_float_levels,
    check_row_levels,
    missing_keys_as_null,
)
from polars_fair.counting.membership_counts import MEMBERSHIP_COLUMNS

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
#: The largest Int64, the dtype every count is widened to before any check.
INT64_MAX = 2**63 - 1


def _lazy(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    if isinstance(frame, pl.DataFrame):
        return frame.lazy()
    if isinstance(frame, pl.LazyFrame):
        return frame
    raise E.InvalidArgumentError(E.NOT_A_FRAME.format(type=type(frame).__name__))


def _key_list(keys: Any, schema: pl.Schema, exclude: Sequence[str]) -> list[str]:
    """The key columns: given (a name or a sequence of names) or every other column."""
    key_list = names(keys) if keys is not None else [
        c for c in schema.names() if c not in exclude]
    if key_list is None:
        raise E.InvalidArgumentError(
            E.NOT_A_COLUMN.format(role="keys", value=keys, type=type(keys).__name__))
    if "" in key_list:  # Polars renames such a column in a new frame: it could not be a key
        raise E.InvalidArgumentError(E.EMPTY_NAME_TABLE.format(role="keys"))
    check_reserved_keys(key_list, "count table")
    for k in key_list:
        if k not in schema:
            raise E.ColumnNotFoundError(E.missing_column(k, "key", schema.names()))
        check_key_dtype(schema[k], k)
    return key_list


def _require(schema: pl.Schema, columns: Sequence[str], role: str) -> None:
    for c in columns:
        if c not in schema:
            raise E.ColumnNotFoundError(E.missing_column(c, role, schema.names()))
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


def _widen(
    df: pl.DataFrame, columns: Sequence[str], integer: Sequence[str], hint: str = ""
) -> pl.DataFrame:
    """Checked cells, widened: the ``integer`` columns to Int64, the others to Float64.

    Before any arithmetic (a UInt32 sum wraps around): nulls, negatives, NaN and infinities
    raise (:func:`_check_cells`); an integer count must be a whole number and fit in Int64; the
    total of each column over the rows (every roll-up is at most that, counts being
    non-negative) must fit in Int64, or be finite for a weighted sum.
    """
    _check_cells(df, columns)
    out = []
    for c in columns:
        col = df[c]
        if c in integer:
            if col.dtype.is_float():
                frac = col.filter(col != col.floor()).len()
                if frac:
                    raise E.InvalidArgumentError(
                        BAD_COUNTS.format(column=c, count=frac, problem="non-integer") + hint
                    )
            big = col.filter(col.cast(pl.Float64) > float(INT64_MAX)) if col.dtype.is_float() \
                else col.filter(col.cast(pl.Int128) > INT64_MAX)
            if big.len():
                raise E.InvalidArgumentError(E.COUNT_TOO_LARGE.format(
                    column=c, count=big.len(), example=big[0]))
            col = col.cast(pl.Int64)
            total = col.cast(pl.Int128).sum()
            if total > INT64_MAX:
                raise E.InvalidArgumentError(E.COUNT_SUM_OVERFLOW.format(column=c, total=total))
        else:
            col = col.cast(pl.Float64)
            if not math.isfinite(float(col.sum() or 0.0)):
                raise E.InvalidArgumentError(E.WEIGHTED_SUM_OVERFLOW.format(column=c))
        out.append(col)
    return df.with_columns(out)


def _check_positive_rows(df: pl.DataFrame, table: str = "count table") -> None:
    """``n_positive_weight`` within ``[0, n]``, and above 0 where ``weight_sum`` is."""
    pos = pl.col(POSITIVE_WEIGHT_ROWS)
    bad = df.filter((pos > pl.col("n")) | ((pos == 0) & (pl.col("weight_sum") > 0)))
    if bad.height:
        raise E.InvalidArgumentError(E.POSITIVE_ROWS_RANGE.format(
            table=table, values=E.show_values(bad[POSITIVE_WEIGHT_ROWS].to_list())))


def _check_count_table(
    df: pl.DataFrame, keys: Sequence[str], cells: Sequence[str], weighted: bool
) -> pl.DataFrame:
    integer = ["n", POSITIVE_WEIGHT_ROWS] if weighted else list(CELLS)
    hint = "" if weighted else "; weighted counts need a weight_sum column"
    df = missing_keys_as_null(_widen(df, cells, integer, hint), keys)
    if not weighted:
        total = pl.sum_horizontal(pl.col(c).cast(pl.Int128) for c in ("tp", "fp", "fn", "tn"))
        bad = df.filter(pl.col("n").cast(pl.Int128) != total)
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
        if POSITIVE_WEIGHT_ROWS in cells:
            _check_positive_rows(df)
    if df.height == 0 or not df["n"].sum():
        raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=" (the count table is empty)"))
    _check_levels(df, keys)
    return df


def _check_levels(df: pl.DataFrame, keys: Sequence[str]) -> None:
    """The rows' guards on attribute levels, for a table made elsewhere (``n`` counts rows).

    A float key with more than 50 levels, or a key too fine to form groups, is
    refused exactly as on the rows (:func:`polars_fair.counting.boundary.check_float_levels`,
    :func:`polars_fair.counting.boundary.check_row_levels`), with the same message.
    """
    check_float_levels(df, [k for k in keys if fractional(df.schema[k])], way="table")
    check_row_levels(df, keys, way="table")


def from_counts(
    counts: pl.DataFrame | pl.LazyFrame, keys: str | Sequence[str] | None = None, *,
    max_groups: int = DEFAULT_MAX_GROUPS,
) -> FairCounts:
    """Audit a count table made anywhere: ``from_counts(table).report(...)``.

    The count table (the schema ``df.fair.confusion`` returns) holds the key columns, then
    ``n, tp, fp, fn, tn``; with sample weights the four cells are weighted sums and
    ``weight_sum`` follows, then optionally ``n_positive_weight``, the rows whose weight is
    above 0 (in SQL ``SUM(CASE WHEN w > 0 THEN 1 ELSE 0 END)``; the count tables polars_fair
    makes carry it): support flags, the reference rule ``"largest"`` and the intervals count
    those rows, as a row of weight 0 is no observation; without it they count ``n``, every
    row. Rows with equal keys are summed (counts are additive), so
    concatenated partial tables are valid. The table of estimated membership (``membership=``,
    :mod:`polars_fair.counting.membership_counts`) keeps its ``n_effective`` and
    ``attenuation`` columns; they are not sums, so such a table may not repeat a group. Every
    analysis gives exactly the result it gives on the rows.

    Counts of any integer dtype (``UInt32``, ``Int8``, ...) are widened to Int64 before any
    check, so a narrow sum cannot wrap around; a column whose total over the rows exceeds Int64
    is an error, as is a weighted column whose total is infinite. A NaN key is the missing
    group, as null.

    Parameters
    ----------
    counts : pl.DataFrame or pl.LazyFrame
        The count table, for example from SQL (``GROUP BY race, sex`` with ``COUNT(*)`` and the
        four ``SUM(CASE ...)`` cells), Spark, or ``df.fair.confusion(...)`` saved to Parquet.
    keys : str or sequence of str, optional
        The key columns; default: every column that is not a count.
    max_groups : int, default 10000
        The most groups of a table rolled up to several attribute sets (``combinations=``).

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
        A non-numeric count column, a key of a nested or object dtype, named ``""`` or
        starting with the reserved prefix ``__pf_``, membership columns (``n_effective``,
        ...) without ``weight_sum``, or some of them without ``n_effective`` or
        ``attenuation`` (they come together; at once); at collect time: a membership
        table that repeats a group, or whose ``n_effective``, ``attenuation`` or
        ``row_weight_sum`` no rows can have (:func:`check_membership_table`: ``n_effective``
        above ``n``, negative, not finite, below 1 where ``weight_sum`` is positive); negative,
        NaN or
        infinite counts, non-integer unweighted counts (or ``n``), counts or totals beyond
        Int64, an infinite weighted total,
        unweighted rows whose cells do not add up to ``n``, weighted rows whose cells do not
        add up to ``weight_sum``; ``n_positive_weight`` without ``weight_sum``, above ``n``,
        not a whole number, or 0 where ``weight_sum`` is positive.
    NullValuesError
        Null counts (at collect time).
    EmptyFrameError
        No rows, or ``n`` sums to 0 (at collect time).
    TooManyLevelsError
        As on the rows (at collect time): a float key with more than 50 levels, or a numeric
        key too fine to form groups (:func:`polars_fair.counting.boundary.fineness`).

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
    positive = POSITIVE_WEIGHT_ROWS in schema  # optional: the support falls back to n
    if positive and not weighted:
        raise E.InvalidArgumentError(E.POSITIVE_ROWS_UNWEIGHTED)
    cells = [*CELLS, *(["weight_sum"] if weighted else []),
             *([POSITIVE_WEIGHT_ROWS] if positive else [])]
    if weighted:
        _require(schema, cells[len(CELLS):], "count table")
    extra = [c for c in MEMBERSHIP_COLUMNS if c in schema]  # estimated membership (issue 24)
    if extra and not weighted:
        raise E.InvalidArgumentError(E.MEMBERSHIP_UNWEIGHTED.format(columns=extra))
    missing = [c for c in MEMBERSHIP_COLUMNS[:2] if extra and c not in schema]
    if missing:  # the columns come together: without one, read as crisp or a plan dump
        raise E.InvalidArgumentError(E.MEMBERSHIP_INCOMPLETE.format(
            missing=", ".join(missing), present=", ".join(extra)))
    key_list = _key_list(keys, schema, [*cells, *extra])
    limit = check_int(max_groups, "max_groups")
    raw = lf.select(*key_list, *cells)
    cell = pl.Float64() if weighted else pl.Int64()
    out_schema = pl.Schema([*[(k, schema[k]) for k in key_list], ("n", pl.Int64()),
                            *[(c, cell) for c in ("tp", "fp", "fn", "tn")],
                            *([("weight_sum", pl.Float64())] if weighted else []),
                            *([(POSITIVE_WEIGHT_ROWS, pl.Int64())] if positive else [])])
    checked = raw.map_batches(lambda df: _check_count_table(df, key_list, cells, weighted),
                              schema=out_schema)
    frame = tables.rollup(checked, key_list)
    if extra:
        frame = _with_membership(frame, lf.select(*key_list, *extra), key_list)
    return FairCounts(tables.Counted(frame, key_list, max_groups=limit), made_elsewhere=True)


def _with_membership(frame: pl.LazyFrame, side: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """``n_effective`` and ``attenuation`` of a membership count table, kept beside its rows.

    They are not sums, so the table may not repeat a group (partial tables cannot be added).
    """
    def unique(df: pl.DataFrame) -> pl.DataFrame:
        if (df.select(keys).is_duplicated().any() if keys else df.height > 1):
            raise E.InvalidArgumentError(E.MEMBERSHIP_REPEATED)
        return df

    side = side.map_batches(unique, schema=side.collect_schema())
    if not keys:
        joined = pl.concat([frame, side], how="horizontal")
    else:
        joined = frame.join(side, on=keys, how="left", nulls_equal=True, maintain_order="left")
    return joined.map_batches(check_membership_table, schema=joined.collect_schema())


def check_membership_table(df: pl.DataFrame) -> pl.DataFrame:
    """Refuse a membership count table that no rows can have (``from_counts``).

    With ``S`` = ``weight_sum`` (Σ w·p) and ``n`` the rows counted (p > 0): Kish's
    ``n_effective`` = S² / Σ (w·p)² is a finite number in [0, n], since S² ≤ n·Σ (w·p)²
    (Cauchy-Schwarz over the n rows; equal when every w·p is the same), and it is 0 exactly
    where S is (no weight: no observation), at least 1 wherever S is above 0 (S² ≥ Σ (w·p)²,
    the terms being >= 0; every interval divides by it); without sample weights (no
    ``row_weight_sum``) it is at least S, since
    Σ p² ≤ Σ p. ``attenuation`` = Var(p) / (μ(1 − μ)) lies in [0, 1] (a variance of values in
    [0, 1] is at most μ(1 − μ)), or is null (no weight). ``row_weight_sum`` (Σ w over the
    n rows) is finite, at least S (each p ≤ 1), and above 0 wherever S is.

    Parameters
    ----------
    df : pl.DataFrame
        A membership count table (``n``, ``weight_sum`` and the columns of
        :data:`polars_fair.counting.membership_counts.MEMBERSHIP_COLUMNS` it has).

    Returns
    -------
    pl.DataFrame
        ``df``, unchanged.

    Raises
    ------
    InvalidArgumentError
        A rule above broken (:data:`polars_fair.errors.MEMBERSHIP_TABLE_BOUND`): the message
        names the column, the rule and counts the rows, with the first such row's values.

    Examples
    --------
    >>> t = pl.DataFrame({"g": ["a"], "n": [4], "weight_sum": [2.0], "n_effective": [5.0]})
    >>> check_membership_table(t)
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: membership count table: n_effective must be at ...
    """
    s, n = pl.col("weight_sum"), pl.col("n").cast(pl.Float64)
    slack = 1e-9 * pl.max_horizontal(n, pl.lit(1.0))  # floats summed in another order
    rules: list[tuple[str, pl.Expr, str]] = []
    if "n_effective" in df.columns:
        e = pl.col("n_effective")
        rules += [
            ("n_effective", e.is_null() | e.is_nan() | e.is_infinite() | (e < 0),
             "must be a finite number >= 0"),
            ("n_effective", e > n + slack,
             "must be at most n (Kish's (Σ w·p)² / Σ (w·p)² is at most the rows counted)"),
            ("n_effective", (e <= 0) & (s > 0),
             "must be above 0 where weight_sum is (Kish's size is 0 only without weight)"),
            ("n_effective", (e > 0) & (e < 1 - 1e-9) & (s > 0),
             "must be at least 1 where weight_sum is above 0 ((Σ a)² >= Σ a² for a >= 0: "
             "Kish's size is at least 1 whenever a weight is positive)"),
            ("n_effective", (e > 0) & (s <= 0), "must be 0 where weight_sum is 0"),
        ]
        if "row_weight_sum" not in df.columns:  # no sample weights: Σ p² <= Σ p (p <= 1)
            rules.append(("n_effective", e < s - 1e-9 * pl.max_horizontal(s, pl.lit(1.0)),
                          "must be at least weight_sum without sample weights (Σ p² <= Σ p, "
                          "so (Σ p)² / Σ p² >= Σ p; a table counted with sample weights "
                          "carries row_weight_sum)"))
    if "attenuation" in df.columns:
        a = pl.col("attenuation")
        rules.append(("attenuation", a.is_not_null() & (a.is_nan() | (a < -1e-9) | (a > 1 + 1e-9)),
                      "must be null or a number in [0, 1] (Var(p) <= μ(1 - μ))"))
    if "row_weight_sum" in df.columns:
        r = pl.col("row_weight_sum")
        rules += [
            ("row_weight_sum", r.is_null() | r.is_nan() | r.is_infinite(),
             "must be a finite number"),
            ("row_weight_sum", r < s - 1e-9 * pl.max_horizontal(s.abs(), pl.lit(1.0)),
             "must be at least weight_sum (Σ w >= Σ w·p, each p <= 1)"),
        ]
    shown = [c for c in df.columns if c not in ("tp", "fp", "fn", "tn")]
    for column, broken, rule in rules:
        bad = df.filter(broken.fill_null(False))
        if bad.height:
            raise E.InvalidArgumentError(E.MEMBERSHIP_TABLE_BOUND.format(
                column=column, rule=rule, count=bad.height,
                example=dict(zip(shown, bad.select(shown).row(0), strict=True))))
    return df


def from_scores(
    scores: pl.DataFrame | pl.LazyFrame, keys: str | Sequence[str] | None = None
) -> FairScores:
    """Audit a score table made anywhere: ``from_scores(table).abroca(...)``.

    The score table (the schema ``df.fair.scores`` returns) holds the key columns, ``score``,
    ``positives`` and ``negatives``: one row per (group, distinct score). Rows with equal keys
    and score are summed. Continuous scores may be rounded before counting (exact for the
    rounded scores). A weighted table (Float64 ``positives``, ``negatives``) may carry
    ``n_rows`` and ``n_positive_weight`` (rows, and rows of positive weight, Int64), as the
    score tables polars_fair makes do; a threshold sweep's support flags count the latter.

    Parameters
    ----------
    scores : pl.DataFrame or pl.LazyFrame
        The score table.
    keys : str or sequence of str, optional
        Default: every column but ``score``, ``positives``, ``negatives``, ``n_rows``,
        ``n_positive_weight``.

    Returns
    -------
    FairScores
        Every score-based analysis (LazyFrames).

    Raises
    ------
    ColumnNotFoundError
        A required column is missing.
    InvalidScoreError
        Null, NaN or infinite scores, integer scores beyond 2**53 that a float cannot hold
        (at collect time).
    InvalidArgumentError, NullValuesError
        A non-numeric column, a nested key or a key named ``""`` or starting with ``__pf_``
        (at once); negative, NaN or
        null counts, counts or totals beyond Int64, an infinite weighted total, an
        ``n_positive_weight`` (optional: rows of positive weight) above ``n_rows`` (at collect
        time; counts of any integer dtype are widened to Int64 first).
    EmptyFrameError
        No rows (at collect time).
    TooManyLevelsError
        As on the rows (at collect time): a float key with more than 50 levels, or a numeric
        key too fine to form groups (rows: ``positives + negatives``, or ``n_rows``).

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
    extra = ("score", "positives", "negatives", "n_rows", POSITIVE_WEIGHT_ROWS)
    key_list = _key_list(keys, schema, extra)
    weighted = schema["positives"].is_float() or schema["negatives"].is_float()
    count_dtype = pl.Float64() if weighted else pl.Int64()
    # weighted tables: the row counts, and optionally the rows of positive weight
    rows = [c for c in ("n_rows", POSITIVE_WEIGHT_ROWS) if c in schema]
    _require(schema, rows, "score table")
    lf = lf.select(*key_list, "score", "positives", "negatives", *rows)
    wide = wide_int(schema["score"])
    out_schema = pl.Schema([*[(k, schema[k]) for k in key_list], ("score", pl.Float64()),
                            ("positives", count_dtype), ("negatives", count_dtype),
                            *[(c, pl.Int64()) for c in rows]])

    def check(df: pl.DataFrame) -> pl.DataFrame:
        if wide_decimal(schema["score"]):  # decimals a float cannot keep apart: as on the rows
            big = int(df.select((decimal_digits(pl.col("score")) > FLOAT_DIGITS).sum()).item())
            if big:
                raise E.InvalidScoreError(E.SCORE_DECIMAL_DIGITS.format(
                    column="score", dtype=schema["score"], count=big))
        if wide:  # integer scores a float cannot hold: refused as on the rows
            beyond = ~pl.col("score").is_between(-FLOAT_EXACT_INT, FLOAT_EXACT_INT)
            big = int(df.select(beyond.sum()).item())
            if big:
                raise E.InvalidScoreError(E.SCORE_BEYOND_FLOAT.format(
                    column="score", dtype=schema["score"], count=big))
        df = df.with_columns(pl.col("score").cast(pl.Float64))
        s = df["score"]
        nulls, nans, infs = s.null_count(), int(s.is_nan().sum()), int(s.is_infinite().sum())
        if nulls or nans or infs:
            raise E.InvalidScoreError(
                E.BAD_SCORES.format(column="score", nulls=nulls, nans=nans, infinite=infs)
            )
        integer = [*rows, *([] if weighted else ["positives", "negatives"])]
        df = _widen(df, ("positives", "negatives", *rows), integer)
        if len(rows) == 2:  # n_positive_weight within [0, n_rows]
            bad = df.filter(pl.col(POSITIVE_WEIGHT_ROWS) > pl.col("n_rows"))
            if bad.height:
                raise E.InvalidArgumentError(E.POSITIVE_ROWS_ABOVE_ROWS.format(
                    values=E.show_values(bad[POSITIVE_WEIGHT_ROWS].to_list())))
        if df.height == 0:
            raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=" (the score table is empty)"))
        df = missing_keys_as_null(df, key_list)
        # rows per score row: n_rows when weighted (when given), else positives + negatives
        n = pl.col("n_rows") if rows else None if weighted else \
            pl.col("positives") + pl.col("negatives")
        if n is not None:
            _check_levels(df.select(*key_list, n.alias("n")), key_list)
        return df

    group = [*key_list, "score"]
    summed = lf.map_batches(check, schema=out_schema).group_by(group).agg(
        pl.col("positives", "negatives", *rows).sum()).sort(group, nulls_last=True)
    return FairScores(summed, key_list, schema["score"], made_elsewhere=True)
