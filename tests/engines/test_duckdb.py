"""polars_fair on DuckDB relations: results and errors equal the Polars path's.

The expected values come from the Polars path (``df.fair``) on the same rows, read from the same
file by Polars; the other test modules check that path against hand computations, numpy and the
oracles. Here the claim under test is that DuckDB's one aggregation is the same count stage.

Key dtypes, handled explicitly: a Parquet file written from a Polars ``Enum`` column reads back
in Polars as ``Enum`` but in DuckDB as ``VARCHAR`` (so ``String`` keys): the Polars reference
casts those columns to ``String`` (and then, like DuckDB, adds no empty Enum intersections). A
DuckDB ``ENUM`` column gives ``pl.Enum`` keys and equals the Polars ``Enum`` frame, empty
intersections included.
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_fair
from polars_fair import errors as E
from polars_fair.datasets import RACES, make_hiring
from tests.conftest import one_row_groups

duckdb = pytest.importorskip("duckdb")

from polars_fair.counting._duckdb import NOT_A_NAME, DuckDBEngine, polars_schema  # noqa: E402
from polars_fair.counting.tables import engine_of  # noqa: E402

#: Options of the analyses that need them to be quick or deterministic.
OPTIONS: dict[str, dict[str, Any]] = {
    "abroca_test": {"n_permutations": 50, "seed": 0}, "stratified": {"strata": "sex"},
    "availability": {"benchmark": {"race": {"White": 0.6, "Black": 0.15, "Hispanic": 0.15,
                                            "Asian": 0.08, "Pacific Islander": 0.02},
                                   "sex": {"Female": 0.5, "Male": 0.5}}}}
COUNT_ANALYSES = [n for n, _ in inspect.getmembers(polars_fair.FairCounts, inspect.isfunction)
                  if not n.startswith("_")]
SCORE_ANALYSES = [n for n, _ in inspect.getmembers(polars_fair.FairScores, inspect.isfunction)
                  if not n.startswith("_")]


@pytest.fixture(scope="module")
def con() -> Iterator[Any]:
    connection = duckdb.connect()
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def hiring() -> pl.DataFrame:
    """make_hiring(5_000) with a weight column and a Float32 copy of the score."""
    return make_hiring(5_000, seed=0).with_columns(
        w=((pl.col("applicant_id") % 7) + 1) * 0.5,
        s32=pl.col("y_score").cast(pl.Float32),
    )


@pytest.fixture(scope="module", params=["parquet", "csv"])
def files(request: pytest.FixtureRequest, hiring: pl.DataFrame, con: Any,
          tmp_path_factory: pytest.TempPathFactory) -> tuple[pl.DataFrame, Any]:
    """(the Polars frame read from the file, the DuckDB relation over the same file)."""
    path = tmp_path_factory.mktemp("hiring") / f"hiring.{request.param}"
    if request.param == "parquet":
        hiring.write_parquet(path)
        # Polars reads its Enum columns back as Enum, DuckDB as VARCHAR: compare as String
        df = pl.read_parquet(path).with_columns(pl.col(pl.Enum).cast(pl.String))
        rel = con.read_parquet(str(path))
    else:
        hiring.write_csv(path)
        df = pl.read_csv(path)
        rel = con.read_csv(str(path))
    assert polars_schema(rel) == df.schema, (polars_schema(rel), df.schema)
    return df, rel


def outcome(fn: Callable[[], pl.DataFrame]) -> tuple[str, Any]:
    """A result, or the error's class and message (so errors can be compared too)."""
    try:
        return "ok", fn()
    except E.PolarsFairError as exc:
        return type(exc).__name__, str(exc)


def assert_same(got: tuple[str, Any], want: tuple[str, Any]) -> None:
    assert got[0] == want[0], (got, want)
    if got[0] == "ok":
        assert_frame_equal(got[1], want[1])
    elif "; map one onto the other" in want[1]:  # E.NEGATIVES_DIFFER: the facts are Polars',
        # the advice the relation's SQL (E.RELATION_NEGATIVES_ADVICE), not pl.col (ce9b57c)
        facts, _, advice = got[1].partition("; map one onto the other")
        assert facts == want[1].partition("; map one onto the other")[0]
        assert advice.startswith(" in the relation first, for example with SQL CASE WHEN")
    else:
        assert got[1] == want[1]


