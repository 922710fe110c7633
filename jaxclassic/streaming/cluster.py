r"""k-means and Gaussian mixtures from row blocks: one pass over the data per iteration.

**k-means** (Lloyd): a first pass takes the weighted column mean :math:`\bar x` and variances
(Chan's merge, :mod:`jaxclassic.streaming._blocks`); the rows are centred on :math:`\bar x`
piece by piece as :func:`jaxclassic.cluster.fit_kmeans` centres them, and the tolerance is
``tol`` times the mean feature variance (scikit-learn's). Each iteration is one pass of ONE
jitted per-piece function — nearest centre by the Gram form
:math:`\lVert x\rVert^2 + \lVert c\rVert^2 - 2x\cdot c`, weighted cluster sums and weights by
``segment_sum`` — then :math:`c_j = \sum_{l_i=j}s_ix_i/\sum_{l_i=j}s_i`. Stopping as the
in-memory fit: no label of a positive-weight row changed (the labels of the previous pass
are kept on the host, 4 bytes a row), or the total squared centre shift is at most the
tolerance. A final pass gives the labels and the exact inertia. Seeding: the given centres,
or k-means++ (:func:`jaxclassic.cluster.kmeans_plusplus`) on the first piece's rows.

**GMM** (EM): after the mean pass, the initial responsibilities are the one-hot nearest
``means_init`` (given, or k-means++ on the first piece), and scikit-learn's initial M-step
takes two passes (statistics about the overall mean, then about the new means), as
:func:`jaxclassic.cluster.fit_gmm` does. Each EM iteration is then one pass: per piece the
E-step and the M-step's sufficient statistics :math:`S^0_k = \sum_i s_ir_{ik}`,
:math:`S^1_k = \sum_i s_ir_{ik}(x_i - \mu_k)`, :math:`S^2_k` (about the current means, so the
sums of pieces need no correction) and :math:`\sum_i s_i\log p(x_i)` — the in-memory fit's own
per-tile pass — and the closed-form M-step of the in-memory fit. Stopping when the weighted
mean log-likelihood changes by at most ``tol``.

Both loops are Python loops over passes (each pass reads the data again), not
:func:`jaxclassic._solver.iterate`, whose ``lax.while_loop`` needs the whole data in one
program; they follow its rule (``n_iter``, ``converged``).

Empty clusters are relocated as in the in-memory fit: each piece reports its ``k`` rows of
positive weight farthest from their centres (one ``top_k``), the candidates of all pieces are
merged on the host (by distance, then row index), and the j-th empty cluster takes the j-th
farthest row.

References
----------
Lloyd, IEEE Trans. Inf. Theory 28 (1982); Arthur & Vassilvitskii, SODA 2007;
Dempster, Laird & Rubin, JRSS B 39 (1977); Bishop, *PRML* §9.2.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic.cluster import _gmm_covariance as _cov
from jaxclassic.cluster import _gmm_em as _em
from jaxclassic.cluster.gmm import COVARIANCE_TYPES, PARAMS_TYPES, GMMParams
from jaxclassic.cluster.kmeans import KMeansParams, kmeans_plusplus
from jaxclassic.streaming._blocks import DEFAULT_CHUNK_ROWS, Source, accumulate_moments, bounded
from jaxclassic.validation import (check_array, check_choice, check_int, check_key, check_scalar,
                                   key_from_seed)

__all__ = ["fit_kmeans", "fit_gmm"]


def _mean_pass(source):
    moments = accumulate_moments(source, lambda piece: (piece.X, np.zeros(piece.X.shape[0], np.int32)),
                                 1, False)
    mean = moments.mean[0]
    return mean, moments.scatter[0] / moments.count[0], moments.count[0]


def _check_count(source, count, name):
    """More clusters than the rows of an array source: said before the first pass compiles."""
    n_rows = getattr(source, "n_rows_total", None)
    if n_rows is not None and count > n_rows:
        raise ValueError(f"{name} must be <= the number of rows of X ({n_rows}), got {count}")


def _seeds(source, n_clusters, init, key, dtype, name):
    """The given (k, d) centres, or k-means++ on the first piece's rows."""
    if not isinstance(init, str):
        centres = check_array(init, name, dtype=dtype)
        if centres.shape != (n_clusters, source.n_features):
            raise ValueError(f"{name} must have shape ({n_clusters}, {source.n_features}), "
                             f"got {tuple(centres.shape)}")
        return centres
    check_choice(init, name, ("k-means++",))
    first = next(source.pieces())
    rows = slice(0, first.n_rows)
    if int(np.count_nonzero(first.w[rows] > 0)) < n_clusters:
        count = "n_clusters" if name == "init" else "n_components"
        raise ValueError(f"{count}={n_clusters}: k-means++ seeding uses the first piece of rows, which "
                         f"has fewer than {n_clusters} rows of positive weight: raise chunk_rows, lower "
                         f"{count} or pass {name}")
    centres, _ = kmeans_plusplus(first.X[rows], n_clusters, key=check_key(key),
                                 sample_weight=first.w[rows])
    return centres


