"""The analysis options, declared once: each one's default, accepted values and meaning.

As the count arguments are declared once (:data:`polars_fair.core.spec.COUNT_ARGS`), every
option an analysis takes (``reference``, ``min_support``, ``four_fifths``, ``level``, ...) is one
field of :class:`Options`. A signature reads its default from :data:`DEFAULTS`
(``min_support: float = DEFAULTS.min_support``), so ``help()``, ``inspect.signature`` and the
command line (:mod:`polars_fair.cli.commands` reads signatures) show the one declared value.
Each field also states what the option accepts, in the manner of scikit-learn's
``validate_params`` (:class:`Interval`, :class:`Integer`, :class:`StrOptions`), and
:func:`check` checks a value against it (the numeric thresholds of the rules go through it).

A few options share a name but not a meaning: ``divergence``'s ``metric``, ``min_support`` (a
share of the rows, not a row count), ``adjust`` and ``strategy`` are the fields
``divergence_metric``, ``divergence_min_support``, ``divergence_adjust`` and
``divergence_strategy``; their :attr:`Declared.param` is the parameter name.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, TypeVar, get_args

from polars_fair._docs import parse
from polars_fair.core import rules as R
from polars_fair.core.spec import DEFAULT_MAX_GROUPS

__all__ = [
    "DEFAULTS",
    "Adjust",
    "BinStrategy",
    "Declared",
    "DivergenceAdjust",
    "Integer",
    "Interval",
    "Options",
    "Practical",
    "Strategy",
    "StrOptions",
    "SummaryMethod",
    "Test",
    "check",
    "declared",
]

T = TypeVar("T")

#: The choices of the string options (their :class:`StrOptions` are read from these).
Test = Literal["auto", "z", "fisher"]
Adjust = Literal["holm", "bh"]
SummaryMethod = Literal["between_groups", "to_reference", "to_overall"]
Strategy = Literal["uniform", "quantile"]
DivergenceAdjust = Literal["bh", "by", "holm"]
BinStrategy = Literal["auto", "finest", "levels"]
Practical = Literal["flip", "difference"]


@dataclass(frozen=True)
class Interval:
    """A real number in an interval (``None``: unbounded on that side, open there).

    Checked by :func:`polars_fair.core.rules.option`: NaN, infinities, strings and bools are
    refused with the option's name.

    Parameters
    ----------
    low, high : float, optional
        The bounds.
    low_open, high_open : bool, default False
        Whether a bound itself is outside the interval.

    Examples
    --------
    >>> str(Interval(0, 1, low_open=True))
    '(0, 1]'
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def __str__(self) -> str:
        """The interval as written in messages: ``[0, 2]``, ``(0, inf)``."""
        left = "(" if self.low_open or self.low is None else "["
        right = ")" if self.high_open or self.high is None else "]"
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"{left}{low}, {high}{right}"


@dataclass(frozen=True)
class Integer:
    """An integer (a Python or numpy integer, not a bool) of at least ``low``.

    Parameters
    ----------
    low : int, default 1
        The smallest accepted value.

    Examples
    --------
    >>> str(Integer(1))
    'integer >= 1'
    """

    low: int = 1

    def __str__(self) -> str:
        """``integer >= low``."""
        return f"integer >= {self.low}"


@dataclass(frozen=True)
class StrOptions:
    """One of a fixed set of strings.

    Parameters
    ----------
    values : tuple of str
        The accepted strings.

    Examples
    --------
    >>> str(StrOptions(("holm", "bh")))
    "{'holm', 'bh'}"
    """

    values: tuple[str, ...]

    @classmethod
    def of(cls, choices: Any) -> StrOptions:
        """The options of a ``Literal`` type.

        Parameters
        ----------
        choices : typing.Literal
            A ``Literal`` of strings.

        Returns
        -------
        StrOptions

        Examples
        --------
        >>> StrOptions.of(Adjust).values
        ('holm', 'bh')
        """
        return cls(tuple(get_args(choices)))

    def __str__(self) -> str:
        """The options as a set."""
        return "{" + ", ".join(repr(v) for v in self.values) + "}"


Constraint = Interval | Integer | StrOptions | None


def _option(default: T, accepts: Constraint = None, param: str | None = None) -> T:
    """A field of :class:`Options`: its default and what it accepts (its meaning: the docstring)."""
    meta = {"accepts": accepts, "param": param}
    return dataclasses.field(default=default, metadata=meta)


