"""Categorical splits of the CART engine (issue 28): a set of categories goes left.

References: a brute-force search over all :math:`2^{k-1} - 1` two-way partitions of ``k``
categories (numpy, float64), the independent check of Breiman et al. (1984, §9.4) / Fisher
(1958): for squared error and for two classes the best partition is a prefix of the
categories ordered by their mean (class fraction), which the engine scans; a hand-checkable
case; a numpy routing of the fitted arrays. Shapes are shared so each program compiles once.
"""

import itertools

import jax
import numpy as np
import pandas as pd
import pytest

from jaxclassic.tree import apply, fit_cart, predict, predict_proba
from jaxclassic.tree._params import has_categories

K, N, NBINS, DEPTH = 6, 120, 8, 3  # categories, rows, bins (codes 0..7), depth of the shared programs


def _data(seed, task):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, K, N)
    x = rng.normal(size=N)
    if task == "regression":
        y = rng.normal(size=K)[codes] * 2 + 0.3 * rng.normal(size=N)
    else:
        y = (rng.random(N) < rng.random(K)[codes]).astype(int)
    return np.c_[codes.astype(float), x], y


def _sse(y):
    return float(((y - y.mean()) ** 2).sum()) if y.size else 0.0


def _gini_loss(y):  # W * gini of 0/1 labels
    return y.size - (np.sum(y == 0) ** 2 + np.sum(y == 1) ** 2) / y.size if y.size else 0.0


def _brute_force(codes, y, loss):
    """The best two-way partition of the categories present: (gain, left set) over every
    subset of all but the last category (each partition once)."""
    present = np.unique(codes)
    parent = loss(y)
    best = (-np.inf, None)
    for r in range(1, present.size):
        for subset in itertools.combinations(present[:-1], r):
            left = np.isin(codes, subset)
            gain = parent - loss(y[left]) - loss(y[~left])
            if gain > best[0] + 1e-12:
                best = (gain, set(subset))
    return best


def _root_gain(tree):
    w, imp = np.asarray(tree.weighted_n_node_samples), np.asarray(tree.impurity)
    return w[0] * imp[0] - w[1] * imp[1] - w[2] * imp[2]


@pytest.mark.parametrize("task,criterion,loss", [("regression", "squared_error", _sse),
                                                 ("classification", "gini", _gini_loss)])
def test_root_split_equals_the_brute_force_partition(task, criterion, loss):
    # tolerance 1e-9 relative: float64 sums of 120 rows (the gains of distinct partitions of
    # these data differ by more than 1e-6, checked by the brute force's runner-up below)
    with jax.enable_x64():
        for seed in range(3):
            X, y = _data(seed, task)
            tree = fit_cart(X, y, task=task, criterion=criterion, max_depth=1, n_bins=NBINS,
                            feature_mask=np.array([True, False]), categorical_features=[0])
            gain, subset = _brute_force(X[:, 0].astype(int), y.astype(float), loss)
            assert int(tree.feature[0]) == 0
            np.testing.assert_allclose(_root_gain(tree), gain, rtol=1e-9)
            left = set(np.flatnonzero(np.asarray(tree.left_categories[0])[:K]).tolist())
            assert left in (subset, set(range(K)) - subset)


