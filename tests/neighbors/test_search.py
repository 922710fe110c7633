"""Tests of jaxclassic/neighbors/search.py (kneighbors).

References: scikit-learn's brute-force ``NearestNeighbors`` and scipy's ``cdist`` (direct
differences). Tolerances: float64 distances 1e-12 relative to scipy (the search re-ranks its
candidates with direct differences, so only summation order differs), and to scikit-learn
1e-9 relative (scikit-learn's euclidean is the Gram form, which loses ~1e-16 * |x|^2 absolute
on d^2); float32 distances 1e-5 relative to the float64 distances of the same float32 numbers.
Indices: equal to scikit-learn where the k-th distance is not tied; where it is, the set
returned is checked to be *a* k-nearest set (its own distances are the k smallest).
"""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn import datasets
from sklearn.neighbors import NearestNeighbors

from jaxclassic import _tiling
from jaxclassic.neighbors import kneighbors
from jaxclassic.neighbors import search as S

K = 5


def _split(X):
    return X[::2], X[1::2]


DATA = {
    "iris": _split(datasets.load_iris().data),
    "breast_cancer": _split(datasets.load_breast_cancer().data),
    "diabetes": _split(datasets.load_diabetes().data),
}
SCIPY = {"euclidean": ("euclidean", {}), "manhattan": ("cityblock", {}), "cosine": ("cosine", {}),
         "chebyshev": ("chebyshev", {}), "minkowski": ("minkowski", {"p": 3.0})}
METRIC_ARGS = {"minkowski": {"p": 3.0}}


def _reference(Xtr, Xq, metric):
    name, kw = SCIPY[metric]
    full = cdist(Xq, Xtr, name, **kw)
    order = np.argsort(full, axis=1, kind="stable")[:, :K]
    return full, np.take_along_axis(full, order, 1)


def _assert_valid_neighbour_set(full, dist, idx, rtol):
    """The returned rows are at the returned distances, and those are the k smallest."""
    np.testing.assert_allclose(np.take_along_axis(full, np.asarray(idx), 1), np.asarray(dist),
                               rtol=rtol, atol=rtol * 1e-3)
    np.testing.assert_allclose(np.asarray(dist), np.sort(full, axis=1)[:, :K], rtol=rtol,
                               atol=rtol * 1e-3)


def _untied(dist_sorted_full):
    """Positions ``(query, j < k)`` whose distance differs from its neighbours' in the sorted
    row: there the j-th nearest row is unique (elsewhere any order of the tie is right)."""
    d = dist_sorted_full[:, :K + 1]
    same = np.isclose(d[:, 1:], d[:, :-1], rtol=1e-9, atol=0)  # (n, K): j+1 ties j
    tied_next = same[:, :K]
    tied_prev = np.c_[np.zeros((len(d), 1), bool), same[:, :K - 1]]
    return ~(tied_next | tied_prev)


@pytest.mark.parametrize("dataset", list(DATA))
@pytest.mark.parametrize("metric", list(SCIPY))
def test_equals_sklearn_brute_force_float64(dataset, metric):
    Xtr, Xq = DATA[dataset]
    kw = METRIC_ARGS.get(metric, {})
    dist, idx = kneighbors(Xtr, Xq, K, metric=metric, **kw)
    ref = NearestNeighbors(n_neighbors=K, algorithm="brute", metric=metric, **kw).fit(Xtr)
    ref_dist, ref_idx = ref.kneighbors(Xq)
    full, _ = _reference(Xtr, Xq, metric)
    _assert_valid_neighbour_set(full, dist, idx, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(dist), ref_dist, rtol=1e-9, atol=1e-12)
    untied = _untied(np.sort(full, axis=1))
    assert untied.sum() >= 50  # not vacuous (iris, 1-decimal data, is mostly ties in L1 and Linf)
    np.testing.assert_array_equal(np.asarray(idx)[untied], ref_idx[untied])
    # tied positions: the same rows, in some order, at the same distances (checked above)