def uniform_benchmark(df: pl.DataFrame, attributes: list[str]) -> dict[str, dict[Any, float]]:
    """Equal benchmark shares over the values each attribute has in ``df``."""
    values = {a: df[a].unique().sort().to_list() for a in attributes}
    return {a: {v: 1 / len(vs) for v in vs} for a, vs in values.items()}


def run_analysis(obj: Any, name: str, **options: Any) -> pl.DataFrame:
    out = getattr(obj, name)(**{**OPTIONS.get(name, {}), **options}).collect()
    assert isinstance(out, pl.DataFrame)
    return out


def test_engine_of_dispatches_the_installed_relation_type(con: Any) -> None:
    rel = con.sql("SELECT 1 AS y_true")
    assert type(rel).__module__.split(".")[0] in ("duckdb", "_duckdb")
    assert isinstance(engine_of(rel), DuckDBEngine)
    assert "DuckDBEngine(columns=['y_true'])" == repr(engine_of(rel))


@pytest.mark.parametrize("name", COUNT_ANALYSES)
@pytest.mark.parametrize("by", [["race", "sex"], "age_band", None])
def test_every_count_analysis_equals_polars(files: tuple[pl.DataFrame, Any], name: str,
                                            by: Any) -> None:
    """The result, or the same error (an analysis that needs attributes, with ``by=None``)."""
    df, rel = files
    # stratified: the last attribute is the stratum (one attribute: no group left, the same
    # NO_GROUPS error on both engines; it was an empty table); availability: a uniform
    # benchmark over each attribute's values
    attrs = [by] if isinstance(by, str) else by or ["sex"]
    extra: dict[str, Any] = {"strata": attrs[-1]} if name == "stratified" else {}
    if name == "availability":
        extra = {"benchmark": uniform_benchmark(df, attrs)}
    want = outcome(lambda: run_analysis(df.fair.counts(by), name, **extra))
    no_group = name == "stratified" and len(attrs) == 1
    assert want[0] == ("InvalidArgumentError" if no_group else "ok") or by is None, want
    assert_same(outcome(lambda: run_analysis(polars_fair.counts(rel, by), name, **extra)), want)


@pytest.mark.parametrize("name", SCORE_ANALYSES)
@pytest.mark.parametrize("by", ["race", ["sex", "age_band"]])
def test_every_score_analysis_equals_polars(files: tuple[pl.DataFrame, Any], name: str,
                                            by: Any) -> None:
    df, rel = files
    want = run_analysis(df.fair.score_counts(by), name)
    assert want.height > 0
    assert_frame_equal(run_analysis(polars_fair.scores(rel, by), name), want)


def test_score_tables_equal_polars(files: tuple[pl.DataFrame, Any]) -> None:
    df, rel = files
    assert_frame_equal(polars_fair.scores(rel, ["race", "sex"]).frame.collect(),
                       df.fair.scores(["race", "sex"]))


@pytest.mark.parametrize("name", ["confusion", "report", "metrics", "summary"])
def test_weighted_counts_equal_polars(files: tuple[pl.DataFrame, Any], name: str) -> None:
    df, rel = files
    kw: dict[str, Any] = {"sample_weight": "w"}
    got = run_analysis(polars_fair.counts(rel, ["race", "sex"], **kw), name)
    want = run_analysis(df.fair.counts(["race", "sex"], **kw), name)
    assert_frame_equal(got, want)
    if name == "confusion":
        assert got.schema["tp"] == pl.Float64 and "weight_sum" in got.columns


@pytest.mark.parametrize("name", SCORE_ANALYSES)
def test_weighted_scores_equal_polars(files: tuple[pl.DataFrame, Any], name: str) -> None:
    """Every weighted score analysis, or its error (the permutation test refuses weights)."""
    df, rel = files
    got = outcome(lambda: run_analysis(polars_fair.scores(rel, "sex", sample_weight="w"), name))
    want = outcome(lambda: run_analysis(df.fair.score_counts("sex", sample_weight="w"), name))
    assert_same(got, want)
    assert (want[0] == "WeightedTestError") == (name == "abroca_test")


