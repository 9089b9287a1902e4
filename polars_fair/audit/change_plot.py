"""Charts of a change: a candidate model against its baseline, and fairness over time.

* :func:`compare_chart` reads keys, ``n``, ``<metric>``, ``<metric>_baseline`` and
  ``low_support`` of ``df.fair.compare(...)``
  (:func:`polars_fair.analyses.compare.compare_from_counts`);
* :func:`monitor_chart` reads ``period``, keys, ``is_reference``, ``difference``, ``cs_low``,
  ``cs_high`` and ``alarm`` of ``df.fair.monitor(...)``
  (:func:`polars_fair.analyses.monitor.monitor_from_counts`).

Both are charts of :mod:`polars_fair.audit.plot` in every respect: the same optional
dependencies, group spelling (:func:`polars_fair.core.labels.group_label`), low-support rule,
colour scales and output (:func:`polars_fair.audit.plot.save` writes PNG, SVG or JSON offline;
:func:`polars_fair.audit.plot.to_svg` gives the SVG the HTML audit inlines), and both are public
as ``polars_fair.plot.compare_chart`` and ``polars_fair.plot.monitor_chart``. They live in their
own module because they read the two tables of issue 25 (the paired and the period count
tables' analyses) and :mod:`polars_fair.audit.plot` is already long.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import polars as pl

from polars_fair import errors as E
from polars_fair.audit.plot import (
    CHART_GROUPS,
    _by_rank,
    _chart_errors,
    _chart_table,
    _group,
    _group_scale,
    _largest_groups,
    _name_some,
    _ranked,
    _rule,
    _values,
)
from polars_fair.core.options import DEFAULTS

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["COMPARE_CHART_METRICS", "MODEL_COLOURS", "compare_chart", "monitor_chart"]

#: The metrics :func:`compare_chart` draws (the compared metrics of ``df.fair.compare``).
COMPARE_CHART_METRICS = ("impact_ratio", "selection_rate", "tpr", "fpr", "ofi")
#: The colour of each model: the baseline grey, the candidate blue.
MODEL_COLOURS = {"baseline": "#9aa0a6", "candidate": "#4e79a7"}
#: Raised by :func:`compare_chart` for a metric it cannot draw.
COMPARE_CHART_METRIC = "compare_chart draws one of {allowed}; got metric={value!r}"
#: The title of each drawn metric.
_TITLES = {"impact_ratio": "impact ratio", "selection_rate": "selection rate",
           "tpr": "true positive rate", "fpr": "false positive rate", "ofi": "OFI"}
_ALARM_COLOUR = "#b3261e"


@_chart_errors("``metric``, its ``_baseline`` twin or ``low_support`` is missing.")
def compare_chart(
    compare: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str] | None = None,
    *,
    metric: str = "impact_ratio",
    four_fifths: float = DEFAULTS.four_fifths,
    max_groups: int = CHART_GROUPS,
    title: str | None = None,
) -> altair.LayerChart:
    """Each group's figure under the baseline and under the candidate, side by side.

    Two bars per group: the baseline's ``<metric>_baseline`` (grey) and the candidate's
    ``<metric>`` (blue), as ``df.fair.compare`` computes them on the same rows. For the impact
    ratio (each model's selection rate over its highest among supported groups) a dashed red
    line marks ``four_fifths``: a bar under it is adverse impact under the four-fifths rule
    (29 CFR 1607.4(D)); the subtitle names the groups whose verdict the candidate changes
    (``adverse_impact_changed``). Bars of a low-support group (``low_support``) are faint; an
    undefined figure has no bar. At most ``max_groups`` groups are drawn, those with most rows
    (``n``); the subtitle names the others. Whether a change is beyond chance is the table's
    business (``mcnemar_p_value``, the ``_change_low``/``_change_high`` intervals; shown in the
    tooltip).

    Parameters
    ----------
    compare : pl.DataFrame or pl.LazyFrame
        The output of ``df.fair.compare(by, y_pred=..., baseline=...)``: key columns, ``n``,
        ``<metric>``, ``<metric>_baseline`` (Float64), ``low_support`` (Boolean), and
        optionally ``<metric>_change``, ``mcnemar_p_value``, ``adverse_impact_changed``.
    keys : sequence of str, optional
        Key columns; default: every column before ``n``.
    metric : {"impact_ratio", "selection_rate", "tpr", "fpr", "ofi"}, default "impact_ratio"
        The figure drawn (``tpr``, ``fpr``, ``ofi`` need a comparison with labels).
    four_fifths : float, default 0.8
        Height of the four-fifths line (impact ratio only).
    max_groups : int, default 12
        The most groups (those with most rows).
    title : str, optional

    Returns
    -------
    altair.LayerChart
        x = group (the baseline's bar, then the candidate's), y = the metric.

    Raises
    ------
    InvalidArgumentError
        ``metric`` is not one of :data:`COMPARE_CHART_METRICS`.

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> from polars_fair.audit.plot import save
    >>> df = pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "new": [1, 1, 0, 0, 1, 0, 0, 0],
    ...                    "old": [1, 1, 0, 0, 1, 1, 0, 0]})
    >>> out = df.fair.compare("g", y_pred="new", baseline="old", min_support=1)
    >>> chart = compare_chart(out)
    >>> sorted({r["model"] for r in chart.layer[0].data.values})
    ['baseline', 'candidate']
    >>> save(chart, "compare.png")  # doctest: +SKIP
    """
    if metric not in COMPARE_CHART_METRICS:
        raise E.InvalidArgumentError(COMPARE_CHART_METRIC.format(
            allowed=list(COMPARE_CHART_METRICS), value=metric))
    base = f"{metric}_baseline"
    alt, df, keys = _chart_table(compare, ["n", metric, base, "low_support"], "compare_chart",
                                 keys=keys, before="n")
    change = f"{metric}_change"
    extra = [c for c in (change, "mcnemar_p_value") if c in df.columns]
    wide = df.select(_group(keys), pl.col("n"), pl.col("low_support").fill_null(False),
                     pl.col(metric).cast(pl.Float64).alias("candidate"),
                     pl.col(base).cast(pl.Float64).alias("baseline"),
                     *(pl.col(c).cast(pl.Float64) for c in extra))
    order, left = _largest_groups(wide, pl.col("n").max(), max_groups)
    long = wide.filter(pl.col("group").is_in(order)).unpivot(
        on=["baseline", "candidate"], index=["group", "n", "low_support", *extra],
        variable_name="model", value_name="value").with_columns(
        model_rank=pl.when(pl.col("model") == "baseline").then(0).otherwise(1))
    long = _ranked(long, order, "group")
    ratio = metric == "impact_ratio"
    top = max(1.0, float(long["value"].max() or 1.0)) if ratio else None  # type: ignore[arg-type]
    y = alt.Y("value:Q", title=_TITLES[metric],
              **({"scale": alt.Scale(domain=[0, top])} if top is not None else {}))
    model = alt.Color("model:N", title="model", scale=alt.Scale(
        domain=list(MODEL_COLOURS), range=list(MODEL_COLOURS.values())))
    tooltip = ["group:N", "model:N", alt.Tooltip("value:Q", format=".3f"), "n:Q",
               *(alt.Tooltip(f"{c}:Q", format=".4f") for c in extra)]
    bars = alt.Chart(_values(long.filter(pl.col("value").is_not_null()))).mark_bar().encode(
        # the attributes' names title the axis, not the channel: Vega-Lite writes a channel's
        # title into the marks' aria-label expression as a string literal, where an escaped
        # "\u2028" would be read back as the raw character
        x=alt.X("group:N", sort=_by_rank(alt, "group"),
                axis=alt.Axis(title=" | ".join(keys) if keys else "group")),
        xOffset=alt.XOffset("model:N", sort=alt.EncodingSortField(field="model_rank")),
        y=y, color=model, tooltip=tooltip,
        opacity=alt.condition("datum.low_support", alt.value(0.35), alt.value(1.0)))
    layers = [bars, *(_rule("value", four_fifths, f"four-fifths rule: {four_fifths:g}",
                            "#b3261e", [6, 4]) if ratio else [])]
    subtitle = ["grey: the baseline, blue: the candidate, on the same rows; faint: low support"]
    if ratio:
        subtitle.append(f"below the red line ({four_fifths:g}): adverse impact")
        if "adverse_impact_changed" in df.columns:
            changed = df.filter(pl.col("adverse_impact_changed").fill_null(False)).select(
                _group(keys))["group"].to_list()
            if changed:
                subtitle.append("four-fifths verdict changed: " + _name_some(changed))
    if left:
        subtitle.append(f"{len(left)} smaller group(s) not drawn: " + _name_some(left))
    chart = alt.layer(*layers).properties(
        width=max(160, 70 * len(order)), height=260,
        title=alt.TitleParams(title or f"{_TITLES[metric].capitalize()}: baseline and "
                              "candidate", subtitle=subtitle))
    return cast("altair.LayerChart", chart)


@_chart_errors("``period``, ``is_reference``, ``difference``, ``cs_low``, ``cs_high`` or "
               "``alarm`` is missing.")
def monitor_chart(
    monitor: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str] | None = None,
    *,
    max_groups: int = CHART_GROUPS,
    title: str | None = None,
) -> altair.LayerChart:
    """Each group's difference to the reference over time, with its confidence sequence.

    One line per group (the reference has none): at each period, the Mantel–Haenszel
    difference of the group's rate and the reference's, pooled over the periods so far
    (``difference``), inside a band, its anytime-valid confidence sequence (``cs_low`` to
    ``cs_high``: valid however often it is read). A red triangle marks each group's first
    period with ``alarm`` (the sequence excludes 0; false alarms have probability at most
    ``alpha`` per group over the whole monitoring). The dashed line is no difference. At most
    ``max_groups`` groups are drawn, those with most decisions (``denominator``); the subtitle
    names the others.

    Parameters
    ----------
    monitor : pl.DataFrame or pl.LazyFrame
        The output of ``df.fair.monitor(by, time=..., every=..., y_pred=...)``: ``period``
        (Date), key columns, ``denominator`` (Int64), ``is_reference`` (Boolean),
        ``difference`` (Float64 in [-1, 1], null before a group has data), ``cs_low``,
        ``cs_high`` (Float64 in [-1, 1], null where the sequence emptied, ``cs_empty``: no
        band is drawn there), ``alarm`` (Boolean).
    keys : sequence of str, optional
        Key columns; default: the columns between ``period`` and ``numerator``.
    max_groups : int, default 12
        The most groups (those with most decisions).
    title : str, optional

    Returns
    -------
    altair.LayerChart
        x = period (UTC dates), y = difference to the reference in [-1, 1].

    Examples
    --------
    >>> import datetime as dt, polars as pl
    >>> from polars_fair.analyses.monitor import monitor_from_counts
    >>> days = [dt.date(2024, 1, 1), dt.date(2024, 1, 8)]
    >>> t = pl.LazyFrame({"period": days * 2, "g": ["a", "a", "b", "b"], "n": [40] * 4,
    ...                   "tp": [0] * 4, "fp": [20, 22, 4, 4], "fn": [0] * 4,
    ...                   "tn": [20, 18, 36, 36]})
    >>> chart = monitor_chart(monitor_from_counts(t, ["g"], min_support=1))
    >>> [(r["group"], r["period"]) for r in chart.layer[3].data.values]
    [('b', '2024-01-08')]
    """
    need = ["period", "denominator", "is_reference", "difference", "cs_low", "cs_high",
            "alarm"]
    alt, df, found = _chart_table(monitor, need, "monitor_chart", keys=keys)
    if keys is None:
        names = df.columns
        found = names[names.index("period") + 1:names.index("numerator")] \
            if "numerator" in names else []
    keys = found
    data = df.select("period", _group(keys), "denominator", "is_reference",
                     *(pl.col(c).cast(pl.Float64) for c in ("difference", "cs_low", "cs_high")),
                     pl.col("alarm").fill_null(False))
    reference = data.filter(pl.col("is_reference"))["group"].unique().to_list()
    data = data.filter(~pl.col("is_reference"))
    order, left = _largest_groups(data, pl.col("denominator").sum(), max_groups)
    data = _ranked(data.filter(pl.col("group").is_in(order)
                               & pl.col("difference").is_not_null()), order, "group")
    first = data.filter(pl.col("alarm")).sort("period").group_by(
        "group", maintain_order=True).first().sort("group_rank")
    x = alt.X("period:T", title="period (first day)", scale=alt.Scale(type="utc"),
              axis=alt.Axis(format="%Y-%m-%d", labelAngle=-40))
    y = alt.Y("difference:Q", title="difference to the reference (pooled so far)")
    colour = alt.Color("group:N", sort=_by_rank(alt, "group"), scale=_group_scale(len(order)),
                       legend=alt.Legend(title=" | ".join(keys) if keys else "group",
                                         symbolType="stroke", symbolOpacity=1,
                                         symbolStrokeWidth=3))
    band = alt.Chart(_values(data)).mark_area(opacity=0.18).encode(
        x=x, y=alt.Y("cs_low:Q", title=None), y2="cs_high:Q", color=colour)
    line = alt.Chart(_values(data)).mark_line(point=True).encode(
        x=x, y=y, color=colour, tooltip=[
            "group:N", alt.Tooltip("period:T", format="%Y-%m-%d", formatType="utc"),
            alt.Tooltip("difference:Q", format=".4f"), alt.Tooltip("cs_low:Q", format=".4f"),
            alt.Tooltip("cs_high:Q", format=".4f"), "alarm:N"])
    alarms = alt.Chart(_values(first.select("group", "group_rank", "period", "difference")))\
        .mark_point(shape="triangle-down", filled=True, size=140, color=_ALARM_COLOUR,
                    yOffset=-10).encode(
        x=x, y=y, tooltip=["group:N", alt.Tooltip("period:T", format="%Y-%m-%d",
                                                    formatType="utc")])
    zero = alt.Chart(_values(pl.DataFrame({"difference": [0.0]}))).mark_rule(
        color="#5f6368", strokeDash=[4, 4]).encode(y="difference:Q")
    ref = _name_some(reference) if reference else "the reference"
    subtitle = [f"each group's rate minus {ref}'s, pooled by period (Mantel–Haenszel)",
                "band: the anytime-valid confidence sequence; red triangle: the first alarm "
                "(the sequence excludes 0)"]
    if left:
        subtitle.append(f"{len(left)} smaller group(s) not drawn: " + _name_some(left))
    chart = alt.layer(zero, band, line, alarms).properties(
        width=520, height=280,
        title=alt.TitleParams(title or "Difference to the reference over time",
                              subtitle=subtitle))
    return cast("altair.LayerChart", chart)
