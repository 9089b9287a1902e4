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

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Unpack

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow, compose, expand_signature
from polars_fair.analyses.bias_audit import ONE_OUTCOME, _categories, _check_categories
from polars_fair.analyses.divergence import (
    DEFAULT_MAX_PATTERNS,
    LEVELS_ABOVE,
    Adjust,
    Bins,
    Strategy,
    _by_levels,
    bin_attributes,
    divergence_from_counts,
    divergence_of_counts,
)
from polars_fair.api.classes import class_counts
from polars_fair.api.objects import counts, pattern_counts, scores
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import (
    COUNT_ARGS,
    COUNT_ARGS_DOC,
    DEFAULT_MAX_GROUPS,
    By,
    IntoExpr,
    RowArgs,
    check_int,
    normalize_by,
    refuse_membership,
    to_expr,
)
from polars_fair.counting import tables
from polars_fair.counting.classes import hidden_classes
from polars_fair.counting.membership import parse_membership

__all__ = ["bias_audit", "divergence_of_rows", "namespace_divergence"]


def bias_audit(
    frame: Any,
    categories: IntoExpr | Sequence[IntoExpr],
    *,
    y_pred: IntoExpr | None = None,
    y_score: IntoExpr | None = None,
    pos_label: Any = None,
    sample_weight: IntoExpr | None = None,
    min_share: float = DEFAULTS.min_share,
    exclude_small: bool = DEFAULTS.exclude_small,
    classes: Sequence[Any] | None = None,
    plain_benchmark: bool = DEFAULTS.plain_benchmark,
    min_support: float = DEFAULTS.min_support,
    membership: Mapping[str, Mapping[Any, IntoExpr]] | None = None,
    membership_estimator: Literal["weighted", "argmax", "regression"] = "weighted",
    normalize: bool = False,
    max_groups: int = DEFAULT_MAX_GROUPS,
) -> pl.LazyFrame:
    """Bias audit of an automated employment decision tool (NYC Local Law 144 of 2021), from rows.

    For each category of each attribute alone (for example sex; race/ethnicity) and of the
    intersection of all of them (sex × race), following 6 RCNY § 5-300 (definitions) and
    § 5-301 (bias audit): with ``y_pred`` the selection rate of each category, with ``y_score``
    its scoring rate (the share scoring **strictly** above the median of the **whole sample**,
    every row counted, rows of unknown category included; with ``sample_weight`` the weighted
    median), and each category's impact ratio against the highest rate of its attribute set.
    Categories under ``min_share`` of the rows are flagged (and with ``exclude_small`` left out
    of the impact ratios); rows of unknown category (a null attribute) are a row of their own,
    never in the impact ratios, and counted in ``unknown_rows``.

    The rows are counted once, through the counting boundary of every analysis, and the audit
    is the one of the count or score table: ``polars_fair.counts(frame, categories,
    y_true=None, y_pred=..., null_groups="keep").bias_audit(...)``
    (:func:`~polars_fair.analyses.bias_audit.bias_audit_from_counts`) or
    ``polars_fair.scores(frame, categories, y_true=None, y_score=...).bias_audit(...)``
    (:func:`~polars_fair.analyses.bias_audit.bias_audit_from_scores`), whose docstrings give the
    formulas, the exact rules and every column. Labels (``y_true``) are not used: LL 144 audits
    outcomes only.

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
    pos_label : Any, optional
        The value of ``y_pred`` meaning "selected", of its dtype (``1``, ``"yes"``, ``True``);
        default ``1``. Not with ``classes`` (an error); ignored with ``y_score``. When the
        default does not fit a ``y_pred`` of more than two values, the error lists them and
        advises ``classes=``.
    sample_weight : str or pl.Expr, optional
        Non-negative row weights. ``selected`` / ``scored_above_median`` become Float64 weighted
        sums, ``weight_sum`` (Float64) is added after ``n``, rates divide by ``weight_sum`` and
        the median is weighted. ``n``, ``share`` and ``unknown_rows`` stay row counts.
    min_share : float, default 0.02
        A category with a smaller share of the rows is flagged ``small_category``.
    exclude_small : bool, default False
        Leave small categories out of the impact ratios (their rows are still reported).
    classes : sequence, optional
        A tool that classifies (6 RCNY § 5-301(b)(4)): ``y_pred`` holds one of these classes
        and the audit is one selection table per class ("assigned this class" = selected),
        stacked under a ``class`` column
        (:func:`~polars_fair.analyses.bias_audit.bias_audit_from_classes`). An Enum
        ``y_pred`` with more than two categories is audited per class without it.
        Refused with ``y_score`` or ``pos_label`` (``InvalidArgumentError``).
    plain_benchmark : bool, default False
        Any category may set the benchmark (LL 144's plain rule); by default only those with
        ``min_support`` rows (``report``'s rule), when some have (``benchmark_eligible``).
    min_support : float, default 30
        The rows a benchmark category needs.

    Returns
    -------
    pl.LazyFrame
        With ``y_pred``, the table of
        :func:`~polars_fair.analyses.bias_audit.bias_audit_from_counts`: ``attributes``, one
        column per attribute, ``n`` (Int64) [, ``weight_sum``], ``selected``,
        ``selection_rate`` (Float64 in [0, 1]), ``share``, ``small_category``,
        ``unknown_category``, ``excluded``, ``impact_ratio`` (Float64, null when excluded or
        undefined), ``unknown_rows`` (Int64), ``benchmark_eligible``. With ``y_score``, the table of
        :func:`~polars_fair.analyses.bias_audit.bias_audit_from_scores`: ``scored_above_median``
        and ``scoring_rate`` in their place, and ``median_score`` (Float64).

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({
    ...     "sex": ["M", "M", "M", "F", "F", "F", None],
    ...     "hired": [1, 1, 0, 1, 0, 0, 1],
    ... })
    >>> bias_audit(df.lazy(), ["sex"], y_pred="hired").collect().select(
    ...     "sex", "n", "selected", "excluded", "impact_ratio", "unknown_rows").rows()
    [('F', 3, 1, False, 0.5, 1), ('M', 3, 2, False, 1.0, 1), (None, 1, 1, True, None, 1)]
    """
    cats = _categories(categories)
    max_groups = check_int(max_groups, "max_groups", limit="max_groups")
    if (y_pred is None) == (y_score is None):
        raise E.InvalidArgumentError(ONE_OUTCOME)
    member = parse_membership(membership, membership_estimator, normalize)  # reads no data
    if cats or member is None:  # with membership its attribute alone is a category
        _check_categories(frame, cats, [c for c in (y_pred, y_score, sample_weight)
                                        if isinstance(c, str)])
    if member is not None and (y_pred is None or classes is not None
                               or _many_classes(frame, y_pred)):
        refuse_membership({"membership": membership}, "bias_audit",
                          "score table" if y_pred is None else "class table")
    if classes is not None and (y_score is not None or pos_label is not None):
        raise E.InvalidArgumentError(E.CLASSES_CONFLICT.format(
            other="y_score= (a score)" if y_score is not None else
            f"pos_label={pos_label!r} (a binary selection)",
            advice="pass y_pred= a class column with classes=, or leave classes= out"))
    audit: dict[str, Any] = {"min_share": min_share, "exclude_small": exclude_small,
                             "plain_benchmark": plain_benchmark, "min_support": min_support}
    if y_pred is not None and (classes is not None or _many_classes(frame, y_pred)):
        return class_counts(frame, cats, y_pred=y_pred, classes=classes,
                            sample_weight=sample_weight, null_groups="keep",
                            max_groups=max_groups).bias_audit(**audit)
    if y_pred is not None:
        estimated: dict[str, Any] = {} if member is None else {
            "membership": membership, "membership_estimator": membership_estimator,
            "normalize": normalize}
        try:
            counted = counts(frame, cats or None, y_true=None, y_pred=y_pred,
                             pos_label=1 if pos_label is None else pos_label,
                             sample_weight=sample_weight, null_groups="keep",
                             max_groups=max_groups, **estimated)
        except E.InvalidLabelError as err:  # pos_label=1 does not fit: classes, perhaps
            if pos_label is not None or member is not None:
                raise
            raise _classes_advice(frame, cats, y_pred) or err from err
        return counted.bias_audit(**audit)
    assert y_score is not None
    scored = scores(frame, cats, y_true=None, y_score=y_score,
                    sample_weight=sample_weight, null_groups="keep")
    return scored.bias_audit(**audit)


