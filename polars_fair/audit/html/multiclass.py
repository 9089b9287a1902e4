"""The audit page of a multiclass decision: per class, each group's share and its verdict.

:func:`multiclass_html` counts the rows once into a class table
(:func:`polars_fair.class_counts`) and lays out, from that table alone,
``multiclass_report`` (per group and class: the share placed in the class, the impact ratio
against the highest share of that class and the four-fifths verdict; with true classes the
one-vs-rest TPR, FPR and PPV) and ``multiclass_test`` (the chi-square test of independence of
the predicted class and the group, exact-law or Monte-Carlo p-value).

The page, in order (:data:`MULTICLASS_SECTIONS`, one builder each, ``ClassPage -> str``): the
header; the **verdict** (PASS or FAIL of the four-fifths rule in every class, each failing
group and class with its share and impact ratio; when all pass, each class's group closest to
the limit; the chi-square test in one sentence); the provenance; the data; the tables per
class; the test; the charts (each group's share per class, and the impact ratios with the
four-fifths line); the definitions; and the tables as JSON (keys
:data:`MULTICLASS_DATA_KEYS`). Groups are spelt as on every page
(:func:`polars_fair.core.labels.text_of`) and escaped; the print stylesheet is the binary
page's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

import polars as pl

from polars_fair._docs import borrow
from polars_fair.audit.html import outcomes
from polars_fair.audit.html.charts import Chart, unvalidated
from polars_fair.audit.html.outcomes import (
    OutcomePage,
    PageArgs,
    data_block_html,
    data_html,
    on_page,
)
from polars_fair.audit.html.page import audit_html
from polars_fair.audit.html.provenance import _json_rows
from polars_fair.audit.html.text import (
    CHART_PAGE_GROUPS,
    UNDEFINED,
    _attempt,
    _esc,
    _group,
    _key,
    _names,
    _num,
    _p,
    _pct,
    _rows,
    _table,
)
from polars_fair.core.labels import text_of
from polars_fair.core.limits import with_limits
from polars_fair.core.numbers import limit_text
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS, By, IntoExpr, NullGroups

__all__ = ["MULTICLASS_DATA_KEYS", "MULTICLASS_DEFINITIONS", "MULTICLASS_SECTIONS",
           "multiclass_html"]

#: The keys of the multiclass page's JSON block.
MULTICLASS_DATA_KEYS = ("provenance", "multiclass_report", "multiclass_test")
#: (quantity, definition, source) of every figure of the multiclass page.
MULTICLASS_DEFINITIONS: tuple[tuple[str, str, str], ...] = (
    ("Share in the class (selection rate)", "n_class / n: the group's rows predicted in the "
     "class (with ordered classes: in the class or above)",
     "NYC Local Law 144 rules, 6 RCNY § 5-301(b)(4) (a tool that classifies candidates); "
     "SolasAI's categorical adverse impact ratio (ordered)"),
    ("Impact ratio", "the group's share / the highest share of that class among the groups "
     "with at least min_support rows", "29 CFR 1607.4(D); 6 RCNY § 5-300"),
    ("Adverse impact", "impact ratio < four_fifths (0.8), decided exactly on the counts",
     "EEOC four-fifths rule, 29 CFR 1607.4(D)"),
    ("Disparate impact", "the group's share / the reference group's share", "—"),
    ("TPR, FPR, PPV of a class", "one-vs-rest: TP/(TP+FN), FP/(FP+TN), TP/(TP+FP) with the "
     "class as the positive", "scikit-learn's confusion_matrix per class"),
    ("Chi-square test", "Σ (O − E)² / E over groups × predicted classes, E = n_g n_c / n, "
     "(R − 1)(C − 1) degrees of freedom; the law's p-value when every E ≥ 5, else a seeded "
     "Monte-Carlo p-value (1 + k)/(1 + B) over tables drawn with the same margins",
     "Pearson 1900; Cochran 1954; R's chisq.test(simulate.p.value=TRUE)"),
    ("Cramér's V", "√(χ² / (n (min(R, C) − 1))), in [0, 1]", "Cramér 1946"),
    ("Low support", "n < min_support: not checked, not the highest share while a supported "
     "group exists", "too few rows to trust the shares"),
)


@dataclass(frozen=True)
class ClassPage(OutcomePage):
    """Everything the multiclass page shows, computed once, for the section builders."""

    classes: list[Any]
    test: pl.DataFrame
    four_fifths: float
    ordered: bool
    labelled: bool
    weighted: bool


#: A section of the multiclass page: the context in, its HTML out ("" leaves it out).
ClassSection = Callable[[ClassPage], str]


@borrow(audit_html, params=("null_groups", "where", "source, path", "output", "filters",
                           "rows_read", "generated"), sections=("Returns",))
@with_limits
@outcomes.page_args("Multiclass fairness audit")
def multiclass_html(
    data: pl.DataFrame | pl.LazyFrame,
    by: By,
    *,
    y_pred: IntoExpr = "y_pred",
    y_true: IntoExpr | None = None,
    classes: Sequence[Any] | None = None,
    ordered: bool = False,
    reference: Any = DEFAULTS.reference,
    min_support: int = DEFAULTS.min_support,
    four_fifths: float = DEFAULTS.four_fifths,
    sample_weight: IntoExpr | None = None,
    null_groups: NullGroups = "keep",
    where: str | pl.Expr | None = None,
    n_permutations: int = DEFAULTS.n_permutations,
    seed: int = 0,
    **page: Unpack[PageArgs],
) -> str:
    """Write the audit of a multiclass decision as one self-contained HTML document.

    One scan of the rows into the class table (:func:`polars_fair.class_counts`); the page
    shows ``multiclass_report`` per class (each group's share in the class, its impact ratio
    against the highest share of the class and the four-fifths verdict, NYC Local Law 144's
    "for each group" of a tool that classifies, 6 RCNY § 5-301(b)(4)) and ``multiclass_test``
    (chi-square test of independence of predicted class and group), verdict first, with charts,
    definitions, provenance and the tables as JSON (:mod:`polars_fair.audit.html.multiclass`).

    Parameters
    ----------
    data : pl.DataFrame or pl.LazyFrame
        The rows (a LazyFrame from ``scan_*`` is read lazily).
    by : str, pl.Expr or list of them
        One attribute set (several attributes: their intersection).
    y_pred : str or pl.Expr, default "y_pred"
        The predicted class.
    y_true : str or pl.Expr, optional
        The true class: adds the one-vs-rest TPR, FPR and PPV of each class.
    classes : sequence, optional
        Every class, in order (a class no one received is a row of zeros).
    ordered : bool, default False
        The share is the share at or above each class (in ``classes`` order).
    reference : "largest", "max_selection_rate", "overall", group value or mapping
        The reference group of the disparate impact.
    min_support : int, default 30
        Groups with fewer rows are low support: shown, not checked.
    four_fifths : float, default 0.8
        The impact-ratio threshold.
    sample_weight : str or pl.Expr, optional
        Weights: the shares and ratios are weighted (the chi-square test counts rows).
    n_permutations, seed : int, default 1000, 0
        The Monte-Carlo draws of the chi-square test (when an expected count is below 5).
    title, model, note : str, optional
        The page's title, the model audited, a free note.
    max_groups : int, default 50
        The most groups the tables and charts show (the reference, then the largest).

    combinations : None
        Not supported: a page audits one attribute set (``InvalidArgumentError`` otherwise).

    Raises
    ------
    ImportError
        Without the plot extra.
    InvalidArgumentError
        Bad page arguments (``by``, ``output``, ``filters``, ``rows_read``, ``max_groups``),
        before any read; bad options, as ``multiclass_report``.
    SizeLimitError
        ``max_groups`` above |limit:page_groups|.
    PolarsFairError
        Bad input, as :func:`polars_fair.class_counts` (a missing column, one class only, a
        null class, ...).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.audit.html import multiclass_html, page_data
    >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4,
    ...                    "band": ["hi", "hi", "lo", "lo", "hi", "lo", "lo", "lo"]})
    >>> page = multiclass_html(df, "g", y_pred="band", min_support=1)
    >>> sorted(page_data(page)), "<h2>Verdict: FAIL</h2>" in page
    (['multiclass_report', 'multiclass_test', 'provenance'], True)
    """
    rows = outcomes.page_rows("multiclass_html", data, by, where, page)
    from polars_fair.api.classes import class_counts, from_class_counts

    counted = class_counts(rows.audited, by, y_pred=y_pred, y_true=y_true, classes=classes,
                           sample_weight=sample_weight, null_groups=null_groups)
    table = counted.frame.collect()  # the one scan; every table below is from it
    fc = from_class_counts(table, counted.keys, classes=counted.classes)
    report = fc.multiclass_report(ordered=ordered, reference=reference,
                                  min_support=min_support, four_fifths=four_fifths).collect()
    # the test counts rows, not weights (multiclass_test refuses a weighted table)
    test = from_class_counts(table.drop("weight_sum", POSITIVE_WEIGHT_ROWS, strict=False),
                             counted.keys,
                             classes=counted.classes).multiclass_test(
        n_permutations=n_permutations, seed=seed).collect()
    class_list = report["class"].unique(maintain_order=True).to_list()
    context = outcomes.outcome_page(
        ClassPage, rows, page, report, list(fc.keys),
        {"y_pred": y_pred, "y_true": y_true, "reference": reference, "min_support": min_support,
         "sample_weight": sample_weight, "null_groups": null_groups, "where": where},
        {"classes": class_list, "ordered": ordered, "four_fifths": four_fifths,
         "n_permutations": n_permutations, "seed": seed}, int(table["n"].sum()),
        classes=class_list, test=test, four_fifths=four_fifths, ordered=ordered,
        labelled="tpr" in report.columns, weighted="weight_sum" in report.columns)
    with unvalidated():
        context = _with_charts(context)
    return outcomes.written(rows, page["title"], MULTICLASS_SECTIONS, context)


def _with_charts(p: ClassPage) -> ClassPage:
    """The page with its two charts: the shares per class, the impact ratios per class."""
    from dataclasses import replace

    from polars_fair.audit.outcome_plot import class_chart

    drawn = p.shown.head(CHART_PAGE_GROUPS)
    report = on_page(p.report, drawn, p.keys) if p.keys else p.report
    not_drawn = p.shown.height - drawn.height + len(p.left_out)
    tail = (f" {not_drawn} group(s) not drawn (the charts show the reference and the "
            f"{drawn.height - 1} largest others)." if not_drawn else "")
    share = ("the share at or above each class (ordered classes)" if p.ordered
             else "the share of the group placed in each class")
    charts: list[Chart] = [
        ("Share of each group per class", (f"Bars: {share}; faint bars: low support (fewer "
         f"than {_rows(p.min_support)})." + tail),
         _attempt(lambda: class_chart(report, p.keys, value="selection_rate"))),
        ("Impact ratio per class", ("Each group's share over the highest share of the class "
         f"among the supported groups; below the dashed line at {p.four_fifths:g} fails the "
         "four-fifths rule. A class no one received has no ratio." + tail),
         _attempt(lambda: class_chart(report, p.keys, value="impact_ratio",
                                      four_fifths=p.four_fifths))),
    ]
    return replace(p, charts=charts)


def _name(r: dict[str, Any], keys: Sequence[str]) -> str:
    return _esc(_group(r, keys)) if keys else "everyone"


def _class(value: Any) -> str:
    return _esc(text_of(value))


def _count(x: Any) -> str:
    if x is None:
        return UNDEFINED
    return f"{x:,}" if isinstance(x, int) else f"{x:,.1f}"


def _ratio(x: Any) -> str:
    return _num(x, "{:.3f}")


def chi_square_sentence(p: ClassPage) -> str:
    """The chi-square test in one sentence of HTML (the verdict's and the test section's)."""
    if not p.test.height:
        return ""
    r = p.test.row(0, named=True)
    if r["method"] == "undefined":
        return ("No test of independence: it needs at least two groups and two predicted "
                "classes.")
    law = ("the chi-square law (every expected count is at least 5)" if r["method"] ==
           "chi-square" else f"a Monte-Carlo test (an expected count is {r['min_expected']:.2f}"
           ", below 5: the law is not trusted there)")
    p_text = _p(r["p_value"])
    p_words = f"p {p_text}" if p_text.startswith("&lt;") else f"p = {p_text}"
    return (f"Predicted class and group: χ² = {r['chi2']:.2f} with {r['dof']} degrees of "
            f"freedom, {p_words} by {_esc(law)}; Cramér's V = {r['v']:.3f}.")


def class_verdict_section(p: ClassPage) -> str:
    """PASS or FAIL of the four-fifths rule in every class, each failure with its figures.

    With ordered classes the lowest class is not checked: at or above it is every row, a share
    of 1 for every group, so its check could not fail (it would only inflate the count).
    """
    lowest = _always_one(p)
    checked = p.report.filter(~pl.col("low_support"))
    if lowest:
        checked = checked.filter(pl.col("class") != pl.lit(lowest[0], p.report["class"].dtype))
    fails = checked.filter(pl.col("adverse_impact"))
    verdict = "FAIL" if fails.height else "PASS"
    css = "fail" if fails.height else "pass"
    n_checks = checked.filter(pl.col("impact_ratio").is_not_null()).height
    rule = ("the share at or above the class" if p.ordered else "the share placed in the class")
    parts = [
        f"<h2>Verdict: {verdict}</h2>",
        f'<p class="{css}">{fails.height} of {n_checks} (group, class) checks fail the '
        f"four-fifths rule.</p>",
        f"<p>The rule, in every class: {rule}, over the highest such share among the groups "
        f"with at least {_rows(p.min_support)}, is at least {p.four_fifths:g} (29 CFR "
        "1607.4(D); for a tool that classifies, NYC Local Law 144's impact ratio for each "
        "class, 6 RCNY § 5-301(b)(4)).</p>",
    ]
    shown = fails if fails.height else _closest(checked, p.keys)
    cells = []
    for r in shown.iter_rows(named=True):
        state = ('<span class="fail">fails</span>' if r["adverse_impact"]
                 else '<span class="pass">passes</span> (closest to the limit in its class)')
        cells.append([f"<b>{_name(r, p.keys)}</b>", _class(r["class"]), _num(r["n"]),
                      _pct(r["selection_rate"]), _ratio(r["impact_ratio"]),
                      f"≥ {limit_text(p.four_fifths)}", state])
    if cells:
        parts.append(_table(["group", "class", "n", "share", "impact ratio", "limit", "check"],
                            cells, numeric=[2, 3, 4]))
    if lowest:
        parts.append(f"<p>Not checked: the lowest class, {_class(lowest[0])}, whose share at or "
                     "above it is 1 for every group (every row is at or above the lowest "
                     "class), so its check always passes.</p>")
    undefined = checked.filter(pl.col("impact_ratio").is_null())["class"].unique(
        maintain_order=True).to_list()
    if undefined:
        parts.append(f"<p>No impact ratio (no supported group received the class): "
                     f"{_esc(', '.join(text_of(c) for c in undefined))}.</p>")
    low = _low_groups(p)
    if low:
        parts.append(f"<p>Not checked (fewer than {_rows(p.min_support)}): "
                     f"{_esc(_names(low))}.</p>")
    parts.append(f"<p>{chi_square_sentence(p)}</p>" if p.test.height else "")
    parts.append(f"<p class=\"legend\">{UNDEFINED} on this page means an undefined figure (a "
                 "zero denominator), nothing else.</p>")
    return "\n".join(x for x in parts if x)


def _always_one(p: ClassPage) -> list[Any]:
    """``[the lowest class]`` of an ordered page (its share is 1 for everyone), else ``[]``."""
    return [p.classes[0]] if p.ordered and p.classes else []


def _closest(checked: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """Per class, the checked group with the lowest impact ratio (the closest to the limit)."""
    rated = checked.filter(pl.col("impact_ratio").is_not_null()).with_row_index("__pf_row")
    return (rated.sort(["impact_ratio", "__pf_row"]).unique("class", keep="first")
            .sort("__pf_row").drop("__pf_row"))


def _low_groups(p: ClassPage) -> list[str]:
    low = p.report.filter(pl.col("low_support")).unique(p.keys, keep="first",
                                                        maintain_order=True)
    return [_group(r, p.keys) for r in low.iter_rows(named=True)] if p.keys else []


def class_data_section(p: ClassPage) -> str:
    """The rows read, filtered and audited, the groups, the columns, low support."""
    columns = [("prediction (class)", p.y_pred)]
    if p.y_true is not None:
        columns.append(("true class", p.y_true))
    columns.append(("classes, in order", ", ".join(text_of(c) for c in p.classes)))
    n_groups = p.report.unique(p.keys).height if p.keys else 1
    return data_html(p.rows, int(p.prov["rows"]["audited"]), p.keys, n_groups, p.left_out,
                     p.null_groups, p.where, columns, _low_groups(p), p.min_support)


def class_tables_section(p: ClassPage) -> str:
    """One table per class: each shown group's share, ratios and verdict (and error rates)."""
    report = on_page(p.report, p.shown, p.keys) if p.keys else p.report
    parts = [f"<h2>Per class</h2><p>Against the reference group <b>{_esc(p.ref_label)}</b> "
             "for the disparate impact; the impact ratio is against the highest share of the "
             "class." + (" Weighted: counts are weight sums." if p.weighted else "") + "</p>"]
    extra = ["tpr", "fpr", "ppv"] if p.labelled else []
    counted = "at or above the class" if p.ordered else "in the class"
    header = [*p.keys, "n", counted, "share", "disparate impact (÷ reference)",
              "impact ratio (÷ highest)",
              f"four-fifths ({p.four_fifths:g})", *[m.upper() for m in extra], "note"]
    first = len(p.keys)
    for value in p.classes:
        part = report.filter(pl.col("class") == value)
        rows, classes = [], []
        always = value in _always_one(p)
        for r in part.iter_rows(named=True):
            verdict = ("always 1: not checked" if always else
                       UNDEFINED if r["impact_ratio"] is None else
                       '<span class="fail">fails</span>' if r["adverse_impact"] else
                       '<span class="pass">passes</span>')
            rows.append([*(_esc(_key(r[k])) for k in p.keys), _num(r["n"]),
                         _count(r["n_class"]), _pct(r["selection_rate"]),
                         _ratio(r["disparate_impact"]), _ratio(r["impact_ratio"]),
                         verdict + (" (low support)" if r["low_support"] else ""),
                         *(_pct(r[m]) for m in extra),
                         "reference" if r["is_reference"] else
                         "low support" if r["low_support"] else ""])
            classes.append("low" if r["low_support"] else "")
        parts.append(f"<h3>Class {_class(value)}</h3>")
        parts.append(_table(header, rows, numeric=range(first, first + 5 + len(extra) + 1),
                            row_classes=classes, nowrap=True))
    return "\n".join(parts)


