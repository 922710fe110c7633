"""ID3 (jaxclassic/tree/id3.py): Mitchell's play-tennis tree and gains, empty branches,
unseen categories, zero-weight invariance, jit, bad input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy

from jaxclassic import tree
from jaxclassic.datasets import load_play_tennis
from jaxclassic.tree.id3 import ID3Params, _apply, fit_id3, information_gain

_TENNIS = load_play_tennis()
X_TENNIS, Y_TENNIS, NAMES = _TENNIS.data, _TENNIS.target, _TENNIS.feature_names
OUTLOOK, TEMPERATURE, HUMIDITY, WIND = range(4)
OVERCAST, RAIN, SUNNY = range(3)          # sorted level codes (datasets.load_play_tennis)


def _reference_gain(x, y, w=None):
    """Textbook gain with scipy's entropy (bits): H(S) - sum_v |S_v|/|S| H(S_v)."""
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    parent = np.bincount(y, w)
    out = scipy_entropy(parent, base=2)
    for v in np.unique(x[w > 0]):
        sel = x == v
        out -= w[sel].sum() / w.sum() * scipy_entropy(np.bincount(y[sel], w[sel], minlength=len(parent)), base=2)
    return out


def test_root_gains_equal_mitchell_and_scipy():
    gains = np.asarray(information_gain(X_TENNIS, Y_TENNIS))
    # Mitchell 1997 §3.4.2: Gain(S, Outlook)=0.246, Humidity=0.151, Wind=0.048, Temperature=0.029
    # (his values are truncated to 3 decimals, so 1e-3)
    np.testing.assert_allclose(gains[[OUTLOOK, HUMIDITY, WIND, TEMPERATURE]], [0.246, 0.151, 0.048, 0.029], atol=1e-3)
    reference = [_reference_gain(X_TENNIS[:, f], Y_TENNIS) for f in range(4)]
    np.testing.assert_allclose(gains, reference, rtol=1e-12)   # same formula, float64 rounding


@pytest.mark.full
def test_play_tennis_tree_is_mitchells():
    params = fit_id3(X_TENNIS, Y_TENNIS)
    assert isinstance(params, ID3Params)
    assert int(params.n_nodes) == 8
    root = 0
    assert int(params.feature[root]) == OUTLOOK
    overcast, rain, sunny = (int(c) for c in params.children[root, :3])
    assert bool(params.is_leaf[overcast]) and params.value[overcast].tolist() == [0.0, 1.0]  # pure yes
    assert float(params.weighted_n_node_samples[overcast]) == 4
    assert int(params.feature[sunny]) == HUMIDITY
    assert int(params.feature[rain]) == WIND
    # leaves under sunny: high -> no (3), normal -> yes (2); under rain: strong -> no (2), weak -> yes (3)
    high, normal = params.children[sunny, :2]
    strong, weak = params.children[rain, :2]
    for leaf, cls, n in ((high, 0, 3), (normal, 1, 2), (strong, 0, 2), (weak, 1, 3)):
        assert bool(params.is_leaf[leaf]) and int(jnp.argmax(params.value[leaf])) == cls
        assert float(params.weighted_n_node_samples[leaf]) == n
    # stored split gains: root 0.2467 (hand: 0.940 - 0.694), sunny and rain H(2/5) = 0.971 (perfect splits)
    np.testing.assert_allclose(np.asarray(params.gain)[[root, sunny, rain]],
                               [_reference_gain(X_TENNIS[:, 0], Y_TENNIS), scipy_entropy([2, 3], base=2),
                                scipy_entropy([2, 3], base=2)], rtol=1e-12)
    np.testing.assert_array_equal(tree.predict(params, X_TENNIS), Y_TENNIS)   # consistent tree