#: What :func:`bias_audit` raises (composed into its docstring: kept short, the function).
_BIAS_AUDIT_RAISES = """ColumnNotFoundError
    A named column is missing (lists the columns). Raised at once.
InvalidArgumentError
    Neither or both of ``y_pred`` / ``y_score``; ``classes`` with ``y_score`` or
    ``pos_label``; no categories; repeated or reserved attribute names; ``min_share`` not
    a number in [0, 1] (NaN included). Raised at once.
InvalidLabelError
    ``pos_label`` of the wrong dtype (at once; without ``pos_label``, a ``y_pred`` of more
    than two values is named with them and the advice ``classes=``); ``y_pred`` holding
    ``pos_label`` and more than one other value (at collect time, advising ``classes=``).
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
SizeLimitError
    The Enum categories' intersections hold more than ``max_groups`` groups (at once)."""

#: Its membership and table-size parameters (composed in, after its own).
_BIAS_AUDIT_LAST_PARAMS = """\
membership : mapping of str to mapping of group value to str or pl.Expr, optional
    Estimated membership as a category (``{"race": {"White": "p_white", ...}}``), first
    among the categories (``categories`` may then be empty), as ``availability`` and
    ``divergence`` take it: with ``membership_estimator="argmax"`` each applicant counts in
    their most likely group, a crisp category. The default ``"weighted"`` count table is
    refused (``InvalidArgumentError``: LL 144's shares divide a category's rows by all
    rows, and that table counts a row in every group it may belong to), and so is
    membership with ``y_score`` or ``classes`` (their tables count each row in one group).
membership_estimator : {"weighted", "argmax", "regression"}, default "weighted"
    With ``membership``: ``"argmax"`` is the one the audit takes.
normalize : bool, default False
    With ``membership``: divide each row's probabilities by their sum.
max_groups : int, default 10000
    The most groups the count table may make, as for every count table
    (:func:`~polars_fair.api.objects.counts`): the empty intersections of ``pl.Enum``
    categories. A larger table raises ``SizeLimitError`` (stating its size) before any row
    is read; checked (an integer >= 1, at most its limit) with ``y_score`` too."""
