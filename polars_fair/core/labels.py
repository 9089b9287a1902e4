"""How a group reads: one spelling of a group's key values, shared by every table and chart.

:func:`group_label` is a pure ``pl.Expr``; the charts (:mod:`polars_fair.audit.plot`), the
threshold search (:mod:`polars_fair.analyses.thresholds`) and the audit page read it from here.

Why one module: every way out (the text table, CSV, Markdown, JSON, the HTML pages, the charts
and the command line's words) spells a group by one rule with its own escapes; kept together,
no surface can drift from the others and two groups never read alike on one of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow

__all__ = ["INVISIBLE", "LIST_SEPARATOR", "MISSING_GROUP", "NOT_IN_MARKUP", "cli_group",
           "cli_words", "shell_word",
           "csv_visible", "group_label", "list_text", "markup_safe", "markup_text", "named_label",
           "named_text", "printable", "printable_spec", "shown_group", "text_of", "value_text",
           "visible"]

#: How a missing attribute value reads in a label (never "—", which means an undefined figure).
MISSING_GROUP = "(missing)"


def group_label(columns: Sequence[str], *, missing: str = MISSING_GROUP) -> pl.Expr:
    """The label of a group: its value as text, ``"v1 | v2"`` for several attributes.

    Each value is written by :func:`value_text`, so two groups never share a label: a value
    that could be read as another (equal to ``missing``, starting with ``"``, or holding
    ``" | "`` in a label of several attributes) is quoted.

    Parameters
    ----------
    columns : sequence of str
        The key columns, in order (at least one).
    missing : str, default "(missing)"
        How a null value (a group of the rows whose attribute is missing) reads: never "—",
        which the audit keeps for an undefined figure.

    Returns
    -------
    pl.Expr
        A String expression named ``group``.

    Raises
    ------
    InvalidArgumentError
        ``columns`` is empty.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"race": ["Black", None], "sex": ["Female", "Male"]})
    >>> df.select(group_label(["race", "sex"]))["group"].to_list()
    ['Black | Female', '(missing) | Male']
    """
    if not columns:
        raise E.InvalidArgumentError("a group label needs at least one key column, got []")
    ambiguous = (" | ",) if len(columns) > 1 else ()
    parts = [value_text(c, missing=missing, ambiguous=ambiguous) for c in columns]
    expr = parts[0] if len(parts) == 1 else pl.concat_str(parts, separator=" | ")
    return expr.alias("group")


def value_text(column: str, *, missing: str = MISSING_GROUP,
               ambiguous: Sequence[str] = ()) -> pl.Expr:
    r"""A key value as text that no other value, and no missing value, shares.

    A missing value reads ``missing``; a value is written as it is, unless it could be read as
    something else: a value that starts with ``"``, equals ``missing`` or contains one of
    ``ambiguous`` (the separator of a label of several keys) is written in
    double quotes, ``\`` and ``"`` escaped with a backslash. So the text ``"(missing)"`` and a
    missing value, or the text ``"null"`` and a missing value, read differently.

    Parameters
    ----------
    column : str
        The key column.
    missing : str, default "(missing)"
        How a missing value reads.
    ambiguous : sequence of str, default ()
        Substrings that make a value ambiguous in the label it is part of.

    Returns
    -------
    pl.Expr
        A String expression named ``column``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"g": ["a", "null", None, "(missing)", '"q']})
    >>> df.select(value_text("g"))["g"].to_list()
    ['a', 'null', '(missing)', '"(missing)"', '"\\"q"']
    """
    text = pl.col(column).cast(pl.String)
    odd = text.str.starts_with('"') | (text == missing)
    for part in ambiguous:
        odd = odd | text.str.contains(part, literal=True)
    quoted = pl.concat_str(pl.lit('"'), text.str.replace_all("\\", "\\\\", literal=True)
                           .str.replace_all('"', '\\"', literal=True), pl.lit('"'))
    return (pl.when(text.is_null()).then(pl.lit(missing)).when(odd).then(quoted)
            .otherwise(text).alias(column))


def text_of(value: Any, *, missing: str = MISSING_GROUP, ambiguous: Sequence[str] = ()) -> str:
    r"""One value as :func:`value_text` writes it, for a value given in Python.

    Parameters
    ----------
    value : Any
        The value (``None``: missing).
    missing : str, default "(missing)"
        How a missing value reads.
    ambiguous : sequence of str, default ()
        As in :func:`value_text`.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> text_of(None), text_of("a"), text_of("(missing)"), text_of("x | y", ambiguous=(" | ",))
    ('(missing)', 'a', '"(missing)"', '"x | y"')
    """
    if value is None:
        return missing
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if text.startswith('"') or text == missing or any(a in text for a in ambiguous):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


#: How the elements of a list cell are joined in CSV, the text table and Markdown.
LIST_SEPARATOR = ", "


def list_text(values: Sequence[Any]) -> str:
    r"""A list as one cell of text, each element readable on its own (CSV, text, Markdown).

    The elements are joined with ``", "``; an element that holds ``", "`` or starts with ``"``
    is written in double quotes with ``\`` and ``"`` escaped (the rule of :func:`text_of`), so
    the groups ``"x, y"``, ``"x"`` and ``"y"`` read as three, never four. A missing element reads
    ``(missing)``, a Boolean ``true``/``false``.

    Parameters
    ----------
    values : sequence
        The list's elements (group labels, names, classes).

    Returns
    -------
    str
        The cell.

    Examples
    --------
    >>> print(list_text(["x, y", "x", "y"]), "|", list_text(['"q', None, True]))
    "x, y", x, y | "\"q", (missing), true
    """
    def one(value: Any) -> str:
        if value is None:
            return MISSING_GROUP
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if LIST_SEPARATOR in text or text.startswith('"'):
            return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return text

    return LIST_SEPARATOR.join(one(v) for v in values)


#: The characters XML 1.0 (so SVG) cannot hold: C0 controls but tab, line feed and carriage
#: return, lone surrogates, U+FFFE and U+FFFF.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _escaped(match: re.Match[str]) -> str:
    if match.group() == "\\":  # a backslash an escape could be read from (_escaping)
        return "\\\\"
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    r"""A text every SVG/XML renderer can draw: characters XML cannot hold written as escapes.

    A C0 control character other than tab, line feed and carriage return becomes ``\xNN``;
    a lone surrogate, U+FFFE and U+FFFF become ``\uXXXX``. Every other character is kept.
    Chart renderers (vl-convert) abort the process on the raw characters.

    Parameters
    ----------
    text : str
        A label, a title or any text of a chart.

    Returns
    -------
    str
        The text, with the characters XML 1.0 refuses escaped.

    Examples
    --------
    >>> printable("B\x01"), printable("tab\tok"), printable("\uffff")
    ('B\\x01', 'tab\tok', '\\uffff')
    """
    return _XML_ESCAPING.sub(_escaped, text)


#: The invisible format characters a reader cannot see but that change what a label reads as:
#: zero-width spaces and joiners, bidirectional marks, embeddings, overrides and isolates, the
#: line and paragraph separators U+2028/U+2029, the word joiner and invisible operators, the
#: byte-order mark. :func:`visible` (text, Markdown) and :data:`NOT_IN_MARKUP` (HTML) escape them
#: alike, so ``"ZW"`` and ``"Z\u200bW"`` never read the same on any way out.
INVISIBLE = "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff"

#: The characters an HTML page (and the SVG inside it) must not carry raw: C0 controls but tab,
#: line feed and carriage return (NUL above all), DEL, C1 controls, lone surrogates and the
#: noncharacters U+FDD0-U+FDEF, U+FFFE and U+FFFF (WHATWG HTML: parse errors; XML 1.0), and the
#: :data:`INVISIBLE` format characters (a bidirectional override reverses the text after it).
NOT_IN_MARKUP = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
    + INVISIBLE + "]")


def markup_safe(text: str) -> str:
    r"""A page's text with every character :data:`NOT_IN_MARKUP` written as :func:`printable` does.

    The spelling is the charts' (``\x0b``, ``\x7f``, ``\ufffe``), so a group reads the same in
    the tables, the verdict, the provenance and the charts of one page; markup itself (tags,
    line breaks, tabs) is untouched. :func:`polars_fair.audit.escape.page_safe` applies it to a
    whole page.

    Parameters
    ----------
    text : str
        HTML text outside a ``<script>`` block.

    Returns
    -------
    str
        The text without any raw :data:`NOT_IN_MARKUP` character.

    Examples
    --------
    >>> markup_safe("<td>A\x00nul</td><td>C\x7fdel</td><td>D\ufffe</td>")
    '<td>A\\x00nul</td><td>C\\x7fdel</td><td>D\\ufffe</td>'
    >>> markup_safe("<td>Z\u200bW</td><td>\u202eevil</td>")
    '<td>Z\\u200bW</td><td>\\u202eevil</td>'
    """
    return NOT_IN_MARKUP.sub(_escaped, text)


def printable_spec(spec: Any) -> Any:
    r"""A chart specification (nested dicts, lists, texts) with every text made :func:`printable`.

    This is the one place where labels, titles and inline data enter a rendered chart
    (:func:`polars_fair.audit.plot.to_svg`, :func:`polars_fair.audit.plot.save`): keys and
    values alike are rewritten. The texts a reader sees as labels (the inline data's values,
    from which axes and legends read, and titles) are written by :func:`markup_text`, as the
    page's tables write them: SVG collapses whitespace, so ``"a"`` and ``"a "`` (or a tab, a
    line feed, a no-break space) would otherwise draw alike.

    Parameters
    ----------
    spec : Any
        A Vega-Lite specification as ``chart.to_dict()`` returns it.

    Returns
    -------
    Any
        The same structure; texts rewritten, other values unchanged.

    Examples
    --------
    >>> printable_spec({"data": {"values": [{"g": "B\x1b", "n": 2}, {"g": "B ", "n": 1}]}})
    {'data': {'values': [{'g': 'B\\x1b', 'n': 2}, {'g': 'B\\x20', 'n': 1}]}}
    """
    return _spec_texts(spec, labels=False)


#: The parts of a Vega-Lite specification whose texts a reader sees as labels.
_LABEL_PARTS = frozenset({"datasets", "values", "title", "subtitle"})


def _spec_texts(spec: Any, *, labels: bool) -> Any:
    """:func:`printable_spec` below one part: labels by :func:`markup_text`, names kept."""
    if isinstance(spec, str):
        return markup_text(spec) if labels else printable(spec)
    if isinstance(spec, dict):
        return {printable(k): _spec_texts(v, labels=labels or k in _LABEL_PARTS)
                for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return [_spec_texts(v, labels=labels) for v in spec]
    return spec


@borrow(group_label, params=("columns", "missing"), sections=("Returns", "Raises"))
def named_label(columns: Sequence[str], *, missing: str = MISSING_GROUP) -> pl.Expr:
    """A group named with its attributes: ``"race=Black, sex=Female"`` (the gate, the summary).

    Each value is written by :func:`value_text`: a missing value reads ``missing``, and a value
    that could be read as another (equal to ``missing``, starting with ``"``, or, with several
    keys, holding ``", "``) is quoted, so two groups never share a label.

    Examples
    --------
    >>> df = pl.DataFrame({"r": ["A, s=B", "A", None], "s": ["C", "B, s=C", "(missing)"]})
    >>> df.select(named_label(["r", "s"]))["group"].to_list()
    ['r="A, s=B", s=C', 'r=A, s="B, s=C"', 'r=(missing), s="(missing)"']
    """
    if not columns:
        raise E.InvalidArgumentError("a group label needs at least one key column, got []")
    several = (", ",) if len(columns) > 1 else ()
    parts = [pl.concat_str(pl.lit(f"{k}="), value_text(k, missing=missing, ambiguous=several))
             for k in columns]
    return pl.concat_str(parts, separator=", ").alias("group")


def named_text(values: dict[str, Any], *, missing: str = MISSING_GROUP) -> str:
    """:func:`named_label` for one group given in Python, ``{key: value}``.

    Parameters
    ----------
    values : dict
        The group's key values, in order (``None``: missing).
    missing : str, default "(missing)"
        How a missing value reads.

    Returns
    -------
    str
        ``"k1=v1, k2=v2"``, each value as :func:`text_of` writes it.

    Examples
    --------
    >>> named_text({"g": "(missing)"}), named_text({"g": None})
    ('g="(missing)"', 'g=(missing)')
    >>> named_text({"r": "a, s=b", "s": "c"})
    'r="a, s=b", s=c'
    """
    several = (", ",) if len(values) > 1 else ()
    return ", ".join(f"{k}={text_of(v, missing=missing, ambiguous=several)}"
                     for k, v in values.items())


class _Missing:
    """A missing value in a message's list of values: its ``repr`` is ``(missing)``."""

    def __repr__(self) -> str:
        return MISSING_GROUP


