"""Analyses over the score table.

ROC curves, exact ABROCA, the permutation test and its power, calibration. Numpy lives
here, on small tables only.
"""
