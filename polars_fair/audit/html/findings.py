"""The findings of an audit page in words: the headline, the reading of each finding, the gate.

The headline states only what is significant after adjustment for multiple comparisons;
everything else is labelled "not significant (p = ...)". The reading says what an algorithmic
or a systemic finding means, with the label-bias caveat. The numbers come from the analyses;
this module only words them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_fair.audit.html.text import (
    ADJUST_NAMES,
    LABEL_BIAS_CAVEAT,
    MISSING,
    _classes,
    _esc,
    _group,
    _interval,
    _names,
    _num,
    _p,
    _pct,
    _table,
)
from polars_fair.core.registry import METRICS


def _gate_html(checks: pl.DataFrame, keys: Sequence[str], min_support: int) -> str:
    """The gate's frame (:func:`polars_fair.audit.gate.gate`) as a verdict and its failing rows."""
    from polars_fair.audit.gate import verdict

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


def _summary_labels(report: pl.DataFrame, keys: Sequence[str]) -> Callable[[Any], str]:
    """How the page writes a summary's group label: a null key value reads as missing.

    The summary spells a null key ``"null"`` (``"g=null"`` with several keys); the page maps
    each group's spelling to its label with "(missing)", unless a group's value is the text
    ``"null"`` itself, when the spelling is ambiguous and kept.
    """
    def spell(row: Mapping[str, Any], missing: str) -> str:
        text = [missing if row[k] is None else str(row[k]) for k in keys]
        return text[0] if len(keys) == 1 else ", ".join(
            f"{k}={t}" for k, t in zip(keys, text, strict=True))

    spelled: dict[str, set[str]] = {}
    for row in report.select(keys).iter_rows(named=True):
        spelled.setdefault(spell(row, "null"), set()).add(spell(row, MISSING))
    names = {k: next(iter(v)) for k, v in spelled.items() if len(v) == 1}
    return lambda label: "" if label is None else names.get(str(label), str(label))


def _headline(
    disparity: pl.DataFrame, tests: pl.DataFrame | None, keys: Sequence[str], *,
    rates: Sequence[str], level: float, adjust: str, min_support: int,
    n_permutations: int, seed: int | None, low: set[tuple[Any, ...]],
) -> tuple[str, dict[str, Any] | None]:
    """The headline: only differences significant after adjustment.

    Anything else is labelled "not significant (p = ...)". Returns the HTML and the ABROCA
    group to draw (or None).
    """
    method = ADJUST_NAMES.get(adjust, adjust)
    items: list[str] = []
    for m in rates:
        title = METRICS[m].title.lower()
        rows = disparity.filter((pl.col("metric") == m) & ~pl.col("is_reference").fill_null(False)
                                & pl.col("p_value_adjusted").is_not_null())
        # the significant differences, the largest first (the absolute difference of rates)
        sig = rows.filter(pl.col("significant").fill_null(False)).sort(
            pl.col("difference").abs(), "p_value_adjusted", descending=[True, False],
            nulls_last=True)
        if sig.height:
            parts = []
            for r in sig.head(5).iter_rows(named=True):
                thin = tuple(r[k] for k in keys) in low
                parts.append(
                    f"<b>{_esc(_group(r, keys))}</b> {_pct(r['value'])} vs "
                    f"{_pct(r['reference_value'])} (ratio {_num(r['ratio'], '{:.2f}')} "
                    f"{_interval(r['ratio_ci_low'], r['ratio_ci_high'], '{:.2f}')}, "
                    f"adjusted p {_p(r['p_value_adjusted'])}"
                    + (f"; low support: fewer than {min_support} rows" if thin else "") + ")")
            more = f"; and {sig.height - 5} more" if sig.height > 5 else ""
            items.append(f"<li>{_esc(METRICS[m].title)}: {sig.height} of {rows.height} "
                         f"group(s) differ from the reference, significant after {method} "
                         f"adjustment: " + "; ".join(parts) + more + ".</li>")
        elif rows.height:
            best = rows.sort("p_value_adjusted").row(0, named=True)
            items.append(
                f"<li>{_esc(METRICS[m].title)}: no group differs significantly from the "
                f"reference. The smallest difference in {title} test, "
                f"{_esc(_group(best, keys))} ({_pct(best['value'])} vs "
                f"{_pct(best['reference_value'])}), is <span class=\"undefined\">not "
                f"significant (p = {_p(best['p_value_adjusted'])}, {method}-adjusted)"
                "</span>.</li>")
    chosen: dict[str, Any] | None = None
    if tests is not None:
        tested = tests.filter(pl.col("p_value_holm").is_not_null())
        supported = tested.filter(pl.col("n") >= min_support)
        sig = supported.filter(pl.col("p_value_holm") <= 1 - level + 1e-12).sort(
            "abroca", descending=True)
        how = f"{n_permutations:,} permutations, seed {seed}, Holm-adjusted"
        if sig.height:
            top = sig.row(0, named=True)
            chosen = {k: top[k] for k in keys}
            others = sig.height - 1
            items.append(
                f"<li>ABROCA: <b>{_esc(_group(top, keys))}</b> has the largest significant "
                f"ABROCA, {top['abroca']:.4f} (n = {top['n']:,}{_classes(top)}; p = "
                f"{_p(top['p_value_holm'])}, {how})"
                + (f"; {others} other group(s) also significant" if others else "") + ".</li>")
        elif supported.height:
            top = supported.sort("abroca", descending=True).row(0, named=True)
            chosen = {k: top[k] for k in keys}
            items.append(
                f"<li>ABROCA: no group's ABROCA is significant. The largest among groups with "
                f"at least {min_support} rows, {_esc(_group(top, keys))} ({top['abroca']:.4f}, "
                f"n = {top['n']:,}{_classes(top)}), is <span class=\"undefined\">not "
                f"significant (p = {_p(top['p_value_holm'])}, {how})</span>.</li>")
        small = tested.filter(pl.col("n") < min_support).sort("abroca", descending=True)
        top_supported = supported["abroca"].max() if supported.height else None
        if small.height and (top_supported is None
                             or small["abroca"][0] > top_supported):
            r = small.row(0, named=True)
            items.append(
                f"<li>The largest ABROCA overall, {_esc(_group(r, keys))} ({r['abroca']:.4f}), "
                f"comes from {r['n']} rows (low support, p = {_p(r['p_value_holm'])}): not a "
                "finding.</li>")
    if not items:
        return "<p>No comparison could be tested.</p>", chosen
    return '<ul class="headline">' + "".join(items) + "</ul>", chosen


