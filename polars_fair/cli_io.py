"""The command line's text in and out: arguments parsed against the data, results written.

:func:`resolve_inputs` turns the text of ``--by``, ``--y-true``, ``--y-pred``, ``--y-score``,
``--pos-label``, ``--reference`` and ``--where`` into columns, Polars expressions and values of
the right dtype (:class:`Inputs`), checked against the scanned file's schema (:func:`scan`);
:func:`emit` writes a result as a table, CSV, JSON or Parquet. The commands of
:mod:`polars_fair.cli` are built on these; nothing here computes an audit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import typer

from polars_fair import errors as E

__all__ = [
    "FORMATS",
    "SUFFIX_FORMATS",
    "Inputs",
    "column_or_sql",
    "effective_format",
    "emit",
    "parse_reference",
    "parse_value",
    "resolve_inputs",
    "scan",
]

#: The output formats of ``--format``.
FORMATS = ("table", "csv", "json", "parquet")


def scan(path: Path) -> pl.LazyFrame:
    """Scan a CSV, Parquet or NDJSON file lazily, by its suffix.

    Parameters
    ----------
    path : pathlib.Path
        ``.csv``, ``.tsv``, ``.txt``, ``.parquet``, ``.pq``, ``.ndjson`` or ``.jsonl``.

    Returns
    -------
    pl.LazyFrame
        The file, not read yet.

    Raises
    ------
    InvalidArgumentError
        The file does not exist, or its suffix names no known format.

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
    if suffix in (".parquet", ".pq"):
        return pl.scan_parquet(path)
    if suffix in (".ndjson", ".jsonl"):
        return pl.scan_ndjson(path)
    if suffix in (".csv", ".tsv", ".txt"):
        return pl.scan_csv(path, separator="\t" if suffix == ".tsv" else ",")
    raise E.InvalidArgumentError(
        f"cannot tell the format of {path.name!r}: use .csv, .tsv, .parquet or .ndjson"
    )


def column_or_sql(text: str, schema: pl.Schema) -> str | pl.Expr:
    """A column name as is; anything else parsed as a SQL expression named by its text.

    Parameters
    ----------
    text : str
        A column name or a SQL expression (``score_text <> 'Low'``).
    schema : pl.Schema
        The data's schema.

    Returns
    -------
    str or pl.Expr
        The name, or the expression aliased to ``text``.

    Raises
    ------
    ColumnNotFoundError
        ``text`` is neither a column nor valid SQL; the message lists the columns.

    Examples
    --------
    >>> import polars as pl
    >>> schema = pl.Schema({"score": pl.Float64})
    >>> column_or_sql("score", schema), column_or_sql("score >= 0.5", schema).meta.output_name()
    ('score', 'score >= 0.5')
    """
    if text in schema:
        return text
    try:
        return pl.sql_expr(text).alias(text)
    except Exception as exc:  # polars raises several types for bad SQL
        raise E.ColumnNotFoundError(
            f"{text!r} is neither a column nor a SQL expression ({exc}); the frame has columns: "
            f"{E.show_columns(schema.names())}"
        ) from exc


def parse_value(text: str, dtype: pl.DataType) -> Any:
    """Turn a command-line value into the dtype of the column it is compared with.

    Parameters
    ----------
    text : str
        The value as typed.
    dtype : pl.DataType
        The column's dtype: Boolean (``true/1/yes``, ``false/0/no``), an integer, a float, or
        anything else (kept as text).

    Returns
    -------
    Any
        ``bool``, ``int``, ``float`` or ``str``.

    Raises
    ------
    InvalidArgumentError
        The text does not fit the dtype.

    Examples
    --------
    >>> import polars as pl
    >>> parse_value("yes", pl.Boolean), parse_value("3", pl.Int64), parse_value("x", pl.String)
    (True, 3, 'x')
    """
    if dtype == pl.Boolean:
        low = text.strip().lower()
        if low in ("true", "1", "yes"):
            return True
        if low in ("false", "0", "no"):
            return False
        raise E.InvalidArgumentError(f"{text!r} is not a boolean value (true/false)")
    if dtype.is_integer():
        try:
            return int(text)
        except ValueError:
            raise E.InvalidArgumentError(
                f"{text!r} is not an integer, as dtype {dtype} needs") from None
    if dtype.is_float():
        try:
            return float(text)
        except ValueError:
            raise E.InvalidArgumentError(
                f"{text!r} is not a number, as dtype {dtype} needs") from None
    return text


def _dtype(lf: pl.LazyFrame, expr: str | pl.Expr) -> pl.DataType:
    e = pl.col(expr) if isinstance(expr, str) else expr
    schema = lf.collect_schema()
    roots = [expr] if isinstance(expr, str) else expr.meta.root_names()
    for col in roots:
        if col not in schema:
            raise E.ColumnNotFoundError(E.MISSING_COLUMN.format(
                column=col, role="column", available=E.show_columns(schema.names())))
    return lf.select(e).collect_schema().dtypes()[0]


