"""``--html`` on the generated commands that have an audit page of their own.

``multiclass-report --html FILE`` writes :func:`polars_fair.audit.html.multiclass_html` and
``continuous-report --html FILE`` :func:`polars_fair.audit.html.continuous_html` for the same
file, attributes and options as the table (:data:`PAGES` declares which command has which
page; :func:`polars_fair.cli.commands.register` adds the page's flags, :func:`page_parameters`,
to those commands only). The page reads the options it shares with the table; a table option
the page does not take (``--combinations``: a page audits one attribute set) is an error
naming its flag; ``--max-groups`` stays the size limit of the count and the page shows its
default number of groups.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from polars_fair import errors as E
from polars_fair.cli.io import (
    check_one_attribute,
    column_or_sql,
    parse_dtypes,
    parse_reference,
    parse_value,
    scan,
)

__all__ = ["PAGES", "PAGE_FLAGS", "ModelOpt", "NoteOpt", "TitleOpt", "page_html",
           "page_parameters"]

#: The generated commands' methods that have a page: method -> page function (in
#: :mod:`polars_fair.audit.html`).
PAGES = {"multiclass_report": "multiclass_html", "continuous_report": "continuous_html"}
#: The page's own options besides ``--html`` (an error without ``--html``).
PAGE_FLAGS = ("title", "model", "note")
#: Options of the table that the page ignores on purpose (the count's size limit).
_NOT_PAGE = ("max_groups",)
#: The page's texts, as every command with ``--html`` takes them (``report`` too).
TitleOpt = Annotated[str | None, typer.Option(help="--html: the page's title.")]
ModelOpt = Annotated[str | None, typer.Option(help="--html: the model audited (name, version).")]
NoteOpt = Annotated[str | None, typer.Option(help="--html: a note shown on the page.")]


def page_parameters() -> list[inspect.Parameter]:
    """The flags of a page: ``--html FILE``, ``--title``, ``--model``, ``--note``.

    Returns
    -------
    list of inspect.Parameter
        Keyword-only typer options, each defaulting to ``None``.

    Examples
    --------
    >>> [p.name for p in page_parameters()]
    ['html', 'title', 'model', 'note']
    """
    kw = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter("html", kw, default=None, annotation=Annotated[Path | None, typer.Option(
            help="Also write the audit as one self-contained HTML file (needs the plot "
                 "extra).", metavar="FILE")]),
        inspect.Parameter("title", kw, default=None, annotation=TitleOpt),
        inspect.Parameter("model", kw, default=None, annotation=ModelOpt),
        inspect.Parameter("note", kw, default=None, annotation=NoteOpt),
    ]


def page_html(method: str, values: Mapping[str, Any], given: Mapping[str, Any],
              options: Mapping[str, Any]) -> str:
    """The page of a generated command, for its file and options (returned, not written).

    Parameters
    ----------
    method : str
        A method of :data:`PAGES`.
    values : mapping
        The command's parsed values (``path``, ``by``, ``where``, ``separator``, ``dtype``,
        the page flags).
    given : mapping
        The method's and count's options, converted (option name -> value).
    options : mapping
        Option name -> its :class:`polars_fair.cli.commands.Opt` (``kind``, ``flag``,
        ``default``).

    Returns
    -------
    str
        The HTML document.

    Raises
    ------
    InvalidArgumentError
        Without the plot extra; an option the page does not take, given.
    PolarsFairError
        Bad input, as the page function.

    Examples
    --------
    >>> import tempfile, pathlib, polars as pl
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.csv"
    >>> pl.DataFrame({"g": ["a", "b"] * 3, "v": [1.0, 2, 3, 4, 5, 7]}).write_csv(path)
    >>> page = page_html("continuous_report", {"path": path, "by": ["g"]},
    ...                  {"y_pred": "v", "min_support": 1}, {})
    >>> page.startswith("<!DOCTYPE html>")
    True
    """
    try:
        from polars_fair.audit import html as pages
    except ImportError as exc:
        raise E.InvalidArgumentError(f"--html: {exc}") from None
    build = getattr(pages, PAGES[method])
    accepted = inspect.signature(build).parameters
    path: Path = values["path"]
    lf = scan(path, values.get("separator"), parse_dtypes(values.get("dtype")))
    schema = lf.collect_schema()
    for b in values["by"]:
        check_one_attribute(b, schema)
    by = [column_or_sql(b, schema, "--by") for b in values["by"]]
    kw: dict[str, Any] = {}
    for name, value in given.items():
        opt = options.get(name)
        if name in _NOT_PAGE:
            continue
        if name not in accepted:
            if opt is not None and value != opt.default:
                raise E.InvalidArgumentError(E.CLI_PAGE_OF_TAKES_NOT.format(
                    flag=opt.flag, command=method.replace("_", "-"), page=PAGES[method]))
            continue
        if opt is not None and opt.kind == "column" and value is not None:
            value = column_or_sql(value, schema, opt.flag)
        kw[name] = value
    if kw.get("classes") is not None:
        dtype = lf.select(kw.get("y_pred", "y_pred")).collect_schema().dtypes()[0]
        kw["classes"] = [parse_value(str(c), dtype, "--classes") for c in kw["classes"]]
    if "reference" in kw:
        kw["reference"] = parse_reference(kw["reference"], lf, by)
    texts = {k: values[k] for k in PAGE_FLAGS if values.get(k) is not None}
    try:
        return str(build(lf, by, where=values.get("where"), source=str(path), **kw, **texts))
    except ImportError as exc:  # a plotting dependency is imported when the charts are drawn
        raise E.InvalidArgumentError(f"--html: {exc}") from None
