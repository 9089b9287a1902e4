"""Every analysis on every way in, found by introspection; every bad input, the same error.

1. The analyses are the public methods of :class:`polars_fair.FairCounts` and
   :class:`polars_fair.FairScores`, read with :mod:`inspect` (no hand-written list). Each gives
   the same result on every route: Polars eager (``df.fair.<name>``), lazy
   (``lf.fair.<name>(...).collect()``), streaming (``collect(engine="streaming")``), a count
   table (``from_counts(df.fair.confusion(by))`` / ``from_scores(df.fair.scores(by))``), Spark
   (``polars_fair.counts(spark_df, ...)``) and DuckDB (``polars_fair.counts(relation, ...)``).
   The reference is ``polars_fair.counts(df, ...)`` on the Polars frame, whose values the other
   modules check against hand computations, numpy and the oracles.
2. Every public ``df.fair`` method exists on ``lf.fair``, on the analysis objects (or is a table
   accessor) and in ``polars_fair.spark``.
3. An error catalogue: each bad input raises the same error type with the same message, built
   here from the templates of :mod:`polars_fair.errors`, on Polars, Spark and DuckDB.

The attributes are ``String`` columns (``make_hiring``'s Enum columns cast): Spark and a DuckDB
relation made from Arrow read an Enum as a string, and Enum keys (which add the empty
intersections) are tested in test_duckdb.py. Spark runs when PySpark and Java are there; without
them its cases skip, unless ``POLARS_FAIR_REQUIRE_SPARK=1``, when they fail.
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_fair
import polars_fair.spark as pfs
from polars_fair import errors as E
from polars_fair.datasets import make_hiring
from polars_fair.namespace import FairDataFrame, FairLazyFrame
from polars_fair.spec import COUNT_ARGS, SCORE_ARGS
from polars_fair.uncertainty import BAD_DISPARITY_METRIC, DISPARITY_METRICS

REQUIRE_SPARK = os.environ.get("POLARS_FAIR_REQUIRE_SPARK") == "1"

pytestmark = [
    # createDataFrame(pyarrow.Table) checks the pandas version and warns about pandas 3
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning"),
]


def public(cls: type) -> list[str]:
    """The public methods of a class (properties such as ``frame`` are not methods)."""
    return [n for n, _ in inspect.getmembers(cls, inspect.isfunction) if not n.startswith("_")]


COUNT_ANALYSES = public(polars_fair.FairCounts)
SCORE_ANALYSES = public(polars_fair.FairScores)
NAMESPACE = public(FairDataFrame)

#: Options that keep an analysis quick and deterministic.
OPTIONS: dict[str, dict[str, Any]] = {"abroca_test": {"n_permutations": 50, "seed": 0}}
#: Table accessors of the namespace: they return a table or an analysis object, not an analysis.
#: ``counts`` / ``score_counts`` return FairCounts / FairScores themselves; ``scores`` returns
#: the score table (``FairScores.frame``). ``confusion`` is also an accessor (the count table)
#: but FairCounts has it as a method, rolling up to ``by``.
ACCESSORS = {"counts": polars_fair.FairCounts, "score_counts": polars_fair.FairScores,
             "scores": polars_fair.FairScores}
#: Count and score arguments of each route (the second with weights, and a thresholded score).
COUNT_CONFIGS: dict[str, dict[str, Any]] = {
    "plain": {}, "weighted-threshold": {"sample_weight": "w", "y_score": "y_score",
                                        "threshold": 0.6}}
SCORE_CONFIGS: dict[str, dict[str, Any]] = {"plain": {}, "weighted": {"sample_weight": "w"}}
ROUTES = ["eager", "lazy", "streaming", "table", "spark", "duckdb"]


# ---------------------------------------------------------------------------------------------
# engines
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    """A local Spark (the session pattern of test_spark.py), stopped only if made here."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        if REQUIRE_SPARK:
            raise
        pytest.skip("pyspark is not installed (pip install -e '.[spark]')")
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    existing = SparkSession.getActiveSession()
    try:
        session = (
            SparkSession.builder.master("local[2]")
            .appName("polars_fair-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.default.parallelism", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate()
        )
    except Exception as exc:  # noqa: BLE001  (no Java, no loopback: any startup error)
        if REQUIRE_SPARK:
            pytest.fail(f"POLARS_FAIR_REQUIRE_SPARK=1 but Spark did not start: {exc}")
        pytest.skip(f"Spark did not start (is Java 17+ installed?): {exc}")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    if existing is None:
        session.stop()


@pytest.fixture(scope="module")
def duck() -> Iterator[Any]:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    yield con
    con.close()


@pytest.fixture(scope="module")
def hiring() -> pl.DataFrame:
    """2,000 applicants, String attributes, a weight column."""
    return make_hiring(2_000, seed=0).with_columns(
        pl.col(pl.Enum).cast(pl.String), w=((pl.col("applicant_id") % 5) + 1) * 0.25)


def frame_on(engine: str, df: pl.DataFrame, request: pytest.FixtureRequest) -> Any:
    """The rows of ``df`` in an engine: Polars as is, Spark and DuckDB through Arrow."""
    if engine == "spark":
        return request.getfixturevalue("spark").createDataFrame(df.to_arrow())
    if engine == "duckdb":
        return request.getfixturevalue("duck").from_arrow(df.to_arrow())
    return df


def outcome(fn: Callable[[], pl.DataFrame]) -> tuple[str, Any]:
    """A result, or the error's class and message (so errors can be compared too)."""
    try:
        return "ok", fn()
    except E.PolarsFairError as exc:
        return type(exc).__name__, str(exc)


def collected(lf: pl.LazyFrame, streaming: bool = False) -> pl.DataFrame:
    out = lf.collect(engine="streaming") if streaming else lf.collect()
    assert isinstance(out, pl.DataFrame)
    return out


# ---------------------------------------------------------------------------------------------
# 1. every analysis, every route
# ---------------------------------------------------------------------------------------------
def _namespace_call(ns: Any, name: str, by: Any, options: dict[str, Any],
                    args: dict[str, Any], scores: bool) -> Any:
    """``df.fair.<name>`` / ``lf.fair.<name>`` with the analysis' arguments.

    Special: the namespace's ``bias_audit`` (NYC LL 144) takes ``categories`` and the column
    it audits (``y_pred=`` selections or ``y_score=`` scores), not the count arguments, since
    an LL 144 audit reads no labels; the analysis objects audit their table's predictions or
    scores the same way.
    """
    params = list(inspect.signature(getattr(type(ns), name)).parameters)
    if params[1] == "categories":
        column = {"y_score": "y_score"} if scores else {"y_pred": "y_pred"}
        weight = {k: v for k, v in args.items() if k == "sample_weight"}
        return getattr(ns, name)(by, **column, **weight, **options)
    return getattr(ns, name)(by, **options, **args)


def _applies(name: str, route: str, args: dict[str, Any]) -> bool:
    if route in ("eager", "lazy", "streaming"):
        if not hasattr(FairDataFrame, name):
            return False
        first = list(inspect.signature(getattr(FairLazyFrame, name)).parameters)[1]
        return first == "by" or "threshold" not in args  # LL 144 reads y_pred, no threshold
    return True


def _cases(analyses: list[str], configs: dict[str, dict[str, Any]]) -> list[Any]:
    return [pytest.param(name, config, route, id=f"{name}-{config}-{route}")
            for name in analyses for config in configs for route in ROUTES
            if _applies(name, route, configs[config])]


def run_route(route: str, df: pl.DataFrame, name: str, by: Any, args: dict[str, Any],
              scores: bool, request: pytest.FixtureRequest) -> pl.DataFrame:
    """One analysis on one route, collected."""
    options = OPTIONS.get(name, {})
    if route in ("eager", "lazy", "streaming"):
        if route == "eager":
            out = _namespace_call(df.fair, name, by, options, args, scores)
            assert isinstance(out, pl.DataFrame)
            return out
        lazy = _namespace_call(df.lazy().fair, name, by, options, args, scores)
        assert isinstance(lazy, pl.LazyFrame)
        return collected(lazy, streaming=route == "streaming")
    if route == "table":
        obj: Any = (polars_fair.from_scores(df.fair.scores(by, **args)) if scores
                    else polars_fair.from_counts(df.fair.confusion(by, **args)))
    else:
        rows = frame_on("polars" if route == "reference" else route, df, request)
        obj = polars_fair.scores(rows, by, **args) if scores \
            else polars_fair.counts(rows, by, **args)
    return collected(getattr(obj, name)(**options))


def assert_route(route: str, df: pl.DataFrame, name: str, by: Any, args: dict[str, Any],
                 scores: bool, request: pytest.FixtureRequest) -> None:
    want = outcome(lambda: run_route("reference", df, name, by, args, scores, request))
    # the permutation test refuses weights (weights are not exchangeable units)
    assert want[0] == "ok" or (name == "abroca_test" and "sample_weight" in args), want
    got = outcome(lambda: run_route(route, df, name, by, args, scores, request))
    assert got[0] == want[0], (got, want)
    if want[0] == "ok":
        assert_frame_equal(got[1], want[1])
    else:
        assert got[1] == want[1]


@pytest.mark.parametrize(("name", "config", "route"), _cases(COUNT_ANALYSES, COUNT_CONFIGS))
def test_every_count_analysis_on_every_route(hiring: pl.DataFrame, name: str, config: str,
                                             route: str, request: pytest.FixtureRequest) -> None:
    assert_route(route, hiring, name, ["race", "sex"], COUNT_CONFIGS[config], False, request)


@pytest.mark.parametrize(("name", "config", "route"), _cases(SCORE_ANALYSES, SCORE_CONFIGS))
def test_every_score_analysis_on_every_route(hiring: pl.DataFrame, name: str, config: str,
                                             route: str, request: pytest.FixtureRequest) -> None:
    assert_route(route, hiring, name, ["race", "sex"], SCORE_CONFIGS[config], True, request)


def test_the_analyses_are_found() -> None:
    """Introspection finds the analyses the README lists (a floor, not the list itself)."""
    assert {"confusion", "rates", "report", "metrics", "disparity", "pairwise",
            "summary"} <= set(COUNT_ANALYSES)
    assert {"abroca", "abroca_test", "calibration", "reliability", "sweep"} <= set(SCORE_ANALYSES)


# ---------------------------------------------------------------------------------------------
# 2. one method, every way in
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMESPACE)
def test_every_namespace_method_exists_everywhere(name: str) -> None:
    """``df.fair.<name>`` is on ``lf.fair``, on an analysis object and in polars_fair.spark.

    The accessors (``counts``, ``score_counts``, ``scores``) return the analysis object or its
    table; ``polars_fair.counts(spark_df)`` / ``polars_fair.scores(spark_df)`` are their
    engine-independent forms, so only ``scores`` (the score table, collected) is a Spark
    shortcut.
    """
    assert callable(getattr(FairLazyFrame, name, None))
    lazy = inspect.signature(getattr(FairLazyFrame, name))
    eager = inspect.signature(getattr(FairDataFrame, name))
    assert list(eager.parameters) == list(lazy.parameters)
    if name in ACCESSORS:
        owner = ACCESSORS[name]
        assert name in ("counts", "score_counts") or isinstance(owner.frame, property)
        assert getattr(pfs, name, None) is not None or name in ("counts", "score_counts")
        return
    assert name in COUNT_ANALYSES or name in SCORE_ANALYSES
    assert callable(getattr(pfs, name, None)) and name in pfs.__all__