def parse_reference(text: str | None, lf: pl.LazyFrame, by: list[str | pl.Expr]) -> Any:
    """Parse ``--reference``: a rule, a value, or ``attr=value,attr=value``.

    The rules are ``largest``, ``overall``, ``max_selection_rate`` and ``max_auc``
    (:mod:`polars_fair.reference`); a value is converted to the dtype of its attribute.

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

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"race": ["a"], "age": [30]})
    >>> parse_reference("race=a,age=30", lf, ["race", "age"]), parse_reference("30", lf, ["age"])
    ({'race': 'a', 'age': 30}, 30)
    """
    if text is None:
        return "largest"
    if text in ("largest", "overall", "max_selection_rate", "max_auc"):
        return text
    names = [b if isinstance(b, str) else b.meta.output_name() for b in by]
    dtypes = dict(zip(names, (_dtype(lf, b) for b in by), strict=True))
    if "=" in text and text.split("=", 1)[0].strip() in dtypes:
        out: dict[str, Any] = {}
        for part in text.split(","):
            key, _, value = part.partition("=")
            key = key.strip()
            if key not in dtypes:
                raise E.InvalidArgumentError(f"--reference names {key!r}, not one of {names}")
            out[key] = parse_value(value.strip(), dtypes[key])
        return out
    if len(by) != 1:
        raise E.InvalidArgumentError(
            "with several --by attributes pass --reference as attr=value,attr=value"
        )
    return parse_value(text, dtypes[names[0]])


SUFFIX_FORMATS = {".csv": "csv", ".json": "json", ".parquet": "parquet", ".pq": "parquet"}


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

    Examples
    --------
    >>> from pathlib import Path
    >>> effective_format("table", Path("r.parquet")), effective_format("csv", Path("r.txt"))
    ('parquet', 'csv')
    """
    if output is not None and fmt == "table":
        return SUFFIX_FORMATS.get(output.suffix.lower(), "table")
    return fmt


def emit(df: pl.DataFrame, fmt: str, output: Path | None, header: str = "") -> None:
    """Write ``df`` in the chosen format to ``output`` or stdout.

    With ``--output`` and the default format, the format follows the file's suffix
    (``.csv``, ``.json``, ``.parquet``); a table goes to any other suffix.

    Parameters
    ----------
    df : pl.DataFrame
        The result.
    fmt : str
        One of :data:`FORMATS`.
    output : pathlib.Path or None
        The file to write; stdout when ``None`` (not for parquet).
    header : str, default ""
        Lines printed above a table.

    Raises
    ------
    InvalidArgumentError
        An unknown format, or parquet without ``output``.

    Examples
    --------
    >>> import polars as pl
    >>> emit(pl.DataFrame({"g": ["a"], "n": [3]}), "csv", None)
    g,n
    a,3
    <BLANKLINE>
    """
    fmt = effective_format(fmt, output)
    if fmt not in FORMATS:
        raise E.InvalidArgumentError(f"--format must be one of {FORMATS}, got {fmt!r}")
    if fmt == "parquet":
        if output is None:
            raise E.InvalidArgumentError("--format parquet needs --output FILE")
        df.write_parquet(output)
        return
    if fmt == "csv":
        text = df.write_csv()
    elif fmt == "json":
        text = df.write_json()
    else:
        with pl.Config(
            tbl_rows=-1, tbl_cols=-1, tbl_width_chars=10_000, fmt_str_lengths=60,
            float_precision=4, tbl_hide_dataframe_shape=True,
        ):
            text = (header + "\n" if header else "") + str(df)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text if text.endswith("\n") else text + "\n")


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
    reference : Any
        As :func:`parse_reference` returns it.

    Examples
    --------
    >>> import polars as pl
    >>> args = resolve_inputs(pl.LazyFrame({"g": ["a"], "y": [1], "p": [0]}), ["g"],
    ...                       y_true_text="y", y_pred_text="p", y_score_text=None,
    ...                       pos_label_text=None, reference_text=None, where=None)
    >>> args.by, args.pos_label, args.reference
    (['g'], 1, 'largest')
    """

    lf: pl.LazyFrame  # after --where
    by: list[str | pl.Expr]
    y_true: str | pl.Expr
    y_pred: str | pl.Expr | None
    y_score: str | pl.Expr | None
    pos_label: Any
    reference: Any


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
) -> Inputs:
    """Parse the columns/SQL of the command line against ``lf`` (filtered by ``where``).

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
        ``--pos-label``; default 1 (``true`` for a boolean label).
    reference_text : str or None
        ``--reference`` (:func:`parse_reference`).
    where : str or None
        ``--where``: a SQL filter applied first.

    Returns
    -------
    Inputs
        The parsed arguments.

    Raises
    ------
    ColumnNotFoundError
        A name that is neither a column nor a SQL expression, or a filter on a missing column.
    InvalidArgumentError
        A value that does not fit its column's dtype.

    Examples
    --------
    >>> import polars as pl
    >>> lf = pl.LazyFrame({"g": ["a", "b"], "y": [True, False], "s": [0.2, 0.9]})
    >>> args = resolve_inputs(lf, ["g"], y_true_text="y", y_pred_text="s >= 0.5",
    ...                       y_score_text="s", pos_label_text=None, reference_text="b",
    ...                       where="s > 0.1")
    >>> args.pos_label, args.reference, args.y_pred.meta.output_name()
    (True, 'b', 's >= 0.5')
    """
    if where:
        condition = pl.sql_expr(where)
        _dtype(lf, condition)  # names a missing column cleanly
        lf = lf.filter(condition)
    schema = lf.collect_schema()
    by = [column_or_sql(b, schema) for b in by_text]
    y_true = column_or_sql(y_true_text, schema)
    y_pred = column_or_sql(y_pred_text, schema) if y_pred_text is not None else None
    y_score = column_or_sql(y_score_text, schema) if y_score_text is not None else None
    y_dtype = _dtype(lf, y_true)
    if pos_label_text is None:
        pos_label: Any = True if y_dtype == pl.Boolean else 1
    else:
        pos_label = parse_value(pos_label_text, y_dtype)
    reference = parse_reference(reference_text, lf, by)
    return Inputs(lf, by, y_true, y_pred, y_score, pos_label, reference)
