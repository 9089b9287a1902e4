"""Shortcuts for an engine: one function per analysis, ``name(frame, by, ...)``, collected.

Generated from the analysis objects (:class:`~polars_fair.api.objects.FairCounts`,
:class:`~polars_fair.api.objects.FairScores`), so that an engine module
(:mod:`polars_fair.counting._spark`) offers every analysis without writing any of them again:
``report(frame, by, **args)`` is ``polars_fair.counts(engine(frame), by,
**count_args).report(**options).collect()``. The count or score arguments and the analysis' own
options are told apart by the declarations in :mod:`polars_fair.core.spec`; signatures and
docstrings are composed from the methods.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import compose
from polars_fair.api import continuous as _continuous
from polars_fair.api import objects as analysis
from polars_fair.api import rows as _ll144
from polars_fair.api.classes import FairClassCounts, class_counts
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import (
    COUNT_ARGS,
    COUNT_ARGS_DOC,
    DEFAULT_MAX_GROUPS,
    SCORE_ARGS,
    SCORE_ARGS_DOC,
    refuse_membership,
)
from polars_fair.counting.classes import CLASS_ARGS, CLASS_ARGS_DOC

__all__ = ["make_shortcuts", "shortcut_names"]

Factory = Callable[..., Any]


def _public(cls: type) -> list[str]:
    return [n for n, v in vars(cls).items() if callable(v) and not n.startswith("_")]


def shortcut_names() -> list[str]:
    """The names of the shortcuts :func:`make_shortcuts` makes.

    Returns
    -------
    list of str
        Every public analysis of the count and score objects, ``confusion`` and ``scores``
        (the tables), ``continuous_report`` (:class:`~polars_fair.api.continuous.FairMoments`)
        and the multiclass analyses of :class:`~polars_fair.api.classes.FairClassCounts`.

    Examples
    --------
    >>> "report" in shortcut_names() and "abroca" in shortcut_names()
    True
    """
    return list(dict.fromkeys(
        [*_public(analysis.FairCounts), *_public(analysis.FairScores), "scores",
         *_public(_continuous.FairMoments), "multiclass_report", "multiclass_test"]))


def _shortcut(name: str, on_scores: bool, factory: Factory, frame: str, engine: str,
              rounding: bool) -> Callable[..., pl.DataFrame]:
    declared = SCORE_ARGS if on_scores else COUNT_ARGS
    owner = analysis.FairScores if on_scores else analysis.FairCounts

    def shortcut(rows: Any, by: Any = None, *, round_scores: int | None = None,
                 **kwargs: Any) -> pl.DataFrame:
        if on_scores:  # the score table counts each row in one group: say so, once
            refuse_membership(kwargs, "a score analysis", "score table")
        # an analysis without attribute sets (divergence) has a max_order of its own
        table_args = {k: v for k, v in kwargs.items() if k in declared and (
            k != "max_order" or name == "frame"
            or "combinations" in inspect.signature(getattr(owner, name)).parameters)}
        options = {k: v for k, v in kwargs.items() if k not in table_args}
        if on_scores:
            obj: Any = analysis.scores(factory(rows, round_scores), by, **table_args)
        else:
            if round_scores is not None:
                raise E.InvalidArgumentError("round_scores= goes with score-based analyses")
            obj = analysis.counts(factory(rows), by, **table_args)
        out = (obj.frame if name == "frame" else getattr(obj, name)(**options)).collect()
        assert isinstance(out, pl.DataFrame)
        return out

    public = {"frame": "scores" if on_scores else "confusion"}.get(name, name)
    kw = inspect.Parameter.KEYWORD_ONLY
    # a second positional option of the method (strata, benchmark) is a keyword here
    own = [p.replace(kind=kw) for p in inspect.signature(getattr(owner, name)).parameters.values()
           if (p.kind is kw or (p.kind is p.POSITIONAL_OR_KEYWORD and p.name not in ("self", "by")))
           and p.name not in ("combinations", "max_order")] if name != "frame" else []
    table_params = [inspect.Parameter(k, kw, default=v) for k, v in declared.items()]
    rounds = [inspect.Parameter("round_scores", kw, default=None)] if on_scores and rounding \
        else []
    lead = [inspect.Parameter(frame, inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("by", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
    shortcut.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*lead, *own, *rounds, *table_params], return_annotation="pl.DataFrame")
    shortcut.__name__ = shortcut.__qualname__ = public
    table = "score table" if on_scores else "count table"
    head = (f"The {table} of a {engine} DataFrame: ``polars_fair."
            f"{'scores' if on_scores else 'counts'}({frame}, by, ...).frame``, collected.\n\n"
            f"Returns\n-------\npl.DataFrame\n    The public {table} schema (the documentation's "
            f"engines guide, ``docs/guide/engines.md``, \"Count tables\").")
    source = getattr(owner, name, None)
    shortcut.__doc__ = compose(
        (source.__doc__ if source is not None and name != "frame" else head) or head,
        drop=("by", "combinations", "max_order", "score_dtype"),
        before=f"""{frame} : {engine} DataFrame
    The rows; only the label table leaves {engine}.