@pytest.mark.full
def test_empty_branch_predicts_parent_distribution():
    # feature 0 declares 3 categories but code 2 never occurs: its branch is an empty leaf
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [1, 1]])
    y = np.array([0, 0, 1, 1, 0])
    params = fit_id3(X, y, n_categories=[3, 2])
    assert int(params.feature[0]) == 0
    empty = int(params.children[0, 2])
    assert bool(params.is_leaf[empty]) and float(params.weighted_n_node_samples[empty]) == 0
    np.testing.assert_allclose(params.value[empty], params.value[0])           # root: 3/5 no, 2/5 yes
    np.testing.assert_allclose(tree.predict_proba(params, [[2, 0]]), [[0.6, 0.4]])
    assert int(tree.predict(params, [[2, 1]])[0]) == 0                         # parent's majority


def test_unseen_category_stops_at_the_node():
    params = fit_id3(X_TENNIS, Y_TENNIS)
    sunny = int(params.children[0, SUNNY])
    row_unseen_root = [[7, 0, 0, 0]]          # outlook code 7 was never seen: stop at the root
    np.testing.assert_allclose(tree.predict_proba(params, row_unseen_root), params.value[0][None])
    assert int(tree.apply(params, row_unseen_root)[0]) == 0
    row_unseen_below = [[SUNNY, 0, 5, 0]]     # humidity code 5 unseen: stop at the sunny node (3 no, 2 yes)
    assert int(tree.apply(params, row_unseen_below)[0]) == sunny
    np.testing.assert_allclose(tree.predict_proba(params, row_unseen_below), [[0.6, 0.4]])
    with pytest.raises(ValueError, match=r"X\[0, 0\] = 7 is a category unseen"):
        tree.predict(params, row_unseen_root, unseen="error")


def _random_codes(seed, n=40):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 3))
    y = (X[:, 0] + (X[:, 1] == 2) + rng.integers(0, 2, n)) % 3
    return X, y


