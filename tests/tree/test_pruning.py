"""Tests of jaxclassic/tree/pruning.py against scikit-learn's minimal cost-complexity pruning.

Trees are converted from scikit-learn's ``tree_`` arrays into the jaxclassic layout
(``_params.py``), so pruning is tested independently of the growth engine. The data are
float32-representable values held in float64: scikit-learn casts X to float32 before
routing, so with such data both sides route every row the same way.

Tolerances: the path is computed with the same float operations in the same order as
scikit-learn's ``_cost_complexity_prune``, so it agrees to 1e-12 (in practice bit for bit);
re-estimated statistics are sums in a different order than the reference's, 1e-12 too.
"""

from __future__ import annotations

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.tree._tree import Tree, ccp_pruning_path

import jaxclassic.tree as tree_api
from jaxclassic.tree import pruning
from jaxclassic.tree._params import ClassificationTree, RegressionTree
from jaxclassic.tree.pruning import CostComplexityPath, cost_complexity_path, prune

N_SLOTS = 256  # one node budget for every converted tree: shared compiled programs
ATOL = 1e-12


def _data(task, n=90, n_features=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features)).astype(np.float32).astype(np.float64)
    if task == "classification":
        logits = np.stack([X[:, 0], X[:, 1] - X[:, 2], -X[:, 0]], 1)
        y = np.argmax(logits + rng.gumbel(size=logits.shape), axis=1)
    else:
        y = np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    w = rng.uniform(0.5, 2.0, size=n)
    return X, y, w


def _to_params(estimator, n_classes=None, n_slots=N_SLOTS):
    """scikit-learn ``tree_`` -> ClassificationTree / RegressionTree, padded to ``n_slots``.

    scikit-learn >= 1.4 stores weighted class fractions in ``tree_.value`` for classifiers
    (earlier versions: weighted counts, normalised here either way) and means for regressors.
    """
    t = estimator.tree_
    m = t.node_count
    assert m <= n_slots
    leaf = t.children_left == -1
    classifier = hasattr(estimator, "classes_")
    if classifier:
        n_classes = n_classes or len(estimator.classes_)
        value = np.zeros((m, n_classes))
        value[:, estimator.classes_.astype(int)] = t.value[:, 0, :]
        value /= value.sum(axis=1, keepdims=True)
    else:
        value = t.value[:, 0, :1]

    def pad(a, fill):
        out = np.full((n_slots,) + a.shape[1:], fill, dtype=a.dtype)
        out[:m] = a
        return out

    cls = ClassificationTree if classifier else RegressionTree
    return cls(
        children_left=jnp.asarray(pad(t.children_left.astype(np.int32), -1)),
        children_right=jnp.asarray(pad(t.children_right.astype(np.int32), -1)),
        feature=jnp.asarray(pad(np.where(leaf, -1, t.feature).astype(np.int32), -1)),
        threshold_bin=jnp.asarray(pad(np.where(leaf, -1, 0).astype(np.int32), -1)),
        threshold=jnp.asarray(pad(np.where(leaf, np.nan, t.threshold), np.nan)),
        missing_left=jnp.asarray(pad(t.missing_go_to_left.astype(bool) & ~leaf, False)),
        value=jnp.asarray(pad(value, 0.0)),
        impurity=jnp.asarray(pad(t.impurity, 0.0)),
        n_node_samples=jnp.asarray(pad(t.n_node_samples.astype(np.int32), 0)),
        weighted_n_node_samples=jnp.asarray(pad(t.weighted_n_node_samples, 0.0)),
        is_leaf=jnp.asarray(pad(leaf, False)),
        n_nodes=jnp.asarray(m, jnp.int32),
        bin_edges=jnp.zeros((t.n_features, 1)),
    )


def _sk_fit(task, X, y, w, criterion, ccp_alpha=0.0, **kwargs):
    cls = DecisionTreeClassifier if task == "classification" else DecisionTreeRegressor
    return cls(criterion=criterion, ccp_alpha=ccp_alpha, random_state=0, **kwargs).fit(X, y, sample_weight=w)


CASES = [
    ("classification", "gini", {}),
    ("classification", "entropy", {"min_samples_leaf": 2}),
    ("regression", "squared_error", {}),
]


@pytest.fixture(scope="module", params=CASES, ids=[c[1] for c in CASES])
def case(request):
    task, criterion, kwargs = request.param
    X, y, w = _data(task)
    est = _sk_fit(task, X, y, w, criterion, **kwargs)
    return task, criterion, kwargs, X, y, w, est


