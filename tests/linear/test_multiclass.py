"""Tests of jaxclassic.linear.multiclass (x64 on): the linear family's aliases of
jaxclassic.multiclass (generic over any binary fit; tests over trees / LDA in
tests/test_multiclass.py), reached through linear's dispatchers.

References: scikit-learn's ``OneVsRestClassifier`` / ``OneVsOneClassifier`` around
``LogisticRegression(C=1)`` (same binary problems, same voting rule), on iris (150 x 4).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.linear import (
    decision_function,
    fit_logistic,
    fit_one_vs_one,
    fit_one_vs_rest,
    fit_perceptron,
    predict,
    predict_proba,
)
from jaxclassic.linear.logistic import _fit_logistic
from jaxclassic.linear.multiclass import _ovo_decision


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), y.astype(np.int32)


@pytest.fixture(scope="module")
def sk_logistic():
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=1000)


@pytest.mark.full
def test_one_vs_rest_equals_sklearn(iris, sk_logistic):
    # each binary fit stops at |grad J|/n <= 1e-8, which leaves parameters within about
    # 1e-8 / lambda_min(H/n) ~ 1e-7 of the optimum; sklearn (tol 1e-12) is at the optimum
    from sklearn.multiclass import OneVsRestClassifier

    X, y = iris
    params = fit_one_vs_rest(fit_logistic, X, y, l2=1.0)
    sk = OneVsRestClassifier(sk_logistic).fit(X, y)
    assert params.estimators.coef.shape == (3, 4)
    np.testing.assert_allclose(decision_function(params, X), sk.decision_function(X), atol=1e-7)
    np.testing.assert_allclose(predict_proba(params, X), sk.predict_proba(X), atol=1e-7)
    np.testing.assert_array_equal(predict(params, X), sk.predict(X))


@pytest.mark.full
def test_one_vs_one_equals_sklearn(iris, sk_logistic):
    from sklearn.multiclass import OneVsOneClassifier

    X, y = iris
    params = fit_one_vs_one(fit_logistic, X, y, l2=1.0)
    sk = OneVsOneClassifier(sk_logistic).fit(X, y)
    np.testing.assert_array_equal(params.pairs, [[0, 1], [0, 2], [1, 2]])
    np.testing.assert_allclose(decision_function(params, X), sk.decision_function(X), atol=1e-7)
    np.testing.assert_array_equal(predict(params, X), sk.predict(X))


@pytest.mark.full
def test_one_vs_one_pair_fit_equals_fit_on_the_pair_rows(iris):
    # the weight mask restricts pair (1, 2) to its rows: equal to fitting those rows alone
    X, y = iris
    params = fit_one_vs_one(fit_logistic, X, y, l2=1.0)
    rows = y > 0
    alone = fit_logistic(X[rows], (y[rows] == 2).astype(np.int32), l2=1.0)
    np.testing.assert_allclose(params.estimators.coef[2], alone.coef, rtol=1e-9, atol=1e-10)


@pytest.mark.full
def test_vote_ties_broken_by_summed_confidence():
    # 3 classes, 3 pairs: scores making a 1-1-1 vote cycle; the confidences decide.
    from sklearn.multiclass import _ovr_decision_function

    scores = np.array([[0.5, -2.0, 0.1], [-0.3, 0.2, -0.4]])  # pairs (0,1), (0,2), (1,2)
    ours = _ovo_decision_from_scores(scores)
    ref = _ovr_decision_function(scores > 0, scores, 3)
    np.testing.assert_allclose(ours, ref, atol=1e-12)


def _ovo_decision_from_scores(scores):
    from jaxclassic.linear.multiclass import OneVsOneParams
    from jaxclassic.linear.logistic import LogisticParams

    # a stack of 1-feature logistic "fits" whose decision at x = 1 is the given score
    n_pairs = scores.shape[1]
    out = []
    for row in scores:
        est = LogisticParams(jnp.asarray(row)[:, None], jnp.zeros(n_pairs), jnp.zeros(n_pairs, jnp.int32),
                             jnp.ones(n_pairs, bool), jnp.zeros((n_pairs, 1)), jnp.zeros(n_pairs, bool))
        params = OneVsOneParams(est, jnp.array([[0, 1], [0, 2], [1, 2]], jnp.int32))
        out.append(np.asarray(_ovo_decision(params, jnp.ones((1, 1))))[0])
    return np.array(out)


@pytest.mark.full
def test_any_binary_fit_works_perceptron(iris):
    # OvR around the perceptron: estimator k is fit_perceptron on "class k vs rest"
    X, y = iris
    params = fit_one_vs_rest(fit_perceptron, X, y, max_epochs=20)  # versicolor: not separable
    assert params.estimators.coef.shape == (3, 4)
    setosa = fit_perceptron(X, (y == 0).astype(np.int32), max_epochs=20)
    assert bool(setosa.converged) and bool(params.estimators.converged[0])
    assert not bool(params.estimators.converged[1])
    np.testing.assert_allclose(params.estimators.coef[0], setosa.coef, rtol=1e-12)
    scores = np.stack([np.asarray(decision_function(
        fit_perceptron(X, (y == k).astype(np.int32), max_epochs=20), X)) for k in range(3)], axis=1)
    np.testing.assert_allclose(decision_function(params, X), scores, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(predict(params, X), np.argmax(scores, axis=1))


@pytest.mark.full
def test_vmapped_fits_compile_once(iris):
    X, y = iris
    fit_one_vs_rest(fit_logistic, X, y, l2=1.0)
    size = _fit_logistic._cache_size()
    params = fit_one_vs_rest(fit_logistic, X, y[::-1].copy(), l2=0.5)
    assert _fit_logistic._cache_size() == size
    assert np.all(np.asarray(params.estimators.converged))


def test_traced_labels_need_n_classes(iris):
    X, y = iris
    with pytest.raises(ValueError, match="n_classes must be given"):
        jax.jit(lambda y: fit_one_vs_rest(fit_logistic, X, y).estimators.coef)(y)


def test_one_class_raises(iris):
    X, _ = iris
    with pytest.raises(ValueError, match="at least 2 classes"):
        fit_one_vs_one(fit_logistic, X, np.zeros(len(X), np.int32))


def test_string_labels_raise(iris):
    X, y = iris
    with pytest.raises(TypeError, match="encode string labels"):
        fit_one_vs_rest(fit_logistic, X, np.array(["a", "b", "c"])[y])


def test_nan_raises(iris):
    X, y = iris
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fit_one_vs_rest(fit_logistic, Xn, y)


def test_separated_binary_fit_warns_after_the_vmap(iris):
    # setosa vs rest is linearly separable: with l2 = 0 that logistic fit stops at a
    # separating iterate; the warning it cannot raise inside vmap is raised afterwards
    X, y = iris
    with pytest.warns(UserWarning, match=r"binary fit\(s\) \[0\]"):
        params = fit_one_vs_rest(fit_logistic, X, y, l2=0.0)
    assert bool(params.estimators.separated[0]) and np.all(np.isfinite(params.estimators.coef))
