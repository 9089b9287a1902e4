"""Numbers of every kind, read by one rule on every way in (issue 19, items 2 and 6, 2nd review).

A numeric option accepts what represents a real number (numpy scalars of any width, Decimal,
Fraction): exactly where the option is decided exactly, as the float rule says where it is
compared as a float, and a refusal says why; never "not a number" for a number. The command
line reads its number options as the decimal typed and hands them to the same Python rule, so
``--threshold 0.4000000000000000000001`` is refused as ``Decimal`` is in Python, and
``--four-fifths 0.8000000000000000000001`` flags a ratio of exactly 0.8. Every expected value is
worked out by hand in the test.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.audit.gate import gate
from polars_fair.cli.entry import app
from polars_fair.cli.io import cli_message
from polars_fair.core import rules
from polars_fair.core.numbers import real

runner = CliRunner()

#: a: scores 0.9, 0.4, 0.4 (labels 1, 0, 1); b: 0.3, 0.1, 0.8 (labels 1, 0, 1)
SCORED = pl.DataFrame({"g": ["a", "a", "b", "b", "a", "b"], "y_true": [1, 0, 1, 0, 1, 1],
                       "y_pred": [1, 1, 0, 0, 0, 1], "s": [0.9, 0.4, 0.3, 0.1, 0.4, 0.8]})
#: A selects 60 of 100, B 75 of 100: A's impact ratio against B is exactly 4/5
COUNTS = pl.DataFrame({"g": ["A", "B"], "n": [100, 100], "tp": [30, 40], "fp": [30, 35],
                       "fn": [20, 10], "tn": [20, 15]})


def _confusion(threshold: object) -> list[tuple[object, ...]]:
    return SCORED.fair.confusion("g", y_score="s", threshold=threshold).rows()


# ------------------------------------------------------------------ Python: every kind of number
def test_real_reads_every_kind_of_number_and_nothing_else() -> None:
    assert real(np.int16(7)) == 7 and type(real(np.int16(7))) is int
    assert real(np.float32(0.5)) == 0.5
    assert real(np.longdouble("0.4")) == Decimal("0.4")  # the decimal it prints as
    assert real(Fraction(1, 3)) == Fraction(1, 3)
    assert real(Decimal("NaN")) != real(Decimal("NaN"))  # a float NaN, not a signalling Decimal
    assert [real(x) for x in (True, np.bool_(False), "0.5", None, [1])] == [None] * 5


@pytest.mark.parametrize("threshold", [0.4, np.longdouble("0.4"), Fraction(2, 5),
                                       Decimal("0.4"), np.float64(0.4)])
def test_a_threshold_of_any_kind_that_is_04_selects_the_same_rows(threshold: object) -> None:
    # score >= 0.4: a selects 0.9, 0.4, 0.4 (labels 1, 0, 1: tp 2, fp 1); b selects 0.8 (label
    # 1: tp 1) and not 0.3 (label 1: fn 1), 0.1 (label 0: tn 1)
    assert _confusion(threshold) == [("a", 3, 2, 1, 0, 0), ("b", 3, 1, 0, 1, 1)]


def test_a_fraction_a_float_holds_is_that_float() -> None:
    # 1/2: a selects 0.9 only (tp 1; 0.4, 0.4 not: fp 0, fn 1, tn 1); b selects 0.8 (tp 1)
    assert _confusion(Fraction(1, 2)) == [("a", 3, 1, 0, 1, 1), ("b", 3, 1, 0, 1, 1)]


def test_a_fraction_without_a_decimal_is_refused_with_why_and_its_advice_works() -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        _confusion(Fraction(1, 3))
    read = float(Fraction(1, 3))
    assert str(info.value) == E.THRESHOLD_NOT_DECIMAL.format(
        value=Fraction(1, 3), read=read, example="0.333333333333333")
    assert "not a number" not in str(info.value)
    # followed: 0.333333333333333 selects as 1/3 does here (no score lies between them):
    # a selects 0.9, 0.4, 0.4; b selects 0.8 only
    example = str(info.value).rsplit("for example ", 1)[1]
    assert _confusion(float(example)) == [("a", 3, 2, 1, 0, 0), ("b", 3, 1, 0, 1, 1)]


@pytest.mark.parametrize("four_fifths", [np.longdouble("0.8"), Fraction(4, 5), Decimal("0.8")])
def test_a_rule_threshold_of_any_kind_is_read_exactly(four_fifths: object) -> None:
    # A's impact ratio is exactly 4/5: at the threshold, not adverse
    report = polars_fair.from_counts(COUNTS).report(reference="B", four_fifths=four_fifths)
    assert report.select("g", "adverse_impact").collect().rows() == [("A", False), ("B", False)]


def test_a_rule_threshold_just_above_the_ratio_flags_it() -> None:
    # 4/5 < 0.8000000000000000000001: A is adverse (a float would have read 0.8 and passed it)
    report = polars_fair.from_counts(COUNTS).report(
        reference="B", four_fifths=Decimal("0.8000000000000000000001"))
    assert report.select("g", "adverse_impact").collect().rows() == [("A", True), ("B", False)]


@pytest.mark.parametrize("tolerance", [Decimal("0.01"), Fraction(1, 100), np.longdouble("0.01")])
def test_a_tolerance_of_any_kind_is_the_same_tolerance(tolerance: object) -> None:
    def test(t: object) -> list[tuple[object, ...]]:
        out = SCORED.fair.abroca_test("g", y_score="s", reference="a", n_permutations=20, seed=0,
                                     tolerance=t)
        return out.select("g", "abroca", "p_value").rows()

    assert test(tolerance) == test(0.01)


def test_level_of_any_kind_in_compare() -> None:
    # the comparison's intervals at level Decimal("0.9") and Fraction(9, 10) are those at 0.9
    def compare(level: object) -> list[tuple[object, ...]]:
        return SCORED.fair.compare("g", y_pred="y_pred", baseline=pl.col("s") >= 0.5,
                                   level=level).rows()

    assert compare(Decimal("0.9")) == compare(Fraction(9, 10)) == compare(0.9)


def test_bin_edges_of_any_kind_cut_the_same_bins() -> None:
    df = pl.DataFrame({"x": [0, 1, 2, 3, 4, 5, 6, 7] * 2, "y_true": [1, 0] * 8,
                       "y_pred": [1, 1, 0, 0] * 4})

    def bins(edges: list[object]) -> list[object]:
        out = df.fair.divergence("x", bins={"x": edges}, min_support=0.1, min_denominator=1)
        return sorted(out["x"].to_list())

    floats = bins([2.0, 4.5])
    # numpy floats mixed with ints used to raise Polars' TypeError; Decimal and Fraction edges
    # were "not increasing finite edges"
    assert bins([2, np.float64(4.5)]) == bins([Decimal(2), Decimal("4.5")]) == \
        bins([Fraction(2), Fraction(9, 2)]) == floats
    assert bins([2, 4]) == ["< 2", ">= 4", "[2, 4)"]  # whole edges stay integers


# ------------------------------------------------------------------ the command line: one rule
@pytest.fixture()
def scored_csv(tmp_path: Path) -> Path:
    path = tmp_path / "scored.csv"
    SCORED.write_csv(path)
    return path


@pytest.mark.parametrize(("text", "template", "fields"), [
    ("0.4000000000000000000001", E.THRESHOLD_DECIMAL_DIGITS, {}),
    ("1e-400", E.THRESHOLD_FLOAT_RANGE, {"read": 0.0}),
])
def test_the_cli_refuses_a_threshold_as_python_refuses_its_decimal(
        scored_csv: Path, text: str, template: str, fields: dict[str, object]) -> None:
    with pytest.raises(E.InvalidArgumentError) as info:
        _confusion(Decimal(text))
    assert str(info.value) == template.format(value=Decimal(text), **fields)
    result = runner.invoke(app, ["confusion", str(scored_csv), "--by", "g", "--y-score", "s",
                                 "--threshold", text])
    assert result.exit_code == 2
    assert result.output.strip() == f"polars-fair: error: {cli_message(str(info.value))}"
    assert result.output.startswith(f"polars-fair: error: --threshold {Decimal(text)} ")


def test_the_cli_reads_a_rule_threshold_exactly(tmp_path: Path) -> None:
    # A selects 3 of 5, B 3 of 4 (0.6 / 0.75 = 4/5 exactly): --four-fifths 0.8 passes A,
    # --four-fifths 0.8000000000000000000001 flags it (a float option read 0.8 and passed it)
    path = tmp_path / "ab.csv"
    pl.DataFrame({"g": ["A"] * 5 + ["B"] * 4, "y_true": [1] * 9,
                  "y_pred": [1, 1, 1, 0, 0, 1, 1, 1, 0]}).write_csv(path)

    def adverse(four_fifths: str) -> list[object]:
        result = runner.invoke(app, ["report", str(path), "--by", "g", "--reference", "B",
                                     "--four-fifths", four_fifths, "--format", "json"])
        assert result.exit_code == 0, result.output
        return [row["adverse_impact"] for row in json.loads(result.stdout)]

    assert adverse("0.8") == [False, False]
    assert adverse("0.8000000000000000000001") == [True, False]


def test_the_cli_gate_reads_its_limit_exactly(tmp_path: Path) -> None:
    # a selects 2 of 4, b 4 of 4: a's impact ratio is exactly 1/2
    path = tmp_path / "gate.csv"
    pl.DataFrame({"g": ["a"] * 4 + ["b"] * 4, "y_true": [1, 0] * 4,
                  "y_pred": [1, 1, 0, 0, 1, 1, 1, 1]}).write_csv(path)

    def check(limit: str) -> tuple[int, dict[str, object]]:
        result = runner.invoke(app, ["check", str(path), "--by", "g", "--min-support", "1",
                                     "--max-abs-ofi", "2", "--min-impact-ratio", limit,
                                     "--format", "json"])
        return result.exit_code, json.loads(result.stdout)

    code, out = check("0.5")
    assert code == 0 and out["limits"]["min_impact_ratio"] == 0.5  # type: ignore[index]
    code, out = check("0.5000000000000000000001")
    assert code == 1
    assert out["limits"]["min_impact_ratio"] == "0.5000000000000000000001"  # type: ignore[index]
    # the text shows the limit as typed, in the header and in the violation's rule
    text = runner.invoke(app, ["check", str(path), "--by", "g", "--min-support", "1",
                               "--max-abs-ofi", "2", "--min-impact-ratio",
                               "0.5000000000000000000001"])
    assert text.exit_code == 1
    assert "(impact_ratio >= 0.5000000000000000000001, |ofi| <= 2;" in text.stdout
    assert "limit >= 0.5000000000000000000001" in text.stdout
    # with a baseline, the change limits are shown as typed too
    text = runner.invoke(app, ["check", str(path), "--by", "g", "--min-support", "1",
                               "--max-abs-ofi", "2", "--baseline-pred", "y_true",
                               "--max-impact-ratio-drop", "0.0500000000000000000001"])
    assert text.exit_code in (0, 1), text.output
    assert "0.0500000000000000000001" in text.stdout


def test_the_cli_range_of_thresholds_is_exact_decimals() -> None:
    from polars_fair.cli.commands import Opt, convert

    assert convert(Opt("thresholds", "floats", None, ""), "0.1:0.3:0.1") == [
        Decimal("0.1"), Decimal("0.2"), Decimal("0.3")]  # floats gave 0.30000000000000004 - 1e-9


def test_a_number_option_that_is_no_number_is_a_usage_error(scored_csv: Path) -> None:
    result = runner.invoke(app, ["disparity", str(scored_csv), "--by", "g", "--level", "abc"])
    assert result.exit_code == 2
    assert result.output.strip() == "polars-fair: error: --level: 'abc' is not a number"


# ------------------------------------------ every number option of every analysis, every kind
def _float_options() -> list[tuple[str, str, str, float]]:
    """(class, method, option, value) for every float option of the count and score tables."""
    from polars_fair.cli.commands import analysis_methods, method_options

    values = {"threshold": 0.5, "tolerance": 0.25, "min_support": 2.0, "min_denominator": 2.0,
              "level": 0.9, "min_difference": 0.1, "min_share": 0.5}
    out = []
    for cls, method in analysis_methods().values():
        if cls.__name__ not in ("FairCounts", "FairScores") or method == "stratified":
            continue
        for o in method_options(cls, method):
            if o.kind == "float" and o.target == "method":
                value = o.default if o.default is not None else values.get(o.name, 0.5)
                out.append((cls.__name__, method, o.name, float(value)))
    return out


@pytest.mark.parametrize(("owner", "method", "option", "value"), _float_options())
def test_every_float_option_takes_every_kind_of_the_same_number(
        owner: str, method: str, option: str, value: float) -> None:
    # Decimal, Fraction and numpy's widest float of the value give the float's result
    table = polars_fair.counts(SCORED, "g") if owner == "FairCounts" else \
        polars_fair.scores(SCORED, "g", y_score="s")
    extra: dict[str, object] = {"n_permutations": 20, "seed": 0} if method == "abroca_test" \
        else {"thresholds": [0.3, 0.5]} if method in ("sweep", "thresholds") else {}

    def run(v: object) -> pl.DataFrame:
        return getattr(table, method)(**{option: v}, **extra).collect()

    want = run(value)
    for kind in (Decimal(repr(value)), Fraction(repr(value)), np.longdouble(repr(value))):
        assert run(kind).equals(want), (option, kind)


# ------------------------------------------- numpy floats of every width: the decimal printed
# (issue 19, third review, item 2). Scores 0.00, 0.05, ..., 0.95 (20 rows, alternating a/b);
# score >= 0.3 holds 0.30, 0.35, ..., 0.95: 14 rows (7 of a: 0.30, 0.40, ..., 0.90; 7 of b).
# np.float32(0.3) read as its binary value 0.30000001192092896 left 0.30 out: 13 rows.
TWENTY = pl.DataFrame({"g": ["a", "b"] * 10, "y_true": [1, 0, 0, 1] * 5,
                       "s": [round(0.05 * i, 2) for i in range(20)]})
NARROW_03 = [np.float32(0.3), np.float16(0.3), np.array([0.3], dtype=np.float32)[0]]


@pytest.mark.parametrize("value", [np.float32(0.3), np.float16(0.3), np.float32(0.8),
                                   np.float16(0.1), np.float32(1 / 3)])
def test_a_narrow_numpy_float_is_the_decimal_it_prints_as(value: Any) -> None:
    printed = Fraction(str(value))  # 0.3, 0.3, 0.8, 0.1, 0.33333334
    assert real(value) == float(str(value))
    assert rules.exact(value) == printed


@pytest.mark.parametrize("threshold", NARROW_03)
@pytest.mark.parametrize("kind", ["eager", "lazy", "streaming"])
def test_a_float32_threshold_selects_the_rows_at_the_printed_decimal(threshold: Any,
                                                                    kind: str) -> None:
    frame = TWENTY if kind == "eager" else TWENTY.lazy()
    out = frame.fair.confusion("g", y_score="s", threshold=threshold)
    if kind != "eager":
        out = out.collect(engine="streaming" if kind == "streaming" else "auto")
    assert int((out["tp"] + out["fp"]).sum()) == 14


@pytest.mark.parametrize("threshold", NARROW_03)
def test_a_float32_threshold_on_duckdb_selects_the_same_rows(threshold: Any) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    relation = con.from_arrow(TWENTY.to_arrow())
    out = polars_fair.counts(relation, "g", y_score="s", threshold=threshold).confusion().collect()
    assert int((out["tp"] + out["fp"]).sum()) == 14


def test_a_float32_grid_of_sweep_and_thresholds_is_read_item_by_item() -> None:
    grid = np.array([0.3, 0.35], dtype=np.float32)  # >= 0.35: 13 rows
    swept = TWENTY.fair.sweep("g", y_score="s", thresholds=grid, min_support=1)
    selected = swept.group_by("threshold").agg((pl.col("tp") + pl.col("fp")).sum()).sort(
        "threshold")
    assert selected.rows() == [(0.3, 14), (0.35, 13)]
    table = TWENTY.fair.thresholds("g", y_score="s", thresholds=grid)
    assert table["selection_rate"].to_list() == [14 / 20, 13 / 20]
    scored = polars_fair.scores(TWENTY, "g", y_score="s")
    assert scored.thresholds(thresholds=pl.Series([0.3], dtype=pl.Float32)).collect()[
        "selection_rate"].to_list() == [14 / 20]


@pytest.mark.parametrize("four_fifths", [np.float32(0.8), np.float16(0.8)])
def test_a_float32_rule_threshold_is_4_5_on_every_way_in(four_fifths: Any) -> None:
    # A selects 60/100, B 75/100: A's impact ratio is exactly 4/5, at the threshold: it passes
    audit = polars_fair.from_counts(COUNTS)
    report = audit.report(reference="B", four_fifths=four_fifths).collect()
    assert report["adverse_impact"].to_list() == [False, False]
    gate_rows = gate(audit, reference="B", min_impact_ratio=four_fifths, min_support=1)
    assert gate_rows.filter(pl.col("metric") == "impact_ratio")["passed"].to_list() == [True, True]
