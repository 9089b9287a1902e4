"""The multiclass methods of the ``fair`` namespace: ``lf.fair.class_counts`` and its analyses.

Sugar over :class:`polars_fair.api.classes.FairClassCounts`, as the rest of the namespace is
over the count and score objects: ``lf.fair.multiclass_report(by, ..., **class_args)`` is
``lf.fair.class_counts(by, **class_args).multiclass_report(...)``. A base class of
:class:`polars_fair.api.namespace.FairLazyFrame`, kept in its own module; the DataFrame twins
are made in the namespace module with the others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Unpack

import polars as pl

from polars_fair._docs import compose
from polars_fair.analyses.multiclass import (
    N_DRAWS,
    multiclass_report_from_classes,
    multiclass_test_from_classes,
)
from polars_fair.api import classes as _classes
from polars_fair.api.classes import FairClassCounts
from polars_fair.core import spec
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import By
from polars_fair.counting.classes import CLASS_ARGS_DOC, ClassArgs, spell_out_classes

__all__ = ["ClassNamespace"]

_SETS_DOC = """combinations : "all", optional
    Every non-empty subset of ``by``, one test each.
max_order : int, optional
    The largest subset with ``combinations="all"``."""


def _class_doc(source: Callable[..., Any], example: str, *, sets: bool = False) -> str:
    """A multiclass namespace method's docstring, from its analysis."""
    return compose(source.__doc__ or "",
                   drop=("table", "keys", "sets", "classes", "names", "order"),
                   before=spec.BY_DOC + ("\n" + _SETS_DOC if sets else ""),
                   after=CLASS_ARGS_DOC, raises=spec.INPUT_ERRORS_DOC, example=example,
                   returns="pl.LazyFrame")



class ClassNamespace:
    """The multiclass methods of ``lf.fair`` (a base of :class:`FairLazyFrame`).

    Parameters
    ----------
    lf : pl.LazyFrame
        The rows to audit.

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> lf = pl.LazyFrame({"g": ["a", "b"], "risk": ["Low", "High"]})
    >>> isinstance(lf.fair, ClassNamespace)
    True
    """

    def __init__(self, lf: pl.LazyFrame) -> None:
        self._lf = lf

    def class_counts(self, by: By = None,
                     **class_args: Unpack[ClassArgs]) -> FairClassCounts:
        """The class table of the rows, from one scan, with every multiclass analysis.

        Parameters
        ----------
        by : str, pl.Expr or list of them, optional
            The attributes (several = their intersection).
        y_pred : str or pl.Expr, default "y_pred"
            The predicted class.
        y_true : str or pl.Expr, optional
            The true class.
        classes : sequence, optional
            Every class, in order.
        sample_weight : str or pl.Expr, optional
            A numeric weight per row.
        null_groups : {"keep", "raise", "drop"}, default "keep"
            Rows whose attribute is null.
        max_groups : int, default 10000
            The size limit of the tables made from it.

        Returns
        -------
        FairClassCounts
            See :func:`polars_fair.class_counts`.

        Raises
        ------
        ColumnNotFoundError, InvalidArgumentError, InvalidLabelError
            As :func:`polars_fair.class_counts`.

        Examples
        --------
        >>> import polars as pl, polars_fair
        >>> lf = pl.LazyFrame({"g": ["a", "b"], "risk": ["Low", "High"]})
        >>> lf.fair.class_counts("g", y_pred="risk").frame.collect()["n"].to_list()
        [1, 1]
        """
        return _classes.class_counts(self._lf, by, **class_args)

    class_counts = spell_out_classes(class_counts)

    def multiclass_report(  # noqa: D102  (composed below from the analysis)
            self, by: By = None, *, ordered: bool = False, reference: Any = DEFAULTS.reference,
            min_support: float = DEFAULTS.min_support, four_fifths: float = DEFAULTS.four_fifths,
            combinations: Any = None, max_order: int | None = None,
            **class_args: Unpack[ClassArgs]) -> pl.LazyFrame:
        nested = isinstance(by, (list, tuple)) and any(isinstance(b, (list, tuple)) for b in by)
        if not nested:  # one scan at the finest groups; every set is a roll-up of it
            return self.class_counts(by, **class_args).multiclass_report(
                ordered=ordered, reference=reference, min_support=min_support,
                four_fifths=four_fifths, combinations=combinations, max_order=max_order)
        sets = spec.parse_by(by)  # several sets named: count their union once
        table = self.class_counts(list(sets.items), **class_args)
        return table.multiclass_report(
            [list(s) for s in sets.sets or []], ordered=ordered,
            reference=reference, min_support=min_support, four_fifths=four_fifths,
            combinations=combinations, max_order=max_order)

    def multiclass_test(  # noqa: D102  (composed below from the analysis)
            self, by: By = None, *, combinations: Any = None, max_order: int | None = None,
            n_permutations: int = N_DRAWS, seed: int | None = DEFAULTS.seed,
            **class_args: Unpack[ClassArgs]) -> pl.LazyFrame:
        return self.class_counts(by, **class_args).multiclass_test(
            combinations=combinations, max_order=max_order, n_permutations=n_permutations,
            seed=seed)

    multiclass_report.__doc__ = _class_doc(multiclass_report_from_classes, """\
>>> import polars as pl, polars_fair
>>> lf = pl.LazyFrame({"g": ["a", "a", "b", "b"], "risk": ["Low", "High", "Low", "Low"]})
>>> out = lf.fair.multiclass_report("g", y_pred="risk", min_support=1).collect()
>>> out.select("g", "class", "selection_rate").rows()
[('a', 'High', 0.5), ('a', 'Low', 0.5), ('b', 'High', 0.0), ('b', 'Low', 1.0)]""", sets=True)
    multiclass_report = spell_out_classes(multiclass_report)
    multiclass_test.__doc__ = _class_doc(multiclass_test_from_classes, """\
>>> import polars as pl, polars_fair
>>> lf = pl.LazyFrame({"g": ["a", "a", "b", "b"], "risk": ["Low", "High", "Low", "Low"]})
>>> lf.fair.multiclass_test("g", y_pred="risk").collect()["method"].to_list()
['monte carlo']""", sets=True)
    multiclass_test = spell_out_classes(multiclass_test)
