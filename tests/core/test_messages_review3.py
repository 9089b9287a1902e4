"""Messages of the third fresh-user review, each a kind (issue 19, item 4).

A missing group value reads ``(missing)`` in every message that lists groups; a page's
``max_groups`` limit says what the user passed (the groups the page shows), not a count
table's groups; a typed error is raised once, never chained to a copy of itself.
"""

from __future__ import annotations

import traceback

import polars as pl
import pytest

import polars_fair  # noqa: F401  (registers .fair)
from polars_fair import errors as E
from polars_fair.audit.html import audit_html
from polars_fair.core.labels import cli_group, shown_group

#: a: 2 rows, b: 1 row, missing: 1 row
ROWS = pl.DataFrame({"g": ["a", "a", "b", None], "h": ["x", "y", "x", "x"],
                     "y_true": [1, 0, 1, 1], "y_pred": [1, 1, 0, 1]})


def test_an_unknown_reference_lists_a_missing_group_as_missing() -> None:
    with pytest.raises(E.UnknownGroupError) as info:
        ROWS.fair.report("g", reference="z")
    assert str(info.value) == ("reference group 'z' does not exist; the groups are: "
                               "['a', 'b', (missing)]")
    with pytest.raises(E.UnknownGroupError) as info:
        ROWS.fair.report(["g", "h"], reference={"g": "z", "h": "x"})
    assert str(info.value) == (
        "reference group {'g': 'z', 'h': 'x'} does not exist; the groups are: "
        "[{'g': 'a', 'h': 'x'}, {'g': 'a', 'h': 'y'}, {'g': 'b', 'h': 'x'}, "
        "{'g': (missing), 'h': 'x'}]")
    # the command line's twin: attr=value, never a mapping
    assert info.value.cli_message == (
        "--reference 'g=z,h=x' names no group; the groups are: "
        "'g=a,h=x', 'g=a,h=y', 'g=b,h=x', 'g=(missing),h=x' (each as --reference takes it)")


def test_the_text_missing_and_a_missing_value_stay_apart() -> None:
    assert repr(shown_group(None)) == "(missing)" and repr(shown_group("(missing)")) == \
        "'(missing)'"
    assert cli_group({"g": "(missing)"}) == 'g="(missing)"'
    assert cli_group({"g": None}) == "g=(missing)"


def test_the_page_max_groups_limit_says_what_was_passed() -> None:
    with pytest.raises(E.SizeLimitError) as info:
        audit_html(ROWS, "g", max_groups=10**12)
    assert str(info.value) == (
        "max_groups=1,000,000,000,000 is more than its limit 10,000,000 (the groups the page "
        "shows: a row of each table and of its data block (default 50)); pass a smaller "
        "max_groups")
    assert "count table" not in str(info.value)


@pytest.mark.parametrize("call", [
    lambda: ROWS.fair.divergence(["h"], min_support=0.0),
    lambda: ROWS.fair.report("h", four_fifths=2),
    lambda: ROWS.fair.report("h", reference="z"),
    lambda: ROWS.lazy().fair.report("h", reference="z").collect(),
])
def test_a_typed_error_is_raised_once(call: object) -> None:
    with pytest.raises(E.PolarsFairError) as info:
        call()  # type: ignore[operator]
    # no "During handling of the above exception" with the same error above it
    assert info.value.__context__ is None or info.value.__suppress_context__
    text = "".join(traceback.format_exception(info.value))
    assert text.count(type(info.value).__name__ + ":") == 1
