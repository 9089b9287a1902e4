"""The audit page composed: :func:`audit_html` checks its arguments, computes, lays out.

The numbers come from :mod:`polars_fair.audit.html.figures`, the charts from
:mod:`polars_fair.audit.html.charts`, and each section of the page from one builder of
:mod:`polars_fair.audit.html.sections`.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.audit.html import sections as S
from polars_fair.audit.html.charts import divergence_chart_of, page_charts
from polars_fair.audit.html.figures import (
    PageOptions,
    PageTables,
    choose_groups,
    compute_tables,
    page_params,
    row_sizes,
)
from polars_fair.audit.html.provenance import provenance
from polars_fair.audit.html.text import DEFAULT_PAGE_GROUPS, _describe
from polars_fair.core.limits import check_size, with_limits
from polars_fair.core.options import DEFAULTS, Adjust
from polars_fair.core.reference import Reference
from polars_fair.core.spec import By, IntoExpr, NullGroups

__all__ = ["DIVERGENCE_COLUMNS", "audit_html"]

ONE_SET = "audit_html audits one attribute set: by= names columns or expressions, got {by!r}"
#: The divergent patterns the page shows (table and chart), the largest |divergence| first.
DIVERGENCE_TOP = 15

#: The columns of a divergence table the page reads
#: (:func:`polars_fair.analyses.divergence.divergence`).
DIVERGENCE_COLUMNS = ("attributes", "n", "divergence", "ci_low", "ci_high", "significant")


@with_limits
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
) -> str:
    """Write a fairness audit as one self-contained, publishable HTML document.

    The page holds, in order: the **provenance** (:func:`provenance`: the UTC time, the input
    file's name, never its directory, with its SHA-256 and size, the rows read, filtered and
    audited, every filter and parameter, the reference rule and the group it chose, and the
    versions; the optional ``title``, ``model`` and ``note``); the data's size and every row
    excluded with the reason; the **headline**, which states only what is significant after
    adjustment (each group's rate against the reference, ``disparity``; ABROCA with the
    permutation test, ``abroca_test``, seeded, the permutations stated, the largest
    *significant* ABROCA among groups with at least ``min_support`` rows), anything else
    labelled "not significant (p = ...)"; the summary verdicts, the gate of ``polars-fair
    check`` and a plain-language reading of each finding (algorithmic, systemic, insufficient
    support) with the label-bias caveat; the rates with Wilson intervals, the differences and
    ratios against the reference with intervals and adjusted p-values, the ABROCA table with
    p-values; the styled report table (:func:`polars_fair.audit.style.style_report`); the charts as
    inline SVG (rates with intervals, the pairwise OFI and DI heatmaps, DI on a log scale
    symmetric around 1 with its clipping stated, and with ``y_score`` the ROC curves and the
    calibration small multiples with bin counts); optionally the top ``divergence`` patterns;
    the definitions of every quantity with its source; and the tables as JSON in
    ``<script type="application/json" id="polars-fair-data">`` (keys :data:`DATA_KEYS`, read
    back with :func:`page_data`), equal to the Python API's results. With ``sample_weight``
    the ABROCA test is not run (weights are not exchangeable units; ``abroca_test`` is null).

    One low-support rule holds across the page: a group with ``n < min_support`` rows is low
    support in every table (grey italics), chart (faint, hollow or dashed) and verdict, and a
    calibration bin with fewer than ``min_support`` rows is marked. A group whose key is null
    reads "(missing)"; "—" is an undefined figure (a zero denominator).

    The verdicts, findings, gate and JSON tables cover every group. The tables and charts of
    the page show at most ``max_groups`` groups, the largest (most rows, ties in key order) and
    always the reference, and name those left out; the charts draw at most
    :data:`CHART_PAGE_GROUPS` of them (the reference, the headline's ABROCA group, then the
    largest; the calibration panels at most :data:`polars_fair.audit.plot.CHART_GROUPS`) and their
    captions name the others.

    Every comparison on the page is with one reference group, chosen once by
    :func:`polars_fair.audit.gate.resolve_gate_reference` from the ``reference`` parsed once
    (:class:`polars_fair.core.reference.Reference`): with ``y_score`` a rule chooses among the
    groups that also have both classes (a ROC curve). With ``reference="overall"`` the report
    compares with the whole population and ABROCA, which needs a group, with the largest group
    that has a ROC curve (the page says so).

    Parameters
    ----------
    data : pl.DataFrame or pl.LazyFrame
        The rows to audit (a LazyFrame from ``scan_*`` is read lazily).
    by : str, pl.Expr or list of them
        The attributes of one attribute set (at least one; several mean their intersection;
        no ``combinations``).
    y_true : str or pl.Expr, default "y_true"
        The label column.
    y_pred : str or pl.Expr, optional
        The prediction column; the column ``"y_pred"`` when neither ``y_score`` with
        ``threshold`` nor ``y_pred`` is given.
    y_score : str or pl.Expr, optional
        A score column (higher = more likely positive): adds ABROCA with its test, the ROC and
        calibration charts. With ``threshold`` it also replaces ``y_pred`` (predictions are
        ``y_score >= threshold``).
    threshold : float, optional
        See ``y_score``; ``y_pred`` is then not given.
    pos_label : Any, default 1
        The positive (favourable) value of the label and the prediction.
    reference : str, group value or mapping, default "largest"
        The reference group, as in ``df.fair.report``: a rule (``"largest"``,
        ``"max_selection_rate"``, ``"overall"``), a value or ``{attribute: value}``.
    min_support : int, default 30
        The one low-support rule: groups (and calibration bins) with fewer rows.
    ofi_threshold : float, default 0.3
        |OFI| above this is flagged (and is the gate's OFI limit).
    four_fifths : float, default 0.8
        An impact ratio below this is adverse impact (and is the gate's limit).
    exclude_low_support : bool, default False
        Low-support groups are neither the reference nor the highest selection rate, as in
        ``df.fair.report``.
    where : str or pl.Expr, optional
        A row filter applied first (a SQL expression as text, or a Polars expression); the
        page counts the rows it excludes and records it in the provenance.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows with a null attribute: a group of their own (read "(missing)"), an error, or
        left out (counted on the page).
    rates : sequence of str, default ("selection_rate", "tpr", "fpr")
        The metrics of the rates table and chart and of the comparisons with the reference
        (names of :data:`polars_fair.core.registry.METRICS`; the comparisons need proportions).
    title : str, default "Fairness audit"
        The document's title.
    source : str or pathlib.Path, optional
        Where the data came from: shown by its file name only; fingerprinted (SHA-256, size)
        when it names an existing file or directory and ``path`` is not given.
    output : str or pathlib.Path, optional
        Also write the page there (UTF-8).
    max_groups : int, default 50
        The most groups the tables and charts show (see above); the count table itself may
        hold up to ``max(max_groups, 10000)`` groups made by an Enum completion.
    model : str, optional
        The model audited (name, version), shown in the provenance.
    note : str, optional
        A free note shown in the provenance.
    path : str or pathlib.Path, optional
        The input file or directory to fingerprint (default: ``source``).
    filters : str or sequence of str, default ()
        Filters applied before ``data`` reached this function (for example ProPublica's COMPAS
        filter), recorded in the provenance before ``where``; a str is one filter.
    rows_read : int, optional
        Rows in the input before ``filters`` (at least the rows of ``data``); default: the
        rows of ``data``.
    level : float, default 0.95
        Confidence level of every interval; a difference is significant when its adjusted
        p-value is at most ``1 − level``.
    adjust : {"holm", "bh"}, default "holm"
        The multiplicity adjustment of ``disparity`` over the groups compared.
    n_permutations : int, default 1000
        Permutations of the ABROCA test (with ``y_score``).
    seed : int, default 0
        Seed of the ABROCA test, so the page's p-values can be reproduced.
    divergence : bool, pl.DataFrame or pl.LazyFrame, optional
        ``True`` computes ``divergence`` of the FPR over every pattern of the attributes
        (``FairCounts.divergence(level=level, min_denominator=min_support)``); or a divergence
        table (``attributes``, the attribute columns, ``divergence``, ``ci_low``, ``ci_high``,
        ``significant``). Adds the top patterns (table and chart) and the JSON key
        ``divergence``.
    generated : datetime, optional
        The generation time recorded (default now, UTC).
    sample_weight : str or pl.Expr, optional
        A weight column, as in ``df.fair.report``: every count, rate, interval and test is
        weighted (``n`` stays the number of rows).

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    ImportError
        Without the plot extra (``pip install "polars_fair[plot]"``).
    InvalidArgumentError
        ``by`` is empty; ``max_groups``, ``n_permutations`` or ``seed`` is not an integer;
        ``rates`` is empty or names a metric ``disparity`` cannot compare; ``filters`` is not
        text; ``rows_read`` is not an integer or is fewer than the rows of ``data``;
        ``divergence`` is neither a bool nor a table with the columns the page reads
        (:data:`DIVERGENCE_COLUMNS`); ``output`` is a directory, in a directory that does not
        exist, or has no ``.html``/``.htm`` suffix (checked before any data is read).
    SizeLimitError
        ``n_permutations`` above |limit:n_permutations| or ``max_groups`` above
        |limit:max_groups| (:data:`polars_fair.core.limits.LIMITS`), before any data is read.
    PolarsFairError
        Bad input, as ``df.fair.report`` (a missing column, a non-binary label, ...).

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.html import audit_html, page_data
    >>> page = audit_html(make_hiring(600, seed=0), "sex", model="screen-v1")
    >>> data = page_data(page)
    >>> sorted(data), data["provenance"]["model"]
    (['disparity', 'metrics', 'provenance', 'report', 'summary'], 'screen-v1')
    """
    from polars_fair.audit.gate import gate
    from polars_fair.core.spec import check_int

    page_groups = check_int(max_groups, "max_groups")
    check_size(n_permutations, "n_permutations")  # before the first scan, not at the test
    rate_list, filter_list, out_path = _page_arguments(rates, filters, output, divergence,
                                                       rows_read)
    o = PageOptions(
        y_true=y_true, y_pred=y_pred, y_score=y_score, threshold=threshold, pos_label=pos_label,
        reference=Reference.parse(reference), min_support=min_support,
        ofi_threshold=ofi_threshold,
        four_fifths=four_fifths, exclude_low_support=exclude_low_support, where=where,
        null_groups=null_groups, rates=rate_list, level=level, adjust=adjust,
        n_permutations=n_permutations, seed=seed, sample_weight=sample_weight,
        page_groups=page_groups,
    )
    lf = data.lazy()
    by_exprs = _by_exprs(by)
    if not by_exprs:
        raise E.InvalidArgumentError("audit_html needs at least one attribute in by")
    condition, size, n_columns = row_sizes(lf, by_exprs, where)
    t = compute_tables(lf.filter(condition) if condition is not None else lf, by, o, divergence)
    g = choose_groups(t, o.page_groups)
    checks = gate(t.fc, reference=t.ref, min_impact_ratio=four_fifths,
                  max_abs_ofi=ofi_threshold, min_support=min_support)
    params = page_params(o, t, g.ref_label)
    prov = _page_provenance(o, t, size, params, filter_list, rows_read=rows_read,
                            path=path if path is not None else source, title=title,
                            model=model, note=note, generated=generated)
    headline, ab_group = S.headline(o, t, g)
    charts, notes = page_charts(o, t, g, ab_group)
    if t.divergence is not None:
        charts.append(divergence_chart_of(t.divergence, divergence, DIVERGENCE_TOP))
    page = S.document(title, [
        S.header_section(title, model, note, prov),
        S.headline_section(o, g, headline),
        S.provenance_section(prov),
        S.data_section(o, t, g, size, n_columns, params["y_pred"]),
        S.verdicts_section(o, t, checks),
        S.uncertainty_section(o, t, g, notes),
        S.report_section(o, g),
        S.divergence_section(t, DIVERGENCE_TOP),
        S.charts_section(charts),
        S.definitions_section(y_score is not None),
        S.data_block_section(prov, t),
    ])
    if out_path is not None:
        out_path.write_text(page, encoding="utf-8")
    return page


def _page_provenance(o: PageOptions, t: PageTables, size: dict[str, Any], params: dict[str, Any],
                     filters: Sequence[str], *, rows_read: int | None, path: str | Path | None,
                     title: str, model: str | None, note: str | None,
                     generated: _dt.datetime | None) -> dict[str, Any]:
    """The page's provenance: the input, the rows read, filtered and audited, every filter."""
    where_text = _describe(o.where) if o.where is not None else None
    dropped_null = size["null_rows"] if o.null_groups == "drop" else 0
    if rows_read is not None and rows_read < size["total"]:
        raise E.InvalidArgumentError(E.PAGE_ROWS_READ.format(value=rows_read, rows=size["total"]))
    read = rows_read if rows_read is not None else size["total"]
    audited = t.overall["n"]
    return provenance(
        path, rows_read=read, rows_filtered=read - audited, rows_audited=audited,
        filters=[*filters, *([f"where {where_text}"] if where_text else []),
                 *(["drop rows with a missing group value"] if dropped_null else [])],
        params=params, title=title, model=model, note=note, generated=generated,
    )


def _by_exprs(by: By) -> list[pl.Expr]:
    """The attribute set as expressions (one set: no ``combinations``)."""
    if by is None:
        return []
    items: list[Any] = [by] if isinstance(by, (str, pl.Expr)) else list(by)
    if any(not isinstance(b, (str, pl.Expr)) for b in items):
        raise E.InvalidArgumentError(ONE_SET.format(by=by))
    return [pl.col(b) if isinstance(b, str) else b for b in items]


def _page_arguments(rates: Any, filters: Any, output: Any, divergence: Any,
                    rows_read: Any) -> tuple[tuple[str, ...], tuple[str, ...], Path | None]:
    """Check the page's own arguments before any data is read (typed errors naming each)."""
    from polars_fair.core.spec import check_int

    rate_list = (rates,) if isinstance(rates, str) else tuple(rates)
    if not rate_list:
        raise E.InvalidArgumentError(E.PAGE_NO_RATES.format(value=rates))
    filter_list = (filters,) if isinstance(filters, str) else filters
    if not isinstance(filter_list, Sequence) or not all(
            isinstance(f, str) for f in filter_list):
        raise E.InvalidArgumentError(E.PAGE_BAD_FILTERS.format(
            value=filters, type=type(filters).__name__))
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
    if output is None:
        return rate_list, tuple(filter_list), None
    path = Path(output)
    if path.is_dir():
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_IS_DIR.format(path=str(output)))
    if path.suffix.lower() not in (".html", ".htm"):
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_SUFFIX.format(path=str(output)))
    if not path.parent.is_dir():
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_NO_DIR.format(
            path=str(output), parent=str(path.parent)))
    return rate_list, tuple(filter_list), path
