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

How it is computed: the rows are scanned **once**, by one lazy ``group_by`` at the finest level
(all category attributes together; with scores, plus the score). Validation aggregates ride along
in that scan and a check on the small grouped table raises bad input at collect time. The median
score, the roll-ups to each attribute set, the rates and ratios are all computed on the small
table, in memory, so every engine (in-memory, streaming) returns the same result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.expressions import is_positive, safe_div
from polars_fair.spec import IntoExpr, to_expr
from polars_fair.runner import on_small_table
from polars_fair.tables_old import (
    _check_columns,
    _distinct_others,
    _name,
    _pos_for,
    _total,
    check_float_levels,
    check_weights,
    checked,
)

__all__ = ["OUTPUT_COLUMNS", "bias_audit"]

_V = "__pf_"  # prefix of internal columns (the same as tables.py)
_SCORE = f"{_V}score"
_MEDIAN = "median_score"

#: Every column bias_audit may output after the category keys (a key may not use these names).
OUTPUT_COLUMNS = (
    "attributes", "n", "weight_sum", "selected", "scored_above_median", "selection_rate",
    "scoring_rate", _MEDIAN, "share", "small_category", "unknown_category", "excluded",
    "impact_ratio", "unknown_rows",
)


@dataclass(frozen=True)
class _Spec:
    """A resolved call: key names and expressions, the outcome, weights and options."""

    keys: list[str]
    key_exprs: list[pl.Expr]
    key_dtypes: list[pl.DataType]
    float_keys: list[str]
    scoring: bool  # True: y_score (scoring rate); False: y_pred (selection rate)
    outcome: pl.Expr  # the prediction, or the score cast to Float64
    outcome_name: str
    pos: Any  # pos_label adapted to the prediction's dtype (unused for scores)
    check_pred: bool  # the prediction is not Boolean: check it is binary
    weight: pl.Expr | None
    weight_name: str | None
    min_share: float
    exclude_small: bool

    @property
    def outcome_col(self) -> str:
        return "scored_above_median" if self.scoring else "selected"

    @property
    def rate_col(self) -> str:
        return "scoring_rate" if self.scoring else "selection_rate"


def _resolve(
    lf: pl.LazyFrame,
    categories: IntoExpr | Sequence[IntoExpr],
    *,
    y_pred: IntoExpr | None,
    y_score: IntoExpr | None,
    pos_label: Any,
    sample_weight: IntoExpr | None,
    min_share: float,
    exclude_small: bool,
) -> _Spec:
    """Check the schema and the options; raises before any data is read."""
    if isinstance(categories, (str, pl.Expr)):
        categories = [categories]
    cats = list(categories)
    if not cats:
        raise E.InvalidArgumentError(
            "bias_audit needs at least one category attribute, for example ['sex', 'race']"
        )
    if (y_pred is None) == (y_score is None):
        raise E.InvalidArgumentError(
            "pass exactly one of y_pred= (a binary selection) or y_score= (a score)"
        )
    if isinstance(min_share, bool) or not isinstance(min_share, (int, float)) or not (
        0 <= min_share <= 1
    ):
        raise E.InvalidArgumentError(f"min_share must lie in [0, 1], got {min_share!r}")
    schema = lf.collect_schema()
    for c in cats:
        _check_columns(schema, c, "categories")
    outcome_in: IntoExpr = y_pred if y_pred is not None else y_score  # type: ignore[assignment]
    _check_columns(schema, outcome_in, "y_pred" if y_pred is not None else "y_score")
    if sample_weight is not None:
        _check_columns(schema, sample_weight, "sample_weight")

    keys = [_name(c) for c in cats]
    if len(set(keys)) != len(keys):
        raise E.InvalidArgumentError(f"categories has repeated attribute names: {keys}")
    clash = [k for k in keys if k in OUTPUT_COLUMNS or k.startswith(_V)]
    if clash:
        raise E.InvalidArgumentError(
            f"attribute name(s) {clash} clash with output columns {list(OUTPUT_COLUMNS)}; "
            "rename them, for example pl.col('n').alias('n_attr')"
        )
    key_exprs = [to_expr(c).alias(k) for c, k in zip(cats, keys)]
    probe = lf.select(
        *key_exprs,
        __pf_o=to_expr(outcome_in),
        **({"__pf_w": to_expr(sample_weight)} if sample_weight is not None else {}),
    ).collect_schema()
    oname = _name(outcome_in)
    weight = None
    wname = None
    if sample_weight is not None:
        wname = _name(sample_weight)
        if not probe["__pf_w"].is_numeric():
            raise E.InvalidWeightError(
                E.NOT_NUMERIC.format(column=wname, role="sample_weight", dtype=probe["__pf_w"])
            )
        weight = to_expr(sample_weight).cast(pl.Float64)
    if y_score is not None:
        if not probe["__pf_o"].is_numeric():
            raise E.InvalidScoreError(
                E.NOT_NUMERIC.format(column=oname, role="y_score", dtype=probe["__pf_o"])
            )
        outcome = to_expr(y_score).cast(pl.Float64)
        pos, check_pred, scoring = None, False, True
    else:
        outcome = to_expr(outcome_in)
        pos = _pos_for(probe["__pf_o"], pos_label, oname)
        check_pred, scoring = probe["__pf_o"] != pl.Boolean, False
    return _Spec(
        keys=keys,
        key_exprs=key_exprs,
        key_dtypes=[probe[k] for k in keys],
        float_keys=[k for k in keys if probe[k].is_float()],
        scoring=scoring,
        outcome=outcome,
        outcome_name=oname,
        pos=pos,
        check_pred=check_pred,
        weight=weight,
        weight_name=wname,
        min_share=float(min_share),
        exclude_small=bool(exclude_small),
    )


