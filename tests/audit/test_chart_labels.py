"""Chart labels never crash the renderer (review of issue 19, defect 1).

vl-convert aborts the whole process (a Rust panic, exit 134) on a character XML 1.0 cannot hold:
a C0 control other than tab, line feed and carriage return, a lone surrogate, U+FFFE, U+FFFF.
Every chart passes through :func:`polars_fair.core.labels.printable_spec` before it is rendered,
which writes such characters as ``\\xNN`` / ``\\uXXXX``. Each way in runs in a subprocess here,
since an abort would kill the test runner.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.core.labels import printable, printable_spec
from tests.audit.test_plot import require_plot_extra

#: Group B's value: SOH, ESC, VT, FF, U+FFFE and U+FFFF (each one aborted vl-convert).
_FRAME = ('pl.DataFrame({"g": ["A"] * 40 + ["B\\x01\\x1b\\x0b\\x0c\\ufffe\\uffff"] * 40, '
          '"y_true": [1, 0] * 40, "y_pred": [1, 1, 0, 0] * 20})')


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)


def test_printable_escapes_exactly_what_xml_cannot_hold() -> None:
    # by hand: \x00-\x08, \x0b, \x0c, \x0e-\x1f, surrogates, U+FFFE, U+FFFF are escaped;
    # tab, LF, CR, DEL (\x7f), U+2028 and ordinary text are kept.
    assert printable("B\x01") == "B\\x01"
    assert printable("\x00\x08\x0b\x0c\x0e\x1f") == "\\x00\\x08\\x0b\\x0c\\x0e\\x1f"
    assert printable("\ud800x\udfff") == "\\ud800x\\udfff"
    assert printable("\ufffe\uffff") == "\\ufffe\\uffff"
    assert printable("a\tb\nc\rd\x7fe\u2028f é") == "a\tb\nc\rd\x7fe\u2028f é"


def test_printable_spec_rewrites_keys_values_and_lists_only() -> None:
    spec = {"title": "t\x1b", "data": {"values": [{"g\x01": "B\x0b", "n": 3, "r": None}]},
            "sort": ["x\x0c", 1.5]}
    assert printable_spec(spec) == {
        "title": "t\\x1b", "data": {"values": [{"g\\x01": "B\\x0b", "n": 3, "r": None}]},
        "sort": ["x\\x0c", 1.5]}


@pytest.fixture(autouse=True)
def _plot_extra() -> None:
    require_plot_extra()


def test_the_html_audit_draws_a_group_with_control_characters() -> None:
    out = _python(f"""
import polars as pl
from polars_fair.html import audit_html
page = audit_html({_FRAME}, "g")
print(page.count("B\\\\x01\\\\x1b\\\\x0b\\\\x0c\\\\ufffe\\\\uffff") > 0)
""")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True"  # the label is drawn, escaped, in the SVG


@pytest.mark.parametrize("suffix", [".svg", ".png", ".json"])
def test_plot_save_writes_a_chart_of_a_group_with_control_characters(
        tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"chart{suffix}"
    out = _python(f"""
