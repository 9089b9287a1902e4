"""The public objects and the ways in.

:class:`~polars_fair.api.objects.FairCounts` and :class:`~polars_fair.api.objects.FairScores` hold
a count or score table and carry every analysis as a method;
:func:`~polars_fair.api.objects.counts`, :func:`~polars_fair.api.objects.scores`,
:func:`~polars_fair.api.external.from_counts` and :func:`~polars_fair.api.external.from_scores` make
them; :mod:`~polars_fair.api.namespace` is the ``df.fair`` / ``lf.fair`` namespace over them.
"""
