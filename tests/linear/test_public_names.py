"""Issue 27 (one vocabulary) for jaxclassic.linear and jaxclassic.multiclass: the family's
public names and params types, ``n_classes`` on every params type with classes, ``n_iter`` and
``converged`` on every iterative fit, and defaults equal to the estimators'."""

import inspect
import warnings

import jax
import numpy as np
import pytest

from jaxclassic import linear, multiclass
from jaxclassic.estimators.lasso import Lasso
from jaxclassic.estimators.linear_regression import Ridge


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(48, 3))
    y3 = np.argmax(X @ rng.normal(size=(3, 3)), axis=1).astype(np.int32)
    return X, (y3 == 0).astype(np.int32), y3


def test_all_lists_existing_names_with_the_params_types():
    assert all(hasattr(linear, name) for name in linear.__all__)
    assert len(set(linear.__all__)) == len(linear.__all__)
    for name in ("LinearParams", "LogisticParams", "SoftmaxParams", "LassoParams",
                 "BayesianRidgeParams", "PerceptronParams", "KernelPerceptronParams",
                 "SGDRegressorParams", "OneVsRestParams", "OneVsOneParams", "InferenceResult"):
        assert name in linear.__all__, name
    assert linear.LinearParams is linear.ols.LinearParams
    assert linear.OneVsRestParams is multiclass.OneVsRestParams
    # deprecated names stay importable from their modules but are not listed
    assert "OLSInference" not in linear.__all__ and "LogisticInference" not in linear.__all__


def _assert_static_int(params, expected):
    n = params.n_classes
    assert type(n) is int and n == expected
    assert "n_classes" not in type(params)._fields  # a property: the pytree is unchanged


def test_n_classes_on_every_classifier_params(data):
    X, y2, y3 = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # separation / convergence warnings are not the point
        _assert_static_int(linear.fit_logistic(X, y2, l2=1.0), 2)
        _assert_static_int(linear.fit_softmax(X, y3, l2=1.0), 3)
        _assert_static_int(linear.fit_perceptron(X, y2, max_epochs=5), 2)
        _assert_static_int(linear.fit_perceptron(X, y2, form="dual", max_epochs=5), 2)
        fit = lambda X, y, **kw: linear.fit_logistic(X, y, l2=1.0, **kw)  # noqa: E731
        _assert_static_int(linear.fit_one_vs_rest(fit, X, y3), 3)
        _assert_static_int(linear.fit_one_vs_one(fit, X, y3), 3)


def test_sgd_regressor_reports_converged(data):
    X, _, _ = data
    y = X @ np.array([1.0, -2.0, 0.5]) + 1.0
    params = linear.fit_sgd_regressor(X, y, learning_rate=0.1, schedule="constant", n_epochs=60)
    assert params.converged.dtype == bool and bool(params.converged)
    # a step far too small: the objective is still falling at the end
    slow = linear.fit_sgd_regressor(X, y, learning_rate=1e-4, schedule="constant", n_epochs=60)
    assert not bool(slow.converged)
    assert int(slow.n_iter) == 60


def test_every_iterative_linear_params_has_n_iter_and_converged():
    for params_type in (linear.LogisticParams, linear.SoftmaxParams, linear.LassoParams,
                        linear.BayesianRidgeParams, linear.PerceptronParams,
                        linear.KernelPerceptronParams, linear.SGDRegressorParams):
        assert {"n_iter", "converged"} <= set(params_type._fields), params_type.__name__


@pytest.mark.parametrize("fit, estimator", [(linear.fit_ridge, Ridge), (linear.fit_lasso, Lasso)])
def test_alpha_default_is_the_estimators(fit, estimator, data):
    assert inspect.signature(fit).parameters["alpha"].default == estimator().alpha == 1.0
    X, _, _ = data
    y = X @ np.array([1.0, -2.0, 0.5])
    np.testing.assert_array_equal(fit(X, y).coef, fit(X, y, alpha=1.0).coef)


def test_no_required_or_positional_key():
    for name in linear.__all__ + ["fit_one_vs_rest", "fit_one_vs_one"]:
        func = getattr(linear, name)
        if not callable(func) or isinstance(func, type) or "key" not in getattr(
                inspect.signature(func), "parameters", {}):
            continue
        key = inspect.signature(func).parameters["key"]
        assert key.kind is inspect.Parameter.KEYWORD_ONLY and key.default is None, name


def test_jax_tree_of_params_with_n_classes_is_unchanged(data):
    X, y2, _ = data
    params = linear.fit_logistic(X, y2, l2=1.0)
    assert len(jax.tree_util.tree_leaves(params)) == len(params)