# --------------------------------------------------------------------------- k-means
@_jit.jit
def _lloyd_piece(centres, mean, X, w):
    """Labels, weighted cluster sums and weights, the exact inertia of one piece (rows centred
    on ``mean``; ``centres`` centred too), and its candidates for relocation: the rows of
    positive weight farthest from their centre (distance, row, weight, label, index)."""
    n_clusters = centres.shape[0]
    Xc = X - mean
    partial_dist = jnp.sum(centres * centres, axis=1)[None, :] - 2.0 * _precision.matmul(Xc, centres.T)
    labels = jnp.argmin(partial_dist, axis=1).astype(jnp.int32)
    nearest = jnp.maximum(jnp.sum(Xc * Xc, axis=1)
                          + jnp.take_along_axis(partial_dist, labels[:, None], axis=1)[:, 0], 0.0)
    sums = jax.ops.segment_sum(w[:, None] * Xc, labels, num_segments=n_clusters)
    weights = jax.ops.segment_sum(w, labels, num_segments=n_clusters)
    inertia = jnp.sum(w * jnp.sum(jnp.square(Xc - centres[labels]), axis=1))
    far_distance, far = jax.lax.top_k(jnp.where(w > 0, nearest, -jnp.inf), min(n_clusters, X.shape[0]))
    return labels, sums, weights, inertia, (far_distance, Xc[far], w[far], labels[far], far)


def _relocate(sums, weights, empty, candidates):
    """The in-memory fit's relocation (:mod:`jaxclassic.cluster.kmeans`): the j-th empty cluster
    takes the j-th farthest row of positive weight over all pieces (ties: the lower row index),
    whose weight and coordinates leave its old cluster's sums; nothing moves when every row
    sits on its centre."""
    distance, rows, row_weight, label, index = (np.concatenate([np.asarray(c[i]) for c in candidates])
                                                 for i in range(5))
    order = np.lexsort((index, -distance))[: len(empty)]
    distance, rows, row_weight, label = distance[order], rows[order], row_weight[order], label[order]
    empty = np.asarray(empty)
    moved = np.clip(np.cumsum(empty) - 1, 0, len(order) - 1)
    movable = empty & (distance.max() > 0)
    w = np.where(movable, row_weight[moved], 0)
    x = rows[moved]
    sums = jnp.asarray(sums).at[label[moved]].add(-w[:, None] * x)
    weights = jnp.asarray(weights).at[label[moved]].add(-w)
    sums = jnp.where(movable[:, None], w[:, None] * x, sums)
    weights = jnp.where(movable, w, weights)
    return sums, weights


