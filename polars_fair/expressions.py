"""Pure ``pl.Expr`` builders: the one place where each metric's formula lives.

Two families share the same formulas:

* **count-level** formulas read the columns ``n, tp, fp, fn, tn`` of a count table
  (``RATES`` maps each rate name to its numerator and denominator);
* **row-level** aggregations (:func:`tpr`, :func:`selection_rate`, ...) compute the same
  counts from label and prediction columns, so they plug into your own
  ``group_by(...).agg(...)``, ``select`` or ``over``.

A rate whose denominator is zero is null, never 0 and never NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl

__all__ = [
    "Counts",
    "RATES",
    "RATE_NAMES",
    "safe_div",
    "is_positive",
    "confusion_counts",
    "true_positives",
    "false_positives",
    "false_negatives",
    "true_negatives",
    "selection_rate",
    "base_rate",
    "tpr",
    "fpr",
    "tnr",
    "fnr",
    "ppv",
    "npv",
    "accuracy",
    "marginal_benefit",
]

IntoExpr = str | pl.Expr


def to_expr(column: IntoExpr) -> pl.Expr:
    """Turn a column name or an expression into an expression."""
    return pl.col(column) if isinstance(column, str) else column


@dataclass(frozen=True)
class Counts:
    """The five confusion counts as expressions (columns of a count table, or aggregations)."""

    n: pl.Expr
    tp: pl.Expr
    fp: pl.Expr
    fn: pl.Expr
    tn: pl.Expr

    @classmethod
    def columns(cls) -> Counts:
        """The counts as the columns ``n, tp, fp, fn, tn`` of a count table."""
        return cls(pl.col("n"), pl.col("tp"), pl.col("fp"), pl.col("fn"), pl.col("tn"))


Formula = Callable[[Counts], pl.Expr]

#: name -> (numerator, denominator, source). The only definition of every rate in the package.
RATES: dict[str, tuple[Formula, Formula, str]] = {
    "selection_rate": (lambda c: c.tp + c.fp, lambda c: c.n, "(TP+FP)/n; 29 CFR 1607.4(D)"),
    "base_rate": (lambda c: c.tp + c.fn, lambda c: c.n, "(TP+FN)/n"),
    "tpr": (lambda c: c.tp, lambda c: c.tp + c.fn, "TP/(TP+FN); recall, equal opportunity"),
    "fpr": (lambda c: c.fp, lambda c: c.fp + c.tn, "FP/(FP+TN); equalized odds"),
    "tnr": (lambda c: c.tn, lambda c: c.tn + c.fp, "TN/(TN+FP); specificity"),
    "fnr": (lambda c: c.fn, lambda c: c.fn + c.tp, "FN/(FN+TP); miss rate"),
    "ppv": (lambda c: c.tp, lambda c: c.tp + c.fp, "TP/(TP+FP); precision, predictive parity"),
    "npv": (lambda c: c.tn, lambda c: c.tn + c.fn, "TN/(TN+FN)"),
    "accuracy": (lambda c: c.tp + c.tn, lambda c: c.n, "(TP+TN)/n"),
    "marginal_benefit": (
        lambda c: c.fp - c.fn,
        lambda c: c.n,
        "(FP-FN)/n; Briscoe et al., Facets of Disparate Impact (OFI), Def. 2.6",
    ),
}
RATE_NAMES: tuple[str, ...] = tuple(RATES)


def safe_div(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """``numerator / denominator`` as Float64, null where the denominator is not positive.

    Parameters
    ----------
    numerator, denominator : pl.Expr
        Counts (Int64) or weighted counts (Float64).

    Returns
    -------
    pl.Expr
        Float64; null where ``denominator <= 0`` or either side is null.

    Examples
    --------
    >>> import polars as pl
    >>> pl.select(r=safe_div(pl.lit(1), pl.lit(0))).item() is None
    True
    """
    return (
        pl.when(denominator > 0)
        .then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))
        .otherwise(None)
    )


def rate_from_counts(name: str, counts: Counts | None = None) -> pl.Expr:
    """The rate ``name`` (a key of :data:`RATES`) from count expressions, aliased to ``name``."""
    num, den, _ = RATES[name]
    c = counts if counts is not None else Counts.columns()
    return safe_div(num(c), den(c)).alias(name)


def is_positive(column: IntoExpr, pos_label: Any = 1) -> pl.Expr:
    """Boolean expression: ``column == pos_label`` (null stays null).

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


