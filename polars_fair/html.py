"""A fairness audit as ONE self-contained HTML file that needs no network to view.

:func:`audit_html` scans the data (once for the count table, once more for the score table when
``y_score`` is given, and one cheap count of the excluded rows) and writes a page with: the
data's size and the rows excluded and why (the ``where`` filter, null groups), the summary
verdicts (``df.fair.summary``), the styled report table (:func:`polars_fair.style.style_report`),
the charts of :mod:`polars_fair.plot` as inline SVG, and the definitions with their sources.
There are no scripts, no external stylesheets, fonts or images, and no ``http(s)://`` reference
in the file: it renders identically offline, in an e-mail attachment or in an archive.

The command line writes it with ``polars-fair report PATH ... --html audit.html``.

Why one module of about 600 lines: one self-contained page (its sections, its CSS and its
inline charts) whose parts must agree with each other; the numbers come from the analyses.
"""

from __future__ import annotations

import html as _html
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair import __version__
from polars_fair import errors as E
from polars_fair.registry import METRICS, PAIR_METRICS
from polars_fair.spec import By, IntoExpr, NullGroups

__all__ = ["DEFAULT_PAGE_GROUPS", "DEFINITIONS", "audit_html", "svg_for_html"]

#: The most groups the tables and charts of the page show (the largest, and the reference).
DEFAULT_PAGE_GROUPS = 50


def _range(low: float, high: float) -> str:
    def show(x: float) -> str:
        return "∞" if x == float("inf") else "−∞" if x == -float("inf") else f"{x:g}"

    close = ")" if high == float("inf") else "]"
    return f"in [{show(low)}, {show(high)}{close}".replace("-", "−")


def _metric_definitions() -> tuple[tuple[str, str, str], ...]:
    """Every per-group metric, then DI and OFI, as the registry defines them."""
    rows = [(m.title, f"{m.formula}, {_range(m.low, m.high)}", m.source)
            for m in METRICS.values()]
    for name, short in (("disparate_impact", "DI"), ("ofi", "OFI")):
        p = PAIR_METRICS[name]
        rows.append((f"{p.title} ({short})",
                     f"{p.formula}, {_range(p.low, p.high)}; j is the reference group", p.source))
    return tuple(rows)


#: (name, formula, source) of every quantity the page shows; the README's Metrics table. The
#: metrics (every per-group metric, DI and OFI) are their entries of :mod:`polars_fair.registry`;
#: the rest are not metrics (the impact ratio, the four-fifths rule, support, the findings).
DEFINITIONS: tuple[tuple[str, str, str], ...] = _metric_definitions() + (
    ("Impact ratio", "selection rate / the highest selection rate among the groups",
     "EEOC four-fifths rule, 29 CFR 1607.4(D); NYC Local Law 144 (6 RCNY 5-300)"),
    ("Adverse impact", "impact ratio < 0.8 (four_fifths)", "four-fifths rule"),
    ("OFI flag", "|OFI| > 0.3 (ofi_threshold)", "Briscoe et al., OFI paper"),
    ("Finding", ("algorithmic: |OFI| > threshold; systemic: OFI within it but DI or impact ratio "
     "fails the four-fifths rule; insufficient support: the group, or the group it is measured "
     "against, has n < min_support, or OFI is undefined"),
     "OFI paper §2.3 (assumes correct labels)"),
    ("Low support", "n < min_support (30)", "too few rows to trust the rates"),
    ("Confidence interval", "Wilson score interval at 95% of a rate (a proportion)",
     "Wilson 1927; Newcombe 1998"),
)
SCORE_DEFINITIONS: tuple[tuple[str, str, str], ...] = (
    ("AUC", "Mann–Whitney U / (P · N), ties counted ½", "area under the ROC curve"),
    ("ABROCA", "∫₀¹ |TPR_g(f) − TPR_ref(f)| df, exact on the piecewise-linear ROC curves",
     "Gardner, Brooks & Baker 2019 (LAK'19); Borchers et al., \"A Test for ABROCA\""),
    ("Calibration", "fraction of positives against the mean score per score bin",
     "reliability diagram (DeGroot & Fienberg 1983)"),
)

