"""Why a CSV file cannot be read, said without its content (issue 19, third review).

Polars reports a malformed CSV with the raw text of the rows around the fault (an unterminated
quote prints everything after it) and advice of its own (``infer_schema_length``,
``ignore_errors``) that the command line does not offer. :func:`check_text_file` refuses an
empty or binary file before it is parsed; :func:`csv_failure` turns a parse failure into
:class:`~polars_fair.errors.InvalidInputError` that names the fault and its line and says how
to fix the file, and shows no row content (a row can hold personal data).
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow

__all__ = ["blank_lines", "check_dtype_reads", "check_text_file", "csv_failure", "dtype_failures",
           "extra_field_fault",
           "note_dtype_reads", "quote_fault", "short_field_fault", "short_row", "unreadable",
           "utf8_fault", "without_content"]

#: The bytes read to tell a binary file from text.
_SNIFF = 8192
#: The CSV quote character Polars reads (the command line does not change it).
_QUOTE = '"'
#: Per ``--dtype`` column of the file the command read, a frame whose one Boolean column is
#: true on each row whose value the type cannot hold (:func:`note_dtype_reads`).
_DTYPE_READS: dict[str, pl.LazyFrame] = {}
#: The column Polars names in a failed conversion (a CSV parse or a strict cast).
_FAILED_COLUMN = re.compile(r"(?:at|in) column '(?P<column>[^']*)'")


def note_dtype_reads(reads: dict[str, pl.LazyFrame]) -> None:
    """Remember how to count the rows each ``--dtype`` column cannot hold (:func:`scan`).

    Parameters
    ----------
    reads : dict of str to pl.LazyFrame
        Per column, a lazy frame of one Boolean column: true where the row's value is present
        and its type cannot hold it. Nothing is read until a conversion fails.

    Examples
    --------
    >>> note_dtype_reads({"age": pl.LazyFrame({"failed": [False, True]})})
    >>> dtype_failures("could not parse `x` as dtype `i64` at column 'age' (column number 1)")
    (1, 2)
    >>> note_dtype_reads({})
    """
    _DTYPE_READS.clear()
    _DTYPE_READS.update(reads)


def dtype_failures(message: str) -> tuple[int, int] | None:
    """The rows whose value a ``--dtype`` column cannot hold, counted over the whole file.

    Polars stops at the first value it cannot parse (a CSV) or counts one chunk (a cast), so
    its own count is not the file's.

    Parameters
    ----------
    message : str
        Polars' error.

    Returns
    -------
    (int, int) or None
        (failing rows, rows), or ``None`` when the column Polars names has no ``--dtype`` or
        the rows cannot be counted.

    Examples
    --------
    >>> dtype_failures("could not parse `x` as dtype `i64` at column 'zip'") is None  # no --dtype
    True
    """
    found = _FAILED_COLUMN.search(message)
    read = _DTYPE_READS.get(found["column"]) if found is not None else None
    if read is None:
        return None
    try:
        out = read.select(pl.first().sum().alias("f"), pl.len().alias("n")).collect(
            engine="streaming")
    except pl.exceptions.PolarsError:  # the count is a courtesy: Polars' own words remain
        return None
    failed, rows = int(out["f"][0] or 0), int(out["n"][0])
    return (failed, rows) if failed else None


def check_dtype_reads(dtypes: dict[str, pl.DataType], source: pl.Schema) -> None:
    """Refuse a ``--dtype`` column holding values its type cannot hold, counted over the file.

    One policy for every format: a ``--dtype`` names a column the user wants read as that
    type, so it is checked when the file is scanned, whether or not the command uses it, and
    the error names ``--dtype`` with the file's counts (not one chunk's, nor the option, such
    as ``--where``, whose query first read the column). Reads the frames of
    :func:`note_dtype_reads` in one streaming pass.

    Parameters
    ----------
    dtypes : dict of str to pl.DataType
        The ``--dtype`` columns and types.
    source : pl.Schema
        The file's types before ``--dtype`` (text for a CSV).

    Raises
    ------
    InvalidInputError
        :data:`polars_fair.errors.CONVERSION_FAILED` for the first such column, with
        :data:`polars_fair.errors.DTYPE_HINT`; no value is shown.

    Examples
    --------
    >>> note_dtype_reads({"age": pl.LazyFrame({"failed": [False, True]})})
    >>> check_dtype_reads({"age": pl.Int64()}, pl.Schema({"age": pl.String()}))
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidInputError: --dtype: 1 of 2 values of column 'age' could not be ...
    >>> note_dtype_reads({})
    """
    reads = {c: _DTYPE_READS[c] for c in dtypes if c in _DTYPE_READS}
    if not reads:
        return
    out = pl.concat([lf.select(pl.first().alias(c)) for c, lf in reads.items()],
                    how="horizontal").select(pl.all().sum(), pl.len().alias("__pf_n")) \
        .collect(engine="streaming")
    rows = int(out["__pf_n"][0])
    for c in reads:
        if failed := int(out[c][0] or 0):
            kind = source[c]
            raise E.InvalidInputError(E.CONVERSION_FAILED.format(
                role="--dtype", count=f"{failed:,} of {rows:,} values", column=c,
                source="text" if kind == pl.String else kind, target=dtypes[c])
                + E.DTYPE_HINT)


def check_text_file(path: Path) -> None:
    """Refuse an empty file and a binary one before Polars parses it.

    Parameters
    ----------
    path : pathlib.Path
        The CSV file.

    Raises
    ------
    EmptyFrameError
        An empty file (no header, no rows): :data:`polars_fair.errors.CSV_EMPTY`.
    InvalidInputError
        A file whose header line holds a NUL byte, or whose first 8 KiB hold one and are not
        UTF-8 (an executable, a spreadsheet, a compressed file; a NUL inside a value of a text
        CSV is read as it is): :data:`polars_fair.errors.CSV_BINARY`.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "x.csv"
    ...     _ = p.write_bytes(b"")
    ...     check_text_file(p)
    Traceback (most recent call last):
    ...
    polars_fair.errors.EmptyFrameError: x.csv is empty: no header and no rows, nothing to audit
    """
    with path.open("rb") as f:
        head = f.read(_SNIFF)
    if not head:
        raise E.EmptyFrameError(E.CSV_EMPTY.format(path=path.name))
    if b"\x00" in head.split(b"\n", 1)[0] or (b"\x00" in head and not _utf8(head)):
        raise E.InvalidInputError(E.CSV_BINARY.format(path=path.name))


def _utf8(head: bytes) -> bool:
    """Whether ``head`` is UTF-8 text (a character cut at its end aside)."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 3
    return True


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with path.open("rb") as f:
        yield from enumerate(f, start=1)


