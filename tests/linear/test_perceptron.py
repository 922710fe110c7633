"""Tests of jaxclassic.linear.perceptron (x64 on).

References: Novikoff's bound k <= (R / gamma)^2 on data built with a known margin;
scikit-learn's ``Perceptron(shuffle=False, eta0=1, penalty=None)``, which runs the same
update rule in the same order (weights equal to rounding); the dual form against the primal
(linear kernel: the same updates); a kernel perceptron on XOR.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.linear import decision_function, fit_perceptron, predict
from jaxclassic.linear.perceptron import _fit_primal

N_SAMPLES, N_FEATURES = 120, 5


def _margin_data(seed: int, gamma: float, offset: float = 0.0):
    """Rows with |u.x + offset| >= gamma for a unit u (labels from its sign)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=N_FEATURES)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(20 * N_SAMPLES, N_FEATURES))
    keep = np.abs(X @ u + offset) >= gamma
    X = X[keep][:N_SAMPLES]
    return X, (X @ u + offset > 0).astype(np.int32), u


@pytest.fixture(scope="module")
def separable():
    return _margin_data(0, gamma=0.3)


def test_novikoff_bound_without_intercept(separable):
    X, y, u = separable
    params = fit_perceptron(X, y, fit_intercept=False, max_epochs=1000)
    R = np.linalg.norm(X, axis=1).max()
    gamma = np.min((2 * y - 1) * (X @ u))  # the margin of u, >= 0.3 by construction
    assert bool(params.converged)
    assert 0 < int(params.n_updates) <= (R / gamma) ** 2
    np.testing.assert_array_equal(predict(params, X), y)


def test_novikoff_bound_with_intercept():
    # with an intercept the bound is for the augmented rows (x, 1) and separator (u, c)/|(u, c)|
    X, y, u = _margin_data(1, gamma=0.4, offset=0.7)
    params = fit_perceptron(X, y, max_epochs=1000)
    Xa = np.column_stack([X, np.ones(len(X))])
    ua = np.r_[u, 0.7] / np.linalg.norm(np.r_[u, 0.7])
    R = np.linalg.norm(Xa, axis=1).max()
    gamma = np.min((2 * y - 1) * (Xa @ ua))
    assert bool(params.converged) and int(params.n_updates) <= (R / gamma) ** 2
    np.testing.assert_array_equal(predict(params, X), y)


def test_equals_sklearn_perceptron(separable):
    # same rule (update on y f <= 0, eta = 1, w0 = 0), same order: identical weights
    from sklearn.linear_model import Perceptron

    X, y, _ = separable
    params = fit_perceptron(X, y, max_epochs=200)
    sk = Perceptron(shuffle=False, tol=None, max_iter=200, eta0=1.0).fit(X, y)
    np.testing.assert_allclose(params.coef, sk.coef_[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(params.intercept, sk.intercept_[0], rtol=1e-12)


def test_dual_with_linear_kernel_equals_primal(separable):
    X, y, _ = separable
    primal = fit_perceptron(X, y, max_epochs=200)
    dual = fit_perceptron(X, y, form="dual", max_epochs=200)
    assert int(dual.n_updates) == int(primal.n_updates) == int(dual.alpha.sum())
    np.testing.assert_allclose(X.T @ np.asarray(dual.dual_coef), primal.coef, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(decision_function(dual, X), decision_function(primal, X), atol=1e-10)


@pytest.mark.full
def test_kernel_perceptron_solves_xor():
    # not linearly separable; separable in the feature space of a Gaussian kernel
    def rbf(A, B):
        return jnp.exp(-jnp.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=-1))

    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]] * 3) + np.repeat([[0.0, 0.0], [0.05, -0.05], [-0.05, 0.03]], 4, axis=0)
    y = np.array([0, 0, 1, 1] * 3, np.int32)
    linear = fit_perceptron(X, y, max_epochs=50)
    assert not bool(linear.converged)
    params = fit_perceptron(X, y, form="dual", kernel=rbf, max_epochs=50)
    assert bool(params.converged)
    np.testing.assert_array_equal(predict(params, X, kernel=rbf), y)


def test_zero_weight_rows_never_update(separable):
    X, y, _ = separable
    rng = np.random.default_rng(5)
    Xg = np.concatenate([X[:40], rng.normal(size=(9, N_FEATURES)) * 50, X[40:]])
    yg = np.concatenate([y[:40], rng.integers(0, 2, 9), y[40:]]).astype(np.int32)
    sw = np.concatenate([np.ones(40), np.zeros(9), np.ones(len(X) - 40)])
    base = fit_perceptron(X, y, max_epochs=200)
    padded = fit_perceptron(Xg, yg, sample_weight=sw, max_epochs=200)
    assert int(padded.n_updates) == int(base.n_updates)
    np.testing.assert_allclose(padded.coef, base.coef, rtol=1e-12)
    dual = fit_perceptron(Xg, yg, form="dual", sample_weight=sw, max_epochs=200)
    assert np.all(np.asarray(dual.alpha)[40:49] == 0)


