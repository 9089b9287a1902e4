"""Divergence over attribute-value patterns: the worst-off subgroups, with honest statistics.

A *pattern* is a conjunction of ``attribute = value`` items over distinct attributes (race =
African-American ∧ age_cat = Less than 25). Its *divergence* is the metric over the pattern's
rows minus the metric over every row (DivExplorer's definition: Pastor, de Alfaro & Baralis,
"Looking for Trouble: Analyzing Classifier Behavior via Pattern Divergence", SIGMOD 2021, and
the ``divexplorer`` package 0.2.6). Its *support* is the share of rows it covers.

Everything here reads a count table (keys, ``n, tp, fp, fn, tn`` [, ``weight_sum``]): the rows
are read once, by one aggregation at the finest level (every attribute), whatever the engine.
The patterns are enumerated level by level, apriori style (Agrawal & Srikant 1994): a pattern
of ``k`` items is a candidate only when each of its ``k`` sub-patterns of ``k − 1`` items is
frequent (support is anti-monotone), and each candidate attribute set costs one grouping of the
count table's rows whose sub-patterns are frequent (dense integer codes, ``numpy.unique`` and
``bincount``). The cost is therefore one pass over the rows (the count table, the cost of one
``group_by`` over every attribute), then ``O(candidate attribute sets × count-table rows)``:
with 5 attributes at most 31 groupings of a table of at most one row per observed combination
(benchmarks/divergence_bench.py: 0.9–1.4 × one ``group_by`` at 10⁶ rows, 120–240 × faster
than DivExplorer). With many attributes the count table approaches one row per input row:
``strategy="levels"`` (:func:`polars_fair.api.rows.divergence_of_rows`) then counts each candidate
attribute set on the rows, in the frame's own engine, level by level, and never builds the finest
table. :data:`DEFAULT_MAX_PATTERNS` (``max_patterns``) refuses a search whose candidate patterns
(observed combinations whose sub-patterns are all frequent) exceed a limit, stating the count,
before their support is summed.

The statistics go beyond DivExplorer's: each pattern is tested against the rows outside it
(two-proportion z-test, Fisher's exact test where an expected cell is below 5, as
``disparity`` decides), with Newcombe's interval of the difference, and the p-values are
adjusted over **every pattern tested** (Benjamini–Hochberg by default). DivExplorer's Beta
t-value is kept as ``t_value`` for comparison.

:func:`top_divergent` prunes redundant patterns (DivExplorer's redundancy pruning),
:func:`shapley_values` and :func:`global_shapley_values` explain them (DivExplorer's Shapley
values of items, per pattern and over every pattern), and :func:`bin_attributes` cuts numeric
attributes into bins whose edges are shown in the keys.

The explanations live in :mod:`polars_fair.analyses.explain` (they read a divergence table and
nothing else) and are re-exported here.

Why one module: the enumeration, the statistics and the level-by-level search
on the rows are one algorithm with one output schema (:data:`DIVERGENCE_COLUMNS`) and share
their private helpers (the support threshold, the level checks, the schema, the statistics);
about 40% of the lines are docstrings with their sources and examples.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence, Sized
from typing import Any, TypedDict, Unpack, cast

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow, compose
from polars_fair._lazy import is_numpy, np
from polars_fair.analyses.explain import global_shapley_values as global_shapley_values
from polars_fair.analyses.explain import shapley_values as shapley_values
from polars_fair.analyses.explain import top_divergent as top_divergent
from polars_fair.core import rules as R
from polars_fair.core import stats
from polars_fair.core.families import takes
from polars_fair.core.limits import check_ceiling, check_size, with_limits
from polars_fair.core.numbers import number_items, real
from polars_fair.core.options import DEFAULTS, BinStrategy, DivergenceAdjust, check
from polars_fair.core.registry import METRICS, PROPORTIONS, Counts
from polars_fair.core.spec import (
    By,
    check_int,
    name_of,
    normalize_by,
)
from polars_fair.core.sql import sql_name
from polars_fair.counting.boundary import MAX_FLOAT_LEVELS, fineness, level_cut
from polars_fair.counting.membership_counts import refuse_weighted_membership

__all__ = [
    "ADJUSTMENTS",
    "DEFAULT_MAX_PATTERNS",
    "DIVERGENCE_COLUMNS",
    "adjust_pvalues",
    "bin_attributes",
    "divergence_from_counts",
    "global_shapley_values",
    "shapley_values",
    "top_divergent",
]

#: The most candidate patterns a search may count unless ``max_patterns`` raises it.
DEFAULT_MAX_PATTERNS = DEFAULTS.max_patterns
#: The multiplicity adjustments over every pattern tested.
ADJUSTMENTS = ("bh", "by", "holm")
#: The columns of a divergence table after ``attributes`` and the keys.
DIVERGENCE_COLUMNS = (
    "n", "support", "denominator", "value", "overall", "outside", "divergence", "low_support",
    "ci_low", "ci_high", "p_value", "p_value_adjusted", "significant", "t_value",
    "divergence_ci_low", "divergence_ci_high",
)

Adjust = DivergenceAdjust


class DivergenceOptions(TypedDict, total=False):
    """The options of the divergence search, with their defaults :data:`DIVERGENCE_DEFAULTS`.

    Taken by :func:`divergence_from_counts` and the functions that hand them on.

    Examples
    --------
    >>> options: DivergenceOptions = {"metric": "tpr", "min_support": 0.05}
    >>> list(DivergenceOptions.__annotations__)[:3]
    ['metric', 'max_order', 'min_support']
    """

    metric: str
    max_order: int | None
    min_support: float
    min_denominator: float
    level: float
    adjust: Adjust


#: The defaults of :class:`DivergenceOptions`: the divergence's own fields of
#: :class:`~polars_fair.core.options.Options` (its ``min_support`` is a share of the rows).
DIVERGENCE_DEFAULTS: dict[str, Any] = {
    "metric": DEFAULTS.divergence_metric, "max_order": None,
    "min_support": DEFAULTS.divergence_min_support, "min_denominator": DEFAULTS.min_denominator,
    "level": DEFAULTS.level, "adjust": DEFAULTS.divergence_adjust,
}
Strategy = BinStrategy


Bins = Mapping[str, int | Sequence[float]]
_SUMS = ("n", "__pf_x", "__pf_m", "__pf_w")


# ---------------------------------------------------------------------------- p-values
def adjust_pvalues(p: Any, method: Adjust = "bh") -> np.ndarray:
    r"""Adjust p-values over a family: Benjamini–Hochberg, Benjamini–Yekutieli or Holm.

    ``"bh"`` and ``"holm"`` are :func:`polars_fair.core.stats.adjust_pvalues`. ``"by"``
    (Benjamini & Yekutieli 2001, *Ann. Stat.* 29:1165, Theorem 1.3) controls the false
    discovery rate under any dependence between the tests: the BH adjustment multiplied by
    :math:`c(m) = \sum_{i=1}^m 1/i`, capped at 1 (exactly, since BH's cap at 1 is below
    :math:`c(m) \ge 1`).

    Parameters
    ----------
    p : array_like of float
        Raw p-values in [0, 1]; NaN entries stay NaN and are not counted.
    method : {"bh", "by", "holm"}, default "bh"
        The adjustment.

    Returns
    -------
    numpy.ndarray of float64
        Adjusted p-values in the input order.

    Raises
    ------
    InvalidArgumentError
        An unknown ``method`` (the message lists :data:`ADJUSTMENTS`).

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "by").round(4).tolist()
    [0.055, 0.0733, 0.0733]
    """
    if method not in ADJUSTMENTS:
        raise E.InvalidArgumentError(E.BAD_ADJUST.format(value=method, valid=list(ADJUSTMENTS)))
    if method == "holm":
        return stats.adjust_pvalues(p, method="holm")
    bh = stats.adjust_pvalues(p, method="bh")
    if method == "bh":
        return bh
    m = int(np.sum(~np.isnan(bh)))
    c = float(np.sum(1.0 / np.arange(1, m + 1))) if m else 1.0
    return np.minimum(bh * c, 1.0)


# ---------------------------------------------------------------------------- bins
def _bin_label(struct: pl.Expr, right_closed: bool = False) -> pl.Expr:
    left = struct.struct.field("left").cast(pl.String)
    right = struct.struct.field("right").cast(pl.String)
    below, above, open_, close = ("<= ", "> ", "(", "]") if right_closed else \
        ("< ", ">= ", "[", ")")
    return (
        pl.when(struct.struct.field("bin").is_null()).then(pl.lit(None, dtype=pl.String))
        .when(left.is_null() & right.is_null()).then(pl.lit("all"))
        .when(left.is_null()).then(pl.concat_str(pl.lit(below), right))
        .when(right.is_null()).then(pl.concat_str(pl.lit(above), left))
        .otherwise(pl.concat_str(pl.lit(open_), left, pl.lit(", "), right, pl.lit(close)))
    )


@with_limits
def bin_attributes(lf: pl.LazyFrame, bins: Bins | None, by: By = None, *,
                   among: pl.Expr | None = None) -> pl.LazyFrame:
    """Cut numeric attributes into bins labelled by their edges, lazily, in the same scan.

    ``bins={"age": k}`` makes ``k`` quantile bins: a row is in the first bin ``b`` whose
    quantile ``Q(b/k)`` it does not exceed, so bins are right-closed, ``(Q((b-1)/k), Q(b/k)]``,
    with ``Q`` numpy's default linear rule at the position ``b (m - 1) / k`` among the ``m``
    non-missing values sorted ``v_0 <= ... <= v_(m-1)``, taken exactly
    (:func:`polars_fair.core.rules.quantile_positions`; ``calibration(strategy="quantile")``
    cuts by the same rule). A value is at most ``Q(b/k)`` exactly when it is at most ``v_j``
    with ``j = floor(b (m - 1) / k)`` (no value lies strictly between ``v_j`` and
    ``v_(j+1)``), so the edges are the values ``v_j``, found on integers (Polars'
    ``bin_quantiles`` with ``right_closed=True``). Polars' deprecated
    ``qcut(k, left_closed=False)`` splits the rows alike, and ``numpy.quantile(x, b / k)``
    too except where its floating-point position falls just below a whole row onto a value
    such as 0 (108 values -1 and 91 zeros in 22 bins: ``Q(12/22)`` is ``v_108 = 0``, numpy
    reads -1.4e-14, so the zeros move up a bin). ``pandas.qcut`` does not: it reads the positions of
    ``np.linspace(0, 1, k + 1)`` in floating point, so a value tied on a quantile can move up
    a bin, and with ``duplicates="drop"`` a tied lowest bin merges into the next. Equal edges
    (ties) merge bins: fewer than ``k`` labels appear.
    1, 2, ..., 10 in 5 bins gives 2 rows each; 0, 0, 0, 1, 1 in 2 bins gives 3 and 2. The
    labels show the edges: ``"<= 2"``, ``"(2, 4]"``, ``"> 8"``.

    ``bins={"age": [25, 45]}`` cuts at the given edges (``bin_intervals``), left-closed:
    ``"< 25"``, ``"[25, 45)"``, ``">= 45"``. Nulls stay null, and NaN is null (missing) too.
    A number of bins, or of edges, above |limit:bins| raises ``SizeLimitError``.

    Parameters
    ----------
    lf : pl.LazyFrame
        The rows.
    bins : mapping of str to int, or sequence, numpy array or Series of numbers, optional
        Attribute -> number of quantile bins (an integer >= 2) or the edges (increasing
        numbers: a list, a tuple, a 1-D numpy array or a Polars Series, each edge read as the
        decimal it prints as, :func:`polars_fair.core.numbers.number_items`). ``None`` or
        ``{}`` leaves ``lf`` as it is.
    by : str or list of str, optional
        The attributes of the call: each binned attribute must be one of them.
    among : pl.Expr, optional
        The rows the audit keeps (``null_groups="drop"``: every other attribute present):
        quantile edges are those of these rows, as a ``where`` that left the others out would
        give; a row outside them keeps a label of the whole column's bins (it is dropped
        later, counted as a row whose other attribute is missing, never as this one's).

    Returns
    -------
    pl.LazyFrame
        ``lf`` with each binned column replaced by its String label.

    Raises
    ------
    InvalidArgumentError
        ``bins`` not a mapping, an attribute not in ``by`` or not a numeric column, a number of
        bins that is not an integer >= 2, edges that are not increasing finite numbers.
    ColumnNotFoundError
        A binned attribute that is not a column.
    SizeLimitError
        A number of bins, or of edges, above |limit:bins|
        (:data:`polars_fair.core.limits.LIMITS`).

    Examples
    --------
    >>> lf = pl.LazyFrame({"age": [18, 22, 30, 41, 50, 67]})
    >>> bin_attributes(lf, {"age": [25, 45]}).collect()["age"].to_list()
    ['< 25', '< 25', '[25, 45)', '[25, 45)', '>= 45', '>= 45']
    >>> bin_attributes(lf, {"age": 2}).collect()["age"].to_list()
    ['<= 30', '<= 30', '<= 30', '> 30', '> 30', '> 30']
    >>> bin_attributes(lf, {"age": pl.Series([25, 45])}).collect()["age"].to_list()[:3]
    ['< 25', '< 25', '[25, 45)']
    """
    if not bins:
        return lf
    if not isinstance(bins, Mapping):
        raise E.InvalidArgumentError(E.BAD_BINS.format(value=bins, type=type(bins).__name__))
    names = [b for b in normalize_by(by) if isinstance(b, str)]
    schema = lf.collect_schema()
    exprs = []
    for column, spec_ in bins.items():
        if column not in schema:
            raise E.ColumnNotFoundError(E.missing_column(column, "bins", schema.names()))
        if by is not None and column not in names:
            raise E.InvalidArgumentError(E.BIN_NOT_IN_BY.format(column=column, by=names))
        dtype = schema[column]
        if not dtype.is_numeric():
            raise E.InvalidArgumentError(E.BIN_NOT_NUMERIC.format(column=column, dtype=dtype))
        # NaN is missing, as everywhere (boundary.missing_keys_as_null): null before binning, so
        # it neither lands in the top bin nor moves the quantile edges
        col = pl.col(column).fill_nan(None) if dtype.is_float() else pl.col(column)
        if isinstance(spec_, (int, np.integer)) and not isinstance(spec_, bool):
            k = check_size(check_int(spec_, f"bins[{column!r}]", low=2), "bins",
                           f"bins[{column!r}]")
            label = _bin_label(col.bin_quantiles(k, labels=False, include_intervals=True,
                                                 right_closed=True), right_closed=True)
            if among is not None:  # the edges of the rows the audit keeps
                kept = pl.when(among).then(col).bin_quantiles(
                    k, labels=False, include_intervals=True, right_closed=True)
                label = pl.when(among).then(_bin_label(kept, right_closed=True)).otherwise(label)
            exprs.append(label.alias(column))
            continue
        else:
            edges = None
            array = is_numpy(spec_, "ndarray") or isinstance(spec_, pl.Series)
            if array and getattr(spec_, "ndim", 1) == 1:  # numpy / Polars edges, read exactly
                check_size(len(cast("Sized", spec_)), "bins", f"bins[{column!r}] (edges)")
                edges = number_items(spec_)  # float32 items are the decimals they print as
            elif isinstance(spec_, Sequence) and not isinstance(spec_, str):
                # before the edges are read: range(10**9) is a Sequence too
                check_size(len(spec_), "bins", f"bins[{column!r}] (edges)")
                edges = list(spec_)
            elif not isinstance(spec_, (int, float, str)) and not is_numpy(spec_, "generic"):
                raise E.InvalidArgumentError(E.BAD_BIN_TYPE.format(
                    column=column, type=type(spec_).__name__))  # no repr: it may be data
            read = [real(e) for e in edges] if edges is not None else []
            ok = len(read) > 0 and all(e is not None and math.isfinite(e) for e in read) and all(
                a < b for a, b in itertools.pairwise(read))  # type: ignore[operator]
            if not ok:  # an array's items as given ([True, False], not [None, None])
                given: Any = spec_
                if array:
                    given = (spec_.to_list() if isinstance(spec_, pl.Series)
                             else cast(Any, spec_).tolist())
                    given = given if len(given) <= 5 else E.show_values(given)
                raise E.InvalidArgumentError(E.BAD_BIN_SPEC.format(column=column, value=given))
            # whole numbers stay integers (labels "[25, 45)"); any other edge makes them floats
            whole = all(isinstance(e, int) for e in read)
            cuts = [e if whole else float(e) for e in read if e is not None]
            struct = col.bin_intervals(cuts, labels=False, include_intervals=True)
        exprs.append(_bin_label(struct).alias(column))
    return lf.with_columns(exprs)


def _patterns_ceiling(tested: int, size: int, keys: Sequence[str]) -> None:
    """Refuse more candidate patterns than max_patterns= can be raised to, saying what to pass.

    From level 2, ``max_order`` one below (the levels below stayed under the ceiling); at
    level 1, one attribute fewer.
    """
    advice = (E.CEILING_PATTERNS_ORDER.format(order=size - 1) if size > 1
              else E.CEILING_PATTERNS_LEVEL_ONE.format(example=list(keys)[:-1] or list(keys)))
    check_ceiling(tested, "max_patterns", "divergence: the search", "candidate patterns",
                  advice)


def _check_levels(df: pl.DataFrame, keys: Sequence[str], schema: pl.Schema) -> None:
    """A numeric attribute with many levels, or too fine to form groups, must be binned."""
    rows = int(df["n"].sum())
    for k in keys:
        dtype = schema[k]
        if not dtype.is_numeric():
            continue
        found = fineness(df, [k], rows)
        if found.levels > MAX_FLOAT_LEVELS or found.why is not None:
            raise E.levels_error(k, dtype, found.levels, rows, kind="number",
                                 float_limit=MAX_FLOAT_LEVELS if found.levels > MAX_FLOAT_LEVELS
                                 else None, why=found.why, sql=sql_name(k),
                                 cut=level_cut(df[k]))


# ---------------------------------------------------------------------------- enumeration
def _support_threshold(min_support: Any, rows: int) -> int:
    """The smallest row count a frequent pattern has (DivExplorer: ceil(min_support × rows))."""
    t = check("divergence_min_support", min_support)
    return R.min_count(t * rows if t < 1 else t)


def _codes(s: pl.Series) -> tuple[np.ndarray, int]:
    """Dense integer codes in the values' sort order, null last; and the number of codes."""
    ranked = (s.cast(pl.UInt8) if s.dtype == pl.Boolean else s).rank("dense")
    levels = int(ranked.max() or 0)  # type: ignore[arg-type]
    codes = ranked.fill_null(levels + 1).cast(pl.Int64).to_numpy() - 1
    return codes, levels + (1 if s.null_count() else 0)


