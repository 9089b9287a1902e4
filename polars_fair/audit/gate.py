"""The CI gate: every adequately supported group against fairness limits, as one frame.

:func:`gate` is the decision of ``polars-fair check`` as an analysis: from a count table
(:class:`polars_fair.api.objects.FairCounts`: the impact ratio and OFI of ``report``) and, for an
ABROCA limit, a score table (:class:`polars_fair.api.objects.FairScores`: ``abroca``), it returns
one row per (metric, group) with the value, the limit and whether the group passes;
:func:`verdict` reads the overall decision from that frame. The command line and the HTML audit
only format the frame.

Both analyses compare each group with *one* reference group, chosen once by
:func:`resolve_gate_reference` with the rule of :mod:`polars_fair.core.reference` over the groups
eligible for both: a rule (``"largest"``, ``"max_selection_rate"``, ``"max_auc"``) becomes that
explicit group, a :class:`polars_fair.core.reference.Reference` which is then passed to
``report`` and to ``abroca`` alike (and, by the HTML audit, to every table of its page).

Why one module: the gate's reference, its rows per metric and its verdict are one decision,
read together by the command line, the HTML audit and the change gate; apart, the rule that
chooses the benchmark and the rows that use it could drift.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any, Unpack, cast

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.analyses.runner import check_clash
from polars_fair.api.external import from_counts, from_scores
from polars_fair.api.objects import FairCounts, FairScores
from polars_fair.core import rules as R
from polars_fair.core.families import SupportOptions, takes
from polars_fair.core.labels import named_label
from polars_fair.core.numbers import limit_text
from polars_fair.core.options import DEFAULTS, check
from polars_fair.core.reference import (
    COUNT_RULES,
    SCORE_RULES,
    SUPPORT_SIZE,
    SUPPORT_SIZE_WEIGHTED,
    Reference,
    known,
    known_supported,
    support_rows,
)
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS, support_size

__all__ = ["GATE_COLUMNS", "LOW_CLASS_SUPPORT", "LOW_SUPPORT", "LOW_SUPPORT_MEMBERSHIP",
           "LOW_SUPPORT_MEMBERSHIP_WEIGHTED",
           "NO_BENCHMARK", "ZERO_DENOMINATOR", "check_limit", "gate", "gate_reference",
           "group_labels",
           "resolve_gate_reference", "testable",
           "verdict"]

#: The columns of :func:`gate` after the key columns' place (``metric`` comes first).
GATE_COLUMNS = ("group", "n", "is_reference", "value", "limit", "rule", "checked", "passed",
                "reason")

ABROCA_NEEDS_SCORES = (
    "max_abroca={value!r} needs a score table: pass scores= (polars_fair.scores(...) or "
    "from_scores(...)) to compare each group's ROC curve with the reference's"
)
NOT_A_GROUP = (
    "reference={reference!r} is not a group: ABROCA compares each group's ROC curve with a "
    "reference group's (use 'largest', 'max_selection_rate', 'max_auc' or a group value)"
)
ONE_SET = (
    "the gate checks one attribute set; this count table holds several (combinations=...): "
    "make one FairCounts per attribute set"
)
#: ``reason`` of a group below ``min_support`` (not checked).
LOW_SUPPORT = "n < {min_support:g}"
#: ``reason`` of a group's ABROCA row with too few positives or negatives (not checked: the
#: audit page's rule, :func:`testable`).
LOW_CLASS_SUPPORT = "positives or negatives < {min_support:g}"
#: ``reason`` of a group of estimated membership whose support size is below ``min_support``:
#: the quantity decided on (:func:`polars_fair.core.reference.support_rows`), with its value
#: (n counts every row with a probability above 0, so "n < 30" beside n = 1000 would misstate
#: the rule).
LOW_SUPPORT_MEMBERSHIP = SUPPORT_SIZE + " = {size} < {min_support:g}"
#: The same with sample weights: the support size in rows, whatever the weights' scale.
LOW_SUPPORT_MEMBERSHIP_WEIGHTED = SUPPORT_SIZE_WEIGHTED + " = {size} < {min_support:g}"
#: ``reason`` of the reference's own ABROCA row (not checked: it is 0 by definition).
REFERENCE = "reference group"
#: ``reason`` of an undefined impact ratio or OFI (a zero denominator).
ZERO_DENOMINATOR = "0/0"
#: ``reason`` of an undefined impact ratio or OFI when no group can be the benchmark (every
#: known group is empty: the missing group is never chosen by a rule).
NO_BENCHMARK = "no group can be the benchmark (the missing group never is)"

_METRICS = ("impact_ratio", "ofi", "abroca")


def _check_limit(name: str, value: Any, low: float, high: float) -> Fraction:
    """A limit as the exact decimal written, a finite number in ``[low, high]``."""
    return R.option(value, name, low=low, high=high)


def check_limit(name: str, value: Any, low: float, high: float) -> Fraction:
    """A gate limit as the exact decimal written (shared with :mod:`.change_gate`).

    Parameters
    ----------
    name : str
        The option, for the message.
    value : Any
        The limit passed.
    low, high : float
        Its interval.

    Returns
    -------
    Fraction
        The limit (:func:`polars_fair.core.rules.option`).

    Raises
    ------
    InvalidArgumentError
        Not a finite number in ``[low, high]``.

    Examples
    --------
    >>> check_limit("max_abs_ofi", 0.3, 0.0, 2.0)
    Fraction(3, 10)
    """
    return _check_limit(name, value, low, high)


def _mapping(table: pl.DataFrame, keys: list[str], idx: int) -> Reference:
    return Reference.parse(dict(zip(keys, table.select(keys).row(idx), strict=True)))


@takes(SupportOptions)
def resolve_gate_reference(
    counts: FairCounts,
    scores: FairScores | None = None,
    reference: Any = DEFAULTS.reference,
    **options: Unpack[SupportOptions],
) -> Reference:
    """The one reference group of a count table and (optionally) a score table.

    A rule is resolved once, by :meth:`polars_fair.core.reference.Reference.index`, over the groups
    eligible for every analysis given: known keys, rows (``n > 0``) of positive total weight
    (``weight_sum > 0``, when the table is weighted), at least ``min_support``
    rows when ``exclude_low_support``, and, with ``scores``, both classes in the score table (a
    ROC curve). The chosen group is returned as an explicit group, so ``report`` and ``abroca``
    compare with the same group. When no group is eligible for both, the count analyses' own
    choice is returned (ABROCA against it is then undefined, with its reason); for
    ``"max_auc"``, which the count analyses do not know, that is the largest group.

    Parameters
    ----------
    counts : FairCounts
        The count table of one attribute set (:func:`polars_fair.counts`).
    scores : FairScores, optional
        The score table of the same rows (:func:`polars_fair.scores`).
    reference : rule, group value, tuple, mapping or Reference, default "largest"
        ``"largest"`` (most rows), ``"max_selection_rate"``, ``"max_auc"`` (with ``scores``),
        ``"overall"`` (no group; not with ``scores``), or an explicit group, returned as is.
    min_support : float, default 30
        See ``exclude_low_support``.
    exclude_low_support : bool, default False
        Groups with fewer than ``min_support`` rows cannot be chosen by a rule.

    Returns
    -------
    polars_fair.core.reference.Reference
        The group chosen by a rule, as an explicit mapping ``{key: value}``; ``reference``
        itself (parsed) when it is explicit, ``"overall"``, when there are no keys, or when no
        group is eligible at all.

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        ``"overall"`` with ``scores`` (ABROCA needs a group), a rule the analyses do not
        accept, a mapping naming an attribute that is not a key, or a count table of several
        attribute sets.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_counts
    >>> c = from_counts(pl.DataFrame({"g": ["a", "b"], "n": [6, 4], "tp": [6, 2], "fp": [0, 1],
    ...                               "fn": [0, 1], "tn": [0, 0]}))
    >>> resolve_gate_reference(c).argument
    {'g': 'a'}
    """
    if counts.sets is not None:
        raise E.InvalidArgumentError(ONE_SET)
    keys = list(counts.keys)
    ref = Reference.parse(reference, keys)
    if ref.is_overall and scores is not None:
        raise E.InvalidArgumentError(NOT_A_GROUP.format(reference=ref.argument))
    if not ref.is_rule or ref.is_overall or not keys:
        return ref
    table = counts.rates().collect().select(*keys, "n", "selection_rate")
    if "weight_sum" in counts.frame.collect_schema().names():  # a group of zero weight is empty
        weights = counts.frame.select(*keys, "weight_sum").collect()
        table = table.join(weights, on=keys, how="left", nulls_equal=True,
                           maintain_order="left")
        count_ok = known(keys) & (pl.col("n") > 0) & (pl.col("weight_sum") > 0).fill_null(False)
    else:
        count_ok = known(keys) & (pl.col("n") > 0)
    min_support = options["min_support"]
    size = support_size(counts.frame.collect_schema().names())
    if size != "n":  # estimated membership (n_effective), rows of positive weight
        table = table.join(counts.frame.select(*keys, size).collect(), on=keys, how="left",
                           nulls_equal=True, maintain_order="left")
    if options["exclude_low_support"]:  # rows, or the support size: support_rows
        count_ok = count_ok & (support_rows(table.columns) >= min_support)
    rules: tuple[str, ...] = COUNT_RULES
    score = pl.col("selection_rate")
    candidates = [count_ok]
    if scores is not None:
        rules = tuple(r for r in (*COUNT_RULES, *SCORE_RULES) if r != "overall")
        roc = scores.abroca().collect().select(*keys, "positives", "negatives", "auc")
        table = table.join(roc, on=keys, how="left", nulls_equal=True, maintain_order="left")
        both = ((pl.col("positives") > 0) & (pl.col("negatives") > 0)).fill_null(False)
        candidates = [count_ok & both, count_ok]
        if ref.rule == "max_auc":
            score = pl.col("auc")
    for eligible in candidates:
        idx = ref.index(table, keys, eligible=eligible, score=table.select(score).to_series(),
                        rules=rules, min_support=min_support)
        if idx is not None:
            return _mapping(table, keys, idx)
    if ref.rule not in COUNT_RULES:  # "max_auc" and no group has an AUC: the largest group
        idx = Reference.parse("largest").index(table, keys, eligible=count_ok, rules=rules,
                                               min_support=min_support)
        if idx is not None:
            return _mapping(table, keys, idx)
    return ref


#: How a null key value (the group of the rows whose attribute is missing) reads in a label.
MISSING = "(missing)"


@borrow(resolve_gate_reference, params=("counts", "scores", "reference", "min_support",
                                         "exclude_low_support"), sections=("Raises",))
@takes(SupportOptions)
def gate_reference(
    counts: FairCounts,
    scores: FairScores | None = None,
    reference: Any = DEFAULTS.reference,
    **options: Unpack[SupportOptions],
) -> Any:
    """The one reference group of a count table and (optionally) a score table, as an argument.

    :func:`resolve_gate_reference`'s choice written as a ``reference=`` argument
    (:attr:`polars_fair.core.reference.Reference.argument`).

    Returns
    -------
    Any
        ``{key: value}`` for a group chosen by a rule; ``reference`` itself when it is explicit,
        ``"overall"``, when there are no keys, or when no group is eligible at all.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_counts, from_scores
    >>> c = from_counts(pl.DataFrame({"g": ["a", "b"], "n": [6, 4], "tp": [6, 2], "fp": [0, 1],
    ...                               "fn": [0, 1], "tn": [0, 0]}))
    >>> s = from_scores(pl.DataFrame({"g": ["a", "b", "b"], "score": [0.9, 0.2, 0.8],
    ...                               "positives": [6, 1, 2], "negatives": [0, 1, 0]}))
    >>> gate_reference(c), gate_reference(c, s)  # "a" is larger but has one class
    ({'g': 'a'}, {'g': 'b'})
    """
    return resolve_gate_reference(counts, scores, reference, **options).argument


def _labels(frame: pl.DataFrame, keys: list[str]) -> pl.Series:
    """``race=Black, sex=Female``, quoted as every label is (core.labels.named_label)."""
    if not keys:
        return pl.Series("group", ["all"] * frame.height, dtype=pl.String)
    return frame.select(named_label(keys, missing=MISSING)).to_series()


def group_labels(frame: pl.DataFrame, keys: list[str]) -> pl.Series:
    """The ``group`` column of a gate frame (shared with :mod:`.change_gate`).

    Parameters
    ----------
    frame : pl.DataFrame
        A per-group table.
    keys : list of str
        Its key columns.

    Returns
    -------
    pl.Series
        String ``"key=value, key=value"`` per row (``"all"`` without keys, a null value
        ``"(missing)"``).

    Examples
    --------
    >>> group_labels(pl.DataFrame({"g": ["a", None]}), ["g"]).to_list()
    ['g=a', 'g=(missing)']
    """
    return _labels(frame, keys)


def testable(min_support: float | Fraction) -> pl.Expr:
    """A group's ABROCA can be judged: at least ``min_support`` positives and negatives.

    The one low-support rule of the metrics (a rate is low support when its own denominator is
    below ``min_support``: :func:`polars_fair.analyses.uncertainty.metrics_table`) applied to
    the two rates of a ROC curve, the TPR (over the positives) and the FPR (over the
    negatives). The gate (``max_abroca``) and the audit page's ABROCA findings use it.

    Parameters
    ----------
    min_support : float or Fraction
        The least positives and negatives.

    Returns
    -------
    pl.Expr
        Boolean, over the columns ``positives`` and ``negatives`` of an ABROCA table.

    Examples
    --------
    >>> df = pl.DataFrame({"positives": [30, 6], "negatives": [40, 90]})
    >>> df.select(testable(30)).to_series().to_list()
    [True, False]
    """
    least = R.min_count(R.exact(min_support, "min_support"))
    return (pl.col("positives") >= least) & (pl.col("negatives") >= least)


def _rows(frame: pl.DataFrame, keys: list[str], metric: str, limit: float, rule: str,
          passes: pl.Expr, undefined: pl.Expr, min_support: Fraction,
          skip_reference: bool, classes: bool = False) -> pl.DataFrame:
    value = pl.col("value")
    size = support_size(frame.columns)  # rows of positive weight with sample weights
    supported = pl.col(size) >= R.min_count(min_support)  # rows: an exact integer comparison
    low = pl.lit(LOW_SUPPORT.format(min_support=float(min_support)))
    if size == "n_effective":  # estimated membership: the support size (support_rows)
        support = support_rows(frame.columns)
        supported = support >= float(min_support)
        template = (LOW_SUPPORT_MEMBERSHIP_WEIGHTED if "row_weight_sum" in frame.columns
                    else LOW_SUPPORT_MEMBERSHIP)
        low = pl.format(template.format(size="{}", min_support=float(min_support)),
                        support.round(2))
    if classes:  # ABROCA: positives and negatives, the audit page's rule
        supported = testable(min_support).fill_null(False)
        low = pl.lit(LOW_CLASS_SUPPORT.format(min_support=float(min_support)))
    checked = (supported & ~pl.col("is_reference")) if skip_reference else supported
    return frame.with_columns(_labels(frame, keys)).select(
        pl.lit(metric, dtype=pl.String).alias("metric"),
        *keys,
        "group",
        pl.col("n").cast(pl.Int64),
        pl.col("is_reference").fill_null(False),
        value.cast(pl.Float64),
        pl.lit(limit, dtype=pl.Float64).alias("limit"),
        pl.lit(rule, dtype=pl.String).alias("rule"),
        checked.alias("checked"),
        pl.when(~checked).then(None).when(value.is_null()).then(False).otherwise(passes)
        .alias("passed"),
        pl.when(~supported).then(low)
        .when(~checked).then(pl.lit(REFERENCE))
        .when(value.is_null()).then(undefined)
        .otherwise(None).cast(pl.String).alias("reason"),
        "__pf_order",
    )


def gate(
    counts: FairCounts,
    scores: FairScores | None = None,
    *,
    reference: Any = DEFAULTS.reference,
    min_impact_ratio: float | Decimal = DEFAULTS.four_fifths,
    max_abs_ofi: float | Decimal = DEFAULTS.ofi_threshold,
    max_abroca: float | Decimal | None = None,
    min_support: float = DEFAULTS.min_support,
) -> pl.DataFrame:
    """The CI gate: each group with at least ``min_support`` rows against fairness limits.

    The checks, per group (the figures of ``report(..., exclude_low_support=True)`` and
    ``abroca``, all against the one reference of :func:`gate_reference`):

    * ``impact_ratio >= min_impact_ratio``: the group's selection rate over the highest
      selection rate among the supported groups (EEOC four-fifths rule, 29 CFR 1607.4(D)), so a
      tiny group cannot fail everyone;
    * ``|ofi| <= max_abs_ofi``: the Objective Fairness Index against the reference (Briscoe et
      al., "Facets of Disparate Impact");
    * with ``max_abroca``, ``abroca <= max_abroca``: the exact area between the group's ROC
      curve and the reference's (Gardner, Brooks & Baker 2019); the reference's own row is not
      checked.

    Groups with fewer than ``min_support`` rows (for estimated membership, a support size,
    the expected size in rows bounded by ``n_effective``, below it:
    :func:`polars_fair.core.reference.support_rows`; rows of positive weight,
    ``n_positive_weight``, with sample weights) are listed but not checked. An undefined figure
    (null: a zero denominator, or a group or reference with one class) never passes.

    Every check is decided exactly (:mod:`polars_fair.core.rules`; the documentation's
    "Guarantees" page, ``docs/guarantees.md``): the impact ratio and the OFI are ``report``'s
    exact fractions of the counts, compared with the limit as the decimal written, and the
    limit itself passes (an impact ratio of exactly 4/5 passes
    ``min_impact_ratio=0.8``; ``|ofi| = 0.3`` passes ``max_abs_ofi=0.3``); weighted tables use
    the tolerance of :data:`polars_fair.core.rules.WEIGHTED_TOLERANCE`. ABROCA, an area computed in
    floating point, is compared as the float it is with the limit. A group with exactly
    ``min_support`` rows is checked; a group's ABROCA is checked only with at least
    ``min_support`` positives and as many negatives (:func:`testable`, the audit page's rule;
    else ``reason`` :data:`LOW_CLASS_SUPPORT`).

    Parameters
    ----------
    counts : FairCounts
        The count table of one attribute set (:func:`polars_fair.counts` or
        :func:`polars_fair.from_counts`); it is collected once.
    scores : FairScores, optional
        The score table of the same rows; read only when ``max_abroca`` is given.
    reference : rule, group value, tuple or mapping, default "largest"
        As in :func:`gate_reference` (``"overall"`` only without ``max_abroca``).
    min_impact_ratio : float, default 0.8
        A finite number in [0, 1]; 0 switches the check off.
    max_abs_ofi : float, default 0.3
        A finite number in [0, 2]; 2 switches the check off.
    max_abroca : float, optional
        A finite number in [0, 1]; needs ``scores``.
    min_support : float, default 30
        Rows a group needs to be checked (a finite number >= 0).

    Returns
    -------
    pl.DataFrame
        One row per metric and group, by group (key order) then metric (``impact_ratio``,
        ``ofi``, ``abroca``):

        - ``metric`` (String);
        - the key columns (their dtypes);
        - ``group`` (String): ``"key=value, key=value"`` (``"all"`` without keys; a null
          value reads ``"(missing)"``);
        - ``n`` (Int64): the group's rows in the count table;
        - ``is_reference`` (Boolean);
        - ``value`` (Float64): the figure, null when undefined;
        - ``limit`` (Float64) and ``rule`` (String, e.g. ``">= 0.8"``, ``"|ofi| <= 0.3"``);
        - ``checked`` (Boolean): ``n >= min_support`` (for ABROCA: at least ``min_support``
          positives and negatives, and not the reference);
        - ``passed`` (Boolean): null when not checked, false when undefined;
        - ``reason`` (String): why a row is not checked (:data:`LOW_SUPPORT`;
          :data:`LOW_SUPPORT_MEMBERSHIP` for estimated membership, with the support size,
          :data:`LOW_SUPPORT_MEMBERSHIP_WEIGHTED` with sample weights too;
          :data:`LOW_CLASS_SUPPORT`, :data:`REFERENCE`) or undefined
          (:data:`ZERO_DENOMINATOR`, or ABROCA's ``undefined_reason``); null otherwise.

        :func:`verdict` gives the overall decision.

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        A limit or ``min_support`` that is not a finite number in its range (NaN included),
        ``max_abroca`` without ``scores``, ``reference="overall"``
        with ``max_abroca``, or a count table of several attribute sets.
    polars_fair.errors.PolarsFairError
        The errors of ``report`` and ``abroca`` (an unknown reference group, ...).

    Examples
    --------
    Selection rates 30/50 = 0.6 and 8/40 = 0.2: b's impact ratio is 1/3. Marginal benefits
    (FP - FN)/n = 0.1 and -0.075: b's OFI against a (the largest) is -0.175.

    >>> import polars as pl
    >>> from polars_fair import from_counts
    >>> c = from_counts(pl.DataFrame({"g": ["a", "b"], "n": [50, 40], "tp": [20, 5],
    ...                               "fp": [10, 3], "fn": [5, 6], "tn": [15, 26]}))
    >>> g = gate(c)
    >>> g.select("metric", "g", "value", "passed").with_columns(pl.col("value").round(4))
    shape: (4, 4)
    ┌──────────────┬─────┬────────┬────────┐
    │ metric       ┆ g   ┆ value  ┆ passed │
    │ ---          ┆ --- ┆ ---    ┆ ---    │
    │ str          ┆ str ┆ f64    ┆ bool   │
    ╞══════════════╪═════╪════════╪════════╡
    │ impact_ratio ┆ a   ┆ 1.0    ┆ true   │
    │ ofi          ┆ a   ┆ 0.0    ┆ true   │
    │ impact_ratio ┆ b   ┆ 0.3333 ┆ false  │
    │ ofi          ┆ b   ┆ -0.175 ┆ true   │
    └──────────────┴─────┴────────┴────────┘
    >>> verdict(g)
    False
    """
    t_ir, t_ofi, t_support, t_abroca = _limits(counts, scores, min_impact_ratio, max_abs_ofi,
                                               max_abroca, min_support)
    keys = list(counts.keys)
    elsewhere = bool(getattr(counts, "made_elsewhere", False))
    check_clash(keys, ["metric", *GATE_COLUMNS], "gate", made_elsewhere=elsewhere)
    # one scan of each table; every analysis below reads the collected table, whose keys came
    # from where the caller's did (a clash is advised as a by= rename, not a table's, for rows)
    counts = from_counts(counts.frame.collect(), keys)
    counts.made_elsewhere = elsewhere
    fs = from_scores(scores.frame.collect(), scores.keys) if (
        scores is not None and max_abroca is not None) else None
    support = float(t_support)
    # no known group supported (the missing group never is a benchmark): report's own benchmarks
    exclude = known_supported(counts.frame, keys, support)
    ref = resolve_gate_reference(counts, fs, reference, min_support=support,
                                 exclude_low_support=exclude)
    # the limits are report's own thresholds, so each verdict is report's exact rule
    # (polars_fair.core.rules): adverse_impact is impact_ratio < limit, ofi_flag |ofi| > limit.
    # min_impact_ratio=0 (the check off) is no four-fifths threshold: every defined ratio passes
    report = counts.report(reference=ref, min_support=support, exclude_low_support=exclude,
                           # exact Fractions, never through a float (report reads them so)
                           four_fifths=cast(float, t_ir if t_ir > 0 else Fraction(4, 5)),
                           ofi_threshold=cast(float, t_ofi)).collect()
    report = report.with_row_index("__pf_order")
    blocks = _count_blocks(report, keys, t_ir, t_ofi, t_support)
    if fs is not None and t_abroca is not None:
        blocks.append(_abroca_rows(fs, ref, report, keys, t_abroca, t_support))
    metric_order = pl.col("metric").replace_strict(
        {m: i for i, m in enumerate(_METRICS)}, return_dtype=pl.Int64)
    return (pl.concat(blocks, how="vertical")
            .sort([pl.col("__pf_order"), metric_order], maintain_order=True)
            .drop("__pf_order"))


def _count_blocks(report: pl.DataFrame, keys: list[str], t_ir: Fraction, t_ofi: Fraction,
                  t_support: Fraction) -> list[pl.DataFrame]:
    """The gate's rows of the impact ratio and the OFI, from ``report``'s own verdicts."""
    zero = pl.lit(ZERO_DENOMINATOR)  # no known group with rows: no benchmark at all
    no_top = not report.select(known(keys) & (pl.col("n") > 0)).to_series().any()
    ir_zero = ofi_zero = pl.lit(NO_BENCHMARK) if no_top else zero
    ir_passes = ~pl.col("adverse_impact") if t_ir > 0 else pl.lit(True)
    return [
        _rows(report.with_columns(value=pl.col("impact_ratio")), keys, "impact_ratio",
              float(t_ir), f">= {_limit_text(t_ir)}", ir_passes, ir_zero, t_support,
              skip_reference=False),
        _rows(report.with_columns(value=pl.col("ofi")), keys, "ofi", float(t_ofi),
              f"|ofi| <= {_limit_text(t_ofi)}", ~pl.col("ofi_flag"), ofi_zero, t_support,
              skip_reference=False),
    ]


def _limit_text(limit: Fraction) -> str:
    """A limit as its rule shows it: ``0.8``, or every digit of one no float spells."""
    if Fraction(repr(float(limit))) == limit:
        return limit_text(float(limit))  # 0.8123456, not :g's 0.812346
    return str(Decimal(limit.numerator) / Decimal(limit.denominator))  # a decimal: exact


def _limits(counts: FairCounts, scores: FairScores | None, min_impact_ratio: float | Decimal,
            max_abs_ofi: float | Decimal, max_abroca: float | Decimal | None, min_support: float,
            ) -> tuple[Fraction, Fraction, Fraction, Fraction | None]:
    """:func:`gate`'s limits checked, as exact fractions (``max_abroca``: None when absent)."""
    t_ir = _check_limit("min_impact_ratio", min_impact_ratio, 0.0, 1.0)
    t_ofi = _check_limit("max_abs_ofi", max_abs_ofi, 0.0, 2.0)
    t_support = check("min_support", min_support)
    t_abroca: Fraction | None = None
    if max_abroca is not None:
        t_abroca = _check_limit("max_abroca", max_abroca, 0.0, 1.0)
        if scores is None:
            raise E.InvalidArgumentError(ABROCA_NEEDS_SCORES.format(value=max_abroca))
    if counts.sets is not None:
        raise E.InvalidArgumentError(ONE_SET)
    return t_ir, t_ofi, t_support, t_abroca


def _abroca_rows(fs: FairScores, ref: Any, report: pl.DataFrame, keys: list[str],
                 t_abroca: Fraction, t_support: Fraction) -> pl.DataFrame:
    """The gate's ABROCA rows: each group's ABROCA against the limit, in the report's order."""
    abroca = fs.abroca(reference=ref).collect()
    positive = [POSITIVE_WEIGHT_ROWS] if POSITIVE_WEIGHT_ROWS in report.columns else []
    sizes = report.select(*keys, pl.col("n").alias("__pf_n"), *positive, "__pf_order")
    abroca = abroca.join(sizes, on=keys, how="left", nulls_equal=True,
                         maintain_order="left").with_columns(
        n=pl.coalesce(pl.col("__pf_n"), pl.col("n").cast(pl.Int64, strict=False)),
        __pf_order=pl.col("__pf_order").fill_null(report.height),
        value=pl.col("abroca"),
    )
    if positive:  # the report's support column, so every row of a group is checked alike
        abroca = abroca.with_columns(pl.col(POSITIVE_WEIGHT_ROWS).fill_null(pl.col("n")))
    # ABROCA is an area computed in floating point, not a ratio of counts: compared as
    # the float it is with the limit rounded once (rules.float_at_most)
    return _rows(abroca, keys, "abroca", float(t_abroca), f"<= {_limit_text(t_abroca)}",
                 pl.col("value") <= float(t_abroca), pl.col("undefined_reason"), t_support,
                 skip_reference=True, classes=True)


def verdict(table: pl.DataFrame) -> bool:
    """The overall decision of a :func:`gate` frame: pass or fail.

    Parameters
    ----------
    table : pl.DataFrame
        The output of :func:`gate`.

    Returns
    -------
    bool
        True when at least one row was checked and every checked row passed (an undefined
        figure does not pass); False otherwise, including when nothing was checked.

    Examples
    --------
    >>> import polars as pl
    >>> verdict(pl.DataFrame({"checked": [True, False], "passed": [True, None]}))
    True
    >>> verdict(pl.DataFrame({"checked": [False], "passed": [None]}, schema_overrides={
    ...     "passed": pl.Boolean}))
    False
    """
    checked = table.filter(pl.col("checked"))
    return bool(checked.height > 0 and checked["passed"].fill_null(False).all())

