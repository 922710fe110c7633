"""Tests of jaxclassic.multiclass over non-linear families (x64 on).

References: scikit-learn's ``OneVsRestClassifier`` / ``OneVsOneClassifier`` around
``DecisionTreeClassifier`` (vs ``tree.fit_cart``) and ``LinearDiscriminantAnalysis`` (vs
``discriminant.fit_lda``). The tree data sit on an integer grid (values 0..7) so that the
bin edges CART takes from all rows under one-vs-one's traced weights are the midpoints
scikit-learn takes from each pair's rows, and so that no two splits tie in gain.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import _dispatch, discriminant, linear, multiclass, tree
from jaxclassic.multiclass import (
    OneVsRestParams,
    decision_function,
    fit_one_vs_one,
    fit_one_vs_rest,
    predict,
    predict_proba,
)

fit_stump_tree = functools.partial(tree.fit_cart, task="classification", n_classes=2, max_depth=3)
fit_binary_lda = functools.partial(discriminant.fit_lda, n_classes=2)


@pytest.fixture(scope="module")
def grid_data():
    rng = np.random.default_rng(0)
    n = 240
    y = np.arange(n) % 3
    centers = rng.uniform(2, 5, size=(3, 3))
    X = np.clip(np.round(centers[y] + 1.5 * rng.normal(size=(n, 3))), 0, 7)
    return X, y.astype(np.int32)


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), y.astype(np.int32)


@pytest.fixture(scope="module")
def sk_tree():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=3, random_state=0)


@pytest.mark.full
def test_tree_one_vs_rest_equals_sklearn(grid_data, sk_tree):
    # leaf probabilities are ratios of the same integer counts: equal up to rounding (1e-12)
    from sklearn.multiclass import OneVsRestClassifier

    X, y = grid_data
    params = fit_one_vs_rest(fit_stump_tree, X, y)
    sk = OneVsRestClassifier(sk_tree).fit(X, y)
    np.testing.assert_array_equal(predict(params, X), sk.predict(X))
    np.testing.assert_allclose(predict_proba(params, X), sk.predict_proba(X), atol=1e-12)
    # the binary score of a tree is its positive-class probability (scikit-learn's _predict_binary)
    positive = np.stack([e.predict_proba(X)[:, 1] for e in sk.estimators_], axis=1)
    np.testing.assert_allclose(decision_function(params, X), positive, atol=1e-12)


@pytest.mark.full
def test_tree_one_vs_one_equals_sklearn(grid_data, sk_tree):
    from sklearn.multiclass import OneVsOneClassifier

    X, y = grid_data
    params = fit_one_vs_one(fit_stump_tree, X, y)
    sk = OneVsOneClassifier(sk_tree).fit(X, y)
    np.testing.assert_array_equal(predict(params, X), sk.predict(X))
    np.testing.assert_allclose(decision_function(params, X), sk.decision_function(X), atol=1e-12)


@pytest.mark.full
def test_lda_one_vs_rest_equals_sklearn(iris):
    # both solve the same 4x4 eigen / least-squares problems: 1e-10
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.multiclass import OneVsRestClassifier

    X, y = iris
    params = fit_one_vs_rest(fit_binary_lda, X, y)
    sk = OneVsRestClassifier(LinearDiscriminantAnalysis()).fit(X, y)
    np.testing.assert_array_equal(predict(params, X), sk.predict(X))
    np.testing.assert_allclose(predict_proba(params, X), sk.predict_proba(X), atol=1e-10)


@pytest.mark.full
def test_lda_one_vs_one_predictions_equal_sklearn(iris):
    # scikit-learn's LDA has a decision_function (log-odds) that ours lacks: the binary score
    # here is p(1|x), so the votes (hence predictions) agree, the confidences do not
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.multiclass import OneVsOneClassifier

    X, y = iris
    params = fit_one_vs_one(fit_binary_lda, X, y)
    sk = OneVsOneClassifier(LinearDiscriminantAnalysis()).fit(X, y)
    np.testing.assert_array_equal(predict(params, X), sk.predict(X))
    votes = np.floor(np.asarray(decision_function(params, X)) + 0.5)
    np.testing.assert_array_equal(votes, np.floor(sk.decision_function(X) + 0.5))


@pytest.mark.full
def test_package_wide_and_linear_dispatch(iris):
    X, y = iris
    ovr = fit_one_vs_rest(fit_binary_lda, X, y)
    ovo = fit_one_vs_one(linear.fit_logistic, X, y, l2=1.0)
    for params in (ovr, ovo):
        np.testing.assert_array_equal(_dispatch.predict(params, X), predict(params, X))
        np.testing.assert_array_equal(_dispatch.decision_function(params, X), decision_function(params, X))
        np.testing.assert_array_equal(linear.predict(params, X), predict(params, X))
    np.testing.assert_array_equal(_dispatch.predict_proba(ovr, X), predict_proba(ovr, X))
    assert linear.fit_one_vs_rest is multiclass.fit_one_vs_rest
    assert linear.fit_one_vs_one is multiclass.fit_one_vs_one


def test_one_vs_rest_ties_go_to_the_last_class():
    # scikit-learn's OneVsRestClassifier.predict keeps the latest of equal maxima
    from jaxclassic.linear.logistic import LogisticParams

    est = LogisticParams(jnp.zeros((3, 2)), jnp.array([0.5, 1.0, 1.0]), jnp.zeros(3, jnp.int32),
                         jnp.ones(3, bool), jnp.zeros((3, 2)), jnp.zeros(3, bool))
    np.testing.assert_array_equal(predict(OneVsRestParams(est), jnp.ones((2, 2))), [2, 2])


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(iris):
    X, y = iris
    rng = np.random.default_rng(1)
    X_pad = np.concatenate([X, rng.normal(size=(10, 4)) * 5])
    y_pad = np.concatenate([y, rng.integers(0, 3, 10)]).astype(np.int32)
    sw = np.concatenate([np.ones(len(X)), np.zeros(10)])
    for fit_multi in (fit_one_vs_rest, fit_one_vs_one):
        ref = fit_multi(fit_binary_lda, X, y)
        padded = fit_multi(fit_binary_lda, X_pad, y_pad, sample_weight=sw)
        np.testing.assert_allclose(decision_function(padded, X), decision_function(ref, X), atol=1e-10)


@pytest.mark.full
def test_jit_equals_eager(grid_data):
    X, y = grid_data
    params = fit_one_vs_one(fit_stump_tree, X, y)
    np.testing.assert_array_equal(jax.jit(predict)(params, X), predict(params, X))
    np.testing.assert_array_equal(jax.jit(decision_function)(params, X), decision_function(params, X))


def test_fit_without_a_score_raises(iris):
    # ridge params have predict only: no decision_function / predict_proba to rank classes by
    X, y = iris
    ridge = functools.partial(linear.fit_ridge, alpha=1.0)
    with pytest.raises(TypeError, match="LinearParams.*no decision_function or predict_proba"):
        fit_one_vs_rest(lambda X, y, sample_weight: ridge(X, y.astype(X.dtype), sample_weight=sample_weight), X, y)


def test_fit_not_callable_raises(iris):
    X, y = iris
    with pytest.raises(TypeError, match="fit must be a callable"):
        fit_one_vs_one("fit_lda", X, y)


def test_one_class_raises(iris):
    X, _ = iris
    with pytest.raises(ValueError, match="y must contain at least 2 classes"):
        fit_one_vs_rest(fit_binary_lda, X, np.ones(len(X), np.int32))
