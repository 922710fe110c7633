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

Standardised basis. Newton runs on the columns :math:`Z = (X - \bar x)/\sigma` (weighted
means and standard deviations of the positive-weight rows; no centring without an
intercept), with the penalty :math:`\tfrac12\sum_j(\lambda/\sigma_j^2)w_{Z,j}^2` that keeps
the objective identical, and maps back :math:`w = w_Z/\sigma`,
:math:`b = b_Z - \bar x^\top w` (:mod:`jaxclassic.linear._newton`). Centring keeps float32
accurate on raw columns with a large mean (a column of mean :math:`10^3` and sd 1 left
Newton :math:`5.6\cdot10^{-3}` from the optimum, unconverged, before), and the stopping rule
is on a gradient that does not depend on the columns' units :math:`Z` is never written out: each product
(scores, gradient, Hessian) forms it block by block of rows, so the fit's memory beyond ``X``
does not include an n x d copy. Peak beyond the caller's numpy ``X``, float32, measured by
``python -m benchmarks.bench_logistic --memory functional N D`` (which includes the 1 X of
``jax.device_put``): 1,000,000 x 100 (X = 381 MB) 821 MB with the copy, 460 MB without;
200,000 x 100: 214 MB, 153 MB.

Stopping: when :math:`\lVert\nabla_{\theta_Z} J\rVert_2 / \sum_i s_i \le` ``tol``, the
gradient of the weight-averaged objective in the standardised basis (``tol`` scales neither
with ``n`` nor with the units of the columns). ``grad_norm_history`` holds that norm after
each iteration; Newton's quadratic convergence shows as
:math:`\lVert g_{k+1}\rVert \le M\lVert g_k\rVert^2`.

Perfect separation. With :math:`\lambda = 0`, if some iterate classifies every training row
(of positive weight) with a strictly positive margin :math:`(2y_i - 1) f_i > 0`, the data
are linearly separable and :math:`J` has no minimiser (:math:`J \to 0` as
:math:`\lVert w\rVert \to \infty`). The fit then stops at that iterate (finite) with
``separated=True``. Quasi-complete separation (some rows on the separating hyperplane, e.g.
:math:`x = -2, -1, 0, 0, 1, 2`, :math:`y = 0, 0, 0, 1, 1, 1`) has no minimiser either, but
its gradient vanishes along the diverging direction, so the gradient test is met at a
coefficient that grows as ``tol`` shrinks. It is flagged at exit when some fitted
probabilities are within :math:`\sqrt{\mathrm{eps}}` of 0 or 1 and the next Newton step is
still of the order of the coefficients (:mod:`jaxclassic.linear._newton`). Either way
``converged`` is False and :func:`fit_logistic` warns with
:class:`~jaxclassic.exceptions.PerfectSeparationWarning`. Warnings are raised in Python
after the jitted fit returns; inside ``jit``/``vmap`` read ``separated`` / ``converged``.

Collinear columns (``l2 = 0``; duplicated columns, or more columns than rows): the likelihood
has a flat valley, so the probabilities (and every identified combination of coefficients) are
unique but the coefficients are not: Newton's jittered Cholesky step returns one point of the
valley, which depends on the start and the rounding (a duplicated column x: its two
coefficients sum to the coefficient of x without the copy, split about evenly but not
exactly: 0.494 / 0.468 in float64), not the minimum-norm one, and ``converged`` is True. No
warning is given; use ``l2 > 0`` for unique coefficients.

Derivatives. ``coef`` and ``intercept`` are differentiable (``jax.grad``, ``jax.jvp``, under
``jit``/``vmap``) with respect to ``X``, ``sample_weight`` and ``l2``, for every ``method``,
by the implicit function theorem at the optimality condition :math:`\nabla J(w, b) = 0`
(:mod:`jaxclassic._implicit`), not by unrolling the loop:
:math:`\partial\theta^\star = -(\nabla^2 J)^{-1}\,\partial(\nabla J)`, e.g.
:math:`d\theta^\star/d\lambda = -(\nabla^2 J)^{-1}(w, 0)`. The solver runs on stopped
inputs, so forward values are unchanged. ``y`` holds class codes (no derivative). The
derivative with respect to a weight of 0 is the one-sided one of adding the row. At a
separated or unconverged fit the condition does not hold and the derivative is not
meaningful.

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
import numpy as np
import optax

