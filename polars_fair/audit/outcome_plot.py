"""Charts of the audits beyond a binary outcome: class shares and impact ratios, group means.

Like :mod:`polars_fair.audit.plot` (whose helpers, group labels and renderer they share), each
function reads one small analysis table and computes nothing of its own:

* :func:`class_chart` reads keys, ``class``, ``selection_rate`` or ``impact_ratio`` and
  ``low_support`` of ``df.fair.multiclass_report(...)``: per class, one bar per group, with the
  four-fifths line on the impact ratios;
* :func:`means_chart` reads keys, ``mean``, ``mean_ci_low``, ``mean_ci_high`` of
  :func:`polars_fair.analyses.continuous.mean_intervals` (and ``is_reference``,
  ``low_support`` when present): each group's mean with its interval.

Kept apart from :mod:`polars_fair.audit.plot` so that module does not grow further; the charts
render with :func:`polars_fair.audit.plot.to_svg` and :func:`polars_fair.audit.plot.save`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import polars as pl

from polars_fair import errors as E
from polars_fair.audit.plot import (
    _by_rank,
    _chart_table,
    _group,
    _group_scale,
    _ranked,
    _values,
)
from polars_fair.core.labels import value_text
from polars_fair.core.limits import with_limits
from polars_fair.core.options import DEFAULTS

if TYPE_CHECKING:  # pragma: no cover
    import altair

__all__ = ["CLASS_VALUES", "class_chart", "means_chart"]

#: The columns :func:`class_chart` draws, with their axis titles.
CLASS_VALUES = {"selection_rate": "share of the group in the class",
                "impact_ratio": "impact ratio"}


@with_limits
def class_chart(
    report: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str] | None = None,
    *,
    value: str = "selection_rate",
    four_fifths: float = DEFAULTS.four_fifths,
    title: str | None = None,
) -> altair.LayerChart:
    """Per class, one bar per group: its share in the class or its impact ratio.

    The classes in the report's order on the x axis, the groups side by side within each; bars
    of low-support groups are faint. With ``value="impact_ratio"`` a dashed line marks
    ``four_fifths`` (a bar below it is adverse impact), and an undefined ratio (no group
    received the class) has no bar.

    Parameters
    ----------
    report : pl.DataFrame or pl.LazyFrame
        ``df.fair.multiclass_report(...)`` of one attribute set: keys, ``class``, ``value``
        and ``low_support``.
    keys : sequence of str, optional
        The key columns; default: every column before ``class``.
    value : {"selection_rate", "impact_ratio"}, default "selection_rate"
        The column drawn.
    four_fifths : float, default 0.8
        Where the line is drawn on the impact ratios.
    title : str, optional
        The chart's title (default: says what is drawn).

    Returns
    -------
    altair.LayerChart
        x the class, the groups side by side; y the share (in percent, [0, 1]) or the
        impact ratio (from 0).

    Raises
    ------
    InvalidArgumentError
        ``value`` is not one of :data:`CLASS_VALUES`, or a report of several attribute sets.
    ImportError
        Without the plot extra.

    Examples
    --------
    >>> import polars as pl, polars_fair
    >>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "band": ["lo", "hi", "lo", "lo"]})
    >>> r = df.fair.multiclass_report("g", y_pred="band", min_support=1)
    >>> class_chart(r, value="impact_ratio").to_dict()["layer"][0]["mark"]["type"]
    'bar'
    """
    if value not in CLASS_VALUES:
        raise E.InvalidArgumentError(
            f"class_chart: value must be one of {sorted(CLASS_VALUES)}, got {value!r}")
    alt, df, found = _chart_table(report, ["class", value], "class_chart", keys=keys,
                                  before="class")
    if "attributes" in found:
        raise E.InvalidArgumentError("class_chart draws one attribute set; filter the report "
                                     "on its attributes column first")
    groups = df.select(_group(found))["group"].unique(maintain_order=True).to_list()
    classes = df.select(value_text("class"))["class"].unique(maintain_order=True).to_list()
    support = pl.col("low_support") if "low_support" in df.columns else pl.lit(False)
    data = df.select(_group(found), value_text("class"), pl.col(value).alias("value"),
                     support.fill_null(False).alias("low_support"))
    data = _ranked(data.filter(pl.col("value").is_not_null()), groups, "group")
    data = _ranked(data, classes, "class")
    ratio = value == "impact_ratio"
    highest = data.select(pl.col("value").max().fill_null(0.0)).item()
    top = max(1.0, float(highest) * 1.05) if ratio else 1.0
    base = alt.Chart(_values(data)).encode(
        x=alt.X("class:N", sort=_by_rank(alt, "class"), title="class",
                axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("group:N", sort=_by_rank(alt, "group")),
    )
    bars = base.mark_bar().encode(
        y=alt.Y("value:Q", title=CLASS_VALUES[value], scale=alt.Scale(domain=[0, top]),
                axis=alt.Axis(format="" if ratio else "%")),
        color=alt.Color("group:N", sort=_by_rank(alt, "group"), scale=_group_scale(len(groups)),
                        legend=alt.Legend(title=" | ".join(found) if found else "group")),
        opacity=alt.condition("datum.low_support", alt.value(0.35), alt.value(0.9)),
    )
    layers: list[Any] = [bars]
    if ratio:
        line = pl.DataFrame({"value": [float(four_fifths)],
                             "label": [f"four-fifths ({four_fifths:g})"]})
        layers.append(alt.Chart(_values(line)).mark_rule(color="#b3261e", strokeDash=[6, 4])
                      .encode(y="value:Q"))
        layers.append(alt.Chart(_values(line)).mark_text(
            align="left", dx=4, dy=-6, color="#b3261e").encode(
            y="value:Q", x=alt.value(0), text="label:N"))
    width = max(320, 16 * len(groups) * len(classes) + 30 * len(classes))
    if title is None:
        title = ("Impact ratio per class (dashed: the four-fifths line)" if ratio
                 else "Share of each group in each class (faint: low support)")
    chart = alt.layer(*layers).properties(width=width, height=260, title=title)
    return cast("altair.LayerChart", chart)


@with_limits
def means_chart(
    means: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str] | None = None,
    *,
    title: str | None = None,
    y_title: str = "mean",
) -> altair.LayerChart:
    """Each group's mean as a point with its interval as an error bar.

    The groups in the table's order on the x axis; the reference group (``is_reference``) is
    drawn black and its mean as a dashed line across; low-support groups are faint.

    Parameters
    ----------
    means : pl.DataFrame or pl.LazyFrame
        Keys, ``mean``, ``mean_ci_low``, ``mean_ci_high``
        (:func:`polars_fair.analyses.continuous.mean_intervals`), optionally ``is_reference``
        and ``low_support`` (Boolean).
    keys : sequence of str, optional
        The key columns; default: every column before ``mean``.
    title : str, optional
        The chart's title.
    y_title : str, default "mean"
        The y axis' title (the outcome's name).

    Returns
    -------
    altair.LayerChart
        x the group, y the mean (zero not forced into the scale).

    Raises
    ------
    InvalidArgumentError
        A column is missing.
    ImportError
        Without the plot extra.

    Examples
    --------
    >>> import polars as pl
    >>> m = pl.DataFrame({"g": ["a", "b"], "mean": [2.0, 3.0], "mean_ci_low": [1.5, 2.0],
    ...                   "mean_ci_high": [2.5, 4.0]})
    >>> means_chart(m).to_dict()["layer"][0]["mark"]["type"]
    'rule'
    """
    alt, df, found = _chart_table(means, ["mean", "mean_ci_low", "mean_ci_high"],
                                  "means_chart", keys=keys, before="mean")
    groups = df.select(_group(found))["group"].to_list()
    ref = pl.col("is_reference") if "is_reference" in df.columns else pl.lit(False)
    low = pl.col("low_support") if "low_support" in df.columns else pl.lit(False)
    data = _ranked(df.select(_group(found), "mean", "mean_ci_low", "mean_ci_high",
                             ref.fill_null(False).alias("is_reference"),
                             low.fill_null(False).alias("low_support")), groups, "group")
    base = alt.Chart(_values(data)).encode(
        x=alt.X("group:N", sort=_by_rank(alt, "group"), title=" | ".join(found) or "group",
                axis=alt.Axis(labelAngle=-30 if len(groups) > 6 else 0)))
    colour = alt.condition("datum.is_reference", alt.value("black"), alt.value("#1a73e8"))
    faint = alt.condition("datum.low_support", alt.value(0.35), alt.value(1.0))
    layers: list[Any] = [
        base.mark_rule(strokeWidth=1.5).encode(
            y=alt.Y("mean_ci_low:Q", title=y_title, scale=alt.Scale(zero=False)),
            y2="mean_ci_high:Q", color=colour, opacity=faint),
        base.mark_point(filled=True, size=70).encode(y="mean:Q", color=colour, opacity=faint),
    ]
    reference = data.filter(pl.col("is_reference"))
    if reference.height:
        layers.append(alt.Chart(_values(reference.select("mean"))).mark_rule(
            color="black", strokeDash=[4, 4], opacity=0.6).encode(y="mean:Q"))
    width = max(320, 40 * len(groups))
    chart = alt.layer(*layers).properties(
        width=width, height=260, title=title or "Mean by group with its interval")
    return cast("altair.LayerChart", chart)
