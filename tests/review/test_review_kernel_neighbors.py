"""Independent review of SVC / SVR, GaussianProcessRegressor and the neighbours estimators, used
as a user would, beside scikit-learn on the same (small, awkward) data: badly scaled float32
columns, duplicate rows, string labels, multiclass shapes, integer sample weights == repeated
rows, normalize_y. Tolerances: float64 runs that share the neighbours / the exact posterior with
scikit-learn agree to 1e-10; SMO-based SVM results agree to the solvers' stopping tolerance
(``tol=1e-3`` on the KKT gap, so decision values to ~1e-2); float32 runs to float32 rounding
of distances of ~1e4 (1e-5 relative)."""

import numpy as np
import pytest
from sklearn import datasets
from sklearn import gaussian_process as skg
from sklearn import neighbors as skn
from sklearn import svm as sks
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from jaxclassic import estimators as est

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3))
Y = (X[:, 0] + 0.3 * RNG.normal(size=60) > 0).astype(int)
XQ = RNG.normal(size=(40, 3))
SCALE = np.array([1.0, 1e4, 1.0])
OFFSET = np.array([0.0, 0.0, 1e6])
IRIS_X, IRIS_Y = datasets.load_iris(return_X_y=True)
IRIS_S = np.array(["setosa", "versicolor", "virginica"])[IRIS_Y]


@pytest.mark.full
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_knn_float32_badly_scaled_columns_match_sklearn(weights):
    Xb, Xqb = (X * SCALE + OFFSET).astype(np.float32), (XQ * SCALE + OFFSET).astype(np.float32)
    ours = est.KNeighborsClassifier(5, weights=weights).fit(Xb, Y)
    ref = skn.KNeighborsClassifier(5, weights=weights, algorithm="brute").fit(Xb, Y)
    np.testing.assert_array_equal(ours.kneighbors(Xqb)[1], ref.kneighbors(Xqb)[1])
    np.testing.assert_allclose(ours.kneighbors(Xqb)[0], ref.kneighbors(Xqb)[0], rtol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(Xqb), ref.predict_proba(Xqb), atol=1e-6)
    reg = est.KNeighborsRegressor(5, weights=weights).fit(Xb, X[:, 0]).predict(Xqb)
    np.testing.assert_allclose(reg, skn.KNeighborsRegressor(5, weights=weights).fit(Xb, X[:, 0]).predict(Xqb),
                               atol=1e-6)


@pytest.mark.full
@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_knn_duplicate_training_rows_with_conflicting_labels_match_sklearn(weights):
    # queries sit exactly on duplicated training rows (distance 0, two labels)
    Xd = np.vstack([X[:20], X[:20], X[:5]])
    yd = np.r_[Y[:20], 1 - Y[:20], Y[:5]]
    ours = est.KNeighborsClassifier(3, weights=weights).fit(Xd, yd)
    ref = skn.KNeighborsClassifier(3, weights=weights, algorithm="brute").fit(Xd, yd)
    np.testing.assert_allclose(ours.predict_proba(X[:20]), ref.predict_proba(X[:20]), atol=1e-12)
    t = yd + np.arange(45.0)
    np.testing.assert_allclose(est.KNeighborsRegressor(3, weights=weights).fit(Xd, t).predict(X[:20]),
                               skn.KNeighborsRegressor(3, weights=weights).fit(Xd, t).predict(X[:20]), atol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("kernel", ["gaussian", "tophat", "epanechnikov", "exponential", "linear"])
def test_kde_weighted_score_samples_match_sklearn_and_repeated_rows(kernel):
    w = RNG.integers(1, 4, size=60)
    ours = est.KernelDensity(kernel=kernel, bandwidth=0.8).fit(X, sample_weight=w)
    ref = skn.KernelDensity(kernel=kernel, bandwidth=0.8).fit(X, sample_weight=w)
    a, b = ours.score_samples(XQ), ref.score_samples(XQ)
    np.testing.assert_array_equal(np.isfinite(a), np.isfinite(b))
    np.testing.assert_allclose(a[np.isfinite(b)], b[np.isfinite(b)], rtol=1e-10)
    rep = est.KernelDensity(kernel=kernel, bandwidth=0.8).fit(np.repeat(X, w, axis=0)).score_samples(XQ)
    np.testing.assert_allclose(a[np.isfinite(b)], rep[np.isfinite(b)], rtol=1e-10)
    assert ours.score(XQ[np.isfinite(b)]) == pytest.approx(ref.score(XQ[np.isfinite(b)]), rel=1e-10)


def test_kde_float32_badly_scaled_matches_sklearn_float64():
    Xb, Xqb = X * SCALE + OFFSET, XQ * SCALE + OFFSET
    ours = est.KernelDensity(bandwidth=3000.0).fit(Xb.astype(np.float32)).score_samples(Xqb.astype(np.float32))
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, skn.KernelDensity(bandwidth=3000.0).fit(Xb).score_samples(Xqb), rtol=1e-5)


