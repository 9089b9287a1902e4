"""The comparison part of an audit page: the candidate model against its baseline.

With ``audit_html(..., baseline_pred=OLD)`` (``polars-fair report --html --baseline-pred OLD``)
the page's predictions are the **candidate** and ``OLD`` the **baseline**, decided on the same
rows. :func:`page_comparison` counts the rows once more into the paired count table
(:func:`polars_fair.paired_counts`) and computes, against the page's reference and at its
level, :meth:`polars_fair.api.compare.FairPaired.compare` and the change gate of ``polars-fair
check --baseline-pred`` (:func:`polars_fair.audit.change_gate.change_gate`). Then:

* :func:`change_verdict_section`, in the verdict block at the top: PASS or FAIL of the change
  gate, each failing group and rule with both figures and the paired interval of the change;
* :func:`comparison_section`: per shown group, the two models' selection rates and impact ratios
  side by side with each change, its paired interval and McNemar's exact test, the four-fifths
  verdict of each model, OFI and the test of the change in errors, and the chart of
  :func:`polars_fair.audit.change_plot.compare_chart`;
* :func:`comparison_data`: the JSON block's keys ``compare`` and ``change_gate``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import polars as pl

from polars_fair._docs import borrow
from polars_fair.audit.html.text import (
    CHART_PAGE_GROUPS,
    UNDEFINED,
    _describe,
    _esc,
    _group,
    _interval,
    _names,
    _num,
    _p,
    _pct,
    _rows,
    _table,
    svg_for_html,
)
from polars_fair.core.numbers import limit_text
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS as POSITIVE_ROWS
from polars_fair.core.spec import By, IntoExpr

if TYPE_CHECKING:  # pragma: no cover
    from polars_fair.audit.html.figures import PageGroups, PageOptions, PageTables

__all__ = ["Baseline", "PageComparison", "change_verdict_section", "comparison_data",
           "comparison_section", "page_baseline", "page_comparison"]

#: The reading under the comparison table.
COMPARISON_READING = (
    "<p>Both models decided the same people, so each change (candidate − baseline) is paired: "
    "it depends only on the people whose decision changed. <b>Change</b> of a rate: "
    "Newcombe's paired score interval (method 10); of the impact ratio: each model's ratio "
    "interval (MOVER-R) combined with their pairing (MOVER-D); of OFI: a paired delta method; "
    "each at {level:.0%}. <b>McNemar p</b>: the exact test of no change in selection "
    "(the discordant pairs); <b>errors p</b>: the same for the change in errors (wrong under "
    "one model only){weighted}. Each p-value is the group's own, not adjusted for the groups "
    "compared. <b>Four-fifths</b>: each model's verdict (impact ratio ≥ {four_fifths}); "
    "<b>changed</b> marks a group whose verdict the candidate changes.</p>"
)


@dataclass(frozen=True)
class Baseline:
    """The page's baseline model and the change gate's limits, as ``audit_html`` took them.

    Parameters
    ----------
    pred : str or pl.Expr
        The baseline model's prediction (``baseline_pred``).
    max_impact_ratio_drop, max_ofi_increase : float
        The limits of :func:`polars_fair.audit.change_gate.change_gate`.

    Examples
    --------
    >>> Baseline("old", 0.05, 0.05).params()
    {'baseline_pred': 'old', 'max_impact_ratio_drop': 0.05, 'max_ofi_increase': 0.05}
    """

    pred: IntoExpr
    max_impact_ratio_drop: float
    max_ofi_increase: float

    def params(self) -> dict[str, Any]:
        """The provenance's parameters of the comparison.

        Returns
        -------
        dict
            ``baseline_pred`` (its text), ``max_impact_ratio_drop``, ``max_ofi_increase``.

        Examples
        --------
        >>> Baseline(pl.col("old") == 1, 0.1, 0.05).params()["baseline_pred"]
        'pl.col("old") == 1'
        """
        return {"baseline_pred": _describe(self.pred),
                "max_impact_ratio_drop": self.max_impact_ratio_drop,
                "max_ofi_increase": self.max_ofi_increase}


@dataclass(frozen=True)
class PageComparison:
    """The comparison the page shows: the baseline, ``compare``'s table and the change gate.

    Parameters
    ----------
    baseline : Baseline
        The baseline and the limits.
    table : pl.DataFrame
        :meth:`polars_fair.api.compare.FairPaired.compare`, collected (every group).
    gate : pl.DataFrame
        :func:`polars_fair.audit.change_gate.change_gate`.
    keys : list of str
        The key columns.

    Examples
    --------
    >>> c = PageComparison(Baseline("old", 0.05, 0.05), pl.DataFrame(), pl.DataFrame(), ["g"])
    >>> c.keys
    ['g']
    """

    baseline: Baseline
    table: pl.DataFrame
    gate: pl.DataFrame
    keys: list[str]


def page_baseline(baseline_pred: IntoExpr | None = None, max_impact_ratio_drop: float = 0.05,
                  max_ofi_increase: float = 0.05) -> Baseline | None:
    """The page's baseline, its change gate's limits checked before any data is read.

    Parameters
    ----------
    baseline_pred : str or pl.Expr, optional
        A baseline model's prediction on the same rows (the page's prediction is then the
        candidate): adds the change gate's verdict to the verdict block, the section
        "Against the baseline model" (``df.fair.compare``: both models' rates, impact ratios
        and OFI side by side, the paired changes with their intervals, McNemar's exact tests,
        the chart) and the JSON keys ``compare`` and ``change_gate`` (one more scan).
    max_impact_ratio_drop, max_ofi_increase : float, default 0.05
        The change gate's limits, in [0, 1] and [0, 2]
        (:func:`polars_fair.audit.change_gate.change_gate` at the page's ``level`` and
        ``min_support``, as ``polars-fair check --baseline-pred``).

    Returns
    -------
    Baseline or None
        ``None`` without ``baseline_pred``.

    Raises
    ------
    InvalidArgumentError
        A limit out of its range.

    Examples
    --------
    >>> page_baseline("old").max_ofi_increase, page_baseline() is None
    (0.05, True)
    """
    if baseline_pred is None:
        return None
    from polars_fair.audit.gate import check_limit

    check_limit("max_impact_ratio_drop", max_impact_ratio_drop, 0.0, 1.0)
    check_limit("max_ofi_increase", max_ofi_increase, 0.0, 2.0)
    return Baseline(baseline_pred, max_impact_ratio_drop, max_ofi_increase)


class _Page(Protocol):
    """What the builders read of the page (:class:`~polars_fair.audit.html.context.PageContext`).

    The page's context holds the comparison, so this module names only the parts it reads
    (no import of the context: the room's modules have no cycle).
    """

    @property
    def o(self) -> PageOptions:  # noqa: D102
        ...

    @property
    def g(self) -> PageGroups:  # noqa: D102
        ...

    @property
    def comparison(self) -> PageComparison | None:  # noqa: D102
        ...


def page_comparison(audited: pl.LazyFrame, by: By, o: PageOptions, t: PageTables,
                    baseline: Baseline | None) -> PageComparison | None:
    """``compare`` and the change gate of the audited rows against the page's reference.

    Parameters
    ----------
    audited : pl.LazyFrame
        The rows the page audits (after ``where``).
    by : str, pl.Expr or list of them
        The page's attributes.
    o : PageOptions
        The page's options: the candidate (``y_pred``, or ``y_score >= threshold``), the count
        arguments, ``level``, ``min_support``, ``four_fifths``.
    t : PageTables
        The page's tables, for the reference (``reference="overall"`` compares with the
        whole population, which ``compare`` takes too).
    baseline : Baseline or None
        ``None`` computes nothing.

    Returns
    -------
    PageComparison or None

    Raises
    ------
    PolarsFairError
        As :func:`polars_fair.paired_counts` (a missing baseline column, bad values).

    Examples
    --------
    >>> page_comparison(pl.LazyFrame(), "g", None, None, None) is None  # type: ignore[arg-type]
    True
    """
    if baseline is None:
        return None
    from polars_fair.api.compare import FairPaired
    from polars_fair.audit.change_gate import change_gate
    from polars_fair.core.spec import DEFAULT_MAX_GROUPS
    from polars_fair.counting.paired import paired_table

    # the candidate as the page counts it: y_pred, or y_score >= threshold (y_pred None)
    candidate: dict[str, Any] = {"y_pred": o.y_pred, "threshold": o.threshold,
                                 "y_score": o.y_score if o.threshold is not None else None}
    rows, keys, _ = paired_table(
        audited, by, baseline=baseline.pred, baseline_role="baseline_pred", y_true=o.y_true,
        pos_label=o.pos_label, null_groups=o.null_groups, sample_weight=o.sample_weight,
        max_groups=max(o.page_groups, DEFAULT_MAX_GROUPS), **candidate)
    # one scan: the comparison and the gate both read the small paired table
    paired = FairPaired(rows.collect().lazy(), keys, o.y_true is not None)
    table = paired.compare(reference=t.ref, level=o.level, min_support=o.min_support,
                           four_fifths=o.four_fifths).collect()
    gate = change_gate(paired, reference=t.ref, level=o.level, min_support=o.min_support,
                       max_impact_ratio_drop=baseline.max_impact_ratio_drop,
                       max_ofi_increase=baseline.max_ofi_increase)
    return PageComparison(baseline=baseline, table=table, gate=gate, keys=paired.keys)


def comparison_data(c: PageComparison | None) -> dict[str, Any]:
    """The comparison for the page's JSON block: ``compare`` and ``change_gate``, or nothing.

    Parameters
    ----------
    c : PageComparison or None
        :func:`page_comparison`.

    Returns
    -------
    dict
        Empty without a baseline (the block then holds exactly its other keys).

    Examples
    --------
    >>> comparison_data(None)
    {}
    """
    if c is None:
        return {}
    from polars_fair.audit.html.provenance import _json_rows

    return {"compare": _json_rows(c.table), "change_gate": _json_rows(c.gate)}


def _signed(x: Any, fmt: str = "{:+.3f}") -> str:
    return _num(x, fmt).replace("-", "−")


def _change(r: dict[str, Any], metric: str) -> str:
    """A change and its interval, ``+0.275 [−0.012, 0.561]`` (the interval alone hid it)."""
    change = r[f"{metric}_change"]
    if change is None:
        return UNDEFINED
    return f"{_signed(change)} {_interval(r[f'{metric}_change_low'], r[f'{metric}_change_high'])}"


def change_verdict_section(p: _Page) -> str:
    """PASS or FAIL of the change gate, each failing group with both figures and the interval.

    Parameters
    ----------
    p : PageContext
        The page; without a baseline the section is empty.

    Returns
    -------
    str
        An HTML fragment (``""`` without a baseline).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> change_verdict_section(SimpleNamespace(comparison=None))  # type: ignore[arg-type]
    ''
    """
    c = p.comparison
    if c is None:
        return ""
    o, b = p.o, c.baseline
    gate = c.gate.filter(pl.col("checked"))
    failed = gate.filter(~pl.col("passed"))
    word = "FAIL" if failed.height else "PASS"
    groups = gate.select(c.keys).unique().height if c.keys else min(gate.height, 1)
    bad = failed.select(c.keys).unique().height if c.keys else min(failed.height, 1)
    lead = f"{bad} of {groups} group(s) fail" if failed.height else f"all {groups} group(s) pass"
    parts = [
        f'<h3>Against the baseline: <span class="{word.lower()}">{word}</span></h3>',
        f'<p class="lead"><b>{lead}</b> the change gate of <code>polars-fair check '
        f"--baseline-pred</code> against the baseline <code>{_esc(_describe(b.pred))}</code>: "
        f"a group with at least {_rows(o.min_support)} fails when its impact ratio drops by more "
        f"than {b.max_impact_ratio_drop:g}, or its |OFI| rises by more than "
        f"{b.max_ofi_increase:g}, and the paired {o.level:.0%} interval of the change excludes "
        "0 (the candidate's change is real, not chance).</p>",
    ]
    if not gate.height:
        return parts[0].replace(word, "not checked").replace(
            word.lower(), "undefined") + f"<p>No group has at least {_rows(o.min_support)}.</p>"
    rows = []
    for r in _verdict_rows(gate, failed).iter_rows(named=True):
        fmt = "{:.3f}" if r["metric"] == "impact_ratio" else "{:+.3f}"
        rows.append([f"<b>{_esc(_group(r, c.keys))}</b>", _num(r["n"]),
                     "impact ratio" if r["metric"] == "impact_ratio" else "OFI",
                     _signed(r["baseline"], fmt), _signed(r["value"], fmt),
                     _signed(r["change"]), _interval(r["change_low"], r["change_high"]),
                     _esc(r["rule"]), '<span class="fail">fails</span>' if not r["passed"]
                     else '<span class="pass">passes</span> (largest worsening)'])
    if rows:
        parts.append(_table(["group", "n", "rule", "baseline", "candidate", "change",
                             f"paired {o.level:.0%} interval", "limit", "check"], rows,
                            numeric=[1, 3, 4, 5, 6]))
    return "\n".join(parts)


def _verdict_rows(gate: pl.DataFrame, failed: pl.DataFrame) -> pl.DataFrame:
    """The failing checks, or when none fails each rule's largest worsening (if any)."""
    if failed.height:
        return failed
    worse = gate.filter(pl.col("change").is_not_null()).with_columns(
        __pf_worse=pl.when(pl.col("metric") == "impact_ratio").then(-pl.col("change"))
        .otherwise(pl.col("value").abs() - pl.col("baseline").abs()))
    parts = [worse.filter((pl.col("metric") == m) & (pl.col("__pf_worse") > 0)).sort(
        "__pf_worse", descending=True, maintain_order=True).head(1)
        for m in ("impact_ratio", "ofi")]
    return pl.concat(parts).drop("__pf_worse")


