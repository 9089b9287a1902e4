"""The sections of an audit page, one builder each, in the order the page shows them.

Header, headline, provenance, data, verdicts (with the reading of each finding and the gate),
uncertainty (rates, differences against the reference, ABROCA and its test), report (with the
divergent patterns), charts, definitions, the JSON data block, and the document around them.
Each builder returns its HTML; :func:`polars_fair.audit.html.audit_html` joins them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair import __version__
from polars_fair.audit.escape import page_safe
from polars_fair.audit.html.adverse_impact import strata_data
from polars_fair.audit.html.comparison import comparison_data
from polars_fair.audit.html.context import PageContext
from polars_fair.audit.html.figures import PageGroups, PageOptions, PageTables
from polars_fair.audit.html.findings import _headline, _reading, _summary_labels, abroca_tests
from polars_fair.audit.html.provenance import _data_block, _json_rows
from polars_fair.audit.html.tables import (
    _abroca_table,
    _disparity_table,
    _divergence_table,
    _provenance_html,
    _rates_table,
)
from polars_fair.audit.html.text import (
    _CSS,
    ADJUST_NAMES,
    DEFINITIONS,
    MISSING,
    PERMUTATION_P,
    SCORE_DEFINITIONS,
    UNDEFINED,
    VERDICT_CLASSES,
    _describe,
    _esc,
    _group,
    _names,
    _num,
    _table,
    svg_for_html,
)
from polars_fair.core.labels import list_text
from polars_fair.core.numbers import limit_text
from polars_fair.core.registry import METRICS

if TYPE_CHECKING:
    from concurrent.futures import Future


def header_section(p: PageContext) -> str:
    """The title, one line of what was audited (input, model, time, version) and the note."""
    return header_html(p.text.title, p.text.model, p.text.note, p.prov)


def header_html(title: str, model: str | None, note: str | None, prov: dict[str, Any]) -> str:
    """The header of any audit page: the title, the input, model, time and version, the note."""
    parts = [f"<h1>{_esc(title)}</h1>"]
    meta = [f"generated {prov['generated_utc']}", f"polars_fair {__version__}"]
    if model:
        meta.insert(0, f"model {_esc(model)}")
    if prov["input"]:
        meta.insert(0, _esc(prov["input"]["name"]))
    parts.append(f'<p class="meta">{" · ".join(meta)}</p>')
    if note:
        parts.append(f"<p>{_esc(note)}</p>")
    return "\n".join(parts)


def headline_section(p: PageContext) -> str:
    """The headline: what is compared with what, and the findings beyond chance."""
    o, t, g = p.o, p.t, p.g
    low = {tuple(r[k] for k in t.keys)
           for r in t.report.filter(pl.col("low_support")).iter_rows(named=True)}
    items = _headline(g.on_page(t.disparity), abroca_tests(t, g, o), t.keys, rates=o.rates,
                      level=o.level, adjust=o.adjust, min_support=o.min_support,
                      n_permutations=o.n_permutations, seed=o.seed, low=low)
    return "\n".join([
        "<h2>Headline</h2>",
        f"<p>Against the reference group <b>{_esc(g.ref_label)}</b>; a difference is "
        f"reported as a finding only when significant after adjustment for the "
        f"number of groups compared (level {o.level:g}).</p>",
        items,
    ])


def provenance_section(p: PageContext) -> str:
    """The provenance table (:func:`polars_fair.audit.html.provenance`)."""
    return "<h2>Provenance</h2>\n" + _provenance_html(p.prov)


def data_section(p: PageContext) -> str:
    """The data's size, every row excluded with the reason, the columns audited, low support."""
    o, t, g, size, n_columns = p.o, p.t, p.g, p.size, p.n_columns
    y_pred_text = p.prov["parameters"]["y_pred"]
    where_text = _describe(o.where) if o.where is not None else None
    null_note = {
        "keep": f"kept, audited as a group that reads {MISSING}",
        "drop": "dropped (null_groups='drop')",
        "raise": "none (null_groups='raise' allows none)",
    }[o.null_groups]
    rows = [
        ["rows in the input", _num(size["total"])],
        ["columns in the input", _num(n_columns)],
        ["rows excluded by the filter"
         + (f" <code>{_esc(where_text)}</code>" if where_text else " (no filter)"),
         _num(size["total"] - size["kept"])],
        [f"rows with a missing group value: {null_note}", _num(size["null_rows"])],
        ["rows audited", _num(t.overall["n"])],
        ["groups (" + _esc(" × ".join(t.keys)) + ")", _num(g.n_groups)],
    ]
    if g.left_out:
        rows.append([f"groups left out of the tables and charts (max_groups={o.page_groups}: "
                     "the largest groups and the reference are shown; the verdicts cover every "
                     "group)", _num(g.left_out)])
    parts = ["<h2>Data</h2>", _table(["", "count"], rows, numeric=[1])]
    if g.left_out:
        parts.append(f"<p>Left out of the tables and charts: {_esc(_names(g.left_names, 30))}."
                     "</p>")
    low = t.report.filter(pl.col("low_support"))
    labels = _esc(list_text([_group(r, t.keys) for r in low.iter_rows(named=True)]))
    parts.append(
        f"<p>Label <code>{_esc(_describe(o.y_true))}</code>, prediction "
        f"<code>{_esc(y_pred_text)}</code>, positive value "
        f"<code>{_esc(repr(o.pos_label))}</code>; reference group: "
        f"<b>{_esc(g.ref_label)}</b>. Overall: " + ", ".join(
            f"{METRICS[m].title.lower()} {_num(t.overall[m], '{:.1%}')}"
            for m in ("selection_rate", "base_rate", "tpr", "fpr", "accuracy")
        ) + ".</p>"
    )
    if low.height:
        parts.append(
            f"<p class=\"warn\">{low.height} group(s) with fewer than {o.min_support} rows (low "
            f"support; their rates are not to be trusted): {labels}.</p>"
        )
    return "\n".join(parts)


