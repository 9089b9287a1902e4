"""One-number fairness summaries (Fairlearn's vocabulary) with the rules that judge them.

:func:`summary_from_counts` reads a count table (key columns, then ``n, tp, fp, fn, tn`` and,
when weighted, ``weight_sum``), never rows, and returns one row per summary metric: its value,
the two groups that produce it, and, for the metrics that have a rule (the four-fifths rule, the
OFI threshold), the threshold and a verdict decided exactly (:mod:`polars_fair.core.rules`).

Exact values
------------
Every value is computed from exact fractions of the integer counts (``Fraction(tp + fp, n)``)
and shown correctly rounded: an impact ratio of 0.6/0.75 is 0.8, not 0.7999999999999999, and
passes the four-fifths rule at 0.8. Weighted tables give floats, compared with the one tolerance
of :data:`polars_fair.core.rules.WEIGHTED_TOLERANCE`.

Undefined figures are never shown as a number
----------------------------------------------
A group's figure for a metric is undefined when its rate is (a zero denominator: no positive
labels for TPR, no negative labels for FPR, no positive predictions for PPV), when its ratio to
the maximum or to the reference is 0/0, or when the reference's own rate is undefined. Such a
group takes no part in that metric: the value is computed over the groups whose figure is
defined, the left-out groups are listed in ``undefined_groups``, and a rule's verdict is
``"undefined"`` (the rule could not be applied to every group). Three consequences:

* a value needs two groups: between groups, fewer than two defined groups give null (never a
  gap of a group against itself, as 0.0 between the same group twice); to a reference, the
  reference's own row is not compared with itself, and a whole population that is one group is
  not compared with itself;
* ``equalized_odds_difference`` / ``equalized_odds_ratio`` are null when either the TPR or the
  FPR component is null (one component never stands for both; Fairlearn's
  ``equalized_odds_ratio`` is NaN there too);
* the values agree with ``pairwise``: a between-groups difference is the largest
  ``<rate>_difference`` over the pairs where it is defined, and ``min_impact_ratio`` the
  smallest defined ``selection_rate_ratio``.

Fairlearn instead scores an undefined rate 0.0: its ``true_positive_rate`` and
``false_positive_rate`` come from ``sklearn.metrics.confusion_matrix(normalize="true")``, which
turns 0/0 into 0, so a group without positive labels gets TPR 0.0 and
``equal_opportunity_difference`` reports the gap to that invented 0 (for example 0.8 where the
defined groups differ by 0.1). Here a group without positive labels has no TPR (0/0): it is
left out and listed, and a gap needs two groups with a TPR, so there is none:

>>> import polars as pl
>>> odd = pl.LazyFrame({"g": ["a", "b"], "n": [2, 2], "tp": [0, 1], "fp": [1, 0],
...                     "fn": [0, 0], "tn": [1, 1]})
>>> summary_from_counts(odd, ["g"], min_support=1).collect().filter(
...     pl.col("metric") == "equal_opportunity_difference").select(
...     "value", "group_1", "undefined_groups").row(0)
(None, None, ['a'])

Low support
-----------
With ``exclude_low_support=True`` a group with fewer than ``min_support`` rows is neither the
reference nor the maximum of any metric (it takes no part at all; an explicit reference is
never excluded). Whenever a value rests on a low-support group (``group_1`` or ``group_2``, the
reference included), ``low_support`` is true, and a rule's verdict reads it as ``report``'s
finding does:

* measured against a low-support reference (``max_abs_ofi`` to a reference), the verdict is
  ``"insufficient support"``;
* a pass stands: each rule bounds an extreme (the lowest impact ratio, the largest OFI gap),
  and leaving groups out can only raise that minimum or shrink that gap, so a pass over every
  group is a pass over the supported ones;
* a failure that rests on a low-support group is decided again over the supported groups: it
  stays ``"fail"`` if they fail too (a real failure is never hidden behind a small group), and
  is ``"insufficient support"`` if they pass.

Why one module: the Fairlearn summaries, their exact values and their
verdicts read one table in one pass; most lines are the documented definitions.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import fill
from polars_fair.analyses.report import count_exprs
from polars_fair.analyses.runner import on_small_table
from polars_fair.core import rules as R
from polars_fair.core.labels import value_text
from polars_fair.core.options import DEFAULTS, SummaryMethod, check
from polars_fair.core.reference import Reference, known, support_rows
from polars_fair.core.registry import METRICS
from polars_fair.counting.membership_counts import support_size

__all__ = ["METHODS", "RULE_VERDICTS", "SUMMARY_METRICS", "summary_from_counts", "summary_label"]

Method = SummaryMethod
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

#: The verdicts of a metric with a rule (``min_impact_ratio``, ``max_abs_ofi``).
RULE_VERDICTS: tuple[str, ...] = ("pass", "fail", "undefined", "insufficient support")

#: The label of the whole population (``reference="overall"``, or ``keys=[]``).
OVERALL_LABEL = "overall"

UNKNOWN_METHOD = "method must be one of {valid}, got {method!r}"
NO_KEYS_FOR_REFERENCE = (
    "an explicit reference group needs by= attributes; use reference='overall'"
)

_P = "__pf_"
_LABEL, _LOW, _REF, _DROP = f"{_P}label", f"{_P}low", f"{_P}ref", f"{_P}drop"
_RATES_USED = ("selection_rate", "tpr", "fpr", "ppv", "accuracy", "marginal_benefit")
_SCHEMA = pl.Schema({
    "metric": pl.String(),
    "value": pl.Float64(),
    "group_1": pl.String(),
    "group_2": pl.String(),
    "threshold": pl.Float64(),
    "verdict": pl.String(),
    "excluded_groups": pl.List(pl.String()),
    "undefined_groups": pl.List(pl.String()),
    "low_support": pl.Boolean(),
})

Value = Fraction | float | None


def summary_label(keys: Sequence[str]) -> pl.Expr:
    """How the summary names a group: ``"African-American"``, ``"race=Black, sex=Female"``.

    A missing value reads ``(missing)``; a value that could be read as another (the text
    ``"(missing)"``, a text starting with ``"``, with several keys one holding ``", "``) is
    quoted (:func:`polars_fair.core.labels.value_text`), so two groups never share a label.

    Parameters
    ----------
    keys : sequence of str
        The key columns (none: ``"overall"``).

    Returns
    -------
    pl.Expr
        A String expression (the ``group_1`` and ``group_2`` of :func:`summary_from_counts`).

    Examples
    --------
    >>> df = pl.DataFrame({"g": ["a", None, "(missing)"], "h": ["x", "y", "z"]})
    >>> df.select(summary_label(["g", "h"])).to_series().to_list()
    ['g=a, h=x', 'g=(missing), h=y', 'g="(missing)", h=z']
    """
    if not keys:
        return pl.lit(OVERALL_LABEL)
    text = [value_text(k, ambiguous=(", ",) if len(keys) > 1 else ()) for k in keys]
    if len(keys) == 1:
        return text[0]
    return pl.concat_str(
        [pl.concat_str(pl.lit(f"{k}="), t) for k, t in zip(keys, text, strict=True)], separator=", "
    )


@dataclass
class _Result:
    """One summary value, the rows producing it and the rows whose figure is undefined.

    A row index of ``None`` is the whole population (``reference="overall"``).
    """

    value: Value = None
    first: int | None = None
    second: int | None = None
    undefined: list[int] = field(default_factory=list)


def _first_extreme(values: dict[int, Any], *, largest: bool, skip: int | None = None) -> int:
    """The first row (in key order) holding the largest (smallest) value."""
    best: int | None = None
    for i, v in values.items():
        if i == skip:
            continue
        if best is None or (v > values[best] if largest else v < values[best]):
            best = i
    assert best is not None
    return best


def _ratio(a: Value, b: Value) -> Value:
    """``a / b``; None when either is undefined or ``b`` is 0."""
    if a is None or b is None or b == 0:
        return None
    return a / b


class _Summary:
    """The summaries of one small per-group table, computed exactly in Python."""

    def __init__(self, df: pl.DataFrame, method: str, overall: bool) -> None:
        self.labels: list[str] = df[_LABEL].to_list()
        self.low: list[bool] = df[_LOW].to_list()
        self.rows: list[int] = df["n"].to_list()
        drop: list[bool] = df[_DROP].to_list()
        self.excluded = [lab for lab, d in zip(self.labels, drop, strict=True) if d]
        self.kept = [i for i, d in enumerate(drop) if not d and self.rows[i] > 0]
        self.rates: dict[str, list[Value]] = {
            r: [R.fraction(a, b) for a, b in zip(df[f"{_P}num_{r}"], df[f"{_P}den_{r}"],
                                                  strict=True)]
            for r in _RATES_USED
        }
        self.method, self.overall = method, overall
        refs = [i for i, f in enumerate(df[_REF].to_list()) if f]
        self.ref: int | None = refs[0] if refs else None
        self.ref_rates: dict[str, Value] = {}
        if overall:  # the whole population, every group included (excluded ones too)
            for r in _RATES_USED:
                num: list[Any] = df[f"{_P}num_{r}"].to_list()
                den: list[Any] = df[f"{_P}den_{r}"].to_list()
                self.ref_rates[r] = R.fraction(sum(num), sum(den))
            # a population of one group is that group: it is not compared with itself
            self.population_is_a_group = sum(1 for n in self.rows if n > 0) < 2
        elif self.ref is not None:
            self.ref_rates = {r: self.rates[r][self.ref] for r in _RATES_USED}

    # -- one rate, between groups
    def between(self, rate: str, *, ratio: bool) -> _Result:
        values = self.rates[rate]
        undefined = [i for i in self.kept if values[i] is None]
        defined = {i: values[i] for i in self.kept if values[i] is not None}
        if len(defined) < 2:
            return _Result(undefined=undefined)
        hi = _first_extreme(defined, largest=True)
        lo = _first_extreme(defined, largest=False, skip=hi)
        if not ratio:
            return _Result(defined[hi] - defined[lo], hi, lo, undefined)  # type: ignore[operator]
        if defined[hi] == 0:  # every rate 0: each ratio to the maximum is 0/0
            return _Result(undefined=sorted([*undefined, *defined]))
        return _Result(_ratio(defined[lo], defined[hi]), hi, lo, undefined)

    # -- one rate, to the reference
    def to_reference(self, rate: str, *, ratio: bool) -> _Result:
        if not self.overall and self.ref is None:  # no group could be the reference
            return _Result(undefined=list(self.kept))
        if self.overall and self.population_is_a_group:
            return _Result()
        values, r0 = self.rates[rate], self.ref_rates[rate]
        compared = [i for i in self.kept if i != self.ref]
        if r0 is None:  # the reference's own rate is undefined: so is every comparison
            own = [] if self.ref is None else [self.ref]
            return _Result(undefined=sorted({*compared, *own}))
        figures: dict[int, Value] = {}
        for i in compared:
            v = values[i]
            if v is None:
                figures[i] = None
            elif not ratio:
                figures[i] = cast(Value, abs(v - r0))
            elif v == 0 and r0 == 0:
                figures[i] = None  # 0/0
            elif v == 0 or r0 == 0:
                figures[i] = Fraction(0) if isinstance(v, Fraction) else 0.0
            else:
                figures[i] = cast(Value, min(v / r0, r0 / v))
        undefined = [i for i, f in figures.items() if f is None]
        defined = {i: f for i, f in figures.items() if f is not None}
        if not defined:
            return _Result(undefined=undefined)
        far = _first_extreme(defined, largest=not ratio)
        return _Result(defined[far], far, self.ref, undefined)

    def one(self, rate: str, *, ratio: bool) -> _Result:
        if self.method == "between_groups":
            return self.between(rate, ratio=ratio)
        return self.to_reference(rate, ratio=ratio)

    @staticmethod
    def both(a: _Result, b: _Result, *, largest: bool) -> _Result:
        """Equalized odds: the larger (smaller) of the TPR and FPR results.

        Null when either is: one component never stands for both.
        """
        undefined = sorted({*a.undefined, *b.undefined})
        if a.value is None or b.value is None:
            return _Result(undefined=undefined)
        pick = a if (a.value >= b.value if largest else a.value <= b.value) else b
        return _Result(pick.value, pick.first, pick.second, undefined)

    def results(self) -> dict[str, _Result]:
        tpr, fpr = self.one("tpr", ratio=False), self.one("fpr", ratio=False)
        tpr_q, fpr_q = self.one("tpr", ratio=True), self.one("fpr", ratio=True)
        return {
            "demographic_parity_difference": self.one("selection_rate", ratio=False),
            "demographic_parity_ratio": self.one("selection_rate", ratio=True),
            "equalized_odds_difference": self.both(tpr, fpr, largest=True),
            "equalized_odds_ratio": self.both(tpr_q, fpr_q, largest=False),
            "equal_opportunity_difference": tpr,
            "predictive_parity_difference": self.one("ppv", ratio=False),
            "accuracy_difference": self.one("accuracy", ratio=False),
            "min_impact_ratio": self.between("selection_rate", ratio=True),
            "max_abs_ofi": self.one("marginal_benefit", ratio=False),
        }

    def label(self, i: int | None) -> str:
        return OVERALL_LABEL if i is None else self.labels[i]

    def rests_on_low_support(self, res: _Result) -> bool | None:
        """Whether a group producing the value (the reference included) has low support."""
        if res.value is None:
            return None
        return any(i is not None and self.low[i] for i in (res.first, res.second))

    def supported(self) -> _Summary:
        """The same summaries over the groups with enough rows only (same reference)."""
        sub = copy.copy(self)
        sub.kept = [i for i in self.kept if not self.low[i]]
        return sub

    def verdict(self, metric: str, res: _Result, passes: Callable[[Value], bool | None],
                ) -> str | None:
        """The verdict of a rule row (see :data:`RULE_VERDICTS`).

        A pass over every group is a pass over the supported ones too (each rule bounds an
        extreme: leaving groups out can only raise a minimum ratio or shrink a largest gap), so
        it stands. A failure that rests on a low-support group is re-decided over the supported
        groups: it stands if they fail too, else it is ``"insufficient support"``. Measured
        against a low-support reference, every verdict is ``"insufficient support"``.
        """
        if res.undefined:
            return "undefined"
        if res.value is None:
            return None  # no groups to compare: nothing to judge
        to_ref = metric != "min_impact_ratio" and self.method == "to_reference"
        if to_ref and self.ref is not None and self.low[self.ref]:
            return "insufficient support"
        if passes(res.value):
            return "pass"
        if not self.rests_on_low_support(res):
            return "fail"
        again = self.supported().results()[metric]
        if again.value is not None and not again.undefined and not passes(again.value):
            return "fail"
        return "insufficient support"


@dataclass(frozen=True)
class _Rule:
    """How :func:`summary_from_counts` compares: its method and its two exact thresholds."""

    method: str
    overall: bool
    t_ir: Fraction
    t_ofi: Fraction


def _summarise(df: pl.DataFrame, rule: _Rule) -> pl.DataFrame:
    """The summary rows of a prepared, collected count table (:func:`_build`)."""
    s = _Summary(df, rule.method, rule.overall)
    thresholds = {"min_impact_ratio": float(rule.t_ir), "max_abs_ofi": float(rule.t_ofi)}
    out: dict[str, list[Any]] = {name: [] for name in _SCHEMA}
    for m, res in s.results().items():
        low = s.rests_on_low_support(res)
        verdict = None
        if m == "min_impact_ratio":
            verdict = s.verdict(m, res, lambda v: R.at_least(v, rule.t_ir))
        elif m == "max_abs_ofi":
            verdict = s.verdict(m, res, lambda v: R.at_most(v, rule.t_ofi))
        out["metric"].append(m)
        out["value"].append(None if res.value is None else float(res.value))
        out["group_1"].append(None if res.value is None else s.label(res.first))
        out["group_2"].append(None if res.value is None else s.label(res.second))
        out["threshold"].append(thresholds.get(m))
        out["verdict"].append(verdict)
        out["excluded_groups"].append(s.excluded)
        out["undefined_groups"].append([s.labels[i] for i in res.undefined])
        out["low_support"].append(low)
    return pl.DataFrame(out, schema=_SCHEMA)


def _build(lf: pl.LazyFrame, keys: list[str], ref: Reference, rule: _Rule, support: Fraction,
           explicit: bool, by_rule: bool, exclude_low_support: bool) -> pl.LazyFrame:
    """The summary plan: labels, support, reference and exclusion flags, then :func:`_summarise`."""
    names = lf.collect_schema().names()
    c = count_exprs(names)
    table = lf.sort(keys, nulls_last=True, maintain_order=True) if keys else lf
    parts: list[pl.Expr] = []
    for r in _RATES_USED:
        num, den = METRICS[r].numerator, METRICS[r].denominator
        assert num is not None and den is not None
        parts += [num(c).alias(f"{_P}num_{r}"), den(c).alias(f"{_P}den_{r}")]
    size = support_size(names)  # rows (of positive weight, with sample weights)
    low = pl.col(size) < R.min_count(support)  # rows: an exact integer comparison
    if size == "n_effective":  # estimated membership: min(Σ w·p, n_eff) (Float64)
        low = support_rows(names) < float(support)
    table = table.with_columns(
        summary_label(keys).alias(_LABEL), low.alias(_LOW), *parts,
        METRICS["selection_rate"].value(c).alias(f"{_P}sr"),
    )
    mask: pl.Expr = pl.lit(False)
    if explicit:
        table, flag = ref.flag(table, keys, eligible=pl.lit(True))
        assert flag is not None
        mask = flag
    # an explicit reference is never excluded; every other low-support group is, if asked
    drop = (pl.col(_LOW) & ~mask) if exclude_low_support else pl.lit(False)
    if by_rule:  # the one reference rule (polars_fair.core.reference), within the kept groups
        eligible = known(keys) & (c.n > 0) & ~drop
        table, flag = ref.flag(table, keys, eligible=eligible, score=pl.col(f"{_P}sr"),
                               min_support=float(support))
        assert flag is not None
        mask = flag
    table = table.with_columns(mask.alias(_REF), drop.alias(_DROP))
    return table.map_batches(lambda df: _summarise(df, rule), schema=_SCHEMA)


#: The definitions of :func:`summary_from_counts`'s rows, put in its docstring
#: (:func:`polars_fair._docs.fill`).
DEFINITIONS = r"""
With :math:`r_g` a group's rate (from :data:`polars_fair.core.registry.RATE_NAMES`) and
:math:`G` the groups whose figure is defined (see the module notes: the others are listed in
``undefined_groups``), ``method="between_groups"`` uses Fairlearn's definitions
(``MetricFrame.difference``/``ratio``):

* difference :math:`= \max_G r_g - \min_G r_g`; ratio :math:`= \min_G r_g / \max_G r_g`
  (at least two groups; the ratio is undefined when every rate is 0).

``method="to_reference"`` is Fairlearn's ``to_overall`` with a reference :math:`r_{ref}` in
place of the overall value, over the groups other than the reference:

* difference :math:`= \max_G |r_g - r_{ref}|`;
  ratio :math:`= \min_G \min(r_g / r_{ref}, r_{ref} / r_g)` (0 when exactly one of the two is
  0, undefined when both are).

The rows, in this order:

``demographic_parity_difference``, ``demographic_parity_ratio``
    Selection rate :math:`b = (TP+FP)/n` (demographic parity; Fairlearn).
``equalized_odds_difference``
    The larger of the TPR and FPR differences (Hardt et al. 2016; Fairlearn's
    ``agg="worst_case"``); null when either is.
``equalized_odds_ratio``
    The smaller of the TPR and FPR ratios; null when either is.
``equal_opportunity_difference``
    TPR :math:`TP/(TP+FN)` difference (Hardt et al. 2016).
``predictive_parity_difference``
    PPV :math:`TP/(TP+FP)` difference (Chouldechova 2017).
``accuracy_difference``
    Accuracy :math:`(TP+TN)/n` difference.
``min_impact_ratio``
    :math:`\min_G b_g / \max_G b_g`, the lowest impact ratio of the EEOC four-fifths rule
    (29 CFR 1607.4(D)), whatever the method; ``"pass"`` iff :math:`\ge` ``four_fifths``,
    decided exactly (an impact ratio of exactly 4/5 passes).
``max_abs_ofi``
    :math:`\max_G |B_g - B_{ref}|` to a reference, :math:`\max_G B - \min_G B` between
    groups, with the marginal benefit :math:`B = (FP - FN)/n` (Briscoe et al., "Facets of
    Disparate Impact", the OFI paper); ``"pass"`` iff :math:`\le` ``ofi_threshold``,
    decided exactly (0.3 passes at 0.3).

Values are exact fractions of the counts, correctly rounded; with a weighted count table
the rates use ``weight_sum`` as the population (floats, judged with the tolerance of
:data:`polars_fair.core.rules.WEIGHTED_TOLERANCE`); ``n`` (rows) still decides support and the
``"largest"`` reference.
"""


@fill(DEFINITIONS=DEFINITIONS)
def summary_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    method: Method = DEFAULTS.method,
    reference: Any = DEFAULTS.reference,
    min_support: float = DEFAULTS.min_support,
    exclude_low_support: bool = DEFAULTS.exclude_low_support,
    four_fifths: float = DEFAULTS.four_fifths,
    ofi_threshold: float = DEFAULTS.ofi_threshold,
) -> pl.LazyFrame:
    r"""Fairness summaries of a count table: one row per metric, with value, groups and verdict.

    {DEFINITIONS}

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table, as built by :func:`polars_fair.counting.tables.count_table` or
        ``lf.fair.confusion``.
    keys : sequence of str
        Its key columns (``[]``: the whole population, one group labelled ``"overall"``, which
        has no gap with itself: every value is null).
    method : {"between_groups", "to_reference", "to_overall"}, default "between_groups"
        Compare the groups with each other, or each group with ``reference``; ``"to_overall"``
        (Fairlearn's name) is ``"to_reference"`` with ``reference="overall"``.
    reference : str, Any or mapping, default "largest"
        Used by ``"to_reference"`` only. ``"largest"`` (most rows; ties go to the first group in
        key order), ``"max_selection_rate"``, ``"overall"`` (the whole population, all groups
        including excluded ones; labelled ``"overall"``), a value of the one key, or a mapping
        ``{attribute: value}`` for several keys: the rules of ``report``
        (:mod:`polars_fair.core.reference`). ``"largest"`` and ``"max_selection_rate"``
        choose among the groups left after exclusion; an explicit reference group is never
        excluded.
    min_support : float, default 30
        Groups with ``n < min_support`` rows have low support (a finite number >= 0; with
        sample weights, rows of positive weight, ``n_positive_weight``).
    exclude_low_support : bool, default False
        Leave the low-support groups out of every metric (they are listed in
        ``excluded_groups``): none of them is the reference or the maximum.
    four_fifths : float, default 0.8
        Threshold of ``min_impact_ratio``, in (0, 1].
    ofi_threshold : float, default 0.3
        Threshold of ``max_abs_ofi``, in [0, 2] (the OFI paper's bound).

    Returns
    -------
    pl.LazyFrame
        Nine rows, one per metric of :data:`SUMMARY_METRICS` in that order, with columns:

        - ``metric`` (String);
        - ``value`` (Float64: differences of rates in [0, 1], ratios in [0, 1], ``max_abs_ofi``
          in [0, 2]; null when fewer than two groups, or no group and the reference, have a
          defined figure);
        - ``group_1``, ``group_2`` (String, null when ``value`` is): between groups, the group
          with the higher and the lower rate (two different groups, also when they tie); to a
          reference, the group farthest from the reference and the reference;
          ``min_impact_ratio`` always names the highest then the lowest selection rate. A group
          reads as its value (``"race=Black, sex=Female"`` for several keys), a missing value
          as ``(missing)``; a value that could read as another (the text ``"(missing)"``, one
          starting with ``"``, with several keys one holding ``", "``) is quoted, so no two
          groups share a label (:func:`polars_fair.core.labels.value_text`);
        - ``threshold`` (Float64, null where no rule applies);
        - ``verdict`` (String, null where no rule applies): one of :data:`RULE_VERDICTS`:
          ``"undefined"`` when a group's figure is undefined (``undefined_groups`` is not
          empty); else ``"pass"`` or ``"fail"`` by the exact rule, with a failure that rests on
          a low-support group, or anything measured against a low-support reference,
          ``"insufficient support"`` (module notes); null when there is no value and no
          undefined group (no groups to compare);
        - ``excluded_groups`` (List(String)): the low-support groups left out; empty unless
          ``exclude_low_support``;
        - ``undefined_groups`` (List(String)): the groups with rows left out of this metric
          because their figure is undefined, in key order;
        - ``low_support`` (Boolean): ``group_1`` or ``group_2`` (the reference included) has
          fewer than ``min_support`` rows; null when ``value`` is.

        Ties go to the first group in key order.

    Raises
    ------
    InvalidArgumentError
        An unknown ``method``, an option that is not a finite number in its range (NaN
        included), a reference mapping that does not name exactly the keys, an explicit
        reference with ``keys=[]``. Raised when the plan is built.
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

    The four-fifths value rests on c, 10 rows < 30 (``low_support``), but the supported a and b
    fail too (0.2/0.4 = 0.5), so the failure stands. Had b selected 14 of 40 (0.35/0.4 = 0.875),
    only the comparison with c would fail:

    >>> out.filter(pl.col("metric") == "min_impact_ratio").select("low_support").item()
    True
    >>> b14 = counts.with_columns(tp=pl.Series([10, 12, 4]), fn=pl.Series([4, 0, 1]))
    >>> summary_from_counts(b14, ["g"]).collect().filter(
    ...     pl.col("metric") == "min_impact_ratio").select("value", "verdict").row(0)
    (0.7, 'insufficient support')

    Against group ``a``, leaving out ``c`` (10 rows < 30):

    >>> summary_from_counts(counts, ["g"], method="to_reference", reference="a",
    ...                     exclude_low_support=True).collect().row(0)
    ('demographic_parity_difference', 0.2, 'b', 'a', None, None, ['c'], [], False)
    """
    if method not in METHODS:
        raise E.InvalidArgumentError(UNKNOWN_METHOD.format(valid=list(METHODS), method=method))
    if method == "to_overall":
        method, reference = "to_reference", "overall"
    support = check("min_support", min_support)
    t_ir = check("four_fifths", four_fifths)
    t_ofi = check("ofi_threshold", ofi_threshold)
    exclude_low_support = R.flag(exclude_low_support, "exclude_low_support")
    keys = list(keys)
    ref = Reference.parse(reference).for_set(keys)
    explicit = method == "to_reference" and not ref.is_rule
    if explicit and not keys:
        raise E.InvalidArgumentError(NO_KEYS_FOR_REFERENCE)
    overall = method == "to_reference" and ref.is_overall
    by_rule = method == "to_reference" and ref.is_rule and not overall

    rule = _Rule(method, overall, t_ir, t_ofi)
    return on_small_table(counts, lambda lf: _build(lf, keys, ref, rule, support, explicit,
                                                    by_rule, exclude_low_support))