@pytest.mark.parametrize("dataset", list(DATA))
@pytest.mark.parametrize("metric", list(SCIPY))
def test_float32_distances_within_1e5(dataset, metric):
    Xtr, Xq = (a.astype(np.float32) for a in DATA[dataset])
    kw = METRIC_ARGS.get(metric, {})
    dist, idx = kneighbors(Xtr, Xq, K, metric=metric, **kw)
    assert dist.dtype == jnp.float32
    full, _ = _reference(Xtr.astype(np.float64), Xq.astype(np.float64), metric)
    # the rows found are a k-nearest set of the same float32 numbers, to float32 rounding
    _assert_valid_neighbour_set(full, dist, idx, rtol=1e-5)


def test_euclidean_duplicates_have_distance_exactly_zero_in_float32():
    # iris has duplicated rows; the Gram form alone would give sqrt(rounding) ~ 1e-3 for them
    X = DATA["iris"][0].astype(np.float32) + 1000.0  # far from the origin: centring matters too
    dist, idx = kneighbors(X, X, 1)
    assert np.all(np.asarray(dist)[:, 0] == 0.0)


def test_minkowski_p_1_2_inf_are_manhattan_euclidean_chebyshev():
    Xtr, Xq = DATA["diabetes"]
    for p, metric in ((1, "manhattan"), (2, "euclidean"), (np.inf, "chebyshev")):
        chex.assert_trees_all_close(kneighbors(Xtr, Xq, K, metric="minkowski", p=p),
                                    kneighbors(Xtr, Xq, K, metric=metric), rtol=1e-12)


def test_cosine_zero_row_is_at_distance_one():
    Xtr = np.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    dist, idx = kneighbors(Xtr, np.array([[0.0, 0.0], [3.0, 0.0]]), 3, metric="cosine")
    np.testing.assert_allclose(np.asarray(dist), [[1.0, 1.0, 1.0], [0.0, 1.0, 1.0]], atol=1e-15)
    np.testing.assert_array_equal(np.asarray(idx), [[0, 1, 2], [0, 1, 2]])


def test_ties_come_in_increasing_index():
    Xtr = np.array([[1.0], [-1.0], [1.0], [-1.0], [5.0]])
    dist, idx = kneighbors(Xtr, np.array([[0.0]]), 4)
    np.testing.assert_array_equal(np.asarray(idx), [[0, 1, 2, 3]])
    np.testing.assert_array_equal(np.asarray(dist), [[1.0, 1.0, 1.0, 1.0]])


# --------------------------------------------------------------------------- tiling
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "cosine"])
def test_tiled_equals_one_block(metric, monkeypatch):
    Xtr, Xq = DATA["breast_cancer"]
    whole = kneighbors(Xtr, Xq, K, metric=metric)
    monkeypatch.setattr(_tiling, "MEMORY_BUDGET", 60_000)
    n, d = Xtr.shape
    path = S.distance_path(metric, 2.0)
    qt, rt = S.search_tiles(len(Xq), n, d, S.n_candidates(K, n, path), path, 8)
    assert qt < len(Xq) and rt < n  # queries and references both tiled
    tiled = kneighbors(Xtr, Xq, K, metric=metric)
    np.testing.assert_array_equal(np.asarray(tiled[1]), np.asarray(whole[1]))
    np.testing.assert_allclose(np.asarray(tiled[0]), np.asarray(whole[0]), rtol=1e-12)


def test_search_tiles_respect_the_budget():
    qt, rt = S.search_tiles(10_000, 50_000, 32, 10, "euclidean", 4, budget=2**28)
    assert rt == 50_000 and qt * 4 * 4 * (50_000 + 10) <= 2**28
    qt, rt = S.search_tiles(10_000, 10**8, 32, 10, "euclidean", 4, budget=2**28)
    assert rt < 10**8 and qt * 16 * (rt + 10) <= 2**28
    qt, rt = S.search_tiles(1000, 5000, 30, 5, "manhattan", 8, budget=2**24)
    assert qt * rt * 8 * 33 <= 2**24


# --------------------------------------------------------------------------- transformations
XTR, XQ = DATA["diabetes"]
FOLDS = (np.arange(len(XTR))[None, :] % 4 != np.arange(4)[:, None]).astype(np.float64)


def test_jit_equals_eager():
    jitted = jax.jit(kneighbors, static_argnames=("k", "metric", "p"))
    for metric in ("euclidean", "manhattan"):
        eager = kneighbors(XTR, XQ, K, metric=metric)
        chex.assert_trees_all_close(jitted(XTR, XQ, K, metric=metric), eager, rtol=1e-12)


