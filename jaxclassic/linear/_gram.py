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
:math:`G_{jj}/\sum_i w_i` is at most :math:`(\varepsilon\,\bar x_j)^2` — constant up to the
rounding of its values — has its row and column of :math:`G` and its entry of :math:`g` set
to exactly 0, so every fit gives it coefficient 0 (the intercept absorbs it).

A row of weight 0 contributes exactly 0 to every sum: it has no influence.

**Sparse X** (:func:`sparse_weighted_gram`, a plain-COO ``BCOO``; :func:`check_gram_data`):
:math:`X^\top WX` by sparse products, :math:`WX` densified a block of columns at a time,
:math:`O(\mathrm{nnz}\,d)` work and :math:`O(d^2)` memory, for at most
:data:`MAX_GRAM_FEATURES` columns; centred by the rank-one identity (a shift would fill ``X``).

**Solving** :math:`G\beta = g` (:func:`solve_normal_equations`, :func:`min_norm_solve`): the
columns of :math:`G` are first scaled to a unit diagonal (:func:`equilibrate`), so neither the
Cholesky factorisation nor the rank decision of the fallback depends on the units of the
columns; :func:`graded` tells the eigendecomposition-based paths (ridge path, Bayesian ridge)
when the raw :math:`G` is too badly scaled for them.

References
----------
Chan, Golub & LeVeque, "Algorithms for computing the sample variance: analysis and
recommendations", The American Statistician 37 (1983).
van der Sluis, "Condition numbers and equilibration of matrices", Numer. Math. 14 (1969).
Golub & Van Loan, *Matrix Computations*, 4th ed., §5.5 (rank-deficient least squares).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _linalg
from jaxclassic import _sparse
from jaxclassic._linalg import cho_solve
from jaxclassic import _precision
from jaxclassic._precision import PRECISION  # noqa: F401  (re-exported for older importers)

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
    "blocked_sum",
    "blocked_rows",
    "standardized_matmul",
    "standardized_rmatmul",
    "equilibrate",
    "graded",
    "min_norm_solve",
    "solve_normal_equations",
    "MAX_GRAM_FEATURES",
    "check_gram_data",
    "sparse_weighted_gram",
    "sparse_mean_scale",
]

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
    return jax.lax.dot_general(a, b, (((0,), (0,)), ((), ())), precision=_precision.PRECISION)


def shift_of(X, y, sample_weight):
    """Weighted mean of <= 256 evenly spread rows (0 where they all have weight 0)."""
    n = X.shape[0]
    stride = max(1, n // SHIFT_ROWS)
    w = sample_weight[::stride]
    total = jnp.sum(w)
    safe = jnp.where(total > 0, total, 1)
    x_shift = jnp.where(total > 0, _precision.matmul(w, X[::stride]) / safe, 0)
    y_shift = jnp.where(total > 0, _precision.dot(w, y[::stride]) / safe, 0)
    return x_shift, y_shift


def constant_columns(variance, mean):
    r"""Columns whose variance is within the rounding of their values: var <= (eps mean)^2.

    A column whose stored values are all equal has a computed (shifted-data) variance of order
    :math:`arepsilon\,\mathrm{ulp}(ar x)^2`, far below the bound; one whose values differ by
    an ulp at most (constant up to rounding) has sd at most :math:`\mathrm{ulp}(ar x) \le
    arepsilon|ar x|`. A bound of :math:`10arepsilon|ar x|` (before) zeroed real columns in
    float32: a column of mean :math:`10^6` and sd 1 (values 16 ulps apart per sd) was dropped.
    """
    eps = jnp.finfo(variance.dtype).eps
    return variance <= jnp.square(eps * mean)


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
                               precision=_precision.PRECISION).sum(axis=0)
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


def _augmented_plain(X, y, sw, x_shift, y_shift, with_ones: bool):
    cols = [X - x_shift, (y - y_shift)[:, None]]
    if with_ones:
        cols.append(jnp.ones((X.shape[0], 1), X.dtype))
    Z = jnp.concatenate(cols, axis=1)
    return t_dot(Z * sw.astype(X.dtype)[:, None], Z)


