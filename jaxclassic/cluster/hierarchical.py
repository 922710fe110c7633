r"""Agglomerative (hierarchical) clustering: SciPy-compatible linkage matrices, and flat cuts.

Start from ``n`` singleton clusters; repeatedly merge the two clusters :math:`a, b` at the
smallest linkage distance :math:`d(a, b)` until one is left. The result is SciPy's linkage
matrix :math:`Z` (``(n - 1, 4)``): row ``i`` merges clusters ``Z[i, 0] < Z[i, 1]`` at height
``Z[i, 2]`` into cluster ``n + i`` of ``Z[i, 3]`` points (ids below ``n`` are the rows of
``X``), exactly the layout of :func:`scipy.cluster.hierarchy.linkage`.

Linkages, by the Lance–Williams update of the distance from the merged cluster
:math:`s = a \cup b` to any other cluster :math:`k` (sizes :math:`n_a, n_b, n_k`):

* ``single``: :math:`\min(d_{ak}, d_{bk})`; ``complete``: :math:`\max(d_{ak}, d_{bk})`;
* ``average`` (UPGMA): :math:`(n_a d_{ak} + n_b d_{bk}) / (n_a + n_b)`;
  ``weighted`` (WPGMA): :math:`(d_{ak} + d_{bk}) / 2`;
* ``centroid`` (UPGMC): :math:`\lVert c_s - c_k\rVert`, :math:`c` the cluster means;
* ``median`` (WPGMC): :math:`\lVert m_s - m_k\rVert`, :math:`m_s = (m_a + m_b)/2`;
* ``ward``: :math:`\sqrt{2 n_s n_k / (n_s + n_k)}\,\lVert c_s - c_k\rVert`, the square root of
  twice the increase of the within-cluster sum of squares (SciPy's height).

The last three are computed from the cluster means (or WPGMC's median points) directly,
which is what their Lance–Williams updates evaluate on euclidean distances; they need
``metric="euclidean"``. The first four work on any metric of
:func:`jaxclassic._tiling.pairwise_distances`. The rows are centred on their mean first (every
metric but cosine is translation invariant): the Gram form of the euclidean matrix and the
merged means then keep the distances of data far from the origin (float32 rows around
:math:`10^3` lost them).

Algorithm: the *generic* agglomerative algorithm with a nearest-neighbour list (Müllner 2011,
SciPy's ``fast_linkage``), which merges the globally closest pair at every step and so gives
the primitive algorithm's dendrogram for every linkage, inversions of ``centroid`` / ``median``
included. Every active cluster keeps the index and distance of its nearest other cluster; a
step takes the smallest, merges (the lower slot keeps the new cluster), computes the merged
cluster's distances to every cluster (one row: :math:`O(n)` from the matrix, :math:`O(nd)` from
the means), lowers the neighbour of every cluster that is now nearer to it, and recomputes the
neighbour of the clusters whose neighbour was ``a`` or ``b`` and that are farther from the merged
cluster than they were from it (a row each; never for single linkage). The ``n - 1`` steps are
a ``lax.fori_loop`` on the device (the recomputations an inner ``while_loop``).

Cost and memory, stated:

* ``single``, ``complete``, ``average``, ``weighted``: the full ``n × n`` distance matrix
  (:math:`O(n^2)` memory: 20,000 rows are 3.2 GB in float64, 1.6 GB in float32), refused
  above :data:`MAX_MATRIX_SAMPLES` rows with a ``ValueError``;
* ``ward``, ``centroid``, ``median``: :math:`O(nd)` memory (no matrix), any ``n``.

Time: :math:`O(n)` (matrix) or :math:`O(nd)` (means) per step plus one row per recomputed
neighbour: :math:`O(n^2)` to :math:`O(n^2 d)` in total when few neighbours go stale per step
(the usual case on spread data), :math:`O(n^3)` in the worst case (long single-linkage
chains; single linkage never recomputes). Measured by ``python -m benchmarks.run --only
cluster`` on a shared 2-core CPU, float64: ward 10,000 x 16 in 35 s (SciPy's
nearest-neighbour chain: 14 s; about 5 neighbour rows a merge), average 5,000 x 16 in 5.6 s
(SciPy: 3.4 s); the time grows as about :math:`n^2` from 2,000 rows on.

Ties (equal distances) are broken by slot order and may merge in another order than SciPy;
on data without tied distances the merges, their order and their heights are SciPy's.

References
----------
Müllner, "Modern hierarchical, agglomerative clustering algorithms", arXiv:1109.2378 (2011).
Lance & Williams, "A general theory of classificatory sorting strategies", Comput. J. 9 (1967).
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §14.3.12.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import _jit
from jaxclassic import _tiling
from jaxclassic._deprecation import warn
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import check_array, check_choice, check_int, check_scalar, is_traced

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "the merge order is a discrete choice, piecewise constant in the data"
)

__all__ = ["LINKAGES", "MAX_MATRIX_SAMPLES", "AgglomerativeParams", "fit_agglomerative", "cut_tree",
           "maxdists"]

LINKAGES = ("single", "complete", "average", "weighted", "centroid", "median", "ward")
#: linkages computed from the cluster means (or median points): O(n d) memory, euclidean only
MEAN_LINKAGES = ("centroid", "median", "ward")
#: the most rows the distance-matrix linkages accept (the n x n matrix: 3.2 GB in float64)
MAX_MATRIX_SAMPLES = 20_000


class AgglomerativeParams(NamedTuple):
    """A fitted agglomerative clustering (:func:`fit_agglomerative`): the whole tree and its cut.

    Attributes
    ----------
    linkage_matrix : (n_samples - 1, 4) array
        SciPy's linkage matrix :math:`Z` (module docstring): ``[id_1, id_2, height, size]`` per
        merge; :func:`cut_tree` cuts it anew, ``jaxclassic.plot.dendrogram`` draws it.
    labels : (n_samples,) int32 array
        The flat clusters of the cut, numbered by their first row.
    n_clusters : int32 scalar
        Clusters of the cut (``n_clusters``, or the count a ``distance_threshold`` leaves).

    ``children`` (``(n_samples - 1, 2)`` int32) and ``distances`` (``(n_samples - 1,)``, the
    merge heights) are read-only views of ``linkage_matrix``, named as scikit-learn's
    ``children_`` and ``distances_``.
    """

    linkage_matrix: jax.Array
    labels: jax.Array
    n_clusters: jax.Array

    @property
    def children(self) -> jax.Array:
        """``(n_samples - 1, 2)`` int32: the two clusters each merge joins (SciPy's ids)."""
        return self.linkage_matrix[:, :2].astype(jnp.int32)

    @property
    def distances(self) -> jax.Array:
        """``(n_samples - 1,)``: the height of each merge."""
        return self.linkage_matrix[:, 2]


# --------------------------------------------------------------------------- the two backends
def _matrix_start(X, metric, p):
    """The distance matrix (diagonal ``inf``), built by row tiles under the memory budget."""
    n, d = X.shape
    per_row = n * X.dtype.itemsize * (1 if metric in ("euclidean", "sqeuclidean", "cosine") else d)
    D = _tiling.map_row_tiles(lambda rows: _tiling.pairwise_distances(rows, X, metric, p=p), X,
                              tile=_tiling.tile_size(n, per_row))
    return D.at[jnp.arange(n), jnp.arange(n)].set(jnp.inf)


def _matrix_row(D, size, k, linkage):
    return D[k]


def _matrix_merge(D, size, a, b, h, s, linkage):
    """Lance–Williams: distances of the merged cluster (stored in slot ``s``) to every slot."""
    da, db = D[a], D[b]
    na, nb = size[a], size[b]
    if linkage == "single":
        new = jnp.minimum(da, db)
    elif linkage == "complete":
        new = jnp.maximum(da, db)
    elif linkage == "average":
        new = (na * da + nb * db) / (na + nb)
    else:  # weighted
        new = 0.5 * (da + db)
    new = new.at[s].set(jnp.inf)
    return D.at[s].set(new).at[:, s].set(new), new


def _mean_row(C, size, k, linkage):
    """*Squared* distances of cluster ``k`` to every slot, from the means (exact differences;
    the engine compares squares and takes one root per merge)."""
    dist = jnp.sum(jnp.square(C - C[k]), axis=1)
    if linkage == "ward":
        total = size[k] + size
        dist = dist * (2.0 * size[k] * size / jnp.where(total > 0, total, 1))
    return dist


def _mean_merge(C, size, a, b, h, s, linkage):
    na, nb = size[a], size[b]
    if linkage == "median":
        merged = 0.5 * (C[a] + C[b])
    else:
        merged = (na * C[a] + nb * C[b]) / (na + nb)
    C = C.at[s].set(merged)
    return C, _mean_row(C, size.at[s].set(na + nb), s, linkage)


def _mean_start(X):
    """Every point's nearest other point and its *squared* distance (exact differences), by
    row tiles."""
    n, d = X.shape
    tile = _tiling.tile_size(n, n * d * X.dtype.itemsize)

    def block(index):
        rows = X[index[:, 0]]
        dist = jnp.sum(jnp.square(rows[:, None, :] - X[None, :, :]), axis=2)
        dist = jnp.where(index == jnp.arange(n)[None, :], jnp.inf, dist)
        nearest = jnp.argmin(dist, axis=1).astype(jnp.int32)
        return nearest, jnp.take_along_axis(dist, nearest[:, None], axis=1)[:, 0]

    return _tiling.map_row_tiles(block, jnp.arange(n, dtype=jnp.int32)[:, None], tile=tile)


# --------------------------------------------------------------------------- the engine
@partial(_jit.jit, static_argnames=("linkage", "metric"))
def _linkage(X, p, *, linkage, metric):
    n = X.shape[0]
    if metric != "cosine":
        # every metric but cosine is translation invariant: centre, so that the Gram form of the
        # euclidean matrix (and the merged means) do not lose the distances to the offset
        X = X - jnp.mean(X, axis=0)
    dtype = X.dtype
    slots = jnp.arange(n, dtype=jnp.int32)
    squared = linkage in MEAN_LINKAGES
    if squared:
        state = X
        row_fn, merge_fn = _mean_row, _mean_merge
        nn, nn_dist = _mean_start(X)
    else:
        state = _matrix_start(X, metric, p)
        row_fn, merge_fn = _matrix_row, _matrix_merge
        nn = jnp.argmin(state, axis=1).astype(jnp.int32)
        nn_dist = jnp.min(state, axis=1)
    row_fn = partial(row_fn, linkage=linkage)
    merge_fn = partial(merge_fn, linkage=linkage)

    def step(i, carry):
        state, size, ids, active, nn, nn_dist, Z = carry
        a = jnp.argmin(nn_dist).astype(jnp.int32)
        b = nn[a]
        height = jnp.sqrt(nn_dist[a]) if squared else nn_dist[a]
        s, t = jnp.minimum(a, b), jnp.maximum(a, b)
        ia, ib = ids[a], ids[b]
        merged_size = size[a] + size[b]
        Z = Z.at[i].set(jnp.stack([jnp.minimum(ia, ib).astype(dtype), jnp.maximum(ia, ib).astype(dtype),
                                   height, merged_size]))
        state, new = merge_fn(state, size, a, b, height, s)
        size = size.at[s].set(merged_size).at[t].set(0)
        ids = ids.at[s].set(n + i)
        active = active.at[t].set(False)
        others = active & (slots != s)
        new = jnp.where(others, new, jnp.inf)
        stale = others & ((nn == a) | (nn == b))
        # a cluster whose neighbour was a or b, no farther from the merged one than from it,
        # has the merged one as neighbour (every other distance is at least its old minimum):
        # no recomputation (single linkage never recomputes)
        nearer = others & ((new < nn_dist) | (stale & (new <= nn_dist)))
        stale = stale & ~nearer
        nn = jnp.where(nearer, s, nn)
        nn_dist = jnp.where(nearer, new, nn_dist)
        nn = nn.at[s].set(jnp.argmin(new).astype(jnp.int32))
        nn_dist = nn_dist.at[s].set(jnp.min(new)).at[t].set(jnp.inf)

        def recompute(c):
            stale, nn, nn_dist = c
            k = jnp.argmax(stale).astype(jnp.int32)
            row = jnp.where(active & (slots != k), row_fn(state, size, k), jnp.inf)
            j = jnp.argmin(row).astype(jnp.int32)
            return stale.at[k].set(False), nn.at[k].set(j), nn_dist.at[k].set(row[j])

        _, nn, nn_dist = jax.lax.while_loop(lambda c: jnp.any(c[0]), recompute, (stale, nn, nn_dist))
        return state, size, ids, active, nn, nn_dist, Z

    carry = (state, jnp.ones((n,), dtype), slots, jnp.ones((n,), bool), nn, nn_dist,
             jnp.zeros((n - 1, 4), dtype))
    return jax.lax.fori_loop(0, n - 1, step, carry)[-1]


def _linkage_matrix(X, linkage, metric, p, name, n_clusters=None):
    """The checked linkage matrix of ``X`` (the work of :func:`fit_agglomerative`); every
    check, ``n_clusters <= n_samples`` included, before anything compiles."""
    if is_traced(X):  # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
        X = nondifferentiable(name, X, reason=_NO_DERIVATIVE)
    X = check_array(X, "X", min_samples=2)
    linkage = check_choice(linkage, "linkage", LINKAGES)
    metric = check_choice(metric, "metric", _tiling.METRICS)
    check_scalar(p, "p", low=1.0)
    n = X.shape[0]
    if linkage in MEAN_LINKAGES:
        if metric != "euclidean":
            raise ValueError(f"linkage={linkage!r} is defined for metric='euclidean' only, got "
                             f"metric={metric!r}")
    elif n > MAX_MATRIX_SAMPLES:
        raise ValueError(
            f"linkage={linkage!r} keeps the n x n distance matrix ({n} x {n} x "
            f"{X.dtype.itemsize} bytes); X has {n} rows, more than MAX_MATRIX_SAMPLES="
            f"{MAX_MATRIX_SAMPLES}. Use linkage='ward', 'centroid' or 'median' (O(n d) memory), "
            "or raise jaxclassic.cluster.hierarchical.MAX_MATRIX_SAMPLES knowingly")
    if n_clusters is not None and not is_traced(n_clusters) and n_clusters > n:
        raise ValueError(f"n_clusters must be <= n_samples={n}, got n_clusters={n_clusters}")
    return _linkage(X, jnp.asarray(p, X.dtype), linkage=linkage, metric=metric)


def fit_agglomerative(X, *, n_clusters=2, linkage="ward", metric="euclidean",
                      distance_threshold=None, p=2.0) -> AgglomerativeParams:
    r"""Agglomerative clustering of the rows of ``X``: SciPy's linkage matrix (module docstring)
    and its flat cut, as scikit-learn's ``AgglomerativeClustering``.

    The tree merges the two closest clusters :math:`a, b` (smallest linkage distance
    :math:`d(a, b)`, by the Lance--Williams updates of the module docstring) until one is
    left. The cut undoes the last ``n_clusters - 1`` merges (scikit-learn's rule: exactly
    ``n_clusters`` clusters, even where merge heights tie at the cut); with
    ``distance_threshold=t`` it keeps the merges of height below :math:`t`, i.e.
    ``n_clusters = #{merges of height >= t} + 1``. The defaults are those of
    :class:`jaxclassic.estimators.AgglomerativeClustering` (``n_clusters=2``, ``ward``).

    Parameters
    ----------
    X : (n_samples, n_features) array
        At least 2 rows, finite.
    n_clusters : int or None
        Clusters of the cut, ``1 <= n_clusters <= n_samples``; ``None`` with
        ``distance_threshold`` (exactly one of the two is ``None``).
    linkage : {"ward", "single", "complete", "average", "weighted", "centroid", "median"}
        The cluster distance (SciPy's ``method``).
    metric : str
        A metric of :func:`jaxclassic._tiling.pairwise_distances` (``"euclidean"``,
        ``"manhattan"`` = SciPy's ``"cityblock"``, ``"cosine"``, ``"chebyshev"``,
        ``"minkowski"``, ``"sqeuclidean"``); ``"euclidean"`` only for centroid, median, ward.
    distance_threshold : float or None
        ``>= 0``: cut at this height instead of at ``n_clusters`` (then ``n_clusters=None``).
    p : float
        Minkowski order.

    Returns
    -------
    AgglomerativeParams
        ``linkage_matrix`` (``(n_samples - 1, 4)``, ``[id_1, id_2, height, size]`` per merge,
        ``id_1 < id_2``; cluster ``n + i`` is formed by row ``i``), ``labels``, ``n_clusters``.

    Raises
    ------
    ValueError
        Fewer than 2 rows, an unknown linkage or metric, a non-euclidean metric with a
        centroid / median / ward linkage, more than :data:`MAX_MATRIX_SAMPLES` rows for a
        distance-matrix linkage, not exactly one of ``n_clusters`` and ``distance_threshold``,
        ``n_clusters`` above the number of rows, a negative ``distance_threshold``.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[0.0], [1.0], [5.0], [7.0]])
    >>> fit = fit_agglomerative(X, linkage="single")
    >>> fit.linkage_matrix.tolist()
    [[0.0, 1.0, 1.0, 2.0], [2.0, 3.0, 2.0, 2.0], [4.0, 5.0, 4.0, 4.0]]
    >>> fit.labels.tolist(), int(fit.n_clusters)
    ([0, 0, 1, 1], 2)

    References
    ----------
    Müllner (2011), arXiv:1109.2378; Lance & Williams (1967); ESL §14.3.12.
    """
    if (n_clusters is None) == (distance_threshold is None):
        raise ValueError("exactly one of n_clusters and distance_threshold must be None, got "
                         + ("both None" if n_clusters is None else
                            f"n_clusters={n_clusters!r} and distance_threshold={distance_threshold!r}"))
    if n_clusters is not None and not is_traced(n_clusters):
        n_clusters = check_int(n_clusters, "n_clusters", low=1)
    if distance_threshold is not None:
        check_scalar(distance_threshold, "distance_threshold", low=0.0)
    Z = _linkage_matrix(X, linkage, metric, p, "fit_agglomerative", n_clusters)
    if distance_threshold is None:
        count = jnp.asarray(n_clusters, jnp.int32)
    else:
        count = _count_above(Z, jnp.asarray(distance_threshold, Z.dtype))
    labels = _cut(Z, count, jnp.asarray(0, Z.dtype), by_count=True, by_merge=True)
    return AgglomerativeParams(Z, labels, count)


@_jit.jit
def _count_above(Z, threshold):
    """Clusters left by keeping the merges below ``threshold`` (scikit-learn's rule)."""
    return (jnp.sum(Z[:, 2] >= threshold) + 1).astype(jnp.int32)


def agglomerative(X, *, linkage="single", metric="euclidean", p=2.0) -> jax.Array:
    """Deprecated: :func:`fit_agglomerative` (removed in jaxclassic 0.3.0).

    SciPy's linkage matrix of ``X``, ``fit_agglomerative(X, linkage=linkage, metric=metric,
    p=p).linkage_matrix``, with this function's old default ``linkage="single"`` (SciPy's;
    ``fit_agglomerative`` defaults to ``"ward"``, as ``AgglomerativeClustering``).
    """
    warn("jaxclassic.cluster.agglomerative", "jaxclassic.cluster.fit_agglomerative (whose "
         "default linkage is 'ward'; read .linkage_matrix)")
    return _linkage_matrix(X, linkage, metric, p, "agglomerative")


# --------------------------------------------------------------------------- flat cuts
def _check_linkage_matrix(Z):
    if isinstance(Z, AgglomerativeParams):
        Z = Z.linkage_matrix
    Z = check_array(Z, "Z")
    if Z.shape[1] != 4:
        raise ValueError(f"Z must have 4 columns (a linkage matrix), got shape {tuple(Z.shape)}")
    return Z


def maxdists(Z) -> jax.Array:
    """The largest merge height in the subtree of every merge (SciPy's ``maxdists``), ``(n-1,)``.

    Equals ``Z[:, 2]`` for a monotone linkage; differs where ``centroid`` / ``median`` invert.
    """
    Z = _check_linkage_matrix(Z)
    return _maxdists(Z)


@_jit.jit
def _maxdists(Z):
    m = Z.shape[0]
    n = m + 1
    children = Z[:, :2].astype(jnp.int32)

    def body(i, md):
        below = jnp.where(children[i] >= n, md[jnp.maximum(children[i] - n, 0)], -jnp.inf)
        return md.at[i].set(jnp.maximum(Z[i, 2], jnp.max(below)))

    return jax.lax.fori_loop(0, m, body, jnp.full((m,), -jnp.inf, Z.dtype))


def cut_tree(Z, *, n_clusters=None, distance=None, rule="height") -> jax.Array:
    r"""Flat clusters from a linkage matrix: SciPy's ``fcluster`` with ``"maxclust"`` or
    ``"distance"``, labels ``0..k-1`` numbered in order of their first row.

    The cut applies every merge whose subtree's largest height (:func:`maxdists`) is at most a
    threshold :math:`r`: ``distance=t`` takes :math:`r = t`; ``n_clusters=k`` takes the smallest
    :math:`r` leaving at most ``k`` clusters (the ``(n-k)``-th smallest of the maxdists). With
    tied heights at the cut, fewer than ``k`` clusters can remain, as in SciPy. With
    ``rule="merge"``, ``n_clusters=k`` applies the first ``n - k`` merges of ``Z`` (undoes the
    last ``k - 1``) instead: exactly ``k`` clusters, ties or not (SciPy's ``cut_tree`` and
    scikit-learn's ``AgglomerativeClustering``).

    Parameters
    ----------
    Z : (n - 1, 4) array or AgglomerativeParams
        A linkage matrix (:func:`fit_agglomerative`'s ``linkage_matrix``, or SciPy's), or the
        params of :func:`fit_agglomerative`.
    n_clusters : int, optional
        ``1 <= n_clusters <= n``.
    distance : float, optional
        Cophenetic distance threshold (``>= 0``). Exactly one of the two.
    rule : {"height", "merge"}
        How ``n_clusters`` cuts: by a height threshold (``fcluster``'s ``"maxclust"``) or by
        merge order (exactly ``n_clusters`` clusters).

    Returns
    -------
    (n,) int32 array

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> Z = fit_agglomerative(jnp.array([[0.0], [1.0], [5.0], [7.0]]), linkage="single").linkage_matrix
    >>> cut_tree(Z, n_clusters=2).tolist(), cut_tree(Z, distance=1.5).tolist()
    ([0, 0, 1, 1], [0, 0, 1, 2])
    >>> Z = fit_agglomerative(jnp.array([[0.0], [1.0], [2.0], [3.0]]), linkage="single").linkage_matrix  # ties
    >>> cut_tree(Z, n_clusters=2).tolist(), cut_tree(Z, n_clusters=2, rule="merge").tolist()
    ([0, 0, 0, 0], [0, 0, 0, 1])

    References
    ----------
    SciPy, ``scipy.cluster.hierarchy.fcluster``.
    """
    if (n_clusters is None) == (distance is None):
        raise ValueError("exactly one of n_clusters and distance must be given, got "
                         + ("both" if n_clusters is not None else "neither"))
    rule = check_choice(rule, "rule", ("height", "merge"))
    Z = _check_linkage_matrix(Z)
    n = Z.shape[0] + 1
    if n_clusters is not None:
        if not is_traced(n_clusters):
            n_clusters = check_int(n_clusters, "n_clusters", low=1, high=n)
        return _cut(Z, jnp.asarray(n_clusters, jnp.int32), jnp.asarray(0, Z.dtype),
                    by_count=True, by_merge=rule == "merge")
    check_scalar(distance, "distance", low=0.0)
    return _cut(Z, jnp.asarray(n, jnp.int32), jnp.asarray(distance, Z.dtype), by_count=False)


@partial(_jit.jit, static_argnames=("by_count", "by_merge"))
def _cut(Z, n_clusters, distance, *, by_count, by_merge=False):
    m = Z.shape[0]
    n = m + 1
    md = _maxdists(Z)
    if by_merge:
        applied = jnp.arange(m) < n - n_clusters
    elif by_count:
        threshold = jnp.sort(md)[jnp.clip(n - n_clusters - 1, 0, m - 1)]
        applied = (md <= threshold) & (n_clusters < n)
    else:
        applied = md <= distance
    children = Z[:, :2].astype(jnp.int32)

    # from the last merge down: a child of an applied merge belongs to its parent's root
    def body(j, root):
        i = m - 1 - j
        r = root[n + i]
        return jnp.where(applied[i], root.at[children[i]].set(r), root)

    root = jax.lax.fori_loop(0, m, body, jnp.arange(2 * n - 1, dtype=jnp.int32))[:n]
    first = jax.ops.segment_min(jnp.arange(n, dtype=jnp.int32), root, num_segments=2 * n - 1)[root]
    number = jnp.cumsum(first == jnp.arange(n)) - 1
    return number[first].astype(jnp.int32)
