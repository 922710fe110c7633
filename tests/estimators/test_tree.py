"""Tests of jaxclassic/estimators/tree.py: scikit-learn's estimator checks (for the classes
not yet registered in ``jaxclassic.estimators``, which test_sklearn_checks.py runs), and the
trees against scikit-learn's on data with few distinct values (exact binning: same
partitions, probabilities to 1e-12, same feature importances, pruning path, depth, leaves),
in a Pipeline and GridSearchCV, on DataFrames, int / float32 / float64 and NaN input; ID3 on
play-tennis against Mitchell's tree, C4.5 against the core.

Shapes are shared (100 rows -> one 128-row bucket, 4 features, 3 classes) so the tests
reuse a few compiled programs. Trees are depth-limited where compared with scikit-learn:
deeper nodes of a few rows have ties in the gain, which scikit-learn breaks by its random
feature order and jaxclassic by the lowest column.
"""

import numpy as np
import pytest
from sklearn import tree as sk_tree
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from jaxclassic.datasets import load_play_tennis
from jaxclassic.estimators.tree import (
    C45Classifier,
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ID3Classifier,
)

RNG = np.random.default_rng(0)
N, F = 100, 4
X = RNG.integers(0, 5, size=(N, F)).astype(np.float64)   # few distinct values: exact binning
Y = (X[:, 0] + X[:, 1] + RNG.integers(0, 3, N)) % 3
LABELS = np.array(["a", "b", "c"])[Y.astype(int)]
Y_REG = 2 * X[:, 0] + X[:, 1] ** 2 + RNG.normal(size=N)
X_NAN = np.where(RNG.random(X.shape) < 0.1, np.nan, X)
DEPTH = 3


# --------------------------------------------------------------------------- estimator checks
# scikit-learn's checks of these classes run in tests/estimators/test_sklearn_checks.py (the one table)


# --------------------------------------------------------------------------- CART vs scikit-learn
@pytest.mark.full
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_classifier_equals_sklearn(criterion):
    ours = DecisionTreeClassifier(criterion=criterion, max_depth=DEPTH).fit(X, LABELS)
    ref = sk_tree.DecisionTreeClassifier(criterion=criterion, max_depth=DEPTH, random_state=0).fit(X, LABELS)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    assert ours.n_classes_ == ref.n_classes_ == 3
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-12)
    assert (ours.get_depth(), ours.get_n_leaves()) == (ref.get_depth(), ref.get_n_leaves())
    assert ours.score(X, LABELS) == pytest.approx(ref.score(X, LABELS), abs=1e-12)
    # the same leaf for the same rows: the partitions agree
    leaves, ref_leaves = ours.apply(X), ref.apply(X)
    assert len(set(zip(leaves, ref_leaves))) == len(set(leaves)) == len(set(ref_leaves))


@pytest.mark.full
def test_log_loss_criterion_is_entropy():
    a = DecisionTreeClassifier(criterion="log_loss", max_depth=DEPTH).fit(X, Y)
    b = DecisionTreeClassifier(criterion="entropy", max_depth=DEPTH).fit(X, Y)
    np.testing.assert_array_equal(a.params_.impurity, b.params_.impurity)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal(a.predict_log_proba(X), np.log(b.predict_proba(X)))


@pytest.mark.full
def test_regressor_equals_sklearn():
    ours = DecisionTreeRegressor(max_depth=DEPTH).fit(X, Y_REG)
    ref = sk_tree.DecisionTreeRegressor(max_depth=DEPTH, random_state=0).fit(X, Y_REG)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-12)
    assert ours.score(X, Y_REG) == pytest.approx(ref.score(X, Y_REG), rel=1e-12)
    assert (ours.get_depth(), ours.get_n_leaves()) == (ref.get_depth(), ref.get_n_leaves())


@pytest.mark.full
def test_pruning_path_and_ccp_alpha_equal_sklearn():
    ours = DecisionTreeClassifier(max_depth=DEPTH)
    ref = sk_tree.DecisionTreeClassifier(max_depth=DEPTH, random_state=0)
    path, ref_path = ours.cost_complexity_pruning_path(X, Y), ref.cost_complexity_pruning_path(X, Y)
    np.testing.assert_allclose(path.ccp_alphas, ref_path.ccp_alphas, atol=1e-12)
    np.testing.assert_allclose(path.impurities, ref_path.impurities, atol=1e-12)
    alpha = float(ref_path.ccp_alphas[-3])
    ours = ours.set_params(ccp_alpha=alpha).fit(X, Y)
    ref = ref.set_params(ccp_alpha=alpha).fit(X, Y)
    assert 1 < ours.get_n_leaves() == ref.get_n_leaves()
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)


