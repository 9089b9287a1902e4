"""Build the count table (and score table) from a frame: the only work that grows with the rows.

One lazy ``group_by`` produces, per finest group, the additive sums ``n, Σy, Σŷ, Σy·ŷ`` plus a few
validation aggregates (null counts, the range of the non-positive values). A check on that
small table raises the input errors at collect time, so a LazyFrame never turns invalid input into
numbers. Everything downstream (rates, ratios, roll-ups, intervals) reads the count table.

Count-table contract (public, see the README "Count tables"): the key columns, then
``n, tp, fp, fn, tn`` (Int64), sorted by the keys with nulls last. With ``sample_weight`` the
four cells are Float64 weighted sums, ``n`` stays the row count and ``weight_sum`` follows ``tn``.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import polars as pl

from polars_fair import errors as E
from polars_fair.expressions import is_positive
from polars_fair.spec import IntoExpr, to_expr

__all__ = [
    "COUNT_COLUMNS",
    "MAX_FLOAT_LEVELS",
    "Counted",
    "count_table",
    "count_tables",
    "keys_of",
    "rollup",
    "score_table",
    "sweep_table",
]

NullGroups = Literal["keep", "raise", "drop"]
By = IntoExpr | Sequence[IntoExpr] | None

COUNT_COLUMNS = ("n", "tp", "fp", "fn", "tn")
#: Output column names of the analyses: an attribute may not take one of them.
RESERVED = {
    *COUNT_COLUMNS, "weight_sum", "attributes", "threshold", "score", "positives", "negatives",
    "n_rows", "metric", "numerator", "denominator", "value", "ci_low", "ci_high", "low_support",
    "is_reference", "disparate_impact", "impact_ratio", "adverse_impact", "ofi", "ofi_flag",
    "finding", "bin", "bin_low", "bin_high", "mean_score", "fraction_positive", "auc", "abroca",
    "ece", "selection_rate", "base_rate", "tpr", "fpr", "tnr", "fnr", "ppv", "npv", "accuracy",
    "marginal_benefit", "reference_value", "difference", "ratio", "p_value",
    "p_value_adjusted", "significant", "undefined_reason",
}
#: A float attribute with more distinct values than this must be binned first.
MAX_FLOAT_LEVELS = 50
_V = "__pf_"  # prefix of the internal validation columns


@dataclass(frozen=True)
class Audit:
    """What a call audits: resolved keys, label/prediction expressions and options."""

    keys: list[str]
    key_exprs: list[pl.Expr]
    y_true: pl.Expr
    y_pred: pl.Expr
    y_true_name: str
    y_pred_name: str
    pos_true: Any
    pos_pred: Any
    pos_label: Any
    check_true: bool
    check_pred: bool
    y_pred_role: str
    weight: pl.Expr | None
    weight_name: str | None
    float_keys: list[str] = field(default_factory=list)
    null_groups: NullGroups = "keep"
    score_name: str | None = None
    numeric_true: bool = False
    numeric_pred: bool = False
    integer_true: bool = False
    integer_pred: bool = False
    float_true: bool = False
    float_pred: bool = False


def _name(x: IntoExpr) -> str:
    return x if isinstance(x, str) else x.meta.output_name()


def normalize_by(by: By) -> list[IntoExpr]:
    """``by`` as a list of column names or expressions (``None`` or ``[]``: the whole population)."""
    if by is None:
        return []
    if isinstance(by, (str, pl.Expr)):
        return [by]
    return list(by)


def _check_columns(schema: pl.Schema, x: IntoExpr, role: str) -> None:
    if not isinstance(x, (str, pl.Expr)):
        raise E.InvalidArgumentError(
            E.NOT_A_COLUMN.format(role=role, value=x, type=type(x).__name__)
        )
    roots = [x] if isinstance(x, str) else x.meta.root_names()
    for col in roots:
        if col not in schema:
            raise E.ColumnNotFoundError(
                E.MISSING_COLUMN.format(column=col, role=role, available=E.show_columns(schema.names()))
            )


def _pos_for(dtype: pl.DataType, pos_label: Any, column: str) -> Any:
    """Adapt pos_label to the column's dtype, or raise when they cannot be compared."""
    bad = E.InvalidLabelError(
        E.POS_LABEL_DTYPE.format(
            pos_label=pos_label, pos_type=type(pos_label).__name__, column=column, dtype=dtype
        )
    )
    if dtype == pl.Boolean:
        if isinstance(pos_label, (bool, int)) and pos_label in (0, 1):
            return bool(pos_label)
        raise bad
    if dtype.is_numeric():
        if isinstance(pos_label, bool):
            return int(pos_label)
        if isinstance(pos_label, (int, float)):
            return pos_label
        raise bad
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        if isinstance(pos_label, str):
            return pos_label
        raise bad
    return pos_label