def _group(codes: list[np.ndarray], sizes: list[int], idx: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """Groups of the rows ``idx`` by the combined codes: (their order key, inverse index)."""
    space = math.prod(sizes)
    if space < 2 ** 62:
        combined = np.zeros(len(idx), dtype=np.int64)
        for c, size in zip(codes, sizes, strict=True):
            combined = combined * size + c[idx]
        if space <= max(4 * len(idx), 1 << 16):  # a dense table of every combination: no sort
            present = np.flatnonzero(np.bincount(combined, minlength=space))
            lookup = np.empty(space, dtype=np.int64)
            lookup[present] = np.arange(len(present))
            return present, lookup[combined]
        uniq, inverse = np.unique(combined, return_inverse=True)
        return uniq, inverse.reshape(-1)
    stacked = np.column_stack([c[idx] for c in codes])
    uniq2, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return np.arange(len(uniq2)), inverse.reshape(-1)


def _enumerate(df: pl.DataFrame, keys: list[str], top: int, threshold: int,
               max_patterns: int) -> tuple[list[tuple[str, ...]], np.ndarray, np.ndarray,
                                           np.ndarray]:
    """Every frequent pattern, level by level, apriori style, on the count table's rows.

    A pattern of ``k`` items is a candidate when its rows' projections on each of its
    ``k − 1``-attribute subsets are frequent patterns; its support is then summed over those
    rows (one grouping of the count table per candidate attribute set).

    Returns the attribute sets, and per pattern its set's index, a representative row of the
    count table (its key values) and its sums (n, numerator, denominator, weight).
    """
    height = df.height
    coded = [_codes(df[k]) for k in keys]
    codes = [c for c, _ in coded]
    sizes = [s for _, s in coded]
    vals = [np.ascontiguousarray(df[c].cast(pl.Float64).to_numpy()) for c in _SUMS]
    frequent: dict[tuple[int, ...], np.ndarray] = {(): np.ones(height, dtype=bool)}
    sets: list[tuple[str, ...]] = []
    set_ids: list[np.ndarray] = []
    reps: list[np.ndarray] = []
    sums: list[np.ndarray] = []
    tested = 0
    level: list[tuple[int, ...]] = [(i,) for i in range(len(keys))]
    for size in range(1, top + 1):
        cands = [s for s in level if all(s[:j] + s[j + 1:] in frequent for j in range(size))]
        for s in cands:
            if size == 1:
                idx = np.arange(height)
            else:
                rows = frequent[s[1:]].copy()
                for j in range(1, size):
                    rows &= frequent[s[:j] + s[j + 1:]]
                idx = np.flatnonzero(rows)
            uniq, inverse = _group([codes[i] for i in s], [sizes[i] for i in s], idx)
            tested += len(uniq)
            _patterns_ceiling(tested, size, keys)
            if tested > max_patterns:  # before this set's support is summed
                raise E.SizeLimitError(_too_many_patterns(tested, size, max_patterns))
            count = np.bincount(inverse, weights=vals[0][idx], minlength=len(uniq))
            ok = count >= threshold
            if not ok.any():
                continue
            total = np.column_stack([count] + [
                np.bincount(inverse, weights=v[idx], minlength=len(uniq)) for v in vals[1:]])
            mask = np.zeros(height, dtype=bool)
            mask[idx] = ok[inverse]
            frequent[s] = mask
            first = np.empty(len(uniq), dtype=np.int64)
            first[inverse[::-1]] = idx[::-1]  # the first row of each group
            sets.append(tuple(keys[i] for i in s))
            set_ids.append(np.full(int(ok.sum()), len(sets) - 1))
            reps.append(first[ok])
            sums.append(total[ok])
        level = [s + (k,) for s in frequent if len(s) == size
                 for k in range(s[-1] + 1, len(keys))]
        if not level:
            break
    if not sets:
        return [], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 4))
    return sets, np.concatenate(set_ids), np.concatenate(reps), np.vstack(sums)