#: The CSS class of each summary verdict (:data:`polars_fair.summary.RULE_VERDICTS`): a verdict
#: that could not be reached reads differently from a pass or a fail.
VERDICT_CLASSES = {"pass": "pass", "fail": "fail", "undefined": "undefined",
                   "insufficient support": "insufficient"}

_CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial,
       'Liberation Sans', 'DejaVu Sans', sans-serif; color: #202124; margin: 2rem auto;
       max-width: 1200px; padding: 0 1.5rem; line-height: 1.45; }
h1 { font-size: 1.7rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; border-bottom: 1px solid #dadce0; padding-bottom: 0.2rem;
     margin-top: 2.2rem; }
.meta { color: #5f6368; margin-top: 0; }
table.pf { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.92rem; }
table.pf th, table.pf td { border-bottom: 1px solid #e8eaed; padding: 0.3rem 0.7rem;
  text-align: left; vertical-align: top; }
table.pf th { background: #f1f3f4; }
table.pf td.num { text-align: right; font-variant-numeric: tabular-nums; }
.fail { color: #b3261e; font-weight: 600; }
.pass { color: #137333; font-weight: 600; }
.warn { color: #8a5300; font-weight: 600; }
.undefined { color: #5f6368; font-style: italic; font-weight: 600; }
.insufficient { color: #8a5300; font-style: italic; font-weight: 600; }
figure { margin: 1.2rem 0 2rem 0; overflow-x: auto; }
figcaption { color: #5f6368; font-size: 0.9rem; max-width: 60rem; }
code { background: #f1f3f4; padding: 0 0.25rem; border-radius: 3px; }
.report-table { overflow-x: auto; }
"""

ONE_SET = "audit_html audits one attribute set: by= names columns or expressions, got {by!r}"

_XMLNS = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')


def svg_for_html(svg: str, prefix: str = "") -> str:
    """Prepare an SVG document for inlining in HTML5.

    Drops the ``xmlns`` declarations (the HTML parser puts ``<svg>`` in the SVG namespace by
    itself), so the page holds no URL at all; prefixes every ``id`` (and its ``url(#id)`` and
    ``href="#id"`` references) with ``prefix``, so gradients and clip paths of several charts
    on one page cannot collide; and marks the figure as an image for screen readers.

    Parameters
    ----------
    svg : str
        An SVG document, as :func:`polars_fair.plot.to_svg` returns it.
    prefix : str, default ""
        Put before every ``id`` of the document; ``""`` leaves the ids as they are.

    Returns
    -------
    str
        The ``<svg>`` element without namespace declarations, its ids prefixed, with
        ``role="img"``.

    Examples
    --------
    >>> svg_for_html('<svg xmlns="http://www.w3.org/2000/svg"><clipPath id="c1"/>'
    ...              '<g clip-path="url(#c1)"/></svg>', prefix="f2-")
    '<svg role="img"><clipPath id="f2-c1"/><g clip-path="url(#f2-c1)"/></svg>'
    """
    out = _XMLNS.sub("", svg)
    if prefix:
        ids = set(re.findall(r'\bid="([^"]+)"', out))
        if ids:
            names = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
            out = re.sub(rf'\bid="({names})"', rf'id="{prefix}\1"', out)
            out = re.sub(rf"url\(#({names})\)", rf"url(#{prefix}\1)", out)
            out = re.sub(rf'href="#({names})"', rf'href="#{prefix}\1"', out)
    return out.replace("<svg", '<svg role="img"', 1)


def _esc(x: Any) -> str:
    return _html.escape("null" if x is None else str(x))


def _num(x: Any, fmt: str = "{:,}") -> str:
    return "—" if x is None else fmt.format(x)


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = ()
) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(
            f'<td class="num">{cell}</td>' if j in numeric else f"<td>{cell}</td>"
            for j, cell in enumerate(row)
        ) + "</tr>"
        for row in rows
    )
    return f'<table class="pf"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _by_exprs(by: By) -> list[pl.Expr]:
    if by is None:
        return []
    items: list[Any] = [by] if isinstance(by, (str, pl.Expr)) else list(by)
    if any(not isinstance(b, (str, pl.Expr)) for b in items):
        raise E.InvalidArgumentError(ONE_SET.format(by=by))
    return [pl.col(b) if isinstance(b, str) else b for b in items]


def _describe(x: Any) -> str:
    return x if isinstance(x, str) else str(x)


def _gate_html(checks: pl.DataFrame, keys: Sequence[str], min_support: int) -> str:
    """The gate's frame (:func:`polars_fair.gate.gate`) as a verdict and its failing rows."""
    from polars_fair.gate import verdict

    groups = checks.filter(pl.col("metric") == "impact_ratio")
    n_checked = groups.filter(pl.col("checked")).height
    rules = " and ".join(
        f"<code>{_esc(r if m == 'ofi' else f'{m} {r}')}</code>"
        for m, r in checks.select("metric", "rule").unique(maintain_order=True).iter_rows()
    )
    head = "<h3>Gate (the checks of <code>polars-fair check</code>)</h3>"
    if n_checked == 0:
        return head + (f"<p class=\"warn\">No group has at least {min_support} rows: nothing "
                       "was checked.</p>")
    passed = verdict(checks)
    text = (f'<p><span class="{"pass" if passed else "fail"}">{"PASS" if passed else "FAIL"}'
            f"</span>: {n_checked} group(s) with at least {min_support} rows checked against "
            f"{rules}; an undefined figure does not pass.</p>")
    failing = checks.filter(pl.col("checked") & ~pl.col("passed"))
    if failing.height == 0:
        return head + text
    rows = [[_esc(r["group"]), _esc(r["metric"]), _num(r["value"], "{:.4f}"),
             _esc(r["rule"] if r["value"] is not None else f"undefined: {r['reason']}")]
            for r in failing.iter_rows(named=True)]
    return head + text + _table(["group", "metric", "value", "limit"], rows, numeric=[2])


def audit_html(
    data: pl.DataFrame | pl.LazyFrame,
    by: By,
    *,
    y_true: IntoExpr = "y_true",
    y_pred: IntoExpr | None = None,
    y_score: IntoExpr | None = None,
    threshold: float | None = None,
    pos_label: Any = 1,
    reference: Any = "largest",
    min_support: int = 30,
    ofi_threshold: float = 0.3,
    four_fifths: float = 0.8,
    exclude_low_support: bool = False,
    where: str | pl.Expr | None = None,
    null_groups: NullGroups = "keep",
    rates: Sequence[str] = ("selection_rate", "tpr", "fpr"),
    title: str = "Fairness audit",
    source: str | None = None,
    output: str | Path | None = None,
    max_groups: int = DEFAULT_PAGE_GROUPS,
) -> str:
    """Write a fairness audit as one self-contained HTML page (no network needed to view it).

    The page holds, in order: the data's size and every row excluded with the reason (the
    ``where`` filter; rows with a null attribute, dropped or kept as a group); the summary
    verdicts (``summary``: the largest gaps with the groups producing them, the four-fifths and
    OFI verdicts) and the groups found ``algorithmic`` or ``systemic``; the verdict of the gate
    of ``polars-fair check`` (:func:`polars_fair.gate.gate` with ``four_fifths`` as the impact
    ratio limit, ``ofi_threshold`` as the OFI limit and ``min_support``) with its failing rows;
    the styled report table (:func:`polars_fair.style.style_report`); the charts as inline SVG
    (rates with 95% Wilson intervals, the pairwise OFI and DI heatmaps, and with ``y_score`` the
    ROC curves with the ABROCA area and the calibration curves, with an ABROCA table); and the
    definitions of every quantity with its source.

    The verdicts, findings and gate cover every group. The report table, the ABROCA table and
    the charts show at most ``max_groups`` groups: the largest (most rows, ties in key order)
    and always the reference; the page says how many groups it left out. So a page over 2,000
    intersections stays small (a pairwise heatmap grows with the square of the groups).

    Every comparison on the page is with one reference group, chosen once by
    :func:`polars_fair.gate.gate_reference`: with ``y_score`` a rule chooses among the groups
    that also have both classes (a ROC curve). With ``reference="overall"`` the report compares
    with the whole population and ABROCA, which needs a group, with the largest group that has
    a ROC curve (the page says so).

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
        A score column (higher = more likely positive): adds the ROC/ABROCA and calibration
        charts. With ``threshold`` it also replaces ``y_pred`` (predictions are
        ``y_score >= threshold``).
    threshold : float, optional
        See ``y_score``; ``y_pred`` is then not given (it defaults to the column ``"y_pred"``
        only without ``y_score`` and ``threshold``).
    pos_label : Any, default 1
        The positive (favourable) value of the label and the prediction.
    reference : str, group value or mapping, default "largest"
        The reference group, as in ``df.fair.report``: a rule (``"largest"``,
        ``"max_selection_rate"``, ``"overall"``), a value or ``{attribute: value}``.
    min_support : int, default 30
        Groups with fewer rows are flagged low support.
    ofi_threshold : float, default 0.3
        |OFI| above this is flagged (and is the gate's OFI limit).
    four_fifths : float, default 0.8
        An impact ratio below this is adverse impact (and is the gate's limit).
    exclude_low_support : bool, default False
        Low-support groups are neither the reference nor the highest selection rate, as in
        ``df.fair.report``.
    where : str or pl.Expr, optional
        A row filter applied first (a SQL expression as text, or a Polars expression); the
        page counts the rows it excludes and shows it.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows with a null attribute: a group of their own, an error, or left out (counted on
        the page).
    rates : sequence of str, default ("selection_rate", "tpr", "fpr")
        The metrics of the rates chart (names of :data:`polars_fair.registry.METRICS`).
    title : str, default "Fairness audit"
        The page's title.
    source : str, optional
        Where the data came from (a file name), shown under the title.
    output : str or pathlib.Path, optional
        Also write the page there (UTF-8).
    max_groups : int, default 50
        The most groups the tables and charts show (see above); the count table itself may
        hold up to ``max(max_groups, 10000)`` groups made by an Enum completion.

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    ImportError
        Without the plot extra (``pip install "polars_fair[plot]"``).
    InvalidArgumentError
        ``by`` is empty; ``max_groups`` is not an integer >= 1.
    PolarsFairError
        Bad input, as ``df.fair.report`` (a missing column, a non-binary label, ...).

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.html import audit_html
    >>> page = audit_html(make_hiring(5000, seed=0), ["race", "sex"], y_score="y_score",
    ...                   output="audit.html")  # doctest: +SKIP
    """
    from polars_fair import from_counts, from_scores
    from polars_fair.analysis import FairScores
    from polars_fair.gate import gate, gate_reference
    from polars_fair.namespace import fair
    from polars_fair.plot import (
        calibration_chart,
        pairwise_heatmap,
        rates_chart,
        roc_chart,
        to_svg,
    )
    from polars_fair.spec import DEFAULT_MAX_GROUPS, check_int
    from polars_fair.style import reference_label_of, style_report
    from polars_fair.tables import keys_of

    page_groups = check_int(max_groups, "max_groups")
    lf = data.lazy()
    by_exprs = _by_exprs(by)
    if not by_exprs:
        raise E.InvalidArgumentError("audit_html needs at least one attribute in by")
    # --- rows in, rows excluded and why (one cheap scan)
    if isinstance(where, str):  # SQL over the input's columns only: nothing else is read
        from polars_fair.sql import sql_expr

        condition: pl.Expr | None = sql_expr(where, lf.collect_schema().names(), "where")
    else:
        condition = where
    kept = condition.fill_null(False) if condition is not None else pl.repeat(True, pl.len())

    def missing(e: pl.Expr) -> pl.Expr:  # NaN in a float attribute is missing, as null
        float_key = lf.select(e).collect_schema().dtypes()[0].is_float()
        return (e.is_null() | e.is_nan()) if float_key else e.is_null()

    null_rows = pl.any_horizontal([missing(e) for e in by_exprs])
    size = lf.select(
        total=pl.len(), kept=kept.sum(), null_rows=(kept & null_rows).sum()
    ).collect().row(0, named=True)
    n_columns = len(lf.collect_schema())
    audited = lf.filter(kept) if condition is not None else lf
    # --- one scan into the count table; every table below is computed from it
    counts = fair(audited).confusion(
        by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, null_groups=null_groups,
        y_score=y_score if threshold is not None else None, threshold=threshold,
        max_groups=max(page_groups, DEFAULT_MAX_GROUPS),
    ).collect()
    keys = keys_of(counts)
    fc = from_counts(counts, keys)
    fs: FairScores | None = None
    scores = None
    if y_score is not None:
        scores = fair(audited).scores(
            by, y_true=y_true, y_score=y_score, pos_label=pos_label, null_groups=null_groups
        ).collect()
        fs = from_scores(scores, keys)
    # one reference for every table and chart of the page (report, summary, ABROCA, ROC)
    ref = gate_reference(fc, fs if reference != "overall" else None, reference,
                         min_support=min_support, exclude_low_support=exclude_low_support)
    report = fc.report(
        reference=ref, min_support=min_support, ofi_threshold=ofi_threshold,
        four_fifths=four_fifths, exclude_low_support=exclude_low_support,
    ).collect()
    overall = fc.report(by=[], reference="overall").collect().row(0, named=True)
    summary = fc.summary(
        reference=ref, min_support=min_support, exclude_low_support=exclude_low_support,
        four_fifths=four_fifths, ofi_threshold=ofi_threshold,
    ).collect()
    abroca = None
    ab_ref = ref
    if fs is not None and reference == "overall":  # ABROCA compares with a group: the largest
        ab_ref = gate_reference(fc, fs, "largest", min_support=min_support,
                                exclude_low_support=exclude_low_support)
    if fs is not None:
        abroca = fs.abroca(reference=ab_ref).collect()
    # --- the tables and charts show the largest groups and the reference(s), at most
    # page_groups of them; the verdicts above and the gate cover every group
    n_groups = report.height
    must = [report.filter(pl.col("is_reference")).select(keys)]
    if abroca is not None:
        must.append(abroca.filter(pl.col("is_reference")).select(keys))
    largest = report.with_row_index("__pf_row").sort(
        ["n", "__pf_row"], descending=[True, False]).select(keys)
    shown = pl.concat([*must, largest]).unique(keys, keep="first", maintain_order=True
                                               ).head(page_groups)
    left_out = n_groups - shown.height

    def on_page(frame: pl.DataFrame) -> pl.DataFrame:
        if not left_out:
            return frame
        return frame.join(shown, on=keys, how="semi", nulls_equal=True, maintain_order="left")

    fc_page = from_counts(on_page(counts), keys) if left_out else fc
    fs_page = from_scores(on_page(scores), keys) if left_out and scores is not None else fs
    report_page = on_page(report)
    metrics = fc_page.metrics(min_support=min_support).collect()
    pairs = fc_page.pairwise(metrics=("ofi", "disparate_impact")).collect()
    ref_label = reference_label_of(report, keys)
    checks = gate(fc, reference=ref, min_impact_ratio=four_fifths, max_abs_ofi=ofi_threshold,
                  min_support=min_support)

    cell = max(18, min(46, 900 // max(shown.height, 1)))
    charts: list[tuple[str, str, Any]] = [
        ("Rates by group", ("Each group's rates with 95% Wilson intervals; faint bars: low "
         "support."), rates_chart(metrics, rates=rates, keys=keys)),
        ("OFI between every two groups", ("OFI(i, j) = B_i − B_j, B = (FP − FN)/n. Blue: the "
         "row group's errors favour it over the column group; red: they harm it. Centred on 0."),
         pairwise_heatmap(pairs, "ofi", keys, cell_size=cell)),
        ("Disparate impact between every two groups", ("DI(i, j) = selection rate of i / of j. "
         "Centred on 1; below 0.8 fails the four-fifths rule."),
         pairwise_heatmap(pairs, "disparate_impact", keys, cell_size=cell)),
    ]
    abroca_html = ""
    notes: list[str] = []
    if fs_page is not None and scores is not None and abroca is not None:
        if reference == "overall":
            notes.append("The report's reference is the whole population; ABROCA compares ROC "
                         "curves with a group, the largest one with both classes.")
        s_low, s_high = scores["score"].min(), scores["score"].max()
        s_low, s_high = float(s_low), float(s_high)  # type: ignore[arg-type]
        probabilities = 0.0 <= s_low and s_high <= 1.0
        charts.append((
            "ROC curves and ABROCA",
            ("ROC curve of each group; the shaded area between the reference's curve and the "
            "group with the largest ABROCA (among groups with enough rows) is that ABROCA."),
            roc_chart(fs_page, reference=ab_ref, min_support=min_support),
        ))
        if probabilities:
            charts.append((
                "Calibration", ("Fraction of positive labels against the mean score in each of "
                "10 score bins; the dashed diagonal is perfect calibration."),
                calibration_chart(fs_page.reliability().collect(), keys),
            ))
        else:
            notes.append(f"No calibration chart: the scores range over [{s_low:g}, {s_high:g}], "
                         "not probabilities in [0, 1].")
        abroca_html = "<h3>ABROCA against the reference</h3>" + _table(
            [*keys, "n", "AUC", "ABROCA", "note"],
            [
                [*(_esc(r[k]) for k in keys), _num(r["n"]), _num(r["auc"], "{:.4f}"),
                 _num(r["abroca"], "{:.4f}"),
                 "reference" if r["is_reference"] else _esc(r["undefined_reason"] or "")]
                for r in on_page(abroca).iter_rows(named=True)
            ],
            numeric=[len(keys), len(keys) + 1, len(keys) + 2],
        )

    # --- the page
    parts: list[str] = []
    parts.append(f"<h1>{_esc(title)}</h1>")
    meta = f"polars_fair {__version__}"
    if source:
        meta = f"{_esc(source)} · " + meta
    parts.append(f'<p class="meta">{meta}</p>')

    parts.append("<h2>Data</h2>")
    where_text = _describe(where) if where is not None else None
    excluded_where = size["total"] - size["kept"]
    null_note = {
        "keep": "kept, audited as a group whose value reads null",
        "drop": "dropped (null_groups='drop')",
        "raise": "none (null_groups='raise' allows none)",
    }[null_groups]
    rows = [
        ["rows in the input", _num(size["total"])],
        ["columns in the input", _num(n_columns)],
        ["rows excluded by the filter"
         + (f" <code>{_esc(where_text)}</code>" if where_text else " (no filter)"),
         _num(excluded_where)],
        [f"rows with a missing group value: {null_note}", _num(size["null_rows"])],
        ["rows audited", _num(overall["n"])],
        ["groups (" + _esc(" × ".join(keys)) + ")", _num(n_groups)],
    ]
    if left_out:
        rows.append([f"groups left out of the tables and charts (max_groups={page_groups}: the "
                     "largest groups and the reference are shown; the verdicts cover every "
                     "group)", _num(left_out)])
    parts.append(_table(["", "count"], rows, numeric=[1]))
    low = report.filter(pl.col("low_support"))
    labels = ", ".join(
        _esc(" | ".join("null" if v is None else str(v) for v in row))
        for row in low.select(keys).iter_rows()
    )
    parts.append(
        f"<p>Label <code>{_esc(_describe(y_true))}</code>, prediction "
        f"<code>{_esc(_describe(y_pred if threshold is None else f'{y_score} >= {threshold}'))}"
        f"</code>, positive value <code>{_esc(repr(pos_label))}</code>; reference group: "
        f"<b>{_esc(ref_label)}</b>. Overall: " + ", ".join(
            f"{METRICS[m].title.lower()} {_num(overall[m], '{:.1%}')}"
            for m in ("selection_rate", "base_rate", "tpr", "fpr", "accuracy")
        ) + ".</p>"
    )
    if low.height:
        parts.append(
            f"<p class=\"warn\">{low.height} group(s) with fewer than {min_support} rows (low "
            f"support; their rates are not to be trusted): {labels}.</p>"
        )

    parts.append("<h2>Verdicts</h2>")
    sum_rows = []
    for r in summary.iter_rows(named=True):
        verdict = r["verdict"]
        cls = VERDICT_CLASSES.get(verdict, "")
        sum_rows.append([
            _esc(r["metric"]), _num(r["value"], "{:.4f}"), _esc(r["group_1"]), _esc(r["group_2"]),
            _num(r["threshold"], "{:g}"),
            f'<span class="{cls}">{_esc(verdict)}</span>' if verdict else "—",
        ])
    parts.append(_table(["metric", "value", "group 1", "group 2", "threshold", "verdict"],
                        sum_rows, numeric=[1, 4]))
    excluded = summary["excluded_groups"].explode().drop_nulls().unique(maintain_order=True)
    if excluded.len():
        parts.append(f"<p>Left out of the summaries (low support): "
                     f"{_esc(', '.join(excluded.to_list()))}.</p>")
    findings = []
    for kind, cls, meaning in (
        ("algorithmic", "fail", ("the classifier's own errors favour or harm the group (|OFI| "
         f"> {ofi_threshold:g})")),
        ("systemic", "warn", ("OFI within the threshold but DI or the impact ratio fails the "
         "four-fifths rule: the disparity is in the labels or the population")),
    ):
        groups = report.filter(pl.col("finding") == kind).select(keys)
        if groups.height:
            names = ", ".join(" | ".join("null" if v is None else str(v) for v in row)
                              for row in groups.iter_rows())
            findings.append(f'<li><span class="{cls}">{kind}</span>: {_esc(names)} '
                            f"({_esc(meaning)})</li>")
    parts.append("<ul>" + "".join(findings) + "</ul>" if findings
                 else "<p class=\"pass\">No group is found algorithmic or systemic.</p>")
    parts.append(_gate_html(checks, keys, min_support))

    parts.append("<h2>Report</h2>")
    if left_out:
        parts.append(f"<p class=\"warn\">The table shows {shown.height} of {n_groups} groups "
                     f"(the largest and the reference); {left_out} left out. "
                     "<code>df.fair.report(...)</code> lists every group.</p>")
    table = style_report(report_page, reference_label=ref_label, ofi_threshold=ofi_threshold,
                         four_fifths=four_fifths, title=None)
    parts.append(f'<div class="report-table">{table.as_raw_html()}</div>')

    parts.append("<h2>Charts</h2>")
    for number, (heading, caption, chart) in enumerate(charts, start=1):
        svg = svg_for_html(to_svg(chart), prefix=f"pf-chart{number}-")
        parts.append(
            f"<figure><h3>{_esc(heading)}</h3>{svg}"
            f"<figcaption>{_esc(caption)}</figcaption></figure>"
        )
    parts.extend(f"<p>{_esc(note)}</p>" for note in notes)
    parts.append(abroca_html)

    parts.append("<h2>Definitions</h2>")
    defs = DEFINITIONS + (SCORE_DEFINITIONS if y_score is not None else ())
    parts.append(_table(["quantity", "definition", "source"],
                        [[_esc(a), _esc(b), _esc(c)] for a, b, c in defs]))
    parts.append(
        "<p>Rates with a zero denominator are undefined and shown as — (null), never 0. "
        "The reading of OFI with DI assumes the labels are correct; where the label is itself "
        "a contested record (for example a re-arrest), a systemic finding may hide biased "
        "labels.</p>"
    )
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{_esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(parts) + "\n</body>\n</html>\n"
    )
    if output is not None:
        Path(output).write_text(page, encoding="utf-8")
    return page
