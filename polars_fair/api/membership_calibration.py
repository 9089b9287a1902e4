"""The calibration check of estimated membership, from the rows: one scan, then the analysis.

:func:`calibration_counts` counts the rows once into the membership calibration table
(:func:`polars_fair.counting.membership_calibration.calibration_table`) and returns the
:class:`FairCalibrationCounts` that owns it; its method
:meth:`~FairCalibrationCounts.membership_calibration` is
:func:`polars_fair.analyses.membership_calibration.membership_calibration_from_table`.
:func:`membership_calibration` and ``lf.fair.membership_calibration(...)`` are the two steps
in one call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from polars_fair._docs import compose
from polars_fair.analyses.membership_calibration import membership_calibration_from_table
from polars_fair.core.spec import IntoExpr, NullGroups
from polars_fair.counting.membership_calibration import CalibrationTable, calibration_table

#: The ``membership=`` argument: one attribute -> (group value -> probability column).
Memberships = Mapping[str, Mapping[Any, IntoExpr]]

__all__ = ["FairCalibrationCounts", "calibration_counts", "membership_calibration",
           "namespace_membership_calibration"]

#: The arguments of the rows-level call, documented once.
ROWS_DOC = """membership : mapping
    One attribute name mapped to its groups in declared order, each mapped to its probability
    column (a name or an expression): ``{"race": {"White": "p_white", "Black": "p_black"}}``.
    A row's probabilities lie in [0, 1] and sum to 1 within 1e-6.
known : str or pl.Expr
    The group each row reported (self-reported race, say), null where unknown; compared with
    the group values as text. Rows with a null ``known`` count only in ``share_known``.
bins : int, default 10
    Equal-width bins over [0, 1], at most 100.
sample_weight : str or pl.Expr, optional
    Row weights (finite, non-negative): ``n`` becomes a weight sum.
normalize : bool, default False
    Divide each row's probabilities by their sum (instead of requiring a sum of 1).
null_groups : {"keep", "raise", "drop"}, default "keep"
    Rows with a null probability have nothing to calibrate: kept, they count only in
    ``share_known``'s denominator; ``"raise"`` refuses them; ``"drop"`` drops them with a
    warning."""

#: The errors raised before the plan runs, beside those of the analysis.
ROWS_ERRORS_DOC = """InvalidArgumentError
    The rows are not a polars frame (Spark and DuckDB are not read yet), ``membership`` is not
    one attribute mapping distinct groups to columns or expressions,
    ``bins`` is not an integer >= 1, two groups are the same text, a bad ``null_groups``.
ColumnNotFoundError
    A probability, the ``known`` or the ``sample_weight`` column is absent.
InvalidMembershipError
    A probability column is not numeric.
SizeLimitError
    ``bins`` above 100."""


class FairCalibrationCounts:
    """The membership calibration table of some rows, with the calibration check.

    Parameters
    ----------
    table : CalibrationTable
        The lazy table and what it was counted with.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"p_a": [0.9, 0.2], "p_b": [0.1, 0.8], "self": ["A", None]})
    >>> c = calibration_counts(df, membership={"g": {"A": "p_a", "B": "p_b"}}, known="self")
    >>> c.frame.collect().height, c.table.membership.groups
    (2, ('A', 'B'))
    """

    def __init__(self, table: CalibrationTable) -> None:
        self.table = table
        self.frame = table.frame

    def membership_calibration(self) -> pl.LazyFrame:
        """The reliability table and ECE per group (:func:`membership_calibration_from_table`).

        Returns
        -------
        pl.LazyFrame
            The columns of
            :func:`polars_fair.analyses.membership_calibration.membership_calibration_from_table`.

        Raises
        ------
        PolarsFairError
            As :func:`membership_calibration_from_table`.

        Examples
        --------
        >>> import polars as pl
        >>> df = pl.DataFrame({"p_a": [0.9, 0.2], "p_b": [0.1, 0.8], "self": ["A", "B"]})
        >>> c = calibration_counts(df, membership={"g": {"A": "p_a", "B": "p_b"}}, known="self",
        ...                        bins=2)
        >>> c.membership_calibration().collect()["observed_share"].to_list()
        [0.0, 1.0, 0.0, 1.0]
        """
        return membership_calibration_from_table(self.table)


def calibration_counts(frame: pl.DataFrame | pl.LazyFrame, *,  # noqa: D103
                       membership: Memberships, known: IntoExpr, bins: int = 10,
                       sample_weight: IntoExpr | None = None, normalize: bool = False,
                       null_groups: NullGroups = "keep") -> FairCalibrationCounts:
    return FairCalibrationCounts(calibration_table(
        frame, membership=membership, known=known, bins=bins, sample_weight=sample_weight,
        normalize=normalize, null_groups=null_groups))


calibration_counts.__doc__ = compose(
    calibration_table.__doc__ or "", returns="FairCalibrationCounts", example="""\