def test_zero_weight_padding_leaves_the_shuffled_fit_unchanged(separable):
    # issue 8.5: the shuffled order permuted all n rows, so zero-weight rows changed which
    # positive rows were visited when (relative coefficient difference 0.27). The order now
    # depends only on the key and the ranks of the positive-weight rows: identical updates.
    X, y, _ = separable
    rng = np.random.default_rng(6)
    Xg = np.concatenate([X[:40], rng.normal(size=(9, N_FEATURES)) * 50, X[40:],
                         np.zeros((7, N_FEATURES))])
    yg = np.concatenate([y[:40], rng.integers(0, 2, 9), y[40:], np.zeros(7)]).astype(np.int32)
    sw = np.concatenate([np.ones(40), np.zeros(9), np.ones(len(X) - 40), np.zeros(7)])
    key = jax.random.key(11)
    base = fit_perceptron(X, y, max_epochs=200, key=key)
    padded = fit_perceptron(Xg, yg, sample_weight=sw, max_epochs=200, key=key)
    assert int(padded.n_updates) == int(base.n_updates) and int(padded.n_iter) == int(base.n_iter)
    np.testing.assert_allclose(padded.coef, base.coef, rtol=1e-12)
    np.testing.assert_allclose(padded.intercept, base.intercept, rtol=1e-12)
    dual = fit_perceptron(X, y, form="dual", max_epochs=200, key=key)
    dual_padded = fit_perceptron(Xg, yg, form="dual", sample_weight=sw, max_epochs=200, key=key)
    keep = sw > 0
    np.testing.assert_array_equal(np.asarray(dual_padded.alpha)[keep], dual.alpha)
    assert np.all(np.asarray(dual_padded.alpha)[~keep] == 0)


def test_learning_rate_only_rescales(separable):
    X, y, _ = separable
    a = fit_perceptron(X, y, max_epochs=200)
    b = fit_perceptron(X, y, learning_rate=0.01, max_epochs=200)
    assert int(a.n_updates) == int(b.n_updates)
    np.testing.assert_allclose(b.coef, 0.01 * a.coef, rtol=1e-10)


def test_shuffle_key_is_deterministic(separable):
    X, y, _ = separable
    a = fit_perceptron(X, y, max_epochs=200, key=jax.random.key(3))
    b = fit_perceptron(X, y, max_epochs=200, key=jax.random.key(3))
    np.testing.assert_array_equal(a.coef, b.coef)
    assert bool(a.converged)
    np.testing.assert_array_equal(predict(a, X), y)


def test_vmap_over_weights_equals_loop_and_no_retrace(separable):
    X, y, _ = separable
    rng = np.random.default_rng(7)
    W = jnp.asarray(rng.integers(0, 3, size=(3, len(X))).astype(float))
    batched = jax.vmap(lambda w: fit_perceptron(X, y, sample_weight=w, max_epochs=200))(W)
    for k in range(3):
        single = fit_perceptron(X, y, sample_weight=W[k], max_epochs=200)
        np.testing.assert_allclose(batched.coef[k], single.coef, rtol=1e-12)
        assert int(batched.n_updates[k]) == int(single.n_updates)
    size = _fit_primal._cache_size()
    fit_perceptron(X[::-1].copy(), y[::-1].copy(), sample_weight=W[0], max_epochs=200)
    assert _fit_primal._cache_size() == size


def test_jit_equals_eager(separable):
    X, y, _ = separable
    eager = fit_perceptron(X, y, max_epochs=200)
    jitted = jax.jit(lambda X, y: fit_perceptron(X, y, max_epochs=200))(X, y)
    np.testing.assert_array_equal(jitted.coef, eager.coef)


def test_float32(separable):
    X, y, _ = separable
    params = fit_perceptron(X.astype(np.float32), y, max_epochs=200)
    assert params.coef.dtype == jnp.float32 and bool(params.converged)


# --------------------------------------------------------------------------- bad input
def test_one_class_raises(separable):
    X, _, _ = separable
    with pytest.raises(ValueError, match="at least 2 classes"):
        fit_perceptron(X, np.ones(len(X), np.int32))


def test_string_labels_raise(separable):
    X, y, _ = separable
    with pytest.raises(TypeError, match="encode string labels"):
        fit_perceptron(X, np.where(y == 1, "p", "n"))


def test_unknown_form_raises(separable):
    X, y, _ = separable
    with pytest.raises(ValueError, match="form must be one of"):
        fit_perceptron(X, y, form="pocket")


def test_non_positive_learning_rate_raises(separable):
    X, y, _ = separable
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        fit_perceptron(X, y, learning_rate=0.0)


def test_kernel_with_primal_raises(separable):
    X, y, _ = separable
    with pytest.raises(ValueError, match="form='dual'"):
        fit_perceptron(X, y, kernel=lambda A, B: A @ B.T)


def test_nan_raises(separable):
    X, y, _ = separable
    Xn = X.copy()
    Xn[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fit_perceptron(Xn, y)
