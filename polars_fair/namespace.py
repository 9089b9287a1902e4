"""The ``fair`` namespace on ``pl.DataFrame`` and ``pl.LazyFrame``, and the typed accessor.

Every method is written out here (no ``__getattr__`` dispatch) so IDEs and type checkers see it.
A LazyFrame method builds a lazy plan and never collects; the DataFrame method runs the same plan
(``df.lazy()``) and collects it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar, overload

import polars as pl

from polars_fair import tables
from polars_fair.expressions import IntoExpr
from polars_fair.report import rates_from_counts, report_from_counts
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
        Instead of ``y_pred``: predictions are ``y_score >= threshold`` (positive = ``True``)."""

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
        counts, _ = tables.count_table(
            self._lf, by, y_true=y_true, y_pred=y_pred, pos_label=pos_label,
            sample_weight=sample_weight, null_groups=null_groups, y_score=y_score,
            threshold=threshold,
        )
        return counts

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
        counts, keys = tables.count_table(
            self._lf, by, y_true=y_true, y_pred=y_pred, pos_label=pos_label,
            sample_weight=sample_weight, null_groups=null_groups, y_score=y_score,
            threshold=threshold,
        )
        return rates_from_counts(counts, keys)

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
        sample_weight: IntoExpr | None = None,
        null_groups: NullGroups = "keep",
        y_score: IntoExpr | None = None,
        threshold: float | None = None,
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
        counts, keys = tables.count_table(
            self._lf, by, y_true=y_true, y_pred=y_pred, pos_label=pos_label,
            sample_weight=sample_weight, null_groups=null_groups, y_score=y_score,
            threshold=threshold,
        )
        return report_from_counts(
            counts, keys, reference=reference, min_support=min_support,
            ofi_threshold=ofi_threshold, four_fifths=four_fifths,
        )


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
