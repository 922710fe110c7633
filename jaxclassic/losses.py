r"""Per-sample losses of a target ``y`` and a raw score ``f``, with hand-derived derivatives.

Every loss here is a pure function ``loss(y, f)`` of one sample (scalars, or for
``softmax_cross_entropy`` a label and a score vector); the scalar losses are written with
element-wise ``jnp`` operations, so they also broadcast over arrays. Models never re-derive
a loss inline: they call these and obtain gradients and Hessians with respect to ``f`` by
autodiff, typically through :func:`grad_hess`. For each differentiable loss a hand-derived
``grad_<name>`` and ``hess_<name>`` is given; the tests and ``jaxclassic gradcheck`` check
that autodiff reproduces them.

Conventions for ``y``:

========================  ========================================  =========================
loss                      ``y``                                     ``f``
========================  ========================================  =========================
squared, absolute         real                                      prediction
log_loss                  {0, 1} (or a probability in [0, 1])       logit
hinge, squared_hinge,     {-1, +1}                                  margin score
modified_huber,
exponential,
perceptron, zero_one
softmax_cross_entropy     integer class 0..C-1, or a (C,) one-hot   (C,) score vector
========================  ========================================  =========================

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §10.6
(loss functions for classification and regression).
Chen & Guestrin, "XGBoost: A Scalable Tree Boosting System", KDD 2016, §2.2 (g and h).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

__all__ = [
    "squared",
    "absolute",
    "log_loss",
    "hinge",
    "squared_hinge",
    "modified_huber",
    "exponential",
    "softmax_cross_entropy",
    "perceptron",
    "zero_one",
    "grad_squared",
    "hess_squared",
    "grad_absolute",
    "hess_absolute",
    "grad_log_loss",
    "hess_log_loss",
    "grad_hinge",
    "hess_hinge",
    "grad_squared_hinge",
    "hess_squared_hinge",
    "grad_modified_huber",
    "hess_modified_huber",
    "grad_exponential",
    "hess_exponential",
    "grad_perceptron",
    "hess_perceptron",
    "grad_softmax_cross_entropy",
    "hess_softmax_cross_entropy",
    "grad_hess",
    "HAND_DERIVED",
]


def _same_float(y, f):
    f = jnp.asarray(f)
    if not jnp.issubdtype(f.dtype, jnp.floating):
        f = f.astype(jnp.result_type(float))
    return jnp.asarray(y, dtype=f.dtype), f


# --------------------------------------------------------------------------- squared
def squared(y, f):
    r"""Squared error :math:`\ell(y, f) = \tfrac12 (y - f)^2`."""
    y, f = _same_float(y, f)
    return 0.5 * jnp.square(y - f)


def grad_squared(y, f):
    r""":math:`\partial_f \tfrac12 (y-f)^2 = f - y`."""
    y, f = _same_float(y, f)
    return f - y


def hess_squared(y, f):
    r""":math:`\partial_f^2 \tfrac12 (y-f)^2 = 1`."""
    y, f = _same_float(y, f)
    return jnp.ones_like(f)


# --------------------------------------------------------------------------- absolute
def absolute(y, f):
    r"""Absolute error :math:`\ell(y, f) = |y - f|`.

    Not differentiable at ``f = y``. There autodiff returns ``-1`` (JAX differentiates
    ``abs`` at 0 as +1, and the loss is ``abs(y - f)``), while :func:`grad_absolute` returns
    ``sign(0) = 0``; both lie in the subdifferential :math:`[-1, 1]`.
    """
    y, f = _same_float(y, f)
    return jnp.abs(y - f)


def grad_absolute(y, f):
    r""":math:`\partial_f |y - f| = \operatorname{sign}(f - y)` (0 at the kink)."""
    y, f = _same_float(y, f)
    return jnp.sign(f - y)


def hess_absolute(y, f):
    r"""Zero almost everywhere (the loss is piecewise linear)."""
    y, f = _same_float(y, f)
    return jnp.zeros_like(f)


# --------------------------------------------------------------------------- log loss
def log_loss(y, f):
    r"""Binary cross-entropy of a label :math:`y \in \{0,1\}` and a logit ``f``.

    .. math::
        \ell(y, f) = -y \log\sigma(f) - (1-y)\log\sigma(-f)
                   = y\,\mathrm{softplus}(-f) + (1-y)\,\mathrm{softplus}(f)
                   = \log(1 + e^{f}) - y f,

    computed in the middle form, which stays finite and keeps full relative accuracy for any
    ``|f|`` (no ``log(sigmoid(f))``, which underflows to ``log 0`` below about -90 in float32
    and -745 in float64, and no ``softplus(f) - y f``, which cancels to 0 for large ``y f``).
    ``y`` may also be a probability in [0, 1].
    """
    y, f = _same_float(y, f)
    return y * jax.nn.softplus(-f) + (1 - y) * jax.nn.softplus(f)


def grad_log_loss(y, f):
    r""":math:`\partial_f[\log(1+e^f) - yf] = \sigma(f) - y = (1-y)\sigma(f) - y\,\sigma(-f)`.

    The last form (using :math:`1 - \sigma(f) = \sigma(-f)`) avoids the cancellation of
    ``sigmoid(f) - 1`` for ``y = 1`` and large ``f``.
    """
    y, f = _same_float(y, f)
    return (1 - y) * jax.nn.sigmoid(f) - y * jax.nn.sigmoid(-f)


def hess_log_loss(y, f):
    r""":math:`\partial_f^2 = \sigma(f)(1 - \sigma(f)) = \sigma(f)\,\sigma(-f)`.

    The product form :math:`\sigma(f)\sigma(-f)` avoids the cancellation of ``1 - σ(f)``
    when ``σ(f)`` rounds to 1 (f above about 17 in float32, 37 in float64).
    """
    y, f = _same_float(y, f)
    return jax.nn.sigmoid(f) * jax.nn.sigmoid(-f)


# --------------------------------------------------------------------------- hinge
def hinge(y, f):
    r"""Hinge loss :math:`\ell(y, f) = \max(0, 1 - y f)`, :math:`y \in \{-1, +1\}`.

    Autodiff returns 0 at the kink ``y f = 1`` (written as ``where(yf < 1, 1 - yf, 0)``),
    an element of the subdifferential :math:`\{-t y : t \in [0, 1]\}`.
    """
    y, f = _same_float(y, f)
    margin = y * f
    return jnp.where(margin < 1, 1 - margin, jnp.zeros_like(margin))


def grad_hinge(y, f):
    r""":math:`\partial_f \max(0, 1-yf) = -y\,[yf < 1]` (0 at the kink)."""
    y, f = _same_float(y, f)
    return jnp.where(y * f < 1, -y, jnp.zeros_like(f))


def hess_hinge(y, f):
    r"""Zero almost everywhere (piecewise linear)."""
    y, f = _same_float(y, f)
    return jnp.zeros_like(f)


# --------------------------------------------------------------------------- squared hinge
def squared_hinge(y, f):
    r"""Squared hinge loss :math:`\ell(y, f) = \max(0, 1 - y f)^2`, :math:`y \in \{-1, +1\}`
    (the L2-loss SVM of LIBLINEAR / scikit-learn's ``LinearSVC`` default).

    Differentiable everywhere; its second derivative jumps at ``y f = 1``, where autodiff
    (``where(yf < 1, ...)``) returns 0, the right-hand value.
    """
    y, f = _same_float(y, f)
    margin = y * f
    return jnp.where(margin < 1, jnp.square(1 - margin), jnp.zeros_like(margin))


def grad_squared_hinge(y, f):
    r""":math:`\partial_f \max(0, 1-yf)^2 = -2y\max(0, 1-yf)` (continuous)."""
    y, f = _same_float(y, f)
    return jnp.where(y * f < 1, -2 * y * (1 - y * f), jnp.zeros_like(f))


def hess_squared_hinge(y, f):
    r""":math:`\partial_f^2 \max(0, 1-yf)^2 = 2y^2[yf < 1]` (:math:`= 2[yf < 1]` for
    :math:`y = \pm 1`; 0 at the kink, as autodiff)."""
    y, f = _same_float(y, f)
    return jnp.where(y * f < 1, 2 * jnp.square(y), jnp.zeros_like(f))


# --------------------------------------------------------------------------- modified Huber
def modified_huber(y, f):
    r"""Modified Huber loss (Zhang 2004; scikit-learn's ``SGDClassifier(loss="modified_huber")``),
    :math:`y \in \{-1, +1\}`:

    .. math::
        \ell(y, f) = \begin{cases} \max(0, 1 - y f)^2 & y f \ge -1 \\ -4 y f & y f < -1. \end{cases}

    The squared hinge, continued linearly below :math:`yf = -1` (value 4 and slope -4 meet
    there), so it is differentiable everywhere and robust to outliers.
    """
    y, f = _same_float(y, f)
    margin = y * f
    return jnp.where(margin >= -1, jnp.square(jnp.maximum(1 - margin, 0)), -4 * margin)


def grad_modified_huber(y, f):
    r""":math:`\partial_f \ell = -2y\max(0, 1 - yf)` for :math:`yf \ge -1`, else :math:`-4y` (continuous)."""
    y, f = _same_float(y, f)
    margin = y * f
    return jnp.where(margin >= -1, -2 * y * jnp.maximum(1 - margin, 0), -4 * y)


def hess_modified_huber(y, f):
    r""":math:`\partial_f^2 \ell = 2y^2[-1 \le yf < 1]` (the value autodiff gives at the two kinks)."""
    y, f = _same_float(y, f)
    margin = y * f
    return jnp.where((margin >= -1) & (margin < 1), 2 * jnp.square(y), jnp.zeros_like(f))


# --------------------------------------------------------------------------- exponential
def exponential(y, f):
    r"""Exponential loss of AdaBoost, :math:`\ell(y, f) = e^{-y f}`, :math:`y \in \{-1, +1\}`.

    Range: the loss itself overflows to ``inf`` once :math:`-y f` exceeds ``log(max float)``,
    about 88.7 in float32 and 709.8 in float64; it is exact below that.
    """
    y, f = _same_float(y, f)
    return jnp.exp(-y * f)


def grad_exponential(y, f):
    r""":math:`\partial_f e^{-yf} = -y e^{-yf}`."""
    y, f = _same_float(y, f)
    return -y * jnp.exp(-y * f)


def hess_exponential(y, f):
    r""":math:`\partial_f^2 e^{-yf} = y^2 e^{-yf}` (:math:`= e^{-yf}` for :math:`y = \pm 1`)."""
    y, f = _same_float(y, f)
    return jnp.square(y) * jnp.exp(-y * f)


# --------------------------------------------------------------------------- perceptron
def perceptron(y, f):
    r"""Perceptron criterion :math:`\ell(y, f) = \max(0, -y f)`, :math:`y \in \{-1, +1\}`.

    Autodiff returns 0 at the kink ``y f = 0``. (The perceptron *algorithm* updates on
    ``y f <= 0``; that rule lives in :mod:`jaxclassic.linear.perceptron`.)
    """
    y, f = _same_float(y, f)
    margin = y * f
    return jnp.where(margin < 0, -margin, jnp.zeros_like(margin))


def grad_perceptron(y, f):
    r""":math:`\partial_f \max(0, -yf) = -y\,[yf < 0]` (0 at the kink)."""
    y, f = _same_float(y, f)
    return jnp.where(y * f < 0, -y, jnp.zeros_like(f))


def hess_perceptron(y, f):
    r"""Zero almost everywhere (piecewise linear)."""
    y, f = _same_float(y, f)
    return jnp.zeros_like(f)


# --------------------------------------------------------------------------- zero-one
def zero_one(y, f):
    r"""Misclassification loss :math:`[y f \le 0]` for :math:`y \in \{-1, +1\}`.

    A score of exactly 0 counts as an error. Piecewise constant: its autodiff gradient is 0
    everywhere, so it has no ``grad_``/``hess_`` pair and is for evaluation only.
    """
    y, f = _same_float(y, f)
    return (y * f <= 0).astype(f.dtype)


# --------------------------------------------------------------------------- softmax
def _one_hot_like(y, scores):
    y = jnp.asarray(y)
    if y.ndim == scores.ndim:  # already one-hot / a probability vector
        return y.astype(scores.dtype)
    return jax.nn.one_hot(y, scores.shape[-1], dtype=scores.dtype)


def softmax_cross_entropy(y, scores):
    r"""Multinomial cross-entropy of a class ``y`` and a score vector ``F`` of length C.

    .. math::
        \ell(y, F) = -\log \frac{e^{F_y}}{\sum_c e^{F_c}}
                   = \operatorname{logsumexp}(F) - \langle \mathrm{onehot}(y), F\rangle,

    finite for arbitrarily large scores through ``logsumexp``. ``y`` is an integer class
    (0..C-1) or a length-C one-hot (or probability) vector; ``scores`` has shape ``(C,)``
    (or ``(..., C)``, the loss then has shape ``(...)``).
    """
    scores = jnp.asarray(scores)
    if not jnp.issubdtype(scores.dtype, jnp.floating):
        scores = scores.astype(jnp.result_type(float))
    onehot = _one_hot_like(y, scores)
    return jax.nn.logsumexp(scores, axis=-1) - jnp.sum(onehot * scores, axis=-1)


def grad_softmax_cross_entropy(y, scores):
    r""":math:`\nabla_F \ell = \mathrm{softmax}(F) - \mathrm{onehot}(y)`.

    From :math:`\partial_{F_k}\operatorname{logsumexp}(F) = e^{F_k}/\sum_c e^{F_c} = p_k`.
    """
    scores = jnp.asarray(scores)
    return jax.nn.softmax(scores, axis=-1) - _one_hot_like(y, scores)


def hess_softmax_cross_entropy(y, scores):
    r""":math:`\nabla_F^2 \ell = \operatorname{diag}(p) - p p^\top`, :math:`p = \mathrm{softmax}(F)`.

    From :math:`\partial_{F_j} p_k = p_k([j = k] - p_j)`; independent of ``y``. Shape
    ``(..., C, C)``.
    """
    scores = jnp.asarray(scores)
    p = jax.nn.softmax(scores, axis=-1)
    eye = jnp.eye(scores.shape[-1], dtype=p.dtype)
    return p[..., :, None] * eye - p[..., :, None] * p[..., None, :]


# --------------------------------------------------------------------------- autodiff g, h
def grad_hess(
    loss: Callable,
    y: jax.Array,
    f: jax.Array,
    *,
    full_hessian: bool = False,
) -> tuple[jax.Array, jax.Array]:
    r"""Per-sample gradient ``g`` and Hessian ``h`` of ``loss`` in the score, by autodiff.

    For a batch of n samples, :math:`g_i = \partial_f \ell(y_i, f_i)` and
    :math:`h_i = \partial_f^2 \ell(y_i, f_i)` — the first- and second-order statistics of
    XGBoost's second-order boosting step (Chen & Guestrin 2016, eq. 3). Computed as ``vmap``
    of ``grad`` and of ``grad``-of-``grad`` over the samples, so any user-supplied
    differentiable ``loss(y, f)`` of the same per-sample signature works.

    Parameters
    ----------
    loss : callable
        ``loss(y_i, f_i) -> scalar`` for one sample.
    y : (n,) or (n, C) array
        Targets (class codes or one-hot rows for a vector loss).
    f : (n,) or (n, C) array
        Raw scores; ``(n, C)`` for a vector-valued score such as softmax.
    full_hessian : bool
        For vector scores: return the full per-sample Hessian ``(n, C, C)`` instead of its
        diagonal ``(n, C)`` (the diagonal is what XGBoost's multiclass objective uses).

    Returns
    -------
    g : array shaped like ``f``
    h : array shaped like ``f`` (or ``(n, C, C)`` with ``full_hessian``)

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic import losses
    >>> g, h = losses.grad_hess(losses.log_loss, jnp.array([0.0, 1.0]), jnp.array([0.0, 0.0]))
    >>> g.tolist(), h.tolist()
    ([0.5, -0.5], [0.25, 0.25])
    """
    f = jnp.asarray(f)
    if not jnp.issubdtype(f.dtype, jnp.floating):
        f = f.astype(jnp.result_type(float))
    y = jnp.asarray(y)
    g_fn = jax.grad(loss, argnums=1)
    if f.ndim <= 1:
        h_fn = jax.grad(g_fn, argnums=1)
        return jax.vmap(g_fn)(y, f), jax.vmap(h_fn)(y, f)
    hess_fn = jax.hessian(loss, argnums=1)
    g = jax.vmap(g_fn)(y, f)
    if full_hessian:
        return g, jax.vmap(hess_fn)(y, f)
    # diagonal of the Hessian: one Hessian-vector product per class would cost C passes;
    # for the small C of classification the dense per-sample Hessian is cheaper to form.
    return g, jnp.diagonal(jax.vmap(hess_fn)(y, f), axis1=-2, axis2=-1)


#: name -> (loss, hand-derived gradient, hand-derived Hessian) for every differentiable loss;
#: used by the tests and by ``jaxclassic gradcheck``.
HAND_DERIVED = {
    "squared": (squared, grad_squared, hess_squared),
    "absolute": (absolute, grad_absolute, hess_absolute),
    "log_loss": (log_loss, grad_log_loss, hess_log_loss),
    "hinge": (hinge, grad_hinge, hess_hinge),
    "squared_hinge": (squared_hinge, grad_squared_hinge, hess_squared_hinge),
    "modified_huber": (modified_huber, grad_modified_huber, hess_modified_huber),
    "exponential": (exponential, grad_exponential, hess_exponential),
    "perceptron": (perceptron, grad_perceptron, hess_perceptron),
    "softmax_cross_entropy": (
        softmax_cross_entropy,
        grad_softmax_cross_entropy,
        hess_softmax_cross_entropy,
    ),
}
