"""polars_fair: fairness audits of binary classifiers, as a Polars namespace.

``import polars_fair`` registers ``df.fair`` and ``lf.fair``. The rows are scanned once, by one
group-by into a small table of additive confusion counts; every metric is computed from it.
"""

from __future__ import annotations

from polars_fair import errors, expressions
from polars_fair.analysis import FairCounts, FairScores, counts, scores
from polars_fair.expressions import (
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
    marginal_benefit,
    npv,
    ppv,
    selection_rate,
    tnr,
    tpr,
    true_negatives,
    true_positives,
)
from polars_fair.external import from_counts, from_scores
from polars_fair.namespace import FairDataFrame, FairLazyFrame, fair

__version__ = "0.1.0"

__all__ = [
    "FairDataFrame",
    "FairLazyFrame",
    "fair",
    "counts",
    "scores",
    "from_counts",
    "from_scores",
    "FairCounts",
    "FairScores",
    "errors",
    "expressions",
    "accuracy",
    "balanced_accuracy",
    "base_rate",
    "confusion_counts",
    "false_negatives",
    "false_omission_rate",
    "false_positives",
    "fdr",
    "fnr",
    "fpr",
    "marginal_benefit",
    "npv",
    "ppv",
    "selection_rate",
    "tnr",
    "tpr",
    "true_negatives",
    "true_positives",
]
