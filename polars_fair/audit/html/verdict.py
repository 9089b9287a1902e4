"""The first section of an audit page: PASS or FAIL, and the number behind each failure.

The verdict is the gate of ``polars-fair check`` (:func:`polars_fair.audit.gate.gate`): every
group with at least ``min_support`` rows has an impact ratio of at least ``four_fifths`` and an
|OFI| of at most ``ofi_threshold``. Each failing check is one row: the group, the rule, the
figure the rule judged, its interval at the page's level, and the limit. When every check
passes, the row of each rule is the group closest to its limit.

The intervals come from the analyses, not from this module's arithmetic alone:

* impact ratio: the group's selection rate over the highest among the checked groups (the
  gate's benchmark) is ``disparity``'s ratio against that group, with its MOVER-R Wilson interval
  (:func:`polars_fair.analyses.uncertainty.disparity_table`);
* OFI = B − B_ref, B = (FP − FN)/n: the two groups are independent samples, so the interval is
  the MOVER combination (Zou & Donner 2008) of the Wald intervals of B that ``metrics`` gives
  each group (``marginal_benefit``): ``OFI − sqrt((B − l)² + (u_ref − B_ref)²)`` to
  ``OFI + sqrt((u − B)² + (B_ref − l_ref)²)``. Against the whole population
  (``reference="overall"``) the group is part of its reference, and no interval is given.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from polars_fair.audit.html.context import PageContext
from polars_fair.audit.html.text import (
    UNDEFINED,
    _esc,
    _group,
    _interval,
    _names,
    _num,
    _pct,
    _table,
)
from polars_fair.core.numbers import limit_text
from polars_fair.core.reference import known

#: The page's name of each rule of the gate.
RULE_NAMES = {"impact_ratio": "impact ratio", "ofi": "OFI"}


def verdict_rows(p: PageContext) -> pl.DataFrame:
    """The checks the verdict shows, each with its interval.

    Returns the failing checks (every check of a failing group and rule), or when none fails
    the checked group closest to each rule's limit: the gate's columns (keys, ``metric``,
    ``n``, ``value``, ``rule``, ``passed``, ``reason``) with ``ci_low``, ``ci_high`` (Float64,
    null when no interval applies) and ``group`` in the page's spelling.
    """
    keys = p.t.keys
    checked = p.checks.filter(pl.col("checked"))
    failing = checked.filter(~pl.col("passed").fill_null(False))
    if failing.height:
        rows = failing
    else:  # every check passes: per rule, the group nearest its limit
        rows = pl.concat([
            checked.filter(pl.col("metric") == "impact_ratio").sort("value").head(1),
            checked.filter(pl.col("metric") == "ofi").sort(
                pl.col("value").abs(), descending=True).head(1),
        ])
    intervals = pl.concat([_impact_ratio_intervals(p), _ofi_intervals(p)], how="vertical")
    out = rows.drop("group").join(intervals, on=[*keys, "metric"], how="left",
                                  nulls_equal=True, maintain_order="left")
    return out.with_columns(group=pl.Series([_group(r, keys) for r in out.iter_rows(named=True)],
                                            dtype=pl.String))


def _interval_schema(p: PageContext) -> dict[str, pl.DataType]:
    """The schema of an interval frame: the keys, ``metric``, ``ci_low``, ``ci_high``."""
    schema: dict[str, pl.DataType] = {k: p.t.report.schema[k] for k in p.t.keys}
    return {**schema, "metric": pl.String(), "ci_low": pl.Float64(), "ci_high": pl.Float64()}


def _benchmark(p: PageContext) -> dict[str, Any] | None:
    """The gate's benchmark: the report row with the highest selection rate that may be one.

    ``report``'s rule (:func:`polars_fair.core.reference.prefer_supported`): a known group (the
    missing group never is a benchmark), a supported one while any is, else the largest rate of
    the small known groups (the gate then compares with it, flagged low support).
    """
    keys = p.t.keys
    rated = p.t.report.filter(known(keys) & (pl.col("n") > 0)
                              & pl.col("selection_rate").is_not_null()) if keys else p.t.report
    if rated.filter(~pl.col("low_support")).height or p.o.exclude_low_support:
        rated = rated.filter(~pl.col("low_support"))
    if not keys or rated.height == 0:
        return None
    return rated.sort("selection_rate", descending=True, maintain_order=True).row(0, named=True)


def _impact_ratio_intervals(p: PageContext) -> pl.DataFrame:
    """Each group's impact ratio interval: ``disparity``'s ratio against the gate's benchmark."""
    keys = p.t.keys
    schema = _interval_schema(p)
    top = _benchmark(p)
    if top is None:
        return pl.DataFrame(schema=schema)
    ratios = p.t.fc.disparity(reference={k: top[k] for k in keys}, metric="selection_rate",
                              level=p.o.level, adjust=p.o.adjust).collect()
    return ratios.select(*keys, metric=pl.lit("impact_ratio"), ci_low="ratio_ci_low",
                         ci_high="ratio_ci_high").cast(pl.Schema(schema))


