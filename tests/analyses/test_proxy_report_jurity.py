"""Jurity 2.1.0 as a test-only oracle of the proxy report's argmax and regression estimators.

Jurity pins pandas < 3 for its surrogate path, which clashes with ours, so it runs in its own
environment: set ``POLARS_FAIR_JURITY_PYTHON`` to a Python with ``jurity==2.1.0`` and
``pandas<3`` (``.ci/run`` makes one). Without it the tests skip and say so, or fail when
``POLARS_FAIR_REQUIRE_ORACLES=1``.

- Without surrogates Jurity puts each row in its most likely group: its statistical parity
  (rate of a minus rate of b) equals our argmax estimate's difference exactly.
- With surrogates it fits the linear estimator on surrogate cells, averaged over unseeded
  bootstrap resamples, so each run differs. With one cell per row it fits our estimator on
  each resample, so our regression estimate must lie within the spread of its runs around their
  mean; with the fixture's cells (a coarser fit) likewise, with that fit's wider spread.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair
from tests.conftest import require

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).resolve().parents[2].parent / "shared" / "oracles" / (
    "fixture_membership.csv")
RUNS = 20

ORACLE_SCRIPT = """
import json, sys, warnings
import pandas as pd
from jurity.fairness import BinaryFairnessMetrics as B
warnings.simplefilter("ignore")
cfg = json.loads(sys.argv[1])
df = pd.read_csv(cfg["csv"])
mem = df[["p_b", "p_a"]].values.tolist()  # label [1] (the default) makes a the protected group
sp = B.StatisticalParity()
out = {"argmax": sp.get_score(df["y_pred"].tolist(), mem)}
out["cells"] = [sp.get_score(df["y_pred"], mem, df["surrogate"], [1]) for _ in range(cfg["runs"])]
ids = pd.Series(range(len(df)))
out["rows"] = [sp.get_score(df["y_pred"], mem, ids, [1]) for _ in range(cfg["runs"])]
print(json.dumps(out))
"""


def _jurity_python() -> str:
    python = os.environ.get("POLARS_FAIR_JURITY_PYTHON")
    if not python and os.environ.get("POLARS_FAIR_REQUIRE_ORACLES") == "1":
        pytest.fail("POLARS_FAIR_REQUIRE_ORACLES=1 but no Jurity: set POLARS_FAIR_JURITY_PYTHON "
                    "(.ci/run installs jurity==2.1.0 with pandas<3)")
    if not python:
        pytest.skip("Jurity oracle not configured: set POLARS_FAIR_JURITY_PYTHON to a Python "
                    "with jurity==2.1.0 and pandas<3 installed (its own venv)")
    return python


@pytest.fixture(scope="module")
def jurity() -> dict[str, Any]:
    python = _jurity_python()
    cfg = {"csv": str(require(FIXTURE)), "runs": RUNS}
    run = subprocess.run([python, "-c", ORACLE_SCRIPT, json.dumps(cfg)], capture_output=True,
                         text=True, timeout=900, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    out: dict[str, Any] = json.loads(run.stdout)
    return out


@pytest.fixture(scope="module")
def ours() -> pl.DataFrame:
    rows = pl.read_csv(require(FIXTURE))
    return polars_fair.proxy_report(rows, membership={"g": {"a": "p_a", "b": "p_b"}},
                                    y_true=None, reference="b").collect()


def _difference(report: pl.DataFrame, estimator: str) -> float:
    rate = report[f"selection_rate_{estimator}"]
    return float(rate[0] - rate[1])


def test_argmax_statistical_parity_equals_jurity(jurity: dict[str, Any],
                                                 ours: pl.DataFrame) -> None:
    assert _difference(ours, "argmax") == pytest.approx(jurity["argmax"], abs=1e-12)


@pytest.mark.parametrize("surrogates", ["rows", "cells"])
def test_regression_lies_within_jurity_bootstrap_spread(jurity: dict[str, Any],
                                                        ours: pl.DataFrame,
                                                        surrogates: str) -> None:
    runs = np.asarray(jurity[surrogates])
    assert runs.std(ddof=1) > 0  # the premise: unseeded bootstraps differ run to run
    assert abs(_difference(ours, "regression") - runs.mean()) <= 4 * runs.std(ddof=1)
