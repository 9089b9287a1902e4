"""The analysis objects: every analysis, declared once, on the table it reads.

:class:`FairCounts` holds a count table and has every classification analysis (``rates``,
``report``, ``metrics``, ``disparity``, ``pairwise``, ``summary``); :class:`FairScores` holds a
score table and has every score analysis (``abroca``, ``abroca_test``, ``calibration``,
``reliability``, ``sweep``, ``thresholds``). Each method delegates to one module function, whose
docstring is the method's (composed by :mod:`polars_fair._docs`).

Every way in returns these objects:

* rows in Polars, Spark or DuckDB: :func:`counts` / :func:`scores` (and ``lf.fair.counts`` /
  ``lf.fair.score_counts``);
* a count or score table made anywhere (SQL, a warehouse, a previous run): :func:`from_counts`
  / :func:`from_scores`.

So an analysis, its arguments and its errors exist once, and every engine gives the same result.

Why one module: the two objects are the library's one public table of
analyses (a method per analysis, each a few lines delegating to its module function), read
together to check that both tables offer what they should; the analyses themselves live in
:mod:`polars_fair.analyses`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal, TypeVar, Unpack

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import compose
from polars_fair.analyses.availability import (
    availability_from_counts,
    benchmark_attributes,
    check_benchmark_columns,
)
from polars_fair.analyses.bias_audit import (
    bias_audit_from_counts,
    bias_audit_from_scores,
    bias_audit_plan,
)
from polars_fair.analyses.divergence import (
    COUNTS_METHOD_DOC,
    DEFAULT_MAX_PATTERNS,
    divergence_of_counts,
)
from polars_fair.analyses.impact import impact_from_counts
from polars_fair.analyses.pairwise import pairwise_from_counts
from polars_fair.analyses.report import rates_from_counts, report_from_counts
from polars_fair.analyses.runner import analyse, check_clash, check_outputs
from polars_fair.analyses.scores.abroca import (
    abroca_from_scores,
    abroca_plan,
    abroca_test_from_scores,
    abroca_test_plan,
    roc_curves_from_scores,
    roc_curves_plan,
)
from polars_fair.analyses.scores.calibration import calibration_plan, reliability_plan
from polars_fair.analyses.strata import (
    NO_SETS,
    STRATIFIED_COLUMNS,
    check_strata,
    strata_names,
    stratified_from_counts,
)
from polars_fair.analyses.summary import summary_from_counts
from polars_fair.analyses.sweep import (
    DEFAULT_MAX_THRESHOLDS,
    SWEEP_THRESHOLDS,
    sweep_from_scores,
    threshold_items,
)
from polars_fair.analyses.thresholds import THRESHOLD_GRID, thresholds_from_scores
from polars_fair.analyses.uncertainty import disparity_table, metrics_table
from polars_fair.core.families import (
    BinOptions,
    DisparityOptions,
    ImpactOptions,
    LL144Options,
    ReportOptions,
    SummaryOptions,
    takes,
)
from polars_fair.core.options import (
    DEFAULTS,
    DivergenceAdjust,
)
from polars_fair.core.reference import Reference
from polars_fair.core.spec import (
    COUNT_ARGS,
    COUNT_ARGS_DOC,
    DEFAULT_MAX_GROUPS,
    MEMBERSHIP_ARGS,
    SCORE_ARGS,
    SCORE_ARGS_DOC,
    By,
    CountArgs,
    ScoreArgs,
    check_int,
    cli_rename,
    parse_by,
    refuse_membership,
    spell_out,
)
from polars_fair.counting import tables

__all__ = ["FairCounts", "FairScores", "counts", "scores"]

F = TypeVar("F", bound=Callable[..., Any])
Combinations = Literal["all"] | None

BY_DOC = """by : str or list of str, optional
    Roll the table up to these attributes (default: every key), or, with ``combinations``,
    name the attributes whose subsets are audited."""
SETS_DOC = """combinations : "all", optional
    Every non-empty subset of ``by`` up to ``max_order`` attributes, summed from the table.