# ---------------------------------------------------------------------------------------
# the path
# ---------------------------------------------------------------------------------------


def test_path_equals_sklearn(case):
    task, criterion, kwargs, X, y, w, est = case
    ref = est.cost_complexity_pruning_path(X, y, sample_weight=w)
    path = cost_complexity_path(_to_params(est))
    assert isinstance(path, CostComplexityPath)
    assert len(ref.ccp_alphas) > 5  # a tree with something to prune
    np.testing.assert_allclose(path.ccp_alphas, ref.ccp_alphas, rtol=0, atol=ATOL)
    np.testing.assert_allclose(path.impurities, ref.impurities, rtol=0, atol=ATOL)


def test_node_alphas_are_the_running_maximum(case):
    *_, est = case
    path = cost_complexity_path(_to_params(est))
    na = np.asarray(path.node_alphas)
    internal = est.tree_.children_left != -1
    # every node either collapsed at a path value or (inside a branch collapsed whole) never
    finite = na[np.isfinite(na)]
    assert len(finite) == len(path.ccp_alphas) - 1
    np.testing.assert_array_equal(np.sort(finite), np.maximum.accumulate(np.asarray(path.ccp_alphas)[1:]))
    assert np.isinf(na[: est.tree_.node_count][~internal]).all()
    assert np.isinf(na[est.tree_.node_count:]).all()  # unused slots
    assert np.isfinite(na[0])  # the root is the last link


def test_path_of_a_single_leaf():
    X, y, w = _data("classification", n=20)
    est = DecisionTreeClassifier(max_depth=1, random_state=0).fit(X, y)
    stump = prune(_to_params(est), 1e9)
    assert int(stump.n_nodes) == 1
    path = cost_complexity_path(stump)
    np.testing.assert_array_equal(path.ccp_alphas, [0.0])
    np.testing.assert_allclose(path.impurities, [est.tree_.impurity[0]], rtol=0, atol=ATOL)


# ---------------------------------------------------------------------------------------
# pruning at α equals scikit-learn's refit with ccp_alpha
# ---------------------------------------------------------------------------------------


def _alphas_to_check(ccp_alphas):
    a = np.asarray(ccp_alphas)
    mids = (a[:-1] + a[1:]) / 2
    return np.concatenate([a, mids, [a[-1] * 2 + 1.0]])


def _assert_same_tree(ours, ref_est, X, task):
    t = ref_est.tree_
    assert int(ours.n_nodes) == t.node_count
    assert int(ours.is_leaf.sum()) == int((t.children_left == -1).sum())
    assert int((ours.feature >= 0).sum()) == int((t.children_left != -1).sum())
    # the same partition of the rows into leaves
    leaf_ours = np.asarray(tree_api.apply(ours, jnp.asarray(X)))
    leaf_ref = ref_est.apply(X)
    pairs = set(zip(leaf_ours.tolist(), leaf_ref.tolist()))
    assert len(pairs) == len(set(leaf_ours.tolist())) == len(set(leaf_ref.tolist()))
    assert np.asarray(ours.is_leaf)[leaf_ours].all()
    pred = np.asarray(tree_api.predict(ours, jnp.asarray(X)))
    if task == "classification":
        np.testing.assert_array_equal(pred, ref_est.predict(X))
    else:
        np.testing.assert_allclose(pred, ref_est.predict(X), rtol=0, atol=ATOL)


@pytest.mark.full
def test_prune_equals_sklearn_refit_on_the_whole_path(case):
    task, criterion, kwargs, X, y, w, est = case
    params = _to_params(est)
    path = cost_complexity_path(params)
    alphas = _alphas_to_check(path.ccp_alphas)
    pruned = jax.vmap(lambda a: prune(params, a, node_alphas=path.node_alphas))(jnp.asarray(alphas))
    for i, alpha in enumerate(alphas):
        ours = jax.tree_util.tree_map(lambda leaf: leaf[i], pruned)
        ref = _sk_fit(task, X, y, w, criterion, ccp_alpha=float(alpha), **kwargs)
        _assert_same_tree(ours, ref, X, task)


