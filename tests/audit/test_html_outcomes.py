"""The HTML audit pages of a multiclass decision and of a continuous outcome (issue 22).

Each page is parsed back (its tables and its JSON block) and its figures are checked against
hand computations on small frames written here, scipy (the chi-square statistic, Welch's test)
and the analyses' own tables (the JSON block must equal them). The CLI's ``--html`` must give
the same page as the Python function.
"""

from __future__ import annotations

import datetime as dt
import html as _html
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats as sst
from typer.testing import CliRunner

from polars_fair import errors as E
from polars_fair.audit.html import continuous_html, multiclass_html, page_data
from polars_fair.cli.entry import app
from tests.audit.test_plot import require_plot_extra

#: Each test builds whole pages (charts rendered by vl-convert): slow, as test_html.py is
#: (tests/conftest.py); the fast loop keeps the two functions' doctests, which build a page each.
pytestmark = pytest.mark.slow

WHEN = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)

# a: 5 Low, 4 Medium, 1 High; b: 4 Low, 6 Medium; c (low support at 6): 1 Low, 2 Medium, 2 High
HAND = pl.DataFrame({
    "g": ["a"] * 10 + ["b"] * 10 + ["c"] * 5,
    "p": ["Low"] * 5 + ["Medium"] * 4 + ["High"] + ["Low"] * 4 + ["Medium"] * 6
         + ["Low"] + ["Medium"] * 2 + ["High"] * 2,
})
CLASSES = ["Low", "Medium", "High"]


@pytest.fixture(autouse=True)
def _plot() -> None:
    require_plot_extra()


def _text(fragment: str) -> str:
    return " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _section(page: str, start: str, end: str) -> str:
    return page[page.index(start):page.index(end, page.index(start))]


def _rows(fragment: str) -> list[list[str]]:
    """The body rows of the tables in ``fragment``, each as its cells' text."""
    body = "".join(re.findall(r"<tbody>(.*?)</tbody>", fragment, re.S))
    return [[_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


# ---------------------------------------------------------------------------- multiclass
def test_the_multiclass_verdict_lists_the_hand_counted_failures() -> None:
    page = multiclass_html(HAND, "g", y_pred="p", classes=CLASSES, min_support=6,
                           generated=WHEN)
    verdict = _section(page, "<h2>Verdict", "<h2>Provenance")
    assert "<h2>Verdict: FAIL</h2>" in verdict
    # checked: a and b (c has 5 < 6 rows), 3 classes each: 6 checks. Low: a 1/2, b 2/5 -> b's
    # ratio exactly 4/5 passes. Medium: a 2/5, b 3/5 -> a 2/3 fails. High: a 1/10, b 0 -> fails.
    assert "2 of 6 (group, class) checks fail" in _text(verdict)
    rows = _rows(verdict)
    assert [(r[0], r[1], r[3], r[4], r[6]) for r in rows] == [
        ("a", "Medium", "40.0%", "0.667", "fails"),
        ("b", "High", "0.0%", "0.000", "fails"),
    ]
    assert "Not checked (fewer than 6 rows): c." in _text(verdict)
    # the chi-square test in the verdict: the statistic of the 3 x 3 table, as scipy gives it
    observed = np.array([[5, 4, 1], [4, 6, 0], [1, 2, 2]])
    chi2 = sst.chi2_contingency(observed, correction=False)[0]
    assert f"χ² = {chi2:.2f} with 4 degrees of freedom" in _text(verdict)
    assert "Monte-Carlo" in verdict  # the smallest expected count, 5 x 3 / 25 = 0.6, is below 5


def test_when_every_check_passes_each_class_shows_its_closest_group() -> None:
    even = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4,
                         "p": ["x", "x", "y", "y", "x", "x", "x", "y"]})
    page = multiclass_html(even, "g", y_pred="p", min_support=1, four_fifths=0.5)
    verdict = _section(page, "<h2>Verdict", "<h2>Provenance")
    assert "<h2>Verdict: PASS</h2>" in verdict
    # x: a 1/2, b 3/4 -> a 2/3; y: a 1/2, b 1/4 -> b 1/2 (exactly 0.5 passes)
    assert [(r[0], r[1], r[4]) for r in _rows(verdict)] == [("a", "x", "0.667"),
                                                            ("b", "y", "0.500")]


