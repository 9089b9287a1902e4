"""Issue 19, kind 4: subgroup items by identity, never by their printed text.

An item is (attribute, value, missing); an attribute set is its list of names. A missing value
and the text ``"None"`` (or ``"null"``) are different groups, an attribute name may hold ``=``
or ``,``, and nothing is found by splitting or joining text.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair.analyses.explain import global_shapley_values, shapley_values, top_divergent

# y_true is 0 everywhere, so the FPR is the share predicted positive. Overall 4 of 8: 0.5.
#   d = missing: 3 of 4 (Δ = +0.25)      d = "None": 1 of 4 (Δ = -0.25)
#   s = F: 2 of 4 (Δ = 0)                s = M: 2 of 4 (Δ = 0)
#   (missing, F): 2 of 2 (+0.5)  (missing, M): 1 of 2 (0)  ("None", F): 0 of 2 (-0.5)
#   ("None", M): 1 of 2 (0)
ROWS = pl.DataFrame({
    "d": [None, None, None, None, "None", "None", "None", "None"],
    "s": ["F", "F", "M", "M", "F", "F", "M", "M"],
    "y_true": [0] * 8,
    "y_pred": [1, 1, 1, 0, 0, 0, 1, 0],
})


def _divergence(df: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    return df.fair.divergence(by, metric="fpr", min_support=0.25, null_groups="keep")


def _pattern(df: pl.DataFrame, d: str | None, s: str | None, column: str) -> list[object]:
    def key(name: str, value: str | None) -> pl.Expr:
        return pl.col(name).is_null() if value is None else pl.col(name) == value

    return df.filter(key("d", d) & key("s", s))[column].to_list()


def test_a_missing_value_and_the_text_none_are_two_items() -> None:
    d = _divergence(ROWS, ["d"])
    assert sorted(zip(d["d"].to_list(), d["divergence"].to_list(), strict=True),
                  key=str) == [("None", -0.25), (None, 0.25)]
    s = shapley_values(d)
    # one item per pattern: its Shapley value is its own divergence (it was -0.25 for both)
    assert _pattern(s.with_columns(s=pl.lit(None, pl.String)), None, None, "shapley") == [0.25]
    assert _pattern(s.with_columns(s=pl.lit(None, pl.String)), "None", None, "shapley") == [
        -0.25]
    assert s["item_attribute"].to_list() == ["d", "d"]


def test_shapley_of_two_items_reads_the_right_parents() -> None:
    s = shapley_values(_divergence(ROWS, ["d", "s"]))
    pairs = s.filter(pl.col("attributes").list.len() == 2)
    # (missing, F): phi(d) = 1/2 (0.25 - 0) + 1/2 (0.5 - 0) = 0.375, phi(s) = 1/2 (0.5 - 0.25)
    got = dict(zip(_pattern(pairs, None, "F", "item_attribute"),
                   _pattern(pairs, None, "F", "shapley"), strict=True))
    assert got == pytest.approx({"d": 0.375, "s": 0.125})
    # ("None", F): phi(d) = 1/2 (-0.25) + 1/2 (-0.5) = -0.375, phi(s) = 1/2 (-0.5 + 0.25)
    got = dict(zip(_pattern(pairs, "None", "F", "item_attribute"),
                   _pattern(pairs, "None", "F", "shapley"), strict=True))
    assert got == pytest.approx({"d": -0.375, "s": -0.125})


def test_top_divergent_judges_each_pattern_on_its_own_parents() -> None:
    top = top_divergent(_divergence(ROWS, ["d", "s"]))
    # by hand, epsilon 0: s=F and s=M equal the empty pattern (0); (missing, M) and ("None", M)
    # equal their parent s=M (0): redundant. The rest differ from every parent.
    kept = sorted(((r["d"], r["s"]) for r in top.iter_rows(named=True)), key=str)
    assert kept == sorted([(None, None), ("None", None), (None, "F"), ("None", "F")], key=str)


@pytest.mark.parametrize(("d_name", "s_name"), [("d", "s"), ("d=1", "s=t=2"), ("a,b", "a|b")])
def test_global_shapley_does_not_split_names(d_name: str, s_name: str) -> None:
    df = ROWS.rename({"d": d_name, "s": s_name})
    g = global_shapley_values(_divergence(df, [d_name, s_name]))
    # m_d = m_s = 2 items per attribute, |A| = 2. For d = missing:
    #   J = {}: 0! 1! / (2! * 2) = 1/4 of +0.25; J = {s=F}: 1! 0! / (2! * 2 * 2) = 1/8 of
    #   (0.5 - 0); J = {s=M}: 1/8 of (0 - 0): 0.0625 + 0.0625 = 0.125. d = "None": -0.125.
    #   s = F: 1/8 (0.5 - 0.25) + 1/8 (-0.5 + 0.25) = 0; s = M: 1/8 (0 - 0.25) + 1/8 (0 + 0.25)
    got = {(r["attribute"], r["missing"], r["item"]): r["global_shapley"]
           for r in g.iter_rows(named=True)}
    assert got == pytest.approx({
        # the missing value's item reads (missing), the text "None" None (issue 19, fourth
        # review, item 10: both read "=None" before)
        (d_name, True, f"{d_name}=(missing)"): 0.125, (d_name, False, f"{d_name}=None"): -0.125,
        (s_name, False, f"{s_name}=F"): 0.0, (s_name, False, f"{s_name}=M"): 0.0})


def test_combinations_over_a_column_named_like_a_set_keeps_the_sets_apart() -> None:
    df = pl.DataFrame({"a": ["x", "y", "x", "y"], "b": ["p", "p", "q", "q"],
                       "a,b": ["u", "v", "v", "u"], "y_true": [1, 0, 1, 0],
                       "y_pred": [1, 1, 0, 0]})
    r = df.fair.report(["a", "b", "a,b"], combinations="all")
    # by hand: 3 single sets of 2 values (6 rows), 3 pairs of 4 observed combinations (12),
    # the triple with its 4 rows (4): 22 (28 when ["a,b"] and ["a", "b"] were one set)
    assert r.height == 22
    sizes = {tuple(k): v for k, v in r.group_by("attributes").len().iter_rows()}
    assert sizes == {("a",): 2, ("b",): 2, ("a,b",): 2, ("a", "b"): 4, ("a", "a,b"): 4,
                     ("b", "a,b"): 4, ("a", "b", "a,b"): 4}
    # every row's n is its own set's count: the set ["a,b"] holds u (2 rows) and v (2 rows)
    one = r.filter(pl.col("attributes") == pl.lit(["a,b"], dtype=pl.List(pl.String)))
    assert sorted(one.select("a,b", "n").rows()) == [("u", 2), ("v", 2)]


def test_summary_labels_a_missing_group_apart_from_the_text_null() -> None:
    # selection rates: missing 2/2 = 1, "null" 0/2 = 0, "a" 1/2
    df = pl.DataFrame({"g": [None, None, "null", "null", "a", "a"], "y_true": [1, 0] * 3,
                       "y_pred": [1, 1, 0, 0, 1, 0]})
    s = df.fair.summary("g", null_groups="keep")
    dp = s.filter(pl.col("metric") == "demographic_parity_difference").row(0, named=True)
    assert (dp["value"], dp["group_1"], dp["group_2"]) == (1.0, "(missing)", "null")
    quoted = df.with_columns(pl.col("g").replace({"null": "(missing)"}))
    dp = quoted.fair.summary("g", null_groups="keep").filter(
        pl.col("metric") == "demographic_parity_difference").row(0, named=True)
    assert (dp["group_1"], dp["group_2"]) == ("(missing)", '"(missing)"')
