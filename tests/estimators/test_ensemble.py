"""Tests of jaxclassic/estimators/ensemble.py and boosting.py: scikit-learn's estimator checks
(for the classes not yet registered in ``jaxclassic.estimators``), and the estimators against
scikit-learn, xgboost and the functional core.

Cost: the checks run small instances (5 members / rounds, 32 bins); the other tests share
one data shape (100 rows -> one 128-row bucket, 4 features with few distinct values, so the
binning is exact and the trees equal scikit-learn's).
"""

import functools

import numpy as np
import pytest

from jaxclassic.estimators.boosting import (
    AdaBoostClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    XGBoostClassifier,
    XGBoostRegressor,
)
from jaxclassic.estimators.discriminant import GaussianNB
from jaxclassic.estimators.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from jaxclassic.estimators.tree import DecisionTreeClassifier

RNG = np.random.default_rng(0)
N, F = 100, 4
X = RNG.integers(0, 6, size=(N, F)).astype(np.float64)   # few distinct values: exact binning
Y = ((X[:, 0] + X[:, 1] + RNG.integers(0, 3, N)) > 5).astype(int)
Y3 = (X[:, 0] + X[:, 1] + RNG.integers(0, 3, N)) % 3
LABELS = np.array(["no", "yes"])[Y]
Y_REG = 2 * X[:, 0] + X[:, 1] ** 2 + RNG.normal(size=N)


# scikit-learn's checks of these classes run in tests/estimators/test_sklearn_checks.py (the one table)


# --------------------------------------------------------------------------- against the core
def _key(random_state):
    from jaxclassic.estimators.boosting import _key as key

    return key(random_state)


@pytest.mark.full
def test_random_forest_equals_the_functional_fit():
    # the estimator pads 100 rows to 128 with zero weights: no influence on bins, draws or trees
    from jaxclassic import ensemble as E

    forest = RandomForestClassifier(n_estimators=5, max_depth=4, random_state=3, oob_score=True).fit(X, Y3)
    core = E.fit_random_forest(X, Y3.astype(np.int32), n_estimators=5, max_depth=4, max_features="sqrt",
                               key=_key(3), n_classes=3)
    np.testing.assert_allclose(forest.predict_proba(X), E.predict_proba(core, X), atol=1e-12)
    np.testing.assert_allclose(forest.feature_importances_, E.feature_importances(core), atol=1e-12)
    assert forest.oob_score_ == pytest.approx(float(E.oob_score(core, X, Y3)), abs=1e-12)
    assert forest.oob_decision_function_.shape == (N, 3)


@pytest.mark.full
def test_bagging_of_a_functional_fit_equals_fit_bagging():
    from jaxclassic import ensemble as E
    from jaxclassic.linear import fit_ridge

    ridge = functools.partial(fit_ridge, alpha=1.0)
    bag = BaggingRegressor(ridge, n_estimators=5, random_state=1, oob_score=True).fit(X, Y_REG)
    core = E.fit_bagging(ridge, X, Y_REG, n_estimators=5, key=_key(1))
    np.testing.assert_allclose(bag.predict(X), E.predict(core, X), rtol=1e-10)
    assert bag.oob_score_ == pytest.approx(float(E.oob_score(core, X, Y_REG)), rel=1e-10)


@pytest.mark.full
def test_bagged_trees_are_a_forest_of_all_features():
    tree = DecisionTreeClassifier(max_depth=3)
    bag = BaggingClassifier(tree, n_estimators=5, random_state=2).fit(X, Y)
    forest = RandomForestClassifier(n_estimators=5, max_depth=3, max_features=None, random_state=2).fit(X, Y)
    np.testing.assert_allclose(bag.predict_proba(X), forest.predict_proba(X), atol=1e-12)


@pytest.mark.full
def test_xgboost_regressor_equals_the_functional_fit():
    from jaxclassic import ensemble as E

    Xv, yv = X[:40] + 0.5, Y_REG[:40][::-1]  # unrelated targets: the eval loss soon rises
    model = XGBoostRegressor(n_estimators=20, max_depth=3, learning_rate=0.5, early_stopping_rounds=2)
    model.fit(X, Y_REG, eval_set=[(Xv, yv)])
    core = E.fit_xgboost(X, Y_REG, n_estimators=20, max_depth=3, learning_rate=0.5, eval_set=(Xv, yv),
                         early_stopping_rounds=2)
    np.testing.assert_allclose(model.predict(X), E.predict(core, X), rtol=1e-10)
    assert model.best_iteration == int(core.best_iteration) < 19
    rmse = model.evals_result()["validation_0"]["rmse"]
    assert len(rmse) == model.n_iter_ == int(core.n_iter)
    np.testing.assert_allclose(rmse, np.sqrt(2 * np.asarray(core.eval_loss)[: len(rmse)]), rtol=1e-10)
    np.testing.assert_allclose(model.feature_importances_, E.feature_importances(core), rtol=1e-10)


