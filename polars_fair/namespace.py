"""The ``fair`` namespace on ``pl.DataFrame`` and ``pl.LazyFrame``, and the typed accessor.

Every method is written out here (no ``__getattr__`` dispatch) so IDEs and type checkers see it.
A LazyFrame method builds a lazy plan and never collects; the DataFrame method runs the same plan
(``df.lazy()``) and collects it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Concatenate, Literal, ParamSpec, TypeVar, overload

import polars as pl

from polars_fair import errors as E
from polars_fair import tables, uncertainty
from polars_fair.abroca import abroca_plan, abroca_test_plan
from polars_fair.calibration import calibration_plan, reliability_plan
from polars_fair.expressions import IntoExpr
from polars_fair.report import (
    analyse,
    rates_from_counts,
    reference_for,
    report_builder,
    with_rates,
)
from polars_fair.tables import By, NullGroups

F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")

COMMON = """by : str, pl.Expr or list of them
        The attribute(s) defining the groups; several entries mean their intersection
        (``["race", "sex"]``). ``None`` or ``[]`` gives one row for the whole population.
    y_true : str or pl.Expr, default ``"y_true"``
        The true label column.
    y_pred : str or pl.Expr, default ``"y_pred"``
        The predicted label column.
    pos_label : Any, default 1
        The value meaning the positive (favourable) outcome, of the columns' dtype
        (``1``, ``"yes"``, ``True``, ...). Each column must hold it and at most one other value.
    sample_weight : str or pl.Expr, optional
        Row weights. The four cells become Float64 weighted sums, ``n`` stays the row count and
        ``weight_sum`` is added; rates use ``weight_sum`` as the population size.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows whose attribute is null: kept as a group of their own, an error, or dropped with a
        warning that gives their number.
    y_score, threshold : str or pl.Expr, float, optional
        Instead of ``y_pred``: predictions are ``y_score >= threshold`` (positive = ``True``).
    combinations : "all", optional
        Audit every non-empty subset of the ``by`` attributes (race; sex; race × sex; ...), up
        to ``max_order`` attributes, in one scan at the finest level; coarser sets are summed
        from its count table. ``by`` may also be a list of attribute sets
        (``[["race"], ["race", "sex"]]``). Either way the result starts with ``attributes``
        (List(String): the attributes defining each row, so a null key is never ambiguous)
        and every key column, null outside the row's set; each analysis (reference group,
        maximum rate, pairs, tests) runs within its set.
    max_order : int, optional
        The largest intersection with ``combinations="all"``."""

ERRORS = """ColumnNotFoundError
        A named column is missing (the message lists the columns that exist). Raised at once.
    InvalidLabelError
        A label/prediction column holds values other than ``pos_label`` and one other value, a
        prediction column holds scores, or ``pos_label`` occurs in neither column.
    NullValuesError
        Nulls in the label or prediction column.
    EmptyFrameError
        No rows to audit.
    NullGroupError, TooManyLevelsError, InvalidWeightError, InvalidScoreError
        See :mod:`polars_fair.errors`.

    Data errors of a LazyFrame surface when the result is collected, never as numbers."""


def _doc(func: F) -> F:
    if func.__doc__:
        func.__doc__ = func.__doc__.replace("{COMMON}", COMMON).replace("{ERRORS}", ERRORS)
    return func


class FairLazyFrame:
    """``lf.fair``: fairness audits of a LazyFrame. Every method returns a LazyFrame."""

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    def _counted(self, by: By, **kwargs: Any) -> tables.Counted:
        return tables.count_tables(self._lf, by, **kwargs)

    @_doc
    def confusion(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr | None = "y_pred",
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
        y_score: IntoExpr | None = None,
        threshold: float | None = None,
        combinations: Literal["all"] | None = None,
        max_order: int | None = None,
    ) -> pl.LazyFrame:
        """Confusion counts per group, from one scan of the frame: the count table.

        Computed by one ``group_by`` of the additive sums ``n, Σy, Σŷ, Σy·ŷ`` (Int64), from which
        ``tp = Σy·ŷ``, ``fp = Σŷ − tp``, ``fn = Σy − tp``, ``tn = n − Σy − Σŷ + tp``.

        Parameters
        ----------
        {COMMON}

        Returns
        -------
        pl.LazyFrame
            One row per group, sorted by the keys (nulls last): the key columns, then
            ``n, tp, fp, fn, tn`` (Int64 row counts; Float64 weighted sums for the four cells
            with ``sample_weight``, followed by ``weight_sum``). This is the public count-table
            schema that every analysis reads.

        Raises
        ------
        {ERRORS}

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
        ...                    "y_pred": [1, 1, 0, 0]})
        >>> df.lazy().fair.confusion("g").collect()
        shape: (2, 6)
        ┌─────┬─────┬─────┬─────┬─────┬─────┐
        │ g   ┆ n   ┆ tp  ┆ fp  ┆ fn  ┆ tn  │
        │ --- ┆ --- ┆ --- ┆ --- ┆ --- ┆ --- │
        │ str ┆ i64 ┆ i64 ┆ i64 ┆ i64 ┆ i64 │
        ╞═════╪═════╪═════╪═════╪═════╪═════╡
        │ a   ┆ 2   ┆ 1   ┆ 1   ┆ 0   ┆ 0   │
        │ b   ┆ 2   ┆ 0   ┆ 0   ┆ 1   ┆ 1   │
        └─────┴─────┴─────┴─────┴─────┴─────┘
        """
        return self._counted(
            by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, sample_weight=sample_weight,
            null_groups=null_groups, y_score=y_score, threshold=threshold,
            combinations=combinations, max_order=max_order,
        ).frame

    @_doc
    def rates(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr | None = "y_pred",
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
        y_score: IntoExpr | None = None,
        threshold: float | None = None,
        combinations: Literal["all"] | None = None,
        max_order: int | None = None,
    ) -> pl.LazyFrame:
        """Classification rates per group, from the count table.

        ==================== ========================= =====================================
        column               formula                   source / use
        ==================== ========================= =====================================
        ``selection_rate``   (TP+FP)/n                 demographic parity; 29 CFR 1607.4(D)
        ``base_rate``        (TP+FN)/n                 prevalence of the positive label
        ``tpr``              TP/(TP+FN)                equal opportunity, equalized odds
        ``fpr``              FP/(FP+TN)                equalized odds
        ``tnr``              TN/(TN+FP)                specificity
        ``fnr``              FN/(FN+TP)                miss rate
        ``ppv``              TP/(TP+FP)                predictive parity
        ``npv``              TN/(TN+FN)
        ``accuracy``         (TP+TN)/n
        ``marginal_benefit`` (FP−FN)/n                 Briscoe et al. (OFI paper), in [−1, 1]
        ==================== ========================= =====================================

        Parameters
        ----------
        {COMMON}

        Returns
        -------
        pl.LazyFrame
            Keys, ``n`` (Int64), then the rates above (Float64 in [0, 1]; marginal benefit in
            [−1, 1]). A rate whose denominator is 0 is **null**, never 0 or NaN.

        Raises
        ------
        {ERRORS}

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 0, 0],
        ...                    "y_pred": [1, 1, 0, 0]})
        >>> df.lazy().fair.rates("g").select("g", "selection_rate", "tpr").collect()
        shape: (2, 3)
        ┌─────┬────────────────┬──────┐
        │ g   ┆ selection_rate ┆ tpr  │
        │ --- ┆ ---            ┆ ---  │
        │ str ┆ f64            ┆ f64  │
        ╞═════╪════════════════╪══════╡
        │ a   ┆ 1.0            ┆ 1.0  │
        │ b   ┆ 0.0            ┆ null │
        └─────┴────────────────┴──────┘
        """
        counted = self._counted(
            by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, sample_weight=sample_weight,
            null_groups=null_groups, y_score=y_score, threshold=threshold,
            combinations=combinations, max_order=max_order,
        )
        return analyse(counted, rates_from_counts)

    @_doc
    def report(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr | None = "y_pred",
        pos_label: Any = 1,
        reference: Any = "largest",
        min_support: int = 30,
        ofi_threshold: float = 0.3,
        four_fifths: float = 0.8,
        exclude_low_support: bool = False,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
        y_score: IntoExpr | None = None,
        threshold: float | None = None,
        combinations: Literal["all"] | None = None,
        max_order: int | None = None,
    ) -> pl.LazyFrame:
        """The per-group fairness report: counts, rates, disparity against a reference, flags.

        * ``disparate_impact`` = selection_rate / reference selection_rate (DI, Definition 2.1
          of Briscoe et al.; the "disparate impact ratio"); null when the reference rate is 0.
        * ``impact_ratio`` = selection_rate / the highest selection rate among the groups: the
          EEOC four-fifths rule, 29 CFR 1607.4(D), and NYC Local Law 144's impact ratio (6 RCNY
          5-300). ``adverse_impact`` = impact_ratio < ``four_fifths``.
        * ``ofi`` = marginal_benefit − the reference's marginal_benefit: the Objective Fairness
          Index, OFI = B_i − B_j with B = (FP−FN)/n (Briscoe et al., "Facets of Disparate
          Impact"), in [−2, 2]. ``ofi_flag`` = |ofi| > ``ofi_threshold`` (0.3 in the paper).
        * ``low_support`` = n < ``min_support``: too few rows to trust the group's figures.
        * ``finding`` reads OFI with DI (Briscoe et al. §2.3): ``"algorithmic"`` when |OFI|
          exceeds the threshold (the classifier's own errors treat the group unjustly, measured
          against its labels); ``"systemic"`` when OFI is within the threshold but the impact
          ratio or disparate impact fails the four-fifths rule (DI < 4/5 or > 5/4): the
          disparity is in the labels or the population, not in the classifier's errors;
          ``"none"`` otherwise; ``"insufficient support"`` for low-support groups. This reading
          assumes the labels are correct: where the labels themselves carry bias (the paper's
          COMPAS discussion: recorded re-arrest is not re-offence), "systemic" can hide a
          biased ground truth.

        Parameters
        ----------
        {COMMON}
        reference : "largest", "max_selection_rate", "overall", scalar or mapping
            The reference group: the group with most rows (ties: first in key order), the group
            with the highest selection rate, the whole population (no row is the reference), or
            an explicit group, a value for one attribute or ``{attribute: value}`` for several.
        min_support : int, default 30
            Groups with fewer rows are flagged ``low_support``.
        ofi_threshold : float, default 0.3
            |OFI| above this is flagged.
        four_fifths : float, default 0.8
            The impact-ratio threshold of the four-fifths rule.
        exclude_low_support : bool, default False
            Take the highest selection rate (the denominator of ``impact_ratio``) over the
            groups with ``n >= min_support`` only, so that a handful of rows cannot set the bar
            (as NYC LL 144's rules let small categories be excluded). Every group keeps its row.

        Returns
        -------
        pl.LazyFrame
            One row per group sorted by the keys: keys; ``n, tp, fp, fn, tn`` (Int64; with
            weights the cells are Float64 followed by ``weight_sum``); the rates of
            :meth:`rates` (Float64); ``is_reference`` (Boolean); ``disparate_impact``,
            ``impact_ratio`` (Float64, ratios ≥ 0); ``adverse_impact`` (Boolean); ``ofi``
            (Float64 in [−2, 2]); ``ofi_flag``, ``low_support`` (Boolean); ``finding`` (String).
            The whole population's figures: ``report(by=[])``.

        Raises
        ------
        {ERRORS}
        UnknownGroupError
            An explicit ``reference`` that is not a group; the message lists the groups.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 2, "y_true": [1, 1, 0, 0, 1, 0],
        ...                    "y_pred": [1, 1, 1, 0, 0, 0]})
        >>> r = df.lazy().fair.report("g", min_support=1).collect()
        >>> r.select("g", "selection_rate", "disparate_impact", "ofi", "finding")
        shape: (2, 5)
        ┌─────┬────────────────┬──────────────────┬───────┬─────────────┐
        │ g   ┆ selection_rate ┆ disparate_impact ┆ ofi   ┆ finding     │
        │ --- ┆ ---            ┆ ---              ┆ ---   ┆ ---         │
        │ str ┆ f64            ┆ f64              ┆ f64   ┆ str         │
        ╞═════╪════════════════╪══════════════════╪═══════╪═════════════╡
        │ a   ┆ 0.75           ┆ 1.0              ┆ 0.0   ┆ none        │
        │ b   ┆ 0.0            ┆ 0.0              ┆ -0.75 ┆ algorithmic │
        └─────┴────────────────┴──────────────────┴───────┴─────────────┘
        """
        build = report_builder(
            reference=reference, min_support=min_support, ofi_threshold=ofi_threshold,
            four_fifths=four_fifths, exclude_low_support=exclude_low_support,
        )
        counted = self._counted(
            by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, sample_weight=sample_weight,
            null_groups=null_groups, y_score=y_score, threshold=threshold,
            combinations=combinations, max_order=max_order,
        )
        return analyse(counted, build)


    @_doc
    def metrics(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr | None = "y_pred",
        pos_label: Any = 1,
        level: float = 0.95,
        min_support: int = 30,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
        y_score: IntoExpr | None = None,
        threshold: float | None = None,
        combinations: Literal["all"] | None = None,
        max_order: int | None = None,
    ) -> pl.LazyFrame:
        """Tidy metrics: one row per group × metric with numerator, denominator and interval.

        Each rate of :meth:`rates` with its Wilson score interval (Wilson 1927; Newcombe 1998)
        at ``level``; ``marginal_benefit`` with a Wald interval. Support is judged on each
        metric's **own denominator**: a TPR computed on 3 positives is ``low_support`` even in
        a group of 1,000 rows. See :func:`polars_fair.uncertainty.metrics_table`.

        Parameters
        ----------
        {COMMON}
        level : float, default 0.95
            Confidence level of the intervals, in (0, 1).
        min_support : int, default 30
            A metric whose denominator is below this is flagged ``low_support``.

        Returns
        -------
        pl.LazyFrame
            keys; ``metric`` (String); ``numerator``, ``denominator`` (Int64; Float64 weighted);
            ``value``, ``ci_low``, ``ci_high`` (Float64, rates in [0, 1]); ``low_support``
            (Boolean).

        Raises
        ------
        {ERRORS}

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a"] * 4, "y_true": [1, 1, 0, 0], "y_pred": [1, 0, 0, 0]})
        >>> m = df.fair.metrics("g").filter(pl.col("metric") == "tpr")
        >>> m.select("metric", "numerator", "denominator", "value", "low_support").row(0)
        ('tpr', 1, 2, 0.5, True)
        """
        counted = self._counted(
            by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, sample_weight=sample_weight,
            null_groups=null_groups, y_score=y_score, threshold=threshold,
            combinations=combinations, max_order=max_order,
        )
        _check = uncertainty.metrics_table  # validate options before any data is read
        if not 0 < level < 1:
            raise E.InvalidArgumentError(f"level must lie in (0, 1), got {level}")
        return analyse(
            counted, lambda lf, keys: _check(lf, keys, level=level, min_support=min_support)
        )

    @_doc
    def disparity(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr | None = "y_pred",
        pos_label: Any = 1,
        reference: Any = "largest",
        metric: str = "selection_rate",
        level: float = 0.95,
        test: Literal["auto", "z", "fisher"] = "auto",
        adjust: Literal["holm", "bh"] = "holm",
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
        y_score: IntoExpr | None = None,
        threshold: float | None = None,
        combinations: Literal["all"] | None = None,
        max_order: int | None = None,
    ) -> pl.LazyFrame:
        """Each group's rate against the reference, with intervals and adjusted significance.

        ``difference`` with Newcombe's hybrid score interval (Newcombe 1998, method 10);
        ``ratio`` (for ``selection_rate``: the disparate impact ratio) with the log interval
        (Katz et al. 1978); a two-sided test of equal rates (pooled two-proportion z-test, or
        Fisher's exact test: ``test="auto"`` uses Fisher when an expected cell is below 5);
        p-values adjusted across the groups of each attribute set by Holm's step-down
        (default) or Benjamini–Hochberg (``adjust="bh"``). ``reference="overall"`` compares
        each group with the rest of the population. See
        :func:`polars_fair.uncertainty.disparity_table`.

        Parameters
        ----------
        {COMMON}
        reference : "largest", "max_selection_rate", "overall", scalar or mapping
            As in :meth:`report`.
        metric : str, default "selection_rate"
            A proportion: ``selection_rate``, ``base_rate``, ``tpr``, ``fpr``, ``tnr``,
            ``fnr``, ``ppv``, ``npv`` or ``accuracy``.
        level : float, default 0.95
            Confidence level; ``significant`` = ``p_value_adjusted < 1 − level``.
        test : {"auto", "z", "fisher"}, default "auto"
        adjust : {"holm", "bh"}, default "holm"

        Returns
        -------
        pl.LazyFrame
            keys; ``metric``; ``numerator``, ``denominator``, ``reference_numerator``,
            ``reference_denominator``; ``value``, ``reference_value``, ``difference``,
            ``difference_ci_low``, ``difference_ci_high``, ``ratio``, ``ratio_ci_low``,
            ``ratio_ci_high``, ``p_value``, ``p_value_adjusted`` (Float64); ``is_reference``,
            ``significant`` (Boolean).

        Raises
        ------
        {ERRORS}
        UnknownGroupError
            An explicit ``reference`` that is not a group.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a"] * 50 + ["b"] * 50,
        ...                    "y_true": [1, 0] * 50, "y_pred": [1] * 40 + [0] * 10 + [1] * 10 + [0] * 40})
        >>> d = df.fair.disparity("g", reference="a")
        >>> d.select("g", "value", "ratio", "significant").rows()
        [('a', 0.8, 1.0, None), ('b', 0.2, 0.25, True)]
        """
        counted = self._counted(
            by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, sample_weight=sample_weight,
            null_groups=null_groups, y_score=y_score, threshold=threshold,
            combinations=combinations, max_order=max_order,
        )
        return analyse(
            counted,
            lambda lf, keys: uncertainty.disparity_table(
                lf, keys, reference=reference_for(reference, keys), metric=metric,
                level=level, test=test, adjust=adjust,
            ),
        )

    @_doc
    def pairwise(
        self,
        by: By = None,
        *,
        metrics: Sequence[str] = ("ofi", "disparate_impact"),
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr | None = "y_pred",
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
        y_score: IntoExpr | None = None,
        threshold: float | None = None,
        combinations: Literal["all"] | None = None,
        max_order: int | None = None,
    ) -> pl.LazyFrame:
        """Every ordered pair of groups (i, j): OFI, disparate impact and rate differences.

        ``ofi`` = B_i − B_j (Briscoe et al.; the OFI paper's heatmaps), ``disparate_impact`` =
        selection_rate_i / selection_rate_j (null when the denominator is 0),
        ``<rate>_difference`` and ``<rate>_ratio`` for every rate of :meth:`rates`. The wide
        matrix form: :func:`polars_fair.pairwise.pairwise_matrix`. See
        :func:`polars_fair.pairwise.pairwise_from_counts`.

        Parameters
        ----------
        {COMMON}
        metrics : sequence of str, default ("ofi", "disparate_impact")
            The metric columns, in order.

        Returns
        -------
        pl.LazyFrame
            ``<key>_i`` for each key, ``<key>_j`` for each key, ``n_i``, ``n_j`` (Int64), then
            one Float64 column per metric (OFI in [−2, 2]).

        Raises
        ------
        {ERRORS}
        InvalidArgumentError
            An unknown metric name (the message lists the valid ones).

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
        ...                    "y_pred": [1, 1, 1, 0]})
        >>> df.fair.pairwise("g").select("g_i", "g_j", "ofi", "disparate_impact").rows()
        [('a', 'b', 0.5, 2.0), ('b', 'a', -0.5, 0.5)]
        """
        from polars_fair.pairwise import pairwise_from_counts

        counted = self._counted(
            by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, sample_weight=sample_weight,
            null_groups=null_groups, y_score=y_score, threshold=threshold,
            combinations=combinations, max_order=max_order,
        )
        return analyse(
            counted,
            lambda lf, keys: pairwise_from_counts(
                lf, keys, metrics=(metrics,) if isinstance(metrics, str) else tuple(metrics)
            ),
        )

    @_doc
    def summary(
        self,
        by: By = None,
        *,
        method: Literal["between_groups", "to_reference"] = "between_groups",
        y_true: IntoExpr = "y_true",
        y_pred: IntoExpr | None = "y_pred",
        pos_label: Any = 1,
        reference: Any = "largest",
        min_support: int = 30,
        exclude_low_support: bool = False,
        four_fifths: float = 0.8,
        ofi_threshold: float = 0.3,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
        y_score: IntoExpr | None = None,
        threshold: float | None = None,
        combinations: Literal["all"] | None = None,
        max_order: int | None = None,
    ) -> pl.LazyFrame:
        """One row per fairness summary: the gap, the groups producing it, and a verdict.

        ``demographic_parity_difference``/``_ratio``, ``equalized_odds_difference``/``_ratio``
        (the larger TPR or FPR gap), ``equal_opportunity_difference`` (TPR gap),
        ``predictive_parity_difference`` (PPV gap), ``accuracy_difference``,
        ``min_impact_ratio`` (verdict by the four-fifths rule) and ``max_abs_ofi`` (verdict by
        ``ofi_threshold``), with Fairlearn's names and definitions
        (``method="between_groups"``: max − min over groups; ``"to_reference"``: the largest
        gap to the reference group). Undefined rates are skipped, where Fairlearn counts them
        as 0.0. See :func:`polars_fair.summary.summary_from_counts`.

        Parameters
        ----------
        {COMMON}
        method : {"between_groups", "to_reference"}, default "between_groups"
        reference : as in :meth:`report`
            Used by ``method="to_reference"`` only (between groups every gap is max − min).
        min_support : int, default 30
        exclude_low_support : bool, default False
            Leave groups with ``n < min_support`` out; ``excluded_groups`` names them.
        four_fifths, ofi_threshold : float
            The rules' thresholds.

        Returns
        -------
        pl.LazyFrame
            ``metric`` (String), ``value`` (Float64), ``group_1``, ``group_2`` (String),
            ``threshold`` (Float64), ``verdict`` (String ``"pass"``/``"fail"``, null without a
            rule), ``excluded_groups`` (List(String)).

        Raises
        ------
        {ERRORS}

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
        ...                    "y_pred": [1, 1, 1, 0]})
        >>> s = df.fair.summary("g", min_support=1)
        >>> s.filter(pl.col("metric") == "demographic_parity_difference").select("value").item()
        0.5
        """
        from polars_fair.summary import summary_from_counts

        counted = self._counted(
            by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, sample_weight=sample_weight,
            null_groups=null_groups, y_score=y_score, threshold=threshold,
            combinations=combinations, max_order=max_order,
        )
        return analyse(
            counted,
            lambda lf, keys: summary_from_counts(
                lf, keys, method=method, reference=reference_for(reference, keys),
                min_support=min_support, exclude_low_support=exclude_low_support,
                four_fifths=four_fifths, ofi_threshold=ofi_threshold,
            ),
        )

    def bias_audit(
        self,
        categories: Sequence[IntoExpr],
        *,
        y_pred: IntoExpr | None = None,
        y_score: IntoExpr | None = None,
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        min_share: float = 0.02,
        exclude_small: bool = False,
    ) -> pl.LazyFrame:
        """NYC Local Law 144 bias audit: selection or scoring rates and impact ratios.

        For each category of each attribute and of their intersection (6 RCNY 5-300, 5-301).
        See :func:`polars_fair.bias_audit.bias_audit` for the formulas, the output columns and
        the errors.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"sex": ["F", "F", "M", "M"], "y_pred": [1, 0, 1, 1]})
        >>> a = df.fair.bias_audit(["sex"], y_pred="y_pred", min_share=0.0)
        >>> a.select("sex", "selection_rate", "impact_ratio").rows()
        [('F', 0.5, 0.5), ('M', 1.0, 1.0)]
        """
        from polars_fair import bias_audit as ba

        return ba.bias_audit(
            self._lf, categories, y_pred=y_pred, y_score=y_score, pos_label=pos_label,
            sample_weight=sample_weight, min_share=min_share, exclude_small=exclude_small,
        )


    def _scores(
        self, by: By, y_true: IntoExpr, y_score: IntoExpr, pos_label: Any,
        sample_weight: IntoExpr | None, null_groups: NullGroups,
    ) -> tuple[pl.LazyFrame, list[str]]:
        return tables.score_table(
            self._lf, by, y_true=y_true, y_score=y_score, pos_label=pos_label,
            sample_weight=sample_weight, null_groups=null_groups,
        )

    def scores(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_score: IntoExpr = "y_score",
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
    ) -> pl.LazyFrame:
        """The score table: one row per (group, distinct score), from one scan.

        The public input of every score-based analysis (ROC curves, AUC, ABROCA, the
        permutation test, calibration); see :func:`polars_fair.tables.score_table`.

        Parameters
        ----------
        by, y_true, pos_label, sample_weight, null_groups
            As in :meth:`confusion`.
        y_score : str or pl.Expr, default "y_score"
            A numeric score, higher = more likely positive.

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
            As in :meth:`confusion`.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "a", "a"], "y_true": [1, 0, 1], "y_score": [0.9, 0.9, 0.2]})
        >>> df.fair.scores("g").rows()
        [('a', 0.2, 1, 0), ('a', 0.9, 1, 1)]
        """
        return self._scores(by, y_true, y_score, pos_label, sample_weight, null_groups)[0]

    def abroca(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_score: IntoExpr = "y_score",
        reference: Any = "largest",
        pairwise: bool = False,
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
    ) -> pl.LazyFrame:
        """Exact ABROCA and AUC per group: the area between each group's ROC curve and the
        reference's.

        ``abroca = ∫₀¹ |TPR_g(f) − TPR_ref(f)| df`` over the false positive rate f, computed
        exactly on the piecewise-linear ROC curves (Gardner, Brooks & Baker 2019; Borchers et
        al., "A Test for ABROCA"): a block of tied scores is one diagonal segment, as in
        scikit-learn's ``roc_curve``, and crossings of the curves are integrated exactly (no
        grid). ``auc`` is the Mann–Whitney AUC with ties counted ½. Polars builds the score
        table lazily; numpy integrates on that small table (the rows never reach numpy). See
        :func:`polars_fair.abroca.abroca_from_scores`.

        Parameters
        ----------
        by, y_true, pos_label, sample_weight, null_groups
            As in :meth:`confusion`.
        y_score : str or pl.Expr, default "y_score"
        reference : "largest", "max_auc", scalar or mapping, default "largest"
        pairwise : bool, default False
            Every ordered pair of groups instead of each group against the reference.

        Returns
        -------
        pl.LazyFrame
            keys, ``n`` (Int64), ``positives``, ``negatives``, ``auc`` (Float64 in [0, 1]),
            ``abroca`` (Float64 in [0, 1]; 0 for the reference), ``is_reference`` (Boolean),
            ``undefined_reason`` (String, null when defined: a group with one class has null
            ``auc`` and ``abroca``). With ``pairwise=True``: ``<key>_i``, ``<key>_j``, ``n_i``,
            ``n_j``, ``auc_i``, ``auc_j``, ``abroca``, ``undefined_reason``.

        Raises
        ------
        InvalidScoreError
            Null, NaN or infinite scores (their counts).
        UnknownGroupError
            An explicit reference that is not a group.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0, 1, 0] * 2,
        ...                    "y_score": [0.9, 0.1, 0.8, 0.2, 0.9, 0.8, 0.1, 0.2]})
        >>> df.fair.abroca("g", reference="a").select("g", "auc", "abroca").rows()
        [('a', 1.0, 0.0), ('b', 0.5, 0.5)]
        """
        table, keys = self._scores(by, y_true, y_score, pos_label, sample_weight, null_groups)
        return abroca_plan(table, keys, reference=reference, pairwise=pairwise)

    def abroca_test(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_score: IntoExpr = "y_score",
        reference: Any = "largest",
        n_permutations: int = 1000,
        seed: int | None = None,
        tolerance: float = 1e-12,
        return_draws: bool = False,
        pos_label: Any = 1,
        null_groups: NullGroups = "keep",
        progress: bool | None = None,
    ) -> pl.LazyFrame:
        """The randomization test of ABROCA (Borchers et al., Algorithm 1), each group vs the
        reference.

        Under H0 group membership is exchangeable between the group and the reference: each
        permutation draws the group's counts per (score, label) cell from the pooled cells by
        a multivariate hypergeometric draw (exact, and B × cells work instead of B × rows),
        and ``p = (1 + #{ABROCA_perm ≥ ABROCA_obs − tolerance}) / (1 + B)``. The tolerance
        (1e-12) absorbs floating-point error so that a permutation tying the observed value
        counts as extreme. ``p_value_holm`` adjusts across the groups tested (Holm). See
        :func:`polars_fair.abroca.abroca_test_from_scores`. Weighted tables are not supported.

        Parameters
        ----------
        by, y_true, y_score, pos_label, null_groups, reference
            As in :meth:`abroca`.
        n_permutations : int, default 1000
        seed : int, optional
            Seed of ``numpy.random.default_rng``: the same seed gives the same p-values.
        tolerance : float, default 1e-12
        return_draws : bool, default False
            Add ``draws`` (List(Float64)): the permutation ABROCA values.
        progress : bool or None, default None
            A progress bar over the groups tested; ``None`` shows it only on a terminal.

        Returns
        -------
        pl.LazyFrame
            keys, ``n`` (Int64), ``abroca``, ``p_value`` (in (0, 1]), ``p_value_holm``,
            ``null_mean``, ``null_q95`` (Float64), ``n_permutations`` (Int64),
            ``undefined_reason`` (String), [``draws``].

        Raises
        ------
        InvalidScoreError, UnknownGroupError
            As in :meth:`abroca`.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0, 1, 0] * 2,
        ...                    "y_score": [0.9, 0.1, 0.8, 0.2, 0.9, 0.8, 0.1, 0.2]})
        >>> t = df.fair.abroca_test("g", reference="a", n_permutations=200, seed=0)
        >>> 0 < t.filter(pl.col("g") == "b")["p_value"].item() <= 1
        True
        """
        table, keys = self._scores(by, y_true, y_score, pos_label, None, null_groups)
        return abroca_test_plan(
            table, keys, reference=reference, n_permutations=n_permutations, seed=seed,
            tolerance=tolerance, return_draws=return_draws, progress=progress,
        )

    def calibration(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_score: IntoExpr = "y_score",
        n_bins: int = 10,
        strategy: Literal["uniform", "quantile"] = "uniform",
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
    ) -> pl.LazyFrame:
        """Calibration by group: expected calibration error and the largest gap between groups.

        ``ece = Σ_bins (n_bin / n) |fraction_positive − mean_score|`` (Naeini et al. 2015; Guo
        et al. 2017), bins right-closed as scikit-learn's ``calibration_curve``; ``quantile``
        bins come from the pooled score distribution. Calibration within groups is the
        handbook chapter's "calibration (predictive parity)" criterion. The per-bin table is
        :meth:`reliability`. See :func:`polars_fair.calibration.calibration_from_scores`.

        Parameters
        ----------
        by, y_true, y_score, pos_label, sample_weight, null_groups
            As in :meth:`abroca`.
        n_bins : int, default 10
        strategy : {"uniform", "quantile"}, default "uniform"
            Uniform bins need scores in [0, 1].

        Returns
        -------
        pl.LazyFrame
            keys, ``n`` (Int64), ``ece``, ``max_calibration_error`` (Float64 in [0, 1]),
            ``ece_gap`` (Float64: ece − the lowest ece among the groups; its maximum is the
            largest gap in calibration error between groups).

        Raises
        ------
        InvalidScoreError, ValueError
            Bad scores; scores outside [0, 1] with ``strategy="uniform"``.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
        ...                    "y_score": [0.95, 0.05, 0.5, 0.5]})
        >>> c = df.fair.calibration("g", n_bins=2)
        >>> c.select("g", pl.col("ece", "ece_gap").round(6)).rows()
        [('a', 0.05, 0.05), ('b', 0.0, 0.0)]
        """
        table, keys = self._scores(by, y_true, y_score, pos_label, sample_weight, null_groups)
        return calibration_plan(table, keys, n_bins=n_bins, strategy=strategy)

    def reliability(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_score: IntoExpr = "y_score",
        n_bins: int = 10,
        strategy: Literal["uniform", "quantile"] = "uniform",
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
    ) -> pl.LazyFrame:
        """The reliability table per group: one row per group × bin (see :meth:`calibration`).

        Returns
        -------
        pl.LazyFrame
            keys, ``bin`` (Int64), ``bin_low``, ``bin_high`` (Float64), ``n`` (Int64; Float64
            weighted), ``mean_score``, ``fraction_positive`` (Float64 in [0, 1], null for an
            empty bin).

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a", "a"], "y_true": [1, 0], "y_score": [0.9, 0.2]})
        >>> df.fair.reliability("g", n_bins=2).select("bin", "n", "fraction_positive").rows()
        [(0, 1, 0.0), (1, 1, 1.0)]
        """
        table, keys = self._scores(by, y_true, y_score, pos_label, sample_weight, null_groups)
        return reliability_plan(table, keys, n_bins=n_bins, strategy=strategy)

    def sweep(
        self,
        by: By = None,
        *,
        y_true: IntoExpr = "y_true",
        y_score: IntoExpr = "y_score",
        thresholds: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
        pos_label: Any = 1,
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
    ) -> pl.LazyFrame:
        """Counts and rates per group at many thresholds, in one lazy query.

        For each threshold t the prediction is ``y_score >= t``; one ``group_by`` computes the
        sums for every threshold at once. See :func:`polars_fair.tables.sweep_table`.

        Parameters
        ----------
        by, y_true, y_score, pos_label, sample_weight, null_groups
            As in :meth:`abroca`.
        thresholds : sequence of float
            Sorted and de-duplicated in the output.

        Returns
        -------
        pl.LazyFrame
            keys, ``threshold`` (Float64), ``n, tp, fp, fn, tn``, then the rates of
            :meth:`rates` (Float64, null where undefined), sorted by keys and threshold.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> df = pl.DataFrame({"g": ["a"] * 4, "y_true": [1, 0, 1, 0],
        ...                    "y_score": [0.9, 0.6, 0.4, 0.1]})
        >>> df.fair.sweep("g", thresholds=[0.5, 0.3]).select("threshold", "tpr", "fpr").rows()
        [(0.3, 1.0, 0.5), (0.5, 0.5, 0.5)]
        """
        table, keys = tables.sweep_table(
            self._lf, by, y_true=y_true, y_score=y_score, thresholds=thresholds,
            pos_label=pos_label, sample_weight=sample_weight, null_groups=null_groups,
        )
        return with_rates(table)


def _collected(
    method: Callable[Concatenate[FairLazyFrame, P], pl.LazyFrame],
) -> Callable[Concatenate[FairDataFrame, P], pl.DataFrame]:
    """The DataFrame twin of a LazyFrame method: the same plan, collected."""

    @functools.wraps(method)
    def run(self: FairDataFrame, /, *args: P.args, **kwargs: P.kwargs) -> pl.DataFrame:
        return method(self._lazy, *args, **kwargs).collect()

    if run.__doc__:
        run.__doc__ = run.__doc__.replace("pl.LazyFrame\n", "pl.DataFrame\n", 1)
    return run


class FairDataFrame:
    """``df.fair``: the methods of :class:`FairLazyFrame`, run on ``df.lazy()`` and collected.

    Each returns a ``pl.DataFrame`` with exactly the schema of the LazyFrame method.
    """

    def __init__(self, df: pl.DataFrame) -> None:
        self._df = df
        self._lazy = FairLazyFrame(df.lazy())

    confusion = _collected(FairLazyFrame.confusion)
    rates = _collected(FairLazyFrame.rates)
    report = _collected(FairLazyFrame.report)
    metrics = _collected(FairLazyFrame.metrics)
    disparity = _collected(FairLazyFrame.disparity)
    pairwise = _collected(FairLazyFrame.pairwise)
    summary = _collected(FairLazyFrame.summary)
    bias_audit = _collected(FairLazyFrame.bias_audit)
    scores = _collected(FairLazyFrame.scores)
    abroca = _collected(FairLazyFrame.abroca)
    abroca_test = _collected(FairLazyFrame.abroca_test)
    calibration = _collected(FairLazyFrame.calibration)
    reliability = _collected(FairLazyFrame.reliability)
    sweep = _collected(FairLazyFrame.sweep)


@overload
def fair(frame: pl.DataFrame) -> FairDataFrame: ...
@overload
def fair(frame: pl.LazyFrame) -> FairLazyFrame: ...
def fair(frame: pl.DataFrame | pl.LazyFrame) -> FairDataFrame | FairLazyFrame:
    """Typed accessor: ``fair(df)`` is ``df.fair``, visible to type checkers.

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
