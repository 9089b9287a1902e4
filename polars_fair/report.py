"""Group rates and the disparity report, computed lazily from a count table.

Every function here takes a count table (key columns, then ``n, tp, fp, fn, tn`` and, when
weighted, ``weight_sum``) as a LazyFrame and returns a LazyFrame; nothing here reads rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.expressions import RATE_NAMES, Counts, rate_from_counts, safe_div
from polars_fair.tables import Counted

__all__ = ["REFERENCE_RULES", "rates_from_counts", "report_from_counts"]

REFERENCE_RULES = ("largest", "max_selection_rate", "overall")
FINDINGS = ("algorithmic", "systemic", "none", "insufficient support")


def on_small_table(
    lf: pl.LazyFrame, build: Callable[[pl.LazyFrame], pl.LazyFrame]
) -> pl.LazyFrame:
    """Run ``build`` on the (small) collected table, in memory, as one step of a lazy plan.

    Analyses use whole-table expressions (``arg_max``, ``max``, positional ``get``) whose
    tie-breaking the streaming engine does not guarantee; running them on the single collected
    count table keeps every engine's result identical. The output schema is known without data.
    """
    schema = build(lf).collect_schema()
    return lf.map_batches(
        lambda df: build(dense(df).lazy()).collect(engine="in-memory"), schema=schema
    )


def dense(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with ordinary columns.

    The streaming engine can hand over a column whose values are all equal in a single-value
    form, and Polars divides by such a value by multiplying with its inverse (3/10 becomes
    0.30000000000000004), so the same rate would differ in the last digit by engine.
    """
    return pl.DataFrame(df.get_columns())


Builder = Callable[[pl.LazyFrame, list[str]], pl.LazyFrame]


