"""multiclass_report and multiclass_test (issue 22, items 1 and 2).

Expected values come from hand computations written here, scikit-learn's ``confusion_matrix``
per group, scipy's ``chi2_contingency`` and ``contingency.association``, an exact enumeration of
the permutation distribution, the binary ``report`` (property test), and holisticai's
``multiclass_bias_metrics`` on ``../shared/oracles/fixture_multiclass.csv``: its frozen figures
in ``peer-figures.json``, and holisticai 1.0.14 itself as a test-only oracle in its own
environment (``POLARS_FAIR_HOLISTICAI_PYTHON``, made by ``.ci/run``; the test fails instead of
skipping when ``POLARS_FAIR_REQUIRE_ORACLES=1``).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats as sst
from scipy.stats import contingency
from sklearn.metrics import confusion_matrix

import polars_fair
from polars_fair import errors as E
from tests.conftest import ROOT, one_row_groups

ORACLES = ROOT.parent / "shared" / "oracles"
FIXTURE = ORACLES / "fixture_multiclass.csv"


def _fixture() -> pl.DataFrame:
    if not FIXTURE.exists():
        if os.environ.get("POLARS_FAIR_REQUIRE_DATA") == "1":
            pytest.fail(f"POLARS_FAIR_REQUIRE_DATA=1 but {FIXTURE} is absent")
        pytest.skip(f"{FIXTURE} is absent (../shared/oracles next to the project root)")
    return pl.read_csv(FIXTURE)


# ---------------------------------------------------------------------------- the report
HAND = pl.DataFrame({
    "g": ["a"] * 10 + ["b"] * 10 + ["c"] * 5,
    # a: 5 Low, 4 Medium, 1 High; b: 4 Low, 6 Medium; c: 1 Low, 2 Medium, 2 High
    "p": ["Low"] * 5 + ["Medium"] * 4 + ["High"] + ["Low"] * 4 + ["Medium"] * 6
         + ["Low"] + ["Medium"] * 2 + ["High"] * 2,
})


def test_the_report_is_hand_counted_per_group_and_class() -> None:
    out = HAND.fair.multiclass_report("g", y_pred="p", classes=["Low", "Medium", "High", "Top"],
                                      min_support=6)
    assert out.columns == ["g", "class", "n", "n_class", "selection_rate", "is_reference",
                           "disparate_impact", "impact_ratio", "adverse_impact", "low_support"]
    got = {(r["g"], r["class"]): r for r in out.iter_rows(named=True)}
    assert out.height == 12  # 3 groups x 4 classes, the unreceived "Top" included
    # Low: a 5/10, b 4/10, c 1/5 (c low support: the highest rate is among a and b, 1/2)
    assert got[("a", "Low")]["selection_rate"] == 0.5
    assert got[("b", "Low")]["impact_ratio"] == 0.8  # exactly 4/5: not adverse impact
    assert got[("b", "Low")]["adverse_impact"] is False
    assert got[("c", "Low")]["impact_ratio"] == pytest.approx(0.4)
    assert got[("c", "Low")]["adverse_impact"] is True
    assert got[("c", "Low")]["low_support"] is True
    # Medium: a 4/10, b 6/10, c 2/5; the highest is b's 3/5; a: (2/5)/(3/5) = 2/3 < 4/5
    assert got[("a", "Medium")]["impact_ratio"] == float(Fraction(2, 3))
    assert got[("a", "Medium")]["adverse_impact"] is True
    # High: a 1/10, b 0, c 2/5 (low support): the highest supported rate is a's 1/10
    assert got[("b", "High")]["impact_ratio"] == 0.0
    assert got[("c", "High")]["impact_ratio"] == 4.0
    # Top: no one received it: zeros, and no impact ratio (the highest rate is 0)
    top = [got[(g, "Top")] for g in "abc"]
    assert [r["n_class"] for r in top] == [0, 0, 0]
    assert [r["selection_rate"] for r in top] == [0.0, 0.0, 0.0]
    assert [r["impact_ratio"] for r in top] == [None, None, None]
    # reference "largest": a and b tie at 10 rows, the first in key order (a) is the reference
    assert [got[(g, "Low")]["is_reference"] for g in "abc"] == [True, False, False]
    assert got[("b", "Medium")]["disparate_impact"] == 1.5


def test_rows_follow_the_keys_then_the_classes_in_their_given_order() -> None:
    out = HAND.fair.multiclass_report("g", y_pred="p", classes=["Medium", "High", "Low"])
    assert out.select("g", "class").rows()[:3] == [("a", "Medium"), ("a", "High"), ("a", "Low")]


def test_ordered_gives_the_share_at_or_above_each_class() -> None:
    out = HAND.fair.multiclass_report("g", y_pred="p", classes=["Low", "Medium", "High"],
                                      ordered=True, min_support=1)
    rates = {(r[0], r[1]): r[2] for r in out.select("g", "class", "selection_rate").rows()}
    # at or above Low: everyone; at or above Medium: a 5/10, b 6/10, c 4/5; High: a 1/10, c 2/5
    assert [rates[(g, "Low")] for g in "abc"] == [1.0, 1.0, 1.0]
    assert [rates[(g, "Medium")] for g in "abc"] == [0.5, 0.6, 0.8]
    assert [rates[(g, "High")] for g in "abc"] == [0.1, 0.0, 0.4]
    ir = out.filter(pl.col("class") == "Medium")["impact_ratio"].to_list()
    assert ir == [0.625, 0.75, 1.0]  # (1/2)/(4/5) and (3/5)/(4/5)


def test_ordered_text_classes_need_their_order() -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        HAND.fair.multiclass_report("g", y_pred="p", ordered=True)
    # the advice lists the column's own values (issue 22 re-review item 4), sorted as text
    # and advises them in the order of their scale (issue 20: Low, Medium, High)
    assert str(err.value) == E.ORDER_NEEDS_CLASSES.format(
        column="p", dtype=pl.String, values="['High', 'Low', 'Medium']",
        example="['Low', 'Medium', 'High']", guess="")


def test_weighted_shares_use_weight_sums() -> None:
    df = pl.DataFrame({"g": ["a", "a", "b", "b"], "p": [0, 1, 0, 1], "w": [1.0, 3.0, 2.0, 2.0]})
    out = df.fair.multiclass_report("g", y_pred="p", sample_weight="w", min_support=1)
    assert out.columns[:5] == ["g", "class", "n", "n_class", "weight_sum"]
    # class 1: a 3/4, b 2/4; class 0: a 1/4, b 2/4
    assert out.select("g", "class", "n", "n_class", "selection_rate").rows() == [
        ("a", 0, 2, 1.0, 0.25), ("a", 1, 2, 3.0, 0.75),
        ("b", 0, 2, 2.0, 0.5), ("b", 1, 2, 2.0, 0.5)]
    assert out["impact_ratio"].to_list() == [0.5, 1.0, 1.0, float(Fraction(2, 3))]


def test_an_explicit_reference_is_checked_like_the_binary_reports() -> None:
    out = HAND.fair.multiclass_report("g", y_pred="p", reference="c", min_support=1)
    assert out.filter(pl.col("is_reference"))["g"].unique().to_list() == ["c"]
    with pytest.raises(E.UnknownGroupError):
        HAND.fair.multiclass_report("g", y_pred="p", reference="zzz")


def test_one_vs_rest_rates_equal_sklearn_confusion_matrix_per_group() -> None:
    df = _fixture()
    out = df.fair.multiclass_report("g", y_pred="y_pred", y_true="y_true", min_support=1)
    classes = [0, 1, 2]
    for g in df["g"].unique().sort().to_list():
        part = df.filter(pl.col("g") == g)
        cm = confusion_matrix(part["y_true"].to_numpy(), part["y_pred"].to_numpy(),
                              labels=classes)
        mine = out.filter(pl.col("g") == g).sort("class")
        for i, c in enumerate(classes):
            tp = cm[i, i]
            fn = cm[i, :].sum() - tp
            fp = cm[:, i].sum() - tp
            tn = cm.sum() - tp - fn - fp
            row = mine.row(i, named=True)
            assert row["class"] == c
            assert row["n_class"] == tp + fp
            assert row["selection_rate"] == (tp + fp) / cm.sum()
            assert row["tpr"] == tp / (tp + fn)
            assert row["fpr"] == fp / (fp + tn)
            assert row["ppv"] == tp / (tp + fp)


def test_an_empty_true_class_in_a_group_is_null_not_a_made_up_rate() -> None:
    # group b never has true class 2: its tpr is undefined (holisticai makes a uniform column)
    df = pl.DataFrame({"g": ["a", "a", "a", "b", "b"], "t": [0, 1, 2, 0, 1],
                       "p": [0, 1, 2, 2, 1]})
    out = df.fair.multiclass_report("g", y_pred="p", y_true="t", min_support=1)
    row = out.filter((pl.col("g") == "b") & (pl.col("class") == 2)).row(0, named=True)
    assert row["tpr"] is None
    assert row["fpr"] == 0.5 and row["ppv"] == 0.0


# a binary audit: groups, labels and predictions in {0, 1}
binary_rows = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 1), st.integers(0, 1)),
    min_size=1, max_size=80)


@settings(max_examples=60, deadline=None)
@given(rows=binary_rows, min_support=st.integers(0, 12),
       four_fifths=st.sampled_from([0.5, 0.8, 0.9]))
def test_a_two_class_multiclass_report_equals_the_binary_report(
        rows: list[tuple[str, int, int]], min_support: int, four_fifths: float) -> None:
    assume(any(t or p for _, t, p in rows))  # the binary audit needs pos_label somewhere
    df = pl.DataFrame(rows, schema=["g", "y_true", "y_pred"], orient="row")
    assume(not one_row_groups(df, "g"))  # refused at any size (issue 20)
    binary = df.fair.report("g", min_support=min_support, four_fifths=four_fifths)
    multi = df.fair.multiclass_report("g", y_pred="y_pred", y_true="y_true", classes=[0, 1],
                                      min_support=min_support, four_fifths=four_fifths)
    ones = multi.filter(pl.col("class") == 1)
    columns = ["g", "n", "selection_rate", "is_reference", "disparate_impact",
               "impact_ratio", "adverse_impact", "low_support", "tpr", "fpr", "ppv"]
    assert ones.select(columns).equals(binary.select(columns))


# ---------------------------------------------------------------------------- the test
def test_the_chi_square_test_equals_scipy_chi2_contingency() -> None:
    df = _fixture()
    out = df.fair.multiclass_test("g", y_pred="y_pred").row(0, named=True)
    table = (df.group_by("g", "y_pred").len().pivot(on="y_pred", index="g", values="len")
             .sort("g").drop("g").fill_null(0).to_numpy())
    ref = sst.chi2_contingency(table, correction=False)
    assert out["attributes"] == ["g"]
    assert out["n"] == 300
    assert out["chi2"] == pytest.approx(ref.statistic, rel=1e-12)
    assert out["dof"] == ref.dof
    assert out["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert out["v"] == pytest.approx(contingency.association(table, method="cramer"), rel=1e-12)
    assert out["min_expected"] == pytest.approx(ref.expected_freq.min(), rel=1e-12)
    assert out["method"] == "chi-square"


def _exact_p(table: np.ndarray) -> float:
    """The permutation p-value of chi-square by enumerating every 2 x C table with the margins."""
    rows, cols = table.sum(axis=1), table.sum(axis=0)
    total = table.sum()
    expected = np.outer(rows, cols) / total

    def chi2(t: np.ndarray) -> float:
        return float(((t - expected) ** 2 / expected).sum())

    observed = chi2(table)
    p = 0.0
    for first in itertools.product(*[range(c + 1) for c in cols]):
        if sum(first) != rows[0]:
            continue
        t = np.array([first, cols - np.array(first)])
        prob = math.prod(math.comb(int(c), int(x)) for c, x in zip(cols, first, strict=True))
        if chi2(t) >= observed - 1e-9:
            p += prob / math.comb(int(total), int(rows[0]))
    return p


def test_small_expected_counts_give_a_seeded_monte_carlo_p_value_near_the_exact_one() -> None:
    df = pl.DataFrame({"g": ["a"] * 6 + ["b"] * 7,
                       "p": ["x", "x", "x", "x", "y", "z", "x", "y", "y", "y", "z", "z", "z"]})
    out = df.fair.multiclass_test("g", y_pred="p", n_permutations=20_000, seed=7).row(
        0, named=True)
    table = np.array([[4, 1, 1], [1, 3, 3]])
    exact = _exact_p(table)
    assert out["method"] == "monte carlo"
    assert out["min_expected"] < 5
    assert out["chi2"] == pytest.approx(sst.chi2_contingency(table, correction=False).statistic)
    se = math.sqrt(exact * (1 - exact) / 20_000)
    assert abs(out["p_value"] - exact) < 4 * se + 1 / 20_001
    again = df.fair.multiclass_test("g", y_pred="p", n_permutations=20_000, seed=7)
    assert again["p_value"].item() == out["p_value"]


def test_each_attribute_set_is_tested_and_one_group_is_undefined() -> None:
    df = _fixture().with_columns(h=(pl.col("y_true") == 0).cast(pl.String))
    out = df.fair.multiclass_test(["g", "h"], y_pred="y_pred", combinations="all")
    assert out["attributes"].to_list() == [["g"], ["h"], ["g", "h"]]
    table = (df.group_by("h", "y_pred").len().pivot(on="y_pred", index="h", values="len")
             .sort("h").drop("h").fill_null(0).to_numpy())
    assert out["chi2"][1] == pytest.approx(sst.chi2_contingency(table, correction=False).statistic)
    assert out["dof"].to_list() == [4, 2, 10]
    whole = df.fair.multiclass_test(None, y_pred="y_pred").row(0, named=True)
    assert whole["method"] == "undefined" and whole["chi2"] is None and whole["dof"] == 0


# ---------------------------------------------------------------------------- holisticai
def _tv(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).sum() / 2)


def _our_figures(df: pl.DataFrame) -> dict[str, float]:
    """holisticai's eight multiclass figures, from our report and our class table."""
    out = df.fair.multiclass_report("g", y_pred="y_pred", y_true="y_true", min_support=1)
    groups = out["g"].unique().sort().to_list()
    sr = {g: out.filter(pl.col("g") == g).sort("class")["selection_rate"].to_numpy()
          for g in groups}
    tpr = {g: out.filter(pl.col("g") == g).sort("class")["tpr"].to_numpy() for g in groups}
    table = df.fair.class_counts("g", y_pred="y_pred", y_true="y_true").frame.collect()
    conf = {}  # P(predicted i | true j, group): the columns of a group's confusion matrix
    for g in groups:
        m = np.zeros((3, 3))
        for r in table.filter(pl.col("g") == g).iter_rows(named=True):
            m[r["y_pred"], r["y_true"]] += r["n"]
        conf[g] = m / m.sum(axis=0)
    pairs = list(itertools.combinations(groups, 2))
    sp = [_tv(sr[a], sr[b]) for a, b in pairs]
    eo = [float(np.abs(conf[a] - conf[b]).sum() / 6) for a, b in pairs]
    ao = [float(np.abs((conf[a] - conf[b]).sum(axis=1)).sum() / 6) for a, b in pairs]
    tp = [float(np.abs(tpr[a] - tpr[b]).mean()) for a, b in pairs]
    return {
        "Max Multiclass Statistical Parity": max(sp),
        "Mean Multiclass Statistical Parity": sum(sp) / len(sp),
        "Max Multiclass Equality of Opportunity": max(eo),
        "Mean Multiclass Equality of Opportunity": sum(eo) / len(eo),
        "Max Multiclass Average Odds": max(ao),
        "Mean Multiclass Average Odds": sum(ao) / len(ao),
        "Max Multiclass True Positive Difference": max(tp),
        "Mean Multiclass True Positive Difference": sum(tp) / len(tp),
    }


