r"""Binary logistic regression: Newton's method (default), L-BFGS, gradient descent, SGD.

Objective, with labels :math:`y_i \in \{0, 1\}`, sample weights :math:`s_i \ge 0` and the
shared per-sample loss :func:`jaxclassic.losses.log_loss`
:math:`\ell(y, f) = \log(1 + e^f) - y f`,

.. math::

    J(w, b) = \sum_i s_i\,\ell(y_i,\ x_i^\top w + b) + \frac{\lambda}{2}\lVert w\rVert^2,

the *summed* (not averaged) weighted log-loss, intercept unpenalised. Summing makes
``l2`` the inverse of scikit-learn's ``C`` — ``LogisticRegression(C=c)`` minimises
:math:`c\sum_i s_i\ell_i + \tfrac12\lVert w\rVert^2`, i.e. :math:`J/c` with
:math:`\lambda = 1/c` — and makes integer sample weights equal to repeated rows.

Newton's method. With :math:`\theta = (w, b)` and scores :math:`f = Xw + b`, the chain rule
through the linear score gives

.. math::

    \nabla J = \tilde X^\top (s \odot g) + \lambda (w, 0), \qquad
    \nabla^2 J = \tilde X^\top \operatorname{diag}(s \odot h)\,\tilde X + \lambda\,\mathrm{diag}(I, 0),

where :math:`\tilde X = [X, 1]` and :math:`g_i, h_i` are the first and second derivatives
of the loss in the score, obtained by autodiff of ``losses.log_loss`` through
:func:`jaxclassic.losses.grad_hess` (so :math:`g = p - y`, :math:`h = p(1-p)`, checked in
the tests together with ``jax.hessian`` of :math:`J` itself). The Hessian and its intercept
column come out of **one matrix product** :math:`Z^\top Z`, :math:`Z = \tilde X \odot \sqrt{s\odot h}`
(``jax.hessian`` of :math:`J` would also push an identity basis through :math:`X`, a second
product of the same size), formed block by block of rows
(:func:`jaxclassic.linear._gram.gram_with_ones`); under ``jax.vmap`` over the weights (cross-validation folds, a grid of ``l2``) the Hessians of
all the fits are instead one matrix product of the (batch, n) weights with the packed row
outer products :math:`\operatorname{triu}(\tilde x_i\tilde x_i^\top)`. The step solves :math:`\nabla^2 J\, d = -\nabla J` by Cholesky,
then halves :math:`t = 1, \tfrac12, \dots` until :math:`J(\theta + t d)` satisfies Armijo's
condition; the trial scores are :math:`f + t\,\tilde X d`, so a trial costs :math:`O(n)`.
Per iteration: one :math:`X^\top W X` product and two passes over :math:`X` (the scores'
direction :math:`\tilde X d` and the gradient at the new iterate, which also decides
whether to stop, so a converged fit never forms a Hessian it does not use).

Stopping: when :math:`\lVert\nabla J\rVert_2 / \sum_i s_i \le` ``tol`` (the gradient of the
weight-averaged objective: ``tol`` does not scale with ``n``). ``grad_norm_history`` holds
that norm after each iteration; Newton's quadratic convergence shows as
:math:`\lVert g_{k+1}\rVert \le M\lVert g_k\rVert^2`.

Perfect separation. With :math:`\lambda = 0`, if some iterate classifies every training row
(of positive weight) with a strictly positive margin :math:`(2y_i - 1) f_i > 0`, the data
are linearly separable and :math:`J` has no minimiser (:math:`J \to 0` as
:math:`\lVert w\rVert \to \infty`). The fit then stops at that iterate (finite) with
``separated=True`` and :func:`fit_logistic` warns with
:class:`~jaxclassic.linear._newton.PerfectSeparationWarning`. Warnings are raised in Python
after the jitted fit returns; inside ``jit``/``vmap`` read ``separated`` / ``converged``.

References
----------
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §4.4.1
(fitting logistic regression by Newton-Raphson / IRLS).
Nocedal & Wright, *Numerical Optimization*, 2nd ed., §3.1 (backtracking), §3.3 (Newton).
Albert & Anderson, "On the existence of maximum likelihood estimates in logistic
regression models", Biometrika 71 (1984) (separation).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxclassic import losses
from jaxclassic._solver import iterate, minimize_optax
from jaxclassic.linear._api import decision_function, predict, predict_proba
from jaxclassic.linear._gram import gram_with_ones
from jaxclassic.linear._newton import (
    at_rounding_floor,
    backtracking,
    default_tol,
    newton_direction,
    warn_after_fit,
    weighted_sum,
)
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_classification_targets,
    check_classifier_data,
    check_int,
    check_key,
    check_sample_weight,
    check_scalar,
)

__all__ = [
    "LogisticParams",
    "LogisticInference",
    "fit_logistic",
    "logistic_objective",
    "logistic_grad_hess",
    "logistic_inference",
]

METHODS = ("newton", "lbfgs", "gd", "sgd")


class LogisticParams(NamedTuple):
    """A fitted binary logistic regression :math:`P(y=1\\mid x) = \\sigma(x^\\top w + b)`.

    Attributes
    ----------
    coef : (n_features,) array
        :math:`w`.
    intercept : scalar array
        :math:`b` (0 without ``fit_intercept``).
    n_iter : int32 scalar
        Newton iterations (epochs for ``sgd``).
    converged : bool scalar
        Whether the gradient norm reached ``tol``.
    grad_norm_history : (max_iter,) array
        :math:`\\lVert\\nabla J\\rVert / \\sum s` after each iteration (0 past ``n_iter``).
    separated : bool scalar
        ``l2 == 0`` and the final scores separate the classes perfectly (no finite MLE).
    """

    coef: jax.Array
    intercept: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    grad_norm_history: jax.Array
    separated: jax.Array


class LogisticInference(NamedTuple):
    """Wald inference for a logistic fit; entries ordered ``(w_1..w_d, b)``.

    Attributes
    ----------
    std_err : (n_features + 1,) array
        :math:`\\sqrt{\\operatorname{diag}(H^{-1})}` at the fit.
    z : (n_features + 1,) array
        ``estimate / std_err``.
    p_value : (n_features + 1,) array
        Two-sided normal p-values.
    covariance : (n_features + 1, n_features + 1) array
        :math:`H^{-1}`, the inverse observed information.
    """

    std_err: jax.Array
    z: jax.Array
    p_value: jax.Array
    covariance: jax.Array


# --------------------------------------------------------------------------- objective
def logistic_objective(coef, intercept, X, y, *, l2=0.0, sample_weight=None):
    r""":math:`J(w, b) = \sum_i s_i\,\ell(y_i, x_i^\top w + b) + \tfrac{\lambda}{2}\lVert w\rVert^2`.

    Pure and differentiable (``jax.grad`` / ``jax.hessian`` of it are the references for the
    Newton system); ``y`` in {0, 1}, ``sample_weight`` defaults to ones.
    """
    X = jnp.asarray(X)
    f = X @ coef + intercept
    sw = jnp.ones(X.shape[0], f.dtype) if sample_weight is None else sample_weight
    return weighted_sum(sw, losses.log_loss(y, f)) + 0.5 * l2 * jnp.sum(jnp.square(coef))


def _weighted_derivatives(f, y, sw):
    """``(s g, s h)``: the weighted first and second derivatives of the loss in the scores,
    from ONE autodiff evaluation of the shared loss (0 on rows of weight 0)."""
    g, h = losses.grad_hess(losses.log_loss, y, f)
    keep = sw > 0
    return jnp.where(keep, sw * g, 0), jnp.where(keep, sw * h, 0)


def _gradient(theta, sg, X, l2, fit_intercept):
    """Gradient of J at ``theta = (w, b)`` from the weighted loss gradient ``s g``: one pass."""
    d = X.shape[1]
    fi = jnp.asarray(fit_intercept, X.dtype)
    # sg @ X, not X.T @ sg: XLA's CPU backend transposes all of X for the latter (~5x slower)
    return jnp.concatenate([sg @ X + l2 * theta[:d], (fi * jnp.sum(sg))[None]])


def _hessian(sh, X, l2, fit_intercept):
    """Hessian of J from the weighted loss curvature ``s h >= 0``: [X, 1]^T diag(s h) [X, 1]."""
    d = X.shape[1]
    fi = jnp.asarray(fit_intercept, X.dtype)
    # the one X^T W X product of a step, intercept row and column included: blocked Z^T Z
    # with Z = [X, 1] sqrt(s h); under vmap over the weights (CV folds, a grid of l2) all
    # the fits' Hessians are one GEMM with the packed row outer products (_gram.gram_with_ones)
    hess = gram_with_ones(X, sh)
    keep = jnp.concatenate([jnp.ones((d,), X.dtype), fi[None]])
    hess = hess * keep[:, None] * keep[None, :]
    # penalty on w; without an intercept its (zero) row and column get a unit diagonal
    return hess + jnp.diag(jnp.concatenate([jnp.full((d,), l2, X.dtype), (1 - fi)[None]]))


def logistic_grad_hess(coef, intercept, X, y, *, l2=0.0, sample_weight=None, fit_intercept=True):
    r"""Gradient ``(d+1,)`` and Hessian ``(d+1, d+1)`` of :math:`J` in :math:`(w, b)`, as used
    by the Newton step (autodiff of the loss in the score, composed with :math:`X`).

    Equals :math:`\tilde X^\top(s\odot(p - y)) + \lambda(w, 0)` and
    :math:`\tilde X^\top\operatorname{diag}(s\,p(1-p))\tilde X + \lambda\operatorname{diag}(I, 0)`.
    Without ``fit_intercept`` the intercept entry of the gradient is 0 and its Hessian row is
    :math:`e_{d+1}` (the intercept stays fixed).
    """
    X = jnp.asarray(X)
    y = jnp.asarray(y, X.dtype)
    sw = jnp.ones(X.shape[0], X.dtype) if sample_weight is None else jnp.asarray(sample_weight, X.dtype)
    theta = jnp.concatenate([coef, jnp.reshape(intercept, (1,))]).astype(X.dtype)
    f = X @ theta[:-1] + theta[-1]
    l2 = jnp.asarray(l2, X.dtype)
    sg, sh = _weighted_derivatives(f, y, sw)
    return _gradient(theta, sg, X, l2, fit_intercept), _hessian(sh, X, l2, fit_intercept)


# --------------------------------------------------------------------------- Newton
class _NewtonState(NamedTuple):
    theta: jax.Array
    f: jax.Array
    value: jax.Array
    grad: jax.Array
    grad_norm: jax.Array
    separated: jax.Array
    curvature: jax.Array  # s h at theta, for the next Hessian (computed with the gradient)


def _all_margins_positive(f, y, sw):
    margin = (2 * y - 1) * f
    return jnp.all((margin > 0) | (sw <= 0))


def _fit_newton(X, y, sw, l2, tol, theta0, *, max_iter, fit_intercept, start_at_zero=False):
    d = X.shape[1]
    total = jnp.sum(sw)

    def step(state: _NewtonState):
        # the gradient at the current iterate is carried; a step costs the Hessian product,
        # one pass for the scores' direction u = X d and one for the new gradient
        hess = _hessian(state.curvature, X, l2, fit_intercept)
        direction = newton_direction(hess, state.grad)
        u = X @ direction[:d] + direction[d]

        def phi(t):  # J on the line, O(n) per trial: the scores move linearly
            w = state.theta[:d] + t * direction[:d]
            return weighted_sum(sw, losses.log_loss(y, state.f + t * u)) + 0.5 * l2 * jnp.sum(w * w)

        slope = jnp.dot(state.grad, direction)
        t, value, accepted = backtracking(phi, state.value, slope)
        theta = jnp.where(accepted, state.theta + t * direction, state.theta)
        f = jnp.where(accepted, state.f + t * u, state.f)
        value = jnp.where(accepted, value, state.value)
        sg, sh = _weighted_derivatives(f, y, sw)
        grad = _gradient(theta, sg, X, l2, fit_intercept)
        grad_norm = jnp.linalg.norm(grad) / total
        separated = (l2 == 0) & _all_margins_positive(f, y, sw)
        # a refused step or a separating iterate ends the fit (NaN error -> not converged),
        # unless the gradient meets tol
        floor = at_rounding_floor(state.value, -slope, grad_norm, state.grad_norm)
        stop = (separated | floor | jnp.logical_not(accepted)) & (grad_norm > tol)
        error = jnp.where(stop, jnp.nan, grad_norm)
        return _NewtonState(theta, f, value, grad, grad_norm, separated, sh), error

    f0 = jnp.full(X.shape[0], theta0[d]) + (X @ theta0[:d] if not start_at_zero else 0)
    value0 = weighted_sum(sw, losses.log_loss(y, f0)) + 0.5 * l2 * jnp.sum(theta0[:d] ** 2)
    sg0, sh0 = _weighted_derivatives(f0, y, sw)
    grad0 = _gradient(theta0, sg0, X, l2, fit_intercept)
    norm0 = jnp.linalg.norm(grad0) / total
    init = _NewtonState(theta0, f0, value0, grad0, norm0, jnp.asarray(False), sh0)
    res = iterate(step, init, max_iter=max_iter, tol=tol, init_error=norm0)
    # the stopping step recorded NaN: put back its gradient norm
    history = jnp.where(jnp.isnan(res.history), res.carry.grad_norm, res.history)
    return res.carry.theta, res.carry.f, res.n_iter, res.converged, history


# --------------------------------------------------------------------------- first order
def _lipschitz_step(X, sw, l2, fit_intercept, n_power: int = 30):
    r"""1/L for the weight-averaged objective, :math:`L = \lambda_{\max}(\tilde X^\top S\tilde X)
    / (4\sum s) + \lambda/\sum s` (the log-loss curvature is at most 1/4), with
    :math:`\lambda_{\max}` from ``n_power`` power iterations; gradient descent is stable for
    steps below 2/L, so the power iteration's slight under-estimate is harmless."""
    d = X.shape[1]
    total = jnp.sum(sw)
    fi = jnp.asarray(fit_intercept, X.dtype)
    s = jnp.where(sw > 0, sw, 0)

    def gram_times(v):
        u = X @ v[:d] + fi * v[d]
        su = s * u
        return jnp.concatenate([su @ X, (fi * jnp.sum(su))[None]])

    def power(_, v):
        v = gram_times(v)
        return v / jnp.linalg.norm(v)

    v0 = jax.random.normal(jax.random.key(0), (d + 1,), X.dtype)
    v = jax.lax.fori_loop(0, n_power, power, v0 / jnp.linalg.norm(v0))
    lam = jnp.dot(v, gram_times(v))
    return 1.0 / (0.25 * lam / total + l2 / total)


