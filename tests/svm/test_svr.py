"""Tests of jaxclassic/svm/svr.py (x64 on, from the root conftest).

References: scikit-learn's ``SVR`` (LIBSVM's epsilon-SVR, same C, epsilon, kernel, gamma, tol)
on diabetes (standardised features and target); its dual objective is recomputed from its
``dual_coef_`` with our Gram matrix. Also: the KKT conditions of the tube, strong duality
(the primal with the epsilon-insensitive loss = minus the dual), zero-weight rows = sliced data,
vmap over epsilon = a loop.

Tolerances: at tol = 1e-5 (both solvers' maximal violating pair gap) the objectives agree to
~1e-10 relative (asserted at 1e-6), the support sets are equal and predictions agree to ~1e-5
(asserted at 1e-3).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVR

from jaxclassic.svm import fit_kernel_svr, predict, support_vectors
from jaxclassic.svm import kernel as K


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), (y - y.mean()) / y.std()


def _gram(params, X):
    return np.asarray(K.make_kernel(params.kernel, params.gamma, params.coef0)(jnp.asarray(X), jnp.asarray(X)))


@pytest.mark.full
@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly", "sigmoid"])
def test_equals_sklearn_svr(diabetes, kernel):
    X, z = diabetes
    params = fit_kernel_svr(X, z, C=1.0, epsilon=0.1, kernel=kernel, tol=1e-5)
    ref = SVR(C=1.0, epsilon=0.1, kernel=kernel, tol=1e-5).fit(X, z)
    coef = np.zeros(len(z))
    coef[ref.support_] = ref.dual_coef_[0]
    Kx = _gram(params, X)
    ref_objective = 0.5 * coef @ Kx @ coef + 0.1 * np.abs(coef).sum() - z @ coef
    np.testing.assert_allclose(float(params.dual_objective), ref_objective, rtol=1e-6)
    np.testing.assert_array_equal(K.support(params), ref.support_)
    np.testing.assert_allclose(support_vectors(params), ref.support_vectors_)
    np.testing.assert_allclose(predict(params, X), ref.predict(X), atol=1e-3)
    np.testing.assert_allclose(float(params.intercept), ref.intercept_[0], atol=1e-3)


def test_kkt_conditions_of_the_tube(diabetes):
    X, z = diabetes
    tol, eps, C = 1e-3, 0.1, 1.0
    params = fit_kernel_svr(X, z, C=C, epsilon=eps, tol=tol)
    coef = np.asarray(params.dual_coef)
    residual = z - np.asarray(predict(params, X))
    inside, bound = coef == 0, np.abs(coef) == C
    free = ~inside & ~bound
    assert inside.any() and bound.any() and free.any()
    assert np.all(np.abs(residual[inside]) <= eps + tol)
    # a free alpha (coef > 0) sits on the upper edge of the tube, a free alpha* on the lower
    np.testing.assert_allclose(np.abs(residual[free]), eps, atol=tol)
    assert np.all(np.sign(residual[free]) == np.sign(coef[free]))
    assert np.all(np.abs(residual[bound]) >= eps - tol)
    np.testing.assert_allclose(coef.sum(), 0.0, atol=1e-10)


@pytest.mark.full
def test_strong_duality(diabetes):
    X, z = diabetes
    C, eps = 2.0, 0.2
    params = fit_kernel_svr(X, z, C=C, epsilon=eps, tol=1e-8)
    coef = np.asarray(params.dual_coef)
    loss = np.maximum(np.abs(z - np.asarray(predict(params, X))) - eps, 0.0)
    primal = 0.5 * coef @ _gram(params, X) @ coef + C * loss.sum()
    np.testing.assert_allclose(primal, -float(params.dual_objective), rtol=1e-7)


def test_zero_weight_rows_equal_fitting_without_them(diabetes):
    X, z = diabetes
    drop = np.random.default_rng(0).random(len(z)) < 0.3
    full = fit_kernel_svr(X, z, sample_weight=(~drop).astype(float), gamma=0.1)
    ref = fit_kernel_svr(X[~drop], z[~drop], gamma=0.1)
    assert np.all(np.asarray(full.dual_coef)[drop] == 0)
    np.testing.assert_allclose(np.asarray(full.dual_coef)[~drop], ref.dual_coef, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(full.intercept, ref.intercept, rtol=1e-9)


@pytest.mark.full
def test_cached_rows_equal_gram(diabetes):
    X, z = diabetes
    full = fit_kernel_svr(X, z, tol=1e-6)
    cached = fit_kernel_svr(X, z, tol=1e-6, storage="cache", memory_budget=40 * len(z) * 8)
    np.testing.assert_allclose(cached.dual_objective, full.dual_objective, rtol=1e-10)
    np.testing.assert_allclose(predict(cached, X), predict(full, X), atol=1e-5)


@pytest.mark.full
def test_vmap_over_epsilon_equals_a_loop(diabetes):
    X, z = diabetes[0][:80], diabetes[1][:80]
    eps = jnp.array([0.05, 0.3])
    stacked = jax.vmap(lambda e: fit_kernel_svr(X, z, epsilon=e, gamma=0.1))(eps)
    for k, e in enumerate(eps):
        one = fit_kernel_svr(X, z, epsilon=e, gamma=0.1)
        np.testing.assert_allclose(stacked.dual_coef[k], one.dual_coef, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(stacked.intercept[k], one.intercept, rtol=1e-10)


def test_negative_epsilon(diabetes):
    with pytest.raises(ValueError, match="epsilon must be >= 0.0, got -0.1"):
        fit_kernel_svr(*diabetes, epsilon=-0.1)


def test_C_not_positive(diabetes):
    with pytest.raises(ValueError, match="C must be > 0.0, got 0"):
        fit_kernel_svr(*diabetes, C=0)


def test_y_length_mismatch(diabetes):
    X, z = diabetes
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 442 != 441"):
        fit_kernel_svr(X, z[:-1])
