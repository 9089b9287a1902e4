"""Power curve: the grid of Figure 3 of Borchers et al. (the seed), timed once.

ΔAUC 0.02, 0.05, 0.1, 0.15, 0.2 (group a's AUC = 0.7 + Δ, group b's 0.7) × test sizes 100 to
2,000 in 10 steps, 200 simulated test sets × 200 permutations per cell:
``polars_fair.analyses.scores.power.power_curve``. One run (a single run already takes minutes); the
target is ≤ 5 minutes on this 2-core machine.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.common import Config, Row, guarded

DELTAS = [0.02, 0.05, 0.1, 0.15, 0.2]
SIZES = [round(float(x)) for x in np.linspace(100, 2000, 10)]


def run(cfg: Config) -> list[Row]:
    deltas = [0.1, 0.2] if cfg.smoke else DELTAS
    sizes = [100, 200] if cfg.smoke else SIZES
    sims, perms = (5, 10) if cfg.smoke else (200, 200)
    row = Row(
        "power/grid", "power",
        f"power grid {len(deltas)} ΔAUC × {len(sizes)} sizes, {sims} sims × {perms} perms",
        None, "polars_fair.analyses.scores.power.power_curve (one run)",
    )

    def body(r: Row) -> None:
        try:
            from polars_fair.analyses.scores.power import power_curve
        except ImportError as exc:
            r.status, r.reason = "not available yet", f"power_curve not importable yet ({exc})"
            return
        t0 = time.perf_counter()
        curve = power_curve(delta_aucs=deltas, sizes=sizes, n_simulations=sims,
                            n_permutations=perms, seed=0, progress=False)
        r.ours_s = time.perf_counter() - t0
        r.ours_repeats = 1
        r.extra.update(
            deltas=deltas, sizes=sizes, n_simulations=sims, n_permutations=perms,
            cells=curve.height,
            power=curve.select("delta_auc", "n", "power").to_dicts(),
        )

    return [guarded(row, body)]
