"""df.fair.monitor: anytime-valid fairness over time (issue 25, item 3).

Expected values: the e-value property by exact binomial sums (scipy's binomial pmf, used only
here), hand computations of the pooled difference and the e-value at 0, and seeded simulations
whose false alarms are bounded by a binomial quantile (where a naive z-test at every look is
not).
"""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy.stats import binom, norm

import polars_fair
from polars_fair import errors as E
from polars_fair.analyses.evalues import alarms_at_zero, log_evalues, sequences


@pytest.mark.parametrize(("n_g", "n_r"), [(1, 1), (3, 5), (8, 4), (10, 10)])
@pytest.mark.parametrize(("a", "b"), [(0.0, 1.0), (-0.3, 1.0), (0.2, 1.0), (0.0, 0.5),
                                      (0.0, 0.8), (0.0, 1.3)])
def test_each_periods_evalue_has_expectation_at_most_one_on_the_null_line(
        n_g: int, n_r: int, a: float, b: float) -> None:
    s_g = np.repeat(np.arange(n_g + 1), n_r + 1)
    s_r = np.tile(np.arange(n_r + 1), n_g + 1)
    size = s_g.size
    for q_g, q_r in [(0.5, 0.5), (0.2, 0.7), (0.9, 0.3), (0.05, 0.6), (0.999, 0.001)]:
        le = log_evalues(s_g, np.full(size, n_g), s_r, np.full(size, n_r), np.full(size, q_g),
                         np.full(size, q_r), [a], [b])[:, 0]
        for p_r in np.linspace(0.01, 0.99, 25):
            p_g = a + b * p_r
            if not 0 < p_g < 1:
                continue
            weight = binom.pmf(s_g, n_g, p_g) * binom.pmf(s_r, n_r, p_r)
            assert float(np.sum(weight * np.exp(le))) <= 1 + 1e-9


def test_the_evalue_at_zero_by_hand() -> None:
    # one period, predictions 1/2: theta0 = 1/2, every log term log(1) = 0
    assert log_evalues([3], [10], [7], [10], [0.5], [0.5], [0.0], [1.0])[0, 0] == pytest.approx(
        0.0, abs=1e-12)
    # q_g 0.2, q_r 0.6, n 10 and 30: theta0 = (2 + 18)/40 = 1/2
    le = log_evalues([2], [10], [18], [30], [0.2], [0.6], [0.0], [1.0])[0, 0]
    hand = (2 * math.log(0.2 / 0.5) + 8 * math.log(0.8 / 0.5) + 18 * math.log(0.6 / 0.5)
            + 12 * math.log(0.4 / 0.5))
    assert le == pytest.approx(hand, rel=1e-9)


HAND_DAYS = [dt.date(2024, 1, 1), dt.date(2024, 1, 8), dt.date(2024, 1, 15)]


def _hand_rows() -> pl.DataFrame:
    # week 1: a 10 rows, 5 selected; b 10 rows, 1 selected
    # week 2: a 20 rows, 10 selected; b 5 rows, 0 selected
    # week 3: a 10 rows, 6 selected; b 10 rows, 2 selected
    rows = []
    for day, (na, sa, nb, sb) in zip(HAND_DAYS, [(10, 5, 10, 1), (20, 10, 5, 0),
                                                  (10, 6, 10, 2)], strict=True):
        rows += [("a", day, int(i < sa)) for i in range(na)]
        rows += [("b", day + dt.timedelta(days=2), int(i < sb)) for i in range(nb)]
    return pl.DataFrame(rows, schema=["g", "t", "y_pred"], orient="row")


def test_monitor_by_hand() -> None:
    m = _hand_rows().fair.monitor("g", time="t", every="1w", y_pred="y_pred", min_support=1)
    b = m.filter(pl.col("g") == "b")
    assert b["period"].to_list() == HAND_DAYS
    assert b["rate"].to_list() == [0.1, 0.0, 0.2]
    # Mantel-Haenszel: w = n_g n_r/(n_g + n_r): 5, 4, 5; d = -0.4, -0.5, -0.4
    assert b["difference"].to_list() == pytest.approx(
        [-0.4, (5 * -0.4 + 4 * -0.5) / 9, (5 * -0.4 + 4 * -0.5 + 5 * -0.4) / 14])
    # risk ratio: sum(s_b n_a/N) / sum(s_a n_b/N): week 1 (1*10/20)/(5*10/20) = 0.2
    assert b["impact_ratio"][0] == pytest.approx(0.2)
    # p_anytime from the e-values at 0, computed here: predictions q_r = 1/2, then
    # 0.7/2 + 0.3 * 5.5/11 = 1/2, then 0.35 + 0.3 * 10.5/21 = 1/2; q_b = q_r + earlier mean d
    q_b = [0.5, 0.5 - 0.4, 0.5 + (5 * -0.4 + 4 * -0.5) / 9]
    total, best = 0.0, 0.0
    for (nb, sb, na, sa), qb in zip([(10, 1, 10, 5), (5, 0, 20, 10), (10, 2, 10, 6)], q_b,
                                    strict=True):
        th = (nb * qb + na * 0.5) / (nb + na)
        total += (sb * math.log(qb / th) + (nb - sb) * math.log((1 - qb) / (1 - th))
                  + sa * math.log(0.5 / th) + (na - sa) * math.log(0.5 / (1 - th)))
        best = max(best, total)
    assert b["p_anytime"][2] == pytest.approx(min(1.0, math.exp(-best)), rel=1e-9)
    a = m.filter(pl.col("g") == "a")
    assert a["is_reference"].all() and a["p_anytime"].is_null().all()


