"""``polars-fair bias-audit``: the NYC Local Law 144 summary of results, as a document.

6 RCNY § 5-303 asks an employer to publish a summary of the bias audit's results: the source
and an explanation of the data, the number of individuals assessed that fall within an unknown
category, the number of applicants, the selection or scoring rates and the impact ratios of
every category of sex, of race/ethnicity and of their intersection, and the date of the audit
and the distribution date of the tool. :func:`ll144_summary` computes the figures with the
library (:func:`polars_fair.api.rows.bias_audit`, so the numbers are the Python API's)
and states where they come from with the HTML audit's provenance block
(:func:`polars_fair.audit.html.provenance`); :func:`ll144_html`, :func:`ll144_csv` and
:func:`ll144_json` write them.

Why one module: the summary, its notes (:func:`small_benchmarks`) and its three writers are
one document of one law; split, each writer would import the others' facts.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.audit.escape import page_safe, script_json
from polars_fair.cli.io import (
    check_on_rows,
    check_one_attribute,
    column_or_sql,
    parse_value,
    where_condition,
)
from polars_fair.cli.quoting import QUOTING, split_items, unquote
from polars_fair.core.labels import markup_text, named_text, text_of, visible
from polars_fair.core.limits import LIMITS
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import DEFAULT_MAX_GROUPS
from polars_fair.counting.boundary import MIN_LEVELS_PER_ROW_CHECK

__all__ = [
    "LAW",
    "ll144_csv",
    "ll144_html",
    "ll144_json",
    "ll144_summary",
    "parse_data_date",
]

#: The law and rules the summary follows.
LAW = ("NYC Local Law 144 of 2021 (NYC Admin. Code §§ 20-870 to 20-874); 6 RCNY § 5-301 "
       "(bias audit) and § 5-303 (published results)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_data_date(text: str | None) -> str:
    """``--data-date``: a date or a range of dates (ISO 8601), checked; else "not given".

    Parameters
    ----------
    text : str or None
        ``YYYY-MM-DD`` or ``YYYY-MM-DD/YYYY-MM-DD`` (the first date not after the second).

    Returns
    -------
    str
        The text as given, or ``"not given"``.

    Raises
    ------
    InvalidArgumentError
        Not a valid date or range.

    Examples
    --------
    >>> parse_data_date("2025-01-01/2025-12-31"), parse_data_date(None)
    ('2025-01-01/2025-12-31', 'not given')
    """
    if text is None:
        return "not given"
    parts = text.strip().split("/")
    try:
        if len(parts) > 2 or not all(_DATE.fullmatch(p) for p in parts):
            raise ValueError
        dates = [dt.date.fromisoformat(p) for p in parts]
    except ValueError:
        raise E.InvalidArgumentError(E.CLI_BAD_DATE.format(value=text)) from None
    if len(dates) == 2 and dates[0] > dates[1]:
        raise E.InvalidArgumentError(E.CLI_BAD_DATE.format(value=text))
    return text.strip()


def ll144_summary(
    path: Path,
    lf: pl.LazyFrame,
    categories: list[str],
    *,
    y_pred: str | None,
    y_score: str | None,
    pos_label: str | None = None,
    sample_weight: str | None = None,
    where: str | None = None,
    min_share: float = DEFAULTS.min_share,
    exclude_small: bool = DEFAULTS.exclude_small,
    data_date: str | None = None,
    title: str | None = None,
    model: str | None = None,
    note: str | None = None,
    classes: str | None = None,
    max_groups: int = DEFAULT_MAX_GROUPS,
    min_support: float = DEFAULTS.min_support,
    plain_benchmark: bool = DEFAULTS.plain_benchmark,
) -> dict[str, Any]:
    """The LL 144 summary of results of a file, from :func:`polars_fair.api.rows.bias_audit`.

    Parameters
    ----------
    path : pathlib.Path
        The input file (named in the summary by its name only, with its SHA-256).
    lf : pl.LazyFrame
        The scanned file.
    categories : list of str
        ``--category``: columns or SQL expressions (sex, race/ethnicity, ...).
    y_pred, y_score : str or None
        Exactly one: the selection (``--y-pred``) or the score (``--y-score``).
    pos_label : str, optional
        ``--pos-label``: the value of ``y_pred`` meaning selected (default 1; true for a
        boolean column).
    sample_weight : str, optional
        ``--sample-weight``.
    where : str, optional
        ``--where``: a SQL filter applied first.
    min_share : float, default 0.02
        Categories under this share of the rows are flagged small.
    exclude_small : bool, default False
        Leave small categories out of the impact ratios.
    min_support, plain_benchmark : float (30), bool (False)
        ``--min-support``, ``--plain-benchmark``: who may set the benchmark (``not_benchmark``).
    data_date : str, optional
        ``--data-date`` (:func:`parse_data_date`).
    title, model, note : str, optional
        ``--title``, ``--model`` (the tool audited), ``--note``: recorded in the provenance.
    classes : str, optional
        ``--classes``: the classes of ``y_pred`` in order, comma-separated, read in its dtype
        as ``--pos-label`` is (a per-class audit with a fixed set and order; a class no one
        received has its rows). Default: more than two values found make a per-class audit.
    max_groups : int, default 10000
        ``--max-groups``: the most groups the count table may make (the intersections of Enum
        categories), as for every command.

    Returns
    -------
    dict
        ``law``, ``outcome`` ("selection" or "scoring"), ``rate`` (the rate column),
        ``source`` (the file name), ``data_date``, ``applicants`` (rows audited),
        ``unknown_category`` (attribute set -> rows of unknown category), ``small_benchmark``,
        ``not_benchmark`` (:func:`not_benchmarks`), ``provenance`` and ``results`` (the frame
        of :func:`polars_fair.api.rows.bias_audit`).

    Raises
    ------
    PolarsFairError
        Neither or both of ``y_pred`` / ``y_score``, a bad ``--data-date``
        (``InvalidArgumentError``); bad input (missing columns, SQL refused, ...).

    Examples
    --------
    >>> from polars_fair.datasets import example_file, make_hiring
    >>> p = example_file(make_hiring(800, seed=0))
    >>> s = ll144_summary(p, pl.scan_parquet(p), ["sex"], y_pred="y_pred", y_score=None)
    >>> s["applicants"], s["results"]["n"].to_list(), s["data_date"]
    (800, [380, 420], 'not given')
    """
    from polars_fair.api.rows import bias_audit
    from polars_fair.audit.html import provenance  # the page stack only when a summary is made

    date = parse_data_date(data_date)
    if (y_pred is None) == (y_score is None):
        raise E.InvalidArgumentError(E.CLI_ONE_OUTCOME)
    schema = lf.collect_schema()
    rows_read = int(lf.select(pl.len()).collect().item())
    unfiltered, condition = lf, where_condition(lf, where) if where else None
    if condition is not None:
        lf = lf.filter(condition)
    cats = [column_or_sql(check_one_attribute(c, schema, "--category"), schema, "--category")
            for c in categories]
    outcome_flag = "--y-pred" if y_pred is not None else "--y-score"
    outcome_text = y_pred if y_pred is not None else str(y_score)
    outcome = column_or_sql(outcome_text, schema, outcome_flag)
    weight = column_or_sql(sample_weight, schema, "--sample-weight") if sample_weight else None
    check_on_rows(unfiltered, {
        "--where": (where or "", condition), outcome_flag: (outcome_text, outcome),
        **{f"--category#{i}": (t, c) for i, (t, c) in enumerate(zip(categories, cats,
                                                                      strict=True))},
        "--sample-weight": (sample_weight or "", weight),
    })
    label, found = _outcome_label(lf, outcome, y_pred, y_score, pos_label, classes)
    results = bias_audit(
        lf, cats, y_pred=outcome if y_pred is not None else None,
        y_score=outcome if y_score is not None else None, pos_label=label,
        sample_weight=weight, min_share=min_share, exclude_small=exclude_small,
        classes=found, max_groups=max_groups, plain_benchmark=plain_benchmark,
        min_support=min_support,
    ).collect()
    rows_audited = int(lf.select(pl.len()).collect().item())
    keys = [c if isinstance(c, str) else c.meta.output_name() for c in cats]
    unknown = {
        " × ".join(s): int(g["unknown_rows"][0])
        for s, g in ((r["attributes"], results.filter(pl.col("attributes") == r["attributes"]))
                     for r in results.select("attributes").unique(maintain_order=True)
                     .iter_rows(named=True))
    }
    small = small_benchmarks(results, keys, min_support=min_support, min_share=min_share)
    parameters = {
        "--category": categories, "--y-pred": y_pred, "--y-score": y_score,
        "--pos-label": label if y_pred is not None and found is None else None,
        **({"--classes": list(found)} if found is not None else {}),
        "--sample-weight": sample_weight,
        "--min-share": min_share, "--exclude-small": exclude_small, "--where": where,
        **({"--max-groups": max_groups} if max_groups != DEFAULT_MAX_GROUPS else {}),
        "--min-support": min_support, "--plain-benchmark": plain_benchmark,
    }
    return {
        "law": LAW,
        "outcome": ("scoring" if y_pred is None else "selection" if found is None
                    else "classification"),
        "rate": "selection_rate" if y_pred is not None else "scoring_rate",
        "categories": keys,
        "source": path.name,
        "data_date": date,
        "applicants": rows_audited,
        "unknown_category": unknown,
        "small_benchmark": small,
        "not_benchmark": not_benchmarks(results, min_support),
        "provenance": provenance(
            path, rows_read=rows_read, rows_filtered=rows_read - rows_audited,
            rows_audited=rows_audited, filters=[where] if where else [], params=parameters,
            title=title or "Bias audit: summary of results", model=model, note=note),
        "results": results,
    }


def _outcome_label(lf: pl.LazyFrame, outcome: Any, y_pred: str | None, y_score: str | None,
                   pos_label: str | None, classes: str | None) -> tuple[Any, Any]:
    """The positive label and the classes of the audited outcome (``--pos-label``, ``--classes``).

    Classes given, or found (more than two values and no ``--pos-label``): a per-class audit,
    no label. Otherwise the label read in the outcome's dtype (default 1; true for a boolean).
    """
    label: Any = None if y_score is None else 1
    found = _classes_given(lf, outcome, y_pred, y_score, pos_label, classes)
    if found is None and y_pred is not None and pos_label is None:
        found = _classes_of(lf, outcome)
    if y_pred is not None and found is None:
        dtype = lf.select(outcome).collect_schema().dtypes()[0]
        if pos_label is None:
            label = True if dtype == pl.Boolean else parse_value("1", dtype, "--pos-label")
        else:
            label = parse_value(pos_label, dtype, "--pos-label")
    return label, found


def _classes_given(lf: pl.LazyFrame, outcome: Any, y_pred: str | None, y_score: str | None,
                   pos_label: str | None, classes: str | None) -> tuple[Any, ...] | None:
    """``--classes`` in the prediction's dtype (as ``--pos-label`` is read), or None."""
    if classes is None:
        return None
    if y_score is not None or pos_label is not None:
        raise E.InvalidArgumentError(E.CLASSES_CONFLICT.format(
            other="--y-score" if y_score is not None else f"--pos-label {pos_label}",
            advice="pass --y-pred with --classes, or leave --classes out"))
    assert y_pred is not None
    dtype = lf.select(outcome).collect_schema().dtypes()[0]
    return tuple(parse_value(unquote(c), dtype, "--classes")  # read as every list flag is
                 for c in split_items(classes) if c)


