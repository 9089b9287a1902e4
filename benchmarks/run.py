"""Run the benchmark suite: ``python -m benchmarks.run [--smoke] [--only NAME ...]``.

Prints a markdown table of every comparison (ratios measured side by side in this run, medians
of repeated runs) and the targets met or missed, and writes a JSON file: a full run writes
``benchmarks/results/latest.json`` and ``latest.md`` (git-ignored) and refreshes the committed
copy ``benchmarks/RESULTS.md``; ``--smoke`` runs every benchmark at tiny sizes only to check that
it runs (``results/smoke.json``); ``--only`` runs the named benchmarks (``results/only-*.json``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import (
    abroca_bench,
    cli_time,
    combinations,
    html_audit,
    import_time,
    many_groups,
    membership_bench,
    moments_bench,
    multiclass_bench,
    parquet_stream,
    power_grid,
    report_speed,
)
from benchmarks.common import ROOT, Config, Row, machine_info

BENCHMARKS: dict[str, Callable[[Config], list[Row]]] = {
    "import": import_time.run,
    "cli": cli_time.run,  # --help, a usage error and report on COMPAS, fresh processes
    "report": report_speed.run,
    "many_groups": many_groups.run,
    "combinations": combinations.run,
    "parquet": parquet_stream.run,
    "abroca": abroca_bench.run,  # exact ABROCA and the randomization test
    "power": power_grid.run,
    "moments": moments_bench.run,  # continuous moments (issue 22)
    "multiclass": multiclass_bench.run,  # issue 22: the class table and its report
    "html": html_audit.run,  # the Adult HTML audit, in a session and from the command line
    "membership": membership_bench.run,  # issue 24: estimated membership, one scan
}


@dataclass(frozen=True)
class Target:
    text: str
    row_id: str
    value: Callable[[Row], float | None]
    op: str  # "<=" or ">="
    limit: float
    unit: str


def _ratio(r: Row) -> float | None:
    return r.ratio


def _ours(r: Row) -> float | None:
    return r.ours_s


def _rss(r: Row) -> float | None:
    v = r.extra.get("ours_peak_rss_gb")
    return float(v) if v is not None else None


TARGETS = [
    Target("import polars_fair after import polars ≤ 0.1 s", "import/polars_fair", _ours, "<=",
           0.1, "s"),
    Target("polars-fair --help < 0.3 s", "cli/help", _ours, "<=", 0.3, "s"),
    Target("a usage error < 0.3 s", "cli/usage_error", _ours, "<=", 0.3, "s"),
    Target("a choice outside the list < 0.3 s", "cli/choice_error", _ours, "<=", 0.3, "s"),
    Target("polars-fair report on COMPAS end to end < 0.6 s", "cli/report_compas", _ours, "<=",
           0.6, "s"),
    Target("report on 1e5 rows, 12 groups ≤ 1.5× the floor", "report/1e5/floor", _ratio, "<=",
           1.5, "× floor"),
    Target("report on 1e6 rows over 10,000 intersections ≤ 1.3× the floor",
           "many_groups/1e6/floor", _ratio, "<=", 1.3, "× floor"),
    Target("report at 1e7 ≤ 1.1× the floor", "report/1e7/floor", _ratio, "<=", 1.1, "× floor"),
    Target("vs Fairlearn at 1e6 ≥ 300× faster", "report/1e6/fairlearn", _ratio, ">=", 300,
           "× faster"),
    Target("vs Aequitas at 1e6 ≥ 10× faster", "report/1e6/aequitas", _ratio, ">=", 10, "× faster"),
    Target("all combinations of 3 attributes ≤ 1.5× one finest group-by",
           "combinations/1e7/floor", _ratio, "<=", 1.5, "× floor"),
    Target("1e8 Parquet streaming: peak RSS ≤ 1 GB", "parquet/1e8/time", _rss, "<=", 1.0, "GB"),
    Target("1e8 Parquet streaming: time ≤ 1.1× the floor", "parquet/1e8/time", _ratio, "<=", 1.1,
           "× floor"),
    Target("exact ABROCA on 1e6 rows ≤ 1 s", "abroca/1e6/exact", _ours, "<=", 1.0, "s"),
    Target("abroca_test on 1e4 rows × 1,000 permutations ≤ 1 s", "abroca_test/1e4/total", _ours,
           "<=", 1.0, "s"),
    Target("exact ABROCA on 1e6 rows ≤ 1.3× numpy argsort + cumsum per group",
           "abroca/1e6/sort_bound", _ratio, "<=", 1.3, "× bound"),
    Target("abroca_test on Adult by sex ≤ 1× numpy permuting its indices",
           "abroca_test/adult-sex/permute_bound", _ratio, "<=", 1.0, "× bound"),
    Target("abroca_test on Adult by race ≤ 1× numpy permuting its indices",
           "abroca_test/adult-race/permute_bound", _ratio, "<=", 1.0, "× bound"),
    Target("abroca_test from 1e4 to 1e5 rows grows ≤ 11×", "abroca_test/1e5/scale",
           lambda r: r.extra.get("growth_from_1e4"), "<=", 11.0, "×"),
    Target("power grid (5 × 10 cells, 200 × 200) ≤ 5 min", "power/grid", _ours, "<=", 300.0, "s"),
    Target("issue 20: the Adult HTML audit in under 4 s (one session, warm)", "html/adult/call",
           _ours, "<=", 4.0, "s"),
    Target("issue 20: the Adult HTML audit from the command line in under 4 s (fresh process)",
           "html/adult/cli", _ours, "<=", 4.0, "s"),
    Target("issue 21: abroca_test on COMPAS decile_score by race ≤ 3× numpy's multivariate "
           "hypergeometric draws of the cells", "abroca_test/compas-decile/cells_bound", _ratio,
           "<=", 3.0, "× bound"),
    Target("issue 21: abroca_test on 2-decimal scores, 1e5 rows ≤ 3× the same bound",
           "abroca_test/1e5-mixed/cells_bound", _ratio, "<=", 3.0, "× bound"),
    Target("issue 22: multiclass_report at 1e7 rows ≤ 1.3× a group-by of the same cells",
           "multiclass/1e7/floor", _ratio, "<=", 1.3, "× floor"),
    Target("issue 21: exact ABROCA on 1e6 rows, numpy part ≤ 1.3× numpy argsort + cumsum per "
           "group", "abroca/1e6/numpy_part", _ratio, "<=", 1.3, "× bound"),
    Target("issue 22: moments of y_pred at 1e7 ≤ 1.3× a floor group-by of the same moments",
           "moments/1e7/pred", _ratio, "<=", 1.3, "× floor"),
    Target("issue 22: moments with residuals at 1e7 ≤ 1.3× the floor", "moments/1e7/residual",
           _ratio, "<=", 1.3, "× floor"),
    Target("issue 24: a membership audit of 1e7 rows, 5 probability columns ≤ 1.5× a floor "
           "group-by of the same sums", "membership/1e7/report", _ratio, "<=", 1.5, "× floor"),
    Target("issue 24: the membership table (every sum family) at 1e7 ≤ 1.5× the floor",
           "membership/1e7/table", _ratio, "<=", 1.5, "× floor"),
]


def evaluate_targets(rows: list[Row], smoke: bool) -> list[dict[str, Any]]:
    """Each target with its measured value and ``met`` (True/False, None when not measured)."""
    by_id = {r.id: r for r in rows}
    out = []
    for t in TARGETS:
        entry: dict[str, Any] = {"target": t.text, "row": t.row_id, "limit": t.limit,
                                 "op": t.op, "unit": t.unit, "value": None, "met": None}
        row = by_id.get(t.row_id)
        if smoke:
            entry["note"] = "not evaluated in smoke mode"
        elif row is None:
            entry["note"] = "not run (benchmark not selected)"
        elif row.status != "ok":
            entry["note"] = f"{row.status}: {row.reason}"
        else:
            value = t.value(row)
            if value is None:
                entry["note"] = "no value"
            else:
                entry["value"] = value
                entry["met"] = value <= t.limit if t.op == "<=" else value >= t.limit
        out.append(entry)
    return out


# --------------------------------------------------------------------------- markdown
def fmt_s(s: float | None) -> str:
    if s is None:
        return "–"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def fmt_ratio(r: Row, ratio: float | None) -> str:
    if ratio is None:
        return "–"
    if r.ratio_kind == "slowdown":
        return f"{ratio:.2f}×"
    if ratio < 1:
        return f"{1 / ratio:.2f}× slower"
    return f"{ratio:,.0f}× faster" if ratio >= 10 else f"{ratio:.2f}× faster"


def note(r: Row) -> str:
    e = r.extra
    parts = []
    if r.status != "ok":
        parts.append(f"**{r.status}**: {r.reason}")
    if "groups" in e and e["groups"] is not None:
        parts.append(f"{e['groups']:,} groups")
    if "ours_peak_rss_gb" in e:
        parts.append(
            f"peak RSS ours {e['ours_peak_rss_gb']:.2f} GB, "
            f"floor {e['baseline_peak_rss_gb']:.2f} GB"
            f" (as a DataFrame ≈ {e['in_memory_estimate_gib']:.1f} GiB); file "
            f"{e['file_mib']:,.0f} MiB"
        )
    if "score_table_s" in e:
        parts.append(
            f"score table {fmt_s(e['score_table_s'])} ({e['score_table_rows']:,} rows) + numpy "
            f"{fmt_s(e['numpy_part_s'])}"
        )
    if "baseline_abroca" in e and e["baseline_abroca"] is not None and "abroca" in e:
        parts.append(f"ABROCA ours {e['abroca']:.5f}, baseline {e['baseline_abroca']:.5f}")
    if "baseline_extrapolated_test_s" in e:
        parts.append(
            f"its {e['n_permutations']:,}-permutation test ≈ "
            f"{fmt_s(e['baseline_extrapolated_test_s'])}"
        )
    if "p_value" in e and r.id.endswith("/total"):
        parts.append(f"ABROCA {e['abroca']:.4f}, p = {e['p_value']:.4f}")
    if "fixed_cost_s" in e:
        parts.append(f"fixed cost (ours − floor) {fmt_s(e['fixed_cost_s'])}")
    if "heavy_loaded" in e:
        parts.append("heavy modules loaded: " + (", ".join(e["heavy_loaded"]) or "none"))
    if "cells" in e:
        parts.append(f"{e['cells']} cells")
    if "kernel" in e:
        parts.append(f"{e['distinct_scores']:,} distinct scores, "
                     f"{'/'.join(sorted(set(e['kernel'])))} kernel")
    if "cpu_ratio" in e:
        parts.append(f"CPU time {fmt_s(e['ours_cpu_s'])} vs {fmt_s(e['baseline_cpu_s'])}: "
                     f"{e['cpu_ratio']:.2f}×")
    if "rows_out" in e and e["rows_out"] is not None:
        parts.append(f"{e['rows_out']} rows out")
    return "; ".join(parts)


def markdown(result: dict[str, Any], rows: list[Row]) -> str:
    m = result["machine"]
    v = m["versions"]
    lines = [
        "# polars_fair benchmarks",
        "",
        (f"Command: `{result['command']}` ({result['mode']} run, {result['started']}, "
        f"{result['elapsed_s']:.0f} s in all)."),
        "",
        (f"Machine: {m['cpu']}, {m['cores']} cores (Polars threads: {m['polars_threads']}), "
        f"{m['ram_gib']} GiB RAM; Python {v['python']}, polars {v['polars']}, numpy {v['numpy']}, "
        f"pyarrow {v.get('pyarrow')}, scikit-learn {v.get('sklearn')}, "
        f"fairlearn {v.get('fairlearn')}, "
        f"pandas {v.get('pandas')}. Load average (1 min) before/after the run: "
        f"{result['load_average']['before'][0]:.2f}/{result['load_average']['after'][0]:.2f}."),
        "",
        ("Times are medians of the repeats shown (ours/baseline), measured interleaved in this "
        "run. "
        "Ratio: \"N×\" = our time ÷ the baseline's (lower is better); \"N× faster\" = the "
        "baseline's time ÷ ours; where both were timed round by round with the same repeats "
        "(the bounds and the floor), the median of the rounds' ratios, else the ratio of the "
        "medians. \"min ratio\" is the same ratio of the fastest runs, the least "
        "disturbed figure when other work shares the machine; targets use the medians."),
        "",
        "| benchmark | case | ours | ours | baseline | baseline | ratio | min ratio | repeats "
        "| notes |",
        "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r.benchmark} | {r.case} | {r.ours} | {fmt_s(r.ours_s)} | {r.baseline or '–'} | "
            f"{fmt_s(r.baseline_s)} | {fmt_ratio(r, r.ratio)} | "
            f"{fmt_ratio(r, r.ratio_of_minima)} | "
            f"{r.ours_repeats}/{r.baseline_repeats} | "
            f"{note(r)} |"
        )
    lines += ["", "## Targets", "", "| target | measured | met |", "| --- | ---: | --- |"]
    for t in result["targets"]:
        value = t["value"]
        shown = "–" if value is None else (
            f"{value:,.0f} {t['unit']}" if value >= 100 else f"{value:.2f} {t['unit']}"
        )
        met = {True: "met", False: "**missed**", None: t.get("note", "–")}[t["met"]]
        lines.append(f"| {t['target']} | {shown} | {met} |")
    lines += ["", "## How each figure is measured", ""]
    lines += [f"- `{name}`: {desc}" for name, desc in DESCRIPTIONS.items()]
    return "\n".join(lines) + "\n"


DESCRIPTIONS = {
    "import": "fresh interpreters (7, after one that writes the bytecode under a temporary "
    "PYTHONPYCACHEPREFIX): the time of `import polars_fair` right after `import polars`, "
    "measured inside the process, against `import polars` itself; the modules it loaded.",
    "report": "synthetic audit frame (String attributes a: 6 levels, b: 2; Int8 labels) at 1e3 "
    "to 1e7 rows (41 repeats up to 1e4, 5 above; the notes give the fixed cost per call, ours − "
    "floor); ours is "
    "`df.lazy().fair.report(by=[a, b]).collect()` including plan building and validation; the "
    "floor is a hand-written Polars group_by of n, Σy, Σŷ, Σy·ŷ; numpy is 4 bincounts over a "
    "precomputed combined code (codes not timed); Fairlearn MetricFrame (count, selection_rate, "
    "TPR, FPR, PPV, accuracy) on a pandas copy made beforehand; Aequitas get_crosstabs in its own "
    "venv on one combined column a|b (Parquet read and column build not timed). 5 repeats; 3 for "
    "the peers at 1e6; one warm-up run each.",
    "many_groups": "two String attributes with 100 levels each (10,000 groups), report vs floor.",
    "membership": "the audit frame's b (2 levels), y_true, y_pred and five Dirichlet "
    "membership probabilities per row (BISG-like, summing to 1), 1e6 and 1e7 rows; ours is the "
    "membership table of the schema (every sum family, validation included) and the audit "
    "lf.fair.report(b, membership=...) (weighted estimator); each floor is one Polars "
    "group_by(b, argmax, y_true, y_pred) summing the same products with no checks; 5 rounds, "
    "interleaved.",
    "multiclass": "the audit frame's a (6 levels) and b (2) with a three-class Int8 truth and "
    "decision, 1e7 rows; ours is lf.fair.multiclass_report([a, b], y_pred, y_true).collect() (the "
    "class table's group-by, its checks, one-vs-rest tables and exact decisions); the floor is "
    "a Polars group_by(a, b, y_true, y_pred).agg(len), the same cells; 5 rounds, interleaved, the "
    "ratio the median of the rounds' ratios.",
    "combinations": 'report(["a", "b", "c"], combinations="all") (7 attribute sets) vs one floor '
    "group_by at (a, b, c).",
    "parquet": "1e8 rows written in 5e6-row chunks with pyarrow ParquetWriter (snappy, 1e6-row "
    "row groups) under /work/bench-data and deleted afterwards; each measurement is a fresh "
    "subprocess running scan_parquet + collect(engine=\"streaming\"); time is the query inside "
    "the process (imports excluded), peak RSS is the worker's own VmHWM from /proc/self/status "
    "(not wait4's ru_maxrss, which Linux inflates to the parent's size across fork + exec); 5 "
    "runs of each, alternated. The file fits in the page cache, so this measures memory, not the "
    "disk.",
    "abroca": "two groups, continuous scores (all distinct); ours end to end from the "
    "DataFrame (score_table collect + numpy). Peers per evaluation: the PyPI abroca package in "
    "its own venv (pandas<2), and a clearly labelled re-implementation of its method (roc_curve, "
    "interp1d onto 10,000 points, quad). For the test, our per-evaluation time is the test's time "
    "÷ 1,000 permutations; the peers' is one evaluation on a shuffled split (50 shuffles). "
    "Bounds (issue 13), interleaved with ours: exact ABROCA against numpy selecting each "
    "group's rows (mask of integer codes made beforehand), argsort + cumsum, end to end and the "
    "numpy part alone; "
    "abroca_test (df.fair.abroca_test, 1,000 permutations) on Adult's model score by sex and by "
    "race, and on synthetic data at 1e3, 1e4, 1e5 rows, against numpy permuting in place, per "
    "tested group, a 1,000 × (group + reference rows) Int32 index matrix built beforehand. "
    "Bounds (issue 21): abroca_test on COMPAS decile_score by race (reference Caucasian) and on "
    "three shapes of score at 1e4 and 1e5 rows (continuous, deciles, rounded to 2 decimals) "
    "against numpy's multivariate hypergeometric draws of each tested pair's (score, label) "
    "cells (1,000 per group, in blocks of CELL_BLOCK values as the test draws them; count arrays "
    "made beforehand), or numpy permuting the indices for continuous scores; the notes give the "
    "CPU-time ratio of a second interleaved pass.",
    "power": "Figure 3 grid of Borchers et al.: ΔAUC 0.02–0.2 × sizes 100–2,000 (10 steps), 200 "
    "simulations × 200 permutations per cell, one run.",
    "moments": "audit_frame's attributes a, b (12 groups) with x = 1e9 + N(0, 1) (+ a group "
    "effect) and y = x + N(0, 0.5), at 1e6 and 1e7 rows; ours is polars_fair.moments(df, [a, b], "
    "y_pred=x[, y_true=y]).frame.collect() (plan, the frame-wide shift of x, the checks, the "
    "merge of the small table); the floor is a hand-written Polars group_by of n, mean, var·n "
    "(and the residual's) from Polars' own stable aggregates, no shift, no checks. 5 repeats, "
    "one warm-up each; the ratio is the median of the rounds' ratios.",
    "html": "UCI Adult (adult-scored.csv, 32,561 rows), race × sex, y_score >= 0.5: audit_html "
    "in one session after a warm-up call (5 repeats) against report of the same scan, "
    "alternating; and polars-fair report --html as a fresh process (3 repeats) against the same "
    "command without --html, alternating. The page runs the ABROCA test (1,000 permutations).",
}


# -------------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true",
                    help="tiny sizes, one repeat: only check that every benchmark runs")
    ap.add_argument("--only", action="append", choices=sorted(BENCHMARKS), metavar="NAME",
                    help=f"run only this benchmark (repeatable): {', '.join(BENCHMARKS)}")
    ap.add_argument("--json", type=Path, help="where to write the JSON (default: see above)")
    ap.add_argument("--data-dir", type=Path,
                    help="where the 1e8-row Parquet goes (default /work/bench-data or "
                    "$POLARS_FAIR_BENCH_DATA); never inside the repository")
    ap.add_argument("--keep-data", action="store_true", help="keep the generated Parquet file")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    names = args.only or list(BENCHMARKS)
    mode = "smoke" if args.smoke else ("full" if not args.only else "partial")
    command = "python -m benchmarks.run" + ("".join(f" {a}" for a in (argv or sys.argv[1:])))
    started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="pf-bench-") as tmp:
        cfg = Config.make(args.smoke, args.data_dir, args.keep_data, Path(tmp))
        for name in names:
            print(f"[benchmarks] {name} ...", file=sys.stderr, flush=True)
            t = time.perf_counter()
            try:
                got = BENCHMARKS[name](cfg)
            except Exception as exc:  # noqa: BLE001 - a broken benchmark is a row, not a crash
                got = [Row(f"{name}/error", name, name, None, name, status="error",
                           reason=f"{type(exc).__name__}: {exc}")]
            rows += got
            print(f"[benchmarks] {name} done in {time.perf_counter() - t:.1f} s", file=sys.stderr,
                  flush=True)
    result: dict[str, Any] = {
        "mode": mode,
        "command": command,
        "started": started,
        "elapsed_s": time.perf_counter() - t0,
        "machine": machine_info(),
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "benchmarks": names,
        "rows": [r.to_json() for r in rows],
        "targets": evaluate_targets(rows, args.smoke),
    }
    md = markdown(result, rows)
    print(md)
    results = ROOT / "results"
    default = {"smoke": "smoke.json", "full": "latest.json"}.get(
        mode, f"only-{'-'.join(names)}.json")
    path = args.json or results / default
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, default=str) + "\n")
    print(f"[benchmarks] wrote {path}", file=sys.stderr)
    if mode == "full" and args.json is None:
        (results / "latest.md").write_text(md)
        (ROOT / "RESULTS.md").write_text(md)
        print(f"[benchmarks] wrote {results / 'latest.md'} and {ROOT / 'RESULTS.md'}",
              file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
