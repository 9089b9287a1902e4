"""DuckDB as an engine: audit a DuckDB relation in place; only the small label table leaves DuckDB.

What is DuckDB's own lives here, nothing else: the schema mapping (DuckDB types to Polars dtypes,
so that :func:`polars_fair.core.spec.resolve` checks a call before DuckDB runs), the one aggregation
into the label table of :mod:`polars_fair.counting.boundary` (built with the relational API,
``relation.aggregate(...)``, identifiers quoted, no user text in the SQL) and its hand-off to
Polars through Arrow. The checks, the count and score tables and every analysis are the same code
as for Polars, so the results and the errors (type and message) are those of ``df.fair``.

Use it through the common entry points, on any relation (a Parquet or CSV file, a table, a
query)::

    import duckdb, polars_fair
    rel = duckdb.read_parquet("hiring.parquet")
    polars_fair.counts(rel, ["race", "sex"]).report().collect()
    polars_fair.scores(rel, "race", y_score="y_score").abroca().collect()

Arguments name columns of the relation (``str``); an expression cannot run inside DuckDB, so a
``pl.Expr`` raises :class:`~polars_fair.errors.InvalidArgumentError` (add the expression to the
relation first: ``rel.select("*, age // 10 AS age_band")``). The aggregation runs when
:func:`polars_fair.counts` / :func:`polars_fair.scores` is called (like Spark's, once per call);
the analyses on the returned object read the fetched label table.

The keys of the result have the Polars dtype of :func:`polars_schema`: ``VARCHAR`` keys come
back as ``String`` (a Parquet file written from a Polars ``Enum`` column reads as ``VARCHAR``,
so the empty intersections that ``df.fair`` adds for Enum keys are absent), ``ENUM`` keys as
``pl.Enum`` with the declared values (DuckDB's Arrow export gives ``Categorical``; the label
table is cast back, so empty intersections are added as for Polars), ``HUGEINT``/``UHUGEINT`` as
``Int128``/``UInt128`` (sent as text: Arrow's ``decimal128`` wraps the largest ``UHUGEINT``).

Why the relational API and not narwhals: narwhals does express this aggregation on a DuckDB
relation (tried: the same groups and values, once its Boolean sums, which DuckDB returns as
``HUGEINT``, are cast back to Int64), but it would be a runtime dependency and a translation
layer for one ``GROUP BY`` of a dozen aggregates, and its schema drops what
:func:`~polars_fair.core.spec.resolve` needs from ours (the types of columns it cannot represent).
duckdb is imported lazily (``import polars_fair.duckdb`` works without it).

Requires ``pip install "polars_fair[duckdb]"`` (DuckDB 1.1 or later).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_fair import errors as E
from polars_fair._docs import borrow
from polars_fair.core.spec import Attributes, Audit, parse_by
from polars_fair.counting import boundary
from polars_fair.counting.engine import Engine
from polars_fair.counting.score_bounds import big_score_check

if TYPE_CHECKING:
    from duckdb import DuckDBPyRelation
    from duckdb.sqltypes import DuckDBPyType

__all__ = ["DuckDBEngine", "polars_schema", "quote"]

_V = "__pf_"
DUCKDB_MISSING = (
    "polars_fair.duckdb needs DuckDB; install the extra: pip install 'polars_fair[duckdb]'"
)
#: The message of a non-column argument (the engine runs the aggregation as SQL in DuckDB).
NOT_A_NAME = (
    "{role} must name a column of the DuckDB relation (str), got {value!r} ({type}); an "
    "expression cannot run inside DuckDB: add it to the relation first, for example "
    "rel.select('*, <expression> AS <name>'), and pass the name"
)
_ROLES = ("y_true", "y_pred", "y_score", "sample_weight")

_SIMPLE: dict[str, pl.DataType] = {
    "boolean": pl.Boolean(),
    "tinyint": pl.Int8(),
    "smallint": pl.Int16(),
    "integer": pl.Int32(),
    "bigint": pl.Int64(),
    "hugeint": pl.Int128(),
    "utinyint": pl.UInt8(),
    "usmallint": pl.UInt16(),
    "uinteger": pl.UInt32(),
    "ubigint": pl.UInt64(),
    "uhugeint": pl.UInt128(),
    "float": pl.Float32(),
    "double": pl.Float64(),
    "varchar": pl.String(),
    "uuid": pl.String(),
    "blob": pl.Binary(),
    "date": pl.Date(),
    "time": pl.Time(),
    "timestamp": pl.Datetime("us"),
    "timestamp_s": pl.Datetime("ms"),  # Arrow (and Polars) have no seconds unit
    "timestamp_ms": pl.Datetime("ms"),
    "timestamp_ns": pl.Datetime("ns"),
    "timestamp with time zone": pl.Datetime("us", "UTC"),
    "null": pl.Null(),
}
#: Types sent as text: Arrow's decimal128 wraps the largest UHUGEINT.
_VIA_TEXT = ("hugeint", "uhugeint")
#: Types with parameters (``DuckDBPyType.children``).
_NESTED = ("decimal", "enum", "list", "array", "struct", "map")


def _require_duckdb() -> None:
    try:
        import duckdb  # noqa: F401
    except ImportError as exc:  # pragma: no cover - exercised only without duckdb
        raise ImportError(DUCKDB_MISSING) from exc


def _polars_dtype(t: DuckDBPyType) -> pl.DataType:
    """One DuckDB type as the Polars dtype the label table holds (see :func:`polars_schema`)."""
    kind = t.id
    if kind in _SIMPLE:
        return _SIMPLE[kind]
    children: dict[str, Any] = dict(t.children) if kind in _NESTED else {}
    if kind == "decimal":
        return pl.Decimal(int(children["precision"]), int(children["scale"]))
    if kind == "enum":
        return pl.Enum(list(children["values"]))
    if kind == "list":
        return pl.List(_polars_dtype(children["child"]))
    if kind == "array":
        return pl.Array(_polars_dtype(children["child"]), int(children["size"]))
    if kind == "struct":
        return pl.Struct({name: _polars_dtype(child) for name, child in children.items()})
    if kind == "map":
        return pl.List(pl.Struct({"key": _polars_dtype(children["key"]),
                                  "value": _polars_dtype(children["value"])}))
    return pl.String()  # INTERVAL, BIT, TIME WITH TIME ZONE, UNION, ...: their text


def _as_text(t: DuckDBPyType) -> bool:
    """Whether a column's values travel as VARCHAR (types Arrow or Polars cannot take as is)."""
    return t.id in _VIA_TEXT or (t.id not in _SIMPLE and t.id not in _NESTED)


