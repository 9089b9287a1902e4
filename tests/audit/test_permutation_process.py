"""The ABROCA test's helper process (polars_fair.audit.permutation_process): the same table and
the same page as running the test in this process, and a fallback that runs it here, raising
what the test raises, when the helper cannot answer."""

from __future__ import annotations

import datetime as dt
import re
import sys
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_fair.api.external import from_scores
from polars_fair.audit import permutation_process as pp
from polars_fair.audit.html import audit_html
from polars_fair.audit.html import context as page_context
from polars_fair.datasets import make_hiring
from polars_fair.errors import PolarsFairError

WHEN = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _scores() -> pl.DataFrame:
    return make_hiring(600, seed=2).lazy().fair.scores(
        "sex", y_true="y_true", y_score="y_score").collect()


def _test_here(table: pl.DataFrame, **options: Any) -> pl.LazyFrame:
    return from_scores(table, ["sex"]).abroca_test(progress=False, **options)


def test_the_helper_gives_the_table_this_process_gives() -> None:
    table = _scores()
    here = _test_here(table, reference="largest", n_permutations=200, seed=1).collect()
    helper = pp.PermutationProcess()
    got = helper.submit(table, ["sex"], "largest", 200, 1).result(timeout=120)
    assert_frame_equal(got, here, check_exact=True)  # the same draws, bit for bit
    assert got.height == 1 and 0 < got["p_value"].item() <= 1
    # one test per helper: a second is refused (and would run here)
    assert isinstance(helper.submit(table, ["sex"], "largest", 200, 1).exception(), RuntimeError)


def test_a_helper_that_ends_at_once_leaves_the_test_here() -> None:
    table = _scores()
    helper = pp.PermutationProcess([sys.executable, "-c", "pass"])
    pending = helper.submit(table, ["sex"], "largest", 50, 0)
    assert isinstance(pending.exception(timeout=60), RuntimeError)
    plan = _test_here(table, reference="largest", n_permutations=50, seed=0)
    got = pp.PendingTest(plan, pending).result()
    assert_frame_equal(got, plan.collect(), check_exact=True)


def test_a_test_the_helper_refuses_raises_here_as_before() -> None:
    weighted = _scores().with_columns(pl.col("positives", "negatives").cast(pl.Float64))
    plan = _test_here(weighted, reference="largest", n_permutations=50, seed=0)
    with pytest.raises(PolarsFairError) as here:
        plan.collect()
    helper = pp.PermutationProcess()
    pending = helper.submit(weighted, ["sex"], "largest", 50, 0)
    assert "WeightedTestError" in str(pending.exception(timeout=120))
    with pytest.raises(type(here.value), match="weighted"):
        pp.PendingTest(plan, pending).result()


def test_the_page_is_the_same_with_the_helper_without_it_and_when_it_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    df = make_hiring(800, seed=3)
    kwargs = {"y_score": "y_score", "threshold": 0.5, "n_permutations": 50,
              "generated": WHEN}
    sent: list[int] = []
    submit = pp.PermutationProcess.submit

    def counted(self: pp.PermutationProcess, *args: Any) -> Any:
        sent.append(1)
        return submit(self, *args)

    monkeypatch.setattr(pp.PermutationProcess, "submit", counted)
    with_helper = audit_html(df, "sex", **kwargs)
    assert sent == [1] and "permutation" in with_helper  # the test ran in the helper
    monkeypatch.setattr(page_context, "permutation_process", lambda: None)
    here = audit_html(df, "sex", **kwargs)
    monkeypatch.setattr(page_context, "permutation_process",
                        lambda: pp.PermutationProcess([sys.executable, "-c", "pass"]))
    failed = audit_html(df, "sex", **kwargs)
    assert sent == [1, 1]

    def same(page: str) -> str:  # vl-convert numbers its gradients per renderer and call
        return re.sub(r"gradient_\d+", "gradient_", page)

    assert same(here) == same(with_helper) == same(failed)
