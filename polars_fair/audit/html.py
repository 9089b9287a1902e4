"""A fairness audit as ONE self-contained HTML document, publishable and printable.

:func:`audit_html` scans the data (once for the count table, once more for the score table when
``y_score`` is given, and one cheap count of the excluded rows) and writes a page with: its
provenance (:func:`provenance`: the UTC time, the input's file name with its SHA-256 and size,
the rows read, filtered and audited, every parameter and the versions); the headline, which
states only what is significant after adjustment for multiple comparisons; the summary verdicts
and the plain-language reading of each finding; the rates with their Wilson intervals, every
group's difference and ratio against the reference with intervals and adjusted p-values
(``disparity``) and ABROCA with its permutation p-value (``abroca_test``); the styled report
table (:func:`polars_fair.audit.style.style_report`); the charts of :mod:`polars_fair.audit.plot` as
inline SVG; the definitions with their sources; and the tables themselves as JSON in a
non-executable ``<script type="application/json" id="polars-fair-data">`` block, so a reader's tools
can check every number. There are no executable scripts, no external stylesheets, fonts or images,
and no ``http(s)://`` reference in the file: it renders identically offline, in an e-mail attachment
or in an archive, and its print stylesheet keeps table rows whole on paper (headless Chromium
``--print-to-pdf``).

The command line writes it with ``polars-fair report PATH ... --html audit.html``.

Why one module of about 1,300 lines: one self-contained document (its provenance, sections,
CSS, JSON block and inline charts) whose parts must agree with each other; the numbers all come
from the analyses, this module only lays them out and says what they mean.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html as _html
import json
import math
import platform
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair import __version__
from polars_fair import errors as E
from polars_fair.core.options import DEFAULTS, Adjust
from polars_fair.core.registry import METRICS, PAIR_METRICS
from polars_fair.core.spec import By, IntoExpr, NullGroups

__all__ = [
    "CHART_PAGE_GROUPS",
    "DATA_KEYS",
    "DEFAULT_PAGE_GROUPS",
    "DEFINITIONS",
    "LABEL_BIAS_CAVEAT",
    "MISSING",
    "UNDEFINED",
    "audit_html",
    "page_data",
    "provenance",
    "svg_for_html",
]

#: How a null group key reads on the page (a group of rows whose attribute is missing).
MISSING = "(missing)"
#: How an undefined figure (a zero denominator, null) reads on the page.
UNDEFINED = "—"
#: The keys of the page's JSON block (``abroca`` and ``abroca_test`` only with scores;
#: ``divergence`` only when given).
DATA_KEYS = ("provenance", "report", "metrics", "disparity", "summary", "abroca", "abroca_test")
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
    ("Difference and ratio vs reference", ("rate − reference rate with Newcombe's hybrid "
     "score interval; rate / reference rate with the log-ratio (Katz) interval"),
     "Newcombe 1998 (method 10); Katz et al. 1978"),
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
/* print: whole rows, repeated headers, no clipped charts */
tr { break-inside: avoid; page-break-inside: avoid; }
thead { display: table-header-group; }
@page { size: A4 landscape; margin: 12mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 9.5pt; }
  h2 { break-after: avoid; page-break-after: avoid; }
  h3 { break-after: avoid; page-break-after: avoid; }
  figure { break-inside: avoid; page-break-inside: avoid; overflow: visible; }
  .report-table { overflow: visible; }
  svg { max-width: 100%; height: auto; }
  table.pf, .report-table table { font-size: 8.5pt; }
  table.nowrap td { white-space: normal; }
}
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


def _hash_file(digest: Any, path: Path) -> None:
    """Feed a file to a digest in 1 MiB chunks (a large input is never read whole)."""
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)


def _fingerprint(path: Path) -> dict[str, Any]:
    """The file's name (never its directory), SHA-256 and size.

    A directory's files are hashed in name order (relative name and bytes of each), as one.
    """
    digest = hashlib.sha256()
    if path.is_dir():
        files = sorted(f for f in path.rglob("*") if f.is_file())
        size = 0
        for f in files:
            digest.update(f.relative_to(path).as_posix().encode() + b"\0")
            _hash_file(digest, f)
            size += f.stat().st_size
        return {"name": path.name, "sha256": digest.hexdigest(), "size_bytes": size,
                "files": len(files)}
    _hash_file(digest, path)
    return {"name": path.name, "sha256": digest.hexdigest(), "size_bytes": path.stat().st_size}


def _plain(x: Any) -> Any:
    """A JSON-ready value.

    Expressions and other objects become their text, non-finite floats the strings ``"inf"``,
    ``"-inf"``, ``"nan"`` (JSON has no such numbers).
    """
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        if math.isfinite(x):
            return x
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, Mapping):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, Path):
        return x.name
    if isinstance(x, (_dt.date, _dt.datetime, _dt.time)):
        return x.isoformat()
    return str(x)


def provenance(
    path: str | Path | None = None,
    *,
    rows_read: int | None = None,
    rows_filtered: int | None = None,
    rows_audited: int | None = None,
    filters: Sequence[str] = (),
    params: Mapping[str, Any] | None = None,
    title: str | None = None,
    model: str | None = None,
    note: str | None = None,
    generated: _dt.datetime | None = None,
) -> dict[str, Any]:
    r"""Where a result came from: the input, its rows, the filters, every parameter, versions.

    The input is named by its file name only, never its directory (a page may be published;
    a local path says nothing about the data and may say too much about its author), with the
    SHA-256 of its bytes and its size, so anyone holding a copy can check it is the same file.
    A directory (a partitioned dataset) is hashed file by file in name order (relative name
    and bytes of each). A path that does not exist (a URL, a table name) is recorded by its
    last component with no digest.

    Parameters
    ----------
    path : str or pathlib.Path, optional
        The input file or directory.
    rows_read : int, optional
        Rows in the input.
    rows_filtered : int, optional
        Rows removed before the audit (by ``filters``, a ``where`` filter, dropped null groups).
    rows_audited : int, optional
        Rows the analyses counted.
    filters : str or sequence of str, default ()
        Every filter applied, as text, in order (a str is one filter).
    params : mapping, optional
        Every parameter of the analysis (label, prediction or score and threshold, positive
        value, reference rule and the group it chose, thresholds, permutations, seed, ...);
        expressions are recorded as their text.
    title, model, note : str, optional
        The document's title, the model audited (name, version) and a free note.
    generated : datetime, optional
        The generation time; default now. Recorded in UTC, to the second.

    Returns
    -------
    dict
        JSON-ready: ``generated_utc`` (ISO 8601, ``Z``), ``input`` (``name``, ``sha256``,
        ``size_bytes`` [, ``files``]; or None), ``rows`` (``read``, ``filtered``,
        ``audited``), ``filters`` (list of str), ``parameters`` (dict), ``versions``
        (``polars_fair``, ``polars``, ``python``), ``title``, ``model``, ``note``.

    Raises
    ------
    OSError
        The file exists but cannot be read.
    InvalidArgumentError
        The three row counts are given, and one is negative or read ≠ filtered + audited.

    Examples
    --------
    >>> import datetime as dt, tempfile
    >>> from pathlib import Path
    >>> data = Path(tempfile.mkdtemp()) / "scored.csv"
    >>> _ = data.write_bytes(b"y_true,y_pred\n1,1\n")
    >>> p = provenance(data, rows_read=1, rows_filtered=0, rows_audited=1,
    ...                params={"threshold": 0.5}, model="screen-v2",
    ...                generated=dt.datetime(2026, 11, 30, 19, 0, tzinfo=dt.timezone.utc))
    >>> p["generated_utc"], p["input"]["name"], p["input"]["size_bytes"]
    ('2026-11-30T19:00:00Z', 'scored.csv', 18)
    >>> p["input"]["sha256"][:12], p["model"], p["parameters"]
    ('abd27f51e6ef', 'screen-v2', {'threshold': 0.5})
    """
    if rows_read is not None and rows_filtered is not None and rows_audited is not None and (
            rows_read != rows_filtered + rows_audited
            or min(rows_read, rows_filtered, rows_audited) < 0):
        raise E.InvalidArgumentError(E.PROVENANCE_ROWS.format(
            read=rows_read, filtered=rows_filtered, audited=rows_audited))
    when = generated if generated is not None else _dt.datetime.now(_dt.timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    stamp = when.astimezone(_dt.timezone.utc).replace(microsecond=0).isoformat()
    source: dict[str, Any] | None = None
    if path is not None:
        p = Path(path)
        if p.exists():
            source = _fingerprint(p)
        else:
            source = {"name": re.split(r"[\\/]", str(path).rstrip("/\\"))[-1] or str(path),
                      "sha256": None, "size_bytes": None}
    return {
        "generated_utc": stamp.replace("+00:00", "Z"),
        "input": source,
        "rows": {"read": rows_read, "filtered": rows_filtered, "audited": rows_audited},
        "filters": [filters] if isinstance(filters, str) else [str(f) for f in filters],
        "parameters": _plain(dict(params or {})),
        "versions": {"polars_fair": __version__, "polars": pl.__version__,
                     "python": platform.python_version()},
        "title": title, "model": model, "note": note,
    }


def _esc(x: Any) -> str:
    return _html.escape("null" if x is None else str(x))


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


def _key(v: Any) -> str:
    """A group key value as the page writes it: a null key is the group of missing values."""
    return MISSING if v is None else str(v)


def _group(row: Mapping[str, Any], keys: Sequence[str]) -> str:
    return " | ".join(_key(row[k]) for k in keys) if keys else "everyone"


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


def _p(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return UNDEFINED
    return "&lt; 0.001" if x < 0.001 else f"{x:.3f}"


def _pct(x: Any) -> str:
    return UNDEFINED if x is None else f"{100 * x:.1f}%"


def _interval(low: Any, high: Any, fmt: str = "{:.3f}") -> str:
    if low is None or high is None:
        return UNDEFINED
    return f"[{fmt.format(low)}, {fmt.format(high)}]".replace("-", "−")


def _names(groups: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(groups[:limit])
    return shown if len(groups) <= limit else f"{shown} and {len(groups) - limit} more"


def _json_rows(frame: pl.DataFrame) -> list[dict[str, Any]]:
    return [_plain(row) for row in frame.to_dicts()]


def _data_block(data: Mapping[str, Any]) -> str:
    """The JSON block, with ``<``, ``>`` and ``&`` escaped so no text can close the element."""
    text = json.dumps(_plain(dict(data)), ensure_ascii=False, allow_nan=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{DATA_ID}">{text}</script>'


def page_data(page: str) -> dict[str, Any]:
    """Read the tables back from an audit page's JSON block.

    Parameters
    ----------
    page : str
        An HTML document written by :func:`audit_html`.

    Returns
    -------
    dict
        The block's object: keys of :data:`DATA_KEYS` (the ABROCA ones with scores), each
        table a list of rows ``{column: value}``; ``provenance`` a dict (:func:`provenance`).
        Non-finite numbers are the strings ``"inf"``, ``"-inf"``, ``"nan"``.

    Raises
    ------
    InvalidArgumentError
        ``page`` is not a str, or the page has no ``polars-fair-data`` block.

    Examples
    --------
    >>> page = '<script type="application/json" id="polars-fair-data">{"a": 1}</script>'
    >>> page_data(page)
    {'a': 1}
    """
    if not isinstance(page, str):
        raise E.InvalidArgumentError(E.PAGE_NOT_TEXT.format(value=page, type=type(page).__name__))
    found = re.search(
        rf'<script type="application/json" id="{DATA_ID}">(.*?)</script>', page, re.DOTALL)
    if found is None:
        raise E.InvalidArgumentError(f"the page has no <script id={DATA_ID!r}> block")
    data: dict[str, Any] = json.loads(found.group(1))
    return data


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
        f"<code>{_esc(name)}={_esc(json.dumps(value, ensure_ascii=False))}</code>"
        for name, value in prov["parameters"].items()) or "none"])
    v = prov["versions"]
    rows.append(["versions", _esc(f"polars_fair {v['polars_fair']}, Polars {v['polars']}, "
                                  f"Python {v['python']}")])
    body = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
    return f'<table class="pf prov"><tbody>{body}</tbody></table>'


def _classes(row: Mapping[str, Any]) -> str:
    """``", 6 positives, 103 negatives"`` when the row has the counts (a ROC curve's support)."""
    if row.get("positives") is None or row.get("negatives") is None:
        return ""
    return f", {row['positives']:,} positives, {row['negatives']:,} negatives"


def _headline(
    disparity: pl.DataFrame, tests: pl.DataFrame | None, keys: Sequence[str], *,
    rates: Sequence[str], level: float, adjust: str, min_support: int,
    n_permutations: int, seed: int | None, low: set[tuple[Any, ...]],
) -> tuple[str, dict[str, Any] | None]:
    """The headline: only differences significant after adjustment.

    Anything else is labelled "not significant (p = ...)". Returns the HTML and the ABROCA
    group to draw (or None).
    """
    method = {"holm": "Holm", "bh": "Benjamini–Hochberg"}.get(adjust, adjust)
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
                       f"{_pct(c['value'])} {_interval(c['ci_low'], c['ci_high'], '{:.3f}')}"
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
                                     p_value_holm=pl.lit(None, pl.Float64))
    else:
        joined = abroca.join(tests.select(*keys, "p_value", "p_value_holm"), on=list(keys),
                             how="left", nulls_equal=True, maintain_order="left")
    rows, classes = [], []
    for r in joined.iter_rows(named=True):
        small = r["n"] < min_support
        if r["is_reference"]:
            note = "reference"
        elif r["undefined_reason"]:
            note = _esc(r["undefined_reason"])
        elif r["p_value_holm"] is None:
            note = UNDEFINED
        else:
            sig = r["p_value_holm"] <= 1 - level + 1e-12
            note = ('<span class="fail">significant</span>' if sig else
                    '<span class="undefined">not significant</span>')
        if small and not r["is_reference"]:
            note += " (low support)"
        rows.append([*(_esc(_key(r[k])) for k in keys), _num(r["n"]),
                     f"{_num(r['positives'])} / {_num(r['negatives'])}",
                     _num(r["auc"], "{:.4f}"), _num(r["abroca"], "{:.4f}"),
                     _p(r["p_value"]), _p(r["p_value_holm"]), note])
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


