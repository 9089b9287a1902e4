"""The styled report table and the self-contained HTML audit, rendered in headless Chromium."""

from __future__ import annotations

import hashlib
import html
import json
import math
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.datasets import make_hiring
from tests.audit.test_plot import PNG_MAGIC, png_size, require_plot_extra

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: Tags that make a browser fetch something; a self-contained page has none.
FETCHING_TAGS = {"script", "link", "img", "iframe", "object", "embed", "video", "audio",
                 "source", "track", "frame", "image", "use", "base"}
FETCHING_ATTRS = {"src", "href", "srcset", "poster", "data", "xlink:href", "action",
                  "background", "formaction"}


@pytest.fixture(scope="module")
def demo() -> pl.DataFrame:
    require_plot_extra()
    return make_hiring(6000, seed=0)


def td(html: str, column: str) -> list[str]:
    """The opening tags and text of the body cells of one report column, in row order."""
    return re.findall(
        rf'<td ([^>]*headers="[^"]*pf-report-{column}"[^>]*)>([^<]*)</td>', html
    )


# --------------------------------------------------------------------------- styled table


def test_style_report_highlights_adverse_impact_ofi_and_low_support(demo: pl.DataFrame) -> None:
    from polars_fair.audit.style import ADVERSE_FILL, LOW_SUPPORT_FILL, OFI_FILL, style_report

    report = demo.fair.report(["race", "sex"])
    html = style_report(report).as_raw_html()
    ir_cells, ofi_cells, n_cells = td(html, "impact_ratio"), td(html, "ofi"), td(html, "n")
    assert len(ir_cells) == len(ofi_cells) == len(n_cells) == report.height
    for row, (ir_attrs, _), (ofi_attrs, _), (n_attrs, _) in zip(
        report.iter_rows(named=True), ir_cells, ofi_cells, n_cells, strict=True
    ):
        assert (ADVERSE_FILL in ir_attrs) == (row["impact_ratio"] < 0.8), row
        assert (OFI_FILL in ofi_attrs) == (abs(row["ofi"]) > 0.3), row
        assert (LOW_SUPPORT_FILL in n_attrs) == (row["n"] < 30), row
    # the demo's biased group is highlighted on both counts, the Pacific Islanders for support
    black_women = report.with_row_index().filter(
        (pl.col("race") == "Black") & (pl.col("sex") == "Female"))["index"].item()
    assert ADVERSE_FILL in ir_cells[black_women][0] and OFI_FILL in ofi_cells[black_women][0]
    assert sum(LOW_SUPPORT_FILL in a for a, _ in n_cells) == 2


def test_style_report_formats_rates_as_percentages_with_notes(demo: pl.DataFrame) -> None:
    from polars_fair.audit.style import style_report

    report = demo.fair.report("race", reference="White")
    html = style_report(report, ofi_threshold=0.25, four_fifths=0.9).as_raw_html()
    shown = [text for _, text in td(html, "selection_rate")]
    assert shown == [f"{100 * v:.1f}%" for v in report["selection_rate"]]
    assert "Reference group: race=White" in html
    assert "29 CFR 1607.4(D)" in html and "below 0.9 is adverse impact" in html
    assert "|OFI| &gt; 0.25" in html or "|OFI| > 0.25" in html
    custom = style_report(report, reference_label="white applicants").as_raw_html()
    assert "Reference group: white applicants" in custom


def test_style_report_shows_undefined_as_a_dash() -> None:
    require_plot_extra()
    from polars_fair.audit.style import style_report

    # group b is never predicted positive: PPV = 0/0 is null
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0, 1, 0] * 2,
                       "y_pred": [1, 1, 0, 0, 0, 0, 0, 0]})
    html = style_report(df.fair.report("g", min_support=1)).as_raw_html()
    assert [text for _, text in td(html, "ppv")] == ["50.0%", "—"]


def _ab_rows(weight: float | None) -> pl.DataFrame:
    """Issue 11's A/B example: A TP 30, FP 30, FN 20, TN 20; B TP 40, FP 35, FN 10, TN 15."""
    rows = []
    for g, tp, fp, fn, tn in (("A", 30, 30, 20, 20), ("B", 40, 35, 10, 15)):
        rows += [(g, 1, 1)] * tp + [(g, 0, 1)] * fp + [(g, 1, 0)] * fn + [(g, 0, 0)] * tn
    df = pl.DataFrame(rows, schema=["g", "y_true", "y_pred"], orient="row")
    return df if weight is None else df.with_columns(w=pl.lit(weight))


@pytest.mark.parametrize("weight", [None, 0.1])
def test_style_report_reads_the_reports_verdict_at_exactly_four_fifths(weight: float | None,
                                                                        ) -> None:
    """A's selection rate 60/100 = 0.6, B's 75/100 = 0.75: A's impact ratio is exactly 4/5,
    which passes the four-fifths rule (it fails only below). With every weight 0.1 the
    weighted sums give the float 0.7999999999999999, still 4/5 within the rules' tolerance:
    the table must not re-decide it as adverse on that float."""
    require_plot_extra()
    from polars_fair.audit.style import ADVERSE_FILL, OFI_FILL, style_report

    args = {} if weight is None else {"sample_weight": "w"}
    report = _ab_rows(weight).fair.report("g", min_support=1, **args).sort("g")
    assert report["adverse_impact"].to_list() == [False, False]
    assert report["ofi_flag"].to_list() == [False, False]
    if weight is not None:
        assert report["impact_ratio"][0] < 0.8  # the float a re-decision would read
    html = style_report(report).as_raw_html()
    (a_ir, a_text), (b_ir, _) = td(html, "impact_ratio")
    assert a_text == "0.800"
    assert ADVERSE_FILL not in a_ir and ADVERSE_FILL not in b_ir
    assert all(OFI_FILL not in attrs for attrs, _ in td(html, "ofi"))
    # no flag but the reference: both groups have 100 rows, 'largest' takes the first, A (the
    # impact ratio is against the highest selection rate, B's, whatever the reference)
    assert [text for _, text in td(html, "flags")] == ["reference", ""]
    # the table follows the report's column: flagged there, highlighted here
    flagged = report.with_columns(adverse_impact=pl.Series([True, False]))
    (a_ir, _), _ = td(style_report(flagged).as_raw_html(), "impact_ratio")
    assert ADVERSE_FILL in a_ir


