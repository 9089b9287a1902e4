"""The audit page composed: :func:`audit_html` checks its arguments, computes, lays out.

The page, in order (:data:`SECTIONS`, one builder each, ``PageContext -> str``): the header;
the **verdict** first (:func:`polars_fair.audit.html.verdict.verdict_section`: PASS or FAIL of
the gate of ``polars-fair check``, each failing rule and group with the figure behind it and
its interval); the **headline**, which states only what is significant after adjustment (each
group's rate against the reference, ``disparity``; ABROCA with the seeded permutation test,
``abroca_test``, the largest significant ABROCA among groups with at least ``min_support``
positives and negatives), anything else labelled "not significant (p = ...)"; the
**provenance** (:func:`polars_fair.audit.html.provenance`: the UTC time, the input file's
name, never its directory, with its SHA-256 and size, the rows read, filtered and audited,
every filter and parameter,
the reference rule and the group it chose, and the versions); the data's size and every row
excluded with the reason; the summary metrics with their verdicts and a plain-language reading
of each finding (algorithmic, systemic, insufficient support) with the label-bias caveat; the
rates with Wilson intervals, the differences and ratios against the reference with intervals
and adjusted p-values, the ABROCA table with p-values; the styled report table
(:func:`polars_fair.audit.style.style_report`); optionally the top ``divergence`` patterns; the
charts as inline SVG (rates with intervals, the pairwise OFI and DI heatmaps, and with
``y_score`` the ROC curves and the calibration small multiples); the definitions of every
quantity with its source; and the tables as JSON in ``<script type="application/json"
id="polars-fair-data">`` (keys :data:`polars_fair.audit.html.DATA_KEYS`, read back with
:func:`polars_fair.audit.html.page_data`), equal to the Python API's results (``abroca_test``:
the test of the groups with at least ``min_support`` positives and negatives, and the
reference).

One spelling of a group everywhere (:func:`polars_fair.core.labels.group_label`: ``"White |
Male"``; a null key reads "(missing)"); "—" means an undefined figure (a zero denominator) and
nothing else. One low-support rule holds across the page: a group with ``n < min_support`` rows
is low support in every table (grey italics), chart (faint, hollow or dashed) and verdict; an
ABROCA is a finding only for a group with at least ``min_support`` positives and negatives
(the metrics' rule on the TPR's and the FPR's own denominators); a calibration bin with fewer
than ``min_support`` rows is marked. The verdicts, findings, gate and JSON tables cover every
group; the tables and charts show at most ``max_groups`` groups, the largest and always the
reference, and name those left out; the charts draw at most
:data:`polars_fair.audit.html.CHART_PAGE_GROUPS` of them.

Every comparison on the page is with one reference group, chosen once by
:func:`polars_fair.audit.gate.resolve_gate_reference`: with ``y_score`` a rule chooses among the
groups that also have both classes. With ``reference="overall"`` the report compares with the
whole population and ABROCA, which needs a group, with the largest group that has a ROC curve.
With ``sample_weight`` the ABROCA test is not run (weights are not exchangeable units).

A new section is one builder (a function ``PageContext -> str`` that returns ``""`` when it has
nothing to show) and one entry in :data:`SECTIONS`.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.audit.html import sections as S
from polars_fair.audit.html.adverse_impact import impact_verdicts, page_strata, strata_section
from polars_fair.audit.html.comparison import (
    change_verdict_section,
    comparison_section,
    page_baseline,
)
from polars_fair.audit.html.context import PageContext, PageText, Provenance, Section, page_context
from polars_fair.audit.html.figures import PageOptions
from polars_fair.audit.html.text import DEFAULT_PAGE_GROUPS
from polars_fair.audit.html.verdict import verdict_section
from polars_fair.core.limits import check_size, with_limits
from polars_fair.core.options import DEFAULTS, Adjust
from polars_fair.core.reference import Reference
from polars_fair.core.spec import By, IntoExpr, NullGroups, check_int

__all__ = ["DIVERGENCE_COLUMNS", "SECTIONS", "audit_html"]

ONE_SET = "audit_html audits one attribute set: by= names columns or expressions, got {by!r}"

#: The columns of a divergence table the page reads
#: (:func:`polars_fair.analyses.divergence.divergence`).
DIVERGENCE_COLUMNS = ("attributes", "n", "divergence", "ci_low", "ci_high", "significant")

def impact_section(p: PageContext) -> str:
    """The adverse-impact columns under the summary metrics (``impact_analysis``, no scan)."""
    return impact_verdicts(p.o, p.t, p.g, p.impact_table)


def strata_page_section(p: PageContext) -> str:
    """With ``strata=``, the groups compared within strata (``stratified``); else nothing."""
    return strata_section(p.o, p.g, p.strata_table, list(p.o.strata) if p.o.strata else None)


#: The sections of the page, in order: each a builder ``PageContext -> str``.
SECTIONS: tuple[Section, ...] = (
    S.header_section,
    verdict_section,
    change_verdict_section,
    S.headline_section,
    S.provenance_section,
    S.data_section,
    S.verdicts_section,
    impact_section,
    strata_page_section,
    comparison_section,
    S.uncertainty_section,
    S.report_section,
    S.divergence_section,
    S.charts_section,
    S.definitions_section,
    S.data_block_section,
)


def _compose(p: PageContext, sections: Sequence[Section] = SECTIONS) -> str:
    """The HTML document: each section's builder in order (one that returns "" adds nothing)."""
    return S.document(p.text.title, [html for build in sections if (html := build(p))])


