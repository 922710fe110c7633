"""One precision policy for every statistic a fit accumulates (Gram matrices, gradients,
Hessians, moments, histograms' products).

JAX's default matrix-product precision is backend dependent: on recent NVIDIA GPUs float32
products run as TF32 (10-bit mantissa), about 1e-3 relative, which breaks the float32
tolerances the CPU meets. Every product inside a fit goes through :func:`matmul` /
:func:`einsum` here, with :data:`PRECISION` (``HIGHEST``: true float32 / float64 products on
every backend). ``benchmarks/gpu_check.py`` checks device results against the CPU's.

Changing the policy is one line: set ``PRECISION`` before the first fit is traced (e.g.
``jaxclassic._precision.PRECISION = jax.lax.Precision.DEFAULT`` to allow TF32 for speed).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["PRECISION", "matmul", "einsum", "dot"]

#: the precision of every matrix product a fit accumulates
PRECISION = jax.lax.Precision.HIGHEST


def matmul(a, b):
    """``a @ b`` at :data:`PRECISION`."""
    return jnp.matmul(a, b, precision=PRECISION)


def dot(a, b):
    """``jnp.dot(a, b)`` at :data:`PRECISION`."""
    return jnp.dot(a, b, precision=PRECISION)


def einsum(subscripts: str, *operands):
    """``jnp.einsum`` at :data:`PRECISION`."""
    return jnp.einsum(subscripts, *operands, precision=PRECISION)
