r"""Mini-batch k-means (Sculley 2010), scikit-learn's ``MiniBatchKMeans`` algorithm.

State: centres :math:`c_1..c_k` and the weight each has absorbed so far, :math:`n_j` (scikit-learn's
``_counts``). One step on a batch :math:`B` of rows with weights :math:`s_i`
(:func:`minibatch_kmeans_step`, which is also ``partial_fit``):

* assignment: :math:`l_i = \arg\min_j \lVert x_i - c_j\rVert^2` for :math:`i \in B`;
* update, per centre with batch weight :math:`m_j = \sum_{l_i = j} s_i > 0`:

  .. math::

      c_j \leftarrow \frac{n_j c_j + \sum_{l_i = j} s_i x_i}{n_j + m_j}, \qquad n_j \leftarrow n_j + m_j,

  i.e. each row pulls its centre with the step :math:`1/n_j` (the centre is the running weighted
  mean of all rows ever assigned to it);
* random reassignment (when a centre has weight 0, or every ``10 k`` rows seen): centres with
  :math:`n_j <` ``reassignment_ratio`` :math:`\cdot \max_j n_j` (at most the ``batch_size // 2``
  lightest) move to distinct rows of the batch drawn uniformly, and their :math:`n_j` is reset to
  the smallest :math:`n_j` of the others. scikit-learn's rule; its random draws are not reproduced.

:func:`fit_minibatch_kmeans` runs ``max_iter * n // batch_size`` steps (``n`` the rows of positive
weight) on batches of ``batch_size`` rows drawn **with replacement with probability**
:math:`\propto s_i` and unit weights (as scikit-learn), by the inverse cumulative weight
(:func:`jaxclassic.cluster.kmeans._draw`): rows of weight 0 are never drawn and appending them
changes no draw, so they have no influence. Stopping, scikit-learn's rule, through
:func:`jaxclassic._solver.iterate`: the batch inertia per row is smoothed by an exponentially
weighted average (:math:`\alpha = \min(1, 2b/(n+1))`) from the second step on, and the loop stops
when it has not reached a new minimum for ``max_no_improvement`` steps, or (``tol > 0``) when the
squared centre change of a step is at most ``tol`` times the mean feature variance. Seeding:
k-means++ (scikit-learn's greedy variant) on all rows, or given centres; scikit-learn seeds on a
random subset of ``3 * batch_size`` rows and keeps the best of ``n_init`` seedings.

The final labels and inertia are those of the whole data under the final centres.

References
----------
Sculley, "Web-scale k-means clustering", WWW 2010.
scikit-learn, ``sklearn/cluster/_kmeans.py`` (``_mini_batch_step``, ``_mini_batch_convergence``).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic._solver import iterate
from jaxclassic.cluster import kmeans as _km
from jaxclassic.cluster._api import predict
from jaxclassic.validation import (
    check_array,
    check_int,
    check_key,
    check_sample_weight,
    check_scalar,
    is_traced,
    key_from_seed,
)

__all__ = ["MiniBatchKMeansParams", "fit_minibatch_kmeans", "minibatch_kmeans_step"]


class MiniBatchKMeansParams(NamedTuple):
    """A mini-batch k-means model (and its state for further steps).

    Attributes
    ----------
    cluster_centers : (n_clusters, n_features)
    counts : (n_clusters,)
        Weight absorbed by each centre (scikit-learn's ``_counts``).
    n_iter : int32 ()
        Mini-batch steps so far (scikit-learn's ``n_steps_``; its ``n_iter_`` counts passes).
    n_since_reassign : int32 ()
        Rows seen since the last random reassignment.
    inertia : ()
        :func:`fit_minibatch_kmeans`: of the whole data; :func:`minibatch_kmeans_step`: of the
        batch, before the update.
    converged : bool ()
        The stopping rule was met before the last step (``False`` after a single step).
    """

    cluster_centers: jax.Array
    counts: jax.Array
    n_iter: jax.Array
    n_since_reassign: jax.Array
    inertia: jax.Array
    converged: jax.Array


def _step(centres, counts, n_since, Xb, wb, key, ratio):
    """One scikit-learn ``_mini_batch_step``; returns ``(centres, counts, n_since, batch_inertia)``."""
    n_clusters = centres.shape[0]
    batch = Xb.shape[0]
    # reassign when a centre is empty or every 10 k rows (scikit-learn's _random_reassign)
    n_since = n_since + batch
    reassign = jnp.any(counts == 0) | (n_since >= 10 * n_clusters)
    n_since = jnp.where(reassign, 0, n_since)
    d2 = (jnp.sum(Xb * Xb, axis=1)[:, None] - 2 * Xb @ centres.T + jnp.sum(centres * centres, axis=1)[None, :])
    labels = jnp.argmin(d2, axis=1)
    nearest = jnp.sum(jnp.square(Xb - centres[labels]), axis=1)
    batch_inertia = jnp.sum(wb * nearest)
    sums = jax.ops.segment_sum(wb[:, None] * Xb, labels, num_segments=n_clusters)
    mass = jax.ops.segment_sum(wb, labels, num_segments=n_clusters)
    new_counts = counts + mass
    centres = jnp.where((mass > 0)[:, None],
                        (counts[:, None] * centres + sums) / jnp.where(new_counts > 0, new_counts, 1)[:, None],
                        centres)
    counts = new_counts
    # random reassignment of the light centres
    light = reassign & (ratio > 0) & (counts < ratio * jnp.max(counts))
    cap = int(0.5 * batch)
    rank = jnp.argsort(jnp.argsort(counts))
    light = jnp.where(jnp.sum(light) > 0.5 * batch, light & (rank < cap), light)
    slot = jnp.clip(jnp.cumsum(light) - 1, 0, batch - 1)
    rows = jax.random.permutation(key, batch)[slot]
    centres = jnp.where(light[:, None], Xb[rows], centres)
    floor = jnp.min(jnp.where(light, jnp.inf, counts))
    counts = jnp.where(light & jnp.isfinite(floor), floor, counts)
    return centres, counts, n_since, batch_inertia


@partial(_jit.jit, static_argnames=())
def _step_jit(centres, counts, n_since, n_steps, Xb, wb, key, ratio):
    centres, counts, n_since, batch_inertia = _step(centres, counts, n_since, Xb, wb, key, ratio)
    return MiniBatchKMeansParams(centres, counts, n_steps + 1, n_since, batch_inertia, jnp.asarray(False))


def minibatch_kmeans_step(params: MiniBatchKMeansParams, X, *, sample_weight=None, key=None,
                          reassignment_ratio: float = 0.01) -> MiniBatchKMeansParams:
    r"""One mini-batch step on the batch ``X`` from ``params`` (scikit-learn's ``partial_fit``).

    ``params -> params``, pure and jit-compiled once per batch shape; start from
    ``init_minibatch_kmeans``-style params: centres and zero ``counts`` (module docstring).
    ``inertia`` is the batch's under the centres before the step. Random reassignment draws from
    ``key`` (default: ``jax.random.key(0)`` folded with ``params.n_iter``).

    Example
    -------
    >>> import jax.numpy as jnp
    >>> p = MiniBatchKMeansParams(jnp.array([[0.0], [4.0]]), jnp.zeros(2), jnp.int32(0), jnp.int32(0),
    ...                           jnp.zeros(()), jnp.asarray(False))
    >>> p = minibatch_kmeans_step(p, jnp.array([[1.0], [3.0], [5.0]]))
    >>> p.cluster_centers.ravel().tolist()
    [1.0, 4.0]
    """
    centres = jnp.asarray(params.cluster_centers)
    X = check_array(X, "X", dtype=centres.dtype)
    if X.shape[1] != centres.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features, but the centres have {centres.shape[1]}")
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    check_scalar(reassignment_ratio, "reassignment_ratio", low=0.0)
    n_steps = jnp.asarray(params.n_iter, jnp.int32)
    key = jax.random.fold_in(key_from_seed(0) if key is None else check_key(key), n_steps)
    return _step_jit(centres, jnp.asarray(params.counts, X.dtype), jnp.asarray(params.n_since_reassign, jnp.int32),
                     n_steps, X, sw, key, jnp.asarray(reassignment_ratio, X.dtype))


_STATIC = ("batch_size", "max_no_improvement")


@partial(_jit.jit, static_argnames=_STATIC)
def _fit(X, sw, centres, key, ratio, tol, n_positive, n_steps, *, batch_size, max_no_improvement):
    dtype = X.dtype
    n_clusters = centres.shape[0]
    mean = jnp.sum(sw[:, None] * X, axis=0) / jnp.sum(sw)
    # scikit-learn's _tolerance: tol times the mean (weighted) feature variance
    tol_abs = tol * jnp.mean(jnp.sum(sw[:, None] * jnp.square(X - mean), axis=0) / jnp.sum(sw))
    ewa_alpha = jnp.minimum(2.0 * batch_size / (n_positive + 1.0), 1.0).astype(dtype)
    draw_key, reassign_key = jax.random.split(key)

    def step(carry):
        centres, counts, n_since, index, ewa, ewa_min, stalled = carry
        rows = _km._draw(jax.random.fold_in(draw_key, index), sw, (batch_size,))
        Xb = X[rows]
        new, counts, n_since, batch_inertia = _step(centres, counts, n_since, Xb, jnp.ones(batch_size, dtype),
                                                    jax.random.fold_in(reassign_key, index), ratio)
        shift = jnp.sum(jnp.square(new - centres))
        per_row = batch_inertia / batch_size
        first = index == 0
        smoothed = ewa * (1 - ewa_alpha) + per_row * ewa_alpha
        ewa = jnp.where(first, jnp.nan, jnp.where(jnp.isnan(ewa), per_row, smoothed))
        improved = ~(ewa >= ewa_min)  # the first smoothed value is a new minimum
        stalled = jnp.where(first, 0, jnp.where(improved, 0, stalled + 1))
        ewa_min = jnp.where(first, jnp.inf, jnp.where(improved, ewa, ewa_min))
        stop = ~first & (((tol > 0) & (shift <= tol_abs)) |
                         ((max_no_improvement > 0) & (stalled >= max_no_improvement)))
        return (new, counts, n_since, index + 1, ewa, ewa_min, stalled), jnp.where(stop, 0.0, 1.0).astype(dtype)

    carry0 = (centres, jnp.zeros(n_clusters, dtype), jnp.int32(0), jnp.int32(0), jnp.asarray(jnp.nan, dtype),
              jnp.asarray(jnp.inf, dtype), jnp.int32(0))
    result = iterate(step, carry0, max_iter=n_steps, tol=0.0, history_size=1)
    centres, counts, n_since, _, _, _, _ = result.carry
    return centres, counts, result.n_iter, n_since, result.converged


def fit_minibatch_kmeans(X, n_clusters, *, key=None, init="k-means++", batch_size: int = 1024,
                         max_iter: int = 100, tol=0.0, max_no_improvement: int | None = 10,
                         reassignment_ratio=0.01, sample_weight=None) -> MiniBatchKMeansParams:
    r"""Mini-batch k-means (module docstring): scikit-learn's ``MiniBatchKMeans.fit``.

    Parameters
    ----------
    X : (n_samples, n_features) array
    n_clusters : int
    key : jax.random key, optional
        Seeding, batch draws and reassignments; default ``jax.random.key(0)``.
    init : "k-means++", "random" or (n_clusters, n_features) array
    batch_size : int >= 1
        Rows a step (static).
    max_iter : int >= 1
        Passes over the data: ``max_iter * n // batch_size`` steps at most (traced: a new
        ``max_iter`` or ``n`` compiles nothing new).
    tol : float >= 0
        Stop when a step moves the centres by at most ``tol`` times the mean feature variance
        (squared); 0 disables (traced).
    max_no_improvement : int >= 0 or None
        Steps without a new minimum of the smoothed batch inertia before stopping; ``None``
        (or 0) disables.
    reassignment_ratio : float >= 0
        (traced).
    sample_weight : (n_samples,) array, optional

    Returns
    -------
    MiniBatchKMeansParams
        ``inertia`` over the whole data (its labels: :func:`jaxclassic.cluster.predict`).

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jnp.concatenate([jnp.zeros((20, 2)), jnp.ones((20, 2)) * 5])
    >>> p = fit_minibatch_kmeans(X, 2, batch_size=8, key=jax.random.key(0))
    >>> sorted(p.cluster_centers[:, 0].round(3).tolist())
    [0.0, 5.0]

    References
    ----------
    Sculley, "Web-scale k-means clustering", WWW 2010.
    """
    X, n_clusters, key, sw = _km._check_inputs(X, n_clusters, key, sample_weight)
    batch_size = check_int(batch_size, "batch_size", low=1)
    max_iter = check_int(max_iter, "max_iter", low=1)
    if max_no_improvement is not None:
        max_no_improvement = check_int(max_no_improvement, "max_no_improvement", low=0)
    check_scalar(tol, "tol", low=0.0)
    check_scalar(reassignment_ratio, "reassignment_ratio", low=0.0)
    kind, centres = _km._check_init(init, n_clusters, X.shape[1], X.dtype)
    seed_key, run_key = jax.random.split(key)
    if kind == "k-means++":
        centres = _km.kmeans_plusplus(X, n_clusters, key=seed_key, sample_weight=sw, n_local_trials="auto")[0]
    elif kind == "random":
        centres = _km._random_seeds(X, sw, seed_key, n_clusters, n_clusters=n_clusters)[0]
    n_positive = X.shape[0] if is_traced(sw) else int(np.count_nonzero(np.asarray(sw) > 0))
    n_steps = max(1, (max_iter * n_positive) // batch_size)
    centres, counts, n_steps_run, n_since, converged = _fit(
        X, sw, centres, run_key, jnp.asarray(reassignment_ratio, X.dtype), jnp.asarray(tol, X.dtype),
        jnp.asarray(n_positive, X.dtype), jnp.int32(n_steps), batch_size=batch_size,
        max_no_improvement=max_no_improvement or 0)
    model = _km.KMeansParams(centres, None, None, None, None)
    return MiniBatchKMeansParams(centres, counts, n_steps_run, n_since, _km.inertia(model, X, sw), converged)


predict.register(MiniBatchKMeansParams, _km._predict)
