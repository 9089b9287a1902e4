"""``polars-fair``: the command line (Typer).

``polars-fair report PATH --by race --by sex --y-true COL --y-pred COL`` audits a CSV, Parquet or
NDJSON file, read lazily (``--html audit.html`` also writes the self-contained HTML audit);
``polars-fair demo`` runs the same report on built-in synthetic data; ``polars-fair check`` is
the CI gate; ``polars-fair bias-audit`` writes the NYC LL 144 summary
(:mod:`polars_fair.cli.ll144`); every other analysis of the library has a subcommand generated
from its declaration (:mod:`polars_fair.cli.commands`: ``metrics``, ``disparity``, ``abroca-test``,
...). Exit codes: 0 success (``check``: every adequately supported group passes), 1 ``check``
found violations, 2 bad input (a message on stderr).

The commands only format: their text arguments are parsed against the data by
:mod:`polars_fair.cli.io` (which also writes the outputs), and every computation is in the
library (``report``, :func:`polars_fair.audit.gate.gate`,
:func:`polars_fair.audit.html.audit_html`).

Why one module: one Typer application whose hand-written commands
(``report``, ``demo``, ``check``) share their option declarations and the one error guard every
command runs in; the parsing and writing of text live in :mod:`polars_fair.cli.io`, the
generated commands in :mod:`polars_fair.cli.commands` and the decisions in the analyses.
"""

from __future__ import annotations

import functools
import json
import textwrap
import warnings
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

import click
import polars as pl
import typer

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.api import namespace as _ns  # noqa: F401  (registers .fair)
from polars_fair.api.compare import FairPaired
from polars_fair.api.namespace import fair
from polars_fair.api.objects import FairCounts
from polars_fair.cli import commands as cli_gen
from polars_fair.cli import compare as cli_compare
from polars_fair.cli import ll144 as cli_ll144
from polars_fair.cli import membership as cli_membership
from polars_fair.cli import proxy as cli_proxy
from polars_fair.cli import sample_size as cli_sample_size
from polars_fair.cli.change import check_change, format_change
from polars_fair.cli.commands import declared
from polars_fair.cli.group import ReadableCommand, ReadableGroup
from polars_fair.cli.io import (
    BASELINE_FLAGS,
    BY_HELP,
    FLAGS,
    BaselineAliasOpt,
    Format,
    Inputs,
    check_on_rows,
    check_outputs,
    cli_message,
    column_or_sql,
    effective_format,
    emit,
    forget_sql_names,
    note_command_flags,
    one_baseline,
    parse_dtypes,
    resolve_inputs,
    scan,
    unreadable,
)
from polars_fair.cli.numbers import NUMBER_OPTION, json_number, number_text, support_number
from polars_fair.cli.pages import ModelOpt, NoteOpt, TitleOpt, page_html
from polars_fair.cli.quoting import QUOTING
from polars_fair.cli.summary import report_summary
from polars_fair.cli.table import EXPORT_HELP, TABLE_WIDTH, select_columns
from polars_fair.core.labels import cli_words, visible
from polars_fair.core.options import DEFAULTS
from polars_fair.core.reference import SUPPORT_SIZE, support_name, support_unit
from polars_fair.core.registry import METRICS, RATE_NAMES, metric
from polars_fair.core.spec import DEFAULT_MAX_GROUPS, MEMBERSHIP_ARGS, NullGroups, support_size

__all__ = ["app", "main"]

app = typer.Typer(
    cls=ReadableGroup,
    add_completion=False,
    no_args_is_help=True,
    help="Fairness audits of binary classifiers on Polars: one scan, exact metrics.",
)

#: The metric columns ``--format table`` shows by default; ``--rate`` picks any metric of the
#: registry (:data:`polars_fair.core.registry.METRICS`) instead.
TABLE_RATES = ("selection_rate", "tpr", "fpr", "ppv")
#: The columns ``--format table`` shows (unless ``--all-columns``), after the keys: the rows,
#: then the verdict's figures and the finding, then the other metrics of ``--rate``; columns
#: are left out from the right to fit :data:`polars_fair.cli.table.TABLE_WIDTH` characters.
TABLE_COUNTS = ("n",)
TABLE_FLAGS = ("impact_ratio", "ofi", "finding")


def table_rates(rates: Sequence[str] | None) -> list[str]:
    """The metric columns of ``--format table``: ``--rate``, checked against the registry.

    Parameters
    ----------
    rates : sequence of str or None
        ``--rate`` (repeated); ``None`` or empty gives :data:`TABLE_RATES`.

    Returns
    -------
    list of str
        Names of :data:`polars_fair.core.registry.METRICS`, in the order given, without repeats.

    Raises
    ------
    InvalidArgumentError
        A name that is not a metric of the registry (the message lists them).

    Examples
    --------
    >>> table_rates(None), table_rates(["fdr", "tpr", "fdr"])
    (['selection_rate', 'tpr', 'fpr', 'ppv'], ['fdr', 'tpr'])
    """
    return list(dict.fromkeys(metric(r).name for r in (rates or TABLE_RATES)))


def metric_legend(rates: Sequence[str]) -> str:
    """The lines under a table's header that define its metric columns, from the registry.

    Parameters
    ----------
    rates : sequence of str
        Names of :data:`polars_fair.core.registry.METRICS`.

    Returns
    -------
    str
        One line per metric: its column, title, formula and source.

    Examples
    --------
    >>> print(metric_legend(["tpr"]))  # doctest: +ELLIPSIS
      tpr: True positive rate = TP/(TP+FN) (recall; equal opportunity, ...)
    """
    width = max((len(r) for r in rates), default=0)
    return "\n".join(
        f"  {r + ':':<{width + 1}} {METRICS[r].title} = {METRICS[r].formula} ({METRICS[r].source})"
        for r in rates
    )


