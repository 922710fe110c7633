"""Pieces shared by the generative classifiers (naive Bayes, LDA, QDA).

Weighted class statistics (``resp = one_hot(y) * w``, class counts, means, centred rows), the
class prior, prior validation and the log-space normalisation of joint log-likelihoods.
Every statistic is a weighted row sum, so a row of weight 0 contributes nothing.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.validation import (
    check_array,
    check_classification_targets,
    check_sample_weight,
    is_traced,
)

__all__ = []


def validate_X_y_classes(X, y, sample_weight, n_classes, *, allow_nan: bool = False,
                         numeric: str = "float"):
    """Validate ``X`` (n, d), class codes ``y`` and ``sample_weight`` together.

    Returns ``(X, y_int32, sample_weight, n_classes)``; ``n_classes`` is a Python int.
    """
    X = check_array(X, "X", allow_nan=allow_nan, numeric=numeric)
    n_samples = X.shape[0]
    if jnp.issubdtype(X.dtype, jnp.floating):
        dtype = X.dtype
    elif hasattr(sample_weight, "dtype") and np.dtype(sample_weight.dtype) in (np.float32, np.float64):
        # integer X (category codes): compute in the weights' float dtype
        dtype = sample_weight.dtype if jax.config.read("jax_enable_x64") else jnp.float32
    else:
        dtype = None
    sample_weight = check_sample_weight(sample_weight, n_samples, dtype=dtype)
    if n_classes is not None and (isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer))):
        raise TypeError(f"n_classes must be an int or None, got {type(n_classes).__name__} {n_classes!r}")
    if n_classes is not None and n_classes < 2:
        raise ValueError(f"n_classes must be >= 2, got {n_classes}")
    y, n_classes = check_classification_targets(
        y, "y", n_classes=n_classes, sample_weight=sample_weight
    )
    if y.shape[0] != n_samples:
        raise ValueError(f"X and y have inconsistent numbers of samples: {n_samples} != {y.shape[0]}")
    return X, y, sample_weight, n_classes


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
    return safe_divide(resp.T @ X, class_count[:, None])


def class_prior(class_count, priors):
    """The fitted prior ``n_k / n`` (weighted counts), or ``priors`` when given."""
    if priors is None:
        return class_count / class_count.sum()
    return priors.astype(class_count.dtype)


def log_prior(prior, class_count):
    """``log pi_k``, with ``-inf`` for a class that has no positive-weight sample."""
    return jnp.where(class_count > 0, jnp.log(prior), -jnp.inf)


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


def check_predict_X(params_n_features: int, X, *, numeric: str = "float", dtype=None):
    """Validate prediction input and its number of features."""
    X = check_array(X, "X", numeric=numeric, dtype=dtype)
    if X.shape[1] != params_n_features:
        raise ValueError(
            f"X has {X.shape[1]} features, but the model was fitted with {params_n_features} features"
        )
    return X
