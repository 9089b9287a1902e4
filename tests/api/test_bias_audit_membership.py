"""``df.fair.bias_audit(..., membership=...)`` (issue 24, fix 24a item 1).

LL 144's audit from rows takes estimated membership as availability and divergence do: the
argmax estimator's crisp groups are a category; the weighted estimator's table, which counts a
row in every group it may belong to, is refused with a typed error saying why, whose advice
(``membership_estimator='argmax'``) works when followed; a score or class audit refuses it.
"""

from __future__ import annotations

import re

import polars as pl
import pytest

import polars_fair  # noqa: F401 - registers df.fair
from polars_fair import errors as E

M = {"g": {"a": "p_a", "b": "p_b"}}
#: p_a > 0.5 on rows 0-3 (argmax a), < 0.5 on rows 4-7 (argmax b)
ROWS = pl.DataFrame({
    "y_pred": [1, 0, 0, 1, 1, 1, 0, 1], "y_score": [0.9, 0.1, 0.4, 0.6, 0.8, 0.7, 0.3, 0.95],
    "p_a": [0.9, 0.8, 0.7, 0.6, 0.3, 0.2, 0.1, 0.4], "h": ["x", "y"] * 4,
}).with_columns(p_b=1 - pl.col("p_a"))


def test_the_weighted_table_is_refused_and_the_advice_works() -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        ROWS.fair.bias_audit(["h"], y_pred="y_pred", membership=M)
    message = str(err.value)
    assert message.startswith("bias_audit does not take a weighted membership count table "
                              "(with n_effective): LL 144's shares divide")
    advice = re.search(r"Count with (membership_estimator='argmax')", message)
    assert advice, message
    out = ROWS.fair.bias_audit(["h"], y_pred="y_pred", membership=M, min_share=0,
                               **{"membership_estimator": "argmax"})
    # by hand: a = rows 0-3, selected 1, 0, 0, 1 (2 of 4); b = rows 4-7, 1, 1, 0, 1 (3 of 4):
    # impact ratios 0.5 / 0.75 = 2/3 and 1; h: x = rows 0, 2, 4, 6 (1, 0, 1, 0: 2 of 4),
    # y = rows 1, 3, 5, 7 (0, 1, 1, 1: 3 of 4); a·x = rows 0, 2 (1 of 2), a·y = rows 1, 3
    # (1 of 2), b·x = rows 4, 6 (1 of 2), b·y = rows 5, 7 (2 of 2)
    got = out.select("g", "h", "n", "selected", "impact_ratio").rows()
    assert got == [
        ("a", None, 4, 2, pytest.approx(2 / 3, rel=1e-15)), ("b", None, 4, 3, 1.0),
        (None, "x", 4, 2, pytest.approx(2 / 3, rel=1e-15)), (None, "y", 4, 3, 1.0),
        ("a", "x", 2, 1, 0.5), ("a", "y", 2, 1, 0.5), ("b", "x", 2, 1, 0.5),
        ("b", "y", 2, 2, 1.0)]


def test_the_argmax_audit_equals_the_crisp_audit_of_the_most_likely_group() -> None:
    crisp = ROWS.with_columns(g=pl.when(pl.col("p_a") >= pl.col("p_b")).then(pl.lit("a"))
                              .otherwise(pl.lit("b")))
    want = crisp.fair.bias_audit(["g"], y_pred="y_pred", min_share=0)
    for lazy in (False, True):
        frame = ROWS.lazy() if lazy else ROWS
        got = frame.fair.bias_audit([], y_pred="y_pred", membership=M,
                                    membership_estimator="argmax", min_share=0)
        got = got.collect() if isinstance(got, pl.LazyFrame) else got
        assert got.equals(want)
        assert got["selection_rate"].to_list() == [0.5, 0.75]  # 2 of 4, 3 of 4


@pytest.mark.parametrize(("options", "table"), [
    ({"y_score": "y_score"}, "score table"), ({"y_pred": "y_pred", "classes": [0, 1]},
                                              "class table")])
def test_a_score_or_class_audit_refuses_membership_saying_why(options: dict[str, object],
                                                              table: str) -> None:
    with pytest.raises(E.InvalidArgumentError) as err:
        ROWS.fair.bias_audit(["h"], membership=M, membership_estimator="argmax", **options)
    assert str(err.value).startswith(
        f"bias_audit does not take membership= (estimated group membership): its {table} "
        "counts each row in exactly one group")


def test_estimator_without_membership_is_refused() -> None:
    with pytest.raises(E.InvalidArgumentError, match="membership_estimator='argmax' applies "
                       "to membership probabilities only: pass membership= too"):
        ROWS.fair.bias_audit(["h"], y_pred="y_pred", membership_estimator="argmax")
