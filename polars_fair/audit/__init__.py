"""The audit surfaces: the CI gate, charts, styled tables and the HTML audit page.

Built on the objects of :mod:`polars_fair.api`; nothing below imports them.
"""
