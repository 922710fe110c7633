r"""k-means: Lloyd's algorithm with k-means++ (or random) seeding, restarts vmapped over keys.

Objective, for centres :math:`c_1..c_k`, sample weights :math:`s_i \ge 0` and the labels
:math:`l_i \in \{1..k\}`,

.. math::

    J(c, l) = \sum_i s_i\,\lVert x_i - c_{l_i}\rVert^2 \qquad (\text{the inertia}).

Lloyd's iteration alternates the two exact partial minimisations of :math:`J`:

* assignment: :math:`l_i = \arg\min_j \lVert x_i - c_j\rVert^2` (ties: the lowest ``j``), by
  one matrix product per row tile (the Gram form of :func:`jaxclassic._tiling.squared_euclidean`,
  :math:`\lVert x\rVert^2 + \lVert c\rVert^2 - 2x\cdot c`);
* update: :math:`c_j = \sum_{l_i = j} s_i x_i \,/\, \sum_{l_i = j} s_i` (weighted sums by
  ``jax.ops.segment_sum``).

Both run in one ``lax.scan`` over cache-sized row tiles (:data:`LLOYD_TILE_BYTES`, and within
:data:`jaxclassic._tiling.MEMORY_BUDGET`): each tile's ``tile × k`` distances are reduced to
labels and added into the cluster sums before the next tile, so no ``n × k`` array exists.
Measured (``python -m benchmarks.run --only cluster``, shared 2-core CPU, float32,
1,000,000 x 16, k = 16): 0.05 s an iteration against scikit-learn's 0.29 s (Lloyd, same
starting centres). A Lloyd step forms the distances to the nearest centre only when a cluster
is empty (to relocate it: the same pass again), the final labels and the exact inertia come
from one pass, and the weighted mean is a product, not a column reduction: 20 iterations
from the same centres, the old and the new module in alternating runs (2026-11-29, quiet):
0.87-1.03 s -> 0.73-0.81 s.

Neither step increases :math:`J`, so the inertia never increases across iterations (tested at
every iteration). Cost per iteration: one ``n × d × k`` product and one pass of segment sums.
The data are centred on their weighted mean first (distances are unchanged; the Gram form
loses less to rounding near the origin), as scikit-learn centres them; :func:`predict`,
:func:`transform` and :func:`inertia` centre the rows and the centres on the centres' mean
(scikit-learn's ``predict`` does not: on float32 rows around 1e6 it disagrees with its own
``labels_``).

Stopping (scikit-learn's rule for ``algorithm="lloyd"``): stop when the labels of the rows of
positive weight did not change in an iteration ("strict convergence"), or when the total
squared centre shift :math:`\sum_j\lVert c_j^{new} - c_j\rVert^2 \le` ``tol`` × the mean over
features of the (weighted) variance of ``X``. The loop runs in :func:`jaxclassic._solver.iterate`
with ``error = 0`` on strict convergence, else the shift. ``n_iter`` counts update steps as
scikit-learn's ``n_iter_``; after the loop the labels are recomputed for the final centres, and
the inertia is the exact :math:`\sum_i s_i\lVert x_i - c_{l_i}\rVert^2`.

Empty clusters (scikit-learn's relocation): when a cluster receives no weight in an
assignment, it is re-seeded at the row of positive weight farthest from its own centre (the
j-th empty cluster in index order takes the j-th farthest row; ties: the lowest row index),
and that row's weight and coordinates are moved out of its old cluster's sums. When every row
is at distance 0 from its centre (fewer distinct points than clusters), there is nothing to
relocate and an empty cluster keeps its centre (scikit-learn moves it onto the heaviest
cluster's centre instead). Either way the centres then coincide with points: duplicate points
or constant data give duplicated centres, inertia 0 and ``converged=True``;
:func:`fit_kmeans` warns (:class:`~jaxclassic.exceptions.ConvergenceWarning`, as scikit-learn)
when fewer distinct labels than ``n_clusters`` remain.

Seeding (:func:`kmeans_plusplus`, Arthur & Vassilvitskii): the first centre is a row drawn
with probability :math:`s_i/\sum s`; each next centre is drawn with probability
:math:`s_i D(x_i)^2 / \sum_j s_j D(x_j)^2`, :math:`D` the distance to the nearest centre
chosen so far. With ``n_local_trials = t > 1`` (``"auto"``: scikit-learn's
:math:`2 + \lfloor\ln k\rfloor`), ``t`` candidates are drawn that way and the one that most
lowers :math:`\sum_i s_i D(x_i)^2` is kept (scikit-learn's greedy k-means++). ``init="random"``
draws ``k`` distinct rows with probability :math:`\propto s_i` (without replacement). Draws are
by the inverse of the cumulative weight, one uniform number per draw, so rows of weight 0 are
never drawn and inserting them does not change which row is drawn: a row of weight 0 has no
influence on any part of the fit.

Restarts: ``n_init`` seeds from ``jax.random.split(key, n_init)`` (restart ``r`` is the single
run ``fit_kmeans(..., n_init=1, key=jax.random.split(key, n_init)[r])``), their Lloyd runs
``jax.vmap``-ped (one compiled program), the run of lowest inertia kept (the first on ties).

Programs (issue 25): :func:`fit_kmeans` compiles one program per *bucket* of ``k``, not per
``k``. The program has :func:`cluster_capacity` centre slots (1..8 share 8, 9..16 share 16,
then steps of 8 up to 64 and of a quarter of the power of two below ``k`` above), of which the
first ``k`` are active (``k`` is a traced operand): the others have infinite distance to every
row, are never seeded, receive no weight and are never relocated, and are sliced off on the
host. Every rule that depends on ``k`` uses the true ``k``: k-means++ draws its seeds only for
the first ``k`` slots, and for ``n_local_trials="auto"`` it draws the bucket's
:math:`2 + \lfloor\ln K_{cap}\rfloor` candidates a step and keeps the best of the first
:math:`2 + \lfloor\ln k\rfloor` (the same rows as a draw of that many); the count of distinct
labels (the warning) runs in the same program. The fit equals the exact-``k`` program's to
the bit (centres, labels, inertia, ``n_iter``; 277 cases compared by the helper who wrote it: iris and breast_cancer in
float32 and float64, duplicated points, sample weights, restarts, every ``init``, empty
clusters relocated, ``k`` up to ``n_samples``), with two exceptions kept on the exact-``k``
program: data whose row tile for the capacity is shorter than for ``k`` (more than
:data:`LLOYD_TILE_BYTES` of rows and distances: the cluster sums would be accumulated over
other blocks of rows, so rounded otherwise), and ``n_local_trials="auto"`` without
``jax_threefry_partitionable`` (a shorter draw is not a prefix of a longer one there). One
sum is not reproduced by construction: the total squared centre shift, compared with
``tol``, adds zeros for the dead slots, which XLA may group otherwise; it can only change the
stopping iteration when the shift equals the tolerance to the last bit (never seen). And with
restarts run together (``n_init > 1``, one vmapped program) in float32, the batched products
over ``K_cap`` centre columns can round otherwise than over ``k``: a user check found 1 fit in
332 whose restarts then reached another local optimum (breast_cancer in float32, ``k = 17``
in 24 slots, ``init="random"``, ``n_init=3``: inertia 6,857,000 against 6,860,060; with the
capacity patched to 17, 18, 20 or 32 the old result), each restart run alone equal to the
old code's. Such a fit is as valid a Lloyd optimum as the other, and deterministic for its
``k``; it is not the exact-``k`` program's to the bit.
:func:`kmeans_elbow` keeps its ``max(n_clusters)`` slots and :func:`kmeans_plusplus` its
``k``.

References
----------
Lloyd, "Least squares quantization in PCM", IEEE Trans. Inf. Theory 28 (1982).
Arthur & Vassilvitskii, "k-means++: the advantages of careful seeding", SODA 2007.
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §14.3.6.
"""

