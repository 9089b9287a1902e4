"""NYC Local Law 144 bias audits.

The public path of :mod:`polars_fair.analyses.bias_audit` (the audit over count and score
tables) and of :func:`polars_fair.api.rows.bias_audit` (the audit of rows); this module keeps
the documented import path ``from polars_fair.bias_audit import bias_audit``.
"""

from __future__ import annotations

from polars_fair.analyses.bias_audit import *  # noqa: F403
from polars_fair.analyses.bias_audit import __all__ as _analysis_names
from polars_fair.api.rows import bias_audit

__all__ = [*_analysis_names, "bias_audit"]