def resolve(
    lf: pl.LazyFrame,
    by: By,
    *,
    y_true: IntoExpr,
    y_pred: IntoExpr | None,
    pos_label: Any,
    sample_weight: IntoExpr | None = None,
    null_groups: NullGroups = "keep",
    y_score: IntoExpr | None = None,
    threshold: float | None = None,
) -> Audit:
    """Check the schema and resolve the call's columns; raises before any data is read."""
    if null_groups not in ("keep", "raise", "drop"):
        raise E.InvalidArgumentError(
            f"null_groups must be 'keep', 'raise' or 'drop', got {null_groups!r}"
        )
    schema = lf.collect_schema()
    by_list = normalize_by(by)
    for b in by_list:
        _check_columns(schema, b, "by")
    _check_columns(schema, y_true, "y_true")
    if y_score is not None:
        if threshold is None:
            raise E.InvalidArgumentError("y_score= needs threshold= to turn scores into predictions")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise E.InvalidArgumentError(f"threshold must be a number, got {threshold!r}")
        if y_pred is not None and y_pred != "y_pred":
            raise E.InvalidArgumentError("pass either y_pred= or y_score= with threshold=, not both")
        _check_columns(schema, y_score, "y_score")
    else:
        if y_pred is None:
            raise E.InvalidArgumentError("pass y_pred= (or y_score= with threshold=)")
        _check_columns(schema, y_pred, "y_pred")
    if sample_weight is not None:
        _check_columns(schema, sample_weight, "sample_weight")

    key_exprs = [to_expr(b) for b in by_list]
    keys = [_name(b) for b in by_list]
    if len(set(keys)) != len(keys):
        raise E.InvalidArgumentError(f"by has repeated attribute names: {keys}")
    clash = [k for k in keys if k in RESERVED or k.startswith(_V)]
    if clash:
        raise E.InvalidArgumentError(E.RESERVED_NAME.format(names=clash, example=clash[0]))
    probe = lf.select(
        *[e.alias(k) for e, k in zip(key_exprs, keys)],
        __pf_y=to_expr(y_true),
        **({"__pf_p": to_expr(y_pred)} if y_score is None and y_pred is not None else {}),
        **({"__pf_s": to_expr(y_score)} if y_score is not None else {}),
        **({"__pf_w": to_expr(sample_weight)} if sample_weight is not None else {}),
    ).collect_schema()
    y_name = _name(y_true)
    pos_true = _pos_for(probe["__pf_y"], pos_label, y_name)
    float_keys = [k for k in keys if probe[k].is_float()]
    weight = None
    if sample_weight is not None:
        wname = _name(sample_weight)
        if not probe["__pf_w"].is_numeric():
            raise E.InvalidWeightError(
                E.NOT_NUMERIC.format(column=wname, role="sample_weight", dtype=probe["__pf_w"])
            )
        weight = to_expr(sample_weight).cast(pl.Float64)
    if y_score is not None:
        sname = _name(y_score)
        if not probe["__pf_s"].is_numeric():
            raise E.InvalidScoreError(
                E.NOT_NUMERIC.format(column=sname, role="y_score", dtype=probe["__pf_s"])
            )
        y_pred_expr = to_expr(y_score) >= threshold
        return Audit(
            keys, key_exprs, to_expr(y_true), y_pred_expr, y_name,
            f"{sname} >= {threshold}", pos_true, True, pos_label,
            probe["__pf_y"] != pl.Boolean, False, "y_score", weight,
            _name(sample_weight) if sample_weight is not None else None,
            float_keys, null_groups, sname, numeric_true=probe["__pf_y"].is_numeric(),
            float_true=probe["__pf_y"].is_float(), integer_true=probe["__pf_y"].is_integer(),
        )
    assert y_pred is not None
    p_name = _name(y_pred)
    pos_pred = _pos_for(probe["__pf_p"], pos_label, p_name)
    return Audit(
        keys, key_exprs, to_expr(y_true), to_expr(y_pred), y_name, p_name, pos_true, pos_pred,
        pos_label, probe["__pf_y"] != pl.Boolean, probe["__pf_p"] != pl.Boolean, "y_pred", weight,
        _name(sample_weight) if sample_weight is not None else None, float_keys, null_groups,
        numeric_true=probe["__pf_y"].is_numeric(), numeric_pred=probe["__pf_p"].is_numeric(),
        float_true=probe["__pf_y"].is_float(), float_pred=probe["__pf_p"].is_float(),
        integer_true=probe["__pf_y"].is_integer(), integer_pred=probe["__pf_p"].is_integer(),
    )


def _validation_aggs(a: Audit) -> list[pl.Expr]:
    aggs = [
        a.y_true.null_count().cast(pl.Int64).alias(f"{_V}y_null"),
        a.y_pred.null_count().cast(pl.Int64).alias(f"{_V}p_null"),
    ]
    for tag, expr, is_float in (("y", a.y_true, a.float_true), ("p", a.y_pred, a.float_pred)):
        if is_float:
            aggs.append(expr.is_nan().sum().cast(pl.Int64).alias(f"{_V}{tag}_nan"))
    for tag, expr, pos, check, numeric in (
        ("y", a.y_true, a.pos_true, a.check_true, a.numeric_true),
        ("p", a.y_pred, a.pos_pred, a.check_pred, a.numeric_pred),
    ):
        if a.weight is not None and (tag == "y" or a.score_name is None):
            # positives as row counts: weights may be 0, the label checks count rows
            aggs.append(is_positive(expr, pos).sum().cast(pl.Int64).alias(f"{_V}{tag}_k"))
        if check and _zero_one(a, tag):
            continue  # one shared aggregation below
        if check and numeric:
            # cheap and exact: the range and the sum of the raw column (see _numeric_others)
            is_float = a.float_true if tag == "y" else a.float_pred
            total = expr.cast(pl.Float64 if is_float else pl.Int64).sum()
            aggs += [expr.min().alias(f"{_V}{tag}_lo"), expr.max().alias(f"{_V}{tag}_hi"),
                     total.alias(f"{_V}{tag}_sum")]
        elif check:
            other = pl.when(expr != pl.lit(pos)).then(expr)
            aggs += [other.min().alias(f"{_V}{tag}_min"), other.max().alias(f"{_V}{tag}_max")]
    outside = [
        (expr < 0) | (expr > 1)
        for tag, expr, check in (("y", a.y_true, a.check_true), ("p", a.y_pred, a.check_pred))
        if check and _zero_one(a, tag)
    ]
    if outside:
        # integer labels with pos_label 0 or 1: one count of values outside {0, 1} validates
        # both columns; which values they are is looked up only when there are some
        aggs.append(pl.any_horizontal(outside).sum().cast(pl.Int64).alias(f"{_V}outside01"))
    if a.weight is not None:
        w = a.weight
        aggs += [
            w.is_null().sum().cast(pl.Int64).alias(f"{_V}w_null"),
            (w.is_nan() | w.is_infinite()).sum().cast(pl.Int64).alias(f"{_V}w_nan"),
            (w < 0).sum().cast(pl.Int64).alias(f"{_V}w_neg"),
        ]
    return aggs