max_order : int, optional
    The largest intersection with ``combinations="all"``."""

_COUNTS_EXAMPLE = """>>> import polars as pl
>>> from polars_fair import from_counts
>>> c = pl.DataFrame({"g": ["a", "b"], "n": [50, 50], "tp": [20, 10], "fp": [5, 5],
...                   "fn": [5, 15], "tn": [20, 20]})"""
_SCORES_EXAMPLE = """>>> import polars as pl
>>> from polars_fair import from_scores
>>> t = pl.DataFrame({"g": ["a", "a", "b", "b"], "score": [0.2, 0.8, 0.2, 0.8],
...                   "positives": [0, 5, 2, 3], "negatives": [5, 0, 3, 2]})"""


def _doc(source: Callable[..., Any], example: str, *,
         counts_table: bool = True, sets: bool = True) -> Callable[[F], F]:
    """Give a method the docstring of its module function, with its own parameters.

    ``sets=False``: the method takes no ``combinations``/``max_order`` (``stratified``).
    """
    def deco(method: F) -> F:
        setup = _COUNTS_EXAMPLE if counts_table else _SCORES_EXAMPLE
        method.__doc__ = compose(
            source.__doc__ or "", drop=("counts", "keys", "scores", "table", "score_dtype"),
            before=BY_DOC if counts_table else "",
            after=SETS_DOC if counts_table and sets else "",
            example=setup + "\n" + example.lstrip("\n"), returns="pl.LazyFrame",
        )
        return method
    return deco


def _resolve_reference(options: dict[str, Any], keys: Sequence[str]) -> None:
    """Resolve an analysis' ``reference=`` once, in place, into the value its plan receives.

    :meth:`polars_fair.core.reference.Reference.parse` over every attribute of the call (a
    mapping naming another is refused); every attribute set's plan then reads that one value.
    """
    if "reference" in options:
        options["reference"] = Reference.parse(options["reference"], keys)


class FairCounts:
    """A count table and every classification analysis on it.

    Made by :func:`counts` (rows, any engine), ``lf.fair.counts`` or :func:`from_counts` (a
    table made anywhere). Every method returns a LazyFrame; nothing is computed until it is
    collected, and the table is small (one row per group).

    Parameters
    ----------
    counted : polars_fair.counting.tables.Counted
        The lazy count table, its keys and its attribute sets.
    made_elsewhere : bool, default False
        The table was made elsewhere (``from_counts``, ``from_scores``): advice to rename a key
        renames the table's column, not a ``by=`` expression.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_counts
    >>> c = pl.DataFrame({"g": ["a", "b"], "n": [4, 4], "tp": [2, 1], "fp": [0, 1],
    ...                   "fn": [1, 1], "tn": [1, 1]})
    >>> from_counts(c).keys
    ['g']
    """

    def __init__(self, counted: tables.Counted, *, made_elsewhere: bool = False) -> None:
        self._counted = counted
        self.made_elsewhere = made_elsewhere  # a table's keys are renamed in the table
        self.keys = counted.keys
        self.sets = counted.sets

    @property
    def frame(self) -> pl.LazyFrame:
        """The count table (with ``attributes`` first for several attribute sets)."""
        return self._counted.frame

    def _select(self, by: By, combinations: Combinations, max_order: int | None) -> tables.Counted:
        """The count table rolled up to ``by`` (parsed here once: :func:`parse_by`)."""
        if by is None and combinations is None and max_order is None:
            return self._counted
        if self.sets is not None:
            wanted = [by] if isinstance(by, str) else by
            held = [s for s in self.sets if isinstance(wanted, list) and set(s) == set(wanted)]
            raise E.InvalidArgumentError(E.ROLLUP_OF_SETS.format(
                sets=[list(s) for s in self.sets], example=list((held or self.sets)[0])))
        limit = self._counted.max_groups
        attrs = parse_by(list(self.keys) if by is None else by, combinations, max_order,
                         max_groups=limit)
        names = list(dict.fromkeys(attrs.names))
        for k in names:
            if k not in self.keys:
                raise E.ColumnNotFoundError(E.missing_column(k, "by", self.keys))
        if attrs.sets is None:
            return tables.Counted(tables.rollup(self._counted.frame, names), names,
                                  max_groups=limit)
        if "n_effective" in self._counted.frame.collect_schema():  # estimated membership
            raise tables.membership_combinations([list(s) for s in attrs.sets], self.keys[0])
        union = [k for k in self.keys if any(k in s for s in attrs.sets)]
        return tables.expand_sets(tables.rollup(self._counted.frame, union), union,
                                  [list(s) for s in attrs.sets], max_groups=limit)

    def _run(self, fn: Callable[..., pl.LazyFrame], by: By, combinations: Combinations,
             max_order: int | None, **options: Any) -> pl.LazyFrame:
        counted = self._select(by, combinations, max_order)
        table = counted.frame
        paired = [k for k in counted.keys
                  if any(k == o + side for o in counted.keys for side in ("_i", "_j"))]
        if paired and self.made_elsewhere:
            raise E.InvalidArgumentError(E.KEY_SUFFIX_CLASH_TABLE.format(
                names=paired, example=paired[0],
                renamed=E.renamed(paired[0], taken=counted.keys)))
        if paired:
            raise E.InvalidArgumentError(
                E.KEY_SUFFIX_CLASH.format(names=paired, example=paired[0]),
                cli_message=cli_rename(E.KEY_SUFFIX_CLASH, paired))
        elsewhere = self.made_elsewhere
        if counted.sets is not None:
            check_clash(counted.keys, ["attributes"], fn.__name__, made_elsewhere=elsewhere)
            table = table.drop("attributes")
        _resolve_reference(options, counted.keys)
        check_outputs(table, counted.keys, fn, fn.__name__, made_elsewhere=elsewhere, **options)
        return analyse(counted, lambda lf, keys: fn(lf, keys, **options))

    def confusion(self, by: By = None, *, combinations: Combinations = None,
                  max_order: int | None = None) -> pl.LazyFrame:
        """The count table, rolled up to ``by``.

        Parameters
        ----------
        by : str or list of str, optional
            The attributes to roll up to (default: every key).
        combinations : "all", optional
            Every non-empty subset of ``by``, stacked under ``attributes``.
        max_order : int, optional
            The largest intersection with ``combinations="all"``.

        Returns
        -------
        pl.LazyFrame
            Keys, ``n, tp, fp, fn, tn`` (Int64; Float64 weighted cells and ``weight_sum``).

        Raises
        ------
        ColumnNotFoundError
            ``by`` names a column that is not a key.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_fair import from_counts
        >>> c = pl.DataFrame({"a": ["x", "x"], "b": [1, 2], "n": [3, 2], "tp": [1, 1],
        ...                   "fp": [1, 0], "fn": [0, 1], "tn": [1, 0]})
        >>> from_counts(c).confusion("a").collect().rows()
        [('x', 5, 2, 1, 1, 1)]
        """
        return self._select(by, combinations, max_order).frame

    @_doc(rates_from_counts, """>>> from_counts(c).rates().collect()["selection_rate"].to_list()
