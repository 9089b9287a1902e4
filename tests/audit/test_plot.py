"""Charts of polars_fair.audit.plot: every chart renders offline to PNG, and draws what it says."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from polars_fair import errors as E
from polars_fair.core.registry import METRICS
from polars_fair.datasets import make_hiring

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def require_plot_extra() -> None:
    """Skip without altair/vl-convert/great-tables, except on CI (CI=true) where it fails."""
    try:
        import altair  # noqa: F401
        import great_tables  # noqa: F401
        import vl_convert  # noqa: F401
    except ImportError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f'CI=true but the plot extra is missing ({exc}): pip install ".[plot]"')
        pytest.skip(f"the plot extra is not installed ({exc})")


@pytest.fixture(scope="module")
def demo() -> pl.DataFrame:
    require_plot_extra()
    return make_hiring(6000, seed=0)


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG header, after checking the magic bytes."""
    data = path.read_bytes()
    assert data[:8] == PNG_MAGIC, f"{path} is not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def chart_data(chart: Any) -> list[dict[str, Any]]:
    """Every inline data row of a (layered) chart spec."""
    spec = chart.to_dict()
    rows: list[dict[str, Any]] = []
    for layer in [spec, *spec.get("layer", [])]:
        rows.extend(layer.get("data", {}).get("values", []))
    for ds in spec.get("datasets", {}).values():
        rows.extend(ds)
    return rows


