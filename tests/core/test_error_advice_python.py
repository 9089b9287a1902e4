"""The Python side of issue 20's error catalogue: each suggestion read out of its message, run.

Each test triggers an error as a user would (``df.fair``, a count table, a DuckDB relation),
reads the advice from the message as written (never a hand-written copy of it), follows it,
and checks the result against counts worked out by hand. The templates followed here are
listed in :data:`tests.core.test_error_advice.FOLLOWED` with the name of their test.
"""

from __future__ import annotations

import datetime
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app

#: g a: (y 1, p 1), (y 0, p -1); g b: (y 1, p -1), (y 0, p -1): the prediction's negative is -1
NEG = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": [1, 0, 1, 0], "y_pred": [1, -1, -1, -1]})
BASE = pl.DataFrame({"g": ["a", "a", "b", "b"], "h": ["x", "y", "x", "y"],
                     "y_true": [1, 0, 1, 0], "y_pred": [1, 0, 0, 0]})


@pytest.fixture(scope="module")
def duck() -> Iterator[Any]:
    """One in-memory DuckDB connection (skips without duckdb)."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    yield con
    con.close()


def _refused(call: Any, error: type[Exception] = E.PolarsFairError) -> str:
    with pytest.raises(error) as info:
        call()
    return str(info.value)


def _example(message: str) -> str:
    """The code after the last ``for example`` (up to the end, or ``, and`` / ``; ``)."""
    assert "for example " in message, message
    return re.split(r", and |, or |; | \(its values", message.rsplit("for example ", 1)[1])[0]


def _python(code: str, **names: Any) -> Any:
    return eval(code, {"pl": pl, "datetime": datetime, **names})  # the advice as written


def _keyword(message: str) -> tuple[str, Any]:
    """``name=value`` of the message's ``for example name=value``, the value evaluated."""
    name, _, value = _example(message).partition("=")
    return name, _python(value)


# ------------------------------------------------------------------------ NEGATIVES_DIFFER
def test_negatives_differ_advice_maps_the_prediction_and_runs() -> None:
    message = _refused(lambda: NEG.fair.confusion("g"), E.InvalidLabelError)
    name, expr = _keyword(message)
    assert name == "y_pred"
    out = NEG.fair.confusion("g", y_pred=expr)
    # -1 read as 0: a (1, 1) tp, (0, 0) tn; b (1, 0) fn, (0, 0) tn
    assert out.select("g", "tp", "fp", "fn", "tn").rows() == [("a", 1, 0, 0, 1), ("b", 0, 0, 1, 1)]


def test_negatives_differ_advice_of_text_labels_runs() -> None:
    df = pl.DataFrame({"g": ["a", "b"], "y_true": ["yes", "no"], "y_pred": ["yes", "N"]})
    message = _refused(lambda: df.fair.confusion("g", pos_label="yes"), E.InvalidLabelError)
    name, expr = _keyword(message)
    out = df.fair.confusion("g", pos_label="yes", **{name: expr})
    assert out.select("tp", "tn").rows() == [(1, 0), (0, 1)]  # a: yes/yes; b: no/no


def test_negatives_differ_advice_of_a_baseline_names_the_baseline_and_runs() -> None:
    df = BASE.with_columns(old=pl.Series([1, -1, 1, -1]))
    message = _refused(lambda: df.fair.compare("g", y_true="y_true", y_pred="y_pred",
                                               baseline="old", min_support=1), E.InvalidLabelError)
    name, expr = _keyword(message)
    assert name == "baseline" and "baseline column 'old'" in message
    out = df.fair.compare("g", y_true="y_true", y_pred="y_pred", baseline=expr, min_support=1)
    # old with -1 read as 0 is 1, 0, 1, 0 (the label itself): a half selected in a and b,
    # every positive found
    assert out["selection_rate_baseline"].to_list() == [0.5, 0.5]
    assert out["tpr_baseline"].to_list() == [1.0, 1.0]


def test_negatives_differ_advice_on_duckdb_is_sql_that_runs(duck: Any) -> None:
    rel = duck.from_arrow(NEG.to_arrow())
    message = _refused(lambda: polars_fair.counts(rel, "g").frame.collect(), E.InvalidLabelError)
    m = re.search(r"with SQL (.+ AS (\w+)), and pass (\w+)='(\w+)'", message)
    assert m and m.group(2) == m.group(4), message
    mapped = rel.select("*, " + m.group(1))
    out = polars_fair.counts(mapped, "g", **{m.group(3): m.group(4)}).frame.collect()
    assert out.sort("g").select("g", "tp", "fp", "fn", "tn").rows() == [
        ("a", 1, 0, 0, 1), ("b", 0, 0, 1, 1)]