def _zero_one(a: Audit, tag: str) -> bool:
    """Integer column whose pos_label is 0 or 1: validity is "every value in {0, 1}"."""
    integer = a.integer_true if tag == "y" else a.integer_pred
    pos = a.pos_true if tag == "y" else a.pos_pred
    return integer and not isinstance(pos, bool) and pos in (0, 1)


def _other_values(source: pl.LazyFrame | None, a: Audit, tag: str, pos: Any) -> list[Any]:
    """The distinct values other than ``pos`` of a column, at most 11 (error path only: this
    reads the frame a second time)."""
    if source is None:
        return ["..."]
    expr = a.y_true if tag == "y" else a.y_pred
    vals = source.select(expr.filter(expr != pl.lit(pos)).unique().sort().head(11))
    return vals.collect(engine="in-memory").to_series().to_list()


def _numeric_others(df: pl.DataFrame, a: Audit, tag: str, pos: Any) -> tuple[list[Any], bool]:
    """The values other than ``pos`` in a numeric column, from per-group range and sum.

    Returns ``(others, valid)``. With the global minimum and maximum, ``pos`` must be one of
    them (or the only value); the other value is then the opposite extreme, and since every
    non-positive value lies on its side, the column holds exactly ``{pos, other}`` if and only
    if ``Σ values = pos·k + other·(m − k)`` (k positives among m non-null values). Three cheap
    aggregations instead of two conditional ones, which cost 4× a bare group-by.
    """
    lo, hi = f"{_V}{tag}_lo", f"{_V}{tag}_hi"
    mins = [v for v in df[lo].to_list() if v is not None]
    maxs = [v for v in df[hi].to_list() if v is not None]
    if not mins:
        return [], True
    shown = sorted({*mins, *maxs} - {pos})
    gmin, gmax = min(mins), max(maxs)
    if gmin == gmax:
        return ([] if gmin == pos else [gmin]), True
    if pos == gmin:
        other = gmax
    elif pos == gmax:
        other = gmin
    else:
        return shown, False
    k_col = f"{_V}{tag}_k" if f"{_V}{tag}_k" in df.columns else f"{_V}s{tag}"
    k = _total(df, k_col)
    m = _total(df, "n") - _total(df, f"{_V}{tag}_null")
    expected = pos * k + other * (m - k)
    actual = _total(df, f"{_V}{tag}_sum")
    if not math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9):
        return shown, False
    return [other], True


def _score_check_aggs(score: pl.Expr) -> list[pl.Expr]:
    s = score.cast(pl.Float64)
    return [
        s.null_count().cast(pl.Int64).alias(f"{_V}s_null"),
        s.is_nan().sum().cast(pl.Int64).alias(f"{_V}s_nan"),
        s.is_infinite().sum().cast(pl.Int64).alias(f"{_V}s_inf"),
    ]


def _sum_aggs(a: Audit) -> list[pl.Expr]:
    y = is_positive(a.y_true, a.pos_true)
    p = is_positive(a.y_pred, a.pos_pred)
    if a.weight is None:
        return [
            pl.len().cast(pl.Int64).alias("n"),
            y.sum().cast(pl.Int64).alias(f"{_V}sy"),
            p.sum().cast(pl.Int64).alias(f"{_V}sp"),
            (y & p).sum().cast(pl.Int64).alias(f"{_V}syp"),
        ]
    w = a.weight
    return [
        pl.len().cast(pl.Int64).alias("n"),
        w.sum().alias("weight_sum"),
        pl.when(y).then(w).otherwise(0.0).sum().alias(f"{_V}sy"),
        pl.when(p).then(w).otherwise(0.0).sum().alias(f"{_V}sp"),
        pl.when(y & p).then(w).otherwise(0.0).sum().alias(f"{_V}syp"),
    ]


def grouped(lf: pl.LazyFrame, a: Audit, aggs: list[pl.Expr]) -> pl.LazyFrame:
    """One ``group_by`` over the audit's keys (a plain ``select`` for the whole population)."""
    if not a.keys:
        return lf.select(aggs)
    return lf.group_by([e.alias(k) for e, k in zip(a.key_exprs, a.keys)]).agg(aggs)


def _total(df: pl.DataFrame, col: str) -> Any:
    return df[col].sum() if col in df.columns else 0


def _distinct_others(df: pl.DataFrame, tag: str) -> list[Any]:
    vals: set[Any] = set()
    for suffix in ("min", "max"):
        col = f"{_V}{tag}_{suffix}"
        if col in df.columns:
            vals.update(v for v in df[col].to_list() if v is not None)
    try:
        return sorted(vals)
    except TypeError:
        return list(vals)


