"""Stratified adverse impact: Mantel–Haenszel, Cochran–Mantel–Haenszel, Breslow–Day, Kitagawa.

A pooled selection rate can fail the four-fifths rule for composition alone (who applied where:
Simpson's paradox), and per-stratum rates can each hide a small consistent gap. The stratified
analysis compares each group with the reference within each stratum (a department, a job, a
region) and pools the comparisons. It reads a count table keyed by the group attributes and the
strata attributes together: the rows are counted once at that level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._lazy import np, sps
from polars_fair.analyses.impact import exact, rate
from polars_fair.analyses.report import count_exprs
from polars_fair.core import rules as R
from polars_fair.core.options import DEFAULTS, check
from polars_fair.core.reference import Reference, known
from polars_fair.counting.tables import rollup

__all__ = ["STRATIFIED_COLUMNS", "check_strata", "strata_names", "stratified_from_counts"]

#: The columns :func:`stratified_from_counts` adds after the group keys.
STRATIFIED_COLUMNS = (
    "n", "selection_rate", "reference_rate", "impact_ratio", "mh_odds_ratio", "mh_ci_low",
    "mh_ci_high", "cmh_statistic", "cmh_p_value", "breslow_day_statistic",
    "breslow_day_p_value", "n_strata", "gap", "composition", "within", "is_reference",
)
NO_STRATA = E.NO_STRATA
NO_SETS = E.NO_SETS
NO_GROUPS = E.NO_GROUPS
STRATUM_IN_BY = E.STRATUM_IN_BY


def strata_names(strata: str | Sequence[str] | None, groups: Sequence[str] = ()) -> list[str]:
    """The strata attributes of a call, as a list of names, checked against the groups.

    Parameters
    ----------
    strata : str or sequence of str
        One attribute or several (their combinations are the strata).
    groups : sequence of str, default ()
        The group attributes of the call (``by``), which must not be strata too.

    Returns
    -------
    list of str

    Raises
    ------
    InvalidArgumentError
        No attribute given (:data:`NO_STRATA`), an expression instead of a name
        (:data:`polars_fair.errors.STRATA_EXPRESSION`, with the name to pass for
        ``pl.col("dept")``), or one that is also in ``groups`` (:data:`STRATUM_IN_BY`).

    Examples
    --------
    >>> strata_names("dept"), strata_names(["dept", "year"], groups=["sex"])
    (['dept'], ['dept', 'year'])
    >>> strata_names(pl.col("dept"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: strata takes ... (col("dept")): pass strata='dept'
    """
    single = isinstance(strata, (str, pl.Expr))
    items = [strata] if single else strata
    if not isinstance(items, Sequence) and items is not None:  # 3, {"dept"}: typed
        raise E.InvalidArgumentError(NO_STRATA)
    for item in items or []:
        if isinstance(item, pl.Expr):
            column = item.meta.is_column()
            advice = (E.STRATA_BY_NAME.format(name=item.meta.output_name()) if column
                      else E.STRATA_COMPUTED)
            raise E.InvalidArgumentError(E.STRATA_EXPRESSION.format(value=item, advice=advice))
    names = [s for s in items or [] if isinstance(s, str)]
    if not names or len(names) != len(items or []):
        raise E.InvalidArgumentError(NO_STRATA)
    both = [g for g in groups if g in names]
    if both:
        raise E.InvalidArgumentError(STRATUM_IN_BY.format(column=both[0]))
    return list(dict.fromkeys(names))


def check_strata(names: Sequence[str], available: Sequence[str],
                 groups: Sequence[str] | None = None) -> None:
    """Check that every stratum is among ``available`` and that a group attribute is left.

    One decision for every way in (rows, a count table, the command line, Spark, DuckDB):
    a stratum that is not a column (or key) is :data:`polars_fair.errors.MISSING_COLUMN` with
    the role ``strata``, and strata that leave no attribute to compare are :data:`NO_GROUPS`.

    Parameters
    ----------
    names : sequence of str
        The strata (:func:`strata_names`).
    available : sequence of str
        The columns of the rows, or the keys of the count table.
    groups : sequence of str, optional
        The group attributes; default: the ``available`` names that are not strata (the keys
        of a count table).

    Raises
    ------
    ColumnNotFoundError
        A stratum that is not in ``available``.
    InvalidArgumentError
        No group attribute left (:data:`NO_GROUPS`).

    Examples
    --------
    >>> check_strata(["dept"], ["sex", "dept"])
    >>> check_strata(["dept"], ["dept"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: stratified compares groups within strata, but ...
    """
    for s in names:
        if s not in available:
            raise E.ColumnNotFoundError(E.missing_column(s, "strata", available))
    left = [k for k in available if k not in names] if groups is None else list(groups)
    if not left:
        raise E.InvalidArgumentError(NO_GROUPS.format(
            keys=list(available) if groups is None else list(names), strata=list(names)))


def stratified_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    strata: str | Sequence[str] | None = None,
    reference: Any = DEFAULTS.reference,
    level: float = DEFAULTS.level,
    continuity_correction: bool = DEFAULTS.continuity_correction,
) -> pl.LazyFrame:
    r"""Each group against the reference within strata, pooled over the strata.

    In stratum :math:`k` the group has :math:`a_k` selected and :math:`b_k` not selected, the
    reference :math:`c_k` and :math:`d_k`, :math:`n_k = a_k + b_k + c_k + d_k`; odds ratios are
    the group's odds of selection over the reference's.

    * ``mh_odds_ratio``: the Mantel–Haenszel estimator (Mantel & Haenszel 1959, *J. Natl Cancer
      Inst.* 22:719), :math:`\hat\psi = \sum_k R_k / \sum_k S_k` with :math:`R_k = a_k d_k/n_k`,
      :math:`S_k = b_k c_k/n_k`; ``mh_ci_low``, ``mh_ci_high``: :math:`\exp(\log\hat\psi \mp
      z\,\hat\sigma)` with the Robins–Breslow–Greenland variance (Robins, Breslow & Greenland
      1986, *Biometrics* 42:311), with :math:`P_k = (a_k + d_k)/n_k`, :math:`Q_k = (b_k +
      c_k)/n_k`:
      :math:`\hat\sigma^2 = \frac{\sum P_kR_k}{2(\sum R_k)^2} + \frac{\sum (P_kS_k + Q_kR_k)}
      {2\sum R_k\sum S_k} + \frac{\sum Q_kS_k}{2(\sum S_k)^2}`.
    * ``cmh_statistic``, ``cmh_p_value``: the Cochran–Mantel–Haenszel test of no association
      in any stratum, :math:`\chi^2 = (|\sum_k (a_k - E a_k)| - c)^2 / \sum_k V a_k` with
      :math:`E a_k = (a_k + b_k)(a_k + c_k)/n_k`, :math:`V a_k = (a_k + b_k)(c_k + d_k)(a_k +
      c_k)(b_k + d_k)/(n_k^2(n_k - 1))`, :math:`c = 1/2` with ``continuity_correction`` (as
      SolasAI and R's ``mantelhaen.test`` by default) else 0 (as statsmodels' default); one
      degree of freedom.
    * ``breslow_day_statistic``, ``breslow_day_p_value``: the Breslow–Day test that the odds
      ratio is the same in every stratum (Breslow & Day 1980, *Statistical Methods in Cancer
      Research* I, sec. 4.4), **with Tarone's correction** (Tarone 1985, *Biometrika* 72:91):
      :math:`\sum_k (a_k - \hat A_k)^2/\hat V_k - (\sum_k a_k - \sum_k \hat A_k)^2 / \sum_k \hat
      V_k`, where :math:`\hat A_k` is the expected :math:`a_k` given the stratum's margins and
      the common odds ratio :math:`\hat\psi` and :math:`\hat V_k` its variance; :math:`K - 1`
      degrees of freedom. SolasAI and statsmodels' ``test_equal_odds(adjust=True)`` compute the
      same. Null with fewer than two informative strata.
    * ``n_strata``: the informative strata, those where both the group and the reference have
      applicants and the outcome is not constant. The others carry no information about the
      association (their conditional distribution is a point) and are left out of every
      statistic; statsmodels' ``StratifiedTable`` on the informative strata gives the same
      figures (on all strata it returns NaN for Breslow–Day).
    * ``selection_rate``, ``reference_rate``, ``impact_ratio``: the pooled (crude) rates over all
      strata and their ratio, as the unstratified analysis reports them: ``impact_ratio`` =
      ``selection_rate / reference_rate``, divided by the *reference group's* rate as in
      ``impact_analysis`` (``report``'s ``disparate_impact``; ``report``'s ``impact_ratio``
      divides by the highest rate).
    * ``gap`` = ``reference_rate - selection_rate`` and its Kitagawa decomposition (Kitagawa
      1955, *JASA* 50:1168), symmetric form: with stratum shares :math:`w_k = n_k/N` and rates
      :math:`r_k` of each side, ``composition`` :math:`= \sum_k (w^{ref}_k - w_k)(r^{ref}_k +
      r_k)/2` (the part due to where each side applied) and ``within`` :math:`= \sum_k
      (r^{ref}_k - r_k)(w^{ref}_k + w_k)/2` (the part due to different rates in the same
      stratum). The weights are the averages of the two sides' shares (and rates), so neither
      side is the standard. ``gap = composition + within`` holds exactly (computed in rationals
      for integer counts). In a stratum where one side has no applicants its rate is taken as
      the other side's, so the stratum counts wholly as composition.

    Weighted counts: the rates, the impact ratio and the decomposition use the weighted sums
    (in rationals of the sums as they print, so equal rates give a gap of exactly 0); the odds
    ratio and the tests count rows, each side's weighted rate in a stratum times its row count
    there (as :func:`polars_fair.analyses.uncertainty.disparity_table`). A side whose weights
    sum to 0 in a stratum has no applicants there: the stratum is not informative. On a count
    table of estimated membership (``membership=``, the weighted estimator) the tests count
    Kish's ``n_effective`` of each side in each stratum instead of its rows, as every interval
    of that table does: its ``n`` counts a row in every group it may belong to.

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table keyed by the group attributes and the strata attributes.
    keys : sequence of str
        Its key columns.
    strata : str or sequence of str
        The attributes whose values (combinations, for several) are the strata: keys of the
        count table, the other keys being the groups; with rows, columns counted together with
        the groups of ``by`` and not among them.
    reference : "largest", "max_selection_rate", scalar or mapping
        The reference group: a value of the group attribute (a mapping over several), or a
        rule applied to the pooled counts (:mod:`polars_fair.core.reference`). ``"overall"`` is
        refused: the population contains the group.
    level : float, default 0.95
        Confidence level of the odds-ratio interval, in (0, 1).
    continuity_correction : bool, default False
        Subtract 1/2 in the CMH statistic (see above).

    Returns
    -------
    pl.LazyFrame
        One row per group sorted by the group keys: the group keys; ``n`` (Int64 rows);
        ``selection_rate``, ``reference_rate``, ``impact_ratio``, ``mh_odds_ratio``,
        ``mh_ci_low``, ``mh_ci_high``, ``cmh_statistic``, ``cmh_p_value``,
        ``breslow_day_statistic``, ``breslow_day_p_value`` (Float64); ``n_strata`` (Int64);
        ``gap``, ``composition``, ``within`` (Float64, rate differences in [-1, 1]);
        ``is_reference`` (Boolean). The reference row and undefined figures (no informative
        stratum, an odds ratio of 0 or infinity) are null.

    Raises
    ------
    InvalidArgumentError
        No ``strata``, strata that leave no group attribute (:data:`NO_GROUPS`), a reference
        mapping that names a stratum (:data:`polars_fair.errors.REFERENCE_IS_STRATUM`), ``level``
        outside (0, 1), a non-boolean ``continuity_correction``, ``reference="overall"``, a
        reference mapping that names an attribute other than the compared ones (a stratum or a
        column not audited), as in every analysis
        (:data:`polars_fair.errors.BAD_REFERENCE_MAPPING`), or a count table of several
        attribute sets (``combinations=``, :data:`NO_SETS`).
    ColumnNotFoundError
        A stratum that is not a key (its role ``strata`` named, :func:`check_strata`).
    UnknownGroupError
        An explicit ``reference`` that is not a group.

    Examples
    --------
    Two departments: women apply mostly where few are admitted.

    >>> import polars as pl
    >>> c = pl.LazyFrame({"sex": ["F", "F", "M", "M"], "dept": ["A", "B", "A", "B"],
    ...                   "n": [10, 90, 90, 10], "tp": [8, 18, 72, 2],
    ...                   "fp": [0, 0, 0, 0], "fn": [2, 72, 18, 8], "tn": [0, 0, 0, 0]})
    >>> s = stratified_from_counts(c, ["sex", "dept"], strata="dept", reference="M").collect()
    >>> s.select("sex", "impact_ratio", "mh_odds_ratio", "gap", "within").rows()
    [('F', 0.35135135135135137, 1.0, 0.48, 0.0), ('M', 1.0, None, None, None)]
    """
    names = strata_names(strata)
    check_strata(names, keys)
    groups = [k for k in keys if k not in names]
    level_t = check("level", level)
    correction = R.flag(continuity_correction, "continuity_correction")
    ref = Reference.parse(reference)
    stratum = next((a for a in ref.attributes or () if a in names), None)
    if stratum is not None:  # {"dept": "A"}: a stratum, not a group (said it was not one)
        raise E.InvalidArgumentError(E.REFERENCE_IS_STRATUM.format(column=stratum,
                                                                   groups=groups))
    if Reference.parse(ref, groups).is_overall:  # a mapping names only the groups' keys
        raise E.InvalidArgumentError(E.BAD_REFERENCE_RULE.format(
            reference=reference, rules=["largest", "max_selection_rate"]))
    schema = counts.collect_schema()
    weighted = "weight_sum" in schema.names()
    out_schema = pl.Schema(_schema(schema, groups))
    c = count_exprs(schema.names())
    # the rows the tests count: Kish's size on a membership table (its n counts a row in
    # every group it may belong to), else the rows
    tested = "n_effective" if "n_effective" in schema.names() else "n"
    cells = counts.select(
        *keys, (pl.col("tp") + pl.col("fp")).alias("__pf_sel"), c.n.alias("__pf_size"),
        pl.col("n").alias("__pf_rows"), pl.col(tested).alias("__pf_tested"))
    run = _Stratified(groups, names, reference, float(level_t), correction, weighted)
    return cells.map_batches(run, schema=out_schema)


Stratum = tuple[Any, ...]
Cells = dict[Stratum, tuple[Any, Any, Any]]  # stratum -> (selected, size, rows tested)


class _Stratified:
    """The per-group figures of :func:`stratified_from_counts` on the collected table."""

    def __init__(self, groups: list[str], strata: list[str], reference: Any, level: float,
                 correction: bool, weighted: bool) -> None:
        self.groups, self.strata, self.reference = groups, strata, reference
        self.level, self.correction, self.weighted = level, correction, weighted

    def __call__(self, df: pl.DataFrame) -> pl.DataFrame:
        pooled = rollup(df.lazy().select(
            *self.groups, *self.strata, pl.col("__pf_rows").alias("n"),
            pl.col("__pf_sel").alias("tp"), pl.lit(0).alias("fp"), pl.lit(0).alias("fn"),
            pl.lit(0).alias("tn"), pl.col("__pf_size").alias("weight_sum"),
        ), self.groups).collect()
        size, sel = pooled["weight_sum"], pooled["tp"]
        rate = (sel.cast(pl.Float64) / size.cast(pl.Float64)).set(size == 0, None)
        ref = Reference.parse(self.reference).for_set(self.groups).index(
            pooled, self.groups,
            eligible=pooled.select(known(self.groups) & (pl.col("weight_sum") > 0)).to_series(),
            score=rate, rules=("largest", "max_selection_rate"))
        by_group: dict[Stratum, Cells] = {}
        for cell in df.iter_rows(named=True):
            g = tuple(cell[k] for k in self.groups)
            s = tuple(cell[k] for k in self.strata)
            by_group.setdefault(g, {})[s] = (cell["__pf_sel"], cell["__pf_size"],
                                             cell["__pf_tested"])
        keys = [tuple(r) for r in pooled.select(self.groups).iter_rows()]
        ref_cells = by_group.get(keys[ref], {}) if ref is not None else None
        out: list[dict[str, Any]] = []
        for i, g in enumerate(keys):
            row: dict[str, Any] = dict(zip(self.groups, g, strict=True))
            row["n"] = int(pooled["n"][i])
            row["is_reference"] = ref == i
            own = by_group.get(g, {})
            row.update(_pooled_rates(own, ref_cells))
            if ref_cells is not None and ref != i:
                row.update(self._compare(own, ref_cells))
            out.append(row)
        return pl.from_dicts(out, schema=_schema(df.schema, self.groups)).select(
            *self.groups, *STRATIFIED_COLUMNS)

    def _compare(self, own: Cells, ref: Cells) -> dict[str, Any]:
        """Mantel–Haenszel, CMH, Breslow–Day and Kitagawa for one group against the reference."""
        out: dict[str, Any] = _kitagawa(own, ref)
        cells = []
        for s in sorted(set(own) | set(ref), key=repr):
            a_sel, a_size, a_rows = own.get(s, (0, 0, 0))
            c_sel, c_size, c_rows = ref.get(s, (0, 0, 0))
            if self.weighted:  # in rows: each side's weighted rate times its row count
                a = a_sel / a_size * a_rows if a_size > 0 else 0.0
                c = c_sel / c_size * c_rows if c_size > 0 else 0.0
                # a side whose weights sum to 0 has no applicants in the stratum
                m = float(a_rows) if a_size > 0 else 0.0
                r = float(c_rows) if c_size > 0 else 0.0
            else:
                a, c, m, r = a_sel, c_sel, a_rows, c_rows
            cells.append((a, m - a, c, r - c))
        t = np.array(cells, dtype=np.float64).reshape(-1, 4)
        a, b, c, d = t.T
        informative = (a + b > 0) & (c + d > 0) & (a + c > 0) & (b + d > 0)
        a, b, c, d = a[informative], b[informative], c[informative], d[informative]
        out["n_strata"] = int(informative.sum())
        if out["n_strata"] == 0:
            return out
        n = a + b + c + d
        rk, sk = a * d / n, b * c / n
        sr, ss = rk.sum(), sk.sum()
        psi = sr / ss if ss > 0 and sr > 0 else None
        if psi is not None:
            pk, qk = (a + d) / n, (b + c) / n
            var = ((pk * rk).sum() / (2 * sr**2) + (pk * sk + qk * rk).sum() / (2 * sr * ss)
                   + (qk * sk).sum() / (2 * ss**2))
            z = float(sps.norm.ppf(0.5 + self.level / 2))
            half = z * np.sqrt(var)
            out.update(mh_odds_ratio=float(psi), mh_ci_low=float(np.exp(np.log(psi) - half)),
                       mh_ci_high=float(np.exp(np.log(psi) + half)))
        expected = (a + b) * (a + c) / n
        variance = (a + b) * (c + d) * (a + c) * (b + d) / (n**2 * (n - 1))
        if variance.sum() > 0:
            dev = abs((a - expected).sum()) - (0.5 if self.correction else 0.0)
            stat = dev**2 / variance.sum()  # (|D| - c)^2 even when |D| < c, as documented
            out.update(cmh_statistic=float(stat), cmh_p_value=float(sps.chi2.sf(stat, 1)))
        if psi is not None and out["n_strata"] >= 2:
            bd = _breslow_day(a, b, c, d, float(psi))
            if bd is not None:
                out.update(breslow_day_statistic=bd,
                           breslow_day_p_value=float(sps.chi2.sf(bd, out["n_strata"] - 1)))
        return out


def _schema(schema: pl.Schema, groups: Sequence[str]) -> dict[str, pl.DataType]:
    return {**{k: schema[k] for k in groups}, "n": pl.Int64(),
            **{c: pl.Float64() for c in STRATIFIED_COLUMNS[1:11]}, "n_strata": pl.Int64(),
            "gap": pl.Float64(), "composition": pl.Float64(), "within": pl.Float64(),
            "is_reference": pl.Boolean()}


def _pooled_rates(own: Cells, ref: Cells | None) -> dict[str, Any]:
    sel = sum(exact(v[0]) for v in own.values())
    size = sum(exact(v[1]) for v in own.values())
    own_rate = rate(sel, size)
    out: dict[str, Any] = {"selection_rate": None if own_rate is None else float(own_rate)}
    if ref is not None:
        ref_rate = rate(sum(exact(v[0]) for v in ref.values()),
                         sum(exact(v[1]) for v in ref.values()))
        out["reference_rate"] = None if ref_rate is None else float(ref_rate)
        if own_rate is not None and ref_rate:
            out["impact_ratio"] = float(own_rate / ref_rate)
    return out


def _kitagawa(own: Cells, ref: Cells) -> dict[str, Any]:
    """The symmetric Kitagawa decomposition of ``reference rate - group rate``."""
    total_g = sum(exact(v[1]) for v in own.values())  # in rationals: exact ties give 0
    total_r = sum(exact(v[1]) for v in ref.values())
    if not total_g > 0 or not total_r > 0:
        return {}
    composition: Any = 0
    within: Any = 0
    for s in set(own) | set(ref):
        sel_g, size_g, _ = own.get(s, (0, 0, 0))
        sel_r, size_r, _ = ref.get(s, (0, 0, 0))
        rg, rr = rate(sel_g, size_g), rate(sel_r, size_r)
        if rg is None and rr is None:
            continue
        rg = rr if rg is None else rg  # an empty side takes the other's rate: all composition
        rr = rg if rr is None else rr
        wg, wr = rate(size_g, total_g), rate(size_r, total_r)
        assert rg is not None and rr is not None and wg is not None and wr is not None
        composition += (wr - wg) * (rr + rg) / 2
        within += (rr - rg) * (wr + wg) / 2
    return {"gap": float(composition + within), "composition": float(composition),
            "within": float(within)}


def _breslow_day(a: Any, b: Any, c: Any, d: Any, psi: float) -> float | None:
    """Breslow–Day statistic with Tarone's correction at the common odds ratio ``psi``."""
    m1, m2, t1 = a + b, c + d, a + c
    lo, hi = np.maximum(0.0, t1 - m2), np.minimum(m1, t1)
    if psi == 1.0:
        fitted = m1 * t1 / (m1 + m2)
    else:  # (psi - 1) A^2 - (psi (m1 + t1) + m2 - t1) A + psi m1 t1 = 0, the root in [lo, hi]
        qa = psi - 1.0
        qb = -(psi * (m1 + t1) + m2 - t1)
        qc = psi * m1 * t1
        root = np.sqrt(np.maximum(qb * qb - 4 * qa * qc, 0.0))
        r1, r2 = (-qb - root) / (2 * qa), (-qb + root) / (2 * qa)
        inside = (r1 >= lo - 1e-9) & (r1 <= hi + 1e-9)
        fitted = np.where(inside, r1, r2)
    with np.errstate(divide="ignore"):
        var = 1.0 / (1.0 / fitted + 1.0 / (m1 - fitted) + 1.0 / (t1 - fitted)
                     + 1.0 / (m2 - t1 + fitted))
    if not np.all(np.isfinite(var)) or not np.all(var > 0):
        return None
    stat = ((a - fitted) ** 2 / var).sum() - (a.sum() - fitted.sum()) ** 2 / var.sum()
    return float(stat)
