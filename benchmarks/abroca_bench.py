"""ABROCA: exact ABROCA on 1e6 rows, the randomization test on 1e4 rows × 1,000 permutations.

Ours, end to end from the in-memory DataFrame: the score table (one Polars group-by per
(group, distinct score); :func:`polars_fair.counting.tables.score_table`), then numpy on that table
(:func:`polars_fair.analyses.scores.abroca.abroca_from_scores` / ``abroca_test_from_scores``). The
data are two groups with continuous scores (every score distinct: the largest score table possible).

The peers' method, per evaluation of ABROCA:

* the PyPI ``abroca`` package's ``compute_abroca`` (``compare_type="binary"``), in its own venv
  (it needs pandas < 2), as a subprocess on the same rows read from Parquet (read not timed);
  for the test, its time per evaluation on shuffled group labels (a permutation test built on it
  calls it once per permutation);
* a re-implementation of that package's algorithm in our venv, labelled so: scikit-learn
  ``roc_curve`` per group, ``interp1d`` onto a 10,000-point grid, ``scipy.integrate.quad`` of the
  absolute difference (as the package does, with quad's default 50 subintervals).

The bounds of issue 13, each measured side by side with ours in the same run (interleaved):

* exact ABROCA on 1e6 rows against numpy selecting each group's rows (boolean mask of integer
  group codes made beforehand), ``argsort`` of its scores and ``cumsum`` of its labels in that
  order: one sort per group is what any exact ROC needs; our end-to-end time and the numpy
  part alone (on the collected score table); the sort and cumsum alone (groups split
  beforehand) are recorded too (``sort_only_s``);
* ``abroca_test`` on the real Adult data (``../shared/data/adult/adult-scored.csv``, the model's
  ``y_score``; 32,561 rows, 28,225 distinct scores) by sex and by race, 1,000 permutations,
  against numpy permuting, for each group tested, a 1,000 × (group + reference rows) Int32
  matrix of row indices in place (``rng.permuted(m, axis=1, out=m)``; the matrices are built
  beforehand, not timed);
* the scaling of ``abroca_test`` (synthetic, continuous scores) at 1e3, 1e4, 1e5 rows × 1,000
  permutations, each against the same permutation bound, and its growth from 1e4 to 1e5.

The bounds of issue 21 (tied scores), interleaved with ours:

* ``abroca_test`` on COMPAS ``decile_score`` (ProPublica's filter, 6,172 rows, 10 distinct
  scores) by race with reference "Caucasian", 1,000 permutations, against numpy's multivariate
  hypergeometric draws of each tested pair's cells: per tested group, the pair's (score, label)
  counts are added from a per-group count array made beforehand, the cells holding rows are
  selected and ``Generator.multivariate_hypergeometric`` draws 1,000 splits of them (the
  selection is timed, the count arrays are not);
* the three shapes of score at 1e4 and 1e5 rows (synthetic, two groups, 1,000 permutations):
  continuous (every score distinct), fully tied (10 distinct scores, deciles of the same
  scores) and mixed (rounded to 2 decimals, about 100 distinct scores); tied and mixed against
  the same multivariate hypergeometric bound (the mixed shape at 1e5 is issue 21's target),
  continuous against numpy permuting the indices; the notes give the distinct scores and the
  kernel the data chose.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from benchmarks.common import (
    WORKERS,
    Config,
    Row,
    fmt_n,
    guarded,
    measure,
    median,
    peer_python,
    run_worker,
    score_frame,
)

N_GRID = 10_000
#: The Adult data with a real model's scores (see its README); only audit columns are read.
ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult" / "adult-scored.csv"
SCALE_SIZES = [1_000, 10_000, 100_000]
#: COMPAS with ProPublica's filter (polars_fair.datasets.scan_compas); only audit columns are read.
COMPAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "compas" / (
    "compas-scores-two-years.csv")
SHAPES = {  # issue 21: the score as the test sees it
    "continuous": pl.col("y_score"),
    "tied": (pl.col("y_score") * 10).ceil() / 10,  # deciles: 10 distinct scores
    "mixed": pl.col("y_score").round(2),  # about 100 distinct scores
}


def _api() -> tuple[Any, Any, Any] | str:
    """The ABROCA functions, or why they cannot be used yet."""
    try:
        from polars_fair.analyses.scores.abroca import abroca_from_scores, abroca_test_from_scores
        from polars_fair.counting.tables import score_table
    except ImportError as exc:
        return f"ABROCA functions not importable yet ({exc})"
    return score_table, abroca_from_scores, abroca_test_from_scores


def reimplementation(group: np.ndarray, y: np.ndarray, s: np.ndarray, majority: Any) -> float:
    """The ``abroca`` package's algorithm (grid interpolation + quad), re-implemented."""
    from scipy import integrate, interpolate
    from sklearn.metrics import roc_curve

    grid = np.linspace(0, 1, num=N_GRID)
    curves = []
    for mask in (group == majority, group != majority):
        fpr, tpr, _ = roc_curve(y[mask], s[mask])
        curves.append(interpolate.interp1d(x=fpr, y=tpr)(grid))
    f1 = interpolate.interp1d(x=grid, y=curves[0] - curves[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value, _ = integrate.quad(lambda x: abs(f1(x)), 0, 1)
    return float(value)


def run(cfg: Config) -> list[Row]:
    api = _api()
    n_exact = 2_000 if cfg.smoke else 1_000_000
    n_test, perms = (500, 50) if cfg.smoke else (10_000, 1_000)
    rows = [
        Row(f"abroca/{fmt_n(n_exact)}/exact", "abroca",
            f"exact ABROCA, 2 groups, N={fmt_n(n_exact)}",
            n_exact, "score_table + abroca_from_scores (end to end)"),
        Row(f"abroca/{fmt_n(n_exact)}/peer", "abroca",
            f"exact ABROCA, 2 groups, N={fmt_n(n_exact)}",
            n_exact, "score_table + abroca_from_scores (end to end)",
            baseline="abroca package compute_abroca (own venv, pandas<2)",
            ratio_kind="speedup"),
        Row(f"abroca/{fmt_n(n_exact)}/reimpl", "abroca",
            f"exact ABROCA, 2 groups, N={fmt_n(n_exact)}",
            n_exact, "score_table + abroca_from_scores (end to end)",
            baseline="RE-IMPLEMENTATION of abroca's method (roc_curve, 10k grid, quad)",
            ratio_kind="speedup"),
        Row(f"abroca_test/{fmt_n(n_test)}/total", "abroca_test",
            f"abroca_test, {perms:,} permutations, N={fmt_n(n_test)}", n_test,
            "score_table + abroca_test_from_scores (end to end)"),
        Row(f"abroca_test/{fmt_n(n_test)}/peer", "abroca_test",
            f"abroca_test per evaluation, N={fmt_n(n_test)}", n_test,
            f"abroca_test time / {perms:,} permutations",
            baseline="abroca package, one compute_abroca per shuffled split", ratio_kind="speedup"),
        Row(f"abroca_test/{fmt_n(n_test)}/reimpl", "abroca_test",
            f"abroca_test per evaluation, N={fmt_n(n_test)}", n_test,
            f"abroca_test time / {perms:,} permutations",
            baseline="RE-IMPLEMENTATION of abroca's method, per shuffled split",
            ratio_kind="speedup"),
    ]
    if isinstance(api, str):
        for r in rows:
            r.status, r.reason = "not available yet", api
        return rows
    score_table, abroca_from_scores, abroca_test_from_scores = api

    # ------------------------------------------------------------ exact ABROCA, 1e6 rows
    df = score_frame(n_exact)

    def ours_exact() -> pl.DataFrame:
        table, keys, _ = score_table(df.lazy(), "group", y_true="y_true", y_score="y_score")
        return abroca_from_scores(table.collect(), keys, reference="largest")

    def exact(r: Row) -> None:
        group = df["group"].to_numpy()
        y = df["y_true"].to_numpy().astype(np.int64)
        s = df["y_score"].to_numpy()
        majority = df["group"].value_counts(sort=True)["group"][0]
        table, keys, _ = score_table(df.lazy(), "group", y_true="y_true", y_score="y_score")
        collected = table.collect()
        contenders: dict[str, Callable[[], Any]] = {
            "ours": ours_exact,
            "score_table": lambda: score_table(
                df.lazy(), "group", y_true="y_true", y_score="y_score")[0].collect(),
            "numpy_part": lambda: abroca_from_scores(collected, keys, reference="largest"),
            "reimpl": lambda: reimplementation(group, y, s, majority),
        }
        reps = {k: cfg.repeats for k in contenders}
        reps["reimpl"] = cfg.slow_repeats
        times = measure(contenders, reps, cfg.warmup)
        t = median(times["ours"])
        result = ours_exact()
        ours_value = result.filter(~pl.col("is_reference"))["abroca"][0]
        reimpl_value = reimplementation(group, y, s, majority)
        for row in rows[:3]:
            row.ours_s, row.ours_repeats = t, len(times["ours"])
            row.extra.update(ours_times=times["ours"], abroca=ours_value)
        rows[0].extra.update(
            score_table_s=median(times["score_table"]), numpy_part_s=median(times["numpy_part"]),
            score_table_rows=collected.height,
        )
        rows[2].baseline_s, rows[2].baseline_repeats = median(times["reimpl"]), len(times["reimpl"])
        rows[2].extra.update(baseline_times=times["reimpl"], baseline_abroca=reimpl_value)
        _peer(cfg, df, rows[1], repeats=cfg.slow_repeats, shuffles=0)

    guarded(rows[0], exact)
    if rows[0].status == "error":
        for row in rows[1:3]:
            row.status, row.reason = rows[0].status, rows[0].reason

    # ------------------------------------------------ randomization test, 1e4 rows
    small = score_frame(n_test, seed=3)

    def ours_test() -> pl.DataFrame:
        table, keys, _ = score_table(small.lazy(), "group", y_true="y_true", y_score="y_score")
        return abroca_test_from_scores(table.collect(), keys, n_permutations=perms, seed=0)

    def test(r: Row) -> None:
        group = small["group"].to_numpy()
        y = small["y_true"].to_numpy().astype(np.int64)
        s = small["y_score"].to_numpy()
        majority = small["group"].value_counts(sort=True)["group"][0]
        rng = np.random.default_rng(0)
        shuffles = [rng.permutation(group) for _ in range(3 if cfg.smoke else 50)]
        it = iter(range(10**9))

        def reimpl_shuffled() -> float:
            return reimplementation(shuffles[next(it) % len(shuffles)], y, s, majority)

        times = measure({"ours": ours_test, "reimpl": reimpl_shuffled},
                        {"ours": cfg.repeats, "reimpl": len(shuffles)}, cfg.warmup)
        t = median(times["ours"])
        out = ours_test()
        for row in rows[3:]:
            row.ours_repeats = len(times["ours"])
            row.extra.update(test_times=times["ours"], test_total_s=t, n_permutations=perms,
                             p_value=out["p_value"][0], abroca=out["abroca"][0])
        rows[3].extra["ours_times"] = times["ours"]
        for row in rows[4:]:  # per evaluation: each test time / its permutations
            row.extra["ours_times"] = [x / perms for x in times["ours"]]
        rows[3].ours_s = t
        per_eval = t / perms
        rows[4].ours_s = rows[5].ours_s = per_eval
        rows[5].baseline_s, rows[5].baseline_repeats = median(times["reimpl"]), len(times["reimpl"])
        rows[5].extra.update(baseline_times=times["reimpl"],
                             baseline_extrapolated_test_s=median(times["reimpl"]) * perms)
        _peer(cfg, small, rows[4], repeats=0, shuffles=3 if cfg.smoke else 50)
        if rows[4].baseline_s is not None:
            rows[4].extra["baseline_extrapolated_test_s"] = rows[4].baseline_s * perms

    guarded(rows[3], test)
    if rows[3].status == "error":
        for row in rows[4:]:
            row.status, row.reason = rows[3].status, rows[3].reason
    return rows + _bounds(cfg, df, score_table, abroca_from_scores) + _tied(cfg)


def _permute_bound(sizes: list[int], perms: int) -> Callable[[], None]:
    """numpy permuting a ``perms`` × size Int32 matrix of row indices per tested group."""
    rng = np.random.default_rng(0)
    mats = [np.tile(np.arange(m, dtype=np.int32), (perms, 1)) for m in sizes]

    def bound() -> None:
        for m in mats:
            rng.permuted(m, axis=1, out=m)

    return bound


def _test_rows(frame: pl.DataFrame, by: str, perms: int) -> tuple[Callable[[], Any], list[int]]:
    """Our end-to-end test on ``frame`` and the pooled sizes (group + reference) it permutes."""
    sizes = frame.group_by(by).len().sort("len")["len"].to_list()
    pooled = [m + sizes[-1] for m in sizes[:-1]]  # the reference is the largest group

    def ours() -> Any:
        return frame.fair.abroca_test(by, y_true="y_true", y_score="y_score",
                                      n_permutations=perms, seed=0, progress=False)

    return ours, pooled


def _bounds(cfg: Config, df: pl.DataFrame, score_table: Any, abroca_from_scores: Any) -> list[Row]:
    """The rows of issue 13's bounds (see the module docstring)."""
    import polars_fair  # noqa: F401  (registers df.fair)

    n_exact = df.height
    perms = 50 if cfg.smoke else 1_000
    exact_rows = [
        Row(f"abroca/{fmt_n(n_exact)}/sort_bound", "abroca",
            f"exact ABROCA, 2 groups, N={fmt_n(n_exact)}", n_exact,
            "score_table + abroca_from_scores (end to end)",
            baseline="numpy argsort + cumsum per group", ratio_kind="slowdown", paired=True),
        Row(f"abroca/{fmt_n(n_exact)}/numpy_part", "abroca",
            f"exact ABROCA, 2 groups, N={fmt_n(n_exact)}", n_exact,
            "abroca_from_scores on the collected score table (numpy part)",
            baseline="numpy argsort + cumsum per group", ratio_kind="slowdown", paired=True),
    ]

    def exact(r: Row) -> None:
        codes = df["group"].cast(pl.Categorical).to_physical().to_numpy()
        y = df["y_true"].to_numpy()
        s = df["y_score"].to_numpy()
        levels = np.unique(codes).tolist()
        parts = [(s[codes == g], y[codes == g]) for g in levels]
        table, keys, _ = score_table(df.lazy(), "group", y_true="y_true", y_score="y_score")
        collected = table.collect()

        def bound() -> None:  # each group's rows (from integer codes), argsort, cumsum
            for g in levels:
                mask = codes == g
                np.cumsum(y[mask][np.argsort(s[mask])])

        def sort_only() -> None:  # the groups already split: argsort and cumsum alone
            for scores, labels in parts:
                np.cumsum(labels[np.argsort(scores)])

        def ours() -> Any:
            t, k, _ = score_table(df.lazy(), "group", y_true="y_true", y_score="y_score")
            return abroca_from_scores(t.collect(), k, reference="largest")

        times = measure({"ours": ours, "numpy_part": lambda: abroca_from_scores(
            collected, keys, reference="largest"), "bound": bound, "sort_only": sort_only},
            _more(cfg, 9), cfg.warmup)
        for row, mine in zip(exact_rows, ("ours", "numpy_part"), strict=True):
            row.ours_s, row.ours_repeats = median(times[mine]), len(times[mine])
            row.baseline_s, row.baseline_repeats = median(times["bound"]), len(times["bound"])
            row.extra.update(ours_times=times[mine], baseline_times=times["bound"],
                             sort_only_s=median(times["sort_only"]),
                             score_table_rows=collected.height)

    guarded(exact_rows[0], exact)
    if exact_rows[0].status != "ok":
        exact_rows[1].status, exact_rows[1].reason = exact_rows[0].status, exact_rows[0].reason

    # ---------------------------------------------------- abroca_test on Adult, by sex, race
    adult_rows = []
    for by in ("sex", "race"):
        row = Row(f"abroca_test/adult-{by}/permute_bound", "abroca_test",
                  f"abroca_test on Adult by {by}, {perms:,} permutations", 32_561,
                  "df.fair.abroca_test (end to end)",
                  baseline=f"numpy permuting {perms:,} × (group + reference) Int32 indices, "
                  "per group tested", ratio_kind="slowdown", paired=True)
        adult_rows.append(row)

        def adult(r: Row, by: str = by) -> None:
            if not ADULT.exists():
                r.status, r.reason = "not run", f"{ADULT} not found"
                return
            frame = pl.read_csv(ADULT, columns=[by, "y_true", "y_score"])
            if cfg.smoke:
                frame = frame.head(2_000)
            ours, pooled = _test_rows(frame, by, perms)
            times = measure({"ours": ours, "bound": _permute_bound(pooled, perms)},
                            cfg.repeats, cfg.warmup)
            out = ours()
            r.ours_s, r.ours_repeats = median(times["ours"]), len(times["ours"])
            r.baseline_s, r.baseline_repeats = median(times["bound"]), len(times["bound"])
            r.extra.update(ours_times=times["ours"], baseline_times=times["bound"],
                           pooled_rows=pooled, distinct_scores=frame["y_score"].n_unique(),
                           groups_tested=out.height,
                           p_values=dict(zip(out[by].to_list(), out["p_value"].to_list(),
                                             strict=True)))

        guarded(row, adult)

    # ------------------------------------------------------------- scaling, 1e3 .. 1e5 rows
    scale_rows = []
    times_by_n: dict[int, float] = {}
    for n in ([500, 2_000] if cfg.smoke else SCALE_SIZES):
        row = Row(f"abroca_test/{fmt_n(n)}/scale", "abroca_test",
                  f"abroca_test scaling, {perms:,} permutations, N={fmt_n(n)}", n,
                  "df.fair.abroca_test (end to end)",
                  baseline=f"numpy permuting {perms:,} × N Int32 indices", ratio_kind="slowdown",
                  paired=True)
        scale_rows.append(row)

        def scale(r: Row, n: int = n) -> None:
            frame = score_frame(n, seed=3)
            ours, pooled = _test_rows(frame, "group", perms)
            reps = cfg.slow_repeats if n >= 100_000 else cfg.repeats
            times = measure({"ours": ours, "bound": _permute_bound(pooled, perms)}, reps,
                            cfg.warmup)
            r.ours_s, r.ours_repeats = median(times["ours"]), len(times["ours"])
            r.baseline_s, r.baseline_repeats = median(times["bound"]), len(times["bound"])
            r.extra.update(ours_times=times["ours"], baseline_times=times["bound"])
            times_by_n[n] = r.ours_s
            if n // 10 in times_by_n:
                r.extra[f"growth_from_{fmt_n(n // 10)}"] = r.ours_s / times_by_n[n // 10]

        guarded(row, scale)
    return exact_rows + adult_rows + scale_rows


def _peer(cfg: Config, df: pl.DataFrame, row: Row, *, repeats: int, shuffles: int) -> None:
    """Fill ``row``'s baseline with the abroca package's timing, or mark it "not run"."""
    python, why = peer_python("abroca")
    if python is None:
        row.status, row.reason = "not run", why
        return
    path = cfg.tmp / f"abroca-{df.height}.parquet"
    df.write_parquet(path)
    try:
        res = run_worker(python, WORKERS / "abroca_peer.py",
                         ["--parquet", str(path), "--repeats", str(repeats),
                          "--shuffles", str(shuffles)])
    finally:
        path.unlink(missing_ok=True)
    if not res.ok:
        row.status, row.reason = "not run", f"abroca worker failed: {res.error}"
        return
    key = "shuffle_times" if shuffles else "times"
    row.baseline_s = median(res.data[key])
    row.baseline_repeats = len(res.data[key])
    row.extra.update(baseline_times=res.data[key], baseline_abroca=res.data.get("abroca"),
                     peer_versions={k: res.data.get(k) for k in ("pandas", "numpy")})


# ------------------------------------------------------------------ issue 21: tied scores
def _cells_bound(frame: pl.DataFrame, by: str, reference: str, perms: int
                 ) -> Callable[[], None]:
    """numpy's multivariate hypergeometric draws of each tested pair's (score, label) cells.

    The per-group count arrays (distinct scores x label) are made here, untimed; the returned
    function adds each tested group's counts to the reference's, selects the cells holding rows
    and draws ``perms`` splits of the group's size, for every tested group, in blocks of at most
    :data:`polars_fair.analyses.scores.null_kernel.CELL_BLOCK` values as the test draws them
    (one call of ``perms`` rows gives the same draws; the blocks only spare the allocations).
    """
    from polars_fair.analyses.scores.null_kernel import CELL_BLOCK

    counts = frame.group_by(by, "y_score", "y_true").len().pivot(
        on="y_true", index=[by, "y_score"], values="len").fill_null(0)
    scores = np.unique(counts["y_score"].to_numpy())
    groups = sorted(counts[by].unique().to_list())
    cells = {}
    for g in groups:
        part = counts.filter(pl.col(by) == g)
        at = np.searchsorted(scores, part["y_score"].to_numpy())
        dense = np.zeros((2, scores.size), dtype=np.int64)
        for row, label in enumerate(("1", "0")):
            if label in part.columns:
                dense[row, at] = part[label].to_numpy()
        cells[g] = dense.ravel()
    tested = [g for g in groups if g != reference]
    sizes = {g: int(cells[g].sum()) for g in tested}
    rng = np.random.default_rng(0)

    def bound() -> None:
        for g in tested:
            colors = cells[g] + cells[reference]
            held = colors[colors > 0]
            # in blocks of rows as small as the test's (CELL_BLOCK values), so the bound has
            # the same memory advantage: the same draws, none of them page-faulted
            step = max(1, CELL_BLOCK // (held.size + 2))
            for lo in range(0, perms, step):
                rng.multivariate_hypergeometric(held, sizes[g], size=min(step, perms - lo))

    return bound


def _tied(cfg: Config) -> list[Row]:
    """Issue 21's rows: COMPAS deciles, and the three shapes of score at 1e4 and 1e5 rows."""
    import polars_fair  # noqa: F401  (registers df.fair)
    from polars_fair.analyses.scores.permutation import null_kernel_for
    from polars_fair.datasets import scan_compas

    perms = 50 if cfg.smoke else 1_000
    bound_text = (f"numpy multivariate hypergeometric draws of each pair's cells, {perms:,} "
                  "per group tested")
    compas = Row("abroca_test/compas-decile/cells_bound", "abroca_test",
                 f"abroca_test on COMPAS decile_score by race, {perms:,} permutations", 6_172,
                 "df.fair.abroca_test (end to end)", baseline=bound_text, ratio_kind="slowdown",
                 paired=True)

    def on_compas(r: Row) -> None:
        if not COMPAS.exists():
            r.status, r.reason = "not run", f"{COMPAS} not found"
            return
        frame = scan_compas(COMPAS).select(
            "race", pl.col("two_year_recid").alias("y_true"),
            pl.col("decile_score").cast(pl.Float64).alias("y_score")).collect()
        r.n = frame.height

        def ours() -> Any:
            return frame.fair.abroca_test("race", y_true="y_true", y_score="y_score",
                                          reference="Caucasian", n_permutations=perms, seed=0,
                                          progress=False)

        _timed(cfg, r, ours, _cells_bound(frame, "race", "Caucasian", perms), _more(cfg, 21))
        r.extra.update(distinct_scores=frame["y_score"].n_unique(),
                       kernel=_kernels(frame, "race", "Caucasian", null_kernel_for))

    guarded(compas, on_compas)
    rows = [compas]
    for n in ([2_000] if cfg.smoke else [10_000, 100_000]):
        for shape, expr in SHAPES.items():
            cells = shape != "continuous"
            row = Row(f"abroca_test/{fmt_n(n)}-{shape}/{'cells' if cells else 'permute'}_bound",
                      "abroca_test", f"abroca_test, {shape} scores, {perms:,} permutations, "
                      f"N={fmt_n(n)}", n, "df.fair.abroca_test (end to end)",
                      baseline=bound_text if cells else
                      f"numpy permuting {perms:,} × (group + reference) Int32 indices",
                      ratio_kind="slowdown", paired=True)
            rows.append(row)

            def shape_row(r: Row, n: int = n, expr: pl.Expr = expr, cells: bool = cells) -> None:
                frame = score_frame(n, seed=3).with_columns(expr.alias("y_score"))
                ours, pooled = _test_rows(frame, "group", perms)
                bound = (_cells_bound(frame, "group", "M", perms) if cells
                         else _permute_bound(pooled, perms))
                _timed(cfg, r, ours, bound, cfg.repeats if n >= 100_000 else _more(cfg, 11))
                r.extra.update(distinct_scores=frame["y_score"].n_unique(),
                               kernel=_kernels(frame, "group", "M", null_kernel_for))

            guarded(row, shape_row)
    return rows


def _more(cfg: Config, repeats: int) -> int:
    """More repeats for a short case on a loaded machine (one in smoke mode)."""
    return 1 if cfg.smoke else max(cfg.repeats, repeats)


def _timed(cfg: Config, r: Row, ours: Callable[[], Any], bound: Callable[[], None],
           repeats: int) -> None:
    """Wall times (the row's figures), then CPU times of the same contenders, interleaved.

    On a machine shared by more runnable processes than cores, a call longer than the
    scheduler's time slice waits for the CPU several times and a short one often not at all, so
    the wall-time ratio overstates the cost of the longer contender; the process CPU time
    (``time.process_time``, all threads: Polars' two count the score table twice) is recorded
    beside it (``cpu_ratio``).
    """
    times = measure({"ours": ours, "bound": bound}, repeats, cfg.warmup)
    out = ours()
    r.ours_s, r.ours_repeats = median(times["ours"]), len(times["ours"])
    r.baseline_s, r.baseline_repeats = median(times["bound"]), len(times["bound"])
    cpu: dict[str, list[float]] = {"ours": [], "bound": []}
    for _ in range(repeats):
        for name, fn in (("ours", ours), ("bound", bound)):
            t0 = time.process_time()
            fn()
            cpu[name].append(time.process_time() - t0)
    r.extra.update(ours_times=times["ours"], baseline_times=times["bound"],
                   p_values=out["p_value"].to_list(), ours_cpu_s=median(cpu["ours"]),
                   baseline_cpu_s=median(cpu["bound"]),
                   cpu_ratio=median(cpu["ours"]) / max(median(cpu["bound"]), 1e-9))


def _kernels(frame: pl.DataFrame, by: str, reference: str, choose: Any) -> list[str]:
    """The kernel ``abroca_test`` uses for each tested pair (pooled cells against rows)."""
    out = []
    for g in sorted(set(frame[by].to_list()) - {reference}):
        pair = frame.filter(pl.col(by).is_in([g, reference]))
        cells = pair.select(pl.col("y_score").n_unique()).item()
        out.append(choose(cells, pair.height))
    return out
