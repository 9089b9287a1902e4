"""Estimated membership (issue 24): the membership audit against a floor group-by of its sums.

Every contender gets the same synthetic frame: :func:`benchmarks.common.audit_frame`'s ``b``
(2 levels), ``y_true`` and ``y_pred``, and five membership probabilities ``p_0 .. p_4`` per row
(Dirichlet, concentrated on a latent group drawn from ``a``: BISG-like, each row sums to 1).

* ``membership/N/table``: ours is the membership table of the schema
  (:mod:`polars_fair.counting.membership`: the scan ``membership_label_table`` with every sum
  family, its validation and public form ``membership_from_labels``), collected; the floor is a
  hand-written Polars ``group_by(b, argmax, y_true, y_pred)`` summing the same products (``n``,
  ``c_k``, ``s_k``, ``g_j_k``, ``t_j_k_l``, ``u_j_k_l_m``; without weights ``w`` and ``h`` equal
  ``n`` and ``g``), with no checks: the least work any Polars implementation must do.
* ``membership/N/proxy``: ours is ``lf.fair.proxy_report("b", membership=...)`` (the three
  estimators, the regression's sandwich variance), against the same floor as ``table``.
* ``membership/N/report``: ours is the audit a user runs,
  ``lf.fair.report("b", membership={"race": {...}}).collect()`` (the weighted estimator), against
  the floor of the sums that estimator reads (``n``, ``c_k``, ``s_k``, ``g_j_k``). Until the
  ``membership=`` count argument is on the branch the row says "not available yet".

The target (issue 24): a membership audit of 10⁷ rows with 5 probability columns within 1.5× the
floor.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import polars as pl

import polars_fair  # noqa: F401  (registers .fair)
from benchmarks.common import (
    Config,
    Row,
    audit_frame,
    fmt_n,
    guarded,
    measure,
    median,
    record_cpu,
)

K = 5
GROUPS = ["White", "Black", "Hispanic", "Asian", "Other"]
PROBS = [f"p_{k}" for k in range(K)]
MEMBERSHIP = {"race": dict(zip(GROUPS, PROBS, strict=True))}
ORDERS = {"c": 1, "s": 1, "g": 2, "t": 3, "u": 4}
FULL_SIZES = [1_000_000, 10_000_000]
SMOKE_SIZES = [2_000]


def frame(n: int, seed: int = 3) -> pl.DataFrame:
    """``b``, ``y_true``, ``y_pred`` and five membership probabilities summing to 1 per row."""
    df, _ = audit_frame(n)
    rng = np.random.default_rng(seed)
    latent = np.minimum(df["a"].rank("dense").to_numpy().astype(np.int64) - 1, K - 1)
    alpha = np.full((n, K), 0.4)
    alpha[np.arange(n), latent] += 3.0
    g = rng.standard_gamma(alpha)
    p = g / g.sum(axis=1, keepdims=True)
    return df.select("b", "y_true", "y_pred").with_columns(
        pl.Series(name, p[:, k]) for k, name in enumerate(PROBS))


def _argmax() -> pl.Expr:
    """The index of the largest probability, ties to the first (the schema's rule)."""
    top = pl.max_horizontal(PROBS)
    expr: Any = pl.when(pl.col(PROBS[0]) == top).then(pl.lit(0, dtype=pl.Int64))
    for k in range(1, K):
        expr = expr.when(pl.col(PROBS[k]) == top).then(pl.lit(k, dtype=pl.Int64))
    return expr.otherwise(None).alias("__pf_argmax")


def floor_aggs(families: Sequence[str]) -> list[pl.Expr]:
    """The sums of ``families``: ``c_k`` counts p_k > 0, the others are products of p's."""
    p = [pl.col(c) for c in PROBS]
    aggs = [pl.len().alias("n")]
    for f in families:
        for t in itertools.combinations_with_replacement(range(K), ORDERS[f]):
            name = f + "_" + "_".join(map(str, t))
            if f == "c":
                aggs.append((p[t[0]] > 0).sum().alias(name))
                continue
            prod = p[t[0]]
            for j in t[1:]:
                prod = prod * p[j]
            aggs.append(prod.sum().alias(name))
    return aggs


def floor(df: pl.DataFrame, families: Sequence[str]) -> pl.DataFrame:
    """The floor: one plain Polars group-by of the same sums, no validation."""
    # the key as a column first: grouping by the when/then expression itself is 2-3x slower
    return (df.lazy().with_columns(_argmax()).group_by("b", "__pf_argmax", "y_true", "y_pred")
            .agg(floor_aggs(families)).collect())


def ours_table(df: pl.DataFrame) -> pl.DataFrame:
    """The membership table of the schema (h-member's scan), every family."""
    from polars_fair.core.spec import resolve
    from polars_fair.counting.membership import (
        FAMILIES,
        membership_from_labels,
        membership_label_table,
        parse_membership,
    )

    lf = df.lazy()
    m = parse_membership(MEMBERSHIP)
    assert m is not None
    a = resolve(lf.collect_schema(), "b", y_true="y_true", y_pred="y_pred")
    families = tuple(FAMILIES)
    return membership_from_labels(membership_label_table(lf, m, a, families).collect(), m, a,
                                  families)


def ours_report(df: pl.DataFrame) -> pl.DataFrame:
    """The weighted-estimator audit a user runs on the rows."""
    fair: Any = df.lazy().fair
    result: pl.DataFrame = fair.report("b", membership=MEMBERSHIP, min_support=1).collect()
    return result


def ours_proxy(df: pl.DataFrame) -> pl.DataFrame:
    """The proxy report (three estimators, the regression's sandwich) on the rows."""
    fair: Any = df.lazy().fair
    result: pl.DataFrame = fair.proxy_report("b", membership=MEMBERSHIP, min_support=1).collect()
    return result


def _available(fn: Callable[[pl.DataFrame], pl.DataFrame]) -> str | None:
    """None when ``fn`` runs on a tiny frame, else why not (the feature is not on the branch)."""
    try:
        fn(frame(200))
    except (ImportError, TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    return None


CASES: dict[str, tuple[Callable[[pl.DataFrame], pl.DataFrame], tuple[str, ...], str, str]] = {
    "table": (ours_table, ("c", "s", "g", "t", "u"),
              "the membership table (every sum family), collected",
              "floor: Polars group_by of the same 131 sums, no checks"),
    "report": (ours_report, ("c", "s", "g"),
               'lf.fair.report("b", membership=5 probability columns).collect()',
               "floor: Polars group_by of the sums the weighted estimator reads"),
    "proxy": (ours_proxy, ("c", "s", "g", "t", "u"),
              'lf.fair.proxy_report("b", membership=5 probability columns).collect()',
              "floor: Polars group_by of the same 131 sums, no checks"),
}


def run(cfg: Config) -> list[Row]:
    rows: list[Row] = []
    missing = {name: _available(fn) for name, (fn, *_rest) in CASES.items()}
    for n in SMOKE_SIZES if cfg.smoke else FULL_SIZES:
        df = frame(n)
        for name in CASES:
            rows.append(_one(cfg, df, n, name, missing[name]))
        del df
    return rows


def _one(cfg: Config, df: pl.DataFrame, n: int, name: str, missing: str | None) -> Row:
    fn, families, ours_text, floor_text = CASES[name]
    tag = fmt_n(n)
    row = Row(f"membership/{tag}/{name}", "membership",
              f"membership audit, {K} probability columns by b, N={tag}", n, ours_text,
              baseline=floor_text, ratio_kind="slowdown", paired=True)
    if missing is not None:
        row.status, row.reason = "not available yet", missing
        return row

    def timed(r: Row) -> None:
        contenders = {"ours": lambda: fn(df), "floor": lambda: floor(df, families)}
        times = measure(contenders, cfg.repeats, warmup=cfg.warmup)
        r.ours_s, r.ours_repeats = median(times["ours"]), len(times["ours"])
        r.baseline_s, r.baseline_repeats = median(times["floor"]), len(times["floor"])
        r.extra["ours_times"], r.extra["baseline_times"] = times["ours"], times["floor"]
        record_cpu(r, contenders, cfg.repeats)

    return guarded(row, timed)
