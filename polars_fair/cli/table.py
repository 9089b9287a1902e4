"""The command line's tables: columns that fit a terminal, Markdown pipe tables.

:func:`select_columns` chooses the columns a command writes (``--columns``, or as many as fit
a 120-character terminal in ``--format table``) and :func:`to_markdown` writes a result as a
pipe table (``--format markdown``) for pull requests and model cards;
:func:`polars_fair.cli.io.emit` writes with them.
"""

from __future__ import annotations

import textwrap
from collections.abc import Collection
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.audit.escape import csv_safe, markdown_cell
from polars_fair.cli.quoting import split_items, unquote
from polars_fair.core.labels import MISSING_GROUP, list_text, visible

__all__ = ["EXPORT_HELP", "LOW_PRIORITY", "TABLE_WIDTH", "select_columns", "to_csv", "to_markdown"]

#: What ``--format`` says of the exports that could run (:func:`to_csv`, :func:`to_markdown`).
EXPORT_HELP = (
    "CSV puts a ' before a text cell that starts with =, +, -, @, a tab or a carriage return "
    "(no formula runs in a spreadsheet) and writes NUL and invisible characters as escapes; "
    "Markdown escapes | < > and its marks."
)
#: The width ``--format table`` fits by default (:func:`select_columns`).
TABLE_WIDTH = 120
#: Parts of column names a table leaves out first to fit (the inputs of a figure).
LOW_PRIORITY = ("numerator", "denominator", "ci_low", "ci_high", "null_", "undefined_reason",
                "n_permutations", "is_reference", "reference_")


#: How the text table and Markdown write a missing group value, as every other way out does.
MISSING = MISSING_GROUP
#: Texts that would read as a missing value (or a quoted one) and are quoted instead.
_READS_MISSING = ("null", MISSING_GROUP)


def _group_like(dtype: pl.DataType) -> bool:
    """A text column (String, Categorical, Enum): where a group value can be missing or text."""
    return dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum))


def group_cell(value: Any) -> str:
    r"""A text cell of the text table or Markdown: a missing value and every text kept apart.

    A missing value reads :data:`MISSING` (``(missing)``, the spelling of every other way
    out); a text that would read as it, or as Polars' ``null``, or that starts with ``"``, is
    written in double quotes with ``\`` and ``"`` escaped (the rule of
    :func:`polars_fair.core.labels.text_of`); then control characters are escaped
    (:func:`polars_fair.core.labels.visible`).

    Parameters
    ----------
    value : Any
        The cell (``None``: missing).

    Returns
    -------
    str
        The cell as the table prints it.

    Examples
    --------
    >>> group_cell(None), group_cell("null"), group_cell("(missing)"), group_cell("a")
    ('(missing)', '"null"', '"(missing)"', 'a')
    """
    return visible(_group_text(value))


def _group_text(value: Any) -> str:
    """:func:`group_cell` before its control characters are escaped (Markdown escapes them)."""
    if value is None:
        return MISSING
    text = str(value)
    if text in _READS_MISSING or text.startswith('"'):
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def group_columns(df: pl.DataFrame, keys: Collection[str]) -> list[str]:
    """The columns of ``df`` that hold group values: the keys, and a pair's ``<key>_i``/``_j``.

    Parameters
    ----------
    df : pl.DataFrame
        A result.
    keys : collection of str
        The attributes of the command (``--by``, by their key names).

    Returns
    -------
    list of str
        In the frame's order; only those holding a missing value or a text that reads as
        one (the others are shown as they are).

    Examples
    --------
    >>> group_columns(pl.DataFrame({"g_i": ["a"], "g_j": [None], "n_i": [1]}), ["g"])
    ['g_j']
    """
    names = {*keys, *(f"{k}{s}" for k in keys for s in ("_i", "_j"))}
    return [c for c in df.columns if c in names and _needs_group_rule(df[c])]


def _needs_group_rule(s: pl.Series) -> bool:
    """A missing value, or a text that reads as one, is in the column.

    Otherwise the column is shown as it is (its dtype, ``enum`` or ``cat``, as Polars prints it).
    """
    if s.null_count():
        return True
    if not _group_like(s.dtype):
        return False
    text = s.cast(pl.String)
    return bool((text.is_in(list(_READS_MISSING)) | text.str.starts_with('"')).any())


