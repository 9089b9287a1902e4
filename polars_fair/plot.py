"""Charts of the audit (Altair/Vega-Lite).

The public path of :mod:`polars_fair.audit.plot` and :mod:`polars_fair.audit.change_plot`
(the charts of ``compare`` and ``monitor``), where the code and its lists of public names
(``__all__``) live; this module keeps the documented import path.
"""

from __future__ import annotations

from polars_fair.audit.change_plot import *  # noqa: F403
from polars_fair.audit.change_plot import __all__ as _change_all
from polars_fair.audit.plot import *  # noqa: F403
from polars_fair.audit.plot import __all__ as _plot_all

__all__ = [*_plot_all, *_change_all]
