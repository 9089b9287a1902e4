"""What the objects of a count table with an analysis of its own share.

A paired count table (:class:`polars_fair.api.compare.FairPaired`) and a period count table
(:class:`polars_fair.api.monitor.FairPeriods`) are each a lazy table, its keys and whether it
was counted with labels (:class:`OwnTable`); each ``from_*_counts`` accepts the table or the
object itself (:func:`unwrap_table`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E

__all__ = ["unwrap_table"]


class OwnTable:
    """A count table of an analysis of its own: ``frame``, its ``keys``, whether ``labels``.

    The base of :class:`polars_fair.api.compare.FairPaired` and
    :class:`polars_fair.api.monitor.FairPeriods`, whose docstrings say what each holds.
    """

    def __init__(self, table: pl.LazyFrame, keys: Sequence[str], labels: bool) -> None:
        self.frame = table
        self.keys = list(keys)
        self.labels = labels


def unwrap_table(table: Any, keys: str | Sequence[str] | None, labels: bool, owner: type[OwnTable],
                 function: str) -> tuple[pl.DataFrame | pl.LazyFrame,
                                         str | Sequence[str] | None, bool]:
    """A ``from_*_counts`` argument as a polars table, with the keys and labels to use.

    Parameters
    ----------
    table : Any
        A polars frame, or an ``owner`` object (its ``.frame``, and by default its keys and
        labels).
    keys : str, sequence of str or None
        The keys given.
    labels : bool
        The labels flag given.
    owner : type
        The object type the function returns (an :class:`OwnTable`).
    function : str
        The function's name, for the message.

    Returns
    -------
    tuple
        The table, the keys and the labels flag.

    Raises
    ------
    InvalidArgumentError
        ``table`` is neither a polars frame nor an ``owner``.

    Examples
    --------
    >>> import polars as pl
    >>> t = OwnTable(pl.LazyFrame({"g": ["a"], "n": [1]}), ("g",), False)
    >>> unwrap_table(t, None, True, OwnTable, "f")[1:]
    (['g'], False)
    """
    if isinstance(table, owner):
        if keys is None:
            keys, labels = table.keys, table.labels
        table = table.frame
    if not isinstance(table, (pl.DataFrame, pl.LazyFrame)):
        raise E.InvalidArgumentError(E.MONITOR_NOT_A_TABLE.format(
            function=function, type=type(table).__name__))
    return table, keys, labels