@pytest.mark.full
def test_pipeline_and_grid_search_pick_sklearns_depth():
    grid = {"decisiontreeclassifier__max_depth": [1, 2, 3]}
    cv = KFold(4, shuffle=True, random_state=0)
    ours = GridSearchCV(make_pipeline(StandardScaler(), DecisionTreeClassifier()), grid, cv=cv).fit(X, LABELS)
    ref = GridSearchCV(make_pipeline(StandardScaler(), sk_tree.DecisionTreeClassifier(random_state=0)),
                       grid, cv=cv).fit(X, LABELS)
    assert ours.best_params_ == ref.best_params_
    # held-out rows may hold a value between two training values of a node, where the two
    # thresholds differ (the midpoint in the whole training set vs in the node): a row or two
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"],
                               atol=0.02)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


# --------------------------------------------------------------------------- input kinds
def test_dataframe_input_keeps_feature_names():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["p", "q", "r", "s"])
    ours = DecisionTreeClassifier(max_depth=DEPTH).fit(frame, LABELS)
    np.testing.assert_array_equal(ours.feature_names_in_, ["p", "q", "r", "s"])
    np.testing.assert_array_equal(ours.predict(frame), DecisionTreeClassifier(max_depth=DEPTH).fit(X, LABELS).predict(X))
    with pytest.warns(UserWarning, match="feature names"):
        ours.predict(X)


def test_few_distinct_values_fit_at_32_bins_as_the_core_at_255():
    """Every feature has 5 values: the estimator bins at 32 (``n_bins_``), and predicts new
    rows (values between and beyond the training ones) as the core's tree at 255 bins;
    continuous columns keep 255."""
    from jaxclassic.tree import fit_cart, predict_proba

    ours = DecisionTreeClassifier(max_depth=DEPTH).fit(X, Y)
    assert ours.n_bins_ == 32
    ref = fit_cart(X, Y.astype(np.int32), max_depth=DEPTH, n_bins=255, n_classes=3)
    new = np.random.default_rng(5).integers(-2, 13, size=(60, F)) / 2.0
    np.testing.assert_array_equal(ours.predict_proba(new), np.asarray(predict_proba(ref, new)))
    continuous = np.random.default_rng(6).normal(size=(N, F))
    assert DecisionTreeClassifier(max_depth=DEPTH).fit(continuous, Y).n_bins_ == 255


def test_int_input_equals_float64_input():
    a = DecisionTreeClassifier(max_depth=DEPTH).fit(X.astype(np.int64), Y)
    b = DecisionTreeClassifier(max_depth=DEPTH).fit(X, Y)
    assert a.params_.value.dtype == np.float64
    np.testing.assert_array_equal(a.predict_proba(X.astype(np.int32)), b.predict_proba(X))


@pytest.mark.full
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_dtypes_are_kept(dtype):
    ours = DecisionTreeClassifier(max_depth=DEPTH).fit(X.astype(dtype), Y)
    proba = ours.predict_proba(X.astype(dtype))
    assert proba.dtype == dtype and ours.params_.threshold.dtype == dtype
    ref = DecisionTreeClassifier(max_depth=DEPTH).fit(X, Y)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    np.testing.assert_allclose(proba, ref.predict_proba(X), rtol=1e-6)
    reg = DecisionTreeRegressor(max_depth=DEPTH).fit(X.astype(dtype), Y_REG.astype(dtype))
    assert reg.predict(X.astype(dtype)).dtype == dtype


def test_nan_input_equals_sklearn_on_the_training_rows():
    ours = DecisionTreeClassifier(max_depth=DEPTH).fit(X_NAN, Y)
    ref = sk_tree.DecisionTreeClassifier(max_depth=DEPTH, random_state=0).fit(X_NAN, Y)
    # the training rows follow the same partitions; new values between two training values
    # may differ (a threshold is the midpoint in the whole training set, scikit-learn's: in
    # the node), so only the training rows are compared
    np.testing.assert_allclose(ours.predict_proba(X_NAN), ref.predict_proba(X_NAN), atol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, ref.feature_importances_, atol=1e-12)
    assert est_tags(ours).input_tags.allow_nan


def est_tags(estimator):
    from sklearn.utils import get_tags

    return get_tags(estimator)


def test_inf_input_is_an_error():
    with pytest.raises(ValueError, match="infinity"):
        DecisionTreeClassifier().fit(np.where(X == 0, np.inf, X), Y)


@pytest.mark.parametrize("cls", [DecisionTreeClassifier, ID3Classifier, C45Classifier])
def test_one_class_is_a_clear_error(cls):
    with pytest.raises(ValueError, match="at least 2 classes, got 1 class"):
        cls().fit(X, np.zeros(N))


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("params, match", [
    ({"criterion": "friedman"}, "criterion must be one of"),
    ({"max_depth": 0}, "max_depth must be None or an int >= 1, got 0"),
    ({"ccp_alpha": -1.0}, "ccp_alpha must be >= 0, got -1.0"),
    ({"min_samples_leaf": 0}, "min_samples_leaf must be an int >= 1"),
    ({"min_samples_split": 1.5}, "min_samples_split must be an int >= 2 or a float"),
    ({"max_features": "all"}, "max_features must be None, an int"),
])
def test_bad_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        DecisionTreeClassifier(**params).fit(X, Y)


