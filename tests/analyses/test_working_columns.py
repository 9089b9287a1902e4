"""A user's column named like an internal working column gives the right answer (issue 19,
third review, item 5).

Internal columns carry the reserved ``__pf_`` prefix, and a user attribute with that prefix is
refused. The analyses that used unprefixed working columns (``__n``, ``__c``, ``__b``,
``__cb`` in compare; ``__size`` in continuous_report; ``__x``, ``__m``, ``__w``, ``__set``,
``__row``, ``__key`` in divergence; ``__polars_fair_group`` in calibration; ``__a_n``,
``__a_w`` in proxy_report; ``__mu``, ``__m2`` in the membership counts; ``__worse`` in the
comparison page) now use prefixed ones: an attribute with one of the old names is audited as
any other. Each expected value is worked out by hand below, and the result under the old name
equals the result under a neutral name.
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E

#: a: 6 rows (labels 1,0,1,0,1,1; predictions 1,1,0,0,1,1): selected 4 of 6, tp 3, fp 1
#: b: 6 rows (labels 0,1,0,0,1,0; predictions 0,1,1,0,0,0): selected 2 of 6, tp 1, fp 1
ROWS = pl.DataFrame({
    "g": ["a"] * 6 + ["b"] * 6,
    "y_true": [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0],
    "y_pred": [1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0],
    "base": [1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0],
    "score": [0.9, 0.8, 0.3, 0.2, 0.7, 0.6, 0.1, 0.5, 0.6, 0.2, 0.4, 0.3],
    "out": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
})
OLD_NAMES = ["__n", "__c", "__b", "__cb", "__size", "__x", "__m", "__w", "__set", "__row",
             "__key", "__a_n", "__a_w", "__mu", "__m2", "__worse", "__polars_fair_group"]


def _as(name: str) -> pl.DataFrame:
    return ROWS.rename({"g": name})


def _same(got: pl.DataFrame, want: pl.DataFrame, name: str) -> None:
    assert got.columns == [name if c == "g" else c for c in want.columns]
    assert got.rename({name: "g"}).equals(want)


@pytest.mark.parametrize("name", OLD_NAMES)
def test_divergence_of_an_attribute_named_like_its_working_columns(name: str) -> None:
    got = _as(name).fair.divergence([name], min_support=0.1)
    want = ROWS.fair.divergence(["g"], min_support=0.1)
    # by hand: the selection rate is 6/12 = 0.5 overall, a: 4/6, b: 2/6; divergence +1/6, -1/6
    row = got.filter(pl.col(name) == "a").row(0, named=True)
    assert row["n"] == 6 and row["divergence"] == pytest.approx(4 / 6 - 0.5, abs=1e-15)
    assert got["attributes"].to_list() == [[name], [name]]
    assert got.drop("attributes").rename({name: "g"}).equals(want.drop("attributes"))


@pytest.mark.parametrize("name", OLD_NAMES)
def test_compare_of_an_attribute_named_like_its_working_columns(name: str) -> None:
    got = _as(name).fair.compare(name, y_pred="y_pred", baseline="base")
    want = ROWS.fair.compare("g", y_pred="y_pred", baseline="base")
    # by hand: the baseline selects a: 3 of 6 (rows 1, 5, 6), b: 2 of 6 (rows 7, 8)
    assert got["selection_rate_baseline"].to_list() == [3 / 6, 2 / 6]
    assert got["selection_rate"].to_list() == [4 / 6, 2 / 6]
    _same(got, want, name)


@pytest.mark.parametrize("name", OLD_NAMES)
def test_continuous_report_of_an_attribute_named_like_its_working_columns(name: str) -> None:
    got = _as(name).fair.continuous_report(name, y_pred="out", smd_sd="population")
    want = ROWS.fair.continuous_report("g", y_pred="out", smd_sd="population")
    # by hand: a's mean (1+...+6)/6 = 3.5, b's (2+...+7)/6 = 4.5
    assert got["mean"].to_list() == [3.5, 4.5]
    _same(got, want, name)


#: calibration is computed from the reliability table: its columns were working columns too
RELIABILITY_NAMES = ["bin", "bin_low", "bin_high", "mean_score", "fraction_positive", "_s", "_p",
                     "_weighted_gap"]


@pytest.mark.parametrize("name", OLD_NAMES + RELIABILITY_NAMES)
def test_calibration_of_an_attribute_named_like_its_working_columns(name: str) -> None:
    got = _as(name).fair.calibration(name, y_score="score", n_bins=2)
    want = ROWS.fair.calibration("g", y_score="score", n_bins=2)
    # by hand, bins [0, 0.5] and (0.5, 1]: a's (0.5, 1] holds 0.9, 0.8, 0.7, 0.6 (labels 1, 0,
    # 1, 1: mean 0.75, positives 3/4, gap 0), its [0, 0.5] 0.3, 0.2 (labels 1, 0: gap 0.25):
    # ECE 2·0.25/6 = 1/12. b's (0.5, 1] holds 0.6 (label 0: gap 0.6), its [0, 0.5] 0.1, 0.5,
    # 0.2, 0.4, 0.3 (labels 0, 1, 0, 1, 0: mean 0.3, positives 0.4, gap 0.1): ECE 1.1/6
    assert got["ece"].to_list() == pytest.approx([1 / 12, 1.1 / 6], abs=1e-12)
    _same(got, want, name)


def test_calibration_without_attributes_and_a_column_named_like_the_old_key() -> None:
    # the old working key of an audit by=[] was "__polars_fair_group": a column of that name
    # in the frame (not audited) no longer matters. By hand, bins [0, 0.5] and (0.5, 1]:
    # (0.5, 1] holds 0.9, 0.8, 0.7, 0.6, 0.6 (labels 1, 0, 1, 1, 0): mean score 3.6/5 = 0.72,
    # positives 3/5, gap 0.12; [0, 0.5] holds 0.3, 0.2, 0.1, 0.5, 0.2, 0.4, 0.3 (labels 1, 0,
    # 0, 1, 0, 1, 0): mean 2/7, positives 3/7, gap 1/7. ECE = (5·0.12 + 7·(1/7)) / 12 = 1.6/12
    frame = ROWS.with_columns(pl.lit(1).alias("__polars_fair_group"))
    got = frame.fair.calibration([], y_score="score", n_bins=2)
    assert got["ece"].to_list() == [pytest.approx(1.6 / 12, abs=1e-12)]
    assert got["max_calibration_error"].to_list() == [pytest.approx(1 / 7, abs=1e-12)]


@pytest.mark.parametrize("name", ["__n", "__a_n", "__a_w", "__mu", "__m2"])
def test_proxy_report_of_a_key_named_like_its_working_columns(name: str) -> None:
    # membership probabilities 1/0 (crisp): the proxy report is the plain report of g
    rows = ROWS.with_columns(p_a=(pl.col("g") == "a").cast(pl.Float64),
                             p_b=(pl.col("g") == "b").cast(pl.Float64),
                             k=pl.lit("x")).rename({"k": name})
    got = rows.fair.proxy_report(name, membership={"grp": {"a": "p_a", "b": "p_b"}},
                                 y_true="y_true", y_pred="y_pred", min_support=0)
    want = rows.rename({name: "k"}).fair.proxy_report(
        "k", membership={"grp": {"a": "p_a", "b": "p_b"}}, y_true="y_true", y_pred="y_pred",
        min_support=0)
    assert got["selection_rate_weighted"].to_list() == pytest.approx([4 / 6, 2 / 6], abs=1e-12)
    assert got.rename({name: "k"}).equals(want)


@pytest.mark.parametrize("name", ["__pf_x", "__pf_size"])
def test_a_user_attribute_with_the_reserved_prefix_is_refused(name: str) -> None:
    with pytest.raises(E.InvalidArgumentError, match="clash"):
        _as(name).fair.report(name)


def _unprefixed_working_columns() -> list[Any]:
    """Every string literal ``"__name"`` in polars_fair that names a column without the prefix."""
    import re
    from pathlib import Path

    root = Path(polars_fair.__file__).parent
    dunders = ("name|init|all|module|doc|wrapped|future|class|main|forward_arg|index|"
               "no_reference|pycache")  # dunders, a sentinel text and a folder: no columns
    dunder = re.compile(rf"""["']__(?!pf_)(?!(?:{dunders})__)[a-z][a-z0-9_]*["']""")
    return [f"{p.relative_to(root)}: {m.group(0)}" for p in sorted(root.rglob("*.py"))
            for m in dunder.finditer(p.read_text())]


def test_no_working_column_is_left_without_the_reserved_prefix() -> None:
    assert _unprefixed_working_columns() == []
