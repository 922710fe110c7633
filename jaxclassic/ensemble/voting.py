r"""Voting: combine the predictions of several different fits (any families) by weighted vote.

Given fitted models :math:`f_1, \dots, f_M` with weights :math:`w_m \ge 0`:

- **hard** voting (classification) predicts the class of largest weighted vote count,

  .. math:: \hat y(x) = \arg\max_k \sum_m w_m [\hat y_m(x) = k],

  the lowest class on ties (scikit-learn's ``argmax(bincount(..., weights))``);
- **soft** voting (classification) averages the class probabilities,

  .. math:: \hat p(k \mid x) = \frac{\sum_m w_m\, p_m(k \mid x)}{\sum_m w_m},
            \qquad \hat y(x) = \arg\max_k \hat p(k \mid x);

- regression averages the predictions, :math:`\hat y(x) = \sum_m w_m \hat y_m(x) / \sum_m w_m`.

Every base fit sees the same data and the same ``sample_weight`` (so a row of weight 0 has no
influence on the ensemble, since it has none on any fit of the package); the members are
fitted one after another (different fits: no ``vmap``). Their params are kept in a tuple (a
pytree), and every prediction goes through the package-wide registry
(:mod:`jaxclassic._dispatch`): voting never names a family.

These are scikit-learn's ``VotingClassifier`` / ``VotingRegressor`` rules; one departure:
``predict_proba`` of a hard-voting ensemble returns the weighted vote shares (scikit-learn
has none for ``voting="hard"``).

References
----------
L. I. Kuncheva, *Combining Pattern Classifiers*, 2nd ed., Wiley (2014), ch. 4 (majority and
weighted majority vote), ch. 5 (averaging of class probabilities).
T. G. Dietterich, "Ensemble methods in machine learning", MCS 2000, LNCS 1857.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _deprecation
from jaxclassic import _dispatch
from jaxclassic.ensemble._api import predict, predict_proba
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_classification_targets,
    check_sample_weight,
    is_traced,
)

__all__ = [
    "VotingParams",
    "ClassificationVoting",
    "RegressionVoting",
    "fit_voting",
]


class VotingParams(NamedTuple):
    """``M`` fitted members of any families and their vote weights.

    Attributes
    ----------
    estimators : tuple of params pytrees
        The members' params, in the order of ``fits``.
    weights : (M,) float
        Vote weights :math:`w_m` (not normalised; predictions divide by their sum).
    classes : (C,) int32
        ``0..C-1`` (classification); empty for regression.
    soft : () bool
        ``voting == "soft"``: average probabilities rather than count votes.
    """

    estimators: tuple
    weights: jax.Array
    classes: jax.Array
    soft: jax.Array


class ClassificationVoting(VotingParams):
    """Voting classifier: hard (weighted votes) or soft (weighted mean probabilities).

    ``n_classes`` (a read-only property, not a pytree leaf) is ``C``, the length of
    ``classes`` (a static shape: a Python int).
    """

    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[-1])


class RegressionVoting(VotingParams):
    """Voting regressor: weighted mean of the members' predictions."""


# --------------------------------------------------------------------------- checks
def check_fits(fits, name: str = "fits") -> tuple:
    """A non-empty sequence of callables ``fit(X, y, *, sample_weight=...) -> params``."""
    if callable(fits) or not isinstance(fits, Sequence) or isinstance(fits, str):
        raise TypeError(f"{name} must be a sequence of fit callables, got {type(fits).__name__}")
    fits = tuple(fits)
    if not fits:
        raise ValueError(f"{name} must hold at least one fit, got an empty sequence")
    for i, fit in enumerate(fits):
        if not callable(fit):
            raise TypeError(f"{name}[{i}] must be a callable fit(X, y, *, sample_weight, ...), "
                            f"got {type(fit).__name__}")
    return fits


