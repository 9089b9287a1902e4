"""The continuous report: group means, Welch's test and standardized mean differences.

One plan over a moment table (:mod:`polars_fair.counting.moments`): per group the mean and
standard deviation of a continuous outcome or prediction, its difference from a reference group
with Welch's interval and p-value, the standardized mean difference (SMD) and, with labels, the
residual error (mean residual, MAE, RMSE, their ratios to the reference, the residual SMD).
Every figure is a formula over ``n`` (or the weight sum), the means and the centred sums of
squares, so the rows are read once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np, sps
from polars_fair.analyses.membership_regression import normal_quantile
from polars_fair.analyses.runner import check_clash
from polars_fair.core.options import DEFAULTS, check
from polars_fair.core.reference import Reference, known
from polars_fair.counting.moment_merge import LOW, merge_moments

__all__ = ["REPORT_COLUMNS", "SMD_SD", "continuous_report_from_moments", "mean_intervals",
           "report_schema"]

SmdSd = Literal["pooled", "population"]
#: The accepted ``smd_sd`` values.
SMD_SD = ("pooled", "population")
BAD_SMD_SD = "smd_sd must be 'pooled' or 'population', got {value!r}"

_BASE = ("mean", "std", "low_support", "is_reference", "mean_difference", "ci_low", "ci_high",
         "p_value", "smd")
_RESIDUAL = ("mean_true", "mean_residual", "mae", "rmse", "mae_ratio", "rmse_ratio",
             "residual_difference", "residual_p_value", "residual_smd")
#: Every column the report adds to the keys (``weight_sum`` when weighted, the residual ones
#: with ``y_true``): a key may not be named like one (:func:`continuous_report_from_moments`).
REPORT_COLUMNS = ("n", "weight_sum", *_BASE, *_RESIDUAL)


def report_schema(moment_schema: pl.Schema, keys: Sequence[str]) -> pl.Schema:
    """The report's fixed schema for a moment table's schema.

    Parameters
    ----------
    moment_schema : pl.Schema
        The moment table's schema (:func:`polars_fair.counting.moments.moment_schema`).
    keys : sequence of str
        Its keys.

    Returns
    -------
    pl.Schema
        The keys, ``n`` (Int64), ``weight_sum`` (weighted only), then Float64 figures and the
        Boolean ``low_support`` and ``is_reference``; see :func:`continuous_report_from_moments`.

    Examples
    --------
    >>> s = pl.Schema({"g": pl.String, "n": pl.Int64, "mean_pred": pl.Float64,
    ...                "m2_pred": pl.Float64})
    >>> report_schema(s, ["g"]).names()[:5]
    ['g', 'n', 'mean', 'std', 'low_support']
    """
    cols: list[tuple[str, pl.DataType]] = [(k, moment_schema[k]) for k in keys]
    cols.append(("n", pl.Int64()))
    if "weight_sum" in moment_schema:
        cols.append(("weight_sum", pl.Float64()))
    names = list(_BASE) + (list(_RESIDUAL) if "mean_residual" in moment_schema else [])
    flags = ("low_support", "is_reference")
    cols += [(c, pl.Boolean() if c in flags else pl.Float64()) for c in names]
    return pl.Schema(cols)


def _nullable(x: Any) -> Any:
    """Float array with every NaN or infinity as None (undefined is null, never NaN)."""
    out = np.asarray(x, dtype=np.float64)
    return [None if not np.isfinite(v) else float(v) for v in out]


def _welch(diff: Any, v1: Any, s1: Any, v0: Any, s0: Any, level: float) -> tuple[Any, ...]:
    """Welch's t: interval half-width and two-sided p-value, elementwise (NaN where undefined).

    ``v0`` and ``s0`` (the reference's variance and size) are NumPy floats, never Python ones:
    a reference of size 1 or less divides by ``s0 - 1 <= 0``, which NumPy makes NaN or
    infinite (masked below) where Python raises ``ZeroDivisionError``.
    """
    v0, s0 = np.float64(v0), np.float64(s0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a, b = v1 / s1, v0 / s0
        se = np.sqrt(a + b)
        df = (a + b) ** 2 / (a ** 2 / (s1 - 1) + b ** 2 / (s0 - 1))
        t = diff / se
        ok = (s1 > 1) & (s0 > 1) & (se > 0)
        p = np.where(ok, 2 * sps.t.sf(np.abs(t), df), np.nan)
        half = np.where(ok, sps.t.ppf(0.5 + level / 2, df) * se, np.nan)
    return diff - half, diff + half, p


def _sd_of(m2: Any, size: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(size > 1, np.sqrt(m2 / (size - 1)), np.nan)


def _compare(df: pl.DataFrame, size: Any, ref: int | None, name: str, smd_sd: SmdSd,
             total: pl.DataFrame, level: float) -> dict[str, Any]:
    """Mean, sd, difference, Welch interval and p-value, SMD of one moment (pred, residual)."""
    mean = df[f"mean_{name}"].to_numpy().astype(np.float64)
    m2 = df[f"m2_{name}"].to_numpy().astype(np.float64)
    var = np.where(size > 1, m2 / np.where(size > 1, size - 1, 1), np.nan)
    if ref is None:
        nan = np.full(df.height, np.nan)
        return {"mean": mean, "std": np.sqrt(var), "diff": nan, "low": nan, "high": nan,
                "p": nan, "smd": nan}
    diff = mean - mean[ref]  # exact for close means (Sterbenz); then their low parts
    if name == "pred" and LOW in df.columns:
        part = df[LOW].fill_null(0.0).to_numpy().astype(np.float64)
        diff = diff + (part - part[ref])
    low, high, p = _welch(diff, var, size, var[ref], size[ref], level)
    if smd_sd == "pooled":  # Cohen's d: the pooled sd of the group and the reference
        dof = size + size[ref] - 2  # 0 or below (sizes of 1, weights under 1): undefined
        with np.errstate(divide="ignore", invalid="ignore"):
            sd = np.where(dof > 0, np.sqrt((m2 + m2[ref]) / np.where(dof > 0, dof, 1)), np.nan)
    else:  # the sd over every audited row
        sd = np.full(df.height, float(_sd_of(total[f"m2_{name}"].to_numpy(),
                                              total["__pf_size"].to_numpy())[0]))
    with np.errstate(divide="ignore", invalid="ignore"):
        smd = np.where(sd > 0, diff / sd, np.nan)
    return {"mean": mean, "std": np.sqrt(var), "diff": diff, "low": low, "high": high, "p": p,
            "smd": smd}


def continuous_report_from_moments(
    moments: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: Any = DEFAULTS.reference,
    min_support: float = DEFAULTS.min_support,
    level: float = DEFAULTS.level,
    smd_sd: SmdSd = "pooled",
) -> pl.LazyFrame:
    r"""Per group: the mean of a continuous outcome, its gap to a reference, the SMD.

    For a group g and the reference r, with sizes :math:`N` (rows, or the weight sum),
    means :math:`\bar x`, centred sums of squares :math:`M_2` and variances
    :math:`s^2 = M_2 / (N - 1)`:

    * ``mean_difference`` :math:`= \bar x_g - \bar x_r`, with Welch's interval
      :math:`d \pm t_{(1+level)/2,\nu}\,\sqrt{s_g^2/N_g + s_r^2/N_r}` and two-sided p-value
      (Welch 1947, "The generalization of Student's problem when several different population
      variances are involved"; :math:`\nu` by Welch-Satterthwaite), null when either group has
      fewer than 2 rows or both have no spread;
    * ``smd`` :math:`= d / s`, with ``smd_sd="pooled"`` (default) :math:`s =
      \sqrt{(M_{2,g} + M_{2,r}) / (N_g + N_r - 2)}`, the pooled sd of the two groups (Cohen's
      d; Cohen 1988, *Statistical Power Analysis*, ch. 2), and with ``"population"`` the sd
      (ddof 1) over every audited row, SolasAI's default denominator. SolasAI reports
      :math:`100 \times` that value and a p-value from Student's pooled t; ours is the ratio
      itself, and its p-value is Welch's, which does not assume equal variances;
    * with labels, the residual :math:`e = \hat y - y`: ``mean_residual``, ``mae`` :math:`=
      \sum |e| / N`, ``rmse`` :math:`= \sqrt{\bar e^2 + M_{2,e}/N}`, ``mae_ratio`` and
      ``rmse_ratio`` (the group's over the reference's, as holisticai's ``MAE Ratio`` and
      ``RMSE Ratio``), and ``residual_difference``, ``residual_p_value`` and ``residual_smd``:
      the same comparison of the mean residual (SolasAI's residual SMD). The signed mean
      residual has no ratio: it can be 0 or change sign.

    Weights are frequency weights: a row of weight 3 counts as three rows, so :math:`N` is the
    weight sum, the means are weighted and :math:`s^2 = M_2/(W-1)` with
    :math:`M_2 = \sum w (x-\bar x)^2`. ``min_support`` compares the rows ``n``. Survey weights
    are not frequency weights (their sum is a population size): with them the weighted means,
    sds and SMD hold, Welch's interval and p-value do not.

    Parameters
    ----------
    moments : pl.LazyFrame
        A moment table (:func:`polars_fair.counting.moments.moment_schema`), rolled up to
        ``keys``.
    keys : sequence of str
        The group keys.
    reference : "largest", a group value, tuple or mapping, default "largest"
        The reference group: the group with the most rows among those with at least
        ``min_support`` rows (:mod:`polars_fair.core.reference`), or an explicit group.
    min_support : float, default 30
        Groups with fewer rows are flagged ``low_support`` (and are not chosen by "largest"
        while a supported group exists).
    level : float, default 0.95
        The confidence level of Welch's interval, in (0, 1).
    smd_sd : {"pooled", "population"}, default "pooled"
        The standard deviation that scales the SMD (see above).

    Returns
    -------
    pl.LazyFrame
        One row per group, sorted by the keys: the keys, ``n`` (Int64 rows), ``weight_sum``
        (Float64, weighted only), ``mean`` and ``std`` (Float64: of ``y_pred``, std with
        ddof 1), ``low_support``, ``is_reference`` (Boolean), ``mean_difference``, ``ci_low``,
        ``ci_high``, ``p_value``, ``smd`` (Float64; in sd units), and with ``y_true``
        ``mean_true``, ``mean_residual``, ``mae``, ``rmse``, ``mae_ratio``, ``rmse_ratio``,
        ``residual_difference``, ``residual_p_value``, ``residual_smd`` (Float64). Undefined
        figures are null; without a reference every comparison is null.

    Raises
    ------
    InvalidArgumentError
        A key named like an output column (:data:`REPORT_COLUMNS`); ``level`` outside
        (0, 1), a negative ``min_support``, an unknown ``smd_sd`` or a reference rule other
        than "largest".
    UnknownGroupError
        An explicit reference that is not a group or has no rows (at collect time).

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "b"], "n": [3, 3], "mean_pred": [2.0, 3.0],
    ...                   "m2_pred": [2.0, 2.0]})  # a: 1, 2, 3; b: 2, 3, 4
    >>> r = continuous_report_from_moments(t, ["g"], reference="a", min_support=1).collect()
    >>> r.select("g", "mean", "std", "mean_difference", "smd").rows()
    [('a', 2.0, 1.0, 0.0, 0.0), ('b', 3.0, 1.0, 1.0, 1.0)]
    """
    check_clash(keys, REPORT_COLUMNS, "continuous_report")
    lvl = float(check("level", level))
    support = float(check("min_support", min_support))
    if smd_sd not in SMD_SD:
        raise E.InvalidArgumentError(BAD_SMD_SD.format(value=smd_sd))
    ref = Reference.parse(reference, keys)
    schema = report_schema(moments.collect_schema(), keys)
    keys = list(keys)

    def build(df: pl.DataFrame) -> pl.DataFrame:
        df = df.sort(keys, nulls_last=True) if keys else df
        weighted = "weight_sum" in df.columns
        size_col = "weight_sum" if weighted else "n"
        size = df[size_col].cast(pl.Float64).to_numpy()
        eligible = df.select(known(keys) & (pl.col(size_col) > 0)).to_series()
        idx = ref.index(df, keys, eligible=eligible, rules=("largest",), min_support=support)
        total = merge_moments(df, []).with_columns(
            pl.col(size_col).cast(pl.Float64).alias("__pf_size")).collect()
        out: dict[str, Any] = {k: df[k] for k in keys}
        out["n"] = df["n"].cast(pl.Int64)
        if weighted:
            out["weight_sum"] = df["weight_sum"]
        p = _compare(df, size, idx, "pred", smd_sd, total, lvl)
        out.update(mean=_nullable(p["mean"]), std=_nullable(p["std"]),
                   low_support=(df["n"] < support).to_list(),
                   is_reference=[i == idx for i in range(df.height)],
                   mean_difference=_nullable(p["diff"]), ci_low=_nullable(p["low"]),
                   ci_high=_nullable(p["high"]), p_value=_nullable(p["p"]),
                   smd=_nullable(p["smd"]))
        if "mean_residual" in df.columns:
            r = _compare(df, size, idx, "residual", smd_sd, total, lvl)
            with np.errstate(divide="ignore", invalid="ignore"):
                mae = df["sum_abs_residual"].to_numpy() / size
                rmse = np.sqrt(r["mean"] ** 2 + df["m2_residual"].to_numpy() / size)

                def ratio(x: Any) -> Any:
                    return x / x[idx] if idx is not None else x * np.nan

                out.update(mean_true=_nullable(df["mean_true"].to_numpy()),
                           mean_residual=_nullable(r["mean"]), mae=_nullable(mae),
                           rmse=_nullable(rmse), mae_ratio=_nullable(ratio(mae)),
                           rmse_ratio=_nullable(ratio(rmse)),
                           residual_difference=_nullable(r["diff"]),
                           residual_p_value=_nullable(r["p"]),
                           residual_smd=_nullable(r["smd"]))
        return pl.DataFrame(out).select([pl.col(c).cast(d) for c, d in schema.items()])

    return moments.map_batches(build, schema=schema)


@borrow(normal_quantile, sections=("Raises",))  # the same check of level
def mean_intervals(report: pl.DataFrame, keys: Sequence[str], *,
                   level: float = DEFAULTS.level) -> pl.DataFrame:
    r"""Each group's mean with its Student t interval, from a continuous report.

    :math:`\bar x \pm t_{(1+level)/2,\,N-1}\; s / \sqrt{N}`, with :math:`N` the rows (the
    weight sum with frequency weights) and :math:`s` the report's ``std`` (ddof 1): the
    textbook interval of one mean (Student 1908), null with fewer than 2 rows or no ``std``.
    The comparisons with the reference keep Welch's interval of the difference
    (:func:`continuous_report_from_moments`); this one draws each group's own uncertainty.

    Parameters
    ----------
    report : pl.DataFrame
        The output of :func:`continuous_report_from_moments` (keys, ``n``, [``weight_sum``,]
        ``mean``, ``std``).
    keys : sequence of str
        Its keys.
    level : float, default 0.95
        The confidence level, in (0, 1).

    Returns
    -------
    pl.DataFrame
        The keys, ``mean``, ``mean_ci_low``, ``mean_ci_high`` (Float64), in the report's order.

    Examples
    --------
    >>> r = pl.DataFrame({"g": ["a", "b"], "n": [4, 1], "mean": [2.0, 5.0], "std": [2.0, None]})
    >>> mean_intervals(r, ["g"]).with_columns(pl.col(pl.Float64).round(4)).rows()
    [('a', 2.0, -1.1824, 5.1824), ('b', 5.0, None, None)]
    """
    lvl = float(check("level", level))
    size_col = "weight_sum" if "weight_sum" in report.columns else "n"
    size = report[size_col].cast(pl.Float64).to_numpy()
    mean = report["mean"].cast(pl.Float64).to_numpy()
    sd = report["std"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = size > 1
        half = np.where(ok, sps.t.ppf(0.5 + lvl / 2, np.where(ok, size - 1, 1)) * sd
                        / np.sqrt(np.where(ok, size, 1)), np.nan)
    return report.select(*keys, "mean").with_columns(
        pl.Series("mean_ci_low", _nullable(mean - half), dtype=pl.Float64),
        pl.Series("mean_ci_high", _nullable(mean + half), dtype=pl.Float64))
