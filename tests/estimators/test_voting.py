"""Tests of jaxclassic/estimators/voting.py: voting and stacking against scikit-learn's
estimators of the same members (the same data as tests/estimators/test_ensemble.py), in
scikit-learn's tools, and their bad input. scikit-learn's checks run in
tests/estimators/test_sklearn_checks.py (the one table).
"""

import numpy as np
import pytest

from jaxclassic.estimators.discriminant import GaussianNB
from jaxclassic.estimators.linear_regression import Ridge
from jaxclassic.estimators.tree import DecisionTreeClassifier, DecisionTreeRegressor
from jaxclassic.estimators.voting import (
    StackingClassifier,
    StackingRegressor,
    VotingClassifier,
    VotingRegressor,
)
from tests.estimators.test_ensemble import LABELS, X, Y, Y3, Y_REG


def _members():
    return [("tree", DecisionTreeClassifier(max_depth=2)), ("nb", GaussianNB())]


@pytest.mark.full
def test_voting_equals_sklearn_voting_of_the_same_members():
    from sklearn.ensemble import VotingClassifier as SkVoting

    for voting, weights in (("hard", [1.0, 2.0]), ("soft", None)):
        ours = VotingClassifier(_members(), voting=voting, weights=weights).fit(X, Y3)
        ref = SkVoting(_members(), voting=voting, weights=weights).fit(X, Y3)
        np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
        if voting == "soft":
            np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)
    assert not hasattr(VotingClassifier(_members()).fit(X, Y3), "predict_proba")


@pytest.mark.full
def test_stacking_equals_sklearn_stacking_of_the_same_members():
    from sklearn.ensemble import StackingClassifier as SkStacking
    from sklearn.ensemble import StackingRegressor as SkStackingR

    final = GaussianNB()
    ours = StackingClassifier(_members(), final, passthrough=True).fit(X, LABELS)
    ref = SkStacking(_members(), final, passthrough=True).fit(X, LABELS)
    np.testing.assert_allclose(ours.transform(X), ref.transform(X), atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    members = [("tree", DecisionTreeRegressor(max_depth=2)), ("ridge", Ridge())]
    ours = StackingRegressor(members, Ridge(alpha=2.0), cv=3).fit(X, Y_REG)
    ref = SkStackingR(members, Ridge(alpha=2.0), cv=3).fit(X, Y_REG)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-8)


# --------------------------------------------------------------------------- scikit-learn's tools
@pytest.mark.full
def test_voting_and_stacking_in_pipeline_and_grid_search():
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    pipe = make_pipeline(StandardScaler(), VotingClassifier(_members(), voting="soft")).fit(X, LABELS)
    assert pipe.score(X, LABELS) > 0.7
    search = GridSearchCV(StackingClassifier(_members(), cv=3), {"tree__max_depth": [1, 2]},
                          cv=KFold(3)).fit(X, LABELS)
    assert search.best_params_["tree__max_depth"] in (1, 2)
    regress = GridSearchCV(VotingRegressor([("tree", DecisionTreeRegressor()), ("ridge", Ridge())]),
                           {"tree__max_depth": [2, 3]}, cv=KFold(3)).fit(X, Y_REG)
    assert regress.best_score_ > 0.5


# --------------------------------------------------------------------------- bad input
def test_voting_weights_length():
    with pytest.raises(ValueError, match="weights"):
        VotingClassifier(_members(), weights=[1.0]).fit(X, Y)
