r"""The proxy report: three estimators of each group's rates side by side, and a verdict.

When group membership is estimated (a probability per group and row, BISG and the like) no
single estimator is trustworthy alone (Chen, Kallus, Mao, Svacha & Udell, "Fairness Under
Unawareness", FAT* 2019): the probability-weighted estimator attenuates a difference toward
zero, the most-likely-group (argmax) estimator tends to exaggerate it, and the linear
(regression) estimator is unbiased when the outcome is independent of the probabilities given
the true group, at the price of a wider interval. This report shows the three from one
membership table (:mod:`polars_fair.counting.membership`, one scan of the rows) and reads the
four-fifths rule only where they agree.

Why one module: the three estimators, the reference and the verdict are read per group from
the same small table, and the verdict needs all three.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair import errors as E
from polars_fair._lazy import np
from polars_fair.analyses.membership_covariance import (
    selection_rate_correlation,
    selection_rate_covariance,
)
from polars_fair.analyses.membership_regression import CellFit, fit_cells, rate_interval
from polars_fair.analyses.proxy_missing import missing_group
from polars_fair.analyses.runner import check_clash
from polars_fair.core import stats
from polars_fair.core.options import DEFAULTS, check
from polars_fair.core.reference import Reference, known, support_rows
from polars_fair.counting.membership import Membership, MembershipTable
from polars_fair.counting.membership_counts import argmax_counts, support_size, weighted_counts

if TYPE_CHECKING:
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]

__all__ = ["ESTIMATORS", "REASON_CLIPPED", "REASON_OUTSIDE", "REASON_RATIO_NEGATIVE",
           "REASON_RATIO_REFERENCE", "VERDICTS", "proxy_report_from_membership",
           "proxy_report_schema", "ratio_reason"]

#: The estimators, in column order.
ESTIMATORS = ("weighted", "argmax", "regression")
#: The values of the ``verdict`` column.
VERDICTS = ("pass", "fail", "indeterminate")
#: ``regression_reason`` of a rate whose linear estimate lies outside [0, 1], shown clipped.
REASON_CLIPPED = "{rate} estimate {value:.4g} is outside [0, 1]: shown clipped"
#: ``regression_reason`` of a rate whose whole interval lies outside [0, 1]: clipping would
#: show a point ([0, 0] or [1, 1]) the data do not support, so the interval is null.
REASON_OUTSIDE = (
    "{rate} estimate {value:.4g} and its whole interval [{low:.4g}, {high:.4g}] lie outside "
    "[0, 1] (the linear model does not fit these probabilities): estimate shown clipped, "
    "interval null"
)
#: ``regression_reason`` of a null ``impact_ratio_regression``: the reference's selection rate
#: estimate is 0, negative or null, so no ratio to it is defined.
REASON_RATIO_REFERENCE = (
    "impact_ratio_regression is null: the reference's selection_rate estimate ({value}) is "
    "not positive, so a ratio to it is undefined"
)
#: ``regression_reason`` of a null ``impact_ratio_regression``: the group's own estimate is
#: negative (a selection rate is at least 0), so its ratio would be below the range [0, inf).
REASON_RATIO_NEGATIVE = (
    "impact_ratio_regression is null: the group's selection_rate estimate ({value:.4g}) is "
    "negative"
)

def _rates(schema: pl.Schema) -> list[str]:
    return ["selection_rate", "tpr", "fpr"] if "y_true" in schema else ["selection_rate"]


def proxy_report_schema(table_schema: pl.Schema, keys: Sequence[str], attribute: str,
                        group_dtype: pl.DataType) -> pl.Schema:
    """The report's fixed schema for a membership table's schema.

    Parameters
    ----------
    table_schema : pl.Schema
        The membership table's schema.
    keys : sequence of str
        The ordinary ``by`` attributes.
    attribute : str
        The membership attribute's name (the first key).
    group_dtype : pl.DataType
        The dtype of its group values.

    Returns
    -------
    pl.Schema
        See :func:`proxy_report_from_membership`.

    Examples
    --------
    >>> s = pl.Schema({"y_pred": pl.Int64, "s_0": pl.Float64})
    >>> proxy_report_schema(s, [], "race", pl.String()).names()[:5]
    ['race', 'weight_sum', 'n_effective', 'attenuation', 'n_argmax']
    """
    cols: list[tuple[str, pl.DataType]] = [(attribute, group_dtype)]
    cols += [(k, table_schema[k]) for k in keys]
    cols += [("weight_sum", pl.Float64()),
             ("n_effective", pl.Float64()), ("attenuation", pl.Float64()),
             ("n_argmax", pl.Int64())]
    for name in (*_rates(table_schema), "impact_ratio"):
        for e in ESTIMATORS:
            cols += [(f"{name}_{e}{s}", pl.Float64()) for s in ("", "_ci_low", "_ci_high")]
    cols += [(c, pl.Boolean()) for c in ("regression_singular", "regression_clipped")]
    cols.append(("regression_reason", pl.String()))
    cols += [(c, pl.Boolean()) for c in ("low_support", "is_reference")]
    cols.append(("verdict", pl.String()))
    outputs = [c for c, _ in cols[1 + len(keys):]]
    if attribute in outputs:  # named in membership=: renamed there
        raise E.InvalidArgumentError(E.MEMBERSHIP_ATTRIBUTE_CLASH.format(
            name=attribute, analysis="proxy_report", renamed=E.renamed(attribute, outputs)))
    check_clash(keys, outputs, "proxy_report")
    return pl.Schema(cols)


def proxy_report_from_membership(
    table: MembershipTable,
    *,
    reference: Any = DEFAULTS.reference,
    level: float = DEFAULTS.level,
    four_fifths: float = DEFAULTS.four_fifths,
    min_support: float = DEFAULTS.min_support,
) -> pl.LazyFrame:
    r"""Per group, each rate and the impact ratio by three estimators, with a four-fifths verdict.

    The groups are the membership attribute's groups crossed with the cells of the ordinary
    ``by`` attributes (the table's ``keys``). For a group k (a cell of the keys, probability
    :math:`p_{ik}`, sample weight :math:`w_i`, 1 when none) and a rate x/d (selection rate
    :math:`\hat y = 1` over all rows; ``tpr``: :math:`y = 1, \hat y = 1` over :math:`y = 1`;
    ``fpr``: :math:`y = 0, \hat y = 1` over :math:`y = 0`):

    - ``_weighted``: :math:`\sum_{x} w_i p_{ik} / \sum_{d} w_i p_{ik}`, each row counted with its
      probability (SolasAI's estimator with probabilities; the count table of
      ``membership_estimator="weighted"``, :mod:`polars_fair.counting.membership_counts`);
      Wilson interval on the sums rescaled to Kish's effective size
      :math:`n_\text{eff} = (\sum w_i p_{ik})^2 / \sum (w_i p_{ik})^2` (``n_effective``), as
      the intervals of that count table are. It attenuates differences toward zero by about
      ``attenuation`` when the probabilities are uncertain: its interval covers the attenuated
      rate, not the group's.
    - ``_argmax``: each row counted in its most likely group (ties to the group declared first;
      Jurity without surrogates; ``membership_estimator="argmax"``); Wilson interval on the rows
      (weighted sums rescaled to the rows of positive weight, as in the crisp audit).
    - ``_regression``: the linear estimator, :math:`G^{-1}c` from the membership sums, with its
      sandwich (HC0) variance (delta method for ``tpr``, ``fpr``), and an interval that is
      the hull of the sandwich's Wald interval and Wilson's at the group's effective size
      :math:`n_k = 1/(G^{-1}HG^{-1})_{kk}`
      (:func:`polars_fair.analyses.membership_regression.rate_interval`): never a point where
      every residual is 0, and the crisp Wilson interval for one-hot probabilities at a rate
      of 0 or 1. Unbiased when the outcome is
      independent of the probabilities given the true group. **Outside [0, 1]** (it is linear,
      not bounded) the estimate and its bounds are clipped to [0, 1] and
      ``regression_clipped`` is true; an interval that lies wholly outside [0, 1] is null,
      not the point [0, 0] or [1, 1] clipping would make (:data:`REASON_OUTSIDE`). A
      singular or ill-conditioned fit gives nulls and ``regression_singular``; so does a
      group that cannot be estimated on its own (nobody is in it, or its weight is
      negligible, as a probability of 1e-9 on a few rows), which is left out of the fit
      while the others are estimated without it.
      ``regression_reason`` says why in words.

    The impact ratio is the group's selection rate over the reference's, per estimator:
    weighted and argmax with the MOVER-R Wilson interval on their effective counts
    (:func:`polars_fair.core.stats.ratio_interval`), the weighted one with the correlation of
    the two rates, which share rows (every row counts in every group with its probability;
    linearised from the sums Σ w²·p_j·p_k:
    :mod:`polars_fair.analyses.membership_covariance`); the argmax groups are disjoint rows,
    independent; regression by MOVER-R on the two regression rate intervals
    (:func:`polars_fair.core.stats.mover_ratio`) of the unclipped estimates, with their
    sandwich correlation when both groups are in the same cell of the keys (independent
    otherwise), null unless the reference's estimate is positive and the group's not
    negative. The
    reference's own ratio is 1 with the interval [1, 1] (it is not compared with itself as an
    independent sample).

    The verdict (four-fifths rule at ``four_fifths``), for every group but the reference:
    ``"pass"`` when all three impact-ratio intervals lie at or above the threshold (so the
    three estimates do too); ``"fail"`` when all three lie below it; ``"indeterminate"``
    otherwise, that is when the estimators disagree, when an interval straddles the threshold,
    or when an estimate is null. The reference's verdict is null. A miscalibrated proxy that
    makes the weighted estimate pass while the regression fails reads "indeterminate", never
    "pass".

    Rows whose probabilities hold a null follow ``null_groups`` as in ``report``: with
    ``"keep"`` they are the attribute's missing group (its key null, one row per cell of
    ``by``), each row wholly in it, so the three estimators give its crisp figures
    (:mod:`polars_fair.analyses.proxy_missing`); they add nothing to the known groups'
    estimates. ``"drop"`` drops them with a warning giving the count, ``"raise"`` refuses them.

    Parameters
    ----------
    table : MembershipTable
        The membership table and its metadata (:mod:`polars_fair.counting.membership`), with
        every sum family.
    reference : "largest", "max_selection_rate", scalar or mapping, default "largest"
        The reference group (:mod:`polars_fair.core.reference`): ``"largest"`` is the group with
        the largest support size (the expected group size in rows, whatever the sample
        weights' scale, bounded by Kish's effective size:
        :func:`polars_fair.core.reference.support_rows`;
        ties to the first group in the report's order), as in every analysis of a membership
        table; ``"max_selection_rate"`` the one
        with the highest weighted selection rate; ``"overall"`` is not accepted.
    level : float, default 0.95
        The confidence level of every interval, in (0, 1).
    four_fifths : float, default 0.8
        The threshold of the impact ratio, in (0, 1].
    min_support : float, default 30
        Groups with a support size (:func:`polars_fair.core.reference.support_rows`) below
        it are flagged
        ``low_support``; a rule prefers a reference with at least this support size.

    Returns
    -------
    pl.LazyFrame
        One row per group, sorted by the attribute then the ``by`` keys (nulls last): the
        attribute, the keys; ``weight_sum`` (Float64, :math:`\sum w_i p_{ik}`), ``n_effective``
        and ``attenuation`` (Float64, as in the weighted count table), ``n_argmax`` (Int64,
        rows whose most likely group it is); for each of ``selection_rate`` (and ``tpr``,
        ``fpr`` when the table has ``y_true``) and ``impact_ratio``, per estimator
        ``{name}_{weighted|argmax|regression}`` with ``_ci_low``, ``_ci_high`` (Float64; rates
        in [0, 1], null where undefined); the Booleans ``regression_singular``,
        ``regression_clipped``; ``regression_reason`` (String: why the regression's figures
        are null or clipped, :mod:`polars_fair.analyses.membership_regression`'s ``REASON_*``,
        and why ``impact_ratio_regression`` is null, :data:`REASON_RATIO_REFERENCE` or
        :data:`REASON_RATIO_NEGATIVE`; several joined by "; "; null otherwise); the Booleans
        ``low_support``, ``is_reference``; ``verdict`` (String: "pass", "fail",
        "indeterminate"; null for the reference). The plan collects the small table when it
        runs (numpy), not before.

    Raises
    ------
    InvalidArgumentError
        ``level``, ``four_fifths`` or ``min_support`` out of range, the rule ``"overall"``, an
        attribute or key named like an output column (``verdict``, ``n_argmax``...), a
        ``reference`` mapping naming an attribute that is not audited
        (:data:`polars_fair.errors.BAD_REFERENCE_MAPPING`, as every method refuses it).
    UnknownGroupError
        An explicit ``reference`` that is not a group (when the plan runs).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.counting.membership import MembershipTable, parse_membership
    >>> t = pl.LazyFrame({"__pf_argmax": [0, 1], "y_pred": [1, 0], "n": [1, 1],
    ...     "w": [1.0, 1.0], "w2": [1.0, 1.0], "c_0": [1, 0], "c_1": [0, 1],
    ...     "s_0": [1.0, 0.0], "s_1": [0.0, 1.0],
    ...     "g_0_0": [1.0, 0.0], "g_0_1": [0.0, 0.0], "g_1_1": [0.0, 1.0],
    ...     "h_0_0": [1.0, 0.0], "h_0_1": [0.0, 0.0], "h_1_1": [0.0, 1.0],
    ...     "t_0_0_0": [1.0, 0.0], "t_0_0_1": [0.0, 0.0], "t_0_1_1": [0.0, 0.0],
    ...     "t_1_1_1": [0.0, 1.0], "u_0_0_0_0": [1.0, 0.0], "u_0_0_0_1": [0.0, 0.0],
    ...     "u_0_0_1_1": [0.0, 0.0], "u_0_1_1_1": [0.0, 0.0], "u_1_1_1_1": [0.0, 1.0]})
    >>> m = parse_membership({"g": {"a": "p_a", "b": "p_b"}})
    >>> r = proxy_report_from_membership(MembershipTable(t, [], m, False, False),
    ...                                  reference="a", min_support=0).collect()
    >>> r.select("g", "selection_rate_weighted", "selection_rate_regression", "verdict").rows()
    [('a', 1.0, 1.0, None), ('b', 0.0, 0.0, 'indeterminate')]
    """
    _ = [check(n, v) for n, v in (("level", level), ("four_fifths", four_fifths),
                                   ("min_support", min_support))]
    m = table.membership
    attribute, keys = m.attribute, list(table.keys)
    given = Reference.parse(reference, [attribute, *keys]).for_set([attribute, *keys])  # whole
    if given.is_overall:
        raise E.InvalidArgumentError(E.PROXY_REFERENCE_RULE.format(reference="overall"))
    schema = proxy_report_schema(table.frame.collect_schema(), keys, attribute, m.key_dtype)
    build = _Build(table, given, float(level), float(four_fifths), float(min_support), schema)
    return table.frame.map_batches(build, schema=schema)


class _Build:
    """The report on the collected membership table (map_batches)."""

    def __init__(self, table: MembershipTable, reference: Reference, level: float,
                 threshold: float, min_support: float, schema: pl.Schema) -> None:
        self.membership, self.weighted = table.membership, table.weighted
        self.keys, self.attribute = list(table.keys), table.membership.attribute
        self.groups = list(table.membership.groups)
        self.reference, self.level, self.threshold = reference, level, threshold
        self.min_support, self.schema = min_support, schema

    def __call__(self, table: pl.DataFrame) -> pl.DataFrame:
        k = len(self.groups)
        rates = _rates(table.schema)
        fits = fit_cells(table, self.keys, k, rates=rates)
        base = _base(table, self.membership, self.keys, self.weighted, fits)
        cols: dict[str, Any] = {}
        for rate in rates:
            cols.update(self._rate(base, fits, rate))
        ref = self._reference(base, cols)
        cols.update(self._impact(base, cols, fits, ref, self._correlation(table, fits, ref)))
        reasons = [x for f in fits for x in f.reasons(len(self.groups))]
        clipped = _outside_unit(cols, rates, reasons)
        ref_rate = None if ref is None else float(cols["selection_rate_regression"][ref])
        for i, (rate, ratio) in enumerate(zip(cols["selection_rate_regression"],
                                              cols["impact_ratio_regression"], strict=True)):
            reasons[i] = _joined(reasons[i], ratio_reason(float(rate), float(ratio), ref_rate))
        out = base.with_columns(
            **{c: pl.Series(c, _clip(v) if c.startswith(tuple(rates)) and "regression" in c
                            else v, dtype=pl.Float64, nan_to_null=True)
               for c, v in cols.items()},
            regression_singular=pl.Series([x for f in fits for x in f.flags(len(self.groups))],
                                          dtype=pl.Boolean),
            regression_clipped=pl.Series(clipped),
            regression_reason=pl.Series(reasons, dtype=pl.String),
            low_support=support_rows(base.columns).fill_null(0.0) < self.min_support,
            is_reference=pl.Series([i == ref for i in range(base.height)], dtype=pl.Boolean),
            verdict=pl.Series(self._verdicts(cols, ref, base.height), dtype=pl.String),
        )
        out = out.select(self.schema.names()).cast(dict(self.schema))  # type: ignore[arg-type]
        missing = missing_group(table, self.membership, self.keys, self.weighted, rates,
                                self.level, self._reference_figures(base, cols, fits, ref),
                                self._verdicts)
        if missing is not None:  # null_groups="keep": the rows with a null probability
            rows, extra = missing
            ref_rate = None if ref is None else float(cols["selection_rate_regression"][ref])
            out = pl.concat([out, rows.with_columns(
                **{c: pl.Series(c, v, dtype=pl.Float64, nan_to_null=True)
                   for c, v in extra.items() if c != "verdict"},
                regression_singular=pl.lit(False), regression_clipped=pl.lit(False),
                regression_reason=pl.Series([
                    ratio_reason(float(r), float(q), ref_rate) for r, q in zip(
                        extra["selection_rate_regression"], extra["impact_ratio_regression"],
                        strict=True)], dtype=pl.String),
                low_support=support_rows(rows.columns) < self.min_support,
                is_reference=pl.lit(False),
                verdict=pl.Series(extra["verdict"], dtype=pl.String),
            ).select(self.schema.names()).cast(dict(self.schema))])  # type: ignore[arg-type]
        return out.sort([self.attribute, *self.keys], nulls_last=True, maintain_order=True)

    def _reference_figures(self, base: pl.DataFrame, cols: dict[str, FloatArray],
                           fits: list[CellFit], ref: int | None) -> dict[str, Any] | None:
        """The reference's rates, sizes and regression variance (for the missing group)."""
        if ref is None:
            return None
        cell, k = divmod(ref, len(self.groups))
        return {**{f"selection_rate_{e}": cols[f"selection_rate_{e}"][ref] for e in ESTIMATORS},
                "size_weighted": base["n_effective"][ref], "size_argmax": base["__pf_a_rows"][ref],
                "low_regression": cols["selection_rate_regression_ci_low"][ref],
                "high_regression": cols["selection_rate_regression_ci_high"][ref]}

    def _rate(self, base: pl.DataFrame, fits: list[CellFit],
              rate: str) -> dict[str, FloatArray]:
        weight = base["weight_sum"].to_numpy().astype(np.float64)
        rows = base["__pf_a_rows"].to_numpy().astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            # weighted sums become effective rows (Kish), as row_scale does for intervals
            scales = {"weighted": np.where(weight > 0, base["n_effective"].to_numpy() / weight,
                                           0.0),
                      "argmax": np.where(base["__pf_a_w"].to_numpy() > 0,
                                         rows / base["__pf_a_w"].to_numpy(), 0.0)}
        out: dict[str, FloatArray] = {}
        for e, prefix in (("weighted", ""), ("argmax", "__pf_a_")):
            xs, ds = _fractions(base, rate, prefix)
            with np.errstate(divide="ignore", invalid="ignore"):
                est = np.where(ds > 0, xs / ds, np.nan)
            size = ds * scales[e]
            low, high = stats.wilson_interval(np.minimum(xs * scales[e], size), size,
                                              level=self.level)
            out[f"{rate}_{e}"], out[f"{rate}_{e}_ci_low"], out[f"{rate}_{e}_ci_high"] = (
                est, low, high)
        est = np.concatenate([f.rates[rate][0] for f in fits])
        var = np.concatenate([np.diag(f.rates[rate][1]) for f in fits])
        size = np.concatenate([f.sizes.get(rate, np.full(len(self.groups), np.nan))
                               for f in fits])
        out[f"{rate}_regression"] = est
        out[f"{rate}_regression_ci_low"], out[f"{rate}_regression_ci_high"] = rate_interval(
            est, var, size, level=self.level)
        return out

    def _reference(self, base: pl.DataFrame, cols: dict[str, FloatArray]) -> int | None:
        """The reference's row in ``base``, chosen in the report's (sorted) order."""
        group = [self.attribute, *self.keys]
        eligible = known(group) & (pl.col("n") > 0)
        per = base.select(*group, pl.col("weight_sum").alias("n"), "weight_sum", "n_effective",
                          pl.Series("__pf_score", cols["selection_rate_weighted"],
                                    nan_to_null=True)).with_row_index("__pf_row")
        per = per.sort(group, nulls_last=True, maintain_order=True)
        i = self.reference.index(per.drop("__pf_row"), group, eligible=eligible,
                                 score=per["__pf_score"],
                                 rules=("largest", "max_selection_rate"),
                                 min_support=self.min_support)
        return None if i is None else int(per["__pf_row"][i])

    def _correlation(self, table: pl.DataFrame, fits: list[CellFit], ref: int | None
                     ) -> FloatArray:
        """Each row's weighted selection rate's correlation with the reference's (shared rows).

        :mod:`polars_fair.analyses.membership_covariance`; 0 outside the reference's cell of
        the keys (disjoint rows) and for the reference itself.
        """
        k = len(self.groups)
        rho = np.zeros(len(fits) * k)
        if ref is None:
            return rho
        ref_cell, ref_k = divmod(ref, k)
        _, cov = selection_rate_covariance(table, self.keys, k)[fits[ref_cell].key]
        rho[ref_cell * k:(ref_cell + 1) * k] = selection_rate_correlation(cov, ref_k)
        return rho

    def _impact(self, base: pl.DataFrame, cols: dict[str, FloatArray], fits: list[CellFit],
                ref: int | None, rho: FloatArray) -> dict[str, FloatArray]:
        h = base.height
        out: dict[str, FloatArray] = {}
        if ref is None:
            for e in ESTIMATORS:
                for s in ("", "_ci_low", "_ci_high"):
                    out[f"impact_ratio_{e}{s}"] = np.full(h, np.nan)
            return out
        for e in ("weighted", "argmax"):
            rate = cols[f"selection_rate_{e}"]
            size = base["n_effective" if e == "weighted" else "__pf_a_rows"].to_numpy() \
                .astype(float)
            x = np.minimum(np.nan_to_num(rate) * size, size)
            with np.errstate(divide="ignore", invalid="ignore"):
                out[f"impact_ratio_{e}"] = np.where(rate[ref] > 0, rate / rate[ref], np.nan)
            # the weighted rates share rows (correlated); argmax groups are disjoint rows
            low, high = stats.ratio_interval(x, size, x[ref], size[ref], level=self.level,
                                             correlation=rho if e == "weighted" else 0.0)
            if np.isfinite(out[f"impact_ratio_{e}"][ref]):  # the reference over itself: exactly 1
                low[ref] = high[ref] = 1.0
            out[f"impact_ratio_{e}_ci_low"], out[f"impact_ratio_{e}_ci_high"] = low, high
        out.update(_regression_ratio(cols, fits, ref))
        return out

    def _verdicts(self, cols: dict[str, FloatArray], ref: int | None, h: int) -> list[str | None]:
        lows = np.array([cols[f"impact_ratio_{e}_ci_low"] for e in ESTIMATORS])
        highs = np.array([cols[f"impact_ratio_{e}_ci_high"] for e in ESTIMATORS])
        points = np.array([cols[f"impact_ratio_{e}"] for e in ESTIMATORS])
        out: list[str | None] = []
        for i in range(h):
            if ref is None or i == ref:
                out.append(None if i == ref else "indeterminate")
                continue
            lo, hi, pt = lows[:, i], highs[:, i], points[:, i]
            if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))
                    and np.all(np.isfinite(pt))):
                out.append("indeterminate")
            elif np.all(lo >= self.threshold):
                out.append("pass")
            elif np.all(hi < self.threshold):
                out.append("fail")
            else:
                out.append("indeterminate")
        return out


