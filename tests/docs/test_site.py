"""The documentation site: its generated pages follow the code, and it builds with --strict.

The generated pages come from ``docs/hooks/generated.py`` (the MkDocs hook): the command-line
reference from the Typer application, the metrics tables from the registry. The build itself
(slow: about 40 s) renders the API reference with dynamic inspection, so the docstrings composed
at import time must appear in the HTML.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import typer

from polars_fair.cli.entry import app
from polars_fair.core.registry import METRICS, PAIR_METRICS
from tests.docs.markdown_blocks import ROOT


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generated", ROOT / "docs/hooks/generated.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_metrics_page_has_one_row_per_registry_entry() -> None:
    text = _hook().metrics_reference()
    names = re.findall(r"^\| `([a-z_]+)`", text, re.M)
    assert names == [*METRICS, *PAIR_METRICS]
    # the denominators are the registry's own formulas, called on the counts' names
    tpr = next(line for line in text.splitlines() if line.startswith("| `tpr`"))
    assert "| TP | TP+FN |" in tpr
    ba = next(line for line in text.splitlines() if line.startswith("| `balanced_accuracy`"))
    assert "| — | — |" in ba
    mb = next(line for line in text.splitlines() if line.startswith("| `marginal_benefit`"))
    assert "| FP−FN | n | [−1, 1] |" in mb


def test_the_cli_reference_lists_every_command_and_option() -> None:
    text = _hook().cli_reference()
    group = typer.main.get_command(app)
    commands = group.commands  # type: ignore[attr-defined]
    headings = re.findall(r"^### polars-fair (\S+)$", text, re.M)
    assert headings == list(commands)
    for name, cmd in commands.items():
        section = text.split(f"### polars-fair {name}\n", 1)[1].split("\n### ", 1)[0]
        for param in cmd.params:
            for opt in param.opts:
                if opt.startswith("--") and not getattr(param, "hidden", False):
                    assert f"`{opt}" in section, (name, opt)


def test_the_hook_replaces_its_markers() -> None:
    hook = _hook()
    out = hook.on_page_markdown("a\n<!-- generated: metrics -->\nb", page=None)
    assert "<!-- generated" not in out and "| `selection_rate` |" in out


@pytest.mark.slow
def test_the_site_builds_strictly_and_shows_composed_docstrings(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).parent / "mkdocs"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    api = (tmp_path / "api" / "objects" / "index.html").read_text(encoding="utf-8")
    # FairLazyFrame.report's docstring is composed at import time from report_from_counts'
    # (polars_fair._docs); static analysis of the source would find none
    anchor = api.index('id="polars_fair.api.namespace.FairLazyFrame.report"')
    assert "The per-group fairness report" in api[anchor:anchor + 20_000]
    for page in ("metrics", "cli"):
        html = (tmp_path / page / "index.html").read_text(encoding="utf-8")
        assert "generated:" not in html
    assert (tmp_path / "power.png").exists()  # the charts are copied beside the pages
