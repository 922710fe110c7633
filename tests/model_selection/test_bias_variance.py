"""Tests of jaxclassic/model_selection/bias_variance.py.

References:
* the decomposition E(h_D(x) - y)^2 = Var + Bias^2 + sigma^2 (ESL eq. 7.9): the three
  estimated parts add up to the directly simulated test error within 4 of its standard
  errors;
* a closed form: the sample mean of n noisy constants has variance sigma^2 / n and no bias
  (within 4 Monte-Carlo standard errors of a variance estimate, 4 * sqrt(2 / B));
* the textbook shapes: with the ridge penalty variance falls and bias rises; with the
  polynomial degree the reverse (ESL Figure 7.2 / §7.3).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.model_selection import bias_variance_decomposition
from tests.model_selection._fits import poly_features, poly_ridge_fit

N, SIGMA2, B = 25, 0.25, 400
X_TEST = jnp.linspace(-0.9, 0.9, 15)[:, None]


def f_true(x):
    return jnp.sin(jnp.pi * x[:, 0])


def sample_dataset(key):
    kx, ke = jax.random.split(key)
    x = jax.random.uniform(kx, (N, 1), minval=-1.0, maxval=1.0)
    return x, f_true(x) + jnp.sqrt(SIGMA2) * jax.random.normal(ke, (N,))


def poly_predict(params, X):
    return poly_features(X, params.coef.shape[0]) @ params.coef + params.intercept


def _run(degree, alpha, key=0, n_datasets=B):
    return bias_variance_decomposition(
        poly_ridge_fit, poly_predict, sample_dataset, n_datasets, X_TEST, f_true, SIGMA2,
        key=jax.random.key(key), hyperparameters={"alpha": alpha}, fit_kwargs={"degree": degree},
    )


@pytest.mark.full
@pytest.mark.parametrize("degree,alpha", [(1, 1e-6), (3, 0.1), (5, 1e-2)])
def test_parts_add_up_to_the_monte_carlo_test_error(degree, alpha):
    r = _run(degree, alpha)
    total = r.avg_bias_sq + r.avg_variance + r.avg_noise
    assert abs(float(total - r.avg_expected_error)) < 4 * float(r.expected_error_se)
    # the estimated variance and bias^2 are the exact split of the mean squared deviation from f
    mse_from_f = jnp.mean((r.predictions - f_true(X_TEST)) ** 2, axis=0)
    np.testing.assert_allclose(r.bias_sq + r.variance, mse_from_f, rtol=1e-10)
    np.testing.assert_allclose(r.noise, np.full(15, SIGMA2))
    np.testing.assert_allclose(r.mean_prediction, r.predictions.mean(axis=0), rtol=1e-12)


def test_variance_falls_and_bias_rises_with_the_ridge_penalty():
    results = [_run(5, alpha) for alpha in (1e-3, 1e-2, 1e-1, 1.0, 10.0)]
    variances = np.array([float(r.avg_variance) for r in results])
    biases = np.array([float(r.avg_bias_sq) for r in results])
    assert np.all(np.diff(variances) < 0), variances
    assert np.all(np.diff(biases) > 0), biases


def test_variance_rises_and_bias_falls_with_the_polynomial_degree():
    results = [_run(degree, 1e-6) for degree in (1, 3, 5)]
    variances = np.array([float(r.avg_variance) for r in results])
    biases = np.array([float(r.avg_bias_sq) for r in results])
    assert np.all(np.diff(variances) > 0), variances
    assert np.all(np.diff(biases) < 0), biases


def test_sample_mean_has_variance_sigma2_over_n_and_no_bias():
    n, sigma2, n_datasets = 10, 0.5, 2000

    def sample(key):
        return jnp.zeros((n, 1)), 2.0 + jnp.sqrt(sigma2) * jax.random.normal(key, (n,))

    def fit_mean(X, y):
        return jnp.mean(y)

    def predict(mean, X):
        return jnp.full(X.shape[0], mean)

    r = bias_variance_decomposition(fit_mean, predict, sample, n_datasets, jnp.zeros((3, 1)),
                                    jnp.full(3, 2.0), sigma2, key=jax.random.key(1))
    tol = 4 * np.sqrt(2 / n_datasets)  # relative standard error of a variance estimate
    np.testing.assert_allclose(r.variance, sigma2 / n, rtol=tol)
    assert float(r.avg_bias_sq) < 4 * (sigma2 / n) / n_datasets  # E[bias_hat^2] = Var / B
    expected = sigma2 / n + sigma2
    assert abs(float(r.avg_expected_error) - expected) < 4 * float(r.expected_error_se)


def test_same_key_same_result_and_no_retrace_for_a_new_penalty():
    from tests.model_selection import _fits

    a = _run(3, 0.1, key=5)
    b = _run(3, 0.1, key=5)
    np.testing.assert_array_equal(a.predictions, b.predictions)
    before = _fits.TRACES["ridge"]
    _run(3, 0.7, key=6)
    assert _fits.TRACES["ridge"] == before


def test_key_none_is_the_default_key():
    a = bias_variance_decomposition(poly_ridge_fit, poly_predict, sample_dataset, B, X_TEST,
                                    f_true, SIGMA2, hyperparameters={"alpha": 0.1},
                                    fit_kwargs={"degree": 3})
    b = _run(3, 0.1, key=0)
    np.testing.assert_array_equal(a.predictions, b.predictions)


def test_deprecated_positional_key_warns_and_gives_the_same_result():
    with pytest.warns(DeprecationWarning, match="key=key"):
        old = bias_variance_decomposition(
            poly_ridge_fit, poly_predict, sample_dataset, jax.random.key(2), B, X_TEST, f_true,
            SIGMA2, hyperparameters={"alpha": 0.1}, fit_kwargs={"degree": 3})
    new = _run(3, 0.1, key=2)
    np.testing.assert_array_equal(old.predictions, new.predictions)
    np.testing.assert_array_equal(old.avg_expected_error, new.avg_expected_error)


# --------------------------------------------------------------------------- bad input
def test_n_datasets_below_two():
    with pytest.raises(ValueError, match="n_datasets must be >= 2, got 1"):
        _run(1, 0.1, n_datasets=1)


def test_negative_noise_var():
    with pytest.raises(ValueError, match="noise_var must be >= 0"):
        bias_variance_decomposition(poly_ridge_fit, poly_predict, sample_dataset, 10,
                                    X_TEST, f_true, -1.0)


def test_noise_var_wrong_shape():
    with pytest.raises(ValueError, match=r"noise_var must be a scalar or have shape \(15,\)"):
        bias_variance_decomposition(poly_ridge_fit, poly_predict, sample_dataset, 10,
                                    X_TEST, f_true, np.ones(4))


def test_f_true_wrong_shape():
    with pytest.raises(ValueError, match=r"f_true must give one value per test point \(15\)"):
        bias_variance_decomposition(poly_ridge_fit, poly_predict, sample_dataset, 10,
                                    X_TEST, np.ones(4), SIGMA2)


def test_fit_not_callable():
    with pytest.raises(TypeError, match="sample_dataset must be callable"):
        bias_variance_decomposition(poly_ridge_fit, poly_predict, None, 10,
                                    X_TEST, f_true, SIGMA2)
