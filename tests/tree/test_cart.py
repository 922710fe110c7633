"""CART (histogram engine) against scikit-learn's trees, numpy and hand derivations.

Data: 200 rows, 4 integer features 0..19 (at most n_bins = 32 distinct values, so the binning
is exact) and targets with structure plus label noise; every internal node of the reference
tree is checked to have a unique best split (margin > 1e-9 over the runner-up, by an
exhaustive numpy search), so the comparison is not at the mercy of tie-breaking. Shapes are
shared across tests so each program compiles once.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from jaxclassic import information
from jaxclassic.tree import (
    TreeTruncatedWarning,
    apply,
    bin_features,
    feature_importances,
    fit_cart,
    fit_cart_binned,
    predict,
    predict_proba,
)
from jaxclassic.tree import cart as cart_module
from jaxclassic.tree._engine import GradientPair, grow
from tests._spy import record_widths

N, F, NBINS, DEPTH, LEAF = 200, 4, 32, 4, 5
RNG = np.random.default_rng(12)  # a seed whose reference trees have no ties (checked)
X = RNG.integers(0, 20, size=(N, F)).astype(float)
Y_CLS = (((X[:, 0] > 9) ^ (X[:, 1] > 12)).astype(int) + (X[:, 2] + X[:, 0] > 25)).astype(int)
Y_CLS = np.where(RNG.random(N) < 0.15, RNG.integers(0, 3, N), Y_CLS)
Y_REG = 0.3 * X[:, 0] + 2.0 * (X[:, 1] > 5) + 0.05 * X[:, 2] * X[:, 3] + 0.5 * RNG.normal(size=N)
W_INT = RNG.integers(0, 4, size=N).astype(float)  # integer weights, zeros included
KW = dict(max_depth=DEPTH, min_samples_leaf=LEAF, n_bins=NBINS)

# --------------------------------------------------------------------------- references
def _np_impurity(y, w, crit):
    W = w.sum()
    if crit == "squared_error":
        m = (w * y).sum() / W
        return (w * (y - m) ** 2).sum() / W
    p = np.bincount(y, weights=w, minlength=3) / W
    if crit == "gini":
        return 1 - (p ** 2).sum()
    if crit == "entropy":
        p = p[p > 0]
        return -(p * np.log2(p)).sum()
    return 1 - p.max()


def _split_gains(rows, y, w, crit, msl=LEAF):
    """Every (feature, midpoint) split of the node's positive-weight rows: weighted decrease."""
    rows = rows[w[rows] > 0]
    parent = w[rows].sum() * _np_impurity(y[rows], w[rows], crit)
    out = []
    for j in range(F):
        v = np.unique(X[rows, j])
        for t in (v[:-1] + v[1:]) / 2:
            m = X[rows, j] <= t
            if m.sum() < msl or (~m).sum() < msl:
                continue
            lw, rw = w[rows][m], w[rows][~m]
            dec = parent - lw.sum() * _np_impurity(y[rows][m], lw, crit) - rw.sum() * _np_impurity(y[rows][~m], rw, crit)
            out.append((dec, j, t))
    return sorted(out, reverse=True)


def _check_no_ties(sk, y, w, crit):
    paths = sk.decision_path(X).toarray().astype(bool)
    t = sk.tree_
    for node in range(t.node_count):
        if t.children_left[node] < 0:
            continue
        gains = _split_gains(np.flatnonzero(paths[:, node]), y, w, crit)
        assert gains[0][1] == t.feature[node] and gains[0][2] == t.threshold[node]
        if len(gains) > 1:
            assert gains[0][0] - gains[1][0] > 1e-9, f"tie at node {node}: pick another seed"


