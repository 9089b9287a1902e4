"""What the audit pages of a multiclass and of a continuous outcome share.

The binary page (:data:`polars_fair.audit.html.page.SECTIONS`) is built on a binary count
table; a page of a multiclass decision (:mod:`polars_fair.audit.html.multiclass`) or of a
continuous outcome (:mod:`polars_fair.audit.html.continuous`) is built on a class table or a
moment table instead, with section builders of its own. They share with the binary page its
header, provenance, charts, JSON block and document (the builders of
:mod:`polars_fair.audit.html.sections`) and, from here: the rows read and filtered
(:func:`outcome_rows`), the groups a table shows (:func:`shown_groups`), the data section
(:func:`data_html`) and the definitions table (:func:`definitions_html`); the page's own
arguments (:class:`PageArgs`, taken by :func:`page_args`), checked and read by
:func:`page_rows` and :func:`outcome_page`; and the sections that read only what every page
holds (:func:`outcome_header_section`, :func:`outcome_provenance_section`,
:func:`outcome_charts_section`, :func:`definitions_section`).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, TypeVar

import polars as pl

from polars_fair._docs import borrow
from polars_fair.audit.html.charts import Chart
from polars_fair.audit.html.context import PageText, Provenance, rows_provenance
from polars_fair.audit.html.figures import row_sizes
from polars_fair.audit.html.page import _by_exprs, audit_html, page_filters, page_output
from polars_fair.audit.html.provenance import _data_block, _plain
from polars_fair.audit.html.sections import charts_html, document, header_html
from polars_fair.audit.html.tables import _provenance_html
from polars_fair.audit.html.text import (
    DEFAULT_PAGE_GROUPS,
    MISSING,
    UNDEFINED,
    _describe,
    _esc,
    _group,
    _names,
    _num,
    _reference_label,
    _table,
)
from polars_fair.core.families import takes
from polars_fair.core.spec import By, NullGroups, check_int

__all__ = ["OutcomePage", "OutcomeRows", "PageArgs", "data_html", "definitions_html",
           "definitions_section", "outcome_params", "outcome_rows", "page_args", "shown_groups",
           "written"]

P = TypeVar("P")
F = TypeVar("F", bound=Callable[..., Any])


class PageArgs(TypedDict, total=False):
    """The arguments of an outcome page besides its data, its columns and its options.

    Taken by :func:`polars_fair.audit.html.multiclass_html` and
    :func:`polars_fair.audit.html.continuous_html` as ``**page: Unpack[PageArgs]``, spelled
    out in their signatures by :func:`page_args` (each page its own ``title``); they mean what
    the parameters of the same names of :func:`polars_fair.audit.html.audit_html` mean.

    Examples
    --------
    >>> list(PageArgs.__annotations__)[:3]
    ['title', 'model', 'note']
    """

    title: str
    model: str | None
    note: str | None
    source: str | Path | None
    path: str | Path | None
    output: str | Path | None
    filters: str | Sequence[str]
    rows_read: int | None
    max_groups: int
    generated: _dt.datetime | None
    combinations: None


#: The defaults of :class:`PageArgs` (``title`` is each page's own, :func:`page_args`).
PAGE_DEFAULTS: dict[str, Any] = {
    "model": None, "note": None, "source": None, "path": None, "output": None, "filters": (),
    "rows_read": None, "max_groups": DEFAULT_PAGE_GROUPS, "generated": None,
    "combinations": None,
}


def page_args(title: str) -> Callable[[F], F]:
    """Declare that a page function's ``**page`` are :class:`PageArgs`, titled ``title``.

    Parameters
    ----------
    title : str
        The page's default title.

    Returns
    -------
    callable
        :func:`polars_fair.core.families.takes` of :class:`PageArgs` with
        :data:`PAGE_DEFAULTS` and ``title``.

    Examples
    --------
    >>> from typing import Unpack
    >>> @page_args("A page")
    ... def f(data, **page: Unpack[PageArgs]):
    ...     return page["title"], page["max_groups"]
    >>> f(None)
    ('A page', 50)
    """
    return takes(PageArgs, defaults={"title": title, **PAGE_DEFAULTS})


@dataclass(frozen=True)
class OutcomeRows:
    """The rows an outcome page audits, with what the provenance and data section say of them.

    Parameters
    ----------
    audited : pl.LazyFrame
        The rows after ``where``.
    size : dict
        ``total``, ``kept`` and ``null_rows`` (:func:`polars_fair.audit.html.figures.row_sizes`).
    n_columns : int
        The input's columns.
    filters : tuple of str
        The filters applied before the page.
    output : pathlib.Path or None
        Where the page is written.
    page_groups : int
        The most groups a table shows.

    Examples
    --------
    >>> r = outcome_rows(pl.LazyFrame({"g": ["a", None]}), "g", None, (), None, None, 50)
    >>> r.size, r.n_columns
    ({'total': 2, 'kept': 2, 'null_rows': 1}, 1)
    """

    audited: pl.LazyFrame
    size: dict[str, Any]
    n_columns: int
    filters: tuple[str, ...]
    output: Path | None
    page_groups: int


@dataclass(frozen=True)
class OutcomePage:
    """What every outcome page's context holds, computed once, for its section builders.

    A page's own context (:class:`polars_fair.audit.html.multiclass.ClassPage`,
    :class:`polars_fair.audit.html.continuous.MomentPage`) adds its tables and options.

    Parameters
    ----------
    text : PageText
        The page's title, model and note.
    prov : dict
        The provenance (:func:`polars_fair.audit.html.context.rows_provenance`).
    rows : OutcomeRows
        The rows audited (:func:`outcome_rows`).
    keys : list of str
        The group columns.
    report : pl.DataFrame
        The page's report, one row per group (with ``is_reference`` and ``low_support``).
    shown, left_out : pl.DataFrame, list of str
        The groups the tables show and those left out (:func:`shown_groups`).
    ref_label : str
        The reference group, spelt for the page.
    min_support : int
        Groups with fewer rows are low support.
    null_groups : {"keep", "raise", "drop"}
        What is done with null group values.
    where : str, pl.Expr or None
        The filter applied.
    y_pred, y_true : str, str or None
        The outcome and the observed value, described.
    charts : list of Chart
        The page's charts.

    Examples
    --------
    >>> from polars_fair.audit.html.multiclass import ClassPage
    >>> issubclass(ClassPage, OutcomePage), "charts" in OutcomePage.__dataclass_fields__
    (True, True)
    """

    text: PageText
    prov: dict[str, Any]
    rows: OutcomeRows
    keys: list[str]
    report: pl.DataFrame
    shown: pl.DataFrame
    left_out: list[str]
    ref_label: str
    min_support: int
    null_groups: NullGroups
    where: Any
    y_pred: str
    y_true: str | None
    charts: list[Chart]


def outcome_rows(data: pl.DataFrame | pl.LazyFrame, by: By, where: str | pl.Expr | None,
                 filters: str | Sequence[str], output: str | Path | None,
                 rows_read: int | None, max_groups: int) -> OutcomeRows:
    """Check a page's own arguments (before any data is read), then count its rows once.

    Parameters
    ----------
    data : pl.DataFrame or pl.LazyFrame
        The rows.
    by : str, pl.Expr or list of them
        One attribute set.
    where : str or pl.Expr, optional
        A row filter (SQL text or a Polars expression).
    filters : str or sequence of str
        Filters applied before the page (recorded).
    output : str or pathlib.Path, optional
        Where to write the page (``.html`` or ``.htm`` in an existing directory).
    rows_read : int, optional
        Rows in the input before ``filters``.
    max_groups : int
        The most groups a table shows.

    Returns
    -------
    OutcomeRows

    Raises
    ------
    InvalidArgumentError
        ``by`` empty or several sets, bad ``filters``, ``output`` or ``rows_read`` or
        ``max_groups`` not an integer.
    SizeLimitError
        ``max_groups`` above its limit.

    Examples
    --------
    >>> outcome_rows(pl.LazyFrame({"g": ["a"]}), "g", "g = 'b'", "x > 1", None, 3,
    ...              50).size["kept"]
    0
    """
    page_groups = check_int(max_groups, "max_groups", limit="page_groups")
    filter_list = page_filters(filters)
    out_path = page_output(output)
    if rows_read is not None:
        check_int(rows_read, "rows_read", low=0)
    lf = data.lazy()
    condition, size, n_columns = row_sizes(lf, _by_exprs(by), where)
    audited = lf.filter(condition) if condition is not None else lf
    return OutcomeRows(audited, size, n_columns, filter_list, out_path, int(page_groups))


def page_rows(function: str, data: pl.DataFrame | pl.LazyFrame, by: By,
              where: str | pl.Expr | None, page: PageArgs) -> OutcomeRows:
    """Refuse ``combinations`` (naming ``function``), then :func:`outcome_rows` of ``page``."""
    from polars_fair.api.continuous import refuse_sets

    refuse_sets(function, page["combinations"], by)
    return outcome_rows(data, by, where, page["filters"], page["output"], page["rows_read"],
                        page["max_groups"])


def shown_groups(table: pl.DataFrame, keys: Sequence[str], page_groups: int
                 ) -> tuple[pl.DataFrame, list[str]]:
    """The groups a page's tables show: the reference, then the largest, at most ``page_groups``.

    Parameters
    ----------
    table : pl.DataFrame
        One row per group (or several: the first of each counts): keys, ``n``,
        ``is_reference``.
    keys : sequence of str
        The keys.
    page_groups : int
        The most groups shown.

    Returns
    -------
    shown : pl.DataFrame
        The keys of the groups shown.
    left_out : list of str
        The other groups, spelt as the page spells a group.

    Examples
    --------
    >>> t = pl.DataFrame({"g": ["a", "b", "c"], "n": [1, 5, 3],
    ...                   "is_reference": [True, False, False]})
    >>> shown, left = shown_groups(t, ["g"], 2)
    >>> shown["g"].to_list(), left
    (['a', 'b'], ['c'])
    """
    groups = table.unique(list(keys), keep="first", maintain_order=True)
    ranked = groups.with_row_index("__pf_row").sort(
        ["is_reference", "n", "__pf_row"], descending=[True, True, False])
    shown = ranked.head(page_groups).select(keys)
    left = groups.join(shown, on=list(keys), how="anti", nulls_equal=True)
    return shown, [_group(r, keys) for r in left.iter_rows(named=True)]


def on_page(frame: pl.DataFrame, shown: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
    """The rows of ``frame`` whose group is shown, in ``frame``'s order."""
    return frame.join(shown, on=list(keys), how="semi", nulls_equal=True,
                      maintain_order="left")