def _regression_ratio(cols: dict[str, FloatArray], fits: list[CellFit],
                      ref: int) -> dict[str, FloatArray]:
    """MOVER-R on the regression rates' intervals, with their sandwich correlation.

    Each group's selection rate over the reference's (unclipped estimates, null when the
    reference's is not positive or the group's is negative), from the two rates' own
    intervals (:func:`rate_interval`, never a point) by
    :func:`polars_fair.core.stats.mover_ratio`, with the correlation of the two estimates
    from the joint sandwich when they are in the same cell of the keys (0 otherwise, or where
    a variance is 0). The reference over itself is exactly 1, the interval [1, 1].
    """
    est = cols["selection_rate_regression"]
    low, high = cols["selection_rate_regression_ci_low"], cols["selection_rate_regression_ci_high"]
    k = len(fits[0].rates["selection_rate"][0]) if fits else 0
    cov = [f.rates["selection_rate"][1] for f in fits]
    ref_cell, ref_k = divmod(ref, k)
    var = np.concatenate([np.diag(c) for c in cov])
    cross = np.concatenate([c[:, ref_k] if i == ref_cell else np.zeros(k)
                            for i, c in enumerate(cov)])
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where((var > 0) & (var[ref] > 0), cross / np.sqrt(var * var[ref]), 0.0)
        ok = (est >= 0) & (est[ref] > 0)
        ratio = np.where(ok, est / est[ref], np.nan)
    r_low, r_high = stats.mover_ratio(est, low, high, est[ref], low[ref], high[ref],
                                      correlation=np.nan_to_num(rho))
    r_low, r_high = np.where(ok, r_low, np.nan), np.where(ok, r_high, np.nan)
    if ok[ref]:
        r_low[ref] = r_high[ref] = 1.0
    return {"impact_ratio_regression": ratio, "impact_ratio_regression_ci_low": r_low,
            "impact_ratio_regression_ci_high": r_high}