>>> import polars as pl
>>> df = pl.DataFrame({"p_a": [0.9, 0.3], "p_b": [0.1, 0.7], "self": ["A", None]})
>>> c = calibration_counts(df, membership={"g": {"A": "p_a", "B": "p_b"}}, known="self")
>>> c.frame.collect().sort("known")["rows"].to_list()
[1, 1]""")


def membership_calibration(frame: pl.DataFrame | pl.LazyFrame, *,  # noqa: D103
                           membership: Memberships, known: IntoExpr, bins: int = 10,
                           sample_weight: IntoExpr | None = None,
                           normalize: bool = False,
                           null_groups: NullGroups = "keep") -> pl.LazyFrame:
    return calibration_counts(frame, membership=membership, known=known, bins=bins,
                              sample_weight=sample_weight, normalize=normalize,
                              null_groups=null_groups).membership_calibration()


membership_calibration.__doc__ = compose(
    membership_calibration_from_table.__doc__ or "", drop=("table",),
    before="""frame : pl.DataFrame or pl.LazyFrame
    The rows: one per person, with the probability columns and the known group.
""" + ROWS_DOC, raises=ROWS_ERRORS_DOC, returns="pl.LazyFrame", example="""\
>>> import polars as pl
>>> df = pl.DataFrame({"p_a": [0.9, 0.8, 0.3, 0.2, 0.6], "p_b": [0.1, 0.2, 0.7, 0.8, 0.4],
...                    "self": ["A", "B", "B", "B", None]})
>>> out = membership_calibration(df, membership={"g": {"A": "p_a", "B": "p_b"}}, known="self",
...                              bins=2).collect()
>>> out.select("g", "bin", "n", "observed_share").rows()
[('A', 0, 2, 0.0), ('A', 1, 2, 0.5), ('B', 0, 2, 0.5), ('B', 1, 2, 1.0)]""")


def namespace_membership_calibration(self: Any, /, *, membership: Memberships,  # noqa: D103
                                     known: IntoExpr,
                                     bins: int = 10, sample_weight: IntoExpr | None = None,
                                     normalize: bool = False,
                                     null_groups: NullGroups = "keep") -> pl.LazyFrame:
    return membership_calibration(self._lf, membership=membership, known=known, bins=bins,
                                  sample_weight=sample_weight, normalize=normalize,
                                  null_groups=null_groups)


namespace_membership_calibration.__doc__ = compose(
    membership_calibration_from_table.__doc__ or "", drop=("table",), before=ROWS_DOC,
    raises=ROWS_ERRORS_DOC, returns="pl.LazyFrame", example="""\
>>> import polars as pl, polars_fair
>>> df = pl.DataFrame({"p_a": [0.9, 0.8, 0.3, 0.2, 0.6], "p_b": [0.1, 0.2, 0.7, 0.8, 0.4],
...                    "self": ["A", "B", "B", "B", None]})
>>> out = df.fair.membership_calibration(membership={"g": {"A": "p_a", "B": "p_b"}},
...                                      known="self", bins=2)
>>> out.select("g", "n_known", "share_known", pl.col("ece").round(12)).unique(
...     maintain_order=True).rows()
[('A', 4, 0.8, 0.3), ('B', 4, 0.8, 0.3)]""")
