"""The ensembles built on CART route new rows as scikit-learn's (issue 23.3).

Forests, bagging, AdaBoost and gradient boosting put their trees' thresholds midway between
the node's adjacent values (of the in-bag / the round's rows), as scikit-learn does
(:mod:`jaxclassic.tree.cart`, "Split points"). On the data of ``tests/tree/_rounded.py``
(300 rows rounded to two decimals, 2,000 continuous new rows, no tied gains in
scikit-learn) the predictions on the new rows equal scikit-learn's; before, the thresholds
sat at the bin edges of the whole training set and the new rows' predictions differed by up
to 0.28 (gradient boosting, 20 rounds), 1.42 (AdaBoost's decision function), and
``GradientBoostingRegressor``'s early stopping, which scores held-out (unseen) rows, stopped
at round 62 where scikit-learn stops at 64.
"""

import jax
import numpy as np
import pytest
from sklearn import ensemble as sk_ensemble
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from jaxclassic import ensemble, estimators
from jaxclassic.tree import fit_cart, predict
from tests.tree._rounded import rounded_data, sklearn_tie_free

X, Y_CLASS, Y_REG, X_NEW = rounded_data()
X32 = X.astype(np.float32)


@pytest.mark.full
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_forest_without_bootstrap_or_feature_draws_equals_sklearn_on_new_rows(task):
    # full-depth classification, regression with min_samples_leaf=3: no tied gains
    # 6 trees: the regression case then shares its compiled forest (6 x 300 weights) with the
    # bootstrap forest below; without bootstrap or feature draws the 6 trees are alike
    kw = dict(n_estimators=6, bootstrap=False, max_features=None, min_samples_leaf=1 if task == "classification" else 3)
    if task == "classification":
        sk = sk_ensemble.RandomForestClassifier(random_state=0, **kw).fit(X, Y_CLASS)
        ours = ensemble.fit_random_forest(X, Y_CLASS, task=task, key=jax.random.key(0), **kw)
        np.testing.assert_allclose(np.asarray(ensemble.predict_proba(ours, X_NEW)), sk.predict_proba(X_NEW),
                                   atol=1e-12)
    else:
        sk = sk_ensemble.RandomForestRegressor(random_state=0, **kw).fit(X, Y_REG)
        ours = ensemble.fit_random_forest(X, Y_REG, task=task, key=jax.random.key(0), **kw)
        np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X_NEW)), sk.predict(X_NEW), atol=1e-12)


def _members_equal_sklearn_trees(trees, counts, n_min):
    """Each member (a regression tree fitted to bootstrap counts) predicts the new rows as
    scikit-learn's tree fitted to the same counts, wherever that tree has no tied gains."""
    checked = 0
    for e in range(counts.shape[0]):
        sk = sklearn_tie_free(lambda rs: DecisionTreeRegressor(min_samples_leaf=3, random_state=rs), X32, Y_REG,
                              sample_weight=counts[e].astype(float))
        if sk is None:
            continue
        member = jax.tree.map(lambda a: np.asarray(a)[e], trees)  # sliced in NumPy: no eager compiles
        np.testing.assert_allclose(np.asarray(predict(member, X_NEW)), sk.predict(X_NEW),
                                   rtol=1e-12, atol=1e-12)
        checked += 1
    assert checked >= n_min


@pytest.mark.full
def test_bootstrap_forest_trees_route_new_rows_as_sklearn_trees_on_the_same_counts():
    forest = ensemble.fit_random_forest(X, Y_REG, task="regression", n_estimators=6, max_features=None,
                                        min_samples_leaf=3, key=jax.random.key(0))
    _members_equal_sklearn_trees(forest.trees, np.asarray(forest.counts), 2)


@pytest.mark.full
def test_bagged_cart_members_route_new_rows_as_sklearn_trees_on_the_same_counts():
    # fit_cart under vmap over the bootstrap weights: the traced binning and bin ranges
    bag = ensemble.fit_bagging(fit_cart, X, Y_REG, n_estimators=4, key=jax.random.key(0), task="regression",
                               min_samples_leaf=3)
    _members_equal_sklearn_trees(bag.estimators, np.asarray(bag.counts), 2)


@pytest.mark.full
def test_adaboost_decision_function_on_new_rows_equals_sklearn():
    def sk(rs):
        return sk_ensemble.AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=10,
                                              random_state=rs).fit(X, Y_CLASS)

    ref = [sk(rs).decision_function(X_NEW) for rs in range(3)]
    assert all(np.allclose(r, ref[0], rtol=0, atol=1e-12) for r in ref)  # no tied gains
    ours = ensemble.fit_adaboost(X, Y_CLASS, n_estimators=10, max_depth=3)
    np.testing.assert_allclose(np.asarray(ensemble.decision_function(ours, X_NEW)), ref[0], atol=1e-12)


@pytest.mark.full
def test_gradient_boosting_predictions_on_new_rows_equal_sklearn():
    kw = dict(n_estimators=20, max_depth=3)
    ref = [sk_ensemble.GradientBoostingRegressor(random_state=rs, **kw).fit(X, Y_REG).predict(X_NEW)
           for rs in range(3)]
    assert all(np.allclose(r, ref[0], rtol=0, atol=1e-12) for r in ref)  # no tied gains
    ours = ensemble.fit_gradient_boosting(X, Y_REG, **kw)
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X_NEW)), ref[0], atol=1e-12)


@pytest.mark.full
def test_gradient_boosting_early_stopping_stops_at_sklearns_round():
    """The held-out rows of early stopping are unseen by the trees: their scores, and so the
    round where the validation loss stops improving, follow the split points. Before: round 62,
    scikit-learn 64. (Some of the 64 rounds have splits of tied gain, the same partition of
    the training rows by another feature: the training predictions are equal, new rows'
    not all.)"""
    kw = dict(n_estimators=200, max_depth=3, n_iter_no_change=5, validation_fraction=0.2, random_state=0)
    sk = sk_ensemble.GradientBoostingRegressor(**kw).fit(X, Y_REG)
    ours = estimators.GradientBoostingRegressor(**kw).fit(X, Y_REG)
    assert ours.n_estimators_ == sk.n_estimators_ == 64
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), atol=1e-12)
