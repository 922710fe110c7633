r"""Ridge regression: the closed form, and a path over many penalties from one eigendecomposition.

Objective (scikit-learn's ``Ridge`` scaling: sums, not means, so ``alpha`` here equals
``Ridge(alpha=...)``'s), with sample weights :math:`w_i \ge 0`:

.. math::

    \min_{\beta, b}\ \sum_i w_i\,(y_i - x_i^\top\beta - b)^2 + \alpha\,\lVert\beta\rVert_2^2 .

The intercept is not penalised: with ``fit_intercept`` the data are centred by their weighted
means and :math:`b = \bar y - \bar x^\top\beta`. The coefficients are the closed form

.. math::

    \beta = (G + \alpha I)^{-1} g, \qquad G = X_c^\top W X_c,\ g = X_c^\top W y_c,

solved by Cholesky of the equilibrated system :math:`S^{-1}(G + \alpha I)S^{-1}`,
:math:`S = \operatorname{diag}(G_{jj} + \alpha)^{1/2}` (so columns in very different units lose
nothing), with the minimum-norm fallback of :func:`~jaxclassic.linear.fit_ols` when it is
numerically singular. (Dividing the objective by :math:`\sum_i w_i`, the mean-loss form of
*The Elements of Statistical Learning* and of :func:`~jaxclassic.linear.fit_lasso`, turns
``alpha`` into :math:`\alpha / \sum_i w_i`.)

``standardize=True`` penalises the coefficients of the standardised columns
:math:`z_{ij} = (x_{ij} - \bar x_j)/s_j`, with :math:`s_j` the weighted **population** standard
deviation (``ddof=0``, as the textbook does; constant columns get :math:`s_j = 1`), i.e. the
penalty becomes :math:`\alpha\sum_j s_j^2\beta_j^2`. The coefficients are still **reported on
the original scale** of ``X`` (:math:`\beta_j = \beta^{z}_j / s_j`), so ``predict`` takes raw
``X``.

``alpha`` is a traced array: a grid of penalties is a ``jax.vmap`` of :func:`fit_ridge`
(``G`` is formed once, one Cholesky per penalty); :func:`ridge_path` goes further and shares
one eigendecomposition :math:`G = V\Lambda V^\top` across all penalties,
:math:`\beta(\alpha) = V(\Lambda + \alpha I)^{-1}V^\top g`, at :math:`O(d^2)` per penalty.
That decomposition has absolute error :math:`\varepsilon\lVert G\rVert`, which erases the
directions of columns in small units when the column norms differ widely; equilibrating does
not help there (the penalty :math:`\alpha I` becomes :math:`\alpha S^{-2}`, which one
eigendecomposition no longer diagonalises), so when
:math:`\varepsilon\,(\max_j s_j/\min_j s_j)^2 > 10^{-5}` (float32: column norms more than
about 9 times apart) the path solves each penalty as :func:`fit_ridge` does, at
:math:`O(d^3)` per penalty (``standardize=True`` makes the columns commensurate first).

References
----------
Hoerl & Kennard, "Ridge regression: biased estimation for nonorthogonal problems",
Technometrics 12 (1970).
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.4.1
(eqs. 3.41-3.47: centring, standardisation, the SVD form of the path).
"""

from __future__ import annotations

import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _linalg
from jaxclassic import _precision
from jaxclassic.exceptions import RankDeficientWarning
from jaxclassic._sparse import is_sparse
from jaxclassic.linear._gram import (
    check_gram_data,
    graded,
    solve_normal_equations,
    sparse_mean_scale,
    weighted_gram,
)
from jaxclassic.linear._params import LinearParams
from jaxclassic.linear.features import weighted_mean_scale
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_bool,
    check_sample_weight,
    check_scalar,
    is_traced,
)

__all__ = ["LinearParams", "fit_ridge", "ridge_path"]


def _scaled_system(X, y, sample_weight, fit_intercept, standardize):
    """``G``, ``g`` of the (standardised) problem, the column scales and the centring stats."""
    stats = weighted_gram(X, y, sample_weight, fit_intercept)
    if standardize and fit_intercept:
        # the centred Gram's diagonal is sum(w) times the population variance
        scale = jnp.where(stats.constant, 1, jnp.sqrt(jnp.diagonal(stats.gram) / stats.sw_sum))
    elif standardize and is_sparse(X):
        _, scale, _, _ = sparse_mean_scale(X, sample_weight)
    elif standardize:
        _, scale = weighted_mean_scale(X, sample_weight, 0)
    else:
        scale = jnp.ones(X.shape[1], X.dtype)
    gram = stats.gram / scale[:, None] / scale[None, :]
    xty = stats.xty / scale
    return gram, xty, scale, stats