@pytest.mark.parametrize("score", ["y_score", "s32"])
@pytest.mark.parametrize("threshold", [0.5, 0.7, 0.61950886])
def test_thresholded_scores_equal_polars(files: tuple[pl.DataFrame, Any], score: str,
                                         threshold: float) -> None:
    """The threshold is compared in the score's dtype (Float32 in the Parquet file)."""
    df, rel = files
    kw: dict[str, Any] = {"y_score": score, "threshold": threshold}
    got = polars_fair.counts(rel, ["race", "sex"], **kw).confusion().collect()
    assert_frame_equal(got, df.fair.confusion(["race", "sex"], **kw))
    assert_frame_equal(polars_fair.counts(rel, "race", sample_weight="w", **kw).report().collect(),
                       df.fair.report("race", sample_weight="w", **kw))


def test_without_labels_equals_polars(files: tuple[pl.DataFrame, Any]) -> None:
    """``y_true=None``: predictions (fp = selected) and scores (all positives) only."""
    df, rel = files
    got = polars_fair.counts(rel, "race", y_true=None).confusion().collect()
    want = df.fair.confusion("race", y_true=None)
    assert_frame_equal(got, want)
    assert got["tp"].sum() == 0 and got["fp"].sum() == df["y_pred"].sum()
    assert_frame_equal(polars_fair.scores(rel, "race", y_true=None).frame.collect(),
                       df.fair.scores("race", y_true=None))
    assert_frame_equal(
        polars_fair.counts(rel, "sex", y_true=None, y_score="y_score", threshold=0.5)
        .rates().collect(),
        df.fair.rates("sex", y_true=None, y_score="y_score", threshold=0.5))


def test_combinations_equal_polars(files: tuple[pl.DataFrame, Any]) -> None:
    df, rel = files
    kw: dict[str, Any] = {"combinations": "all", "max_order": 2}
    by = ["race", "sex", "age_band"]
    assert_frame_equal(polars_fair.counts(rel, by, **kw).report().collect(),
                       df.fair.report(by, **kw))


def test_enum_keys_come_back_as_enum_with_empty_intersections(hiring: pl.DataFrame,
                                                              con: Any) -> None:
    """DuckDB ENUM columns equal the Polars Enum frame: the 2 empty intersections included."""
    enum = ", ".join(f"'{r}'" for r in RACES)
    rel = con.from_arrow(hiring.to_arrow()).select(
        f"* REPLACE (race::ENUM({enum}) AS race, sex::ENUM('Female', 'Male') AS sex, "
        "age_band::ENUM('<25', '25-45', '>45') AS age_band)")
    by = ["race", "sex", "age_band"]
    got = polars_fair.counts(rel, by).confusion().collect()
    want = hiring.fair.confusion(by)
    assert_frame_equal(got, want)
    assert got.height == 5 * 2 * 3 and got.filter(pl.col("n") == 0).height == 2
    assert_frame_equal(polars_fair.counts(rel, by).report().collect(), hiring.fair.report(by))


def test_only_the_label_table_leaves_duckdb(hiring: pl.DataFrame, con: Any) -> None:
    """One row per (group, label, prediction): at most 4 per group, whatever the row count."""
    rel = con.from_arrow(hiring.to_arrow())
    engine = DuckDBEngine(rel)
    _, by, args = engine.bind(["race", "sex"], dict(polars_fair.core.spec.COUNT_ARGS))
    args = {k: v for k, v in args.items() if k not in (
        "combinations", "max_order", *polars_fair.core.spec.MEMBERSHIP_ARGS)}
    audit = polars_fair.core.spec.resolve(engine.schema(), by, **args)
    labels = engine.label_table(audit).collect()
    assert labels.columns == ["race", "sex", "__pf_y", "__pf_p", "n"]
    assert labels.schema["n"] == pl.Int64
    assert labels.height <= 4 * 10 and labels["n"].sum() == hiring.height


