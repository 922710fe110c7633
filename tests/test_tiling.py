"""The tiled pairwise helpers: distances against scipy (float64, 1e-10 relative: the Gram form
of euclidean distance loses digits only for near-duplicate points), tiles equal one block, and
the running top-k equals a full sort (ties in increasing index)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.spatial.distance import cdist

from jaxclassic import _tiling

RNG = np.random.default_rng(1)
Q = RNG.normal(size=(29, 5))
R = RNG.normal(size=(41, 5))


@pytest.mark.parametrize("metric,scipy_metric,kw", [
    ("euclidean", "euclidean", {}), ("sqeuclidean", "sqeuclidean", {}), ("manhattan", "cityblock", {}),
    ("cosine", "cosine", {}), ("chebyshev", "chebyshev", {}), ("minkowski", "minkowski", {"p": 3.0}),
])
@pytest.mark.full
def test_pairwise_distances_equal_scipy(metric, scipy_metric, kw):
    D = _tiling.pairwise_distances(jnp.asarray(Q), jnp.asarray(R), metric, **kw)
    np.testing.assert_allclose(np.asarray(D), cdist(Q, R, scipy_metric, **kw), rtol=1e-10, atol=1e-10)


def test_unknown_metric():
    with pytest.raises(ValueError, match="metric must be one of"):
        _tiling.pairwise_distances(jnp.asarray(Q), jnp.asarray(R), "hamming")


def test_tile_size_respects_budget():
    assert _tiling.tile_size(1000, 100, budget=10_000) == 96  # 100 rows, rounded down to 8s
    assert _tiling.tile_size(50, 100, budget=10**9) == 50
    assert _tiling.tile_size(1000, 10**9, budget=10) == 1


@pytest.mark.full
def test_map_row_tiles_equals_one_call():
    fn = lambda q: (jnp.sum(q, axis=1), q * 2)  # noqa: E731
    whole = fn(jnp.asarray(Q))
    for tile in (1, 4, 7, 29, 64):
        got = _tiling.map_row_tiles(fn, jnp.asarray(Q), tile=tile)
        np.testing.assert_allclose(np.asarray(got[0]), np.asarray(whole[0]), rtol=1e-12)
        np.testing.assert_allclose(np.asarray(got[1]), np.asarray(whole[1]), rtol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("query_tile,reference_tile", [(29, 41), (8, 10), (5, 7), (3, 41)])
def test_running_top_k_equals_full_sort(query_tile, reference_tile):
    k = 6
    d, i = _tiling.running_top_k(_tiling.squared_euclidean, jnp.asarray(Q), jnp.asarray(R), k,
                                 query_tile=query_tile, reference_tile=reference_tile)
    full = cdist(Q, R, "sqeuclidean")
    order = np.argsort(full, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(np.asarray(i), order)
    np.testing.assert_allclose(np.asarray(d), np.take_along_axis(full, order, 1), rtol=1e-10, atol=1e-12)


@pytest.mark.full
def test_running_top_k_ties_in_index_order_and_mask():
    # every reference at the same distance: the k lowest allowed indices come back, in order
    Rt = np.zeros((12, 2))
    mask = np.ones(12, bool)
    mask[[0, 3]] = False
    d, i = _tiling.running_top_k(_tiling.squared_euclidean, jnp.ones((2, 2)), jnp.asarray(Rt), 4,
                                 query_tile=2, reference_tile=5, reference_mask=jnp.asarray(mask))
    np.testing.assert_array_equal(np.asarray(i), [[1, 2, 4, 5]] * 2)
    np.testing.assert_allclose(np.asarray(d), 2.0)


@pytest.mark.full
@pytest.mark.parametrize("k", [1, 3])
def test_running_top_k_two_stage_selection_on_long_rows_equals_full_sort(k):
    # rows long enough for the chunked selection (m >= 8 k chunks of 32, padded to whole
    # chunks); small integer coordinates, so distances are exact and many are equal: ties must
    # still come in index order
    rng = np.random.default_rng(5)
    m = 8 * k * _tiling._CHUNK + 5
    Rl = rng.integers(-6, 7, size=(m, 2)).astype(float)
    Ql = rng.integers(-6, 7, size=(7, 2)).astype(float)
    mask = rng.uniform(size=m) > 0.3
    assert _tiling._long_row(m, k)
    d, i = _tiling.running_top_k(_tiling.squared_euclidean, jnp.asarray(Ql), jnp.asarray(Rl), k,
                                 query_tile=4, reference_tile=m, reference_mask=jnp.asarray(mask))
    full = np.where(mask[None, :], cdist(Ql, Rl, "sqeuclidean"), np.inf)
    order = np.argsort(full, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(np.asarray(i), order)
    np.testing.assert_allclose(np.asarray(d), np.take_along_axis(full, order, 1), rtol=1e-10, atol=1e-12)


@pytest.mark.full
def test_smallest_k_equals_lax_top_k_with_ties():
    dist = jnp.asarray(np.random.default_rng(6).integers(0, 20, size=(9, 64 * _tiling._CHUNK)).astype(float))
    neg, pos = jax.lax.top_k(-dist, 4)
    d, i = _tiling._smallest_k(dist, 4)
    np.testing.assert_array_equal(np.asarray(i), np.asarray(pos))
    np.testing.assert_array_equal(np.asarray(d), -np.asarray(neg))


def test_running_top_k_jits_and_rejects_bad_k():
    f = jax.jit(lambda q, r: _tiling.running_top_k(_tiling.squared_euclidean, q, r, 3, query_tile=8,
                                                   reference_tile=16))
    d, _ = f(jnp.asarray(Q), jnp.asarray(R))
    assert d.shape == (29, 3)
    with pytest.raises(ValueError, match=r"k must be in \[1, 41\]"):
        _tiling.running_top_k(_tiling.squared_euclidean, jnp.asarray(Q), jnp.asarray(R), 42,
                              query_tile=8, reference_tile=8)


@pytest.mark.full
def test_squared_euclidean_keeps_float32_digits_far_from_the_origin():
    # columns around 1e3 in float32: ||x||^2 ~ 4e6 rounds at ~0.25, the spread is ~1;
    # distances are measured from the reference's first row (an exact shift)
    X = RNG.normal(size=(30, 4))
    D64 = cdist(X, X[:20], "sqeuclidean")
    Xf = (X + 1e3).astype(np.float32)
    D32 = np.asarray(_tiling.squared_euclidean(jnp.asarray(Xf), jnp.asarray(Xf[:20])))
    np.testing.assert_allclose(D32, D64, atol=2e-3)
