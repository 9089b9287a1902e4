"""MkDocs hook: the pages generated from the code when the site is built.

A page holds a marker line, which this hook replaces with Markdown generated from the package:

- ``<!-- generated: cli-reference -->``: every command of the Typer application
  (``polars_fair.cli.entry.app``, walked through ``typer.main.get_command``): its usage, its help
  and a table of its arguments and options, as ``polars-fair COMMAND --help`` prints them;
- ``<!-- generated: limits -->``: the size limit of every option
  (``polars_fair.core.limits.limits_markdown``);
- ``<!-- generated: metrics -->``: the metric registry (``polars_fair.core.registry``): each
  per-group metric's name, formula, numerator, denominator (read by calling the registry's own
  formulas on symbols), range, unit and source, then every pairwise metric.

``tests/docs/test_site.py`` calls the same functions, so a broken generator fails the tests too.
"""

from __future__ import annotations

import math
from typing import Any

MARKERS = {
    "<!-- generated: cli-reference -->": "cli_reference",
    "<!-- generated: metrics -->": "metrics_reference",
    "<!-- generated: limits -->": "limits_reference",
}


def _cell(text: str) -> str:
    """Text for one Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


# --------------------------------------------------------------------------------------- CLI


def cli_reference() -> str:
    """Markdown for every command of ``polars-fair``, generated from the Typer application."""
    import typer

    from polars_fair.cli.entry import app

    group: Any = typer.main.get_command(app)
    context_class = group.context_class
    root = context_class(group, info_name="polars-fair")
    out = [f"`polars-fair`: {_cell(group.help or '')}", ""]
    names = list(group.commands)
    out += ["| command | what it does |", "| --- | --- |"]
    for name in names:
        summary = (group.commands[name].help or "").strip().split("\n\n")[0]
        out.append(f"| [`{name}`](#polars-fair-{name}) | {_cell(summary)} |")
    out.append("")
    for name in names:
        cmd = group.commands[name]
        ctx = context_class(cmd, info_name=name, parent=root)
        out += [f"### polars-fair {name}", ""]
        pieces = " ".join(cmd.collect_usage_pieces(ctx))
        out += ["```text", f"polars-fair {name} {pieces}", "```", ""]
        for paragraph in (cmd.help or "").strip().split("\n\n"):
            out += [" ".join(paragraph.split()).replace("\b", "").strip(), ""]
        rows = []
        for param in cmd.params:
            if getattr(param, "hidden", False):
                continue
            record = param.get_help_record(ctx)
            if record is None:
                continue
            decl, help_text = record
            rows.append(f"| `{decl}` | {_cell(help_text)} |")
        if rows:
            out += ["| argument or option | meaning |", "| --- | --- |", *rows, ""]
    return "\n".join(out)


# ----------------------------------------------------------------------------------- metrics


class _Symbol(str):
    """A count as text: the registry's formulas, called on symbols, write themselves out."""

    def __add__(self, other: object) -> _Symbol:
        return _Symbol(f"{self}+{other}")

    def __sub__(self, other: object) -> _Symbol:
        return _Symbol(f"{self}−{other}")


def _range(low: float, high: float) -> str:
    def f(x: float) -> str:
        return ("−∞" if x < 0 else "∞") if math.isinf(x) else f"{x:g}".replace("-", "−")

    return f"[{f(low)}, {f(high)}]"


def metrics_reference() -> str:
    """Markdown tables of the metric registry: per-group metrics, then pairwise metrics."""
    from polars_fair.core.registry import METRICS, PAIR_METRICS, Counts

    sym = Counts(*(_Symbol(s) for s in ("n", "TP", "FP", "FN", "TN")))  # type: ignore[arg-type]
    out = ["## Per-group metrics", "",
           "Columns of `rates` and `report`, rows of `metrics`; `polars_fair.<function>()` is the "
           "row-level expression.", "",
           "| name | title | formula | numerator | denominator | range | unit | source |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for m in METRICS.values():
        num = m.numerator(sym) if m.numerator else "—"
        den = m.denominator(sym) if m.denominator else "—"
        name = f"`{m.name}`" + (f" (`{m.function_name}()`)" if m.function else "")
        out.append(
            f"| {name} | {_cell(m.title)} | {_cell(m.formula)} | {_cell(num)} | {_cell(den)} "
            f"| {_range(m.low, m.high)} | {_cell(m.unit)} | {_cell(m.source)} |")
    out += ["", "## Pairwise metrics", "",
            "Columns of `pairwise` (`metrics=`), for groups i and j; the value of a group "
            "against itself is the identity.", "",
            "| name | title | formula | reads | range | identity | source |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    for p in PAIR_METRICS.values():
        out.append(
            f"| `{p.name}` | {_cell(p.title)} | {_cell(p.formula)} | "
            f"{', '.join(f'`{r}`' for r in p.rates)} | {_range(p.low, p.high)} | "
            f"{p.identity:g} | {_cell(p.source)} |")
    return "\n".join(out)


# -------------------------------------------------------------------------------- the hook


def limits_reference() -> str:
    """The size limit of every option, from ``polars_fair.core.limits.LIMITS``."""
    from polars_fair.core.limits import limits_markdown

    return limits_markdown()


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Replace each marker line of a page with its generated Markdown."""
    for marker, name in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, globals()[name]())
    return markdown