[0.5, 0.3]""")
    def rates(self, by: By = None, *, combinations: Combinations = None,
              max_order: int | None = None) -> pl.LazyFrame:  # noqa: D102
        return self._run(rates_from_counts, by, combinations, max_order)

    @_doc(report_from_counts, """>>> from_counts(c).report().collect()["impact_ratio"].to_list()
[1.0, 0.6]""")
    @takes(ReportOptions, after="by")
    def report(self, by: By = None, *, combinations: Combinations = None,
               max_order: int | None = None,
               **options: Unpack[ReportOptions]) -> pl.LazyFrame:  # noqa: D102
        return self._run(report_from_counts, by, combinations, max_order, **options)

    @_doc(metrics_table, """>>> from_counts(c).metrics().collect().height  # 2 groups x 13 metrics
26""")
    def metrics(self, by: By = None, *, level: float = DEFAULTS.level,
                min_support: float = DEFAULTS.min_support,
                combinations: Combinations = None, max_order: int | None = None,
                ) -> pl.LazyFrame:  # noqa: D102
        return self._run(metrics_table, by, combinations, max_order, level=level,
                         min_support=min_support)

    @_doc(disparity_table, """
>>> from_counts(c).disparity(reference="a").collect()["ratio"].to_list()
[1.0, 0.6]""")
    @takes(DisparityOptions, after="by")
    def disparity(self, by: By = None, *, combinations: Combinations = None,
                  max_order: int | None = None,
                  **options: Unpack[DisparityOptions]) -> pl.LazyFrame:  # noqa: D102
        return self._run(disparity_table, by, combinations, max_order, **options)

    @_doc(pairwise_from_counts, """
