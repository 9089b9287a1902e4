"""Each analysis option's default is declared once (polars_fair.core.options) and read everywhere.

Three checks: no signature in the package writes a declared default as a literal again; every
signature a user sees (the objects, ``df.fair``/``lf.fair``, the audit functions) has the
declared default; and every docstring that states an option's default states the declared one.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_fair
from polars_fair.api.namespace import FairDataFrame, FairLazyFrame
from polars_fair.api.objects import FairCounts, FairScores
from polars_fair.core import options
from polars_fair.core.options import DEFAULTS, Interval, declared

PACKAGE = Path(polars_fair.__file__).parent
#: Parameter name -> the declarations it may stand for (``min_support`` is a row count in most
#: analyses and a share of the rows in ``divergence``).
BY_PARAM: dict[str, list[options.Declared]] = {}
for _d in declared():
    BY_PARAM.setdefault(_d.param, []).append(_d)


#: Parameters that share a name with a declared option but are another option, with why.
OTHER_OPTIONS = {
    ("audit_html", "max_groups"): "the groups the page shows, not a table's size limit",
    ("audit_html", "seed"): "the page is reproducible: its permutation test is seeded",
    ("multiclass_html", "max_groups"): "the groups the page shows, not a table's size limit",
    ("continuous_html", "max_groups"): "the groups the page shows, not a table's size limit",
    ("calibration_chart", "max_groups"): "the panels a chart draws",
    ("threshold_chart", "max_groups"): "the lines a chart draws",
    ("compare_chart", "max_groups"): "the groups a chart draws",
    ("monitor_chart", "max_groups"): "the lines a chart draws",
    ("compare_chart", "metric"): "one of compare's figures, the impact ratio first",
    ("pairwise_heatmap", "metric"): "a pairwise metric, not a proportion",
    ("abroca_power", "n_permutations"): "permutations per simulated test set",
    ("make_hiring", "seed"): "the synthetic data set's seed",
    ("two_proportion_test", "method"): "a statistics helper's test (declared: test)",
    ("adjust_pvalues", "method"): "a statistics helper's adjustment (declared: adjust)",
    ("sample_size", "method"): "how the power is computed (normal or Fisher), not a summary's",
}


def _declared_for(owner: str, param: str) -> options.Declared | None:
    """The declaration a parameter reads: the divergence one inside divergence code."""
    if (owner.rsplit(".", 1)[-1], param) in OTHER_OPTIONS:
        return None
    found = BY_PARAM.get(param, [])
    divergence = [d for d in found if d.field.startswith("divergence_")]
    if "divergence" in owner and divergence:
        return divergence[0]
    plain = [d for d in found if not d.field.startswith("divergence_")]
    return plain[0] if plain else None


def _literal_defaults() -> list[str]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "options.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            a = node.args
            pos = a.posonlyargs + a.args
            pairs = list(zip(pos[len(pos) - len(a.defaults):], a.defaults, strict=True))
            pairs += [(x, d) for x, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
                      if d is not None]
            for arg, default in pairs:
                try:
                    value = ast.literal_eval(default)
                except ValueError:
                    continue  # a name: DEFAULTS.x, a module constant
                for d in BY_PARAM.get(arg.arg, []):
                    if value is not None and type(value) is type(d.default) \
                            and value == d.default:
                        out.append(f"{path.relative_to(PACKAGE)}:{default.lineno} "
                                   f"{node.name}({arg.arg}={value!r})")
    return out


def test_no_signature_writes_a_declared_default_again() -> None:
    assert _literal_defaults() == []


def _public_signatures() -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for cls in (FairCounts, FairScores, FairLazyFrame, FairDataFrame):
        for name, member in vars(cls).items():
            if not name.startswith("_") and callable(member):
                out.append((f"{cls.__name__}.{name}", member))
    from polars_fair.audit import gate, html

    out += [("gate.gate_reference", gate.gate_reference), ("gate.gate", gate.gate),
            ("html.audit_html", html.audit_html)]
    return out


SIGNATURES = dict(_public_signatures())


@pytest.mark.parametrize("qualname", sorted(SIGNATURES))
def test_every_public_signature_has_the_declared_defaults(qualname: str) -> None:
    fn = SIGNATURES[qualname]
    wrong = {}
    for p in inspect.signature(fn).parameters.values():
        d = _declared_for(qualname, p.name)
        if d is None or p.default is inspect.Parameter.empty:
            continue
        if p.default != d.default:
            wrong[p.name] = (p.default, d.default)
    assert wrong == {}


_DEFAULT_IN_DOC = re.compile(r"^\s*(\w+) : [^\n]*?default ([^\s,]+)\s*$", re.M)


def _stated(text: str) -> Any:
    text = text.rstrip(".")
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _docstrings() -> list[tuple[str, str]]:
    out = []
    for info in pkgutil.walk_packages(polars_fair.__path__, prefix="polars_fair."):
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError:
            continue
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(obj) and obj.__doc__:
                out.append((f"{module.__name__}.{name}", obj.__doc__))
            elif inspect.isclass(obj):
                out += [(f"{module.__name__}.{name}.{m}", f.__doc__)
                        for m, f in vars(obj).items() if callable(f) and f.__doc__]
    return out


def test_every_docstring_states_the_declared_default() -> None:
    wrong = []
    for qualname, doc in _docstrings():
        if qualname.startswith("polars_fair.core.options"):
            continue
        for name, text in _DEFAULT_IN_DOC.findall(doc):
            d = _declared_for(qualname, name)
            if d is None:
                continue
            stated = _stated(text)
            if stated != d.default:
                wrong.append(f"{qualname}: {name} default {text} (declared {d.default!r})")
    assert wrong == []


def test_each_option_is_declared_with_a_documented_meaning() -> None:
    for d in declared():
        assert d.doc, d.field
        assert d.param in inspect.signature(options.Options).parameters or d.field != d.param


@pytest.mark.parametrize("d", [d for d in declared() if isinstance(d.accepts, Interval)],
                         ids=lambda d: d.field)
def test_an_interval_option_refuses_nan_and_accepts_its_default(d: options.Declared) -> None:
    assert options.check(d.field, d.default) == options.R.exact(d.default, d.param)
    with pytest.raises(polars_fair.errors.InvalidArgumentError, match=f"^{d.param} must lie"):
        options.check(d.field, float("nan"))


def test_help_and_the_command_line_show_the_declared_default() -> None:
    sig = inspect.signature(pl.DataFrame({"g": ["a"]}).fair.report)
    assert sig.parameters["min_support"].default == DEFAULTS.min_support == 30
    assert sig.parameters["reference"].default == "largest"
    from polars_fair.cli.commands import method_options

    level = {o.name: o for o in method_options(FairCounts, "disparity")}["level"]
    assert level.default == 0.95
