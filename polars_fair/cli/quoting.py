"""One quoting rule for every command-line option that takes a list or ``name=value`` items.

``--reference``, ``--benchmark``, ``--bins``, ``--columns`` and a quoted ``--by`` read their
text the same way (:data:`QUOTING`): values verbatim, and a name or value that holds the list's
separators written in double quotes. The functions here split and unquote; the options' own
modules (:mod:`polars_fair.cli.io`, :mod:`polars_fair.cli.commands`,
:mod:`polars_fair.cli.table`) read what they return.
"""

from __future__ import annotations

__all__ = ["QUOTING", "split_items", "split_name", "unquote"]

#: The quoting rule of every option that takes a list or ``name=value`` items (``--reference``,
#: ``--benchmark``, ``--bins``, ``--columns``, ``--by``), stated once in the docs and ``--help``.
QUOTING = (
    "Values are taken verbatim (spaces kept); spaces around a column name are ignored unless "
    "it is quoted. An item, a name or a value that holds a comma, "
    "an = or a : is written in double quotes, a doubled \"\" standing for one quote: "
    "--columns '\"c,d\",n', --bins '\"a=b\"=5', --benchmark 'h=H1:0.5,\"H=2,z\":0.5'."
)


def unquote(text: str) -> str:
    """A name or value as written: ``"..."`` without its quotes (``""`` is one quote).

    Parameters
    ----------
    text : str
        One item of an option (:data:`QUOTING`).

    Returns
    -------
    str
        The text inside the quotes when it is quoted whole, else ``text`` verbatim.

    Examples
    --------
    >>> unquote('"c,d"'), unquote('"a ""b"" c"'), unquote(" x ")
    ('c,d', 'a "b" c', ' x ')
    """
    if len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1].replace('""', ""):
        return text[1:-1].replace('""', '"')
    return text


def split_items(text: str, sep: str = ",") -> list[str]:
    """Split an option's text at ``sep`` outside double quotes; items verbatim, still quoted.

    Parameters
    ----------
    text : str
        The option's text (:data:`QUOTING`).
    sep : str, default ","
        One character.

    Returns
    -------
    list of str
        The items, nothing trimmed; quoted parts kept with their quotes (:func:`unquote`).

    Examples
    --------
    >>> split_items('h=H1:0.5,"H=2,z":0.5')
    ['h=H1:0.5', '"H=2,z":0.5']
    >>> split_items(' x ,y')
    [' x ', 'y']
    """
    items, start, quoted = [], 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif ch == sep and not quoted:
            items.append(text[start:i])
            start = i + 1
    return [*items, text[start:]]


def split_name(item: str) -> tuple[str, str] | None:
    """``NAME=VALUE`` split at the first ``=`` after ``NAME``, a quoted name read whole.

    Parameters
    ----------
    item : str
        One item (:data:`QUOTING`): ``age=5`` or ``"a=b"=5``.

    Returns
    -------
    tuple of str, or None
        The name (unquoted, or without the spaces around it) and the value (verbatim); None
        without ``=``.

    Examples
    --------
    >>> split_name("age=5"), split_name('"a=b"=5'), split_name(" g = x ")
    (('age', '5'), ('a=b', '5'), ('g', ' x '))
    """
    if item.startswith('"'):
        close = 1
        while True:
            close = item.find('"', close)
            if close < 0:
                return None
            if item.startswith('""', close):
                close += 2
                continue
            break
        if not item.startswith("=", close + 1):
            return None
        return unquote(item[:close + 1]), item[close + 2:]
    name, sep, value = item.partition("=")
    return (name.strip(), value) if sep else None
