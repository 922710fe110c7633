r"""Weighted, centred sufficient statistics shared by the least-squares fits.

With sample weights :math:`w_i \ge 0` and, when an intercept is fitted, the weighted means
:math:`\bar x = \sum_i w_i x_i / \sum_i w_i`, :math:`\bar y` likewise, the unpenalised
intercept drops out of every least-squares objective
:math:`\sum_i w_i (y_i - x_i^\top\beta - b)^2 + \text{penalty}(\beta)`:
minimising over :math:`b` gives :math:`b = \bar y - \bar x^\top\beta`, and :math:`\beta`
solves the centred problem. Its normal equations use

.. math::

    G = X_c^\top W X_c, \qquad g = X_c^\top W y_c, \qquad X_c = X - \mathbf 1\bar x^\top .

**One read of X, one product.** Everything comes from a single matrix product: with a
shift :math:`s` close to the mean (the weighted mean of at most 256 rows spread evenly over
the data) and :math:`Z = W^{1/2}[X - s,\ y - t,\ \mathbf 1]`, the blocks of :math:`Z^\top Z`
are the shifted Gram matrix, the shifted cross products and the weighted column sums, and the
centred statistics follow exactly by a rank-one correction (the shifted-data algorithm,
Chan, Golub & LeVeque 1983):
:math:`G = \sum_i w_i(x_i-s)(x_i-s)^\top - (\sum_i w_i)\,\delta\delta^\top`,
:math:`\delta = \bar x - s`. Because :math:`s` is already near :math:`\bar x`, the correction is
small and there is no cancellation (unlike the textbook :math:`X^\top WX - n\bar x\bar x^\top`).
:math:`Z` is formed and multiplied block by block of rows (cache-sized blocks in a
``lax.scan``), never written out whole, so the cost is about that of one :math:`X^\top X`.

**Constant columns** (with an intercept): a column whose weighted variance
:math:`G_{jj}/\sum_i w_i` is at most :math:`(10\,\varepsilon\,\bar x_j)^2` — constant up to the
rounding of its values — has its row and column of :math:`G` and its entry of :math:`g` set
to exactly 0, so every fit gives it coefficient 0 (the intercept absorbs it).

A row of weight 0 contributes exactly 0 to every sum: it has no influence.

References
----------
Chan, Golub & LeVeque, "Algorithms for computing the sample variance: analysis and
recommendations", The American Statistician 37 (1983).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["WeightedGram", "weighted_gram", "t_dot", "constant_columns", "PRECISION"]

#: the Gram products run at full float precision on every backend (no TF32 / bf16 passes)
PRECISION = jax.lax.Precision.HIGHEST

#: rows of the evenly spread subsample whose weighted mean is the shift
SHIFT_ROWS = 256


class WeightedGram(NamedTuple):
    gram: jax.Array        # (d, d) X_c^T W X_c (constant columns zeroed with an intercept)
    xty: jax.Array         # (d,)   X_c^T W y_c
    x_mean: jax.Array      # (d,)   weighted column means (0 without intercept)
    y_mean: jax.Array      # ()     weighted mean of y (0 without intercept)
    sw_sum: jax.Array      # ()     sum of the weights
    constant: jax.Array    # (d,)   bool: columns found constant (all False without intercept)
    yy: jax.Array          # ()     y_c^T W y_c
    Xw: jax.Array          # (n, d) sqrt(w) * X_c  (materialised only if a caller uses it:
    yw: jax.Array          # (n,)   sqrt(w) * y_c   under jit, XLA drops unused outputs)


def t_dot(a, b):
    """``a.T @ b`` contracting the rows, without materialising a transpose."""
    return jax.lax.dot_general(a, b, (((0,), (0,)), ((), ())), precision=PRECISION)


def shift_of(X, y, sample_weight):
    """Weighted mean of <= 256 evenly spread rows (0 where they all have weight 0)."""
    n = X.shape[0]
    stride = max(1, n // SHIFT_ROWS)
    w = sample_weight[::stride]
    total = jnp.sum(w)
    safe = jnp.where(total > 0, total, 1)
    x_shift = jnp.where(total > 0, (w @ X[::stride]) / safe, 0)
    y_shift = jnp.where(total > 0, (w @ y[::stride]) / safe, 0)
    return x_shift, y_shift


def constant_columns(variance, mean):
    """Columns whose variance is within the rounding of their values: var <= (10 eps mean)^2."""
    eps = jnp.finfo(variance.dtype).eps
    return variance <= jnp.square(10 * eps * mean)


#: elements of Z per block of rows (2**20: 4 MB in float32, cache-sized), and the fewest rows
BLOCK_ELEMENTS = 2**20
MIN_BLOCK_ROWS = 256


def _block_rows(n_rows: int, width: int) -> int:
    """Rows per block: the largest power of two with at most ``BLOCK_ELEMENTS`` elements."""
    rows = max(MIN_BLOCK_ROWS, 1 << max(0, (BLOCK_ELEMENTS // max(width, 1)).bit_length() - 1))
    return min(rows, n_rows)


def _augmented_product(X, y, sw, x_shift, y_shift, with_ones: bool):
    r"""``Z^T Z`` for ``Z = sqrt(w) [X - s, y - t, (1)]``, accumulated over blocks of rows.

    Each block of ``Z`` is formed in cache and multiplied at once (a ``lax.scan`` over
    ``dynamic_slice``-d blocks), so the shifted, weighted copy of ``X`` is never written to
    memory: the cost is one read of ``X`` inside the matrix products, as for ``X^T X``.
    """
    n, d = X.shape
    dtype = X.dtype

    def block(Xb, yb, wb):
        cols = [Xb - x_shift, (yb - y_shift)[:, None]]
        if with_ones:
            cols.append(jnp.ones((Xb.shape[0], 1), dtype))
        Zb = jnp.concatenate(cols, axis=1) * jnp.sqrt(wb)[:, None]
        return t_dot(Zb, Zb)

    rows = _block_rows(n, d + 2)
    n_blocks = n // rows
    width = d + (2 if with_ones else 1)
    if n_blocks <= 1:
        return block(X, y, sw)

    def body(acc, i):
        start = i * rows
        take = lambda a: jax.lax.dynamic_slice_in_dim(a, start, rows)  # noqa: E731
        return acc + block(take(X), take(y), take(sw)), None

    M, _ = jax.lax.scan(body, jnp.zeros((width, width), dtype), jnp.arange(n_blocks))
    if n_blocks * rows < n:
        tail = n_blocks * rows
        M = M + block(X[tail:], y[tail:], sw[tail:])
    return M


def weighted_gram(X, y, sample_weight, fit_intercept: bool) -> WeightedGram:
    """Centre (if ``fit_intercept``) and weight ``X``, ``y``; form ``G`` and ``g`` in one product."""
    dtype = X.dtype
    n, d = X.shape
    sw = sample_weight.astype(dtype)
    sw_sum = jnp.sum(sw)
    root = jnp.sqrt(sw)[:, None]
    if not fit_intercept:
        zero = jnp.zeros((), dtype)
        M = _augmented_product(X, y, sw, zero, zero, with_ones=False)
        zeros = jnp.zeros(d, dtype)
        return WeightedGram(M[:d, :d], M[:d, d], zeros, zero, sw_sum,
                            jnp.zeros(d, bool), M[d, d], X * root, y * root[:, 0])
    x_shift, y_shift = shift_of(X, y, sw)
    M = _augmented_product(X, y, sw, x_shift, y_shift, with_ones=True)  # (d + 2, d + 2)
    dx = M[:d, d + 1] / sw_sum  # x_mean - x_shift
    dy = M[d, d + 1] / sw_sum  # y_mean - y_shift
    gram = M[:d, :d] - sw_sum * jnp.outer(dx, dx)
    xty = M[:d, d] - sw_sum * dx * dy
    x_mean = x_shift + dx
    constant = constant_columns(jnp.diagonal(gram) / sw_sum, x_mean)
    keep = jnp.logical_not(constant).astype(dtype)
    gram = gram * keep[:, None] * keep[None, :]
    xty = xty * keep
    y_mean = y_shift + dy
    yy = M[d, d] - sw_sum * jnp.square(dy)
    Xw = (X - x_mean) * keep * root
    yw = (y - y_mean) * root[:, 0]
    return WeightedGram(gram, xty, x_mean, y_mean, sw_sum, constant, yy, Xw, yw)
