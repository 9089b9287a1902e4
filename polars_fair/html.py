"""The HTML audit page.

The public path of :mod:`polars_fair.audit.html`,
where the code and its list of public names (``__all__``) live; this module keeps the
documented import path.
"""

from __future__ import annotations

from polars_fair.audit.html import *  # noqa: F403
from polars_fair.audit.html import __all__ as __all__