def data_html(rows: OutcomeRows, audited: int, keys: Sequence[str], n_groups: int,
              left_out: Sequence[str], null_groups: NullGroups, where: Any,
              columns: Sequence[tuple[str, str]], low: Sequence[str], min_support: int) -> str:
    """The data section: the rows read, filtered and audited, the groups, the columns audited.

    Parameters
    ----------
    rows : OutcomeRows
        :func:`outcome_rows`.
    audited : int
        The rows the page's table counted.
    keys : sequence of str
        The attributes.
    n_groups : int
        The groups audited.
    left_out : sequence of str
        The groups the tables leave out.
    null_groups : {"keep", "raise", "drop"}
        The rule for a missing attribute.
    where : str, pl.Expr or None
        The row filter.
    columns : sequence of (str, str)
        What each audited column is (``("prediction", "band")``), shown as code.
    low : sequence of str
        The low-support groups.
    min_support : int
        The low-support rule.

    Returns
    -------
    str

    Examples
    --------
    >>> r = outcome_rows(pl.LazyFrame({"g": ["a"]}), "g", None, (), None, None, 50)
    >>> "rows audited" in data_html(r, 1, ["g"], 1, [], "keep", None, [], [], 30)
    True
    """
    size = rows.size
    where_text = _describe(where) if where is not None else None
    null_note = {
        "keep": f"kept, audited as a group that reads {MISSING}",
        "drop": "dropped (null_groups='drop')",
        "raise": "none (null_groups='raise' allows none)",
    }[null_groups]
    table = [
        ["rows in the input", _num(size["total"])],
        ["columns in the input", _num(rows.n_columns)],
        ["rows excluded by the filter"
         + (f" <code>{_esc(where_text)}</code>" if where_text else " (no filter)"),
         _num(size["total"] - size["kept"])],
        [f"rows with a missing group value: {null_note}", _num(size["null_rows"])],
        ["rows audited", _num(audited)],
        ["groups (" + _esc(" × ".join(keys)) + ")", _num(n_groups)],
    ]
    if left_out:
        table.append([f"groups left out of the tables and charts (max_groups="
                      f"{rows.page_groups}: the reference and the largest groups are shown; the "
                      "verdicts cover every group)", _num(len(left_out))])
    parts = ["<h2>Data</h2>", _table(["", "count"], table, numeric=[1])]
    if left_out:
        parts.append(f"<p>Left out of the tables and charts: {_esc(_names(list(left_out), 30))}"
                     ".</p>")
    if columns:
        parts.append("<p>" + "; ".join(f"{_esc(what)} <code>{_esc(name)}</code>"
                                       for what, name in columns) + ".</p>")
    if low:
        parts.append(f"<p class=\"warn\">{len(low)} group(s) with fewer than {min_support} rows "
                     f"(low support; their figures are not to be trusted): "
                     f"{_esc(_names(list(low)))}.</p>")
    return "\n".join(parts)


