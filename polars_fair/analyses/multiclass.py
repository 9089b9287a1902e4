"""Multiclass decisions: the per-class report and the test of independence, from a class table.

Both read a class table (:mod:`polars_fair.counting.classes`: keys, [``y_true``,] ``y_pred``,
``n`` [, ``weight_sum``]), small and collected once; nothing here reads rows.

The report turns each class into the binary question "predicted in this class, or not" (with
``ordered=True``: "at or above this class"), a one-vs-rest count table per class
(:func:`one_vs_rest`), and decides it with the binary report
(:func:`polars_fair.analyses.report.report_from_counts`): the same exact verdicts, the same
reference rules and the same support rules, class by class. So a two-class audit through the
multiclass report equals the binary report of either class.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair._lazy import np, sps
from polars_fair.analyses.report import report_from_counts
from polars_fair.analyses.runner import check_clash, dense
from polars_fair.core import rules as R
from polars_fair.core.limits import check_work, with_limits
from polars_fair.core.numbers import check_seed
from polars_fair.core.options import DEFAULTS, check
from polars_fair.core.reference import Reference
from polars_fair.core.spec import POSITIVE_WEIGHT_ROWS, check_int
from polars_fair.counting.classes import TABLE_NAMES, check_classes, classes_of

#: Words of ordinal scales and their rank (lower case; ``_`` and ``-`` read as spaces): classes
#: that are all words of it have the order it gives, as COMPAS' Low, Medium, High.
_SCALE = {"very low": 0, "low": 1, "medium": 2, "moderate": 2, "mid": 2, "middle": 2,
          "high": 3, "very high": 4, "bronze": 1, "silver": 2, "gold": 3, "platinum": 4}


def _order_needs_classes(found: Sequence[Any], column: str, dtype: Any,
                         order: Sequence[Any] | None = None) -> E.InvalidArgumentError:
    """ORDER_NEEDS_CLASSES, with the classes in the order of a known scale where they are one.

    Classes that are all categories of an Enum label (``order``) are advised in its order, the
    categories no row holds left out; else classes that are all words of :data:`_SCALE`
    (``High``, ``Low``, ``Medium``) in its order (``Low``, ``Medium``, ``High``); others sorted
    as text, saying so. The command line's message writes them as ``--classes`` takes them.
    """
    words = [" ".join(str(v).strip().lower().replace("_", " ").replace("-", " ").split())
             for v in found]
    ranks: list[int | None] = [_SCALE.get(w) for w in words]
    labelled = order is not None and set(found) <= set(order)
    if labelled:  # the label's Enum orders them
        ranks = [list(order or ()).index(v) for v in found]
    known = None not in ranks and len(set(ranks)) == len(ranks)
    ordered = [v for _, v in sorted(zip(ranks, found, strict=True))] if known else list(found)
    guess = E.ORDER_OF_LABEL if labelled else "" if known else E.ORDER_GUESSED
    facts = {"column": column, "dtype": dtype, "guess": guess}
    return E.class_error(E.InvalidArgumentError, E.ORDER_NEEDS_CLASSES,
                         E.CLI_ORDER_NEEDS_CLASSES, **facts,
                         example=E.Classes(ordered, column, every=True),
                         values=E.Classes(found))


__all__ = ["MIN_EXPECTED", "N_DRAWS", "REPORT_COLUMNS", "TEST_COLUMNS", "class_tables",
           "multiclass_report_from_classes", "multiclass_test_from_classes", "one_vs_rest"]

#: The report's columns after the keys (``weight_sum`` follows ``n_class`` when weighted; the
#: last three only with true classes).
REPORT_COLUMNS = ("class", "n", "n_class", "selection_rate", "is_reference", "disparate_impact",
                  "impact_ratio", "adverse_impact", "low_support", "tpr", "fpr", "ppv")
#: The test's columns.
TEST_COLUMNS = ("n", "chi2", "dof", "p_value", "v", "min_expected", "method")
#: Below this expected count in any cell, the chi-square approximation is not trusted
#: (Cochran 1954) and the p-value is a Monte-Carlo one.
MIN_EXPECTED = 5.0
#: The Monte-Carlo draws by default, the declared ``n_permutations`` (1,000: the p-value's
#: standard error is at most 0.016; pass more for a p-value near a threshold).
N_DRAWS = DEFAULTS.n_permutations
#: numpy draws hypergeometric counts below 10**9 only: a larger table keeps the chi-square law.
_MAX_DRAWN = 10**9
#: The cells drawn at once by the Monte-Carlo test (about 32 bytes each in its arrays).
_BATCH_CELLS = 1_000_000
#: The class index column of the one-vs-rest table.
_C = "__pf_class"


def _is_text(dtype: pl.DataType) -> bool:
    return dtype == pl.String or isinstance(dtype, pl.Categorical)


def one_vs_rest(df: pl.DataFrame, keys: Sequence[str], classes: Sequence[Any],
                ordered: bool = False) -> pl.DataFrame:
    r"""The binary count table of each class: "in this class" (or "at or above it") or not.

    For class :math:`c` (index :math:`i`), a row predicted :math:`\hat y` and labelled
    :math:`y` is a predicted positive when :math:`\hat y = c` (``ordered``: when the index of
    :math:`\hat y` is at least :math:`i`) and a true positive likewise; without true classes
    every row counts as a negative label (``fp`` = in the class, ``tn`` = not), as a binary
    audit without labels.

    Parameters
    ----------
    df : pl.DataFrame
        A checked class table.
    keys : sequence of str
        Its keys.
    classes : sequence
        The classes in order (every value of the table is one of them).
    ordered : bool, default False
        Cut at each class ("at or above") instead of one class against the rest.

    Returns
    -------
    pl.DataFrame
        The keys, ``__pf_class`` (UInt32, the class index), ``n`` (Int64 rows), ``tp, fp,
        fn, tn`` (Int64; Float64 weighted sums with weights, then ``weight_sum`` and, when the
        class table has it, ``n_positive_weight``): every group with every class, a class no
        one received included.

    Examples
    --------
    >>> df = pl.DataFrame({"g": ["a", "a"], "y_pred": ["x", "y"], "n": [3, 1]})
    >>> one_vs_rest(df, ["g"], ["x", "y"]).select("n", "fp", "tn").rows()
    [(4, 3, 1), (4, 1, 3)]
    """
    index = pl.DataFrame({"__pf_v": list(classes)},
                         schema={"__pf_v": df.schema["y_pred"]})["__pf_v"]
    codes = {c: pl.col(c).replace_strict(index, list(range(len(classes))),
                                         return_dtype=pl.UInt32)
             for c in ("y_pred", "y_true") if c in df.columns}
    weighted = "weight_sum" in df.columns
    cells = pl.DataFrame({_C: list(range(len(classes)))}, schema={_C: pl.UInt32})
    table = df.with_columns(**{f"__pf_{c}": e for c, e in codes.items()}).join(cells, how="cross")
    c = pl.col(_C)

    def at(code: str) -> pl.Expr:
        return pl.col(code) >= c if ordered else pl.col(code) == c

    pos_p = at("__pf_y_pred")
    pos_y = at("__pf_y_true") if "y_true" in df.columns else pl.lit(False)
    v = pl.col("weight_sum") if weighted else pl.col("n")
    cell = pl.Float64 if weighted else pl.Int64
    sums = [pl.col("n").sum().cast(pl.Int64),
            v.filter(pos_y & pos_p).sum().cast(cell).alias("tp"),
            v.filter(~pos_y & pos_p).sum().cast(cell).alias("fp"),
            v.filter(pos_y & ~pos_p).sum().cast(cell).alias("fn"),
            v.filter(~pos_y & ~pos_p).sum().cast(cell).alias("tn"),
            *([pl.col("weight_sum").sum()] if weighted else []),
            *([pl.col(POSITIVE_WEIGHT_ROWS).sum().cast(pl.Int64)]
              if weighted and POSITIVE_WEIGHT_ROWS in df.columns else [])]
    out = table.group_by([*keys, _C]).agg(sums)
    return out.sort([_C, *keys], nulls_last=True)


def _classes(df: pl.DataFrame, classes: Sequence[Any] | None,
             names: Mapping[str, str] | None) -> tuple[Any, ...]:
    declared = None if classes is None else tuple(classes)
    return classes_of(df, declared, {**TABLE_NAMES, **(names or {})})


def _report_schema(schema: pl.Schema, keys: Sequence[str]) -> pl.Schema:
    weighted = "weight_sum" in schema.names()
    labelled = "y_true" in schema.names()
    cell = pl.Float64() if weighted else pl.Int64()
    cols: list[tuple[str, pl.DataType]] = [(k, schema[k]) for k in keys]
    cols += [("class", schema["y_pred"]), ("n", pl.Int64()), ("n_class", cell)]
    cols += [("weight_sum", pl.Float64())] if weighted else []
    cols += [("selection_rate", pl.Float64()), ("is_reference", pl.Boolean()),
             ("disparate_impact", pl.Float64()), ("impact_ratio", pl.Float64()),
             ("adverse_impact", pl.Boolean()), ("low_support", pl.Boolean())]
    cols += [(m, pl.Float64()) for m in ("tpr", "fpr", "ppv")] if labelled else []
    return pl.Schema(cols)


def multiclass_report_from_classes(
    table: pl.LazyFrame,
    keys: Sequence[str],
    *,
    classes: Sequence[Any] | None = None,
    ordered: bool = False,
    reference: Any = DEFAULTS.reference,
    min_support: float = DEFAULTS.min_support,
    four_fifths: float = DEFAULTS.four_fifths,
    names: Mapping[str, str] | None = None,
    order: Sequence[Any] | None = None,
) -> pl.LazyFrame:
    """Per group and class: the share placed in the class, its impact ratio and verdicts.

    For each class :math:`c`, ``selection_rate`` is the share of the group predicted in
    :math:`c`, :math:`n_{g,c} / n_g` (with ``ordered=True`` the share at or above :math:`c`,
    SolasAI's categorical adverse impact ratio, one cut per class). ``impact_ratio`` divides
    it by the highest rate of that class among the eligible groups (NYC Local Law 144's
    impact ratio "for each group" of a tool that classifies candidates, 6 RCNY § 5-301(b)(4);
    29 CFR 1607.4(D)); ``adverse_impact`` is ``impact_ratio < four_fifths``, decided exactly on
    the counts; ``disparate_impact`` divides by the reference group's rate. With true classes,
    the one-vs-rest ``tpr`` :math:`TP/(TP+FN)`, ``fpr`` :math:`FP/(FP+TN)` and ``ppv``
    :math:`TP/(TP+FP)` of the class. Each class is decided by the binary report
    (:func:`polars_fair.analyses.report.report_from_counts`) on its one-vs-rest table
    (:func:`one_vs_rest`): the same reference, support and exactness rules.

    Parameters
    ----------
    table : pl.LazyFrame
        A class table (:mod:`polars_fair.counting.classes`).
    keys : sequence of str
        Its keys.
    classes : sequence, optional
        The classes and their order (lowest first for ``ordered``); a class no one received is
        a row of zeros. Default: the table's declared classes, else those found, sorted.
    ordered : bool, default False
        ``selection_rate`` is the share at or above each class.
    reference : "largest", "max_selection_rate", "overall", scalar or mapping
        The reference group of ``disparate_impact`` (:mod:`polars_fair.core.reference`).
    min_support : float, default 30
        Groups with fewer rows are flagged ``low_support`` and do not set the highest rate
        while a supported group exists.
    four_fifths : float, default 0.8
        The impact-ratio threshold.
    names : mapping of str to str, optional
        ``y_pred`` [and ``y_true``] -> the column the user named, for the messages (default:
        the table's column names).
    order : sequence, optional
        An order of the classes known besides the table (an Enum label's categories,
        ``ClassTable.order``): the order ``ordered=True`` without ``classes`` advises.

    Returns
    -------
    pl.LazyFrame
        One row per (group, class), by the keys then the classes in order: keys; ``class``
        (the class dtype); ``n`` (Int64 rows of the group); ``n_class`` (Int64 rows in the
        class, Float64 weighted sum with weights, then ``weight_sum`` Float64);
        ``selection_rate`` (Float64 in [0, 1]); ``is_reference`` (Boolean);
        ``disparate_impact``, ``impact_ratio`` (Float64 ≥ 0, null when the benchmark rate is
        0); ``adverse_impact``, ``low_support`` (Boolean); with true classes ``tpr``, ``fpr``,
        ``ppv`` (Float64 in [0, 1], null when undefined).

    Raises
    ------
    InvalidArgumentError
        A key named like an output column (:data:`REPORT_COLUMNS`, ``weight_sum``); an option
        outside its range, bad ``classes``, or ``ordered=True`` on text classes without
        ``classes``.
    InvalidLabelError
        A class outside ``classes``, or one class only (at collect time).
    UnknownGroupError
        An explicit ``reference`` that is not a group.

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "a", "b", "b"], "y_pred": ["x", "y", "x", "y"],
    ...                   "n": [30, 10, 20, 20]})
    >>> out = multiclass_report_from_classes(t, ["g"], min_support=1).collect()
    >>> out.select("g", "class", "selection_rate", pl.col("impact_ratio").round(3)).rows()
    [('a', 'x', 0.75, 1.0), ('a', 'y', 0.25, 0.5), ('b', 'x', 0.5, 0.667), ('b', 'y', 0.5, 1.0)]
    """
    check_clash(keys, (*REPORT_COLUMNS, "weight_sum"), "multiclass_report")
    check("min_support", min_support)
    check("four_fifths", four_fifths)
    ordered = R.flag(ordered, "ordered")  # "yes" would read as true
    schema = table.collect_schema()
    dtype = schema["y_pred"]
    if ordered and classes is None and _is_text(dtype):
        found = table.select(pl.col("y_pred").drop_nulls().unique().sort()).collect()
        raise _order_needs_classes(found["y_pred"].to_list(),
                                   {**TABLE_NAMES, **(names or {})}["y_pred"], dtype, order)
    ref = Reference.parse(reference, keys)
    out_schema = _report_schema(schema, keys)

    def build(counts: pl.LazyFrame) -> pl.LazyFrame:
        return report_from_counts(counts, keys, reference=ref, min_support=min_support,
                                  four_fifths=four_fifths).with_columns(
            (pl.col("tp") + pl.col("fp")).alias("n_class"))

    stacked = class_tables(table, keys, build, classes=classes, ordered=ordered, by_keys=True,
                           names=names)
    return stacked.select(out_schema.names())


@borrow(multiclass_report_from_classes, params=("names",))
def class_tables(
    table: pl.LazyFrame,
    keys: Sequence[str],
    build: Callable[[pl.LazyFrame], pl.LazyFrame],
    *,
    classes: Sequence[Any] | None = None,
    ordered: bool = False,
    by_keys: bool = False,
    names: Mapping[str, str] | None = None,
) -> pl.LazyFrame:
    """Run a count-table analysis on each class's one-vs-rest table, stacked under ``class``.

    The class table is collected once (it is small); each class's binary count table
    (:func:`one_vs_rest`) goes through ``build``, so every binary rule applies unchanged.

    Parameters
    ----------
    table : pl.LazyFrame
        A class table.
    keys : sequence of str
        Its keys.
    build : callable
        ``build(counts) -> pl.LazyFrame``: an analysis of a count table (keys, ``n, tp, fp,
        fn, tn`` [, ``weight_sum``]).
    classes : sequence, optional
        The classes and their order (default: those found, sorted); checked against the
        table's class dtype.
    ordered : bool, default False
        Cut at or above each class.
    by_keys : bool, default False
        Sort the result by the keys (then the classes in order), with ``class`` after the keys;
        otherwise ``class`` comes first and the classes' outputs follow each other.

    Returns
    -------
    pl.LazyFrame
        ``build``'s columns and ``class`` (the class dtype).

    Raises
    ------
    InvalidArgumentError
        Bad ``classes`` (at once).
    InvalidLabelError
        A class outside ``classes``, or one class only (at collect time).

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "b"], "y_pred": [0, 1], "n": [2, 3]})
    >>> class_tables(t, ["g"], lambda c: c.select("g", "fp")).collect().rows()
    [(0, 'a', 2), (0, 'b', 0), (1, 'a', 0), (1, 'b', 3)]
    """
    schema = table.collect_schema()
    dtype = schema["y_pred"]
    declared = None if classes is None else check_classes(
        classes, dtype, {**TABLE_NAMES, **(names or {})}["y_pred"])
    cell = pl.Float64() if "weight_sum" in schema.names() else pl.Int64()
    counts = pl.LazyFrame(schema=pl.Schema(
        [*((k, schema[k]) for k in keys), ("n", pl.Int64()),
         *((c, cell) for c in ("tp", "fp", "fn", "tn")),
         *((("weight_sum", pl.Float64()),) if "weight_sum" in schema.names() else ())]))
    inner = build(counts).collect_schema()
    columns = [(c, inner[c]) for c in inner.names()]
    if by_keys:
        at = len([c for c in inner.names() if c in keys])
        columns.insert(at, ("class", dtype))
    else:
        columns.insert(0, ("class", dtype))
    out_schema = pl.Schema(columns)

    def run(df: pl.DataFrame) -> pl.DataFrame:
        df = dense(df)
        order = _classes(df, declared, names)
        ovr = one_vs_rest(df, keys, order, ordered)
        parts = []
        for i, value in enumerate(order):
            part = ovr.filter(pl.col(_C) == i).drop(_C)
            out = build(part.lazy()).collect(engine="in-memory")
            parts.append(out.with_columns(pl.lit(value, dtype=dtype).alias("class")))
        stacked = pl.concat(parts, how="vertical")
        if by_keys and keys:
            stacked = stacked.sort(list(keys), nulls_last=True, maintain_order=True)
        return stacked.select(out_schema.names())

    return table.map_batches(run, schema=out_schema)


def _tables(df: pl.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, int]:
    """The group x predicted-class table of row counts, in key and class order.

    Only groups and classes with rows are kept; a fixed order makes seeded draws repeatable.
    """
    cells = (df.group_by([*keys, "y_pred"]).agg(pl.col("n").sum())
             .filter(pl.col("n") > 0).sort([*keys, "y_pred"], nulls_last=True))
    group = (cells.select(pl.struct(list(keys)).rank("dense").cast(pl.Int64) - 1)
             .to_series() if keys else pl.Series([0] * cells.height))
    klass = cells["y_pred"].rank("dense").cast(pl.Int64) - 1
    counts = np.zeros((max(group.n_unique(), 1), max(klass.n_unique(), 1)), dtype=np.int64)
    np.add.at(counts, (group.to_numpy(), klass.to_numpy()), cells["n"].to_numpy())
    return counts, int(counts.sum())


def _exact_chi2(obs: np.ndarray, rows: np.ndarray, cols: np.ndarray, total: int) -> float:
    r"""Pearson's statistic with each deviation exact: :math:`\sum D^2 / (n\,n_g n_c)`.

    :math:`D = n\,O_{gc} - n_g n_c` is :math:`n (O - E)` in integers: int64 while every
    product fits (``total`` below :math:`2^{31}`), Python integers beyond (a count table of
    10^15 rows overflowed int64 and lost every digit of :math:`O - E` in float64). Only the
    final division is rounded.
    """
    if total < 2**31:
        dev = obs * total - np.outer(rows, cols)
        denom = np.outer(rows.astype(np.float64), cols.astype(np.float64)) * total
        return float((dev.astype(np.float64) ** 2 / denom).sum())
    o, rs, cs = obs.astype(object), rows.astype(object), cols.astype(object)
    dev = o * total - np.outer(rs, cs)
    return float(sum(int(d) ** 2 / (int(a) * int(b) * total)  # int / int: correctly rounded
                     for d, a, b in zip(dev.ravel(), np.repeat(rs, len(cs)),
                                        np.tile(cs, len(rs)), strict=True)))


def _chi2(obs: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return np.asarray(((obs - expected) ** 2 / expected).sum(axis=(-2, -1)))


def _draw_tables(rows: np.ndarray, cols: np.ndarray, n_draws: int,
                 rng: np.random.Generator) -> np.ndarray:
    """Tables with the given margins, uniformly among those of the permutation distribution.

    Each cell is drawn from its hypergeometric law given the cells before it (row by row,
    column by column): the exact conditional distribution of a table under independence with
    both margins fixed, as Patefield's algorithm (R's ``r2dtable``) draws it.
    """
    r, c = len(rows), len(cols)
    out = np.zeros((n_draws, r, c), dtype=np.int64)
    left = np.tile(cols.astype(np.int64), (n_draws, 1))
    for i in range(r - 1):
        need = np.full(n_draws, rows[i], dtype=np.int64)
        for j in range(c - 1):
            rest = left[:, j + 1:].sum(axis=1)
            x = rng.hypergeometric(left[:, j], rest, need)
            out[:, i, j] = x
            need -= x
            left[:, j] -= x
        out[:, i, c - 1] = need
        left[:, c - 1] -= need
    out[:, r - 1, :] = left
    return out


def _test_one(df: pl.DataFrame, keys: Sequence[str], n_draws: int, seed: int | None,
              ) -> dict[str, Any]:
    obs, total = _tables(df, keys)
    r, c = obs.shape
    none: dict[str, Any] = {"n": total, "chi2": None, "dof": 0, "p_value": None, "v": None,
                            "min_expected": None, "method": "undefined"}
    if r < 2 or c < 2:
        return none
    rows, cols = obs.sum(axis=1), obs.sum(axis=0)
    expected = np.outer(rows.astype(np.float64), cols.astype(np.float64)) / total
    chi2 = _exact_chi2(obs, rows, cols, total)
    dof = (r - 1) * (c - 1)
    low = float(expected.min())
    v = math.sqrt(chi2 / (total * (min(r, c) - 1)))
    if low >= MIN_EXPECTED or total >= _MAX_DRAWN:
        p, method = float(sps.chi2.sf(chi2, dof)), "chi-square"
    else:
        # before any draw: each fills every cell (n_permutations=10**6 over 50 groups and 20
        # classes asked 8 GB per array); drawn in batches of _BATCH_CELLS cells, whose stream
        # is the unbatched one when a single batch holds every draw
        check_work(n_draws * r * c, "multiclass_work", "n_permutations x groups x classes")
        rng = np.random.default_rng(seed)
        step = max(1, _BATCH_CELLS // (r * c))
        sims = np.concatenate([
            _chi2(_draw_tables(rows, cols, min(step, n_draws - start), rng).astype(np.float64),
                  expected) for start in range(0, n_draws, step)])
        # ties within rounding count as at least as extreme (the observed table is one draw)
        extreme = int((sims >= chi2 * (1 - 1e-12)).sum())
        p, method = (1 + extreme) / (1 + n_draws), "monte carlo"
    return {"n": total, "chi2": chi2, "dof": dof, "p_value": p, "v": v, "min_expected": low,
            "method": method}


@borrow(multiclass_report_from_classes, params=("table", "keys"))
@with_limits
def multiclass_test_from_classes(
    table: pl.LazyFrame,
    keys: Sequence[str],
    *,
    sets: Sequence[Sequence[str]] | None = None,
    n_permutations: int = N_DRAWS,
    seed: int | None = DEFAULTS.seed,
) -> pl.LazyFrame:
    r"""Per attribute set, Pearson's chi-square test of independence of predicted class and group.

    On the table of row counts :math:`O_{gc}` (groups with rows by classes predicted at least
    once), expected counts :math:`E_{gc} = n_g n_c / n`, :math:`\chi^2 = \sum (O - E)^2 / E`
    with :math:`(R - 1)(C - 1)` degrees of freedom (Pearson 1900; no continuity correction),
    and Cramér's :math:`V = \sqrt{\chi^2 / (n (\min(R, C) - 1))}` in [0, 1] (Cramér 1946).
    The p-value is the chi-square law's when every expected count is at least
    :data:`MIN_EXPECTED` (5, Cochran's rule); otherwise that approximation is not trusted and
    the p-value is a Monte-Carlo one: the share of ``n_permutations`` tables drawn with the
    same margins (exactly, cell by cell from hypergeometric laws, as R's ``r2dtable``) whose
    statistic is at least the observed one, :math:`(1 + k) / (1 + B)` (Davison and Hinkley
    1997; R's ``chisq.test(simulate.p.value=TRUE)``), seeded. ``method`` says which. A table
    of 10⁹ rows or more is not drawn (numpy's hypergeometric draws stop there): it keeps the
    chi-square law, and ``min_expected`` below 5 says that p-value is approximate.
    Weights are not read: the test counts rows. All sets are tested from one collection of the
    table.

    Parameters
    ----------
    sets : sequence of sequence of str, optional
        The attribute sets to test, each a subset of ``keys`` (default: ``keys``, one set;
        an empty set is one group: no test).
    n_permutations : int, default 1000
        The Monte-Carlo draws.
    seed : int or None, default None
        The seed of the draws (``None``: fresh entropy; pass one to repeat the p-value).

    Returns
    -------
    pl.LazyFrame
        One row per set: ``attributes`` (List(String)), ``n`` (Int64 rows), ``chi2``
        (Float64), ``dof`` (Int64), ``p_value`` (Float64 in (0, 1]), ``v`` (Float64 in
        [0, 1]), ``min_expected`` (Float64, the smallest expected count), ``method`` (String:
        ``"chi-square"``, ``"monte carlo"``, or ``"undefined"`` with fewer than two groups or
        classes, the statistics null).

    Raises
    ------
    InvalidArgumentError
        ``n_permutations`` not an integer >= 1; ``seed`` not an integer >= 0 or None
        (:func:`polars_fair.core.numbers.check_seed`, checked at once as in ``abroca_test``).
    SizeLimitError
        ``n_permutations`` above |limit:multiclass_permutations|; a set tested by Monte Carlo whose
        ``n_permutations`` x groups x classes is above |limit:multiclass_work| (checked on the
        table, before any draw).

    Examples
    --------
    >>> t = pl.LazyFrame({"g": ["a", "a", "b", "b"], "y_pred": ["x", "y", "x", "y"],
    ...                   "n": [30, 10, 20, 20]})
    >>> out = multiclass_test_from_classes(t, ["g"]).collect()
    >>> out.select(pl.col("chi2").round(6), "dof", "method").row(0)
    (5.333333, 1, 'chi-square')
    """
    n_permutations = check_int(n_permutations, "n_permutations",
                               limit="multiclass_permutations")
    check_seed(seed)
    todo = [list(s) for s in sets] if sets is not None else [list(keys)]
    schema = pl.Schema({"attributes": pl.List(pl.String()), "n": pl.Int64(),
                        "chi2": pl.Float64(), "dof": pl.Int64(), "p_value": pl.Float64(),
                        "v": pl.Float64(), "min_expected": pl.Float64(),
                        "method": pl.String()})

    def run(df: pl.DataFrame) -> pl.DataFrame:
        df = dense(df)
        rows = [{"attributes": s, **_test_one(df, s, n_permutations, seed)} for s in todo]
        return pl.DataFrame(rows, schema=schema)

    return table.map_batches(run, schema=schema)