@borrow(change_verdict_section, params=("p",), sections=("Returns",))
def comparison_section(p: _Page) -> str:
    """Per shown group, the two models side by side with paired changes, tests and the chart.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> comparison_section(SimpleNamespace(comparison=None))  # type: ignore[arg-type]
    ''
    """
    c = p.comparison
    if c is None:
        return ""
    o, keys = p.o, c.keys
    shown = p.g.on_page(c.table) if keys == p.g.keys else c.table
    weighted = POSITIVE_ROWS in c.table.columns  # the support low_support and the gate read
    rows, classes = [], []
    for r in shown.iter_rows(named=True):
        classes.append("low" if r["low_support"] else "")
        verdicts = " → ".join(
            UNDEFINED if v is None else ('<span class="fail">fails</span>' if v
                                         else '<span class="pass">passes</span>')
            for v in (r["adverse_impact_baseline"], r["adverse_impact"]))
        rows.append([
            f"<b>{_esc(_group(r, keys))}</b>" if r["is_reference"] else _esc(_group(r, keys)),
            _num(r["n"]), *([_num(r[POSITIVE_ROWS])] if weighted else []),
            f"{_pct(r['selection_rate_baseline'])} → {_pct(r['selection_rate'])}",
            _change(r, "selection_rate"),
            _p(r["mcnemar_p_value"]),
            f"{_num(r['impact_ratio_baseline'], '{:.3f}')} → "
            f"{_num(r['impact_ratio'], '{:.3f}')}",
            _change(r, "impact_ratio"),
            verdicts + (" (changed)" if r["adverse_impact_changed"] else ""),
            f"{_signed(r['ofi_baseline'])} → {_signed(r['ofi'])}",
            _change(r, "ofi"),
            _p(r["error_mcnemar_p_value"]),
        ])
    level = f"{o.level:.0%}"
    header = ["group", "n", *(["rows of weight > 0"] if weighted else []),
              "selection rate (baseline → candidate)", f"change [{level} CI]",
              "McNemar p", "impact ratio (baseline → candidate)", f"change [{level} CI]",
              f"four-fifths ({o.four_fifths:g})", "OFI (baseline → candidate)",
              f"change [{level} CI]", "errors p"]
    left = c.table.height - shown.height
    parts = [
        "<h2>Against the baseline model</h2>",
        f"<p>The candidate is the page's prediction; the baseline is "
        f"<code>{_esc(_describe(c.baseline.pred))}</code>, on the same "
        f"{_num(int(c.table['n'].sum()))} rows. The reference group (bold) is the page's."
        + (f" The table shows {shown.height} of {c.table.height} groups; the JSON block "
           "holds every one." if left else "") + "</p>",
        COMPARISON_READING.format(
            level=o.level, four_fifths=limit_text(o.four_fifths),
            weighted=(f"; {UNDEFINED} with <code>sample_weight</code>: an exact test counts "
                      "people, and weighted sums are no counts; read the intervals"
                      if o.sample_weight is not None else "")),
        _table(header, rows, numeric=[1, 2, 3, 4, 5, 6, 8, 9, 10], row_classes=classes,
               nowrap=True),
        _chart(shown, keys),
    ]
    return "\n".join(parts)