def _classes_of(lf: pl.LazyFrame, outcome: Any) -> tuple[Any, ...] | None:
    """The classes of a ``--y-pred`` with more than two values (a tool that classifies).

    Read only without ``--pos-label``, for a text or integer column: one small query for the
    distinct values. Two values or fewer is a selection, audited as before; more is a
    classification, audited per class (6 RCNY § 5-301(b)(4)). A Boolean is a selection and a
    float column is left to the selection audit, whose message tells a score (``--y-score``)
    from a selection.
    """
    column = outcome if isinstance(outcome, pl.Expr) else pl.col(outcome)
    dtype = lf.select(column).collect_schema().dtypes()[0]
    if dtype == pl.Boolean or dtype.is_float() or not (
            dtype.is_integer() or dtype == pl.String
            or isinstance(dtype, (pl.Categorical, pl.Enum))):
        return None
    found = lf.select(column.drop_nulls().unique().sort().implode(), column.count().alias("n"))
    values, rows = found.collect().row(0)
    name = outcome if isinstance(outcome, str) else column.meta.output_name()
    if len(values) > LIMITS["classes"].limit:  # no --classes given: the column's values
        raise E.SizeLimitError(E.CLASS_VALUES_TOO_MANY.format(
            column=name, role="y_pred", size=len(values), limit=LIMITS["classes"].limit))
    if len(values) >= MIN_LEVELS_PER_ROW_CHECK and 2 * len(values) > rows:  # a name as classes
        raise E.InvalidLabelError(E.CLASS_COLUMN_HIDDEN.format(
            column=name, role="y_pred", dtype=dtype, levels=len(values), rows=rows,
            why=E.WHY_FEW_ROWS.format(unit="value")))
    return tuple(values) if len(values) > 2 else None


