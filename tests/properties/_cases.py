"""Shared material of the property-based tests: fixed shapes, data strategies, the fits.

Every property draws VALUES (data seeds, weights, permutations, labels), never shapes: each
new shape would be one more XLA compile per fit, so all data here is ``N_SAMPLES x N_FEATURES``
(and the test grid ``N_TEST x N_FEATURES``), and every fit is compiled once per test session.
Hypothesis runs derandomised (``derandomize=True``) so the examples are the same on every run
and CI is reproducible; ``deadline=None`` because the first example of a fit compiles it.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

from jaxclassic import _dispatch

N_SAMPLES, N_FEATURES, N_TEST, N_CLASSES = 24, 3, 16, 3

#: the settings of every property: reproducible, no deadline (first call compiles), few
#: examples (each a fit on a loaded 2-core machine; the suite's time budget)
FAST = settings(max_examples=10, deadline=None, derandomize=True, database=None)
MEDIUM = settings(max_examples=20, deadline=None, derandomize=True, database=None)

seeds = st.integers(min_value=0, max_value=2**31 - 1)
permutations = st.permutations(range(N_SAMPLES))
#: weights with about a third of zeros: 0/1 masks (folds) and small integers (bootstraps)
zero_one_weights = st.lists(st.integers(0, 2), min_size=N_SAMPLES, max_size=N_SAMPLES).map(
    lambda w: np.minimum(np.asarray(w, np.float64), 1.0))


def labels(n_classes: int) -> np.ndarray:
    """Interleaved labels, so every class keeps rows under any mask that keeps the first K."""
    return (np.arange(N_SAMPLES) % n_classes).astype(np.int32)


def make_data(seed: int, kind: str):
    """Data of fixed shape: Gaussian blobs for classifiers, a noisy linear model for regression.

    Returns ``(X, y, X_test)`` in float64.
    """
    rng = np.random.default_rng(seed)
    X_test = rng.normal(size=(N_TEST, N_FEATURES)) * 1.5
    if kind == "regression":
        X = rng.normal(size=(N_SAMPLES, N_FEATURES))
        y = X @ rng.normal(size=N_FEATURES) + 0.5 + rng.normal(scale=0.5, size=N_SAMPLES)
        return X, y, X_test
    n_classes = 2 if kind == "binary" else N_CLASSES
    y = labels(n_classes)
    centres = rng.normal(scale=1.5, size=(n_classes, N_FEATURES))
    X = centres[y] + rng.normal(size=(N_SAMPLES, N_FEATURES))
    return X, y, X_test


class Case(NamedTuple):
    """One fit under test: ``fit(X, y, w) -> params``; ``response(params, X) -> array``
    (probabilities, decision values or predictions, compared with ``rtol``/``atol``)."""

    name: str
    fit: Callable
    response: Callable
    kind: str  # "regression", "binary", "multiclass" or "clustering" (blobs of 3, y unused)
    rtol: float = 1e-8
    atol: float = 1e-10
    order_free: bool = True  # the fit does not depend on the rows' order
    #: compare the responses on the positive-weight training rows instead of the test grid:
    #: trees, where splits of equal gain (tiny nodes, the same partition of the training rows
    #: reached through different features) are broken by rounding, so thresholds may differ
    #: while the partition of the training rows does not
    on_train: bool = False


def _gmm_fit(X, y, w):
    from jaxclassic.cluster import fit_gmm

    # a start made row by row from the labels, so permuting / slicing rows does the same to it
    resp = 0.8 * jax.nn.one_hot(y, N_CLASSES, dtype=X.dtype) + 0.2 / N_CLASSES
    return fit_gmm(X, N_CLASSES, init=resp, sample_weight=w, tol=1e-12, max_iter=200, reg_covar=1e-3)


def _cases():
    from jaxclassic import cluster, discriminant, ensemble, linear, neighbors, svm, tree

    proba = _dispatch.predict_proba
    decision = _dispatch.decision_function
    pred = _dispatch.predict
    return [
        Case("ols", lambda X, y, w: linear.fit_ols(X, y, sample_weight=w), pred, "regression", 1e-8),
        Case("ridge", lambda X, y, w: linear.fit_ridge(X, y, alpha=0.7, sample_weight=w), pred,
             "regression", 1e-8),
        # coordinate descent to a duality gap of 1e-12: the solution to ~1e-6 relative
        Case("lasso", lambda X, y, w: linear.fit_lasso(X, y, alpha=0.05, tol=1e-12, max_iter=5000,
                                                       sample_weight=w), pred, "regression", 1e-6, 1e-8),
        # Newton to its default tolerance: quadratic convergence puts it ~1e-10 from the optimum
        Case("logistic", lambda X, y, w: linear.fit_logistic(X, y, l2=0.5, sample_weight=w), proba,
             "binary", 1e-6, 1e-8),
        Case("softmax", lambda X, y, w: linear.fit_softmax(X, y, n_classes=N_CLASSES, l2=0.5,
                                                           sample_weight=w), proba, "multiclass", 1e-6, 1e-8),
        Case("gaussian_nb", lambda X, y, w: discriminant.fit_gaussian_nb(X, y, n_classes=N_CLASSES,
                                                                         sample_weight=w),
             proba, "multiclass", 1e-8, 1e-10),
        Case("lda", lambda X, y, w: discriminant.fit_lda(X, y, n_classes=N_CLASSES, sample_weight=w),
             proba, "multiclass", 1e-8, 1e-10),
        Case("qda", lambda X, y, w: discriminant.fit_qda(X, y, n_classes=N_CLASSES, reg_param=0.1,
                                                         sample_weight=w), proba, "multiclass", 1e-8, 1e-10),
        # trees: exact comparisons of piecewise-constant predictions (the same splits)
        Case("cart_classification", lambda X, y, w: tree.fit_cart(X, y, max_depth=3, n_classes=N_CLASSES,
                                                                  sample_weight=w),
             proba, "multiclass", 1e-10, 1e-12, on_train=True),
        Case("cart_regression", lambda X, y, w: tree.fit_cart(X, y, task="regression", max_depth=3,
                                                              sample_weight=w), pred, "regression", 1e-10, 1e-12,
             on_train=True),
        Case("gradient_boosting", lambda X, y, w: ensemble.fit_gradient_boosting(
            X, y, n_estimators=3, max_depth=2, learning_rate=0.5, sample_weight=w), pred, "regression",
             1e-10, 1e-12, on_train=True),
        Case("adaboost", lambda X, y, w: ensemble.fit_adaboost(X, y, n_estimators=3, n_classes=2,
                                                               sample_weight=w),
             proba, "binary", 1e-10, 1e-12, on_train=True),
        # a fixed key: bootstrap draws are per row index, so not order-free
        Case("random_forest", lambda X, y, w: ensemble.fit_random_forest(
            X, y, n_estimators=4, max_depth=3, n_classes=N_CLASSES, sample_weight=w, key=jax.random.key(0)),
             proba, "multiclass", 1e-10, 1e-12, order_free=False, on_train=True),
        Case("xgboost", lambda X, y, w: ensemble.fit_xgboost(X, y, n_estimators=3, max_depth=2, learning_rate=0.5,
                                                             reg_lambda=1.0, sample_weight=w),
             pred, "regression", 1e-10, 1e-12, on_train=True),
        # dual coordinate descent visits rows in order, but the primal is strictly convex: the
        # solution (to tol 1e-10) is order-free
        Case("linear_svm", lambda X, y, w: svm.fit_linear_svm(X, y, C=0.5, tol=1e-10, max_iter=20_000,
                                                              sample_weight=w),
             decision, "binary", 1e-6, 1e-7),
        # the perceptron visits rows in order, k-means++ draws rows by index: not order-free
        Case("perceptron", lambda X, y, w: linear.fit_perceptron(X, y, max_epochs=50, sample_weight=w),
             decision, "binary", 1e-10, 1e-12, order_free=False),
        Case("kmeans", lambda X, y, w: cluster.fit_kmeans(X, N_CLASSES, key=jax.random.key(0), sample_weight=w),
             pred, "clustering", 0, 0, order_free=False),
        # SMO to tol 1e-8: the decision function to ~1e-6
        Case("kernel_svm", lambda X, y, w: svm.fit_kernel_svm(X, y, C=0.7, gamma=0.3, tol=1e-8,
                                                              sample_weight=w),
             decision, "binary", 1e-5, 1e-6),
        Case("knn", lambda X, y, w: neighbors.fit_knn(X, y, n_neighbors=5, task="classification",
                                                      n_classes=N_CLASSES, sample_weight=w),
             proba, "multiclass", 1e-10, 1e-12),
        # EM to tol 1e-12 from a start made row by row
        Case("gmm", _gmm_fit, cluster.predict_proba, "multiclass", 1e-5, 1e-7),
    ]


CASES = _cases()
CASE_IDS = [c.name for c in CASES]


def compare_fits(case: Case, params_a, params_b, X, X_test, weight, what: str, *, on_test=False):
    """Assert two fits of ``case`` respond alike: on ``X_test``, or (``case.on_train`` and not
    ``on_test``) on the rows of ``X`` of positive ``weight`` (``X`` in full, so the predict
    program's shape is fixed)."""
    if case.on_train and not on_test:
        keep = np.asarray(weight) > 0
        a = np.asarray(case.response(params_a, X))[keep]
        b = np.asarray(case.response(params_b, X))[keep]
    else:
        a, b = case.response(params_a, X_test), case.response(params_b, X_test)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=case.rtol, atol=case.atol,
                               err_msg=f"{case.name}: {what}")


def as_jnp(*arrays):
    return tuple(jnp.asarray(a) for a in arrays)