>>> from_counts(c).pairwise(metrics="ofi").collect()["ofi"].to_list()
[0.2, -0.2]""")
    def pairwise(self, by: By = None, *,
                 metrics: str | Sequence[str] = DEFAULTS.metrics,
                 max_pairs: int = DEFAULTS.max_pairs,
                 combinations: Combinations = None, max_order: int | None = None,
                 ) -> pl.LazyFrame:  # noqa: D102
        return self._run(pairwise_from_counts, by, combinations, max_order, metrics=metrics,
                         max_pairs=max_pairs)

    @_doc(summary_from_counts, """>>> s = from_counts(c).summary().collect()
>>> s.filter(pl.col("metric") == "demographic_parity_difference")["value"].item()
0.2""")
    @takes(SummaryOptions, after="by")
    def summary(self, by: By = None, *, combinations: Combinations = None,
                max_order: int | None = None,
                **options: Unpack[SummaryOptions]) -> pl.LazyFrame:  # noqa: D102
        return self._run(summary_from_counts, by, combinations, max_order, **options)

    @_doc(impact_from_counts, """
>>> t = from_counts(c).impact_analysis().collect()
>>> t.select("g", "impact_ratio", "shortfall", "practically_significant").rows()
[('a', 1.0, 0.0, None), ('b', 0.6, 10.0, False)]""")
    @takes(ImpactOptions, after="by")
    def impact_analysis(self, by: By = None, *, combinations: Combinations = None,
                        max_order: int | None = None,
                        **options: Unpack[ImpactOptions]) -> pl.LazyFrame:  # noqa: D102
        return self._run(impact_from_counts, by, combinations, max_order, **options)

    @_doc(stratified_from_counts, """>>> c = c.with_columns(dept=pl.lit("A"))
>>> s = from_counts(c).stratified(strata="dept").collect()
>>> s.select("g", "n_strata", "mh_odds_ratio").rows()
[('a', None, None), ('b', 1, 0.42857142857142855)]""", sets=False)
    def stratified(self, by: By = None, strata: str | Sequence[str] | None = None, *,
                   reference: Any = DEFAULTS.reference, level: float = DEFAULTS.level,
                   continuity_correction: bool = DEFAULTS.continuity_correction,
                   ) -> pl.LazyFrame:  # noqa: D102
        if self.sets is not None:  # a table of stacked attribute sets (combinations=)
            raise E.InvalidArgumentError(NO_SETS)
        groups = None if by is None else list(parse_by(by).names)
        names = strata_names(strata, groups or ())
        check_strata(names, self.keys, groups)
        counted = self._select(None if groups is None else [*groups, *names], None, None)
        check_clash([k for k in counted.keys if k not in names], STRATIFIED_COLUMNS,
                    "stratified", made_elsewhere=self.made_elsewhere)
        return analyse(counted, lambda lf, keys: stratified_from_counts(
            lf, keys, strata=names, reference=reference, level=level,
            continuity_correction=continuity_correction))

    @_doc(availability_from_counts, """
