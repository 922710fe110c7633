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
``lax.scan``), never written out whole, so the cost is about that of one :math:`X^\top X`;
for narrow :math:`Z` each block's product is one batched dot over a few row chunks, which
XLA's CPU backend runs faster than one dot per block (1,000,000 x 100 float32 on 2 cores:
123 ms vs 154 ms, a jitted ``X.T @ X`` 117 ms).

**Many weightings at once** (:func:`weighted_outer_sums`, and :func:`gram_with_ones` under
``jax.vmap`` over the weights — the Newton Hessians of a cross-validation grid): the
:math:`M` products :math:`\tilde X^\top\operatorname{diag}(s_m)\tilde X` are one matrix
product :math:`S P` of the :math:`(M, n)` weights with the packed row outer products
:math:`P_i = \operatorname{triu}(\tilde x_i\tilde x_i^\top)`, formed block by block.

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
import numpy as np

__all__ = [
    "WeightedGram",
    "weighted_gram",
    "t_dot",
    "constant_columns",
    "PRECISION",
    "blocked_gram",
    "split_gram",
    "weighted_outer_sums",
    "gram_with_ones",
]

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


#: elements of Z per block of rows (2**20: 4 MB in float32, cache-sized; 2**19 .. 2**23
#: measured within 5% of each other on a 2-core Xeon), and the fewest rows of a block
BLOCK_ELEMENTS = 2**20
MIN_BLOCK_ROWS = 256
#: a block's product is contracted as this many row chunks in ONE batched dot, then summed
#: (the chunks spread over the cores; 1,000,000 x 100 float32 on 2 cores: 123 ms vs 154 ms);
#: only for narrow Z (at most ``SPLIT_MAX_WIDTH`` columns): for wide Z the split is slower
#: (10,000 x 1,000 float32: 135 ms vs 85 ms)
GRAM_SPLIT = 4
SPLIT_MAX_WIDTH = 256


