r"""Least-squares regression by minibatch stochastic gradient descent through optax.

Objective, with sample weights :math:`w_i \ge 0` normalised to
:math:`\tilde w_i = n\,w_i / \sum_k w_k` (mean 1) and the shared squared loss
:math:`\ell(y, f) = \tfrac12 (y - f)^2` of :func:`jaxclassic.losses.squared`:

.. math::

    J(\beta) = \frac{1}{n}\sum_i \tilde w_i\,\ell(y_i, x_i^\top\beta + b)
             + \frac{l_2}{2}\lVert\beta\rVert^2
    = \frac{\sum_i w_i \ell_i}{\sum_i w_i} + \frac{l_2}{2}\lVert\beta\rVert^2 .

Each epoch draws a fresh permutation of the rows from ``key`` and cuts it into
``ceil(n / batch_size)`` batches (the last one padded with masked slots); the loss of batch
:math:`B` is :math:`J_B = \frac{1}{|B|}\sum_{i\in B}\tilde w_i\,\ell_i + \frac{l_2}{2}\lVert\beta\rVert^2`,
an **unbiased** estimate of :math:`J` (its expectation over the permutation is :math:`J`).
Its autodiff gradient feeds an optax optimiser (``sgd``, ``momentum``, ``adam``) with a
learning-rate schedule; epochs and batches are nested ``lax.scan`` loops.

**Intercept.** With ``fit_intercept`` the data are centred by their weighted means before the
descent, so the intercept is exact given the coefficients, :math:`b = \bar y - \bar x^\top\beta`
(centring also conditions the problem); only :math:`\beta` is learnt by SGD.

**Fixed point.** :math:`\nabla J = 0` is the weighted least-squares normal equation with a ridge
term: SGD's fixed point is :func:`~jaxclassic.linear.fit_ridge` with
``alpha = l2 * sum(sample_weight)`` (OLS when ``l2 = 0``), which it approaches as the
learning rate decays.

**Zero weights.** A row of weight 0 contributes exactly 0 to every batch gradient and to the
normalisation :math:`\sum w`, so it does not move the fixed point. It does change which rows
share a batch and how many steps an epoch has, so a finite SGD run with extra zero-weight rows
is *not* identical to one without them (unlike the closed-form fits); with full batches
(``batch_size >= n``) the iterates are identical up to rounding. The tests check both.

References
----------
Robbins & Monro, "A stochastic approximation method", Ann. Math. Stat. 22 (1951).
Bottou, Curtis & Nocedal, "Optimization methods for large-scale machine learning",
SIAM Review 60 (2018), §4.
Kingma & Ba, "Adam: a method for stochastic optimization", ICLR 2015.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxclassic import losses
from jaxclassic.linear._api import predict
from jaxclassic.linear._gram import PRECISION
from jaxclassic.linear._params import predict_linear
from jaxclassic.validation import (
    check_choice,
    check_int,
    check_key,
    check_sample_weight,
    check_scalar,
    check_X_y,
)

__all__ = ["SGDRegressorParams", "fit_sgd_regressor", "sgd_objective", "OPTIMIZERS", "SCHEDULES"]

OPTIMIZERS = ("sgd", "momentum", "adam")
SCHEDULES = ("constant", "invscaling", "cosine")


class SGDRegressorParams(NamedTuple):
    """A linear regression fitted by minibatch SGD.

    Attributes
    ----------
    coef : (n_features,)
    intercept : ()
    n_iter : int32 () epochs run (always ``n_epochs``: the loop has a fixed count).
    loss_history : (n_epochs,) the full objective :math:`J` after each epoch.
    """

    coef: jax.Array
    intercept: jax.Array
    n_iter: jax.Array
    loss_history: jax.Array


def _centre(X, y, sample_weight, fit_intercept):
    sw = sample_weight.astype(X.dtype)
    if not fit_intercept:
        return X, y, jnp.zeros(X.shape[1], X.dtype), jnp.zeros((), X.dtype)
    sw_sum = jnp.sum(sw)
    x_mean = jnp.matmul(sw, X, precision=PRECISION) / sw_sum
    y_mean = jnp.dot(sw, y, precision=PRECISION) / sw_sum
    return X - x_mean, y - y_mean, x_mean, y_mean


def sgd_objective(coef, X, y, sample_weight, l2):
    r""":math:`J(\beta) = \sum_i w_i \ell(y_i, x_i^\top\beta) / \sum_i w_i + \tfrac{l_2}{2}\lVert\beta\rVert^2`.

    ``X``, ``y`` already centred (with an intercept); the full-data objective that each batch
    loss estimates without bias. Its gradient is
    :math:`X^\top W (X\beta - y)/\sum_i w_i + l_2\beta`.
    """
    sw = sample_weight.astype(X.dtype)
    f = jnp.matmul(X, coef, precision=PRECISION)
    return jnp.sum(sw * losses.squared(y, f)) / jnp.sum(sw) + 0.5 * l2 * jnp.sum(jnp.square(coef))


def _schedule(name, learning_rate, n_steps, power_t):
    if name == "constant":
        return optax.constant_schedule(learning_rate)
    if name == "cosine":
        return optax.cosine_decay_schedule(learning_rate, n_steps)
    # inverse scaling, scikit-learn's "invscaling": eta_t = eta_0 / (t + 1)^power_t
    return lambda count: learning_rate / jnp.power(count + 1.0, power_t)


def _optimizer(name, schedule, momentum):
    if name == "sgd":
        return optax.sgd(schedule)
    if name == "momentum":
        return optax.sgd(schedule, momentum=momentum)
    return optax.adam(schedule)


@partial(jax.jit, static_argnames=("optimizer", "batch_size", "n_epochs", "schedule", "fit_intercept"))
def _fit_sgd(X, y, sample_weight, key, learning_rate, l2, power_t, momentum, *, optimizer,
             batch_size, n_epochs, schedule, fit_intercept):
    n_samples, n_features = X.shape
    dtype = X.dtype
    Xc, yc, x_mean, y_mean = _centre(X, y, sample_weight, fit_intercept)
    sw = sample_weight.astype(dtype)
    unit_weight = sw * (n_samples / jnp.sum(sw))  # mean 1 over the rows
    batch_size = min(batch_size, n_samples)
    n_batches = -(-n_samples // batch_size)
    n_slots = n_batches * batch_size
    opt = _optimizer(optimizer, _schedule(schedule, learning_rate, n_epochs * n_batches, power_t),
                     momentum)

    def batch_loss(coef, rows, mask):
        f = jnp.matmul(Xc[rows], coef, precision=PRECISION)
        per_row = unit_weight[rows] * mask * losses.squared(yc[rows], f)
        return jnp.sum(per_row) / batch_size + 0.5 * l2 * jnp.sum(jnp.square(coef))

    def batch_step(carry, batch):
        coef, opt_state = carry
        grad = jax.grad(batch_loss)(coef, *batch)
        updates, opt_state = opt.update(grad, opt_state, coef)
        return (optax.apply_updates(coef, updates), opt_state), None

    slot_mask = (jnp.arange(n_slots) < n_samples).astype(dtype).reshape(n_batches, batch_size)

    def epoch(carry, epoch_key):
        order = jax.random.permutation(epoch_key, n_samples)
        rows = jnp.pad(order, (0, n_slots - n_samples)).reshape(n_batches, batch_size)
        carry, _ = jax.lax.scan(batch_step, carry, (rows, slot_mask))
        return carry, sgd_objective(carry[0], Xc, yc, sw, l2)

    coef0 = jnp.zeros(n_features, dtype)
    (coef, _), history = jax.lax.scan(epoch, (coef0, opt.init(coef0)),
                                      jax.random.split(key, n_epochs))
    intercept = y_mean - jnp.dot(x_mean, coef, precision=PRECISION)
    return SGDRegressorParams(coef, intercept, jnp.int32(n_epochs), history)


def fit_sgd_regressor(X, y, *, key, optimizer: str = "sgd", learning_rate: float = 0.01,
                      batch_size: int = 32, n_epochs: int = 50, schedule: str = "invscaling",
                      power_t: float = 0.25, momentum: float = 0.9, l2: float = 0.0,
                      fit_intercept: bool = True, sample_weight=None) -> SGDRegressorParams:
    r"""Linear least squares by minibatch SGD (optax), with keyed shuffling every epoch.

    Minimises :math:`J(\beta) = \sum_i w_i\,\tfrac12(y_i - x_i^\top\beta - b)^2/\sum_i w_i
    + \tfrac{l_2}{2}\lVert\beta\rVert^2` (module docstring: batches, intercept by centring,
    the fixed point ``fit_ridge(alpha=l2 * sum(w))``, what zero weights do). Update rules:
    ``"sgd"`` :math:`\beta \leftarrow \beta - \eta_t g`; ``"momentum"`` heavy ball
    :math:`m \leftarrow \mu m + g,\ \beta \leftarrow \beta - \eta_t m`; ``"adam"`` Kingma & Ba.
    Schedules of :math:`\eta_t` over the steps :math:`t`: ``"constant"``; ``"invscaling"``
    :math:`\eta_0/(t+1)^{p}` (``power_t``); ``"cosine"``
    :math:`\eta_0\,\tfrac12(1 + \cos(\pi t/T))` over all :math:`T` steps.

    Parameters
    ----------
    X : (n_samples, n_features) array-like
        Standardised columns help SGD (the step size must suit the largest curvature).
    y : (n_samples,) array-like
    key : jax.random key
        Drives the shuffling; same key, same result.
    optimizer : {"sgd", "momentum", "adam"}
    learning_rate : float > 0
        :math:`\eta_0` (traced: ``vmap``-able).
    batch_size : int >= 1
        Rows per step (static; capped at ``n_samples``).
    n_epochs : int >= 1
        Passes over the data (static).
    schedule : {"constant", "invscaling", "cosine"}
    power_t : float >= 0
        Exponent of ``"invscaling"``.
    momentum : float in [0, 1)
        :math:`\mu` of ``"momentum"``.
    l2 : float >= 0
        Ridge penalty :math:`l_2` in the mean-loss scaling above (traced).
    fit_intercept : bool, default True
    sample_weight : (n_samples,) array-like, optional

    Returns
    -------
    SGDRegressorParams
        ``coef, intercept, n_iter, loss_history``.

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jax.random.normal(jax.random.key(0), (256, 3)); y = X @ jnp.array([1.0, -2.0, 0.5]) + 3
    >>> params = fit_sgd_regressor(X, y, key=jax.random.key(1), optimizer="adam",
    ...                            learning_rate=0.05, schedule="cosine", n_epochs=100)

    References
    ----------
    Robbins & Monro (1951); Bottou, Curtis & Nocedal, SIAM Review 60 (2018); Kingma & Ba (2015).
    """
    X, y = check_X_y(X, y)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    key = check_key(key)
    check_choice(optimizer, "optimizer", OPTIMIZERS)
    check_choice(schedule, "schedule", SCHEDULES)
    check_scalar(learning_rate, "learning_rate", low=0.0, include_low=False)
    check_scalar(power_t, "power_t", low=0.0)
    check_scalar(momentum, "momentum", low=0.0, high=1.0, include_high=False)
    check_scalar(l2, "l2", low=0.0)
    batch_size = check_int(batch_size, "batch_size", low=1)
    n_epochs = check_int(n_epochs, "n_epochs", low=1)
    as_array = lambda v: jnp.asarray(v, X.dtype)  # noqa: E731
    return _fit_sgd(X, y, sw, key, as_array(learning_rate), as_array(l2), as_array(power_t),
                    as_array(momentum), optimizer=optimizer, batch_size=batch_size,
                    n_epochs=n_epochs, schedule=schedule, fit_intercept=bool(fit_intercept))


predict.register(SGDRegressorParams, predict_linear)
