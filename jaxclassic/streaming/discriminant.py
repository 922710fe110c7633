r"""Gaussian naive Bayes and LDA from row blocks (data larger than memory).

Both depend on the data only through the per-class weight :math:`N_k = \sum_i w_i[y_i{=}k]`,
mean :math:`\mu_k` and centred scatter :math:`M_k = \sum_i w_i[y_i{=}k](x_i-\mu_k)(x_i-\mu_k)^\top`
(diagonal for naive Bayes, full for LDA); the pooled and overall statistics (LDA's
within-class covariance, naive Bayes' ``epsilon`` from the overall variances) follow from
them. One pass accumulates them by Chan's merge, piece by piece with one jitted function
(:mod:`jaxclassic.streaming._blocks`: never a raw sum of squares, so no cancellation), and
the fit is then :func:`jaxclassic.discriminant.fit_gaussian_nb` /
:func:`~jaxclassic.discriminant.fit_lda` themselves on the :math:`2d`-rows-per-class weighted
sample with exactly these moments (:func:`jaxclassic.streaming._blocks.pseudo_sample`): the
priors, smoothing, shrinkage, centring and solvers are those of the in-memory fits.

References
----------
Chan, Golub & LeVeque, The American Statistician 37 (1983); ESL §4.3; Mitchell (1997) §6.9.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic.discriminant._common import check_priors, class_prior, safe_divide
from jaxclassic.discriminant.lda_qda import LDAParams, _check_lda_options
from jaxclassic.discriminant.lda_qda import fit_lda as _fit_lda_memory
from jaxclassic.discriminant.naive_bayes import GaussianNBParams
from jaxclassic.discriminant.naive_bayes import fit_gaussian_nb as _fit_gaussian_nb_memory
from jaxclassic.streaming._blocks import (
    DEFAULT_CHUNK_ROWS,
    GroupMoments,
    Source,
    accumulate_moments,
    block_moments,
    merge_moments,
    pseudo_sample,
)
from jaxclassic.validation import (
    check_classification_targets,
    check_consistent_length,
    check_int,
    check_predict_X,
    check_sample_weight,
    check_scalar,
)

__all__ = ["class_moments", "fit_gaussian_nb", "fit_lda", "update_gaussian_nb"]


def class_moments(data, y=None, *, n_classes: int, full: bool, sample_weight=None,
                  chunk_rows: int = DEFAULT_CHUNK_ROWS, progress: bool = False):
    r"""Per-class weight, mean and centred scatter of ``X`` in one pass (Chan's merge).

    Parameters
    ----------
    data : (n, d) array / np.memmap, or an iterable (or callable returning one) of (X, y, w)
    y : (n,) int class codes ``0..n_classes-1`` with array ``data``
    n_classes : int >= 2 (static)
    full : bool
        Full (C, d, d) scatter (LDA) or its diagonal (C, d) (naive Bayes).
    sample_weight, chunk_rows, progress
        As :func:`jaxclassic.streaming.fit_ols`.

    Returns
    -------
    GroupMoments
        ``count`` (C,), ``mean`` (C, d), ``scatter`` (C, d, d) or (C, d).
    """
    n_classes = check_int(n_classes, "n_classes", low=2)
    source = Source(data, y, sample_weight, chunk_rows=chunk_rows, target="class",
                    n_classes=n_classes, progress=progress, desc="class moments")
    return accumulate_moments(source, lambda piece: (piece.X, piece.y), n_classes, full)


def _check_priors_first(priors, n_classes):
    """``priors`` checked before the pass over the data (the in-memory fit checks it again)."""
    if priors is not None:
        check_priors(priors, check_int(n_classes, "n_classes", low=2), jnp.float32)


def fit_gaussian_nb(data, y=None, *, n_classes: int, priors=None, var_smoothing=1e-9,
                    sample_weight=None, chunk_rows: int = DEFAULT_CHUNK_ROWS,
                    progress: bool = False) -> GaussianNBParams:
    r"""Gaussian naive Bayes from row blocks, equal to :func:`jaxclassic.discriminant.fit_gaussian_nb`.

    :math:`\theta_{kj} = \mu_{kj}`, :math:`\sigma^2_{kj} = M_{k,jj}/N_k + \varepsilon`,
    :math:`\pi_k = N_k/\sum_c N_c`, with :math:`\varepsilon` = ``var_smoothing`` times the
    largest overall weighted feature variance (module docstring).

    Parameters
    ----------
    data : (n, d) array or np.memmap, or an iterable of ``(X, y, w)`` blocks (or a callable
        returning one)
    y : (n,) int class codes, only with array ``data``
    n_classes : int >= 2
        Required (the classes cannot be counted before the pass).
    priors, var_smoothing
        As the in-memory fit.
    sample_weight, chunk_rows, progress
        As :func:`jaxclassic.streaming.fit_ols`.

    Returns
    -------
    GaussianNBParams

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.2], [1.0], [1.2]]); y = np.array([0, 0, 1, 1])
    >>> fit_gaussian_nb(X, y, n_classes=2, chunk_rows=2).theta.shape
    (2, 1)

    References
    ----------
    Mitchell, *Machine Learning* (1997), §6.9; Chan, Golub & LeVeque (1983).
    """
    check_scalar(var_smoothing, "var_smoothing", low=0.0)  # before the pass over the data
    _check_priors_first(priors, n_classes)
    moments = class_moments(data, y, n_classes=n_classes, full=False, sample_weight=sample_weight,
                            chunk_rows=chunk_rows, progress=progress)
    X, yp, w = pseudo_sample(moments)
    return _fit_gaussian_nb_memory(X, yp, n_classes=n_classes, priors=priors,
                                   var_smoothing=var_smoothing, sample_weight=w)


def fit_lda(data, y=None, *, n_classes: int, priors=None, shrinkage=None, solver: str = "eigh",
            sample_weight=None, chunk_rows: int = DEFAULT_CHUNK_ROWS,
            progress: bool = False) -> LDAParams:
    r"""Linear discriminant analysis from row blocks, equal to :func:`jaxclassic.discriminant.fit_lda`.

    :math:`\Sigma = \sum_k\pi_k[(1-s)S_k + s\frac{\operatorname{tr}S_k}{d}I]`,
    :math:`S_k = M_k/N_k`, :math:`w_k = \Sigma^{-1}(\mu_k - \bar x)` (the in-memory fit's
    formulas, on the class moments of one pass).

    Parameters
    ----------
    data, y, n_classes, sample_weight, chunk_rows, progress
        As :func:`fit_gaussian_nb`.
    priors, shrinkage, solver
        As :func:`jaxclassic.discriminant.fit_lda`.

    Returns
    -------
    LDAParams

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.1], [0.3, -0.2], [2.0, 2.1], [2.2, 1.8]]); y = np.array([0, 0, 1, 1])
    >>> fit_lda(X, y, n_classes=2, chunk_rows=2).coef.shape
    (2, 2)

    References
    ----------
    Hastie, Tibshirani & Friedman, *ESL*, 2nd ed., §4.3; Chan, Golub & LeVeque (1983).
    """
    _check_lda_options(shrinkage, solver)  # before the pass over the data
    _check_priors_first(priors, n_classes)
    moments = class_moments(data, y, n_classes=n_classes, full=True, sample_weight=sample_weight,
                            chunk_rows=chunk_rows, progress=progress)
    X, yp, w = pseudo_sample(moments)
    return _fit_lda_memory(X, yp, n_classes=n_classes, priors=priors, shrinkage=shrinkage,
                           solver=solver, sample_weight=w)


# --------------------------------------------------------------------------- partial_fit
@_jit.jit
def _update_gaussian_nb(params: GaussianNBParams, X, y, sample_weight, priors, var_smoothing):
    n_classes = params.class_count.shape[0]
    dtype = params.theta.dtype
    old = GroupMoments(params.class_count, params.theta,
                       params.class_count[:, None] * (params.var - params.epsilon))
    merged = merge_moments(old, block_moments(X, y, sample_weight.astype(dtype), n_classes, False))
    count, theta, scatter = merged
    # the overall weighted variance of every feature (epsilon's scale) from the class moments:
    # total scatter = sum_k M_k + sum_k N_k (theta_k - mean)^2 (Chan's merge over the classes)
    total = count.sum()
    mean_all = _precision.matmul(count, theta) / total
    var_all = (scatter.sum(axis=0) + _precision.matmul(count, jnp.square(theta - mean_all))) / total
    max_var = jnp.max(var_all, initial=0.0)
    epsilon = jnp.asarray(var_smoothing, dtype) * jnp.where(max_var > 0, max_var, 1.0)
    var = safe_divide(scatter, count[:, None]) + epsilon
    return GaussianNBParams(theta, var, class_prior(count, priors), count, epsilon)


def empty_gaussian_nb(n_classes: int, n_features: int, dtype=jnp.float32) -> GaussianNBParams:
    """Gaussian naive Bayes params of no rows (zero counts, means and variances), the start of
    :func:`update_gaussian_nb` when the first batch need not hold every class (scikit-learn's
    first ``partial_fit(..., classes=...)``)."""
    n_classes = check_int(n_classes, "n_classes", low=1)
    n_features = check_int(n_features, "n_features", low=1)
    zeros = jnp.zeros((n_classes, n_features), dtype)
    return GaussianNBParams(zeros, zeros, jnp.zeros(n_classes, dtype), jnp.zeros(n_classes, dtype),
                            jnp.zeros((), dtype))


def update_gaussian_nb(params: GaussianNBParams, X: Any, y: Any, *, priors: Any = None,
                       var_smoothing: float | jax.Array = 1e-9,
                       sample_weight: Any = None) -> GaussianNBParams:
    r"""Add a batch of rows to fitted Gaussian naive Bayes: scikit-learn's ``partial_fit``.

    The params hold each class's weight :math:`N_k`, mean :math:`\theta_k` and variance, i.e.
    its centred scatter :math:`M_k = N_k(\sigma^2_k - \varepsilon)`; the batch's moments are
    merged in by Chan, Golub & LeVeque's update (:func:`jaxclassic.streaming._blocks.merge_moments`,
    the one the streaming fits use; scikit-learn's ``_update_mean_variance``):

    .. math::

        N = N_a + N_b,\quad \theta = \theta_a + \tfrac{N_b}{N}(\theta_b - \theta_a),\quad
        M = M_a + M_b + \tfrac{N_a N_b}{N}(\theta_b - \theta_a)^2,

    then :math:`\sigma^2_k = M_k/N_k + \varepsilon` with :math:`\varepsilon` = ``var_smoothing``
    times the largest overall weighted feature variance of *all* the rows seen (from the merged
    class moments), so fitting batch after batch equals :func:`jaxclassic.discriminant.fit_gaussian_nb`
    on all the rows (to rounding). scikit-learn's ``partial_fit`` takes :math:`\varepsilon` from
    the last batch alone.

    Parameters
    ----------
    params : GaussianNBParams
        A fit, or :func:`empty_gaussian_nb` for the first batch.
    X : (m, d) float array, the batch
    y : (m,) int class codes ``0..params.n_classes - 1`` (any subset of the classes)
    priors, var_smoothing
        As :func:`jaxclassic.discriminant.fit_gaussian_nb` (applied to the result).
    sample_weight : (m,) array, optional

    Returns
    -------
    GaussianNBParams

    Example
    -------
    >>> import numpy as np
    >>> from jaxclassic.discriminant import fit_gaussian_nb
    >>> X = np.array([[0.0], [1.0], [0.2], [1.2]]); y = np.array([0, 1, 0, 1])
    >>> p = update_gaussian_nb(fit_gaussian_nb(X[:2], y[:2]), X[2:], y[2:])
    >>> np.allclose(p.var, fit_gaussian_nb(X, y).var)
    True

    References
    ----------
    Chan, Golub & LeVeque, Stanford CS tech report STAN-CS-79-773 (1979) and The American
    Statistician 37 (1983); scikit-learn ``GaussianNB.partial_fit``.
    """
    if not isinstance(params, GaussianNBParams):
        raise TypeError(f"params must be GaussianNBParams, got {type(params).__name__}")
    check_scalar(var_smoothing, "var_smoothing", low=0.0)
    n_classes, n_features = params.theta.shape
    dtype = params.theta.dtype
    X = check_predict_X(X, dtype, n_features)
    if X.dtype != dtype:
        X = X.astype(dtype)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=dtype)
    y, _ = check_classification_targets(y, "y", min_classes=1, n_classes=n_classes, sample_weight=sw)
    check_consistent_length(X=X, y=y)
    priors = check_priors(priors, n_classes, dtype)
    return _update_gaussian_nb(params, X, y, sw, priors, jnp.asarray(var_smoothing, dtype))
