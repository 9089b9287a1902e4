"""Running an analysis on a small count table, per attribute set, as one step of a lazy plan.

An analysis is a *builder*: ``build(counts, keys) -> LazyFrame`` over a count table. The count
table is small (one row per group), so it is collected once and the analysis runs on it in
memory: whole-table steps (a maximum, the first of tied groups, positional ``get``) then give
the same result under every engine. With several attribute sets (``combinations="all"``), the
analysis runs within each set and the results are stacked under ``attributes``.

Before anything runs, :func:`check_clash` compares the keys with the analysis' output columns,
so an attribute named like an output column (``ofi``, ``ece_gap``) is a typed error naming it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import polars as pl

from polars_fair import errors as E
from polars_fair.core.reference import Reference
from polars_fair.counting.tables import Counted

__all__ = ["Builder", "analyse", "check_clash", "check_outputs", "dense", "on_small_table"]

Builder = Callable[[pl.LazyFrame, list[str]], pl.LazyFrame]


def dense(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with ordinary columns.

    The streaming engine can hand over a column whose values are all equal in a single-value
    form, and Polars divides by such a value by multiplying with its inverse (3/10 becomes
    0.30000000000000004), so the same rate would differ in the last digit by engine.

    Parameters
    ----------
    df : pl.DataFrame
        Any frame.

    Returns
    -------
    pl.DataFrame
        The same columns, names, dtypes and values, each held as an ordinary column.

    Examples
    --------
    >>> df = pl.DataFrame({"n": [10, 10]})
    >>> dense(df).equals(df)
    True
    """
    return pl.DataFrame(df.get_columns())


def check_clash(keys: Sequence[str], outputs: Sequence[str], analysis: str, *,
                made_elsewhere: bool = False) -> None:
    """Raise when a key is named like a column the analysis adds.

    Parameters
    ----------
    keys : sequence of str
        The key columns of the call.
    outputs : sequence of str
        The columns the analysis adds.
    analysis : str
        The analysis' name, for the message.
    made_elsewhere : bool, default False
        The keys are columns of a table made elsewhere (``from_counts``, ``from_scores``, ...):
        the advice renames the table's column (:data:`~polars_fair.errors.COLUMN_CLASH_TABLE`),
        not a ``by=`` expression, which a table does not take.

    Raises
    ------
    InvalidArgumentError
        The message names the clashing column(s).

    Examples
    --------
    >>> check_clash(["race"], ["n", "ofi"], "report")
    >>> check_clash(["ofi"], ["n", "ofi"], "report")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: attribute name(s) ['ofi'] clash with output ...
    >>> check_clash(["ofi"], ["n", "ofi"], "report", made_elsewhere=True)
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: attribute name(s) ['ofi'] clash with output \
column(s) of report; rename the table's column, for example table.rename({'ofi': 'ofi_attr'})
    """
    clash = [k for k in keys if k in set(outputs)]
    if clash and made_elsewhere:
        raise E.InvalidArgumentError(E.COLUMN_CLASH_TABLE.format(
            names=clash, analysis=analysis, example=clash[0],
            renamed=E.renamed(clash[0], taken={*keys, *outputs})))
    if clash:
        raise E.InvalidArgumentError(
            E.COLUMN_CLASH.format(names=clash, analysis=analysis, example=clash[0])
        )