def test_core_modules_import_without_the_plot_extra() -> None:
    code = (
        "import sys; import polars_fair, polars_fair.audit.plot, polars_fair.audit.style, "
        "polars_fair.audit.html, polars_fair.cli.entry; "
        "bad = [m for m in ('altair', 'vl_convert', 'great_tables') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_missing_extra_raises_importerror_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from polars_fair.audit import plot

    monkeypatch.setitem(sys.modules, "altair", None)  # makes `import altair` fail
    pairs = pl.DataFrame({"g_i": ["a"], "g_j": ["b"], "ofi": [0.1]})
    # the advice a source install can follow (the package is installed from its checkout)
    with pytest.raises(ImportError, match=r'pip install "\.\[plot\]" in the source checkout'):
        plot.pairwise_heatmap(pairs)


def test_every_chart_renders_to_png(demo: pl.DataFrame, tmp_path: Path) -> None:
    from polars_fair.analyses.scores.power import power_curve
    from polars_fair.audit import plot

    curve = power_curve(sizes=[100, 300], delta_aucs=[0.1, 0.2], n_simulations=8,
                        n_permutations=20, seed=0)
    charts = {
        "ofi": plot.pairwise_heatmap(demo.fair.pairwise(["race", "sex"]), "ofi"),
        "di": plot.pairwise_heatmap(demo.fair.pairwise("race"), "disparate_impact"),
        "rates": plot.rates_chart(demo.fair.metrics(["race", "sex"])),
        "roc": plot.roc_chart(demo.fair.scores("race", y_score="y_score")),
        "calibration": plot.calibration_chart(demo.fair.reliability("race", y_score="y_score")),
        "power": plot.power_chart(curve),
        "thresholds": plot.threshold_chart(
            demo.fair.sweep("race", y_score="y_score", thresholds=[0.3, 0.5, 0.7])),
        "divergence": plot.divergence_chart(pl.DataFrame({
            "attributes": [["race"], ["sex"]], "race": ["Black", None], "sex": [None, "Male"],
            "divergence": [-0.1, 0.04], "ci_low": [-0.15, 0.0], "ci_high": [-0.05, 0.08],
            "significant": [True, False]})),
    }
    for name, chart in charts.items():
        path = plot.save(chart, tmp_path / f"{name}.png")
        width, height = png_size(path)
        assert width >= 300 and height >= 250, (name, width, height)
        assert path.stat().st_size > 10_000, name  # a drawn chart, not an empty canvas


def test_save_picks_the_format_by_suffix(demo: pl.DataFrame, tmp_path: Path) -> None:
    from polars_fair.audit import plot

    chart = plot.rates_chart(demo.fair.metrics("sex"))
    svg = plot.save(chart, tmp_path / "r.svg").read_text()
    assert svg.startswith("<svg") and METRICS["tpr"].title in svg
    spec = json.loads(plot.save(chart, tmp_path / "r.json").read_text())
    assert "layer" in spec
    with pytest.raises(E.InvalidArgumentError, match="use a .png, .svg or .json suffix"):
        plot.save(chart, tmp_path / "r.gif")


def test_rendering_never_reaches_the_network(tmp_path: Path) -> None:
    require_plot_extra()
    from polars_fair.audit import plot

    remote = {"data": {"url": "https://example.invalid/data.json"}, "mark": "bar"}
    with pytest.raises(Exception, match="not allowed"):
        plot.save(remote, tmp_path / "x.png")


def test_heatmap_diverges_around_no_bias(demo: pl.DataFrame) -> None:
    from polars_fair.audit import plot

    pairs = demo.fair.pairwise(["race", "sex"])
    for metric, mid in (("ofi", 0.0), ("disparate_impact", 1.0)):
        spec = plot.pairwise_heatmap(pairs, metric).to_dict()
        scales = [layer["encoding"]["color"]["scale"] for layer in spec["layer"]
                  if "color" in layer.get("encoding", {}) and "scale" in layer["encoding"]["color"]]
        assert scales and scales[0]["domainMid"] == mid
        low, high = scales[0]["domain"]
        assert low < mid < high
        if metric == "ofi":  # a difference: symmetric around 0
            assert high - mid == pytest.approx(mid - low)
        else:  # a ratio (issue 12): log scale symmetric around 1, so 0.5 and 2 look alike
            assert scales[0]["type"] == "log"
            assert high * low == pytest.approx(1.0)


def test_di_heatmap_states_its_clipping_and_keeps_the_true_value() -> None:
    """DI 8.61 is beyond the largest bound 8: its colour is clipped to 8, its text is 8.61,
    and the subtitle counts it; 0.5 and 2 are equally far from 1 on the colour scale."""
    require_plot_extra()
    from polars_fair.audit import plot

    pairs = pl.DataFrame({"g_i": ["a", "b", "a", "c"], "g_j": ["b", "a", "c", "a"],
                          "disparate_impact": [8.61, 1 / 8.61, 2.0, 0.5]})
    chart = plot.pairwise_heatmap(pairs, "disparate_impact")
    rows = {(r["i"], r["j"]): r for r in chart_data(chart) if r["i"] != r["j"]}
    assert rows[("a", "b")]["text"] == "8.61" and rows[("a", "b")]["colour"] == 8.0
    assert rows[("b", "a")]["colour"] == pytest.approx(1 / 8)
    assert rows[("a", "c")]["colour"] == 2.0 and rows[("c", "a")]["colour"] == 0.5
    subtitle = " ".join(chart.to_dict()["title"]["subtitle"])
    assert "clipped to [1/8, 8]: 2 cell(s) beyond it" in subtitle
    # within the bounds nothing is clipped and the bound is the smallest that holds all
    small = plot.pairwise_heatmap(pairs.filter(pl.col("g_i") != "b", pl.col("g_j") != "b"),
                                  "disparate_impact")
    assert "clipped to [1/2, 2]: no cell beyond it" in " ".join(
        small.to_dict()["title"]["subtitle"])
    explicit = plot.pairwise_heatmap(pairs, "disparate_impact", ratio_clip=4.0)
    assert "clipped to [1/4, 4]: 2 cell(s)" in " ".join(explicit.to_dict()["title"]["subtitle"])


def test_a_missing_group_reads_missing_not_a_dash() -> None:
    from polars_fair.audit.plot import MISSING_GROUP, group_label

    df = pl.DataFrame({"race": ["a", None], "sex": [None, "F"]})
    assert MISSING_GROUP == "(missing)"
    assert df.select(group_label(["race", "sex"]))["group"].to_list() == [
        "a | (missing)", "(missing) | F"]


def test_calibration_small_multiples_mark_thin_bins_and_name_left_out_groups() -> None:
    """Group a has bins of 40 and 5 rows, b one bin of 30, c one of 2 rows; with min_count 30
    the 5- and 2-row bins are marked, and with max_groups 2 the smallest group c is named."""
    require_plot_extra()
    from polars_fair.audit import plot

    rel = pl.DataFrame({"g": ["a", "a", "b", "b", "c"], "bin": [0, 1, 0, 1, 0],
                        "n": [40, 5, 30, 0, 2], "mean_score": [0.2, 0.7, 0.3, None, 0.5],
                        "fraction_positive": [0.25, 0.6, 0.3, None, 1.0]})
    chart = plot.calibration_chart(rel, min_count=30, max_groups=2)
    spec = chart.to_dict()
    assert "facet" in spec and spec["columns"] == 4
    rows = chart_data(chart)
    assert sorted((r["group"], r["n"], r["few"], r["label"]) for r in rows) == [
        ("a", 5, True, "5"), ("a", 40, False, "40"), ("b", 30, False, "30")]
    assert "1 smaller group(s) not drawn: c" in spec["title"]["subtitle"][1]


def test_threshold_chart_reads_the_sweep_with_the_four_fifths_line() -> None:
    """Hand-made sweep rows: a is the highest selection rate (impact ratio 1), b falls from
    0.9 to 0.6, c (low support) is undefined at 0.9 (nobody selected)."""
    require_plot_extra()
    from polars_fair.audit import plot

    sweep = pl.DataFrame({
        "g": ["a", "b", "c"] * 2, "threshold": [0.5] * 3 + [0.9] * 3,
        "n": [100, 80, 10] * 2, "selection_rate": [0.5, 0.45, 0.2, 0.1, 0.06, 0.0],
        "impact_ratio": [1.0, 0.9, 0.4, 1.0, 0.6, None], "low_support": [False, False, True] * 2,
    })
    chart = plot.threshold_chart(sweep, four_fifths=0.75)
    rows = chart_data(chart)
    drawn = {(r["group"], r["threshold"]): r for r in rows if "group" in r}
    assert set(drawn) == {("a", 0.5), ("b", 0.5), ("c", 0.5), ("a", 0.9), ("b", 0.9)}
    assert drawn[("b", 0.9)]["adverse"] and not drawn[("b", 0.5)]["adverse"]
    assert drawn[("c", 0.5)]["low_support"]
    assert any(r.get("label") == "four-fifths rule: 0.75" and r["impact_ratio"] == 0.75
               for r in rows)
    only_two = plot.threshold_chart(sweep, max_groups=2).to_dict()
    assert "1 smaller group(s) not drawn: c" in only_two["title"]["subtitle"][1]


def test_divergence_chart_ranks_patterns_by_absolute_divergence() -> None:
    require_plot_extra()
    from polars_fair.audit import plot

    table = pl.DataFrame({
        "attributes": [["race"], ["race", "sex"], ["sex"], []],
        "race": ["Black", "Black", None, None], "sex": [None, "Female", None, None],
        "divergence": [-0.1, -0.2, 0.05, 0.0], "ci_low": [-0.15, -0.3, -0.01, -0.01],
        "ci_high": [-0.05, -0.1, 0.11, 0.01], "significant": [True, True, False, False],
    })
    rows = chart_data(plot.divergence_chart(table, k=3))
    patterns = [(r["pattern"], r["divergence"], r["significant"]) for r in rows
                if "pattern" in r]
    assert patterns == [("race=Black, sex=Female", -0.2, True), ("race=Black", -0.1, True),
                        ("sex=(missing)", 0.05, False)]
    with pytest.raises(E.ColumnNotFoundError, match="significant"):
        plot.divergence_chart(table.drop("significant"))


def test_heatmap_cells_are_every_pair_with_multi_key_labels(demo: pl.DataFrame) -> None:
    from polars_fair.audit import plot

    pairs = demo.fair.pairwise(["race", "sex"])
    rows = chart_data(plot.pairwise_heatmap(pairs, "ofi"))
    groups = demo.select(pl.struct("race", "sex").unique()).height
    assert len(rows) == groups * groups  # every ordered pair plus the diagonal
    cell = next(r for r in rows if r["i"] == "Black | Female" and r["j"] == "White | Male")
    expected = pairs.filter(
        (pl.col("race_i") == "Black") & (pl.col("sex_i") == "Female")
        & (pl.col("race_j") == "White") & (pl.col("sex_j") == "Male")
    )["ofi"].item()
    assert cell["value"] == pytest.approx(expected)
    assert cell["text"] == f"{expected:.2f}"


def test_heatmap_shows_undefined_cells_as_na() -> None:
    require_plot_extra()
    from polars_fair.audit import plot

    pairs = pl.DataFrame({"g_i": ["a", "b"], "g_j": ["b", "a"], "disparate_impact": [None, 0.5]},
                         schema_overrides={"disparate_impact": pl.Float64})
    rows = chart_data(plot.pairwise_heatmap(pairs, "disparate_impact"))
    assert {(r["i"], r["j"]): r["text"] for r in rows} == {
        ("a", "b"): "n/a", ("b", "a"): "0.50", ("a", "a"): "", ("b", "b"): "",
    }


def test_rates_chart_has_the_intervals_of_metrics(demo: pl.DataFrame) -> None:
    from polars_fair.audit import plot

    m = demo.fair.metrics("race")
    rows = chart_data(plot.rates_chart(m, rates=("selection_rate", "fpr")))
    black_fpr = m.filter((pl.col("race") == "Black") & (pl.col("metric") == "fpr")).row(
        0, named=True)
    fpr, selection = METRICS["fpr"].title, METRICS["selection_rate"].title
    drawn = next(r for r in rows if r["group"] == "Black" and r["rate"] == fpr)
    assert (drawn["value"], drawn["ci_low"], drawn["ci_high"]) == pytest.approx(
        (black_fpr["value"], black_fpr["ci_low"], black_fpr["ci_high"]))
    assert {r["rate"] for r in rows} == {selection, fpr}
    with pytest.raises(E.InvalidArgumentError, match="not in the table"):
        plot.rates_chart(m, rates=("recall",))


@pytest.mark.parametrize("name", list(METRICS))
def test_rates_chart_names_every_registry_metric_by_its_title(demo: pl.DataFrame,
                                                              name: str) -> None:
    """Any metric of the registry can be drawn; its axis label is the registry's title."""
    from polars_fair.audit import plot

    entry = METRICS[name]
    m = demo.fair.metrics("sex")
    spec = plot.rates_chart(m, rates=(name,)).to_dict()
    rows = chart_data(plot.rates_chart(m, rates=(name,)))
    assert rows and {r["rate"] for r in rows} == {entry.title}
    bars = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "bar")
    assert bars["encoding"]["x"]["sort"] == [entry.title]
    # the y axis spans the registry's range of the metric
    assert bars["encoding"]["y"]["scale"]["domain"] == [entry.low, entry.high]
    drawn = {r["group"]: r["value"] for r in rows}
    expected = m.filter(pl.col("metric") == name).select("sex", "value").drop_nulls()
    assert drawn == pytest.approx(dict(expected.iter_rows()))