import polars as pl
import polars_fair
from polars_fair import plot
plot.save(plot.rates_chart({_FRAME}.fair.metrics("g")), {str(target)!r})
""")
    assert out.returncode == 0, out.stderr[-2000:]
    assert target.stat().st_size > 0
    if suffix == ".svg":  # the label as text, escaped
        assert "B\\x01\\x1b\\x0b\\x0c\\ufffe\\uffff" in target.read_text()
    if suffix == ".json":  # the same text, in JSON (a backslash is written twice)
        assert "B\\\\x01\\\\x1b" in target.read_text()
    if suffix != ".png":
        assert "\x01" not in target.read_text()


def test_the_cli_report_html_survives_a_control_character(tmp_path: Path) -> None:
    csv = tmp_path / "ctrl.csv"
    rows = "".join(f"{g},{y},{p}\n" for g in ("A", "B\x01") for y, p in ((1, 1), (0, 1), (1, 0)))
    csv.write_text("g,y_true,y_pred\n" + rows)
    page = tmp_path / "a.html"
    out = subprocess.run(
        [sys.executable, "-m", "polars_fair.cli", "report", str(csv), "--by", "g", "--html",
         str(page), "--format", "json"], capture_output=True, text=True, timeout=300,
        check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "panicked" not in out.stderr
    assert page.stat().st_size > 0
    assert "B\\x01" in page.read_text()  # the chart's escaped label


def test_chart_labels_write_whitespace_as_the_tables_do() -> None:
    # issue 19: SVG collapses whitespace, so groups "a", "a " and "a\tb"/"a b" drew alike. The
    # data's texts and the titles are written by markup_text (as every HTML cell): by hand,
    # "a " -> "a\x20" (a space that ends the value), "a\tb" -> "a\tb" as two characters,
    # "a\xa0b" -> "a\xa0b", " a" -> "\x20a"; field names (keys) and other parts are kept.
    spec = {"title": {"text": " t", "anchor": "start"},
            "datasets": {"d1": [{"group": "a "}, {"group": "a\tb"}, {"group": "a\xa0b"},
                                {"group": " a"}, {"group": "a"}]},
            "encoding": {"x": {"field": "group", "type": "nominal"}}}
    out = printable_spec(spec)
    assert [r["group"] for r in out["datasets"]["d1"]] == [
        "a\\x20", "a\\tb", "a\\xa0b", "\\x20a", "a"]
    assert out["title"] == {"text": "\\x20t", "anchor": "start"}
    assert out["encoding"] == spec["encoding"]


def test_the_svg_draws_two_groups_that_differ_by_a_space_apart() -> None:
    out = _python("""
import polars as pl
import polars_fair
from polars_fair import plot
frame = pl.DataFrame({"g": ["a"] * 40 + ["a "] * 40, "y_true": [1, 0] * 40,
                      "y_pred": [1, 1, 0, 0] * 20})
svg = plot.to_svg(plot.rates_chart(frame.fair.metrics("g")))
print(svg.count(">a\\\\x20<") > 0, svg.count(">a<") > 0)
""")
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True"]  # each group has its own label


#: The characters of the review: line and paragraph separators, a right-to-left override, a
#: right-to-left mark and a byte-order mark. Each is drawn escaped (``\u2028``), never raw.
_HOSTILE = "\u2028\u2029\u202e\u200f\ufeff"

#: Every chart kind of polars_fair.plot over a frame whose attribute is ``{attr}``, a group
#: ``{group}`` and a title ``{title}``; prints, per kind, the raw NOT_IN_MARKUP characters of
#: its SVG and whether the escaped text is drawn.
_EVERY_CHART = """
import datetime as dt, json, re
import numpy as np, polars as pl, polars_fair
from polars_fair import plot
from polars_fair.analyses.monitor import monitor_from_counts
from polars_fair.core.labels import INVISIBLE, NOT_IN_MARKUP
attr, group, title = {attr!r}, {group!r}, {title!r}
rng = np.random.default_rng(0)
s = np.round(rng.uniform(size=300), 2)
df = pl.DataFrame({{attr: np.array(["A", group, "C"])[np.arange(300) % 3].tolist(),
                    "y_true": (rng.uniform(size=300) < s).astype(int),
                    "y_pred": (s > 0.5).astype(int), "y_base": (s > 0.4).astype(int),
                    "y_score": s}})
days = [dt.date(2024, 1, 1), dt.date(2024, 1, 8)]
counts = pl.LazyFrame({{"period": days * 2, attr: ["A", "A", group, group], "n": [40] * 4,
                       "tp": [0] * 4, "fp": [20, 22, 4, 4], "fn": [0] * 4,
                       "tn": [20, 18, 36, 36]}})