def test_vmap_over_sample_weight_equals_loop():
    batched = jax.vmap(lambda w: kneighbors(XTR, XQ, K, sample_weight=w))(FOLDS)
    for f, w in enumerate(FOLDS):
        dist, idx = kneighbors(XTR, XQ, K, sample_weight=w)
        np.testing.assert_array_equal(np.asarray(batched[1][f]), np.asarray(idx))
        np.testing.assert_allclose(np.asarray(batched[0][f]), np.asarray(dist), rtol=1e-12)


def test_second_call_does_not_retrace():
    kneighbors(XTR, XQ, 3)
    size = S._kneighbors._cache_size()
    kneighbors(XTR + 1.0, XQ * 2.0, 3, sample_weight=np.ones(len(XTR)))
    assert S._kneighbors._cache_size() == size


def test_zero_weight_rows_equal_removal():
    rng = np.random.default_rng(0)
    garbage = rng.normal(0.0, 0.01, size=(30, XTR.shape[1]))  # right among the data
    X = np.vstack([XTR, garbage])
    perm = rng.permutation(len(X))
    X = X[perm]
    w = np.r_[np.ones(len(XTR)), np.zeros(30)][perm]
    dist, idx = kneighbors(X, XQ, K, sample_weight=w)
    kept = np.flatnonzero(w > 0)
    ref_dist, ref_idx = kneighbors(X[kept], XQ, K)
    np.testing.assert_array_equal(np.asarray(idx), kept[np.asarray(ref_idx)])
    np.testing.assert_allclose(np.asarray(dist), np.asarray(ref_dist), rtol=1e-12)


def test_traced_weights_with_fewer_positive_rows_than_k_give_inf():
    w = np.zeros(len(XTR))
    w[:2] = 1.0
    dist, idx = jax.jit(lambda w: kneighbors(XTR, XQ[:3], 4, sample_weight=w))(w)
    assert np.all(np.isfinite(np.asarray(dist)[:, :2])) and np.all(np.isinf(np.asarray(dist)[:, 2:]))
    assert set(np.asarray(idx)[:, :2].ravel()) <= {0, 1}


# --------------------------------------------------------------------------- bad input
def test_k_larger_than_n_raises_naming_k():
    with pytest.raises(ValueError, match=r"k must be <= the number of training rows \(n_samples=3\), got k=4"):
        kneighbors(XTR[:3], XQ, 4)


def test_k_larger_than_positive_weight_rows_raises():
    w = np.zeros(len(XTR))
    w[:2] = 1.0
    with pytest.raises(ValueError, match=r"k must be <= the number of training rows of positive weight \(2\), got k=3"):
        kneighbors(XTR, XQ, 3, sample_weight=w)


def test_k_below_one_raises():
    with pytest.raises(ValueError, match="k must be >= 1, got 0"):
        kneighbors(XTR, XQ, 0)


def test_k_not_an_int_raises():
    with pytest.raises(TypeError, match="k must be an int, got float 2.0"):
        kneighbors(XTR, XQ, 2.0)


def test_nan_in_training_rows_raises():
    X = XTR.copy()
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match="X_train contains 1 NaN"):
        kneighbors(X, XQ, K)


def test_nan_in_queries_raises():
    Q = XQ.copy()
    Q[0, 0] = np.nan
    with pytest.raises(ValueError, match="X_query contains 1 NaN"):
        kneighbors(XTR, Q, K)


def test_unknown_metric_raises():
    with pytest.raises(ValueError, match=r"metric must be one of \['euclidean', 'manhattan', 'cosine', 'minkowski', 'chebyshev'\], got 'hamming'"):
        kneighbors(XTR, XQ, K, metric="hamming")


def test_p_below_one_raises():
    with pytest.raises(ValueError, match=r"p must be >= 1 \(the Minkowski order\), got 0.5"):
        kneighbors(XTR, XQ, K, metric="minkowski", p=0.5)


def test_p_not_a_number_raises():
    with pytest.raises(TypeError, match="p must be a real number >= 1"):
        kneighbors(XTR, XQ, K, metric="minkowski", p="2")


def test_feature_mismatch_raises():
    with pytest.raises(ValueError, match="X_query has 3 features, but the model was fitted with 10 features"):
        kneighbors(XTR, XQ[:, :3], K)
