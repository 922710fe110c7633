"""The jitted core of :mod:`jaxclassic.discriminant.discrete_nb`: products with dense or sparse
``X`` (a :class:`jax.experimental.sparse.BCOO`, O(nnz)), the smoothed log-probabilities, the count
update and the class scores. The formulas are in that module's docstring."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic import _sparse

__all__ = []


# --------------------------------------------------------------------------- products
def _is_bcoo(X) -> bool:
    return type(X).__module__.startswith("jax.experimental.sparse")


def _rows_dot(X, W):
    """``X @ W.T``, (n, C), for dense ``X`` or a BCOO (O(nnz C))."""
    if _is_bcoo(X):
        from jax.experimental import sparse as jsparse

        return jsparse.bcoo_dot_general(X, W.T, dimension_numbers=(([1], [0]), ([], [])))
    return _precision.matmul(X, W.T)


def _class_sums(X, resp):
    """``resp.T @ X``, (C, d): the class-feature counts, dense or from a BCOO."""
    if _is_bcoo(X):
        from jax.experimental import sparse as jsparse

        return jsparse.bcoo_dot_general(X, resp, dimension_numbers=(([0], [0]), ([], []))).T
    return _precision.matmul(resp.T, X)


def _xdot(X, W):
    r"""``X @ W.T`` with :math:`0\cdot(\pm\infty) = 0` (non-negative ``X``; ``W`` may hold
    :math:`\pm\infty` when ``alpha = 0``). The masked products run only when ``W`` has an
    infinity (``lax.cond``)."""

    def plain(W):
        return _rows_dot(X, W)

    def masked(W):
        finite = jnp.isfinite(W)
        base = _rows_dot(X, jnp.where(finite, W, 0))
        pos = _rows_dot(X, (W == jnp.inf).astype(W.dtype)) > 0
        neg = _rows_dot(X, (W == -jnp.inf).astype(W.dtype)) > 0
        return base + jnp.where(pos, jnp.inf, 0) + jnp.where(neg, -jnp.inf, 0)

    return jax.lax.cond(jnp.all(jnp.isfinite(W)), plain, masked, W)


def _binarized(X, threshold, binarize_input):
    """``X > threshold`` (as X's dtype) where ``binarize_input``, else ``X``; a BCOO stays a BCOO
    (a threshold ``>= 0`` keeps its implicit zeros 0)."""
    if _is_bcoo(X):
        from jax.experimental import sparse as jsparse

        data = jnp.where(binarize_input, (X.data > threshold).astype(X.data.dtype), X.data)
        return jsparse.BCOO((data, X.indices), shape=X.shape)
    return jnp.where(binarize_input, (X > threshold).astype(X.dtype), X)


# --------------------------------------------------------------------------- log-probabilities
def _log_ratio(num, den):
    """``log(num) - log(den)``; ``-inf`` where ``den`` is 0 (an empty class with ``alpha = 0``)."""
    ok = den > 0
    return jnp.where(ok, jnp.log(num) - jnp.log(jnp.where(ok, den, 1)), -jnp.inf)


def _class_log_prior(class_count, priors, fit_prior: bool):
    if priors is not None:
        return jnp.log(priors.astype(class_count.dtype))
    if fit_prior:
        total = class_count.sum()
        return jnp.log(class_count) - jnp.log(total)
    n_classes = class_count.shape[0]
    return jnp.full((n_classes,), -np.log(n_classes), class_count.dtype)


def _multinomial_log_prob(feature_count, alpha):
    smoothed = feature_count + alpha
    return _log_ratio(smoothed, smoothed.sum(axis=1, keepdims=True))


def _bernoulli_log_prob(class_count, feature_count, alpha):
    return _log_ratio(feature_count + alpha, class_count[:, None] + 2 * alpha)


def _complement_weights(feature_count, feature_all, alpha, norm: bool):
    comp = feature_all[None, :] + alpha - feature_count
    logged = _log_ratio(comp, comp.sum(axis=1, keepdims=True))
    if norm:
        return logged / logged.sum(axis=1, keepdims=True)
    return -logged


# --------------------------------------------------------------------------- jitted core
@partial(_jit.jit, static_argnames=("kind", "n_classes", "fit_prior", "norm"))
def update_counts(class_count, feature_count, X, y, sample_weight, alpha, priors, binarize, binarize_input,
            *, kind, n_classes, fit_prior, norm):
    """Add the batch's counts to ``class_count`` / ``feature_count`` and recompute the
    log-probabilities; returns the fields of the ``kind``'s params type, in order."""
    dtype = class_count.dtype
    if kind == "bernoulli":
        X = _binarized(X, binarize, binarize_input)
    resp = jax.nn.one_hot(y, n_classes, dtype=dtype) * sample_weight[:, None].astype(dtype)
    class_count = class_count + resp.sum(axis=0)
    feature_count = feature_count + _class_sums(X, resp)
    log_prior = _class_log_prior(class_count, priors, fit_prior)
    if kind == "multinomial":
        return class_count, feature_count, log_prior, _multinomial_log_prob(feature_count, alpha)
    if kind == "bernoulli":
        return (class_count, feature_count, log_prior, _bernoulli_log_prob(class_count, feature_count, alpha),
                jnp.asarray(binarize, dtype), jnp.asarray(binarize_input))
    feature_all = feature_count.sum(axis=0)
    return (class_count, feature_count, feature_all, log_prior,
            _complement_weights(feature_count, feature_all, alpha, norm))


@partial(_jit.jit, static_argnames=("kind",))
def scores(params, X, *, kind):
    if kind == "multinomial":
        return _xdot(X, params.feature_log_prob) + params.class_log_prior[None, :]
    if kind == "complement":
        scores = _xdot(X, params.feature_log_prob)
        if params.class_log_prior.shape[0] == 1:
            scores = scores + params.class_log_prior[None, :]
        return scores
    # Bernoulli: sum_j x_j log p + (1 - x_j) log(1 - p) = X @ log p + sum_j log(1-p) - X @ log(1-p),
    # the last two with their infinities (p = 1) kept apart so that 0 * inf stays 0
    X = _binarized(X, params.binarize, params.binarize_input)
    flp = params.feature_log_prob
    neg = jnp.log1p(-jnp.exp(flp))
    finite = jnp.isfinite(neg)
    neg_finite = jnp.where(finite, neg, 0)
    # rows with x_j < 1 on a feature of p = 1: log(1 - p) = -inf
    absent_inf = jnp.sum(~finite, axis=1)[None, :] - _rows_dot(X, (~finite).astype(flp.dtype))
    return (_xdot(X, flp) + neg_finite.sum(axis=1)[None, :] - _rows_dot(X, neg_finite)
            + jnp.where(absent_inf > 0, -jnp.inf, 0) + params.class_log_prior[None, :])


def nnz_capacity(nnz: int) -> int:
    """Stored values rounded up to a bucket (next power of two from 64, then eighths), so that
    sparse matrices of nearby sizes share one compiled program."""
    n = max(int(nnz), 64)
    if n <= 4096:
        return 1 << (n - 1).bit_length()
    step = 1 << ((n - 1).bit_length() - 4)
    return -(-n // step) * step


def sparse_operand(X, dtype, name: str = "X"):
    """A validated ``scipy.sparse`` / BCOO ``X`` as a plain-COO BCOO of ``dtype`` whose stored
    values are padded (value 0 at (0, 0)) to :func:`_nnz_capacity`; returns ``(bcoo, csr)``."""
    from jax.experimental import sparse as jsparse

    csr = _sparse.check_sparse(X, name, dtype=np.dtype(dtype))
    coo = csr.tocoo()
    capacity = nnz_capacity(coo.nnz)
    data = np.zeros(capacity, dtype)
    indices = np.zeros((capacity, 2), np.int32)
    data[:coo.nnz] = coo.data
    indices[:coo.nnz, 0] = coo.row
    indices[:coo.nnz, 1] = coo.col
    return jsparse.BCOO((jnp.asarray(data), jnp.asarray(indices)), shape=csr.shape), csr
