"""Two different groups never render to the same cell of an HTML table (issue 19 review, kinds
3 and 4).

The page escaped ``<`` and ``&`` and quoted a text that reads as the missing group, but a line
break, a tab, a run of spaces, a leading or trailing space and a no-break space reached the
page raw, where a browser shows each as one plain space (or nothing): ``"a b"``, ``"a  b"``,
``" a b"``, ``"a\\nb"`` and ``"a\\tb"`` read alike in the rates table, the styled report and
its notes. The LL 144 page wrote a missing category and the text ``"(unknown)"`` both as
``(unknown)``, and the summary table mapped its labels by a spelling the summary no longer
uses. Each table is read back here with ``html.parser``: its group cells must stay as many
distinct texts as there are groups, as written, stripped, and with whitespace collapsed as a
browser does; and the escapes read back to the values themselves.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_fair.audit.html import audit_html
from polars_fair.core.labels import markup_text

#: Groups that differ only in markup, whitespace, a line break or how missing is written.
GROUPS = ["a<b", "a&lt;b", None, "null", "(missing)", '"a<b"', "a b", "a  b", " a b", "a b ",
          "a\nb", "a\\nb", "a\tb", "a\rb", "a\r\nb", "a\u00a0b", "a\u2009b", "a\\x20b", "a \\"]


class _Tables(HTMLParser):
    """Each ``<table>`` of a page as rows of cell texts (entities read back)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _tables(page: str) -> list[list[list[str]]]:
    parsed = _Tables()
    parsed.feed(page)
    return parsed.tables


def _readings(texts: list[str]) -> list[set[str]]:
    """The texts as written, stripped, and with whitespace collapsed (as a browser shows)."""
    return [set(texts), {t.strip() for t in texts}, {" ".join(t.split()) for t in texts}]


