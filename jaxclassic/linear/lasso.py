r"""The lasso: L1-penalised least squares by cyclic coordinate descent, and its path.

Objective (the scaling of scikit-learn's ``Lasso``, with sample weights :math:`w_i`)

.. math::

    \min_{\beta, b}\ \frac{1}{2\sum_i w_i}\sum_i w_i\,(y_i - x_i^\top\beta - b)^2
    \;+\; \alpha\,\lVert\beta\rVert_1 .

The intercept :math:`b` is not penalised: with ``fit_intercept`` the data are centred by
their weighted means and :math:`b = \bar y - \bar x^\top\beta`. Everything then runs on the
weighted Gram form :math:`G = X_c^\top W X_c / \sum w`, :math:`c = X_c^\top W y_c / \sum w`,
so one sweep costs :math:`O(p^2)` whatever :math:`n` is. Coordinate :math:`j` is updated by
soft-thresholding (Friedman, Hastie & Tibshirani 2010, §2.1)

.. math::

    \beta_j \leftarrow \frac{S\!\left(c_j - \sum_{k\ne j} G_{jk}\beta_k,\ \alpha\right)}{G_{jj}},
    \qquad S(z, \alpha) = \operatorname{sign}(z)\,(|z| - \alpha)_+ ,

which gives exact zeros. A sweep over all features is one step of
:func:`jaxclassic._solver.iterate`; the loop stops when the duality gap (scikit-learn's
``_cd_fast`` formulation "A": the dual point is the residual rescaled to be feasible), relative to
:math:`\lVert y_c\rVert_W^2/\sum w`, is at most ``tol`` — the same test scikit-learn applies
(it compares the gap with ``tol * ||y||^2`` in its un-normalised units) — or, with
``stopping="coef"``, when the largest coefficient change of a sweep relative to the largest
coefficient is at most ``tol``. A computed gap below 0 is rounding of its own size (the gap of
the Gram form is known to about :math:`\varepsilon\lVert y_c\rVert_W^2/\sum w`), so the test is
on :math:`|\text{gap}|` and the reported gap is clamped at 0; a ``tol`` below that rounding
floor (the error is never taken below :math:`\varepsilon`, 1.2e-7 in float32) runs to
``max_iter`` and reports ``converged = False``.
(scikit-learn computes the gap only after a sweep whose
coefficient change is small, and screens features with Gap Safe rules; with a tight ``tol``
both reach the same optimum, which the tests check to 1e-5.) The duality gap is cheap here
because :math:`Geta` is kept up to date by the sweep, so it is checked after every sweep.

Derivatives. ``coef`` and ``intercept`` of :func:`fit_lasso` are differentiable with respect
to ``X``, ``y``, ``sample_weight`` and ``alpha`` by the implicit function theorem at the fixed
point of the proximal-gradient step (:func:`_optimality`, :mod:`jaxclassic._implicit`): 0
off the support and, on the active set :math:`A`,
:math:`d\beta_A/d\alpha = -G_{AA}^{-1}\operatorname{sign}(\beta_A)` with
:math:`G = X_c^\top WX_c/\sum w` (this module's, i.e. scikit-learn's, scaling). At the
kinks of the path (a coefficient entering or leaving) there is no derivative. Each solution
of :func:`lasso_path` is differentiated the same way (the warm start carries no derivative),
with respect to the data and to given ``alphas`` (or, for the automatic grid, through
:math:`\alpha_{\max}`). Where the active columns are linearly dependent (e.g. a duplicated
column with both copies nonzero) the solution is not unique, :math:`G_{AA}` is singular and
the derivative comes out NaN. The derivative is taken at the returned ``coef`` (the one in
``alpha`` needs only its active set and signs): at an unconverged fit it is that of an
approximate solution, and nothing says so but ``converged``.

References
----------
Tibshirani, "Regression shrinkage and selection via the lasso", JRSS B 58 (1996).
Friedman, Hastie & Tibshirani, "Regularization paths for generalized linear models via
coordinate descent", J. Stat. Software 33 (2010).
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.4.2, §3.8.6.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _precision, losses
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic._solver import iterate
from jaxclassic.linear._api import predict
from jaxclassic.linear._gram import check_gram_data, weighted_gram
from jaxclassic.linear._params import predict_linear
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_bool,
    check_choice,
    check_int,
    check_sample_weight,
    check_scalar,
    is_traced,
)

__all__ = ["LassoParams", "LassoPath", "fit_lasso", "lasso_path", "lasso_objective"]


class LassoParams(NamedTuple):
    """A fitted lasso.

    Attributes
    ----------
    coef : (n_features,) array
    intercept : scalar array
    n_iter : int32 scalar — coordinate-descent sweeps taken.
    converged : bool scalar — whether the stopping test was met within ``max_iter``.
    dual_gap : scalar — the duality gap at exit, in the units of the objective above (clamped
        at 0: a negative computed gap is rounding).
    """

    coef: jax.Array
    intercept: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    dual_gap: jax.Array


class LassoPath(NamedTuple):
    """The lasso along a decreasing sequence of penalties (one row per ``alpha``).

    Attributes
    ----------
    alphas : (n_alphas,) — decreasing.
    coefs : (n_alphas, n_features)
    intercepts : (n_alphas,)
    n_iter : (n_alphas,) int32
    converged : (n_alphas,) bool
    dual_gaps : (n_alphas,)
    """

    alphas: jax.Array
    coefs: jax.Array
    intercepts: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    dual_gaps: jax.Array


# --------------------------------------------------------------------------- core pieces
def _normalised_gram(X, y, sample_weight, fit_intercept):
    """``G, c, yy`` of the centred data divided by the weight sum, and the means."""
    wg = weighted_gram(X, y, sample_weight, fit_intercept)
    yy = _precision.dot(wg.yw, wg.yw)
    return wg.gram / wg.sw_sum, wg.xty / wg.sw_sum, yy / wg.sw_sum, wg.x_mean, wg.y_mean


def _soft_threshold(z, alpha, positive=False):
    """The proximal map of ``alpha |.|`` (with ``positive``: of ``alpha |.|`` plus the
    constraint ``>= 0``, i.e. ``max(z - alpha, 0)``)."""
    if positive:
        return jnp.maximum(z - alpha, 0.0)
    return jnp.sign(z) * jnp.maximum(jnp.abs(z) - alpha, 0.0)


def _duality_gap(c, yy, alpha, beta, q, positive=False):
    """Duality gap of the normalised problem at ``beta`` with ``q = G beta``.

    Formulation "A" of scikit-learn's ``_cd_fast`` (dual point = residual rescaled to be
    feasible; with ``positive`` the dual constraint is one-sided, ``max_j (X^T r)_j <= alpha``,
    as there); for ``alpha = 0`` it is the squared gradient norm (with ``positive``: of the
    projected gradient, the KKT residual of non-negative least squares).
    """
    r_norm2 = yy + _precision.dot(beta, q) - 2.0 * _precision.dot(c, beta)
    r_y = yy - _precision.dot(c, beta)
    xta = c - q
    dual_norm = jnp.max(xta) if positive else jnp.max(jnp.abs(xta))
    scale = jnp.where(dual_norm > alpha, alpha / jnp.where(dual_norm > 0, dual_norm, 1.0), 1.0)
    primal = 0.5 * r_norm2 + alpha * jnp.sum(jnp.abs(beta))
    dual = -0.5 * scale**2 * r_norm2 + scale * r_y
    if positive:
        # at beta_j = 0 only a positive gradient component (one that would raise beta_j) counts
        xta = jnp.where(beta > 0, xta, jnp.maximum(xta, 0.0))
    return jnp.where(alpha > 0, primal - dual, _precision.dot(xta, xta))


def _sweep(G, c, alpha, beta, q, positive=False):
    """One cyclic sweep of coordinate descent over all features (a ``fori_loop``).

    ``alpha`` is a scalar or one threshold per coordinate (``(n_features,)``: the proximal
    Newton steps of :mod:`jaxclassic.linear.logistic_l1` leave the intercept unpenalised)."""
    diag = jnp.diagonal(G)
    per_coordinate = jnp.ndim(alpha) > 0

    def body(j, state):
        beta, q, d_max = state
        g_jj = diag[j]
        b_j = beta[j]
        z = c[j] - q[j] + b_j * g_jj
        alpha_j = alpha[j] if per_coordinate else alpha
        new = jnp.where(g_jj > 0, _soft_threshold(z, alpha_j, positive) / jnp.where(g_jj > 0, g_jj, 1.0),
                        0.0)
        delta = new - b_j
        q = q + delta * G[j]
        beta = beta.at[j].set(new)
        return beta, q, jnp.maximum(d_max, jnp.abs(delta))

    zero = jnp.zeros((), beta.dtype)
    return jax.lax.fori_loop(0, beta.shape[0], body, (beta, q, zero))


def _refreshed_sweep(G, c, alpha, beta, q, positive=False):
    """A sweep, then ``q = G beta`` recomputed by one product.

    The sweep's running updates ``q += delta G_j`` accumulate rounding (float32 on diabetes:
    ``|q - G beta|`` 2e-6 after 50 sweeps, 4e-4 after 4000); the product (the same
    :math:`O(p^2)` as the sweep) resets it, so later sweeps and the gap see the true ``G beta``.
    """
    beta, _, d_max = _sweep(G, c, alpha, beta, q, positive)
    return beta, _precision.matmul(G, beta), d_max


def _cd_gram(G, c, yy, alpha, beta0, *, max_iter, tol, stopping, positive=False):
    """Coordinate descent to convergence on a precomputed Gram form."""
    y_scale = jnp.where(yy > 0, yy, 1.0)

    # the gap is known to about eps * yy: below that relative level it cannot be verified
    floor = jnp.finfo(G.dtype).eps

    def gap_error(beta, q):
        # a negative gap is rounding of its size: stop only when |gap| is within tol
        return jnp.maximum(jnp.abs(_duality_gap(c, yy, alpha, beta, q, positive)) / y_scale, floor)

    def step(carry):
        beta, q = carry
        beta, q, d_max = _refreshed_sweep(G, c, alpha, beta, q, positive)
        if stopping == "gap":
            err = gap_error(beta, q)
        else:
            w_max = jnp.max(jnp.abs(beta))
            err = jnp.where(w_max > 0, d_max / jnp.where(w_max > 0, w_max, 1.0), 0.0)
        return (beta, q), err

    q0 = _precision.matmul(G, beta0)
    init_error = gap_error(beta0, q0) if stopping == "gap" else None
    res = iterate(step, (beta0, q0), max_iter=max_iter, tol=tol, init_error=init_error)
    beta, q = res.carry
    gap = jnp.maximum(_duality_gap(c, yy, alpha, beta, q, positive), 0.0)
    return beta, res.n_iter, res.converged, gap


def _optimality(beta, G, c, alpha, positive=False):
    r"""The lasso's optimality condition as the fixed point of its proximal-gradient step,
    for :mod:`jaxclassic._implicit`:

    .. math:: F(\beta) = \beta - S\bigl(\beta - \eta(G\beta - c),\ \eta\alpha\bigr) = 0,

    with :math:`\eta = 1/\max_j G_{jj}` (any :math:`\eta > 0` has the same fixed points, the
    minimisers; its derivative vanishes there, so it is held constant). :math:`S` has slope 1
    on the active set :math:`A` (:math:`|z_j| > \eta\alpha`) and 0 off it, so the implicit
    derivative is 0 off the support and, on it,
    :math:`\partial\beta_A = -G_{AA}^{-1}\,\partial(G_{A\cdot}\beta - c_A + \alpha\,\mathrm{sign}\,\beta_A)`
    (e.g. :math:`\partial\beta_A/\partial\alpha = -G_{AA}^{-1}\mathrm{sign}(\beta_A)`).
    ``G`` and ``c`` are the normalised weighted Gram form, differentiable in ``X``, ``y`` and
    the weights. At a kink (a coefficient about to enter or leave, :math:`|z_j| = \eta\alpha`)
    there is no derivative; JAX's convention (slope 0) is used. With ``positive`` the map is
    :math:`\max(z - \eta\alpha, 0)`, with the same active-set structure."""
    eta = jax.lax.stop_gradient(1.0 / jnp.maximum(jnp.max(jnp.diagonal(G)), jnp.finfo(G.dtype).tiny))
    z = beta - eta * (_precision.matmul(G, beta) - c)
    return beta - _soft_threshold(z, eta * alpha, positive)


@partial(_jit.jit, static_argnames=("fit_intercept", "max_iter", "stopping", "positive"))
def _fit_lasso(X, y, sample_weight, alpha, tol, coef_init, *, fit_intercept, max_iter, stopping,
               positive=False):
    G, c, yy, x_mean, y_mean = _normalised_gram(X, y, sample_weight, fit_intercept)
    # coordinate descent runs on stopped inputs; the derivatives of beta come from the
    # proximal fixed point (implicit function theorem), the intercept's from its formula
    beta, n_iter, converged, gap = _cd_gram(
        *jax.lax.stop_gradient((G, c, yy, alpha)), jax.lax.stop_gradient(coef_init),
        max_iter=max_iter, tol=tol, stopping=stopping, positive=positive
    )
    beta = with_implicit_derivatives(partial(_optimality, positive=positive), beta, G, c, alpha)
    intercept = y_mean - _precision.dot(x_mean, beta)
    return LassoParams(beta, intercept, n_iter, converged, gap)


def lasso_objective(params, X, y, alpha, sample_weight=None):
    r"""The lasso objective at ``params`` (``coef``, ``intercept``).

    :math:`\frac{1}{\sum w}\sum_i w_i\,\ell(y_i, x_i^\top\beta + b) + \alpha\lVert\beta\rVert_1`
    with :math:`\ell` = :func:`jaxclassic.losses.squared` (:math:`\tfrac12(y-f)^2`).
    """
    w = jnp.ones(X.shape[0], X.dtype) if sample_weight is None else sample_weight
    f = _precision.matmul(X, params.coef) + params.intercept
    return jnp.sum(w * losses.squared(y, f)) / jnp.sum(w) + alpha * jnp.sum(jnp.abs(params.coef))


# --------------------------------------------------------------------------- public API
def _check_common(X, y, sample_weight, max_iter, tol, stopping, model="fit_lasso"):
    X, y = check_gram_data(X, y, model=model)  # dense, or sparse (the Gram from a sparse product)
    w = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    max_iter = check_int(max_iter, "max_iter", low=1)
    check_scalar(tol, "tol", low=0)
    check_choice(stopping, "stopping", ("gap", "coef"))
    return X, y, w, max_iter


def _check_coef_init(coef_init, n_features, dtype):
    if coef_init is None:
        return np.zeros((n_features,), dtype)  # no compiled program
    coef_init = check_array(coef_init, "coef_init", ndim=1, dtype=dtype)
    if coef_init.shape != (n_features,):
        raise ValueError(f"coef_init must have shape ({n_features},), got {coef_init.shape}")
    return coef_init


def fit_lasso(
    X,
    y,
    *,
    alpha=1.0,
    fit_intercept: bool = True,
    max_iter: int = 1000,
    tol=1e-4,
    sample_weight=None,
    coef_init=None,
    stopping: str = "gap",
    positive: bool = False,
) -> LassoParams:
    r"""Fit the lasso by cyclic coordinate descent with soft-thresholding.

    Minimises :math:`\frac{1}{2\sum w}\sum_i w_i (y_i - x_i^\top\beta - b)^2 + \alpha\lVert\beta\rVert_1`
    (scikit-learn ``Lasso``'s objective: with unit weights the loss is scaled by
    :math:`1/(2n)`), the intercept unpenalised. See the module docstring for the update
    and the stopping rule.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) array
    alpha : float >= 0, default 1.0
        L1 penalty (default ``Lasso``'s); traced, so ``jax.vmap`` over a grid of ``alpha``
        compiles once.
    fit_intercept : bool
        Fit an unpenalised intercept (centre the data by their weighted means).
    max_iter : int
        Maximum number of coordinate-descent sweeps (static).
    tol : float
        Tolerance: on the absolute duality gap divided by
        :math:`\sum_i w_i (y_i-\bar y)^2/\sum w` (``stopping="gap"``, as scikit-learn; a
        ``tol`` below the dtype's epsilon cannot be verified and runs to ``max_iter``), or on the largest coefficient change relative
        to the largest coefficient (``stopping="coef"``).
    sample_weight : (n_samples,) array, optional
        Non-negative weights; a row of weight 0 has no influence.
    coef_init : (n_features,) array, optional
        Warm start (zeros by default).
    stopping : {"gap", "coef"}
        The stopping test (static).
    positive : bool
        Constrain the coefficients to be ``>= 0`` (scikit-learn's ``positive=True``): the
        coordinate update becomes :math:`\beta_j \leftarrow \max(z_j - \alpha, 0)/G_{jj}` and the
        duality gap's dual constraint one-sided (static). With ``alpha=0`` this is
        non-negative least squares, stopped on the projected gradient.

    Returns
    -------
    LassoParams
        ``coef``, ``intercept``, ``n_iter``, ``converged``, ``dual_gap``.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[0., 1.], [1., 0.], [2., 1.], [3., 0.]])
    >>> y = jnp.array([0., 1., 2., 3.])
    >>> p = fit_lasso(X, y, alpha=0.1)
    >>> round(float(p.coef[0]), 3), bool(p.coef[1] == 0)
    (0.92, True)

    References
    ----------
    Friedman, Hastie & Tibshirani (2010), J. Stat. Software 33(1); ESL §3.4.2.
    """
    X, y, w, max_iter = _check_common(X, y, sample_weight, max_iter, tol, stopping)
    check_scalar(alpha, "alpha", low=0)
    coef_init = _check_coef_init(coef_init, X.shape[1], X.dtype)
    return _fit_lasso(
        X, y, w, as_operand(alpha, X.dtype), as_operand(tol, X.dtype), coef_init,
        fit_intercept=check_bool(fit_intercept, "fit_intercept"), max_iter=max_iter, stopping=stopping,
        positive=check_bool(positive, "positive"),
    )


@partial(_jit.jit, static_argnames=("fit_intercept", "max_iter", "n_alphas", "stopping", "auto"))
def _lasso_path(X, y, sample_weight, alphas, eps, tol, coef_init, *, fit_intercept, max_iter,
                n_alphas, stopping, auto):
    G, c, yy, x_mean, y_mean = _normalised_gram(X, y, sample_weight, fit_intercept)
    if auto:
        # scikit-learn's _alpha_grid: alpha_max = ||X_c^T W y_c||_inf / sum(w) makes beta = 0
        resolution = np.finfo(np.float64).resolution
        alpha_max = jnp.max(jnp.abs(c))
        grid = alpha_max * eps ** jnp.linspace(0.0, 1.0, n_alphas, dtype=X.dtype)
        alphas = jnp.where(alpha_max <= resolution, jnp.full_like(grid, resolution), grid)
    else:
        alphas = -jnp.sort(-alphas)

    def one_alpha(beta, alpha):
        # warm-started coordinate descent on stopped inputs; each solution's derivatives
        # come from its own proximal fixed point (implicit function theorem)
        beta, n_iter, converged, gap = _cd_gram(
            *jax.lax.stop_gradient((G, c, yy, alpha, beta)), max_iter=max_iter, tol=tol,
            stopping=stopping
        )
        return beta, (with_implicit_derivatives(_optimality, beta, G, c, alpha), n_iter, converged,
                      gap)

    _, (coefs, n_iter, converged, gaps) = jax.lax.scan(one_alpha, coef_init, alphas)
    intercepts = y_mean - _precision.matmul(coefs, x_mean)
    return LassoPath(alphas, coefs, intercepts, n_iter, converged, gaps)


def lasso_path(
    X,
    y,
    *,
    alphas=None,
    n_alphas: int = 100,
    eps=1e-3,
    fit_intercept: bool = True,
    max_iter: int = 1000,
    tol=1e-4,
    sample_weight=None,
    coef_init=None,
    stopping: str = "gap",
) -> LassoPath:
    r"""The lasso along a decreasing grid of ``alpha``, each fit warm-started from the last.

    Same objective as :func:`fit_lasso`. The weighted Gram matrix is formed once; a
    ``lax.scan`` over the decreasing ``alphas`` carries the coefficients from one penalty to
    the next (warm starts, Friedman et al. 2010 §2.5). With ``alphas=None`` the grid is
    scikit-learn's: ``n_alphas`` values log-spaced from
    :math:`\alpha_{\max} = \lVert X_c^\top W y_c\rVert_\infty / \sum w` (the smallest penalty
    with :math:`\beta = 0`) down to ``eps`` times it.

    Unlike scikit-learn's ``lasso_path`` (which never centres), the default here fits an
    intercept; ``fit_intercept=False`` gives scikit-learn's ``lasso_path`` exactly.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) array
    alphas : (n_alphas,) array, optional
        Penalties (sorted into decreasing order); traced.
    n_alphas : int
        Length of the automatic grid (static; ignored when ``alphas`` is given).
    eps : float
        ``alpha_min / alpha_max`` of the automatic grid.
    fit_intercept, max_iter, tol, sample_weight, stopping
        As in :func:`fit_lasso` (``max_iter`` and ``tol`` apply to each ``alpha``).
    coef_init : (n_features,) array, optional
        Start of the first fit.

    Returns
    -------
    LassoPath
        ``alphas`` (decreasing), ``coefs (n_alphas, n_features)``, ``intercepts``,
        ``n_iter``, ``converged``, ``dual_gaps``.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[0., 1.], [1., 0.], [2., 1.], [3., 0.]])
    >>> path = lasso_path(X, jnp.array([0., 1., 2., 3.]), n_alphas=5)
    >>> path.coefs.shape, float(abs(path.coefs[0]).sum())
    ((5, 2), 0.0)

    References
    ----------
    Friedman, Hastie & Tibshirani (2010), J. Stat. Software 33(1), §2.5 (pathwise CD).
    """
    X, y, w, max_iter = _check_common(X, y, sample_weight, max_iter, tol, stopping)
    check_scalar(eps, "eps", low=0, include_low=False)
    coef_init = _check_coef_init(coef_init, X.shape[1], X.dtype)
    auto = alphas is None
    if auto:
        n_alphas = check_int(n_alphas, "n_alphas", low=1)
        alphas_arr = jnp.zeros((n_alphas,), X.dtype)
    else:
        alphas_arr = check_array(alphas, "alphas", ndim=1, dtype=X.dtype)
        if not is_traced(alphas_arr) and bool(jnp.any(alphas_arr < 0)):
            raise ValueError(f"alphas must be >= 0, got min {float(jnp.min(alphas_arr))}")
        n_alphas = alphas_arr.shape[0]
    return _lasso_path(
        X, y, w, alphas_arr, as_operand(eps, X.dtype), as_operand(tol, X.dtype), coef_init,
        fit_intercept=check_bool(fit_intercept, "fit_intercept"), max_iter=max_iter, n_alphas=n_alphas,
        stopping=stopping, auto=auto,
    )


predict.register(LassoParams, predict_linear)
