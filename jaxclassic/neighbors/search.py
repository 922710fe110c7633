r"""Exact k-nearest-neighbour search in query × reference tiles under the memory budget.

For every query row :math:`q` the search returns the :math:`k` training rows of smallest
distance :math:`d(q, x_j)`, ascending, among the rows of positive weight. The :math:`n \times m`
distance matrix is never formed: queries run in row tiles, each tile scans the references in
tiles, and the best :math:`k` so far are merged with each new block
(:func:`jaxclassic._tiling.running_top_k`), so memory is bounded by
:data:`jaxclassic._tiling.MEMORY_BUDGET` whatever :math:`n` and :math:`m`.

Metrics (scikit-learn's names and formulas):

- ``euclidean``: :math:`\lVert q - x\rVert_2`. The search ranks on the squared distance less
  the query's own squared norm, :math:`\lVert x\rVert^2 - 2q\cdot x` (the Gram form without
  its per-query constant), one matrix product of augmented rows per block, after centring
  queries and references on the mean of the positive-weight training rows (distances are
  translation invariant; centring shrinks the norms and with them the float32 rounding of the
  Gram form, about :math:`\epsilon(\lVert q\rVert^2 + \lVert x\rVert^2)`).
  The :math:`2k` best candidates of that ranking are then re-ranked by their exact distance,
  :math:`\sqrt{\sum_l (q_l - x_l)^2}` from direct differences, and the root is taken only
  there: the distances returned carry float rounding of :math:`O(\epsilon)` *relative*, even
  for near-duplicate points whose Gram-form distance is pure rounding.
- ``cosine``: :math:`1 - q\cdot x/(\lVert q\rVert\lVert x\rVert)` (a zero row is at distance 1
  from everything, as scikit-learn), ranked by the normalised matrix product and re-ranked
  exactly as :math:`\tfrac12\lVert \hat q - \hat x\rVert^2` of the unit vectors (the same
  number, without the cancellation of :math:`1 - \cos` for small angles).
- ``manhattan`` :math:`\sum_l |q_l - x_l|`, ``chebyshev`` :math:`\max_l |q_l - x_l|` and
  ``minkowski`` :math:`(\sum_l |q_l - x_l|^p)^{1/p}` (``p = 1, 2, \infty`` are manhattan,
  euclidean and chebyshev): differences block by block, exact; their block is
  ``(tile, reference_tile, d)``, which the tile sizes account for.

Ties: equal distances come in increasing training-row index (a stable sort, as the ground
helper). Candidates that scikit-learn's brute force and this search order differently are
exact ties (or, in float32, ties to within rounding).

Cost: :math:`O(nmd)` for the distances (one GEMM per tile for euclidean and cosine) and
:math:`O(nm \log k)` for the selection; memory :math:`O(\text{budget} + nk)`.

References
----------
Johnson, Douze, Jégou, "Billion-scale similarity search with GPUs", IEEE Trans. Big Data 2019
(tiled distance products with a running k-selection).
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §13.3.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _precision, _tiling
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_int,
    check_predict_X,
    check_sample_weight,
    is_traced,
)

__all__ = ["METRICS", "kneighbors"]

#: metrics of :func:`kneighbors`
METRICS = ("euclidean", "manhattan", "cosine", "minkowski", "chebyshev")

#: the smallest query tile worth a pass over all references in one block
_MIN_QUERY_TILE = 64


# --------------------------------------------------------------------------- checks
def check_metric(metric: Any, p: Any) -> tuple[str, float]:
    """``(metric, p)`` validated; ``p`` a float ``>= 1`` (``inf`` allowed), used by minkowski."""
    check_choice(metric, "metric", METRICS)
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise TypeError(f"p must be a real number >= 1 (static), got {type(p).__name__} {p!r}")
    p = float(p)
    if math.isnan(p) or p < 1:
        raise ValueError(f"p must be >= 1 (the Minkowski order), got {p!r}")
    return metric, p


def distance_path(metric: str, p: float) -> str:
    """The computation behind ``(metric, p)``: minkowski with ``p`` 1, 2 or inf is manhattan,
    euclidean or chebyshev."""
    if metric == "minkowski":
        return {1.0: "manhattan", 2.0: "euclidean", math.inf: "chebyshev"}.get(p, "minkowski")
    return metric


def _gram_path(path: str) -> bool:
    return path in ("euclidean", "cosine")


def n_candidates(k: int, n_reference: int, path: str) -> int:
    """How many candidates the running selection keeps: ``2k`` for the matrix-product metrics
    (re-ranked exactly afterwards), ``k`` for the exact difference metrics."""
    return min(n_reference, 2 * k) if _gram_path(path) else k


def search_tiles(n_query: int, n_reference: int, n_features: int, n_select: int, path: str,
                 itemsize: int, *, batch: int = 1, budget: int | None = None) -> tuple[int, int]:
    """``(query_tile, reference_tile)`` keeping one tile's blocks within the memory budget.

    One (query, reference) pair costs about ``4 * itemsize`` bytes in the matrix-product
    metrics (the product, the distance, its index and the merge's candidate) and
    ``(d + 3) * itemsize`` in the difference metrics, times ``batch`` when the search is
    vmapped over ``batch`` weight vectors (cross-validation folds). All references go in
    one block when at least :data:`_MIN_QUERY_TILE` queries fit; else references are tiled.
    """
    budget = _tiling.MEMORY_BUDGET if budget is None else int(budget)
    per_pair = itemsize * ((4 if _gram_path(path) else n_features + 3)) * max(1, batch)
    full_row = per_pair * (n_reference + n_select)
    query_tile = _tiling.tile_size(n_query, full_row, budget=budget)
    if query_tile >= min(n_query, _MIN_QUERY_TILE):
        return query_tile, n_reference
    query_tile = min(n_query, _MIN_QUERY_TILE)
    reference_tile = max(n_select, budget // (query_tile * per_pair) - n_select, 1)
    query_tile = _tiling.tile_size(n_query, per_pair * (reference_tile + n_select), budget=budget)
    return query_tile, min(reference_tile, n_reference)


def positive_mean(X: jax.Array, mask: jax.Array) -> jax.Array:
    """Mean of the rows where ``mask`` (the centring point of the euclidean search)."""
    w = mask.astype(X.dtype)
    return jnp.sum(X * w[:, None], axis=0) / jnp.maximum(jnp.sum(w), 1)


# --------------------------------------------------------------------------- the search
def _unit_rows(X):
    norm = jnp.sqrt(jnp.sum(X * X, axis=-1, keepdims=True))
    return X / jnp.where(norm == 0, 1, norm), norm[..., 0] == 0


def _ranking(R, Q, center, path: str, p: float):
    r"""``(R_key, Q_key, rank_fn)``: ``rank_fn(q_key, r_key)`` orders each query's references as
    the metric does.

    euclidean: one product of augmented rows, :math:`[-2(q - c), 1]\cdot[x - c, \lVert x -
    c\rVert^2] = \lVert q - x\rVert^2 - \lVert q - c\rVert^2` (the squared distance less a
    per-query constant). cosine: :math:`-\hat q\cdot\hat x` of unit rows (normalised once).
    A single matrix product per block: on XLA's CPU backend the fused elementwise tail of the
    full Gram form (adding :math:`\lVert q\rVert^2` along rows, clamping) measured 3x the
    time of the product itself (50,000 x 3,000 x 32, float32). The other metrics rank by their
    exact block distances (:func:`jaxclassic._tiling.pairwise_distances`).
    """
    if path == "euclidean":
        Rc, Qc = R - center, Q - center
        R_key = jnp.concatenate([Rc, jnp.sum(Rc * Rc, axis=1, keepdims=True)], axis=1)
        Q_key = jnp.concatenate([-2.0 * Qc, jnp.ones((Q.shape[0], 1), Q.dtype)], axis=1)
        return R_key, Q_key, lambda q, r: _precision.matmul(q, r.T)
    if path == "cosine":
        return _unit_rows(R)[0], -_unit_rows(Q)[0], lambda q, r: _precision.matmul(q, r.T)
    return R, Q, partial(_tiling.pairwise_distances, metric=path, p=p)


def _exact_distances(q, rows, path: str):
    """Exact distances of each query row ``q (t, d)`` to its candidate ``rows (t, c, d)``."""
    if path == "euclidean":
        return jnp.sqrt(jnp.sum(jnp.square(q[:, None, :] - rows), axis=-1))
    uq, zq = _unit_rows(q)
    ur, zr = _unit_rows(rows)
    half_sq = 0.5 * jnp.sum(jnp.square(uq[:, None, :] - ur), axis=-1)
    return jnp.where(zq[:, None] | zr, 1.0, jnp.clip(half_sq, 0.0, 2.0)).astype(q.dtype)


def search(R, Q, mask, center, *, k: int, path: str, p: float, query_tile: int,
           reference_tile: int):
    """The search program (traced inside the callers' ``jit``): ``(distances, indices)``.

    ``R (m, d)`` references, ``Q (n, d)`` queries, ``mask (m,)`` allowed references,
    ``center (d,)`` the centring point of the euclidean ranking. Positions beyond the allowed
    references (fewer than ``k`` allowed, possible only under tracing) have distance ``inf``.
    """
    m, d = R.shape
    n_select = n_candidates(k, m, path)
    R_key, Q_key, rank = _ranking(R, Q, center, path, p)
    if not _gram_path(path):
        dist, idx = _tiling.running_top_k(rank, Q, R, k, query_tile=query_tile,
                                          reference_tile=reference_tile, reference_mask=mask)
        return dist, jnp.clip(idx, 0, m - 1)

    def one_tile(q_both):
        q_raw, q_key = q_both[:, :d], q_both[:, d:]
        key, idx = _tiling.running_top_k(rank, q_key, R_key, n_select, query_tile=q_key.shape[0],
                                         reference_tile=reference_tile, reference_mask=mask)
        idx = jnp.clip(idx, 0, m - 1)
        exact = jnp.where(jnp.isfinite(key), _exact_distances(q_raw, R[idx], path), jnp.inf)
        order = jnp.lexsort((idx, exact), axis=-1)[:, :k]  # by distance, then by index
        return jnp.take_along_axis(exact, order, 1), jnp.take_along_axis(idx, order, 1)

    return _tiling.map_row_tiles(one_tile, jnp.concatenate([Q, Q_key], axis=1), tile=query_tile)


@partial(jax.jit, static_argnames=("k", "path", "p", "query_tile", "reference_tile"))
def _kneighbors(R, Q, mask, *, k, path, p, query_tile, reference_tile):
    center = positive_mean(R, mask)
    return search(R, Q, mask, center, k=k, path=path, p=p, query_tile=query_tile,
                  reference_tile=reference_tile)


def check_k(k: Any, n_samples: int, sample_weight, name: str = "k") -> int:
    """``k`` an int in ``[1, number of training rows of positive weight]``."""
    k = check_int(k, name, low=1)
    if k > n_samples:
        raise ValueError(f"{name} must be <= the number of training rows (n_samples={n_samples}), "
                         f"got {name}={k}")
    if sample_weight is not None and not is_traced(sample_weight):
        n_positive = int(np.sum(np.asarray(sample_weight) > 0))
        if k > n_positive:
            raise ValueError(f"{name} must be <= the number of training rows of positive weight "
                             f"({n_positive}), got {name}={k}")
    return k


def kneighbors(X_train: Any, X_query: Any, k: int, *, metric: str = "euclidean", p: float = 2,
               sample_weight: Any = None) -> tuple[jax.Array, jax.Array]:
    r"""The ``k`` nearest training rows of every query row: exact, tiled, ascending.

    .. math::

        \mathcal N_k(q) = \operatorname*{arg\,min}_{S \subseteq \{j : s_j > 0\},\ |S| = k}
        \ \sum_{j \in S} d(q, x_j),

    returned as the distances :math:`d(q, x_{(1)}) \le \dots \le d(q, x_{(k)})` and the row
    indices :math:`(1), \dots, (k)`; equal distances in increasing index. See the module
    docstring for the metrics, the tiling and the precision of each.

    Parameters
    ----------
    X_train : (m, d) float array
        Reference rows.
    X_query : (n, d) float array
        Query rows (promoted to the dtype of ``X_train`` when wider is needed).
    k : int (static)
        Neighbours per query, ``1 <= k <=`` the number of training rows of positive weight.
    metric : {"euclidean", "manhattan", "cosine", "minkowski", "chebyshev"} (static)
    p : float >= 1 (static)
        Minkowski order (``inf`` allowed); ignored by the other metrics. Static because
        ``p = 1, 2, inf`` take other code paths (differences, one matrix product, a maximum).
    sample_weight : (m,) array, optional
        Training rows of weight 0 are never returned (a mask, not a slice: shapes stay static,
        so a vmap over weight vectors is one program). Under tracing, where the number of
        positive weights cannot be checked, positions beyond them come back with distance
        ``inf``.

    Returns
    -------
    distances : (n, k) float array, ascending along axis 1.
    indices : (n, k) int32 array of rows of ``X_train``.

    Raises
    ------
    ValueError
        ``k < 1``, ``k`` above the number of (positive-weight) training rows, an unknown
        metric, ``p < 1``, NaN or inf in the data, mismatched numbers of features.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.neighbors import kneighbors
    >>> X = jnp.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    >>> d, i = kneighbors(X, jnp.array([[0.9, 0.0]]), 2)
    >>> i.tolist(), [round(v, 6) for v in d[0].tolist()]
    ([[1, 0]], [0.1, 0.9])

    References
    ----------
    Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §13.3;
    Johnson, Douze, Jégou (2019), tiled k-selection.
    """
    X_train = check_array(X_train, "X_train")
    X_query = check_predict_X(X_query, X_train.dtype, X_train.shape[1], name="X_query")
    X_train = X_train.astype(X_query.dtype)
    metric, p = check_metric(metric, p)
    n, d = X_train.shape
    sw = check_sample_weight(sample_weight, n, dtype=X_train.dtype)
    k = check_k(k, n, sw)
    path = distance_path(metric, p)
    q_tile, r_tile = search_tiles(X_query.shape[0], n, d, n_candidates(k, n, path), path,
                                  X_train.dtype.itemsize)
    return _kneighbors(X_train, X_query, sw > 0, k=k, path=path, p=p, query_tile=q_tile,
                       reference_tile=r_tile)