bias_audit.__doc__ = compose(bias_audit.__doc__ or "", after=_BIAS_AUDIT_LAST_PARAMS,
                             raises=_BIAS_AUDIT_RAISES)


def _classes_advice(frame: Any, cats: list[Any], y_pred: Any) -> E.InvalidLabelError | None:
    """The advice to pass ``classes=`` for a prediction of more than two values, else None.

    Read on the error path only: one scan into the class table, whose classes are few.
    """
    table = class_counts(frame, cats, y_pred=y_pred, null_groups="keep").frame.collect()
    found = table["y_pred"].unique().sort().to_list()
    if len(found) <= 2 or hidden_classes(table, "y_pred"):  # no values of a name or birth date
        return None
    name = y_pred if isinstance(y_pred, str) else to_expr(y_pred).meta.output_name()
    return E.InvalidLabelError(E.MANY_CLASSES_LL144.format(
        column=name, values=E.show_values(found, limit=8),
        classes=E.show_classes(found, name)))


def _many_classes(frame: Any, y_pred: Any) -> bool:
    """An Enum prediction with more than two categories: a tool that classifies."""
    if not isinstance(y_pred, (str, pl.Expr)):
        return False
    schema = tables.engine_of(frame).schema()
    try:
        dtype = pl.LazyFrame(schema=schema).select(to_expr(y_pred)).collect_schema().dtypes()[0]
    except pl.exceptions.PolarsError:
        return False  # the counting boundary names the problem
    return isinstance(dtype, pl.Enum) and dtype.categories.len() > 2


def _kept_rows(schema: pl.Schema, by: Any, args: dict[str, Any]) -> pl.Expr | None:
    """With ``null_groups="drop"``, the rows whose every attribute is present (NaN is missing)."""
    if args.get("null_groups") != "drop":
        return None
    present = [(pl.col(b).fill_nan(None) if schema[b].is_float() else pl.col(b)).is_not_null()
               if isinstance(b, str) and b in schema else
               (b.is_not_null() if isinstance(b, pl.Expr) else pl.lit(True))
               for b in normalize_by(by)]
    return pl.all_horizontal(present) if present else None


@borrow(divergence_of_counts, params=("metric", "max_order", "min_support", "min_denominator",
                                     "level", "adjust", "max_patterns"), sections=("Returns",))
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
    bins : mapping of str to int, or sequence, numpy array or Series of numbers, optional
        Numeric attributes to bin: a number of quantile bins or the edges
        (:func:`bin_attributes`).
    strategy : {"auto", "finest", "levels"}, default "auto"
        ``"finest"``: one scan into the count table over every attribute, patterns enumerated
        from it (fastest while that table fits in memory). ``"levels"``: level by level on the
        rows, one count table per candidate attribute set, never the finest table (for a
        Spark or DuckDB frame over many attributes; ``null_groups="drop"`` is refused).
        ``"auto"``: ``"levels"`` for a Spark or DuckDB frame over more than
        :data:`LEVELS_ABOVE` attributes, else ``"finest"``.
    **count_args
        The count arguments that read rows (:class:`polars_fair.core.spec.RowArgs`).

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
    binned: dict[str, pl.DataType] = {}
    if bins:
        if isinstance(frame, pl.DataFrame):
            frame = frame.lazy()
        if not isinstance(frame, pl.LazyFrame):
            raise _bins_need_polars(frame, bins)
        before = frame.collect_schema()
        frame = bin_attributes(frame, bins, by, among=_kept_rows(before, by, args))
        # a binned attribute's labels are text: its level errors name its own dtype and
        # advise fewer bins (errors.binned_levels_error), not leaving a text column out
        binned = {c: before[c] for c in bins}
    polars = isinstance(frame, (pl.DataFrame, pl.LazyFrame))
    if strategy == "levels" or (strategy == "auto" and not polars
                                and len(normalize_by(by)) > LEVELS_ABOVE):
        return _by_levels(frame, by, {**args, "binned": binned}, metric=metric, max_order=max_order,
                          min_support=min_support, min_denominator=min_denominator,
                          level=level, adjust=adjust, max_patterns=max_patterns)
    return pattern_counts(frame, by, binned=binned, **args).divergence(
        metric=metric, max_order=max_order, min_support=min_support,
        min_denominator=min_denominator, level=level, adjust=adjust, max_patterns=max_patterns)


