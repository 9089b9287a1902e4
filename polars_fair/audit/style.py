"""The report as a styled table (Great Tables): the findings highlighted, the definitions below.

:func:`style_report` turns the frame of ``df.fair.report(...)`` into a ``great_tables.GT``: rates
as percentages, adverse impact, |OFI| over its threshold and low support highlighted (and
spelled out in a ``flags`` column, so the table reads without colour), the reference group in
bold, and source notes with the definitions and the reference group. ``GT.as_raw_html()`` gives
a self-contained HTML fragment (its CSS inline in a ``<style>`` block, no external resources);
:func:`polars_fair.audit.html.audit_html` embeds it.

Great Tables comes with the ``plot`` extra (``pip install "polars_fair[plot]"``) and is imported
only when a table is styled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_fair import errors as E
from polars_fair.core.labels import markup_text, named_text, value_text
from polars_fair.core.options import DEFAULTS
from polars_fair.core.registry import METRICS, PAIR_METRICS, metric

if TYPE_CHECKING:  # pragma: no cover
    import great_tables

__all__ = [
    "ADVERSE_FILL",
    "DEFAULT_RATES",
    "LOW_SUPPORT_FILL",
    "OFI_FILL",
    "reference_label_of",
    "report_keys",
    "style_report",
]

#: Cell fill of an impact ratio below the four-fifths limit (adverse impact).
ADVERSE_FILL = "#F4C7C3"
#: Cell fill of an OFI whose absolute value exceeds the threshold.
OFI_FILL = "#FCE8B2"
#: Cell fill of ``n`` for a group below ``min_support`` (its whole row is grey italic).
LOW_SUPPORT_FILL = "#DADCE0"

#: The metric columns shown by default, in this order (any metric of
#: :data:`polars_fair.core.registry.METRICS` can be shown with ``style_report(..., rates=...)``).
DEFAULT_RATES = ("selection_rate", "base_rate", "tpr", "fpr", "ppv", "accuracy")
#: The disparity columns shown after the metrics, when present in the report.
DISPARITY = ("disparate_impact", "impact_ratio", "ofi")
#: Columns shown by default, in order, when present in the report (after the key columns).
SHOWN = ("n", *DEFAULT_RATES, *DISPARITY, "finding")
#: The metrics shown as percentages: those whose registry range is [0, 1] (the others, such as
#: ``marginal_benefit`` in [−1, 1], are signed numbers).
RATES = tuple(m.name for m in METRICS.values() if (m.low, m.high) == (0.0, 1.0))
#: Column labels: each metric's title from the registry, then the other columns' labels.
LABELS = {
    "n": "n", **{m.name: m.title for m in METRICS.values()}, "disparate_impact": "DI",
    "impact_ratio": "impact ratio", "ofi": "OFI", "finding": "finding", "flags": "flags",
}
#: How a null group key reads (the group of rows whose attribute is missing).
MISSING_GROUP = "(missing)"
#: A key's cell in a row of another attribute set (stacked sets): no group, neither the missing
#: one nor the "—" of an undefined figure.
NOT_IN_SET = ""
NOT_A_REPORT = (
    "style_report needs the output of df.fair.report(...) (columns n and selection_rate); "
    "the frame has columns: {available}"
)


def _gt() -> Any:
    try:
        import great_tables
    except ImportError as exc:
        raise ImportError(
            "style_report needs the optional module 'great_tables': install the plot extra with "
            'pip install "polars_fair[plot]" (altair, vl-convert-python, great-tables)'
        ) from exc
    return great_tables


def report_keys(report: pl.DataFrame) -> list[str]:
    """The key columns of a report: every column before ``n`` except ``attributes``.

    Parameters
    ----------
    report : pl.DataFrame
        The output of ``df.fair.report(...)`` (any frame whose keys precede ``n``).

    Returns
    -------
    list of str
        The key column names, in order.

    Raises
    ------
    ColumnNotFoundError
        ``report`` has no ``n`` column (the message lists its columns).

    Examples
    --------
    >>> import polars as pl
    >>> report_keys(pl.DataFrame({"race": ["a"], "sex": ["F"], "n": [1]}))
    ['race', 'sex']
    """
    names = report.columns
    if "n" not in names:
        raise E.ColumnNotFoundError(NOT_A_REPORT.format(available=E.show_columns(names)))
    return [c for c in names[: names.index("n")] if c != "attributes"]


def reference_label_of(report: pl.DataFrame, keys: Sequence[str] | None = None) -> str:
    """Name the reference group of a report: ``"race=White, sex=Male"`` or the population.

    Parameters
    ----------
    report : pl.DataFrame
        The output of ``df.fair.report(...)`` (reads ``is_reference`` and the key columns).
    keys : sequence of str, optional
        Default: :func:`report_keys`.

    Returns
    -------
    str
        ``"attr=value, ..."`` of the row flagged ``is_reference``; ``"the whole population
        (reference='overall')"`` when no row is; ``"not recorded"`` without ``is_reference``.

    Examples
    --------
    >>> import polars as pl
    >>> r = pl.DataFrame({"race": ["a", "b"], "n": [5, 9], "is_reference": [False, True]})
    >>> reference_label_of(r)
    'race=b'
    """
    keys = list(keys) if keys is not None else report_keys(report)
    if "is_reference" not in report.columns:
        return "not recorded"
    rows = report.filter(pl.col("is_reference").fill_null(False))
    if rows.height == 0:
        return "the whole population (reference='overall')"
    row = rows.row(0, named=True)
    return named_text({k: row[k] for k in keys if not (  # quoted as every label is
        "attributes" in report.columns and row[k] is None)}, missing=MISSING_GROUP)


def style_report(
    report: pl.DataFrame | pl.LazyFrame,
    *,
    reference_label: str | None = None,
    ofi_threshold: float = DEFAULTS.ofi_threshold,
    four_fifths: float = DEFAULTS.four_fifths,
    title: str | None = "Fairness report",
    rates: Sequence[str] | None = None,
) -> great_tables.GT:
    """A Great Tables view of a fairness report with the findings highlighted.

    Shows the key columns, ``n``, the metrics of ``rates`` (by default :data:`DEFAULT_RATES`:
    ``selection_rate``, ``base_rate``, ``tpr``, ``fpr``, ``ppv``, ``accuracy``) labelled by their
    registry titles, as percentages (a metric whose range is not [0, 1], such as
    ``marginal_benefit``, as a signed number), ``disparate_impact`` and ``impact_ratio``
    (3 decimals), ``ofi`` (signed, 3 decimals), ``finding``, and a ``flags`` column that spells
    out the highlights. The table formats the report's verdicts and does not decide them again:
    the highlights are the report's own ``adverse_impact`` and ``ofi_flag`` columns, decided
    exactly on the counts (:mod:`polars_fair.core.rules`), never on the rounded floats shown (an
    impact ratio of exactly 4/5 shown as 0.7999999999999999 from weighted sums is not adverse).
    Highlighted:

    - adverse impact (``adverse_impact``: ``impact_ratio < four_fifths``, EEOC four-fifths rule,
      29 CFR 1607.4(D)): the impact-ratio cell filled :data:`ADVERSE_FILL`;
    - ``ofi_flag`` (``|ofi| > ofi_threshold``, Objective Fairness Index, Briscoe et al.): the OFI
      cell filled :data:`OFI_FILL`;
    - low support (``low_support``): the ``n`` cell filled :data:`LOW_SUPPORT_FILL` and the row
      in grey italics;
    - the reference group (``is_reference``) in bold.

    Undefined values (null: a zero denominator) read "—"; a null group key (the rows whose
    attribute is missing) reads "(missing)". Source notes give the reference
    group and the definitions with their sources: each shown metric's formula and source, and
    those of DI and OFI, from :mod:`polars_fair.core.registry`.

    Parameters
    ----------
    report : pl.DataFrame or pl.LazyFrame
        The output of ``df.fair.report(by, ...)``: key columns, then ``n`` and the rate,
        disparity and flag columns (any subset of :data:`SHOWN` besides ``n`` and
        ``selection_rate`` may be missing; without ``adverse_impact``, ``ofi_flag`` or
        ``low_support`` nothing is highlighted for it). With ``combinations="all"`` the
        ``attributes`` column is shown as text.
    reference_label : str, optional
        How to name the reference group in the notes; default: read from ``is_reference``
        (:func:`reference_label_of`).
    ofi_threshold : float, default 0.3
        The ``ofi_threshold`` the report was made with, named in the flags and the notes (the
        highlight itself is the report's ``ofi_flag``).
    four_fifths : float, default 0.8
        The ``four_fifths`` the report was made with, named in the flags and the notes (the
        highlight itself is the report's ``adverse_impact``).
    title : str or None, default "Fairness report"
        Table header; ``None`` for none.
    rates : sequence of str, optional
        The metric columns to show, in order: names of :data:`polars_fair.core.registry.METRICS`.
        Default :data:`DEFAULT_RATES` (those present in ``report``).

    Returns
    -------
    great_tables.GT
        ``.as_raw_html()`` gives the HTML fragment; ``.save(...)`` needs a browser.

    Raises
    ------
    ImportError
        Without the plot extra (``pip install "polars_fair[plot]"``).
    ColumnNotFoundError
        ``report`` lacks ``n`` or ``selection_rate``, or a metric named in ``rates``.
    InvalidArgumentError
        ``rates`` names a metric that is not in the registry (the message lists them).

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.style import style_report
    >>> report = make_hiring(5000, seed=0).fair.report(["race", "sex"])
    >>> html = style_report(report).as_raw_html()  # doctest: +SKIP
    """
    gt = _gt()
    df = report.collect() if isinstance(report, pl.LazyFrame) else report
    if "n" not in df.columns or "selection_rate" not in df.columns:
        raise E.ColumnNotFoundError(NOT_A_REPORT.format(available=E.show_columns(df.columns)))
    keys = report_keys(df)
    if reference_label is None:
        reference_label = reference_label_of(df, keys)
    reference_label = markup_text(reference_label)  # spaces and line breaks visible, as a cell
    metrics = _shown_metrics(df, rates)
    table, shown = _report_frame(df, keys, metrics, ofi_threshold=ofi_threshold,
                                 four_fifths=four_fifths)
    hidden = ["__pf_adverse", "__pf_ofi", "__pf_low", "__pf_ref"]
    g = gt.GT(table, id="pf-report").cols_hide(hidden)
    if title:
        g = g.tab_header(title=title, subtitle=f"reference group: {reference_label}")
    g = _formats(g, shown, metrics)
    g = _highlights(gt, g, shown, keys)
    for note in _notes(reference_label, ofi_threshold, four_fifths, metrics):
        g = g.tab_source_note(note)
    return cast("great_tables.GT", g)


def _shown_metrics(df: pl.DataFrame, rates: Sequence[str] | None) -> list[str]:
    """The rate columns the table shows: ``rates`` (each checked), else the default ones present."""
    if rates is None:
        metrics = [c for c in DEFAULT_RATES if c in df.columns]
    else:
        metrics = [metric(r).name for r in rates]  # an unknown name raises, listing the metrics
        for r in metrics:
            if r not in df.columns:
                raise E.ColumnNotFoundError(E.missing_column(r, "rates", df.columns))
    return metrics


def _report_frame(df: pl.DataFrame, keys: list[str], metrics: list[str], *,
                  ofi_threshold: float, four_fifths: float) -> tuple[pl.DataFrame, list[str]]:
    """The table's frame: keys as text, the shown columns, the flags, hidden verdict columns.

    Returns the frame and its shown columns (``n``, the rates, the disparities, the finding).
    """
    false = pl.lit(False)
    # the report's verdicts, decided exactly there (not re-decided here on rounded floats)
    adverse = pl.col("adverse_impact").fill_null(False) if "adverse_impact" in df.columns \
        else false
    ofi_over = pl.col("ofi_flag").fill_null(False) if "ofi_flag" in df.columns else false
    low = pl.col("low_support").fill_null(False) if "low_support" in df.columns else false
    ref = pl.col("is_reference").fill_null(False) if "is_reference" in df.columns else false
    flags = pl.concat_list(
        pl.when(adverse).then(pl.lit(f"impact ratio < {four_fifths:g}")),
        pl.when(ofi_over).then(pl.lit(f"|OFI| > {ofi_threshold:g}")),
        pl.when(low).then(pl.lit("low support")),
        pl.when(ref).then(pl.lit("reference")),
    ).list.drop_nulls().list.join("; ")
    shown = ["n", *metrics, *(c for c in (*DISPARITY, "finding") if c in df.columns)]
    prefix = ["attributes"] if "attributes" in df.columns else []
    # a group's text as every HTML cell writes it (markup_text): a line break, a tab, a run of
    # spaces or a leading space is an escape, so two groups never render alike
    table = df.select(
        *([pl.col("attributes").list.join(" × ")] if prefix else []),
        # a null key is the group of rows whose attribute is missing: "(missing)", never the
        # "—" of an undefined figure; with attribute sets a key outside the row's set is empty
        *((pl.when(pl.col("attributes").list.contains(pl.lit(k)))
           .then(value_text(k, missing=MISSING_GROUP)).otherwise(pl.lit(NOT_IN_SET))
           if prefix else value_text(k, missing=MISSING_GROUP))
          .map_elements(markup_text, return_dtype=pl.String).alias(k) for k in keys),
        *shown,
        flags.alias("flags"),
        adverse.alias("__pf_adverse"), ofi_over.alias("__pf_ofi"), low.alias("__pf_low"),
        ref.alias("__pf_ref"),
    )
    return table, shown


def _formats(g: Any, shown: list[str], metrics: list[str]) -> Any:
    """Number formats, labels and spanners of the table's columns."""
    g = g.cols_label(**{c: LABELS.get(c, c) for c in [*shown, "flags"]})
    percent = [c for c in metrics if c in RATES]
    signed = [c for c in metrics if c not in RATES]
    disparity = [c for c in ("disparate_impact", "impact_ratio", "ofi") if c in shown]
    if percent:
        g = g.fmt_percent(columns=percent, decimals=1)
    if signed:
        g = g.fmt_number(columns=signed, decimals=3, force_sign=True)
    if metrics:
        g = g.tab_spanner(label="rates", columns=metrics)
    for c in ("disparate_impact", "impact_ratio"):
        if c in shown:
            g = g.fmt_number(columns=c, decimals=3)
    if "ofi" in shown:
        g = g.fmt_number(columns="ofi", decimals=3, force_sign=True)
    if disparity:
        g = g.tab_spanner(label="disparity", columns=disparity)
    return g.fmt_integer(columns="n").sub_missing(missing_text="—")


def _highlights(gt: Any, g: Any, shown: list[str], keys: list[str]) -> Any:
    """The verdicts' colours: adverse impact, OFI over the threshold, low support, reference."""
    style, loc = gt.style, gt.loc
    if "impact_ratio" in shown:
        g = g.tab_style(
            [style.fill(ADVERSE_FILL), style.text(weight="bold")],
            loc.body(columns="impact_ratio", rows=pl.col("__pf_adverse")),
        )
    if "ofi" in shown:
        g = g.tab_style(
            [style.fill(OFI_FILL), style.text(weight="bold")],
            loc.body(columns="ofi", rows=pl.col("__pf_ofi")),
        )
    g = g.tab_style(style.fill(LOW_SUPPORT_FILL), loc.body(columns="n", rows=pl.col("__pf_low")))
    g = g.tab_style(
        style.text(color="#5F6368", style="italic"), loc.body(rows=pl.col("__pf_low"))
    )
    g = g.tab_style(style.text(weight="bold"), loc.body(columns=keys, rows=pl.col("__pf_ref")))
    if "finding" in shown:
        g = g.tab_style(
            style.text(color="#B3261E", weight="bold"),
            loc.body(columns="finding", rows=pl.col("finding") == "algorithmic"),
        ).tab_style(
            style.text(color="#8A5300", weight="bold"),
            loc.body(columns="finding", rows=pl.col("finding") == "systemic"),
        )
    return g


def _notes(reference_label: str, ofi_threshold: float, four_fifths: float,
           metrics: Sequence[str]) -> list[str]:
    """The source notes: the reference, the shown metrics, DI, OFI and the findings.

    Every metric's title, formula and source is its entry of :mod:`polars_fair.core.registry`;
    the impact ratio, the four-fifths rule, low support and the findings are not metrics and
    are written here.
    """
    di, ofi = PAIR_METRICS["disparate_impact"], PAIR_METRICS["ofi"]
    notes = [
        (f"Reference group: {reference_label}. Rates are shares of the group's rows; "
         "— = undefined (a zero denominator), never 0."),
    ]
    if metrics:
        notes.append("; ".join(
            f"{METRICS[m].title} = {METRICS[m].formula} ({METRICS[m].source})" for m in metrics
        ) + ".")
    notes += [
        (f"DI ({di.title.lower()}) = {di.formula}, j the reference group ({di.source}). "
         "Impact ratio = selection rate / the highest selection rate (EEOC four-fifths rule, "
         "29 CFR 1607.4(D); NYC Local Law 144, 6 RCNY 5-300): below "
         f"{four_fifths:g} is adverse impact (red)."),
        (f"OFI ({ofi.title}) = {ofi.formula}, j the reference group ({ofi.source}); "
         f"|OFI| > {ofi_threshold:g} is flagged (amber)."),
        ("Low support (grey italics): fewer rows than min_support, too few to trust the rates. "
         "Finding: algorithmic = |OFI| over the threshold (the classifier's errors); systemic = "
         "OFI within it but DI or the impact ratio fails the four-fifths rule (the labels or "
         "the population); insufficient support = the group, or the group it is measured "
         "against, has low support, or OFI is undefined; constant labels / predictions = y_true "
         "/ y_pred holds one value on every row, so neither cause can be read. The reading "
         "assumes the labels are correct."),
    ]
    return notes