def _schema(key_schema: pl.Schema, weighted: bool) -> pl.Schema:
    cell = pl.Float64() if weighted else pl.Int64()
    cols: list[tuple[str, pl.DataType]] = [("attributes", pl.List(pl.String()))]
    cols += list(key_schema.items())
    cols += [("n", pl.Int64()), ("support", pl.Float64()), ("denominator", cell)]
    cols += [(c, pl.Float64()) for c in ("value", "overall", "outside", "divergence")]
    cols += [("low_support", pl.Boolean())]
    cols += [(c, pl.Float64()) for c in ("ci_low", "ci_high", "p_value", "p_value_adjusted")]
    cols += [("significant", pl.Boolean()), ("t_value", pl.Float64())]
    cols += [(c, pl.Float64()) for c in ("divergence_ci_low", "divergence_ci_high")]
    return pl.Schema(cols)


def _beta_t(pos: np.ndarray, neg: np.ndarray, pos_all: float, neg_all: float) -> np.ndarray:
    """DivExplorer's t-value: Welch's statistic between Beta(pos + 1, neg + 1) posteriors."""
    def moments(p: Any, q: Any) -> tuple[Any, Any]:
        a, b = p + 1.0, q + 1.0
        return a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1.0))

    mean, var = moments(pos, neg)
    mean_all, var_all = moments(pos_all, neg_all)
    return np.asarray(np.abs(mean - mean_all) / np.sqrt(var + var_all), dtype=np.float64)


