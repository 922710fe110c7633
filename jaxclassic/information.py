r"""Information measures of discrete distributions: entropy, Gini impurity, KL divergence,
mutual information.

Distributions are given as non-negative vectors of probabilities **or counts** along
``axis`` (default the last); every function normalises them first, so
``entropy(jnp.bincount(labels, weights=w))`` is the (weighted) entropy of a label vector, and a
batch of class histograms (nodes × classes, as a tree builds them) is handled in one call.
The convention :math:`0 \log 0 = 0` holds throughout (``jax.scipy.special.entr`` and
``rel_entr``), and an all-zero vector (an empty node) has entropy, Gini impurity and KL
divergence 0.

Logarithm base: ``base=2.0`` (bits) by default; ``base="nats"`` (or ``None``, or ``math.e``)
gives nats, which is what ``scipy.stats.entropy`` (base None) and
``sklearn.metrics.mutual_info_score`` return; ``"bits"`` is 2. Any real base > 0, != 1 works.

All functions are jittable (``axis`` is static); inputs are validated before tracing
(negative or non-finite entries are a ``ValueError``), value checks are skipped for tracers.

References
----------
T. M. Cover and J. A. Thomas, *Elements of Information Theory*, 2nd ed., Wiley 2006,
§2.1-2.4 (entropy, relative entropy, mutual information).
L. Breiman, J. Friedman, R. Olshen, C. Stone, *Classification and Regression Trees*,
Wadsworth 1984, §4.3 (Gini index).
J. R. Quinlan, "Induction of decision trees", Machine Learning 1 (1986) 81-106 (information gain).
"""

from __future__ import annotations

import functools
import math
import numbers
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import entr, rel_entr

from jaxclassic import _jit
from jaxclassic.validation import (
    check_array,
    check_consistent_length,
    check_int,
    check_sample_weight,
    default_float_dtype,
    is_traced,
)

__all__ = ["entropy", "gini", "kl_divergence", "mutual_information"]

_ANY_NDIM = tuple(range(1, 33))


# --------------------------------------------------------------------------- helpers
def _eager(check):
    """Run a validation helper under ``jax.ensure_compile_time_eval`` so that concrete input
    stays concrete (and its values can be checked) when called inside a ``jit`` trace."""

    @functools.wraps(check)
    def wrapper(*args, **kwargs):
        with jax.ensure_compile_time_eval():
            return check(*args, **kwargs)

    return wrapper


def _log_base(base) -> float:
    """Natural log of the base: results in nats are divided by it."""
    if base is None or base == "nats":
        return 1.0
    if base == "bits":
        return math.log(2.0)
    if isinstance(base, str):
        raise ValueError(f"base must be a positive number, 'bits' or 'nats', got {base!r}")
    if isinstance(base, bool) or not isinstance(base, numbers.Real):
        raise TypeError(f"base must be a positive number, 'bits' or 'nats', got {type(base).__name__} {base!r}")
    if not (math.isfinite(base) and base > 0 and base != 1):
        raise ValueError(f"base must be finite, > 0 and != 1, got {base!r}")
    return math.log(base)


@_eager
def _check_distribution(p, name, *, min_ndim=1):
    ndims = tuple(d for d in _ANY_NDIM if d >= min_ndim)
    p = check_array(p, name, ndim=ndims, min_samples=0)
    if not is_traced(p) and p.size and float(jnp.min(p)) < 0:
        raise ValueError(f"{name} must be non-negative (probabilities or counts), got min {float(jnp.min(p))}")
    return p


def _check_axis(axis, ndim):
    axis = check_int(axis, "axis")
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for an array of {ndim} dimension(s)")
    return axis % ndim


def _normalise(p, axis):
    total = jnp.sum(p, axis=axis, keepdims=True)
    return p / jnp.where(total > 0, total, jnp.ones_like(total)), total


# --------------------------------------------------------------------------- entropy
@partial(_jit.jit, static_argnames="axis")
def _entropy(p, log_base, axis):
    q, _ = _normalise(p, axis)
    return jnp.sum(entr(q), axis=axis) / log_base


