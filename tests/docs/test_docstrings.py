"""Every public callable of polars_fair has a numpydoc docstring that parses and is complete.

The public callables are found by introspection: every module of the package
(``pkgutil.iter_modules``), the names in its ``__all__`` that are functions or classes defined
in polars_fair (exception classes excepted: their docstring is their meaning), and the public
methods defined in those classes. Each is checked with ``numpydoc.validate.validate`` for the
codes in :data:`CODES`, and its docstring is parsed with ``numpydoc.docscrape`` to check that the
Parameters and Returns sections are found (a mis-indented section parses as one summary).

The Examples themselves run as doctests (``--doctest-modules`` in pyproject.toml).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import textwrap
from collections.abc import Callable
from types import ModuleType
from typing import Any

import polars as pl
import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc, NumpyDocString
from numpydoc.validate import Validator, get_doc_object, validate

import polars_fair

#: numpydoc validation codes a public callable must not raise.
CODES = {
    "GL08": "no docstring",
    "PR01": "a parameter is not documented",
    "PR02": "an unknown parameter is documented",
    "PR04": "a parameter has no type",
    "RT01": "no Returns section (the callable returns something)",
    "EX01": "no Examples section",
}

#: Public callables whose docstrings are not complete yet (modules under other work in
#: progress), keyed by qualified name, with the codes they fail ("parse": a Parameters or Returns
#: section that numpydoc.docscrape does not find). THIS LIST MUST BE EMPTY BEFORE ISSUE 10 IS
#: CLOSED. An entry that passes fails the run (strict xfail): delete it; never add one.
XFAIL: dict[str, str] = {}


def _modules() -> list[ModuleType]:
    mods = [polars_fair]
    for info in pkgutil.walk_packages(polars_fair.__path__, prefix="polars_fair."):
        try:
            mods.append(importlib.import_module(info.name))
        except ModuleNotFoundError as exc:  # an optional dependency (an extra) is not installed
            if (exc.name or "").startswith("polars_fair"):
                raise
    return mods


def _unwrap(member: Any) -> Any:
    if isinstance(member, (staticmethod, classmethod)):
        return member.__func__
    return member


def _ours(obj: Any) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("polars_fair")


def public_callables() -> dict[str, Any]:
    """Qualified name -> object, for every public function, class and method of the package."""
    found: dict[str, Any] = {}
    for mod in _modules():
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not _ours(obj):
                continue  # submodules, type aliases and objects of other libraries
            if inspect.isclass(obj):
                if issubclass(obj, BaseException):
                    continue
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
                for attr, member in vars(obj).items():
                    member = _unwrap(member)
                    if not attr.startswith("_") and inspect.isfunction(member):
                        found[f"{obj.__module__}.{obj.__qualname__}.{attr}"] = member
            elif callable(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return dict(sorted(found.items()))


PUBLIC = public_callables()


def _is_protocol(obj: Any) -> bool:
    return inspect.isclass(obj) and bool(getattr(obj, "_is_protocol", False))


def _parameters(obj: Any) -> list[str]:
    """The documented-to-be names of a callable's parameters (``*args``, ``**kwargs`` kept)."""
    if _is_protocol(obj):
        return []  # a Protocol is not constructed
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    names = []
    for i, p in enumerate(sig.parameters.values()):
        if i == 0 and p.name in ("self", "cls"):
            continue
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        names.append(prefix + p.name)
    return names


def _returns_something(obj: Any) -> bool:
    """Whether a function returns a value: its return annotation, else numpydoc's source check."""
    try:
        annotation = inspect.signature(obj).return_annotation
    except (TypeError, ValueError):
        annotation = inspect.Signature.empty
    if annotation is not inspect.Signature.empty:
        return annotation not in (None, "None")
    try:
        return bool(Validator(get_doc_object(obj)).method_returns_something)
    except SyntaxError:  # a decorated method whose source does not dedent
        return True


