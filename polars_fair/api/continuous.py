"""Continuous outcomes: the moment-table object and its ways in.

:func:`moments` counts rows of any engine (Polars, Spark, DuckDB) into a moment table, by one
group-by (:mod:`polars_fair.counting.moments`); :func:`from_moments` accepts one made anywhere
(a warehouse, partitions merged elsewhere). Both return :class:`FairMoments`, whose
:meth:`~FairMoments.continuous_report` is the one declaration of the continuous report that
``df.fair``, ``lf.fair`` and the command line reach.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow, compose
from polars_fair.analyses.continuous import SmdSd, continuous_report_from_moments
from polars_fair.api.external import _check_levels, _key_list, _lazy, _require
from polars_fair.api.objects import counts
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import (
    FLOAT_DIGITS,
    By,
    IntoExpr,
    NullGroups,
    decimal_digits,
    name_of,
    parse_by,
    refuse_membership,
    wide_decimal,
)
from polars_fair.counting.boundary import checked as boundary_checked
from polars_fair.counting.boundary import missing_keys_as_null
from polars_fair.counting.moment_merge import LOW
from polars_fair.counting.moments import (
    MOMENT_ARGS_DOC,
    MOMENT_COLUMNS,
    RESIDUAL_COLUMNS,
    merge_moments,
    moment_schema,
    moment_table,
)

__all__ = ["FairMoments", "from_moments", "moments", "MOMENT_ARGS_DOC", "MOMENT_ERRORS_DOC",
           "refuse_sets", "sets_advice"]

#: The input errors of building a moment table from rows (numpydoc Raises entries).
MOMENT_ERRORS_DOC = """ColumnNotFoundError
    A named column is missing (the message lists the columns that exist). Raised at once.
InvalidScoreError
    A non-numeric ``y_pred`` or ``y_true`` (at once); NaN or infinite values (at collect).
NullValuesError
    Null values in ``y_pred`` or ``y_true`` (at collect).