def test_roc_chart_shades_the_exact_abroca(demo: pl.DataFrame) -> None:
    from polars_fair.audit import plot

    scores = demo.fair.scores("race", y_score="y_score")
    abroca = demo.fair.abroca("race", y_score="y_score", reference="White")
    chart = plot.roc_chart(scores, reference="White", group="Black")
    subtitle = chart.to_dict()["title"]["subtitle"][0]
    expected = abroca.filter(pl.col("race") == "Black")["abroca"].item()
    assert subtitle == f"shaded: ABROCA(Black vs reference White) = {expected:.4f}"
    # by default: the supported group with the largest ABROCA (the demo's biased group)
    supported = abroca.filter(~pl.col("is_reference") & (pl.col("n") >= 30))
    worst = supported.sort("abroca", descending=True)["race"][0]
    default = plot.roc_chart(scores, reference="White").to_dict()["title"]["subtitle"][0]
    assert default.startswith(f"shaded: ABROCA({worst} vs reference White)")
    with pytest.raises(E.InvalidArgumentError, match="is not in the table"):
        plot.roc_chart(scores, reference="Martian")


def test_roc_curves_keep_the_order_of_vertical_steps(demo: pl.DataFrame) -> None:
    from polars_fair.audit import plot

    small = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3, "score": [0.1, 0.5, 0.9] * 2,
                          "positives": [0, 1, 1, 1, 0, 1], "negatives": [1, 1, 0, 0, 1, 1]})
    rows = chart_data(plot.roc_chart(small, keys=["g"], min_support=1))
    curve_a = [(r["fpr"], r["tpr"]) for r in rows if r.get("group") == "a" and "i" in r]
    # roc_curve_from_cells: (0,0) -> (0, 1/2) vertical step -> (1/2, 1) -> (1, 1)
    assert curve_a == [(0.0, 0.0), (0.0, 0.5), (0.5, 1.0), (1.0, 1.0)]