#: The note of a benchmark category below the report's ``min_support``: LL 144 keeps it (the
#: highest rate is the benchmark; excluding small categories is the auditor's choice).
SMALL_BENCHMARK = (
    "the benchmark of {attributes} ({category}: the highest {rate}, impact ratio 1) has "
    "{n:,} applicant(s), fewer than the report's min_support of {min_support:g}: every impact "
    "ratio of {attributes} rests on them. LL 144 takes the highest rate as it is; the auditor "
    "may leave categories under --min-share out of the impact ratios with --exclude-small "
    "(6 RCNY § 5-301)"
)
#: :data:`SMALL_BENCHMARK` for a benchmark at or above ``--min-share``: ``--exclude-small`` would
#: leave it in, so no option is advised (the law takes the highest rate; 6 RCNY § 5-301 allows
#: leaving out categories under 2% only).
SMALL_BENCHMARK_ABOVE_SHARE = (
    "the benchmark of {attributes} ({category}: the highest {rate}, impact ratio 1) has "
    "{n:,} applicant(s), fewer than the report's min_support of {min_support:g}: every impact "
    "ratio of {attributes} rests on them. LL 144 takes the highest rate as it is; at {share:.2%} "
    "of the applicants it is not under --min-share ({min_share:.2%}), so --exclude-small does "
    "not leave it out"
)


