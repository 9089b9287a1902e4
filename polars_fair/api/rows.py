"""The analyses that start from rows rather than from one count table.

Most analyses are methods of the count- or score-table object. Two are not, because they decide
how to count before counting: :func:`bias_audit` (NYC Local Law 144) counts the categories with
the unknown category kept, from either ``y_pred`` or ``y_score``; :func:`divergence_of_rows`
bins numeric attributes first and chooses between one finest count table and a level-by-level
search. Both call :func:`~polars_fair.api.objects.counts` / :func:`~polars_fair.api.objects.scores`
and then the object's method, so the analysis itself is the one in
:mod:`polars_fair.analyses`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import compose, expand_signature
from polars_fair.analyses.bias_audit import ONE_OUTCOME, _categories, _check_categories
from polars_fair.analyses.divergence import (
    DEFAULT_MAX_PATTERNS,
    LEVELS_ABOVE,
    Adjust,
    Bins,
    RowArgs,
    Strategy,
    _by_levels,
    bin_attributes,
    divergence_from_counts,
)
from polars_fair.api.objects import counts, scores
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import COUNT_ARGS, COUNT_ARGS_DOC, By, IntoExpr, normalize_by

__all__ = ["bias_audit", "divergence_of_rows", "namespace_divergence"]


def bias_audit(
    frame: Any,
    categories: IntoExpr | Sequence[IntoExpr],
    *,
    y_pred: IntoExpr | None = None,
    y_score: IntoExpr | None = None,
    pos_label: Any = 1,
    sample_weight: IntoExpr | None = None,
    min_share: float = DEFAULTS.min_share,
    exclude_small: bool = DEFAULTS.exclude_small,
) -> pl.LazyFrame:
    """Bias audit of an automated employment decision tool (NYC Local Law 144 of 2021).

    For each category of each attribute alone (for example sex; race/ethnicity) and of the
    intersection of all of them (sex × race), following 6 RCNY § 5-300 (definitions) and
    § 5-301 (bias audit):

    * with ``y_pred`` (a binary selection):
      ``selection_rate = selected / n`` ("the rate at which individuals in a category are
      either selected to move forward in the hiring process or assigned a classification");
    * with ``y_score`` (a score):
      ``scoring_rate = #(score > median) / n`` ("the rate at which individuals in a category
      receive a score above the sample's median score"), where the median is that of the
      **whole sample** (every row, including rows of unknown category) and *above* is
      **strictly** above: a score equal to the median does not count. The median is
      ``numpy.median``'s: the middle score, or for an even number of rows the mean of the two
      middle scores. With ``sample_weight`` it is the weighted median: the mean of the first
      score whose cumulative weight reaches half the total and the first that exceeds it
      (``numpy.median`` of the rows repeated by their weight, for integer weights);
    * ``impact_ratio = rate / max(rate)``, the maximum taken over the categories of the same
      attribute set that are not excluded (6 RCNY § 5-300, "impact ratio": "selection rate for
      a category divided by the selection rate of the most selected category" or "scoring rate
      for a category divided by the scoring rate for the highest scoring category").

    Categories representing less than ``min_share`` of the rows are flagged
    (``small_category``); with ``exclude_small=True`` they are left out of the impact-ratio
    calculation (§ 5-301 lets an auditor exclude a category under 2% of the data), but their
    rows are always reported. Both decisions are exact on the counts
    (:mod:`polars_fair.core.rules`): ``small_category`` compares ``n / N`` with ``min_share`` read
    as the decimal written (``n × q < p × N`` for ``min_share = p/q``), so a category of exactly 2%
    is not small; the impact ratios are exact fractions of the counts, correctly rounded (a
    selection rate of 0.6 against 0.75 is 0.8). Rows of unknown category (a null attribute) are kept
    as a row of their own and always excluded from the impact ratios; their number is reported in
    ``unknown_rows`` (§ 5-301: "the number of individuals the AEDT assessed that fall within an
    unknown category").

    The rows are counted once, through the counting boundary of every analysis:
    ``polars_fair.counts(frame, categories, y_true=None, y_pred=..., null_groups="keep")
    .bias_audit(...)`` or ``polars_fair.scores(frame, categories, y_true=None, y_score=...)
    .bias_audit(...)`` (:func:`bias_audit_from_counts`, :func:`bias_audit_from_scores`). Labels
    (``y_true``) are not used: LL 144 audits outcomes only.

    Parameters
    ----------
    frame : pl.LazyFrame, pl.DataFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The applicants, one row each. The result is lazy: collect it.
    categories : str, pl.Expr or sequence of them
        The category attributes, for example ``["sex", "race"]``; each is audited alone and,
        when there are several, their intersection (all of them together) is audited too.
    y_pred : str or pl.Expr, optional
        The binary selection: ``pos_label`` (selected) and at most one other value.
    y_score : str or pl.Expr, optional
        A numeric score (finite; higher = more favourable). Exactly one of ``y_pred`` /
        ``y_score`` must be given.
    pos_label : Any, default 1
        The value of ``y_pred`` meaning "selected", of its dtype (``1``, ``"yes"``, ``True``).
        Ignored with ``y_score``.
    sample_weight : str or pl.Expr, optional
        Non-negative row weights. ``selected`` / ``scored_above_median`` become Float64 weighted
        sums, ``weight_sum`` (Float64) is added after ``n``, rates divide by ``weight_sum`` and
        the median is weighted. ``n``, ``share`` and ``unknown_rows`` stay row counts.
    min_share : float, default 0.02
        A category with ``share < min_share`` is flagged ``small_category`` (the rules' 2%).
    exclude_small : bool, default False
        Exclude small categories from the impact-ratio calculation.

    Returns
    -------
    pl.LazyFrame
        One row per category and attribute set, sorted by attribute set (each attribute alone in
        the given order, then the intersection) and then by the key values, nulls last:

        ========================  =========  ================================================
        column                    dtype      meaning
        ========================  =========  ================================================
        ``attributes``            List(Str)  the attributes defining the row's category
        one column per attribute  its dtype  the category; null when the attribute is not in
                                             ``attributes`` or when the category is unknown
        ``n``                     Int64      applicants (rows)
        ``weight_sum``            Float64    only with ``sample_weight``: Σ weights
        ``selected``              Int64      ``y_pred`` only: applicants selected (Float64
                                             weighted)
        ``scored_above_median``   Int64      ``y_score`` only: applicants scoring strictly
                                             above the sample median (Float64 weighted)
        ``selection_rate``        Float64    ``y_pred`` only: selected / n, in [0, 1]
        ``scoring_rate``          Float64    ``y_score`` only: scored_above_median / n, in
                                             [0, 1]
        ``median_score``          Float64    ``y_score`` only: the sample's median score
                                             (the same in every row), in the score's units
        ``share``                 Float64    n / all rows, in [0, 1]
        ``small_category``        Boolean    share < ``min_share``
        ``unknown_category``      Boolean    an attribute of the row's set is null
        ``excluded``              Boolean    left out of the impact ratios: unknown, or
                                             small with ``exclude_small``
        ``impact_ratio``          Float64    rate / highest non-excluded rate of the set, in
                                             [0, 1]; null when excluded or when that highest
                                             rate is 0 (undefined)
        ``unknown_rows``          Int64      rows whose category in this attribute set is
                                             unknown (the same in every row of the set; in
                                             the intersection: rows with any unknown
                                             attribute)
        ========================  =========  ================================================

    Raises
    ------
    ColumnNotFoundError
        A named column is missing (lists the columns). Raised at once.
    InvalidArgumentError
        Neither or both of ``y_pred`` / ``y_score``; no categories; repeated or reserved
        attribute names; ``min_share`` not a number in [0, 1] (NaN included). Raised at once.
    InvalidLabelError
        ``pos_label`` of the wrong dtype (at once); ``y_pred`` holding ``pos_label`` and more
        than one other value (at collect time).
    NullValuesError
        Nulls or NaN in ``y_pred`` (at collect time).
    InvalidScoreError
        A non-numeric score (at once); null, NaN or infinite scores, with their counts (at
        collect time).
    InvalidWeightError
        Non-numeric (at once); null, NaN or negative weights (at collect time).
    EmptyFrameError
        No rows (at collect time).
    TooManyLevelsError
        A float attribute with more than 50 distinct values (at collect time).

    Notes
    -----
    A ``y_pred`` that never equals ``pos_label`` is not an error: every selection rate is 0 and
    every impact ratio is null (0/0 is undefined). Categories without rows (an Enum's
    unobserved categories) are not reported.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({
    ...     "sex": ["M", "M", "M", "F", "F", "F", None],
    ...     "hired": [1, 1, 0, 1, 0, 0, 1],
    ... })
    >>> bias_audit(df.lazy(), ["sex"], y_pred="hired").collect().select(
    ...     "sex", "n", "selected", "selection_rate", "excluded", "impact_ratio", "unknown_rows")
    shape: (3, 7)
    ┌──────┬─────┬──────────┬────────────────┬──────────┬──────────────┬──────────────┐
    │ sex  ┆ n   ┆ selected ┆ selection_rate ┆ excluded ┆ impact_ratio ┆ unknown_rows │
    │ ---  ┆ --- ┆ ---      ┆ ---            ┆ ---      ┆ ---          ┆ ---          │
    │ str  ┆ i64 ┆ i64      ┆ f64            ┆ bool     ┆ f64          ┆ i64          │
    ╞══════╪═════╪══════════╪════════════════╪══════════╪══════════════╪══════════════╡
    │ F    ┆ 3   ┆ 1        ┆ 0.333333       ┆ false    ┆ 0.5          ┆ 1            │
    │ M    ┆ 3   ┆ 2        ┆ 0.666667       ┆ false    ┆ 1.0          ┆ 1            │
    │ null ┆ 1   ┆ 1        ┆ 1.0            ┆ true     ┆ null         ┆ 1            │
    └──────┴─────┴──────────┴────────────────┴──────────┴──────────────┴──────────────┘

    With scores the median of the whole sample (here 0.5, the mean of 0.4 and 0.6) splits it:

    >>> scored = pl.DataFrame({"sex": ["M", "M", "F", "F"], "score": [0.9, 0.6, 0.4, 0.1]})
    >>> bias_audit(scored.lazy(), "sex", y_score="score").collect().select(
    ...     "sex", "scored_above_median", "scoring_rate", "median_score", "impact_ratio")
    shape: (2, 5)
    ┌─────┬─────────────────────┬──────────────┬──────────────┬──────────────┐
    │ sex ┆ scored_above_median ┆ scoring_rate ┆ median_score ┆ impact_ratio │
    │ --- ┆ ---                 ┆ ---          ┆ ---          ┆ ---          │
    │ str ┆ i64                 ┆ f64          ┆ f64          ┆ f64          │
    ╞═════╪═════════════════════╪══════════════╪══════════════╪══════════════╡
    │ F   ┆ 0                   ┆ 0.0          ┆ 0.5          ┆ 0.0          │
    │ M   ┆ 2                   ┆ 1.0          ┆ 0.5          ┆ 1.0          │
    └─────┴─────────────────────┴──────────────┴──────────────┴──────────────┘
    """
    cats = _categories(categories)
    if (y_pred is None) == (y_score is None):
        raise E.InvalidArgumentError(ONE_OUTCOME)
    _check_categories(frame, cats)
    if y_pred is not None:
        counted = counts(frame, cats, y_true=None, y_pred=y_pred, pos_label=pos_label,
                         sample_weight=sample_weight, null_groups="keep")
        return counted.bias_audit(min_share=min_share, exclude_small=exclude_small)
    assert y_score is not None
    scored = scores(frame, cats, y_true=None, y_score=y_score,
                    sample_weight=sample_weight, null_groups="keep")
    return scored.bias_audit(min_share=min_share, exclude_small=exclude_small)


def divergence_of_rows(
    frame: Any,
    by: By = None,
    *,
    metric: str = DEFAULTS.divergence_metric,
    max_order: int | None = None,
    min_support: float = DEFAULTS.divergence_min_support,
    min_denominator: float = DEFAULTS.min_denominator,
    level: float = DEFAULTS.level,
    adjust: Adjust = DEFAULTS.divergence_adjust,
    bins: Bins | None = None,
    max_patterns: int = DEFAULT_MAX_PATTERNS,
    strategy: Strategy = DEFAULTS.divergence_strategy,
    **count_args: Unpack[RowArgs],
) -> pl.LazyFrame:
    """Rows (any engine) -> binned attributes -> one count table -> the divergence table.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows; ``bins`` needs a Polars frame.
    by : str, pl.Expr or list of them
        The attributes whose values make the patterns' items.
    metric : str, default "fpr"
        A proportion of the metric registry.
    max_order : int, optional
        The most items of a pattern.
    min_support : float, default 0.01
        The smallest pattern (share of rows below 1, row count otherwise).
    min_denominator : float, default 30
        Flag ``low_support`` below this metric denominator.
    level : float, default 0.95
        Confidence level.
    adjust : {"bh", "by", "holm"}, default "bh"
        The adjustment over every pattern tested.
    bins : mapping of str to int or sequence of float, optional
        Numeric attributes to bin: a number of quantile bins or the edges
        (:func:`bin_attributes`).
    max_patterns : int, default 1000000
        The most candidate patterns.
    strategy : {"auto", "finest", "levels"}, default "auto"
        ``"finest"``: one scan into the count table over every attribute, patterns enumerated
        from it (fastest while that table fits in memory). ``"levels"``: level by level on the
        rows, one count table per candidate attribute set, never the finest table (for a
        Spark or DuckDB frame over many attributes; ``null_groups="drop"`` is refused).
        ``"auto"``: ``"levels"`` for a Spark or DuckDB frame over more than
        :data:`LEVELS_ABOVE` attributes, else ``"finest"``.
    **count_args
        The count arguments (:class:`polars_fair.core.spec.CountArgs`) but ``combinations``.

    Returns
    -------
    pl.LazyFrame
        The divergence table (:func:`divergence_from_counts`).

    Raises
    ------
    InvalidArgumentError
        ``combinations`` given, ``bins`` on a frame that is not Polars, bad options.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [0] * 8,
    ...                    "y_pred": [1, 1, 1, 0, 0, 0, 0, 1]})
    >>> d = divergence_of_rows(df, "g", min_support=1, min_denominator=1).collect()
    >>> d.select("g", "value", "divergence").rows()
    [('a', 0.75, 0.25), ('b', 0.25, -0.25)]
    """
    args: dict[str, Any] = dict(count_args)
    if args.pop("combinations", None) is not None:
        raise E.InvalidArgumentError(E.DIVERGENCE_COMBINATIONS)
    if strategy not in ("auto", "finest", "levels"):
        raise E.InvalidArgumentError(E.BAD_STRATEGY.format(value=strategy))
    if bins:
        if isinstance(frame, pl.DataFrame):
            frame = frame.lazy()
        if not isinstance(frame, pl.LazyFrame):
            raise E.InvalidArgumentError(E.BINS_NEED_POLARS.format(type=type(frame).__name__))
        frame = bin_attributes(frame, bins, by)
    polars = isinstance(frame, (pl.DataFrame, pl.LazyFrame))
    if strategy == "levels" or (strategy == "auto" and not polars
                                and len(normalize_by(by)) > LEVELS_ABOVE):
        return _by_levels(frame, by, args, metric=metric, max_order=max_order,
                          min_support=min_support, min_denominator=min_denominator,
                          level=level, adjust=adjust, max_patterns=max_patterns)
    return counts(frame, by, **args).divergence(
        metric=metric, max_order=max_order, min_support=min_support,
        min_denominator=min_denominator, level=level, adjust=adjust, max_patterns=max_patterns)


_NAMESPACE_EXAMPLE = """>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [0] * 8,
...                    "y_pred": [1, 1, 1, 0, 0, 0, 0, 1]})
>>> d = df.fair.divergence("g", min_support=1, min_denominator=1)
>>> d.select("attributes", "g", "value", "overall", "divergence").rows()
[(['g'], 'a', 0.75, 0.5, 0.25), (['g'], 'b', 0.25, 0.5, -0.25)]"""


def namespace_divergence(self: Any, /, by: By = None, *, metric: str = DEFAULTS.divergence_metric,  # noqa: D103
                         max_order: int | None = None,
                         min_support: float = DEFAULTS.divergence_min_support,
                         min_denominator: float = DEFAULTS.min_denominator,
                         level: float = DEFAULTS.level,
                         adjust: Adjust = DEFAULTS.divergence_adjust, bins: Bins | None = None,
                         max_patterns: int = DEFAULT_MAX_PATTERNS,
                         strategy: Strategy = DEFAULTS.divergence_strategy,
                         **count_args: Unpack[RowArgs]) -> pl.LazyFrame:  # noqa: D103
    return divergence_of_rows(
        self._lf, by, metric=metric, max_order=max_order, min_support=min_support,
        min_denominator=min_denominator, level=level, adjust=adjust, bins=bins,
        max_patterns=max_patterns, strategy=strategy, **count_args)


def _method_doc() -> str:
    args_doc = COUNT_ARGS_DOC.split("\ncombinations :")[0] + "\nmax_groups :" + \
        COUNT_ARGS_DOC.split("\nmax_groups :")[1]
    doc = compose(divergence_from_counts.__doc__ or "", drop=("counts", "keys"),
                  before="""by : str, pl.Expr or list of them
    The attributes whose values make the patterns' items.""",
                  after="""bins : mapping of str to int or sequence of float, optional
    Numeric attributes to cut first, in the same scan: ``{"age": 5}`` quantile bins,
    ``{"age": [25, 45]}`` edges; the keys show the edges (``"[25, 45)"``).
strategy : {"auto", "finest", "levels"}, default "auto"
    ``"finest"`` (the default for Polars): one scan into the count table over every
    attribute; ``"levels"``: one count table per candidate attribute set, level by level,
    never the finest table (``null_groups="drop"`` refused).
""" + args_doc, returns="pl.LazyFrame", example=_NAMESPACE_EXAMPLE)
    return doc


namespace_divergence.__doc__ = _method_doc()
namespace_divergence.__signature__ = expand_signature(  # type: ignore[attr-defined]
    namespace_divergence, {k: (Any, v) for k, v in COUNT_ARGS.items()
                           if k not in ("combinations", "max_order")})
