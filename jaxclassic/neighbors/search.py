r"""Exact k-nearest-neighbour search in query × reference tiles under the memory budget.

For every query row :math:`q` the search returns the :math:`k` training rows of smallest
distance :math:`d(q, x_j)`, ascending, among the rows of positive weight. The :math:`n \times m`
distance matrix is never formed: queries run in row tiles, each tile scans the references in
tiles, and the best :math:`k` so far are merged with each new block
(:func:`jaxclassic._tiling.running_top_k`), so memory is bounded by
:data:`jaxclassic._tiling.MEMORY_BUDGET` whatever :math:`n` and :math:`m`.

Metrics (scikit-learn's names and formulas):

- ``euclidean``: :math:`\lVert q - x\rVert_2`. Candidates are chosen by one matrix product of
  augmented rows per block (the Gram form :math:`\lVert x\rVert^2 - 2q\cdot x`, without its
  per-query constant, less a rounding slack: :func:`_ranking`), after centring queries and
  references on the mean of the positive-weight training rows (distances are translation
  invariant; centring shrinks the norms and with them the rounding of the Gram form, about
  :math:`\epsilon(\lVert q\rVert^2 + \lVert x\rVert^2)`). The :math:`c = k + \max(k, 4)`
  candidates of smallest key are then ranked by their exact distance,
  :math:`\sqrt{\sum_l (q_l - x_l)^2}` from direct differences, and the root is taken only
  there: the distances returned carry float rounding of :math:`O(\epsilon)` *relative*, even
  for near-duplicate points whose Gram-form distance is pure rounding.
- ``cosine``: :math:`1 - q\cdot x/(\lVert q\rVert\lVert x\rVert)` (a zero row is at distance 1
  from everything, as scikit-learn), candidates by the product :math:`-\hat q\cdot\hat x` of
  unit rows, ranked exactly as :math:`\tfrac12\lVert \hat q - \hat x\rVert^2` of the unit
  vectors (the same number, without the cancellation of :math:`1 - \cos` for small angles).
- ``manhattan`` :math:`\sum_l |q_l - x_l|`, ``chebyshev`` :math:`\max_l |q_l - x_l|` and
  ``minkowski`` :math:`(\sum_l |q_l - x_l|^p)^{1/p}` (``p = 1, 2, \infty`` are manhattan,
  euclidean and chebyshev): differences block by block, exact; their block is
  ``(tile, reference_tile, d)``, which the tile sizes account for.

Ties, and what "exact" guarantees. Write :math:`e_j` for the distance of row :math:`j` as the
search computes it (the differences above, in the input's dtype) and :math:`\prec` for the
order "smaller :math:`e_j`, then smaller :math:`j`". **The rows returned are the first
:math:`k` allowed rows in the order** :math:`\prec` (a stable sort of :math:`e` over the whole
index, as ``np.argsort(e, kind="stable")``), for every metric, every :math:`k` and any number
of ties. Where the real distances of two rows are equal and the arithmetic is exact (duplicated
rows in every metric; integer-valued data in euclidean, manhattan, chebyshev and minkowski;
power-of-two multiples in cosine), their :math:`e` are equal too and they come in increasing
index. Rows whose real distances are equal but whose :math:`e` differ by rounding (cosine on
``(1, 1, 0)`` and ``(3, 3, 0)``, or sums of the same squares in another order) come in the
order of their :math:`e`, as in any floating-point search (scipy's and scikit-learn's too;
scikit-learn's brute force does not even order equal distances by index).

The difference metrics rank by :math:`e` itself, and the running selection keeps the earlier
row on equal values (:func:`jaxclassic._tiling.running_top_k`). The matrix-product metrics
need a proof, since their candidates come from a rounded key :math:`\kappa_j`:

1. *The key is a lower bound.* With :math:`\hat a = q - c`, :math:`\hat b_j = x_j - c` as
   computed, unit roundoff :math:`u` and the slack :math:`g` of :func:`rounding_slack`
   (:math:`g = 4((d + 2)u_{mm} + (2d + 8)u)`), the standard bounds (Higham, *Accuracy and
   Stability of Numerical Algorithms*, §3.1: a computed sum of :math:`n` products is within
   :math:`\gamma_n = nu/(1 - nu)` times the sum of their absolute values of the exact one, in
   any order; each subtraction or root within :math:`u`) give, for the euclidean key
   :math:`\kappa_j` (whose product subtracts :math:`2g\lVert\hat b_j\rVert^2` through its norm
   column), :math:`\lVert q - x_j\rVert^2 \ge \kappa_j + (1 - 2g)\lVert\hat a\rVert^2`:
   every rounding of the centring, the norms and the product is at most
   :math:`\tfrac g2(\lVert\hat a\rVert + \lVert\hat b_j\rVert)^2 \le g(\lVert\hat
   a\rVert^2 + \lVert\hat b_j\rVert^2)`, half the slack. For cosine, :math:`1 -
   \cos(q, x_j) \ge 1 + \kappa_j - g` (unit rows: the errors are absolute).
2. *Computed distances keep the bound.* :math:`e_j` sums non-negative terms, so it is at least
   the real distance times :math:`1 - (d + 4)u` (euclidean), or minus :math:`g` (cosine).
   Hence every row :math:`j` left out of the candidates, whose key is at least the largest
   selected key :math:`\kappa_{(c)}`, has :math:`e_j \ge \beta`, with
   :math:`\beta = (1 - g)\sqrt{\max(\kappa_{(c)} + (1 - 2g)\lVert\hat a\rVert^2, 0)}`
   (euclidean) or :math:`1 + \kappa_{(c)} - 2g` (cosine), computed with its own rounding
   inside the slack.
3. *The check.* After the candidates are sorted by :math:`\prec`, a query is **settled** when
   its :math:`k`-th candidate has :math:`e_{(k)} < \beta`: then no row left out can equal or
   precede it, and the first :math:`k` candidates are the first :math:`k` of the whole index.
   Every query not settled (its :math:`k`-th distance tied, or within the rounding bound,
   with the :math:`c`-th candidate's) is searched again by exact differences over every
   reference (a running top-k on :math:`e`, the earlier row first on equal values), which
   obeys the rule by construction; it runs on the blocks of :data:`_EXACT_PASS_ROWS`
   consecutive queries that hold such a query (:func:`_settle`).

Cost of the rule. Without ties the check is one comparison a query: on standard normal data
(20,000 x 20 and 50,000 x 32, float32 and float64, k = 1, 5, 10) every query was settled; at
5,000 x 784 in float32 up to 8 in 1,000 were not (k = 5). Iris, wine, diabetes, digits and
breast cancer (k = 5) all settle in float64 and in float32 euclidean; float32 cosine leaves
9 % of wine and 25 % of breast cancer to the exact pass (their unscaled columns put the rows
in a narrow cone, where the worst-case rounding of the float32 key exceeds the gaps; the
search without the check happened to be right on these two, and returned wrong rows on a
narrower cone, see the tests). Data with ties beyond the candidates (integer grids, many
duplicated rows) pay a difference pass, the manhattan path's cost: 3x the matrix-product
search at 20,000 x 8 on a grid, 10.3 s against scikit-learn's 2.7 s at 50,000 x 8 with
10,000 queries (``benchmarks/bench_neighbors.py``); :func:`settled_fraction` measures the
share. Measured on 20,000 x 20, 2,000 queries, float32: the same run time as before within
the noise (CPU seconds 0.98-1.06x), and 0.2-0.7 s more compilation on the first call.

The bound assumes the matrix products are true float32 / float64 products
(:data:`jaxclassic._precision.PRECISION` ``HIGHEST``, the default); with a lower precision the
slack uses a unit roundoff of :math:`2^{-8}` (bfloat16 or TF32 passes), which stays correct
and settles fewer queries. Without this check the search also lost true neighbours, not just
tie order: float32 data in two clusters at :math:`\pm 1000` (spread 0.01) returned k-th
distances 6x the true ones, the Gram form's rounding being larger than the distances.

Cost: :math:`O(nmd)` for the distances (one GEMM per tile for euclidean and cosine) and
:math:`O(nm \log k)` for the selection; memory :math:`O(\text{budget} + nk)`.

References
----------
Johnson, Douze, Jégou, "Billion-scale similarity search with GPUs", IEEE Trans. Big Data 2019
(tiled distance products with a running k-selection).
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §13.3.
Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., SIAM 2002, §3.1 (the
rounding bounds of sums and inner products behind the candidate check).
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic._deprecation import renamed_arguments
from jaxclassic import _precision, _tiling
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_int,
    check_predict_X,
    check_sample_weight,
    host_view,
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


#: the fewest candidates beyond ``k`` kept by the matrix-product metrics: the gap between the k-th
#: and the last candidate must exceed the rounding bound for a query to be settled without an
#: exact pass, and at k = 1 the gap to the 2nd nearest alone was too often below it (1 query in
#: 200 at 50,000 x 32, 1 in 6 at 5,000 x 784, standard normal float32; none with 4 more, which
#: cost 1 % of a k = 1 search at 20,000 x 20, where 8 more cost 7 %)
_EXTRA_CANDIDATES = 4


def n_candidates(k: int, n_reference: int, path: str) -> int:
    """How many candidates the running selection keeps: ``k + max(k, 4)`` for the
    matrix-product metrics (re-ranked exactly afterwards, module docstring), ``k`` for the
    exact difference metrics."""
    return min(n_reference, k + max(k, _EXTRA_CANDIDATES)) if _gram_path(path) else k


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


def fit_center(X: jax.Array, sample_weight: jax.Array) -> jax.Array:
    """``positive_mean(X, sample_weight > 0)`` of a fit, bit for bit, in two device operations
    where it can (six eagerly: ~0.3 ms on 512 x 30 rows, issue 25).

    When every row of weight 0 is zero (the estimators' padding rows) ``X * w`` is ``X`` bit
    for bit, so its column sums are the same program on the same bits, and ``sum(w)`` is the
    exact count of positive weights below 2^24 rows: the count, as a 0-d array of ``X``'s
    dtype, divides as the device's ``maximum(sum(w), 1)`` did. Other input (or ``X`` away from
    the host's memory, see :func:`jaxclassic.validation.host_view`) takes :func:`positive_mean`.
    """
    X_host, sw_host = host_view(X), host_view(sample_weight)
    if X_host is None or sw_host is None or X.ndim != 2 or X.shape[0] >= 1 << 24:
        return positive_mean(X, sample_weight > 0)
    mask = sw_host > 0
    if X_host[~mask].any():
        return positive_mean(X, sample_weight > 0)
    return _column_mean(X, np.asarray(max(int(mask.sum()), 1), X.dtype))


@_jit.jit
def _column_mean(X, count):
    """``sum(X, axis=0) / count`` as one compiled program (no eager operations in a new process)."""
    return jnp.sum(X, axis=0) / count


# --------------------------------------------------------------------------- the search
def _unit_rows(X):
    norm = jnp.sqrt(jnp.sum(X * X, axis=-1, keepdims=True))
    return X / jnp.where(norm == 0, 1, norm), norm[..., 0] == 0


def rounding_slack(dtype, n_features: int) -> float:
    r"""The relative slack :math:`g` of the candidate bound (module docstring, "Ties").

    :math:`g = 4\big((d + 2)\,u_{\mathrm{mm}} + (2d + 8)\,u\big)`, with :math:`u` the unit
    roundoff of ``dtype`` (half its ``eps``) and :math:`u_{\mathrm{mm}}` that of the matrix
    products: :math:`u` at :data:`jaxclassic._precision.PRECISION` ``HIGHEST`` (true float32 /
    float64 products, in any summation order), else :math:`2^{-8}` (bfloat16 or TF32 passes).
    About twice the first-order error bound, so that every second-order term is covered.
    """
    u = float(np.finfo(dtype).eps) / 2
    highest = str(_precision.PRECISION).lower().endswith("highest")
    u_mm = u if highest else max(u, 2.0**-8)
    return 4.0 * ((n_features + 2) * u_mm + (2 * n_features + 8) * u)


def _ranking(R, Q, center, path: str, p: float):
    r"""``(R_key, Q_key, Q_norm2, rank_fn)``: ``rank_fn(q_key, r_key)`` orders each query's
    references as the metric does; for the matrix-product metrics it is a *lower bound* of the
    distance (module docstring, "Ties").

    euclidean: one product of augmented rows,

    .. math::

        \kappa_j = [-2\hat a,\ 1 - 2g]\cdot[\hat b_j,\ \lVert\hat b_j\rVert^2],
        \qquad \hat a = q - c,\ \hat b_j = x_j - c,

    the squared distance :math:`\lVert q - x_j\rVert^2` less the per-query constant
    :math:`\lVert\hat a\rVert^2` (``Q_norm2``) and less the row's part of a slack
    :math:`2g(\lVert\hat a\rVert^2 + \lVert\hat b_j\rVert^2) \ge g(\lVert\hat a\rVert +
    \lVert\hat b_j\rVert)^2` that exceeds the float rounding of the whole computation
    (:func:`rounding_slack`; the query's part is in :func:`_unselected_bound`). The slack
    rides on the norm column the product has anyway: no extra column. cosine:
    :math:`-\hat q\cdot\hat x` of unit rows (normalised once). A single matrix product per
    block: on XLA's CPU backend the fused elementwise tail of the full Gram form (adding
    :math:`\lVert q\rVert^2` along rows, clamping) measured 3x the time of the product itself
    (50,000 x 3,000 x 32, float32). The other metrics rank by their exact block distances
    (:func:`jaxclassic._tiling.pairwise_distances`).
    """
    zeros = jnp.zeros((Q.shape[0],), Q.dtype)
    if path == "euclidean":
        g = rounding_slack(R.dtype, R.shape[1])
        Rc, Qc = R - center, Q - center
        R_key = jnp.concatenate([Rc, jnp.sum(Rc * Rc, axis=1, keepdims=True)], axis=1)
        Q_key = jnp.concatenate([-2.0 * Qc, jnp.full((Q.shape[0], 1), 1.0 - 2.0 * g, Q.dtype)],
                                axis=1)
        q_norm2 = jnp.sum(Qc * Qc, axis=1)
        return R_key, Q_key, q_norm2, lambda q, r: _precision.matmul(q, r.T)
    if path == "cosine":
        return (_unit_rows(R)[0], -_unit_rows(Q)[0], zeros,
                lambda q, r: _precision.matmul(q, r.T))
    return R, Q, zeros, partial(_tiling.pairwise_distances, metric=path, p=p)


def _exact_distances(q, rows, path: str):
    """Exact distances of each query row ``q (t, d)`` to the rows ``(t, c, d)`` (its own
    candidates) or ``(1, r, d)`` (a reference block shared by the tile): ``(t, c)``."""
    if path == "euclidean":
        return jnp.sqrt(jnp.sum(jnp.square(q[:, None, :] - rows), axis=-1))
    uq, zq = _unit_rows(q)
    ur, zr = _unit_rows(rows)
    half_sq = 0.5 * jnp.sum(jnp.square(uq[:, None, :] - ur), axis=-1)
    return jnp.where(zq[:, None] | zr, 1.0, jnp.clip(half_sq, 0.0, 2.0)).astype(q.dtype)


def _unselected_bound(key_last, q_norm2, path: str, g: float):
    r"""A lower bound on the exact distance (as :func:`_exact_distances` computes it) of every
    reference the candidate selection left out, from the largest selected key ``key_last``:
    :math:`(1 - g)\sqrt{\max(\kappa_{(c)} + (1 - 2g)\lVert\hat a\rVert^2, 0)}` (euclidean),
    :math:`1 + \kappa_{(c)} - 2g` (cosine); ``inf`` when ``key_last`` is (no allowed reference
    was left out)."""
    if path == "euclidean":
        return jnp.sqrt(jnp.maximum(key_last + (1.0 - 2.0 * g) * q_norm2, 0.0)) * (1.0 - g)
    return (1.0 + key_last) - 2.0 * g


#: queries searched together by the exact pass (:func:`_settle`): a query whose neighbours the
#: candidates did not settle costs an exact pass over its block of 16 consecutive queries
_EXACT_PASS_ROWS = 16


def fallback_tiles(query_tile: int, reference_tile: int, n_select: int, n_reference: int,
                   n_features: int, k: int, itemsize: int) -> tuple[int, int]:
    """``(rows, reference_tile)`` of the exact-difference pass that settles the queries whose
    candidates may have cut a tie: at most :data:`_EXACT_PASS_ROWS` queries a pass, blocks no
    larger than the ranking block it replaces (so the callers' budget, batch included, holds)."""
    budget = query_tile * (min(reference_tile, n_reference) + n_select) * 4 * itemsize
    return search_tiles(min(query_tile, _EXACT_PASS_ROWS), n_reference, n_features, k,
                        "manhattan", itemsize, budget=budget)


def _settle(q_raw, settled, dist, idx, R, mask, *, k: int, path: str, tiles: tuple[int, int]):
    """Search again, by exact differences against every reference, the blocks of ``tiles[0]``
    consecutive queries that hold a query not ``settled``: a running top-k on their exact
    distances (the earlier row first on equal values, as
    :func:`jaxclassic._tiling.running_top_k`), written over their candidates' neighbours.

    A ``lax.while_loop`` whose step takes the first block still to be searched, rather than a
    ``lax.cond`` per block: under ``jax.vmap`` (cross-validation folds) a batched ``cond`` runs
    both branches, a batched loop runs only while some member has a block left, so data
    without ties pays one test. The step reads its queries at a position carried by the loop,
    so nothing in it is loop-invariant: with a loop over fixed queries, XLA's loop-invariant
    code motion hoisted the whole exact pass out of a loop that never ran (measured: 2x the
    time of a vmapped 5,000-row search). Consecutive blocks (slices, not a gather and scatter
    of the scattered queries) keep the added compilation small.
    """
    t, d = q_raw.shape
    m = R.shape[0]
    rows, reference_tile = min(tiles[0], t), tiles[1]
    n_blocks = -(-t // rows)
    pad = n_blocks * rows - t
    if pad:  # copies of the first query, counted as settled: their rows are cut below
        q_raw = jnp.concatenate([q_raw, jnp.broadcast_to(q_raw[:1], (pad, d))])
        settled = jnp.concatenate([settled, jnp.ones(pad, bool)])
        dist = jnp.concatenate([dist, jnp.broadcast_to(dist[:1], (pad, k))])
        idx = jnp.concatenate([idx, jnp.broadcast_to(idx[:1], (pad, k))])
    exact = lambda q, r: _exact_distances(q, r[None], path)  # noqa: E731

    def exact_top_k(q):
        if reference_tile < m:
            return _tiling.running_top_k(exact, q, R, k, query_tile=rows,
                                         reference_tile=reference_tile, reference_mask=mask)
        # one block: a plain top_k (ties in index order), half the compile time of the
        # two-stage selection of running_top_k, on a path that runs only on ties
        neg, at = jax.lax.top_k(jnp.where(mask[None, :], -exact(q, R), -jnp.inf), k)
        return -neg, at

    def step(state):
        dist, idx, left = state
        block = jnp.argmax(left).astype(jnp.int32)
        d_new, i_new = exact_top_k(jax.lax.dynamic_slice_in_dim(q_raw, block * rows, rows))
        dist = jax.lax.dynamic_update_slice_in_dim(dist, d_new.astype(dist.dtype), block * rows, 0)
        idx = jax.lax.dynamic_update_slice_in_dim(idx, jnp.clip(i_new, 0, m - 1), block * rows, 0)
        return dist, idx, left.at[block].set(False)

    left = ~jnp.all(settled.reshape(n_blocks, rows), axis=1)
    dist, idx, _ = jax.lax.while_loop(lambda state: jnp.any(state[2]), step, (dist, idx, left))
    return dist[:t], idx[:t]


def _candidate_tile(R, R_key, rank, q_all, mask, *, k: int, path: str, reference_tile: int):
    """The candidate stage of the matrix-product metrics on one query tile ``q_all`` (raw
    rows, key rows and squared centred norms side by side): ``(dist, idx, settled)``, the first
    ``k`` candidates in the order (distance, index) and whether each query is settled by them
    (module docstring, "Ties", steps 1-3)."""
    m, d = R.shape
    n_select = n_candidates(k, m, path)
    n_key = R_key.shape[1]
    q_raw, q_key, q_norm2 = q_all[:, :d], q_all[:, d:d + n_key], q_all[:, d + n_key]
    key, idx = _tiling.running_top_k(rank, q_key, R_key, n_select, query_tile=q_key.shape[0],
                                     reference_tile=reference_tile, reference_mask=mask)
    idx = jnp.clip(idx, 0, m - 1)
    exact = jnp.where(jnp.isfinite(key), _exact_distances(q_raw, R[idx], path), jnp.inf)
    order = jnp.lexsort((idx, exact), axis=-1)[:, :k]  # by distance, then by index
    dist, idx = jnp.take_along_axis(exact, order, 1), jnp.take_along_axis(idx, order, 1)
    if n_select == m:  # every reference is a candidate: nothing was left out
        return dist, idx, jnp.ones(dist.shape[0], bool)
    bound = _unselected_bound(key[:, -1], q_norm2, path, rounding_slack(R.dtype, d))
    return dist, idx, jnp.isinf(bound) | (dist[:, -1] < bound)


def _query_rows(R, Q, center, path: str):
    """``(R_key, rank, q_all)``: the keys of the references and, for every query, its raw
    row, key row and squared centred norm side by side (one array for the row tiles)."""
    R_key, Q_key, Q_norm2, rank = _ranking(R, Q, center, path, 2.0)
    return R_key, rank, jnp.concatenate([Q, Q_key, Q_norm2[:, None]], axis=1)


def search(R, Q, mask, center, *, k: int, path: str, p: float, query_tile: int,
           reference_tile: int):
    """The search program (traced inside the callers' ``jit``): ``(distances, indices)``.

    ``R (m, d)`` references, ``Q (n, d)`` queries, ``mask (m,)`` allowed references,
    ``center (d,)`` the centring point of the euclidean ranking. Positions beyond the allowed
    references (fewer than ``k`` allowed, possible only under tracing) have distance ``inf``.
    """
    m, d = R.shape
    if not _gram_path(path):
        rank = partial(_tiling.pairwise_distances, metric=path, p=p)
        dist, idx = _tiling.running_top_k(rank, Q, R, k, query_tile=query_tile,
                                          reference_tile=reference_tile, reference_mask=mask)
        return dist, jnp.clip(idx, 0, m - 1)
    R_key, rank, q_all = _query_rows(R, Q, center, path)
    tiles = fallback_tiles(query_tile, reference_tile, n_candidates(k, m, path), m, d, k,
                           R.dtype.itemsize)

    def one_tile(q_all):
        dist, idx, settled = _candidate_tile(R, R_key, rank, q_all, mask, k=k, path=path,
                                             reference_tile=reference_tile)
        if n_candidates(k, m, path) == m:
            return dist, idx
        return _settle(q_all[:, :d], settled, dist, idx, R, mask, k=k, path=path, tiles=tiles)

    return _tiling.map_row_tiles(one_tile, q_all, tile=query_tile)


@partial(_jit.jit, static_argnames=("k", "path", "query_tile", "reference_tile"))
def _settled_program(R, Q, mask, *, k, path, query_tile, reference_tile):
    R_key, rank, q_all = _query_rows(R, Q, positive_mean(R, mask), path)
    return _tiling.map_row_tiles(
        lambda q: _candidate_tile(R, R_key, rank, q, mask, k=k, path=path,
                                  reference_tile=reference_tile)[2], q_all, tile=query_tile)


def _checked_search(X_train, X_query, n_neighbors, metric, p, sample_weight):
    """The checked arguments of :func:`kneighbors` and :func:`settled_fraction`:
    ``(X_train, X_query, sample_weight, k, path, p, (query_tile, reference_tile))``."""
    X_train = check_array(X_train, "X_train")
    X_query = check_predict_X(X_query, X_train.dtype, X_train.shape[1], name="X_query")
    X_train = X_train.astype(X_query.dtype)
    metric, p = check_metric(metric, p)
    n, d = X_train.shape
    sw = check_sample_weight(sample_weight, n, dtype=X_train.dtype)
    k = check_k(n_neighbors, n, sw, name="n_neighbors")
    path = distance_path(metric, p)
    tiles = search_tiles(X_query.shape[0], n, d, n_candidates(k, n, path), path, X_train.dtype.itemsize)
    return X_train, X_query, sw, k, path, p, tiles


@renamed_arguments(k="n_neighbors")
def settled_fraction(X_train: Any, X_query: Any, n_neighbors: int, *, metric: str = "euclidean",
                     p: float = 2, sample_weight: Any = None) -> float:
    """The fraction of queries whose candidates settle them (a diagnostic of the cost).

    The rest are searched again by exact differences (module docstring, "Ties"); the
    difference metrics have no candidate stage (1.0). Arguments as :func:`kneighbors`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [-1.0]] * 10 + [[5.0]])  # 0 ties with 20 rows, 5 with none
    >>> settled_fraction(X, np.array([[0.0], [5.0]]), 1)
    0.5
    """
    X_train, X_query, sw, k, path, p, (q_tile, r_tile) = _checked_search(
        X_train, X_query, n_neighbors, metric, p, sample_weight)
    if not _gram_path(path):
        return 1.0
    settled = _settled_program(X_train, X_query, sw > 0, k=k, path=path, query_tile=q_tile,
                               reference_tile=r_tile)
    return float(np.mean(np.asarray(settled)))


@partial(_jit.jit, static_argnames=("k", "path", "p", "query_tile", "reference_tile"))
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


@renamed_arguments(k="n_neighbors")
def kneighbors(X_train: Any, X_query: Any, n_neighbors: int, *, metric: str = "euclidean",
               p: float = 2, sample_weight: Any = None) -> tuple[jax.Array, jax.Array]:
    r"""The ``n_neighbors`` (:math:`k`) nearest training rows of every query: exact, tiled, sorted.

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
    n_neighbors : int (static)
        :math:`k`, neighbours per query, ``1 <= n_neighbors <=`` the number of training rows of
        positive weight (was ``k``, deprecated until jaxclassic 0.3.0).
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
    distances : (n, n_neighbors) float array, ascending along axis 1.
    indices : (n, n_neighbors) int32 array of rows of ``X_train``.

    Raises
    ------
    ValueError
        ``n_neighbors < 1``, ``n_neighbors`` above the number of (positive-weight) training rows, an unknown
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
    X_train, X_query, sw, k, path, p, (q_tile, r_tile) = _checked_search(
        X_train, X_query, n_neighbors, metric, p, sample_weight)
    return _kneighbors(X_train, X_query, sw > 0, k=k, path=path, p=p, query_tile=q_tile,
                       reference_tile=r_tile)
