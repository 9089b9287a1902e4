"""The ``fair`` namespace on ``pl.DataFrame`` and ``pl.LazyFrame``, and the typed accessor.

Sugar over the analysis objects: ``lf.fair.report(by, ..., **count_args)`` is
``lf.fair.counts(by, **count_args).report(...)``. Each method is written out (no ``__getattr__``
dispatch) so IDEs and type checkers see it; its count arguments are declared once
(:class:`polars_fair.core.spec.CountArgs`, typed through ``Unpack``) and spelled out in its runtime
signature and docstring, which are composed from the analysis' module function. A LazyFrame
method builds a lazy plan and never collects; the DataFrame method runs the same plan and
collects it.

Why one module: the namespace is one surface, every analysis written out once on the LazyFrame
and its DataFrame twin generated beside it; split, a method and its twin could drift apart.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar, Unpack, overload

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow, compose
from polars_fair.analyses.availability import (
    availability_from_counts,
    benchmark_attributes,
    check_benchmark_columns,
)
from polars_fair.analyses.continuous import SmdSd, continuous_report_from_moments
from polars_fair.analyses.impact import impact_from_counts
from polars_fair.analyses.pairwise import pairwise_from_counts
from polars_fair.analyses.report import rates_from_counts, report_from_counts
from polars_fair.analyses.scores.abroca import (
    abroca_from_scores,
    abroca_test_from_scores,
    roc_curves_from_scores,
)
from polars_fair.analyses.scores.calibration import calibration_plan, reliability_plan
from polars_fair.analyses.strata import check_strata, strata_names, stratified_from_counts
from polars_fair.analyses.summary import summary_from_counts
from polars_fair.analyses.sweep import DEFAULT_MAX_THRESHOLDS, SWEEP_THRESHOLDS, sweep_from_scores
from polars_fair.analyses.thresholds import THRESHOLD_GRID, thresholds_from_scores
from polars_fair.analyses.uncertainty import disparity_table, metrics_table
from polars_fair.api import continuous as _continuous
from polars_fair.api import objects as analysis
from polars_fair.api import rows as _ll144
from polars_fair.api.class_namespace import ClassNamespace
from polars_fair.api.compare import namespace_compare
from polars_fair.api.continuous import FairMoments
from polars_fair.api.membership_calibration import namespace_membership_calibration
from polars_fair.api.monitor import namespace_monitor
from polars_fair.api.objects import FairCounts, FairScores
from polars_fair.api.proxy_report import namespace_proxy_report
from polars_fair.api.rows import namespace_divergence
from polars_fair.core import spec
from polars_fair.core.options import (
    DEFAULTS,
    Adjust,
    Practical,
    Strategy,
    SummaryMethod,
    Test,
)
from polars_fair.core.spec import DEFAULT_MAX_GROUPS, By, CountArgs, IntoExpr, ScoreArgs
from polars_fair.counting.conversions import conversion_error

__all__ = ["FairDataFrame", "FairLazyFrame", "fair"]

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")

def _over(source: Callable[..., Any], example: str, *, scores: bool = False) -> Callable[[F], F]:
    """A namespace method's docstring and runtime signature, from its analysis.

    The count (or score) arguments come from their one declaration in :mod:`polars_fair.core.spec`.
    """

    def deco(method: F) -> F:
        method.__doc__ = compose(
            source.__doc__ or "",
            drop=("counts", "keys", "scores", "table", "score_dtype", "by", "combinations",
                  "max_order"),
            before=spec.BY_DOC, after=spec.SCORE_ARGS_DOC if scores else spec.COUNT_ARGS_DOC,
            raises=spec.INPUT_ERRORS_DOC, example=example, returns="pl.LazyFrame",
        )
        return spec.spell_out(method, scores)
    return deco


@borrow(ClassNamespace, params=("lf",))
class FairLazyFrame(ClassNamespace):
    """``lf.fair``: fairness audits of a LazyFrame. Every method returns a LazyFrame.

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> lf = pl.LazyFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 0]})
    >>> type(lf.fair).__name__
    'FairLazyFrame'
    """

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    @borrow(analysis.counts, params=("by",), sections=("Raises",))
    def counts(self, by: By = None, **count_args: Unpack[CountArgs]) -> FairCounts:
        """The count table of the rows, from one scan, with every classification analysis.

        Returns
        -------
        FairCounts
            ``.frame`` is the lazy count table; ``.report()``, ``.rates()``, ... the analyses.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> lf = pl.LazyFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 1]})
        >>> c = lf.fair.counts("g")
        >>> c.rates().collect()["selection_rate"].to_list()
        [1.0, 1.0]
        """
        return analysis.counts(self._lf, by, **count_args)

    counts = spec.spell_out(counts)
    counts.__doc__ = compose(counts.__doc__ or "", after=spec.COUNT_ARGS_DOC)

    @borrow(analysis.scores, params=("by",), sections=("Raises",))
    def score_counts(self, by: By = None, **score_args: Unpack[ScoreArgs]) -> FairScores:
        """The score table of the rows, from one scan, with every score-based analysis.

        Returns
        -------
        FairScores
            ``.frame`` is the lazy score table; ``.abroca()``, ``.sweep()``, ... the analyses.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> lf = pl.LazyFrame({"g": ["a", "a"], "y_true": [1, 0], "y_score": [0.9, 0.2]})
        >>> lf.fair.score_counts("g").abroca().collect()["auc"].to_list()
        [1.0]
        """
        return analysis.scores(self._lf, by, **score_args)

    score_counts = spec.spell_out(score_counts, scores=True)
    score_counts.__doc__ = compose(score_counts.__doc__ or "", after=spec.SCORE_ARGS_DOC)

    @_over(FairCounts.confusion, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
...                    "y_pred": [1, 1, 0, 0]})
>>> df.fair.confusion("g").rows()
[('a', 2, 1, 1, 0, 0), ('b', 2, 0, 0, 1, 1)]""")
    def confusion(self, by: By = None, **count_args: Unpack[CountArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.counts(by, **count_args).confusion()

    @_over(rates_from_counts, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 0, 0],
...                    "y_pred": [1, 1, 0, 0]})
>>> df.fair.rates("g").select("g", "selection_rate", "tpr").rows()
[('a', 1.0, 1.0), ('b', 0.0, None)]""")
    def rates(self, by: By = None, **count_args: Unpack[CountArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.counts(by, **count_args).rates()

    @_over(report_from_counts, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 2, "y_true": [1, 1, 0, 0, 1, 0],
...                    "y_pred": [1, 1, 1, 0, 0, 0]})
>>> r = df.fair.report("g", min_support=1)
>>> r.select("g", "selection_rate", "disparate_impact", "ofi", "finding").rows()
[('a', 0.75, 1.0, 0.0, 'none'), ('b', 0.0, 0.0, -0.75, 'algorithmic')]""")
    def report(self, by: By = None, *, reference: Any = DEFAULTS.reference,
               min_support: float = DEFAULTS.min_support,
               ofi_threshold: float = DEFAULTS.ofi_threshold,
               four_fifths: float = DEFAULTS.four_fifths,
               exclude_low_support: bool = DEFAULTS.exclude_low_support,
               **count_args: Unpack[CountArgs],
               ) -> pl.LazyFrame:  # noqa: D102
        return self.counts(by, **count_args).report(
            reference=reference, min_support=min_support, ofi_threshold=ofi_threshold,
            four_fifths=four_fifths, exclude_low_support=exclude_low_support)

    @_over(metrics_table, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 4, "y_true": [1, 1, 0, 0], "y_pred": [1, 0, 0, 0]})