def definitions_html(definitions: Sequence[tuple[str, str, str]]) -> str:
    """The definitions section: every quantity of the page with its formula and source.

    Parameters
    ----------
    definitions : sequence of (str, str, str)
        (quantity, definition, source).

    Returns
    -------
    str

    Examples
    --------
    >>> definitions_html([("n", "rows", "-")]).count("<tr>")
    2
    """
    return "\n".join([
        "<h2>Definitions</h2>",
        _table(["quantity", "definition", "source"],
               [[_esc(a), _esc(b), _esc(c)] for a, b, c in definitions]),
        f"<p>Figures with a zero denominator are undefined and shown as {UNDEFINED} (null), "
        f"never 0; a group whose attribute is missing reads {MISSING}.</p>",
    ])


def provenance_html(prov: dict[str, Any]) -> str:
    """The provenance section (the binary page's table)."""
    return "<h2>Provenance</h2>\n" + _provenance_html(prov)


def data_block_html(data: dict[str, Any]) -> str:
    """The JSON block of the page's tables."""
    return _data_block(data)


def outcome_params(keys: Sequence[str], y_pred: Any, y_true: Any, reference: Any,
                   ref_label: str, min_support: int, sample_weight: Any, null_groups: str,
                   rows: OutcomeRows, **more: Any) -> dict[str, Any]:
    """The parameters an outcome page records in its provenance (expressions as text).

    Parameters
    ----------
    keys : sequence of str
        The attributes.
    y_pred, y_true, sample_weight : str, pl.Expr or None
        The columns audited.
    reference : Any
        The reference rule or group, as given.
    ref_label : str
        The reference group it chose, as the page spells it.
    min_support : int
        The low-support rule.
    null_groups : str
        The rule for a missing attribute.
    rows : OutcomeRows
        :func:`outcome_rows` (``max_groups``).
    **more
        The page's own parameters, after these.

    Returns
    -------
    dict

    Examples
    --------
    >>> r = outcome_rows(pl.LazyFrame({"g": ["a"]}), "g", None, (), None, None, 50)
    >>> list(outcome_params(["g"], "v", None, "largest", "a", 30, None, "keep", r, level=0.9))
    ['by', 'y_pred', 'y_true', 'reference', 'reference_group', 'min_support', \
'sample_weight', 'null_groups', 'max_groups', 'level']
    """
    return {
        "by": list(keys), "y_pred": _describe(y_pred),
        "y_true": None if y_true is None else _describe(y_true),
        "reference": _plain(reference),
        "reference_group": ref_label, "min_support": min_support,
        "sample_weight": None if sample_weight is None else _describe(sample_weight),
        "null_groups": null_groups, "max_groups": rows.page_groups, **more,
    }


