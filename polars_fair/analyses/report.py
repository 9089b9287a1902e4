"""Group rates and the disparity report, computed lazily from a count table.

Every function here takes a count table (key columns, then ``n, tp, fp, fn, tn`` and, when
weighted, ``weight_sum``) as a LazyFrame and returns a LazyFrame; nothing here reads rows.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Unpack

import polars as pl

from polars_fair.analyses.findings import (
    FINDING_MEANINGS,
    FINDINGS,
    constant_outcome,
    read_finding,
)
from polars_fair.core import rules as R
from polars_fair.core.families import ReportOptions, takes
from polars_fair.core.options import check
from polars_fair.core.reference import Reference, known, prefer_supported, support_rows
from polars_fair.core.registry import METRICS, RATE_NAMES, Counts
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS
from polars_fair.counting.membership_counts import MEMBERSHIP_COLUMNS

__all__ = ["FINDINGS", "FINDING_MEANINGS", "count_exprs", "rates_from_counts", "read_finding",
           "report_from_counts", "with_rates"]

def count_exprs(schema_names: Sequence[str]) -> Counts:
    """Count expressions of a count table; ``n`` is ``weight_sum`` when the table is weighted.

    Parameters
    ----------
    schema_names : sequence of str
        The count table's column names.

    Returns
    -------
    polars_fair.core.registry.Counts
        ``pl.col`` of ``n`` (or ``weight_sum``, the population of a weighted table), ``tp``,
        ``fp``, ``fn``, ``tn``.

    Examples
    --------
    >>> count_exprs(["g", "n", "tp", "fp", "fn", "tn", "weight_sum"]).n.meta.output_name()
    'weight_sum'
    """
    return Counts.columns(weighted="weight_sum" in schema_names)


def with_rates(counts: pl.LazyFrame) -> pl.LazyFrame:
    """Append every metric of the registry (:data:`polars_fair.core.registry.METRICS`).

    Each metric is its registry formula over the counts, with its source there, for example
    ``selection_rate`` :math:`(TP + FP)/n` (29 CFR 1607.4(D)), ``tpr`` :math:`TP/(TP + FN)`
    (Hardt et al. 2016), ``marginal_benefit`` :math:`(FP - FN)/n` (Briscoe et al., the OFI
    paper). With a weighted table ``n`` is ``weight_sum``.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table (keys, ``n, tp, fp, fn, tn`` [, ``weight_sum``]).

    Returns
    -------
    pl.LazyFrame
        ``counts`` followed by one Float64 column per metric of
        :data:`polars_fair.core.registry.RATE_NAMES` (rates in [0, 1], ``marginal_benefit`` in
        [-1, 1]), null where the denominator is 0.

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a"], "n": [4], "tp": [1], "fp": [1], "fn": [1], "tn": [1]})
    >>> with_rates(c).select("selection_rate", "tpr", "marginal_benefit").collect().row(0)
    (0.5, 0.5, 0.0)
    """
    return counts.with_columns(_rate_exprs("weight_sum" in counts.collect_schema().names()))


@functools.cache
def _rate_exprs(weighted: bool) -> tuple[pl.Expr, ...]:
    """The registry's metric expressions, built once per kind of table (they hold no data)."""
    c = Counts.columns(weighted=weighted)
    return tuple(m.value(c) for m in METRICS.values())