charts = {{
    "rates": lambda: plot.rates_chart(df.fair.metrics(attr), title=title),
    "pairwise": lambda: plot.pairwise_heatmap(df.fair.pairwise(attr), title=title),
    "calibration": lambda: plot.calibration_chart(
        df.fair.reliability(attr, y_score="y_score", n_bins=4), min_count=1, title=title),
    "threshold": lambda: plot.threshold_chart(
        df.fair.sweep(attr, y_score="y_score", thresholds=[0.3, 0.5, 0.7]), title=title),
    "divergence": lambda: plot.divergence_chart(
        df.fair.divergence(attr, min_support=0.01, min_denominator=1), title=title),
    "roc": lambda: plot.roc_chart(polars_fair.scores(df, attr, y_score="y_score"),
                                  title=title),
    "compare": lambda: plot.compare_chart(
        df.fair.compare(attr, y_pred="y_pred", baseline="y_base"), title=title),
    "monitor": lambda: plot.monitor_chart(monitor_from_counts(counts, [attr], min_support=1),
                                          title=title),
    "power": lambda: plot.power_chart(pl.DataFrame({{
        "delta_auc": [0.05, 0.05, 0.1, 0.1], "n": [100, 200, 100, 200],
        "power": [0.2, 0.3, 0.4, 0.6], "mc_se": [0.01] * 4}}), title=title),
}}
invisible = re.compile("[" + INVISIBLE + "]")
out = {{}}
for kind, make in charts.items():
    svg = plot.to_svg(make())
    raw = sorted({{f"U+{{ord(c):04X}}" for c in svg
                   if NOT_IN_MARKUP.match(c) or invisible.match(c)}})
    out[kind] = [raw, "\\\\u202e" in svg]
print(json.dumps(out))
"""


@pytest.mark.parametrize(("part", "attr", "group", "title"), [
    ("group values", "g", "B" + _HOSTILE, "T"),
    ("attribute names", "g" + _HOSTILE, "B", "T"),
    ("titles", "g", "B", "T" + _HOSTILE),
])
def test_no_chart_kind_writes_a_raw_invisible_or_line_separator(
        part: str, attr: str, group: str, title: str) -> None:
    # issue 19: standalone charts wrote U+2028, U+2029, U+202E, U+200F and the BOM raw into the
    # SVG's labels and aria-labels; the compare chart still did for an attribute's name (its x
    # channel's title went into Vega's aria-label expression as a string literal, where the
    # escaped "\u2028" read back as the raw character). Every kind, rendered: no raw character
    # of INVISIBLE or NOT_IN_MARKUP, and the escaped text drawn where the chart shows that part
    # (the power chart has no groups nor attributes, only its title; the pairwise heatmap's
    # axes read "group i (row)" and "group j (column)", not the attributes' names)
    out = _python(_EVERY_CHART.format(attr=attr, group=group, title=title))
    assert out.returncode == 0, out.stderr[-2000:]
    found = json.loads(out.stdout)
    assert {kind: raw for kind, (raw, _) in found.items()} == {kind: [] for kind in found}
    assert len(found) == 9
    drawn = {kind for kind, (_, escaped) in found.items() if escaped}
    not_shown = {"titles": set(), "group values": {"power"},
                 "attribute names": {"power", "pairwise"}}[part]
    assert drawn == set(found) - not_shown


def test_compare_chart_names_its_attributes_in_the_axis_title_not_the_channel() -> None:
    # the spec behind the render above, without rendering: the x channel has no title (Vega-Lite
    # would write it into the aria-label expression, reading "\u2028" back raw), the axis title
    # has the attributes' names, escaped by printable_spec as every label is
    from polars_fair.audit.change_plot import compare_chart

    name = "g" + _HOSTILE
    df = pl.DataFrame({name: ["a"] * 4 + ["b"] * 4, "new": [1, 1, 0, 0, 1, 0, 0, 0],
                       "old": [1, 1, 0, 0, 1, 1, 0, 0]})
    spec = printable_spec(compare_chart(
        df.fair.compare(name, y_pred="new", baseline="old", min_support=1)).to_dict())
    x = spec["layer"][0]["encoding"]["x"]
    assert "title" not in x
    assert x["axis"]["title"] == "g\\u2028\\u2029\\u202e\\u200f\\ufeff"