@pytest.mark.full
@pytest.mark.parametrize("shape", ["ovr", "ovo"])
def test_svc_iris_string_labels_shapes_and_decisions_match_sklearn(shape):
    ours = est.SVC(decision_function_shape=shape).fit(IRIS_X, IRIS_S)
    ref = sks.SVC(decision_function_shape=shape).fit(IRIS_X, IRIS_S)
    da, db = ours.decision_function(IRIS_X), ref.decision_function(IRIS_X)
    assert da.shape == db.shape == (150, 3)
    np.testing.assert_allclose(da, db, atol=1e-2)
    np.testing.assert_array_equal(ours.predict(IRIS_X), ref.predict(IRIS_X))
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)


@pytest.mark.full
def test_svc_probabilities_sum_to_one_multiclass():
    p = est.SVC(probability=True, random_state=0).fit(IRIS_X, IRIS_S).predict_proba(IRIS_X)
    assert p.shape == (150, 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-6)
    assert (p >= 0).all()


@pytest.mark.full
@pytest.mark.parametrize("gamma", ["scale", "auto"])
def test_svc_gamma_rules_equal_sklearns_on_raw_wine(gamma):
    Xw, yw = datasets.load_wine(return_X_y=True)
    ours, ref = est.SVC(gamma=gamma).fit(Xw, yw), sks.SVC(gamma=gamma).fit(Xw, yw)
    assert float(ours._gamma) == pytest.approx(ref._gamma, rel=1e-12)
    np.testing.assert_array_equal(ours.predict(Xw), ref.predict(Xw))
    np.testing.assert_allclose(ours.decision_function(Xw), ref.decision_function(Xw), atol=1e-2)


@pytest.mark.full
def test_svc_integer_sample_weight_equals_repeated_rows():
    w = RNG.integers(0, 4, size=60)
    a = est.SVC(gamma=0.3).fit(X, Y, sample_weight=w).decision_function(XQ)
    b = est.SVC(gamma=0.3).fit(np.repeat(X, w, 0), np.repeat(Y, w)).decision_function(XQ)
    np.testing.assert_allclose(a, b, atol=1e-2)
    c = sks.SVC(gamma=0.3).fit(X, Y, sample_weight=w).decision_function(XQ)
    np.testing.assert_allclose(a, c, atol=1e-2)


def test_svr_matches_sklearn():
    t = X[:, 0] + 0.5 * np.sin(3 * X[:, 1])
    ours = est.SVR(C=3.0, epsilon=0.05).fit(X, t)
    ref = sks.SVR(C=3.0, epsilon=0.05).fit(X, t)
    np.testing.assert_allclose(ours.predict(XQ), ref.predict(XQ), atol=1e-2)


@pytest.mark.full
@pytest.mark.parametrize("normalize_y", [False, True])
def test_gp_fixed_and_optimised_match_sklearn(normalize_y):
    t = np.sin(X[:, 0]) + 0.5 * X[:, 1] * 1e3 + 1e6
    ours = est.GaussianProcessRegressor(amplitude=2.0, length_scale=1.5, noise=0.01, optimizer=None,
                                        normalize_y=normalize_y).fit(X, t)
    ref = skg.GaussianProcessRegressor(ConstantKernel(2.0) * RBF(1.5) + WhiteKernel(0.01), optimizer=None,
                                       normalize_y=normalize_y).fit(X, t)
    ma, sa = ours.predict(XQ, return_std=True)
    mb, sb = ref.predict(XQ, return_std=True)
    np.testing.assert_allclose(ma, mb, rtol=1e-9)
    np.testing.assert_allclose(sa, sb, rtol=1e-7)
    assert ours.log_marginal_likelihood_value_ == pytest.approx(ref.log_marginal_likelihood_value_, rel=1e-9)
    t = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    ours = est.GaussianProcessRegressor(noise=0.1, normalize_y=normalize_y).fit(X, t)
    ref = skg.GaussianProcessRegressor(ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(0.1),
                                       normalize_y=normalize_y, random_state=0).fit(X, t)
    assert ours.log_marginal_likelihood_value_ >= ref.log_marginal_likelihood_value_ - 1e-6