def _base(table: pl.DataFrame, m: Membership, keys: list[str], weighted: bool,
          fits: list[CellFit]) -> pl.DataFrame:
    """One row per (cell, group) in the fits' order, with both estimators' count tables.

    The weighted count table (``n, tp, fp, fn, tn, weight_sum, n_effective, attenuation``
    [, ``row_weight_sum``]: what the support size reads) and the
    argmax one (``__a_n, __a_tp, ...``, ``__a_w``) of :mod:`polars_fair.counting.
    membership_counts`, the one definition of those estimators; 0 where a group has no rows.
    """
    k = len(m.groups)
    key_rows = [f.key for f in fits]
    cols: dict[str, Any] = {m.attribute: pl.Series(m.attribute, list(m.groups) * len(fits),
                                                   dtype=m.key_dtype)}
    for i, key in enumerate(keys):
        cols[key] = pl.Series(key, [c[i] for c in key_rows for _ in range(k)],
                              dtype=table.schema[key])
    group = [m.attribute, *keys]
    cells = ("tp", "fp", "fn", "tn")
    w = weighted_counts(table, m, keys)  # n and row_weight_sum: the support size
    w = w.select(*group, "n", *cells, "weight_sum", "n_effective", "attenuation",
                 *(c for c in ("row_weight_sum",) if c in w.columns))
    a = argmax_counts(table, m, keys, weighted)
    # the rows an interval counts: of positive weight with sample weights (as in the crisp
    # audit: a row of weight 0 is no observation), else every row
    a = a.select(
        *group, *(pl.col(c).alias(f"__pf_a_{c}") for c in ("n", *cells)),
        (pl.col("weight_sum") if weighted else pl.col("n").cast(pl.Float64)).alias("__pf_a_w"),
        pl.col(support_size(a.columns)).alias("__pf_a_rows"))
    out = (pl.DataFrame(cols)
           .join(w, on=group, how="left", nulls_equal=True, maintain_order="left")
           .join(a, on=group, how="left", nulls_equal=True, maintain_order="left"))
    zero = [c for c in out.columns if c not in (*group, "attenuation")]
    return out.with_columns(pl.col(zero).fill_null(0)).with_columns(
        pl.col("__pf_a_n").cast(pl.Int64).alias("n_argmax"))