def test_the_multiclass_tables_and_json_equal_the_analyses() -> None:
    page = multiclass_html(HAND, "g", y_pred="p", classes=CLASSES, min_support=6, seed=3,
                           n_permutations=200)
    data = page_data(page)
    want = HAND.fair.multiclass_report("g", y_pred="p", classes=CLASSES, min_support=6)
    assert data["multiclass_report"] == want.to_dicts()
    test = HAND.fair.multiclass_test("g", y_pred="p", classes=CLASSES, seed=3,
                                     n_permutations=200)
    assert data["multiclass_test"] == test.to_dicts()
    assert data["provenance"]["rows"] == {"read": 25, "filtered": 0, "audited": 25}
    assert data["provenance"]["parameters"]["classes"] == CLASSES
    tables = _section(page, "<h2>Per class", "<h2>Does the predicted")
    medium = _section(tables, "<h3>Class Medium", "<h3>Class High")
    # g, n, in the class, share, DI, impact ratio, verdict, note
    assert _rows(medium) == [
        ["a", "10", "4", "40.0%", "1.000", "0.667", "fails", "reference"],
        ["b", "10", "6", "60.0%", "1.500", "1.000", "passes", ""],
        ["c", "5", "2", "40.0%", "1.000", "0.667", "fails (low support)", "low support"],
    ]
    assert page.count("<figure>") == 2 and "four-fifths (0.8)" in page


def test_true_classes_add_the_one_vs_rest_rates() -> None:
    df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4,
                       "p": ["x", "x", "y", "y", "x", "y", "y", "y"],
                       "t": ["x", "y", "y", "y", "x", "x", "y", "y"]})
    page = multiclass_html(df, "g", y_pred="p", y_true="t", min_support=1)
    x = _section(page, "<h3>Class x", "<h3>Class y")
    # a, class x: TP 1 (x,x), FP 1 (pred x, true y), FN 0, TN 2 -> TPR 1, FPR 1/3, PPV 1/2
    assert _rows(x)[0][7:10] == ["100.0%", "33.3%", "50.0%"]


def test_group_labels_are_spelt_once_and_escaped() -> None:
    df = pl.DataFrame({"g": ["<b>&x"] * 3 + [None] * 3 + ["(missing)"] * 3,
                       "p": ["u", "v", "v"] * 3})
    page = multiclass_html(df, "g", y_pred="p", min_support=1)
    assert "<b>&x" not in page.replace("<b>&amp;", "")  # never raw
    assert "&lt;b&gt;&amp;x" in page
    body = page[:page.index('<script type="application/json"')]
    assert '"(missing)"' in _html.unescape(body)  # the text is quoted: not the missing group
    assert "(missing)" in _text(_section(page, "<h3>Class u", "<h3>Class v"))


def test_multiclass_page_arguments_are_checked_before_reading(tmp_path: Path) -> None:
    with pytest.raises(E.InvalidArgumentError, match="html"):
        multiclass_html(HAND, "g", y_pred="p", output=tmp_path / "page.txt")
    with pytest.raises(E.InvalidArgumentError, match="at least one attribute"):
        multiclass_html(HAND, [], y_pred="p")
    with pytest.raises(E.InvalidLabelError):
        multiclass_html(HAND.with_columns(p=pl.lit("one")), "g", y_pred="p")
    out = tmp_path / "page.html"
    page = multiclass_html(HAND, "g", y_pred="p", output=out, where="g != 'c'")
    assert out.read_text(encoding="utf-8") == page
    assert page_data(page)["provenance"]["rows"] == {"read": 25, "filtered": 5, "audited": 20}


# ---------------------------------------------------------------------------- continuous
# a: 1, 2, 3 (mean 2, sd 1); b: 2, 3, 4 (mean 3, sd 1); c: 10 (one row: no sd)
VALUES = pl.DataFrame({"g": ["a"] * 3 + ["b"] * 3 + ["c"],
                       "v": [1.0, 2.0, 3.0, 2.0, 3.0, 4.0, 10.0],
                       "y": [1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 10.0]})