def entropy(p, *, base=2.0, axis=-1) -> jax.Array:
    r"""Shannon entropy of a discrete distribution (probabilities or counts, normalised).

    .. math:: H(p) = -\sum_k p_k \log_b p_k, \qquad p_k = \frac{c_k}{\sum_j c_j},
              \qquad 0 \log 0 = 0.

    Agrees with ``scipy.stats.entropy(p, base=b)``. An all-zero vector gives 0 (scipy: nan).

    Parameters
    ----------
    p : array-like of shape (..., K, ...)
        Non-negative probabilities or counts along ``axis``.
    base : float, 'bits' or 'nats' (or None = nats, scipy's default)
        Logarithm base; 2 (bits) by default.
    axis : int (static)
        The axis holding the distribution; the others are batch axes.

    Returns
    -------
    jax.Array of ``p``'s shape without ``axis``, float.

    Example
    -------
    >>> float(entropy([1, 1, 2, 0]))  # counts; probabilities (1/4, 1/4, 1/2, 0)
    1.5
    """
    log_base = _log_base(base)
    p = _check_distribution(p, "p")
    axis = _check_axis(axis, p.ndim)
    return _entropy(p, log_base, axis)


# --------------------------------------------------------------------------- gini
@partial(_jit.jit, static_argnames="axis")
def _gini(p, axis):
    q, total = _normalise(p, axis)
    impurity = 1 - jnp.sum(jnp.square(q), axis=axis)
    return jnp.where(jnp.squeeze(total, axis) > 0, impurity, jnp.zeros_like(impurity))


def gini(p, *, axis=-1) -> jax.Array:
    r"""Gini impurity of a discrete distribution (probabilities or counts, normalised).

    .. math:: G(p) = \sum_k p_k (1 - p_k) = 1 - \sum_k p_k^2,

    the probability that two independent draws from :math:`p` differ (Breiman et al. 1984),
    CART's node impurity. 0 for a pure node and for an all-zero (empty) vector; at most
    :math:`1 - 1/K`.

    Parameters
    ----------
    p : array-like of shape (..., K, ...)
        Non-negative probabilities or counts along ``axis``.
    axis : int (static)

    Returns
    -------
    jax.Array of ``p``'s shape without ``axis``, float.

    Example
    -------
    >>> float(gini([3, 1]))
    0.375
    """
    p = _check_distribution(p, "p")
    axis = _check_axis(axis, p.ndim)
    return _gini(p, axis)


# --------------------------------------------------------------------------- KL divergence
@partial(_jit.jit, static_argnames="axis")
def _kl_divergence(p, q, log_base, axis):
    p, _ = _normalise(p, axis)
    q, _ = _normalise(q, axis)
    return jnp.sum(rel_entr(p, q), axis=axis) / log_base


def kl_divergence(p, q, *, base=2.0, axis=-1) -> jax.Array:
    r"""Kullback-Leibler divergence (relative entropy) :math:`D(p \,\|\, q)`.

    .. math:: D(p \,\|\, q) = \sum_k p_k \log_b \frac{p_k}{q_k},

    after normalising both to sum to 1, with :math:`0 \log(0/q) = 0` and
    :math:`p \log(p/0) = +\infty` for :math:`p > 0` (``jax.scipy.special.rel_entr``).
    Agrees with ``scipy.stats.entropy(p, q, base=b)``. Not symmetric; :math:`\ge 0`.

    Parameters
    ----------
    p, q : array-like of the same (or broadcastable) shape (..., K, ...)
        Non-negative probabilities or counts along ``axis``.
    base : float, 'bits' or 'nats' (or None = nats)
    axis : int (static)

    Returns
    -------
    jax.Array of the broadcast shape without ``axis``, float.

    Example
    -------
    >>> round(float(kl_divergence([0.5, 0.5], [0.25, 0.75])), 12)  # 0.5 log2(2) + 0.5 log2(2/3)
    0.207518749639
    """
    log_base = _log_base(base)
    p = _check_distribution(p, "p")
    q = _check_distribution(q, "q")
    try:
        shape = jnp.broadcast_shapes(p.shape, q.shape)
    except ValueError:
        raise ValueError(f"p and q must have the same shape, got {p.shape} and {q.shape}") from None
    axis = _check_axis(axis, len(shape))
    dtype = jnp.promote_types(p.dtype, q.dtype)
    p, q = (jnp.broadcast_to(a.astype(dtype), shape) for a in (p, q))
    return _kl_divergence(p, q, log_base, axis)


# --------------------------------------------------------------------------- mutual information
def _mutual_information_of_joint(joint, log_base):
    pxy = joint / jnp.sum(joint, axis=(-2, -1), keepdims=True).clip(min=jnp.finfo(joint.dtype).tiny)
    px = jnp.sum(pxy, axis=-1, keepdims=True)
    py = jnp.sum(pxy, axis=-2, keepdims=True)
    mi = jnp.sum(rel_entr(pxy, px * py), axis=(-2, -1))
    # rounding can leave a tiny negative value for independent variables (scikit-learn clips too)
    return jnp.maximum(mi, 0) / log_base


