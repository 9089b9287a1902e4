"""The command line's text in and out: arguments parsed against the data, results written.

:func:`scan` reads a CSV, Parquet or NDJSON file lazily (CSV types inferred from every row,
``--separator``, ``--dtype COL=TYPE``); :func:`resolve_inputs` turns the text of ``--by``,
``--y-true``, ``--y-pred``, ``--y-score``, ``--pos-label``, ``--reference`` and ``--where`` into
columns, Polars expressions and values of the right dtype (:class:`Inputs`), checked against the
file's schema, and every SQL text through :func:`polars_fair.core.sql.sql_expr` (nothing but the
rows is read); :func:`check_outputs` refuses an output that would overwrite an input or another
output before anything runs; :func:`emit` writes a result as a table, CSV, JSON or Parquet;
:func:`cli_message` turns the library's parameter names in a message into the flags. The
commands of :mod:`polars_fair.cli.entry` are built on these; nothing here computes an audit.

Why one module: every argument of the command line is turned into a checked
column, expression or value here, in one place, so that each flag is parsed, validated and
named in messages the same way by every command; splitting it would spread one contract over
several files. About half of the lines are docstrings and their examples.
"""

from __future__ import annotations

import ast
import datetime as dt
import decimal
import os
import re
import shlex
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import polars as pl
import typer

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.cli.csv_read import (
    blank_lines,
    check_dtype_reads,
    check_text_file,
    csv_failure,
    note_dtype_reads,
    short_row,
    unreadable,
)
from polars_fair.cli.group import json_requested, usage_message
from polars_fair.cli.quoting import unquote
from polars_fair.cli.table import _table_text, to_csv, to_markdown
from polars_fair.core.labels import MISSING_GROUP
from polars_fair.core.options import DEFAULTS
from polars_fair.core.reference import COUNT_RULES, SCORE_RULES, Reference
from polars_fair.core.spec import sql_rename_example
from polars_fair.core.sql import check_built_bytes, sql_expr
from polars_fair.counting.conversions import conversion_error

__all__ = [
    "BASELINE_ALIAS",
    "BASELINE_FLAGS",
    "BaselineAliasOpt",
    "BY_HELP",
    "forget_sql_names",
    "note_command_flags",
    "DTYPES",
    "FLAGS",
    "FORMATS",
    "Format",
    "choices",
    "SUFFIX_FORMATS",
    "Inputs",
    "blank_as_null",
    "check_on_rows",
    "check_one_attribute",
    "check_outputs",
    "check_rows",
    "cli_message",
    "column_or_sql",
    "effective_format",
    "emit",
    "json_requested",
    "one_baseline",
    "parse_dtype",
    "parse_dtypes",
    "parse_reference",
    "parse_separator",
    "parse_value",
    "resolve_inputs",
    "scan",
    "unreadable",
    "usage_message",
    "where_condition",
]

#: The flags of the baseline model's prediction, on every command that takes one (``check``,
#: ``report --html``, ``compare``): ``--baseline-pred``, and ``--baseline``, ``compare``'s first
#: spelling, as an alias. The one declaration of that spelling. The alias is its own hidden
#: parameter (:data:`BaselineAliasOpt`), not a second flag of the option, so that both given
#: is a usage error (:func:`one_baseline`) instead of the last one silently winning.
BASELINE_FLAGS = ("--baseline-pred", "--baseline")
#: The hidden ``--baseline`` parameter of a command that takes ``--baseline-pred``.
BaselineAliasOpt = Annotated[str | None, typer.Option(
    BASELINE_FLAGS[1], hidden=True, metavar="COLUMN|SQL",
    help=f"Another spelling of {BASELINE_FLAGS[0]}.")]
#: The Python name of that parameter.
BASELINE_ALIAS = "baseline_alias"


def one_baseline(pred: str | None, alias: str | None, *, required: bool = False) -> str | None:
    """The baseline's prediction from ``--baseline-pred`` or its spelling ``--baseline``.

    Parameters
    ----------
    pred : str or None
        ``--baseline-pred``'s value.
    alias : str or None
        ``--baseline``'s value (:data:`BaselineAliasOpt`).
    required : bool, default False
        One of the two must be given (``compare``).

    Returns
    -------
    str or None
        The one given, or None.

    Raises
    ------
    typer's click UsageError
        Both given (:data:`polars_fair.errors.CLI_BASELINE_TWICE`), or, when ``required``,
        neither (``missing option --baseline-pred``, as click says): exit 2 as every usage error.

    Examples
    --------
    >>> one_baseline(None, "old"), one_baseline("old", None), one_baseline(None, None)
    ('old', 'old', None)
    >>> one_baseline("old", "new")
    Traceback (most recent call last):
    ...
    typer._click.exceptions.UsageError: --baseline-pred and --baseline both given: ...
    """
    from typer._click.exceptions import UsageError

    if pred is not None and alias is not None:
        raise UsageError(E.CLI_BASELINE_TWICE)
    if required and pred is None and alias is None:
        raise UsageError(E.CLI_MISSING_PARAMETER.format(kind="option", name=BASELINE_FLAGS[0]))
    return alias if pred is None else pred
#: The library's parameter names and the command line's flags for them (:func:`cli_message`).
FLAGS = {
    "baseline": BASELINE_FLAGS[0], "baseline_pred": BASELINE_FLAGS[0],
    "by": "--by", "y_true": "--y-true", "y_pred": "--y-pred", "y_score": "--y-score",
    "pos_label": "--pos-label", "reference": "--reference", "min_support": "--min-support",
    "where": "--where", "null_groups": "--null-groups", "max_groups": "--max-groups",
    "min_impact_ratio": "--min-impact-ratio", "max_abs_ofi": "--max-abs-ofi",
    "max_abroca": "--max-abroca",
}

#: ``--by``'s help: a SQL text is named by its text, or by its own top-level ``AS``.
BY_HELP = ("Attribute column or SQL expression (named by its text, or by its AS: "
           "'\"n\" AS n_attr'); repeat for intersections.")

#: ``--format``'s annotation: typer checks the choice as it parses (:func:`choices`).
Format = Literal["table", "csv", "json", "parquet", "markdown"]
#: The output formats of ``--format``.
FORMATS: tuple[str, ...] = typing.get_args(Format)


def choices(values: Sequence[str]) -> Any:
    """The annotation of an option that takes one of ``values``: Typer checks it as it parses.

    So a value outside the list is a usage error, told before Polars is imported
    (:mod:`polars_fair.cli.usage`), with "did you mean"
    (:func:`polars_fair.cli.group.usage_message`).

    Parameters
    ----------
    values : sequence of str
        The accepted values.

    Returns
    -------
    typing.Literal
        ``Literal[values]``.

    Examples
    --------
    >>> choices(("text", "json"))
    typing.Literal['text', 'json']
    """
    return Literal[tuple(values)]
#: Output suffixes and their format (``--output`` with the default format).
SUFFIX_FORMATS = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".pq": "parquet",
                  ".txt": "table", ".md": "markdown"}
#: The names ``--dtype COL=TYPE`` accepts (case-insensitive), besides ``decimal(P,S)``,
#: ``datetime[UNIT]`` and ``datetime[UNIT,ZONE]``.
DTYPES: dict[str, pl.DataType] = {
    "str": pl.String(), "string": pl.String(), "utf8": pl.String(), "text": pl.String(),
    "cat": pl.Categorical(), "categorical": pl.Categorical(),
    "bool": pl.Boolean(), "boolean": pl.Boolean(),
    "int": pl.Int64(), "int8": pl.Int8(), "int16": pl.Int16(), "int32": pl.Int32(),
    "int64": pl.Int64(), "uint8": pl.UInt8(), "uint16": pl.UInt16(), "uint32": pl.UInt32(),
    "uint64": pl.UInt64(), "float": pl.Float64(), "float32": pl.Float32(),
    "float64": pl.Float64(), "decimal": pl.Decimal(38, 9), "date": pl.Date(),
    "datetime": pl.Datetime("us"), "time": pl.Time(),
}
_CSV_SUFFIXES = (".csv", ".tsv", ".txt")


def parse_separator(text: str | None, path: Path) -> str:
    r"""The CSV separator: ``--separator``, else a tab for ``.tsv`` and a comma otherwise.

    Parameters
    ----------
    text : str or None
        ``--separator``: one character; ``\t`` or ``tab`` for a tab.
    path : pathlib.Path
        The input (its suffix gives the default).

    Returns
    -------
    str
        One character.

    Raises
    ------
    InvalidArgumentError
        Not one character.

    Examples
    --------
    >>> from pathlib import Path
    >>> parse_separator(None, Path("a.tsv")), parse_separator(";", Path("a.csv"))
    ('\t', ';')
    """
    if text is None:
        return "\t" if path.suffix.lower() == ".tsv" else ","
    sep = "\t" if text in ("\\t", "tab", "TAB") else text
    if len(sep) != 1 or sep in ('"', "\n", "\r"):
        raise E.InvalidArgumentError(E.CLI_BAD_SEPARATOR.format(value=text))
    return sep