def analyse(counted: Counted, build: Builder) -> pl.LazyFrame:
    """Run an analysis ``build(counts, keys)`` on a count table, per attribute set.

    With one attribute set this is :func:`on_small_table`. With several (``counted.sets``), the
    analysis runs on each set's rows with that set's keys (a reference group, a maximum rate, the
    pairs, are all taken within the set), and the results are stacked under an ``attributes``
    column with every key column (null outside the row's set), in the order of the sets.
    """
    if counted.sets is None:
        keys = counted.keys
        return on_small_table(counted.frame, lambda lf: build(lf, keys))
    schema = counted.frame.collect_schema()
    all_keys = counted.keys
    cells = [c for c in schema.names() if c != "attributes" and c not in all_keys]

    def part_input(frame: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
        label = ",".join(keys)
        return frame.filter(pl.col("attributes").list.join(",") == label).select(*keys, *cells)

    # Each set's output schema, known without data; their union is the result's schema. Key
    # columns (and pairwise's <key>_i / <key>_j) come first, in the order of the attributes.
    schemas = [
        build(part_input(counted.frame, keys), keys).collect_schema() for keys in counted.sets
    ]
    dtypes: dict[str, pl.DataType] = {}
    for sch in schemas:
        for name, dtype in sch.items():
            dtypes.setdefault(name, dtype)
    key_like = [c for suffix in ("", "_i", "_j") for k in all_keys if (c := k + suffix) in dtypes]
    order = ["attributes", *key_like, *[c for c in dtypes if c not in key_like]]
    schema_out = pl.Schema(
        [("attributes", pl.List(pl.String()))] + [(c, dtypes[c]) for c in order[1:]]
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:
        parts = []
        for keys in counted.sets or []:
            part = build(part_input(dense(df).lazy(), keys), keys).collect(engine="in-memory")
            parts.append(
                part.with_columns(
                    pl.lit(keys, dtype=pl.List(pl.String)).alias("attributes"),
                    *[pl.lit(None, dtype=schema_out[c]).alias(c) for c in order
                      if c != "attributes" and c not in part.columns],
                ).select(order)
            )
        return pl.concat(parts, how="vertical") if parts else pl.DataFrame(schema=schema_out)

    return counted.frame.map_batches(run, schema=schema_out)


def first_max_index(expr: pl.Expr) -> pl.Expr:
    """The index of the first row (in key order) holding the maximum of ``expr``.

    Not ``arg_max``: on a column Polars flags as sorted it returns the *last* of tied maxima,
    and the streaming engine does not fix tie order either.
    """
    return (expr == expr.max()).arg_true().first()


def count_exprs(schema_names: Sequence[str]) -> Counts:
    """Count expressions of a count table; ``n`` is ``weight_sum`` when the table is weighted."""
    c = Counts.columns()
    if "weight_sum" in schema_names:
        return Counts(pl.col("weight_sum"), c.tp, c.fp, c.fn, c.tn)
    return c


def with_rates(counts: pl.LazyFrame) -> pl.LazyFrame:
    """Append every rate of :data:`~polars_fair.expressions.RATES` to a count table."""
    c = count_exprs(counts.collect_schema().names())
    return counts.with_columns([rate_from_counts(name, c) for name in RATE_NAMES])


def rates_from_counts(counts: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Keys, ``n``, then every rate (Float64, null where the denominator is 0).

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table (see :func:`polars_fair.tables.count_table`).
    keys : sequence of str
        Its key columns.

    Returns
    -------
    pl.LazyFrame

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a"], "n": [4], "tp": [1], "fp": [1], "fn": [1], "tn": [1]})
    >>> rates_from_counts(c, ["g"]).collect()["tpr"].to_list()
    [0.5]
    """
    return with_rates(counts).select(*keys, "n", *RATE_NAMES)


def _group_label(row: Mapping[str, Any], keys: Sequence[str]) -> Any:
    return row[keys[0]] if len(keys) == 1 else {k: row[k] for k in keys}


def reference_mask(
    counts: pl.LazyFrame, keys: Sequence[str], reference: Any
) -> tuple[pl.Expr, pl.LazyFrame]:
    """A boolean expression selecting an explicit reference group, and ``counts`` with a check.

    The check raises :class:`~polars_fair.errors.UnknownGroupError`, listing the groups, at
    collect time when no row matches.
    """
    if isinstance(reference, Mapping):
        ref = dict(reference)
        if set(ref) != set(keys):
            raise E.InvalidArgumentError(
                f"reference mapping must name exactly the attributes {list(keys)}, got {list(ref)}"
            )
    else:
        if len(keys) != 1:
            raise E.InvalidArgumentError(
                f"with several attributes {list(keys)} pass reference as a mapping "
                "{attribute: value}"
            )
        ref = {keys[0]: reference}
    schema = counts.collect_schema()
    for k, v in ref.items():
        check_value_type(v, schema[k], k, "reference")
    parts = [pl.col(k).is_null() if v is None else pl.col(k).eq_missing(pl.lit(v))
             for k, v in ref.items()]
    mask = pl.all_horizontal(parts) if parts else pl.lit(True)
    size = next((c for c in ("weight_sum", "n", "__size") if c in schema), None)

    def check(df: pl.DataFrame) -> pl.DataFrame:
        chosen = df.filter(mask)
        if chosen.height == 0:
            groups = [_group_label(r, keys) for r in df.select(keys).iter_rows(named=True)]
            raise E.UnknownGroupError(
                E.UNKNOWN_GROUP.format(group=reference, groups=E.show_values(groups, limit=50))
            )
        if size is not None and not chosen[size].sum():
            raise E.UnknownGroupError(E.EMPTY_REFERENCE.format(group=reference, size=size))
        return df

    return mask, counts.map_batches(check, schema=counts.collect_schema())


def check_value_type(value: Any, dtype: pl.DataType, column: str, role: str) -> None:
    """Raise when a Python value cannot be compared with a column of ``dtype``."""
    if value is None:
        return
    ok = (
        (dtype == pl.Boolean and isinstance(value, bool))
        or (dtype.is_numeric() and isinstance(value, (int, float)) and not isinstance(value, bool))
        or ((dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)))
            and isinstance(value, str))
        or not (dtype == pl.Boolean or dtype.is_numeric() or dtype == pl.String
                or isinstance(dtype, (pl.Categorical, pl.Enum)))
    )
    if not ok:
        raise E.InvalidArgumentError(
            E.VALUE_DTYPE.format(role=role, value=value, type=type(value).__name__,
                                 column=column, dtype=dtype)
        )


def _validate_options(min_support: int, ofi_threshold: float, four_fifths: float) -> None:
    for name, val in (("min_support", min_support), ("ofi_threshold", ofi_threshold),
                      ("four_fifths", four_fifths)):
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            raise E.InvalidArgumentError(f"{name} must be a number, got {val!r}")
    if min_support < 0:
        raise E.InvalidArgumentError(f"min_support must be >= 0, got {min_support}")
    if not 0 <= ofi_threshold <= 2:
        raise E.InvalidArgumentError(f"ofi_threshold must lie in [0, 2], got {ofi_threshold}")
    if not 0 < four_fifths <= 1:
        raise E.InvalidArgumentError(f"four_fifths must lie in (0, 1], got {four_fifths}")


def report_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: Any = "largest",
    min_support: int = 30,
    ofi_threshold: float = 0.3,
    four_fifths: float = 0.8,
) -> pl.LazyFrame:
    """The per-group disparity report from a count table (see ``FairLazyFrame.report``).

    Returns
    -------
    pl.LazyFrame
        The columns of ``df.fair.report``.

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"g": ["a", "b"], "n": [4, 4], "tp": [2, 1], "fp": [0, 0],
    ...                   "fn": [0, 1], "tn": [2, 2]})
    >>> report_from_counts(c, ["g"], min_support=1).collect()["impact_ratio"].to_list()
    [1.0, 0.5]
    """
    return analyse(
        Counted(counts, list(keys)),
        report_builder(
            reference=reference, min_support=min_support, ofi_threshold=ofi_threshold,
            four_fifths=four_fifths,
        ),
    )


def report_builder(
    *,
    reference: Any = "largest",
    min_support: int = 30,
    ofi_threshold: float = 0.3,
    four_fifths: float = 0.8,
    exclude_low_support: bool = False,
) -> Builder:
    """The report as a :data:`Builder` for :func:`analyse` (options checked at once)."""
    _validate_options(min_support, ofi_threshold, four_fifths)
    return lambda lf, keys: _report(
        lf, keys, reference=reference_for(reference, keys), min_support=min_support,
        ofi_threshold=ofi_threshold, four_fifths=four_fifths,
        exclude_low_support=exclude_low_support,
    )


def reference_for(reference: Any, keys: Sequence[str]) -> Any:
    """The reference of one attribute set: a mapping over more attributes is restricted to
    the set's keys (``{"race": "White", "sex": "Male"}`` gives White for the race set)."""
    if isinstance(reference, Mapping) and set(keys) < set(reference):
        return {k: reference[k] for k in keys}
    return reference


def _report(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    reference: Any = "largest",
    min_support: int = 30,
    ofi_threshold: float = 0.3,
    four_fifths: float = 0.8,
    exclude_low_support: bool = False,
) -> pl.LazyFrame:
    names = counts.collect_schema().names()
    c = count_exprs(names)
    base = with_rates(counts)
    sr, mb = pl.col("selection_rate"), pl.col("marginal_benefit")
    known = ~pl.any_horizontal([pl.col(k).is_null() for k in keys]) if keys else pl.lit(True)
    if isinstance(reference, str) and reference in REFERENCE_RULES:
        if reference == "overall":
            ref_sr = safe_div((c.tp + c.fp).sum(), c.n.sum())
            ref_mb = safe_div((c.fp - c.fn).sum(), c.n.sum())
            is_ref = pl.repeat(False, pl.len())
        else:
            # a benchmark is a real group: rows with a known attribute, and some weight
            eligible = known & (c.n > 0)
            score = pl.col("n") if reference == "largest" else sr
            idx = first_max_index(pl.when(eligible).then(score))
            ref_sr, ref_mb = sr.get(idx), mb.get(idx)
            is_ref = pl.int_range(pl.len(), dtype=pl.UInt32) == idx.cast(pl.UInt32)
    else:
        if not keys:
            raise E.InvalidArgumentError(
                "an explicit reference group needs by= attributes; use reference='overall'"
            )
        mask, base = reference_mask(base, keys, reference)
        ref_sr, ref_mb = sr.filter(mask).first(), mb.filter(mask).first()
        is_ref = mask
    ofi = (mb - ref_mb).alias("ofi")
    in_max = known & (pl.col("n") >= min_support) if exclude_low_support else known
    top = sr.filter(in_max).max()
    impact_ratio = safe_div(sr, top).alias("impact_ratio")
    disparate_impact = safe_div(sr, ref_sr).alias("disparate_impact")
    out = base.with_columns(
        is_ref.alias("is_reference"), disparate_impact, impact_ratio, ofi
    ).with_columns(
        (pl.col("impact_ratio") < four_fifths).alias("adverse_impact"),
        (pl.col("ofi").abs() > ofi_threshold).alias("ofi_flag"),
        (pl.col("n") < min_support).alias("low_support"),
    )
    di = pl.col("disparate_impact")
    fails_four_fifths = (pl.col("adverse_impact").fill_null(False)) | (
        (di < four_fifths) | (di > 1 / four_fifths)
    ).fill_null(False)
    finding = (
        pl.when(pl.col("low_support") | pl.col("ofi").is_null())
        .then(pl.lit("insufficient support"))
        .when(pl.col("ofi_flag"))
        .then(pl.lit("algorithmic"))
        .when(fails_four_fifths)
        .then(pl.lit("systemic"))
        .otherwise(pl.lit("none"))
        .alias("finding")
    )
    weight = ["weight_sum"] if "weight_sum" in names else []
    return out.with_columns(finding).select(
        *keys, "n", "tp", "fp", "fn", "tn", *weight, *RATE_NAMES,
        "is_reference", "disparate_impact", "impact_ratio", "adverse_impact",
        "ofi", "ofi_flag", "low_support", "finding",
    )
