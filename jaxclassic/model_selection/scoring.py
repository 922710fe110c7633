r"""Scorers: the ``score(params, X, y, *, sample_weight)`` functions that model selection uses.

A scorer turns fitted params into one number on the rows selected by ``sample_weight``
(the validation rows of a fold have weight 1, all others 0), **higher is better**. Losses
are negated, as in scikit-learn (``neg_mean_squared_error``, ``neg_log_loss``).

A scorer is ``Scorer(metric, response, sign)``:

.. math::

    \mathrm{score}(\theta, X, y; w) = \mathrm{sign} \cdot
    \mathrm{metric}\big(y,\ \mathrm{response}(\theta, X);\ w\big),

where ``metric`` is one of :mod:`jaxclassic.metrics` (weighted, jittable) and ``response``
is a model's ``predict`` / ``predict_proba`` / ``decision_function``. Scorers compare by
value, so ``neg_mse_scorer(predict)`` built twice reuses the compiled cross-validation
program (a fresh ``lambda`` would not).

Any function with the signature works as well; write your own when no metric fits.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import metrics

__all__ = [
    "Scorer",
    "make_scorer",
    "neg_mse_scorer",
    "r2_scorer",
    "accuracy_scorer",
    "log_loss_scorer",
    "roc_auc_scorer",
    "neg_hinge_scorer",
]


class Scorer(NamedTuple):
    """``sign * metric(y, response(params, X), sample_weight=w)``; hashable, compared by value.

    Attributes
    ----------
    metric : callable
        ``metric(y_true, y_response, *, sample_weight) -> scalar``.
    response : callable
        ``response(params, X) -> array`` (predictions, probabilities or scores).
    sign : float
        ``+1`` when the metric is higher-is-better, ``-1`` for a loss.
    positive_column : bool
        Take the last column of a 2-d response (the positive-class probability of a binary
        ``predict_proba``) before calling the metric.
    """

    metric: Callable
    response: Callable
    sign: float = 1.0
    positive_column: bool = False

    def __call__(self, params: Any, X: Any, y: Any, *, sample_weight: Any = None) -> jax.Array:
        out = self.response(params, X)
        if self.positive_column and jnp.ndim(out) == 2:
            out = out[:, -1]
        value = self.metric(y, out, sample_weight=sample_weight)
        return value if self.sign == 1.0 else self.sign * value


def make_scorer(metric: Callable, response: Callable, *, greater_is_better: bool = True,
                positive_column: bool = False) -> Scorer:
    """A scorer from a weighted metric and a response function.

    Parameters
    ----------
    metric : callable
        ``metric(y_true, y_response, *, sample_weight) -> scalar`` (jittable).
    response : callable
        ``response(params, X)``, e.g. ``jaxclassic.linear.predict``.
    greater_is_better : bool
        False for a loss: the scorer returns its negative.
    positive_column : bool
        Score the last column of a 2-d response (binary ``predict_proba``).
    """
    if not callable(metric):
        raise TypeError(f"metric must be callable, got {type(metric).__name__}")
    if not callable(response):
        raise TypeError(f"response must be callable, got {type(response).__name__}")
    return Scorer(metric, response, 1.0 if greater_is_better else -1.0, bool(positive_column))


def neg_mse_scorer(predict: Callable) -> Scorer:
    r"""``-MSE``: :math:`-\sum_i w_i (y_i - \hat y_i)^2 / \sum_i w_i` (higher is better)."""
    return make_scorer(metrics.mean_squared_error, predict, greater_is_better=False)


def r2_scorer(predict: Callable) -> Scorer:
    r"""Weighted :math:`R^2` of the predictions."""
    return make_scorer(metrics.r2_score, predict)


def accuracy_scorer(predict: Callable) -> Scorer:
    r"""Weighted fraction of correctly predicted class codes."""
    return make_scorer(metrics.accuracy, predict)


def log_loss_scorer(predict_proba: Callable) -> Scorer:
    r"""``-log loss`` of predicted probabilities ((n,) of class 1, or (n, C))."""
    return make_scorer(metrics.log_loss, predict_proba, greater_is_better=False)


def roc_auc_scorer(response: Callable) -> Scorer:
    r"""Weighted ROC AUC of binary scores (a decision function, or ``predict_proba``: its
    last column is used)."""
    return make_scorer(metrics.roc_auc, response, positive_column=True)


def neg_hinge_scorer(decision_function: Callable) -> Scorer:
    r"""``-hinge loss`` of binary decision values,
    :math:`-\sum_i w_i \max(0, 1 - t_i f_i) / \sum_i w_i` with :math:`t_i = 2y_i - 1`
    (:func:`jaxclassic.metrics.hinge_loss`): a differentiable validation score for SVMs
    (the accuracy's gradient is 0 almost everywhere)."""
    return make_scorer(metrics.hinge_loss, decision_function, greater_is_better=False)
