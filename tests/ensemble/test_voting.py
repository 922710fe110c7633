"""Voting of any fits (jaxclassic.ensemble.voting) against scikit-learn's VotingClassifier /
VotingRegressor (x64 on).

The members are twins: our softmax (l2 = 1/C, tol 1e-12) / LDA / CART depth 2 vs scikit-learn's
LogisticRegression(C) / LinearDiscriminantAnalysis / DecisionTreeClassifier(max_depth=2), and
ridge / OLS / regression tree vs Ridge / LinearRegression / DecisionTreeRegressor. Each twin
is checked first (same predictions, probabilities to 1e-8), then the voting rule: the same
predictions, and probabilities / values to 1e-8 (the twins' own agreement). Data: 90 x 3
continuous (no two tree splits tie in gain; CART's 255 bins hold every distinct value).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import _dispatch, discriminant, ensemble, linear, tree
from jaxclassic.ensemble.voting import fit_voting

N = 90
RNG = np.random.default_rng(11)
Y3 = (np.arange(N) % 3).astype(np.int32)
X = RNG.normal(size=(3, 3))[Y3] * 1.2 + RNG.normal(size=(N, 3))
Y_REG = X @ np.array([1.0, -0.5, 2.0]) + np.sin(2 * X[:, 0]) + 0.2 * RNG.normal(size=N)

CLASSIFIER_FITS = [
    functools.partial(linear.fit_softmax, l2=1.0, tol=1e-12),
    discriminant.fit_lda,
    functools.partial(tree.fit_cart, max_depth=2),
]
REGRESSOR_FITS = [
    functools.partial(linear.fit_ridge, alpha=3.0),
    linear.fit_ols,
    functools.partial(tree.fit_cart, task="regression", max_depth=2),
]


def _sk_classifiers():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    return [("softmax", LogisticRegression(C=1.0, tol=1e-12, max_iter=10000)),
            ("lda", LinearDiscriminantAnalysis()),
            ("tree", DecisionTreeClassifier(max_depth=2, random_state=0))]


def _sk_regressors():
    from sklearn.linear_model import LinearRegression, Ridge
    from sklearn.tree import DecisionTreeRegressor

    return [("ridge", Ridge(alpha=3.0)), ("ols", LinearRegression()),
            ("tree", DecisionTreeRegressor(max_depth=2, random_state=0))]


@pytest.fixture(scope="module")
def soft():
    return fit_voting(CLASSIFIER_FITS, X, Y3, voting="soft")


@pytest.mark.full
def test_members_equal_their_sklearn_twins(soft):
    for params, (_, sk) in zip(soft.estimators, _sk_classifiers()):
        sk.fit(X, Y3)
        np.testing.assert_array_equal(_dispatch.predict(params, X), sk.predict(X))
        np.testing.assert_allclose(_dispatch.predict_proba(params, X),
                                   sk.predict_proba(X), atol=1e-8)


@pytest.mark.full
@pytest.mark.parametrize("weights", [None, [2.0, 1.0, 0.5]])
def test_soft_voting_equals_sklearn(weights):
    from sklearn.ensemble import VotingClassifier

    params = fit_voting(CLASSIFIER_FITS, X, Y3, voting="soft", weights=weights)
    sk = VotingClassifier(_sk_classifiers(), voting="soft", weights=weights).fit(X, Y3)
    np.testing.assert_array_equal(ensemble.predict(params, X), sk.predict(X))
    np.testing.assert_allclose(ensemble.predict_proba(params, X), sk.predict_proba(X), atol=1e-8)


@pytest.mark.full
@pytest.mark.parametrize("weights", [None, [1.0, 1.0, 2.0], [1.0, 1.0, 0.0]])
def test_hard_voting_equals_sklearn(weights):
    # None: 1-1-1 splits are tied (lowest class); [1, 1, 2]: the tree breaks 2-2 ties;
    # [1, 1, 0]: a zero-weight member, 1-1 ties between the other two
    from sklearn.ensemble import VotingClassifier

    params = fit_voting(CLASSIFIER_FITS, X, Y3, voting="hard", weights=weights)
    sk = VotingClassifier(_sk_classifiers(), voting="hard", weights=weights).fit(X, Y3)
    np.testing.assert_array_equal(ensemble.predict(params, X), sk.predict(X))


def test_hard_vote_ties_go_to_the_lowest_class(soft):
    # members 0 and 2 only, equal weights: where they disagree the lower class wins
    pair = soft._replace(estimators=(soft.estimators[0], soft.estimators[2]),
                         weights=jnp.ones(2), soft=jnp.asarray(False))
    a, b = (np.asarray(_dispatch.predict(p, X)) for p in pair.estimators)
    assert (a != b).any()
    np.testing.assert_array_equal(ensemble.predict(pair, X), np.minimum(a, b))
    shares = np.asarray(ensemble.predict_proba(pair, X))
    np.testing.assert_allclose(shares[a != b].max(axis=1), 0.5)


@pytest.mark.full
def test_voting_regressor_equals_sklearn():
    from sklearn.ensemble import VotingRegressor

    weights = [1.0, 0.5, 2.0]
    params = fit_voting(REGRESSOR_FITS, X, Y_REG, weights=weights, task="regression")
    sk = VotingRegressor(_sk_regressors(), weights=weights).fit(X, Y_REG)
    for ours, (_, twin) in zip(params.estimators, _sk_regressors()):
        np.testing.assert_allclose(ensemble.predict(params._replace(estimators=(ours,), weights=jnp.ones(1)), X),
                                   twin.fit(X, Y_REG).predict(X), atol=1e-10)
    np.testing.assert_allclose(ensemble.predict(params, X), sk.predict(X), atol=1e-10)


def test_fit_voting_regressor_is_deprecated_and_equals_task_regression():
    # issue 27: one function with task=; the old name warns, names the new call and gives the same model
    fits = REGRESSOR_FITS[:2]
    with pytest.warns(DeprecationWarning, match=r'fit_voting\(\.\.\., task="regression"\)'):
        old = ensemble.fit_voting_regressor(fits, X, Y_REG, weights=[1.0, 2.0])
    new = fit_voting(fits, X, Y_REG, weights=[1.0, 2.0], task="regression")
    assert isinstance(old, ensemble.RegressionVoting)
    jax.tree.map(np.testing.assert_array_equal, old, new)
    assert "fit_voting_regressor" not in ensemble.__all__


def test_classification_voting_reports_n_classes(soft):
    assert soft.n_classes == 3 and isinstance(soft.n_classes, int)


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(soft):
    pad = RNG.normal(size=(6, 3)) * 4
    Xp = np.concatenate([X, pad])
    yp = np.concatenate([Y3, [0, 1, 2, 2, 1, 0]]).astype(np.int32)
    sw = np.concatenate([np.ones(N), np.zeros(6)])
    padded = fit_voting(CLASSIFIER_FITS, Xp, yp, voting="soft", sample_weight=sw)
    np.testing.assert_allclose(ensemble.predict_proba(padded, X), ensemble.predict_proba(soft, X), atol=1e-9)


def test_jit_equals_eager(soft):
    np.testing.assert_array_equal(jax.jit(ensemble.predict)(soft, X), ensemble.predict(soft, X))
    np.testing.assert_allclose(jax.jit(ensemble.predict_proba)(soft, X), ensemble.predict_proba(soft, X),
                               rtol=1e-12, atol=1e-15)


def test_empty_fits_raise():
    with pytest.raises(ValueError, match="fits must hold at least one fit"):
        fit_voting([], X, Y3)


def test_fits_not_a_sequence_raise():
    with pytest.raises(TypeError, match="fits must be a sequence of fit callables"):
        fit_voting(discriminant.fit_lda, X, Y3)


def test_weights_of_wrong_length_raise():
    with pytest.raises(ValueError, match=r"weights must have length 3 \(one per fit\)"):
        fit_voting(CLASSIFIER_FITS, X, Y3, weights=[1.0, 2.0])


def test_negative_weights_raise():
    with pytest.raises(ValueError, match="weights must be finite and non-negative"):
        fit_voting(CLASSIFIER_FITS, X, Y3, weights=[1.0, -1.0, 1.0])


def test_unknown_voting_raises():
    with pytest.raises(ValueError, match=r"voting must be one of \['hard', 'soft'\], got 'mean'"):
        fit_voting(CLASSIFIER_FITS, X, Y3, voting="mean")


def test_one_class_raises():
    with pytest.raises(ValueError, match="y must contain at least 2 classes"):
        fit_voting([discriminant.fit_lda], X, np.zeros(N, np.int32))


def test_soft_voting_without_predict_proba_raises():
    with pytest.raises(ValueError, match=r"voting='soft' needs predict_proba, but fits\[0\] returns PerceptronParams"):
        fit_voting([linear.fit_perceptron, discriminant.fit_lda], X, (Y3 > 0).astype(np.int32), voting="soft")
