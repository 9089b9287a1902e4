"""The class-count object: a multiclass audit's table and every analysis on it.

:class:`FairClassCounts` holds a class table (:mod:`polars_fair.counting.classes`: one row per
group, true class and predicted class) and has the multiclass analyses, each delegating to one
function of :mod:`polars_fair.analyses.multiclass`. The ways in: rows of any engine
(:func:`class_counts`, ``lf.fair.class_counts``) or a table made anywhere
(:func:`from_class_counts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack, cast

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.analyses.bias_audit import bias_audit_from_classes
from polars_fair.analyses.multiclass import (
    N_DRAWS,
    multiclass_report_from_classes,
    multiclass_test_from_classes,
)
from polars_fair.analyses.runner import analyse, check_clash, on_small_table
from polars_fair.api.external import (
    _check_levels,
    _check_positive_rows,
    _key_list,
    _lazy,
    _widen,
)
from polars_fair.api.objects import FairCounts, counts
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import DEFAULT_MAX_GROUPS, POSITIVE_WEIGHT_ROWS, check_int, parse_by
from polars_fair.counting import classes as C
from polars_fair.counting.boundary import identifying, missing_keys_as_null
from polars_fair.counting.tables import Counted

__all__ = ["FairClassCounts", "class_counts", "class_sets", "from_class_counts"]

By = str | Sequence[str] | None


class FairClassCounts:
    """A class table and every multiclass analysis on it.

    Made by :func:`class_counts` (rows, any engine), ``lf.fair.class_counts`` or
    :func:`from_class_counts` (a table made anywhere). Every method returns a LazyFrame.

    Parameters
    ----------
    table : polars_fair.counting.classes.ClassTable
        The lazy class table, its keys and declared classes.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_class_counts
    >>> t = pl.DataFrame({"g": ["a", "b"], "y_pred": ["x", "y"], "n": [4, 4]})
    >>> from_class_counts(t).keys
    ['g']
    """

    def __init__(self, table: C.ClassTable) -> None:
        self._table = table
        self.keys = table.keys
        self.classes = table.classes

    @property
    def frame(self) -> pl.LazyFrame:
        """The class table: keys, [``y_true``,] ``y_pred``, ``n`` [, ``weight_sum``]."""
        return self._table.frame

    def _rolled(self, by: By) -> tuple[pl.LazyFrame, list[str]]:
        if by is None:
            return self.frame, list(self.keys)
        names = list(dict.fromkeys(parse_by(by).names))
        return rollup_classes(self.frame, self.keys, names), names

    def multiclass_report(self, by: By | Sequence[Sequence[str]] = None, *,
                          classes: Sequence[Any] | None = None,
                          ordered: bool = False, reference: Any = DEFAULTS.reference,
                          min_support: float = DEFAULTS.min_support,
                          four_fifths: float = DEFAULTS.four_fifths,
                          combinations: Any = None,
                          max_order: int | None = None) -> pl.LazyFrame:
        """One row per (group, class): share in the class, impact ratio, verdicts.

        With several attribute sets (``combinations="all"``, or ``by`` a list of lists) each
        set is a roll-up of the same class table (summed cells, no second scan) and is
        reported on its own (its own reference, highest rates and verdicts), the sets stacked
        as ``report`` stacks them.

        Parameters
        ----------
        by : str, list of str or list of lists of str, optional
            Roll the table up to these attributes (default: every key); a list of lists names
            several attribute sets.
        classes : sequence, optional
            The classes in order (default: the table's declared classes, else those found).
        ordered : bool, default False
            ``selection_rate`` is the share at or above each class (lowest class first).
        reference : "largest", "max_selection_rate", "overall", scalar or mapping
            The reference group of ``disparate_impact``.
        min_support : float, default 30
            Groups with fewer rows are flagged ``low_support``.
        four_fifths : float, default 0.8
            The impact-ratio threshold.
        combinations : "all", optional
            Every non-empty subset of ``by`` (intersections and single attributes), one
            report each.
        max_order : int, optional
            The largest subset with ``combinations="all"``.

        Returns
        -------
        pl.LazyFrame
            See :func:`polars_fair.analyses.multiclass.multiclass_report_from_classes`. With
            several attribute sets: ``attributes`` (List(String), the set of each row) first,
            every key (null outside its row's set), then the same columns; the sets in order.

        Raises
        ------
        ColumnNotFoundError
            ``by`` names a column that is not a key.
        InvalidArgumentError, InvalidLabelError, UnknownGroupError
            See :func:`polars_fair.analyses.multiclass.multiclass_report_from_classes`; bad
            ``combinations`` or ``max_order`` (:func:`polars_fair.core.spec.parse_by`); a key
            named ``attributes`` with several sets.
        SizeLimitError
            The sets hold more than ``max_groups`` groups in all (at collect time).

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_class_counts
        >>> t = pl.DataFrame({"g": ["a", "a", "b"], "y_pred": ["x", "y", "x"], "n": [1, 1, 2]})
        >>> out = from_class_counts(t).multiclass_report(min_support=1).collect()
        >>> out["impact_ratio"].to_list()  # class y: a 1/2 (the highest), b 0/2
        [0.5, 1.0, 1.0, 0.0]
        >>> t2 = t.with_columns(s=pl.Series(["m", "f", "f"]))
        >>> sets = from_class_counts(t2).multiclass_report(["g", "s"], combinations="all",
        ...                                               max_order=1, min_support=1)
        >>> sets.collect().select("attributes", "g", "s", "class", "n").rows()[:3]
        [(['g'], 'a', None, 'x', 2), (['g'], 'a', None, 'y', 2), (['g'], 'b', None, 'x', 2)]
        """
        declared = self.classes if classes is None else classes

        def report(frame: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
            return multiclass_report_from_classes(
                frame, keys, classes=declared, ordered=ordered, reference=reference,
                min_support=min_support, four_fifths=four_fifths, names=self._table.names,
                order=self._table.order)

        if combinations is None and max_order is None and not _nested(by):
            frame, keys = self._rolled(cast("By", by))
            return report(frame, keys)
        counted = class_sets(self.frame, self.keys, by, combinations, max_order,
                             max_groups=self._table.max_groups)
        if counted.sets is None:
            return report(counted.frame, counted.keys)
        check_clash(counted.keys, ["attributes"], "multiclass_report")
        return analyse(counted, report)

    def multiclass_test(self, by: By = None, *, combinations: Any = None,
                        max_order: int | None = None, n_permutations: int = N_DRAWS,
                        seed: int | None = DEFAULTS.seed) -> pl.LazyFrame:
        """Per attribute set, the chi-square test of independence of predicted class and group.

        Parameters
        ----------
        by : str or list of str, optional
            The attributes (default: every key): one set, their intersection.
        combinations : "all", optional
            Every non-empty subset of ``by``, one test each.
        max_order : int, optional
            The largest subset with ``combinations="all"``.
        n_permutations : int, default 1000
            The Monte-Carlo draws when an expected count is below 5.
        seed : int or None, default None
            The seed of the draws (``None``: fresh entropy).

        Returns
        -------
        pl.LazyFrame
            ``attributes`` (List(String)), then the columns of
            :func:`polars_fair.analyses.multiclass.multiclass_test_from_classes`, one row per
            attribute set.

        The test counts rows: a table with weight sums (``sample_weight``) is refused, since
        Pearson's chi-square on weight sums is not valid for sampling weights. True classes
        (``y_true``) are not read: the test is of predicted class against group.

        Raises
        ------
        ColumnNotFoundError
            ``by`` names a column that is not a key.
        InvalidArgumentError
            Bad ``combinations``, ``max_order`` or ``n_permutations``; a weighted table.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_class_counts
        >>> t = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_pred": ["x", "y", "x", "y"],
        ...                   "n": [30, 10, 20, 20]})
        >>> from_class_counts(t).multiclass_test().collect()["dof"].to_list()
        [1]
        """
        if self._table.weighted:
            weight = self._table.names.get("sample_weight")
            raise E.InvalidArgumentError(E.TEST_WEIGHT_SUMS if weight is None else
                                         E.TEST_WEIGHTS.format(weight=weight))
        names, found = _attribute_sets(self.keys, by, combinations, max_order,
                                       self._table.max_groups)
        sets = found if found is not None else [names]
        return multiclass_test_from_classes(self.frame, self.keys, sets=sets,
                                            n_permutations=n_permutations, seed=seed)


    def bias_audit(self, *, min_share: float = DEFAULTS.min_share,
                   exclude_small: bool = DEFAULTS.exclude_small,
                   plain_benchmark: bool = DEFAULTS.plain_benchmark,
                   min_support: float = DEFAULTS.min_support) -> pl.LazyFrame:
        """NYC Local Law 144 bias audit per class: each category's selection table per class.

        Parameters
        ----------
        min_share : float, default 0.02
            A category with a smaller share of the rows is flagged ``small_category``.
        exclude_small : bool, default False
            Leave small categories out of the impact ratios.
        plain_benchmark : bool, default False
            Let any category set the benchmark (the law's plain rule); by default only those
            with ``min_support`` (30) rows may, when some have.
        min_support : float, default 30
            The rows a benchmark category needs.

        Returns
        -------
        pl.LazyFrame
            See :func:`polars_fair.analyses.bias_audit.bias_audit_from_classes`: ``class``,
            then the columns of the binary LL 144 table.

        Raises
        ------
        InvalidArgumentError
            No keys, a key named like an output column, ``min_share`` outside [0, 1].

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_class_counts
        >>> t = pl.DataFrame({"sex": ["F", "F", "M", "M"], "y_pred": ["A", "B", "A", "B"],
        ...                   "n": [3, 1, 2, 2]})
        >>> from_class_counts(t).bias_audit().collect()["selected"].to_list()
        [3, 2, 1, 2]
        """
        return on_small_table(self.frame, lambda t: bias_audit_from_classes(
            t, self.keys, classes=self.classes, names=self._table.names, min_share=min_share,
            exclude_small=exclude_small, plain_benchmark=plain_benchmark,
            min_support=min_support))


def _nested(by: Any) -> bool:
    """``by`` names several attribute sets (a list of lists)."""
    return isinstance(by, (list, tuple)) and any(isinstance(b, (list, tuple)) for b in by)


def _attribute_sets(keys: Sequence[str], by: Any, combinations: Any, max_order: int | None,
                    max_groups: int) -> tuple[list[str], list[list[str]] | None]:
    """``by`` parsed once (:func:`parse_by`): its attributes, each a key, and its sets."""
    attrs = parse_by(list(keys) if by is None else by, combinations, max_order,
                     max_groups=max_groups)
    names = list(dict.fromkeys(attrs.names))
    for k in names:
        if k not in keys:
            raise E.ColumnNotFoundError(E.missing_column(k, "by", list(keys)))
    return names, None if attrs.sets is None else [list(s) for s in attrs.sets]


def class_sets(frame: pl.LazyFrame, keys: Sequence[str], by: Any, combinations: Any,
               max_order: int | None, *, max_groups: int = DEFAULT_MAX_GROUPS) -> Counted:
    """A class table rolled up to each attribute set, stacked, from one collection of it.

    The class table's cells are additive, so every set is a sum over the same small table:
    the rows are not read again. The stack has the layout of
    :func:`polars_fair.counting.tables.expand_sets` (``attributes``, every key, null outside
    its row's set, then the class columns), so :func:`polars_fair.analyses.runner.analyse`
    runs an analysis per set.

    Parameters
    ----------
    frame : pl.LazyFrame
        A class table.
    keys : sequence of str
        Its keys.
    by : str, list of str or list of lists of str, optional
        The attributes (default: every key) or the attribute sets.
    combinations : "all", optional
        Every non-empty subset of ``by``.
    max_order : int, optional
        The largest subset with ``combinations="all"``.
    max_groups : int, default 10000
        The most groups the stack may hold, over every set.

    Returns
    -------
    polars_fair.counting.tables.Counted
        One set: the table rolled up to it (``sets`` is None); several: the stack.

    Raises
    ------
    ColumnNotFoundError
        A set names a column that is not a key.
    InvalidArgumentError
        Bad ``by``, ``combinations`` or ``max_order`` (:func:`polars_fair.core.spec.parse_by`).
    SizeLimitError
        More than ``max_groups`` groups over the sets (at collect time).

    Examples
    --------
    >>> t = pl.LazyFrame({"a": ["x", "y"], "b": [1, 1], "y_pred": [0, 1], "n": [2, 3]})
    >>> c = class_sets(t, ["a", "b"], None, "all", None)
    >>> c.sets, c.frame.collect().select("attributes", "a", "b", "y_pred", "n").rows()[2:4]
    ([['a'], ['b'], ['a', 'b']], [(['b'], None, 1, 0, 2), (['b'], None, 1, 1, 3)])
    """
    names, found = _attribute_sets(keys, by, combinations, max_order, max_groups)
    if found is None:
        return Counted(rollup_classes(frame, keys, names), names, max_groups=max_groups)
    sets = found
    union = [k for k in keys if any(k in s for s in sets)]
    schema = frame.collect_schema()
    cells = [c for c in ("y_true", "y_pred", "n", "weight_sum") if c in schema]
    out_schema = pl.Schema([("attributes", pl.List(pl.String())),
                            *[(c, schema[c]) for c in (*union, *cells)]])

    def stack(df: pl.DataFrame) -> pl.DataFrame:
        size = sum(df.select(s).n_unique() if s else 1 for s in sets)
        if size > max_groups:
            raise E.SizeLimitError(E.TOO_MANY_GROUPS.format(
                what=f"the class table of {len(sets)} attribute sets", size=size,
                limit=max_groups))
        parts = [rollup_classes(df.lazy(), keys, s).collect().with_columns(
            pl.lit(s, dtype=pl.List(pl.String)).alias("attributes"),
            *[pl.lit(None, dtype=schema[k]).alias(k) for k in union if k not in s],
        ).select(out_schema.names()) for s in sets]
        return pl.concat(parts, how="vertical") if parts else pl.DataFrame(schema=out_schema)

    return Counted(frame.map_batches(stack, schema=out_schema), union, sets, max_groups)


@borrow(class_sets, params=("frame", "keys"))
@borrow(FairCounts.confusion, sections=("Raises",))
def rollup_classes(frame: pl.LazyFrame, keys: Sequence[str], by: Sequence[str]) -> pl.LazyFrame:
    """Sum a class table over the keys not in ``by`` (cells are additive).

    Parameters
    ----------
    by : sequence of str
        The keys to keep.

    Returns
    -------
    pl.LazyFrame
        The class table over ``by``, sorted.

    Examples
    --------
    >>> t = pl.LazyFrame({"a": ["x", "x"], "b": [1, 2], "y_pred": [0, 0], "n": [1, 2]})
    >>> rollup_classes(t, ["a", "b"], ["a"]).collect().rows()
    [('x', 0, 3)]
    """
    for k in by:
        if k not in keys:
            raise E.ColumnNotFoundError(E.missing_column(k, "by", list(keys)))
    names = frame.collect_schema().names()
    labels = [c for c in ("y_true", "y_pred") if c in names]
    sums = [c for c in ("n", "weight_sum") if c in names]
    return (frame.group_by([*by, *labels]).agg(pl.col(c).sum() for c in sums)
            .sort([*by, *labels], nulls_last=True))


@borrow(counts, params=("frame", "by"))
def class_counts(frame: Any, by: Any = None, **class_args: Unpack[C.ClassArgs]
                 ) -> FairClassCounts:
    """Count the rows of a Polars, Spark or DuckDB frame once, into a :class:`FairClassCounts`.

    One aggregation in the frame's own engine gives one row per (group, true class, predicted
    class); the same checks as a binary audit's run on it (:mod:`polars_fair.counting.classes`).

    Parameters
    ----------
    y_pred : str or expression, default "y_pred"
        The predicted class.
    y_true : str or expression, optional
        The true class; without it only decisions are audited.
    classes : sequence, optional
        Every class, in order (an unreceived class is a row of zeros in the report); a value
        outside them is an error. Default: an Enum's categories, else the classes found.
    sample_weight : str or expression, optional
        A numeric weight per row.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows whose attribute is null: a group, an error, or dropped with a warning.
    max_groups : int, default 10000
        The size limit of the tables made from it.

    Returns
    -------
    FairClassCounts
        ``.frame`` is the lazy class table; ``.multiclass_report()``, ``.multiclass_test()``.

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError, InvalidLabelError, InvalidWeightError
        At once: a missing column, bad options or ``classes``, label and prediction of
        different kinds.
    NullValuesError, InvalidLabelError, EmptyFrameError, NullGroupError, TooManyLevelsError
        At collect time: null or NaN classes, one class only or one outside ``classes``, no
        rows, null groups with ``null_groups="raise"``, an attribute with too many levels.

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "risk": ["Low", "High", "Low"]})
    >>> polars_fair.class_counts(df, "g", y_pred="risk").frame.collect().rows()
    [('a', 'High', 1), ('a', 'Low', 1), ('b', 'Low', 1)]
    """
    args = C.check_class_args(dict(class_args))
    args["max_groups"] = check_int(args["max_groups"], "max_groups")
    return FairClassCounts(C.class_table(frame, by, **args))


C.spell_out_classes(class_counts)


def _check_class_table(df: pl.DataFrame, keys: list[str], labels: list[str],
                       cells: list[str], declared: tuple[Any, ...] | None,
                       dtype: pl.DataType) -> pl.DataFrame:
    df = missing_keys_as_null(_widen(df, cells, ["n", POSITIVE_WEIGHT_ROWS]), keys)
    if POSITIVE_WEIGHT_ROWS in cells:
        _check_positive_rows(df, "class table")
    for c in labels:  # the table's rows are counted, not the rows they stand for
        missing = [("null", pl.col(c).is_null())]
        if df.schema[c].is_float():
            missing.append(("NaN", pl.col(c).is_nan()))
        for what, cond in missing:
            bad = df.filter(cond)
            if bad.height:
                raise E.NullValuesError(E.NULL_CLASS_TABLE.format(
                    column=c, count=bad.height, what=what, rows=int(bad["n"].sum())))
    if df.height == 0:
        raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=" (the class table is empty)"))
    if not df["n"].sum():  # rows, each of none: no class occurs
        held = df[labels[-1]].unique().sort()
        hidden = identifying(df.select(labels[-1]).with_columns(n=pl.lit(1)),  # table rows
                             labels[-1]).why is not None  # a name as the class: not shown
        raise E.class_error(E.EmptyFrameError, E.CLASS_COUNTS_ZERO, rows=df.height,
                            values=E.CLASSES_HIDDEN.format(
                                levels=held.len(), rows=df.height, dtype=held.dtype)
                            if hidden else E.Classes(held.to_list()))
    _check_levels(df, keys)
    out = (df.group_by([*keys, *labels]).agg(pl.col(c).sum() for c in cells)
           .sort([*keys, *labels], nulls_last=True))
    return C.finish_classes(out, labels, [*keys, *labels], dtype, declared,
                            {c: c for c in labels})


def from_class_counts(
    table: pl.DataFrame | pl.LazyFrame, keys: str | Sequence[str] | None = None, *,
    classes: Sequence[Any] | None = None, max_groups: int = DEFAULT_MAX_GROUPS,
) -> FairClassCounts:
    """Audit a class table made anywhere: ``from_class_counts(table).multiclass_report()``.

    The class table holds the key columns, ``y_true`` (optional), ``y_pred`` and ``n`` (rows;
    with sample weights also ``weight_sum`` and optionally ``n_positive_weight``, the rows of
    positive weight, which the support rules then count, as :func:`polars_fair.from_counts`
    does; without it they count ``n``), for example from SQL (``GROUP BY race, y_true,
    y_pred`` with ``COUNT(*)``) or ``class_counts(...).frame`` saved to Parquet. It is checked
    as on the rows: counts widened to Int64 (non-negative, whole, within Int64), no null or NaN
    class, classes within ``classes``, at least two classes, the attribute level guards. Rows
    with equal keys and classes are summed.

    Parameters
    ----------
    table : pl.DataFrame or pl.LazyFrame
        The class table.
    keys : str or sequence of str, optional
        The key columns; default: every column that is not a class-table column.
    classes : sequence, optional
        Every class, in order.
    max_groups : int, default 10000
        The size limit of the tables made from it.

    Returns
    -------
    FairClassCounts
        Every multiclass analysis; ``.frame`` is the validated table.

    Raises
    ------
    ColumnNotFoundError
        ``y_pred``, ``n`` or a key is missing.
    InvalidArgumentError
        A non-numeric ``n``, ``weight_sum`` or ``n_positive_weight``, bad ``classes``,
        ``n_positive_weight`` without ``weight_sum`` (at once); negative, NaN, infinite,
        non-integer or too large counts, ``n_positive_weight`` above ``n`` or 0 where
        ``weight_sum`` is positive (at collect time).
    NullValuesError, InvalidLabelError, EmptyFrameError, TooManyLevelsError
        At collect time: null or NaN classes, one class only or one outside ``classes``, no
        rows, an attribute with too many levels.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_class_counts
    >>> t = pl.DataFrame({"g": ["a", "a", "a"], "y_pred": [2, 0, 2], "n": [1, 3, 1]})
    >>> from_class_counts(t).frame.collect().rows()
    [('a', 0, 3), ('a', 2, 2)]
    """
    lf = _lazy(table)
    schema = lf.collect_schema()
    if "y_pred" not in schema:
        raise E.ColumnNotFoundError(E.missing_column("y_pred", "class table", schema.names()))
    labels = [c for c in ("y_true", "y_pred") if c in schema]
    weighted = "weight_sum" in schema
    if POSITIVE_WEIGHT_ROWS in schema and not weighted:
        raise E.InvalidArgumentError(E.POSITIVE_ROWS_UNWEIGHTED)
    cells = ["n", *(["weight_sum"] if weighted else []),
             *([POSITIVE_WEIGHT_ROWS] if POSITIVE_WEIGHT_ROWS in schema else [])]
    for c in cells:
        if c not in schema:
            raise E.ColumnNotFoundError(E.missing_column(c, "class table", schema.names()))
        if not schema[c].is_numeric():
            raise E.InvalidArgumentError(E.NOT_NUMERIC.format(
                column=c, role="class table", dtype=schema[c]))
    key_list = _key_list(keys, schema, [*labels, *cells])
    true_dtype = schema["y_true"] if "y_true" in schema else None
    C.check_enum_pair(true_dtype, schema["y_pred"], classes, ("y_true", "y_pred"))
    dtype = C.class_dtype(true_dtype, schema["y_pred"])
    declared = C.check_classes(classes, dtype, "y_pred")
    if declared is None and isinstance(dtype, pl.Enum):
        declared = C.declared_categories(dtype)
    out_schema = pl.Schema([*[(k, schema[k]) for k in key_list],
                            *[(c, dtype) for c in labels], ("n", pl.Int64()),
                            *([("weight_sum", pl.Float64())] if weighted else []),
                            *([(POSITIVE_WEIGHT_ROWS, pl.Int64())] if len(cells) == 3 else [])])
    raw = lf.select(*key_list, *[pl.col(c).cast(C.staging_dtype(dtype)) for c in labels], *cells)
    checked = raw.map_batches(
        lambda df: _check_class_table(df, key_list, labels, cells, declared, dtype),
        schema=out_schema)
    return FairClassCounts(C.ClassTable(checked, key_list, declared,
                                        check_int(max_groups, "max_groups"),
                                        order=C.label_order(true_dtype, dtype)))
