r"""Kernel density estimation: log densities by a tiled log-sum-exp, bandwidth by rule or CV.

With training rows :math:`x_j`, weights :math:`s_j \ge 0`, a radial kernel profile
:math:`k(u)` of :math:`u = \lVert x - x_j\rVert / h` and bandwidth :math:`h`,

.. math::

    \hat p(x) = \frac{1}{\sum_j s_j}\,\frac{1}{Z_d(h)} \sum_j s_j\, k\!\left(\frac{\lVert x - x_j\rVert}{h}\right),
    \qquad
    \log \hat p(x) = \operatorname*{logsumexp}_j \big(\log s_j + \log k(u_j)\big)
                     - \log\textstyle\sum_j s_j - \log Z_d(h),

computed in log space (no underflow far from the data) over query × training tiles under the
memory budget (:mod:`jaxclassic._tiling`): the running log-sum-exp of a query tile is merged
block by block of training rows with ``logaddexp``. Squared distances come from one matrix
product per block, after centring on the mean of the positive-weight training rows. A row of
weight 0 contributes :math:`\log 0 = -\infty` to the log-sum-exp, i.e. nothing.

Kernels (scikit-learn's profiles, normalised so that :math:`k(0) = 1`), and their
normalisation :math:`Z_d(h) = h^d \int_{\mathbb R^d} k(\lVert v\rVert)\,dv`, derived in polar
coordinates :math:`\int k(\lVert v\rVert)dv = S_{d-1}\int_0^\infty k(r) r^{d-1}dr` with the unit
ball's volume :math:`V_d = \pi^{d/2}/\Gamma(d/2 + 1)` and its surface :math:`S_{d-1} = d V_d
= 2\pi^{d/2}/\Gamma(d/2)`:

===============  ================================  ==============================================
kernel           :math:`k(u)`                      :math:`Z_d(h) / h^d`
===============  ================================  ==============================================
gaussian         :math:`e^{-u^2/2}`                :math:`(2\pi)^{d/2}`
tophat           :math:`[u < 1]`                   :math:`V_d`
epanechnikov     :math:`(1 - u^2)[u < 1]`          :math:`V_d \cdot 2/(d + 2)`
exponential      :math:`e^{-u}`                    :math:`S_{d-1}\,\Gamma(d)`
linear           :math:`(1 - u)[u < 1]`            :math:`V_d / (d + 1)`
cosine           :math:`\cos(\pi u/2)[u < 1]`      :math:`S_{d-1}\,I_{d-1}`, :math:`I_n = \int_0^1 r^n\cos(\pi r/2)dr`
===============  ================================  ==============================================

These are scikit-learn's ``KernelDensity`` constants, except the cosine kernel in **even**
dimensions: by parts, :math:`I_0 = 2/\pi`, :math:`I_1 = 2/\pi - 4/\pi^2`,
:math:`I_n = 2/\pi - n(n-1)(2/\pi)^2 I_{n-2}`; scikit-learn's recursion ends with
:math:`I_1 = 2/\pi`, so its cosine density integrates to :math:`(4 - 8/\pi)/4 = 0.363` in 2-d
(checked by quadrature; in odd dimensions the two agree). Here :math:`I_{d-1}` is computed by
Gauss-Legendre quadrature in float64 (the recursion cancels catastrophically for large
:math:`d`). Compact kernels give :math:`\log\hat p = -\infty` outside the support, as
scikit-learn.

Bandwidth rules (scikit-learn's, for standardised data: the factor alone, not multiplied by the
data's spread), with :math:`n` the number of positive-weight rows: Scott
:math:`h = n^{-1/(d+4)}`, Silverman :math:`h = (n(d+2)/4)^{-1/(d+4)}`. Or by cross-validated
likelihood (:func:`kde_bandwidth_cv`): the held-out mean log density of a whole grid of
bandwidths and all folds in one program, the distance blocks shared by every bandwidth and fold.

The bandwidth is a traced argument: ``jax.grad`` of a log density (or of the CV likelihood)
with respect to :math:`h` works (for the gaussian kernel
:math:`\partial_h \log\hat p(x) = \sum_j r_j \lVert x - x_j\rVert^2/h^3 - d/h` with
:math:`r_j` the normalised kernel weights, tested).

References
----------
Silverman, *Density Estimation for Statistics and Data Analysis*, Chapman & Hall 1986,
§3.3-3.4 (kernels, rules of thumb), §3.4.3 (likelihood cross-validation).
Scott, *Multivariate Density Estimation*, Wiley 1992, §6.3.
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §6.6.1.
"""

