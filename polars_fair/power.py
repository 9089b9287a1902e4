"""Power of the ABROCA randomization test.

The public path of :mod:`polars_fair.analyses.scores.power`,
where the code and its list of public names (``__all__``) live; this module keeps the
documented import path.
"""

from __future__ import annotations

from polars_fair.analyses.scores.power import *  # noqa: F403
from polars_fair.analyses.scores.power import __all__ as __all__
