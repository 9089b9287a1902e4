"""The lines the command line prints under a report table: the benchmarks and the findings.

A person reading ``polars-fair report`` or ``demo`` sees, under the table, the reference group by
name (with its rows), the group whose selection rate the impact ratio divides by, and the
findings counted with what each means (:data:`polars_fair.analyses.report.FINDING_MEANINGS`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair.analyses.impact import PASSED_OVER_NOTE, RATIO_TO_REFERENCE, passed_over
from polars_fair.analyses.report import FINDING_MEANINGS, FINDINGS
from polars_fair.core.labels import named_text, visible
from polars_fair.core.reference import Reference, support_name, support_rows, support_unit
from polars_fair.core.spec import support_size

__all__ = ["group_name", "impact_note", "ratio_note", "report_summary"]

#: The groups named per finding; the rest are counted.
NAMED_GROUPS = 4


def group_name(row: dict[str, Any], keys: Sequence[str]) -> str:
    """A group as the command line writes it: ``race=Caucasian, sex=Male``.

    Parameters
    ----------
    row : dict
        A report row (at least the keys).
    keys : sequence of str
        The key columns.

    Returns
    -------
    str
        ``key=value`` pairs joined by ``", "``; ``"everyone"`` without keys.

    Examples
    --------
    >>> group_name({"race": "Asian", "sex": "Male", "n": 3}, ["race", "sex"])
    'race=Asian, sex=Male'
    """
    # one quoting rule (core.labels.named_text), control characters escaped for a terminal
    return visible(named_text({k: row[k] for k in keys})) if keys else "everyone"


def report_summary(report: pl.DataFrame, keys: Sequence[str], *, min_support: float,
                   reference: Any, width: int = 120) -> str:
    """Plain-language lines under a report table: benchmarks and findings.

    Parameters
    ----------
    report : pl.DataFrame
        The output of ``report`` (every column).
    keys : sequence of str
        Its key columns.
    min_support : float
        The report's ``min_support``, named in the lines.
    reference : Any
        The ``reference`` asked for (a rule name, a group or their
        :class:`polars_fair.core.reference.Reference`), to say how it was chosen.
    width : int, default 120
        The width the lines are wrapped to.

    Returns
    -------
    str
        Lines: ``reference group: ...``, ``impact ratio against: ...``, ``findings: ...`` and
        one line per finding present with its groups and meaning.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.analyses.report import report_from_counts
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [40, 40], "tp": [20, 5], "fp": [0, 0],
    ...                   "fn": [0, 15], "tn": [20, 20]})
    >>> print(report_summary(report_from_counts(c, ["g"]).collect(), ["g"], min_support=30,
    ...                      reference="largest"))  # doctest: +NORMALIZE_WHITESPACE
    reference group: g=a (40 rows; the largest group with at least 30 rows)
    impact ratio against: g=a, the highest selection rate (0.5000) of a group with at least 30 rows
    findings: 1 algorithmic, 1 none
      algorithmic (1): g=b: the classifier's own errors treat the group unjustly: its Objective
        Fairness Index (OFI, errors against the labels) passes the threshold (Briscoe et al.)
      none (1): no disparity beyond the thresholds
    >>> print(report_summary(report_from_counts(c, ["g"], min_support=50).collect(), ["g"],
    ...                      min_support=50, reference="largest").splitlines()[0][17:])
    g=a (40 rows; the largest group, as no group has at least 50 rows) (low support)
    """
    support = f"{min_support:g}"
    # estimated membership: support is the support size (support_rows), not rows
    membership = "n_effective" in report.columns
    rows = (report.with_columns(support_rows(report.columns).alias("__pf_support"))
            if membership else report).to_dicts()
    unit = support_unit(report.columns)  # rows, or (weighted) rows of positive weight
    enough = (f"a {support_name(report.columns)} of at least {support}" if membership
              else f"at least {support} {unit}")
    lines = []
    ref = [r for r in rows if r.get("is_reference")]
    # a rule passes over low-support groups only while a supported group exists: say which
    # (the header used to claim "at least 30 rows" of a group that had 4)
    # (the missing group is never a benchmark: a supported missing group beside small known
    # ones leaves the benchmarks low support, and the header says so)
    supported = any(not r.get("low_support") and r["n"] > 0
                    and all(r[k] is not None for k in keys) for r in rows)
    missing = any(any(r[k] is None for k in keys) and not r.get("low_support") for r in rows)
    among = f" with {enough}" if supported else ""
    unmet = "" if supported else (
        f", as no group that can be the reference has {enough} (the missing group never is)"
        if missing else f", as no group has {enough}")
    rules = {"largest": f"the largest group{among}{unmet}",
             "max_selection_rate": f"the highest selection rate of a group{among}{unmet}"}
    how = rules.get(Reference.parse(reference).rule or "", "given")
    if ref:
        r = ref[0]
        low = " (low support)" if r.get("low_support") else ""
        size = (f"support size {r['__pf_support']:,.4g}" if membership
                else f"{r[support_size(report.columns)]:,} {unit}")
        lines.append(f"reference group: {group_name(r, keys)} ({size}; {how}){low}")
    elif reference == "overall":
        lines.append("reference group: everyone (the whole population)")
    else:
        lines.append("reference group: none (no group can be the benchmark)")
    ratios = sorted((r for r in rows if r.get("impact_ratio") == 1.0 and r["n"] > 0),
                    key=lambda r: bool(r.get("low_support")))  # the benchmark: supported first
    if ratios:
        top = ratios[0]
        low = " (low support)" if top.get("low_support") else ""
        lines.append(f"impact ratio against: {group_name(top, keys)}, the highest selection "
                     f"rate ({top['selection_rate']:.4f}) of a group{among}{unmet}{low}")
    counts = {f: sum(r["finding"] == f for r in rows) for f in FINDINGS}
    lines.append("findings: " + ", ".join(f"{k} {f}" for f, k in counts.items() if k))
    for f in FINDINGS:
        groups = [group_name(r, keys) for r in rows if r["finding"] == f]
        if not groups:
            continue
        named = "; ".join(groups[:NAMED_GROUPS])
        more = f"; and {len(groups) - NAMED_GROUPS} more" if len(groups) > NAMED_GROUPS else ""
        which = "" if f == "none" else f"{named}{more}: "  # the groups to look at are named
        text = (f"{f} ({len(groups)}): {which}"
                + FINDING_MEANINGS[f].replace(
                    "fewer than min_support rows", f"fewer than {support} {unit}"
                    if not membership else f"a support size below {support}"))
        lines.append(textwrap.fill(text, width=width, initial_indent="  ",
                                   subsequent_indent="    ", break_on_hyphens=False))
    return "\n".join(textwrap.fill(line, width=width, subsequent_indent="    ",
                                   break_on_hyphens=False) if not line.startswith("  ")
                     else line for line in lines)


def impact_note(table: pl.DataFrame, keys: Sequence[str], reference: Any,
                min_support: float) -> str:
    """The line under ``impact-analysis`` naming the groups passed over as the reference.

    Parameters
    ----------
    table : pl.DataFrame
        The ``impact_analysis`` result.
    keys : sequence of str
        Its group keys.
    reference : Any
        The ``reference`` it was computed with.
    min_support : float
        Its ``min_support``.

    Returns
    -------
    str
        ``""`` when nobody was passed over, else a newline and
        :data:`polars_fair.analyses.impact.PASSED_OVER_NOTE` with the groups named.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.analyses.impact import impact_from_counts
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [100, 5], "tp": [50, 5], "fp": [0, 0],
    ...                   "fn": [50, 0], "tn": [0, 0]})
    >>> t = impact_from_counts(c, ["g"], reference="max_selection_rate").collect()
    >>> print(impact_note(t, ["g"], "max_selection_rate", 30).strip())
    not the reference despite a higher selection rate: g=b, with fewer than 30 rows
    (min_support=30); pass min_support=0 to allow them
    """
    skipped = passed_over(table, reference)
    if not skipped.height:
        return ""
    groups = [group_name(r, keys) for r in skipped.iter_rows(named=True)]
    named = "; ".join(groups[:NAMED_GROUPS]) + (
        f"; and {len(groups) - NAMED_GROUPS} more" if len(groups) > NAMED_GROUPS else "")
    return "\n" + textwrap.fill(PASSED_OVER_NOTE.format(groups=named, min_support=min_support),
                                width=88, break_on_hyphens=False)


def ratio_note(table: pl.DataFrame, keys: Sequence[str], width: int = 88) -> str:
    """The line under ``impact-analysis`` and ``stratified`` that says what ``impact_ratio`` is.

    :data:`polars_fair.analyses.impact.RATIO_TO_REFERENCE`: ``report`` and ``bias-audit``
    divide their ``impact_ratio`` by the highest selection rate; these two divide by the
    reference group's, named here with its rate.

    Parameters
    ----------
    table : pl.DataFrame
        The result: ``impact_ratio``, ``reference_rate`` and ``is_reference`` columns.
    keys : sequence of str
        Its group keys.
    width : int, default 88
        The width the line is wrapped to.

    Returns
    -------
    str
        ``""`` for a table without those columns, else a newline and the line.

    Examples
    --------
    >>> t = pl.DataFrame({"g": ["a", "b"], "impact_ratio": [1.0, 0.5],
    ...                   "reference_rate": [0.5, 0.5], "is_reference": [True, False]})
    >>> print(ratio_note(t, ["g"]).strip())  # doctest: +NORMALIZE_WHITESPACE
    impact_ratio = selection_rate / the reference group's selection_rate (g=a: 0.5000),
    report's disparate_impact; report's and bias-audit's impact_ratio divide by the highest
    selection rate instead
    """
    if not {"impact_ratio", "reference_rate", "is_reference"} <= set(table.columns):
        return ""
    ref = table.filter(pl.col("is_reference").fill_null(False))
    rates = table["reference_rate"].drop_nulls()
    reference = ""
    if ref.height:
        rate = f": {rates[0]:.4f}" if rates.len() else ""
        reference = f" ({group_name(ref.row(0, named=True), keys)}{rate})"
    return "\n" + textwrap.fill(RATIO_TO_REFERENCE.format(reference=reference), width=width,
                                break_on_hyphens=False)