@pytest.mark.full
def test_prune_layout_of_collapsed_and_unused_slots(case):
    task, *_, X, y, w, est = case
    params = _to_params(est)
    path = cost_complexity_path(params)
    alpha = float(path.ccp_alphas[len(path.ccp_alphas) // 2])
    out = prune(params, alpha)
    assert type(out) is type(params)
    chex.assert_trees_all_equal_shapes_and_dtypes(out, params)
    n = int(out.n_nodes)
    leaf = np.asarray(out.is_leaf)
    for name in ("children_left", "children_right", "feature", "threshold_bin"):
        field = np.asarray(getattr(out, name))
        assert (field[:n][leaf[:n]] == -1).all(), name
        assert (field[n:] == -1).all(), name
    assert np.isnan(np.asarray(out.threshold)[:n][leaf[:n]]).all()
    assert not leaf[n:].any()
    assert (np.asarray(out.weighted_n_node_samples)[n:] == 0).all()
    # children point forward (parents before children), every slot below n_nodes is reached once
    cl, cr = np.asarray(out.children_left)[:n], np.asarray(out.children_right)[:n]
    internal = cl >= 0
    assert (cl[internal] > np.flatnonzero(internal)).all()
    np.testing.assert_array_equal(np.sort(np.concatenate([[0], cl[internal], cr[internal]])), np.arange(n))
    # a pruned tree's path is the tail of the original path
    tail = cost_complexity_path(out)
    k = len(path.ccp_alphas) - len(tail.ccp_alphas) + 1
    np.testing.assert_allclose(tail.ccp_alphas[1:], path.ccp_alphas[k:], rtol=0, atol=ATOL)
    np.testing.assert_allclose(tail.impurities, path.impurities[k - 1:], rtol=0, atol=ATOL)


def test_prune_jit_equals_eager_and_does_not_retrace():
    X, y, w = _data("classification")
    params = _to_params(_sk_fit("classification", X, y, w, "gini"))
    path = cost_complexity_path(params)
    counter = {"n": 0}

    @jax.jit
    def pruned_leaves(p, node_alphas, alpha):
        counter["n"] += 1
        return prune(p, alpha, node_alphas=node_alphas).is_leaf

    for alpha in np.asarray(path.ccp_alphas)[::3]:
        eager = prune(params, float(alpha)).is_leaf
        np.testing.assert_array_equal(pruned_leaves(params, path.node_alphas, jnp.asarray(alpha)), eager)
    assert counter["n"] == 1
    size = pruning._prune._cache_size()
    prune(params, 0.01, node_alphas=path.node_alphas)
    prune(params, 0.02, node_alphas=path.node_alphas)
    assert pruning._prune._cache_size() == size


@pytest.mark.full
def test_prune_vmap_over_trees_equals_loop():
    trees, alphas = [], []
    for seed in range(3):
        X, y, w = _data("classification", seed=seed)
        trees.append(_to_params(_sk_fit("classification", X, y, w, "gini")))
        alphas.append(cost_complexity_path(trees[-1]).node_alphas)
    stacked = jax.tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *trees)
    batched = jax.vmap(lambda p, na: prune(p, 0.01, node_alphas=na))(stacked, jnp.stack(alphas))
    for i, tree in enumerate(trees):
        chex.assert_trees_all_equal(jax.tree_util.tree_map(lambda leaf: leaf[i], batched), prune(tree, 0.01))


# ---------------------------------------------------------------------------------------
# re-estimating node statistics from data
# ---------------------------------------------------------------------------------------


@pytest.mark.full
def test_reestimate_on_training_data_reproduces_the_tree(case):
    task, criterion, kwargs, X, y, w, est = case
    params = _to_params(est)
    n = est.tree_.node_count
    refit = pruning._reestimated(params, X, y, w, criterion)
    for name in ("impurity", "weighted_n_node_samples", "value"):
        np.testing.assert_allclose(getattr(refit, name)[:n], getattr(params, name)[:n], rtol=0, atol=ATOL, err_msg=name)
    np.testing.assert_array_equal(refit.n_node_samples, params.n_node_samples)
    a = cost_complexity_path(params)
    b = cost_complexity_path(params, X, y, w, criterion=criterion)
    np.testing.assert_allclose(b.ccp_alphas, a.ccp_alphas, rtol=0, atol=ATOL)
    np.testing.assert_allclose(b.impurities, a.impurities, rtol=0, atol=ATOL)


def _reference_stats(est, X, y, w, task, criterion):
    """Node statistics on other data from scikit-learn's decision_path, in numpy."""
    paths = est.decision_path(X).toarray().astype(bool)  # (n, n_nodes)
    weight = w @ paths
    count = paths.sum(axis=0)
    if task == "classification":
        sums = np.stack([w * (y == k) @ paths for k in range(3)], 1)
        frac = sums / np.where(weight > 0, weight, 1)[:, None]
        if criterion == "gini":
            impurity = 1 - (frac ** 2).sum(1)
        elif criterion == "misclassification":
            impurity = 1 - frac.max(1)
        else:
            impurity = -np.where(frac > 0, frac * np.log2(np.where(frac > 0, frac, 1)), 0).sum(1)
    else:
        mean = (w * y) @ paths / np.where(weight > 0, weight, 1)
        impurity = ((w * y * y) @ paths) / np.where(weight > 0, weight, 1) - mean ** 2
    return weight, count, np.where(weight > 0, impurity, 0.0)


@pytest.mark.full
def test_path_on_other_data_equals_sklearn_on_the_reestimated_tree(case):
    task, criterion, kwargs, X, y, w, est = case
    X2, y2, w2 = _data(task, n=60, seed=7)
    weight, count, impurity = _reference_stats(est, X2, y2, w2, task, criterion)
    # the same tree structure with the new statistics, as a scikit-learn Tree
    state = est.tree_.__getstate__()
    nodes = state["nodes"].copy()
    nodes["impurity"], nodes["weighted_n_node_samples"], nodes["n_node_samples"] = impurity, weight, count
    ref_tree = Tree(est.tree_.n_features, np.asarray(est.tree_.n_classes), est.tree_.n_outputs)
    ref_tree.__setstate__({**state, "nodes": nodes})
    ref = ccp_pruning_path(ref_tree)
    path = cost_complexity_path(_to_params(est), X2, y2, w2, criterion=criterion)
    np.testing.assert_allclose(path.ccp_alphas, ref["ccp_alphas"], rtol=0, atol=ATOL)
    np.testing.assert_allclose(path.impurities, ref["impurities"], rtol=0, atol=ATOL)
    # the statistics did change: the root's R(T) differs from the training one
    assert abs(float(path.impurities[-1]) - float(cost_complexity_path(_to_params(est)).impurities[-1])) > 1e-3


@pytest.mark.full
def test_misclassification_reestimate_equals_decision_path_statistics():
    # every criterion recomputes the impurity from the new rows' own class fractions, so
    # g(t) >= 0 up to rounding (concavity); checked on node statistics, not the path, whose
    # near-zero links (1e-17) order by rounding
    X, y, w = _data("classification")
    est = _sk_fit("classification", X, y, w, "gini")
    X2, y2, w2 = _data("classification", n=60, seed=7)
    weight, count, impurity = _reference_stats(est, X2, y2, w2, "classification", "misclassification")
    refit = pruning._reestimated(_to_params(est), X2, y2, w2, "misclassification")
    m = est.tree_.node_count
    np.testing.assert_allclose(refit.impurity[:m], impurity, rtol=0, atol=ATOL)
    np.testing.assert_allclose(refit.weighted_n_node_samples[:m], weight, rtol=0, atol=ATOL)
    np.testing.assert_array_equal(refit.n_node_samples[:m], count)
    path = cost_complexity_path(_to_params(est), X2, y2, w2, criterion="misclassification")
    assert np.all(np.asarray(path.ccp_alphas) > -1e-15)


def test_reestimate_zero_weight_rows_have_no_influence():
    X, y, w = _data("classification")
    params = _to_params(_sk_fit("classification", X, y, w, "gini"))
    keep = np.arange(len(y)) % 3 != 0
    a = cost_complexity_path(params, X[keep], y[keep], w[keep])
    b = cost_complexity_path(params, X, y, np.where(keep, w, 0.0))
    np.testing.assert_allclose(b.ccp_alphas, a.ccp_alphas, rtol=0, atol=ATOL)
    np.testing.assert_allclose(b.impurities, a.impurities, rtol=0, atol=ATOL)


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_tree():
    X, y, w = _data("classification", n=30)
    return _to_params(_sk_fit("classification", X, y, w, "gini", max_depth=3)), X, y


def test_prune_rejects_a_non_tree():
    with pytest.raises(TypeError, match="params must be a fitted tree"):
        prune({"feature": np.zeros(3)}, 0.1)


def test_path_rejects_a_non_tree():
    with pytest.raises(TypeError, match="params must be a fitted tree"):
        cost_complexity_path((1, 2, 3))


def test_prune_rejects_negative_alpha(small_tree):
    with pytest.raises(ValueError, match="ccp_alpha must be >= 0.0, got -0.1"):
        prune(small_tree[0], -0.1)


def test_prune_rejects_non_numeric_alpha(small_tree):
    with pytest.raises(TypeError, match="ccp_alpha must be a real number"):
        prune(small_tree[0], "0.1")


def test_prune_rejects_nan_alpha(small_tree):
    with pytest.raises(ValueError, match="ccp_alpha must be finite"):
        prune(small_tree[0], float("nan"))


def test_prune_rejects_node_alphas_of_wrong_shape(small_tree):
    with pytest.raises(ValueError, match=r"node_alphas must have shape \(256,\), got \(5,\)"):
        prune(small_tree[0], 0.1, node_alphas=np.zeros(5))


def test_prune_traced_params_need_node_alphas(small_tree):
    with pytest.raises(ValueError, match="node_alphas must be given when params are traced"):
        jax.jit(lambda p: prune(p, 0.1))(small_tree[0])


def test_path_rejects_traced_params(small_tree):
    with pytest.raises(ValueError, match="params must be concrete arrays"):
        jax.jit(lambda p: cost_complexity_path(p).ccp_alphas)(small_tree[0])


def test_path_rejects_X_without_y(small_tree):
    with pytest.raises(ValueError, match="X and y must be given together"):
        cost_complexity_path(small_tree[0], small_tree[1])


def test_path_rejects_sample_weight_without_X(small_tree):
    with pytest.raises(ValueError, match="sample_weight is only used with X and y"):
        cost_complexity_path(small_tree[0], sample_weight=np.ones(30))


def test_path_rejects_a_regression_criterion_for_a_classifier(small_tree):
    tree, X, y = small_tree
    with pytest.raises(ValueError, match="criterion must be one of"):
        cost_complexity_path(tree, X, y, criterion="squared_error")


def test_path_rejects_X_with_wrong_feature_count(small_tree):
    tree, X, y = small_tree
    with pytest.raises(ValueError, match="X has 2 features, but the model was fitted with 3"):
        cost_complexity_path(tree, X[:, :2], y)


def test_path_rejects_class_codes_beyond_the_tree(small_tree):
    tree, X, y = small_tree
    with pytest.raises(ValueError, match="y holds class code 5 but n_classes=3"):
        cost_complexity_path(tree, X, np.where(np.arange(30) == 0, 5, y))


def test_path_rejects_inconsistent_lengths(small_tree):
    tree, X, y = small_tree
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        cost_complexity_path(tree, X, y[:-1])


# ---------------------------------------------------------------------------------------
# trees grown by the engine (jaxclassic.tree.fit_cart)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("task, criterion, seed, max_depth",
                         [("classification", "gini", 1, 6), ("regression", "squared_error", 0, None)])
