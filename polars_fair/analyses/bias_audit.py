"""Bias audit of an automated employment decision tool, as NYC Local Law 144 of 2021 asks.

NYC Local Law 144 of 2021 (NYC Admin. Code §§ 20-870 to 20-874) and its rules (6 RCNY § 5-300
definitions, § 5-301 bias audit) require, for each category of sex, of race/ethnicity and of
their intersection:

* for a tool that **selects** (a binary outcome): the number of applicants, the
  *selection rate* = selected / applicants, and the *impact ratio* = the category's selection
  rate / the selection rate of the most selected category;
* for a tool that **scores**: the *scoring rate* = the share of the category scoring above the
  sample's median score, and the *impact ratio* = the category's scoring rate / the highest
  scoring rate.

An auditor may exclude a category representing less than 2% of the data from the impact-ratio
calculation (it must still be reported), and applicants of unknown category are reported as a
count and left out of the impact ratios.

How it is computed: the audit reads the two tables every analysis reads. A selection audit is
:func:`bias_audit_from_counts` on a count table (only the predictions are read: ``tp + fp``
applicants are selected), a scoring audit is :func:`bias_audit_from_scores` on a score table
(the median is taken from the pooled score table). :func:`bias_audit` counts the rows once
through the counting boundary (:func:`polars_fair.counts` with ``y_true=None``, or
:func:`polars_fair.scores`), so it runs on Polars, Spark and DuckDB with the same checks and
errors as every analysis; the roll-ups to each attribute set, the rates and the ratios run on
the small table, in memory, so every engine (in-memory, streaming) returns the same result.

Why one module: NYC LL 144's summary is one legal artefact (selection and
scoring rates, impact ratios, small and unknown categories) whose two forms share every rule;
half of the lines are the docstrings the law's definitions need.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Unpack

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.analyses.multiclass import class_tables
from polars_fair.analyses.runner import on_small_table
from polars_fair.core import rules as R
from polars_fair.core.families import LL144Options, takes
from polars_fair.core.options import check
from polars_fair.core.reference import prefer_supported, support_rows
from polars_fair.core.registry import safe_div
from polars_fair.core.spec import name_of
from polars_fair.counting import tables
from polars_fair.counting.membership_counts import refuse_weighted_membership

__all__ = [
    "OUTPUT_COLUMNS",
    "bias_audit_from_classes",
    "bias_audit_from_counts",
    "bias_audit_from_scores",
    "bias_audit_plan",
    "ll144_sets",
]

_MEDIAN = "median_score"
_MASS = "__pf_mass"
_TOTAL = "__pf_total"

#: Every column bias_audit may output after the category keys (a key may not use these names).
OUTPUT_COLUMNS = (
    "attributes", "n", "weight_sum", "selected", "scored_above_median", "selection_rate",
    "scoring_rate", _MEDIAN, "share", "small_category", "unknown_category", "excluded",
    "impact_ratio", "unknown_rows", "benchmark_eligible",
)

NO_CATEGORIES = (
    "bias_audit needs at least one category attribute: pass categories= a list of the columns "
    "to audit, for example categories={example}"
)
#: :data:`NO_CATEGORIES` of a count table (its keys are the categories).
NO_CATEGORY_KEYS = (
    "bias_audit needs at least one category attribute, and the table has none: pass by= one or "
    "more of the count table's keys, or count the rows by the categories first"
)
ONE_OUTCOME = "pass exactly one of y_pred= (a binary selection) or y_score= (a score)"
REPEATED_CATEGORIES = "categories has repeated attribute names: {names}"
KEY_CLASH = (
    "attribute name(s) {names} clash with output columns {outputs}; rename them, for example "
    "pl.col({example!r}).alias({example!r} + '_attr')"
)
WEIGHTED_WITHOUT_ROWS = "a weighted score table (Float64 positives/negatives)"


def ll144_sets(keys: Sequence[str]) -> list[list[str]]:
    """The attribute sets of an LL 144 audit: each attribute alone, then all of them together.

    6 RCNY § 5-301 asks for sex, race/ethnicity and their intersectional categories.

    Parameters
    ----------
    keys : sequence of str
        The category attributes, in the order the audit reports them.

    Returns
    -------
    list of list of str

    Examples
    --------
    >>> ll144_sets(["sex", "race", "ethnicity"])
    [['sex'], ['race'], ['ethnicity'], ['sex', 'race', 'ethnicity']]
    """
    return [[k] for k in keys] + ([list(keys)] if len(keys) > 1 else [])


def _flags(options: Any) -> dict[str, bool]:
    """``exclude_small`` and ``plain_benchmark``, each True or False ("no" would read as true)."""
    return {k: R.flag(options[k], k) for k in ("exclude_small", "plain_benchmark")}


def _check(keys: Sequence[str], min_share: Any) -> Fraction:
    """The audit's own options, checked when the plan is built; ``min_share`` read exactly."""
    if not keys:
        raise E.InvalidArgumentError(NO_CATEGORY_KEYS)
    share = check("min_share", min_share)
    clash = [k for k in keys if k in OUTPUT_COLUMNS or k.startswith("__pf_")]
    if clash:
        raise E.InvalidArgumentError(
            KEY_CLASH.format(names=clash, outputs=list(OUTPUT_COLUMNS), example=clash[0])
        )
    return share