def _block_rows(n_rows: int, width: int, elements: int | None = None) -> int:
    """Rows per block: the largest power of two with at most ``elements`` elements
    (default ``BLOCK_ELEMENTS``, read at call time)."""
    elements = BLOCK_ELEMENTS if elements is None else elements
    rows = max(MIN_BLOCK_ROWS, 1 << max(0, (elements // max(width, 1)).bit_length() - 1))
    return min(rows, n_rows)


def split_gram(Z):
    """``Z^T Z`` as one batched dot over ``GRAM_SPLIT`` chunks of rows, summed (same flops)."""
    n, k = Z.shape
    m = (n // GRAM_SPLIT) * GRAM_SPLIT
    if m < GRAM_SPLIT * MIN_BLOCK_ROWS or k > SPLIT_MAX_WIDTH:
        return t_dot(Z, Z)
    chunks = Z[:m].reshape(GRAM_SPLIT, m // GRAM_SPLIT, k)
    gram = jax.lax.dot_general(chunks, chunks, (((1,), (1,)), ((0,), (0,))),
                               precision=PRECISION).sum(axis=0)
    if m < n:
        gram = gram + t_dot(Z[m:], Z[m:])
    return gram


def blocked_gram(make_block, arrays, width: int, dtype):
    r"""``Z^T Z`` for ``Z = make_block(*arrays)`` (``width`` columns), one block of rows at a time.

    Each block of ``Z`` is formed from ``dynamic_slice``-d rows of ``arrays`` (a ``lax.scan``)
    and multiplied at once by :func:`split_gram`, so ``Z`` (a shifted / weighted copy of
    ``X``) is never written out whole: the cost is one read of ``X`` inside the products.
    """
    n = arrays[0].shape[0]
    rows = _block_rows(n, width)
    n_blocks = n // rows
    if n_blocks <= 1:
        return split_gram(make_block(*arrays))

    def body(acc, i):
        start = i * rows
        block = [jax.lax.dynamic_slice_in_dim(a, start, rows) for a in arrays]
        return acc + split_gram(make_block(*block)), None

    M, _ = jax.lax.scan(body, jnp.zeros((width, width), dtype), jnp.arange(n_blocks))
    tail = n_blocks * rows
    if tail < n:
        M = M + split_gram(make_block(*[a[tail:] for a in arrays]))
    return M


def _augmented_product(X, y, sw, x_shift, y_shift, with_ones: bool):
    r"""``Z^T Z`` for ``Z = sqrt(w) [X - s, y - t, (1)]``, accumulated over blocks of rows."""
    d = X.shape[1]
    dtype = X.dtype

    def block(Xb, yb, wb):
        cols = [Xb - x_shift, (yb - y_shift)[:, None]]
        if with_ones:
            cols.append(jnp.ones((Xb.shape[0], 1), dtype))
        return jnp.concatenate(cols, axis=1) * jnp.sqrt(wb)[:, None]

    return blocked_gram(block, (X, y, sw), d + (2 if with_ones else 1), dtype)


# --------------------------------------------------------------------------- many weightings
#: the outer-product formulation is used while (d+1)(d+2)/2 is at most this (d <= ~360)
MAX_PACKED = 2**16
#: elements of one block of packed outer products
PACKED_BLOCK_ELEMENTS = 2**21


def _packed_outer(Z):
    """Row-wise outer products of ``Z`` (n, k), upper triangle packed: (n, k(k+1)/2)."""
    i, j = np.triu_indices(Z.shape[1])
    return Z[:, i] * Z[:, j]


def _unpack(packed, k: int):
    """(..., k(k+1)/2) upper triangles -> symmetric (..., k, k)."""
    i, j = np.triu_indices(k)
    index = np.zeros((k, k), np.int32)
    index[i, j] = np.arange(len(i))
    index[j, i] = np.arange(len(i))
    return packed[..., index]


def _with_ones(X):
    return jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1)


def weighted_outer_sums(X, S):
    r"""For each row :math:`s_m` of ``S`` (M, n): :math:`\tilde X^\top \operatorname{diag}(s_m)\tilde X`,
    :math:`\tilde X = [X, 1]` — (M, d+1, d+1); weights of any sign.

    All M weightings are ONE matrix product per block of rows: with
    :math:`P_i = \operatorname{triu}(\tilde x_i\tilde x_i^\top)` packed in a row of
    :math:`(d+1)(d+2)/2`, the packed results are :math:`S P` — a large, efficient GEMM with half
    the flops of M separate products, instead of M thin ones (which XLA's CPU backend runs at
    10-20 GFLOP/s when batched). ``P`` is formed block by block (a ``lax.scan``), never whole.
    Beyond ``MAX_PACKED`` packed entries, M separate blocked products (``lax.map``).
    """
    n, d = X.shape
    k = d + 1
    K = k * (k + 1) // 2
    dtype = X.dtype
    if K > MAX_PACKED:
        rows = _block_rows(n, k)

        def one(s):  # (s Z)^T Z block by block (signed weights: no square root)
            def body(acc, i):
                start = i * rows
                Xb = jax.lax.dynamic_slice_in_dim(X, start, rows)
                sb = jax.lax.dynamic_slice_in_dim(s, start, rows)
                Zb = _with_ones(Xb)
                return acc + t_dot(Zb * sb[:, None], Zb), None
            n_blocks = n // rows
            M, _ = jax.lax.scan(body, jnp.zeros((k, k), dtype), jnp.arange(n_blocks))
            tail = n_blocks * rows
            if tail < n:
                Zt = _with_ones(X[tail:])
                M = M + t_dot(Zt * s[tail:, None], Zt)
            return M

        return jax.lax.map(one, S)

    rows = _block_rows(n, K, PACKED_BLOCK_ELEMENTS)
    n_blocks = n // rows

    def product(Xb, Sb):
        return jnp.matmul(Sb, _packed_outer(_with_ones(Xb)), precision=PRECISION)

    if n_blocks <= 1:
        packed = product(X, S)
    else:
        def body(acc, i):
            start = i * rows
            Xb = jax.lax.dynamic_slice_in_dim(X, start, rows)
            Sb = jax.lax.dynamic_slice_in_dim(S, start, rows, axis=1)
            return acc + product(Xb, Sb), None

        packed, _ = jax.lax.scan(body, jnp.zeros((S.shape[0], K), dtype), jnp.arange(n_blocks))
        tail = n_blocks * rows
        if tail < n:
            packed = packed + product(X[tail:], S[:, tail:])
    return _unpack(packed, k)


def _gram_with_ones_direct(X, s):
    def block(Xb, sb):
        return _with_ones(Xb) * jnp.sqrt(sb)[:, None]
    return blocked_gram(block, (X, s), X.shape[1] + 1, X.dtype)


@jax.custom_batching.custom_vmap
def _gram_with_ones_fast(X, s):
    return _gram_with_ones_direct(X, s)


@_gram_with_ones_fast.def_vmap
def _gram_with_ones_vmap(axis_size, in_batched, X, s):
    x_batched, s_batched = in_batched
    k = X.shape[-1] + 1
    if x_batched or not s_batched or k * (k + 1) // 2 > MAX_PACKED:
        in_axes = (0 if x_batched else None, 0 if s_batched else None)
        return jax.vmap(_gram_with_ones_direct, in_axes=in_axes)(X, s), True
    return weighted_outer_sums(X, s), True


def _gram_with_ones_plain(X, s):
    Z = _with_ones(X)
    return t_dot(Z * s[:, None], Z)


@jax.custom_jvp
def gram_with_ones(X, s):
    r""":math:`\tilde X^\top\operatorname{diag}(s)\tilde X`, :math:`\tilde X = [X, 1]`, for weights
    :math:`s \ge 0` — (d+1, d+1); the Hessian of a GLM with a linear score.

    Unbatched: :func:`blocked_gram` of :math:`Z = \tilde X \odot \sqrt s` (one read of ``X``).
    Under ``jax.vmap`` over ``s`` with ``X`` shared (cross-validation folds, a grid of
    penalties), the batch of weights is contracted at once by :func:`weighted_outer_sums`
    (one GEMM of the (B, n) weights with the packed row outer products). Differentiable
    (forward and reverse): the derivative is that of the plain product
    :math:`(\tilde X \odot s)^\top\tilde X`.
    """
    return _gram_with_ones_fast(X, s)


@gram_with_ones.defjvp
def _gram_with_ones_jvp(primals, tangents):
    _, tangent = jax.jvp(_gram_with_ones_plain, primals, tangents)
    return _gram_with_ones_fast(*primals), tangent


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
