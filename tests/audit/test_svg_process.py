"""The chart renderer's helper process (polars_fair.audit.svg_process): the same SVG and the
same page as rendering in this process, and a fallback that renders here when it cannot."""

from __future__ import annotations

import datetime as dt
import re
import sys

import pytest

pytest.importorskip("vl_convert")

from polars_fair.audit import svg_process as sp  # noqa: E402
from polars_fair.audit.html import audit_html  # noqa: E402
from polars_fair.audit.plot import to_svg  # noqa: E402
from polars_fair.datasets import make_hiring  # noqa: E402

SPEC = {"mark": "bar", "data": {"values": [{"a": 1.5, "b": "x"}, {"a": 0.25, "b": "y"}]},
        "encoding": {"x": {"field": "a", "type": "quantitative"},
                     "y": {"field": "b", "type": "nominal"}}}
WHEN = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def test_the_helper_renders_what_to_svg_renders() -> None:
    helper = sp.SvgProcess()
    try:
        got = [helper.submit(SPEC), helper.submit({**SPEC, "mark": "point"})]
        assert got[0].result(timeout=120) == to_svg(SPEC)
        assert got[1].result(timeout=120) == to_svg({**SPEC, "mark": "point"})
    finally:
        helper.close()
    assert not helper.alive
    assert helper.submit(SPEC).exception() is not None  # ended: nothing more is rendered


def test_a_spec_the_helper_refuses_is_rendered_here_and_raises_as_before() -> None:
    bad = {"mark": "bar", "data": {"url": "https://example.com/data.csv"},
           "encoding": {"x": {"field": "a", "type": "quantitative"}}}
    helper = sp.SvgProcess()
    try:
        pending = helper.submit(bad)
        assert isinstance(pending.exception(timeout=120), sp.SvgRenderError)
        with pytest.raises(Exception) as here:  # noqa: PT011  (vl-convert's own error type)
            to_svg(bad)
        with pytest.raises(type(here.value)):
            sp.svg_of(bad, pending)
    finally:
        helper.close()


def test_a_helper_that_ends_at_once_leaves_the_rendering_here() -> None:
    helper = sp.SvgProcess([sys.executable, "-c", "pass"])
    pending = helper.submit(SPEC)
    assert isinstance(pending.exception(timeout=60), sp.SvgRenderError)
    assert sp.svg_of(SPEC, pending) == to_svg(SPEC)
    helper.close()


def test_the_page_is_the_same_with_and_without_the_helper(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    df = make_hiring(800, seed=3)
    kwargs = {"y_score": "y_score", "threshold": 0.5, "n_permutations": 50, "generated": WHEN}
    with_helper = audit_html(df, "sex", **kwargs)
    assert sp.svg_process() is not None
    monkeypatch.setattr(sp, "svg_process", lambda: None)  # every chart rendered here
    here = audit_html(df, "sex", **kwargs)
    assert with_helper.count("<svg") >= 4 and "gradient_" in here
    # vl-convert numbers a colour gradient's id by the renderer's count of gradients so far,
    # which differs between two renderers (and between two calls on one): the rest is equal
    assert re.sub(r"gradient_\d+", "gradient_", here) == re.sub(r"gradient_\d+", "gradient_",
                                                                  with_helper)