from __future__ import annotations

import dataclasses
import math
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _tiling
from jaxclassic._deprecation import key_moved
from jaxclassic.neighbors.search import fit_center, positive_mean
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_int,
    check_key,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
    key_from_seed,
)

__all__ = [
    "KERNELS",
    "KDEConfig",
    "KDEParams",
    "KDEBandwidthCV",
    "fit_kde",
    "score_samples",
    "log_kernel_norm",
    "kde_bandwidth_cv",
    "sample",
]

#: kernels of :func:`fit_kde` (scikit-learn's names)
KERNELS = ("gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine")
BANDWIDTH_RULES = ("scott", "silverman")
_MIN_QUERY_TILE = 64


@jax.tree_util.register_static
@dataclasses.dataclass(frozen=True)
class KDEConfig:
    """The static setting of a kernel density estimate (tree structure, not a leaf).

    Attributes
    ----------
    kernel : str
        One of :data:`KERNELS`.
    """

    kernel: str


class KDEParams(NamedTuple):
    """A fitted kernel density estimate.

    Attributes
    ----------
    fit_X : (n, d) float
        Training rows.
    sample_weight : (n,) float
        Their weights (weight 0: no influence).
    bandwidth : () float
        :math:`h` (traced: differentiable, vmappable).
    center : (d,) float
        Mean of the positive-weight rows (centring point of the distance products).
    config : KDEConfig
        The kernel (static).
    """

    fit_X: jax.Array
    sample_weight: jax.Array
    bandwidth: jax.Array
    center: jax.Array
    config: KDEConfig


# --------------------------------------------------------------------------- kernels
def _log_unit_ball_volume(d: int) -> float:
    return 0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d + 1)


def _log_unit_sphere_area(d: int) -> float:
    """:math:`\\log S_{d-1}`, the area of the unit sphere in :math:`\\mathbb R^d` (2 for d = 1)."""
    return math.log(2.0) + 0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d)


def _cosine_radial_integral(d: int) -> float:
    """:math:`I_{d-1} = \\int_0^1 r^{d-1}\\cos(\\pi r / 2)\\,dr` by Gauss-Legendre quadrature."""
    nodes, weights = np.polynomial.legendre.leggauss(max(64, d + 64))
    r = 0.5 * (nodes + 1.0)
    return float(0.5 * np.sum(weights * r ** (d - 1) * np.cos(0.5 * np.pi * r)))


def _log_unit_normaliser(d: int, kernel: str) -> float:
    r""":math:`\log \int_{\mathbb R^d} k(\lVert v\rVert)\,dv` (the table of the module docstring)."""
    if kernel == "gaussian":
        return 0.5 * d * math.log(2.0 * math.pi)
    if kernel == "tophat":
        return _log_unit_ball_volume(d)
    if kernel == "epanechnikov":
        return _log_unit_ball_volume(d) + math.log(2.0 / (d + 2.0))
    if kernel == "exponential":
        return _log_unit_sphere_area(d) + math.lgamma(d)
    if kernel == "linear":
        return _log_unit_ball_volume(d) - math.log(d + 1.0)
    if kernel == "cosine":
        return _log_unit_sphere_area(d) + math.log(_cosine_radial_integral(d))
    raise ValueError(f"kernel must be one of {list(KERNELS)}, got {kernel!r}")


def log_kernel_norm(bandwidth, n_features: int, kernel: str):
    r"""Log of the kernel's normalisation :math:`-\log Z_d(h) = -\log\int k(\lVert v\rVert/h)dv`.

    Parameters
    ----------
    bandwidth : float or array
        :math:`h > 0`.
    n_features : int
        Dimension :math:`d`.
    kernel : str
        One of :data:`KERNELS`.

    Returns
    -------
    :math:`-\log\int k - d\log h`, the shape of ``bandwidth``.

    Examples
    --------
    >>> round(float(log_kernel_norm(1.0, 1, "gaussian")), 6)  # -log sqrt(2 pi)
    -0.918939

    References
    ----------
    Silverman (1986), §3.3 (kernels); the table of the module docstring.
    """
    return -_log_unit_normaliser(int(n_features), kernel) - n_features * jnp.log(bandwidth)


