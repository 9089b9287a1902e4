"""Old module paths, importable for one release after the move into layered subpackages.

``import polars_fair.tables`` (or ``from polars_fair.report import report_from_counts``) still
works: it returns the module at its new path (the same module object, so patching it patches the
code) and warns ``DeprecationWarning`` naming the new path. The public paths that the docs name
(``polars_fair.spark``, ``duckdb``, ``plot``, ``html``, ``power``, ``divergence``, ``pairwise``,
``bias_audit``, ``expressions``, ``datasets``, ``errors``) are real modules and do not warn.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from collections.abc import Sequence
from types import ModuleType

__all__ = ["MOVED", "install"]

#: old module name (under ``polars_fair.``) -> its path now; removed in 0.3.
MOVED: dict[str, str] = {
    "docs": "_docs", "progress": "_progress",
    "spec": "core.spec", "registry": "core.registry", "rules": "core.rules",
    "reference": "core.reference", "stats": "core.stats", "sql": "core.sql",
    "boundary": "counting.boundary", "tables": "counting.tables",
    "report": "analyses.report", "summary": "analyses.summary",
    "uncertainty": "analyses.uncertainty",
    "thresholds": "analyses.thresholds", "sweep": "analyses.sweep", "runner": "analyses.runner",
    "scoreview": "analyses.scores.scoreview", "roc": "analyses.scores.roc",
    "abroca": "analyses.scores.abroca", "permutation": "analyses.scores.permutation",
    "null_kernel": "analyses.scores.null_kernel", "calibration": "analyses.scores.calibration",
    "analysis": "api.objects", "external": "api.external", "namespace": "api.namespace",
    "shortcuts": "api.shortcuts",
    "gate": "audit.gate", "style": "audit.style",
    "cli_gen": "cli.commands", "cli_io": "cli.io", "cli_table": "cli.table",
    "cli_ll144": "cli.ll144",
}
MOVED_MESSAGE = ("polars_fair.{old} moved to polars_fair.{new}; import it from there "
                 "(the old path is removed in 0.3)")


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``polars_fair.<old>`` and loads it as the module at its new path, with a warning."""

    def __init__(self) -> None:
        self._specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """The spec of an old path (``None`` for any other name)."""
        package, _, old = fullname.rpartition(".")
        if package != "polars_fair" or old not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        """The module at the new path, after a ``DeprecationWarning``."""
        old = spec.name.rpartition(".")[2]
        warnings.warn(MOVED_MESSAGE.format(old=old, new=MOVED[old]), DeprecationWarning,
                      stacklevel=2)
        module = importlib.import_module(f"polars_fair.{MOVED[old]}")
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run; gives the module back its own spec, which the import system replaced."""
        module.__spec__ = self._specs[module.__name__]


def install() -> None:
    """Put the finder of old paths on ``sys.meta_path`` once (``import polars_fair`` does).

    Examples
    --------
    >>> import sys, warnings
    >>> install()
    >>> _ = sys.modules.pop("polars_fair.report", None)  # as in a fresh process
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     from polars_fair.report import report_from_counts
    >>> report_from_counts.__module__, caught[0].category.__name__
    ('polars_fair.analyses.report', 'DeprecationWarning')
    """
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
