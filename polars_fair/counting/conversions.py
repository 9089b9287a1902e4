"""Conversion failures of expression arguments: named by argument, counted on every row, no value.

An expression argument (``y_pred=pl.col("s").str.to_integer()``, ``by=pl.col("e").cast(
pl.Enum([...]))``, ``sample_weight=pl.col("w").cast(pl.Decimal(5, 2))``) is evaluated on the
rows when a plan is collected, and a value it cannot convert makes Polars raise its own error,
which quotes the values (they may be names or dates of birth) and counts them in one chunk of
the column only (``"6 of 6"`` for a 12-row frame of two chunks), or not at all
(``replace_strict``, ``str.json_decode``). Here such a failure becomes the library's typed
:class:`polars_fair.errors.InvalidInputError`
(:func:`polars_fair.errors.conversion_failure`) that names the argument and counts the failing
rows over the whole frame:

1. the failing part of the argument is found by evaluating it on the rows, then each of its
   inputs, down to the deepest part that fails while its own inputs do not
   (:func:`failing_part`); Polars' printed expression is not used, since its optimiser
   rewrites it (``col("y").cast(Int64) * 1000`` prints as ``col("y") * 1000``);
2. its failing rows are counted in one pass over the rows where the conversion has a
   non-strict form: a cast (``strict=False``, text to a date parsed as ``str.strptime``),
   ``str.to_integer`` (``strict=False``), ``replace_strict`` (a value outside the mapping), a
   cast Polars never makes (every value that is not null);
3. otherwise (``str.json_decode``, ``str.to_date`` with a format, any other conversion) the
   part is evaluated again on the distinct values of the columns it reads, halving the failing
   sets down to the values that fail alone (:func:`failing_values`), at most
   :data:`MAX_EVALUATIONS` evaluations; beyond it, Polars' own count is kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, cast

import polars as pl

from polars_fair import errors as E

__all__ = ["MAX_EVALUATIONS", "conversion_error", "failed_rows", "failed_values", "failing_part",
           "failing_values", "values_hidden"]

#: The most evaluations of a failing part on subsets of its distinct values
#: (:func:`failing_values`).
MAX_EVALUATIONS = 2_000

#: The argument expressions of a plan: (the expression, the argument that gave it).
Bound = Sequence[tuple[pl.Expr, str]]

_UNSUPPORTED = re.compile(r"casting from \w+ to \w+ (?:is )?not supported")


def _fails(rows: pl.LazyFrame, expr: pl.Expr) -> bool:
    try:
        rows.select(expr.alias("__pf_part")).collect(engine="in-memory")
    except pl.exceptions.PolarsError:
        return True
    return False


def failing_part(rows: pl.LazyFrame, expr: pl.Expr) -> pl.Expr | None:
    """The deepest part of ``expr`` that fails on ``rows`` while its own inputs do not.

    Parameters
    ----------
    rows : pl.LazyFrame
        The rows the expression reads.
    expr : pl.Expr
        An argument's expression.

    Returns
    -------
    pl.Expr or None
        The failing part (``expr`` itself when no input fails), or ``None`` when ``expr``
        evaluates.

    Examples
    --------
    >>> rows = pl.LazyFrame({"s": ["1", "x"]})
    >>> print(failing_part(rows, pl.col("s").cast(pl.Int64) * 2 + 1))
    col("s").strict_cast(Int64)
    >>> failing_part(rows, pl.col("s").str.len_chars()) is None
    True
    """
    if not _fails(rows, expr):
        return None
    for part in expr.meta.pop():
        found = failing_part(rows, part)
        if found is not None:
            return found
    return expr


def _strict_form(part: pl.Expr) -> tuple[str, list[pl.Expr]]:
    """The conversion ``part`` applies to its data input (its last input), and its inputs."""
    inputs = part.meta.pop()
    if not inputs:
        return "", inputs
    text, data = str(part), str(inputs[-1])
    at = text.rfind(data)
    tail = text[at + len(data):] if at >= 0 else ""
    for kind in (".strict_cast(", ".str.to_integer(", ".replace_strict("):
        if tail.startswith(kind):
            return kind, inputs
    return "", inputs


def _non_strict_failures(rows: pl.LazyFrame, part: pl.Expr, message: str) -> pl.Expr | None:
    """A Boolean expression true on each row where ``part``'s conversion fails, if it has one."""
    kind, inputs = _strict_form(part)
    if not kind:
        return None
    data = inputs[-1]
    present = data.is_not_null()
    if kind == ".str.to_integer(":
        base = inputs[0] if len(inputs) == 2 else pl.lit(10)
        return present & data.str.to_integer(base=base, strict=False).is_null()
    if kind == ".replace_strict(":
        old = inputs[1] if len(inputs) == 3 else None
        return None if old is None or not old.meta.is_literal() else present & ~data.is_in(old)
    if _UNSUPPORTED.search(message):  # a cast Polars never makes: every value fails
        return present
    schema = rows.select(data.alias("i"), part.alias("o")).collect_schema()
    source, target = schema["i"], schema["o"]
    if source == pl.String and target.base_type() in (pl.Date, pl.Datetime, pl.Time):
        return present & data.str.strptime(cast(Any, target), strict=False).is_null()
    return present & data.cast(target, strict=False).is_null()