def run_report(
    lf: pl.LazyFrame,
    by_text: list[str],
    *,
    y_true_text: str,
    y_pred_text: str | None,
    pos_label_text: str | None,
    reference_text: str | None,
    min_support: float,
    where: str | None,
    fmt: str,
    output: Path | None,
    null_groups: str = "keep",
    all_columns: bool = False,
    rates: Sequence[str] | None = None,
    max_groups: int = DEFAULT_MAX_GROUPS,
    source: str = "the input",
    y_score_text: str | None = None,
    threshold: float | None = None,
    sample_weight_text: str | None = None,
    four_fifths: float = DEFAULTS.four_fifths,
    ofi_threshold: float = DEFAULTS.ofi_threshold,
    exclude_low_support: bool = DEFAULTS.exclude_low_support,
    columns: str | None = None,
    membership: Any = None,
    membership_estimator: str = "weighted",
    normalize: bool = False,
) -> None:
    """Build the report of the ``report`` and ``demo`` commands and emit it (:func:`metric_legend`).

    Parameters
    ----------
    lf : pl.LazyFrame
        The scanned file.
    by_text : list of str
        ``--by``.
    y_true_text, y_pred_text : str
        ``--y-true``, ``--y-pred``.
    pos_label_text, reference_text : str or None
        ``--pos-label``, ``--reference``.
    min_support : int or float
        ``--min-support`` (rows; under estimated membership a support size, fractional).
    where : str or None
        ``--where``.
    fmt : str
        ``--format``: table, csv, json or parquet.
    output : pathlib.Path or None
        ``--output``; stdout when ``None``.
    null_groups : {"keep", "raise", "drop"}, default "keep"
        ``--null-groups``.
    all_columns : bool, default False
        ``--all-columns``: every report column in the table format.
    rates : sequence of str, optional
        ``--rate``: the metric columns of the table format (:func:`table_rates`).
    max_groups : int, default 10000
        ``--max-groups``: the most groups the count table may make (Enum intersections).
    source : str, default "the input"
        The input's name, for the message of an empty input.
    y_score_text : str, optional
        ``--y-score``: with ``threshold``, predictions are ``score >= threshold``.
    threshold : float, optional
        ``--threshold``.
    sample_weight_text : str, optional
        ``--sample-weight``: a weight column or SQL expression.
    four_fifths, ofi_threshold : float
        ``--four-fifths``, ``--ofi-threshold``: the report's thresholds.
    exclude_low_support : bool, default False
        ``--exclude-low-support``.
    columns : str, optional
        ``--columns``: the columns to write (:func:`polars_fair.cli.table.select_columns`).
    membership, membership_estimator, normalize : optional
        ``--membership`` as converted (``{attribute: {group: column or SQL}}``, read by
        :func:`polars_fair.cli.commands.read_against`), ``--membership-estimator``,
        ``--normalize``.

    Raises
    ------
    PolarsFairError
        Bad input, as :func:`resolve_inputs` and ``df.fair.report``; an unknown ``--rate``.

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> run_report(make_hiring(500, seed=0).lazy(), ["sex"], y_true_text="y_true",
    ...            y_pred_text="y_pred", pos_label_text=None, reference_text=None,
    ...            min_support=30, where=None, fmt="csv", output=None)  # doctest: +ELLIPSIS
    sex,n,tp,fp,fn,tn,...
    """
    shown = table_rates(rates)  # an unknown --rate fails before the scan
    thresholded = threshold is not None
    y_pred_text = default_y_pred(lf, y_pred_text, y_score_text, threshold)
    args = resolve_inputs(
        lf, by_text, y_true_text=y_true_text, y_pred_text=y_pred_text,
        y_score_text=y_score_text if thresholded else None,
        pos_label_text=pos_label_text, reference_text=reference_text, where=where,
        source=source, membership=membership,
    )
    pos_label, reference = args.pos_label, args.reference
    schema = args.lf.collect_schema()
    weight = (column_or_sql(sample_weight_text, schema, "--sample-weight")
              if sample_weight_text is not None else None)
    check_on_rows(args.lf, {"--sample-weight": (sample_weight_text or "", weight)})
    # one scan: the count table, collected once; everything else reads it
    counts = fair(args.lf).confusion(
        args.by, y_true=args.y_true, y_pred=args.y_pred, pos_label=pos_label,
        null_groups=null_groups, max_groups=max_groups,  # type: ignore[arg-type]
        y_score=args.y_score, threshold=threshold, sample_weight=weight,
        membership=cli_gen.read_against(cli_gen.GROUPS, membership, schema), normalize=normalize,
        membership_estimator=membership_estimator,  # type: ignore[arg-type]
    ).collect()
    from polars_fair.analyses.report import report_from_counts
    from polars_fair.analyses.runner import check_outputs
    from polars_fair.counting.tables import keys_of

    keys = keys_of(counts)
    check_outputs(counts.lazy(), keys, report_from_counts, "report_from_counts",
                  reference=reference)  # a --by named like an output column: typed
    report = report_from_counts(
        counts.lazy(), keys, reference=reference, min_support=min_support,
        four_fifths=four_fifths, ofi_threshold=ofi_threshold,
        exclude_low_support=exclude_low_support,
    ).collect()
    header = (
        f"polars-fair report: {cli_gen.rows_text(counts, weight is not None)}, "
        f"{report.height} groups by {keys}; "
        f"y_true={y_true_text!r}, "
        + (f"y_pred={y_score_text} >= {threshold}" if thresholded else f"y_pred={y_pred_text!r}")
        + f", pos_label={pos_label!r}; "
        # the reference as the shell word --reference takes (k=v,k=v; missing: (missing))
        f"reference={cli_words([reference.argument])}\n" + _overall_line(counts)
    )
    fmt = effective_format(fmt, output)
    footer = ""
    if fmt == "table":
        footer = report_summary(report, keys, min_support=min_support, reference=reference)
    if columns is not None:
        report, header = select_columns(report, columns, fmt, header)
    elif fmt == "table" and not all_columns:
        first = shown[:1]  # the selection rate (or the first --rate) beside the verdict
        report, header = select_columns(
            report.select(*keys, *TABLE_COUNTS, *first, *TABLE_FLAGS, *shown[1:]), None, fmt,
            header)
    if fmt == "table":
        legend = [c for c in report.columns if c in METRICS]
        header += "\nmetrics (polars_fair.core.registry):\n" + metric_legend(legend)
        if not all_columns:
            header = "\n".join(textwrap.fill(line, width=TABLE_WIDTH, subsequent_indent="  ",
                                              break_on_hyphens=False)
                                for line in header.splitlines())
    emit(report, fmt, output, header, footer)

def _overall_line(counts: pl.DataFrame) -> str:
    """The header's overall rates: the report of the cells summed over the groups.

    With estimated membership (weighted) each row's probabilities sum to 1, so the cells summed
    over the groups are the rows' own cells (``n_effective`` is not a sum and is left out).
    """
    from polars_fair.analyses.report import report_from_counts
    from polars_fair.counting.tables import rollup

    cells = rollup(counts.lazy().drop("n_effective", "attenuation", strict=False), [])
    total = report_from_counts(cells, [], reference="overall").collect().row(0, named=True)
    return (f"overall: selection_rate={total['selection_rate']:.4f} "
            f"base_rate={total['base_rate']:.4f} tpr={_fmt(total['tpr'])} "
            f"fpr={_fmt(total['fpr'])} ppv={_fmt(total['ppv'])} "
            f"accuracy={_fmt(total['accuracy'])}")


def _fmt(x: float | None) -> str:
    return "null" if x is None else f"{x:.4f}"


ByOpt = Annotated[
    list[str],
    typer.Option("--by", help=BY_HELP,
                 metavar="COLUMN|SQL"),
]


PathArg = Annotated[Path, typer.Argument(help="CSV, Parquet or NDJSON file (read lazily).",
                                         metavar="PATH")]
YTrueOpt = Annotated[str, typer.Option(help="Label column or SQL expression.",
                                       metavar="COLUMN|SQL")]
YPredOpt = Annotated[str, typer.Option(help="Prediction column or SQL expression.",
                                       metavar="COLUMN|SQL")]
PosLabelOpt = Annotated[
    str | None, typer.Option(help="Positive (favourable) value; default 1 (true if boolean).",
                             metavar="VALUE")
]
SeparatorOpt = Annotated[
    str | None, typer.Option(help="CSV field separator (one character; \\t for a tab).",
                             metavar="CHAR")
]
DtypeOpt = Annotated[
    list[str] | None,
    typer.Option("--dtype", help="COLUMN=TYPE: read a column as str, int64, float64, bool, "
                                 "date, datetime, decimal(P,S), ...; repeat.",
                 metavar="COLUMN=TYPE"),
]
WhereOpt = Annotated[str | None, typer.Option(help="SQL filter applied before the audit.",
                                              metavar="SQL")]
