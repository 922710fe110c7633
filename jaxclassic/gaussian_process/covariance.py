r"""The covariance of a Gaussian process: amplitude, length scale(s) and noise over a block kernel.

A GP's covariance here is scikit-learn's ``ConstantKernel(c) * Base(length_scale=ℓ) +
WhiteKernel(σ²)``:

.. math::

    k_\theta(x, z) = c\,\kappa\!\left(\frac{x}{\ell}, \frac{z}{\ell}\right)
    + \sigma^2\,[x \text{ is } z],

with :math:`\theta = (c, \ell, \sigma^2)` the :class:`GPKernel` pytree (``amplitude``,
``length_scale``: a scalar, or one per feature for automatic relevance determination (ARD),
``noise``), all traced: a grid of them is a ``vmap`` and the log marginal likelihood is
differentiated in them. The white-noise term acts on the training covariance only (a new
point is never the same sample as a training one), as scikit-learn's ``WhiteKernel``.

The unit kernel :math:`\kappa` of the scaled inputs is a block kernel ``(X, Z) -> (n, m)``
(the convention of :mod:`jaxclassic.kernels`). Built in, by name (:data:`GP_KERNELS`), with
:math:`r = \lVert x - z\rVert` on the scaled inputs:

============ ===================================================== ==========================
name         :math:`\kappa(r)`                                     scikit-learn
============ ===================================================== ==========================
``rbf``      :math:`\exp(-r^2/2)` (``kernels.rbf`` with γ = ½)       ``RBF``
``matern12`` :math:`\exp(-r)`                                        ``Matern(nu=0.5)``
``matern32`` :math:`(1 + \sqrt3 r)\,e^{-\sqrt3 r}`                   ``Matern(nu=1.5)``
``matern52`` :math:`(1 + \sqrt5 r + \tfrac53 r^2)\,e^{-\sqrt5 r}`    ``Matern(nu=2.5)``
============ ===================================================== ==========================

The Matérn kernels are kept here rather than in :mod:`jaxclassic.kernels`: with a length scale
and an amplitude they are the GP literature's kernels, and nothing else in the package uses
them. Any block kernel is accepted too (a user's, or ``functools.partial(kernels.laplace,
gamma=1.0)``): it is applied to the scaled inputs and multiplied by the amplitude.

Numerics. Distances come from :func:`jaxclassic._tiling.squared_euclidean` (Gram trick,
clamped at 0) after centring both blocks on the mean of the reference block (distances do not
change; the rounding of ``‖x‖² + ‖z‖² − 2x·z`` shrinks with the norms). ``r`` is a *safe*
square root (its derivative at ``r = 0`` is taken as 0, the exact derivative of the Matérn
kernels there, instead of ``0 · ∞``). The training covariance of a built-in kernel has its
diagonal set to exactly ``c`` (:math:`\kappa(0) = 1`), as scikit-learn's, which computes it
from exact differences. The training matrix is built in row tiles under
:data:`jaxclassic._tiling.MEMORY_BUDGET` (the ``(n, n)`` result is the GP's own storage).

References
----------
Rasmussen & Williams, *Gaussian Processes for Machine Learning*, MIT Press 2006, ch. 4
(eq. 4.14 Matérn, §4.2 the squared exponential, §5.1 ARD).
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import _tiling
from jaxclassic import kernels as _kernels

__all__ = [
    "GPKernel",
    "GP_KERNELS",
    "rbf",
    "matern12",
    "matern32",
    "matern52",
    "get_gp_kernel",
    "is_stationary",
    "covariance",
    "train_covariance",
    "prior_variance",
]


class GPKernel(NamedTuple):
    r"""Hyperparameters of a GP covariance :math:`c\,\kappa(x/\ell, z/\ell) + \sigma^2 I`.

    Attributes
    ----------
    amplitude : () float
        :math:`c > 0` (scikit-learn's ``ConstantKernel.constant_value``).
    length_scale : () or (n_features,) float
        :math:`\ell > 0`; one per feature for ARD.
    noise : () float
        :math:`\sigma^2 \ge 0`, the variance of the observation noise (``WhiteKernel.noise_level``).
    """

    amplitude: jax.Array
    length_scale: jax.Array
    noise: jax.Array


def _safe_sqrt(r2: jax.Array) -> jax.Array:
    """``sqrt(r2)`` whose derivative at 0 is 0 (not ``inf``: 0·inf would give NaN gradients)."""
    positive = r2 > 0
    return jnp.where(positive, jnp.sqrt(jnp.where(positive, r2, 1.0)), 0.0)


def rbf(X: jax.Array, Z: jax.Array) -> jax.Array:
    r"""Unit squared-exponential kernel :math:`\exp(-\lVert x - z\rVert^2 / 2)` (``kernels.rbf``, γ = ½).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> round(float(rbf(jnp.zeros((1, 1)), jnp.ones((1, 1)))[0, 0]), 6)
    0.606531
    """
    return _kernels.rbf(X, Z, gamma=0.5)


def matern12(X: jax.Array, Z: jax.Array) -> jax.Array:
    r"""Unit Matérn kernel with ν = ½ (exponential): :math:`e^{-r}`."""
    return jnp.exp(-_safe_sqrt(_tiling.squared_euclidean(X, Z)))


def matern32(X: jax.Array, Z: jax.Array) -> jax.Array:
    r"""Unit Matérn kernel with ν = 3/2: :math:`(1 + \sqrt3 r)\,e^{-\sqrt3 r}`."""
    r = math.sqrt(3.0) * _safe_sqrt(_tiling.squared_euclidean(X, Z))
    return (1.0 + r) * jnp.exp(-r)


def matern52(X: jax.Array, Z: jax.Array) -> jax.Array:
    r"""Unit Matérn kernel with ν = 5/2: :math:`(1 + \sqrt5 r + \tfrac53 r^2)\,e^{-\sqrt5 r}`."""
    r2 = _tiling.squared_euclidean(X, Z)
    r = math.sqrt(5.0) * _safe_sqrt(r2)
    return (1.0 + r + (5.0 / 3.0) * r2) * jnp.exp(-r)


#: the built-in unit kernels by name (all stationary, :math:`\kappa(0) = 1`)
GP_KERNELS: dict[str, Callable[[jax.Array, jax.Array], jax.Array]] = {
    "rbf": rbf,
    "matern12": matern12,
    "matern32": matern32,
    "matern52": matern52,
}
_STATIONARY = frozenset(GP_KERNELS.values())


def get_gp_kernel(kernel) -> Callable[[jax.Array, jax.Array], jax.Array]:
    """The unit block kernel for a name of :data:`GP_KERNELS`, or ``kernel`` itself if callable.

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
        if kernel not in GP_KERNELS:
            raise ValueError(f"kernel must be one of {sorted(GP_KERNELS)} or a callable block kernel "
                             f"(X, Z) -> (n, m), got {kernel!r}")
        return GP_KERNELS[kernel]
    raise TypeError(f"kernel must be a string or a callable (X, Z) -> (n, m), got {type(kernel).__name__}")


def is_stationary(kernel_fn) -> bool:
    """Whether ``kernel_fn`` is a built-in (translation-invariant, :math:`\\kappa(0) = 1`) kernel."""
    return kernel_fn in _STATIONARY


def _scaled(hyper: GPKernel, X: jax.Array, Z: jax.Array, kernel_fn):
    """``X / ℓ`` and ``Z / ℓ``, centred on the mean of ``Z / ℓ`` for a built-in kernel."""
    Xs, Zs = X / hyper.length_scale, Z / hyper.length_scale
    if is_stationary(kernel_fn):
        centre = jnp.mean(Zs, axis=0)
        Xs, Zs = Xs - centre, Zs - centre
    return Xs, Zs


def _tile(n_rows: int, n_cols: int, itemsize: int) -> int:
    # a tile's intermediates: the distances, the kernel values and one temporary per row
    return _tiling.tile_size(n_rows, 3 * n_cols * itemsize)


def covariance(hyper: GPKernel, X: jax.Array, Z: jax.Array, kernel_fn) -> jax.Array:
    r"""The cross-covariance :math:`c\,\kappa(X/\ell, Z/\ell)` ``(n, m)`` (no noise term), in row tiles.

    Parameters
    ----------
    hyper : GPKernel
    X : (n, d) array
    Z : (m, d) array
    kernel_fn : callable
        The unit block kernel (:func:`get_gp_kernel`).

    Returns
    -------
    (n, m) array
    """
    Xs, Zs = _scaled(hyper, X, Z, kernel_fn)
    tile = _tile(X.shape[0], Z.shape[0], jnp.dtype(X.dtype).itemsize)
    return hyper.amplitude * _tiling.map_row_tiles(lambda block: kernel_fn(block, Zs), Xs, tile=tile)


def train_covariance(hyper: GPKernel, X: jax.Array, kernel_fn) -> jax.Array:
    r"""The training covariance :math:`K = c\,\kappa(X/\ell, X/\ell)` ``(n, n)``, symmetric, without noise.

    A built-in kernel's diagonal is exactly ``c``; a user kernel's matrix is symmetrised as
    :math:`(K + K^\top)/2`.
    """
    K = covariance(hyper, X, X, kernel_fn)
    n = X.shape[0]
    if is_stationary(kernel_fn):
        return K.at[jnp.arange(n), jnp.arange(n)].set(jnp.broadcast_to(hyper.amplitude, (n,)).astype(K.dtype))
    return 0.5 * (K + K.T)


def prior_variance(hyper: GPKernel, X: jax.Array, kernel_fn) -> jax.Array:
    r""":math:`c\,\kappa(x_i/\ell, x_i/\ell)` for every row ``(n,)`` (``c`` for a built-in kernel)."""
    if is_stationary(kernel_fn):
        return jnp.broadcast_to(hyper.amplitude, (X.shape[0],)).astype(X.dtype)
    Xs = X / hyper.length_scale
    return hyper.amplitude * jax.vmap(lambda x: kernel_fn(x[None, :], x[None, :])[0, 0])(Xs)