def _scan(lf: pl.LazyFrame, s: _Spec) -> pl.LazyFrame:
    """The one scan: a group-by at the finest level, with the validation aggregates.

    Selection: keys | n, [weight_sum], selected, validation.
    Scoring: keys, score | n, [weight_sum], validation (one row per group and distinct score).
    """
    aggs = [pl.len().cast(pl.Int64).alias("n")]
    if s.weight is not None:
        w = s.weight
        aggs += [
            w.sum().alias("weight_sum"),
            w.is_null().sum().cast(pl.Int64).alias(f"{_V}w_null"),
            (w.is_nan() | w.is_infinite()).sum().cast(pl.Int64).alias(f"{_V}w_nan"),
            (w < 0).sum().cast(pl.Int64).alias(f"{_V}w_neg"),
        ]
    group = list(s.key_exprs)
    if s.scoring:
        group.append(s.outcome.alias(_SCORE))
    else:
        p = is_positive(s.outcome, s.pos)
        if s.weight is None:
            aggs.append(p.sum().cast(pl.Int64).alias("selected"))
        else:
            aggs.append(pl.when(p).then(s.weight).otherwise(0.0).sum().alias("selected"))
        aggs.append(s.outcome.null_count().cast(pl.Int64).alias(f"{_V}p_null"))
        if s.check_pred:
            other = pl.when(s.outcome != pl.lit(s.pos)).then(s.outcome)
            aggs += [other.min().alias(f"{_V}p_min"), other.max().alias(f"{_V}p_max")]
    return lf.group_by(group).agg(aggs)


def _validate(df: pl.DataFrame, s: _Spec) -> pl.DataFrame:
    """Raise the data errors found in the grouped table (run at collect time)."""
    if s.scoring:
        score = pl.col(_SCORE)
        nulls = int(df.filter(score.is_null())["n"].sum())
        nans = int(df.filter(score.is_nan())["n"].sum())
        infs = int(df.filter(score.is_infinite())["n"].sum())
        if nulls or nans or infs:
            raise E.InvalidScoreError(
                E.BAD_SCORES.format(column=s.outcome_name, nulls=nulls, nans=nans, infinite=infs)
            )
    else:
        nulls = _total(df, f"{_V}p_null")
        if nulls:
            raise E.NullValuesError(
                E.NULL_LABELS.format(column=s.outcome_name, role="y_pred", count=nulls)
            )
        others = _distinct_others(df, "p")
        if len(others) > 1:
            raise E.InvalidLabelError(
                E.TOO_MANY_VALUES.format(
                    column=s.outcome_name, role="y_pred", pos_label=s.pos,
                    values=E.show_values(others),
                )
            )
    check_weights(df, s.weight_name)
    if df.height == 0 or not df["n"].sum():
        raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=""))
    check_float_levels(df, s.float_keys)
    return df


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


def _build(t: pl.LazyFrame, s: _Spec) -> pl.LazyFrame:
    """Roll-ups, rates, flags and impact ratios from the (validated, small) grouped table."""
    weighted = s.weight is not None
    sums = ["n", *(["weight_sum"] if weighted else [])]
    extra: list[str] = []
    if s.scoring:
        mass = "weight_sum" if weighted else "n"
        median = (
            t.group_by(_SCORE)
            .agg(pl.col(mass).sum())
            .sort(_SCORE)
            .select(_median_expr(pl.col(_SCORE), pl.col(mass)).alias(_MEDIAN))
        )
        zero = pl.lit(0.0) if weighted else pl.lit(0, dtype=pl.Int64)
        t = t.join(median, how="cross").with_columns(
            pl.when(pl.col(_SCORE) > pl.col(_MEDIAN))
            .then(pl.col(mass))
            .otherwise(zero)
            .alias("scored_above_median")
        )
        extra = [_MEDIAN]
    denom = pl.col("weight_sum") if weighted else pl.col("n")
    rate = pl.col(s.rate_col)
    sets = [[k] for k in s.keys] + ([list(s.keys)] if len(s.keys) > 1 else [])
    frames = []
    for members in sets:
        unknown = pl.any_horizontal([pl.col(k).is_null() for k in members])
        g = (
            t.group_by(members)
            .agg(
                *[pl.col(c).sum() for c in (*sums, s.outcome_col)],
                *[pl.col(c).first() for c in extra],
            )
            .with_columns(
                safe_div(pl.col(s.outcome_col), denom).alias(s.rate_col),
                safe_div(pl.col("n"), pl.col("n").sum()).alias("share"),
                unknown.alias("unknown_category"),
            )
            .with_columns((pl.col("share") < s.min_share).alias("small_category"))
            .with_columns(
                (
                    pl.col("unknown_category")
                    | (pl.col("small_category") & pl.lit(s.exclude_small))
                ).alias("excluded")
            )
            .with_columns(
                pl.when(~pl.col("excluded"))
                .then(safe_div(rate, rate.filter(~pl.col("excluded")).max()))
                .otherwise(None)
                .alias("impact_ratio"),
                pl.col("n").filter(pl.col("unknown_category")).sum().cast(pl.Int64)
                .alias("unknown_rows"),
                pl.lit(members, dtype=pl.List(pl.String)).alias("attributes"),
            )
            .sort(members, nulls_last=True)
        )
        frames.append(
            g.select(
                "attributes",
                *[
                    pl.col(k) if k in members else pl.lit(None, dtype=d).alias(k)
                    for k, d in zip(s.keys, s.key_dtypes)
                ],
                *sums,
                s.outcome_col,
                s.rate_col,
                *extra,
                "share",
                "small_category",
                "unknown_category",
                "excluded",
                "impact_ratio",
                "unknown_rows",
            )
        )
    return pl.concat(frames, how="vertical")