>>> a = from_counts(c).availability(benchmark={"g": {"a": 0.4, "b": 0.6}}).collect()
>>> a.select("g", "count", "expected", "shortfall").rows()
[('a', 50, 40.0, -10.0), ('b', 50, 60.0, 10.0)]""", sets=False)
    def availability(self, by: By = None,
                     benchmark: Mapping[str, Mapping[Any, float]] | None = None,
                     ) -> pl.LazyFrame:  # noqa: D102
        attributes = benchmark_attributes(benchmark)
        if self.sets is not None:  # a table of stacked attribute sets (combinations=)
            raise E.InvalidArgumentError(E.AVAILABILITY_SETS)
        # the table is rolled up to by first (when given): it must hold the attributes
        check_benchmark_columns(attributes, self.keys,
                                None if by is None else list(parse_by(by).names))
        counted = self._select([[a] for a in attributes] if len(attributes) > 1 else attributes,
                               None, None)
        return analyse(counted, lambda lf, keys: availability_from_counts(
            lf, keys, benchmark=benchmark))

    @_doc(bias_audit_from_counts, """
>>> from_counts(c).bias_audit().collect()["impact_ratio"].to_list()
[1.0, 0.6]""")
    @takes(LL144Options, after="by")
    def bias_audit(self, by: By = None, *, combinations: Combinations = None,
                   max_order: int | None = None,
                   **options: Unpack[LL144Options]) -> pl.LazyFrame:  # noqa: D102
        counted = self._select(by, combinations, max_order)  # sets: LL 144's unless given
        return bias_audit_plan(counted.frame, counted.keys, **options)

    def divergence(self, by: By = None, *, metric: str = DEFAULTS.divergence_metric,
                   max_order: int | None = None,
                   min_support: float = DEFAULTS.divergence_min_support,
                   min_denominator: float = DEFAULTS.min_denominator, level: float = DEFAULTS.level,
                   adjust: DivergenceAdjust = DEFAULTS.divergence_adjust,
                   max_patterns: int = DEFAULT_MAX_PATTERNS) -> pl.LazyFrame:  # noqa: D102
        return divergence_of_counts(self, by, metric=metric, max_order=max_order,
                                    min_support=min_support, min_denominator=min_denominator,
                                    level=level, adjust=adjust, max_patterns=max_patterns)

    divergence.__doc__ = COUNTS_METHOD_DOC


class FairScores:
    """A score table and every score-based analysis on it.

    Made by :func:`scores` (rows, any engine), ``lf.fair.score_counts`` or :func:`from_scores`.
    Every method returns a LazyFrame whose one step hands the small score table to numpy.

    Parameters
    ----------
    table : pl.LazyFrame
        The score table.
    keys : list of str
        Its key columns.
    score_dtype : pl.DataType
        The dtype the scores had before they were widened to Float64; thresholds are compared
        in it.
    made_elsewhere : bool, default False
        The table was made elsewhere (``from_counts``, ``from_scores``): advice to rename a key
        renames the table's column, not a ``by=`` expression.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_scores
    >>> t = pl.DataFrame({"g": ["a"], "score": [0.5], "positives": [1], "negatives": [1]})
    >>> from_scores(t).keys
    ['g']
    """

    def __init__(self, table: pl.LazyFrame, keys: list[str],
                 score_dtype: pl.DataType | None = None, *, made_elsewhere: bool = False) -> None:
        self._table = table
        self.made_elsewhere = made_elsewhere  # a table's keys are renamed in the table
        self.keys = keys
        self.score_dtype = score_dtype if score_dtype is not None else pl.Float64()

    @property
    def frame(self) -> pl.LazyFrame:
        """The score table: keys, ``score``, ``positives``, ``negatives`` [, ``n_rows``]."""
        return self._table

    def _run(self, plan: Callable[..., pl.LazyFrame], name: str, **options: Any) -> pl.LazyFrame:
        if isinstance(options.get("thresholds"), Iterator):  # read once (bounded), then checked
            options["thresholds"] = threshold_items(options["thresholds"],
                                                    options["max_thresholds"], name)
        _resolve_reference(options, self.keys)
        check_outputs(self._table, self.keys, plan, name, made_elsewhere=self.made_elsewhere,
                      **options)
        return plan(self._table, self.keys, **options)

    @_doc(abroca_from_scores, """>>> from_scores(t).abroca(reference="a").collect()["auc"].to_list()