def shown_group(group: Any) -> Any:
    """A group as a Python message lists it: a missing value reads ``(missing)``, not None.

    Parameters
    ----------
    group : Any
        A value, or ``{key: value}`` for several attributes.

    Returns
    -------
    Any
        The same, each None replaced by a value whose ``repr`` is ``(missing)``.

    Examples
    --------
    >>> shown_group(None), shown_group({"g": None, "h": "x"})
    ((missing), {'g': (missing), 'h': 'x'})
    """
    if isinstance(group, dict):
        return {k: shown_group(v) for k, v in group.items()}
    return _Missing() if group is None else group


def _cli_value(value: Any) -> str:
    """One value as ``--reference`` reads it back (the command line's quoting rule)."""
    if value is None:
        return MISSING_GROUP
    text = str(value).lower() if isinstance(value, bool) else str(value)
    if text.startswith('"') or text == MISSING_GROUP or "," in text:
        return '"' + text.replace('"', '""') + '"'  # QUOTING: a doubled "" is one quote
    return text


def cli_group(group: Any) -> str:
    """A group as the command line writes it: ``--reference``'s ``attr=value,attr=value``.

    The command line's quoting rule (``polars_fair.cli.quoting.QUOTING``), so the text reads
    back as the same group: a missing value is ``(missing)``; a value equal to ``(missing)``,
    starting with ``"`` or holding a comma is written in double quotes, a quote in it doubled.

    Parameters
    ----------
    group : Any
        A value, or ``{key: value}`` for several attributes.

    Returns
    -------
    str
        The value's text, or ``k=v,k=v``.

    Examples
    --------
    >>> cli_group("a"), cli_group(None), cli_group({"race": "b", "sex": None})
    ('a', '(missing)', 'race=b,sex=(missing)')
    >>> cli_group("(missing)"), cli_group("White, non-Hispanic")
    ('"(missing)"', '"White, non-Hispanic"')
    >>> cli_group('"q') == '"' + '""q' + '"'  # a quote doubled inside the quotes
    True
    """
    if isinstance(group, dict):
        return ",".join(f"{k}={_cli_value(v)}" for k, v in group.items())
    return _cli_value(group)


