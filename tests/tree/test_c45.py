"""C4.5 (jaxclassic/tree/c45.py): gain ratios by hand, Quinlan's golf trees (numeric, with an
unknown value), the pessimistic bound against scipy, pruning, zero weights, bad input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.stats import beta, binom
from scipy.stats import entropy as scipy_entropy

from jaxclassic import tree
from jaxclassic.datasets import load_play_tennis
from jaxclassic.tree.c45 import C45Params, fit_c45, gain_ratio, pessimistic_prune, upper_error_bound
from jaxclassic.tree.id3 import fit_id3

X_TENNIS, Y_TENNIS = load_play_tennis(return_X_y=True)

# Quinlan 1993 table 1.1 as Weka's weather.numeric.arff distributes it (the rows of the
# play-tennis table, in that order). The temperature and humidity columns are the ones the
# brief lists; they match weather.numeric.arff; we could not check every value against the
# printed book, so the tests assert facts derived by hand from these numbers and J48's
# published tree on them (Witten & Frank, Data Mining).
OUTLOOK = [2, 2, 0, 1, 1, 1, 0, 2, 2, 1, 2, 0, 0, 1]            # 0 overcast, 1 rain, 2 sunny
TEMPERATURE = [85, 80, 83, 70, 68, 65, 64, 72, 69, 75, 75, 72, 81, 71]
HUMIDITY = [85, 90, 86, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 91]
WINDY = [0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1]                # 0 false, 1 true
X_GOLF = np.array([OUTLOOK, TEMPERATURE, HUMIDITY, WINDY], float).T
Y_GOLF = np.array([0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0])   # 1 play
GOLF_CATEGORICAL = np.array([True, False, False, True])
H = lambda *counts: scipy_entropy(counts, base=2)               # noqa: E731


# --------------------------------------------------------------------------- the upper bound
def test_upper_bound_quinlan_book_values():
    # Quinlan 1993 §4.2 (p. 41): U_0.25(0, 6) = 0.206, U_0.25(0, 9) = 0.143, U_0.25(0, 1) = 0.750
    np.testing.assert_allclose(upper_error_bound([0, 0, 0], [6, 9, 1]), [0.206, 0.143, 0.750], atol=1e-3)
    # the book's U_0.25(1, 16) = 0.157 is C4.5's normal approximation; the exact limit is 0.1596
    np.testing.assert_allclose(upper_error_bound(1, 16), beta.ppf(0.75, 2, 15), rtol=1e-10)
    assert abs(float(upper_error_bound(1, 16)) - 0.157) < 3e-3


@pytest.mark.parametrize("cf", [0.05, 0.25, 0.5, 0.9])
def test_upper_bound_equals_scipy(cf):
    e = np.array([0, 1, 2, 3, 5, 0.5, 2.4, 0.0, 7.0])
    n = np.array([1, 16, 5, 30, 14, 3.2, 5.385, 0.7, 9.0])
    u = np.asarray(upper_error_bound(e, n, cf))
    np.testing.assert_allclose(u, beta.ppf(1 - cf, e + 1, n - e), rtol=1e-9)   # 64 bisections: ~1e-19
    whole = (e == np.round(e)) & (n == np.round(n))
    np.testing.assert_allclose(binom.cdf(e[whole], n[whole], u[whole]), cf, rtol=1e-8)   # P(Bin(N, U) <= E) = CF
    np.testing.assert_array_equal(upper_error_bound([3.0, 0.0], [3.0, 0.0], cf), [1.0, 1.0])   # E >= N


# --------------------------------------------------------------------------- gain ratio
@pytest.mark.full
def test_play_tennis_gain_ratios_by_hand():
    s = gain_ratio(X_TENNIS, Y_TENNIS, categorical=True)
    base = H(9, 5)
    gains = [base - (5 * H(2, 3) + 4 * H(4) + 5 * H(3, 2)) / 14,        # outlook 0.247
             base - (4 * H(2, 2) + 6 * H(4, 2) + 4 * H(3, 1)) / 14,     # temperature 0.029
             base - (7 * H(3, 4) + 7 * H(6, 1)) / 14,                   # humidity 0.152
             base - (8 * H(6, 2) + 6 * H(3, 3)) / 14]                   # wind 0.048
    infos = [H(5, 4, 5), H(4, 6, 4), H(7, 7), H(8, 6)]
    np.testing.assert_allclose(s.gain, gains, rtol=1e-12)
    np.testing.assert_allclose(s.split_info, infos, rtol=1e-12)
    np.testing.assert_allclose(s.gain_ratio, np.divide(gains, infos), rtol=1e-12)
    np.testing.assert_allclose(s.gain_ratio, [0.156, 0.019, 0.152, 0.049], atol=1e-3)   # Quinlan 1993 §2.2: 0.156
    # the average gain 0.119 leaves outlook and humidity eligible; outlook's ratio wins
    np.testing.assert_array_equal(s.eligible, [True, False, True, False])


@pytest.mark.full
def test_play_tennis_c45_tree_equals_id3():
    c45 = fit_c45(X_TENNIS, Y_TENNIS, categorical=True)
    id3 = fit_id3(X_TENNIS, Y_TENNIS)
    assert isinstance(c45, C45Params)
    for name in ("feature", "children", "is_leaf", "n_nodes", "depth"):
        np.testing.assert_array_equal(getattr(c45, name)[: int(id3.n_nodes)] if name != "n_nodes" else c45.n_nodes,
                                      getattr(id3, name), err_msg=name)
    np.testing.assert_allclose(c45.value, id3.value)
    np.testing.assert_array_equal(tree.predict(c45, X_TENNIS), Y_TENNIS)


@pytest.mark.full
def test_golf_numeric_tree_is_j48s():
    params = fit_c45(X_GOLF, Y_GOLF, categorical=GOLF_CATEGORICAL)
    # J48 on weather.numeric: outlook; sunny: humidity <= 75 (yes 2) / > 75 (no 3); overcast yes (4);
    # rainy: windy = TRUE no (2) / FALSE yes (3)
    assert int(params.n_nodes) == 8 and int(params.feature[0]) == 0
    overcast, rain, sunny = (int(c) for c in params.children[0, :3])
    assert bool(params.is_leaf[overcast]) and float(params.weighted_n_node_samples[overcast]) == 4
    assert int(params.feature[sunny]) == 2 and float(params.threshold[sunny]) == 75.0
    assert int(params.feature[rain]) == 3 and np.isnan(float(params.threshold[rain]))
    low, high = params.children[sunny, :2]
    false, true = params.children[rain, :2]
    for leaf, cls, n in ((low, 1, 2), (high, 0, 3), (false, 1, 3), (true, 0, 2)):
        assert bool(params.is_leaf[leaf]) and int(jnp.argmax(params.value[leaf])) == cls
        assert float(params.weighted_n_node_samples[leaf]) == n
    np.testing.assert_array_equal(tree.predict(params, X_GOLF), Y_GOLF)


def test_golf_sunny_node_scores_by_hand():
    sunny = X_GOLF[:, 0] == 2
    s = gain_ratio(X_GOLF[sunny], Y_GOLF[sunny], categorical=GOLF_CATEGORICAL)
    base = H(2, 3)
    # MinSplit = clip(0.1 * 5 / 2, 2, 25) = 2: two admissible cuts for temperature and humidity,
    # each charged log2(2) / 5 = 0.2 (C4.5 r8 / J48)
    humidity = base - 0.2                                    # 70,70 | 85,90,95 separates perfectly
    temperature = base - 3 / 5 * H(2, 1) - 0.2               # 69,72,75 | 80,85 (best of two cuts)
    windy = base - 3 / 5 * H(2, 1) - 2 / 5 * H(1, 1)
    np.testing.assert_allclose(np.asarray(s.gain)[1:], [temperature, humidity, windy], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(s.split_info)[1:], [H(3, 2), H(2, 3), H(3, 2)], rtol=1e-12)
    assert not bool(s.valid[0])                               # outlook is constant here
    # average gain (0.771 + 0.220 + 0.020) / 3 = 0.337: only humidity is eligible
    np.testing.assert_array_equal(s.eligible, [False, False, True, False])
    # thresholds: the midpoints 77.5 (75|80) and 77.5 (70|85) become the largest value <= 77.5
    # of the training set: here the 5 sunny rows (75 and 70); in the full fit humidity's is 75
    np.testing.assert_array_equal(np.asarray(s.threshold)[1:3], [75.0, 70.0])


@pytest.mark.full
def test_golf_with_an_unknown_outlook_quinlan_chapter_3():
    # Quinlan 1993 §3.1-3.3: the case (overcast, 72, 90, true, Play) with outlook unknown
    X = X_GOLF.copy()
    X[11, 0] = np.nan
    s = gain_ratio(X, Y_GOLF, categorical=GOLF_CATEGORICAL)
    known_gain = H(8, 5) - (5 * H(2, 3) + 3 * H(3) + 5 * H(3, 2)) / 13
    np.testing.assert_allclose(s.gain[0], 13 / 14 * known_gain, rtol=1e-12)            # book: 0.199
    np.testing.assert_allclose(s.split_info[0], H(5, 3, 5, 1), rtol=1e-12)              # book: 1.809
    np.testing.assert_allclose([s.gain[0], s.split_info[0]], [0.199, 1.809], atol=1e-3)
    params = fit_c45(X, Y_GOLF, categorical=GOLF_CATEGORICAL, prune=False)
    overcast, rain, sunny = (int(c) for c in params.children[0, :3])
    np.testing.assert_allclose(params.branch_fraction[0, :3], [3 / 13, 5 / 13, 5 / 13], rtol=1e-12)
    n = np.asarray(params.weighted_n_node_samples)
    counts = np.asarray(params.value) * n[:, None]
    # the unknown case goes to every branch with weight 3/13, 5/13, 5/13 (book: 3.2, 5.4, 5.4)
    np.testing.assert_allclose(n[[overcast, rain, sunny]], [3 + 3 / 13, 5 + 5 / 13, 5 + 5 / 13], rtol=1e-12)
    low, high = params.children[sunny, :2]
    false, true = params.children[rain, :2]
    # leaves (N/E): humidity <= 75: 2.0; > 75: 3.4/0.4; windy true: 2.4/0.4; false: 3.0
    np.testing.assert_allclose(counts[[low, high, true, false]],
                               [[0, 2], [3, 5 / 13], [2, 5 / 13], [0, 3]], rtol=1e-12, atol=1e-15)
    # classifying (sunny, 75, humidity ?, false): Play 2.4/5.4 = 31/70, Don't Play 3/5.4 (book: 44% / 56%)
    proba = tree.predict_proba(params, [[2, 75, np.nan, 0]])
    np.testing.assert_allclose(proba, [[39 / 70, 31 / 70]], rtol=1e-12)


# --------------------------------------------------------------------------- pruning
def _quinlan_pruning_data():
    # Quinlan 1993 p. 41: a three-way split into (6 of 6), (9 of 9), (1 of 1) with one minority case
    X = np.repeat([0.0, 1.0, 2.0], [6, 9, 1])[:, None]
    y = np.repeat([0, 0, 1], [6, 9, 1])
    return X, y


@pytest.mark.full
def test_pruning_replaces_a_subtree_quinlans_example():
    X, y = _quinlan_pruning_data()
    full = fit_c45(X, y, categorical=True, prune=False)
    assert int(full.n_nodes) == 4                      # grown: 16 cases are >= 2 MINOBJS, gain > 0
    subtree = 6 * beta.ppf(0.75, 1, 6) + 9 * beta.ppf(0.75, 1, 9) + 1 * beta.ppf(0.75, 1, 1)   # 3.273
    leaf = 16 * beta.ppf(0.75, 2, 15)                                                         # 2.554
    assert leaf <= subtree + 0.1
    pruned = fit_c45(X, y, categorical=True)
    assert int(pruned.n_nodes) == 1 and bool(pruned.is_leaf[0])
    np.testing.assert_allclose(pruned.value[0], [15 / 16, 1 / 16])
    for name, a, b in zip(C45Params._fields, pessimistic_prune(full), pruned):
        np.testing.assert_array_equal(a, b, err_msg=name)


def test_pruning_keeps_the_subtree_when_the_bound_says_so():
    X, y = _quinlan_pruning_data()
    full = fit_c45(X, y, categorical=True, prune=False)
    cf = 0.9   # a lenient bound: the subtree's estimate 0.30 < the leaf's 0.53 - 0.1
    subtree = sum(n * beta.ppf(1 - cf, 1, n) for n in (6, 9, 1))
    leaf = 16 * beta.ppf(1 - cf, 2, 15)
    assert leaf > subtree + 0.1
    assert int(pessimistic_prune(full, confidence_factor=cf).n_nodes) == 4


def test_pessimistic_prune_applies_to_id3():
    X, y = _quinlan_pruning_data()
    assert int(pessimistic_prune(fit_id3(X.astype(int), y)).n_nodes) == 1


@pytest.mark.full
def test_collapse_removes_splits_that_do_not_lower_training_errors():
    # both branches keep class 0 as the majority: 2 training errors with or without the split
    X = np.array([[0.0]] * 5 + [[1.0]] * 5)
    y = np.array([0, 0, 0, 0, 1, 0, 0, 0, 1, 1])
    kept = fit_c45(X, y, categorical=True, prune=False, collapse=False)
    assert int(kept.n_nodes) == 3
    assert int(fit_c45(X, y, categorical=True, prune=False).n_nodes) == 1


# --------------------------------------------------------------------------- invariances, jit
def _mixed_data(seed, n=30):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 3, n), rng.normal(size=n).round(2), rng.integers(0, 2, n)]).astype(float)
    y = ((X[:, 1] > 0) ^ (X[:, 0] == 2)).astype(int)
    y[rng.random(n) < 0.15] ^= 1
    X[rng.random((n, 3)) < 0.1] = np.nan
    return X, y


@pytest.mark.full
def test_zero_weight_rows_have_no_influence():
    X, y = _mixed_data(0)
    weight = np.ones(len(y))
    weight[1::5] = 0.0
    X_padded = X.copy()
    X_padded[1] = [7.0, 1e6, 1.0]        # zero-weight rows with an unseen code and an extreme value
    cat = np.array([True, False, True])
    a = fit_c45(X_padded, y, categorical=cat, sample_weight=weight, prune=False)
    b = fit_c45(X[weight > 0], y[weight > 0], categorical=cat, prune=False)
    for name, u, v in zip(C45Params._fields, a, b):
        np.testing.assert_allclose(np.asarray(u, float), np.asarray(v, float), rtol=1e-12, atol=1e-15, err_msg=name)


@pytest.mark.full
def test_jit_equals_eager_and_rows_sum_to_one():
    X, y = _mixed_data(1)
    cat = np.array([True, False, True])
    params = fit_c45(X, y, categorical=cat, prune=False)
    eager = tree.predict_proba(params, X)
    jitted = jax.jit(lambda p, x: tree.predict_proba(p, x))(params, jnp.asarray(X))
    np.testing.assert_allclose(jitted, eager, rtol=1e-12)
    np.testing.assert_allclose(jnp.sum(eager, axis=1), 1.0, rtol=1e-12)
    # a row without missing values lands in one leaf with its class fractions
    full_rows = ~np.isnan(X).any(axis=1)
    leaves = tree.apply(params, X[full_rows])
    np.testing.assert_allclose(eager[full_rows], params.value[leaves], rtol=1e-12)


@pytest.mark.full
def test_unseen_category_is_treated_as_missing_or_rejected():
    params = fit_c45(X_TENNIS, Y_TENNIS, categorical=True)
    unseen = np.array([[9.0, 0, 0, 0]])
    missing = np.array([[np.nan, 0, 0, 0]])
    np.testing.assert_allclose(tree.predict_proba(params, unseen), tree.predict_proba(params, missing))
    with pytest.raises(ValueError, match=r"X\[:, 0\] holds category 9, unseen in training"):
        tree.predict(params, unseen, unseen="error")


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("cf", [0.0, 1.0, 1.5, -0.1])
def test_confidence_factor_outside_0_1_is_an_error(cf):
    with pytest.raises(ValueError, match=f"confidence_factor must be (>|<) "):
        fit_c45(X_TENNIS, Y_TENNIS, categorical=True, confidence_factor=cf)


def test_confidence_factor_type_error():
    with pytest.raises(TypeError, match="confidence_factor must be a real number"):
        upper_error_bound(0, 6, confidence_factor="0.25")


def test_more_than_256_categories_is_an_error():
    with pytest.raises(ValueError, match=r"X\[:, 0\] has more than 256 categories"):
        fit_c45([[0.0], [300.0], [1.0]], [0, 1, 0], categorical=True)


def test_negative_and_non_integer_codes_are_errors():
    with pytest.raises(ValueError, match=r"X\[:, 0\] must hold category codes >= 0, got -1.0"):
        fit_c45([[0.0], [-1.0]], [0, 1], categorical=True)
    with pytest.raises(ValueError, match=r"X\[:, 0\] is categorical and must hold integer codes, got 0.5"):
        fit_c45([[0.0], [0.5]], [0, 1], categorical=True)
    # a continuous column may hold anything finite
    fit_c45([[0.0], [0.5]], [0, 1], categorical=False)


def test_mismatched_lengths_and_masks_are_errors():
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 14 != 12"):
        fit_c45(X_GOLF, Y_GOLF[:12])
    with pytest.raises(ValueError, match=r"categorical must have shape \(4,\), got \(3,\)"):
        fit_c45(X_GOLF, Y_GOLF, categorical=np.array([True, False, True]))
    with pytest.raises(TypeError, match="categorical must be a bool or a bool mask"):
        fit_c45(X_GOLF, Y_GOLF, categorical=[0, 3])
    X = X_GOLF.copy()
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="X contains 1 inf"):
        fit_c45(X, Y_GOLF)
    with pytest.raises(ValueError, match="n_errors must be <= n_samples"):
        upper_error_bound(3, 2)


def test_min_samples_leaf_and_max_depth():
    # 14 cases < 2 * MINOBJS = 16: the root stays a leaf (Quinlan's stopping rule)
    assert int(fit_c45(X_GOLF, Y_GOLF, categorical=GOLF_CATEGORICAL, min_samples_leaf=8).n_nodes) == 1
    stump = fit_c45(X_GOLF, Y_GOLF, categorical=GOLF_CATEGORICAL, max_depth=1, prune=False)
    assert int(stump.n_nodes) == 4 and int(stump.depth.max()) == 1


def test_second_fit_and_predict_with_the_same_shapes_do_not_recompile():
    from jaxclassic.tree.c45 import _node_statistics, _reach_all
    params = fit_c45(X_GOLF, Y_GOLF, categorical=GOLF_CATEGORICAL)
    tree.predict_proba(params, X_GOLF)
    sizes = _node_statistics._cache_size(), _reach_all._cache_size()
    again = fit_c45(X_GOLF[::-1], Y_GOLF[::-1], categorical=GOLF_CATEGORICAL)
    tree.predict_proba(again, X_GOLF[::-1])
    assert (_node_statistics._cache_size(), _reach_all._cache_size()) == sizes


def test_iris_tree_is_j48s():
    # Weka's J48 (C4.5 r8) on iris, as published (Witten & Frank, Data Mining; Weka's manual):
    # 5 leaves, size 9. scikit-learn's iris differs from UCI's in two setosa rows (35, 38),
    # which do not reach any test below the first.
    from jaxclassic.datasets import load_iris
    X, y = load_iris(return_X_y=True)
    params = fit_c45(X, y)
    names = ["sepallength", "sepalwidth", "petallength", "petalwidth"]
    assert tree.export_text(params, names, ["Iris-setosa", "Iris-versicolor", "Iris-virginica"]) == (
        "petalwidth <= 0.6: Iris-setosa (50.0)\n"
        "petalwidth > 0.6\n"
        "|   petalwidth <= 1.7\n"
        "|   |   petallength <= 4.9: Iris-versicolor (48.0/1.0)\n"
        "|   |   petallength > 4.9\n"
        "|   |   |   petalwidth <= 1.5: Iris-virginica (3.0)\n"
        "|   |   |   petalwidth > 1.5: Iris-versicolor (3.0/1.0)\n"
        "|   petalwidth > 1.7: Iris-virginica (46.0/1.0)\n"
    )
    assert int(params.n_nodes) == 9


@pytest.mark.full
def test_vmap_over_rows_equals_the_batch():
    X, y = _mixed_data(2)
    params = fit_c45(X, y, categorical=np.array([True, False, True]), prune=False)
    batch = tree.predict_proba(params, X)
    rows = jax.vmap(lambda x: tree.predict_proba(params, x[None])[0])(jnp.asarray(X))
    np.testing.assert_allclose(rows, batch, rtol=1e-12)


def test_feature_importances_by_hand_on_golf():
    # W_t * gain_t per feature, the gains as the splits were chosen (test_golf_sunny_node_scores_by_hand):
    # outlook at the root (14 rows), humidity <= 75 under sunny (5 rows, gain H(2,3) - log2(2)/5),
    # windy under rain (5 rows, a perfect 3:2 split), temperature never used
    outlook = 14 * (H(9, 5) - 5 / 14 * H(2, 3) - 4 / 14 * H(4, 0) - 5 / 14 * H(3, 2))
    humidity = 5 * (H(2, 3) - 0.2)
    windy = 5 * H(3, 2)
    expect = np.array([outlook, 0.0, humidity, windy]) / (outlook + humidity + windy)
    params = fit_c45(X_GOLF, Y_GOLF, categorical=GOLF_CATEGORICAL)
    np.testing.assert_allclose(np.asarray(tree.feature_importances(params)), expect, rtol=1e-12)


def test_c45_params_report_n_classes():
    # issue 27: n_classes is a property (a Python int from the class axis of value)
    params = fit_c45(np.array([[0.0, 1], [1, 0], [1, 1], [0, 0]]), np.array([0, 1, 2, 1]), categorical=True,
                     min_samples_leaf=1)
    assert params.n_classes == 3 and isinstance(params.n_classes, int)
    assert len(jax.tree.leaves(params)) == len(C45Params._fields)
