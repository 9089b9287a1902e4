"""``polars-fair``: the command line (Typer).

``polars-fair report PATH --by race --by sex --y-true COL --y-pred COL`` audits a CSV, Parquet or
NDJSON file, read lazily; ``polars-fair demo`` runs the same report on built-in synthetic data.
Exit codes: 0 success, 2 bad input (a message on stderr).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer

from polars_fair import errors as E
from polars_fair import namespace as _ns  # noqa: F401  (registers .fair)
from polars_fair.datasets import make_hiring

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Fairness audits of binary classifiers on Polars: one scan, exact metrics.",
)

FORMATS = ("table", "csv", "json", "parquet")
#: The columns ``--format table`` shows unless ``--all-columns`` is given.
TABLE_COLUMNS = (
    "n", "tp", "fp", "fn", "tn", "selection_rate", "tpr", "fpr", "ppv", "disparate_impact",
    "impact_ratio", "adverse_impact", "ofi", "ofi_flag", "low_support", "finding",
)


def scan(path: Path) -> pl.LazyFrame:
    """Scan a CSV, Parquet or NDJSON file lazily, by its suffix."""
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
    """A column name as is; anything else parsed as a SQL expression named by its text."""
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
    """Turn a command-line value into the dtype of the column it is compared with."""
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
            raise E.InvalidArgumentError(f"{text!r} is not an integer, as dtype {dtype} needs")
    if dtype.is_float():
        try:
            return float(text)
        except ValueError:
            raise E.InvalidArgumentError(f"{text!r} is not a number, as dtype {dtype} needs")
    return text


def _dtype(lf: pl.LazyFrame, expr: str | pl.Expr) -> pl.DataType:
    e = pl.col(expr) if isinstance(expr, str) else expr
    return lf.select(e).collect_schema().dtypes()[0]


def parse_reference(text: str | None, lf: pl.LazyFrame, by: list[str | pl.Expr]) -> Any:
    """``largest``/``overall``/``max_selection_rate``, a value, or ``attr=value,attr=value``."""
    if text is None:
        return "largest"
    if text in ("largest", "overall", "max_selection_rate"):
        return text
    names = [b if isinstance(b, str) else b.meta.output_name() for b in by]
    dtypes = dict(zip(names, (_dtype(lf, b) for b in by)))
    if "=" in text and len(by) > 1:
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


def emit(df: pl.DataFrame, fmt: str, output: Path | None, header: str = "") -> None:
    """Write ``df`` in the chosen format to ``output`` or stdout."""
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


def run_report(
    lf: pl.LazyFrame,
    by_text: list[str],
    *,
    y_true_text: str,
    y_pred_text: str,
    pos_label_text: str | None,
    reference_text: str | None,
    min_support: int,
    where: str | None,
    fmt: str,
    output: Path | None,
    null_groups: str = "keep",
    all_columns: bool = False,
) -> None:
    """Build the report of the ``report`` and ``demo`` commands and emit it."""
    if where:
        lf = lf.filter(pl.sql_expr(where))
    schema = lf.collect_schema()
    by = [column_or_sql(b, schema) for b in by_text]
    y_true = column_or_sql(y_true_text, schema)
    y_pred = column_or_sql(y_pred_text, schema)
    y_dtype = _dtype(lf, y_true)
    if pos_label_text is None:
        pos_label: Any = True if y_dtype == pl.Boolean else 1
    else:
        pos_label = parse_value(pos_label_text, y_dtype)
    reference = parse_reference(reference_text, lf, by)
    # one scan: the count table, collected once; everything else reads it
    counts = lf.fair.confusion(
        by, y_true=y_true, y_pred=y_pred, pos_label=pos_label,
        null_groups=null_groups,  # type: ignore[arg-type]
    ).collect()
    from polars_fair.report import report_from_counts
    from polars_fair.tables import keys_of, rollup

    keys = keys_of(counts)
    report = report_from_counts(
        counts.lazy(), keys, reference=reference, min_support=min_support
    ).collect()
    overall = report_from_counts(rollup(counts.lazy(), []), [], reference="overall").collect()
    total = overall.row(0, named=True)
    header = (
        f"polars-fair report: {total['n']:,} rows, {report.height} groups by {keys}; "
        f"y_true={y_true_text!r}, y_pred={y_pred_text!r}, pos_label={pos_label!r}; "
        f"reference={reference!r}\n"
        f"overall: selection_rate={total['selection_rate']:.4f} base_rate={total['base_rate']:.4f} "
        f"tpr={_fmt(total['tpr'])} fpr={_fmt(total['fpr'])} ppv={_fmt(total['ppv'])} "
        f"accuracy={_fmt(total['accuracy'])}"
    )
    if fmt == "table" and not all_columns:
        report = report.select(*keys, *TABLE_COLUMNS)
    emit(report, fmt, output, header)


def _fmt(x: float | None) -> str:
    return "null" if x is None else f"{x:.4f}"


ByOpt = Annotated[
    list[str],
    typer.Option("--by", help="Attribute column or SQL expression; repeat for intersections."),
]


@app.command()
def report(
    path: Annotated[Path, typer.Argument(help="CSV, Parquet or NDJSON file (read lazily).")],
    by: ByOpt,
    y_true: Annotated[str, typer.Option(help="Label column or SQL expression.")] = "y_true",
    y_pred: Annotated[str, typer.Option(help="Prediction column or SQL expression.")] = "y_pred",
    pos_label: Annotated[
        str | None, typer.Option(help="Positive (favourable) value; default 1 (true if boolean).")
    ] = None,
    reference: Annotated[
        str | None,
        typer.Option(help="largest | max_selection_rate | overall | VALUE | attr=v,attr=v"),
    ] = None,
    min_support: Annotated[int, typer.Option(help="Flag groups with fewer rows.")] = 30,
    where: Annotated[str | None, typer.Option(help="SQL filter applied before the audit.")] = None,
    null_groups: Annotated[str, typer.Option(help="keep | raise | drop")] = "keep",
    format: Annotated[str, typer.Option("--format", help="table | csv | json | parquet")] = "table",
    output: Annotated[Path | None, typer.Option(help="Write to this file.")] = None,
    all_columns: Annotated[
        bool, typer.Option(help="Show every report column in --format table.")
    ] = False,
) -> None:
    """Audit a file: one row per group with counts, rates, DI, impact ratio and OFI."""
    _guard(
        lambda: run_report(
            scan(path), by, y_true_text=y_true, y_pred_text=y_pred, pos_label_text=pos_label,
            reference_text=reference, min_support=min_support, where=where, fmt=format,
            output=output, null_groups=null_groups, all_columns=all_columns,
        )
    )


@app.command()
def demo(
    n: Annotated[int, typer.Option(help="Rows of synthetic data.")] = 20_000,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    by: Annotated[list[str] | None, typer.Option("--by", help="Attributes.")] = None,
    format: Annotated[str, typer.Option("--format", help="table | csv | json | parquet")] = "table",
    output: Annotated[Path | None, typer.Option(help="Write to this file.")] = None,
) -> None:
    """Run the report on built-in synthetic hiring data (polars_fair.datasets.make_hiring)."""
    _guard(
        lambda: run_report(
            make_hiring(n, seed=seed).lazy(), by or ["race", "sex"], y_true_text="y_true",
            y_pred_text="y_pred", pos_label_text=None, reference_text=None, min_support=30,
            where=None, fmt=format, output=output,
        )
    )


def _guard(fn: Any) -> None:
    try:
        fn()
    except (E.PolarsFairError, pl.exceptions.PolarsError) as exc:
        typer.echo(f"polars-fair: error: {exc}", err=True)
        raise typer.Exit(code=2) from None


def main() -> None:
    """Entry point of the ``polars-fair`` script."""
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