def outcome_page(kind: Callable[..., P], rows: OutcomeRows, page: PageArgs,
                 report: pl.DataFrame, keys: list[str], columns: Mapping[str, Any],
                 recorded: Mapping[str, Any], audited: int, **own: Any) -> P:
    """A page's context (``kind``, an :class:`OutcomePage`), without charts.

    What every outcome page holds, from the rows (:func:`page_rows`), the page's arguments,
    its ``report`` (one row per group, with ``is_reference``) and its ``keys``: ``columns``
    holds ``y_pred``, ``y_true``, ``reference``, ``min_support``, ``sample_weight``,
    ``null_groups`` and ``where`` as given; the provenance records them, then ``recorded``
    (:func:`outcome_params`), and ``audited`` rows; ``own`` are ``kind``'s other fields.
    """
    c = columns
    shown, left_out = shown_groups(report, keys, rows.page_groups)
    ref_label = _reference_label(report, keys) if keys else "everyone"
    params = outcome_params(keys, c["y_pred"], c["y_true"], c["reference"], ref_label,
                            c["min_support"], c["sample_weight"], c["null_groups"], rows,
                            **recorded)
    text = PageText(page["title"], page["model"], page["note"])
    source = page["path"] if page["path"] is not None else page["source"]
    prov = rows_provenance(c["where"], c["null_groups"], audited, rows.size, params,
                           Provenance(rows.filters, page["rows_read"], source, page["generated"]),
                           text)
    return kind(text=text, prov=prov, rows=rows, keys=keys, report=report, shown=shown,
                left_out=left_out, ref_label=ref_label, min_support=c["min_support"],
                null_groups=c["null_groups"], where=c["where"], y_pred=_describe(c["y_pred"]),
                y_true=None if c["y_true"] is None else _describe(c["y_true"]), charts=[],
                **own)


