"""``polars-fair sample-size``: applicants per group an adverse-impact audit needs.

The one command that reads no file: its options are the keyword parameters of
:func:`polars_fair.analyses.sample_size.sample_size`, read from its declaration as the generated
commands read theirs (:mod:`polars_fair.cli.commands`), and it writes the answer as a one-row
table in any output format.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer

from polars_fair._docs import borrow
from polars_fair.analyses.sample_size import sample_size
from polars_fair.cli.group import ReadableCommand
from polars_fair.cli.ll144 import register as register_ll144

__all__ = ["register", "sample_size_frame"]

#: The command's first help line (as :data:`polars_fair.cli.launch.COMMANDS` lists it).
HELP = "Applicants per group to detect an impact ratio with a two-sided two-proportion test."


def sample_size_frame(**options: Any) -> pl.DataFrame:
    """:func:`~polars_fair.analyses.sample_size.sample_size` as a one-row table.

    Parameters
    ----------
    **options
        The keyword arguments of :func:`~polars_fair.analyses.sample_size.sample_size`.

    Returns
    -------
    pl.DataFrame
        ``group``, ``reference`` (Int64 applicants), ``power`` (Float64, reached at them).

    Raises
    ------
    InvalidArgumentError, SizeLimitError
        As :func:`~polars_fair.analyses.sample_size.sample_size`.

    Examples
    --------
    >>> sample_size_frame(reference_rate=0.6, impact_ratio=0.5).rows()
    [(42, 42, 0.8019...)]
    """
    s = sample_size(**options)
    return pl.DataFrame({"group": [s.group], "reference": [s.reference], "power": [s.power]},
                        schema={"group": pl.Int64, "reference": pl.Int64, "power": pl.Float64})


@borrow(register_ll144, params=("app", "guard"))
def register(app: typer.Typer, guard: Callable[..., None]) -> None:
    """Add ``polars-fair sample-size`` to ``app``.

    Examples
    --------
    >>> from polars_fair.cli.entry import app
    >>> "sample-size" in [c.name for c in app.registered_commands]
    True
    """
    from polars_fair.cli.commands import _options_of, _parameter
    from polars_fair.cli.io import FLAGS, FORMATS, check_outputs, choices, emit

    opts = _options_of(sample_size, False, rows=True)  # its own options, no count arguments
    for o in opts:  # messages name the flags (impact_ratio=1 reads --impact-ratio 1)
        FLAGS.setdefault(o.name, o.flag)

    def command(**values: Any) -> None:
        def run() -> None:
            fmt = check_outputs(values["format"], values["output"])
            frame = sample_size_frame(**{o.name: values[o.name] for o in opts})
            emit(frame, fmt, values["output"], "polars-fair sample-size: applicants needed")

        guard(run, json_errors=values["format"] == "json")

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [_parameter(o) for o in opts] + [
        inspect.Parameter("format", kw, default="table", annotation=Annotated[
            choices(FORMATS), typer.Option(
                "--format", help=" | ".join(FORMATS) + " (default: the --output suffix, else "
                "table).", metavar="FORMAT")]),
        inspect.Parameter("output", kw, default=None, annotation=Annotated[
            Path | None, typer.Option(help="Write to this file.", metavar="FILE")]),
    ]
    command.__doc__ = (f"{HELP}\n\npolars_fair.sample_size(...): the Python API's function, "
                       "its options generated from the declaration.\n\nExample: polars-fair "
                       "sample-size --reference-rate 0.6 --impact-ratio 0.5 --method fisher")
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__name__ = "sample_size"
    app.command(name="sample-size", cls=ReadableCommand)(command)