def _finish(beta_scaled, scale, stats, fit_intercept):
    coef = beta_scaled / scale
    if fit_intercept:
        intercept = stats.y_mean - _precision.matmul(coef, stats.x_mean)
    else:
        intercept = jnp.zeros(coef.shape[:-1], coef.dtype)
    return LinearParams(coef, intercept)


def _rcond(gram):
    return 10 * gram.shape[0] * jnp.finfo(gram.dtype).eps


def _solve_penalised(gram, xty, alpha):
    """``(G + alpha I)^{-1} g`` by equilibrated Cholesky, the minimum-norm solution if singular."""
    penalised = gram + alpha * jnp.eye(gram.shape[0], dtype=gram.dtype)
    return solve_normal_equations(penalised, xty, _rcond(gram))


@partial(_jit.jit, static_argnames=("fit_intercept", "standardize"))
def _fit_ridge(X, y, sample_weight, alpha, *, fit_intercept, standardize):
    gram, xty, scale, stats = _scaled_system(X, y, sample_weight, fit_intercept, standardize)
    beta, rank = _solve_penalised(gram, xty, alpha)
    return _finish(beta, scale, stats, fit_intercept), rank


def fit_ridge(X, y, *, alpha=1.0, fit_intercept: bool = True, standardize: bool = False,
              sample_weight=None) -> LinearParams:
    r"""Ridge regression in closed form, :math:`\beta = (X_c^\top W X_c + \alpha I)^{-1}X_c^\top W y_c`.

    Minimises :math:`\sum_i w_i (y_i - x_i^\top\beta - b)^2 + \alpha\lVert\beta\rVert^2`
    (scikit-learn's scaling: ``alpha`` is ``Ridge``'s ``alpha``); the intercept is not
    penalised. See the module docstring for ``standardize``.

    Parameters
    ----------
    X : (n_samples, n_features) array-like, or a ``scipy.sparse`` matrix
        Sparse ``X``: the Gram matrix by sparse products, as :func:`~jaxclassic.linear.fit_ols`
        (at most :data:`jaxclassic.linear._gram.MAX_GRAM_FEATURES` columns).
    y : (n_samples,) array-like
    alpha : float >= 0, default 1.0
        Penalty strength (default ``Ridge``'s; traced: ``jax.vmap`` over a grid of it).
        ``alpha = 0`` is OLS; when
        :math:`G + \alpha I` is numerically singular (``alpha = 0`` on collinear or constant
        columns) the fit falls back to the minimum-norm least-squares solution, as
        :func:`~jaxclassic.linear.fit_ols` does, with a :class:`RankDeficientWarning` (only
        when run eagerly: under ``jit`` / ``vmap`` the rank is a tracer).
    fit_intercept : bool, default True
    standardize : bool, default False
        Penalise the coefficients of the standardised columns (population std); coefficients
        are reported on the original scale.
    sample_weight : (n_samples,) array-like, optional
        Non-negative weights; a row of weight 0 has no influence.

    Returns
    -------
    LinearParams
        ``coef`` (n_features,), ``intercept`` ().

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jax.random.normal(jax.random.key(0), (50, 3)); y = X @ jnp.array([1.0, -2.0, 0.5])
    >>> params = fit_ridge(X, y, alpha=1.0)
    >>> grid = jax.vmap(lambda a: fit_ridge(X, y, alpha=a))(jnp.logspace(-2, 2, 5))
    >>> grid.coef.shape
    (5, 3)

    References
    ----------
    Hoerl & Kennard, Technometrics 12 (1970); Hastie, Tibshirani & Friedman, *The Elements of
    Statistical Learning*, 2nd ed., §3.4.1.
    """
    X, y = check_gram_data(X, y, model="fit_ridge")
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    check_scalar(alpha, "alpha", low=0.0)
    params, rank = _fit_ridge(X, y, sw, as_operand(alpha, X.dtype),
                              fit_intercept=check_bool(fit_intercept, "fit_intercept"),
                              standardize=check_bool(standardize, "standardize"))
    if not is_traced(rank) and int(rank) < X.shape[1]:
        warnings.warn(
            f"X^T W X + alpha I has numerical rank {int(rank)} < n_features={X.shape[1]} "
            f"(alpha={float(alpha)!r} on collinear or constant columns, or too few rows): "
            "fit_ridge returns the minimum-norm least-squares solution",
            RankDeficientWarning,
            stacklevel=2,
        )
    return params


