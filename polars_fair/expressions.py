"""Row-level and count-level ``pl.Expr`` builders.

The public path of :mod:`polars_fair.core.expressions`.

A facade: the code lives in the layer of its kind (``polars_fair/core/expressions.py``); this
module keeps the documented import path.
"""

from __future__ import annotations

from polars_fair.core.expressions import (
    RATE_NAMES,
    Counts,
    RowMetric,
    accuracy,
    balanced_accuracy,
    base_rate,
    confusion_counts,
    false_negatives,
    false_omission_rate,
    false_positives,
    fdr,
    fnr,
    fpr,
    is_positive,
    marginal_benefit,
    npv,
    ppv,
    safe_div,
    selection_rate,
    tnr,
    tpr,
    true_negatives,
    true_positives,
)

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
