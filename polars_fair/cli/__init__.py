"""The ``polars-fair`` command line.

:mod:`~polars_fair.cli.launch` is the entry point (``polars_fair.cli.main``: ``--help`` and an
unknown command without importing Polars), :mod:`~polars_fair.cli.entry` holds the app (read
lazily so that importing this package costs nothing), :mod:`~polars_fair.cli.commands` the
commands generated from the analyses' declarations, :mod:`~polars_fair.cli.io` reading files, the
SQL options and the output formats, :mod:`~polars_fair.cli.table` the terminal table and
:mod:`~polars_fair.cli.ll144` the NYC Local Law 144 summary of results.
"""

from __future__ import annotations

from typing import Any

__all__ = ["app", "main"]


def main() -> None:
    """The console entry point (:func:`polars_fair.cli.launch.main`).

    ``--help`` and an unknown command are answered without importing Polars; every other
    command runs in :mod:`polars_fair.cli.entry`.

    Raises
    ------
    SystemExit
        The command's exit code.

    Examples
    --------
    >>> callable(main)
    True
    """
    from polars_fair.cli import launch

    launch.main()


def __getattr__(name: str) -> Any:
    """``app`` (the Typer app), imported on first use."""
    if name == "app":
        from polars_fair.cli import entry

        return entry.app
    raise AttributeError(f"module 'polars_fair.cli' has no attribute {name!r}")
