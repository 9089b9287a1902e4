"""Docstrings written once, composed into every method that reaches an analysis.

Each analysis' module function holds the full numpydoc text, and the methods that reach it (on
the count-table object, the score-table object and ``df.fair``) are composed from it, with their
own parameters and example.

Also builds the signatures that ``help()``, ``inspect.signature`` and IDEs show for a method
whose count arguments travel as ``**count_args``: the arguments are spelled out, typed, with
their defaults.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["borrow", "compose", "expand_signature", "fill", "parse", "render"]

F = TypeVar("F", bound=Callable[..., Any])

_HEADER = re.compile(r"^(?P<title>[A-Z][A-Za-z ]+)\n-{3,}\n", re.M)
ORDER = ("Parameters", "Returns", "Raises", "Warns", "See Also", "Notes", "References",
         "Examples")


def parse(doc: str) -> tuple[str, dict[str, str]]:
    r"""Split a numpydoc docstring into its head (summary and description) and its sections.

    Parameters
    ----------
    doc : str
        A numpydoc docstring (indented as in the source, or not).

    Returns
    -------
    head : str
        The summary and extended description, dedented, without surrounding blank lines.
    sections : dict of str to str
        Section title (``"Parameters"``, ``"Returns"``, ...) -> its body, dedented, in the order
        of the docstring.

    Examples
    --------
    >>> head, sections = parse("Sum.\n\nReturns\n-------\nint\n")
    >>> head, sections
    ('Sum.', {'Returns': 'int'})
    """
    text = inspect.cleandoc(doc)
    matches = list(_HEADER.finditer(text + "\n"))
    if not matches:
        return text.strip(), {}
    head = text[: matches[0].start()].strip()
    sections: dict[str, str] = {}
    for m, nxt in zip(matches, [*matches[1:], None], strict=True):
        end = nxt.start() if nxt is not None else len(text)
        sections[m.group("title")] = text[m.end(): end].strip("\n").rstrip()
    return head, sections


def render(head: str, sections: Mapping[str, str]) -> str:
    r"""Join a head and sections into a numpydoc docstring (sections in numpydoc's order).

    Parameters
    ----------
    head : str
        The summary and extended description.
    sections : mapping of str to str
        Section title -> body; empty bodies are left out. Sections numpydoc does not know
        follow its own (:data:`ORDER`), in the mapping's order.

    Returns
    -------
    str
        The docstring, ending with a newline (the inverse of :func:`parse`).

    Examples
    --------
    >>> render("Sum.", {"Returns": "int", "Parameters": "a : int"}).splitlines()
    ['Sum.', '', 'Parameters', '----------', 'a : int', '', 'Returns', '-------', 'int']
    """
    parts = [head]
    for title in [*ORDER, *[t for t in sections if t not in ORDER]]:
        body = sections.get(title)
        if body:
            parts.append(f"{title}\n{'-' * len(title)}\n{body}")
    return "\n\n".join(parts) + "\n"


def _entries(block: str) -> list[tuple[str, str]]:
    """The entries of a Parameters block: (names, text), names as written (``a, b``)."""
    out: list[tuple[str, str]] = []
    for line in block.splitlines():
        if line and not line[0].isspace():
            out.append((line.split(" : ")[0].strip(), line))
        elif out:
            out[-1] = (out[-1][0], out[-1][1] + "\n" + line)
    return out


def compose(
    source: str,
    *,
    drop: tuple[str, ...] = (),
    before: str = "",
    after: str = "",
    raises: str = "",
    example: str | None = None,
    returns: str | None = None,
) -> str:
    r"""A method's docstring from its analysis' module-function docstring.

    Parameters
    ----------
    source : str
        The module function's docstring.
    drop : tuple of str
        Parameters of the function that the method does not take (``counts``, ``keys``).
    before, after : str
        Parameter entries the method adds before and after the function's own.
    raises : str
        Raises entries the method adds.
    example : str, optional
        The method's Examples section (replaces the function's).
    returns : str, optional
        A replacement for the return type on the first line of Returns.

    Returns
    -------
    str
        The composed numpydoc docstring (:func:`render`).

    Examples
    --------
    >>> doc = "Add.\n\nParameters\n----------\nkeys : list\nx : int\n    A number.\n"
    >>> compose(doc, drop=("keys",), before="by : str").splitlines()
    ['Add.', '', 'Parameters', '----------', 'by : str', 'x : int', '    A number.']
    """
    head, sections = parse(source)
    kept = [text for names, text in _entries(sections.get("Parameters", ""))
            if names not in drop]
    params = "\n".join(p for p in (before.strip("\n"), *kept, after.strip("\n")) if p)
    sections["Parameters"] = params
    if raises:
        sections["Raises"] = "\n".join(p for p in (sections.get("Raises", ""), raises) if p)
    if example is not None:
        sections["Examples"] = inspect.cleandoc(example)
    if returns is not None and "Returns" in sections:
        first, _, rest = sections["Returns"].partition("\n")
        sections["Returns"] = returns + ("\n" + rest if rest else "")
    return render(head, sections)


def borrow(
    source: Callable[..., Any], params: tuple[str, ...] = (), sections: tuple[str, ...] = ()
) -> Callable[[F], F]:
    r"""Complete a function's docstring with parameters and sections of ``source``'s, said once.

    For a function that hands these parameters on to ``source`` (they mean the same there) and
    raises what ``source`` raises. The composed ``__doc__`` is what ``help()``,
    ``inspect.getdoc`` and the API reference show; the parameters are put in signature order.

    Parameters
    ----------
    source : callable
        The function whose docstring states them.
    params : tuple of str
        The parameters whose entries are taken from ``source``'s Parameters.
    sections : tuple of str
        The sections taken from ``source`` (``"Raises"``), in place of the function's own.

    Returns
    -------
    callable
        A decorator that sets the function's ``__doc__`` and returns the function.

    Examples
    --------
    >>> def f(a, b):
    ...     "F.\n\nParameters\n----------\na : int\n    A.\nb : int\n    B.\n"
    >>> @borrow(f, params=("a",))
    ... def g(a, c):
    ...     "G.\n\nParameters\n----------\nc : int\n    C.\n"
    >>> parse(g.__doc__)[1]["Parameters"].splitlines()
    ['a : int', '    A.', 'c : int', '    C.']
    """
    _, theirs = parse(source.__doc__ or "")
    lent = {n: t for n, t in _entries(theirs.get("Parameters", "")) if n in params}
    missing = set(params) - set(lent)
    if missing:
        raise KeyError(f"{source.__qualname__} documents no parameter {sorted(missing)}")

    def complete(func: F) -> F:
        head, own = parse(func.__doc__ or "")
        entries = dict(_entries(own.get("Parameters", ""))) | lent
        order = list(inspect.signature(func).parameters)

        def place(names: str) -> int:  # the first of ``a, b`` or ``**kwargs`` in the signature
            first = names.split(",")[0].strip().lstrip("*")
            return order.index(first) if first in order else len(order)

        own["Parameters"] = "\n".join(entries[n] for n in sorted(entries, key=place))
        for title in sections:
            own[title] = theirs[title]
        func.__doc__ = render(head, own)
        return func

    return complete


def fill(**parts: str) -> Callable[[F], F]:
    r"""Put text written once (a module constant) in place of ``{name}`` lines of a docstring.

    For a description too long to stand inside its function, or shared by several: the
    docstring holds a line ``{name}`` alone, replaced by ``parts[name]`` indented as that line.
    The result is the ``__doc__`` that ``help()`` and the API reference show.

    Parameters
    ----------
    **parts : str
        Placeholder name -> its text (dedented).

    Returns
    -------
    callable
        A decorator that sets the function's ``__doc__`` and returns the function.

    Raises
    ------
    KeyError
        A placeholder that is not in the docstring.

    Examples
    --------
    >>> @fill(rule="One.\nTwo.")
    ... def f():
    ...     "F.\n\n  {rule}\n"
    >>> f.__doc__.splitlines()
    ['F.', '', '  One.', '  Two.']
    """
    def complete(func: F) -> F:
        doc = func.__doc__ or ""
        for name, text in parts.items():
            match = re.search(r"^(?P<indent>[ \t]*)\{" + re.escape(name) + r"\}[ \t]*$", doc,
                              re.M)
            if match is None:
                raise KeyError(f"{func.__qualname__}'s docstring has no line {{{name}}}")
            indent = match.group("indent")
            body = "\n".join(indent + line if line else line
                             for line in inspect.cleandoc(text).splitlines())
            doc = doc[: match.start()] + body + doc[match.end():]
        func.__doc__ = doc
        return func

    return complete


def expand_signature(
    func: Callable[..., Any], extra: Mapping[str, tuple[Any, Any]], returns: Any = None
) -> inspect.Signature:
    """``func``'s signature with its ``**kwargs`` replaced by keyword-only parameters.

    Parameters
    ----------
    func : callable
        The function whose signature is expanded.
    extra : mapping of str to (annotation, default)
        The keyword arguments that travel in ``**kwargs``.
    returns : Any, optional
        A replacement return annotation.

    Returns
    -------
    inspect.Signature
        ``func``'s parameters without ``**kwargs``, then ``extra`` as keyword-only parameters
        (those not already named), and the return annotation.

    Examples
    --------
    >>> def f(a, **kw): ...
    >>> str(expand_signature(f, {"b": (int, 1)}))
    '(a, *, b: int = 1)'
    """
    sig = inspect.signature(func)
    params = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    taken = {p.name for p in params}
    params += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                          annotation=annotation)
        for name, (annotation, default) in extra.items() if name not in taken
    ]
    return sig.replace(parameters=params,
                       return_annotation=sig.return_annotation if returns is None else returns)
