"""Tests of jaxclassic/ensemble/gradient_boosting.py.

Reference: scikit-learn's GradientBoostingRegressor / GradientBoostingClassifier (default
criterion friedman_mse: the same splits as the sum of squares) on features with at most
``n_bins`` distinct values (exact binning): equal training predictions to ~1e-12 in
float64 for squared error and binary log-loss (the same trees, the same Newton line search
sum w(y-p) / sum w p(1-p)); for absolute error the first 5 rounds (later rounds can meet
exact ties of the gain, the residuals being +-1, which the two sides break differently:
we take the lower feature index, scikit-learn its random feature order; see
tests/ensemble/test_review.py, where one random_state agrees for all 20 rounds).

Multinomial deviance (K = 3): on iris (at most 43 distinct values a feature: exact bins)
equal decision functions, probabilities and train_score_ to ~1e-15 in float64 for every
random_state tried (the same K trees a round, the same (K-1)/K Newton line search).

Feature importances (scikit-learn's: each tree's impurity decrease / its root weight, summed,
normalised): equal to 1e-12 where no split gain ties (regression, min_samples_leaf=5). In
classification the first round's residuals take two values per class, so splits cutting
off the same numbers of each class tie exactly; we take the lower feature index,
scikit-learn the first in its random feature order (or the one favoured by the rounding of
its sums): the importance moves between the tied features while the predictions can stay
equal (iris: petal length and width both isolate setosa). So: equal to 1e-12 on a 3-class
problem for the random_state that breaks the ties as we do, within 0.01 on iris.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

from jaxclassic import losses

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


@pytest.mark.full
def test_squared_error_equals_sklearn(squared):
    X, y, ours = squared
    ref = GradientBoostingRegressor(loss="squared_error", random_state=0, **KW).fit(X, y)
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X)), ref.predict(X), atol=1e-12)
    for t in range(3):  # the same first splits (root and its children)
        sk = ref.estimators_[t, 0].tree_
        tree = jax.tree.map(lambda a: np.asarray(a)[t, 0], ours.trees)
        assert tree.feature[0] == sk.feature[0] and tree.threshold[0] == sk.threshold[0]
        for ours_child, sk_child in ((tree.children_left[0], sk.children_left[0]),
                                     (tree.children_right[0], sk.children_right[0])):
            assert tree.feature[ours_child] == sk.feature[sk_child]
            assert tree.threshold[ours_child] == sk.threshold[sk_child]
    np.testing.assert_allclose(np.asarray(ours.train_loss) * 2, ref.train_score_, rtol=1e-10)


@pytest.mark.full
def test_log_loss_equals_sklearn():
    X, y = _data()
    yb = (y > 0.5).astype(int)
    ours = ensemble.fit_gradient_boosting(X, yb, loss="log_loss", **KW)
    ref = GradientBoostingClassifier(random_state=0, **KW).fit(X, yb)
    np.testing.assert_allclose(np.asarray(ensemble.decision_function(ours, X)), ref.decision_function(X), atol=1e-10)
    np.testing.assert_allclose(np.asarray(ensemble.predict_proba(ours, X)), ref.predict_proba(X), atol=1e-10)
    assert np.array_equal(np.asarray(ensemble.predict(ours, X)), ref.predict(X))
    assert ours.n_classes == 2 and isinstance(ours.n_classes, int)


@pytest.mark.full
def test_absolute_error_equals_sklearn_first_rounds():
    X, y = _data()
    ours = ensemble.fit_gradient_boosting(X, y, loss="absolute", **KW)
    ref = GradientBoostingRegressor(loss="absolute_error", random_state=0, **KW).fit(X, y)
    assert float(ours.init[0]) == float(np.median(y))
    staged = list(ref.staged_predict(X))
    for t in (0, 4):
        # the first t + 1 rounds: later trees zeroed and made single leaves (built in NumPy, so
        # that the truncation compiles nothing; predict sees the same shapes as for `ours`)
        def truncate(a, fill=0):
            a = np.array(a)
            if a.dtype != bool:
                a[t + 1:] = fill
            return jnp.asarray(a)

        part = ours._replace(trees=jax.tree.map(truncate, ours.trees))
        part = part._replace(trees=part.trees._replace(children_left=truncate(ours.trees.children_left, -1)))
        np.testing.assert_allclose(np.asarray(ensemble.predict(part, X)), staged[t], atol=1e-12)


@pytest.mark.full
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


@pytest.mark.full
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


@pytest.mark.full
def test_subsample_follows_the_key(squared):
    X, y, _ = squared
    a = ensemble.fit_gradient_boosting(X, y, subsample=0.5, key=jax.random.key(0), **KW)
    b = ensemble.fit_gradient_boosting(X, y, subsample=0.5, key=jax.random.key(0), **KW)
    c = ensemble.fit_gradient_boosting(X, y, subsample=0.5, key=jax.random.key(1), **KW)
    np.testing.assert_array_equal(np.asarray(a.trees.value), np.asarray(b.trees.value))
    assert not np.array_equal(np.asarray(a.trees.value), np.asarray(c.trees.value))
    roots = np.asarray(a.trees.n_node_samples)[:, 0, 0]
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


# --------------------------------------------------------------------------- multinomial
@pytest.fixture(scope="module")
def iris_fit():
    X, y = load_iris(return_X_y=True)
    return X, y, ensemble.fit_gradient_boosting(X, y, loss="log_loss", **KW)


@pytest.mark.full
@pytest.mark.parametrize("random_state", [0, 3])
def test_multinomial_equals_sklearn_on_iris(iris_fit, random_state):
    X, y, ours = iris_fit
    ref = GradientBoostingClassifier(random_state=random_state, **KW).fit(X, y)
    assert ours.trees.feature.shape[:2] == (20, 3) and ours.init.shape == (3,)
    assert ours.n_classes == 3
    np.testing.assert_allclose(np.asarray(ours.init), ref._raw_predict_init(X[:1])[0], atol=1e-15)
    np.testing.assert_allclose(np.asarray(ensemble.decision_function(ours, X)), ref.decision_function(X), atol=1e-12)
    np.testing.assert_allclose(np.asarray(ensemble.predict_proba(ours, X)), ref.predict_proba(X), atol=1e-12)
    assert np.array_equal(np.asarray(ensemble.predict(ours, X)), ref.predict(X))
    np.testing.assert_allclose(np.asarray(ours.train_loss), ref.train_score_, rtol=1e-12)  # factor 1 for K > 2
    # the leaf values of the first round: (K-1)/K sum r / sum |r|(1-|r|), scikit-learn's line search
    for k in range(3):
        sk = ref.estimators_[0, k].tree_
        ours_leaves = np.sort(np.asarray(ours.trees.value)[0, k, :, 0][np.asarray(ours.trees.is_leaf)[0, k]])
        np.testing.assert_allclose(ours_leaves, np.sort(sk.value[sk.children_left == -1, 0, 0]), atol=1e-12)


@pytest.mark.full
def test_multinomial_residuals_and_hessian_by_autodiff_equal_the_hand_derivation():
    """The core takes g, h of the softmax cross-entropy by autodiff: g = p - onehot(y),
    diag h = p (1 - p) = |r| (1 - |r|) with r = onehot(y) - p (hand derivation)."""
    f = jnp.array([[0.3, -1.2, 2.0], [0.0, 0.0, 0.0]])
    y = jnp.array([2, 0])
    # jitted: one compile instead of ~100 eager op-by-op ones (the core calls it under jit too)
    g, h = jax.jit(losses.grad_hess, static_argnums=0)(losses.softmax_cross_entropy, y, f)
    p = np.exp(np.asarray(f)) / np.exp(np.asarray(f)).sum(1, keepdims=True)
    r = np.eye(3)[np.asarray(y)] - p
    np.testing.assert_allclose(np.asarray(g), -r, atol=1e-15)
    np.testing.assert_allclose(np.asarray(h), np.abs(r) * (1 - np.abs(r)), atol=1e-15)


@pytest.mark.full
def test_multinomial_zero_weight_rows_have_no_influence(iris_fit):
    X, y, _ = iris_fit
    rng = np.random.default_rng(0)
    pad = rng.random(len(y)) < 0.2
    Xg, yg = X.copy(), y.copy()
    Xg[pad] = rng.normal(size=(pad.sum(), X.shape[1])) * 50
    yg[pad] = 2
    w = np.where(pad, 0.0, 1.0)
    kw = dict(KW, n_estimators=5)
    a = ensemble.fit_gradient_boosting(X, y, loss="log_loss", sample_weight=w, **kw)
    b = ensemble.fit_gradient_boosting(Xg, yg, loss="log_loss", sample_weight=w, **kw)
    c = ensemble.fit_gradient_boosting(X[~pad], y[~pad], loss="log_loss", **kw)
    for other in (b, c):
        np.testing.assert_allclose(np.asarray(ensemble.decision_function(a, X[~pad])),
                                   np.asarray(ensemble.decision_function(other, X[~pad])), atol=1e-12)


@pytest.mark.full
def test_multinomial_no_retrace_and_vmap_over_learning_rates_equals_loop(iris_fit):
    X, y, ours = iris_fit
    before = _program._cache_size()
    again = ensemble.fit_gradient_boosting(X, y.copy(), loss="log_loss", **KW)
    assert _program._cache_size() == before
    np.testing.assert_array_equal(np.asarray(again.trees.value), np.asarray(ours.trees.value))
    kw = dict(KW, n_estimators=5)
    kw.pop("learning_rate")
    fit = lambda lr: ensemble.fit_gradient_boosting(X, y, loss="log_loss", learning_rate=lr, n_classes=3, **kw)
    batched = jax.vmap(fit)(jnp.array([0.05, 0.2]))
    for i, lr in enumerate([0.05, 0.2]):
        np.testing.assert_allclose(np.asarray(batched.trees.value[i]), np.asarray(fit(lr).trees.value), atol=1e-12)


@pytest.mark.full
def test_n_classes_fixes_the_number_of_outputs():
    X, y = load_iris(return_X_y=True)
    keep = y < 2  # two classes present, three declared: the multinomial of three outputs
    p = ensemble.fit_gradient_boosting(X[keep], y[keep], loss="log_loss", n_classes=3, n_estimators=2)
    assert p.trees.feature.shape[:2] == (2, 3)
    assert ensemble.predict_proba(p, X[:5]).shape == (5, 3)
    binary = ensemble.fit_gradient_boosting(X[keep], y[keep], loss="log_loss", n_estimators=2)
    assert binary.trees.feature.shape[:2] == (2, 1)


@pytest.mark.parametrize("kwargs, match", [
    (dict(loss="log_loss", n_classes=1), "n_classes must be >= 2, got 1"),
    (dict(loss="log_loss", n_classes=2), "y holds class code 2 but n_classes=2"),
    (dict(loss="squared", n_classes=3), "n_classes is for loss='log_loss' only"),
    (dict(loss="log_loss", init=np.zeros(2)), "init must be a scalar or hold 3 scores"),
])
def test_bad_multiclass_arguments_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ensemble.fit_gradient_boosting(np.arange(9.0)[:, None], np.arange(9) % 3, n_estimators=1, **kwargs)


# --------------------------------------------------------------------------- feature importances
@pytest.mark.full
def test_feature_importances_equal_sklearn_without_ties():
    X, y = _data()
    kw = dict(KW, min_samples_leaf=5)
    ours = np.asarray(ensemble.feature_importances(ensemble.fit_gradient_boosting(X, y, **kw)))
    for rs in (0, 1):
        ref = GradientBoostingRegressor(random_state=rs, **kw).fit(X, y)
        np.testing.assert_allclose(ours, ref.feature_importances_, atol=1e-12)
    # 3 classes: random_state=1 breaks the (many, exact) ties of the first rounds as we do
    rng = np.random.default_rng(0)
    Xc = np.round(rng.normal(size=(N, F)) * 8) / 8
    s = Xc[:, 0] + 0.5 * Xc[:, 1] ** 2 + rng.normal(size=N) * 0.5
    yc = np.digitize(s, np.quantile(s, [1 / 3, 2 / 3]))
    p = ensemble.fit_gradient_boosting(Xc, yc, loss="log_loss", **kw)
    ref = GradientBoostingClassifier(random_state=1, **kw).fit(Xc, yc)
    np.testing.assert_allclose(np.asarray(ensemble.decision_function(p, Xc)), ref.decision_function(Xc), atol=1e-12)
    np.testing.assert_allclose(np.asarray(ensemble.feature_importances(p)), ref.feature_importances_, atol=1e-12)


@pytest.mark.full
def test_feature_importances_on_iris_give_the_ties_to_the_lowest_index(iris_fit):
    # iris's splits tie often (petal length and width cut off the same rows): scikit-learn
    # breaks a tie by a random feature order, so its importances move with random_state alone
    # (20 seeds: feature 2 from 0.19 to 0.36), while every seed's trees make the same
    # partitions as ours (decision functions equal to 1e-12). We give a tie to the lowest
    # feature index (xgboost's rule; tree._engine.TIE_ULPS makes it hold whatever the rounding
    # of the tied gains). With the same splits and gains, only the attribution of tied gains
    # differs, and always giving them to the lowest index maximises every prefix sum: ours'
    # cumulative importances are at least each seed's (to rounding, 1e-12), and total 1.
    X, y, ours = iris_fit
    imp = np.asarray(ensemble.feature_importances(ours))
    decision = np.asarray(ensemble.decision_function(ours, X))
    refs = []
    for seed in range(20):
        ref = GradientBoostingClassifier(random_state=seed, **KW).fit(X, y)
        np.testing.assert_allclose(decision, ref.decision_function(X), atol=1e-12)
        refs.append(ref.feature_importances_)
    np.testing.assert_allclose(imp.sum(), 1.0, atol=1e-12)
    assert np.all(np.cumsum(imp) >= np.cumsum(refs, axis=1) - 1e-12)
    assert imp[0] > max(r[0] for r in refs)  # strictly: feature 0 wins some ties the seeds gave away


@pytest.mark.full
def test_feature_importances_without_any_split_are_zero():
    X = np.arange(8.0)[:, None]
    p = ensemble.fit_gradient_boosting(X, np.ones(8), n_estimators=2)  # constant y: no split
    np.testing.assert_array_equal(np.asarray(ensemble.feature_importances(p)), [0.0])


def test_subsample_without_key_uses_the_fixed_default_key():
    # issue 27: key=None is jax.random.key(0): deterministic, equal to passing it
    X, y = _data()
    kw = dict(n_estimators=2, max_depth=2, subsample=0.5)
    default = ensemble.fit_gradient_boosting(X, y, **kw)
    given = ensemble.fit_gradient_boosting(X, y, key=jax.random.key(0), **kw)
    jax.tree.map(np.testing.assert_array_equal, default, given)
