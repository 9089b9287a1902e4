"""Usage errors answered before Polars, from each command's parameters kept in the user's cache.

Telling a missing ``--by`` or an unknown flag needs only the command's parameters, but they are
declared with the library (:mod:`polars_fair.cli.entry`, :mod:`polars_fair.cli.commands`), whose
import costs Polars and the analyses. So the first command that runs in full writes every
command's parameters (:func:`describe`) to a file in the user's cache (:func:`cache_file`), named
by a fingerprint of the installed package (each module's path, size and modification time, and
the Typer and Python versions): a file written by other code is never read. :func:`check` then
parses a command line against that table, with no Polars, and prints the usage error exactly as
the full command line would (``tests/cli/test_usage.py`` compares them) -- only for an error it
can be sure of: a value the table cannot vouch for (a number Typer would have to convert through
pydantic, a parameter with its own check) sends the command line to the full command, which
decides. A value the full command surely refuses (a text with no integer in it, a choice
outside the list, a text a number option's parser refuses) is refused here in Typer's words;
so is a command given none of a group of :data:`polars_fair.cli.group.ONE_OF` (a missing
``--by`` where ``--membership`` may stand in for it), which both check as they parse.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from polars_fair.cli.coercion import FLOAT_TEXT, INT_TEXT

#: Texts that are surely no integer to Typer's converter (pydantic's ``int_parsing``): one with a
#: letter (``abc``, ``1e3``, ``0x10``, ``inf``) or without a digit (``""``, ``-``).
NOT_INT_TEXT = re.compile(r".*[A-Za-z].*|[\s+\-._]*", re.DOTALL)

__all__ = ["CACHE_ENV", "cache_file", "check", "describe", "remember"]

#: The environment variable naming the cache directory (default: ``$XDG_CACHE_HOME/polars-fair``
#: or ``~/.cache/polars-fair``).
CACHE_ENV = "POLARS_FAIR_CACHE_DIR"



class _Unsure(Exception):
    """A value (or a parameter) the table cannot judge: the full command line decides."""


class _Parsed(Exception):
    """The command line parses: the full command runs it."""


def _root() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _installation() -> str:
    """A name for the installed package's folder: the prefix of its tables' files."""
    import hashlib

    return hashlib.sha1(_root().encode()).hexdigest()[:8]


def _fingerprint() -> str:
    import hashlib

    import typer

    root = _root()
    h = hashlib.sha1(f"{sys.version}|{typer.__version__}|{root}".encode())
    modules = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        modules += [os.path.join(folder, f) for f in files if f.endswith(".py")]
    for path in sorted(modules):
        st = os.stat(path)
        h.update(f"{path[len(root):]}|{st.st_size}|{st.st_mtime_ns};".encode())
    return h.hexdigest()[:16]


def cache_file() -> Path:
    """The file of the parameter table for this installation.

    Returns
    -------
    pathlib.Path
        ``usage-INSTALLATION-FINGERPRINT.json`` in ``$POLARS_FAIR_CACHE_DIR``,
        ``$XDG_CACHE_HOME/polars-fair`` or ``~/.cache/polars-fair``: the installation names the
        package's folder (several installations, such as two virtual environments, keep a
        table each), and the fingerprint changes with any module of the package.

    Examples
    --------
    >>> cache_file().name.startswith("usage-")
    True
    """
    base = os.environ.get(CACHE_ENV)
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = str(Path(xdg) / "polars-fair")
    return Path(base) / f"usage-{_installation()}-{_fingerprint()}.json"


def _kind(param: Any) -> dict[str, Any]:
    """How the table may judge a parameter's values (``other``: it may not)."""
    desc = getattr(param, "type_descriptor", None)
    if (desc is None or param.callback is not None or getattr(param, "is_eager", False)
            or param.envvar):
        return {"kind": "other"}
    info = desc.parameter_info
    leaf = desc.annotation
    if desc.is_list:
        leaf = desc.annotation.__args__[0]
    if info.parser is not None or desc.is_file:
        from polars_fair.cli.numbers import read_number

        # a number option (NUMBER_OPTION): its own parser tells a text that is no number
        return {"kind": "number" if info.parser is read_number and not desc.is_list
                else "other"}
    if desc.choices is not None and all(isinstance(c, str) for c in desc.choices):
        return {"kind": "choice", "choices": list(desc.choices),
                "case_sensitive": bool(info.case_sensitive)}
    if leaf is Path and not (info.exists or info.resolve_path or info.path_type
                             or not info.file_okay or not info.dir_okay):
        return {"kind": "path"}
    names = {str: "str", int: "int", float: "float", bool: "bool"}
    return {"kind": names.get(leaf, "other")} if isinstance(leaf, type) else {"kind": "other"}


