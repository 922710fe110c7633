"""A demanding user's and a numerical reviewer's checks of the tree family (x64 on): badly
scaled columns and targets, float32, near-equal values, a single row, two bins, a fully grown
tree, zero weights in the estimator, a Pipeline with GridSearchCV and string labels. Every
expectation is independent of the code under test (scikit-learn, numpy, or an invariance of
the maths: scaling y does not change a squared-error tree; slicing equals zero weights).
"""

import warnings

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from jaxclassic.tree import TreeTruncatedWarning, apply, bin_features, fit_cart, predict

RNG = np.random.default_rng(7)
N = 200
X_CONT = RNG.normal(size=(N, 3))                      # distinct values: exact with n_bins=255
Y_REG = X_CONT[:, 0] + 0.5 * np.sin(3 * X_CONT[:, 1]) + 0.3 * RNG.normal(size=N)


def _partition(leaves):
    return {frozenset(np.flatnonzero(leaves == v)) for v in np.unique(leaves)}


# --------------------------------------------------------------------------- badly scaled targets
@pytest.mark.full
@pytest.mark.parametrize("scale", [1e-9, 1e9])
def test_squared_error_tree_does_not_depend_on_the_scale_of_y(scale):
    """Before: impurity <= eps (absolute, scikit-learn's rule) called a root with y of scale
    1e-9 pure, a one-leaf tree (scikit-learn does the same). Now the purity rule is relative
    to the root's sum of squares: the tree of c*y is the tree of y, values times c, and the
    tree of y is scikit-learn's (leaf partitions)."""
    ref = fit_cart(X_CONT, Y_REG, task="regression", max_depth=3)
    tree = fit_cart(X_CONT, Y_REG * scale, task="regression", max_depth=3)
    assert int(tree.n_nodes) == int(ref.n_nodes) == 15
    np.testing.assert_array_equal(np.asarray(tree.feature), np.asarray(ref.feature))
    np.testing.assert_array_equal(np.asarray(tree.threshold), np.asarray(ref.threshold))
    np.testing.assert_allclose(np.asarray(tree.value), np.asarray(ref.value) * scale, rtol=1e-10)
    sk = SkRegressor(max_depth=3).fit(X_CONT, Y_REG)
    assert _partition(np.asarray(apply(ref, X_CONT))) == _partition(sk.apply(X_CONT))
    if scale < 1:  # the reference's absolute rule: one leaf
        assert SkRegressor(max_depth=3).fit(X_CONT, Y_REG * scale).tree_.node_count == 1


def test_target_with_a_large_mean_splits_as_the_centred_target():
    # y = 1e9 + y0: the sums are centred at the root mean, so the tree is the tree of y0
    ref = fit_cart(X_CONT, Y_REG, task="regression", max_depth=3)
    tree = fit_cart(X_CONT, 1e9 + Y_REG, task="regression", max_depth=3)
    np.testing.assert_array_equal(np.asarray(tree.feature), np.asarray(ref.feature))
    np.testing.assert_allclose(np.asarray(predict(tree, X_CONT)) - 1e9, np.asarray(predict(ref, X_CONT)), atol=1e-6)


@pytest.mark.full
@pytest.mark.parametrize("value", [5.3, 1e9, 1e-12])
def test_constant_target_with_real_weights_is_one_leaf(value):
    w = RNG.uniform(0.1, 2.0, N)
    tree = fit_cart(X_CONT, np.full(N, value), task="regression", sample_weight=w)
    assert int(tree.n_nodes) == 1
    np.testing.assert_allclose(float(tree.value[0, 0]), value, rtol=1e-14)


# --------------------------------------------------------------------------- badly scaled columns, float32
@pytest.mark.full
def test_float32_badly_scaled_columns_give_the_float64_tree():
    """Columns of scale 1e9 (mean 1e9, steps of 64 = float32's spacing there), 1e6 and 1e-6,
    every value exactly representable in float32: the float32 tree makes the float64 tree's
    partitions, and each float32 threshold lies between two distinct training values."""
    k = RNG.integers(0, 20, N)
    X = np.c_[1e9 + 64.0 * k, RNG.normal(size=N) * 1e6, RNG.normal(size=N) * 1e-6].astype(np.float32)
    y = ((k > 9) ^ (X[:, 1] > 0)).astype(int) + (X[:, 2] > 5e-7)
    t64 = fit_cart(X.astype(np.float64), y, max_depth=3, n_bins=255)
    t32 = fit_cart(X, y, max_depth=3, n_bins=255)
    assert t32.threshold.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(t32.feature), np.asarray(t64.feature))
    assert _partition(np.asarray(apply(t32, X))) == _partition(np.asarray(apply(t64, X.astype(np.float64))))
    for node in np.flatnonzero(np.asarray(t32.feature) >= 0):
        col, thr = X[:, int(t32.feature[node])], np.float32(t32.threshold[node])
        assert (col <= thr).any() and (col > thr).any()
    # the 1e9 column: 20 distinct float32 values, 19 distinct edges (midpoints round to a value)
    _, edges = bin_features(X, 32)
    e = np.asarray(edges[0])
    assert np.unique(e[np.isfinite(e)]).size == 19