def _attempt(build: Callable[[], Any]) -> Any:
    """A chart, or the reason it cannot be drawn (a polars_fair error's message)."""
    try:
        return build()
    except E.PolarsFairError as exc:
        return str(exc)


#: The columns of a divergence table the page reads
#: (:func:`polars_fair.analyses.divergence.divergence`).
DIVERGENCE_COLUMNS = ("attributes", "n", "divergence", "ci_low", "ci_high", "significant")


def _page_arguments(rates: Any, filters: Any, output: Any, divergence: Any,
                    rows_read: Any) -> tuple[tuple[str, ...], tuple[str, ...], Path | None]:
    """Check the page's own arguments before any data is read (typed errors naming each)."""
    from polars_fair.core.spec import check_int

    rate_list = (rates,) if isinstance(rates, str) else tuple(rates)
    if not rate_list:
        raise E.InvalidArgumentError(E.PAGE_NO_RATES.format(value=rates))
    filter_list = (filters,) if isinstance(filters, str) else filters
    if not isinstance(filter_list, Sequence) or not all(
            isinstance(f, str) for f in filter_list):
        raise E.InvalidArgumentError(E.PAGE_BAD_FILTERS.format(
            value=filters, type=type(filters).__name__))
    if isinstance(divergence, (pl.DataFrame, pl.LazyFrame)):
        names = divergence.collect_schema().names()
        if any(c not in names for c in DIVERGENCE_COLUMNS):
            raise E.InvalidArgumentError(E.PAGE_BAD_DIVERGENCE.format(
                needed=list(DIVERGENCE_COLUMNS), value=f"a frame with the columns {names}"))
    elif divergence is not None and not isinstance(divergence, bool):
        raise E.InvalidArgumentError(E.PAGE_BAD_DIVERGENCE.format(
            needed=list(DIVERGENCE_COLUMNS), value=f"{divergence!r} ({type(divergence).__name__})"))
    if rows_read is not None:
        check_int(rows_read, "rows_read", low=0)
    if output is None:
        return rate_list, tuple(filter_list), None
    path = Path(output)
    if path.is_dir():
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_IS_DIR.format(path=str(output)))
    if path.suffix.lower() not in (".html", ".htm"):
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_SUFFIX.format(path=str(output)))
    if not path.parent.is_dir():
        raise E.InvalidArgumentError(E.PAGE_OUTPUT_NO_DIR.format(
            path=str(output), parent=str(path.parent)))
    return rate_list, tuple(filter_list), path


