"""Tests of jaxclassic/estimators/svm.py: SVC and SVR against scikit-learn's (LIBSVM).

Both sides run at tol = 1e-6 (LIBSVM's stopping rule on the maximal violating pair gap), so
the optimum is reached to ~1e-6: dual coefficients are compared at 1e-4, intercepts and
decision values at 1e-4 (their values are O(1)), support sets and predictions exactly.
Probabilities: scikit-learn shuffles its calibration folds with a random permutation that
JAX's generator cannot reproduce, so the two sides' Platt sigmoids see different out-of-fold
decision values: compared loosely (0.1), and exactly against the core.
"""

import warnings

import numpy as np
import pytest
from sklearn import svm as sk_svm
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris, load_wine
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from jaxclassic.estimators import SVC, SVR
from jaxclassic.svm import fit_kernel_svm, predict_proba

TOL = dict(tol=1e-6)


def _standardised(loader):
    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def cancer():
    return _standardised(load_breast_cancer)


@pytest.fixture(scope="module")
def wine():
    return _standardised(load_wine)


# --------------------------------------------------------------------------- SVC
@pytest.mark.full
def test_binary_equals_sklearn(cancer):
    X, y = cancer
    ours, ref = SVC(**TOL).fit(X, y), sk_svm.SVC(**TOL).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    np.testing.assert_allclose(ours.support_vectors_, ref.support_vectors_)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.n_iter_.shape == (1,) and ours.fit_status_ == 0 and ours.shape_fit_ == X.shape


@pytest.mark.full
@pytest.mark.parametrize("kernel", ["linear", "poly"])
def test_multiclass_one_vs_one_equals_sklearn(wine, kernel):
    # LIBSVM's layout: support vectors grouped by class, dual_coef_ (n_classes - 1, n_SV) with the
    # coefficient of a class-c vector in pair (a, b) in row b - 1 (c == a) or a (c == b)
    X, y = wine
    ours = SVC(kernel=kernel, **TOL).fit(X, y)
    ref = sk_svm.SVC(kernel=kernel, **TOL).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.n_support_, ref.n_support_)
    assert ours.dual_coef_.shape == ref.dual_coef_.shape == (2, len(ref.support_))
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)
    ours.set_params(decision_function_shape="ovo")
    ref.set_params(decision_function_shape="ovo")
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.full
def test_multiclass_with_duplicate_points_equals_sklearn_up_to_ties():
    # iris repeats a point (rows 101 and 142): the split of alpha between the copies is not
    # unique, so the support sets may differ by a copy; the decision function is unique
    X, y = _standardised(load_iris)
    ours, ref = SVC(**TOL).fit(X, y), sk_svm.SVC(**TOL).fit(X, y)
    assert len(set(ref.support_) ^ set(ours.support_)) <= 1
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.full
def test_break_ties_predicts_argmax_of_the_ovr_decision(wine):
    X, y = wine
    model = SVC(break_ties=True).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(model.decision_function(X), axis=1)])


@pytest.mark.full
def test_string_labels_and_pipeline_grid_search():
    X, y = load_iris(return_X_y=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    search = GridSearchCV(make_pipeline(StandardScaler(), SVC()), {"svc__C": [0.5, 2.0]}, cv=3).fit(X, labels)
    assert search.best_score_ > 0.9
    assert set(search.predict(X)) <= set(labels)


@pytest.mark.full
def test_hard_margin_estimator_on_separable_data():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(20, 2)) + 4.0, rng.normal(size=(20, 2)) - 4.0])
    y = np.repeat([1, 0], 20)
    model = SVC(C=np.inf, kernel="linear", **TOL).fit(X, y)
    margin = np.where(y == 1, 1.0, -1.0) * model.decision_function(X)
    assert margin.min() == pytest.approx(1.0, abs=1e-5)


@pytest.mark.full
def test_float32_input_fits_in_float32(cancer):
    X, y = cancer
    model = SVC().fit(X.astype(np.float32), y)
    assert model.dual_coef_.dtype == np.float32
    ref = SVC().fit(X, y)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=1e-3)


# --------------------------------------------------------------------------- probabilities
@pytest.mark.full
def test_binary_probabilities_equal_the_core(cancer):
    X, y = cancer
    model = SVC(probability=True).fit(X, y)
    core = fit_kernel_svm(X, y, probability=True)
    np.testing.assert_allclose(model.predict_proba(X), predict_proba(core, X), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(model.predict_log_proba(X), np.log(model.predict_proba(X)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # scikit-learn 1.9 deprecates probability=True
        ref = sk_svm.SVC(probability=True, random_state=0).fit(X, y)
        np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=0.1)


@pytest.mark.full
def test_multiclass_probabilities_by_pairwise_coupling(wine):
    X, y = wine
    model = SVC(probability=True).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert proba.min() >= 0
    assert np.mean(model.classes_[np.argmax(proba, axis=1)] == model.predict(X)) > 0.95
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ref = sk_svm.SVC(probability=True, random_state=0).fit(X, y)
        np.testing.assert_allclose(proba, ref.predict_proba(X), atol=0.1)


@pytest.mark.full
def test_predict_proba_unavailable_without_probability(cancer):
    X, y = cancer
    model = SVC().fit(X[:100], y[:100])
    assert not hasattr(model, "predict_proba")
    with pytest.raises(AttributeError, match="has no attribute .predict_proba."):
        model.predict_proba(X)


# --------------------------------------------------------------------------- SVR
@pytest.mark.full
def test_svr_equals_sklearn():
    X, y = _standardised(load_diabetes)
    y = (y - y.mean()) / y.std()
    ours, ref = SVR(C=2.0, epsilon=0.2, **TOL).fit(X, y), sk_svm.SVR(C=2.0, epsilon=0.2, **TOL).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, atol=1e-4)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-4)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), atol=1e-4)


# --------------------------------------------------------------------------- bad input
def test_precomputed_kernel_not_supported(cancer):
    with pytest.raises(ValueError, match="kernel='precomputed' is not supported"):
        SVC(kernel="precomputed").fit(*cancer)


def test_bad_decision_function_shape(cancer):
    with pytest.raises(ValueError, match="decision_function_shape must be 'ovr' or 'ovo', got 'ovx'"):
        SVC(decision_function_shape="ovx").fit(*cancer)


@pytest.mark.parametrize("max_iter", [0, -2])
def test_bad_max_iter(cancer, max_iter):
    with pytest.raises(ValueError, match=f"max_iter must be -1 \\(no limit\\) or >= 1, got {max_iter}"):
        SVC(max_iter=max_iter).fit(*cancer)


def test_bad_cache_size(cancer):
    with pytest.raises(ValueError, match="cache_size must be a number of MB > 0, got 0"):
        SVC(cache_size=0).fit(*cancer)


def test_bad_C(cancer):
    with pytest.raises(ValueError, match="C must be > 0.0, got -1"):
        SVC(C=-1).fit(*cancer)


def test_bad_gamma(cancer):
    with pytest.raises(ValueError, match="gamma must be 'scale', 'auto' or a float > 0, got 'wide'"):
        SVC(gamma="wide").fit(*cancer)


def test_break_ties_with_ovo(wine):
    model = SVC(break_ties=True, decision_function_shape="ovo").fit(*wine)
    with pytest.raises(ValueError, match="break_ties must be False when decision_function_shape is 'ovo'"):
        model.predict(wine[0])