def utf8_fault(path: Path) -> int | None:
    r"""The first line of ``path`` that is not UTF-8, or None.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    int or None
        The 1-based line whose bytes do not decode as UTF-8.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "x.csv"
    ...     _ = p.write_bytes("g\nb\u00e9\n".encode("latin-1"))
    ...     utf8_fault(p)
    2
    """
    for number, line in _lines(path):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            return number
    return None


def quote_fault(path: Path, separator: str) -> int | None:
    r"""The line where the first badly quoted field of a CSV starts, or None.

    A field is quoted when it starts with ``"``; it ends at a lone ``"`` followed by the
    separator or the end of a line (``""`` inside it is one quote). A field that is never
    closed, a closing quote followed by other text, or a ``"`` inside an unquoted field is a
    fault (Polars refuses each).

    Parameters
    ----------
    path : pathlib.Path
        The CSV file.
    separator : str
        The field separator.

    Returns
    -------
    int or None
        The 1-based line of the file where the faulty field starts.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "x.csv"
    ...     _ = p.write_text('g,y\na,1\n"b c,0\nd,1\n')
    ...     quote_fault(p, ",")
    3
    """
    inside, start = False, 0
    for number, raw in _lines(path):
        line = raw.decode("latin-1").rstrip("\r\n")  # quote and separator are ASCII
        pos = 0
        while True:
            q = line.find(_QUOTE, pos)
            if q < 0:
                break
            if not inside:
                if q > 0 and line[q - 1] != separator:
                    return number  # a quote inside an unquoted field
                inside, start, pos = True, number, q + 1
            elif line.startswith(_QUOTE, q + 1):
                pos = q + 2  # "" inside a quoted field
            else:
                after = line[q + 1:q + 2]
                if after not in ("", separator):
                    return start  # the closing quote is followed by other text
                inside, pos = False, q + 1
    return start if inside else None


