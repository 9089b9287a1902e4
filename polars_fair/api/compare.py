"""Compare a candidate model with its baseline: the paired count table and its analysis.

:func:`paired_counts` counts the rows once into the paired count table
(:mod:`polars_fair.counting.paired`) on any engine; :func:`from_paired_counts` accepts one made
elsewhere (SQL, Spark, a saved Parquet); both return a :class:`FairPaired`, whose
:meth:`~FairPaired.compare` is :func:`polars_fair.analyses.compare.compare_from_counts`.
``lf.fair.compare(...)`` is ``paired_counts(lf, ...).compare(...)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import compose
from polars_fair.analyses.compare import compare_from_counts, compare_outputs
from polars_fair.analyses.runner import check_clash
from polars_fair.api.external import _check_levels as check_levels
from polars_fair.api.external import _require as require
from polars_fair.api.external import _widen as widen
from polars_fair.api.own_table import OwnTable, unwrap_table
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import BY_DOC, INPUT_ERRORS_DOC, By, IntoExpr, refuse_membership
from polars_fair.counting.boundary import missing_keys_as_null
from polars_fair.counting.paired import (
    PAIRED_CELLS,
    POSITIVE_ROWS,
    check_negative_cells,
    check_paired,
    paired_table,
)

__all__ = ["FairPaired", "from_paired_counts", "namespace_compare", "paired_counts"]


class FairPaired(OwnTable):
    """A paired count table (two models on the same rows) with its comparison.

    Parameters
    ----------
    table : pl.LazyFrame
        The paired count table (:func:`polars_fair.counting.paired.paired_schema`).
    keys : sequence of str
        Its key columns.
    labels : bool
        Whether it was counted with labels (``y_true``).

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 0], "new": [1, 0], "old": [0, 0]})
    >>> p = paired_counts(df, "g", y_pred="new", baseline="old", y_true="y_true")
    >>> p.keys, p.frame.select("g", "y1_p1_b0").collect().rows()
    (['g'], [('a', 1), ('b', 0)])
    """

    def compare(self, *, reference: Any = DEFAULTS.reference, level: float = DEFAULTS.level,
                mid_p: bool = False, min_support: float = DEFAULTS.min_support,
                four_fifths: float = DEFAULTS.four_fifths) -> pl.LazyFrame:
        """The per-group comparison (:func:`polars_fair.analyses.compare.compare_from_counts`).

        Parameters
        ----------
        reference : "largest", "max_selection_rate", "overall", scalar or mapping
            The reference group of OFI.
        level : float, default 0.95
            The confidence level of the change intervals.
        mid_p : bool, default False
            McNemar's mid-p value instead of the exact one.
        min_support : float, default 30
            Groups with fewer rows are ``low_support``.
        four_fifths : float, default 0.8
            The impact-ratio threshold of the four-fifths rule.

        Returns
        -------
        pl.LazyFrame
            The columns of :func:`polars_fair.analyses.compare.compare_from_counts`.

        Examples
        --------
        >>> import polars as pl
        >>> df = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 0], "new": [1, 0], "old": [0, 0]})
        >>> p = paired_counts(df, "g", y_pred="new", baseline="old", y_true="y_true")
        >>> out = p.compare(min_support=1)
        >>> out.select("g", "selection_rate_change").collect().rows()
        [('a', 1.0), ('b', 0.0)]
        """
        return compare_from_counts(self.frame, self.keys, labels=self.labels,
                                   reference=reference, level=level, mid_p=mid_p,
                                   min_support=min_support, four_fifths=four_fifths)


def paired_counts(frame: Any, by: By = None, *, y_pred: IntoExpr, baseline: IntoExpr,
                  y_true: IntoExpr | None = None, **count_args: Any) -> FairPaired:
    """Count two models' decisions on the same rows into the paired count table, in one scan.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows, both models' predictions side by side.
    by : str, pl.Expr or list of them, optional
        The attributes (several = their intersection).
    y_pred : str or pl.Expr
        The candidate's prediction (an expression such as ``pl.col("score") >= 0.5``
        thresholds a score).
    baseline : str or pl.Expr
        The baseline's prediction, validated as ``y_pred`` is.
    y_true : str or pl.Expr or None, default None
        The label; without it only selections are compared.
    **count_args : Any
        ``pos_label``, ``sample_weight``, ``null_groups``, ``max_groups``
        (:class:`polars_fair.core.spec.CountArgs`).

    Returns
    -------
    FairPaired
        ``.frame`` the lazy paired count table; ``.compare()`` the comparison.

    Raises
    ------
    InvalidArgumentError
        ``membership=`` (estimated membership: the paired table counts each row in one group).
    ColumnNotFoundError, InvalidArgumentError, InvalidLabelError
        At once, as :func:`polars_fair.counting.paired.paired_table`.
    InvalidLabelError, NullValuesError, EmptyFrameError, NullGroupError, TooManyLevelsError
        When collected: bad labels or predictions (the baseline's named as ``baseline``).

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"g": ["a", "a"], "y_true": [1, 0], "new": [1, 1], "old": [1, 0]})
    >>> paired_counts(df, "g", y_pred="new", baseline="old", y_true="y_true").frame.select(
    ...     "n", "y1_p1_b1", "y0_p1_b0").collect().row(0)
    (2, 1, 1)
    """
    refuse_membership(count_args, "compare", "paired count table")
    args = dict(count_args, y_true=y_true, y_pred=y_pred)
    table, keys, _ = paired_table(frame, by, baseline=baseline, **args)
    return FairPaired(table, keys, labels=y_true is not None)


def from_paired_counts(table: pl.DataFrame | pl.LazyFrame | FairPaired,
                       keys: str | Sequence[str] | None = None, *,
                       labels: bool = True) -> FairPaired:
    """Compare two models from a paired count table made anywhere.

    The table holds the key columns, ``n`` and the eight cells ``y{l}_p{c}_b{b}`` (label,
    candidate, baseline; 1 = the positive value), for example from SQL: ``SUM(CASE WHEN
    y = 1 AND new = 1 AND old = 0 THEN 1 ELSE 0 END) AS y1_p1_b0``; with weights the cells are
    weighted sums followed by ``weight_sum`` and ``n_positive_weight``, the rows whose weight
    is above 0 (``SUM(CASE WHEN w > 0 THEN 1 ELSE 0 END)``): the intervals and the support
    rule count those rows, since a row of weight 0 is no observation. Rows with equal keys are
    summed (the counts are additive).

    Parameters
    ----------
    table : pl.DataFrame, pl.LazyFrame or FairPaired
        The paired count table; or what :func:`paired_counts` returned (its ``.frame`` is
        used, and its keys and labels by default).
    keys : str or sequence of str, optional
        The key columns; default every column that is not a count.
    labels : bool, default True
        Whether the ``y1_*`` cells hold labelled positives (``False``: selections only).

    Returns
    -------
    FairPaired
        ``.compare()`` gives exactly what ``df.fair.compare`` gives on the rows.

    Raises
    ------
    ColumnNotFoundError
        A cell or key column missing; ``weight_sum`` without ``n_positive_weight``.
    InvalidArgumentError
        ``table`` is no polars frame nor :class:`FairPaired`; a cell is not numeric, or is
        negative, NaN or infinite; ``n``, ``n_positive_weight`` (or, without ``weight_sum``,
        a cell) is not a whole number (weighted cells need a ``weight_sum`` column), as
        :func:`polars_fair.from_counts`; a key named like a column the comparison adds or
        reads (``n``, ``selection_rate``, ``low_support``, ...) or starting with ``__pf_``;
        ``n_positive_weight`` without ``weight_sum`` (it would be ignored; as
        ``from_counts``, :data:`polars_fair.errors.POSITIVE_ROWS_UNWEIGHTED`).
    NullValuesError
        A null cell.
    InvalidInputError
        When collected: negative counts, ``n`` not the sum of the cells (unweighted), or
        ``n_positive_weight`` above ``n`` (or 0 where ``weight_sum`` is positive).
    TooManyLevelsError
        A float key with more than 50 values, or a key (or their intersection) too fine to
        form groups, refused as on the rows (:func:`polars_fair.from_counts`).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.counting.paired import PAIRED_CELLS
    >>> t = pl.DataFrame([{"g": "a", "n": 3, **dict.fromkeys(PAIRED_CELLS, 0),
    ...                    "y0_p1_b0": 3}])
    >>> from_paired_counts(t, labels=False).compare(min_support=1).select(
    ...     "selection_rate", "selection_rate_baseline").collect().row(0)
    (1.0, 0.0)
    """
    table, keys, labels = unwrap_table(table, keys, labels, FairPaired, "from_paired_counts")
    if keys is not None:
        check_clash([keys] if isinstance(keys, str) else list(keys), compare_outputs(), "compare",
                    made_elsewhere=True)
    df = table.collect() if isinstance(table, pl.LazyFrame) else table
    weighted = "weight_sum" in df.columns
    if weighted and POSITIVE_ROWS not in df.columns:
        raise E.ColumnNotFoundError(E.PAIRED_POSITIVE_ROWS)
    cells = [c for c in ("n", *PAIRED_CELLS, "weight_sum", POSITIVE_ROWS) if c in df.columns]
    require(df.schema, cells, "paired count table")
    if not {"n", *PAIRED_CELLS} - set(df.columns):  # else check_paired names the missing one
        check_negative_cells(df)
    wide = widen(df, cells, ["n", POSITIVE_ROWS] if weighted else ["n", *PAIRED_CELLS],
                 " (weighted cells need a weight_sum column)")
    checked, key_list = check_paired(wide.lazy(), [keys] if isinstance(keys, str) else keys)
    # the rows' guards on levels, as from_counts: n counts rows, equal keys summed
    check_levels(missing_keys_as_null(wide.select(*key_list, "n"), key_list), key_list)
    return FairPaired(checked, key_list, labels)


def namespace_compare(self: Any, /, by: By = None, *, y_pred: IntoExpr,  # noqa: D103
                      baseline: IntoExpr, y_true: IntoExpr | None = None,
                      reference: Any = DEFAULTS.reference, level: float = DEFAULTS.level,
                      mid_p: bool = False, min_support: float = DEFAULTS.min_support,
                      four_fifths: float = DEFAULTS.four_fifths,
                      **count_args: Any) -> pl.LazyFrame:
    return paired_counts(self._lf, by, y_pred=y_pred, baseline=baseline, y_true=y_true,
                         **count_args).compare(
        reference=reference, level=level, mid_p=mid_p, min_support=min_support,
        four_fifths=four_fifths)


namespace_compare.__doc__ = compose(
    compare_from_counts.__doc__ or "", drop=("paired", "keys", "labels"),
    before=BY_DOC + """
y_pred : str or pl.Expr
    The candidate model's prediction (``pl.col("score") >= 0.5`` thresholds a score).
baseline : str or pl.Expr
    The baseline model's prediction on the same rows, validated as ``y_pred`` is.
y_true : str or pl.Expr or None, default None
    The label: adds ``tpr``, ``fpr``, ``ofi`` and the test of the change in errors.""",
    after="""**count_args
    ``pos_label``, ``sample_weight``, ``null_groups``, ``max_groups``.""",
    raises=INPUT_ERRORS_DOC, returns="pl.LazyFrame", example="""\
>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "new": [1, 1, 0, 0, 1, 1, 1, 0],
...                    "old": [1, 0, 0, 0, 1, 1, 0, 0]})
>>> out = df.lazy().fair.compare("g", y_pred="new", baseline="old", min_support=1)
>>> out.select("g", "selection_rate", "selection_rate_baseline",
...            "mcnemar_p_value").collect().rows()
[('a', 0.5, 0.25, 1.0), ('b', 0.75, 0.5, 1.0)]""")
