"""The charts of the multiclass and continuous pages draw the analyses' figures, nothing else."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

from polars_fair import errors as E
from tests.audit.test_plot import require_plot_extra

DF = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4,
                   "band": ["lo", "lo", "hi", "hi", "lo", "lo", "lo", "hi"]})


@pytest.fixture(autouse=True)
def _plot() -> None:
    require_plot_extra()


def _data(spec: dict[str, Any], layer: int) -> list[dict[str, Any]]:
    """The rows one layer of a chart's spec draws (Altair gathers inline data in datasets)."""
    data = spec["layer"][layer].get("data", spec.get("data"))  # one layer: hoisted
    return list(data["values"] if "values" in data else spec["datasets"][data["name"]])


def test_the_class_chart_draws_the_reports_shares_and_ratios() -> None:
    from polars_fair.audit.outcome_plot import class_chart

    report = DF.fair.multiclass_report("g", y_pred="band", min_support=1)
    shares = class_chart(report).to_dict()
    got = {(r["group"], r["class"]): r["value"] for r in _data(shares, 0)}
    # hi: a 2/4, b 1/4; lo: a 2/4, b 3/4
    assert got == {("a", "hi"): 0.5, ("a", "lo"): 0.5, ("b", "hi"): 0.25, ("b", "lo"): 0.75}
    ratios = class_chart(report, value="impact_ratio", four_fifths=0.75).to_dict()
    got = {(r["group"], r["class"]): r["value"] for r in _data(ratios, 0)}
    assert got[("b", "hi")] == 0.5 and got[("a", "lo")] == pytest.approx(2 / 3)
    assert _data(ratios, 1) == [{"value": 0.75, "label": "four-fifths (0.75)"}]
    with pytest.raises(E.InvalidArgumentError, match="value"):
        class_chart(report, value="tpr")


def test_the_means_chart_draws_each_mean_and_marks_the_reference() -> None:
    from polars_fair.analyses.continuous import mean_intervals
    from polars_fair.audit.outcome_plot import means_chart

    df = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "v": [1.0, 2, 3, 2, 3, 4]})
    report = df.fair.continuous_report("g", y_pred="v", reference="b", min_support=1)
    means = mean_intervals(report, ["g"]).with_columns(report.select("is_reference"))
    spec = means_chart(means).to_dict()
    rows = _data(spec, 0)
    assert [(r["group"], r["mean"], r["is_reference"]) for r in rows] == [
        ("a", 2.0, False), ("b", 3.0, True)]
    assert _data(spec, 2) == [{"mean": 3.0}]  # the reference's mean, dashed