from __future__ import annotations

import math
import warnings
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit, _progress
from jaxclassic import _precision, _sparse, _tiling
from jaxclassic._solver import iterate
from jaxclassic.cluster._api import predict
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_choice,
    check_int,
    check_key,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
    key_from_seed,
    on_host,
    to_device,
)

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "cluster assignments are piecewise constant in the data (Lloyd's iteration moves points"
    " between clusters in jumps)"
)

__all__ = ["KMeansParams", "KMeansElbow", "fit_kmeans", "kmeans_plusplus", "kmeans_elbow",
           "transform", "inertia", "cluster_capacity"]

INIT_METHODS = ("k-means++", "random")


class KMeansParams(NamedTuple):
    """A fitted k-means model.

    Attributes
    ----------
    cluster_centers : (n_clusters, n_features) array
    labels : (n_samples,) int32 array
        Index of the nearest centre of every training row (rows of weight 0 included).
    inertia : scalar array
        :math:`\\sum_i s_i\\lVert x_i - c_{l_i}\\rVert^2`.
    n_iter : int32 scalar
        Lloyd update steps of the kept restart.
    converged : bool scalar
        Whether it stopped on unchanged labels or on the centre-shift tolerance.
    """

    cluster_centers: jax.Array
    labels: jax.Array
    inertia: jax.Array
    n_iter: jax.Array
    converged: jax.Array


class KMeansElbow(NamedTuple):
    """Inertia over a range of ``n_clusters`` (:func:`kmeans_elbow`).

    Attributes
    ----------
    n_clusters : (m,) int32 array
    inertia : (m,) array
    n_iter : (m,) int32 array
    converged : (m,) bool array
    """

    n_clusters: jax.Array
    inertia: jax.Array
    n_iter: jax.Array
    converged: jax.Array


# --------------------------------------------------------------------------- draws
def _draw(key, mass, shape=()):
    """Row indices drawn with probability ``mass / sum(mass)`` by the inverse cumulative mass.

    One uniform number a draw (its value does not depend on ``n``), so rows of mass 0 are
    never drawn and inserting them changes no draw. All-zero mass is the caller's to avoid.
    """
    cumulative = jnp.cumsum(mass)
    u = jax.random.uniform(key, shape, dtype=mass.dtype)
    index = jnp.searchsorted(cumulative, u * cumulative[-1], side="right")
    # rounding can put u * total at the very end: the last row of positive mass then
    last = mass.shape[0] - 1 - jnp.argmax((mass > 0)[::-1])
    return jnp.minimum(index, last).astype(jnp.int32)


def _resolve_trials(n_local_trials, n_clusters: int) -> int:
    if n_local_trials is None:
        return 1
    if n_local_trials == "auto":
        return 2 + int(math.log(n_clusters))
    return check_int(n_local_trials, "n_local_trials", low=1)