@borrow(Engine.schema, sections=("Returns",))
def polars_schema(relation: DuckDBPyRelation) -> pl.Schema:
    """The Polars schema of a DuckDB relation's columns, as they come back in a label table.

    Reads the relation's bound types only (no query runs). Used to resolve and check a call
    with :func:`polars_fair.core.spec.resolve` before DuckDB runs, so that schema errors (a missing
    column, a ``pos_label`` of the wrong type, a non-numeric weight) read exactly as for a
    Polars frame.

    ===================================== ===============================================
    DuckDB type                           Polars dtype
    ===================================== ===============================================
    BOOLEAN                               Boolean
    TINYINT, SMALLINT, INTEGER, BIGINT    Int8, Int16, Int32, Int64
    HUGEINT                               Int128
    UTINYINT ... UBIGINT, UHUGEINT        UInt8 ... UInt64, UInt128
    FLOAT, DOUBLE                         Float32, Float64
    DECIMAL(p, s)                         Decimal(p, s)
    VARCHAR (and JSON), UUID              String
    ENUM(values)                          Enum(values)
    BLOB                                  Binary
    DATE, TIME                            Date, Time
    TIMESTAMP, TIMESTAMP_S/_MS/_NS        Datetime("us"), Datetime("ms"), ..., Datetime("ns")
    TIMESTAMP WITH TIME ZONE              Datetime("us", "UTC")
    LIST, ARRAY, STRUCT, MAP              List, Array, Struct, List(Struct(key, value))
    other (INTERVAL, BIT, UNION, ...)     String (their text)
    ===================================== ===============================================

    Parameters
    ----------
    relation : duckdb.DuckDBPyRelation

    Examples
    --------
    >>> import duckdb
    >>> from polars_fair.counting._duckdb import polars_schema
    >>> polars_schema(duckdb.sql("SELECT 1::TINYINT AS y, 'a'::ENUM('a', 'b') AS g"))
    Schema([('y', Int8), ('g', Enum(categories=['a', 'b']))])
    """
    dtypes = [_polars_dtype(t) for t in relation.types]
    return pl.Schema(dict(zip(relation.columns, dtypes, strict=True)))


def quote(name: str) -> str:
    """A DuckDB identifier for the column ``name``: in double quotes, inner quotes doubled.

    Parameters
    ----------
    name : str
        A column name, as the relation spells it.

    Returns
    -------
    str
        The quoted identifier (DuckDB resolves it to the column whatever its characters).

    Examples
    --------
    >>> quote('my "odd" name')
    '"my ""odd"" name"'
    """
    return '"' + name.replace('"', '""') + '"'


