"""Tests of jaxclassic/ensemble/gradient_boosting.py.

Reference: scikit-learn's GradientBoostingRegressor / GradientBoostingClassifier (default
criterion friedman_mse: the same splits as the sum of squares) on features with at most
``n_bins`` distinct values (exact binning): equal training predictions to ~1e-12 in
float64 for squared error and binary log-loss (the same trees, the same Newton line search
sum w(y-p) / sum w p(1-p)); for absolute error the first 5 rounds (later rounds can meet
exact ties of the gain, the residuals being +-1, which the two sides break differently:
we take the lower feature index, scikit-learn its random feature order; see
tests/ensemble/test_review.py, where one random_state agrees for all 20 rounds).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

from jaxclassic import ensemble
from jaxclassic.ensemble.gradient_boosting import _program

N, F = 300, 4
KW = dict(n_estimators=20, max_depth=3, learning_rate=0.1)


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(N, F)) * 4) / 4
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + rng.normal(size=N) * 0.3
    return X, y


@pytest.fixture(scope="module")
def squared():
    X, y = _data()
    return X, y, ensemble.fit_gradient_boosting(X, y, **KW)


def test_squared_error_equals_sklearn(squared):
    X, y, ours = squared
    ref = GradientBoostingRegressor(loss="squared_error", random_state=0, **KW).fit(X, y)
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X)), ref.predict(X), atol=1e-12)
    for t in range(3):  # the same first splits (root and its children)
        sk = ref.estimators_[t, 0].tree_
        tree = jax.tree.map(lambda a: np.asarray(a[t, 0]), ours.trees)
        assert tree.feature[0] == sk.feature[0] and tree.threshold[0] == sk.threshold[0]
        for ours_child, sk_child in ((tree.children_left[0], sk.children_left[0]),
                                     (tree.children_right[0], sk.children_right[0])):
            assert tree.feature[ours_child] == sk.feature[sk_child]
            assert tree.threshold[ours_child] == sk.threshold[sk_child]
    np.testing.assert_allclose(np.asarray(ours.train_loss) * 2, ref.train_score_, rtol=1e-10)


def test_log_loss_equals_sklearn():
    X, y = _data()
    yb = (y > 0.5).astype(int)
    ours = ensemble.fit_gradient_boosting(X, yb, loss="log_loss", **KW)
    ref = GradientBoostingClassifier(random_state=0, **KW).fit(X, yb)
    np.testing.assert_allclose(np.asarray(ensemble.decision_function(ours, X)), ref.decision_function(X), atol=1e-10)
    np.testing.assert_allclose(np.asarray(ensemble.predict_proba(ours, X)), ref.predict_proba(X), atol=1e-10)
    assert np.array_equal(np.asarray(ensemble.predict(ours, X)), ref.predict(X))


def test_absolute_error_equals_sklearn_first_rounds():
    X, y = _data()
    ours = ensemble.fit_gradient_boosting(X, y, loss="absolute", **KW)
    ref = GradientBoostingRegressor(loss="absolute_error", random_state=0, **KW).fit(X, y)
    assert float(ours.init[0]) == float(np.median(y))
    staged = list(ref.staged_predict(X))
    for t in (0, 4):
        part = ours._replace(trees=jax.tree.map(lambda a: a.at[t + 1:].set(0) if a.dtype != bool else a, ours.trees))
        part = part._replace(trees=part.trees._replace(
            children_left=jnp.where(jnp.arange(20)[:, None, None] > t, -1, ours.trees.children_left)))
        np.testing.assert_allclose(np.asarray(ensemble.predict(part, X)), staged[t], atol=1e-12)


def test_zero_weight_rows_have_no_influence(squared):
    X, y, _ = squared
    rng = np.random.default_rng(3)
    pad = np.arange(N) >= N - 40
    Xg, yg = X.copy(), y.copy()
    Xg[pad] = rng.normal(size=(40, F)) * 100
    yg[pad] = 1e6
    w = np.where(pad, 0.0, 1.0)
    a = ensemble.fit_gradient_boosting(X, y, sample_weight=w, **KW)
    b = ensemble.fit_gradient_boosting(Xg, yg, sample_weight=w, **KW)
    np.testing.assert_allclose(np.asarray(ensemble.predict(a, X[~pad])), np.asarray(ensemble.predict(b, X[~pad])),
                               rtol=1e-12)


def test_no_retrace_and_vmap_over_learning_rates_equals_loop(squared):
    X, y, ours = squared
    before = _program._cache_size()
    again = ensemble.fit_gradient_boosting(X, y * 1.0, **KW)
    assert _program._cache_size() == before
    np.testing.assert_array_equal(np.asarray(again.trees.value), np.asarray(ours.trees.value))
    kw = dict(KW)
    kw.pop("learning_rate")
    batched = jax.vmap(lambda lr: ensemble.fit_gradient_boosting(X, y, learning_rate=lr, **kw))(jnp.array([0.05, 0.1]))
    for i, lr in enumerate([0.05, 0.1]):
        one = ensemble.fit_gradient_boosting(X, y, learning_rate=lr, **kw)
        np.testing.assert_allclose(np.asarray(batched.trees.value[i]), np.asarray(one.trees.value), atol=1e-12)


def test_subsample_follows_the_key(squared):
    X, y, _ = squared
    a = ensemble.fit_gradient_boosting(X, y, subsample=0.5, key=jax.random.key(0), **KW)
    b = ensemble.fit_gradient_boosting(X, y, subsample=0.5, key=jax.random.key(0), **KW)
    c = ensemble.fit_gradient_boosting(X, y, subsample=0.5, key=jax.random.key(1), **KW)
    np.testing.assert_array_equal(np.asarray(a.trees.value), np.asarray(b.trees.value))
    assert not np.array_equal(np.asarray(a.trees.value), np.asarray(c.trees.value))
    roots = np.asarray(a.trees.n_node_samples[:, 0, 0])
    assert np.all((roots > 0.35 * N) & (roots < 0.65 * N))


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_estimators=0), "n_estimators must be >= 1, got 0"),
    (dict(learning_rate=0.0), "learning_rate must be > 0.0"),
    (dict(subsample=1.5), "subsample must be <= 1.0"),
    (dict(loss="hinge"), "loss must be one of"),
    (dict(n_bins=300), "n_bins must be <= 256"),
])
def test_bad_arguments_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ensemble.fit_gradient_boosting(np.arange(8.0)[:, None], np.arange(8.0), **kwargs)


def test_nan_target_is_rejected():
    with pytest.raises(ValueError, match="y"):
        ensemble.fit_gradient_boosting(np.arange(8.0)[:, None], np.where(np.arange(8) == 3, np.nan, 1.0))