def _plusplus(Xc, sw, key, n_active, n_trials=None, *, n_clusters, n_local_trials):
    """k-means++ seeds (centres, row indices) of the first ``n_active`` of ``n_clusters`` slots,
    each the best of the first ``n_trials`` (traced; None: all) of ``n_local_trials`` candidates.

    The candidates are drawn as one ``(n_local_trials,)`` vector of uniform numbers, whose first
    ``t`` entries are the ``(t,)`` vector's (``jax_threefry_partitionable``: each entry's bits
    depend on its index only), so a capacity of candidates draws the same ``t`` rows."""
    n, d = Xc.shape
    use = None if n_trials is None else jnp.arange(n_local_trials) < n_trials
    first = _draw(jax.random.fold_in(key, 0), sw)
    centres = jnp.zeros((n_clusters, d), Xc.dtype).at[0].set(Xc[first])
    indices = jnp.zeros((n_clusters,), jnp.int32).at[0].set(first)
    closest = _tiling.squared_euclidean(Xc, Xc[first][None, :])[:, 0]

    def body(c, state):
        centres, indices, closest = state
        mass = sw * closest
        # every remaining row at distance 0 (fewer distinct points than clusters): by weight
        mass = jnp.where(jnp.sum(mass) > 0, mass, sw)
        candidates = _draw(jax.random.fold_in(key, c), mass, (n_local_trials,))
        to_candidates = jnp.minimum(closest[:, None], _tiling.squared_euclidean(Xc, Xc[candidates]))
        potential = jnp.sum(sw[:, None] * to_candidates, axis=0)
        if use is not None:
            potential = jnp.where(use, potential, jnp.inf)
        best = jnp.argmin(potential)
        take = c < n_active
        centres = centres.at[c].set(jnp.where(take, Xc[candidates[best]], centres[c]))
        indices = indices.at[c].set(jnp.where(take, candidates[best], indices[c]))
        closest = jnp.where(take, to_candidates[:, best], closest)
        return centres, indices, closest

    # the steps of the active slots only (n_active traced: a while loop); the dead slots of a
    # capacity cost no candidate distances (under vmap over k, kmeans_elbow, the largest k)
    n_steps = jnp.minimum(jnp.asarray(n_active, jnp.int32), n_clusters)
    centres, indices, _ = jax.lax.fori_loop(1, n_steps, body, (centres, indices, closest))
    return centres, indices


def _random_seeds(Xc, sw, key, n_active, *, n_clusters):
    """``n_active`` distinct rows drawn with probability proportional to their weight."""
    n, d = Xc.shape

    def body(c, state):
        centres, indices, mass = state
        i = _draw(jax.random.fold_in(key, c), mass)
        take = c < n_active
        centres = centres.at[c].set(jnp.where(take, Xc[i], centres[c]))
        indices = indices.at[c].set(jnp.where(take, i, indices[c]))
        mass = jnp.where(take, mass.at[i].set(0), mass)
        return centres, indices, mass

    init = (jnp.zeros((n_clusters, d), Xc.dtype), jnp.zeros((n_clusters,), jnp.int32), sw)
    centres, indices, _ = jax.lax.fori_loop(0, n_clusters, body, init)
    return centres, indices


# --------------------------------------------------------------------------- Lloyd
def _assign(Xc, centres, active, tile):
    """Nearest active centre of every row and its squared distance, tile by tile (predict)."""

    def block(rows):
        dist = _tiling.squared_euclidean(rows, centres)
        dist = jnp.where(active[None, :], dist, jnp.inf)
        labels = jnp.argmin(dist, axis=1).astype(jnp.int32)
        return labels, jnp.take_along_axis(dist, labels[:, None], axis=1)[:, 0]

    return _tiling.map_row_tiles(block, Xc, tile=tile)


class _Tiles(NamedTuple):
    """The centred rows cut into ``(n_tiles, tile, ...)`` blocks once per fit (zero-weight rows
    pad the last one), so each Lloyd pass streams cache-sized blocks."""

    X: jax.Array          # (n_tiles, tile, d)
    weight: jax.Array     # (n_tiles, tile)
    sq_norm: jax.Array    # (n_tiles, tile): ||x||^2


