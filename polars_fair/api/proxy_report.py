"""The proxy report from the rows: one scan into the membership table, then the analysis.

:func:`proxy_counts` counts the rows once into the membership table with every sum family
(:func:`polars_fair.counting.proxy_table.proxy_table`) and returns the :class:`FairProxyCounts`
that owns it; its method :meth:`~FairProxyCounts.proxy_report` is
:func:`polars_fair.analyses.proxy_report.proxy_report_from_membership`. :func:`proxy_report`
and ``lf.fair.proxy_report(...)`` are the two steps in one call.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_fair._docs import compose
from polars_fair.analyses.proxy_report import proxy_report_from_membership
from polars_fair.api.membership_calibration import Memberships
from polars_fair.core.limits import limit
from polars_fair.core.options import DEFAULTS
from polars_fair.core.spec import By, IntoExpr, NullGroups
from polars_fair.counting.membership import MembershipTable
from polars_fair.counting.proxy_table import proxy_table

__all__ = ["FairProxyCounts", "namespace_proxy_report", "proxy_counts", "proxy_report"]

#: The arguments of the rows-level call, documented once.
ROWS_DOC = """by : str, expression or list of them, optional
    Ordinary attributes crossed with the membership groups (``None``: the groups alone).
membership : mapping
    One attribute name mapped to its groups, each mapped to its probability column (a name or
    an expression): ``{"race": {"White": "p_white", "Black": "p_black"}}``. A row's
    probabilities lie in [0, 1] and sum to 1 within 1e-6 (or pass ``normalize=True``).
y_true : str or pl.Expr or None, default "y_true"
    The label column (``None``: no ``tpr``/``fpr``).
y_pred : str or pl.Expr, optional
    The 0/1 prediction (default: the column ``"y_pred"``).
pos_label : Any, default 1
    The positive value of the label and the prediction.
sample_weight : str or pl.Expr, optional
    Row weights (finite, non-negative).
normalize : bool, default False
    Divide each row's probabilities by their sum (instead of requiring a sum of 1).
null_groups : {"keep", "raise", "drop"}, default "keep"
    Rows with a null probability belong to no group: kept, they add nothing to any estimate;
    ``"raise"`` refuses them; ``"drop"`` drops them with a warning."""

#: The errors raised before the plan runs, beside those of the analysis.
ROWS_ERRORS_DOC = f"""ColumnNotFoundError
    A probability, label, prediction, weight or ``by`` column is absent.
InvalidMembershipError
    A probability column is not numeric (at once); probabilities NaN, infinite, outside
    [0, 1] or not summing to 1 (when the plan runs; the message counts the rows).
InvalidLabelError, InvalidWeightError, NullGroupError
    Labels that are not binary, bad weights, null probabilities with ``null_groups="raise"``
    (when the plan runs).
SizeLimitError
    More than {limit('membership_groups'):,} membership groups (``membership_groups`` in
    :data:`polars_fair.core.limits.LIMITS`: the regression's sandwich variance sums (G+3 choose
    4) products of four probabilities per cell), before any work."""

_EXAMPLE = """\
>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"y_pred": [1, 1, 0, 1, 0, 0],
...                    "p_a": [0.9, 0.8, 0.7, 0.2, 0.1, 0.3]}).with_columns(p_b=1 - pl.col("p_a"))
>>> membership = {"g": {"a": "p_a", "b": "p_b"}}"""


class FairProxyCounts:
    """The membership table of some rows (every sum family), with the proxy report.

    Parameters
    ----------
    table : MembershipTable
        The lazy table and what it was counted with.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"y_pred": [1, 0], "p_a": [0.9, 0.2], "p_b": [0.1, 0.8]})
    >>> c = proxy_counts(df, membership={"g": {"a": "p_a", "b": "p_b"}}, y_true=None)
    >>> c.frame.collect().height, c.table.membership.groups
    (2, ('a', 'b'))
    """

    def __init__(self, table: MembershipTable) -> None:
        self.table = table
        self.frame = table.frame

    def proxy_report(self, *, reference: Any = DEFAULTS.reference,  # noqa: D102
                     level: float = DEFAULTS.level, four_fifths: float = DEFAULTS.four_fifths,
                     min_support: float = DEFAULTS.min_support) -> pl.LazyFrame:
        return proxy_report_from_membership(self.table, reference=reference, level=level,
                                            four_fifths=four_fifths, min_support=min_support)

    proxy_report.__doc__ = compose(
        proxy_report_from_membership.__doc__ or "", drop=("table",), returns="pl.LazyFrame",
        example=_EXAMPLE + """