def _assert_same_tree(tree, sk, sw=None):
    """Same split features and partitions node by node (walked together), same leaf values."""
    t = sk.tree_
    assert int(tree.n_nodes) == t.node_count
    w = np.ones(N) if sw is None else sw
    # the walk reads numpy copies (the same values; an eager index of a jax array compiles a
    # small program per leaf shape and dtype); apply gets the fitted jax tree
    fitted, tree = tree, jax.tree.map(np.asarray, tree)

    def walk(a, b, rows):
        fa = int(tree.feature[a])
        assert fa == t.feature[b] if t.feature[b] >= 0 else fa == -1
        pos = rows[w[rows] > 0]
        assert int(tree.n_node_samples[a]) == t.n_node_samples[b] == pos.size
        np.testing.assert_allclose(float(tree.weighted_n_node_samples[a]), t.weighted_n_node_samples[b], rtol=1e-12)
        np.testing.assert_allclose(float(tree.impurity[a]), t.impurity[b], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(np.asarray(tree.value[a]), t.value[b].ravel(), rtol=1e-12, atol=1e-14)
        if fa < 0:
            return
        ml = X[rows, fa] <= float(tree.threshold[a])
        np.testing.assert_array_equal(ml[w[rows] > 0], (X[rows, fa] <= t.threshold[b])[w[rows] > 0])
        walk(int(tree.children_left[a]), t.children_left[b], rows[ml])
        walk(int(tree.children_right[a]), t.children_right[b], rows[~ml])

    walk(0, 0, np.arange(N))
    # leaf partitions of the positive-weight rows, as sets of row indices
    keep = w > 0
    la, lb = np.asarray(apply(fitted, X))[keep], sk.apply(X)[keep]
    idx = np.flatnonzero(keep)
    assert {frozenset(idx[la == l]) for l in np.unique(la)} == {frozenset(idx[lb == l]) for l in np.unique(lb)}


# --------------------------------------------------------------------------- scikit-learn equality
@pytest.mark.full
@pytest.mark.parametrize("crit", ["gini", "entropy"])
def test_classifier_equals_sklearn(crit):
    sk = DecisionTreeClassifier(criterion=crit, max_depth=DEPTH, min_samples_leaf=LEAF, random_state=0).fit(X, Y_CLS)
    _check_no_ties(sk, Y_CLS, np.ones(N), crit)
    tree = fit_cart(X, Y_CLS, criterion=crit, **KW)
    _assert_same_tree(tree, sk)
    # float64 sums in another order: 1e-12
    np.testing.assert_allclose(np.asarray(predict_proba(tree, X)), sk.predict_proba(X), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(np.asarray(predict(tree, X)), sk.predict(X))
    np.testing.assert_allclose(np.asarray(feature_importances(tree)), sk.feature_importances_, rtol=1e-10, atol=1e-14)
    # impurity per node from the node's class fractions (information.gini / entropy in bits)
    used = int(tree.n_nodes)
    ref = (information.gini if crit == "gini" else information.entropy)(tree.value[:used])
    np.testing.assert_allclose(np.asarray(tree.impurity[:used]), np.asarray(ref), rtol=1e-12, atol=1e-14)


@pytest.mark.full
def test_regressor_equals_sklearn():
    sk = DecisionTreeRegressor(max_depth=DEPTH, min_samples_leaf=LEAF).fit(X, Y_REG)
    _check_no_ties(sk, Y_REG, np.ones(N), "squared_error")
    tree = fit_cart(X, Y_REG, task="regression", **KW)
    _assert_same_tree(tree, sk)
    np.testing.assert_allclose(np.asarray(predict(tree, X)), sk.predict(X), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(feature_importances(tree)), sk.feature_importances_, rtol=1e-10, atol=1e-14)


@pytest.mark.full
def test_sample_weight_equals_sklearn():
    sk = DecisionTreeClassifier(max_depth=DEPTH, min_samples_leaf=LEAF, random_state=0).fit(X, Y_CLS, sample_weight=W_INT)
    _check_no_ties(sk, Y_CLS, W_INT, "gini")
    tree = fit_cart(X, Y_CLS, sample_weight=W_INT, **KW)
    _assert_same_tree(tree, sk, W_INT)
    np.testing.assert_allclose(np.asarray(feature_importances(tree)), sk.feature_importances_, rtol=1e-10, atol=1e-14)


@pytest.mark.full
def test_min_impurity_decrease_equals_sklearn():
    sk = DecisionTreeClassifier(max_depth=DEPTH, min_samples_leaf=LEAF, min_impurity_decrease=0.01, random_state=0).fit(X, Y_CLS)
    tree = fit_cart(X, Y_CLS, min_impurity_decrease=0.01, **KW)
    assert sk.tree_.node_count < DecisionTreeClassifier(max_depth=DEPTH, min_samples_leaf=LEAF).fit(X, Y_CLS).tree_.node_count
    _assert_same_tree(tree, sk)


@pytest.mark.full
def test_unlimited_depth_grows_to_pure_leaves_like_sklearn():
    # max_depth=None with min_samples_leaf = 10: no ties on this data (checked), leaves pure or small
    sk = DecisionTreeRegressor(min_samples_leaf=10).fit(X, Y_REG)
    paths = sk.decision_path(X).toarray().astype(bool)
    for node in np.flatnonzero(sk.tree_.children_left >= 0):
        g = _split_gains(np.flatnonzero(paths[:, node]), Y_REG, np.ones(N), "squared_error", msl=10)
        assert len(g) == 1 or g[0][0] - g[1][0] > 1e-9
    tree = fit_cart(X, Y_REG, task="regression", min_samples_leaf=10, n_bins=NBINS)
    _assert_same_tree(tree, sk)


def test_misclassification_root_split_is_the_numpy_best():
    tree = fit_cart(X, Y_CLS, criterion="misclassification", **KW)
    gains = _split_gains(np.arange(N), Y_CLS, np.ones(N), "misclassification")
    best = gains[0][0]
    # ties are common under the misclassification rate: the chosen split is one of the best
    chosen = [g for g in gains if g[1] == int(tree.feature[0]) and g[2] == float(tree.threshold[0])]
    assert chosen and abs(chosen[0][0] - best) < 1e-9
    used = int(tree.n_nodes)
    np.testing.assert_allclose(np.asarray(tree.impurity[:used]), 1 - np.asarray(tree.value[:used]).max(1), atol=1e-14)


# --------------------------------------------------------------------------- weights, transformations
@pytest.mark.full
def test_zero_weight_padding_has_no_influence():
    rng = np.random.default_rng(1)
    pad = rng.integers(0, 40, size=(56, F)).astype(float)  # values never seen in the real rows
    Xp = np.vstack([X, pad])
    yp = np.r_[Y_CLS, rng.integers(0, 3, 56)]
    wp = np.r_[np.ones(N), np.zeros(56)]
    a = fit_cart(X, Y_CLS, **KW)
    b = fit_cart(Xp, yp, sample_weight=wp, **KW)
    for name in ("children_left", "feature", "threshold", "missing_left", "value", "impurity",
                 "n_node_samples", "weighted_n_node_samples", "is_leaf", "n_nodes"):
        np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)), err_msg=name)


