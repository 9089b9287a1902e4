"""Escaped text never reads as another text (issue 19, fifth review, item 3).

A NUL and the literal text ``\\x00`` (backslash, x, 0, 0) both printed ``\\x00`` in CSV, Markdown
and the text table. A backslash that could be read as the start of an escape is now doubled
(:func:`polars_fair.core.labels.visible`, :func:`polars_fair.core.labels.csv_visible`), so the
escaping is injective: the decoder below, written from the documented rule, reads every escaped
text back to the original.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from polars_fair.cli.entry import app
from polars_fair.core.labels import csv_visible, visible

runner = CliRunner()

_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4}|n|r|t)")
_NAMED = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t"}


def _decode(text: str) -> str:
    """The documented rule read backwards: ``\\\\`` is a backslash, ``\\xNN``, ``\\uNNNN``,
    ``\\n``, ``\\r``, ``\\t`` a character; any other backslash is itself."""
    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        return _NAMED[code] if code in _NAMED else chr(int(code[1:], 16))
    return _ESCAPE.sub(one, text)


ALPHABET = st.sampled_from(["\\", "x", "0", "u", "2", "8", "n", "r", "t", "a", "\x00", "\n",
                            "\r", "\t", "\u2028", "\u200b", "\x7f", '"'])


@settings(max_examples=400, deadline=None)
@given(st.text(ALPHABET, max_size=12))
def test_visible_is_read_back_exactly(text: str) -> None:
    assert _decode(visible(text)) == text


@settings(max_examples=400, deadline=None)
@given(st.text(ALPHABET, max_size=12))
def test_csv_visible_is_read_back_exactly(text: str) -> None:
    assert _decode(csv_visible(text)) == text


def test_nul_and_the_text_backslash_x00_differ() -> None:
    # by hand: NUL -> \x00 (4 characters); the 4-character text \x00 -> \\x00 (5 characters)
    assert visible("A\x00") == "A\\x00"
    assert visible("A\\x00") == "A\\\\x00"
    assert csv_visible("A\x00") == "A\\x00"
    assert csv_visible("A\\x00") == "A\\\\x00"
    assert visible("C:\\data") == "C:\\data"  # a backslash no escape follows is kept


@pytest.fixture
def groups(tmp_path: Path) -> Path:
    path = tmp_path / "rows.parquet"
    pl.DataFrame({"g": ["A\x00"] * 2 + ["A\\x00"] * 2, "y_true": [1, 0, 1, 0],
                  "y_pred": [1, 0, 0, 1]}).write_parquet(path)
    return path


@pytest.mark.parametrize("fmt", ["csv", "markdown", "table"])
def test_every_format_keeps_the_two_groups_apart(groups: Path, fmt: str) -> None:
    out = runner.invoke(app, ["report", str(groups), "--by", "g", "--min-support", "1",
                              "--format", fmt, "--columns", "g,n"])
    assert out.exit_code == 0, out.output
    if fmt == "csv":
        cells = [r["g"] for r in csv.DictReader(io.StringIO(out.stdout))]
        assert cells == ["A\\x00", "A\\\\x00"]
    elif fmt == "markdown":  # Markdown escapes each backslash once more, its own layer
        assert "| A\\\\x00 |" in out.stdout and "| A\\\\\\\\x00 |" in out.stdout
    else:
        assert re.search(r"│ A\\x00 +┆", out.stdout) and re.search(r"│ A\\\\x00 +┆", out.stdout)


def test_the_html_audit_and_its_charts_keep_the_two_groups_apart() -> None:
    from tests.audit.test_plot import require_plot_extra

    require_plot_extra()
    from polars_fair.audit.html import audit_html
    from polars_fair.core.labels import markup_text, printable

    # by hand: NUL -> \x00; the text backslash, x, 0, 0 -> \\x00, on the page and in a chart
    assert (markup_text("A\x00"), markup_text("A\\x00")) == ("A\\x00", "A\\\\x00")
    assert (printable("A\x00"), printable("A\\x00")) == ("A\\x00", "A\\\\x00")
    rows = pl.DataFrame({"g": ["A\x00"] * 40 + ["A\\x00"] * 40, "y_true": [1, 0] * 40,
                         "y_pred": [1, 1, 0, 0] * 20})
    page = audit_html(rows, "g")
    cells = set(re.findall(r"<td>(A\\[^<]*)</td>", page))  # the tables' group cells
    assert cells == {"A\\x00", "A\\\\x00"}
    assert "\x00" not in page
    svg_text = re.findall(r"<text[^>]*>([^<]*)</text>", page)
    assert "A\\x00" in svg_text and "A\\\\x00" in svg_text