def describe(group: Any) -> dict[str, list[dict[str, Any]]]:
    """Every command's parameters, as :func:`check` reads them.

    Parameters
    ----------
    group : click.Group (Typer's)
        The app as a group (``typer.main.get_command(app)``).

    Returns
    -------
    dict of str to list of dict
        Per command, in declaration order: each parameter's class, name, flags, arity, whether
        it is required, and how its values may be judged (``kind``).

    Examples
    --------
    >>> import typer
    >>> from polars_fair.cli.entry import app
    >>> by = [p for p in describe(typer.main.get_command(app))["report"] if p["name"] == "by"]
    >>> by[0]["opts"], by[0]["multiple"], by[0]["kind"]
    (['--by'], True, 'str')
    """
    out: dict[str, list[dict[str, Any]]] = {}
    for name, cmd in group.commands.items():
        params = []
        for p in cmd.params:
            entry = {"class": p.param_type_name, "name": p.name, "opts": list(p.opts),
                     "secondary_opts": list(p.secondary_opts), "nargs": p.nargs,
                     "multiple": bool(p.multiple), "required": bool(p.required),
                     "metavar": p.metavar, **_kind(p)}
            if p.param_type_name == "option":
                entry.update(is_flag=bool(p.is_flag), count=bool(p.count))
                if p.is_flag and getattr(p, "flag_value", True) is not True:
                    entry["kind"] = "other"
            params.append(entry)
        out[name] = params
    return out


def remember(app: Any) -> bool:
    """Write the parameter table (:func:`describe`) unless this installation's file exists.

    A cache that cannot be written is left alone: the table only makes usage errors faster.

    Parameters
    ----------
    app : typer.Typer
        The app (:data:`polars_fair.cli.entry.app`).

    Returns
    -------
    bool
        Whether this installation's table is in the cache now.

    Examples
    --------
    >>> from polars_fair.cli.entry import app
    >>> remember(app) == cache_file().exists()
    True
    """
    try:
        path = cache_file()
    except (OSError, RuntimeError):  # no home directory, an unreadable package
        return False
    if path.exists():
        return True
    import tempfile

    import typer

    table = describe(typer.main.get_command(app))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # this installation's older tables; another installation's are left alone (two
        # environments run in turn would otherwise delete each other's at every run)
        for old in path.parent.glob(f"usage-{_installation()}-*.json"):
            old.unlink(missing_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False,
                                         suffix=".tmp") as tmp:
            json.dump(table, tmp)
        os.replace(tmp.name, path)
    except OSError:
        return False
    return True


def _read() -> dict[str, list[dict[str, Any]]] | None:
    try:
        table: dict[str, list[dict[str, Any]]] = json.loads(cache_file().read_text())
    except (OSError, ValueError, RuntimeError):  # none yet, half-written, no home directory
        return None
    return table


def _judge(spec: dict[str, Any]) -> Any:
    """A converter that passes a value the full command would convert, else :class:`_Unsure`."""
    from typer._coercion import RuntimeParam
    from typer.models import OptionInfo

    class Judge(RuntimeParam):
        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            if isinstance(value, (list, tuple)):
                return [self._coerce_value(v, param, ctx) for v in value]
            kind = spec["kind"]
            choices = spec.get("choices", [])
            _refuse(spec, value, param, ctx)
            ok = isinstance(value, bool) or isinstance(value, str) and (
                kind == "str"
                or (kind == "int" and INT_TEXT.fullmatch(value) is not None)
                or (kind == "float" and FLOAT_TEXT.fullmatch(value) is not None)
                or kind == "number"
                or (kind == "path" and value != "")
                or (kind == "choice" and (value in choices if spec["case_sensitive"]
                                          else value.lower() in [c.lower() for c in choices])))
            if not ok:
                raise _Unsure
            return value

    return Judge(parameter_info=OptionInfo(), annotation=str)