def test_summary_verdicts_have_a_class_each() -> None:
    """Every summary verdict has its own CSS class; 'undefined' and 'insufficient support'
    are no longer plain text."""
    from polars_fair.analyses.summary import RULE_VERDICTS
    from polars_fair.audit.html import _CSS, VERDICT_CLASSES, audit_html

    assert set(VERDICT_CLASSES) == set(RULE_VERDICTS)
    assert len(set(VERDICT_CLASSES.values())) == len(RULE_VERDICTS)
    for cls in VERDICT_CLASSES.values():
        assert re.search(rf"^\.{cls} {{", _CSS, re.MULTILINE), cls
    # nobody is selected: every selection rate is 0/2, the largest 0, so each impact ratio is
    # 0/0, undefined; b's one positive is missed, so b's OFI is not 0 and |OFI| fails
    nobody = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [0, 0, 1, 0],
                           "y_pred": [0, 0, 0, 0]})
    verdicts = r'<span class="[^"]*">(?:pass|fail|undefined|insufficient support)</span>'
    assert re.findall(verdicts, audit_html(nobody, "g", min_support=1)) == [
        '<span class="undefined">undefined</span>', '<span class="fail">fail</span>']
    # 2 rows a group < min_support 30: OFI against the low-support reference cannot be
    # signed (selection rates 1/2 and 1/2: the impact ratio 1 passes against any maximum)
    two = nobody.with_columns(y_pred=pl.Series([1, 0, 1, 0]))
    assert re.findall(verdicts, audit_html(two, "g")) == [
        '<span class="pass">pass</span>', '<span class="insufficient">insufficient support</span>']


# --------------------------------------------------------------------------- the HTML audit


