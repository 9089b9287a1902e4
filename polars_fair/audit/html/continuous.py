"""The audit page of a continuous outcome: group means, their gaps and the SMD, no invented rule.

:func:`continuous_html` counts the rows once into a moment table (:func:`polars_fair.moments`)
and lays out ``continuous_report`` (per group ``n``, mean and sd; against the reference the
mean difference with Welch's interval and p-value and the standardized mean difference; with
``y_true`` the residual metrics) and each group's mean with its t interval
(:func:`polars_fair.analyses.continuous.mean_intervals`).

The page, in order (:data:`CONTINUOUS_SECTIONS`, one builder each): the header; the
**verdict**, which says that no pass/fail rule is applied (no law sets one for a continuous
outcome; the SMD's "small / medium / large" are Cohen's conventions, not limits) and lists each
group's gap, its interval and its SMD; the provenance; the data; the table per group (and the
residual table); the chart of the group means with their intervals; the definitions; and the
tables as JSON (keys :data:`CONTINUOUS_DATA_KEYS`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import polars as pl

from polars_fair._docs import borrow
from polars_fair.analyses.continuous import SmdSd
from polars_fair.audit.html import outcomes
from polars_fair.audit.html.charts import Chart, unvalidated
from polars_fair.audit.html.multiclass import multiclass_html
from polars_fair.audit.html.outcomes import (
    OutcomePage,
    PageArgs,
    data_block_html,
    data_html,
    on_page,
)
from polars_fair.audit.html.provenance import _json_rows
from polars_fair.audit.html.text import (
    CHART_PAGE_GROUPS,
    UNDEFINED,
    _attempt,
    _esc,
    _group,
    _interval,
    _key,
    _names,
    _num,
    _p,
    _rows,
    _table,
)
from polars_fair.core.limits import with_limits
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import By, IntoExpr, NullGroups

__all__ = ["CONTINUOUS_DATA_KEYS", "CONTINUOUS_DEFINITIONS", "CONTINUOUS_SECTIONS",
           "NO_RULE", "SMD_CONVENTIONS", "continuous_html", "smd_size"]

#: The keys of the continuous page's JSON block.
CONTINUOUS_DATA_KEYS = ("provenance", "continuous_report", "mean_intervals")
#: Cohen's conventional sizes of a standardized mean difference (|SMD| from each bound up).
SMD_CONVENTIONS = ((0.8, "large"), (0.5, "medium"), (0.2, "small"), (0.0, "negligible"))
#: What the verdict says of rules: none is applied.
NO_RULE = (
    "No pass/fail rule is applied: no law or regulation sets a limit for a gap in a "
    "continuous outcome, and this page invents none. The size words of the SMD are Cohen's "
    "conventions for effect sizes (|SMD| 0.2 small, 0.5 medium, 0.8 large; Cohen 1988, "
    "Statistical Power Analysis, ch. 2), not legal or regulatory thresholds; fair-lending "
    "reviews that use the SMD set their own."
)
#: (quantity, definition, source) of every figure of the continuous page.
CONTINUOUS_DEFINITIONS: tuple[tuple[str, str, str], ...] = (
    ("Mean, sd", "the group's mean of the outcome and its standard deviation (ddof 1); with "
     "frequency weights, weighted, N the weight sum", "—"),
    ("Interval of a mean", "mean ± t(N − 1) · sd / √N", "Student 1908"),
    ("Mean difference", "the group's mean − the reference's, with Welch's interval and "
     "two-sided p-value (Welch–Satterthwaite degrees of freedom)", "Welch 1947"),
    ("SMD", "mean difference / sd: by default the pooled sd of the group and the reference "
     "(Cohen's d); with smd_sd='population' the sd over every audited row (SolasAI's "
     "denominator, which it reports × 100)", "Cohen 1988; SolasAI standardized_mean_difference"),
    ("Residual", "ŷ − y: mean residual, MAE = Σ|e|/N, RMSE = √(mean² + M₂/N), their ratios to "
     "the reference's, and the residual SMD", "holisticai regression metrics; SolasAI residual "
     "SMD"),
    ("Low support", "n < min_support: shown, not chosen as the reference",
     "too few rows to trust the figures"),
)


def smd_size(smd: float | None) -> str:
    """The conventional size word of an SMD (:data:`SMD_CONVENTIONS`), or "—" when undefined.

    Parameters
    ----------
    smd : float or None
        A standardized mean difference.

    Returns
    -------
    str
        "large", "medium", "small", "negligible", or "—".

    Examples
    --------
    >>> smd_size(-0.55), smd_size(0.19), smd_size(None)
    ('medium', 'negligible', '—')
    """
    if smd is None:
        return UNDEFINED
    return next(word for bound, word in SMD_CONVENTIONS if abs(smd) >= bound)


@dataclass(frozen=True)
class MomentPage(OutcomePage):
    """Everything the continuous page shows, computed once, for the section builders."""

    means: pl.DataFrame
    level: float
    smd_sd: SmdSd


#: A section of the continuous page: the context in, its HTML out ("" leaves it out).
MomentSection = Callable[[MomentPage], str]


@borrow(multiclass_html, params=("null_groups", "where", "title, model, note", "source, path",
                                "output", "filters", "rows_read", "max_groups", "generated",
                                "combinations"),
        sections=("Returns",))
@with_limits
@outcomes.page_args("Continuous outcome audit")
def continuous_html(
    data: pl.DataFrame | pl.LazyFrame,
    by: By,
    *,
    y_pred: IntoExpr,
    y_true: IntoExpr | None = None,
    reference: Any = DEFAULTS.reference,
    min_support: int = DEFAULTS.min_support,
    level: float = DEFAULTS.level,
    smd_sd: SmdSd = "pooled",
    sample_weight: IntoExpr | None = None,
    null_groups: NullGroups = "keep",
    where: str | pl.Expr | None = None,
    **page: Unpack[PageArgs],
) -> str:
    """Write the audit of a continuous outcome as one self-contained HTML document.

    One scan of the rows into the moment table (:func:`polars_fair.moments`); the page shows
    ``continuous_report`` (per group ``n``, mean, sd; against the reference the mean
    difference with Welch's interval and p-value and the SMD; with ``y_true`` the residual
    metrics) and each group's mean with its t interval, verdict first: it says that no
    pass/fail rule is applied (:data:`NO_RULE`) and lists each group's gap
    (:mod:`polars_fair.audit.html.continuous`).

    Parameters
    ----------
    data : pl.DataFrame or pl.LazyFrame
        The rows.
    by : str, pl.Expr or list of them
        One attribute set (several attributes: their intersection).
    y_pred : str or pl.Expr
        The continuous outcome or prediction (numeric, finite).
    y_true : str or pl.Expr, optional
        The observed value: adds the residual ``y_pred − y_true`` (MAE, RMSE, residual SMD).
    reference : "largest", a group value, tuple or mapping, default "largest"
        The reference group.
    min_support : int, default 30
        Groups with fewer rows are low support.
    level : float, default 0.95
        The confidence level of every interval.
    smd_sd : {"pooled", "population"}, default "pooled"
        The sd that scales the SMD.
    sample_weight : str or pl.Expr, optional
        Frequency weights.

    Raises
    ------
    InvalidArgumentError
        Bad page arguments, as :func:`multiclass_html` (before any read); bad options, as
        ``continuous_report``.
    ImportError, SizeLimitError
        As :func:`multiclass_html`.
    PolarsFairError
        Bad input, as :func:`polars_fair.moments` (a missing or non-numeric column, NaN or
        infinite values, ...).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.audit.html import continuous_html, page_data
    >>> df = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "rate": [1.0, 2, 3, 2, 3, 4]})
    >>> page = continuous_html(df, "g", y_pred="rate", min_support=1)
    >>> sorted(page_data(page)), "No pass/fail rule is applied" in page
    (['continuous_report', 'mean_intervals', 'provenance'], True)
    """
    rows = outcomes.page_rows("continuous_html", data, by, where, page)
    from polars_fair.analyses.continuous import mean_intervals
    from polars_fair.api.continuous import from_moments, moments

    counted = moments(rows.audited, by, y_pred=y_pred, y_true=y_true,
                      sample_weight=sample_weight, null_groups=null_groups)
    table = counted.frame.collect()  # the one scan; every table below is from it
    keys = list(counted.keys)
    report = from_moments(table, keys).continuous_report(
        reference=reference, min_support=min_support, level=level, smd_sd=smd_sd).collect()
    context = outcomes.outcome_page(
        MomentPage, rows, page, report, keys,
        {"y_pred": y_pred, "y_true": y_true, "reference": reference, "min_support": min_support,
         "sample_weight": sample_weight, "null_groups": null_groups, "where": where},
        {"level": level, "smd_sd": smd_sd}, int(report["n"].sum()),
        means=mean_intervals(report, keys, level=level), level=level, smd_sd=smd_sd)
    with unvalidated():
        context = _with_chart(context)
    return outcomes.written(rows, page["title"], CONTINUOUS_SECTIONS, context)


def _with_chart(p: MomentPage) -> MomentPage:
    """The page with its chart: each drawn group's mean with its interval."""
    from dataclasses import replace

    from polars_fair.audit.outcome_plot import means_chart

    drawn = p.shown.head(CHART_PAGE_GROUPS)
    flags = p.report.select(*p.keys, "is_reference", "low_support")
    means = (p.means.join(flags, on=p.keys, how="left", nulls_equal=True,
                          maintain_order="left") if p.keys else
             p.means.with_columns(flags.select("is_reference", "low_support")))
    if p.keys:
        means = on_page(means, drawn, p.keys)
    not_drawn = p.shown.height - drawn.height + len(p.left_out)
    tail = (f" {not_drawn} group(s) not drawn (the chart shows the reference and the "
            f"{drawn.height - 1} largest others)." if not_drawn else "")
    chart: Chart = (
        "Mean by group", (f"Each group's mean of {p.y_pred} with its {p.level:.0%} t interval; "
                          "black: the reference group, its mean the dashed line; faint: low "
                          f"support (fewer than {_rows(p.min_support)}).{tail}"),
        _attempt(lambda: means_chart(means, p.keys, y_title=p.y_pred)))
    return replace(p, charts=[chart])