def test_the_figures_equal_holisticais_frozen_figures() -> None:
    frozen = json.loads((ORACLES / "peer-figures.json").read_text())["holisticai"]
    ours = _our_figures(_fixture())
    for name, value in frozen["multiclass_both"].items():
        # holisticai adds 1e-32 to every cell; on this fixture no (group, true class) is empty
        assert ours[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name


HOLISTICAI_SCRIPT = '''
import json, sys
import pandas as pd
from holisticai.bias.metrics import multiclass_bias_metrics
df = pd.read_csv(sys.argv[1])
out = multiclass_bias_metrics(df["g"], df["y_pred"], df["y_true"], metric_type="both")
json.dump({k: float(v) for k, v in out["Value"].items()}, sys.stdout)
'''


def _holisticai_python() -> str:
    python = os.environ.get("POLARS_FAIR_HOLISTICAI_PYTHON")
    made = Path(os.environ.get("TMPDIR", "/tmp")) / "polars-fair-oracles" / "holisticai"
    if not python and (made / "bin" / "python").exists():
        python = str(made / "bin" / "python")
    if not python and os.environ.get("POLARS_FAIR_REQUIRE_ORACLES") == "1":
        pytest.fail("POLARS_FAIR_REQUIRE_ORACLES=1 but no holisticai: set "
                    "POLARS_FAIR_HOLISTICAI_PYTHON (.ci/run installs holisticai in its own venv)")
    if not python:
        pytest.skip("holisticai oracle not configured: set POLARS_FAIR_HOLISTICAI_PYTHON to a "
                    "Python with holisticai installed (its own venv)")
    return python


def test_the_figures_equal_holisticai_run_live(tmp_path: Path) -> None:
    python = _holisticai_python()
    script = tmp_path / "oracle.py"
    script.write_text(HOLISTICAI_SCRIPT)
    run = subprocess.run([python, str(script), str(FIXTURE)], capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    theirs: dict[str, Any] = json.loads(run.stdout)
    ours = _our_figures(_fixture())
    assert set(theirs) == set(ours)
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name


def test_a_table_of_a_billion_rows_keeps_the_chi_square_law() -> None:
    # numpy cannot draw hypergeometric counts of 10**9: the p-value is the chi-square law's,
    # and min_expected (2/3 here) says it is approximate
    t = pl.DataFrame({"g": ["a", "a", "b", "b", "c"], "y_pred": [0, 1, 0, 1, 1],
                      "n": [10**9, 5 * 10**8, 10**9, 5 * 10**8, 2]})
    out = polars_fair.from_class_counts(t).multiclass_test().collect().row(0, named=True)
    table = np.array([[10**9, 5 * 10**8], [10**9, 5 * 10**8], [0, 2]])
    ref = sst.chi2_contingency(table, correction=False)
    assert out["method"] == "chi-square"
    assert out["min_expected"] == pytest.approx(2 / 3)
    assert out["chi2"] == pytest.approx(ref.statistic, rel=1e-9)
    assert out["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