>>> m = df.fair.metrics("g").filter(pl.col("metric") == "tpr")
>>> m.select("metric", "numerator", "denominator", "value", "low_support").row(0)
('tpr', 1, 2, 0.5, True)""")
    def metrics(self, by: By = None, *, level: float = DEFAULTS.level,
                min_support: float = DEFAULTS.min_support,
                **count_args: Unpack[CountArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.counts(by, **count_args).metrics(level=level, min_support=min_support)

    @_over(disparity_table, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 50 + ["b"] * 50, "y_true": [1, 0] * 50,
...                    "y_pred": [1] * 40 + [0] * 10 + [1] * 10 + [0] * 40})
>>> d = df.fair.disparity("g", reference="a")
>>> d.select("g", "value", "ratio", "significant").rows()
[('a', 0.8, 1.0, None), ('b', 0.2, 0.25, True)]""")
    def disparity(self, by: By = None, *, reference: Any = DEFAULTS.reference,
                  metric: str = DEFAULTS.metric, level: float = DEFAULTS.level,
                  test: Test = DEFAULTS.test,
                  adjust: Adjust = DEFAULTS.adjust,
                  **count_args: Unpack[CountArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.counts(by, **count_args).disparity(
            reference=reference, metric=metric, level=level, test=test, adjust=adjust)

    @_over(pairwise_from_counts, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
...                    "y_pred": [1, 1, 1, 0]})
>>> df.fair.pairwise("g").select("g_i", "g_j", "ofi", "disparate_impact").rows()
[('a', 'b', 0.5, 2.0), ('b', 'a', -0.5, 0.5)]""")
    def pairwise(self, by: By = None, *,
                 metrics: str | Sequence[str] = DEFAULTS.metrics,
                 max_pairs: int = DEFAULTS.max_pairs,
                 **count_args: Unpack[CountArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.counts(by, **count_args).pairwise(metrics=metrics, max_pairs=max_pairs)

    @_over(summary_from_counts, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
...                    "y_pred": [1, 1, 1, 0]})
>>> s = df.fair.summary("g", min_support=1)
>>> s.filter(pl.col("metric") == "demographic_parity_difference").select("value").item()
0.5""")
    def summary(self, by: By = None, *,
                method: SummaryMethod = DEFAULTS.method,
                reference: Any = DEFAULTS.reference, min_support: float = DEFAULTS.min_support,
                exclude_low_support: bool = DEFAULTS.exclude_low_support,
                four_fifths: float = DEFAULTS.four_fifths,
                ofi_threshold: float = DEFAULTS.ofi_threshold, **count_args: Unpack[CountArgs],
                ) -> pl.LazyFrame:  # noqa: D102
        return self.counts(by, **count_args).summary(
            method=method, reference=reference, min_support=min_support,
            exclude_low_support=exclude_low_support, four_fifths=four_fifths,
            ofi_threshold=ofi_threshold)

    @_over(impact_from_counts, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 80 + ["b"] * 40, "y_true": [1] * 120,
...                    "y_pred": [1] * 48 + [0] * 32 + [1] * 12 + [0] * 28})
>>> t = df.fair.impact_analysis("g")
>>> t.select("g", "selection_rate", "impact_ratio", "four_fifths_pass").rows()
[('a', 0.6, 1.0, True), ('b', 0.3, 0.5, False)]""")
    def impact_analysis(self, by: By = None, *, reference: Any = DEFAULTS.reference,
                        four_fifths: float = DEFAULTS.four_fifths,
                        level: float = DEFAULTS.level,
                        practical: Practical = DEFAULTS.practical,
                        min_difference: float = DEFAULTS.min_difference,
                        min_support: float = DEFAULTS.min_support,
                        **count_args: Unpack[CountArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.counts(by, **count_args).impact_analysis(
            reference=reference, four_fifths=four_fifths, level=level, practical=practical,
            min_difference=min_difference, min_support=min_support)

    @_over(stratified_from_counts, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"sex": ["F"] * 4 + ["M"] * 4, "dept": ["A", "B", "B", "B"] * 2,
...                    "y_true": [1] * 8, "y_pred": [1, 0, 0, 1, 1, 1, 0, 0]})
>>> s = df.fair.stratified("sex", "dept", reference="M")
>>> s.select("sex", "n_strata", "gap", "composition", "within").rows()
[('F', 1, 0.0, 0.0, 0.0), ('M', None, None, None, None)]""")
    def stratified(self, by: By = None, strata: str | Sequence[str] | None = None, *,
                   reference: Any = DEFAULTS.reference, level: float = DEFAULTS.level,
                   continuity_correction: bool = DEFAULTS.continuity_correction,
                   **count_args: Unpack[CountArgs]) -> pl.LazyFrame:  # noqa: D102
        attrs = spec.normalize_by(by)
        groups = [spec.name_of(g) for g in attrs]
        names = strata_names(strata, groups)
        # estimated membership: its attribute is a group attribute counted from the
        # probabilities (by may name it, as on the count table; it is not a column)
        member = _membership_attribute(count_args)
        if member is not None and member in names:  # estimated: no stratum can be made of it
            raise E.InvalidArgumentError(E.STRATA_IS_MEMBERSHIP.format(name=member))
        check_strata(names, self._lf.collect_schema().names(),
                     [*groups, *([member] if member and member not in groups else [])])
        counted = [a for a, g in zip(attrs, groups, strict=True) if g != member]
        return self.counts([*counted, *names], **count_args).stratified(
            by=None if member is None or member not in groups else groups, strata=names,
            reference=reference, level=level, continuity_correction=continuity_correction)

    @_over(availability_from_counts, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"sex": ["F"] * 30 + ["M"] * 70, "y_true": 1, "y_pred": 1})
