"""The findings of an audit page in words: the headline, the reading of each finding, the gate.

The headline states only what is significant after adjustment for multiple comparisons;
everything else is labelled "not significant (p = ...)". The reading says what an algorithmic
or a systemic finding means, with the label-bias caveat. The numbers come from the analyses;
this module only words them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair.analyses.findings import FINDING_MEANINGS
from polars_fair.audit.html.text import (
    ADJUST_NAMES,
    LABEL_BIAS_CAVEAT,
    _classes,
    _esc,
    _group,
    _interval,
    _names,
    _num,
    _p,
    _pct,
    _rows,
)
from polars_fair.core.labels import named_text, text_of
from polars_fair.core.registry import METRICS

if TYPE_CHECKING:
    from polars_fair.audit.html.figures import PageGroups, PageOptions, PageTables


def _summary_labels(report: pl.DataFrame, keys: Sequence[str]) -> Callable[[Any], str]:
    """How the page writes a summary's group label: as every other part of the page (``_group``).

    The summary names a group by its value (one key) or ``g=(missing), h=M`` (several;
    :func:`polars_fair.core.labels.named_text`'s rule); the page maps each to its own spelling,
    ``(missing) | M``. Both spellings name every group apart, so the map is one-to-one.
    """
    def spell(row: Mapping[str, Any]) -> str:
        return text_of(row[keys[0]]) if len(keys) == 1 else named_text(dict(row))

    names = {spell(row): _group(row, keys) for row in report.select(keys).iter_rows(named=True)}
    return lambda label: "" if label is None else names.get(str(label), str(label))


def abroca_tests(t: PageTables, g: PageGroups, o: PageOptions) -> pl.DataFrame | None:
    """ABROCA of each group on the page with its test's p-values (null where not tested).

    ``None`` when the page has no ABROCA to state: no scores, no ROC curves to compare, or
    weighted rows (the test is not run).
    """
    if t.abroca is None or t.roc_reason is not None or o.sample_weight is not None:
        return None
    keys = t.keys
    p = (t.tests.select(*keys, "p_value", "p_value_holm") if t.tests is not None else
         t.abroca.select(*keys, p_value=pl.lit(None, pl.Float64),
                         p_value_holm=pl.lit(None, pl.Float64)))
    return g.on_page(t.abroca.join(p, on=keys, how="left", nulls_equal=True,
                                   maintain_order="left"))


def _abroca_choice(rows: pl.DataFrame, *, level: float, min_support: float
                   ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The testable groups, those significant, and the others, each the largest ABROCA first."""
    from polars_fair.audit.html.figures import testable

    rows = rows.filter(~pl.col("is_reference") & pl.col("abroca").is_not_null()).sort(
        "abroca", descending=True, maintain_order=True)
    supported = rows.filter(testable(min_support))
    sig = supported.filter(pl.col("p_value_holm") <= 1 - level + 1e-12)
    return supported, sig, rows.filter(~testable(min_support))


def abroca_headline_group(t: PageTables, o: PageOptions, g: PageGroups
                          ) -> dict[str, Any] | None:
    """The headline's ABROCA group: the largest significant ABROCA among testable groups.

    Else the largest ABROCA among the testable groups (at least ``min_support`` positives and
    negatives: :func:`polars_fair.audit.html.figures.testable`); ``None`` when none is.
    """
    rows = abroca_tests(t, g, o)
    if rows is None:
        return None
    supported, sig, _ = _abroca_choice(rows, level=o.level, min_support=o.min_support)
    top = sig if sig.height else supported
    return {k: top[k][0] for k in t.keys} if top.height else None


def _abroca_item(rows: pl.DataFrame, keys: Sequence[str], *, level: float, min_support: int,
                 n_permutations: int, seed: int | None) -> list[str]:
    """The headline's ABROCA items: the testable group with the largest (significant) ABROCA."""
    supported, sig, small = _abroca_choice(rows, level=level, min_support=min_support)
    how = f"{n_permutations:,} permutations, seed {seed}, Holm-adjusted"
    rule = f"at least {min_support} positives and {min_support} negatives"
    items = []
    if sig.height:
        top = sig.row(0, named=True)
        others = sig.height - 1
        items.append(
            f"<li>ABROCA: <b>{_esc(_group(top, keys))}</b> has the largest significant "
            f"ABROCA among groups with {rule}, {top['abroca']:.4f} (n = {top['n']:,}"
            f"{_classes(top)}; p = {_p(top['p_value_holm'])}, {how})"
            + (f"; {others} other group(s) also significant" if others else "") + ".</li>")
    elif supported.height:
        top = supported.row(0, named=True)
        items.append(
            f"<li>ABROCA: no group's ABROCA is significant. The largest among groups with "
            f"{rule}, {_esc(_group(top, keys))} ({top['abroca']:.4f}, "
            f"n = {top['n']:,}{_classes(top)}), is <span class=\"undefined\">not "
            f"significant (p = {_p(top['p_value_holm'])}, {how})</span>.</li>")
    else:
        items.append(
            f"<li>ABROCA: no group besides the reference has {rule} (the TPR and the FPR "
            "of a ROC curve each need that many rows of their class), so no ABROCA was tested "
            "and none is a finding.</li>")
    top_supported = supported["abroca"].max() if supported.height else None
    if small.height and (top_supported is None or small["abroca"][0] > top_supported):
        r = small.row(0, named=True)
        items.append(
            f"<li>The largest ABROCA overall, {_esc(_group(r, keys))} ({r['abroca']:.4f}), "
            f"comes from n = {r['n']:,}{_classes(r)}, fewer than {min_support} positives or "
            f"negatives (low support): not tested, not a finding.</li>")
    return items


def _headline(
    disparity: pl.DataFrame, abroca: pl.DataFrame | None, keys: Sequence[str], *,
    rates: Sequence[str], level: float, adjust: str, min_support: int,
    n_permutations: int, seed: int | None, low: set[tuple[Any, ...]],
) -> str:
    """The headline: only differences significant after adjustment.

    Anything else is labelled "not significant (p = ...)".
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
                    + (f"; low support: fewer than {_rows(min_support)}" if thin else "") + ")")
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
    if abroca is not None:
        items.extend(_abroca_item(abroca, keys, level=level, min_support=min_support,
                                  n_permutations=n_permutations, seed=seed))
    if not items:
        return "<p>No comparison could be tested.</p>"
    return '<ul class="headline">' + "".join(items) + "</ul>"


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
        "undefined impact ratio": (
            "no group is selected, so the impact ratio is 0/0: the four-fifths rule cannot "
            "pass (the gate fails these groups too)."),
        # the labels or the predictions take one value: no cause can be read (issue 20)
        "constant labels": FINDING_MEANINGS["constant labels"] + ".",
        "constant predictions": FINDING_MEANINGS["constant predictions"] + ".",
        "insufficient support": (
            f"these groups, or the group they are compared with, have fewer than {min_support} "
            "rows (or their OFI is undefined): their rates are too uncertain for a finding "
            "either way. Collect more data before concluding anything about them."),
    }
    items = []
    for kind, cls, label in (("algorithmic", "fail", "algorithmic"),
                             ("systemic", "warn", "systemic"),
                             ("undefined impact ratio", "fail", "undefined impact ratio"),
                             ("constant labels", "warn", "constant labels"),
                             ("constant predictions", "warn", "constant predictions"),
                             ("insufficient support", "insufficient", "too few rows")):
        groups = names(kind)
        if groups:
            named = "" if kind == label else f' (finding "{kind}")'
            items.append(f'<li><span class="{cls}">{label}</span>: {_esc(_names(groups))}'
                         f"{named}: {_esc(text[kind])}</li>")
    head = ("<ul>" + "".join(items) + "</ul>") if items else (
        '<p class="pass">No group is found algorithmic or systemic.</p>')
    return head + f'<p class="caveat">{_esc(LABEL_BIAS_CAVEAT)}</p>'