def _audit(
    counts: pl.LazyFrame,
    keys: list[str],
    *,
    outcome: str,
    rate: str,
    min_share: Fraction,
    exclude_small: bool,
    min_support: float,
    plain_benchmark: bool,
) -> pl.LazyFrame:
    """Rates, flags and impact ratios of each attribute set from a count table's predictions.

    ``counts`` is a count table of the keys (rolled up here to :func:`ll144_sets` with
    :func:`polars_fair.counting.tables.expand_sets`), or already a stack of attribute sets under
    ``attributes``. Categories without rows (the unobserved categories of an Enum that the
    count table completes) are not reported.
    """
    schema = counts.collect_schema()
    refuse_weighted_membership(schema.names(), "bias_audit", E.MEMBERSHIP_WHY_LL144)
    weighted = "weight_sum" in schema
    cells = ["n", "tp", "fp", "fn", "tn", *(["weight_sum"] if weighted else [])]
    if "attributes" in schema:  # several attribute sets already (combinations=, nested by=)
        stacked = counts.filter(pl.col("n") > 0)
    else:
        finest = counts.select(*keys, *cells).filter(pl.col("n") > 0)
        stacked = tables.expand_sets(
            finest.sort(keys, nulls_last=True), keys, ll144_sets(keys)
        ).frame
    per_set = "attributes"
    n = pl.col("n")
    unknown = pl.any_horizontal(
        [pl.col(k).is_null() & pl.col(per_set).list.contains(pl.lit(k)) for k in keys]
    )
    size = "weight_sum" if weighted else "n"
    framed = (
        stacked.with_columns(
            (pl.col("tp") + pl.col("fp")).alias(outcome),
            unknown.alias("unknown_category"),
            n.sum().over(per_set).alias(_TOTAL),
        )
        .with_columns(
            safe_div(pl.col(outcome), pl.col(size)).alias(rate),
            safe_div(n, pl.col(_TOTAL)).alias("share"),
            pl.when(pl.col("unknown_category")).then(n).otherwise(0).sum().over(per_set)
            .cast(pl.Int64).alias("unknown_rows"),
            pl.lit(None, dtype=pl.Boolean).alias("small_category"),
            pl.lit(None, dtype=pl.Boolean).alias("excluded"),
            pl.lit(None, dtype=pl.Float64).alias("impact_ratio"),
        )
    )

    def decide(df: pl.DataFrame) -> pl.DataFrame:
        """The small flag and the impact ratios, exact on the counts (polars_fair.core.rules)."""
        # share < min_share exactly: n / total < p / q  <=>  n * q < p * total
        small = [R.below(R.fraction(c, t), min_share)
                 for c, t in zip(df["n"], df[_TOTAL], strict=True)]
        excluded = [bool(u) or (bool(sm) and exclude_small)
                    for u, sm in zip(df["unknown_category"], small, strict=True)]
        rates = [R.fraction(o, m) for o, m in zip(df[outcome], df[size], strict=True)]
        sets = [tuple(a) for a in df[per_set].to_list()]
        # the benchmark: report's rule (prefer_supported), one set at a time, unless plain
        candidates = pl.Series([not ex for ex in excluded], dtype=pl.Boolean)
        eligible = candidates.to_list() if plain_benchmark else df.with_columns(
            __pf_candidate=candidates).select(prefer_supported(
                pl.col("__pf_candidate"), min_support, rows=support_rows(df.columns)
            ).over(per_set)).to_series().to_list()
        top: dict[tuple[str, ...], Any] = {}
        for key, r, ok in zip(sets, rates, eligible, strict=True):
            if ok and r is not None and (top.get(key) is None or r > top[key]):
                top[key] = r
        ratios = [None if ex or r is None or not top.get(key) else float(r / top[key])
                  for key, r, ex in zip(sets, rates, excluded, strict=True)]
        return df.with_columns(
            small_category=pl.Series(small, dtype=pl.Boolean),
            excluded=pl.Series(excluded, dtype=pl.Boolean),
            impact_ratio=pl.Series(ratios, dtype=pl.Float64),
            benchmark_eligible=pl.Series(eligible, dtype=pl.Boolean),
        )

    framed = framed.with_columns(pl.lit(None, dtype=pl.Boolean).alias("benchmark_eligible"))
    return framed.map_batches(decide, schema=framed.collect_schema()).select(
        "attributes", *keys, "n", *(["weight_sum"] if weighted else []), outcome, rate,
        "share", "small_category", "unknown_category", "excluded", "impact_ratio",
        "unknown_rows", "benchmark_eligible",
    )