def _mean_objective(X, y, sw, l2, fit_intercept):
    d = X.shape[1]
    total = jnp.sum(sw)
    fi = jnp.asarray(fit_intercept, X.dtype)

    def fun(theta):
        return logistic_objective(theta[:d], fi * theta[d], X, y, l2=l2, sample_weight=sw) / total
    return fun


def _fit_sgd(X, y, sw, l2, tol, theta0, learning_rate, key, *, max_iter, fit_intercept, batch_size):
    n, d = X.shape
    bs = min(batch_size, n)
    n_batches = n // bs
    total = jnp.sum(sw)
    fi = jnp.asarray(fit_intercept, X.dtype)
    full = _mean_objective(X, y, sw, l2, fit_intercept)
    # lr_k = lr / sqrt(1 + epoch): the Robbins-Monro decay, in epochs
    optimizer = optax.sgd(lambda count: learning_rate / jnp.sqrt(1.0 + count // n_batches))

    def batch_objective(theta, idx):
        f = X[idx] @ theta[:d] + fi * theta[d]
        data = weighted_sum(sw[idx], losses.log_loss(y[idx], f)) * (n / bs)
        return (data + 0.5 * l2 * jnp.sum(theta[:d] ** 2)) / total

    def step(carry):
        theta, opt_state, epoch = carry
        order = jax.random.permutation(jax.random.fold_in(key, epoch), n)
        batches = order[: n_batches * bs].reshape(n_batches, bs)

        def one_batch(c, idx):
            theta, opt_state = c
            updates, opt_state = optimizer.update(jax.grad(batch_objective)(theta, idx), opt_state, theta)
            return (optax.apply_updates(theta, updates), opt_state), None

        (theta, opt_state), _ = jax.lax.scan(one_batch, (theta, opt_state), batches)
        return (theta, opt_state, epoch + 1), optax.tree.norm(jax.grad(full)(theta))

    res = iterate(step, (theta0, optimizer.init(theta0), jnp.int32(0)), max_iter=max_iter, tol=tol)
    return res.carry[0], res.n_iter, res.converged, res.history


@partial(jax.jit, static_argnames=("method", "max_iter", "fit_intercept", "batch_size"))
def _fit_logistic(X, y, sw, l2, tol, learning_rate, key, *, method, max_iter, fit_intercept, batch_size):
    dtype = X.dtype
    d = X.shape[1]
    y = y.astype(dtype)
    l2 = jnp.asarray(l2, dtype)
    tol = jnp.asarray(tol, dtype)
    # start at w = 0 and the intercept at the log-odds of the weighted class balance
    ybar = jnp.clip(weighted_sum(sw, y) / jnp.sum(sw), 1e-3, 1 - 1e-3)
    b0 = jnp.where(fit_intercept, jnp.log(ybar) - jnp.log1p(-ybar), 0).astype(dtype)
    theta0 = jnp.zeros(d + 1, dtype).at[d].set(b0)
    if method == "newton":
        # w0 = 0: the initial scores are the intercept alone (no pass over X)
        theta, f, n_iter, converged, history = _fit_newton(
            X, y, sw, l2, tol, theta0, max_iter=max_iter, fit_intercept=fit_intercept,
            start_at_zero=True)
    elif method == "sgd":
        lr = jnp.where(learning_rate > 0, learning_rate, _lipschitz_step(X, sw, l2, fit_intercept))
        theta, n_iter, converged, history = _fit_sgd(
            X, y, sw, l2, tol, theta0, lr.astype(dtype), key,
            max_iter=max_iter, fit_intercept=fit_intercept, batch_size=batch_size)
    else:
        fun = _mean_objective(X, y, sw, l2, fit_intercept)
        if method == "lbfgs":
            optimizer = optax.lbfgs()
        else:
            lr = jnp.where(learning_rate > 0, learning_rate, _lipschitz_step(X, sw, l2, fit_intercept))
            optimizer = optax.sgd(lr.astype(dtype))
        res = minimize_optax(fun, theta0, optimizer, max_iter=max_iter, tol=tol)
        theta, n_iter, converged, history = res.carry[0], res.n_iter, res.converged, res.history
    intercept = jnp.where(fit_intercept, theta[d], 0).astype(dtype)
    if method != "newton":
        f = X @ theta[:d] + intercept
    separated = (l2 == 0) & _all_margins_positive(f, y, sw)
    return LogisticParams(theta[:d], intercept, n_iter, converged & ~separated, history, separated)


def fit_logistic(
    X,
    y,
    *,
    l2=0.0,
    fit_intercept: bool = True,
    method: str = "newton",
    max_iter: int = 100,
    tol=None,
    learning_rate=None,
    batch_size: int = 32,
    sample_weight=None,
    key=None,
) -> LogisticParams:
    r"""Fit binary logistic regression by minimising the summed weighted log-loss + L2.

    .. math::
        J(w, b) = \sum_i s_i\,\bigl[\log(1 + e^{f_i}) - y_i f_i\bigr]
                  + \frac{\lambda}{2}\lVert w\rVert^2, \qquad f_i = x_i^\top w + b.

    ``l2`` is :math:`\lambda = 1/C` for scikit-learn's ``LogisticRegression(C=C)``.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) int array in {0, 1}
        Class codes (strings raise ``TypeError``; the estimator layer encodes labels).
    l2 : float >= 0
        Ridge penalty :math:`\lambda` on ``w`` (traced: a grid of it is a ``vmap``).
    fit_intercept : bool
        Fit an unpenalised intercept.
    method : {"newton", "lbfgs", "gd", "sgd"}
        ``"newton"``: Cholesky Newton steps with step halving (module docstring).
        ``"lbfgs"``: ``optax.lbfgs`` (zoom line search) on :math:`J/\sum s`.
        ``"gd"``: ``optax.sgd`` full-batch gradient descent with step ``learning_rate``.
        ``"sgd"``: minibatches of ``batch_size`` rows, reshuffled each epoch with ``key``,
        step ``learning_rate / sqrt(1 + epoch)``; ``max_iter`` counts epochs.
    max_iter : int
        Iteration (epoch) limit (static).
    tol : float, optional
        Stop when :math:`\lVert\nabla J\rVert_2/\sum_i s_i \le` ``tol``, i.e. on the gradient of
        the weight-averaged objective. Default ``1e-8`` in float64, ``1e-6`` in float32.
    learning_rate : float, optional
        Step of ``gd``/``sgd``; default :math:`1/L` with
        :math:`L = \lambda_{\max}(\tilde X^\top S \tilde X)/(4\sum_i s_i) + \lambda/\sum_i s_i`
        (power iteration), the largest curvature of the averaged objective.
    batch_size : int
        Minibatch size of ``sgd`` (static).
    sample_weight : (n_samples,) array, optional
        Non-negative weights; a weight-0 row has no influence (except on the minibatch
        partition of ``sgd``).
    key : jax.random key
        Required for ``sgd``; unused otherwise.

    Returns
    -------
    LogisticParams

    Warns
    -----
    PerfectSeparationWarning
        ``l2 == 0`` and the classes are separated: the fit stops at a separating iterate.
    ConvergenceWarning
        ``tol`` not met within ``max_iter`` or a line-search step was refused.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.linear import fit_logistic, predict_proba
    >>> X = jnp.array([[0.0], [1.0], [2.0], [3.0]]); y = jnp.array([0, 1, 0, 1])
    >>> params = fit_logistic(X, y, l2=1.0)
    >>> predict_proba(params, X).shape
    (4, 2)

    References
    ----------
    Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §4.4.
    """
    method = check_choice(method, "method", METHODS)
    max_iter = check_int(max_iter, "max_iter", low=1)
    batch_size = check_int(batch_size, "batch_size", low=1)
    if not isinstance(fit_intercept, bool):
        raise TypeError(f"fit_intercept must be a bool, got {type(fit_intercept).__name__}")
    X, y, sw, _ = check_classifier_data(X, y, sample_weight, n_classes=2)
    l2 = check_scalar(l2, "l2", low=0.0)
    tol = default_tol(X.dtype) if tol is None else check_scalar(tol, "tol", low=0.0)
    if learning_rate is None:
        learning_rate = 0.0
    else:
        learning_rate = check_scalar(learning_rate, "learning_rate", low=0.0, include_low=False)
    if method == "sgd":
        key = check_key(key)
    else:
        key = jax.random.key(0)  # unused
    params = _fit_logistic(X, y, sw, l2, tol, learning_rate, key, method=method, max_iter=max_iter,
                           fit_intercept=fit_intercept, batch_size=batch_size)
    warn_after_fit(params, f"fit_logistic(method={method!r})", l2)
    return params


# --------------------------------------------------------------------------- inference
def logistic_inference(params: LogisticParams, X, y, *, l2=0.0, sample_weight=None) -> LogisticInference:
    r"""Wald standard errors of a logistic fit from the inverse Hessian of :math:`J`.

    For an unpenalised fit (``l2=0``) the Hessian of the summed log-likelihood is the
    observed (= expected, canonical link) Fisher information, and
    :math:`\sqrt{\operatorname{diag}(H^{-1})}` are the standard errors statsmodels' ``Logit``
    reports. With ``l2 > 0`` the penalised Hessian is used (a Bayesian/Laplace reading).
    Entries are ordered ``(w_1, ..., w_d, b)``; without an intercept drop the last entry.
    """
    X = check_array(X, "X")
    y, _ = check_classification_targets(y, "y", n_classes=2)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    _, hess = logistic_grad_hess(params.coef.astype(X.dtype), params.intercept.astype(X.dtype), X,
                                 y, l2=l2, sample_weight=sw)
    cov = jnp.linalg.inv(hess)
    std_err = jnp.sqrt(jnp.diagonal(cov))
    estimate = jnp.concatenate([params.coef, jnp.reshape(params.intercept, (1,))]).astype(X.dtype)
    z = estimate / std_err
    p_value = 2 * jax.scipy.stats.norm.sf(jnp.abs(z))
    return LogisticInference(std_err, z, p_value, cov)


# --------------------------------------------------------------------------- predict
def _decision(params: LogisticParams, X):
    X = jnp.asarray(X)
    return X @ params.coef.astype(X.dtype) + params.intercept.astype(X.dtype)


def _predict_proba(params: LogisticParams, X):
    f = _decision(params, X)
    # sigma(-f) for class 0 rather than 1 - sigma(f): no cancellation for large f
    return jnp.stack([jax.nn.sigmoid(-f), jax.nn.sigmoid(f)], axis=-1)


def _predict(params: LogisticParams, X):
    return (_decision(params, X) > 0).astype(jnp.int32)


decision_function.register(LogisticParams, _decision)
predict_proba.register(LogisticParams, _predict_proba)
predict.register(LogisticParams, _predict)