def _name(r: dict[str, Any], keys: Sequence[str]) -> str:
    return _esc(_group(r, keys)) if keys else "everyone"


def _signed(x: Any, fmt: str = "{:+.3f}") -> str:
    return _num(x, fmt).replace("-", "−")


def _p_words(x: Any) -> str:
    text = _p(x)
    return f"p {text}" if text.startswith("&lt;") else f"p = {text}"


def moment_verdict_section(p: MomentPage) -> str:
    """No rule applied, said first; then each group's gap, its interval and its SMD."""
    alpha = 1 - p.level
    others = p.report.filter(~pl.col("is_reference"))
    rows, classes = [], []
    for r in others.iter_rows(named=True):
        beyond = (UNDEFINED if r["p_value"] is None else
                  "yes" if r["p_value"] <= alpha + 1e-12 else "no")
        rows.append([f"<b>{_name(r, p.keys)}</b>", _num(r["n"]), _signed(r["mean_difference"]),
                     _interval(r["ci_low"], r["ci_high"]), _p(r["p_value"]), beyond,
                     _signed(r["smd"]), smd_size(r["smd"]),
                     *([_signed(r["residual_smd"]), smd_size(r["residual_smd"])]
                       if p.y_true is not None else [])])
        classes.append("low" if r["low_support"] else "")
    header = ["group", "n", "mean difference", f"{p.level:.0%} CI", "p (Welch)",
              f"beyond chance (p ≤ {alpha:.2g})", "SMD", "size (Cohen's convention)",
              *(["residual SMD", "size"] if p.y_true is not None else [])]
    parts = ["<h2>Verdict: no rule applied</h2>", f'<p class="caveat">{_esc(NO_RULE)}</p>',
             f"<p>Each group against the reference group <b>{_esc(p.ref_label)}</b> (mean "
             f"{_num(_ref_mean(p), '{:,.4g}')}). Each p-value is the group's own, not adjusted "
             "for the number of groups compared.</p>"]
    parts.append(_table(header, rows, numeric=[1, 2, 3, 4, 6], row_classes=classes)
                 if rows else "<p>No group besides the reference.</p>")
    low = [_group(r, p.keys) for r in p.report.filter(pl.col("low_support")).iter_rows(
        named=True)] if p.keys else []
    if low:
        parts.append(f"<p>Low support (fewer than {_rows(p.min_support)}; grey): "
                     f"{_esc(_names(low))}.</p>")
    return "\n".join(parts)


