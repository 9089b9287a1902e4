"""Charts of an audit, as Altair charts that render offline to PNG or SVG (vl-convert).

Every function reads one of the small tables the analyses return (never rows) and returns an
``altair`` chart; :func:`save` writes it to ``.png``, ``.svg`` or ``.json`` through
``vl-convert`` with every network access refused, and :func:`to_svg` gives the SVG text that
:func:`polars_fair.audit.html.audit_html` inlines.

* :func:`pairwise_heatmap` reads ``<key>_i``, ``<key>_j`` and the metric column of
  ``df.fair.pairwise(...)``;
* :func:`rates_chart` reads keys, ``metric, value, ci_low, ci_high, low_support`` of
  ``df.fair.metrics(...)``;
* :func:`roc_chart` reads ``roc_curves`` and ``abroca`` of the score analyses
  (``polars_fair.scores(...)``, or a score table of ``df.fair.scores(...)``);
* :func:`power_chart` reads ``delta_auc, n, power, mc_se`` of
  :func:`polars_fair.analyses.scores.power.power_curve`;
* :func:`calibration_chart` reads keys, ``n, mean_score, fraction_positive`` of
  ``df.fair.reliability(...)`` (small multiples, one panel per group);
* :func:`threshold_chart` reads keys, ``threshold, impact_ratio, low_support`` of
  ``df.fair.sweep(...)``;
* :func:`divergence_chart` reads ``attributes``, the attribute columns, ``divergence, ci_low,
  ci_high, significant`` of a divergence table.

A group is labelled by its value, or ``"v1 | v2"`` for an intersection of several attributes
(a null value reads ``"(missing)"``; "—" is kept for an undefined figure). Altair and
vl-convert come with the ``plot`` extra (``pip install "polars_fair[plot]"``) and are imported
only when a chart is drawn, so ``polars_fair`` itself imports without them.

Why one module: it is the package's one optional-dependency boundary (Altair
and vl-convert, imported lazily by :func:`_require`), and its seven charts share the same small
helpers (group labels, inline data, colour scales, the column checks) and the same output
functions (:func:`save`, :func:`to_svg`). Each chart is one function that reads one analysis
table and computes nothing of its own, so the module grows by one self-contained function per
chart; splitting it would spread one public namespace, ``polars_fair.audit.plot``, over several
modules without separating any concern.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import parse, render
from polars_fair._lazy import np
from polars_fair.core.labels import (
    MISSING_GROUP,
    group_label,
    list_text,
    named_text,
    printable_spec,
    text_of,
)
from polars_fair.core.limits import LIMITS, check_size, with_limits
from polars_fair.core.options import DEFAULTS
from polars_fair.core.reference import SCORE_RULES, Reference
from polars_fair.core.registry import METRICS
from polars_fair.core.spec import SCORE_TABLE_COLUMNS, check_int

if TYPE_CHECKING:  # pragma: no cover
    import altair

    from polars_fair.api.objects import FairScores

__all__ = [
    "CHART_GROUPS",
    "MISSING_EXTRA",
    "MISSING_GROUP",
    "RATIO_BOUNDS",
    "calibration_chart",
    "check_render_size",
    "divergence_chart",
    "group_label",
    "pairwise_heatmap",
    "pattern_label",
    "power_chart",
    "rates_chart",
    "roc_chart",
    "save",
    "threshold_chart",
    "to_svg",
]

#: Raised (as ImportError) when the optional plotting libraries are not installed.
MISSING_EXTRA = (
    "{what} needs the optional module {module!r}: install the plot extra with "
    'pip install ".[plot]" in the source checkout you installed from (altair, '
    'vl-convert-python, great-tables)'
)
UNKNOWN_SUFFIX = "cannot tell the image format of {path!r}: use a .png, .svg or .json suffix"
MISSING_CHART_COLUMN = "{what} needs column {column!r}; the table has columns: {available}"
COMBINATION_TABLE = (
    "{what} draws one attribute set; this table holds several (column 'attributes'). Filter it "
    "first, e.g. .filter(pl.col('attributes') == ['race', 'sex']).drop('attributes')"
)
UNKNOWN_CHART_GROUP = "{role} group {group!r} is not in the table; the groups are: {groups}"

#: The most groups a chart of several panels or lines draws by default; the rest are named in
#: the chart's subtitle (:func:`calibration_chart`, :func:`threshold_chart`).
CHART_GROUPS = 12
#: The colour bounds a ratio heatmap chooses from: the smallest that holds every cell's
#: ``max(x, 1/x)``, at most the last (cells beyond are clipped, counted in the subtitle).
RATIO_BOUNDS = (1.25, 1.5, 2.0, 3.0, 4.0, 8.0)

#: The title of each metric on axes and legends: its registry entry's title
#: (:data:`polars_fair.core.registry.METRICS`), so a metric added there is named here too.
RATE_TITLES: dict[str, str] = {m.name: m.title for m in METRICS.values()}
_SCORE_COLUMNS = SCORE_TABLE_COLUMNS


def _require(module: str, what: str) -> Any:
    """Import an optional module or raise an ImportError naming the extra."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(MISSING_EXTRA.format(what=what, module=module)) from exc


def _altair(what: str) -> Any:
    return _require("altair", what)