@partial(jax.custom_jvp, nondiff_argnums=(5,))
def _augmented_product(X, y, sw, x_shift, y_shift, with_ones: bool):
    r"""``Z^T Z`` for ``Z = sqrt(w) [X - s, y - t, (1)]``, accumulated over blocks of rows.

    Differentiable (forward and reverse) as the plain product
    :math:`Z_0^\top\operatorname{diag}(w)Z_0`: autodiff of :math:`\sqrt w` would give
    :math:`0\cdot\infty =` NaN in the derivative with respect to a weight of 0 (a row left
    out), whose value is the one-sided derivative of adding the row."""
    d = X.shape[1]
    dtype = X.dtype

    def block(Xb, yb, wb):
        cols = [Xb - x_shift, (yb - y_shift)[:, None]]
        if with_ones:
            cols.append(jnp.ones((Xb.shape[0], 1), dtype))
        return jnp.concatenate(cols, axis=1) * jnp.sqrt(wb)[:, None]

    return blocked_gram(block, (X, y, sw), d + (2 if with_ones else 1), dtype)


@_augmented_product.defjvp
def _augmented_product_jvp(with_ones, primals, tangents):
    _, tangent = jax.jvp(lambda *a: _augmented_plain(*a, with_ones), primals, tangents)
    return _augmented_product(*primals, with_ones), tangent

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


def _standardized(Xb, mean, scale):
    r"""A block of rows of :math:`(X - \bar x)/\sigma` (``mean``/``scale`` None: ``Xb`` itself)."""
    if mean is None:
        return Xb
    return (Xb - mean) / scale


def blocked_sum(fn, arrays, width: int):
    r""":math:`\sum_b` ``fn(*blocks_b)`` over blocks of rows of ``arrays`` (same leading length).

    The blocks are ``dynamic_slice``-d in a ``lax.scan`` (``width``: the columns a block's
    temporaries have, which sets the rows per block), so a transformed copy of ``X`` made
    inside ``fn`` exists one block at a time, never whole.
    """
    n = arrays[0].shape[0]
    rows = _block_rows(n, width)
    n_blocks = n // rows
    if n_blocks <= 1:
        return fn(*arrays)

    def body(acc, i):
        block = [jax.lax.dynamic_slice_in_dim(a, i * rows, rows) for a in arrays]
        return jax.tree.map(jnp.add, acc, fn(*block)), None

    shapes = jax.eval_shape(fn, *[jax.ShapeDtypeStruct((rows,) + a.shape[1:], a.dtype) for a in arrays])
    init = jax.tree.map(lambda t: jnp.zeros(t.shape, t.dtype), shapes)
    acc, _ = jax.lax.scan(body, init, jnp.arange(n_blocks))
    tail = n_blocks * rows
    if tail < n:
        acc = jax.tree.map(jnp.add, acc, fn(*[a[tail:] for a in arrays]))
    return acc


def blocked_rows(fn, arrays, width: int):
    """``fn`` applied to blocks of rows of ``arrays`` (a ``lax.map``), the results stacked back
    along the rows: for row-wise ``fn`` (a block's scores), the same as ``fn(*arrays)``
    without ``fn``'s temporaries ever being whole."""
    n = arrays[0].shape[0]
    rows = _block_rows(n, width)
    n_blocks = n // rows
    if n_blocks <= 1:
        return fn(*arrays)
    head = jax.lax.map(
        lambda i: fn(*[jax.lax.dynamic_slice_in_dim(a, i * rows, rows) for a in arrays]),
        jnp.arange(n_blocks))
    head = head.reshape((n_blocks * rows,) + head.shape[2:])
    tail = n_blocks * rows
    if tail == n:
        return head
    return jnp.concatenate([head, fn(*[a[tail:] for a in arrays])], axis=0)


def standardized_matmul(X, mean, scale, V):
    r""":math:`Z V` for :math:`Z = (X - \bar x)/\sigma` (``V`` of shape (d,) or (d, k)), block by
    block of rows: the same rounding as forming :math:`Z` first, without the n x d copy."""
    return blocked_rows(lambda Xb: _precision.matmul(_standardized(Xb, mean, scale), V), (X,),
                        X.shape[1])