@partial(_jit.jit, static_argnames=("fit_intercept", "standardize"))
def _ridge_path(X, y, sample_weight, alphas, *, fit_intercept, standardize):
    gram, xty, scale, stats = _scaled_system(X, y, sample_weight, fit_intercept, standardize)

    def by_eigendecomposition(_):
        evals, evecs = _linalg.eigh(gram)
        evals = jnp.maximum(evals, 0)  # rounding can leave tiny negative eigenvalues
        proj = _precision.matmul(evecs.T, xty)  # V^T g
        denom = evals[None, :] + alphas[:, None]
        # alpha = 0 on a singular Gram: the minimum-norm (pseudo-inverse) solution, as fit_ols
        keep = denom > _rcond(gram) * evals[-1]
        shrink = jnp.where(keep, proj[None, :] / jnp.where(keep, denom, 1), 0)
        return _precision.matmul(shrink, evecs.T)  # (n_alphas, d)

    def per_penalty(_):  # badly scaled columns: one equilibrated solve per alpha, as fit_ridge
        return jax.vmap(lambda a: _solve_penalised(gram, xty, a)[0])(alphas)

    beta = jax.lax.cond(graded(gram), per_penalty, by_eigendecomposition, None)
    return _finish(beta, scale[None, :], stats, fit_intercept)


def ridge_path(X, y, alphas, *, fit_intercept: bool = True, standardize: bool = False,
               sample_weight=None) -> LinearParams:
    r"""Ridge fits for many penalties from one eigendecomposition of the Gram matrix.

    With :math:`G = V\Lambda V^\top` (once, :math:`O(d^3)`), every penalty costs :math:`O(d^2)`:

    .. math::

        \beta(\alpha) = V\,\mathrm{diag}\!\left(\frac{1}{\lambda_j + \alpha}\right)V^\top g .

    Same objective, scaling and options as :func:`fit_ridge` (module docstring). Each row of
    the result equals ``fit_ridge(X, y, alpha=alphas[k])`` up to rounding; at ``alpha = 0`` a
    singular :math:`G` gives the minimum-norm solution (eigenvalues below
    :math:`10 d\varepsilon\lambda_{\max}` are dropped), without a warning. When the column
    norms differ too much for one eigendecomposition (module docstring), each penalty is
    solved by the equilibrated Cholesky of :func:`fit_ridge` instead (:math:`O(d^3)` each). ``jax.vmap`` over ``sample_weight``
    (cross-validation folds) gives one decomposition per fold, shared by all penalties.

    Parameters
    ----------
    X : (n_samples, n_features) array-like
    y : (n_samples,) array-like
    alphas : (n_alphas,) array-like of floats >= 0
    fit_intercept, standardize, sample_weight
        As :func:`fit_ridge`.

    Returns
    -------
    LinearParams
        ``coef`` (n_alphas, n_features), ``intercept`` (n_alphas,).

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jax.random.normal(jax.random.key(0), (50, 3)); y = X @ jnp.array([1.0, -2.0, 0.5])
    >>> ridge_path(X, y, jnp.logspace(-3, 3, 7)).coef.shape
    (7, 3)

    References
    ----------
    Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., eq. 3.47.
    """
    X, y = check_gram_data(X, y, model="ridge_path")
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    alphas = check_array(alphas, "alphas", ndim=1, dtype=X.dtype)
    if not is_traced(alphas) and np.any(np.asarray(alphas) < 0):
        raise ValueError(f"alphas must be >= 0, got minimum {float(np.min(np.asarray(alphas)))}")
    return _ridge_path(X, y, sw, alphas, fit_intercept=check_bool(fit_intercept, "fit_intercept"),
                       standardize=check_bool(standardize, "standardize"))