def failing_values(frame: pl.DataFrame, part: pl.Expr,
                   budget: int = MAX_EVALUATIONS) -> pl.DataFrame | None:
    """The rows of ``frame`` on which ``part`` fails alone, found by halving.

    Parameters
    ----------
    frame : pl.DataFrame
        Distinct values of the columns ``part`` reads.
    part : pl.Expr
        A conversion that raises on some of them.
    budget : int, default :data:`MAX_EVALUATIONS`
        The most evaluations of ``part``.

    Returns
    -------
    pl.DataFrame or None
        The failing rows of ``frame``, or ``None`` when the budget ran out.

    Examples
    --------
    >>> frame = pl.DataFrame({"j": ["1", "{", "2", "[x"]})
    >>> failing_values(frame, pl.col("j").str.json_decode(pl.Int64))["j"].to_list()
    ['{', '[x']
    """
    found: list[pl.DataFrame] = []
    pending, used = [frame], 0
    while pending:
        piece = pending.pop()
        used += 1
        if used > budget:
            return None
        try:
            piece.select(part)
            continue
        except pl.exceptions.PolarsError:
            pass
        if piece.height == 1:
            found.append(piece)
        else:
            half = piece.height // 2
            pending += [piece.slice(half), piece.slice(0, half)]
    return pl.concat(found) if found else frame.clear()


def failed_rows(rows: pl.LazyFrame, part: pl.Expr, message: str) -> tuple[int, int] | None:
    """The rows of ``rows`` on which the failing conversion ``part`` fails, and all rows.

    Parameters
    ----------
    rows : pl.LazyFrame
        The rows.
    part : pl.Expr
        The failing part of an argument (:func:`failing_part`).
    message : str
        Polars' error (a cast it never makes fails on every value).

    Returns
    -------
    (int, int) or None
        (failing rows, rows), or ``None`` when they cannot be counted.

    Examples
    --------
    >>> half = pl.DataFrame({"s": ["1", "x", None]})
    >>> rows = pl.concat([half, half], rechunk=False).lazy()
    >>> failed_rows(rows, pl.col("s").str.to_integer(), "strict integer parsing failed")
    (2, 6)
    >>> failed_rows(rows, pl.col("s").str.json_decode(pl.Int64), "error deserializing JSON")
    (2, 6)
    """
    try:
        bad = _non_strict_failures(rows, part, message)
        if bad is None:
            names = part.meta.root_names()
            if not names:
                return None
            distinct = rows.select(names).unique().collect(engine="in-memory")
            failing = failing_values(distinct, part)
            if failing is None:
                return None
            bad = pl.struct(names).is_in(failing.select(pl.struct(names)).to_series().implode())
        counted = rows.select(bad.sum().alias("f"), pl.len().alias("n")).collect(
            engine="in-memory")
    except Exception:  # noqa: BLE001 - a count that cannot be made keeps Polars' own
        return None
    failed, total = int(counted["f"][0]), int(counted["n"][0])
    return (failed, total) if failed else None


