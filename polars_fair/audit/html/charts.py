"""The charts of an audit page, with their headings and captions.

The charts draw at most :data:`polars_fair.audit.html.text.CHART_PAGE_GROUPS` of the shown
groups: the reference(s), the headline's ABROCA group, then the largest; the captions name the
groups not drawn. A chart that cannot be drawn is the reason why (a polars_fair error's message),
which the page prints in its place.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl

from polars_fair.audit.html.figures import PageGroups, PageOptions, PageTables
from polars_fair.audit.html.text import CHART_PAGE_GROUPS, _attempt, _group, _names, _rows

#: One chart of the page: (heading, caption, the chart or the reason it was not drawn).
Chart = tuple[str, str, Any]
#: Points per ROC curve drawn on the page (the curves are drawn through this many FPR values;
#: the ABROCA written is exact): enough for a chart 420 pixels wide.
ROC_POINTS = 200


@contextmanager
def unvalidated() -> Iterator[None]:
    """Build Altair charts without validating every object against the Vega-Lite schema.

    Altair checks each object it builds against the JSON schema (about a second of an Adult
    page, most of it in the inline data of the ROC curves). The charts are the tested charts of
    :mod:`polars_fair.audit.plot`, whose own tests build them validated; the page renders them
    with vl-convert, which still parses the spec.
    """
    from polars_fair.audit.plot import _altair

    with _altair("the audit page's charts").utils.schemapi.debug_mode(False):
        yield


def page_charts(o: PageOptions, t: PageTables, g: PageGroups,
                ab_group: dict[str, Any] | None) -> tuple[list[Chart], list[str]]:
    """The page's charts in order (rates, OFI, DI, ROC, calibration), and the notes on scores.

    The notes say which score chart is missing and why, and which group ABROCA compares with
    when the report's reference is the whole population.
    """
    from polars_fair.api.external import from_counts, from_scores
    from polars_fair.audit.plot import pairwise_heatmap, rates_chart

    keys = t.keys
    first = [*g.must, *([pl.DataFrame([ab_group], schema=g.shown.schema)] if ab_group else [])]
    charted = pl.concat([*first, g.shown]).unique(keys, keep="first", maintain_order=True).head(
        CHART_PAGE_GROUPS)
    not_drawn = [_group(r, keys) for r in g.shown.join(
        charted, on=keys, how="anti", nulls_equal=True).iter_rows(named=True)]
    drawn_note = (f" {len(not_drawn)} group(s) of the tables not drawn (the charts show the "
                  f"{charted.height} largest and the reference): {_names(not_drawn)}."
                  if not_drawn else "")

    def on_chart(frame: pl.DataFrame) -> pl.DataFrame:
        if not (g.left_out or not_drawn):
            return frame
        return frame.join(charted, on=keys, how="semi", nulls_equal=True,
                          maintain_order="left")

    fc_page = from_counts(on_chart(t.counts), keys) if g.left_out or not_drawn else t.fc
    pairs = fc_page.pairwise(metrics=("ofi", "disparate_impact")).collect()
    cell = max(18, min(46, 900 // max(charted.height, 1)))
    charts: list[Chart] = [
        ("Rates by group", (f"Each group's rates with {o.level:.0%} Wilson intervals; faint "
         f"bars: low support (fewer than {_rows(o.min_support)}).{drawn_note}"),
         rates_chart(on_chart(g.metrics), rates=o.rates, keys=keys)),
        ("OFI between every two groups", ("OFI(i, j) = B_i − B_j, B = (FP − FN)/n. Blue: the "
         "row group's errors favour it over the column group; red: they harm it. Centred on 0."
         + drawn_note),
         pairwise_heatmap(pairs, "ofi", keys, cell_size=cell)),
        ("Disparate impact between every two groups", ("DI(i, j) = selection rate of i / of j, "
         "on a log colour scale symmetric around 1 (0.5 and 2 are equally strong); the subtitle "
         "states where the colours are clipped, each cell shows its true value. Below 0.8 fails "
         "the four-fifths rule." + drawn_note),
         pairwise_heatmap(pairs, "disparate_impact", keys, cell_size=cell)),
    ]
    notes: list[str] = []
    if t.scores is not None and t.abroca is not None:
        fs_page = from_scores(on_chart(t.scores), keys) if g.left_out or not_drawn else t.fs
        score_charts, notes = _score_charts(o, t, t.scores, fs_page, ab_group, drawn_note)
        charts.extend(score_charts)
    return charts, notes


def _score_charts(o: PageOptions, t: PageTables, scores: pl.DataFrame, fs_page: Any,
                  ab_group: dict[str, Any] | None, drawn_note: str
                  ) -> tuple[list[Chart], list[str]]:
    """The ROC chart (with the headline's ABROCA shaded) and the calibration small multiples.

    Each is drawn when it can be (ROC curves to compare; scores that are probabilities), else a
    note says why not.
    """
    from polars_fair.audit.plot import CHART_GROUPS, calibration_chart, roc_chart

    charts: list[Chart] = []
    notes: list[str] = []
    if o.reference.is_overall:
        notes.append("The report's reference is the whole population; ABROCA compares ROC "
                     "curves with a group, the largest one with both classes.")
    s_low, s_high = scores["score"].min(), scores["score"].max()
    s_low, s_high = float(s_low), float(s_high)  # type: ignore[arg-type]
    probabilities = 0.0 <= s_low and s_high <= 1.0
    if t.roc_reason is None:
        charts.append((
            "ROC curves and ABROCA",
            ("ROC curve of each group; the shaded area between the reference's curve and "
             + ("the headline group's (the largest significant ABROCA among groups with at "
                f"least {o.min_support} positives and negatives, else the largest) is that "
                "ABROCA." if ab_group is not None else
                "another group's is that ABROCA; no group has at least "
                f"{o.min_support} positives and {o.min_support} negatives, so it is not a "
                "finding.") + drawn_note),
            _attempt(lambda: roc_chart(fs_page, reference=t.ab_ref, min_support=o.min_support,
                                       group=ab_group, max_points=ROC_POINTS)),
        ))
    else:
        notes.append(f"No ROC chart: {t.roc_reason}.")
    if probabilities:
        charts.append((
            "Calibration", ("Fraction of positive labels against the mean score in each of "
            "10 score bins, one panel per group; the numbers are the bins' rows, hollow "
            f"grey points are bins with fewer than {o.min_support} rows; the dashed diagonal "
            "is perfect calibration."),
            _attempt(lambda: calibration_chart(
                fs_page.reliability().collect(), t.keys, min_count=o.min_support,
                max_groups=CHART_GROUPS)),
        ))
    else:
        notes.append(f"No calibration chart: the scores range over [{s_low:g}, {s_high:g}], "
                     "not probabilities in [0, 1].")
    return charts, notes


def divergence_chart_of(table: pl.DataFrame, divergence: Any, k: int) -> Chart:
    """The chart of the ``k`` patterns of largest |divergence|, with its heading and caption.

    ``divergence=True`` computed the FPR's divergence; a table given says its own metric in a
    ``metric`` column, if it has one (else the chart colours by sign and says so).
    """
    from polars_fair.audit.plot import divergence_chart

    chart = divergence_chart(table, k=k, metric="fpr" if divergence is True else None)
    return ("Divergence by pattern", ("The patterns of largest |divergence| with "
            "their intervals; solid bars are significant; red: the difference "
            "harms the pattern (for the FPR, a higher rate), blue: it does not; "
            "without a known metric the colours give the sign only, as the "
            "legend says."), chart)
