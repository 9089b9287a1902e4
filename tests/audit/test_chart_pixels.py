"""Issue 19, kind 2: a chart's rendered pixels are bounded before rendering (chart_pixels).

``plot.save(plot.pairwise_heatmap(df.fair.pairwise("g")), "x.png")`` at 100 groups wrote a
9434x9370 PNG (818 MB, 33 s); pairwise allows 1,000 groups (about 80 GB). The size is read from
the chart's spec (no rendering), so every refusal here is immediate.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polars_fair import errors as E
from polars_fair.audit.plot import check_render_size, save, to_svg
from polars_fair.core.limits import LIMITS


def _heatmap_spec(groups: int, cell: int = 46) -> dict[str, object]:
    # the spec pairwise_heatmap makes: a layer whose width and height are cell_size x groups
    return {"title": {"text": "OFI(i, j)"}, "width": cell * groups, "height": cell * groups,
            "layer": [{"mark": "rect"}, {"mark": "text"}]}


def test_the_limit_is_declared() -> None:
    assert LIMITS["chart_pixels"].limit == 40_000_000


def test_the_reviewers_heatmap_png_is_refused_before_rendering(tmp_path: Path) -> None:
    pytest.importorskip("vl_convert")
    path = tmp_path / "x.png"
    with pytest.raises(E.SizeLimitError) as err:
        save(_heatmap_spec(100), path)
    # by hand: 46 x 100 = 4,600 pixels a side, x 2 (the default scale) squared:
    # 4,600 x 4,600 x 4 = 84,640,000 > 40,000,000; sqrt(40e6 / 4,600^2) = 1.374 -> 1.3
    assert str(err.value) == (
        "save: the chart 'OFI(i, j)' would render 4,600 x 4,600 pixels at scale=2.0 "
        "(84,640,000 pixels), more than its limit chart_pixels 40,000,000; pass scale=1.3 (or "
        "smaller), or chart fewer groups (a smaller cell_size= for pairwise_heatmap)")
    assert not path.exists()


def test_the_advice_fits() -> None:
    # followed (the check only: rendering 4,600 x 4,600 at 1.3 is 36 million pixels):
    # 4,600^2 x 1.69 = 35,760,400 <= 40,000,000
    check_render_size(_heatmap_spec(100), 1.3, png=True)
    check_render_size(_heatmap_spec(100, cell=20), 2.0, png=True)  # 2,000^2 x 4 = 16,000,000


def test_1000_groups_are_refused_as_svg_without_scale_advice() -> None:
    pytest.importorskip("vl_convert")
    with pytest.raises(E.SizeLimitError) as err:
        to_svg(_heatmap_spec(1_000))
    # by hand: 46,000 x 46,000 = 2,116,000,000 pixels at scale 1
    assert "to_svg: the chart 'OFI(i, j)' would render 46,000 x 46,000 pixels at scale=1.0 " \
        "(2,116,000,000 pixels)" in str(err.value)
    assert "scale=" not in str(err.value).split(";", 1)[1]


def test_facet_panels_multiply() -> None:
    # 170 x 170 panels, one per group: 1,400 groups -> 40,460,000 > 40,000,000; 1,384 fit
    def spec(groups: int) -> dict[str, object]:
        return {"datasets": {"d": [{"group": f"g{i}"} for i in range(groups)]},
                "facet": {"field": "group", "type": "nominal"},
                "spec": {"width": 170, "height": 170, "mark": "line"}}

    check_render_size(spec(1_384))
    with pytest.raises(E.SizeLimitError, match=r"170 x 170 pixels in 1,400 panels"):
        check_render_size(spec(1_400))


def test_the_html_figures_are_bounded_before_any_is_sent() -> None:
    from polars_fair.audit.svg_process import render_ahead

    # 46,000 x 46,000 = 2,116,000,000 pixels: refused before the helper renders anything
    with pytest.raises(E.SizeLimitError, match="^the page's figure: the chart 'OFI"):
        render_ahead(["not drawn", _heatmap_spec(1_000)])