def test_regressor_criterion_is_squared_error_only():
    with pytest.raises(ValueError, match="criterion must be one of \\['squared_error'\\]"):
        DecisionTreeRegressor(criterion="gini").fit(X, Y_REG)


def test_max_features_draws_from_random_state():
    a = DecisionTreeClassifier(max_depth=DEPTH, max_features=2, random_state=1).fit(X, Y)
    b = DecisionTreeClassifier(max_depth=DEPTH, max_features="sqrt", random_state=1).fit(X, Y)
    assert a.max_features_ == b.max_features_ == 2
    np.testing.assert_array_equal(a.params_.feature, b.params_.feature)


def test_refit_in_the_same_bucket_does_not_recompile():
    from jaxclassic.tree.cart import _fit_binned

    DecisionTreeClassifier(max_depth=DEPTH).fit(X, Y)
    size = _fit_binned._cache_size()
    DecisionTreeClassifier(max_depth=DEPTH).fit(X[:90], Y[:90])   # 90 and 100 rows: bucket 128
    assert _fit_binned._cache_size() == size


# --------------------------------------------------------------------------- ID3 and C4.5
def test_id3_reproduces_mitchells_play_tennis_tree():
    tennis = load_play_tennis()
    Xp, yp, names, cats = tennis.data, tennis.target, tennis.feature_names, tennis.categories
    labels = np.array(["no", "yes"])[yp]
    tree = ID3Classifier().fit(Xp, labels)
    p = tree.params_
    code = {f: {level: i for i, level in enumerate(cats[f])} for f in names}
    assert names[int(p.feature[0])] == "outlook"
    child = lambda node, f, level: int(p.children[node, code[f][level]])  # noqa: E731
    overcast, rain, sunny = (child(0, "outlook", v) for v in ("overcast", "rain", "sunny"))
    assert p.is_leaf[overcast] and p.value[overcast].tolist() == [0.0, 1.0]
    assert names[int(p.feature[sunny])] == "humidity" and names[int(p.feature[rain])] == "wind"
    for node, f, level, label in [(sunny, "humidity", "high", "no"), (sunny, "humidity", "normal", "yes"),
                                  (rain, "wind", "strong", "no"), (rain, "wind", "weak", "yes")]:
        leaf = child(node, f, level)
        assert p.is_leaf[leaf] and tree.classes_[np.argmax(p.value[leaf])] == label
    assert (tree.get_depth(), tree.get_n_leaves()) == (2, 5)
    assert tree.score(Xp, labels) == 1.0
    np.testing.assert_array_equal(tree.apply(Xp[:1]), [child(sunny, "humidity", "high")])


def test_id3_negative_codes_are_an_error():
    with pytest.raises(ValueError, match="Negative values in data passed to ID3Classifier"):
        ID3Classifier().fit(-X, Y)


@pytest.mark.full
def test_c45_on_play_tennis_with_names_and_missing_values():
    pd = pytest.importorskip("pandas")
    tennis = load_play_tennis()
    Xp, yp, names = tennis.data, tennis.target, tennis.feature_names
    frame = pd.DataFrame(Xp.astype(float), columns=names)
    tree = C45Classifier(categorical_features=names).fit(frame, yp)
    assert tree.categorical_.all() and names[int(tree.params_.feature[0])] == "outlook"
    assert tree.get_n_leaves() == 5 and tree.score(frame, yp) == 1.0
    # Quinlan's classification with an unknown value: sunny, humidity missing -> 0.6 / 0.4
    row = pd.DataFrame([[2.0, 0.0, np.nan, 1.0]], columns=names)
    np.testing.assert_allclose(tree.predict_proba(row), [[0.6, 0.4]], atol=1e-12)


def test_c45_categorical_names_need_feature_names():
    with pytest.raises(ValueError, match="no feature names"):
        C45Classifier(categorical_features=["outlook"]).fit(X, Y)


def test_id3_and_c45_feature_importances_are_the_cores():
    from jaxclassic.tree import feature_importances, fit_c45, fit_id3

    Xp, yp = load_play_tennis(return_X_y=True)
    id3 = ID3Classifier().fit(Xp, yp)
    np.testing.assert_allclose(id3.feature_importances_, np.asarray(feature_importances(fit_id3(Xp, yp))), rtol=1e-12)
    c45 = C45Classifier(categorical_features=[0, 1, 2, 3]).fit(Xp, yp)
    np.testing.assert_allclose(c45.feature_importances_,
                               np.asarray(feature_importances(fit_c45(Xp, yp, categorical=True))), rtol=1e-12)
    assert id3.feature_importances_[1] == 0.0 and np.isclose(id3.feature_importances_.sum(), 1.0)
