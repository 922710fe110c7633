"""Issue 8.2: prediction with integer ``X`` promotes X to the params' float dtype.

Before, every linear params type cast its parameters to X's dtype: ridge coefficients
truncated to integers (predictions of 0 when |coef| < 1) and ``predict_proba`` of an int X
raised inside JAX. Reference: the same values passed as float64 (exact: the promotion is
exact for small integers, so equality is to the last bit, rtol 0).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.linear import (
    decision_function,
    fit_logistic,
    fit_one_vs_rest,
    fit_perceptron,
    fit_ridge,
    fit_sgd_regressor,
    fit_softmax,
    predict,
    predict_proba,
)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.integers(-3, 4, size=(40, 3))
    f = X @ np.array([0.4, -0.3, 0.2]) + 0.1
    y = (f + 0.3 * rng.normal(size=40) > 0).astype(np.int32)
    y3 = np.digitize(f, [-0.5, 0.5]).astype(np.int32)
    return X, f, y, y3


def _fits(X, f, y, y3):
    Xf = X.astype(np.float64)
    return {
        "ridge": fit_ridge(Xf, f, alpha=0.1),
        "sgd": fit_sgd_regressor(Xf, f, key=jax.random.key(0), n_epochs=2),
        "logistic": fit_logistic(Xf, y, l2=1.0),
        "softmax": fit_softmax(Xf, y3, l2=1.0),
        "perceptron": fit_perceptron(Xf, y),
        "dual_perceptron": fit_perceptron(Xf, y, form="dual"),
        "one_vs_rest": fit_one_vs_rest(fit_logistic, Xf, y3, l2=1.0),
    }


@pytest.mark.parametrize("name", ["ridge", "sgd", "logistic", "softmax", "perceptron",
                                  "dual_perceptron", "one_vs_rest"])
@pytest.mark.full
def test_integer_X_predicts_as_float_X(data, name):
    X, f, y, y3 = data
    params = _fits(X, f, y, y3)[name]
    functions = [predict]
    if name in ("logistic", "softmax", "one_vs_rest"):
        functions += [predict_proba, decision_function]
    if "perceptron" in name:
        functions += [decision_function]
    for fn in functions:
        as_int = fn(params, X.astype(np.int32))
        as_float = fn(params, X.astype(np.float64))
        np.testing.assert_array_equal(np.asarray(as_int), np.asarray(as_float), err_msg=fn.__name__ if hasattr(fn, "__name__") else str(fn))
    if name == "ridge":  # the symptom: coefficients below 1 truncated to 0
        assert np.abs(np.asarray(predict(params, X.astype(np.int32)))).max() > 0.5


def test_float32_X_with_float64_params_predicts_in_float64(data):
    X, f, y, _ = data
    params = fit_logistic(X.astype(np.float64), y, l2=1.0)
    out = decision_function(params, X.astype(np.float32))
    assert out.dtype == jnp.float64


def test_prediction_checks_the_number_of_features(data):
    X, f, y, _ = data
    params = fit_logistic(X.astype(np.float64), y, l2=1.0)
    with pytest.raises(ValueError, match="X has 2 features, but the model was fitted with 3"):
        predict(params, X[:, :2])
    with pytest.raises(ValueError, match="X has 2 features, but the model was fitted with 3"):
        predict(fit_ridge(X.astype(np.float64), f, alpha=0.1), X[:, :2])