@pytest.mark.full
def test_consecutive_float32_values_stay_in_separate_bins():
    # three adjacent float32 numbers: their midpoints round onto a value; the edge falls back
    # to the lower value, so x <= edge still separates them
    a = np.float32(1.0)
    b = np.nextafter(a, np.float32(2))
    c = np.nextafter(b, np.float32(2))
    X = np.repeat(np.array([a, b, c], np.float32), 10)[:, None]
    y = np.repeat([0, 1, 2], 10)
    codes, _ = bin_features(X, 8)
    np.testing.assert_array_equal(np.unique(np.asarray(codes)), [0, 1, 2])
    tree = fit_cart(X, y, n_bins=8)
    np.testing.assert_array_equal(np.asarray(predict(tree, X)), y)


# --------------------------------------------------------------------------- edge sizes
@pytest.mark.full
def test_single_row_is_one_leaf():
    tree = fit_cart(X_CONT[:1], np.array([2]), n_classes=3)
    assert int(tree.n_nodes) == 1
    np.testing.assert_array_equal(np.asarray(predict(tree, X_CONT[:4])), 2)


@pytest.mark.full
def test_two_bins_split_at_the_weighted_median():
    # n_bins = 2: one edge, the midpoint after the first value of cumulative share >= 1/2
    y = (X_CONT[:, 0] > 0.3).astype(int)
    tree = fit_cart(X_CONT[:, :1], y, n_bins=2, max_depth=1)
    v = np.sort(X_CONT[:, 0])
    i = np.searchsorted(np.arange(1, N + 1) / N, 0.5)  # first i with share >= 1/2
    assert float(tree.threshold[0]) == v[i] / 2 + v[i + 1] / 2


@pytest.mark.full
def test_fully_grown_tree_on_noisy_labels_fits_the_training_set():
    """max_depth=None on 2,000 rows of noisy labels (distinct continuous values): no
    truncation warning and training accuracy 1, as scikit-learn's."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 5))
    y = (X[:, 0] + 0.8 * rng.normal(size=2000) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TreeTruncatedWarning)
        tree = fit_cart(X, y, n_classes=2)
    np.testing.assert_array_equal(np.asarray(predict(tree, X)), y)
    assert SkClassifier(random_state=0).fit(X, y).score(X, y) == 1.0


# --------------------------------------------------------------------------- the estimators
@pytest.mark.full
def test_estimator_zero_weights_equal_the_sliced_fit_with_quantile_bins():
    # breast_cancer has more than n_bins distinct values per feature: quantile edges, which
    # must ignore the zero-weight rows as slicing does
    from sklearn.datasets import load_breast_cancer

    from jaxclassic.estimators import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    w = np.ones(len(y))
    w[::3] = 0.0
    a = DecisionTreeClassifier(max_depth=3).fit(X, y, sample_weight=w)
    b = DecisionTreeClassifier(max_depth=3).fit(X[w > 0], y[w > 0])
    for name in ("feature", "threshold", "value", "n_node_samples", "bin_edges"):
        np.testing.assert_array_equal(np.asarray(getattr(a.params_, name)), np.asarray(getattr(b.params_, name)),
                                      err_msg=name)


@pytest.mark.full
def test_pipeline_grid_search_with_string_labels_and_pandas():
    """GridSearchCV over max_depth and ccp_alpha in a Pipeline, pandas X and string labels, on
    data binned exactly (ranks of breast_cancer's first 10 features // 3, <= 190 values):
    the grid points whose trees have no tied splits score as scikit-learn's tree."""
    pd = pytest.importorskip("pandas")
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import GridSearchCV, KFold
    from sklearn.pipeline import make_pipeline

    from jaxclassic.estimators import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    Xq = pd.DataFrame((np.argsort(np.argsort(X, axis=0), axis=0) // 3)[:, :10].astype(float),
                      columns=[f"c{j}" for j in range(10)])
    labels = np.array(["malignant", "benign"])[y]
    grid = {"decisiontreeclassifier__max_depth": [2, None], "decisiontreeclassifier__ccp_alpha": [0.0, 0.02]}
    cv = KFold(3, shuffle=True, random_state=0)
    ours = GridSearchCV(make_pipeline(DecisionTreeClassifier()), grid, cv=cv).fit(Xq, labels)
    ref = GridSearchCV(make_pipeline(SkClassifier(random_state=0)), grid, cv=cv).fit(Xq, labels)
    assert ours.cv_results_["params"] == ref.cv_results_["params"]
    s, r = ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"]
    # (depth 2, alpha 0), (depth 2, 0.02), (None, 0.02): no ties, equal; the fully grown tree
    # (None, 0) meets tied splits deep down (scikit-learn breaks them by its random feature order)
    np.testing.assert_array_equal(s[[0, 2, 3]], r[[0, 2, 3]])
    assert abs(s[1] - r[1]) < 0.01
    assert set(ours.predict(Xq)) <= {"malignant", "benign"}
