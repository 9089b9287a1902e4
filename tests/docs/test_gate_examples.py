"""A CI-gate example never hides the gate's exit code behind a pipe (review of issue 19, defect 16).

A shell pipe exits with its last command's code: ``polars-fair check ... | python ...`` exits 0
when the gate fails, unless ``set -o pipefail`` is on. Every shell block of the README and the
docs that pipes ``polars-fair check`` into another command sets it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"```(?:bash|sh|shell|console)\n(.*?)```", re.S)
_PIPE = re.compile(r"(?<!\|)\|(?!\|)")  # a pipe, not ||


def _gate_blocks() -> list[tuple[str, str]]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    out = []
    for page in pages:
        for block in _BLOCK.findall(page.read_text()):
            joined = block.replace("\\\n", " ")
            if any("polars-fair check" in line and _PIPE.search(line)
                   for line in joined.splitlines()):
                out.append((str(page.relative_to(ROOT)), block))
    return out


def test_the_gate_examples_are_found() -> None:
    pages = {page for page, _ in _gate_blocks()}
    assert {"README.md", "docs/cli.md"} <= pages


def test_every_piped_gate_example_keeps_the_exit_code() -> None:
    for page, block in _gate_blocks():
        assert "set -o pipefail" in block, (page, block)