def _snap(v: np.ndarray) -> np.ndarray:
    near = np.isclose(v, np.round(v), rtol=0.0, atol=1e-9)
    return np.clip(np.where(near, np.round(v), v), 0.0, None)


@takes(DivergenceOptions, after="keys", defaults=DIVERGENCE_DEFAULTS)
def divergence_from_counts(
    counts: pl.LazyFrame,
    keys: Sequence[str],
    *,
    max_patterns: int = DEFAULT_MAX_PATTERNS,
    **options: Unpack[DivergenceOptions],
) -> pl.LazyFrame:
    r"""Every frequent pattern's divergence, with its interval, test and adjusted p-value.

    A pattern is a set of ``attribute = value`` items over at most ``max_order`` distinct
    attributes of ``keys``; it is *frequent* when it covers at least ``min_support`` of the
    rows (a share below 1, as DivExplorer: ``n >= ceil(min_support × rows)``; a row count from
    1 on). Patterns below it are not extended (anti-monotone pruning). For each frequent
    pattern, with the metric's numerator ``x`` and denominator ``m`` over its rows and ``X``,
    ``M`` over every row (a proportion of :data:`polars_fair.core.registry.PROPORTIONS`; FPR:
    ``x = FP``, ``m = FP + TN``):

    * ``value`` = x/m, ``overall`` = X/M, ``outside`` = (X − x)/(M − m) (the rows outside the
      pattern), ``divergence`` = value − overall (DivExplorer's Δ, Pastor et al. 2021, Def. 3.2);
    * ``ci_low``/``ci_high``: Newcombe's hybrid score interval of value − outside (Newcombe
      1998, method 10), the pattern against the rows outside it (independent samples);
      ``divergence_ci_low``/``divergence_ci_high``: the same interval in divergence units,
      since value − overall = (M − m)/M · (value − outside);
    * ``p_value``: two-sided test of value = outside, the pooled two-proportion z-test, or
      Fisher's exact test where an expected cell is below 5 (as ``disparity`` decides:
      :func:`polars_fair.core.stats.two_proportion_test`, ``method="auto"``);
    * ``p_value_adjusted``: over every pattern tested, Benjamini–Hochberg (``"bh"``, default),
      Benjamini–Yekutieli (``"by"``, any dependence; the patterns overlap) or Holm;
      ``significant`` = ``p_value_adjusted <= 1 − level``, exactly;
    * ``t_value``: DivExplorer's t-value, :math:`|\mu - \mu_D| / \sqrt{\sigma^2 + \sigma_D^2}`
      with the mean and variance of Beta(x + 1, m − x + 1) for the pattern and
      Beta(X + 1, M − X + 1) for every row (``divexplorer.divexplorer.get_t_value_bayesian``);
    * ``low_support``: the denominator is below ``min_denominator`` (the pattern is kept).

    With a weighted count table the rates use the weighted sums; the interval, the test and
    the t-value use them rescaled to rows (as ``disparity``), and ``n``/``support`` count rows.
    A missing attribute value (``null_groups="keep"``) is an item of its own: its key is null
    and ``attributes`` names the attribute (DivExplorer, reading a one-hot encoding, has no item
    for missing values).

    Rows are sorted most harmful first: by divergence descending when a higher value harms
    (FPR, FNR, FDR, FOR), ascending when a lower value harms (selection rate, TPR, PPV, ...:
    :attr:`polars_fair.core.registry.Metric.harm`), by absolute divergence for a metric with no
    direction (``base_rate``); undefined divergences last, ties in enumeration order.

    A numeric attribute with more than 50 levels, or with at least 8 levels and fewer than two
    rows per level, is refused: bin it (``bins=`` of ``df.fair.divergence``).

    Parameters
    ----------
    counts : pl.LazyFrame
        A count table (keys, ``n, tp, fp, fn, tn`` [, ``weight_sum``]) at the finest level.
    keys : sequence of str
        Its key columns: the attributes whose values make the items.
    metric : str, default "fpr"
        A proportion of the metric registry.
    max_order : int, optional
        The most items (attributes) of a pattern; all of them by default.
    min_support : float, default 0.01
        The smallest pattern: a share of the rows when below 1, a row count otherwise (> 0).
    min_denominator : float, default 30
        A pattern whose metric denominator is below this is flagged ``low_support``.
    level : float, default 0.95
        Confidence level of the intervals; ``significant`` uses ``alpha = 1 − level``.
    adjust : {"bh", "by", "holm"}, default "bh"
        The adjustment over every pattern tested (:func:`adjust_pvalues`).
    max_patterns : int, default 1000000
        The most candidate patterns whose support is counted (every level together).

    Returns
    -------
    pl.LazyFrame
        One row per frequent pattern: ``attributes`` (List(String), the pattern's attributes
        in key order), the keys (the pattern's values; null outside it), ``n`` (Int64 rows),
        ``support`` (Float64, n / rows), ``denominator`` (Int64, Float64 weighted), ``value``,
        ``overall``, ``outside``, ``divergence`` (Float64; null where a denominator is 0),
        ``low_support`` (Boolean), ``ci_low``, ``ci_high``, ``p_value``,
        ``p_value_adjusted`` (Float64), ``significant`` (Boolean), ``t_value`` (Float64),
        ``divergence_ci_low``, ``divergence_ci_high`` (Float64).

    Raises
    ------
    InvalidArgumentError
        ``metric`` not a proportion, ``min_support`` not a number > 0, ``min_denominator``
        not a number >= 0, ``level`` not in (0, 1), an unknown ``adjust``, ``max_order`` or
        ``max_patterns`` not an integer >= 1, no keys; the weighted estimator's count table
        of estimated membership (with ``n_effective``: its patterns would count a row in
        every group; ``membership_estimator="argmax"`` gives a crisp table).
    SizeLimitError
        More than ``max_patterns`` candidate patterns (at collect time, before counting).
    TooManyLevelsError
        A numeric attribute that must be binned (at collect time).

    Examples
    --------
    >>> import polars as pl
    >>> c = pl.LazyFrame({"race": ["a", "a", "b", "b"], "sex": ["F", "M", "F", "M"],
    ...                   "n": [50] * 4, "tp": [10] * 4, "fp": [30, 10, 10, 10],
    ...                   "fn": [0] * 4, "tn": [10, 30, 30, 30]})
    >>> d = divergence_from_counts(c, ["race", "sex"], min_support=0.25).collect()
    >>> for row in d.select("attributes", "race", "sex", "value", "divergence").head(3).rows():
    ...     print(row)
    (['race', 'sex'], 'a', 'F', 0.75, 0.375)
    (['race'], 'a', None, 0.5, 0.125)
    (['sex'], None, 'F', 0.5, 0.125)
    """
    metric, max_order, min_support = options["metric"], options["max_order"], options["min_support"]
    level, adjust = options["level"], options["adjust"]
    if metric not in PROPORTIONS:
        raise E.InvalidArgumentError(E.DIVERGENCE_METRIC.format(
            metric=metric, valid=list(PROPORTIONS)))
    keys = list(keys)
    if not keys:
        raise E.InvalidArgumentError(E.DIVERGENCE_NO_KEYS)
    top = len(keys) if max_order is None else min(check_int(max_order, "max_order"), len(keys))
    limit = check_int(max_patterns, "max_patterns")
    check("divergence_min_support", min_support)
    den_t = check("min_denominator", options["min_denominator"])
    level_t = check("level", level)
    alpha = R.alpha(level_t)
    if adjust not in ADJUSTMENTS:
        raise E.InvalidArgumentError(E.BAD_ADJUST.format(value=adjust, valid=list(ADJUSTMENTS)))
    m = METRICS[metric]
    assert m.numerator is not None and m.denominator is not None
    in_schema = counts.collect_schema()
    refuse_weighted_membership(in_schema.names(), "divergence", E.MEMBERSHIP_WHY_PATTERNS)
    weighted = "weight_sum" in in_schema.names()
    key_schema = pl.Schema({k: in_schema[k] for k in keys})
    out_schema = _schema(key_schema, weighted)
    c = Counts.columns(weighted)
    prepared = counts.select(
        *keys, pl.col("n").cast(pl.Int64), m.numerator(c).cast(pl.Float64).alias("__pf_x"),
        m.denominator(c).cast(pl.Float64).alias("__pf_m"), c.n.cast(pl.Float64).alias("__pf_w"))

    stats_options: dict[str, Any] = dict(
        weighted=weighted, harm=m.harm, level_t=level_t, den_t=den_t, alpha=alpha,
        adjust=adjust, out_schema=out_schema)

    compute = functools.partial(
        _patterns, keys=keys, key_schema=key_schema, top=top, min_support=min_support,
        limit=limit, stats_options=stats_options)
    return prepared.map_batches(compute, schema=out_schema)