def check_outputs(table: pl.LazyFrame, keys: Sequence[str], fn: Callable[..., pl.LazyFrame],
                  name: str, *, made_elsewhere: bool = False, **options: Any) -> None:
    """Raise when a key of ``table`` is named like a column that the analysis ``fn`` adds.

    The analysis' plan is built (not run) with the keys renamed to internal names (and a
    reference mapping renamed with them); the columns it outputs besides those are compared
    with the keys (:func:`check_clash`).

    Parameters
    ----------
    table : pl.LazyFrame
        The count or score table the analysis will read.
    keys : sequence of str
        Its key columns.
    fn : callable
        The analysis, ``fn(table, keys, **options) -> pl.LazyFrame``.
    name : str
        The analysis' name, for the message.
    made_elsewhere : bool, default False
        ``table`` was made elsewhere: the advice renames its column (:func:`check_clash`).
    **options : Any
        The analysis' options (a reference group among them, a mapping or a
        :class:`polars_fair.core.reference.Reference`, is renamed with the keys).

    Raises
    ------
    InvalidArgumentError
        A key named like an output column (the message names it); any error ``fn`` raises
        while its plan is built.

    Examples
    --------
    >>> from polars_fair.analyses.report import rates_from_counts
    >>> c = pl.LazyFrame({"tpr": ["a"], "n": [2], "tp": [1], "fp": [0], "fn": [1], "tn": [0]})
    >>> check_outputs(c, ["tpr"], rates_from_counts, "rates")
    Traceback (most recent call last):
    ...
    polars_fair.errors.InvalidArgumentError: attribute name(s) ['tpr'] clash with output ...
    """
    keys = list(keys)
    try:  # the outputs depend on the analysis, its options and the table's schema only
        memo = (fn, tuple(keys), tuple(table.collect_schema().items()), name, made_elsewhere,
                tuple(sorted(options.items())))
        hash(memo)
    except TypeError:  # an unhashable option (a mapping of reference values): not memoized
        memo = None
    if memo is not None and memo in _CHECKED:
        return
    _check_outputs(table, keys, fn, name, options, made_elsewhere)
    if memo is not None:
        if len(_CHECKED) >= 256:
            _CHECKED.clear()
        _CHECKED.add(memo)


#: The calls :func:`check_outputs` has passed (analysis, keys, schema, options).
_CHECKED: set[tuple[Any, ...]] = set()


def _check_outputs(table: pl.LazyFrame, keys: list[str], fn: Callable[..., pl.LazyFrame],
                   name: str, options: dict[str, Any], made_elsewhere: bool) -> None:
    names = [f"__pf_key{i}" for i in range(len(keys))]
    rename = dict(zip(keys, names, strict=True))
    opts = {k: (o.renamed(rename) if isinstance(o, Reference)
                else {rename.get(a, a): v for a, v in o.items()} if isinstance(o, Mapping) else o)
            for k, o in options.items()}
    try:
        out = fn(table.rename(rename), names, **opts).collect_schema().names()
    except E.PolarsFairError as exc:
        error: E.PolarsFairError | None = exc
    else:
        error = None
    if error is not None:
        # an error of the call itself (a bad option, an unknown reference attribute): raised
        # once, with the user's names, from the plan on the real keys (outside the handler, so
        # the traceback does not show it twice)
        fn(table, keys, **options).collect_schema()
        raise error
    check_clash(keys, [c for c in out if not any(c.startswith(n) for n in names)], name,
                made_elsewhere=made_elsewhere)


def on_small_table(
    lf: pl.LazyFrame, build: Callable[[pl.LazyFrame], pl.LazyFrame]
) -> pl.LazyFrame:
    """Run ``build`` on the collected (small) table, in memory, as one step of a lazy plan.

    The output schema is known without data: ``build`` is called once, on a stand-in frame
    with ``lf``'s schema that reads the collected table when the step runs (:class:`_Slot`),
    so the analysis' plan is built once per call and not again for every collect.

    Parameters
    ----------
    lf : pl.LazyFrame
        A small table (one row per group).
    build : callable
        ``build(lazy_table) -> pl.LazyFrame``, a plan over its argument (built once; it must
        not collect its argument while building).

    Returns
    -------
    pl.LazyFrame
        The output of ``build`` (its columns and dtypes), computed when collected.

    Examples
    --------
    >>> lf = pl.LazyFrame({"g": ["a", "b"], "n": [3, 5]})
    >>> on_small_table(lf, lambda t: t.select(pl.col("n").max())).collect().item()
    5
    """
    slot = _Slot(lf.collect_schema())
    plan = build(slot.frame)
    return lf.map_batches(lambda df: slot.run(plan, dense(df)), schema=plan.collect_schema())


class _Slot:
    """A stand-in for a small table: a lazy frame of a fixed schema whose rows are given later.

    A plan built once over :attr:`frame` runs on any table of that schema through :meth:`run`
    (one table at a time: a lock serialises runs of the same plan from several threads).
    """

    def __init__(self, schema: pl.Schema) -> None:
        self._lock = threading.Lock()
        self._table: pl.DataFrame | None = None
        # nothing is pushed into the stand-in: it ignores its (empty) input
        self.frame = pl.LazyFrame(schema=schema).map_batches(self._read, schema=schema)

    def _read(self, _: pl.DataFrame) -> pl.DataFrame:
        if self._table is None:  # pragma: no cover - only a plan collected outside run()
            raise RuntimeError("a plan over a _Slot was collected outside _Slot.run")
        return self._table

    def run(self, plan: pl.LazyFrame, table: pl.DataFrame) -> pl.DataFrame:
        """Collect ``plan`` (built over :attr:`frame`) on ``table``, in memory."""
        with self._lock:
            self._table = table
            try:
                return plan.collect(engine="in-memory")
            finally:
                self._table = None