#: Categories left out of the benchmark by the support rule (issue 20): they keep their rows and
#: their impact ratio (against the benchmark; above 1 when selected more often).
NOT_BENCHMARK = (
    "{attributes}: {categories} ({count} categor{ies}) with fewer than {min_support:g} "
    "applicants, report's support rule; their impact ratios are against the highest rate of "
    "the others (--plain-benchmark lets any category set it, LL 144's plain rule)"
)


def not_benchmarks(results: pl.DataFrame, min_support: float) -> list[str]:
    """One note per attribute set naming its categories not eligible as benchmark, and why.

    Parameters
    ----------
    results : pl.DataFrame
        :func:`polars_fair.analyses.bias_audit.bias_audit_from_counts`' table (with
        ``benchmark_eligible``).
    min_support : float
        The support rule's applicants.

    Returns
    -------
    list of str
        :data:`NOT_BENCHMARK` for each set with such categories (none under
        ``--plain-benchmark``, or when no category has ``min_support`` applicants).

    Examples
    --------
    >>> t = pl.DataFrame({"attributes": [["race"]] * 2, "race": ["a", "b"], "n": [18, 900],
    ...                   "excluded": [False, False], "benchmark_eligible": [False, True]})
    >>> not_benchmarks(t, 30)[0][:40]
    "race: race='a' (1 category) with fewer t"
    """
    notes: list[str] = []
    if "benchmark_eligible" not in results.columns:
        return notes
    left = results.filter(~pl.col("benchmark_eligible") & ~pl.col("excluded"))
    for attrs, group in left.group_by("attributes", maintain_order=True):
        names = list(attrs[0])
        shown = [", ".join(f"{k}={r[k]!r}" for k in names) for r in group.iter_rows(named=True)]
        notes.append(NOT_BENCHMARK.format(
            attributes=" × ".join(names), categories="; ".join(shown), count=len(shown),
            ies="y" if len(shown) == 1 else "ies", min_support=min_support))
    return notes