>>> a = df.fair.availability("sex", {"sex": {"F": 0.5, "M": 0.5}})
>>> a.select("sex", "count", "shortfall", pl.col("p_value") < 0.001).rows()
[('F', 30, 20.0, True), ('M', 70, -20.0, True)]""")
    def availability(self, by: By = None,
                     benchmark: Mapping[str, Mapping[Any, float]] | None = None,
                     **count_args: Unpack[CountArgs]) -> pl.LazyFrame:  # noqa: D102
        # by=None: the benchmark's attributes; by given: each of them must be in by
        attributes: By = by
        # estimated membership: its attribute is counted from the probabilities, not a column
        member = _membership_attribute(count_args)
        names = [*self._lf.collect_schema().names(), *([member] if member else [])]
        if by is None:
            attributes = [a for a in benchmark_attributes(benchmark) if a != member]
            check_benchmark_columns(benchmark_attributes(benchmark), names)
        else:
            by_names = [spec.name_of(b) for b in spec.normalize_by(by)]
            check_benchmark_columns(benchmark_attributes(benchmark), [*names, *by_names],
                                    [*by_names, *([member] if member else [])])  # computed ok
            attributes = [b for b, n in zip(spec.normalize_by(by), by_names, strict=True)
                          if n != member]
        return self.counts(attributes or None, **count_args).availability(benchmark=benchmark)

    def bias_audit(self, categories: Sequence[IntoExpr], *, y_pred: IntoExpr | None = None,
                   y_score: IntoExpr | None = None, pos_label: Any = None,
                   sample_weight: IntoExpr | None = None, min_share: float = DEFAULTS.min_share,
                   exclude_small: bool = DEFAULTS.exclude_small,
                   classes: Sequence[Any] | None = None,
                   plain_benchmark: bool = DEFAULTS.plain_benchmark,
                   min_support: float = DEFAULTS.min_support,
                   membership: Mapping[str, Mapping[Any, IntoExpr]] | None = None,
                   membership_estimator: Literal["weighted", "argmax", "regression"] = "weighted",
                   normalize: bool = False,
                   max_groups: int = DEFAULT_MAX_GROUPS) -> pl.LazyFrame:  # noqa: D102
        return _ll144.bias_audit(self._lf, categories, y_pred=y_pred, y_score=y_score,
                                 pos_label=pos_label, sample_weight=sample_weight,
                                 min_share=min_share, exclude_small=exclude_small,
                                 classes=classes, membership=membership,
                                 membership_estimator=membership_estimator, normalize=normalize,
                                 max_groups=max_groups, plain_benchmark=plain_benchmark,
                                 min_support=min_support)

    bias_audit.__doc__ = compose(_ll144.bias_audit.__doc__ or "", drop=("frame",), example="""\