def _patterns(df: pl.DataFrame, *, keys: list[str], key_schema: pl.Schema, top: int,
              min_support: float, limit: int, stats_options: dict[str, Any]) -> pl.DataFrame:
    """Every pattern of the collected count table with enough support, and its statistics.

    The body of :func:`divergence_from_counts`' plan: the levels checked, the patterns up to
    ``top`` items enumerated (at most ``limit``), each pattern's sums, then
    :func:`_statistics`.
    """
    _check_levels(df, keys, key_schema)
    rows = int(df["n"].sum())
    if rows == 0:
        raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=""))
    threshold = _support_threshold(min_support, rows)
    sets, set_id, rep, sums = _enumerate(df, keys, top, threshold, limit)
    if not sets:
        return pl.DataFrame(schema=stats_options["out_schema"])
    member = np.array([[k in attrs for k in keys] for attrs in sets], dtype=bool)
    picked = df.select(keys)[rep]
    pat = picked.with_columns(
        pl.when(pl.Series(member[set_id, i])).then(pl.col(k)).alias(k)
        for i, k in enumerate(keys)
    ).with_columns(
        pl.Series("attributes", [list(a) for a in sets],
                  dtype=pl.List(pl.String))[set_id].alias("attributes"),
        pl.Series("n", sums[:, 0]).cast(pl.Int64), pl.Series("__pf_x", sums[:, 1]),
        pl.Series("__pf_m", sums[:, 2]), pl.Series("__pf_w", sums[:, 3]),
        pl.Series("__pf_set", set_id), pl.Series("__pf_row", np.arange(len(set_id))),
    )
    total = df.select(pl.col(s).sum() for s in _SUMS).row(0)
    return _statistics(pat, total, **stats_options)