def check_labels(df: pl.DataFrame, a: Audit, source: pl.LazyFrame | None = None) -> None:
    """Raise the label/prediction errors found in a grouped validation table.

    ``source`` (the audited frame) is read again only to list offending values when the cheap
    0/1 check found some.
    """
    if a.score_name is not None:
        nulls, nans, infs = (_total(df, f"{_V}s_{x}") for x in ("null", "nan", "inf"))
        if nulls or nans or infs:
            raise E.InvalidScoreError(
                E.BAD_SCORES.format(column=a.score_name, nulls=nulls, nans=nans, infinite=infs)
            )
    for tag, name, role in (("y", a.y_true_name, "y_true"), ("p", a.y_pred_name, a.y_pred_role)):
        nulls = _total(df, f"{_V}{tag}_null")
        if nulls:
            raise E.NullValuesError(E.NULL_LABELS.format(column=name, role=role, count=nulls))
        nans = _total(df, f"{_V}{tag}_nan")
        if nans:
            raise E.NullValuesError(E.NAN_LABELS.format(column=name, role=role, count=nans))
    negatives: dict[str, Any] = {}
    for tag, name, role, pos in (("y", a.y_true_name, "y_true", a.pos_true),
                                 ("p", a.y_pred_name, a.y_pred_role, a.pos_pred)):
        checked01 = (a.check_true if tag == "y" else a.check_pred) and _zero_one(a, tag)
        if checked01 and f"{_V}outside01" in df.columns:
            if _total(df, f"{_V}outside01"):
                others = _other_values(source, a, tag, pos)
            else:
                m = _total(df, "n") - _total(df, f"{_V}{tag}_null")
                k = _total(df, f"{_V}{tag}_k" if f"{_V}{tag}_k" in df.columns else f"{_V}s{tag}")
                others = [1 - pos] if m - k > 0 else []
        elif f"{_V}{tag}_lo" in df.columns:
            others, valid = _numeric_others(df, a, tag, pos)
            if not valid and len(others) < 2:  # a value strictly between pos and the other
                others = [*others, "..."]
        else:
            others = _distinct_others(df, tag)
        if len(others) > 1:
            is_float = all(isinstance(v, float) for v in others if v != "...")
            nums = [v for v in others if v != "..."]
            if role == "y_pred" and is_float and nums and min(nums) >= 0 and max(nums) <= 1:
                raise E.InvalidLabelError(
                    E.LOOKS_LIKE_SCORES.format(
                        column=name, role=role, low=min(nums), high=max(nums), pos_label=pos
                    )
                )
            raise E.InvalidLabelError(
                E.TOO_MANY_VALUES.format(
                    column=name, role=role, pos_label=pos, values=E.show_values(others)
                )
            )
        if others:
            negatives[tag] = others[0]
    _check_negatives(negatives, a)
    n = _total(df, "n")
    ky = _total(df, f"{_V}y_k") if f"{_V}y_k" in df.columns else _total(df, f"{_V}sy")
    kp = _total(df, f"{_V}p_k") if f"{_V}p_k" in df.columns else _total(df, f"{_V}sp")
    if n and not ky and not kp and a.score_name is None:
        found = sorted({repr(v) for v in negatives.values()})
        raise E.InvalidLabelError(
            E.POS_LABEL_ABSENT.format(
                pos_label=a.pos_label, y_true=a.y_true_name, y_pred=a.y_pred_name,
                values="[" + ", ".join(found) + "]",
            )
        )
    check_weights(df, a.weight_name)


def apply_group_policy(df: pl.DataFrame, a: Audit) -> pl.DataFrame:
    """Empty-frame check, the null-group policy and the float-attribute check, on a small table."""
    if df.height == 0 or not df["n"].sum():
        raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=""))
    null_counts = {k: int(df.filter(pl.col(k).is_null())["n"].sum()) for k in a.keys}
    null_counts = {k: v for k, v in null_counts.items() if v}
    if null_counts and a.null_groups == "raise":
        raise E.NullGroupError(E.NULL_GROUPS.format(counts=null_counts))
    if null_counts and a.null_groups == "drop":
        mask = pl.any_horizontal([pl.col(k).is_null() for k in a.keys])
        rows = int(df.filter(mask)["n"].sum())
        df = df.filter(~mask)
        warnings.warn(E.DROPPED_NULL_GROUPS.format(rows=rows, counts=null_counts), stacklevel=2)
        if df.height == 0:
            raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=" after dropping null groups"))
    check_float_levels(df, a.float_keys)
    return df


def check_float_levels(df: pl.DataFrame, float_keys: Sequence[str]) -> None:
    """Raise :class:`~polars_fair.errors.TooManyLevelsError` for a float attribute with more
    than :data:`MAX_FLOAT_LEVELS` distinct values in a grouped table."""
    for k in float_keys:
        levels = df[k].n_unique()
        if levels > MAX_FLOAT_LEVELS:
            raise E.TooManyLevelsError(
                E.TOO_MANY_LEVELS.format(
                    column=k, levels=levels, values=E.show_values(df[k].unique().head(5).to_list())
                )
            )


def checked(lf: pl.LazyFrame, check: Callable[[pl.DataFrame], pl.DataFrame]) -> pl.LazyFrame:
    """Run ``check`` on a small frame at collect time; the schema stays the same."""
    return lf.map_batches(check, schema=lf.collect_schema())


def count_table(
    lf: pl.LazyFrame,
    by: By,
    *,
    y_true: IntoExpr = "y_true",
    y_pred: IntoExpr | None = "y_pred",
    pos_label: Any = 1,
    sample_weight: IntoExpr | None = None,
    null_groups: NullGroups = "keep",
    y_score: IntoExpr | None = None,
    threshold: float | None = None,
) -> tuple[pl.LazyFrame, list[str]]:
    """The lazy count table of ``lf`` and its key names (the public contract in the module doc).

    Schema errors raise here; data errors raise when the result is collected.

    Returns
    -------
    tuple[pl.LazyFrame, list[str]]
        The count table (keys, ``n, tp, fp, fn, tn`` [, ``weight_sum``]) and its key names.

    Raises
    ------
    ColumnNotFoundError, InvalidLabelError, NullValuesError, EmptyFrameError, NullGroupError,
    TooManyLevelsError, InvalidWeightError, InvalidScoreError
        See :mod:`polars_fair.errors`; data errors when the result is collected.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.LazyFrame({"g": ["a", "b"], "y_true": [1, 0], "y_pred": [1, 1]})
    >>> counts, keys = count_table(df, "g")
    >>> keys, counts.collect().rows()
    (['g'], [('a', 1, 1, 0, 0, 0), ('b', 1, 0, 1, 0, 0)])
    """
    a = resolve(
        lf, by, y_true=y_true, y_pred=y_pred, pos_label=pos_label, sample_weight=sample_weight,
        null_groups=null_groups, y_score=y_score, threshold=threshold,
    )
    score = to_expr(y_score) if y_score is not None else None
    if not a.float_true and (a.score_name is not None or not a.float_pred):
        out = _by_labels(lf, a, score)
        if a.keys:
            out = complete_enums(out, a.keys).sort(a.keys, nulls_last=True)
        return out, a.keys
    aggs = _sum_aggs(a) + _validation_aggs(a)
    if score is not None:
        aggs += _score_check_aggs(score)
    raw = grouped(lf, a, aggs)

    def check(df: pl.DataFrame) -> pl.DataFrame:
        check_labels(df, a, lf)
        return apply_group_policy(df, a)

    sy, sp, syp = pl.col(f"{_V}sy"), pl.col(f"{_V}sp"), pl.col(f"{_V}syp")
    total = pl.col("weight_sum") if a.weight is not None else pl.col("n")
    out = checked(raw, check).select(
        *a.keys,
        "n",
        syp.alias("tp"),
        (sp - syp).alias("fp"),
        (sy - syp).alias("fn"),
        (total - sy - sp + syp).alias("tn"),
        *(["weight_sum"] if a.weight is not None else []),
    )
    if a.keys:
        out = complete_enums(out, a.keys).sort(a.keys, nulls_last=True)
    return out, a.keys


