"""Charts of a change (polars_fair.audit.change_plot): they draw what the tables hold."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import polars as pl
import pytest

from polars_fair import errors as E
from tests.audit.test_plot import chart_data, png_size, require_plot_extra


def _compare_table() -> pl.DataFrame:
    """A compare table by hand: a holds the top rate under both models; b falls below 0.8
    under the candidate; c is low support; 'x | y' spelling is checked with two keys."""
    return pl.DataFrame({
        "g": ["a", "b", "c"], "n": [100, 80, 10],
        "impact_ratio": [1.0, 0.6, None], "impact_ratio_baseline": [1.0, 0.9, 0.5],
        "impact_ratio_change": [0.0, -0.3, None], "mcnemar_p_value": [1.0, 0.01, 0.5],
        "adverse_impact_changed": [False, True, None], "low_support": [False, False, True],
    })


def test_compare_chart_draws_both_models_per_group_with_the_four_fifths_line() -> None:
    require_plot_extra()
    from polars_fair.plot import compare_chart

    chart = compare_chart(_compare_table(), four_fifths=0.75)
    rows = chart_data(chart)
    bars = {(r["group"], r["model"]): r for r in rows if "model" in r}
    # c's candidate figure is undefined: no bar; every other (group, model) has one
    assert set(bars) == {("a", "baseline"), ("a", "candidate"), ("b", "baseline"),
                         ("b", "candidate"), ("c", "baseline")}
    assert bars[("b", "baseline")]["value"] == 0.9 and bars[("b", "candidate")]["value"] == 0.6
    assert bars[("c", "baseline")]["low_support"] and not bars[("b", "candidate")]["low_support"]
    assert bars[("b", "candidate")]["impact_ratio_change"] == -0.3
    assert any(r.get("label") == "four-fifths rule: 0.75" and r["value"] == 0.75 for r in rows)
    subtitle = chart.to_dict()["title"]["subtitle"]
    assert "four-fifths verdict changed: b" in subtitle
    only_two = compare_chart(_compare_table(), max_groups=2).to_dict()
    assert "1 smaller group(s) not drawn: c" in only_two["title"]["subtitle"]


def test_compare_chart_of_a_rate_has_no_four_fifths_line_and_reads_the_api() -> None:
    require_plot_extra()
    import polars_fair  # noqa: F401
    from polars_fair.plot import compare_chart

    # a: 2 of 4 under both; b: the baseline selects 2 of 4, the candidate 1 of them
    df = pl.DataFrame({"s": ["a"] * 4 + ["b"] * 4, "r": ["x"] * 8,
                       "new": [1, 1, 0, 0, 1, 0, 0, 0], "old": [1, 1, 0, 0, 1, 1, 0, 0]})
    out = df.fair.compare(["s", "r"], y_pred="new", baseline="old", min_support=1)
    chart = compare_chart(out, metric="selection_rate")
    rows = chart_data(chart)
    bars = {(r["group"], r["model"]): r["value"] for r in rows if "model" in r}
    assert bars == {("a | x", "baseline"): 0.5, ("a | x", "candidate"): 0.5,
                    ("b | x", "baseline"): 0.5, ("b | x", "candidate"): 0.25}
    assert not any("label" in r for r in rows)


def test_compare_chart_refuses_an_unknown_metric_and_a_missing_column() -> None:
    require_plot_extra()
    from polars_fair.audit.change_plot import COMPARE_CHART_METRIC, compare_chart

    with pytest.raises(E.InvalidArgumentError) as bad:
        compare_chart(_compare_table(), metric="ppv")
    assert str(bad.value) == COMPARE_CHART_METRIC.format(
        allowed=["impact_ratio", "selection_rate", "tpr", "fpr", "ofi"], value="ppv")
    with pytest.raises(E.ColumnNotFoundError, match="'tpr_baseline'"):
        compare_chart(_compare_table().with_columns(tpr=pl.lit(0.5)), metric="tpr")


def _monitor_table() -> pl.LazyFrame:
    # a (reference) selects 20 and 22 of 40 in two weeks; b 4 and 4: the monitor's own
    # docstring example, whose sequence excludes 0 from the second week on
    days = [dt.date(2024, 1, 1), dt.date(2024, 1, 8)]
    from polars_fair.analyses.monitor import monitor_from_counts

    t = pl.LazyFrame({"period": days * 2, "g": ["a", "a", "b", "b"], "n": [40] * 4,
                      "tp": [0] * 4, "fp": [20, 22, 4, 4], "fn": [0] * 4,
                      "tn": [20, 18, 36, 36]})
    return monitor_from_counts(t, ["g"], min_support=1)


@pytest.mark.slow  # renders PNG and SVG (as test_html.py)
def test_monitor_chart_draws_the_difference_its_sequence_and_the_first_alarm(
        tmp_path: Path) -> None:
    require_plot_extra()
    from polars_fair.plot import monitor_chart, save

    table = _monitor_table().collect()
    chart = monitor_chart(table)
    spec = chart.to_dict()
    zero, band, line, alarms = ([dict(r) for r in layer.data.values] for layer in chart.layer)
    assert zero == [{"difference": 0.0}]
    drawn = line
    # the reference a has no line; b's MH differences: 4/40 - 20/40 = -0.4, then
    # (w (-0.4) + w (4/40 - 22/40)) / 2w = -0.425 (equal weights w = 40 * 40 / 80)
    assert [(r["group"], r["period"], r["difference"]) for r in drawn] == [
        ("b", "2024-01-01", -0.4), ("b", "2024-01-08", -0.425)]
    b = table.filter(pl.col("g") == "b")
    assert [r["cs_low"] for r in drawn] == b["cs_low"].to_list()
    assert [r["cs_high"] for r in drawn] == b["cs_high"].to_list()
    assert b["alarm"].to_list() == [False, True]
    assert [(r["group"], r["period"]) for r in alarms] == [("b", "2024-01-08")]
    assert band == drawn
    assert spec["layer"][1]["encoding"]["y2"]["field"] == "cs_high"
    assert "minus a's" in spec["title"]["subtitle"][0]
    assert png_size(save(chart, tmp_path / "monitor.png", scale=1))[0] > 300
    assert save(chart, tmp_path / "monitor.svg").read_text().startswith("<svg")


@pytest.mark.slow  # renders a PNG
def test_compare_chart_renders_offline_to_png(tmp_path: Path) -> None:
    require_plot_extra()
    from polars_fair.plot import compare_chart, save

    width, height = png_size(save(compare_chart(_compare_table()), tmp_path / "c.png",
                                  scale=1))
    assert width > 200 and height > 200
