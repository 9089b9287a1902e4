"""A yes/no option takes True or False only, on every method (issue 19, options checked).

``ordered="yes"`` read as true and ``ordered="no"`` read as true as well (a non-empty string is
truthy), so a multiclass audit cut "at or above" each class when the user asked it not to; the
LL 144 options ``exclude_small`` and ``plain_benchmark`` did the same. Each option below is
refused with :data:`polars_fair.errors.NOT_A_BOOL`, which names it, on the text ``"no"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E

N = 120
ROWS = pl.DataFrame({
    "g": ["a", "b"] * (N // 2),
    "y_true": [i % 2 for i in range(N)],
    "y_pred": [(i // 2) % 2 for i in range(N)],
    "y_score": [i / N for i in range(N)],
    "cls": [["L", "M", "H"][i % 3] for i in range(N)],
})

CALLS: list[tuple[str, str, dict[str, Any]]] = [
    ("multiclass_report", "ordered", {"y_pred": "cls", "classes": ["L", "M", "H"]}),
    ("bias_audit", "exclude_small", {"y_pred": "y_pred"}),
    ("bias_audit", "plain_benchmark", {"y_pred": "y_pred"}),
    ("report", "exclude_low_support", {}),
    ("summary", "exclude_low_support", {}),
    ("confusion", "normalize", {}),
    ("abroca", "pairwise", {"y_score": "y_score"}),
]


@pytest.mark.parametrize(("method", "option", "kw"), CALLS, ids=[f"{m}-{o}" for m, o, _ in CALLS])
@pytest.mark.parametrize("value", ["no", "yes", 1, None])
def test_a_yes_no_option_refuses_anything_but_a_boolean(method: str, option: str,
                                                        kw: dict[str, Any], value: Any) -> None:
    with pytest.raises(E.InvalidArgumentError, match=f"^{option} must be True or False, got "):
        out = getattr(ROWS.fair, method)("g", **kw, **{option: value})
        if isinstance(out, pl.LazyFrame):
            out.collect()


@pytest.mark.parametrize(("method", "option", "kw"), CALLS, ids=[f"{m}-{o}" for m, o, _ in CALLS])
def test_numpy_booleans_are_booleans(method: str, option: str, kw: dict[str, Any]) -> None:
    # the same call with np.False_ and with False gives the same table
    a = getattr(ROWS.fair, method)("g", **kw, **{option: np.False_})
    b = getattr(ROWS.fair, method)("g", **kw, **{option: False})
    a, b = (x.collect() if isinstance(x, pl.LazyFrame) else x for x in (a, b))
    assert a.equals(b)
