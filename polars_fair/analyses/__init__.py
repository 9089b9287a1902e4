"""Analyses: pure plans over the small count table.

Report, pairwise, summary, uncertainty, divergence, the LL144 bias audit and threshold sweeps;
:mod:`~polars_fair.analyses.scores` holds
those over the score table (ROC curves, exact ABROCA, its permutation test and power,
calibration). Imports ``counting`` and ``core``; never the objects, the namespace or a surface.
"""