def fit_kmeans(data, n_clusters, *, key=None, init="k-means++", max_iter: int = 300, tol=1e-4,
               sample_weight=None, chunk_rows: int = DEFAULT_CHUNK_ROWS,
               progress: bool = False) -> KMeansParams:
    r"""k-means (Lloyd) from row blocks, one pass per iteration; equal to
    :func:`jaxclassic.cluster.fit_kmeans` from the same starting centres.

    Minimises :math:`\sum_i s_i\lVert x_i - c_{l_i}\rVert^2` (module docstring).

    Parameters
    ----------
    data : (n, d) array or np.memmap, or a callable returning an iterable of ``(X, y, w)``
        blocks (``y`` ignored; a list of blocks works too; a one-shot iterator does not: the
        data are read once per iteration)
    n_clusters : int >= 1
    key : jax.random key, optional
        For k-means++ seeding; ``None`` (default): ``jax.random.key(0)``, so calls without a
        key are deterministic.
    init : "k-means++" or (n_clusters, n_features) array
        k-means++ on the first piece's rows, or the starting centres.
    max_iter : int >= 1
    tol : float >= 0
        On the total squared centre shift, relative to the mean feature variance.
    sample_weight : (n,) array, only with array ``data``; rows of weight 0 have no influence
    chunk_rows : int >= 1
    progress : bool
        A tqdm bar per pass when tqdm is installed.

    Returns
    -------
    KMeansParams
        ``labels`` has one entry per row of the data (including rows of weight 0, excluding
        the padding).

    Example
    -------
    >>> import jax, numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    >>> p = fit_kmeans(X, 2, init=X[[0, 2]], chunk_rows=2)  # doctest: +SKIP
    >>> float(p.inertia)  # doctest: +SKIP
    1.0

    References
    ----------
    Lloyd (1982); Arthur & Vassilvitskii (2007); ESL §14.3.6.
    """
    n_clusters = check_int(n_clusters, "n_clusters", low=1)
    max_iter = check_int(max_iter, "max_iter", low=1)
    check_scalar(tol, "tol", low=0.0)
    source = Source(data, None, sample_weight, chunk_rows=chunk_rows, target="none", passes=2,
                    progress=progress, desc="k-means pass")
    _check_count(source, n_clusters, "n_clusters")
    if isinstance(init, str):  # k-means++ needs the key: said before a pass reads the data
        key = key_from_seed(0) if key is None else check_key(key)
    mean, variance, _ = _mean_pass(source)
    dtype = mean.dtype
    scaled_tol = float(tol) * float(jnp.mean(variance))
    centres = _seeds(source, n_clusters, init, key, dtype, "init") - mean
    previous = None
    n_iter, converged = 0, False
    while n_iter < max_iter and not converged:
        sums, weights, labels, candidates, offset = 0.0, 0.0, [], [], 0
        unchanged = previous is not None
        for index, piece in enumerate(source.pieces()):
            lab, s, wt, _, far = _lloyd_piece(centres, mean, piece.X, piece.w)
            sums, weights = sums + s, weights + wt
            candidates.append(far[:4] + (np.asarray(far[4]) + offset,))
            offset += piece.X.shape[0]
            lab = np.asarray(lab)
            if unchanged:
                keep = piece.w > 0
                unchanged = bool(np.array_equal(lab[keep], previous[index][keep]))
            labels.append(lab)
        empty = np.asarray(weights == 0)
        if empty.any():
            sums, weights = _relocate(sums, weights, empty, candidates)
        new = jnp.where((weights > 0)[:, None], sums / jnp.where(weights > 0, weights, 1)[:, None], centres)
        shift = float(jnp.sum(jnp.square(new - centres)))
        centres, previous = new, labels
        n_iter += 1
        converged = (0.0 if unchanged else shift) <= scaled_tol
    labels, inertia = [], 0.0
    for piece in source.pieces():
        lab, _, _, piece_inertia, _ = _lloyd_piece(centres, mean, piece.X, piece.w)
        labels.append(np.asarray(lab)[:piece.n_rows])
        inertia = inertia + piece_inertia
    return KMeansParams(centres + mean, jnp.asarray(np.concatenate(labels)), inertia,
                        jnp.int32(n_iter), jnp.asarray(converged))


# --------------------------------------------------------------------------- GMM
@partial(_jit.jit, static_argnames=("covariance_type",))
def _initial_piece(X, w, seeds, shift, *, covariance_type):
    """Statistics about ``shift`` of the one-hot nearest-seed responsibilities of one piece."""
    dist = jnp.sum(jnp.square(X[:, None, :] - seeds[None]), axis=2)
    resp = jax.nn.one_hot(jnp.argmin(dist, axis=1), seeds.shape[0], dtype=X.dtype)
    return _em._responsibility_statistics(X[None], w[None], resp[None], shift, covariance_type)


@partial(_jit.jit, static_argnames=("covariance_type",))
def _em_piece(X, w, log_weights, means, prec_chol, *, covariance_type):
    """The in-memory fit's E-step pass on one piece: M-step statistics and sum s_i log p(x_i)."""
    return _em._em_pass(X[None], w[None], log_weights, means, prec_chol, covariance_type)


_m_step = _jit.jit(_cov.m_step, static_argnames=("covariance_type",))


def _sum_pass(source, fn):
    total = None
    for piece in source.pieces():
        out = fn(piece)
        previous, total = total, (out if total is None else jax.tree.map(jnp.add, total, out))
        bounded(previous)  # at most two pieces in flight (_blocks.bounded)
    return total