by : str, a {engine} column or a list of them, optional
    The attributes.""",
        after=(f"round_scores : int, optional\n    Round scores in {engine} before counting.\n"
               if rounds else "") + (SCORE_ARGS_DOC if on_scores else COUNT_ARGS_DOC),
        example=f""">>> {public}({frame}, "race")  # doctest: +SKIP""",
        returns="pl.DataFrame",
    )
    return shortcut


def _bias_audit(factory: Factory, frame: str, engine: str) -> Callable[..., pl.DataFrame]:
    def bias_audit(rows: Any, categories: Any, *, y_pred: Any = None, y_score: Any = None,
                   pos_label: Any = None, sample_weight: Any = None,
                   min_share: float = DEFAULTS.min_share,
                   exclude_small: bool = DEFAULTS.exclude_small, classes: Any = None,
                   plain_benchmark: bool = DEFAULTS.plain_benchmark,
                   min_support: float = DEFAULTS.min_support,
                   round_scores: int | None = None, membership: Any = None,
                   membership_estimator: Any = "weighted",
                   normalize: bool = False,
                   max_groups: int = DEFAULT_MAX_GROUPS) -> pl.DataFrame:
        # both objects have bias_audit: the rows' entry point picks counts or scores
        out = _ll144.bias_audit(
            factory(rows, round_scores), categories, y_pred=y_pred, y_score=y_score,
            pos_label=pos_label, sample_weight=sample_weight, min_share=min_share,
            exclude_small=exclude_small, classes=classes, membership=membership,
            membership_estimator=membership_estimator, normalize=normalize,
            max_groups=max_groups, plain_benchmark=plain_benchmark,
            min_support=min_support).collect()
        assert isinstance(out, pl.DataFrame)
        return out

    sig = inspect.signature(bias_audit)
    params = list(sig.parameters.values())
    bias_audit.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[params[0].replace(name=frame), *params[1:]])
    bias_audit.__doc__ = compose(
        _ll144.bias_audit.__doc__ or "", drop=("frame",),
        before=f"{frame} : {engine} DataFrame\n    The applicants; only the label table leaves.",
        after=(f"round_scores : int, optional\n"
               f"    With ``y_score``: round scores in {engine} first.\n"),
        example=f""">>> bias_audit({frame}, ["sex", "race"], y_pred="hired")  # doctest: +SKIP""",
        returns="pl.DataFrame",
    )
    return bias_audit


