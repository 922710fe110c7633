"""Tests of jaxclassic/linear/elastic_net.py (fit_elastic_net) and the ElasticNet estimator.

References: scikit-learn's ``ElasticNet`` on the diabetes data, both sides at tol=1e-12 (each
within ~1e-9 of the optimum), so coefficients are compared at 1e-6 (columns of diabetes have
coefficients up to ~800) and the objective at 1e-10 relative; the KKT conditions of the elastic
net by hand (the gradient of the smooth part, -X_c^T W r / sum w + alpha (1 - rho) beta, within
alpha rho on the zeros, equal to -alpha rho sign(beta) on the support).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.linear_model import ElasticNet as SkElasticNet

from jaxclassic.linear import fit_elastic_net, fit_lasso, predict
from jaxclassic.linear.elastic_net import ElasticNetParams, elastic_net_objective

TIGHT = dict(tol=1e-12, max_iter=20000)
GRID = ((0.01, 0.5), (0.1, 0.2), (1.0, 0.9))


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X[:300], y[:300], X[300:], y[300:]


@pytest.mark.parametrize("alpha, l1_ratio", GRID)
def test_matches_sklearn_elastic_net(diabetes, alpha, l1_ratio):
    X, y, X_new, _ = diabetes
    ours = fit_elastic_net(X, y, alpha=alpha, l1_ratio=l1_ratio, **TIGHT)
    ref = SkElasticNet(alpha=alpha, l1_ratio=l1_ratio, tol=1e-12, max_iter=20000).fit(X, y)
    assert isinstance(ours, ElasticNetParams) and bool(ours.converged)
    np.testing.assert_allclose(ours.coef, ref.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept, ref.intercept_, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(ours.coef) == 0, ref.coef_ == 0)
    ref_obj = float(elastic_net_objective(type(ours)(jnp.asarray(ref.coef_), jnp.asarray(ref.intercept_),
                                                     0, True, 0.0), X, y, alpha, l1_ratio))
    our_obj = float(elastic_net_objective(ours, X, y, alpha, l1_ratio))
    assert abs(our_obj - ref_obj) <= 1e-10 * abs(ref_obj)
    # predictions on rows not seen in the fit
    np.testing.assert_allclose(predict(ours, X_new), ref.predict(X_new), atol=1e-6)


def test_kkt_conditions_by_hand(diabetes):
    X, y, _, _ = diabetes
    alpha, rho = 0.5, 0.9
    sw = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
    p = fit_elastic_net(X, y, alpha=alpha, l1_ratio=rho, sample_weight=sw, **TIGHT)
    coef = np.asarray(p.coef)
    residual = y - X @ coef - float(p.intercept)
    grad = -(X.T @ (sw * residual)) / sw.sum() + alpha * (1 - rho) * coef
    on = coef != 0
    assert on.any() and (~on).any()
    np.testing.assert_allclose(grad[on], -alpha * rho * np.sign(coef[on]), atol=1e-8)
    assert np.all(np.abs(grad[~on]) <= alpha * rho + 1e-8)
    assert abs(np.sum(sw * residual)) <= 1e-8 * sw.sum()  # the unpenalised intercept


def test_weighted_equals_sklearn_and_zero_weight_rows_have_no_influence(diabetes):
    X, y, _, _ = diabetes
    sw = np.random.default_rng(1).uniform(0.2, 2.0, X.shape[0])
    ours = fit_elastic_net(X, y, alpha=0.1, l1_ratio=0.5, sample_weight=sw, **TIGHT)
    ref = SkElasticNet(alpha=0.1, l1_ratio=0.5, tol=1e-12, max_iter=20000).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.coef, ref.coef_, atol=1e-6)
    # zero-weight rows holding garbage change nothing
    garbage = np.random.default_rng(2).normal(0, 1e3, (7, X.shape[1]))
    padded = fit_elastic_net(np.vstack([X, garbage]), np.r_[y, np.full(7, 1e4)], alpha=0.1, l1_ratio=0.5,
                             sample_weight=np.r_[sw, np.zeros(7)], **TIGHT)
    np.testing.assert_allclose(padded.coef, ours.coef, atol=1e-9)
    np.testing.assert_allclose(padded.intercept, ours.intercept, atol=1e-9)


@pytest.mark.full
def test_l1_ratio_one_is_the_lasso_and_a_grid_is_one_vmap(diabetes):
    X, y, _, _ = diabetes
    np.testing.assert_allclose(fit_elastic_net(X, y, alpha=0.1, l1_ratio=1.0, **TIGHT).coef,
                               fit_lasso(X, y, alpha=0.1, **TIGHT).coef, atol=1e-9)
    ratios = jnp.array([0.2, 0.5, 0.8])
    batched = jax.vmap(lambda r: fit_elastic_net(X, y, alpha=0.1, l1_ratio=r, **TIGHT).coef)(ratios)
    for i, r in enumerate([0.2, 0.5, 0.8]):
        np.testing.assert_allclose(batched[i], fit_elastic_net(X, y, alpha=0.1, l1_ratio=r, **TIGHT).coef,
                                   atol=1e-9)


@pytest.mark.full
def test_derivative_in_alpha_equals_finite_differences(diabetes):
    X, y, _, _ = diabetes

    def coef_sum(alpha):
        return jnp.sum(fit_elastic_net(X, y, alpha=alpha, l1_ratio=0.5, **TIGHT).coef)

    h = 1e-6
    fd = (coef_sum(0.1 + h) - coef_sum(0.1 - h)) / (2 * h)
    np.testing.assert_allclose(jax.grad(coef_sum)(0.1), fd, rtol=1e-4)


@pytest.mark.parametrize("kwargs, message", [
    (dict(l1_ratio=1.5), "l1_ratio must be <= 1"),
    (dict(l1_ratio=-0.1), "l1_ratio must be >= 0"),
    (dict(alpha=-1.0), "alpha must be >= 0"),
])
def test_bad_hyperparameters(diabetes, kwargs, message):
    X, y, _, _ = diabetes
    with pytest.raises(ValueError, match=message):
        fit_elastic_net(X, y, **kwargs)


# --------------------------------------------------------------------------- estimator
def test_estimator_equals_sklearn_and_warm_starts(diabetes):
    from jaxclassic.estimators import ElasticNet

    X, y, X_new, _ = diabetes
    ours = ElasticNet(alpha=0.05, l1_ratio=0.7, tol=1e-12, max_iter=20000).fit(X, y)
    ref = SkElasticNet(alpha=0.05, l1_ratio=0.7, tol=1e-12, max_iter=20000).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.predict(X_new), ref.predict(X_new), atol=1e-6)
    warm = ElasticNet(alpha=0.05, l1_ratio=0.7, tol=1e-12, max_iter=20000, warm_start=True).fit(X, y)
    n_cold = warm.n_iter_
    warm.set_params(alpha=0.051).fit(X, y)
    assert warm.n_iter_ < n_cold
    with pytest.raises(ValueError, match="l1_ratio must be <= 1"):
        ElasticNet(l1_ratio=2.0).fit(X, y)


def test_sparse_x_equals_dense(diabetes):
    import scipy.sparse as sp

    from jaxclassic.estimators import ElasticNet

    X, y, X_new, _ = diabetes
    X = np.where(np.abs(X) > 0.03, X, 0.0)  # about half the values stored
    dense = ElasticNet(alpha=0.05, l1_ratio=0.7, tol=1e-12, max_iter=20000).fit(X, y)
    sparse = ElasticNet(alpha=0.05, l1_ratio=0.7, tol=1e-12, max_iter=20000).fit(sp.csr_matrix(X), y)
    # the same Gram matrix from sparse products, the same sweeps: equal to rounding
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-9)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X_new)), dense.predict(X_new), atol=1e-9)