@takes(LL144Options)
def bias_audit_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    **options: Unpack[LL144Options],
) -> pl.LazyFrame:
    """NYC Local Law 144 bias audit of a selection: selection rates and impact ratios.

    For each category of each attribute alone (for example sex; race/ethnicity) and of the
    intersection of all of them (sex × race), following 6 RCNY § 5-300 (definitions) and
    § 5-301 (bias audit):

    * ``selection_rate = selected / n`` with ``selected = tp + fp`` ("the rate at which
      individuals in a category are either selected to move forward in the hiring process or
      assigned a classification"). Only the predictions are read, so a count table made
      without labels (``y_true=None``) or with them gives the same audit;
    * ``impact_ratio = selection_rate / max(selection_rate)``, the maximum taken over the
      categories of the same attribute set that are eligible as benchmark (6 RCNY § 5-300,
      "impact ratio": "selection rate for a category divided by the selection rate of the most
      selected category"). Eligible by default: not excluded and with at least ``min_support``
      rows, ``report``'s support rule (:func:`polars_fair.core.reference.prefer_supported`;
      every category not excluded when none has that many), so a category of a few people
      never sets the benchmark; each category's ratio is still reported, above 1 for a small
      category selected more often than the benchmark. ``plain_benchmark=True`` applies the
      law's plain rule (any category not excluded). § 5-301 lets an auditor exclude
      categories under 2% of the data from the calculation; ``exclude_small`` does so
      outright.

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
    unknown category"). Categories without rows (an Enum's unobserved categories) are not
    reported. The attribute sets are rolled up from the count table
    (:func:`polars_fair.counting.tables.expand_sets`); a table that already stacks several attribute
    sets under ``attributes`` (``polars_fair.counts(..., combinations="all").frame``) is
    audited set by set as it is.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table: the category keys, ``n, tp, fp, fn, tn`` (Int64, or Float64 weighted
        sums followed by ``weight_sum``), for example ``polars_fair.counts(frame, ["sex",
        "race"], y_true=None, y_pred="hired").frame`` or a table from SQL.
    keys : sequence of str
        The category attributes (the table's key columns), in the order they are reported.
    min_share : float, default 0.02
        A category with ``share < min_share`` is flagged ``small_category`` (the rules' 2%).
    exclude_small : bool, default False
        Exclude small categories from the impact-ratio calculation.
    min_support : float, default 30
        The rows a category needs to be eligible as benchmark (``report``'s support rule).
    plain_benchmark : bool, default False
        Let any category not excluded be the benchmark (the law's plain rule).

    Returns
    -------
    pl.LazyFrame
        One row per category and attribute set, sorted by attribute set (each attribute alone in
        the given order, then the intersection) and then by the key values, nulls last:

        ======================  =========  =========================================================
        column                  dtype      meaning
        ======================  =========  =========================================================
        ``attributes``          List(Str)  the attributes defining the row's category
        one column per key      its dtype  the category; null when the attribute is not in
                                           ``attributes`` or when the category is unknown
        ``n``                   Int64      applicants (rows)
        ``weight_sum``          Float64    only for a weighted table: Σ weights
        ``selected``            Int64      applicants selected, ``tp + fp`` (Float64 weighted)
        ``selection_rate``      Float64    selected / n (weighted: / weight_sum), in [0, 1]
        ``share``               Float64    n / all rows, in [0, 1]
        ``small_category``      Boolean    share < ``min_share``
        ``unknown_category``    Boolean    an attribute of the row's set is null
        ``excluded``            Boolean    left out of the impact ratios: unknown, or small with
                                           ``exclude_small``
        ``impact_ratio``        Float64    rate / highest rate of the set's benchmark-eligible
                                           categories, in [0, inf) (above 1 only for a category
                                           not eligible); null when excluded or when that
                                           highest rate is 0
        ``unknown_rows``        Int64      rows whose category in this attribute set is unknown
                                           (the same in every row of the set; in the intersection:
                                           rows with any unknown attribute)
        ``benchmark_eligible``  Boolean    may set the benchmark: not excluded, and with
                                           ``min_support`` rows (unless ``plain_benchmark``)
        ======================  =========  =========================================================

    Raises
    ------
    InvalidArgumentError
        No keys; a key named like an output column (or ``__pf_*``); ``min_share`` not a
        number in [0, 1] (NaN included); the weighted estimator's count table of estimated
        membership (with ``n_effective``: LL 144's shares count rows, each in one category;
        ``membership_estimator="argmax"`` gives a crisp table). Raised when the plan is built.

    Notes
    -----
    A prediction that never equals ``pos_label`` is not an error: every selection rate is 0 and
    every impact ratio is null (0/0 is undefined).

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"sex": ["F", "M", None], "n": [3, 3, 1], "tp": [0, 0, 0],
    ...                   "fp": [1, 2, 1], "fn": [0, 0, 0], "tn": [2, 1, 0]})
    >>> bias_audit_from_counts(c, ["sex"]).collect().select(
    ...     "sex", "selected", "selection_rate", "excluded", "impact_ratio", "unknown_rows")
    shape: (3, 6)
    ┌──────┬──────────┬────────────────┬──────────┬──────────────┬──────────────┐
    │ sex  ┆ selected ┆ selection_rate ┆ excluded ┆ impact_ratio ┆ unknown_rows │
    │ ---  ┆ ---      ┆ ---            ┆ ---      ┆ ---          ┆ ---          │
    │ str  ┆ i64      ┆ f64            ┆ bool     ┆ f64          ┆ i64          │
    ╞══════╪══════════╪════════════════╪══════════╪══════════════╪══════════════╡
    │ F    ┆ 1        ┆ 0.333333       ┆ false    ┆ 0.5          ┆ 1            │
    │ M    ┆ 2        ┆ 0.666667       ┆ false    ┆ 1.0          ┆ 1            │
    │ null ┆ 1        ┆ 1.0            ┆ true     ┆ null         ┆ 1            │
    └──────┴──────────┴────────────────┴──────────┴──────────────┴──────────────┘
    """
    keys = list(keys)
    share = _check(keys, options["min_share"])
    return _audit(counts, keys, outcome="selected", rate="selection_rate",
                  min_share=share, min_support=float(options["min_support"]),
                  **_flags(options))