def _by_labels(lf: pl.LazyFrame, a: Audit, score: pl.Expr | None) -> pl.LazyFrame:
    """The count table from one ``group_by`` over the keys **and the two label columns**.

    For discrete labels (integers, booleans, strings, categoricals; a thresholded score) the
    scan groups by ``(keys…, y_true, y_pred)`` and counts rows (and sums weights): about the
    cost of the bare four-sum group-by, and a valid table has at most four rows per group. The
    checks then read that small table: nulls and every unexpected label value are key values
    there, so the error lists them exactly, and the four cells are sums over it.
    """
    ky, kp = f"{_V}y", f"{_V}p"
    aggs = [pl.len().cast(pl.Int64).alias("n")]
    if a.weight is not None:
        w = a.weight
        aggs += [
            w.sum().alias("weight_sum"),
            w.is_null().sum().cast(pl.Int64).alias(f"{_V}w_null"),
            (w.is_nan() | w.is_infinite()).sum().cast(pl.Int64).alias(f"{_V}w_nan"),
            (w < 0).sum().cast(pl.Int64).alias(f"{_V}w_neg"),
        ]
    if score is not None:
        aggs += _score_check_aggs(score)
    groups = [*[e.alias(k) for e, k in zip(a.key_exprs, a.keys)], a.y_true.alias(ky),
              a.y_pred.alias(kp)]
    fine = lf.group_by(groups).agg(aggs)
    fine_schema = fine.collect_schema()
    cell = pl.Float64 if a.weight is not None else pl.Int64
    schema = pl.Schema(
        [(k, fine_schema[k]) for k in a.keys] + [("n", pl.Int64)]
        + [(c, cell) for c in ("tp", "fp", "fn", "tn")]
        + ([("weight_sum", pl.Float64)] if a.weight is not None else [])
    )

    def build(df: pl.DataFrame) -> pl.DataFrame:
        _check_label_table(df, a, ky, kp)
        yb, pb = pl.col(ky) == pl.lit(a.pos_true), pl.col(kp) == pl.lit(a.pos_pred)
        v = pl.col("weight_sum") if a.weight is not None else pl.col("n")
        sums = [
            pl.col("n").sum().cast(pl.Int64).alias("n"),
            v.filter(yb & pb).sum().cast(cell).alias("tp"),
            v.filter(~yb & pb).sum().cast(cell).alias("fp"),
            v.filter(yb & ~pb).sum().cast(cell).alias("fn"),
            v.filter(~yb & ~pb).sum().cast(cell).alias("tn"),
            *([pl.col("weight_sum").sum().alias("weight_sum")] if a.weight is not None else []),
        ]
        counts = df.group_by(a.keys).agg(sums) if a.keys else df.select(sums)
        return apply_group_policy(counts.select(schema.names()), a)

    return fine.map_batches(build, schema=schema)


def check_weights(df: pl.DataFrame, weight_name: str | None) -> None:
    """Raise :class:`~polars_fair.errors.InvalidWeightError` from the ``__pf_w_*`` counts."""
    if weight_name is None:
        return
    nulls, nans, negs = (_total(df, f"{_V}w_{x}") for x in ("null", "nan", "neg"))
    if nulls or nans or negs:
        raise E.InvalidWeightError(
            E.BAD_WEIGHTS.format(column=weight_name, nulls=nulls, nans=nans, negatives=negs)
        )


def _check_negatives(negatives: dict[str, Any], a: Audit) -> None:
    """The label and the prediction must use the same value besides ``pos_label``."""
    if "y" in negatives and "p" in negatives and negatives["y"] != negatives["p"]:
        raise E.InvalidLabelError(
            E.NEGATIVES_DIFFER.format(
                y_true=a.y_true_name, y_pred=a.y_pred_name, neg_true=negatives["y"],
                neg_pred=negatives["p"], pos_label=a.pos_label,
            )
        )