@pytest.mark.full
def test_vmap_over_weights_equals_loop():
    codes, edges = bin_features(X, NBINS)
    weights = jnp.asarray(np.random.default_rng(2).integers(0, 3, size=(3, N)).astype(float))
    fit = lambda w: fit_cart_binned(codes, edges, Y_CLS, sample_weight=w, n_classes=3, max_depth=DEPTH,
                                    min_samples_leaf=LEAF)
    batched = jax.vmap(fit)(weights)
    for i in range(3):  # rows of the results taken in numpy (an eager jnp index compiles per leaf shape)
        one = fit(weights[i])
        jax.tree.map(lambda u, v: np.testing.assert_allclose(np.asarray(u)[i], np.asarray(v), rtol=1e-12), batched, one)


@pytest.mark.full
def test_jit_equals_eager_and_no_retrace():
    codes, edges = bin_features(X, NBINS)
    jitted = fit_cart_binned(codes, edges, Y_CLS, max_depth=DEPTH, min_samples_leaf=LEAF)
    size = cart_module._fit_binned._cache_size()
    fit_cart_binned(codes, edges, (Y_CLS + 1) % 3, max_depth=DEPTH, min_samples_leaf=LEAF)  # same shapes
    assert cart_module._fit_binned._cache_size() == size
    # the fit traced inside an outer jit (weights traced) equals the direct call. (An op-by-op
    # run under jax.disable_jit takes ~30 s on this shared 2-core machine: left out.)
    outer = jax.jit(lambda w: fit_cart_binned(codes, edges, Y_CLS, sample_weight=w, n_classes=3,
                                              max_depth=DEPTH, min_samples_leaf=LEAF))(jnp.ones(N))
    jax.tree.map(lambda u, v: np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=1e-12), jitted, outer)


