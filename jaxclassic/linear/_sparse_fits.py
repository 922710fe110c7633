r"""Logistic and softmax regression on sparse ``X``: L-BFGS on a BCOO matrix, never densified.

The objectives are those of :mod:`jaxclassic.linear.logistic` and :mod:`jaxclassic.linear.softmax`
(summed weighted loss of the shared :mod:`jaxclassic.losses` + :math:`\tfrac{\lambda}{2}\lVert W\rVert^2`,
intercepts unpenalised), minimised divided by :math:`\sum_i s_i` by ``optax.lbfgs``
(:func:`jaxclassic._solver.minimize_optax`), stopping when the gradient norm of that averaged
objective is at most ``tol``. ``X`` enters as a plain-COO
:class:`jax.experimental.sparse.BCOO` (:func:`jaxclassic._sparse.to_bcoo`): the scores are
:math:`XW^\top` and the gradient's data term :math:`X^\top G` (autodiff of the sparse product),
each :math:`O(\mathrm{nnz})` per class, so memory and work follow the stored values, not
:math:`n d`. The columns are scaled, not centred (centring would fill the matrix): the fit
runs on :math:`Z = X/\sigma` with :math:`\sigma_j` the weighted root mean square of column
:math:`j` (1 for an empty column), computed from the stored values, and the penalty
:math:`\tfrac12\sum_j(\lambda/\sigma_j^2)w_{Z,j}^2` (the same objective; :math:`w = w_Z/\sigma`),
which is what makes L-BFGS converge on columns of unequal scale (iris in centimetres: 100
iterations unconverged without it). ``tol`` is on the gradient of the averaged objective in
that basis.

The fits run on stopped inputs (no implicit derivatives through a sparse ``X``).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxclassic import _jit, _sparse, losses
from jaxclassic._solver import minimize_optax
from jaxclassic.linear._newton import HISTORY_SIZE, weighted_sum

__all__ = ["fit_logistic_lbfgs", "fit_softmax_lbfgs", "fit_softmax_sparse"]


def _check_sparse_classifier_data(X, y, sample_weight, n_classes=2):
    """A sparse ``X`` validated, with ``y`` and ``sample_weight`` checked as for dense input.

    A ``scipy.sparse`` matrix becomes a plain-COO BCOO (:func:`jaxclassic._sparse.to_bcoo`,
    validated there) in the float dtype JAX computes in; a plain-COO BCOO (the estimator
    layer's, its stored count padded to a bucket) is kept, its stored values checked finite.
    Returns ``(X, y, sample_weight, n_classes)``."""
    from jaxclassic.validation import check_classifier_data, is_traced

    if type(X).__module__.startswith("jax.experimental.sparse") and X.n_batch == 0 and X.n_dense == 0:
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must be 2-D with at least one row and one column, got shape {X.shape}")
        if not is_traced(X.data) and not bool(np.all(np.isfinite(np.asarray(X.data)))):
            raise ValueError("X contains NaN or inf among its stored values; it must be finite")
        dtype = jax.dtypes.canonicalize_dtype(X.dtype if X.dtype in (np.float32, np.float64) else np.float64)
    else:
        csr = _sparse.check_sparse(X)
        dtype = jax.dtypes.canonicalize_dtype(csr.dtype)
        X = _sparse.to_bcoo(csr, dtype=np.dtype(dtype))
    X = _sparse.predict_operand(X, dtype)
    # y and the weights take the dense checks against a one-column stand-in of X's rows
    _, y, sw, n_classes = check_classifier_data(np.zeros((X.shape[0], 1), dtype), y, sample_weight,
                                                n_classes=n_classes)
    return X, y, sw, n_classes


def _bcoo(X, dtype):
    return _sparse.predict_operand(X, dtype)  # a plain-COO BCOO of the compute dtype


def _column_scale(Xs, sw, total):
    """Weighted root mean square of each column from the stored values (1 for an empty one)."""
    rows, cols = Xs.indices[:, 0], Xs.indices[:, 1]
    w = jnp.where(sw > 0, sw, 0)[rows]
    ms = jax.ops.segment_sum(w * Xs.data**2, cols, num_segments=Xs.shape[1]) / total
    return jnp.where(ms > 0, jnp.sqrt(jnp.where(ms > 0, ms, 1)), 1).astype(Xs.dtype)


def fit_logistic_lbfgs(X, y, sw, l2, tol, max_iter, *, fit_intercept: bool):
    """Binary logistic regression (``LogisticParams``) by L-BFGS on a sparse ``X`` (validated CSR)."""
    Xs = _bcoo(X, jnp.asarray(l2).dtype)
    return _logistic(Xs, y, sw, l2, tol, max_iter, fit_intercept=fit_intercept)


@partial(_jit.jit, static_argnames=("fit_intercept",))
def _logistic(Xs, y, sw, l2, tol, max_iter, *, fit_intercept):
    from jaxclassic.linear.logistic import LogisticParams

    dtype = Xs.dtype
    d = Xs.shape[1]
    y = y.astype(dtype)
    total = jnp.sum(jnp.where(sw > 0, sw, 0))
    fi = jnp.asarray(fit_intercept, dtype)
    ybar = jnp.clip(weighted_sum(sw, y) / total, 1e-3, 1 - 1e-3)
    b0 = jnp.where(fit_intercept, jnp.log(ybar) - jnp.log1p(-ybar), 0).astype(dtype)
    theta0 = jnp.zeros(d + 1, dtype).at[d].set(b0)
    scale = _column_scale(Xs, sw, total)
    penalty = l2 / scale**2

    def scores(theta):  # Z theta_w with Z = X / scale
        return Xs @ (theta[:d] / scale) + fi * theta[d]

    def fun(theta):
        data = weighted_sum(sw, losses.log_loss(y, scores(theta)))
        return (data + 0.5 * jnp.sum(penalty * theta[:d] ** 2)) / total

    res = minimize_optax(fun, theta0, optax.lbfgs(), max_iter=max_iter, tol=tol,
                         history_size=HISTORY_SIZE)
    theta = res.carry[0]
    intercept = fi * theta[d]
    f = scores(theta)
    separated = (l2 == 0) & jnp.all(((2 * y - 1) * f > 0) | (sw <= 0))
    return LogisticParams(theta[:d] / scale, intercept, res.n_iter, res.converged & ~separated,
                          res.history, separated)


def fit_softmax_lbfgs(X, y, sw, l2, tol, max_iter, *, n_classes: int, fit_intercept: bool):
    """Multinomial regression (``SoftmaxParams``) by L-BFGS on a sparse ``X`` (validated CSR)."""
    Xs = _bcoo(X, jnp.asarray(l2).dtype)
    return _softmax(Xs, y, sw, l2, tol, max_iter, n_classes=n_classes, fit_intercept=fit_intercept)


@partial(_jit.jit, static_argnames=("n_classes", "fit_intercept"))
def _softmax(Xs, y, sw, l2, tol, max_iter, *, n_classes, fit_intercept):
    from jaxclassic.linear.softmax import SoftmaxParams, _own_class_margins

    dtype = Xs.dtype
    d = Xs.shape[1]
    total = jnp.sum(jnp.where(sw > 0, sw, 0))
    fi = jnp.asarray(fit_intercept, dtype)
    counts = jnp.zeros(n_classes, dtype).at[y].add(jnp.where(sw > 0, sw, 0))
    log_prior = jnp.log(jnp.clip(counts / total, 1e-3, 1.0))
    b0 = jnp.where(fit_intercept, log_prior - jnp.mean(log_prior), 0).astype(dtype)
    absent = jnp.asarray(fit_intercept) & jnp.any(counts <= 0)
    B0 = jnp.zeros((n_classes, d + 1), dtype).at[:, d].set(b0)
    scale = _column_scale(Xs, sw, total)
    penalty = l2 / scale**2

    def scores(B):  # Z W^T with Z = X / scale
        return (Xs @ (B[:, :d] / scale).T) + fi * B[:, d]

    def fun(B):
        data = weighted_sum(sw, losses.softmax_cross_entropy(y, scores(B)))
        return (data + 0.5 * jnp.sum(penalty * B[:, :d] ** 2)) / total

    res = minimize_optax(fun, B0, optax.lbfgs(), max_iter=max_iter, tol=tol,
                         history_size=HISTORY_SIZE)
    B = res.carry[0]
    # the optimum is centred over classes (module softmax); L-BFGS from a centred start stays
    # centred up to rounding: remove it (the probabilities do not change)
    B = B - jnp.mean(B, axis=0)
    B = B.at[:, d].multiply(fi)
    separated = ((l2 == 0) & jnp.all((_own_class_margins(scores(B), y) > 0) | (sw <= 0))) | absent
    return SoftmaxParams(B[:, :d] / scale, B[:, d], res.n_iter, res.converged & ~separated, res.history,
                         separated)


def fit_softmax_sparse(X, y, *, n_classes, l2, fit_intercept, max_iter, tol, sample_weight):
    """:func:`jaxclassic.linear.fit_softmax` for a sparse ``X`` (its ``"auto"`` / ``"lbfgs"``
    methods): validation, L-BFGS on the BCOO, the fit's warnings."""
    from jaxclassic.linear._newton import default_tol, warn_after_fit
    from jaxclassic.linear.softmax import _warn_absent_classes
    from jaxclassic.validation import as_operand, check_scalar

    Xs, y, sw, n_classes = _check_sparse_classifier_data(X, y, sample_weight, n_classes=n_classes)
    l2 = check_scalar(l2, "l2", low=0.0)
    tol = default_tol(Xs.dtype) if tol is None else check_scalar(tol, "tol", low=0.0)
    params = _softmax(Xs, y, sw.astype(Xs.dtype), as_operand(l2, Xs.dtype), as_operand(tol, Xs.dtype),
                      as_operand(max_iter, jnp.int32), n_classes=n_classes, fit_intercept=fit_intercept)
    model = "fit_softmax(method='lbfgs')"
    if not _warn_absent_classes(params, y, sw, model, fit_intercept):
        warn_after_fit(params, model, l2, max_iter)
    return params