def _continuous_report(factory: Factory, frame: str,
                       engine: str) -> Callable[..., pl.DataFrame]:
    owner = _continuous.FairMoments.continuous_report

    def continuous_report(rows: Any, by: Any = None, **kwargs: Any) -> pl.DataFrame:
        table = {k: kwargs.pop(k) for k in ("y_pred", "y_true", "sample_weight", "null_groups",
                                            "membership") if k in kwargs}
        out = _continuous.moments(factory(rows), by, **table).continuous_report(**kwargs)
        collected = out.collect()
        assert isinstance(collected, pl.DataFrame)
        return collected

    kw = inspect.Parameter.KEYWORD_ONLY
    own = [p for p in inspect.signature(owner).parameters.values() if p.kind is kw]
    table_params = [inspect.Parameter(k, kw, default=v) for k, v in (
        ("y_pred", None), ("y_true", None), ("sample_weight", None), ("null_groups", "keep"))]
    lead = [inspect.Parameter(frame, inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("by", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
    continuous_report.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*lead, *table_params, *own], return_annotation="pl.DataFrame")
    continuous_report.__doc__ = compose(
        owner.__doc__ or "", drop=("by",),
        before=f"""{frame} : {engine} DataFrame
    The rows; only the moment table leaves {engine}.
by : str, a {engine} column or a list of them, optional
    The attributes.""",
        after=_continuous.MOMENT_ARGS_DOC,
        example=f""">>> continuous_report({frame}, "race", y_pred="rate")  # doctest: +SKIP""",
        returns="pl.DataFrame",
    )
    return continuous_report



def _class_shortcut(name: str, factory: Factory, frame: str,
                    engine: str) -> Callable[..., pl.DataFrame]:
    """A multiclass analysis (:class:`~polars_fair.api.classes.FairClassCounts`) as a shortcut."""
    method = getattr(FairClassCounts, name)
    own = [p for p in inspect.signature(method).parameters.values()
           if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in CLASS_ARGS]

    def shortcut(rows: Any, by: Any = None, **kwargs: Any) -> pl.DataFrame:
        refuse_membership(kwargs, f"a class analysis ({name})", "class table")
        table_args = {k: v for k, v in kwargs.items() if k in CLASS_ARGS}
        options = {k: v for k, v in kwargs.items() if k not in CLASS_ARGS}
        obj = class_counts(factory(rows), by, **table_args)
        out = getattr(obj, name)(**options).collect()
        assert isinstance(out, pl.DataFrame)
        return out

    kw = inspect.Parameter.KEYWORD_ONLY
    lead = [inspect.Parameter(frame, inspect.Parameter.POSITIONAL_OR_KEYWORD),
            inspect.Parameter("by", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
    table_params = [inspect.Parameter(k, kw, default=v) for k, v in CLASS_ARGS.items()]
    shortcut.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*lead, *own, *table_params], return_annotation="pl.DataFrame")
    shortcut.__name__ = shortcut.__qualname__ = name
    shortcut.__doc__ = compose(
        method.__doc__ or "", drop=("by", "classes"),
        before=f"""{frame} : {engine} DataFrame
    The rows; only the class table leaves {engine}.
by : str, a {engine} column or a list of them, optional
    The attributes.""",
        after=CLASS_ARGS_DOC,
        example=f""">>> {name}({frame}, "race", y_pred="risk")  # doctest: +SKIP""",
        returns="pl.DataFrame",
    )
    return shortcut


def make_shortcuts(factory: Factory, *, frame: str, engine: str, rounding: bool = False,
                   module: str | None = None) -> dict[str, Callable[..., pl.DataFrame]]:
    """One collected shortcut per analysis, for an engine's module.

    Parameters
    ----------
    factory : callable
        ``factory(rows, round_scores=None)`` returns the engine over the rows.
    frame : str
        The name of the rows' parameter (``spark_df``).
    engine : str
        The engine's name, for the docstrings.
    rounding : bool, default False
        Whether score shortcuts take ``round_scores=``.
    module : str, optional
        The module the shortcuts belong to (``__module__``, for ``help()`` and doc tools).

    Returns
    -------
    dict of str to callable
        :func:`shortcut_names` to the shortcuts.

    Examples
    --------
    >>> from polars_fair.counting.tables import PolarsEngine
    >>> cuts = make_shortcuts(lambda rows, r=None: PolarsEngine(rows.lazy()), frame="df",
    ...                       engine="Polars")
    >>> df = pl.DataFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 1]})
    >>> cuts["rates"](df, "g")["selection_rate"].to_list()
    [1.0, 1.0]
    """
    out: dict[str, Callable[..., pl.DataFrame]] = {}
    for name in _public(analysis.FairCounts):
        out[name] = _shortcut(name, False, factory, frame, engine, rounding)
    for name in _public(analysis.FairScores):
        out[name] = _shortcut(name, True, factory, frame, engine, rounding)
    out["scores"] = _shortcut("frame", True, factory, frame, engine, rounding)
    out["bias_audit"] = _bias_audit(factory, frame, engine)
    out["continuous_report"] = _continuous_report(factory, frame, engine)
    for name in ("multiclass_report", "multiclass_test"):
        out[name] = _class_shortcut(name, factory, frame, engine)
    for name, fn in out.items():
        fn.__qualname__ = name
        if module is not None:
            fn.__module__ = module
    return out