@dataclass(frozen=True)
class Options:
    """The options of the analyses, each declared once with its default.

    Read the defaults from :data:`DEFAULTS` and a declaration from :func:`declared`. The
    Parameters below are the one documentation of each option's meaning and limits.

    Parameters
    ----------
    reference : Any, default 'largest'
        The reference group: a rule (``largest``, ``max_selection_rate``, ``overall``;
        ``max_auc`` for scores), a group value or a mapping.
    min_support : int, default 30
        Groups with fewer rows are flagged ``low_support``. Accepts [0, inf).
    ofi_threshold : float, default 0.3
        ``|ofi|`` above it sets ``ofi_flag``. Accepts [0, 2].
    four_fifths : float, default 0.8
        The four-fifths rule: an impact ratio below it is adverse impact. Accepts (0,
        1].
    exclude_low_support : bool, default False
        Low-support groups cannot be the reference or the maximum.
    level : float, default 0.95
        The confidence level of intervals and tests. Accepts (0, 1).
    metric : str, default 'selection_rate'
        The proportion compared (``disparity``).
    test : {'auto', 'z', 'fisher'}, default 'auto'
        The test of a difference of proportions.
    adjust : {'holm', 'bh'}, default 'holm'
        The multiplicity adjustment of the p-values.
    method : {'between_groups', 'to_reference', 'to_overall'}, default 'between_groups'
        How the summary compares the groups.
    practical : {'flip', 'difference'}, default 'flip'
        The practical-significance rule of ``impact_analysis``: the one-person flip, or
        SolasAI's rate-difference rule.
    min_difference : float, default 0.0
        The rate difference SolasAI's practical-significance rule must exceed. Accepts [0, 1].
    continuity_correction : bool, default False
        Subtract 1/2 in the Cochran-Mantel-Haenszel statistic (``stratified``).
    metrics : tuple of str, default ('ofi', 'disparate_impact')
        The pairwise metrics.
    max_pairs : int, default 1000000
        The most ordered pairs of groups. Accepts integer >= 1.
    max_thresholds : int, default 10000
        The most thresholds of ``sweep`` and ``thresholds``. Accepts integer >= 1.
    max_groups : int, default 10000
        The most groups a table made by polars_fair may hold. Accepts integer >= 1.
    min_share : float, default 0.02
        Categories below this share of the rows are small. Accepts [0, 1].
    exclude_small : bool, default False
        Leave small categories out of the impact ratio.
    plain_benchmark : bool, default False
        LL 144's plain rule: any category may set the impact ratios' benchmark (by default only
        those with ``min_support`` rows may, when some have).
    pairwise : bool, default False
        ABROCA between every pair of groups.
    n_permutations : int, default 1000
        The permutations of the test. Accepts integer >= 1.
    seed : int or None, default None
        The random seed (``None``: fresh entropy).
    tolerance : float, default 1e-12
        Draws within it of the observed ABROCA count as at least as extreme. Accepts [0,
        inf).
    return_draws : bool, default False
        Return the permuted ABROCAs.
    progress : bool or None, default None
        Show a progress bar (``None``: when slow).
    n_bins : int, default 10
        The bins of the calibration curve. Accepts integer >= 1.
    strategy : {'uniform', 'quantile'}, default 'uniform'
        How the calibration bins are cut.
    divergence_metric : str, default 'fpr'
        The rate whose divergence is measured.
    divergence_min_support : float, default 0.01
        The smallest share of the rows a pattern may cover. Accepts (0, inf).
    min_denominator : int, default 30
        Patterns whose rate has a smaller denominator get no test. Accepts [0, inf).
    divergence_adjust : {'bh', 'by', 'holm'}, default 'bh'
        The multiplicity adjustment of the p-values.
    divergence_strategy : {'auto', 'finest', 'levels'}, default 'auto'
        How the attributes' levels are counted.
    max_patterns : int, default 1000000
        The most candidate patterns a divergence search may count. Accepts integer >= 1.

    Examples
    --------
    >>> DEFAULTS.reference, DEFAULTS.min_support, DEFAULTS.four_fifths
    ('largest', 30, 0.8)
    """

    # -- the reference group and the decision rules (report, summary, sweep, thresholds, gate)
    reference: Any = _option("largest")
    min_support: int = _option(30, Interval(0))
    ofi_threshold: float = _option(0.3, Interval(0, 2))
    four_fifths: float = _option(0.8, Interval(0, 1, low_open=True))
    exclude_low_support: bool = _option(False)
    # -- uncertainty (metrics, disparity)
    level: float = _option(0.95, Interval(0, 1, low_open=True, high_open=True))
    metric: str = _option("selection_rate")
    test: Test = _option("auto", StrOptions.of(Test))
    adjust: Adjust = _option("holm", StrOptions.of(Adjust))
    # -- summaries and pairs
    method: SummaryMethod = _option("between_groups", StrOptions.of(SummaryMethod))
    # -- adverse impact as practitioners run it (impact_analysis, stratified)
    practical: Practical = _option("flip", StrOptions.of(Practical))
    min_difference: float = _option(0.0, Interval(0, 1))
    continuity_correction: bool = _option(False)
    metrics: tuple[str, ...] = _option(("ofi", "disparate_impact"))
    max_pairs: int = _option(1_000_000, Integer(1))
    max_thresholds: int = _option(10_000, Integer(1))
    max_groups: int = _option(DEFAULT_MAX_GROUPS, Integer(1))
    # -- NYC Local Law 144
    min_share: float = _option(0.02, Interval(0, 1))
    exclude_small: bool = _option(False)
    plain_benchmark: bool = _option(False)
    # -- scores
    pairwise: bool = _option(False)
    n_permutations: int = _option(1000, Integer(1))
    seed: int | None = _option(None)
    tolerance: float = _option(1e-12, Interval(0))
    return_draws: bool = _option(False)
    progress: bool | None = _option(None)
    n_bins: int = _option(10, Integer(1))
    strategy: Strategy = _option("uniform", StrOptions.of(Strategy))
    # -- divergence (the worst-off subgroups): same names, other meanings
    divergence_metric: str = _option("fpr", param="metric")
    divergence_min_support: float = _option(0.01, Interval(0, low_open=True), param="min_support")
    min_denominator: int = _option(30, Interval(0))
    divergence_adjust: DivergenceAdjust = _option("bh", StrOptions.of(DivergenceAdjust),
                                                  param="adjust")
    divergence_strategy: BinStrategy = _option("auto", StrOptions.of(BinStrategy),
                                               param="strategy")
    max_patterns: int = _option(1_000_000, Integer(1))


