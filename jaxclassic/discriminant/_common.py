"""Pieces shared by the generative classifiers (naive Bayes, LDA, QDA).

Weighted class statistics (``resp = one_hot(y) * w``, class counts, means, centred rows), the
class prior, prior validation and the log-space normalisation of joint log-likelihoods. Input
checks are :func:`jaxclassic.validation.check_classifier_data` (fits) and
:func:`jaxclassic.validation.check_predict_X` (predictions), shared with every classifier.
Every statistic is a weighted row sum, so a row of weight 0 contributes nothing.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit, _precision
from jaxclassic.validation import (
    check_array,
    is_traced,
)

__all__ = []


def check_priors(priors: Any, n_classes: int, dtype) -> jax.Array | None:
    """``priors`` of shape (n_classes,), non-negative, summing to 1 (within 1e-5); or None."""
    if priors is None:
        return None
    if is_traced(priors):
        if priors.shape != (n_classes,):
            raise ValueError(f"priors must have shape ({n_classes},), got {priors.shape}")
        return priors.astype(dtype)
    p = check_array(priors, "priors", ndim=1, dtype=dtype)
    if p.shape != (n_classes,):
        raise ValueError(f"priors must have shape ({n_classes},) (one per class), got {p.shape}")
    pn = np.asarray(p, dtype=np.float64)
    if (pn < 0).any():
        raise ValueError(f"priors must be non-negative, got {pn.tolist()}")
    if abs(pn.sum() - 1.0) > 1e-5:
        raise ValueError(f"priors must sum to 1, got sum {pn.sum()!r}")
    return p


def any_traced(*values) -> bool:
    """True when any of the (pytree) ``values`` holds a tracer."""
    return any(is_traced(leaf) for v in values for leaf in jax.tree_util.tree_leaves(v))


def weighted_one_hot(y, sample_weight, n_classes: int, dtype):
    """``resp[i, k] = w_i [y_i = k]``, shape (n, C)."""
    return jax.nn.one_hot(y, n_classes, dtype=dtype) * sample_weight[:, None].astype(dtype)


def safe_divide(num, den):
    """``num / den`` where ``den > 0``, else 0 (an empty class has zero statistics)."""
    ok = den > 0
    return jnp.where(ok, num / jnp.where(ok, den, 1), 0)


def class_means(X, resp, class_count):
    r"""Weighted class means :math:`\mu_k = \sum_i r_{ik} x_i / \sum_i r_{ik}`, shape (C, d)."""
    return safe_divide(_precision.matmul(resp.T, X), class_count[:, None])


def class_prior(class_count, priors):
    """The fitted prior ``n_k / n`` (weighted counts), or ``priors`` when given."""
    if priors is None:
        return class_count / class_count.sum()
    return priors.astype(class_count.dtype)


def log_prior(prior, class_count):
    """``log pi_k``, with ``-inf`` for a class that has no positive-weight sample."""
    return jnp.where(class_count > 0, jnp.log(prior), -jnp.inf)


@_jit.jit
def normalise_log(joint_log_likelihood):
    """``log p(k | x) = jll_k - logsumexp_k(jll)`` (log-space normalisation)."""
    return joint_log_likelihood - jax.nn.logsumexp(joint_log_likelihood, axis=1, keepdims=True)


def register_predictions(params_types, log_scores) -> None:
    """Register ``predict``, ``predict_proba`` and ``predict_log_proba`` for params types whose
    class scores ``log_scores(params, X) -> (n, C)`` are log-posteriors up to a per-row constant
    (joint log-likelihoods, discriminant functions)."""
    from jaxclassic.discriminant import _api

    def _predict_log_proba(params, X):
        return normalise_log(log_scores(params, X))

    def _predict_proba(params, X):
        return jnp.exp(_predict_log_proba(params, X))

    def _predict(params, X):
        return jnp.argmax(log_scores(params, X), axis=1).astype(jnp.int32)

    for params_type in params_types:
        _api.predict.register(params_type, _predict)
        _api.predict_proba.register(params_type, _predict_proba)
        _api.predict_log_proba.register(params_type, _predict_log_proba)
