"""``polars-fair check`` with sample weights: which rows its support counts (fix 24a item 4).

A weighted table's support is its rows of positive weight (``n_positive_weight``, as the
report's column and ``support_size`` say), not ``n``, which counts rows of weight 0 too. The
check compared ``n_positive_weight`` with ``--min-support`` but wrote ``with n >= 15`` and
``not checked (n < 15)`` of a group of n = 20, and the reference's size as ``n`` rows. Now the
header, the JSON's ``support`` and ``counted`` and the summary name what they count; the same
for the argmax estimator of estimated membership (a crisp weighted table).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from polars_fair.cli.entry import app

runner = CliRunner()
#: 40 rows (8 repeated 5 times); a = rows with p_a > 0.5 (positions 0, 1, 4, 5), b the others;
#: weight 0 at positions 1 and 4, both in a: a has n = 20 but 10 rows of positive weight,
#: b has n = 20 and 20 of positive weight (30 in all)
ROWS = pl.DataFrame({
    "y_true": [1, 0, 1, 0, 1, 0, 1, 0] * 5, "y_pred": [1, 0, 0, 1, 1, 1, 0, 1] * 5,
    "p_a": [0.9, 0.8, 0.3, 0.2, 0.7, 0.6, 0.1, 0.4] * 5,
    "w": [1.0, 0.0, 2.0, 1.0, 0.0, 1.0, 1.0, 1.0] * 5,
}).with_columns(p_b=1 - pl.col("p_a"),
                g=pl.when(pl.col("p_a") > 0.5).then(pl.lit("a")).otherwise(pl.lit("b")))
WAYS = {"crisp": ["--by", "g"],
        "argmax": ["--membership", "a_or_b=a:p_a,b:p_b", "--membership-estimator", "argmax"]}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_check_names_the_rows_of_positive_weight(way: str, tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    args = ["check", str(path), *WAYS[way], "--sample-weight", "w", "--min-support", "15"]
    text = runner.invoke(app, args).stdout
    name = "g" if way == "crisp" else "a_or_b"
    assert "with n_positive_weight >= 15 checked" in text, text
    assert "40 rows, 30 of positive weight)" in text
    assert f"not checked (n_positive_weight < 15): {name}=a" in text
    assert f"reference group: {name}=b (20 rows of positive weight; the largest group with " \
           "at least 15 rows of positive weight)" in text
    result = json.loads(runner.invoke(app, [*args, "--format", "json"]).stdout)
    assert (result["support"], result["rows"], result["counted"]) == (
        "n_positive_weight", 40, "40 rows, 30 of positive weight")
    assert result["skipped_low_support"] == [f"{name}=a"]
    # the report's own columns, for the same groups: n 20 and 20, n_positive_weight 10 and 20
    report = runner.invoke(app, ["report", str(path), *WAYS[way], "--sample-weight", "w",
                                 "--columns", f"{name},n,n_positive_weight", "--format", "csv"])
    assert pl.read_csv(report.stdout.encode()).rows() == [("a", 20, 10), ("b", 20, 20)]


def test_without_weights_the_support_is_n_rows(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    result = json.loads(runner.invoke(app, ["check", str(path), "--by", "g", "--min-support",
                                            "15", "--format", "json"]).stdout)
    assert (result["support"], result["counted"], result["skipped_low_support"]) == (
        "n", "40 rows", [])
