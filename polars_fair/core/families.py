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
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypedDict, TypeVar

from polars_fair._docs import expand_signature
from polars_fair.core.options import DEFAULTS, Adjust, Practical, Strategy, SummaryMethod, Test

__all__ = [
    "BinOptions",
    "DisparityOptions",
    "ImpactOptions",
    "LL144Options",
    "ReportOptions",
    "SummaryOptions",
    "SupportOptions",
    "takes",
]

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


class SummaryOptions(TypedDict, total=False):
    """The options of the fairness summaries (``summary``).

    ``method``, ``reference``, ``min_support``, ``exclude_low_support``, ``four_fifths`` and
    ``ofi_threshold``, with the defaults of :class:`~polars_fair.core.options.Options`.

    Examples
    --------
    >>> options: SummaryOptions = {"method": "to_reference", "reference": "a"}
    >>> list(SummaryOptions.__annotations__)[:2]
    ['method', 'reference']
    """

    method: SummaryMethod
    reference: Any
    min_support: float
    exclude_low_support: bool
    four_fifths: float
    ofi_threshold: float


class DisparityOptions(TypedDict, total=False):
    """The options of the disparity table (``disparity``).

    ``reference``, ``metric``, ``level``, ``test`` and ``adjust``, with the defaults of
    :class:`~polars_fair.core.options.Options`.

    Examples
    --------
    >>> options: DisparityOptions = {"metric": "tpr", "test": "fisher"}
    >>> list(DisparityOptions.__annotations__)
    ['reference', 'metric', 'level', 'test', 'adjust']
    """

    reference: Any
    metric: str
    level: float
    test: Test
    adjust: Adjust


class ImpactOptions(TypedDict, total=False):
    """The options of the adverse-impact analysis (``impact_analysis``).

    ``reference``, ``four_fifths``, ``level``, ``practical``, ``min_difference`` and
    ``min_support``, with the defaults of :class:`~polars_fair.core.options.Options`.

    Examples
    --------
    >>> options: ImpactOptions = {"practical": "difference", "min_difference": 0.05}
    >>> list(ImpactOptions.__annotations__)[-3:]
    ['practical', 'min_difference', 'min_support']
    """

    reference: Any
    four_fifths: float
    level: float
    practical: Practical
    min_difference: float
    min_support: float


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

    ``min_share`` (default :attr:`~polars_fair.core.options.Options.min_share`),
    ``exclude_small`` (default :attr:`~polars_fair.core.options.Options.exclude_small`),
    ``min_support`` (default :attr:`~polars_fair.core.options.Options.min_support`: the
    support rule of ``report``, which a benchmark category must meet) and ``plain_benchmark``
    (default :attr:`~polars_fair.core.options.Options.plain_benchmark`).

    Examples
    --------
    >>> options: LL144Options = {"min_share": 0.05}
    >>> sorted(LL144Options.__annotations__)
    ['exclude_small', 'min_share', 'min_support', 'plain_benchmark']
    """

    min_share: float
    exclude_small: bool
    min_support: float
    plain_benchmark: bool


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


def _declared(family: type, defaults: Mapping[str, Any] | None) -> dict[str, tuple[Any, Any]]:
    """Option name -> (annotation text, default) of a family, in declaration order."""
    given = defaults or {}
    return {name: (getattr(hint, "__forward_arg__", hint),
                   given[name] if name in given else getattr(DEFAULTS, name))
            for name, hint in inspect.get_annotations(family).items()}


def takes(family: type, *, after: str | None = None,
          defaults: Mapping[str, Any] | None = None) -> Callable[[F], F]:
    """Declare that a function's ``**options`` are the options of ``family``.

    Parameters
    ----------
    family : TypedDict class
        The options, as in the function's ``**options: Unpack[family]``; each one's default is
        the field of the same name of :class:`~polars_fair.core.options.Options`.
    after : str, optional
        The parameter after which the options stand in the signature (default: after the
        function's other parameters).
    defaults : mapping, optional
        The defaults of options that are not fields of the same name of
        :class:`~polars_fair.core.options.Options` (the divergence's ``metric`` is the field
        ``divergence_metric``), declared once beside their family.

    Returns
    -------
    callable
        A decorator: the function, with the options spelled out in its ``__signature__`` and
        ``__annotations__``, called with every option of the family (the defaults filled in).

    Raises
    ------
    TypeError
        At call time, a keyword that is neither a parameter nor an option of the family, with
        Python's own message for it.

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
    declared = _declared(family, defaults)
    defaults = {name: default for name, (_, default) in declared.items()}
    hints = typing.get_type_hints(family)

    def deco(fn: F) -> F:
        sig = expand_signature(fn, declared)
        if after is not None:
            params = list(sig.parameters.values())
            own = [p for p in params if p.name not in declared]
            at = [p.name for p in own].index(after) + 1
            sig = sig.replace(parameters=[*own[:at], *(p for p in params if p.name in declared),
                                          *own[at:]])
        named = {p.name for p in sig.parameters.values()
                 if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            for name in kwargs:
                if name not in named:  # **options would take it silently
                    raise TypeError(
                        f"{fn.__qualname__}() got an unexpected keyword argument {name!r}")
            return fn(*args, **{**defaults, **kwargs})

        del run.__wrapped__
        run.__signature__ = sig  # type: ignore[attr-defined]
        # the spelled-out parameters' annotations (the command line reads them), evaluated
        run.__annotations__ = {**{k: v for k, v in fn.__annotations__.items()
                                  if k != _var_keyword(fn)}, **hints}
        return run  # type: ignore[return-value]

    return deco


def _var_keyword(fn: Callable[..., Any]) -> str:
    """The name of ``fn``'s ``**kwargs`` (its spelled-out signature has none)."""
    return next(p.name for p in inspect.signature(fn).parameters.values()
                if p.kind is p.VAR_KEYWORD)