def check_weights(weights, n_members: int, dtype) -> jax.Array:
    """Member weights: ``None`` gives ones; else ``(n_members,)``, finite, >= 0, not all 0."""
    if weights is None:
        return jnp.ones((n_members,), dtype)
    if is_traced(weights):
        if jnp.shape(weights) != (n_members,):
            raise ValueError(f"weights must have length {n_members} (one per fit), got shape {jnp.shape(weights)}")
        return weights.astype(dtype)
    w = np.asarray(weights, dtype=np.float64) if not isinstance(weights, jax.Array) else np.asarray(weights)
    if w.ndim != 1 or w.shape[0] != n_members:
        raise ValueError(f"weights must have length {n_members} (one per fit), got shape {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"weights must be finite and non-negative, got {w.tolist()}")
    if not (w > 0).any():
        raise ValueError("weights must have at least one positive value, got all zeros")
    return jnp.asarray(w, dtype)


def check_data(X, y, sample_weight, *, classification: bool, n_classes=None):
    """``(n_samples, float dtype, y, sample_weight, n_classes)`` of a meta-ensemble's input.

    ``X`` only needs to be 2-d here (the member fits validate it); ``y`` is class codes with
    at least two classes among the positive-weight rows, or finite real targets."""
    Xc = X if is_traced(X) else check_array(X, "X", allow_nan=True)
    n_samples = Xc.shape[0]
    dtype = Xc.dtype if jnp.issubdtype(Xc.dtype, jnp.floating) else None
    sw = check_sample_weight(sample_weight, n_samples, dtype=dtype)
    if classification:
        y, n_classes = check_classification_targets(y, "y", min_classes=2, n_classes=n_classes,
                                                     sample_weight=sw)
    elif not is_traced(y):
        y = check_array(y, "y", ndim=1, dtype=sw.dtype)
    if np.shape(y) != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},), got {np.shape(y)}")
    return n_samples, sw.dtype, y, sw, n_classes


def check_proba_columns(params, X, n_classes: int, what: str) -> None:
    """The member's ``predict_proba`` has ``n_classes`` columns (shape only: no compile)."""
    shape = jax.eval_shape(lambda p: _dispatch.predict_proba(p, X), params).shape
    if len(shape) != 2 or shape[1] != n_classes:
        raise ValueError(f"{what}'s predict_proba gives shape {shape}, expected (n, {n_classes}): "
                         "fix the fit's n_classes (functools.partial) to the number of classes")