def small_benchmarks(results: pl.DataFrame, keys: Sequence[str],
                     min_support: float = DEFAULTS.min_support,
                     min_share: float = DEFAULTS.min_share) -> list[str]:
    """A note for each attribute set whose benchmark category is small (:data:`SMALL_BENCHMARK`).

    The benchmark is the category with the highest rate (impact ratio 1) that the impact
    ratios are computed against; small: fewer than ``min_support`` applicants (the report's
    default, 30), whatever ``--min-share`` says. The note advises ``--exclude-small`` only where
    it leaves the benchmark out (its share under ``min_share``: ``small_category``); otherwise
    it says why that option would change nothing (:data:`SMALL_BENCHMARK_ABOVE_SHARE`).

    Parameters
    ----------
    results : pl.DataFrame
        :func:`polars_fair.analyses.bias_audit.bias_audit`'s table.
    keys : sequence of str
        The category columns.
    min_support : float, default 30
        The least applicants of a benchmark that needs no note.
    min_share : float, default 0.02
        The audit's ``--min-share`` (shown when the benchmark is not under it).

    Returns
    -------
    list of str

    Examples
    --------
    >>> t = pl.DataFrame({"attributes": [["race"]] * 2, "race": ["a", "b"], "n": [18, 900],
    ...                   "selection_rate": [0.6, 0.4], "impact_ratio": [1.0, 0.667]})
    >>> small_benchmarks(t, ["race"])[0][:60]
    'the benchmark of race (race=a: the highest selection_rate, i'
    """
    rate = "selection_rate" if "selection_rate" in results.columns else "scoring_rate"
    notes = []
    for r in results.filter((pl.col("impact_ratio") == 1.0)
                            & (pl.col("n") < min_support)).iter_rows(named=True):
        attrs = list(r["attributes"])
        # named as every label is, controls escaped (visible): never a Python repr
        category = visible(named_text({k: r[k] for k in attrs}))
        if "class" in r:
            category = f"class {r['class']}: {category}"
        facts = {"attributes": " × ".join(attrs), "category": category, "rate": rate,
                 "n": r["n"], "min_support": min_support}
        notes.append(SMALL_BENCHMARK.format(**facts) if r.get("small_category", True)
                     else SMALL_BENCHMARK_ABOVE_SHARE.format(**facts, share=r["share"],
                                                              min_share=min_share))
    return notes


def _facts(summary: dict[str, Any]) -> list[tuple[str, str]]:
    prov = summary["provenance"]
    unknown = "; ".join(f"{k}: {v:,}" for k, v in summary["unknown_category"].items())
    source, rows, versions = prov["input"] or {}, prov["rows"], prov["versions"]
    facts = [
        ("law", summary["law"]),
        ("model", prov.get("model")),
        ("outcome", f"{summary['outcome']} ({summary['rate']})"),
        ("source of the data", summary["source"]),
        ("date of the data", summary["data_date"]),
        ("applicants audited", f"{summary['applicants']:,}"),
        ("applicants of unknown category", unknown),
        ("input SHA-256", source.get("sha256")),
        ("input size (bytes)", f"{source.get('size_bytes') or 0:,}"),
        ("rows read / filtered / audited",
         f"{rows['read']:,} / {rows['filtered']:,} / {rows['audited']:,}"),
        ("filters", "; ".join(prov["filters"]) or "none"),
        ("parameters", json.dumps(prov["parameters"], default=str)),
        ("generated (UTC)", prov["generated_utc"]),
        ("versions", ", ".join(f"{k} {v}" for k, v in versions.items())),
        ("note", prov.get("note")),
        *(("small benchmark", n) for n in summary.get("small_benchmark", [])),
        *(("not eligible as benchmark", n) for n in summary.get("not_benchmark", [])),
    ]
    return [(k, str(v)) for k, v in facts if v is not None]


def _jsonable(summary: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in summary.items() if k != "results"}
    out["results"] = json.loads(summary["results"].write_json())
    return out


def ll144_json(summary: dict[str, Any]) -> str:
    """The summary as JSON: every fact, the provenance and ``results`` (one object per row).

    Parameters
    ----------
    summary : dict
        :func:`ll144_summary`.

    Returns
    -------
    str

    Examples
    --------
    >>> s = {"law": "LL 144", "results": pl.DataFrame({"n": [3]})}
    >>> json.loads(ll144_json(s))["results"]
    [{'n': 3}]
    """
    return json.dumps(_jsonable(summary), indent=2, default=str) + "\n"


