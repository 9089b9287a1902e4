"""A pure numpy reference of the membership table (issue 24), independent of the scan.

:func:`membership_sums` loops over the rows with numpy and Python sums, the way the schema in
:mod:`polars_fair.counting.membership` states the table: one cell per (``by`` values,
``__pf_argmax``, ``y_true``, ``y_pred``), and in each cell the additive sums ``n``, ``w``,
``w2``, ``c_k``, ``s_k``, ``g_j_k``, ``h_j_k``, ``t_j_k_l``, ``u_j_k_l_m``. It shares no code
with the package (only the column names, which are the contract), so the scan's tests and the
estimators of other branches (regression, calibration) can test against it.

Rules it states (the scan must follow them):

* ``__pf_argmax`` is the index (0..K-1, Int64) of the largest probability, ties to the group
  declared first; null when a probability of the row is null.
* a row with a null probability counts in ``n``, ``w`` and ``w2`` of its cell (whose
  ``__pf_argmax`` is null) and adds 0 to every probability sum.
* ``normalize=True`` divides each row's probabilities by their sum first.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl


def families(k: int) -> dict[str, list[tuple[int, ...]]]:
    """Index tuples of each sum family for ``k`` groups (j <= k <= l <= m)."""
    r = range(k)
    return {
        "c": [(i,) for i in r], "s": [(i,) for i in r],
        "g": list(itertools.combinations_with_replacement(r, 2)),
        "h": list(itertools.combinations_with_replacement(r, 2)),
        "t": list(itertools.combinations_with_replacement(r, 3)),
        "u": list(itertools.combinations_with_replacement(r, 4)),
    }


def membership_sums(
    rows: Mapping[str, Sequence[Any]] | pl.DataFrame,
    by: Sequence[str],
    groups: Sequence[Any],
    prob_cols: Sequence[str],
    y_true: str | None,
    y_pred: str,
    weight: str | None,
    *,
    normalize: bool = False,
) -> pl.DataFrame:
    """The membership table of ``rows``, computed row by row.

    ``y_true`` and ``y_pred`` name 0/1 columns (already compared with ``pos_label``); ``groups``
    are only counted (``len(groups)`` must equal ``len(prob_cols)``).

    Returns
    -------
    pl.DataFrame
        The ``by`` columns, ``__pf_argmax`` (Int64), ``y_true`` (Int8, when given), ``y_pred``
        (Int8), ``n`` (Int64), ``w``, ``w2`` (Float64), ``c_k`` (Int64), then ``s``, ``g``,
        ``h``, ``t``, ``u`` (Float64), sorted by the keys with nulls last.
    """
    k = len(prob_cols)
    assert len(groups) == k
    data = {c: list(rows[c]) for c in [*by, *prob_cols, *(c for c in (y_true, y_pred, weight)
                                                          if c is not None)]}
    height = len(data[y_pred])
    fam = families(k)
    cells: dict[tuple[Any, ...], dict[str, Any]] = {}
    for i in range(height):
        raw = [data[c][i] for c in prob_cols]
        missing = any(v is None for v in raw)
        p = np.zeros(k) if missing else np.array(raw, dtype=np.float64)
        if normalize and not missing:
            p = p / p.sum()
        arg = None if missing else int(np.flatnonzero(p == p.max())[0])
        w = 1.0 if weight is None else float(data[weight][i])
        key = (*(data[b][i] for b in by), arg,
               *((int(data[y_true][i]),) if y_true is not None else ()), int(data[y_pred][i]))
        cell = cells.setdefault(key, {"n": 0, "w": 0.0, "w2": 0.0})
        cell["n"] += 1
        cell["w"] += w
        cell["w2"] += w * w
        for name, tuples in fam.items():
            for t in tuples:
                col = name + "_" + "_".join(map(str, t))
                prod = float(np.prod(p[list(t)]))
                if name == "c":
                    value: float | int = int(p[t[0]] > 0)
                elif name in ("s", "g"):
                    value = w * prod
                else:
                    value = w * w * prod
                cell[col] = cell.get(col, 0) + value
    keys = [*by, "__pf_argmax", *(["y_true"] if y_true is not None else []), "y_pred"]
    names = ["n", "w", "w2"] + [n + "_" + "_".join(map(str, t))
                                for n in ("c", "s", "g", "h", "t", "u") for t in fam[n]]
    out: dict[str, list[Any]] = {c: [] for c in [*keys, *names]}
    for key, cell in cells.items():
        for c, v in zip(keys, key, strict=True):
            out[c].append(v)
        for c in names:
            out[c].append(cell[c])
    schema: dict[str, Any] = {b: pl.DataFrame({b: data[b]}).schema[b] for b in by}
    schema["__pf_argmax"] = pl.Int64
    for c in keys[len(by) + 1:]:
        schema[c] = pl.Int8
    for c in names:
        schema[c] = pl.Int64 if c == "n" or c.startswith("c_") else pl.Float64
    return pl.DataFrame(out, schema=schema).sort(keys, nulls_last=True)