NullGroupsOpt = Annotated[NullGroups, typer.Option(  # a choice: checked as it parses
    help="keep | raise | drop", metavar="[keep|raise|drop]")]
MaxGroupsOpt = Annotated[
    int, typer.Option(help="The most groups the audit may make (Enum intersections); a larger "
                           "audit is refused.")
]
RateOpt = Annotated[
    list[str] | None,
    typer.Option("--rate", help=(
        f"A metric column of --format table; repeat. Default: {', '.join(TABLE_RATES)}. "
        f"One of: {', '.join(RATE_NAMES)}."), metavar="METRIC"),
]


FormatOpt = Annotated[Format, typer.Option(
    "--format", help="table | csv | json | parquet | markdown. " + EXPORT_HELP,
    metavar="FORMAT")]
ColumnsOpt = Annotated[str | None, typer.Option(
    help="The columns to write, comma-separated (default: the table's columns, or every "
         "column in csv, json, parquet or markdown). " + QUOTING, metavar="COL,...")]
AllColumnsOpt = Annotated[bool, typer.Option(
    "--all-columns", help="Show every report column in --format table.")]
#: The options of ``report`` read from ``FairCounts.report``'s declaration and the count
#: arguments (the others are spelled out below, with the same names).
REPORT_DECLARED = ("four_fifths", "ofi_threshold", "exclude_low_support", "threshold",
                   "sample_weight", *MEMBERSHIP_ARGS)


@app.command(cls=ReadableCommand)
@declared(FairCounts, "report", REPORT_DECLARED)
def report(
    path: PathArg,
    by: Annotated[list[str], typer.Option(
        "--by", help=BY_HELP + " Optional with --membership (crossed with its groups; default: "
        "the groups alone).",
        metavar="COLUMN|SQL")] = [],  # noqa: B006  (typer's default; never mutated)
    y_true: YTrueOpt = "y_true",
    y_pred: Annotated[str | None, typer.Option(
        help="Prediction column or SQL expression (default: the column y_pred, unless "
             "--y-score with --threshold).", metavar="COLUMN|SQL")] = None,
    pos_label: PosLabelOpt = None,
    reference: Annotated[
        str | None,
        typer.Option(help="largest | max_selection_rate | overall | VALUE | attr=v,attr=v. "
                     + QUOTING, metavar="REFERENCE"),
    ] = None,
    min_support_given: Annotated[
        Decimal, typer.Option("--min-support", help="Flag groups with fewer rows (under "
                              "--membership, a support size below it: a number, 19.5).",
                              **NUMBER_OPTION)
    ] = Decimal(DEFAULTS.min_support),
    where: WhereOpt = None,
    null_groups: NullGroupsOpt = "keep",
    format: FormatOpt = "table",
    output: Annotated[Path | None, typer.Option(help="Write to this file.")] = None,
    all_columns: AllColumnsOpt = False,
    columns: ColumnsOpt = None,
    rate: RateOpt = None,
    html: Annotated[
        Path | None,
        typer.Option(help="Also write the audit as one self-contained HTML file (needs the "
                          "plot extra)."),
    ] = None,
    y_score: Annotated[
        str | None,
        typer.Option(help="Score column or SQL expression: with --threshold the predictions "
                          "are score >= threshold; adds ROC/ABROCA and calibration charts to "
                          "--html."),
    ] = None,
    title: TitleOpt = None,
    model: ModelOpt = None,
    note: NoteOpt = None,
    n_permutations: Annotated[int | None, typer.Option(
        help="--html (with --y-score): permutations of the page's ABROCA test (default "
             "1000).")] = None,
    seed: Annotated[int | None, typer.Option(
        help="--html (with --y-score): random seed of the page's ABROCA test (default "
             "0).")] = None,
    divergence: Annotated[bool, typer.Option(
        "--divergence", help="--html: add the worst-off subgroups section (divergence of "
                             "the FPR over every pattern of the --by attributes).")] = False,
    strata: Annotated[list[str] | None, typer.Option(
        "--strata", help="--html: add the strata section, the --by groups compared within "
                         "these attributes (not also a --by; repeat, or A,B for their "
                         "combinations), as df.fair.stratified(by, strata).",
        metavar="COLUMN")] = None,
    baseline_pred: Annotated[str | None, typer.Option(
        BASELINE_FLAGS[0],
        help="--html: the baseline model's prediction (column or SQL) on the same rows: adds "
             "the change gate's verdict and the comparison section (the page's prediction "
             "is the candidate).", metavar="COLUMN|SQL")] = None,
    baseline_alias: BaselineAliasOpt = None,
    max_impact_ratio_drop: Annotated[float | None, typer.Option(
        help="--html with --baseline-pred: the change gate's limit on a real impact-ratio "
             "drop (default 0.05).")] = None,
    max_ofi_increase: Annotated[float | None, typer.Option(
        help="--html with --baseline-pred: the change gate's limit on a real |OFI| rise "
             "(default 0.05).")] = None,
    separator: SeparatorOpt = None,
    dtype: DtypeOpt = None,
    max_groups: MaxGroupsOpt = DEFAULT_MAX_GROUPS,
    **declared: Any,
) -> None:
    """Audit a file: one row per group with counts, rates, DI, impact ratio and OFI."""
    baseline_pred = one_baseline(baseline_pred, baseline_alias)
    min_support: float = support_number(min_support_given)  # rows, or a support size
    page_texts = {k: v for k, v in (("title", title), ("model", model), ("note", note),
                                    ("n_permutations", n_permutations), ("seed", seed),
                                    ("divergence", True if divergence else None),
                                    ("strata", _names_of(strata)),
                                    ("baseline_pred", baseline_pred),
                                    ("max_impact_ratio_drop", max_impact_ratio_drop),
                                    ("max_ofi_increase", max_ofi_increase))
                  if v is not None}

    def run() -> None:
        # every argument is checked and every result computed before anything is written;
        # --membership is parsed here, inside the error handler: a malformed one is one line
        opts = {o.name: o for o in cli_gen.method_options(FairCounts, "report")}
        options = {k: cli_gen.convert(opts[k], declared[k]) if k in MEMBERSHIP_ARGS
                   else declared[k] for k in REPORT_DECLARED}
        member = {k: options.pop(k) for k in MEMBERSHIP_ARGS}
        fmt = check_outputs(format, output, html, inputs=[path])
        if html is not None and member["membership"] is not None:
            raise E.InvalidArgumentError(E.CLI_HTML_MEMBERSHIP)
        lf = scan(path, separator, parse_dtypes(dtype))
        page = None
        if html is None and page_texts:
            first = next(iter(page_texts))
            raise E.InvalidArgumentError(
                E.CLI_PAGE_OPTION.format(flag="--" + first.replace("_", "-")))
        if baseline_pred is None and (max_impact_ratio_drop, max_ofi_increase) != (None, None):
            flag = "--max-impact-ratio-drop" if max_impact_ratio_drop is not None \
                else "--max-ofi-increase"
            raise E.InvalidArgumentError(E.CLI_CHANGE_LIMIT.format(flag=flag))
        if html is not None:
            if not isinstance(min_support, int):  # the page's groups are crisp: rows
                raise E.InvalidArgumentError(E.CLI_HTML_MIN_SUPPORT.format(value=min_support))
            page = html_page(
                lf, by, y_true_text=y_true, y_pred_text=y_pred, y_score_text=y_score,
                pos_label_text=pos_label, reference_text=reference, min_support=min_support,
                where=where, null_groups=null_groups, source=str(path), **options,
                **page_texts,
            )
        run_report(
            lf, by, y_true_text=y_true, y_pred_text=y_pred, pos_label_text=pos_label,
            reference_text=reference, min_support=min_support, where=where, fmt=fmt,
            output=output, null_groups=null_groups, all_columns=all_columns, rates=rate,
            max_groups=max_groups, source=path.name, y_score_text=y_score,
            sample_weight_text=options["sample_weight"], threshold=options["threshold"],
            four_fifths=options["four_fifths"], ofi_threshold=options["ofi_threshold"],
            exclude_low_support=options["exclude_low_support"], columns=columns, **member,
        )
        if html is not None and page is not None:
            html.write_text(page, encoding="utf-8")
            typer.echo(f"polars-fair: wrote the HTML audit to {html}", err=True)

    _guard(run, json_errors=format == "json")