#: The declared defaults: ``DEFAULTS.min_support`` is 30.
DEFAULTS = Options()


@dataclass(frozen=True)
class Declared:
    """One option as declared: its field, parameter name, default, constraint and meaning.

    Parameters
    ----------
    field : str
        The field of :class:`Options`.
    param : str
        The parameter name in signatures (``divergence_min_support`` -> ``min_support``).
    default : Any
        The default.
    accepts : Interval, Integer, StrOptions or None
        What the option accepts (``None``: checked by its analysis).
    doc : str
        Its meaning, from the Parameters of :class:`Options`.

    Examples
    --------
    >>> declared("divergence_min_support").param
    'min_support'
    """

    field: str
    param: str
    default: Any
    accepts: Constraint
    doc: str


def _docs_of(doc: str) -> dict[str, str]:
    """Option name -> its text in a numpydoc Parameters section."""
    out: dict[str, str] = {}
    name = ""
    for line in parse(doc)[1]["Parameters"].splitlines():
        if line and not line[0].isspace():
            name = line.split(" : ")[0]
            out[name] = ""
        else:
            out[name] = f"{out[name]} {line.strip()}".strip()
    return out


_DOCS = _docs_of(Options.__doc__ or "")
_DECLARED = {f.name: Declared(f.name, f.metadata["param"] or f.name, f.default,
                              f.metadata["accepts"], _DOCS[f.name])
             for f in dataclasses.fields(Options)}


def declared(name: str | None = None) -> Any:
    """The declaration of one option, or of all of them in declaration order.

    Parameters
    ----------
    name : str, optional
        A field of :class:`Options`; ``None`` for every declaration.

    Returns
    -------
    Declared or list of Declared

    Raises
    ------
    KeyError
        ``name`` is not a field of :class:`Options`.

    Examples
    --------
    >>> declared("level").default, str(declared("level").accepts)
    (0.95, '(0, 1)')
    >>> len(declared()) == len(dataclasses.fields(Options))
    True
    """
    if name is None:
        return list(_DECLARED.values())
    return _DECLARED[name]


def check(name: str, value: Any) -> Fraction:
    """A numeric option read exactly and checked against its declared :class:`Interval`.

    Parameters
    ----------
    name : str
        A field of :class:`Options` declared with an :class:`Interval`.
    value : Any
        The value passed.

    Returns
    -------
    Fraction
        The value as the exact decimal written (:func:`polars_fair.core.rules.exact`).

    Raises
    ------
    InvalidArgumentError
        Not a real number, NaN, infinite or outside the interval; the message names the
        parameter and shows the interval.

    Examples
    --------
    >>> check("four_fifths", 0.8)
    Fraction(4, 5)
    >>> check("divergence_min_support", 0)
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: min_support must lie in (0, inf), got 0
    """
    d = _DECLARED[name]
    assert isinstance(d.accepts, Interval), f"{name} is not declared with an Interval"
    iv = d.accepts
    return R.option(value, d.param, low=iv.low, high=iv.high, low_open=iv.low_open,
                    high_open=iv.high_open)
