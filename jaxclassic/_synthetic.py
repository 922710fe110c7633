"""Keyed synthetic data generators in pure JAX (re-exported by :mod:`jaxclassic.datasets`).

Every generator takes a keyword-only ``jax.random`` key (``key=None``: the fixed default
``jax.random.key(0)``, so a call without a key is deterministic), returns jax arrays and gives
the same result for the same key. (Before 0.2.0 the key was the first, required positional
argument; that call still works until 0.3.0 and warns.) Sizes and ``dtype`` are static;
continuous settings (``class_sep``, ``flip_y``, ``noise``, ``bias``, ``cluster_std``) may be
traced, so the public functions work inside ``jax.jit`` and ``jax.vmap`` (e.g. one data set
per key).
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic._deprecation import key_made_keyword
from jaxclassic.validation import check_int, check_key, check_scalar, default_float_dtype, is_traced

__all__ = ["make_classification", "make_regression", "make_blobs"]


def _resolve_key(key):
    """``key``, or the documented default ``jax.random.key(0)`` for ``None``."""
    return jax.random.key(0) if key is None else check_key(key)


def _resolve_dtype(dtype):
    dtype = default_float_dtype() if dtype is None else jnp.dtype(dtype)
    if not jnp.issubdtype(dtype, jnp.floating):
        raise ValueError(f"dtype must be a floating dtype, got {dtype}")
    return dtype


@functools.partial(
    jax.jit,
    static_argnames=(
        "n_samples", "n_features", "n_informative", "n_redundant", "n_classes",
        "n_clusters_per_class", "dtype",
    ),
)
def _make_classification(
    key, class_sep, flip_y, *, n_samples, n_features, n_informative, n_redundant, n_classes,
    n_clusters_per_class, dtype,
):
    keys = jax.random.split(key, 10)
    n_clusters = n_classes * n_clusters_per_class
    # Distinct hypercube vertices: the binary codes of 0..K-1 on the first m dimensions make
    # them distinct; random signs elsewhere, then a random reflection and permutation of the
    # axes and a random assignment of vertices to clusters keep them distinct and random.
    n_bits = max(1, math.ceil(math.log2(n_clusters)))
    bits = (jnp.arange(n_clusters)[:, None] >> jnp.arange(n_bits)[None, :]) & 1
    rest = jax.random.bernoulli(keys[0], 0.5, (n_clusters, n_informative - n_bits))
    vertices = jnp.concatenate([bits, rest.astype(bits.dtype)], axis=1).astype(dtype) * 2 - 1
    reflect = jax.random.rademacher(keys[1], (n_informative,), dtype=dtype)
    vertices = (vertices * reflect)[:, jax.random.permutation(keys[2], n_informative)]
    vertices = vertices[jax.random.permutation(keys[3], n_clusters)]
    centroids = class_sep.astype(dtype) * vertices

    cluster = jnp.arange(n_samples) % n_clusters  # balanced; cluster k belongs to class k % C
    y = cluster % n_classes
    z = jax.random.normal(keys[4], (n_samples, n_informative), dtype=dtype)
    # each cluster gets its own random linear map (covariance A^T A), as in Guyon (2003)
    maps = jax.random.uniform(keys[5], (n_clusters, n_informative, n_informative), dtype, -1.0, 1.0)

    def add_cluster(acc, k_and_map):
        k, a = k_and_map
        return acc + jnp.where((cluster == k)[:, None], z @ a, 0.0), None

    informative, _ = jax.lax.scan(
        add_cluster, jnp.zeros_like(z), (jnp.arange(n_clusters), maps)
    )
    informative = informative + centroids[cluster]
    mix = jax.random.uniform(keys[6], (n_informative, n_redundant), dtype, -1.0, 1.0)
    noise = jax.random.normal(keys[7], (n_samples, n_features - n_informative - n_redundant), dtype)
    X = jnp.concatenate([informative, informative @ mix, noise], axis=1)

    flip = jax.random.uniform(keys[8], (n_samples,), dtype) < flip_y
    y = jnp.where(flip, jax.random.randint(keys[9], (n_samples,), 0, n_classes), y)
    order = jax.random.permutation(jax.random.fold_in(key, 1), n_samples)
    return X[order], y[order].astype(jnp.int32)


@key_made_keyword
def make_classification(
    n_samples: int = 100,
    n_features: int = 20,
    *,
    n_informative: int = 2,
    n_redundant: int = 0,
    n_classes: int = 2,
    n_clusters_per_class: int = 1,
    class_sep=1.0,
    flip_y=0.0,
    dtype=None,
    key=None,
):
    """Random classification problem: Gaussian clusters on hypercube vertices (Guyon, 2003).

    Each of the ``K = n_classes * n_clusters_per_class`` clusters sits on a distinct vertex
    ``c_k in {-class_sep, +class_sep}^{n_informative}``; a sample of cluster ``k`` is
    ``x_inf = z A_k + c_k`` with ``z ~ N(0, I)`` and ``A_k`` uniform on ``[-1, 1]``. Redundant
    features are ``x_inf B`` (``B`` uniform on ``[-1, 1]``), the rest are ``N(0, 1)`` noise.
    Columns are ``[informative | redundant | noise]`` in that order (scikit-learn's
    ``shuffle=False`` layout); rows are shuffled. Classes are balanced (sizes differ by at
    most one), then a fraction ``flip_y`` of labels is replaced by a uniformly random class.

    Pure and jittable: the sizes and ``dtype`` are static, ``class_sep`` and ``flip_y`` may be
    traced, so ``jax.vmap`` over keys gives independent data sets.

    Parameters
    ----------
    n_samples, n_features : int
    n_informative : int
        Needs ``2 ** n_informative >= n_classes * n_clusters_per_class``.
    n_redundant : int
        ``n_informative + n_redundant <= n_features``.
    n_classes : int >= 2
    n_clusters_per_class : int >= 1
        Default 1 (scikit-learn's default is 2, which can make the problem XOR-like).
    class_sep : float >= 0
        Half the side of the hypercube; larger is easier.
    flip_y : float in [0, 1]
    dtype : float dtype, optional
        Default float32, or float64 when ``jax_enable_x64`` is on.
    key : jax.random key, optional
        Keyword-only. Default ``None``: ``jax.random.key(0)``. Same key, same data.

    Returns
    -------
    X : jax.Array (n_samples, n_features)
    y : jax.Array (n_samples,) int32 in ``0..n_classes-1``

    Example
    -------
    >>> X, y = make_classification(200, 5, n_informative=3, key=jax.random.key(0))
    >>> X.shape, y.shape
    ((200, 5), (200,))

    References
    ----------
    I. Guyon (2003). Design of experiments for the NIPS 2003 variable selection benchmark.
    """
    key = _resolve_key(key)
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_features = check_int(n_features, "n_features", low=1)
    n_informative = check_int(n_informative, "n_informative", low=1)
    n_redundant = check_int(n_redundant, "n_redundant", low=0)
    n_classes = check_int(n_classes, "n_classes", low=2)
    n_clusters_per_class = check_int(n_clusters_per_class, "n_clusters_per_class", low=1)
    if n_informative + n_redundant > n_features:
        raise ValueError(
            f"n_informative + n_redundant must be <= n_features, got "
            f"{n_informative} + {n_redundant} > {n_features}"
        )
    if n_classes * n_clusters_per_class > 2**n_informative:
        raise ValueError(
            f"n_classes * n_clusters_per_class must be <= 2 ** n_informative, got "
            f"{n_classes} * {n_clusters_per_class} > 2 ** {n_informative}"
        )
    check_scalar(class_sep, "class_sep", low=0.0)
    check_scalar(flip_y, "flip_y", low=0.0, high=1.0)
    dtype = _resolve_dtype(dtype)
    return _make_classification(
        key, jnp.asarray(class_sep, dtype), jnp.asarray(flip_y, dtype),
        n_samples=n_samples, n_features=n_features, n_informative=n_informative,
        n_redundant=n_redundant, n_classes=n_classes,
        n_clusters_per_class=n_clusters_per_class, dtype=dtype,
    )


@functools.partial(
    jax.jit, static_argnames=("n_samples", "n_features", "n_informative", "dtype")
)
def _make_regression(key, noise, bias, *, n_samples, n_features, n_informative, dtype):
    key_x, key_coef, key_noise = jax.random.split(key, 3)
    X = jax.random.normal(key_x, (n_samples, n_features), dtype)
    coef = jnp.zeros((n_features,), dtype).at[:n_informative].set(
        100.0 * jax.random.uniform(key_coef, (n_informative,), dtype)
    )
    y = X @ coef + bias + noise * jax.random.normal(key_noise, (n_samples,), dtype)
    return X, y, coef


@key_made_keyword
def make_regression(
    n_samples: int = 100,
    n_features: int = 100,
    *,
    n_informative: int | None = None,
    noise=0.0,
    bias=0.0,
    return_coef: bool = False,
    dtype=None,
    key=None,
):
    """Random linear regression problem with Gaussian design and sparse coefficients.

    ``X ~ N(0, I)``; ``coef_j ~ 100 U(0, 1)`` for the first ``n_informative`` columns and 0
    for the rest; ``y = X coef + bias + noise * eps`` with ``eps ~ N(0, 1)``. (As
    scikit-learn's ``make_regression`` with ``shuffle=False``, ``effective_rank=None``.)

    Parameters
    ----------
    n_samples, n_features : int
    n_informative : int, optional
        Default ``min(10, n_features)`` (scikit-learn's 10); must be ``<= n_features``.
    noise : float >= 0
        Standard deviation of the Gaussian noise (may be traced).
    bias : float
        Intercept (may be traced).
    return_coef : bool
        Also return the true coefficients.
    dtype : float dtype, optional
    key : jax.random key, optional
        Keyword-only. Default ``None``: ``jax.random.key(0)``. Same key, same data.

    Returns
    -------
    X : jax.Array (n_samples, n_features)
    y : jax.Array (n_samples,)
    coef : jax.Array (n_features,), only with ``return_coef=True``

    Example
    -------
    >>> X, y, coef = make_regression(50, 4, n_informative=2, return_coef=True,
    ...                              key=jax.random.key(0))
    >>> int((coef != 0).sum())
    2
    """
    key = _resolve_key(key)
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_features = check_int(n_features, "n_features", low=1)
    if n_informative is None:
        n_informative = min(10, n_features)
    n_informative = check_int(n_informative, "n_informative", low=0, high=n_features)
    check_scalar(noise, "noise", low=0.0)
    check_scalar(bias, "bias")
    dtype = _resolve_dtype(dtype)
    X, y, coef = _make_regression(
        key, jnp.asarray(noise, dtype), jnp.asarray(bias, dtype),
        n_samples=n_samples, n_features=n_features, n_informative=n_informative, dtype=dtype,
    )
    return (X, y, coef) if return_coef else (X, y)


@functools.partial(jax.jit, static_argnames=("n_samples",))
def _make_blobs(key, centers, cluster_std, *, n_samples):
    key_label, key_x = jax.random.split(key)
    n_centers = centers.shape[0]
    y = jax.random.permutation(key_label, jnp.arange(n_samples) % n_centers)
    z = jax.random.normal(key_x, (n_samples, centers.shape[1]), centers.dtype)
    return centers[y] + cluster_std[y][:, None] * z, y.astype(jnp.int32)


@key_made_keyword
def make_blobs(
    n_samples: int = 100,
    centers: Any = 3,
    n_features: int = 2,
    *,
    cluster_std=1.0,
    center_box: tuple[float, float] = (-10.0, 10.0),
    return_centers: bool = False,
    dtype=None,
    key=None,
):
    """Isotropic Gaussian blobs for clustering: ``x = mu_y + sigma_y z``, ``z ~ N(0, I)``.

    Sample ``i`` (before a random shuffle) belongs to blob ``i mod K``, so blob sizes differ
    by at most one (the first ``n_samples mod K`` blobs get one more).

    Parameters
    ----------
    n_samples : int
    centers : int or array-like (K, n_features)
        Number of blobs (centres drawn uniformly in ``center_box``), or the centres
        themselves (then ``n_features`` is taken from them).
    n_features : int
        Used when ``centers`` is an int.
    cluster_std : float or array-like (K,)
        Standard deviation of each blob (> 0; may be traced).
    center_box : (low, high)
    return_centers : bool
    dtype : float dtype, optional
    key : jax.random key, optional
        Keyword-only. Default ``None``: ``jax.random.key(0)``. Same key, same data.

    Returns
    -------
    X : jax.Array (n_samples, n_features)
    y : jax.Array (n_samples,) int32 blob index
    centers : jax.Array (K, n_features), only with ``return_centers=True``

    Example
    -------
    >>> X, y = make_blobs(90, centers=3, n_features=2, key=jax.random.key(0))
    >>> X.shape
    (90, 2)
    """
    key = _resolve_key(key)
    n_samples = check_int(n_samples, "n_samples", low=1)
    dtype = _resolve_dtype(dtype)
    if isinstance(centers, (numbers.Integral, np.integer)) and not isinstance(centers, bool):
        n_centers = check_int(centers, "centers", low=1)
        n_features = check_int(n_features, "n_features", low=1)
        if len(center_box) != 2:
            raise ValueError(f"center_box must be (low, high), got {center_box!r}")
        low, high = center_box
        check_scalar(low, "center_box[0]")
        check_scalar(high, "center_box[1]")
        if not low < high:
            raise ValueError(f"center_box must have low < high, got {center_box!r}")
        key, key_centers = jax.random.split(key)
        centers = jax.random.uniform(key_centers, (n_centers, n_features), dtype, low, high)
    else:
        if isinstance(centers, bool) or isinstance(centers, float):
            raise TypeError(f"centers must be an int or an array (K, n_features), got {centers!r}")
        if not is_traced(centers):
            arr = np.asarray(centers)
            if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 1:
                raise ValueError(
                    f"centers must be an int or a 2-d array (K, n_features), got shape {arr.shape}"
                )
            if not np.all(np.isfinite(arr)):
                raise ValueError("centers must be finite")
        centers = jnp.asarray(centers, dtype)
    n_centers = centers.shape[0]
    std = cluster_std
    if not is_traced(std):
        std_np = np.asarray(std, dtype=np.float64)
        if std_np.ndim > 1 or (std_np.ndim == 1 and std_np.shape != (n_centers,)):
            raise ValueError(
                f"cluster_std must be a scalar or have shape ({n_centers},), "
                f"got shape {std_np.shape}"
            )
        if not np.all(np.isfinite(std_np)) or np.any(std_np <= 0):
            raise ValueError(f"cluster_std must be > 0, got {cluster_std!r}")
    std = jnp.broadcast_to(jnp.asarray(std, dtype), (n_centers,))
    X, y = _make_blobs(key, centers, std, n_samples=n_samples)
    return (X, y, centers) if return_centers else (X, y)