def outcome_header_section(p: OutcomePage) -> str:
    """The page's title, input, model, time and version, note."""
    return header_html(p.text.title, p.text.model, p.text.note, p.prov)


def outcome_provenance_section(p: OutcomePage) -> str:
    """The provenance table."""
    return provenance_html(p.prov)


def outcome_charts_section(p: OutcomePage) -> str:
    """The page's charts as inline SVG."""
    return charts_html(p.charts)


def definitions_section(definitions: Sequence[tuple[str, str, str]]
                        ) -> Callable[[OutcomePage], str]:
    """The section builder of a page's definitions (:func:`definitions_html`).

    Parameters
    ----------
    definitions : sequence of (str, str, str)
        (quantity, definition, source) of every figure of the page.

    Returns
    -------
    callable
        ``page -> str``: the definitions section, whatever the page.

    Examples
    --------
    >>> definitions_section([("n", "rows", "-")])(None).count("<tr>")  # type: ignore[arg-type]
    2
    """
    def section(p: OutcomePage) -> str:
        return definitions_html(definitions)

    return section


@borrow(audit_html, sections=("Returns",))
def written(rows: OutcomeRows, title: str, sections: Sequence[Any], page: P) -> str:
    """The document of ``page``'s sections (each ``page -> str``), written to the output.

    Parameters
    ----------
    rows : OutcomeRows
        :func:`outcome_rows` (the output path).
    title : str
        The document's title.
    sections : sequence of callable
        The page's builders, in order; one that returns "" adds nothing.
    page : Any
        The page's context.

    Examples
    --------
    >>> r = outcome_rows(pl.LazyFrame({"g": ["a"]}), "g", None, (), None, None, 50)
    >>> "<p>x</p>" in written(r, "t", [lambda p: f"<p>{p}</p>", lambda p: ""], "x")
    True
    """
    html = document(title, [h for build in sections if (h := build(page))])
    if rows.output is not None:
        rows.output.write_text(html, encoding="utf-8")
    return html