def _bins_need_polars(frame: Any, bins: Any) -> E.InvalidArgumentError:
    """BINS_NEED_POLARS with the first binned column written as SQL in the frame's engine.

    A number of bins is the quantile bin ``bins=k`` cuts (numpy's ``Q(b/k)`` at exact positions,
    :func:`polars_fair.core.rules.quantile_positions`), numbered 1 to ``k``: a value with ``r``
    non-missing values below it among ``m`` is in bin ``max(1, ceil(r k / (m - 1)))``, the first
    ``b`` with ``r <= floor(b (m - 1) / k)``; ``r`` is ``RANK() - 1``, so tied values share a
    bin (``NTILE(k)`` split them by row position). The quotient of the integers ``r k`` and
    ``m - 1`` rounds, as a double, onto an integer only when it is one (while ``r k < 2^53``),
    so its ceiling is exact. Edges are a
    ``CASE`` of ``c < edge`` tests. DuckDB adds it with ``rel.select``, Spark with
    ``df.selectExpr`` (both read the same SQL).
    """
    column, spec = next(iter(bins.items())) if isinstance(bins, dict) and bins else ("x", 5)
    sql_col = column if str(column).isidentifier() else '"' + str(column).replace('"', '""') \
        + '"'
    binned = f"{column}_bin"
    if isinstance(spec, (list, tuple)) and spec and all(isinstance(e, (int, float))
                                                       for e in spec):
        edges = sorted(spec)
        labels = [f"< {edges[0]!r}"] + [f"[{a!r}, {b!r})"
                                          for a, b in zip(edges, edges[1:], strict=False)]
        cases = " ".join(f"WHEN {sql_col} < {e!r} THEN '{label}'"
                         for e, label in zip(edges, labels, strict=True))
        expr = f"CASE {cases} ELSE '>= {edges[-1]!r}' END"
    else:
        k = spec if isinstance(spec, int) and not isinstance(spec, bool) and spec >= 2 else 5
        m = f"COUNT({sql_col}) OVER ()"
        below = f"RANK() OVER (ORDER BY {sql_col} NULLS LAST) - 1"
        expr = (f"CASE WHEN {sql_col} IS NULL THEN NULL WHEN {m} < 2 THEN 1 ELSE GREATEST(1, "
                f"CAST(CEIL(({below}) * {k} / CAST({m} - 1 AS DOUBLE)) AS INTEGER)) END")
    sql = f"{expr} AS {binned}"
    kind = "spark" if type(frame).__module__.startswith("pyspark") else "duckdb"
    example = E.BINS_NEED_POLARS_EXAMPLES[kind].format(select=f"*, {sql}", sql=sql)
    return E.InvalidArgumentError(E.BINS_NEED_POLARS.format(
        type=type(frame).__name__, example=example, binned=binned, column=column))


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
    # the count arguments but combinations= and max_order= (divergence has its own); the
    # membership arguments stay: the argmax estimator's crisp table is searched, the weighted
    # one refused (divergence_from_counts)
    head, rest = COUNT_ARGS_DOC.split("\ncombinations :")
    member = rest.split("\nmembership :")[1].split("\nmax_groups :")[0]
    args_doc = head + "\nmembership :" + member + "\nmax_groups :" + \
        COUNT_ARGS_DOC.split("\nmax_groups :")[1]
    doc = compose(divergence_from_counts.__doc__ or "", drop=("counts", "keys"),
                  before="""by : str, pl.Expr or list of them
    The attributes whose values make the patterns' items.""",
                  after="""bins : mapping of str to int or sequence (array, Series), optional
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