@borrow(bias_audit_from_counts, params=("min_share", "exclude_small", "min_support",
                                        "plain_benchmark"))
@takes(LL144Options)
def bias_audit_from_classes(
    table: pl.LazyFrame,
    keys: Sequence[str],
    *,
    classes: Sequence[Any] | None = None,
    names: Mapping[str, str] | None = None,
    **options: Unpack[LL144Options],
) -> pl.LazyFrame:
    """NYC Local Law 144 bias audit of a tool that classifies: the selection table per class.

    6 RCNY § 5-301(b)(4): where a tool classifies candidates into groups (for example
    leadership styles), the selection rate and impact ratio are calculated for each category
    and each classification. Each class is audited as a selection: "assigned this class" is
    selected, and :func:`bias_audit_from_counts` gives its table, with the same rules (the
    small-category flag and exclusion, unknown categories reported and left out of the impact
    ratios, exact decisions); the tables are stacked under a ``class`` column, in class order.

    Parameters
    ----------
    table : pl.LazyFrame
        A class table (:mod:`polars_fair.counting.classes`): the category keys, ``y_pred``,
        ``n`` [, ``weight_sum``]; a ``y_true`` column is not read.
    keys : sequence of str
        The category attributes, in the order they are reported.
    classes : sequence, optional
        The classes and their order (a class no one received has its rows, every rate 0).
        Default: those found, sorted.
    names : mapping of str to str, optional
        ``y_pred`` -> the column the user named, for the messages.

    Returns
    -------
    pl.LazyFrame
        ``class`` (the class dtype) then the columns of :func:`bias_audit_from_counts`, one
        table per class, in class order; within a class, by attribute set and key values.

    Raises
    ------
    InvalidArgumentError
        As :func:`bias_audit_from_counts`; bad ``classes``.
    InvalidLabelError
        A class outside ``classes``, or one class only (at collect time).

    Examples
    --------
    >>> import polars as pl
    >>> t = pl.LazyFrame({"sex": ["F", "F", "M", "M"], "y_pred": ["A", "B", "A", "B"],
    ...                   "n": [3, 1, 2, 2]})
    >>> out = bias_audit_from_classes(t, ["sex"]).collect()
    >>> out.select("class", "sex", "selected", "impact_ratio").rows()
    [('A', 'F', 3, 1.0), ('A', 'M', 2, 0.6666666666666666), ('B', 'F', 1, 0.5), ('B', 'M', 2, 1.0)]
    """
    keys = list(keys)
    _check(keys, options["min_share"])
    if "class" in keys:
        raise E.InvalidArgumentError(KEY_CLASH.format(names=["class"], outputs=["class"],
                                                      example="class"))

    def build(counts: pl.LazyFrame) -> pl.LazyFrame:
        return bias_audit_from_counts(counts, keys, **options)

    return class_tables(table, keys, build, classes=classes, names=names)