def csv_failure(exc: pl.exceptions.PolarsError, path: Path, separator: str,
                ) -> E.InvalidInputError:
    r"""The typed error of a CSV Polars could not parse: the fault, its line, the fix.

    Parameters
    ----------
    exc : pl.exceptions.PolarsError
        What Polars raised while reading every column as text.
    path : pathlib.Path
        The file.
    separator : str
        The field separator (``--separator``).

    Returns
    -------
    InvalidInputError
        :data:`polars_fair.errors.CSV_BAD_QUOTE` (a quoted field not closed properly) or
        :data:`polars_fair.errors.CSV_NOT_UTF8` with the line, a row with more fields than the
        header as :data:`polars_fair.errors.CSV_EXTRA_FIELDS` (the line and the counts), else
        :func:`unreadable`. No message shows a row's content.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "x.csv"
    ...     _ = p.write_text('g,y\nab"c,1\n')  # a quote inside an unquoted field
    ...     print(csv_failure(pl.exceptions.ComputeError("CSV malformed"), p, ","))
    ... # doctest: +ELLIPSIS
    x.csv: the quoted field that starts at line 2 is not closed properly...
    """
    if (line := quote_fault(path, separator)) is not None:
        return E.InvalidInputError(E.CSV_BAD_QUOTE.format(path=path.name, line=line))
    if (line := utf8_fault(path)) is not None:
        return E.InvalidInputError(E.CSV_NOT_UTF8.format(
            path=path.name, line=line, quoted=shlex.quote(str(path)),
            converted=shlex.quote(str(path.with_name("utf8-" + path.name)))))
    if (fault := extra_field_fault(path, separator)) is not None:
        line, found, expected = fault
        return E.InvalidInputError(E.CSV_EXTRA_FIELDS.format(
            path=path.name, line=line, found=found, expected=expected))
    return unreadable(exc)  # any other fault: Polars' first line, no row content


def extra_field_fault(path: Path, separator: str) -> tuple[int, int, int] | None:
    r"""The first row with more fields than the header: its line and both counts.

    Read as CSV (quoted fields may hold the separator and span lines; the row's first line is
    the one named). Only counts are kept, never a value.

    Parameters
    ----------
    path : pathlib.Path
        The UTF-8 CSV file.
    separator : str
        The field separator.

    Returns
    -------
    tuple of (int, int, int) or None
        (line number, counting the header as line 1; the row's fields; the header's fields),
        or ``None`` when no row has more fields than the header (fewer, for
        :func:`short_field_fault`).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = p.write_text('g,y\na,1\n"b,c",1\nd,1,Jane Madeup\n')
    >>> extra_field_fault(p, ",")  # line 4 has 3 fields, the header 2
    (4, 3, 2)
    """
    return _field_fault(path, separator, lambda found, expected: found > expected)


@borrow(extra_field_fault, params=("path", "separator"), sections=("Returns",))
def short_field_fault(path: Path, separator: str) -> tuple[int, int, int] | None:
    r"""The first row with fewer fields than the header: its line and both counts.

    Polars reads a row cut short with its missing fields empty (null), so ``1,0`` under the
    header ``y_true,y_pred,g`` became a row of the missing group. Read as CSV, as
    :func:`extra_field_fault` reads it; a blank line (nothing, or only spaces, before its line
    break: a trailing empty line too) is no row. Returns as :func:`extra_field_fault`, the
    first row with fewer fields.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = p.write_text('y_true,y_pred,g\n1,0,a\n"1\n",0,b\n1,0\n\n')
    >>> short_field_fault(p, ",")  # line 5 has 2 fields, the header 3 (line 3-4 is one row)
    (5, 2, 3)
    """
    return _field_fault(path, separator, lambda found, expected: found < expected)