def test_negatives_differ_command_line_advice_runs(tmp_path: Path) -> None:
    path = tmp_path / "neg.csv"
    NEG.write_csv(path)
    runner = CliRunner()
    result = runner.invoke(app, ["confusion", str(path), "--by", "g"])
    assert result.exit_code == 2
    m = re.search(r'for example --y-pred "([^"]+)"', result.stderr)
    assert m, result.stderr
    result = runner.invoke(app, ["confusion", str(path), "--by", "g", "--y-pred", m.group(1),
                                 "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    out = pl.read_csv(result.stdout.encode())
    assert out.select("tp", "fp", "fn", "tn").rows() == [(1, 0, 0, 1), (0, 0, 1, 1)]


# ------------------------------------------------------------------------ POS_LABEL_DTYPE
@pytest.mark.parametrize(("cast", "given", "want"), [
    (pl.Int64, "1", 1), (pl.String, 1, "1"), (pl.Boolean, "yes", True), (pl.Boolean, "1", True),
    (pl.Float64, "1.0", 1.0), (pl.Int64, "yes", 1),
])
def test_pos_label_dtype_advice_gives_a_pos_label_that_runs(cast: Any, given: Any,
                                                            want: Any) -> None:
    df = BASE.with_columns(pl.col("y_true", "y_pred").cast(cast))
    message = _refused(lambda: df.fair.confusion("g", pos_label=given), E.InvalidLabelError)
    name, value = _keyword(message)
    assert (name, value) == ("pos_label", want) and type(value) is type(want)
    out = df.fair.confusion("g", pos_label=value)
    # a: (1, 1) tp, (0, 0) tn; b: (1, 0) fn, (0, 0) tn, by hand
    assert out.select("tp", "fp", "fn", "tn").rows() == [(1, 0, 0, 1), (0, 0, 1, 1)]


# ------------------------------------------------------------------------ VALUE_DTYPE
@pytest.mark.parametrize(("groups", "given"), [
    (pl.Series([1, 1, 2, 2]), "2"), (pl.Series(["1", "1", "2", "2"]), 2),
    (pl.Series([datetime.date(2020, 1, 1)] * 2 + [datetime.date(2021, 6, 30)] * 2),
     "2021-06-30"),
    (pl.Series([True, True, False, False]), "false"),
])
def test_value_dtype_advice_gives_a_reference_that_runs(groups: pl.Series, given: Any) -> None:
    df = BASE.with_columns(g=groups)
    message = _refused(lambda: df.fair.report("g", reference=given), E.InvalidArgumentError)
    value = _python(_example(message))
    out = df.fair.report("g", reference=value, min_support=1)
    assert out["is_reference"].to_list() == [False, True] or \
        out["is_reference"].to_list() == [True, False]
    assert out.filter("is_reference")["g"].to_list() == [value]  # the group named, by hand
    # b is the reference's group in every case but the Boolean one (False sorts first)
    assert out.filter("is_reference")["n"].to_list() == [2]


def test_value_dtype_advice_in_a_reference_mapping_runs() -> None:
    df = BASE.with_columns(g=pl.Series([1, 1, 2, 2]))
    message = _refused(lambda: df.fair.report(["g", "h"], reference={"g": "2", "h": "x"}),
                       E.InvalidArgumentError)
    value = _python(_example(message))
    out = df.fair.report(["g", "h"], reference={"g": value, "h": "x"}, min_support=1)
    assert out.filter("is_reference").select("g", "h").rows() == [(2, "x")]


# ------------------------------------------------------------ DROPPED_NULL_GROUPS (+ _SETS)
def _warned(call: Any) -> tuple[str, Any]:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = call()
    messages = [str(w.message) for w in record if "dropped" in str(w.message)]
    assert len(messages) == 1, messages
    return messages[0], out


def _null_groups_advice(message: str) -> str:
    m = re.search(r"pass null_groups=('\w+') to audit them", message)
    assert m, message
    return str(_python(m.group(1)))


def test_dropped_null_groups_advice_keeps_them_as_a_group() -> None:
    df = BASE.with_columns(g=pl.Series(["a", None, None, "b"]))
    message, out = _warned(lambda: df.fair.confusion("g", null_groups="drop"))
    assert out["n"].to_list() == [1, 1]  # a and b, one row each
    kept = df.fair.confusion("g", null_groups=_null_groups_advice(message))
    # the 2 rows without a group are a group of their own (null, sorted last): (0, 0), (1, 0)
    assert kept.select("g", "n", "tp", "fn", "tn").rows() == [
        ("a", 1, 1, 0, 0), ("b", 1, 0, 0, 1), (None, 2, 0, 1, 1)]


def test_dropped_null_groups_sets_advice_keeps_them_in_every_set() -> None:
    df = BASE.with_columns(g=pl.Series(["a", None, "b", "b"]))
    message, out = _warned(lambda: df.fair.confusion(["g", "h"], combinations="all",
                                                     null_groups="drop"))
    assert message.startswith("dropped row(s) whose attribute is null, in each attribute set")
    kept = df.fair.confusion(["g", "h"], combinations="all",
                             null_groups=_null_groups_advice(message))
    # g alone: a 1, b 2, null 1; h alone: x 2, y 2; g x h: 4 cells of 1 -> 4 rows more than
    # with the row dropped from the sets holding g (g: null; g x h: (null, y))
    assert kept.height == out.height + 2 == 9
    assert int(kept.filter(pl.col("g").is_null() & pl.col("h").is_null())["n"].item()) == 1


def test_dropped_null_membership_advice_keeps_them_as_the_missing_group() -> None:
    df = pl.DataFrame({"y_true": [1, 0, 1], "y_pred": [1, 1, 0], "pa": [1.0, None, 0.25],
                       "pb": [0.0, 0.5, 0.75]})
    one = {"g": {"a": "pa", "b": "pb"}}
    message, out = _warned(lambda: polars_fair.counts(df, membership=one, null_groups="drop")
                           .frame.collect())
    assert out["g"].to_list() == ["a", "b"]
    kept = polars_fair.counts(df, membership=one,
                              null_groups=_null_groups_advice(message)).frame.collect()
    # the second row (pa null) is the missing group: one row of weight 1, label 0, pred 1
    assert kept["g"].to_list() == ["a", "b", None]
    assert kept.filter(pl.col("g").is_null()).select("n", "fp").row(0) == (1, 1.0)


# ------------------------------------------------------------------ BAD_REFERENCE_RULE
def _rules(message: str) -> list[str]:
    m = re.search(r"pass one of (\[[^\]]*\]), a group value", message)
    assert m, message
    return list(_python(m.group(1)))


@pytest.mark.parametrize(("analysis", "wrong"), [("report", "max_auc"),
                                                ("abroca", "max_selection_rate"),
                                                ("abroca", "overall")])
def test_bad_reference_rule_advice_every_rule_and_a_group_run(analysis: str, wrong: str) -> None:
    scored = BASE.with_columns(s=pl.Series([0.9, 0.1, 0.4, 0.2]))

    def call(reference: Any) -> pl.DataFrame:
        if analysis == "report":
            return BASE.fair.report("g", reference=reference, min_support=1)
        return scored.fair.abroca("g", y_score="s", reference=reference)

    rules = _rules(_refused(lambda: call(wrong), E.InvalidArgumentError))
    assert wrong not in rules and rules
    for rule in rules:  # each rule the message lists
        assert call(rule)["g"].to_list() == ["a", "b"]
    out = call("a")  # a group value (one attribute)
    assert out["is_reference"].to_list() == [True, False]


def test_bad_reference_rule_of_stratified_lists_rules_that_run() -> None:
    df = pl.concat([BASE.with_columns(s=pl.lit(v)) for v in ("u", "v")])
    message = _refused(lambda: df.fair.stratified("g", strata="s", reference="overall"),
                       E.InvalidArgumentError)
    rules = _rules(message)
    assert "overall" not in rules and rules
    for rule in rules:
        assert df.fair.stratified("g", strata="s", reference=rule).height >= 1
    assert df.fair.stratified("g", strata="s", reference="a").height >= 1


# ------------------------------------------------------------------------ PRED_AND_SCORE
def test_pred_and_score_advice_either_way_runs() -> None:
    df = BASE.with_columns(s=pl.Series([0.9, 0.1, 0.4, 0.2]))
    message = _refused(lambda: df.fair.confusion("g", y_pred="y_pred", y_score="s",
                                                 threshold=0.5), E.InvalidArgumentError)
    assert message.startswith("pass either y_pred= or y_score= with threshold=, not both")
    by_pred = df.fair.confusion("g", y_pred="y_pred")  # either y_pred=
    by_score = df.fair.confusion("g", y_score="s", threshold=0.5)  # or y_score= with threshold=
    # s >= 0.5 selects the first row only, as y_pred does: a (1, 1) tp, (0, 0) tn; b fn, tn
    want = [("a", 1, 0, 0, 1), ("b", 0, 0, 1, 1)]
    assert by_pred.select("g", "tp", "fp", "fn", "tn").rows() == want
    assert by_score.select("g", "tp", "fp", "fn", "tn").rows() == want


# ------------------------------------------- POS_LABEL_DTYPE of text labels, KINDS_UNREAD
HIRING = pl.DataFrame({"g": ["a", "a", "b", "b"], "y_true": ["hired", "rejected"] * 2,
                       "y_pred": ["hired", "hired", "rejected", "rejected"],
                       "decision": [1, 1, 0, 0]})


@pytest.mark.parametrize("lazy", [False, True])
def test_text_labels_with_the_default_pos_label_are_advised_one_of_their_values(
        lazy: bool) -> None:
    # the first error a user with text labels meets: pos_label=1 (the default)
    frame = HIRING.lazy() if lazy else HIRING
    message = _refused(lambda: frame.fair.confusion("g"), E.InvalidLabelError)
    assert "(its values: ['hired', 'rejected']; pass the positive one)" in message
    name, value = _keyword(message)
    assert (name, value) == ("pos_label", "hired")
    out = frame.fair.confusion("g", pos_label=value)
    out = out.collect() if isinstance(out, pl.LazyFrame) else out
    # a: (hired, hired) tp, (rejected, hired) fp; b: (hired, rejected) fn, (rejected, rejected)
    assert out.select("g", "tp", "fp", "fn", "tn").rows() == [("a", 1, 1, 0, 0),
                                                             ("b", 0, 0, 1, 1)]


def test_text_labels_pos_label_advice_on_duckdb_runs(duck: Any) -> None:
    rel = duck.from_arrow(HIRING.to_arrow())
    message = _refused(lambda: polars_fair.counts(rel, "g"), E.InvalidLabelError)
    name, value = _keyword(message)
    out = polars_fair.counts(rel, "g", **{name: value}).frame.collect().sort("g")
    assert out.select("tp", "fp", "fn", "tn").rows() == [(1, 1, 0, 0), (0, 0, 1, 1)]


def test_compare_with_a_text_label_advises_a_value_it_holds() -> None:
    # compare read the kinds from the schema alone (KINDS_UNREAD): it now reads the values
    message = _refused(lambda: HIRING.fair.compare("g", y_true="y_true", y_pred="decision",
                                                   baseline="decision"), E.InvalidLabelError)
    assert "its values: ['hired', 'rejected']" in message
    m = re.search(r"for example y_true=(.+?) \(its values.*pass pos_label=(\w+)$", message)
    assert m, message
    out = HIRING.fair.compare("g", y_true=_python(m.group(1)), y_pred="decision",
                              baseline="decision", pos_label=_python(m.group(2)),
                              min_support=1)
    # decision selects a (hired, rejected) and not b: tpr 1 in a, 0 in b
    assert out["tpr"].to_list() == [1.0, 0.0]


def test_kinds_unread_advice_of_a_schema_alone_runs() -> None:
    """KINDS_UNREAD: resolved from a schema (no row read), the advice names no value."""
    from polars_fair.core.spec import resolve

    schema = HIRING.collect_schema()
    with pytest.raises(E.InvalidLabelError) as info:
        resolve(schema, "g", y_pred="decision")
    m = re.search(r"comparing ('\w+') with its positive value, and pass pos_label=(\w+)$",
                  str(info.value))
    assert m, info.value
    column, pos = _python(m.group(1)), _python(m.group(2))
    y_true = pl.col(column) == "hired"  # its positive value, as the message says
    out = HIRING.fair.confusion("g", y_true=y_true, y_pred="decision", pos_label=pos)
    assert out.select("tp", "fp", "fn", "tn").rows() == [(1, 1, 0, 0), (0, 0, 1, 1)]


def test_a_text_label_of_nulls_only_says_so() -> None:
    df = HIRING.with_columns(y_true=pl.lit(None, pl.String))
    message = _refused(lambda: df.fair.confusion("g", y_pred="decision"), E.NullValuesError)
    assert message == E.NULL_LABELS.format(column="y_true", role="y_true", count=4)


# ------------------------------------------------------------------------- LEVELS_DROP
NULLS = pl.DataFrame({"g": ["a", None, "b", "b", "a", "b"], "h": ["x", "y", "x", None, "y", "y"],
                      "y_true": [1, 0, 1, 0, 1, 0], "y_pred": [1, 0, 0, 0, 1, 1]})
#: NULLS without its rows 2 and 4 (a null g, a null h): a x 1/1, b x 1/0, a y 1/1, b y 0/1
KEPT_ROWS = 4


def _divergence_rows(out: pl.DataFrame) -> int:
    """The rows the search counted: the sum of n over the groups of one attribute."""
    return int(out.filter(pl.col("attributes") == ["g"])["n"].sum())


def test_levels_drop_advice_on_polars_runs() -> None:
    args: dict[str, Any] = dict(strategy="levels", min_support=0.01, min_denominator=1)
    message = _refused(lambda: NULLS.fair.divergence(["g", "h"], null_groups="drop", **args),
                       E.InvalidArgumentError)
    dropped = _python(_example(message), df=NULLS)  # df.drop_nulls([...]) as written
    assert dropped.height == KEPT_ROWS
    out = dropped.fair.divergence(["g", "h"], **args)
    assert _divergence_rows(out) == KEPT_ROWS
    for other in re.findall(r"null_groups='(\w+)'", message.split("or pass ")[1]):
        assert other in ("keep", "raise")
    kept = NULLS.fair.divergence(["g", "h"], null_groups="keep", **args)  # the other way
    assert _divergence_rows(kept) == NULLS.height


def test_levels_drop_advice_on_duckdb_runs(duck: Any) -> None:
    rel = duck.from_arrow(NULLS.to_arrow())
    from polars_fair.divergence import divergence_of_rows

    message = _refused(lambda: divergence_of_rows(
        rel, ["g", "h"], strategy="levels", null_groups="drop", min_support=0.01,
        min_denominator=1), E.InvalidArgumentError)
    filtered = _python(_example(message), rel=rel)  # rel.filter('g IS NOT NULL AND ...')
    assert len(filtered.fetchall()) == KEPT_ROWS
    out = divergence_of_rows(filtered, ["g", "h"], strategy="levels", min_support=0.01,
                                 min_denominator=1)
    assert _divergence_rows(out.collect() if isinstance(out, pl.LazyFrame) else out) == KEPT_ROWS


def test_levels_drop_command_line_advice_runs(tmp_path: Path) -> None:
    path = tmp_path / "nulls.csv"
    NULLS.write_csv(path)
    runner = CliRunner()
    args = ["divergence", str(path), "--by", "g", "--by", "h", "--strategy", "levels",
            "--min-support", "0.01", "--min-denominator", "1"]
    result = runner.invoke(app, [*args, "--null-groups", "drop"])
    assert result.exit_code == 2
    m = re.search(r'for example --where "([^"]+)"', result.stderr)
    assert m, result.stderr
    result = runner.invoke(app, [*args, "--where", m.group(1), "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    out = pl.read_csv(result.stdout.encode())
    assert int(out.filter(pl.col("attributes") == "g")["n"].sum()) == KEPT_ROWS


# ----------------------------------------------------------------------- ROLLUP_OF_SETS
def test_rollup_of_sets_advice_keeps_the_set_asked_for() -> None:
    counts = BASE.fair.counts(["g", "h"], combinations="all")
    message = _refused(lambda: counts.report(by="h", min_support=1), E.InvalidArgumentError)
    assert "[['g'], ['h'], ['g', 'h']]" in message
    m = re.search(r"for example (\.filter\(.+\))$", message)
    assert m, message
    out = _python("out" + m.group(1), out=counts.report(min_support=1)).collect()
    # h alone: x holds (1, 1) and (1, 0), y holds (0, 0) twice
    assert out.select("h", "n", "tp", "fn", "tn").rows() == [("x", 2, 1, 1, 0),
                                                             ("y", 2, 0, 0, 2)]


# ------------------------------------------------------------------------ NOT_ROW_LEVEL
def test_not_row_level_states_the_rule_and_suggests_nothing() -> None:
    """NOT_ROW_LEVEL's old advice ('pass an expression that gives one value per row') could
    not be written as code: what a filter or an aggregate was meant to compute is unknown. The
    message states the rule instead, and the catalogue no longer counts it as advice."""
    expr = pl.col("y_true").filter(pl.col("y_true") > 0)
    message = _refused(lambda: BASE.fair.confusion("g", y_true=expr), E.NotRowLevelError)
    assert message.endswith("changes the number of rows, and an argument must give one value "
                            "per row, computed from that row")
    assert not any(word in E.NOT_ROW_LEVEL for word in ("pass ", "for example", "use "))


# ------------------------------------------------------------ the grid and the size limits
def test_default_grid_advice_of_few_scores_runs() -> None:
    df = BASE.with_columns(s=pl.Series([3, 9, 6, 8]))
    message = _refused(lambda: df.fair.thresholds("g", y_score="s"), E.InvalidArgumentError)
    m = re.search(r"for example the distinct scores, thresholds=(\[.*\])$", message)
    assert m, message
    grid = _python(m.group(1))
    assert grid == [3.0, 6.0, 8.0, 9.0]  # the distinct scores
    out = df.fair.thresholds("g", y_score="s", thresholds=grid, min_support=1)
    # s >= t selects: 3 -> all 4; 6 -> 9, 6, 8 (3); 8 -> 9, 8 (2); 9 -> 9 (1)
    assert out["threshold"].to_list() == grid
    assert out["selection_rate"].to_list() == [1.0, 0.75, 0.5, 0.25]


def test_default_grid_advice_of_many_scores_runs() -> None:
    import numpy as np

    df = pl.DataFrame({"g": ["a", "b"] * 75, "y_true": [0, 1] * 75,
                       "s": [i - 20.0 for i in range(150)]})  # -20 .. 129, 150 distinct
    message = _refused(lambda: df.fair.sweep("g", y_score="s"), E.InvalidArgumentError)
    m = re.search(r"thresholds=(np\.linspace\(.*\))$", message)
    assert m, message
    grid = _python(m.group(1), np=np)
    assert len(grid) == 99
    assert (grid[0], grid[-1]) == (-20.0, 129.0)  # the scores' range, from the message
    out = df.fair.sweep("g", y_score="s", thresholds=grid, min_support=1)
    assert out.height == 2 * 99
    # at the lowest threshold every row is selected, at the highest only the score 129 (b)
    first = out.filter(pl.col("threshold") == -20.0)
    assert first["selection_rate"].to_list() == [1.0, 1.0]
    last = out.filter(pl.col("threshold") == 129.0)
    assert last["tp"].to_list() == [0, 1] and last["fp"].to_list() == [0, 0]


@pytest.mark.parametrize("analysis", ["sweep", "thresholds"])
def test_too_many_thresholds_advice_either_way_runs(analysis: str) -> None:
    df = BASE.with_columns(s=pl.Series([0.9, 0.1, 0.4, 0.2]))
    grid = [0.1, 0.3, 0.5, 0.7]
    run = getattr(df.fair, analysis)
    message = _refused(lambda: run("g", y_score="s", thresholds=grid, max_thresholds=3),
                       E.SizeLimitError)
    m = re.search(r"pass max_thresholds=(\d+), or a coarser grid of at most (\d+) thresholds",
                  message)
    assert m, message
    out = run("g", y_score="s", thresholds=grid, max_thresholds=int(m.group(1)), min_support=1)
    assert sorted(set(out["threshold"].to_list())) == grid
    coarser = grid[::2][: int(m.group(2))]  # [0.1, 0.5]
    out = run("g", y_score="s", thresholds=coarser, max_thresholds=3, min_support=1)
    assert sorted(set(out["threshold"].to_list())) == [0.1, 0.5]


def test_too_many_sets_advice_either_way_runs() -> None:
    df = BASE.with_columns(k=pl.Series(["u", "v", "v", "u"]))
    by = ["g", "h", "k"]
    # 3 attributes: 3 sets of one, 3 of two, 1 of three = 7 sets > 6
    message = _refused(lambda: df.fair.confusion(by, combinations="all", max_groups=6),
                       E.SizeLimitError)
    m = re.search(r"pass max_order=(\d+) \(.*\), or a larger max_groups= \(at least (\d+):",
                  message)
    # of 2 values each, the sets of one attribute hold 3 x 2 = 6 groups; of two, 3 x 4 more
    assert m and (m.group(1), m.group(2)) == ("1", "7"), message
    out = df.fair.confusion(by, combinations="all", max_order=int(m.group(1)), max_groups=6)
    assert out["attributes"].to_list() == [["g"]] * 2 + [["h"]] * 2 + [["k"]] * 2
    # or a larger max_groups: the 7 sets hold 6 + 3 x 4 + 8 = 26 groups (g x h x k: 4 rows,
    # each combination once at most: a x u, a y v, b x v, b y u = 4 of the 8)
    out = df.fair.confusion(by, combinations="all", max_groups=26)
    assert len({tuple(a) for a in out["attributes"].to_list()}) == 7


def test_too_many_sets_when_no_order_fits_advises_max_groups() -> None:
    message = _refused(lambda: BASE.fair.confusion(["g", "h"], combinations="all",
                                                   max_groups=1), E.SizeLimitError)
    m = re.search(r"pass a larger max_groups= \(at least (\d+):", message)
    assert m and m.group(1) == "3", message  # g, h and g x h; each alone holds 2 groups > 1
    # the sets hold 2 + 2 + 4 = 8 groups
    out = BASE.fair.confusion(["g", "h"], combinations="all", max_groups=8)
    assert len({tuple(a) for a in out["attributes"].to_list()}) == 3


def test_too_many_pairs_advice_runs() -> None:
    df = BASE.with_columns(g=pl.Series(["a", "b", "c", "c"]))
    message = _refused(lambda: df.fair.pairwise("g", max_pairs=5), E.SizeLimitError)
    name, value = _keyword(message.replace(", or compare", "; compare").replace(
        "; pass ", "; for example ", 1))
    assert (name, value) == ("max_pairs", 6)  # 3 groups: 3 x 2 ordered pairs
    out = df.fair.pairwise("g", max_pairs=value)
    assert out.height == 6


def test_too_many_patterns_advice_from_level_two_runs() -> None:
    args: dict[str, Any] = dict(min_support=0.01, min_denominator=1)
    # level 1: g a, b and h x, y = 4 patterns; level 2: 4 more (8 > 5)
    message = _refused(lambda: BASE.fair.divergence(["g", "h"], max_patterns=5, **args),
                       E.SizeLimitError)
    m = re.search(r"pass max_order=(\d+) \(", message)
    assert m and m.group(1) == "1", message
    out = BASE.fair.divergence(["g", "h"], max_patterns=5, max_order=int(m.group(1)), **args)
    assert sorted(map(tuple, out["attributes"].to_list())) == [("g",)] * 2 + [("h",)] * 2


def test_too_many_patterns_advice_at_level_one_runs() -> None:
    args: dict[str, Any] = dict(min_support=0.01, min_denominator=1)
    message = _refused(lambda: BASE.fair.divergence(["g", "h"], max_patterns=3, **args),
                       E.SizeLimitError)
    m = re.search(r"pass (max_order=1) with max_patterns= at least the number of values of the "
                  r"attributes taken one at a time", message)
    assert m, message
    level_one = BASE["g"].n_unique() + BASE["h"].n_unique()  # 2 + 2
    out = BASE.fair.divergence(["g", "h"], max_order=1, max_patterns=level_one, **args)
    assert out.height == level_one


# ---------------------------------------------------------------- divergence and its bins
def test_divergence_combinations_advice_drop_it_runs() -> None:
    args: dict[str, Any] = dict(min_support=0.01, min_denominator=1)
    message = _refused(lambda: BASE.fair.divergence(["g", "h"], combinations="all", **args),
                       E.InvalidArgumentError)
    assert "drop combinations= (max_order= bounds the number of attributes" in message
    out = BASE.fair.divergence(["g", "h"], **args)  # combinations= dropped
    # every combination searched itself: g (2), h (2), g x h (4)
    assert sorted(len(a) for a in out["attributes"].to_list()) == [1] * 4 + [2] * 4
    out = BASE.fair.divergence(["g", "h"], max_order=1, **args)  # and max_order= bounds it
    assert sorted(len(a) for a in out["attributes"].to_list()) == [1] * 4


AGES = pl.DataFrame({"age": [float(i) for i in range(40)], "y_true": [1, 0] * 20,
                     "y_pred": [1, 1, 0, 0] * 10})


@pytest.mark.parametrize(("bins", "want"), [
    (4, [10, 10, 10, 10]),  # 40 distinct ages in quartiles of 10
    ([10, 20.5], [10, 11, 19]),  # < 10: 0..9; [10, 20.5): 10..20; >= 20.5: 21..39
])
def test_bins_need_polars_advice_on_duckdb_runs(duck: Any, bins: Any, want: list[int]) -> None:
    from polars_fair.divergence import divergence_of_rows

    rel = duck.from_arrow(AGES.to_arrow())
    args: dict[str, Any] = dict(min_support=0.01, min_denominator=1)
    message = _refused(lambda: divergence_of_rows(rel, ["age"], bins={"age": bins}, **args),
                       E.InvalidArgumentError)
    m = re.search(r"for example rel = (rel\.select\(.+\)), and pass '(\w+)' in by= instead of "
                  r"'age'$", message)
    assert m, message
    binned = _python(m.group(1), rel=rel)
    out = divergence_of_rows(binned, [m.group(2)], **args)
    out = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert sorted(out["n"].to_list()) == sorted(want)


def test_bins_need_polars_advice_on_duckdb_keeps_tied_values_in_one_bin(duck: Any) -> None:
    # issue 19, kind 5: the advice was NTILE(k), which splits tied values by row position. 11
    # rows: age 0 (x6), 1 (x2), 2 (x2) and a missing one, 3 bins: m = 10 values, positions
    # floor(9 b / 3) = 3, 6: v_3 = 0, v_6 = 1, so <= 0: 6 rows, (0, 1]: 2, > 1: 2 (NTILE(3)
    # over the 10 values gives 4, 3, 3, two 0s in the second bin); as bins= cuts on Polars
    from polars_fair.divergence import divergence_of_rows

    ages = pl.DataFrame({"age": [0.0] * 6 + [1.0] * 2 + [2.0] * 2 + [None],
                         "y_true": [1, 0] * 5 + [1], "y_pred": [1, 1, 0, 0] * 2 + [1, 0, 1]})
    args: dict[str, Any] = dict(min_support=0.01, min_denominator=1)
    rel = duck.from_arrow(ages.to_arrow())
    message = _refused(lambda: divergence_of_rows(rel, ["age"], bins={"age": 3}, **args),
                       E.InvalidArgumentError)
    m = re.search(r"for example rel = (rel\.select\(.+\)), and pass '(\w+)' in by= instead of "
                  r"'age'$", message)
    assert m, message
    binned = _python(m.group(1), rel=rel).pl()
    assert binned.group_by(m.group(2)).len().sort(m.group(2)).rows() == [
        (None, 1), (1, 6), (2, 2), (3, 2)]
    polars = divergence_of_rows(ages, ["age"], bins={"age": 3}, **args).collect()
    assert sorted(polars["n"].to_list()) == [1, 2, 2, 6]  # and the missing age, 1 row


# ------------------------------------------------------------------ MEMBERSHIP_SHAPE
def test_membership_shape_of_a_flat_mapping_advises_the_attribute_around_it() -> None:
    df = pl.DataFrame({"y_true": [1, 0, 1], "y_pred": [1, 1, 0], "pw": [1.0, 0.5, 0.25],
                       "pb": [0.0, 0.5, 0.75]})
    flat = {"White": "pw", "Black": "pb"}
    message = _refused(lambda: polars_fair.counts(df, membership=flat), E.InvalidArgumentError)
    assert "membership takes one attribute" not in message  # two groups, not two attributes
    name, membership = _keyword(message)
    assert name == "membership"
    out = polars_fair.counts(df, membership=membership).frame.collect()
    # weighted: White holds 1 + 0.5 + 0.25 = 1.75 of the rows, Black 0 + 0.5 + 0.75 = 1.25
    assert out.sort("group").select("group", "weight_sum").rows() == [("Black", 1.25),
                                                                      ("White", 1.75)]


# --------------------------------------------------------------- CONTINUOUS_BEYOND_FLOAT
BIG = pl.DataFrame({"g": ["a", "a", "b", "b"],
                    "y": [10**16 + 1, 10**16 + 3, 10**16 + 2, 10**16 + 6]})
#: y minus its minimum 10**16 + 1: a holds 0 and 2 (mean 1, m2 2), b 1 and 5 (mean 3, m2 8)
BIG_MOMENTS = [("a", 2, 1.0, 2.0), ("b", 2, 3.0, 8.0)]


def test_continuous_beyond_float_advice_runs() -> None:
    message = _refused(lambda: polars_fair.moments(BIG, "g", y_pred="y").frame.collect(),
                       E.InvalidScoreError)
    name, expr = _keyword(message.split(" (the same offset")[0])
    assert name == "y_pred"
    out = polars_fair.moments(BIG, "g", y_pred=expr).frame.collect()
    assert out.select("g", "n", "mean_pred", "m2_pred").rows() == BIG_MOMENTS


def test_continuous_beyond_float_advice_on_duckdb_runs(duck: Any) -> None:
    rel = duck.from_arrow(BIG.to_arrow())
    message = _refused(lambda: polars_fair.moments(rel, "g", y_pred="y").frame.collect(),
                       E.InvalidScoreError)
    m = re.search(r"with SQL (.+ AS (\w+)), and pass y_pred='(\w+)'", message)
    assert m and m.group(2) == m.group(3), message
    out = polars_fair.moments(rel.select("*, " + m.group(1)), "g",
                              y_pred=m.group(3)).frame.collect()
    assert out.sort("g").select("g", "n", "mean_pred", "m2_pred").rows() == BIG_MOMENTS


def test_continuous_beyond_float_command_line_advice_runs(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    BIG.write_csv(path)
    runner = CliRunner()
    result = runner.invoke(app, ["continuous-report", str(path), "--by", "g", "--y-pred", "y"])
    assert result.exit_code == 2
    m = re.search(r'as --y-pred "(y - N)" with N a number near the column\'s minimum',
                  result.stderr)
    assert m, result.stderr
    flag = m.group(1).replace("N", str(10**16 + 1))  # the user's own number, as advised
    result = runner.invoke(app, ["continuous-report", str(path), "--by", "g", "--y-pred", flag,
                                 "--format", "csv", "--min-support", "1"])
    assert result.exit_code == 0, result.stderr
    out = pl.read_csv(result.stdout.encode())
    assert out.select("g", "mean").rows() == [("a", 1.0), ("b", 3.0)]


# ------------------------------------------------------------------ BASELINE_NOT_A_COLUMN
@pytest.mark.parametrize("values", [[1, 1, 0, 0], pl.Series([1, 1, 0, 0]), (1, 1, 0, 0)])
def test_baseline_values_advice_runs(values: Any) -> None:
    message = _refused(lambda: BASE.fair.compare("g", y_pred="y_pred", baseline=values),
                       E.InvalidArgumentError)
    m = re.search(r"for example baseline=(.+) where values is the (\w+) given", message)
    assert m and m.group(2) == type(values).__name__, message
    out = BASE.fair.compare("g", y_pred="y_pred", baseline=_python(m.group(1), values=values),
                            min_support=1)
    # the baseline selects a (both rows) and not b; y_pred selects a's first row only
    assert out["selection_rate_baseline"].to_list() == [1.0, 0.0]
    assert out["selection_rate"].to_list() == [0.5, 0.0]


def test_a_missing_baseline_is_advised_a_column_name_only() -> None:
    message = _refused(lambda: BASE.fair.compare("g", y_pred="y_pred", baseline=None),
                       E.InvalidArgumentError)
    assert message.endswith("name the column of the frame that holds the baseline model's "
                            "predictions (add it to the frame first if it is not there)")


# ------------------------------------------------------------------ MONITOR_PERIOD_DTYPE
PERIODS = pl.DataFrame({"period": ["2024-01-01", "2024-01-08"] * 2, "g": ["a", "a", "b", "b"],
                        "n": [2, 2, 2, 2], "tp": [1, 1, 1, 0], "fp": [0, 0, 0, 1],
                        "fn": [0, 0, 0, 1], "tn": [1, 1, 1, 0]})


def test_monitor_period_text_advice_runs() -> None:
    message = _refused(lambda: polars_fair.from_period_counts(PERIODS), E.InvalidArgumentError)
    table = _python(_example(message), table=PERIODS)
    assert table["period"].dtype == pl.Date
    out = polars_fair.from_period_counts(table).monitor(min_support=1).collect()
    # selection rates, (tp + fp) / n: a 1/2 both weeks; b 1/2 (2024-01-01), 1/2 (its fp)
    assert out.select("period", "g", "rate").rows() == [
        (datetime.date(2024, 1, 1), "a", 0.5), (datetime.date(2024, 1, 1), "b", 0.5),
        (datetime.date(2024, 1, 8), "a", 0.5), (datetime.date(2024, 1, 8), "b", 0.5)]


def test_monitor_period_of_integers_suggests_no_cast_it_cannot_know() -> None:
    table = PERIODS.with_columns(period=pl.Series([202401, 202402] * 2))
    message = _refused(lambda: polars_fair.from_period_counts(table), E.InvalidArgumentError)
    assert message.endswith("not by time: " + E.MONITOR_PERIOD_OTHER)
    assert "for example" not in message


# --------------------------------------------------------------------- COUNT_TOO_LARGE
def test_count_too_large_names_the_value_and_suggests_nothing() -> None:
    """COUNT_TOO_LARGE's 'for example <value>' was an example of the fault, not advice: a count
    beyond Int64 is no count of rows, so there is nothing to suggest (reworded, issue 20)."""
    big = 2**63
    table = pl.DataFrame({"g": ["a"], "n": pl.Series([big], dtype=pl.UInt64), "tp": [1],
                          "fp": [0], "fn": [0], "tn": [0]})
    message = _refused(lambda: polars_fair.from_counts(table).rates().collect(),
                       E.InvalidArgumentError)
    assert message == E.COUNT_TOO_LARGE.format(column="n", count=1, example=big)
    assert f"the first: {big}" in message and "for example" not in message


# ------------------------------------------------------------------ the same on Spark
def test_the_relation_advice_runs_on_spark(spark: Any) -> None:
    """BINS_NEED_POLARS (df.selectExpr), LEVELS_DROP (df.dropna) and NEGATIVES_DIFFER (SQL)
    followed as written on a Spark DataFrame (slow: it starts Spark, tests/conftest.py)."""
    from polars_fair.divergence import divergence_of_rows

    args: dict[str, Any] = dict(min_support=0.01, min_denominator=1)
    ages = spark.createDataFrame(AGES.to_arrow())
    message = _refused(lambda: divergence_of_rows(ages, ["age"], bins={"age": 4}, **args),
                       E.InvalidArgumentError)
    m = re.search(r"for example df = (df\.selectExpr\(.+\)), and pass '(\w+)' in by=", message)
    assert m, message
    out = divergence_of_rows(_python(m.group(1), df=ages), [m.group(2)], **args)
    out = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert sorted(out["n"].to_list()) == [10, 10, 10, 10]  # 40 distinct ages in quartiles

    nulls = spark.createDataFrame(NULLS.to_arrow())
    message = _refused(lambda: divergence_of_rows(nulls, ["g", "h"], strategy="levels",
                                                  null_groups="drop", **args),
                       E.InvalidArgumentError)
    dropped = _python(_example(message), df=nulls)  # df.dropna(subset=[...])
    assert dropped.count() == KEPT_ROWS
    out = divergence_of_rows(dropped, ["g", "h"], strategy="levels", **args)
    out = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert _divergence_rows(out) == KEPT_ROWS

    neg = spark.createDataFrame(NEG.to_arrow())
    message = _refused(lambda: polars_fair.counts(neg, "g").frame.collect(), E.InvalidLabelError)
    m = re.search(r"with SQL (.+ AS (\w+)), and pass (\w+)='(\w+)'", message)
    assert m, message
    mapped = neg.selectExpr("*", m.group(1))
    out = polars_fair.counts(mapped, "g", **{m.group(3): m.group(4)}).frame.collect()
    assert out.sort("g").select("tp", "fp", "fn", "tn").rows() == [(1, 0, 0, 1), (0, 0, 1, 1)]


@pytest.mark.parametrize(("scores", "want_rows"), [
    ([3, 9, 6, 8], 4),  # the distinct scores: 4 thresholds per group
    ([float(i) for i in range(120)], 60),  # 0:119:2 -> 0, 2, ..., 118: 60 thresholds
])
def test_default_grid_on_the_command_line_is_refused_and_its_advice_runs(
        tmp_path: Path, scores: list[float], want_rows: int) -> None:
    """The command line passed its default grid as Decimals, which the guard compared with the
    float grid and found different: scores outside [0, 1] were swept at 0.1 ... 0.9, every
    score selected at every threshold (issue 20). Now refused, with flags that run."""
    path = tmp_path / "scores.csv"
    n = len(scores)
    pl.DataFrame({"g": ["a", "b"] * (n // 2), "y_true": [1, 0] * (n // 2),
                  "s": scores}).write_csv(path)
    runner = CliRunner()
    result = runner.invoke(app, ["sweep", str(path), "--by", "g", "--y-score", "s"])
    assert result.exit_code == 2, result.stdout
    m = re.search(r"--thresholds (\S+)$", result.stderr.strip())
    assert m and "thresholds=" not in result.stderr, result.stderr
    result = runner.invoke(app, ["sweep", str(path), "--by", "g", "--y-score", "s",
                                 "--thresholds", m.group(1), "--format", "csv",
                                 "--min-support", "1"])
    assert result.exit_code == 0, result.stderr
    out = pl.read_csv(result.stdout.encode())
    assert out.height == 2 * want_rows  # every threshold, for each of the two groups
    assert out["threshold"].min() == min(scores)  # the lowest threshold selects everyone
    assert out.filter(pl.col("threshold") == min(scores))["selection_rate"].to_list() == [1.0,
                                                                                        1.0]
