"""The adverse-impact parts of an audit page: the practitioner's columns and the strata section.

:func:`impact_verdicts` adds to the verdicts the table auditors read beside the four-fifths
rule (:func:`polars_fair.analyses.impact.impact_from_counts` on the page's count table and
reference: no scan): the shortfall, the two-proportion statistic in standard deviations, the
one-person flip and the practical-significance verdict. With ``strata=``,
:func:`stratified_table` counts the rows once more at the groups and the strata together and
:func:`strata_section` lays out :func:`polars_fair.analyses.strata.stratified_from_counts`: the
pooled comparison within strata (Mantel–Haenszel, Cochran–Mantel–Haenszel, Breslow–Day) and the
split of the pooled gap into composition and within-stratum parts, with its reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair.analyses.impact import PASSED_OVER_NOTE, passed_over
from polars_fair.audit.html.figures import PageGroups, PageOptions, PageTables
from polars_fair.audit.html.text import (
    UNDEFINED,
    _esc,
    _group,
    _interval,
    _key,
    _names,
    _num,
    _p,
    _pct,
    _table,
)
from polars_fair.core.spec import By

__all__ = [
    "impact_table", "impact_verdicts", "page_strata", "strata_data", "strata_section",
    "stratified_table",
]

#: The reading under the impact table: what each practitioner's column means.
IMPACT_READING = (
    "<p><b>Disparate impact (÷ reference)</b>: the group's selection rate over the reference "
    "group's (the column impact_ratio of impact_analysis and stratified, report's "
    "disparate_impact); the impact ratio elsewhere on the page, report's and the law's, "
    "divides by the highest rate instead. <b>Shortfall</b>: the selections the group would "
    "need to reach the "
    "reference's rate (applicants × the reference's rate − selections; negative: above it). "
    "<b>z</b>: the difference of the rates in standard deviations (the pooled two-proportion "
    "statistic; the “two or three standard deviations” of the EEOC and OFCCP), signed. "
    "<b>p</b>: Fisher's exact test, two-sided (the z-test above 10<sup>9</sup> "
    "applicants){weighted}. <b>After one more selected</b>: the disparate impact had one more "
    "of the group's applicants been selected; a failure that one person reverses is a matter of"
    " sample size. <b>Practically significant</b>: fails the four-fifths rule, still fails "
    "after the flip, and p ≤ {alpha:g} (each group's own p, as practitioners read it, not "
    "adjusted for the groups compared: the headline's tests are).</p>"
)
#: The reading above the strata table.
STRATA_READING = (
    "<p>Each group is compared with the reference <em>within</em> each stratum of "
    "{strata} and the comparisons are pooled: a pooled rate can fail for "
    "composition alone (who applied where: Simpson's paradox), and per-stratum rates can each "
    "hide a small consistent gap. <b>Odds ratio (MH)</b>: the Mantel–Haenszel common odds "
    "ratio of selection, group over reference, with its {level:.0%} interval "
    "(Robins–Breslow–Greenland); 1 is no difference within strata. <b>CMH p</b>: the "
    "Cochran–Mantel–Haenszel test of no association in any stratum{correction}. <b>Breslow–Day "
    "p</b>: whether the odds ratio differs between strata (Tarone's correction); a small p "
    "means the strata disagree and the pooled odds ratio summarises them poorly. "
    "<b>Gap</b>: the reference's pooled rate minus the group's, split exactly into "
    "<b>composition</b> (where each side applied) and <b>within</b> (different rates in the "
    "same stratum), Kitagawa's symmetric form (each side's shares and rates averaged). A "
    "stratum where either side is empty or the outcome is constant tells nothing about the "
    "association and is left out of the tests (<b>informative</b> counts the others). Each "
    "p-value is the group's own, not adjusted for the number of groups compared.</p>"
)


def page_strata(strata: str | Sequence[str] | None, by: By) -> list[str] | None:
    """The page's strata checked before any data is read (``None``: no strata section).

    Parameters
    ----------
    strata : str, sequence of str or None
        ``audit_html``'s ``strata``.
    by : str, pl.Expr or list of them
        The page's attributes, none of which may be a stratum.

    Returns
    -------
    list of str or None

    Raises
    ------
    InvalidArgumentError
        As :func:`polars_fair.analyses.strata.strata_names`.

    Examples
    --------
    >>> page_strata("dept", "sex"), page_strata(None, "sex")
    (['dept'], None)
    """
    if strata is None:
        return None
    from polars_fair.analyses.strata import strata_names
    from polars_fair.core import spec

    return strata_names(strata, [spec.name_of(b) for b in spec.normalize_by(by)])


def stratified_table(audited: pl.LazyFrame, by: By, strata: list[str] | None, o: PageOptions,
                     t: PageTables) -> pl.DataFrame | None:
    """``stratified`` of the audited rows against the page's reference (one more scan).

    Parameters
    ----------
    audited : pl.LazyFrame
        The rows the page audits (after ``where``).
    by : str, pl.Expr or list of them
        The page's attributes (the groups).
    strata : list of str or None
        :func:`page_strata`; ``None`` computes nothing.
    o : PageOptions
        The page's options (count arguments, ``level``).
    t : PageTables
        The page's tables, for the reference group (with ``reference="overall"``, which
        compares a group with a population that contains it, the largest group instead).

    Returns
    -------
    pl.DataFrame or None

    Examples
    --------
    >>> stratified_table(pl.LazyFrame(), "g", None, None, None) is None  # type: ignore[arg-type]
    True
    """
    if strata is None:
        return None
    from polars_fair.api.namespace import fair
    from polars_fair.core.spec import DEFAULT_MAX_GROUPS

    return fair(audited).stratified(
        by, strata, reference="largest" if t.ref.is_overall else t.ref, level=o.level,
        y_true=o.y_true, y_pred=o.y_pred, pos_label=o.pos_label, null_groups=o.null_groups,
        y_score=o.y_score if o.threshold is not None else None, threshold=o.threshold,
        max_groups=max(o.page_groups, DEFAULT_MAX_GROUPS), sample_weight=o.sample_weight,
    ).collect()


def strata_data(table: pl.DataFrame | None) -> dict[str, Any]:
    """The strata table for the page's JSON block: ``{"stratified": rows}``, or nothing.

    Parameters
    ----------
    table : pl.DataFrame or None
        :func:`stratified_table`.

    Returns
    -------
    dict
        Empty without strata (the block then holds exactly its other keys).

    Examples
    --------
    >>> strata_data(None)
    {}
    >>> strata_data(pl.DataFrame({"g": ["a"], "gap": [0.5]}))
    {'stratified': [{'g': 'a', 'gap': 0.5}]}
    """
    from polars_fair.audit.html.provenance import _json_rows

    return {} if table is None else {"stratified": _json_rows(table)}


def impact_table(o: PageOptions, t: PageTables) -> pl.DataFrame:
    """``impact_analysis`` of the page's count table against its reference (no scan).

    The table behind :func:`impact_verdicts` and the JSON block's ``impact_analysis`` key.

    Parameters
    ----------
    o : PageOptions
        ``four_fifths``, ``level``, ``min_support``.
    t : PageTables
        The page's count table and reference.

    Returns
    -------
    pl.DataFrame
        One row per group, the columns of
        :func:`polars_fair.analyses.impact.impact_from_counts`.

    Examples
    --------
    >>> from polars_fair.audit.html import audit_html, page_data
    >>> from polars_fair.datasets import make_hiring
    >>> data = page_data(audit_html(make_hiring(300, seed=0), "sex"))
    >>> [r["is_reference"] for r in data["impact_analysis"]]
    [False, True]
    """
    return t.fc.impact_analysis(reference=t.ref, four_fifths=o.four_fifths, level=o.level,
                                min_support=o.min_support).collect()


def impact_verdicts(o: PageOptions, t: PageTables, g: PageGroups,
                    full: pl.DataFrame | None = None) -> str:
    """The impact-analysis columns of the verdicts: one row per shown group but the reference.

    Parameters
    ----------
    o : PageOptions
        ``four_fifths``, ``level``, ``sample_weight``.
    t : PageTables
        The page's count table and reference.
    g : PageGroups
        The groups shown.
    full : pl.DataFrame, optional
        :func:`impact_table`, when the page has it already (computed here otherwise).

    Returns
    -------
    str
        An HTML fragment: a heading, the table and its reading.

    Examples
    --------
    >>> from polars_fair.audit.html import audit_html
    >>> from polars_fair.datasets import make_hiring
    >>> "Adverse impact per group" in audit_html(make_hiring(300, seed=0), "sex")
    True
    """
    full = impact_table(o, t) if full is None else full
    table = g.on_page(full)
    keys = t.keys
    rows = []
    for r in table.filter(~pl.col("is_reference")).iter_rows(named=True):
        fails = r["four_fifths_pass"] is False
        practical = r["practically_significant"]
        rows.append([
            *(_esc(_key(r[k])) for k in keys),
            f"{_count(r['selected'])} / {_count(r['applicants'])}",
            _pct(r["selection_rate"]), _num(r["impact_ratio"], "{:.3f}"),
            UNDEFINED if r["four_fifths_pass"] is None else
            '<span class="fail">fails</span>' if fails else '<span class="pass">passes</span>',
            _signed(r["shortfall"], "{:+,.1f}"), _signed(r["z"], "{:+.2f}"), _p(r["p_value"]),
            _num(r["flip_impact_ratio"], "{:.3f}"),
            UNDEFINED if practical is None else
            '<span class="fail">yes</span>' if practical else "no",
        ])
    against = _reference_words(table, keys)
    header = [*keys, "selected / applicants", "selection rate", "disparate impact (÷ reference)",
              f"four-fifths ({o.four_fifths:g})", "shortfall", "z (SD)", "p",
              "after one more selected", "practically significant"]
    weighted = (", here the pooled z-test: weighted counts are not whole"
                if o.sample_weight is not None else "")
    first = len(keys)
    skipped = passed_over(full, o.reference)  # the rule asked; t.ref is the group it chose
    words = PASSED_OVER_NOTE.format(groups=_names(
        [_group(r, keys) for r in skipped.iter_rows(named=True)]), min_support=o.min_support)
    note = f"<p>{_esc(words[:1].upper() + words[1:])}.</p>" if skipped.height else ""
    return "\n".join([
        f"<h3>Adverse impact per group</h3><p>Against {against}.</p>{note}",
        _table(header, rows, numeric=[first, first + 1, first + 2, first + 4, first + 5,
                                      first + 6, first + 7], nowrap=True)
        if rows else "<p>No group besides the reference.</p>",
        IMPACT_READING.format(weighted=weighted, alpha=round(1 - o.level, 12)),
    ])


def strata_section(o: PageOptions, g: PageGroups, table: pl.DataFrame | None,
                   strata: Sequence[str] | None) -> str:
    """The strata section: each shown group against the reference within strata, in words.

    Parameters
    ----------
    o : PageOptions
        ``level`` and the reference rule.
    g : PageGroups
        The groups shown.
    table : pl.DataFrame or None
        :func:`stratified_table`; ``None``: no section (empty string).
    strata : sequence of str or None
        The strata attributes.

    Returns
    -------
    str

    Examples
    --------
    >>> strata_section(None, None, None, None)  # type: ignore[arg-type]
    ''
    """
    if table is None or strata is None:
        return ""
    keys = g.keys
    shown = g.on_page(table)
    rows, reading = [], []
    for r in shown.filter(~pl.col("is_reference")).iter_rows(named=True):
        rows.append([
            *(_esc(_key(r[key])) for key in keys), _num(r["n"]), _pct(r["selection_rate"]),
            _pct(r["reference_rate"]), _num(r["impact_ratio"], "{:.3f}"),
            _num(r["mh_odds_ratio"], "{:.3f}") + " " + _interval(r["mh_ci_low"],
                                                               r["mh_ci_high"]),
            _p(r["cmh_p_value"]), _p(r["breslow_day_p_value"]), _num(r["n_strata"]),
            _signed(r["gap"], "{:+.4f}"), _signed(r["composition"], "{:+.4f}"),
            _signed(r["within"], "{:+.4f}"),
        ])
        reading.append(_read_group(r, keys, o.level))
    header = [*keys, "n", "selection rate", "reference rate",
              "disparate impact (pooled, ÷ reference)",
              f"odds ratio (MH) [{o.level:.0%} CI]", "CMH p", "Breslow–Day p", "informative",
              "gap", "composition", "within"]
    first = len(keys)
    note = ("" if not o.reference.is_overall else
            "<p>The page compares with the whole population; within strata each group is "
            "compared with the largest group instead (a population contains the group).</p>")
    return "\n".join([
        f"<h2>Within strata: {_esc(', '.join(strata))}</h2>",
        f"<p>Against {_reference_words(shown, keys)}.</p>", note,
        STRATA_READING.format(strata=_esc(" × ".join(strata)), level=o.level,
                              correction=" (without continuity correction)"),
        _table(header, rows, numeric=range(first, first + 11), nowrap=True)
        if rows else "<p>No group besides the reference.</p>",
        "<ul>" + "".join(f"<li>{x}</li>" for x in reading if x) + "</ul>" if reading else "",
    ])


def _read_group(r: dict[str, Any], keys: Sequence[str], level: float) -> str:
    """One group's stratified finding in a sentence."""
    name = _esc(_group(r, keys))
    if r["gap"] is None:
        return f"{name}: no comparison (a side without applicants)."
    parts = [f"{name}: the pooled gap of {_signed(r['gap'], '{:+.4f}')} is "
             f"{_signed(r['composition'], '{:+.4f}')} composition and "
             f"{_signed(r['within'], '{:+.4f}')} within strata"]
    if r["cmh_p_value"] is None:
        parts.append("no stratum compares the two sides, so there is no pooled test")
    else:
        alpha = 1 - level
        found = ("an association within strata" if r["cmh_p_value"] <= alpha
                 else "no association within strata")
        parts.append(f"the stratified test finds {found} (CMH p {_p_words(r['cmh_p_value'])})")
        bd = r["breslow_day_p_value"]
        if bd is not None and bd <= alpha:
            parts.append(f"but the strata differ (Breslow–Day p {_p_words(bd)}): read them one by "
                         "one")
    return "; ".join(parts) + "."


def _reference_words(table: pl.DataFrame, keys: Sequence[str]) -> str:
    ref = table.filter(pl.col("is_reference"))
    if not ref.height:
        return "the whole population"
    return "the reference group " + _esc(_names([_group(r, keys) for r in ref.iter_rows(
        named=True)]))


def _p_words(x: Any) -> str:
    """A p-value in a sentence: "= 0.217" or "&lt; 0.001" (never "= &lt; 0.001")."""
    text = _p(x)
    return text if text.startswith("&lt;") else f"= {text}"


def _signed(x: Any, fmt: str) -> str:
    return _num(x, fmt).replace("-", "−")


def _count(x: Any) -> str:
    if x is None:
        return UNDEFINED
    return f"{x:,}" if isinstance(x, int) else f"{x:,.1f}"
