"""Row-level and count-level ``pl.Expr`` builders.

The public path of :mod:`polars_fair.core.expressions`,
where the code and its list of public names (``__all__``) live; this module keeps the
documented import path.
"""

from __future__ import annotations

from polars_fair.core.expressions import *  # noqa: F403
from polars_fair.core.expressions import __all__ as __all__