def test_power_and_calibration_read_their_tables(demo: pl.DataFrame) -> None:
    from polars_fair.audit import plot

    curve = pl.DataFrame({"auc_a": [0.8, 0.8], "auc_b": [0.7, 0.7], "delta_auc": [0.1, 0.1],
                          "n": [100, 200], "power": [0.5, 0.99], "mc_se": [0.05, 0.02]})
    rows = chart_data(plot.power_chart(curve))
    bars = [r for r in rows if "high" in r]
    assert [r["high"] for r in bars] == pytest.approx([0.5 + 1.96 * 0.05, 1.0])  # clipped at 1
    assert any(r.get("label") == "power 0.8" for r in rows)
    rel = demo.fair.reliability(["race", "sex"], y_score="y_score")
    rows = chart_data(plot.calibration_chart(rel))
    drawn = [r for r in rows if "group" in r]
    assert len(drawn) == rel.filter(pl.col("n") > 0).height
    assert "Black | Female" in {r["group"] for r in drawn}


def test_roc_chart_draws_the_analysis_tables_with_the_one_reference() -> None:
    require_plot_extra()
    import polars_fair
    from polars_fair.audit import plot

    # a: 6 rows, positives only (no ROC curve); b: 4 rows; c: 3 rows
    rows = pl.DataFrame({
        "g": ["a"] * 6 + ["b"] * 4 + ["c"] * 3,
        "y_true": [1] * 6 + [1, 0, 1, 0] + [0, 1, 0],
        "y_score": [0.5] * 6 + [0.9, 0.1, 0.4, 0.6] + [0.2, 0.5, 0.8],
    })
    fs = polars_fair.scores(rows, "g")
    chart = plot.roc_chart(fs, min_support=1)
    subtitle = chart.to_dict()["title"]["subtitle"]
    # "largest" is the largest group with a curve, b, as for abroca(); it was a and failed
    expected = fs.abroca().collect().filter(pl.col("g") == "c")["abroca"].item()
    assert subtitle == [f"shaded: ABROCA(c vs reference b) = {expected:.4f}",
                        "no curve (one class): a"]
    drawn = [(r["group"], r["fpr"], r["tpr"]) for r in chart_data(chart) if "i" in r]
    table = fs.roc_curves().collect()
    assert drawn == [(str(g), f, t) for g, f, t in table.select("g", "fpr", "tpr").rows()]
    # by hand, b: scores 0.9 (+), 0.6 (-), 0.4 (+), 0.1 (-) -> (0,0) (0,.5) (.5,.5) (.5,1) (1,1)
    assert [(f, t) for g, f, t in drawn if g == "b"] == [
        (0.0, 0.0), (0.0, 0.5), (0.5, 0.5), (0.5, 1.0), (1.0, 1.0)]
    # a score table gives the same chart as the analysis object
    same = plot.roc_chart(fs.frame.collect(), keys=["g"], min_support=1)
    assert same.to_dict()["title"] == chart.to_dict()["title"]