def fit_gmm(data, n_components, *, key=None, covariance_type: str = "full", max_iter: int = 100,
            tol=1e-3, reg_covar=1e-6, means_init="k-means++", sample_weight=None,
            chunk_rows: int = DEFAULT_CHUNK_ROWS, progress: bool = False) -> GMMParams:
    r"""Gaussian mixture by EM from row blocks, one pass per iteration; equal to
    :func:`jaxclassic.cluster.fit_gmm` started from the same responsibilities.

    Maximises :math:`\sum_i s_i\log\sum_k\pi_k\mathcal N(x_i\mid\mu_k,\Sigma_k)`: E-step
    :math:`r_{ik}\propto\pi_k\mathcal N(x_i\mid\mu_k,\Sigma_k)`, M-step
    :math:`\pi_k = n_k/\sum n`, :math:`\mu_k = \sum_is_ir_{ik}x_i/n_k`,
    :math:`\Sigma_k = \sum_is_ir_{ik}(x_i-\mu_k)(x_i-\mu_k)^\top/n_k + \rho I` (module docstring).

    Parameters
    ----------
    data : as :func:`fit_kmeans`
    n_components : int >= 1
    key : jax.random key, optional
        For k-means++ seeding; ``None`` (default): ``jax.random.key(0)``.
    covariance_type : {"full", "tied", "diag", "spherical"}
    max_iter : int >= 0
    tol : float >= 0
        On the change of the weighted mean log-likelihood.
    reg_covar : float >= 0
    means_init : "k-means++" or (n_components, n_features) array
        The initial responsibilities are one-hot on the nearest of these means (the
        in-memory equivalent: ``fit_gmm(X, K, init=one_hot(nearest mean))``).
    sample_weight, chunk_rows, progress
        As :func:`fit_kmeans`.

    Returns
    -------
    GMMParams
        The subclass for ``covariance_type``, as the in-memory fit.

    Example
    -------
    >>> import numpy as np
    >>> X = np.r_[np.zeros((20, 1)), np.ones((20, 1))] + np.random.default_rng(0).normal(0, .1, (40, 1))
    >>> fit_gmm(X, 2, means_init=np.array([[0.0], [1.0]]), chunk_rows=16).weights.shape  # doctest: +SKIP
    (2,)

    References
    ----------
    Dempster, Laird & Rubin (1977); Bishop, *PRML* §9.2.
    """
    n_components = check_int(n_components, "n_components", low=1)
    covariance_type = check_choice(covariance_type, "covariance_type", COVARIANCE_TYPES)
    max_iter = check_int(max_iter, "max_iter", low=0)
    check_scalar(tol, "tol", low=0.0)
    check_scalar(reg_covar, "reg_covar", low=0.0)
    source = Source(data, None, sample_weight, chunk_rows=chunk_rows, target="none", passes=2,
                    progress=progress, desc="EM pass")
    _check_count(source, n_components, "n_components")
    if isinstance(means_init, str):  # k-means++ needs the key: said before a pass reads the data
        key = key_from_seed(0) if key is None else check_key(key)
    center, _, total_weight = _mean_pass(source)
    dtype = center.dtype
    seeds = _seeds(source, n_components, means_init, key, dtype, "means_init")
    reg_covar = jnp.asarray(reg_covar, dtype)
    shift = jnp.broadcast_to(center, (n_components, center.shape[0]))
    stats = _sum_pass(source, lambda p: _initial_piece(p.X, p.w, seeds, shift,
                                                       covariance_type=covariance_type))
    means = shift + stats.s1 / _cov._pseudo_counts(stats.s0)[:, None]
    stats = _sum_pass(source, lambda p: _initial_piece(p.X, p.w, seeds, means,
                                                       covariance_type=covariance_type))
    weights, means, covariances, prec_chol = _m_step(stats, means, reg_covar,
                                                     covariance_type=covariance_type)
    history = np.full(max(max_iter, 1), -np.inf, dtype)
    bound, n_iter, converged = -np.inf, 0, False
    while n_iter < max_iter and not converged:
        log_weights = jnp.log(weights)
        stats, ll = _sum_pass(source, lambda p: _em_piece(
            p.X, p.w, log_weights, means, prec_chol, covariance_type=covariance_type))
        new_bound = float(ll / total_weight)
        weights, means, covariances, prec_chol = _m_step(stats, means, reg_covar,
                                                         covariance_type=covariance_type)
        change = np.inf if np.isneginf(bound) else abs(new_bound - bound)
        history[n_iter] = new_bound
        bound, n_iter = new_bound, n_iter + 1
        converged = change <= float(tol)
        if not np.isfinite(new_bound):
            break
    return PARAMS_TYPES[covariance_type](weights, means, covariances, prec_chol,
                                         jnp.asarray(converged), jnp.int32(n_iter),
                                         jnp.asarray(bound, dtype), jnp.asarray(history))
