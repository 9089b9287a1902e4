"""The adverse-impact table practitioners run: ratio, shortfall, test and practical significance.

One row per group against a reference group, from a count table (no rows are read): the EEOC's
four-fifths rule, the shortfall, the two-proportion statistic in standard deviations, Fisher's
exact test, the one-person flip and a practical-significance verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, Unpack

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np
from polars_fair.analyses.report import count_exprs
from polars_fair.analyses.uncertainty import metrics_table
from polars_fair.core import rules as R
from polars_fair.core import stats
from polars_fair.core.families import ImpactOptions, takes
from polars_fair.core.numbers import real
from polars_fair.core.options import check
from polars_fair.core.reference import Reference, known, support_rows
from polars_fair.counting.membership_counts import support_size

__all__ = [
    "IMPACT_COLUMNS", "PASSED_OVER_NOTE", "PRACTICAL_RULES", "RATIO_TO_REFERENCE", "exact",
    "impact_from_counts", "passed_over", "rate", "shortfall",
]

#: The practical-significance rules: the one-person flip (default) and SolasAI's difference rule.
PRACTICAL_RULES = ("flip", "difference")
BAD_PRACTICAL = E.BAD_PRACTICAL

#: What a surface writes under the table when :func:`passed_over` names groups (the HTML audit,
#: the command line): the groups, then ``min_support``.
#: What ``impact_ratio`` divides by in ``impact_analysis`` and ``stratified`` (the reference
#: group's selection rate), said under every table that shows it: ``report`` and ``bias_audit``
#: divide their ``impact_ratio`` by the highest selection rate instead, and ``report`` calls
#: this ratio ``disparate_impact``. ``{reference}`` names the reference group and its rate.
RATIO_TO_REFERENCE = (
    "impact_ratio = selection_rate / the reference group's selection_rate{reference}, "
    "report's disparate_impact; report's and bias-audit's impact_ratio divide by the highest "
    "selection rate instead"
)
PASSED_OVER_NOTE = (
    "not the reference despite a higher selection rate: {groups}, with fewer than "
    "{min_support:g} rows (min_support={min_support:g}); pass min_support=0 to allow them"
)

#: The columns :func:`impact_from_counts` adds after the keys.
IMPACT_COLUMNS = (
    "selected", "applicants", "reference_selected", "reference_applicants", "selection_rate",
    "reference_rate", "impact_ratio", "four_fifths_pass", "shortfall", "z", "p_value",
    "flip_impact_ratio", "practically_significant", "low_support", "is_reference",
)


def exact(value: Any) -> Fraction:
    """A count, weighted sum or share as an exact rational.

    Integers and Fractions as they are; a float as the decimal it stands for, read to 15
    significant digits (``DBL_DIG``: every decimal of up to 15 significant digits survives the
    trip through a double, so ``0.07`` is 7/100, the share a user wrote). A weighted sum is read
    the same way, so the residue that summing decimal weights in binary leaves past the 15th
    digit (``0.1 + 0.2`` is ``0.30000000000000004``) is dropped and it is the sum of the weights
    as written (3/10): rates that are equal as written give differences of exactly 0, whether
    the sums were taken over a whole group or stratum by stratum. A float that is a whole number
    below :math:`2^{53}` is that integer.

    Parameters
    ----------
    value : int, float, Fraction or Decimal

    Returns
    -------
    Fraction

    Examples
    --------
    >>> exact(0.07), exact(3), exact(Fraction(1, 3))
    (Fraction(7, 100), Fraction(3, 1), Fraction(1, 3))
    >>> exact(np.float32(0.07))
    Fraction(7, 100)
    >>> exact(0.1 + 0.2), exact(2.0**52 + 1.0)
    (Fraction(3, 10), Fraction(4503599627370497, 1))
    """
    number = real(value)  # np.float32(0.07) as 0.07, not its binary 0.0700000002980232
    if isinstance(number, (int, Fraction, Decimal)):
        return Fraction(number)
    x = float(value if number is None else number)
    if x.is_integer() and abs(x) < 2.0**53:
        return Fraction(int(x))
    return Fraction(format(x, ".15g"))


def rate(count: Any, size: Any) -> Fraction | None:
    """``count / size`` in rationals (:func:`exact`), or None when ``size`` is not positive.

    The one computation of a rate (and, of two rates, a ratio) of the adverse-impact analyses:
    :func:`impact_from_counts`, :func:`polars_fair.analyses.strata.stratified_from_counts`, so
    a weighted rate of 0.3 over 0.6 is exactly 1/2 on every way in, and equal rates give a gap
    of exactly 0.

    Parameters
    ----------
    count, size : int, float or Fraction
        Counts, or weighted sums.

    Returns
    -------
    Fraction or None

    Examples
    --------
    >>> rate(0.1 + 0.2, 0.6000000000000001), rate(3, 0), rate(2, 4)
    (Fraction(1, 2), None, Fraction(1, 2))
    """
    if size is None or count is None or not size > 0:
        return None
    return exact(count) / exact(size)


def shortfall(count: Any, size: Any, ref_count: Any, ref_size: Any) -> float | None:
    r"""How many more of ``size`` must be counted to reach the rate ``ref_count / ref_size``.

    :math:`n_g s_r/n_r - s_g = (n_g s_r - s_g n_r)/n_r`, computed in rationals (:func:`exact`)
    and then rounded once to a float, so a group exactly at the reference's rate has a
    shortfall of exactly 0 (a float product such as :math:`0.07 \times 100 - 7` is not). The
    shortfall of :func:`impact_from_counts` (selections to the reference's rate) and of
    :func:`polars_fair.analyses.availability.availability_from_counts` (rows to the benchmark
    share, ``ref_size`` 1).

    Parameters
    ----------
    count, size : int or float
        The group's count (selections) and size (applicants).
    ref_count, ref_size : int, float or Fraction
        The reference's.

    Returns
    -------
    float or None
        Negative when the group is above the reference's rate; None when ``ref_size`` is not
        positive (no reference rate).

    Examples
    --------
    >>> shortfall(7, 100, 0.07, 1), shortfall(12, 40, 48, 80)
    (0.0, 12.0)
    """
    if not ref_size > 0:
        return None
    num = exact(size) * exact(ref_count) - exact(count) * exact(ref_size)
    return float(num / exact(ref_size))


@borrow(metrics_table, params=("counts", "keys"))
@takes(ImpactOptions)
def impact_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    **options: Unpack[ImpactOptions],
) -> pl.LazyFrame:
    r"""The adverse-impact analysis of each group against a reference group.

    With :math:`s` selections (``tp + fp``) of :math:`n` applicants per group and
    :math:`s_r, n_r` for the reference:

    * ``impact_ratio`` :math:`= (s/n)/(s_r/n_r)`, the adverse impact ratio (AIR) of the
      Uniform Guidelines, 29 CFR 1607.4(D), and of SolasAI. Against the group with the highest
      rate (the Guidelines' comparison) pass ``reference="max_selection_rate"``. Divided by
      the *reference's* rate (``report``'s ``disparate_impact``; :data:`RATIO_TO_REFERENCE`).
      ``four_fifths_pass`` = ``impact_ratio >= four_fifths``, decided exactly on the counts as
      every rule of :mod:`polars_fair.core.rules` (a ratio of exactly 4/5 passes).
    * ``shortfall`` :math:`= n \cdot s_r/n_r - s`: how many more selections the group needs to
      reach the reference's rate (negative: above it). SolasAI reports the same figure.
      Computed in rationals (:func:`shortfall`), so a group exactly at the reference's rate
      has a shortfall of exactly 0, and then also ``z`` is exactly 0.
    * ``z`` :math:`= (s/n - s_r/n_r)/\sqrt{\bar p(1 - \bar p)(1/n + 1/n_r)}`, the pooled
      two-proportion statistic (:func:`polars_fair.core.stats.pooled_z`), signed: the number of
      standard deviations of the EEOC and OFCCP's "two or three standard deviations".
    * ``p_value``: Fisher's exact test, two-sided (:func:`scipy.stats.fisher_exact`), on
      :math:`[[s, n - s], [s_r, n_r - s_r]]`. SolasAI uses Fisher only when a cell is at most
      100 and Yates' chi-square otherwise; Fisher is exact at every size, so it is used up to
      :math:`10^9` applicants in the two groups
      (:data:`polars_fair.core.stats.FISHER_MAX_TOTAL`). Above that, where scipy's computation
      overflows, ``p_value`` is the pooled z-test's, :math:`2(1 - \Phi(|z|))` (within 0.1 %
      relative of Fisher's at :math:`10^{10}` for :math:`|z| \le 20`).
    * ``flip_impact_ratio``: the impact ratio after one of the group's applicants who was not
      selected is selected, :math:`((s + 1)/n)/(s_r/n_r)` (capped at :math:`s = n`). The
      "one-person rule" of adverse-impact practice (OFCCP; Biddle's toolkit): a failure that
      one person reverses is a failure of the sample size, not of the process.
    * ``practically_significant``, by ``practical``:

      - ``"flip"`` (default): fails the four-fifths rule, still fails after the flip, and
        ``p_value <= 1 - level``. The default because it needs no threshold of its own and is
        the reading the issue of this analysis asks for: a small-sample failure that flips with
        one person is not practically significant.
      - ``"difference"``: SolasAI's rule, the AIR below ``four_fifths``, ``p_value <= 1 -
        level`` and the rate difference :math:`s_r/n_r - s/n` above ``min_difference`` (0 in
        SolasAI's documented example).

    ``low_support`` = :math:`n <` ``min_support`` rows (of positive weight, with sample
    weights), as in the report; the tests count the same rows. A rule chooses a
    reference with at least ``min_support`` rows while one exists (as every analysis): a group
    ``"max_selection_rate"`` passes over has ``low_support`` and a ``selection_rate`` above
    ``reference_rate`` (:func:`passed_over`; the HTML audit and the CLI say it in words).

    ``reference="overall"`` compares with the whole population (SolasAI's ``to_combined_mean``):
    its rate sets the ratio and the shortfall, the flip adds the person to the population too,
    and ``z`` and ``p_value`` compare the group with the rest of the population, so the two
    samples are independent.

    Weighted counts: ``selected``, ``applicants`` and their reference twins are weighted sums
    (Float64), so the rates, ``impact_ratio`` and ``shortfall`` are in weight units (people, when
    the weights are population weights). ``z`` and the test count rows: each side's weighted
    rate times its row count (as :func:`polars_fair.analyses.uncertainty.disparity_table`), and
    since those counts are not whole, ``p_value`` is the pooled z-test's (Fisher's test needs
    whole counts); with unit weights (every weight sum equal to its row count, as a one-hot
    membership gives) they are the counts themselves and the test is Fisher's, as unweighted.
    The flip moves one row of the group's mean weight. On estimated membership the rows are
    ``n_effective`` (Kish), taken as independent though they share rows: conservative
    (:mod:`polars_fair.analyses.membership_covariance`); ``low_support`` reads the support size
    (:func:`polars_fair.core.reference.support_rows`: the expected size in rows bounded by
    ``n_effective``).
    A group (or a reference,
    or for ``"overall"`` a rest of the population) whose weights sum to 0 has no applicants:
    its ``z`` and ``p_value`` are null, as every figure with a zero denominator.

    Parameters
    ----------
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        The reference group (:mod:`polars_fair.core.reference`).
    four_fifths : float, default 0.8
        The impact-ratio threshold of the four-fifths rule, in (0, 1].
    level : float, default 0.95
        The test is significant at ``p_value <= 1 - level`` (computed exactly).
    practical : {"flip", "difference"}, default "flip"
        The practical-significance rule (see above).
    min_difference : float, default 0.0
        The rate difference SolasAI's rule (``practical="difference"``) must exceed, in [0, 1].
    min_support : float, default 30
        Groups with fewer rows are flagged ``low_support`` and a rule chooses the reference
        among the others while there are any (see above); >= 0.

    Returns
    -------
    pl.LazyFrame
        One row per group sorted by the keys: keys; ``selected``, ``applicants``,
        ``reference_selected``, ``reference_applicants`` (Int64; Float64 weighted);
        ``selection_rate``, ``reference_rate`` (Float64 in [0, 1]), ``impact_ratio`` (Float64,
        null when the reference rate is 0); ``four_fifths_pass`` (Boolean); ``shortfall``,
        ``z``, ``p_value``, ``flip_impact_ratio`` (Float64); ``practically_significant``,
        ``low_support``, ``is_reference`` (Boolean). The reference row has null ``z``,
        ``p_value``, ``flip_impact_ratio`` and ``practically_significant`` (it is not a second
        sample); a group without applicants has null rates and verdicts.

    Raises
    ------
    InvalidArgumentError
        An option out of its range, or an unknown ``practical``.
    UnknownGroupError
        An explicit ``reference`` that is not a group.

    Examples
    --------
    The EEOC's example: 48 of 80 selected against 12 of 40, rates 60 % and 30 %:

    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [80, 40], "tp": [48, 12], "fp": [0, 0],
    ...                   "fn": [32, 28], "tn": [0, 0]})
    >>> t = impact_from_counts(c, ["g"]).collect()
    >>> t.select("g", "impact_ratio", "four_fifths_pass", "shortfall").rows()
    [('a', 1.0, True, 0.0), ('b', 0.5, False, 12.0)]
    >>> t["practically_significant"].to_list()
    [None, True]
    """
    t, level_t = check("four_fifths", options["four_fifths"]), check("level", options["level"])
    min_diff = check("min_difference", options["min_difference"])
    practical = options["practical"]
    support = check("min_support", options["min_support"])
    if practical not in PRACTICAL_RULES:
        raise E.InvalidArgumentError(BAD_PRACTICAL.format(valid=list(PRACTICAL_RULES),
                                                          value=practical))
    names = counts.collect_schema().names()
    weighted = "weight_sum" in names
    given = Reference.parse(options["reference"]).for_set(keys)
    base = _base(counts, keys, names)
    sel_rate = pl.when(pl.col("applicants") > 0).then(
        pl.col("selected") / pl.col("applicants"))
    eligible = known(keys) & (pl.col("applicants") > 0)
    base, flag = given.flag(base, keys, eligible=eligible, score=sel_rate,
                            min_support=options["min_support"])
    is_ref = pl.repeat(False, pl.len()) if flag is None else flag
    framed = base.with_columns(is_ref.alias("is_reference"))
    cell = pl.Float64 if weighted else pl.Int64
    schema = pl.Schema({
        **{k: v for k, v in framed.collect_schema().items() if k in keys},
        "selected": cell, "applicants": cell, "reference_selected": cell,
        "reference_applicants": cell, "selection_rate": pl.Float64, "reference_rate": pl.Float64,
        "impact_ratio": pl.Float64, "four_fifths_pass": pl.Boolean, "shortfall": pl.Float64,
        "z": pl.Float64, "p_value": pl.Float64, "flip_impact_ratio": pl.Float64,
        "practically_significant": pl.Boolean, "low_support": pl.Boolean,
        "is_reference": pl.Boolean,
    })
    decide = _Decide(t, R.alpha(level_t), practical, min_diff, support, overall=flag is None,
                     weighted=weighted, keys=list(keys))
    return framed.map_batches(decide, schema=schema)


def _base(counts: pl.LazyFrame, keys: Sequence[str], names: Sequence[str]) -> pl.LazyFrame:
    """Selections, applicants, rows, the rows inference counts and the support, per group.

    Rows (``n``: an explicit reference needs some), the rows the tests count
    (:func:`polars_fair.core.spec.support_size`) and the support size
    (:func:`polars_fair.core.reference.support_rows`; on estimated membership
    :meth:`Reference.flag` reads it from ``weight_sum``, ``n_effective`` and, with sample
    weights, ``n`` and ``row_weight_sum``).
    """
    c = count_exprs(names)
    size = support_size(names)
    return counts.select(
        *keys, (pl.col("tp") + pl.col("fp")).alias("selected"), c.n.alias("applicants"),
        pl.col("n"), *([pl.col(size)] if size != "n" else []),
        support_rows(names).alias("__pf_support"),
        *([pl.col("weight_sum")] if "n_effective" in names else []),
    )


class _Decide:
    """The per-group figures of :func:`impact_from_counts` on the collected small table."""

    def __init__(self, t: Fraction, alpha: Fraction, practical: str, min_diff: Fraction,
                 min_support: Fraction, *, overall: bool, weighted: bool, keys: list[str],
                 ) -> None:
        self.t, self.alpha, self.practical, self.min_diff = t, alpha, practical, min_diff
        self.min_support = min_support
        self.overall, self.weighted, self.keys = overall, weighted, keys

    def __call__(self, df: pl.DataFrame) -> pl.DataFrame:
        sel = df["selected"].to_list()
        app = df["applicants"].to_list()
        rows = df[support_size(df.columns)].to_list()
        is_ref = df["is_reference"].to_list()
        k = df.height
        if self.overall:
            ref: tuple[Any, Any, int] | None = (sum(sel), sum(app), sum(rows))
        else:
            r = next((i for i in range(k) if is_ref[i]), None)
            ref = None if r is None else (sel[r], app[r], rows[r])
        none: list[Any] = [None] * k
        sr, ir, passes, short, flip, practical = (list(none) for _ in range(6))
        fails_flip: list[bool | None] = list(none)
        ref_rate = None if ref is None else rate(ref[0], ref[1])
        for i in range(k):
            sr[i] = rate(sel[i], app[i])
            if ref is None or sr[i] is None or ref_rate is None:
                continue
            short[i] = shortfall(sel[i], app[i], ref[0], ref[1])
            if ref_rate == 0:
                continue
            ir[i] = sr[i] / ref_rate
            passes[i] = not R.below(self._decided(ir[i]), self.t)
            if is_ref[i]:
                continue
            unit = app[i] / rows[i] if self.weighted else 1  # one row of the mean weight
            moved = min(sel[i] + unit, app[i])
            flip_rate = rate(moved, app[i])
            flip_ref = rate(ref[0] + (moved - sel[i]), ref[1]) if self.overall \
                else ref_rate
            assert flip_rate is not None and flip_ref is not None
            flip[i] = flip_rate / flip_ref
            fails_flip[i] = R.below(self._decided(flip[i]), self.t)
        # the tests, in rows: the reference (or, for "overall", the rest of the population)
        a, m, b, n, whole = self._samples(df, ref)
        compared = np.array([not x for x in is_ref], dtype=bool) & (m > 0) & (n > 0)
        z = np.where(compared, stats.pooled_z(a, m, b, n), np.nan)
        for j in np.flatnonzero(compared):  # equal rates exactly: 0 standard deviations
            i = int(j)
            assert ref is not None
            o_sel, o_app = exact(ref[0]), exact(ref[1])
            if self.overall:  # the rest of the population
                o_sel, o_app = o_sel - exact(sel[i]), o_app - exact(app[i])
            if exact(sel[i]) * o_app == o_sel * exact(app[i]):
                z[i] = 0.0
        p = np.full(k, np.nan)
        if compared.any():
            p[compared] = stats.two_proportion_test(
                a[compared], m[compared], b[compared], n[compared],
                method="fisher" if whole else "z")
        for i in range(k):
            significant = R.float_at_most(float(p[i]), self.alpha)
            if passes[i] is None or significant is None or is_ref[i]:
                continue
            if self.practical == "flip":
                practical[i] = (not passes[i]) and bool(fails_flip[i]) and significant
            else:
                assert ref_rate is not None
                gap = ref_rate - sr[i]
                practical[i] = (not passes[i]) and significant and bool(
                    R.above(self._decided(gap), self.min_diff))

        def floats(values: Sequence[Any]) -> pl.Series:
            return pl.Series([None if v is None else float(v) for v in values],
                             dtype=pl.Float64)

        cell = pl.Float64 if self.weighted else pl.Int64
        ref_sel = [None if ref is None else ref[0]] * k
        ref_app = [None if ref is None else ref[1]] * k
        ref_rates = [ref_rate] * k
        return pl.DataFrame([
            *(df[key] for key in self.keys),
            df["selected"].cast(cell), df["applicants"].cast(cell),
            pl.Series("reference_selected", ref_sel, dtype=cell),
            pl.Series("reference_applicants", ref_app, dtype=cell),
            floats(sr).alias("selection_rate"), floats(ref_rates).alias("reference_rate"),
            floats(ir).alias("impact_ratio"),
            pl.Series("four_fifths_pass", passes, dtype=pl.Boolean),
            floats(short).alias("shortfall"),
            pl.Series("z", z, dtype=pl.Float64, nan_to_null=True),
            pl.Series("p_value", p, dtype=pl.Float64, nan_to_null=True),
            floats(flip).alias("flip_impact_ratio"),
            pl.Series("practically_significant", practical, dtype=pl.Boolean),
            pl.Series("low_support", [bool(R.below(x, self.min_support))
                                      for x in df["__pf_support"].to_list()], dtype=pl.Boolean),
            df["is_reference"],
        ])

    def _decided(self, value: Fraction) -> Fraction | float:
        """A ratio as the rules decide it.

        Exact on counts; on weighted sums a float, decided with the weighted tolerance of
        :mod:`polars_fair.core.rules` as the report's four-fifths rule.
        """
        return float(value) if self.weighted else value

    def _samples(self, df: pl.DataFrame, ref: tuple[Any, Any, int] | None,
                 ) -> tuple[Any, Any, Any, Any, bool]:
        """Successes and trials of each group and of what it is tested against, in rows.

        The last value says whether they are whole counts (Fisher's test applies): always
        unweighted, and weighted when every weight sum equals its row count (unit weights; a
        one-hot membership), where the row-scaled sums are the sums themselves.
        """
        sel = df["selected"].cast(pl.Float64).to_numpy()
        app = df["applicants"].cast(pl.Float64).to_numpy()
        rows = df[support_size(df.columns)].cast(pl.Float64).to_numpy()
        if ref is None:
            nan = np.full(df.height, np.nan)
            return nan, nan, nan, nan, not self.weighted
        ref_sel, ref_app = np.full_like(sel, float(ref[0])), np.full_like(sel, float(ref[1]))
        ref_rows = np.full_like(sel, float(ref[2]))
        if self.overall:  # the rest of the population
            ref_sel, ref_app, ref_rows = ref_sel - sel, ref_app - app, ref_rows - rows
        unit = np.array_equal(app, rows) and np.array_equal(ref_app, ref_rows)
        if not self.weighted or unit:
            return sel, app, ref_sel, ref_app, True

        def scaled(x: Any, size: Any, n: Any) -> Any:  # weighted sums as row counts
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(size > 0, x / np.where(size > 0, size, 1) * n, 0.0)

        # a side whose weights sum to 0 has no applicants: no test (null z and p_value)
        return (scaled(sel, app, rows), np.where(app > 0, rows, 0.0),
                scaled(ref_sel, ref_app, ref_rows), np.where(ref_app > 0, ref_rows, 0.0), False)


def passed_over(table: pl.DataFrame, reference: Any) -> pl.DataFrame:
    """The groups ``reference="max_selection_rate"`` passed over for their low support.

    The rows of an :func:`impact_from_counts` result with ``low_support`` and a selection rate
    above the reference's, when the rule was ``"max_selection_rate"``: the groups whose higher
    rate was not taken as the benchmark because they have fewer than ``min_support`` rows.

    Parameters
    ----------
    table : pl.DataFrame
        A collected :func:`impact_from_counts` result.
    reference : rule name, group or Reference
        The ``reference`` it was computed with; any other than ``"max_selection_rate"`` passes
        nobody over for a higher rate.

    Returns
    -------
    pl.DataFrame
        Its rows that were passed over, in key order (empty for any other reference).

    Examples
    --------
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [100, 5], "tp": [50, 5], "fp": [0, 0],
    ...                   "fn": [50, 0], "tn": [0, 0]})
    >>> t = impact_from_counts(c, ["g"], reference="max_selection_rate").collect()
    >>> passed_over(t, "max_selection_rate")["g"].to_list(), t.filter("is_reference")["g"][0]
    (['b'], 'a')
    """
    if Reference.parse(reference).rule != "max_selection_rate":
        return table.clear()
    return table.filter(pl.col("low_support") & ~pl.col("is_reference")
                        & (pl.col("selection_rate") > pl.col("reference_rate")))