@pytest.mark.parametrize(("metric", "directions", "legend"), [
    # FPR: higher harms, so +0.1 (race=Black) harms and -0.05 (sex=F) does not
    ("fpr", ["harms the pattern", "does not harm it"], "fpr: higher harms"),
    # TPR: lower harms, so -0.05 harms and +0.1 does not
    ("tpr", ["does not harm it", "harms the pattern"], "tpr: lower harms"),
    # no metric: the sign only, said in the legend
    (None, ["above everyone", "not above"], "sign only (no metric given)"),
])
def test_divergence_chart_colours_by_harm_of_the_metric(metric: str | None,
                                                        directions: list[str],
                                                        legend: str) -> None:
    require_plot_extra()
    from polars_fair.audit import plot

    table = pl.DataFrame({
        "attributes": [["race"], ["sex"]], "race": ["Black", None], "sex": [None, "F"],
        "divergence": [0.1, -0.05], "ci_low": [0.05, -0.1], "ci_high": [0.15, 0.0],
        "significant": [True, False]})
    chart = plot.divergence_chart(table, metric=metric)
    rows = [r for r in chart_data(chart) if "pattern" in r]
    assert [r["direction"] for r in rows] == directions
    spec = chart.to_dict()
    color = spec["layer"][0]["encoding"]["color"]
    assert color["legend"]["title"] == legend
    red = color["scale"]["range"][color["scale"]["domain"].index(directions[0])]
    assert (red == "#b3261e") == (directions[0] == "harms the pattern")
    expected = {"fpr": "Divergence of false positive rate by pattern",
                "tpr": "Divergence of true positive rate by pattern", None: "Divergence by pattern"}
    assert spec["title"]["text"] == expected[metric]
    # the table's own metric column is read when metric is not given, and a clash refused
    assert [r["direction"] for r in chart_data(plot.divergence_chart(
        table.with_columns(metric=pl.lit("fpr")))) if "pattern" in r] == [
        "harms the pattern", "does not harm it"]
    with pytest.raises(E.InvalidArgumentError, match="metric='tpr'"):
        plot.divergence_chart(table.with_columns(metric=pl.lit("fpr")), metric="tpr")
    with pytest.raises(E.InvalidArgumentError, match="unknown metric 'nope'"):
        plot.divergence_chart(table, metric="nope")


