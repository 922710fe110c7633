r"""Bayesian ridge regression: Gaussian posterior, predictive distribution, evidence maximisation.

Model (precisions as in scikit-learn's ``BayesianRidge``; :math:`w_i` sample weights):

.. math::

    y_i \mid x_i, \beta \sim N(x_i^\top\beta + b,\ 1/(\alpha w_i)), \qquad
    \beta \sim N(0, \lambda^{-1} I),

so :math:`\alpha = 1/\sigma^2` is the noise precision and :math:`\lambda` the prior precision
(:math:`\Sigma_0 = I/\lambda`). The intercept is not given a prior: with ``fit_intercept`` the
data are centred by their weighted means (:math:`b = \bar y - \bar x^\top\bar\beta`). The
posterior of :math:`\beta` is :math:`N(\bar\beta, A^{-1})` with

.. math::

    A = \alpha X_c^\top W X_c + \lambda I, \qquad \bar\beta = \alpha A^{-1} X_c^\top W y_c ,

computed from one eigendecomposition :math:`X_c^\top W X_c = V\,\mathrm{diag}(e)\,V^\top`.

**Badly scaled columns.** That eigendecomposition has absolute error
:math:`\varepsilon\lVert G\rVert`, so when the column norms :math:`s_j = \sqrt{G_{jj}}`
differ widely (:math:`\varepsilon(\max s/\min s)^2 > 10^{-5}`; in float32 a spread of about
9, e.g. unscaled breast-cancer data) it erases the small-unit directions. Standardising the
columns is not an option: the isotropic prior :math:`N(0, I/\lambda)` on the original
coefficients would become an anisotropic one, a different model. Instead the same model is
solved in the equilibrated basis, :math:`A = S B S` with
:math:`B = \alpha S^{-1}GS^{-1} + \lambda S^{-2}`, :math:`S = \operatorname{diag}(s)`, by one
Cholesky factorisation of :math:`B` per update (:math:`O(d^3)` instead of :math:`O(d^2)`):
:math:`\bar\beta = \alpha S^{-1}B^{-1}S^{-1}g`, :math:`A^{-1} = S^{-1}B^{-1}S^{-1}`,
:math:`\gamma = \operatorname{tr}(\alpha G A^{-1}) = \alpha\langle S^{-1}GS^{-1}, B^{-1}\rangle`.
The
predictive distribution of a new :math:`y` at :math:`x` has mean :math:`x^\top\bar\beta + b`
and variance :math:`1/\alpha + (x - \bar x)^\top A^{-1}(x - \bar x)` (scikit-learn's
``predict(return_std=True)``; the uncertainty of the intercept is not included).

**Evidence maximisation** (when ``alpha`` / ``lambda_`` are not fixed): MacKay's fixed-point
updates of the type-II maximum likelihood, with Gamma(:math:`a_1, a_2`) and
Gamma(:math:`l_1, l_2`) hyperpriors on :math:`\alpha` and :math:`\lambda` (scikit-learn's
``alpha_1, alpha_2, lambda_1, lambda_2``):

.. math::

    \gamma = \sum_j \frac{\alpha e_j}{\lambda + \alpha e_j}, \qquad
    \lambda \leftarrow \frac{\gamma + 2 l_1}{\lVert\bar\beta\rVert^2 + 2 l_2}, \qquad
    \alpha \leftarrow \frac{\sum_i w_i - \gamma + 2 a_1}{\sum_i w_i (y_{c,i} - x_{c,i}^\top\bar\beta)^2 + 2 a_2},

starting from :math:`\alpha = 1/\mathrm{Var}_w(y)`, :math:`\lambda = 1`, one step of
:func:`jaxclassic._solver.iterate` per update, stopping when
:math:`\sum_j |\bar\beta_j^{(t)} - \bar\beta_j^{(t-1)}| \le` ``tol`` (scikit-learn's rule; the
first step never stops). The final :math:`\bar\beta` and :math:`A^{-1}` use the last
:math:`\alpha, \lambda`.

Derivatives. Everything the fit returns is differentiable with respect to ``X``, ``y``,
``sample_weight``, fixed precisions and the hyperpriors: the estimated precisions by the
implicit function theorem at the fixed point of the evidence update
(:func:`_evidence_fixed_point`, :mod:`jaxclassic._implicit`), the posterior from them in
closed form (differentiated in its Cholesky form, :func:`_posterior`, so that repeated
eigenvalues of the Gram matrix, e.g. an orthogonal design, give finite derivatives). The
updates run on stopped inputs, so forward values are unchanged.

References
----------
MacKay, "Bayesian interpolation", Neural Computation 4 (1992).
Tipping, "Sparse Bayesian learning and the relevance vector machine", JMLR 1 (2001).
Bishop, *Pattern Recognition and Machine Learning*, §3.3 (posterior, eqs. 3.53-3.54;
predictive distribution, eqs. 3.58-3.59) and §3.5.2 (evidence updates, eqs. 3.91-3.95).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _linalg
from jaxclassic._linalg import cho_solve
from jaxclassic import _precision
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic._solver import iterate
from jaxclassic.linear._api import predict, predict_dist
from jaxclassic.linear._gram import equilibrate, graded, weighted_gram
from jaxclassic.linear._params import predict_linear
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_bool,
    check_int,
    check_sample_weight,
    check_scalar,
    check_X_y,
)

__all__ = ["BayesianRidgeParams", "PredictiveDistribution", "fit_bayesian_ridge"]


class BayesianRidgeParams(NamedTuple):
    """A fitted Bayesian ridge regression (names follow scikit-learn's ``BayesianRidge``).

    Attributes
    ----------
    coef : (n_features,) posterior mean :math:`\\bar\\beta`.
    intercept : () :math:`\\bar y - \\bar x^\\top\\bar\\beta` (0 without intercept).
    alpha : () noise precision :math:`1/\\sigma^2`.
    lambda_ : () prior precision of the coefficients.
    sigma : (n_features, n_features) posterior covariance :math:`A^{-1}`.
    x_offset : (n_features,) the weighted column means used for centring (0 without intercept).
    n_iter : int32 () evidence updates taken (0 when both precisions are fixed).
    converged : bool () whether the stopping rule was met (True when nothing was estimated).
    """

    coef: jax.Array
    intercept: jax.Array
    alpha: jax.Array
    lambda_: jax.Array
    sigma: jax.Array
    x_offset: jax.Array
    n_iter: jax.Array
    converged: jax.Array


class PredictiveDistribution(NamedTuple):
    """Gaussian predictive distribution: ``mean`` (n,) and ``variance`` (n,)."""

    mean: jax.Array
    variance: jax.Array


def _evidence_fixed_point(precisions, gram, xty, yy, sw_sum, alpha_fixed, lambda_fixed, alpha_1,
                          alpha_2, lambda_1, lambda_2, *, estimate_alpha, estimate_lambda):
    r"""Residual :math:`(\alpha, \lambda) - T(\alpha, \lambda)` of MacKay's evidence update
    :math:`T` (module docstring), for :mod:`jaxclassic._implicit`; a precision held fixed has
    the residual ``value - fixed``. :math:`T` is written with one dense solve
    (:math:`A = \alpha G + \lambda I`, :math:`\bar\beta = \alpha A^{-1}g`,
    :math:`\gamma = d - \lambda\operatorname{tr}A^{-1}`,
    :math:`\lVert y_c - X_c\bar\beta\rVert_W^2 = y_c^\top Wy_c - 2\bar\beta^\top g +
    \bar\beta^\top G\bar\beta`): the same fixed points as the fit's eigen/Cholesky form, and
    smooth where an eigendecomposition's derivative is not (repeated eigenvalues)."""
    alpha, lam = precisions
    d = gram.shape[0]
    a_inv = _linalg.inv(alpha * gram + lam * jnp.eye(d, dtype=gram.dtype))
    coef = alpha * _precision.matmul(a_inv, xty)
    gamma = d - lam * jnp.trace(a_inv)
    sse = yy - 2 * _precision.dot(coef, xty) + _precision.dot(coef, _precision.matmul(gram, coef))
    new_lam = (gamma + 2 * lambda_1) / (jnp.sum(jnp.square(coef)) + 2 * lambda_2)
    new_alpha = (sw_sum - gamma + 2 * alpha_1) / (sse + 2 * alpha_2)
    return (alpha - new_alpha if estimate_alpha else alpha - alpha_fixed,
            lam - new_lam if estimate_lambda else lam - lambda_fixed)


def _equilibrated_cholesky(gram_s, scale, xty_s, eye, alpha, lam):
    """``(coef, gamma, sigma)`` by Cholesky in the equilibrated basis ``G = S G_s S``."""
    # A = alpha G + lam I = S B S, B = alpha G_s + lam S^{-2}: beta = alpha S^{-1} B^{-1} S^{-1} g,
    # A^{-1} = S^{-1} B^{-1} S^{-1}, gamma = tr(alpha G A^{-1}) = alpha <G_s, B^{-1}>
    factor = (_linalg.cholesky(alpha * gram_s + jnp.diag(lam / jnp.square(scale))), True)
    coef = alpha * cho_solve(factor, xty_s) / scale
    b_inv = cho_solve(factor, eye)
    gamma = alpha * jnp.sum(gram_s * b_inv)
    return coef, gamma, b_inv / scale[:, None] / scale[None, :]


@jax.custom_jvp
def _posterior(gram, xty, alpha, lam):
    """The fit's final posterior ``(coef, gamma, sigma)``: values from :func:`_posterior_of`
    (eigendecomposition or equilibrated Cholesky, bit for bit), derivatives from the
    equilibrated Cholesky form, which is smooth everywhere (the derivative of ``eigh`` is
    infinite at repeated eigenvalues, e.g. an orthogonal design, though the posterior is not)."""
    return _posterior_of(gram, xty)(alpha, lam)


@_posterior.defjvp
def _posterior_jvp(primals, tangents):
    def smooth(gram, xty, alpha, lam):
        scale, gram_s = equilibrate(gram)
        eye = jnp.eye(gram.shape[0], dtype=gram.dtype)
        return _equilibrated_cholesky(gram_s, scale, xty / scale, eye, alpha, lam)

    return _posterior(*primals), jax.jvp(smooth, primals, tangents)[1]


def _posterior_of(gram, xty):
    """``posterior(alpha, lam) -> (coef, gamma, sigma)`` for a Gram form: by the
    eigendecomposition of ``gram``, or, when its columns are badly graded, by Cholesky in the
    equilibrated basis (module docstring)."""
    dtype = gram.dtype
    # Badly scaled columns: the eigendecomposition of the raw Gram (absolute error
    # eps ||G||) loses the directions of the small-unit columns, so the linear algebra runs in
    # the equilibrated basis instead (module docstring); the prior stays N(0, I / lambda) on
    # the original coefficients.
    is_graded = graded(gram)
    scale, gram_s = equilibrate(gram)
    xty_s = xty / scale
    eye = jnp.eye(gram_s.shape[0], dtype=dtype)
    evals, evecs = _linalg.eigh(gram)
    evals = jnp.maximum(evals, 0)  # rounding can leave tiny negative eigenvalues
    proj = _precision.matmul(evecs.T, xty)

    def by_eigendecomposition(alpha, lam):
        # Bishop eq. 3.53-3.54 in the eigenbasis: beta = V diag(1/(e + lam/alpha)) V^T g
        coef = _precision.matmul(evecs, proj / (evals + lam / alpha))
        gamma = jnp.sum(alpha * evals / (lam + alpha * evals))
        sigma = _precision.matmul(evecs / (alpha * evals + lam), evecs.T)  # A^{-1}
        return coef, gamma, sigma

    def by_equilibrated_cholesky(alpha, lam):
        return _equilibrated_cholesky(gram_s, scale, xty_s, eye, alpha, lam)

    def posterior(alpha, lam):
        return jax.lax.cond(is_graded, by_equilibrated_cholesky, by_eigendecomposition, alpha, lam)

    return posterior


def _evidence_loop(stats, sw, y, alpha0, lambda0, tol, alpha_1, alpha_2, lambda_1, lambda_2, *,
                   max_iter, estimate_alpha, estimate_lambda):
    """MacKay's updates to convergence (one step of ``iterate`` per update):
    ``(alpha, lambda, n_iter, converged)``."""
    dtype = stats.gram.dtype
    posterior = _posterior_of(stats.gram, stats.xty)
    sw_sum = stats.sw_sum

    def sse(coef):
        return jnp.sum(jnp.square(stats.yw - _precision.matmul(stats.Xw, coef)))

    def step(carry):
        alpha, lam, coef_old, i = carry
        coef, gamma = posterior(alpha, lam)[:2]
        new_lam = (gamma + 2 * lambda_1) / (jnp.sum(jnp.square(coef)) + 2 * lambda_2)
        new_alpha = (sw_sum - gamma + 2 * alpha_1) / (sse(coef) + 2 * alpha_2)
        new_alpha = new_alpha if estimate_alpha else alpha
        new_lam = new_lam if estimate_lambda else lam
        change = jnp.sum(jnp.abs(coef_old - coef))
        # scikit-learn never stops on the first update (there is no previous coef yet)
        error = jnp.where(i == 0, jnp.finfo(dtype).max, change)
        return (new_alpha, new_lam, coef, i + 1), error

    init = (alpha0, lambda0, jnp.zeros_like(stats.xty), jnp.int32(0))
    result = iterate(step, init, max_iter=max_iter, tol=tol)
    return result.carry[0], result.carry[1], result.n_iter, result.converged


@partial(_jit.jit, static_argnames=("fit_intercept", "max_iter", "estimate_alpha", "estimate_lambda"))
def _fit_bayesian_ridge(X, y, sample_weight, alpha_init, lambda_init, tol, alpha_1, alpha_2,
                        lambda_1, lambda_2, *, fit_intercept, max_iter, estimate_alpha,
                        estimate_lambda):
    dtype = X.dtype
    stats = weighted_gram(X, y, sample_weight, fit_intercept)
    sw = sample_weight.astype(dtype)
    sw_sum = stats.sw_sum
    y_mean_all = _precision.dot(sw, y) / sw_sum
    y_var = _precision.dot(sw, jnp.square(y - y_mean_all)) / sw_sum
    eps = jnp.finfo(dtype).eps
    alpha0 = jnp.where(jnp.isnan(alpha_init), 1 / (y_var + eps), alpha_init)
    lambda0 = jnp.where(jnp.isnan(lambda_init), jnp.ones((), dtype), lambda_init)
    hyperpriors = (alpha_1, alpha_2, lambda_1, lambda_2)

    if estimate_alpha or estimate_lambda:
        # the updates run on stopped inputs; the derivatives of the estimated precisions come
        # from the fixed point of the update (implicit function theorem)
        frozen = jax.lax.stop_gradient((stats, sw, y, alpha0, lambda0, hyperpriors))
        alpha, lam, n_iter, converged = _evidence_loop(
            *frozen[:5], tol, *frozen[5], max_iter=max_iter, estimate_alpha=estimate_alpha,
            estimate_lambda=estimate_lambda)
        alpha, lam = with_implicit_derivatives(
            partial(_evidence_fixed_point, estimate_alpha=estimate_alpha,
                    estimate_lambda=estimate_lambda),
            (alpha, lam), stats.gram, stats.xty, stats.yy, sw_sum, alpha0, lambda0, *hyperpriors)
    else:
        alpha, lam = alpha0, lambda0
        n_iter, converged = jnp.int32(0), jnp.asarray(True)

    coef, _, sigma = _posterior(stats.gram, stats.xty, alpha, lam)
    intercept = stats.y_mean - _precision.dot(stats.x_mean, coef)
    return BayesianRidgeParams(coef, intercept, alpha, lam, sigma, stats.x_mean, n_iter, converged)


def fit_bayesian_ridge(X, y, *, alpha=None, lambda_=None, alpha_init=None, lambda_init=None,
                       max_iter: int = 300, tol: float = 1e-3, alpha_1: float = 1e-6,
                       alpha_2: float = 1e-6, lambda_1: float = 1e-6, lambda_2: float = 1e-6,
                       fit_intercept: bool = True, sample_weight=None) -> BayesianRidgeParams:
    r"""Bayesian ridge regression: the posterior of the coefficients, with evidence maximisation.

    Posterior :math:`N(\bar\beta, A^{-1})`, :math:`A = \alpha X_c^\top W X_c + \lambda I`,
    :math:`\bar\beta = \alpha A^{-1}X_c^\top W y_c` (module docstring). A precision given as
    ``alpha`` (noise, :math:`1/\sigma^2`) or ``lambda_`` (prior, :math:`\Sigma_0 = I/\lambda`)
    is held **fixed**; one left ``None`` is estimated by MacKay's evidence updates, as
    scikit-learn's ``BayesianRidge`` does (which estimates both). With both fixed this is the
    closed-form posterior, no iterations.

    Parameters
    ----------
    X : (n_samples, n_features) array-like
    y : (n_samples,) array-like
    alpha, lambda_ : float > 0, optional
        Fixed noise / prior precision (traced: ``vmap``-able).
    alpha_init, lambda_init : float > 0, optional
        Starting values of the estimated precisions (defaults :math:`1/\mathrm{Var}(y)` and 1,
        scikit-learn's).
    max_iter : int, default 300
        Maximum evidence updates (static).
    tol : float, default 1e-3
        Stop when the L1 change of :math:`\bar\beta` between updates is at most ``tol``.
    alpha_1, alpha_2, lambda_1, lambda_2 : float >= 0, default 1e-6
        Shape and rate of the Gamma hyperpriors on :math:`\alpha` and :math:`\lambda`.
    fit_intercept : bool, default True
    sample_weight : (n_samples,) array-like, optional
        Non-negative weights (noise precision :math:`\alpha w_i`); weight 0 has no influence.

    Returns
    -------
    BayesianRidgeParams
        ``coef, intercept, alpha, lambda_, sigma, x_offset, n_iter, converged``.

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jax.random.normal(jax.random.key(0), (100, 3))
    >>> y = X @ jnp.array([1.0, -2.0, 0.5]) + 0.1 * jax.random.normal(jax.random.key(1), (100,))
    >>> params = fit_bayesian_ridge(X, y)
    >>> mean, variance = predict_dist(params, X[:5])

    References
    ----------
    MacKay, Neural Computation 4 (1992); Bishop, *Pattern Recognition and Machine Learning*,
    §3.3, §3.5.2.
    """
    X, y = check_X_y(X, y)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    max_iter = check_int(max_iter, "max_iter", low=1)
    check_scalar(tol, "tol", low=0.0)
    for name, value in (("alpha_1", alpha_1), ("alpha_2", alpha_2), ("lambda_1", lambda_1),
                        ("lambda_2", lambda_2)):
        check_scalar(value, name, low=0.0)
    for name, value in (("alpha", alpha), ("lambda_", lambda_), ("alpha_init", alpha_init),
                        ("lambda_init", lambda_init)):
        if value is not None:
            check_scalar(value, name, low=0.0, include_low=False)
    dtype = X.dtype
    nan = as_operand(np.nan, dtype)
    alpha0 = as_operand(alpha, dtype) if alpha is not None else (
        nan if alpha_init is None else as_operand(alpha_init, dtype))
    lambda0 = as_operand(lambda_, dtype) if lambda_ is not None else (
        nan if lambda_init is None else as_operand(lambda_init, dtype))
    as_array = lambda v: as_operand(v, dtype)  # noqa: E731
    return _fit_bayesian_ridge(
        X, y, sw, alpha0, lambda0, as_array(tol), as_array(alpha_1), as_array(alpha_2),
        as_array(lambda_1), as_array(lambda_2), fit_intercept=check_bool(fit_intercept, "fit_intercept"),
        max_iter=max_iter, estimate_alpha=alpha is None, estimate_lambda=lambda_ is None,
    )


@_jit.jit
def _predict_dist(params, X):
    mean = predict_linear(params, X)
    centred = X - params.x_offset.astype(X.dtype)
    spread = jnp.sum(_precision.matmul(centred, params.sigma.astype(X.dtype)) * centred, axis=1)
    return PredictiveDistribution(mean, 1 / params.alpha.astype(X.dtype) + spread)


def predict_dist_bayesian_ridge(params: BayesianRidgeParams, X) -> PredictiveDistribution:
    r"""Predictive mean :math:`x^\top\bar\beta + b` and variance :math:`1/\alpha + (x-\bar x)^\top A^{-1}(x-\bar x)`.

    Registered as :func:`jaxclassic.linear.predict_dist` for :class:`BayesianRidgeParams`.
    The square root of ``variance`` is scikit-learn's ``predict(X, return_std=True)[1]``.
    """
    X = check_array(X, "X")
    if X.shape[1] != params.coef.shape[-1]:
        raise ValueError(f"X has {X.shape[1]} features, but the params have {params.coef.shape[-1]}")
    return _predict_dist(params, X)


predict.register(BayesianRidgeParams, predict_linear)
predict_dist.register(BayesianRidgeParams, predict_dist_bayesian_ridge)