def _group_cells(df: pl.DataFrame, column: str) -> list[str | None]:
    """The texts of a group column, the missing value and every text apart.

    A missing value reads ``(missing)``, a text that reads as it is quoted; a key outside the
    attribute set of its row (stacked sets) stays empty.
    """
    sets = df["attributes"].to_list() if "attributes" in df.columns else None
    out: list[str | None] = []
    for i, v in enumerate(df[column].to_list()):
        if v is None and sets is not None and column not in (sets[i] or []):
            out.append(None)  # not a key of this row's set: no group at all
        else:
            out.append(_group_text(v if v is None or isinstance(v, str) else _plain(v)))
    return out


def _plain(value: Any) -> str:
    """A non-text group value as the table writes it (``true``, ``1.5``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _table_text(df: pl.DataFrame, keys: Collection[str] = ()) -> str:
    r"""The text table of a (small) result.

    Control characters in text cells are written as escapes (``\r``), so a raw carriage
    return cannot corrupt a row (:func:`polars_fair.core.labels.visible`); in a group column
    (:func:`group_columns` of ``keys``) a missing value reads ``(missing)`` and the text
    ``"null"`` is quoted (:func:`group_cell`).
    """
    groups = group_columns(df, keys)
    cells = {c: _group_cells(df, c) for c in groups}
    df = _flat(df).with_columns(pl.Series(c, v, dtype=pl.String) for c, v in cells.items())
    shown = {c: [None if v is None else visible(v) for v in df[c].cast(pl.String)]
             for c, t in df.schema.items() if _group_like(t)}
    df = df.with_columns(  # a list cell is written once, by list_text: its controls escaped
        pl.Series(c, v, dtype=pl.String) for c, v in shown.items()
        # an Enum or Categorical keeps its dtype on show unless a value is escaped
        if df.schema[c] == pl.String or v != df[c].cast(pl.String).to_list())
    with pl.Config(
        tbl_rows=-1, tbl_cols=-1, tbl_width_chars=10_000, fmt_str_lengths=60,
        float_precision=4, tbl_hide_dataframe_shape=True,
    ):
        return str(df)


def _flat(df: pl.DataFrame) -> pl.DataFrame:
    """Lists joined as ``a, b``, structs as JSON objects (nulls kept), for CSV, text, Markdown.

    A list element holding ``", "`` or starting with ``"`` is quoted
    (:func:`polars_fair.core.labels.list_text`). CSV and text tables hold neither a list
    (``attributes``) nor a struct (``worst_group_keys``).
    """
    nested = [c for c, t in df.schema.items() if isinstance(t, (pl.List, pl.Array))]
    structs = [c for c, t in df.schema.items() if isinstance(t, pl.Struct)]
    if not nested and not structs:
        return df
    return df.with_columns(
        *(pl.Series(c, [None if v is None else list_text(v) for v in
                        df[c].cast(pl.List(pl.String)).to_list()], dtype=pl.String)
          for c in nested),
        *(pl.col(c).struct.json_encode() for c in structs))


def to_csv(df: pl.DataFrame) -> str:
    r"""CSV text that a spreadsheet opens without running anything (``--format csv``).

    Lists are written as ``a, b`` (an element holding ``", "`` or starting with ``"`` in
    double quotes: :func:`polars_fair.core.labels.list_text`), structs as JSON objects; a text
    cell or column name that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
    gets a ``'`` in front (OWASP's CSV injection; :func:`polars_fair.audit.escape.csv_safe`).
    Numeric columns are written as they are.

    Parameters
    ----------
    df : pl.DataFrame
        The result.

    Returns
    -------
    str
        The CSV text, with a header row.

    Examples
    --------
    >>> import polars as pl
    >>> print(to_csv(pl.DataFrame({"g": ["@SUM(1+1)", "a"], "d": [-0.5, 1.0]})), end="")
    g,d
    '@SUM(1+1),-0.5
    a,1.0
    """
    return csv_safe(_flat(df)).write_csv()


@borrow(to_csv, params=("df",))
def to_markdown(df: pl.DataFrame, keys: Collection[str] = ()) -> str:
    r"""A pipe table (GitHub-flavoured Markdown) for pull requests and model cards.

    Floats are written with 4 decimals, null as ``null``, lists as ``a, b``. Text cells and
    column names are escaped (:func:`polars_fair.audit.escape.markdown_cell`): ``|`` and
    Markdown's marks with a backslash, ``<``, ``>`` and ``&`` as HTML entities, line breaks as
    spaces, so no value breaks the table or injects HTML. In a group column (``keys``) a
    missing value reads ``(missing)`` and the texts ``null`` and ``(missing)`` are quoted.

    Parameters
    ----------
    keys : collection of str, default ()
        The attributes (:func:`group_columns`).

    Returns
    -------
    str
        A header row, a separator row (numbers right-aligned) and one row per row of ``df``.

    Examples
    --------
    >>> import polars as pl
    >>> print(to_markdown(pl.DataFrame({"g": ["a|b", None], "rate": [0.5, 1 / 3]}), ["g"]),
    ...       end="")
    | g | rate |
    | --- | ---: |
    | a\|b | 0.5000 |
    | (missing) | 0.3333 |
    """
    groups = group_columns(df, keys)
    cells = {c: _group_cells(df, c) for c in groups}  # a missing group, the text "null": apart
    flat = _flat(df).with_columns(pl.Series(c, v, dtype=pl.String) for c, v in cells.items())

    def cell(value: Any) -> str:
        if value is None:
            return "null"
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, float):
            return f"{value:.4f}"
        return markdown_cell(value)

    align = ["---:" if t.is_numeric() else "---" for t in flat.dtypes]
    lines = ["| " + " | ".join(markdown_cell(c) for c in flat.columns) + " |",
             "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in flat.iter_rows()]
    return "\n".join(lines) + "\n"


def select_columns(df: pl.DataFrame, columns: str | None, fmt: str,
                   header: str = "", width: int = TABLE_WIDTH) -> tuple[pl.DataFrame, str]:
    """The columns to write: ``--columns``, else every column (a table: as many as fit).

    Parameters
    ----------
    df : pl.DataFrame
        The result.
    columns : str or None
        ``--columns``: names, comma-separated, in the order to show.
    fmt : str
        The output format; without ``--columns`` only ``table`` drops columns to fit ``width``
        characters: first those of :data:`LOW_PRIORITY` (numerators, interval ends, ...), then
        from the right; the first column stays, and the header names the columns left out.
    header : str, default ""
        The lines above a table.
    width : int, default 120
        The width a table fits.

    Returns
    -------
    frame : pl.DataFrame
        ``df`` with the chosen columns.
    header : str
        ``header``, with a line naming the columns left out of a table.

    Raises
    ------
    InvalidArgumentError
        ``--columns`` naming a column the result does not have (the message lists them).

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({f"column_{i}": [0.5] for i in range(12)})
    >>> shown, note = select_columns(df, None, "table")
    >>> shown.width < 12, note.startswith("not shown")
    (True, True)
    >>> select_columns(df, "column_3,column_1", "csv")[0].columns
    ['column_3', 'column_1']
    """
    if columns is not None:
        names = [unquote(c.strip()) for c in split_items(columns) if c.strip()]  # QUOTING
        unknown = [c for c in names if c not in df.columns]
        if unknown or not names:
            raise E.InvalidArgumentError(E.CLI_UNKNOWN_COLUMNS.format(
                names=unknown or names, available=E.show_columns(df.columns)))
        return df.select(list(dict.fromkeys(names))), header
    if fmt != "table" or df.width <= 1:
        return df, header
    flat = _flat(df)
    # the rows that make each column widest, and the first rows: their table is as wide
    widest = flat.select(pl.col(c).cast(pl.String).str.len_chars().fill_null(4).arg_max()
                         for c in flat.columns).row(0)
    rows = sorted({*range(min(5, flat.height)), *(i for i in widest if i is not None)})

    def fits(cols: list[str]) -> bool:
        text = _table_text(df[rows].select(cols))
        return max(len(line) for line in text.splitlines()) <= width

    shown = list(df.columns)
    low = [c for c in reversed(shown) if any(w in c for w in LOW_PRIORITY)]
    rest = [c for c in reversed(shown[1:]) if c not in low]
    for drop in [*low, *rest]:
        if fits(shown):
            break
        shown.remove(drop)
    if len(shown) == df.width:
        return df, header
    hidden = [c for c in df.columns if c not in shown]
    note = textwrap.fill(
        f"not shown ({len(hidden)} column(s), to fit {width} characters): "
        f"{', '.join(hidden)}; choose with --columns, or --format csv/json/markdown",
        width=width, break_on_hyphens=False)
    return df.select(shown), (header + "\n" if header else "") + note
