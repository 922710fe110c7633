"""The package's warning classes, defined once for the functional core and the estimators.

:class:`ConvergenceWarning` subclasses scikit-learn's ``sklearn.exceptions.ConvergenceWarning``
when scikit-learn is installed (so ``warnings.filterwarnings("ignore", category=
sklearn.exceptions.ConvergenceWarning)`` silences ours too), and ``UserWarning`` otherwise:
the core does not need scikit-learn.
"""

from __future__ import annotations

try:  # scikit-learn is an optional extra
    from sklearn.exceptions import ConvergenceWarning as _SklearnConvergenceWarning
except ImportError:  # pragma: no cover - exercised only without the extra
    _SklearnConvergenceWarning = UserWarning

__all__ = [
    "ConvergenceWarning",
    "PerfectSeparationWarning",
    "RankDeficientWarning",
]


class ConvergenceWarning(_SklearnConvergenceWarning):
    """An iterative fit stopped at ``max_iter``, on a refused line-search step, or without
    meeting its tolerance."""


class PerfectSeparationWarning(UserWarning):
    """The classes are (quasi-)perfectly separated and the unpenalised fit has no finite optimum."""


class RankDeficientWarning(UserWarning):
    """The weighted, centred Gram matrix of a least-squares fit is singular."""