from jaxclassic import _deprecation
from jaxclassic import _sparse
from jaxclassic import _jit
from jaxclassic import _linalg
from jaxclassic import _precision, losses
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic._solver import iterate, minimize_optax
from jaxclassic.linear._api import decision_function, predict, predict_proba
from jaxclassic.linear._gram import gram_with_ones, standardized_matmul, standardized_rmatmul
from jaxclassic.linear._sparse_fits import _check_sparse_classifier_data
from jaxclassic.linear._newton import (
    HISTORY_SIZE,
    NewtonProblem,
    default_tol,
    newton_solve,
    column_scaling,
    warn_after_fit,
    weighted_sum,
)
from jaxclassic.linear.inference import InferenceResult, coefficient_names
from jaxclassic.linear.sgd import n_batches_of, sgd_epoch
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_bool,
    check_choice,
    check_classification_targets,
    check_classifier_data,
    check_consistent_length,
    check_int,
    check_key,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
    key_from_seed,
)

__all__ = [
    "LogisticParams",
    "InferenceResult",
    "fit_logistic",
    "logistic_objective",
    "logistic_grad_hess",
    "logistic_inference",
]

METHODS = ("newton", "lbfgs", "gd", "sgd")
PENALTIES = ("l2", "l1", "elasticnet")


