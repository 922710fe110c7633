"""Tests of jaxclassic/neighbors/knn.py (fit_knn, predict, predict_proba, knn_cv_scores).

References: scikit-learn's ``KNeighborsClassifier`` / ``KNeighborsRegressor`` with
``algorithm="brute"`` (predictions equal, probabilities and regression values to 1e-12 in
float64: the same sums of the same neighbours, in another order); hand-counted weighted votes;
``model_selection.cross_validate`` of ``fit_knn`` at each k (scores equal to 1e-12) for the
one-search cross-validation.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn import datasets
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from jaxclassic import neighbors as N
from jaxclassic.model_selection import cross_validate, kfold_weights, stratified_kfold_weights
from jaxclassic.model_selection.scoring import accuracy_scorer, neg_mse_scorer
from jaxclassic.neighbors import knn


def _split(X, y):
    return X[::2], y[::2], X[1::2], y[1::2]


IRIS = _split(*datasets.load_iris(return_X_y=True))
CANCER = _split(*datasets.load_breast_cancer(return_X_y=True))
DIABETES = _split(*datasets.load_diabetes(return_X_y=True))
METRICS = [("euclidean", {}), ("manhattan", {}), ("cosine", {}), ("chebyshev", {}),
           ("minkowski", {"p": 3.0})]
SCIPY = {"euclidean": "euclidean", "manhattan": "cityblock", "cosine": "cosine",
         "chebyshev": "chebyshev", "minkowski": "minkowski"}


def _untied(Xtr, Xte, k, metric="euclidean", **kw):
    """Queries whose k nearest rows are unique (k-th and (k+1)-th distances differ): there the
    prediction is determined; elsewhere (iris's 1-decimal data, diabetes's binary column under
    chebyshev) scikit-learn and the search may keep different members of the tie."""
    d = np.sort(cdist(Xte, Xtr, SCIPY[metric], **kw), axis=1)
    untied = ~np.isclose(d[:, k - 1], d[:, k], rtol=1e-9, atol=0)
    assert untied.sum() >= 20  # not vacuous (iris in L1 / Linf: half to 70% of its 75 queries tie)
    return untied


# --------------------------------------------------------------------------- vs scikit-learn
@pytest.mark.full
@pytest.mark.parametrize("data", [IRIS, CANCER], ids=["iris", "breast_cancer"])
@pytest.mark.parametrize("metric,kw", METRICS, ids=[m for m, _ in METRICS])
def test_classifier_equals_sklearn(data, metric, kw):
    Xtr, ytr, Xte, yte = data
    params = N.fit_knn(Xtr, ytr, n_neighbors=5, metric=metric, **kw)
    ref = KNeighborsClassifier(5, algorithm="brute", metric=metric, **kw).fit(Xtr, ytr)
    u = _untied(Xtr, Xte, 5, metric, **kw)
    np.testing.assert_array_equal(np.asarray(N.predict(params, Xte))[u], ref.predict(Xte)[u])
    np.testing.assert_allclose(np.asarray(N.predict_proba(params, Xte))[u], ref.predict_proba(Xte)[u],
                               atol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("data", [IRIS, CANCER], ids=["iris", "breast_cancer"])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan"])
def test_distance_weighted_classifier_equals_sklearn(data, metric):
    Xtr, ytr, Xte, yte = data
    params = N.fit_knn(Xtr, ytr, n_neighbors=7, weights="distance", metric=metric)
    ref = KNeighborsClassifier(7, weights="distance", algorithm="brute", metric=metric).fit(Xtr, ytr)
    u = _untied(Xtr, Xte, 7, metric)
    np.testing.assert_array_equal(np.asarray(N.predict(params, Xte))[u], ref.predict(Xte)[u])
    np.testing.assert_allclose(np.asarray(N.predict_proba(params, Xte))[u], ref.predict_proba(Xte)[u],
                               atol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("metric,kw", METRICS, ids=[m for m, _ in METRICS])
def test_regressor_equals_sklearn(metric, kw, weights):
    Xtr, ytr, Xte, _ = DIABETES
    params = N.fit_knn(Xtr, ytr, n_neighbors=5, weights=weights, metric=metric, task="regression", **kw)
    ref = KNeighborsRegressor(5, weights=weights, algorithm="brute", metric=metric, **kw).fit(Xtr, ytr)
    u = _untied(Xtr, Xte, 5, metric, **kw)
    np.testing.assert_allclose(np.asarray(N.predict(params, Xte))[u], ref.predict(Xte)[u], rtol=1e-12)


@pytest.mark.full
def test_exact_matches_take_all_the_weight_as_sklearn():
    # queries on the training rows themselves: d = 0 for the row (and iris's duplicates)
    Xtr, ytr, _, _ = IRIS
    params = N.fit_knn(Xtr, ytr, n_neighbors=5, weights="distance")
    ref = KNeighborsClassifier(5, weights="distance", algorithm="brute").fit(Xtr, ytr)
    np.testing.assert_array_equal(np.asarray(N.predict(params, Xtr)), ytr)
    np.testing.assert_allclose(np.asarray(N.predict_proba(params, Xtr)), ref.predict_proba(Xtr))
    Xd, yd, _, _ = DIABETES
    reg = N.fit_knn(Xd, yd, n_neighbors=3, weights="distance", task="regression")
    np.testing.assert_allclose(np.asarray(N.predict(reg, Xd)), yd, rtol=1e-12)


@pytest.mark.full
def test_float32_predictions_equal_float64():
    Xtr, ytr, Xte, _ = CANCER
    p64 = N.predict(N.fit_knn(Xtr, ytr, n_neighbors=5), Xte)
    p32 = N.predict(N.fit_knn(Xtr.astype(np.float32), ytr, n_neighbors=5), Xte.astype(np.float32))
    np.testing.assert_array_equal(np.asarray(p32), np.asarray(p64))


# --------------------------------------------------------------------------- votes by hand
@pytest.mark.full
def test_tie_between_classes_goes_to_the_lowest_code():
    # one neighbour of each class at equal distance: class 0, as scikit-learn's argmax
    X = np.array([[-1.0], [1.0]])
    y = np.array([1, 0])
    assert int(N.predict(N.fit_knn(X, y, n_neighbors=2), np.array([[0.0]]))[0]) == 0
    ref = KNeighborsClassifier(2, algorithm="brute").fit(X, y)
    assert ref.predict([[0.0]])[0] == 0


@pytest.mark.full
def test_more_than_2k_tied_neighbours_come_in_index_order():
    # issue 23.2: twelve rows at distance 1 from the query, alternating classes. The rule
    # (equal distances in increasing row index) takes rows 0, 1, 2 -> classes 0, 1, 0 -> 0;
    # the search used to keep rows 1, 3, 5 (class 1) from its rounded candidate ranking.
    from jaxclassic.estimators import KNeighborsClassifier as OurKNeighborsClassifier

    X = np.array([[1.0], [-1.0]] * 6 + [[5.0]])
    y = np.array([0, 1] * 6 + [1])
    est = OurKNeighborsClassifier(3).fit(X, y)
    np.testing.assert_array_equal(est.kneighbors([[0.0]])[1], [[0, 1, 2]])
    assert est.predict([[0.0]]).tolist() == [0]
    assert int(N.predict(N.fit_knn(X, y, n_neighbors=3), np.array([[0.0]]))[0]) == 0
    regressor = N.fit_knn(X, y.astype(np.float64), n_neighbors=3, task="regression")
    np.testing.assert_allclose(np.asarray(N.predict(regressor, np.array([[0.0]]))), [1 / 3])


@pytest.mark.full
def test_sample_weights_multiply_the_votes():
    # neighbours (k=3) labelled 0, 1, 1 with weights 3, 1, 1: class 0 gets 3 votes of 5
    X = np.array([[0.0], [0.1], [0.2], [5.0]])
    y = np.array([0, 1, 1, 1])
    params = N.fit_knn(X, y, n_neighbors=3, sample_weight=np.array([3.0, 1.0, 1.0, 1.0]))
    np.testing.assert_allclose(np.asarray(N.predict_proba(params, np.array([[0.05]]))), [[0.6, 0.4]])
    # distance weights too: votes 3/0.1 vs 1/0.05 + 1/0.15 at x = 0.1... use x = 0.1 + eps
    params = N.fit_knn(X, y, n_neighbors=3, weights="distance", sample_weight=np.array([3.0, 1.0, 1.0, 1.0]))
    x = 0.12
    v0, v1 = 3.0 / x, 1.0 / (x - 0.1) + 1.0 / (0.2 - x)
    np.testing.assert_allclose(np.asarray(N.predict_proba(params, np.array([[x]]))),
                               [[v0 / (v0 + v1), v1 / (v0 + v1)]], rtol=1e-12)


def test_regression_weighted_mean_by_hand():
    X = np.array([[0.0], [1.0], [3.0], [10.0]])
    y = np.array([1.0, 2.0, 4.0, 100.0])
    w = np.array([1.0, 3.0, 2.0, 1.0])
    params = N.fit_knn(X, y, n_neighbors=3, task="regression", sample_weight=w)
    np.testing.assert_allclose(np.asarray(N.predict(params, np.array([[1.0]]))),
                               [(1 * 1 + 3 * 2 + 2 * 4) / 6.0], rtol=1e-14)


# --------------------------------------------------------------------------- weights, transforms
@pytest.mark.full
def test_zero_weight_rows_equal_removal():
    Xtr, ytr, Xte, _ = CANCER
    rng = np.random.default_rng(0)
    garbage = Xtr[rng.integers(0, len(Xtr), 40)] * 1.001  # near real rows, wrong labels
    X = np.vstack([Xtr, garbage])
    y = np.r_[ytr, 1 - ytr[:40]]
    w = np.r_[np.ones(len(Xtr)), np.zeros(40)]
    for weights in ("uniform", "distance"):
        ours = N.fit_knn(X, y, n_neighbors=5, weights=weights, sample_weight=w)
        ref = N.fit_knn(Xtr, ytr, n_neighbors=5, weights=weights)
        np.testing.assert_allclose(np.asarray(N.predict_proba(ours, Xte)),
                                   np.asarray(N.predict_proba(ref, Xte)), rtol=1e-12)


FIT_JIT = jax.jit(N.fit_knn, static_argnames=("n_neighbors", "weights", "metric", "p", "task", "n_classes"))


def test_jit_equals_eager():
    Xtr, ytr, Xte, _ = IRIS
    eager = N.predict_proba(N.fit_knn(Xtr, ytr, n_neighbors=5, n_classes=3), Xte)
    jitted = jax.jit(lambda X, y, Q: N.predict_proba(FIT_JIT(X, y, n_neighbors=5, n_classes=3), Q))(Xtr, ytr, Xte)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-12)


@pytest.mark.full
def test_vmap_over_sample_weights_equals_loop():
    Xtr, ytr, Xte, _ = DIABETES
    folds = np.asarray(kfold_weights(len(ytr), 4, key=jax.random.key(0)))

    def fit_predict(w):
        return N.predict(N.fit_knn(Xtr, ytr, n_neighbors=4, task="regression", sample_weight=w), Xte)

    batched = jax.vmap(fit_predict)(folds)
    for f, w in enumerate(folds):
        np.testing.assert_allclose(np.asarray(batched[f]), np.asarray(fit_predict(w)), rtol=1e-12)


def test_second_predict_does_not_retrace():
    Xtr, ytr, Xte, _ = IRIS
    params = N.fit_knn(Xtr, ytr, n_neighbors=3)
    N.predict(params, Xte)
    size = knn._class_votes._cache_size()
    N.predict(N.fit_knn(Xtr * 2.0, ytr, n_neighbors=3, sample_weight=np.ones(len(ytr))), Xte + 1.0)
    N.predict_proba(params, Xte)
    assert knn._class_votes._cache_size() == size


def test_config_is_static_not_a_leaf():
    params = N.fit_knn(IRIS[0], IRIS[1], n_neighbors=3, metric="manhattan")
    assert params.config == N.KNNConfig(3, "uniform", "manhattan", 2.0)
    assert len(jax.tree_util.tree_leaves(params)) == 5


# --------------------------------------------------------------------------- k by CV
def _loop_scores(X, y, ks, folds, scorer, **kw):
    return np.array([np.asarray(cross_validate(N.fit_knn, scorer, X, y, folds,
                                               fit_kwargs=dict(kw, n_neighbors=k)).fold_scores) for k in ks])


@pytest.mark.full
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_cv_scores_equal_cross_validate_classification(weights):
    X, y = datasets.load_iris(return_X_y=True)
    folds = stratified_kfold_weights(y, 5, key=jax.random.key(0))
    base = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    ks = [1, 3, 5, 10, 20]
    res = N.knn_cv_scores(X, y, ks, folds, weights=weights, sample_weight=base)
    ref = np.array([np.asarray(cross_validate(N.fit_knn, accuracy_scorer(N.predict), X, y, folds,
                                              sample_weight=base,
                                              fit_kwargs={"n_neighbors": k, "weights": weights, "n_classes": 3}
                                              ).fold_scores) for k in ks])
    np.testing.assert_allclose(np.asarray(res.scores), ref, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(res.mean_scores), ref.mean(1), rtol=1e-12)
    assert res.best_n_neighbors == ks[int(np.argmax(ref.mean(1)))]


@pytest.mark.full
def test_cv_scores_equal_cross_validate_regression():
    X, y = datasets.load_diabetes(return_X_y=True)
    X, y = X[:200], y[:200]
    folds = kfold_weights(len(y), 4, key=jax.random.key(0))
    ks = [2, 5, 9]
    res = N.knn_cv_scores(X, y, ks, folds, task="regression", weights="distance", metric="manhattan")
    ref = _loop_scores(X, y, ks, folds, neg_mse_scorer(N.predict), task="regression",
                       weights="distance", metric="manhattan")
    np.testing.assert_allclose(np.asarray(res.scores), ref, rtol=1e-12)


def test_cv_is_one_program_for_all_k():
    X, y = IRIS[0], IRIS[1]
    folds = (np.arange(len(y))[None, :] % 3 != np.arange(3)[:, None]).astype(float)
    N.knn_cv_scores(X, y, [1, 2, 3], folds)
    size = knn._cv_program._cache_size()
    N.knn_cv_scores(X + 1.0, y, [1, 2, 3], folds[::-1])
    assert knn._cv_program._cache_size() == size


def test_cv_ks_too_large_raises():
    X, y = IRIS[0], IRIS[1]
    folds = (np.arange(len(y))[None, :] % 3 != np.arange(3)[:, None]).astype(float)
    with pytest.raises(ValueError, match=r"n_neighbors must be <= the number of training rows of every fold \(the smallest fold trains on 50\), got n_neighbors=51"):
        N.knn_cv_scores(X, y, [3, 51], folds)


def test_cv_ks_below_one_raises():
    with pytest.raises(ValueError, match="n_neighbors must be >= 1, got 0"):
        N.knn_cv_scores(IRIS[0], IRIS[1], [0, 3], np.ones((2, 75)))


def test_cv_ks_not_ints_raises():
    with pytest.raises(TypeError, match="n_neighbors must be a non-empty sequence of ints"):
        N.knn_cv_scores(IRIS[0], IRIS[1], [1.5], np.ones((2, 75)))


def test_cv_fold_without_validation_rows_raises():
    with pytest.raises(ValueError, match=r"fold 0 has no validation rows \(weight 0\)"):
        N.knn_cv_scores(IRIS[0], IRIS[1], [1], np.ones((2, 75)))


def test_cv_folds_wrong_shape_raises():
    with pytest.raises(ValueError, match=r"fold_weights must have shape \(F, n_samples\) = \(F, 75\)"):
        N.knn_cv_scores(IRIS[0], IRIS[1], [1], np.ones((2, 70)))


# --------------------------------------------------------------------------- bad input
X0, Y0 = IRIS[0], IRIS[1]


def test_k_larger_than_n_raises_naming_k():
    with pytest.raises(ValueError, match=r"n_neighbors must be <= the number of training rows \(n_samples=75\), got n_neighbors=76"):
        N.fit_knn(X0, Y0, n_neighbors=76)


def test_k_below_one_raises():
    with pytest.raises(ValueError, match="n_neighbors must be >= 1, got 0"):
        N.fit_knn(X0, Y0, n_neighbors=0)


def test_nan_raises():
    X = X0.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        N.fit_knn(X, Y0)


def test_nan_in_prediction_raises():
    Q = X0[:3].copy()
    Q[1, 2] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        N.predict(N.fit_knn(X0, Y0), Q)


def test_bad_metric_raises():
    with pytest.raises(ValueError, match="metric must be one of .* got 'l3'"):
        N.fit_knn(X0, Y0, metric="l3")


def test_p_below_one_raises():
    with pytest.raises(ValueError, match=r"p must be >= 1 \(the Minkowski order\), got 0.0"):
        N.fit_knn(X0, Y0, metric="minkowski", p=0)


def test_bad_weights_raises():
    with pytest.raises(ValueError, match=r"weights must be one of \['uniform', 'distance'\], got 'gaussian'"):
        N.fit_knn(X0, Y0, weights="gaussian")


def test_bad_task_raises():
    with pytest.raises(ValueError, match=r"task must be one of \['classification', 'regression'\], got 'ranking'"):
        N.fit_knn(X0, Y0, task="ranking")


def test_string_labels_raise():
    with pytest.raises(TypeError, match="y must hold integer class codes"):
        N.fit_knn(X0, np.array(["a", "b", "c"] * 25))


def test_regression_predict_proba_is_not_defined():
    params = N.fit_knn(X0, Y0.astype(float), task="regression")
    with pytest.raises(TypeError, match="predict_proba does not support params of type KNNRegressorParams"):
        N.predict_proba(params, X0)


# --------------------------------------------------------------------------- vocabulary (issue 27)
def test_classifier_params_report_n_classes():
    params = N.fit_knn(IRIS[0], IRIS[1], n_neighbors=3)
    assert params.n_classes == 3 and isinstance(params.n_classes, int)
    assert params.config.n_neighbors == 3


def test_k_is_a_deprecated_spelling_of_n_neighbors():
    with pytest.warns(DeprecationWarning, match="n_neighbors"):
        old = N.fit_knn(IRIS[0], IRIS[1], k=3)
    assert old.config == N.fit_knn(IRIS[0], IRIS[1], n_neighbors=3).config
    with pytest.warns(DeprecationWarning, match="KNNConfig.n_neighbors"):
        assert old.config.k == 3


def test_ks_and_best_k_are_deprecated_spellings():
    folds = 1.0 - np.eye(12)
    X = np.arange(12.0)[:, None]
    y = np.r_[np.zeros(6, int), np.ones(6, int)]
    new = N.knn_cv_scores(X, y, [1, 3], folds)
    with pytest.warns(DeprecationWarning, match="n_neighbors"):
        old = N.knn_cv_scores(X, y, ks=[1, 3], fold_weights=folds)
    np.testing.assert_array_equal(old.scores, new.scores)
    with pytest.warns(DeprecationWarning, match="KNNCVResult.n_neighbors"):
        np.testing.assert_array_equal(old.ks, new.n_neighbors)
    with pytest.warns(DeprecationWarning, match="KNNCVResult.best_n_neighbors"):
        assert old.best_k == new.best_n_neighbors