def default_y_pred(lf: pl.LazyFrame, y_pred_text: str | None, y_score_text: str | None,
                   threshold: Any) -> str | None:
    """``report``'s prediction: ``--y-pred``, else the column ``y_pred`` unless ``--threshold``.

    ``--y-score`` without ``--threshold`` or ``--y-pred`` reads the column ``y_pred`` where
    the input has one (the score then only draws ``--html``'s charts); else it is an error,
    the command line's form of the library's rule that ``y_score=`` needs ``threshold=``.

    Parameters
    ----------
    lf : pl.LazyFrame
        The input.
    y_pred_text, y_score_text : str or None
        ``--y-pred`` and ``--y-score``.
    threshold : object
        ``--threshold`` (``None`` when not given).

    Returns
    -------
    str or None
        The prediction's text; ``None`` when the threshold makes it from the score.

    Raises
    ------
    InvalidArgumentError
        ``--y-score`` with neither ``--threshold`` nor ``--y-pred``, on an input without a
        column ``y_pred`` (:data:`polars_fair.errors.CLI_SCORE_NEEDS_THRESHOLD`).

    Examples
    --------
    >>> lf = pl.LazyFrame({"s": [0.2, 0.8], "y_true": [0, 1]})
    >>> default_y_pred(lf, None, "s", 0.5) is None, default_y_pred(lf, "s > 0.5", "s", None)
    (True, 's > 0.5')
    >>> default_y_pred(lf, None, "s", None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: --y-score needs --threshold to turn scores into ...
    """
    if y_pred_text is not None or threshold is not None:
        return y_pred_text
    if y_score_text is not None and "y_pred" not in lf.collect_schema():
        raise E.InvalidArgumentError(E.CLI_SCORE_NEEDS_THRESHOLD)
    return "y_pred"


def _names_of(items: list[str] | None) -> list[str] | None:
    """Repeated or comma-separated names (``--strata dept --strata year``, ``dept,year``)."""
    if not items:
        return None
    return [n.strip() for item in items for n in item.split(",") if n.strip()]


@app.command(cls=ReadableCommand)
def demo(
    n: Annotated[int, typer.Option(help="Rows of synthetic data.")] = 20_000,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    by: Annotated[list[str] | None, typer.Option("--by", help="Attributes.")] = None,
    format: FormatOpt = "table",
    output: Annotated[Path | None, typer.Option(help="Write to this file.")] = None,
    all_columns: AllColumnsOpt = False,
    columns: ColumnsOpt = None,
    rate: RateOpt = None,
) -> None:
    """Run the report on built-in synthetic hiring data (polars_fair.datasets.make_hiring)."""
    from polars_fair.datasets import make_hiring  # numpy only when the demo runs

    def run() -> None:
        try:
            run_report(
                make_hiring(n, seed=seed).lazy(), by or ["race", "sex"], y_true_text="y_true",
                y_pred_text="y_pred", pos_label_text=None, reference_text=None, min_support=30,
                where=None, fmt=check_outputs(format, output), output=output, rates=rate,
                all_columns=all_columns, columns=columns,
            )
        except E.InvalidLabelError:  # 0/1 labels: only too few rows hold no 1 (no --pos-label)
            raise E.InvalidArgumentError(E.CLI_DEMO_TOO_FEW.format(n=n)) from None

    _guard(run, json_errors=format == "json")



@borrow(run_report, params=("lf", "by_text", "y_true_text, y_pred_text",
                           "pos_label_text, reference_text", "min_support", "where"))
@borrow(page_html, sections=("Returns",))
def html_page(
    lf: pl.LazyFrame,
    by_text: list[str],
    *,
    y_true_text: str,
    y_pred_text: str | None,
    y_score_text: str | None,
    pos_label_text: str | None,
    reference_text: str | None,
    min_support: int,
    where: str | None,
    null_groups: str,
    source: str | None = None,
    **options: Any,
) -> str:
    """The page of :func:`polars_fair.audit.html.audit_html` for the file (``report --html``).

    The page is returned, not written: ``report`` writes it once everything has run.

    Parameters
    ----------
    y_score_text : str or None
        ``--y-score``: adds the score charts.
    null_groups : str
        ``--null-groups``.
    source : str, optional
        The input's name, shown on the page.
    **options
        Further keyword arguments of :func:`polars_fair.audit.html.audit_html` (``threshold``,
        ``four_fifths``, ``ofi_threshold``, ``exclude_low_support``, ``sample_weight``,
        ``title``, ``model``, ``note``, ``n_permutations``, ``seed``, ``divergence``,
        ``strata``, ``baseline_pred``, ``max_impact_ratio_drop``, ``max_ofi_increase``);
        ``None`` values are
        left out. One the installed
        ``audit_html`` does not take is an error naming its flag.

    Raises
    ------
    InvalidArgumentError
        Without the plot extra; an option ``audit_html`` does not take.
    PolarsFairError
        Bad input, as :func:`resolve_inputs` and :func:`polars_fair.audit.html.audit_html`.

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> page = html_page(make_hiring(500, seed=0).lazy(), ["sex"], y_true_text="y_true",
    ...                  y_pred_text="y_pred", y_score_text=None, pos_label_text=None,
    ...                  reference_text=None, min_support=30, where=None, null_groups="keep")
    >>> page.startswith("<!DOCTYPE html>")
    True
    """
    y_pred_text = default_y_pred(lf, y_pred_text, y_score_text, options.get("threshold"))
    args = resolve_inputs(
        lf, by_text, y_true_text=y_true_text, y_pred_text=y_pred_text,
        y_score_text=y_score_text, pos_label_text=pos_label_text,
        reference_text=reference_text, where=where, source=source or "the input",
    )
    try:
        from polars_fair.audit.html import audit_html
    except ImportError as exc:
        raise E.InvalidArgumentError(f"--html: {exc}") from None
    import inspect

    accepted = inspect.signature(audit_html).parameters
    extra = {k: v for k, v in options.items() if v is not None and v is not False}
    for name in extra:
        if name not in accepted:
            raise E.InvalidArgumentError(
                E.CLI_PAGE_TAKES_NOT.format(flag="--" + name.replace("_", "-")))
    for name in ("sample_weight", "baseline_pred"):  # a column or a SQL expression
        if extra.get(name) is not None:
            extra[name] = column_or_sql(extra[name], lf.collect_schema(),
                                        "--" + name.replace("_", "-"))
    try:
        return audit_html(
            lf, args.by, y_true=args.y_true, y_pred=args.y_pred, y_score=args.y_score,
            pos_label=args.pos_label, reference=args.reference, min_support=min_support,
            where=where, null_groups=null_groups,  # type: ignore[arg-type]
            source=source, **extra,
        )
    except ImportError as exc:  # a plotting dependency is imported when the charts are drawn
        raise E.InvalidArgumentError(f"--html: {exc}") from None