def analyse(counted: Counted, build: Builder) -> pl.LazyFrame:
    """Run an analysis ``build(counts, keys)`` on a count table, per attribute set.

    With one attribute set this is :func:`on_small_table`. With several (``counted.sets``), the
    analysis runs on each set's rows with that set's keys (a reference group, a maximum rate, the
    pairs, are all taken within the set), and the results are stacked under an ``attributes``
    column with every key column (null outside the row's set), in the order of the sets.

    Parameters
    ----------
    counted : polars_fair.counting.tables.Counted
        The count table, its keys and attribute sets.
    build : callable
        The analysis, ``build(counts, keys) -> pl.LazyFrame``.

    Returns
    -------
    pl.LazyFrame
        One set: the output of ``build``. Several: ``attributes`` (List(String)), the key
        columns (and ``<key>_i``/``<key>_j`` of pairwise outputs) in the order of the keys,
        then the other output columns; each set's rows in the order ``build`` gives them.

    Examples
    --------
    >>> from polars_fair.analyses.report import rates_from_counts
    >>> from polars_fair.counting.tables import expand_sets
    >>> c = pl.LazyFrame({"a": ["x", "y"], "b": [0, 0], "n": [2, 3], "tp": [1, 1],
    ...                   "fp": [0, 1], "fn": [1, 0], "tn": [0, 1]})
    >>> out = analyse(expand_sets(c, ["a", "b"], [["a"], ["b"]]), rates_from_counts).collect()
    >>> out.select("attributes", "a", "b", "n", pl.col("tpr").round(3)).rows()
    [(['a'], 'x', None, 2, 0.5), (['a'], 'y', None, 3, 1.0), (['b'], None, 0, 5, 0.667)]
    """
    if counted.sets is None:
        keys = counted.keys
        return on_small_table(counted.frame, lambda lf: build(lf, keys))
    schema = counted.frame.collect_schema()
    all_keys = counted.keys
    cells = [c for c in schema.names() if c != "attributes" and c not in all_keys]

    def part_input(frame: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
        # the set by its list of names: joined as text, ["a,b"] and ["a", "b"] would be one set
        this = pl.lit(list(keys), dtype=pl.List(pl.String))
        return frame.filter(pl.col("attributes") == this).select(*keys, *cells)

    # Each set's output schema, known without data; their union is the result's schema. Key
    # columns (and pairwise's <key>_i / <key>_j) come first, in the order of the attributes.
    # each set's plan is built once, over a stand-in for the collected table (_Slot)
    slot = _Slot(schema)
    plans = [build(part_input(slot.frame, keys), keys) for keys in counted.sets]
    schemas = [plan.collect_schema() for plan in plans]
    dtypes: dict[str, pl.DataType] = {}
    for sch in schemas:
        for col, dtype in sch.items():
            dtypes.setdefault(col, dtype)
    key_like = [c for suffix in ("", "_i", "_j") for k in all_keys if (c := k + suffix) in dtypes]
    order = ["attributes", *key_like, *[c for c in dtypes if c not in key_like]]
    schema_out = pl.Schema(
        [("attributes", pl.List(pl.String()))] + [(c, dtypes[c]) for c in order[1:]]
    )

    def run(df: pl.DataFrame) -> pl.DataFrame:
        parts = []
        table = dense(df)
        for keys, plan in zip(counted.sets or [], plans, strict=True):
            part = slot.run(plan, table)
            parts.append(
                part.with_columns(
                    pl.lit(keys, dtype=pl.List(pl.String)).alias("attributes"),
                    *[pl.lit(None, dtype=schema_out[c]).alias(c) for c in order
                      if c != "attributes" and c not in part.columns],
                ).select(order)
            )
        return pl.concat(parts, how="vertical") if parts else pl.DataFrame(schema=schema_out)

    return counted.frame.map_batches(run, schema=schema_out)