def _fractions(base: pl.DataFrame, rate: str, prefix: str) -> tuple[FloatArray, FloatArray]:
    """A rate's numerator and denominator from a count table's cells (``prefix``: argmax)."""
    col = {c: base[f"{prefix}{c}"].to_numpy().astype(np.float64)
           for c in ("tp", "fp", "fn", "tn")}
    every: FloatArray = col["tp"] + col["fp"] + col["fn"] + col["tn"]
    return {"selection_rate": (col["tp"] + col["fp"], every),
            "tpr": (col["tp"], col["tp"] + col["fn"]),
            "fpr": (col["fp"], col["fp"] + col["tn"])}[rate]


def _outside_unit(cols: dict[str, FloatArray], rates: Sequence[str],
                  reasons: list[str | None]) -> Any:
    """Flag regression rates outside [0, 1]; null an interval that lies wholly outside.

    The linear estimator is unbiased, not bounded: an estimate outside [0, 1] is shown clipped
    (:func:`_clip`) with its reason (:data:`REASON_CLIPPED`). When its whole Wald interval lies
    outside too, clipping would collapse it to the point [0, 0] or [1, 1], a certainty the data
    do not give: the interval is set to NaN (null) instead, with :data:`REASON_OUTSIDE`.
    ``reasons`` (one per row) gains the text; returns the Boolean ``regression_clipped``.
    """
    clipped = np.zeros(len(reasons), dtype=bool)
    for rate in rates:
        est = cols[f"{rate}_regression"]
        low, high = cols[f"{rate}_regression_ci_low"], cols[f"{rate}_regression_ci_high"]
        out = np.isfinite(est) & ((est < 0.0) | (est > 1.0))
        away = out & np.isfinite(low) & np.isfinite(high) & ((high < 0.0) | (low > 1.0))
        for i in np.flatnonzero(out):
            text = (REASON_OUTSIDE.format(rate=rate, value=est[i], low=low[i], high=high[i])
                    if away[i] else REASON_CLIPPED.format(rate=rate, value=est[i]))
            reasons[i] = _joined(reasons[i], text)
        cols[f"{rate}_regression_ci_low"] = np.where(away, np.nan, low)
        cols[f"{rate}_regression_ci_high"] = np.where(away, np.nan, high)
        clipped |= out
    return clipped