@pytest.mark.parametrize("name", sorted({*COUNT_ANALYSES, *SCORE_ANALYSES}))
def test_every_analysis_is_a_spark_shortcut(name: str) -> None:
    """Every analysis has its Spark shortcut; the namespace has most (the routes above run
    ``df.fair.<name>`` where it does), and where it has one, both frames have it."""
    assert callable(getattr(pfs, name, None)) and name in pfs.__all__
    assert hasattr(FairDataFrame, name) == hasattr(FairLazyFrame, name)


# ---------------------------------------------------------------------------------------------
# 3. the error catalogue
# ---------------------------------------------------------------------------------------------
GOOD: dict[str, list[Any]] = {"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0],
                              "y_pred": [1, 1, 0, 0], "w": [1.0, 2.0, 1.0, 1.0],
                              "s": [0.9, 0.2, 0.6, 0.1]}
COLUMNS = list(GOOD)
NAN, INF = float("nan"), float("inf")
MANY = pl.DataFrame({"x": [i / 10 for i in range(60)], "y_true": [1, 0] * 30,
                     "y_pred": [1, 1, 0] * 20})


@dataclass(frozen=True)
class Bad:
    """A bad input: column changes of GOOD (or a whole frame), the call, the expected error."""

    error: type[E.PolarsFairError]
    message: str
    changes: dict[str, list[Any]] = field(default_factory=dict)
    by: Any = "g"
    args: dict[str, Any] = field(default_factory=dict)
    analysis: str = "confusion"
    options: dict[str, Any] = field(default_factory=dict)
    scores: bool = False
    frame: pl.DataFrame | None = None
    warns: bool = False

    def data(self) -> pl.DataFrame:
        if self.frame is not None:
            return self.frame
        return pl.DataFrame({**GOOD, **self.changes}, strict=False)