def _divergence_html(table: pl.DataFrame, k: int, metric: str | None) -> tuple[str, Any]:
    from polars_fair.audit.plot import divergence_chart, pattern_label

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
    html = _table(["pattern", "n", "divergence", "interval", "verdict"], rows,
                  numeric=[1, 2, 3], row_classes=classes)
    return html, divergence_chart(table, k=k, metric=metric)


def audit_html(
    data: pl.DataFrame | pl.LazyFrame,
    by: By,
    *,
    y_true: IntoExpr = "y_true",
    y_pred: IntoExpr | None = None,
    y_score: IntoExpr | None = None,
    threshold: float | None = None,
    pos_label: Any = 1,
    reference: Any = DEFAULTS.reference,
    min_support: int = DEFAULTS.min_support,
    ofi_threshold: float = DEFAULTS.ofi_threshold,
    four_fifths: float = DEFAULTS.four_fifths,
    exclude_low_support: bool = DEFAULTS.exclude_low_support,
    where: str | pl.Expr | None = None,
    null_groups: NullGroups = "keep",
    rates: Sequence[str] = ("selection_rate", "tpr", "fpr"),
    title: str = "Fairness audit",
    source: str | Path | None = None,
    output: str | Path | None = None,
    max_groups: int = DEFAULT_PAGE_GROUPS,
    model: str | None = None,
    note: str | None = None,
    path: str | Path | None = None,
    filters: Sequence[str] = (),
    rows_read: int | None = None,
    level: float = DEFAULTS.level,
    adjust: Adjust = DEFAULTS.adjust,
    n_permutations: int = DEFAULTS.n_permutations,
    seed: int = 0,
    divergence: bool | pl.DataFrame | pl.LazyFrame | None = None,
    generated: _dt.datetime | None = None,
    sample_weight: IntoExpr | None = None,
) -> str:
    """Write a fairness audit as one self-contained, publishable HTML document.

    The page holds, in order: the **provenance** (:func:`provenance`: the UTC time, the input
    file's name, never its directory, with its SHA-256 and size, the rows read, filtered and
    audited, every filter and parameter, the reference rule and the group it chose, and the
    versions; the optional ``title``, ``model`` and ``note``); the data's size and every row
    excluded with the reason; the **headline**, which states only what is significant after
    adjustment (each group's rate against the reference, ``disparity``; ABROCA with the
    permutation test, ``abroca_test``, seeded, the permutations stated, the largest
    *significant* ABROCA among groups with at least ``min_support`` rows), anything else
    labelled "not significant (p = ...)"; the summary verdicts, the gate of ``polars-fair
    check`` and a plain-language reading of each finding (algorithmic, systemic, insufficient
    support) with the label-bias caveat; the rates with Wilson intervals, the differences and
    ratios against the reference with intervals and adjusted p-values, the ABROCA table with
    p-values; the styled report table (:func:`polars_fair.audit.style.style_report`); the charts as
    inline SVG (rates with intervals, the pairwise OFI and DI heatmaps, DI on a log scale
    symmetric around 1 with its clipping stated, and with ``y_score`` the ROC curves and the
    calibration small multiples with bin counts); optionally the top ``divergence`` patterns;
    the definitions of every quantity with its source; and the tables as JSON in
    ``<script type="application/json" id="polars-fair-data">`` (keys :data:`DATA_KEYS`, read
    back with :func:`page_data`), equal to the Python API's results. With ``sample_weight``
    the ABROCA test is not run (weights are not exchangeable units; ``abroca_test`` is null).

    One low-support rule holds across the page: a group with ``n < min_support`` rows is low
    support in every table (grey italics), chart (faint, hollow or dashed) and verdict, and a
    calibration bin with fewer than ``min_support`` rows is marked. A group whose key is null
    reads "(missing)"; "—" is an undefined figure (a zero denominator).

    The verdicts, findings, gate and JSON tables cover every group. The tables and charts of
    the page show at most ``max_groups`` groups, the largest (most rows, ties in key order) and
    always the reference, and name those left out; the charts draw at most
    :data:`CHART_PAGE_GROUPS` of them (the reference, the headline's ABROCA group, then the
    largest; the calibration panels at most :data:`polars_fair.audit.plot.CHART_GROUPS`) and their
    captions name the others.

    Every comparison on the page is with one reference group, chosen once by
    :func:`polars_fair.audit.gate.gate_reference`: with ``y_score`` a rule chooses among the groups
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
        A score column (higher = more likely positive): adds ABROCA with its test, the ROC and
        calibration charts. With ``threshold`` it also replaces ``y_pred`` (predictions are
        ``y_score >= threshold``).
    threshold : float, optional
        See ``y_score``; ``y_pred`` is then not given.
    pos_label : Any, default 1
        The positive (favourable) value of the label and the prediction.
    reference : str, group value or mapping, default "largest"
        The reference group, as in ``df.fair.report``: a rule (``"largest"``,
        ``"max_selection_rate"``, ``"overall"``), a value or ``{attribute: value}``.
    min_support : int, default 30
        The one low-support rule: groups (and calibration bins) with fewer rows.
    ofi_threshold : float, default 0.3
        |OFI| above this is flagged (and is the gate's OFI limit).
    four_fifths : float, default 0.8
        An impact ratio below this is adverse impact (and is the gate's limit).
    exclude_low_support : bool, default False
        Low-support groups are neither the reference nor the highest selection rate, as in
        ``df.fair.report``.
    where : str or pl.Expr, optional
        A row filter applied first (a SQL expression as text, or a Polars expression); the
        page counts the rows it excludes and records it in the provenance.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        Rows with a null attribute: a group of their own (read "(missing)"), an error, or
        left out (counted on the page).
    rates : sequence of str, default ("selection_rate", "tpr", "fpr")
        The metrics of the rates table and chart and of the comparisons with the reference
        (names of :data:`polars_fair.core.registry.METRICS`; the comparisons need proportions).
    title : str, default "Fairness audit"
        The document's title.
    source : str or pathlib.Path, optional
        Where the data came from: shown by its file name only; fingerprinted (SHA-256, size)
        when it names an existing file or directory and ``path`` is not given.
    output : str or pathlib.Path, optional
        Also write the page there (UTF-8).
    max_groups : int, default 50
        The most groups the tables and charts show (see above); the count table itself may
        hold up to ``max(max_groups, 10000)`` groups made by an Enum completion.
    model : str, optional
        The model audited (name, version), shown in the provenance.
    note : str, optional
        A free note shown in the provenance.
    path : str or pathlib.Path, optional
        The input file or directory to fingerprint (default: ``source``).
    filters : str or sequence of str, default ()
        Filters applied before ``data`` reached this function (for example ProPublica's COMPAS
        filter), recorded in the provenance before ``where``; a str is one filter.
    rows_read : int, optional
        Rows in the input before ``filters`` (at least the rows of ``data``); default: the
        rows of ``data``.
    level : float, default 0.95
        Confidence level of every interval; a difference is significant when its adjusted
        p-value is at most ``1 − level``.
    adjust : {"holm", "bh"}, default "holm"
        The multiplicity adjustment of ``disparity`` over the groups compared.
    n_permutations : int, default 1000
        Permutations of the ABROCA test (with ``y_score``).
    seed : int, default 0
        Seed of the ABROCA test, so the page's p-values can be reproduced.
    divergence : bool, pl.DataFrame or pl.LazyFrame, optional
        ``True`` computes ``divergence`` of the FPR over every pattern of the attributes
        (``FairCounts.divergence(level=level, min_denominator=min_support)``); or a divergence
        table (``attributes``, the attribute columns, ``divergence``, ``ci_low``, ``ci_high``,
        ``significant``). Adds the top patterns (table and chart) and the JSON key
        ``divergence``.
    generated : datetime, optional
        The generation time recorded (default now, UTC).
    sample_weight : str or pl.Expr, optional
        A weight column, as in ``df.fair.report``: every count, rate, interval and test is
        weighted (``n`` stays the number of rows).

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    ImportError
        Without the plot extra (``pip install "polars_fair[plot]"``).
    InvalidArgumentError
        ``by`` is empty; ``max_groups``, ``n_permutations`` or ``seed`` is not an integer;
        ``rates`` is empty or names a metric ``disparity`` cannot compare; ``filters`` is not
        text; ``rows_read`` is not an integer or is fewer than the rows of ``data``;
        ``divergence`` is neither a bool nor a table with the columns the page reads
        (:data:`DIVERGENCE_COLUMNS`); ``output`` is a directory, in a directory that does not
        exist, or has no ``.html``/``.htm`` suffix (checked before any data is read).
    PolarsFairError
        Bad input, as ``df.fair.report`` (a missing column, a non-binary label, ...).

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.html import audit_html, page_data
    >>> page = audit_html(make_hiring(600, seed=0), "sex", model="screen-v1")
    >>> data = page_data(page)
    >>> sorted(data), data["provenance"]["model"]
    (['disparity', 'metrics', 'provenance', 'report', 'summary'], 'screen-v1')
    """
    from polars_fair import from_counts, from_scores
    from polars_fair.api.namespace import fair
    from polars_fair.api.objects import FairScores
    from polars_fair.audit.gate import gate, gate_reference
    from polars_fair.audit.plot import (
        CHART_GROUPS,
        calibration_chart,
        pairwise_heatmap,
        rates_chart,
        roc_chart,
        to_svg,
    )
    from polars_fair.audit.style import reference_label_of, style_report
    from polars_fair.core.spec import DEFAULT_MAX_GROUPS, check_int
    from polars_fair.counting.tables import keys_of

    page_groups = check_int(max_groups, "max_groups")
    rates, filters, out_path = _page_arguments(rates, filters, output, divergence, rows_read)
    lf = data.lazy()
    by_exprs = _by_exprs(by)
    if not by_exprs:
        raise E.InvalidArgumentError("audit_html needs at least one attribute in by")
    # --- rows in, rows excluded and why (one cheap scan)
    if isinstance(where, str):  # SQL over the input's columns only: nothing else is read
        from polars_fair.core.sql import sql_expr

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
        max_groups=max(page_groups, DEFAULT_MAX_GROUPS), sample_weight=sample_weight,
    ).collect()
    keys = keys_of(counts)
    fc = from_counts(counts, keys)
    fs: FairScores | None = None
    scores = None
    if y_score is not None:
        scores = fair(audited).scores(
            by, y_true=y_true, y_score=y_score, pos_label=pos_label, null_groups=null_groups,
            sample_weight=sample_weight,
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
    metrics_all = fc.metrics(level=level, min_support=min_support).collect()
    disparity_all = pl.concat([
        fc.disparity(reference=ref, metric=m, level=level, adjust=adjust).collect()
        for m in rates
    ], how="vertical_relaxed")
    abroca = tests = None
    ab_ref = ref
    if fs is not None and reference == "overall":  # ABROCA compares with a group: the largest
        ab_ref = gate_reference(fc, fs, "largest", min_support=min_support,
                                exclude_low_support=exclude_low_support)
    roc_reason: str | None = None  # why no ROC curve comparison can be made, if none can
    if fs is not None:
        abroca = fs.abroca(reference=ab_ref).collect()
        roc_reason = _roc_reason(abroca, keys)
        if sample_weight is None and roc_reason is None:  # weights are not exchangeable units
            tests = fs.abroca_test(reference=ab_ref, n_permutations=n_permutations, seed=seed,
                                   progress=False).collect()
    divergence_table = None
    if divergence is True:
        divergence_table = fc.divergence(level=level, min_denominator=min_support).collect()
    elif isinstance(divergence, (pl.DataFrame, pl.LazyFrame)):
        divergence_table = divergence.collect() if isinstance(divergence, pl.LazyFrame) \
            else divergence
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

    left_names = [_group(r, keys) for r in report.join(
        shown, on=keys, how="anti", nulls_equal=True).iter_rows(named=True)]
    report_page = on_page(report)
    # the one low-support rule (n < min_support of the group) for the rates chart's faint bars
    group_low = report_page.select(*keys, pl.col("low_support").alias("__pf_low"))
    metrics = on_page(metrics_all).join(group_low, on=keys, how="left", nulls_equal=True,
                                        maintain_order="left").with_columns(
        low_support=pl.col("__pf_low")).drop("__pf_low")
    ref_label = reference_label_of(report, keys)
    checks = gate(fc, reference=ref, min_impact_ratio=four_fifths, max_abs_ofi=ofi_threshold,
                  min_support=min_support)
    # --- provenance: every input of the numbers on the page
    where_text = _describe(where) if where is not None else None
    threshold_text = f"{_describe(y_score)} >= {threshold}" if threshold is not None else None
    params: dict[str, Any] = {
        "by": list(keys),
        "y_true": _describe(y_true),
        "y_pred": threshold_text or _describe(y_pred if y_pred is not None else "y_pred"),
        "y_score": None if y_score is None else _describe(y_score),
        "threshold": threshold, "pos_label": pos_label,
        "sample_weight": None if sample_weight is None else _describe(sample_weight),
        "reference": reference if isinstance(reference, str) else _plain(reference),
        "reference_group": ref_label,
        "min_support": min_support, "four_fifths": four_fifths,
        "ofi_threshold": ofi_threshold, "exclude_low_support": exclude_low_support,
        "null_groups": null_groups, "level": level, "adjust": adjust,
        "rates": list(rates), "max_groups": page_groups,
    }
    if fs is not None:
        params.update(abroca_reference=reference_label_of(abroca, keys)
                      if abroca is not None else None,
                      n_permutations=n_permutations, seed=seed)
    dropped_null = size["null_rows"] if null_groups == "drop" else 0
    excluded_where = size["total"] - size["kept"]
    if rows_read is not None and rows_read < size["total"]:
        raise E.InvalidArgumentError(E.PAGE_ROWS_READ.format(value=rows_read, rows=size["total"]))
    read = rows_read if rows_read is not None else size["total"]
    prov = provenance(
        path if path is not None else source,
        rows_read=read, rows_filtered=read - overall["n"], rows_audited=overall["n"],
        filters=[*filters, *([f"where {where_text}"] if where_text else []),
                 *(["drop rows with a missing group value"] if dropped_null else [])],
        params=params, title=title, model=model, note=note, generated=generated,
    )
    page_json: dict[str, Any] = {
        "provenance": prov, "report": _json_rows(report), "metrics": _json_rows(metrics_all),
        "disparity": _json_rows(disparity_all), "summary": _json_rows(summary),
    }
    if abroca is not None:
        page_json["abroca"] = _json_rows(abroca)
        page_json["abroca_test"] = None if tests is None else _json_rows(tests)
    if divergence_table is not None:
        page_json["divergence"] = _json_rows(divergence_table)

    headline, ab_group = _headline(
        on_page(disparity_all), None if tests is None or abroca is None else on_page(tests.join(
            abroca.select(*keys, "positives", "negatives"), on=keys, how="left",
            nulls_equal=True, maintain_order="left")), keys,
        rates=rates, level=level, adjust=adjust, min_support=min_support,
        n_permutations=n_permutations, seed=seed,
        low={tuple(r[k] for k in keys) for r in report.filter(pl.col("low_support")).iter_rows(
            named=True)})

    # --- the charts draw at most CHART_PAGE_GROUPS of the shown groups: the reference(s), the
    # headline's ABROCA group, then the largest; the captions name the groups not drawn
    first = [*must, *([pl.DataFrame([ab_group], schema=shown.schema)] if ab_group else [])]
    charted = pl.concat([*first, shown]).unique(keys, keep="first", maintain_order=True).head(
        CHART_PAGE_GROUPS)
    not_drawn = [_group(r, keys) for r in shown.join(
        charted, on=keys, how="anti", nulls_equal=True).iter_rows(named=True)]
    drawn_note = (f" {len(not_drawn)} group(s) of the tables not drawn (the charts show the "
                  f"{charted.height} largest and the reference): {_names(not_drawn)}."
                  if not_drawn else "")

    def on_chart(frame: pl.DataFrame) -> pl.DataFrame:
        if not (left_out or not_drawn):
            return frame
        return frame.join(charted, on=keys, how="semi", nulls_equal=True,
                          maintain_order="left")

    fc_page = from_counts(on_chart(counts), keys) if left_out or not_drawn else fc
    fs_page = (from_scores(on_chart(scores), keys) if (left_out or not_drawn)
               and scores is not None else fs)
    pairs = fc_page.pairwise(metrics=("ofi", "disparate_impact")).collect()
    cell = max(18, min(46, 900 // max(charted.height, 1)))
    charts: list[tuple[str, str, Any]] = [
        ("Rates by group", (f"Each group's rates with {level:.0%} Wilson intervals; faint bars: "
         f"low support (fewer than {min_support} rows).{drawn_note}"),
         rates_chart(on_chart(metrics), rates=rates, keys=keys)),
        ("OFI between every two groups", ("OFI(i, j) = B_i − B_j, B = (FP − FN)/n. Blue: the "
         "row group's errors favour it over the column group; red: they harm it. Centred on 0."
         + drawn_note),
         pairwise_heatmap(pairs, "ofi", keys, cell_size=cell)),
        ("Disparate impact between every two groups", ("DI(i, j) = selection rate of i / of j, "
         "on a log colour scale symmetric around 1 (0.5 and 2 are equally strong); the subtitle "
         "states where the colours are clipped, each cell shows its true value. Below 0.8 fails "
         "the four-fifths rule." + drawn_note),
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
        if roc_reason is None:
            charts.append((
                "ROC curves and ABROCA",
                ("ROC curve of each group; the shaded area between the reference's curve and "
                 "the headline group's (the largest significant ABROCA among groups with at "
                 f"least {min_support} rows, else the largest) is that ABROCA." + drawn_note),
                _attempt(lambda: roc_chart(fs_page, reference=ab_ref, min_support=min_support,
                                           group=ab_group)),
            ))
        else:
            notes.append(f"No ROC chart: {roc_reason}.")
        if probabilities:
            charts.append((
                "Calibration", ("Fraction of positive labels against the mean score in each of "
                "10 score bins, one panel per group; the numbers are the bins' rows, hollow "
                f"grey points are bins with fewer than {min_support} rows; the dashed diagonal "
                "is perfect calibration."),
                _attempt(lambda: calibration_chart(
                    fs_page.reliability().collect(), keys, min_count=min_support,
                    max_groups=CHART_GROUPS)),
            ))
        else:
            notes.append(f"No calibration chart: the scores range over [{s_low:g}, {s_high:g}], "
                         "not probabilities in [0, 1].")
        if roc_reason is not None:
            how = (f"<p class=\"warn\">Not computed: {_esc(roc_reason)}, so neither ABROCA "
                   "(which compares the ROC curves of two groups) nor its permutation test is "
                   "on this page.</p>")
        elif tests is None:
            how = ("<p>Not tested: the permutation test needs unweighted rows (sample weights "
                   "are not exchangeable units), so no ABROCA is a finding here.</p>")
        else:
            p_text = PERMUTATION_P.format(n=f"{n_permutations:,}")
            how = (f"<p>With the permutation test. p: {p_text} "
                   f"(seed {seed}); p (Holm): adjusted over the groups tested; significant: "
                   f"p (Holm) ≤ {1 - level:.2g}.</p>")
        abroca_html = "<h3>ABROCA against the reference</h3>" + how + (
            "" if roc_reason is not None
            else _abroca_table(on_page(abroca), tests, keys, min_support, level))
    divergence_html = ""
    if divergence_table is not None:
        # divergence=True computes the FPR's divergence; a table given says its own metric
        # in a metric column, if it has one (else the chart colours by sign and says so)
        table_html, chart = _divergence_html(divergence_table, 15,
                                             "fpr" if divergence is True else None)
        divergence_html = "<h2>Divergent patterns</h2>" + table_html
        charts.append(("Divergence by pattern", ("The patterns of largest |divergence| with "
                       "their intervals; solid bars are significant; red: the difference "
                       "harms the pattern (for the FPR, a higher rate), blue: it does not; "
                       "without a known metric the colours give the sign only, as the "
                       "legend says."), chart))

    # --- the page
    parts: list[str] = []
    parts.append(f"<h1>{_esc(title)}</h1>")
    meta = [f"generated {prov['generated_utc']}", f"polars_fair {__version__}"]
    if model:
        meta.insert(0, f"model {_esc(model)}")
    if prov["input"]:
        meta.insert(0, _esc(prov["input"]["name"]))
    parts.append(f'<p class="meta">{" · ".join(meta)}</p>')
    if note:
        parts.append(f"<p>{_esc(note)}</p>")

    parts.append("<h2>Headline</h2>")
    parts.append(f"<p>Against the reference group <b>{_esc(ref_label)}</b>; a difference is "
                 f"reported as a finding only when significant after adjustment for the "
                 f"number of groups compared (level {level:g}).</p>")
    parts.append(headline)

    parts.append("<h2>Provenance</h2>")
    parts.append(_provenance_html(prov))

    parts.append("<h2>Data</h2>")
    null_note = {
        "keep": f"kept, audited as a group that reads {MISSING}",
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
    if left_out:
        parts.append(f"<p>Left out of the tables and charts: {_esc(_names(left_names, 30))}."
                     "</p>")
    low = report.filter(pl.col("low_support"))
    labels = ", ".join(_esc(_group(r, keys)) for r in low.iter_rows(named=True))
    parts.append(
        f"<p>Label <code>{_esc(_describe(y_true))}</code>, prediction "
        f"<code>{_esc(params['y_pred'])}</code>, positive value "
        f"<code>{_esc(repr(pos_label))}</code>; reference group: "
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
    label_of = _summary_labels(report, keys)
    sum_rows = []
    for r in summary.iter_rows(named=True):
        verdict = r["verdict"]
        cls = VERDICT_CLASSES.get(verdict, "")
        sum_rows.append([
            _esc(r["metric"]), _num(r["value"], "{:.4f}"), _esc(label_of(r["group_1"])),
            _esc(label_of(r["group_2"])), _num(r["threshold"], "{:g}"),
            f'<span class="{cls}">{_esc(verdict)}</span>' if verdict else UNDEFINED,
            "low support" if r.get("low_support") else "",
        ])
    parts.append(_table(["metric", "value", "group 1", "group 2", "threshold", "verdict",
                         "support"], sum_rows, numeric=[1, 4]))
    parts.append("<p>The verdicts apply the rules to point estimates; the headline and the "
                 "uncertainty tables say which differences are beyond chance.</p>")
    excluded = summary["excluded_groups"].explode().drop_nulls().unique(maintain_order=True)
    if excluded.len():
        parts.append(f"<p>Left out of the summaries (low support): "
                     f"{_esc(', '.join(label_of(x) for x in excluded.to_list()))}.</p>")
    parts.append("<h3>What the findings mean</h3>")
    parts.append(_reading(report, keys, ofi_threshold=ofi_threshold, four_fifths=four_fifths,
                          min_support=min_support))
    parts.append(_gate_html(checks, keys, min_support))

    parts.append("<h2>Uncertainty</h2>")
    parts.append(f"<h3>Rates with {level:.0%} Wilson intervals</h3>")
    parts.append(_rates_table(metrics, report_page, keys, rates, level))
    method = {"holm": "Holm", "bh": "Benjamini–Hochberg"}.get(adjust, adjust)
    parts.append(f"<h3>Each group against the reference ({_esc(ref_label)})</h3>")
    parts.append(f"<p>Difference (Newcombe) and ratio (log) intervals at {level:.0%}; p: test "
                 f"of equal rates; adjusted p: {method} over the groups compared for each "
                 "metric.</p>")
    parts.append(_disparity_table(on_page(disparity_all), report_page, keys, level))
    parts.append(abroca_html)
    parts.extend(f"<p>{_esc(n)}</p>" for n in notes)

    parts.append("<h2>Report</h2>")
    if left_out:
        parts.append(f"<p class=\"warn\">The table shows {shown.height} of {n_groups} groups "
                     f"(the largest and the reference); {left_out} left out. "
                     "<code>df.fair.report(...)</code> lists every group.</p>")
    table = style_report(report_page, reference_label=ref_label, ofi_threshold=ofi_threshold,
                         four_fifths=four_fifths, title=None)
    parts.append(f'<div class="report-table">{table.as_raw_html()}</div>')
    parts.append(divergence_html)

    parts.append("<h2>Charts</h2>")
    for number, (heading, caption, chart) in enumerate(charts, start=1):
        if isinstance(chart, str):  # the chart could not be drawn: say why
            parts.append(f"<figure><h3>{_esc(heading)}</h3><p class=\"warn\">Not drawn: "
                         f"{_esc(chart)}.</p></figure>")
            continue
        svg = svg_for_html(to_svg(chart), prefix=f"pf-chart{number}-")
        parts.append(
            f"<figure><h3>{_esc(heading)}</h3>{svg}"
            f"<figcaption>{_esc(caption)}</figcaption></figure>"
        )

    parts.append("<h2>Definitions</h2>")
    defs = DEFINITIONS + (SCORE_DEFINITIONS if y_score is not None else ())
    parts.append(_table(["quantity", "definition", "source"],
                        [[_esc(a), _esc(b), _esc(c)] for a, b, c in defs]))
    parts.append(
        f"<p>Rates with a zero denominator are undefined and shown as {UNDEFINED} (null), never "
        f"0; a group whose attribute is missing reads {MISSING}. The reading of OFI with DI "
        "assumes the labels are correct; where the label is itself a contested record (for "
        "example a re-arrest), a systemic finding may hide biased labels.</p>"
    )
    parts.append(_data_block(page_json))
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{_esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(parts) + "\n</body>\n</html>\n"
    )
    if out_path is not None:
        out_path.write_text(page, encoding="utf-8")
    return page
