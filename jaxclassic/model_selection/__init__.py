"""Splits, vmapped cross-validation and grid search, bootstrap, bias-variance, curves."""
# each module adds its public names below, one import a line