def test_the_continuous_verdict_applies_no_rule_and_shows_the_hand_worked_gaps() -> None:
    page = continuous_html(VALUES, "g", y_pred="v", reference="a", min_support=2)
    verdict = _section(page, "<h2>Verdict", "<h2>Provenance")
    assert "<h2>Verdict: no rule applied</h2>" in verdict
    assert "PASS" not in verdict and "FAIL" not in verdict and "fails" not in verdict
    assert "conventions" in verdict and "not legal or regulatory thresholds" in verdict
    b, c = _rows(verdict)
    # b - a = 1; Welch: se = sqrt(1/3 + 1/3), df = 4; pooled sd 1 -> SMD 1 ("large")
    welch = sst.ttest_ind([2, 3, 4], [1, 2, 3], equal_var=False)
    half = sst.t.ppf(0.975, 4) * np.sqrt(2 / 3)
    assert b[:2] == ["b", "3"] and b[2] == "+1.000"
    assert b[3] == f"[{1 - half:.3f}, {1 + half:.3f}]".replace("-", "−")
    assert b[4] == f"{welch.pvalue:.3f}" and b[5] == "no"
    assert b[6:8] == ["+1.000", "large"]
    # c, one row: no Welch interval (no sd of its own), but the pooled sd is a's:
    # sqrt((0 + 2) / (1 + 3 - 2)) = 1, so SMD = (10 - 2) / 1
    assert c[0] == "c" and c[3] == "—" and c[4] == "—" and c[6:8] == ["+8.000", "large"]


def test_the_continuous_table_shows_each_mean_with_its_t_interval() -> None:
    page = continuous_html(VALUES, "g", y_pred="v", reference="a", min_support=2)
    table = _section(page, "<h2>v by group", "<h2>Charts")
    a, b, c = _rows(table)
    half = sst.t.ppf(0.975, 2) * 1 / np.sqrt(3)  # a: 2 ± t(2) sd / sqrt(3)
    assert a[2] == f"2.0000 [{2 - half:.4f}, {2 + half:.4f}]".replace("-", "−")
    assert a[3] == "1.0000" and a[-1] == "reference"
    assert c[-1] == "low support" and c[2] == "10.0000 —"
    data = page_data(page)
    want = VALUES.fair.continuous_report("g", y_pred="v", reference="a", min_support=2)
    assert data["continuous_report"] == want.to_dicts()
    assert [r["mean_ci_low"] for r in data["mean_intervals"]][0] == pytest.approx(2 - half)
    assert page.count("<figure>") == 1


def test_y_true_adds_the_residual_table() -> None:
    page = continuous_html(VALUES, "g", y_pred="v", y_true="y", reference="a", min_support=2)
    residuals = _section(page, "<h3>Residuals", "<h2>Charts")
    a, b, _ = _rows(residuals)
    # a: residuals 0, 1, 2: mean 1, MAE 1, RMSE sqrt(5/3); b: 0, 1, 2 too -> ratios 1
    assert a[2:6] == ["1.0000", "+1.0000", "1.0000", f"{np.sqrt(5 / 3):.4f}"]
    assert b[6:8] == ["1.000", "1.000"]
    verdict = _section(page, "<h2>Verdict", "<h2>Provenance")
    assert "residual SMD" in verdict


# ---------------------------------------------------------------------------- command line
def _no_time(data: dict[str, Any]) -> dict[str, Any]:
    prov = {k: v for k, v in data["provenance"].items() if k != "generated_utc"}
    return {**data, "provenance": prov}


@pytest.mark.parametrize("command", ["multiclass-report", "continuous-report"])
def test_the_cli_writes_the_same_page_as_python(command: str, tmp_path: Path) -> None:
    source = tmp_path / "rows.csv"
    VALUES.with_columns(p=pl.Series(["x", "y", "y", "x", "x", "y", "x"])).write_csv(source)
    out = tmp_path / "page.html"
    column = "p" if command == "multiclass-report" else "v"
    result = CliRunner().invoke(app, [command, str(source), "--by", "g", "--y-pred", column,
                                      "--min-support", "2", "--html", str(out),
                                      "--title", "T"])
    assert result.exit_code == 0, result.output
    build = multiclass_html if command == "multiclass-report" else continuous_html
    want = build(pl.read_csv(source), ["g"], y_pred=column, min_support=2, title="T",
                 source=source)
    assert _no_time(page_data(out.read_text(encoding="utf-8"))) == _no_time(page_data(want))
    bad = CliRunner().invoke(app, [command, str(source), "--by", "g", "--y-pred", column,
                                   "--note", "n"])
    assert bad.exit_code == 2 and "--note applies to the HTML audit" in bad.output