# ------------------------------------------------------------------------------ real data
@pytest.mark.data
def test_compas_equals_polars(compas: pl.DataFrame, con: Any, tmp_path: Path) -> None:
    path = tmp_path / "compas.parquet"
    compas.write_parquet(path)
    rel = con.read_parquet(str(path))
    by = ["race", "sex"]
    kw: dict[str, Any] = {"reference": {"race": "Caucasian", "sex": "Male"}}
    assert_frame_equal(polars_fair.counts(rel, by, pos_label=0).report(**kw).collect(),
                       compas.fair.report(by, pos_label=0, **kw))
    for name in COUNT_ANALYSES:
        extra = {"benchmark": uniform_benchmark(compas, by)} if name == "availability" else {}
        assert_frame_equal(run_analysis(polars_fair.counts(rel, by), name, **extra),
                           run_analysis(compas.fair.counts(by), name, **extra))
    # a probability for calibration: the decile score / 10, divided in each engine
    scored = compas.with_columns(p=pl.col("decile_score") / 10)
    rel_p = rel.select("*, decile_score / 10 AS p")
    sk: dict[str, Any] = {"y_true": "two_year_recid", "y_score": "p"}
    for name in SCORE_ANALYSES:
        assert_frame_equal(run_analysis(polars_fair.scores(rel_p, "race", **sk), name),
                           run_analysis(scored.fair.score_counts("race", **sk), name))
    got = polars_fair.counts(rel, "race", y_score="decile_score", threshold=5).rates().collect()
    assert_frame_equal(got, compas.fair.rates("race", y_score="decile_score", threshold=5))
    # ProPublica's FPR gap, as printed in the README (independent of the Polars path)
    fpr = dict(polars_fair.counts(rel, "race").rates().collect().select("race", "fpr").rows())
    assert fpr["African-American"] == pytest.approx(0.4234, abs=5e-5)
    assert fpr["Caucasian"] == pytest.approx(0.2201, abs=5e-5)


# ------------------------------------------------------------------------------ arguments
@pytest.mark.parametrize(("role", "value"), [
    ("by", pl.col("race").alias("group")),
    ("by", 3.5),
    ("y_true", pl.col("y_true") == 1),
    ("y_pred", 1),
    ("sample_weight", pl.lit(1.0)),
])
def test_only_column_names_bind(role: str, value: Any, hiring: pl.DataFrame, con: Any) -> None:
    rel = con.from_arrow(hiring.to_arrow())
    kw: dict[str, Any] = {"by": ["sex", value]} if role == "by" else {"by": "sex", role: value}
    with pytest.raises(E.InvalidArgumentError) as info:
        polars_fair.counts(rel, **kw)
    assert str(info.value) == NOT_A_NAME.format(role=role, value=value, type=type(value).__name__)


def test_odd_column_names_are_quoted(con: Any) -> None:
    """Quotes, dots, spaces, SQL and a key that differs from ``n`` only in case."""
    df = pl.DataFrame({
        'we"ird': ["a", "b", "a", "b"], "a.b; DROP TABLE x": [1, 1, 2, 2],
        "N": ["x", "x", "y", "y"], "true label": [1, 0, 1, 1], "p'red": [1, 1, 0, 1],
        "weight sum": [1.0, 2.0, 0.5, 1.0], "sc ore": [0.1, 0.9, 0.4, 0.6],
    })
    rel = con.from_arrow(df.to_arrow())
    by = ['we"ird', "a.b; DROP TABLE x", "N"]
    kw: dict[str, Any] = {"y_true": "true label", "y_pred": "p'red", "sample_weight": "weight sum"}
    assert_frame_equal(polars_fair.counts(rel, by, **kw).confusion().collect(),
                       df.fair.confusion(by, **kw))
    kw = {"y_true": "true label", "y_score": "sc ore", "threshold": 0.5}
    assert_frame_equal(polars_fair.counts(rel, by, **kw).confusion().collect(),
                       df.fair.confusion(by, **kw))
    assert_frame_equal(polars_fair.scores(rel, "N", y_true="true label", y_score="sc ore")
                       .frame.collect(),
                       df.fair.scores("N", y_true="true label", y_score="sc ore"))


