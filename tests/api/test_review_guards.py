"""One guard on every way in, for the cases the review of issue 19 found (defects 8 and 9).

- ``stratified`` refuses a reference mapping that names an attribute it does not compare (a
  stratum, or a column not audited), as every other analysis does.
- ``bias-audit`` refuses a CSV row with more fields than its header, as every command does:
  Polars checks the number of fields only when every column is read.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.cli.entry import app

ROWS = pl.DataFrame({
    "race": ["A", "A", "B", "B"] * 4,
    "sex": ["M", "F"] * 8,
    "age": [30] * 16,
    "y_true": [1, 0] * 8,
    "y_pred": [1, 1, 0, 0, 1, 0, 1, 0] * 2,
})


@pytest.mark.parametrize("reference", [{"race": "A", "age": 30}, {"race": "A", "sex": "M"}])
def test_stratified_refuses_a_mapping_beyond_the_compared_attributes(reference: dict[str, object]
                                                                     ) -> None:
    # race is compared within the strata of sex: the mapping may name race only; naming the
    # stratum says so (issue 23, second review: it said "must name exactly ['race']")
    with pytest.raises(E.InvalidArgumentError) as info:
        ROWS.fair.stratified("race", "sex", reference=reference)
    assert str(info.value) == (
        E.REFERENCE_IS_STRATUM.format(column="sex", groups=["race"]) if "sex" in reference
        else E.BAD_REFERENCE_MAPPING.format(keys=["race"], got=list(reference)))
    with pytest.raises(E.InvalidArgumentError):  # the same on a count table
        polars_fair.from_counts(ROWS.fair.confusion(["race", "sex"])).stratified(
            ["race", "sex"], strata="sex", reference=reference).collect()


def test_stratified_accepts_a_mapping_of_the_compared_attribute() -> None:
    out = ROWS.fair.stratified("race", "sex", reference={"race": "A"})
    assert out.filter(pl.col("is_reference"))["race"].to_list() == ["A"]


def test_bias_audit_refuses_a_csv_row_with_an_extra_field(tmp_path: Path) -> None:
    path = tmp_path / "extra.csv"
    path.write_text("g,y_true,y_pred\na,1,1\nb,0,1,EXTRA\na,0,0\nb,1,0\n")
    for command in (["bias-audit", str(path), "--category", "g", "--y-pred", "y_pred"],
                    ["confusion", str(path), "--by", "g", "--y-pred", "y_pred"]):
        result = CliRunner().invoke(app, [*command, "--format", "json"])
        assert result.exit_code == 2, command
        error = json.loads(result.stdout)
        assert error["error"] == "InvalidInputError"
        # issue 19, fourth review, item 8: the file and the line (3: header, a, then this
        # row), counted, instead of Polars' wording without either
        assert error["message"] == E.CSV_EXTRA_FIELDS.format(path="extra.csv", line=3,
                                                             found=4, expected=3)


# ---------------------------------------------- issue 19, fourth review, item 2
def test_count_table_key_with_the_reserved_prefix_is_refused_like_rows() -> None:
    from polars_fair import from_counts
    from polars_fair.api.compare import from_paired_counts
    from polars_fair.counting.paired import PAIRED_CELLS

    cells = {"n": [4, 6], "tp": [1, 2], "fp": [1, 1], "fn": [1, 1], "tn": [1, 2]}
    table = pl.DataFrame({"__pf_x": ["a", "b"], **cells})
    # rows refuse the name too (the same typed error)
    rows = pl.DataFrame({"__pf_x": ["a", "b"], "y": [1, 0], "p": [1, 0]})
    with pytest.raises(E.InvalidArgumentError, match="__pf_x"):
        rows.fair.confusion("__pf_x", y_true="y", y_pred="p").collect()
    for keys in (None, "__pf_x"):
        with pytest.raises(E.InvalidArgumentError,
                           match=r"key column\(s\) \['__pf_x'\] of the count table start with "
                           r"'__pf_'.*table.rename\(\{'__pf_x': 'x'\}\)"):
            from_counts(table, keys)
    # the advice followed: renamed, the table is read (groups a and b, n = 4 and 6 as given)
    renamed = from_counts(table.rename({"__pf_x": "x"}))
    assert renamed.frame.collect().sort("x").select("x", "n").rows() == [("a", 4), ("b", 6)]
    paired = pl.DataFrame({"__pf_w": ["a"], "n": [1], **{c: [0] for c in PAIRED_CELLS}})
    with pytest.raises(E.InvalidArgumentError, match="of the paired count table"):
        from_paired_counts(paired)
