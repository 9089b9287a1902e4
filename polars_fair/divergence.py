"""The worst-off subgroups (divergence).

The public path of :mod:`polars_fair.analyses.divergence`, where the code and its list of public
names (``__all__``) live, with :func:`~polars_fair.api.rows.divergence_of_rows` (from rows); this
module keeps the documented import path.
"""

from __future__ import annotations

from polars_fair.analyses.divergence import *  # noqa: F403
from polars_fair.analyses.divergence import __all__ as _counts_names
from polars_fair.api.rows import divergence_of_rows as divergence_of_rows

__all__ = sorted([*_counts_names, "divergence_of_rows"])