def _check_l1_ratio(penalty: str, l1_ratio):
    """``l1_ratio`` checked against ``penalty`` (before any compilation)."""
    if penalty == "elasticnet":
        if l1_ratio is None:
            raise ValueError("l1_ratio must be given (a float in [0, 1]) with penalty='elasticnet'")
        return check_scalar(l1_ratio, "l1_ratio", low=0.0, high=1.0)
    if l1_ratio is not None:
        check_scalar(l1_ratio, "l1_ratio", low=0.0, high=1.0)
        implied = 1.0 if penalty == "l1" else 0.0
        if not is_traced(l1_ratio) and float(l1_ratio) != implied:
            raise ValueError(f"l1_ratio={l1_ratio!r} contradicts penalty={penalty!r} (which means "
                             f"l1_ratio={implied:g}); use penalty='elasticnet' for a mixture")
    return l1_ratio


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
    grad_norm_history : (HISTORY_SIZE,) array
        :math:`\\lVert\\nabla J\\rVert / \\sum s` after each iteration (in the standardised
        basis for Newton; 0 past ``n_iter``). ``HISTORY_SIZE = 100`` is static so that
        ``max_iter`` can be traced; iterations past it overwrite the last entry, which
        always holds the final norm.
    separated : bool scalar
        ``l2 == 0`` and the classes are completely or quasi-completely separated (no finite
        MLE; module docstring).
    """

    coef: jax.Array
    intercept: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    grad_norm_history: jax.Array
    separated: jax.Array

    @property
    def n_classes(self) -> int:
        """2: a binary classifier (a Python int; not a pytree leaf)."""
        return 2



# --------------------------------------------------------------------------- objective
def logistic_objective(coef, intercept, X, y, *, l2=0.0, sample_weight=None):
    r""":math:`J(w, b) = \sum_i s_i\,\ell(y_i, x_i^\top w + b) + \tfrac{\lambda}{2}\lVert w\rVert^2`.

    Pure and differentiable (``jax.grad`` / ``jax.hessian`` of it are the references for the
    Newton system); ``y`` in {0, 1}, ``sample_weight`` defaults to ones.
    """
    X = jnp.asarray(X)
    f = _precision.matmul(X, coef) + intercept
    sw = jnp.ones(X.shape[0], f.dtype) if sample_weight is None else sample_weight
    return weighted_sum(sw, losses.log_loss(y, f)) + 0.5 * l2 * jnp.sum(jnp.square(coef))


def _weighted_derivatives(f, y, sw):
    """``(s g, s h)``: the weighted first and second derivatives of the loss in the scores,
    from ONE autodiff evaluation of the shared loss (0 on rows of weight 0)."""
    g, h = losses.grad_hess(losses.log_loss, y, f)
    keep = sw > 0
    return jnp.where(keep, sw * g, 0), jnp.where(keep, sw * h, 0)


def _gradient(theta, sg, X, penalty, fit_intercept, mean=None, scale=None):
    """Gradient of J at ``theta = (w, b)`` from the weighted loss gradient ``s g``: one pass.
    ``penalty``: the L2 weight of each coefficient (a scalar or (d,)). With ``mean`` and
    ``scale``, in the standardised basis ``Z = (X - mean) / scale`` (formed block by block)."""
    d = X.shape[1]
    fi = jnp.asarray(fit_intercept, X.dtype)
    if mean is None:
        # sg @ X, not X.T @ sg: XLA's CPU backend transposes all of X for the latter (~5x slower)
        product = _precision.matmul(sg, X)
    else:
        product = standardized_rmatmul(sg, X, mean, scale)
    return jnp.concatenate([product + penalty * theta[:d], (fi * jnp.sum(sg))[None]])


def _hessian(sh, X, penalty, fit_intercept, mean=None, scale=None):
    """Hessian of J from the weighted loss curvature ``s h >= 0``: [X, 1]^T diag(s h) [X, 1]."""
    d = X.shape[1]
    fi = jnp.asarray(fit_intercept, X.dtype)
    # the one X^T W X product of a step, intercept row and column included: blocked Z^T Z
    # with Z = [X, 1] sqrt(s h); under vmap over the weights (CV folds, a grid of l2) all
    # the fits' Hessians are one GEMM with the packed row outer products (_gram.gram_with_ones)
    hess = gram_with_ones(X, sh, mean, scale)
    keep = jnp.concatenate([jnp.ones((d,), X.dtype), fi[None]])
    hess = hess * keep[:, None] * keep[None, :]
    # penalty on w; without an intercept its (zero) row and column get a unit diagonal
    diagonal = jnp.concatenate([jnp.broadcast_to(penalty, (d,)).astype(X.dtype), (1 - fi)[None]])
    return hess + jnp.diag(diagonal)


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
    f = _precision.matmul(X, theta[:-1]) + theta[-1]
    l2 = jnp.asarray(l2, X.dtype)
    sg, sh = _weighted_derivatives(f, y, sw)
    return _gradient(theta, sg, X, l2, fit_intercept), _hessian(sh, X, l2, fit_intercept)


# --------------------------------------------------------------------------- Newton
def _margins(f, y):
    return (2 * y - 1) * f


def _fit_newton(X, y, sw, l2, tol, b0, max_iter, *, fit_intercept):
    """Newton (the shared loop of ``_newton.newton_solve``) in the standardised basis
    ``Z = (X - mean) / scale``; returns ``(w, b)`` on the input scale, the scores and the
    solver's report."""
    d = X.shape[1]
    mean, scale = column_scaling(X, sw, fit_intercept)  # Z is never formed (_newton)
    penalty = l2 / jnp.square(scale)  # lambda/2 |w|^2 with w = w_Z / scale
    fi = jnp.asarray(fit_intercept, X.dtype)

    def scores(theta):
        return standardized_matmul(X, mean, scale, theta[:d]) + fi * theta[d]

    def objective(theta, f):
        return weighted_sum(sw, losses.log_loss(y, f)) + 0.5 * jnp.sum(penalty * theta[:d] ** 2)

    def derivatives(theta, f):
        # the curvature s h at theta is computed with the gradient and carried to the next
        # Hessian, so a converged fit never forms a Hessian it does not use
        sg, sh = _weighted_derivatives(f, y, sw)
        return _gradient(theta, sg, X, penalty, fit_intercept, mean, scale), sh

    problem = NewtonProblem(scores, objective, derivatives,
                            lambda sh: _hessian(sh, X, penalty, fit_intercept, mean, scale),
                            lambda f: _margins(f, y))
    theta0 = jnp.zeros(d + 1, X.dtype).at[d].set(b0)
    # w0 = 0: the initial scores are the intercept alone (no pass over X)
    res = newton_solve(problem, theta0, sw, l2 == 0, max_iter=max_iter, tol=tol,
                       F0=jnp.full(X.shape[0], b0, X.dtype))
    coef = res.B[:d] / scale
    intercept = fi * (res.B[d] - _precision.dot(mean, coef))
    return coef, intercept, res


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
        u = _precision.matmul(X, v[:d]) + fi * v[d]
        su = s * u
        return jnp.concatenate([_precision.matmul(su, X), (fi * jnp.sum(su))[None]])

    def power(_, v):
        v = gram_times(v)
        return v / jnp.linalg.norm(v)

    v0 = jax.random.normal(jax.random.key(0), (d + 1,), X.dtype)
    v = jax.lax.fori_loop(0, n_power, power, v0 / jnp.linalg.norm(v0))
    lam = _precision.dot(v, gram_times(v))
    return 1.0 / (0.25 * lam / total + l2 / total)


