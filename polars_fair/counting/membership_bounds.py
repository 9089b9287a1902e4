"""Bounds that prove a membership scan's validation counts 0, from per-group aggregates.

:func:`polars_fair.counting.membership.membership_label_table` validates each row's
membership probabilities (finite, in [0, 1], summing to 1 within the tolerance; normalizing:
not negative, a total other than 0). Counting the bad rows takes a row-wise test of every
column; on valid rows, a few per-group aggregates prove every count 0 at a fraction of the
cost: the sum of the rows' totals (finite only when every probability is, since a NaN or an
infinity makes it NaN or infinite), the largest distance of a total from 1, the smallest and
largest probability, and the rows with a null. When they cannot prove it (an input error, a
null with the per-column detail asked for, a sum that overflows), the rows are counted.
"""

from __future__ import annotations

import math

import polars as pl

__all__ = ["bound_aggs", "proven"]


def bound_aggs(k: int, normalize: bool, prefix: str) -> list[pl.Expr]:
    """The per-group bounds, over the prepared rows of a membership scan.

    Parameters
    ----------
    k : int
        The probability columns ``{prefix}r0 .. r{k-1}``.
    normalize : bool
        Whether rows are divided by their total (then only a total of 0 is off).
    prefix : str
        The prefix of the prepared columns (``r{i}``, ``total``, ``top``, ``miss``).

    Returns
    -------
    list of pl.Expr
        ``{prefix}b_total`` (Float64), ``b_off`` (the largest ``|total - 1|``; normalizing,
        the rows whose total is 0), ``b_low``, ``b_high`` (the extreme probabilities) and
        ``b_miss`` (Int64: the rows with a null).

    Examples
    --------
    >>> df = pl.DataFrame({"r0": [0.25, 1.0], "r1": [0.75, 0.0], "total": [1.0, 1.0],
    ...                    "top": [0.75, 1.0], "miss": [False, False]})
    >>> df.select(bound_aggs(2, False, "")).row(0)
    (2.0, 0.0, 0.0, 1.0, 0)
    """
    r = [pl.col(f"{prefix}r{i}") for i in range(k)]
    total = pl.col(f"{prefix}total")
    off = (total == 0).sum() if normalize else (total - 1.0).abs().max()
    return [total.sum().alias(f"{prefix}b_total"), off.alias(f"{prefix}b_off"),
            pl.min_horizontal(r).min().alias(f"{prefix}b_low"),
            pl.col(f"{prefix}top").max().alias(f"{prefix}b_high"),
            pl.col(f"{prefix}miss").sum().cast(pl.Int64).alias(f"{prefix}b_miss")]


def proven(df: pl.DataFrame, normalize: bool, detail: bool, *, argmax: str, prefix: str,
           tolerance: float) -> bool:
    """Whether the bounds of :func:`bound_aggs` prove every validation count 0 in ``df``.

    A group with a most likely group (``argmax`` not null) has no row with a null, so it is
    clean when its total sum is finite (every probability finite), no total is off (within
    ``tolerance`` of 1; normalizing: none 0) and every probability is in [0, 1] (normalizing:
    not negative). The checks count only rows without a null, so a group whose every row has
    a null is clean too, unless ``detail`` asks which columns hold the nulls.

    Parameters
    ----------
    df : pl.DataFrame
        The scanned table: ``argmax``, ``n`` and the bounds.
    normalize : bool
        Whether rows are divided by their total.
    detail : bool
        Whether the per-column counts are wanted (then a null is not proven).
    argmax : str
        The most-likely-group column (null on a row with a null or no largest value).
    prefix : str
        The bounds' prefix.
    tolerance : float
        How far from 1 a row's total may be.

    Returns
    -------
    bool

    Examples
    --------
    >>> t = pl.DataFrame({"g": [0], "n": [2], "b_total": [2.0], "b_off": [0.0], "b_low": [0.0],
    ...                   "b_high": [1.0], "b_miss": [0]})
    >>> proven(t, False, False, argmax="g", prefix="", tolerance=1e-6)
    True
    >>> proven(t.with_columns(b_high=1.5), False, False, argmax="g", prefix="", tolerance=1e-6)
    False
    """
    names = (argmax, "n", *(f"{prefix}b_{c}" for c in ("total", "off", "low", "high", "miss")))
    for top, n, total, off, low, high, miss in zip(*(df[c].to_list() for c in names),
                                                     strict=True):
        if top is None:
            if detail or miss != n:
                return False
            continue
        if total is None or not math.isfinite(total) or low is None or low < 0:
            return False
        if (off != 0) if normalize else (off is None or off > tolerance or high > 1):
            return False
    return True