def _median_expr(score: pl.Expr, weight: pl.Expr) -> pl.Expr:
    """Weighted median of ``score`` over rows sorted by score (a one-row aggregation).

    With cumulative weight ``C`` and total ``W``: the mean of the first score with ``C >= W/2``
    and the first score with ``C > W/2``. With integer counts this is ``numpy.median`` of the
    rows (each distinct score repeated ``count`` times): the middle value for an odd total, the
    mean of the two middle values for an even one. Null when ``W == 0``.
    """
    cum = weight.cum_sum()
    half = weight.sum() / 2
    return (score.filter(cum >= half).first() + score.filter(cum > half).first()) / 2


@borrow(bias_audit_from_counts, params=("keys", "min_share", "exclude_small", "min_support",
                                        "plain_benchmark"))
@takes(LL144Options)
def bias_audit_from_scores(
    scores: pl.LazyFrame,
    keys: Sequence[str],
    **options: Unpack[LL144Options],
) -> pl.LazyFrame:
    """NYC Local Law 144 bias audit of a score: scoring rates and impact ratios.

    For each category of each attribute alone and of the intersection of all of them, following
    6 RCNY § 5-300 and § 5-301:

    * ``scoring_rate = #(score > median) / n`` ("the rate at which individuals in a category
      receive a score above the sample's median score"), where the median is that of the
      **whole sample** (the pooled score table: every row, including rows of unknown category)
      and *above* is **strictly** above: a score equal to the median does not count. The median
      is ``numpy.median``'s: the middle score, or for an even number of rows the mean of the two
      middle scores. For a weighted table it is the weighted median: the mean of the first score
      whose cumulative weight reaches half the total and the first that exceeds it
      (``numpy.median`` of the rows repeated by their weight, for integer weights);
    * ``impact_ratio = scoring_rate / max(scoring_rate)`` over the non-excluded categories of
      the same attribute set ("scoring rate for a category divided by the scoring rate for the
      highest scoring category").

    Labels are not read: ``positives + negatives`` is the number (or weight) of rows at each
    score, so a score table made with ``y_true=None`` or with labels gives the same audit. The
    small categories, unknown categories, exclusions and attribute sets are those of
    :func:`bias_audit_from_counts`: the score table is turned into the count table of the
    prediction ``score > median`` and audited as a selection.

    Parameters
    ----------
    scores : pl.LazyFrame
        A score table: the category keys, ``score`` (Float64), ``positives`` and ``negatives``
        (Int64, or Float64 weighted sums followed by ``n_rows``, the row counts), for example
        ``polars_fair.scores(frame, ["sex", "race"], y_true=None, y_score="score").frame``.

    Returns
    -------
    pl.LazyFrame
        The rows and columns of :func:`bias_audit_from_counts` with ``scored_above_median``
        (Int64 applicants scoring strictly above the median; Float64 weighted) for ``selected``
        and ``scoring_rate`` (Float64, in [0, 1]) for ``selection_rate``, followed by
        ``median_score`` (Float64, the sample's median score, the same in every row; null when
        the total weight is 0).

    Raises
    ------
    InvalidArgumentError
        No keys; a key named like an output column; ``min_share`` not a number in [0, 1]
        (NaN included).
    ColumnNotFoundError
        A weighted table (Float64 ``positives``/``negatives``) without ``n_rows``: the number
        of applicants is unknown. Raised when the plan is built.

    Examples
    --------
    With four rows the median is the mean of the middle two scores, 0.5:

    >>> import polars as pl
    >>> t = pl.LazyFrame({"sex": ["F", "F", "M", "M"], "score": [0.1, 0.4, 0.6, 0.9],
    ...                   "positives": [1, 1, 1, 1], "negatives": [0, 0, 0, 0]})
    >>> bias_audit_from_scores(t, ["sex"]).collect().select(
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
    keys = list(keys)
    share = _check(keys, options["min_share"])
    schema = scores.collect_schema()
    weighted = ("n_rows" in schema or schema["positives"].is_float()
                or schema["negatives"].is_float())
    if weighted and "n_rows" not in schema:
        raise E.ColumnNotFoundError(
            E.missing_column("n_rows", WEIGHTED_WITHOUT_ROWS, schema.names()))
    cell = pl.Float64 if weighted else pl.Int64
    pos, neg = pl.col("positives").cast(cell), pl.col("negatives").cast(cell)
    mass = pos + neg
    median = (
        scores.group_by("score").agg(mass.sum().alias(_MASS)).sort("score")
        .select(_median_expr(pl.col("score"), pl.col(_MASS)).alias(_MEDIAN))
    )
    above = pl.col("score") > pl.col(_MEDIAN)
    # the count table of the prediction "score > median" (tp/fn keep any labels apart)
    counts = scores.join(median, how="cross").group_by(keys).agg(
        (pl.col("n_rows") if weighted else mass).sum().cast(pl.Int64).alias("n"),
        pos.filter(above).sum().alias("tp"),
        neg.filter(above).sum().alias("fp"),
        pos.filter(~above).sum().alias("fn"),
        neg.filter(~above).sum().alias("tn"),
        *([mass.sum().alias("weight_sum")] if weighted else []),
    )
    out = _audit(counts, keys, outcome="scored_above_median", rate="scoring_rate",
                 min_share=share, min_support=float(options["min_support"]),
                 **_flags(options))
    names = out.collect_schema().names()
    at = names.index("scoring_rate") + 1
    return out.join(median, how="cross", maintain_order="left").select(
        *names[:at], _MEDIAN, *names[at:]
    )


@borrow(bias_audit_from_counts, params=("min_share", "exclude_small", "min_support",
                                        "plain_benchmark"))
@takes(LL144Options)
def bias_audit_plan(
    table: pl.LazyFrame,
    keys: Sequence[str],
    *,
    scores: bool = False,
    **options: Unpack[LL144Options],
) -> pl.LazyFrame:
    """:func:`bias_audit_from_counts` (or :func:`bias_audit_from_scores`) as a lazy plan step.

    It runs in memory on the collected (small) table, so the roll-ups add no work to the scan
    and every engine gives the same result.

    Parameters
    ----------
    table : pl.LazyFrame
        A count table (or a score table with ``scores=True``).
    keys : sequence of str
        Its key columns.
    scores : bool, default False
        ``table`` is a score table.

    Returns
    -------
    pl.LazyFrame
        The columns of :func:`bias_audit_from_counts` / :func:`bias_audit_from_scores`.

    Raises
    ------
    InvalidArgumentError, ColumnNotFoundError
        As the function it runs, when the plan is built.

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [2, 2], "tp": [0, 0], "fp": [2, 1],
    ...                   "fn": [0, 0], "tn": [0, 1]})
    >>> bias_audit_plan(c, ["g"]).collect()["impact_ratio"].to_list()
    [1.0, 0.5]
    """
    keys = list(keys)
    build = bias_audit_from_scores if scores else bias_audit_from_counts
    return on_small_table(table, lambda t: build(t, keys, **options))


def _categories(categories: Any) -> list[Any]:
    if isinstance(categories, (str, pl.Expr)) or not isinstance(categories, Sequence):
        return [categories]
    return list(categories)


def _check_categories(frame: Any, cats: list[Any], taken: Sequence[str] = ()) -> None:
    """Raise for no, missing or repeated category columns, named as ``categories``.

    Checked before counting; other inputs (a Spark ``Column``) are checked by the boundary.
    With no categories the advice names a column of the frame outside ``taken`` (the
    prediction's, the score's, the weight's).
    """
    schema = tables.engine_of(frame).schema()
    if not cats:  # the frame's first column as the example: a name the user has
        example = [c for c in schema.names() if c not in taken][:1] or ["<column>"]
        raise E.InvalidArgumentError(NO_CATEGORIES.format(example=example))
    names = []
    for c in cats:
        if c is None or isinstance(c, (bool, int, float)):
            raise E.InvalidArgumentError(
                E.NOT_A_COLUMN.format(role="categories", value=c, type=type(c).__name__))
        if not isinstance(c, (str, pl.Expr)):
            continue
        for col in [c] if isinstance(c, str) else c.meta.root_names():
            if col not in schema:
                raise E.ColumnNotFoundError(E.missing_column(col, "categories", schema.names()))
        names.append(name_of(c, "categories", schema))
    if len(set(names)) != len(names):
        raise E.InvalidArgumentError(REPEATED_CATEGORIES.format(names=names))