[1.0, 0.6]""", counts_table=False)
    def abroca(self, *, reference: Any = DEFAULTS.reference,
               pairwise: bool = DEFAULTS.pairwise) -> pl.LazyFrame:  # noqa: D102
        return self._run(abroca_plan, "abroca", reference=reference, pairwise=pairwise)

    @_doc(abroca_test_from_scores, """
>>> p = from_scores(t).abroca_test(reference="a", n_permutations=99, seed=0).collect()
>>> 0 < p["p_value"].item() <= 1
True""", counts_table=False)
    def abroca_test(self, *, reference: Any = DEFAULTS.reference,
                    n_permutations: int = DEFAULTS.n_permutations,
                    seed: int | None = None, tolerance: float = DEFAULTS.tolerance,
                    return_draws: bool = DEFAULTS.return_draws, progress: bool | None = None,
                    ) -> pl.LazyFrame:  # noqa: D102
        return self._run(abroca_test_plan, "abroca_test", reference=reference,
                         n_permutations=n_permutations, seed=seed, tolerance=tolerance,
                         return_draws=return_draws, progress=progress)

    @_doc(calibration_plan, """
>>> from_scores(t).calibration(n_bins=2).collect()["n"].to_list()
[10, 10]""", counts_table=False)
    @takes(BinOptions)
    def calibration(self, **options: Unpack[BinOptions]) -> pl.LazyFrame:  # noqa: D102
        return self._run(calibration_plan, "calibration", **options)

    @_doc(reliability_plan, """>>> from_scores(t).reliability(n_bins=2).collect().height
4""", counts_table=False)
    @takes(BinOptions)
    def reliability(self, **options: Unpack[BinOptions]) -> pl.LazyFrame:  # noqa: D102
        return self._run(reliability_plan, "reliability", **options)

    @_doc(sweep_from_scores, """
>>> s = from_scores(t).sweep(thresholds=[0.5], min_support=1).collect()
>>> s.select("g", "tp", "fp", "tpr", "impact_ratio").rows()
[('a', 5, 0, 1.0, 1.0), ('b', 3, 2, 0.6, 1.0)]""", counts_table=False)
    @takes(ReportOptions, after="thresholds")
    def sweep(self, *, thresholds: Sequence[float] = SWEEP_THRESHOLDS,
              max_thresholds: int = DEFAULT_MAX_THRESHOLDS,
              max_groups: int = DEFAULT_MAX_GROUPS,
              **options: Unpack[ReportOptions]) -> pl.LazyFrame:  # noqa: D102
        return self._run(sweep_from_scores, "sweep", thresholds=thresholds,
                         max_thresholds=max_thresholds, max_groups=max_groups,
                         score_dtype=self.score_dtype, **options)

    @_doc(thresholds_from_scores, """