def conversion_error(message: str, bound: Bound, rows: pl.LazyFrame | None,
                     role: str | None = None, *, sql: bool = False
                     ) -> E.InvalidInputError | None:
    """The typed error of a conversion failure of an argument's expression, or ``None``.

    Parameters
    ----------
    message : str
        Polars' error.
    bound : sequence of (pl.Expr, str)
        The arguments' expressions evaluated on the rows, with the argument of each.
    rows : pl.LazyFrame or None
        The rows (``None``: Polars' message alone is read).
    role : str, optional
        The argument named when the failing one cannot be told (default: the only argument
        of ``bound``, else "an argument's expression").
    sql : bool, default False
        The expressions came from SQL options of the command line: advice in SQL
        (:func:`polars_fair.errors.conversion_failure`).

    Returns
    -------
    InvalidInputError or None
        :data:`polars_fair.errors.CONVERSION_FAILED` (or the message of a cast Polars never
        makes, or of a value missing from a ``replace_strict`` mapping): the argument, the
        column, the failing rows over the whole frame; ``None`` for another error.

    Examples
    --------
    >>> half = pl.DataFrame({"g": ["a", "b", "c"]})
    >>> rows = pl.concat([half, half], rechunk=False).lazy()
    >>> e = pl.col("g").cast(pl.Enum(["a", "b"]))
    >>> try:
    ...     rows.select(e).collect()
    ... except pl.exceptions.PolarsError as exc:
    ...     print(conversion_error(str(exc), [(e, "by")], rows))
    by: 2 of 6 values of column 'g' could not be converted from str to enum (the values are \
not shown: they may identify people)
    """
    roles = {r for _, r in bound}
    named = role or (next(iter(roles)) if len(roles) == 1 else "an argument's expression")
    counted, column = None, None
    if rows is not None:
        for expr, argument in bound:
            part = failing_part(rows, expr)
            if part is not None:
                named, column = argument, _input_name(part)
                counted = failed_rows(rows, part, message)
                break
    if counted is None:
        counted = failed_values(rows, message)
    hidden = E.conversion_failure(message, named, counted, sql=sql, column=column)
    return None if hidden is None else E.InvalidInputError(hidden)


def _input_name(part: pl.Expr) -> str | None:
    inputs = part.meta.pop()
    try:
        return inputs[-1].meta.output_name() if inputs else None
    except pl.exceptions.PolarsError:  # no one name (a literal)
        return None
