"""Option values converted without pydantic: the common, unambiguous values of each type.

Typer (0.29) converts every option's text through a pydantic ``TypeAdapter``; importing pydantic
and building the adapters costs about 0.1 s of CPU at every command line, a sixth of ``report``
on COMPAS. :func:`install` gives each parameter of a command a converter that handles the values
whose conversion is unambiguous (text, a list of texts, a decimal integer, a plain decimal
number, a flag's Boolean, an existing choice, a path, a value its own parser accepts) and
hands every other value, errors included, to Typer's own converter. So a value is converted to
the same result as Typer would, and an error reads exactly as before
(``tests/cli/test_coercion.py`` checks both against Typer's converters); pydantic is imported
only when a value needs it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._coercion import RuntimeParam, build_runtime_param
from typer._param_types import coerce_cli_choice, coerce_cli_path

__all__ = ["FLOAT_TEXT", "INT_TEXT", "FastRuntimeParam", "install"]

#: The integers converted here (decimal digits, an optional minus; Typer converts the rest).
INT_TEXT = re.compile(r"-?[0-9]{1,18}")
#: The numbers converted here (decimal digits with an optional fraction; no exponent, no nan).
FLOAT_TEXT = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")


class _Fallback(Exception):
    """The value is not one the fast path converts: Typer's converter decides."""


def _leaf(annotation: Any, param: Any, ctx: Any, value: Any) -> Any:
    """One value converted as Typer would, or :class:`_Fallback`."""
    info = param.type_descriptor.parameter_info
    if info.parser is not None:
        try:
            return info.parser(value)
        except Exception as exc:  # the parser's own error: Typer words it (via pydantic)
            raise _Fallback from exc
    if annotation in (str, int, float, bool) and type(value) is annotation:
        return value  # a default, or a flag's Boolean
    if annotation is Path and isinstance(value, Path | str) and str(value):
        return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
    if not isinstance(value, str):
        raise _Fallback
    if annotation is int and INT_TEXT.fullmatch(value):
        return int(value)
    if annotation is float and FLOAT_TEXT.fullmatch(value):
        return float(value)
    choices = param.type_descriptor.choices
    if choices is not None and all(isinstance(c, str) for c in choices):
        try:
            return coerce_cli_choice(value, choices=choices,
                                     case_sensitive=info.case_sensitive, ctx=ctx)
        except ValueError as exc:  # not a choice: Typer's message
            raise _Fallback from exc
    raise _Fallback


@dataclass(frozen=True)
class FastRuntimeParam(RuntimeParam):
    """A parameter's converter: the fast path, else Typer's (pydantic) converter.

    Parameters
    ----------
    parameter_info : typer.models.ParameterInfo
        The parameter's declaration (its parser, choices' case, path checks).
    annotation : type
        The parameter's annotation as Typer resolved it (``str``, ``int``, ``list[str]``,
        ``Literal[...]``, ...).

    Examples
    --------
    >>> FastRuntimeParam.__mro__[1].__name__  # Typer's converter protocol
    'RuntimeParam'
    """

    def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
        annotation: Any = self.annotation
        try:
            if get_origin(annotation) is list:
                if not isinstance(value, (list, tuple)):
                    raise _Fallback
                (item,) = get_args(annotation)
                return [_leaf(item, param, ctx, v) for v in value]
            return _leaf(annotation, param, ctx, value)
        except _Fallback:
            typer_param = build_runtime_param(param.type_descriptor)
            return typer_param._coerce_value(value, param=param, ctx=ctx)


_FAST = (str, int, float, bool, Path, Decimal)


def install(param: Any) -> None:
    """Give a Typer parameter the fast converter (:class:`FastRuntimeParam`), when it has one.

    A file, a tuple, a date or a type outside ``str, int, float, bool, Path``, a ``Literal``
    of texts or a list of them keeps Typer's converter.

    Parameters
    ----------
    param : typer.core.TyperOption or typer.core.TyperArgument
        The parameter; other click parameters are left alone.

    Examples
    --------
    >>> from polars_fair.cli.entry import app
    >>> import typer
    >>> cmd = typer.main.get_command(app).commands["report"]
    >>> with cmd.context_class(cmd) as ctx:
    ...     kinds = {type(p.get_runtime_param()).__name__ for p in cmd.get_params(ctx)
    ...              if hasattr(p, "type_descriptor") and p.name != "help"}
    >>> kinds
    {'FastRuntimeParam'}
    """
    desc = getattr(param, "type_descriptor", None)
    if desc is None or getattr(param, "_runtime_param", 1) is not None or desc.is_file:
        return
    annotation = desc.annotation
    leaf = get_args(annotation)[0] if get_origin(annotation) is list else annotation
    if leaf in _FAST or desc.parameter_info.parser is not None or desc.choices is not None:
        param._runtime_param = FastRuntimeParam(parameter_info=desc.parameter_info,
                                                annotation=annotation)