def rates_from_counts(counts: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Keys, ``n``, then every rate (Float64, null where the denominator is 0).

    Each rate is a registry formula over the confusion counts, with its source in
    :data:`polars_fair.core.registry.METRICS`: ``selection_rate`` :math:`(TP + FP)/n` (the selection
    rate of 29 CFR 1607.4(D) and NYC LL 144), ``base_rate`` :math:`(TP + FN)/n`, ``tpr``
    :math:`TP/(TP + FN)`, ``fpr`` :math:`FP/(FP + TN)` (equalized odds, Hardt et al. 2016),
    ``ppv`` :math:`TP/(TP + FP)` (predictive parity, Chouldechova 2017), ``accuracy``
    :math:`(TP + TN)/n`, ``marginal_benefit`` :math:`B = (FP - FN)/n` (Briscoe et al., the OFI
    paper), and the complements (``tnr``, ``fnr``, ``npv``, ``fdr``, ``for``,
    ``balanced_accuracy``). With sample weights the counts are weighted sums and ``n`` in the
    formulas is ``weight_sum``.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table (see :func:`polars_fair.counting.tables.count_table`).
    keys : sequence of str
        Its key columns.

    Returns
    -------
    pl.LazyFrame
        One row per group, in the count table's order (by the keys): keys; ``n`` (Int64 rows;
        the row count also when weighted); then the rate columns of :func:`with_rates` (Float64,
        null where the denominator is 0).

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a"], "n": [4], "tp": [1], "fp": [1], "fn": [1], "tn": [1]})
    >>> rates_from_counts(c, ["g"]).collect()["tpr"].to_list()
    [0.5]
    """
    return with_rates(counts).select(*keys, "n", *RATE_NAMES)


def _validate_options(min_support: float, ofi_threshold: float, four_fifths: float) -> None:
    # finite numbers in range, NaN refused, numpy scalars accepted (rules.option)
    check("min_support", min_support)
    check("ofi_threshold", ofi_threshold)
    check("four_fifths", four_fifths)


@takes(ReportOptions)
def report_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    **options: Unpack[ReportOptions],
) -> pl.LazyFrame:
    """The per-group fairness report: counts, rates, disparity against a reference, flags.

    * ``disparate_impact`` = selection_rate / reference selection_rate (DI, Definition 2.1
      of Briscoe et al.; the "disparate impact ratio"); null when the reference rate is 0.
      ``impact_analysis`` and ``stratified`` call this ratio ``impact_ratio``.
    * ``impact_ratio`` = selection_rate / the highest selection rate (not the reference's)
      among the groups with at
      least ``min_support`` rows (among all groups when none has that many): the EEOC
      four-fifths rule, 29 CFR 1607.4(D), and NYC Local Law 144's impact ratio (6 RCNY
      5-300). ``adverse_impact`` = impact_ratio < ``four_fifths``. A rule-chosen reference is
      likewise a supported group whenever one exists
      (:func:`polars_fair.core.reference.prefer_supported`): a handful of rows never sets the
      bar by default.
    * ``ofi`` = marginal_benefit − the reference's marginal_benefit: the Objective Fairness
      Index, OFI = B_i − B_j with B = (FP−FN)/n (Briscoe et al., "Facets of Disparate
      Impact"), in [−2, 2]. ``ofi_flag`` = |ofi| > ``ofi_threshold`` (0.3 in the paper).
    * ``low_support`` = n < ``min_support``: too few rows to trust the group's figures (with
      sample weights, n counts the rows of positive weight, ``n_positive_weight``; on
      estimated membership, the support size: the expected size in rows bounded by
      ``n_effective``).
      ``reference_low_support`` (the same on every row): the reference group or the group
      with the highest selection rate, the benchmarks of DI, OFI and the impact ratio, has low
      support.
    * ``finding`` reads OFI with DI (Briscoe et al. §2.3): ``"algorithmic"`` when |OFI|
      exceeds the threshold (the classifier's own errors treat the group unjustly, measured
      against its labels); ``"systemic"`` when OFI is within the threshold but the impact
      ratio or disparate impact fails the four-fifths rule (DI < 4/5 or > 5/4): the
      disparity is in the labels or the population, not in the classifier's errors;
      ``"undefined impact ratio"`` when neither holds and the impact ratio is 0/0 (no group
      is selected): undefined is not a pass, and the gate fails it too; ``"none"``
      otherwise; ``"insufficient support"`` for low-support groups, an undefined
      OFI, or a low-support benchmark (``reference_low_support``). This reading
      assumes the labels are correct: where the labels themselves carry bias (the paper's
      COMPAS discussion: recorded re-arrest is not re-offence), "systemic" can hide a
      biased ground truth. It also needs labels and predictions that each take both values:
      where ``y_true`` (or ``y_pred``) holds one value on every row, a group that would be
      "algorithmic" or "systemic" is ``"constant labels"`` (or ``"constant predictions"``)
      instead, since OFI then only restates the selection rates (or the base rates)
      (:func:`polars_fair.analyses.findings.constant_outcome`).

    Ratios, OFI and every verdict are exact on the counts (:mod:`polars_fair.core.rules`): the
    thresholds are read as the decimals written (``0.8`` is 4/5), so an impact ratio of
    exactly 4/5 is not adverse impact; the columns show the exact values correctly rounded.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table (keys, ``n, tp, fp, fn, tn`` [, ``weight_sum`` [,
        ``n_positive_weight``]]).
    keys : sequence of str
        Its key columns (``[]``: the whole population, one row).
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        The reference group (:mod:`polars_fair.core.reference`): the eligible group with most rows
        (ties: first in key order), the eligible group with the highest selection rate, the
        whole population (no row is the reference), or an explicit group, a value for one
        attribute or ``{attribute: value}`` for several.
    min_support : float, default 30
        Groups with fewer rows are flagged ``low_support`` (for a count table of estimated
        membership, a support size, the expected size in rows bounded by ``n_effective``,
        below it; fewer rows of positive weight, ``n_positive_weight``, for a table of
        sample weights that has it, as every table counted from rows does:
        :func:`polars_fair.core.reference.support_rows`).
    ofi_threshold : float, default 0.3
        |OFI| above this is flagged.
    four_fifths : float, default 0.8
        The impact-ratio threshold of the four-fifths rule.
    exclude_low_support : bool, default False
        Low-support groups are never the reference nor the highest selection rate (the
        denominator of ``impact_ratio``), even when no group is supported (then there is no
        benchmark and the comparisons are null), as NYC LL 144's rules let small categories be
        excluded. By default they are passed over only while a supported group exists. Every
        group keeps its row.

    Returns
    -------
    pl.LazyFrame
        One row per group sorted by the keys: keys; ``n, tp, fp, fn, tn`` (Int64; with
        weights the cells are Float64 followed by ``weight_sum`` and, when the table has it,
        ``n_positive_weight`` (Int64 rows of positive weight), and for estimated membership
        by ``n_effective`` and ``attenuation``, Float64:
        :mod:`polars_fair.counting.membership_counts`); every rate of the registry
        (Float64); ``is_reference`` (Boolean); ``disparate_impact``, ``impact_ratio``
        (Float64, ratios ≥ 0); ``adverse_impact`` (Boolean); ``ofi`` (Float64 in [−2, 2]);
        ``ofi_flag``, ``low_support``, ``reference_low_support`` (Boolean); ``finding``
        (String, one of :data:`FINDINGS`).

    Raises
    ------
    InvalidArgumentError
        An option outside its range.
    UnknownGroupError
        An explicit ``reference`` that is not a group; the message lists the groups.

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [4, 4], "tp": [2, 1], "fp": [0, 0],
    ...                   "fn": [0, 1], "tn": [2, 2]})
    >>> report_from_counts(c, ["g"], min_support=1).collect()["impact_ratio"].to_list()
    [1.0, 0.5]
    """
    min_support, ofi_threshold = options["min_support"], options["ofi_threshold"]
    four_fifths = options["four_fifths"]
    _validate_options(min_support, ofi_threshold, four_fifths)
    ref = Reference.parse(options["reference"]).for_set(keys)
    names = counts.collect_schema().names()
    c = count_exprs(names)
    base = with_rates(counts)
    sr = pl.col("selection_rate")
    is_known = known(keys)
    supported = support_rows(names) >= min_support
    exclude_low_support = R.flag(options["exclude_low_support"], "exclude_low_support")
    eligible = is_known & (c.n > 0) & (supported if exclude_low_support else pl.lit(True))
    base, flag = ref.flag(base, keys, eligible=eligible, score=sr, min_support=min_support)
    # "overall": the whole population is the reference, no row is (_Rules.decide sums it)
    is_ref = pl.repeat(False, pl.len()) if flag is None else flag
    # the highest selection rate: among the supported groups, as the reference (one rule)
    in_max = (is_known & supported if exclude_low_support
              else prefer_supported(is_known & (c.n > 0), min_support, support_rows(names)))
    weight = [c for c in ("weight_sum", POSITIVE_WEIGHT_ROWS, *MEMBERSHIP_COLUMNS)
              if c in names]
    framed = base.with_columns(
        is_ref.alias("is_reference"), in_max.alias("__pf_in_max"),
        pl.lit(None, dtype=pl.Float64).alias("disparate_impact"),
        pl.lit(None, dtype=pl.Float64).alias("impact_ratio"),
        pl.lit(None, dtype=pl.Boolean).alias("adverse_impact"),
        pl.lit(None, dtype=pl.Float64).alias("ofi"),
        pl.lit(None, dtype=pl.Boolean).alias("ofi_flag"),
        pl.lit(None, dtype=pl.Boolean).alias("low_support"),
        pl.lit(None, dtype=pl.Boolean).alias("reference_low_support"),
        pl.lit(None, dtype=pl.String).alias("finding"),
    )
    rules = _Rules(min_support, ofi_threshold, four_fifths, overall=flag is None)
    decided = framed.map_batches(rules.decide, schema=framed.collect_schema())
    return decided.select(
        *keys, "n", "tp", "fp", "fn", "tn", *weight, *RATE_NAMES,
        "is_reference", "disparate_impact", "impact_ratio", "adverse_impact",
        "ofi", "ofi_flag", "low_support", "reference_low_support", "finding",
    )


class _Rules:
    """The report's decisions, exact on the counts (:mod:`polars_fair.core.rules`).

    Ratios and OFI are computed as exact fractions of the counts and shown correctly rounded;
    every verdict compares the exact value with the threshold as written.
    """

    def __init__(self, min_support: float, ofi_threshold: float, four_fifths: float,
                 overall: bool) -> None:
        self.min_support = R.exact(min_support, "min_support")
        self.ofi = R.exact(ofi_threshold, "ofi_threshold")
        self.t = R.exact(four_fifths, "four_fifths")
        self.overall = overall

    def decide(self, df: pl.DataFrame) -> pl.DataFrame:
        """Fill the decision columns of the small report table.

        Integer counts are decided with integers only: a few groups by Python integers
        (:func:`_decide_ints`), many by whole-column Int128 arithmetic (:func:`_decide_counts`);
        both give the exact values of the per-row fractions of :meth:`decide_rows`, which
        decides weighted counts.
        """
        if "weight_sum" in df.columns or not _whole_counts(df):
            return constant_outcome(self.decide_rows(df))
        out = _decide_counts(df, self) if df.height > _FEW_GROUPS else None
        return constant_outcome(_decide_ints(df, self) if out is None else out)

    def decide_rows(self, df: pl.DataFrame) -> pl.DataFrame:
        """Fill the decision columns row by row with exact fractions (any count table)."""
        weighted = "weight_sum" in df.columns
        size = df["weight_sum"] if weighted else df["n"]
        rows = list(zip(df["tp"], df["fp"], df["fn"], df["tn"], size,
                        df.select(support_rows(df.columns)).to_series(),
                        df["is_reference"], df["__pf_in_max"], strict=True))
        sr = [R.fraction(tp + fp, m) for tp, fp, _, _, m, *_ in rows]
        mb = [R.fraction(fp - fn, m) for _, fp, fn, _, m, *_ in rows]
        low = [R.below(n, self.min_support) for *_, n, _, _ in rows]
        if self.overall:
            total = sum(size) if len(rows) else 0
            ref_sr = R.fraction(sum(tp + fp for tp, fp, *_ in rows), total)
            ref_mb = R.fraction(sum(fp - fn for _, fp, fn, *_ in rows), total)
            ref_low = False
        else:
            ref = [i for i, r in enumerate(rows) if r[6]]
            ref_sr = sr[ref[0]] if ref else None
            ref_mb = mb[ref[0]] if ref else None
            ref_low = bool(low[ref[0]]) if ref else False
        candidates = [(s, i) for i, s in enumerate(sr) if rows[i][7] and s is not None]
        top_sr, top_i = max(candidates, key=lambda c: c[0]) if candidates else (None, None)
        top_low = bool(low[top_i]) if top_i is not None else False

        def ratio(a: Any, b: Any) -> Any:
            return None if a is None or b is None or b == 0 else a / b

        ir = [ratio(s, top_sr) for s in sr]
        di = [ratio(s, ref_sr) for s in sr]
        ofi: list[Fraction | float | None] = [
            None if b is None or ref_mb is None else b - ref_mb for b in mb
        ]
        adverse = [R.below(v, self.t) for v in ir]
        flag = [None if v is None else R.above(v if v >= 0 else -v, self.ofi) for v in ofi]
        # a reference that selects nobody makes DI infinite for a group that selects someone:
        # above 1/four_fifths (shown null, as a rate divided by 0); 0/0 is no evidence
        di_fails = [bool(R.below(d, self.t)) or bool(R.above(d, 1 / self.t))
                    or (d is None and ref_sr == 0 and s is not None and s > 0)
                    for d, s in zip(di, sr, strict=True)]
        benchmark_low = [ref_low or top_low for _ in rows]

        finding = [read_finding(lo, o, f, a, d, v is None, ref_low, top_low)
                   for lo, o, f, a, d, v in zip(low, ofi, flag, adverse, di_fails, ir,
                                                strict=True)]

        def floats(values: list[Any]) -> pl.Series:
            return pl.Series([None if v is None else float(v) for v in values],
                             dtype=pl.Float64)

        return df.with_columns(
            disparate_impact=floats(di), impact_ratio=floats(ir),
            adverse_impact=pl.Series(adverse, dtype=pl.Boolean), ofi=floats(ofi),
            ofi_flag=pl.Series(flag, dtype=pl.Boolean),
            low_support=pl.Series(low, dtype=pl.Boolean),
            reference_low_support=pl.Series(benchmark_low, dtype=pl.Boolean),
            finding=pl.Series(finding, dtype=pl.String),
        )


# ------------------------------------------------------------- integer counts, whole columns
_I128 = pl.Int128
#: Products of counts are formed in Int128; beyond this many bits the row path decides.
_SAFE_BITS = 125
#: A float64 holds every integer up to 2**53 exactly, so num / den is then correctly rounded.
_EXACT_FLOAT = 2**53


def _int(value: Any) -> int:
    return 0 if value is None else int(value)


#: Up to this many groups the decisions are made with Python integers, above it by columns.
_FEW_GROUPS = 256
_CELLS = ("tp", "fp", "fn", "tn", "n")


def _whole_counts(df: pl.DataFrame) -> bool:
    """Integer cells, none null or negative: the integer paths apply."""
    return all(df.schema[c].is_integer() for c in _CELLS) and not any(
        df[c].null_count() for c in _CELLS) and (df.height == 0 or min(
            _int(df[c].min()) for c in _CELLS) >= 0)


def _decide_ints(df: pl.DataFrame, rules: _Rules) -> pl.DataFrame:
    """:meth:`_Rules.decide_rows` for integer counts with Python integers (no Fraction).

    Comparisons cross-multiply with the threshold ``p/q``; a shown ratio is ``a / b`` of two
    Python integers, which is correctly rounded, as ``float(Fraction(a, b))`` is.
    """
    tp, fp, fn, n = (df[c].to_list() for c in ("tp", "fp", "fn", "n"))
    is_ref = df["is_reference"].to_list()
    in_max = df["__pf_in_max"].to_list()
    rows = range(df.height)
    s = [tp[i] + fp[i] for i in rows]
    b = [fp[i] - fn[i] for i in rows]
    pt, qt = rules.t.numerator, rules.t.denominator
    po, qo = rules.ofi.numerator, rules.ofi.denominator
    pm, qm = rules.min_support.numerator, rules.min_support.denominator
    low = [x * qm < pm for x in n]
    ref: tuple[int, int, int] | None
    if rules.overall:
        total = sum(n)
        ref = (sum(s), sum(b), total) if total > 0 else None
        ref_low = False
    else:
        r = next((i for i in rows if is_ref[i]), None)
        ref = (s[r], b[r], n[r]) if r is not None and n[r] > 0 else None
        ref_low = bool(low[r]) if r is not None else False
    top: int | None = None
    for i in rows:  # the first highest selection rate, compared exactly
        if in_max[i] and n[i] > 0 and (top is None or s[i] * n[top] > s[top] * n[i]):
            top = i
    top_low = bool(low[top]) if top is not None else False
    none: list[Any] = [None] * df.height
    ir, adverse, di, ofi, flag = list(none), list(none), list(none), list(none), list(none)
    fails = [False] * df.height
    for i in rows:
        if n[i] <= 0:
            continue
        if top is not None and s[top] > 0:
            num, den = s[i] * n[top], n[i] * s[top]
            ir[i], adverse[i] = num / den, num * qt < pt * den
        if ref is not None and ref[0] > 0:
            num, den = s[i] * ref[2], n[i] * ref[0]
            di[i] = num / den
            fails[i] = num * qt < pt * den or num * pt > qt * den
        elif ref is not None and s[i] > 0:  # the reference selects nobody: DI is infinite
            fails[i] = True
        if ref is not None:
            num, den = b[i] * ref[2] - ref[1] * n[i], n[i] * ref[2]
            ofi[i], flag[i] = num / den, abs(num) * qo > po * den
    finding = [read_finding(lo, o, f, a, d, v is None, ref_low, top_low)
               for lo, o, f, a, d, v in zip(low, ofi, flag, adverse, fails, ir, strict=True)]
    new = {
        "disparate_impact": pl.Series("disparate_impact", di, dtype=pl.Float64),
        "impact_ratio": pl.Series("impact_ratio", ir, dtype=pl.Float64),
        "adverse_impact": pl.Series("adverse_impact", adverse, dtype=pl.Boolean),
        "ofi": pl.Series("ofi", ofi, dtype=pl.Float64),
        "ofi_flag": pl.Series("ofi_flag", flag, dtype=pl.Boolean),
        "low_support": pl.Series("low_support", low, dtype=pl.Boolean),
        "reference_low_support": pl.Series("reference_low_support",
                                           [ref_low or top_low] * df.height, dtype=pl.Boolean),
        "finding": pl.Series("finding", finding, dtype=pl.String),
    }
    # built column by column: no query for a table of a few rows
    return pl.DataFrame([new.get(c, df[c]) for c in df.columns])


def _decide_counts(df: pl.DataFrame, rules: _Rules) -> pl.DataFrame | None:
    """:meth:`_Rules.decide_rows` for integer counts, by whole-column exact integer arithmetic.

    Every value is a fraction of counts; each comparison with a threshold ``p/q`` is made by
    cross-multiplying in Int128, so it is exact, and each shown ratio is the quotient of two
    integers below 2**53, so the float division is correctly rounded: ``float(Fraction(...))``.
    One query over the table. ``None`` (Python integers decide, :func:`_decide_ints`) for an
    empty table or a group of more than 2**26 rows (a product could pass 2**53).
    """
    if df.height == 0 or not _whole_counts(df):
        return None
    largest = max(_int(df["n"].max()), _int((df["tp"] + df["fp"]).max()),
                  _int((df["fp"] + df["fn"]).max()))
    # every numerator and denominator is at most 2 * largest * scale (the benchmark's counts)
    scale = max(largest, _int(df["n"].sum()) + _int((df["fp"] + df["fn"]).sum())) \
        if rules.overall else largest
    limits = [rules.t, rules.ofi, rules.min_support]
    widest = max(max(abs(x.numerator), x.denominator).bit_length() for x in limits)
    if 2 * largest * scale > _EXACT_FLOAT or 54 + widest + 2 > _SAFE_BITS:
        return None
    s_col = (df["tp"] + df["fp"]).cast(pl.Int64)
    n_col = df["n"].cast(pl.Int64)
    b_col = (df["fp"] - df["fn"]).cast(pl.Int64)
    ref: tuple[int, int, int] | None
    ms_p, ms_q = rules.min_support.numerator, rules.min_support.denominator

    def is_low(x: int) -> bool:
        return x * ms_q < ms_p

    if rules.overall:
        total = _int(n_col.sum())
        ref = (_int(s_col.sum()), _int(b_col.sum()), total) if total > 0 else None
        ref_low = False
    else:
        refs = df["is_reference"].fill_null(False).arg_true()
        r = int(refs[0]) if len(refs) else None
        ref = (int(s_col[r]), int(b_col[r]), int(n_col[r])) \
            if r is not None and int(n_col[r]) > 0 else None
        ref_low = is_low(int(n_col[r])) if r is not None else False
    top = _first_max(s_col, n_col, df["__pf_in_max"].fill_null(False) & (n_col > 0))
    top_low = is_low(int(n_col[top])) if top is not None else False

    def lit(v: int) -> pl.Expr:
        return pl.lit(v, dtype=_I128)

    n, s = pl.col("n").cast(_I128), (pl.col("tp") + pl.col("fp")).cast(_I128)
    b = (pl.col("fp") - pl.col("fn")).cast(_I128)
    defined = n > lit(0)
    none_f, none_b = pl.lit(None, dtype=pl.Float64), pl.lit(None, dtype=pl.Boolean)
    ir: pl.Expr
    adverse: pl.Expr
    ofi: pl.Expr
    flag: pl.Expr
    pt, qt = rules.t.numerator, rules.t.denominator
    po, qo = rules.ofi.numerator, rules.ofi.denominator

    def ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:  # exact integers below 2**53
        return pl.when(defined).then(num.cast(pl.Float64) / den.cast(pl.Float64))

    if top is not None and int(s_col[top]) > 0:
        ir_num, ir_den = s * lit(int(n_col[top])), n * lit(int(s_col[top]))
        ir = ratio(ir_num, ir_den)
        adverse = pl.when(defined).then(ir_num * lit(qt) < ir_den * lit(pt))
    else:
        ir, adverse = none_f, none_b
    if ref is not None and ref[0] > 0:  # disparate impact against the reference
        di_num, di_den = s * lit(ref[2]), n * lit(ref[0])
        di = ratio(di_num, di_den)
        fails = defined & ((di_num * lit(qt) < di_den * lit(pt))
                           | (di_num * lit(pt) > di_den * lit(qt)))
    elif ref is not None:  # the reference selects nobody: DI is infinite for a selecting group
        di, fails = none_f, defined & (s > lit(0))
    else:
        di, fails = none_f, pl.lit(False)
    if ref is not None:  # ofi = b / n - b_ref / n_ref
        of_num = b * lit(ref[2]) - n * lit(ref[1])
        of_den = n * lit(ref[2])
        ofi = ratio(of_num, of_den)
        flag = pl.when(defined).then(of_num.abs() * lit(qo) > of_den * lit(po))
    else:
        ofi, flag = none_f, none_b
    low = n * lit(ms_q) < lit(ms_p)
    insufficient = pl.lit("insufficient support")
    lo, o, f = pl.col("low_support"), pl.col("ofi"), pl.col("ofi_flag")
    a, d = pl.col("adverse_impact").fill_null(False), pl.col("__pf_fails")
    finding = (  # read_finding, as an expression
        pl.when(lo | o.is_null()).then(insufficient)
        .when(f).then(insufficient if ref_low else pl.lit("algorithmic"))
        .when((a & (not top_low)) | (d & (not ref_low))).then(pl.lit("systemic"))
        .when(a | d).then(insufficient)
        .when(pl.col("impact_ratio").is_null()).then(pl.lit("undefined impact ratio"))
        .otherwise(insufficient if ref_low else pl.lit("none"))
    )
    return df.lazy().with_columns(
        ir.alias("impact_ratio"), di.alias("disparate_impact"), adverse.alias("adverse_impact"),
        ofi.alias("ofi"), flag.alias("ofi_flag"), low.alias("low_support"),
        pl.lit(ref_low or top_low).alias("reference_low_support"),
        fails.fill_null(False).alias("__pf_fails"),
    ).with_columns(finding.alias("finding")).drop("__pf_fails").collect(engine="in-memory")


def _first_max(s: pl.Series, n: pl.Series, eligible: pl.Series) -> int | None:
    """The first row with the highest ``s / n`` among the eligible rows, compared exactly."""
    if not eligible.any():
        return None
    approx = (s.cast(pl.Float64) / n.cast(pl.Float64)).set(~eligible, None)
    high: Any = approx.max()  # a float: some row is eligible
    # correctly rounded quotients are monotone: only near the float maximum can the exact one be
    near = (approx >= high * (1 - 1e-9)).fill_null(False).arg_true().to_list()
    best = near[0]
    for i in near[1:]:
        if int(s[i]) * int(n[best]) > int(s[best]) * int(n[i]):
            best = i
    return int(best)