class _Fetches(HTMLParser):
    """Collects every tag or attribute that would make a browser load something."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.tags: dict[str, int] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        # the one script allowed is the page's data: JSON, never executed, loads nothing
        data_block = tag == "script" and dict(attrs) == {"type": "application/json",
                                                          "id": "polars-fair-data"}
        if tag in FETCHING_TAGS and not data_block:
            self.found.append(f"<{tag}>")
        self.found.extend(f"{tag}[{k}]" for k, _ in attrs if k in FETCHING_ATTRS)


def assert_self_contained(page: str) -> _Fetches:
    parser = _Fetches()
    parser.feed(page)
    assert parser.found == [], f"the page would load: {parser.found}"
    assert not re.search(r"https?://", page), re.findall(r"https?://\S{0,60}", page)
    assert "@import" not in page
    # url(...) only for fragments inside the page (SVG gradients, clip paths), all defined once
    targets = re.findall(r"url\(\s*['\"]?([^)'\"]*)", page)
    assert all(t.startswith("#") for t in targets), targets
    references = set(re.findall(r"url\(#([^)]*)\)", page))
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert references <= set(ids)
    return parser


def test_audit_html_is_self_contained_and_complete(demo: pl.DataFrame, tmp_path: Path) -> None:
    from polars_fair.audit.html import audit_html

    out = tmp_path / "audit.html"
    page = audit_html(demo, ["race", "sex"], y_score="y_score", where="applicant_id >= 100",
                      source="demo.parquet", output=out)
    assert out.read_text(encoding="utf-8") == page
    parsed = assert_self_contained(page)
    assert parsed.tags["svg"] == 5  # rates, OFI, DI, ROC, calibration
    assert 'id="pf-report"' in page
    # size and exclusions: 100 rows fail the filter
    assert re.search(r"rows in the input</td><td class=\"num\">6,000<", page)
    assert re.search(r"rows excluded by the filter <code>applicant_id &gt;= 100</code></td>"
                     r"<td class=\"num\">100<", page)
    assert re.search(r"rows audited</td><td class=\"num\">5,900<", page)
    # verdicts from df.fair.summary, findings, definitions with sources
    summary = demo.filter(pl.col("applicant_id") >= 100).fair.summary(["race", "sex"])
    verdict = summary.filter(pl.col("metric") == "min_impact_ratio").row(0, named=True)
    assert f"{verdict['value']:.4f}" in page and verdict["verdict"] == "fail"
    assert '<span class="fail">algorithmic</span>: Black | Female' in page
    for source in ("29 CFR 1607.4(D)", "Gardner, Brooks &amp; Baker 2019", "Def. 2.1"):
        assert source in page


def test_audit_html_counts_null_groups(tmp_path: Path) -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    df = make_hiring(2000, seed=1).with_columns(
        race=pl.when(pl.col("applicant_id") < 40).then(None).otherwise(pl.col("race").cast(
            pl.String)))
    kept = audit_html(df, "race", null_groups="keep")
    assert re.search(r"missing group value: kept[^<]*</td><td class=\"num\">40<", kept)
    assert re.search(r"rows audited</td><td class=\"num\">2,000<", kept)
    with pytest.warns(UserWarning, match="dropped 40 row"):
        dropped = audit_html(df, "race", null_groups="drop")
    assert re.search(r"missing group value: dropped[^<]*</td><td class=\"num\">40<", dropped)
    assert re.search(r"rows audited</td><td class=\"num\">1,960<", dropped)


def test_report_html_option_writes_the_audit(tmp_path: Path) -> None:
    require_plot_extra()
    data = tmp_path / "d.parquet"
    make_hiring(3000, seed=2).write_parquet(data)
    out = tmp_path / "audit.html"
    result = CliRunner().invoke(app, [
        "report", str(data), "--by", "race", "--by", "sex", "--y-score", "y_score",
        "--where", "age_band <> '>45'", "--html", str(out), "--format", "csv",
    ])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert_self_contained(page)
    assert "rows excluded by the filter <code>age_band &lt;&gt; &#x27;&gt;45&#x27;</code>" in page
    assert page.count("<svg") == 5


# --------------------------------------------------------------------------- headless Chromium


def chromium() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI") == "true" or os.environ.get("POLARS_FAIR_REQUIRE_DATA") == "1":
        pytest.fail("CI=true or POLARS_FAIR_REQUIRE_DATA=1 but no Chromium found "
                    "(apt-get install -y chromium)")
    pytest.skip("headless Chromium is not installed (apt-get install -y chromium)")


def run_chromium(page: Path, tmp: Path, *extra: str) -> tuple[str, str, list[str]]:
    """Open ``page`` offline; return stdout, stderr and the URLs the page itself requested."""
    netlog = tmp / f"netlog-{len(list(tmp.iterdir()))}.json"
    cmd = [
        chromium(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr",
        "--v=0", f"--log-net-log={netlog}", *extra, page.resolve().as_uri(),
    ]
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    log = json.loads(netlog.read_text()) if netlog.exists() else {"events": []}
    # a request the page made carries the page's (file://) network isolation key; Chromium's
    # own background requests carry none
    requested = [
        e["params"]["url"] for e in log["events"]
        if "url" in e.get("params", {})
        and "file://" in str(e["params"].get("network_isolation_key", ""))
    ]
    return proc.stdout, proc.stderr, requested


def load_failures(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines()
            if re.search(r"Failed to load|net::ERR_|Not allowed to load", line)]


def test_chromium_detects_a_page_that_loads_something(tmp_path: Path) -> None:
    """The check below can fail: an external image is seen in the net log."""
    bad = tmp_path / "bad.html"
    bad.write_text('<html><body><img src="https://example.invalid/x.png"><p>x</p></body></html>')
    _, _, requested = run_chromium(bad, tmp_path, "--dump-dom")
    assert "https://example.invalid/x.png" in requested


def test_audit_renders_offline_in_chromium(demo: pl.DataFrame, tmp_path: Path) -> None:
    browser_tmp = tmp_path / "chromium"
    browser_tmp.mkdir()
    chromium()  # skip early when absent
    from polars_fair.audit.html import audit_html

    page = tmp_path / "audit.html"
    audit_html(demo, ["race", "sex"], y_score="y_score", output=page)
    dom, stderr, requested = run_chromium(page, browser_tmp, "--dump-dom")
    assert requested == []
    assert load_failures(stderr) == []
    assert 'id="pf-report"' in dom and "<table" in dom
    assert dom.count("<svg") == 5
    assert "Definitions" in dom and "Verdict: " in dom and "Summary metrics" in dom
    shot = tmp_path / "audit.png"
    _, stderr, requested = run_chromium(
        page, browser_tmp, "--window-size=1280,2400", f"--screenshot={shot}"
    )
    assert requested == [] and load_failures(stderr) == []
    assert shot.read_bytes()[:8] == PNG_MAGIC
    assert png_size(shot) == (1280, 2400)
    assert shot.stat().st_size > 50_000  # text, a table and charts, not a blank page


def test_no_filter_excludes_no_rows(tmp_path: Path) -> None:
    pytest.importorskip("altair")
    from polars_fair.audit.html import audit_html
    from polars_fair.datasets import make_hiring

    out = tmp_path / "a.html"
    audit_html(make_hiring(1000, seed=3), ["sex"], output=out)
    text = out.read_text()
    # 1,000 rows in, none excluded by a filter (it once showed total - 1)
    assert re.search(r"\(no filter\)</td><td class=\"num\">0<", text), text[:2000]


# --------------------------------------------------------------------------- one reference, gate


def _one_class_largest() -> pl.DataFrame:
    """Group a (60 rows) has positive labels only; b (40) and c (35) have both classes.

    Predictions: a all 1; b: 20 positives predicted 1, 10 negatives predicted 1, 10 predicted 0
    (selection rate 30/40); c: 10 of 15 positives predicted 1, 20 negatives predicted 0
    (selection rate 10/35).
    """
    return pl.DataFrame({
        "g": ["a"] * 60 + ["b"] * 40 + ["c"] * 35,
        "y_true": [1] * 60 + [1] * 20 + [0] * 20 + [1] * 15 + [0] * 20,
        "y_score": [0.9] * 60 + [0.8] * 20 + [0.6] * 10 + [0.2] * 10
                   + [0.7] * 10 + [0.3] * 5 + [0.1] * 20,
    }).with_columns(y_pred=(pl.col("y_score") >= 0.5).cast(pl.Int64))


def test_audit_html_compares_report_and_abroca_with_one_group() -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    page = audit_html(_one_class_largest(), "g", y_score="y_score")
    # a is the largest group but has no ROC curve: the page's one reference is b, for the
    # report (OFI), the ABROCA table and the ROC chart alike
    assert "reference group: <b>b</b>" in page
    abroca = page[page.index("<h3>ABROCA against the reference</h3>"):]
    # (grey: b's 20 positives and 20 negatives are fewer than 30, so nothing is tested)
    assert re.search(r"<tr class=\"low\"><td>b</td><td class=\"num\">40</td>.*?"
                     r"<td>reference</td></tr>", abroca)
    assert "Not tested: no group other than the reference has at least 30 positives" in abroca
    # and the ROC chart's shaded area (c against b) says it is not a finding
    assert ("no group has at least 30 positives and 30 negatives, so it is not a finding"
            in page)
    assert "ABROCA(c vs reference b)" in page
    # the verdict (the gate): b's and c's impact ratios fail (a's 60/60 is the highest
    # selection rate): b 30/40 = 0.750, c 10/35 = 0.286
    verdict = page[page.index("<h2>Verdict: "):page.index("<h2>Headline")]
    assert '<span class="fail">FAIL</span>' in verdict and "2 of 3 group(s) fail" in verdict
    assert re.search(r"<td><b>b</b></td><td class=\"num\">40</td><td>impact ratio</td>"
                     r"<td class=\"num\">0\.750</td>", verdict)
    assert re.search(r"<td><b>c</b></td><td class=\"num\">35</td><td>impact ratio</td>"
                     r"<td class=\"num\">0\.286</td>", verdict)


def test_audit_html_overall_reference_says_which_group_abroca_uses() -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    page = audit_html(_one_class_largest(), "g", y_score="y_score", reference="overall")
    assert "ABROCA compares ROC curves with a group, the largest one with both classes" in page
    assert "ABROCA(c vs reference b)" in page


# --------------------------------------------------------------------------- declared once


def test_every_registry_metric_is_defined_on_the_page_as_the_registry_says() -> None:
    """The Definitions table holds each metric's registry title, formula and source."""
    require_plot_extra()
    from polars_fair.audit.html import DEFINITIONS, audit_html
    from polars_fair.core.registry import METRICS, PAIR_METRICS

    page = audit_html(make_hiring(800, seed=1), "sex", min_support=10)
    section = page[page.index("<h2>Definitions</h2>"):]
    rows = [tuple(_html_text(cell) for cell in re.findall(r"<td>(.*?)</td>", row))
            for row in re.findall(r"<tr>(.*?)</tr>", section)]
    rows = [r for r in rows if len(r) == 3]  # (quantity, definition, source); not the header
    entries = [*METRICS.values(), PAIR_METRICS["disparate_impact"], PAIR_METRICS["ofi"]]
    for entry in entries:
        found = [r for r in rows if r[0].startswith(entry.title)]
        assert len(found) == 1, (entry.name, found)
        name, formula, source = found[0]
        assert formula.startswith(entry.formula) and source == entry.source, found
        assert (name, formula, source) in DEFINITIONS