def _ofi_intervals(p: PageContext) -> pl.DataFrame:
    """Each group's OFI interval against a reference group (MOVER of two Wald intervals)."""
    keys = p.t.keys
    schema = _interval_schema(p)
    b = p.t.metrics.filter(pl.col("metric") == "marginal_benefit")
    ref = b.join(p.t.report.filter(pl.col("is_reference")).select(keys), on=keys, how="semi",
                 nulls_equal=True)
    if not keys or ref.height != 1:  # the whole population: not an independent sample
        return pl.DataFrame(schema=schema)
    r = ref.row(0, named=True)
    rows: list[dict[str, Any]] = []
    for g in b.iter_rows(named=True):
        low = high = None
        if None not in (g["value"], g["ci_low"], g["ci_high"], r["value"], r["ci_low"],
                        r["ci_high"]):
            ofi = g["value"] - r["value"]
            low = ofi - math.hypot(g["value"] - g["ci_low"], r["ci_high"] - r["value"])
            high = ofi + math.hypot(g["ci_high"] - g["value"], r["value"] - r["ci_low"])
        rows.append({**{k: g[k] for k in keys}, "metric": "ofi", "ci_low": low,
                     "ci_high": high})
    return pl.DataFrame(rows, schema=schema)


def _low_reference(p: PageContext) -> str:
    """`` (n rows, low support)`` after a reference group with fewer than min_support rows."""
    ref = p.t.report.filter(pl.col("is_reference") & pl.col("low_support"))
    return f" ({ref['n'][0]:,} rows, low support)" if ref.height else ""


def verdict_section(p: PageContext) -> str:
    """PASS or FAIL, the rules that failed for which groups, each figure with its interval."""
    from polars_fair.audit.gate import verdict

    o = p.o
    checked = p.checks.filter(pl.col("checked"))
    groups_checked = checked.select(p.t.keys).unique().height if p.t.keys else 0
    limits = {"impact_ratio": f"≥ {limit_text(o.four_fifths)}",
              "ofi": f"|OFI| ≤ {limit_text(o.ofi_threshold)}"}
    rules = f"impact ratio {limits['impact_ratio']} and {limits['ofi']}"
    if not checked.height:
        return ("<h2>Verdict: <span class=\"undefined\">not checked</span></h2>"
                f"<p class=\"warn\">No group has at least {o.min_support} rows: nothing was "
                "checked.</p>")
    passed = verdict(p.checks)
    word = "PASS" if passed else "FAIL"
    rows = verdict_rows(p)
    failing = rows.filter(~pl.col("passed").fill_null(False))
    lead = (f"{failing.select('group').unique().height} of {groups_checked} group(s) fail"
            if not passed else f"all {groups_checked} group(s) pass")
    parts = [
        f'<h2>Verdict: <span class="{word.lower()}">{word}</span></h2>',
        f"<p class=\"lead\"><b>{lead}</b> the checks of <code>polars-fair check</code>: "
        f"{rules}, for every group with at least {o.min_support} rows; the reference group is "
        f"<b>{_esc(p.g.ref_label)}</b>{_low_reference(p)}.</p>",
    ]
    level = f"{o.level:.0%} interval"
    cells = []
    for r in rows.iter_rows(named=True):
        value = (_num(r["value"], "{:.3f}") if r["metric"] == "impact_ratio"
                 else _num(r["value"], "{:+.3f}")).replace("-", "−")
        if r["value"] is None:
            interval = _esc(f"undefined: {r['reason']}") if r.get("reason") else UNDEFINED
        elif r["ci_low"] is None and r["metric"] == "ofi" and not p.t.report["is_reference"].any():
            interval = "none: the reference is the whole population, which holds the group"
        else:
            interval = _interval(r["ci_low"], r["ci_high"])
        state = ('<span class="fail">fails</span>' if not r["passed"]
                 else '<span class="pass">passes</span> (closest to the limit)')
        cells.append([f"<b>{_esc(r['group'])}</b>", _num(r["n"]),
                      _esc(RULE_NAMES[r["metric"]]), value, interval,
                      _esc(limits[r["metric"]]),
                      state])
    parts.append(_table(["group", "n", "rule", "value", level, "limit", "check"], cells,
                        numeric=[1, 3, 4]))
    skipped = p.checks.filter(~pl.col("checked") & (pl.col("metric") == "impact_ratio"))
    if skipped.height:
        names = [_group(r, p.t.keys) for r in skipped.iter_rows(named=True)]
        parts.append(f"<p>Not checked (fewer than {o.min_support} rows): "
                     f"{_esc(_names(names))}.</p>")
    top = _benchmark(p)
    benchmark = "" if top is None else (
        f" ({_esc(_group(top, p.t.keys))}, {_pct(top['selection_rate'])}"
        f"{', low support' if top['low_support'] else ''})")
    among = ("the checked groups" if top is None or not top["low_support"]
             else "the groups that can be a benchmark, none of them checked (the missing group "
             "never is one)")
    parts.append(
        "<p class=\"legend\">Impact ratio: the group's selection rate over the highest among "
        f"{among}{benchmark}; OFI: the group's (FP − FN)/n minus the reference's. "
        f"{UNDEFINED} on this page means an undefined figure (a zero denominator), nothing "
        "else. The headline below says which differences are beyond chance.</p>")
    return "\n".join(parts)