# --------------------------------------------------------------------------- check (CI gate)


def _rows_counted(counts: Any, rows: int, columns: list[str], membership: bool,
                  weighted: bool) -> tuple[int | None, str]:
    """The gate's ``rows`` (None when they are not known) and its ``counted`` text.

    Estimated membership: ``n`` counts a row in every group it may be in, and each row's
    probabilities sum to 1, so the sum of ``weight_sum`` is the rows; with sample weights it is
    the sum of the weights, a weight and not rows (the rows are not in the weighted table):
    said as a weight. A crisp weighted table adds the rows of positive weight, which count.
    """
    if membership:
        counted = cli_gen.rows_text(counts.frame, weighted)
        return (None if weighted else round(
            counts.frame.select(pl.col("weight_sum").sum()).collect().item())), counted
    counted = f"{rows:,} rows"
    if support_size(columns) != "n":  # weighted: the rows that count
        positive = counts.frame.select(pl.col(support_size(columns)).sum()).collect().item()
        counted += f", {positive:,} of positive weight"
    return rows, counted


def check_gate(
    args: Inputs,
    *,
    min_impact_ratio: float | Decimal = DEFAULTS.four_fifths,
    max_abs_ofi: float | Decimal = DEFAULTS.ofi_threshold,
    max_abroca: float | Decimal | None = None,
    min_support: float = DEFAULTS.min_support,
    null_groups: str = "keep",
    max_groups: int = DEFAULT_MAX_GROUPS,
    counts: Any = None,
    sample_weight: Any = None,
) -> dict[str, Any]:
    """The decision of ``polars-fair check`` (:func:`polars_fair.audit.gate.gate`) as JSON data.

    The gate itself (which groups are checked, against which limits and which reference) is
    :func:`polars_fair.audit.gate.gate`; this only counts the rows of the command line into the
    analysis objects and formats the gate's frame.

    Parameters
    ----------
    args : Inputs
        The resolved command-line inputs (:func:`resolve_inputs`).
    min_impact_ratio, max_abs_ofi : float or Decimal
        The limits; ``min_impact_ratio=0`` or ``max_abs_ofi=2`` switch a check off.
    max_abroca : float or Decimal, optional
        Checked only when given; needs ``args.y_score``.
    min_support : int or float, default 30
        Rows a group needs to be checked (under estimated membership, its support size).
    null_groups : {"keep", "raise", "drop"}, default "keep"
        As ``df.fair.report``.
    max_groups : int, default 10000
        ``--max-groups``: the most groups the count table may make (Enum intersections).
    counts : FairCounts, optional
        The count table of ``args`` (:func:`gate_counts`), when the caller has it already.
    sample_weight : str or pl.Expr, optional
        ``--sample-weight``, resolved: the counts and scores are weighted.

    Returns
    -------
    dict
        ``passed`` (bool), ``rows`` (the rows audited; null for estimated membership with
        sample weights, whose weighted table does not hold them), ``counted`` (the header's
        words for it: ``"1,000 rows"``, or ``"a weight of 812.5"`` then), ``support``
        (what ``--min-support`` is compared with:
        ``"n"``, ``"n_positive_weight"`` with sample weights (the rows of positive weight;
        ``counted`` then adds their number), or for estimated membership
        :data:`SUPPORT_MEMBERSHIP` (with sample weights
        :data:`polars_fair.core.reference.SUPPORT_SIZE_WEIGHTED`), the support size
        :func:`polars_fair.core.reference.support_rows`), ``by``, ``reference``, ``limits``,
        ``checked_groups``, ``skipped_low_support``, ``skipped_abroca`` (checked groups whose
        ABROCA is not, for fewer than ``min_support`` positives or negatives: the audit page's
        rule, :func:`polars_fair.audit.gate.testable`), ``undefined`` (each ``group``,
        ``metric``, ``reason``) and
        ``violations`` (each ``group``, ``values``, ``metric``, ``value``, ``limit``, ``rule``;
        an undefined figure is a violation with ``value`` and ``limit`` null),
        ``reference_low_support`` (the reference has fewer than ``min_support``: the text's
        ``(low support)``) and ``groups`` (every group: ``group``, ``values``, ``n`` (the
        support), ``low_support`` (under ``min_support``, so not checked), ``is_reference``).

    Raises
    ------
    InvalidArgumentError
        ``max_abroca`` without a score column; no group with ``min_support`` rows; the gate's
        own errors (limits out of range, ``--reference overall`` with ``--max-abroca``).
    PolarsFairError
        Bad input, as ``df.fair.report``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.datasets import make_hiring
    >>> args = resolve_inputs(make_hiring(3000, seed=0).lazy(), ["sex"], y_true_text="y_true",
    ...                       y_pred_text="y_pred", y_score_text=None, pos_label_text=None,
    ...                       reference_text=None, where=None)
    >>> result = check_gate(args)
    >>> result["passed"], result["checked_groups"]
    (True, ['sex=Female', 'sex=Male'])
    """
    import polars_fair
    from polars_fair.audit.gate import LOW_CLASS_SUPPORT, gate, verdict

    if max_abroca is not None and args.y_score is None:
        raise E.InvalidArgumentError("--max-abroca needs --y-score (the score column)")
    nulls: Any = null_groups
    if counts is None:
        counts = gate_counts(args, null_groups=null_groups, max_groups=max_groups,
                             sample_weight=sample_weight)
    scores = None
    if max_abroca is not None and args.y_score is not None:
        scores = polars_fair.scores(args.lf, args.by, y_true=args.y_true, y_score=args.y_score,
                                    pos_label=args.pos_label, null_groups=nulls,
                                    sample_weight=sample_weight)
    table = gate(counts, scores, reference=args.reference, min_impact_ratio=min_impact_ratio,
                 max_abs_ofi=max_abs_ofi, max_abroca=max_abroca, min_support=min_support)
    keys = list(counts.keys)
    groups = table.filter(pl.col("metric") == "impact_ratio")  # one row per group
    checked = groups.filter(pl.col("checked"))["group"].to_list()
    skipped = groups.filter(~pl.col("checked"))["group"].to_list()
    columns = counts.frame.collect_schema().names()
    membership = "n_effective" in columns
    if not checked:
        what = (f"a {support_name(columns)} of at least --min-support {min_support}" if membership
                else f"at least --min-support {min_support} {support_unit(columns)}")
        raise E.InvalidArgumentError(
            f"no group has {what}: nothing was checked (groups: {_some_groups(skipped)})")
    reference = groups.filter(pl.col("is_reference"))["group"].to_list()
    # ABROCA judged only with min_support positives and negatives (audit.gate.testable)
    abroca_skipped = table.filter(
        (pl.col("metric") == "abroca") & pl.col("group").is_in(checked)
        & (pl.col("reason") == LOW_CLASS_SUPPORT.format(min_support=float(min_support))))[
        "group"].to_list()
    undefined = [{"group": r["group"], "metric": r["metric"], "reason": r["reason"]}
                 for r in table.filter(pl.col("checked") & pl.col("value").is_null())
                 .iter_rows(named=True)]
    # each violation's limit as the limits show it (the decimal typed, never a rounded float)
    limit_of = {"impact_ratio": min_impact_ratio, "ofi": max_abs_ofi, "abroca": max_abroca}
    violations = [
        {"group": r["group"], "values": {k: r[k] for k in keys}, "metric": r["metric"],
         "value": r["value"],
         "limit": (json_number(limit_of.get(r["metric"], r["limit"]))
                   if r["value"] is not None else None),
         "rule": r["rule"] if r["value"] is not None else f"undefined: {r['reason']}"}
        for r in table.filter(pl.col("checked") & ~pl.col("passed")).iter_rows(named=True)
    ]
    rows, counted = _rows_counted(counts, int(groups["n"].sum()), columns, membership,
                                  sample_weight is not None)
    # every group with its support and flags: a group under min_support is low support and
    # not checked, as the text says it ("not checked", "reference ... (low support)")
    group_rows = [{"group": r["group"], "values": {k: r[k] for k in keys}, "n": r["n"],
                   "low_support": not r["checked"], "is_reference": bool(r["is_reference"])}
                  for r in groups.iter_rows(named=True)]
    return {
        "passed": verdict(table),
        "rows": rows,
        "counted": counted,
        # what --min-support is compared with: n, n_positive_weight (weighted) or the size
        "support": support_name(columns) if membership else support_size(columns),
        "by": keys,
        "reference": reference[0] if reference else None,
        "reference_low_support": bool(reference) and reference[0] in skipped,
        "limits": {"min_impact_ratio": json_number(min_impact_ratio),
                   "max_abs_ofi": json_number(max_abs_ofi),
                   "max_abroca": json_number(max_abroca), "min_support": min_support},
        "checked_groups": checked,
        "skipped_low_support": skipped,
        "skipped_abroca": abroca_skipped,
        "undefined": undefined,
        "violations": violations,
        "groups": group_rows,
    }