def _html_text(cell: str) -> str:
    import html

    return html.unescape(cell)


# --------------------------------------------------------------------------- issue 12: publishable


def _plain_value(v: object) -> object:
    """The JSON block's spelling of a value: non-finite floats as text, others as they are."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if isinstance(v, list):
        return [_plain_value(x) for x in v]
    return v


def _rows(frame: pl.DataFrame) -> list[dict[str, object]]:
    return [{k: _plain_value(v) for k, v in row.items()} for row in frame.to_dicts()]


def test_page_json_equals_the_python_api(demo: pl.DataFrame) -> None:
    """Every table of the JSON block equals what df.fair returns for the same rows and
    arguments (exactly: JSON floats round-trip), and the block holds exactly DATA_KEYS."""
    from polars_fair.audit.html import DATA_KEYS, audit_html, page_data

    by = ["race", "sex"]
    page = audit_html(demo, by, y_score="y_score", where="applicant_id >= 100",
                      n_permutations=200, seed=3, min_support=25, level=0.9)
    data = page_data(page)
    assert tuple(data) == DATA_KEYS
    rows = demo.filter(pl.col("applicant_id") >= 100)
    # the page's reference is the largest group with both classes: White men, as 'largest'
    # one spelling of a group on the whole page, the provenance included (issue 20)
    assert data["provenance"]["parameters"]["reference_group"] == "White | Male"
    assert data["report"] == _rows(rows.fair.report(by, min_support=25))
    assert data["metrics"] == _rows(rows.fair.metrics(by, min_support=25, level=0.9))
    assert data["disparity"] == _rows(pl.concat([
        rows.fair.disparity(by, metric=m, level=0.9) for m in ("selection_rate", "tpr", "fpr")
    ]))
    assert data["summary"] == _rows(rows.fair.summary(by, min_support=25))
    # the verdicts' impact-analysis columns, against the page's reference (second review)
    assert data["impact_analysis"] == _rows(rows.fair.impact_analysis(
        by, reference={"race": "White", "sex": "Male"}, min_support=25))
    assert data["abroca"] == _rows(rows.fair.abroca(by, y_score="y_score"))
    # the test covers the groups with at least min_support (25) positives and negatives, and
    # the reference (issue 20: a smaller group's ABROCA is not a finding)
    abroca = pl.DataFrame(data["abroca"])
    testable = abroca.filter(((pl.col("positives") >= 25) & (pl.col("negatives") >= 25))
                             | pl.col("is_reference")).select(by).cast(
        {c: demo.schema[c] for c in by})
    assert 2 <= testable.height < abroca.height
    assert data["abroca_test"] == _rows(rows.join(testable, on=by, how="semi").fair.abroca_test(
        by, y_score="y_score", n_permutations=200, seed=3))
    assert all(r["n_permutations"] == 200 for r in data["abroca_test"])
    # the page shows the p-values it holds
    black_women = next(r for r in data["abroca_test"]
                       if (r["race"], r["sex"]) == ("Black", "Female"))
    p = black_women["p_value_holm"]
    assert (f"{p:.3f}" if p >= 0.001 else "&lt; 0.001") in page
    # without scores there are no ABROCA tables
    assert tuple(page_data(audit_html(demo, "sex"))) == DATA_KEYS[:6]  # impact_analysis too


def test_provenance_names_the_file_with_its_digest_not_its_directory(tmp_path: Path) -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html, page_data

    folder = tmp_path / "private-folder"
    folder.mkdir()
    data = folder / "scored.parquet"
    frame = make_hiring(1500, seed=4).with_columns(
        race=pl.when(pl.col("applicant_id") < 20).then(None).otherwise(
            pl.col("race").cast(pl.String)))
    frame.write_parquet(data)
    digest = hashlib.sha256(data.read_bytes()).hexdigest()
    with pytest.warns(UserWarning, match=r"dropped \d+ row"):
        page = audit_html(pl.scan_parquet(data), "race", source=data, where="age_band <> '>45'",
                          null_groups="drop", title="Screening audit", model="screen v3",
                          note="quarterly review", filters=["applied before: none"])
    assert str(folder) not in page and "private-folder" not in page
    prov = page_data(page)["provenance"]
    assert prov["input"] == {"name": "scored.parquet", "sha256": digest,
                             "size_bytes": data.stat().st_size}
    assert digest in page
    over_45 = frame.filter(pl.col("age_band") == ">45").height
    missing = frame.filter((pl.col("age_band") != ">45") & pl.col("race").is_null()).height
    assert prov["rows"] == {"read": 1500, "filtered": over_45 + missing,
                            "audited": 1500 - over_45 - missing}
    assert prov["filters"] == ["applied before: none", "where age_band <> '>45'",
                               "drop rows with a missing group value"]
    assert (prov["title"], prov["model"], prov["note"]) == (
        "Screening audit", "screen v3", "quarterly review")
    assert prov["parameters"]["null_groups"] == "drop"
    assert prov["parameters"]["reference_group"] == "White"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", prov["generated_utc"])
    assert prov["versions"]["polars"] == pl.__version__
    assert "<h1>Screening audit</h1>" in page and "screen v3" in page


def test_report_html_records_the_sha256_not_the_directory(tmp_path: Path) -> None:
    require_plot_extra()
    from polars_fair.audit.html import page_data

    folder = tmp_path / "home-of-someone"
    folder.mkdir()
    data = folder / "d.csv"
    make_hiring(800, seed=5).write_csv(data)
    out = tmp_path / "audit.html"
    result = CliRunner().invoke(app, ["report", str(data), "--by", "sex", "--html", str(out),
                                      "--format", "csv"])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "home-of-someone" not in page
    prov = page_data(page)["provenance"]
    assert prov["input"]["name"] == "d.csv"
    assert prov["input"]["sha256"] == hashlib.sha256(data.read_bytes()).hexdigest()


def test_a_missing_group_reads_missing_and_an_undefined_figure_a_dash() -> None:
    """Group b is never predicted positive (PPV 0/0 undefined: —); the rows with no group
    value form a group of their own that reads (missing) in every table."""
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    df = pl.DataFrame({
        "g": ["a"] * 40 + ["b"] * 40 + [None] * 40,
        "y_true": [1, 0] * 60,
        "y_pred": [1, 1, 0, 0] * 10 + [0] * 40 + [1, 0, 0, 1] * 10,
    })
    page = audit_html(df, "g")
    assert [text for _, text in td(page, "g")] == ["a", "b", "(missing)"]
    assert [text for _, text in td(page, "ppv")] == ["50.0%", "—", "50.0%"]
    rates = page[page.index("Rates with 95% Wilson intervals"):page.index("Each group against")]
    assert "<td>(missing)</td>" in rates and ">null<" not in rates


def test_headline_states_only_what_is_significant_after_adjustment() -> None:
    """a (200 rows) selects 100, b (200) selects 40: b differs beyond chance. c (40) selects
    18 of 40 (45% vs 50%): not significant, so not in the headline as a finding."""
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    def rows(g: str, n: int, selected: int) -> pl.DataFrame:
        return pl.DataFrame({"g": [g] * n, "y_true": [1, 0] * (n // 2),
                             "y_pred": [1] * selected + [0] * (n - selected)})

    df = pl.concat([rows("a", 200, 100), rows("b", 200, 40), rows("c", 40, 18)])
    page = audit_html(df, "g", rates=("selection_rate",))
    headline = page[page.index("<h2>Headline</h2>"):page.index("<h2>Provenance</h2>")]
    disparity = df.fair.disparity("g").filter(pl.col("g") != "a")
    assert disparity.filter(pl.col("g") == "b")["significant"].item()
    assert not disparity.filter(pl.col("g") == "c")["significant"].item()
    assert "1 of 2 group(s) differ from the reference" in headline
    assert "<b>b</b> 20.0% vs 50.0%" in headline and "<b>c</b>" not in headline
    # nothing significant: the headline says so, with the smallest adjusted p
    close = pl.concat([rows("a", 200, 100), rows("b", 200, 92), rows("c", 40, 18)])
    page = audit_html(close, "g", rates=("selection_rate",))
    headline = page[page.index("<h2>Headline</h2>"):page.index("<h2>Provenance</h2>")]
    p = close.fair.disparity("g")["p_value_adjusted"].drop_nulls().min()
    assert "no group differs significantly from the reference" in headline
    assert f"not significant (p = {p:.3f}, Holm-adjusted)" in headline


def test_abroca_headline_is_not_the_largest_abroca_of_a_tiny_group(demo: pl.DataFrame) -> None:
    """In the demo the largest ABROCA is a Pacific Islander group of a handful of rows: the
    headline names it as low support, not a finding, and draws a supported group instead."""
    from polars_fair.audit.html import audit_html, page_data

    page = audit_html(demo, ["race", "sex"], y_score="y_score", n_permutations=200)
    data = page_data(page)
    abroca = pl.DataFrame(data["abroca"]).filter(pl.col("abroca").is_not_null())
    largest = abroca.sort("abroca", descending=True).row(0, named=True)
    assert largest["positives"] < 30 or largest["negatives"] < 30
    # the headline's group has at least 30 positives and 30 negatives (issue 20), and only
    # such groups are tested
    tests = pl.DataFrame(data["abroca_test"]).filter(pl.col("p_value").is_not_null())
    assert tests.join(abroca.filter((pl.col("positives") < 30) | (pl.col("negatives") < 30)),
                      on=["race", "sex"], how="semi").height == 0
    supported = tests.sort("abroca", descending=True).row(0, named=True)
    headline = page[page.index("<h2>Headline</h2>"):page.index("<h2>Provenance</h2>")]
    tiny = f"{largest['race']} | {largest['sex']}"
    assert f"The largest ABROCA overall, {tiny}" in headline and "not a finding" in headline
    label = f"{supported['race']} | {supported['sex']}"
    assert label in headline and "200 permutations, seed 0, Holm-adjusted" in headline
    if supported["p_value_holm"] > 0.05:
        assert f"not significant (p = {supported['p_value_holm']:.3f}" in headline
    assert f"ABROCA({label} vs reference White | Male)" in page  # the chart draws it


def test_the_page_reads_each_finding_with_the_label_caveat(demo: pl.DataFrame) -> None:
    from polars_fair.audit.html import LABEL_BIAS_CAVEAT, audit_html

    page = audit_html(demo, ["race", "sex"])
    reading = page[page.index("<h3>What the findings mean</h3>"):page.index("<h2>Uncertainty")]
    assert '<span class="fail">algorithmic</span>: Black | Female:' in reading
    assert "too few rows</span>: " in reading and "Pacific Islander | Female" in reading
    assert html.escape(LABEL_BIAS_CAVEAT) in reading


def test_print_css_keeps_rows_whole_and_repeats_headers() -> None:
    from polars_fair.audit.html import _CSS

    assert "@media print" in _CSS
    assert re.search(r"^tr \{ break-inside: avoid;", _CSS, re.MULTILINE)
    assert "thead { display: table-header-group; }" in _CSS


def test_a_weighted_page_weights_every_table_and_runs_no_permutation_test() -> None:
    """Weights 1, 2, 3 by applicant id: the page's tables equal the weighted API; ABROCA is
    shown but not tested (weights are not exchangeable units)."""
    require_plot_extra()
    from polars_fair.audit.html import audit_html, page_data

    df = make_hiring(1500, seed=6).with_columns(
        w=(pl.col("applicant_id") % 3 + 1).cast(pl.Float64))
    page = audit_html(df, "sex", y_score="y_score", sample_weight="w")
    data = page_data(page)
    assert data["report"] == _rows(df.fair.report("sex", sample_weight="w"))
    assert data["metrics"] == _rows(df.fair.metrics("sex", sample_weight="w"))
    assert data["abroca"] == _rows(df.fair.abroca("sex", y_score="y_score", sample_weight="w"))
    assert data["abroca_test"] is None
    assert data["provenance"]["parameters"]["sample_weight"] == "w"
    assert "Not tested: the permutation test needs unweighted rows" in page


def test_the_divergence_section_holds_the_analysis_table(demo: pl.DataFrame) -> None:
    """divergence=True: the JSON's divergence equals df.fair.divergence with the page's level
    and min_support as the minimum denominator; the section lists the largest |divergence|
    first; a table passed in is shown as given."""
    from polars_fair.audit.html import audit_html, page_data

    page = audit_html(demo, ["race", "sex"], divergence=True, min_support=40, level=0.9)
    expected = demo.fair.divergence(["race", "sex"], level=0.9, min_denominator=40)
    assert page_data(page)["divergence"] == _rows(expected)
    section = page[page.index("<h2>Divergent patterns</h2>"):page.index("<h2>Charts</h2>")]
    top = expected.sort(pl.col("divergence").abs(), descending=True).row(0, named=True)
    first = re.search(r"<tbody><tr[^>]*><td>([^<]*)</td>", section)
    assert first is not None
    assert first.group(1) == ", ".join(f"{a}={top[a]}" for a in top["attributes"])
    assert page.count("<svg") == 4  # rates, OFI, DI, divergence
    given = audit_html(demo, "sex", divergence=expected.head(2))
    assert len(page_data(given)["divergence"]) == 2


def test_charts_draw_at_most_twenty_groups_and_name_the_others() -> None:
    """30 groups (all shown in the tables): the charts draw 20, the reference first, and
    their captions name the 10 smallest others."""
    require_plot_extra()
    import numpy as np

    from polars_fair.audit.html import CHART_PAGE_GROUPS, audit_html, page_data

    rng = np.random.default_rng(0)
    n = 6000
    df = pl.DataFrame({"g": [f"g{v:02d}" for v in rng.integers(0, 30, n)],
                       "y_true": rng.integers(0, 2, n), "y_score": rng.random(n)}
                      ).with_columns(y_pred=(pl.col("y_score") > 0.5).cast(pl.Int64))
    page = audit_html(df, "g", y_score="y_score", n_permutations=20)
    assert CHART_PAGE_GROUPS == 20
    notes = re.findall(r"10 group\(s\) of the tables not drawn \(the charts show the 20 largest "
                       r"and the reference\): ([^<]*)\.", page)
    assert len(notes) == 4 and len(set(notes)) == 1  # rates, OFI, DI, ROC captions
    left = notes[0].split(", ")
    report = pl.DataFrame(page_data(page)["report"])
    assert len(set(left)) == 10 and set(left) <= set(report["g"])
    reference = report.filter(pl.col("is_reference"))["g"].item()
    assert reference not in left
    drawn = report.filter(~pl.col("g").is_in(left))
    assert drawn.height == 20
    # the groups left out are the smallest, but for the reference and the ABROCA headline group
    assert report.filter(pl.col("g").is_in(left))["n"].max() <= sorted(drawn["n"])[2]
    assert "<td>g" in page and report.height == 30  # every group is in the tables


def test_the_adult_audit_from_the_command_line_is_publishable(tmp_path: Path) -> None:
    """Issue 12's done-when on Adult: the page of `polars-fair report adult-scored.csv --by race
    --by sex --y-score y_score --threshold 0.5 --html` holds the JSON block, its numbers equal
    the Python API's, it names the file by its SHA-256 and not its directory, and every tested
    ABROCA row carries a p-value."""
    require_plot_extra()
    from polars_fair.audit.html import page_data
    from tests.conftest import ADULT_SCORED_CSV, require

    path = require(ADULT_SCORED_CSV)
    out = tmp_path / "audit.html"
    result = CliRunner().invoke(app, [
        "report", str(path), "--by", "race", "--by", "sex", "--y-score", "y_score",
        "--threshold", "0.5", "--html", str(out), "--format", "csv",
    ])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert_self_contained(page)
    assert str(path.parent) not in page
    data = page_data(page)
    assert data["provenance"]["input"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    adult = pl.read_csv(path)
    args = {"y_score": "y_score", "threshold": 0.5}
    by = ["race", "sex"]
    assert data["report"] == _rows(adult.fair.report(by, **args))
    assert data["summary"] == _rows(adult.fair.summary(by, **args))
    assert data["metrics"] == _rows(adult.fair.metrics(by, **args))
    assert data["disparity"] == _rows(pl.concat(
        [adult.fair.disparity(by, metric=m, **args) for m in ("selection_rate", "tpr", "fpr")]))
    assert data["abroca"] == _rows(adult.fair.abroca(by, y_score="y_score"))
    tested = [r for r in data["abroca_test"] if r["undefined_reason"] is None]
    # tested: the groups with at least 30 positives and 30 negatives (Adult's counts: the
    # Asian-Pac-Islander, Black and White women, the Asian-Pac-Islander and Black men)
    assert {(r["race"], r["sex"]) for r in tested} == {
        ("Asian-Pac-Islander", "Female"), ("Asian-Pac-Islander", "Male"), ("Black", "Female"),
        ("Black", "Male"), ("White", "Female")}
    assert all(0 < r["p_value"] <= r["p_value_holm"] <= 1 for r in tested)
    assert all(r["n_permutations"] == 1000 for r in tested)
    assert data["provenance"]["parameters"]["seed"] == 0


def test_provenance_of_a_directory_and_of_a_name_that_is_no_file(tmp_path: Path) -> None:
    """A partitioned dataset is hashed file by file in name order (relative name, a zero
    byte, the bytes); a URL or table name is recorded by its last part with no digest."""
    from polars_fair.audit.html import provenance

    data = tmp_path / "dataset"
    (data / "part=a").mkdir(parents=True)
    (data / "part=a" / "x.parquet").write_bytes(b"abc")
    (data / "y.parquet").write_bytes(b"de")
    expected = hashlib.sha256(b"part=a/x.parquet\0abc" + b"y.parquet\0de").hexdigest()
    assert provenance(data)["input"] == {"name": "dataset", "sha256": expected,
                                         "size_bytes": 5, "files": 2}
    assert provenance("s3://bucket/scores/2026.parquet")["input"] == {
        "name": "2026.parquet", "sha256": None, "size_bytes": None}
    assert provenance()["input"] is None


# --------------------------------------------------------------------------- review fixes


def _tiny_scores() -> pl.DataFrame:
    # groups A (4 rows) and B (4 rows); scores chosen so that by hand, at threshold 0.5:
    # A predicts 1,1,0,0 and B 1,0,0,0
    return pl.DataFrame({
        "g": ["A"] * 4 + ["B"] * 4,
        "y_true": [1, 0, 1, 0, 1, 0, 1, 0],
        "s": [0.9, 0.6, 0.4, 0.1, 0.8, 0.3, 0.2, 0.1],
    })


@pytest.mark.parametrize(("change", "reason"), [
    # one group: no second ROC curve to compare with
    ({"g": pl.lit("A")}, "there is one group only (A)"),
    # every label 1: the reference (A, the first of two groups of 4 rows) has 4 positives
    # and 0 negatives
    ({"y_true": pl.lit(1)}, "the reference group A has one class only (4 positives, 0 negatives)"),
    # B all positive, A keeps both classes: only the reference has a ROC curve
    ({"y_true": pl.when(pl.col("g") == "B").then(1).otherwise(pl.col("y_true"))},
     "no group other than the reference has both classes"),
])
def test_a_page_without_two_roc_curves_states_why_abroca_is_left_out(
        change: dict[str, pl.Expr], reason: str) -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html, page_data

    page = audit_html(_tiny_scores().with_columns(**change), "g", y_score="s", threshold=0.5,
                      min_support=1, n_permutations=9)
    assert f"Not computed: {html.escape(reason)}" in page
    assert f"No ROC chart: {html.escape(reason)}" in page
    assert "ROC curves and ABROCA</h3>" not in page
    assert page_data(page)["abroca_test"] is None


def test_zero_weight_group_is_never_the_reference() -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html, page_data

    # C has the most rows (5) but weight 0: the largest group by rows with weight is A (4 rows)
    df = pl.DataFrame({"g": ["A"] * 4 + ["B"] * 3 + ["C"] * 5,
                       "y_true": [1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1],
                       "y_pred": [1, 0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 1],
                       "w": [1.0] * 7 + [0.0] * 5})
    page = audit_html(df, "g", sample_weight="w", min_support=1)
    assert page_data(page)["provenance"]["parameters"]["reference_group"] == "A"


def test_a_missing_group_reads_missing_in_the_verdicts_and_the_gate() -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    # selection rates by hand: a 1/4, missing 4/4 -> the demographic parity difference is
    # 1 - 0.25 = 0.75 between the missing group and a; impact ratio of a = 0.25 < 0.8 fails
    df = pl.DataFrame({"g": ["a"] * 4 + [None] * 4, "y_true": [1, 0, 1, 0] * 2,
                       "y_pred": [1, 0, 0, 0, 1, 1, 1, 1]})
    page = audit_html(df, "g", min_support=1)
    verdicts = page.split("<h2>Summary metrics</h2>")[1].split("<h2>Uncertainty")[0]
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", verdicts)
    assert "(missing)" in cells and "null" not in cells and "None" not in verdicts
    row = cells[cells.index("demographic_parity_difference"):][:4]
    assert row[1] == "0.7500" and set(row[2:4]) == {"a", "(missing)"}
    assert "g=None" not in page


def test_the_abroca_p_value_is_described_as_the_test_permutes_group_membership() -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html

    # polars_fair.analyses.scores.permutation draws group membership within the pair (each row keeps
    # its score and label); the page must say so, in the definitions and above the ABROCA table
    page = audit_html(make_hiring(400, seed=0), "sex", y_score="y_score", threshold=0.5,
                      n_permutations=19)
    assert "label permutation" not in page
    assert page.count("permutations of group membership") == 2
    assert "(1 + k) / (1 + 19), k the number of 19 seeded permutations" in page


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"rates": []}, "rates must name at least one metric, got []"),
    ({"divergence": "yes"}, "divergence must be True, False, None or a divergence table"),
    ({"divergence": pl.DataFrame({"a": [1]})}, "got a frame with the columns ['a']"),
    ({"output": "/nonexistent/dir/a.html"},
     "output '/nonexistent/dir/a.html': the directory '/nonexistent/dir' does not exist"),
    ({"output": "a.txt"}, "output 'a.txt': the audit page is HTML"),
    ({"filters": ["ok", 1]}, "filters must be one filter (a str) or a sequence of them"),
    # 8 rows in the data: rows_read=3 cannot be the input before filters
    ({"rows_read": 3}, "rows_read=3 is fewer than the 8 rows of data"),
    ({"rows_read": True}, "rows_read must be an integer >= 0, got True"),
])
def test_audit_html_refuses_bad_page_arguments_naming_them(kwargs: dict[str, object],
                                                            message: str) -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html
    from polars_fair.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError) as caught:
        audit_html(_tiny_scores().with_columns(y_pred=pl.col("s") >= 0.5), "g", min_support=1,
                   **kwargs)  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_audit_html_output_is_a_directory(tmp_path: Path) -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html
    from polars_fair.errors import PAGE_OUTPUT_IS_DIR, InvalidArgumentError

    with pytest.raises(InvalidArgumentError) as caught:
        audit_html(_tiny_scores().with_columns(y_pred=pl.col("s") >= 0.5), "g", output=tmp_path)
    assert str(caught.value) == PAGE_OUTPUT_IS_DIR.format(
        path=str(tmp_path), example=str(tmp_path / "audit.html"))


def test_page_data_refuses_what_is_not_text() -> None:
    from polars_fair.audit.html import page_data
    from polars_fair.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match=r"got None \(NoneType\)"):
        page_data(None)  # type: ignore[arg-type]


def test_a_str_filter_is_one_filter_and_the_rows_add_up() -> None:
    require_plot_extra()
    from polars_fair.audit.html import audit_html, page_data, provenance

    # 8 rows audited out of 20 read: 12 filtered before the page
    page = audit_html(_tiny_scores().with_columns(y_pred=pl.col("s") >= 0.5), "g",
                      filters="age >= 18", rows_read=20, min_support=1)
    prov = page_data(page)["provenance"]
    assert prov["filters"] == ["age >= 18"]
    assert prov["rows"] == {"read": 20, "filtered": 12, "audited": 8}
    assert provenance(filters="abc")["filters"] == ["abc"]
    from polars_fair.errors import InvalidArgumentError
    with pytest.raises(InvalidArgumentError, match="do not add up"):
        provenance(rows_read=10, rows_filtered=-2990, rows_audited=3000)


def test_the_divergence_chart_of_the_page_names_the_fpr_and_colours_by_harm(
        demo: pl.DataFrame) -> None:
    from polars_fair.audit.html import audit_html

    # divergence=True computes the FPR's divergence, where a higher rate harms the pattern
    page = audit_html(demo, ["race", "sex"], divergence=True)
    assert "Divergence of false positive rate by pattern" in page
    assert "fpr: higher harms" in page
