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
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.analyses.runner import check_clash
from polars_fair.api.compare import FairPaired
from polars_fair.api.external import from_counts, from_scores
from polars_fair.api.objects import FairCounts, FairScores
from polars_fair.core import rules as R
from polars_fair.core.options import DEFAULTS, check
from polars_fair.core.reference import COUNT_RULES, SCORE_RULES, Reference, known

__all__ = ["CHANGE_GATE_COLUMNS", "GATE_COLUMNS", "change_gate", "change_message", "gate",
           "gate_reference", "resolve_gate_reference", "verdict"]

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
#: ``reason`` of the reference's own ABROCA row (not checked: it is 0 by definition).
REFERENCE = "reference group"
#: ``reason`` of an undefined impact ratio or OFI (a zero denominator).
ZERO_DENOMINATOR = "0/0"

_METRICS = ("impact_ratio", "ofi", "abroca")


def _check_limit(name: str, value: Any, low: float, high: float) -> Fraction:
    """A limit as the exact decimal written, a finite number in ``[low, high]``."""
    return R.option(value, name, low=low, high=high)


def _mapping(table: pl.DataFrame, keys: list[str], idx: int) -> Reference:
    return Reference.parse(dict(zip(keys, table.select(keys).row(idx), strict=True)))


def resolve_gate_reference(
    counts: FairCounts,
    scores: FairScores | None = None,
    reference: Any = DEFAULTS.reference,
    *,
    min_support: float = DEFAULTS.min_support,
    exclude_low_support: bool = DEFAULTS.exclude_low_support,
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
    if exclude_low_support:
        count_ok = count_ok & (pl.col("n") >= min_support)
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
def gate_reference(
    counts: FairCounts,
    scores: FairScores | None = None,
    reference: Any = DEFAULTS.reference,
    *,
    min_support: float = DEFAULTS.min_support,
    exclude_low_support: bool = DEFAULTS.exclude_low_support,
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
    return resolve_gate_reference(counts, scores, reference, min_support=min_support,
                                  exclude_low_support=exclude_low_support).argument


def _labels(frame: pl.DataFrame, keys: list[str]) -> pl.Series:
    names = [", ".join(f"{k}={MISSING if v is None else v}" for k, v in zip(keys, row, strict=True))
             if keys else "all" for row in frame.select(keys).iter_rows()]
    return pl.Series("group", names, dtype=pl.String)


def _rows(frame: pl.DataFrame, keys: list[str], metric: str, limit: float, rule: str,
          passes: pl.Expr, undefined: pl.Expr, min_support: Fraction,
          skip_reference: bool) -> pl.DataFrame:
    value = pl.col("value")
    supported = pl.col("n") >= R.min_count(min_support)  # rows: an exact integer comparison
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
        pl.when(~supported).then(pl.lit(LOW_SUPPORT.format(min_support=float(min_support))))
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
    min_impact_ratio: float = DEFAULTS.four_fifths,
    max_abs_ofi: float = DEFAULTS.ofi_threshold,
    max_abroca: float | None = None,
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

    Groups with fewer than ``min_support`` rows are listed but not checked. An undefined figure
    (null: a zero denominator, or a group or reference with one class) never passes.

    Every check is decided exactly (:mod:`polars_fair.core.rules`; the documentation's
    "Guarantees" page, ``docs/guarantees.md``): the impact ratio and the OFI are ``report``'s
    exact fractions of the counts, compared with the limit as the decimal written, and the
    limit itself passes (an impact ratio of exactly 4/5 passes
    ``min_impact_ratio=0.8``; ``|ofi| = 0.3`` passes ``max_abs_ofi=0.3``); weighted tables use
    the tolerance of :data:`polars_fair.core.rules.WEIGHTED_TOLERANCE`. ABROCA, an area computed in
    floating point, is compared as the float it is with the limit. A group with exactly
    ``min_support`` rows is checked.

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
        - ``checked`` (Boolean): ``n >= min_support`` (and not the reference, for ABROCA);
        - ``passed`` (Boolean): null when not checked, false when undefined;
        - ``reason`` (String): why a row is not checked (:data:`LOW_SUPPORT`,
          :data:`REFERENCE`) or undefined (:data:`ZERO_DENOMINATOR`, or ABROCA's
          ``undefined_reason``); null otherwise.

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
    check_clash(keys, ["metric", *GATE_COLUMNS], "gate")
    # one scan of each table; every analysis below reads the collected table
    counts = from_counts(counts.frame.collect(), keys)
    fs = from_scores(scores.frame.collect(), scores.keys) if (
        scores is not None and max_abroca is not None) else None
    support = float(t_support)
    ref = resolve_gate_reference(counts, fs, reference, min_support=support,
                                 exclude_low_support=True)
    # the limits are report's own thresholds, so each verdict is report's exact rule
    # (polars_fair.core.rules): adverse_impact is impact_ratio < limit, ofi_flag |ofi| > limit.
    # min_impact_ratio=0 (the check off) is no four-fifths threshold: every defined ratio passes
    report = counts.report(reference=ref, min_support=support, exclude_low_support=True,
                           four_fifths=float(t_ir) if t_ir > 0 else 0.8,
                           ofi_threshold=float(t_ofi)).collect()
    report = report.with_row_index("__pf_order")
    zero = pl.lit(ZERO_DENOMINATOR)
    ir_passes = ~pl.col("adverse_impact") if t_ir > 0 else pl.lit(True)
    blocks = [
        _rows(report.with_columns(value=pl.col("impact_ratio")), keys, "impact_ratio",
              float(t_ir), f">= {float(t_ir):g}", ir_passes, zero, t_support,
              skip_reference=False),
        _rows(report.with_columns(value=pl.col("ofi")), keys, "ofi", float(t_ofi),
              f"|ofi| <= {float(t_ofi):g}", ~pl.col("ofi_flag"), zero, t_support,
              skip_reference=False),
    ]
    if fs is not None and t_abroca is not None:
        blocks.append(_abroca_rows(fs, ref, report, keys, t_abroca, t_support))
    metric_order = pl.col("metric").replace_strict(
        {m: i for i, m in enumerate(_METRICS)}, return_dtype=pl.Int64)
    return (pl.concat(blocks, how="vertical")
            .sort([pl.col("__pf_order"), metric_order], maintain_order=True)
            .drop("__pf_order"))


def _limits(counts: FairCounts, scores: FairScores | None, min_impact_ratio: float,
            max_abs_ofi: float, max_abroca: float | None, min_support: float,
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
    sizes = report.select(*keys, pl.col("n").alias("__pf_n"), "__pf_order")
    abroca = abroca.join(sizes, on=keys, how="left", nulls_equal=True,
                         maintain_order="left").with_columns(
        n=pl.coalesce(pl.col("__pf_n"), pl.col("n").cast(pl.Int64, strict=False)),
        __pf_order=pl.col("__pf_order").fill_null(report.height),
        value=pl.col("abroca"),
    )
    # ABROCA is an area computed in floating point, not a ratio of counts: compared as
    # the float it is with the limit rounded once (rules.float_at_most)
    return _rows(abroca, keys, "abroca", float(t_abroca), f"<= {float(t_abroca):g}",
                 pl.col("value") <= float(t_abroca), pl.col("undefined_reason"), t_support,
                 skip_reference=True)


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


#: The columns of :func:`change_gate` after ``metric`` and the key columns.
CHANGE_GATE_COLUMNS = ("group", "n", "baseline", "value", "change", "change_low",
                       "change_high", "limit", "rule", "checked", "passed", "reason")
#: ``reason`` of a change that is within its limit or not shown real by the paired interval.
NOT_REAL = "the paired {level:g}% interval [{low:.4f}, {high:.4f}] does not exclude 0"
#: The message of a failed change check (``polars-fair check --baseline-pred``).
CHANGE_FAILED = (
    "{group}: {metric} {before:.4f} (baseline) -> {after:.4f} (candidate), worse by {worse:.4f} "
    "> {limit:g}; paired {level:g}% interval of the change [{low:.4f}, {high:.4f}] excludes 0"
)


def change_gate(
    paired: FairPaired,
    *,
    reference: Any = DEFAULTS.reference,
    max_impact_ratio_drop: float = 0.05,
    max_ofi_increase: float = 0.05,
    level: float = DEFAULTS.level,
    min_support: float = DEFAULTS.min_support,
) -> pl.DataFrame:
    """The gate on change: whether the candidate treats a supported group worse than the baseline.

    From :meth:`polars_fair.api.compare.FairPaired.compare` (both models on the same rows), a
    group with at least ``min_support`` rows fails when

    * its impact ratio **drops** by more than ``max_impact_ratio_drop`` (``impact_ratio_baseline
      − impact_ratio > limit``, :func:`polars_fair.core.rules.worse_beyond`) **and** the paired
      interval of the change at ``level`` lies below 0 (the drop is real, not noise); or
    * its **|OFI| rises** by more than ``max_ofi_increase`` (``|ofi| − |ofi_baseline| >
      limit``) and the paired interval of the OFI change excludes 0 on the side of the
      candidate's OFI (labels needed: without them the OFI check is not made).

    Both conditions are needed: a large change the data cannot distinguish from chance passes,
    and so does a real change within the limit. The intervals are those of
    :func:`polars_fair.analyses.compare.compare_from_counts` (a paired delta method).

    Parameters
    ----------
    paired : FairPaired
        The paired count table (:func:`polars_fair.paired_counts`,
        :func:`polars_fair.from_paired_counts`).
    reference : rule, group value, tuple or mapping, default "largest"
        The reference of OFI.
    max_impact_ratio_drop : float, default 0.05
        A finite number in [0, 1].
    max_ofi_increase : float, default 0.05
        A finite number in [0, 2].
    level : float, default 0.95
        The level of the paired intervals.
    min_support : float, default 30
        Rows a group needs to be checked.

    Returns
    -------
    pl.DataFrame
        One row per group and check (``impact_ratio``, then ``ofi`` with labels), by group:
        ``metric`` (String), the key columns, ``group`` (String, as :func:`gate`), ``n``
        (Int64), ``baseline`` and ``value`` (Float64: the baseline's and the candidate's
        figure), ``change``, ``change_low``, ``change_high`` (Float64: candidate − baseline and
        its paired interval), ``limit`` (Float64), ``rule`` (String), ``checked`` (Boolean: n >=
        min_support and both figures defined), ``passed`` (Boolean, null when not checked),
        ``reason`` (String: why a row is not checked, why a large change passes
        (:data:`NOT_REAL`), or the failure (:data:`CHANGE_FAILED`)).

    Raises
    ------
    polars_fair.errors.InvalidArgumentError
        A limit, ``level`` or ``min_support`` out of its range.

    Examples
    --------
    Group b's selection rate falls from 40/100 to 10/100 (a: 50/100 under both), so its
    impact ratio drops from 0.8 to 0.2, and all 30 discordant pairs point the same way.

    >>> import polars as pl
    >>> from polars_fair import from_paired_counts
    >>> from polars_fair.counting.paired import PAIRED_CELLS
    >>> zero = dict.fromkeys(PAIRED_CELLS, 0)
    >>> t = pl.DataFrame([{"g": "a", "n": 100, **zero, "y0_p1_b1": 50, "y0_p0_b0": 50},
    ...                   {"g": "b", "n": 100, **zero, "y0_p1_b1": 10, "y0_p0_b1": 30,
    ...                    "y0_p0_b0": 60}])
    >>> g = change_gate(from_paired_counts(t, labels=False))
    >>> g.select("g", "baseline", "value", "passed").rows()
    [('a', 1.0, 1.0, True), ('b', 0.8, 0.2, False)]
    >>> failure, test = g["reason"][1].split("; ")
    >>> failure
    'g=b: impact_ratio 0.8000 (baseline) -> 0.2000 (candidate), worse by 0.6000 > 0.05'
    >>> test
    'paired 95% interval of the change [-0.8147, -0.3853] excludes 0'
    """
    t_ir = _check_limit("max_impact_ratio_drop", max_impact_ratio_drop, 0.0, 1.0)
    t_ofi = _check_limit("max_ofi_increase", max_ofi_increase, 0.0, 2.0)
    t_support = check("min_support", min_support)
    keys = list(paired.keys)
    out = paired.compare(reference=reference, level=level,
                         min_support=float(t_support)).collect()
    labels = _labels(out, keys)
    pct = 100 * float(level)
    rows: list[dict[str, Any]] = []
    metrics = [("impact_ratio", t_ir, False)] + ([("ofi", t_ofi, True)] if paired.labels else [])
    for i, r in enumerate(out.iter_rows(named=True)):
        for metric, limit, absolute in metrics:
            before, after = r[f"{metric}_baseline"], r[metric]
            low, high = r[f"{metric}_change_low"], r[f"{metric}_change_high"]
            row = {"metric": metric, **{k: r[k] for k in keys}, "group": labels[i],
                   "n": r["n"], "baseline": before, "value": after,
                   "change": r[f"{metric}_change"], "change_low": low, "change_high": high,
                   "limit": float(limit),
                   "rule": (f"|ofi| - |ofi_baseline| <= {float(limit):g} or not real"
                            if absolute else f"drop <= {float(limit):g} or not real")}
            row.update(_change_verdict(r["n"], before, after, low, high, limit, absolute,
                                       t_support, pct, metric, labels[i]))
            rows.append(row)
    schema: dict[str, Any] = {
              "metric": pl.String, **{k: out.schema[k] for k in keys}, "group": pl.String,
              "n": pl.Int64, **dict.fromkeys(("baseline", "value", "change", "change_low",
                                              "change_high", "limit"), pl.Float64),
              "rule": pl.String, "checked": pl.Boolean, "passed": pl.Boolean,
              "reason": pl.String}
    return pl.DataFrame(rows, schema=schema, orient="row")


def _change_verdict(n: int, before: float | None, after: float | None, low: float | None,
                    high: float | None, limit: Fraction, absolute: bool, t_support: Fraction,
                    pct: float, metric: str, group: str) -> dict[str, Any]:
    """``checked``, ``passed`` and ``reason`` of one change check (exact on the limit)."""
    if n < R.min_count(t_support):
        return {"checked": False, "passed": None,
                "reason": LOW_SUPPORT.format(min_support=float(t_support))}
    if before is None or after is None or low is None or high is None:
        return {"checked": False, "passed": None, "reason": ZERO_DENOMINATOR}
    worse = R.worse_beyond(abs(before), abs(after), limit) if absolute else \
        R.worse_beyond(-before, -after, limit)
    real = (low > 0 if after > 0 else high < 0) if absolute else high < 0
    if not worse:
        return {"checked": True, "passed": True, "reason": None}
    if not real:
        return {"checked": True, "passed": True,
                "reason": NOT_REAL.format(level=pct, low=low, high=high)}
    amount = abs(after) - abs(before) if absolute else before - after
    return {"checked": True, "passed": False, "reason": change_message(
        group=group, metric=metric, before=before, after=after, worse=amount,
        limit=float(limit), level=pct, low=low, high=high)}


def change_message(**fields: Any) -> str:
    """The message of a failed change check (:data:`CHANGE_FAILED` filled in).

    Parameters
    ----------
    **fields : Any
        ``group``, ``metric``, ``before``, ``after``, ``worse``, ``limit``, ``level`` (percent),
        ``low``, ``high``.

    Returns
    -------
    str
        One line naming the group, both values, the limit and the paired interval.

    Examples
    --------
    >>> change_message(group="g=b", metric="ofi", before=0.1, after=0.3, worse=0.2, limit=0.05,
    ...                level=95, low=0.1, high=0.3)[:40]
    'g=b: ofi 0.1000 (baseline) -> 0.3000 (ca'
    """
    return CHANGE_FAILED.format(**fields)
