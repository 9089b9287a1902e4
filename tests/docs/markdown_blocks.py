"""Run the code blocks of README.md and docs/**/*.md as sessions, and compare their outputs.

The conventions (also on the site's Development page):

- A fenced block whose language is ``python`` (``py``) or ``bash`` (``sh``, ``shell``,
  ``console``) runs. The blocks of one page run in order and share state: Python blocks share
  one namespace, shell blocks one working directory, so a page reads like a session.
- Each page runs in a fresh temporary directory next to a link ``../shared`` to the project's
  shared data, so ``../shared/data/...`` reads the real data (the page is then marked ``data``:
  it skips when the data is absent, unless ``POLARS_FAIR_REQUIRE_DATA=1``) and the files a page
  writes (``hiring.parquet``, ``audit.html``) go to the temporary directory.
- A ``text`` block right after a code block (only blank lines between) is that block's
  output, and the test compares it with what the block printed, after collapsing every run of
  whitespace into one space. In the expected output ``...`` stands for any text (as doctest's
  ELLIPSIS), for output that legitimately varies (timings, paths, versions).
- What a Python block prints is its standard output, then, as in a REPL, the ``repr`` of its
  last statement when that is an expression whose value is not None. Its warnings are printed as
  ``<Category>: <message>`` (those raised inside third-party packages are left out). Tables
  print with :data:`POLARS_CONFIG`.
- A shell block runs in ``bash -e -o pipefail`` with the virtual environment's ``bin``
  (``Path(sys.executable).parent``, which holds ``polars-fair``) first on ``PATH``; its output
  is standard output and standard error together. A non-zero exit fails the test (write
  ``cmd || echo "exit $?"`` to show a failure).
- In the fast loop (``slow=False``) a shell block that is one ``polars-fair`` command (lines
  joined by a backslash, optionally ending in ``|| echo "exit $?"``) runs in this interpreter,
  through :func:`polars_fair.cli.launch.main` as the console script does, saving a fresh
  interpreter a block. It stands only when it exits as the block allows, warns nothing and
  prints the block's output; else the block runs in bash, which decides. The page's slow test
  runs every shell block in bash.
- A block that raises, exits non-zero or prints something else than its output block fails the
  test, naming the page and the block's line.
- An HTML comment on the line right before a block marks it: ``<!-- docs: skip -->`` never runs
  it (the quick start's install commands), ``<!-- docs: slow -->`` runs it only in the slow test
  of the page (Spark, Chromium, long simulations; ``pytest -m "not slow"`` leaves it out). The
  page's fast test runs its other blocks, so no fast block may depend on a slow one.

``python -m tests.docs.markdown_blocks --update PAGE.md ...`` rewrites the output blocks that
differ with what the blocks print now (read the diff before committing it).
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"

#: How every page prints its tables (Getting started shows the same ``pl.Config``).
POLARS_CONFIG: dict[str, Any] = {
    "tbl_hide_dataframe_shape": True,
    "tbl_hide_column_data_types": True,
    "float_precision": 4,
    "tbl_rows": 30,
    "tbl_cols": -1,
    "tbl_width_chars": 400,
    "fmt_str_lengths": 80,
}

PYTHON = {"python", "py"}
SHELL = {"bash", "sh", "shell", "console"}
OUTPUT = {"text"}
MARKER = re.compile(r"^\s*<!--\s*docs:\s*(?P<marks>[a-z ,-]+?)\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)[^\n]*$")
KNOWN_MARKS = {"skip", "slow"}
_PUNCTUATION = "();<>|&"


class DocBlockError(AssertionError):
    """A block raised, exited non-zero, or printed something else than its output block."""


@dataclass
class Block:
    """One fenced block of a page: its language, code, line, marks and expected output."""

    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    marks: set[str] = field(default_factory=set)
    expected: str | None = None
    expected_line: int | None = None  # 1-based line of the output block's opening fence

    @property
    def runs(self) -> bool:
        return (self.lang in PYTHON or self.lang in SHELL) and "skip" not in self.marks

    @property
    def where(self) -> str:
        return f"{self.path.name}:{self.line}"

    @property
    def cli_argv(self) -> tuple[list[str], str | None] | None:
        """``(argv after polars-fair, echo)`` when the block is one ``polars-fair`` command
        with no other shell syntax, ``echo`` the text before ``$?`` of a trailing
        ``|| echo "exit code $?"`` (else ``None``); ``None`` for any other block."""
        line = self.code.replace("\\\n", " ").strip()
        if self.lang not in SHELL or "\n" in line or "`" in line:
            return None
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:
            return None
        echo = None
        if words[-3:-1] == ["||", "echo"] and words[-1].endswith("$?"):
            echo, words = words[-1][:-2], words[:-3]
        if (len(words) < 2 or words[0] != "polars-fair" or "$" in "".join([*words, echo or ""])
                or any(set(w) <= set(_PUNCTUATION) or set(w) & set("*?~[") for w in words)):
            return None
        return words[1:], echo


def parse(path: Path) -> list[Block]:
    """Every fenced block of ``path`` that runs, with its marks and its output block."""
    lines = path.read_text(encoding="utf-8").splitlines()
    raw: list[tuple[int, int, str, str, set[str]]] = []  # (start, end, lang, code, marks)
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence[0] * len(fence)):
            j += 1
        if j >= len(lines):
            raise DocBlockError(f"{path.name}:{i + 1}: a fenced block is not closed")
        code = "\n".join(line[indent:] for line in lines[i + 1:j])
        marks: set[str] = set()
        if i > 0 and (mm := MARKER.match(lines[i - 1])):
            marks = {w for w in re.split(r"[ ,]+", mm["marks"]) if w}
            unknown = marks - KNOWN_MARKS
            if unknown:
                raise DocBlockError(f"{path.name}:{i}: unknown docs mark(s) {sorted(unknown)}")
        raw.append((i, j, m["lang"].lower(), code, marks))
        i = j + 1
    blocks: list[Block] = []
    for k, (start, end, lang, code, marks) in enumerate(raw):
        if lang in PYTHON or lang in SHELL:
            block = Block(path, start + 1, lang, code, marks)
            if k + 1 < len(raw):
                nstart, _, nlang, ncode, _ = raw[k + 1]
                between = lines[end + 1:nstart]
                if nlang in OUTPUT and all(not s.strip() for s in between):
                    block.expected, block.expected_line = ncode, nstart + 1
            blocks.append(block)
    return blocks


def pages() -> list[Path]:
    """README.md and every page of docs/, in a stable order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def uses_data(blocks: list[Block]) -> bool:
    """Whether a page's blocks read the shared data (``../shared/data``)."""
    return any("../shared/data" in b.code for b in blocks if b.runs)