def test_cs_holds_the_difference_and_alarm_is_p_anytime_at_alpha() -> None:
    rng = np.random.default_rng(11)
    n_g, n_r = rng.poisson(60, 30), rng.poisson(150, 30)
    s_g, s_r = rng.binomial(n_g, 0.2), rng.binomial(n_r, 0.35)
    seq = sequences(s_g, n_g, s_r, n_r, alpha=0.05, four_fifths=0.8)
    assert np.all(seq.cs_low <= seq.cs_high)
    assert (seq.alarm == (seq.p_anytime <= 0.05)).all()
    assert (seq.alarm == alarms_at_zero(s_g, n_g, s_r, n_r, alpha=0.05)).all()
    assert seq.alarm[-1] and seq.cs_high[-1] < 0  # 0.20 against 0.35 over 30 periods
    assert seq.cs_low[-1] <= -0.15 <= seq.cs_high[-1]
    assert seq.four_fifths_alarm[-1] and seq.ir_cs_high[-1] < 0.8


def _z_alarm(s_g: np.ndarray, n_g: np.ndarray, s_r: np.ndarray, n_r: np.ndarray) -> bool:
    """The naive monitor: a two-proportion z-test on cumulative counts at every look."""
    cg, cr, ng, nr = np.cumsum(s_g), np.cumsum(s_r), np.cumsum(n_g), np.cumsum(n_r)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = (cg + cr) / (ng + nr)
        z = (cg / ng - cr / nr) / np.sqrt(p * (1 - p) * (1 / ng + 1 / nr))
    return bool(np.any(np.abs(np.nan_to_num(z)) > norm.ppf(0.975)))


@pytest.mark.parametrize("null", ["constant", "drift of rate and share"])
def test_false_alarms_stay_within_the_binomial_bound_where_a_z_test_does_not(
        null: str) -> None:
    rng = np.random.default_rng(2025 if null == "constant" else 52)
    streams, looks, alpha = 400, 52, 0.05
    bound = binom.ppf(0.999, streams, alpha)  # 33 of 400
    ours = naive = 0
    t = np.arange(looks) / looks
    for _ in range(streams):
        if null == "constant":
            rate, n_g, n_r = np.full(looks, 0.3), rng.poisson(40, looks), rng.poisson(120, looks)
        else:  # the rate rises while the group's share grows: Simpson's trap for cumulation
            rate = 0.1 + 0.5 * t
            n_g, n_r = rng.poisson(10 + 80 * t), rng.poisson(120 - 80 * t)
        s_g, s_r = rng.binomial(n_g, rate), rng.binomial(n_r, rate)
        ours += bool(alarms_at_zero(s_g, n_g, s_r, n_r, alpha=alpha)[-1])
        naive += _z_alarm(s_g, n_g, s_r, n_r)
    assert ours <= bound
    assert naive > bound


def test_the_rows_the_period_table_and_every_polars_route_agree() -> None:
    df = _hand_rows()
    expected = df.fair.monitor("g", time="t", every="1w", y_pred="y_pred", min_support=1)
    table = polars_fair.period_counts(df, "g", time="t", every="1w",
                                      y_pred="y_pred").frame.collect()
    again = polars_fair.from_period_counts(table, "g").monitor(min_support=1).collect()
    assert_frame_equal(again, expected)
    lazy = df.lazy().fair.monitor("g", time="t", every="1w", y_pred="y_pred", min_support=1)
    assert_frame_equal(lazy.collect(engine="streaming"), expected)
    # a datetime column gives the same periods
    dtime = df.with_columns(pl.col("t").cast(pl.Datetime("us")) + pl.duration(hours=13))
    assert_frame_equal(dtime.fair.monitor("g", time="t", every="1w", y_pred="y_pred",
                                          min_support=1), expected)