# --------------------------------------------------------------------------- fit
def fit_voting(
    fits: Sequence[Callable],
    X,
    y,
    *,
    voting: str = "hard",
    weights=None,
    n_classes: int | None = None,
    sample_weight=None,
    task: str = "classification",
) -> VotingParams:
    r"""Fit every member on the same data and combine them by weighted vote or average.

    Parameters
    ----------
    fits : sequence of callables
        ``fit(X, y, *, sample_weight=...) -> params`` of any family (hyperparameters through
        ``functools.partial``); each params type must be registered in
        :mod:`jaxclassic._dispatch` (``predict``; ``predict_proba`` for soft voting).
    X : (n_samples, n_features) array-like
        Passed to every fit as given (the fits validate it).
    y : (n_samples,) array-like
        Class codes ``0..C-1`` (classification) or real targets (regression).
    voting : {"hard", "soft"}
        Classification: weighted vote count of the predictions, or weighted mean of the
        probabilities (module docstring). Ignored for regression.
    weights : (M,) array-like, optional
        One non-negative weight per fit (default: equal).
    n_classes : int, optional
        Number of classes ``C`` (default: ``max(y) + 1``).
    sample_weight : (n_samples,) array-like, optional
        Passed to every fit; rows of weight 0 have no influence.
    task : {"classification", "regression"}
        One function for both tasks, as the algorithm is shared: ``"regression"`` is
        scikit-learn's ``VotingRegressor`` (the weighted mean of the members' predictions;
        ``voting`` and ``n_classes`` are ignored), and replaces the deprecated
        ``fit_voting_regressor``.

    Returns
    -------
    ClassificationVoting or RegressionVoting
        ``ensemble.predict`` / ``ensemble.predict_proba`` (and the package-wide ones) apply.

    Examples
    --------
    >>> import functools, numpy as np
    >>> from jaxclassic import discriminant, linear, tree
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]); y = np.array([0, 0, 0, 1, 1, 1])
    >>> fits = [functools.partial(linear.fit_logistic, l2=1.0), discriminant.fit_lda,
    ...         functools.partial(tree.fit_cart, max_depth=1)]
    >>> params = fit_voting(fits, X, y, voting="soft")
    >>> predict(params, X).tolist()
    [0, 0, 0, 1, 1, 1]

    References
    ----------
    Kuncheva (2014), ch. 4-5; scikit-learn's ``VotingClassifier`` / ``VotingRegressor``.
    """
    fits = check_fits(fits)
    task = check_choice(task, "task", ("classification", "regression"))
    voting = check_choice(voting, "voting", ("hard", "soft"))
    classification = task == "classification"
    _, dtype, y, sw, n_classes = check_data(X, y, sample_weight, classification=classification,
                                            n_classes=n_classes)
    w = check_weights(weights, len(fits), dtype)
    estimators = tuple(fit(X, y, sample_weight=sw) for fit in fits)
    if not classification:
        return RegressionVoting(estimators, w, jnp.zeros((0,), jnp.int32), jnp.asarray(False))
    if voting == "soft":
        for i, params in enumerate(estimators):
            if not _dispatch.predict_proba.supports(params):
                raise ValueError(f"voting='soft' needs predict_proba, but fits[{i}] returns "
                                 f"{type(params).__name__}, which has none: use voting='hard'")
            check_proba_columns(params, X, n_classes, f"fits[{i}]")
    return ClassificationVoting(estimators, w, jnp.arange(n_classes, dtype=jnp.int32),
                                jnp.asarray(voting == "soft"))


#: deprecated (removed in jaxclassic 0.3.0): ``fit_voting(..., task="regression")``
fit_voting_regressor = _deprecation.renamed_function(fit_voting, "fit_voting_regressor",
                                                     "jaxclassic.ensemble", task="regression")


# --------------------------------------------------------------------------- predict
def _class_sums(params: ClassificationVoting, X):
    """(n, C): weighted sums of probabilities (soft) or of votes (hard), undivided.

    Sums run over the members in order with the raw weights, as scikit-learn's
    ``bincount`` / ``np.average``, so exact ties stay exact for the argmax."""
    n_classes = params.classes.shape[0]
    dtype = params.weights.dtype
    w = params.weights
    votes = sum(w[m] * jax.nn.one_hot(_dispatch.predict(p, X), n_classes, dtype=dtype)
                for m, p in enumerate(params.estimators))
    if not all(_dispatch.predict_proba.supports(p) for p in params.estimators):
        return votes
    proba = sum(w[m] * _dispatch.predict_proba(p, X).astype(dtype) for m, p in enumerate(params.estimators))
    return jnp.where(params.soft, proba, votes)


def _class_scores(params: ClassificationVoting, X):
    """(n, C): weighted mean probabilities (soft) or weighted vote shares (hard)."""
    return _class_sums(params, X) / jnp.sum(params.weights)


def _predict_class(params: ClassificationVoting, X):
    # scikit-learn: argmax of the vote sums (hard) or of the mean probabilities (soft); the
    # first maximum, i.e. the lowest class on ties
    sums = _class_sums(params, X)
    return jnp.argmax(jnp.where(params.soft, sums / jnp.sum(params.weights), sums), axis=1).astype(jnp.int32)


def _predict_value(params: RegressionVoting, X):
    preds = [_dispatch.predict(p, X) for p in params.estimators]
    dtype = jnp.result_type(params.weights.dtype, *[p.dtype for p in preds])
    w = params.weights.astype(dtype)
    return sum(w[m] * pred.astype(dtype) for m, pred in enumerate(preds)) / jnp.sum(w)


predict.register(ClassificationVoting, _predict_class)
predict.register(RegressionVoting, _predict_value)
predict_proba.register(ClassificationVoting, _class_scores)