@pytest.mark.full
def test_float32_input_matches_float64():
    a = fit_cart(X, Y_REG, task="regression", **KW)
    b = fit_cart(X.astype(np.float32), Y_REG.astype(np.float32), task="regression", **KW)
    assert b.value.dtype == jnp.float32 and b.threshold.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(a.feature), np.asarray(b.feature))
    # float32 sums of 200 rows: ~1e-7 relative
    np.testing.assert_allclose(np.asarray(b.value), np.asarray(a.value), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(predict(b, X.astype(np.float32))), np.asarray(predict(a, X)), rtol=1e-6)


# --------------------------------------------------------------------------- missing values
@pytest.mark.full
@pytest.mark.parametrize("nan_class", [0, 1])
def test_nan_rows_go_to_the_learned_side(nan_class):
    # class 1 iff x0 > 9; the NaN rows all belong to `nan_class`: the best split x0 <= 9.5
    # sends them to the side of their class (left for 0, right for 1)
    Xn = X[:, :2].copy()
    y = (Xn[:, 0] > 9).astype(int)
    nan_rows = np.arange(0, N, 10)
    Xn[nan_rows, 0] = np.nan
    y[nan_rows] = nan_class
    tree = fit_cart(Xn, y, max_depth=1, n_bins=NBINS)
    assert int(tree.feature[0]) == 0 and float(tree.threshold[0]) == 9.5
    assert bool(tree.missing_left[0]) == (nan_class == 0)
    np.testing.assert_array_equal(np.asarray(predict(tree, Xn)), y)
    sk = DecisionTreeClassifier(max_depth=1).fit(Xn, y)  # scikit-learn >= 1.3 learns the side too
    np.testing.assert_array_equal(np.asarray(predict(tree, Xn)), sk.predict(Xn))
    assert bool(sk.tree_.missing_go_to_left[0]) == bool(tree.missing_left[0])


@pytest.mark.full
def test_nan_unseen_in_training_goes_to_the_larger_child():
    tree = fit_cart(X[:, :2], (X[:, 0] > 13).astype(int), max_depth=1, n_bins=NBINS)
    n_left, n_right = (int(tree.n_node_samples[i]) for i in (1, 2))
    assert bool(tree.missing_left[0]) == (n_left > n_right)  # scikit-learn's rule
    leaf = int(apply(tree, np.array([[np.nan, 0.0]]))[0])
    assert leaf == (1 if n_left > n_right else 2)


@pytest.mark.full
def test_all_nan_and_constant_features_are_never_split():
    Xc = np.c_[np.full(N, np.nan), np.full(N, 7.0), X[:, 0]]
    tree = fit_cart(Xc, Y_CLS, max_depth=3, n_bins=NBINS)
    f = np.asarray(tree.feature[: int(tree.n_nodes)])
    assert set(f[f >= 0]) == {2}
    assert float(feature_importances(tree)[0]) == 0.0 and float(feature_importances(tree)[1]) == 0.0


def test_constant_target_gives_one_leaf():
    tree = fit_cart(X, np.ones(N, int), n_classes=3, **KW)
    assert int(tree.n_nodes) == 1 and bool(tree.is_leaf[0])
    np.testing.assert_array_equal(np.asarray(predict_proba(tree, X[:3])), [[0, 1, 0]] * 3)
    np.testing.assert_array_equal(np.asarray(feature_importances(tree)), 0.0)