def test_every_group_in_every_period() -> None:
    df = _hand_rows().filter(~((pl.col("g") == "b") & (pl.col("t") < dt.date(2024, 1, 14))))
    m = df.fair.monitor("g", time="t", every="1w", y_pred="y_pred", min_support=1)
    b = m.filter(pl.col("g") == "b")
    assert b["denominator"].to_list() == [0, 0, 10]
    assert b["rate"].to_list() == [None, None, 0.2]
    assert b["difference"][:2].to_list() == [None, None]


def test_monitor_errors() -> None:
    df = _hand_rows()
    args = dict(time="t", y_pred="y_pred")
    with pytest.raises(E.InvalidArgumentError) as every:
        df.fair.monitor("g", every="12h", **args)  # type: ignore[arg-type]
    assert str(every.value) == E.MONITOR_EVERY.format(value="12h")
    with pytest.raises(E.InvalidArgumentError) as dtype:
        df.with_columns(pl.col("t").cast(pl.String)).fair.monitor("g", every="1w", **args)  # type: ignore[arg-type]
    assert str(dtype.value) == E.MONITOR_TIME_DTYPE.format(column="t", dtype=pl.String)
    with pytest.raises(E.InvalidArgumentError) as metric:
        df.fair.monitor("g", every="1w", metric="ppv", **args)  # type: ignore[arg-type]
    assert str(metric.value) == E.MONITOR_METRIC.format(
        allowed=["selection_rate", "tpr", "fpr"], value="ppv")
    with pytest.raises(E.InvalidArgumentError) as labels:
        df.fair.monitor("g", every="1w", metric="tpr", **args)  # type: ignore[arg-type]
    assert str(labels.value) == E.MONITOR_NEEDS_LABELS.format(metric="tpr")
    with pytest.raises(E.InvalidArgumentError) as alpha:
        df.fair.monitor("g", every="1w", alpha=1.5, **args)  # type: ignore[arg-type]
    assert str(alpha.value) == E.MONITOR_ALPHA.format(value=1.5)
    with pytest.raises(E.InvalidArgumentError) as weights:
        df.with_columns(w=1.0).fair.monitor("g", every="1w", sample_weight="w", **args)  # type: ignore[arg-type]
    assert str(weights.value) == E.MONITOR_WEIGHTS
    with pytest.raises(E.InvalidArgumentError) as overall:
        df.fair.monitor("g", every="1w", reference="overall", **args)  # type: ignore[arg-type]
    assert str(overall.value) == E.MONITOR_NO_REFERENCE.format(reference="overall")
    with pytest.raises(E.ColumnNotFoundError, match="'when' \\(time\\)"):
        df.fair.monitor("g", time="when", every="1w", y_pred="y_pred")


def test_the_null_point_is_the_root_scipy_finds() -> None:
    from scipy.optimize import brentq

    rng = np.random.default_rng(4)
    for _ in range(40):
        n_g, n_r = rng.integers(1, 500, 2)
        q_g, q_r = rng.uniform(0.001, 0.999, 2)
        a, b = (rng.uniform(-0.5, 0.5), 1.0) if rng.random() < 0.5 else (0.0, rng.uniform(0.2, 3))
        lo, hi = max(0.0, -a / b), min(1.0, (1 - a) / b)

        def score(th: float, a: float = a, b: float = b, n_g: float = n_g, n_r: float = n_r,
                  q_g: float = q_g, q_r: float = q_r) -> float:
            h = a + b * th
            return n_g * b * (q_g - h) / (h * (1 - h)) + n_r * (q_r - th) / (th * (1 - th))

        eps = 1e-12
        theta = brentq(score, lo + eps, hi - eps, xtol=1e-15)
        h = a + b * theta
        s_g, s_r = int(n_g * 0.3), int(n_r * 0.6)
        hand = (s_g * math.log(q_g / h) + (n_g - s_g) * math.log((1 - q_g) / (1 - h))
                + s_r * math.log(q_r / theta) + (n_r - s_r) * math.log((1 - q_r) / (1 - theta)))
        got = log_evalues([s_g], [n_g], [s_r], [n_r], [q_g], [q_r], [a], [b])[0, 0]
        assert got == pytest.approx(hand, rel=1e-7, abs=1e-7)


def test_a_weighted_period_table_is_refused_not_truncated() -> None:
    # weighted sums 2.5 and 1.5 are no counts: the e-values would read them as 2 and 1
    t = pl.DataFrame({"period": [dt.date(2024, 1, 1)] * 2, "g": ["a", "b"], "n": [4, 4],
                      "tp": [0.0, 0.0], "fp": [2.5, 1.5], "fn": [0.0, 0.0], "tn": [2.5, 3.5],
                      "weight_sum": [5.0, 5.0]})
    with pytest.raises(E.InvalidArgumentError) as weights:
        polars_fair.from_period_counts(t, "g").monitor(min_support=1)
    assert str(weights.value) == E.MONITOR_WEIGHTS