def _parse_problems(obj: Any) -> list[str]:
    """The Parameters and Returns sections must parse (a glued section is part of the summary)."""
    errors = []
    doc = ClassDoc(obj) if inspect.isclass(obj) else FunctionDoc(obj)
    params = _parameters(obj)
    if params:
        documented = {
            name.strip() for p in doc["Parameters"] for name in p.name.split(",")
        }
        missing = [p for p in params if p not in documented and p.lstrip("*") not in documented]
        if not doc["Parameters"]:
            errors.append("parse: no Parameters section found by numpydoc.docscrape")
        elif missing:
            errors.append(f"parse: Parameters section lacks {missing}")
    if not inspect.isclass(obj):
        if _returns_something(obj) and not doc["Returns"]:
            errors.append("parse: no Returns section found by numpydoc.docscrape")
    return errors


def _problems(qualname: str, obj: Any) -> list[str]:
    result = validate(qualname)
    errors = [
        f"{code} {message}"
        for code, message in result["errors"]
        if code in CODES and not (_is_protocol(obj) and code in ("PR01", "PR02"))
    ]
    return errors + _parse_problems(obj)


@pytest.mark.parametrize(
    "qualname",
    [
        pytest.param(
            q,
            marks=pytest.mark.xfail(strict=True, reason=f"known gap, issue 10: {XFAIL[q]}"),
        )
        if q in XFAIL
        else q
        for q in PUBLIC
    ],
)
def test_public_docstring_is_complete_numpydoc(qualname: str) -> None:
    problems = _problems(qualname, PUBLIC[qualname])
    assert not problems, f"{qualname}:\n" + textwrap.indent("\n".join(problems), "  ")


def test_enumeration_covers_the_package() -> None:
    modules = {q.rsplit(".", 1)[0] for q in PUBLIC}
    # one entry point of each layer is found, with the methods of the public classes
    for expected in (
        "polars_fair.api.objects.counts",
        "polars_fair.api.objects.FairCounts.report",
        "polars_fair.api.namespace.FairLazyFrame.report",
        "polars_fair.api.namespace.FairDataFrame.report",
        "polars_fair.api.external.from_counts",
        "polars_fair.counting.tables.count_table",
        "polars_fair.core.stats.wilson_interval",
    ):
        assert expected in PUBLIC, expected
    assert "polars_fair.errors.InvalidArgumentError" not in PUBLIC  # exceptions are skipped
    assert len(modules) > 20


def _glued(a: int) -> int:
    """Add one.
    Parameters
    ----------
    a : int
        A number.

    Returns
    -------
    int
        ``a + 1``.
    """
    return a + 1


def _complete(a: int) -> int:
    """Add one.

    Parameters
    ----------
    a : int
        A number.

    Returns
    -------
    int
        ``a + 1``.
    """
    return a + 1


def test_parse_check_flags_sections_glued_to_the_summary() -> None:
    assert _parse_problems(_complete) == []
    # the summary runs to the first blank line, so it swallows the Parameters section
    assert _parse_problems(_glued) == ["parse: no Parameters section found by numpydoc.docscrape"]


def test_xfail_list_names_public_callables() -> None:
    stale = sorted(set(XFAIL) - set(PUBLIC))
    assert not stale, f"XFAIL names no public callable (remove them): {stale}"


def test_namespace_report_docstring_parses() -> None:
    text = inspect.getdoc(polars_fair.FairLazyFrame.report)
    assert text is not None
    doc = NumpyDocString(text)
    names = {n.strip() for p in doc["Parameters"] for n in p.name.split(",")}
    assert "y_true" in names
    assert "by" in names
    assert doc["Raises"], "the Raises section of FairLazyFrame.report did not parse"
    assert doc["Returns"], "the Returns section of FairLazyFrame.report did not parse"


def test_dataframe_report_signature_returns_a_dataframe() -> None:
    report: Callable[..., Any] = pl.DataFrame({"a": [1]}).fair.report
    assert inspect.signature(report).return_annotation is pl.DataFrame