@borrow(ll144_json, params=("summary",))
def ll144_csv(summary: dict[str, Any]) -> str:
    """The summary as CSV: the facts as ``# name: value`` lines, then one row per category.

    Read it back with ``pl.read_csv(path, comment_prefix="#")``; ``attributes`` is written as
    ``sex, race``.

    Returns
    -------
    str

    Examples
    --------
    >>> s = {"results": pl.DataFrame({"attributes": [["sex"]], "n": [3]})}
    >>> print(ll144_csv(s), end="")
    attributes,n
    sex,3
    """
    from polars_fair.cli.table import to_csv

    head = "".join(f"# {k}: {_one_line(v)}\n" for k, v in _facts(summary)) \
        if "provenance" in summary else ""
    return head + to_csv(summary["results"])


def _one_line(value: Any) -> str:
    """A fact on its ``#`` line: a line break in a title or note would start a CSV row."""
    return " ".join(str(value).splitlines())


#: The separator of an intersection's categories on the LL 144 page.
INTERSECTION = " × "


def _label(row: dict[str, Any], attributes: list[str]) -> str:
    r"""A category on the LL 144 page, spelled as every other way out spells a group.

    A missing value reads ``(missing)`` (:data:`polars_fair.core.labels.MISSING_GROUP`); the
    text ``"(missing)"``, a text starting with ``"`` and, in an intersection, one holding
    :data:`INTERSECTION` are quoted, ``\`` and ``"`` escaped
    (:func:`polars_fair.core.labels.text_of`).
    """
    several = (INTERSECTION,) if len(attributes) > 1 else ()
    return INTERSECTION.join(text_of(row[a], ambiguous=several) for a in attributes)


def _fmt(x: Any, digits: int = 4) -> str:
    if x is None:
        return "undefined"
    return f"{x:.{digits}f}" if isinstance(x, float) else f"{x:,}"


@borrow(ll144_json, params=("summary",))
def ll144_html(summary: dict[str, Any]) -> str:
    """The summary as one self-contained HTML page (nothing loaded from the network).

    A facts table (law, source and date of the data, applicants, unknown categories, the
    input's SHA-256, rows read/filtered/audited, parameters, versions), one table per attribute
    set (each category's applicants, rate, impact ratio and notes), and the same figures as
    JSON in ``<script type="application/json" id="polars-fair-data">``.

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> from polars_fair.datasets import example_file, make_hiring
    >>> p = example_file(make_hiring(800, seed=0))
    >>> page = ll144_html(ll144_summary(p, pl.scan_parquet(p), ["sex"], y_pred="y_pred",
    ...                                 y_score=None))
    >>> page.startswith("<!DOCTYPE html>"), 'id="polars-fair-data"' in page
    (True, True)
    """
    def esc(text: str) -> str:  # controls, and backslashes before them, escaped (injective)
        return html.escape(markup_text(text))

    title = summary["provenance"].get("title") or "Bias audit: summary of results"
    results: pl.DataFrame = summary["results"]
    rate = summary["rate"]
    count = "selected" if rate == "selection_rate" else "scored_above_median"
    facts = "".join(f"<tr><th>{esc(k)}</th><td>{esc(str(v))}</td></tr>"
                    for k, v in _facts(summary))
    sections = []
    per_class = "class" in results.columns
    by = ["class", "attributes"] if per_class else ["attributes"]
    for values, group in results.group_by(by, maintain_order=True):
        attrs = list(values[-1])
        heading = INTERSECTION.join(attrs) + (f" (class {values[0]})" if per_class else "")
        rows = []
        for r in group.iter_rows(named=True):
            notes = [n for n, flag in (("unknown category", r["unknown_category"]),
                                       ("under the minimum share", r["small_category"]),
                                       ("excluded from the impact ratios", r["excluded"]))
                     if flag]
            rows.append(
                f"<tr><td>{esc(_label(r, attrs))}</td><td>{_fmt(r['n'])}</td>"
                f"<td>{_fmt(r[count])}</td><td>{_fmt(r[rate])}</td>"
                f"<td>{_fmt(r['impact_ratio'])}</td><td>{_fmt(r['share'])}</td>"
                f"<td>{esc('; '.join(notes))}</td></tr>")
        sections.append(
            f"<h2>{esc(heading)}</h2><table><thead><tr><th>category</th>"
            f"<th>applicants</th><th>{count.replace('_', ' ')}</th>"
            f"<th>{rate.replace('_', ' ')}</th><th>impact ratio</th><th>share</th>"
            f"<th>notes</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")
    data = script_json(_jsonable(summary), default=str)
    return page_safe(  # no raw NUL or control character from the data reaches the page
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{esc(title)} (NYC Local Law 144)</title><style>"
        "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;color:#222}"
        "table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #bbb;"
        "padding:.3rem .6rem;text-align:left}td:nth-child(n+2){text-align:right}"
        "tr{break-inside:avoid}</style></head><body>"
        f"<h1>{esc(title)}</h1>"
        f"<p>{esc(summary['law'])}. Impact ratio = a category's {rate.replace('_', ' ')} / "
        "the highest rate of the same attribute set; applicants of unknown category are "
        "counted and left out of the impact ratios.</p>"
        f"<table class=\"facts\">{facts}</table>{''.join(sections)}"
        f"<script type=\"application/json\" id=\"polars-fair-data\">{data}</script>"
        "</body></html>\n"
    )


