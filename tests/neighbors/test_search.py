"""Tests of jaxclassic/neighbors/search.py (kneighbors).

References: scikit-learn's brute-force ``NearestNeighbors`` and scipy's ``cdist`` (direct
differences). Tolerances: float64 distances 1e-12 relative to scipy (the search re-ranks its
candidates with direct differences, so only summation order differs), and to scikit-learn
1e-9 relative (scikit-learn's euclidean is the Gram form, which loses ~1e-16 * |x|^2 absolute
on d^2); float32 distances 1e-5 relative to the float64 distances of the same float32 numbers.
Indices: equal to scikit-learn where the k-th distance is not tied; where it is, the set
returned is checked to be *a* k-nearest set (its own distances are the k smallest).
The tie rule (equal distances in increasing row index, issue 23.2) is checked against
``np.argsort(kind="stable")`` of float64 distances on integer grids and duplicated rows, in
float32 and float64, every metric, k = 1, 3, 10 (scikit-learn's brute force finds the same
distances but does not order ties by index), and the candidate bound behind it pair by pair.
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


@pytest.mark.full
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


@pytest.mark.full
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


@pytest.mark.full
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


# --------------------------------------------------------------------------- ties (issue 23.2)
# The rule: the first k rows of a stable sort of the distances over the whole index. Before
# the fix the euclidean and cosine candidates (2k by a rounded Gram key) cut ties arbitrarily
# once more than 2k rows tied. The data are small integers (queries on the half grid: 2- and
# 4-way equidistant points) and duplicated rows, where float32 and float64 arithmetic is exact
# enough that real ties are ties of the computed distances. One shape for all, so one compile
# per (metric, k, dtype). The same candidate stage also lost true neighbours (not only tie
# order) where float32 rounding of its key exceeded the distances: two float32 cases below.
ALL_METRICS = list(SCIPY)
_rng = np.random.default_rng(23)
GRID = (_rng.integers(0, 3, (200, 2)).astype(np.float64), _rng.integers(-1, 6, (40, 2)) / 2.0)
_base = _rng.normal(size=(20, 2))
DUPLICATES = (_base[_rng.integers(0, 20, 200)], np.r_[_base, _rng.normal(size=(20, 2))])


def _float64_distances(Xtr, Xq, metric):
    """Distances in float64 by scipy; cosine with scikit-learn's convention for zero rows
    (distance 1 to everything; scipy gives NaN)."""
    Xtr, Xq = np.asarray(Xtr, np.float64), np.asarray(Xq, np.float64)
    if metric != "cosine":
        name, kw = SCIPY[metric]
        return cdist(Xq, Xtr, name, **kw)
    nr, nq = np.linalg.norm(Xtr, axis=1), np.linalg.norm(Xq, axis=1)
    unit_q, unit_r = Xq / np.where(nq == 0, 1, nq)[:, None], Xtr / np.where(nr == 0, 1, nr)[:, None]
    full = 1.0 - unit_q @ unit_r.T
    full[nq == 0, :] = 1.0
    full[:, nr == 0] = 1.0
    return full


def _stable_reference(Xtr, Xq, metric, k):
    """``np.argsort(kind="stable")`` of the float64 distances, rounded to 1e-9 first so that
    float64 rounding does not split real ties (distinct distances here differ by > 1e-4)."""
    full = _float64_distances(Xtr, Xq, metric)
    return np.argsort(np.round(full, 9), axis=1, kind="stable")[:, :k], full


@pytest.mark.full
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("metric", ALL_METRICS)
def test_ties_come_in_increasing_index_on_grids_and_duplicated_rows(metric, dtype):
    kw = METRIC_ARGS.get(metric, {})
    rtol = 1e-12 if dtype == np.float64 else 1e-6
    for name, (Xtr, Xq) in (("grid", GRID), ("duplicates", DUPLICATES)):
        Xtr, Xq = Xtr.astype(dtype), Xq.astype(dtype)
        for k in (1, 3, 10):
            dist, idx = kneighbors(Xtr, Xq, k, metric=metric, **kw)
            ref_idx, full = _stable_reference(Xtr, Xq, metric, k)
            np.testing.assert_array_equal(np.asarray(idx), ref_idx, err_msg=f"{name} k={k}")
            np.testing.assert_allclose(np.asarray(dist), np.take_along_axis(full, ref_idx, 1),
                                       rtol=rtol, atol=rtol, err_msg=f"{name} k={k}")
            # scikit-learn (brute) finds the same distances; it does not order ties by index.
            # Its euclidean is the Gram form sqrt(|q|^2 - 2 q.r + |r|^2): a duplicate row's
            # distance is the square root of a few roundings of |x|^2, up to sqrt(8 eps) |x|
            # (2e-8 seen on CI's host, 0 on others), so that comparison gets that absolute slack
            atol = rtol
            if metric == "euclidean":
                atol = max(rtol, np.sqrt(8 * np.finfo(dtype).eps) * np.abs(Xtr).sum(1).max())
            ref = NearestNeighbors(n_neighbors=k, algorithm="brute", metric=metric, **kw).fit(Xtr)
            np.testing.assert_allclose(np.asarray(dist), ref.kneighbors(Xq)[0], rtol=rtol,
                                       atol=atol, err_msg=f"{name} k={k}")


@pytest.mark.full
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_candidate_key_bounds_every_exact_distance(metric, dtype):
    # steps 1-2 of the module docstring's proof, for every (query, row) pair: the distance as
    # computed is at least the bound derived from the row's key (so rows left out of the
    # candidates can be excluded), on data chosen to stress the Gram form's rounding
    rng = np.random.default_rng(7)
    scales = np.logspace(-3, 3, 6)
    cases = {
        "far clusters": (np.r_[rng.normal(size=(200, 6)) * 0.01 + 1000,
                               rng.normal(size=(200, 6)) * 0.01 - 1000],
                         rng.normal(size=(50, 6)) * 0.01 + 1000),
        "mixed scales": (rng.normal(size=(400, 6)) * scales, rng.normal(size=(50, 6)) * scales),
        "near duplicates": (np.repeat(rng.normal(size=(20, 6)), 20, 0)
                            + 1e-6 * rng.normal(size=(400, 6)), rng.normal(size=(50, 6))),
        "grid": (rng.integers(0, 3, (400, 6)).astype(float), rng.integers(0, 5, (50, 6)) / 2.0),
    }

    @jax.jit
    def margin(R, Q):  # min over pairs of (computed distance - bound from the key)
        center = S.positive_mean(R, jnp.ones(R.shape[0], bool))
        R_key, Q_key, q_norm2, rank = S._ranking(R, Q, center, metric, 2.0)
        bound = S._unselected_bound(rank(Q_key, R_key), q_norm2[:, None], metric,
                                    S.rounding_slack(R.dtype, R.shape[1]))
        return jnp.min(S._exact_distances(Q, R[None], metric) - bound)

    for name, (X, Q) in cases.items():
        assert float(margin(X.astype(dtype), Q.astype(dtype))) >= 0, name


@pytest.mark.full
def test_issue_example_more_than_2k_ties():
    X = np.array([[1.0], [-1.0]] * 6 + [[5.0]])
    for k in (1, 3, 5):
        dist, idx = kneighbors(X, np.array([[0.0]]), k)
        np.testing.assert_array_equal(np.asarray(idx), [list(range(k))])
        np.testing.assert_array_equal(np.asarray(dist), np.ones((1, k)))


def _assert_float32_neighbours(X, Q, full, metric):
    """The distances are the k smallest of the float64 ``full`` to float32 accuracy, and the
    rows are the float64 stable sort's wherever float32 can tell them apart (gaps > 1e-5)."""
    ordered = np.sort(full, axis=1)
    for k in (1, 3, 10):
        dist, idx = kneighbors(X, Q, k, metric=metric)
        np.testing.assert_allclose(np.asarray(dist), ordered[:, :k], rtol=1e-5, err_msg=f"k={k}")
        clear = (np.diff(ordered[:, :k + 1], axis=1) > 1e-5 * ordered[:, 1:k + 1]).all(axis=1)
        assert clear.sum() >= 20, clear.sum()  # not vacuous
        ref_idx = np.argsort(full, axis=1, kind="stable")[:, :k]
        np.testing.assert_array_equal(np.asarray(idx)[clear], ref_idx[clear], err_msg=f"k={k}")


