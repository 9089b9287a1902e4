"""The ``polars-fair`` command line.

:mod:`~polars_fair.cli.entry` holds the app and its entry point (``polars_fair.cli.main``, read
lazily so that importing this package costs nothing), :mod:`~polars_fair.cli.commands` the
commands generated from the analyses' declarations, :mod:`~polars_fair.cli.io` reading files, the
SQL options and the output formats, :mod:`~polars_fair.cli.table` the terminal table and
:mod:`~polars_fair.cli.ll144` the NYC Local Law 144 summary of results.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "main"]


def __getattr__(name: str) -> Any:
    """``app`` (the Typer app) and ``main`` (the console entry point), imported on first use."""
    if name in __all__:
        from polars_fair.cli import entry

        return getattr(entry, name)
    raise AttributeError(f"module 'polars_fair.cli' has no attribute {name!r}")