def parse_dtype(text: str) -> pl.DataType:
    """A dtype from its name (``str``, ``int64``, ``float``, ``date``, ``decimal(10,2)``, ...).

    Parameters
    ----------
    text : str
        A name of :data:`DTYPES` (case-insensitive), ``decimal(P,S)``, ``datetime[UNIT]`` or
        ``datetime[UNIT,ZONE]`` (UNIT one of ms, us, ns).

    Returns
    -------
    pl.DataType

    Raises
    ------
    InvalidArgumentError
        An unknown name (the message lists the names).

    Examples
    --------
    >>> parse_dtype("String"), parse_dtype("decimal(10, 2)"), parse_dtype("datetime[ms, UTC]")
    (String, Decimal(precision=10, scale=2), Datetime(time_unit='ms', time_zone='UTC'))
    """
    low = text.strip().lower().replace(" ", "")
    if low in DTYPES:
        return DTYPES[low]
    if m := re.fullmatch(r"decimal\((\d+),(\d+)\)", low):
        return pl.Decimal(int(m.group(1)), int(m.group(2)))
    if m := re.fullmatch(r"datetime\[(ms|us|ns)(?:,([^\]]+))?\]", low):
        zone = text.strip().replace(" ", "")[len("datetime[") + 3:-1].lstrip(",") or None
        return pl.Datetime(m.group(1), zone)  # type: ignore[arg-type]
    names = ", ".join(DTYPES) + ", decimal(P,S), datetime[UNIT], datetime[UNIT,ZONE]"
    raise E.InvalidArgumentError(E.CLI_BAD_DTYPE.format(value=text, names=names)
                                 + E.closest([text.lower()], DTYPES, quote=False,
                                             cutoff=E.VALUE_CUTOFF))


def _dtype_example(text: str) -> str:
    """``--dtype``'s example for a text without ``COLUMN=``, as one shell word.

    Its column (``race`` -> ``race=str``, ``race:int64`` -> ``race=int64``), else ``branch=str``.
    """
    name, colon, kind = text.strip().rpartition(":")
    if colon and name and kind.strip().lower() in DTYPES:
        return E.shell_word(f"{name}={kind.strip()}")
    column = text.strip().rstrip("=")
    return E.shell_word(f"{column}=str") if column else "branch=str"


def parse_dtypes(texts: Sequence[str] | None) -> dict[str, pl.DataType]:
    """``--dtype COL=TYPE`` (repeatable) as ``{column: dtype}``.

    Parameters
    ----------
    texts : sequence of str or None
        Each ``COL=TYPE`` (the last ``=`` separates them, so a column name may hold one).

    Returns
    -------
    dict of str to pl.DataType

    Raises
    ------
    InvalidArgumentError
        No ``=``, an empty column, a column named twice or an unknown type.

    Examples
    --------
    >>> parse_dtypes(["branch=str", "amount=decimal(12,2)"])
    {'branch': String, 'amount': Decimal(precision=12, scale=2)}
    """
    out: dict[str, pl.DataType] = {}
    for text in texts or ():
        column, eq, name = text.rpartition("=")
        if not eq or not column:
            raise E.InvalidArgumentError(E.CLI_BAD_DTYPE_OPTION.format(
                value=text, example=_dtype_example(text)))
        if column in out:
            raise E.InvalidArgumentError(E.CLI_DTYPE_TWICE.format(column=column))
        out[column] = parse_dtype(name)
    return out


def scan(path: Path, separator: str | None = None,
         dtypes: dict[str, pl.DataType] | None = None) -> pl.LazyFrame:
    """Scan a CSV, Parquet or NDJSON file lazily, by its suffix.

    A CSV column's type is inferred from every row (a column holding ``11``, ``12`` and, after
    many rows, ``12A`` is text), unless ``dtypes`` sets it.

    **A date-time without an offset** read as a zoned ``--dtype`` (``datetime[ms,Europe/Paris]``)
    is a wall-clock time in that zone, as ``--reference`` reads it; one with an offset is
    converted to the zone.

    **Blank text is missing.** In every file and every text column (String, Categorical,
    Enum), a value that is empty or only whitespace is null (:func:`blank_as_null`): in a CSV
    an empty field and a quoted empty field ``""`` are the same missing value, so a blank
    category is never a group or a reference of its own; missing groups then follow
    ``--null-groups`` (raise, keep or drop), and a blank label or prediction is a null one. In
    a CSV the blanks are missing before the types are inferred: a label column of ``1``, ``0``
    and ``" "`` is an integer column with a missing label (``NullValuesError``), not text.

    Parameters
    ----------
    path : pathlib.Path
        ``.csv``, ``.tsv``, ``.txt``, ``.parquet``, ``.pq``, ``.ndjson`` or ``.jsonl``.
    separator : str, optional
        ``--separator`` (CSV only; :func:`parse_separator`).
    dtypes : dict of str to pl.DataType, optional
        ``--dtype``: the columns' types (read so in a CSV, cast strictly otherwise).

    Returns
    -------
    pl.LazyFrame
        The file, not read yet.

    Raises
    ------
    InvalidArgumentError
        The file does not exist or is a directory, its suffix names no known format, a
        ``--separator`` for a file that is not CSV, a ``--dtype`` column that is not in the file.
    polars.exceptions.ComputeError
        A CSV row with more fields than the header, whichever columns the command reads (the
        command line reports it as ``InvalidInputError``: :func:`unreadable`).
    InvalidInputError
        A CSV row with fewer fields than the header (a blank line is no row), named by its
        line (:data:`polars_fair.errors.CSV_SHORT_FIELDS`).

    Examples
    --------
    >>> from pathlib import Path
    >>> scan(Path("missing.csv"))
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: file not found: missing.csv
    """
    suffix = path.suffix.lower()
    if not path.exists():
        raise E.InvalidArgumentError(f"file not found: {path}")
    if path.is_dir():
        raise E.InvalidArgumentError(E.CLI_INPUT_IS_DIR.format(path=path))
    dtypes = dtypes or {}
    if suffix in _CSV_SUFFIXES:
        sep = parse_separator(separator, path)
        check_text_file(path)  # empty or binary: said before Polars parses it
        try:
            text = pl.scan_csv(path, separator=sep, infer_schema_length=0)
            _check_dtype_columns(dtypes, text.collect_schema().names())
        # Polars checks a row's number of fields only when every column is read: a command
        # that reads some columns would skip a row's extra field silently (bias-audit did), so
        # every column is read once here, streaming; an extra field raises (InvalidInputError)
        # The same pass finds the blank values (" ", a quoted ""): they are missing before the
        # types are inferred, so a label column holding 1, 0 and " " is an integer column with
        # a missing label (NullValuesError), not text that differs in kind from the prediction
        # A row with fewer fields than the header reads its missing fields as null: the same
        # pass says whether the last column holds a null, and only then is the file read once
        # more, as CSV, for a row cut short (a null there is also an empty field, or a blank
        # line, neither of them a short row)
            names = text.collect_schema().names()
            flag = "_" * (1 + max(map(len, names)))  # longer than any column's name
            *found, cut_short, empty_rows = text.select(
                *(pl.col(c).filter(pl.col(c).str.strip_chars() == "").unique().implode()
                  for c in names),
                pl.col(names[-1]).is_null().any().alias(flag),
                pl.all_horizontal(pl.col(c).is_null() | (pl.col(c).str.strip_chars() == "")
                                  for c in names).sum().alias(flag + "_")
            ).collect(engine="streaming").row(0)
        except pl.exceptions.PolarsError as exc:  # the fault and its line, no row content
            raise csv_failure(exc, path, sep) from None
        if len(names) > 1 and cut_short and (cut := short_row(path, sep)) is not None:
            raise cut
        blanks = sorted({v for column in found for v in column})
        zoned = {c: pl.String() for c, t in dtypes.items() if _zoned(t)}  # read in their zone
        inferred = pl.scan_csv(path, separator=sep, infer_schema_length=None,
                               schema_overrides={**dtypes, **zoned} or None,
                               null_values=blanks or None).collect_schema()
        # the types, inferred from every row once, are given to the scan: a scan that infers
        # them reads the whole file again at each query the command runs
        lf = blank_as_null(pl.scan_csv(path, separator=sep, schema=inferred,
                                       null_values=blanks or None))
        if empty_rows:  # blank lines are no rows (as pandas reads them), when all are
            lf = _without_blank_lines(lf, path, sep)
        note_columns(inferred.names())
        text_of = pl.scan_csv(path, separator=sep, infer_schema_length=0,
                              null_values=blanks or None)
        lenient = _as_dtypes(pl.scan_csv(path, separator=sep, schema=inferred,
                                         null_values=blanks or None, ignore_errors=True),
                             {c: dtypes[c] for c in zoned}, strict=False)
        note_dtype_reads({c: pl.concat([lenient.select(pl.col(c).alias("held")),
                                        text_of.select(pl.col(c).alias("text"))],
                                       how="horizontal").select(
            pl.col("held").is_null() & pl.col("text").str.strip_chars().ne(""))
            for c in dtypes})
        check_dtype_reads(dtypes, text_of.collect_schema())  # every format, at the scan
        return _noted(_as_dtypes(lf, {c: dtypes[c] for c in zoned}))
    if separator is not None:
        raise E.InvalidArgumentError(E.CLI_SEPARATOR_NOT_CSV.format(path=path.name))
    if suffix in (".parquet", ".pq"):
        lf = pl.scan_parquet(path)
    elif suffix in (".ndjson", ".jsonl"):  # the types inferred once, as for a CSV
        lf = pl.scan_ndjson(path, schema=pl.scan_ndjson(path, infer_schema_length=None)
                            .collect_schema())
    else:
        raise E.InvalidArgumentError(
            f"cannot tell the format of {path.name!r}: use .csv, .tsv, .parquet or .ndjson"
        )
    if dtypes:
        _check_dtype_columns(dtypes, lf.collect_schema().names())
    note_columns(lf.collect_schema().names())
    lenient = _as_dtypes(blank_as_null(lf), dtypes, strict=False)
    note_dtype_reads({c: pl.concat([lenient.select(pl.col(c).alias("held")),
                                    blank_as_null(lf).select(pl.col(c).alias("text"))],
                                   how="horizontal").select(
        pl.col("held").is_null() & pl.col("text").is_not_null()) for c in dtypes})
    check_dtype_reads(dtypes, lf.collect_schema())  # every format, at the scan
    return _noted(_as_dtypes(blank_as_null(lf), dtypes))


