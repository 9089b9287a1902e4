"""Heavy dependencies imported on first use, so that ``import polars_fair`` stays cheap.

``import polars_fair`` registers the ``fair`` namespace and must cost little after ``import
polars`` (issue 13: at most 0.1 s). numpy (about 50 ms), scipy.stats (about 0.5 s) and tqdm are
needed only by some calls (scipy.special, about 0.2 s, holds the normal quantile and tail
that the intervals and z-tests need without scipy.stats), so the modules import them from
here: ``from polars_fair._lazy import np`` is the numpy module for the type checker, and at
run time a stand-in that imports numpy on the first attribute read (``np.asarray``), then
behaves as the module (each attribute is read from the real module once and cached).

Polars itself imports numpy lazily too, and it checks ``sys.modules`` to learn whether numpy
is loaded; the stand-ins are never put in ``sys.modules``, so that check stays true.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

__all__ = ["LazyModule", "is_numpy", "np", "npt", "special", "sps"]


class LazyModule(types.ModuleType):
    """A module imported on the first attribute read.

    Parameters
    ----------
    name : str
        The module's import name (``"numpy"``, ``"scipy.stats"``).

    Examples
    --------
    >>> m = LazyModule("fractions")
    >>> m.Fraction(1, 2)
    Fraction(1, 2)
    """

    def __init__(self, name: str) -> None:
        super().__init__(name)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # copy, pickle and doctest probe dunders: no import for them
            raise AttributeError(attr)
        value = getattr(importlib.import_module(self.__name__), attr)
        setattr(self, attr, value)  # read once: later reads are plain attribute lookups
        return value


def is_numpy(value: object, kind: str = "generic") -> bool:
    """Whether ``value`` is a numpy scalar of ``kind`` (``"generic"``, ``"integer"``, ...).

    Without importing numpy: a numpy scalar exists only once numpy is imported.

    Parameters
    ----------
    value : object
        Any value.
    kind : str, default "generic"
        The numpy scalar class, by name.

    Returns
    -------
    bool
        ``isinstance(value, numpy.<kind>)``; ``False`` while numpy is not imported.

    Examples
    --------
    >>> is_numpy(3), is_numpy(3.0, "floating")
    (False, False)
    """
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, getattr(numpy, kind))


if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import scipy.special as special
    import scipy.stats as sps
else:
    np = LazyModule("numpy")
    npt = LazyModule("numpy.typing")
    special = LazyModule("scipy.special")
    sps = LazyModule("scipy.stats")