def _statistics(pat: pl.DataFrame, total: tuple[Any, ...], *, weighted: bool, harm: str | None,
                level_t: Any, den_t: Any, alpha: Any, adjust: Adjust,
                out_schema: pl.Schema) -> pl.DataFrame:
    """Every pattern's figures from its sums (``n, __x, __m, __w``) and the population's."""
    n_all, x_all, m_all, w_all = (float(v) for v in total)
    n = pat["n"].cast(pl.Float64).to_numpy()
    x, den, w = (pat[s].to_numpy() for s in ("__pf_x", "__pf_m", "__pf_w"))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(den > 0, x / den, np.nan)
        overall = x_all / m_all if m_all > 0 else np.nan
        out_den = m_all - den
        outside = np.where(out_den > 0, (x_all - x) / out_den, np.nan)
        if weighted:  # inference in rows: weighted sums rescaled (see disparity)
            scale = np.where(w > 0, n / w, 0.0)
            out_rows = n_all - n
            out_scale = np.where(w_all - w > 0, out_rows / (w_all - w), 0.0)
            a, mm = _snap(x * scale), _snap(den * scale)
            b, r = _snap((x_all - x) * out_scale), _snap(out_den * out_scale)
            all_scale = n_all / w_all if w_all > 0 else 0.0
            xa, ma = x_all * all_scale, m_all * all_scale
        else:
            a, mm, b, r = x, den, x_all - x, out_den
            xa, ma = x_all, m_all
    b = np.clip(b, 0.0, None)
    r = np.maximum(r, b)
    usable = (mm > 0) & (r > 0)
    p = np.full(len(pat), np.nan)
    if usable.any():
        p[usable] = stats.two_proportion_test(a[usable], mm[usable], b[usable], r[usable],
                                              method="auto")
    lo = np.full(len(pat), np.nan)
    hi = np.full(len(pat), np.nan)
    if usable.any():
        lo[usable], hi[usable] = stats.newcombe_difference_interval(
            a[usable], mm[usable], b[usable], r[usable], level=float(level_t))
    p_adj = adjust_pvalues(p, adjust)
    shrink = out_den / m_all if m_all > 0 else np.full(len(pat), np.nan)
    t = np.where(mm > 0, _beta_t(a, mm - a, xa, ma - xa), np.nan)
    if weighted:
        low = [R.below(float(v), den_t) for v in mm]
    else:
        low = list(den < R.min_count(den_t))

    def col(v: Any) -> pl.Series:
        return pl.Series(np.asarray(v, dtype=np.float64), nan_to_null=True)

    out = pat.with_columns(
        support=col(n / n_all), denominator=pat["__pf_m"].cast(out_schema["denominator"]),
        value=col(value), overall=col(np.full(len(pat), overall)), outside=col(outside),
        divergence=col(value - overall), low_support=pl.Series(low, dtype=pl.Boolean),
        ci_low=col(lo), ci_high=col(hi), p_value=col(p), p_value_adjusted=col(p_adj),
        # R.float_at_most, vectorized: p compared with alpha rounded once to a float
        significant=pl.Series(p_adj <= float(alpha), dtype=pl.Boolean).scatter(
            np.flatnonzero(np.isnan(p_adj)), None),
        t_value=col(t),
        # value - overall = (M - m) / M * (value - outside): the same interval in divergence units
        divergence_ci_low=col(lo * shrink), divergence_ci_high=col(hi * shrink),
    )
    d = pl.col("divergence")
    key = -d if harm == "higher" else d if harm == "lower" else -d.abs()
    out = out.sort(key.alias("__pf_key"), "__pf_set", "__pf_row", nulls_last=True)
    return out.select(out_schema.names())