def cli_words(groups: Sequence[Any], limit: int = 8, *, quoted: bool = False) -> str:
    """A few groups as the shell words ``--reference`` takes: ``a, 'x y', '(missing)'``.

    Each group is :func:`cli_group`'s text as one shell word (:func:`shell_word`), so
    ``--reference <word>`` runs as written. At most ``limit`` are named, then how many more
    there are.

    Parameters
    ----------
    groups : sequence
        The groups (values, or ``{key: value}``).
    limit : int, default 8
        How many to name.
    quoted : bool, default False
        Quote a bare word too (``'a'``): in a message, a value is never read as a flag's name.

    Returns
    -------
    str
        The words, joined with ``", "``.

    Examples
    --------
    >>> print(cli_words(["a", "O'Brien", None, "(missing)"]))
    a, "O'Brien", '(missing)', '"(missing)"'
    >>> cli_words(list("abcde"), limit=2), cli_words(["y_true=1"], quoted=True)
    ('a, b, ... (3 more)', "'y_true=1'")
    """
    words = [shell_word(cli_group(g)) for g in groups[:limit]]
    if quoted:
        words = [w if w[0] in "'\"$" else f"'{w}'" for w in words]
    more = f", ... ({len(groups) - limit} more)" if len(groups) > limit else ""
    return ", ".join(words) + more