def normalise(text: str) -> str:
    """Every run of whitespace as one space, the ends stripped."""
    return " ".join(text.split())


def matches(expected: str, got: str) -> bool:
    """``got`` equals ``expected`` after :func:`normalise`; ``...`` in expected is any text."""
    want, have = normalise(expected), normalise(got)
    if "..." not in want:
        return want == have
    pattern = ".*?".join(re.escape(part) for part in want.split("..."))
    return re.fullmatch(pattern, have, re.DOTALL) is not None


@contextlib.contextmanager
def _chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


class Session:
    """The shared state of one page: a Python namespace and a working directory.

    ``in_process=True`` runs a shell block that is one ``polars-fair`` command in this
    interpreter when that gives the block's output (see the module's conventions).
    """

    def __init__(self, workdir: Path, *, in_process: bool = False,
                 own_config: bool = False) -> None:
        self.workdir = workdir
        self.namespace: dict[str, Any] = {"__name__": "__docs__"}
        self.in_process = in_process
        #: the page sets its own pl.Config (README.md): blocks run with Polars' defaults and
        #: what the page sets, not with POLARS_CONFIG
        self.own_config = own_config

    def run(self, block: Block) -> str:
        """Run one block; what it printed (raises :class:`DocBlockError` on failure)."""
        if block.lang in PYTHON:
            return self._python(block)
        if self.in_process and (got := self._cli(block)) is not None:
            return got
        return self._shell(block)

    def _cli(self, block: Block) -> str | None:
        """What the block printed when run in this interpreter, or ``None`` when bash must
        decide: not one command, an exit the block does not allow, a warning, or an output
        other than the block's."""
        parsed = block.cli_argv
        if parsed is None:
            return None
        from polars_fair.cli.launch import main

        argv, echo = parsed
        out = io.StringIO()
        saved = sys.argv, os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = saved[1] or "120"
        code: object = 0
        try:
            with (
                _chdir(self.workdir),
                warnings.catch_warnings(record=True) as caught,
                contextlib.redirect_stdout(out),
                contextlib.redirect_stderr(out),
            ):
                warnings.simplefilter("always")
                try:
                    main(argv)
                except SystemExit as done:
                    code = done.code or 0
        finally:
            sys.argv = saved[0]
            if saved[1] is None:
                del os.environ["COLUMNS"]
        if echo is not None and code != 0:
            out.write(f"{echo}{code}\n")
        got = out.getvalue()
        if caught or (code != 0 and echo is None) or not isinstance(code, int) or (
                block.expected is not None and not matches(block.expected, got)):
            return None
        return got

    def _python(self, block: Block) -> str:
        try:
            tree = ast.parse(block.code, filename=block.where)
        except SyntaxError as exc:
            raise DocBlockError(f"{block.where}: the block does not parse: {exc}") from exc
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        out = io.StringIO()
        with (
            _chdir(self.workdir),
            contextlib.nullcontext() if self.own_config else pl.Config(**POLARS_CONFIG),
            warnings.catch_warnings(record=True) as caught,
            contextlib.redirect_stdout(out),
        ):
            warnings.simplefilter("always")
            try:
                exec(compile(tree, block.where, "exec"), self.namespace)  # noqa: S102
                if last is not None:
                    value = eval(compile(last, block.where, "eval"), self.namespace)  # noqa: S307
                    if value is not None:
                        print(repr(value))
            except Exception as exc:  # noqa: BLE001  (any error of a block fails the page)
                raise DocBlockError(
                    f"{block.where}: the block raised {type(exc).__name__}: {exc}") from exc
        for w in caught:
            if "site-packages" in str(w.filename) and "polars_fair" not in str(w.filename):
                continue  # a third-party package's own warnings are not the page's output
            out.write(f"{w.category.__name__}: {w.message}\n")
        return out.getvalue()

    def _shell(self, block: Block) -> str:
        env = dict(os.environ)
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        env.setdefault("COLUMNS", "120")
        proc = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=self.workdir, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False,
        )
        if proc.returncode != 0:
            raise DocBlockError(
                f"{block.where}: the shell block exited {proc.returncode}:\n{proc.stdout}")
        return proc.stdout


