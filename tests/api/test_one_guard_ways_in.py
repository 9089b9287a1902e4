"""Issue 19 kind 7, sixth review: guards that differed by the way in, now one guard each.

The same bad input is refused with the same type and message whichever way it arrives: a
reference mapping naming an attribute that is not audited (proxy_report cut it silently), a
Decimal attribute with more than 50 values (judged as a float is), a binned attribute of
divergence too fine to form groups (described by its own dtype, with advice to pass fewer bins).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import polars_fair
from polars_fair import errors as E


def _message(call: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(E.PolarsFairError) as info:
        call()
    return type(info.value), str(info.value)


# ------------------------------------------------------------------ reference attributes
# three rows' membership probabilities of groups A and B (they sum to 1 on each row)
PROXY = pl.DataFrame({"y_pred": [1, 0, 1, 0, 1, 1], "p_a": [0.9, 0.2, 0.5, 0.1, 0.7, 0.4],
                      "k": ["q", "r"] * 3}).with_columns(p_b=1 - pl.col("p_a"))
MEMBERSHIP = {"m": {"A": "p_a", "B": "p_b"}}


@pytest.mark.parametrize("call", [
    lambda ref: PROXY.fair.proxy_report(membership=MEMBERSHIP, y_true=None, reference=ref,
                                        min_support=0),
    lambda ref: polars_fair.proxy_report(PROXY.lazy(), membership=MEMBERSHIP, y_true=None,
                                         reference=ref, min_support=0),
    lambda ref: polars_fair.proxy_counts(PROXY, membership=MEMBERSHIP, y_true=None)
    .proxy_report(reference=ref, min_support=0),
    lambda ref: PROXY.fair.counts(membership=MEMBERSHIP, y_true=None).report(
        reference=ref).collect(),
    lambda ref: PROXY.fair.counts(membership=MEMBERSHIP, y_true=None).disparity(
        reference=ref).collect(),
], ids=["proxy_report", "proxy_report lazy", "proxy_counts", "counts report", "disparity"])
def test_a_membership_reference_naming_an_attribute_not_audited_is_refused(call: Any) -> None:
    # the audited attributes are ['m'] (the membership attribute); 'zz' is not one of them, so
    # the mapping is refused as every method refuses it (proxy_report used A and dropped zz)
    want = E.BAD_REFERENCE_MAPPING.format(keys=["m"], got=["m", "zz"])
    assert _message(lambda: call({"m": "A", "zz": "q"})) == (E.InvalidArgumentError, want)


def test_a_membership_reference_over_the_audited_attribute_is_used() -> None:
    # the same call with {"m": "A"}: A is the reference, B is not
    out = PROXY.fair.proxy_report(membership=MEMBERSHIP, y_true=None, reference={"m": "A"},
                                  min_support=0)
    assert out.select("m", "is_reference").rows() == [("A", True), ("B", False)]
