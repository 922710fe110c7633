r"""L1 and elastic-net logistic regression: proximal Newton with the lasso's coordinate descent
(binary and multinomial), and FISTA for sparse or large ``X``.

Objective (labels :math:`y_i \in \{0,1\}`, weights :math:`s_i`, the shared
:func:`jaxclassic.losses.log_loss` :math:`\ell`):

.. math::

    J(w, b) = \underbrace{\sum_i s_i\,\ell(y_i, x_i^\top w + b) + \frac{\lambda_2}{2}\lVert w\rVert^2}_{f(w, b)}
              \;+\; \lambda_1\lVert w\rVert_1 ,

the intercept unpenalised. scikit-learn's ``LogisticRegression(C=C, l1_ratio=rho)`` minimises
:math:`C\sum_i s_i\ell_i + \rho\lVert w\rVert_1 + \tfrac{1-\rho}{2}\lVert w\rVert^2`, i.e.
:math:`J/C` with :math:`\lambda_1 = \rho/C`, :math:`\lambda_2 = (1-\rho)/C`
(:func:`jaxclassic.linear.fit_logistic` with ``penalty="l1"`` / ``"elasticnet"`` makes that split).

Proximal Newton (Lee, Sun & Saunders 2014; for this problem newGLMNET, Yuan, Ho & Lin 2012).
At the iterate :math:`\theta = (w, b)` the smooth part is replaced by its second-order model
(gradient :math:`g = \tilde X^\top(s\odot(p - y)) + \lambda_2(w, 0)` and Hessian
:math:`H = \tilde X^\top\operatorname{diag}(s\,p(1-p))\tilde X + \lambda_2\operatorname{diag}(I, 0)`,
the Newton pieces of :mod:`jaxclassic.linear.logistic`, autodiff of the shared loss), and

.. math::

    \theta^+ = \arg\min_{\theta'}\ \tfrac12(\theta' - \theta)^\top H(\theta' - \theta)
        + g^\top(\theta' - \theta) + \lambda_1\lVert w'\rVert_1

is a lasso in Gram form, :math:`\tfrac12\theta'^\top H\theta' - (H\theta - g)^\top\theta' +
\sum_j a_j|\theta'_j|` with :math:`a = (\lambda_1, \dots, \lambda_1, 0)`: it is solved by the
lasso's own cyclic coordinate descent (:func:`jaxclassic.linear.lasso._refreshed_sweep`, per-
coordinate thresholds, exact zeros), warm-started at :math:`\theta`, until a sweep moves no
coefficient by more than ``INNER_TOL`` of the largest (at most ``INNER_MAX_SWEEPS`` sweeps).
The step :math:`\Delta = \theta^+ - \theta` is then damped by step halving until
:math:`J(\theta + t\Delta) \le J(\theta) + c\,t\,D`, with
:math:`D = g^\top\Delta + \lambda_1(\lVert w + \Delta_w\rVert_1 - \lVert w\rVert_1) < 0`
(Tseng & Yun 2009's sufficient decrease for composite objectives; the scores move on a line,
so a trial costs :math:`O(n)`, as in :func:`jaxclassic.linear._newton.backtracking`).
Per iteration: one :math:`\tilde X^\top W\tilde X` product (:math:`O(nd^2)`), two passes over
:math:`X` and the :math:`O(d^2)` sweeps.

As the L2 Newton fit, everything runs in the standardised basis :math:`Z = (X - \bar x)/\sigma`
(:func:`jaxclassic.linear._newton.column_scaling`; never written out), where the penalties become
:math:`\sum_j (\lambda_1/\sigma_j)|w_{Z,j}|` and :math:`\tfrac12\sum_j(\lambda_2/\sigma_j^2)w_{Z,j}^2`
(the same objective); coefficients map back as :math:`w = w_Z/\sigma`, so zeros stay exact.

Stopping: the minimum-norm subgradient of :math:`J` (the distance of 0 to
:math:`\partial J`), per coordinate :math:`g_j + a_j\operatorname{sign}\theta_j` where
:math:`\theta_j \ne 0` and :math:`\operatorname{sign}(g_j)\max(|g_j| - a_j, 0)` where
:math:`\theta_j = 0`, in the standardised basis, divided by :math:`\sum_i s_i`: the fit stops
when its norm is at most ``tol`` (:math:`\lambda_1 = 0`: the gradient test of the L2 Newton fit).
``grad_norm_history`` records it per iteration. A refused line-search step (rounding) ends
the fit unconverged.

With :math:`\lambda_1 > 0` the optimum is finite even on separable data (``separated`` is always
False here); with both penalties 0 use the L2 fit, which detects separation.

Multinomial (:func:`jaxclassic.linear.fit_softmax` with ``penalty=``, and ``LogisticRegression``
for more than two classes): the same proximal Newton on the flattened :math:`B = [W, b]` of the
softmax model, with :mod:`jaxclassic.linear.softmax`'s gradient and :math:`C(d+1)`-square
Hessian, :math:`\lambda_1\lVert W\rVert_1 + \tfrac{\lambda_2}{2}\lVert W\rVert_F^2` on every class
(scikit-learn's ``saga`` objective). The common shift of the intercepts changes no probability
and is not penalised: the quadratic model holds it with :math:`\tfrac{\mu}{C}\mathbf 1\mathbf 1^\top`
on the intercept coordinates (as softmax's Newton), and the intercepts are reported centred.
The weights' common shift is decided by the penalties (no centring of ``coef``).

Proximal gradient (``method="gd"``; ``fit_softmax(method="auto")`` beyond
``L1_NEWTON_MAX_PARAMS`` parameters or on sparse ``X``): FISTA with backtracking and function
restart (:func:`proximal_gradient`) on the objective averaged by :math:`\sum_i s_i`, needing only
the products :math:`Zv` and :math:`Z^\top r` of the scaled columns (standardised for dense
``X``; scaled by the root mean square, not centred, for a sparse ``X``, which is used as a
:class:`~jax.experimental.sparse.BCOO` and never densified). It stops on the gradient mapping
:math:`\lVert L(z - \theta^+)\rVert \le` ``tol`` and takes far more iterations than proximal
Newton (hundreds rather than ten): raise ``max_iter``.

Derivatives. ``coef`` and ``intercept`` are differentiable in ``X``, ``sample_weight`` and the
penalties by the implicit function theorem at the proximal-gradient fixed point
:math:`\theta = \operatorname{prox}_{\eta a}(\theta - \eta\nabla f(\theta))` (:func:`_optimality`, as
the lasso's): 0 off the support, :math:`-H_{AA}^{-1}\partial(\nabla_A f + a_A\operatorname{sign}\theta_A)`
on it.

References
----------
Lee, Sun & Saunders, "Proximal Newton-type methods for minimizing composite functions",
SIAM J. Optim. 24 (2014).
Yuan, Ho & Lin, "An improved GLMNET for L1-regularized logistic regression", JMLR 13 (2012).
Beck & Teboulle, "A fast iterative shrinkage-thresholding algorithm for linear inverse problems",
SIAM J. Imaging Sci. 2 (2009).
O'Donoghue & Candès, "Adaptive restart for accelerated gradient schemes", Found. Comput. Math. 15
(2015).
Tseng & Yun, "A coordinate gradient descent method for nonsmooth separable minimization",
Math. Program. 117 (2009).
Friedman, Hastie & Tibshirani, "Regularization paths for generalized linear models via
coordinate descent", J. Stat. Software 33 (2010), §3.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import _jit, _precision, losses
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic._solver import iterate
from jaxclassic.linear._gram import standardized_matmul
from jaxclassic.linear._newton import (
    HISTORY_SIZE,
    NewtonProblem,
    backtracking,
    column_scaling,
    weighted_sum,
)
from jaxclassic.linear.lasso import _refreshed_sweep
from jaxclassic.linear.logistic import (
    LogisticParams,
    _gradient,
    _hessian,
    _weighted_derivatives,
)

__all__ = ["logistic_l1_objective", "min_norm_subgradient", "proximal_newton", "proximal_gradient",
           "INNER_MAX_SWEEPS", "INNER_TOL", "L1_NEWTON_MAX_PARAMS"]

#: largest n_classes * (n_features + 1) for which fit_softmax(method="auto") fits an L1 / elastic-net
#: penalty by proximal Newton (a dense Hessian of that side and O(side^2) sweeps); FISTA beyond
L1_NEWTON_MAX_PARAMS = 2000
#: most coordinate-descent sweeps of one proximal Newton step's lasso subproblem
INNER_MAX_SWEEPS = 200
#: a subproblem is solved when a sweep moves no coefficient by more than this share of the largest
INNER_TOL = 1e-10


def logistic_l1_objective(coef, intercept, X, y, *, l1=0.0, l2=0.0, sample_weight=None):
    r""":math:`J(w, b) = \sum_i s_i\ell(y_i, x_i^\top w + b) + \lambda_1\lVert w\rVert_1
    + \tfrac{\lambda_2}{2}\lVert w\rVert^2` (pure; ``sample_weight`` defaults to ones)."""
    X = jnp.asarray(X)
    f = _precision.matmul(X, coef) + intercept
    sw = jnp.ones(X.shape[0], f.dtype) if sample_weight is None else sample_weight
    return (weighted_sum(sw, losses.log_loss(y, f)) + l1 * jnp.sum(jnp.abs(coef))
            + 0.5 * l2 * jnp.sum(jnp.square(coef)))


def min_norm_subgradient(theta, grad, thresholds):
    r"""The minimum-norm element of :math:`\nabla f(\theta) + \partial\sum_j a_j|\theta_j|`, per
    coordinate: :math:`g_j + a_j\operatorname{sign}\theta_j` where :math:`\theta_j \ne 0`, else
    :math:`\operatorname{sign}(g_j)\max(|g_j| - a_j, 0)`. Zero exactly at a minimiser."""
    at_zero = jnp.sign(grad) * jnp.maximum(jnp.abs(grad) - thresholds, 0)
    return jnp.where(theta != 0, grad + thresholds * jnp.sign(theta), at_zero)


class _State(NamedTuple):
    theta: jax.Array
    F: jax.Array
    value: jax.Array
    grad: jax.Array
    aux: jax.Array


def proximal_newton(problem: NewtonProblem, theta0, F0, thresholds, total, *, max_iter, tol):
    r"""Proximal Newton on ``problem`` (a :class:`~jaxclassic.linear._newton.NewtonProblem` over a
    flat parameter vector, whose ``objective`` is the smooth part :math:`f`) plus
    :math:`\sum_j a_j|\theta_j|`, ``a`` = ``thresholds``: the lasso subproblem by coordinate descent,
    the composite Armijo step halving, the stopping test on the minimum-norm subgradient divided
    by ``total`` (module docstring). Returns ``(theta, F, SolverResult)``."""

    def objective(theta, F):
        return problem.objective(theta, F) + jnp.sum(thresholds * jnp.abs(theta))

    def optimality_error(theta, grad):
        return jnp.linalg.norm(min_norm_subgradient(theta, grad, thresholds)) / total

    def subproblem(theta, grad, H):
        # the lasso in Gram form: 1/2 t'Ht - (H theta - g)'t + sum_j a_j |t_j|, from t = theta
        q0 = _precision.matmul(H, theta)
        c = q0 - grad

        def sweep(carry):
            t, q = carry
            t, q, d_max = _refreshed_sweep(H, c, thresholds, t, q)
            largest = jnp.max(jnp.abs(t))
            return (t, q), jnp.where(largest > 0, d_max / jnp.where(largest > 0, largest, 1), 0)

        return iterate(sweep, (theta, q0), max_iter=INNER_MAX_SWEEPS, tol=INNER_TOL).carry[0]

    def step(state: _State):
        direction = subproblem(state.theta, state.grad, problem.hessian(state.aux)) - state.theta
        U = problem.scores(direction)  # linear: the scores move on a line
        slope = (_precision.dot(state.grad, direction)
                 + jnp.sum(thresholds * (jnp.abs(state.theta + direction) - jnp.abs(state.theta))))

        def phi(t):
            return objective(state.theta + t * direction, state.F + t * U)

        t, value, accepted = backtracking(phi, state.value, slope)
        theta = jnp.where(accepted, state.theta + t * direction, state.theta)
        F = jnp.where(accepted, state.F + t * U, state.F)
        value = jnp.where(accepted, value, state.value)
        grad, aux = problem.derivatives(theta, F)
        err = optimality_error(theta, grad)
        # a refused step (no descent in working precision) ends the fit unconverged
        return _State(theta, F, value, grad, aux), jnp.where(accepted | (err <= tol), err, jnp.nan)

    grad0, aux0 = problem.derivatives(theta0, F0)
    init = _State(theta0, F0, objective(theta0, F0), grad0, aux0)
    res = iterate(step, init, max_iter=max_iter, tol=tol, init_error=optimality_error(theta0, grad0),
                  history_size=HISTORY_SIZE)
    final = res.carry
    history = jnp.where(jnp.isnan(res.history), optimality_error(final.theta, final.grad), res.history)
    return final.theta, final.F, res._replace(history=history)


def _solve(X, y, sw, l1, l2, tol, max_iter, *, fit_intercept):
    """Binary proximal Newton in the standardised basis; ``LogisticParams`` on the input scale."""
    dtype = X.dtype
    d = X.shape[1]
    y = y.astype(dtype)
    mean, scale = column_scaling(X, sw, fit_intercept)
    pen2 = l2 / jnp.square(scale)
    thresholds = jnp.concatenate([l1 / scale, jnp.zeros((1,), dtype)])  # intercept unpenalised
    fi = jnp.asarray(fit_intercept, dtype)
    total = jnp.sum(jnp.where(sw > 0, sw, 0))

    def scores(theta):
        return standardized_matmul(X, mean, scale, theta[:d]) + fi * theta[d]

    def smooth(theta, F):
        return weighted_sum(sw, losses.log_loss(y, F)) + 0.5 * jnp.sum(pen2 * theta[:d] ** 2)

    def derivatives(theta, F):
        sg, sh = _weighted_derivatives(F, y, sw)
        return _gradient(theta, sg, X, pen2, fit_intercept, mean, scale), sh

    problem = NewtonProblem(scores, smooth, derivatives,
                            lambda sh: _hessian(sh, X, pen2, fit_intercept, mean, scale), None)
    ybar = jnp.clip(weighted_sum(sw, y) / total, 1e-3, 1 - 1e-3)
    b0 = jnp.where(fit_intercept, jnp.log(ybar) - jnp.log1p(-ybar), 0).astype(dtype)
    theta0 = jnp.zeros(d + 1, dtype).at[d].set(b0)
    theta, _, res = proximal_newton(problem, theta0, jnp.full(X.shape[0], b0, dtype), thresholds, total,
                                    max_iter=max_iter, tol=tol)
    coef = theta[:d] / scale
    intercept = fi * (theta[d] - _precision.dot(mean, coef))
    return LogisticParams(coef, intercept.astype(dtype), res.n_iter, res.converged, res.history,
                          jnp.zeros((), bool))


def _solve_multinomial(X, y, sw, l1, l2, tol, max_iter, *, n_classes, fit_intercept):
    """Multinomial proximal Newton on the flattened ``B = [W, b]`` (``(C, d+1)`` row-major, the
    layout of :mod:`jaxclassic.linear.softmax`'s Hessian); ``SoftmaxParams`` on the input scale."""
    from jaxclassic.linear.softmax import SoftmaxParams
    from jaxclassic.linear.softmax import _gradient as softmax_gradient
    from jaxclassic.linear.softmax import _hessian as softmax_hessian

    dtype = X.dtype
    n, d = X.shape
    mean, scale = column_scaling(X, sw, fit_intercept)
    pen2 = l2 / jnp.square(scale)
    per_class = jnp.concatenate([l1 / scale, jnp.zeros((1,), dtype)])
    thresholds = jnp.tile(per_class, n_classes)
    fi = jnp.asarray(fit_intercept, dtype)
    total = jnp.sum(jnp.where(sw > 0, sw, 0))
    shape = (n_classes, d + 1)
    # the intercepts' common shift changes no probability and is not penalised: the quadratic
    # model holds it with mu/C 11^T on those coordinates (as softmax's Newton), so the steps
    # keep the intercepts centred; the weights' shift is decided by the penalties
    intercepts = jnp.tile(jnp.concatenate([jnp.zeros((d,), dtype), fi[None]]), n_classes)
    null = jnp.kron(jnp.ones((n_classes, n_classes), dtype) / n_classes,
                    jnp.diag(jnp.concatenate([jnp.zeros((d,), dtype), fi[None]])))

    def scores(theta):
        B = theta.reshape(shape)
        return standardized_matmul(X, mean, scale, B[:, :d].T) + fi * B[:, d]

    def smooth(theta, F):
        B = theta.reshape(shape)
        return (weighted_sum(sw, losses.softmax_cross_entropy(y, F))
                + 0.5 * jnp.sum(pen2 * B[:, :d] ** 2))

    def derivatives(theta, F):
        return softmax_gradient(theta.reshape(shape), F, X, y, sw, pen2, fit_intercept, mean,
                                scale).reshape(-1), F

    def hessian(F):
        hess = softmax_hessian(F, X, y, sw, pen2, fit_intercept, mean, scale)
        mu = jnp.mean(jnp.abs(jnp.diagonal(hess)) * intercepts) * (d + 1)
        return hess + mu * null

    problem = NewtonProblem(scores, smooth, derivatives, hessian, None)
    counts = jnp.zeros(n_classes, dtype).at[y].add(jnp.where(sw > 0, sw, 0))
    log_prior = jnp.log(jnp.clip(counts / total, 1e-3, 1.0))
    b0 = jnp.where(fit_intercept, log_prior - jnp.mean(log_prior), 0).astype(dtype)
    theta0 = jnp.zeros(shape, dtype).at[:, d].set(b0).reshape(-1)
    theta, _, res = proximal_newton(problem, theta0, jnp.broadcast_to(b0, (n, n_classes)), thresholds,
                                    total, max_iter=max_iter, tol=tol)
    B = theta.reshape(shape)
    W = B[:, :d] / scale
    b = fi * (B[:, d] - _precision.matmul(W, mean))
    b = b - jnp.mean(b)  # the probabilities do not change
    absent = jnp.asarray(fit_intercept) & jnp.any(counts <= 0)
    return SoftmaxParams(W, b, res.n_iter, res.converged & ~absent, res.history, absent)


def _optimality(theta, X, y, sw, l1, l2, *, fit_intercept):
    r"""The proximal-gradient fixed point :math:`F(\theta) = \theta - \operatorname{prox}_{\eta a}
    (\theta - \eta\nabla f(\theta)) = 0` for :mod:`jaxclassic._implicit` (:math:`\eta = 1/\sum s`,
    held constant: every :math:`\eta > 0` has the minimisers as fixed points). Without an
    intercept its entry is :math:`b` (held at 0)."""
    coef, intercept = theta
    fi = jnp.asarray(fit_intercept, X.dtype)

    def smooth(coef, intercept):
        f = _precision.matmul(X, coef) + fi * intercept
        return (jnp.sum(sw * losses.log_loss(y, f)) + 0.5 * l2 * jnp.sum(jnp.square(coef))
                + 0.5 * (1 - fi) * jnp.square(intercept))

    g_coef, g_intercept = jax.grad(smooth, argnums=(0, 1))(coef, intercept)
    eta = jax.lax.stop_gradient(1.0 / jnp.sum(sw))
    z = coef - eta * g_coef
    prox = jnp.sign(z) * jnp.maximum(jnp.abs(z) - eta * l1, 0.0)
    return coef - prox, eta * g_intercept


@partial(_jit.jit, static_argnames=("fit_intercept",))
def _fit_logistic_l1(X, y, sw, strength, l1_ratio, tol, max_iter, *, fit_intercept):
    r"""The fit of ``fit_logistic(penalty="l1" | "elasticnet")``: :math:`\lambda_1 = \lambda\rho`,
    :math:`\lambda_2 = \lambda(1-\rho)` with :math:`\lambda` = ``strength`` (both traced)."""
    l1 = strength * l1_ratio
    l2 = strength * (1 - l1_ratio)
    frozen = jax.lax.stop_gradient((X, sw, l1, l2))
    params = _solve(frozen[0], y, frozen[1], frozen[2], frozen[3], tol, max_iter,
                    fit_intercept=fit_intercept)
    coef, intercept = with_implicit_derivatives(
        partial(_optimality, fit_intercept=fit_intercept), (params.coef, params.intercept), X,
        y.astype(X.dtype), sw.astype(X.dtype), jnp.asarray(l1, X.dtype), jnp.asarray(l2, X.dtype))
    return params._replace(coef=coef, intercept=intercept)


@partial(_jit.jit, static_argnames=("n_classes", "fit_intercept"))
def _fit_softmax_l1(X, y, sw, strength, l1_ratio, tol, max_iter, *, n_classes, fit_intercept):
    r"""The fit of ``fit_softmax(penalty="l1" | "elasticnet")``: the multinomial objective of
    :mod:`jaxclassic.linear.softmax` with :math:`\lambda_1\lVert W\rVert_1 + \tfrac{\lambda_2}{2}
    \lVert W\rVert_F^2`, :math:`\lambda_1 = \lambda\rho`, :math:`\lambda_2 = \lambda(1-\rho)`.
    Not differentiable (the loop is not unrolled and no implicit rule is attached: ``jax.grad``
    raises rather than return a wrong value)."""
    return _solve_multinomial(X, y, sw, strength * l1_ratio, strength * (1 - l1_ratio), tol, max_iter,
                              n_classes=n_classes, fit_intercept=fit_intercept)


# --------------------------------------------------------------------------- proximal gradient
#: most doublings of the Lipschitz estimate in one backtracking search (FISTA)
MAX_DOUBLINGS = 60


def _soft(z, thresholds):
    return jnp.sign(z) * jnp.maximum(jnp.abs(z) - thresholds, 0.0)


def proximal_gradient(smooth, theta0, thresholds, *, max_iter, tol):
    r"""FISTA (Beck & Teboulle 2009) with backtracking on the Lipschitz estimate :math:`L` and
    O'Donoghue & Candès' (2015) function restart, for ``smooth(theta)`` (differentiable; the
    *averaged* smooth objective) plus :math:`\sum_j a_j|\theta_j|`, ``a`` = ``thresholds``
    (averaged too). Only ``smooth``'s value and gradient are needed, so a sparse ``X`` enters
    through its products alone.

    Step: :math:`\theta^+ = S(z - \nabla f(z)/L,\ a/L)` with :math:`L` doubled until
    :math:`f(\theta^+) \le f(z) + \nabla f(z)^\top(\theta^+ - z) + \tfrac L2\lVert\theta^+ - z\rVert^2`;
    :math:`t^+ = (1 + \sqrt{1 + 4t^2})/2`, :math:`z^+ = \theta^+ + \tfrac{t - 1}{t^+}(\theta^+ - \theta)`,
    restarted (:math:`t^+ = 1`, :math:`z^+ = \theta^+`) when the objective rises. Stops when the
    gradient mapping :math:`\lVert L(z - \theta^+)\rVert` (0 exactly at a minimiser; the
    gradient for a smooth problem) is at most ``tol``. Returns ``(theta, SolverResult)``."""
    value_and_grad = jax.value_and_grad(smooth)
    dtype = theta0.dtype

    def composite(theta, value):
        return value + jnp.sum(thresholds * jnp.abs(theta))

    def step(carry):
        theta, z, t, L, F_theta = carry
        fz, gz = value_and_grad(z)

        def trial(L):
            new = _soft(z - gz / L, thresholds / L)
            diff = new - z
            bound = fz + _precision.dot(gz, diff) + 0.5 * L * _precision.dot(diff, diff)
            f_new = smooth(new)
            return new, f_new, jnp.isfinite(f_new) & (f_new <= bound + 16 * jnp.finfo(dtype).eps * jnp.abs(fz))

        def cond(state):
            L, k, ok = state[0], state[1], state[4]
            return jnp.logical_not(ok) & (k < MAX_DOUBLINGS)

        def body(state):
            L, k = state[0] * 2, state[1] + 1
            new, f_new, ok = trial(L)
            return L, k, new, f_new, ok

        new0, f0, ok0 = trial(L)
        L, _, new, f_new, _ = jax.lax.while_loop(cond, body, (L, jnp.int32(0), new0, f0, ok0))
        F_new = composite(new, f_new)
        err = jnp.linalg.norm(L * (z - new))
        restart = F_new > F_theta
        t_next = jnp.where(restart, 1.0, 0.5 * (1 + jnp.sqrt(1 + 4 * t * t))).astype(dtype)
        z_next = jnp.where(restart, new, new + ((t - 1) / t_next) * (new - theta))
        return (new, z_next, t_next, L, F_new), err

    init = (theta0, theta0, jnp.ones((), dtype), jnp.ones((), dtype), composite(theta0, smooth(theta0)))
    res = iterate(step, init, max_iter=max_iter, tol=tol, history_size=HISTORY_SIZE)
    return res.carry[0], res


def _scaled_products(X, sw, fit_intercept):
    """``(matvec, mean, scale)``: :math:`V \\mapsto ZV` for the scaled columns :math:`Z` of a dense
    ``X`` (standardised, :func:`~jaxclassic.linear._newton.column_scaling`) or of a sparse BCOO
    (scaled by the root mean square, not centred: :mod:`jaxclassic.linear._sparse_fits`)."""
    if type(X).__module__.startswith("jax.experimental.sparse"):
        from jaxclassic.linear._sparse_fits import _column_scale

        scale = _column_scale(X, sw, jnp.sum(jnp.where(sw > 0, sw, 0)))
        return (lambda V: X @ (V / (scale if V.ndim == 1 else scale[:, None]))), \
            jnp.zeros(X.shape[1], X.dtype), scale
    mean, scale = column_scaling(X, sw, fit_intercept)
    return (lambda V: standardized_matmul(X, mean, scale, V)), mean, scale


@partial(_jit.jit, static_argnames=("n_classes", "fit_intercept"))
def _fit_proximal_gradient(X, y, sw, strength, l1_ratio, tol, max_iter, *, n_classes, fit_intercept):
    r"""``penalty="l1"`` / ``"elasticnet"`` by :func:`proximal_gradient` (``method="gd"``): binary
    (``n_classes=2``, ``LogisticParams``) or multinomial (``SoftmaxParams``), dense or BCOO ``X``.
    ``tol`` is on the gradient mapping of the objective averaged by :math:`\sum_i s_i`."""
    from jaxclassic.linear.softmax import SoftmaxParams

    dtype = X.dtype
    d = X.shape[1]
    total = jnp.sum(jnp.where(sw > 0, sw, 0))
    l1, l2 = strength * l1_ratio, strength * (1 - l1_ratio)
    matvec, mean, scale = _scaled_products(X, sw, fit_intercept)
    fi = jnp.asarray(fit_intercept, dtype)
    pen2 = l2 / jnp.square(scale)
    per_coef = jnp.concatenate([l1 / scale, jnp.zeros((1,), dtype)]) / total
    if n_classes == 2:
        yf = y.astype(dtype)
        ybar = jnp.clip(weighted_sum(sw, yf) / total, 1e-3, 1 - 1e-3)
        b0 = jnp.where(fit_intercept, jnp.log(ybar) - jnp.log1p(-ybar), 0).astype(dtype)
        theta0 = jnp.zeros(d + 1, dtype).at[d].set(b0)

        def smooth(theta):
            f = matvec(theta[:d]) + fi * theta[d]
            return (weighted_sum(sw, losses.log_loss(yf, f)) + 0.5 * jnp.sum(pen2 * theta[:d] ** 2)) / total

        theta, res = proximal_gradient(smooth, theta0, per_coef, max_iter=max_iter, tol=tol)
        coef = theta[:d] / scale
        intercept = fi * (theta[d] - _precision.dot(mean, coef))
        return LogisticParams(coef, intercept, res.n_iter, res.converged, res.history, jnp.zeros((), bool))
    shape = (n_classes, d + 1)
    counts = jnp.zeros(n_classes, dtype).at[y].add(jnp.where(sw > 0, sw, 0))
    log_prior = jnp.log(jnp.clip(counts / total, 1e-3, 1.0))
    b0 = jnp.where(fit_intercept, log_prior - jnp.mean(log_prior), 0).astype(dtype)
    theta0 = jnp.zeros(shape, dtype).at[:, d].set(b0).reshape(-1)

    def smooth(theta):
        B = theta.reshape(shape)
        F = matvec(B[:, :d].T) + fi * B[:, d]
        return (weighted_sum(sw, losses.softmax_cross_entropy(y, F))
                + 0.5 * jnp.sum(pen2 * B[:, :d] ** 2)) / total

    theta, res = proximal_gradient(smooth, theta0, jnp.tile(per_coef, n_classes), max_iter=max_iter, tol=tol)
    B = theta.reshape(shape)
    W = B[:, :d] / scale
    b = fi * (B[:, d] - _precision.matmul(W, mean))
    absent = jnp.asarray(fit_intercept) & jnp.any(counts <= 0)
    return SoftmaxParams(W, b - jnp.mean(b), res.n_iter, res.converged & ~absent, res.history, absent)