def shell_word(text: str) -> str:
    r"""A text as one POSIX shell word that reads back as it: runnable, and never two alike.

    A text a shell leaves alone is bare; one with a ``'`` (and no ``"``, ``$``, a backquote,
    ``\`` or ``!``) is in double quotes; another in single quotes (:func:`shlex.quote`). A
    text with control or invisible characters (:func:`visible`'s) is written in bash's
    ``$'...'`` quoting with the same escapes (``$'A\x01'``), so a line break or a zero-width
    space is seen, and the text ``A\x01`` (backslash, x, 0, 1) reads ``'A\x01'``, apart.

    Parameters
    ----------
    text : str
        A value as the command line takes it.

    Returns
    -------
    str
        The word.

    Examples
    --------
    >>> print(shell_word("a"), shell_word("x y"), shell_word("O'Brien"), shell_word("C:\\x"))
    a 'x y' "O'Brien" 'C:\x'
    >>> print(shell_word("A\x01"), shell_word("it's\n"), shell_word("A\\x01"))
    $'A\x01' $'it\'s\n' 'A\x01'
    """
    import shlex

    if _RAW_CONTROL.search(text):
        body = text.replace("\\", "\\\\").replace("'", "\\'")
        return "$'" + _RAW_CONTROL.sub(_visible, body) + "'"
    word = shlex.quote(text)
    if word != text and "'" in text and not any(c in text for c in '"$`\\!'):
        return f'"{text}"'
    return word