>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"sex": ["F", "F", "M", "M"], "y_pred": [1, 0, 1, 1]})
>>> a = df.fair.bias_audit(["sex"], y_pred="y_pred", min_share=0.0)
>>> a.select("sex", "selection_rate", "impact_ratio").rows()
[('F', 0.5, 0.5), ('M', 1.0, 1.0)]""")

    def scores(self, by: By = None, **score_args: Unpack[ScoreArgs]) -> pl.LazyFrame:
        """The score table: one row per (group, distinct score), from one scan.

        The public input of every score-based analysis (ROC curves, AUC, ABROCA, the
        permutation test, calibration, the threshold sweep).

        Parameters
        ----------
        by : str, pl.Expr or list of them, optional
            The attributes.
        **score_args
            ``y_true``, ``y_score``, ``pos_label``, ``sample_weight``, ``null_groups``.

        Returns
        -------
        pl.LazyFrame
            keys; ``score`` (Float64); ``positives``, ``negatives`` (Int64, or Float64 weighted
            sums followed by ``n_rows`` Int64), sorted by keys then score.

        Raises
        ------
        InvalidScoreError
            Null, NaN or infinite scores (their counts), at collect time.
        ColumnNotFoundError, InvalidLabelError, NullValuesError, EmptyFrameError
            As for the count table.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "a", "a"], "y_true": [1, 0, 1],
        ...                    "y_score": [0.9, 0.9, 0.2]})
        >>> df.fair.scores("g").rows()
        [('a', 0.2, 1, 0), ('a', 0.9, 1, 1)]
        """
        return self.score_counts(by, **score_args).frame

    scores = spec.spell_out(scores, scores=True)
    scores.__doc__ = compose(scores.__doc__ or "", drop=("**score_args",),
                             after=spec.SCORE_ARGS_DOC)

    @_over(abroca_from_scores, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0, 1, 0] * 2,
...                    "y_score": [0.9, 0.1, 0.8, 0.2, 0.9, 0.8, 0.1, 0.2]})
>>> df.fair.abroca("g", reference="a").select("g", "auc", "abroca").rows()
[('a', 1.0, 0.0), ('b', 0.5, 0.5)]""", scores=True)
    def abroca(self, by: By = None, *, reference: Any = DEFAULTS.reference,
               pairwise: bool = DEFAULTS.pairwise,
               **score_args: Unpack[ScoreArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.score_counts(by, **score_args).abroca(reference=reference, pairwise=pairwise)

    @_over(abroca_test_from_scores, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0, 1, 0] * 2,
...                    "y_score": [0.9, 0.1, 0.8, 0.2, 0.9, 0.8, 0.1, 0.2]})
>>> t = df.fair.abroca_test("g", reference="a", n_permutations=200, seed=0)
>>> 0 < t.filter(pl.col("g") == "b")["p_value"].item() <= 1
True""", scores=True)
    def abroca_test(self, by: By = None, *, reference: Any = DEFAULTS.reference,
                    n_permutations: int = DEFAULTS.n_permutations, seed: int | None = None,
                    tolerance: float = DEFAULTS.tolerance,
                    return_draws: bool = DEFAULTS.return_draws,
                    progress: bool | None = None, **score_args: Unpack[ScoreArgs],
                    ) -> pl.LazyFrame:  # noqa: D102
        return self.score_counts(by, **score_args).abroca_test(
            reference=reference, n_permutations=n_permutations, seed=seed, tolerance=tolerance,
            return_draws=return_draws, progress=progress)

    @_over(calibration_plan, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
...                    "y_score": [0.95, 0.05, 0.5, 0.5]})
>>> c = df.fair.calibration("g", n_bins=2)
>>> c.select("g", pl.col("ece", "ece_gap").round(6)).rows()
[('a', 0.05, 0.05), ('b', 0.0, 0.0)]""", scores=True)
    def calibration(self, by: By = None, *, n_bins: int = DEFAULTS.n_bins,
                    strategy: Strategy = DEFAULTS.strategy,
                    **score_args: Unpack[ScoreArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.score_counts(by, **score_args).calibration(n_bins=n_bins, strategy=strategy)

    @_over(reliability_plan, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a"], "y_true": [1, 0], "y_score": [0.9, 0.2]})
>>> df.fair.reliability("g", n_bins=2).select("bin", "n", "fraction_positive").rows()
[(0, 1, 0.0), (1, 1, 1.0)]""", scores=True)
    def reliability(self, by: By = None, *, n_bins: int = DEFAULTS.n_bins,
                    strategy: Strategy = DEFAULTS.strategy,
                    **score_args: Unpack[ScoreArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.score_counts(by, **score_args).reliability(n_bins=n_bins, strategy=strategy)

    @_over(sweep_from_scores, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 4, "y_true": [1, 0, 1, 0],
...                    "y_score": [0.9, 0.6, 0.4, 0.1]})
>>> df.fair.sweep("g", thresholds=[0.5, 0.3]).select("threshold", "tpr", "fpr").rows()
[(0.3, 1.0, 0.5), (0.5, 0.5, 0.5)]""", scores=True)
    def sweep(self, by: By = None, *, thresholds: Sequence[float] = SWEEP_THRESHOLDS,
              reference: Any = DEFAULTS.reference, min_support: float = DEFAULTS.min_support,
              ofi_threshold: float = DEFAULTS.ofi_threshold,
              four_fifths: float = DEFAULTS.four_fifths,
              exclude_low_support: bool = DEFAULTS.exclude_low_support,
              max_thresholds: int = DEFAULT_MAX_THRESHOLDS, max_groups: int = DEFAULT_MAX_GROUPS,
              **score_args: Unpack[ScoreArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.score_counts(by, **score_args).sweep(
            thresholds=thresholds, reference=reference, min_support=min_support,
            ofi_threshold=ofi_threshold, four_fifths=four_fifths,
            exclude_low_support=exclude_low_support, max_thresholds=max_thresholds,
            max_groups=max_groups)

    @_over(thresholds_from_scores, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
...                    "y_score": [0.9, 0.6, 0.8, 0.3]})
>>> t = df.fair.thresholds("g", thresholds=[0.5, 0.7], min_support=1)
>>> t.select("threshold", "accuracy", "min_impact_ratio", "all_pass").rows()
[(0.5, 0.75, 0.5, False), (0.7, 1.0, 1.0, True)]""", scores=True)
    def thresholds(self, by: By = None, *, thresholds: Sequence[float] = THRESHOLD_GRID,
                   reference: Any = DEFAULTS.reference, min_support: float = DEFAULTS.min_support,
                   ofi_threshold: float = DEFAULTS.ofi_threshold,
                   four_fifths: float = DEFAULTS.four_fifths,
                   exclude_low_support: bool = DEFAULTS.exclude_low_support,
                   max_thresholds: int = DEFAULT_MAX_THRESHOLDS,
                   max_groups: int = DEFAULT_MAX_GROUPS,
                   **score_args: Unpack[ScoreArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.score_counts(by, **score_args).thresholds(
            thresholds=thresholds, reference=reference, min_support=min_support,
            ofi_threshold=ofi_threshold, four_fifths=four_fifths,
            exclude_low_support=exclude_low_support, max_thresholds=max_thresholds,
            max_groups=max_groups)

    @_over(roc_curves_from_scores, """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 4, "y_true": [1, 0, 1, 0],
...                    "y_score": [0.9, 0.6, 0.4, 0.1]})
>>> df.fair.roc_curves("g").select("threshold", "fpr", "tpr").rows()
[(inf, 0.0, 0.0), (0.9, 0.0, 0.5), (0.6, 0.5, 0.5), (0.4, 0.5, 1.0), (0.1, 1.0, 1.0)]""",
           scores=True)
    def roc_curves(self, by: By = None,
                   **score_args: Unpack[ScoreArgs]) -> pl.LazyFrame:  # noqa: D102
        return self.score_counts(by, **score_args).roc_curves()

    divergence = namespace_divergence  # rows -> bins -> one count table -> patterns

    def moments(self, by: By = None, *, y_pred: IntoExpr | None = None,
                y_true: IntoExpr | None = None, sample_weight: IntoExpr | None = None,
                null_groups: spec.NullGroups = "keep",
                membership: None = None) -> FairMoments:  # noqa: D102
        return _continuous.moments(self._lf, by, y_pred=y_pred, y_true=y_true,
                                   sample_weight=sample_weight, null_groups=null_groups,
                                   membership=membership)

    moments.__doc__ = compose(_continuous.moments.__doc__ or "", drop=("frame",), example="""\
>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "b"], "rate": [1.0, 3.0, 2.0]})
>>> df.fair.moments("g", y_pred="rate").frame.collect()["m2_pred"].to_list()
[2.0, 0.0]""")

    def continuous_report(self, by: By = None, *, y_pred: IntoExpr | None = None,
                          y_true: IntoExpr | None = None, reference: Any = DEFAULTS.reference,
                          min_support: float = DEFAULTS.min_support,
                          level: float = DEFAULTS.level, smd_sd: SmdSd = "pooled",
                          sample_weight: IntoExpr | None = None,
                          null_groups: spec.NullGroups = "keep",
                          combinations: None = None,
                          membership: None = None) -> pl.LazyFrame:  # noqa: D102
        _continuous.refuse_sets("continuous_report", combinations, by)
        spec.refuse_membership({"membership": membership}, "continuous_report", "moment table")
        return self.moments(by, y_pred=y_pred, y_true=y_true, sample_weight=sample_weight,
                            null_groups=null_groups).continuous_report(
            reference=reference, min_support=min_support, level=level, smd_sd=smd_sd)

    continuous_report.__doc__ = compose(
        continuous_report_from_moments.__doc__ or "", drop=("moments", "keys"),
        before=spec.BY_DOC, after=_continuous.MOMENT_ARGS_DOC + "\n" + E.ONE_SET_DOC + "\n"
        + E.MEMBERSHIP_REFUSED_DOC,
        raises=_continuous.MOMENT_ERRORS_DOC,
        example=""">>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b"],