@with_limits
@borrow(page_baseline, params=("baseline_pred", "max_impact_ratio_drop, max_ofi_increase"))
def audit_html(
    data: pl.DataFrame | pl.LazyFrame,
    by: By,
    *,
    y_true: IntoExpr = "y_true",
    y_pred: IntoExpr | None = None,
    y_score: IntoExpr | None = None,
    threshold: float | None = None,
    pos_label: Any = 1,
    reference: Any = DEFAULTS.reference,
    min_support: int = DEFAULTS.min_support,
    ofi_threshold: float = DEFAULTS.ofi_threshold,
    four_fifths: float = DEFAULTS.four_fifths,
    exclude_low_support: bool = DEFAULTS.exclude_low_support,
    where: str | pl.Expr | None = None,
    null_groups: NullGroups = "keep",
    rates: Sequence[str] = ("selection_rate", "tpr", "fpr"),
    title: str = "Fairness audit",
    source: str | Path | None = None,
    output: str | Path | None = None,
    max_groups: int = DEFAULT_PAGE_GROUPS,
    model: str | None = None,
    note: str | None = None,
    path: str | Path | None = None,
    filters: Sequence[str] = (),
    rows_read: int | None = None,
    level: float = DEFAULTS.level,
    adjust: Adjust = DEFAULTS.adjust,
    n_permutations: int = DEFAULTS.n_permutations,
    seed: int = 0,
    divergence: bool | pl.DataFrame | pl.LazyFrame | None = None,
    generated: _dt.datetime | None = None,
    sample_weight: IntoExpr | None = None,
    strata: str | Sequence[str] | None = None,
    baseline_pred: IntoExpr | None = None,
    max_impact_ratio_drop: float = 0.05, max_ofi_increase: float = 0.05,
) -> str:
    """Write a fairness audit as one self-contained, publishable HTML document.

    The page leads with the verdict (PASS or FAIL, each failing rule and group with its figure
    and interval), then the headline of what is significant after adjustment, the provenance,
    the data, the tables with intervals and tests, the charts, the definitions and the tables
    as JSON (:mod:`polars_fair.audit.html.page` lists every section and its rules).

    Parameters
    ----------
    data : pl.DataFrame or pl.LazyFrame
        The rows to audit (a LazyFrame from ``scan_*`` is read lazily).
    by : str, pl.Expr or list of them
        The attributes of one attribute set (several: their intersection; no ``combinations``).
    y_true, y_pred : str or pl.Expr
        The label column (default ``"y_true"``) and the prediction (default ``"y_pred"``, or
        ``y_score >= threshold`` when ``threshold`` is given).
    y_score : str or pl.Expr, optional
        A score (higher = more likely positive): adds ABROCA, its test, ROC and calibration.
    threshold : float, optional
        Predictions are ``y_score >= threshold`` (``y_pred`` is then not given).
    pos_label : Any, default 1
        The positive (favourable) value of the label and the prediction.
    reference : str, group value or mapping, default "largest"
        The reference group, as in ``df.fair.report``.
    min_support, ofi_threshold, four_fifths : float, default 30, 0.3, 0.8
        The low-support rule (groups and calibration bins with fewer rows; an ABROCA finding
        needs as many positives and negatives), the OFI flag and the four-fifths rule.
    exclude_low_support : bool, default False
        Low-support groups are neither the reference nor the highest selection rate.
    where : str or pl.Expr, optional
        A row filter applied first (SQL text or a Polars expression), counted and recorded.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows with a null attribute: a group reading "(missing)", an error, or left out.
    rates : sequence of str, default ("selection_rate", "tpr", "fpr")
        The metrics of the rates table and chart and of the comparisons with the reference.
    title, model, note : str, optional
        The document's title (default "Fairness audit"), the model audited, a free note.
    source, path : str or pathlib.Path, optional
        The data's origin (file name only) and what to fingerprint (default ``source``).
    output : str or pathlib.Path, optional
        Also write the page there (UTF-8, ``.html`` or ``.htm``).
    max_groups : int, default 50
        The most groups the tables and charts show (the largest, and the reference).
    filters : str or sequence of str, default ()
        Filters applied before ``data`` reached this function (recorded).
    rows_read : int, optional
        Rows in the input before ``filters`` (default: the rows of ``data``).
    level : float, default 0.95
        Confidence level of every interval; significant: adjusted p at most ``1 − level``.
    adjust : {"holm", "bh"}, default "holm"
        The multiplicity adjustment of ``disparity`` over the groups compared.
    n_permutations, seed : int, default 1000, 0
        Permutations and seed of the ABROCA test (with ``y_score``).
    divergence : bool, pl.DataFrame or pl.LazyFrame, optional
        ``True`` computes the FPR's ``divergence`` over every pattern; or a divergence table
        (:data:`DIVERGENCE_COLUMNS`). Adds the top patterns and the JSON key ``divergence``.
    generated : datetime, optional
        The generation time recorded (default now, UTC).
    sample_weight : str or pl.Expr, optional
        A weight column: every count, rate, interval and test is weighted.
    strata : str or sequence of str, optional
        Attributes (not in ``by``) to compare the groups within: adds the strata section and
        the JSON key ``stratified`` (``df.fair.stratified(by, strata)``; one more scan).

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    ImportError
        Without the plot extra (``pip install "polars_fair[plot]"``).
    InvalidArgumentError
        ``by`` is empty; ``strata`` names no attribute or one of ``by``; an integer option is
        not an integer; ``rates`` is empty or names a metric ``disparity`` cannot compare;
        ``filters`` is not text; ``rows_read`` is fewer than the rows of ``data``;
        ``divergence`` lacks :data:`DIVERGENCE_COLUMNS`; ``output`` is a directory, in a
        missing directory or not ``.html``/``.htm`` (before any read).
    SizeLimitError
        ``n_permutations`` above |limit:n_permutations| or ``max_groups`` above
        |limit:page_groups|, before any data is read.
    PolarsFairError
        Bad input, as ``df.fair.report`` (a missing column, a non-binary label, ...).

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.html import audit_html, page_data
    >>> page = audit_html(make_hiring(600, seed=0), "sex", model="screen-v1")
    >>> sorted(page_data(page)), "<h2>Verdict: " in page
    (['disparity', 'impact_analysis', 'metrics', 'provenance', 'report', 'summary'], True)
    """
    page_groups = check_int(max_groups, "max_groups", limit="page_groups")
    check_size(n_permutations, "n_permutations")  # before the first scan, not at the test
    rate_list, filter_list, out_path = _page_arguments(rates, filters, output, divergence,
                                                       rows_read)
    strata_list = page_strata(strata, by)
    o = PageOptions(
        y_true=y_true, y_pred=y_pred, y_score=y_score, threshold=threshold, pos_label=pos_label,
        reference=Reference.parse(reference), min_support=min_support,
        ofi_threshold=ofi_threshold, four_fifths=four_fifths,
        exclude_low_support=exclude_low_support, where=where, null_groups=null_groups,
        rates=rate_list, level=level, adjust=adjust, n_permutations=n_permutations, seed=seed,
        sample_weight=sample_weight, page_groups=page_groups,
        strata=tuple(strata_list) if strata_list else None)
    page = _compose(page_context(
        data.lazy(), by, _by_exprs(by), o, divergence, PageText(title, model, note),
        Provenance(filter_list, rows_read, path if path is not None else source, generated),
        page_baseline(baseline_pred, max_impact_ratio_drop, max_ofi_increase)))
    if out_path is not None:
        out_path.write_text(page, encoding="utf-8")
    return page