def _make_tiles(Xc, sw, tile):
    n, d = Xc.shape
    n_tiles = -(-n // tile)
    pad = n_tiles * tile - n
    Xp = jnp.concatenate([Xc, jnp.zeros((pad, d), Xc.dtype)]) if pad else Xc
    swp = jnp.concatenate([sw, jnp.zeros((pad,), sw.dtype)]) if pad else sw
    Xt = Xp.reshape(n_tiles, tile, d)
    return _Tiles(Xt, swp.reshape(n_tiles, tile), jnp.sum(Xt * Xt, axis=2))


def _nearest(x, centres, c_norm):
    r"""A tile's Gram-form distances less :math:`\lVert x\rVert^2` (``c_norm``: the squared norms
    of the centres, inf for inactive ones) and its labels: the one rule of every Lloyd pass."""
    partial_dist = c_norm[None, :] - 2.0 * _precision.matmul(x, centres.T)
    return partial_dist, jnp.argmin(partial_dist, axis=1).astype(jnp.int32)


def _assign_and_sum(tiles: _Tiles, centres, active, with_nearest: bool = True):
    r"""One pass over the row tiles: labels, squared distance to the nearest active centre, and
    the weighted sums and weights of every cluster (segment sums accumulated tile by tile).

    Distances by the Gram form :math:`\lVert x\rVert^2 + \lVert c\rVert^2 - 2x\cdot c` (one
    ``tile × d × k`` product a tile, as :func:`jaxclassic._tiling.squared_euclidean`; the row
    norms are computed once per fit), clamped at 0. ``with_nearest=False``: the distances are
    not formed (None; a Lloyd step needs them only to relocate an empty cluster)."""
    n_clusters, d = centres.shape
    c_norm = jnp.where(active, jnp.sum(centres * centres, axis=1), jnp.inf)

    def body(carry, block):
        sums, weights = carry
        x, w, x_norm = block
        partial_dist, labels = _nearest(x, centres, c_norm)
        sums = sums + jax.ops.segment_sum(w[:, None] * x, labels, num_segments=n_clusters)
        weights = weights + jax.ops.segment_sum(w, labels, num_segments=n_clusters)
        if not with_nearest:
            return (sums, weights), labels
        nearest = jnp.maximum(x_norm + jnp.take_along_axis(partial_dist, labels[:, None], axis=1)[:, 0], 0.0)
        return (sums, weights), (labels, nearest)

    init = (jnp.zeros((n_clusters, d), centres.dtype), jnp.zeros((n_clusters,), centres.dtype))
    (sums, weights), out = jax.lax.scan(body, init, tuple(tiles))
    labels, nearest = out if with_nearest else (out, None)
    return labels.reshape(-1), None if nearest is None else nearest.reshape(-1), sums, weights


def _relocate(Xc, sw, labels, nearest, sums, weights, empty):
    """scikit-learn's relocation: the j-th empty cluster takes the j-th farthest row of
    positive weight (from its own centre), whose weight leaves its old cluster's sums."""
    n_far = min(sums.shape[0], sw.shape[0])  # slots can outnumber the rows (a capacity)
    far_distance = jnp.where(sw > 0, nearest, -jnp.inf)
    _, far = jax.lax.top_k(far_distance, n_far)  # descending; ties: lower index first
    moved = far[jnp.clip(jnp.cumsum(empty) - 1, 0, n_far - 1)]
    # nothing to relocate when every row sits on its centre (scikit-learn's rule)
    movable = empty & (jnp.max(far_distance) > 0)
    w = jnp.where(movable, sw[moved], 0)
    x = Xc[moved]
    sums = sums.at[labels[moved]].add(-w[:, None] * x)
    weights = weights.at[labels[moved]].add(-w)
    sums = jnp.where(movable[:, None], w[:, None] * x, sums)
    weights = jnp.where(movable, w, weights)
    return sums, weights


def _lloyd_step(state, tiles, active, batched):
    """One Lloyd iteration: ``(centres, previous labels) -> (new centres, labels), error``."""
    centres, previous = state
    # the distances are needed only to relocate an empty cluster: unbatched, they are formed
    # only then, by the same pass again (the same values; a step 15% faster without them,
    # 1,000,000 x 16, k = 16)
    labels, nearest, sums, weights = _assign_and_sum(tiles, centres, active, with_nearest=batched)
    Xc = tiles.X.reshape(-1, centres.shape[1])
    sw = tiles.weight.reshape(-1)
    empty = active & (weights == 0)
    if batched:  # under vmap a cond runs both branches anyway
        sums, weights = _relocate(Xc, sw, labels, nearest, sums, weights, empty)
    else:
        def relocate(a):
            nearest = _assign_and_sum(tiles, centres, active)[1]
            return _relocate(Xc, sw, labels, nearest, *a)

        sums, weights = jax.lax.cond(jnp.any(empty), relocate, lambda a: a[:2], (sums, weights, empty))
    safe = jnp.where(weights > 0, weights, 1)
    new = jnp.where((weights > 0)[:, None], sums / safe[:, None], centres)
    shift = jnp.sum(jnp.square(new - centres))
    unchanged = jnp.all((labels == previous) | (sw == 0))
    return (new, labels), jnp.where(unchanged, 0.0, shift).astype(centres.dtype)


def _lloyd(tiles, centres, active, tol, *, max_iter, batched, progress=None):
    """A Lloyd run from ``centres`` in the solver template; final labels and exact inertia.
    ``progress``: each iteration's squared centre shift (:mod:`jaxclassic._progress`)."""
    previous = jnp.full((tiles.weight.size,), -1, jnp.int32)
    step = partial(_lloyd_step, tiles=tiles, active=active, batched=batched)
    result = iterate(step, (centres, previous), max_iter=max_iter, tol=tol, progress=progress)
    centres = result.carry[0]
    labels, inertia = _final_pass(tiles, centres, active)
    return centres, labels, inertia, result.n_iter, result.converged


def _final_pass(tiles: _Tiles, centres, active):
    r"""The final labels (as :func:`_assign_and_sum` gives them) and the exact inertia
    :math:`\sum_i s_i \lVert x_i - c_{l_i}\rVert^2` (differences, not the Gram form), in one
    pass over the tiles (each tile's differences formed in cache, never the whole array)."""
    c_norm = jnp.where(active, jnp.sum(centres * centres, axis=1), jnp.inf)

    def body(total, block):
        x, w, _ = block
        labels = _nearest(x, centres, c_norm)[1]
        return total + jnp.sum(w * jnp.sum(jnp.square(x - centres[labels]), axis=1)), labels

    inertia, labels = jax.lax.scan(body, jnp.zeros((), centres.dtype), tuple(tiles))
    return labels.reshape(-1), inertia


def _fit_core(X, sw, key, init_centres, tol, n_active, n_trials=None, *, n_clusters, init, n_init,
              max_iter, n_local_trials, tile, batched, progress=None):
    """The whole fit on validated input (pure; ``n_active <= n_clusters`` slots are used, and
    k-means++ keeps the best of the first ``n_trials <= n_local_trials`` candidates)."""
    n, d = X.shape
    total = jnp.sum(sw)
    # a product, not a column reduction (XLA:CPU: 3 ms against 40 on 1,000,000 x 16)
    mean = _precision.matmul(sw, X) / total
    Xc = X - mean
    active = jnp.arange(n_clusters) < n_active
    tiles = _make_tiles(Xc, sw, tile)
    # scikit-learn's tolerance: tol x the mean variance of the features (weighted here), the
    # mean of the d variances being the weighted mean squared norm of the centred rows / d
    scaled_tol = tol * jnp.sum(tiles.weight * tiles.sq_norm) / (total * d)

    def one(restart_key):
        if init == "array":
            centres = init_centres - mean
        elif init == "k-means++":
            centres, _ = _plusplus(Xc, sw, restart_key, n_active, n_trials, n_clusters=n_clusters,
                                   n_local_trials=n_local_trials)
        else:
            centres, _ = _random_seeds(Xc, sw, restart_key, n_active, n_clusters=n_clusters)
        centres, labels, inertia, n_iter, converged = _lloyd(
            tiles, centres, active, scaled_tol, max_iter=max_iter, batched=batched or n_init > 1,
            progress=progress)
        return centres, labels[:n], inertia, n_iter, converged

    if n_init == 1:
        runs = jax.tree_util.tree_map(lambda a: a[None], one(key))
    else:
        runs = jax.vmap(one)(jax.random.split(key, n_init))
    best = jnp.argmin(runs[2])
    centres, labels, inertia, n_iter, converged = jax.tree_util.tree_map(lambda a: a[best], runs)
    return KMeansParams(centres + mean, labels, inertia, n_iter, converged)


_STATIC = ("n_clusters", "init", "n_init", "max_iter", "n_local_trials", "tile", "batched", "progress")


def _fit_and_count(X, sw, key, init_centres, tol, n_active, n_trials, **static):
    """:func:`_fit_core` and the number of distinct labels among the rows of positive weight
    (for :func:`fit_kmeans`'s warning), in one program."""
    params = _fit_core(X, sw, key, init_centres, tol, n_active, n_trials, **static)
    present = jax.ops.segment_sum((sw > 0).astype(jnp.int32), params.labels,
                                  num_segments=static["n_clusters"])
    return params, jnp.sum(present > 0)


_fit = _jit.jit(_fit_and_count, static_argnames=_STATIC)


# --------------------------------------------------------------------------- validation
#: bytes of the rows, distances and labels of one Lloyd tile (cache-sized: the whole pass is
#: one stream of such blocks; measured 2-4x faster than whole-array products and scatter)
LLOYD_TILE_BYTES = 1 << 22


def _tile(n_samples: int, n_clusters: int, itemsize: int, batch: int = 1, n_features: int = 0) -> int:
    """Rows per tile: the ``(tile, n_clusters)`` distances (and, for the Lloyd pass, the
    ``(tile, n_features)`` rows) of every vmapped run together within the memory budget, and
    within :data:`LLOYD_TILE_BYTES` for the Lloyd pass."""
    budget = _tiling.MEMORY_BUDGET if not n_features else min(_tiling.MEMORY_BUDGET, LLOYD_TILE_BYTES)
    return _tiling.tile_size(n_samples, (n_clusters + n_features) * itemsize * max(1, batch),
                             budget=budget)


#: the fewest cluster slots a bucketed k-means program is built for
MIN_CLUSTER_CAPACITY = 8


def cluster_capacity(n_clusters: int) -> int:
    r"""The number of centre slots ``K_cap`` that :func:`fit_kmeans` compiles its program for.

    :math:`K_{cap} = \max(8, s\lceil k / s\rceil)` with
    :math:`s = \max(8, 2^{\lfloor \log_2 k\rfloor - 2})`: buckets 1..8, 9..16, 17..24,
    25..32, 33..40, ..., 65..80, ...; four programs per doubling of ``k`` above 32 and at most
    ``k / 4`` dead slots there. The slots past ``k`` are inactive (infinite distance, no
    seed, no weight) and sliced off on the host, so a refit with another ``k`` of the same
    bucket builds no new program. A dead slot costs its column of the ``n × K_cap`` distance
    product (k-means++ runs the steps of the first ``k`` slots only);
    powers of two (as :func:`jaxclassic.ensemble.bagging.estimator_capacity`) would double the
    product's work in the worst case, and steps of 8 at small ``k`` keep an elbow scan over
    ``k = 1..10`` at two programs.

    Examples
    --------
    >>> [cluster_capacity(k) for k in (1, 2, 8, 9, 16, 17, 33, 40, 65, 100, 129)]
    [8, 8, 8, 16, 16, 24, 40, 40, 80, 112, 160]
    """
    k = int(n_clusters)
    step = max(MIN_CLUSTER_CAPACITY, 1 << max(0, k.bit_length() - 3))
    return max(MIN_CLUSTER_CAPACITY, -(-k // step) * step)


def _capacities(n_samples, n_features, itemsize, n_clusters, n_init, n_local_trials):
    """``(slots, candidates, tile)`` of the program that fits ``n_clusters`` (module docstring).

    The bucket's :func:`cluster_capacity`, unless its row tile differs from ``k``'s: the
    cluster sums accumulate tile by tile, and other tiles would round them differently, so
    such fits (more than ``LLOYD_TILE_BYTES`` of rows and distances, ~10^4 rows and more)
    keep the exact-``k`` program. k-means++ draws ``2 + ln K_cap`` candidates for ``"auto"``
    and keeps the best of the first ``2 + ln k`` (the same rows: see :func:`_plusplus`)."""
    trials = _resolve_trials(n_local_trials, n_clusters)
    tile = _tile(n_samples, n_clusters, itemsize, n_init, n_features)
    slots = cluster_capacity(n_clusters)
    if _tile(n_samples, slots, itemsize, n_init, n_features) != tile:
        return n_clusters, trials, tile
    if n_local_trials == "auto" and jax.config.jax_threefry_partitionable:
        # otherwise a (t,) draw is not the prefix of a longer one: one program per t
        return slots, _resolve_trials("auto", slots), tile
    return slots, trials, tile


def _pad_centres(centres, slots):
    """``(k, d)`` initial centres with zero rows up to ``slots`` (inactive), on the host when
    concrete (an eager pad would build a program per ``k``)."""
    if centres is None or centres.shape[0] == slots:
        return centres
    extra = slots - centres.shape[0]
    if is_traced(centres):
        return jnp.concatenate([centres, jnp.zeros((extra, centres.shape[1]), centres.dtype)])
    host = np.asarray(centres)
    return np.concatenate([host, np.zeros((extra, host.shape[1]), host.dtype)])


def _first(params: KMeansParams, n_clusters: int) -> KMeansParams:
    """The first ``n_clusters`` centres of a fit with more slots, sliced on the host when
    concrete and held by the CPU (an eager ``a[:k]`` would build a program per ``k``)."""
    centres = params.cluster_centers
    if centres.shape[0] == n_clusters:
        return params
    host = on_host(centres)
    return params._replace(cluster_centers=centres[:n_clusters] if host is None else to_device(host[:n_clusters]))


def _check_inputs(X, n_clusters, key, sample_weight):
    X = check_array(X, "X")
    n_samples = X.shape[0]
    n_clusters = check_int(n_clusters, "n_clusters", low=1)
    sw = check_sample_weight(sample_weight, n_samples, dtype=X.dtype)
    n_positive = n_samples if is_traced(sw) else int(np.count_nonzero(np.asarray(sw) > 0))
    if n_clusters > n_positive:
        raise ValueError(f"n_clusters={n_clusters} must be <= n_samples={n_positive} "
                         "(the number of rows of positive weight)")
    return X, n_clusters, key_from_seed(0) if key is None else check_key(key), sw


def _check_init(init, n_clusters, n_features, dtype):
    """``(kind, centres or None)`` for ``init``: a method name or a ``(k, d)`` array."""
    if isinstance(init, str):
        return check_choice(init, "init", INIT_METHODS), None
    centres = check_array(init, "init", dtype=dtype)
    if centres.shape != (n_clusters, n_features):
        raise ValueError(f"init must have shape (n_clusters, n_features) = ({n_clusters}, "
                         f"{n_features}), got {tuple(centres.shape)}")
    return "array", centres


# --------------------------------------------------------------------------- public API
def fit_kmeans(X, n_clusters, *, key=None, init="k-means++", n_init=1, max_iter=300, tol=1e-4,
               sample_weight=None, n_local_trials=None, verbose=0) -> KMeansParams:
    r"""Fit k-means by Lloyd's algorithm (module docstring): minimise
    :math:`\sum_i s_i\lVert x_i - c_{l_i}\rVert^2`.

    Parameters
    ----------
    X : (n_samples, n_features) array or scipy.sparse matrix
        Finite (NaN raises). A sparse ``X`` is never densified: its own Lloyd path
        (:mod:`jaxclassic.cluster._kmeans_sparse`; the same fit from the same ``init`` centres).
    n_clusters : int
        ``1 <= n_clusters <=`` the number of rows of positive weight; the program is compiled
        for :func:`cluster_capacity` slots, so every ``k`` of a bucket shares it (module
        docstring).
    key : jax.random key, optional
        Seeds the initialisation: one run uses ``key``; with ``n_init > 1`` restart ``r`` uses
        ``jax.random.split(key, n_init)[r]``. ``None`` (default): ``jax.random.key(0)``, so
        calls without a key are deterministic.
    init : {"k-means++", "random"} or (n_clusters, n_features) array
        Seeding: k-means++ (:func:`kmeans_plusplus`), ``k`` distinct rows drawn by weight, or
        the given centres (then one run: ``n_init > 1`` warns and runs once, as scikit-learn).
    n_init : int
        Restarts (static), vmapped; the lowest inertia is kept.
        ``n_init``'s default differs from the estimator's: :class:`jaxclassic.estimators.KMeans`
        takes scikit-learn's ``"auto"`` (1 run for k-means++ or an array, 10 for ``"random"``);
        the functional fit runs exactly the restarts it is given, 1 unless told (the same as
        ``"auto"`` for the default k-means++ seeding).
    max_iter : int
        Bound on Lloyd iterations (static).
    tol : float
        Tolerance on the total squared centre shift, relative to the mean feature variance
        (scikit-learn's); traced. ``0`` stops only on unchanged labels or at ``max_iter``.
    sample_weight : (n_samples,) array, optional
        Non-negative weights; rows of weight 0 have no influence.
    n_local_trials : None, "auto" or int
        k-means++ candidates per centre: ``None`` one (the textbook's D² sampling), ``"auto"``
        scikit-learn's :math:`2 + \lfloor\ln k\rfloor` (greedy), or an int.
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the Lloyd iterations
        and a line ``[t]\tcenter_shift:<value>`` (the total squared centre shift; 0 once no
        label changes) every ``k`` iterations and after the last, sent from inside the compiled
        loop (:mod:`jaxclassic._progress`; ``n_init > 1`` restarts are one vmap: each iteration
        is reported once).

    Returns
    -------
    KMeansParams
        ``cluster_centers``, ``labels``, ``inertia``, ``n_iter``, ``converged``.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> X = jnp.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    >>> p = fit_kmeans(X, 2, key=jax.random.key(0))
    >>> sorted(p.cluster_centers[:, 0].tolist()), float(p.inertia)
    ([0.0, 10.0], 1.0)

    References
    ----------
    Lloyd (1982); Arthur & Vassilvitskii (2007); ESL §14.3.6.
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, sample_weight = (
        nondifferentiable("fit_kmeans", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, sample_weight))
    if _sparse.is_sparse(X):
        return _fit_sparse(X, n_clusters, key, init, n_init, max_iter, tol, sample_weight, n_local_trials)
    X, n_clusters, key, sw = _check_inputs(X, n_clusters, key, sample_weight)
    n_init = check_int(n_init, "n_init", low=1)
    max_iter = check_int(max_iter, "max_iter", low=1)
    tol = check_scalar(tol, "tol", low=0.0)
    progress = _progress.spec(verbose, "fit_kmeans", ("center_shift",))
    extra = {} if progress is None else {"progress": progress}  # verbose=0: the program without reporting
    kind, centres = _check_init(init, n_clusters, X.shape[1], X.dtype)
    if kind == "array" and n_init > 1:
        warnings.warn(f"Explicit initial centres passed (init array): running once instead of "
                      f"n_init={n_init}", RuntimeWarning, stacklevel=2)
        n_init = 1
    n_trials = _resolve_trials(n_local_trials, n_clusters)
    slots, trials, tile = _capacities(X.shape[0], X.shape[1], X.dtype.itemsize, n_clusters, n_init,
                                      n_local_trials)
    with _progress.reporting(progress, max_iter):
        params, present = _fit(X, sw, key, _pad_centres(centres, slots), as_operand(tol, X.dtype),
                               np.int32(n_clusters), np.int32(n_trials),
                               n_clusters=slots, init=kind, n_init=n_init, max_iter=max_iter,
                               n_local_trials=trials, tile=tile, batched=False, **extra)
    params = _first(params, n_clusters)
    if not is_traced(present):
        present = int(present)
        if present < n_clusters:
            warnings.warn(f"Number of distinct clusters ({present}) found smaller than n_clusters "
                          f"({n_clusters}): duplicate points in X", ConvergenceWarning, stacklevel=2)
    return params


def _fit_sparse(X, n_clusters, key, init, n_init, max_iter, tol, sample_weight, n_local_trials):
    """:func:`fit_kmeans` on a ``scipy.sparse`` X: validated here, fitted by
    :func:`jaxclassic.cluster._kmeans_sparse.fit_kmeans_sparse` (never densified)."""
    from jaxclassic.cluster._kmeans_sparse import fit_kmeans_sparse

    dtype = np.float64 if jax.config.read("jax_enable_x64") else np.float32
    X = _sparse.check_sparse(X, dtype=dtype)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=dtype)
    n_clusters = check_int(n_clusters, "n_clusters", low=1)
    n_positive = int(np.count_nonzero(np.asarray(sw) > 0))
    if n_clusters > n_positive:
        raise ValueError(f"n_clusters={n_clusters} must be <= n_samples={n_positive} "
                         "(the number of rows of positive weight)")
    key = key_from_seed(0) if key is None else check_key(key)
    n_init = check_int(n_init, "n_init", low=1)
    max_iter = check_int(max_iter, "max_iter", low=1)
    tol = check_scalar(tol, "tol", low=0.0)
    kind, centres = _check_init(init, n_clusters, X.shape[1], dtype)
    if kind == "array":
        n_init = 1
    return fit_kmeans_sparse(X, sw, key, kind, centres, tol, n_clusters=n_clusters, n_init=n_init,
                             max_iter=max_iter, n_local_trials=_resolve_trials(n_local_trials, n_clusters))


def kmeans_plusplus(X, n_clusters, *, key=None, sample_weight=None, n_local_trials=None):
    r"""k-means++ seeding: the first centre drawn with probability :math:`s_i / \sum s`, each
    next one with probability :math:`s_i D(x_i)^2 / \sum_j s_j D(x_j)^2`.

    :math:`D(x)` is the distance from ``x`` to its nearest centre chosen so far. With
    ``n_local_trials = t > 1``, ``t`` candidates are drawn that way at each step and the one
    giving the lowest :math:`\sum_i s_i D(x_i)^2` is kept (scikit-learn's greedy variant).

    Parameters
    ----------
    X : (n_samples, n_features) array
    n_clusters : int
        Centres to draw (static), at most the number of rows of positive weight.
    key : jax.random key, optional
        ``None`` (default): ``jax.random.key(0)``.
    sample_weight : (n_samples,) array, optional
        Rows of weight 0 are never drawn.
    n_local_trials : None, "auto" or int
        ``None``: one candidate (the textbook); ``"auto"``: :math:`2 + \lfloor\ln k\rfloor`.

    Returns
    -------
    centers : (n_clusters, n_features) array
        Rows of ``X``.
    indices : (n_clusters,) int32 array
        Their row indices.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> X = jnp.array([[0.0], [0.1], [5.0]])
    >>> centres, idx = kmeans_plusplus(X, 3, key=jax.random.key(0))
    >>> sorted(idx.tolist())
    [0, 1, 2]

    References
    ----------
    Arthur & Vassilvitskii, "k-means++: the advantages of careful seeding", SODA 2007.
    """
    X, n_clusters, key, sw = _check_inputs(X, n_clusters, key, sample_weight)
    trials = _resolve_trials(n_local_trials, n_clusters)
    indices = _plusplus_indices(X, sw, key, n_clusters=n_clusters, n_local_trials=trials)
    return X[indices], indices


@partial(_jit.jit, static_argnames=("n_clusters", "n_local_trials"))
def _plusplus_indices(X, sw, key, *, n_clusters, n_local_trials):
    Xc = X - jnp.sum(sw[:, None] * X, axis=0) / jnp.sum(sw)
    return _plusplus(Xc, sw, key, n_clusters, n_clusters=n_clusters, n_local_trials=n_local_trials)[1]


def kmeans_elbow(X, n_clusters=range(1, 11), *, key=None, init="k-means++", n_init=1, max_iter=300,
                 tol=1e-4, sample_weight=None, n_local_trials=None) -> KMeansElbow:
    r"""Inertia of k-means for every ``k`` in ``n_clusters``, in one compiled call (the elbow plot).

    Every ``k`` is a fit with ``max(n_clusters)`` centre slots of which the first ``k`` are
    used, vmapped over ``k``: one program for the whole range. Row ``j`` equals
    ``fit_kmeans(X, n_clusters[j], key=key, ...)`` (same key, same draws).

    Parameters
    ----------
    X : (n_samples, n_features) array
    n_clusters : sequence of int
        The values of ``k``, each ``>= 1`` and at most the number of rows of positive weight.
    key, init, n_init, max_iter, tol, sample_weight, n_local_trials
        As :func:`fit_kmeans` (``init`` a method name; ``n_local_trials="auto"`` takes
        :math:`2 + \lfloor\ln k\rfloor` of the largest ``k`` for every ``k``).

    Returns
    -------
    KMeansElbow
        ``n_clusters``, ``inertia``, ``n_iter``, ``converged``, one entry per ``k``.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> X = jnp.array([[0.0], [0.2], [5.0], [5.2], [9.0]])
    >>> e = kmeans_elbow(X, [1, 2, 3], key=jax.random.key(0))
    >>> [round(v, 3) for v in e.inertia.tolist()]
    [57.808, 10.18, 0.04]

    References
    ----------
    Thorndike, "Who belongs in the family?", Psychometrika 18 (1953) (the elbow criterion).
    """
    ks = [check_int(k, "n_clusters", low=1) for k in n_clusters]
    if not ks:
        raise ValueError("n_clusters must hold at least one value, got an empty sequence")
    X, k_max, key, sw = _check_inputs(X, max(ks), key, sample_weight)
    n_init = check_int(n_init, "n_init", low=1)
    max_iter = check_int(max_iter, "max_iter", low=1)
    tol = check_scalar(tol, "tol", low=0.0)
    if not isinstance(init, str):
        raise TypeError(f"init must be a method name {list(INIT_METHODS)} for an elbow curve, "
                        f"got {type(init).__name__}")
    kind = check_choice(init, "init", INIT_METHODS)
    trials = _resolve_trials(n_local_trials, k_max)  # "auto": 2 + log of the largest k
    ks_array = jnp.asarray(ks, jnp.int32)
    fits = _elbow(X, sw, key, jnp.asarray(tol, X.dtype), ks_array, n_clusters=k_max, init=kind,
                  n_init=n_init, max_iter=max_iter, n_local_trials=trials,
                  tile=_tile(X.shape[0], k_max, X.dtype.itemsize, n_init * len(ks), X.shape[1]),
                  batched=True)
    return KMeansElbow(ks_array, fits.inertia, fits.n_iter, fits.converged)


@partial(_jit.jit, static_argnames=_STATIC)
def _elbow(X, sw, key, tol, ks, **static):
    return jax.vmap(lambda k: _fit_core(X, sw, key, None, tol, k, **static))(ks)


@predict.register(KMeansParams)
def _predict(params: KMeansParams, X) -> jax.Array:
    """Index of the nearest centre of every row of ``X`` (ties: the lowest index)."""
    centres = params.cluster_centers
    X = check_predict_X(X, centres.dtype, centres.shape[1])
    return _predict_jit(centres, X, tile=_tile(X.shape[0], centres.shape[0], X.dtype.itemsize))


def _centred(centres, X):
    """``(centres, X)`` less the centres' mean: distances unchanged, and the Gram form of
    :func:`jaxclassic._tiling.squared_euclidean` keeps them for data far from the origin (the
    fit centres its rows the same way; uncentred, float32 rows around 1e6 got other labels
    from ``predict`` than from the fit)."""
    centres = centres.astype(X.dtype)
    origin = jnp.mean(centres, axis=0)
    return centres - origin, X - origin


@partial(_jit.jit, static_argnames=("tile",))
def _predict_jit(centres, X, *, tile):
    centres, X = _centred(centres, X)
    active = jnp.ones((centres.shape[0],), bool)
    return _assign(X, centres, active, tile)[0]


def transform(params: KMeansParams, X) -> jax.Array:
    r"""Euclidean distances :math:`\lVert x_i - c_j\rVert` of every row to every centre, (n, k).

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> p = fit_kmeans(jnp.array([[0.0], [2.0]]), 1, key=jax.random.key(0))
    >>> transform(p, jnp.array([[4.0]])).tolist()
    [[3.0]]
    """
    centres = params.cluster_centers
    X = check_predict_X(X, centres.dtype, centres.shape[1])
    return _transform_jit(centres, X, tile=_tile(X.shape[0], centres.shape[0], X.dtype.itemsize))


@partial(_jit.jit, static_argnames=("tile",))
def _transform_jit(centres, X, *, tile):
    centres, X = _centred(centres, X)
    return _tiling.map_row_tiles(lambda rows: _tiling.pairwise_distances(rows, centres), X, tile=tile)


def inertia(params: KMeansParams, X, sample_weight=None) -> jax.Array:
    r"""Inertia of ``X`` under fitted centres: :math:`\sum_i s_i \min_j \lVert x_i - c_j\rVert^2`
    (the nearest centre by :func:`predict`'s rule, the distance by exact differences).

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> p = fit_kmeans(jnp.array([[0.0], [2.0]]), 1, key=jax.random.key(0))
    >>> float(inertia(p, jnp.array([[4.0], [1.0]])))
    9.0
    """
    centres = params.cluster_centers
    X = check_predict_X(X, centres.dtype, centres.shape[1])
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    return _inertia_jit(centres, X, sw, tile=_tile(X.shape[0], centres.shape[0], X.dtype.itemsize))


@partial(_jit.jit, static_argnames=("tile",))
def _inertia_jit(centres, X, sw, *, tile):
    centres, X = _centred(centres, X)
    labels = _assign(X, centres, jnp.ones((centres.shape[0],), bool), tile)[0]
    return jnp.sum(sw * jnp.sum(jnp.square(X - centres[labels]), axis=1))