#: The input the running command scanned: the rows a SQL flag's values are measured over
#: (:func:`column_or_sql`, :func:`polars_fair.core.sql.check_built_bytes`).
_INPUT_FRAME: list[pl.LazyFrame] = []


def _noted(lf: pl.LazyFrame) -> pl.LazyFrame:
    """``lf``, remembered as the command's input (:data:`_INPUT_FRAME`)."""
    _INPUT_FRAME[:] = [lf]
    return lf


def _without_blank_lines(lf: pl.LazyFrame, path: Path, sep: str) -> pl.LazyFrame:
    """``lf`` without the rows Polars read from blank lines, said when they are inside the file.

    Polars reads a blank line as a row whose every field is missing; such rows are left out
    by their position (a row of empty fields, ``,,``, stays: its missing label is refused). A
    blank line before a row is counted in a warning; one at the end is an editor's habit.
    """
    import warnings

    found, trailing = blank_lines(path, sep)
    if not found:
        return lf
    if len(found) > trailing:
        warnings.warn(E.CSV_BLANK_LINES.format(path=path.name, count=len(found) - trailing),
                      stacklevel=2)
    index = "_" * (1 + max(map(len, lf.collect_schema().names())))  # no column's name
    return (lf.with_row_index(index)
            .filter(~pl.col(index).is_in(pl.Series(found, dtype=pl.UInt32).implode()))
            .drop(index))


def _zoned(dtype: pl.DataType) -> bool:
    return isinstance(dtype, pl.Datetime) and dtype.time_zone is not None


def _as_dtypes(lf: pl.LazyFrame, dtypes: dict[str, pl.DataType], *,
               strict: bool = True) -> pl.LazyFrame:
    """Each column cast to its ``--dtype``; text read as a zoned Datetime in its zone.

    One policy for a date-time written without an offset, in the file and in ``--reference``
    (:func:`parse_value`): it is a wall-clock time in the column's zone (``2024-03-30
    12:00:00`` read as ``datetime[ms,Europe/Paris]`` is 12:00 in Paris, not 12:00 UTC); a text
    with an offset is converted to the zone.
    """
    schema = lf.collect_schema()

    def read(column: str, dtype: pl.DataType) -> pl.Expr:
        if isinstance(dtype, pl.Datetime) and dtype.time_zone and schema[column] == pl.String:
            return pl.col(column).str.to_datetime(time_unit=dtype.time_unit,
                                                  time_zone=dtype.time_zone, strict=strict)
        return pl.col(column).cast(dtype, strict=strict)

    return lf.with_columns(read(c, t) for c, t in dtypes.items())