def _some_groups(labels: list[str], limit: int = 5) -> str:
    """A few gate labels in a message: ```g=a`; `g=(missing)```, never a Python repr.

    Each label as the text output writes it (control characters escaped:
    :func:`polars_fair.core.labels.visible`) in backquotes, which keep a key named like an
    option (``y_true=0``) from being read as its flag (:func:`polars_fair.cli.io.cli_message`);
    joined with ``"; "`` as ``not checked`` joins them, then how many more there are.
    """
    more = f"; ... ({len(labels) - limit} more)" if len(labels) > limit else ""
    return "; ".join(f"`{visible(g)}`" for g in labels[:limit]) + more


def gate_counts(args: Inputs, *, null_groups: str = "keep",
                max_groups: int = DEFAULT_MAX_GROUPS, sample_weight: Any = None,
                membership: Any = None, membership_estimator: str = "weighted",
                normalize: bool = False) -> Any:
    """The count table of ``polars-fair check``: the rows of ``args`` counted once.

    Parameters
    ----------
    args : Inputs
        The resolved command-line inputs (:func:`resolve_inputs`).
    null_groups : {"keep", "raise", "drop"}, default "keep"
        As ``df.fair.report``.
    max_groups : int, default 10000
        ``--max-groups``.
    sample_weight : str or pl.Expr, optional
        ``--sample-weight``, resolved (:func:`polars_fair.cli.io.column_or_sql`).
    membership, membership_estimator, normalize : optional
        ``--membership`` (read: ``{attribute: {group: expression}}``),
        ``--membership-estimator``, ``--normalize``: the count arguments of estimated
        membership.

    Returns
    -------
    FairCounts
        The count-table object (:func:`polars_fair.counts`).

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> args = resolve_inputs(make_hiring(300, seed=0).lazy(), ["sex"], y_true_text="y_true",
    ...                       y_pred_text="y_pred", y_score_text=None, pos_label_text=None,
    ...                       reference_text=None, where=None)
    >>> gate_counts(args).keys
    ['sex']
    """
    import polars_fair

    nulls: Any = null_groups
    estimator: Any = membership_estimator
    return polars_fair.counts(args.lf, args.by, y_true=args.y_true, y_pred=args.y_pred,
                              pos_label=args.pos_label, null_groups=nulls,
                              max_groups=max_groups, sample_weight=sample_weight,
                              membership=membership, membership_estimator=estimator,
                              normalize=normalize)


#: ``check``'s ``support`` for estimated membership: what ``--min-support`` is compared with
#: (with ``--sample-weight``, :data:`polars_fair.core.reference.SUPPORT_SIZE_WEIGHTED`).
SUPPORT_MEMBERSHIP = SUPPORT_SIZE


def format_gate(result: dict[str, Any], overall: bool = True) -> str:
    """The human-readable text of ``polars-fair check``.

    ``overall``: the reference asked for is the whole population (or there are no keys), so
    a result without a reference group reads ``reference overall``, else ``reference none``.
    """
    lim = result["limits"]
    rules = [f"impact_ratio >= {number_text(lim['min_impact_ratio'])}",
             f"|ofi| <= {number_text(lim['max_abs_ofi'])}"]
    if lim["max_abroca"] is not None:
        rules.append(f"abroca <= {number_text(lim['max_abroca'])}")
    n_checked = len(result["checked_groups"])
    size = result.get("support", "n")
    reference = result["reference"]
    # a reference below min_support (no group a rule may choose has enough rows) says so
    low = " (low support)" if result.get(
        "reference_low_support", reference in result["skipped_low_support"]) else ""
    named = (f"{visible(reference)}{low}" if reference is not None
             else "overall" if overall else "none")
    head = (
        f"polars-fair check: {'PASS' if result['passed'] else 'FAIL'}: "
        f"{n_checked} group(s) by {result['by']} with {size} >= {lim['min_support']} checked "
        f"({', '.join(rules)}; reference {named}; "
        f"{result['counted']})"
    )
    lines = [head]
    violations = result["violations"]
    if violations:
        lines.append(f"{len(violations)} violation(s):")
        width = max(len(visible(v["group"])) for v in violations)
        for v in violations:
            value = "   n/a  " if v["value"] is None else f"{v['value']:>8.4f}"
            rule = v["rule"] if v["value"] is None else f"limit {v['rule']}"
            lines.append(f"  {visible(v['group']):<{width}}  {v['metric']:<12} {value}  {rule}")
    if result["skipped_low_support"]:
        lines.append(
            f"not checked ({size} < {lim['min_support']}): "
            f"{'; '.join(visible(g) for g in result['skipped_low_support'])}"
        )
    if result.get("skipped_abroca"):
        lines.append(
            f"ABROCA not checked (fewer than {lim['min_support']} positives or negatives): "
            f"{'; '.join(visible(g) for g in result['skipped_abroca'])}"
        )
    return "\n".join(lines)


