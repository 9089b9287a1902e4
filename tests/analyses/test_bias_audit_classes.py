"""NYC LL 144 for a tool that classifies (issue 22 item 3): one selection table per class.

The expected table is counted by hand below; 6 RCNY § 5-301(b)(4) asks for the selection rate
and impact ratio of each category for each classification.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.api.rows import bias_audit
from polars_fair.cli.entry import app

# 100 applicants: F 59 (A 30, B 19, C 10), M 39 (A 13, B 13, C 13), X 1 (B), unknown 1 (A)
STYLES = pl.DataFrame({
    "sex": ["F"] * 59 + ["M"] * 39 + ["X", None],
    "style": ["A"] * 30 + ["B"] * 19 + ["C"] * 10 + ["A"] * 13 + ["B"] * 13 + ["C"] * 13
             + ["B", "A"],
})


def _by_hand(exclude_small: bool) -> dict[tuple[str, str | None], tuple[int, float | None]]:
    """(class, sex) -> (selected, impact ratio), from the counts above."""
    rates = {
        "A": {"F": Fraction(30, 59), "M": Fraction(13, 39), "X": Fraction(0), None: Fraction(1)},
        "B": {"F": Fraction(19, 59), "M": Fraction(13, 39), "X": Fraction(1), None: Fraction(0)},
        "C": {"F": Fraction(10, 59), "M": Fraction(13, 39), "X": Fraction(0), None: Fraction(0)},
    }
    sizes = {"F": 59, "M": 39, "X": 1, None: 1}
    out: dict[tuple[str, str | None], tuple[int, float | None]] = {}
    for c, by_sex in rates.items():
        # the unknown category is never in the impact ratios; X (1 %) only with exclude_small;
        # the benchmark: F (59) and M (39) have report's 30 applicants, X (1) has not (issue
        # 20 fix item 4), so X's ratio is against them (3.0 in class B: 1 / (13/39))
        eligible = [s for s in ("F", "M", "X") if not (exclude_small and s == "X")]
        top = max(by_sex[s] for s in ("F", "M"))
        for s, r in by_sex.items():
            ratio = float(r / top) if s in eligible else None
            out[(c, s)] = (int(r * sizes[s]), ratio)
    return out


@pytest.mark.parametrize("exclude_small", [False, True])
def test_the_per_class_table_is_the_hand_counted_one(exclude_small: bool) -> None:
    out = bias_audit(STYLES, ["sex"], y_pred="style", classes=["A", "B", "C"],
                     exclude_small=exclude_small).collect()
    assert out.columns == ["class", "attributes", "sex", "n", "selected", "selection_rate",
                           "share", "small_category", "unknown_category", "excluded",
                           "impact_ratio", "unknown_rows", "benchmark_eligible"]
    expected = _by_hand(exclude_small)
    assert out.height == 12
    for r in out.iter_rows(named=True):
        selected, ratio = expected[(r["class"], r["sex"])]
        assert r["selected"] == selected
        assert r["impact_ratio"] == ratio
        assert r["unknown_rows"] == 1
        assert r["small_category"] == (r["sex"] in ("X", None))  # 1 % < 2 %
        assert r["excluded"] == (r["sex"] is None or (exclude_small and r["sex"] == "X"))
    assert out["class"].to_list() == ["A"] * 4 + ["B"] * 4 + ["C"] * 4


def test_an_enum_with_more_than_two_categories_is_audited_per_class() -> None:
    df = STYLES.with_columns(pl.col("style").cast(pl.Enum(["A", "B", "C"])))
    out = df.fair.bias_audit(["sex"], y_pred="style")
    assert out["class"].unique(maintain_order=True).to_list() == ["A", "B", "C"]
    assert out.drop("class").equals(
        bias_audit(STYLES, ["sex"], y_pred="style", classes=["A", "B", "C"]).collect()
        .drop("class"))


def test_a_binary_selection_keeps_its_table_without_a_class_column() -> None:
    df = STYLES.with_columns(hired=(pl.col("style") == "A").cast(pl.Int64))
    out = df.fair.bias_audit(["sex"], y_pred="hired")
    assert "class" not in out.columns
    per_class = df.fair.bias_audit(["sex"], y_pred="hired", classes=[0, 1])
    assert per_class.filter(pl.col("class") == 1).drop("class").equals(out)


def test_the_command_line_audits_a_column_of_more_than_two_values_per_class(
        tmp_path: Path) -> None:
    path = tmp_path / "styles.csv"
    STYLES.write_csv(path)
    result = CliRunner().invoke(app, ["bias-audit", str(path), "--category", "sex",
                                      "--y-pred", "style", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["outcome"] == "classification"
    # the command line's provenance names its flags (issue 22 re-review item 5: it wrote
    # "classes" beside "--category", "--y-pred", ...)
    params = doc["provenance"]["parameters"]
    assert params["--classes"] == ["A", "B", "C"]
    assert all(name.startswith("--") for name in params), sorted(params)
    expected = _by_hand(False)
    got = {(r["class"], r["sex"]): (r["selected"], r["impact_ratio"]) for r in doc["results"]}
    assert got == expected
    binary = tmp_path / "hired.csv"
    STYLES.with_columns(hired=(pl.col("style") == "A").cast(pl.Int64)).write_csv(binary)
    result = CliRunner().invoke(app, ["bias-audit", str(binary), "--category", "sex",
                                      "--y-pred", "hired", "--format", "json"])
    doc = json.loads(result.stdout)
    assert doc["outcome"] == "selection" and "--classes" not in doc["provenance"]["parameters"]
    assert all(name.startswith("--") for name in doc["provenance"]["parameters"])
    assert all("class" not in r for r in doc["results"])