def _refuse(spec: dict[str, Any], value: Any, param: Any, ctx: Any) -> None:
    """The usage error of a value the full command surely refuses, in its words.

    The words are those Typer shows for the same value (a text no integer, outside the
    choices, or that a number option's own parser refuses); any other value passes on.
    """
    from typer._click.exceptions import BadParameter

    from polars_fair.cli.group import not_parsed

    if not isinstance(value, str):
        return
    kind, message = spec["kind"], None
    if kind == "int" and NOT_INT_TEXT.fullmatch(value):
        message = not_parsed(value, "int_parsing")
    elif kind == "number":
        from polars_fair.cli.numbers import read_number

        try:
            read_number(value)
        except ValueError as exc:  # the option's own parser: the words Typer shows
            message = str(exc)
    elif kind == "choice":
        from typer._param_types import coerce_cli_choice

        try:
            coerce_cli_choice(value, choices=spec["choices"],
                              case_sensitive=spec["case_sensitive"], ctx=ctx)
        except ValueError as exc:  # Typer's own check, as the full command runs it
            message = str(exc)
    if message is not None:
        raise BadParameter(message, ctx=ctx, param=param)


def _command(name: str, specs: list[dict[str, Any]]) -> Any:
    """A command with the table's parameters whose callback raises :class:`_Parsed`."""
    from typer._coercion import resolve_type_descriptor
    from typer.core import TyperArgument, TyperOption
    from typer.models import OptionInfo

    from polars_fair.cli.group import ReadableCommand

    def parsed(**values: Any) -> None:
        raise _Parsed

    params: list[Any] = []
    for s in specs:
        flag = bool(s.get("is_flag"))
        annotation = bool if flag else list[str] if s["multiple"] else str
        common = {"type_descriptor": resolve_type_descriptor(annotation, OptionInfo()),
                  "required": s["required"], "metavar": s["metavar"]}
        if s["class"] == "argument":
            param: Any = TyperArgument(param_decls=[s["name"]], nargs=s["nargs"], **common)
        else:
            decl = ([f"{'/'.join(s['opts'])}/{'/'.join(s['secondary_opts'])}"]
                    if s["secondary_opts"] else s["opts"])
            param = TyperOption(param_decls=[s["name"], *decl], is_flag=flag or None,
                                multiple=s["multiple"], count=s.get("count", False),
                                nargs=None if flag else s["nargs"],
                                default=False if flag else None, **common)
        param._runtime_param = _judge(s)
        params.append(param)
    # ReadableCommand: its --help (kept for "did you mean --help") converts without pydantic
    return ReadableCommand(name, params=params, callback=parsed)


def check(args: Sequence[str]) -> None:
    """Print the usage error of a command line and exit 2, when the table can tell it.

    Returns (printing nothing) when there is no table yet, when the line parses, when it asks
    for help, or when a value or parameter needs the full command line to judge.

    Parameters
    ----------
    args : sequence of str
        The arguments after the program's name, a command first.

    Raises
    ------
    SystemExit
        2, after the one-line error (and the JSON error object with ``--format json``) that the
        full command line prints.

    Examples
    --------
    >>> from polars_fair.cli.entry import app
    >>> _ = remember(app)
    >>> import contextlib
    >>> try:
    ...     with contextlib.redirect_stderr(sys.stdout):
    ...         check(["report", "data.csv", "--by", "race", "--no-such-flag"])
    ... except SystemExit as done:
    ...     print("exit code", done.code)  # doctest: +ELLIPSIS
    polars-fair: error: no such option: --no-such-flag...
    exit code 2
    """
    table = _read()
    if table is None or not args or args[0] not in table or "--help" in args:
        return
    unsure = [o for s in table[args[0]] if s["kind"] == "other"
              for o in [*s["opts"], *s["secondary_opts"]]]
    if any(s["kind"] == "other" and s["required"] for s in table[args[0]]) or any(
            a.split("=")[0] in unsure for a in args):
        return
    from polars_fair.cli.group import ReadableGroup

    group = ReadableGroup(name="polars-fair", commands={args[0]: _command(args[0],
                                                                          table[args[0]])})
    try:
        group.main(list(args), prog_name="polars-fair")
    except (_Parsed, _Unsure):
        return
