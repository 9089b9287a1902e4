"""The command line's click classes and usage errors, importing neither Polars nor the analyses.

:class:`ReadableGroup` and :class:`ReadableCommand` show plain types in ``--help`` and turn a
usage error into one line (:func:`usage_message`); :func:`json_requested` reads ``--format
json`` from the arguments. Kept apart from :mod:`polars_fair.cli.commands` so that the
command line can answer ``--help`` and a usage error without importing Polars
(:mod:`polars_fair.cli.launch`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click
import typer
from typer.core import TyperCommand, TyperGroup

from polars_fair import errors as E

__all__ = ["ONE_OF", "json_requested", "not_parsed", "usage_message"]

#: Parameters of which a command needs at least one when it takes them all, none required, with
#: the usage error that says so: ``--by`` is optional beside ``--membership`` (whose groups are
#: then the attribute audited). :class:`ReadableCommand` checks it as it parses, so the full
#: command line and the cached parameter table (:mod:`polars_fair.cli.usage`) tell it alike.
ONE_OF: dict[tuple[str, ...], str] = {("by", "membership"): E.CLI_BY_OR_MEMBERSHIP}


_PARSE_WORDS = {
    "int_parsing": "an integer", "int_from_float": "an integer", "int_type": "an integer",
    "float_parsing": "a number", "float_type": "a number",
    "bool_parsing": "a boolean (true or false)", "bool_type": "a boolean (true or false)",
}


def not_parsed(value: Any, kind: str) -> str | None:
    """The words of a value Typer could not convert (pydantic's error type ``kind``).

    Parameters
    ----------
    value : object
        The value typed.
    kind : str
        pydantic's error type (``int_parsing``, ``float_parsing``, ...).

    Returns
    -------
    str or None
        ``'abc' is not an integer``; ``None`` for a type without its own words.

    Examples
    --------
    >>> not_parsed("1e3", "int_parsing")
    "'1e3' is not an integer"
    """
    words = _PARSE_WORDS.get(kind)
    return f"{value!r} is not {words}" if words else None


def usage_message(exc: Exception) -> str:
    """One line for a usage error of typer/click (an option missing, a value it cannot parse).

    So a usage error reads like every other failure of the command line (``polars-fair:
    error: ...``, exit 2) instead of click's box of several lines.

    Parameters
    ----------
    exc : typer's click UsageError
        The error (``BadParameter``, ``MissingParameter``, ``NoSuchOption``, ...).

    Returns
    -------
    str
        The message on one line, naming the option by its flag (``--min-support: 'abc' is not
        an integer``, ``missing option --by``).

    Examples
    --------
    >>> from typer._click.exceptions import BadParameter, NoSuchOption
    >>> usage_message(BadParameter("'x' is not one of 'a', 'b'.", param_hint="'--method'"))
    "--method: 'x' is not one of 'a', 'b'"
    >>> usage_message(BadParameter("'cvs' is not one of 'csv', 'json'.", param_hint="'--format'"))
    "--format: 'cvs' is not one of 'csv', 'json' (did you mean --format csv?)"
    >>> usage_message(NoSuchOption("--bogus"))
    'no such option: --bogus'
    """
    from typer._click.exceptions import BadParameter, MissingParameter

    param = getattr(exc, "param", None)
    opts = list(getattr(param, "opts", ()))
    if param is not None and getattr(param, "param_type_name", "") == "argument":
        name = str(getattr(param, "metavar", None) or param.name or "ARGUMENT").upper()
    else:
        name = next((o for o in opts if o.startswith("--")), opts[0] if opts else "")
    if not name:
        hint = getattr(exc, "param_hint", None)
        hints = [hint] if isinstance(hint, str) else list(hint or ())
        name = " / ".join(str(h).strip("'\"") for h in hints)
    if isinstance(exc, MissingParameter):
        kind = exc.param_type or getattr(param, "param_type_name", None) or "parameter"
        return E.CLI_MISSING_PARAMETER.format(kind=kind, name=name)
    text = " ".join(str(getattr(exc, "message", exc)).split()).rstrip(".")
    near = getattr(exc, "possibilities", None)  # NoSuchOption: the flags close to the one given
    if near:
        text += E.DID_YOU_MEAN.format(names=" or ".join(list(near)[:3]))
    cause = exc.__cause__
    if cause is not None and hasattr(cause, "errors"):  # pydantic's ValidationError
        first = cause.errors()[0]
        words = not_parsed(first.get("input"), first.get("type", ""))
        value = first.get("input")
        msg = str(first.get("msg", text))
        if words:
            text = words
        elif msg.startswith("Value error, "):  # typer's choices: "'x' is not one of ..."
            text = msg.removeprefix("Value error, ").rstrip(".")
        else:
            text = f"{value!r}: {msg}".rstrip(".")
    if isinstance(exc, BadParameter):
        if name.startswith("--"):
            text += _near_choice(text, name)
        return E.CLI_BAD_PARAMETER.format(flag=name, message=text) if name else text
    return text[:1].lower() + text[1:]


def _near_choice(text: str, flag: str) -> str:
    """Typer's "'cvs' is not one of 'table', 'csv'": the close choice as typed, ``--format csv``."""
    import re

    m = re.fullmatch(r"'((?:[^'\\]|\\.)*)' is not one of (.*)", text)
    if m is None:
        return ""
    return E.closest([m.group(1)], re.findall(r"'((?:[^'\\]|\\.)*)'", m.group(2)), flag=flag,
                     cutoff=E.VALUE_CUTOFF)


def json_requested(argv: Sequence[str]) -> bool:
    """Whether a command line asks for JSON (``--format json`` or ``--format=json``).

    Parameters
    ----------
    argv : sequence of str
        The arguments after the program's name.

    Returns
    -------
    bool

    Examples
    --------
    >>> json_requested(["report", "x.csv", "--format", "json"]), json_requested(["demo"])
    (True, False)
    """
    args = list(argv)
    return "--format=json" in args or any(
        a == "--format" and b == "json" for a, b in zip(args, args[1:], strict=False))


def _readable(param: Any) -> Callable[[Any], str | None]:
    original = param.display_type_rich

    def show(ctx: Any) -> str | None:
        if getattr(param, "is_flag", False):
            return None
        if param.metavar:
            return str(param.metavar)
        text = original(ctx) or ""
        inner = text.strip("<>")
        names = {"int": "INTEGER", "float": "NUMBER", "str": "TEXT", "path": "FILE",
                 "list[str]": "TEXT ...", "bool": None}
        if inner in names:
            return names[inner]
        return f"[{inner}]" if "|" in inner else inner.upper()

    return show


def _readable_get_params(self: click.Command, ctx: Any) -> Any:
    """The parameters of a command or of the group, each showing a readable type in ``--help``.

    The ``get_params`` of :class:`ReadableGroup` and :class:`ReadableCommand`: a flag shows no
    type, an option its metavar, a plain name or its choices; each converts its value without
    pydantic when it can (:func:`polars_fair.cli.coercion.install`).

    Parameters
    ----------
    ctx : click.Context (Typer's)
        The invocation's context.

    Returns
    -------
    list of click.Parameter

    Examples
    --------
    >>> group = ReadableGroup(name="g")
    >>> with group.context_class(group) as ctx:
    ...     [p.display_type_rich(ctx) for p in group.get_params(ctx)]
    [None]
    >>> from polars_fair.cli.entry import app
    >>> cmd = typer.main.get_command(app).commands["metrics"]
    >>> with cmd.context_class(cmd) as ctx:
    ...     level = [p for p in cmd.get_params(ctx) if p.name == "level"][0]
    ...     level.display_type_rich(ctx)
    'NUMBER'
    """
    from polars_fair.cli.coercion import install

    params = click.Command.get_params(self, ctx)
    for p in params:
        if not getattr(p, "_pf_readable", False):
            p.display_type_rich = _readable(p)  # type: ignore[attr-defined]
            p._pf_readable = True  # type: ignore[attr-defined]
            install(p)
    return params


class ReadableGroup(TyperGroup):
    """The command group, its ``--help`` without ``<bool>`` (as :class:`ReadableCommand`).

    Examples
    --------
    >>> ReadableGroup.__mro__[1].__name__
    'TyperGroup'
    """

    get_params = _readable_get_params

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             windows_expand_args: bool = True, **extra: Any) -> Any:
        """Run the command line; a usage error is one line on stderr (and JSON), exit 2.

        click reports an option it cannot parse or a missing option in a box of several
        lines; here it reads like every other failure: ``polars-fair: error: MESSAGE`` naming
        the flag (:func:`usage_message`), and with ``--format json`` the
        JSON error object on stdout.

        Parameters
        ----------
        args : sequence of str, optional
            The arguments; ``sys.argv[1:]`` when ``None``.
        prog_name, complete_var, windows_expand_args, **extra
            As ``click.Command.main``.
        standalone_mode : bool, default True
            ``False`` runs click's own ``main`` unchanged (errors are raised).

        Returns
        -------
        Any
            With ``standalone_mode=False``, the command's result; otherwise it exits.

        Raises
        ------
        SystemExit
            The command's exit code (2 for a usage error).

        Examples
        --------
        >>> import contextlib, sys
        >>> from polars_fair.cli.entry import app
        >>> group = typer.main.get_command(app)
        >>> try:
        ...     with contextlib.redirect_stderr(sys.stdout):
        ...         group.main(["report", "data.csv"], prog_name="polars-fair")
        ... except SystemExit as done:
        ...     print("exit code", done.code)
        polars-fair: error: missing option --by
        exit code 2
        """
        import json
        import sys

        from typer._click import exceptions as click

        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args,
                                **extra)
        argv = list(sys.argv[1:] if args is None else args)
        try:
            rv = super().main(argv, prog_name, complete_var, False, windows_expand_args,
                              **extra)
        except click.NoArgsIsHelpError as exc:
            typer.echo(exc.ctx.get_help() if exc.ctx is not None else exc.message)
            sys.exit(2)
        except click.UsageError as exc:
            text = usage_message(exc)
            typer.echo(f"polars-fair: error: {text}", err=True)
            if json_requested(argv):
                typer.echo(json.dumps({"status": "error", "error": "UsageError",
                                       "message": text, "exit_code": 2}))
            sys.exit(2)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