def verdicts_section(p: PageContext) -> str:
    """The summary metrics with their verdicts, and what each finding means."""
    o, t = p.o, p.t
    label_of = _summary_labels(t.report, t.keys)
    rows = []
    for r in t.summary.iter_rows(named=True):
        verdict, limit = r["verdict"], r["threshold"]
        # the limit the verdict used, as given (a decimal no float spells keeps its digits)
        limit = {"min_impact_ratio": o.four_fifths, "max_abs_ofi": o.ofi_threshold}.get(
            r["metric"], limit)
        if verdict:  # a rule: its limit, and the verdict (low support said in the same cell)
            rule = ("≥ " if r["metric"].startswith("min_") else "≤ ") + limit_text(limit)
            judged = (f'<span class="{VERDICT_CLASSES.get(verdict, "")}">{_esc(verdict)}</span>'
                      + (" (low support)" if r.get("low_support") else ""))
        else:
            rule, judged = "no rule", "descriptive"
        rows.append([_esc(r["metric"]), _num(r["value"], "{:.4f}"),
                     _esc(label_of(r["group_1"])), _esc(label_of(r["group_2"])), rule, judged])
    parts = ["<h2>Summary metrics</h2>",
             _table(["metric", "value", "group 1", "group 2", "rule", "verdict"], rows,
                    numeric=[1]),
             "<p>Each metric compares the two groups named (the extremes over the groups); "
             "\"no rule\": the metric is descriptive, no limit applies. The verdicts apply the "
             "rules to point estimates; the headline and the uncertainty tables say which "
             "differences are beyond chance.</p>"]
    excluded = t.summary["excluded_groups"].explode().drop_nulls().unique(maintain_order=True)
    if excluded.len():
        parts.append(f"<p>Left out of the summaries (low support): "
                     f"{_esc(list_text([label_of(x) for x in excluded.to_list()]))}.</p>")
    parts.append("<h3>What the findings mean</h3>")
    parts.append(_reading(t.report, t.keys, ofi_threshold=o.ofi_threshold,
                          four_fifths=o.four_fifths, min_support=o.min_support))
    return "\n".join(parts)


def abroca_section(o: PageOptions, t: PageTables, g: PageGroups) -> str:
    """ABROCA against the reference with its permutation test, or why it is not on the page."""
    if t.abroca is None:
        return ""
    if t.roc_reason is not None:
        how = (f"<p class=\"warn\">Not computed: {_esc(t.roc_reason)}, so neither ABROCA "
               "(which compares the ROC curves of two groups) nor its permutation test is "
               "on this page.</p>")
    elif t.tests is None:
        how = f"<p>Not tested: {_esc(t.untested)}, so no ABROCA is a finding here.</p>"
    else:
        p_text = PERMUTATION_P.format(n=f"{o.n_permutations:,}")
        how = (f"<p>With the permutation test of the groups with at least {o.min_support} "
               f"positives and {o.min_support} negatives (the others are not tested: their "
               f"ABROCA is not a finding). p: {p_text} (seed {o.seed}); p (Holm): adjusted "
               f"over the groups tested; significant: p (Holm) ≤ {1 - o.level:.2g}.</p>")
    return "<h3>ABROCA against the reference</h3>" + how + (
        "" if t.roc_reason is not None
        else _abroca_table(g.on_page(t.abroca), t.tests, t.keys, o.min_support, o.level))


def uncertainty_section(p: PageContext) -> str:
    """The rates with their intervals, each group against the reference, ABROCA and its test."""
    o, t, g, notes = p.o, p.t, p.g, p.notes
    method = ADJUST_NAMES.get(o.adjust, o.adjust)
    parts = [
        "<h2>Uncertainty</h2>",
        f"<h3>Rates with {o.level:.0%} Wilson intervals</h3>",
        _rates_table(g.metrics, g.report, t.keys, o.rates, o.level),
        f"<h3>Each group against the reference ({_esc(g.ref_label)})</h3>",
        f"<p>Difference (Newcombe) and ratio (MOVER-R Wilson) intervals at {o.level:.0%}; p: test "
        f"of equal rates; adjusted p: {method} over the groups compared for each "
        "metric.</p>",
        _disparity_table(g.on_page(t.disparity), g.report, t.keys, o.level),
        abroca_section(o, t, g),
    ]
    parts.extend(f"<p>{_esc(n)}</p>" for n in notes)
    return "\n".join(parts)