>>> th = from_scores(t).thresholds(thresholds=[0.5, 0.9], min_support=1).collect()
>>> th.select("threshold", "accuracy", "min_impact_ratio", "all_pass").rows()
[(0.5, 0.8, 1.0, True), (0.9, 0.5, None, False)]""", counts_table=False)
    @takes(ReportOptions, after="thresholds")
    def thresholds(self, *, thresholds: Sequence[float] = THRESHOLD_GRID,
                   max_thresholds: int = DEFAULT_MAX_THRESHOLDS,
                   max_groups: int = DEFAULT_MAX_GROUPS,
                   **options: Unpack[ReportOptions]) -> pl.LazyFrame:  # noqa: D102
        return self._run(thresholds_from_scores, "thresholds", thresholds=thresholds,
                         max_thresholds=max_thresholds, max_groups=max_groups,
                         score_dtype=self.score_dtype, **options)

    @_doc(bias_audit_from_scores, """
>>> from_scores(t).bias_audit().collect()["scoring_rate"].to_list()
[0.5, 0.5]""", counts_table=False)
    @takes(LL144Options)
    def bias_audit(self, **options: Unpack[LL144Options]) -> pl.LazyFrame:  # noqa: D102
        return bias_audit_plan(self._table, self.keys, scores=True, **options)

    @_doc(roc_curves_from_scores, """>>> roc = from_scores(t).roc_curves().collect()
