"""The metric registry: one entry per metric, and everything else derives from it.

Each :class:`Metric` states a metric once: its name, its formula over the confusion counts
(numerator and denominator, or a value of its own), its title, range, unit and source, whether it
is a proportion (a numerator that counts a subset of its denominator, so a Wilson interval and a
two-proportion test apply), and which interval it gets. The row-level expression functions
(``polars_fair.tpr()``, ...), the ``rates``/``report`` columns, ``metrics``' tidy rows, the
``pairwise`` ``<rate>_difference``/``<rate>_ratio`` columns, chart and table titles, the HTML
definitions and the docstring tables are all generated from :data:`METRICS`.

Pairwise metrics that are not a plain difference or ratio of one rate (OFI, disparate impact,
the average odds differences) are :class:`PairMetric` entries in :data:`PAIR_METRICS`.

Adding a metric is one entry here (and its tests).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import polars as pl

__all__ = [
    "Counts",
    "METRICS",
    "Metric",
    "PAIR_METRICS",
    "PairMetric",
    "RATE_NAMES",
    "PROPORTIONS",
    "metric",
    "metric_table",
    "safe_div",
]


@dataclass(frozen=True)
class Counts:
    """The five confusion counts as expressions (columns of a count table, or aggregations).

    Parameters
    ----------
    n : pl.Expr
        The group's size: rows, or the weight sum of a weighted table.
    tp, fp, fn, tn : pl.Expr
        True positives, false positives, false negatives, true negatives.

    Examples
    --------
    >>> import polars as pl
    >>> c = Counts(pl.lit(10), pl.lit(4), pl.lit(1), pl.lit(1), pl.lit(4))
    >>> pl.select(r=safe_div(c.tp, c.tp + c.fn)).item()
    0.8
    """

    n: pl.Expr
    tp: pl.Expr
    fp: pl.Expr
    fn: pl.Expr
    tn: pl.Expr

    @classmethod
    def columns(cls, weighted: bool = False) -> Counts:
        """The counts as columns of a count table; ``n`` is ``weight_sum`` when weighted.

        Parameters
        ----------
        weighted : bool, default False
            The table is weighted: ``n`` reads its ``weight_sum`` column.

        Returns
        -------
        Counts
            ``pl.col`` expressions of ``n`` (or ``weight_sum``), ``tp``, ``fp``, ``fn``, ``tn``.

        Examples
        --------
        >>> Counts.columns(weighted=True).n.meta.output_name()
        'weight_sum'
        """
        n = pl.col("weight_sum") if weighted else pl.col("n")
        return cls(n, pl.col("tp"), pl.col("fp"), pl.col("fn"), pl.col("tn"))


Formula = Callable[[Counts], pl.Expr]


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


@dataclass(frozen=True)
class Metric:
    """One metric computed from a group's confusion counts.

    ``value`` defaults to ``numerator / denominator`` (null when the denominator is 0); a metric
    that is not one ratio of counts (balanced accuracy) gives ``value_formula`` and no
    numerator or denominator.

    Parameters
    ----------
    name : str
        The column name in ``rates``/``report`` and the ``metric`` value in ``metrics``.
    numerator, denominator : callable or None
        ``Counts -> pl.Expr``; None for a metric with a ``value_formula``.
    title : str
        A human title for charts and tables.
    formula : str
        The formula as text, for tables and docstrings.
    source : str
        Where the metric is defined.
    low, high : float, default 0.0, 1.0
        The range of the metric.
    unit : str, default "share of the denominator, in [0, 1]"
        What a value measures, for docstrings.
    proportion : bool, default True
        The numerator counts a subset of the denominator (Wilson interval, two-proportion
        tests, ``disparity``).
    interval : {"wilson", "wald"} or None, default "wilson"
        ``"wilson"`` for proportions, ``"wald"`` for a difference of multinomial shares,
        ``None`` where no single numerator/denominator interval applies (balanced accuracy:
        :func:`polars_fair.analyses.uncertainty.metrics_table` gives it the MOVER interval of a mean
        of its two proportions, see :data:`polars_fair.analyses.uncertainty.MEAN_OF_RATES`).
    harm : {"lower", "higher"} or None, default None
        The direction that harms a group when the positive outcome is favourable
        (``"lower"``: a lower selection rate or TPR harms; ``"higher"``: a higher FPR or FNR
        harms).
    function : str, optional
        The row-level expression's name when ``name`` cannot be one (``for`` is a keyword).
    value_formula : callable, optional
        ``Counts -> pl.Expr``: the value of a metric that is not one ratio of counts.

    Examples
    --------
    >>> import polars as pl
    >>> m = Metric("fdr", lambda c: c.fp, lambda c: c.tp + c.fp, "False discovery rate",
    ...            "FP/(TP+FP)", "1 − PPV")
    >>> c = Counts(pl.lit(10), pl.lit(4), pl.lit(1), pl.lit(1), pl.lit(4))
    >>> pl.select(m.value(c)).item()
    0.2
    """

    name: str
    numerator: Formula | None
    denominator: Formula | None
    title: str
    formula: str
    source: str
    low: float = 0.0
    high: float = 1.0
    unit: str = "share of the denominator, in [0, 1]"
    proportion: bool = True
    interval: Literal["wilson", "wald"] | None = "wilson"
    harm: Literal["lower", "higher"] | None = None
    function: str | None = None  # row-level expression name, when ``name`` cannot be one
    value_formula: Formula | None = None

    @property
    def function_name(self) -> str:
        """The name of the row-level expression function (``for`` is a keyword)."""
        return self.function or self.name

    def value(self, counts: Counts) -> pl.Expr:
        """The metric from count expressions (Float64, null where undefined), aliased.

        Parameters
        ----------
        counts : Counts
            The confusion counts as expressions.

        Returns
        -------
        pl.Expr
            Float64, named ``self.name``; null where a denominator is 0.

        Examples
        --------
        >>> import polars as pl
        >>> c = Counts(pl.lit(10), pl.lit(0), pl.lit(0), pl.lit(5), pl.lit(5))
        >>> pl.select(METRICS["fdr"].value(c), METRICS["balanced_accuracy"].value(c)).row(0)
        (None, 0.5)
        """
        if self.value_formula is not None:
            return self.value_formula(counts).cast(pl.Float64).alias(self.name)
        assert self.numerator is not None and self.denominator is not None
        return safe_div(self.numerator(counts), self.denominator(counts)).alias(self.name)


def _balanced_accuracy(c: Counts) -> pl.Expr:
    return (safe_div(c.tp, c.tp + c.fn) + safe_div(c.tn, c.tn + c.fp)) / 2


_METRICS = (
    Metric("selection_rate", lambda c: c.tp + c.fp, lambda c: c.n, "Selection rate", "(TP+FP)/n",
           "demographic parity; the selection rate of 29 CFR 1607.4(D) and NYC LL 144",
           harm="lower"),
    Metric("base_rate", lambda c: c.tp + c.fn, lambda c: c.n, "Base rate", "(TP+FN)/n",
           "prevalence of the positive label"),
    Metric("tpr", lambda c: c.tp, lambda c: c.tp + c.fn, "True positive rate", "TP/(TP+FN)",
           "recall; equal opportunity, equalized odds (Hardt et al. 2016)", harm="lower"),
    Metric("fpr", lambda c: c.fp, lambda c: c.fp + c.tn, "False positive rate", "FP/(FP+TN)",
           "equalized odds (Hardt et al. 2016)", harm="higher"),
    Metric("tnr", lambda c: c.tn, lambda c: c.tn + c.fp, "True negative rate", "TN/(TN+FP)",
           "specificity", harm="lower"),
    Metric("fnr", lambda c: c.fn, lambda c: c.fn + c.tp, "False negative rate", "FN/(FN+TP)",
           "miss rate (ProPublica's FNR gap)", harm="higher"),
    Metric("ppv", lambda c: c.tp, lambda c: c.tp + c.fp, "Positive predictive value",
           "TP/(TP+FP)", "precision; predictive parity (Chouldechova 2017)", harm="lower"),
    Metric("npv", lambda c: c.tn, lambda c: c.tn + c.fn, "Negative predictive value",
           "TN/(TN+FN)", "predictive parity of the negative class", harm="lower"),
    Metric("fdr", lambda c: c.fp, lambda c: c.tp + c.fp, "False discovery rate", "FP/(TP+FP)",
           "1 − PPV; AIF360 false_discovery_rate", harm="higher"),
    Metric("for", lambda c: c.fn, lambda c: c.fn + c.tn, "False omission rate", "FN/(FN+TN)",
           "1 − NPV; AIF360 false_omission_rate", harm="higher", function="false_omission_rate"),
    Metric("accuracy", lambda c: c.tp + c.tn, lambda c: c.n, "Accuracy", "(TP+TN)/n",
           "share of correct predictions", harm="lower"),
    Metric("balanced_accuracy", None, None, "Balanced accuracy",
           "(TPR+TNR)/2", "Brodersen et al. 2010; scikit-learn balanced_accuracy_score",
           proportion=False, interval=None, harm="lower", value_formula=_balanced_accuracy,
           unit="mean of two rates, in [0, 1]"),
    Metric("marginal_benefit", lambda c: c.fp - c.fn, lambda c: c.n, "Marginal benefit",
           "(FP−FN)/n", "Briscoe et al., Facets of Disparate Impact (OFI paper), Def. 2.6",
           low=-1.0, high=1.0, unit="difference of two shares, in [−1, 1]", proportion=False,
           interval="wald"),
)

#: name -> :class:`Metric`: the only definition of every per-group metric in the package.
METRICS: dict[str, Metric] = {m.name: m for m in _METRICS}
#: Every per-group metric, in the order of the ``rates`` columns.
RATE_NAMES: tuple[str, ...] = tuple(METRICS)
#: The metrics that are proportions (``disparity`` and the Wilson intervals take these).
PROPORTIONS: tuple[str, ...] = tuple(m.name for m in _METRICS if m.proportion)


def metric(name: str) -> Metric:
    """The registry entry of ``name``.

    Parameters
    ----------
    name : str
        A key of :data:`METRICS`.

    Returns
    -------
    Metric

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        An unknown name; the message lists the metrics.

    Examples
    --------
    >>> metric("tpr").formula
    'TP/(TP+FN)'
    """
    if name not in METRICS:
        from polars_fair import errors as E

        raise E.InvalidArgumentError(
            E.UNKNOWN_METRIC.format(metric=name, valid=E.show_values(RATE_NAMES, limit=40))
            + E.closest([str(name)], RATE_NAMES, cutoff=E.VALUE_CUTOFF)  # "tprr": 'tpr'
        )
    return METRICS[name]


Side = Callable[[str], pl.Expr]  # a rate's column on one side of a pair


@dataclass(frozen=True)
class PairMetric:
    """A disparity between two groups ``i`` and ``j`` computed from their rates.

    Parameters
    ----------
    name : str
        The column name in ``pairwise``.
    rates : tuple of str
        The per-group metrics (:data:`METRICS`) that ``expr`` reads.
    expr : callable
        ``expr(i, j) -> pl.Expr``: receives, for each side, a function from a rate name to that
        side's column.
    title : str
        A human title.
    formula : str
        The formula as text.
    source : str
        Where the metric is defined.
    low, high : float
        The range of the metric.
    identity : float, default 0.0
        The value of a group compared with itself (the diagonal of ``pairwise_matrix``).

    Examples
    --------
    >>> aod = PAIR_METRICS["average_odds_difference"]
    >>> aod.rates, aod.identity
    (('fpr', 'tpr'), 0.0)
    """

    name: str
    rates: tuple[str, ...]
    expr: Callable[[Side, Side], pl.Expr]
    title: str
    formula: str
    source: str
    low: float
    high: float
    identity: float = 0.0  # the value of a group compared with itself


def _ratio(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    # rates are >= 0 except marginal_benefit, whose ratio keeps its sign; only 0 is undefined
    return pl.when(b != 0).then(a / b).otherwise(None)


def _difference_of(rate: str) -> Callable[[Side, Side], pl.Expr]:
    return lambda i, j: i(rate) - j(rate)


def _ratio_of(rate: str) -> Callable[[Side, Side], pl.Expr]:
    return lambda i, j: _ratio(i(rate), j(rate))


def _pair_metrics() -> dict[str, PairMetric]:
    named = [
        PairMetric("ofi", ("marginal_benefit",),
                   lambda i, j: i("marginal_benefit") - j("marginal_benefit"),
                   "Objective Fairness Index", "B_i − B_j, B = (FP−FN)/n",
                   "Briscoe et al., Facets of Disparate Impact (OFI paper), eq. 5", -2.0, 2.0),
        PairMetric("disparate_impact", ("selection_rate",),
                   lambda i, j: _ratio(i("selection_rate"), j("selection_rate")),
                   "Disparate impact", "selection_rate_i / selection_rate_j",
                   "OFI paper Def. 2.1; the disparate impact ratio of 29 CFR 1607.4(D)",
                   0.0, float("inf"), identity=1.0),
        PairMetric("average_odds_difference", ("fpr", "tpr"),
                   lambda i, j: ((i("fpr") - j("fpr")) + (i("tpr") - j("tpr"))) / 2,
                   "Average odds difference", "½[(FPR_i − FPR_j) + (TPR_i − TPR_j)]",
                   "AIF360 ClassificationMetric.average_odds_difference", -1.0, 1.0),
        PairMetric("average_absolute_odds_difference", ("fpr", "tpr"),
                   lambda i, j: ((i("fpr") - j("fpr")).abs() + (i("tpr") - j("tpr")).abs()) / 2,
                   "Average absolute odds difference", "½[|FPR_i − FPR_j| + |TPR_i − TPR_j|]",
                   "AIF360 ClassificationMetric.average_abs_odds_difference", 0.0, 1.0),
    ]
    out = {p.name: p for p in named}
    for m in _METRICS:
        out[f"{m.name}_difference"] = PairMetric(
            f"{m.name}_difference", (m.name,),
            _difference_of(m.name),
            f"{m.title} difference", f"{m.name}_i − {m.name}_j", m.source,
            m.low - m.high, m.high - m.low,
        )
    for m in _METRICS:
        out[f"{m.name}_ratio"] = PairMetric(
            f"{m.name}_ratio", (m.name,), _ratio_of(m.name),
            f"{m.title} ratio", f"{m.name}_i / {m.name}_j", m.source, -float("inf"),
            float("inf"), identity=1.0,
        )
    return out


#: name -> :class:`PairMetric`: every metric ``pairwise`` can compute, in a fixed order.
PAIR_METRICS: dict[str, PairMetric] = _pair_metrics()


def metric_table() -> pl.DataFrame:
    """The registry as a table: one row per metric (per-group, then pairwise).

    Returns
    -------
    pl.DataFrame
        ``name``, ``kind`` (``"group"`` or ``"pair"``), ``title``, ``formula``, ``source``
        (String); ``low``, ``high`` (Float64: the range); ``proportion`` (Boolean).

    Examples
    --------
    >>> t = metric_table()
    >>> t.filter(pl.col("name") == "tpr").select("formula", "proportion").row(0)
    ('TP/(TP+FN)', True)
    """
    rows = [(m.name, "group", m.title, m.formula, m.source, m.low, m.high, m.proportion)
            for m in _METRICS]
    rows += [(p.name, "pair", p.title, p.formula, p.source, p.low, p.high, False)
             for p in PAIR_METRICS.values()]
    return pl.DataFrame(
        rows, orient="row",
        schema={"name": pl.String, "kind": pl.String, "title": pl.String, "formula": pl.String,
                "source": pl.String, "low": pl.Float64, "high": pl.Float64,
                "proportion": pl.Boolean},
    )
