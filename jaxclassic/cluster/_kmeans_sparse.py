r"""k-means on a sparse ``X`` (``scipy.sparse`` CSR / CSC), never densified: :func:`fit_kmeans_sparse`.

The rows are held as the row-batched BCOO of :func:`jaxclassic._sparse.to_rows` (values
``data (n, m)`` at columns ``indices (n, m)``, ``m`` the most values in a row). With
:math:`q_i = \lVert x_i\rVert^2` computed once, a Lloyd step is

* distances :math:`q_i - 2 x_i^\top c_j + \lVert c_j\rVert^2` with :math:`x_i^\top c_j =
  \sum_t \mathrm{data}_{it}\, c_{j,\mathrm{indices}_{it}}` (a gather, :math:`O(n m k)`);
* centre sums :math:`\sum_{l_i = j} s_i x_i` by one scatter-add of the stored values into the
  ``(k, d)`` sums (:math:`O(n m)`), weights by ``segment_sum``;

and everything else is :mod:`jaxclassic.cluster.kmeans`'s: the same stopping rule (unchanged
labels, or total squared centre shift at most ``tol`` times the mean weighted feature variance),
the same relocation of empty clusters (the farthest rows, :func:`~jaxclassic.cluster.kmeans._relocate`,
handed the few rows it moves as dense vectors), the same loop (:func:`jaxclassic._solver.iterate`).
Departures from the dense fit: the data are not centred (centring fills a sparse matrix), so
distances round otherwise (the same fit up to round-off on data whose assignments are not
ties); seeding by k-means++ is the same distribution with other draws (the dense fit's k-means++
works on the centred dense rows), so a sparse and a dense fit agree from the same explicit
``init`` centres, which is what the tests compare; the inertia is the Gram form, clipped at 0.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit, _sparse
from jaxclassic._solver import iterate

__all__ = ["fit_kmeans_sparse", "sparse_distances"]


class _DenseRows:
    """``view[rows]``: the given rows of the row-batched values as dense ``(len(rows), d)``."""

    def __init__(self, data, indices, n_features):
        self.data, self.indices, self.n_features = data, indices, n_features

    def __getitem__(self, rows):
        out = jnp.zeros((rows.shape[0], self.n_features), self.data.dtype)
        return out.at[jnp.arange(rows.shape[0])[:, None], self.indices[rows]].add(self.data[rows])


def _distances(data, indices, sq_norm, centres):
    """Squared distances ``(n, k)`` by the Gram form, clipped at 0."""
    dots = jnp.einsum("nm,nmk->nk", data, centres.T[indices])
    return jnp.maximum(sq_norm[:, None] - 2 * dots + jnp.sum(centres * centres, axis=1)[None, :], 0.0)


def _plusplus(data, indices, sq_norm, sw, key, n_features, *, n_clusters, n_local_trials):
    """Greedy k-means++ (scikit-learn's) on the sparse rows; returns the dense seeds (k, d)."""
    from jaxclassic.cluster.kmeans import _draw

    rows = _DenseRows(data, indices, n_features)
    first = _draw(jax.random.fold_in(key, 0), sw)
    centres = jnp.zeros((n_clusters, n_features), data.dtype).at[0].set(rows[first[None]][0])
    closest = _distances(data, indices, sq_norm, centres[:1])[:, 0]

    def body(c, state):
        centres, closest = state
        candidates = _draw(jax.random.fold_in(key, c), sw * closest, (n_local_trials,))
        cand = rows[candidates]
        new = jnp.minimum(closest[:, None], _distances(data, indices, sq_norm, cand))
        best = jnp.argmin(jnp.sum(sw[:, None] * new, axis=0))
        return centres.at[c].set(cand[best]), new[:, best]

    centres, _ = jax.lax.fori_loop(1, n_clusters, body, (centres, closest))
    return centres


@partial(_jit.jit, static_argnames=("n_clusters", "n_features", "init", "n_init", "max_iter", "n_local_trials"))
def _fit(data, indices, sw, key, init_centres, tol, *, n_clusters, n_features, init, n_init, max_iter,
         n_local_trials):
    from jaxclassic.cluster.kmeans import _random_seeds, _relocate

    sq_norm = jnp.sum(data * data, axis=1)
    total = jnp.sum(sw)
    mean = jnp.zeros(n_features, data.dtype).at[indices].add(data * sw[:, None]) / total
    # scikit-learn's tolerance: tol x the mean (weighted) variance of the features
    scaled_tol = tol * (jnp.sum(sw * sq_norm) / total - jnp.sum(mean * mean)) / n_features
    rows = _DenseRows(data, indices, n_features)
    active = jnp.ones(n_clusters, bool)

    def assign(centres):
        d2 = _distances(data, indices, sq_norm, centres)
        labels = jnp.argmin(d2, axis=1).astype(jnp.int32)
        return labels, jnp.take_along_axis(d2, labels[:, None], axis=1)[:, 0]

    def step(state):
        centres, previous = state
        labels, nearest = assign(centres)
        sums = jnp.zeros((n_clusters, n_features), data.dtype).at[labels[:, None], indices].add(
            data * sw[:, None])
        weights = jax.ops.segment_sum(sw, labels, num_segments=n_clusters)
        empty = weights == 0
        sums, weights = jax.lax.cond(
            jnp.any(empty), lambda a: _relocate(rows, sw, labels, nearest, *a), lambda a: a[:2],
            (sums, weights, empty))
        new = jnp.where((weights > 0)[:, None], sums / jnp.where(weights > 0, weights, 1)[:, None], centres)
        shift = jnp.sum(jnp.square(new - centres))
        unchanged = jnp.all((labels == previous) | (sw == 0))
        return (new, labels), jnp.where(unchanged, 0.0, shift).astype(data.dtype)

    def one(restart_key):
        if init == "array":
            centres = init_centres
        elif init == "k-means++":
            centres = _plusplus(data, indices, sq_norm, sw, restart_key, n_features, n_clusters=n_clusters,
                                n_local_trials=n_local_trials)
        else:
            picked = _random_seeds(jnp.zeros((sw.shape[0], 1), data.dtype), sw, restart_key, n_clusters,
                                   n_clusters=n_clusters)[1]
            centres = rows[picked]
        previous = jnp.full(sw.shape, -1, jnp.int32)
        result = iterate(step, (centres, previous), max_iter=max_iter, tol=scaled_tol)
        centres = result.carry[0]
        labels, nearest = assign(centres)
        return centres, labels, jnp.sum(sw * nearest), result.n_iter, result.converged

    runs = jax.vmap(one)(jax.random.split(key, n_init)) if n_init > 1 else \
        jax.tree_util.tree_map(lambda a: a[None], one(key))
    best = jnp.argmin(runs[2])
    return jax.tree_util.tree_map(lambda a: a[best], runs)


def fit_kmeans_sparse(X, sw, key, init_kind, init_centres, tol, *, n_clusters, n_init, max_iter, n_local_trials):
    """The sparse path of :func:`jaxclassic.cluster.fit_kmeans` on validated arguments (module
    docstring); returns ``KMeansParams``."""
    from jaxclassic.cluster.kmeans import KMeansParams

    dtype = np.dtype(sw.dtype)
    rows = _sparse.to_rows(X, dtype=dtype)
    centres = jnp.zeros((n_clusters, X.shape[1]), dtype) if init_centres is None else init_centres
    out = _fit(rows.data, rows.indices[..., 0], sw, key, centres, jnp.asarray(tol, dtype), n_clusters=n_clusters,
               n_features=X.shape[1], init=init_kind, n_init=n_init, max_iter=max_iter,
               n_local_trials=max(1, n_local_trials))
    return KMeansParams(*out)


@_jit.jit
def _distances_jit(data, indices, centres):
    return _distances(data, indices, jnp.sum(data * data, axis=1), centres)


def sparse_distances(centres, X):
    """Squared distances ``(n, k)`` of the rows of a sparse ``X`` to ``centres`` (Gram form,
    clipped at 0), without densifying: the estimators' ``predict``, ``transform`` and ``score``."""
    centres = jnp.asarray(centres)
    rows = _sparse.to_rows(X, dtype=np.dtype(centres.dtype))
    return _distances_jit(rows.data, rows.indices[..., 0], centres)