#: C0 and C1 controls, DEL, the line and paragraph separators, and the invisible format
#: characters that make two texts look alike or reorder a line (zero-width spaces and joiners,
#: bidirectional embeddings, overrides and isolates, word joiners, the byte-order mark).
_CONTROLS = "\x00-\x1f\x7f-\x9f" + INVISIBLE
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: The letters after a backslash that start an escape (``\x00``, ``\u2028``, ``\n``, ``\r``,
#: ``\t``) and the backslash itself.
_ESCAPE_STARTS = "\\\\xuntr"


def _escaping(controls: str) -> re.Pattern[str]:
    r"""The characters ``controls`` and every backslash that could be read as an escape.

    A backslash is doubled when what follows it in the escaped text would make it read as an
    escape: one of :data:`_ESCAPE_STARTS`, or a character that is itself escaped (its escape
    starts with a backslash). So the text ``\x00`` (backslash, x, 0, 0) reads ``\\x00`` and a
    NUL ``\x00``: the escaping is injective, while a backslash elsewhere (``C:\data``, a
    quoted ``\"``) stays as it is.
    """
    return re.compile(f"\\\\(?=[{_ESCAPE_STARTS}{controls}])|[{controls}]")


_CONTROL = _escaping(_CONTROLS)
#: The characters :func:`visible` escapes, without the backslashes (:func:`shell_word`).
_RAW_CONTROL = re.compile(f"[{_CONTROLS}]")
#: :func:`printable`'s characters (XML cannot hold them) and the backslashes before an escape.
_XML_ESCAPING = _escaping("\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff")
#: The spaces other than U+0020 that read as one (no-break, en, em, thin, ideographic, ...).
OTHER_SPACES = "\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
#: :func:`markup_text`'s: :data:`NOT_IN_MARKUP`, the whitespace HTML collapses or that reads as
#: a space (tab, line feed, carriage return, :data:`OTHER_SPACES`), and the backslashes before
#: an escape.
_MARKUP_ESCAPING = _escaping("\x00-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
                             + INVISIBLE + OTHER_SPACES)
#: A space HTML drops or merges (leading, trailing, or after another space), and a backslash
#: before a trailing space (its ``\x20`` would read as an escape otherwise).
_LOOSE_SPACE = re.compile(r"\\(?= $)|^ | $|(?<= ) ")


def markup_text(text: str) -> str:
    r"""A value's text for an HTML page, escaped injectively, also where HTML merges spaces.

    :func:`markup_safe`, and a backslash before an escape doubled, so a NUL reads ``A\x00`` and
    the text ``A\x00`` reads ``A\\x00``, as in the charts (:func:`printable`) and the text table.
    Whitespace that a page would collapse or that reads as a plain space is written as an
    escape too, so two values never render alike: a line feed, carriage return and tab read
    ``\n``, ``\r``, ``\t`` (as in the text table, :func:`visible`), a no-break or other
    Unicode space ``\xa0`` or ``\u2009``, and a space that leads, ends the value or follows
    another space
    ``\x20`` (``"a  b"`` reads ``a \x20b``, ``" a"`` reads ``\x20a``).

    Applied to each value where it enters the page (``polars_fair.audit.html.text._esc``, the LL
    144 document); :func:`polars_fair.audit.escape.page_safe` then finds nothing raw to escape.

    Parameters
    ----------
    text : str
        A value (a group, a label).

    Returns
    -------
    str
        The text, escaped.

    Examples
    --------
    >>> print(markup_text("A\x00"), markup_text("A\\x00"), markup_text("C:\\data"))
    A\x00 A\\x00 C:\data
    >>> print(markup_text("a\nb"), markup_text("a  b"), markup_text(" a "), markup_text("a\xa0b"))
    a\nb a \x20b \x20a\x20 a\xa0b
    """
    shown = _MARKUP_ESCAPING.sub(_visible, text)
    return _LOOSE_SPACE.sub(lambda m: "\\\\" if m.group() == "\\" else "\\x20", shown)


def _visible(match: re.Match[str]) -> str:
    ch = match.group()
    if ch == "\\":
        return "\\\\"
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


#: The characters a CSV cell writes as escapes (:func:`csv_visible`): those of :func:`visible`
#: but the tab, line feed and carriage return (a CSV field holds them, quoted) and U+2028/U+2029
#: (kept as written, the text a CSV reader gets back). NUL, the other controls and the invisible
#: format characters (zero-width, bidirectional overrides, the byte-order mark) are escaped.
NOT_IN_CSV = _escaping("\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"
                       + INVISIBLE.replace("\u2028-\u202e", "\u202a-\u202e"))


def csv_visible(text: str) -> str:
    r"""A CSV cell's text with NUL, controls and invisible format characters as escapes.

    The spelling is :func:`visible`'s (``\x00``, ``\u202e``, ``\u200b``), so a group reads the
    same in CSV as in the text table and Markdown; tab, line feed, carriage return and
    U+2028/U+2029 are kept (:data:`NOT_IN_CSV`).

    Parameters
    ----------
    text : str
        A cell or a column name.

    Returns
    -------
    str
        The text, those characters escaped.

    Examples
    --------
    >>> csv_visible("A\x00nul"), csv_visible("\u202eevil"), csv_visible("Z\u200bW")
    ('A\\x00nul', '\\u202eevil', 'Z\\u200bW')
    >>> csv_visible("\tTAB") == "\tTAB", csv_visible("line\u2028sep") == "line\u2028sep"
    (True, True)
    """
    return NOT_IN_CSV.sub(_visible, text)


def visible(text: str) -> str:
    r"""A text with every control character and line break written as an escape.

    For a text table or a Markdown cell, where a raw carriage return corrupts the row and a
    line break would read as a space: ``\n``, ``\r``, ``\t``, ``\x01``, ``\x7f``,
    ``\u2028`` and ``\u2029`` are written as those escapes, so ``"\nx"``, ``" x"`` and
    ``"\u2028x"`` read differently.

    Parameters
    ----------
    text : str
        A cell.

    Returns
    -------
    str
        The text with C0 and C1 controls, DEL, U+2028 and U+2029 and the invisible format
        characters (zero-width spaces, bidirectional overrides, the byte-order mark) escaped.

    Examples
    --------
    >>> visible("a\rb"), visible("\nx"), visible("\u2028x"), visible(" x")
    ('a\\rb', '\\nx', '\\u2028x', ' x')
    >>> visible("x\u200by"), visible("x\u202ey"), visible("x\x85y")
    ('x\\u200by', 'x\\u202ey', 'x\\x85y')
    >>> print(visible("A\x00"), visible("A\\x00"), visible("C:\\data"))  # never alike
    A\x00 A\\x00 C:\data
    """
    return _CONTROL.sub(_visible, text)
