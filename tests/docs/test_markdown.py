"""Every Python and shell block of README.md and docs/ runs, and prints its output block.

The conventions are in :mod:`tests.docs.markdown_blocks` and on the site's Development page.
Each page is one test (its blocks share state, in order); a page with blocks marked ``slow``,
or with a ``polars-fair`` command that the fast test runs in-process, has a second, slow test
that runs every block, each shell block in bash.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA, require
from tests.docs.markdown_blocks import (
    ROOT,
    Block,
    DocBlockError,
    Session,
    matches,
    pages,
    parse,
    run_page,
    uses_data,
)


def _params() -> list[object]:
    params: list[object] = []
    for path in pages():
        blocks = [b for b in parse(path) if b.runs]
        if not blocks:
            continue
        name = str(path.relative_to(ROOT))
        data = [pytest.mark.data] if uses_data(blocks) else []
        params.append(pytest.param(path, False, id=name, marks=data))
        # the slow test runs the slow blocks, and each shell block in bash where the fast one
        # ran its polars-fair command in-process
        if any("slow" in b.marks or b.cli_argv is not None for b in blocks):
            params.append(pytest.param(path, True, id=f"{name}::slow",
                                       marks=[*data, pytest.mark.slow]))
    return params


@pytest.mark.parametrize(("path", "slow"), _params())
def test_page_runs_and_prints_its_outputs(path: Path, slow: bool, tmp_path: Path) -> None:
    blocks = parse(path)
    if uses_data(blocks):
        require(SHARED_DATA)  # skips, or fails under POLARS_FAIR_REQUIRE_DATA=1
    work = tmp_path / "work"
    work.mkdir()
    ran = run_page(path, work, slow=slow)
    assert ran, f"{path.name}: no block ran"


def test_every_page_with_code_is_collected() -> None:
    collected = {p.name for p in pages()}
    assert "README.md" in collected
    assert len([p for p in pages() if p.parent.name in ("docs", "guide")]) >= 10


# ---------------------------------------------------------------- the runner itself can fail


def _page(tmp_path: Path, text: str) -> tuple[Path, Path]:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    return page, work


def test_a_block_that_raises_fails_the_page(tmp_path: Path) -> None:
    page, work = _page(tmp_path, "# Broken\n\n```python\nx = 1\n```\n\n"
                                 "```python\n1 / 0\n```\n")
    with pytest.raises(DocBlockError, match=r"page\.md:7: the block raised ZeroDivisionError"):
        run_page(page, work, slow=False)


def test_a_shell_block_that_exits_non_zero_fails_the_page(tmp_path: Path) -> None:
    page, work = _page(tmp_path, "```bash\npolars-fair report --no-such-flag\n```\n")
    with pytest.raises(DocBlockError, match=r"page\.md:1: the shell block exited 2"):
        run_page(page, work, slow=False)


@pytest.mark.parametrize(("code", "argv"), [
    ("polars-fair demo --n 500", (["demo", "--n", "500"], None)),
    ("polars-fair report a.csv \\\n  --y-pred \"s <> 'Low'\"  # why",
     (["report", "a.csv", "--y-pred", "s <> 'Low'"], None)),
    ('polars-fair check a.csv || echo "exit code $?"', (["check", "a.csv"], "exit code ")),
    ('polars-fair check a.csv || echo "exit $?"', (["check", "a.csv"], "exit ")),
    ('polars-fair check a.csv || echo "$HOME $?"', None),
    ("polars-fair check a.csv | head -3", None),
    ("polars-fair demo > out.txt", None),
    ("polars-fair demo && ls", None),
    ("set -o pipefail\npolars-fair demo", None),
    ("polars-fair report $FILE", None),
    ("polars-fair report *.csv", None),
    ("python -c 'print(1)'", None),
])
def test_only_one_plain_polars_fair_command_may_run_in_process(
        code: str, argv: tuple[list[str], str | None] | None) -> None:
    assert Block(Path("page.md"), 1, "bash", code).cli_argv == argv


def test_a_polars_fair_command_runs_in_process_in_the_fast_loop_and_in_bash_in_the_slow(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page, work = _page(tmp_path, "```bash\npolars-fair demo --n 500 --format csv\n```\n\n"
                                 "```text\nrace,sex,n,tp,fp,fn,tn,...\n```\n")
    shells: list[str] = []
    monkeypatch.setattr(Session, "_shell", lambda self, block: shells.append(block.code) or "")
    [(_, got)] = run_page(page, work, slow=False)
    assert got.startswith("race,sex,n,tp,fp,fn,tn,") and shells == []
    with pytest.raises(DocBlockError, match="the output differs"):  # bash's "" is not the output
        run_page(page, work, slow=True)
    assert shells == ["polars-fair demo --n 500 --format csv"]


def test_bash_decides_when_the_in_process_run_prints_something_else(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page, work = _page(tmp_path, "```bash\npolars-fair demo --n 500 --format csv\n```\n\n"
                                 "```text\nfrom bash\n```\n")
    monkeypatch.setattr(Session, "_shell", lambda self, block: "from bash\n")
    assert [got for _, got in run_page(page, work, slow=False)] == ["from bash\n"]


def test_an_output_that_differs_fails_the_page(tmp_path: Path) -> None:
    page, work = _page(tmp_path, "```python\n1 + 1\n```\n\n```text\n3\n```\n")
    with pytest.raises(DocBlockError, match=r"page\.md:1: the output differs"):
        run_page(page, work, slow=False)


def test_blocks_share_a_session_and_outputs_compare_modulo_whitespace(tmp_path: Path) -> None:
    page, work = _page(tmp_path, (
        "```python\nimport polars as pl\ndf = pl.DataFrame({'a': [1, 2]})\n```\n\n"
        "Prose between blocks.\n\n"
        "```python\nprint('x   y')\ndf.height\n```\n```text\nx y\n  2\n```\n\n"
        "```bash\necho hello > f.txt && cat f.txt\n```\n\n```text\nhello\n```\n"
    ))
    ran = run_page(page, work, slow=False)
    assert [got for _, got in ran] == ["", "x   y\n2\n", "hello\n"]


def test_skip_and_slow_marks(tmp_path: Path) -> None:
    page, work = _page(tmp_path, (
        "<!-- docs: skip -->\n```bash\nexit 1\n```\n\n"
        "<!-- docs: slow -->\n```python\nprint('slow')\n```\n"
        "```text\nslow\n```\n\n```python\nprint('fast')\n```\n"
    ))
    assert [got for _, got in run_page(page, work, slow=False)] == ["fast\n"]
    assert [got for _, got in run_page(page, work, slow=True)] == ["slow\n", "fast\n"]


def test_an_unknown_mark_is_refused(tmp_path: Path) -> None:
    page, _ = _page(tmp_path, "<!-- docs: skipp -->\n```python\npass\n```\n")
    with pytest.raises(DocBlockError, match="unknown docs mark"):
        parse(page)


def test_ellipsis_matches_any_text() -> None:
    assert matches("took ... s", "took 1.25 s")
    assert matches("a ... d", "a b\nc d")
    assert not matches("took ... s", "took 1.25 ms!")
    assert not matches("exact", "exactly")
