"""The ``polars-fair`` console script: the answers that need no Polars come before Polars.

Importing any module of :mod:`polars_fair` runs the package's ``__init__`` first, which imports
Polars and the API (about 0.2 s) so that ``df.fair`` exists. The command line's ``--help`` and
its usage errors need neither, so the console script lives outside the package: :func:`main`
lets :func:`polars_fair.cli.launch.answer` run against a shell of the package (its modules
found on disk, ``polars_fair/__init__`` not run), and when the launcher cannot answer alone,
drops the shell and runs the command in the real package (:func:`polars_fair.cli.launch.main`).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["main"]

_SHELLED = ("polars_fair", "polars_fair.cli")


@contextmanager
def _shell() -> Iterator[None]:
    """``polars_fair`` and ``polars_fair.cli`` as bare packages for the block, then gone.

    Their submodules import from disk as usual; every ``polars_fair`` module imported in the
    block is dropped afterwards, so the real package is imported afresh (its ``__init__`` run)
    by whatever comes next.
    """
    if "polars_fair" in sys.modules:  # the real package is there already: use it
        yield
        return
    spec = importlib.util.find_spec("polars_fair")
    assert spec is not None and spec.submodule_search_locations is not None
    root = list(spec.submodule_search_locations)
    for name, path in zip(_SHELLED, (root, [os.path.join(p, "cli") for p in root]), strict=True):
        shell = types.ModuleType(name)
        shell.__path__ = path
        shell.__package__ = name
        sys.modules[name] = shell
    try:
        yield
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] == "polars_fair"]:
            del sys.modules[name]


def main() -> None:
    """Run ``polars-fair``: help and usage errors without Polars, then the command.

    Raises
    ------
    SystemExit
        The command's exit code: 0 for ``--help``, 2 for a usage error, else the command's.

    Examples
    --------
    >>> import contextlib, io, sys
    >>> argv, sys.argv = sys.argv, ["polars-fair", "raport"]
    >>> try:
    ...     with contextlib.redirect_stderr(sys.stdout):
    ...         main()
    ... except SystemExit as done:
    ...     print("exit code", done.code)
    ... finally:
    ...     sys.argv = argv
    polars-fair: error: no such command 'raport'. Did you mean 'report'?
    exit code 2
    """
    args = sys.argv[1:]
    with _shell():
        from polars_fair.cli.launch import answer

        answer(args)  # exits when it answers alone
    from polars_fair.cli.launch import main as run

    run(args)
