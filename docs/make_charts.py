"""Regenerate the PNG charts under ``docs/`` from the demo data and a small power curve.

Run from the project root, with the plot extra installed::

    python docs/make_charts.py            # writes docs/*.png (each < 200 KB)
    python docs/make_charts.py --out DIR  # somewhere else

Everything is seeded, so the charts change only when the code does. The data is
``polars_fair.datasets.make_hiring(20_000, seed=0)`` (its model under-selects Black women, an
algorithmic bias; Pacific Islander groups have low support): the heatmaps, rates, calibration
small multiples and FPR divergence by race × sex, ROC and the threshold sweep (0.10 to 0.90) by
race and the power curve is
``polars_fair.power.power_curve`` on a small grid (sizes 250 to 2,000, ΔAUC 0.05 and
0.10, 200 simulations of 200 permutations each; about half a minute). With the shared COMPAS
file (``--compas``, default ``../shared/data/compas/compas-scores-two-years.csv``; skipped when
absent) also the charts of Comparing models: ``compare.png`` (a decile cut-off of 5 against 6,
by race) and ``monitor.png`` (Caucasian against African-American flag rates by month), the code
of ``docs/guide/compare-monitor.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.analyses.scores.power import power_curve
from polars_fair.audit import plot
from polars_fair.datasets import make_hiring

LIMIT = 200_000  # bytes per PNG
SCALES = (2.0, 1.6, 1.3, 1.0)


def save_small(chart: Any, path: Path) -> Path:
    """Save at the largest pixel scale whose PNG stays under :data:`LIMIT` bytes."""
    for scale in SCALES:
        plot.save(chart, path, scale=scale)
        if path.stat().st_size < LIMIT:
            break
    return path


def main(out: Path) -> list[Path]:
    """Write every chart to ``out``; return the paths."""
    out.mkdir(parents=True, exist_ok=True)
    df = make_hiring(20_000, seed=0)
    by = ["race", "sex"]
    pairs = df.fair.pairwise(by)
    charts = {
        "ofi_heatmap.png": plot.pairwise_heatmap(pairs, "ofi"),
        "di_heatmap.png": plot.pairwise_heatmap(pairs, "disparate_impact"),
        "rates.png": plot.rates_chart(df.fair.metrics(by)),
        "roc_abroca.png": plot.roc_chart(
            df.fair.scores("race", y_score="y_score"), reference="White"
        ),
        "calibration.png": plot.calibration_chart(
            df.fair.reliability(by, y_score="y_score"), max_groups=8),
        "thresholds.png": plot.threshold_chart(df.fair.sweep(
            "race", y_score="y_score", thresholds=[i / 20 for i in range(2, 19)])),
        "divergence.png": plot.divergence_chart(df.fair.divergence(by, metric="fpr"), k=12),
    }
    curve = power_curve(
        sizes=[250, 500, 1000, 2000], delta_aucs=[0.05, 0.10], n_simulations=200,
        n_permutations=200, seed=0,
    )
    charts["power.png"] = plot.power_chart(curve)
    return [save_small(chart, out / name) for name, chart in charts.items()]


def compas_charts(out: Path, path: Path) -> list[Path]:
    """The charts of Comparing models (``compare.png``, ``monitor.png``) from COMPAS."""
    import polars as pl

    from polars_fair.audit.change_plot import compare_chart, monitor_chart
    from polars_fair.datasets import COMPAS_FILTER

    compas = pl.read_csv(path).filter(COMPAS_FILTER)
    compas = compas.filter(pl.col("race").is_in(["African-American", "Caucasian", "Hispanic"]))
    out_table = compas.fair.compare(
        "race", y_pred=pl.col("decile_score") >= 5, baseline=pl.col("decile_score") >= 6,
        y_true=pl.col("two_year_recid") == 1, pos_label=True)
    lf = pl.scan_csv(path).filter(COMPAS_FILTER)
    lf = lf.filter(pl.col("race").is_in(["African-American", "Caucasian"])).with_columns(
        t=pl.col("screening_date").str.to_date(), flagged=pl.col("decile_score") >= 5)
    m = lf.fair.monitor("race", time="t", every="1mo", y_pred="flagged", pos_label=True)
    return [save_small(compare_chart(out_table), out / "compare.png"),
            save_small(monitor_chart(m), out / "monitor.png")]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent,
                        help="directory to write to (default: docs/)")
    parser.add_argument("--compas", type=Path, default=Path(__file__).resolve().parents[2]
                        / "shared/data/compas/compas-scores-two-years.csv",
                        help="the COMPAS file of compare.png and monitor.png (skipped when "
                             "absent)")
    start = time.perf_counter()
    options = parser.parse_args()
    paths = main(options.out)
    if options.compas.is_file():
        paths += compas_charts(options.out, options.compas)
    for p in paths:
        print(f"{p}  {p.stat().st_size / 1000:.0f} KB")
    print(f"done in {time.perf_counter() - start:.1f} s")