def _by_exprs(by: By) -> list[pl.Expr]:
    """The attribute set as expressions (one set: no ``combinations``)."""
    items: list[Any] = [] if by is None else [by] if isinstance(by, (str, pl.Expr)) else list(by)
    if any(not isinstance(b, (str, pl.Expr)) for b in items):
        raise E.InvalidArgumentError(ONE_SET.format(by=by))
    if not items:
        raise E.InvalidArgumentError("audit_html needs at least one attribute in by")
    return [pl.col(b) if isinstance(b, str) else b for b in items]


def page_filters(filters: Any) -> tuple[str, ...]:
    """The filters applied before the page, as a tuple of text (a str is one filter)."""
    filter_list = (filters,) if isinstance(filters, str) else filters
    if not isinstance(filter_list, Sequence) or not all(
            isinstance(f, str) for f in filter_list):
        raise E.InvalidArgumentError(E.PAGE_BAD_FILTERS.format(
            value=filters, type=type(filters).__name__))
    return tuple(filter_list)


def _page_arguments(rates: Any, filters: Any, output: Any, divergence: Any,
                    rows_read: Any) -> tuple[tuple[str, ...], tuple[str, ...], Path | None]:
    """Check the page's own arguments before any data is read (typed errors naming each)."""
    from polars_fair.core.spec import check_int

    rate_list = (rates,) if isinstance(rates, str) else tuple(rates)
    if not rate_list:
        raise E.InvalidArgumentError(E.PAGE_NO_RATES.format(value=rates))
    filter_list = page_filters(filters)
    if isinstance(divergence, (pl.DataFrame, pl.LazyFrame)):
        names = divergence.collect_schema().names()
        if any(c not in names for c in DIVERGENCE_COLUMNS):
            raise E.InvalidArgumentError(E.PAGE_BAD_DIVERGENCE.format(
                needed=list(DIVERGENCE_COLUMNS), value=f"a frame with the columns {names}"))
    elif divergence is not None and not isinstance(divergence, bool):
        raise E.InvalidArgumentError(E.PAGE_BAD_DIVERGENCE.format(
            needed=list(DIVERGENCE_COLUMNS), value=f"{divergence!r} ({type(divergence).__name__})"))
    if rows_read is not None:
        check_int(rows_read, "rows_read", low=0)
    return rate_list, tuple(filter_list), page_output(output)


def page_output(output: Any) -> Path | None:
    """The page's output path, checked before any data is read (``None``: not written)."""
    if output is None:
        return None
    path = Path(output)
    if path.is_dir():
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_IS_DIR.format(
            path=str(output), example=str(path / "audit.html")))
    if path.suffix.lower() not in (".html", ".htm"):
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_SUFFIX.format(path=str(output)))
    if not path.parent.is_dir():
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_NO_DIR.format(
            path=str(output), parent=str(path.parent)))
    return path
