"""AdaBoost / SAMME against scikit-learn's AdaBoostClassifier, the training-error bound and the
exponential loss.

Data. Exact comparisons (estimator weights, errors, decision function, probabilities,
importances to 1e-10 in float64) use real data binned exactly: the first 250 rows of
breast_cancer (binary; at most 250 distinct values per feature <= n_bins = 255) and wine
(3 classes, 178 rows). Every round's best stump is checked to be unique (margin > 1e-9 over
the runner-up, by an exhaustive numpy search at scikit-learn's weights), so scikit-learn's
random feature order cannot break a tie differently. On all of breast_cancer (up to 547
distinct values: quantile bins, not exact) the held-out accuracy is compared within a margin.
Shapes are shared across tests so each program compiles once.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from jaxclassic import losses
from jaxclassic import tree
from jaxclassic.datasets import load_breast_cancer, load_wine
from jaxclassic.ensemble import adaboost as ada
from jaxclassic.ensemble import (
    decision_function,
    feature_importances,
    fit_adaboost,
    predict,
    predict_proba,
    staged_decision_function,
    staged_predict,
    training_error_bound,
)

T = 30
_BC_X, _BC_Y = load_breast_cancer(return_X_y=True)
XB, YB = _BC_X[:250], _BC_Y[:250]
XW, YW = load_wine(return_X_y=True)


def _sklearn(X, y, n_estimators=T, learning_rate=1.0, max_depth=1):
    return AdaBoostClassifier(DecisionTreeClassifier(max_depth=max_depth), n_estimators=n_estimators,
                              learning_rate=learning_rate, random_state=0).fit(X, y)


def _stump_margins(X, y, sk):
    """Relative gap between the best and the second-best stump (weighted gini decrease over
    every feature and threshold) at each round's weights, replayed from scikit-learn's fit."""
    n, K = len(y), int(y.max()) + 1
    onehot = np.eye(K)[y]
    w = np.full(n, 1.0 / n)
    margins = []
    for est, alpha in zip(sk.estimators_, sk.estimator_weights_):
        gains = []
        for j in range(X.shape[1]):
            order = np.argsort(X[:, j], kind="stable")
            xs, c = X[order, j], np.cumsum(onehot[order] * w[order, None], axis=0)
            cut = np.flatnonzero(xs[1:] != xs[:-1])  # left = sorted rows 0..cut
            left, total = c[cut], c[-1]
            right = total - left
            loss = lambda s: s.sum(-1) - (s**2).sum(-1) / s.sum(-1)
            gains.append(loss(total) - loss(left) - loss(right))
        g = np.sort(np.concatenate(gains))[::-1]
        margins.append((g[0] - g[1]) / g[0])
        miss = est.predict(X) != y
        w = w * np.exp(alpha * miss)
        w /= w.sum()
    return np.array(margins)


@pytest.fixture(scope="module")
def binary():
    return fit_adaboost(XB, YB, n_estimators=T), _sklearn(XB, YB)


@pytest.fixture(scope="module")
def wine():
    return fit_adaboost(XW, YW, n_estimators=T), _sklearn(XW, YW)


# --------------------------------------------------------------------------- scikit-learn
@pytest.mark.full
@pytest.mark.parametrize("data", ["binary", "wine"])
def test_equals_sklearn_stumps_with_exact_bins(data, request):
    # float64, exact binning, unique best stump every round: equal to rounding (1e-10)
    params, sk = request.getfixturevalue(data)
    X, y = (XB, YB) if data == "binary" else (XW, YW)
    assert max(len(np.unique(c)) for c in X.T) <= 255
    assert np.all(_stump_margins(X, y, sk) > 1e-9)
    assert int(params.n_estimators_used) == len(sk.estimators_) == T
    np.testing.assert_allclose(params.estimator_weights, sk.estimator_weights_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(params.estimator_errors, sk.estimator_errors_, rtol=0, atol=1e-10)
    for m in (0, T // 2, T - 1):  # the stumps themselves
        stump = jax.tree.map(lambda a: a[m], params.estimators)
        ref = sk.estimators_[m].tree_
        assert int(stump.feature[0]) == ref.feature[0]
        # scikit-learn's trees split float32 copies of X: its thresholds are float32 midpoints
        np.testing.assert_allclose(stump.threshold[0], ref.threshold[0], rtol=1e-6)
    np.testing.assert_allclose(decision_function(params, X), sk.decision_function(X), rtol=0, atol=1e-10)
    np.testing.assert_allclose(predict_proba(params, X), sk.predict_proba(X), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(predict(params, X), sk.predict(X))
    np.testing.assert_allclose(feature_importances(params), sk.feature_importances_, rtol=0, atol=1e-10)
    staged = np.asarray(staged_decision_function(params, X))
    for m, ref in enumerate(sk.staged_decision_function(X)):
        np.testing.assert_allclose(staged[m], ref, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(staged_predict(params, X)[-1], sk.predict(X))


@pytest.mark.full
def test_learning_rate_equals_sklearn():
    params = fit_adaboost(XW, YW, n_estimators=T, learning_rate=0.5)  # traced: no recompile
    sk = _sklearn(XW, YW, learning_rate=0.5)
    np.testing.assert_allclose(params.estimator_weights, sk.estimator_weights_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(decision_function(params, XW), sk.decision_function(XW), rtol=0, atol=1e-10)


@pytest.mark.full
def test_depth_two_trees_equal_sklearn_on_the_training_rows():
    # deeper trees route the training rows alike (raw thresholds may differ between rows)
    params = fit_adaboost(XW, YW, n_estimators=T, max_depth=2)
    sk = _sklearn(XW, YW, max_depth=2)
    np.testing.assert_allclose(params.estimator_weights, sk.estimator_weights_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(params.estimator_errors, sk.estimator_errors_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(decision_function(params, XW), sk.decision_function(XW), rtol=0, atol=1e-10)


@pytest.mark.full
def test_held_out_accuracy_near_sklearn_with_quantile_bins():
    # all of breast_cancer: 255 quantile bins (not exact), so the stumps differ; the held-out
    # accuracy of 50 stumps stays within 3 points of scikit-learn's (169 test rows: 5 rows)
    perm = np.random.default_rng(0).permutation(len(_BC_Y))
    train, test = perm[:400], perm[400:]
    params = fit_adaboost(_BC_X[train], _BC_Y[train], n_estimators=50)
    sk = _sklearn(_BC_X[train], _BC_Y[train], n_estimators=50)
    ours = np.mean(np.asarray(predict(params, _BC_X[test])) == _BC_Y[test])
    ref = sk.score(_BC_X[test], _BC_Y[test])
    assert ours > 0.93 and abs(ours - ref) <= 0.03


# --------------------------------------------------------------------------- theory
@pytest.mark.full
@pytest.mark.parametrize("data", ["binary", "wine"])
def test_training_error_below_product_of_Z_every_round(data, request):
    # error <= prod_m Z_m exp(-alpha_m / 2); at eta = 1 each factor is 2 sqrt(eps (1 - eps))
    # (K = 2, the textbook bound) or K sqrt(eps (1 - eps) / (K - 1)) (SAMME)
    params, _ = request.getfixturevalue(data)
    X, y = (XB, YB) if data == "binary" else (XW, YW)
    K = params.n_classes
    err = np.mean(np.asarray(staged_predict(params, X)) != y[None], axis=1)
    bound = np.asarray(training_error_bound(params))
    assert np.all(err <= bound + 1e-12)
    eps = np.asarray(params.estimator_errors)
    np.testing.assert_allclose(np.asarray(params.Z), K * (1 - eps), rtol=1e-12)
    np.testing.assert_allclose(bound, np.cumprod(K * np.sqrt(eps * (1 - eps) / (K - 1))), rtol=1e-10)


@pytest.mark.full
def test_bound_holds_with_learning_rate():
    params = fit_adaboost(XB, YB, n_estimators=T, learning_rate=0.3)
    err = np.mean(np.asarray(staged_predict(params, XB)) != YB[None], axis=1)
    assert np.all(err <= np.asarray(training_error_bound(params)) + 1e-12)


@pytest.mark.full
def test_alpha_minimises_the_exponential_loss_stagewise(binary):
    # ESL 10.4: with F_{m-1} = sum_{l<m} alpha_l h_l (h in {-1, +1}) the weights are
    # proportional to exp(-y F_{m-1} / 2), so alpha_m minimises
    # sum_i w1_i exp(-y_i (F_{m-1} + a h_m) / 2) over a: grad (autodiff of losses.exponential) = 0
    params, _ = binary
    ys = 2.0 * YB - 1
    h = np.stack([2.0 * np.asarray(tree.predict(jax.tree.map(lambda a: a[m], params.estimators), XB)) - 1
                  for m in range(T)])
    alpha = np.asarray(params.estimator_weights)
    w1 = np.full(len(YB), 1.0 / len(YB))

    def risk(a, F, hm):
        return jnp.sum(w1 * losses.exponential(ys, (F + a * hm) / 2))

    F = np.zeros(len(YB))
    for m in range(T):
        g = jax.grad(risk)(alpha[m], F, h[m])
        assert abs(float(g)) <= 1e-10 * float(risk(alpha[m], F, h[m]))
        # and it is a minimum: the loss rises on both sides
        assert risk(alpha[m] * 0.9, F, h[m]) > risk(alpha[m], F, h[m]) < risk(alpha[m] * 1.1, F, h[m])
        F = F + alpha[m] * h[m]
    # the ½ log convention: Z_m exp(-alpha_m / 2) is the textbook normaliser 2 sqrt(eps (1 - eps))
    eps = np.asarray(params.estimator_errors)
    np.testing.assert_allclose(np.asarray(params.Z) * np.exp(-alpha / 2), 2 * np.sqrt(eps * (1 - eps)), rtol=1e-12)


# --------------------------------------------------------------------------- stop rules
def test_perfect_stump_stops_with_weight_one_as_sklearn():
    y = (XB[:, 0] > np.median(XB[:, 0])).astype(int)  # one stump separates: eps = 0
    params = fit_adaboost(XB, y, n_estimators=T)
    sk = _sklearn(XB, y)
    assert int(params.n_estimators_used) == len(sk.estimators_) == 1
    np.testing.assert_array_equal(params.estimator_weights, sk.estimator_weights_)  # [1, 0, ...]
    np.testing.assert_array_equal(params.estimator_errors, sk.estimator_errors_)  # [0, 1, ...]
    np.testing.assert_allclose(params.Z, np.ones(T), rtol=1e-14)  # the sum of the weights
    assert np.all(np.asarray(params.estimators.n_nodes[1:]) == 1)  # empty trees after the stop
    np.testing.assert_array_equal(predict(params, XB), y)
    np.testing.assert_allclose(decision_function(params, XB), sk.decision_function(XB), atol=1e-12)


def test_first_tree_no_better_than_chance_raises():
    X = np.ones_like(XB)  # no split: the root predicts class 0, error 1/2 >= 1 - 1/K
    y = np.arange(len(XB)) % 2
    with pytest.raises(ValueError, match="no better than chance"):
        fit_adaboost(X, y, n_estimators=T)


# --------------------------------------------------------------------------- weights, jit, vmap
@pytest.mark.full
def test_zero_weight_rows_have_no_influence():
    # the held-out rows of breast_cancer (real values, so they would move the bins) at weight 0
    perm = np.random.default_rng(0).permutation(len(_BC_Y))
    train = perm[:400]
    w = np.zeros(len(_BC_Y))
    w[train] = 1.0
    weighted = fit_adaboost(_BC_X, _BC_Y, n_estimators=50, sample_weight=w)
    sliced = fit_adaboost(_BC_X[train], _BC_Y[train], n_estimators=50)
    for a, b in zip(jax.tree.leaves(weighted._replace(estimators=None)), jax.tree.leaves(sliced._replace(estimators=None))):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
    for field in ("feature", "threshold", "value", "is_leaf"):
        np.testing.assert_allclose(getattr(weighted.estimators, field), getattr(sliced.estimators, field),
                                   rtol=0, atol=1e-12)
    np.testing.assert_allclose(decision_function(weighted, _BC_X), decision_function(sliced, _BC_X), atol=1e-12)


@pytest.mark.full
def test_vmap_over_learning_rates_equals_loop_and_no_retrace():
    rates = jnp.array([0.2, 0.7, 1.0])
    size = ada._program._cache_size()
    loop = [fit_adaboost(XB, YB, n_estimators=T, learning_rate=r) for r in rates]
    assert ada._program._cache_size() <= size + 1  # one program for every rate (traced)
    size = ada._program._cache_size()
    fit_adaboost(XB, YB, n_estimators=T, learning_rate=0.4)
    assert ada._program._cache_size() == size  # a second call with the same shapes: no retrace
    batched = jax.vmap(lambda r: fit_adaboost(XB, YB, n_estimators=T, learning_rate=r))(rates)
    for i, one in enumerate(loop):
        np.testing.assert_allclose(batched.estimator_weights[i], one.estimator_weights, rtol=1e-12)
        np.testing.assert_allclose(batched.Z[i], one.Z, rtol=1e-12)
        np.testing.assert_array_equal(batched.estimators.feature[i], one.estimators.feature)
        sliced = jax.tree.map(lambda a: a[i], batched)
        np.testing.assert_allclose(decision_function(sliced, XB), decision_function(one, XB), atol=1e-12)


def test_jit_of_predictions_equals_eager(binary):
    params, _ = binary
    np.testing.assert_allclose(jax.jit(ada._decision_function)(params, XB), decision_function(params, XB))
    assert predict(params, XB).dtype == jnp.int32


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("n_estimators", [0, -3])
def test_bad_n_estimators(n_estimators):
    with pytest.raises(ValueError, match="n_estimators must be >= 1"):
        fit_adaboost(XB, YB, n_estimators=n_estimators)


@pytest.mark.parametrize("learning_rate", [0.0, -1.0])
def test_bad_learning_rate(learning_rate):
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        fit_adaboost(XB, YB, learning_rate=learning_rate)


def test_one_class_is_an_error():
    with pytest.raises(ValueError, match="y must contain at least 2 classes"):
        fit_adaboost(XB, np.zeros(len(YB), int))


def test_nan_in_X_is_an_error():
    X = XB.copy()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="X"):
        fit_adaboost(X, YB)


def test_bad_algorithm_and_depth():
    with pytest.raises(ValueError, match="algorithm must be one of"):
        fit_adaboost(XB, YB, algorithm="SAMME.R")
    with pytest.raises(ValueError, match="max_depth must be >= 1"):
        fit_adaboost(XB, YB, max_depth=0)


def test_predict_checks_features(binary):
    params, _ = binary
    with pytest.raises(ValueError, match="features"):
        predict(params, XB[:, :5])
