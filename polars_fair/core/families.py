"""Option families: the options several analyses take together, declared once.

Where a group of options travels together through several functions (the module function of an
analysis, its plan step, the variants on other tables), the group is one ``TypedDict``, as the
count arguments are (:class:`polars_fair.core.spec.CountArgs`). A function takes it as
``**options: Unpack[Family]``, so type checkers check each keyword, and :func:`takes` gives it
its runtime signature: the family's options spelled out as keyword-only parameters, typed, with
their defaults read from their one declaration (:data:`polars_fair.core.options.DEFAULTS`), so
``help()``, ``inspect.signature`` and the API reference show exactly what a signature written
out would show. A call is checked against that signature (an unknown or positional option is a
``TypeError``, as for any function) and the function receives every option of its family, the
defaults filled in.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypedDict, TypeVar

from polars_fair._docs import expand_signature
from polars_fair.core.options import DEFAULTS, Strategy

__all__ = ["BinOptions", "LL144Options", "ReportOptions", "SupportOptions", "takes"]

F = TypeVar("F", bound=Callable[..., Any])


class ReportOptions(TypedDict, total=False):
    """The options of the per-group report (``report``; ``sweep`` and ``thresholds`` per cut).

    ``reference``, ``min_support``, ``ofi_threshold``, ``four_fifths`` and
    ``exclude_low_support``, with the defaults of :class:`~polars_fair.core.options.Options`.

    Examples
    --------
    >>> options: ReportOptions = {"reference": "a", "min_support": 1}
    >>> list(ReportOptions.__annotations__)[:2]
    ['reference', 'min_support']
    """

    reference: Any
    min_support: float
    ofi_threshold: float
    four_fifths: float
    exclude_low_support: bool


class SupportOptions(TypedDict, total=False):
    """Which groups a rule may choose: ``min_support`` and ``exclude_low_support``.

    Taken by the gate's reference resolver (:mod:`polars_fair.audit.gate`), with the defaults
    of :class:`~polars_fair.core.options.Options`.

    Examples
    --------
    >>> options: SupportOptions = {"exclude_low_support": True}
    >>> list(SupportOptions.__annotations__)
    ['min_support', 'exclude_low_support']
    """

    min_support: float
    exclude_low_support: bool


class LL144Options(TypedDict, total=False):
    """The options of the NYC Local Law 144 bias audit (every ``bias_audit_*`` function).

    ``min_share`` (default :attr:`~polars_fair.core.options.Options.min_share`) and
    ``exclude_small`` (default :attr:`~polars_fair.core.options.Options.exclude_small`).

    Examples
    --------
    >>> options: LL144Options = {"min_share": 0.05}
    >>> sorted(LL144Options.__annotations__)
    ['exclude_small', 'min_share']
    """

    min_share: float
    exclude_small: bool


class BinOptions(TypedDict, total=False):
    """The binning of a calibration curve (``calibration`` and ``reliability``).

    ``n_bins`` (default :attr:`~polars_fair.core.options.Options.n_bins`) and ``strategy``
    (default :attr:`~polars_fair.core.options.Options.strategy`).

    Examples
    --------
    >>> options: BinOptions = {"n_bins": 5, "strategy": "quantile"}
    >>> sorted(BinOptions.__annotations__)
    ['n_bins', 'strategy']
    """

    n_bins: int
    strategy: Strategy


def _declared(family: type, fields: Mapping[str, str]) -> dict[str, tuple[Any, Any]]:
    """Option name -> (annotation text, default) of a family, in declaration order."""
    hints = inspect.get_annotations(family)
    return {name: (getattr(hint, "__forward_arg__", hint),
                   getattr(DEFAULTS, fields.get(name, name)))
            for name, hint in hints.items()}


def takes(family: type, *, after: str | None = None, **fields: str) -> Callable[[F], F]:
    """Declare that a function's ``**options`` are the options of ``family``.

    Parameters
    ----------
    family : TypedDict class
        The options, as in the function's ``**options: Unpack[family]``.
    after : str, optional
        The parameter after which the options stand in the signature (default: after the
        function's other parameters).
    **fields : str
        An option whose default is a field of :class:`~polars_fair.core.options.Options` of
        another name (``min_support="divergence_min_support"``); the others have their own name.

    Returns
    -------
    callable
        A decorator: the function, with the options spelled out in its ``__signature__``, called
        with every option of the family (the defaults filled in).

    Raises
    ------
    TypeError
        At call time: an option the family does not hold, or a missing or extra positional
        argument (the message of :meth:`inspect.Signature.bind`).

    Examples
    --------
    >>> from typing import Unpack
    >>> @takes(BinOptions)
    ... def f(table, **options: Unpack[BinOptions]):
    ...     return options
    >>> print(inspect.signature(f))
    (table, *, n_bins: 'int' = 10, strategy: 'Strategy' = 'uniform')
    >>> f(None, n_bins=4)
    {'n_bins': 4, 'strategy': 'uniform'}
    """
    declared = _declared(family, fields)

    def deco(fn: F) -> F:
        sig = expand_signature(fn, declared)
        if after is not None:
            params = list(sig.parameters.values())
            own = [p for p in params if p.name not in declared]
            at = [p.name for p in own].index(after) + 1
            sig = sig.replace(parameters=[*own[:at], *(p for p in params if p.name in declared),
                                          *own[at:]])

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            return fn(*bound.args, **bound.kwargs)

        del run.__wrapped__
        run.__signature__ = sig  # type: ignore[attr-defined]
        # the annotations of the spelled-out signature (the command line reads them)
        run.__annotations__ = {p.name: p.annotation for p in sig.parameters.values()
                               if p.annotation is not p.empty}
        if sig.return_annotation is not sig.empty:
            run.__annotations__["return"] = sig.return_annotation
        return run  # type: ignore[return-value]

    return deco