def test_float32_far_from_the_mean_finds_the_true_neighbours():
    # Two clusters at +-1000 with spread 0.01: the Gram form's float32 rounding (~1e-1 on the
    # squared distance) exceeds the distances. Before the fix the k-th distances came back up
    # to 6x too large (wrong rows, not just wrong tie order); now the rounding bound sends these
    # queries to the exact pass.
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(size=(100, 2)) * 0.01 + 1000, rng.normal(size=(100, 2)) * 0.01 - 1000]
    Q = np.r_[rng.normal(size=(20, 2)) * 0.01 + 1000, rng.normal(size=(20, 2)) * 0.01 - 1000]
    X, Q = X.astype(np.float32), Q.astype(np.float32)
    full = cdist(Q.astype(np.float64), X.astype(np.float64))
    _assert_float32_neighbours(X, Q, full, "euclidean")


def test_float32_cosine_in_a_narrow_cone_finds_the_true_neighbours():
    # Rows within ~3e-4 rad of one direction (as breast cancer's unscaled columns): cosine
    # distances ~1e-8..1e-6, below the float32 rounding of the matrix-product key. Before the
    # fix the k-th distances came back up to 10x too large (wrong rows); the bound now sends
    # these queries to the exact pass. Reference: float64 distances of the same float32 numbers.
    rng = np.random.default_rng(2)

    def cone(n):
        X = rng.normal(size=(n, 6)) * 3e-4
        X[:, 0] += 1.0
        return (X * rng.uniform(0.5, 2.0, (n, 1))).astype(np.float32)

    X, Q = cone(400), cone(50)
    unit = lambda A: A / np.linalg.norm(A, axis=1, keepdims=True)  # noqa: E731
    full = 0.5 * np.sum((unit(Q.astype(np.float64))[:, None] - unit(X.astype(np.float64))) ** 2, -1)
    _assert_float32_neighbours(X, Q, full, "cosine")


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_ties_with_tiled_queries_references_and_exact_pass(metric, monkeypatch):
    Xtr, Xq = GRID
    Xq = np.r_[Xq, Xq, Xq, Xq]  # 160 queries: three query tiles of 64, the last one padded
    monkeypatch.setattr(_tiling, "MEMORY_BUDGET", 60_000)
    n, d = Xtr.shape
    c = S.n_candidates(3, n, metric)
    qt, rt = S.search_tiles(len(Xq), n, d, c, metric, 8)
    fq, fr = S.fallback_tiles(qt, rt, c, n, d, 3, 8)
    assert qt < len(Xq) and rt < n and fr < n  # queries, references and the exact pass tiled
    dist, idx = kneighbors(Xtr, Xq, 3, metric=metric)
    np.testing.assert_array_equal(np.asarray(idx), _stable_reference(Xtr, Xq, metric, 3)[0])


