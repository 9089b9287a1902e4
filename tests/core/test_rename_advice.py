"""Every piece of rename advice works the first time it is followed, on each kind of input.

Issue 19, fourth review, item 2: an attribute with the reserved prefix ``__pf_`` was advised
``.alias('__pf_x' + '_attr')``, which keeps the prefix and is refused again; a count table's key
named like an output column (``metric``) was advised ``by=pl.col(...)``, which a count table
cannot take. Each test below reads the advice from the message and follows it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import polars_fair
from polars_fair import errors as E
from polars_fair.cli.entry import app

ROWS = pl.DataFrame({"__pf_x": ["a", "b"] * 4, "g": ["a", "b"] * 4,
                     "y_true": [1, 0, 1, 1] * 2, "y_pred": [1, 1, 0, 1] * 2})
COUNTS = pl.DataFrame({"k": ["a", "b"], "n": [4, 4], "tp": [2, 1], "fp": [0, 1], "fn": [1, 1],
                       "tn": [1, 1]})


def _advice(message: str) -> str:
    m = re.search(r"for example (.+)$", message)
    assert m, message
    return m.group(1)


def _refused(call: object) -> str:
    with pytest.raises(E.InvalidArgumentError) as err:
        call()  # type: ignore[operator]
    return str(err.value)


def test_a_prefixed_column_is_renamed_without_the_prefix_and_runs() -> None:
    advice = _advice(_refused(lambda: ROWS.fair.report("__pf_x")))
    assert advice == "by=pl.col('__pf_x').alias('x')"
    by = eval(advice[len("by="):], {"pl": pl})
    out = ROWS.fair.report(by, min_support=1)
    # the groups of __pf_x: a has rows 1, 3, 5, 7 (4 rows), b the other 4
    assert out["x"].to_list() == ["a", "b"] and out["n"].to_list() == [4, 4]


def test_a_doubly_prefixed_expression_is_named_once_and_runs() -> None:
    message = _refused(lambda: ROWS.fair.report(pl.col("g").alias("__pf___pf_g")))
    assert _advice(message) == "by=<the expression>.alias('g')"  # the prefix dropped twice
    out = ROWS.fair.report(pl.col("g").alias("g"), min_support=1)
    assert out["g"].to_list() == ["a", "b"]


def test_the_command_line_advice_for_a_prefixed_column_runs(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    ROWS.write_csv(path)
    runner = CliRunner()
    result = runner.invoke(app, ["report", str(path), "--by", "__pf_x"])
    assert result.exit_code == 2
    flags = shlex.split(_advice(result.stderr.strip()))
    assert flags == ["--by", '"__pf_x" AS x']
    result = runner.invoke(app, ["report", str(path), *flags, "--min-support", "1",
                                 "--format", "csv"])
    assert result.exit_code == 0, result.stderr
    assert pl.read_csv(result.stdout.encode())["x"].to_list() == ["a", "b"]


@pytest.mark.parametrize("key", ["__pf_k", "__pf___pf_k"])
def test_a_prefixed_count_table_key_is_renamed_in_the_table(key: str) -> None:
    table = COUNTS.rename({"k": key})
    advice = _advice(_refused(lambda: polars_fair.from_counts(table)))
    assert advice == f"table.rename({{{key!r}: 'k'}})"
    renamed = eval(advice, {"table": table})
    assert polars_fair.from_counts(renamed).keys == ["k"]


@pytest.mark.parametrize(("key", "method"), [("metric", "summary"), ("metric", "disparity"),
                                             ("ofi", "report"), ("k_i", "pairwise")])
def test_a_count_table_key_named_like_an_output_is_renamed_in_the_table(key: str,
                                                                        method: str) -> None:
    # k_i beside k: read as k's pair column by pairwise (two keys, one table)
    table = COUNTS.rename({"k": key}) if key != "k_i" else \
        COUNTS.with_columns(pl.col("k").alias("k_i")).select("k", "k_i", *COUNTS.columns[1:])
    message = _refused(lambda: getattr(polars_fair.from_counts(table), method)().collect())
    advice = _advice(message)
    assert advice == f"table.rename({{{key!r}: {key + '_attr'!r}}})", message
    assert "by=" not in message
    out = getattr(polars_fair.from_counts(eval(advice, {"table": table})), method)().collect()
    # the groups a and b are named under the new key (summary: in group_1 / group_2)
    named = {"summary": "group_1", "pairwise": "k_i_attr_i"}.get(method, key + "_attr")
    assert set(out[named].drop_nulls().to_list()) <= {"a", "b"} and out.height > 0
    if method == "summary":  # a selects tp + fp = 2 of 4, b 1 + 1 = 2 of 4: no gap
        row = out.filter(pl.col("metric") == "demographic_parity_difference")
        assert row["value"].to_list() == [0.0]
    else:
        assert named in out.columns


def test_a_score_table_key_named_like_an_output_is_renamed_in_the_table() -> None:
    table = pl.DataFrame({"auc": ["a", "b"], "score": [0.5, 0.5], "positives": [1, 1],
                          "negatives": [1, 1]})
    advice = _advice(_refused(lambda: polars_fair.from_scores(table).abroca().collect()))
    assert advice == "table.rename({'auc': 'auc_attr'})"
    out = polars_fair.from_scores(eval(advice, {"table": table})).abroca().collect()
    # one score per group, tied between the positive and the negative: AUC 1/2 each
    assert out["auc_attr"].to_list() == ["a", "b"] and out["auc"].to_list() == [0.5, 0.5]


@pytest.mark.parametrize(("name", "method"), [("ece", "membership_calibration"),
                                              ("verdict", "proxy_report")])
def test_a_membership_attribute_named_like_an_output_is_renamed_in_the_mapping(
        name: str, method: str) -> None:
    rows = pl.DataFrame({"p": [0.5, 0.25, 1.0, 0.0] * 3, "y_pred": [1, 0, 1, 1] * 3,
                         "known": ["a", "b", "a", "b"] * 3})
    membership = {name: {"a": pl.col("p"), "b": 1 - pl.col("p")}}
    extra = {"known": "known", "bins": 2} if method == "membership_calibration" else \
        {"y_true": None}
    advice = _advice(_refused(lambda: getattr(rows.fair, method)(membership=membership,
                                                                 **extra)))
    assert advice == f"membership={{{name + '_attr'!r}: membership[{name!r}]}}"
    followed = eval(advice[len("membership="):], {"membership": membership})
    out = getattr(rows.fair, method)(membership=followed, **extra)
    assert out[name + "_attr"].unique().sort().to_list() == ["a", "b"]