def _rows(groups: list[str | None]) -> pl.DataFrame:
    # 40 rows a group; labels and predictions vary within each group, so every rate is defined
    k = len(groups)
    n = 40 * k
    return pl.DataFrame({"g": [groups[i % k] for i in range(n)],
                         "y_true": [(i // k) % 2 for i in range(n)],
                         "y_pred": [(i // (2 * k)) % 2 for i in range(n)],
                         "s": [((i * 37) % 100) / 100 for i in range(n)]})


@pytest.fixture(scope="module")
def page() -> str:
    return audit_html(_rows(GROUPS), "g", y_score="s", n_permutations=20, min_support=1)


def test_every_group_table_keeps_the_groups_apart(page: str) -> None:
    group_tables = [t for t in _tables(page) if t and t[0] and t[0][0] == "g"]
    # the rates, the differences, the ABROCA tests and the styled report (at least)
    assert len(group_tables) >= 3
    for table in group_tables:
        # a group's row has a cell per column; the styled report's source notes (the
        # definitions, "Reference group: ...") do not, and its second header row (under the
        # "rates" spanner) starts with a metric's title
        cells = [row[0] for row in table[1:] if len(row) > 2 and row[0] != "Selection rate"]
        # every table lists all 19 groups, or all but the reference (the differences)
        assert len(cells) in (len(GROUPS), len(GROUPS) - 1), cells
        for reading in _readings(cells):
            assert len(reading) == len(cells), cells


def test_the_summary_table_keeps_missing_and_null_apart() -> None:
    # g: missing, the text "null", "x"; selection rates 1, 0, 1/2: the demographic parity
    # difference is between the missing group (1) and "null" (0)
    df = pl.DataFrame({"g": [None] * 10 + ["null"] * 10 + ["x"] * 10,
                       "y_true": [1, 0] * 15, "y_pred": [1] * 10 + [0] * 10 + [1, 0] * 5})
    tables = _tables(audit_html(df, "g", min_support=1))
    summary = next(t for t in tables if t and t[0][:1] == ["metric"] and "group 1" in t[0])
    head = summary[0]
    row = next(r for r in summary[1:] if r[0] == "demographic_parity_difference")
    assert {row[head.index("group 1")], row[head.index("group 2")]} == {"(missing)", "null"}


_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2}|u[0-9a-f]{4}|n|r|t)")
_NAMED = {"\\": "\\", "n": "\n", "r": "\r", "t": "\t"}


def _decode(text: str) -> str:
    """The documented rule read backwards (``\\\\``, ``\\xNN``, ``\\uNNNN``, ``\\n``, ``\\r``,
    ``\\t``; any other backslash is itself)."""
    def one(m: re.Match[str]) -> str:
        code = m.group(1)
        return _NAMED[code] if code in _NAMED else chr(int(code[1:], 16))
    return _ESCAPE.sub(one, text)


SPACES = st.sampled_from([" ", "\\", "x", "2", "0", "n", "a", "\n", "\t", "\r", "\u00a0",
                          "\u2009", "\u3000", "\x00"])


@settings(max_examples=500, deadline=None)
@given(st.text(SPACES, max_size=10))
def test_markup_text_reads_back_and_never_leaves_a_space_a_browser_merges(text: str) -> None:
    shown = markup_text(text)
    assert _decode(shown) == text
    # nothing a browser collapses or trims: no leading, trailing or doubled space, no other
    # whitespace
    assert not re.search(r"^ | $|  |[^\S ]", shown), shown


def test_markup_text_by_hand() -> None:
    assert markup_text("a  b") == "a \\x20b"  # the second space of the run
    assert markup_text(" a ") == "\\x20a\\x20"
    assert markup_text("a\nb") == "a\\nb" and markup_text("a\\nb") == "a\\\\nb"
    assert markup_text("a \\") == "a \\"  # a backslash no escape follows is itself
    assert markup_text("a\\ ") == "a\\\\\\x20"  # before an escaped space it is doubled
    assert markup_text("a\u00a0b") == "a\\xa0b"


def test_the_ll144_page_keeps_categories_apart(tmp_path: Path) -> None:
    from polars_fair.cli.ll144 import ll144_html, ll144_summary

    cats = [None, "(missing)", '"(missing)"', "(unknown)", "a b", "a  b", " a b", "a\nb",
            "a\tb", "a<b", "a&lt;b"]
    k = len(cats)
    path = tmp_path / "rows.parquet"
    pl.DataFrame({"sex": [cats[i % k] for i in range(40 * k)],
                  "y_pred": [(i // k) % 2 for i in range(40 * k)]}).write_parquet(path)
    page = ll144_html(ll144_summary(path, pl.scan_parquet(path), ["sex"], y_pred="y_pred",
                                    y_score=None))
    table = next(t for t in _tables(page) if t and t[0][:1] == ["category"])
    cells = [row[0] for row in table[1:]]
    assert len(cells) == k
    for reading in _readings(cells):
        assert len(reading) == k, cells
    # missing reads (missing), as on every way out (h-fix20c); the text "(missing)" is quoted
    assert "(missing)" in cells and '"(missing)"' in cells


def test_an_ll144_category_of_two_attributes_holding_the_separator_is_quoted(
        tmp_path: Path) -> None:
    from polars_fair.cli.ll144 import ll144_html, ll144_summary

    # ("x × y", "z") and ("x", "y × z") both joined to "x × y × z" before
    path = tmp_path / "rows.parquet"
    pl.DataFrame({"a": ["x × y", "x"] * 40, "b": ["z", "y × z"] * 40,
                  "y_pred": [1, 0, 0, 1] * 20}).write_parquet(path)
    page = ll144_html(ll144_summary(path, pl.scan_parquet(path), ["a", "b"], y_pred="y_pred",
                                    y_score=None))
    cells = {row[0] for t in _tables(page) if t and t[0][:1] == ["category"] for row in t[1:]}
    assert '"x × y" × z' in cells and 'x × "y × z"' in cells