def _double(value: float) -> str:
    """A finite float as a DuckDB DOUBLE literal (parsed from its shortest repr: exact)."""
    assert math.isfinite(value)
    return f"CAST('{value!r}' AS DOUBLE)"


def _count_if(cond: str) -> str:
    return f"CAST(count_if({cond}) AS BIGINT)"


def _name(x: Any, role: str) -> str:
    if isinstance(x, str):
        return x
    raise E.InvalidArgumentError(NOT_A_NAME.format(role=role, value=x, type=type(x).__name__))


@dataclass(frozen=True)
class DuckDBEngine:
    """A DuckDB relation as an engine (:class:`polars_fair.counting.tables.Engine`).

    Parameters
    ----------
    relation : duckdb.DuckDBPyRelation
        The rows (a file, a table, a query); they stay in DuckDB.

    Examples
    --------
    >>> import duckdb
    >>> from polars_fair.counting._duckdb import DuckDBEngine
    >>> DuckDBEngine(duckdb.sql("SELECT 1 AS y_true")).schema()
    Schema([('y_true', Int32)])
    """

    relation: DuckDBPyRelation = field(repr=False)

    def __repr__(self) -> str:
        """The columns only: a relation's own repr runs its query."""
        return f"DuckDBEngine(columns={self.relation.columns})"

    def __post_init__(self) -> None:
        """Fail early, with the install hint, when duckdb is missing."""
        _require_duckdb()

    @borrow(polars_schema, sections=("Returns",))
    def schema(self) -> pl.Schema:
        """The relation's columns as Polars dtypes (:func:`polars_schema`).

        Examples
        --------
        >>> import duckdb
        >>> DuckDBEngine(duckdb.sql("SELECT 'a' AS g, 1.5::FLOAT AS s")).schema()
        Schema([('g', String), ('s', Float32)])
        """
        return polars_schema(self.relation)

    def bind(self, by: Any, args: dict[str, Any],
             ) -> tuple[DuckDBEngine, Attributes, dict[str, Any]]:
        """Check that ``by`` and the column arguments name columns (``str``).

        Parameters
        ----------
        by : Attributes, or str, list of str or None
            The attributes (:func:`polars_fair.core.spec.parse_by`; a raw ``by`` is parsed).
        args : dict
            The count or score arguments; ``y_true``, ``y_pred``, ``y_score`` and
            ``sample_weight`` must be column names or ``None``.

        Returns
        -------
        tuple[DuckDBEngine, Attributes, dict]
            This engine, the attributes (their names) and the arguments unchanged.

        Raises
        ------
        InvalidArgumentError
            A ``pl.Expr``, a number or any other object in place of a column name
            (:data:`NOT_A_NAME`).

        Examples
        --------
        >>> import duckdb
        >>> engine = DuckDBEngine(duckdb.sql("SELECT 'a' AS g, 1 AS y_true"))
        >>> engine.bind("g", {"y_true": "y_true"})[1].names
        ['g']
        """
        attrs = parse_by(by)
        names = [_name(b, "by") for b in attrs.items]
        for role in _ROLES:
            if args.get(role) is not None:
                _name(args[role], role)
        return self, attrs.bound(names), args

    def _types(self) -> dict[str, DuckDBPyType]:
        return dict(zip(self.relation.columns, self.relation.types, strict=True))

    def _column(self, name: str) -> str:
        """A selected column: the quoted name, as text for the types sent as text."""
        t = self._types()[name]
        return f"CAST({quote(name)} AS VARCHAR)" if _as_text(t) else quote(name)

    def _weight_aggs(self, a: Audit) -> list[str]:
        if a.weight_name is None:
            return []
        w = f"CAST({quote(a.weight_name)} AS DOUBLE)"
        return [
            f"CAST(coalesce(sum({w}), 0.0) AS DOUBLE) AS weight_sum",
            f"{_count_if(f'{w} IS NULL')} AS {_V}w_null",
            f"{_count_if(f'isnan({w}) OR isinf({w})')} AS {_V}w_nan",
            f"{_count_if(f'{w} < 0.0')} AS {_V}w_neg",
            f"{_count_if(f'{w} > 0.0')} AS {_V}w_pos",
        ]

    def _big_scores(self, a: Audit) -> list[str]:
        """The count of scores a float cannot hold (:func:`.score_bounds.big_score_check`)."""
        check = big_score_check(a)
        if check is None:
            return []
        s, bound = quote(check.name), check.bound
        if check.kind == "digits":  # the significant digits of its plain text
            digits = f"length(trim(regexp_replace(CAST({s} AS VARCHAR), '[-+.]', '', 'g'), '0'))"
            return [f"{_count_if(f'{digits} > {bound}')} AS {_V}s_big"]
        return [f"{_count_if(f'NOT ({s} BETWEEN -{bound} AND {bound})')} AS {_V}s_big"]

    def _group(self, column: str, name: str) -> _Group:
        """Group by a column of the relation; the output takes its dtype in the schema."""
        return _Group(quote(column), self._column(column), name, column)

    def _fetch(self, groups: list[_Group], aggs: list[str]) -> pl.LazyFrame:
        """Run ``SELECT groups..., aggs... GROUP BY groups`` and hand the result to Polars.

        The groups are selected under positional names (DuckDB matches names
        case-insensitively, so a key ``"N"`` would clash with ``n``) and renamed in Polars, where
        a column of the relation is cast to its dtype in :func:`polars_schema`.
        """
        named = [(g, f"{_V}g{i}") for i, g in enumerate(groups)]
        select = ", ".join([*(f"{g.select} AS {out}" for g, out in named), *aggs])
        df = self.relation.aggregate(select, ", ".join(g.expr for g in groups)).pl()
        assert isinstance(df, pl.DataFrame)
        schema = self.schema()
        casts = [pl.col(g.name).cast(schema[g.source]) for g, out in named
                 if g.source is not None and df.schema[out] != schema[g.source]]
        return df.rename({out: g.name for g, out in named}).with_columns(casts).lazy()

    def _keys(self, a: Audit) -> list[_Group]:
        return [self._group(k, k) for k in a.keys]

    def _labels(self, a: Audit) -> list[_Group]:
        return [self._group(a.y_true_name, boundary.Y)] if a.y_true_name is not None else []

    @borrow(Engine.label_table, params=("a",), sections=("Returns",))
    def label_table(self, a: Audit) -> pl.LazyFrame:
        """One DuckDB ``GROUP BY`` over keys, label and prediction, back through Arrow.

        A thresholded score becomes ``CAST(score AS DOUBLE) >= threshold`` (the threshold is
        already rounded to the score's dtype), with the counts of null, NaN and infinite scores.

        Examples
        --------
        >>> import duckdb
        >>> from polars_fair.core.spec import resolve
        >>> engine = DuckDBEngine(duckdb.sql("SELECT * FROM (VALUES ('a', 1, 1), ('a', 1, 1), "
        ...                                  "('b', 0, 1)) t(g, y_true, y_pred)"))
        >>> engine.label_table(resolve(engine.schema(), "g")).collect().sort("g").rows()
        [('a', 1, 1, 2), ('b', 0, 1, 1)]
        """
        checks: list[str] = []
        if a.score_name is not None:
            assert a.threshold is not None
            s = f"CAST({quote(a.score_name)} AS DOUBLE)"
            p = f"({s} >= {_double(a.threshold)})"
            pred = _Group(p, p, boundary.P, None)
            checks = [f"{_count_if(f'{s} IS NULL')} AS {_V}s_null",
                      f"{_count_if(f'isnan({s})')} AS {_V}s_nan",
                      f"{_count_if(f'isinf({s})')} AS {_V}s_inf", *self._big_scores(a)]
        else:
            assert a.y_pred_name is not None
            pred = self._group(a.y_pred_name, boundary.P)
        aggs = ["CAST(count(*) AS BIGINT) AS n", *self._weight_aggs(a), *checks]
        return self._fetch([*self._keys(a), *self._labels(a), pred], aggs)

    @borrow(Engine.score_label_table, params=("a",), sections=("Returns",))
    def score_label_table(self, a: Audit) -> pl.LazyFrame:
        """One DuckDB ``GROUP BY`` over keys, score (as DOUBLE) and label.

        Examples
        --------
        >>> import duckdb
        >>> from polars_fair.core.spec import resolve
        >>> engine = DuckDBEngine(duckdb.sql(
        ...     "SELECT * FROM (VALUES (0.5, 1), (0.5, 1), (0.25, 0)) t(y_score, y_true)"))
        >>> a = resolve(engine.schema(), None, y_score="y_score", scores=True)
        >>> engine.score_label_table(a).collect().sort("score").rows()
        [(0.25, 0, 1), (0.5, 1, 2)]
        """
        assert a.score_name is not None
        s = f"CAST({quote(a.score_name)} AS DOUBLE)"
        score = _Group(s, s, "score", None)
        aggs = ["CAST(count(*) AS BIGINT) AS n", *self._weight_aggs(a), *self._big_scores(a)]
        return self._fetch([*self._keys(a), score, *self._labels(a)], aggs)


@dataclass(frozen=True)
class _Group:
    """One group-by column of a label table.

    The expression grouped by, the expression selected (the same, or its text), the
    label-table name and the relation's column whose dtype it takes.
    """

    expr: str
    select: str
    name: str
    source: str | None