def _chart(table: pl.DataFrame, keys: list[str]) -> str:
    """The compare chart as an inline SVG figure, or why it was not drawn."""
    from polars_fair.audit.change_plot import compare_chart
    from polars_fair.audit.html.charts import unvalidated
    from polars_fair.audit.html.text import _attempt
    from polars_fair.audit.plot import to_svg

    heading = "Impact ratio: baseline and candidate"
    with unvalidated():
        chart = _attempt(lambda: compare_chart(table, keys, max_groups=CHART_PAGE_GROUPS))
    if isinstance(chart, str):
        return (f"<figure><h3>{heading}</h3><p class=\"warn\">Not drawn: {_esc(chart)}."
                "</p></figure>")
    svg = svg_for_html(to_svg(chart.to_dict(validate=False)), prefix="pf-compare-")
    drawn = table.sort("n", descending=True, maintain_order=True).head(CHART_PAGE_GROUPS)
    left = [_group(r, keys) for r in table.join(drawn, on=keys, how="anti",
                                                  nulls_equal=True).iter_rows(named=True)]
    caption = ("Each group's impact ratio (its selection rate over the highest among supported "
               "groups) under the baseline (grey) and the candidate (blue); below the dashed "
               "line the group fails the four-fifths rule; faint: low support."
               + (f" {len(left)} smaller group(s) not drawn: {_names(left)}." if left else ""))
    return f"<figure><h3>{heading}</h3>{svg}<figcaption>{_esc(caption)}</figcaption></figure>"