def standardized_rmatmul(U, X, mean, scale):
    r""":math:`U^\top Z` for :math:`Z = (X - \bar x)/\sigma` and ``U`` of shape (n,) or (n, k)
    — (d,) or (k, d) — accumulated over blocks of rows (no n x d copy of ``X``)."""
    def block(Ub, Xb):
        Zb = _standardized(Xb, mean, scale)
        return _precision.matmul(Ub, Zb) if Ub.ndim == 1 else _precision.matmul(Ub.T, Zb)
    return blocked_sum(block, (U, X), X.shape[1])


def weighted_outer_sums(X, S, mean=None, scale=None):
    r"""For each row :math:`s_m` of ``S`` (M, n): :math:`\tilde X^\top \operatorname{diag}(s_m)\tilde X`,
    :math:`\tilde X = [X, 1]` — (M, d+1, d+1); weights of any sign. With ``mean`` and ``scale``,
    :math:`X` is replaced by :math:`(X - \bar x)/\sigma`, formed block by block.

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
                Zb = _with_ones(_standardized(Xb, mean, scale))
                return acc + t_dot(Zb * sb[:, None], Zb), None
            n_blocks = n // rows
            M, _ = jax.lax.scan(body, jnp.zeros((k, k), dtype), jnp.arange(n_blocks))
            tail = n_blocks * rows
            if tail < n:
                Zt = _with_ones(_standardized(X[tail:], mean, scale))
                M = M + t_dot(Zt * s[tail:, None], Zt)
            return M

        return jax.lax.map(one, S)

    rows = _block_rows(n, K, PACKED_BLOCK_ELEMENTS)
    n_blocks = n // rows

    def product(Xb, Sb):
        return _precision.matmul(Sb, _packed_outer(_with_ones(_standardized(Xb, mean, scale))))

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


def _gram_with_ones_direct(X, s, mean, scale):
    def block(Xb, sb):
        return _with_ones(_standardized(Xb, mean, scale)) * jnp.sqrt(sb)[:, None]
    return blocked_gram(block, (X, s), X.shape[1] + 1, X.dtype)


@jax.custom_batching.custom_vmap
def _gram_with_ones_fast(X, s, mean, scale):
    return _gram_with_ones_direct(X, s, mean, scale)


@_gram_with_ones_fast.def_vmap
def _gram_with_ones_vmap(axis_size, in_batched, X, s, mean, scale):
    x_batched, s_batched, m_batched, c_batched = in_batched
    k = X.shape[-1] + 1
    if x_batched or m_batched or c_batched or not s_batched or k * (k + 1) // 2 > MAX_PACKED:
        in_axes = tuple(0 if b else None for b in in_batched)
        return jax.vmap(_gram_with_ones_direct, in_axes=in_axes)(X, s, mean, scale), True
    return weighted_outer_sums(X, s, mean, scale), True


def _gram_with_ones_plain(X, s, mean, scale):
    Z = _with_ones(_standardized(X, mean, scale))
    return t_dot(Z * s[:, None], Z)


@jax.custom_jvp
def _gram_with_ones(X, s, mean, scale):
    return _gram_with_ones_fast(X, s, mean, scale)


@_gram_with_ones.defjvp
def _gram_with_ones_jvp(primals, tangents):
    _, tangent = jax.jvp(_gram_with_ones_plain, primals, tangents)
    return _gram_with_ones_fast(*primals), tangent


def gram_with_ones(X, s, mean=None, scale=None):
    r""":math:`\tilde X^\top\operatorname{diag}(s)\tilde X`, :math:`\tilde X = [X, 1]`, for weights
    :math:`s \ge 0` — (d+1, d+1); the Hessian of a GLM with a linear score. With ``mean`` and
    ``scale`` (d,), :math:`X` is replaced by :math:`(X - \bar x)/\sigma`, formed block by block
    inside the product (never as a whole n x d copy).

    Unbatched: :func:`blocked_gram` of :math:`Z = \tilde X \odot \sqrt s` (one read of ``X``).
    Under ``jax.vmap`` over ``s`` with ``X`` (and ``mean``, ``scale``) shared (a grid of
    penalties), the batch of weights is contracted at once by :func:`weighted_outer_sums`
    (one GEMM of the (B, n) weights with the packed row outer products); with batched
    ``mean``/``scale`` (cross-validation folds) each fit's product is blocked on its own.
    Differentiable (forward and reverse): the derivative is that of the plain product
    :math:`(\tilde X \odot s)^\top\tilde X`.
    """
    if mean is None:
        mean = jnp.zeros(X.shape[1], X.dtype)
        scale = jnp.ones(X.shape[1], X.dtype)
    return _gram_with_ones(X, s, mean, scale)


def weighted_gram(X, y, sample_weight, fit_intercept: bool) -> WeightedGram:
    """Centre (if ``fit_intercept``) and weight ``X``, ``y``; form ``G`` and ``g`` in one product.

    ``X`` may be a :class:`jax.experimental.sparse.BCOO` (:func:`sparse_weighted_gram`)."""
    if _sparse.is_sparse(X):
        return sparse_weighted_gram(X, y, sample_weight, fit_intercept)
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


# --------------------------------------------------------------------------- sparse X
#: the most columns a sparse ``X`` may have in the Gram-based fits (OLS, ridge, lasso): their
#: ``d x d`` Gram matrix is dense (4096 columns: 128 MiB in float64) and its Cholesky costs
#: :math:`d^3/3` flops; read at call time
MAX_GRAM_FEATURES = 4096


def check_gram_data(X, y, *, model: str):
    r"""``check_X_y`` for the Gram-based fits, which also take a sparse ``X``.

    A ``scipy.sparse`` matrix (or a plain-COO ``BCOO``) is validated
    (:func:`jaxclassic._sparse.check_sparse`) and returned as a plain-COO
    :class:`~jax.experimental.sparse.BCOO` in the float dtype ``check_X_y`` would give it;
    a ``ValueError`` naming ``model`` when it has more than :data:`MAX_GRAM_FEATURES` columns
    (the dense ``d x d`` Gram matrix). Dense ``X``: :func:`jaxclassic.validation.check_X_y`.
    """
    from jaxclassic.validation import _float_dtype_for, check_array, check_consistent_length, check_X_y

    if not _sparse.is_sparse(X):
        return check_X_y(X, y)
    if type(X).__module__.startswith("jax.experimental.sparse") and getattr(X, "n_batch", 1) == 0 \
            and getattr(X, "n_dense", 1) == 0 and X.ndim == 2:
        # already a plain COO (the estimator layer's, its stored count padded): checked as it is
        if not jnp.issubdtype(X.dtype, jnp.floating):
            raise TypeError(f"X must hold floats, got dtype {X.dtype}")
        from jaxclassic.validation import is_traced

        if not is_traced(X.data) and not np.isfinite(np.asarray(X.data)).all():
            raise ValueError("X contains NaN or inf among its stored values; it must be finite")
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must have at least one row and one column, got shape {X.shape}")
    else:
        import scipy.sparse as sp

        dtype = _float_dtype_for(np.dtype(X.dtype)) if sp.issparse(X) else None
        X = _sparse.to_bcoo(X, dtype=None if dtype is None else np.dtype(dtype))
    if X.shape[1] > MAX_GRAM_FEATURES:
        raise ValueError(
            f"{model} solves from the dense d x d Gram matrix X^T W X: a sparse X with "
            f"{X.shape[1]} columns is above its limit of {MAX_GRAM_FEATURES} columns "
            "(jaxclassic.linear._gram.MAX_GRAM_FEATURES). Reduce the columns (e.g. "
            "CountVectorizer(max_features=...) or TruncatedSVD), or use a first-order model with "
            "a sparse path (SGDRegressor)")
    y = check_array(y, "y", ndim=1, dtype=X.dtype)
    check_consistent_length(X=X, y=y)
    return X, y


def _column_blocks(n: int, d: int) -> int:
    """Columns per block of the densified ``W X`` in :func:`_sparse_gram` (about
    ``BLOCK_ELEMENTS`` values a block)."""
    return max(1, min(d, BLOCK_ELEMENTS // max(n, 1)))


def _sparse_gram(rows, cols, data, wdata, n: int, d: int):
    r""":math:`X^\top W X` of a COO ``X`` (``rows``, ``cols``, ``data``; ``wdata`` = the values
    times their row's weight): :math:`WX` is densified ``b`` columns at a time (an ``(n, b)``
    block, one scatter of the entries) and multiplied by :math:`X^\top` as a sparse product
    (a gather of the entries' rows and a segment sum over their columns), :math:`O(\mathrm{nnz}\,b)`
    per block and :math:`O(\mathrm{nnz}\,d)` in all; the dense ``X`` is never formed."""
    b = _column_blocks(n, d)
    n_blocks = -(-d // b)
    dtype = data.dtype

    def block(start):
        local = cols - start
        local = jnp.where((local >= 0) & (local < b), local, b)  # outside the block: dropped
        dense = jnp.zeros((n, b), dtype).at[rows, local].add(wdata, mode="drop")
        return jax.ops.segment_sum(data[:, None] * dense[rows], cols, num_segments=d)  # (d, b)

    blocks = jax.lax.map(block, jnp.arange(n_blocks) * b)  # (n_blocks, d, b)
    gram = jnp.transpose(blocks, (1, 0, 2)).reshape(d, n_blocks * b)[:, :d]
    return 0.5 * (gram + gram.T)


def sparse_mean_scale(X, sample_weight):
    r"""Weighted column means and population standard deviations of a COO ``X`` (scale 1 for
    constant columns, as :func:`jaxclassic.linear.features.weighted_mean_scale`), by two passes
    over the stored entries: :math:`\sum_i w_i(x_{ij} - m_j)^2 = \sum_{\text{stored}}
    w_i(x_{ij} - m_j)^2 + (\sum_i w_i - \sum_{\text{stored}} w_i)\,m_j^2` (the implicit zeros);
    padding entries of value 0 count as zeros, correctly."""
    n, d = X.shape
    dtype = X.dtype
    rows, cols = X.indices[:, 0], X.indices[:, 1]
    sw = sample_weight.astype(dtype)
    sw_sum = jnp.sum(sw)
    w = sw[rows]
    mean = jax.ops.segment_sum(w * X.data, cols, num_segments=d) / sw_sum
    stored_w = jax.ops.segment_sum(w, cols, num_segments=d)
    dev = jax.ops.segment_sum(w * jnp.square(X.data - mean[cols]), cols, num_segments=d)
    var = (dev + (sw_sum - stored_w) * jnp.square(mean)) / sw_sum
    constant = constant_columns(var, mean) | (var <= 0)
    return mean, jnp.where(constant, jnp.ones_like(var), jnp.sqrt(jnp.maximum(var, 0))), var, constant


def sparse_weighted_gram(X, y, sample_weight, fit_intercept: bool) -> WeightedGram:
    r""":class:`WeightedGram` of a plain-COO :class:`~jax.experimental.sparse.BCOO` ``X``
    without the dense ``X``: :math:`O(\mathrm{nnz}\,d)` work (:func:`_sparse_gram`) and
    :math:`O(d^2 + n\,b)` memory.

    Centring cannot shift a sparse ``X`` (it would fill it), so with an intercept the centred
    statistics come from the uncentred ones by the rank-one identities
    :math:`G = X^\top WX - (\sum_i w_i)\bar x\bar x^\top`,
    :math:`g = X^\top W(y - t) - (\sum_i w_i)\bar x\,(\bar y - t)` (``y`` is dense and is
    shifted by :math:`t`, as in :func:`weighted_gram`); the diagonal of :math:`G` is the
    two-pass :math:`\sum_i w_i(x_{ij} - \bar x_j)^2` (:func:`sparse_mean_scale`), exact
    for a constant column. The identity loses about :math:`\varepsilon\,\bar x_j\bar x_k\sum w`
    absolutely in :math:`G_{jk}`, negligible for sparse columns (mostly zeros: means small
    against their spread) but not for a dense column with a mean far above its sd.
    ``Xw`` is ``None`` (the weighted ``X`` is not formed); ``yw`` is :math:`\sqrt w(y - \bar y)`.
    """
    dtype = X.dtype
    n, d = X.shape
    rows, cols = X.indices[:, 0], X.indices[:, 1]
    sw = sample_weight.astype(dtype)
    sw_sum = jnp.sum(sw)
    root = jnp.sqrt(sw)
    wdata = X.data * sw[rows]
    gram = _sparse_gram(rows, cols, X.data, wdata, n, d)
    if not fit_intercept:
        zero = jnp.zeros((), dtype)
        xty = jax.ops.segment_sum(wdata * y[rows], cols, num_segments=d)
        return WeightedGram(gram, xty, jnp.zeros(d, dtype), zero, sw_sum, jnp.zeros(d, bool),
                            _precision.dot(sw, jnp.square(y)), None, y * root)
    stride = max(1, n // SHIFT_ROWS)
    w_sub = sw[::stride]
    total = jnp.sum(w_sub)
    y_shift = jnp.where(total > 0, _precision.dot(w_sub, y[::stride]) / jnp.where(total > 0, total, 1), 0)
    yc = y - y_shift
    dy = _precision.dot(sw, yc) / sw_sum
    x_mean, _, variance, constant = sparse_mean_scale(X, sw)
    gram = gram - sw_sum * jnp.outer(x_mean, x_mean)
    gram = gram.at[jnp.arange(d), jnp.arange(d)].set(sw_sum * variance)
    xty = jax.ops.segment_sum(wdata * yc[rows], cols, num_segments=d) - sw_sum * x_mean * dy
    keep = jnp.logical_not(constant).astype(dtype)
    gram = gram * keep[:, None] * keep[None, :]
    xty = xty * keep
    y_mean = y_shift + dy
    yw = (y - y_mean) * root
    return WeightedGram(gram, xty, x_mean, y_mean, sw_sum, constant, _precision.dot(yw, yw), None, yw)


# --------------------------------------------------------------------------- solving G beta = g
#: the eigendecomposition of the raw Gram matrix is trusted when the grading of its columns
#: costs at most this relative accuracy: eps * (largest / smallest column scale)^2 <= 1e-5
#: (float32: a spread of column norms up to ~9; float64: up to ~2e5)
GRADING_TOL = 1e-5


def equilibrate(gram):
    r"""Column scales :math:`s_j = \sqrt{G_{jj}}` (1 where :math:`G_{jj} = 0`) and the
    unit-diagonal :math:`S^{-1} G S^{-1}`.

    The entries of a Gram matrix formed by a product carry rounding relative to
    :math:`\sqrt{G_{ii}G_{jj}}` (Cauchy-Schwarz), so after this scaling every entry is known to
    about :math:`n\varepsilon` absolutely, whatever the units of the columns: rank decisions
    and factorisations of :math:`S^{-1}GS^{-1}` are invariant to the scale of the columns
    (van der Sluis 1969: this diagonal scaling is within a factor :math:`\sqrt d` of the best).
    """
    diag = jnp.diagonal(gram)
    positive = diag > 0
    scale = jnp.where(positive, jnp.sqrt(jnp.where(positive, diag, 1)), 1).astype(gram.dtype)
    return scale, gram / scale[:, None] / scale[None, :]


def graded(gram):
    r"""Whether :math:`G`'s columns differ so much in scale that an eigendecomposition of the
    raw :math:`G` (absolute error :math:`\varepsilon\lVert G\rVert`) loses the small-scale
    directions: :math:`\varepsilon\,(\max_j s_j / \min_j s_j)^2 >` ``GRADING_TOL`` over the
    columns with :math:`G_{jj} > 0`. A traced boolean scalar."""
    diag = jnp.diagonal(gram)
    positive = diag > 0
    big = jnp.max(jnp.where(positive, diag, 0))
    small = jnp.min(jnp.where(positive, diag, jnp.inf))
    spread2 = jnp.where(jnp.any(positive), big / small, 1)  # (max s / min s)^2
    return jnp.finfo(gram.dtype).eps * spread2 > GRADING_TOL


def min_norm_solve(gram, xty, rcond):
    r"""Minimum-norm solution of :math:`G\beta = g` and the numerical rank of :math:`G`.

    The rank is decided on the equilibrated :math:`G_s = S^{-1}GS^{-1}` (:func:`equilibrate`):
    eigenvalues of :math:`G_s` at most ``rcond`` times the largest count as zero, so a column
    in small units is not mistaken for a null direction. With :math:`G_s = V\Lambda V^\top`,
    :math:`\beta_0 = S^{-1}V\Lambda^{+}V^\top S^{-1}g` solves the normal equations (and is
    the solution of least :math:`\lVert S\beta\rVert`); the null space of :math:`G` is
    :math:`N = S^{-1}V_0` (:math:`V_0` the dropped eigenvectors), and removing the component of
    :math:`\beta_0` in it gives the least **Euclidean** norm solution — that of
    ``numpy.linalg.lstsq`` — with the same fitted values:
    :math:`\beta = \beta_0 - N(N^\top N)^{-1}N^\top\beta_0` (Golub & Van Loan §5.5).
    Components of :math:`V_0` below their rounding level (about
    :math:`\text{rcond}\,\lambda_{\max}/\lambda_{\min,\text{kept}}`, Davis-Kahan) are set to 0
    first, because :math:`S^{-1}` would magnify them on columns in small units; so on badly
    scaled columns the result is the least-norm solution up to that resolution, and the fitted
    values are always those of the least-squares fit.
    """
    scale, gs = equilibrate(gram)
    rhs = xty / scale
    evals, evecs = _linalg.eigh(gs)
    keep = evals > rcond * jnp.maximum(evals[-1], 0)
    inv = jnp.where(keep, 1.0 / jnp.where(keep, evals, 1), 0)
    beta = _precision.matmul(evecs, inv * _precision.matmul(evecs.T, rhs)) / scale
    # An eigenvector of G_s is known to about rcond * lambda_max / (gap to the kept spectrum)
    # (Davis-Kahan); below that a component is rounding, and S^{-1} would blow it up on a
    # column in small units (1e-7 on a column of norm 1e-2 outweighs the true null direction
    # on columns of norm 1e5): such components are set to 0 before mapping back.
    smallest_kept = jnp.min(jnp.where(keep, evals, jnp.inf))
    noise = rcond * jnp.maximum(evals[-1], 0) / jnp.where(jnp.isfinite(smallest_kept), smallest_kept, 1)
    null_scaled = jnp.where(jnp.abs(evecs) > noise, evecs, 0)
    null = (null_scaled / scale[:, None]) * jnp.logical_not(keep)[None, :]
    norms = jnp.sqrt(jnp.sum(jnp.square(null), axis=0))
    null = null / jnp.where(norms > 0, norms, 1)
    metric = _precision.matmul(null.T, null) + jnp.diag(keep.astype(gram.dtype))
    beta = beta - _precision.matmul(null, _linalg.solve(metric, _precision.matmul(null.T, beta)))
    return beta, jnp.sum(keep).astype(jnp.int32)


def solve_normal_equations(gram, xty, rcond):
    r"""Solve :math:`G\beta = g` by Cholesky of the equilibrated :math:`S^{-1}GS^{-1}`, falling
    back to :func:`min_norm_solve` when it is numerically singular; returns ``(beta, rank)``.

    The Cholesky path is taken when every pivot :math:`L_{jj}^2` of the unit-diagonal
    :math:`S^{-1}GS^{-1}` exceeds ``rcond`` (:math:`1 - R_j^2 > \text{rcond}`, with
    :math:`R_j^2` from regressing column :math:`j` on the earlier ones); the rank is then
    :math:`d`.
    """
    d = gram.shape[0]
    scale, gs = equilibrate(gram)
    chol = _linalg.cholesky(gs)
    pivots = jnp.square(jnp.diagonal(chol))
    well_posed = jnp.all(jnp.isfinite(chol)) & jnp.all(pivots > rcond)

    def by_cholesky(_):
        safe = jnp.where(well_posed, chol, jnp.eye(d, dtype=gram.dtype))
        return cho_solve((safe, True), xty / scale) / scale, jnp.int32(d)

    def by_pseudo_inverse(_):
        return min_norm_solve(gram, xty, rcond)

    return jax.lax.cond(well_posed, by_cholesky, by_pseudo_inverse, None)
