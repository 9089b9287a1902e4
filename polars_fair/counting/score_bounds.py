"""Which scores a float cannot hold: decided once, counted by each engine in its own language.

The score table and every comparison read scores as Float64, so scores that two floats cannot
keep apart are refused (``SCORE_DECIMAL_DIGITS``, ``SCORE_BEYOND_FLOAT``). Whether a score's
dtype can hold such values, and which check counts them, is :func:`big_score_check`; the Polars
boundary (:mod:`polars_fair.counting.boundary`), DuckDB (:mod:`polars_fair.counting._duckdb`)
and Spark (:mod:`polars_fair.counting._spark`) each write that check as one aggregate.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from polars_fair.core.spec import FLOAT_DIGITS, FLOAT_EXACT_INT, Audit, wide_decimal, wide_int

__all__ = ["BigScores", "big_score_check"]


class BigScores(NamedTuple):
    """The check of :func:`big_score_check`: the score's name, the kind of check, its bound.

    Parameters
    ----------
    name : str
        The score column.
    kind : {"digits", "range"}
        Count the scores with more significant digits than ``bound`` (leading and trailing
        zeros aside), or beyond ``-bound`` .. ``bound``.
    bound : int
        :data:`polars_fair.core.spec.FLOAT_DIGITS` or
        :data:`polars_fair.core.spec.FLOAT_EXACT_INT`.

    Examples
    --------
    >>> BigScores("s", "range", 2**53).kind
    'range'
    """

    name: str
    kind: Literal["digits", "range"]
    bound: int


def big_score_check(a: Audit) -> BigScores | None:
    """The check that counts the scores a float cannot hold, with its bound, if any can be.

    Parameters
    ----------
    a : Audit
        The resolved call (:func:`polars_fair.core.spec.resolve`): its score and its dtype.

    Returns
    -------
    BigScores or None
        ``"digits"`` with ``FLOAT_DIGITS`` for a wide Decimal score, ``"range"`` with
        ``FLOAT_EXACT_INT`` for a wide integer score; ``None`` without a score or for a dtype
        a float holds.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.core.spec import resolve
    >>> schema = pl.Schema({"g": pl.String, "y_true": pl.Int8, "s": pl.Int64})
    >>> big_score_check(resolve(schema, "g", y_score="s", scores=True))
    BigScores(name='s', kind='range', bound=9007199254740992)
    """
    if a.score_name is None:
        return None
    if wide_decimal(a.score_dtype):
        return BigScores(a.score_name, "digits", FLOAT_DIGITS)
    if wide_int(a.score_dtype):
        return BigScores(a.score_name, "range", FLOAT_EXACT_INT)
    return None