def blank_as_null(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Text that is empty or only whitespace as null, in every text column (the files' policy).

    Parameters
    ----------
    lf : pl.LazyFrame
        A scanned file.

    Returns
    -------
    pl.LazyFrame
        ``lf`` with each String, Categorical or Enum column's blank values null; other columns
        and dtypes unchanged.

    Examples
    --------
    >>> import polars as pl
    >>> blank_as_null(pl.LazyFrame({"g": ["a", "", "  ", None]})).collect()["g"].to_list()
    ['a', None, None, None]
    """
    text = [c for c, t in lf.collect_schema().items()
            if t == pl.String or isinstance(t, (pl.Categorical, pl.Enum))]
    if not text:
        return lf
    return lf.with_columns(
        pl.when(pl.col(c).cast(pl.String).str.strip_chars().str.len_bytes() == 0)
        .then(None).otherwise(pl.col(c)).alias(c) for c in text)


def _check_dtype_columns(dtypes: dict[str, pl.DataType], names: list[str]) -> None:
    for column in dtypes:
        if column not in names:
            raise E.ColumnNotFoundError(E.missing_column(column, "--dtype", names))


def check_rows(lf: pl.LazyFrame, source: str = "the input") -> None:
    """Raise unless the data holds a row (a header-only CSV is empty, not a dtype problem).

    Parameters
    ----------
    lf : pl.LazyFrame
        The scanned file (its first row is read).
    source : str, default "the input"
        The file's name, for the message.

    Raises
    ------
    EmptyFrameError
        No row.

    Examples
    --------
    >>> import polars as pl
    >>> check_rows(pl.LazyFrame({"g": []}), "h.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.EmptyFrameError: the frame has no rows (h.csv holds no data rows): ...
    """
    if lf.head(1).collect().height == 0:
        raise E.EmptyFrameError(
            E.EMPTY_FRAME.format(detail=f" ({source} holds no data rows)"))


def _top_level_parts(text: str) -> list[str]:
    """``text`` split at the commas outside parentheses, quotes and brackets."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"`":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return [*parts, text[start:].strip()]


def _named_by_as(text: str) -> int | None:
    """Where the top-level ``AS`` of a SQL text starts (``"n" AS n_attr``), or None.

    The ``AS`` of ``CAST(x AS INT)`` is inside parentheses and names nothing; one inside a
    quoted literal or name is text.
    """
    depth, at = 0, None
    for m in re.finditer(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`|[()]|\bAS\b""", text,
                         re.IGNORECASE):
        token = m.group(0)
        depth += (token == "(") - (token == ")")
        if depth == 0 and token.upper() == "AS":
            at = m.start()
    return at


#: The SQL texts the command line named by their ``AS`` (key name -> text), so advice to rename
#: such a key rewrites its ``AS`` (:func:`_renamed_sql`) instead of reading a column of that name.
_NAMED_SQL: dict[str, str] = {}
#: The SQL texts the command line named by their text: advice that writes such a key as a SQL
#: identifier (``"CAST(age AS DOUBLE)"``, no column) writes the text itself instead.
_TEXT_SQL: set[str] = set()


#: The attributes the running command took from a flag other than ``--by`` (key name -> flag:
#: ``--category`` of bias-audit, ``--strata`` of stratified), so that advice naming ``--by``
#: for them names the flag the user typed (:func:`cli_message`).
_ATTRIBUTE_FLAGS: dict[str, str] = {}
#: The flags that give attributes besides ``--by``.
ATTRIBUTE_FLAGS = ("--category", "--strata")


def note_attribute_flag(name: str, flag: str) -> None:
    """Remember that the attribute ``name`` came from ``flag`` (advice then names that flag).

    Parameters
    ----------
    name : str
        The key's name (a column, or a SQL text's name).
    flag : str
        One of :data:`ATTRIBUTE_FLAGS`; ``--by`` is forgotten (it is the default).

    Examples
    --------
    >>> note_attribute_flag("race", "--category")
    >>> cli_message("leave --by race out")
    'leave --category race out'
    >>> forget_sql_names()
    """
    if flag in ATTRIBUTE_FLAGS:
        _ATTRIBUTE_FLAGS[name] = flag
    else:
        _ATTRIBUTE_FLAGS.pop(name, None)


#: The columns of the running command's input (:func:`scan`): a word of a message that is one
#: of them is a column, not an argument, and :func:`cli_message` leaves it as it is.
_INPUT_COLUMNS: set[str] = set()


#: The key names of the running command's attributes (:func:`resolve_inputs`): the text table
#: and Markdown write a missing value of these columns ``(missing)`` (:func:`emit`).
_GROUP_KEYS: list[str] = []


#: The columns of the input that the running command's ``--reference`` value holds as
#: ``,<column>=`` but does not audit (:func:`parse_reference`), with the audited attributes:
#: a group it names that does not exist says so (:func:`cli_message`).
_REFERENCE_NOT_AUDITED: list[tuple[list[str], list[str]]] = []


#: The ``--membership`` values of the running command (attribute -> ``G1:C1,...`` as typed):
#: advice to rename the attribute repeats the groups and columns given (:func:`cli_message`).
_MEMBERSHIP_SPECS: dict[str, str] = {}


def note_membership(attribute: str, spec: str) -> None:
    """Remember the groups and columns ``--membership`` gave ``attribute`` (for advice).

    Parameters
    ----------
    attribute : str
        The attribute's name.
    spec : str
        What followed ``attribute=`` on the command line.

    Examples
    --------
    >>> note_membership("ece", "a:p,b:q")
    >>> cli_message("for example membership={'ece_attr': membership['ece']}")
    "for example --membership 'ece_attr=a:p,b:q'"
    >>> forget_sql_names()
    """
    _MEMBERSHIP_SPECS[attribute] = spec


def note_group_keys(keys: Sequence[str]) -> None:
    """Name the columns of the running command that hold groups (the text table and Markdown).

    :func:`emit` writes a missing value of these columns ``(missing)`` and quotes a text that
    reads as one (:func:`polars_fair.cli.table.group_cell`); :func:`resolve_inputs` names
    ``--by``'s, ``bias-audit`` its ``--category`` columns, ``multiclass-report`` its keys.

    Parameters
    ----------
    keys : sequence of str
        The key columns.

    Examples
    --------
    >>> note_group_keys(["g"])
    >>> forget_sql_names()
    """
    _GROUP_KEYS.extend(k for k in keys if k not in _GROUP_KEYS)


def forget_sql_names() -> None:
    """Forget the SQL texts named by ``AS``, the attribute flags and the input's columns.

    Called as each command starts.

    Examples
    --------
    >>> forget_sql_names()
    """
    _NAMED_SQL.clear()
    _TEXT_SQL.clear()
    _ATTRIBUTE_FLAGS.clear()
    _MEMBERSHIP_SPECS.clear()
    _INPUT_COLUMNS.clear()
    _INPUT_FRAME.clear()
    _GROUP_KEYS.clear()
    _REFERENCE_NOT_AUDITED.clear()


def note_columns(names: Sequence[str]) -> None:
    """Remember the input's columns: :func:`cli_message` never writes one of them as a flag.

    Parameters
    ----------
    names : sequence of str
        The columns.

    Examples
    --------
    >>> note_columns(["y_score"])
    >>> cli_message("pass it as --y-score y_score with --threshold")
    'pass it as --y-score y_score with --threshold'
    >>> forget_sql_names()
    >>> cli_message("min_support")
    '--min-support'
    """
    _INPUT_COLUMNS.update(names)


def _attribute_flags(message: str) -> str:
    """``--by`` in advice about an attribute that came from another flag, as that flag."""
    for name, flag in _ATTRIBUTE_FLAGS.items():
        word = E.shell_word(name)
        replacement = f"{flag} {word}"
        message = re.sub(r"(?<![\w-])--by " + re.escape(word) + r"(?![\w-])",
                         lambda _m: replacement, message)  # noqa: B023 (used at once)
        if message.startswith(f"attribute {name!r} "):  # its level error: every --by is it
            message = re.sub(r"(?<![\w-])--by(?= )", flag, message)
    return message


def _renamed_sql(name: str) -> str:
    """``--by`` advice for a key ``name`` that clashes: the same SQL named ``<name>_attr``.

    The flag is the one the attribute came from (``--category`` on ``bias-audit``).
    """
    flag = _ATTRIBUTE_FLAGS.get(name, "--by")
    text = _NAMED_SQL.get(name)
    if text is None:  # a column: read it under another key name
        return f"{flag} " + sql_rename_example(name)
    at = _named_by_as(text)
    assert at is not None
    alias = f"{name}_attr" if re.fullmatch(r"\w+", name) else '"{}_attr"'.format(
        name.replace('"', '""'))
    return f"{flag} " + shlex.quote(f"{text[:at].rstrip()} AS {alias}")


def check_one_attribute(text: str, schema: pl.Schema, flag: str = "--by") -> str:
    """Refuse ``--by race,sex``: one attribute per ``--by``, repeated for several.

    A comma outside parentheses and quotes is not part of one column or SQL expression (a
    column whose name holds a comma is taken as it is).

    Parameters
    ----------
    text : str
        One ``--by`` value.
    schema : pl.Schema
        The data's schema.
    flag : str, default "--by"
        The flag it came from (``--category`` for bias-audit), named and repeated in the advice.

    Returns
    -------
    str
        ``text``, unchanged.

    Raises
    ------
    InvalidArgumentError
        A top-level comma; the message writes the repeated flags to pass instead.

    Examples
    --------
    >>> import polars as pl
    >>> schema = pl.Schema({"race": pl.String, "sex": pl.String})
    >>> check_one_attribute("COALESCE(race, sex)", schema)
    'COALESCE(race, sex)'
    >>> check_one_attribute("race,sex", schema)
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: --by takes one attribute (a column or a SQL ...
    """
    if text in schema:
        return text
    parts = _top_level_parts(text)
    if len(parts) > 1:  # each part quoted for the shell (and left alone by cli_message)
        flags = " ".join("{} '{}'".format(flag, p.replace("'", "'\\''")) for p in parts if p)
        raise E.InvalidArgumentError(E.CLI_BY_COMMA.format(flag=flag, text=text, flags=flags))
    return text


def column_or_sql(text: str, schema: pl.Schema, role: str = "column") -> str | pl.Expr:
    """A column name as is; anything else a row-level SQL expression named by its text.

    A SQL text that names itself with a top-level ``AS`` is named so: ``"n" AS n_attr`` is the
    key ``n_attr`` (which ``--reference n_attr=a`` then names), ``g AS "my key"`` the key
    ``my key``; the ``AS`` inside ``CAST(x AS INT)`` names nothing.

    The SQL text goes through :func:`polars_fair.core.sql.sql_expr`: it may read the input's columns
    only (no subquery, table function, file or URL; refused before Polars parses it) and must
    give one value per row.

    Parameters
    ----------
    text : str
        A column name or a SQL expression (``score_text <> 'Low'``); a column's name in
        double quotes is that column (``"g"``: the key column is named ``g``).
    schema : pl.Schema
        The data's schema.
    role : str, default "column"
        The flag it came from (``--by``, ``--y-pred``, ...), named in errors.

    Returns
    -------
    str or pl.Expr
        The name, or the expression named by its ``AS`` or aliased to ``text``.

    Raises
    ------
    ColumnNotFoundError
        A name in ``text`` that is not a column; the message lists the columns.
    SQLRefusedError
        SQL that reads outside the rows, or that Polars cannot parse.
    NotRowLevelError
        An aggregate or a window (``MAX(y_pred)``).
    SizeLimitError
        A text whose values over the rows of the scanned input (:func:`scan`) could take more
        than ``sql_bytes`` bytes (:func:`polars_fair.core.sql.check_built_bytes`).

    Examples
    --------
    >>> import polars as pl
    >>> schema = pl.Schema({"score": pl.Float64})
    >>> column_or_sql("score", schema), column_or_sql("score >= 0.5", schema).meta.output_name()
    ('score', 'score >= 0.5')
    >>> column_or_sql('"score" AS s', schema).meta.output_name()
    's'
    """
    if text in schema:
        note_attribute_flag(text, role)
        return text
    if unquote(text) != text and unquote(text) in schema:  # a quoted name: the column itself
        note_attribute_flag(unquote(text), role)
        return unquote(text)
    expr = sql_expr(text, schema, role)
    if _INPUT_FRAME:  # the bytes its values take over the scanned rows, before any is read
        check_built_bytes(_INPUT_FRAME[0], [(role, text)])
    # named by its text, or by its own top-level AS: --by '"n" AS n_attr' is the key n_attr
    if _named_by_as(text) is None:
        expr = expr.alias(text)
        _TEXT_SQL.add(text)
    else:
        _NAMED_SQL[expr.meta.output_name()] = text
    try:  # types: evaluated on no rows, so "race > 5" over a text column fails here, named
        pl.LazyFrame(schema=schema).select(expr).collect()
    except pl.exceptions.PolarsError as exc:
        raise E.InvalidArgumentError(E.SQL_TYPES.format(
            role=role, text=text, detail=_first_line(exc))) from None
    note_attribute_flag(expr.meta.output_name(), role)
    return expr


def where_condition(lf: pl.LazyFrame, where: str) -> str | pl.Expr:
    """``--where``: a row-level SQL condition over the frame's columns, checked.

    Parameters
    ----------
    lf : pl.LazyFrame
        The scanned input.
    where : str
        The SQL text (or a Boolean column's name).

    Returns
    -------
    str or pl.Expr
        The condition (:func:`column_or_sql`).

    Raises
    ------
    InvalidArgumentError
        The text does not give true or false per row (``race + 1``), or its types do not fit
        the columns (``race > 5`` over a text column); the message names ``--where`` and the
        text.
    ColumnNotFoundError, SQLRefusedError, NotRowLevelError
        As :func:`column_or_sql`.

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"age": [20, 50]})
    >>> lf.filter(where_condition(lf, "age > 30")).collect()["age"].to_list()
    [50]
    >>> where_condition(lf, "age + 1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: --where 'age + 1' must be a condition ..., not Int64
    """
    condition = column_or_sql(where, lf.collect_schema(), "--where")
    kind = _dtype(lf, condition, "--where")  # names a missing column cleanly
    if kind not in (pl.Boolean, pl.Null):
        raise E.InvalidArgumentError(
            E.SQL_NOT_CONDITION.format(role="--where", text=where, dtype=kind))
    return condition


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return " ".join(lines[0].split()) if lines else type(exc).__name__


#: The rows :func:`resolve_inputs` evaluates SQL options on first, so an error that only the
#: data shows (a ``CAST`` of text that is not a number) names its flag.
SAMPLE_ROWS = 1000


def check_on_rows(lf: pl.LazyFrame, texts: dict[str, tuple[str, str | pl.Expr | None]]) -> None:
    """Evaluate each SQL option on the first rows; a failure names the flag and the text.

    An error only the data shows (``CAST(race AS INT)`` over text) would otherwise surface as
    Polars' message, without the option it came from.

    Parameters
    ----------
    lf : pl.LazyFrame
        The input, before ``--where``.
    texts : dict of str to (str, str or pl.Expr or None)
        Flag (``--by#0`` for a repeated flag: the part before ``#`` is shown) -> (the text
        given, what :func:`column_or_sql` made of it); column names and ``None`` are skipped.

    Raises
    ------
    InvalidArgumentError
        An expression that fails on the first :data:`SAMPLE_ROWS` rows; a value it cannot
        convert is :data:`polars_fair.errors.CONVERSION_FAILED` (its failing rows counted over
        the whole input, no value shown:
        :func:`polars_fair.counting.conversions.conversion_error`).

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"g": ["a"]})
    >>> check_on_rows(lf, {"--by": ("CAST(g AS INT)", pl.sql_expr("CAST(g AS INT)"))})
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: --by 'CAST(g AS INT)': 1 of 1 values of column 'g' ...
    """
    exprs = {flag: expr for flag, (_, expr) in texts.items() if isinstance(expr, pl.Expr)}
    if not exprs:
        return
    head = lf.head(SAMPLE_ROWS)
    try:
        head.select(*(e.alias(f"__pf_{i}") for i, e in enumerate(exprs.values()))).collect()
        return
    except pl.exceptions.PolarsError:
        pass
    for flag, expr in exprs.items():
        try:
            head.select(expr).collect()
        except pl.exceptions.PolarsError as exc:
            role = f"{flag.split('#')[0]} {texts[flag][0]!r}"
            # no value shown; the failing rows counted over the whole input, not the sample
            hidden = conversion_error(str(exc), [(expr, role)], lf, role, sql=True)
            if hidden is not None:
                raise E.InvalidArgumentError(str(hidden)) from None
            raise E.InvalidArgumentError(E.SQL_ON_ROWS.format(
                role=flag.split("#")[0], text=texts[flag][0], detail=_first_line(exc))) from None


def parse_value(text: str, dtype: pl.DataType, name: str = "value") -> Any:
    """Turn a command-line value into the dtype of the column it is compared with.

    Parameters
    ----------
    text : str
        The value as typed.
    dtype : pl.DataType
        The column's dtype: Boolean (``true/1/yes``, ``false/0/no``), an integer, a float, a
        Decimal, a Date (``2020-01-31``), a Datetime (ISO 8601; a time without an offset is
        read in the column's time zone, as :func:`scan` reads a file's text, one with an offset
        converted to it), a Time, or anything else (kept as text).
    name : str, default "value"
        The flag it came from, for messages.

    Returns
    -------
    Any
        ``bool``, ``int``, ``float``, ``decimal.Decimal``, ``datetime.date``,
        ``datetime.datetime``, ``datetime.time`` or ``str``.

    Raises
    ------
    InvalidArgumentError
        The text does not fit the dtype.

    Examples
    --------
    >>> import polars as pl
    >>> parse_value("yes", pl.Boolean), parse_value("3", pl.Int64), parse_value("x", pl.String)
    (True, 3, 'x')
    >>> parse_value("2020-01-31", pl.Date), parse_value("1.50", pl.Decimal(5, 2))
    (datetime.date(2020, 1, 31), Decimal('1.50'))
    >>> parse_value("2020-01-31 12:00", pl.Datetime("us", "Europe/Paris")).isoformat()
    '2020-01-31T12:00:00+01:00'
    """
    def bad(kind: str) -> E.InvalidArgumentError:
        return E.InvalidArgumentError(
            E.CLI_BAD_VALUE.format(name=name, value=text, kind=kind, dtype=dtype))

    if dtype == pl.Boolean:
        low = text.strip().lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise bad("a boolean (true/false)")
    if dtype.is_integer():
        try:
            return int(text)
        except ValueError:
            raise bad("an integer") from None
    if dtype.is_float():
        try:
            return float(text)
        except ValueError:
            raise bad("a number") from None
    if isinstance(dtype, pl.Decimal):
        try:
            number = decimal.Decimal(text.strip())
        except decimal.InvalidOperation:
            raise bad("a decimal number") from None
        if not number.is_finite():
            raise bad("a finite decimal number")
        return number
    if dtype == pl.Date:
        try:
            return dt.date.fromisoformat(text.strip())
        except ValueError:
            raise bad("a date (YYYY-MM-DD)") from None
    if isinstance(dtype, pl.Datetime):
        try:
            value = dt.datetime.fromisoformat(text.strip())
        except ValueError:
            raise bad("a date and time (ISO 8601, YYYY-MM-DD HH:MM:SS)") from None
        zone = dtype.time_zone
        if zone is None:
            if value.tzinfo is not None:
                raise bad("a date and time without a time zone")
            return value
        from zoneinfo import ZoneInfo

        tz = ZoneInfo(zone)  # naive text: the column's wall clock, as a file's text (scan)
        return value.replace(tzinfo=tz) if value.tzinfo is None else value.astimezone(tz)
    if dtype == pl.Time:
        try:
            return dt.time.fromisoformat(text.strip())
        except ValueError:
            raise bad("a time (HH:MM:SS)") from None
    return text


def _dtype(lf: pl.LazyFrame, expr: str | pl.Expr, role: str = "column") -> pl.DataType:
    e = pl.col(expr) if isinstance(expr, str) else expr
    schema = lf.collect_schema()
    roots = [expr] if isinstance(expr, str) else expr.meta.root_names()
    for col in roots:
        if col not in schema:
            raise E.ColumnNotFoundError(E.missing_column(col, role, schema.names()))
    return lf.select(e).collect_schema().dtypes()[0]


def _reference_parts(text: str, names: list[str]) -> list[tuple[str, str | None]]:
    """``attr=value,attr=value`` split before each ``,<attribute>=`` (a quoted value whole).

    Values are verbatim: ``g= x ,h=H1`` gives ``" x "``; only spaces around an attribute's
    name (between a comma and the next ``=``) are not part of a value. The bare value
    ``(missing)`` is None, the missing group; quoted, ``"(missing)"`` is the text.
    """
    keys = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    head = re.compile(rf"\s*({keys})\s*=")
    sep = re.compile(rf",(?=\s*(?:{keys})\s*=)")
    parts: list[tuple[str, str | None]] = []
    pos = 0
    while True:
        m = head.match(text, pos)
        if m is None:
            raise E.InvalidArgumentError(E.CLI_BAD_REFERENCE.format(value=text, names=names))
        pos = m.end()
        rest = text[pos:]
        if rest.startswith('"'):
            q = re.match(r'"((?:[^"]|"")*)"\s*(,|$)', rest)
            if q is None:
                raise E.InvalidArgumentError(E.CLI_BAD_REFERENCE.format(value=text, names=names))
            parts.append((m.group(1), q.group(1).replace('""', '"')))
            pos = len(text) - len(rest) + q.end()
            if not q.group(2):
                return parts
            continue
        end = sep.search(text, pos)
        value = text[pos:end.start() if end else len(text)]
        parts.append((m.group(1), None if value == MISSING_GROUP else value))
        if end is None:
            return parts
        pos = end.end()


def _note_not_audited(text: str, columns: list[str], names: list[str]) -> None:
    """Note the input's columns not audited that ``text`` holds as ``,<column>=`` unquoted."""
    bare = re.sub(r'"(?:[^"]|"")*"', "", text)  # a quoted value is taken as written
    held = [c for c in columns if c not in names
            and re.search(rf",\s*{re.escape(c)}\s*=", bare) is not None]
    _REFERENCE_NOT_AUDITED.clear()
    if held:
        _REFERENCE_NOT_AUDITED.append((held, names))


def parse_reference(text: str | None, lf: pl.LazyFrame, by: list[str | pl.Expr]) -> Any:
    """Parse ``--reference``: a rule, a value, or ``attr=value,attr=value``.

    The rules are ``largest``, ``overall``, ``max_selection_rate`` and ``max_auc``
    (:mod:`polars_fair.core.reference`); a value is converted to the dtype of its attribute
    (:func:`parse_value`: numbers, decimals, dates and times included).

    In ``attr=value,attr=value`` the text is split only at a comma followed by an attribute of
    ``--by`` and ``=``, so a value may hold commas: ``race=White, non-Hispanic,sex=M``. Values
    are verbatim (``g= x ,h=H1`` names the group ``" x "``, never ``"x"``). A value in double
    quotes is taken as written (``race="a,sex=b"``; a doubled ``""`` is one quote), for a value
    that itself holds ``,<attribute>=`` (:data:`polars_fair.cli.quoting.QUOTING`); with one
    attribute the whole text is the value, by the same rule (``'"c,d"'`` is ``c,d``). The
    bare value ``(missing)`` names the missing group (the rows whose attribute is null), as
    the tables name it; the text "(missing)" is written quoted, ``'"(missing)"'``, as the
    tables write it too.

    Parameters
    ----------
    text : str or None
        The option's text; ``None`` (not given) means ``largest``.
    lf : pl.LazyFrame
        The data, for the attributes' dtypes.
    by : list of str or pl.Expr
        The attributes (``--by``).

    Returns
    -------
    Any
        A rule name, a value (one attribute) or ``{attribute: value}``.

    Raises
    ------
    InvalidArgumentError
        An unknown attribute, a value of the wrong type, or a bare value with several
        attributes.

    Notes
    -----
    A value that holds ``,<column>=`` for a column of the input that ``--by`` does not audit
    (``--reference 'g=a,zz=b'``) is read as the rule above says (the value ``a,zz=b``); when
    no group has that value, the error says that the column is not an audited attribute
    (:data:`polars_fair.errors.CLI_REFERENCE_NOT_AUDITED`), as Python's refusal of the mapping
    ``{'g': 'a', 'zz': 'b'}`` names the attributes.

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"race": ["a"], "age": [30]})
    >>> parse_reference("race=a,age=30", lf, ["race", "age"]), parse_reference("30", lf, ["age"])
    ({'race': 'a', 'age': 30}, 30)
    >>> parse_reference("race=White, non-Hispanic,age=30", lf, ["race", "age"])
    {'race': 'White, non-Hispanic', 'age': 30}
    >>> parse_reference('"a,b"', lf, ["race"])
    'a,b'
    >>> parse_reference("(missing)", lf, ["race"]), parse_reference('"(missing)"', lf, ["race"])
    ({'race': None}, '(missing)')
    """
    if text is None:
        return DEFAULTS.reference
    if text in (*COUNT_RULES, *SCORE_RULES):
        return text
    names = [b if isinstance(b, str) else b.meta.output_name() for b in by]
    dtypes = dict(zip(names, (_dtype(lf, b, "--by") for b in by), strict=True))
    _note_not_audited(text, lf.collect_schema().names(), names)
    if "=" in text and text.split("=", 1)[0].strip() in dtypes:
        out: dict[str, Any] = {}
        for key, value in _reference_parts(text, names):
            if key in out:
                raise E.InvalidArgumentError(f"--reference names {key!r} twice")
            out[key] = None if value is None else parse_value(value, dtypes[key],
                                                              "--reference")
        return out
    if len(by) != 1:
        raise E.InvalidArgumentError(
            "with several --by attributes pass --reference as attr=value,attr=value"
        )
    if text == MISSING_GROUP:  # the missing group, as the tables name it ('"(missing)"': text)
        return {names[0]: None}
    # one attribute: the whole text is the value, read by the one quoting rule ('"c,d"' is c,d)
    return parse_value(unquote(text), dtypes[names[0]], "--reference")


def effective_format(fmt: str, output: Path | None) -> str:
    """The default ``table`` format follows the suffix of ``--output`` (.csv, .json, .parquet).

    Parameters
    ----------
    fmt : str
        ``--format``.
    output : pathlib.Path or None
        ``--output``.

    Returns
    -------
    str
        ``fmt``, or the format of the output's suffix when ``fmt`` is the default ``table``.

    Raises
    ------
    InvalidArgumentError
        An unknown format; the default format with an output whose suffix names no format
        (``out.xlsx``: a text table is written only to ``.txt``); an explicit format that
        contradicts the output's suffix (``--format csv --output r.parquet``).

    Examples
    --------
    >>> from pathlib import Path
    >>> effective_format("table", Path("r.parquet")), effective_format("csv", Path("r.txt"))
    ('parquet', 'csv')
    """
    if fmt not in FORMATS:
        raise E.InvalidArgumentError(f"--format must be one of {FORMATS}, got {fmt!r}"
                                     + E.closest([fmt], FORMATS, flag="--format",
                                                 cutoff=E.VALUE_CUTOFF))
    if output is None:
        return fmt
    by_suffix = SUFFIX_FORMATS.get(output.suffix.lower())
    if fmt == "table":
        if by_suffix is None:
            raise E.InvalidArgumentError(E.CLI_OUTPUT_SUFFIX.format(
                path=output.name, suffixes=", ".join(SUFFIX_FORMATS)))
        return by_suffix
    if by_suffix not in (None, "table", fmt):
        raise E.InvalidArgumentError(E.CLI_FORMAT_CONTRADICTS.format(
            fmt=fmt, path=output.name, other=by_suffix))
    return fmt


def _same_file(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


@borrow(effective_format, params=("fmt", "output"))
def check_outputs(fmt: str, output: Path | None, html: Path | None = None,
                  inputs: Sequence[Path] = ()) -> str:
    """Check the outputs before anything is read or written; return the output format.

    Parameters
    ----------
    html : pathlib.Path, optional
        ``--html``.
    inputs : sequence of pathlib.Path, default ()
        The input files: no output may be one of them (paths are resolved, symbolic links
        followed, hard links compared by inode).

    Returns
    -------
    str
        The format :func:`effective_format` gives.

    Raises
    ------
    InvalidArgumentError
        An output that is an input or the other output, a directory, or in a directory that
        does not exist; an unknown format or suffix; parquet to stdout; ``--html`` without
        ``.html``.

    Examples
    --------
    >>> from pathlib import Path
    >>> check_outputs("table", Path("d.csv"), inputs=[Path("d.csv")])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: --output d.csv is the input d.csv: refusing ...
    """
    fmt = effective_format(fmt, output)
    if fmt == "parquet" and output is None:
        raise E.InvalidArgumentError("--format parquet needs --output FILE")
    if html is not None and html.suffix.lower() not in (".html", ".htm"):
        raise E.InvalidArgumentError(E.CLI_HTML_SUFFIX.format(path=html.name))
    named = [(flag, p) for flag, p in (("--output", output), ("--html", html)) if p is not None]
    for flag, path in named:
        for source in inputs:
            if _same_file(path, source):
                raise E.InvalidArgumentError(
                    E.CLI_OUTPUT_IS_INPUT.format(flag=flag, path=path, input=source))
        if path.is_dir():
            name = "audit.html" if flag == "--html" else "report" + next(
                (s for s, f in SUFFIX_FORMATS.items() if f == fmt), ".txt")
            raise E.InvalidArgumentError(E.CLI_OUTPUT_IS_DIR.format(
                flag=flag, path=path, example=E.shell_word(str(path / name))))
        parent = path.parent
        if not parent.is_dir():
            raise E.InvalidArgumentError(
                E.CLI_OUTPUT_NO_DIR.format(flag=flag, path=path, parent=parent))
    if len(named) == 2 and _same_file(named[0][1], named[1][1]):
        raise E.InvalidArgumentError(E.CLI_OUTPUTS_CLASH.format(path=named[0][1]))
    return fmt


def emit(df: pl.DataFrame, fmt: str, output: Path | None, header: str = "",
         footer: str = "") -> None:
    """Write ``df`` in the chosen format to ``output`` or stdout.

    With ``--output`` and the default format, the format follows the file's suffix
    (``.csv``, ``.json``, ``.parquet``, ``.txt`` for the table; :func:`effective_format`).

    Parameters
    ----------
    df : pl.DataFrame
        The result.
    fmt : str
        One of :data:`FORMATS` (``markdown``: :func:`polars_fair.cli.table.to_markdown`). CSV
        and the table write a list column (``attributes``) as ``a, b``; CSV puts a ``'`` before
        a text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
        (:func:`polars_fair.cli.table.to_csv`).
    output : pathlib.Path or None
        The file to write; stdout when ``None`` (not for parquet).
    header : str, default ""
        Lines printed above a table.
    footer : str, default ""
        Lines printed under a table (the report's summary).

    Raises
    ------
    InvalidArgumentError
        An unknown format or suffix, or parquet without ``output``.

    Examples
    --------
    >>> import polars as pl
    >>> emit(pl.DataFrame({"g": ["a"], "n": [3]}), "csv", None)
    g,n
    a,3
    """
    fmt = effective_format(fmt, output)
    if fmt == "parquet":
        if output is None:
            raise E.InvalidArgumentError("--format parquet needs --output FILE")
        df.write_parquet(output)
        return
    if fmt == "csv":
        text = to_csv(df)
    elif fmt == "json":
        text = df.write_json()
    elif fmt == "markdown":
        text = to_markdown(df, _GROUP_KEYS)
    else:
        text = ((header + "\n" if header else "") + _table_text(df, _GROUP_KEYS)
                + ("\n" + footer if footer else ""))
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))  # no blank line: it would read as a row
    else:
        output.write_text(text if text.endswith("\n") else text + "\n")