#: The options of ``check`` read from a declaration: the paired intervals' ``level`` of
#: ``FairPaired.compare``, which the change gate (``--baseline-pred``) reads, and the count
#: argument ``sample_weight`` (both gates weigh the rows).
CHECK_DECLARED = ("level", "sample_weight")
#: ``check``'s number defaults as the decimals written (cli.numbers reads the typed ones so).
_FOUR_FIFTHS = Decimal(repr(DEFAULTS.four_fifths))
_OFI_THRESHOLD = Decimal(repr(DEFAULTS.ofi_threshold))
_CHANGE_LIMIT = Decimal("0.05")


@app.command(cls=ReadableCommand)
@declared(FairCounts, "report", MEMBERSHIP_ARGS)  # --membership, as every count command
@declared(FairPaired, "compare", CHECK_DECLARED)
def check(
    path: PathArg,
    by: Annotated[list[str], typer.Option(
        "--by", help=BY_HELP + " Optional with --membership (crossed with its groups; default: "
        "the groups alone).",
        metavar="COLUMN|SQL")] = [],  # noqa: B006  (typer's default; never mutated)
    y_true: YTrueOpt = "y_true",
    y_pred: YPredOpt = "y_pred",
    y_score: Annotated[
        str | None, typer.Option(help="Score column or SQL expression (for --max-abroca).")
    ] = None,
    pos_label: PosLabelOpt = None,
    reference: Annotated[
        str | None,
        typer.Option(help="Reference of OFI/ABROCA: largest | max_selection_rate | overall | "
                          "VALUE | attr=v,attr=v"),
    ] = None,
    where: WhereOpt = None,
    min_impact_ratio: Annotated[
        Decimal,
        typer.Option(help="Fail a group whose impact ratio is below this.", **NUMBER_OPTION)
    ] = _FOUR_FIFTHS,
    max_abs_ofi: Annotated[
        Decimal, typer.Option(help="Fail a group whose |OFI| exceeds this.",
                                      **NUMBER_OPTION)
    ] = _OFI_THRESHOLD,
    max_abroca: Annotated[
        Decimal | None, typer.Option(help="Fail a group whose ABROCA exceeds this (needs "
                                           "--y-score).", **NUMBER_OPTION)
    ] = None,
    min_support_given: Annotated[
        Decimal, typer.Option("--min-support", help="Check only groups with at least this many "
                              "rows (under --membership, this support size: a number, 19.5).",
                              **NUMBER_OPTION)
    ] = Decimal(DEFAULTS.min_support),
    null_groups: NullGroupsOpt = "keep",
    format: Annotated[Literal["text", "json"], typer.Option("--format", help="text | json",
                                        metavar="[text|json]")] = "text",
    separator: SeparatorOpt = None,
    dtype: DtypeOpt = None,
    max_groups: MaxGroupsOpt = DEFAULT_MAX_GROUPS,
    baseline_pred: Annotated[
        str | None, typer.Option(BASELINE_FLAGS[0],
                                 help="The baseline model's prediction (column or SQL): also "
                                      "fail a real worsening against it.")
    ] = None,
    baseline_alias: BaselineAliasOpt = None,
    max_impact_ratio_drop: Annotated[
        Decimal | None, typer.Option(help="With --baseline-pred: fail a real impact-ratio "
                                          "drop above this (default 0.05).", **NUMBER_OPTION)
    ] = None,
    max_ofi_increase: Annotated[
        Decimal | None, typer.Option(help="With --baseline-pred: fail a real |OFI| rise above "
                                          "this (default 0.05).", **NUMBER_OPTION)
    ] = None,
    **declared: Any,
) -> None:
    """CI gate: exit 0 if every group with n >= --min-support passes, 1 with the violations.

    With --baseline-pred, a supported group also fails when its impact ratio drops, or its
    |OFI| rises, against the baseline by more than the limit and the paired interval of the
    change at --level (default 0.95) excludes 0.
    """
    baseline_pred = one_baseline(baseline_pred, baseline_alias)
    min_support: float = support_number(min_support_given)  # rows, or a support size
    result: dict[str, Any] = {}

    def run() -> None:  # --format is text or json: typer checks it as it parses
        if max_abroca is not None and y_score is None:
            raise E.InvalidArgumentError("--max-abroca needs --y-score (the score column)")
        if baseline_pred is None and (max_impact_ratio_drop, max_ofi_increase) != (None, None):
            flag = "--max-impact-ratio-drop" if max_impact_ratio_drop is not None \
                else "--max-ofi-increase"
            raise E.InvalidArgumentError(E.CLI_CHANGE_LIMIT.format(flag=flag))
        member = _check_membership(by, declared, max_abroca, baseline_pred)
        args = resolve_inputs(
            scan(path, separator, parse_dtypes(dtype)), by, y_true_text=y_true,
            y_pred_text=y_pred, y_score_text=y_score, pos_label_text=pos_label,
            reference_text=reference, where=where, source=path.name,
            membership=member["membership"],
        )
        weight = (column_or_sql(declared["sample_weight"], args.lf.collect_schema(),
                                "--sample-weight")
                  if declared["sample_weight"] is not None else None)
        check_on_rows(args.lf, {"--sample-weight": (declared["sample_weight"] or "", weight)})
        member["membership"] = cli_gen.read_against(cli_gen.GROUPS, member["membership"],
                                                    args.lf.collect_schema())
        counts = gate_counts(args, null_groups=null_groups, max_groups=max_groups,
                             sample_weight=weight, **member)
        result.update(check_gate(
            args, min_impact_ratio=min_impact_ratio, max_abs_ofi=max_abs_ofi,
            max_abroca=max_abroca, min_support=min_support, null_groups=null_groups,
            max_groups=max_groups, counts=counts, sample_weight=weight,
        ))
        if baseline_pred is not None:
            result["change"] = check_change(
                args, baseline_pred,
                max_impact_ratio_drop=_CHANGE_LIMIT if max_impact_ratio_drop is None
                else max_impact_ratio_drop,
                max_ofi_increase=_CHANGE_LIMIT if max_ofi_increase is None
                else max_ofi_increase,
                level=declared["level"], sample_weight=weight,
                min_support=min_support, null_groups=null_groups)
            result["gate_passed"] = result["passed"]
            result["passed"] = result["passed"] and result["change"]["passed"]
        # "reference overall" only when asked for: a table of no known group has none
        shown["overall"] = args.reference.is_overall or not list(counts.keys)
        if format == "text":  # the plain-language findings that `report` prints, the same
            report = counts.report(reference=args.reference, min_support=min_support).collect()
            summary.append(report_summary(report, list(counts.keys), min_support=min_support,
                                          reference=args.reference))

    summary: list[str] = []
    shown: dict[str, bool] = {}
    _guard(run, json_errors=format == "json")
    text = "" if format == "json" else format_gate(
        {**result, "passed": result.get("gate_passed", result["passed"])}, **shown)
    if format != "json" and "change" in result:
        text += "\n" + format_change(result["change"])
    text = "\n".join([text, *summary])
    typer.echo(json.dumps(result, indent=2, default=str) if format == "json" else text)
    if not result["passed"]:
        raise typer.Exit(code=1)