def _assert_same_tree(a, b):
    for name in ("feature", "children", "is_leaf", "depth", "n_nodes", "n_categories"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    for name in ("value", "weighted_n_node_samples", "gain"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, atol=1e-15, err_msg=name)


def test_zero_weight_rows_have_no_influence():
    X, y = _random_codes(0)
    weight = np.ones(len(y))
    weight[::4] = 0.0
    X_padded = X.copy()
    X_padded[0, 1] = 2          # zero-weight rows may even hold codes the others never use
    X_padded[4, 2] = 9
    fitted = fit_id3(X_padded, y, sample_weight=weight, n_classes=3)
    reference = fit_id3(X[weight > 0], y[weight > 0], n_classes=3)
    _assert_same_tree(fitted, reference)
    np.testing.assert_array_equal(fitted.n_node_samples, reference.n_node_samples)


def test_integer_weights_equal_repeated_rows():
    X, y = _random_codes(1, n=20)
    counts = np.arange(20) % 3 + 1
    _assert_same_tree(fit_id3(X, y, sample_weight=counts.astype(float)),
                      fit_id3(np.repeat(X, counts, axis=0), np.repeat(y, counts)))


@pytest.mark.full
def test_xor_needs_a_zero_gain_split():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    y = np.array([0, 1, 1, 0])
    np.testing.assert_allclose(information_gain(X, y), [0.0, 0.0], atol=1e-15)
    params = fit_id3(X, y)
    np.testing.assert_array_equal(tree.predict(params, X), y)


def test_max_depth_and_min_samples_split():
    stump = fit_id3(X_TENNIS, Y_TENNIS, max_depth=1)
    assert int(stump.n_nodes) == 4 and int(stump.depth.max()) == 1
    assert bool(fit_id3(X_TENNIS, Y_TENNIS, max_depth=0).is_leaf[0])
    # min_samples_split=6: the 5-row sunny and rain nodes stay leaves
    assert int(fit_id3(X_TENNIS, Y_TENNIS, min_samples_split=6).n_nodes) == 4


@pytest.mark.full
def test_jit_equals_eager_and_no_retrace():
    params = fit_id3(X_TENNIS, Y_TENNIS)
    codes = jnp.asarray(X_TENNIS, jnp.int32)
    eager = tree.predict_proba(params, X_TENNIS)
    jitted = jax.jit(lambda p, x: tree.predict_proba(p, x))(params, codes)
    np.testing.assert_allclose(jitted, eager)
    rows = jax.vmap(lambda x: _apply(params, x[None])[0])(codes)      # vmap over rows == batch
    np.testing.assert_array_equal(rows, tree.apply(params, X_TENNIS))
    _apply(params, codes)
    size = _apply._cache_size()
    _apply(params, codes + 0)
    assert _apply._cache_size() == size


# --------------------------------------------------------------------------- bad input
def test_more_than_256_categories_is_an_error():
    X = np.array([[0], [256], [3]])
    with pytest.raises(ValueError, match=r"X\[:, 0\] has more than 256 categories"):
        fit_id3(X, [0, 1, 0])
    with pytest.raises(ValueError, match=r"n_categories\[0\] must be in \[1, 256\].*got 300"):
        fit_id3([[0], [1]], [0, 1], n_categories=300)


def test_negative_codes_are_an_error():
    with pytest.raises(ValueError, match=r"X\[:, 1\] must hold category codes >= 0, got -1"):
        fit_id3([[0, 1], [1, -1]], [0, 1])
    params = fit_id3(X_TENNIS, Y_TENNIS)
    with pytest.raises(ValueError, match="X must hold category codes >= 0, got -2"):
        tree.predict(params, [[0, -2, 0, 0]])


def test_non_integer_codes_are_an_error():
    with pytest.raises(ValueError, match="X must hold integer values"):
        fit_id3([[0.0], [1.5]], [0, 1])


def test_mismatched_lengths_are_an_error():
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 14 != 13"):
        fit_id3(X_TENNIS, Y_TENNIS[:-1])
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(14,\)"):
        fit_id3(X_TENNIS, Y_TENNIS, sample_weight=np.ones(3))


def test_code_beyond_declared_n_categories_is_an_error():
    with pytest.raises(ValueError, match=r"X\[:, 0\] holds code 2 but n_categories\[0\]=2"):
        fit_id3([[0], [2]], [0, 1], n_categories=2)


def test_bad_hyperparameters_and_predict_input():
    with pytest.raises(ValueError, match="min_samples_split must be >= 2, got 1"):
        fit_id3(X_TENNIS, Y_TENNIS, min_samples_split=1)
    with pytest.raises(TypeError, match="max_depth must be an int"):
        fit_id3(X_TENNIS, Y_TENNIS, max_depth=1.5)
    params = fit_id3(X_TENNIS, Y_TENNIS)
    with pytest.raises(ValueError, match="X has 3 features, but the tree was fitted with 4"):
        tree.predict(params, X_TENNIS[:, :3])
    with pytest.raises(ValueError, match="unseen must be one of"):
        tree.predict(params, X_TENNIS, unseen="ignore")


def test_feature_importances_by_hand_on_play_tennis():
    # total weighted information gain per feature: outlook at the root (14 rows), humidity under
    # sunny and wind under rain (5 rows each, perfect splits of 2:3), temperature never used
    outlook = 14 * (H(9, 5) - 5 / 14 * H(2, 3) - 4 / 14 * H(4, 0) - 5 / 14 * H(3, 2))
    humidity = wind = 5 * H(2, 3)
    expect = np.array([outlook, 0.0, humidity, wind]) / (outlook + humidity + wind)
    params = fit_id3(X_TENNIS, Y_TENNIS)
    np.testing.assert_allclose(np.asarray(tree.feature_importances(params)), expect, rtol=1e-12)
    # a one-leaf tree has none
    stump = fit_id3(X_TENNIS, Y_TENNIS, max_depth=0)
    np.testing.assert_array_equal(np.asarray(tree.feature_importances(stump)), 0.0)


def H(*counts):
    return scipy_entropy(counts, base=2)


def test_id3_params_report_n_classes():
    # issue 27: n_classes is a property (a Python int from the class axis of value)
    params = fit_id3(np.array([[0, 1], [1, 0], [1, 1], [0, 0]]), np.array([0, 1, 2, 1]))
    assert params.n_classes == 3 and isinstance(params.n_classes, int)
    assert len(jax.tree.leaves(params)) == len(ID3Params._fields)