@pytest.mark.full
def test_hand_partition_a_c_against_b_d():
    # categories A, B, C, D coded 0..3; class 1 exactly at B and D: the partition {A, C} | {B, D}
    # is pure, and no threshold on the codes makes it (0 | 1 2 3, 0 1 | 2 3, 0 1 2 | 3)
    X = np.c_[np.tile(np.arange(4.0), N // 4), np.zeros(N)]
    y = np.tile([0, 1, 0, 1], N // 4)
    tree = fit_cart(X, y, max_depth=DEPTH, n_bins=NBINS, categorical_features=[0])
    assert int(tree.n_nodes) == 3  # one split, two pure leaves
    assert np.asarray(tree.left_categories[0])[:4].tolist() in ([True, False, True, False],
                                                                [False, True, False, True])
    assert np.isnan(float(tree.threshold[0]))
    np.testing.assert_array_equal(predict(tree, X), y)
    numeric = fit_cart(X, y, max_depth=DEPTH, n_bins=NBINS)
    impurity = np.asarray(numeric.impurity)
    # no threshold on the codes separates the classes: an impure child, more splits below
    assert max(impurity[1], impurity[2]) > 0 and int(numeric.n_nodes) > 3


def _route_numpy(tree, X):
    """The leaf of every row by the routing rule of ``tree._params``, in numpy."""
    left, right = np.asarray(tree.children_left), np.asarray(tree.children_right)
    feature, threshold = np.asarray(tree.feature), np.asarray(tree.threshold)
    mleft, cats = np.asarray(tree.missing_left), np.asarray(tree.left_categories)
    categorical = np.asarray(tree.categorical)
    out = []
    for row in X:
        t = 0
        while left[t] >= 0:
            x = row[feature[t]]
            if categorical[feature[t]]:
                known = not np.isnan(x) and 0 <= x < cats.shape[1] and x == int(x)
                go = cats[t, int(x)] if known else mleft[t]
            else:
                go = mleft[t] if np.isnan(x) else x <= threshold[t]
            t = left[t] if go else right[t]
        out.append(t)
    return np.array(out)


@pytest.mark.full
def test_leaves_hold_the_means_of_the_rows_routed_to_them():
    # a deeper tree on a categorical and a numeric feature with missing values: the engine's
    # routing of the training rows (its leaf statistics) agrees with the stored arrays, routed
    # in numpy; prediction routes alike (float32: 1e-5 relative)
    X, y = _data(7, "regression")
    X[::9, 0] = np.nan
    tree = fit_cart(X, y, task="regression", max_depth=DEPTH, n_bins=NBINS, categorical_features=[0])
    assert has_categories(tree)
    leaves = _route_numpy(tree, X)
    np.testing.assert_array_equal(np.asarray(apply(tree, X)), leaves)
    value = np.asarray(tree.value)[:, 0]
    for leaf in np.unique(leaves):
        np.testing.assert_allclose(value[leaf], y[leaves == leaf].mean(), rtol=1e-5, atol=1e-5)


@pytest.mark.full
def test_unseen_categories_go_where_missing_values_go():
    X, y = _data(3, "classification")
    X[::5, 0] = np.nan  # missing values in training: each node learns their side
    tree = fit_cart(X, y, max_depth=DEPTH, n_bins=NBINS, categorical_features=[0])
    new = X[:20].copy()
    missing = new.copy()
    missing[:, 0] = np.nan
    for unseen in (6.0, 7.0, 300.0, -1.0, 2.5):  # never in training, outside the bins, not a code
        new[:, 0] = unseen
        np.testing.assert_array_equal(np.asarray(apply(tree, new)), np.asarray(apply(tree, missing)))


def test_numeric_fits_are_unchanged():
    X, y = _data(1, "classification")
    base = fit_cart(X, y, max_depth=DEPTH, n_bins=NBINS)
    assert not has_categories(base) and np.shape(base.categorical) == (0,)
    for spec in (None, np.array([False, False]), []):
        other = fit_cart(X, y, max_depth=DEPTH, n_bins=NBINS, categorical_features=spec)
        jax.tree.map(np.testing.assert_array_equal, base, other)
    assert len(jax.tree.leaves(base)) == len(type(base)._fields)


@pytest.mark.full
def test_zero_weight_rows_have_no_influence():
    # extra rows of weight 0, one with a category (5) no positive row has: the same tree
    X, y = _data(2, "classification")
    keep = X[:, 0] != 5
    w = keep.astype(float)
    a = fit_cart(X, y, max_depth=DEPTH, n_bins=NBINS, sample_weight=w, categorical_features=[0])
    b = fit_cart(X[keep], y[keep], max_depth=DEPTH, n_bins=NBINS, categorical_features=[0])
    for field in ("feature", "children_left", "left_categories", "missing_left", "n_node_samples"):
        np.testing.assert_array_equal(np.asarray(getattr(a, field)), np.asarray(getattr(b, field)), err_msg=field)
    np.testing.assert_allclose(np.asarray(a.value), np.asarray(b.value), rtol=1e-6)


@pytest.mark.full
def test_multiclass_orders_by_the_majority_class():
    # three classes; the node's majority class (0) sits at categories 0 and 3: one-vs-rest by
    # its fraction puts {0, 3} on one side
    codes = np.tile(np.arange(6), N // 6)
    y = np.array([0, 1, 2, 0, 1, 2])[codes]
    y[:12] = 0  # class 0 the majority
    X = np.c_[codes.astype(float), np.zeros(N)]
    tree = fit_cart(X, y, max_depth=DEPTH, n_bins=NBINS, categorical_features=[0])
    left = set(np.flatnonzero(np.asarray(tree.left_categories[0])[:6]).tolist())
    assert left in ({0, 3}, {1, 2, 4, 5})
    assert np.asarray(predict_proba(tree, X)).shape == (N, 3)


@pytest.mark.parametrize("value,match", [(300.0, "must be integers in 0..7"), (-1.0, "must be integers"),
                                         (1.5, "must be integers"), (np.inf, "must be integers")])
def test_bad_category_codes(value, match):
    X, y = _data(0, "classification")
    X[3, 0] = value
    with pytest.raises(ValueError, match=match if np.isfinite(value) else "X"):
        fit_cart(X, y, n_bins=NBINS, categorical_features=[0])


@pytest.mark.parametrize("spec,error", [(np.array([True]), ValueError), ([5], ValueError), ([0.5], TypeError),
                                        (np.zeros((2, 2), bool), ValueError)])
def test_bad_categorical_features(spec, error):
    X, y = _data(0, "classification")
    with pytest.raises(error, match="categorical_features"):
        fit_cart(X, y, n_bins=NBINS, categorical_features=spec)


@pytest.mark.full
def test_estimator_from_dtype_codes_categories_and_maps_unseen_to_missing():
    from jaxclassic.estimators import DecisionTreeClassifier

    X, y = _data(5, "classification")
    names = np.array(list("abcdef"))
    frame = pd.DataFrame({"colour": pd.Categorical(names[X[:, 0].astype(int)]), "x": X[:, 1]})
    model = DecisionTreeClassifier(max_depth=3, categorical_features="from_dtype").fit(frame, y)
    assert model.is_categorical_.tolist() == [True, False]
    # the same tree as the functional fit on the codes (categories sorted: a..f = 0..5)
    core = fit_cart(X, y, max_depth=3, n_bins=model.n_bins_, categorical_features=[0])
    np.testing.assert_array_equal(model.predict_proba(frame), np.asarray(predict_proba(core, X)))
    by_name = DecisionTreeClassifier(max_depth=3, categorical_features=["colour"]).fit(frame, y)
    np.testing.assert_array_equal(by_name.predict_proba(frame), model.predict_proba(frame))
    # a category unseen at fit time is a missing value
    unseen = frame.iloc[:10].copy()
    unseen["colour"] = pd.Categorical(["zz"] * 10)
    missing = frame.iloc[:10].copy()
    missing["colour"] = pd.Categorical([None] * 10, categories=list("abcdef"))
    np.testing.assert_array_equal(model.predict_proba(unseen), model.predict_proba(missing))
    with pytest.raises(ValueError, match="categorical_features"):
        DecisionTreeClassifier(categorical_features="from_type").fit(frame, y)


@pytest.mark.full
def test_estimator_with_categories_saves_and_loads(tmp_path):
    from jaxclassic.estimators import DecisionTreeClassifier

    X, y = _data(5, "classification")
    frame = pd.DataFrame({"colour": pd.Categorical(np.array(list("abcdef"))[X[:, 0].astype(int)]), "x": X[:, 1]})
    model = DecisionTreeClassifier(max_depth=3, categorical_features="from_dtype").fit(frame, y)
    model.save(tmp_path / "tree.npz")
    loaded = DecisionTreeClassifier.load(tmp_path / "tree.npz")
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))


def test_export_text_prints_the_left_set():
    from jaxclassic.tree import export_text

    X = np.c_[np.tile(np.arange(4.0), N // 4), np.zeros(N)]
    y = np.tile([0, 1, 0, 1], N // 4)
    tree = fit_cart(X, y, max_depth=DEPTH, n_bins=NBINS, categorical_features=[0])
    text = export_text(tree, feature_names=["letter", "x"])
    assert "letter in {" in text and "letter not in {" in text