>>> roc.filter(pl.col("g") == "b")["tpr"].to_list()
[0.0, 0.6, 1.0]""", counts_table=False)
    def roc_curves(self) -> pl.LazyFrame:  # noqa: D102
        return self._run(roc_curves_plan, "roc_curves")


# ------------------------------------------------------------------------- ways in
@functools.cache
def _option_names() -> tuple[str, ...]:
    """Every keyword of an analysis method: a misspelling of one gets "did you mean"."""
    return tuple(dict.fromkeys(
        p for cls in (FairCounts, FairScores) for name, fn in vars(cls).items()
        if not name.startswith("_") and inspect.isfunction(fn)
        for p in inspect.signature(fn).parameters if p != "self"))


def _did_you_mean(unknown: Sequence[str], declared: dict[str, Any]) -> str:
    # a name accepted elsewhere (threshold= by counts, not scores) is not a misspelling
    known = [*declared, *COUNT_ARGS, *SCORE_ARGS, *_option_names()]
    return E.closest([n for n in unknown if n not in known], known)


def _args(given: dict[str, Any], declared: dict[str, Any], what: str) -> dict[str, Any]:
    unknown = [k for k in given if k not in declared]
    if any(k in MEMBERSHIP_ARGS for k in unknown):  # a table of crisp groups: say why
        refuse_membership(given, f"a {what} analysis", f"{what} table")
    if unknown:
        raise E.InvalidArgumentError(E.UNKNOWN_ARGUMENT.format(
            names=unknown, what=what, valid=list(declared),
            hint=_did_you_mean(unknown, declared)))
    return {**declared, **given}


def counts(frame: Any, by: By = None, **count_args: Unpack[CountArgs]) -> FairCounts:
    """Count the rows of a Polars, Spark or DuckDB frame once, into a :class:`FairCounts`.

    One aggregation in the frame's own engine produces the small label table of
    :mod:`polars_fair.counting.boundary`; only that table leaves the engine, and the same checks run
    on it for every engine.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows.
    by : str, expression or list of them, optional
        The attributes (several = their intersection; ``None`` = the whole population).
    **count_args
        The count arguments: ``y_true``, ``y_pred``, ``pos_label``, ``sample_weight``,
        ``null_groups``, ``y_score``, ``threshold``, ``combinations``, ``max_order``
        (:class:`polars_fair.core.spec.CountArgs`).

    Returns
    -------
    FairCounts
        Every classification analysis, on the count table.

    Raises
    ------
    InvalidArgumentError
        An unknown argument or frame type.
    ColumnNotFoundError, InvalidLabelError, NullValuesError, EmptyFrameError
        The input errors of the count table (data errors when a result is collected).

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y_true": [1, 0, 1], "y_pred": [1, 1, 0]})
    >>> polars_fair.counts(df, "g").report(min_support=1).collect()["ofi"].to_list()
    [0.0, -1.5]
    """
    return _counts(frame, by, dict(count_args))


def pattern_counts(frame: Any, by: By = None, *, binned: Mapping[str, pl.DataType] | None = None,
                   **count_args: Unpack[CountArgs]) -> FairCounts:
    """:func:`counts` for a pattern search that shows no group below a minimum support.

    Each attribute is checked as :func:`counts` checks it, but not their intersection
    (:func:`polars_fair.counting.boundary.check_row_levels`): ``divergence`` reads the finest
    table only to sum its frequent patterns, and never shows a group of one row.

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows (as :func:`counts`).
    by : str, expression or list of them, optional
        The attributes, each checked alone.
    binned : mapping of str to pl.DataType, optional
        The attributes that ``bins=`` cut into bins, with their dtypes before: a level error
        names that dtype and advises fewer bins
        (:func:`polars_fair.errors.binned_levels_error`).
    **count_args
        As :func:`counts`.

    Returns
    -------
    FairCounts
        The finest table of ``by``.

    Raises
    ------
    ColumnNotFoundError, InvalidArgumentError, InvalidLabelError, TooManyLevelsError
        As :func:`counts`, but for the intersection of the attributes.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [f"a{i % 8}" for i in range(32)],
    ...                    "b": [f"b{i // 8 % 2}{i // 16}" for i in range(32)],
    ...                    "y_true": [1, 0] * 16, "y_pred": [1, 1, 0, 0] * 8})
    >>> pattern_counts(df, ["a", "b"]).frame.collect().height  # 32 groups of one row
    32
    """
    return _counts(frame, by, dict(count_args), intersection=False, binned=binned)


def _counts(frame: Any, by: By, count_args: dict[str, Any], *,
            intersection: bool = True,
            binned: Mapping[str, pl.DataType] | None = None) -> FairCounts:
    args = _args(count_args, COUNT_ARGS, "count")
    combinations, max_order = args.pop("combinations"), args.pop("max_order")
    engine = tables.engine_of(frame)
    limit = args["max_groups"] = check_int(args["max_groups"], "max_groups")
    attrs = parse_by(by, combinations, max_order, max_groups=limit)  # the one parse of by
    if not intersection:
        args["intersection"] = False
    if binned:
        args["binned"] = binned
    return FairCounts(tables.count_tables(engine, attrs, **args))


def scores(frame: Any, by: By = None, **score_args: Unpack[ScoreArgs]) -> FairScores:
    """Count the rows of a Polars, Spark or DuckDB frame into a score table (:class:`FairScores`).

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows.
    by : str, expression or list of them, optional
        The attributes.
    **score_args
        ``y_true``, ``y_score``, ``pos_label``, ``sample_weight``, ``null_groups``
        (:class:`polars_fair.core.spec.ScoreArgs`).

    Returns
    -------
    FairScores
        Every score-based analysis, on the score table.

    Raises
    ------
    InvalidArgumentError
        An unknown argument or frame type.
    InvalidScoreError
        Null, NaN or infinite scores (at collect time).

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> df = pl.DataFrame({"g": ["a", "a"], "y_true": [1, 0], "y_score": [0.9, 0.1]})
    >>> polars_fair.scores(df, "g").abroca().collect()["auc"].to_list()
    [1.0]
    """
    args = _args(dict(score_args), SCORE_ARGS, "score")
    table, keys, dtype = tables.score_table(tables.engine_of(frame), by, **args)
    return FairScores(table, keys, dtype)


for _fn, _scores in ((counts, False), (scores, True)):  # arguments spelled out for help()
    spell_out(_fn, _scores)
    _fn.__doc__ = compose(_fn.__doc__ or "", drop=("**score_args" if _scores else "**count_args",),
                          after=SCORE_ARGS_DOC if _scores else COUNT_ARGS_DOC)
