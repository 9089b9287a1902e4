"""Monitor fairness over time: the period count table and its anytime-valid analysis.

:func:`period_counts` counts the rows once into the period count table
(:mod:`polars_fair.counting.periods`) on any engine; :func:`from_period_counts` accepts one made
elsewhere; both return a :class:`FairPeriods`, whose :meth:`~FairPeriods.monitor` is
:func:`polars_fair.analyses.monitor.monitor_from_counts`. ``lf.fair.monitor(...)`` is
``period_counts(lf, ...).monitor(...)``.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow, compose
from polars_fair.analyses.monitor import monitor_from_counts, monitor_outputs
from polars_fair.analyses.runner import check_clash
from polars_fair.api.compare import paired_counts
from polars_fair.api.external import from_counts
from polars_fair.api.own_table import OwnTable, unwrap_table
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import BY_DOC, INPUT_ERRORS_DOC, By, IntoExpr, refuse_membership
from polars_fair.counting.periods import PERIOD, period_table

__all__ = ["FairPeriods", "from_period_counts", "namespace_monitor", "own_table_analysis",
           "period_counts"]


class FairPeriods(OwnTable):
    """A period count table (``period``, keys, ``n, tp, fp, fn, tn``) with its monitor.

    Parameters
    ----------
    table : pl.LazyFrame
        The period count table.
    keys : sequence of str
        Its attribute keys (without ``period``).
    labels : bool
        Whether it was counted with labels (``tpr`` and ``fpr`` need them).

    Examples
    --------
    >>> import datetime as dt, polars as pl
    >>> df = pl.DataFrame({"g": ["a", "b"], "y_pred": [1, 0],
    ...                    "t": [dt.date(2024, 1, 1), dt.date(2024, 1, 2)]})
    >>> period_counts(df, "g", time="t", every="1w", y_pred="y_pred").keys
    ['g']
    """

    def monitor(self, *, metric: str = DEFAULTS.metric, reference: Any = DEFAULTS.reference,
                alpha: float = 0.05, four_fifths: float = DEFAULTS.four_fifths,
                min_support: float = DEFAULTS.min_support) -> pl.LazyFrame:
        """Each group against the reference over time (:func:`monitor_from_counts`).

        Parameters
        ----------
        metric : {"selection_rate", "tpr", "fpr"}, default "selection_rate"
            The rate monitored.
        reference : "largest", "max_selection_rate" or a group, default "largest"
            The reference group.
        alpha : float, default 0.05
            The level of the sequences and alarms, per comparison.
        four_fifths : float, default 0.8
            The threshold of the four-fifths alarm.
        min_support : float, default 30
            A rule-chosen reference has at least this many rows when any group does.

        Returns
        -------
        pl.LazyFrame
            The columns of :func:`polars_fair.analyses.monitor.monitor_from_counts`.

        Raises
        ------
        InvalidArgumentError
            ``tpr`` or ``fpr`` on a table counted without labels; the errors of
            :func:`polars_fair.analyses.monitor.monitor_from_counts`.

        Examples
        --------
        >>> import datetime as dt, polars as pl
        >>> df = pl.DataFrame({"g": ["a", "a", "b"], "y_pred": [1, 0, 0],
        ...                    "t": [dt.date(2024, 1, 1)] * 3})
        >>> p = period_counts(df, "g", time="t", every="1w", y_pred="y_pred")
        >>> p.monitor(min_support=1).select("g", "rate", "is_reference").collect().rows()
        [('a', 0.5, True), ('b', 0.0, False)]
        """
        if metric in ("tpr", "fpr") and not self.labels:
            raise E.InvalidArgumentError(E.MONITOR_NEEDS_LABELS.format(metric=metric))
        return monitor_from_counts(self.frame, self.keys, metric=metric, reference=reference,
                                   alpha=alpha, four_fifths=four_fifths,
                                   min_support=min_support)


@borrow(paired_counts, params=("by",))
def period_counts(frame: Any, by: By = None, *, time: IntoExpr, every: str, y_pred: IntoExpr,
                  y_true: IntoExpr | None = None, **count_args: Any) -> FairPeriods:
    """Count the rows once into the period count table (:func:`.counting.periods.period_table`).

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The decisions, one row each, with a time column.
    time : str or pl.Expr
        A Date or Datetime column (a name on Spark and DuckDB).
    every : str
        The period: a Polars duration of whole days, weeks, months, quarters or years
        (``"1w"``, ``"1mo"``).
    y_pred : str or pl.Expr
        The prediction.
    y_true : str or pl.Expr or None, default None
        The label (needed for ``tpr`` and ``fpr``).
    **count_args : Any
        ``pos_label``, ``null_groups``, ``max_groups``.

    Returns
    -------
    FairPeriods
        ``.frame`` the lazy period count table; ``.monitor()`` the analysis.

    Raises
    ------
    InvalidArgumentError
        ``membership=``: refused, since a period table counts each row in exactly one group
        (estimated membership has no periods of its own).
    ColumnNotFoundError, InvalidArgumentError, InvalidLabelError
        As :func:`polars_fair.counting.periods.period_table`.

    Examples
    --------
    >>> import datetime as dt, polars as pl
    >>> df = pl.DataFrame({"g": ["a", "a"], "y_pred": [1, 0],
    ...                    "t": [dt.date(2024, 1, 1), dt.date(2024, 2, 1)]})
    >>> t = period_counts(df, "g", time="t", every="1mo", y_pred="y_pred").frame.collect()
    >>> t.select(pl.col("period").cast(pl.String), "n", "fp").rows()
    [('2024-01-01', 1, 1), ('2024-02-01', 1, 0)]
    """
    refuse_membership(count_args, "monitor", "period count table")
    table, keys = period_table(frame, by, time=time, every=every, y_pred=y_pred,
                               y_true=y_true, **count_args)
    return FairPeriods(table, keys, labels=y_true is not None)


def from_period_counts(table: pl.DataFrame | pl.LazyFrame | FairPeriods,
                       keys: str | Sequence[str] | None = None, *,
                       labels: bool = True) -> FairPeriods:
    """Monitor from a period count table made anywhere (``period``, keys, the count cells).

    The table is checked as :func:`polars_fair.from_counts` checks a count table, with
    ``period`` (a Date column: each period's first day) as its first key.

    Parameters
    ----------
    table : pl.DataFrame, pl.LazyFrame or FairPeriods
        ``period`` (no nulls), the keys, ``n, tp, fp, fn, tn``; or what :func:`period_counts`
        returned (its ``.frame`` is used, and its keys and labels by default).
    keys : str or sequence of str, optional
        The attribute keys; default every column that is neither ``period`` nor a count.
    labels : bool, default True
        Whether ``tp`` and ``fn`` hold labelled positives.

    Returns
    -------
    FairPeriods
        ``.monitor()`` gives what ``df.fair.monitor`` gives on the rows.

    Raises
    ------
    ColumnNotFoundError, InvalidInputError
        As :func:`polars_fair.from_counts`.
    NullValuesError
        ``period`` holds nulls (with their count).
    InvalidArgumentError
        ``table`` is neither a polars frame nor a :class:`FairPeriods`; ``period`` is not a
        Date or Datetime column (a text period would be ordered alphabetically); a key is
        named like a column the monitor adds (``rate``, ``alarm``, ...).

    Examples
    --------
    >>> import datetime as dt, polars as pl
    >>> t = pl.DataFrame({"period": [dt.date(2024, 1, 1)] * 2, "g": ["a", "b"], "n": [4, 4],
    ...                   "tp": [0, 0], "fp": [2, 1], "fn": [0, 0], "tn": [2, 3]})
    >>> from_period_counts(t, "g").monitor(min_support=1).select("g", "rate").collect().rows()
    [('a', 0.5), ('b', 0.25)]
    """
    table, keys, labels = unwrap_table(table, keys, labels, FairPeriods, "from_period_counts")
    names = table.collect_schema().names()
    if keys is None:
        counted = {"n", "tp", "fp", "fn", "tn", "weight_sum", PERIOD}
        key_list = [c for c in names if c not in counted]
    else:
        key_list = [keys] if isinstance(keys, str) else list(keys)
    check_clash(key_list, monitor_outputs(), "monitor", made_elsewhere=True)
    if PERIOD in names:  # else from_counts names the missing key
        dtype = table.collect_schema()[PERIOD]
        if not (dtype == pl.Date or isinstance(dtype, pl.Datetime)):
            advice = E.MONITOR_PERIOD_TEXT if dtype == pl.String else E.MONITOR_PERIOD_OTHER
            raise E.InvalidArgumentError(E.MONITOR_PERIOD_DTYPE.format(dtype=dtype,
                                                                       advice=advice))
        nulls = table.lazy().select(pl.col(PERIOD).null_count()).collect().item()
        if nulls:
            raise E.NullValuesError(E.MONITOR_NULL_PERIOD.format(count=nulls))
    checked = from_counts(table, [PERIOD, *key_list])
    return FairPeriods(checked.frame, key_list, labels)


def own_table_analysis(frame: Any, method: str, by: By = None, **options: Any) -> pl.DataFrame:
    """``compare`` or ``monitor`` on any engine's rows, collected (the engines' shortcuts).

    The options of the analysis (:meth:`FairPaired.compare`, :meth:`FairPeriods.monitor`) go
    to it; every other option counts the table (:func:`paired_counts`, :func:`period_counts`).

    Parameters
    ----------
    frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
        The rows.
    method : {"compare", "monitor"}
        The analysis.
    by : str, pl.Expr or list of them, optional
        The attributes.
    **options : Any
        The options of ``df.fair.compare`` or ``df.fair.monitor``.

    Returns
    -------
    pl.DataFrame
        The analysis, collected.

    Raises
    ------
    PolarsFairError
        As ``df.fair.compare`` / ``df.fair.monitor``.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"g": ["a", "b"], "new": [1, 0], "old": [1, 1]})
    >>> own_table_analysis(df, "compare", "g", y_pred="new", baseline="old",
    ...                    min_support=1)["selection_rate_change"].to_list()
    [0.0, -1.0]
    """
    from polars_fair.api.compare import FairPaired

    owners: dict[str, tuple[type, Any]] = {"compare": (FairPaired, paired_counts),
                                           "monitor": (FairPeriods, period_counts)}
    owner, count = owners[method]
    names = set(inspect.signature(getattr(owner, method)).parameters) - {"self"}
    analysis = {k: v for k, v in options.items() if k in names}
    counting = {k: v for k, v in options.items() if k not in names}
    table: Any = count(frame, by, **counting)
    result: pl.LazyFrame = getattr(table, method)(**analysis)
    return result.collect()


def namespace_monitor(self: Any, /, by: By = None, *, time: IntoExpr,  # noqa: D103
                      every: str, y_pred: IntoExpr, y_true: IntoExpr | None = None,
                      metric: str = DEFAULTS.metric, reference: Any = DEFAULTS.reference,
                      alpha: float = 0.05, four_fifths: float = DEFAULTS.four_fifths,
                      min_support: float = DEFAULTS.min_support,
                      **count_args: Any) -> pl.LazyFrame:
    return period_counts(self._lf, by, time=time, every=every, y_pred=y_pred, y_true=y_true,
                         **count_args).monitor(
        metric=metric, reference=reference, alpha=alpha, four_fifths=four_fifths,
        min_support=min_support)


namespace_monitor.__doc__ = compose(
    monitor_from_counts.__doc__ or "", drop=("periods", "keys"),
    before=BY_DOC + """
time : str or pl.Expr
    A Date or Datetime column: when each decision was made.
every : str
    The period: a Polars duration of whole days, weeks, months, quarters or years (``"1w"``,
    ``"2w"``, ``"1mo"``); weeks start on Monday.
y_pred : str or pl.Expr
    The prediction.
y_true : str or pl.Expr or None, default None
    The label (``tpr`` and ``fpr`` need it).""",
    after="""**count_args
    ``pos_label``, ``null_groups``, ``max_groups``.""",
    raises=INPUT_ERRORS_DOC, returns="pl.LazyFrame", example="""\
>>> import datetime as dt, polars as pl, polars_fair
>>> df = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_pred": [1, 0, 0, 0],
...                    "t": [dt.date(2024, 1, 1), dt.date(2024, 1, 8)] * 2})
>>> m = df.lazy().fair.monitor("g", time="t", every="1w", y_pred="y_pred", min_support=1)
>>> m.select("period", "g", "rate", "alarm").collect().height
4""")
