"""Tests of jaxclassic/estimators/discriminant.py beyond scikit-learn's generic checks:
the estimators give scikit-learn's probabilities (1e-6, float64) and attributes, with string
labels, and the binary LDA conventions (one coef_ row, decision_function = log-odds)."""

import numpy as np
import pytest
from sklearn import datasets
from sklearn import discriminant_analysis as sk_da
from sklearn import naive_bayes as sk_nb

from jaxclassic import estimators as est

X, Y = datasets.load_iris(return_X_y=True)
LABELS = np.array(["setosa", "versicolor", "virginica"])[Y]
RNG = np.random.default_rng(3)


@pytest.mark.parametrize("ours, ref", [
    (est.GaussianNB(), sk_nb.GaussianNB()),
    (est.LinearDiscriminantAnalysis(shrinkage=0.2), sk_da.LinearDiscriminantAnalysis(solver="lsqr", shrinkage=0.2)),
    (est.QuadraticDiscriminantAnalysis(reg_param=0.1), sk_da.QuadraticDiscriminantAnalysis(reg_param=0.1)),
])
@pytest.mark.full
def test_estimator_matches_sklearn_with_string_labels(ours, ref):
    ours.fit(X, LABELS)
    ref.fit(X, LABELS)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_allclose(ours.means_ if hasattr(ours, "means_") else ours.theta_,
                               ref.means_ if hasattr(ref, "means_") else ref.theta_, rtol=1e-12)


def test_categorical_nb_attributes_match_sklearn():
    Xc = RNG.integers(0, [3, 2, 4], size=(40, 3))
    yc = RNG.integers(0, 2, 40)
    ours = est.CategoricalNB(alpha=0.5, min_categories=[4, 2, 5]).fit(Xc, yc)
    ref = sk_nb.CategoricalNB(alpha=0.5, min_categories=[4, 2, 5]).fit(Xc, yc)
    np.testing.assert_array_equal(ours.n_categories_, ref.n_categories_)
    for a, b in zip(ours.feature_log_prob_, ref.feature_log_prob_):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Xc), ref.predict_proba(Xc), atol=1e-6)
    with pytest.raises(ValueError, match="category code 5"):
        ours.predict(np.array([[0, 0, 5]]))


@pytest.mark.full
def test_binary_lda_coef_and_decision_function_follow_sklearn():
    Xb, yb = X[50:], Y[50:]
    ours = est.LinearDiscriminantAnalysis().fit(Xb, yb)
    ref = sk_da.LinearDiscriminantAnalysis(solver="lsqr").fit(Xb, yb)
    assert ours.coef_.shape == (1, 4)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-8)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-8)
    np.testing.assert_allclose(ours.decision_function(Xb), ref.decision_function(Xb), rtol=1e-8, atol=1e-8)


def test_lda_priors_not_summing_to_one_warn_and_renormalise():
    with pytest.warns(UserWarning, match="Renormalizing"):
        m = est.LinearDiscriminantAnalysis(priors=[1.0, 1.0, 2.0]).fit(X, Y)
    np.testing.assert_allclose(m.priors_, [0.25, 0.25, 0.5])
