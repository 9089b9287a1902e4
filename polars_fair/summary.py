"""One-number fairness summaries (Fairlearn's vocabulary) with the rules that judge them.

:func:`summary_from_counts` reads a count table (key columns, then ``n, tp, fp, fn, tn`` and,
when weighted, ``weight_sum``), never rows, and returns one row per summary metric: its value,
the two groups that produce it, and, for the metrics that have a rule (the four-fifths rule, the
OFI threshold), the threshold and a pass/fail verdict.

Undefined rates are skipped
---------------------------
A group whose rate is undefined (a zero denominator: no positive labels for TPR, no negative
labels for FPR, no positive predictions for PPV) takes no part in that rate's maximum and
minimum. Fairlearn instead scores such a group 0.0: its ``true_positive_rate`` and
``false_positive_rate`` come from ``sklearn.metrics.confusion_matrix(normalize="true")``, which
turns 0/0 into 0, so a group without positive labels gets TPR 0.0 and
``equal_opportunity_difference`` / ``equalized_odds_difference`` report the gap to that invented
0 (for example 0.8 where the defined groups differ by 0.1). Here that group is skipped and the
value is the gap among the groups whose rate is defined (null if none is).

The same rule applies one level up: ``equalized_odds_ratio`` is the smaller of the TPR and FPR
ratios that are defined. When every group's TPR is 0, the TPR ratio is 0/0 and is skipped;
Fairlearn's ``equalized_odds_ratio`` returns NaN there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import polars as pl

from polars_fair import errors as E
from polars_fair.reference import for_set, is_rule, known, reference_flag
from polars_fair.registry import METRICS, Counts, safe_div
from polars_fair.report import _validate_options, count_exprs, with_rates
from polars_fair.runner import on_small_table

__all__ = ["METHODS", "SUMMARY_METRICS", "summary_from_counts"]

Method = Literal["between_groups", "to_reference", "to_overall"]
#: ``"to_overall"`` is Fairlearn's name: ``"to_reference"`` with ``reference="overall"``.
METHODS: tuple[str, ...] = ("between_groups", "to_reference", "to_overall")

#: The rows of :func:`summary_from_counts`, in order.
SUMMARY_METRICS: tuple[str, ...] = (
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "equal_opportunity_difference",
    "predictive_parity_difference",
    "accuracy_difference",
    "min_impact_ratio",
    "max_abs_ofi",
)

#: The label of the whole population (``reference="overall"``, or ``keys=[]``).
OVERALL_LABEL = "overall"

UNKNOWN_METHOD = "method must be one of {valid}, got {method!r}"
NO_KEYS_FOR_REFERENCE = (
    "an explicit reference group needs by= attributes; use reference='overall'"
)

_P = "__pf_"
_LABEL, _LOW, _REF = f"{_P}label", f"{_P}low", f"{_P}ref"
_RATES_USED = ("selection_rate", "tpr", "fpr", "ppv", "accuracy", "marginal_benefit")
_SCHEMA = pl.Schema({
    "metric": pl.String(),
    "value": pl.Float64(),
    "group_1": pl.String(),
    "group_2": pl.String(),
    "threshold": pl.Float64(),
    "verdict": pl.String(),
    "excluded_groups": pl.List(pl.String()),
})


def _label(keys: Sequence[str]) -> pl.Expr:
    """``"African-American"`` for one key, ``"race=Black, sex=Female"`` for several."""
    if not keys:
        return pl.lit(OVERALL_LABEL)
    text = [pl.col(k).cast(pl.String).fill_null("null") for k in keys]
    if len(keys) == 1:
        return text[0]
    return pl.concat_str(
        [pl.concat_str(pl.lit(f"{k}="), t) for k, t in zip(keys, text, strict=True)], separator=", "
    )


def _ref(rate: str) -> pl.Expr:
    return pl.col(f"{_P}ref_{rate}")


def _row(table: pl.LazyFrame, value: pl.Expr, group_1: pl.Expr, group_2: pl.Expr) -> pl.LazyFrame:
    """One row ``value, group_1, group_2``; the groups are null when the value is."""
    return table.select(
        value.cast(pl.Float64).alias("value"),
        group_1.cast(pl.String).alias("group_1"),
        group_2.cast(pl.String).alias("group_2"),
    ).with_columns(
        pl.when(pl.col("value").is_not_null()).then(pl.col(g)).alias(g)
        for g in ("group_1", "group_2")
    )


def _pick(rows: Sequence[pl.LazyFrame], *, largest: bool) -> pl.LazyFrame:
    """The row with the largest (or smallest) value; ties go to the first; nulls are skipped."""
    return (
        pl.concat(rows)
        .sort("value", descending=largest, nulls_last=True, maintain_order=True)
        .head(1)
    )


def _summaries(
    kept: pl.LazyFrame, method: str, ref_label: pl.Expr
) -> dict[str, pl.LazyFrame]:
    label = pl.col(_LABEL)

    def first_where(cond: pl.Expr) -> pl.Expr:
        return label.filter(cond).first()

    def between_gap(rate: str) -> pl.LazyFrame:
        r = pl.col(rate)
        return _row(kept, r.max() - r.min(), first_where(r == r.max()), first_where(r == r.min()))

    def between_ratio(rate: str) -> pl.LazyFrame:
        r = pl.col(rate)
        return _row(
            kept, safe_div(r.min(), r.max()), first_where(r == r.max()), first_where(r == r.min())
        )

    def reference_gap(rate: str) -> pl.LazyFrame:
        d = (pl.col(rate) - _ref(rate)).abs()
        return _row(kept, d.max(), first_where(d == d.max()), ref_label)

    def reference_ratio(rate: str) -> pl.LazyFrame:
        r, ref = pl.col(rate), _ref(rate)
        low = pl.when(r <= ref).then(r).when(r > ref).then(ref)
        high = pl.when(r >= ref).then(r).when(r < ref).then(ref)
        q = safe_div(low, high)  # min(r/ref, ref/r); 0 when exactly one is 0; null for 0 and 0
        return _row(kept, q.min(), first_where(q == q.min()), ref_label)

    gap: Callable[[str], pl.LazyFrame]
    ratio: Callable[[str], pl.LazyFrame]
    gap, ratio = (
        (between_gap, between_ratio) if method == "between_groups"
        else (reference_gap, reference_ratio)
    )
    return {
        "demographic_parity_difference": gap("selection_rate"),
        "demographic_parity_ratio": ratio("selection_rate"),
        "equalized_odds_difference": _pick([gap("tpr"), gap("fpr")], largest=True),
        "equalized_odds_ratio": _pick([ratio("tpr"), ratio("fpr")], largest=False),
        "equal_opportunity_difference": gap("tpr"),
        "predictive_parity_difference": gap("ppv"),
        "accuracy_difference": gap("accuracy"),
        "min_impact_ratio": between_ratio("selection_rate"),
        "max_abs_ofi": gap("marginal_benefit"),
    }


def _verdict(passes: pl.Expr) -> pl.Expr:
    return (
        pl.when(pl.col("value").is_null())
        .then(None)
        .when(passes)
        .then(pl.lit("pass"))
        .otherwise(pl.lit("fail"))
    )


def summary_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    method: Method = "between_groups",
    reference: Any = "largest",
    min_support: int = 30,
    exclude_low_support: bool = False,
    four_fifths: float = 0.8,
    ofi_threshold: float = 0.3,
) -> pl.LazyFrame:
    r"""Fairness summaries of a count table: one row per metric, with value, groups and verdict.

    With :math:`r_g` a group's rate (from :data:`polars_fair.registry.RATE_NAMES`) and
    :math:`G` the groups whose rate is defined (undefined rates are skipped, see the module
    notes), ``method="between_groups"`` uses Fairlearn's definitions
    (``MetricFrame.difference``/``ratio``):

    * difference :math:`= \max_G r_g - \min_G r_g`; ratio :math:`= \min_G r_g / \max_G r_g`.

    ``method="to_reference"`` is Fairlearn's ``to_overall`` with a reference :math:`r_{ref}` in
    place of the overall value:

    * difference :math:`= \max_G |r_g - r_{ref}|`;
      ratio :math:`= \min_G \min(r_g / r_{ref}, r_{ref} / r_g)` (0 when exactly one of the two is
      0, undefined when both are).

    The rows, in this order:

    ``demographic_parity_difference``, ``demographic_parity_ratio``
        Selection rate :math:`b = (TP+FP)/n` (demographic parity; Fairlearn).
    ``equalized_odds_difference``
        The larger of the TPR and FPR differences (Hardt et al. 2016; Fairlearn's
        ``agg="worst_case"``).
    ``equalized_odds_ratio``
        The smaller of the TPR and FPR ratios.
    ``equal_opportunity_difference``
        TPR :math:`TP/(TP+FN)` difference (Hardt et al. 2016).
    ``predictive_parity_difference``
        PPV :math:`TP/(TP+FP)` difference (Chouldechova 2017).
    ``accuracy_difference``
        Accuracy :math:`(TP+TN)/n` difference.
    ``min_impact_ratio``
        :math:`\min_G b_g / \max_G b_g`, the lowest impact ratio of the EEOC four-fifths rule
        (29 CFR 1607.4(D)), whatever the method; ``"pass"`` iff :math:`\ge` ``four_fifths``.
    ``max_abs_ofi``
        :math:`\max_G |B_g - B_{ref}|` to a reference, :math:`\max_G B - \min_G B` between
        groups, with the marginal benefit :math:`B = (FP - FN)/n` (Briscoe et al., "Facets of
        Disparate Impact", the OFI paper); ``"pass"`` iff :math:`\le` ``ofi_threshold``.

    With a weighted count table the rates use ``weight_sum`` as the population; ``n`` (rows)
    still decides support and the ``"largest"`` reference.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table, as built by :func:`polars_fair.tables.count_table` or
        ``lf.fair.confusion``.
    keys : sequence of str
        Its key columns (``[]``: the whole population, one group labelled ``"overall"``).
    method : {"between_groups", "to_reference", "to_overall"}, default "between_groups"
        Compare the groups with each other, or each group with ``reference``; ``"to_overall"``
        (Fairlearn's name) is ``"to_reference"`` with ``reference="overall"``.
    reference : str, Any or mapping, default "largest"
        Used by ``"to_reference"`` only. ``"largest"`` (most rows; ties go to the first group in
        key order), ``"max_selection_rate"``, ``"overall"`` (the whole population, all groups
        including excluded ones; labelled ``"overall"``), a value of the one key, or a mapping
        ``{attribute: value}`` for several keys: the rules of ``report``
        (:mod:`polars_fair.reference`). ``"largest"`` and ``"max_selection_rate"``
        choose among the groups left after exclusion; an explicit reference group is never
        excluded.
    min_support : int, default 30
        Groups with ``n < min_support`` rows have low support.
    exclude_low_support : bool, default False
        Leave the low-support groups out of every metric (they are listed in
        ``excluded_groups``).
    four_fifths : float, default 0.8
        Threshold of ``min_impact_ratio``, in (0, 1].
    ofi_threshold : float, default 0.3
        Threshold of ``max_abs_ofi``, in [0, 2] (the OFI paper's bound).

    Returns
    -------
    pl.LazyFrame
        Nine rows, one per metric of :data:`SUMMARY_METRICS` in that order, with columns
        ``metric`` (String), ``value`` (Float64: differences of rates in [0, 1], ratios in
        [0, 1], ``max_abs_ofi`` in [0, 2]; null when no group's rate is defined),
        ``group_1``, ``group_2`` (String, null when ``value`` is: between groups, the group with
        the higher and the lower rate; to a reference, the group farthest from the reference
        and the reference; ``min_impact_ratio`` always names the highest then the lowest
        selection rate), ``threshold`` (Float64, null where no rule applies), ``verdict``
        (String ``"pass"``/``"fail"``, null where no rule applies or ``value`` is null) and
        ``excluded_groups`` (List(String), the labels of the excluded groups; empty unless
        ``exclude_low_support``). Ties go to the first group in key order.

    Raises
    ------
    InvalidArgumentError
        An unknown ``method``, an option out of range, a reference mapping that does not name
        exactly the keys, an explicit reference with ``keys=[]``. Raised when the plan is built.
    UnknownGroupError
        An explicit reference that is not a group (lists the groups); raised at collect time.

    Examples
    --------
    Selection rates a 16/40 = 0.4, b 8/40 = 0.2, c 5/10 = 0.5; TPR 10/14, 6/12, 4/5;
    B = (FP - FN)/n: a 0.05, b -0.1, c 0:

    >>> import polars as pl
    >>> counts = pl.LazyFrame({"g": ["a", "b", "c"], "n": [40, 40, 10], "tp": [10, 6, 4],
    ...                        "fp": [6, 2, 1], "fn": [4, 6, 1], "tn": [20, 26, 4]})
    >>> out = summary_from_counts(counts, ["g"]).collect()
    >>> out.select("metric", "value", "group_1", "group_2", "verdict")
    shape: (9, 5)
    ┌───────────────────────────────┬──────────┬─────────┬─────────┬─────────┐
    │ metric                        ┆ value    ┆ group_1 ┆ group_2 ┆ verdict │
    │ ---                           ┆ ---      ┆ ---     ┆ ---     ┆ ---     │
    │ str                           ┆ f64      ┆ str     ┆ str     ┆ str     │
    ╞═══════════════════════════════╪══════════╪═════════╪═════════╪═════════╡
    │ demographic_parity_difference ┆ 0.3      ┆ c       ┆ b       ┆ null    │
    │ demographic_parity_ratio      ┆ 0.4      ┆ c       ┆ b       ┆ null    │
    │ equalized_odds_difference     ┆ 0.3      ┆ c       ┆ b       ┆ null    │
    │ equalized_odds_ratio          ┆ 0.309524 ┆ a       ┆ b       ┆ null    │
    │ equal_opportunity_difference  ┆ 0.3      ┆ c       ┆ b       ┆ null    │
    │ predictive_parity_difference  ┆ 0.175    ┆ c       ┆ a       ┆ null    │
    │ accuracy_difference           ┆ 0.05     ┆ b       ┆ a       ┆ null    │
    │ min_impact_ratio              ┆ 0.4      ┆ c       ┆ b       ┆ fail    │
    │ max_abs_ofi                   ┆ 0.15     ┆ a       ┆ b       ┆ pass    │
    └───────────────────────────────┴──────────┴─────────┴─────────┴─────────┘

    Against group ``a``, leaving out ``c`` (10 rows < 30):

    >>> summary_from_counts(counts, ["g"], method="to_reference", reference="a",
    ...                     exclude_low_support=True).collect().row(0)
    ('demographic_parity_difference', 0.2, 'b', 'a', None, None, ['c'])
    """
    if method not in METHODS:
        raise E.InvalidArgumentError(UNKNOWN_METHOD.format(valid=list(METHODS), method=method))
    if method == "to_overall":
        method, reference = "to_reference", "overall"
    _validate_options(min_support, ofi_threshold, four_fifths)
    keys = list(keys)
    reference = for_set(reference, keys)
    rule = is_rule(reference)
    explicit = method == "to_reference" and not rule
    if explicit and not keys:
        raise E.InvalidArgumentError(NO_KEYS_FOR_REFERENCE)

    def build(lf: pl.LazyFrame) -> pl.LazyFrame:
        c = count_exprs(lf.collect_schema().names())
        table = with_rates(lf)
        if keys:
            table = table.sort(keys, nulls_last=True, maintain_order=True)
        table = table.with_columns(
            _label(keys).alias(_LABEL), (pl.col("n") < min_support).alias(_LOW)
        )
        if explicit:
            table, mask = reference_flag(table, keys, reference, eligible=pl.lit(True))
            assert mask is not None
            table = table.with_columns(mask.alias(_REF))
        else:
            table = table.with_columns(pl.lit(False).alias(_REF))
        if method == "to_reference" and reference == "overall":
            total = Counts(c.n.sum(), c.tp.sum(), c.fp.sum(), c.fn.sum(), c.tn.sum())
            table = table.with_columns(
                METRICS[r].value(total).alias(f"{_P}ref_{r}") for r in _RATES_USED
            )
        drop = (pl.col(_LOW) & ~pl.col(_REF)) if exclude_low_support else pl.lit(False)
        excluded = table.select(pl.col(_LABEL).filter(drop).implode().alias("excluded_groups"))
        kept = table.filter(~drop)
        ref_label: pl.Expr = pl.lit(OVERALL_LABEL)
        if method == "to_reference" and reference != "overall":
            if rule:  # the one reference rule (polars_fair.reference), within the kept groups
                eligible = known(keys) & (c.n > 0)
                kept, flag = reference_flag(kept, keys, reference, eligible=eligible,
                                            score=pl.col("selection_rate"))
                assert flag is not None
                kept = kept.with_columns(flag.alias(_REF))
            kept = kept.with_columns(
                pl.col(r).filter(pl.col(_REF)).first().alias(f"{_P}ref_{r}") for r in _RATES_USED
            )
            ref_label = pl.col(_LABEL).filter(pl.col(_REF)).first()
        rows = _summaries(kept, method, ref_label)
        thresholds = {"min_impact_ratio": four_fifths, "max_abs_ofi": ofi_threshold}
        verdicts = {
            "min_impact_ratio": _verdict(pl.col("value") >= four_fifths),
            "max_abs_ofi": _verdict(pl.col("value") <= ofi_threshold),
        }
        out = pl.concat(
            [
                rows[m].with_columns(
                    pl.lit(m, dtype=pl.String).alias("metric"),
                    pl.lit(thresholds.get(m), dtype=pl.Float64).alias("threshold"),
                    verdicts.get(m, pl.lit(None, dtype=pl.String)).alias("verdict"),
                )
                for m in SUMMARY_METRICS
            ]
        )
        return (
            out.join(excluded, how="cross")
            .select(*_SCHEMA)
            .cast(_SCHEMA)
        )

    return on_small_table(counts, build)