def test_a_null_time_is_an_error_not_a_period() -> None:
    # 3 rows of a (week 2) lose their time: no hidden null period, a typed error naming time, 3
    df = _hand_rows().with_row_index().with_columns(
        t=pl.when(pl.col("index").is_in([25, 26, 27])).then(None).otherwise(pl.col("t")))
    with pytest.raises(E.NullValuesError) as err:
        df.fair.monitor("g", time="t", every="1w", y_pred="y_pred", min_support=1)
    assert str(err.value) == E.MONITOR_NULL_TIME.format(column="t", count=3)
    # the advice followed: the rows without a time dropped, the monitor runs on the rest
    kept = df.drop_nulls("t").fair.monitor("g", time="t", every="1w", y_pred="y_pred",
                                           min_support=1)
    assert kept.filter(pl.col("g") == "a")["denominator"].to_list() == [10, 17, 10]
    duckdb = pytest.importorskip("duckdb")
    with pytest.raises(E.NullValuesError) as on_duckdb:
        polars_fair.period_counts(duckdb.from_arrow(df.drop("index").to_arrow()), "g",
                                  time="t", every="1w", y_pred="y_pred").frame.collect()
    assert str(on_duckdb.value) == str(err.value)


def test_from_period_counts_refuses_a_null_period_and_takes_fair_periods() -> None:
    periods = polars_fair.period_counts(_hand_rows(), "g", time="t", every="1w",
                                        y_pred="y_pred")
    table = periods.frame.collect()
    with pytest.raises(E.NullValuesError) as err:
        polars_fair.from_period_counts(table.with_columns(
            period=pl.when(pl.col("g") == "b").then(None).otherwise(pl.col("period"))), "g")
    assert str(err.value) == E.MONITOR_NULL_PERIOD.format(count=3)  # b's three weeks
    again = polars_fair.from_period_counts(periods).monitor(min_support=1).collect()
    assert_frame_equal(again, periods.monitor(min_support=1).collect())
    with pytest.raises(E.InvalidArgumentError, match="pass its .frame"):
        polars_fair.from_period_counts([1, 2])  # type: ignore[arg-type]
    # the advice followed: its .frame
    by_frame = polars_fair.from_period_counts(periods.frame, "g").monitor(min_support=1)
    assert_frame_equal(by_frame.collect(), again)


def test_a_zoned_time_falls_on_its_local_date() -> None:
    # 2024-01-31 23:30 UTC is 2024-02-01 00:30 in Paris: the February period, as
    # pl.Expr.dt.date and dt.truncate("1mo") give in the column's zone
    utc = dt.datetime(2024, 1, 31, 23, 30, tzinfo=dt.timezone.utc)
    df = pl.DataFrame({"g": ["a", "b"], "y_pred": [1, 0], "t": [utc, utc]}).with_columns(
        pl.col("t").dt.convert_time_zone("Europe/Paris"))
    assert df["t"].dt.truncate("1mo").dt.date().to_list() == [dt.date(2024, 2, 1)] * 2
    table = polars_fair.period_counts(df, "g", time="t", every="1mo",
                                      y_pred="y_pred").frame.collect()
    assert table["period"].to_list() == [dt.date(2024, 2, 1)] * 2
    # the same instant in UTC stays in January
    table = polars_fair.period_counts(df.with_columns(pl.col("t").dt.convert_time_zone("UTC")),
                                      "g", time="t", every="1mo", y_pred="y_pred").frame
    assert table.collect()["period"].to_list() == [dt.date(2024, 1, 1)] * 2


def test_the_shown_sequences_are_what_the_alarms_read() -> None:
    # random streams near the four-fifths line: the alarms are read off the columns (the
    # bounds are open ends: the nearest rejected grid values), and once true stay true
    rng = np.random.default_rng(5)
    for _ in range(40):
        n_g, n_r = rng.poisson(40, 25) + 1, rng.poisson(80, 25) + 1
        s_g, s_r = rng.binomial(n_g, 0.24), rng.binomial(n_r, 0.3)
        seq = sequences(s_g, n_g, s_r, n_r, alpha=0.05, four_fifths=0.8)
        shown = ~np.isnan(seq.cs_low)
        assert (seq.alarm[shown] == ((seq.cs_high <= 0) | (seq.cs_low >= 0))[shown]).all()
        bounded = ~np.isnan(seq.ir_cs_low) & ~np.isnan(seq.ir_cs_high)
        assert (seq.four_fifths_alarm[bounded] == (seq.ir_cs_high < 0.8)[bounded]).all()
        for flag in (seq.alarm, seq.four_fifths_alarm):
            assert (np.maximum.accumulate(flag) == flag).all()
        # running intersections: the bounds only narrow
        assert (np.diff(seq.cs_low[shown]) >= 0).all() and (np.diff(seq.cs_high[shown]) <= 0).all()