_QUOTED = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`)""")
#: Advice written for Python (``bins={'age': 5}``) and the command line's words for it; an
#: error whose advice is Python code carries its command-line text instead
#: (``PolarsFairError.cli_message``, printed by :func:`polars_fair.cli.entry.error_message`).
_PY_TEXT = r"(?:'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*")'


def _command_words() -> str:
    """``polars-fair COMMAND`` for the command running (``polars-fair`` outside one)."""
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    name = ctx.info_name if ctx is not None else None
    return f"polars-fair {name}" if name and name != "polars-fair" else "polars-fair"


def _names(listed: str) -> str:
    """``'race', 'sex'`` (a Python list's items) as the command line writes names: race, sex."""
    return ", ".join(re.sub(r"^'(.*)'$|^\"(.*)\"$", r"\1\2", v.strip())
                     for v in listed.split(",") if v.strip())


def _classes_word(listed: str) -> str:
    """A Python list of classes (``['a,b', 'c']``) as ``--classes`` takes it (``'"a,b",c'``)."""
    try:
        values = ast.literal_eval(listed)
    except (ValueError, SyntaxError):  # not literals: the items as they are written
        return _names(listed[1:-1]).replace(", ", ",")
    return E.cli_classes(list(values), "")


def _item_value(value_repr: str) -> str:
    """A value of ``--benchmark`` as typed: text as it is (double-quoted if it holds , = :)."""
    try:
        value = ast.literal_eval(value_repr)
    except (ValueError, SyntaxError):  # pragma: no cover - the pattern only matches literals
        return value_repr
    text = str(value)
    return '"' + text.replace('"', '""') + '"' if re.search(r'[,=:"]', text) else text


def _item_word(flag: str, name_repr: str, rest: str) -> str:
    """``--bins s=...``: a ``name=value`` item of ``flag``, written as the command line reads it.

    The name (a Python ``repr``) is double-quoted when it holds ``,``, ``=``, ``:`` or ``"``
    (:mod:`polars_fair.cli.quoting`), and the word single-quoted for the shell unless the name
    is letters and digits that name no flag.
    """
    name = ast.literal_eval(name_repr)
    shown = '"' + name.replace('"', '""') + '"' if re.search(r'[,=:"]', name) else name
    word = f"{shown}={rest}"
    plain = (re.fullmatch(r"[A-Za-z0-9]+", name) is not None and name not in FLAGS
             and re.fullmatch(r"[\w@%+=:,./-]*", rest) is not None)  # no word the shell splits
    return f"{flag} {word}" if plain else f"{flag} " + "'" + word.replace("'", "'\"'\"'") + "'"


_PYTHON_ADVICE = (
    # a number of bins above its limit: both numbers as --bins reads them (1,000 would be two
    # edges), and the largest accepted as the advice
    (re.compile(rf"(?<![\w-])bins\[({_PY_TEXT})\]=([\d,]+) is more than its limit ([\d,]+) "
                rf"\(([^()]*(?:\([^()]*\))?[^()]*)\); pass a smaller bins\[{_PY_TEXT}\]"),
     lambda m: (_item_word("--bins", m.group(1), m.group(2).replace(",", ""))
                + f" is more than its limit {m.group(3).replace(',', '')} ({m.group(4)}); pass "
                + _item_word("--bins", m.group(1), m.group(3).replace(",", ""))
                + " or fewer")),
    # any other option above its limit (OPTION_TOO_LARGE), a one-word one too (demo's n): its
    # flag, and the largest value accepted as the advice
    (re.compile(r"(?<![\w\-\[])([a-z]\w*)=([\d,.]+) is more than its limit ([\d,]+) "
                r"\(([^()]*(?:\([^()]*\))?[^()]*)\); pass a smaller \1(?!\w)"),
     lambda m: (f"{_flag(m.group(1))} {m.group(2).replace(',', '')} is more than its limit "
                f"{m.group(3).replace(',', '')} ({m.group(4)}); pass {_flag(m.group(1))} "
                f"{m.group(3).replace(',', '')} or less")),
    # an item of a mapping option, bins['s'] / benchmark['g']['a']: the flag's own item syntax
    (re.compile(rf"(?<![\w-])bins\[({_PY_TEXT})\] \(edges\)=([\d,]+)"),
     lambda m: _item_word("--bins", m.group(1), "E1,E2,...") + f" ({m.group(2)} edges)"),
    (re.compile(rf"(?<![\w-])bins\[({_PY_TEXT})\] \(edges\)"),
     lambda m: _item_word("--bins", m.group(1), "E1,E2,...")),
    (re.compile(rf"(?<![\w-])bins\[({_PY_TEXT})\]=([\d,.]+)"),
     lambda m: _item_word("--bins", m.group(1), m.group(2).replace(",", ""))),
    (re.compile(rf"(?<![\w-])bins\[({_PY_TEXT})\]"),
     lambda m: _item_word("--bins", m.group(1), "...")),
    (re.compile(rf"(?<![\w-])benchmark\[({_PY_TEXT})\]\[({_PY_TEXT})\]"),
     lambda m: _item_word("--benchmark", m.group(1),
                          _item_value(m.group(2)) + ":...")),
    (re.compile(rf"(?<![\w-])benchmark\[({_PY_TEXT})\]"),
     lambda m: _item_word("--benchmark", m.group(1), "VALUE:SHARE,...")),
    # a membership attribute renamed: the groups and columns as the command was given them
    (re.compile(rf"(?<![\w-])membership=\{{({_PY_TEXT}): membership\[({_PY_TEXT})\]\}}"),
     lambda m: _item_word("--membership", m.group(1), _MEMBERSHIP_SPECS.get(
         ast.literal_eval(m.group(2)), "G1:C1,G2:C2,..."))),
    # a number option arrives as the Decimal of its text (cli.numbers): shown as typed
    (re.compile(r"(?:np\.)?Decimal\('([^']*)'\)"), r"\1"),
    (re.compile(rf"bins=\{{({_PY_TEXT}): \[edges\]\}}"),
     lambda m: _item_word("--bins", m.group(1), "E1,E2,...")),
    # a reference over several attributes is attr=value,attr=value on the command line
    (re.compile(r"a mapping \{attribute: value\}"), "attr=value,attr=value"),
    (re.compile(rf"bins=\{{({_PY_TEXT}): ([^{{}}]*)\}}"),
     lambda m: _item_word("--bins", m.group(1), m.group(2))),
    # classes=['Low', 'High'] -> --classes Low,High (a list flag is comma-separated, an item
    # holding a comma in double quotes: the list read back as Python, then written as flags)
    (re.compile(r"(?<![\w-])classes=(\[(?:[^\]'\"]|{_PY_TEXT})*\])".replace("{_PY_TEXT}",
                                                                         _PY_TEXT)),
     lambda m: "--classes " + _classes_word(m.group(1))),
    # a key renamed in Python (pl.col('n').alias('n' + '_attr')) is SQL named by AS on the
    # command line, which names the key (cli.io.column_or_sql): --by '"n" AS n_attr'
    (re.compile(r"(?:by=)?pl\.col\(('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\)\.alias\("
                r"(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") \+ '_attr'\)"),
     lambda m: _renamed_sql(ast.literal_eval(m.group(1)))),
    # an expression named like an output column: the SQL --by renamed by its AS
    (re.compile(r"by=<the expression>\.alias\('((?:[^'\\]|\\.)*)_attr'\)"),
     lambda m: _renamed_sql(ast.literal_eval(f"'{m.group(1)}'"))),
    # the benchmark shares as --benchmark takes them (COLUMN=V1:X1,...), none given: none
    (re.compile(r"benchmark=\{attribute: \{value: share\}\}(.*?); got None"),
     lambda m: f"--benchmark COLUMN=V1:X1,V2:X2,...{m.group(1)}; none given"),
    (re.compile(r"benchmark=\{attribute: \{value: share\}\}"),
     "--benchmark COLUMN=V1:X1,V2:X2,..."),
    # a Python function named as the analysis: the command that runs it
    (re.compile(r"(output columns?(?:\(s\))? of )(?:polars_fair\b|[a-z]+(?:_[a-z]+)+\b)"),
     lambda m: m.group(1) + _command_words()),
    (re.compile(r"^[a-z]+(?:_[a-z]+)+(?= reports one attribute set)"),
     lambda m: _command_words()),
    # a reference over several attributes names each of them: attr=value,attr=value
    (re.compile(r"reference mapping must name exactly the attributes \[([^\]]*)\], got "
                r"\[([^\]]*)\]"),
     lambda m: "--reference must name each --by attribute once (attr=value,attr=value): "
               f"{_names(m.group(1))}; got {_names(m.group(2)) or 'none'}"),
    (re.compile(r"(?<![\w-])ordered=True\b"), "--ordered"),  # a switch, not a value
    (re.compile(r"(?<![\w-])normalize=True\b"), "--normalize"),  # a switch, not a value
)
_SCORE_ADVICE = re.compile(
    r"Pass it as --y-score=?\s*('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") "
    r"with a (?:threshold=|--threshold ).*$")


#: The patterns of :func:`cli_message`: a parameter name (a Python identifier, so one word) in
#: each place it reads as a flag, and which names it applies to (``multi``: with an underscore,
#: unless a column of the input is so named; ``role``: with an underscore, as the subject of
#: the sentence; ``single``: without). A word that is no parameter name (:data:`FLAGS`) is left
#: as it is, so the patterns need no list of names and compile once (a list of every flag,
#: compiled anew as commands add theirs, took a tenth of the command line's import).
_FLAG_PATTERNS = tuple((re.compile(regex), template, names) for regex, template, names in (
    # a parameter as the subject, even when a column shares its name ("y_true column 'x'",
    # "y_score must lie in [0, 1]"): the role, so its flag
    (r"(?<![\w-])(\w+)(?= column (?:['\"]|$))", "{}", "role"),  # $: a quoted part follows
    (r"(?<![\w-])(\w+)(?= must )", "{}", "role"),
    # the argument whose values failed to convert, leading the message ("y_pred: 2 of 4,000
    # values of column ..."), even when a column shares its name
    (r"^(\w+)(?=: [\d,]+ of [\d,]+ values of column )", "{}", "all"),
    # an option named without a value: "y_score=, which" -> "--y-score, which"
    (r"(?<![\w-])(\w+)=(?=[\s,;.)\]])", "{}", "all"),
    (r"(?<![\w-])(\w+)=", "{} ", "all"),  # pos_label=1 -> --pos-label 1
    (r"\((\w+)\)", "({})", "all"),  # (y_pred) -> (--y-pred)
    (r"(?<![\w-])(\w+)(?!\w)", "{}", "multi"),  # min_support -> --min-support
    # a one-word option as the subject of a rule: "level must lie in (0, 1)"
    (r"(?<![\w-])(\w+)(?= must )", "{}", "single"),
    (r"^(\w+)(?= names )", "{}", "single"),  # "bins names 'age', which is not ..."
    # a one-word option and its value as the subject: "threshold 1E-400 is outside ..."
    (r"^(\w+)(?= \S+ (?:is|has) )", "{}", "single"),
))


#: The running command's own one-word options (``demo --n``) that :data:`FLAGS` does not hold:
#: read as flags in that command's messages only (:func:`note_command_flags`), since a one-word
#: name is an English word in every other command ("n must be the sum of the cells").
_COMMAND_FLAGS: dict[str, str] = {}


def note_command_flags(params: Sequence[Any] | None = None) -> None:
    """Take the running command's one-word options as flags of its messages (``n`` -> ``--n``).

    Called as each command starts; the previous command's are forgotten. So
    ``polars-fair demo --n 0`` says ``--n must be an integer >= 1``.

    Parameters
    ----------
    params : sequence of click parameters, optional
        The command's parameters; by default those of the command running (Typer's click
        context), none outside one.

    Examples
    --------
    >>> import click
    >>> note_command_flags([click.Option(["--n"], type=int)])
    >>> cli_message("n must be an integer >= 1, got 0")
    '--n must be an integer >= 1, got 0'
    >>> note_command_flags([])
    >>> cli_message("n must be an integer >= 1, got 0")
    'n must be an integer >= 1, got 0'
    """
    if params is None:
        from typer._click.globals import get_current_context

        ctx = get_current_context(silent=True)
        params = [] if ctx is None else ctx.command.params
    _COMMAND_FLAGS.clear()
    for p in params:
        longs = [o for o in getattr(p, "opts", ()) if o.startswith("--")]
        if getattr(p, "param_type_name", None) == "option" and p.name and "_" not in p.name \
                and longs and p.name not in FLAGS:
            _COMMAND_FLAGS[p.name] = longs[0]


def _flag(name: str) -> str:
    """The flag of a parameter: its declared one (:data:`FLAGS`), else ``--`` and its words."""
    return FLAGS.get(name, "--" + name.replace("_", "-"))


def _as_flag(m: re.Match[str], template: str, names: str) -> str:
    """The match written with its parameter's flag, or as it is (a word that names none)."""
    name = m.group(1)
    flag = FLAGS.get(name, _COMMAND_FLAGS.get(name))
    if flag is None or (names in ("multi", "role") and "_" not in name) or (
            names == "single" and "_" in name):
        return m.group(0)
    if names == "multi" and name in _INPUT_COLUMNS:  # a bare word that is a column: a column
        return m.group(0)
    return template.format(flag)


def cli_message(message: str) -> str:
    """A library message with its parameter names written as the command line's flags.

    ``pos_label=1`` reads ``--pos-label 1``, ``(y_pred)`` reads ``(--y-pred)``, ``min_support``
    reads ``--min-support``, ``level must`` reads ``--level must`` (:data:`FLAGS`); quoted
    text (column names, values) is left alone.
    The advice to pass a score as ``y_score=`` with ``threshold=`` becomes the command line's
    ``--y-pred "SCORE >= 0.5"``. The one place where messages are translated.

    Parameters
    ----------
    message : str
        The message of a :class:`polars_fair.errors.PolarsFairError` or a warning.

    Returns
    -------
    str

    Examples
    --------
    >>> import polars_fair.cli.entry  # the commands register their flags (--threshold) as read
    >>> cli_message("column 'pos_label' (y_pred) holds nulls; pos_label=1, min_support >= 0")
    "column 'pos_label' (--y-pred) holds nulls; --pos-label 1, --min-support >= 0"
    >>> cli_message("pass bins={'age': 5} or bins={'age': [edges]}")
    'pass --bins age=5 or --bins age=E1,E2,...'
    >>> cli_message("threshold Decimal('1E-400') is outside the normal range of a Float64")
    '--threshold 1E-400 is outside the normal range of a Float64'
    >>> cli_message("ordered=True needs classes=['Low', 'High']")
    '--ordered needs --classes Low,High'
    """
    for sql in _TEXT_SQL:  # --bins bins columns only: no bins advice for a SQL key
        message = message.replace(E.CLI_BINS_ADVICE.format(column=sql), "")
    for pattern, template in _PYTHON_ADVICE:  # Python syntax in advice: the flags instead
        message = pattern.sub(template, message)
    for name in _NAMED_SQL:  # advice written for a column, of a key a SQL AS named
        message = message.replace("--by " + sql_rename_example(name), _renamed_sql(name))
    for sql in _TEXT_SQL:  # a SQL key as an identifier in shell advice: the SQL itself
        quoted = E.shell_escaped('"' + sql.replace('"', '""') + '"')
        message = message.replace(quoted, E.shell_escaped(f"({sql})"))
    parts = _QUOTED.split(message)
    for i in range(0, len(parts), 2):  # outside quotes
        text = parts[i]
        for pattern, template, names in _FLAG_PATTERNS:
            text = pattern.sub(lambda m, t=template, n=names: _as_flag(m, t, n), text)
        parts[i] = re.sub(r"(?<=\S)  +", " ", text)
    out = "".join(parts).rstrip()  # "... to use y_pred=" ends without a value
    m = _SCORE_ADVICE.search(out)
    if m:
        import ast

        column = ast.literal_eval(m.group(1))
        out = out[:m.start()] + E.CLI_SCORE_ADVICE.format(column=column)
    if _REFERENCE_NOT_AUDITED and out.startswith("--reference ") and " names no group" in out:
        held, audited = _REFERENCE_NOT_AUDITED[0]  # --reference 'g=a,zz=b': zz is not audited
        out += E.CLI_REFERENCE_NOT_AUDITED.format(
            names=", ".join(map(repr, held)), attributes=", ".join(map(repr, audited)))
    return _attribute_flags(out)


#: The words of a value typer cannot parse (pydantic's error type), as polars_fair writes them.
@dataclass(frozen=True)
class Inputs:
    """Command-line arguments resolved against a frame's schema (:func:`resolve_inputs`).

    Parameters
    ----------
    lf : pl.LazyFrame
        The data after ``--where``.
    by : list of str or pl.Expr
        The attributes.
    y_true, y_pred, y_score : str or pl.Expr
        The label, prediction and score columns (``y_pred``/``y_score`` may be ``None``).
    pos_label : Any
        The positive value, of the label's dtype.
    reference : polars_fair.core.reference.Reference
        :func:`parse_reference`'s value, resolved once
        (:meth:`polars_fair.core.reference.Reference.parse`); every command passes it on as it is.

    Examples
    --------
    >>> import polars as pl
    >>> args = resolve_inputs(pl.LazyFrame({"g": ["a"], "y": [1], "p": [0]}), ["g"],
    ...                       y_true_text="y", y_pred_text="p", y_score_text=None,
    ...                       pos_label_text=None, reference_text=None, where=None)
    >>> args.by, args.pos_label, args.reference.argument
    (['g'], 1, 'largest')
    """

    lf: pl.LazyFrame  # after --where
    by: list[str | pl.Expr]
    y_true: str | pl.Expr
    y_pred: str | pl.Expr | None
    y_score: str | pl.Expr | None
    pos_label: Any
    reference: Reference


def resolve_inputs(
    lf: pl.LazyFrame,
    by_text: list[str],
    *,
    y_true_text: str,
    y_pred_text: str | None,
    y_score_text: str | None,
    pos_label_text: str | None,
    reference_text: str | None,
    where: str | None,
    source: str = "the input",
    membership: Mapping[str, Mapping[Any, Any]] | None = None,
) -> Inputs:
    """Parse the columns/SQL of the command line against ``lf`` (filtered by ``where``).

    Every SQL text goes through :func:`polars_fair.core.sql.sql_expr` (the input's columns only,
    one value per row) before Polars parses it.

    Parameters
    ----------
    lf : pl.LazyFrame
        The scanned file.
    by_text : list of str
        ``--by``: column names or SQL expressions.
    y_true_text : str
        ``--y-true``.
    y_pred_text, y_score_text : str or None
        ``--y-pred``, ``--y-score``.
    pos_label_text : str or None
        ``--pos-label``; default 1 in the label's dtype (``true`` for a boolean label, the
        text ``'1'`` for a text label).
    reference_text : str or None
        ``--reference`` (:func:`parse_reference`).
    where : str or None
        ``--where``: a SQL filter applied first.
    source : str, default "the input"
        The file's name, for the message of an empty input.
    membership : mapping, optional
        ``--membership`` as converted (``{attribute: {group: column}}``): its attribute is a
        key before the ``--by`` ones, so ``--reference`` names its groups (a bare value with
        no ``--by``, else ``attr=value,...``), read in the type of the group values.

    Returns
    -------
    Inputs
        The parsed arguments.

    Raises
    ------
    EmptyFrameError
        The input holds no row (:func:`check_rows`).
    ColumnNotFoundError
        A name that is neither a column nor in a SQL expression over the columns.
    SQLRefusedError, NotRowLevelError
        SQL that reads outside the rows, cannot be parsed, or is not row-level.
    InvalidArgumentError
        A value that does not fit its column's dtype; a ``--by`` that names the
        ``--membership`` attribute (no column).

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"g": ["a", "b"], "y": [True, False], "s": [0.2, 0.9]})
    >>> args = resolve_inputs(lf, ["g"], y_true_text="y", y_pred_text="s >= 0.5",
    ...                       y_score_text="s", pos_label_text=None, reference_text="b",
    ...                       where="s > 0.1")
    >>> args.pos_label, args.reference.argument, args.y_pred.meta.output_name()
    (True, 'b', 's >= 0.5')
    """
    unfiltered, schema = lf, lf.collect_schema()
    member = next(iter(membership or {}), None)
    for b in by_text:  # the attribute of --membership: a key of its own, never a column
        if b == member and b not in schema:
            raise E.InvalidArgumentError(E.CLI_BY_IS_MEMBERSHIP.format(name=E.shell_word(b)))
    condition: str | pl.Expr | None = None
    if where:
        condition = where_condition(lf, where)
        lf = lf.filter(condition)
    for b in by_text:
        check_one_attribute(b, schema)
    by = [column_or_sql(b, schema, "--by") for b in by_text]
    y_true = column_or_sql(y_true_text, schema, "--y-true")
    y_pred = column_or_sql(y_pred_text, schema, "--y-pred") if y_pred_text is not None else None
    y_score = (column_or_sql(y_score_text, schema, "--y-score")
               if y_score_text is not None else None)
    check_rows(unfiltered, source)  # a header-only CSV: empty, not a dtype problem
    check_on_rows(unfiltered, {
        "--where": (where or "", condition),
        **{f"--by#{i}": (text, b) for i, (text, b) in enumerate(zip(by_text, by, strict=True))},
        "--y-true": (y_true_text, y_true), "--y-pred": (y_pred_text or "", y_pred),
        "--y-score": (y_score_text or "", y_score),
    })
    y_dtype = _dtype(lf, y_true, "--y-true")
    if pos_label_text is None and y_dtype == pl.Boolean:
        pos_label: Any = True
    else:  # the default 1 in the label's dtype: 1, 1.0 or the text '1'
        pos_label = parse_value(pos_label_text or "1", y_dtype, "--pos-label")
        if isinstance(pos_label, decimal.Decimal):  # compared with a Decimal column as a number
            pos_label = int(pos_label) if pos_label == pos_label.to_integral_value() \
                else float(pos_label)
    keyed, keys = lf, list(by)
    if membership:  # the attribute's groups are values of the type they are written in
        attribute, groups = next(iter(membership.items()))
        dtype = pl.Series(list(groups), strict=False).dtype
        keyed, keys = lf.with_columns(pl.lit(None, dtype=dtype).alias(attribute)), [
            attribute, *by]
    reference = Reference.parse(parse_reference(reference_text, keyed, keys))
    note_group_keys([k if isinstance(k, str) else k.meta.output_name() for k in keys])
    return Inputs(lf, by, y_true, y_pred, y_score, pos_label, reference)