_ROW_DOC = """
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
        An aggregating expression, for ``select``, ``group_by().agg`` or ``over``.

    Notes
    -----
    Rows where the label or the prediction is null are not counted. These expressions do not
    validate their input; the ``df.fair`` methods do.
"""


def confusion_counts(
    y_true: IntoExpr = "y_true",
    y_pred: IntoExpr = "y_pred",
    *,
    pos_label: Any = 1,
    sample_weight: IntoExpr | None = None,
) -> pl.Expr:
    c = _row_counts(y_true, y_pred, pos_label, sample_weight)
    return pl.struct(
        c.n.alias("n"), c.tp.alias("tp"), c.fp.alias("fp"), c.fn.alias("fn"), c.tn.alias("tn")
    )


confusion_counts.__doc__ = ("""Aggregation: a struct ``{n, tp, fp, fn, tn}`` of confusion counts.

    Counts are Int64, or Float64 weighted sums when ``sample_weight`` is given.
    """ + _ROW_DOC + """
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
    """)


def _count_expr(field: str, doc: str) -> Callable[..., pl.Expr]:
    def f(
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr = "y_pred",
        *,
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
    ) -> pl.Expr:
        c = _row_counts(y_true, y_pred, pos_label, sample_weight)
        expr: pl.Expr = getattr(c, field)
        return expr.alias(field)

    f.__name__ = {"tp": "true_positives", "fp": "false_positives", "fn": "false_negatives",
                  "tn": "true_negatives"}[field]
    f.__qualname__ = f.__name__
    f.__doc__ = f"""Aggregation: the number of {doc} (``{field}``), Int64 (Float64 if weighted).
{_ROW_DOC}
    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({{"y_true": [1, 1, 0, 0], "y_pred": [1, 0, 1, 0]}})
    >>> df.select({f.__name__}()).item()
    1
    """
    return f


true_positives = _count_expr("tp", "true positives: label and prediction positive")
false_positives = _count_expr("fp", "false positives: negative label, positive prediction")
false_negatives = _count_expr("fn", "false negatives: positive label, negative prediction")
true_negatives = _count_expr("tn", "true negatives: label and prediction negative")


def _rate_expr(name: str, example: str) -> Callable[..., pl.Expr]:
    num, den, source = RATES[name]

    def f(
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr = "y_pred",
        *,
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
    ) -> pl.Expr:
        c = _row_counts(y_true, y_pred, pos_label, sample_weight)
        return safe_div(num(c), den(c)).alias(name)

    f.__name__ = name
    f.__qualname__ = name
    unit = "in [-1, 1]" if name == "marginal_benefit" else "in [0, 1]"
    f.__doc__ = f"""Aggregation: ``{name}`` = {source}.

    Returns a Float64 expression {unit}; null when the denominator is 0.
{_ROW_DOC}
    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({{"y_true": [1, 1, 0, 0], "y_pred": [1, 0, 1, 1]}})
    >>> df.select({name}()).item()
    {example}
    """
    return f


# Examples: y_true [1,1,0,0], y_pred [1,0,1,1] -> tp=1, fn=1, fp=2, tn=0, n=4.
selection_rate = _rate_expr("selection_rate", "0.75")
base_rate = _rate_expr("base_rate", "0.5")
tpr = _rate_expr("tpr", "0.5")
fpr = _rate_expr("fpr", "1.0")
tnr = _rate_expr("tnr", "0.0")
fnr = _rate_expr("fnr", "0.5")
ppv = _rate_expr("ppv", "0.3333333333333333")
npv = _rate_expr("npv", "0.0")
accuracy = _rate_expr("accuracy", "0.25")
marginal_benefit = _rate_expr("marginal_benefit", "0.25")