>>> c = polars_fair.proxy_counts(df, membership=membership, y_true=None)
>>> c.proxy_report(reference="a", min_support=0).collect()["is_reference"].to_list()
[True, False]""")


def proxy_counts(frame: Any, by: By = None, *,  # noqa: D103
                 membership: Memberships, y_true: IntoExpr | None = "y_true",
                 y_pred: IntoExpr | None = None, pos_label: Any = 1,
                 sample_weight: IntoExpr | None = None, normalize: bool = False,
                 null_groups: NullGroups = "keep") -> FairProxyCounts:
    return FairProxyCounts(proxy_table(
        frame, by, membership=membership, normalize=normalize, y_true=y_true, y_pred=y_pred,
        pos_label=pos_label, sample_weight=sample_weight, null_groups=null_groups))


_FRAME_DOC = """frame : pl.DataFrame, pl.LazyFrame, pyspark.sql.DataFrame or duckdb.DuckDBPyRelation
    The rows: one per person, with the probability columns, the prediction (and label). On
    Spark and DuckDB the scan is one SQL aggregation; probabilities must be column names there.
"""

proxy_counts.__doc__ = compose(
    proxy_table.__doc__ or "", drop=("frame", "by", "membership", "normalize", "**args"),
    before=_FRAME_DOC + ROWS_DOC, returns="FairProxyCounts", example=_EXAMPLE + """
>>> c = polars_fair.proxy_counts(df, membership=membership, y_true=None)
>>> c.frame.collect()["n"].sum()
6""")


def proxy_report(frame: Any, by: By = None, *,  # noqa: D103
                 membership: Memberships, y_true: IntoExpr | None = "y_true",
                 y_pred: IntoExpr | None = None, pos_label: Any = 1,
                 sample_weight: IntoExpr | None = None, normalize: bool = False,
                 null_groups: NullGroups = "keep", reference: Any = DEFAULTS.reference,
                 level: float = DEFAULTS.level, four_fifths: float = DEFAULTS.four_fifths,
                 min_support: float = DEFAULTS.min_support) -> pl.LazyFrame:
    return proxy_counts(
        frame, by, membership=membership, y_true=y_true, y_pred=y_pred, pos_label=pos_label,
        sample_weight=sample_weight, normalize=normalize, null_groups=null_groups,
    ).proxy_report(reference=reference, level=level, four_fifths=four_fifths,
                   min_support=min_support)


proxy_report.__doc__ = compose(
    proxy_report_from_membership.__doc__ or "", drop=("table",),
    before=_FRAME_DOC + ROWS_DOC, raises=ROWS_ERRORS_DOC, returns="pl.LazyFrame",
    example=_EXAMPLE + """
>>> r = polars_fair.proxy_report(df, membership=membership, y_true=None, reference="a",
...                              min_support=0).collect()
>>> r.select("g", pl.col("selection_rate_weighted", "selection_rate_argmax").round(4)).rows()
[('a', 0.6333, 0.6667), ('b', 0.3667, 0.3333)]""")


def namespace_proxy_report(self: Any, /, by: By = None, *, membership: Memberships,  # noqa: D103
                           y_true: IntoExpr | None = "y_true", y_pred: IntoExpr | None = None,
                           pos_label: Any = 1, sample_weight: IntoExpr | None = None,
                           normalize: bool = False, null_groups: NullGroups = "keep",
                           reference: Any = DEFAULTS.reference, level: float = DEFAULTS.level,
                           four_fifths: float = DEFAULTS.four_fifths,
                           min_support: float = DEFAULTS.min_support) -> pl.LazyFrame:
    return proxy_report(self._lf, by, membership=membership, y_true=y_true, y_pred=y_pred,
                        pos_label=pos_label, sample_weight=sample_weight, normalize=normalize,
                        null_groups=null_groups, reference=reference, level=level,
                        four_fifths=four_fifths, min_support=min_support)


namespace_proxy_report.__doc__ = compose(
    proxy_report_from_membership.__doc__ or "", drop=("table",), before=ROWS_DOC,
    raises=ROWS_ERRORS_DOC, returns="pl.LazyFrame", example=_EXAMPLE + """
>>> r = df.fair.proxy_report(membership=membership, y_true=None, reference="a",
...                          min_support=0)
>>> r["verdict"].to_list()
[None, 'indeterminate']""")