# --------------------------------------------------------------------------- against scikit-learn
@pytest.mark.full
def test_adaboost_equals_sklearn_on_exact_bins():
    from sklearn.ensemble import AdaBoostClassifier as SkAdaBoost
    from sklearn.tree import DecisionTreeClassifier as SkTree

    for y in (LABELS, Y3):
        ours = AdaBoostClassifier(n_estimators=10, learning_rate=0.5).fit(X, y)
        ref = SkAdaBoost(SkTree(max_depth=1), n_estimators=10, learning_rate=0.5, random_state=0).fit(X, y)
        np.testing.assert_allclose(ours.estimator_weights_, ref.estimator_weights_, rtol=1e-10)
        np.testing.assert_allclose(ours.estimator_errors_, ref.estimator_errors_, rtol=1e-10)
        np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-10)
        np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-10)
        np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
        np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-10)
        last = list(ours.staged_predict(X))[-1]
        np.testing.assert_array_equal(last, ref.predict(X))


@pytest.mark.full
def test_gradient_boosting_regressor_equals_sklearn_on_exact_bins():
    from sklearn.ensemble import GradientBoostingRegressor as SkGB

    for loss in ("squared_error", "absolute_error"):
        ours = GradientBoostingRegressor(loss=loss, n_estimators=10, max_depth=2).fit(X, Y_REG)
        ref = SkGB(loss=loss, n_estimators=10, max_depth=2, random_state=0).fit(X, Y_REG)
        np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-10)
        np.testing.assert_allclose(ours.train_score_, ref.train_score_, rtol=1e-10)


@pytest.mark.full
def test_gradient_boosting_classifier_equals_sklearn_binary():
    from sklearn.ensemble import GradientBoostingClassifier as SkGB

    ours = GradientBoostingClassifier(n_estimators=10, max_depth=2).fit(X, LABELS)
    ref = SkGB(n_estimators=10, max_depth=2, random_state=0).fit(X, LABELS)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), rtol=1e-10)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)
    np.testing.assert_allclose(ours.train_score_, ref.train_score_, rtol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@pytest.mark.full
def test_gradient_boosting_classifier_equals_sklearn_multinomial_on_iris():
    # K = 3: the multinomial deviance, K trees a round (iris: exact bins; every random_state
    # tried gives the same training predictions, tests/ensemble/test_gradient_boosting.py)
    from sklearn.datasets import load_iris
    from sklearn.ensemble import GradientBoostingClassifier as SkGB

    Xi, yi = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[yi]
    ours = GradientBoostingClassifier(n_estimators=10, max_depth=2).fit(Xi, names)
    ref = SkGB(n_estimators=10, max_depth=2, random_state=0).fit(Xi, names)
    assert ours.params_.trees.feature.shape[:2] == (10, 3)
    np.testing.assert_allclose(ours.decision_function(Xi), ref.decision_function(Xi), atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Xi), ref.predict_proba(Xi), atol=1e-12)
    np.testing.assert_allclose(ours.train_score_, ref.train_score_, rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(Xi), ref.predict(Xi))
    # importances: petal length and width cut the same training rows in these trees (tied
    # gains, broken by the lower index here, by the random feature order in scikit-learn), so
    # their importance is shared differently; the pair's sum and the other features' agree
    imp, sk = ours.feature_importances_, ref.feature_importances_
    np.testing.assert_allclose(imp[:2], sk[:2], atol=1e-12)
    np.testing.assert_allclose(imp[2] + imp[3], sk[2] + sk[3], atol=1e-12)


@pytest.mark.full
def test_gradient_boosting_regressor_feature_importances_equal_sklearn():
    from sklearn.ensemble import GradientBoostingRegressor as SkGB

    ours = GradientBoostingRegressor(n_estimators=10, max_depth=2, min_samples_leaf=5).fit(X, Y_REG)
    ref = SkGB(n_estimators=10, max_depth=2, min_samples_leaf=5, random_state=0).fit(X, Y_REG)
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-12)


