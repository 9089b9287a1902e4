"""The proxy report: three estimators side by side, frozen peer figures, seeded simulations.

Expected values come from SolasAI's and Jurity's frozen outputs on the shared fixture
(``../shared/oracles/peer-figures.json``), from sums over the rows written in the tests, and from
the known truth of seeded simulations (the true group of every row is drawn, then hidden).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from polars_fair import errors as E
from polars_fair.analyses.membership_regression import fit_cells
from polars_fair.analyses.proxy_report import proxy_report_from_membership
from polars_fair.counting.membership import MembershipTable
from polars_fair.counting.proxy_table import proxy_table
from tests.conftest import require

ORACLES = Path(__file__).resolve().parents[2].parent / "shared" / "oracles"


def _peer() -> dict[str, Any]:
    figures: dict[str, Any] = json.loads(require(ORACLES / "peer-figures.json").read_text())
    return figures


@pytest.fixture(scope="module")
def fixture_rows() -> pl.DataFrame:
    return pl.read_csv(require(ORACLES / "fixture_membership.csv"))


def _table(rows: pl.DataFrame, probs: list[str], groups: list[Any], *, y_true: str | None,
           weight: str | None = None, by: list[str] | None = None) -> MembershipTable:
    """The membership table by the package's scan (tested against the numpy reference in
    tests/counting/test_membership.py)."""
    return proxy_table(rows, by, membership={"g": dict(zip(groups, probs, strict=True))},
                       y_true=y_true, sample_weight=weight)


def _report(rows: pl.DataFrame, probs: list[str], groups: list[Any], *, y_true: str | None = None,
            weight: str | None = None, by: list[str] | None = None, **kw: Any) -> pl.DataFrame:
    table = _table(rows, probs, groups, y_true=y_true, weight=weight, by=by)
    kw.setdefault("min_support", 0)
    return proxy_report_from_membership(table, **kw).collect()


def _solas(name: str) -> dict[str, dict[str, Any]]:
    return {r["Group"]: r for r in _peer()["solasai_fixtures"][name]["summary"]}


@pytest.mark.parametrize(("name", "weight"), [("E1 AIR membership (p_a, p_b)", None),
                                              ("E1w AIR membership with sample_weight 1,2,3,...",
                                               "w")])
def test_weighted_estimator_matches_solasai_frozen_air(fixture_rows: pl.DataFrame, name: str,
                                                       weight: str | None) -> None:
    # SolasAI's weights cycle 1, 2, 3 (their total, 1999, is 333 cycles and a 1)
    rows = fixture_rows.with_columns(w=(pl.int_range(pl.len()) % 3 + 1).cast(pl.Float64))
    out = _report(rows, ["p_a", "p_b"], ["a", "b"], weight=weight, reference="b")
    solas = _solas(name)
    assert out["selection_rate_weighted"][0] == pytest.approx(
        solas["a"]["Percent Favorable"], abs=1e-12)
    assert out["selection_rate_weighted"][1] == pytest.approx(
        solas["b"]["Percent Favorable"], abs=1e-12)
    assert out["impact_ratio_weighted"][0] == pytest.approx(solas["a"]["AIR"], abs=1e-12)
    assert out["weight_sum"].to_list() == pytest.approx([solas["a"]["Total"],
                                                         solas["b"]["Total"]], abs=1e-9)


def test_argmax_estimator_matches_solasai_frozen_air_on_0_1_columns(
        fixture_rows: pl.DataFrame) -> None:
    out = _report(fixture_rows, ["p_a", "p_b"], ["a", "b"], reference="b")
    solas = _solas("E1h AIR membership argmax 0/1")
    assert out["n_argmax"].to_list() == [int(solas["a"]["Total"]), int(solas["b"]["Total"])]
    assert out["impact_ratio_argmax"][0] == pytest.approx(solas["a"]["AIR"], abs=1e-12)
    # Jurity's argmax statistical parity (frozen): rate of a minus rate of b
    jurity = _peer()["jurity"]["argmax [[p_b,p_a]], labels default (=[1] -> a)"]
    diff = out["selection_rate_argmax"][0] - out["selection_rate_argmax"][1]
    assert diff == pytest.approx(jurity, abs=1e-12)


def test_regression_estimate_lies_within_jurity_frozen_bootstrap_spread(
        fixture_rows: pl.DataFrame) -> None:
    out = _report(fixture_rows, ["p_a", "p_b"], ["a", "b"], reference="b")
    spread = _peer()["jurity"]["sp_surrogate_50seeds"]
    ours = out["selection_rate_regression"][0] - out["selection_rate_regression"][1]
    # Jurity fits the same linear estimator on surrogate cells, averaged over bootstraps
    assert abs(ours - spread["mean"]) <= 3 * spread["sd"]
    assert spread["min"] - spread["sd"] <= ours <= spread["max"] + spread["sd"]


def test_rates_by_hand_with_labels_and_a_by_attribute() -> None:
    rows = pl.DataFrame({
        "cell": ["x", "x", "x", "x", "y", "y", "y"],
        "p0": [0.9, 0.2, 0.6, 0.3, 1.0, 0.5, 0.0],
        "y_true": [1, 1, 0, 0, 1, 0, 1],
        "y_pred": [1, 0, 1, 0, 1, 1, 0],
    }).with_columns(p1=1.0 - pl.col("p0"))
    out = _report(rows, ["p0", "p1"], ["a", "b"], y_true="y_true", by=["cell"],
                  reference={"cell": "x", "g": "b"})
    assert out.select("g", "cell").rows() == [("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")]
    # cell x, group a: tpr = (0.9) / (0.9 + 0.2); fpr = 0.6 / (0.6 + 0.3); selection 1.5 / 2.0
    assert out["tpr_weighted"][0] == pytest.approx(0.9 / 1.1, abs=1e-15)
    assert out["fpr_weighted"][0] == pytest.approx(0.6 / 0.9, abs=1e-15)
    assert out["selection_rate_weighted"][0] == pytest.approx(1.5 / 2.0, abs=1e-15)
    # n_effective of (x, a): (0.9 + 0.2 + 0.6 + 0.3)^2 / (0.81 + 0.04 + 0.36 + 0.09)
    assert out["n_effective"][0] == pytest.approx(4.0 / 1.3, abs=1e-12)
    # argmax: x has rows 0 and 2 in a (selected both), rows 1 and 3 in b (none selected)
    assert out["selection_rate_argmax"].gather([0, 2]).to_list() == [1.0, 0.0]
    # y: p0 = 1.0 and the tie 0.5 go to a (ties to the first declared), 0.0 to b
    assert out["n_argmax"].to_list() == [2, 2, 2, 1]
    assert out["is_reference"].to_list() == [False, False, True, False]
    assert out["verdict"][2] is None
    assert set(out["verdict"].drop_nulls()) <= {"pass", "fail", "indeterminate"}


def _two_groups(n: int, rates: tuple[float, float], sharpness: float, seed: int
                ) -> pl.DataFrame:
    """Calibrated memberships: p_a ~ Beta(s, s), true group drawn from it, y_pred from the rate."""
    rng = np.random.default_rng(seed)
    p_a = rng.beta(sharpness, sharpness, size=n)
    truth = rng.random(n) < p_a  # a with probability p_a: the probabilities are calibrated
    y_pred = rng.random(n) < np.where(truth, rates[0], rates[1])
    return pl.DataFrame({"p_a": p_a, "p_b": 1.0 - p_a, "y_pred": y_pred.astype(np.int64),
                         "truth": np.where(truth, "a", "b")})


def test_clear_pass_and_clear_fail_read_as_such() -> None:
    same = _report(_two_groups(20_000, (0.5, 0.5), 0.1, seed=1), ["p_a", "p_b"], ["a", "b"],
                   reference="a")
    assert same["verdict"].to_list() == [None, "pass"]
    # the reference over itself is exactly 1, not a ratio of two independent samples
    for e in ("weighted", "argmax", "regression"):
        assert same.row(0, named=True)[f"impact_ratio_{e}_ci_low"] == 1.0
        assert same.row(0, named=True)[f"impact_ratio_{e}_ci_high"] == 1.0
    gap = _report(_two_groups(20_000, (0.6, 0.2), 0.1, seed=2), ["p_a", "p_b"], ["a", "b"],
                  reference="a")
    assert gap["verdict"].to_list() == [None, "fail"]


def test_reference_rules_and_errors() -> None:
    rows = _two_groups(500, (0.5, 0.4), 0.5, seed=3)
    largest = _report(rows, ["p_a", "p_b"], ["a", "b"])
    sizes = largest["weight_sum"].to_list()
    assert largest["is_reference"].to_list() == [sizes[0] >= sizes[1], sizes[0] < sizes[1]]
    top = _report(rows, ["p_a", "p_b"], ["a", "b"], reference="max_selection_rate")
    best = int(np.argmax(top["selection_rate_weighted"].to_numpy()))
    assert top["is_reference"].to_list() == [best == 0, best == 1]
    with pytest.raises(E.UnknownGroupError, match="'c'"):
        _report(rows, ["p_a", "p_b"], ["a", "b"], reference="c")
    with pytest.raises(E.InvalidArgumentError, match="overall"):
        _report(rows, ["p_a", "p_b"], ["a", "b"], reference="overall")


# -- seeded simulations: the truth is known ------------------------------------------------------

@pytest.mark.slow
def test_regression_is_unbiased_and_its_interval_covers_near_nominal() -> None:
    rates, reps, n = (0.55, 0.30), 400, 1500
    est, covered = np.empty((reps, 2)), np.zeros((reps, 2), dtype=bool)
    for r in range(reps):
        rows = _two_groups(n, rates, 0.6, seed=1000 + r)
        table = _table(rows, ["p_a", "p_b"], ["a", "b"], y_true=None).frame
        (fit,) = fit_cells(table, [], 2)
        beta, cov = fit.rates["selection_rate"]
        se = np.sqrt(np.diag(cov))
        est[r] = beta
        covered[r] = np.abs(beta - np.array(rates)) <= 1.959963984540054 * se
    mc_se = est.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(est.mean(axis=0) - np.array(rates)) <= 4 * mc_se)
    # 400 draws of a 95% interval: the coverage has sd 0.011; accept within 3 sd
    assert np.all(np.abs(covered.mean(axis=0) - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / reps))


@pytest.mark.slow
def test_regression_tpr_is_unbiased_and_its_delta_interval_covers_near_nominal() -> None:
    tpr, base, reps, n = np.array([0.8, 0.6]), np.array([0.5, 0.3]), 300, 3000
    est, covered = np.empty((reps, 2)), np.zeros((reps, 2), dtype=bool)
    for r in range(reps):
        rng = np.random.default_rng(5000 + r)
        p_a = rng.beta(0.5, 0.5, n)
        g = (rng.random(n) >= p_a).astype(np.int64)  # 0 (a) with probability p_a
        y_true = (rng.random(n) < base[g]).astype(np.int64)
        y_pred = (rng.random(n) < np.where(y_true == 1, tpr[g], 0.1)).astype(np.int64)
        rows = pl.DataFrame({"p_a": p_a, "p_b": 1 - p_a, "y_true": y_true, "y_pred": y_pred})
        table = _table(rows, ["p_a", "p_b"], ["a", "b"], y_true="y_true").frame
        (fit,) = fit_cells(table, [], 2)
        value, cov = fit.rates["tpr"]
        est[r] = value
        covered[r] = np.abs(value - tpr) <= 1.959963984540054 * np.sqrt(np.diag(cov))
    mc_se = est.std(axis=0, ddof=1) / np.sqrt(reps)
    # a ratio estimator: unbiased to first order, its O(1/n) bias far below the MC error
    assert np.all(np.abs(est.mean(axis=0) - tpr) <= 4 * mc_se)
    assert np.all(np.abs(covered.mean(axis=0) - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / reps))


@pytest.mark.slow
def test_weighted_estimator_equals_its_closed_form_expectation() -> None:
    rates, reps, n = np.array([0.55, 0.30]), 300, 2000
    rng = np.random.default_rng(7)
    p = np.column_stack([rng.beta(0.6, 0.6, size=n)] * 1)
    p = np.column_stack([p[:, 0], 1.0 - p[:, 0]])
    # given the probabilities, E[y_pred_i] = p_i . rates, so the weighted rate of group k has
    # expectation sum_i p_ik (p_i . rates) / sum_i p_ik (its denominator is fixed)
    expected = (p * (p @ rates)[:, None]).sum(axis=0) / p.sum(axis=0)
    draws = np.empty((reps, 2))
    for r in range(reps):
        truth = rng.random(n) < p[:, 0]
        y_pred = (rng.random(n) < np.where(truth, rates[0], rates[1])).astype(np.int64)
        rows = pl.DataFrame({"p_a": p[:, 0], "p_b": p[:, 1], "y_pred": y_pred})
        draws[r] = _report(rows, ["p_a", "p_b"], ["a", "b"], reference="a")[
            "selection_rate_weighted"].to_numpy()
    mc_se = draws.std(axis=0, ddof=1) / np.sqrt(reps)
    assert np.all(np.abs(draws.mean(axis=0) - expected) <= 4 * mc_se)
    # and it is attenuated: the expected gap is smaller than the true one
    assert expected[0] - expected[1] < rates[0] - rates[1]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_issue_case_miscalibrated_proxy_is_never_pass(seed: int) -> None:
    # true impact ratio 0.33 / 0.50 = 0.66; the proxy scores are shrunk toward 1/2 (too little
    # confident) and used as if they were probabilities: the weighted ratio rises above 0.8
    rows = _two_groups(200_000, (0.50, 0.33), 0.8, seed=seed)
    truth = rows.group_by("truth").agg(pl.col("y_pred").mean()).sort("truth")["y_pred"]
    assert truth[1] / truth[0] == pytest.approx(0.66, abs=0.02)
    shrunk = rows.with_columns(p_a=0.5 + 0.35 * (pl.col("p_a") - 0.5)).with_columns(
        p_b=1.0 - pl.col("p_a"))
    out = _report(shrunk, ["p_a", "p_b"], ["a", "b"], reference="a")
    assert out["impact_ratio_weighted"][1] > 0.8  # the trap: the weighted estimate passes
    assert out["verdict"][1] != "pass"


def test_one_hot_membership_gives_the_crisp_rates_by_all_three_estimators() -> None:
    rng = np.random.default_rng(21)
    n = 3_000
    group = rng.choice(3, n, p=[0.5, 0.3, 0.2])
    y_true = (rng.random(n) < np.array([0.5, 0.4, 0.3])[group]).astype(np.int64)
    y_pred = (rng.random(n) < np.where(y_true == 1, 0.7, 0.2)).astype(np.int64)
    rows = pl.DataFrame({f"p{k}": (group == k).astype(np.float64) for k in range(3)}).with_columns(
        y_true=pl.Series(y_true), y_pred=pl.Series(y_pred), g=pl.Series(group))
    # the crisp column g is dropped on the membership side: an attribute named like a column
    # of the input is refused (fix 24a item 2)
    out = _report(rows.drop("g"), ["p0", "p1", "p2"], [0, 1, 2], y_true="y_true", reference=0)
    crisp = rows.group_by("g").agg(
        n=pl.len(), selection_rate=pl.col("y_pred").mean(),
        tpr=pl.col("y_pred").filter(pl.col("y_true") == 1).mean(),
        fpr=pl.col("y_pred").filter(pl.col("y_true") == 0).mean()).sort("g")
    for rate in ("selection_rate", "tpr", "fpr"):
        for e in ("weighted", "argmax", "regression"):
            assert out[f"{rate}_{e}"].to_list() == pytest.approx(crisp[rate].to_list(),
                                                                 rel=1e-12), (rate, e)
    # HC0 with 0/1 memberships is the binomial variance mu (1 - mu) / n: the interval is the
    # hull of that Wald interval and the crisp Wilson interval at n (fix 24b2; it was the Wald
    # interval alone, a point at a rate of 0 or 1)
    z = 1.959963984540054
    mu, size = crisp["selection_rate"].to_numpy(), crisp["n"].to_numpy()
    wald = 1.959963984540054 * np.sqrt(mu * (1 - mu) / size)
    centre = (mu + z * z / (2 * size)) / (1 + z * z / size)
    half = z / (1 + z * z / size) * np.sqrt(mu * (1 - mu) / size + z * z / (4 * size**2))
    assert out["selection_rate_regression_ci_low"].to_list() == pytest.approx(
        np.minimum(mu - wald, centre - half).tolist(), rel=1e-9)
    assert out["selection_rate_regression_ci_high"].to_list() == pytest.approx(
        np.maximum(mu + wald, centre + half).tolist(), rel=1e-9)
    assert out["n_effective"].to_list() == pytest.approx(size.tolist(), rel=1e-12)
    assert out["attenuation"].to_list() == pytest.approx([1.0, 1.0, 1.0], rel=1e-12)


def test_attribute_named_like_an_output_column_is_the_clash_error() -> None:
    # formerly a raw Polars DuplicateError from the output schema (issue 24 review)
    df = pl.DataFrame({"p_a": [0.5, 1.0], "p_b": [0.5, 0.0], "y_pred": [1, 0]})
    with pytest.raises(E.InvalidArgumentError, match=r"\['verdict'\] clash .*proxy_report"):
        df.fair.proxy_report(membership={"verdict": {"a": "p_a", "b": "p_b"}}, y_true=None,
                             y_pred="y_pred")


def test_null_probabilities_follow_null_groups_as_in_report() -> None:
    # issue 24 review item 3: under null_groups="keep" the rows with a null probability were
    # dropped uncounted. Four one-hot rows (a: both selected; b: one of two) and four rows
    # whose probabilities are null, one of them selected.
    df = pl.DataFrame({"pa": [1.0, 0.0, 1.0, 0.0, None, None, None, None],
                       "pb": [0.0, 1.0, 0.0, 1.0, None, None, None, None],
                       "y_pred": [1, 0, 1, 1, 1, 0, 0, 0]})
    args: dict[str, Any] = {"membership": {"g": {"a": "pa", "b": "pb"}}, "y_true": None,
                            "reference": "a", "min_support": 0}
    r = df.fair.proxy_report(**args)
    assert r["g"].to_list() == ["a", "b", None]
    missing = r.row(2, named=True)
    # the missing group is a crisp group of 4 rows: weight 4, n_eff 16 / 4 = 4, rate 1/4
    assert (missing["weight_sum"], missing["n_effective"], missing["n_argmax"]) == (4.0, 4.0, 4)
    # attenuation 1, not null: a crisp group (review 8, item 5; the old null was wrong)
    assert missing["attenuation"] == 1.0 and missing["is_reference"] is False
    z = 1.959963984540054  # the 0.975 normal quantile
    p, n = 0.25, 4.0
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    for e in ("weighted", "argmax", "regression"):
        assert missing[f"selection_rate_{e}"] == 0.25
        assert missing[f"selection_rate_{e}_ci_low"] == pytest.approx(center - half, abs=1e-12)
        assert missing[f"selection_rate_{e}_ci_high"] == pytest.approx(center + half, abs=1e-12)
        assert missing[f"impact_ratio_{e}"] == 0.25  # against a's rate, 1 by every estimator
    # regression: a's rate is fitted exactly (one-hot, no residual). Its interval was the point
    # [1, 1] and the ratio's a log interval with the missing group's se alone (fix 24b2): now
    # a's interval is Wilson's at its 2 rows, so the three ratio intervals coincide (MOVER-R
    # of 1/4 over 2/2, independent)
    for s in ("_ci_low", "_ci_high"):
        assert missing[f"impact_ratio_regression{s}"] == pytest.approx(
            missing[f"impact_ratio_argmax{s}"], rel=1e-12)
    low_a = 2 / (2 + z * z)  # Wilson's lower bound at 2 of 2
    assert r.row(0, named=True)["selection_rate_regression_ci_low"] == pytest.approx(low_a,
                                                                                  rel=1e-12)
    assert missing["verdict"] == "indeterminate"  # its intervals straddle 4/5
    # the known groups' estimates are those of the four rows with probabilities
    assert r["selection_rate_weighted"].to_list()[:2] == [1.0, 0.5]
    with pytest.warns(UserWarning, match=r"dropped 4 row\(s\)"):
        dropped = df.fair.proxy_report(**args, null_groups="drop")
    assert dropped["g"].to_list() == ["a", "b"]
    assert dropped.drop("verdict").equals(r.head(2).drop("verdict"))
    with pytest.raises(E.NullGroupError):
        df.fair.proxy_report(**args, null_groups="raise")


def test_a_group_selected_3_of_3_is_indeterminate_not_a_sure_pass() -> None:
    # The third review's case (issue 24): 3 rows wholly in a, all selected, against 1,000 rows in
    # b with 770 selected. The log (Katz) interval had no variance term for a rate of 1 and read
    # [1.255, 1.343], a "pass"; the MOVER-R Wilson interval (tests/ratio_reference.py) reaches
    # down to 0.569, where a's own Wilson interval [0.44, 1] puts it, so the verdict is open.
    from tests.ratio_reference import mover_r

    y = [1] * 3 + [1] * 770 + [0] * 230
    rows = pl.DataFrame({"y_pred": y, "p_a": [1.0] * 3 + [0.0] * 1000,
                         "p_b": [0.0] * 3 + [1.0] * 1000})
    out = _report(rows, ["p_a", "p_b"], ["a", "b"], reference="b")
    a = out.row(0, named=True)
    low, high = mover_r(3, 3, 770, 1000)
    for e in ("weighted", "argmax"):
        assert a[f"impact_ratio_{e}"] == pytest.approx(1 / 0.77, rel=1e-12)
        assert (a[f"impact_ratio_{e}_ci_low"], a[f"impact_ratio_{e}_ci_high"]) == pytest.approx(
            (low, high), rel=1e-9)
    assert round(low, 3) == 0.569 and a["verdict"] == "indeterminate"
    # 0 of 5 selected: the lower bound is 0 and the upper u1 / sqrt(l2 (2 p2 - l2)), below 0.8
    rows = pl.DataFrame({"y_pred": [0] * 5 + y[3:], "p_a": [1.0] * 5 + [0.0] * 1000,
                         "p_b": [0.0] * 5 + [1.0] * 1000})
    a = _report(rows, ["p_a", "p_b"], ["a", "b"], reference="b").row(0, named=True)
    low, high = mover_r(0, 5, 770, 1000)
    for e in ("weighted", "argmax"):
        assert (a[f"impact_ratio_{e}_ci_low"], a[f"impact_ratio_{e}_ci_high"]) == pytest.approx(
            (0.0, high), rel=1e-9, abs=1e-15)
    assert high < 0.8