#: With ``strategy="auto"``, a Spark or DuckDB frame over more attributes than this is searched
#: level by level on its rows: its finest count table could hold about one row per input row.
LEVELS_ABOVE = 6


def _apriori_gen(freq: Mapping[tuple[str, ...], pl.DataFrame],
                 attrs: tuple[str, ...]) -> pl.DataFrame:
    """The patterns over ``attrs`` whose sub-patterns (one item less) are all frequent."""
    left = freq[attrs[:-1]].select(attrs[:-1])
    right = freq[attrs[:-2] + attrs[-1:]].select(attrs[:-2] + attrs[-1:])
    if len(attrs) == 2:
        cand = left.join(right, how="cross")
    else:
        cand = left.join(right, on=list(attrs[:-2]), nulls_equal=True)
    for drop in range(len(attrs) - 2):
        sub = attrs[:drop] + attrs[drop + 1:]
        cand = cand.join(freq[sub].select(sub), on=list(sub), how="semi", nulls_equal=True)
    return cand.select(attrs)


def _too_many_patterns(patterns: int, size: int, limit: int) -> str:
    """TOO_MANY_PATTERNS with advice that runs: the levels below ``size`` were within ``limit``."""
    advice = (E.TOO_MANY_PATTERNS_ORDER.format(order=size - 1) if size > 1
              else E.TOO_MANY_PATTERNS_LEVEL_ONE)
    return E.TOO_MANY_PATTERNS.format(patterns=patterns, size=size, limit=limit, advice=advice)


def _levels_drop(frame: Any, names: list[str]) -> E.InvalidArgumentError:
    """LEVELS_DROP with the rows' nulls dropped in the frame's own engine, by its attributes.

    The command line (which reads into Polars) is advised ``--where`` in its ``cli_message``.
    """
    module = type(frame).__module__.split(".")[0]
    kind = "spark" if module == "pyspark" else "duckdb" if "duckdb" in module else "polars"
    condition = " AND ".join(
        (n if n.isidentifier() else '"' + n.replace('"', '""') + '"') + " IS NOT NULL"
        for n in names)
    facts = {"names": names, "condition": condition,
             "condition_word": '"' + E.shell_escaped(condition) + '"'}
    return E.InvalidArgumentError(
        E.LEVELS_DROP.format(example=E.LEVELS_DROP_EXAMPLES[kind].format(**facts)),
        cli_message=E.LEVELS_DROP.format(example=E.LEVELS_DROP_EXAMPLES["cli"].format(**facts)))


