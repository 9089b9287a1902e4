"""The row tables of an audit page: provenance, rates, differences, ABROCA, divergence.

Each function writes one ``<table>`` from one analysis' frame (rows of low-support groups in
grey italics) and reads nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_fair.audit.html.text import (
    UNDEFINED,
    _esc,
    _group,
    _interval,
    _key,
    _num,
    _p,
    _pct,
    _pct_interval,
    _table,
)
from polars_fair.core.registry import METRICS


def _shown(value: Any) -> str:
    r"""A parameter as the page shows it: JSON, its texts left to the page's one spelling.

    A text's characters are not JSON-escaped here: :func:`polars_fair.audit.escape.page_safe`
    spells them as the tables and charts do (``"A\x00nul"``, not JSON's ``"A\u0000nul"``).
    """
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_shown(str(k))}: {_shown(v)}" for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def _provenance_html(prov: Mapping[str, Any]) -> str:
    rows: list[list[str]] = []
    for label, key in (("title", "title"), ("model", "model"), ("note", "note")):
        if prov.get(key):
            rows.append([label, _esc(prov[key])])
    rows.append(["generated (UTC)", _esc(prov["generated_utc"])])
    src = prov.get("input")
    if src:
        rows.append(["input file", f"<code>{_esc(src['name'])}</code>"])
        if src.get("sha256"):
            rows.append(["SHA-256", f'<span class="mono">{_esc(src["sha256"])}</span>'])
        if src.get("size_bytes") is not None:
            files = f" in {src['files']:,} files" if src.get("files") is not None else ""
            rows.append(["size", f"{src['size_bytes']:,} bytes{files}"])
    r = prov["rows"]
    rows.append(["rows read / filtered / audited",
                 " / ".join(_num(r[k]) for k in ("read", "filtered", "audited"))])
    rows.append(["filters", "; ".join(f"<code>{_esc(f)}</code>" for f in prov["filters"])
                 or "none"])
    rows.append(["parameters", " ".join(
        f"<code>{_esc(name)}={_esc(_shown(value))}</code>"
        for name, value in prov["parameters"].items()) or "none"])
    v = prov["versions"]
    rows.append(["versions", _esc(f"polars_fair {v['polars_fair']}, Polars {v['polars']}, "
                                  f"Python {v['python']}")])
    body = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
    return f'<table class="pf prov"><tbody>{body}</tbody></table>'


def _rates_table(metrics: pl.DataFrame, report: pl.DataFrame, keys: Sequence[str],
                 rates: Sequence[str], level: float) -> str:
    """Each shown group's rates with their Wilson intervals; low-support rows in grey."""
    by_group: dict[tuple[Any, ...], dict[str, dict[str, Any]]] = {}
    for r in metrics.filter(pl.col("metric").is_in(list(rates))).iter_rows(named=True):
        by_group.setdefault(tuple(r[k] for k in keys), {})[r["metric"]] = r
    rows, classes = [], []
    for r in report.iter_rows(named=True):
        cells = by_group.get(tuple(r[k] for k in keys), {})
        row = [*(_esc(_key(r[k])) for k in keys), _num(r["n"])]
        for m in rates:
            c = cells.get(m)
            row.append(UNDEFINED if c is None or c["value"] is None else
                       f"{_pct(c['value'])} {_pct_interval(c['ci_low'], c['ci_high'])}"
                       f" <small>({c['numerator']:,}/{c['denominator']:,})</small>")
        row.append("reference" if r["is_reference"] else
                   "low support" if r["low_support"] else "")
        rows.append(row)
        classes.append("low" if r["low_support"] else "")
    header = [*keys, "n", *(f"{METRICS[m].title} [{level:.0%} CI]" for m in rates), "note"]
    return _table(header, rows, numeric=range(len(keys), len(keys) + 1 + len(rates)),
                  row_classes=classes, nowrap=True)


def _disparity_table(disparity: pl.DataFrame, report: pl.DataFrame, keys: Sequence[str],
                     level: float) -> str:
    low = {tuple(r[k] for k in keys): r["low_support"] for r in report.iter_rows(named=True)}
    rows, classes = [], []
    for r in disparity.filter(~pl.col("is_reference").fill_null(False)).iter_rows(named=True):
        small = low.get(tuple(r[k] for k in keys), False)
        verdict = ('<span class="fail">significant</span>' if r["significant"] else
                   '<span class="undefined">not significant</span>'
                   if r["significant"] is not None else UNDEFINED)
        rows.append([
            _esc(METRICS[r["metric"]].title), *(_esc(_key(r[k])) for k in keys),
            _pct(r["value"]), _pct(r["reference_value"]),
            _num(r["difference"], "{:+.3f}").replace("-", "−") + " "
            + _interval(r["difference_ci_low"], r["difference_ci_high"]),
            _num(r["ratio"], "{:.3f}") + " " + _interval(r["ratio_ci_low"], r["ratio_ci_high"]),
            _p(r["p_value"]), _p(r["p_value_adjusted"]),
            verdict + (" (low support)" if small else ""),
        ])
        classes.append("low" if small else "")
    ci = f"[{level:.0%} CI]"
    header = ["metric", *keys, "rate", "reference", f"difference {ci}", f"ratio {ci}", "p",
              "adjusted p", "verdict"]
    first = 1 + len(keys)
    return _table(header, rows, numeric=range(first, first + 6), row_classes=classes,
                  nowrap=True)


def _abroca_table(abroca: pl.DataFrame, tests: pl.DataFrame | None, keys: Sequence[str],
                  min_support: int, level: float) -> str:
    if tests is None:  # not tested (weighted): the p columns read undefined
        joined = abroca.with_columns(p_value=pl.lit(None, pl.Float64),
                                     p_value_holm=pl.lit(None, pl.Float64),
                                     __pf_tested=pl.lit(None, pl.Boolean))
    else:
        joined = abroca.join(tests.select(*keys, "p_value", "p_value_holm",
                                          __pf_tested=pl.lit(True)), on=list(keys),
                             how="left", nulls_equal=True, maintain_order="left")
    from polars_fair.core import rules as R

    least = R.min_count(R.exact(min_support, "min_support"))  # the rule of findings.testable
    rows, classes = [], []
    for r in joined.iter_rows(named=True):
        small = (r["positives"] or 0) < least or (r["negatives"] or 0) < least
        if r["is_reference"]:
            note = "reference"
        elif r["undefined_reason"]:
            note = _esc(r["undefined_reason"])
        elif not r["__pf_tested"]:
            note = "not tested"
        elif r["p_value_holm"] is None:
            note = UNDEFINED
        else:
            sig = r["p_value_holm"] <= 1 - level + 1e-12
            note = ('<span class="fail">significant</span>' if sig else
                    '<span class="undefined">not significant</span>')
        if small and not r["is_reference"]:
            note += f" (low support: fewer than {min_support} positives or negatives)"
        rows.append([*(_esc(_key(r[k])) for k in keys), _num(r["n"]),
                     f"{_num(r['positives'])} / {_num(r['negatives'])}",
                     _num(r["auc"], "{:.4f}"), _num(r["abroca"], "{:.4f}"),
                     *((_p(r["p_value"]), _p(r["p_value_holm"])) if r["__pf_tested"]
                       else ("not tested", "not tested")), note])
        classes.append("low" if small else "")
    k = len(keys)
    return _table([*keys, "n", "positives / negatives", "AUC", "ABROCA", "p", "p (Holm)",
                   "verdict"], rows, numeric=range(k, k + 6), row_classes=classes)


def _roc_reason(abroca: pl.DataFrame, keys: Sequence[str]) -> str | None:
    """Why no ABROCA can be computed (no ROC curve to compare), or ``None`` when one can."""
    ref = abroca.filter(pl.col("is_reference"))
    if ref.height and ref["auc"][0] is None:
        r = ref.row(0, named=True)
        return (f"the reference group {_group(r, keys)} has one class only ({r['positives']:,} "
                f"positives, {r['negatives']:,} negatives)")
    if not ref.height:
        return "no group has both classes (a ROC curve needs positives and negatives)"
    if abroca.filter(~pl.col("is_reference") & pl.col("abroca").is_not_null()).height == 0:
        if abroca.height == 1:
            return f"there is one group only ({_group(ref.row(0, named=True), keys)})"
        return ("no group other than the reference has both classes (a ROC curve needs "
                "positives and negatives)")
    return None


def _divergence_table(table: pl.DataFrame, k: int) -> str:
    """The ``k`` patterns of largest |divergence| with their intervals and verdicts."""
    from polars_fair.audit.plot import pattern_label

    top = table.filter(pl.col("divergence").is_not_null()).sort(
        pl.col("divergence").abs(), descending=True, maintain_order=True).head(k)
    # the interval in divergence units when the table has it (ci_low/high bound value - outside)
    low, high = (f"divergence_{c}" if f"divergence_{c}" in table.columns else c
                 for c in ("ci_low", "ci_high"))
    rows = [[_esc(pattern_label(r["attributes"], r)), _num(r.get("n")),
             _num(r["divergence"], "{:+.4f}"), _interval(r[low], r[high], "{:.4f}"),
             ('<span class="fail">significant</span>' if r["significant"]
              else '<span class="undefined">not significant</span>')
             + (" (low support)" if r.get("low_support") else "")]
            for r in top.iter_rows(named=True)]
    classes = ["low" if r.get("low_support") else "" for r in top.iter_rows(named=True)]
    return _table(["pattern", "n", "divergence", "interval", "verdict"], rows,
                  numeric=[1, 2, 3], row_classes=classes)