def _collect(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def _need(df: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    if "attributes" in df.columns:
        raise E.InvalidArgumentError(COMBINATION_TABLE.format(what=what))
    for c in columns:
        if c not in df.columns:
            raise E.ColumnNotFoundError(
                MISSING_CHART_COLUMN.format(what=what, column=c,
                                            available=E.show_columns(df.columns))
            )


#: The Raises entries every chart shares, written once: :func:`_chart_errors` puts them first in
#: each chart's Raises section (``help()``, ``inspect.getdoc`` and the API reference show them).
_CHART_RAISES = (
    "ImportError\n    Without the plot extra (``pip install \"polars_fair[plot]\"``).\n"
    "ColumnNotFoundError\n    {missing}"
)
_F = TypeVar("_F", bound=Callable[..., Any])


def _chart_errors(missing: str = "A required column is missing.") -> Callable[[_F], _F]:
    """Open a chart's Raises section with the errors of every chart (:data:`_CHART_RAISES`)."""
    def add(chart: _F) -> _F:
        head, sections = parse(chart.__doc__ or "")
        own = sections.get("Raises", "")
        sections["Raises"] = "\n".join(
            p for p in (_CHART_RAISES.format(missing=missing), own) if p)
        chart.__doc__ = render(head, sections)
        return chart
    return add


_SHARED_DATA: list[Any] = []  # the InlineData class of _values, made once Altair is imported


def _channels(**encodings: Any) -> dict[str, Any]:
    """Encodings as Altair channel objects, which ``encode`` takes as they are.

    Given a shorthand (``"fpr:Q"``), a condition or a datum (dicts), ``encode`` resolves the
    channel's class by trying the Vega-Lite schema's alternatives with jsonschema, about 20 ms
    each (half a second of the Adult audit page); the channel's own class, built here, gives the
    same spec at once.
    """
    alt = _altair("charts")
    built: dict[str, Any] = {}
    for name, value in encodings.items():
        cls = name[0].upper() + name[1:]
        if isinstance(value, str):
            value = getattr(alt, cls)(value)
        elif isinstance(value, dict) and "datum" in value and len(value) == 1:
            value = getattr(alt, cls + "Datum")(value["datum"])
        elif isinstance(value, dict) and "value" in value:
            value = getattr(alt, cls + "Value")(**value)
        built[name] = value
    return built


def _values(df: pl.DataFrame) -> Any:
    """Inline data for a chart: plain JSON rows (no data transformer, no row limit).

    The rows are never changed once made, so every copy of a chart shares them: Altair copies
    each layer, deeply, several times as it builds a layered chart (``alt.layer``,
    ``.properties``), and on the ROC curves' inline rows that copying cost more than building
    the chart (about 130,000 calls on an Adult page). The spec, and so the chart, is the same.
    """
    alt = _altair("a chart")
    if not _SHARED_DATA:
        class SharedInlineData(alt.InlineData):  # type: ignore[misc,name-defined]
            """``alt.InlineData`` whose (deep) copy is itself: its rows are never changed."""

            def __deepcopy__(self, memo: Any = None) -> Any:
                return self

        _SHARED_DATA.append(SharedInlineData)
    clean = df.with_columns(pl.col(pl.Float64).fill_nan(None))
    return _SHARED_DATA[0](values=json.loads(clean.write_json()))


def _group_scale(n: int) -> Any:
    alt = _altair("a chart")
    return alt.Scale(scheme="tableau10" if n <= 10 else "tableau20")


def _ranked(data: pl.DataFrame, order: Sequence[str], *columns: str) -> pl.DataFrame:
    """Each label column's place in ``order`` as data (``<column>_rank``), to sort by.

    Vega-Lite turns a sort list of labels into a Vega expression; a label holding U+2028 or
    U+2029 (JavaScript line ends) makes it fail to parse. Sorting by a rank field keeps every
    label in the data only.
    """
    ranks = list(range(len(order)))
    return data.with_columns(
        pl.col(c).replace_strict(list(order), ranks, default=None, return_dtype=pl.Int64)
        .alias(f"{c}_rank") for c in columns)


def _by_rank(alt: Any, column: str) -> Any:
    """The sort of a channel by :func:`_ranked`'s field for ``column``."""
    return alt.EncodingSortField(field=f"{column}_rank", op="min")


def _keys_before(df: pl.DataFrame, column: str) -> list[str]:
    return df.columns[: df.columns.index(column)] if column in df.columns else []


def _chart_table(frame: pl.DataFrame | pl.LazyFrame, columns: Sequence[str], what: str, *,
                 keys: Sequence[str] | None = None,
                 before: str | None = None) -> tuple[Any, pl.DataFrame, list[str]]:
    """A chart's start: Altair, its table collected and checked, and the table's group keys.

    The keys are ``keys`` when given, else the columns before ``before`` (none without it).
    """
    alt = _altair(what)
    df = _collect(frame)
    _need(df, columns, what)
    found = list(keys) if keys is not None else _keys_before(df, before) if before else []
    return alt, df, found


def _group(keys: Sequence[str]) -> pl.Expr:
    """The ``group`` column: each row's group label, or ``"all"`` without keys."""
    return group_label(keys) if keys else pl.lit("all").alias("group")


def _largest_groups(data: pl.DataFrame, rows: pl.Expr,
                    max_groups: int) -> tuple[list[str], list[str]]:
    """The groups a chart draws and those it leaves out.

    The ``max_groups`` groups with most ``rows`` (ties in table order), in table order, and the
    groups left out, largest first.
    """
    sizes = data.group_by("group", maintain_order=True).agg(rows=rows)
    ranked = sizes.with_row_index("__pf_row").sort(
        ["rows", "__pf_row"], descending=[True, False])["group"].to_list()
    drawn, left = ranked[:max_groups], ranked[max_groups:]
    return [g for g in sizes["group"].to_list() if g in drawn], left


def _rule(column: str, value: float, text: str, colour: str, dash: list[int]) -> list[Any]:
    """A dashed horizontal rule at ``value`` on the y axis, labelled ``text`` at its left end."""
    alt = _altair("a chart")
    rule_data = pl.DataFrame({column: [float(value)], "label": [text]})
    rule = alt.Chart(_values(rule_data)).mark_rule(color=colour, strokeDash=dash).encode(
        **_channels(y=f"{column}:Q"))
    label = alt.Chart(_values(rule_data)).mark_text(
        align="left", dx=4, dy=-6, color=colour).encode(**_channels(
        y=f"{column}:Q", x=alt.value(0), text="label:N"))
    return [rule, label]


# --------------------------------------------------------------------------- pairwise heatmap


def _pair_keys(df: pl.DataFrame) -> list[str]:
    return [
        c[:-2] for c in df.columns
        if c.endswith("_i") and c != "n_i" and f"{c[:-2]}_j" in df.columns
    ]


@with_limits
@_chart_errors("``metric`` or a key column is missing.")
def pairwise_heatmap(
    pairs: pl.DataFrame | pl.LazyFrame,
    metric: str = "ofi",
    keys: Sequence[str] | None = None,
    *,
    title: str | None = None,
    cell_size: int = 46,
    ratio_clip: float | None = None,
) -> altair.LayerChart:
    """Heatmap of one pairwise metric over every ordered pair of groups (OFI paper, Fig. 2).

    Cell (row ``i``, column ``j``) shows the metric for the pair, for example
    ``OFI(i, j) = B_i − B_j`` or ``DI(i, j) = selection_rate_i / selection_rate_j``, with its
    value written in the cell. The colour scale diverges around "no bias": 0 for OFI and the
    ``*_difference`` metrics, 1 for disparate impact and the ``*_ratio`` metrics; blue means
    group ``i`` fares better than ``j``, red worse. Differences use a symmetric domain (at least
    ±0.3 for OFI, the paper's threshold). Ratios use a log colour scale symmetric around 1, so
    0.5 and 2 are equally strong colours: its bounds ``[1/c, c]`` are the smallest ``c`` of
    :data:`RATIO_BOUNDS` holding every cell (at most 8, or ``ratio_clip``); a cell beyond is
    clipped to the bound's colour, the subtitle says how many cells are, and the cell's text
    still shows its value (8.61 reads 8.61, not 8). The diagonal (a group against itself) is
    the no-bias value; undefined cells are grey and read ``n/a``.

    Parameters
    ----------
    pairs : pl.DataFrame or pl.LazyFrame
        The output of ``df.fair.pairwise(by, metrics=...)``: columns ``<key>_i``, ``<key>_j``
        for each key and the ``metric`` column (Float64, null where undefined). One attribute
        set only (no ``attributes`` column).
    metric : str, default "ofi"
        The metric column to draw: ``"ofi"``, ``"disparate_impact"``, ``"<rate>_difference"``
        or ``"<rate>_ratio"``.
    keys : sequence of str, optional
        The attribute names; default: every ``X`` with both ``X_i`` and ``X_j`` columns.
    title : str, optional
        Chart title; default names the metric (a subtitle says how to read the colours).
    cell_size : int, default 46
        Side of a cell in pixels.
    ratio_clip : float, optional
        For a ratio metric, the colour bound ``c`` (> 1): colours span ``[1/c, c]`` on a log
        scale. Default: chosen from :data:`RATIO_BOUNDS` as above.

    Returns
    -------
    altair.LayerChart
        Rows are group ``i``, columns group ``j``, in the order of the table.

    Raises
    ------
    InvalidArgumentError
        No key columns found, or a table of several attribute sets; ``cell_size`` not an
        integer >= 1.
    SizeLimitError
        ``cell_size`` above |limit:cell_size| pixels.

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.plot import pairwise_heatmap, save
    >>> pairs = make_hiring(5000, seed=0).fair.pairwise(["race", "sex"])
    >>> save(pairwise_heatmap(pairs, "ofi"), "ofi.png")  # doctest: +SKIP
    """
    check_int(cell_size, "cell_size")  # and at most its limit (polars_fair.core.limits)
    alt = _altair("pairwise_heatmap")
    df = _collect(pairs)
    keys = list(keys) if keys is not None else _pair_keys(df)
    if not keys:
        raise E.InvalidArgumentError(
            "pairwise_heatmap found no <key>_i / <key>_j columns; pass keys=[...]"
        )
    _need(df, [*(f"{k}_i" for k in keys), *(f"{k}_j" for k in keys), metric], "pairwise_heatmap")
    ratio = metric == "disparate_impact" or metric.endswith("_ratio")
    mid = 1.0 if ratio else 0.0
    data = df.select(
        group_label([f"{k}_i" for k in keys]).alias("i"),
        group_label([f"{k}_j" for k in keys]).alias("j"),
        pl.col(metric).cast(pl.Float64).fill_nan(None).alias("value"),
    )
    order = pl.concat([data["i"], data["j"]]).unique(maintain_order=True).to_list()
    diagonal = pl.DataFrame(
        {"i": order, "j": order, "value": [mid] * len(order)},
        schema={"i": pl.String, "j": pl.String, "value": pl.Float64},
    )
    data = pl.concat([data.with_columns(diag=pl.lit(False)),
                      diagonal.with_columns(diag=pl.lit(True))])
    beyond = 0
    if ratio:  # a log scale symmetric around 1: 0.5 and 2 are equally far from no bias
        folds = data.filter(~pl.col("diag") & pl.col("value").is_not_null()).select(
            fold=pl.when(pl.col("value") <= 0).then(float("inf")).otherwise(
                pl.max_horizontal(pl.col("value"), 1 / pl.col("value"))))["fold"]
        largest = float(folds.max()) if folds.len() else 1.0  # type: ignore[arg-type]
        bound = next((b for b in RATIO_BOUNDS if b >= largest), RATIO_BOUNDS[-1])
        if ratio_clip is not None:
            bound = float(ratio_clip)
        beyond = int((folds > bound).sum())
        lo, hi = 1 / bound, bound
        colour = pl.col("value").clip(lo, hi)
        strong_fold = pl.when(pl.col("value") > 0).then(
            pl.col("value").clip(lo, hi).log().abs()).otherwise(np.log(hi))
        dark = strong_fold.fill_null(0.0) > 0.55 * float(np.log(hi))
    else:
        finite = data["value"].drop_nulls().abs()
        largest = float(np.max(finite.to_numpy())) if finite.len() else 0.0
        span = max(largest, 0.3 if metric == "ofi" else 0.1)
        span = float(np.ceil(span * 10) / 10)
        lo, hi = -span, span
        colour = pl.col("value")
        dark = (pl.col("value") - mid).abs().fill_null(0.0) > 0.55 * (hi - lo) / 2
    texts = [
        "" if d else "n/a" if v is None else f"{v:.2f}".replace("-0.00", "0.00")
        for v, d in zip(data["value"].to_list(), data["diag"].to_list(), strict=True)
    ]
    data = _ranked(data.with_columns(
        text=pl.Series(texts, dtype=pl.String), colour=colour, dark=dark,
    ), order, "i", "j")
    name = {"ofi": "OFI(i, j) = B_i − B_j", "disparate_impact": "DI(i, j) = SR_i / SR_j"}.get(
        metric, f"{metric}(i, j)"
    )
    subtitle = [f"blue: row group i favoured over column group j; red: disfavoured; "
                f"centre {mid:g}"]
    if ratio:
        subtitle.append(
            f"log colour scale symmetric around 1 (x and 1/x equally strong), clipped to "
            f"[1/{hi:g}, {hi:g}]: " + (f"{beyond} cell(s) beyond it, their numbers written"
                                       if beyond else "no cell beyond it"))
    n = len(order)
    x = alt.X("j:N", sort=_by_rank(alt, "j"), title="group j (column)",
              axis=alt.Axis(labelAngle=-40))
    y = alt.Y("i:N", sort=_by_rank(alt, "i"), title="group i (row)")
    base = alt.Chart(_values(data)).encode(**_channels(x=x, y=y))
    background = base.mark_rect(color="#e6e6e6")
    if ratio:
        scale = alt.Scale(type="log", scheme="redblue", domain=[lo, hi], domainMid=mid)
        legend = alt.Legend(title=metric, format=".3~g",
                            values=sorted({lo, 1.0, hi} | {v for v in (0.8, 1.25) if lo < v < hi}))
    else:
        scale = alt.Scale(scheme="redblue", domain=[lo, hi], domainMid=mid, clamp=True)
        legend = alt.Legend(title=metric, format=".2f")
    colored = base.mark_rect().encode(**_channels(
        color=alt.Color("colour:Q", scale=scale, legend=legend)
    )).transform_filter("datum.value != null && !datum.diag")
    text = base.mark_text(fontSize=10).encode(**_channels(
        text="text:N",
        color=alt.condition("datum.dark", alt.value("white"), alt.value("black")),
    ))
    chart = alt.layer(background, colored, text).properties(
        width=cell_size * n, height=cell_size * n,
        title=alt.TitleParams(title or name, subtitle=subtitle),
    )
    return cast("altair.LayerChart", chart)


# --------------------------------------------------------------------------- rates with CIs


@_chart_errors()
def rates_chart(
    metrics_frame: pl.DataFrame | pl.LazyFrame,
    rates: Sequence[str] = ("selection_rate", "tpr", "fpr"),
    keys: Sequence[str] | None = None,
    *,
    title: str | None = None,
) -> altair.LayerChart:
    """Grouped bars of each group's rates with their confidence intervals as error bars.

    For every rate in ``rates`` (one cluster per rate, in the order given) one bar per group,
    its height the rate and its error bar the interval ``[ci_low, ci_high]`` of ``metrics``
    (Wilson for the rates; as in the Fairlearn/handbook figure of group metrics with
    uncertainty). Bars of groups whose
    denominator is below ``min_support`` (``low_support``) are drawn faint. An undefined rate
    (null, a zero denominator) has no bar.

    Parameters
    ----------
    metrics_frame : pl.DataFrame or pl.LazyFrame
        The tidy output of ``df.fair.metrics(by, ...)``: key columns, then ``metric``,
        ``value``, ``ci_low``, ``ci_high`` (Float64) and ``low_support`` (Boolean, optional).
    rates : sequence of str, default ("selection_rate", "tpr", "fpr")
        Values of ``metric`` to draw: any metric of :data:`polars_fair.core.registry.METRICS`, named
        on the axis by its registry title (:data:`RATE_TITLES`).
    keys : sequence of str, optional
        Key columns; default: every column before ``metric``.
    title : str, optional

    Returns
    -------
    altair.LayerChart
        y is the value (axis in percent) over the registry range of the drawn metrics ([0, 1]
        for rates, [−1, 1] with ``marginal_benefit``); x the metric's title, with the groups
        side by side.

    Raises
    ------
    InvalidArgumentError
        A rate of ``rates`` is not in the table, or a table of several attribute sets.

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.plot import rates_chart, save
    >>> m = make_hiring(5000, seed=0).fair.metrics("race")
    >>> save(rates_chart(m, rates=("selection_rate", "tpr", "fpr")), "rates.png")  # doctest: +SKIP
    """
    alt, df, keys = _chart_table(metrics_frame, ["metric", "value", "ci_low", "ci_high"],
                                 "rates_chart", keys=keys, before="metric")
    rates = list(rates)
    present = set(df["metric"].unique().to_list())
    missing = [r for r in rates if r not in present]
    if missing:
        raise E.InvalidArgumentError(
            f"rates_chart: metric(s) {missing} not in the table; it has {sorted(present)}"
        )
    support = pl.col("low_support") if "low_support" in df.columns else pl.lit(False)
    data = df.filter(pl.col("metric").is_in(rates)).select(
        _group(keys),
        pl.col("metric").replace_strict(RATE_TITLES, default=pl.col("metric")).alias("rate"),
        "value", "ci_low", "ci_high",
        support.fill_null(False).alias("low_support"),
    ).filter(pl.col("value").is_not_null())
    order = (df.select(group_label(keys)) if keys else pl.DataFrame({"group": ["all"]}))[
        "group"
    ].unique(maintain_order=True).to_list()
    rate_order = [RATE_TITLES.get(r, r) for r in rates]
    # the y axis spans the registry's ranges of the drawn metrics ([0, 1] for the rates)
    low = min((METRICS[r].low for r in rates if r in METRICS), default=0.0)
    high = max((METRICS[r].high for r in rates if r in METRICS), default=1.0)
    legend_title = " | ".join(keys) if keys else "group"
    base = alt.Chart(_values(_ranked(data, order, "group"))).encode(**_channels(
        x=alt.X("rate:N", sort=rate_order, title=None, axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("group:N", sort=_by_rank(alt, "group")),
    ))
    bars = base.mark_bar().encode(**_channels(
        y=alt.Y("value:Q", title="value", scale=alt.Scale(domain=[low, high]),
                axis=alt.Axis(format="%")),
        color=alt.Color("group:N", sort=_by_rank(alt, "group"), scale=_group_scale(len(order)),
                        legend=alt.Legend(title=legend_title)),
        opacity=alt.condition("datum.low_support", alt.value(0.35), alt.value(0.9)),
    ))
    errors = base.mark_rule(color="black", strokeWidth=1.2).encode(
        **_channels(y="ci_low:Q", y2="ci_high:Q"))
    caps_low = base.mark_tick(color="black", size=6, thickness=1.2).encode(
        **_channels(y="ci_low:Q"))
    caps_high = base.mark_tick(color="black", size=6, thickness=1.2).encode(
        **_channels(y="ci_high:Q"))
    width = max(320, 16 * len(order) * len(rates) + 30 * len(rates))
    if title is None:
        title = "Rates by group with 95% intervals (faint: low support)"
    chart = alt.layer(bars, errors, caps_low, caps_high).properties(
        width=width, height=280, title=title
    )
    return cast("altair.LayerChart", chart)


# --------------------------------------------------------------------------- ROC and ABROCA


def _resolve(label_or_spec: Any, labels: list[str], keys: Sequence[str], role: str) -> str:
    several = (" | ",) if len(keys) > 1 else ()  # spelled as group_label spells a group
    if isinstance(label_or_spec, Mapping):
        spec = dict(label_or_spec)
        wanted = " | ".join(text_of(spec.get(k), ambiguous=several) for k in keys)
    elif isinstance(label_or_spec, tuple):
        wanted = " | ".join(text_of(v, ambiguous=several) for v in label_or_spec)
    else:
        wanted = str(label_or_spec)
    if wanted not in labels:
        raise E.InvalidArgumentError(
            UNKNOWN_CHART_GROUP.format(role=role, group=wanted, groups=E.show_columns(labels))
        )
    return wanted


def _on_grid(fpr: np.ndarray, tpr: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """The curve at each grid FPR (right limit at a vertical step), for drawing only."""
    idx = np.searchsorted(fpr, grid, side="right") - 1
    idx = np.clip(idx, 0, len(fpr) - 2)
    x0, x1 = fpr[idx], fpr[idx + 1]
    y0, y1 = tpr[idx], tpr[idx + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(x1 > x0, (grid - x0) / (x1 - x0), 1.0)
    return np.asarray(np.clip(y0 + np.clip(t, 0.0, 1.0) * (y1 - y0), 0.0, 1.0), dtype=np.float64)


@with_limits
@_chart_errors()
def roc_chart(
    scores: FairScores | pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str] | None = None,
    *,
    reference: Any = DEFAULTS.reference,
    group: Any = None,
    min_support: int = DEFAULTS.min_support,
    max_points: int = 400,
    title: str | None = None,
) -> altair.LayerChart:
    """ROC curves per group, with the area between two groups' curves (ABROCA) shaded.

    The chart draws tables of the analysis layer and computes no curve itself: each group's
    curve is a group of :meth:`polars_fair.api.objects.FairScores.roc_curves` (tied scores form one
    diagonal segment), and the reference group, each group's ``n`` and its exact ABROCA,
    ``∫₀¹ |TPR_g − TPR_ref| dFPR`` (Gardner, Brooks & Baker 2019), are
    :meth:`polars_fair.api.objects.FairScores.abroca` with ``reference`` (the one reference rule of
    :mod:`polars_fair.core.reference`). The area between the reference's curve and ``group``'s is
    shaded and its ABROCA is in the subtitle. The chance diagonal is dashed. Groups with one
    class have no curve (named in the subtitle). Curves with more than ``max_points`` points are
    drawn through ``max_points`` evenly spaced FPR values (a drawing simplification only; the
    number is exact).

    Parameters
    ----------
    scores : FairScores, pl.DataFrame or pl.LazyFrame
        The score analyses (:func:`polars_fair.scores`, :func:`polars_fair.from_scores`), or a
        score table of ``df.fair.scores(by, y_score=...)``: key columns, ``score``,
        ``positives``, ``negatives`` (and ``n_rows`` when weighted).
    keys : sequence of str, optional
        Key columns of a score table; default: every column but ``score, positives,
        negatives, n_rows``. Ignored for a ``FairScores``.
    reference : "largest", "max_auc", str, tuple, mapping or Reference, default "largest"
        The reference group: a rule of :mod:`polars_fair.core.reference` (``"largest"``: the group
        with most rows among those with both classes), a group label (``"White"``,
        ``"Black | Female"``), a tuple of values, a mapping ``{"race": "White", ...}``, or a
        :class:`polars_fair.core.reference.Reference` of one of them.
    group : str, tuple or mapping, optional
        The group compared with the reference; default: the group with the largest ABROCA
        among those with at least ``min_support`` rows (any group if none has).
    min_support : int, default 30
        Rows a group needs to be chosen by default.
    max_points : int, default 400
        Points per drawn curve.
    title : str, optional
        Chart title; default "ROC curves by group".

    Returns
    -------
    altair.LayerChart
        x = FPR, y = TPR, both in [0, 1].

    Raises
    ------
    InvalidArgumentError
        ``reference`` or ``group`` is not a group, the reference has one class, or fewer than
        two groups have a curve; ``max_points`` not an integer >= 1.
    SizeLimitError
        ``max_points`` above |limit:max_points|.

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.plot import roc_chart, save
    >>> s = make_hiring(5000, seed=0).fair.scores("race", y_score="y_score")
    >>> save(roc_chart(s, reference="White", group="Black"), "roc.png")  # doctest: +SKIP
    """
    check_int(max_points, "max_points")  # and at most its limit (polars_fair.core.limits)
    alt = _altair("roc_chart")
    from polars_fair.api.external import from_scores
    from polars_fair.api.objects import FairScores

    if isinstance(scores, FairScores):
        fs = scores
    else:
        df = _collect(scores)
        _need(df, ["score", "positives", "negatives"], "roc_chart")
        names = list(keys) if keys is not None else [
            c for c in df.columns if c not in _SCORE_COLUMNS]
        fs = from_scores(df, names)
    keys = list(fs.keys)
    if not keys:
        raise E.InvalidArgumentError("roc_chart needs the group key columns of the score table")
    reference_arg = Reference.parse(reference)
    if reference_arg.rule not in SCORE_RULES:  # a group, or its label: the group's own values
        key_frame = fs.frame.select(keys).unique(maintain_order=True).collect()
        labels = key_frame.select(group_label(keys))["group"].to_list()
        index = labels.index(_resolve(reference_arg.argument, labels, keys, "reference"))
        reference_arg = Reference.parse(dict(zip(keys, key_frame.row(index), strict=True)))
    table = fs.abroca(reference=reference_arg).collect().with_columns(group_label(keys))
    labels = table["group"].to_list()
    sizes = dict(zip(labels, table["n"].cast(pl.Float64).to_list(), strict=True))
    ref = table.filter(pl.col("is_reference"))["group"].item()
    one_class = table.filter(pl.col("auc").is_null())["group"].to_list()
    if ref in one_class:
        raise E.InvalidArgumentError(f"roc_chart: the reference group {ref!r} has one class only")
    areas: dict[str, float] = dict(
        table.filter(~pl.col("is_reference") & pl.col("abroca").is_not_null())
        .select("group", "abroca").iter_rows()
    )
    others = list(areas)
    if not others:
        raise E.InvalidArgumentError("roc_chart needs two groups with both classes")
    if group is None:
        pool = [g for g in others if sizes[g] >= min_support] or others
        chosen = max(pool, key=lambda g: areas[g])
    else:
        chosen = _resolve(group, labels, keys, "compared")
        if chosen not in areas:
            raise E.InvalidArgumentError(
                f"roc_chart: group {chosen!r} has one class only or is the reference"
            )
    lines, band, order = _roc_lines(fs, keys, labels, ref, chosen, max_points)
    legend_title = " | ".join(keys)
    axis = {"scale": alt.Scale(domain=[0, 1]), "axis": alt.Axis(format=".1f")}
    area = alt.Chart(_values(band)).mark_area(color="#f28e2b", opacity=0.3).encode(**_channels(
        x=alt.X("fpr:Q", title="false positive rate", **axis),
        y=alt.Y("tpr_ref:Q", title="true positive rate", **axis),
        y2="tpr_group:Q",
    ))
    diagonal = alt.Chart(_values(pl.DataFrame({"fpr": [0.0, 1.0], "tpr": [0.0, 1.0]}))).mark_line(
        color="#999999", strokeDash=[4, 4]
    ).encode(**_channels(x="fpr:Q", y="tpr:Q"))
    curve_lines = alt.Chart(_values(_ranked(lines, order, "group"))).mark_line().encode(**_channels(
        x="fpr:Q", y="tpr:Q", order="i:Q",
        color=alt.Color("group:N", sort=_by_rank(alt, "group"), scale=_group_scale(len(order)),
                        legend=alt.Legend(title=legend_title)),
        strokeWidth=alt.condition("datum.highlight", alt.value(2.6), alt.value(1.0)),
        opacity=alt.condition("datum.highlight", alt.value(1.0), alt.value(0.55)),
    ))
    subtitle = [f"shaded: ABROCA({chosen} vs reference {ref}) = {areas[chosen]:.4f}"]
    if one_class:
        subtitle.append(f"no curve (one class): {', '.join(one_class)}")
    chart = alt.layer(area, diagonal, curve_lines).properties(
        width=360, height=360,
        title=alt.TitleParams(title or "ROC curves by group", subtitle=subtitle),
    )
    return cast("altair.LayerChart", chart)


# --------------------------------------------------------------------------- power


def _roc_lines(fs: FairScores, keys: list[str], labels: list[str], ref: str, chosen: str,
               max_points: int) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """Each group's ROC curve (at most ``max_points`` segments), the band between two curves.

    Returns the curves' points (the reference's and ``chosen``'s highlighted), the band between
    the reference's and ``chosen``'s curves on a common grid, and the groups in legend order.
    """
    curves: dict[str, tuple[np.ndarray, np.ndarray]] = {
        part["group"][0]: (part["fpr"].to_numpy(), part["tpr"].to_numpy())
        for part in fs.roc_curves().collect().with_columns(group_label(keys))
        .partition_by("group", maintain_order=True)
    }
    grid = np.linspace(0.0, 1.0, max_points + 1)
    rows: list[pl.DataFrame] = []
    for g, (fpr, tpr) in curves.items():
        if len(fpr) > max_points:
            fpr, tpr = grid, _on_grid(fpr, tpr, grid)
        rows.append(pl.DataFrame({
            "group": [g] * len(fpr), "fpr": fpr, "tpr": tpr,
            "i": np.arange(len(fpr), dtype=np.int64),
            "highlight": [g in (ref, chosen)] * len(fpr),
        }))
    lines = pl.concat(rows)
    band = pl.DataFrame({
        "fpr": grid,
        "tpr_ref": _on_grid(*curves[ref], grid),
        "tpr_group": _on_grid(*curves[chosen], grid),
    })
    order = [g for g in labels if g in curves]
    return lines, band, order


@_chart_errors()
def power_chart(
    curve: pl.DataFrame | pl.LazyFrame,
    *,
    target: float = 0.8,
    title: str | None = None,
) -> altair.LayerChart:
    """Power of the ABROCA randomization test over the test-set size, one line per effect.

    Each line is one effect size (``ΔAUC``), its points the simulated power at each size with
    error bars ±1.96 Monte-Carlo standard errors (clipped to [0, 1]); a dashed rule marks the
    conventional ``target`` power 0.8 (Borchers et al., Figure 3).

    Parameters
    ----------
    curve : pl.DataFrame or pl.LazyFrame
        The output of :func:`polars_fair.analyses.scores.power.power_curve`: ``delta_auc``, ``n``,
        ``power`` and ``mc_se`` (``auc_a`` and ``auc_b``, when present, name the effect in the
        legend).
    target : float, default 0.8
        Height of the rule line.
    title : str, optional

    Returns
    -------
    altair.LayerChart
        x = n (rows in the test set), y = power in [0, 1].

    Examples
    --------
    >>> from polars_fair.analyses.scores.power import power_curve
    >>> from polars_fair.audit.plot import power_chart, save
    >>> curve = power_curve(sizes=[200, 500, 1000], delta_aucs=[0.05, 0.1],
    ...                     seed=0)  # doctest: +SKIP
    >>> save(power_chart(curve), "power.png")  # doctest: +SKIP
    """
    alt, df, _ = _chart_table(curve, ["delta_auc", "n", "power", "mc_se"], "power_chart")
    if "auc_a" in df.columns and "auc_b" in df.columns:
        effect = pl.format(
            "ΔAUC {} ({} vs {})",
            pl.col("delta_auc").round(3), pl.col("auc_a").round(3), pl.col("auc_b").round(3),
        )
    else:
        effect = pl.format("ΔAUC {}", pl.col("delta_auc").round(3))
    data = df.select(
        effect.alias("effect"), "n", "power",
        (pl.col("power") - 1.96 * pl.col("mc_se")).clip(0.0, 1.0).alias("low"),
        (pl.col("power") + 1.96 * pl.col("mc_se")).clip(0.0, 1.0).alias("high"),
    )
    order = data["effect"].unique(maintain_order=True).to_list()
    base = alt.Chart(_values(data)).encode(**_channels(
        x=alt.X("n:Q", title="test-set size n (rows)"),
        color=alt.Color("effect:N", sort=order, scale=_group_scale(len(order)),
                        legend=alt.Legend(title="effect")),
    ))
    y = alt.Y("power:Q", title="power", scale=alt.Scale(domain=[0, 1]))
    lines = base.mark_line(point=True).encode(**_channels(y=y))
    bars = base.mark_rule().encode(**_channels(y="low:Q", y2="high:Q"))
    rule = _rule("power", target, f"power {target:g}", "#555555", [5, 4])
    chart = alt.layer(*rule, bars, lines).properties(
        width=420, height=280,
        title=title or "Power of the ABROCA test (error bars: ±1.96 MC SE)",
    )
    return cast("altair.LayerChart", chart)


# --------------------------------------------------------------------------- calibration


@_chart_errors()
def calibration_chart(
    reliability: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str] | None = None,
    *,
    min_count: int = 30,
    max_groups: int = CHART_GROUPS,
    columns: int = 4,
    title: str | None = None,
) -> altair.FacetChart:
    """Reliability (calibration) curves as small multiples: one panel per group.

    Each point is one score bin of one group: x the mean score in the bin, y the fraction of
    positive labels, with the bin's row count written beside it. A calibrated group lies on the
    dashed diagonal ``y = x``. A bin with fewer than ``min_count`` rows (the audit's low-support
    rule, ``min_support``) is drawn as a hollow grey point and left out of the line: its
    fraction is too noisy to read. Empty bins (``n = 0``, null means) are left out. At most
    ``max_groups`` panels are drawn, the groups with the most rows; the subtitle names the
    others.

    Parameters
    ----------
    reliability : pl.DataFrame or pl.LazyFrame
        The output of ``df.fair.reliability(by, y_score=...)``: key columns, ``bin``, ``n``,
        ``mean_score``, ``fraction_positive`` (Float64 in [0, 1]).
    keys : sequence of str, optional
        Key columns; default: every column before ``bin``.
    min_count : int, default 30
        A bin with fewer rows is marked (hollow, grey, off the line).
    max_groups : int, default 12
        The most panels (the groups with most rows, ties in table order).
    columns : int, default 4
        Panels per row.
    title : str, optional

    Returns
    -------
    altair.FacetChart
        One panel per group; x = mean predicted score, y = observed fraction positive, both
        in [0, 1].

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.plot import calibration_chart, save
    >>> r = make_hiring(5000, seed=0).fair.reliability("race", y_score="y_score")
    >>> save(calibration_chart(r), "calibration.png")  # doctest: +SKIP
    """
    alt, df, keys = _chart_table(reliability, ["mean_score", "fraction_positive", "n"],
                                 "calibration_chart", keys=keys, before="bin")
    data = df.select(
        _group(keys),
        "n", "mean_score", "fraction_positive",
    )
    order, left = _largest_groups(data, pl.col("n").sum(), max_groups)
    data = data.filter(
        pl.col("group").is_in(order) & (pl.col("n") > 0) & pl.col("mean_score").is_not_null()
        & pl.col("fraction_positive").is_not_null()
    ).with_columns(
        few=pl.col("n") < min_count,
        label=pl.col("n").cast(pl.String),
    )
    data = _ranked(data, order, "group")
    axis = {"scale": alt.Scale(domain=[0, 1]), "axis": alt.Axis(format=".1f", tickCount=5)}
    x = alt.X("mean_score:Q", title="mean predicted score", **axis)
    y = alt.Y("fraction_positive:Q", title="fraction positive", **axis)
    diagonal = alt.Chart().mark_rule(color="#999999", strokeDash=[4, 4]).encode(**_channels(
        x=alt.datum(0), y=alt.datum(0), x2=alt.datum(1), y2=alt.datum(1)))
    line = alt.Chart().mark_line(color="#4e79a7").encode(**_channels(
        x=x, y=y, order="mean_score:Q")).transform_filter("!datum.few")
    points = alt.Chart().mark_point(filled=True, size=36).encode(**_channels(
        x=x, y=y,
        color=alt.condition("datum.few", alt.value("#ffffff"), alt.value("#4e79a7")),
        stroke=alt.condition("datum.few", alt.value("#9aa0a6"), alt.value("#4e79a7")),
    ))
    counts = alt.Chart().mark_text(fontSize=8, dx=2, dy=-7, align="left").encode(**_channels(
        x=x, y=y, text="label:N",
        color=alt.condition("datum.few", alt.value("#9aa0a6"), alt.value("#3c4043")),
    ))
    subtitle = [f"numbers: rows in the bin; hollow grey: fewer than {min_count} rows (too few "
                "to read, off the line); dashed: perfect calibration"]
    if left:
        subtitle.append(f"{len(left)} smaller group(s) not drawn: " + _name_some(left))
    chart = alt.layer(diagonal, line, points, counts, data=_values(data)).properties(
        width=170, height=170,
    ).facet(
        facet=alt.Facet("group:N", sort=_by_rank(alt, "group"),
                        title=" | ".join(keys) if keys else None),
        columns=columns,
    ).properties(title=alt.TitleParams(title or "Calibration by group", subtitle=subtitle))
    return cast("altair.FacetChart", chart)


def _name_some(names: Sequence[str], limit: int = 12) -> str:
    """``"a, b, c"`` or, past ``limit`` names, ``"a, b, ... and 7 more"``."""
    shown = list_text(names[:limit])  # "x, y" as one group, never two
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


# --------------------------------------------------------------------------- thresholds


@_chart_errors()
def threshold_chart(
    sweep: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str] | None = None,
    *,
    four_fifths: float = DEFAULTS.four_fifths,
    max_groups: int = CHART_GROUPS,
    title: str | None = None,
) -> altair.LayerChart:
    """Each group's impact ratio against the threshold, with the four-fifths line.

    One line per group: at each threshold of a ``sweep``, the group's impact ratio (its
    selection rate over the highest selection rate at that threshold, EEOC four-fifths rule,
    29 CFR 1607.4(D)). A point under the dashed line at ``four_fifths`` is adverse impact.
    Points of a low-support group (``low_support``) are hollow and its line dashed: the one
    low-support rule of the audit. An undefined impact ratio (nobody selected at that
    threshold) has no point. At most ``max_groups`` lines are drawn, the groups with most rows;
    the subtitle names the others. One threshold applies to every group (group-specific cutoffs
    are disparate treatment under Title VII, 42 U.S.C. § 2000e-2(l)).

    Parameters
    ----------
    sweep : pl.DataFrame or pl.LazyFrame
        The output of ``df.fair.sweep(by, y_score=..., thresholds=...)``: key columns,
        ``threshold`` (Float64), ``impact_ratio`` (Float64, null where undefined),
        ``low_support`` (Boolean) and optionally ``n`` and ``selection_rate``.
    keys : sequence of str, optional
        Key columns; default: every column before ``threshold``.
    four_fifths : float, default 0.8
        Height of the rule line.
    max_groups : int, default 12
        The most lines (the groups with most rows, from ``n`` when present).
    title : str, optional

    Returns
    -------
    altair.LayerChart
        x = threshold, y = impact ratio.

    Examples
    --------
    >>> from polars_fair.datasets import make_hiring
    >>> from polars_fair.audit.plot import save, threshold_chart
    >>> s = make_hiring(5000, seed=0).fair.sweep("race", y_score="y_score")  # doctest: +SKIP
    >>> save(threshold_chart(s), "thresholds.png")  # doctest: +SKIP
    """
    alt, df, keys = _chart_table(sweep, ["threshold", "impact_ratio", "low_support"],
                                 "threshold_chart", keys=keys, before="threshold")
    data = df.select(
        _group(keys),
        pl.col("threshold").cast(pl.Float64),
        pl.col("impact_ratio").cast(pl.Float64).fill_nan(None),
        pl.col("low_support").fill_null(False),
        *([pl.col("selection_rate").cast(pl.Float64)] if "selection_rate" in df.columns else []),
        *([pl.col("n")] if "n" in df.columns else []),
    )
    order, left = _largest_groups(
        data, pl.col("n").max() if "n" in data.columns else pl.len(), max_groups)
    data = _ranked(data.filter(pl.col("group").is_in(order)).with_columns(
        adverse=pl.col("impact_ratio") < four_fifths), order, "group")
    top = max(1.0, float(data["impact_ratio"].max() or 1.0))  # type: ignore[arg-type]
    x = alt.X("threshold:Q", title="threshold (one for every group)")
    y = alt.Y("impact_ratio:Q", title="impact ratio", scale=alt.Scale(domain=[0, top]))
    colour = alt.Color("group:N", sort=_by_rank(alt, "group"), scale=_group_scale(len(order)),
                       legend=alt.Legend(title=" | ".join(keys) if keys else "group"))
    base = alt.Chart(_values(data.filter(pl.col("impact_ratio").is_not_null())))
    lines = base.mark_line().encode(**_channels(
        x=x, y=y, color=colour, order="threshold:Q",
        strokeDash=alt.condition("datum.low_support", alt.value([3, 3]), alt.value([1, 0])),
    ))
    points = base.mark_point(size=28).encode(**_channels(
        x=x, y=y, color=colour,
        fill=alt.condition("datum.low_support", alt.value("white"), alt.Color(
            "group:N", sort=_by_rank(alt, "group"), scale=_group_scale(len(order)),
            legend=None)),
        tooltip=["group:N", "threshold:Q", alt.Tooltip("impact_ratio:Q", format=".3f")],
    ))
    rule = _rule("impact_ratio", four_fifths, f"four-fifths rule: {four_fifths:g}", "#b3261e",
                 [6, 4])
    subtitle = [f"below the red line ({four_fifths:g}): adverse impact; hollow points and "
                "dashed lines: low support"]
    if left:
        subtitle.append(f"{len(left)} smaller group(s) not drawn: " + _name_some(left))
    chart = alt.layer(*rule, lines, points).properties(
        width=460, height=300,
        title=alt.TitleParams(title or "Impact ratio by threshold", subtitle=subtitle),
    )
    return cast("altair.LayerChart", chart)


# --------------------------------------------------------------------------- divergence

#: Columns of a divergence table that are not attribute (key) columns.
_DIVERGENCE_COLUMNS = ("attributes", "divergence", "ci_low", "ci_high", "significant")


def pattern_label(attributes: Sequence[str] | None, row: Mapping[str, Any]) -> str:
    """The label of a pattern: ``"race=Black, sex=Female"`` from its attributes and values.

    Parameters
    ----------
    attributes : sequence of str or None
        The pattern's attributes, in order (the ``attributes`` column of a divergence table);
        empty or None is the whole population.
    row : mapping
        The row's values by column (a key is null outside the pattern; inside it a null value
        reads ``"(missing)"``).

    Returns
    -------
    str
        ``"attr=value, ..."``, or ``"(everyone)"`` for no attribute.

    Examples
    --------
    >>> pattern_label(["race", "sex"], {"race": "Black", "sex": "Female", "age": None})
    'race=Black, sex=Female'
    """
    if not attributes:
        return "(everyone)"
    return named_text({a: row.get(a) for a in attributes})  # quoted as every label is


#: The colour categories of :func:`divergence_chart`: by harm when the metric's direction is
#: known, else by sign.
DIVERGENCE_HARM = ("harms the pattern", "does not harm it")
DIVERGENCE_SIGN = ("above everyone", "not above")


def _table_metric(df: pl.DataFrame, metric: str | None) -> str | None:
    """The metric of a divergence table: ``metric``, or its one-valued ``metric`` column."""
    named = None
    if "metric" in df.columns:
        values = df["metric"].drop_nulls().unique().to_list()
        named = values[0] if len(values) == 1 else None
    if metric is not None and named is not None and metric != named:
        raise E.InvalidArgumentError(E.CHART_METRIC_CLASH.format(metric=metric, named=named))
    chosen = metric if metric is not None else named
    if chosen is not None and chosen not in METRICS:
        raise E.InvalidArgumentError(E.UNKNOWN_METRIC.format(
            metric=chosen, valid=", ".join(METRICS)))
    return chosen


@_chart_errors()
def divergence_chart(
    divergence: pl.DataFrame | pl.LazyFrame,
    *,
    k: int = 15,
    title: str | None = None,
    metric: str | None = None,
) -> altair.LayerChart:
    """The ``k`` patterns of largest absolute divergence, with their intervals.

    One horizontal bar per pattern (an attribute-value combination, such as
    ``race=Black, sex=Female``): its divergence (the pattern's metric minus the whole
    population's, DivExplorer, Pastor et al. 2021) with its interval as an error bar
    (``[divergence_ci_low, divergence_ci_high]``, else ``[ci_low, ci_high]``). Patterns whose
    divergence is ``significant`` are drawn solid, the others faint; a zero line marks no
    divergence. The patterns are ordered by absolute divergence, largest on top.

    The colour says whom the difference harms, from the metric's harm direction
    (:attr:`polars_fair.core.registry.Metric.harm`): for a metric where higher harms (FPR, FNR,
    FDR, FOR) a positive divergence is red ("harms the pattern"), for one where lower harms
    (selection rate, TPR, precision, ...) a negative one is; the other side is blue. Without
    a metric (neither ``metric`` nor a ``metric`` column in the table) or for a metric with no
    harm direction, the colour is only the sign ("above everyone" / "not above"), in neutral
    colours, and the legend says so. The title names the metric.

    Parameters
    ----------
    divergence : pl.DataFrame or pl.LazyFrame
        A divergence table: ``attributes`` (List(String): the pattern's attributes), one column
        per attribute (null outside the pattern), ``divergence``, ``ci_low``, ``ci_high``
        (Float64) and ``significant`` (Boolean); with ``low_support`` (Boolean), a low-support
        pattern's label says so.
    k : int, default 15
        The number of patterns drawn.
    title : str, optional
        The chart's title (default: "Divergence of <the metric's title> by pattern").
    metric : str, optional
        The metric of the table (a name of :data:`polars_fair.core.registry.METRICS`, as given to
        ``divergence(metric=...)``); default: the table's ``metric`` column when it has one
        value, else none (colour by sign).

    Returns
    -------
    altair.LayerChart
        y = pattern, x = divergence, colour = ``direction`` (harms / does not harm, or the
        sign).

    Raises
    ------
    InvalidArgumentError
        ``metric`` is not a metric of the registry, or differs from the table's ``metric``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.audit.plot import divergence_chart
    >>> table = pl.DataFrame({"attributes": [["race"]], "race": ["Black"],
    ...                       "divergence": [-0.1], "ci_low": [-0.15], "ci_high": [-0.05],
    ...                       "significant": [True]})
    >>> chart = divergence_chart(table, k=5, metric="fpr")  # doctest: +SKIP
    """
    alt = _altair("divergence_chart")
    df = _collect(divergence)
    for c in _DIVERGENCE_COLUMNS:
        if c not in df.columns:
            raise E.ColumnNotFoundError(MISSING_CHART_COLUMN.format(
                what="divergence_chart", column=c, available=E.show_columns(df.columns)))
    metric = _table_metric(df, metric)
    harm = METRICS[metric].harm if metric is not None else None
    top = df.filter(pl.col("divergence").is_not_null() & ~pl.col("divergence").is_nan()).sort(
        pl.col("divergence").abs(), descending=True, maintain_order=True).head(k)
    labels = [pattern_label(row["attributes"], row)
              + (" (low support)" if row.get("low_support") else "")
              for row in top.iter_rows(named=True)]
    # ci_low/ci_high bound value - outside; divergence = value - overall is that times
    # (M - m)/M, so the error bar is drawn in divergence units when the table has them
    low, high = (f"divergence_{c}" if f"divergence_{c}" in top.columns else c
                 for c in ("ci_low", "ci_high"))
    data = top.select(
        pl.Series("pattern", labels, dtype=pl.String),
        pl.col("divergence").cast(pl.Float64),
        pl.col(low).cast(pl.Float64).fill_nan(None).alias("ci_low"),
        pl.col(high).cast(pl.Float64).fill_nan(None).alias("ci_high"),
        pl.col("significant").fill_null(False),
        pl.int_range(pl.len(), dtype=pl.Int64).alias("pattern_rank"),  # the order as data
    )
    if harm is None:  # no harm direction known: the sign only, in neutral colours
        domain, colours = list(DIVERGENCE_SIGN), ["#e8710a", "#7b61a8"]
        legend = ("sign only (no metric given)" if metric is None
                  else f"sign only ({metric} has no harm direction)")
        above = pl.col("divergence") > 0
    else:
        domain, colours = list(DIVERGENCE_HARM), ["#b3261e", "#1a73e8"]
        legend = f"{metric}: {harm} harms"
        above = pl.col("divergence") > 0 if harm == "higher" else pl.col("divergence") < 0
    data = data.with_columns(direction=pl.when(above).then(pl.lit(domain[0]))
                             .otherwise(pl.lit(domain[1])))
    y = alt.Y("pattern:N", sort=_by_rank(alt, "pattern"), title=None)  # (_ranked)
    base = alt.Chart(_values(data)).encode(**_channels(y=y))
    bars = base.mark_bar().encode(**_channels(
        x=alt.X("divergence:Q", title=f"divergence of {metric or 'the metric'} "
                "(pattern − everyone)"),
        color=alt.Color("direction:N", scale=alt.Scale(domain=domain, range=colours),
                        legend=alt.Legend(title=legend, orient="bottom")),
        opacity=alt.condition("datum.significant", alt.value(0.9), alt.value(0.3)),
    ))
    errors = base.mark_rule(color="black").encode(**_channels(x="ci_low:Q", x2="ci_high:Q"))
    zero = alt.Chart(_values(pl.DataFrame({"x": [0.0]}))).mark_rule(color="#5f6368").encode(
        **_channels(
        x="x:Q"))
    subtitle = [f"the {data.height} patterns of largest |divergence|; solid: significant, "
                "faint: not; bars: interval"]
    chart = alt.layer(bars, errors, zero).properties(
        width=420, height=max(120, 22 * data.height),
        title=alt.TitleParams(title or (
            f"Divergence of {METRICS[metric].title.lower()} by pattern" if metric is not None
            else "Divergence by pattern"), subtitle=subtitle),
    )
    return cast("altair.LayerChart", chart)


# --------------------------------------------------------------------------- output


def _spec(chart: Any) -> dict[str, Any]:
    spec = chart.to_dict() if hasattr(chart, "to_dict") else dict(chart)
    spec.setdefault("background", "white")
    return cast("dict[str, Any]", printable_spec(spec))  # no text may abort the renderer


def _sizes(spec: Any) -> tuple[int, int, int]:
    """The largest declared width and height in a spec, and its facet panels (at least 1).

    A view without a declared size is Vega-Lite's default, 300; a facet's panels are the
    distinct values of its field in the inline data.
    """
    found: dict[str, list[int]] = {"width": [], "height": []}
    fields: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("data", "datasets"):
                    continue
                if key in found and isinstance(value, (int, float)):
                    found[key].append(int(value))
                elif key == "facet" and isinstance(value, dict):
                    fields.extend(v["field"] for v in [value, *value.values()]
                                  if isinstance(v, dict) and isinstance(v.get("field"), str))
                    walk(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    rows = [r for d in (spec.get("datasets") or {}).values() for r in d] \
        + list((spec.get("data") or {}).get("values") or [])
    panels = 1
    for field in dict.fromkeys(fields):
        panels *= max(1, len({repr(r.get(field)) for r in rows if isinstance(r, dict)}))
    return max(found["width"], default=300), max(found["height"], default=300), panels


def check_render_size(chart: Any, scale: float = 1.0, what: str = "save", *,
                      png: bool = False) -> None:
    """Refuse a chart whose rendered pixels would be above ``chart_pixels``, before rendering.

    The pixels are the largest width and height the chart declares (Vega-Lite's 300 where it
    declares none), times its facet panels, times ``scale`` squared; axes, legends and titles
    add a margin the limit leaves room for.

    Parameters
    ----------
    chart : altair chart or dict
        The chart or its Vega-Lite spec.
    scale : float, default 1.0
        A PNG's pixel scale (1 for SVG).
    what : str, default "save"
        The function named in the message.
    png : bool, default False
        A PNG, whose ``scale=`` the advice may lower.

    Raises
    ------
    SizeLimitError
        :data:`polars_fair.errors.CHART_TOO_LARGE`, naming the chart (its title) and the size,
        advising a scale that fits (a PNG), fewer groups or a smaller ``cell_size=``.

    Examples
    --------
    >>> check_render_size({"width": 400, "height": 300}, scale=2)
    >>> check_render_size({"width": 9200, "height": 9200, "title": "OFI"}, scale=2, png=True)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_fair.errors.SizeLimitError: save: the chart 'OFI' would render 9,200 x 9,200 pixels ...
    """
    spec = _spec(chart) if not isinstance(chart, dict) else chart
    width, height, panels = _sizes(spec)
    size = int(width * height * panels * scale * scale)
    limit = LIMITS["chart_pixels"].limit
    if size > limit:
        title = spec.get("title")
        title = title.get("text") if isinstance(title, dict) else title
        name = repr(title if isinstance(title, str) else " ".join(map(str, title))) \
            if title else "without a title"
        fit = math.floor(math.sqrt(limit / (width * height * panels)) * 10) / 10
        advice = E.CHART_SMALLER_SCALE.format(fit=fit) if png and fit >= 0.1 else ""
        raise E.SizeLimitError(E.CHART_TOO_LARGE.format(
            what=what, name=name, width=width, height=height, scale=scale, size=size,
            limit=limit, panels=f" in {panels:,} panels" if panels > 1 else "", advice=advice))


def to_svg(chart: Any) -> str:
    """Render a chart to SVG text offline (vl-convert; no network access is allowed).

    Parameters
    ----------
    chart : altair chart or dict
        An Altair chart (or a Vega-Lite spec as a dict) whose data is inline.

    Returns
    -------
    str
        The ``<svg>`` document.

    Raises
    ------
    ImportError
        Without the plot extra.

    Examples
    --------
    >>> from polars_fair.audit.plot import to_svg
    >>> to_svg(chart)[:4]  # doctest: +SKIP
    '<svg'
    """
    vlc = _require("vl_convert", "to_svg")
    check_render_size(chart, 1.0, "to_svg")
    return str(vlc.vegalite_to_svg(_spec(chart), allowed_base_urls=[]))


@with_limits
def save(chart: Any, path: str | Path, *, scale: float = 2.0) -> Path:
    """Write a chart to PNG, SVG or Vega-Lite JSON, chosen by the file suffix, offline.

    Rendering goes through vl-convert with ``allowed_base_urls=[]``: a chart that would fetch
    data, fonts or images from the network fails instead of reaching out.

    Parameters
    ----------
    chart : altair chart or dict
        The chart (for example from :func:`pairwise_heatmap`) or a Vega-Lite spec.
    path : str or pathlib.Path
        ``*.png``, ``*.svg`` or ``*.json``.
    scale : float, default 2.0
        Pixel scale of a PNG (2 = sharp on high-density screens).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    ImportError
        Without the plot extra.
    InvalidArgumentError
        Any other suffix.
    SizeLimitError
        A PNG ``scale`` above |limit:scale|; a PNG or SVG above |limit:chart_pixels| pixels
        (:func:`check_render_size`), before rendering.

    Examples
    --------
    >>> from polars_fair.audit.plot import save
    >>> save(chart, "chart.png")  # doctest: +SKIP
    PosixPath('chart.png')
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        path.write_text(json.dumps(_spec(chart), indent=2))
        return path
    if suffix not in (".png", ".svg"):
        raise E.InvalidArgumentError(UNKNOWN_SUFFIX.format(path=str(path)))
    vlc = _require("vl_convert", "save")
    if suffix == ".png":
        check_size(scale, "scale")
        check_render_size(chart, scale, png=True)
        path.write_bytes(vlc.vegalite_to_png(_spec(chart), scale=scale, allowed_base_urls=[]))
    else:
        check_render_size(chart, 1.0)
        path.write_text(to_svg(chart))
    return path