def _check_membership(by: list[str], declared: dict[str, Any], max_abroca: Any,
                      baseline_pred: Any) -> dict[str, Any]:
    """``check``'s ``--membership``, ``--membership-estimator``, ``--normalize``, converted.

    ``--by`` is optional beside ``--membership``; ``--max-abroca`` (the score table) and
    ``--baseline-pred`` (the paired table) take no membership probabilities and are refused
    with what to run instead (:data:`polars_fair.errors.CLI_CHECK_MEMBERSHIP`).
    """
    opts = {o.name: o for o in cli_gen.method_options(FairCounts, "report")}
    member = {k: cli_gen.convert(opts[k], declared[k]) for k in MEMBERSHIP_ARGS}
    if not by and member["membership"] is None:
        raise E.InvalidArgumentError(E.CLI_BY_OR_MEMBERSHIP)
    if member["membership"] is not None:
        for flag, value, table in (("--max-abroca", max_abroca, "score table"),
                                   ("--baseline-pred", baseline_pred, "paired table")):
            if value is not None:
                raise E.InvalidArgumentError(E.CLI_CHECK_MEMBERSHIP.format(flag=flag,
                                                                            table=table))
    return member


@functools.lru_cache(maxsize=1)
def learn_flags() -> None:
    """Add every command's parameters to :data:`polars_fair.cli.io.FLAGS`, once, on the error path.

    Generated commands add theirs as they are registered; a hand-written command's own
    parameters (``check``'s ``max_impact_ratio_drop``) and each count argument then read as
    flags in any message (:func:`polars_fair.cli.io.cli_message`). Only names of several
    words (with ``_``) are added: a one-word name (``title``) is also an English word.

    Examples
    --------
    >>> from polars_fair.cli.io import FLAGS
    >>> learn_flags()
    >>> FLAGS["max_impact_ratio_drop"]
    '--max-impact-ratio-drop'
    """
    import inspect

    # the commands' signatures, as typer reads them (a millisecond; building every click
    # command, typer.main.get_command, took a tenth of a second of every error)
    for info in app.registered_commands:
        if info.callback is None:
            continue
        for name, p in inspect.signature(info.callback, eval_str=True).parameters.items():
            extras = get_args(p.annotation)[1:] if get_origin(p.annotation) is Annotated else ()
            options = [m for m in extras if isinstance(m, typer.models.OptionInfo)]
            if "_" not in name or not options:
                continue
            decls = [d for decl in (options[0].param_decls or ()) for d in decl.split("/")
                     if d.startswith("--")]
            FLAGS.setdefault(name, decls[0] if decls else "--" + name.replace("_", "-"))


def error_message(exc: BaseException) -> str:
    """One line for a failed command: the error's first line, its parameters named as flags.

    Parameters
    ----------
    exc : BaseException
        The error.

    Returns
    -------
    str
        The message (:func:`polars_fair.cli.io.cli_message`); Polars' hints and plans after the
        first line are dropped; an error polars_fair did not foresee names its type.

    Examples
    --------
    >>> error_message(E.InvalidArgumentError("min_support must be >= 0, got -1"))
    '--min-support must be >= 0, got -1'
    """
    if isinstance(exc, pl.exceptions.PolarsError):
        exc = unreadable(exc)
    learn_flags()
    cli_text = getattr(exc, "cli_message", None)  # advice written for the command line
    lines = str(cli_text or exc).strip().splitlines()
    text = " ".join(lines[0].split()) if lines else type(exc).__name__
    if not isinstance(exc, (E.PolarsFairError, OSError)):
        text = f"{type(exc).__name__}: {text}"
    return cli_message(text)


def _guard(fn: Callable[[], None], json_errors: bool = False) -> None:
    """Run a command: every failure one line on stderr (and JSON on stdout), exit code 2.

    Warnings (the rows ``--null-groups drop`` left out) are printed as one line each.
    """
    forget_sql_names()  # the SQL --by texts this command names by AS (their rename advice)
    note_command_flags()  # its one-word options read as flags in its messages (demo --n)
    from polars_fair.counting.tables import WARN_CONSTANT

    token = WARN_CONSTANT.set(True)  # a hand-typed label that matches no row warns here
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
            failure: BaseException | None = None
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except pl.exceptions.PolarsError as exc:  # the rows could not be read: typed
            failure = unreadable(exc)
        except Exception as exc:  # no traceback reaches the user: one line, exit 2
            failure = exc
        finally:
            WARN_CONSTANT.reset(token)
    if caught:
        learn_flags()
    for message in dict.fromkeys(str(w.message) for w in caught):
        typer.echo(f"polars-fair: {cli_message(' '.join(message.split()))}", err=True)
    if failure is not None:
        text = error_message(failure)
        typer.echo(f"polars-fair: error: {text}", err=True)
        if json_errors:
            typer.echo(json.dumps({"status": "error", "error": type(failure).__name__,
                                   "message": text, "exit_code": 2}))
        raise typer.Exit(code=2)


#: Every analysis method without a hand-written command, as a generated subcommand.
GENERATED = cli_gen.register(app, _guard)
cli_ll144.register(app, _guard)
cli_compare.register(app, _guard)
cli_membership.register(app, _guard)
cli_proxy.register(app, _guard)
cli_sample_size.register(app, _guard)


def main() -> None:
    """Entry point of the ``polars-fair`` script: run the command named in ``sys.argv``.

    Exits (``SystemExit``) with the command's code: 0 success, 1 ``check`` found violations,
    2 bad input.

    Examples
    --------
    >>> import sys
    >>> argv, sys.argv = sys.argv, ["polars-fair", "demo", "--n", "500", "--format", "csv"]
    >>> try:
    ...     main()
    ... except SystemExit as done:
    ...     print("exit code", done.code)
    ... finally:
    ...     sys.argv = argv  # doctest: +ELLIPSIS
    race,sex,n,tp,fp,fn,tn,selection_rate,...
    exit code 0
    """
    _LazyGroup(app).main(prog_name="polars-fair")


class _LazyGroup(ReadableGroup):
    """The app as a click group that builds only the command it runs (Typer builds them all)."""

    def __init__(self, typer_app: typer.Typer) -> None:
        infos = {c.name or typer.main.get_command_name(c.callback.__name__): c  # type: ignore[union-attr]
                 for c in typer_app.registered_commands}
        super().__init__(name="polars-fair", commands={}, help=typer_app.info.help,
                         no_args_is_help=True, rich_markup_mode=typer_app.rich_markup_mode)
        self._infos = infos
        self._app = typer_app

    def list_commands(self, ctx: Any) -> list[str]:  # noqa: D102
        return list(self._infos)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:  # noqa: D102
        if cmd_name not in self.commands and cmd_name in self._infos:
            self.commands[cmd_name] = typer.main.get_command_from_info(
                self._infos[cmd_name], pretty_exceptions_short=self._app.pretty_exceptions_short,
                rich_markup_mode=self._app.rich_markup_mode)
        return self.commands.get(cmd_name)


if __name__ == "__main__":  # pragma: no cover
    main()
