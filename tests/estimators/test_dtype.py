"""The estimators' dtype policy (scikit-learn's): float64 in -> float64, float32 in -> float32,
whatever the global ``jax_enable_x64`` flag; ``set_config(dtype="float32")`` forces float32.

References are independent: scikit-learn's LogisticRegression at a tight tolerance and the
normal equations solved by numpy in float64.
"""

import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest

pytest.importorskip("sklearn")

import jaxclassic.estimators as est  # noqa: E402
from jaxclassic.estimators import _base  # noqa: E402


def _classification(n=80, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X @ np.array([1.0, -2.0, 0.5]) + rng.standard_normal(n) > 0).astype(int)
    return X, y


def _regression(n=60, d=3, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, X @ np.array([1.0, 2.0, -3.0]) + 0.1 * rng.standard_normal(n)


@pytest.mark.full
def test_logistic_float64_input_is_fitted_in_float64_with_x64_off(x64_off):
    from sklearn.linear_model import LogisticRegression as SkLogistic

    X, y = _classification()
    ours = est.LogisticRegression(C=1.0, tol=1e-13).fit(X, y)
    ref = SkLogistic(C=1.0, solver="newton-cholesky", tol=1e-13, max_iter=1000).fit(X, y)
    assert ours.coef_.dtype == np.float64 and ours.intercept_.dtype == np.float64
    proba = ours.predict_proba(X)
    assert proba.dtype == np.float64
    # both Newton to tol 1e-13 at the optimum of the same strictly convex objective: float64
    # agreement (float32 rounding alone leaves ~1e-7 relative, ~1e-7 absolute at |coef| ~ 1)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(proba, ref.predict_proba(X), rtol=0, atol=1e-10)
    # the x64 scope ends with the method: nothing leaks into the caller's configuration
    assert not jax.config.read("jax_enable_x64")
    assert jnp.asarray(1.0).dtype == jnp.float32


@pytest.mark.full
def test_ridge_float64_equals_normal_equations_with_x64_off(x64_off):
    X, y = _regression()
    model = est.Ridge(alpha=0.5).fit(X, y)
    Xc, yc = X - X.mean(0), y - y.mean()
    coef = np.linalg.solve(Xc.T @ Xc + 0.5 * np.eye(3), Xc.T @ yc)  # float64 closed form
    assert model.coef_.dtype == np.float64 and model.predict(X).dtype == np.float64
    np.testing.assert_allclose(model.coef_, coef, rtol=1e-12, atol=0)  # Cholesky vs LU, float64
    np.testing.assert_allclose(model.predict(X), X @ coef + y.mean() - X.mean(0) @ coef,
                               rtol=1e-12, atol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("x64", [False, True])
def test_float32_input_is_fitted_in_float32(x64):
    old = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", x64)
    try:
        X, y = _classification()
        model = est.LogisticRegression().fit(X.astype(np.float32), y)
        assert model.coef_.dtype == np.float32
        assert model.predict_proba(X.astype(np.float32)).dtype == np.float32
    finally:
        jax.config.update("jax_enable_x64", old)


@pytest.mark.full
def test_config_forces_float32(x64_off):
    X, y = _regression()
    with est.config_context(dtype="float32"):
        assert est.get_config() == {"dtype": "float32"}
        model = est.Ridge().fit(X, y)
        assert model.coef_.dtype == np.float32 and model.predict(X).dtype == np.float32
    assert est.get_config() == {"dtype": "auto"}
    # predictions stay in the dtype of the fit after the block
    assert model.predict(X).dtype == np.float32
    assert est.Ridge().fit(X, y).coef_.dtype == np.float64
    est.set_config(dtype="float32")
    try:
        assert est.GaussianNB().fit(*_classification()).theta_.dtype == np.float32
    finally:
        est.set_config(dtype="auto")


def test_set_config_rejects_unknown_dtype():
    with pytest.raises(ValueError, match="dtype must be one of"):
        est.set_config(dtype="float16")


def test_integer_input_is_fitted_in_float64(x64_off):
    X, y = _regression()
    model = est.LinearRegression().fit(np.round(X * 10).astype(np.int64), y)
    assert model.coef_.dtype == np.float64


def test_pickle_keeps_float64_params(x64_off):
    X, y = _classification()
    model = est.LogisticRegression().fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    assert again.params_.coef.dtype == np.float64
    np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))


@pytest.mark.full
def test_float32_model_predicts_float64_input_in_float32(x64_off):
    X, y = _classification()
    model = est.SoftmaxRegression().fit(X.astype(np.float32), y)
    assert model.predict_proba(X).dtype == np.float32


def test_enter_dtype_needs_a_scope():
    with pytest.raises(RuntimeError, match="dtype_scope"):
        _base.enter_dtype(np.float64)


def test_scope_restored_after_an_error(x64_off):
    X, y = _classification()
    with pytest.raises(ValueError, match="C must be > 0"):
        est.LogisticRegression(C=-1.0).fit(X, y)
    with pytest.raises(ValueError):
        est.Ridge().fit(X, np.full(len(X), np.nan))
    assert not jax.config.read("jax_enable_x64") and not _base._stack()
