"""The words, styles and cell formats of the HTML audit page, shared by its sections.

The page's constants (how a missing key and an undefined figure read, the JSON block's keys,
the definitions of every quantity with its source, the CSS) and the small functions that write
one cell, one list of names or one table. Nothing here reads data.
"""

from __future__ import annotations

import html as _html
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from polars_fair import errors as E
from polars_fair.core.labels import list_text, markup_text, text_of
from polars_fair.core.registry import METRICS, PAIR_METRICS

# The public names are those of the package (polars_fair.audit.html.__all__).

#: How a null group key reads on the page (a group of rows whose attribute is missing).
MISSING = "(missing)"
#: How an undefined figure (a zero denominator, null) reads on the page.
UNDEFINED = "—"
#: The keys of the page's JSON block (``abroca`` and ``abroca_test`` only with scores;
#: ``divergence`` only when given).
DATA_KEYS = ("provenance", "report", "metrics", "disparity", "summary", "impact_analysis",
             "abroca", "abroca_test")
#: The id of the page's ``<script type="application/json">`` block.
DATA_ID = "polars-fair-data"
#: The most groups a chart of the page draws (a heatmap grows with the square of the groups;
#: the calibration panels stop at :data:`polars_fair.audit.plot.CHART_GROUPS`).
CHART_PAGE_GROUPS = 20
#: Said under every reading of a finding: OFI, DI and the error rates take the labels as true.
LABEL_BIAS_CAVEAT = (
    "Every reading here takes the labels as the truth. Where the label is itself the record "
    "of a possibly biased process (a re-arrest rather than a crime, a past hiring or lending "
    "decision, a recorded income), a systemic finding may be label bias, and error rates "
    "measured against biased labels can look fair when they are not."
)

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
#: metrics (every per-group metric, DI and OFI) are their entries of
#: :mod:`polars_fair.core.registry`; the rest are not metrics (the impact ratio, the four-fifths
#: rule, support, the findings).
DEFINITIONS: tuple[tuple[str, str, str], ...] = _metric_definitions() + (
    ("Impact ratio", "selection rate / the highest selection rate among the groups (in "
     "report and bias_audit; the impact_ratio of impact_analysis and stratified divides by the "
     "reference group's rate: report's disparate_impact)",
     "EEOC four-fifths rule, 29 CFR 1607.4(D); NYC Local Law 144 (6 RCNY 5-300)"),
    ("Adverse impact", "impact ratio < 0.8 (four_fifths)", "four-fifths rule"),
    ("OFI flag", "|OFI| > 0.3 (ofi_threshold)", "Briscoe et al., OFI paper"),
    ("Finding", ("algorithmic: |OFI| > threshold; systemic: OFI within it but DI or impact ratio "
     "fails the four-fifths rule; insufficient support: the group, or the group it is measured "
     "against, has n < min_support, or OFI is undefined; constant labels / constant "
     "predictions: y_true / y_pred holds one value on every row, so neither cause can be "
     "read"),
     "OFI paper §2.3 (assumes correct labels)"),
    ("Low support", "n < min_support (30)", "too few rows to trust the rates"),
    ("Confidence interval", "Wilson score interval at 95% of a rate (a proportion)",
     "Wilson 1927; Newcombe 1998"),
    ("Difference and ratio vs reference", ("rate − reference rate with Newcombe's hybrid "
     "score interval; rate / reference rate with the MOVER-R interval from the same Wilson "
     "intervals"),
     "Newcombe 1998 (method 10); Donner & Zou 2012"),
    ("Adjusted p-value", ("two-sided test of equal rates (z, or Fisher's exact test for small "
     "counts), adjusted over the groups compared with the reference (Holm step-down, or "
     "Benjamini–Hochberg); significant: adjusted p ≤ 1 − level"),
     "Holm 1979; Benjamini & Hochberg 1995"),
)
#: What the ABROCA p-value counts (:mod:`polars_fair.analyses.scores.permutation`): the test
#: permutes group membership, not labels; each row keeps its (score, label) pair.
PERMUTATION_P = (
    "(1 + k) / (1 + {n}), k the number of {n} seeded permutations of group membership between "
    "the group and the reference whose ABROCA is at least the observed one (each draw gives "
    "the group a random subset of the pair's pooled rows, of the group's size, each row "
    "keeping its score and label; a draw that leaves a group without both classes is redrawn)"
)
SCORE_DEFINITIONS: tuple[tuple[str, str, str], ...] = (
    ("AUC", "Mann–Whitney U / (P · N), ties counted ½", "area under the ROC curve"),
    ("ABROCA", "∫₀¹ |TPR_g(f) − TPR_ref(f)| df, exact on the piecewise-linear ROC curves",
     "Gardner, Brooks & Baker 2019 (LAK'19); Borchers et al., \"A Test for ABROCA\""),
    ("ABROCA p-value", PERMUTATION_P.format(n="B") + "; Holm-adjusted over the groups",
     "Borchers et al., \"A Test for ABROCA\" (Algorithm 1)"),
    ("Calibration", "fraction of positives against the mean score per score bin",
     "reliability diagram (DeGroot & Fienberg 1983)"),
)

