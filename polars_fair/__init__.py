"""polars_fair: fairness audits of binary classifiers, as a Polars namespace.

``import polars_fair`` registers ``df.fair`` and ``lf.fair``. The rows are scanned once, by one
group-by into a small table of additive confusion counts; every metric is computed from it.
"""

from __future__ import annotations

from polars_fair import _moved, errors
from polars_fair.analyses.sample_size import SampleSize, sample_size
from polars_fair.api.classes import FairClassCounts, class_counts, from_class_counts
from polars_fair.api.compare import FairPaired, from_paired_counts, paired_counts
from polars_fair.api.continuous import FairMoments, from_moments, moments
from polars_fair.api.external import from_counts, from_scores
from polars_fair.api.membership_calibration import membership_calibration
from polars_fair.api.monitor import FairPeriods, from_period_counts, period_counts
from polars_fair.api.namespace import FairDataFrame, FairLazyFrame, fair
from polars_fair.api.objects import FairCounts, FairScores, counts, scores
from polars_fair.api.proxy_report import FairProxyCounts, proxy_counts, proxy_report
from polars_fair.core import expressions
from polars_fair.core.expressions import (
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

__version__ = "0.1.0"

_moved.install()  # the modules that moved into subpackages keep their old paths for one release

__all__ = [
    "FairDataFrame",
    "FairLazyFrame",
    "fair",
    "counts",
    "scores",
    "from_counts",
    "from_scores",
    "moments",
    "from_moments",
    "FairMoments",
    "from_paired_counts",
    "paired_counts",
    "FairPaired",
    "from_period_counts",
    "period_counts",
    "FairPeriods",
    "membership_calibration",
    "proxy_counts",
    "proxy_report",
    "FairProxyCounts",
    "class_counts",
    "from_class_counts",
    "FairClassCounts",
    "FairCounts",
    "FairScores",
    "SampleSize",
    "sample_size",
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


def __getattr__(name: str) -> object:
    """A layered subpackage on first access, loaded then and not at import.

    A documented dotted path works after ``import polars_fair`` alone
    (``polars_fair.audit.gate.gate``).

    Examples
    --------
    >>> import polars_fair
    >>> polars_fair.audit.gate.gate.__name__
    'gate'
    """
    import importlib

    if name not in _SUBPACKAGES:
        raise AttributeError(f"module 'polars_fair' has no attribute {name!r}")
    return importlib.import_module(f"polars_fair.{name}")


#: The layered subpackages reached as attributes (:func:`__getattr__`).
_SUBPACKAGES = ("analyses", "api", "audit", "cli", "core", "counting")