# ------------------------------------------------------------------------------ types
def test_polars_schema_maps_every_duckdb_type(con: Any) -> None:
    rel = con.sql("""SELECT true AS bo, 1::TINYINT AS i8, 1::SMALLINT AS i16, 1::INTEGER AS i32,
        1::BIGINT AS i64, 1::HUGEINT AS i128, 1::UTINYINT AS u8, 1::USMALLINT AS u16,
        1::UINTEGER AS u32, 1::UBIGINT AS u64, 1::UHUGEINT AS u128, 1::FLOAT AS f32,
        1::DOUBLE AS f64, 1.5::DECIMAL(5, 2) AS dec, 'x' AS s, 'x'::BLOB AS bl,
        DATE '2020-01-01' AS dt, TIME '10:00' AS tm, TIMESTAMP '2020-01-01' AS ts,
        TIMESTAMP_S '2020-01-01' AS ts_s, TIMESTAMP_MS '2020-01-01' AS ts_ms,
        TIMESTAMP_NS '2020-01-01' AS ts_ns, TIMESTAMPTZ '2020-01-01 00:00:00+00' AS tz,
        'a'::ENUM('a', 'b') AS e, [1, 2] AS l, [1, 2]::INTEGER[2] AS arr, {'k': 1} AS st,
        INTERVAL 1 DAY AS iv""")
    assert polars_schema(rel) == pl.Schema({
        "bo": pl.Boolean, "i8": pl.Int8, "i16": pl.Int16, "i32": pl.Int32, "i64": pl.Int64,
        "i128": pl.Int128, "u8": pl.UInt8, "u16": pl.UInt16, "u32": pl.UInt32,
        "u64": pl.UInt64, "u128": pl.UInt128, "f32": pl.Float32, "f64": pl.Float64,
        "dec": pl.Decimal(5, 2), "s": pl.String, "bl": pl.Binary, "dt": pl.Date, "tm": pl.Time,
        "ts": pl.Datetime("us"), "ts_s": pl.Datetime("ms"), "ts_ms": pl.Datetime("ms"),
        "ts_ns": pl.Datetime("ns"), "tz": pl.Datetime("us", "UTC"), "e": pl.Enum(["a", "b"]),
        "l": pl.List(pl.Int32), "arr": pl.Array(pl.Int32, 2), "st": pl.Struct({"k": pl.Int32}),
        "iv": pl.String,
    })


UTC = dt.timezone.utc
#: SQL type -> (two values as SQL text, the same values in Polars).
KEY_TYPES: dict[str, tuple[tuple[str, str], pl.Series]] = {
    "HUGEINT": (("-170141183460469231731687303715884105728", "7"),
                pl.Series([-(2**127), 7], dtype=pl.Int128)),
    "UHUGEINT": (("340282366920938463463374607431768211455", "7"),
                 pl.Series([2**128 - 1, 7], dtype=pl.UInt128)),
    "DECIMAL(18, 3)": (("1.250", "-3.5"),
                       pl.Series([Decimal("1.250"), Decimal("-3.500")], dtype=pl.Decimal(18, 3))),
    "TIMESTAMPTZ": (("2020-01-01 00:00:00+00", "2021-06-01 12:00:00+00"),
                    pl.Series([dt.datetime(2020, 1, 1, tzinfo=UTC),
                               dt.datetime(2021, 6, 1, 12, tzinfo=UTC)],
                              dtype=pl.Datetime("us", "UTC"))),
    "TIMESTAMP_S": (("2020-01-01 00:00:01", "2021-06-01 12:00:00"),
                    pl.Series([dt.datetime(2020, 1, 1, 0, 0, 1), dt.datetime(2021, 6, 1, 12)],
                              dtype=pl.Datetime("ms"))),
    "DATE": (("2020-01-01", "2021-06-01"), pl.Series([dt.date(2020, 1, 1), dt.date(2021, 6, 1)])),
    "BOOLEAN": (("true", "false"), pl.Series([True, False])),
    "INTERVAL": (("1 day", "2 hours"), pl.Series(["1 day", "02:00:00"])),
    "UTINYINT": (("255", "0"), pl.Series([255, 0], dtype=pl.UInt8)),
}


