"""Everything one audit page shows, computed once and handed to every section builder.

:func:`page_context` runs the page's computations in order (the rows, the tables, the groups
shown, the gate, the provenance, the headline's ABROCA group, the charts) and returns one
:class:`PageContext`. A section of the page is a function ``PageContext -> str``
(:data:`Section`); :data:`polars_fair.audit.html.page.SECTIONS` lists them in page order, so a
new section is one builder and one entry in that list.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair import errors as E
from polars_fair.audit.html.adverse_impact import impact_table, stratified_table
from polars_fair.audit.html.charts import Chart, divergence_chart_of, page_charts, unvalidated
from polars_fair.audit.html.comparison import Baseline, PageComparison, page_comparison
from polars_fair.audit.html.figures import (
    PageGroups,
    PageOptions,
    PageTables,
    choose_groups,
    compute_tables,
    page_params,
    row_sizes,
)
from polars_fair.audit.html.findings import abroca_headline_group
from polars_fair.audit.html.provenance import provenance
from polars_fair.audit.html.text import _describe
from polars_fair.audit.permutation_process import permutation_process
from polars_fair.audit.svg_process import render_ahead, svg_process

if TYPE_CHECKING:
    from concurrent.futures import Future

#: The divergent patterns the page shows (table and chart), the largest |divergence| first.
DIVERGENCE_TOP = 15


@dataclass(frozen=True)
class PageText:
    """The page's own words: its title, the model audited and a free note (each optional)."""

    title: str
    model: str | None
    note: str | None


@dataclass(frozen=True)
class PageContext:
    """One page's options, tables, groups, gate, provenance and charts, for the builders."""

    o: PageOptions
    t: PageTables
    g: PageGroups
    checks: pl.DataFrame
    prov: dict[str, Any]
    size: dict[str, Any]
    n_columns: int
    text: PageText
    ab_group: dict[str, Any] | None
    charts: list[Chart]
    notes: list[str]
    divergence_top: int = DIVERGENCE_TOP
    strata_table: pl.DataFrame | None = None
    comparison: PageComparison | None = None
    impact_table: pl.DataFrame | None = None
    #: The charts' SVGs sent to the helper process as soon as built
    #: (:func:`polars_fair.audit.svg_process.render_ahead`); None: sent when written.
    svgs: list[Future[str] | None] | None = None


#: A section of the page: the context in, its HTML out ("" leaves the section out).
Section = Callable[[PageContext], str]


@dataclass(frozen=True)
class Provenance:
    """What the caller says about the input: filters before the page, rows read, file, time."""

    filters: Sequence[str]
    rows_read: int | None
    path: str | Path | None
    generated: _dt.datetime | None


def page_context(lf: pl.LazyFrame, by: Any, by_exprs: Sequence[pl.Expr], o: PageOptions,
                 divergence: bool | pl.DataFrame | pl.LazyFrame | None, text: PageText,
                 source: Provenance, baseline: Baseline | None = None) -> PageContext:
    """Compute everything the page shows, in order: rows, tables, groups, gate, charts.

    With a ``baseline``, also the comparison of the page's predictions with it
    (:func:`polars_fair.audit.html.comparison.page_comparison`; one more scan).
    """
    from polars_fair.audit.gate import gate

    svg_process()  # the chart renderer starts now, on the other core, while the page computes
    # and the ABROCA test's helper, which imports the test while the rows are scanned
    helper = (permutation_process() if o.y_score is not None and o.sample_weight is None
              else None)
    try:
        condition, size, n_columns = row_sizes(lf, by_exprs, o.where)
        audited = lf.filter(condition) if condition is not None else lf
        t = compute_tables(audited, by, o, divergence, helper)
    finally:
        if helper is not None:
            helper.release()  # ended if no test was sent to it (none to run, or an error)
    strata = list(o.strata) if o.strata else None
    strata_table = stratified_table(audited, by, strata, o, t)
    impact = impact_table(o, t)  # the verdicts' impact columns and the JSON block's
    g = choose_groups(t, o.page_groups)
    checks = gate(t.fc, reference=t.ref, min_impact_ratio=o.four_fifths,
                  max_abs_ofi=o.ofi_threshold, min_support=o.min_support)
    params = page_params(o, t, g.ref_label)
    if o.strata:  # every input of the numbers is in the provenance
        params["strata"] = list(o.strata)
    comparison = page_comparison(audited, by, o, t, baseline)
    if baseline is not None:
        params.update(baseline.params())
    prov = _page_provenance(o, t, size, params, source, text)
    if t.pending_tests is not None and not t.pending_tests.done():
        _import_ahead()  # the page needs them next: imported while the test still runs
    ab_group = abroca_headline_group(t, o, g)  # the first use of the test's table
    with unvalidated():
        charts, notes = page_charts(o, t, g, ab_group)
        if t.divergence is not None:
            charts.append(divergence_chart_of(t.divergence, divergence, DIVERGENCE_TOP))
    # rendered by the helper process while the page writes its other sections
    svgs = render_ahead([chart for _, _, chart in charts])
    return PageContext(o=o, t=t, g=g, checks=checks, prov=prov, size=size,
                       n_columns=n_columns, text=text, ab_group=ab_group, charts=charts,
                       notes=notes, strata_table=strata_table, comparison=comparison,
                       impact_table=impact, svgs=svgs)


def _import_ahead() -> None:
    """Import the chart and table libraries the page uses next (about 0.5 s in a new process).

    Called while the ABROCA test's helper process still runs, so the wait is not idle; without
    the plot extra the page says so later, where it did.
    """
    import importlib

    for name in ("altair", "great_tables"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass


def _page_provenance(o: PageOptions, t: PageTables, size: dict[str, Any], params: dict[str, Any],
                     source: Provenance, text: PageText) -> dict[str, Any]:
    """The page's provenance: the input, the rows read, filtered and audited, every filter."""
    return rows_provenance(o.where, o.null_groups, t.overall["n"], size, params, source, text)


def rows_provenance(where: Any, null_groups: str, audited: int, size: dict[str, Any],
                    params: dict[str, Any], source: Provenance, text: PageText
                    ) -> dict[str, Any]:
    """Any page's provenance: the input, the rows read, filtered and audited, every filter.

    ``size`` is :func:`polars_fair.audit.html.figures.row_sizes`'s; ``audited`` the rows the
    page's table counted.
    """
    where_text = _describe(where) if where is not None else None
    dropped_null = size["null_rows"] if null_groups == "drop" else 0
    rows_read = source.rows_read
    if rows_read is not None and rows_read < size["total"]:
        raise E.InvalidArgumentError(E.PAGE_ROWS_READ.format(value=rows_read, rows=size["total"]))
    read = rows_read if rows_read is not None else size["total"]
    return provenance(
        source.path, rows_read=read, rows_filtered=read - audited, rows_audited=audited,
        filters=[*source.filters, *([f"where {where_text}"] if where_text else []),
                 *(["drop rows with a missing group value"] if dropped_null else [])],
        params=params, title=text.title, model=text.model, note=text.note,
        generated=source.generated,
    )
