"""The import paths the docs named before the move into subpackages keep working (issue 18)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import warnings

import pytest

#: (documented path, a name it must hold, the module that defines that name)
FACADES = [
    ("polars_fair.spark", "SparkEngine", "polars_fair.counting._spark"),
    ("polars_fair.duckdb", "DuckDBEngine", "polars_fair.counting._duckdb"),
    ("polars_fair.plot", "group_label", "polars_fair.core.labels"),
    ("polars_fair.html", "audit_html", "polars_fair.audit.html.page"),
    ("polars_fair.power", "abroca_power", "polars_fair.analyses.scores.power"),
    ("polars_fair.divergence", "divergence_of_rows", "polars_fair.api.rows"),
    ("polars_fair.pairwise", "pairwise_matrix", "polars_fair.analyses.pairwise"),
    ("polars_fair.bias_audit", "bias_audit", "polars_fair.api.rows"),
    ("polars_fair.bias_audit", "bias_audit_from_counts", "polars_fair.analyses.bias_audit"),
    ("polars_fair.expressions", "selection_rate", "polars_fair.core.expressions"),
    ("polars_fair.datasets", "make_hiring", "polars_fair.datasets"),
    ("polars_fair.errors", "InvalidArgumentError", "polars_fair.errors"),
]


#: Run in one fresh interpreter (not one per path: each start imports Polars again): every
#: documented import in order, warnings as errors, each one's outcome printed as JSON. A warning
#: is raised by the first import that loads the module, so it fails that path's test.
_SCRIPT = """
import json, sys, traceback, warnings
warnings.simplefilter("error")
outcome = {}
for path, name, home in json.loads(sys.argv[1]):
    try:
        exec(f"from {path} import {name} as a; from {home} import {name} as b; assert a is b", {})
        outcome[f"{path} {name}"] = ""
    except BaseException:
        outcome[f"{path} {name}"] = traceback.format_exc()
print(json.dumps(outcome))
"""


@pytest.fixture(scope="module")
def imported() -> dict[str, str]:
    """``"path name"`` -> the traceback of its import in a fresh interpreter ("" when clean)."""
    done = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps(FACADES)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    outcome: dict[str, str] = json.loads(done.stdout)
    return outcome


@pytest.mark.parametrize(("path", "name", "home"), FACADES)
def test_a_documented_path_imports_without_warning_and_holds_the_same_object(
        imported: dict[str, str], path: str, name: str, home: str) -> None:
    assert imported[f"{path} {name}"] == ""


def test_an_old_internal_path_is_the_new_module_and_warns() -> None:
    sys.modules.pop("polars_fair.tables", None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = importlib.import_module("polars_fair.tables")
    new = importlib.import_module("polars_fair.counting.tables")
    assert old is new
    assert new.__spec__ is not None and new.__spec__.name == "polars_fair.counting.tables"
    assert [w.category for w in caught] == [DeprecationWarning]
    assert "polars_fair.counting.tables" in str(caught[0].message)
