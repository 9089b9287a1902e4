"""The calibration check of estimated membership, from the membership calibration table.

The probability-weighted estimator is only as good as the probabilities' calibration: among the
people given a 0.7 probability of being Hispanic, about 70% should be. Where some rows carry the
group people reported (the ``known`` column), :func:`membership_calibration_from_table` compares,
for each group, the predicted probability with the observed share of that group in bins (a
reliability table, as for scores), and states the expected calibration error. The bins, the
reliability table and the ECE are those of the score calibration
(:mod:`polars_fair.analyses.scores.calibration`), fed with the cells the scan counted
(:mod:`polars_fair.counting.membership_calibration`).
"""

from __future__ import annotations

import polars as pl

from polars_fair import errors as E
from polars_fair._lazy import np
from polars_fair.analyses.scores.calibration import _tables
from polars_fair.counting.membership import ARGMAX
from polars_fair.counting.membership_calibration import CalibrationTable, check_calibration_table

__all__ = ["CALIBRATION_COLUMNS", "membership_calibration_from_table"]

#: The output columns after the attribute's.
CALIBRATION_COLUMNS = ("bin", "bin_low", "bin_high", "n", "mean_probability", "observed_share",
                       "n_known", "share_known", "ece", "max_calibration_error",
                       "classwise_ece")


def _output_schema(attribute: str, group_dtype: pl.DataType, weighted: bool) -> pl.Schema:
    count = pl.Float64() if weighted else pl.Int64()
    dtypes = [pl.Int64(), pl.Float64(), pl.Float64(), count, pl.Float64(), pl.Float64(),
              pl.Int64(), pl.Float64(), pl.Float64(), pl.Float64(), pl.Float64()]
    return pl.Schema([(attribute, group_dtype), *zip(CALIBRATION_COLUMNS, dtypes, strict=True)])


def _cells(df: pl.DataFrame, t: CalibrationTable) -> pl.DataFrame:
    """Every (group, bin) cell over the rows with a known group: score, positives, negatives.

    ``score`` is the cell's mean probability (0 for an empty cell, which the reliability table
    reports as null); ``positives`` the rows (weights) whose known group is the cell's group.
    """
    m = t.membership
    known = df.filter(pl.col("known").is_not_null() & pl.col(ARGMAX).is_not_null())
    bins = len(t.edges) - 1
    weighted = t.weighted
    dtype = pl.Float64 if weighted else pl.Int64
    cells: dict[str, list[object]] = {"group": [], "bin": [], "score": [], "positives": [],
                                      "negatives": []}  # counts as floats, cast below
    for k, group in enumerate(m.groups):
        own = known.filter(pl.col("known") == str(group))
        for b in range(bins):
            n = float(known[f"n_{k}_{b}"].sum())
            s = float(known[f"s_{k}_{b}"].sum())
            pos = float(own[f"n_{k}_{b}"].sum())
            cells["group"].append(group)
            cells["bin"].append(b)
            cells["score"].append(s / n if n > 0 else 0.0)
            cells["positives"].append(pos)
            cells["negatives"].append(n - pos)
    return pl.DataFrame(cells, schema={"group": m.key_dtype, "bin": pl.Int64, "score": pl.Float64,
                                       "positives": pl.Float64, "negatives": pl.Float64},
                        ).with_columns(pl.col("positives", "negatives").cast(dtype))


def _calibrate(df: pl.DataFrame, t: CalibrationTable) -> pl.DataFrame:
    """The output table from the collected calibration table (checked first)."""
    # in a fixed order, so that the float sums over the cells do not follow the group-by's
    df = check_calibration_table(df, t).sort("known", ARGMAX, nulls_last=True)
    attribute = t.membership.attribute
    weighted = t.weighted
    count_dtype: pl.DataType = pl.Float64() if weighted else pl.Int64()
    edges = np.asarray(t.edges, dtype=np.float64)
    reliability, by_group = _tables(_cells(df, t), ["group"], edges, edges.size - 1,
                                    count_dtype)
    n_rows = int(df["rows"].sum())
    n_known = int(df.filter(pl.col("known").is_not_null() & pl.col(ARGMAX).is_not_null())
                  ["rows"].sum())
    share = n_known / n_rows if n_rows else None
    classwise = by_group["ece"].mean() if by_group["ece"].null_count() == 0 else None
    return (
        reliability.join(by_group.drop("n"), on="group", how="left")
        .sort("group", "bin")
        .select(
            pl.col("group").alias(attribute),
            "bin", "bin_low", "bin_high", "n",
            pl.col("mean_score").alias("mean_probability"),
            pl.col("fraction_positive").alias("observed_share"),
            pl.lit(n_known, dtype=pl.Int64).alias("n_known"),
            pl.lit(share, dtype=pl.Float64).alias("share_known"),
            "ece", "max_calibration_error",
            pl.lit(classwise, dtype=pl.Float64).alias("classwise_ece"),
        )
    )


