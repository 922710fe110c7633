"""The package's estimators inside scikit-learn's Pipeline, GridSearchCV and cross_val_score.

Reference: the same scikit-learn machinery around scikit-learn's own estimators, on the same
folds. Tolerances: closed forms (Ridge, GaussianNB) 1e-8 relative in float64; logistic
regression 1e-6 (scikit-learn's lbfgs run at tol=1e-10, ours Newton to a gradient norm of
1e-8). Also: the functional ``grid_search`` picks the same point as ``GridSearchCV``.
"""

import importlib

import jax
import numpy as np
import pytest
from sklearn import linear_model as sk_linear
from sklearn import naive_bayes as sk_nb
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from jaxclassic.model_selection import fold_indices, grid_search, kfold_weights, neg_mse_scorer


def _estimator(name):
    module = importlib.import_module("jaxclassic.estimators")
    cls = getattr(module, name, None)
    if cls is None:
        pytest.skip(f"jaxclassic.estimators.{name} does not exist yet")
    return cls


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X[:200], y[:200]  # 200 rows: fast; not a power of two, so the estimators pad rows


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).choice(X.shape[0], 200, replace=False)
    return X[idx], y[idx]


def test_ridge_in_pipeline_equals_sklearn(diabetes):
    X, y = diabetes
    Ridge = _estimator("Ridge")
    ours = make_pipeline(StandardScaler(), Ridge(alpha=3.0)).fit(X, y)
    ref = make_pipeline(StandardScaler(), sk_linear.Ridge(alpha=3.0)).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-8)
    assert ours.score(X, y) == pytest.approx(ref.score(X, y), rel=1e-10)


@pytest.mark.full
def test_ridge_grid_search_cv_in_pipeline_equals_sklearn(diabetes):
    X, y = diabetes
    Ridge = _estimator("Ridge")
    grid = {"ridge__alpha": np.logspace(-2, 3, 6)}
    folds = fold_indices(kfold_weights(X.shape[0], 5, key=jax.random.key(0)))
    ours = GridSearchCV(make_pipeline(StandardScaler(), Ridge()), grid, cv=folds,
                        scoring="neg_mean_squared_error").fit(X, y)
    ref = GridSearchCV(make_pipeline(StandardScaler(), sk_linear.Ridge()), grid, cv=folds,
                       scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], rtol=1e-8)
    assert ours.best_params_ == ref.best_params_


@pytest.mark.full
def test_functional_grid_search_chooses_as_grid_search_cv(diabetes):
    from jaxclassic.linear import fit_ridge, predict

    X, y = diabetes
    alphas = np.logspace(-3, 1, 9)
    weights = kfold_weights(X.shape[0], 5, key=jax.random.key(1))
    ours = grid_search(fit_ridge, neg_mse_scorer(predict), X, y, {"alpha": alphas}, weights)
    ref = GridSearchCV(sk_linear.Ridge(), {"alpha": alphas}, cv=fold_indices(weights),
                       scoring="neg_mean_squared_error").fit(X, y)
    assert ours.best_point["alpha"] == ref.best_params_["alpha"]
    np.testing.assert_allclose(ours.mean_scores, ref.cv_results_["mean_test_score"], rtol=1e-8)
    np.testing.assert_allclose(ours.params.coef, ref.best_estimator_.coef_, rtol=1e-7)


@pytest.mark.full
def test_logistic_regression_grid_search_cv_equals_sklearn(cancer):
    X, y = cancer
    LogisticRegression = _estimator("LogisticRegression")
    grid = {"logisticregression__C": [0.01, 0.1, 1.0, 10.0]}
    cv = StratifiedKFold(4)
    ours = GridSearchCV(make_pipeline(StandardScaler(), LogisticRegression()), grid, cv=cv,
                        scoring="neg_log_loss").fit(X, y)
    ref = GridSearchCV(make_pipeline(StandardScaler(), sk_linear.LogisticRegression(tol=1e-10, max_iter=10_000)),
                       grid, cv=cv, scoring="neg_log_loss").fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"], rtol=1e-6)
    assert ours.best_params_ == ref.best_params_
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-5, atol=1e-7)


def test_gaussian_nb_cross_val_score_equals_sklearn(cancer):
    X, y = cancer
    GaussianNB = _estimator("GaussianNB")
    cv = StratifiedKFold(5)
    ours = cross_val_score(GaussianNB(), X, y, cv=cv, scoring="neg_log_loss")
    ref = cross_val_score(sk_nb.GaussianNB(), X, y, cv=cv, scoring="neg_log_loss")
    np.testing.assert_allclose(ours, ref, rtol=1e-8)
    acc = cross_val_score(make_pipeline(StandardScaler(), GaussianNB()), X, y, cv=cv)
    acc_ref = cross_val_score(make_pipeline(StandardScaler(), sk_nb.GaussianNB()), X, y, cv=cv)
    np.testing.assert_array_equal(acc, acc_ref)
