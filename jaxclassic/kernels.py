r"""Kernels: plain functions of two row blocks, and the Gram matrix built in tiles.

A kernel here is any function ``kernel(X, Z, **hyper) -> (n, m)`` of a block of rows ``X``
``(n, d)`` and a block ``Z`` ``(m, d)``: the built-in ones below, or a user's. Because it is a
plain function of arrays, its continuous hyperparameters (``gamma``, ``coef0``) may be traced
(a grid of them is a ``vmap``) and differentiated (Gaussian processes optimise them). A kernel
written for one pair of points, ``k(x, z) -> scalar``, becomes a block kernel with
:func:`from_pairwise`.

=============== ================================================= =============================
name            :math:`k(x, z)`                                   scikit-learn
=============== ================================================= =============================
``linear``      :math:`x\cdot z`                                  ``linear_kernel``
``polynomial``  :math:`(\gamma\, x\cdot z + c_0)^p`               ``polynomial_kernel``
``gaussian``    :math:`\exp(-\gamma \|x - z\|_2^2)`               ``rbf_kernel``
``rbf``         the same function as ``gaussian``                  ``rbf_kernel``
``laplace``     :math:`\exp(-\gamma \|x - z\|_1)`                 ``laplacian_kernel``
``sigmoid``     :math:`\tanh(\gamma\, x\cdot z + c_0)`            ``sigmoid_kernel``
=============== ================================================= =============================

The gaussian kernel's σ form :math:`\exp(-\|x-z\|^2 / (2\sigma^2))` is ``gamma = 1 / (2σ²)``.
The laplace kernel uses the L1 norm, as scikit-learn's ``laplacian_kernel``. The sigmoid kernel
is not positive semi-definite for most (γ, c₀) (Lin & Lin 2003); it is offered because SVM
users expect it, and :func:`check_mercer` says so when it is not.

Distances inside the kernels come from :mod:`jaxclassic._tiling` (``‖x‖² + ‖z‖² − 2x·z``
clamped at 0, matrix products at the package's precision).

References
----------
Schölkopf & Smola, *Learning with Kernels*, MIT Press 2002, ch. 2 and 4.
Lin & Lin, "A study on sigmoid kernels for SVM and the training of non-PSD kernels by SMO-type
methods", National Taiwan University tech. report, 2003.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _linalg
from jaxclassic import _precision
from jaxclassic import _tiling
from jaxclassic import validation

__all__ = [
    "linear",
    "polynomial",
    "gaussian",
    "rbf",
    "laplace",
    "sigmoid",
    "KERNELS",
    "get_kernel",
    "from_pairwise",
    "gram",
    "gram_diagonal",
    "min_eigenvalue",
    "check_mercer",
]


def linear(X: jax.Array, Z: jax.Array) -> jax.Array:
    r"""Linear kernel :math:`k(x, z) = x\cdot z`.

    Parameters
    ----------
    X : (n, d) array
    Z : (m, d) array

    Returns
    -------
    (n, m) array

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> linear(jnp.array([[1.0, 2.0]]), jnp.array([[3.0, 4.0]])).tolist()
    [[11.0]]
    """
    return _precision.matmul(X, Z.T)


def polynomial(X: jax.Array, Z: jax.Array, *, gamma=1.0, coef0=1.0, degree: int = 3) -> jax.Array:
    r"""Polynomial kernel :math:`k(x, z) = (\gamma\, x\cdot z + c_0)^p`.

    Parameters
    ----------
    X : (n, d) array
    Z : (m, d) array
    gamma : float, > 0 (traced)
    coef0 : float (traced), :math:`c_0`
    degree : int, >= 1 (static: an integer power, exact for negative bases)

    Returns
    -------
    (n, m) array

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> polynomial(jnp.array([[1.0, 1.0]]), jnp.array([[1.0, 2.0]]), degree=2).tolist()
    [[16.0]]
    """
    degree = validation.check_int(degree, "degree", low=1)
    return jax.lax.integer_pow(gamma * _precision.matmul(X, Z.T) + coef0, degree)


def gaussian(X: jax.Array, Z: jax.Array, *, gamma=1.0) -> jax.Array:
    r"""Gaussian (RBF) kernel :math:`k(x, z) = \exp(-\gamma \|x - z\|_2^2)`.

    With a length scale σ: ``gamma = 1 / (2 σ²)``.

    Parameters
    ----------
    X : (n, d) array
    Z : (m, d) array
    gamma : float, > 0 (traced)

    Returns
    -------
    (n, m) array, entries in (0, 1].

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> round(float(gaussian(jnp.array([[0.0]]), jnp.array([[1.0]]), gamma=0.5)[0, 0]), 6)
    0.606531
    """
    return jnp.exp(-gamma * _tiling.squared_euclidean(X, Z))


rbf = gaussian


def laplace(X: jax.Array, Z: jax.Array, *, gamma=1.0) -> jax.Array:
    r"""Laplace kernel :math:`k(x, z) = \exp(-\gamma \|x - z\|_1)` (L1 norm, as scikit-learn).

    Builds an ``(n, m, d)`` block of differences: call it through :func:`gram`, which tiles.

    Parameters
    ----------
    X : (n, d) array
    Z : (m, d) array
    gamma : float, > 0 (traced)

    Returns
    -------
    (n, m) array, entries in (0, 1].
    """
    return jnp.exp(-gamma * _tiling.pairwise_distances(X, Z, "manhattan"))


def sigmoid(X: jax.Array, Z: jax.Array, *, gamma=1.0, coef0=0.0) -> jax.Array:
    r"""Sigmoid (hyperbolic tangent) kernel :math:`k(x, z) = \tanh(\gamma\, x\cdot z + c_0)`.

    Not positive semi-definite in general (see the module docstring).

    Parameters
    ----------
    X : (n, d) array
    Z : (m, d) array
    gamma : float (traced)
    coef0 : float (traced)

    Returns
    -------
    (n, m) array, entries in (−1, 1).
    """
    return jnp.tanh(gamma * _precision.matmul(X, Z.T) + coef0)


#: the built-in kernels by name
KERNELS: dict[str, Callable[..., jax.Array]] = {
    "linear": linear,
    "polynomial": polynomial,
    "poly": polynomial,
    "gaussian": gaussian,
    "rbf": gaussian,
    "laplace": laplace,
    "laplacian": laplace,
    "sigmoid": sigmoid,
}

#: per-row bytes factor of the largest intermediate a kernel creates, in units of m·itemsize
_BLOCK_FACTOR = {laplace: "d"}


def get_kernel(kernel: str | Callable[..., jax.Array]) -> Callable[..., jax.Array]:
    """The kernel function for a name of :data:`KERNELS`, or ``kernel`` itself if callable.

    Raises
    ------
    ValueError
        An unknown name.
    TypeError
        Neither a string nor a callable.
    """
    if callable(kernel):
        return kernel
    if isinstance(kernel, str):
        if kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {sorted(KERNELS)} or a callable, got {kernel!r}")
        return KERNELS[kernel]
    raise TypeError(f"kernel must be a string or a callable (X, Z) -> (n, m), got {type(kernel).__name__}")


def from_pairwise(k: Callable[..., jax.Array]) -> Callable[..., jax.Array]:
    r"""Turn a kernel of one pair of points, ``k(x, z, **hyper) -> scalar``, into a block kernel.

    The block is ``vmap`` over ``X``'s rows of ``vmap`` over ``Z``'s rows; XLA fuses it into one
    loop (no ``(n, m, d)`` array on the CPU, but no matrix product either: the built-in kernels
    are faster).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> cauchy = from_pairwise(lambda x, z, gamma=1.0: 1.0 / (1.0 + gamma * jnp.sum((x - z) ** 2)))
    >>> round(float(cauchy(jnp.zeros((1, 2)), jnp.ones((1, 2)))[0, 0]), 6)
    0.333333
    """

    def block(X, Z, **hyper):
        return jax.vmap(lambda x: jax.vmap(lambda z: k(x, z, **hyper))(Z))(X)

    block.__name__ = getattr(k, "__name__", "pairwise_kernel")
    block.__doc__ = f"Block kernel of the pairwise kernel {block.__name__}."
    return block


def _row_tile(kernel, n: int, m: int, d: int, itemsize: int, budget: int | None) -> int:
    per_row = m * itemsize * (d if _BLOCK_FACTOR.get(kernel) == "d" else 3)
    return _tiling.tile_size(n, per_row, budget=budget)


def gram(X: jax.Array, Z: jax.Array | None = None, kernel: str | Callable[..., jax.Array] = "rbf", *,
         memory_budget: int | None = None, **hyper) -> jax.Array:
    r"""The Gram matrix :math:`K_{ij} = k(x_i, z_j)`, built in row tiles under a memory budget.

    The result is ``(n, m)``; the tiles bound the intermediates (e.g. the laplace kernel's
    ``(tile, m, d)`` differences), not the result. Callers that only need a reduction of ``K``
    (a product ``K v``, a log-sum-exp, a top-k) should reduce per tile with
    :func:`jaxclassic._tiling.map_row_tiles` instead of holding ``K``.

    Parameters
    ----------
    X : (n, d) array
    Z : (m, d) array, optional
        ``X`` itself when omitted (then ``K`` is symmetric; it is symmetrised exactly as
        ``(K + Kᵀ)/2`` so rounding cannot break symmetry).
    kernel : str or callable
        A name of :data:`KERNELS` or a block kernel ``(X, Z, **hyper) -> (n, m)``.
    memory_budget : int, optional
        Bytes for one tile's intermediates; :data:`jaxclassic._tiling.MEMORY_BUDGET` by default.
    **hyper
        The kernel's hyperparameters (``gamma``, ``coef0``, ``degree``...).

    Returns
    -------
    (n, m) array

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> gram(jnp.array([[0.0], [1.0]]), kernel="rbf", gamma=1.0).round(4).tolist()
    [[1.0, 0.3679], [0.3679, 1.0]]
    """
    fn = get_kernel(kernel)
    symmetric = Z is None
    Z = X if Z is None else Z
    if X.ndim != 2 or Z.ndim != 2 or X.shape[1] != Z.shape[1]:
        raise ValueError(f"X and Z must be 2-d with the same number of columns, got shapes {X.shape} and {Z.shape}")
    n, d = X.shape
    tile = _row_tile(fn, n, Z.shape[0], d, jnp.dtype(X.dtype).itemsize, memory_budget)
    K = _tiling.map_row_tiles(lambda block: fn(block, Z, **hyper), X, tile=tile)
    if symmetric:
        K = 0.5 * (K + K.T)
    return K


def gram_diagonal(X: jax.Array, kernel: str | Callable[..., jax.Array] = "rbf", **hyper) -> jax.Array:
    r""":math:`k(x_i, x_i)` for every row, without the ``(n, n)`` matrix (``vmap`` over rows).

    Parameters
    ----------
    X : (n, d) array
    kernel, **hyper
        As :func:`gram`.

    Returns
    -------
    (n,) array
    """
    fn = get_kernel(kernel)
    return jax.vmap(lambda x: fn(x[None, :], x[None, :], **hyper)[0, 0])(X)


def min_eigenvalue(K: jax.Array) -> jax.Array:
    """The smallest eigenvalue of the symmetric part of a square matrix ``(K + Kᵀ)/2``."""
    return _linalg.eigvalsh(0.5 * (K + K.T))[0]


def check_mercer(K, *, name: str = "kernel", rtol: float | None = None, symmetry_rtol: float | None = None):
    r"""Check that a Gram matrix is symmetric positive semi-definite (Mercer's condition on the
    sample); raise a ``ValueError`` naming ``name`` when it is not.

    On the host, in float64: symmetric when :math:`\max|K - K^\top| \le r_s \max|K|`, and PSD
    when :math:`\lambda_{\min} \ge -r\,\lambda_{\max}` (a relative tolerance for rounding: by
    default :math:`r = 10\,n\,\epsilon` with ε the machine epsilon of ``K``'s dtype, the size of
    the eigenvalue error of a rounded matrix; :math:`r_s = 10\,\epsilon`).

    Parameters
    ----------
    K : (n, n) array-like
    name : str
        What to call the kernel in the message.
    rtol, symmetry_rtol : float, optional
        Relative tolerances (see above).

    Returns
    -------
    float
        The smallest eigenvalue of :math:`(K + K^\top)/2`.

    Raises
    ------
    ValueError
        ``K`` not square, not finite, not symmetric, or with an eigenvalue below the tolerance.

    Examples
    --------
    >>> import numpy as np
    >>> check_mercer(np.eye(3))
    1.0
    >>> check_mercer(np.array([[1.0, 2.0], [2.0, 1.0]]))
    Traceback (most recent call last):
    ...
    ValueError: kernel is not positive semi-definite on these points: smallest eigenvalue -1 (largest 3)...
    """
    K_in = np.asarray(K)
    single = K_in.dtype == np.float32
    Kd = K_in.astype(np.float64)
    if Kd.ndim != 2 or Kd.shape[0] != Kd.shape[1]:
        raise ValueError(f"{name}: a Gram matrix must be square, got shape {Kd.shape}")
    if not np.isfinite(Kd).all():
        raise ValueError(f"{name} produced non-finite values on these points")
    eps = float(np.finfo(np.float32 if single else np.float64).eps)
    rtol = 10 * Kd.shape[0] * eps if rtol is None else rtol
    symmetry_rtol = 10 * eps if symmetry_rtol is None else symmetry_rtol
    scale = max(float(np.abs(Kd).max()), np.finfo(np.float64).tiny)
    asym = float(np.abs(Kd - Kd.T).max())
    if asym > symmetry_rtol * scale:
        raise ValueError(f"{name} is not symmetric: max |K - K^T| = {asym:.3g} (max |K| = {scale:.3g})")
    eig = np.linalg.eigvalsh(0.5 * (Kd + Kd.T))
    lo, hi = float(eig[0]), float(eig[-1])
    if lo < -rtol * max(abs(hi), np.finfo(np.float64).tiny):
        raise ValueError(
            f"{name} is not positive semi-definite on these points: smallest eigenvalue {lo:.4g} "
            f"(largest {hi:.4g}); a valid (Mercer) kernel gives a PSD Gram matrix on any points")
    return lo