def ratio_reason(rate: float, ratio: float, reference: float | None) -> str | None:
    """Why a group's ``impact_ratio_regression`` is null, or None (it is not, or said already).

    The regression's impact ratio is the group's unclipped selection-rate estimate over the
    reference's, defined where the reference's is positive and the group's is not negative
    (:func:`_regression_ratio`); a ratio is never shown outside [0, inf). A group whose own
    estimate is null already has its reason (the fit's, :class:`CellFit`); without a
    reference the verdict is "indeterminate" for every group.

    Parameters
    ----------
    rate : float
        The group's selection-rate estimate (NaN: null).
    ratio : float
        Its ``impact_ratio_regression`` (NaN: null).
    reference : float, optional
        The reference's estimate (NaN: null); None without a reference.

    Returns
    -------
    str or None
        :data:`REASON_RATIO_REFERENCE` or :data:`REASON_RATIO_NEGATIVE`, filled in.

    Examples
    --------
    >>> ratio_reason(0.3, float("nan"), 0.0).split(": ")[1]
    "the reference's selection_rate estimate (0) is not positive, so a ratio to it is undefined"
    >>> ratio_reason(-0.05, float("nan"), 0.4).split(": ")[1]
    "the group's selection_rate estimate (-0.05) is negative"
    >>> ratio_reason(0.3, 0.75, 0.4) is None
    True
    """
    if reference is None or np.isfinite(ratio) or not np.isfinite(rate):
        return None
    if not reference > 0:
        shown = f"{reference:.4g}" if np.isfinite(reference) else "null"
        return REASON_RATIO_REFERENCE.format(value=shown)
    return REASON_RATIO_NEGATIVE.format(value=rate) if rate < 0 else None


def _joined(first: str | None, second: str | None) -> str | None:
    """Two reasons as one text ("; " between them), either of them possibly None."""
    return first if second is None else second if first is None else f"{first}; {second}"


def _clip(values: FloatArray) -> FloatArray:
    return np.clip(values, 0.0, 1.0)
