r"""Exports that cannot execute: CSV, Markdown and JSON inside an HTML page, escaped once.

Group values and column names come from the audited data, so a written result may hold any
text. Each format has one function here, used by every writer (the command line's
``--format csv`` / ``markdown``, ``bias-audit``'s CSV, Markdown and HTML, and the HTML audit):

- **CSV** (:func:`csv_safe`): a text cell or column name that starts with ``=``, ``+``, ``-``,
  ``@``, a tab or a carriage return is read as a formula by a spreadsheet (OWASP, "CSV
  Injection"); it is written with a single quote ``'`` in front. Numeric columns are written as
  they are, so ``-0.25`` stays a number.
- **Markdown** (:func:`markdown_cell`): ``|`` and the characters Markdown gives a meaning
  (``\``, `````, ``*``, ``[``, ``]``, ``~``, and ``_`` outside a word) are escaped with a
  backslash, ``<``, ``>``
  and ``&`` written as HTML entities, control characters and line breaks as visible escapes
  (``\n``, ``\r``, ``\u2028``: :func:`polars_fair.core.labels.visible`), so a cell neither
  breaks the table nor injects HTML where the Markdown is rendered (a pull request, a model
  card), and ``"\nx"``, ``" x"`` and ``"\u2028x"`` stay three different cells.
- **JSON in a ``<script>`` block** (:func:`script_json`): ``<``, ``>``, ``&``, U+2028 and U+2029
  are written as ``\uXXXX`` escapes, so no text can close the element (``</script``), open a
  comment (``<!--``) or a script (``<script``), or end a JavaScript line; ``JSON.parse`` reads the
  same values back.
"""

from __future__ import annotations

import json
import re
from typing import Any

import polars as pl

from polars_fair.core.labels import NOT_IN_MARKUP, csv_visible, markup_safe, visible

__all__ = ["FORMULA_PREFIXES", "csv_safe", "markdown_cell", "page_safe", "script_json"]

#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

_MARKDOWN = {ch: "\\" + ch for ch in "\\`*[]|~"}
_MARKDOWN.update({"<": "&lt;", ">": "&gt;", "&": "&amp;"})
_MARKDOWN_TABLE = str.maketrans(_MARKDOWN)
#: An underscore that can open or close emphasis (not inside a word: ``impact_ratio`` stays).
_EDGE_UNDERSCORE = re.compile(r"(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")
_SCRIPT_TABLE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                               "\u2028": "\\u2028", "\u2029": "\\u2029"})


#: A ``<script>`` element of a page, its content apart (group 2).
_SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)(</script>)", re.DOTALL | re.IGNORECASE)


def _json_escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def page_safe(page: str) -> str:
    r"""An HTML page in which no character a page must not carry appears raw (NUL above all).

    Outside ``<script>`` blocks each such character
    (:data:`polars_fair.core.labels.NOT_IN_MARKUP`: C0 controls but tab, line feed and carriage
    return, DEL, C1 controls, lone surrogates, noncharacters, and the invisible format characters
    :data:`polars_fair.core.labels.INVISIBLE`) is written as the charts write it
    (:func:`polars_fair.core.labels.markup_safe`: ``\x00``, ``\x7f``, ``\ufffe``), so a group
    reads the same in the verdict, the headline, the provenance, the tables and the charts.
    Inside a ``<script>`` block (the page's JSON data) it becomes the JSON escape ``\uXXXX``,
    which ``JSON.parse`` reads back as the value itself. Used once, on the whole page, by the
    HTML audit and the LL 144 document.

    Parameters
    ----------
    page : str
        The HTML document.

    Returns
    -------
    str
        The same document, those characters escaped.

    Examples
    --------
    >>> page_safe('<td>A\x00</td><script type="application/json">{"g": "A\x7f"}</script>')
    '<td>A\\x00</td><script type="application/json">{"g": "A\\u007f"}</script>'
    """
    out, last = [], 0
    for m in _SCRIPT.finditer(page):
        out += [markup_safe(page[last:m.start()]), m.group(1),
                NOT_IN_MARKUP.sub(_json_escaped, m.group(2)), m.group(3)]
        last = m.end()
    out.append(markup_safe(page[last:]))
    return "".join(out)