def test_weights_intersections_and_ordered_classes_read_as_the_report() -> None:
    df = pl.DataFrame({"r": ["a", "a", "a", "b", "b", "b"], "s": ["m", "f", "m", "f", "f", "m"],
                       "p": [1, 2, 3, 1, 3, 3], "w": [1.0, 2.0, 0.5, 1.0, 1.0, 2.0]})
    page = multiclass_html(df, ["r", "s"], y_pred="p", sample_weight="w", ordered=True,
                           classes=[1, 2, 3], min_support=1)
    data = page_data(page)
    want = df.fair.multiclass_report(["r", "s"], y_pred="p", sample_weight="w", ordered=True,
                                     classes=[1, 2, 3], min_support=1)
    assert data["multiclass_report"] == want.to_dicts()
    three = _rows(_section(page, "<h3>Class 3", "<h2>Does the predicted"))
    # at or above class 3, weighted: a|m: 0.5 of 1.5 -> 33.3%; b|m: 2 of 2 -> 100%
    assert [(r[0], r[1], r[3], r[4]) for r in three if r[1] == "m"] == [
        ("a", "m", "0.5", "33.3%"), ("b", "m", "2.0", "100.0%")]
    assert "Weighted: counts are weight sums." in page
    assert "the share at or above the class" in _text(_section(page, "<h2>Verdict",
                                                                "<h2>Provenance"))
    # the group of an intersection reads "a | m" in the verdict, as on every page
    assert "<b>a | m</b>" in page or "<b>a | f</b>" in page
    assert page.count("<figure>") == 2 and "Not drawn" not in page  # integer classes drawn


def test_an_ordered_page_leaves_out_the_lowest_class_and_counts_rows_in_words() -> None:
    # issue 22 re-review item 8: with ordered classes, at or above the lowest class is every
    # row (share 1 for every group), so its check always passed and was counted. By hand, at
    # or above Medium: a 2/3, b 1/3, c 1/1 -> ratios 0.667 and 0.333 fail, c passes; at or
    # above High: a 1/3, b 1/3, c 0 -> c's 0 fails: 3 of 6 checks fail (not 3 of 9)
    df = pl.DataFrame({"g": ["a", "a", "a", "b", "b", "b", "c"],
                       "p": ["Low", "Medium", "High", "Low", "Low", "High", "Medium"]})
    page = multiclass_html(df, "g", y_pred="p", classes=CLASSES, ordered=True, min_support=1,
                           generated=WHEN)
    verdict = _text(_section(page, "<h2>Verdict", "<h2>Provenance"))
    assert "3 of 6 (group, class) checks fail" in verdict
    assert [(r[0], r[1], r[4]) for r in _rows(_section(page, "<h2>Verdict", "<h2>Provenance"))
            ] == [("a", "Medium", "0.667"), ("b", "Medium", "0.333"), ("c", "High", "0.000")]
    assert "Not checked: the lowest class, Low," in verdict
    low = _rows(_section(page, "<h3>Class Low", "<h3>Class Medium"))
    assert [(r[0], r[3], r[6]) for r in low] == [("a", "100.0%", "always 1: not checked")] * 1 \
        + [("b", "100.0%", "always 1: not checked"), ("c", "100.0%", "always 1: not checked")]
    # "1 rows" read "1 row" (a min_support of 1)
    assert "at least 1 row," in verdict and "1 rows" not in _text(page)
    # unordered, every class is checked: 9 checks
    plain = multiclass_html(df, "g", y_pred="p", classes=CLASSES, min_support=1,
                            generated=WHEN)
    assert "of 9 (group, class) checks" in _text(plain)


@pytest.mark.parametrize("kind", ["multiclass", "continuous"])
def test_the_pages_are_self_contained(kind: str) -> None:
    if kind == "multiclass":
        page = multiclass_html(HAND, "g", y_pred="p", min_support=1)
    else:
        page = continuous_html(VALUES, "g", y_pred="v", min_support=1)
    assert "http://" not in page and "https://" not in page
    scripts = re.findall(r"<script[^>]*>", page)
    assert scripts == ['<script type="application/json" id="polars-fair-data">']
    assert "<link" not in page and "<img" not in page and "@import" not in page
    assert "@media print" in page  # the binary page's print stylesheet