def bias_audit(
    lf: pl.LazyFrame,
    categories: IntoExpr | Sequence[IntoExpr],
    *,
    y_pred: IntoExpr | None = None,
    y_score: IntoExpr | None = None,
    pos_label: Any = 1,
    sample_weight: IntoExpr | None = None,
    min_share: float = 0.02,
    exclude_small: bool = False,
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
    rows are always reported. Rows of unknown category (a null attribute) are kept as a row of
    their own and always excluded from the impact ratios; their number is reported in
    ``unknown_rows`` (§ 5-301: "the number of individuals the AEDT assessed that fall within an
    unknown category").

    The rows are scanned once: one lazy ``group_by`` over all category attributes (plus the score
    with ``y_score``); the median, the roll-ups and the ratios are computed from that small table.
    Labels (``y_true``) are not used: LL144 audits outcomes only.

    Parameters
    ----------
    lf : pl.LazyFrame
        The applicants, one row each. For a DataFrame pass ``df.lazy()`` and collect the result.
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

        ================================  =========  ==================================================
        column                            dtype      meaning
        ================================  =========  ==================================================
        ``attributes``                    List(Str)  the attributes defining the row's category
        one column per attribute          its dtype  the category; null when the attribute is not in
                                                     ``attributes`` or when the category is unknown
        ``n``                             Int64      applicants (rows)
        ``weight_sum``                    Float64    only with ``sample_weight``: Σ weights
        ``selected``                      Int64      ``y_pred`` only: applicants selected (Float64
                                                     weighted)
        ``scored_above_median``           Int64      ``y_score`` only: applicants scoring strictly
                                                     above the sample median (Float64 weighted)
        ``selection_rate``                Float64    ``y_pred`` only: selected / n, in [0, 1]
        ``scoring_rate``                  Float64    ``y_score`` only: scored_above_median / n, in
                                                     [0, 1]
        ``median_score``                  Float64    ``y_score`` only: the sample's median score (the
                                                     same in every row), in the score's units
        ``share``                         Float64    n / all rows, in [0, 1]
        ``small_category``                Boolean    share < ``min_share``
        ``unknown_category``              Boolean    an attribute of the row's set is null
        ``excluded``                      Boolean    left out of the impact ratios: unknown, or
                                                     small with ``exclude_small``
        ``impact_ratio``                  Float64    rate / highest non-excluded rate of the set, in
                                                     [0, 1]; null when excluded or when that highest
                                                     rate is 0 (undefined)
        ``unknown_rows``                  Int64      rows whose category in this attribute set is
                                                     unknown (the same in every row of the set; in
                                                     the intersection: rows with any unknown
                                                     attribute)
        ================================  =========  ==================================================

    Raises
    ------
    ColumnNotFoundError
        A named column is missing (lists the columns). Raised at once.
    InvalidArgumentError
        Neither or both of ``y_pred`` / ``y_score``; no categories; repeated or reserved
        attribute names; ``min_share`` outside [0, 1]. Raised at once.
    InvalidLabelError
        ``pos_label`` of the wrong dtype (at once); ``y_pred`` holding ``pos_label`` and more
        than one other value (at collect time).
    NullValuesError
        Nulls in ``y_pred`` (at collect time).
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
    every impact ratio is null (0/0 is undefined).

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
    spec = _resolve(
        lf, categories, y_pred=y_pred, y_score=y_score, pos_label=pos_label,
        sample_weight=sample_weight, min_share=min_share, exclude_small=exclude_small,
    )
    raw = checked(_scan(lf, spec), lambda df: _validate(df, spec))
    return on_small_table(raw, lambda t: _build(t, spec))
