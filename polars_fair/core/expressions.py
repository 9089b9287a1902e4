"""Pure ``pl.Expr`` builders: row-level metric aggregations, generated from the registry.

The formulas live in the metric registry (:mod:`polars_fair.core.registry`). The **row-level**
aggregations here (:func:`tpr`, :func:`selection_rate`, ...) are generated from it: each computes
the confusion counts from label and prediction columns and applies the registry's formula, so it
plugs into your own ``group_by(...).agg(...)``, ``select`` or ``over``.

A rate whose denominator is zero is null, never 0 and never NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import polars as pl

from polars_fair.core.registry import METRICS, RATE_NAMES, Counts, Metric, safe_div
from polars_fair.core.spec import IntoExpr, to_expr


def is_positive(column: IntoExpr, pos_label: Any = 1) -> pl.Expr:
    """Boolean expression: ``column == pos_label`` (null stays null).

    Parameters
    ----------
    column : str or pl.Expr
        A label or prediction column.
    pos_label : Any, default 1
        The value that means the positive (favourable) outcome; ``True`` casts the column to
        Boolean instead of comparing.

    Returns
    -------
    pl.Expr
        Boolean, null where ``column`` is null, named as ``column``.

    Examples
    --------
    >>> import polars as pl
    >>> pl.DataFrame({"y": ["yes", "no"]}).select(is_positive("y", "yes"))["y"].to_list()
    [True, False]
    """
    expr = to_expr(column)
    if pos_label is True:
        return expr.cast(pl.Boolean)
    return expr == pl.lit(pos_label)


def _row_counts(
    y_true: IntoExpr, y_pred: IntoExpr, pos_label: Any, sample_weight: IntoExpr | None
) -> Counts:
    y = is_positive(y_true, pos_label)
    p = is_positive(y_pred, pos_label)
    valid = y.is_not_null() & p.is_not_null()
    if sample_weight is None:
        def total(mask: pl.Expr) -> pl.Expr:
            return (mask & valid).sum().cast(pl.Int64)
    else:
        w = to_expr(sample_weight).cast(pl.Float64)

        def total(mask: pl.Expr) -> pl.Expr:
            return pl.when(mask & valid).then(w).otherwise(0.0).sum()

    return Counts(
        n=total(pl.lit(True)),
        tp=total(y & p),
        fp=total(~y & p),
        fn=total(y & ~p),
        tn=total(~y & ~p),
    )


class RowMetric(Protocol):
    """The signature of every generated row-level metric aggregation.

    Each function of this module named after a metric of :data:`polars_fair.core.registry.METRICS`
    (``tpr``, ``fdr``, ``false_omission_rate``, ...) and each count (``true_positives``, ...)
    has this signature: label and prediction columns, ``pos_label`` and ``sample_weight``,
    returning one aggregating expression.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.core.expressions import RowMetric, tpr
    >>> metric: RowMetric = tpr
    >>> df = pl.DataFrame({"y_true": [1, 1, 0], "y_pred": [1, 0, 1]})
    >>> df.select(metric(pos_label=1)).item()
    0.5
    """

    __name__: str

    def __call__(
        self,
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr = "y_pred",
        *,
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
    ) -> pl.Expr:
        """Aggregate the metric over the rows."""
        ...


#: The docstring of :func:`confusion_counts`; its Parameters, Returns and Notes are every row
#: metric's.
_CONFUSION_DOC = """Aggregation: a struct ``{n, tp, fp, fn, tn}`` of confusion counts.

    Counts are Int64, or Float64 weighted sums when ``sample_weight`` is given.

    Parameters
    ----------
    y_true, y_pred : str or pl.Expr
        Label and prediction columns (default ``"y_true"``, ``"y_pred"``).
    pos_label : Any, default 1
        The value that means the positive (favourable) outcome; any dtype.
    sample_weight : str or pl.Expr, optional
        Row weights; counts become weighted sums.

    Returns
    -------
    pl.Expr
        An aggregating Struct expression, for ``select``, ``group_by().agg`` or ``over``.

    Notes
    -----
    Rows where the label or the prediction is null are not counted. These expressions do not
    validate their input; the ``df.fair`` methods do.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0]})
    >>> df.group_by("g").agg(c=confusion_counts()).sort("g").unnest("c")
    shape: (2, 6)
    ┌─────┬─────┬─────┬─────┬─────┬─────┐
    │ g   ┆ n   ┆ tp  ┆ fp  ┆ fn  ┆ tn  │
    │ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- │
    │ str ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64 │
    ╞═════╪═════╪═════╪═════╪═════╪═════╡
    │ a   ┆ 2   ┆ 1   ┆ 1   ┆ 0   ┆ 0   │
    │ b   ┆ 1   ┆ 0   ┆ 0   ┆ 1   ┆ 0   │
    └─────┴─────┴─────┴─────┴─────┴─────┘
    """


def _row_doc() -> str:
    """The Parameters, Returns and Notes of :func:`confusion_counts`, shared by every row metric."""
    doc = _CONFUSION_DOC
    shared = doc[doc.index("    Parameters"):doc.index("    Examples")].rstrip("\n")
    shared = shared.replace("An aggregating Struct expression", "An aggregating expression")
    return "\n" + shared + "\n"


_ROW_DOC = _row_doc()


def _row_metric(name: str, doc: str, of_counts: Callable[[Counts], pl.Expr]) -> RowMetric:
    """A row-level aggregation: the confusion counts of the rows, then ``of_counts``."""
    def f(
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr = "y_pred",
        *,
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
    ) -> pl.Expr:
        return of_counts(_row_counts(y_true, y_pred, pos_label, sample_weight))

    f.__name__ = f.__qualname__ = name
    f.__module__ = __name__
    f.__doc__ = doc
    return f


#: Aggregation: a struct ``{n, tp, fp, fn, tn}`` of confusion counts (see its docstring).
confusion_counts = _row_metric("confusion_counts", _CONFUSION_DOC, lambda c: pl.struct(
    c.n.alias("n"), c.tp.alias("tp"), c.fp.alias("fp"), c.fn.alias("fn"), c.tn.alias("tn")))


def _count_expr(field: str, doc: str) -> RowMetric:
    name = {"tp": "true_positives", "fp": "false_positives", "fn": "false_negatives",
            "tn": "true_negatives"}[field]
    summary = f"Aggregation: the number of {doc} (``{field}``), Int64 (Float64 if weighted)."
    return _row_metric(name, f"""{summary}
{_ROW_DOC}
    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({{"y_true": [1, 1, 0, 0], "y_pred": [1, 0, 1, 0]}})
    >>> df.select({name}()).item()
    1
    """, lambda c: getattr(c, field).alias(field))


true_positives = _count_expr("tp", "true positives: label and prediction positive")
false_positives = _count_expr("fp", "false positives: negative label, positive prediction")
false_negatives = _count_expr("fn", "false negatives: positive label, negative prediction")
true_negatives = _count_expr("tn", "true negatives: label and prediction negative")


# y_true [1,1,0,0], y_pred [1,0,1,1] -> tp=1, fn=1, fp=2, tn=0, n=4: the doctest frame.
_EXAMPLE = Counts(pl.lit(4), pl.lit(1), pl.lit(2), pl.lit(1), pl.lit(0))


def _rate_expr(m: Metric) -> RowMetric:
    example = pl.select(m.value(_EXAMPLE)).item()
    return _row_metric(m.function_name, f"""Aggregation: ``{m.name}`` = {m.formula} ({m.source}).

    Returns a Float64 expression, {m.unit}; null when undefined (a zero denominator).
{_ROW_DOC}
    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({{"y_true": [1, 1, 0, 0], "y_pred": [1, 0, 1, 1]}})
    >>> df.select({m.function_name}()).item()
    {example!r}
    """, m.value)


_generated = {m.function_name: _rate_expr(m) for m in METRICS.values()}
selection_rate = _generated["selection_rate"]
base_rate = _generated["base_rate"]
tpr = _generated["tpr"]
fpr = _generated["fpr"]
tnr = _generated["tnr"]
fnr = _generated["fnr"]
ppv = _generated["ppv"]
npv = _generated["npv"]
fdr = _generated["fdr"]
false_omission_rate = _generated["false_omission_rate"]
accuracy = _generated["accuracy"]
balanced_accuracy = _generated["balanced_accuracy"]
marginal_benefit = _generated["marginal_benefit"]

__all__ = [
    "Counts",
    "RATE_NAMES",
    "RowMetric",
    "safe_div",
    "is_positive",
    "confusion_counts",
    "true_positives",
    "false_positives",
    "false_negatives",
    "true_negatives",
    # one per registry entry (a test checks that every metric is here)
    "selection_rate",
    "base_rate",
    "tpr",
    "fpr",
    "tnr",
    "fnr",
    "ppv",
    "npv",
    "fdr",
    "false_omission_rate",
    "accuracy",
    "balanced_accuracy",
    "marginal_benefit",
]