def membership_calibration_from_table(table: CalibrationTable) -> pl.LazyFrame:
    r"""Reliability of membership probabilities against the known groups, with the ECE.

    Over the rows whose ``known`` group is not null, each group :math:`g` is its own
    calibration problem: the prediction is the row's probability :math:`p_g`, the outcome is
    :math:`1[\text{known} = g]`. Equal-width bins over [0, 1] (right-closed, the first holding
    0: :func:`sklearn.calibration.calibration_curve`'s rule) hold, for bin :math:`b`,
    :math:`n_b` rows (weight sum when weighted), the mean probability
    :math:`\bar p_b = \sum w p_g / n_b` and the observed share
    :math:`\bar y_b = \sum w\,1[\text{known} = g] / n_b`. Then, per group,

    .. math::

        \mathrm{ECE}_g = \sum_b \frac{n_b}{n}\,\lvert \bar y_b - \bar p_b \rvert, \qquad
        \mathrm{MCE}_g = \max_{b:\,n_b > 0} \lvert \bar y_b - \bar p_b \rvert

    (Naeini, Cooper & Hauskrecht 2015, *AAAI*; Guo, Pleiss, Sun & Weinberger 2017, *ICML*; the
    reliability diagram of DeGroot & Fienberg 1983), and over all groups the classwise ECE
    :math:`\frac1K \sum_g \mathrm{ECE}_g` (Kull et al. 2019, *NeurIPS*; the static calibration
    error of Nixon et al. 2019). Every row with a known group enters every group's table, so
    :math:`n` is the same for all groups.

    Parameters
    ----------
    table : CalibrationTable
        The membership calibration table
        (:func:`polars_fair.counting.membership_calibration.calibration_table`).

    Returns
    -------
    pl.LazyFrame
        One row per group and bin (``K * bins`` rows), sorted by group, then bin (as the
        membership count table is sorted):

        - the attribute: the group values (their dtype, as in the membership count table);
        - ``bin`` (Int64, 0-based), ``bin_low``, ``bin_high`` (Float64: the bin
          ``(bin_low, bin_high]``);
        - ``n`` (Int64 rows with a known group in the bin; Float64 weight sum when weighted);
        - ``mean_probability``, ``observed_share`` (Float64 in [0, 1], null for an empty
          bin);
        - ``n_known`` (Int64: rows with a known group and probabilities), ``share_known``
          (Float64 in [0, 1]: ``n_known`` over all rows; null without rows), the same on every
          row. Both count rows, with sample weights too, where ``n`` is a weight sum: they say
          how many people reported a group, whatever their weight;
        - ``ece``, ``max_calibration_error`` (Float64 in [0, 1]: the group's, on each of its
          rows; null when no row has a known group);
        - ``classwise_ece`` (Float64 in [0, 1]: the mean of the groups' ECEs, on every row).

    Raises
    ------
    InvalidArgumentError
        The attribute's name is one of the output columns.
    InvalidMembershipError, NullGroupError, InvalidWeightError, UnknownGroupError
        When collected: a probability NaN, infinite or outside [0, 1], or rows not summing to
        1; a null probability with ``null_groups="raise"``; a bad weight; a known value that is
        not a declared group (the values and their row counts), as
        :func:`polars_fair.counting.membership_calibration.check_calibration_table`.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair.counting.membership_calibration import calibration_table
    >>> df = pl.DataFrame({"p_a": [0.9, 0.8, 0.3, 0.2, 0.6], "p_b": [0.1, 0.2, 0.7, 0.8, 0.4],
    ...                    "self": ["A", "B", "B", "B", None]})
    >>> t = calibration_table(df, membership={"g": {"A": "p_a", "B": "p_b"}}, known="self",
    ...                       bins=2)
    >>> out = membership_calibration_from_table(t).collect()
    >>> out.select("g", "bin", "n", pl.col("mean_probability", "observed_share").round(12))
    shape: (4, 5)
    ┌─────┬─────┬─────┬──────────────────┬────────────────┐
    │ g   ┆ bin ┆ n   ┆ mean_probability ┆ observed_share │
    │ --- ┆ --- ┆ --- ┆ ---              ┆ ---            │
    │ str ┆ i64 ┆ i64 ┆ f64              ┆ f64            │
    ╞═════╪═════╪═════╪══════════════════╪════════════════╡
    │ A   ┆ 0   ┆ 2   ┆ 0.25             ┆ 0.0            │
    │ A   ┆ 1   ┆ 2   ┆ 0.85             ┆ 0.5            │
    │ B   ┆ 0   ┆ 2   ┆ 0.15             ┆ 0.5            │
    │ B   ┆ 1   ┆ 2   ┆ 0.75             ┆ 1.0            │
    └─────┴─────┴─────┴──────────────────┴────────────────┘
    >>> groups = out.select("g", "n_known", "share_known", pl.col("ece", "classwise_ece").round(12))
    >>> groups.unique(maintain_order=True).rows()
    [('A', 4, 0.8, 0.3, 0.3), ('B', 4, 0.8, 0.3, 0.3)]
    """
    attribute = table.membership.attribute
    if attribute in CALIBRATION_COLUMNS:
        raise E.InvalidArgumentError(E.MEMBERSHIP_ATTRIBUTE_CLASH.format(
            name=attribute, analysis="membership_calibration",
            renamed=E.renamed(attribute, taken=CALIBRATION_COLUMNS)))
    schema = _output_schema(attribute, table.membership.key_dtype, table.weighted)
    return table.frame.map_batches(lambda df: _calibrate(df, table), schema=schema)
