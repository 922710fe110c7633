"""Tests of jaxclassic/linear/features.py: polynomial_features and standardize.

References: scikit-learn PolynomialFeatures (same column order and powers, exact up to the
rounding of the products) and StandardScaler / numpy (weighted means and std, 1e-12).
There is no loss here, so the three-way test's gradient leg is replaced by a derivative
check of the monomials (autodiff of a column equals the power rule).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.linear import polynomial_features, standardize
from jaxclassic.linear.features import _polynomial_features, _standardize, polynomial_powers

preprocessing = pytest.importorskip("sklearn.preprocessing")


@pytest.fixture(scope="module")
def X():
    return np.random.RandomState(0).randn(20, 3) * np.array([1.0, 10.0, 0.1]) + np.array([0.0, 5.0, -2.0])


# ----------------------------------------------------------------- (1) references
@pytest.mark.full
@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("interaction_only", [False, True])
@pytest.mark.parametrize("include_bias", [False, True])
def test_polynomial_features_equal_sklearn(X, degree, interaction_only, include_bias):
    ref = preprocessing.PolynomialFeatures(degree, interaction_only=interaction_only,
                                           include_bias=include_bias).fit(X)
    ours = polynomial_features(X, degree, interaction_only=interaction_only, include_bias=include_bias)
    np.testing.assert_array_equal(
        polynomial_powers(3, degree, interaction_only=interaction_only, include_bias=include_bias),
        ref.powers_)
    np.testing.assert_allclose(np.asarray(ours), ref.transform(X), rtol=1e-13)


def test_degree_zero_with_bias_is_the_constant(X):
    np.testing.assert_array_equal(np.asarray(polynomial_features(X, 0, include_bias=True)), np.ones((20, 1)))


def test_standardize_equals_sklearn_and_weighted_formula(X):
    Z, mean, scale = standardize(X)
    ref = preprocessing.StandardScaler().fit(X)
    np.testing.assert_allclose(np.asarray(Z), ref.transform(X), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(np.asarray(scale), ref.scale_, rtol=1e-12)
    w = np.random.RandomState(1).uniform(0.1, 3.0, 20)
    Z, mean, scale = standardize(X, sample_weight=w)
    m = np.average(X, 0, w)
    np.testing.assert_allclose(np.asarray(mean), m, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(scale), np.sqrt(np.average((X - m) ** 2, 0, w)), rtol=1e-12)
    _, _, scale1 = standardize(X, ddof=1)
    np.testing.assert_allclose(np.asarray(scale1), X.std(0, ddof=1), rtol=1e-12)


def test_zero_variance_column_gets_scale_one(X):
    Xk = np.c_[X, np.full(20, 4.2), np.zeros(20)]
    Z, mean, scale = standardize(Xk)
    np.testing.assert_array_equal(np.asarray(scale[3:]), [1.0, 1.0])
    assert float(jnp.abs(Z[:, 3:]).max()) < 1e-13  # zeros up to the rounding of the mean
    np.testing.assert_allclose(np.asarray(scale[3:]), preprocessing.StandardScaler().fit(Xk).scale_[3:])


# ----------------------------------------------------------------- (2) derivatives
def test_autodiff_of_monomials_equals_power_rule(X):
    powers = polynomial_powers(3, 3)
    x = jnp.asarray(X[0])
    jac = jax.jacfwd(lambda v: polynomial_features(v[None, :], 3)[0])(x)
    xs = np.asarray(x)
    for k, p in enumerate(powers):
        for j in range(3):
            if p[j] == 0:
                expected = 0.0
            else:
                q = p.copy()
                q[j] -= 1
                expected = p[j] * np.prod(xs ** q)
            np.testing.assert_allclose(float(jac[k, j]), expected, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------- (3) transformations
def test_jit_vmap_zero_weights_and_no_retrace(X):
    eager = polynomial_features(X, 2)
    jitted = jax.jit(lambda X: polynomial_features(X, 2))(X)
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(eager))
    rows = jax.vmap(lambda row: polynomial_features(row[None, :], 2)[0])(jnp.asarray(X))
    np.testing.assert_allclose(np.asarray(rows), np.asarray(eager), rtol=1e-15)
    weights = jnp.asarray(np.stack([(np.arange(20) % 2 == k).astype(float) for k in range(2)]))
    batched = jax.vmap(lambda w: standardize(X, sample_weight=w))(weights)
    for k in range(2):
        one = standardize(X, sample_weight=weights[k])
        np.testing.assert_allclose(np.asarray(batched.scale[k]), np.asarray(one.scale), rtol=1e-12)
        # zero-weight rows have no influence on the statistics
        alone = standardize(X[np.asarray(weights[k]) > 0])
        np.testing.assert_allclose(np.asarray(one.mean), np.asarray(alone.mean), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(one.scale), np.asarray(alone.scale), rtol=1e-12)
    before = _polynomial_features._cache_size(), _standardize._cache_size()
    polynomial_features(X + 1.0, 2)
    standardize(X * 2.0)
    assert (_polynomial_features._cache_size(), _standardize._cache_size()) == before


def test_float32_keeps_dtype(X):
    X32 = X.astype(np.float32)
    assert polynomial_features(X32, 2).dtype == jnp.float32
    assert standardize(X32).X.dtype == jnp.float32


# ----------------------------------------------------------------- bad input
def test_negative_degree_is_rejected(X):
    with pytest.raises(ValueError, match="degree must be >= 0, got -1"):
        polynomial_features(X, -1)


def test_degree_zero_without_bias_is_rejected(X):
    with pytest.raises(ValueError, match="would produce no columns"):
        polynomial_features(X, 0)


def test_non_integer_degree_is_rejected(X):
    with pytest.raises(TypeError, match="degree must be an int"):
        polynomial_features(X, 2.0)


def test_nan_is_rejected(X):
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        standardize(X)


def test_ddof_not_below_total_weight_is_rejected(X):
    with pytest.raises(ValueError, match="ddof=1 must be smaller than the total sample weight"):
        standardize(X[:1], ddof=1)
