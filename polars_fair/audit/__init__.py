"""The audit surfaces: the CI gate, charts, styled tables and the HTML audit page.

Built on the objects of :mod:`polars_fair.api`; nothing below imports them.
"""

from __future__ import annotations


def __getattr__(name: str) -> object:
    """A module of the package on first access (``polars_fair.audit.gate``), loaded then.

    Examples
    --------
    >>> import polars_fair
    >>> polars_fair.audit.style.__name__
    'polars_fair.audit.style'
    """
    import importlib
    import pkgutil

    if name.startswith("_") or not any(m.name == name for m in pkgutil.iter_modules(__path__)):
        raise AttributeError(f"module 'polars_fair.audit' has no attribute {name!r}")
    return importlib.import_module(f"polars_fair.audit.{name}")