@pytest.mark.full
def test_path_and_prune_of_a_fit_cart_tree_equal_sklearn(task, criterion, seed, max_depth):
    # n = 90 rows: every feature has fewer distinct values than bins, so the engine's tree
    # equals scikit-learn's up to ties in the gain (data chosen where it is the same tree)
    # and to node numbering (level-wise vs depth-first). Ties of g(t) may then be collapsed
    # in another order: the α sequence agrees, and R(T) at the end of each group of ties.
    X, y, w = _data(task, seed=seed)
    est = _sk_fit(task, X, y, w, criterion, max_depth=max_depth)
    params = tree_api.fit_cart(X, y, task=task, criterion=criterion, sample_weight=w, max_depth=max_depth)
    _assert_same_tree(params, est, X, task)  # the precondition: the same tree
    ref = est.cost_complexity_pruning_path(X, y, sample_weight=w)
    path = cost_complexity_path(params)
    np.testing.assert_allclose(path.ccp_alphas, ref.ccp_alphas, rtol=0, atol=1e-12)
    ends = np.append(np.diff(ref.ccp_alphas) > 1e-12, True)
    np.testing.assert_allclose(np.asarray(path.impurities)[ends], ref.impurities[ends], rtol=0, atol=1e-12)
    # midpoints (not the path values themselves: a tie broken by rounding could flip <=)
    a = np.unique(ref.ccp_alphas)
    mids = np.append((a[:-1] + a[1:]) / 2, a[-1] + 1.0)
    pruned = jax.vmap(lambda alpha: prune(params, alpha, node_alphas=path.node_alphas))(jnp.asarray(mids))
    for i, alpha in enumerate(mids):
        ours = jax.tree_util.tree_map(lambda leaf: leaf[i], pruned)
        _assert_same_tree(ours, _sk_fit(task, X, y, w, criterion, ccp_alpha=float(alpha), max_depth=max_depth), X, task)