# --------------------------------------------------------------------------- randomness, budget, boosting
def test_max_features_and_feature_mask():
    a = fit_cart(X, Y_CLS, max_features=2, key=jax.random.key(3), **KW)
    b = fit_cart(X, Y_CLS, max_features=2, key=jax.random.key(3), **KW)
    np.testing.assert_array_equal(np.asarray(a.feature), np.asarray(b.feature))  # same key, same tree
    masked = fit_cart(X, Y_CLS, feature_mask=jnp.array([False, True, True, True]), **KW)
    assert 0 not in set(np.asarray(masked.feature).tolist())


def test_budget_truncation_warns():
    with pytest.warns(TreeTruncatedWarning, match="max_nodes=5"):
        tree = fit_cart(X, Y_CLS, max_nodes=5, **KW)
    assert int(tree.n_nodes) == 5


@pytest.mark.full
def test_gradient_pair_gain_by_hand():
    # 6 rows, one feature with 3 values; g, h chosen by hand
    # the hand derivation runs in numpy (float64): as jnp arrays, each masked sum of it was an
    # eager op compiled per shape (~80 XLA compiles for 12 numbers); the engine gets jnp arrays
    codes_T = jnp.array([[0, 0, 1, 1, 2, 2]], jnp.uint8)
    g = np.array([-2.0, -1.0, 0.5, 0.5, 2.0, 1.0])
    h = np.array([1.0, 1.0, 0.5, 0.5, 1.0, 2.0])
    lam, gamma = 1.0, 0.1
    score = lambda G, H: G * G / (H + lam)
    gain = lambda m: 0.5 * (score(g[m].sum(), h[m].sum()) + score(g[~m].sum(), h[~m].sum()) - score(g.sum(), h.sum())) - gamma
    cuts = [np.array([1, 1, 0, 0, 0, 0], bool), np.array([1, 1, 1, 1, 0, 0], bool)]
    by_hand = [float(gain(m)) for m in cuts]
    grown = grow(codes_T, jnp.asarray(np.stack([g, h], 1)), jnp.ones(6), criterion=GradientPair(),
                 criterion_params=(lam, gamma),
                 n_bins=3, max_nodes=3, max_width=1, max_depth=1)
    best = int(np.argmax(by_hand))
    assert int(np.asarray(grown.threshold_bin)[0]) == best
    left = cuts[best]
    np.testing.assert_allclose(np.asarray(grown.node_stats)[1], [g[left].sum(), h[left].sum(), left.sum()], rtol=1e-12)
    # the engine's loss difference is the formula's gain
    crit = GradientPair()
    s = lambda m: jnp.array([g[m].sum(), h[m].sum()])
    engine_gain = (crit.node_loss(s(np.ones(6, bool)), (lam, gamma)) - crit.node_loss(s(left), (lam, gamma))
                   - crit.node_loss(s(~left), (lam, gamma)) - crit.penalty((lam, gamma)))
    np.testing.assert_allclose(float(engine_gain), by_hand[best], rtol=1e-12)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(max_depth=0), ValueError, "max_depth must be >= 1, got 0"),
    (dict(min_samples_leaf=N + 1), ValueError, "min_samples_leaf must be <= 200"),
    (dict(min_samples_split=1), ValueError, "min_samples_split must be >= 2"),
    (dict(n_bins=1), ValueError, "n_bins must be >= 2"),
    (dict(n_bins=257), ValueError, "n_bins must be <= 256"),
    (dict(criterion="squared_error"), ValueError, "criterion must be one of"),
    (dict(task="ranking"), ValueError, "task must be one of"),
    (dict(max_features=5), ValueError, "max_features must be <= 4"),
    (dict(max_features="half"), ValueError, "max_features"),
    (dict(max_features=2, key=0), TypeError, "key must be a jax.random key"),
    (dict(max_depth=2.5), TypeError, "max_depth must be an int"),
    (dict(min_impurity_decrease=-1.0), ValueError, "min_impurity_decrease must be >= 0"),
    (dict(feature_mask=jnp.ones(3, bool)), ValueError, "feature_mask must have shape"),
])
@pytest.mark.full
def test_bad_hyperparameters(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        fit_cart(X, Y_CLS, **kwargs)


@pytest.mark.full
def test_bad_data():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fit_cart(X, Y_CLS[:-1])
    with pytest.raises(ValueError, match="inf"):
        fit_cart(np.where(X == 0, np.inf, X), Y_CLS)
    with pytest.raises(ValueError, match="X has 3 features"):
        predict(fit_cart(X, Y_CLS, **KW), X[:, :3])


# --------------------------------------------------------------------------- traced X (cross-validation)
_FIELDS = ("children_left", "children_right", "feature", "threshold_bin", "threshold", "missing_left", "value",
           "impurity", "n_node_samples", "weighted_n_node_samples", "is_leaf", "n_nodes", "bin_edges")


def test_jit_of_fit_cart_on_traced_X_equals_eager():
    # X traced: the edges are computed inside the program (exact binning here: equal bit for bit)
    eager = fit_cart(X, Y_CLS, **KW)
    jitted = jax.jit(lambda Xt: fit_cart(Xt, Y_CLS, n_classes=3, **KW))(jnp.asarray(X))
    for name in _FIELDS:
        np.testing.assert_array_equal(np.asarray(getattr(jitted, name)), np.asarray(getattr(eager, name)), err_msg=name)


@pytest.mark.full
def test_vmap_over_fold_weights_equals_fits_on_the_sliced_rows():
    # the cross-validation contract: fold k by its 0/1 weights = the fit on its training rows.
    # Three folds, each leaving out the rows i % 4 == k: every training set has 150 rows, so
    # the three reference fits share one compiled program (with i % 3 they had 133 and 134
    # rows: two compiles of the tree program)
    folds = (np.arange(N)[None, :] % 4 != np.arange(3)[:, None]).astype(float)
    batched = jax.vmap(lambda w: fit_cart(X, Y_CLS, sample_weight=w, n_classes=3, **KW))(jnp.asarray(folds))
    for k in range(3):
        train = folds[k] > 0
        ref = fit_cart(X[train], Y_CLS[train], n_classes=3, **KW)
        for name in _FIELDS:
            np.testing.assert_allclose(np.asarray(getattr(batched, name))[k], np.asarray(getattr(ref, name)),
                                       rtol=1e-12, err_msg=name)


# --------------------------------------------------------------------------- pure nodes
@pytest.mark.full
def test_pure_nodes_are_not_split_with_real_weights():
    """Non-integer weights: sibling subtraction leaves +-1e-16 of an absent class, the impurity
    of a pure node comes out ~1e-15 > eps, and scikit-learn (impurity <= eps) splits such
    nodes with zero gain. Ours does not: no internal node holds a single class (numpy on the
    rows reaching it), and the leaves are scikit-learn's with its pure-node splits merged."""
    rng = np.random.default_rng(0)
    Xp = rng.integers(0, 30, size=(300, 3)).astype(float)
    yp = ((Xp[:, 0] + Xp[:, 1]) > 30).astype(int) + (Xp[:, 2] > 20)
    wp = rng.uniform(0.1, 1.0, 300) * 0.1
    tree = fit_cart(Xp, yp, sample_weight=wp, n_bins=32, n_classes=3)
    leaf = np.asarray(apply(tree, Xp))
    m = int(tree.n_nodes)
    for node in np.flatnonzero(np.asarray(tree.children_left[:m]) >= 0):
        # rows through the node: those whose leaf is in its subtree
        sub, stack = set(), [int(node)]
        while stack:
            t = stack.pop()
            sub.add(t)
            if int(tree.children_left[t]) >= 0:
                stack += [int(tree.children_left[t]), int(tree.children_right[t])]
        assert np.unique(yp[np.isin(leaf, list(sub))]).size >= 2, f"pure node {node} was split"
    sk = DecisionTreeClassifier(random_state=0).fit(Xp, yp, sample_weight=wp)
    t = sk.tree_
    pure_split = (t.children_left >= 0) & (t.value[:, 0, :].max(1) > 1 - 1e-12)
    assert pure_split.sum() >= 1  # the reference does split pure nodes on this data
    # merge scikit-learn's pure-node subtrees: a row's leaf is its first pure ancestor (or its leaf)
    paths = sk.decision_path(Xp).toarray().astype(bool)
    sk_leaf = np.array([np.flatnonzero(p & pure_split)[0] if (p & pure_split).any() else np.flatnonzero(p)[-1]
                        for p in paths])
    part = lambda lab: {frozenset(np.flatnonzero(lab == v)) for v in np.unique(lab)}  # noqa: E731
    assert part(leaf) == part(sk_leaf)
    assert m == t.node_count - 2 * pure_split.sum()


@pytest.mark.full
def test_has_missing_is_read_from_the_codes_and_a_false_promise_is_refused():
    from jaxclassic.tree.binning import bin_features
    from jaxclassic.tree.cart import fit_cart_binned

    X = np.array([[0.0], [1.0], [np.nan], [3.0]])
    codes, edges = bin_features(X, n_bins=4)
    y = np.array([0, 0, 1, 1])
    tree = fit_cart_binned(codes, edges, y)  # has_missing read from the codes: True here
    assert predict(tree, X).tolist() == [0, 0, 1, 1]
    with pytest.raises(ValueError, match="has_missing=False"):
        fit_cart_binned(codes, edges, y, has_missing=False)
    with pytest.raises(TypeError, match="has_missing"):
        fit_cart_binned(codes, edges, y, has_missing="no")


def _splits_per_level(tree):
    left, right, leaf = (np.asarray(a) for a in (tree.children_left, tree.children_right, tree.is_leaf))
    depth = np.zeros(left.shape[0], int)
    for t in range(left.shape[0]):  # parents are numbered before their children
        if left[t] >= 0:
            depth[left[t]] = depth[right[t]] = depth[t] + 1
    internal = ~leaf & (left >= 0)
    return np.bincount(depth[internal])


@pytest.mark.full
@pytest.mark.parametrize("wide", [False, True])
def test_narrow_first_growth_equals_the_default_width(wide, monkeypatch):
    """A concrete fit at the default width grows at W = 64 first and again at the default only
    when truncated (module docstring, "Width"): the tree equals the one grown at the default
    width directly, for a narrow tree (one program, W = 64) and for one that needs more than 64
    splits on a level (two programs). No TreeTruncatedWarning either way. (The histogram
    engine's rule: regression trees this small grow by the sorted engine, at the default width
    at once, last lines.)"""
    sorted_choice = cart_module._sorted.use_sorted
    monkeypatch.setattr(cart_module._sorted, "use_sorted", lambda *a, **k: False)
    rng = np.random.default_rng(3)
    n = 1000
    Xw = rng.integers(0, 2, size=(n, 8)).astype(float)  # 8 bits
    # wide: y is the binary number of the bits, so each level splits on the next bit in every
    # node (unique gains 4^k): level 7 has up to 128 splits. Narrow: two bits matter
    y = Xw @ 2.0 ** np.arange(8) if wide else 3 * Xw[:, 0] + Xw[:, 1]
    widths = record_widths(monkeypatch, cart_module, "_fit_binned")
    with warnings.catch_warnings():
        warnings.simplefilter("error", TreeTruncatedWarning)
        auto = fit_cart(Xw, y, task="regression")
        full_width = cart_module.default_budget(n, None)[1]
        direct = fit_cart(Xw, y, task="regression", max_width=full_width)
    assert full_width == 256
    assert widths == ([64, 256, 256] if wide else [64, 256])
    assert (_splits_per_level(auto).max() > 64) == wide
    for a, b in zip(jax.tree_util.tree_leaves(auto), jax.tree_util.tree_leaves(direct)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    monkeypatch.setattr(cart_module._sorted, "use_sorted", sorted_choice)
    widths.clear()
    by_sorting = fit_cart(Xw, y, task="regression")
    assert widths == [256]
    # scikit-learn's tree. (The histogram engine's narrow tree splits its pure leaves further:
    # their sums by sibling subtraction keep ~1e-14 of noise, above the purity rule's 4 eps of
    # the root's sum of squares; the sorted engine sums each node's own rows.)
    ref = DecisionTreeRegressor().fit(Xw, y)
    assert int(by_sorting.n_nodes) == ref.tree_.node_count
    assert (ref.tree_.node_count > 256) == wide  # 7 nodes narrow
    np.testing.assert_allclose(np.asarray(predict(by_sorting, Xw)), ref.predict(Xw), atol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("wide", [False, True])
def test_narrow_first_growth_with_feature_draws_equals_the_default_width(wide, monkeypatch):
    """With max_features draws the narrow first growth (W = 16 for a classification tree on at
    most 512 rows) grows the tree of the default width too: a node's draws depend on its slot
    and level, not on the width (``_engine._level_uniform``). Wide: random labels, so that the
    pure-leaf tree splits more than 16 nodes on some level (two programs)."""
    rng = np.random.default_rng(5)
    n = 400
    X = rng.normal(size=(n, 10))
    y = rng.integers(0, 2, n) if wide else (X[:, 0] + X[:, 1] > 0).astype(int)
    widths = record_widths(monkeypatch, cart_module, "_fit_binned")
    key = jax.random.key(2)
    auto = fit_cart(X, y, max_features=3, key=key, n_bins=64)
    full_width = cart_module.default_budget(n, None)[1]
    direct = fit_cart(X, y, max_features=3, key=key, n_bins=64, max_width=full_width)
    assert widths == ([16, full_width, full_width] if wide else [16, full_width])
    assert (_splits_per_level(auto).max() > 16) == wide
    for a, b in zip(jax.tree_util.tree_leaves(auto), jax.tree_util.tree_leaves(direct)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_default_key_made_inside_a_trace_is_not_kept(monkeypatch):
    """The key of fits that draw nothing is made once and kept (a device transfer saved per
    fit), but not when first made inside ``jit``: that is the trace's value, and keeping it
    made every later concrete fit fail on a leaked tracer."""
    monkeypatch.setattr(cart_module, "_DEFAULT_KEYS", {})
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(np.int32)
    traced = jax.jit(lambda X, y: fit_cart(X, y, max_depth=2, n_classes=2).n_nodes)(X, y)
    assert cart_module._DEFAULT_KEYS == {}
    tree = fit_cart(X, y, max_depth=2)  # concrete, after the traced fit
    assert int(tree.n_nodes) == int(traced)
    assert len(cart_module._DEFAULT_KEYS) == 1


def test_feature_importances_on_the_host_equal_the_compiled_ones():
    """The estimators' ``feature_importances_`` come from numpy (``feature_importances_host``)
    on the fitted tree: the compiled ``feature_importances``' values, to the float32 rounding
    of another summation order."""
    from sklearn.datasets import load_breast_cancer

    from jaxclassic.estimators._base import to_host
    from jaxclassic.tree.cart import feature_importances_host

    X, y = load_breast_cancer(return_X_y=True)
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-6)):
        for task, target in (("classification", y), ("regression", X[:, 0])):
            tree = fit_cart(X[:, 1:].astype(dtype), target, task=task, max_depth=6)
            host = feature_importances_host(to_host(tree))
            assert host.dtype == dtype and host.sum() > 0.99
            np.testing.assert_allclose(host, np.asarray(feature_importances(tree)), rtol=tol, atol=tol)


def test_classification_tree_reports_n_classes_and_key_defaults_to_a_fixed_key():
    # issue 27: n_classes is a property (a Python int, no pytree leaf); key=None is
    # jax.random.key(0), also when max_features draws features
    Xs = np.array([[0.0, 5.0], [1.0, 4.0], [2.0, 4.0], [3.0, 5.0]])
    ys = np.array([0, 0, 1, 2])
    default = fit_cart(Xs, ys, max_features=1)
    assert default.n_classes == 3 and isinstance(default.n_classes, int)
    assert len(jax.tree.leaves(default)) == len(type(default)._fields)
    jax.tree.map(np.testing.assert_array_equal, default, fit_cart(Xs, ys, max_features=1, key=jax.random.key(0)))