#: The name each multiplicity adjustment has on the page.
ADJUST_NAMES = {"holm": "Holm", "bh": "Benjamini–Hochberg"}

#: The CSS class of each summary verdict (:data:`polars_fair.analyses.summary.RULE_VERDICTS`): a
#: verdict that could not be reached reads differently from a pass or a fail.
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
table.pf td.num { text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap; }
table.prov code { display: inline-block; margin: 0 0.4rem 0.2rem 0; }
.fail { color: #b3261e; font-weight: 600; }
.pass { color: #137333; font-weight: 600; }
.warn { color: #8a5300; font-weight: 600; }
.undefined { color: #5f6368; font-style: italic; font-weight: 600; }
.insufficient { color: #8a5300; font-style: italic; font-weight: 600; }
figure { margin: 1.2rem 0 2rem 0; overflow-x: auto; }
figcaption { color: #5f6368; font-size: 0.9rem; max-width: 60rem; }
code { background: #f1f3f4; padding: 0 0.25rem; border-radius: 3px; }
.report-table { overflow-x: auto; }
tr.low td { color: #5f6368; font-style: italic; }
table.nowrap td { white-space: nowrap; }
table.nowrap { font-size: 0.85rem; }
.headline li { margin: 0.25rem 0; }
.caveat { border-left: 3px solid #dadce0; padding: 0.2rem 0.8rem; color: #3c4043; }
table.prov td:first-child { color: #5f6368; white-space: nowrap; }
table.prov td { word-break: break-word; }
.mono { font-family: ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace;
        font-size: 0.85rem; }
/* print: whole rows, repeated headers, a heading never last on a page, a chart never cut */
tr { break-inside: avoid; page-break-inside: avoid; }
thead { display: table-header-group; }
@page { size: A4 landscape; margin: 12mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 9.5pt; }
  h1, h2, h3 { break-after: avoid; page-break-after: avoid; break-inside: avoid; }
  h2 + p, h3 + p { break-before: avoid; page-break-before: avoid; }
  figure { break-inside: avoid; page-break-inside: avoid; overflow: visible; }
  .report-table { overflow: visible; }
  /* a chart fits a page: at most 140 mm high (A4 landscape holds 186 mm inside the margins,
     with room for its heading and caption), scaled with its aspect ratio */
  figure svg { max-width: 100%; max-height: 140mm; width: auto; height: auto; }
  li, p, figcaption { break-inside: avoid; page-break-inside: avoid; }
  table.pf, .report-table table { font-size: 8.5pt; }
  table.nowrap td { white-space: normal; }
}
"""

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
        An SVG document, as :func:`polars_fair.audit.plot.to_svg` returns it.
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
    # a value's controls and the backslashes before them escaped once, here (markup_text)
    return _html.escape(markup_text("null" if x is None else str(x)))


def _num(x: Any, fmt: str = "{:,}") -> str:
    return "—" if x is None else fmt.format(x)


def _table(
    header: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = (),
    row_classes: Sequence[str] | None = None, nowrap: bool = False,
) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in header)
    classes = row_classes or [""] * len(rows)
    body = "".join(
        (f'<tr class="{cls}">' if cls else "<tr>") + "".join(
            f'<td class="num">{cell}</td>' if j in numeric else f"<td>{cell}</td>"
            for j, cell in enumerate(row)
        ) + "</tr>"
        for row, cls in zip(rows, classes, strict=True)
    )
    if nowrap:  # a wide table of short cells: one line a row, scrolled on a narrow screen
        return (f'<div class="report-table"><table class="pf nowrap"><thead><tr>{head}</tr>'
                f"</thead><tbody>{body}</tbody></table></div>")
    return f'<table class="pf"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


#: Polars' expression text and the Python the user typed for it (:func:`_describe`).
_SPELLING = (
    (re.compile(r"dyn \w+: "), ""),  # the type tag of a literal: (dyn int: 1) -> (1)
    (re.compile(r'(?<![\w.])col\("'), 'pl.col("'),  # col("a") -> pl.col("a")
    (re.compile(r'\((pl\.col\("[^"]*"\))\)'), r"\1"),  # (pl.col("a")) -> pl.col("a")
    # a bare literal in parentheses, not a call's argument: (1) -> 1, ("yes") -> "yes"
    (re.compile(r"(?<![\w.])\(([^()\[\]]*)\)"), r"\1"),
    (re.compile(r"\(\[([^\[\]]*)\]\)"), r"(\1)"),  # a call's literal: fill_null([0]) -> (0)
    (re.compile(r"\(\["), "("),  # a comparison inside another: ([a > 1]) -> (a > 1)
    (re.compile(r"\]\)"), ")"),
)


def _describe(x: Any) -> str:
    """A column or expression as the page names it: the user's name or spelling, never a plan.

    A column name is itself; ``pl.col("old")`` is ``old``; an aliased expression is its alias
    (the command line aliases its SQL to the text typed: ``old = 1``); any other expression is
    written as the Python that builds it (``pl.col("old") == 1``), not as Polars' plan text
    (``[(col("old")) == (dyn int: 1)]``).

    Examples
    --------
    >>> import polars as pl
    >>> _describe("old"), _describe(pl.col("old")), _describe((pl.col("s") >= 0.5).alias("s5"))
    ('old', 'old', 's5')
    >>> _describe(pl.col("old") == 1)
    'pl.col("old") == 1'
    >>> _describe((pl.col("a") > 1) & (pl.col("b") == "yes"))
    '(pl.col("a") > 1) & (pl.col("b") == "yes")'
    """
    if isinstance(x, str):
        return x
    import polars as pl

    if isinstance(x, pl.Expr):
        if x.meta.is_column() or not x.meta.eq(x.meta.undo_aliases()):
            name = x.meta.output_name(raise_if_undetermined=False)
            if name is not None:
                return name
        text = str(x)
        for pattern, spelled in _SPELLING:
            text = pattern.sub(spelled, text)
        return text[1:-1] if text.startswith("[") and text.endswith("]") else text
    return str(x)


def _key(v: Any) -> str:
    """A group key value as the page writes it: a null key is the group of missing values.

    Quoted as every label is (:func:`polars_fair.core.labels.text_of`): the text ``"(missing)"``
    never reads as the missing group.
    """
    return text_of(v, missing=MISSING)


def _group(row: Mapping[str, Any], keys: Sequence[str]) -> str:
    """A group as every part of the page spells it (:func:`polars_fair.core.labels.group_label`).

    ``"White | Male"``; a null key reads "(missing)"; a value that could read as another is
    quoted.
    """
    ambiguous = (" | ",) if len(keys) > 1 else ()
    return " | ".join(text_of(row[k], missing=MISSING, ambiguous=ambiguous)
                      for k in keys) if keys else "everyone"


#: How the page names the reference when it is the whole population.
WHOLE_POPULATION = "the whole population (reference='overall')"


def _reference_label(table: Any, keys: Sequence[str]) -> str:
    """The reference group of a table with ``is_reference``, spelt as :func:`_group` does."""
    rows = table.filter(table["is_reference"].fill_null(False))
    return _group(rows.row(0, named=True), keys) if rows.height else WHOLE_POPULATION


def _p(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return UNDEFINED
    return "&lt; 0.001" if x < 0.001 else f"{x:.3f}"


def _pct(x: Any) -> str:
    return UNDEFINED if x is None else f"{100 * x:.1f}%"


def _rows(n: Any) -> str:
    """A number of rows in words: ``1 row``, ``30 rows``, ``2.5 rows`` (30.0 as 30)."""
    shown = int(n) if isinstance(n, float) and n.is_integer() else n
    return f"{shown} row" if shown == 1 else f"{shown} rows"


def _interval(low: Any, high: Any, fmt: str = "{:.3f}") -> str:
    if low is None or high is None:
        return UNDEFINED
    return f"[{fmt.format(low)}, {fmt.format(high)}]".replace("-", "−")


def _pct_interval(low: Any, high: Any) -> str:
    """An interval of rates in the unit of the rate beside it: ``[2.9%, 11.6%]``."""
    if low is None or high is None:
        return UNDEFINED
    return f"[{100 * low:.1f}%, {100 * high:.1f}%]"


def _names(groups: Sequence[str], limit: int = 12) -> str:
    shown = list_text(groups[:limit])  # "x, y" as one group, never two
    return shown if len(groups) <= limit else f"{shown} and {len(groups) - limit} more"


def _classes(row: Mapping[str, Any]) -> str:
    """``", 6 positives, 103 negatives"`` when the row has the counts (a ROC curve's support)."""
    if row.get("positives") is None or row.get("negatives") is None:
        return ""
    return f", {row['positives']:,} positives, {row['negatives']:,} negatives"


def _attempt(build: Callable[[], Any]) -> Any:
    """A chart, or the reason it cannot be drawn (a polars_fair error's message)."""
    try:
        return build()
    except E.PolarsFairError as exc:
        return str(exc)
