"""export_text (jaxclassic/tree/export.py): CART identical to scikit-learn's export_text on the
same tree (converted from sklearn's tree_ arrays); ID3 / C4.5 in Quinlan's / J48's format."""

import numpy as np
import pytest

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import load_diabetes, load_iris  # noqa: E402
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor  # noqa: E402
from sklearn.tree import export_text as sklearn_export_text  # noqa: E402

from jaxclassic.datasets import load_play_tennis  # noqa: E402
from jaxclassic.tree import ClassificationTree, RegressionTree, export_text, fit_c45, fit_id3  # noqa: E402


def _from_sklearn(estimator):
    """The CART layout of jaxclassic/tree/_params.py built from a fitted scikit-learn tree."""
    t = estimator.tree_
    leaf = t.children_left == -1
    value = t.value[:, 0, :]
    regression = isinstance(estimator, DecisionTreeRegressor)
    if not regression:
        value = value / value.sum(axis=1, keepdims=True)
    kind = RegressionTree if regression else ClassificationTree
    return kind(
        children_left=t.children_left.astype(np.int32),
        children_right=t.children_right.astype(np.int32),
        feature=np.where(leaf, -1, t.feature).astype(np.int32),
        threshold_bin=np.full(t.node_count, -1, np.int32),
        threshold=np.where(leaf, np.nan, t.threshold),
        missing_left=np.zeros(t.node_count, bool),
        value=value,
        impurity=t.impurity,
        n_node_samples=t.n_node_samples.astype(np.int32),
        weighted_n_node_samples=t.weighted_n_node_samples,
        is_leaf=leaf,
        n_nodes=np.int32(t.node_count),
        bin_edges=np.zeros((t.n_features, 1)),
    )


@pytest.fixture(scope="module")
def iris_tree():
    data = load_iris()
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(data.data, data.target)
    return clf, data.feature_names


@pytest.mark.parametrize("kwargs", [
    {},
    {"decimals": 3},
    {"show_weights": True},
    {"max_depth": 1},
    {"spacing": 5},
    {"class_names": ["setosa", "versicolor", "virginica"]},
])
def test_cart_classifier_equals_sklearn(iris_tree, kwargs):
    clf, names = iris_tree
    expected = sklearn_export_text(clf, feature_names=list(names), **kwargs)
    assert export_text(_from_sklearn(clf), feature_names=names, **kwargs) == expected


def test_cart_default_names_equal_sklearn(iris_tree):
    clf, _ = iris_tree
    assert export_text(_from_sklearn(clf)) == sklearn_export_text(clf)


def test_cart_regressor_equals_sklearn():
    data = load_diabetes()
    reg = DecisionTreeRegressor(max_depth=3, random_state=0).fit(data.data[:120], data.target[:120])
    for kwargs in ({}, {"decimals": 1}, {"max_depth": 1}):
        assert export_text(_from_sklearn(reg), feature_names=data.feature_names, **kwargs) == \
            sklearn_export_text(reg, feature_names=list(data.feature_names), **kwargs)


def test_id3_play_tennis_text():
    tennis = load_play_tennis()
    X, y, names, target, cats = (tennis.data, tennis.target, tennis.feature_names,
                                 tennis.target_names, tennis.categories)
    expected = (
        "outlook = overcast: yes (4.0)\n"
        "outlook = rain\n"
        "|   wind = strong: no (2.0)\n"
        "|   wind = weak: yes (3.0)\n"
        "outlook = sunny\n"
        "|   humidity = high: no (3.0)\n"
        "|   humidity = normal: yes (2.0)\n"
    )
    assert export_text(fit_id3(X, y), names, target, category_names=cats) == expected
    # categories by feature index, and the default names
    by_index = [cats[n] for n in names]
    assert export_text(fit_id3(X, y), names, target, category_names=by_index) == expected
    assert export_text(fit_id3(X, y)).splitlines()[0] == "x0 = 0: 1 (4.0)"
    assert export_text(fit_id3(X, y), max_depth=0).splitlines()[1] == "x0 = 1: truncated branch of depth 2"


GOLF = np.array([
    [2, 85, 85, 0], [2, 80, 90, 1], [0, 83, 86, 0], [1, 70, 96, 0], [1, 68, 80, 0], [1, 65, 70, 1],
    [0, 64, 65, 1], [2, 72, 95, 0], [2, 69, 70, 0], [1, 75, 80, 0], [2, 75, 70, 1], [0, 72, 90, 1],
    [0, 81, 75, 0], [1, 71, 91, 1]], float)
GOLF_Y = np.array([0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0])
GOLF_ARGS = dict(feature_names=["outlook", "temperature", "humidity", "windy"], class_names=["no", "yes"],
                 category_names={"outlook": ["overcast", "rainy", "sunny"], "windy": ["FALSE", "TRUE"]})


def test_c45_golf_text_is_j48s():
    params = fit_c45(GOLF, GOLF_Y, categorical=np.array([True, False, False, True]))
    # J48 prints the same tree on weather.numeric.arff (its level order: sunny, overcast, rainy)
    assert export_text(params, **GOLF_ARGS) == (
        "outlook = overcast: yes (4.0)\n"
        "outlook = rainy\n"
        "|   windy = FALSE: yes (3.0)\n"
        "|   windy = TRUE: no (2.0)\n"
        "outlook = sunny\n"
        "|   humidity <= 75: yes (2.0)\n"
        "|   humidity > 75: no (3.0)\n"
    )


def test_c45_fractional_leaves_show_weight_and_errors():
    X = GOLF.copy()
    X[11, 0] = np.nan     # Quinlan 1993 §3.3: leaves become 3.2, 2.4/0.4, 3.4/0.4
    params = fit_c45(X, GOLF_Y, categorical=np.array([True, False, False, True]), prune=False)
    text = export_text(params, decimals=1, **GOLF_ARGS)
    assert "outlook = overcast: yes (3.2)\n" in text
    assert "|   windy = TRUE: no (2.4/0.4)\n" in text
    assert "|   humidity > 75: no (3.4/0.4)\n" in text


def test_single_leaf_and_bad_input():
    params = fit_c45(np.zeros((4, 1)), np.array([0, 0, 1, 1]), prune=False)
    assert export_text(params, class_names=["a", "b"]) == "a (4.0/2.0)\n"
    with pytest.raises(TypeError, match="params must be a ClassificationTree.*got dict"):
        export_text({})
    with pytest.raises(ValueError, match="feature_names must contain 1 elements, got 2"):
        export_text(params, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="decimals must be >= 0, got -1"):
        export_text(params, decimals=-1)


@pytest.mark.full
def test_fit_cart_tree_with_unused_slots():
    from jaxclassic.tree import fit_cart
    data = load_iris()
    params = fit_cart(data.data, data.target, max_depth=2)
    text = export_text(params)
    n_nodes = int(params.n_nodes)
    leaves = int(np.asarray(params.is_leaf)[:n_nodes].sum())
    # one line per leaf and two per split; the node budget's unused slots print nothing
    assert len(text.splitlines()) == leaves + 2 * (n_nodes - leaves)
    assert text.count("class: ") == leaves