def _formula_safe(text: str) -> str:
    """The quote prefix decided on ``text`` as it is, then its invisible characters escaped."""
    shown = csv_visible(text)
    return "'" + shown if text.startswith(FORMULA_PREFIXES) else shown


def csv_safe(df: pl.DataFrame) -> pl.DataFrame:
    r"""The frame with every text cell and column name that a spreadsheet would run neutralised.

    A String cell starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a
    single quote in front (OWASP's advice against CSV injection), decided on the cell as it is;
    NUL, the other control characters and the invisible format characters (zero-width,
    bidirectional overrides, the byte-order mark) are written as escapes (``\x00``,
    ``\u202e``: :func:`polars_fair.core.labels.csv_visible`), while tab, line feed, carriage
    return and U+2028/U+2029 stay as written. Every cell of a non-String column (numbers,
    booleans, dates) is unchanged. Column names get the same treatment.

    Parameters
    ----------
    df : pl.DataFrame
        The result, with its list and struct columns already written as text.

    Returns
    -------
    pl.DataFrame
        The same shape and dtypes.

    Examples
    --------
    >>> df = pl.DataFrame({"g": ["=1+1", "-a", "b"], "d": [-0.5, 0.0, 1.0]})
    >>> csv_safe(df).write_csv()
    "g,d\n'=1+1,-0.5\n'-a,0.0\nb,1.0\n"
    >>> csv_safe(pl.DataFrame({"g": ["A\x00nul", "\u202e=1", "\tT"]}))["g"].to_list()
    ['A\\x00nul', '\\u202e=1', "'\tT"]
    """
    text = [c for c, t in df.schema.items() if t == pl.String]
    out = df.with_columns(
        pl.Series(c, [None if v is None else _formula_safe(v) for v in df[c]], dtype=pl.String)
        for c in text)
    return out.rename({c: _formula_safe(c) for c in out.columns if _formula_safe(c) != c})


def markdown_cell(value: Any) -> str:
    r"""A value as the text of a Markdown table cell, escaped.

    Parameters
    ----------
    value : Any
        The cell (written with ``str``).

    Returns
    -------
    str
        The text with ``\ ` * [ ] | ~`` (and ``_`` outside a word) backslash-escaped,
        ``< > &`` as entities, and control characters and line breaks (``\n``, ``\r``,
        U+2028, U+2029) written as escapes first (:func:`polars_fair.core.labels.visible`).

    Examples
    --------
    >>> markdown_cell("a|b <script>")
    'a\\|b &lt;script&gt;'
    >>> markdown_cell("\nx"), markdown_cell(" x")
    ('\\\\nx', ' x')
    """
    return _EDGE_UNDERSCORE.sub(r"\\_", visible(str(value)).translate(_MARKDOWN_TABLE))


def script_json(data: Any, **dumps: Any) -> str:
    r"""JSON text that can stand inside an HTML ``<script>`` element.

    Parameters
    ----------
    data : Any
        A value ``json.dumps`` can write.
    **dumps : Any
        Options of ``json.dumps`` (``default=str``, ``allow_nan=False``).

    Returns
    -------
    str
        The JSON, with ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\uXXXX`` escapes (inside
        strings, the only place they occur), so ``</script``, ``<!--`` and ``<script`` cannot
        appear; ``json.loads`` gives back ``data``.

    Examples
    --------
    >>> script_json({"g": "</script><!--"})
    '{"g": "\\u003c/script\\u003e\\u003c!--"}'
    """
    return json.dumps(data, ensure_ascii=False, **dumps).translate(_SCRIPT_TABLE)