def _check_label_table(df: pl.DataFrame, a: Audit, ky: str, kp: str) -> None:
    """The input errors of :func:`_by_labels`, read off its (keys, y, ŷ) table."""
    if a.score_name is not None:
        nulls, nans, infs = (_total(df, f"{_V}s_{x}") for x in ("null", "nan", "inf"))
        if nulls or nans or infs:
            raise E.InvalidScoreError(
                E.BAD_SCORES.format(column=a.score_name, nulls=nulls, nans=nans, infinite=infs)
            )
    labels = (("y", ky, a.y_true_name, "y_true", a.pos_true),
              ("p", kp, a.y_pred_name, a.y_pred_role, a.pos_pred))
    negatives: dict[str, Any] = {}
    for tag, col, name, role, pos in labels:
        nulls = int(df.filter(pl.col(col).is_null())["n"].sum())
        if nulls:
            raise E.NullValuesError(E.NULL_LABELS.format(column=name, role=role, count=nulls))
        others = df.filter(pl.col(col) != pl.lit(pos))[col].unique().to_list()
        try:
            others = sorted(others)
        except TypeError:
            pass
        if len(others) > 1:
            raise E.InvalidLabelError(
                E.TOO_MANY_VALUES.format(
                    column=name, role=role, pos_label=pos, values=E.show_values(others)
                )
            )
        if others:
            negatives[tag] = others[0]
    _check_negatives(negatives, a)
    present = df.filter((pl.col(ky) == pl.lit(a.pos_true)) | (pl.col(kp) == pl.lit(a.pos_pred)))
    if df["n"].sum() and present.height == 0 and a.score_name is None:
        found = sorted({repr(v) for v in negatives.values()})
        raise E.InvalidLabelError(
            E.POS_LABEL_ABSENT.format(
                pos_label=a.pos_label, y_true=a.y_true_name, y_pred=a.y_pred_name,
                values="[" + ", ".join(found) + "]",
            )
        )
    check_weights(df, a.weight_name)