def _field_fault(path: Path, separator: str, fault: Callable[[int, int], bool],
                 ) -> tuple[int, int, int] | None:
    """The first row (not a blank line) whose number of fields ``fault`` refuses."""
    records = _records(path, separator)
    header = next(records, None)
    if header is None:
        return None
    for line, count, blank in records:
        if not blank and fault(count, header[1]):
            return line, count, header[1]
    return None


@contextmanager
def _no_field_limit() -> Iterator[None]:
    """Python's :mod:`csv` without its field size limit (131,072 characters), for one read.

    Polars reads a field of any length; a long one (a free-text column) made the csv module
    raise ``field larger than field limit``. The limit is the largest a C long holds, and is
    restored afterwards.
    """
    import csv

    before = csv.field_size_limit()
    limit = sys.maxsize
    while True:
        try:
            csv.field_size_limit(limit)
            break
        except OverflowError:  # a C long narrower than sys.maxsize (Windows)
            limit //= 2
    try:
        yield
    finally:
        csv.field_size_limit(before)


def _records(path: Path, separator: str) -> Iterator[tuple[int, int, bool]]:
    r"""Each row of a CSV file as Polars reads it: its first line, its fields, whether blank.

    Lines end at ``\n`` only (a lone ``\r`` is part of a field, as Polars reads it; ``\r\n``
    ends a line). A blank line is nothing, or only spaces, before its line break; a line
    holding ``""`` is a row of one empty quoted field, not a blank line (as pandas reads it).
    Only counts are kept, never a value.
    """
    import csv

    raw: list[str] = []

    def lines() -> Iterator[str]:
        with path.open("rb") as f:
            for data in f:  # binary lines end at b"\n" only
                text = data.decode("utf-8", errors="replace")
                body, end = (text[:-2], "\r\n") if text.endswith("\r\n") else (text, "")
                line = body.replace("\r", " ") + end  # a lone \r: one character of a field
                raw.append(line)
                yield line

    with _no_field_limit():
        rows = csv.reader(lines(), delimiter=separator)
        start = 1
        for row in rows:
            blank = len(row) <= 1 and not "".join(raw).strip()
            raw.clear()
            yield start, len(row), blank
            start = rows.line_num + 1


def blank_lines(path: Path, separator: str) -> tuple[list[int], int]:
    r"""The blank lines of a CSV after its header: where Polars reads them, and how many end it.

    A blank line (nothing, or only spaces, before its line break) is no row, as pandas and
    Python's :mod:`csv` read it; Polars reads it as a row whose every field is missing.

    Parameters
    ----------
    path : pathlib.Path
        The CSV file (read as CSV: a quoted field may span lines).
    separator : str
        The field separator.

    Returns
    -------
    (list of int, int)
        The position of each blank line among the rows Polars reads (0 for the first after
        the header), and how many of them come after the last row.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = p.write_text('g,y\na,1\n\n  \nb,0\n\n')
    >>> blank_lines(p, ",")  # rows 1 and 2 before b's row, row 4 at the end
    ([1, 2, 4], 1)
    """
    found: list[int] = []
    pending = 0
    records = _records(path, separator)
    next(records, None)  # the header
    for i, (_, _, blank) in enumerate(records):
        if blank:
            found.append(i)
            pending += 1
        else:
            pending = 0
    return found, pending