InvalidWeightError, EmptyFrameError, NullGroupError, TooManyLevelsError
    Bad weights, no rows, null groups with ``null_groups="raise"``, an attribute with too many
    levels (at collect)."""

_EXAMPLE = """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b"],
...                    "rate": [1.0, 2.0, 3.0, 2.0, 3.0, 4.0]})"""


class FairMoments:
    """A moment table and the continuous analyses on it.

    Made by :func:`moments` (rows, any engine), ``lf.fair.moments`` or :func:`from_moments`.

    Parameters
    ----------
    table : pl.LazyFrame
        The moment table (:func:`polars_fair.counting.moments.moment_schema`).
    keys : list of str
        Its key columns.

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> df = pl.DataFrame({"g": ["a", "b"], "rate": [1.0, 2.0]})
    >>> polars_fair.moments(df, "g", y_pred="rate").keys
    ['g']
    """

    def __init__(self, table: pl.LazyFrame, keys: list[str]) -> None:
        self._table = table
        self.keys = keys

    @property
    def frame(self) -> pl.LazyFrame:
        """The moment table (:func:`polars_fair.counting.moments.moment_schema`)."""
        return self._table

    def _rollup(self, by: By = None) -> FairMoments:
        """The moment table merged to the keys ``by`` (Chan et al.'s formula).

        ``by`` defaults to every key; ``[]`` merges every group into one row. A name that is
        not a key raises ``ColumnNotFoundError``.

        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "b"], "rate": [1.0, 3.0]})
        >>> polars_fair.moments(df, "g", y_pred="rate")._rollup([]).frame.collect().rows()
        [(2, 2.0, 0.0, 2.0)]
        """
        if by is None:
            return self
        names = parse_by(by).names
        for k in names:
            if k not in self.keys:
                raise E.ColumnNotFoundError(E.missing_column(k, "by", self.keys))
        return FairMoments(merge_moments(self._table, names), names)

    def continuous_report(self, by: By = None, *, reference: Any = DEFAULTS.reference,
                          min_support: float = DEFAULTS.min_support,
                          level: float = DEFAULTS.level,
                          smd_sd: SmdSd = "pooled", combinations: None = None) -> pl.LazyFrame:
        """The continuous report (composed below from its analysis' docstring)."""
        refuse_sets("continuous_report", combinations, self.keys if by is None else by)
        m = self._rollup(by)
        return continuous_report_from_moments(m.frame, m.keys, reference=reference,
                                              min_support=min_support, level=level,
                                              smd_sd=smd_sd)

    continuous_report.__doc__ = compose(
        continuous_report_from_moments.__doc__ or "", drop=("moments", "keys"),
        before="""by : str or list of str, optional
    Merge the table to these keys first (default: every key).""", after=E.ONE_SET_DOC,
        example=_EXAMPLE + """
>>> m = polars_fair.moments(df, "g", y_pred="rate")
>>> m.continuous_report(reference="a", min_support=1).collect()["smd"].to_list()
[0.0, 1.0]""", returns="pl.LazyFrame")


def refuse_sets(function: str, combinations: Any, by: Any = None) -> None:
    """Refuse ``combinations=`` where one attribute set is reported per call.

    The advice names the call's own attributes (``by``): one call per attribute set.

    Parameters
    ----------
    function : str
        The function's name, for the message.
    combinations : Any
        The argument; ``None`` passes.
    by : str, expression or list of them, optional
        The call's attributes, named in the advice (up to two).

    Raises
    ------
    InvalidArgumentError
        ``combinations`` given.

    Examples
    --------
    >>> refuse_sets("continuous_report", None) is None
    True
    >>> try:
    ...     refuse_sets("continuous_report", "all", ["region", "age_band"])
    ... except E.InvalidArgumentError as err:
    ...     print(str(err).split("; ")[1])
    call it once per attribute set, for example by='region', then by='age_band'
    """
    if combinations is not None:
        raise E.InvalidArgumentError(E.ONE_SET_ONLY.format(
            function=function, value=combinations, advice=sets_advice(by)))


def sets_advice(by: Any) -> str:
    """The advice of :data:`~polars_fair.errors.ONE_SET_ONLY`, in the call's attribute names.

    Parameters
    ----------
    by : str, expression, list of them, or None
        The call's attributes (names of expressions are their output names).

    Returns
    -------
    str

    Examples
    --------
    >>> sets_advice("g"), sets_advice(None)
    ("call it once per attribute set, for example by='g'", 'call it once per attribute set')
    """
    items = [] if by is None else [by] if isinstance(by, (str, pl.Expr)) else list(by)
    try:
        names = [name_of(x) for x in items if isinstance(x, (str, pl.Expr))]
    except E.InvalidArgumentError:
        names = []
    advice = "call it once per attribute set"
    if len(names) == 1:
        return f"{advice}, for example by={names[0]!r}"
    if names:
        return f"{advice}, for example by={names[0]!r}, then by={names[1]!r}"
    return advice


@borrow(counts, params=("frame", "by"))
def moments(frame: Any, by: By = None, *, y_pred: IntoExpr | None = None,
            y_true: IntoExpr | None = None, sample_weight: IntoExpr | None = None,
            null_groups: NullGroups = "keep", membership: None = None) -> FairMoments:
    """Count the rows of a Polars, Spark or DuckDB frame into a moment table, in one scan.

    Per group: ``n``, the mean and the centred sum of squares of ``y_pred`` (and of the
    residual with ``y_true``), each from the engine's numerically stable aggregate, never from
    ``Σx² − (Σx)²/n`` (:mod:`polars_fair.counting.moments`). Expressions mean what they mean
    in ``lf.with_columns``; Spark takes ``Column`` objects, DuckDB column names.

    Returns
    -------
    FairMoments
        ``.frame`` is the lazy moment table; ``.continuous_report()`` the analysis.

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError
        A missing column, no ``y_pred``, a reserved key name; ``membership=`` (the moment
        table counts each row in one group).
    InvalidScoreError
        A non-numeric ``y_pred``/``y_true`` (at once); NaN or infinite values (at collect).
    NullValuesError, InvalidWeightError, EmptyFrameError, NullGroupError
        At collect time: null values, bad weights, no rows, null groups with "raise".

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "rate": [1.0, 3.0, 2.0]})
    >>> polars_fair.moments(df, "g", y_pred="rate").frame.collect().rows()
    [('a', 2, 2.0, 0.0, 2.0), ('b', 1, 2.0, 0.0, 0.0)]
    """
    refuse_membership({"membership": membership}, "moments", "moment table")
    table, keys, _ = moment_table(frame, by, y_pred=y_pred, y_true=y_true,
                                  sample_weight=sample_weight, null_groups=null_groups)
    return FairMoments(table, keys)


moments.__doc__ = compose(moments.__doc__ or "",  # declared once
                          after=MOMENT_ARGS_DOC + "\n" + E.MEMBERSHIP_REFUSED_DOC)


def _check_moments(df: pl.DataFrame, size: str, columns: Sequence[str]) -> pl.DataFrame:
    for c in columns:
        v = pl.col(c)
        nonneg = c in ("n", "weight_sum") or c.startswith("m2_") or c == "sum_abs_residual"
        checks = [("null", v.is_null() & (pl.col(size) > 0) if c.startswith("mean_")
                   else v.is_null())]
        if df.schema[c].is_float():
            checks.append(("NaN or infinite", v.is_nan() | v.is_infinite()))
        if nonneg:
            checks.append(("negative", v < 0))
        if c == "n" and df.schema[c].is_float():  # a row count, as in from_class_counts
            checks.append(("non-integer", v != v.floor()))
        if c == LOW:  # the part of the mean below mean_pred's last digit
            checks.append(("too large (beyond one unit in the last place of mean_pred)",
                           v.abs() > pl.col("mean_pred").abs() * 2.0**-52))
        for problem, cond in checks:
            bad = df.filter(cond)[c]
            if bad.len():
                raise E.InvalidArgumentError(E.BAD_MOMENTS.format(
                    column=c, count=bad.len(), problem=problem,
                    values=E.show_values(bad.head(3).to_list())))
    _check_sizes(df, size, columns)
    if "sum_abs_residual" in columns:
        _check_residuals(df, size)
    return df


def _check_sizes(df: pl.DataFrame, size: str, columns: Sequence[str]) -> None:
    """Refuse moments that no zero or one rows can have.

    No rows (``n = 0``): every sum (``weight_sum``, ``m2_*``, ``sum_abs_residual``) is 0 and
    every mean null or 0. One row (``n = 1``): every centred sum of squares is 0, within
    ``1e-9·W·mean²`` (a weighted mean ``w·x / w`` may differ from ``x`` in the last place).
    """
    n = pl.col("n")
    w = pl.col(size).cast(pl.Float64)
    for c in columns:
        v = pl.col(c)
        if c.startswith("mean_"):
            rules = [("n = 0 (no rows) needs a null or zero mean", (n == 0) & (v != 0))]
        elif c.startswith("m2_"):
            spread = v.abs() > _MOMENT_TOLERANCE * w * pl.col(f"mean_{c[3:]}") ** 2
            rules = [("n = 0 (no rows) needs 0", (n == 0) & (v != 0)),
                     ("n = 1 (one value) has no spread, so M2 = 0", (n == 1) & spread)]
        elif c in ("weight_sum", "sum_abs_residual"):
            rules = [("n = 0 (no rows) needs 0", (n == 0) & (v != 0))]
        else:
            continue
        for rule, cond in rules:
            bad = df.filter(cond.fill_null(False))[c]
            if bad.len():
                raise E.InvalidArgumentError(E.IMPOSSIBLE_MOMENT_SIZE.format(
                    column=c, count=bad.len(), rule=rule,
                    values=E.show_values(bad.head(3).to_list())))


#: The relative tolerance of the residual-moment inequalities (rounding in the sums).
_MOMENT_TOLERANCE = 1e-9


def _check_residuals(df: pl.DataFrame, size: str) -> None:
    """Refuse residual moments that no values can have: |mean| <= mae <= rmse per row."""
    w = pl.col(size).cast(pl.Float64)
    mae = pl.col("sum_abs_residual") / w
    rmse = ((pl.col("m2_residual") / w) + pl.col("mean_residual") ** 2).sqrt()
    slack = 1 + _MOMENT_TOLERANCE
    rules = [("mae >= |mean_residual|", pl.col("mean_residual").abs() > mae * slack + 1e-300),
             ("rmse >= mae", mae > rmse * slack + 1e-300)]
    rows = df.filter(w > 0).with_columns(mae.alias("__pf_mae"), rmse.alias("__pf_rmse"))
    for rule, cond in rules:
        bad = rows.filter(cond)
        if bad.height:
            r = bad.row(0, named=True)
            example = (f"mean_residual={r['mean_residual']!r}, mae={r['__pf_mae']!r}, "
                       f"rmse={r['__pf_rmse']!r}")
            raise E.InvalidArgumentError(E.IMPOSSIBLE_MOMENTS.format(
                count=bad.height, rule=rule, example=example))


def _decimals_as_floats(lf: pl.LazyFrame, schema: pl.Schema,
                        columns: Sequence[str]) -> tuple[pl.LazyFrame, pl.Schema]:
    """Decimal moment columns read as Float64 (the rule of Decimal outcomes in the rows).

    A Decimal wider than 15 digits is checked at collect time: values of more than
    :data:`~polars_fair.core.spec.FLOAT_DIGITS` significant digits, which a float cannot
    hold, are refused (``InvalidArgumentError``, ``CONTINUOUS_DECIMAL_DIGITS``).
    """
    dec = [c for c in columns if isinstance(schema[c], pl.Decimal)]
    if not dec:
        return lf, schema
    wide = [c for c in dec if wide_decimal(schema[c])]

    def check(df: pl.DataFrame) -> pl.DataFrame:
        for c in wide:
            count = df.select((decimal_digits(pl.col(c)) > FLOAT_DIGITS).sum()).item()
            if count:
                raise E.InvalidArgumentError(E.CONTINUOUS_DECIMAL_DIGITS.format(
                    column=c, role="moment table", count=count, dtype=schema[c]))
        return df

    if wide:
        lf = lf.map_batches(check, schema=schema)
    lf = lf.with_columns(pl.col(dec).cast(pl.Float64))
    return lf, lf.collect_schema()


def from_moments(table: pl.DataFrame | pl.LazyFrame,
                 keys: str | Sequence[str] | None = None) -> FairMoments:
    """Audit a moment table made anywhere: ``from_moments(table).continuous_report()``.

    The table has the schema of :func:`moments` (:mod:`polars_fair.counting.moments`): the
    keys, ``n``, optionally ``weight_sum``, ``mean_pred``, optionally ``mean_pred_low``,
    ``m2_pred`` (the centred sum of squares, ``(n - 1)·std²``), and optionally all of
    ``mean_true``, ``mean_residual``, ``m2_residual``, ``sum_abs_residual``. Rows with equal
    keys (partial tables of the same group) are merged with Chan et al.'s formula.

    ``mean_pred_low`` is the part of the mean that ``mean_pred`` (a double) cannot hold: the
    mean is ``mean_pred + mean_pred_low``, and differences between groups keep their digits
    when the means are close at a large offset (values near 10⁹ whose means differ by 0.04).
    Without it the mean is ``mean_pred`` (the column is added as 0). To make it elsewhere,
    average about a shift ``s`` near each group's values (its minimum, say): with ``d`` the
    mean of ``y_pred - s``, ``mean_pred = s + d`` and ``mean_pred_low = d - (mean_pred - s)``
    (exact when ``|s| >= |d|``; :mod:`polars_fair.counting.moment_merge`).

    Parameters
    ----------
    table : pl.DataFrame or pl.LazyFrame
        The moment table.
    keys : str or sequence of str, optional
        Default: every column that is not a moment column.

    Returns
    -------
    FairMoments

    Raises
    ------
    ColumnNotFoundError
        A required column is missing.
    InvalidArgumentError
        A non-numeric moment column, residual columns given in part (at once); null, NaN,
        infinite or negative counts, sums of squares or weights, a non-integer ``n``, a null
        mean of a non-empty group, a ``mean_pred_low`` beyond one unit in the last place of
        ``mean_pred``, moments no zero or one rows can have (with ``n = 0`` a
        non-zero mean, ``weight_sum``, ``m2_*`` or ``sum_abs_residual``; with ``n = 1`` a
        non-zero ``m2_*``), residual moments no values can have (``mae`` below
        ``|mean_residual|`` or above ``rmse``, within 1e-9 relative), Decimal moments of
        more than 15 significant digits (at collect time; narrower Decimal moment columns are
        read as Float64).
    TooManyLevelsError
        At collect time: a float key with more than 50 values, or a key (or their
        intersection) too fine to form groups, refused as on the rows
        (:func:`polars_fair.from_counts`).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_moments
    >>> t = pl.DataFrame({"g": ["a", "b"], "n": [3, 3], "mean_pred": [2.0, 3.0],
    ...                   "m2_pred": [2.0, 2.0]})
    >>> from_moments(t).continuous_report(min_support=1).collect()["mean_difference"].to_list()
    [0.0, 1.0]
    """
    lf = _lazy(table)
    schema = lf.collect_schema()
    _require(schema, ("n", "mean_pred", "m2_pred"), "moment table")
    present = [c for c in RESIDUAL_COLUMNS if c in schema]
    if present and len(present) < len(RESIDUAL_COLUMNS):
        raise E.InvalidArgumentError(E.MOMENTS_RESIDUALS_PARTIAL.format(
            columns=list(RESIDUAL_COLUMNS),
            missing=[c for c in RESIDUAL_COLUMNS if c not in schema]))
    weighted = "weight_sum" in schema
    moment_cols = [c for c in (*MOMENT_COLUMNS, *RESIDUAL_COLUMNS) if c in schema]
    _require(schema, moment_cols, "moment table")
    key_list = _key_list(keys, schema, moment_cols)
    lf, schema = _decimals_as_floats(lf, schema, moment_cols)
    out = moment_schema([(k, schema[k]) for k in key_list], weighted=weighted,
                        residuals=bool(present))
    size = "weight_sum" if weighted else "n"
    checked = lf.select(*key_list, *moment_cols).map_batches(
        lambda df: _check_moments(df, size, moment_cols),
        schema=pl.Schema([(c, schema[c]) for c in (*key_list, *moment_cols)]))
    if LOW not in schema:  # a table made without the low part: the mean is mean_pred
        checked = checked.with_columns(pl.lit(0.0).alias(LOW))
    cast = [pl.col(c).cast(d) for c, d in out.items()]
    merged = merge_moments(checked.select(cast), key_list).select(cast)

    def levels(df: pl.DataFrame) -> pl.DataFrame:  # the rows' guards, as from_counts
        _check_levels(missing_keys_as_null(df.select(*key_list, "n"), key_list), key_list)
        return df

    return FairMoments(boundary_checked(merged, levels), key_list)