def run_page(path: Path, workdir: Path, *, slow: bool) -> list[tuple[Block, str]]:
    """Run the page's blocks in order in ``workdir``; each block with what it printed.

    ``slow=False`` leaves out the blocks marked ``slow`` and runs a ``polars-fair`` command in
    this interpreter where it can (:meth:`Session._cli`); ``slow=True`` runs every block, each
    shell block in bash. Raises :class:`DocBlockError` at the
    first block that fails or prints something else than its output block.
    """
    shared = workdir.parent / "shared"
    if not shared.exists() and SHARED.exists():
        shared.symlink_to(SHARED, target_is_directory=True)
    # README.md is read alone, so its outputs follow from its own pl.Config on Polars' defaults
    own = path.name == "README.md"
    session = Session(workdir, in_process=not slow, own_config=own)
    done: list[tuple[Block, str]] = []
    with pl.Config(restore_defaults=True) if own else contextlib.nullcontext():
        for block in parse(path):
            if not block.runs or ("slow" in block.marks and not slow):
                continue
            got = session.run(block)
            if block.expected is not None and not matches(block.expected, got):
                raise DocBlockError(
                    f"{block.where}: the output differs from the block at line "
                    f"{block.expected_line}.\n--- expected\n{block.expected}\n--- got\n{got}")
            done.append((block, got))
    return done


def update(path: Path, workdir: Path) -> int:
    """Rewrite the output blocks of ``path`` that differ; the number rewritten."""
    lines = path.read_text(encoding="utf-8").splitlines()
    session = Session(workdir)
    shared = workdir.parent / "shared"
    if not shared.exists() and SHARED.exists():
        shared.symlink_to(SHARED, target_is_directory=True)
    edits: list[tuple[int, str]] = []
    for block in parse(path):
        if not block.runs:
            continue
        got = session.run(block)
        if block.expected is not None and not matches(block.expected, got):
            assert block.expected_line is not None
            edits.append((block.expected_line, got.rstrip("\n")))
    for line, text in reversed(edits):  # the fence is at line - 1; its code follows
        start = line
        end = start
        while not lines[end].strip().startswith("```"):
            end += 1
        lines[start:end] = text.split("\n")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(edits)


if __name__ == "__main__":
    import tempfile

    args = sys.argv[1:]
    if not args or args[0] != "--update":
        sys.exit("usage: python -m tests.docs.markdown_blocks --update PAGE.md ...")
    for name in args[1:]:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp) / "work"
            work.mkdir()
            n = update(Path(name).resolve(), work)
            print(f"{name}: {n} output block(s) rewritten")