#: The formats of ``bias-audit --format``.
LL144_FORMATS = ("table", "csv", "json", "markdown", "html")


def register(app: Any, guard: Any) -> None:
    """Add ``polars-fair bias-audit`` to ``app``; its audit options come from the declaration.

    ``--min-share`` and ``--exclude-small`` are the keyword parameters of
    :meth:`polars_fair.api.objects.FairCounts.bias_audit`
    (:func:`polars_fair.cli.commands.method_options`).

    Parameters
    ----------
    app : typer.Typer
        The command line.
    guard : callable
        Runs the command's body (one line and exit 2 for a failure).

    Examples
    --------
    >>> from polars_fair.cli.entry import app
    >>> "bias-audit" in [c.name for c in app.registered_commands]
    True
    """
    import inspect
    from typing import Annotated

    import typer

    from polars_fair.api.objects import FairCounts
    from polars_fair.cli.commands import _parameter, method_options
    from polars_fair.cli.group import ReadableCommand
    from polars_fair.cli.io import (
        check_outputs,
        choices,
        effective_format,
        emit,
        note_group_keys,
        parse_dtypes,
        scan,
    )
    from polars_fair.cli.table import select_columns

    declared = [o for o in method_options(FairCounts, "bias_audit")
                if o.target == "method" and o.name not in ("combinations", "max_order")]
    # the count table's size limit, as every command declares it (--max-groups)
    limit = next(o for o in method_options(FairCounts, "report") if o.name == "max_groups")

    def bias_audit(**v: Any) -> None:
        """NYC Local Law 144 summary of results: rates and impact ratios per category.

        Selection rates (--y-pred) or scoring rates (--y-score: the share above the sample's
        median) and impact ratios for each --category alone and for their intersection, the
        number of applicants of unknown category, the source and date of the data, and the
        provenance (input SHA-256, rows, parameters, versions). polars_fair.analyses.bias_audit.
        """
        def run() -> None:
            fmt, output = v["format"], v["output"]  # one of LL144_FORMATS: typer checks it
            is_html = fmt == "html" or (
                fmt == "table" and output is not None
                and output.suffix.lower() in (".html", ".htm"))
            if is_html:
                check_outputs("table", None, html=output, inputs=[v["path"]])
            else:
                fmt = check_outputs(fmt, output, inputs=[v["path"]])
            summary = ll144_summary(
                v["path"], scan(v["path"], v["separator"], parse_dtypes(v["dtype"])),
                v["category"], y_pred=v["y_pred"], y_score=v["y_score"],
                pos_label=v["pos_label"], classes=v["classes"],
                sample_weight=v["sample_weight"], where=v["where"],
                data_date=v["data_date"], title=v["title"], model=v["model"], note=v["note"],
                max_groups=v["max_groups"], **{o.name: v[o.name] for o in declared},
            )
            if v["columns"] is not None:
                summary["results"], _ = select_columns(summary["results"], v["columns"], "csv")
            if is_html or fmt in ("csv", "json"):
                text = (ll144_html(summary) if is_html else
                        ll144_csv(summary) if fmt == "csv" else ll144_json(summary))
                if output is None:
                    typer.echo(text, nl=False)
                else:
                    output.write_text(text, encoding="utf-8")
                return
            head = "\n".join(f"{k}: {val}" for k, val in _facts(summary))
            fmt = effective_format(fmt, output)
            frame = summary["results"]
            if fmt == "table" and v["columns"] is None:  # the figures first, flags after
                first = ["class", "attributes", *summary["categories"], "n", "selected",
                         "scored_above_median", summary["rate"], "impact_ratio"]
                frame = frame.select(*[c for c in first if c in frame.columns],
                                     *[c for c in frame.columns if c not in first])
            frame, head = select_columns(frame, v["columns"], fmt, head)
            note_group_keys(summary["categories"])  # (missing), "null": apart (group_cell)
            emit(frame, fmt, output, head)

        guard(run, json_errors=v["format"] == "json")

    kw = inspect.Parameter.KEYWORD_ONLY

    def opt(name: str, typ: Any, default: Any, help_text: str, metavar: str,
            flag: str | None = None) -> inspect.Parameter:
        info = typer.Option(flag or "--" + name.replace("_", "-"), help=help_text,
                            metavar=metavar)
        return inspect.Parameter(name, kw, default=default, annotation=Annotated[typ, info])

    params = [
        inspect.Parameter("path", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Annotated[
            Path, typer.Argument(help="CSV, Parquet or NDJSON file of applicants (read lazily).",
                                 metavar="PATH")]),
        inspect.Parameter("category", kw, annotation=Annotated[list[str], typer.Option(
            "--category", help="A category attribute (sex, race/ethnicity): column or SQL; "
                               "repeat. Each is audited alone and all of them together.",
            metavar="COLUMN|SQL")]),
        opt("y_pred", str | None, None, "The selection (column or SQL); with more than two "
            "values and no --pos-label, a classification audited per class.", "COLUMN|SQL"),
        opt("y_score", str | None, None, "A score instead: scoring rate = share above the "
            "sample's median.", "COLUMN|SQL"),
        opt("pos_label", str | None, None, "The --y-pred value meaning selected (default 1; "
            "true for a boolean).", "VALUE"),
        opt("classes", str | None, None, "The classes of --y-pred in order, comma-separated: "
            "one selection table per class, a class no one received included (not with "
            "--pos-label or --y-score). " + QUOTING, "A,B,..."),
        opt("sample_weight", str | None, None, "Row weights (column or SQL).", "COLUMN|SQL"),
        opt("where", str | None, None, "SQL filter applied before the audit.", "SQL"),
        opt("data_date", str | None, None, "The date of the data: YYYY-MM-DD or "
            "YYYY-MM-DD/YYYY-MM-DD (stated as not given otherwise).", "DATE"),
        opt("title", str | None, None, "The document's title.", "TEXT"),
        opt("model", str | None, None, "The tool audited (name, version).", "TEXT"),
        opt("note", str | None, None, "A note recorded with the provenance.", "TEXT"),
        opt("format", choices(LL144_FORMATS), "table", " | ".join(LL144_FORMATS)
            + " (default: the --output suffix, else table)", "FORMAT"),
        opt("output", Path | None, None, "Write to this file (.html, .csv, .json, .md, .txt).",
            "FILE"),
        opt("columns", str | None, None, "The result columns to write, comma-separated "
            "(default: every column; a table as many as fit 120 characters).", "COL,..."),
        opt("separator", str | None, None, "CSV field separator (one character).", "CHAR"),
        opt("dtype", list[str] | None, None, "COLUMN=TYPE: read a column as this type; repeat.",
            "COLUMN=TYPE"),
        *[_parameter(o) for o in (*declared, limit)],
    ]
    bias_audit.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    bias_audit.__annotations__ = {}
    app.command(name="bias-audit", cls=ReadableCommand)(bias_audit)
