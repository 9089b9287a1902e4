"""The audit page names both models as the user did (issue 25 review item 5).

The comparison section, the change gate's block and the data section wrote an expression as
Polars' plan text (``col("old")``, ``[(col("old")) == (dyn int: 1)]``): they now write the
column's name, the command line's SQL as typed, or the Python that builds the expression.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.audit.html import audit_html, page_data
from polars_fair.cli.entry import app
from tests.audit.test_html_adverse_impact import text
from tests.audit.test_html_compare import DATA
from tests.audit.test_plot import require_plot_extra

pytestmark = pytest.mark.slow  # each page takes seconds (as test_html.py)
runner = CliRunner()


def _names(page: str) -> tuple[str, str, str]:
    verdict = text(page, "<h3>Against the baseline", "<h2>Headline")
    section = text(page, "<h2>Against the baseline model</h2>", "<h2>Uncertainty")
    after = page[page.index("<h2>Data</h2>") + 1:]
    data = text(after, "h2>Data</h2>", "<h2>")
    return verdict, section, data


def test_a_column_expression_is_named_by_its_column() -> None:
    require_plot_extra()
    page = audit_html(DATA, "g", y_pred=pl.col("new"), baseline_pred=pl.col("old"),
                      y_true=pl.col("y_true"), reference="a")
    verdict, section, _ = _names(page)
    assert "against the baseline old :" in verdict
    assert "the baseline is old , on the same 200 rows" in section
    assert 'col("' not in page
    params = page_data(page)["provenance"]["parameters"]
    assert (params["y_pred"], params["baseline_pred"]) == ("new", "old")


def test_an_expression_is_written_as_the_python_that_builds_it() -> None:
    require_plot_extra()
    page = audit_html(DATA, "g", y_pred=pl.col("new") == 1, baseline_pred=pl.col("old") == 1,
                      pos_label=True, reference="a")
    verdict, section, data = _names(page)
    assert 'against the baseline pl.col("old") == 1 :' in verdict
    assert 'the baseline is pl.col("old") == 1 , on the same' in section
    assert 'prediction pl.col("new") == 1 , positive value True' in data
    assert "dyn int" not in page


def test_the_command_line_sql_is_shown_as_typed(tmp_path: Path) -> None:
    require_plot_extra()
    path, out = tmp_path / "two.csv", tmp_path / "audit.html"
    DATA.write_csv(path)
    result = runner.invoke(app, ["report", str(path), "--by", "g", "--y-pred", "new = 1",
                                 "--reference", "a", "--html", str(out),
                                 "--baseline-pred", "old = 1"])
    assert result.exit_code == 0, result.output
    verdict, section, data = _names(out.read_text(encoding="utf-8"))
    assert "against the baseline old = 1 :" in verdict
    assert "the baseline is old = 1 , on the same" in section
    assert "prediction new = 1 ," in data