def _by_levels(frame: Any, by: By, args: dict[str, Any], *, metric: str,
               max_order: int | None, min_support: float, min_denominator: float,
               level: float, adjust: Adjust, max_patterns: int) -> pl.LazyFrame:
    """The divergence table searched level by level on the rows, one count table per set.

    Level 1 counts each attribute alone; level ``k`` counts, in the frame's own engine, only
    the attribute sets whose every ``k − 1``-subset has a frequent pattern, and keeps the
    patterns whose every sub-pattern is frequent (apriori-gen). The finest count table is never
    built; the rows are read once per candidate attribute set. Same output as the search on
    the finest count table.
    """
    from polars_fair.counting.tables import count_table, engine_of

    entries = normalize_by(by)
    names = [name_of(b) for b in entries]
    if args.get("null_groups") == "drop":
        raise _levels_drop(frame, names)
    if not names:
        raise E.InvalidArgumentError(E.DIVERGENCE_NO_KEYS)
    by_of = dict(zip(names, entries, strict=True))
    engine = engine_of(frame)
    firsts = [count_table(engine, [b], **args)[0] for b in entries]
    schemas = [f.collect_schema() for f in firsts]
    weighted = "weight_sum" in schemas[0].names()
    key_schema = pl.Schema({k: sch[k] for k, sch in zip(names, schemas, strict=True)})
    cells = [(c, schemas[0][c]) for c in ("n", "tp", "fp", "fn", "tn", "weight_sum")
             if c in schemas[0].names()]
    shape = pl.LazyFrame(schema=pl.Schema([*key_schema.items(), *cells]))
    options: dict[str, Any] = dict(metric=metric, max_order=max_order, min_support=min_support,
                                   min_denominator=min_denominator, level=level, adjust=adjust,
                                   max_patterns=max_patterns)
    out_schema = divergence_from_counts(shape, names, **options).collect_schema()  # checks
    top = len(names) if max_order is None else min(max_order, len(names))
    level_t = check("level", level)
    stats_options: dict[str, Any] = dict(
        weighted=weighted, harm=METRICS[metric].harm, level_t=level_t,
        den_t=check("min_denominator", min_denominator), alpha=R.alpha(level_t),
        adjust=adjust, out_schema=out_schema)
    m = METRICS[metric]
    assert m.numerator is not None and m.denominator is not None
    c = Counts.columns(weighted)
    num, den = m.numerator(c).cast(pl.Float64), m.denominator(c).cast(pl.Float64)
    sums = [pl.col(x).sum() for x in _SUMS]

    def prepare(df: pl.DataFrame, keys: Sequence[str]) -> pl.DataFrame:
        return df.select(*keys, pl.col("n").cast(pl.Int64), num.alias("__pf_x"),
                         den.alias("__pf_m"), c.n.cast(pl.Float64).alias("__pf_w"))

    def run(_: pl.DataFrame) -> pl.DataFrame:
        firsts_df = [prepare(d, [k]) for d, k in
                     zip(pl.collect_all(firsts), names, strict=True)]
        for d, k in zip(firsts_df, names, strict=True):
            _check_levels(d, [k], key_schema)
        total = firsts_df[0].select(sums).row(0)
        if not total[0]:
            raise E.EmptyFrameError(E.EMPTY_FRAME.format(detail=""))
        threshold = _support_threshold(min_support, int(total[0]))
        freq: dict[tuple[str, ...], pl.DataFrame] = {}
        tested = sum(d.height for d in firsts_df)
        _patterns_ceiling(tested, 1, names)
        if tested > max_patterns:
            raise E.SizeLimitError(_too_many_patterns(tested, 1, max_patterns))
        for d, k in zip(firsts_df, names, strict=True):
            f = d.filter(pl.col("n") >= threshold).sort(k, nulls_last=True)
            if f.height:
                freq[(k,)] = f
        for size in range(2, top + 1):
            sets = [s + (k,) for s in list(freq) if len(s) == size - 1
                    for k in names[names.index(s[-1]) + 1:]]
            sets = [s for s in sets if all(s[:j] + s[j + 1:] in freq for j in range(size))]
            cands = {s: _apriori_gen(freq, s) for s in sets}
            cands = {s: cand for s, cand in cands.items() if cand.height}
            tested += sum(cand.height for cand in cands.values())
            _patterns_ceiling(tested, size, names)
            if tested > max_patterns:  # before this level is counted
                raise E.SizeLimitError(_too_many_patterns(tested, size, max_patterns))
            if not cands:
                break
            counted = pl.collect_all(
                [count_table(engine, [by_of[k] for k in s], intersection=False, **args)[0]
                 for s in cands])
            for (s, cand), d in zip(cands.items(), counted, strict=True):
                f = prepare(d, list(s)).join(cand, on=list(s), how="semi", nulls_equal=True) \
                    .filter(pl.col("n") >= threshold).sort(list(s), nulls_last=True)
                if f.height:
                    freq[s] = f
        if not freq:
            return pl.DataFrame(schema=out_schema)
        parts = [f.with_columns(
            pl.lit(list(s), dtype=pl.List(pl.String)).alias("attributes"),
            *[pl.lit(None, dtype=key_schema[k]).alias(k) for k in names if k not in s],
            pl.lit(order, dtype=pl.Int64).alias("__pf_set"),
        ).with_row_index("__pf_row").select("attributes", *names, *_SUMS, "__pf_set", "__pf_row")
            for order, (s, f) in enumerate(freq.items())]
        return _statistics(pl.concat(parts), total, **stats_options)

    return pl.LazyFrame({"__pf_seed": [0]}).map_batches(run, schema=out_schema)

@borrow(divergence_from_counts, params=("metric", "max_order", "min_support",
                                         "min_denominator", "level", "adjust", "max_patterns"))
@takes(DivergenceOptions, after="by", defaults=DIVERGENCE_DEFAULTS)
def divergence_of_counts(
    fair_counts: Any,
    by: By = None,
    *,
    max_patterns: int = DEFAULT_MAX_PATTERNS,
    **options: Unpack[DivergenceOptions],
) -> pl.LazyFrame:
    """``FairCounts.divergence``: roll the count table up to ``by``, then search its patterns.

    Parameters
    ----------
    fair_counts : polars_fair.api.objects.FairCounts
        The count table (one attribute set).
    by : str or list of str, optional
        The attributes whose values make the items (default: every key).

    Returns
    -------
    pl.LazyFrame
        The divergence table (:func:`divergence_from_counts`).

    Raises
    ------
    InvalidArgumentError
        A table of several attribute sets, a key named like an output column, bad options.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_fair import from_counts
    >>> c = pl.DataFrame({"g": ["a", "b"], "n": [50, 50], "tp": [10, 10], "fp": [30, 10],
    ...                   "fn": [0, 0], "tn": [10, 30]})
    >>> divergence_of_counts(from_counts(c)).collect()["divergence"].to_list()
    [0.25, -0.25]
    """
    from polars_fair.analyses.runner import check_outputs

    if fair_counts.sets is not None:
        raise E.InvalidArgumentError(E.DIVERGENCE_OF_SETS)
    counted = fair_counts._select(by, None, None)
    check_outputs(counted.frame, counted.keys, divergence_from_counts, "divergence",
                  made_elsewhere=getattr(fair_counts, "made_elsewhere", False),
                  max_patterns=max_patterns, **options)
    return divergence_from_counts(counted.frame, counted.keys, max_patterns=max_patterns,
                                  **options)


_COUNTS_EXAMPLE = """>>> import polars as pl
>>> from polars_fair import from_counts
>>> c = pl.DataFrame({"g": ["a", "b"], "n": [50, 50], "tp": [10, 10], "fp": [30, 10],
...                   "fn": [0, 0], "tn": [10, 30]})
>>> from_counts(c).divergence().collect().select("g", "value", "divergence").rows()
[('a', 0.75, 0.25), ('b', 0.25, -0.25)]"""

#: The docstring of ``FairCounts.divergence``.
COUNTS_METHOD_DOC = compose(
    divergence_from_counts.__doc__ or "", drop=("counts", "keys"),
    before="""by : str or list of str, optional
    The attributes whose values make the patterns' items (default: every key).""",
    returns="pl.LazyFrame", example=_COUNTS_EXAMPLE)