def short_row(path: Path, separator: str) -> E.InvalidInputError | None:
    r"""The typed error of a CSV row with fewer fields than the header, or None.

    Parameters
    ----------
    path : pathlib.Path
        The CSV file (read once more, as CSV: a quoted field may span lines).
    separator : str
        The field separator.

    Returns
    -------
    InvalidInputError or None
        :data:`polars_fair.errors.CSV_SHORT_FIELDS` (the file, the line, the counts; no
        value).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = p.write_text("y_true,y_pred,g\n1,0,a\n1,0\n")
    >>> print(short_row(p, ","))  # doctest: +ELLIPSIS
    x.csv: the row at line 3 has 2 field(s), fewer than the 3 of the header (the values ...
    """
    fault = short_field_fault(path, separator)
    if fault is None:
        return None
    line, found, expected = fault
    shown = "\\t" if separator == "\t" else separator  # a tab as --separator spells it
    return E.InvalidInputError(E.CSV_SHORT_FIELDS.format(
        path=path.name, line=line, found=found, expected=expected,
        empty=f"a{shown}{shown}b"))


_BACKTICKED = re.compile(r"`([^`]*)(`|$)", re.DOTALL)
#: The longest value a message shows (:func:`polars_fair.errors.show_values`).
_WIDTH = 40


def without_content(message: str) -> str:
    r"""Polars' first line, each value it quotes in backticks cut as every shown value is.

    Parameters
    ----------
    message : str
        A Polars error message (it may quote the raw text of a row across several lines).

    Returns
    -------
    str
        The first line; a backticked value is escaped (a line break as ``\n``) and cut to 40
        characters, as :func:`polars_fair.errors.show_values` cuts a value, so no more of a row
        is shown.

    Examples
    --------
    >>> without_content("could not parse `" + "x" * 50 + "\nmore` as dtype `i64` at column 'a'")
    "could not parse `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...` as dtype `i64` at column 'a'"
    """
    def shown(m: re.Match[str]) -> str:  # escaped (a line break too), cut to 40 characters
        text = repr(m.group(1))[1:-1]
        return "`" + (text if len(text) <= _WIDTH else text[:_WIDTH - 3] + "...") + "`"

    cut = _BACKTICKED.sub(shown, message.strip())
    lines = cut.splitlines()
    return " ".join(lines[0].split()) if lines else message


def unreadable(exc: pl.exceptions.PolarsError) -> E.InvalidInputError:
    """The typed error of a Polars error that reached a command: the input could not be read.

    Every error of polars_fair's own checks is typed before it reaches a command, so a Polars
    error there comes from the rows themselves: a CSV row with more fields than its header, a
    value its column's type cannot hold. It becomes :class:`~polars_fair.errors.
    InvalidInputError` with Polars' first line and a hint, so the JSON error names our type.

    Parameters
    ----------
    exc : pl.exceptions.PolarsError
        The error Polars raised while the command read or computed its rows.

    Returns
    -------
    InvalidInputError
        Its message: a value that its column's type cannot hold as
        :data:`polars_fair.errors.CONVERSION_FAILED` (counts and dtypes, no value) with
        :data:`polars_fair.errors.DTYPE_HINT`; otherwise Polars' first line, then a hint for
        an extra field (:data:`polars_fair.errors.EXTRA_FIELDS_HINT`) or a value of the wrong
        type (:data:`polars_fair.errors.DTYPE_HINT`).

    Examples
    --------
    >>> err = unreadable(pl.exceptions.ComputeError("found more fields than defined in 'Schema'"))
    >>> type(err).__name__, str(err).split(" (")[0]
    ('InvalidInputError', "found more fields than defined in 'Schema'")
    """
    hidden = E.conversion_failure(str(exc), "reading the rows", dtype_failures(str(exc)))
    # no value: names, birth dates
    if hidden is not None:
        return E.InvalidInputError(hidden + E.DTYPE_HINT)
    text = without_content(str(exc)) or type(exc).__name__  # a value cut as every one shown
    hint = ""
    if "more fields than defined" in text:
        hint = E.EXTRA_FIELDS_HINT
    elif "could not parse" in text or "conversion from" in text:
        hint = E.DTYPE_HINT
    return E.InvalidInputError(text + hint)