class ReadableCommand(TyperCommand):
    """A Typer command whose ``--help`` names types plainly (``INTEGER``, ``[holm|bh]``).

    Typer shows an option's Python annotation (``<list[str]>``, ``<bool>``); this shows the
    option's metavar, a plain name, the choices, or nothing for a flag.

    Examples
    --------
    >>> ReadableCommand.__mro__[1].__name__
    'TyperCommand'
    """

    get_params = _readable_get_params

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse as click does, then require one of each group of :data:`ONE_OF` it takes.

        Parameters
        ----------
        ctx : click.Context (Typer's)
            The invocation's context.
        args : list of str
            The command's arguments.

        Returns
        -------
        list of str
            The arguments left over (as ``click.Command.parse_args``).

        Raises
        ------
        click.UsageError (Typer's)
            Neither ``--by`` nor ``--membership`` on a command whose ``--by`` is optional
            beside ``--membership`` (:data:`polars_fair.errors.CLI_BY_OR_MEMBERSHIP`).

        Examples
        --------
        >>> from typer._click.exceptions import UsageError
        >>> from polars_fair.cli.entry import app
        >>> rates = typer.main.get_command(app).commands["rates"]
        >>> try:
        ...     rates.make_context("rates", ["data.csv", "--where", "age > 30"])
        ... except UsageError as exc:
        ...     print(exc.format_message())
        missing option --by
        """
        rest = super().parse_args(ctx, args)
        if not ctx.resilient_parsing:
            required = {p.name: p.required for p in self.params}
            for names, message in ONE_OF.items():
                taken = all(n in required and not required[n] for n in names)
                if taken and not any(ctx.params.get(n) for n in names):
                    from typer._click.exceptions import UsageError

                    raise UsageError(message, ctx)
        return rest
