"""Review of the linear fits' implicit derivatives (issue 14): regression tests for the
defects found, float64 (x64 on, from the root conftest).

Bayesian ridge at repeated Gram eigenvalues. The fit's posterior is computed in the
eigenbasis of :math:`G = X^\\top WX`; the derivative of ``eigh`` has :math:`1/(e_i - e_j)`
terms, infinite at repeated eigenvalues (an orthogonal design, :math:`G = c I`), so
``jax.grad`` of anything reading ``coef`` or ``sigma`` with respect to ``X`` was NaN although
the posterior :math:`(\\alpha G + \\lambda I)^{-1}` is smooth there. Now the values still come
from the eigendecomposition (bit for bit) and the derivatives from the equilibrated Cholesky
form. References: the closed form :math:`\\beta = (G + \\tfrac\\lambda\\alpha I)^{-1}X^\\top y`
differentiated by autodiff of ``jnp.linalg.solve`` (fixed precisions; an independent route,
agreement to rounding: rtol 1e-9), and central differences of re-fits (estimated
precisions; step 1e-6, truncation ~1e-12 and rounding ~1e-10 against a fit converged to
1e-13: rtol 1e-6).
"""

import pytest
import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import linear


def _orthogonal_design():
    # 3 Q with orthonormal columns: G = X^T X = 9 I, four equal eigenvalues
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.normal(size=(30, 4)))
    X = 3.0 * Q
    y = X @ np.array([1.0, 2.0, 0.0, -0.5]) + 0.3 * rng.normal(size=30)
    return jnp.asarray(X), jnp.asarray(y)


def _br(X, y, alpha, lambda_):
    # alpha, lambda_ = None: both estimated (evidence fixed point); else held fixed
    p = linear.fit_bayesian_ridge(X, y, alpha=alpha, lambda_=lambda_, fit_intercept=False,
                                  tol=1e-13, max_iter=300)
    return jnp.concatenate([p.coef, jnp.diagonal(p.sigma)])


def test_bayesian_ridge_derivative_in_x_at_repeated_eigenvalues_fixed_precisions():
    X, y = _orthogonal_design()
    assert np.allclose(np.linalg.eigvalsh(np.asarray(X.T @ X)), 9.0)  # the case: all repeated

    def closed(X):  # beta = (G + lam/alpha I)^-1 X^T y, sigma = (alpha G + lam I)^-1
        A = 2.0 * X.T @ X + 0.5 * jnp.eye(4)
        return jnp.concatenate([2.0 * jnp.linalg.solve(A, X.T @ y), jnp.diagonal(jnp.linalg.inv(A))])

    got = jax.jit(jax.jacrev(_br))(X, y, 2.0, 0.5)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, jax.jit(jax.jacrev(closed))(X), rtol=1e-9, atol=1e-13)
    np.testing.assert_array_equal(_br(X, y, 2.0, 0.5)[:4],  # values: the eigendecomposition's
                                  linear.fit_bayesian_ridge(X, y, alpha=2.0, lambda_=0.5,
                                                            fit_intercept=False).coef)


@pytest.mark.full
def test_bayesian_ridge_derivative_in_x_at_repeated_eigenvalues_estimated_precisions():
    X, y = _orthogonal_design()
    got = jax.jit(jax.jacrev(_br), static_argnums=(2, 3))(X, y, None, None)
    assert np.all(np.isfinite(got))
    for index in [(3, 0), (17, 2)]:
        bump = jnp.zeros_like(X).at[index].set(1e-6)
        fd = (_br(X + bump, y, None, None) - _br(X - bump, y, None, None)) / 2e-6
        np.testing.assert_allclose(got[(slice(None),) + index], fd, rtol=1e-6, atol=1e-10)


# --------------------------------------------------------------------------- zero weights
# The derivative with respect to a weight of 0 (a row left out) is the one-sided derivative of
# adding the row. The weighted Gram form was built from sqrt(w) X, whose autodiff at w = 0 is
# 0 * inf = NaN: d/d sample_weight of ridge, OLS, lasso and Bayesian ridge was NaN at every
# row of weight 0. Reference: forward differences of re-fits with the row's weight h = 1e-7
# (truncation O(h) relative to the curvature: rtol 1e-4).
def _weighted_case():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 3))
    y = X @ np.array([1.0, -1.0, 0.5]) + 0.5 * rng.normal(size=25)
    sw = np.ones(25)
    sw[:3] = 0.0
    return jnp.asarray(X), jnp.asarray(y), jnp.asarray(sw)


def _zero_weight_fits(sw, X, y):
    # ridge and the lasso exercise the shared weighted Gram form (Bayesian ridge and OLS
    # build on the same one) at the cost of two compilations
    lasso = linear.fit_lasso(X, y, alpha=0.05, sample_weight=sw, tol=1e-14, max_iter=5000,
                             stopping="coef")
    ridge = linear.fit_ridge(X, y, alpha=1.0, sample_weight=sw)
    return jnp.concatenate([lasso.coef, lasso.intercept[None], ridge.coef, ridge.intercept[None]])


@pytest.mark.full
def test_derivative_in_a_zero_weight_is_the_one_sided_one_of_adding_the_row():
    X, y, sw = _weighted_case()
    e = jnp.zeros(25).at[1].set(1.0)  # a row of weight 0

    @jax.jit  # one program: values, forward mode along e, reverse mode
    def program(s):
        theta, tangent = jax.jvp(lambda s_: _zero_weight_fits(s_, X, y), (s,), (e,))
        return theta, tangent, jax.grad(lambda s_: jnp.sum(_zero_weight_fits(s_, X, y)))(s)

    theta, tangent, grad = program(sw)
    assert np.all(np.isfinite(tangent)) and np.all(np.isfinite(grad))
    forward = (program(sw + 1e-7 * e)[0] - theta) / 1e-7
    np.testing.assert_allclose(tangent, forward, rtol=1e-4, atol=1e-8)
    np.testing.assert_allclose(grad[1], jnp.sum(tangent), rtol=1e-9)