def report_section(p: PageContext) -> str:
    """The styled report table (:func:`polars_fair.audit.style.style_report`)."""
    o, g = p.o, p.g
    from polars_fair.audit.style import style_report

    parts = ["<h2>Report</h2>"]
    if g.left_out:
        parts.append(f"<p class=\"warn\">The table shows {g.shown.height} of {g.n_groups} "
                     f"groups (the largest and the reference); {g.left_out} left out. "
                     "<code>df.fair.report(...)</code> lists every group.</p>")
    table = style_report(g.report, reference_label=g.ref_label,
                         ofi_threshold=o.ofi_threshold, four_fifths=o.four_fifths, title=None)
    parts.append(f'<div class="report-table">{table.as_raw_html()}</div>')
    return "\n".join(parts)


def divergence_section(p: PageContext) -> str:
    """The divergent patterns of largest |divergence|, when the page has divergence."""
    if p.t.divergence is None:
        return ""
    return "<h2>Divergent patterns</h2>" + _divergence_table(p.t.divergence, p.divergence_top)


def charts_section(p: PageContext) -> str:
    """Every chart as inline SVG with its caption, or the reason it was not drawn."""
    return charts_html(p.charts, p.svgs)


def charts_html(charts: Sequence[tuple[str, str, Any]],
                pending: Sequence[Future[str] | None] | None = None) -> str:
    """The charts section of any audit page: each (heading, caption, chart or reason).

    ``pending``: the charts' SVGs already sent to the helper process
    (:func:`polars_fair.audit.svg_process.render_ahead`); without it they are sent now, all
    at once, and each is rendered here if the helper cannot.
    """
    from polars_fair.audit.svg_process import render_ahead, svg_of

    if pending is None:
        pending = render_ahead([chart for _, _, chart in charts])
    parts = ["<h2>Charts</h2>"]
    for number, ((heading, caption, chart), svg_text) in enumerate(
            zip(charts, pending, strict=True), start=1):
        if isinstance(chart, str):  # the chart could not be drawn: say why
            parts.append(f"<figure><h3>{_esc(heading)}</h3><p class=\"warn\">Not drawn: "
                         f"{_esc(chart)}.</p></figure>")
            continue
        svg = svg_for_html(svg_of(chart, svg_text), prefix=f"pf-chart{number}-")
        parts.append(
            f"<figure><h3>{_esc(heading)}</h3>{svg}"
            f"<figcaption>{_esc(caption)}</figcaption></figure>"
        )
    return "\n".join(parts)


def definitions_section(p: PageContext) -> str:
    """Every quantity of the page with its definition and source, and how to read the page."""
    defs = DEFINITIONS + (SCORE_DEFINITIONS if p.o.y_score is not None else ())
    return "\n".join([
        "<h2>Definitions</h2>",
        _table(["quantity", "definition", "source"],
               [[_esc(a), _esc(b), _esc(c)] for a, b, c in defs]),
        f"<p>Rates with a zero denominator are undefined and shown as {UNDEFINED} (null), never "
        f"0; a group whose attribute is missing reads {MISSING}. The reading of OFI with DI "
        "assumes the labels are correct; where the label is itself a contested record (for "
        "example a re-arrest), a systemic finding may hide biased labels.</p>",
    ])


def data_block_section(p: PageContext) -> str:
    """The page's tables as JSON (:data:`~polars_fair.audit.html.DATA_KEYS`, and the others)."""
    prov, t = p.prov, p.t
    page_json: dict[str, Any] = {
        "provenance": prov, "report": _json_rows(t.report), "metrics": _json_rows(t.metrics),
        "disparity": _json_rows(t.disparity), "summary": _json_rows(t.summary),
    }
    if p.impact_table is not None:  # the verdicts' impact-analysis columns
        page_json["impact_analysis"] = _json_rows(p.impact_table)
    if t.abroca is not None:
        page_json["abroca"] = _json_rows(t.abroca)
        page_json["abroca_test"] = None if t.tests is None else _json_rows(t.tests)
    if t.divergence is not None:
        page_json["divergence"] = _json_rows(t.divergence)
    page_json.update(strata_data(p.strata_table))  # with strata=: the key "stratified"
    page_json.update(comparison_data(p.comparison))  # baseline_pred=: compare, change_gate
    return _data_block(page_json)


def document(title: str, sections: Sequence[str]) -> str:
    """The HTML5 document around the sections, with the page's one stylesheet.

    Written once through :func:`polars_fair.audit.escape.page_safe`: no raw NUL, control
    character, DEL or noncharacter from the data reaches the page, and a group reads the same
    in every section and chart.
    """
    return page_safe(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{_esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(sections) + "\n</body>\n</html>\n"
    )