def _labels(column: str, role: str, pos: Any, values: list[Any]) -> str:
    return E.TOO_MANY_VALUES.format(column=column, role=role, pos_label=pos,
                                    values=E.show_values(values))


def _weights(nulls: int = 0, nans: int = 0, negatives: int = 0) -> str:
    return E.BAD_WEIGHTS.format(column="w", nulls=nulls, nans=nans, negatives=negatives)


def _scores(nulls: int = 0, nans: int = 0, infinite: int = 0) -> str:
    return E.BAD_SCORES.format(column="s", nulls=nulls, nans=nans, infinite=infinite)


def _missing(column: str, role: str, columns: list[str] = COLUMNS) -> str:
    return E.MISSING_COLUMN.format(column=column, role=role, available=E.show_columns(columns))


THRESHOLD: dict[str, Any] = {"y_score": "s", "threshold": 0.5}
WEIGHTED: dict[str, Any] = {"sample_weight": "w"}

CATALOGUE: dict[str, Bad] = {
    "null labels": Bad(E.NullValuesError, E.NULL_LABELS.format(
        column="y_true", role="y_true", count=2), {"y_true": [1, None, 0, None]}),
    "null predictions": Bad(E.NullValuesError, E.NULL_LABELS.format(
        column="y_pred", role="y_pred", count=1), {"y_pred": [1, 0, None, 0]}, analysis="report"),
    "NaN labels": Bad(E.NullValuesError, E.NAN_LABELS.format(
        column="y_true", role="y_true", count=1), {"y_true": [1.0, NAN, 0.0, 0.0]}),
    "NaN predictions": Bad(E.NullValuesError, E.NAN_LABELS.format(
        column="y_pred", role="y_pred", count=1), {"y_pred": [1.0, 1.0, NAN, 0.0]}),
    "three label values": Bad(E.InvalidLabelError, _labels("y_true", "y_true", 1, [0, 2]),
                              {"y_true": [1, 0, 2, 0]}),
    "infinite labels": Bad(E.InvalidLabelError, _labels("y_true", "y_true", 1, [0.0, INF]),
                           {"y_true": [1.0, INF, 0.0, 0.0]}),
    "scores in y_pred": Bad(E.InvalidLabelError, E.LOOKS_LIKE_SCORES.format(
        column="y_pred", role="y_pred", low=0.1, high=0.9, pos_label=1),
        {"y_pred": [0.9, 0.2, 0.6, 0.1]}),
    "negatives differ": Bad(E.InvalidLabelError, E.NEGATIVES_DIFFER.format(
        y_true="y_true", y_pred="y_pred", neg_true=0, neg_pred=-1, pos_label=1),
        {"y_pred": [1, -1, -1, 1]}),
    "pos_label absent": Bad(E.InvalidLabelError, E.POS_LABEL_ABSENT.format(
        pos_label="yes", y_true="y_true", y_pred="y_pred", values="['no']"),
        {"y_true": ["no"] * 4, "y_pred": ["no"] * 4}, args={"pos_label": "yes"}),
    "pos_label a string for integers": Bad(E.InvalidLabelError, E.POS_LABEL_DTYPE.format(
        pos_label="yes", pos_type="str", column="y_true", dtype=pl.Int64()),
        args={"pos_label": "yes"}),
    "pos_label an integer for strings": Bad(E.InvalidLabelError, E.POS_LABEL_DTYPE.format(
        pos_label=1, pos_type="int", column="y_true", dtype=pl.String()),
        {"y_true": ["yes", "no"] * 2, "y_pred": ["no", "yes"] * 2}, args={"pos_label": 1}),
    "missing attribute": Bad(E.ColumnNotFoundError, _missing("race", "by"), by="race"),
    "missing label column": Bad(E.ColumnNotFoundError, _missing("label", "y_true"),
                                args={"y_true": "label"}),
    "missing score column": Bad(E.ColumnNotFoundError, _missing("score", "y_score"),
                                args={"y_score": "score", "threshold": 0.5}),
    "missing weight column": Bad(E.ColumnNotFoundError, _missing("weight", "sample_weight"),
                                 args={"sample_weight": "weight"}),
    "null weights": Bad(E.InvalidWeightError, _weights(nulls=1), {"w": [1.0, None, 1.0, 1.0]},
                        args=WEIGHTED),
    "NaN weights": Bad(E.InvalidWeightError, _weights(nans=1), {"w": [NAN, 1.0, 1.0, 1.0]},
                       args=WEIGHTED),
    "infinite weights": Bad(E.InvalidWeightError, _weights(nans=1), {"w": [1.0, 1.0, INF, 1.0]},
                            args=WEIGHTED),
    "negative weights": Bad(E.InvalidWeightError, _weights(negatives=2),
                            {"w": [-1.0, 1.0, 1.0, -0.5]}, args=WEIGHTED),
    "text weights": Bad(E.InvalidWeightError, E.NOT_NUMERIC.format(
        column="w", role="sample_weight", dtype=pl.String()), {"w": ["1", "2", "3", "4"]},
        args=WEIGHTED),
    "weights summing to infinity": Bad(E.InvalidWeightError, E.WEIGHT_OVERFLOW.format(
        column="w", count=1), {"w": [1e308, 1e308, 1.0, 1.0]}, args=WEIGHTED),
    "null scores with a threshold": Bad(E.InvalidScoreError, _scores(nulls=1),
                                        {"s": [0.5, None, 0.2, 0.1]}, args=THRESHOLD),
    "NaN scores with a threshold": Bad(E.InvalidScoreError, _scores(nans=1),
                                       {"s": [0.5, 0.7, NAN, 0.1]}, args=THRESHOLD),
    "infinite scores with a threshold": Bad(E.InvalidScoreError, _scores(infinite=2),
                                            {"s": [0.5, INF, 0.2, -INF]}, args=THRESHOLD),
    "text scores": Bad(E.InvalidScoreError, E.NOT_NUMERIC.format(
        column="s", role="y_score", dtype=pl.String()), {"s": ["a", "b", "c", "d"]},
        args=THRESHOLD),
    "bad scores in a score table": Bad(E.InvalidScoreError, _scores(nulls=1, nans=1, infinite=1),
                                       {"s": [0.5, NAN, None, -INF]}, args={"y_score": "s"},
                                       analysis="abroca", scores=True),
    "three labels in a score table": Bad(E.InvalidLabelError,
                                         _labels("y_true", "y_true", 1, [0, 2]),
                                         {"y_true": [1, 0, 2, 0]}, args={"y_score": "s"},
                                         analysis="calibration", scores=True),
    "null labels in a score table": Bad(E.NullValuesError, E.NULL_LABELS.format(
        column="y_true", role="y_true", count=1), {"y_true": [1, 0, None, 0]},
        args={"y_score": "s"}, analysis="sweep", scores=True),
    "null group with null_groups='raise'": Bad(E.NullGroupError, E.NULL_GROUPS.format(
        counts={"g": 2}), {"g": ["a", None, None, "b"]}, args={"null_groups": "raise"}),
    "only null groups, dropped": Bad(E.EmptyFrameError, E.EMPTY_FRAME.format(
        detail=" after dropping null groups"), {"g": [None, None, None, None]},
        args={"null_groups": "drop"}, warns=True),
    "empty input": Bad(E.EmptyFrameError, E.EMPTY_FRAME.format(detail=""),
                       frame=pl.DataFrame(GOOD).clear()),
    "empty input, scores": Bad(E.EmptyFrameError, E.EMPTY_FRAME.format(detail=""),
                               frame=pl.DataFrame(GOOD).clear(), args={"y_score": "s"},
                               analysis="abroca", scores=True),
    "float attribute with 60 levels": Bad(E.TooManyLevelsError, E.TOO_MANY_LEVELS.format(
        column="x", levels=60, values=E.show_values([0.0, 0.1, 0.2, 0.3, 0.4])),
        frame=MANY, by="x"),
    "unknown reference": Bad(E.UnknownGroupError, E.UNKNOWN_GROUP.format(
        group="zz", groups=E.show_values(["a", "b"])), analysis="report",
        options={"reference": "zz"}),
    "reference without a mapping": Bad(E.InvalidArgumentError, E.REFERENCE_NEEDS_MAPPING.format(
        keys=["g", "y_true"]), by=["g", "y_true"], analysis="disparity",
        options={"reference": "a"}),
    # disparity's template lives in polars_fair.uncertainty, not in polars_fair.errors
    "unknown disparity metric": Bad(E.InvalidArgumentError, BAD_DISPARITY_METRIC.format(
        valid=list(DISPARITY_METRICS), metric="nope"), analysis="disparity",
        options={"metric": "nope"}),
    "unknown count argument": Bad(E.InvalidArgumentError, E.UNKNOWN_ARGUMENT.format(
        names=["y_label"], what="count", valid=list(COUNT_ARGS)), args={"y_label": "y_true"}),
    "unknown score argument": Bad(E.InvalidArgumentError, E.UNKNOWN_ARGUMENT.format(
        names=["threshold"], what="score", valid=list(SCORE_ARGS)),
        args={"y_score": "s", "threshold": 0.5}, analysis="abroca", scores=True),
    "threshold without a score": Bad(E.InvalidArgumentError, E.THRESHOLD_NEEDS_SCORE,
                                     args={"threshold": 0.5}),
    "score without a threshold": Bad(E.InvalidArgumentError, E.SCORE_NEEDS_THRESHOLD,
                                     args={"y_score": "s"}),
    "prediction and score": Bad(E.InvalidArgumentError, E.PRED_AND_SCORE,
                                args={"y_pred": "y_true", **THRESHOLD}),
    "NaN threshold": Bad(E.InvalidArgumentError, E.BAD_THRESHOLD.format(value=NAN),
                         args={"y_score": "s", "threshold": NAN}),
    "attribute named like a count": Bad(E.InvalidArgumentError, E.RESERVED_NAME.format(
        names=["n"], example="n"), {"n": ["a", "a", "b", "b"]}, by="n"),
    "attribute that is a number": Bad(E.InvalidArgumentError, E.NOT_A_COLUMN.format(
        role="by", value=3, type="int"), by=3),
}
ENGINES = ["polars", "spark", "duckdb"]


def test_the_catalogue_is_large_enough() -> None:
    """At least 25 different errors (some messages recur for a count and a score table)."""
    assert len({(b.error, b.message) for b in CATALOGUE.values()}) >= 25


#: Cases whose message is wrong on every engine (a defect outside the engines, kept visible).
KNOWN: dict[str, str] = {}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=KNOWN[c])) if c in KNOWN else c
    for c in CATALOGUE])
def test_error_catalogue(case: str, engine: str, request: pytest.FixtureRequest) -> None:
    bad = CATALOGUE[case]
    rows = frame_on(engine, bad.data(), request)

    def call() -> None:
        obj = polars_fair.scores(rows, bad.by, **bad.args) if bad.scores \
            else polars_fair.counts(rows, bad.by, **bad.args)
        getattr(obj, bad.analysis)(**bad.options).collect()

    with warnings.catch_warnings():
        if bad.warns:  # the warning of dropped null groups comes first
            warnings.filterwarnings("ignore", message="dropped", category=UserWarning)
        with pytest.raises(E.PolarsFairError) as info:
            call()
    assert type(info.value) is bad.error
    assert str(info.value) == bad.message