...                    "rate": [1.0, 2.0, 3.0, 2.0, 3.0, 4.0]})
>>> r = df.fair.continuous_report("g", y_pred="rate", reference="a", min_support=1)
>>> r.select("g", "mean", "mean_difference", "smd").rows()
[('a', 2.0, 0.0, 0.0), ('b', 3.0, 1.0, 1.0)]""", returns="pl.LazyFrame")

    compare = namespace_compare  # rows -> the paired count table -> the comparison
    # rows -> the membership calibration table -> reliability and ECE per group
    membership_calibration = namespace_membership_calibration
    monitor = namespace_monitor  # rows -> the period count table -> the sequences
    proxy_report = namespace_proxy_report  # rows -> the membership table -> three estimators


#: The methods whose ``**count_args`` go straight to :func:`polars_fair.core.spec.resolve`
#: (their own tables): its keywords (and ``membership=``, which they refuse with a reason).
_RESOLVED = ("compare", "monitor")


def _keywords_checked(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    """``method``, refusing a keyword it does not take with report's typed "did you mean".

    Methods over ``**count_args`` (or score, class arguments) check them where they are
    counted (:data:`polars_fair.errors.UNKNOWN_ARGUMENT`); the others, whose keywords are all
    named (or, for :data:`_RESOLVED`, :func:`~polars_fair.core.spec.resolve`'s), get the
    same message here instead of Python's ``TypeError``.
    """
    params = inspect.signature(method).parameters
    named = [p for p in params if p != "self"
             and params[p].kind in (inspect.Parameter.KEYWORD_ONLY,
                                    inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    if name in _RESOLVED:
        given = inspect.signature(spec.resolve).parameters
        named += [p for p in given if given[p].kind is inspect.Parameter.KEYWORD_ONLY
                  and p not in named] + [p for p in spec.MEMBERSHIP_ARGS if p not in given]

    @functools.wraps(method)
    def run(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        # membership= where not taken: the method refuses it itself, saying why
        unknown = [k for k in kwargs if k not in named and k not in spec.MEMBERSHIP_ARGS]
        if unknown:
            raise E.InvalidArgumentError(E.UNKNOWN_ARGUMENT.format(
                names=unknown, what=name, valid=named, hint=E.closest(unknown, named)))
        return method(self, *args, **kwargs)

    return run


for _name, _method in list(vars(FairLazyFrame).items()):
    # the code's own **kwargs, not a signature written over it (score methods show ScoreArgs)
    if not _name.startswith("_") and inspect.isfunction(_method) and (
            _name in _RESOLVED or not inspect.unwrap(_method).__code__.co_flags
            & inspect.CO_VARKEYWORDS):
        setattr(FairLazyFrame, _name, _keywords_checked(_name, _method))


def _membership_attribute(count_args: Mapping[str, Any]) -> str | None:
    """The attribute of a call's ``membership=`` (its one key), or ``None`` without it.

    A malformed mapping is left to the count table's own check, which names the problem.
    """
    membership = count_args.get("membership")
    if isinstance(membership, Mapping) and len(membership) == 1:
        (attribute,) = membership
        return attribute if isinstance(attribute, str) else None
    return None


def _delegated(
    method: Callable[Concatenate[FairLazyFrame, P], R],
) -> Callable[Concatenate[FairDataFrame, P], R]:
    """A LazyFrame method on the DataFrame's lazy frame, returning what it returns."""

    @functools.wraps(method)
    def run(self: FairDataFrame, /, *args: P.args, **kwargs: P.kwargs) -> R:
        return method(self._lazy, *args, **kwargs)

    return run


def _failed_argument(message: str, kwargs: dict[str, Any]) -> str:
    """The keyword argument whose expression Polars names in ``message`` (or a generic role)."""
    for name, value in kwargs.items():
        if isinstance(value, pl.Expr) and str(value) in message:
            return name
    return "an argument's expression"


def _collected(
    method: Callable[Concatenate[FairLazyFrame, P], pl.LazyFrame],
) -> Callable[Concatenate[FairDataFrame, P], pl.DataFrame]:
    """The DataFrame twin of a LazyFrame method: the same plan, collected."""

    @functools.wraps(method)
    def run(self: FairDataFrame, /, *args: P.args, **kwargs: P.kwargs) -> pl.DataFrame:
        try:
            return method(self._lazy, *args, **kwargs).collect()
        except pl.exceptions.PolarsError as exc:  # a failed cast: no value (names, birth dates)
            bound = [(v, k) for k, v in kwargs.items() if isinstance(v, pl.Expr)]
            hidden = conversion_error(str(exc), bound, self._lazy._lf,
                                      _failed_argument(str(exc), kwargs))
            if hidden is None:
                raise
            raise hidden from None

    sig = inspect.signature(method)
    run.__signature__ = sig.replace(return_annotation=pl.DataFrame)  # type: ignore[attr-defined]
    del run.__wrapped__
    if run.__doc__:
        run.__doc__ = run.__doc__.replace("Returns\n-------\npl.LazyFrame",
                                          "Returns\n-------\npl.DataFrame", 1)
    return run


class FairDataFrame:
    """``df.fair``: the methods of :class:`FairLazyFrame`, run on ``df.lazy()`` and collected.

    Each returns a ``pl.DataFrame`` with exactly the schema of the LazyFrame method;
    ``counts`` and ``score_counts`` return the same analysis objects.

    Parameters
    ----------
    df : pl.DataFrame
        The rows to audit.

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> df = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 0]})
    >>> df.fair.confusion("g")["n"].to_list()
    [1, 1]
    """

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df
        self._lazy = FairLazyFrame(df.lazy())

    counts = _delegated(FairLazyFrame.counts)
    score_counts = _delegated(FairLazyFrame.score_counts)
    confusion = _collected(FairLazyFrame.confusion)
    rates = _collected(FairLazyFrame.rates)
    report = _collected(FairLazyFrame.report)
    metrics = _collected(FairLazyFrame.metrics)
    disparity = _collected(FairLazyFrame.disparity)
    pairwise = _collected(FairLazyFrame.pairwise)
    summary = _collected(FairLazyFrame.summary)
    impact_analysis = _collected(FairLazyFrame.impact_analysis)
    stratified = _collected(FairLazyFrame.stratified)
    availability = _collected(FairLazyFrame.availability)
    bias_audit = _collected(FairLazyFrame.bias_audit)
    scores = _collected(FairLazyFrame.scores)
    abroca = _collected(FairLazyFrame.abroca)
    abroca_test = _collected(FairLazyFrame.abroca_test)
    calibration = _collected(FairLazyFrame.calibration)
    reliability = _collected(FairLazyFrame.reliability)
    sweep = _collected(FairLazyFrame.sweep)
    thresholds = _collected(FairLazyFrame.thresholds)
    roc_curves = _collected(FairLazyFrame.roc_curves)
    divergence = _collected(FairLazyFrame.divergence)
    moments = _delegated(FairLazyFrame.moments)
    continuous_report = _collected(FairLazyFrame.continuous_report)
    compare = _collected(FairLazyFrame.compare)
    monitor = _collected(FairLazyFrame.monitor)
    membership_calibration = _collected(FairLazyFrame.membership_calibration)
    proxy_report = _collected(FairLazyFrame.proxy_report)

    class_counts = _delegated(FairLazyFrame.class_counts)
    multiclass_report = _collected(FairLazyFrame.multiclass_report)
    multiclass_test = _collected(FairLazyFrame.multiclass_test)


@overload
def fair(frame: pl.DataFrame) -> FairDataFrame: ...
@overload
def fair(frame: pl.LazyFrame) -> FairLazyFrame: ...
def fair(frame: pl.DataFrame | pl.LazyFrame) -> FairDataFrame | FairLazyFrame:
    """Typed accessor: ``fair(df)`` is ``df.fair``, visible to type checkers.

    Parameters
    ----------
    frame : pl.DataFrame or pl.LazyFrame

    Returns
    -------
    FairDataFrame or FairLazyFrame

    Raises
    ------
    TypeError
        Any other object.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import fair
    >>> df = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 0]})
    >>> fair(df).confusion("g")["n"].to_list()
    [1, 1]
    """
    if isinstance(frame, pl.LazyFrame):
        return FairLazyFrame(frame)
    if isinstance(frame, pl.DataFrame):
        return FairDataFrame(frame)
    raise TypeError(f"fair() takes a polars DataFrame or LazyFrame, got {type(frame).__name__}")


pl.api.register_lazyframe_namespace("fair")(FairLazyFrame)
pl.api.register_dataframe_namespace("fair")(FairDataFrame)