@_jit.jit
def _mi_joint(joint, log_base):
    return _mutual_information_of_joint(joint, log_base)


@partial(_jit.jit, static_argnames=("n_classes_x", "n_classes_y"))
def _mi_labels(x, y, w, log_base, n_classes_x, n_classes_y):
    joint = jax.ops.segment_sum(w, x * n_classes_y + y, n_classes_x * n_classes_y)
    return _mutual_information_of_joint(joint.reshape(n_classes_x, n_classes_y), log_base)


@_eager
def _check_codes(labels, name, n_classes, n_classes_name):
    labels = check_array(labels, name, ndim=1, numeric="int")
    if n_classes is not None:
        n_classes = check_int(n_classes, n_classes_name, low=1)
    if is_traced(labels):
        if n_classes is None:
            raise ValueError(f"{n_classes_name} must be given when {name} is traced (inside jit/vmap)")
        return labels.astype(jnp.int32), n_classes
    values = np.asarray(labels)
    if (values < 0).any():
        raise ValueError(f"{name} must hold codes >= 0, got {int(values.min())}")
    if n_classes is None:
        n_classes = int(values.max()) + 1
    elif (values >= n_classes).any():
        raise ValueError(f"{name} holds code {int(values.max())} but {n_classes_name}={n_classes}")
    return labels, n_classes


def mutual_information(x_labels=None, y_labels=None, *, joint=None, sample_weight=None, base=2.0,
                       n_classes_x=None, n_classes_y=None) -> jax.Array:
    r"""Mutual information of two discrete variables, from labels or from a joint table.

    .. math::
        I(X; Y) = \sum_{j,k} p_{jk} \log_b \frac{p_{jk}}{p_{j\cdot}\, p_{\cdot k}}
                = H(X) + H(Y) - H(X, Y),

    where :math:`p_{jk} = \sum_i w_i [x_i = j][y_i = k] / \sum_i w_i` is the (weighted)
    contingency table of the two label vectors, or ``joint`` normalised.
    With ``base="nats"`` it agrees with ``sklearn.metrics.mutual_info_score`` (which has no
    weights; integer weights equal repeating rows). Note the default here is bits.

    Parameters
    ----------
    x_labels, y_labels : array-like of int, shape (n_samples,)
        Codes ``0..K-1`` of the two variables. Omit both when ``joint`` is given.
    joint : array-like of shape (..., K_x, K_y), optional
        A joint table of probabilities or counts instead of labels (leading axes are a batch,
        e.g. one table per candidate split feature).
    sample_weight : array-like of shape (n_samples,), optional
        Row weights for the label form.
    base : float, 'bits' or 'nats' (or None = nats)
    n_classes_x, n_classes_y : int, optional (static)
        Numbers of codes; inferred as ``max + 1`` from concrete labels, required when traced.

    Returns
    -------
    jax.Array, 0-d float (or the batch shape of ``joint``). Never negative.

    Example
    -------
    >>> float(mutual_information([0, 0, 1, 1], [0, 0, 1, 1]))  # Y = X: I = H(X) = 1 bit
    1.0
    """
    log_base = _log_base(base)
    if joint is not None:
        if x_labels is not None or y_labels is not None:
            raise ValueError("give either x_labels and y_labels, or joint, not both")
        if sample_weight is not None:
            raise ValueError("sample_weight applies to the label form; weight the joint table instead")
        joint = _check_distribution(joint, "joint", min_ndim=2)
        return _mi_joint(joint, log_base)
    if x_labels is None or y_labels is None:
        raise ValueError("mutual_information needs x_labels and y_labels (or joint=...)")
    x, n_classes_x = _check_codes(x_labels, "x_labels", n_classes_x, "n_classes_x")
    y, n_classes_y = _check_codes(y_labels, "y_labels", n_classes_y, "n_classes_y")
    n_samples = check_consistent_length(x_labels=x, y_labels=y)
    w = _eager(check_sample_weight)(sample_weight, n_samples, dtype=_weight_dtype(sample_weight))
    return _mi_labels(x, y, w, log_base, n_classes_x, n_classes_y)


def _weight_dtype(sample_weight):
    """Keep float32 / float64 weights' precision (float64 only with x64); else the default."""
    try:
        dt = np.dtype(getattr(sample_weight, "dtype", None) or "O")
    except TypeError:
        dt = np.dtype("O")
    if dt == np.float32 or (dt == np.float64 and jax.config.read("jax_enable_x64")):
        return jnp.dtype(dt)
    return default_float_dtype()