def _ref_mean(p: MomentPage) -> Any:
    ref = p.report.filter(pl.col("is_reference"))
    return ref["mean"][0] if ref.height else None


def moment_data_section(p: MomentPage) -> str:
    """The rows read, filtered and audited, the groups, the columns, low support."""
    columns = [("outcome", p.y_pred)]
    if p.y_true is not None:
        columns.append(("observed value (residual = outcome − observed)", p.y_true))
    low = [_group(r, p.keys) for r in p.report.filter(pl.col("low_support")).iter_rows(
        named=True)] if p.keys else []
    return data_html(p.rows, int(p.prov["rows"]["audited"]), p.keys, p.report.height,
                     p.left_out, p.null_groups, p.where, columns, low, p.min_support)


def moment_tables_section(p: MomentPage) -> str:
    """Per shown group: n, mean with its interval, sd, the gap with Welch's interval, SMD."""
    report = on_page(p.report, p.shown, p.keys) if p.keys else p.report
    means = on_page(p.means, p.shown, p.keys) if p.keys else p.means
    level = f"[{p.level:.0%} CI]"
    rows, classes = [], []
    for r, m in zip(report.iter_rows(named=True), means.iter_rows(named=True), strict=True):
        rows.append([*(_esc(_key(r[k])) for k in p.keys), _num(r["n"]),
                     _num(r["mean"], "{:,.4f}") + " " + _interval(
                         m["mean_ci_low"], m["mean_ci_high"], "{:,.4f}"),
                     _num(r["std"], "{:,.4f}"),
                     _signed(r["mean_difference"], "{:+,.4f}") + " " + _interval(
                         r["ci_low"], r["ci_high"], "{:,.4f}"),
                     _p(r["p_value"]), _signed(r["smd"]),
                     "reference" if r["is_reference"] else
                     "low support" if r["low_support"] else ""])
        classes.append("low" if r["low_support"] else "")
    first = len(p.keys)
    scale = ("the pooled sd of the group and the reference (Cohen's d)" if p.smd_sd == "pooled"
             else "the sd over every audited row (smd_sd='population')")
    parts = [f"<h2>{_esc(p.y_pred)} by group</h2>",
             f"<p>SMD: the mean difference over {scale}.</p>",
             _table([*p.keys, "n", f"mean {level}", "sd", f"difference {level}", "p (Welch)",
                     "SMD", "note"], rows, numeric=range(first, first + 6),
                    row_classes=classes, nowrap=True)]
    if p.y_true is not None:
        parts.append(_residual_table(p, report))
    return "\n".join(parts)