@pytest.mark.full
def test_random_forest_accuracy_close_to_sklearn_on_breast_cancer():
    # held-out accuracy of 50 trees; different bootstrap draws and 255 quantile bins: the two
    # forests' accuracies differ by a few test rows (observed < 0.01; margin 0.03 = 5 of 171 rows)
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import RandomForestClassifier as SkForest
    from sklearn.model_selection import train_test_split

    Xb, yb = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(Xb, yb, test_size=0.3, stratify=yb, random_state=0)
    ours = RandomForestClassifier(n_estimators=50, random_state=0).fit(Xtr, ytr).score(Xte, yte)
    ref = SkForest(n_estimators=50, random_state=0).fit(Xtr, ytr).score(Xte, yte)
    assert ours > 0.92 and abs(ours - ref) <= 0.03, (ours, ref)


# --------------------------------------------------------------------------- scikit-learn's tools
@pytest.mark.full
def test_pandas_input():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    forest = RandomForestClassifier(n_estimators=5, random_state=0).fit(frame, pd.Series(LABELS))
    assert list(forest.feature_names_in_) == ["a", "b", "c", "d"]
    same = RandomForestClassifier(n_estimators=5, random_state=0).fit(X, LABELS)
    np.testing.assert_array_equal(forest.predict(frame), same.predict(X))
    xgb = XGBoostClassifier(n_estimators=5).fit(frame, LABELS)
    np.testing.assert_allclose(xgb.predict_proba(frame), XGBoostClassifier(n_estimators=5).fit(X, LABELS).predict_proba(X))


@pytest.mark.full
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_follows_the_input(dtype):
    Xd, yd = X.astype(dtype), Y_REG.astype(dtype)
    for model in (XGBoostRegressor(n_estimators=5), GradientBoostingRegressor(n_estimators=5),
                  RandomForestRegressor(n_estimators=5, random_state=0)):
        pred = model.fit(Xd, yd).predict(Xd)
        assert pred.dtype == dtype, type(model).__name__
    proba = AdaBoostClassifier(n_estimators=5).fit(Xd, Y).predict_proba(Xd)
    assert proba.dtype == dtype
    ref = XGBoostRegressor(n_estimators=5).fit(X, Y_REG).predict(X)
    np.testing.assert_allclose(XGBoostRegressor(n_estimators=5).fit(Xd, yd).predict(Xd), ref,
                               rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-4)


# --------------------------------------------------------------------------- bad input
def test_bagging_refuses_other_estimator_objects():
    with pytest.raises(ValueError, match="estimator must be None"):
        BaggingClassifier(GaussianNB(), n_estimators=2).fit(X, Y)


@pytest.mark.full
def test_oob_score_needs_bootstrap():
    with pytest.raises(ValueError, match="bootstrap=True"):
        RandomForestClassifier(n_estimators=2, bootstrap=False, oob_score=True).fit(X, Y)


def test_xgboost_eval_set_holds_one_pair_and_early_stopping_needs_it():
    with pytest.raises(ValueError, match="one"):
        XGBoostRegressor(n_estimators=2).fit(X, Y_REG, eval_set=[(X, Y_REG), (X, Y_REG)])
    with pytest.raises(ValueError, match="eval_set"):
        XGBoostRegressor(n_estimators=2, early_stopping_rounds=2).fit(X, Y_REG)


@pytest.mark.full
def test_xgboost_weights_equal_repeats_on_every_row():
    """scikit-learn's check_sample_weight_equivalence data (15 rows x 30 features, integer
    weights 0..4): weight k and k repeated rows grow the same trees (every split feature) and
    predict every row alike, the zero-weight ones included (float64, 1e-12). Many splits tie
    exactly there (other features cutting off the same training rows); their gains differ in
    the last bits between summed weights and summed repeats, and before the engine's tie
    tolerance (``tree._engine.TIE_ULPS``) another feature could win, routing the zero-weight
    rows elsewhere (by up to 1e-3 and more)."""
    from sklearn.utils import shuffle

    rng = np.random.RandomState(42)
    Xc = rng.rand(15, 30)
    yc = rng.randint(0, 3, size=15).astype(float)
    sw = rng.randint(0, 5, size=15)
    Xw, yw, sww = shuffle(Xc, yc, sw, random_state=0)
    repeated = XGBoostRegressor(n_estimators=5, max_bin=32).fit(Xc.repeat(sw, axis=0), yc.repeat(sw))
    weighted = XGBoostRegressor(n_estimators=5, max_bin=32).fit(Xw, yw, sample_weight=sww)
    assert (sw == 0).any()
    np.testing.assert_array_equal(repeated.params_.trees.feature, weighted.params_.trees.feature)
    np.testing.assert_allclose(repeated.predict(Xc), weighted.predict(Xc), atol=1e-12)