def _reading(report: pl.DataFrame, keys: Sequence[str], *, ofi_threshold: float,
             four_fifths: float, min_support: int) -> str:
    """The plain-language reading of each kind of finding present, with the label caveat."""
    def names(kind: str) -> list[str]:
        rows = report.filter(pl.col("finding") == kind)
        return [_group(r, keys) for r in rows.iter_rows(named=True)]

    text = {
        "algorithmic": (
            "the model's own errors treat these groups differently from the reference: their "
            "false positives minus false negatives per row (OFI) differ by more than "
            f"{ofi_threshold:g}. The classifier produces this gap, and changing the model "
            "(retraining, reweighting, post-processing) is what can close it."),
        "systemic": (
            "the model errs about as much for these groups as for the reference (|OFI| within "
            f"{ofi_threshold:g}), yet their selection rates fail the four-fifths rule (below "
            f"{four_fifths:g} of the benchmark): the model reproduces a difference that is "
            "already in the labels or the population. Fixing the model's errors will not "
            "remove it; whether the outcome is fair is a question about the labels and the "
            "decision, not about accuracy."),
        "insufficient support": (
            f"these groups, or the group they are compared with, have fewer than {min_support} "
            "rows (or their OFI is undefined): their rates are too uncertain for a finding "
            "either way. Collect more data before concluding anything about them."),
    }
    items = []
    for kind, cls, label in (("algorithmic", "fail", "algorithmic"),
                             ("systemic", "warn", "systemic"),
                             ("insufficient support", "insufficient", "too few rows")):
        groups = names(kind)
        if groups:
            named = "" if kind == label else f' (finding "{kind}")'
            items.append(f'<li><span class="{cls}">{label}</span>: {_esc(_names(groups))}'
                         f"{named}: {_esc(text[kind])}</li>")
    head = ("<ul>" + "".join(items) + "</ul>") if items else (
        '<p class="pass">No group is found algorithmic or systemic.</p>')
    return head + f'<p class="caveat">{_esc(LABEL_BIAS_CAVEAT)}</p>'