def _residual_table(p: MomentPage, report: pl.DataFrame) -> str:
    rows, classes = [], []
    for r in report.iter_rows(named=True):
        rows.append([*(_esc(_key(r[k])) for k in p.keys), _num(r["n"]),
                     _num(r["mean_true"], "{:,.4f}"), _signed(r["mean_residual"], "{:+,.4f}"),
                     _num(r["mae"], "{:,.4f}"), _num(r["rmse"], "{:,.4f}"),
                     _num(r["mae_ratio"], "{:.3f}"), _num(r["rmse_ratio"], "{:.3f}"),
                     _signed(r["residual_difference"], "{:+,.4f}"),
                     _p(r["residual_p_value"]), _signed(r["residual_smd"])])
        classes.append("low" if r["low_support"] else "")
    first = len(p.keys)
    return "\n".join([
        f"<h3>Residuals ({_esc(p.y_pred)} − {_esc(p.y_true or '')})</h3>",
        "<p>A positive mean residual over-predicts the group; the MAE and RMSE ratios are "
        "the group's over the reference's (above 1: larger errors).</p>",
        _table([*p.keys, "n", "observed mean", "mean residual", "MAE", "RMSE", "MAE ratio",
                "RMSE ratio", "residual difference", "p (Welch)", "residual SMD"], rows,
               numeric=range(first, first + 10), row_classes=classes, nowrap=True)])


def moment_data_block_section(p: MomentPage) -> str:
    """The page's tables as JSON (:data:`CONTINUOUS_DATA_KEYS`)."""
    return data_block_html({"provenance": p.prov, "continuous_report": _json_rows(p.report),
                            "mean_intervals": _json_rows(p.means)})


#: The sections of the continuous page, in order.
CONTINUOUS_SECTIONS: tuple[MomentSection, ...] = (
    outcomes.outcome_header_section,
    moment_verdict_section,
    outcomes.outcome_provenance_section,
    moment_data_section,
    moment_tables_section,
    outcomes.outcome_charts_section,
    outcomes.definitions_section(CONTINUOUS_DEFINITIONS),
    moment_data_block_section,
)
