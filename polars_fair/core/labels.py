"""How a group reads: one spelling of a group's key values, shared by every table and chart.

:func:`group_label` is a pure ``pl.Expr``; the charts (:mod:`polars_fair.audit.plot`), the
threshold search (:mod:`polars_fair.analyses.thresholds`) and the audit page read it from here.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_fair import errors as E

__all__ = ["MISSING_GROUP", "group_label"]

#: How a missing attribute value reads in a label (never "—", which means an undefined figure).
MISSING_GROUP = "(missing)"


def group_label(columns: Sequence[str], *, missing: str = MISSING_GROUP) -> pl.Expr:
    """The label of a group: its value as text, ``"v1 | v2"`` for several attributes.

    Parameters
    ----------
    columns : sequence of str
        The key columns, in order (at least one).
    missing : str, default "(missing)"
        How a null value (a group of the rows whose attribute is missing) reads: never "—",
        which the audit keeps for an undefined figure.

    Returns
    -------
    pl.Expr
        A String expression named ``group``.

    Raises
    ------
    InvalidArgumentError
        ``columns`` is empty.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"race": ["Black", None], "sex": ["Female", "Male"]})
    >>> df.select(group_label(["race", "sex"]))["group"].to_list()
    ['Black | Female', '(missing) | Male']
    """
    if not columns:
        raise E.InvalidArgumentError("a group label needs at least one key column, got []")
    parts = [pl.col(c).cast(pl.String).fill_null(missing) for c in columns]
    expr = parts[0] if len(parts) == 1 else pl.concat_str(parts, separator=" | ")
    return expr.alias("group")