def values_hidden(plan: pl.LazyFrame, bound: Bound,
                  rows: pl.LazyFrame | None = None) -> pl.LazyFrame:
    """``plan``, whose conversion failures on the rows name the argument and no value.

    An expression argument bound by :func:`polars_fair.counting.boundary.bind_frame`
    (``y_pred=pl.col("name").cast(pl.Int32)``) can fail on the rows when the plan is
    collected, and Polars' error quotes the values it
    could not convert, which may be names or dates of birth. The small table ``plan`` (a count,
    score, class or moment table) is read through a Python source that collects it (the
    engine is Polars' default, the streaming one unless configured otherwise) and turns such
    a failure into :data:`polars_fair.errors.CONVERSION_FAILED`, as the eager methods and the
    command line do (:func:`polars_fair.errors.conversion_failure`). Without a bound
    expression (column names only) ``plan`` is returned as it is.

    Parameters
    ----------
    plan : pl.LazyFrame
        The small table built over the bound rows.
    bound : sequence of (pl.Expr, str)
        The expression arguments evaluated on the rows: (the expression, its argument), as
        :func:`polars_fair.counting.boundary.bind_frame` records them in ``Audit.bound``. The
        argument named is the one whose expression fails (:func:`conversion_error`).
    rows : pl.LazyFrame, optional
        The rows the expressions read. Polars counts a failed cast in one chunk of a column
        (``"6 of 6"`` for a 12-row frame of two chunks); with ``rows`` the failing rows are
        counted over the whole frame (:func:`failed_rows`).

    Returns
    -------
    pl.LazyFrame
        The same rows, columns and dtypes as ``plan``.

    Raises
    ------
    InvalidInputError
        At collect time: a bound expression's conversion failed (the argument, the column, the
        count and the dtypes).

    Examples
    --------
    >>> from polars_fair.core.spec import resolve
    >>> from polars_fair.counting.boundary import bind_frame
    >>> lf = pl.LazyFrame({"g": ["a", "b"], "who": ["Ann Madeup", "Bo Fake"]})
    >>> bound, a = bind_frame(lf, resolve(lf.collect_schema(), "g",
    ...                                   y_pred=pl.col("who").cast(pl.Int8), y_true=None))
    >>> values_hidden(bound.group_by("g").agg(pl.col("__pf_b0").sum()), a.bound).collect()
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidInputError: y_pred: 1 of 1 values of column 'who' could not be \
converted from str to i8 (the values are not shown: they may identify people)
    """
    if not bound:
        return plan
    from polars.io.plugins import register_io_source

    def source(with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None,
               batch_size: int | None) -> Any:
        try:
            df = plan.collect()
        except pl.exceptions.PolarsError as exc:  # a failed cast: no value (names, births)
            hidden = conversion_error(str(exc), bound, rows)
            if hidden is None:
                raise
            raise hidden from None
        if with_columns is not None:
            df = df.select(with_columns)
        if predicate is not None:
            df = df.filter(predicate)
        yield df if n_rows is None else df.head(n_rows)

    return register_io_source(source, schema=plan.collect_schema())


def failed_values(rows: pl.LazyFrame | None, message: str) -> tuple[int, int] | None:
    """The values of a column a failed cast could not convert, counted over every chunk.

    Polars' message (``conversion from `str` to `i64` failed in column 'y' for 6 out of 6
    values``) counts the chunk it failed in; this counts the column of ``rows`` it names: the
    values that are not null and that the same conversion, non-strict, makes null (text to a
    date, a datetime or a time is parsed as ``str.strptime`` does without a format).

    Parameters
    ----------
    rows : pl.LazyFrame or None
        The rows (``None``: nothing to count).
    message : str
        Polars' error.

    Returns
    -------
    (int, int) or None
        (failing values, rows), or ``None`` when the message names no conversion of a column
        of ``rows``, or the count itself fails.

    Examples
    --------
    >>> half = pl.DataFrame({"y": ["1", "x", "2"]})
    >>> rows = pl.concat([half, half], rechunk=False).lazy()
    >>> failed_values(rows, "conversion from `str` to `i64` failed in column 'y' for 1 out "
    ...               "of 3 values")
    (2, 6)
    """
    found = E.conversion_parts(message)
    if rows is None or found is None:
        return None
    column, source, target = found
    try:
        from polars.datatypes.convert import dtype_short_repr_to_dtype

        dtype = dtype_short_repr_to_dtype(target)
        if column not in rows.collect_schema().names() or dtype is None:
            return None
        col = pl.col(column)
        temporal = dtype.base_type() in (pl.Date, pl.Datetime, pl.Time)
        converted = (col.str.strptime(cast(Any, dtype), strict=False)
                     if source == "str" and temporal
                     else col.cast(dtype, strict=False))
        counted = rows.select((col.is_not_null() & converted.is_null()).sum().alias("f"),
                              pl.len().alias("n")).collect(engine="in-memory")
    except Exception:  # noqa: BLE001 - a count that cannot be made keeps Polars' own
        return None
    failed, total = int(counted["f"][0]), int(counted["n"][0])
    return (failed, total) if failed else None