def class_test_section(p: ClassPage) -> str:
    """The chi-square test of independence of the predicted class and the group."""
    rows = [[_num(r["n"]), _num(r["chi2"], "{:.3f}"), _num(r["dof"]), _p(r["p_value"]),
             _num(r["v"], "{:.3f}"), _num(r["min_expected"], "{:.2f}"), _esc(r["method"])]
            for r in p.test.iter_rows(named=True)]
    return "\n".join([
        "<h2>Does the predicted class depend on the group?</h2>",
        f"<p>{chi_square_sentence(p)} The test counts rows, not weights; a small p "
        "says the classes are not shared alike, not which group is disadvantaged: the "
        "tables per class say that.</p>",
        _table(["rows", "χ²", "dof", "p", "Cramér's V", "smallest expected count", "p-value"],
               rows, numeric=range(6)),
    ])


def class_data_block_section(p: ClassPage) -> str:
    """The page's tables as JSON (:data:`MULTICLASS_DATA_KEYS`)."""
    return data_block_html({"provenance": p.prov, "multiclass_report": _json_rows(p.report),
                            "multiclass_test": _json_rows(p.test)})


#: The sections of the multiclass page, in order.
MULTICLASS_SECTIONS: tuple[ClassSection, ...] = (
    outcomes.outcome_header_section,
    class_verdict_section,
    outcomes.outcome_provenance_section,
    class_data_section,
    class_tables_section,
    class_test_section,
    outcomes.outcome_charts_section,
    outcomes.definitions_section(MULTICLASS_DEFINITIONS),
    class_data_block_section,
)