def test_ties_under_vmap_over_fold_weights_equal_the_search_without_those_rows():
    # the exact pass is a while_loop: under vmap it runs for the folds that need it only
    Xtr, Xq = GRID
    folds = (np.arange(len(Xtr))[None, :] % 4 != np.arange(4)[:, None]).astype(np.float64)
    dist, idx = jax.vmap(lambda w: kneighbors(Xtr, Xq, 3, sample_weight=w))(folds)
    for f, w in enumerate(folds):
        kept = np.flatnonzero(w > 0)
        ref_idx, full = _stable_reference(Xtr[kept], Xq, "euclidean", 3)
        np.testing.assert_array_equal(np.asarray(idx[f]), kept[ref_idx])
        np.testing.assert_allclose(np.asarray(dist[f]), np.take_along_axis(full, ref_idx, 1),
                                   rtol=1e-12)


def test_no_exact_pass_without_ties():
    # standard normal data: every query is settled by its candidates (the check is free)
    rng = np.random.default_rng(0)
    Xtr, Xq = rng.normal(size=(2000, 8)), rng.normal(size=(256, 8))
    for dtype, metric, k in ((np.float32, "euclidean", 1), (np.float32, "cosine", 5),
                             (np.float64, "euclidean", 5)):
        assert S.settled_fraction(Xtr.astype(dtype), Xq.astype(dtype), k, metric=metric) == 1.0