@pytest.mark.parametrize("sql_type", list(KEY_TYPES))
def test_keys_of_every_type_come_back_in_their_dtype(con: Any, sql_type: str) -> None:
    """Two groups of each key type give the count table of the same values in Polars (the
    largest UHUGEINT included, which Arrow's decimal128 would wrap to -1)."""
    (v0, v1), values = KEY_TYPES[sql_type]
    rel = con.sql(f"""SELECT k::{sql_type} AS k, y_true, y_pred FROM (VALUES
        ('{v0}', 1, 1), ('{v0}', 0, 1), ('{v1}', 1, 0)) t(k, y_true, y_pred)""")
    assert polars_schema(rel)["k"] == values.dtype
    want = pl.DataFrame({"k": values.gather([0, 0, 1]), "y_true": [1, 0, 1],
                         "y_pred": [1, 1, 0]}, schema_overrides={"y_true": pl.Int32,
                                                                 "y_pred": pl.Int32})
    assert_frame_equal(polars_fair.counts(rel, "k").confusion().collect(),
                       want.fair.confusion("k"))


# ------------------------------------------------------------------------------ same errors
@st.composite
def frames(draw: st.DrawFn) -> pl.DataFrame:
    n = draw(st.integers(0, 40))

    def col(values: list[Any]) -> list[Any]:
        return draw(st.lists(st.sampled_from(values), min_size=n, max_size=n))

    df = pl.DataFrame({
        "a": col(["x", "y", None]), "b": col([0, 1, 2]), "y_true": col([0, 1, 1, None, 2]),
        "y_pred": col([0, 1]), "w": col([0.5, 1.0, 2.0, -1.0, None]),
        "s": col([0.1, 0.5, 0.7, 0.9, float("nan")]),
    }, schema={"a": pl.String, "b": pl.Int64, "y_true": pl.Int64, "y_pred": pl.Int64,
               "w": pl.Float64, "s": pl.Float64})
    assume(not one_row_groups(df, "a", "b"))  # refused at any size (issue 20)
    return df


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(frames(), st.booleans(), st.sampled_from(["keep", "raise", "drop"]),
       st.sampled_from(["confusion", "report", "scores", "threshold"]))
def test_duckdb_gives_the_polars_result_or_the_polars_error(
    con: Any, df: pl.DataFrame, weighted: bool, null_groups: str, what: str
) -> None:
    assume(null_groups != "drop" or df["a"].null_count() == 0)  # the drop warning: see below
    rel = con.from_arrow(df.to_arrow())
    kw: dict[str, Any] = {"null_groups": null_groups}
    if weighted:
        kw["sample_weight"] = "w"
    if what == "scores":
        got = outcome(lambda: polars_fair.scores(rel, ["a", "b"], y_score="s", **kw)
                      .frame.collect())
        want = outcome(lambda: df.fair.scores(["a", "b"], y_score="s", **kw))
    else:
        if what == "threshold":
            kw.update(y_score="s", threshold=0.7)
        method = "report" if what == "report" else "confusion"
        got = outcome(lambda: run_analysis(polars_fair.counts(rel, ["a", "b"], **kw), method))
        want = outcome(lambda: getattr(df.fair, method)(["a", "b"], **kw))
    assert_same(got, want)


def test_dropped_null_groups_warn_as_in_polars(con: Any) -> None:
    df = pl.DataFrame({"g": ["a", None, "a", "b"], "y_true": [1, 0, 1, 0],
                       "y_pred": [1, 1, 0, 0]})
    with pytest.warns(UserWarning) as want:
        expected = df.fair.report("g", null_groups="drop")
    with pytest.warns(UserWarning) as got:
        result = polars_fair.counts(con.from_arrow(df.to_arrow()), "g",
                                    null_groups="drop").report().collect()
    assert [str(w.message) for w in got] == [str(w.message) for w in want]
    assert_frame_equal(result, expected)
