"""No raw NUL, control character, DEL or noncharacter on an HTML page (issue 19, item 3).

The HTML audit's verdict, headline, provenance and tables wrote group names holding NUL,
``\\x0b``, DEL and U+FFFE raw while the charts on the same page escaped them. The page is now
written once through :func:`polars_fair.audit.escape.page_safe`: each section spells such a
group as the charts do (``A\\x00nul``), and the JSON data block keeps the value itself
(``JSON.parse`` reads ``"A\\u0000nul"`` back as the raw value). Checked by parsing the page
(``html.parser``) and by the group's spelling in every section.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.audit.escape import page_safe
from polars_fair.audit.html import audit_html, page_data
from polars_fair.cli.entry import app
from polars_fair.core.labels import NOT_IN_MARKUP

#: Group names holding what a page must not carry, and how every section spells them.
#: The invisible format characters (a zero-width space, a bidirectional override that reverses
#: the text after it, a line separator, the byte-order mark) are spelled as the text table and
#: Markdown spell them (core.labels.visible), so "EZW" and "EZ\u200bW" never read alike (third
#: review of issue 19: they were raw on the page while the command line escaped them).
GROUPS = {"A\x00nul": r"A\x00nul", "B\x0bvt": r"B\x0bvt", "C\x7fdel": r"C\x7fdel",
          "D\ufffeff": r"D\ufffeff", "EZ\u200bW": r"EZ\u200bW", "F\u202eevil": r"F\u202eevil",
          "G\u2028ls": r"G\u2028ls", "H\ufeffbom": r"H\ufeffbom"}


def _rows() -> pl.DataFrame:
    # 40 rows per group; labels and predictions alternate so every rate is defined
    names = list(GROUPS)
    n = 40 * len(names)
    return pl.DataFrame({
        "g": [names[i % len(names)] for i in range(n)],
        "y_true": [(i // 4) % 2 for i in range(n)],
        "y_pred": [(i // 8 + i) % 2 for i in range(n)],
        "s": [((i * 37) % 100) / 100 for i in range(n)],
    })


class _Collect(HTMLParser):
    """Every text and attribute value of a page, by the ``<h2>`` section it is in."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.section, self.texts, self.in_script = "top", [], False
        self.by_section: dict[str, list[str]] = {}
        self._heading = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.in_script = tag == "script"
        self._heading = tag == "h2"
        for _, value in attrs:
            if value:
                self._add(value)

    def handle_endtag(self, tag: str) -> None:
        self.in_script = False if tag == "script" else self.in_script
        self._heading = False if tag == "h2" else self._heading

    def handle_data(self, data: str) -> None:
        if self._heading:
            self.section = data.split(":")[0].strip()
        if not self.in_script:
            self._add(data)

    def _add(self, text: str) -> None:
        self.texts.append(text)
        self.by_section.setdefault(self.section, []).append(text)


@pytest.fixture(scope="module")
def page() -> str:
    # exact numbers, as the command line passes them (cli.numbers)
    return audit_html(_rows(), "g", y_score="s", n_permutations=20, reference="A\x00nul",
                      four_fifths=Decimal("0.8"), ofi_threshold=Decimal("0.3000000000000000000001"))


def test_no_character_a_page_must_not_carry_is_raw(page: str) -> None:
    assert NOT_IN_MARKUP.search(page) is None
    parsed = _Collect()
    parsed.feed(page)
    assert not [t for t in parsed.texts if NOT_IN_MARKUP.search(t)]


def test_a_group_is_spelled_as_the_charts_spell_it_in_every_section(page: str) -> None:
    parsed = _Collect()
    parsed.feed(page)
    text = {s: " ".join(t) for s, t in parsed.by_section.items()}
    for section in ("Verdict", "Headline", "Provenance", "Report", "Charts"):
        assert section in text, sorted(text)
    # the reference group is named in the verdict, the headline, the provenance (the reference
    # asked for), the report table and the charts, always as A\x00nul
    for section in ("Verdict", "Headline", "Provenance", "Report", "Charts"):
        assert GROUPS["A\x00nul"] in text[section], section
    # every group is in the report table and in the charts, spelled the same
    for spelled in GROUPS.values():
        assert spelled in text["Report"] and spelled in text["Charts"]


def test_the_data_block_keeps_the_values_themselves(page: str) -> None:
    report = page_data(page)["report"]
    assert sorted(row["g"] for row in report) == sorted(GROUPS)  # raw values, JSON-escaped


def test_page_safe_escapes_outside_and_inside_script_blocks() -> None:
    # hand-written: NUL in a cell becomes \x00; DEL in a JSON string becomes \u007f, which
    # json.loads reads back as DEL; tags, tabs and line breaks are untouched
    page = '<td>a\x00\tb</td>\n<script type="application/json">{"g": "x\x7f"}</script>'
    safe = page_safe(page)
    assert safe == '<td>a\\x00\tb</td>\n<script type="application/json">{"g": "x\\u007f"}' \
        '</script>'
    block = re.search(r"<script[^>]*>(.*)</script>", safe)
    assert block is not None and json.loads(block.group(1)) == {"g": "x\x7f"}


def test_the_ll144_page_carries_no_raw_control_character(tmp_path: Path) -> None:
    path, out = tmp_path / "rows.csv", tmp_path / "audit.html"
    _rows().write_csv(path)
    result = CliRunner().invoke(app, ["bias-audit", str(path), "--category", "g", "--y-pred",
                                      "y_pred", "--format", "html", "--output", str(out)])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert NOT_IN_MARKUP.search(html) is None
    for spelled in GROUPS.values():
        assert spelled in html


def test_exact_numbers_stay_numbers_in_the_data_block(page: str) -> None:
    # Decimal("0.8") is the float 0.8; a decimal no float spells is kept as its text
    params = page_data(page)["provenance"]["parameters"]
    assert params["four_fifths"] == 0.8
    assert params["ofi_threshold"] == "0.3000000000000000000001"


def test_the_page_spells_an_invisible_character_as_the_command_line_does() -> None:
    # hand-written: the text table's spelling (visible) and the page's (page_safe) are the same
    from polars_fair.core.labels import visible

    for raw in ("EZ\u200bW", "F\u202eevil", "G\u2028ls", "H\ufeffbom"):
        assert page_safe(f"<td>{raw}</td>") == f"<td>{visible(raw)}</td>"
    assert page_safe("<td>EZW</td>") != page_safe("<td>EZ\u200bW</td>")