def _mean_objective(X, y, sw, l2, fit_intercept):
    d = X.shape[1]
    total = jnp.sum(sw)
    fi = jnp.asarray(fit_intercept, X.dtype)

    def fun(theta):
        return logistic_objective(theta[:d], fi * theta[d], X, y, l2=l2, sample_weight=sw) / total
    return fun


def _fit_sgd(X, y, sw, l2, tol, theta0, learning_rate, key, max_iter, *, fit_intercept, batch_size):
    """Minibatch SGD through the package's one epoch loop (:func:`jaxclassic.linear.sgd.sgd_epoch`:
    a fresh permutation per epoch, the last batch padded and masked, so every row is used)."""
    n, d = X.shape
    n_batches = n_batches_of(n, batch_size)
    bs = min(batch_size, n)
    total = jnp.sum(sw)
    fi = jnp.asarray(fit_intercept, X.dtype)
    full = _mean_objective(X, y, sw, l2, fit_intercept)
    # lr_k = lr / sqrt(1 + epoch): the Robbins-Monro decay, in epochs
    optimizer = optax.sgd(lambda count: learning_rate / jnp.sqrt(1.0 + count // n_batches))

    def batch_objective(theta, rows, mask):
        # (n / bs) sum_batch s_i l_i estimates the summed data term; masked slots count 0
        f = _precision.matmul(X[rows], theta[:d]) + fi * theta[d]
        data = weighted_sum(sw[rows] * mask, losses.log_loss(y[rows], f)) * (n / bs)
        return (data + 0.5 * l2 * jnp.sum(theta[:d] ** 2)) / total

    def step(carry):
        theta, opt_state, epoch = carry
        theta, opt_state = sgd_epoch(theta, opt_state, optimizer, batch_objective,
                                     jax.random.fold_in(key, epoch), n, batch_size, X.dtype)
        return (theta, opt_state, epoch + 1), optax.tree.norm(jax.grad(full)(theta))

    res = iterate(step, (theta0, optimizer.init(theta0), jnp.int32(0)), max_iter=max_iter, tol=tol,
                  history_size=HISTORY_SIZE)
    return res.carry[0], res.n_iter, res.converged, res.history


def _optimality(theta, X, y, sw, l2, *, fit_intercept):
    r"""The fit's optimality condition :math:`\nabla J(w, b) = 0` (autodiff of the shared loss),
    for :mod:`jaxclassic._implicit`; without an intercept its entry is :math:`b` (held at 0).

    Weights multiply the loss plainly (no ``where``): the derivative with respect to a weight
    of 0 is then the one-sided derivative of adding the row, while the row still contributes
    nothing to the condition itself (``X`` is finite, validated)."""
    coef, intercept = theta
    fi = jnp.asarray(fit_intercept, X.dtype)

    def objective(coef, intercept):
        f = _precision.matmul(X, coef) + fi * intercept
        return (jnp.sum(sw * losses.log_loss(y, f)) + 0.5 * l2 * jnp.sum(jnp.square(coef))
                + 0.5 * (1 - fi) * jnp.square(intercept))

    return jax.grad(objective, argnums=(0, 1))(coef, intercept)


@partial(_jit.jit, static_argnames=("method", "fit_intercept", "batch_size"))
def _fit_logistic(X, y, sw, l2, tol, learning_rate, key, max_iter, *, method, fit_intercept,
                  batch_size):
    # the solver runs on stopped inputs; derivatives of (coef, intercept) with respect to X,
    # sample_weight and l2 come from the optimality condition (implicit function theorem)
    frozen = jax.lax.stop_gradient((X, y, sw, l2))
    params = _solve_logistic(*frozen, tol, learning_rate, key, max_iter, method=method,
                             fit_intercept=fit_intercept, batch_size=batch_size)
    y = y.astype(X.dtype)
    coef, intercept = with_implicit_derivatives(
        partial(_optimality, fit_intercept=fit_intercept), (params.coef, params.intercept), X, y,
        sw.astype(X.dtype), jnp.asarray(l2, X.dtype))
    return params._replace(coef=coef, intercept=intercept)


def _solve_logistic(X, y, sw, l2, tol, learning_rate, key, max_iter, *, method, fit_intercept,
                    batch_size):
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
        coef, intercept, res = _fit_newton(X, y, sw, l2, tol, b0, max_iter,
                                           fit_intercept=fit_intercept)
        return LogisticParams(coef, intercept.astype(dtype), res.n_iter, res.converged,
                              res.history, res.separated)
    if method == "sgd":
        lr = jnp.where(learning_rate > 0, learning_rate, _lipschitz_step(X, sw, l2, fit_intercept))
        theta, n_iter, converged, history = _fit_sgd(
            X, y, sw, l2, tol, theta0, lr.astype(dtype), key, max_iter,
            fit_intercept=fit_intercept, batch_size=batch_size)
    else:
        fun = _mean_objective(X, y, sw, l2, fit_intercept)
        if method == "lbfgs":
            optimizer = optax.lbfgs()
        else:
            lr = jnp.where(learning_rate > 0, learning_rate, _lipschitz_step(X, sw, l2, fit_intercept))
            optimizer = optax.sgd(lr.astype(dtype))
        res = minimize_optax(fun, theta0, optimizer, max_iter=max_iter, tol=tol,
                             history_size=HISTORY_SIZE)
        theta, n_iter, converged, history = res.carry[0], res.n_iter, res.converged, res.history
    intercept = jnp.where(fit_intercept, theta[d], 0).astype(dtype)
    f = _precision.matmul(X, theta[:d]) + intercept
    separated = (l2 == 0) & jnp.all((_margins(f, y) > 0) | (sw <= 0))
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
    penalty: str = "l2",
    l1_ratio=None,
) -> LogisticParams:
    r"""Fit binary logistic regression by minimising the summed weighted log-loss + a penalty.

    .. math::
        J(w, b) = \sum_i s_i\,\bigl[\log(1 + e^{f_i}) - y_i f_i\bigr]
                  + \lambda P(w), \qquad f_i = x_i^\top w + b,

    with :math:`P(w) = \tfrac12\lVert w\rVert^2` (``penalty="l2"``, the default),
    :math:`\lVert w\rVert_1` (``"l1"``) or :math:`\rho\lVert w\rVert_1 + \tfrac{1-\rho}{2}\lVert w\rVert^2`
    (``"elasticnet"``, :math:`\rho` = ``l1_ratio``): scikit-learn's ``LogisticRegression(C=C,
    l1_ratio=rho)`` with :math:`\lambda` = ``l2`` :math:`= 1/C`. The L1 and elastic-net penalties
    are fitted by proximal Newton (:mod:`jaxclassic.linear.logistic_l1`).

    ``X`` may be a ``scipy.sparse`` matrix: ``method="lbfgs"`` (L2 penalty) and ``method="gd"``
    (L1 / elastic-net: FISTA) then run on it as a :class:`jax.experimental.sparse.BCOO` (only
    :math:`Xw` and :math:`X^\top r`, :math:`O(\mathrm{nnz})`, never densified); the other
    combinations form the dense ``X`` through
    :func:`jaxclassic._sparse.densify`, up to its stated limit (2**27 values; above it a
    ``ValueError``), and then equal the dense fit exactly.

    Parameters
    ----------
    X : (n_samples, n_features) array or scipy.sparse matrix
    y : (n_samples,) int array in {0, 1}
        Class codes (strings raise ``TypeError``; the estimator layer encodes labels).
    l2 : float >= 0
        The penalty's strength :math:`\lambda` (the ridge penalty on ``w`` for the default
        ``penalty="l2"``, whence the name; traced, cast to ``X``'s dtype: a grid of it is a
        ``vmap``, and a new value, int or float, does not recompile).
    fit_intercept : bool
        Fit an unpenalised intercept.
    method : {"newton", "lbfgs", "gd", "sgd"}
        ``"newton"``: Cholesky Newton steps with step halving (module docstring).
        ``"lbfgs"``: ``optax.lbfgs`` (zoom line search) on :math:`J/\sum s`.
        ``"gd"``: ``optax.sgd`` full-batch gradient descent with step ``learning_rate``.
        ``"sgd"``: minibatches of ``batch_size`` rows, reshuffled each epoch with ``key``,
        step ``learning_rate / sqrt(1 + epoch)``; ``max_iter`` counts epochs.
    max_iter : int
        Iteration (epoch) limit (traced: a new value does not recompile).
    tol : float, optional
        Stop when :math:`\lVert\nabla J\rVert_2/\sum_i s_i \le` ``tol``, i.e. on the gradient of
        the weight-averaged objective (for Newton in the standardised basis, module
        docstring). Default ``1e-8`` in float64, ``1e-6`` in float32.
    learning_rate : float, optional
        Step of ``gd``/``sgd``; default :math:`1/L` with
        :math:`L = \lambda_{\max}(\tilde X^\top S \tilde X)/(4\sum_i s_i) + \lambda/\sum_i s_i`
        (power iteration), the largest curvature of the averaged objective.
    batch_size : int
        Minibatch size of ``sgd`` (static).
    sample_weight : (n_samples,) array, optional
        Non-negative weights; a weight-0 row has no influence (except on the minibatch
        partition of ``sgd``, whose epochs visit every row, the last batch padded and
        masked: :func:`jaxclassic.linear.sgd.sgd_epoch`).
    key : jax.random key, optional
        Shuffles the minibatches of ``sgd`` (default ``jax.random.key(0)``: same call, same
        result); unused otherwise.
    penalty : {"l2", "l1", "elasticnet"}, default "l2"
        The form :math:`P` of the penalty (static). ``"l1"`` and ``"elasticnet"`` give exact zeros
        in ``coef`` and take ``method="newton"`` (proximal Newton with the lasso's coordinate
        descent; ``tol`` on the minimum-norm subgradient) or ``"gd"`` (FISTA, matrix-free: a
        sparse ``X`` is never densified; ``tol`` on the gradient mapping; more iterations), both
        on the weight-averaged objective (:mod:`jaxclassic.linear.logistic_l1`).
    l1_ratio : float in [0, 1], optional
        :math:`\rho` of ``penalty="elasticnet"`` (required there, traced); ``"l1"`` means 1 and
        takes None or 1; ``"l2"`` takes None or 0.
        ``l1_ratio``'s default differs from the estimator's: ``LogisticRegression(l1_ratio=0.0)``
        (scikit-learn 1.9) picks the penalty from it, here ``penalty`` does.
        ``penalty``'s default differs from the estimator's: scikit-learn 1.9 deprecates the
        estimator's ``penalty`` (its default is the sentinel ``"deprecated"``).

    Returns
    -------
    LogisticParams
        ``coef`` and ``intercept`` are differentiable in ``X``, ``sample_weight`` and ``l2``
        (implicit function theorem; module docstring): ``jax.grad`` of a validation loss
        with respect to ``l2`` works through this fit.

    Warns
    -----
    PerfectSeparationWarning
        ``l2 == 0`` and the classes are completely or quasi-completely separated: the fit
        stops at a finite iterate that depends on ``tol`` and ``max_iter``.
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
    >>> float(fit_logistic(X, y, l2=2.0, penalty="l1").coef[0])  # |X^T(p - y)| = 1 <= 2 at w = 0
    0.0

    References
    ----------
    Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §4.4.
    """
    method = check_choice(method, "method", METHODS)
    max_iter = check_int(max_iter, "max_iter", low=1)
    batch_size = check_int(batch_size, "batch_size", low=1)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    penalty = check_choice(penalty, "penalty", PENALTIES)
    l1_ratio = _check_l1_ratio(penalty, l1_ratio)
    if penalty != "l2" and method not in ("newton", "gd"):
        raise ValueError(f"penalty={penalty!r} is fitted by proximal Newton ('newton') or proximal "
                         f"gradient ('gd'): method must be 'newton' or 'gd', got {method!r}")
    l2 = check_scalar(l2, "l2", low=0.0)
    if tol is not None:
        check_scalar(tol, "tol", low=0.0)
    if learning_rate is None:
        learning_rate = 0.0
    else:
        learning_rate = check_scalar(learning_rate, "learning_rate", low=0.0, include_low=False)
    if key is not None:
        key = check_key(key)
    sparse = _sparse.is_sparse(X)
    if sparse:
        X, y, sw, _ = _check_sparse_classifier_data(X, y, sample_weight)
        if method != ("lbfgs" if penalty == "l2" else "gd"):
            model = f"fit_logistic(method={method!r}, penalty={penalty!r})"
            X = jnp.asarray(_sparse.densify(X, model=model, dtype=np.dtype(X.dtype)))
            sparse = False
    else:
        X, y, sw, _ = check_classifier_data(X, y, sample_weight, n_classes=2)
    tol = default_tol(X.dtype) if tol is None else tol
    # None: the fixed default key jax.random.key(0), so a call is deterministic
    key = key_from_seed(0) if key is None else key
    if penalty != "l2":
        from jaxclassic.linear.logistic_l1 import _fit_logistic_l1, _fit_proximal_gradient

        ratio = 1.0 if penalty == "l1" else l1_ratio
        args = (X, y, sw.astype(X.dtype), as_operand(l2, X.dtype), as_operand(ratio, X.dtype),
                as_operand(tol, X.dtype), as_operand(max_iter, np.int32))
        if method == "gd":
            params = _fit_proximal_gradient(*args, n_classes=2, fit_intercept=fit_intercept)
        else:
            params = _fit_logistic_l1(*args, fit_intercept=fit_intercept)
        warn_after_fit(params, f"fit_logistic(penalty={penalty!r})", l2, max_iter)
        return params
    if sparse:
        from jaxclassic.linear._sparse_fits import fit_logistic_lbfgs

        params = fit_logistic_lbfgs(X, y, sw.astype(X.dtype), as_operand(l2, X.dtype),
                                    as_operand(tol, X.dtype), as_operand(max_iter, np.int32),
                                    fit_intercept=fit_intercept)
        warn_after_fit(params, "fit_logistic(method='lbfgs')", l2, max_iter)
        return params
    # continuous hyperparameters and max_iter enter the jitted core as arrays of fixed dtype:
    # an int, a float or a numpy float64 l2 (or a new max_iter) reuse one compiled program
    as_array = lambda v: as_operand(v, X.dtype)  # noqa: E731
    params = _fit_logistic(X, y, sw, as_array(l2), as_array(tol), as_array(learning_rate), key,
                           as_operand(max_iter, np.int32), method=method,
                           fit_intercept=fit_intercept, batch_size=batch_size)
    warn_after_fit(params, f"fit_logistic(method={method!r})", l2, max_iter)
    return params


# --------------------------------------------------------------------------- inference
def logistic_inference(params: LogisticParams, X, y, *, l2=0.0, sample_weight=None,
                       fit_intercept: bool = True, alpha: float = 0.05,
                       feature_names=None) -> InferenceResult:
    r"""Wald inference of a logistic fit from the inverse Hessian of :math:`J`.

    For an unpenalised fit (``l2=0``) the Hessian :math:`H` of the summed log-likelihood is
    the observed (= expected, canonical link) Fisher information, and

    .. math::

        \widehat{\mathrm{Cov}}(\hat\theta) = H^{-1}, \qquad
        z_j = \hat\theta_j / \sqrt{(H^{-1})_{jj}}, \qquad
        p_j = 2\,\Phi(-|z_j|), \qquad
        \hat\theta_j \pm \Phi^{-1}(1 - \alpha/2)\,\widehat{\mathrm{se}}_j

    are the standard errors, z values, p-values and intervals statsmodels' ``Logit`` reports.
    With ``l2 > 0`` the penalised Hessian is used (a Bayesian/Laplace reading). Entries are
    ordered ``(b, w_1, ..., w_d)``, intercept first, as statsmodels orders them.

    Parameters
    ----------
    params : LogisticParams
    X : (n_samples, n_features) array
    y : (n_samples,) int array in {0, 1}
    l2 : float >= 0
        The penalty the fit used.
    sample_weight : (n_samples,) array, optional
    fit_intercept : bool
        Must match the fit. Without an intercept the information matrix is that of ``w``
        alone (statsmodels' ``Logit`` without a constant column) and the result has no
        ``const`` entry.
    alpha : float in (0, 1), default 0.05
        ``1 - alpha`` is the confidence level of ``conf_int``.
    feature_names : sequence of n_features str, optional
        Names of the columns in ``names`` (default statsmodels' ``x1, x2, ...``).

    Returns
    -------
    InferenceResult
        ``estimates, std_errors, statistics`` (z values), ``p_values, conf_int, covariance,
        names``, with ``statistic="z"``, ``df_resid = n - k`` (rows of positive weight minus
        coefficients, statsmodels' ``Logit.df_resid``), ``sigma2 = 1`` (the dispersion of the
        Bernoulli model is fixed) and ``rss`` NaN (no residual sum of squares).
        ``summary()`` prints statsmodels' table. (Before 0.2.0 this was ``LogisticInference``
        with ``std_err, z, p_value`` ordered intercept LAST; those names still work, in that
        order, with a ``DeprecationWarning`` until 0.3.0.)

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[0.0], [1.0], [2.0], [3.0], [4.0]]); y = jnp.array([0, 1, 0, 1, 1])
    >>> inf = logistic_inference(fit_logistic(X, y), X, y)
    >>> inf.names, inf.statistic, inf.conf_int.shape
    (('const', 'x1'), 'z', (2, 2))

    References
    ----------
    Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §4.4.2.
    """
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    X = check_array(X, "X")
    y, _ = check_classification_targets(y, "y", n_classes=2)
    check_consistent_length(X=X, y=y)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    l2 = check_scalar(l2, "l2", low=0.0)
    check_scalar(alpha, "alpha", low=0.0, high=1.0, include_low=False, include_high=False)
    d = X.shape[1]
    names = coefficient_names(d, fit_intercept, feature_names)
    _, hess = logistic_grad_hess(params.coef.astype(X.dtype), params.intercept.astype(X.dtype), X,
                                 y, l2=l2, sample_weight=sw, fit_intercept=fit_intercept)
    # statsmodels' order: the intercept (last row of the Newton system) first; without an
    # intercept its row is the unit diagonal _hessian puts on a fixed intercept, not a variance
    order = jnp.concatenate([jnp.array([d]), jnp.arange(d)]) if fit_intercept else jnp.arange(d)
    hess = hess[order][:, order]
    covariance = _linalg.inv(hess)
    estimates = jnp.concatenate([jnp.reshape(params.intercept, (1,)), params.coef]).astype(X.dtype)
    estimates = estimates if fit_intercept else estimates[1:]
    std_errors = jnp.sqrt(jnp.diagonal(covariance))
    statistics = estimates / std_errors
    p_values = 2 * jax.scipy.stats.norm.sf(jnp.abs(statistics))
    alpha = jnp.asarray(alpha, X.dtype)
    quantile = jax.scipy.special.ndtri(1 - alpha / 2)
    conf_int = jnp.stack([estimates - quantile * std_errors, estimates + quantile * std_errors],
                         axis=1)
    df_resid = (jnp.sum(sw > 0) - len(names)).astype(X.dtype)
    return InferenceResult(estimates, std_errors, statistics, p_values, conf_int, covariance,
                           names, "z", fit_intercept, alpha, df_resid, jnp.ones((), X.dtype),
                           jnp.full((), jnp.nan, X.dtype))


# the result type before 0.2.0 (issue 27: one inference type for every fit)
__getattr__ = _deprecation.renamed_module_attributes(
    __name__, LogisticInference=(InferenceResult, "jaxclassic.linear.InferenceResult"))


# --------------------------------------------------------------------------- predict
def _decision(params: LogisticParams, X):
    if _sparse.is_sparse(X):  # O(nnz): X as a plain-COO BCOO, never densified
        X = _sparse.predict_operand(X, params.coef.dtype, params.coef.shape[-1])
        return X @ params.coef + params.intercept
    X = check_predict_X(X, params.coef.dtype, params.coef.shape[-1])
    return _precision.matmul(X, params.coef.astype(X.dtype)) + params.intercept.astype(X.dtype)


def _predict_proba(params: LogisticParams, X):
    return _proba_of_decision(_decision(params, X))


@_jit.jit
def _proba_of_decision(f):
    # sigma(-f) for class 0 rather than 1 - sigma(f): no cancellation for large f
    # (one program: eagerly, each of the four steps compiled on its own per shape)
    return jnp.stack([jax.nn.sigmoid(-f), jax.nn.sigmoid(f)], axis=-1)


def _predict(params: LogisticParams, X):
    return (_decision(params, X) > 0).astype(jnp.int32)


decision_function.register(LogisticParams, _decision)
predict_proba.register(LogisticParams, _predict_proba)
predict.register(LogisticParams, _predict)
