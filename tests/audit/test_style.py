"""The styled report table names every metric as the registry does (issue 10: declared once).

Titles, formulas and sources are read from :data:`polars_fair.core.registry.METRICS` and
:data:`polars_fair.core.registry.PAIR_METRICS` (introspected, no hand list): each metric the table
can show is labelled with its registry title and defined in the source notes by its registry
formula and source.
"""

from __future__ import annotations

import html as _html
import re

import polars as pl
import pytest

from polars_fair import errors as E
from polars_fair.core.registry import METRICS, PAIR_METRICS
from polars_fair.datasets import make_hiring
from tests.audit.test_html import td
from tests.audit.test_plot import require_plot_extra


@pytest.fixture(scope="module")
def report() -> pl.DataFrame:
    require_plot_extra()
    return make_hiring(3000, seed=0).fair.report("race")


def column_label(page: str, column: str) -> str:
    """The text of a column's header cell (Great Tables gives it ``id="pf-report-<column>"``)."""
    found = re.findall(rf'<th [^>]*id="pf-report-{re.escape(column)}"[^>]*>(.*?)</th>', page,
                       re.S)
    assert len(found) == 1, (column, found)
    return _html.unescape(re.sub(r"<[^>]+>", "", found[0])).strip()


def notes(page: str) -> str:
    """The source notes' text, unescaped."""
    found = re.findall(r'<td class="gt_sourcenote"[^>]*>(.*?)</td>', page, re.S)
    assert found, "no source notes"
    return _html.unescape(" ".join(found))


@pytest.mark.parametrize("name", list(METRICS))
def test_every_registry_metric_is_labelled_and_defined_from_the_registry(
    report: pl.DataFrame, name: str
) -> None:
    from polars_fair.audit.style import style_report

    entry = METRICS[name]
    page = style_report(report, rates=[name]).as_raw_html()
    assert column_label(page, name) == entry.title
    text = notes(page)
    assert f"{entry.title} = {entry.formula} ({entry.source})" in text
    # a share in [0, 1] reads as a percentage, anything else (marginal benefit) as a signed number
    cells = [cell for _, cell in td(page, name)]
    values = report[name].to_list()
    if (entry.low, entry.high) == (0.0, 1.0):
        assert cells == ["—" if v is None else f"{100 * v:.1f}%" for v in values]
    else:
        # Great Tables writes the minus as U+2212 and zero without a sign
        assert cells == ["—" if v is None else "0.000" if round(v, 3) == 0
                         else f"{v:+.3f}".replace("-", "−") for v in values]


def test_di_and_ofi_are_defined_from_the_pair_registry(report: pl.DataFrame) -> None:
    from polars_fair.audit.style import style_report

    text = notes(style_report(report).as_raw_html())
    for name in ("disparate_impact", "ofi"):
        entry = PAIR_METRICS[name]
        assert entry.formula in text and entry.source in text, name


def test_the_default_columns_are_registry_metrics(report: pl.DataFrame) -> None:
    from polars_fair.audit.style import DEFAULT_RATES, LABELS, RATES, style_report

    assert set(DEFAULT_RATES) <= set(METRICS)
    assert RATES == tuple(m for m, e in METRICS.items() if (e.low, e.high) == (0.0, 1.0))
    page = style_report(report).as_raw_html()
    for name in DEFAULT_RATES:
        assert column_label(page, name) == METRICS[name].title == LABELS[name]


def test_unknown_or_absent_rates_are_named(report: pl.DataFrame) -> None:
    from polars_fair.audit.style import style_report

    with pytest.raises(E.InvalidArgumentError, match="'recall'"):
        style_report(report, rates=["tpr", "recall"])
    with pytest.raises(E.ColumnNotFoundError, match="'fdr'"):
        style_report(report.drop("fdr"), rates=["fdr"])
