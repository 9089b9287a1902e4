"""Every analysis of the objects reaches ``df.fair`` and ``lf.fair``, with the same options.

The namespace methods are written out (IDEs and type checkers see them; no ``__getattr__``), so
this test is what keeps them in step with :class:`FairCounts`, :class:`FairScores` and
:class:`FairMoments`: a public method added to any of them fails here until the namespace has it,
and a namespace method whose options differ from its object method's (a name, a default, a type)
fails too.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from polars_fair.api.classes import FairClassCounts
from polars_fair.api.compare import FairPaired
from polars_fair.api.continuous import FairMoments
from polars_fair.api.membership_calibration import FairCalibrationCounts
from polars_fair.api.monitor import FairPeriods
from polars_fair.api.namespace import FairDataFrame, FairLazyFrame
from polars_fair.api.objects import FairCounts, FairScores
from polars_fair.api.proxy_report import FairProxyCounts

#: Object methods whose namespace method reads the rows, not the table, so that its options
#: are not the object method's: ``bias_audit`` takes LL 144 categories and ``y_pred`` or
#: ``y_score``; ``divergence`` bins numeric attributes before counting.
ROWS_LEVEL = {"bias_audit", "divergence"}
#: Options of an object method that the namespace takes as count arguments.
COUNT_OPTIONS = {"by", "combinations", "max_order"}


def _public(cls: type) -> list[str]:
    return sorted(name for name, member in vars(cls).items()
                  if not name.startswith("_") and inspect.isfunction(member))


OBJECTS = {cls.__name__: cls for cls in (FairCounts, FairScores, FairMoments,
                                             FairClassCounts)}
METHODS = sorted({(m, name) for name, cls in OBJECTS.items() for m in _public(cls)})


@pytest.mark.parametrize("namespace", [FairLazyFrame, FairDataFrame])
@pytest.mark.parametrize(("method", "owner"), METHODS)
def test_every_public_method_of_the_objects_is_on_the_namespace(
    namespace: type, method: str, owner: str
) -> None:
    assert callable(getattr(namespace, method, None)), f"{namespace.__name__}.{method} missing"


def _options(fn: Any) -> dict[str, tuple[Any, Any, Any]]:
    # an option taken by position (df.fair.stratified(by, strata)) counts, and its kind with it:
    # a count table takes by position what the rows take by position (issue 23, second review)
    return {p.name: (p.default, p.annotation, p.kind)
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
            and p.name not in ("self", *COUNT_OPTIONS)}


@pytest.mark.parametrize("namespace", [FairLazyFrame, FairDataFrame])
@pytest.mark.parametrize(("method", "owner"), [m for m in METHODS if m[0] not in ROWS_LEVEL])
def test_a_namespace_method_takes_its_object_methods_options(
    namespace: type, method: str, owner: str
) -> None:
    obj = _options(getattr(OBJECTS[owner], method))
    ns = _options(getattr(namespace, method))
    assert {k: ns.get(k) for k in obj} == obj


@pytest.mark.parametrize("method", sorted(ROWS_LEVEL))
def test_a_rows_level_method_keeps_the_object_methods_defaults(method: str) -> None:
    obj = _options(getattr(FairCounts, method))
    ns = _options(getattr(FairLazyFrame, method))
    shared = set(obj) & set(ns)
    assert shared  # the same analysis: most options are shared
    assert {k: ns[k][0] for k in shared} == {k: obj[k][0] for k in shared}


def test_the_namespace_has_no_analysis_the_objects_lack() -> None:
    # the multiclass methods come from a base class (polars_fair.api.class_namespace)
    names = {n for n, _ in inspect.getmembers(FairLazyFrame, inspect.isfunction)
             if not n.startswith("_")}
    extra = names.difference(
        *(_public(c) for c in OBJECTS.values()), _public(FairPaired), _public(FairPeriods),
        _public(FairCalibrationCounts), _public(FairProxyCounts))
    # the ways in: the count table object, the score table object, the score table itself, the
    # moment table object, the class table object
    assert extra == {"counts", "score_counts", "scores", "moments", "class_counts"}