def test_a_charts_inline_rows_are_shared_by_its_copies_and_spelled_as_inline_data() -> None:
    require_plot_extra()
    import altair as alt

    from polars_fair.audit.plot import _values

    frame = pl.DataFrame({"x": [0.0, 0.5, float("nan")], "g": ["a", "b", "c"]})
    shared = alt.Chart(_values(frame)).mark_line().encode(x="x:Q")
    plain = alt.Chart(alt.InlineData(values=[{"x": 0.0, "g": "a"}, {"x": 0.5, "g": "b"},
                                             {"x": None, "g": "c"}])).mark_line().encode(x="x:Q")
    other = alt.Chart(_values(frame.head(1))).mark_point().encode(x="x:Q")
    layered = alt.layer(shared, other).properties(width=100)
    # Altair's (deep) copies of the layers keep the one rows object of each ...
    assert layered.layer[0].data is shared.data and layered.layer[1].data is other.data
    # ... and the spec is the one plain InlineData gives (NaN written as null)
    assert shared.to_dict() == plain.to_dict()
    assert layered.layer[0].to_dict() == plain.to_dict()


def test_channels_give_encode_the_spec_of_its_shorthands() -> None:
    """Issue 20 (perf): channel objects built by ``_channels`` encode to the same spec.

    ``"fpr:Q"`` is the field ``fpr``, quantitative (Vega-Lite's shorthand); ``alt.datum(0)`` is
    ``{"datum": 0}``; a condition keeps its test and both values. Built by the channel's own
    class, no schema search; the spec is the one ``encode`` gives from the plain arguments.
    """
    alt = pytest.importorskip("altair")
    from polars_fair.audit.plot import _channels

    plain = dict(x="fpr:Q", y=alt.datum(0), order="i:Q", text="label:N",
                 opacity=alt.condition("datum.h", alt.value(1.0), alt.value(0.5)))
    built = _channels(**plain)
    assert isinstance(built["x"], alt.X) and isinstance(built["y"], alt.YDatum)
    assert isinstance(built["opacity"], alt.OpacityValue)
    mark = alt.Chart().mark_text()
    spec = mark.encode(**built).to_dict(validate=False)["encoding"]
    assert spec == mark.encode(**plain).to_dict(validate=False)["encoding"]
    assert spec["x"] == {"field": "fpr", "type": "quantitative"}
    assert spec["y"] == {"datum": 0}
    assert spec["text"] == {"field": "label", "type": "nominal"}
    assert spec["opacity"] == {"condition": {"test": "datum.h", "value": 1.0}, "value": 0.5}
