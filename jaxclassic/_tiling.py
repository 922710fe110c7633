r"""Tiled pairwise computations under a memory budget: distances, kernel blocks, running top-k.

Anything N×M (kernel matrices, distance matrices for nearest neighbours, k-means, kernel density
estimation, hierarchical clustering) goes through this one module, so no family holds a hidden
O(N·M) array: queries are cut into row tiles, each tile's block against the reference rows is
computed, reduced (a sum, a log-sum-exp, a top-k, a matrix-vector product) and dropped before the
next tile. The tiles run one after another in a ``lax.map`` inside the caller's compiled program.

Distances use matrix products (Gram trick): :math:`\|x - z\|^2 = \|x\|^2 + \|z\|^2 - 2 x\cdot z`,
clamped at 0 because rounding can make it slightly negative for near-duplicate points. In
float32 the absolute error of this form is about :math:`\epsilon (\|x\|^2 + \|z\|^2)`, so
:func:`squared_euclidean` first shifts both blocks by the reference block's first row (an exact
identity for distances) and data far from the origin keeps its digits.

The memory budget (:data:`MEMORY_BUDGET`, bytes) bounds the largest intermediate block a tile
creates; set it before tracing a fit (``jaxclassic._tiling.MEMORY_BUDGET = 2**30``).

References
----------
Johnson, Douze, Jégou, "Billion-scale similarity search with GPUs", IEEE Trans. Big Data 2019
(tiled distance products with a running k-selection).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp

from jaxclassic import _precision

__all__ = [
    "MEMORY_BUDGET",
    "METRICS",
    "squared_euclidean",
    "pairwise_distances",
    "tile_size",
    "map_row_tiles",
    "running_top_k",
]

#: bytes the largest intermediate block of one tile may take (256 MiB)
MEMORY_BUDGET = 256 * 2**20

#: distance metrics of :func:`pairwise_distances`
METRICS = ("euclidean", "sqeuclidean", "manhattan", "cosine", "minkowski", "chebyshev")

#: entries per chunk of the two-stage selection of :func:`running_top_k` on long rows
_CHUNK = 32


def squared_euclidean(X: jax.Array, Z: jax.Array) -> jax.Array:
    r"""Squared euclidean distances by one matrix product, clamped at 0.

    :math:`D_{ij} = \|x_i\|^2 + \|z_j\|^2 - 2\,x_i\cdot z_j`, then :math:`\max(D_{ij}, 0)`.

    Parameters
    ----------
    X : (n, d) array
    Z : (m, d) array

    Returns
    -------
    (n, m) array of the dtype of ``X``.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> squared_euclidean(jnp.array([[0.0, 0.0]]), jnp.array([[3.0, 4.0]])).tolist()
    [[25.0]]
    """
    if Z.shape[0]:
        # distances do not change under a shift: measure from Z's first row, so that data far
        # from the origin (float32 columns around 1e3 have norms^2 ~1e6, whose rounding is of
        # order 1) keeps the digits of its spread. The first row, not the mean: estimators pad
        # with zero-weight zero rows at the end, which would pull a mean back to the origin.
        X = X - Z[:1]
        Z = Z - Z[:1]
    xx = jnp.sum(X * X, axis=1)
    zz = jnp.sum(Z * Z, axis=1)
    return jnp.maximum(xx[:, None] + zz[None, :] - 2.0 * _precision.matmul(X, Z.T), 0.0)


def pairwise_distances(X: jax.Array, Z: jax.Array, metric: str = "euclidean", *,
                       p: float = 2.0) -> jax.Array:
    r"""Distances between the rows of ``X`` and ``Z`` (one block; tile with :func:`map_row_tiles`).

    - ``euclidean``: :math:`\sqrt{\max(\|x\|^2 + \|z\|^2 - 2x\cdot z, 0)}` (matrix product);
    - ``sqeuclidean``: the same without the root;
    - ``manhattan``: :math:`\sum_k |x_k - z_k|`;
    - ``chebyshev``: :math:`\max_k |x_k - z_k|`;
    - ``minkowski``: :math:`(\sum_k |x_k - z_k|^p)^{1/p}` (``p = 2`` uses the matrix product);
    - ``cosine``: :math:`1 - x\cdot z / (\|x\|\|z\|)` (a zero row has distance 1 to everything,
      as in scikit-learn).

    The non-euclidean metrics build an ``(n, m, d)`` block: keep ``n`` small through
    :func:`map_row_tiles` (whose tile size accounts for ``d``).

    Parameters
    ----------
    X : (n, d) array
    Z : (m, d) array
    metric : str
        One of :data:`METRICS`.
    p : float
        Minkowski order, ``p >= 1``.

    Returns
    -------
    (n, m) array
    """
    if metric == "sqeuclidean":
        return squared_euclidean(X, Z)
    if metric == "euclidean" or (metric == "minkowski" and isinstance(p, (int, float)) and p == 2):
        return jnp.sqrt(squared_euclidean(X, Z))
    if metric == "cosine":
        xn = jnp.sqrt(jnp.sum(X * X, axis=1))
        zn = jnp.sqrt(jnp.sum(Z * Z, axis=1))
        xn = jnp.where(xn == 0, 1.0, xn)
        zn = jnp.where(zn == 0, 1.0, zn)
        sim = _precision.matmul(X / xn[:, None], (Z / zn[:, None]).T)
        return jnp.clip(1.0 - sim, 0.0, 2.0)
    diff = jnp.abs(X[:, None, :] - Z[None, :, :])
    if metric == "manhattan":
        return jnp.sum(diff, axis=-1)
    if metric == "chebyshev":
        return jnp.max(diff, axis=-1)
    if metric == "minkowski":
        return jnp.sum(diff**p, axis=-1) ** (1.0 / p)
    raise ValueError(f"metric must be one of {list(METRICS)}, got {metric!r}")


def tile_size(n_rows: int, bytes_per_row: int, *, budget: int | None = None,
              multiple: int = 8) -> int:
    """Rows per tile so that one tile's block of ``bytes_per_row`` a row fits the budget.

    Parameters
    ----------
    n_rows : int
        Rows to cover (the tile is never larger than ``n_rows``).
    bytes_per_row : int
        Bytes of the intermediate block one row creates (e.g. ``m * itemsize`` for a distance
        row against ``m`` references, ``m * d * itemsize`` for a manhattan row).
    budget : int, optional
        Bytes; :data:`MEMORY_BUDGET` by default.
    multiple : int
        Round the tile down to a multiple of this (vector-friendly shapes), at least 1 row.

    Returns
    -------
    int, in ``[1, n_rows]``.
    """
    budget = MEMORY_BUDGET if budget is None else int(budget)
    rows = max(1, budget // max(1, int(bytes_per_row)))
    if rows >= n_rows:
        return max(1, int(n_rows))
    return max(1, (rows // multiple) * multiple if rows >= multiple else rows)


def map_row_tiles(fn: Callable[[jax.Array], object], Q: jax.Array, *, tile: int) -> object:
    """Apply ``fn`` to row tiles of ``Q`` one after another and join the per-row outputs.

    ``fn`` maps a ``(tile, d)`` block to a pytree of arrays whose leading axis is the tile's
    rows. ``Q`` is padded with copies of its first row up to a multiple of ``tile`` (so ``fn``
    never sees rows it could divide by zero on) and the padding is cut from the output.
    With ``tile >= n`` this is one call of ``fn`` (no loop).

    Parameters
    ----------
    fn : callable
        ``(tile, d) array -> pytree of (tile, ...) arrays``.
    Q : (n, d) array
        Query rows.
    tile : int
        Rows per tile (see :func:`tile_size`); static.

    Returns
    -------
    The pytree of ``fn``'s outputs with leading axis ``n``.
    """
    n = Q.shape[0]
    if tile >= n:
        return fn(Q)
    n_tiles = -(-n // tile)
    pad = n_tiles * tile - n
    if pad:
        Q = jnp.concatenate([Q, jnp.broadcast_to(Q[:1], (pad,) + Q.shape[1:])], axis=0)
    out = jax.lax.map(fn, Q.reshape((n_tiles, tile) + Q.shape[1:]))
    return jax.tree_util.tree_map(lambda a: a.reshape((n_tiles * tile,) + a.shape[2:])[:n], out)


def _long_row(m: int, k: int) -> bool:
    """Whether a row of ``m`` candidates is long enough for the two-stage selection."""
    return m >= 8 * k * _CHUNK


def _smallest_k(dist: jax.Array, k: int) -> tuple[jax.Array, jax.Array]:
    """The ``k`` smallest entries of each row of ``dist (t, m)`` and their positions: exactly
    ``lax.top_k(-dist, k)`` (ascending, equal values in increasing position) for finite entries.

    Long rows (``m`` a multiple of :data:`_CHUNK` and :func:`_long_row`) go in two stages: the
    ``k`` chunks of :data:`_CHUNK` consecutive entries with the smallest minima hold the ``k``
    smallest entries (were a chunk holding one of them not among those ``k``, the ``k`` chunks of
    smaller minimum would hold ``k`` entries smaller than it, ``k + 1`` in all), so a selection
    over the ``m / _CHUNK`` minima and one over the ``k * _CHUNK`` entries of the chosen chunks,
    taken in increasing position (which keeps ties in position order), replace a selection over
    the whole row (about half the time of ``lax.top_k`` on XLA's CPU backend at m = 50,000).
    Positions returned for ``inf`` entries (fewer than ``k`` finite) may differ between the two.
    """
    t, m = dist.shape
    if m % _CHUNK or not _long_row(m, k):
        neg, pos = jax.lax.top_k(-dist, k)
        return -neg, pos
    blocks = dist.reshape(t, m // _CHUNK, _CHUNK)
    _, chunk = jax.lax.top_k(-jnp.min(blocks, axis=2), k)
    chunk = jnp.sort(chunk, axis=1)
    cand = jnp.take_along_axis(blocks, chunk[:, :, None], axis=1).reshape(t, k * _CHUNK)
    neg, pos = jax.lax.top_k(-cand, k)
    return -neg, jnp.take_along_axis(chunk, pos // _CHUNK, axis=1) * _CHUNK + pos % _CHUNK


def running_top_k(distance_fn: Callable[[jax.Array, jax.Array], jax.Array], Q: jax.Array,
                  R: jax.Array, k: int, *, query_tile: int, reference_tile: int,
                  reference_mask: jax.Array | None = None) -> tuple[jax.Array, jax.Array]:
    """The ``k`` smallest ``distance_fn`` values of every query row among the reference rows.

    Queries run in tiles of ``query_tile`` rows; within a tile the references run in tiles of
    ``reference_tile`` rows, and the best ``k`` so far are merged with each new block by one
    ``lax.top_k`` over ``k + reference_tile`` candidates, so memory is
    ``query_tile × (k + reference_tile)`` whatever ``n`` and ``m``. When all references fit in
    one block and it is long (``m >= 8 k`` chunks of 32), the selection runs in two stages over
    chunk minima (:func:`_smallest_k`, same result).

    Ties: ``lax.top_k`` keeps the earlier candidate first, and the running best always
    precedes the new block, so equal distances come in increasing reference index (the rule of
    a stable sort, as scikit-learn's brute force with ``kind="stable"``).

    Parameters
    ----------
    distance_fn : callable
        ``(q, d), (r, d) -> (q, r)`` distances (smaller is nearer).
    Q : (n, d) array
        Queries.
    R : (m, d) array
        References.
    k : int
        Neighbours per query, ``1 <= k <= m`` (static).
    query_tile, reference_tile : int
        Tile sizes (static); see :func:`tile_size`.
    reference_mask : (m,) bool array, optional
        References allowed (False: never returned unless fewer than ``k`` are allowed, in
        which case they come last with distance ``inf``). Zero-weight rows use it.

    Returns
    -------
    distances : (n, k) array, ascending along axis 1.
    indices : (n, k) int32 array of reference rows.
    """
    m = R.shape[0]
    if not 1 <= k <= m:
        raise ValueError(f"k must be in [1, {m}] (the number of reference rows), got {k}")
    reference_tile = max(min(int(reference_tile), m), k) if m >= k else m
    if reference_tile == m and _long_row(m, k):  # one block, selected in two stages
        reference_tile = -(-m // _CHUNK) * _CHUNK
    n_rt = -(-m // reference_tile)
    pad = n_rt * reference_tile - m
    mask = jnp.ones(m, bool) if reference_mask is None else reference_mask.astype(bool)
    if pad:
        R = jnp.concatenate([R, jnp.broadcast_to(R[:1], (pad,) + R.shape[1:])], axis=0)
        mask = jnp.concatenate([mask, jnp.zeros(pad, bool)])
    R_tiles = R.reshape((n_rt, reference_tile) + R.shape[1:])
    mask_tiles = mask.reshape(n_rt, reference_tile)
    offsets = jnp.arange(n_rt, dtype=jnp.int32) * reference_tile

    def one_query_tile(q):
        inf = jnp.asarray(jnp.inf, q.dtype)

        def block(r, msk, off):
            dist = jnp.where(msk[None, :], distance_fn(q, r).astype(q.dtype), inf)
            idx = off + jnp.arange(r.shape[0], dtype=jnp.int32)
            return dist, jnp.broadcast_to(idx, dist.shape)

        if n_rt == 1:
            dist, _ = block(R_tiles[0], mask_tiles[0], offsets[0])
            best_d, best_i = _smallest_k(dist, k)
            return best_d, jnp.minimum(best_i, m - 1)  # padding rows (inf) name a real row

        def merge(best, xs):
            best_d, best_i = best
            dist, idx = block(*xs)
            cand_d = jnp.concatenate([best_d, dist], axis=1)
            cand_i = jnp.concatenate([best_i, idx], axis=1)
            neg, pos = jax.lax.top_k(-cand_d, k)
            return (-neg, jnp.take_along_axis(cand_i, pos, axis=1)), None

        init = (jnp.full((q.shape[0], k), inf), jnp.full((q.shape[0], k), m, jnp.int32))
        (best_d, best_i), _ = jax.lax.scan(merge, init, (R_tiles, mask_tiles, offsets))
        return best_d, best_i

    return map_row_tiles(one_query_tile, Q, tile=query_tile)
