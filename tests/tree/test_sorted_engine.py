"""The sorted engine (``tree/_sorted.py``) against the histogram engine and numpy.

``grow_sorted`` must grow the histogram engine's tree node for node: the same numbering,
features, threshold bins, statistics, impurities, depths, leaves of the training rows and
split bins. The trees are compared where the sums are exact (one-hot class counts and
integer weights; regression statistics ``[w, w y, w y^2]`` of an integer ``y``), so that
both engines see the same gains bit for bit and settle ties alike; the segmented running
sums are checked against a numpy loop. Each case compiles once per criterion, hyperparameters
traced.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn import datasets

from jaxclassic.tree import _engine as E
from jaxclassic.tree import _sorted as S
from jaxclassic.tree.binning import bin_features


def _tree_equal(a, b):
    for name in a._fields:
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        np.testing.assert_array_equal(x, y, err_msg=name)


def test_segment_cumsum_equals_a_numpy_loop():
    rng = np.random.default_rng(1)
    f = jax.jit(S._segment_cumsum)
    for n in (1, 5, 31, 32, 33, 100, 512):  # within a block, whole blocks, a partial last block
        for _ in range(3):
            seg = np.sort(rng.integers(0, max(1, n // rng.integers(1, 40)), n)).astype(np.int32)
            x = rng.normal(size=(n, 3))
            ref = x.copy()
            for i in range(1, n):
                if seg[i] == seg[i - 1]:
                    ref[i] += ref[i - 1]
            np.testing.assert_allclose(np.asarray(f(jnp.asarray(x), jnp.asarray(seg))), ref, rtol=1e-12, atol=1e-12)


def _data(name, dtype):
    X, y = getattr(datasets, "load_" + name)(return_X_y=True)
    codes, edges = bin_features(X.astype(dtype), n_bins=255)
    return np.asarray(codes), edges.shape[1] + 1, y


@jax.jit
def _stats_classes(y, w):
    return jax.nn.one_hot(y, 3, dtype=w.dtype) * w[:, None]


def _pair(criterion, n_bins, M, W):
    rules = ("max_depth", "min_samples_split", "min_samples_leaf", "min_weight_leaf", "min_impurity_decrease")

    def hist(codes_T, stats, count, *hyper):
        return E.grow(codes_T, stats, count, criterion=E.CRITERIA[criterion], n_bins=n_bins, max_nodes=M,
                      max_width=W, has_missing=False, **dict(zip(rules, hyper)))

    def sort(codes_T, stats, count, order, *hyper):
        return S.grow_sorted(codes_T, stats, count, criterion=E.CRITERIA[criterion], n_bins=n_bins, max_nodes=M,
                             max_width=W, order=order, **dict(zip(rules, hyper)))

    return jax.jit(hist), jax.jit(sort)


# (max_depth, min_samples_split, min_samples_leaf, min_weight_leaf, min_impurity_decrease)
HYPER = [(100, 2, 1, 0.0, 0.0), (3, 2, 1, 0.0, 0.0), (100, 10, 4, 0.0, 0.0), (100, 2, 1, 6.0, 0.0),
         (100, 2, 1, 0.0, 0.01)]


@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification"])
def test_classification_trees_equal_the_histogram_engine(criterion):
    codes, n_bins, y = _data("wine", np.float64)
    n = len(y)
    hist, sort = _pair(criterion, n_bins, 2 * n + 1, 64)
    rng = np.random.default_rng(0)
    order = np.argsort(codes.T, axis=1, kind="stable").astype(np.int32)
    unit = np.ones(n)
    counts = rng.integers(0, 3, n).astype(np.float64)  # bootstrap-like: rows of weight 0 take no part
    for w in (unit, counts):
        stats = _stats_classes(jnp.asarray(y), jnp.asarray(w))
        count = jnp.asarray((w > 0).astype(np.float64))
        for hyper in HYPER:
            a = hist(jnp.asarray(codes.T), stats, count, *hyper)
            b = sort(jnp.asarray(codes.T), stats, count, order, *hyper)
            _tree_equal(a, b)
            assert int(a.n_nodes) > 1


def test_regression_trees_equal_the_histogram_engine():
    # diabetes' target is integer: [w, w y, w y^2] sum exactly in float64 whatever the order
    codes, n_bins, y = _data("diabetes", np.float64)
    n = len(y)
    hist, sort = _pair("squared_error", n_bins, 2 * n + 1, 256)
    order = np.argsort(codes.T, axis=1, kind="stable").astype(np.int32)
    w = np.ones(n)
    stats = jnp.asarray(np.stack([w, w * y, w * y * y], 1))
    for hyper in HYPER[:3]:
        a = hist(jnp.asarray(codes.T), stats, jnp.asarray(w), *hyper)
        b = sort(jnp.asarray(codes.T), stats, jnp.asarray(w), order, *hyper)
        _tree_equal(a, b)
        if hyper == HYPER[0]:
            assert int(b.n_nodes) > 400  # grown until pure: the case the engine is for


def test_truncation_and_order_made_inside_equal_the_histogram_engine():
    codes, n_bins, y = _data("iris", np.float32)
    n = len(y)
    stats = jax.nn.one_hot(jnp.asarray(y), 3, dtype=jnp.float32)
    kw = dict(criterion=E.CRITERIA["gini"], n_bins=n_bins)
    for M, W in ((7, 64), (301, 2)):  # the node budget, then the level width, runs out
        a = E.grow(jnp.asarray(codes.T), stats, jnp.ones(n), max_nodes=M, max_width=W, has_missing=False, **kw)
        b = S.grow_sorted(jnp.asarray(codes.T), stats, jnp.ones(n), max_nodes=M, max_width=W, **kw)  # order=None
        assert bool(a.truncated)
        _tree_equal(a, b)


def test_vmap_over_weights_equals_a_loop():
    codes, n_bins, y = _data("iris", np.float32)
    n = len(y)
    rng = np.random.default_rng(5)
    W = jnp.asarray(rng.integers(0, 3, (3, n)).astype(np.float32))
    order = jnp.asarray(np.argsort(codes.T, axis=1, kind="stable").astype(np.int32))

    def one(w):
        return S.grow_sorted(jnp.asarray(codes.T), jax.nn.one_hot(jnp.asarray(y), 3) * w[:, None], (w > 0) * 1.0,
                             criterion=E.CRITERIA["gini"], n_bins=n_bins, max_nodes=301, max_width=64, order=order)

    batched = jax.jit(jax.vmap(one))(W)
    for i in range(3):
        _tree_equal(jax.tree.map(lambda a: a[i], batched), jax.jit(one)(W[i]))


def test_use_sorted_picks_small_complete_regression_on_a_cpu():
    kw = dict(regression=True, has_missing=False, all_features=True, backend="cpu")
    assert S.use_sorted(512, 255, None, **kw)  # grown until pure
    assert S.use_sorted(512, 255, 3, **kw)  # depth 3: (2^3 - 1) / 3 * 255 = 595 >= 384
    assert not S.use_sorted(512, 64, 3, **kw)  # 149 < 384 (gradient boosting on iris)
    assert not S.use_sorted(1024, 255, 3, **kw)  # 595 < 768
    assert not S.use_sorted(2048, 255, None, **kw)  # too many rows
    for change in (dict(regression=False), dict(has_missing=True), dict(all_features=False), dict(backend="gpu")):
        assert not S.use_sorted(512, 255, None, **{**kw, **change})


@pytest.mark.parametrize("name", ["DecisionTreeRegressor", "RandomForestRegressor", "BaggingRegressor",
                                  "GradientBoostingRegressor"])
def test_estimators_predict_new_rows_as_with_the_histogram_engine(name, monkeypatch):
    """Each estimator that picks the sorted engine, refitted with the histogram engine forced:
    the same predictions on new rows. Continuous features (exact binning), an integer target
    on 256 rows and bootstraps of 256 draws: every mean and sum of the trees is a dyadic
    rational, exact in float64, so both engines see the same gains and settle the ties of a
    node's features (every split of a two-row node) alike. (With inexact sums each engine
    settles them by its own rounding: equally valid trees, other predictions between the
    two rows.)"""
    import jaxclassic.estimators as est

    rng = np.random.default_rng(7)
    X = rng.normal(size=(320, 4))
    y = np.round(3 * X[:, 0] + 2 * np.sin(3 * X[:, 1]) + rng.normal(size=320))
    kw = {} if name == "DecisionTreeRegressor" else dict(n_estimators=12, random_state=0)
    picked = []
    real = S.use_sorted
    monkeypatch.setattr(S, "use_sorted", lambda *a, **k: picked.append(real(*a, **k)) or picked[-1])
    by_sorting = getattr(est, name)(**kw).fit(X[:256], y[:256]).predict(X[256:])
    assert picked and all(picked)
    monkeypatch.setattr(S, "use_sorted", lambda *a, **k: False)
    by_histograms = getattr(est, name)(**kw).fit(X[:256], y[:256]).predict(X[256:])
    np.testing.assert_allclose(by_sorting, by_histograms, rtol=1e-12, atol=1e-12)


def test_traced_codes_promised_complete_sort_inside_the_program(monkeypatch):
    """``fit_cart_binned`` under ``jit`` with ``has_missing=False``: the sorted engine sorts
    each feature's rows inside the program (``host_order`` gives None for traced codes), the
    tree of the eager fit. Without the promise traced codes keep the histogram engine."""
    from jaxclassic.tree import fit_cart_binned, predict

    rng = np.random.default_rng(2)
    X = rng.normal(size=(256, 3))
    y = np.round(4 * X[:, 0] + rng.normal(size=256))  # integer target, 256 rows: exact sums
    codes, edges = bin_features(X, n_bins=255)
    picked = []
    real = S.use_sorted
    monkeypatch.setattr(S, "use_sorted", lambda *a, **k: picked.append(real(*a, **k)) or picked[-1])
    eager = fit_cart_binned(codes, edges, y, task="regression")
    jitted = jax.jit(lambda c: fit_cart_binned(c, edges, y, task="regression", has_missing=False))(codes)
    jax.jit(lambda c: fit_cart_binned(c, edges, y, task="regression"))(codes)
    assert picked == [True, True, False]
    np.testing.assert_array_equal(np.asarray(jitted.feature), np.asarray(eager.feature))
    np.testing.assert_allclose(np.asarray(predict(jitted, X)), np.asarray(predict(eager, X)), rtol=0, atol=1e-12)