# --------------------------------------------------------------------------- tiling
@pytest.mark.full
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
    jitted = jax.jit(kneighbors, static_argnames=("n_neighbors", "metric", "p"))
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
def test_n_neighbors_larger_than_n_raises_naming_it():
    with pytest.raises(ValueError, match=r"n_neighbors must be <= the number of training rows \(n_samples=3\), got n_neighbors=4"):
        kneighbors(XTR[:3], XQ, 4)


def test_k_larger_than_positive_weight_rows_raises():
    w = np.zeros(len(XTR))
    w[:2] = 1.0
    with pytest.raises(ValueError, match=r"n_neighbors must be <= the number of training rows of positive weight \(2\), got n_neighbors=3"):
        kneighbors(XTR, XQ, 3, sample_weight=w)


def test_k_below_one_raises():
    with pytest.raises(ValueError, match="n_neighbors must be >= 1, got 0"):
        kneighbors(XTR, XQ, 0)


def test_k_not_an_int_raises():
    with pytest.raises(TypeError, match="n_neighbors must be an int, got float 2.0"):
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", ["padded", "negative_zero", "zero_weight_rows", "weights", "fallback"])
def test_fit_center_equals_positive_mean_bit_for_bit(dtype, case):
    """fit_center (issue 25: two device operations where the rows of weight 0 are zero) gives
    positive_mean's centre to the bit, the sign of zero included; other input falls back."""
    rng = np.random.default_rng(3)
    n, d = 512, 7
    X = (rng.normal(size=(n, d)) * 10.0 ** rng.uniform(-3, 3, size=d)).astype(dtype)
    sw = np.ones(n, dtype)
    sw[426:], X[426:] = 0, 0
    if case == "negative_zero":
        X[430:440] = -0.0
        X[:, 2] = -0.0
    elif case == "zero_weight_rows":
        sw[:100], X[:100] = 0, 0
    elif case == "weights":
        sw[:426] = rng.uniform(0.5, 3.0, 426)
    elif case == "fallback":  # a row of weight 0 that is not zero
        sw[5] = 0
    with jax.enable_x64(dtype == np.float64):
        Xj, swj = jnp.asarray(X), jnp.asarray(sw)
        expected = np.asarray(S.positive_mean(Xj, swj > 0))
        got = np.asarray(S.fit_center(Xj, swj))
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), expected.view(f"u{got.itemsize}"))


# --------------------------------------------------------------------------- deprecated spellings
def test_k_is_a_deprecated_spelling_of_n_neighbors():
    with pytest.warns(DeprecationWarning, match="n_neighbors"):
        old = kneighbors(XTR, XQ, k=3)
    chex.assert_trees_all_equal(old, kneighbors(XTR, XQ, n_neighbors=3))
    with pytest.warns(DeprecationWarning, match="n_neighbors"):
        assert S.settled_fraction(XTR, XQ, k=3) == S.settled_fraction(XTR, XQ, n_neighbors=3)