def _log_profile(d2, h, kernel: str):
    """:math:`\\log k(\\lVert x - x_j\\rVert / h)` from squared distances ``d2``."""
    if kernel == "gaussian":
        return -0.5 * d2 / (h * h)
    dist = jnp.sqrt(d2)  # the root does not involve h: gradients in h stay finite at d = 0
    u = dist / h
    if kernel == "exponential":
        return -u
    inside = u < 1
    us = jnp.where(inside, u, 0.0)
    if kernel == "tophat":
        value = jnp.zeros_like(us)
    elif kernel == "epanechnikov":
        value = jnp.log1p(-us * us)
    elif kernel == "linear":
        value = jnp.log1p(-us)
    else:  # cosine
        value = jnp.log(jnp.cos(0.5 * jnp.pi * us))
    return jnp.where(inside, value, -jnp.inf)


# --------------------------------------------------------------------------- tiling
def kde_tiles(n_query: int, n_reference: int, itemsize: int, *, batch: int = 1,
              budget: int | None = None) -> tuple[int, int]:
    """``(query_tile, reference_tile)`` for a log-sum-exp over references within the budget.

    A (query, reference) pair costs about ``4 * itemsize`` bytes (squared distance, log kernel,
    shifted exponential), times ``batch`` when bandwidths and folds are batched.
    """
    budget = _tiling.MEMORY_BUDGET if budget is None else int(budget)
    per_pair = 4 * itemsize * max(1, batch)
    query_tile = _tiling.tile_size(n_query, per_pair * n_reference, budget=budget)
    if query_tile >= min(n_query, _MIN_QUERY_TILE):
        return query_tile, n_reference
    query_tile = min(n_query, _MIN_QUERY_TILE)
    reference_tile = max(1, budget // (query_tile * per_pair))
    return query_tile, min(reference_tile, n_reference)


def _tiled_logsumexp(block_fn, Q, Rc, logw, center, query_tile: int, reference_tile: int):
    """``logsumexp`` over the training rows of ``block_fn(d2, logw_tile) -> (..., t)`` for every
    query row; returns ``(n, ...)``. ``logw`` is ``(..., m)`` (leading batch axes allowed)."""
    m = Rc.shape[0]
    if reference_tile >= m:
        def tile(q):
            return jnp.moveaxis(block_fn(_tiling.squared_euclidean(q - center, Rc), logw), -1, 0)
        return _tiling.map_row_tiles(tile, Q, tile=query_tile)
    n_rt = -(-m // reference_tile)
    pad = n_rt * reference_tile - m
    if pad:
        Rc = jnp.concatenate([Rc, jnp.broadcast_to(Rc[:1], (pad,) + Rc.shape[1:])], axis=0)
        logw = jnp.concatenate([logw, jnp.full(logw.shape[:-1] + (pad,), -jnp.inf, logw.dtype)], -1)
    R_tiles = Rc.reshape(n_rt, reference_tile, -1)
    w_tiles = jnp.moveaxis(logw.reshape(logw.shape[:-1] + (n_rt, reference_tile)), -2, 0)

    def tile(q):
        qc = q - center

        def merge(acc, xs):
            r, lw = xs
            return jnp.logaddexp(acc, block_fn(_tiling.squared_euclidean(qc, r), lw)), None

        out = jax.eval_shape(block_fn, jax.ShapeDtypeStruct((q.shape[0], reference_tile), q.dtype),
                             jax.ShapeDtypeStruct(logw.shape[:-1] + (reference_tile,), logw.dtype))
        acc, _ = jax.lax.scan(merge, jnp.full(out.shape, -jnp.inf, out.dtype), (R_tiles, w_tiles))
        return jnp.moveaxis(acc, -1, 0)

    return _tiling.map_row_tiles(tile, Q, tile=query_tile)


# --------------------------------------------------------------------------- fit and score
def _rule_bandwidth(rule: str, n_positive, d: int, dtype):
    n = jnp.asarray(n_positive, dtype)
    if rule == "scott":
        return n ** (-1.0 / (d + 4))
    return (n * (d + 2) / 4.0) ** (-1.0 / (d + 4))


def fit_kde(X: Any, *, kernel: str = "gaussian", bandwidth: float | str | jax.Array = 1.0,
            sample_weight: Any = None) -> KDEParams:
    r"""Fit a kernel density estimate: store the rows, weights, kernel and bandwidth.

    The density (module docstring) is :math:`\hat p(x) = \sum_j s_j k(\lVert x - x_j\rVert/h)
    / (Z_d(h) \sum_j s_j)`; :func:`score_samples` evaluates its log.

    Parameters
    ----------
    X : (n, d) float array
    kernel : {"gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"} (static)
    bandwidth : float > 0 (traced), "scott" or "silverman"
        :math:`h`, or a rule of thumb on the number :math:`n` of positive-weight rows:
        Scott :math:`n^{-1/(d+4)}`, Silverman :math:`(n(d+2)/4)^{-1/(d+4)}` (scikit-learn's
        formulas; meant for standardised columns).
    sample_weight : (n,) array, optional
        Non-negative weights of the training rows; weight 0 removes a row.

    Returns
    -------
    KDEParams

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.neighbors import fit_kde, score_samples
    >>> params = fit_kde(jnp.array([[0.0]]), bandwidth=1.0)
    >>> round(float(score_samples(params, jnp.array([[0.0]]))[0]), 6)  # log N(0; 0, 1)
    -0.918939

    References
    ----------
    Silverman (1986), §3.3-3.4; scikit-learn ``KernelDensity``.
    """
    kernel = check_choice(kernel, "kernel", KERNELS)
    X = check_array(X, "X")
    n, d = X.shape
    sw = check_sample_weight(sample_weight, n, dtype=X.dtype).astype(X.dtype)
    if isinstance(bandwidth, str):
        rule = check_choice(bandwidth, "bandwidth", BANDWIDTH_RULES)
        h = _rule_bandwidth(rule, jnp.sum(sw > 0), d, X.dtype)
    else:
        check_scalar(bandwidth, "bandwidth", low=0.0, include_low=False)
        if not is_traced(bandwidth) and np.ndim(bandwidth) != 0:
            raise ValueError(f"bandwidth must be a scalar, got shape {np.shape(bandwidth)}")
        h = jnp.asarray(bandwidth, X.dtype)
    return KDEParams(X, sw, h, fit_center(X, sw), KDEConfig(kernel))


@partial(_jit.jit, static_argnames=("query_tile", "reference_tile"))
def _score_samples(params: KDEParams, Q, query_tile, reference_tile):
    kernel = params.config.kernel
    h = params.bandwidth.astype(Q.dtype)
    logw = jnp.log(params.sample_weight.astype(Q.dtype))
    center = params.center.astype(Q.dtype)
    Rc = params.fit_X.astype(Q.dtype) - center

    def block(d2, lw):
        return jax.nn.logsumexp(lw[None, :] + _log_profile(d2, h, kernel), axis=1)

    lse = _tiled_logsumexp(block, Q, Rc, logw, center, query_tile, reference_tile)
    return lse - jax.nn.logsumexp(logw) + log_kernel_norm(h, Q.shape[1], kernel)


def score_samples(params: KDEParams, X: Any) -> jax.Array:
    r"""Log density :math:`\log\hat p(x)` of every row of ``X`` under a fitted KDE.

    :math:`\operatorname{logsumexp}_j(\log s_j + \log k(\lVert x - x_j\rVert/h)) - \log\sum_j s_j
    - \log Z_d(h)`, in query × training tiles within the memory budget; ``-inf`` outside the
    support of a compact kernel.

    Parameters
    ----------
    params : KDEParams
    X : (n, d) float array

    Returns
    -------
    (n,) float array

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.neighbors import fit_kde, score_samples
    >>> p = fit_kde(jnp.array([[0.0], [2.0]]), kernel="tophat", bandwidth=1.0)
    >>> [round(v, 6) for v in score_samples(p, jnp.array([[0.5], [5.0]])).tolist()]
    [-1.386294, -inf]

    References
    ----------
    Silverman (1986), §3.3.
    """
    if not isinstance(params, KDEParams):
        raise TypeError(f"params must be KDEParams (from fit_kde), got {type(params).__name__}")
    X = check_predict_X(X, params.fit_X.dtype, params.fit_X.shape[-1])
    qt, rt = kde_tiles(X.shape[0], params.fit_X.shape[-2], jnp.dtype(X.dtype).itemsize)
    return _score_samples(params, X, qt, rt)


# --------------------------------------------------------------------------- bandwidth by CV
class KDEBandwidthCV(NamedTuple):
    """Outcome of :func:`kde_bandwidth_cv`.

    Attributes
    ----------
    bandwidths : (G,) float
    scores : (G, F) float
        Held-out mean log density of every bandwidth (rows) on every fold (columns).
    mean_scores : (G,) float
    std_scores : (G,) float
        ``ddof=0``.
    best_bandwidth : float
        The bandwidth of highest mean score (the first on ties).
    best_score : float
    """

    bandwidths: jax.Array
    scores: jax.Array
    mean_scores: jax.Array
    std_scores: jax.Array
    best_bandwidth: Any
    best_score: Any


@partial(_jit.jit, static_argnames=("kernel", "query_tile", "reference_tile"))
def _cv_program(X, bandwidths, train_w, val_w, center, *, kernel, query_tile, reference_tile):
    logw = jnp.log(train_w)  # (F, m)
    Rc = X - center

    def block(d2, lw):  # (t, r), (F, r) -> (G, F, t)
        def per_bandwidth(h):
            lk = _log_profile(d2, h, kernel)
            return jax.nn.logsumexp(lw[:, None, :] + lk[None, :, :], axis=-1)
        return jax.vmap(per_bandwidth)(bandwidths)

    lse = _tiled_logsumexp(block, X, Rc, logw, center, query_tile, reference_tile)  # (n, G, F)
    log_density = (lse - jax.nn.logsumexp(logw, axis=1)[None, None, :]
                   + log_kernel_norm(bandwidths, X.shape[1], kernel)[None, :, None])
    held_out = val_w.T[:, None, :] > 0  # (n, 1, F)
    total = jnp.sum(jnp.where(held_out, val_w.T[:, None, :] * log_density, 0.0), axis=0)
    return total / jnp.sum(val_w, axis=1)[None, :]  # (G, F)


def _check_bandwidths(bandwidths, dtype) -> jax.Array:
    if is_traced(bandwidths):
        if bandwidths.ndim != 1:
            raise ValueError(f"bandwidths must be 1-d, got shape {bandwidths.shape}")
        return bandwidths.astype(dtype)
    b = check_array(bandwidths, "bandwidths", ndim=(0, 1), dtype=dtype).reshape(-1)
    if (np.asarray(b) <= 0).any():
        raise ValueError(f"bandwidths must be > 0, got {np.asarray(b).tolist()}")
    return b


def kde_bandwidth_cv(X: Any, bandwidths: Any, fold_weights: Any, *, kernel: str = "gaussian",
                     sample_weight: Any = None) -> KDEBandwidthCV:
    r"""Cross-validated log-likelihood of a grid of bandwidths: all bandwidths and folds at once.

    Fold :math:`f` fits on the weights :math:`w_f \odot s` and is scored by the mean log density
    of its held-out rows (training weight 0), weighted by :math:`s`:

    .. math::

        \mathrm{CV}(h)_f = \frac{\sum_i s_i [w_{fi} = 0]\,\log\hat p_{h, f}(x_i)}
                                {\sum_i s_i [w_{fi} = 0]}

    (likelihood cross-validation, Silverman §3.4.3). The squared distances of a tile are
    computed once and shared by every bandwidth and fold (the ``vmap`` over them touches only
    the kernel and the log-sum-exp). Held-out rows outside a compact kernel's support give
    :math:`-\infty` for that bandwidth.

    Parameters
    ----------
    X : (n, d) float array
    bandwidths : (G,) array of floats > 0 (traced: differentiable)
    fold_weights : (F, n) array
        Training weights of the folds (``model_selection.kfold_weights`` and the like).
    kernel : str (static)
    sample_weight : (n,) array, optional

    Returns
    -------
    KDEBandwidthCV

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.neighbors import kde_bandwidth_cv
    >>> X = np.random.default_rng(0).normal(size=(40, 1))
    >>> folds = np.tile(np.arange(40) % 4, (4, 1)) != np.arange(4)[:, None]
    >>> res = kde_bandwidth_cv(X, [0.05, 0.5, 5.0], folds.astype(float))
    >>> float(res.best_bandwidth)
    0.5

    References
    ----------
    Silverman (1986), §3.4.3; Hastie, Tibshirani, Friedman, *ESL* 2nd ed., §7.10.
    """
    from jaxclassic.neighbors.knn import _check_folds  # the one fold check of the family

    kernel = check_choice(kernel, "kernel", KERNELS)
    X = check_array(X, "X")
    n = X.shape[0]
    sw = check_sample_weight(sample_weight, n, dtype=X.dtype).astype(X.dtype)
    b = _check_bandwidths(bandwidths, X.dtype)
    folds = _check_folds(fold_weights, sw, X.dtype)
    train_w = folds * sw[None, :]
    val_w = (folds == 0).astype(X.dtype) * sw[None, :]
    qt, rt = kde_tiles(n, n, X.dtype.itemsize, batch=b.shape[0] * folds.shape[0])
    scores = _cv_program(X, b, train_w, val_w, positive_mean(X, sw > 0), kernel=kernel,
                         query_tile=qt, reference_tile=rt)
    mean = jnp.mean(scores, axis=1)
    best = jnp.argmax(mean)
    return KDEBandwidthCV(b, scores, mean, jnp.std(scores, axis=1), b[best], mean[best])


# --------------------------------------------------------------------------- sampling
@key_moved(1)
def sample(params: KDEParams, n_samples: int = 1, *, key: Any = None) -> jax.Array:
    r"""Draw from a fitted gaussian or tophat KDE: a training row, then a kernel displacement.

    Row :math:`j` with probability :math:`s_j / \sum s`, then :math:`x_j + h z` with
    :math:`z \sim \mathcal N(0, I)` (gaussian) or :math:`z` uniform in the unit ball (tophat:
    a uniform direction times :math:`U^{1/d}`), as scikit-learn's ``KernelDensity.sample``.

    Parameters
    ----------
    params : KDEParams
    n_samples : int (static)
        At least 1; 1 by default, as scikit-learn's ``KernelDensity.sample``.
    key : jax.random key, optional
        ``None`` (default): ``jax.random.key(0)``, so calls without a key are deterministic.
        The old order ``sample(params, key, n_samples)`` still works, with a
        ``DeprecationWarning``, until jaxclassic 0.3.0.

    Returns
    -------
    (n_samples, d) float array

    Raises
    ------
    NotImplementedError
        For kernels other than gaussian and tophat (as scikit-learn).

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> from jaxclassic.neighbors import fit_kde, sample
    >>> params = fit_kde(jnp.array([[0.0, 0.0], [5.0, 5.0]]), kernel="tophat", bandwidth=0.5)
    >>> draws = sample(params, 4, key=jax.random.key(0))
    >>> draws.shape, bool(jnp.all(jnp.minimum(jnp.linalg.norm(draws, axis=1),
    ...                                       jnp.linalg.norm(draws - 5.0, axis=1)) < 0.5))
    ((4, 2), True)

    References
    ----------
    Silverman (1986), §6.4.1 (simulating from a kernel estimate); scikit-learn
    ``KernelDensity.sample``.
    """
    key = key_from_seed(0) if key is None else check_key(key)
    n_samples = check_int(n_samples, "n_samples", low=1)
    kernel = params.config.kernel
    if kernel not in ("gaussian", "tophat"):
        raise NotImplementedError(f"sample is implemented for the gaussian and tophat kernels, "
                                  f"got kernel={kernel!r}")
    return _sample(params, key, n_samples)


@partial(_jit.jit, static_argnames=("n_samples",))
def _sample(params: KDEParams, key, n_samples):
    X = params.fit_X
    k_row, k_dir, k_rad = jax.random.split(key, 3)
    rows = jax.random.categorical(k_row, jnp.log(params.sample_weight), shape=(n_samples,))
    z = jax.random.normal(k_dir, (n_samples, X.shape[1]), X.dtype)
    if params.config.kernel == "tophat":
        radius = jax.random.uniform(k_rad, (n_samples, 1), X.dtype) ** (1.0 / X.shape[1])
        z = radius * z / jnp.linalg.norm(z, axis=1, keepdims=True)
    return X[rows] + params.bandwidth.astype(X.dtype) * z
