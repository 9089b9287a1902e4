"""The documented spelling ``polars_fair.audit.gate.gate`` works after ``import polars_fair``
alone (issue 20, fix item 9), in a fresh process, without loading the audit package at import."""

from __future__ import annotations

import subprocess
import sys


def test_the_documented_dotted_path_works_in_a_fresh_process() -> None:
    code = ("import sys, polars_fair; assert 'polars_fair.audit' not in sys.modules; "
            "g = polars_fair.audit.gate.gate; print(g.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "polars_fair.audit.gate"


def test_an_unknown_attribute_is_still_an_attribute_error() -> None:
    import pytest

    import polars_fair

    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        polars_fair.nope  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        polars_fair.audit.nope  # noqa: B018
