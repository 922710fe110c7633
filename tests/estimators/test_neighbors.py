"""Tests of jaxclassic/estimators/neighbors.py beyond scikit-learn's generic checks: the
estimators give scikit-learn's predictions, probabilities (1e-12, float64: the same neighbours)
and log densities (1e-10), with string labels, inside GridSearchCV, and in float32."""

import numpy as np
import pytest
from sklearn import datasets
from sklearn import neighbors as sk
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from jaxclassic import estimators as est

X, Y = datasets.load_iris(return_X_y=True)
LABELS = np.array(["setosa", "versicolor", "virginica"])[Y]
XB, YB = datasets.load_breast_cancer(return_X_y=True)
XD, YD = datasets.load_diabetes(return_X_y=True)
STD = (X - X.mean(0)) / X.std(0)


@pytest.mark.full
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_classifier_matches_sklearn_with_string_labels(weights):
    Xtr, ytr, Xte = XB[::2], np.where(YB[::2] == 1, "benign", "malignant"), XB[1::2]
    ours = est.KNeighborsClassifier(7, weights=weights).fit(Xtr, ytr)
    ref = sk.KNeighborsClassifier(7, weights=weights, algorithm="brute").fit(Xtr, ytr)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_array_equal(ours.predict(Xte), ref.predict(Xte))
    np.testing.assert_allclose(ours.predict_proba(Xte), ref.predict_proba(Xte), atol=1e-12)
    assert ours.score(Xte, np.where(YB[1::2] == 1, "benign", "malignant")) == pytest.approx(
        ref.score(Xte, np.where(YB[1::2] == 1, "benign", "malignant")), abs=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("metric,p", [("minkowski", 1), ("minkowski", 3), ("cosine", 2)])
def test_regressor_matches_sklearn(metric, p):
    ours = est.KNeighborsRegressor(6, metric=metric, p=p).fit(XD[::2], YD[::2])
    ref = sk.KNeighborsRegressor(6, metric=metric, p=p, algorithm="brute").fit(XD[::2], YD[::2])
    np.testing.assert_allclose(ours.predict(XD[1::2]), ref.predict(XD[1::2]), rtol=1e-12)


@pytest.mark.full
def test_kneighbors_matches_sklearn():
    ours = est.KNeighborsRegressor(4).fit(XD[::2], YD[::2])
    ref = sk.KNeighborsRegressor(4, algorithm="brute").fit(XD[::2], YD[::2])
    dist, idx = ours.kneighbors(XD[1::2])
    ref_dist, ref_idx = ref.kneighbors(XD[1::2])
    np.testing.assert_array_equal(idx, ref_idx)  # diabetes: no ties among the 4 nearest
    np.testing.assert_allclose(dist, ref_dist, rtol=1e-9)
    np.testing.assert_array_equal(ours.kneighbors(XD[1::2], 2, return_distance=False), ref_idx[:, :2])


@pytest.mark.full
def test_grid_search_over_n_neighbors_matches_sklearn():
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    grid = {"n_neighbors": [1, 5, 15]}
    ours = GridSearchCV(est.KNeighborsClassifier(), grid, cv=cv).fit(X[::2] + 0.01 * Y[::2, None], LABELS[::2])
    ref = GridSearchCV(sk.KNeighborsClassifier(algorithm="brute"), grid, cv=cv).fit(
        X[::2] + 0.01 * Y[::2, None], LABELS[::2])
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"])


@pytest.mark.full
def test_float32_input_gives_float32_outputs():
    m = est.KNeighborsRegressor(3).fit(XD.astype(np.float32), YD.astype(np.float32))
    assert m.predict(XD[:5].astype(np.float32)).dtype == np.float32
    kde = est.KernelDensity(bandwidth=0.5).fit(STD.astype(np.float32))
    assert kde.score_samples(STD[:5].astype(np.float32)).dtype == np.float32


def test_n_neighbors_above_n_samples_raises():
    with pytest.raises(ValueError, match=r"n_neighbors must be <= the number of training samples \(n_samples=4\), got n_neighbors=5"):
        est.KNeighborsClassifier().fit(X[48:52], Y[48:52])


@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov", "tophat"])
def test_kernel_density_matches_sklearn(kernel):
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(STD))
    ours = est.KernelDensity(bandwidth=0.6, kernel=kernel).fit(STD, sample_weight=w)
    ref = sk.KernelDensity(bandwidth=0.6, kernel=kernel, atol=0, rtol=0).fit(STD, sample_weight=w)
    Q = STD + 0.05
    np.testing.assert_allclose(ours.score_samples(Q), ref.score_samples(Q), rtol=1e-10)
    assert ours.score(Q) == pytest.approx(ref.score(Q), rel=1e-10)


@pytest.mark.parametrize("rule", ["scott", "silverman"])
def test_kernel_density_rule_bandwidth_matches_sklearn(rule):
    ours = est.KernelDensity(bandwidth=rule).fit(STD)
    ref = sk.KernelDensity(bandwidth=rule, atol=0, rtol=0).fit(STD)
    assert ours.bandwidth_ == pytest.approx(ref.bandwidth_, rel=1e-14)
    np.testing.assert_allclose(ours.score_samples(STD[:10]), ref.score_samples(STD[:10]), rtol=1e-10)


def test_kernel_density_sample_is_reproducible():
    kde = est.KernelDensity(bandwidth=0.3).fit(STD)
    a = kde.sample(7, random_state=3)
    assert a.shape == (7, 4)
    np.testing.assert_array_equal(a, kde.sample(7, random_state=3))