def complete_enums(counts: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Add the empty intersections of Enum attributes as rows with zero counts.

    Polars' ``group_by`` leaves out combinations that no row has. For attributes whose categories
    are declared (``pl.Enum``) every combination of categories is a group an auditor must see, so
    the count table is completed to the product of the declared categories (and the observed
    values of the other attributes, nulls included) with ``n = 0``; its rates are null and its
    report row is flagged ``low_support``. Without Enum keys the table is returned unchanged.
    """
    schema = counts.collect_schema()
    if not any(isinstance(schema[k], pl.Enum) for k in keys):
        return counts
    grid: pl.LazyFrame | None = None
    for k in keys:
        values = counts.select(k).unique()
        dtype = schema[k]
        if isinstance(dtype, pl.Enum):
            declared = pl.LazyFrame({k: pl.Series(k, dtype.categories, dtype=dtype)})
            values = pl.concat([declared, values]).unique()
        grid = values if grid is None else grid.join(values, how="cross")
    assert grid is not None
    cells = [c for c in (*COUNT_COLUMNS, "weight_sum") if c in schema]
    return grid.join(counts, on=list(keys), how="left", nulls_equal=True).with_columns(
        [pl.col(c).fill_null(0).cast(schema[c]) for c in cells]
    ).select(schema.names())


AttributeSets = list[list[str]]


def attribute_sets(
    by: By, combinations: Literal["all"] | None = None, max_order: int | None = None
) -> list[list[IntoExpr]] | None:
    """The attribute sets of a call: ``None`` for one set, else a list of sets.

    ``by=[["race"], ["sex"], ["race", "sex"]]`` names the sets; ``combinations="all"`` takes
    every non-empty subset of ``by`` of size up to ``max_order`` (all sizes by default), singles
    first, in the order the attributes were given.
    """
    if combinations is not None and combinations != "all":
        raise E.InvalidArgumentError(f"combinations must be 'all' or None, got {combinations!r}")
    items = list(by) if isinstance(by, Sequence) and not isinstance(by, str) else None
    nested = items is not None and any(isinstance(b, (list, tuple)) for b in items)
    if combinations == "all":
        if nested:
            raise E.InvalidArgumentError("combinations='all' takes a flat list of attributes in by=")
        base = normalize_by(by)
        top = len(base) if max_order is None else max_order
        if top < 1:
            raise E.InvalidArgumentError(f"max_order must be >= 1, got {max_order}")
        return [list(c) for r in range(1, min(top, len(base)) + 1)
                for c in itertools.combinations(base, r)]
    if max_order is not None:
        raise E.InvalidArgumentError("max_order= goes with combinations='all'")
    if not nested:
        return None
    assert items is not None
    return [normalize_by(b) for b in items]


@dataclass(frozen=True)
class Counted:
    """A lazy count table with its keys; ``sets`` names the attribute sets of a multi-set call.

    For several attribute sets the frame starts with ``attributes`` (List(String)): the
    attributes that define each row, so a null key is never ambiguous; keys outside a row's set
    are null.
    """

    frame: pl.LazyFrame
    keys: list[str]
    sets: AttributeSets | None = None


def count_tables(
    lf: pl.LazyFrame,
    by: By,
    *,
    combinations: Literal["all"] | None = None,
    max_order: int | None = None,
    **kwargs: Any,
) -> Counted:
    """The count table of one attribute set, or of several from one scan at the finest level.

    Coarser sets are rolled up from the finest count table (:func:`rollup`), never re-scanned.
    ``kwargs`` are those of :func:`count_table`.

    Returns
    -------
    Counted
        The lazy count table, its keys and, for several sets, the sets.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.LazyFrame({"a": ["x", "y"], "b": [0, 0], "y_true": [1, 0], "y_pred": [1, 1]})
    >>> c = count_tables(df, ["a", "b"], combinations="all")
    >>> c.sets
    [['a'], ['b'], ['a', 'b']]
    """
    sets = attribute_sets(by, combinations, max_order)
    if sets is None:
        frame, keys = count_table(lf, by, **kwargs)
        return Counted(frame, keys)
    union: list[IntoExpr] = []
    seen: set[str] = set()
    for s in sets:
        if not s:
            raise E.InvalidArgumentError("an attribute set in by= is empty")
        for b in s:
            if _name(b) not in seen:
                seen.add(_name(b))
                union.append(b)
    finest, keys = count_table(lf, union, **kwargs)
    return expand_sets(finest, keys, [[_name(b) for b in s] for s in sets])


def expand_sets(finest: pl.LazyFrame, keys: list[str], sets: AttributeSets) -> Counted:
    """Stack the roll-ups of a finest count table to each attribute set (see :class:`Counted`)."""
    schema = finest.collect_schema()
    cells = [c for c in schema.names() if c not in keys]
    parts = []
    for s in sets:
        part = finest if s == keys else rollup(finest, s)
        parts.append(
            part.with_columns(
                pl.lit(s, dtype=pl.List(pl.String)).alias("attributes"),
                *[pl.lit(None, dtype=schema[k]).alias(k) for k in keys if k not in s],
            ).select("attributes", *keys, *cells)
        )
    return Counted(pl.concat(parts, how="vertical"), keys, sets)


def sweep_table(
    lf: pl.LazyFrame,
    by: By,
    *,
    y_true: IntoExpr = "y_true",
    y_score: IntoExpr = "y_score",
    thresholds: Sequence[float],
    pos_label: Any = 1,
    sample_weight: IntoExpr | None = None,
    null_groups: NullGroups = "keep",
) -> tuple[pl.LazyFrame, list[str]]:
    """Count tables at many thresholds from one scan: ``threshold`` is an extra key.

    For each threshold ``t`` the prediction is ``y_score >= t``. One ``group_by`` computes
    ``n``, ``Σy`` and, per threshold, ``Σŷ_t`` and ``Σy·ŷ_t``; the result has the keys, then
    ``threshold`` (Float64), then ``n, tp, fp, fn, tn`` (and ``weight_sum``), sorted by the
    keys and the threshold.

    Returns
    -------
    tuple[pl.LazyFrame, list[str]]
        The stacked count tables and the key names (without ``threshold``).

    Raises
    ------
    InvalidArgumentError
        No threshold, or a NaN threshold.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.LazyFrame({"y_true": [1, 0], "y_score": [0.8, 0.3]})
    >>> table, _ = sweep_table(df, None, thresholds=[0.5, 0.2])
    >>> table.select("threshold", "tp", "fp").collect().rows()
    [(0.2, 1, 1), (0.5, 1, 0)]
    """
    ts = [float(t) for t in thresholds]
    if not ts:
        raise E.InvalidArgumentError("thresholds must name at least one threshold")
    if any(math.isnan(t) for t in ts):
        raise E.InvalidArgumentError(f"thresholds must be numbers, got {ts}")
    ts = sorted(set(ts))
    a = resolve(
        lf, by, y_true=y_true, y_pred=None, pos_label=pos_label, sample_weight=sample_weight,
        null_groups=null_groups, y_score=y_score, threshold=ts[0],
    )
    s = to_expr(y_score).cast(pl.Float64)
    y = is_positive(a.y_true, a.pos_true)
    if a.weight is None:
        def total(mask: pl.Expr) -> pl.Expr:
            return mask.sum().cast(pl.Int64)
        base = [pl.len().cast(pl.Int64).alias("n"), total(y).alias(f"{_V}sy")]
    else:
        w = a.weight

        def total(mask: pl.Expr) -> pl.Expr:
            return pl.when(mask).then(w).otherwise(0.0).sum()
        base = [pl.len().cast(pl.Int64).alias("n"), w.sum().alias("weight_sum"),
                total(y).alias(f"{_V}sy")]
    per_t = []
    for i, t in enumerate(ts):
        p = s >= t
        per_t += [total(p).alias(f"{_V}sp{i}"), total(y & p).alias(f"{_V}syp{i}")]
    aggs = base + per_t + _validation_aggs(a) + _score_check_aggs(s)
    raw = grouped(lf, a, aggs)

    def check(df: pl.DataFrame) -> pl.DataFrame:
        check_labels(df, a, lf)
        return apply_group_policy(df, a)

    checked_raw = checked(raw, check)
    size = pl.col("weight_sum") if a.weight is not None else pl.col("n")
    sy = pl.col(f"{_V}sy")
    parts = []
    for i, t in enumerate(ts):
        sp, syp = pl.col(f"{_V}sp{i}"), pl.col(f"{_V}syp{i}")
        parts.append(checked_raw.select(
            *a.keys, pl.lit(t, dtype=pl.Float64).alias("threshold"), "n", syp.alias("tp"),
            (sp - syp).alias("fp"), (sy - syp).alias("fn"), (size - sy - sp + syp).alias("tn"),
            *(["weight_sum"] if a.weight is not None else []),
        ))
    out = pl.concat(parts, how="vertical").sort([*a.keys, "threshold"], nulls_last=True)
    return out, a.keys


def keys_of(counts: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """The key columns of a count table: every column before ``n``.

    Returns
    -------
    list[str]

    Raises
    ------
    ColumnNotFoundError
        When the table has no ``n`` column.

    Examples
    --------
    >>> import polars as pl
    >>> keys_of(pl.DataFrame({"race": ["a"], "n": [1], "tp": [1], "fp": [0], "fn": [0], "tn": [0]}))
    ['race']
    """
    names = counts.collect_schema().names()
    if "n" not in names:
        raise E.ColumnNotFoundError(
            E.MISSING_COLUMN.format(column="n", role="count table", available=E.show_columns(names))
        )
    return names[: names.index("n")]


def rollup(counts: pl.LazyFrame, keys: Sequence[str]) -> pl.LazyFrame:
    """Sum a count table up to the coarser attribute set ``keys`` (additive counts).

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"a": [1, 1], "b": ["x", "y"], "n": [3, 2], "tp": [1, 1],
    ...                   "fp": [1, 0], "fn": [0, 1], "tn": [1, 0]})
    >>> rollup(c, ["a"]).collect().row(0)
    (1, 5, 2, 1, 1, 1)

    Returns
    -------
    pl.LazyFrame
        The keys, then the summed count columns, sorted by the keys.
    """
    names = counts.collect_schema().names()
    sums = [c for c in (*COUNT_COLUMNS, "weight_sum") if c in names]
    if not keys:
        return counts.select([pl.col(c).sum() for c in sums])
    return counts.group_by(list(keys)).agg([pl.col(c).sum() for c in sums]).sort(
        list(keys), nulls_last=True
    )


def score_table(
    lf: pl.LazyFrame,
    by: By,
    *,
    y_true: IntoExpr = "y_true",
    y_score: IntoExpr = "y_score",
    pos_label: Any = 1,
    sample_weight: IntoExpr | None = None,
    null_groups: NullGroups = "keep",
) -> tuple[pl.LazyFrame, list[str]]:
    """The lazy score table: one row per (group, distinct score).

    Columns: the keys, ``score`` (Float64), ``positives`` and ``negatives`` (Int64, or Float64
    weighted sums when ``sample_weight`` is given, with ``n_rows`` Int64 then), sorted by keys then
    score. Null, NaN or infinite scores raise :class:`~polars_fair.errors.InvalidScoreError` at
    collect time; labels are validated as in :func:`count_table`.

    Returns
    -------
    tuple[pl.LazyFrame, list[str]]
        The score table and its key names.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.LazyFrame({"g": ["a", "a", "a"], "y_true": [1, 0, 1], "y_score": [0.9, 0.9, 0.2]})
    >>> table, keys = score_table(df, "g")
    >>> table.collect().rows()
    [('a', 0.2, 1, 0), ('a', 0.9, 1, 1)]
    """
    a = resolve(
        lf, by, y_true=y_true, y_pred=None, pos_label=pos_label, sample_weight=sample_weight,
        null_groups=null_groups, y_score=y_score, threshold=math.inf,
    )
    s = to_expr(y_score).cast(pl.Float64)
    y = is_positive(a.y_true, a.pos_true)
    # validation pass over the finest groups shares the scan: aggregate per (group, score)
    if a.weight is None:
        sums = [
            pl.len().cast(pl.Int64).alias("n"),
            y.sum().cast(pl.Int64).alias("positives"),
        ]
    else:
        sums = [
            pl.len().cast(pl.Int64).alias("n"),
            pl.when(y).then(a.weight).otherwise(0.0).sum().alias("positives"),
            a.weight.sum().alias(f"{_V}wsum"),
        ]
    val = [
        a.y_true.null_count().cast(pl.Int64).alias(f"{_V}y_null"),
    ]
    if a.float_true:
        val.append(a.y_true.is_nan().sum().cast(pl.Int64).alias(f"{_V}y_nan"))
    if a.check_true and _zero_one(a, "y"):
        # one cheap count of values outside {0, 1}; they are listed only if there are some
        val.append(((a.y_true < 0) | (a.y_true > 1)).sum().cast(pl.Int64).alias(f"{_V}outside01"))
    elif a.check_true:
        other = pl.when(a.y_true != pl.lit(a.pos_true)).then(a.y_true)
        val += [other.min().alias(f"{_V}y_min"), other.max().alias(f"{_V}y_max")]
    if a.weight is not None:
        w = a.weight
        val += [
            w.is_null().sum().cast(pl.Int64).alias(f"{_V}w_null"),
            (w.is_nan() | w.is_infinite()).sum().cast(pl.Int64).alias(f"{_V}w_nan"),
            (w < 0).sum().cast(pl.Int64).alias(f"{_V}w_neg"),
        ]
    key_exprs = [e.alias(k) for e, k in zip(a.key_exprs, a.keys)]
    raw = lf.group_by([*key_exprs, s.alias("score")]).agg(sums + val)

    if a.weight is None:
        cols = [pl.col("positives"), (pl.col("n") - pl.col("positives")).alias("negatives")]
    else:
        cols = [
            pl.col("positives"),
            (pl.col(f"{_V}wsum") - pl.col("positives")).alias("negatives"),
            pl.col("n").alias("n_rows"),
        ]
    out = checked(raw, lambda df: check_score_table(df, a, lf)).select(*a.keys, "score", *cols)
    # two stable single-key sorts: a multi-column sort of ~10^6 cells costs 4x as much
    out = out.sort("score", nulls_last=True)
    if a.keys:
        out = out.sort(a.keys, nulls_last=True, maintain_order=True)
    return out, a.keys


def check_score_table(
    df: pl.DataFrame, a: Audit, source: pl.LazyFrame | None = None
) -> pl.DataFrame:
    """Raise the score, label and weight errors of a grouped score table, then apply the
    group policy.

    ``df`` has the keys, ``score``, ``n`` and the validation columns ``__pf_y_null``,
    ``__pf_y_nan``, ``__pf_y_min``/``_max`` and ``__pf_w_*``; any engine that builds these
    columns (Polars here, Spark in :mod:`polars_fair.spark`) raises the same errors.
    """
    nulls = int(df.filter(pl.col("score").is_null())["n"].sum())
    nans = int(df.filter(pl.col("score").is_nan())["n"].sum())
    infs = int(df.filter(pl.col("score").is_infinite())["n"].sum())
    if nulls or nans or infs:
        raise E.InvalidScoreError(
            E.BAD_SCORES.format(column=a.score_name, nulls=nulls, nans=nans, infinite=infs)
        )
    nullsy = _total(df, f"{_V}y_null")
    if nullsy:
        raise E.NullValuesError(
            E.NULL_LABELS.format(column=a.y_true_name, role="y_true", count=nullsy)
        )
    nansy = _total(df, f"{_V}y_nan")
    if nansy:
        raise E.NullValuesError(E.NAN_LABELS.format(column=a.y_true_name, role="y_true", count=nansy))
    if _total(df, f"{_V}outside01"):
        others = _other_values(source, a, "y", a.pos_true)
    else:
        others = _distinct_others(df, "y")
    if len(others) > 1:
        raise E.InvalidLabelError(
            E.TOO_MANY_VALUES.format(column=a.y_true_name, role="y_true", pos_label=a.pos_true,
                                     values=E.show_values(others))
        )
    check_weights(df, a.weight_name)
    return apply_group_policy(df, a)
