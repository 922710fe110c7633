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

**Early stopping.** Given ``validation_weight`` :math:`v_i \ge 0` and ``patience`` :math:`P`,
the rows with :math:`v_i > 0` are held out: SGD trains on the weights
:math:`w_i\,[v_i = 0]` only, and after each epoch :math:`t = 0, 1, \dots` the validation loss

.. math::

    L_t = \frac{\sum_i w_i v_i\,\ell(y_i, x_i^\top\beta_t + b_t)}{\sum_i w_i v_i}

is fed to :func:`jaxclassic._early_stopping.early_stopping_update`. With
:math:`t^\star = \arg\min_{s \le t} L_s` (first minimiser), training stops at the first epoch
:math:`t` with :math:`t - t^\star \ge P`, and the parameters of epoch :math:`t^\star` are
returned (Prechelt's rule with patience; ESL §11.5.2). The epoch loop keeps its fixed count
(shape-static, ``vmap``-able): after the stop the iterate and optimiser state are frozen with
``jnp.where``, and the best coefficients so far ride along in the carry (the intercept
follows from them exactly, by the centring above).

References
----------
Robbins & Monro, "A stochastic approximation method", Ann. Math. Stat. 22 (1951).
Bottou, Curtis & Nocedal, "Optimization methods for large-scale machine learning",
SIAM Review 60 (2018), §4.
Kingma & Ba, "Adam: a method for stochastic optimization", ICLR 2015.
Prechelt, "Early stopping — but when?", in *Neural Networks: Tricks of the Trade*,
LNCS 1524 (1998). Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*,
2nd ed. (2009), §11.5.2.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxclassic import _jit
from jaxclassic import _precision, losses
from jaxclassic.linear._api import predict
from jaxclassic.linear._params import predict_linear
from jaxclassic.validation import (
    check_array,
    check_bool,
    check_choice,
    check_int,
    check_key,
    check_sample_weight,
    check_scalar,
    check_X_y,
    is_traced,
    key_from_seed,
)

__all__ = ["SGDRegressorParams", "SGDRegressorState", "fit_sgd_regressor", "partial_fit_sgd_regressor",
           "sgd_objective", "sgd_epoch", "OPTIMIZERS",
           "SCHEDULES"]

OPTIMIZERS = ("sgd", "momentum", "adam")
SCHEDULES = ("constant", "invscaling", "cosine")


class SGDRegressorParams(NamedTuple):
    r"""A linear regression fitted by minibatch SGD.

    Attributes
    ----------
    coef : (n_features,)
        With early stopping: those of epoch ``best_epoch``.
    intercept : ()
    n_iter : int32 ()
        Epochs whose update was applied: ``n_epochs`` without early stopping, else
        ``stop epoch + 1`` (``n_epochs`` when patience never ran out).
    loss_history : (n_epochs,)
        The training objective :math:`J` (on the training rows) after each epoch; after an
        early stop the iterate is frozen, so the remaining entries repeat the last value.
    best_epoch : int32 ()
        0-based epoch whose parameters are returned: :math:`t^\star` with early stopping,
        ``n_epochs - 1`` without. ``None`` only when built by hand with the old 4 fields.
    stopped : bool ()
        Whether patience ran out before ``n_epochs`` (always ``False`` without early stopping).
    validation_loss_history : (n_epochs,) or None
        The validation loss :math:`L_t` after each epoch (constant after the stop); ``None``
        without early stopping.
    converged : bool ()
        Whether the stopping rule was met. With early stopping: patience ran out before
        ``n_epochs`` (scikit-learn's reading: ``n_iter_ < max_iter``). Without: the objective
        is finite and, over the last ``TAIL_EPOCHS`` (5) epochs, fell by at most
        ``TAIL_FRACTION`` (0.1%) of its whole decrease (the rule ``SGDRegressor`` warns on);
        runs of at most 5 epochs count as converged when finite. ``None`` only when built by
        hand with the old fields.
    """

    coef: jax.Array
    intercept: jax.Array
    n_iter: jax.Array
    loss_history: jax.Array
    best_epoch: jax.Array | None = None
    stopped: jax.Array | None = None
    validation_loss_history: jax.Array | None = None
    converged: jax.Array | None = None


#: ``converged`` without early stopping: over the last ``TAIL_EPOCHS`` epochs the training
#: objective fell by at most ``TAIL_FRACTION`` of its whole decrease
TAIL_EPOCHS = 5
TAIL_FRACTION = 1e-3


def _tail_converged(history):
    """The no-early-stopping rule of ``SGDRegressorParams.converged`` on the (n_epochs,) losses."""
    finite = jnp.all(jnp.isfinite(history))
    if history.shape[0] <= TAIL_EPOCHS:
        return finite
    tail = history[-TAIL_EPOCHS - 1] - history[-1]
    return finite & ((tail <= 0) | (tail <= TAIL_FRACTION * (history[0] - history[-1])))


def _centre(X, y, sample_weight, fit_intercept):
    sw = sample_weight.astype(X.dtype)
    if not fit_intercept:
        return X, y, jnp.zeros(X.shape[1], X.dtype), jnp.zeros((), X.dtype)
    sw_sum = jnp.sum(sw)
    x_mean = _precision.matmul(sw, X) / sw_sum
    y_mean = _precision.dot(sw, y) / sw_sum
    return X - x_mean, y - y_mean, x_mean, y_mean


def sgd_objective(coef, X, y, sample_weight, l2):
    r""":math:`J(\beta) = \sum_i w_i \ell(y_i, x_i^\top\beta) / \sum_i w_i + \tfrac{l_2}{2}\lVert\beta\rVert^2`.

    ``X``, ``y`` already centred (with an intercept); the full-data objective that each batch
    loss estimates without bias. Its gradient is
    :math:`X^\top W (X\beta - y)/\sum_i w_i + l_2\beta`.
    """
    sw = sample_weight.astype(X.dtype)
    f = _precision.matmul(X, coef)
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


def n_batches_of(n_samples: int, batch_size: int) -> int:
    """Batches per epoch: ``ceil(n / min(batch_size, n))`` (the last one padded)."""
    return -(-n_samples // min(batch_size, n_samples))


def sgd_epoch(params, opt_state, optimizer: optax.GradientTransformation, batch_loss, key,
              n_samples: int, batch_size: int, dtype):
    """One epoch of minibatch SGD, the loop shared by every SGD fit of the package.

    A permutation of the ``n_samples`` rows drawn from ``key`` is cut into
    ``ceil(n / batch_size)`` batches of ``batch_size`` slots (capped at ``n``); the last
    batch is padded with masked slots, so every row is visited once per epoch and shapes stay
    static. ``batch_loss(params, rows, mask) -> scalar`` gets the (batch_size,) row indices
    and the float mask (0 on padding slots); its autodiff gradient feeds ``optimizer``, one
    ``lax.scan`` step per batch. Returns ``(params, opt_state)``.
    """
    batch_size = min(batch_size, n_samples)
    n_batches = n_batches_of(n_samples, batch_size)
    n_slots = n_batches * batch_size
    slot_mask = (jnp.arange(n_slots) < n_samples).astype(dtype).reshape(n_batches, batch_size)
    order = jax.random.permutation(key, n_samples)
    rows = jnp.pad(order, (0, n_slots - n_samples)).reshape(n_batches, batch_size)

    def batch_step(carry, batch):
        params, opt_state = carry
        grad = jax.grad(batch_loss)(params, *batch)
        updates, opt_state = optimizer.update(grad, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), None

    (params, opt_state), _ = jax.lax.scan(batch_step, (params, opt_state), (rows, slot_mask))
    return params, opt_state


@partial(_jit.jit, static_argnames=("optimizer", "batch_size", "n_epochs", "schedule", "fit_intercept"))
def _fit_sgd(X, y, sample_weight, key, learning_rate, l2, power_t, momentum,
             validation_weight=None, patience=None, *, optimizer, batch_size, n_epochs, schedule,
             fit_intercept):
    n_samples, n_features = X.shape
    dtype = X.dtype
    early = validation_weight is not None
    if early:  # train on the rows with v == 0; score on w * v
        vw = validation_weight.astype(dtype)
        val_weight = sample_weight.astype(dtype) * vw
        sample_weight = sample_weight.astype(dtype) * (vw == 0).astype(dtype)
    Xc, yc, x_mean, y_mean = _centre(X, y, sample_weight, fit_intercept)
    sw = sample_weight.astype(dtype)
    unit_weight = sw * (n_samples / jnp.sum(sw))  # mean 1 over the rows
    batch_size = min(batch_size, n_samples)
    n_batches = n_batches_of(n_samples, batch_size)
    opt = _optimizer(optimizer, _schedule(schedule, learning_rate, n_epochs * n_batches, power_t),
                     momentum)

    def batch_loss(coef, rows, mask):
        f = _precision.matmul(Xc[rows], coef)
        per_row = unit_weight[rows] * mask * losses.squared(yc[rows], f)
        return jnp.sum(per_row) / batch_size + 0.5 * l2 * jnp.sum(jnp.square(coef))

    def epoch(carry, epoch_key):
        carry = sgd_epoch(*carry, opt, batch_loss, epoch_key, n_samples, batch_size, dtype)
        return carry, sgd_objective(carry[0], Xc, yc, sw, l2)

    coef0 = jnp.zeros(n_features, dtype)
    epoch_keys = jax.random.split(key, n_epochs)
    if not early:
        (coef, _), history = jax.lax.scan(epoch, (coef0, opt.init(coef0)), epoch_keys)
        intercept = y_mean - _precision.dot(x_mean, coef)
        return SGDRegressorParams(coef, intercept, jnp.int32(n_epochs), history,
                                  jnp.int32(n_epochs - 1), jnp.asarray(False), None,
                                  _tail_converged(history))

    # lazy: jaxclassic.model_selection imports jaxclassic.linear
    from jaxclassic._early_stopping import early_stopping_init, early_stopping_update

    val_sum = jnp.sum(val_weight)

    def validation_loss(coef):  # residuals of the centred data = those of X coef + intercept
        f = _precision.matmul(Xc, coef)
        return jnp.sum(val_weight * losses.squared(yc, f)) / val_sum

    def early_epoch(carry, epoch_key):
        inner, es, best_coef = carry
        new_inner, _ = epoch(inner, epoch_key)
        inner = jax.tree_util.tree_map(lambda old, upd: jnp.where(es.stop, old, upd), inner, new_inner)
        val = validation_loss(inner[0])
        new_es = early_stopping_update(es, val, patience=patience)
        improved = new_es.best_iter != es.best_iter
        best_coef = jnp.where(improved, inner[0], best_coef)
        return (inner, new_es, best_coef), (sgd_objective(inner[0], Xc, yc, sw, l2), val)

    carry0 = ((coef0, opt.init(coef0)), early_stopping_init(dtype), coef0)
    (_, es, coef), (history, val_history) = jax.lax.scan(early_epoch, carry0, epoch_keys)
    intercept = y_mean - _precision.dot(x_mean, coef)
    return SGDRegressorParams(coef, intercept, es.n_iter, history, es.best_iter, es.stop,
                              val_history, es.stop & jnp.all(jnp.isfinite(history)))


def _check_early_stopping(validation_weight, patience, sample_weight):
    """Validate the early-stopping pair before tracing; ``(None, None)`` when it is off."""
    if validation_weight is None and patience is None:
        return None, None
    if validation_weight is None:
        raise ValueError("patience requires validation_weight (the held-out rows), got None")
    if patience is None:
        raise ValueError("validation_weight requires patience (an int >= 1), got None")
    if is_traced(patience):
        patience = jnp.asarray(patience, jnp.int32)
    else:
        patience = jnp.int32(check_int(patience, "patience", low=1))
    n = sample_weight.shape[0]
    if is_traced(validation_weight):
        if jnp.shape(validation_weight) != (n,):
            raise ValueError(f"validation_weight must have shape ({n},), got {validation_weight.shape}")
        return validation_weight.astype(sample_weight.dtype), patience
    v = check_array(validation_weight, "validation_weight", ndim=1, dtype=sample_weight.dtype,
                    min_samples=0, _numpy=True)
    if v.shape != (n,):
        raise ValueError(f"validation_weight must have shape ({n},), got {v.shape}")
    if (v < 0).any():
        raise ValueError(f"validation_weight must be non-negative, got {int((v < 0).sum())} negative value(s)")
    if not is_traced(sample_weight):
        w = np.asarray(sample_weight)
        if not (w * v > 0).any():
            raise ValueError("validation_weight must mark at least one row of positive sample_weight")
        if not (w * (v == 0) > 0).any():
            raise ValueError("validation_weight leaves no training row (validation_weight == 0 with "
                             "positive sample_weight)")
    return jnp.asarray(v), patience


def fit_sgd_regressor(X, y, *, key=None, optimizer: str = "sgd", learning_rate: float = 0.01,
                      batch_size: int = 32, n_epochs: int = 50, schedule: str = "invscaling",
                      power_t: float = 0.25, momentum: float = 0.9, l2: float = 0.0,
                      fit_intercept: bool = True, sample_weight=None, validation_weight=None,
                      patience=None) -> SGDRegressorParams:
    r"""Linear least squares by minibatch SGD (optax), with keyed shuffling every epoch.

    Minimises :math:`J(\beta) = \sum_i w_i\,\tfrac12(y_i - x_i^\top\beta - b)^2/\sum_i w_i
    + \tfrac{l_2}{2}\lVert\beta\rVert^2` (module docstring: batches, intercept by centring,
    the fixed point ``fit_ridge(alpha=l2 * sum(w))``, what zero weights do). Update rules:
    ``"sgd"`` :math:`\beta \leftarrow \beta - \eta_t g`; ``"momentum"`` heavy ball
    :math:`m \leftarrow \mu m + g,\ \beta \leftarrow \beta - \eta_t m`; ``"adam"`` Kingma & Ba.
    Schedules of :math:`\eta_t` over the steps :math:`t`: ``"constant"``; ``"invscaling"``
    :math:`\eta_0/(t+1)^{p}` (``power_t``); ``"cosine"``
    :math:`\eta_0\,\tfrac12(1 + \cos(\pi t/T))` over all :math:`T` steps.

    **Early stopping** (``validation_weight`` and ``patience`` both given): the rows with
    :math:`v_i > 0` are held out (training weights :math:`w_i [v_i = 0]`); after each epoch
    :math:`t` the validation loss :math:`L_t = \sum_i w_i v_i \tfrac12 (y_i - \hat y_i)^2 /
    \sum_i w_i v_i` is computed; with :math:`t^\star = \arg\min_{s\le t} L_s`, training stops
    at the first epoch with :math:`t - t^\star \ge P` (``patience``) and the parameters of epoch
    :math:`t^\star` are returned. The parameters are those of a plain run with
    ``n_epochs = best_epoch + 1``, same key and ``sample_weight * (validation_weight == 0)``,
    except with ``schedule="cosine"``, whose horizon :math:`T` stays ``n_epochs``.

    Parameters
    ----------
    X : (n_samples, n_features) array-like
        Standardised columns help SGD (the step size must suit the largest curvature).
    y : (n_samples,) array-like
    key : jax.random key, optional
        Drives the shuffling; same key, same result. Default ``None``: the fixed key
        ``jax.random.key(0)`` (so a call without a key is deterministic).
    optimizer : {"sgd", "momentum", "adam"}
    learning_rate : float > 0
        :math:`\eta_0` (traced: ``vmap``-able).
        ``learning_rate``'s default differs from the estimator's: ``SGDRegressor(learning_rate=)`` is scikit-learn's name for the schedule
        (default ``"invscaling"``, this fit's ``schedule``), and its ``eta0=0.01`` is this
        step, with the same default.
    batch_size : int >= 1
        Rows per step (static; capped at ``n_samples``).
    n_epochs : int >= 1
        Passes over the data (static). ``n_epochs``'s default differs from the estimator's:
        ``SGDRegressor(n_epochs=None)`` is the earlier spelling of its ``max_iter=50``, the
        same 50 epochs.
    schedule : {"constant", "invscaling", "cosine"}
        ``schedule``'s default differs from the estimator's: ``SGDRegressor(schedule=None)``
        is the earlier spelling of its ``learning_rate="invscaling"``, the same schedule.
    power_t : float >= 0
        Exponent of ``"invscaling"``.
    momentum : float in [0, 1)
        :math:`\mu` of ``"momentum"``.
    l2 : float >= 0
        Ridge penalty :math:`l_2` in the mean-loss scaling above (traced).
        ``l2``'s default differs from the estimator's: ``SGDRegressor(l2=None)`` is the earlier spelling of its
        ``alpha=0.0001`` (scikit-learn's default penalty); this fit's ``0`` is plain least
        squares, which existing callers rely on.
    fit_intercept : bool, default True
    sample_weight : (n_samples,) array-like, optional
    validation_weight : (n_samples,) array-like of floats >= 0, optional
        Marks the held-out rows (``> 0``) and weighs them (times ``sample_weight``) in the
        validation loss; rows with ``0`` are the training rows. Requires ``patience``.
    patience : int >= 1, optional
        Epochs without improvement of the validation loss tolerated before stopping
        (traced: a new value does not recompile). Requires ``validation_weight``.

    Returns
    -------
    SGDRegressorParams
        ``coef, intercept, n_iter, loss_history, best_epoch, stopped,
        validation_loss_history, converged``.

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jax.random.normal(jax.random.key(0), (256, 3)); y = X @ jnp.array([1.0, -2.0, 0.5]) + 3
    >>> params = fit_sgd_regressor(X, y, key=jax.random.key(1), optimizer="adam",
    ...                            learning_rate=0.05, schedule="cosine", n_epochs=100)

    References
    ----------
    Robbins & Monro (1951); Bottou, Curtis & Nocedal, SIAM Review 60 (2018); Kingma & Ba (2015);
    Prechelt, "Early stopping — but when?" (1998); Hastie, Tibshirani & Friedman, ESL §11.5.2.
    """
    X, y = check_X_y(X, y)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    key = key_from_seed(0) if key is None else check_key(key)
    check_choice(optimizer, "optimizer", OPTIMIZERS)
    check_choice(schedule, "schedule", SCHEDULES)
    check_scalar(learning_rate, "learning_rate", low=0.0, include_low=False)
    check_scalar(power_t, "power_t", low=0.0)
    check_scalar(momentum, "momentum", low=0.0, high=1.0, include_high=False)
    check_scalar(l2, "l2", low=0.0)
    batch_size = check_int(batch_size, "batch_size", low=1)
    n_epochs = check_int(n_epochs, "n_epochs", low=1)
    vw, patience = _check_early_stopping(validation_weight, patience, sw)
    as_array = lambda v: jnp.asarray(v, X.dtype)  # noqa: E731
    params = _fit_sgd(X, y, sw, key, as_array(learning_rate), as_array(l2), as_array(power_t),
                      as_array(momentum), vw, patience, optimizer=optimizer, batch_size=batch_size,
                      n_epochs=n_epochs, schedule=schedule,
                      fit_intercept=check_bool(fit_intercept, "fit_intercept"))
    if not is_traced(params.coef) and not (
            np.isfinite(params.coef).all() and np.isfinite(params.intercept).all()):
        # a step too large for X's scale overflows (X of 1e30 scale: the intercept becomes NaN)
        warnings.warn(
            f"fit_sgd_regressor diverged (non-finite coefficients or intercept) with learning_rate="
            f"{learning_rate}; standardise X or lower the learning rate", RuntimeWarning, stacklevel=2)
    return params


predict.register(SGDRegressorParams, predict_linear)


# --------------------------------------------------------------------------- partial_fit
class SGDRegressorState(NamedTuple):
    """The optimiser's position between :func:`partial_fit_sgd_regressor` calls.

    Attributes
    ----------
    opt_state : pytree
        The optax state over ``(coef, intercept)`` (the step count; momentum or Adam moments).
    t : ()
        scikit-learn's ``t_``: updates made + 1.
    """

    opt_state: object
    t: jax.Array


@partial(_jit.jit, static_argnames=("optimizer", "batch_size", "schedule", "fit_intercept"))
def _partial_epoch(coef, intercept, opt_state, epoch, X, y, sw, key, learning_rate, l2, power_t, momentum, *,
                   optimizer, batch_size, schedule, fit_intercept):
    n = X.shape[0]
    dtype = X.dtype
    n_batches = n_batches_of(n, batch_size)
    n_slots = n_batches * batch_size
    positive = sw > 0
    mean_weight = jnp.sum(sw) / jnp.sum(positive)
    opt = _optimizer(optimizer, _schedule(schedule, learning_rate, 1, power_t), momentum)
    epoch_key = jax.random.fold_in(key, epoch)
    priority = jax.vmap(lambda i: jax.random.uniform(jax.random.fold_in(epoch_key, i), dtype=dtype))(
        jnp.arange(n))
    order = jnp.argsort(jnp.where(positive, priority, 2.0)).astype(jnp.int32)
    rows = jnp.pad(order, (0, n_slots - n)).reshape(n_batches, batch_size)
    mask = (jnp.arange(n_slots) < n).astype(dtype).reshape(n_batches, batch_size)

    def batch_loss(wb, rows, mask):
        w, b = wb
        f = _precision.matmul(X[rows], w) + b
        data = jnp.sum(sw[rows] * mask * losses.squared(y[rows], f)) / (batch_size * mean_weight)
        return data + 0.5 * l2 * jnp.sum(jnp.square(w))

    def batch_step(carry, batch):
        wb, state = carry
        active = jnp.any(sw[batch[0]] * batch[1] > 0)
        grad = jax.grad(batch_loss)(wb, *batch)
        if not fit_intercept:
            grad = (grad[0], jnp.zeros_like(grad[1]))
        updates, new_state = opt.update(grad, state, wb)
        new = (optax.apply_updates(wb, updates), new_state)
        return jax.tree_util.tree_map(lambda o, u: jnp.where(active, u, o), carry, new), active

    ((coef, intercept), opt_state), active = jax.lax.scan(batch_step, ((coef, intercept), opt_state),
                                                          (rows, mask))
    return coef, intercept, opt_state, sgd_objective(coef, X, y - intercept, sw, l2), jnp.sum(active)


def partial_fit_sgd_regressor(params: SGDRegressorParams | None, state: SGDRegressorState | None, X, y, *,
                              key=None, optimizer: str = "sgd", learning_rate: float = 0.01,
                              batch_size: int = 32, schedule: str = "invscaling", power_t: float = 0.25,
                              momentum: float = 0.9, l2: float = 0.0, fit_intercept: bool = True,
                              sample_weight=None) -> tuple[SGDRegressorParams, SGDRegressorState]:
    r"""One epoch of minibatch SGD over the batch ``(X, y)``, continuing ``(params, state)``.

    ``(params, state) -> (params, state)``, pure: ``state`` carries the optax state over
    ``(coef, intercept)`` (its step count is the schedule's position; momentum and Adam moments
    continue too) and ``params.n_iter`` the epochs so far; ``None, None`` starts from zero. One
    compiled program per batch shape. Unlike :func:`fit_sgd_regressor`, which centres the whole
    data and learns the intercept exactly, a stream cannot be centred beforehand: the intercept
    is a parameter of the descent (as scikit-learn's ``SGDRegressor``), unpenalised. The batch loss
    is :math:`\sum_{i\in B} s_i\tfrac12(y_i - x_i^\top\beta - b)^2/(|B|\,\bar s)
    + \tfrac{l_2}{2}\lVert\beta\rVert^2`
    (:math:`\bar s` the mean positive weight); each epoch visits the rows of positive weight in an
    order drawn from ``key`` folded with the epoch number, rows of weight 0 last, and a batch of
    them alone is skipped (no step, no count): appended zero-weight rows change nothing.
    ``schedule="cosine"`` needs a horizon a stream does not have and is refused.
    ``loss_history`` holds the batch's objective :math:`J` after this epoch.

    Parameters
    ----------
    params : SGDRegressorParams or None
        The model so far (``None``: zeros).
    state : SGDRegressorState or None
        The optimiser so far (``None``: a fresh optimiser, e.g. after :func:`fit_sgd_regressor`).
    X : (n_samples, n_features) array-like
    y : (n_samples,) array-like
    key, optimizer, learning_rate, batch_size, power_t, momentum, l2, fit_intercept, sample_weight
        As :func:`fit_sgd_regressor`.
    schedule : {"invscaling", "constant"}

    Returns
    -------
    (SGDRegressorParams, SGDRegressorState)

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jax.random.normal(jax.random.key(0), (64, 2)); y = X @ jnp.array([1.0, -1.0]) + 0.5
    >>> params, state = None, None
    >>> for _ in range(3):
    ...     params, state = partial_fit_sgd_regressor(params, state, X, y, learning_rate=0.05)
    >>> int(params.n_iter)
    3
    """
    X, y = check_X_y(X, y)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    key = key_from_seed(0) if key is None else check_key(key)
    check_choice(optimizer, "optimizer", OPTIMIZERS)
    check_choice(schedule, "schedule", ("constant", "invscaling"))
    check_scalar(learning_rate, "learning_rate", low=0.0, include_low=False)
    check_scalar(power_t, "power_t", low=0.0)
    check_scalar(momentum, "momentum", low=0.0, high=1.0, include_high=False)
    check_scalar(l2, "l2", low=0.0)
    batch_size = min(check_int(batch_size, "batch_size", low=1), X.shape[0])
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    if params is None and state is not None:
        raise ValueError("state was given without params; pass both, or params alone (a fresh optimiser "
                         "from those coefficients), or neither (from zero)")
    n_features = X.shape[1]
    if params is None:
        coef, intercept, epoch = jnp.zeros(n_features, X.dtype), jnp.zeros((), X.dtype), jnp.int32(0)
    else:
        if np.shape(params.coef) != (n_features,):
            raise ValueError(f"params.coef has shape {np.shape(params.coef)}, expected ({n_features},)")
        coef, intercept = jnp.asarray(params.coef, X.dtype), jnp.asarray(params.intercept, X.dtype)
        epoch = jnp.asarray(params.n_iter, jnp.int32)
    if state is None:
        opt_state = _optimizer(optimizer, _schedule(schedule, 1.0, 1, power_t), momentum).init((coef, intercept))
    else:
        opt_state = state.opt_state
    as_array = lambda v: jnp.asarray(v, X.dtype)  # noqa: E731
    t = jnp.ones((), X.dtype) if state is None else jnp.asarray(state.t, X.dtype)
    coef, intercept, opt_state, objective, n_updates = _partial_epoch(
        coef, intercept, opt_state, epoch, X, y, sw, key, as_array(learning_rate), as_array(l2),
        as_array(power_t), as_array(momentum), optimizer=optimizer, batch_size=batch_size,
        schedule=schedule, fit_intercept=fit_intercept)
    n_iter = epoch + 1
    params = SGDRegressorParams(coef, intercept, n_iter, objective[None], n_iter - 1, jnp.asarray(False), None,
                                jnp.isfinite(objective))
    return params, SGDRegressorState(opt_state, t + n_updates.astype(X.dtype))
