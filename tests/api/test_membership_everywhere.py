"""``membership=`` on every analysis of ``df.fair`` / ``lf.fair`` (issue 24, third review item 1).

Each analysis either takes estimated membership, and then one-hot probabilities (0 or 1) give
the crisp audit of the attribute declared as a ``pl.Enum`` of the groups, or refuses it with a
typed error that says why and what to run instead. The crisp twin is the expected value: an
independent path (the ordinary count table of a column), not the membership code.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair
from polars_fair import errors as E

M = {"g": {"a": "p_a", "b": "p_b"}}
BENCHMARK = {"g": {"a": 0.5, "b": 0.5}}


def _people() -> pl.DataFrame:
    """200 rows: a crisp group g (a, b), a stratum s, labels, predictions, a score, a date,
    and the one-hot probabilities p_a = [g = a], p_b = [g = b] (the column g itself is
    dropped on the membership side, so nothing can read it there)."""
    rng = np.random.default_rng(7)
    n = 200
    g = rng.choice(["a", "b"], n)
    return pl.DataFrame({
        "g": pl.Series(g).cast(pl.Enum(["a", "b"])), "s": rng.choice(["x", "y"], n),
        "y_true": rng.integers(0, 2, n), "y_pred": rng.integers(0, 2, n),
        "base": rng.integers(0, 2, n), "y_score": rng.random(n),
        "day": [dt.date(2024, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 60, n)],
        "p_a": (g == "a").astype(float), "p_b": (g == "b").astype(float),
    })


Call = Callable[[Any, dict[str, Any]], Any]
#: (analysis, call with the attribute: by "g" crisp, or the membership arguments)
TAKES: dict[str, Call] = {
    "confusion": lambda f, a: f.confusion(**a),
    "rates": lambda f, a: f.rates(**a),
    "report": lambda f, a: f.report(min_support=1, **a),
    "metrics": lambda f, a: f.metrics(**a),
    "disparity": lambda f, a: f.disparity(**a),
    "pairwise": lambda f, a: f.pairwise(**a),
    "summary": lambda f, a: f.summary(**a),
    "impact_analysis": lambda f, a: f.impact_analysis(min_support=1, **a),
    "stratified": lambda f, a: f.stratified(strata="s", **a),
    # the weighted estimator's table counts a row in every group: these read rows (below)
    "availability": lambda f, a: f.availability(benchmark=BENCHMARK, **a),
    "divergence": lambda f, a: f.divergence(min_support=0.01, **a),
    "counts.bias_audit": lambda f, a: f.counts(**a).bias_audit().collect(),
    # LL 144 from rows: the attribute first among the categories (fix 24a item 1)
    "bias_audit": lambda f, a: f.bias_audit(
        [*([a.pop("by")] if "by" in a else []), "s"], y_pred="y_pred", min_share=0, **a),
}
ROW_READERS = {"availability", "divergence", "counts.bias_audit", "bias_audit"}


def _crisp(df: pl.DataFrame, weights: bool) -> dict[str, Any]:
    return {"by": "g", **({"sample_weight": pl.lit(1.0)} if weights else {})}


def _member(estimator: str) -> dict[str, Any]:
    return {"membership": M, "membership_estimator": estimator}


def _collected(out: Any) -> pl.DataFrame:
    return out.collect() if isinstance(out, pl.LazyFrame) else out


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("name", sorted(TAKES))
@pytest.mark.parametrize("estimator", ["argmax", "weighted"])
def test_one_hot_membership_equals_the_crisp_audit(name: str, estimator: str,
                                                   lazy: bool) -> None:
    df = _people()
    frame: Any = df.lazy() if lazy else df
    member = frame.drop("g")
    call = TAKES[name]
    if estimator == "weighted" and name in ROW_READERS:
        with pytest.raises(E.InvalidArgumentError) as info:
            _collected(call(member.fair, _member(estimator)))
        assert str(info.value).startswith(f"{name.split('.')[-1]} does not take a weighted "
                                          "membership count table (with n_effective): ")
        assert "membership_estimator='argmax'" in str(info.value)
        return
    got = _collected(call(member.fair, _member(estimator)))
    # argmax: the crisp table (Int64 counts); weighted: the cells are weighted sums, so the
    # crisp twin is weighted by 1.0 (Float64 cells), and the membership columns are extra
    want = _collected(call(frame.fair, _crisp(df, estimator == "weighted")))
    got = got.drop([c for c in ("n_effective", "attenuation") if c in got.columns])
    want = want.drop([c for c in ("n_positive_weight",) if c in want.columns
                      and c not in got.columns])
    want = want.with_columns(pl.col(pl.Enum).cast(pl.String))
    assert_frame_equal(got, want, check_exact=True)


#: The analyses whose table counts each row in one group: refused, saying so.
REFUSES: dict[str, tuple[Call, str]] = {
    # a score (or class) audit: its score table counts each row in one group
    "bias_audit": (lambda f, m: f.bias_audit(["s"], y_score="y_score", membership=m),
                   "bias_audit does not take membership= (estimated group membership): its "
                   "score table counts"),
    "compare": (lambda f, m: f.compare(y_pred="y_pred", baseline="base", membership=m),
                "compare does not take membership= (estimated group membership): its paired "
                "count table counts"),
    "monitor": (lambda f, m: f.monitor(time="day", every="1mo", y_pred="y_pred",
                                       membership=m),
                "monitor does not take membership= (estimated group membership): its period "
                "count table counts"),
    "continuous_report": (lambda f, m: f.continuous_report(y_pred="y_score", membership=m),
                          "continuous_report does not take membership= (estimated group "
                          "membership): its moment table counts"),
    "moments": (lambda f, m: f.moments(y_pred="y_score", membership=m),
                "moments does not take membership= (estimated group membership): its moment "
                "table counts"),
    "multiclass_report": (lambda f, m: f.multiclass_report(membership=m),
                          "a class analysis does not take membership="),
    "multiclass_test": (lambda f, m: f.multiclass_test(membership=m),
                        "a class analysis does not take membership="),
    "class_counts": (lambda f, m: f.class_counts(membership=m),
                     "a class analysis does not take membership="),
    **{name: ((lambda n: lambda f, m: getattr(f, n)(membership=m))(name),
              "a score analysis does not take membership= (estimated group membership): its "
              "score table counts")
       for name in ("abroca", "abroca_test", "calibration", "reliability", "roc_curves",
                    "scores", "score_counts", "sweep", "thresholds")},
}


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("name", sorted(REFUSES))
def test_an_analysis_of_crisp_tables_refuses_membership_saying_why(name: str,
                                                                   lazy: bool) -> None:
    df = _people().drop("g")
    call, start = REFUSES[name]
    with pytest.raises(E.InvalidArgumentError) as info:
        _collected(call((df.lazy() if lazy else df).fair, M))
    message = str(info.value)
    assert message.startswith(start), message
    assert "each row in exactly one group, and a row with estimated membership may belong to " \
           "several" in message
    assert message.endswith(E.MEMBERSHIP_ANALYSES)


def test_stratified_takes_the_membership_attribute_in_by() -> None:
    # by names the groups to compare: the membership attribute may be among them (it is
    # counted from the probabilities), as on the count table (counts(...).stratified(by="g"))
    df = _people()
    want = df.fair.stratified("g", "s", reference="a").with_columns(pl.col("g").cast(pl.String))
    for by in ("g", None):
        got = df.drop("g").fair.stratified(by, "s", membership=M, reference="a",
                                           membership_estimator="argmax")
        assert_frame_equal(got, want, check_exact=True)
        via_counts = polars_fair.counts(df.drop("g"), "s", membership=M,
                                        membership_estimator="argmax").stratified(
            by=by, strata="s", reference="a").collect()
        assert_frame_equal(via_counts, want, check_exact=True)


def test_a_membership_table_rolled_up_to_its_own_keys_keeps_n_effective() -> None:
    # found with item 1: rollup(table, its own keys) took the generic sum path and dropped
    # n_effective, so availability (and any method given by= equal to the keys) read a table
    # without it. Hand: rows p_a = 0.5, 0.5, 1.0: Σp = 2, Σp² = 1.5, n_eff = 4 / 1.5.
    df = pl.DataFrame({"y_true": [1, 0, 1], "y_pred": [1, 1, 0], "p_a": [0.5, 0.5, 1.0],
                       "p_b": [0.5, 0.5, 0.0]})
    counts = polars_fair.counts(df, membership=M)
    rolled = counts.confusion(by="g").collect()
    assert rolled["n_effective"].to_list()[0] == pytest.approx(4 / 1.5, rel=1e-12)
    assert_frame_equal(rolled, counts.frame.collect())


def test_stratified_tests_count_n_effective_on_a_membership_table() -> None:
    # the weighted estimator's n counts a row in every group it may belong to: the tests of
    # stratified count Kish's size instead (as every interval of that table does). Unweighted
    # membership table (n_effective between weight_sum and n), no labels (fp = selected):
    table = pl.DataFrame({
        "g": ["a", "a", "b", "b"], "s": ["x", "y", "x", "y"], "n": [20, 20, 20, 20],
        "tp": [0.0] * 4, "fp": [6.0, 2.0, 5.0, 6.0], "fn": [0.0] * 4,
        "tn": [4.0, 6.0, 5.0, 6.0], "weight_sum": [10.0, 8.0, 10.0, 12.0],
        "n_effective": [12.0, 10.0, 15.0, 16.0], "attenuation": [0.5] * 4})  # not read here
    got = polars_fair.from_counts(table).stratified(strata="s", reference="b").collect()
    # by hand, in effective rows: x: a selects 0.6·12 = 7.2 of 12, b 0.5·15 = 7.5 of 15
    # (27 in all); y: a 0.25·10 = 2.5 of 10, b 0.5·16 = 8 of 16 (26). Mantel-Haenszel:
    # Σ a·d/n = 7.2·7.5/27 + 2.5·8/26 = 36/13, Σ b·c/n = 4.8·7.5/27 + 7.5·8/26 = 142/39,
    # so the odds ratio is (36/13) / (142/39) = 54/71 (on the 20-row n it would differ)
    a = got.filter(pl.col("g") == "a").row(0, named=True)
    assert a["mh_odds_ratio"] == pytest.approx(54 / 71, rel=1e-12)
    assert a["n"] == 40  # the rows shown are the table's n
    # the same figures as a crisp weighted table whose rows are those effective sizes
    crisp = polars_fair.from_counts(table.drop("n_effective", "attenuation").with_columns(
        n=pl.Series([12, 10, 15, 16]))).stratified(strata="s", reference="b").collect()
    assert_frame_equal(got.drop("n"), crisp.drop("n"), check_exact=True)


def test_every_namespace_method_is_listed_here() -> None:
    # a new analysis on df.fair must say whether it takes membership= (TAKES) or refuses it
    # (REFUSES): this test fails until it is added to one of them
    from polars_fair.api.namespace import FairDataFrame

    methods = {n for n in vars(FairDataFrame) if not n.startswith("_")}
    native = {"counts", "proxy_report", "membership_calibration"}  # membership by design
    listed = {n for n in TAKES if "." not in n} | set(REFUSES) | native
    assert methods == listed, (methods - listed, listed - methods)
